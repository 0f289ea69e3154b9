//! Waiting on the cluster: the one way to wait for a state ([`wait_for`]) and
//! the one way to check that something holds throughout a window
//! ([`holds_for`]). Neither depends on seeing a short-lived state: `wait_for`
//! asks until the final state shows, `holds_for` asks until the window ends.
//!
//! And how long, by what is waited for: a time budget per purpose, so that
//! two windows meant for different things never share a name.

use std::time::Duration;

use tokio::time::{Instant, sleep};

use crate::Error;

/// Long enough for a rollout on KWOK (pods ready in about a second) with
/// several tests and their operators sharing two cores.
pub const CONVERGE: Duration = Duration::from_secs(90);

/// What "promptly" means: a watch reacted. The operator's periodic resync
/// is five minutes, its retry after an error fifteen seconds.
pub const PROMPT: Duration = Duration::from_secs(10);

/// How long Events may lag behind the status write that recorded them.
pub const EVENTS_LAG: Duration = Duration::from_secs(30);

/// After a step has settled: the window in which no more Event and no more
/// write may come.
pub const QUIET_AFTER_SETTLING: Duration = Duration::from_secs(5);

/// A steady state (after reconciles provoked by changes that need nothing,
/// or a restart): the window in which the operator must send no request.
pub const QUIET_IN_STEADY_STATE: Duration = Duration::from_secs(10);

/// How often `wait_for` and `holds_for` ask again.
pub const POLL_INTERVAL: Duration = Duration::from_millis(250);

/// Calls `f` until it returns `Ok(Some(value))`, then returns that value.
///
/// `Ok(None)` means "not yet". An `Err` is remembered and retried (objects
/// often do not exist yet); on timeout the error names `what` and carries the
/// last error seen. `?` works inside `f` on kube, serde and I/O errors and on
/// boxed errors. A closure that knows no wait can help (it saw something
/// that must never happen) returns `Ok(Some(Err(..)))` and the caller
/// propagates it.
///
/// ```no_run
/// # async fn example() -> Result<(), trussium_e2e::Error> {
/// use std::time::Duration;
/// use k8s_openapi::api::apps::v1::Deployment;
/// use trussium_e2e::{TestNamespace, wait_for};
///
/// let ns = TestNamespace::create("example").await?;
/// let deployments = ns.api::<Deployment>();
/// let web = wait_for("deployment web to have a ready replica", Duration::from_secs(60), async || {
///     let d = deployments.get("web").await?;
///     let ready = d.status.as_ref().and_then(|s| s.ready_replicas).unwrap_or(0);
///     Ok((ready > 0).then_some(d))
/// })
/// .await?;
/// # let _ = web;
/// # Ok(())
/// # }
/// ```
pub async fn wait_for<T, F>(what: &str, timeout: Duration, mut f: F) -> Result<T, Error>
where
    F: AsyncFnMut() -> Result<Option<T>, Error>,
{
    let deadline = Instant::now() + timeout;
    let mut last_error = None;
    loop {
        match f().await {
            Ok(Some(value)) => return Ok(value),
            Ok(None) => {}
            Err(e) => last_error = Some(e.to_string()),
        }
        if Instant::now() >= deadline {
            return Err(Error::Timeout {
                what: what.to_string(),
                timeout,
                last_error,
            });
        }
        sleep(POLL_INTERVAL).await;
    }
}

/// Fails unless `check` returns `Ok(None)` (no violation) every time it is
/// asked during `window` (at least twice: at the start and at the end);
/// `Ok(Some(description))` is a violation, an `Err` fails at once.
pub async fn holds_for<F>(what: &str, window: Duration, mut check: F) -> Result<(), Error>
where
    F: AsyncFnMut() -> Result<Option<String>, Error>,
{
    let deadline = Instant::now() + window;
    loop {
        let last = Instant::now() >= deadline;
        if let Some(violation) = check().await? {
            return Err(Error::Check(format!(
                "expected {what} for {window:?}, but {violation}"
            )));
        }
        if last {
            return Ok(());
        }
        sleep(POLL_INTERVAL.min(deadline.saturating_duration_since(Instant::now()))).await;
    }
}
