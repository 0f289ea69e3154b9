//! Whether a cache can be taken at its word: whether it shows every write
//! the API server had made when the operator last had reason to doubt it.
//!
//! A watch delivers changes in the order of their revisions, a moment late.
//! The operator's own writes are shown at once ([`super::overlay`]); what
//! someone else wrote arrives with the watch. Mostly that is all anyone
//! needs. Reports need more: the names of their Events follow the stored
//! status, so a report decided from a status older than the stored one
//! would announce a transition a second time, under a new name. Who else
//! writes a runtime's status, and when can the cache miss it?
//! - a replica that led before this one (or this operator before a
//!   restart): its last writes may still be on their way when this one
//!   starts leading;
//! - a watch that failed, or stalled (one of our own writes was not shown
//!   within the overlay's limit): writes made meanwhile are missing until
//!   it delivers again.
//!
//! Each of these makes the cache doubted. Then one consistent read of the
//! kind (a list of one object) tells the API server's revision now, and
//! the cache is trusted again once its watch has delivered that revision or
//! a later one: a watch that has shown revision R has shown every change up
//! to R. Until then a report reads its runtime fresh.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::Notify;

use crate::shell::controller::lock::lock;

pub struct Trust {
    /// The highest revision the watch has delivered to the store.
    seen: Arc<AtomicU64>,
    state: Mutex<State>,
    /// Wakes whoever catches the cache up (see [`Trust::catch_up`]).
    doubted: Notify,
}

struct State {
    /// Counts the doubts: a catch-up read counts only if no new doubt came
    /// while it was on its way.
    doubts: u64,
    /// The revision the watch must have shown; `None` until a catch-up read
    /// has told it.
    until: Option<u64>,
}

/// A doubt to resolve: read the revision now, then [`Trust::caught_up`].
#[derive(Clone, Copy, Debug)]
pub struct Doubt(u64);

impl Trust {
    /// A cache over a watch that records in `seen` how far it got; doubted
    /// from the start (nothing is known about who wrote before).
    pub(super) fn new(seen: Arc<AtomicU64>) -> Trust {
        let trust = Trust {
            seen,
            state: Mutex::new(State {
                doubts: 1,
                until: None,
            }),
            doubted: Notify::new(),
        };
        trust.doubted.notify_one();
        trust
    }

    /// Whether the cache shows every write made up to the last doubt.
    pub fn trusted(&self) -> bool {
        let until = lock(&self.state).until;
        until.is_some_and(|until| self.seen.load(Ordering::Acquire) >= until)
    }

    /// Someone may have written what the cache does not show.
    pub fn doubt(&self) {
        let mut state = lock(&self.state);
        state.doubts += 1;
        state.until = None;
        drop(state);
        self.doubted.notify_one();
    }

    /// Waits until the cache is doubted and no catch-up read has answered
    /// that doubt yet; returns the doubt to answer.
    pub async fn catch_up(&self) -> Doubt {
        loop {
            {
                let state = lock(&self.state);
                if state.until.is_none() {
                    return Doubt(state.doubts);
                }
            }
            self.doubted.notified().await;
        }
    }

    /// A consistent read made after `doubt` was raised found the API server
    /// at `revision`.
    pub fn caught_up(&self, doubt: Doubt, revision: u64) {
        let mut state = lock(&self.state);
        if state.doubts == doubt.0 {
            state.until = Some(revision);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trust_at(seen: u64) -> (Trust, Arc<AtomicU64>) {
        let seen = Arc::new(AtomicU64::new(seen));
        (Trust::new(seen.clone()), seen)
    }

    #[tokio::test]
    async fn doubted_until_the_watch_has_shown_the_revision_a_read_found() {
        let (trust, seen) = trust_at(5);
        assert!(!trust.trusted(), "doubted from the start");
        let doubt = trust.catch_up().await;
        trust.caught_up(doubt, 10);
        assert!(!trust.trusted(), "the watch is behind the read");
        seen.store(10, Ordering::Release);
        assert!(trust.trusted());
        seen.store(12, Ordering::Release);
        assert!(trust.trusted());
    }

    #[tokio::test]
    async fn a_doubt_raised_during_a_catch_up_read_outlives_it() {
        let (trust, seen) = trust_at(20);
        let doubt = trust.catch_up().await;
        trust.doubt();
        trust.caught_up(doubt, 10);
        assert!(!trust.trusted(), "the read was made before the new doubt");
        let doubt = trust.catch_up().await;
        trust.caught_up(doubt, 15);
        assert!(trust.trusted());
        let _ = seen;
    }

    #[tokio::test]
    async fn catch_up_waits_for_a_doubt() {
        let (trust, _) = trust_at(0);
        let doubt = trust.catch_up().await;
        trust.caught_up(doubt, 0);
        assert!(trust.trusted());
        let trust = Arc::new(trust);
        let waiting = tokio::spawn({
            let trust = trust.clone();
            async move { trust.catch_up().await }
        });
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished());
        trust.doubt();
        assert!(waiting.await.is_ok());
        assert!(!trust.trusted());
    }
}
