//! Least privilege and quiet: the operator's RBAC (`kubectl auth can-i`), its
//! Secret requests (metadata only, per the audit log and per their Accept
//! header, which a tap between it and the API server sees), the Secret's value
//! nowhere in what it logs or writes, and zero writes in a steady state, also
//! after a restart.

use std::collections::BTreeMap;
use std::time::Duration;

use super::support::PROGRESS_DEADLINE_ARG;
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{ConfigMap, Event as CoreEvent, Secret, Service};
use k8s_openapi::api::events::v1::Event;
use kube::ResourceExt;
use kube::api::{DeleteParams, ListParams, Patch, PatchParams};
use serde_json::{Value, json};
use trussium_e2e::{
    AuditEvent, BoxError, CONVERGE, Harness, OPERATOR_USER, Operator, PROMPT,
    QUIET_IN_STEADY_STATE, Tap, Tapped, TestNamespace, TestResult, admin_client,
    admin_kubeconfig_path, api_server_address, describe_requests, ensure, holds_for, install,
    kubectl_path, minimal, require_cluster, wait_for, with_operator,
};

/// Whether any object in `value` has one of `keys`, at any depth.
fn has_key(value: &Value, keys: &[&str]) -> bool {
    match value {
        Value::Object(map) => map
            .iter()
            .any(|(k, v)| keys.contains(&k.as_str()) || has_key(v, keys)),
        Value::Array(items) => items.iter().any(|v| has_key(v, keys)),
        _ => false,
    }
}

/// The operator's audit events on Secrets in the test namespace since `mark`.
async fn secret_requests(
    h: &Harness,
    mark: &trussium_e2e::AuditMark,
) -> Result<Vec<AuditEvent>, BoxError> {
    Ok(h.operator_events_since(mark)
        .await?
        .into_iter()
        .filter(|e| e.resource() == "secrets")
        .collect())
}

/// The namespace's events.k8s.io Events, oldest first, for a failure message.
async fn event_notes(h: &Harness) -> Result<String, BoxError> {
    let mut events = h.api::<Event>().list(&ListParams::default()).await?.items;
    events.sort_by_key(|e| e.event_time.as_ref().map(|t| t.0));
    Ok(events
        .iter()
        .map(|e| {
            format!(
                "{} {} {}: {}",
                e.event_time
                    .as_ref()
                    .map(|t| t.0.to_string())
                    .unwrap_or_default(),
                e.regarding
                    .as_ref()
                    .and_then(|r| r.name.clone())
                    .unwrap_or_default(),
                e.reason.clone().unwrap_or_default(),
                e.note.clone().unwrap_or_default()
            )
        })
        .collect::<Vec<_>>()
        .join(" | "))
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn the_operator_never_reads_a_secret_body_nor_repeats_its_value() -> TestResult {
    with_operator("op-secret-body", &[PROGRESS_DEADLINE_ARG], async |h| {
        // Through a tap that sees each request's headers, which the audit
        // log does not keep.
        let tap = Tap::start(api_server_address(&admin_kubeconfig_path())?).await?;
        h.operator.stop().await;
        h.operator =
            Operator::start_tapped(&h.ns.client, h.namespace(), &[PROGRESS_DEADLINE_ARG], &tap)
                .await?;
        let mark = h.mark();
        let value = format!("sk-live-{}-do-not-leak", h.namespace());
        let rotated = format!("sk-rotated-{}-do-not-leak", h.namespace());
        let registry = format!("registry-token-{}-do-not-leak", h.namespace());
        // As `kubectl apply` would leave it: the value also sits in an
        // annotation, which metadata-only requests do return. It must still
        // go nowhere.
        let last_applied = json!({
            "apiVersion": "v1", "kind": "Secret",
            "metadata": {"name": "openai-credentials"},
            "stringData": {"api-key": value},
        })
        .to_string();
        h.create_secret_with(
            "openai-credentials",
            "api-key",
            &value,
            BTreeMap::from([(
                "kubectl.kubernetes.io/last-applied-configuration".to_string(),
                last_applied,
            )]),
        )
        .await?;
        h.create_secret("ghcr-credentials", ".dockerconfigjson", &registry)
            .await?;
        let rt = h
            .create_runtime(minimal(
                "guarded",
                json!({
                    "provider": {"type": "openai", "model": "gpt-5",
                        "credentialsSecretRef": {"name": "openai-credentials", "key": "api-key"}},
                    "imagePullSecrets": [{"name": "ghcr-credentials"}],
                }),
            )?)
            .await?;
        let name = rt.name_any();
        h.wait_ready(&name).await?;

        // Every path that touches Secrets: rotation, a missing Secret and
        // its return, and a restart (the initial list of the Secret watch).
        let generation = h.api::<Deployment>().get(&name).await?.metadata.generation;
        h.rotate_secret("openai-credentials", "api-key", &rotated)
            .await?;
        h.wait_object("the pods to roll", &name, PROMPT, |d: &Deployment| {
            d.metadata.generation > generation
        })
        .await?;
        h.api::<Secret>()
            .delete("ghcr-credentials", &DeleteParams::default())
            .await?;
        h.wait_condition(
            &name,
            "ConfigurationValid",
            "False",
            Some("SecretNotFound"),
            PROMPT,
        )
        .await?;
        h.create_secret("ghcr-credentials", ".dockerconfigjson", &registry)
            .await?;
        h.wait_ready(&name).await?;
        let restarted = h.operator.log_mark();
        h.operator.restart().await?;
        h.wait_for_reconciles_of(&name, 1, restarted, PROMPT)
            .await?;
        h.wait_ready(&name).await?;

        let requests = secret_requests(h, &mark).await?;
        let mut kinds = BTreeMap::<String, usize>::new();
        for e in &requests {
            assert!(
                ["get", "list", "watch"].contains(&e.verb.as_str()),
                "the operator sent {} on a Secret: {}",
                e.verb,
                e.request_uri
            );
            let Some(response) = &e.response_object else {
                *kinds.entry(format!("{} {}", e.verb, e.code())).or_default() += 1;
                continue;
            };
            let kind = response["kind"].as_str().unwrap_or_default().to_string();
            assert!(
                [
                    "PartialObjectMetadata",
                    "PartialObjectMetadataList",
                    "Status"
                ]
                .contains(&kind.as_str()),
                "{} {} returned a {kind}",
                e.verb,
                e.request_uri
            );
            assert!(
                !has_key(response, &["data", "stringData"]),
                "{} {} returned Secret data",
                e.verb,
                e.request_uri
            );
            *kinds.entry(format!("{} {kind}", e.verb)).or_default() += 1;
        }
        eprintln!("the operator's Secret requests: {kinds:?}");
        // Existence is read from the metadata-only Secret watch (its initial
        // list streamed as watch events, one Secret at a time): no GET, no
        // LIST, only watches, once at the start and once after the restart.
        // (The audit log does not record what a watch streams.)
        assert!(
            kinds.keys().all(|k| k.starts_with("watch ")),
            "Secret requests other than watches: {kinds:?}"
        );
        assert!(
            requests.iter().filter(|e| e.verb == "watch").count() >= 2,
            "the Secret watch, before and after the restart: {kinds:?}"
        );
        // Every Secret request the operator sent asked for metadata only,
        // watches included (the tap sees their Accept header).
        let everything = tap.seen();
        let tapped: Vec<Tapped> = everything
            .iter()
            .filter(|t| t.path.contains("/secrets"))
            .cloned()
            .collect();
        ensure(
            tapped.iter().filter(|t| t.path.contains("watch=")).count() >= 2,
            format!("the Secret watch, before and after the restart, through the tap: {tapped:?}"),
        )?;
        for t in &tapped {
            ensure(
                t.accept
                    .as_deref()
                    .is_some_and(|a| a.contains("as=PartialObjectMetadata")),
                format!("{} {} asked for {:?}", t.method, t.path, t.accept),
            )?;
        }
        eprintln!(
            "the tap saw {} requests of the operator, {} of them on Secrets, each metadata-only: {:?}",
            everything.len(),
            tapped.len(),
            tapped
                .iter()
                .map(|t| format!("{} {} (Accept: {})", t.method, t.path, t.accept.as_deref().unwrap_or("-")))
                .collect::<Vec<_>>()
        );

        // The values appear nowhere the operator writes or says anything.
        let status = serde_json::to_string(&h.runtimes().get(&name).await?)?;
        let events = serde_json::to_string(&h.api::<Event>().list(&ListParams::default()).await?)?;
        let core_events =
            serde_json::to_string(&h.api::<CoreEvent>().list(&ListParams::default()).await?)?;
        let config = serde_json::to_string(&h.api::<ConfigMap>().get(&name).await?)?;
        let deployment = serde_json::to_string(&h.api::<Deployment>().get(&name).await?)?;
        let log = h.operator.log_text();
        assert!(!log.is_empty(), "the operator logged nothing at all");
        assert!(events.contains("RuntimeReady"), "Events were published");
        for secret in [&value, &rotated, &registry] {
            for (place, text) in [
                ("the operator log", &log),
                ("the runtime (status included)", &status),
                ("the events.k8s.io Events", &events),
                ("the core Events", &core_events),
                ("the ConfigMap", &config),
                ("the Deployment", &deployment),
            ] {
                assert!(
                    !text.contains(secret.as_str()),
                    "a Secret value is in {place}"
                );
            }
        }
        Ok(())
    })
    .await
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn steady_state_sends_no_write_even_after_a_restart() -> TestResult {
    with_operator("op-steady", &[PROGRESS_DEADLINE_ARG], async |h| {
        h.create_secret("openai-credentials", "api-key", "sk-steady")
            .await?;
        h.create_secret("ghcr-credentials", ".dockerconfigjson", "{}")
            .await?;
        // Every builder at work, and a second runtime blocked on a missing
        // Secret (a blocked runtime is a steady state too).
        let busy = h
            .create_runtime(minimal(
                "busy",
                json!({
                    "replicas": 2,
                    "imagePullSecrets": [{"name": "ghcr-credentials"}],
                    "provider": {"type": "openai", "model": "gpt-5",
                        "baseURL": "https://api.openai.com/v1",
                        "credentialsSecretRef": {"name": "openai-credentials", "key": "api-key"}},
                    "runtime": {"providerRequestTimeoutSeconds": 60, "shutdownDrainTimeoutSeconds": 45},
                    "service": {"type": "NodePort", "port": 8080},
                    "networkPolicy": {"enabled": true, "ingress": [
                        {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "clients"}}},
                    ]},
                    "autoscaling": {"enabled": true, "minReplicas": 2, "maxReplicas": 5},
                    "resources": {"requests": {"cpu": "1000m", "memory": "1024Mi"},
                                  "limits": {"cpu": "2", "memory": "2Gi"}},
                    "podMetadata": {"labels": {"team": "ai"}, "annotations": {"example.com/a": "b"}},
                    "scheduling": {"tolerations": [{"key": "dedicated", "operator": "Exists"}]},
                }),
            )?)
            .await?
            .name_any();
        let blocked = h
            .create_runtime(minimal(
                "blocked",
                json!({"imagePullSecrets": [{"name": "never-created"}]}),
            )?)
            .await?
            .name_any();
        h.wait_ready(&busy).await?;
        h.wait_condition(&blocked, "ConfigurationValid", "False", Some("SecretNotFound"), CONVERGE)
            .await?;
        h.wait_until_quiet(Duration::from_secs(2)).await?;

        // Quiet period, with reconciles provoked by changes that need no
        // write: someone annotates or labels owned objects. (Not a Deployment
        // annotation: that bumps the Deployment's generation, a real change
        // the status reports.)
        let mark = h.mark();
        let log_mark = h.operator.log_mark();
        let annotate = json!({"metadata": {"annotations": {"example.com/seen-by": "audit"}}});
        let label = json!({"metadata": {"labels": {"example.com/seen-by": "audit"}}});
        h.api::<ConfigMap>()
            .patch(&busy, &PatchParams::default(), &Patch::Merge(&annotate))
            .await?;
        h.api::<Service>()
            .patch(&busy, &PatchParams::default(), &Patch::Merge(&annotate))
            .await?;
        h.api::<Deployment>()
            .patch(&busy, &PatchParams::default(), &Patch::Merge(&label))
            .await?;
        h.wait_for_reconciles_of(&busy, 1, log_mark, PROMPT).await?;
        // Not a write, and not a read either: decided from the caches.
        let quiet = holds_for("no request", QUIET_IN_STEADY_STATE, async || {
            let requests = h.operator_requests_since(&mark).await?;
            Ok((!requests.is_empty()).then(|| describe_requests(&requests)))
        })
        .await;
        if let Err(e) = quiet {
            panic!("requests in a steady state: {e}; Events: {}", event_notes(h).await?);
        }

        // A restart reconciles everything again, and still writes nothing.
        let mark = h.mark();
        let log_mark = h.operator.log_mark();
        h.operator.restart().await?;
        h.wait_for_reconciles_of(&busy, 1, log_mark, PROMPT).await?;
        h.wait_for_reconciles_of(&blocked, 1, log_mark, PROMPT).await?;
        let quiet = holds_for("no write", QUIET_IN_STEADY_STATE, async || {
            let writes = h.operator_writes_since(&mark).await?;
            Ok((!writes.is_empty()).then(|| describe_requests(&writes)))
        })
        .await;
        if let Err(e) = quiet {
            panic!("writes after a restart: {e}; Events: {}", event_notes(h).await?);
        }
        Ok(())
    })
    .await
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn only_spec_changes_and_referenced_secrets_wake_the_operator() -> TestResult {
    with_operator("op-watch-filter", &[PROGRESS_DEADLINE_ARG], async |h| {
        h.create_secret("credentials", "api-key", "sk-filter").await?;
        let name = h
            .create_runtime(minimal(
                "filtered",
                json!({"provider": {"credentialsSecretRef": {"name": "credentials", "key": "api-key"}}}),
            )?)
            .await?
            .name_any();
        h.wait_ready(&name).await?;
        // Idle first: the Deployment controller's last status updates still
        // wake it (owned objects are watched unfiltered), without a write.
        h.wait_until_idle("credentials", Duration::from_secs(2))
            .await?;

        // The operator logs each reconcile: none may follow changes that are
        // not the spec's.
        let log_mark = h.operator.log_mark();
        let runtimes = h.runtimes();
        let touch = json!({"metadata": {"labels": {"example.com/touched": "yes"},
                                        "annotations": {"example.com/note": "hello"}}});
        runtimes
            .patch(&name, &PatchParams::default(), &Patch::Merge(&touch))
            .await?;
        h.create_secret("unrelated", "k", "v").await?;
        h.api::<Secret>()
            .patch("unrelated", &PatchParams::default(), &Patch::Merge(&touch))
            .await?;
        holds_for("no reconcile", Duration::from_secs(5), async || {
            let reconciles = h.reconciles_since(&name, log_mark);
            Ok((reconciles > 0).then(|| format!("the operator reconciled {reconciles} time(s)")))
        })
        .await?;

        // A status the operator did not write wakes it: it is repaired at
        // once, not at the resync.
        let endpoint = format!("http://{name}.{}.svc.cluster.local:9000", h.namespace());
        runtimes
            .patch_status(
                &name,
                &PatchParams::default(),
                &Patch::Merge(json!({"status": {"endpoint": "http://tampered"}})),
            )
            .await?;
        wait_for("the tampered endpoint to be repaired", PROMPT, async || {
            let rt = runtimes.get(&name).await?;
            let repaired = rt.status.and_then(|s| s.endpoint).as_deref() == Some(endpoint.as_str());
            Ok(repaired.then_some(()))
        })
        .await?;

        // A spec change wakes it.
        let log_mark = h.operator.log_mark();
        h.patch_spec(&name, json!({"replicas": 2})).await?;
        h.wait_for_reconciles_of(&name, 1, log_mark, PROMPT).await?;
        let rt = h.wait_ready(&name).await?;
        assert_eq!(
            rt.status.and_then(|s| s.endpoint).as_deref(),
            Some(endpoint.as_str())
        );
        Ok(())
    })
    .await
}

/// `kubectl auth can-i VERB RESOURCE [--subresource=S]` as the operator.
async fn operator_can(namespace: &str, verb: &str, resource: &str) -> Result<bool, BoxError> {
    let (resource, subresource) = match resource.split_once('/') {
        Some((r, s)) => (r, Some(s)),
        None => (resource, None),
    };
    let mut command = tokio::process::Command::new(kubectl_path());
    command
        .arg(format!(
            "--kubeconfig={}",
            admin_kubeconfig_path().display()
        ))
        .args(["auth", "can-i", verb, resource])
        .arg(format!("--as={OPERATOR_USER}"))
        .arg(format!("--namespace={namespace}"));
    if let Some(subresource) = subresource {
        command.arg(format!("--subresource={subresource}"));
    }
    let output = command.output().await?;
    let answer = String::from_utf8_lossy(&output.stdout).trim().to_string();
    match answer.as_str() {
        "yes" => Ok(true),
        "no" => Ok(false),
        _ => Err(format!(
            "kubectl auth can-i {verb} {resource}: {answer} {}",
            String::from_utf8_lossy(&output.stderr)
        )
        .into()),
    }
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn the_operator_has_exactly_the_permissions_it_needs() -> TestResult {
    require_cluster();
    install(&admin_client().await?).await?;
    let ns = TestNamespace::create("op-rbac").await?;
    let checks: &[(&str, &str, bool)] = &[
        // No Pod access at all.
        ("get", "pods", false),
        ("list", "pods", false),
        ("watch", "pods", false),
        ("create", "pods", false),
        ("delete", "pods", false),
        ("get", "pods/log", false),
        ("create", "pods/exec", false),
        // Secrets: read (metadata-only in practice), never write.
        ("get", "secrets", true),
        ("list", "secrets", true),
        ("watch", "secrets", true),
        ("create", "secrets", false),
        ("update", "secrets", false),
        ("patch", "secrets", false),
        ("delete", "secrets", false),
        ("deletecollection", "secrets", false),
        // Runtimes: read; status written; no finalizers, no spec writes.
        ("get", "trussiumruntimes.runtime.trussium.io", true),
        ("list", "trussiumruntimes.runtime.trussium.io", true),
        ("watch", "trussiumruntimes.runtime.trussium.io", true),
        ("patch", "trussiumruntimes.runtime.trussium.io/status", true),
        (
            "update",
            "trussiumruntimes.runtime.trussium.io/status",
            true,
        ),
        (
            "update",
            "trussiumruntimes.runtime.trussium.io/finalizers",
            false,
        ),
        (
            "patch",
            "trussiumruntimes.runtime.trussium.io/finalizers",
            false,
        ),
        ("update", "trussiumruntimes.runtime.trussium.io", false),
        ("patch", "trussiumruntimes.runtime.trussium.io", false),
        ("create", "trussiumruntimes.runtime.trussium.io", false),
        ("delete", "trussiumruntimes.runtime.trussium.io", false),
        // Events: events.k8s.io only.
        ("create", "events.events.k8s.io", true),
        ("patch", "events.events.k8s.io", true),
        ("create", "events", false),
        // Owned kinds: written by server-side apply (patch); garbage
        // collection deletes them, except the optional kinds.
        ("create", "deployments.apps", true),
        ("patch", "deployments.apps", true),
        ("update", "deployments.apps", false),
        ("delete", "deployments.apps", false),
        ("patch", "deployments.apps/scale", false),
        ("patch", "configmaps", true),
        ("delete", "configmaps", false),
        ("patch", "services", true),
        ("delete", "services", false),
        ("patch", "serviceaccounts", true),
        ("create", "serviceaccounts/token", false),
        ("patch", "poddisruptionbudgets.policy", true),
        ("patch", "networkpolicies.networking.k8s.io", true),
        ("delete", "networkpolicies.networking.k8s.io", true),
        ("patch", "horizontalpodautoscalers.autoscaling", true),
        ("delete", "horizontalpodautoscalers.autoscaling", true),
        // Nothing that escalates.
        ("create", "roles.rbac.authorization.k8s.io", false),
        ("create", "rolebindings.rbac.authorization.k8s.io", false),
    ];
    let mut wrong = Vec::new();
    for &(verb, resource, expected) in checks {
        if operator_can(&ns.name, verb, resource).await? != expected {
            wrong.push(format!(
                "{} {verb} {resource}",
                if expected { "cannot" } else { "can" }
            ));
        }
    }
    ns.delete().await;
    assert!(wrong.is_empty(), "the operator's RBAC is off: {wrong:?}");
    Ok(())
}
