//! Reporting: publish the Events that the difference between the stored and
//! the new status calls for, then write the new status.
//!
//! In that order, and with the deterministic names of
//! [`crate::announcement`]: a crash (or a failed request) between the two
//! leaves the stored status as it was, so the retry publishes the same Event
//! names again (`AlreadyExists`, nothing repeated) before it writes.

use std::time::Duration;

use k8s_openapi::api::apps::v1::Deployment;
use kube::api::{Patch, PatchParams};
use kube::{Api, Resource, ResourceExt};
use serde_json::json;
use trussium_api::{TrussiumRuntime, condition_type};

use super::context::Context;
use super::error::Error;
use super::publish::{Published, event, publish};
use crate::announcement::announce;
use crate::references::ReferenceCheck;
use crate::resources::FIELD_MANAGER;
use crate::status::{StatusInput, only_progress_differs, project};

/// What a report came to.
pub struct Reported {
    /// Whether the runtime has settled (Ready for its generation).
    pub settled: bool,
    /// The runtime as stored after a status write, `None` when nothing was
    /// written: the cache remembers it until its watch shows it.
    pub written: Option<TrussiumRuntime>,
    /// Set when a progress-only write was held back: look again then.
    pub progress_due_in: Option<Duration>,
}

/// Publishes the Events the status change calls for, then writes the status.
pub async fn report(
    ctx: &Context,
    runtimes: &Api<TrussiumRuntime>,
    rt: &TrussiumRuntime,
    deployment: Option<&Deployment>,
    references: &ReferenceCheck,
    reconcile_error: Option<&str>,
) -> Result<Reported, Error> {
    let now = k8s_openapi::jiff::Timestamp::now();
    let projected = project(&StatusInput {
        runtime: rt,
        deployment,
        references,
        reconcile_error,
        config: &ctx.config,
        now,
    });
    let settled = projected
        .condition(condition_type::READY)
        .is_some_and(|c| c.status == "True");
    let name = rt.name_any();
    let uid = rt.uid().unwrap_or_default();
    let namespace = rt.namespace().unwrap_or_default();
    let unwritten = |progress_due_in| Reported {
        settled,
        written: None,
        progress_due_in,
    };
    let Some(announcement) = announce(&name, &uid, rt.status.as_ref(), projected) else {
        return Ok(unwritten(None));
    };
    let only_progress = announcement.events.is_empty()
        && rt
            .status
            .as_ref()
            .is_some_and(|stored| only_progress_differs(stored, &announcement.status));
    if only_progress && let Some(wait) = ctx.status_writes.progress_due_in(&namespace, &name) {
        return Ok(unwritten(Some(wait)));
    }

    let reference = rt.object_ref(&());
    for (event_name, transition) in &announcement.events {
        let e = event(event_name, transition, &reference, &ctx.reporter, now);
        // A failure stops here, before the status write: the retry diffs
        // from the same stored status and publishes the same names.
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
                namespace,
                name,
                reason = transition.reason,
                "event was published by an earlier attempt"
            );
        }
    }

    let patch = json!({
        "apiVersion": TrussiumRuntime::api_version(&()),
        "kind": TrussiumRuntime::kind(&()),
        "status": announcement.status,
    });
    let written = runtimes
        .patch_status(
            &name,
            &PatchParams::apply(FIELD_MANAGER).force(),
            &Patch::Apply(&patch),
        )
        .await
        .map_err(Error::WriteStatus)?;
    ctx.status_writes.wrote(&namespace, &name);
    Ok(Reported {
        settled,
        written: Some(written),
        progress_due_in: None,
    })
}
