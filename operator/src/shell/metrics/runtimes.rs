//! Runtime health as metrics, read from the watch cache at each scrape (no
//! API request), in kube-state-metrics' shape:
//!
//! - `trussium_runtimes{ready}`: how many runtimes have each Ready status;
//! - `trussium_runtime_status_condition{namespace,runtime,condition,status,reason}`:
//!   one series per runtime and condition type (seven per runtime), valued 1,
//!   whose `status` and `reason` labels are the condition's own (`Unknown`
//!   and no reason while it is not reported yet). Alerts select on them;
//! - `trussium_runtimes_suspended`: how many runtimes are suspended;
//! - `trussium_runtime_suspended_since_seconds{namespace,runtime}`: for each
//!   suspended runtime whose suspension the operator reported, when it was
//!   suspended (its `Suspended` condition's transition), so an alert can
//!   tell a forgotten suspend, across restarts and scrape gaps.
//!
//! Every replica exports them from its own cache, the standby too (its
//! watches run), so alerts aggregate over replicas (`max by (namespace,
//! runtime)`). Nothing here is per Event or per reconcile: the series count
//! is seven per runtime, whatever happens to it.

use std::collections::BTreeMap;

use kube::ResourceExt;
use kube::runtime::reflector::Store;
use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::gauge::ConstGauge;
use trussium_api::suspension::suspension;
use trussium_api::{ConditionStatus, TrussiumRuntime, condition_type};

pub(super) struct RuntimeHealth {
    store: Store<TrussiumRuntime>,
}

impl RuntimeHealth {
    pub(super) fn new(store: Store<TrussiumRuntime>) -> Self {
        RuntimeHealth { store }
    }
}

impl std::fmt::Debug for RuntimeHealth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RuntimeHealth")
    }
}

/// One condition of one runtime, as `trussium_runtime_status_condition`
/// labels it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct ConditionSeries {
    pub namespace: String,
    pub runtime: String,
    pub condition: &'static str,
    /// `True`, `False` or `Unknown` (also for a condition not reported yet,
    /// or a status Kubernetes does not define).
    pub status: &'static str,
    /// The condition's reason; empty while it is not reported.
    pub reason: String,
}

impl ConditionSeries {
    fn labels(&self) -> [(&'static str, &str); 5] {
        [
            ("namespace", &self.namespace),
            ("runtime", &self.runtime),
            ("condition", self.condition),
            ("status", self.status),
            ("reason", &self.reason),
        ]
    }
}

/// The status of `runtime`'s condition `type_`, `Unknown` when not reported.
fn condition_status(runtime: &TrussiumRuntime, type_: &str) -> &'static str {
    runtime
        .status
        .as_ref()
        .and_then(|s| s.condition(type_))
        .map(|c| ConditionStatus::parse(&c.status))
        .unwrap_or(ConditionStatus::Unknown)
        .as_str()
}

/// One series per condition type, in the order they are reported.
pub(super) fn condition_series(runtime: &TrussiumRuntime) -> Vec<ConditionSeries> {
    let namespace = runtime.namespace().unwrap_or_default();
    let name = runtime.name_any();
    condition_type::ALL
        .into_iter()
        .map(|condition| ConditionSeries {
            namespace: namespace.clone(),
            runtime: name.clone(),
            condition,
            status: condition_status(runtime, condition),
            reason: runtime
                .status
                .as_ref()
                .and_then(|s| s.condition(condition))
                .map(|c| c.reason.clone())
                .unwrap_or_default(),
        })
        .collect()
}

/// A suspended runtime: its namespace, name and when it was suspended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct SuspendedSince {
    pub namespace: String,
    pub runtime: String,
    /// Seconds since the epoch: the `Suspended` condition's transition.
    pub since: i64,
}

/// The runtimes the annotation suspends and whose suspension the operator
/// reported (a moment after the annotation), with since when.
pub(super) fn suspended<'a>(
    runtimes: impl IntoIterator<Item = &'a TrussiumRuntime>,
) -> Vec<SuspendedSince> {
    runtimes
        .into_iter()
        .filter(|rt| suspension(&rt.metadata).is_suspended())
        .filter_map(|rt| {
            let since = rt
                .status
                .as_ref()
                .and_then(|s| s.condition(condition_type::SUSPENDED))
                .filter(|c| ConditionStatus::parse(&c.status) == ConditionStatus::True)?
                .last_transition_time
                .0
                .as_second();
            Some(SuspendedSince {
                namespace: rt.namespace().unwrap_or_default(),
                runtime: rt.name_any(),
                since,
            })
        })
        .collect()
}

/// How many runtimes the annotation suspends (reported or not yet).
pub(super) fn count_suspended<'a>(runtimes: impl IntoIterator<Item = &'a TrussiumRuntime>) -> i64 {
    let count = runtimes
        .into_iter()
        .filter(|rt| suspension(&rt.metadata).is_suspended())
        .count();
    i64::try_from(count).unwrap_or(i64::MAX)
}

/// Counts per Ready status; True, False and Unknown always appear.
pub(super) fn count_by_ready<'a>(
    runtimes: impl IntoIterator<Item = &'a TrussiumRuntime>,
) -> BTreeMap<&'static str, i64> {
    let mut counts: BTreeMap<&'static str, i64> = ConditionStatus::ALL
        .into_iter()
        .map(|s| (s.as_str(), 0))
        .collect();
    for runtime in runtimes {
        *counts
            .entry(condition_status(runtime, condition_type::READY))
            .or_default() += 1;
    }
    counts
}

impl Collector for RuntimeHealth {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let state = self.store.state();
        let gauge = ConstGauge::new(0i64);

        let counts = count_by_ready(state.iter().map(|rt| rt.as_ref()));
        let mut metric = encoder.encode_descriptor(
            "trussium_runtimes",
            "TrussiumRuntimes watched by this operator, by the status of their Ready condition",
            None,
            gauge.metric_type(),
        )?;
        for (ready, count) in counts {
            ConstGauge::new(count).encode(metric.encode_family(&[("ready", ready)])?)?;
        }

        let mut metric = encoder.encode_descriptor(
            "trussium_runtime_status_condition",
            "The current status and reason of each condition of each TrussiumRuntime (one series per runtime and condition, value 1)",
            None,
            gauge.metric_type(),
        )?;
        for runtime in state.iter() {
            for series in condition_series(runtime) {
                ConstGauge::new(1i64).encode(metric.encode_family(&series.labels())?)?;
            }
        }

        let count = count_suspended(state.iter().map(|rt| rt.as_ref()));
        let suspended = suspended(state.iter().map(|rt| rt.as_ref()));
        let metric = encoder.encode_descriptor(
            "trussium_runtimes_suspended",
            "TrussiumRuntimes suspended (annotation runtime.trussium.io/suspended: \"true\"): the operator changes none of their objects",
            None,
            gauge.metric_type(),
        )?;
        ConstGauge::new(count).encode(metric)?;
        let mut metric = encoder.encode_descriptor(
            "trussium_runtime_suspended_since_seconds",
            "When each suspended TrussiumRuntime was suspended, in seconds since the epoch (one series per suspended runtime)",
            None,
            gauge.metric_type(),
        )?;
        for s in &suspended {
            let labels = [
                ("namespace", s.namespace.as_str()),
                ("runtime", s.runtime.as_str()),
            ];
            ConstGauge::new(s.since).encode(metric.encode_family(&labels)?)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn runtime(conditions: &[(&str, &str, &str)]) -> TrussiumRuntime {
        let mut value = json!({
            "apiVersion": "runtime.trussium.io/v1beta1",
            "kind": "TrussiumRuntime",
            "metadata": { "name": "r", "namespace": "n" },
            "spec": {
                "image": { "repository": "ghcr.io/trussiumhq/trussium", "tag": "v1.22.0" },
                "provider": { "type": "ollama", "model": "llama3.2" },
            },
        });
        if !conditions.is_empty() {
            let conditions: Vec<_> = conditions
                .iter()
                .map(|(type_, status, reason)| {
                    json!({
                        "type": type_, "status": status, "reason": reason, "message": "",
                        "lastTransitionTime": "2026-01-01T00:00:00Z",
                    })
                })
                .collect();
            value["status"] = json!({ "conditions": conditions });
        }
        match serde_json::from_value(value) {
            Ok(rt) => rt,
            Err(err) => panic!("test runtime: {err}"),
        }
    }

    fn ready(status: &str) -> TrussiumRuntime {
        runtime(&[("Ready", status, "R")])
    }

    #[test]
    fn counts_each_ready_status_and_always_reports_all_three() {
        let runtimes = [ready("True"), ready("True"), ready("False"), runtime(&[])];
        let counts = count_by_ready(runtimes.iter());
        assert_eq!(counts.get("True"), Some(&2));
        assert_eq!(counts.get("False"), Some(&1));
        assert_eq!(counts.get("Unknown"), Some(&1));
        assert_eq!(count_by_ready([].iter()).values().sum::<i64>(), 0);
        assert_eq!(count_by_ready([].iter()).len(), 3);
    }

    #[test]
    fn a_status_kubernetes_does_not_define_counts_as_unknown() {
        let counts = count_by_ready([ready("Maybe")].iter());
        assert_eq!(counts.get("Unknown"), Some(&1));
        assert_eq!(counts.len(), 3);
    }

    #[test]
    fn one_series_per_condition_type_with_its_status_and_reason() {
        let rt = runtime(&[
            ("Ready", "False", "DeploymentFailed"),
            ("Stalled", "True", "DeploymentFailed"),
            ("Upgrading", "False", "UpgradeFailed"),
        ]);
        let series = condition_series(&rt);
        assert_eq!(
            series.iter().map(|s| s.condition).collect::<Vec<_>>(),
            condition_type::ALL.to_vec(),
            "every condition type once, in the reported order"
        );
        let of = |condition: &str| {
            series
                .iter()
                .find(|s| s.condition == condition)
                .map(|s| (s.status, s.reason.as_str()))
        };
        assert_eq!(of("Ready"), Some(("False", "DeploymentFailed")));
        assert_eq!(of("Stalled"), Some(("True", "DeploymentFailed")));
        assert_eq!(of("Upgrading"), Some(("False", "UpgradeFailed")));
        // Not reported yet: Unknown, no reason.
        assert_eq!(of("Available"), Some(("Unknown", "")));
        assert!(
            series
                .iter()
                .all(|s| s.namespace == "n" && s.runtime == "r")
        );
    }

    #[test]
    fn a_runtime_without_status_still_has_seven_unknown_series() {
        let series = condition_series(&runtime(&[]));
        assert_eq!(series.len(), 7);
        assert!(
            series
                .iter()
                .all(|s| s.status == "Unknown" && s.reason.is_empty())
        );
    }

    fn annotated(mut rt: TrussiumRuntime, value: &str) -> TrussiumRuntime {
        rt.metadata.annotations = Some(
            [(
                "runtime.trussium.io/suspended".to_string(),
                value.to_string(),
            )]
            .into(),
        );
        rt
    }

    #[test]
    fn suspended_runtimes_are_counted_with_since_when() {
        let reported = annotated(runtime(&[("Suspended", "True", "Suspended")]), "true");
        let not_yet = annotated(runtime(&[]), "true");
        let ignored = annotated(
            runtime(&[("Suspended", "False", "SuspendValueIgnored")]),
            "yes",
        );
        let active = ready("True");
        let found = suspended([&reported, &not_yet, &ignored, &active]);
        // Not reported yet: no since (an alert on the age would fire at once).
        assert_eq!(found.len(), 1, "{found:?}");
        // 2026-01-01T00:00:00Z, the condition's transition.
        assert_eq!(found[0].since, 1_767_225_600);
        assert_eq!(
            (found[0].namespace.as_str(), found[0].runtime.as_str()),
            ("n", "r")
        );
        assert!(suspended([&active, &ignored]).is_empty());
        assert_eq!(count_suspended([&reported, &not_yet, &ignored, &active]), 2);
    }

    #[test]
    fn labels_are_kube_state_metrics_shaped() {
        let series = &condition_series(&ready("True"))[3];
        assert_eq!(
            series.labels(),
            [
                ("namespace", "n"),
                ("runtime", "r"),
                ("condition", "Ready"),
                ("status", "True"),
                ("reason", "R"),
            ]
        );
    }
}
