//! Reporting: publish the Events that the difference between the stored and
//! the new status calls for, then write the new status.
//!
//! In that order, and with the deterministic names of
//! [`crate::pure::events::announcement`]: a crash (or a failed request) between the two
//! leaves the stored status as it was, so the retry publishes the same Event
//! names again (`AlreadyExists`, nothing repeated) before it writes.
//!
//! The names follow the stored status, so they hold only if the status a
//! report starts from is the stored one. The cache shows it (and our own
//! last write until its watch catches up) while its watch is healthy; but a
//! watch can fail or stall (an API server restart), another replica may
//! have written just before this one led, and our own write's answer can be
//! lost. Hence two guards: a report with Events reads its runtime fresh
//! first when the cache is doubted (see [`super::cache::Trust`]) or the
//! runtime's last status write had no answer ([`super::unsure`]), and only
//! then; and every status write carries the resourceVersion it was decided
//! from, so a write from a stale view is refused (409) instead of taking the
//! stored status back.

use crate::pure::turns::Waiting;
use std::time::Duration;

use k8s_openapi::api::apps::v1::Deployment;
use kube::api::{Patch, PatchParams};
use kube::{Api, Resource, ResourceExt};
use serde_json::json;
use trussium_api::{TrussiumRuntime, TrussiumRuntimeStatus};

use super::cache::steering;
use super::context::Context;
use super::error::Error;
use super::publish::{Published, publish};
use crate::pure::events::announcement::{Announcement, announce_from};
use crate::pure::events::object::event;
use crate::pure::references::ReferenceCheck;
use crate::pure::resources::FIELD_MANAGER;
use crate::pure::status::basis::{basis, replacement};
use crate::pure::status::stalled::Stall;
use crate::pure::status::{StatusInput, only_progress_differs, project};

/// How soon to look again after a status write was refused because our view
/// of the runtime was stale (the fresh one is remembered meanwhile).
const STALE_RETRY: Duration = Duration::from_secs(1);

/// What a report came to.
pub struct Reported {
    /// The runtime as stored, when this report learned it (its status write,
    /// or a fresh read): the cache remembers it until its watch shows it.
    pub learned: Option<TrussiumRuntime>,
    /// Set when a write was held back (progress only) or refused (stale
    /// view): look again then.
    pub again_in: Option<Duration>,
}

/// What the reconcile's writes came to, as the status reports it.
#[derive(Clone, Copy)]
pub struct Written<'a> {
    /// The Deployment as observed after applying (`None` if absent).
    pub deployment: Option<&'a Deployment>,
    pub references: &'a ReferenceCheck,
    /// A failure that may pass by itself.
    pub error: Option<&'a str>,
    /// A refusal that will not (see `failure`).
    pub stall: Option<&'a Stall>,
    /// How many owned objects were written, when all were applied.
    pub changed: Option<usize>,
    /// Set while the Deployment waits for a turn to roll.
    pub waiting: Option<&'a Waiting>,
}

/// What one report decided, from the runtime it was decided from.
struct Plan {
    announcement: Option<Announcement>,
    /// The status it started from (see [`crate::pure::status::basis`]).
    previous: Option<TrussiumRuntimeStatus>,
    /// The stored status is not the operator's own.
    repair: bool,
}

/// Publishes the Events the status change calls for, then writes the status.
pub async fn report(
    ctx: &Context,
    runtimes: &Api<TrussiumRuntime>,
    rt: &TrussiumRuntime,
    written: Written<'_>,
) -> Result<Reported, Error> {
    let now = k8s_openapi::jiff::Timestamp::now();
    let inputs = Inputs {
        deployment: written.deployment,
        references: written.references,
        reconcile_error: written.error,
        stall: written.stall,
        changed: written.changed,
        waiting: written.waiting,
        now,
    };
    let plan = |rt: &TrussiumRuntime| plan(ctx, rt, &inputs);
    let name = rt.name_any();
    let namespace = rt.namespace().unwrap_or_default();

    let mut plan_made = plan(rt);
    let mut learned = None;
    let doubted =
        !ctx.caches.runtimes.trust().trusted() || ctx.memory.status_unsure(&namespace, &name);
    let has_events = |p: &Plan| {
        p.announcement
            .as_ref()
            .is_some_and(|a| !a.events.is_empty())
    };
    if doubted && (has_events(&plan_made) || plan_made.repair) {
        match read_fresh(ctx, runtimes, rt).await? {
            Fresh::Same => {}
            Fresh::Newer(fresh) => {
                plan_made = plan(&fresh);
                learned = Some(fresh);
            }
            Fresh::Done(reported) => return Ok(reported),
        }
    }
    let rt = learned.as_ref().unwrap_or(rt);
    let Plan {
        announcement,
        previous,
        repair,
    } = plan_made;
    let Some(announcement) = announcement else {
        remember_own(ctx, rt, doubted, previous);
        return Ok(Reported {
            learned,
            again_in: None,
        });
    };
    if repair {
        tracing::info!(
            namespace,
            name,
            "the stored status is not the operator's; rewriting it"
        );
    }
    let only_progress = !repair
        && announcement.events.is_empty()
        && previous
            .as_ref()
            .is_some_and(|stored| only_progress_differs(stored, &announcement.status));
    if only_progress && let Some(wait) = ctx.memory.progress_due_in(&namespace, &name) {
        return Ok(Reported {
            learned,
            again_in: Some(wait),
        });
    }

    publish_events(ctx, rt, &announcement, now).await?;

    write(ctx, runtimes, rt, announcement.status).await
}

/// Nothing to write: the stored status is the own one from now on, unless
/// the cache may miss a write (then it is taken for someone else's).
fn remember_own(
    ctx: &Context,
    rt: &TrussiumRuntime,
    doubted: bool,
    previous: Option<TrussiumRuntimeStatus>,
) {
    if !doubted
        && ctx.caches.own.of(rt).is_none()
        && let Some(previous) = previous
    {
        ctx.caches.own.remember(rt, previous);
    }
}

/// What a fresh read of a runtime the cache may be behind on found.
enum Fresh {
    /// As cached.
    Same,
    /// A later version of the same spec: report from it.
    Newer(TrussiumRuntime),
    /// Nothing to report now.
    Done(Reported),
}

async fn read_fresh(
    ctx: &Context,
    runtimes: &Api<TrussiumRuntime>,
    rt: &TrussiumRuntime,
) -> Result<Fresh, Error> {
    let name = rt.name_any();
    let namespace = rt.namespace().unwrap_or_default();
    let fresh = runtimes.get_opt(&name).await.map_err(Error::ReadRuntime)?;
    ctx.memory.set_status_unsure(&namespace, &name, false);
    let Some(fresh) = fresh else {
        // Deleted meanwhile: its deletion reaches the controller.
        return Ok(Fresh::Done(Reported {
            learned: None,
            again_in: None,
        }));
    };
    if fresh.metadata.generation != rt.metadata.generation || steering(&fresh) != steering(rt) {
        // A newer spec (or suspend, or restart) than the one just applied:
        // its own reconcile reports it. Reporting it now would claim what
        // is not applied.
        return Ok(Fresh::Done(Reported {
            learned: Some(fresh),
            again_in: Some(Duration::ZERO),
        }));
    }
    if fresh.resource_version() == rt.resource_version() {
        return Ok(Fresh::Same);
    }
    tracing::debug!(
        namespace,
        name,
        "the cached runtime was behind; using a fresh read"
    );
    Ok(Fresh::Newer(fresh))
}

/// Writes `status` over `rt`'s and remembers it as its own; what the write
/// came to.
async fn write(
    ctx: &Context,
    runtimes: &Api<TrussiumRuntime>,
    rt: &TrussiumRuntime,
    status: TrussiumRuntimeStatus,
) -> Result<Reported, Error> {
    let name = rt.name_any();
    let namespace = rt.namespace().unwrap_or_default();
    match write_status(runtimes, rt, &status).await {
        Ok(written) => {
            ctx.memory.status_written(&namespace, &name);
            // What the API server stored, exactly: the runtime watch will
            // compare it with what it delivers.
            let stored = written.status.clone().unwrap_or(status);
            ctx.caches.own.remember(rt, stored);
            Ok(Reported {
                learned: Some(written),
                again_in: None,
            })
        }
        // Our view was stale: nothing was written. Look again shortly, from
        // the runtime as stored now.
        Err(kube::Error::Api(status)) if status.code == 409 => {
            tracing::debug!(
                namespace,
                name,
                "status write refused: the runtime changed meanwhile"
            );
            let fresh = runtimes.get_opt(&name).await.map_err(Error::ReadRuntime)?;
            ctx.memory.set_status_unsure(&namespace, &name, false);
            Ok(Reported {
                learned: fresh,
                again_in: Some(STALE_RETRY),
            })
        }
        // Deleted meanwhile (with its namespace, say): its deletion reaches
        // the controller, and there is nothing left to report on.
        Err(kube::Error::Api(status)) if status.is_not_found() => {
            ctx.memory.set_status_unsure(&namespace, &name, false);
            Ok(Reported {
                learned: None,
                again_in: None,
            })
        }
        Err(err) => {
            // No answer, or an answer that cannot tell: it may have been
            // written all the same.
            if super::unsure::may_have_written(&err) {
                ctx.memory.set_status_unsure(&namespace, &name, true);
            }
            Err(Error::WriteStatus(err))
        }
    }
}

/// What a report projects from, besides the runtime.
struct Inputs<'a> {
    deployment: Option<&'a Deployment>,
    references: &'a ReferenceCheck,
    reconcile_error: Option<&'a str>,
    stall: Option<&'a Stall>,
    changed: Option<usize>,
    waiting: Option<&'a Waiting>,
    now: k8s_openapi::jiff::Timestamp,
}

/// The report on `rt` (see [`crate::pure::status::basis`]): from its own status
/// when the stored one is someone else's.
fn plan(ctx: &Context, rt: &TrussiumRuntime, inputs: &Inputs) -> Plan {
    let own = ctx.caches.own.of(rt);
    let unreadable = ctx.caches.unreadable.holds(rt);
    let revision = rt.resource_version().and_then(|v| v.parse().ok());
    let basis = basis(
        rt.status.as_ref(),
        own.as_deref(),
        unreadable,
        inputs.now,
        revision,
    );
    let input = |runtime| StatusInput {
        runtime,
        deployment: inputs.deployment,
        references: inputs.references,
        reconcile_error: inputs.reconcile_error,
        stall: inputs.stall,
        config: &ctx.config,
        waiting: inputs.waiting,
        now: inputs.now,
    };
    // The projection reads the previous status from the runtime.
    let projected = if basis.previous() == rt.status.as_ref() {
        project(&input(rt))
    } else {
        let mut from = rt.clone();
        from.status = basis.previous().cloned();
        project(&input(&from))
    };
    let name = rt.name_any();
    let uid = rt.uid().unwrap_or_default();
    Plan {
        announcement: announce_from(&name, &uid, &basis, projected)
            .map(|a| a.with_resume_changes(inputs.changed)),
        previous: basis.previous().cloned(),
        repair: basis.repair,
    }
}

/// Publishes each Event of the announcement; a failure stops here, before the
/// status write: the retry diffs from the same stored status and publishes
/// the same names.
async fn publish_events(
    ctx: &Context,
    rt: &TrussiumRuntime,
    announcement: &Announcement,
    now: k8s_openapi::jiff::Timestamp,
) -> Result<(), Error> {
    let reference = rt.object_ref(&());
    for (event_name, transition) in &announcement.events {
        let e = event(event_name, transition, &reference, &ctx.reporter, now);
        let published = publish(&ctx.client, &e)
            .await
            .map_err(|source| Error::Publish {
                reason: transition.reason,
                source,
            })?;
        if published == Published::Created {
            ctx.metrics.event_emitted(transition.reason);
        } else {
            tracing::info!(
                namespace = rt.namespace().unwrap_or_default(),
                name = rt.name_any(),
                reason = transition.reason.as_str(),
                "event was published by an earlier attempt"
            );
        }
    }
    Ok(())
}

/// Writes `status` on the condition that the runtime is still the one it was
/// decided from (its resourceVersion): 409 otherwise.
/// The write replaces the whole status (see [`replacement`]).
async fn write_status(
    runtimes: &Api<TrussiumRuntime>,
    rt: &TrussiumRuntime,
    status: &TrussiumRuntimeStatus,
) -> Result<TrussiumRuntime, kube::Error> {
    let patch = json!({
        "metadata": { "resourceVersion": rt.resource_version() },
        "status": replacement(status),
    });
    let params = PatchParams {
        field_manager: Some(FIELD_MANAGER.to_string()),
        ..PatchParams::default()
    };
    runtimes
        .patch_status(&rt.name_any(), &params, &Patch::Merge(&patch))
        .await
}
