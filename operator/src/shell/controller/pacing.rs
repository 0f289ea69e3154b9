//! How often a runtime's status may be rewritten only to say how far its
//! rollout has got (see [`crate::pure::status::only_progress_differs`]).
//!
//! A rollout moves the Deployment's counts several times before the runtime
//! is Ready, and each move would be a status write: at a thousand runtimes
//! that is a third more writes than the story (Progressing, then Ready)
//! needs. A write that carries a transition goes out at once; one that only
//! carries progress waits until the runtime's last status write is
//! [`PROGRESS_EVERY`] old, and is dropped if a transition overtakes it.

use super::lock::lock;
use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// The shortest time between two status writes of one runtime when the
/// second only updates progress.
pub const PROGRESS_EVERY: Duration = Duration::from_secs(10);

/// When each runtime's status was last written, by namespace and name.
#[derive(Default)]
pub struct StatusWrites {
    last: Mutex<Written>,
}

#[derive(Default)]
struct Written {
    at: HashMap<(String, String), Instant>,
    swept: Option<Instant>,
}

impl StatusWrites {
    /// How long a progress-only write of `namespace/name` must still wait;
    /// `None` when it may go now.
    pub fn progress_due_in(&self, namespace: &str, name: &str) -> Option<Duration> {
        let last = self.lock();
        let at = last.at.get(&(namespace.to_string(), name.to_string()))?;
        due_in(at.elapsed())
    }

    /// Records a status write of `namespace/name` now.
    pub fn wrote(&self, namespace: &str, name: &str) {
        let mut last = self.lock();
        // Entries older than PROGRESS_EVERY hold nothing back: drop them now
        // and then, so deleted runtimes leave nothing behind.
        if last.swept.is_none_or(|at| at.elapsed() > PROGRESS_EVERY) {
            last.at.retain(|_, at| at.elapsed() < PROGRESS_EVERY);
            last.swept = Some(Instant::now());
        }
        last.at
            .insert((namespace.to_string(), name.to_string()), Instant::now());
    }

    fn lock(&self) -> MutexGuard<'_, Written> {
        lock(&self.last)
    }
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
        let writes = StatusWrites::default();
        assert_eq!(writes.progress_due_in("ns", "a"), None);
        writes.wrote("ns", "a");
        assert!(writes.progress_due_in("ns", "a").is_some());
        assert_eq!(writes.progress_due_in("ns", "b"), None);
        assert_eq!(writes.progress_due_in("other", "a"), None);
    }
}
