//! How often a runtime's status may be rewritten only to say how far its
//! rollout has got (see [`crate::pure::status::only_progress_differs`]).
//!
//! A rollout moves the Deployment's counts several times before the runtime
//! is Ready, and each move would be a status write: at a thousand runtimes
//! that is a third more writes than the story (Progressing, then Ready)
//! needs. A write that carries a transition goes out at once; one that only
//! carries progress waits until the runtime's last status write is
//! [`PROGRESS_EVERY`] old, and is dropped if a transition overtakes it.

use std::time::{Duration, Instant};

/// The shortest time between two status writes of one runtime when the
/// second only updates progress.
pub const PROGRESS_EVERY: Duration = Duration::from_secs(10);

/// How long a progress-only write must still wait at `now`, the runtime's
/// last status write by this process being `last` (kept in its record, see
/// `memory`); `None` when it may go now.
pub fn progress_due_in(last: Option<Instant>, now: Instant) -> Option<Duration> {
    due_in(now.saturating_duration_since(last?))
}

/// A last write this old holds nothing back any more.
pub fn expired(last: Instant, now: Instant) -> bool {
    now.saturating_duration_since(last) >= PROGRESS_EVERY
}

/// How long a progress-only write must still wait, `since` the last write.
fn due_in(since: Duration) -> Option<Duration> {
    PROGRESS_EVERY
        .checked_sub(since)
        .filter(|wait| !wait.is_zero())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_waits_for_the_interval_since_the_last_write() {
        assert_eq!(due_in(Duration::ZERO), Some(PROGRESS_EVERY));
        assert_eq!(
            due_in(Duration::from_secs(3)),
            Some(PROGRESS_EVERY - Duration::from_secs(3))
        );
        assert_eq!(due_in(PROGRESS_EVERY), None);
        assert_eq!(due_in(PROGRESS_EVERY * 2), None);
    }

    #[test]
    fn a_runtime_never_written_by_this_process_may_write_at_once() {
        let now = Instant::now();
        assert_eq!(progress_due_in(None, now), None);
        assert_eq!(progress_due_in(Some(now), now), Some(PROGRESS_EVERY));
        assert!(!expired(
            now,
            now + PROGRESS_EVERY - Duration::from_millis(1)
        ));
        assert!(expired(now, now + PROGRESS_EVERY));
    }
}
