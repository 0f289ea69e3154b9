//! Reporting: write the projected status, then publish the Events that the
//! difference between the stored and the new status calls for.

use k8s_openapi::api::apps::v1::Deployment;
use kube::api::{Patch, PatchParams};
use kube::{Api, Resource, ResourceExt};
use serde_json::json;
use trussium_api::TrussiumRuntime;

use super::context::Context;
use super::error::Error;
use super::publish::{events, publish};
use crate::events::transitions;
use crate::references::ReferenceCheck;
use crate::resources::FIELD_MANAGER;
use crate::status::{StatusInput, project, semantically_equal};

pub async fn report(
    ctx: &Context,
    runtimes: &Api<TrussiumRuntime>,
    rt: &TrussiumRuntime,
    deployment: Option<&Deployment>,
    references: &ReferenceCheck,
    reconcile_error: Option<&str>,
) -> Result<(), Error> {
    let now = k8s_openapi::jiff::Timestamp::now();
    let status = project(&StatusInput {
        runtime: rt,
        deployment,
        references,
        reconcile_error,
        config: &ctx.config,
        now,
    });
    let stored = rt.status.as_ref();
    if stored.is_some_and(|stored| semantically_equal(stored, &status)) {
        return Ok(());
    }

    // Status first: should publishing fail, the next reconcile diffs against
    // the new status and does not repeat what was already said.
    let patch = json!({
        "apiVersion": TrussiumRuntime::api_version(&()),
        "kind": TrussiumRuntime::kind(&()),
        "status": status,
    });
    runtimes
        .patch_status(
            &rt.name_any(),
            &PatchParams::apply(FIELD_MANAGER).force(),
            &Patch::Apply(&patch),
        )
        .await
        .map_err(Error::WriteStatus)?;

    let reference = rt.object_ref(&());
    let now = k8s_openapi::jiff::Timestamp::now();
    let transitions = transitions(stored, &status);
    for (transition, event) in
        transitions
            .iter()
            .zip(events(&transitions, &reference, &ctx.reporter, now))
    {
        if let Err(err) = publish(&ctx.client, &event).await {
            // The status already tells the truth; a lost Event is not worth
            // failing the reconcile over.
            tracing::warn!(reason = transition.reason, error = %err, "publishing event failed");
        } else {
            ctx.metrics.event_emitted(transition.reason);
        }
    }
    Ok(())
}
