//! One reconcile, top to bottom: read the caches, check references, apply,
//! report. Nothing is read from the API server here (see [`super::cache`]),
//! except Secret metadata while the Secret watch is refused.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::Secret;
use kube::runtime::controller::Action;
use kube::{Api, ResourceExt};
use trussium_api::TrussiumRuntime;

use super::apply::{ensure, remove};
use super::context::Context;
use super::error::{Error, one_line};
use super::refusals::retried_before_reporting;
use super::report::report;
use super::terminating::{Known, refused_for_namespace_deletion};
use super::{RETRY, lock};
use crate::references::{ReferenceCheck, check_references, referenced_secrets};
use crate::resources::{BuildContext, DesiredResources, build};

/// What the writes of one reconcile came to.
enum Outcome {
    /// Every owned object is as desired; the Deployment as it now is.
    Applied(Arc<Deployment>),
    /// Nothing was written: a referenced Secret is missing.
    Blocked(Option<Arc<Deployment>>),
    /// Building or applying failed; the Deployment as last seen, and why.
    Failed(Option<Arc<Deployment>>, String),
}

impl Outcome {
    fn deployment(&self) -> Option<&Deployment> {
        match self {
            Outcome::Applied(d) => Some(d),
            Outcome::Blocked(d) | Outcome::Failed(d, _) => d.as_deref(),
        }
    }

    fn error(&self) -> Option<&str> {
        match self {
            Outcome::Failed(_, message) => Some(message),
            Outcome::Applied(_) | Outcome::Blocked(_) => None,
        }
    }
}

/// Reconciles the runtime `trigger` names. Cancel-safe: dropped at any
/// await (its deadline, see `gate`), it leaves nothing half-done that a
/// retry would not finish: every write is idempotent, Events are named
/// after the stored status, and a status write that may have been made is
/// remembered as unsure.
pub async fn reconcile(trigger: Arc<TrussiumRuntime>, ctx: Arc<Context>) -> Result<Action, Error> {
    let caches = &ctx.caches;
    let namespace = trigger.namespace().ok_or(Error::NoNamespace)?;
    let name = trigger.name_any();
    // Not the trigger itself: the cache may not show our own last status
    // write yet, and Events are derived from the stored status.
    let Some(rt) = caches.runtimes.get(&namespace, &name) else {
        ctx.unsure.clear(&namespace, &name);
        caches.own.forget(&namespace, &name);
        return Ok(Action::await_change());
    };
    // Being deleted (a foreground deletion keeps it visible meanwhile): the
    // garbage collector is removing the owned objects; applying now would
    // only rebuild what it removes.
    if rt.metadata.deletion_timestamp.is_some() {
        return Ok(Action::await_change());
    }
    // Its namespace is being deleted: the same, and nothing it would write
    // could be created there (see `terminating`).
    if ctx.terminating.holds(&rt.uid().unwrap_or_default()) {
        return Ok(Action::await_change());
    }

    let references = check_secrets(&ctx, &rt, &namespace).await;
    let observed = caches.deployments.get(&namespace, &name);

    // A missing Secret blocks every write: nothing is created or updated until
    // the reference resolves (the Secret watch brings us back then).
    let outcome = match &references {
        ReferenceCheck::Resolved { versions } => {
            let build_ctx = BuildContext {
                config: &ctx.config,
                secret_versions: versions,
                observed_replicas: observed.as_ref().and_then(|d| d.spec.as_ref()?.replicas),
            };
            match build(&rt, &build_ctx) {
                Ok(desired) => match apply_all(&ctx, &rt, &namespace, desired).await {
                    Ok(applied) => {
                        ctx.refusals.clear(&namespace, &name);
                        Outcome::Applied(applied)
                    }
                    // No answer at all: the API server is away (restarting).
                    // Nothing is wrong with the runtime; try again, and
                    // report nothing (a restart must not read as a failure).
                    Err(err) if !matches!(err, kube::Error::Api(_)) => {
                        return Err(Error::Unanswered(err));
                    }
                    Err(err) if refused_for_namespace_deletion(&err) => {
                        return Ok(let_go(&ctx, &rt));
                    }
                    // Refused, or the server failed: reported once that has
                    // lasted until the retry (see `refusals`: a restarted
                    // API server refuses and fails for a moment).
                    Err(kube::Error::Api(status))
                        if retried_before_reporting(status.code)
                            && !ctx.refusals.lasted(&namespace, &name) =>
                    {
                        return Err(Error::FailedOnce(format!(
                            "{} ({})",
                            status.message, status.code
                        )));
                    }
                    Err(err) => {
                        let message = one_line(&err);
                        tracing::warn!(%namespace, %name, error = %message, "applying failed");
                        Outcome::Failed(observed, message)
                    }
                },
                Err(err) => Outcome::Failed(observed, err.to_string()),
            }
        }
        ReferenceCheck::Missing { .. } | ReferenceCheck::Failed { .. } => {
            Outcome::Blocked(observed)
        }
    };

    let runtimes: Api<TrussiumRuntime> = Api::namespaced(ctx.client.clone(), &namespace);
    let reported = match report(
        &ctx,
        &runtimes,
        &rt,
        outcome.deployment(),
        &references,
        outcome.error(),
    )
    .await
    {
        Ok(reported) => reported,
        Err(err) if err.refused_for_namespace_deletion() => return Ok(let_go(&ctx, &rt)),
        Err(err) => return Err(err),
    };
    if let Some(learned) = reported.learned {
        caches.runtimes.remember(learned);
    }

    let failing = outcome.error().is_some() || matches!(references, ReferenceCheck::Failed { .. });
    let next = if failing { RETRY } else { ctx.resync };
    // Drift left alone while backing off from another writer is reverted
    // when due; a status write held back or refused is tried again when due.
    let held = lock(&ctx.backoff).held(&namespace, &name, Instant::now());
    let next = [reported.again_in, held]
        .into_iter()
        .flatten()
        .fold(next, Duration::min);
    Ok(Action::requeue(next))
}

/// A write for `rt` was refused because its namespace is being deleted: lets
/// go of every runtime of that namespace (see `terminating`), without a
/// retry. Said once per namespace, as information: nothing is wrong.
fn let_go(ctx: &Context, rt: &TrussiumRuntime) -> Action {
    let namespace = rt.namespace().unwrap_or_default();
    let uid = rt.uid().unwrap_or_default();
    let cached = ctx.caches.runtimes.store().state();
    let newly = ctx.terminating.let_go(
        Known {
            namespace: &namespace,
            uid: &uid,
        },
        cached.iter().map(|rt| Known {
            namespace: rt.metadata.namespace.as_deref().unwrap_or_default(),
            uid: rt.metadata.uid.as_deref().unwrap_or_default(),
        }),
    );
    if newly > 0 {
        tracing::info!(
            %namespace,
            runtimes = newly,
            "the namespace is being deleted: letting its runtimes go"
        );
    }
    Action::await_change()
}

/// Checks the runtime's Secret references against the Secret cache. A Secret
/// that is not in the cache yet arrives through the Secret watch, which
/// brings us back here.
///
/// While the API server refuses the Secret watch the cache may be stale and
/// our permission gone, so each referenced Secret's metadata is read fresh:
/// the refusal is then reported (ReferenceCheckFailed), and a read allowed
/// again is how the operator learns the permission is back.
async fn check_secrets(ctx: &Context, rt: &TrussiumRuntime, namespace: &str) -> ReferenceCheck {
    let caches = &ctx.caches;
    if caches.secrets.refused().is_none() {
        return check_references(rt, |secret| Ok(caches.secret_version(namespace, secret)));
    }
    let secrets: Api<Secret> = Api::namespaced(ctx.client.clone(), namespace);
    let mut read = BTreeMap::new();
    for name in referenced_secrets(rt) {
        let answer = match secrets.get_metadata_opt(&name).await {
            Ok(found) => Ok(found.map(|secret| secret.resource_version().unwrap_or_default())),
            Err(err) => Err(one_line(&err)),
        };
        let refused = answer.is_err();
        read.insert(name, answer);
        if refused {
            break;
        }
    }
    if !read.is_empty() && read.values().all(Result::is_ok) {
        caches.secrets.read_allowed();
    }
    check_references(rt, |secret| {
        read.get(secret)
            .cloned()
            .unwrap_or_else(|| Err("not read".to_string()))
    })
}

/// Applies every owned object, in two stages, and removes the optional ones
/// that are no longer wanted. Returns the Deployment as stored.
async fn apply_all(
    ctx: &Context,
    rt: &TrussiumRuntime,
    namespace: &str,
    desired: DesiredResources,
) -> Result<Arc<Deployment>, kube::Error> {
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
    let caches = &ctx.caches;
    let name = rt.name_any();
    let backoff = &ctx.backoff;

    // Two stages, each object of a stage at once: one round trip per stage
    // instead of one per object. First what the pods need (their ConfigMap
    // and ServiceAccount: a pod created before its ServiceAccount exists is
    // refused, and the ReplicaSet controller retries only after a backoff)
    // and the Service; then the Deployment and what goes with it.
    tokio::try_join!(
        ensure(
            api(ctx, namespace),
            &caches.config_maps,
            backoff,
            &config_map
        ),
        ensure(
            api(ctx, namespace),
            &caches.service_accounts,
            backoff,
            &service_account
        ),
        ensure(api(ctx, namespace), &caches.services, backoff, &service),
    )?;
    let policy = async {
        let policies = api(ctx, namespace);
        let cache = &caches.network_policies;
        match &network_policy {
            Some(policy) => ensure(policies, cache, backoff, policy).await.map(drop),
            None => remove(&policies, cache, namespace, &name, rt).await,
        }
    };
    let autoscaler = async {
        let autoscalers = api(ctx, namespace);
        let cache = &caches.horizontal_pod_autoscalers;
        match &horizontal_pod_autoscaler {
            Some(hpa) => ensure(autoscalers, cache, backoff, hpa).await.map(drop),
            None => remove(&autoscalers, cache, namespace, &name, rt).await,
        }
    };
    let (deployment, ..) = tokio::try_join!(
        ensure(
            api(ctx, namespace),
            &caches.deployments,
            backoff,
            &deployment
        ),
        ensure(
            api(ctx, namespace),
            &caches.pod_disruption_budgets,
            backoff,
            &pod_disruption_budget
        ),
        policy,
        autoscaler,
    )?;
    Ok(deployment)
}

fn api<K>(ctx: &Context, namespace: &str) -> Api<K>
where
    K: kube::Resource<Scope = k8s_openapi::NamespaceResourceScope, DynamicType = ()>,
{
    Api::namespaced(ctx.client.clone(), namespace)
}
