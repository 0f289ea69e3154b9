//! The thin shell: watches, the reconcile loop, and the I/O it needs.

mod apply;
mod cache;
mod catch_up;
mod context;
mod error;
mod failure;
mod gate;
mod grace;
mod lanes;
mod lock;
mod memory;
mod pacing;
mod publish;
mod reconcile;
mod report;
mod scope;
mod stalls;
mod terminating;
mod unsure;

use std::sync::{Arc, Weak};
use std::time::Duration;

use futures::{Future, FutureExt, StreamExt};
use kube::runtime::controller::{self, Action};
use kube::runtime::reflector::ObjectRef;
use kube::runtime::utils::Backoff;
use kube::{Client, ResourceExt};
use trussium_api::TrussiumRuntime;

pub use context::Context;
pub use error::Error;
pub use gate::Instruments;
pub use scope::Scope;

use crate::pure::config::OperatorConfig;
use crate::pure::events::object::Reporter;
use crate::shell::probes::ProbeState;

/// How many reconciles run at once, how often a runtime nothing changed is
/// reconciled again, how long a watch runs before it is opened again, how
/// long one reconcile may take, and how many rollouts an operator upgrade
/// alone causes may run at once (see [`crate::pure::turns`]).
#[derive(Clone, Copy, Debug)]
pub struct Pace {
    pub concurrency: u16,
    pub max_concurrent_rollouts: u16,
    pub resync: Duration,
    pub watch_timeout_seconds: u32,
    pub reconcile_timeout: Duration,
}

/// The operator's clients: one whose every request times out, for
/// everything a reconcile sends; one without a timeout for the watches,
/// which stay open for minutes and are guarded by the watcher's own idle
/// timeout.
#[derive(Clone)]
pub struct Clients {
    pub requests: Client,
    pub watches: Client,
}

/// Runs the controller until `shutdown` resolves. The watches run from the
/// start; reconciles wait until `instruments.leadership` says this replica
/// leads.
pub async fn run(
    clients: Clients,
    config: OperatorConfig,
    scope: Scope,
    pace: Pace,
    reporter: Reporter,
    instruments: Instruments,
    shutdown: impl Future<Output = ()> + Send + Sync + 'static,
) {
    let Clients { requests, watches } = clients;
    // Awaited twice: by the controller's graceful shutdown and by the stop
    // before the first list (below).
    let shutdown = shutdown.shared();
    // Every watch fills a cache, which reconciles read only (see `cache`),
    // and triggers the controller.
    let (caches, controller) = cache::watch(&watches, &scope, pace.watch_timeout_seconds);
    let runtime_store = caches.runtimes.store();
    // Reports need to know when the runtime cache may miss a write.
    tokio::spawn(catch_up::catch_up(
        requests.clone(),
        scope.clone(),
        caches.runtimes.trust_handle(),
        instruments.leadership.clone(),
    ));
    let ctx = Arc::new(Context::new(
        requests,
        config,
        reporter,
        instruments.metrics.clone(),
        caches,
        pace.resync,
        pace.max_concurrent_rollouts,
    ));

    tokio::spawn(report_readiness(
        Arc::downgrade(&ctx),
        instruments.health.clone(),
    ));
    let stopped_before_listing = stopped_before_listing(shutdown.clone(), ctx.clone());

    instruments.metrics.count_runtimes(runtime_store.clone());
    instruments
        .metrics
        .set_max_concurrent_reconciles(pace.concurrency);
    let gate = Arc::new(gate::Gate {
        leadership: instruments.leadership,
        metrics: instruments.metrics,
        store: runtime_store,
        lanes: lanes::Lanes::new(usize::from(pace.concurrency)),
        deadline: pace.reconcile_timeout,
    });

    // Unbounded here: every reconcile starts at once and waits in its lane
    // for one of `concurrency` slots (see `lanes`), so that reports are not
    // queued behind creations. kube still never runs two reconciles of one
    // runtime at once.
    let controller = controller
        .with_config(controller::Config::default().concurrency(0))
        .trigger_backoff(EachWatchBacksOff)
        .graceful_shutdown_on(shutdown)
        .run(
            move |runtime, ctx| {
                let gate = gate.clone();
                async move { gate.reconcile(runtime, ctx).await }
            },
            error_policy,
            ctx,
        )
        .for_each(|result| async move { log_outcome(result) });
    tokio::select! {
        () = controller => {}
        () = stopped_before_listing => {
            tracing::info!("stopping before the first list of runtimes: no reconcile to finish");
        }
    }
}

/// Readiness: every cache holds its first full list, so a reconcile can
/// decide. Asked, not awaited: the controller waits on the runtime store,
/// and a store's `wait_until_ready` wakes only its last waiter.
async fn report_readiness(ctx: Weak<Context>, health: ProbeState) {
    let mut every = tokio::time::interval(Duration::from_millis(100));
    loop {
        every.tick().await;
        match ctx.upgrade() {
            Some(ctx) if ctx.caches.all_listed() => break health.set_synced(),
            Some(_) => {}
            // Stopped before the caches synced.
            None => break,
        }
    }
}

/// Resolves on `shutdown` if the runtime store has no first list yet. kube
/// holds the controller's runner until that list, and a graceful shutdown
/// waits for the runner: with the API server out of reach, SIGTERM would
/// wait for ever (until the kubelet's SIGKILL). Before that first list no
/// reconcile has started, so there is nothing to finish.
async fn stopped_before_listing(shutdown: impl Future<Output = ()>, ctx: Arc<Context>) {
    shutdown.await;
    if ctx.caches.runtimes.listed() {
        std::future::pending::<()>().await;
    }
}

fn log_outcome<E: std::fmt::Display>(
    result: Result<(ObjectRef<TrussiumRuntime>, Action), controller::Error<Error, E>>,
) {
    match result {
        Ok((object, _)) => tracing::debug!(runtime = %object, "reconciled"),
        // A runtime deleted while its owned objects still change.
        Err(controller::Error::ObjectNotFound(object)) => {
            tracing::debug!(runtime = %object, "gone")
        }
        Err(err) => tracing::warn!(error = %err, "reconcile failed"),
    }
}

/// The controller's backoff over all its triggers together: none, as each
/// watch backs off by itself (`cache`). kube's default here pauses every
/// trigger, after any one watch's error, for 0.8 s doubling to 30 s: when an
/// API server restarts and refuses all nine watches for a moment (its
/// authorizer warming up), nothing reached the operator for minutes.
struct EachWatchBacksOff;

impl Iterator for EachWatchBacksOff {
    type Item = Duration;

    fn next(&mut self) -> Option<Duration> {
        Some(Duration::ZERO)
    }
}

impl Backoff for EachWatchBacksOff {
    fn reset(&mut self) {}
}

/// Every error of a reconcile may pass by itself (see `failure`: what will
/// not is reported, not returned): retried, backing off.
fn error_policy(rt: Arc<TrussiumRuntime>, err: &Error, ctx: Arc<Context>) -> Action {
    let namespace = rt.namespace().unwrap_or_default();
    let name = rt.name_any();
    let wait = ctx.memory.reconcile_failed(&namespace, &name);
    tracing::warn!(%namespace, runtime = %name, error = %err, retry_in_seconds = wait.as_secs(), "reconcile error, retrying");
    Action::requeue(wait)
}
