//! Two lanes in front of the reconciles, one set of slots: a runtime whose
//! objects exist goes before one whose objects are still to be created.
//!
//! kube's controller runs reconciles in the order their triggers came. When
//! a thousand runtimes are created at once, the report of a runtime whose
//! Deployment has just become available queued behind every creation that
//! came before it: its Ready waited for minutes while it served. So the
//! controller starts every reconcile at once and each waits here for one of
//! `--concurrency` slots; a freed slot goes to the longest-waiting
//! reconcile of the [`Lane::Prompt`] lane first, then to the
//! [`Lane::Creation`] lane. As many reconciles as before talk to the API
//! server at once; only the order changes. A reconcile that stops waiting
//! (cancelled) gives up its place, and a slot handed to it goes on to the
//! next.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use tokio::sync::oneshot;

use super::lock::lock;

/// Which lane a reconcile waits in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lane {
    /// The runtime's Deployment exists: what this reconcile has to do is
    /// mostly to report (a rollout moved) or to apply a change.
    Prompt,
    /// The runtime's objects are still to be created: the most work, and
    /// nobody is served by it yet.
    Creation,
}

/// `slots` reconciles at a time, [`Lane::Prompt`] first.
#[derive(Clone)]
pub struct Lanes {
    inner: Arc<Mutex<Queue>>,
}

struct Queue {
    free: usize,
    prompt: VecDeque<oneshot::Sender<Slot>>,
    creation: VecDeque<oneshot::Sender<Slot>>,
}

/// A slot, held while the reconcile runs; dropping it hands it on.
pub struct Slot {
    lanes: Option<Lanes>,
}

impl Lanes {
    pub fn new(slots: usize) -> Lanes {
        Lanes {
            inner: Arc::new(Mutex::new(Queue {
                free: slots,
                prompt: VecDeque::new(),
                creation: VecDeque::new(),
            })),
        }
    }

    /// Waits for a slot in `lane`.
    pub async fn enter(&self, lane: Lane) -> Slot {
        let waiting = {
            let mut queue = lock(&self.inner);
            if queue.free > 0 {
                queue.free -= 1;
                return self.slot();
            }
            let (give, wait) = oneshot::channel();
            match lane {
                Lane::Prompt => queue.prompt.push_back(give),
                Lane::Creation => queue.creation.push_back(give),
            }
            wait
        };
        match waiting.await {
            Ok(slot) => slot,
            // The sender is only ever dropped after a send (a slot handed
            // over) or with the whole queue; neither leaves us waiting.
            Err(_) => self.slot(),
        }
    }

    fn slot(&self) -> Slot {
        Slot {
            lanes: Some(self.clone()),
        }
    }

    /// Hands a freed slot to the next waiter, prompt lane first; keeps it
    /// free when nobody waits. A waiter that gave up (its receiver dropped)
    /// is skipped.
    fn hand_on(&self) {
        loop {
            let next = {
                let mut queue = lock(&self.inner);
                match queue
                    .prompt
                    .pop_front()
                    .or_else(|| queue.creation.pop_front())
                {
                    Some(next) => next,
                    None => {
                        queue.free += 1;
                        return;
                    }
                }
            };
            // Sent outside the lock: a slot that comes back (the waiter is
            // gone) goes round again instead of being dropped, which would
            // hand it on from inside the lock.
            match next.send(self.slot()) {
                Ok(()) => return,
                Err(mut returned) => {
                    returned.lanes = None;
                }
            }
        }
    }

    #[cfg(test)]
    fn waiting(&self) -> (usize, usize, usize) {
        let queue = lock(&self.inner);
        (queue.free, queue.prompt.len(), queue.creation.len())
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        if let Some(lanes) = self.lanes.take() {
            lanes.hand_on();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use futures::FutureExt;

    use super::*;

    /// Polls `future` once: `Some` if it is ready.
    fn now<F: std::future::Future>(future: F) -> Option<F::Output> {
        future.now_or_never()
    }

    #[tokio::test]
    async fn free_slots_are_taken_at_once_and_come_back() {
        let lanes = Lanes::new(2);
        let a = lanes.enter(Lane::Creation).await;
        let b = lanes.enter(Lane::Prompt).await;
        assert_eq!(lanes.waiting(), (0, 0, 0));
        drop(a);
        drop(b);
        assert_eq!(lanes.waiting(), (2, 0, 0));
    }

    #[tokio::test]
    async fn a_freed_slot_goes_to_the_prompt_lane_first_then_in_order() {
        let lanes = Lanes::new(1);
        let held = lanes.enter(Lane::Creation).await;
        let order = Arc::new(Mutex::new(Vec::new()));
        let mut tasks = Vec::new();
        for (name, lane) in [
            ("creation-1", Lane::Creation),
            ("prompt-1", Lane::Prompt),
            ("creation-2", Lane::Creation),
            ("prompt-2", Lane::Prompt),
        ] {
            let (queue, order) = (lanes.clone(), order.clone());
            tasks.push(tokio::spawn(async move {
                let _slot = queue.enter(lane).await;
                lock(&order).push(name);
                tokio::time::sleep(Duration::from_millis(5)).await;
            }));
            // Queued in this order.
            while lanes.waiting().1 + lanes.waiting().2 < tasks.len() {
                tokio::task::yield_now().await;
            }
        }
        drop(held);
        for task in tasks {
            assert!(task.await.is_ok());
        }
        assert_eq!(
            *lock(&order),
            ["prompt-1", "prompt-2", "creation-1", "creation-2"]
        );
        assert_eq!(lanes.waiting(), (1, 0, 0));
    }

    #[tokio::test]
    async fn a_waiter_that_gives_up_passes_its_turn_on() {
        let lanes = Lanes::new(1);
        let held = lanes.enter(Lane::Creation).await;
        let mut gave_up = Box::pin(lanes.enter(Lane::Prompt));
        assert!(now(&mut gave_up).is_none());
        let mut next = Box::pin(lanes.enter(Lane::Creation));
        assert!(now(&mut next).is_none());
        drop(gave_up);
        drop(held);
        // The slot skipped the waiter that left and reached the next one.
        let slot = now(&mut next);
        assert!(slot.is_some());
        drop(slot);
        assert_eq!(lanes.waiting(), (1, 0, 0));
    }

    #[tokio::test]
    async fn a_slot_handed_to_a_waiter_that_never_took_it_is_not_lost() {
        let lanes = Lanes::new(1);
        let held = lanes.enter(Lane::Creation).await;
        let mut waiter = Box::pin(lanes.enter(Lane::Prompt));
        assert!(now(&mut waiter).is_none());
        // Handed over, then the waiter goes before it looked.
        drop(held);
        drop(waiter);
        assert_eq!(lanes.waiting(), (1, 0, 0));
    }
}
