//! `trussium_runtimes{ready}`: runtimes by the status of their Ready
//! condition, counted from the watch cache at each scrape (no API request).

use std::collections::BTreeMap;

use kube::runtime::reflector::Store;
use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::gauge::ConstGauge;
use trussium_api::{ConditionStatus, TrussiumRuntime, condition_type};

pub(super) struct RuntimesByReady {
    store: Store<TrussiumRuntime>,
}

impl RuntimesByReady {
    pub(super) fn new(store: Store<TrussiumRuntime>) -> Self {
        RuntimesByReady { store }
    }
}

impl std::fmt::Debug for RuntimesByReady {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RuntimesByReady")
    }
}

/// The value of the `ready` label: the Ready condition's status, `Unknown`
/// when it is not reported yet.
pub(super) fn ready_status(runtime: &TrussiumRuntime) -> &str {
    runtime
        .status
        .as_ref()
        .and_then(|s| s.condition(condition_type::READY))
        .map(|c| c.status.as_str())
        .unwrap_or(ConditionStatus::Unknown.as_str())
}

/// Counts per Ready status; True, False and Unknown always appear.
pub(super) fn count_by_ready<'a>(
    runtimes: impl IntoIterator<Item = &'a TrussiumRuntime>,
) -> BTreeMap<String, i64> {
    let mut counts: BTreeMap<String, i64> = ConditionStatus::ALL
        .into_iter()
        .map(|s| (s.as_str().to_string(), 0))
        .collect();
    for runtime in runtimes {
        *counts.entry(ready_status(runtime).to_string()).or_default() += 1;
    }
    counts
}

impl Collector for RuntimesByReady {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let state = self.store.state();
        let counts = count_by_ready(state.iter().map(|rt| rt.as_ref()));
        let gauge = ConstGauge::new(0i64);
        let mut metric = encoder.encode_descriptor(
            "trussium_runtimes",
            "TrussiumRuntimes watched by this operator, by the status of their Ready condition",
            None,
            gauge.metric_type(),
        )?;
        for (ready, count) in counts {
            let labels = [("ready", ready)];
            ConstGauge::new(count).encode(metric.encode_family(&labels)?)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn runtime(ready: Option<&str>) -> TrussiumRuntime {
        let mut value = json!({
            "apiVersion": "runtime.trussium.io/v1alpha1",
            "kind": "TrussiumRuntime",
            "metadata": { "name": "r", "namespace": "n" },
            "spec": {
                "image": { "repository": "ghcr.io/trussiumhq/trussium", "tag": "v1.22.0" },
                "provider": { "type": "ollama", "model": "llama3.2" },
            },
        });
        if let Some(status) = ready {
            value["status"] = json!({ "conditions": [{
                "type": "Ready", "status": status, "reason": "R", "message": "",
                "lastTransitionTime": "2026-01-01T00:00:00Z",
            }]});
        }
        match serde_json::from_value(value) {
            Ok(rt) => rt,
            Err(err) => panic!("test runtime: {err}"),
        }
    }

    #[test]
    fn counts_each_ready_status_and_always_reports_all_three() {
        let runtimes = [
            runtime(Some("True")),
            runtime(Some("True")),
            runtime(Some("False")),
            runtime(None),
        ];
        let counts = count_by_ready(runtimes.iter());
        assert_eq!(counts.get("True"), Some(&2));
        assert_eq!(counts.get("False"), Some(&1));
        assert_eq!(counts.get("Unknown"), Some(&1));
        assert_eq!(count_by_ready([].iter()).values().sum::<i64>(), 0);
        assert_eq!(count_by_ready([].iter()).len(), 3);
    }
}
