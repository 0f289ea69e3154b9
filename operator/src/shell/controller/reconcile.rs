//! One reconcile, top to bottom: read the caches, check references, apply,
//! report. Nothing is read from the API server here (see [`super::cache`]),
//! except Secret metadata while the Secret watch is refused.

use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::Secret;
use kube::runtime::controller::Action;
use kube::{Api, ResourceExt};
use trussium_api::TrussiumRuntime;
use trussium_api::suspension::suspension;

use super::apply::{Owned, ensure, remove};
use super::cache::Cached;
use super::context::Context;
use super::error::{Error, one_line};
use super::failure::{self, Failed, Handling};
use super::lock::lock;
use super::publish::{Published, publish};
use super::report::{Written, report};
use super::terminating::Known;
use crate::pure::events::announcement::revert_event_name;
use crate::pure::events::object::event;
use crate::pure::events::{MAX_NOTE_BYTES, Reason, Transition};
use crate::pure::references::{ReferenceCheck, check_references, referenced_secrets};
use crate::pure::resources::deployment::with_template_of;
use crate::pure::resources::{
    BuildContext, DesiredResources, build, same_controller, with_owner_version_of,
};
use crate::pure::reverted::{QUIET, Reverted, note};
use crate::pure::status::conditions::truncated;
use crate::pure::status::stalled::Stall;
use crate::pure::turns::{self, Cause, Given, Turn, Waiting};

/// What the writes of one reconcile came to.
enum Outcome {
    /// Every owned object is as desired, but for the pod template of a
    /// Deployment waiting for a turn to roll (see [`crate::pure::turns`]); the
    /// Deployment as it now is, and how many objects were written (created,
    /// changed or deleted).
    Applied(Arc<Deployment>, usize, Option<Waiting>),
    /// Nothing was written: the runtime is suspended.
    Suspended(Option<Arc<Deployment>>),
    /// Nothing was written: a referenced Secret is missing.
    Blocked(Option<Arc<Deployment>>),
    /// Building or applying failed in a way that may pass; the Deployment as
    /// last seen, and why.
    Failed(Option<Arc<Deployment>>, String),
    /// Applying was refused in a way that will not pass by itself (see
    /// `failure`); the Deployment as last seen, and the stall.
    Refused(Option<Arc<Deployment>>, Stall),
}

impl Outcome {
    fn deployment(&self) -> Option<&Deployment> {
        match self {
            Outcome::Applied(d, ..) => Some(d),
            Outcome::Suspended(d)
            | Outcome::Blocked(d)
            | Outcome::Failed(d, _)
            | Outcome::Refused(d, _) => d.as_deref(),
        }
    }

    fn error(&self) -> Option<&str> {
        match self {
            Outcome::Failed(_, message) => Some(message),
            Outcome::Applied(..)
            | Outcome::Suspended(_)
            | Outcome::Blocked(_)
            | Outcome::Refused(..) => None,
        }
    }

    /// Whether this reconcile went through applying: only then is drift
    /// left alone by the backoff due to be reverted (a suspended or blocked
    /// runtime reverts nothing, and must not be woken again and again for
    /// it).
    fn applies(&self) -> bool {
        matches!(
            self,
            Outcome::Applied(..) | Outcome::Failed(..) | Outcome::Refused(..)
        )
    }

    /// How many objects were written, when everything was applied.
    fn changed(&self) -> Option<usize> {
        match self {
            Outcome::Applied(_, changed, _) => Some(*changed),
            _ => None,
        }
    }

    fn waiting(&self) -> Option<&Waiting> {
        match self {
            Outcome::Applied(_, _, waiting) => waiting.as_ref(),
            _ => None,
        }
    }

    fn stall(&self) -> Option<&Stall> {
        match self {
            Outcome::Refused(_, stall) => Some(stall),
            Outcome::Applied(..)
            | Outcome::Suspended(_)
            | Outcome::Blocked(_)
            | Outcome::Failed(..) => None,
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
        lock(&ctx.turns).forget(&(namespace.clone(), name.clone()));
        ctx.memory.forget(&namespace, &name);
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

    // A spec the API refuses today (stored before the rule) blocks like a
    // missing Secret; its Secrets are not even looked up.
    let problems = trussium_api::validation::problems(&rt);
    let references = if problems.is_empty() {
        check_secrets(&ctx, &rt, &namespace).await
    } else {
        ReferenceCheck::InvalidSpec { problems }
    };
    let observed = caches.deployments.get(&namespace, &name);
    let outcome = match write(&ctx, &rt, &references, observed).await {
        ControlFlow::Continue(outcome) => outcome,
        ControlFlow::Break(early) => return early,
    };

    let runtimes: Api<TrussiumRuntime> = Api::namespaced(ctx.client.clone(), &namespace);
    let input = Written {
        deployment: outcome.deployment(),
        references: &references,
        error: outcome.error(),
        stall: outcome.stall(),
        changed: outcome.changed(),
        waiting: outcome.waiting(),
    };
    let reported = match report(&ctx, &runtimes, &rt, input).await {
        Ok(reported) => reported,
        Err(err) if err.refused_for_namespace_deletion() => return Ok(let_go(&ctx, &rt)),
        Err(err) => return Err(err),
    };
    if let Some(learned) = reported.learned {
        caches.runtimes.remember(learned);
    }
    Ok(Action::requeue(next_reconcile(
        &ctx,
        (&namespace, &name),
        &outcome,
        &references,
        reported.again_in,
    )))
}

/// When to reconcile the runtime again. A failure that may pass is retried,
/// backing off; anything else (converged, blocked by a missing Secret,
/// stalled) waits for a change, or the resync: that is also when a stalled
/// runtime notices an obstacle no watch shows (a foreign object or an
/// admission policy removed). Sooner when the report or the drift backoff
/// asks (`again_in`, held drift), or a turn to roll may have come.
fn next_reconcile(
    ctx: &Context,
    (namespace, name): (&str, &str),
    outcome: &Outcome,
    references: &ReferenceCheck,
    again_in: Option<Duration>,
) -> Duration {
    let failing = outcome.error().is_some() || matches!(references, ReferenceCheck::Failed { .. });
    let next = if failing {
        ctx.memory.reconcile_failed(namespace, name)
    } else {
        ctx.memory.reconcile_succeeded(namespace, name);
        ctx.resync
    };
    // Drift left alone while backing off from another writer is reverted
    // when due; a status write held back or refused is tried again when due.
    let held = if outcome.applies() {
        lock(&ctx.backoff).held(namespace, name, Instant::now())
    } else {
        None
    };
    // A runtime waiting for a turn asks again (see `turns`).
    let turn = outcome.waiting().map(Waiting::ask_again_in);
    [again_in, held, turn]
        .into_iter()
        .flatten()
        .fold(next, Duration::min)
}

/// Builds and applies the runtime's objects unless a Secret reference
/// blocks them: what that came to, or the end of the reconcile when the
/// failure is not to be reported (yet).
async fn write(
    ctx: &Context,
    rt: &TrussiumRuntime,
    references: &ReferenceCheck,
    observed: Option<Arc<Deployment>>,
) -> ControlFlow<Result<Action, Error>, Outcome> {
    let namespace = rt.namespace().unwrap_or_default();
    let name = rt.name_any();
    // Nothing is applied on the paths that return early: a turn to roll
    // (see `turns`) is neither waited for nor held meanwhile.
    let no_turn = || lock(&ctx.turns).forget(&(namespace.clone(), name.clone()));
    // A missing Secret or an invalid spec blocks every write: nothing is
    // created or updated until the reference resolves (the Secret watch
    // brings us back then) or the spec is fixed.
    let ReferenceCheck::Resolved { versions } = references else {
        no_turn();
        return ControlFlow::Continue(Outcome::Blocked(observed));
    };
    // Suspended: hands off. Nothing is created, changed or deleted (hand
    // changes stay); the status reports the objects as they are.
    if suspension(&rt.metadata).is_suspended() {
        no_turn();
        return ControlFlow::Continue(Outcome::Suspended(observed));
    }
    // Stalled for this spec: the same write would be refused the same way
    // (see `stalls`); reported again without sending it.
    let generation = rt.metadata.generation;
    if let Some(stall) = ctx
        .memory
        .stall_held(&namespace, &name, generation, ctx.resync)
    {
        no_turn();
        return ControlFlow::Continue(Outcome::Refused(observed, stall));
    }
    let build_ctx = BuildContext {
        config: &ctx.config,
        secret_versions: versions,
        observed_replicas: observed.as_ref().and_then(|d| d.spec.as_ref()?.replicas),
    };
    let mut desired = match build(rt, &build_ctx) {
        Ok(desired) => desired,
        Err(err) => {
            no_turn();
            return ControlFlow::Continue(Outcome::Failed(observed, err.to_string()));
        }
    };
    let waiting = wait_for_turn(ctx, rt, &mut desired, observed.as_deref());
    match apply_all(ctx, rt, &namespace, desired).await {
        Ok((applied, changed)) => {
            ctx.memory.applied(&namespace, &name);
            ControlFlow::Continue(Outcome::Applied(applied, changed, waiting))
        }
        Err(failed) => apply_failed(ctx, rt, failed, observed),
    }
}

/// What a failed apply comes to (see `failure`): retried at once, reported
/// and retried, or reported as a stall until something changes.
fn apply_failed(
    ctx: &Context,
    rt: &TrussiumRuntime,
    failed: Failed,
    observed: Option<Arc<Deployment>>,
) -> ControlFlow<Result<Action, Error>, Outcome> {
    let namespace = rt.namespace().unwrap_or_default();
    let name = rt.name_any();
    match failure::handling(&failed) {
        Handling::Unanswered => ControlFlow::Break(Err(Error::Unanswered(failed.source))),
        Handling::NamespaceDeleting => ControlFlow::Break(Ok(let_go(ctx, rt))),
        // Refused, or the server failed, as a restarting API server does
        // for a moment: reported once that has lasted until the retry.
        Handling::Transient { confirm: true } if !ctx.memory.refusal_lasted(&namespace, &name) => {
            ControlFlow::Break(Err(Error::FailedOnce(failed.to_string())))
        }
        Handling::Transient { .. } => {
            tracing::warn!(%namespace, %name, kind = %failed.kind, error = %failed, "applying failed");
            ControlFlow::Continue(Outcome::Failed(observed, failed.to_string()))
        }
        Handling::Permanent(stall) => {
            tracing::warn!(%namespace, %name, kind = %failed.kind, reason = stall.reason, error = %failed, "applying refused; not retrying until something changes");
            ctx.memory
                .stalled(&namespace, &name, rt.metadata.generation, &stall);
            ControlFlow::Continue(Outcome::Refused(observed, stall))
        }
    }
}

/// Whether the Deployment must wait for a turn to roll (see
/// [`crate::pure::turns`]); if so, `desired`'s Deployment keeps the pod template
/// `observed` runs, and anything else of it (a scale, say) is applied.
fn wait_for_turn(
    ctx: &Context,
    rt: &TrussiumRuntime,
    desired: &mut DesiredResources,
    observed: Option<&Deployment>,
) -> Option<Waiting> {
    let observed = observed?;
    let waiting = turn(ctx, rt, &desired.deployment, observed)?;
    if let Some(held) = with_template_of(&desired.deployment, observed) {
        desired.deployment = held;
    }
    Some(waiting)
}

/// Whether applying `desired` must wait for a turn (see [`crate::pure::turns`]):
/// only when the pod template would change because the operator changed.
fn turn(
    ctx: &Context,
    rt: &TrussiumRuntime,
    desired: &Deployment,
    observed: &Deployment,
) -> Option<Waiting> {
    let key = (rt.namespace().unwrap_or_default(), rt.name_any());
    let given = Given::of(rt, observed);
    // Someone else's Deployment under the runtime's name is reported by the
    // apply, never waited for.
    let ours = same_controller(&desired.metadata, &observed.metadata);
    // As the apply compares it: kept on an earlier release's owner reference.
    let kept = with_owner_version_of(desired, observed);
    let desired = kept.as_ref().unwrap_or(desired);
    if !ours || turns::cause(rt, desired, observed) != Cause::Operator {
        lock(&ctx.turns).not_needed(&key, &given);
        return None;
    }
    let caches = &ctx.caches;
    let turn = lock(&ctx.turns).ask(
        &key,
        given,
        Instant::now(),
        |(ns, name), given| turns::progress(caches.deployments.get(ns, name).as_deref(), given),
        |(ns, name)| caches.runtimes.get(ns, name).is_some(),
    );
    match turn {
        Turn::Go => {
            tracing::info!(namespace = %key.0, name = %key.1, "rolling out the new version's pod template on its turn");
            None
        }
        Turn::Wait(waiting) => {
            tracing::debug!(namespace = %key.0, name = %key.1, ahead = waiting.ahead, "the new version's pod template waits for a turn");
            Some(waiting)
        }
    }
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
/// that are no longer wanted. Returns the Deployment as stored, and how many
/// objects were written.
async fn apply_all(
    ctx: &Context,
    rt: &TrussiumRuntime,
    namespace: &str,
    desired: DesiredResources,
) -> Result<(Arc<Deployment>, usize), Failed> {
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
    let writer = Writer {
        ctx,
        rt,
        namespace,
        name: rt.name_any(),
        written: AtomicUsize::new(0),
    };

    // Two stages, each object of a stage at once: one round trip per stage
    // instead of one per object. First what the pods need (their ConfigMap
    // and ServiceAccount: a pod created before its ServiceAccount exists is
    // refused, and the ReplicaSet controller retries only after a backoff),
    // the Service, and the NetworkPolicy: fail closed, no pod may serve
    // before its policy exists, so while the policy is refused (or someone
    // else's holds its name) the Deployment is neither created nor changed.
    // Then the Deployment and what goes with it; a policy no longer wanted
    // goes with them, as before.
    tokio::try_join!(
        writer.ensure(&caches.config_maps, &config_map),
        writer.ensure(&caches.service_accounts, &service_account),
        writer.ensure(&caches.services, &service),
        writer.optional(&caches.network_policies, network_policy.as_ref(), false),
    )?;
    let (deployment, ..) = tokio::try_join!(
        writer.ensure(&caches.deployments, &deployment),
        writer.ensure(&caches.pod_disruption_budgets, &pod_disruption_budget),
        writer.optional(&caches.network_policies, None, network_policy.is_none()),
        writer.optional(
            &caches.horizontal_pod_autoscalers,
            horizontal_pod_autoscaler.as_ref(),
            true
        ),
    )?;
    Ok((deployment, writer.written.load(Ordering::Relaxed)))
}

/// Writes the objects of one runtime, each failure naming its object.
struct Writer<'a> {
    ctx: &'a Context,
    rt: &'a TrussiumRuntime,
    namespace: &'a str,
    name: String,
    /// Objects written so far (the stages run their writes at once).
    written: AtomicUsize,
}

impl Writer<'_> {
    /// Applies `desired` if it differs from the cached object (see `apply`).
    async fn ensure<K>(&self, cache: &Cached<K>, desired: &K) -> Result<Arc<K>, Failed>
    where
        K: Owned + kube::Resource<Scope = k8s_openapi::NamespaceResourceScope>,
    {
        let ensured = ensure(self.api(), cache, &self.ctx.backoff, desired)
            .await
            .map_err(Failed::of::<K>(&self.name))?;
        self.count(ensured.wrote);
        if let Some(reverted) = ensured.reverted {
            self.announce(reverted).await;
        }
        Ok(ensured.object)
    }

    /// Counts a change someone else made that was put back, and says so in
    /// a Warning Event on the runtime, once per object and field every
    /// [`QUIET`]. The Event is not worth failing the reconcile for.
    async fn announce(&self, reverted: Reverted) {
        let ctx = self.ctx;
        ctx.metrics.change_reverted(&reverted.kind);
        let due = ctx.reverted.due(
            &reverted.kind,
            self.namespace,
            &reverted.name,
            &reverted.path,
            Instant::now(),
        );
        if !due {
            return;
        }
        let now = k8s_openapi::jiff::Timestamp::now();
        let window = u64::try_from(now.as_second()).unwrap_or_default() / QUIET.as_secs();
        let uid = self.rt.uid().unwrap_or_default();
        let name = revert_event_name(
            &self.name,
            &uid,
            &reverted.kind,
            &reverted.name,
            &reverted.path,
            window,
        );
        let transition = Transition {
            reason: Reason::ChangeReverted,
            note: truncated(&note(&reverted, &self.name, self.namespace), MAX_NOTE_BYTES),
        };
        let regarding = kube::Resource::object_ref(self.rt, &());
        let e = event(&name, &transition, &regarding, &ctx.reporter, now);
        match publish(&ctx.client, &e).await {
            Ok(Published::Created) => ctx.metrics.event_emitted(Reason::ChangeReverted),
            Ok(_) => {}
            Err(err) => {
                tracing::warn!(namespace = self.namespace, name = %self.name, error = %err, "could not publish the ChangeReverted Event");
            }
        }
    }

    fn count(&self, wrote: bool) {
        if wrote {
            self.written.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// An optional object: applied when wanted; else, when `remove`, deleted
    /// if the runtime owns one.
    async fn optional<K>(
        &self,
        cache: &Cached<K>,
        wanted: Option<&K>,
        remove_unwanted: bool,
    ) -> Result<(), Failed>
    where
        K: Owned + kube::Resource<Scope = k8s_openapi::NamespaceResourceScope>,
    {
        match wanted {
            Some(desired) => self.ensure(cache, desired).await.map(drop),
            None if remove_unwanted => {
                let removed = remove(&self.api(), cache, self.namespace, &self.name, self.rt)
                    .await
                    .map_err(Failed::of::<K>(&self.name))?;
                self.count(removed);
                Ok(())
            }
            None => Ok(()),
        }
    }

    fn api<K>(&self) -> Api<K>
    where
        K: kube::Resource<Scope = k8s_openapi::NamespaceResourceScope, DynamicType = ()>,
    {
        Api::namespaced(self.ctx.client.clone(), self.namespace)
    }
}
