//! The runtime pod template of the Deployment.

use std::collections::{BTreeMap, BTreeSet};
use trussium_api::restart::{RESTARTED_AT, restarted_at};

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

/// User annotations, then ours on top: the config hash, and the restart the
/// runtime asks for (see `trussium_api::restart`).
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
    #[cfg(feature = "next-template-default")]
    annotations.insert(
        "runtime.trussium.io/next-template-default".to_string(),
        "on".to_string(),
    );
    if let Some(at) = restarted_at(&rt.metadata) {
        annotations.insert(RESTARTED_AT.to_string(), at.to_string());
    }
    Ok(annotations)
}

/// Changes when the ConfigMap data changes or a referenced Secret is rotated
/// (its resourceVersion moves), so that the pods restart and pick it up.
pub fn config_hash(rt: &TrussiumRuntime, ctx: &BuildContext) -> Result<String, BuildError> {
    hash::config_hash(&config_map::data(rt), ctx.secret_versions)
}

/// The spec's pull secrets in order, each once: the pod spec keys this list
/// by name, so a repeated name would make the apply fail.
fn image_pull_secrets(rt: &TrussiumRuntime) -> Option<Vec<LocalObjectReference>> {
    let mut seen = BTreeSet::new();
    let secrets: Vec<LocalObjectReference> = rt
        .spec
        .image_pull_secrets
        .iter()
        .flatten()
        .filter(|s| seen.insert(s.name.as_str()))
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

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::super::tests::{Result, TestContext, context, fixture, json_of, runtime};
    use super::*;

    fn template(rt: &TrussiumRuntime, ctx: &TestContext) -> Result<Value> {
        json_of(&pod_template(rt, &ctx.ctx())?)
    }

    fn selector_json() -> Value {
        json!({"matchLabels": {
            "app.kubernetes.io/name": "trussium",
            "app.kubernetes.io/instance": "private-ai",
        }})
    }

    #[test]
    fn a_requested_restart_goes_into_the_template_and_nothing_else_does() -> Result {
        let mut rt = fixture("minimal")?;
        let before = template(&rt, &context())?;
        let annotations = rt.metadata.annotations.get_or_insert_default();
        annotations.insert(RESTARTED_AT.into(), "2026-12-04T10:00:00Z".into());
        // The runtime's other annotations stay off the pods.
        annotations.insert("team".into(), "a".into());
        let after = template(&rt, &context())?;
        assert_eq!(
            after["metadata"]["annotations"][RESTARTED_AT],
            "2026-12-04T10:00:00Z"
        );
        assert_eq!(
            after["metadata"]["annotations"]
                .as_object()
                .map(|a| a.len()),
            Some(2)
        );
        assert_eq!(after["spec"], before["spec"], "only the annotation changes");
        Ok(())
    }

    #[test]
    fn minimal_pod_template() -> Result {
        let t = template(&fixture("minimal")?, &context())?;
        assert_eq!(
            t["metadata"]["labels"],
            json!({
                "app.kubernetes.io/name": "trussium",
                "app.kubernetes.io/instance": "private-ai",
                "app.kubernetes.io/managed-by": "trussium-operator",
                "app.kubernetes.io/component": "runtime",
            })
        );
        let annotations = t["metadata"]["annotations"]
            .as_object()
            .ok_or("no annotations")?;
        assert_eq!(annotations.len(), 1);
        assert!(annotations.contains_key(CONFIG_HASH_ANNOTATION));

        let spec = &t["spec"];
        assert_eq!(spec["serviceAccountName"], "private-ai");
        assert_eq!(spec["automountServiceAccountToken"], false);
        assert_eq!(spec["enableServiceLinks"], false);
        assert_eq!(spec["terminationGracePeriodSeconds"], 30);
        assert_eq!(
            spec["securityContext"],
            json!({"runAsNonRoot": true, "seccompProfile": {"type": "RuntimeDefault"}})
        );
        assert_eq!(spec["volumes"], json!([{"name": "tmp", "emptyDir": {}}]));
        for absent in [
            "imagePullSecrets",
            "nodeSelector",
            "tolerations",
            "affinity",
        ] {
            assert!(spec.get(absent).is_none(), "{absent}");
        }

        let containers = spec["containers"].as_array().ok_or("no containers")?;
        assert_eq!(containers.len(), 1);
        assert_eq!(
            containers[0],
            json!({
                "name": "runtime",
                "image": "ghcr.io/trussiumhq/trussium:v1.22.0",
                "imagePullPolicy": "IfNotPresent",
                "ports": [{"name": "http", "containerPort": 9000, "protocol": "TCP"}],
                "envFrom": [{"configMapRef": {"name": "private-ai"}}],
                "readinessProbe": {"tcpSocket": {"port": "http"}, "periodSeconds": 5},
                "securityContext": {
                    "allowPrivilegeEscalation": false,
                    "capabilities": {"drop": ["ALL"]},
                    "readOnlyRootFilesystem": true,
                    "runAsNonRoot": true,
                },
                "volumeMounts": [{"name": "tmp", "mountPath": "/tmp"}],
            })
        );
        Ok(())
    }

    #[test]
    fn topology_spread_over_hostname_and_zone() -> Result {
        let t = template(&fixture("minimal")?, &context())?;
        assert_eq!(
            t["spec"]["topologySpreadConstraints"],
            json!([
                {
                    "topologyKey": "kubernetes.io/hostname",
                    "maxSkew": 1,
                    "whenUnsatisfiable": "ScheduleAnyway",
                    "labelSelector": selector_json(),
                },
                {
                    "topologyKey": "topology.kubernetes.io/zone",
                    "maxSkew": 1,
                    "whenUnsatisfiable": "ScheduleAnyway",
                    "labelSelector": selector_json(),
                },
            ])
        );
        Ok(())
    }

    #[test]
    fn scheduling_is_passed_through_and_topology_spread_stays() -> Result {
        let full = template(&fixture("full")?, &context())?;
        let spec = &full["spec"];
        assert_eq!(spec["nodeSelector"], json!({"workload": "ai"}));
        assert_eq!(
            spec["tolerations"],
            json!([{"key": "workload", "operator": "Equal", "value": "ai", "effect": "NoSchedule"}])
        );
        assert_eq!(
            spec["affinity"],
            json!({"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{
                "topologyKey": "kubernetes.io/hostname",
                "labelSelector": {"matchLabels": {"app.kubernetes.io/instance": "private-ai"}},
            }]}})
        );
        let minimal = template(&fixture("minimal")?, &context())?;
        assert_eq!(
            spec["topologySpreadConstraints"],
            minimal["spec"]["topologySpreadConstraints"]
        );
        Ok(())
    }

    #[test]
    fn empty_scheduling_sends_nothing() -> Result {
        let rt = runtime(
            r"
            metadata: {name: private-ai, namespace: ns, uid: u-1}
            spec:
              image: {repository: ghcr.io/trussiumhq/trussium, tag: v1}
              provider: {type: ollama, model: m}
              imagePullSecrets: []
              resources: {requests: {}, limits: {}}
              podMetadata: {labels: {}, annotations: {}}
              scheduling: {nodeSelector: {}, tolerations: [], affinity: {}}
            ",
        )?;
        let t = template(&rt, &context())?;
        for absent in [
            "imagePullSecrets",
            "nodeSelector",
            "tolerations",
            "affinity",
        ] {
            assert!(t["spec"].get(absent).is_none(), "{absent}");
        }
        assert!(t["spec"]["containers"][0].get("resources").is_none());
        assert_eq!(
            t["spec"]["topologySpreadConstraints"]
                .as_array()
                .map(Vec::len),
            Some(2)
        );
        Ok(())
    }

    #[test]
    fn reserved_pod_labels_are_dropped_and_operator_labels_win() -> Result {
        let t = template(&fixture("full")?, &context())?;
        assert_eq!(
            t["metadata"]["labels"],
            json!({
                "team": "ai-platform",
                "app.kubernetes.io/name": "trussium",
                "app.kubernetes.io/instance": "private-ai",
                "app.kubernetes.io/managed-by": "trussium-operator",
                "app.kubernetes.io/component": "runtime",
            })
        );
        Ok(())
    }

    #[test]
    fn user_annotations_are_kept_and_the_config_hash_wins() -> Result {
        let rt = fixture("full")?;
        let ctx = context();
        let t = template(&rt, &ctx)?;
        assert_eq!(
            t["metadata"]["annotations"],
            json!({
                "example.com/owner": "inference",
                CONFIG_HASH_ANNOTATION: config_hash(&rt, &ctx.ctx())?,
            })
        );
        assert_ne!(
            t["metadata"]["annotations"][CONFIG_HASH_ANNOTATION],
            "spoofed"
        );
        Ok(())
    }

    #[test]
    fn full_container() -> Result {
        let t = template(&fixture("full")?, &context())?;
        let c = &t["spec"]["containers"][0];
        assert_eq!(c["image"], "registry.local:5000/ai/trussium:v1.23.0");
        assert_eq!(c["imagePullPolicy"], "Always");
        assert_eq!(
            c["resources"],
            json!({
                "requests": {"cpu": "250m", "memory": "256Mi"},
                "limits": {"cpu": "1", "memory": "1Gi"},
            })
        );
        assert_eq!(
            t["spec"]["imagePullSecrets"],
            json!([{"name": "ghcr-credentials"}, {"name": "mirror-credentials"}])
        );
        assert_eq!(t["spec"]["terminationGracePeriodSeconds"], 50);
        Ok(())
    }

    #[test]
    fn repeated_pull_secrets_are_sent_once() -> Result {
        let mut rt = fixture("full")?;
        if let Some(secrets) = rt.spec.image_pull_secrets.as_mut() {
            secrets.insert(0, secrets[1].clone());
        }
        let t = template(&rt, &context())?;
        assert_eq!(
            t["spec"]["imagePullSecrets"],
            json!([{"name": "mirror-credentials"}, {"name": "ghcr-credentials"}])
        );
        Ok(())
    }

    #[test]
    fn credential_comes_from_secret_key_ref_never_a_value() -> Result {
        let t = template(&fixture("full")?, &context())?;
        assert_eq!(
            t["spec"]["containers"][0]["env"],
            json!([{
                "name": "TRUSSIUM_PROVIDER_API_KEY",
                "valueFrom": {"secretKeyRef": {"name": "openai-credentials", "key": "api-key"}},
            }])
        );
        assert!(t["spec"]["containers"][0]["env"][0].get("value").is_none());

        let minimal = template(&fixture("minimal")?, &context())?;
        assert!(minimal["spec"]["containers"][0].get("env").is_none());
        Ok(())
    }

    #[test]
    fn digest_image() -> Result {
        let t = template(&fixture("digest")?, &context())?;
        assert_eq!(
            t["spec"]["containers"][0]["image"],
            "ghcr.io/trussiumhq/trussium@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
        );
        assert_eq!(t["spec"]["serviceAccountName"], "pinned");
        assert_eq!(
            t["spec"]["containers"][0]["envFrom"][0]["configMapRef"]["name"],
            "pinned"
        );
        Ok(())
    }

    #[test]
    fn grace_period_covers_the_drain_timeout() -> Result {
        let mut rt = fixture("minimal")?;
        assert_eq!(termination_grace_period_seconds(&rt), 30);
        for (drain, grace) in [
            (0, 30),
            (10, 30),
            (25, 30),
            (26, 31),
            (45, 50),
            (3600, 3605),
        ] {
            rt.spec.runtime = Some(trussium_api::RuntimeOverrides {
                shutdown_drain_timeout_seconds: Some(drain),
                ..Default::default()
            });
            assert_eq!(
                termination_grace_period_seconds(&rt),
                grace,
                "drain {drain}"
            );
        }
        Ok(())
    }

    #[test]
    fn config_hash_follows_configuration_and_secret_versions_only() -> Result {
        let base = fixture("full")?;
        let secrets = [("ghcr-credentials", "10"), ("openai-credentials", "20")];
        let ctx = context().with_secrets(&secrets);
        let hash = |rt: &TrussiumRuntime, ctx: &TestContext| config_hash(rt, &ctx.ctx());
        let before = hash(&base, &ctx)?;
        assert_eq!(
            hash(&base.clone(), &context().with_secrets(&secrets))?,
            before
        );

        // Configuration changes roll the pods.
        let mut rt = base.clone();
        rt.spec.provider.model = "gpt-5-mini".into();
        assert_ne!(hash(&rt, &ctx)?, before);
        let mut rt = base.clone();
        rt.spec.provider.base_url = Some("https://proxy.example.com/v1".into());
        assert_ne!(hash(&rt, &ctx)?, before);
        let mut rt = base.clone();
        if let Some(r) = rt.spec.runtime.as_mut() {
            r.stream_idle_timeout_seconds = Some(31);
        }
        assert_ne!(hash(&rt, &ctx)?, before);

        // A rotated or newly referenced Secret rolls the pods.
        let rotated =
            context().with_secrets(&[("ghcr-credentials", "10"), ("openai-credentials", "21")]);
        assert_ne!(hash(&base, &rotated)?, before);
        let renamed =
            context().with_secrets(&[("ghcr-credentials", "10"), ("other-credentials", "20")]);
        assert_ne!(hash(&base, &renamed)?, before);
        assert_ne!(hash(&base, &context())?, before);

        // Everything else leaves it alone.
        let mut rt = base.clone();
        rt.spec.replicas = 5;
        rt.spec.image.tag = Some("v2".into());
        rt.spec.service.port = 1234;
        rt.spec.resources = None;
        rt.spec.pod_metadata = None;
        rt.spec.scheduling = None;
        rt.spec.network_policy = None;
        rt.spec.autoscaling = None;
        rt.metadata.generation = Some(99);
        assert_eq!(hash(&rt, &ctx)?, before);
        assert_eq!(
            hash(
                &base,
                &context()
                    .with_secrets(&secrets)
                    .with_observed_replicas(Some(4))
            )?,
            before
        );
        Ok(())
    }
}
