//! The watched kinds, each declared once: a field of [`Caches`] and one
//! line of [`watch`], which opens its watch, fills its cache (which joins
//! readiness as it is made) and wires the reconciles it triggers. A kind
//! added to [`Caches`] and not opened here does not compile; an owned kind
//! opened here cannot be left unwired.

use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::autoscaling::v2::HorizontalPodAutoscaler;
use k8s_openapi::api::core::v1::{ConfigMap, Secret, Service, ServiceAccount};
use k8s_openapi::api::networking::v1::NetworkPolicy;
use k8s_openapi::api::policy::v1::PodDisruptionBudget;
use kube::core::PartialObjectMeta;
use kube::runtime::reflector::{ObjectRef, Store};
use std::sync::Arc;

use futures::stream::BoxStream;
use kube::runtime::{Controller, WatchStreamExt, watcher};
use kube::{Client, Resource, ResourceExt};
use serde::de::DeserializeOwned;
use trussium_api::TrussiumRuntime;
use trussium_api::labels::{MANAGED_BY, MANAGED_BY_VALUE};

use super::readable::{Lenient, readable};
use super::{Cached, Kept, Own, Readiness, Refusals, Synced, Unreadable, Watch, lists};
use crate::pure::references::referenced_secrets;
use crate::shell::controller::scope::Scope;

/// Every cache a reconcile reads, one per watched kind.
pub struct Caches {
    pub runtimes: Cached<TrussiumRuntime>,
    pub config_maps: Cached<ConfigMap>,
    pub service_accounts: Cached<ServiceAccount>,
    pub services: Cached<Service>,
    pub deployments: Cached<Deployment>,
    pub pod_disruption_budgets: Cached<PodDisruptionBudget>,
    pub network_policies: Cached<NetworkPolicy>,
    pub horizontal_pod_autoscalers: Cached<HorizontalPodAutoscaler>,
    pub secrets: Cached<PartialObjectMeta<Secret>>,
    /// Each runtime's own status (see [`Own`]).
    pub own: Arc<Own>,
    /// Runtimes whose status could not be read whole.
    pub unreadable: Arc<Unreadable>,
    synced: Synced,
}

/// Opens the watch of every kind in `scope`, each opened again every
/// `timeout` seconds: the caches a reconcile reads, and the controller their
/// events trigger (to be configured and run by the caller).
pub fn watch(
    client: &Client,
    scope: &Scope,
    timeout: u32,
) -> (Caches, Controller<TrussiumRuntime>) {
    let everything = watcher::Config::default().timeout(timeout);
    // Owned objects carry our label; nothing else of those kinds is read.
    let owned = everything
        .clone()
        .labels(&format!("{MANAGED_BY}={MANAGED_BY_VALUE}"));
    let mut open = Opener {
        client,
        scope,
        readiness: Readiness::default(),
    };

    // Primary: the store takes in every change, read leniently (a status
    // the operator's types cannot hold does not fail the watch). Spec
    // changes reconcile, and status changes that are not the operator's own
    // (to repair them at once); our own status writes must not loop.
    let own = Arc::new(Own::default());
    let unreadable = Arc::new(Unreadable::default());
    let (runtimes, changes) = open.runtimes(&everything, unreadable.clone(), own.clone());
    let trigger = own.clone();
    let changes = changes
        .applied_objects()
        .try_filter(move |rt| futures::future::ready(trigger.trigger(rt)));
    let controller = Controller::for_stream(changes, runtimes.store());

    // Owned kinds: unfiltered, so status changes (Deployment readiness) and
    // deletions (recreate) re-trigger the runtime that owns the object.
    let (config_maps, controller) = open.owned(controller, &owned);
    let (service_accounts, controller) = open.owned(controller, &owned);
    let (services, controller) = open.owned(controller, &owned);
    let (deployments, controller) = open.owned(controller, &owned);
    let (pod_disruption_budgets, controller) = open.owned(controller, &owned);
    let (network_policies, controller) = open.owned(controller, &owned);
    let (horizontal_pod_autoscalers, controller) = open.owned(controller, &owned);

    // Secrets: mapped to the runtimes of that namespace that reference them
    // (creation unblocks, rotation rolls the pods). `Api<PartialObjectMeta<_>>`
    // uses the metadata-only endpoints.
    let (secrets, changes, refused) = open.watch::<PartialObjectMeta<Secret>>(&everything);
    let referencing = runtimes.store();
    let with_secrets = runtimes.store();
    let controller = controller
        .watches_stream(changes.touched_objects(), move |secret| {
            runtimes_referencing(
                &referencing,
                secret.namespace().as_deref(),
                &secret.name_any(),
            )
        })
        // Refused the Secret watch: every runtime with a Secret reference
        // checks it again now (and reports the refusal), without waiting
        // for a change or the resync.
        .reconcile_on(
            refused.flat_map(move |()| futures::stream::iter(runtimes_with_secrets(&with_secrets))),
        );

    let caches = Caches {
        runtimes,
        config_maps,
        service_accounts,
        services,
        deployments,
        pod_disruption_budgets,
        network_policies,
        horizontal_pod_autoscalers,
        secrets,
        own,
        unreadable,
        synced: open.readiness.synced(),
    };
    (caches, controller)
}

impl Caches {
    /// Resolves once every store holds its first full list: before that, an
    /// empty store would read as "nothing exists" and every object would be
    /// applied again.
    /// `false` when a watch stopped first (the controller is shutting down).
    pub async fn ready(&self) -> bool {
        self.synced.wait().await
    }

    /// Whether every store has taken in its first full list, without waiting
    /// (readiness asks this: a second waiter on a store's
    /// `wait_until_ready` could take the wake-up from the controller's).
    pub fn all_listed(&self) -> bool {
        self.synced.now()
    }

    /// The resourceVersion of Secret `namespace/name`, if it exists.
    pub fn secret_version(&self, namespace: &str, name: &str) -> Option<String> {
        self.secrets
            .get(namespace, name)
            .map(|secret| secret.resource_version().unwrap_or_default())
    }
}

/// Opens watches in one scope; every cache it makes joins its readiness.
struct Opener<'a> {
    client: &'a Client,
    scope: &'a Scope,
    readiness: Readiness,
}

impl Opener<'_> {
    /// The cache of kind `K` in the scope, the watch that fills it (its
    /// lists streamed where the API server can: [`lists`]), and when that
    /// watch is refused.
    fn watch<K>(&mut self, config: &watcher::Config) -> (Cached<K>, Watch<K>, Refusals)
    where
        K: Resource<DynamicType = (), Scope = k8s_openapi::NamespaceResourceScope>
            + Clone
            + Kept
            + DeserializeOwned
            + std::fmt::Debug
            + Send
            + Sync
            + 'static,
    {
        let watch = lists::streamed_or_paged(self.scope.api::<K>(self.client), config.clone())
            .default_backoff();
        Cached::reflect(watch, &mut self.readiness)
    }

    /// The runtimes' cache and the watch that fills it, each runtime read
    /// leniently (what could not be read is recorded in `unreadable`).
    fn runtimes(
        &mut self,
        config: &watcher::Config,
        unreadable: Arc<Unreadable>,
        own: Arc<Own>,
    ) -> (Cached<TrussiumRuntime>, Watch<TrussiumRuntime>) {
        let lenient =
            lists::streamed_or_paged(self.scope.api::<Lenient>(self.client), config.clone());
        let watch: BoxStream<'static, _> = readable(lenient, unreadable, own).boxed();
        let (cached, changes, _) = Cached::reflect(watch.default_backoff(), &mut self.readiness);
        (cached, changes)
    }

    /// An owned kind's cache, its watch wired to reconcile the runtime that
    /// owns each object it sees change.
    fn owned<K>(
        &mut self,
        controller: Controller<TrussiumRuntime>,
        config: &watcher::Config,
    ) -> (Cached<K>, Controller<TrussiumRuntime>)
    where
        K: Resource<DynamicType = (), Scope = k8s_openapi::NamespaceResourceScope>
            + Clone
            + Kept
            + DeserializeOwned
            + std::fmt::Debug
            + Send
            + Sync
            + 'static,
    {
        let (cached, changes, _) = self.watch::<K>(config);
        (cached, controller.owns_stream(changes.touched_objects()))
    }
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

/// Runtimes that reference any Secret.
fn runtimes_with_secrets(store: &Store<TrussiumRuntime>) -> Vec<ObjectRef<TrussiumRuntime>> {
    store
        .state()
        .iter()
        .filter(|rt| !referenced_secrets(rt).is_empty())
        .map(|rt| ObjectRef::from_obj(rt.as_ref()))
        .collect()
}
