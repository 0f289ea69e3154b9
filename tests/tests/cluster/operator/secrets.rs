//! Referenced Secrets: a missing one blocks every write of the runtime's
//! objects, its creation unblocks promptly through the metadata-only Secret
//! watch, and a rotation rolls the pods.

use std::time::Duration;

use super::support::{PROGRESS_DEADLINE_ARG, at, json_of};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{ConfigMap, Pod, Secret, Service, ServiceAccount};
use kube::ResourceExt;
use kube::api::{DeleteParams, ListParams};
use serde_json::{Value, json};
use tokio::time::Instant;
use trussium_api::condition_type;
use trussium_e2e::{
    AuditEvent, BoxError, CONVERGE, Harness, PROMPT, TestResult, condition, describe_requests,
    holds_for, minimal, sample, wait_for, with_operator,
};

const CONFIG_HASH: &str = "runtime.trussium.io/config-hash";
/// The kinds the contract says a missing Secret blocks.
const BLOCKED: [&str; 4] = ["configmaps", "serviceaccounts", "services", "deployments"];
/// How long a blocked runtime is watched for writes that must not happen.
const BLOCKED_WINDOW: Duration = Duration::from_secs(5);

fn blocked_writes(writes: &[AuditEvent]) -> Vec<AuditEvent> {
    writes
        .iter()
        .filter(|e| BLOCKED.contains(&e.resource().as_str()))
        .cloned()
        .collect()
}

fn config_hash(d: &Deployment) -> String {
    d.spec
        .as_ref()
        .and_then(|s| s.template.metadata.as_ref())
        .and_then(|m| m.annotations.as_ref())
        .and_then(|a| a.get(CONFIG_HASH))
        .cloned()
        .unwrap_or_default()
}

/// The runtime `name` (just created, referencing the missing Secret
/// `secret`) is blocked: it reports SecretNotFound and, from creation on,
/// the operator created or updated none of its objects.
async fn assert_blocked(
    h: &Harness,
    name: &str,
    secret: &str,
    since: &trussium_e2e::AuditMark,
) -> TestResult {
    let rt = h
        .wait_condition(
            name,
            "ConfigurationValid",
            "False",
            Some("SecretNotFound"),
            CONVERGE,
        )
        .await?;
    let message = condition(&rt, condition_type::CONFIGURATION_VALID)
        .map(|c| c.message.clone())
        .unwrap_or_default();
    assert!(
        message.contains(secret),
        "the message names {secret}: {message}"
    );

    let (config_maps, accounts, services, deployments) = (
        h.api::<ConfigMap>(),
        h.api::<ServiceAccount>(),
        h.api::<Service>(),
        h.api::<Deployment>(),
    );
    holds_for("nothing to be created", BLOCKED_WINDOW, async || {
        let found = [
            config_maps.get_opt(name).await?.map(|_| "a ConfigMap"),
            accounts.get_opt(name).await?.map(|_| "a ServiceAccount"),
            services.get_opt(name).await?.map(|_| "a Service"),
            deployments.get_opt(name).await?.map(|_| "a Deployment"),
        ];
        Ok(found
            .into_iter()
            .flatten()
            .next()
            .map(|k| format!("{k} exists")))
    })
    .await?;

    let writes = h.operator_writes_since(since).await?;
    let blocked = blocked_writes(&writes);
    assert!(
        blocked.is_empty(),
        "the operator wrote while {secret} was missing: {}",
        describe_requests(&blocked)
    );
    // The audit filter does see this operator's writes here (not vacuous).
    assert!(
        writes
            .iter()
            .any(|e| e.resource() == "trussiumruntimes/status"),
        "no status write recorded: {}",
        describe_requests(&writes)
    );
    Ok(())
}

/// Creating the Secret unblocks the runtime within [`PROMPT`]: only a watch
/// can do that (the resync is five minutes away).
async fn create_and_expect_unblocked(
    h: &Harness,
    name: &str,
    secret: &str,
    key: &str,
    check: impl Fn(&Deployment) -> bool,
) -> Result<Deployment, BoxError> {
    h.create_secret(secret, key, "created-late").await?;
    let started = Instant::now();
    let deployment = h
        .wait_object("the Deployment once the Secret exists", name, PROMPT, check)
        .await?;
    eprintln!(
        "{name}: unblocked {:?} after Secret {secret} was created",
        started.elapsed()
    );
    h.wait_ready(name).await?;
    h.wait_condition(
        name,
        "ConfigurationValid",
        "True",
        Some("ReferencesResolved"),
        PROMPT,
    )
    .await?;
    Ok(deployment)
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn missing_credentials_secret_blocks_every_write_until_it_is_created() -> TestResult {
    with_operator("op-missing-cred", &[PROGRESS_DEADLINE_ARG], async |h| {
        let mark = h.mark();
        let rt = h.create_runtime(sample("openai")?).await?;
        let name = rt.name_any();
        // A second runtime needs the same Secret: its creation must wake both.
        let second = h
            .create_runtime(minimal(
                "second",
                json!({"provider": {"type": "openai", "model": "gpt-5", "baseURL": null,
                    "credentialsSecretRef": {"name": "openai-credentials", "key": "api-key"}}}),
            )?)
            .await?
            .name_any();
        assert_blocked(h, &name, "openai-credentials", &mark).await?;
        assert_blocked(h, &second, "openai-credentials", &mark).await?;

        let d = create_and_expect_unblocked(h, &name, "openai-credentials", "api-key", |_| true)
            .await?;
        assert_eq!(
            at(
                &json_of(&d)?,
                "/spec/template/spec/containers/0/env/0/valueFrom"
            ),
            &json!({"secretKeyRef": {"name": "openai-credentials", "key": "api-key"}})
        );
        // (The resync that could also do it is five minutes away.)
        h.wait_object(
            "the second runtime's Deployment",
            &second,
            PROMPT,
            |_: &Deployment| true,
        )
        .await?;
        h.wait_condition(
            &second,
            "ConfigurationValid",
            "True",
            Some("ReferencesResolved"),
            PROMPT,
        )
        .await?;
        h.wait_ready(&second).await?;
        Ok(())
    })
    .await
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn missing_pull_secret_blocks_every_write_until_it_is_created() -> TestResult {
    with_operator("op-missing-pull", &[PROGRESS_DEADLINE_ARG], async |h| {
        let mark = h.mark();
        let rt = h
            .create_runtime(minimal(
                "private-registry",
                json!({"imagePullSecrets": [{"name": "registry-credentials"}]}),
            )?)
            .await?;
        let name = rt.name_any();
        assert_blocked(h, &name, "registry-credentials", &mark).await?;

        let d = create_and_expect_unblocked(
            h,
            &name,
            "registry-credentials",
            ".dockerconfigjson",
            |_| true,
        )
        .await?;
        assert_eq!(
            at(&json_of(&d)?, "/spec/template/spec/imagePullSecrets"),
            &json!([{"name": "registry-credentials"}])
        );
        Ok(())
    })
    .await
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn running_runtime_that_references_a_missing_secret_keeps_its_deployment() -> TestResult {
    with_operator("op-missing-later", &[PROGRESS_DEADLINE_ARG], async |h| {
        let rt = h.create_runtime(minimal("running", json!({}))?).await?;
        let name = rt.name_any();
        h.wait_ready(&name).await?;
        let deployments = h.api::<Deployment>();
        let config_maps = h.api::<ConfigMap>();
        let before = json_of(&deployments.get(&name).await?)?;
        let config_before = json_of(&config_maps.get(&name).await?)?;

        // A new image, a new model and a pull secret that does not exist yet:
        // none of it may reach the Deployment or the ConfigMap.
        let mark = h.mark();
        h.patch_spec(
            &name,
            json!({
                "image": {"tag": "v1.23.0"},
                "provider": {"model": "llama3.3"},
                "imagePullSecrets": [{"name": "late-registry"}],
            }),
        )
        .await?;
        h.wait_condition(
            &name,
            "ConfigurationValid",
            "False",
            Some("SecretNotFound"),
            CONVERGE,
        )
        .await?;
        holds_for(
            "the Deployment and ConfigMap to stay untouched",
            BLOCKED_WINDOW,
            async || {
                let now = json_of(&deployments.get(&name).await?)?;
                let config_now = json_of(&config_maps.get(&name).await?)?;
                let unchanged = |path: &str, a: &Value, b: &Value| {
                    (at(a, path) != at(b, path)).then(|| format!("{path} changed"))
                };
                Ok(unchanged("/metadata/generation", &before, &now)
                    .or_else(|| unchanged("/spec", &before, &now))
                    .or_else(|| unchanged("/metadata/annotations", &before, &now))
                    .or_else(|| unchanged("/data", &config_before, &config_now)))
            },
        )
        .await?;
        let writes = h.operator_writes_since(&mark).await?;
        let blocked = blocked_writes(&writes);
        assert!(
            blocked.is_empty(),
            "blocked writes: {}",
            describe_requests(&blocked)
        );
        // The old pods keep serving meanwhile.
        assert_eq!(
            at(
                &json_of(&deployments.get(&name).await?)?,
                "/status/availableReplicas"
            ),
            &json!(1)
        );

        let d = create_and_expect_unblocked(h, &name, "late-registry", ".dockerconfigjson", |d| {
            d.spec
                .as_ref()
                .and_then(|s| s.template.spec.as_ref())
                .and_then(|p| p.image_pull_secrets.as_ref())
                .is_some()
        })
        .await?;
        let d = json_of(&d)?;
        assert_eq!(
            at(&d, "/spec/template/spec/imagePullSecrets"),
            &json!([{"name": "late-registry"}])
        );
        assert_eq!(
            at(&d, "/spec/template/spec/containers/0/image"),
            &json!("ghcr.io/trussiumhq/trussium:v1.23.0")
        );
        assert_eq!(
            config_maps.get(&name).await?.data.unwrap_or_default()["TRUSSIUM_PROVIDER_MODEL"],
            "llama3.3"
        );
        Ok(())
    })
    .await
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn deleting_a_referenced_secret_blocks_without_touching_the_deployment() -> TestResult {
    with_operator("op-secret-deleted", &[PROGRESS_DEADLINE_ARG], async |h| {
        h.create_secret("openai-credentials", "api-key", "sk-1")
            .await?;
        let rt = h.create_runtime(sample("openai")?).await?;
        let name = rt.name_any();
        h.wait_ready(&name).await?;
        let deployments = h.api::<Deployment>();
        let before = json_of(&deployments.get(&name).await?)?;

        let mark = h.mark();
        h.api::<Secret>()
            .delete("openai-credentials", &DeleteParams::default())
            .await?;
        // The deletion reaches the operator through the Secret watch.
        h.wait_condition(
            &name,
            "ConfigurationValid",
            "False",
            Some("SecretNotFound"),
            PROMPT,
        )
        .await?;
        let now = json_of(&deployments.get(&name).await?)?;
        assert_eq!(at(&now, "/spec"), at(&before, "/spec"));
        assert_eq!(
            at(&now, "/metadata/generation"),
            at(&before, "/metadata/generation")
        );
        let writes = h.operator_writes_since(&mark).await?;
        let blocked = blocked_writes(&writes);
        assert!(
            blocked.is_empty(),
            "blocked writes: {}",
            describe_requests(&blocked)
        );

        // Back again: unblocked, and the pods roll onto the new Secret.
        let d = create_and_expect_unblocked(h, &name, "openai-credentials", "api-key", |d| {
            config_hash(d) != at(&before, "/spec/template/metadata/annotations")[CONFIG_HASH]
        })
        .await?;
        assert_ne!(
            json!(config_hash(&d)),
            at(&before, "/spec/template/metadata/annotations")[CONFIG_HASH]
        );
        Ok(())
    })
    .await
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn rotating_the_credentials_secret_rolls_the_pods() -> TestResult {
    with_operator("op-rotation", &[PROGRESS_DEADLINE_ARG], async |h| {
        h.create_secret("openai-credentials", "api-key", "sk-first")
            .await?;
        let rt = h.create_runtime(sample("openai")?).await?;
        let name = rt.name_any();
        h.wait_ready(&name).await?;
        let deployments = h.api::<Deployment>();
        let pods = h.api::<Pod>();
        let selector = ListParams::default().labels(&format!("app.kubernetes.io/instance={name}"));
        let first = deployments.get(&name).await?;
        let first_hash = config_hash(&first);
        let first_pods: Vec<String> = pods
            .list(&selector)
            .await?
            .items
            .iter()
            .map(|p| p.name_any())
            .collect();
        assert_eq!(first_pods.len(), 2);

        // Rotate: the template's config hash moves, promptly.
        h.rotate_secret("openai-credentials", "api-key", "sk-second")
            .await?;
        let rotated = h
            .wait_object(
                "the config hash to change",
                &name,
                PROMPT,
                |d: &Deployment| config_hash(d) != first_hash,
            )
            .await?;
        let second_hash = config_hash(&rotated);
        assert_eq!(second_hash.len(), 16);
        assert!(
            rotated.metadata.generation > first.metadata.generation,
            "a new template generation"
        );

        // The pods roll: every old pod is replaced by one with the new hash.
        wait_for(
            "the pods to roll onto the rotated Secret",
            CONVERGE,
            async || {
                let list = pods.list(&selector).await?;
                let rolled = list.items.len() == 2
                    && list.items.iter().all(|p| {
                        !first_pods.contains(&p.name_any())
                            && p.annotations().get(CONFIG_HASH) == Some(&second_hash)
                            && p.metadata.deletion_timestamp.is_none()
                    });
                Ok(rolled.then_some(()))
            },
        )
        .await?;
        h.wait_ready(&name).await?;

        // Derived from the Secret's metadata, never its data: putting the
        // first value back is another rotation, not a return to the first hash.
        h.rotate_secret("openai-credentials", "api-key", "sk-first")
            .await?;
        let third = h
            .wait_object(
                "the config hash to change again",
                &name,
                PROMPT,
                |d: &Deployment| config_hash(d) != second_hash,
            )
            .await?;
        assert_ne!(config_hash(&third), first_hash);
        Ok(())
    })
    .await
}
