//! The `TrussiumRuntime` spec: what a platform team declares.
//!
//! Validation that the schema can express lives here as OpenAPI constraints and
//! CEL rules, so the API server refuses a bad spec with a message that says what
//! to fix; the operator never sees it.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Affinity, ResourceRequirements, Toleration};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use kube::{CustomResource, KubeSchema};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::labels::{
    ANNOTATION_KEYS_CEL, LABELS_SYNTAX_CEL, RESERVED_ANNOTATIONS_CEL, RESERVED_LABELS_CEL,
};
use crate::pod_security::{APPARMOR_CONTAINER_CEL, APPARMOR_PROFILE_CEL, SECCOMP_CEL};
use crate::status::TrussiumRuntimeStatus;
use crate::validation::rules;

/// Desired state of a TrussiumRuntime: the runtime image, the provider and
/// model it serves, and how it runs in the cluster.
// The printer columns repeat `type_ = ...`, which clippy mistakes for a
// duplicated attribute.
#[allow(clippy::duplicated_attributes)]
#[derive(CustomResource, KubeSchema, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[kube(
    group = "runtime.trussium.io",
    version = "v1beta1",
    kind = "TrussiumRuntime",
    plural = "trussiumruntimes",
    shortname = "trt",
    category = "trussium",
    namespaced,
    status = "TrussiumRuntimeStatus",
    derive = "PartialEq",
    doc = "TrussiumRuntime declares the desired configuration of one Trussium runtime instance: a gateway in front of an OpenAI or Ollama provider.",
    scale(
        spec_replicas_path = ".spec.replicas",
        status_replicas_path = ".status.readyReplicas"
    ),
    printcolumn(
        name = "Ready",
        type_ = "integer",
        json_path = ".status.readyReplicas",
        description = "Ready runtime replicas"
    ),
    printcolumn(
        name = "Desired",
        type_ = "integer",
        json_path = ".status.desiredReplicas",
        description = "Replicas the operator converges to (the HPA's choice while autoscaling is on)"
    ),
    printcolumn(
        name = "Provider",
        type_ = "string",
        json_path = ".spec.provider.type",
        description = "Model provider"
    ),
    printcolumn(
        name = "Model",
        type_ = "string",
        json_path = ".spec.provider.model",
        description = "Provider model identifier"
    ),
    printcolumn(
        name = "Version",
        type_ = "string",
        json_path = ".spec.image.tag",
        description = "Runtime image tag"
    ),
    printcolumn(
        name = "Age",
        type_ = "date",
        json_path = ".metadata.creationTimestamp"
    ),
    // `-o wide` only: the default columns are settled ("Printer columns" in
    // docs/src/development/design.md).
    printcolumn(
        name = "Status",
        type_ = "string",
        json_path = ".status.conditions[?(@.type==\"Ready\")].reason",
        description = "Reason of the Ready condition (RuntimeReady, RuntimeNotReady, DeploymentFailed, ...)",
        priority = 1
    ),
    // The name becomes the Service's, the other owned objects' and label
    // values (see `validation::rules`).
    validation = Rule::new(rules::NAME.cel).message(rules::NAME.message),
    validation = Rule::new(rules::NAME_NOT_DEFAULT.cel).message(rules::NAME_NOT_DEFAULT.message),
    printcolumn(
        name = "Stalled",
        type_ = "string",
        json_path = ".status.conditions[?(@.type==\"Stalled\")].status",
        description = "True while the runtime cannot progress without a change (kstatus: Failed)",
        priority = 1
    )
)]
// A CPU limit alone is enough: Kubernetes copies it into the request.
#[x_kube(validation = Rule::new(
    "!has(self.autoscaling) || !self.autoscaling.enabled || (has(self.resources) && ((has(self.resources.requests) && 'cpu' in self.resources.requests) || (has(self.resources.limits) && 'cpu' in self.resources.limits)))"
).message("autoscaling.enabled requires resources.requests.cpu (or resources.limits.cpu, which becomes the request): the HPA scales on CPU utilization relative to the request"))]
// The rules of the embedded Kubernetes types (resources, tolerations,
// affinity, label selectors): see `validation::schema`.
#[schemars(transform = crate::validation::schema::harden)]
#[serde(rename_all = "camelCase")]
pub struct TrussiumRuntimeSpec {
    /// The released Trussium runtime container image.
    pub image: ImageSpec,

    /// Desired runtime pod count, 0 to 1000. 0 is valid and means an
    /// intentionally scaled-down runtime. Ignored while autoscaling is
    /// enabled. The bound turns a typo into a refusal instead of a
    /// Deployment that never converges.
    #[serde(default = "default_replicas")]
    #[schemars(range(min = 0, max = 1000))]
    pub replicas: i32,

    /// Image registry Secrets in the same namespace (at most 32).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image_pull_secrets: Option<Vec<LocalSecretReference>>,

    /// The model provider the runtime forwards requests to.
    pub provider: ProviderSpec,

    /// Overrides for runtime-owned defaults. An omitted field stays under the
    /// control of the selected runtime release.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime: Option<RuntimeOverrides>,

    /// The Kubernetes Service in front of the runtime pods.
    #[serde(default)]
    pub service: ServiceSpec,

    /// An ingress NetworkPolicy for the runtime pods. Disabled by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network_policy: Option<NetworkPolicySpec>,

    /// CPU-based horizontal autoscaling. Disabled by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub autoscaling: Option<AutoscalingSpec>,

    /// Compute resources of the runtime container. Autoscaling needs a CPU
    /// request (or a CPU limit, which Kubernetes copies into the request).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<ResourceRequirements>,

    /// Additional labels and annotations for the runtime pod template.
    /// Operator-owned labels cannot be set here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_metadata: Option<PodMetadata>,

    /// Scheduling controls for runtime pods. The operator's default topology
    /// spread stays active regardless.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scheduling: Option<Scheduling>,
}

fn default_replicas() -> i32 {
    1
}

/// Selects the runtime container image. Exactly one of tag or digest.
#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[x_kube(validation = Rule::new("has(self.tag) != has(self.digest)")
    .message("exactly one of image.tag or image.digest must be set"))]
#[serde(rename_all = "camelCase")]
pub struct ImageSpec {
    /// Image repository without tag or digest, e.g. ghcr.io/trussiumhq/trussium.
    /// A registry host:port prefix is allowed.
    // One message per mistake: the general shape rule stays quiet when one of
    // the two more specific rules already explains the problem.
    #[x_kube(validation = Rule::new(rules::REPOSITORY_NO_DIGEST.cel).message(rules::REPOSITORY_NO_DIGEST.message))]
    #[x_kube(validation = Rule::new(rules::REPOSITORY_NO_TAG.cel).message(rules::REPOSITORY_NO_TAG.message))]
    #[x_kube(validation = Rule::new(rules::REPOSITORY_NAME.cel).message(rules::REPOSITORY_NAME.message))]
    #[schemars(length(min = 1, max = 255))]
    pub repository: String,

    /// Versioned image tag, e.g. v1.22.0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[x_kube(validation = Rule::new("self.matches('^[A-Za-z0-9_][A-Za-z0-9_.-]*$')")
        .message("image.tag must start with a letter, digit or underscore and contain only letters, digits, '_', '.' and '-'"))]
    #[schemars(length(min = 1, max = 128))]
    pub tag: Option<String>,

    /// SHA-256 image digest: sha256: followed by 64 lowercase hex characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[x_kube(validation = Rule::new("self.matches('^sha256:[a-f0-9]{64}$')")
        .message("image.digest must be sha256: followed by 64 lowercase hexadecimal characters"))]
    // Looser than the 71 characters a digest has, so that a near miss gets the
    // format message above rather than a bare length error.
    #[schemars(length(max = 128))]
    pub digest: Option<String>,

    /// Kubernetes image pull policy.
    #[serde(default)]
    pub pull_policy: PullPolicy,
}

/// Kubernetes image pull policy.
#[derive(JsonSchema, Serialize, Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PullPolicy {
    Always,
    #[default]
    IfNotPresent,
    Never,
}

impl PullPolicy {
    pub fn as_str(self) -> &'static str {
        match self {
            PullPolicy::Always => "Always",
            PullPolicy::IfNotPresent => "IfNotPresent",
            PullPolicy::Never => "Never",
        }
    }
}

/// A Secret in the runtime's namespace (an entry of imagePullSecrets).
#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct LocalSecretReference {
    /// Secret name (a DNS subdomain).
    #[x_kube(validation = Rule::new(rules::PULL_SECRET_NAME.cel).message(rules::PULL_SECRET_NAME.message))]
    #[schemars(length(min = 1, max = 253))]
    pub name: String,
}

/// The provider and model the runtime serves.
#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[x_kube(validation = Rule::new("!has(self.apiKey)").message(
    "provider.apiKey is not supported: store the credential in a Secret and reference it with provider.credentialsSecretRef"
))]
// Field-level rules are attached by property index, which the apiKey transform
// shifts; so the rules of this struct's fields live here, at struct level.
#[x_kube(validation = Rule::new(rules::BASE_URL_SCHEME.cel).message(rules::BASE_URL_SCHEME.message))]
#[x_kube(validation = Rule::new(rules::MODEL_PRINTABLE.cel).message(rules::MODEL_PRINTABLE.message))]
#[x_kube(validation = Rule::new(rules::BASE_URL_PRINTABLE.cel).message(rules::BASE_URL_PRINTABLE.message))]
#[x_kube(validation = Rule::new(rules::BASE_URL_NO_USER_INFO.cel).message(rules::BASE_URL_NO_USER_INFO.message))]
#[schemars(transform = declare_forbidden_api_key)]
#[serde(rename_all = "camelCase")]
pub struct ProviderSpec {
    /// Provider type: openai or ollama.
    #[serde(rename = "type")]
    pub type_: ProviderType,

    /// Provider model identifier, e.g. gpt-5 or llama3.2. Printable: no
    /// control characters.
    #[schemars(length(min = 1, max = 256))]
    pub model: String,

    /// Provider or compatible API endpoint. No user information
    /// (`user:password@`: credentials belong in a Secret) and no control
    /// characters.
    #[serde(default, rename = "baseURL", skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 2048))]
    pub base_url: Option<String>,

    /// Secret name and key holding the provider credential. The operator only
    /// checks that the Secret exists; the value reaches the pod through
    /// secretKeyRef and is never read by the operator.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub credentials_secret_ref: Option<SecretKeyReference>,
}

/// `apiKey` is declared in the schema only so that the rule above can refuse it
/// with a helpful message instead of the field being silently pruned.
fn declare_forbidden_api_key(schema: &mut schemars::Schema) {
    if let Some(properties) = schema.get_mut("properties").and_then(|p| p.as_object_mut()) {
        properties.insert(
            "apiKey".into(),
            serde_json::json!({
                "type": "string",
                "description": "Not supported. Credentials are never stored in a TrussiumRuntime; use credentialsSecretRef."
            }),
        );
    }
}

/// Model provider.
#[derive(JsonSchema, Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ProviderType {
    Openai,
    Ollama,
}

impl ProviderType {
    pub fn as_str(self) -> &'static str {
        match self {
            ProviderType::Openai => "openai",
            ProviderType::Ollama => "ollama",
        }
    }
}

/// A key in a Secret in the runtime's namespace.
#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct SecretKeyReference {
    /// Secret name (a DNS subdomain).
    #[x_kube(validation = Rule::new(rules::CREDENTIALS_NAME.cel).message(rules::CREDENTIALS_NAME.message))]
    #[schemars(length(min = 1, max = 253))]
    pub name: String,
    /// Key within the Secret: letters, digits, '-', '_' and '.'.
    #[x_kube(validation = Rule::new(rules::CREDENTIALS_KEY.cel).message(rules::CREDENTIALS_KEY.message))]
    #[schemars(length(min = 1, max = 253))]
    pub key: String,
}

/// Overrides for runtime-owned timeouts, in seconds.
#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct RuntimeOverrides {
    /// How long the runtime waits for the provider to answer a request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 86400))]
    pub provider_request_timeout_seconds: Option<i32>,
    /// How long a streamed response may stay idle before it is closed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 86400))]
    pub stream_idle_timeout_seconds: Option<i32>,
    /// How long the runtime drains open requests on shutdown. The pod's
    /// termination grace period is extended to cover it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0, max = 3600))]
    pub shutdown_drain_timeout_seconds: Option<i32>,
}

/// The runtime Service.
#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct ServiceSpec {
    /// Service type: ClusterIP, NodePort or LoadBalancer. ExternalName is not
    /// supported because the Service selects operator-managed pods.
    #[serde(rename = "type", default)]
    pub type_: ServiceType,
    /// Service port; the target is always the runtime's HTTP port 9000.
    #[serde(default = "default_service_port")]
    #[schemars(range(min = 1, max = 65535))]
    pub port: i32,
}

impl Default for ServiceSpec {
    fn default() -> Self {
        ServiceSpec {
            type_: ServiceType::default(),
            port: default_service_port(),
        }
    }
}

fn default_service_port() -> i32 {
    9000
}

/// Supported Service types.
#[derive(JsonSchema, Serialize, Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ServiceType {
    #[default]
    ClusterIP,
    NodePort,
    LoadBalancer,
}

impl ServiceType {
    pub fn as_str(self) -> &'static str {
        match self {
            ServiceType::ClusterIP => "ClusterIP",
            ServiceType::NodePort => "NodePort",
            ServiceType::LoadBalancer => "LoadBalancer",
        }
    }
}

/// Ingress NetworkPolicy for the runtime pods. Only enable it on clusters whose
/// CNI enforces NetworkPolicy. Egress stays unrestricted.
#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[x_kube(validation = Rule::new("!self.enabled || (has(self.ingress) && size(self.ingress) > 0)")
    .message("networkPolicy.enabled requires at least one networkPolicy.ingress entry"))]
#[serde(rename_all = "camelCase")]
pub struct NetworkPolicySpec {
    /// Create and manage the NetworkPolicy.
    #[serde(default)]
    pub enabled: bool,
    /// Allowed client sources; each entry becomes one rule allowing TCP to the
    /// runtime's HTTP port.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(max = 32))]
    pub ingress: Vec<NetworkPolicyIngress>,
}

/// One allowed client source.
#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct NetworkPolicyIngress {
    /// Namespaces the clients run in (required). The immutable
    /// kubernetes.io/metadata.name label selects a namespace by name.
    pub namespace_selector: LabelSelector,
    /// Pods within those namespaces; all pods when omitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_selector: Option<LabelSelector>,
}

/// CPU-based horizontal autoscaling through an autoscaling/v2 HPA.
#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[x_kube(validation = Rule::new(rules::AUTOSCALING_MAX_REPLICAS.cel)
    .message(rules::AUTOSCALING_MAX_REPLICAS.message))]
#[x_kube(validation = Rule::new(rules::AUTOSCALING_MAX_AT_LEAST_MIN.cel)
    .message(rules::AUTOSCALING_MAX_AT_LEAST_MIN.message))]
#[serde(rename_all = "camelCase")]
pub struct AutoscalingSpec {
    /// Create and manage the HPA; while enabled it owns the replica count.
    #[serde(default)]
    pub enabled: bool,
    /// Lower bound of the replica count, 1 to 1000.
    #[serde(default = "default_min_replicas")]
    #[schemars(range(min = 1, max = 1000))]
    pub min_replicas: i32,
    /// Upper bound of the replica count, 1 to 1000.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 1000))]
    pub max_replicas: Option<i32>,
    /// Target average CPU utilization, in percent of the CPU request.
    #[serde(
        default = "default_cpu_target",
        rename = "targetCPUUtilizationPercentage"
    )]
    #[schemars(range(min = 1, max = 100))]
    pub target_cpu_utilization_percentage: i32,
}

fn default_min_replicas() -> i32 {
    1
}

fn default_cpu_target() -> i32 {
    80
}

/// Extra pod-template metadata.
#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct PodMetadata {
    /// Additional pod labels. Reserved keys (app.kubernetes.io/name, instance,
    /// managed-by, component and runtime.trussium.io/*) are refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[x_kube(validation = Rule::new(RESERVED_LABELS_CEL).message(
        "podMetadata.labels must not set operator-owned labels: app.kubernetes.io/name, app.kubernetes.io/instance, app.kubernetes.io/managed-by, app.kubernetes.io/component or any runtime.trussium.io/ key"
    ))]
    #[x_kube(validation = Rule::new(LABELS_SYNTAX_CEL).message(
        "podMetadata.labels must be valid Kubernetes labels: a key is an optional DNS subdomain prefix and '/' followed by a name of at most 63 letters, digits, '-', '_' or '.'; a value has at most 63 of those characters; names and non-empty values begin and end with a letter or digit"
    ))]
    // maxLength on the values bounds the cost of the syntax rule.
    #[schemars(extend(
        "maxProperties" = 64,
        "additionalProperties" = { "type": "string", "maxLength": 63 }
    ))]
    pub labels: Option<BTreeMap<String, String>>,
    /// Additional pod annotations. Keys under runtime.trussium.io/ belong to
    /// the operator and are refused, and so is what would keep the pods out
    /// of a namespace that enforces Pod Security restricted: an AppArmor
    /// profile other than runtime/default or localhost/<profile> (for the
    /// container runtime only), and the seccomp annotations (the operator
    /// sets seccomp RuntimeDefault).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[x_kube(validation = Rule::new(RESERVED_ANNOTATIONS_CEL).message(
        "podMetadata.annotations must not set operator-owned annotations: runtime.trussium.io/ keys"
    ))]
    #[x_kube(validation = Rule::new(ANNOTATION_KEYS_CEL).message(
        "podMetadata.annotations keys must be valid: an optional DNS subdomain prefix and '/' followed by a name of at most 63 letters, digits, '-', '_' or '.', beginning and ending with a letter or digit"
    ))]
    #[x_kube(validation = Rule::new(APPARMOR_CONTAINER_CEL).message(
        "podMetadata.annotations: the runtime pod has one container, runtime: an AppArmor annotation must be container.apparmor.security.beta.kubernetes.io/runtime"
    ))]
    #[x_kube(validation = Rule::new(APPARMOR_PROFILE_CEL).message(
        "podMetadata.annotations: the AppArmor profile must be runtime/default or localhost/<profile>; unconfined is refused by Pod Security baseline and restricted"
    ))]
    #[x_kube(validation = Rule::new(SECCOMP_CEL).message(
        "podMetadata.annotations must not set seccomp annotations: the operator sets the pods' seccomp profile (RuntimeDefault), and Kubernetes ignores these annotations since 1.27"
    ))]
    #[schemars(extend("maxProperties" = 64))]
    pub annotations: Option<BTreeMap<String, String>>,
}

/// Scheduling controls for runtime pods.
#[derive(KubeSchema, Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Scheduling {
    /// Required node labels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[x_kube(validation = Rule::new(rules::NODE_SELECTOR.cel).message(rules::NODE_SELECTOR.message))]
    #[schemars(extend(
        "maxProperties" = 64,
        "additionalProperties" = { "type": "string", "maxLength": 63 }
    ))]
    pub node_selector: Option<BTreeMap<String, String>>,
    /// Tolerated taints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tolerations: Option<Vec<Toleration>>,
    /// Node and pod affinity and anti-affinity.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub affinity: Option<Affinity>,
}
