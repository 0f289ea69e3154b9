//! The thin shell: watches, the reconcile loop, and the I/O it needs.

mod apply;
mod context;
mod dereference;
mod drift;
mod error;
mod gate;
mod ownership;
mod publish;
mod reconcile;
mod report;

use std::sync::Arc;
use std::time::Duration;

use futures::{Future, StreamExt};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::autoscaling::v2::HorizontalPodAutoscaler;
use k8s_openapi::api::core::v1::{ConfigMap, Secret, Service, ServiceAccount};
use k8s_openapi::api::networking::v1::NetworkPolicy;
use k8s_openapi::api::policy::v1::PodDisruptionBudget;
use kube::core::PartialObjectMeta;
use kube::runtime::controller::{self, Action, Controller};
use kube::runtime::reflector::{self, ObjectRef, Store};
use kube::runtime::{WatchStreamExt, predicates, watcher};
use kube::{Api, Client, Resource, ResourceExt};
use trussium_api::TrussiumRuntime;
use trussium_api::labels::{MANAGED_BY, MANAGED_BY_VALUE};

pub use context::Context;
pub use error::Error;
pub use gate::Instruments;
pub use publish::Reporter;

use crate::config::OperatorConfig;
use crate::references::referenced_secrets;

/// Where the operator looks: the whole cluster or one namespace.
#[derive(Clone, Debug)]
pub enum Scope {
    Cluster,
    Namespace(String),
}

impl Scope {
    fn api<K>(&self, client: &Client) -> Api<K>
    where
        K: Resource<DynamicType = (), Scope = k8s_openapi::NamespaceResourceScope>,
    {
        match self {
            Scope::Cluster => Api::all(client.clone()),
            Scope::Namespace(ns) => Api::namespaced(client.clone(), ns),
        }
    }
}

/// Runs the controller until `shutdown` resolves. The watches run from the
/// start; reconciles wait until `instruments.leadership` says this replica
/// leads.
pub async fn run(
    client: Client,
    config: OperatorConfig,
    scope: Scope,
    concurrency: u16,
    reporter: Reporter,
    instruments: Instruments,
    shutdown: impl Future<Output = ()> + Send + Sync + 'static,
) {
    let ctx = Arc::new(Context::new(
        client.clone(),
        config,
        reporter,
        instruments.metrics.clone(),
    ));
    let watch_health = ctx.clone();

    // Primary: reflect every change (so the store is current), but reconcile
    // only on spec changes: our own status writes must not loop.
    let (store, writer) = reflector::store();
    let runtimes = watcher(
        scope.api::<TrussiumRuntime>(&client),
        watcher::Config::default(),
    )
    .default_backoff()
    // Readiness: the first list is complete (`Store::wait_until_ready`
    // wakes only one waiter, and the controller is that one).
    .inspect({
        let health = instruments.health.clone();
        move |event| {
            if matches!(event, Ok(watcher::Event::InitDone)) {
                health.set_synced();
            }
        }
    })
    .reflect(writer)
    .applied_objects()
    .predicate_filter(predicates::generation, Default::default());

    // Owned kinds: metadata-only and unfiltered, so status changes (Deployment
    // readiness) and deletions (recreate) re-trigger.
    let owned = watcher::Config::default().labels(&format!("{MANAGED_BY}={MANAGED_BY_VALUE}"));
    // Secrets: metadata-only, mapped to the runtimes of that namespace that
    // reference them (creation unblocks, rotation rolls the pods).
    // (`Api<PartialObjectMeta<_>>` uses the metadata-only endpoints.)
    let secrets = watcher(
        scope.api::<PartialObjectMeta<Secret>>(&client),
        watcher::Config::default(),
    )
    .default_backoff()
    .touched_objects();

    instruments.metrics.count_runtimes(store.clone());
    instruments
        .metrics
        .set_max_concurrent_reconciles(concurrency);
    let gate = Arc::new(gate::Gate {
        leadership: instruments.leadership,
        metrics: instruments.metrics,
        store: store.clone(),
    });

    let controller = Controller::for_stream(runtimes, store.clone());
    let referencing = store.clone();
    controller
        .with_config(controller::Config::default().concurrency(concurrency))
        .owns(scope.api::<ConfigMap>(&client), owned.clone())
        .owns(scope.api::<ServiceAccount>(&client), owned.clone())
        .owns(scope.api::<Service>(&client), owned.clone())
        .owns(scope.api::<Deployment>(&client), owned.clone())
        .owns(scope.api::<PodDisruptionBudget>(&client), owned.clone())
        .owns(scope.api::<NetworkPolicy>(&client), owned.clone())
        .owns(scope.api::<HorizontalPodAutoscaler>(&client), owned)
        .watches_stream(secrets, move |secret| {
            runtimes_referencing(
                &referencing,
                secret.namespace().as_deref(),
                &secret.name_any(),
            )
        })
        .graceful_shutdown_on(shutdown)
        .run(
            move |runtime, ctx| {
                let gate = gate.clone();
                async move { gate.reconcile(runtime, ctx).await }
            },
            error_policy,
            ctx,
        )
        .for_each(|result| {
            if matches!(result, Err(controller::Error::QueueError(_))) {
                watch_health.watch_failed();
            }
            async move {
                match result {
                    Ok((object, _)) => tracing::debug!(runtime = %object, "reconciled"),
                    // A runtime deleted while its owned objects still change.
                    Err(controller::Error::ObjectNotFound(object)) => {
                        tracing::debug!(runtime = %object, "gone")
                    }
                    Err(err) => tracing::warn!(error = %err, "reconcile failed"),
                }
            }
        })
        .await;
}

/// Runtimes in `namespace` whose spec references the Secret `name`.
fn runtimes_referencing(
    store: &Store<TrussiumRuntime>,
    namespace: Option<&str>,
    name: &str,
) -> Vec<ObjectRef<TrussiumRuntime>> {
    store
        .state()
        .iter()
        .filter(|rt| rt.namespace().as_deref() == namespace)
        .filter(|rt| referenced_secrets(rt).iter().any(|s| s == name))
        .map(|rt| ObjectRef::from_obj(rt.as_ref()))
        .collect()
}

fn error_policy(rt: Arc<TrussiumRuntime>, err: &Error, _ctx: Arc<Context>) -> Action {
    tracing::warn!(runtime = %rt.name_any(), error = %err, "reconcile error, retrying");
    Action::requeue(Duration::from_secs(10))
}
