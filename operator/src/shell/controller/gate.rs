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

use super::context::Context;
use super::error::Error;
use super::lanes::{Lane, Lanes};
use super::reconcile;
use crate::shell::leader::Leadership;
use crate::shell::metrics::{Metrics, ReconcileResult};

/// What `run()` needs from the process around it.
#[derive(Clone)]
pub struct Instruments {
    pub leadership: Leadership,
    pub metrics: Metrics,
    pub health: crate::shell::probes::ProbeState,
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
        // A cache may never fill (its watch refused, or invalid): told to
        // stop, stop waiting for it, or the process would never exit.
        let synced = tokio::select! {
            synced = ctx.caches.ready() => synced,
            () = self.leadership.stopping() => false,
        };
        if !synced {
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
        // Boxed, and only now: every runtime's gate waits at once (for
        // leadership, for a slot), and a reconcile's state is large (about
        // 40 KB); inline, each waiting gate would hold that much for nothing.
        let reconcile = Box::pin(reconcile::reconcile(runtime, ctx.clone()));
        // Every request has a timeout of its own; the deadline also bounds a
        // reconcile whose requests each answer, slowly, or a response body
        // that stops half-way. Dropping the reconcile there is safe (see
        // `reconcile`).
        let result = match tokio::time::timeout(self.deadline, reconcile).await {
            Ok(result) => result,
            Err(_) => {
                ctx.memory.set_status_unsure(&namespace, &name, true);
                Err(Error::Deadline(self.deadline))
            }
        };
        self.metrics
            .reconciled(started.elapsed(), ReconcileResult::of(&result));
        result
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::mem::size_of_val;

    use super::*;
    use crate::pure::config::OperatorConfig;
    use crate::pure::events::object::Reporter;
    use crate::shell::controller::{cache, scope::Scope};

    /// Every runtime's gate is alive at once while it waits for leadership
    /// or a slot (3000 runtimes, 3000 gates). It must not carry the
    /// reconcile's state until it runs: inline, that cost about 40 MiB at
    /// 1000 runtimes in the benchmark.
    #[tokio::test]
    async fn a_waiting_gate_is_a_fraction_of_a_reconcile() {
        // Never connected to: the futures are only built, not run.
        let config = kube::Config::new("http://127.0.0.1:9".parse().unwrap());
        let client = kube::Client::try_from(config).unwrap();
        let (caches, _controller) = cache::watch(&client, &Scope::Cluster, 290);
        let (leadership, _role) = Leadership::always();
        let gate = Gate {
            leadership,
            metrics: Metrics::new(),
            store: caches.runtimes.store(),
            lanes: Lanes::new(1),
            deadline: Duration::from_secs(120),
        };
        let ctx = Arc::new(Context::new(
            client,
            OperatorConfig::default(),
            Reporter {
                controller: "trussium-operator".into(),
                instance: "test".into(),
            },
            Metrics::new(),
            caches,
            Duration::from_secs(300),
            5,
        ));
        let runtime: TrussiumRuntime =
            serde_yaml::from_str(include_str!("../../pure/resources/fixtures/minimal.yaml"))
                .unwrap();
        let runtime = Arc::new(runtime);

        let waiting = size_of_val(&gate.reconcile(runtime.clone(), ctx.clone()));
        let reconcile = size_of_val(&reconcile::reconcile(runtime, ctx));
        println!("a waiting gate: {waiting} bytes; a reconcile: {reconcile} bytes");
        assert!(
            waiting * 4 < reconcile,
            "a waiting gate holds {waiting} bytes, a reconcile {reconcile}"
        );
    }
}
