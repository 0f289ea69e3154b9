//! The runtime pod template of the Deployment.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{
    Affinity, Capabilities, ConfigMapEnvSource, Container, ContainerPort, EmptyDirVolumeSource,
    EnvFromSource, EnvVar, EnvVarSource, LocalObjectReference, PodSecurityContext, PodSpec,
    PodTemplateSpec, Probe, ResourceRequirements, SeccompProfile, SecretKeySelector,
    SecurityContext, TCPSocketAction, TopologySpreadConstraint, Volume, VolumeMount,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use trussium_api::TrussiumRuntime;
use trussium_api::labels::is_reserved;

use super::{
    BuildContext, BuildError, CONFIG_HASH_ANNOTATION, HTTP_PORT, HTTP_PORT_NAME, RUNTIME_CONTAINER,
    config_map, hash, labels, non_empty_map, non_empty_vec, runtime_name, selector,
};

/// Environment variable carrying the provider credential, from `secretKeyRef`.
pub const CREDENTIALS_ENV: &str = "TRUSSIUM_PROVIDER_API_KEY";
/// Kubernetes' own default, kept as the floor.
pub const MIN_TERMINATION_GRACE_PERIOD_SECONDS: i64 = 30;
/// Time on top of the drain timeout for the process to exit after draining.
const DRAIN_MARGIN_SECONDS: i64 = 5;
/// The root filesystem is read-only; this emptyDir is the writable scratch space.
const TMP_VOLUME: &str = "tmp";
const TMP_PATH: &str = "/tmp";

/// The pod template of the runtime Deployment.
pub fn pod_template(
    rt: &TrussiumRuntime,
    ctx: &BuildContext,
) -> Result<PodTemplateSpec, BuildError> {
    let name = runtime_name(rt)?;
    let scheduling = rt.spec.scheduling.clone().unwrap_or_default();
    Ok(PodTemplateSpec {
        metadata: Some(ObjectMeta {
            labels: Some(pod_labels(rt, name)),
            annotations: Some(pod_annotations(rt, ctx)?),
            ..ObjectMeta::default()
        }),
        spec: Some(PodSpec {
            service_account_name: Some(name.to_string()),
            automount_service_account_token: Some(false),
            // Service links would inject `<SERVICE>_PORT`-style variables, which
            // for a runtime named like `trussium-…` collide with its own
            // TRUSSIUM_* configuration.
            enable_service_links: Some(false),
            image_pull_secrets: image_pull_secrets(rt),
            containers: vec![container(rt, name)],
            volumes: Some(vec![Volume {
                name: TMP_VOLUME.to_string(),
                empty_dir: Some(EmptyDirVolumeSource::default()),
                ..Volume::default()
            }]),
            security_context: Some(PodSecurityContext {
                run_as_non_root: Some(true),
                seccomp_profile: Some(runtime_default_seccomp()),
                ..PodSecurityContext::default()
            }),
            termination_grace_period_seconds: Some(termination_grace_period_seconds(rt)),
            node_selector: non_empty_map(scheduling.node_selector.as_ref()),
            tolerations: non_empty_vec(scheduling.tolerations.as_ref()),
            affinity: scheduling.affinity.filter(|a| *a != Affinity::default()),
            topology_spread_constraints: Some(topology_spread(name)),
            ..PodSpec::default()
        }),
    })
}

/// User labels without reserved keys, then the operator's labels on top.
fn pod_labels(rt: &TrussiumRuntime, name: &str) -> BTreeMap<String, String> {
    let mut pod_labels: BTreeMap<String, String> = rt
        .spec
        .pod_metadata
        .as_ref()
        .and_then(|m| m.labels.as_ref())
        .into_iter()
        .flatten()
        .filter(|(k, _)| !is_reserved(k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    pod_labels.extend(labels(name));
    pod_labels
}

/// User annotations, then the config hash on top.
fn pod_annotations(
    rt: &TrussiumRuntime,
    ctx: &BuildContext,
) -> Result<BTreeMap<String, String>, BuildError> {
    let mut annotations = rt
        .spec
        .pod_metadata
        .as_ref()
        .and_then(|m| m.annotations.clone())
        .unwrap_or_default();
    annotations.insert(CONFIG_HASH_ANNOTATION.to_string(), config_hash(rt, ctx)?);
    Ok(annotations)
}

/// Changes when the ConfigMap data changes or a referenced Secret is rotated
/// (its resourceVersion moves), so that the pods restart and pick it up.
pub fn config_hash(rt: &TrussiumRuntime, ctx: &BuildContext) -> Result<String, BuildError> {
    hash::config_hash(&config_map::data(rt), ctx.secret_versions)
}

fn image_pull_secrets(rt: &TrussiumRuntime) -> Option<Vec<LocalObjectReference>> {
    let secrets: Vec<LocalObjectReference> = rt
        .spec
        .image_pull_secrets
        .iter()
        .flatten()
        .map(|s| LocalObjectReference {
            name: s.name.clone(),
        })
        .collect();
    (!secrets.is_empty()).then_some(secrets)
}

fn container(rt: &TrussiumRuntime, name: &str) -> Container {
    Container {
        name: RUNTIME_CONTAINER.to_string(),
        image: Some(rt.spec.image.reference()),
        image_pull_policy: Some(rt.spec.image.pull_policy.as_str().to_string()),
        ports: Some(vec![ContainerPort {
            name: Some(HTTP_PORT_NAME.to_string()),
            container_port: HTTP_PORT,
            protocol: Some("TCP".to_string()),
            ..ContainerPort::default()
        }]),
        env_from: Some(vec![EnvFromSource {
            config_map_ref: Some(ConfigMapEnvSource {
                name: name.to_string(),
                optional: None,
            }),
            ..EnvFromSource::default()
        }]),
        env: credentials_env(rt),
        resources: resources(rt),
        // The runtime's HTTP paths are not part of the contract; an open port
        // is the one thing every release is known to offer.
        readiness_probe: Some(Probe {
            tcp_socket: Some(TCPSocketAction {
                port: IntOrString::String(HTTP_PORT_NAME.to_string()),
                host: None,
            }),
            period_seconds: Some(5),
            ..Probe::default()
        }),
        security_context: Some(SecurityContext {
            allow_privilege_escalation: Some(false),
            capabilities: Some(Capabilities {
                drop: Some(vec!["ALL".to_string()]),
                add: None,
            }),
            read_only_root_filesystem: Some(true),
            run_as_non_root: Some(true),
            ..SecurityContext::default()
        }),
        volume_mounts: Some(vec![VolumeMount {
            name: TMP_VOLUME.to_string(),
            mount_path: TMP_PATH.to_string(),
            ..VolumeMount::default()
        }]),
        ..Container::default()
    }
}

/// The credential as a reference the kubelet resolves; the operator never
/// sees the value.
fn credentials_env(rt: &TrussiumRuntime) -> Option<Vec<EnvVar>> {
    let secret = rt.spec.provider.credentials_secret_ref.as_ref()?;
    Some(vec![EnvVar {
        name: CREDENTIALS_ENV.to_string(),
        value: None,
        value_from: Some(EnvVarSource {
            secret_key_ref: Some(SecretKeySelector {
                name: secret.name.clone(),
                key: secret.key.clone(),
                optional: None,
            }),
            ..EnvVarSource::default()
        }),
    }])
}

/// `spec.resources` without empty parts.
fn resources(rt: &TrussiumRuntime) -> Option<ResourceRequirements> {
    let r = rt.spec.resources.as_ref()?;
    let requirements = ResourceRequirements {
        limits: r.limits.clone().filter(|m| !m.is_empty()),
        requests: r.requests.clone().filter(|m| !m.is_empty()),
        claims: non_empty_vec(r.claims.as_ref()),
    };
    (requirements != ResourceRequirements::default()).then_some(requirements)
}

/// Long enough for the runtime to drain open requests before SIGKILL.
pub fn termination_grace_period_seconds(rt: &TrussiumRuntime) -> i64 {
    let drain = rt
        .spec
        .runtime
        .as_ref()
        .and_then(|r| r.shutdown_drain_timeout_seconds)
        .map_or(0, i64::from);
    MIN_TERMINATION_GRACE_PERIOD_SECONDS.max(drain + DRAIN_MARGIN_SECONDS)
}

/// Spread over nodes and zones as far as possible, never blocking scheduling
/// (a single-node or single-zone cluster still runs every replica).
fn topology_spread(name: &str) -> Vec<TopologySpreadConstraint> {
    ["kubernetes.io/hostname", "topology.kubernetes.io/zone"]
        .into_iter()
        .map(|key| TopologySpreadConstraint {
            topology_key: key.to_string(),
            max_skew: 1,
            when_unsatisfiable: "ScheduleAnyway".to_string(),
            label_selector: Some(selector(name)),
            ..TopologySpreadConstraint::default()
        })
        .collect()
}

fn runtime_default_seccomp() -> SeccompProfile {
    SeccompProfile {
        type_: "RuntimeDefault".to_string(),
        localhost_profile: None,
    }
}
