//! In front of every reconcile: wait for leadership (a standby's watches run,
//! its reconciles wait), then measure the reconcile.

use std::sync::Arc;
use std::time::Instant;

use kube::runtime::controller::Action;
use kube::runtime::reflector::{ObjectRef, Store};
use trussium_api::TrussiumRuntime;

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
        let _worker = self.metrics.worker();
        let started = Instant::now();
        let result = reconcile::reconcile(runtime, ctx).await;
        self.metrics
            .reconciled(started.elapsed(), ReconcileResult::of(&result));
        result
    }
}
