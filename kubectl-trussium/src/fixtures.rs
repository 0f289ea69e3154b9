//! Test fixtures shared by the unit tests of several modules.

use k8s_openapi::api::events::v1::Event;
use k8s_openapi::jiff::Timestamp;
use trussium_api::TrussiumRuntime;

pub fn runtime(yaml: &str) -> TrussiumRuntime {
    serde_yaml::from_str(yaml).unwrap_or_else(|e| panic!("{e}"))
}

pub const UPGRADING: &str = r#"
apiVersion: runtime.trussium.io/v1beta1
kind: TrussiumRuntime
metadata:
  name: private-ai
  namespace: trussium
  uid: rt-uid
  generation: 5
  creationTimestamp: "2023-11-14T22:00:00Z"
spec:
  image:
    repository: ghcr.io/trussiumhq/trussium
    tag: v1.23.0
  replicas: 3
  provider:
    type: ollama
    model: llama3.2
    baseURL: http://ollama.ollama.svc.cluster.local:11434/v1
status:
  observedGeneration: 4
  desiredReplicas: 3
  readyReplicas: 2
  availableReplicas: 2
  desiredImage: ghcr.io/trussiumhq/trussium:v1.22.0
  currentImage: ghcr.io/trussiumhq/trussium:v1.22.0
  lastSuccessfulImage: ghcr.io/trussiumhq/trussium:v1.22.0
  endpoint: http://private-ai.trussium.svc.cluster.local:9000
  conditions:
  - type: Upgrading
    status: "True"
    reason: UpgradeInProgress
    message: Rolling out v1.23.0.
    lastTransitionTime: "2023-11-14T22:13:00Z"
    observedGeneration: 4
  - type: Ready
    status: "False"
    reason: RuntimeNotReady
    message: 2 of 3 replicas are ready.
    lastTransitionTime: "2023-11-14T22:13:00Z"
    observedGeneration: 4
  - type: ConfigurationValid
    status: "True"
    reason: ReferencesResolved
    message: All referenced Secrets are available.
    lastTransitionTime: "2023-11-14T22:00:10Z"
    observedGeneration: 4
  - type: Degraded
    status: "False"
    reason: AsExpected
    message: The runtime is progressing normally.
    lastTransitionTime: "2023-11-14T22:00:10Z"
    observedGeneration: 4
"#;

/// 2023-11-14T22:13:20Z.
pub fn now() -> Timestamp {
    at(0)
}

/// An Event fixture: `secs` after the epoch-ish base time.
pub fn event(name: &str, type_: &str, reason: &str, secs: i64, note: &str) -> Event {
    serde_json::from_value(serde_json::json!({
        "metadata": {"name": name, "namespace": "ai", "uid": format!("uid-{name}")},
        "eventTime": Timestamp::from_second(1_700_000_000 + secs)
            .map(|t| t.to_string())
            .unwrap_or_default(),
        "type": type_,
        "reason": reason,
        "action": "Reconcile",
        "note": note,
        "reportingController": "trussium.io/operator",
        "reportingInstance": "op-0",
        "regarding": {"kind": "TrussiumRuntime", "name": "rt", "uid": "rt-uid"},
    }))
    .unwrap_or_else(|e| panic!("{e}"))
}

pub fn at(secs: i64) -> Timestamp {
    Timestamp::from_second(1_700_000_000 + secs).unwrap_or_else(|e| panic!("{e}"))
}
