//! Prometheus metrics: controller-runtime's names, which Kubernetes users
//! already chart, the process metrics of every client library, plus ours:
//! each runtime's conditions and runtimes by Ready status (from the cache),
//! Events by reason, API requests by kind, verb and answer, tasks alive, the
//! build.
//!
//! The alerts and the dashboard (`charts/trussium-operator/`, `deploy/`) are
//! written against these names; a test checks every name they use against a
//! live scrape. `docs/src/production/monitoring.md` lists them.

mod api_requests;
#[cfg(target_os = "linux")]
mod process;
mod runtimes;
mod tasks;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use kube::runtime::controller::Action;
use kube::runtime::reflector::Store;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::{Metric, Registry};
use trussium_api::TrussiumRuntime;

use crate::pure::events::Reason;

pub use api_requests::{ApiRequestsLayer, request_kind_and_verb};

/// The `controller` label of the controller-runtime metrics.
pub const CONTROLLER: &str = "trussiumruntime";
/// The `name` label of `leader_election_master_status`.
pub const LEASE_NAME_LABEL: &str = "trussium-operator";

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ControllerLabels {
    controller: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ResultLabels {
    controller: String,
    result: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct NameLabels {
    name: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ReasonLabels {
    reason: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub(crate) struct RequestLabels {
    kind: String,
    verb: String,
    /// The HTTP status code of the answer, or [`NO_ANSWER`].
    code: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct KindLabels {
    kind: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct VersionLabels {
    version: String,
}

/// The `code` of a request that got no HTTP answer (connection refused, a
/// timeout, a request given up), as client-go's `rest_client_requests_total`
/// spells it.
pub const NO_ANSWER: &str = "<error>";

/// How one reconcile ended, as controller-runtime labels it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReconcileResult {
    Success,
    Error,
    RequeueAfter,
}

impl ReconcileResult {
    /// `Ok(await_change)` is a success, any other action a timed requeue.
    pub fn of<E>(result: &Result<Action, E>) -> ReconcileResult {
        match result {
            Ok(action) if *action == Action::await_change() => ReconcileResult::Success,
            Ok(_) => ReconcileResult::RequeueAfter,
            Err(_) => ReconcileResult::Error,
        }
    }

    fn label(self) -> &'static str {
        match self {
            ReconcileResult::Success => "success",
            ReconcileResult::Error => "error",
            ReconcileResult::RequeueAfter => "requeue_after",
        }
    }

    const ALL: [ReconcileResult; 3] = [
        ReconcileResult::Success,
        ReconcileResult::Error,
        ReconcileResult::RequeueAfter,
    ];
}

struct Inner {
    registry: Mutex<Registry>,
    reconcile_total: Family<ResultLabels, Counter>,
    reconcile_errors: Family<ControllerLabels, Counter>,
    reconcile_time: Family<ControllerLabels, Histogram>,
    max_concurrent: Family<ControllerLabels, Gauge>,
    active_workers: Family<ControllerLabels, Gauge>,
    leader: Family<NameLabels, Gauge>,
    events: Family<ReasonLabels, Counter>,
    api_requests: Family<RequestLabels, Counter>,
    reverted_changes: Family<KindLabels, Counter>,
}

/// Registers `metric` under `name` and hands back its handle (a clone
/// shares the values).
fn registered<M: Metric + Clone>(registry: &mut Registry, name: &str, help: &str, metric: M) -> M {
    registry.register(name, help, metric.clone());
    metric
}

/// The operator's metrics; cheap to clone.
#[derive(Clone)]
pub struct Metrics {
    inner: Arc<Inner>,
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::new()
    }
}

impl Metrics {
    pub fn new() -> Metrics {
        let mut registry = Registry::default();
        let r = &mut registry;
        let mut inner = Inner {
            // Moved in once every metric is registered.
            registry: Mutex::default(),
            reconcile_total: registered(
                r,
                "controller_runtime_reconcile",
                "Total number of reconciliations per controller",
                Family::<ResultLabels, Counter>::default(),
            ),
            reconcile_errors: registered(
                r,
                "controller_runtime_reconcile_errors",
                "Total number of reconciliation errors per controller",
                Family::<ControllerLabels, Counter>::default(),
            ),
            reconcile_time: registered(
                r,
                "controller_runtime_reconcile_time_seconds",
                "Length of time per reconciliation per controller",
                Family::<ControllerLabels, Histogram>::new_with_constructor(reconcile_histogram),
            ),
            max_concurrent: registered(
                r,
                "controller_runtime_max_concurrent_reconciles",
                "Maximum number of concurrent reconciles per controller",
                Family::<ControllerLabels, Gauge>::default(),
            ),
            active_workers: registered(
                r,
                "controller_runtime_active_workers",
                "Number of currently used workers per controller",
                Family::<ControllerLabels, Gauge>::default(),
            ),
            leader: registered(
                r,
                "leader_election_master_status",
                "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master",
                Family::<NameLabels, Gauge>::default(),
            ),
            events: registered(
                r,
                "trussium_events",
                "Kubernetes Events emitted, by reason",
                Family::<ReasonLabels, Counter>::default(),
            ),
            api_requests: registered(
                r,
                "trussium_api_requests",
                "Requests sent to the Kubernetes API server, by resource kind, verb and HTTP status code of the answer (<error>: none)",
                Family::<RequestLabels, Counter>::default(),
            ),
            reverted_changes: registered(
                r,
                "trussium_reverted_changes",
                "Changes someone else made to an owned object that the operator put back, by the object's kind",
                Family::<KindLabels, Counter>::default(),
            ),
        };
        let build_info = registered(
            r,
            "trussium_operator_build_info",
            "The operator's version; always 1",
            Family::<VersionLabels, Gauge>::default(),
        );
        #[cfg(target_os = "linux")]
        r.register_collector(Box::new(process::ProcessCollector));
        r.register_collector(Box::new(tasks::AliveTasks));
        Self::set_initial_values(&build_info, &inner.reconcile_total, &inner.reconcile_errors);
        inner.registry = Mutex::new(registry);
        Metrics {
            inner: Arc::new(inner),
        }
    }

    /// The build info's 1, and (as controller-runtime) the reconcile
    /// counters at 0 from the start, so that rate() and alerts see them
    /// before the first error.
    fn set_initial_values(
        build_info: &Family<VersionLabels, Gauge>,
        reconcile_total: &Family<ResultLabels, Counter>,
        reconcile_errors: &Family<ControllerLabels, Counter>,
    ) {
        build_info
            .get_or_create(&VersionLabels {
                version: env!("CARGO_PKG_VERSION").into(),
            })
            .set(1);
        let _ = reconcile_errors.get_or_create(&Self::controller());
        for result in ReconcileResult::ALL {
            let _ = reconcile_total.get_or_create(&ResultLabels {
                controller: CONTROLLER.into(),
                result: result.label().into(),
            });
        }
    }

    fn controller() -> ControllerLabels {
        ControllerLabels {
            controller: CONTROLLER.into(),
        }
    }

    pub fn set_max_concurrent_reconciles(&self, concurrency: u16) {
        self.inner
            .max_concurrent
            .get_or_create(&Self::controller())
            .set(concurrency.into());
    }

    /// Counts a worker as busy until the guard drops.
    pub fn worker(&self) -> ActiveWorker {
        let gauge = self
            .inner
            .active_workers
            .get_or_create(&Self::controller())
            .clone();
        gauge.inc();
        ActiveWorker { gauge }
    }

    pub fn reconciled(&self, took: Duration, result: ReconcileResult) {
        let controller = Self::controller();
        self.inner
            .reconcile_time
            .get_or_create(&controller)
            .observe(took.as_secs_f64());
        if result == ReconcileResult::Error {
            self.inner.reconcile_errors.get_or_create(&controller).inc();
        }
        self.inner
            .reconcile_total
            .get_or_create(&ResultLabels {
                controller: CONTROLLER.into(),
                result: result.label().into(),
            })
            .inc();
    }

    pub fn set_leader(&self, leading: bool) {
        self.inner
            .leader
            .get_or_create(&NameLabels {
                name: LEASE_NAME_LABEL.into(),
            })
            .set(i64::from(leading));
    }

    /// Counts a change someone else made that the operator put back.
    pub fn change_reverted(&self, kind: &str) {
        self.inner
            .reverted_changes
            .get_or_create(&KindLabels { kind: kind.into() })
            .inc();
    }

    pub fn event_emitted(&self, reason: Reason) {
        self.inner
            .events
            .get_or_create(&ReasonLabels {
                reason: reason.as_str().into(),
            })
            .inc();
    }

    /// Counts a request once it is answered (`code`: the HTTP status, or
    /// [`NO_ANSWER`]).
    fn api_request(&self, kind: String, verb: String, code: String) {
        self.inner
            .api_requests
            .get_or_create(&RequestLabels { kind, verb, code })
            .inc();
    }

    /// Adds `trussium_runtimes{ready}` and
    /// `trussium_runtime_status_condition`, read from the cache at each scrape.
    pub fn count_runtimes(&self, store: Store<TrussiumRuntime>) {
        if let Ok(mut registry) = self.inner.registry.lock() {
            registry.register_collector(Box::new(runtimes::RuntimeHealth::new(store)));
        }
    }

    /// The Prometheus text exposition of every metric.
    pub fn encode(&self) -> Result<String, std::fmt::Error> {
        let mut text = String::new();
        let registry = self.inner.registry.lock().map_err(|_| std::fmt::Error)?;
        prometheus_client::encoding::prometheus_text::encode(&mut text, &registry)?;
        Ok(text)
    }
}

/// controller-runtime's buckets: 5 ms to about 80 s.
fn reconcile_histogram() -> Histogram {
    Histogram::new(exponential_buckets(0.005, 2.0, 15))
}

/// Decrements `controller_runtime_active_workers` when dropped.
pub struct ActiveWorker {
    gauge: Gauge,
}

impl Drop for ActiveWorker {
    fn drop(&mut self) {
        self.gauge.dec();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_are_labelled_as_controller_runtime_does() {
        let ok: Result<Action, ()> = Ok(Action::await_change());
        let requeue: Result<Action, ()> = Ok(Action::requeue(Duration::from_secs(5)));
        let err: Result<Action, ()> = Err(());
        assert_eq!(ReconcileResult::of(&ok), ReconcileResult::Success);
        assert_eq!(ReconcileResult::of(&requeue), ReconcileResult::RequeueAfter);
        assert_eq!(ReconcileResult::of(&err), ReconcileResult::Error);
    }

    #[test]
    fn exposition_uses_controller_runtime_names() -> Result<(), std::fmt::Error> {
        let metrics = Metrics::new();
        metrics.set_max_concurrent_reconciles(4);
        metrics.reconciled(Duration::from_millis(20), ReconcileResult::Success);
        metrics.reconciled(Duration::from_millis(20), ReconcileResult::Error);
        metrics.set_leader(true);
        metrics.event_emitted(Reason::RuntimeReady);
        metrics.change_reverted("Deployment");
        metrics.api_request("deployments".into(), "patch".into(), "200".into());
        {
            let _busy = metrics.worker();
            assert!(
                metrics.encode()?.contains(
                    "controller_runtime_active_workers{controller=\"trussiumruntime\"} 1\n"
                )
            );
        }
        let text = metrics.encode()?;
        for line in [
            "controller_runtime_reconcile_total{controller=\"trussiumruntime\",result=\"success\"} 1\n",
            "controller_runtime_reconcile_total{controller=\"trussiumruntime\",result=\"error\"} 1\n",
            "controller_runtime_reconcile_errors_total{controller=\"trussiumruntime\"} 1\n",
            "controller_runtime_reconcile_time_seconds_count{controller=\"trussiumruntime\"} 2\n",
            "controller_runtime_max_concurrent_reconciles{controller=\"trussiumruntime\"} 4\n",
            "controller_runtime_active_workers{controller=\"trussiumruntime\"} 0\n",
            "leader_election_master_status{name=\"trussium-operator\"} 1\n",
            "trussium_events_total{reason=\"RuntimeReady\"} 1\n",
            "trussium_reverted_changes_total{kind=\"Deployment\"} 1\n",
            "trussium_api_requests_total{kind=\"deployments\",verb=\"patch\",code=\"200\"} 1\n",
        ] {
            assert!(text.contains(line), "missing {line:?} in:\n{text}");
        }
        let build = format!(
            "trussium_operator_build_info{{version=\"{}\"}} 1\n",
            env!("CARGO_PKG_VERSION")
        );
        assert!(text.contains(&build), "missing {build:?} in:\n{text}");
        Ok(())
    }

    #[test]
    fn reconcile_counters_exist_at_zero_before_any_reconcile() -> Result<(), std::fmt::Error> {
        let text = Metrics::new().encode()?;
        for line in [
            "controller_runtime_reconcile_total{controller=\"trussiumruntime\",result=\"success\"} 0\n",
            "controller_runtime_reconcile_total{controller=\"trussiumruntime\",result=\"error\"} 0\n",
            "controller_runtime_reconcile_total{controller=\"trussiumruntime\",result=\"requeue_after\"} 0\n",
            "controller_runtime_reconcile_errors_total{controller=\"trussiumruntime\"} 0\n",
        ] {
            assert!(text.contains(line), "missing {line:?} in:\n{text}");
        }
        Ok(())
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn process_metrics_are_exported() -> Result<(), std::fmt::Error> {
        let text = Metrics::new().encode()?;
        for name in [
            "process_cpu_seconds_total ",
            "process_resident_memory_bytes ",
            "process_virtual_memory_bytes ",
            "process_start_time_seconds ",
            "process_threads ",
            "process_open_fds ",
        ] {
            assert!(
                text.lines().any(|l| l.starts_with(name)),
                "missing {name:?} in:\n{text}"
            );
        }
        Ok(())
    }
}
