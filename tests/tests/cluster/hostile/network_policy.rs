//! Fail closed: with `networkPolicy.enabled`, no runtime pod may serve
//! before its NetworkPolicy exists. While the API server refuses the policy
//! (here an admission policy denies it) or someone else's NetworkPolicy
//! holds its name, the Deployment is neither created nor changed, and the
//! runtime stalls naming the policy and why; once the obstacle is gone, the
//! next reconcile applies the policy and then the Deployment.

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::networking::v1::NetworkPolicy;
use kube::ResourceExt;
use kube::api::{DeleteParams, PostParams};
use serde_json::{Value, json};
use trussium_api::condition_type;
use trussium_e2e::{
    BoxError, CONVERGE, Harness, Mark, TestResult, condition, ensure, minimal, with_operator,
};

use super::failures::Denial;

/// `spec.networkPolicy`, enabled (the API requires a source).
fn enabled() -> Value {
    json!({"networkPolicy": {
        "enabled": true,
        "ingress": [{"namespaceSelector": {"matchLabels": {
            "kubernetes.io/metadata.name": "clients",
        }}}],
    }})
}

fn policy(name: &str) -> Value {
    json!({
        "apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy",
        "metadata": {"name": name},
        "spec": {"podSelector": {}},
    })
}

/// Waits for Stalled=True with `reason` and checks that it names the
/// policy and says the Deployment is held back.
async fn stalled(fx: &Harness, name: &str, reason: &str, why: &str) -> TestResult {
    let rt = fx
        .wait_condition(
            name,
            condition_type::STALLED,
            "True",
            Some(reason),
            CONVERGE,
        )
        .await?;
    let message = &condition(&rt, condition_type::STALLED)
        .ok_or("no Stalled")?
        .message;
    for said in [
        &format!("NetworkPolicy \"{name}\""),
        why,
        "The Deployment is not created or changed until the policy applies.",
    ] {
        ensure(
            message.contains(said),
            format!("Stalled does not say {said:?}: {message}"),
        )?;
    }
    let degraded = condition(&rt, condition_type::DEGRADED).ok_or("no Degraded")?;
    ensure(
        (degraded.status.as_str(), degraded.reason.as_str()) == ("True", "ReconciliationFailed"),
        format!("Degraded: {}/{}", degraded.status, degraded.reason),
    )?;
    Ok(())
}

/// The operator sent no Deployment write in the namespace since `mark`.
async fn no_deployment_written(fx: &Harness, mark: &Mark) -> TestResult {
    let writes: Vec<String> = fx
        .operator_writes(mark)
        .await?
        .into_iter()
        .filter(|w| w.contains(" deployments "))
        .collect();
    ensure(
        writes.is_empty(),
        format!("the Deployment was written while its policy failed: {writes:?}"),
    )?;
    Ok(())
}

async fn owned_policy(fx: &Harness, name: &str) -> Result<NetworkPolicy, BoxError> {
    let policy = fx.api::<NetworkPolicy>().get(name).await?;
    ensure(
        policy
            .owner_references()
            .iter()
            .any(|o| o.kind == "TrussiumRuntime" && o.controller == Some(true)),
        format!("NetworkPolicy {name} is not the runtime's"),
    )?;
    Ok(policy)
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn a_refused_policy_holds_the_deployment_back() -> TestResult {
    with_operator("hostile-policy-refused", &[], async |fx: &mut Harness| {
        let ns = fx.namespace().to_string();
        let denial =
            Denial::install(&ns, "networking.k8s.io", "networkpolicies", policy("probe")).await?;
        let start = fx.mark();
        fx.create_runtime(minimal("x", enabled())?).await?;
        stalled(
            fx,
            "x",
            "NetworkPolicyRefused",
            "networkpolicies are frozen",
        )
        .await?;
        ensure(
            fx.api::<Deployment>().get_opt("x").await?.is_none(),
            "a Deployment exists without its NetworkPolicy",
        )?;
        no_deployment_written(fx, &start).await?;

        // The policy admitted again and the spec changed: the policy, then
        // the Deployment, in the same reconcile.
        denial.remove(&ns, policy("probe")).await?;
        fx.set_replicas("x", 2).await?;
        fx.wait_ready("x").await?;
        owned_policy(fx, "x").await?;
        Ok(())
    })
    .await
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn a_foreign_policy_under_the_name_holds_the_deployment_back() -> TestResult {
    with_operator("hostile-policy-foreign", &[], async |fx: &mut Harness| {
        let policies = fx.api::<NetworkPolicy>();
        let foreign =
            |name| -> Result<NetworkPolicy, BoxError> { Ok(serde_json::from_value(policy(name))?) };

        // A new runtime: nothing serves.
        policies
            .create(&PostParams::default(), &foreign("y")?)
            .await?;
        let start = fx.mark();
        fx.create_runtime(minimal("y", enabled())?).await?;
        stalled(
            fx,
            "y",
            "NetworkPolicyConflict",
            "is not controlled by this TrussiumRuntime",
        )
        .await?;
        ensure(
            fx.api::<Deployment>().get_opt("y").await?.is_none(),
            "a Deployment exists without its NetworkPolicy",
        )?;
        no_deployment_written(fx, &start).await?;

        // A runtime that serves already: its Deployment stays as it is,
        // neither scaled down nor changed (the new replica count waits too).
        fx.create_runtime(minimal("x", json!({}))?).await?;
        fx.wait_ready("x").await?;
        let before = fx.api::<Deployment>().get("x").await?;
        policies
            .create(&PostParams::default(), &foreign("x")?)
            .await?;
        let foreign_version = policies.get("x").await?.resource_version();
        let mark = fx.mark();
        let mut change = enabled();
        change["replicas"] = json!(2);
        fx.patch_spec("x", change).await?;
        stalled(
            fx,
            "x",
            "NetworkPolicyConflict",
            "is not controlled by this TrussiumRuntime",
        )
        .await?;
        no_deployment_written(fx, &mark).await?;
        let after = fx.api::<Deployment>().get("x").await?;
        ensure(
            after.metadata.generation == before.metadata.generation
                && after.spec.as_ref().and_then(|s| s.replicas) == Some(1),
            format!(
                "the Deployment changed: generation {:?} -> {:?}, replicas {:?}",
                before.metadata.generation,
                after.metadata.generation,
                after.spec.as_ref().and_then(|s| s.replicas)
            ),
        )?;
        ensure(
            policies.get("x").await?.resource_version() == foreign_version,
            "the foreign NetworkPolicy was changed",
        )?;

        // The foreign policies removed and the specs changed: each policy,
        // then its Deployment.
        for name in ["x", "y"] {
            policies.delete(name, &DeleteParams::default()).await?;
        }
        fx.set_replicas("y", 2).await?;
        fx.set_replicas("x", 3).await?;
        for name in ["x", "y"] {
            fx.wait_ready(name).await?;
            owned_policy(fx, name).await?;
        }

        // And back: disabling the policy removes it; the Deployment stays.
        fx.patch_spec("x", json!({"networkPolicy": {"enabled": false}}))
            .await?;
        fx.wait_gone::<NetworkPolicy>("NetworkPolicy", "x", CONVERGE)
            .await?;
        fx.wait_ready("x").await?;
        Ok(())
    })
    .await
}
