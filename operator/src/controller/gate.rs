//! In front of every reconcile: wait for leadership (a standby's watches run,
//! its reconciles wait) and for the caches, then for a slot in the runtime's
//! lane (see [`super::lanes`]); run the reconcile within its deadline, and
//! measure it.

use std::sync::Arc;
use std::time::{Duration, Instant};

use kube::ResourceExt;
use kube::runtime::controller::Action;
use kube::runtime::reflector::{ObjectRef, Store};
use trussium_api::TrussiumRuntime;

use super::lanes::{Lane, Lanes};
use super::{Context, Error, reconcile};
use crate::leader::Leadership;
use crate::metrics::{Metrics, ReconcileResult};

/// What `run()` needs from the process around it.
#[derive(Clone)]
pub struct Instruments {
    pub leadership: Leadership,
    pub metrics: Metrics,
    pub health: crate::health::Health,
}

pub(super) struct Gate {
    pub leadership: Leadership,
    pub metrics: Metrics,
    pub store: Store<TrussiumRuntime>,
    pub lanes: Lanes,
    /// How long one reconcile may take before it is abandoned.
    pub deadline: Duration,
}

impl Gate {
    pub(super) async fn reconcile(
        &self,
        runtime: Arc<TrussiumRuntime>,
        ctx: Arc<Context>,
    ) -> Result<Action, Error> {
        let runtime = if self.leadership.is_leading() {
            runtime
        } else {
            if !self.leadership.wait_to_lead().await {
                // Stopping before ever leading: nothing to do.
                return Ok(Action::await_change());
            }
            // It may have changed while we waited: take the cache's copy.
            match self.store.get(&ObjectRef::from_obj(runtime.as_ref())) {
                Some(current) => current,
                None => return Ok(Action::await_change()),
            }
        };
        if !ctx.caches.ready().await {
            return Err(Error::Stopping);
        }
        let namespace = runtime.namespace().unwrap_or_default();
        let name = runtime.name_any();
        let lane = match ctx.caches.deployments.get(&namespace, &name) {
            Some(_) => Lane::Prompt,
            None => Lane::Creation,
        };
        let _slot = self.lanes.enter(lane).await;
        // Stopping while it waited: start nothing new.
        if !self.leadership.is_leading() {
            return Ok(Action::await_change());
        }

        let _worker = self.metrics.worker();
        let started = Instant::now();
        // Every request has a timeout of its own; the deadline also bounds a
        // reconcile whose requests each answer, slowly, or a response body
        // that stops half-way. Dropping the reconcile there is safe (see
        // `reconcile`).
        let result =
            match tokio::time::timeout(self.deadline, reconcile::reconcile(runtime, ctx.clone()))
                .await
            {
                Ok(result) => result,
                Err(_) => {
                    ctx.unsure.mark(&namespace, &name);
                    Err(Error::Deadline(self.deadline))
                }
            };
        self.metrics
            .reconciled(started.elapsed(), ReconcileResult::of(&result));
        result
    }
}
