//! Runtimes stalled by a refusal the API server will repeat (see
//! `failure`): "no retry until the spec changes". Every Deployment status
//! change and the resync reconcile the runtime; without this, each of them
//! would send the refused write again. While a stall is remembered for the
//! runtime's generation, the reconcile reports it without applying.
//!
//! Forgotten when the generation changes (the spec changed), when an apply
//! goes through, when the runtime goes, and after the resync interval: an
//! obstacle no watch shows (an admission policy, a foreign object) may have
//! been removed, and the resync's apply is how the operator notices.

use std::time::{Duration, Instant};

use crate::pure::status::stalled::Stall;

/// A runtime's stall and what it holds for (kept in the runtime's record,
/// see `memory`).
#[derive(Clone, Debug)]
pub struct Held {
    generation: Option<i64>,
    since: Instant,
    stall: Stall,
}

impl Held {
    /// The runtime at `generation` stalled at `now` with `stall`.
    pub fn new(generation: Option<i64>, stall: &Stall, now: Instant) -> Held {
        Held {
            generation,
            since: now,
            stall: stall.clone(),
        }
    }
}

/// The stall `held` for the runtime at `generation`, if it is younger than
/// `resync`; anything else held is forgotten.
pub fn held(
    held: &mut Option<Held>,
    generation: Option<i64>,
    resync: Duration,
    now: Instant,
) -> Option<Stall> {
    let holds = held.as_ref().is_some_and(|h| {
        h.generation == generation && now.saturating_duration_since(h.since) < resync
    });
    if holds {
        held.as_ref().map(|h| h.stall.clone())
    } else {
        *held = None;
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RESYNC: Duration = Duration::from_secs(300);

    fn stall(reason: &'static str) -> Stall {
        Stall {
            reason,
            message: format!("{reason}."),
        }
    }

    #[test]
    fn held_for_the_same_generation_until_the_resync() {
        let now = Instant::now();
        let mut remembered = None;
        assert_eq!(held(&mut remembered, Some(1), RESYNC, now), None);
        remembered = Some(Held::new(Some(1), &stall("ApplyRefused"), now));
        for later in [
            Duration::ZERO,
            Duration::from_secs(10),
            RESYNC - Duration::from_millis(1),
        ] {
            assert_eq!(
                held(&mut remembered, Some(1), RESYNC, now + later),
                Some(stall("ApplyRefused")),
                "{later:?}"
            );
        }
        // At the resync it is forgotten: the resync applies again.
        assert_eq!(held(&mut remembered, Some(1), RESYNC, now + RESYNC), None);
        assert_eq!(held(&mut remembered, Some(1), RESYNC, now), None);
    }

    #[test]
    fn a_new_generation_forgets_it() {
        let now = Instant::now();
        let mut remembered = Some(Held::new(Some(1), &stall("ApplyRefused"), now));
        assert_eq!(held(&mut remembered, Some(2), RESYNC, now), None);
        // Not held again when the generation is seen once more.
        assert_eq!(held(&mut remembered, Some(1), RESYNC, now), None);
    }
}
