//! Failures of the operator's own writes: a refusal the API server will
//! repeat stalls the runtime (Stalled=True, kstatus: Failed) with the
//! object, the field and the reason, one Warning, and no retry until the
//! spec changes; a failure that may pass is retried, less and less often.
//!
//! Both are made real ways, whatever the CRD accepts: an admission policy
//! that denies the runtime's Deployment (422, with the field it names), and
//! a validating webhook that cannot be reached (the API server fails the
//! request, 500).

use std::time::Duration;

use k8s_openapi::api::admissionregistration::v1::{
    ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding, ValidatingWebhookConfiguration,
};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::Pod;
use kube::api::{DeleteParams, ListParams, PostParams};
use kube::{Api, Client};
use serde_json::{Value, json};
use trussium_api::condition_type;
use trussium_e2e::{
    BoxError, CONVERGE, Harness, TestResult, admin_client, condition, ensure, minimal, wait_for,
    with_operator,
};

const W: &str = "Warning";
const N: &str = "Normal";

/// An admission policy that denies every create and update of `resource`
/// (`group`, "" for the core group) in one namespace: a refusal the API
/// server repeats for as long as it exists (422, Invalid; it names no field).
pub struct Denial {
    client: Client,
    name: String,
}

impl Denial {
    /// Installs the policy and its binding and waits until the API server
    /// enforces it (a dry-run create of `probe` is refused).
    pub async fn install(
        namespace: &str,
        group: &str,
        resource: &str,
        probe: Value,
    ) -> Result<Denial, BoxError> {
        let client = admin_client().await?;
        let name = format!("{namespace}-deny-{resource}");
        let policy: ValidatingAdmissionPolicy = serde_json::from_value(json!({
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicy",
            "metadata": {"name": name},
            "spec": {
                "failurePolicy": "Fail",
                "matchConstraints": {"resourceRules": [{
                    "apiGroups": [group], "apiVersions": ["*"],
                    "operations": ["CREATE", "UPDATE"], "resources": [resource],
                }]},
                "validations": [{
                    "expression": "false",
                    "message": format!("{resource} are frozen in this namespace"),
                    "reason": "Invalid",
                }],
            },
        }))?;
        let binding: ValidatingAdmissionPolicyBinding = serde_json::from_value(json!({
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicyBinding",
            "metadata": {"name": name},
            "spec": {
                "policyName": name,
                "validationActions": ["Deny"],
                "matchResources": {"namespaceSelector": {"matchLabels": {
                    "kubernetes.io/metadata.name": namespace,
                }}},
            },
        }))?;
        Api::<ValidatingAdmissionPolicy>::all(client.clone())
            .create(&PostParams::default(), &policy)
            .await?;
        let denial = Denial { client, name };
        Api::<ValidatingAdmissionPolicyBinding>::all(denial.client.clone())
            .create(&PostParams::default(), &binding)
            .await?;
        denial.wait_enforced(namespace, probe, true).await?;
        Ok(denial)
    }

    /// Removes the policy and waits until `probe` is admitted again.
    pub async fn remove(self, namespace: &str, probe: Value) -> TestResult {
        self.delete().await?;
        self.wait_enforced(namespace, probe, false).await
    }

    async fn delete(&self) -> TestResult {
        let bindings = Api::<ValidatingAdmissionPolicyBinding>::all(self.client.clone());
        gone(
            bindings
                .delete(&self.name, &DeleteParams::default())
                .await
                .map(drop),
        )?;
        let policies = Api::<ValidatingAdmissionPolicy>::all(self.client.clone());
        gone(
            policies
                .delete(&self.name, &DeleteParams::default())
                .await
                .map(drop),
        )?;
        Ok(())
    }

    async fn wait_enforced(&self, namespace: &str, probe: Value, denied: bool) -> TestResult {
        let api = kube::Api::<kube::core::DynamicObject>::namespaced_with(
            self.client.clone(),
            namespace,
            &dynamic_type(&probe)?,
        );
        let object: kube::core::DynamicObject = serde_json::from_value(probe)?;
        let dry_run = PostParams {
            dry_run: true,
            ..PostParams::default()
        };
        wait_for(
            "the admission policy to take effect",
            CONVERGE,
            async || {
                let refused = match api.create(&dry_run, &object).await {
                    Ok(_) => false,
                    Err(kube::Error::Api(s)) if s.code == 422 => true,
                    Err(err) => return Err(err.into()),
                };
                Ok((refused == denied).then_some(()))
            },
        )
        .await?;
        Ok(())
    }
}

impl Drop for Denial {
    /// A failed test must not leave the policy behind (it is cluster-wide,
    /// though bound to one namespace).
    fn drop(&mut self) {
        let client = self.client.clone();
        let name = self.name.clone();
        tokio::spawn(async move {
            let _ = Api::<ValidatingAdmissionPolicyBinding>::all(client.clone())
                .delete(&name, &DeleteParams::default())
                .await;
            let _ = Api::<ValidatingAdmissionPolicy>::all(client)
                .delete(&name, &DeleteParams::default())
                .await;
        });
    }
}

/// Deleted, or gone already.
fn gone(deleted: Result<(), kube::Error>) -> TestResult {
    match deleted {
        Err(kube::Error::Api(s)) if s.code == 404 => Ok(()),
        other => Ok(other?),
    }
}

fn dynamic_type(probe: &Value) -> Result<kube::core::ApiResource, BoxError> {
    let api_version = probe["apiVersion"]
        .as_str()
        .ok_or("probe without apiVersion")?;
    let kind = probe["kind"].as_str().ok_or("probe without kind")?;
    let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
    let gvk = kube::core::GroupVersionKind::gvk(group, version, kind);
    Ok(kube::core::ApiResource::from_gvk(&gvk))
}

/// A Deployment the probe creates (dry run) to see whether the policy holds.
pub fn deployment_probe() -> Value {
    json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "probe"},
        "spec": {
            "selector": {"matchLabels": {"app": "probe"}},
            "template": {
                "metadata": {"labels": {"app": "probe"}},
                "spec": {"containers": [{"name": "c", "image": "busybox"}]},
            },
        },
    })
}

/// How many times the operator sent its Deployment (create or apply) since
/// `mark`, answered or refused.
async fn deployment_writes(fx: &Harness, mark: &trussium_e2e::Mark) -> Result<usize, BoxError> {
    Ok(fx
        .operator_requests_since(mark)
        .await?
        .iter()
        .filter(|e| e.verb == "patch" && e.resource() == "deployments")
        .count())
}

/// When the operator sent its Deployment since `mark`, in seconds since the
/// first time; sends less than a second apart count once.
async fn deployment_attempts(
    fx: &Harness,
    mark: &trussium_e2e::Mark,
) -> Result<Vec<f64>, BoxError> {
    let mut seconds = Vec::new();
    for event in fx.operator_requests_since(mark).await? {
        if event.verb != "patch" || event.resource() != "deployments" {
            continue;
        }
        let at = event
            .stage_timestamp
            .as_deref()
            .ok_or("no stageTimestamp")?;
        let at: k8s_openapi::jiff::Timestamp = at.parse()?;
        seconds.push(at.as_millisecond() as f64 / 1000.0);
    }
    seconds.sort_by(f64::total_cmp);
    let first = seconds.first().copied().unwrap_or_default();
    let mut attempts = Vec::new();
    let mut previous = None;
    for at in seconds {
        if previous.is_none_or(|previous| at - previous >= 1.0) {
            attempts.push(at - first);
        }
        previous = Some(at);
    }
    Ok(attempts)
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn an_apply_the_api_server_refuses_stalls_once_and_is_not_retried() -> TestResult {
    with_operator("hostile-refused", &[], async |fx: &mut Harness| {
        let ns = fx.namespace().to_string();
        let denial = Denial::install(&ns, "apps", "deployments", deployment_probe()).await?;
        fx.create_runtime(minimal("x", json!({}))?).await?;

        let rt = fx
            .wait_condition(
                "x",
                condition_type::STALLED,
                "True",
                Some("ApplyRefused"),
                CONVERGE,
            )
            .await?;
        let stalled = condition(&rt, condition_type::STALLED).ok_or("no Stalled")?;
        for said in [
            "The API server refuses Deployment \"x\"",
            "deployments are frozen in this namespace",
            "The operator applies it again when the runtime changes.",
        ] {
            ensure(
                stalled.message.contains(said),
                format!("Stalled does not say {said:?}: {}", stalled.message),
            )?;
        }
        for (type_, status, reason) in [
            (condition_type::DEGRADED, "True", "ReconciliationFailed"),
            (condition_type::READY, "False", "ReconciliationFailed"),
            (condition_type::PROGRESSING, "False", "ReconciliationFailed"),
        ] {
            let c = condition(&rt, type_).ok_or(type_)?;
            ensure(
                (c.status.as_str(), c.reason.as_str()) == (status, reason),
                format!("{type_}: {}/{} ({})", c.status, c.reason, c.message),
            )?;
        }
        fx.expect_events(&rt, &[(W, "ReconciliationFailed")])
            .await?;

        // Not retried: no apply of the Deployment for longer than two of the
        // old 10-second retries, and nothing else written either.
        let mark = fx.mark();
        tokio::time::sleep(Duration::from_secs(25)).await;
        let writes = fx.operator_writes(&mark).await?;
        ensure(
            writes.is_empty(),
            format!("a stalled runtime was written to: {writes:?}"),
        )?;
        fx.events_stay(&rt, &[(W, "ReconciliationFailed")]).await?;

        // The obstacle removed and the spec changed: applied at once.
        denial.remove(&ns, deployment_probe()).await?;
        fx.set_replicas("x", 2).await?;
        let rt = fx.wait_ready("x").await?;
        let stalled = condition(&rt, condition_type::STALLED).ok_or("no Stalled")?;
        ensure(
            (stalled.status.as_str(), stalled.reason.as_str()) == ("False", "AsExpected"),
            format!(
                "Stalled after recovery: {}/{}",
                stalled.status, stalled.reason
            ),
        )?;
        fx.api::<Deployment>().get("x").await?;
        fx.expect_events(
            &rt,
            &[
                (W, "ReconciliationFailed"),
                (N, "RuntimeProgressing"),
                (N, "RuntimeRecovered"),
                (N, "RuntimeReady"),
            ],
        )
        .await?;
        Ok(())
    })
    .await
}

/// A stall is remembered: the Deployment's status changing (its pods
/// deleted and replaced, as a crash-looping runtime's would be) reconciles
/// the runtime, and the refused write is not sent again.
#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn a_stalled_runtime_does_not_resend_the_refused_write_when_its_deployment_changes()
-> TestResult {
    with_operator("hostile-remembered", &[], async |fx: &mut Harness| {
        let ns = fx.namespace().to_string();
        fx.create_runtime(minimal("x", json!({}))?).await?;
        fx.wait_ready("x").await?;
        let denial = Denial::install(&ns, "apps", "deployments", deployment_probe()).await?;
        fx.set_replicas("x", 2).await?;
        fx.wait_condition(
            "x",
            condition_type::STALLED,
            "True",
            Some("ApplyRefused"),
            CONVERGE,
        )
        .await?;

        let mark = fx.mark();
        let pods = fx.api::<Pod>();
        let selector = ListParams::default().labels("app.kubernetes.io/instance=x");
        for _ in 0..3 {
            pods.delete_collection(&DeleteParams::default(), &selector)
                .await?;
            tokio::time::sleep(Duration::from_secs(5)).await;
        }
        // The changes did reconcile it (else this would prove nothing) ...
        fx.wait_for_reconciles_of("x", 1, mark.log, CONVERGE)
            .await?;
        // ... and the refused write was not sent again.
        let writes = deployment_writes(fx, &mark).await?;
        ensure(
            writes == 0,
            format!("the refused Deployment was sent {writes} more time(s)"),
        )?;

        // The spec changed once the obstacle is gone: applied at once.
        denial.remove(&ns, deployment_probe()).await?;
        fx.set_replicas("x", 3).await?;
        fx.wait_ready("x").await?;
        Ok(())
    })
    .await
}

/// A validating webhook for Deployments in one namespace that nothing
/// answers: the API server fails every such write (500, "failed calling
/// webhook"), a failure of the server, not of the object.
struct DeadWebhook {
    client: Client,
    name: String,
}

impl DeadWebhook {
    async fn install(namespace: &str) -> Result<DeadWebhook, BoxError> {
        let client = admin_client().await?;
        let name = format!("{namespace}-dead-webhook");
        let config: ValidatingWebhookConfiguration = serde_json::from_value(json!({
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingWebhookConfiguration",
            "metadata": {"name": name},
            "webhooks": [{
                "name": "dead.e2e.trussium.io",
                "clientConfig": {"url": "https://127.0.0.1:1/validate"},
                "rules": [{
                    "apiGroups": ["apps"], "apiVersions": ["*"],
                    "operations": ["CREATE", "UPDATE"], "resources": ["deployments"],
                }],
                "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": namespace}},
                "failurePolicy": "Fail",
                "sideEffects": "None",
                "admissionReviewVersions": ["v1"],
                "timeoutSeconds": 1,
            }],
        }))?;
        Api::<ValidatingWebhookConfiguration>::all(client.clone())
            .create(&PostParams::default(), &config)
            .await?;
        Ok(DeadWebhook { client, name })
    }

    async fn remove(&self) -> TestResult {
        let configs = Api::<ValidatingWebhookConfiguration>::all(self.client.clone());
        gone(
            configs
                .delete(&self.name, &DeleteParams::default())
                .await
                .map(drop),
        )
    }
}

impl Drop for DeadWebhook {
    fn drop(&mut self) {
        let client = self.client.clone();
        let name = self.name.clone();
        tokio::spawn(async move {
            let _ = Api::<ValidatingWebhookConfiguration>::all(client)
                .delete(&name, &DeleteParams::default())
                .await;
        });
    }
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn a_failure_that_may_pass_is_retried_less_and_less_often() -> TestResult {
    with_operator("hostile-transient", &[], async |fx: &mut Harness| {
        let ns = fx.namespace().to_string();
        let webhook = DeadWebhook::install(&ns).await?;
        let first = fx.mark();
        fx.create_runtime(minimal("x", json!({}))?).await?;

        // Reported once it lasted until the first retry (10 s), as a
        // failure the operator retries: not stalled.
        let rt = fx
            .wait_condition(
                "x",
                condition_type::DEGRADED,
                "True",
                Some("ReconciliationFailed"),
                CONVERGE,
            )
            .await?;
        let stalled = condition(&rt, condition_type::STALLED).ok_or("no Stalled")?;
        ensure(
            (stalled.status.as_str(), stalled.reason.as_str()) == ("False", "Retrying"),
            format!(
                "Stalled: {}/{} ({})",
                stalled.status, stalled.reason, stalled.message
            ),
        )?;
        ensure(
            stalled.message.contains("failed calling webhook"),
            format!("Stalled does not say why: {}", stalled.message),
        )?;
        fx.expect_events(&rt, &[(W, "ReconciliationFailed")])
            .await?;

        // Then 10 s, 20 s, 40 s ...: the gaps between attempts (from the
        // audit log; attempts a second apart are one, since any trigger
        // may add a reconcile) never shrink below the first retry's and
        // grow. A count in a window would depend on those triggers.
        tokio::time::sleep(Duration::from_secs(45)).await;
        let attempts = deployment_attempts(fx, &first).await?;
        let gaps: Vec<f64> = attempts.windows(2).map(|w| w[1] - w[0]).collect();
        ensure(
            gaps.len() >= 2,
            format!("it does not retry: attempts at {attempts:?} s"),
        )?;
        ensure(
            gaps.iter().all(|gap| *gap >= 9.0)
                && gaps.windows(2).all(|w| w[1] >= w[0] - 1.0)
                && gaps.iter().any(|gap| *gap >= 19.0),
            format!("the waits between attempts do not grow from 10 s: {gaps:?} s"),
        )?;
        fx.events_stay(&rt, &[(W, "ReconciliationFailed")]).await?;

        // The webhook gone and the spec changed: applied at once.
        webhook.remove().await?;
        fx.set_replicas("x", 2).await?;
        fx.wait_ready("x").await?;
        Ok(())
    })
    .await
}
