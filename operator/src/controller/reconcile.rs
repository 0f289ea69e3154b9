//! One reconcile, top to bottom: read, check references, apply, report.

use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::autoscaling::v2::HorizontalPodAutoscaler;
use k8s_openapi::api::core::v1::{ConfigMap, Service, ServiceAccount};
use k8s_openapi::api::networking::v1::NetworkPolicy;
use k8s_openapi::api::policy::v1::PodDisruptionBudget;
use kube::runtime::controller::Action;
use kube::{Api, ResourceExt};
use trussium_api::TrussiumRuntime;

use super::apply::{ensure, ensure_fetched, remove};
use super::context::Context;
use super::dereference::check_references;
use super::error::{Error, one_line};
use super::report::report;
use crate::references::ReferenceCheck;
use crate::resources::{BuildContext, DesiredResources, build};

/// A resync now and then catches anything a watch missed; it costs reads only.
const RESYNC: Duration = Duration::from_secs(300);
/// Retry sooner while something is failing.
const RETRY: Duration = Duration::from_secs(15);
/// Look again while a runtime is not Ready yet and the watches have been
/// failing (see `Context::watches_troubled`): a rollout must not wait for
/// the resync to be reported.
const CONVERGING: Duration = Duration::from_secs(30);

pub async fn reconcile(trigger: Arc<TrussiumRuntime>, ctx: Arc<Context>) -> Result<Action, Error> {
    let namespace = trigger.namespace().ok_or(Error::NoNamespace)?;
    let name = trigger.name_any();
    let runtimes: Api<TrussiumRuntime> = Api::namespaced(ctx.client.clone(), &namespace);
    // Read the runtime fresh: the cached copy may predate our own last status
    // write, and Events are derived from the stored status.
    let Some(rt) = runtimes
        .get_opt(&name)
        .await
        .map_err(|source| Error::Read {
            what: format!("TrussiumRuntime {namespace}/{name}"),
            source,
        })?
    else {
        return Ok(Action::await_change());
    };
    // Being deleted (a foreground deletion keeps it visible meanwhile): the
    // garbage collector is removing the owned objects; applying now would
    // only rebuild what it removes.
    if rt.metadata.deletion_timestamp.is_some() {
        return Ok(Action::await_change());
    }

    let references = check_references(&ctx.client, &rt, &namespace).await;
    let deployments: Api<Deployment> = Api::namespaced(ctx.client.clone(), &namespace);
    let observed = deployments
        .get_opt(&name)
        .await
        .map_err(|source| Error::Read {
            what: format!("Deployment {namespace}/{name}"),
            source,
        })?;

    // A missing Secret blocks every write: nothing is created or updated until
    // the reference resolves (the Secret watch brings us back then).
    let (deployment, reconcile_error) = match &references {
        ReferenceCheck::Resolved { versions } => {
            let build_ctx = BuildContext {
                config: &ctx.config,
                secret_versions: versions,
                observed_replicas: observed.as_ref().and_then(|d| d.spec.as_ref()?.replicas),
            };
            match build(&rt, &build_ctx) {
                Ok(desired) => {
                    match apply_all(&ctx, &rt, &namespace, desired, observed.clone()).await {
                        Ok(applied) => (Some(applied), None),
                        Err(err) => {
                            let message = one_line(&err);
                            tracing::warn!(%namespace, %name, error = %message, "applying failed");
                            (observed, Some(message))
                        }
                    }
                }
                Err(err) => (observed, Some(err.to_string())),
            }
        }
        ReferenceCheck::Missing { .. } | ReferenceCheck::Failed { .. } => (observed, None),
    };

    let settled = report(
        &ctx,
        &runtimes,
        &rt,
        deployment.as_ref(),
        &references,
        reconcile_error.as_deref(),
    )
    .await?;

    let failing = reconcile_error.is_some() || matches!(references, ReferenceCheck::Failed { .. });
    Ok(Action::requeue(if failing {
        RETRY
    } else if !settled && ctx.watches_troubled() {
        CONVERGING
    } else {
        RESYNC
    }))
}

/// Applies every owned object in a fixed order and removes the optional ones
/// that are no longer wanted. Returns the Deployment as stored.
async fn apply_all(
    ctx: &Context,
    rt: &TrussiumRuntime,
    namespace: &str,
    desired: DesiredResources,
    observed_deployment: Option<Deployment>,
) -> Result<Deployment, kube::Error> {
    // Destructured without `..`: a new owned kind that is never applied does
    // not compile.
    let DesiredResources {
        config_map,
        service_account,
        service,
        deployment,
        pod_disruption_budget,
        network_policy,
        horizontal_pod_autoscaler,
    } = desired;
    let client = &ctx.client;
    let name = rt.name_any();

    ensure_fetched(
        &Api::<ConfigMap>::namespaced(client.clone(), namespace),
        &config_map,
    )
    .await?;
    ensure_fetched(
        &Api::<ServiceAccount>::namespaced(client.clone(), namespace),
        &service_account,
    )
    .await?;
    ensure_fetched(
        &Api::<Service>::namespaced(client.clone(), namespace),
        &service,
    )
    .await?;
    let deployment = ensure(
        &Api::<Deployment>::namespaced(client.clone(), namespace),
        &deployment,
        observed_deployment,
    )
    .await?;
    ensure_fetched(
        &Api::<PodDisruptionBudget>::namespaced(client.clone(), namespace),
        &pod_disruption_budget,
    )
    .await?;

    let policies = Api::<NetworkPolicy>::namespaced(client.clone(), namespace);
    match network_policy {
        Some(policy) => ensure_fetched(&policies, &policy).await.map(drop)?,
        None => remove(&policies, &name, rt).await?,
    }
    let autoscalers = Api::<HorizontalPodAutoscaler>::namespaced(client.clone(), namespace);
    match horizontal_pod_autoscaler {
        Some(hpa) => ensure_fetched(&autoscalers, &hpa).await.map(drop)?,
        None => remove(&autoscalers, &name, rt).await?,
    }
    Ok(deployment)
}
