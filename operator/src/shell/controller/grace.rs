//! Whether a refusal or a server failure on applying is worth reporting yet.
//!
//! A restarted API server answers wrongly for a moment while its informers
//! fill: its authorizer refuses everything (403) until it has read RBAC, and
//! its Service IP allocator fails every new Service ("failed to allocate a
//! serviceIP: range is full", 500) until it has read the Service CIDRs. A
//! runtime must not turn Degraded, with a Warning, because the API server
//! restarted: such an answer is reported once it has lasted [`GRACE`], that
//! is when the retry ([`RETRY_FIRST`] later) gets one too. A reconcile that
//! something else triggers sooner (the watch event of an object the same
//! reconcile created, say) does not count as that retry. A real missing
//! permission or a broken admission webhook is reported one retry late.

use std::time::{Duration, Instant};

use crate::pure::backoff::RETRY_FIRST;

/// Whether an answer with this HTTP status code to an apply is retried once
/// before it is reported: a refusal (403) or a failure of the server itself
/// (429 and 5xx). Anything else (a conflict, an invalid object) says
/// something about the object, and is reported at once.
pub fn retried_before_reporting(code: u16) -> bool {
    code == 403 || code == 429 || code >= 500
}

/// How long such answers must last before they are reported: a little less
/// than the retry interval, so that the scheduled retry reports them.
pub const GRACE: Duration = RETRY_FIRST.saturating_sub(Duration::from_secs(1));

/// How long a runtime's answers are remembered after the last one: longer
/// than the longest wait before a retry, so that the retry finds the first.
const REMEMBERED: Duration = crate::pure::backoff::RETRY_MOST.saturating_mul(2);

/// When the current run of such answers for one runtime began and when the
/// last came (kept in the runtime's record, see `memory`).
#[derive(Clone, Copy, Debug)]
pub struct Run {
    began: Instant,
    last: Instant,
}

impl Run {
    /// Long enough after the last that the retry has come and gone: a new
    /// answer starts a new run.
    pub fn expired(&self, now: Instant) -> bool {
        now.saturating_duration_since(self.last) >= REMEMBERED
    }
}

/// Records such an answer now in `run`, the runtime's current run; `true`
/// once they have lasted [`GRACE`] (report it), `false` before (retry
/// first). An apply that goes through ends the run: `*run = None`.
pub fn lasted(run: &mut Option<Run>, now: Instant) -> bool {
    let current = run.filter(|r| !r.expired(now)).unwrap_or(Run {
        began: now,
        last: now,
    });
    *run = Some(Run {
        last: now,
        ..current
    });
    now.saturating_duration_since(current.began) >= GRACE
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reported_once_they_have_lasted_the_grace() {
        let mut run = None;
        let now = Instant::now();
        assert!(!lasted(&mut run, now));
        // A reconcile triggered a moment later is not the retry.
        assert!(!lasted(&mut run, now + Duration::from_millis(60)));
        assert!(!lasted(&mut run, now + GRACE - Duration::from_millis(1)));
        // The scheduled retry is.
        assert!(lasted(&mut run, now + RETRY_FIRST));
        assert!(GRACE < RETRY_FIRST);
        // Another runtime's run is its own.
        assert!(!lasted(&mut None, now + RETRY_FIRST));
    }

    #[test]
    fn a_run_that_goes_on_stays_reported() {
        let mut run = None;
        let now = Instant::now();
        assert!(!lasted(&mut run, now));
        for retry in 1..20 {
            assert!(lasted(&mut run, now + RETRY_FIRST * retry), "{retry}");
        }
    }

    #[test]
    fn refusals_and_server_failures_are_retried_first_the_rest_reported() {
        for code in [403, 429, 500, 502, 503, 504] {
            assert!(retried_before_reporting(code), "{code}");
        }
        for code in [400, 401, 404, 409, 410, 422, 428] {
            assert!(!retried_before_reporting(code), "{code}");
        }
    }

    #[test]
    fn a_run_long_ago_or_cleared_starts_over() {
        let mut run = None;
        let now = Instant::now();
        assert!(!lasted(&mut run, now));
        assert!(run.is_some_and(|r| r.expired(now + REMEMBERED)));
        assert!(!lasted(&mut run, now + REMEMBERED));
        assert!(lasted(&mut run, now + REMEMBERED + RETRY_FIRST));
        // Applied: the run ends.
        run = None;
        assert!(!lasted(&mut run, now + REMEMBERED + RETRY_FIRST));
    }
}
