//! The operator's view of the cluster: reflector stores fed by its watches,
//! plus what the operator itself has just written, until the watches catch up.
//!
//! Reconciles decide from here and send no read of their own: a reconcile
//! that finds nothing to change sends no request at all. The watches keep
//! only what the operator reads (see [`Kept`]).
//!
//! A watch lags the operator's own writes by a moment. Deciding from a cache
//! that does not yet show our last write would apply the same object twice,
//! and, for the runtime's status, announce the same transition twice. So
//! every object the operator writes is remembered (as the API server returned
//! it) until the watch of its kind has delivered an event at least as recent
//! (resourceVersions are etcd revisions: a watch delivers them in increasing
//! order, and a write's response carries the revision it created).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::channel::mpsc;
use futures::future::{BoxFuture, Shared};
use futures::stream::BoxStream;
use futures::{FutureExt, Stream, StreamExt, TryStreamExt};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::autoscaling::v2::HorizontalPodAutoscaler;
use k8s_openapi::api::core::v1::{ConfigMap, Secret, Service, ServiceAccount};
use k8s_openapi::api::networking::v1::NetworkPolicy;
use k8s_openapi::api::policy::v1::PodDisruptionBudget;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::core::PartialObjectMeta;
use kube::runtime::reflector::{self, ObjectRef, Store};
use kube::runtime::{WatchStreamExt, watcher};
use kube::{Client, Resource, ResourceExt};
use serde::de::DeserializeOwned;
use trussium_api::TrussiumRuntime;
use trussium_api::labels::{MANAGED_BY, MANAGED_BY_VALUE};

use super::{Scope, lock};

/// How long a remembered write may stand in for a cache that has not caught
/// up. Far longer than any watch lag; it only bounds the case where the watch
/// re-listed and the object was deleted meanwhile (then no event of ours ever
/// comes).
const LAG_LIMIT: Duration = Duration::from_secs(60);

/// A watch event stream, after the store has taken it in.
pub type Watch<K> = BoxStream<'static, Result<watcher::Event<K>, watcher::Error>>;

/// One item each time a watch turns from accepted to refused.
pub type Refusals = BoxStream<'static, ()>;

/// One kind's cache: the store, how far its watch has got, and our writes it
/// has not shown yet.
pub struct Cached<K: Resource<DynamicType = ()> + Clone + 'static> {
    store: Store<K>,
    /// The highest resourceVersion the store reflects.
    seen: Arc<AtomicU64>,
    /// Whether the store has taken in a first full list.
    listed: Arc<AtomicBool>,
    /// Whether the API server refuses the watch right now.
    refusal: Arc<Refusal>,
    written: Mutex<Written<K>>,
}

/// A watch the API server refuses (403: our permission was revoked). An open
/// watch outlives a revoked permission; the refusal shows when the watch is
/// opened again (every `--watch-timeout-seconds`). Until then the store still
/// answers, from what it had: it may be stale, and the operator may no longer
/// be allowed to know.
pub struct Refusal {
    /// Why, as the API server said it; `None` while the watch is accepted.
    message: Mutex<Option<String>>,
    /// One item each time the watch turns from accepted to refused.
    began: mpsc::UnboundedSender<()>,
}

impl Refusal {
    fn refused(&self, message: String) {
        let mut current = lock(&self.message);
        if current.is_none() {
            // Nobody listening (the controller stopped) is no error.
            let _ = self.began.unbounded_send(());
        }
        *current = Some(message);
    }

    fn accepted(&self) {
        *lock(&self.message) = None;
    }
}

/// Whether `err` says the API server refused us (rather than being away).
fn refusal(err: &watcher::Error) -> Option<String> {
    let forbidden = match err {
        watcher::Error::InitialListFailed(kube::Error::Api(status))
        | watcher::Error::WatchStartFailed(kube::Error::Api(status))
        | watcher::Error::WatchFailed(kube::Error::Api(status))
        | watcher::Error::WatchError(status) => status.is_forbidden(),
        _ => false,
    };
    forbidden.then(|| err.to_string())
}

struct Written<K: Resource<DynamicType = ()> + Clone + 'static> {
    objects: HashMap<ObjectRef<K>, Remembered<K>>,
    swept: Instant,
}

struct Remembered<K> {
    object: Arc<K>,
    version: u64,
    at: Instant,
}

impl<K> Cached<K>
where
    K: Resource<DynamicType = ()> + Clone + Kept + DeserializeOwned + std::fmt::Debug + Send + Sync,
{
    /// Starts reflecting `watch` into a new store. The returned stream must be
    /// polled (by the controller) for the store to fill.
    fn reflect(
        watch: impl Stream<Item = Result<watcher::Event<K>, watcher::Error>> + Send + 'static,
    ) -> (Cached<K>, Watch<K>, Refusals) {
        let (store, writer) = reflector::store();
        let seen = Arc::new(AtomicU64::new(0));
        let listed = Arc::new(AtomicBool::new(false));
        let (began, refusals) = mpsc::unbounded();
        let refusal = Arc::new(Refusal {
            message: Mutex::new(None),
            began,
        });
        let stream = track_versions(
            watch.modify(Kept::keep_only_what_is_read).reflect(writer),
            seen.clone(),
            listed.clone(),
            refusal.clone(),
        )
        .boxed();
        let cached = Cached {
            store,
            seen,
            listed,
            refusal,
            written: Mutex::new(Written {
                objects: HashMap::new(),
                swept: Instant::now(),
            }),
        };
        (cached, stream, refusals.boxed())
    }

    /// The object as the operator last knew it: the cached one, or our own
    /// write when the cache does not show it yet.
    pub fn get(&self, namespace: &str, name: &str) -> Option<Arc<K>> {
        let key = ObjectRef::new(name).within(namespace);
        let cached = self.store.get(&key);
        let mut written = lock(&self.written);
        if let Some(ours) = written.objects.get(&key) {
            let seen = self.seen.load(Ordering::Acquire);
            let cached_version = cached.as_deref().and_then(version);
            if cache_lags(ours.version, seen, cached_version) && ours.at.elapsed() < LAG_LIMIT {
                return Some(ours.object.clone());
            }
            written.objects.remove(&key);
        }
        cached
    }

    /// Remembers `object` as the API server returned it (from our write, or
    /// a fresh read).
    pub fn remember(&self, mut object: K) -> Arc<K> {
        object.keep_only_what_is_read();
        let object = Arc::new(object);
        let Some(version) = version(object.as_ref()) else {
            return object;
        };
        let mut written = lock(&self.written);
        // Entries of objects nobody asks for again (their runtime is gone)
        // would stay: sweep the stale ones now and then.
        if written.swept.elapsed() > LAG_LIMIT {
            written.objects.retain(|_, w| w.at.elapsed() < LAG_LIMIT);
            written.swept = Instant::now();
        }
        written.objects.insert(
            ObjectRef::from_obj(&object),
            Remembered {
                object: object.clone(),
                version,
                at: Instant::now(),
            },
        );
        object
    }

    /// Forgets our write of `namespace/name` (after deleting it).
    pub fn forget(&self, namespace: &str, name: &str) {
        lock(&self.written)
            .objects
            .remove(&ObjectRef::new(name).within(namespace));
    }

    /// Whether the store has taken in its first full list.
    pub fn listed(&self) -> bool {
        self.listed.load(Ordering::Acquire)
    }

    /// Why the API server refuses this kind's watch, if it does now.
    pub fn refused(&self) -> Option<String> {
        lock(&self.refusal.message).clone()
    }

    /// Records that a fresh read of this kind was allowed: the permission is
    /// back, and the watch, retrying, resumes where it stopped.
    pub fn read_allowed(&self) {
        self.refusal.accepted();
    }

    /// The store itself (what the controller looks triggers up in).
    pub fn store(&self) -> Store<K> {
        self.store.clone()
    }
}

/// Whether the cache does not show our write of `written` yet: its watch has
/// not got that far, and the cached object (if any) is older.
fn cache_lags(written: u64, seen: u64, cached: Option<u64>) -> bool {
    seen < written && cached.is_none_or(|cached| cached < written)
}

/// The resourceVersion as a number; `None` if the server sent something else
/// (then nothing is remembered and the cache alone decides).
fn version<K: Resource>(object: &K) -> Option<u64> {
    object.meta().resource_version.as_deref()?.parse().ok()
}

/// Records in `seen` the highest resourceVersion the store reflects: Apply
/// and Delete events once the store has them, a (re-)list when it is done.
/// Records in `refusal` whether the API server refuses the watch.
fn track_versions<K: Resource>(
    stream: impl Stream<Item = Result<watcher::Event<K>, watcher::Error>>,
    seen: Arc<AtomicU64>,
    listed: Arc<AtomicBool>,
    refusal: Arc<Refusal>,
) -> impl Stream<Item = Result<watcher::Event<K>, watcher::Error>> {
    let mut last_listed = 0;
    let accepted = refusal.clone();
    stream
        .inspect_err(move |err| {
            if let Some(message) = self::refusal(err) {
                refusal.refused(message);
            }
        })
        .inspect_ok(move |event| {
            accepted.accepted();
            track_version(event, &seen, &listed, &mut last_listed);
        })
}

fn track_version<K: Resource>(
    event: &watcher::Event<K>,
    seen: &AtomicU64,
    listed: &AtomicBool,
    last_listed: &mut u64,
) {
    match event {
        watcher::Event::Apply(object) | watcher::Event::Delete(object) => {
            seen.fetch_max(version(object).unwrap_or(0), Ordering::AcqRel);
        }
        watcher::Event::Init => *last_listed = 0,
        watcher::Event::InitApply(object) => {
            *last_listed = version(object).unwrap_or(0).max(*last_listed);
        }
        watcher::Event::InitDone => {
            seen.fetch_max(*last_listed, Ordering::AcqRel);
            listed.store(true, Ordering::Release);
        }
    }
}

/// What a watch keeps of each object: only what the operator reads.
pub trait Kept {
    fn keep_only_what_is_read(&mut self);
}

/// `kubectl apply` (client side) copies the whole object into this
/// annotation; nothing of the operator reads it.
const LAST_APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

/// Metadata minus managedFields (only the list take-over needs them, and it
/// reads the object fresh) and minus a `kubectl apply` copy of the object.
fn trim_metadata(meta: &mut ObjectMeta) {
    meta.managed_fields = None;
    if let Some(annotations) = meta.annotations.as_mut() {
        annotations.remove(LAST_APPLIED);
    }
}

macro_rules! kept_without_status {
    ($($kind:ty),*) => {$(
        impl Kept for $kind {
            fn keep_only_what_is_read(&mut self) {
                trim_metadata(&mut self.metadata);
                self.status = None;
            }
        }
    )*};
}
// The drift check compares specs; no status of these is read.
kept_without_status!(Service, PodDisruptionBudget, HorizontalPodAutoscaler);

macro_rules! kept_whole {
    ($($kind:ty),*) => {$(
        impl Kept for $kind {
            fn keep_only_what_is_read(&mut self) {
                trim_metadata(&mut self.metadata);
            }
        }
    )*};
}
// The runtime (its stored status is what Events are diffed against), the
// Deployment (its status is the rollout) and kinds without status.
kept_whole!(
    TrussiumRuntime,
    Deployment,
    ConfigMap,
    ServiceAccount,
    NetworkPolicy
);

/// Of a Secret, only that it exists and its resourceVersion (rotation rolls
/// the pods). Its annotations may hold its data (`kubectl apply` copies the
/// Secret into one): dropped as they arrive, with everything else.
impl Kept for PartialObjectMeta<Secret> {
    fn keep_only_what_is_read(&mut self) {
        let meta = std::mem::take(&mut self.metadata);
        self.metadata = ObjectMeta {
            name: meta.name,
            namespace: meta.namespace,
            resource_version: meta.resource_version,
            ..ObjectMeta::default()
        };
    }
}

/// Every cache a reconcile reads.
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
    /// Resolves once every store holds its first full list. Shared: a
    /// store's own readiness future wakes only its last poller, and many
    /// reconciles wait at start-up.
    synced: Shared<BoxFuture<'static, bool>>,
}

/// The watches that fill [`Caches`], for the controller to poll and be
/// triggered by.
pub struct Watches {
    pub runtimes: Watch<TrussiumRuntime>,
    pub config_maps: Watch<ConfigMap>,
    pub service_accounts: Watch<ServiceAccount>,
    pub services: Watch<Service>,
    pub deployments: Watch<Deployment>,
    pub pod_disruption_budgets: Watch<PodDisruptionBudget>,
    pub network_policies: Watch<NetworkPolicy>,
    pub horizontal_pod_autoscalers: Watch<HorizontalPodAutoscaler>,
    pub secrets: Watch<PartialObjectMeta<Secret>>,
    /// When the Secret watch is refused, runtimes referencing Secrets must
    /// say so without waiting for a change or the resync.
    pub secrets_refused: Refusals,
}

impl Caches {
    /// The caches of everything in `scope`, and the watches that fill them.
    /// Each watch is opened again every `timeout` seconds.
    pub fn watch(client: &Client, scope: &Scope, timeout: u32) -> (Caches, Watches) {
        let everything = watcher::Config::default().timeout(timeout);
        // Owned objects carry our label; nothing else of those kinds is read.
        let owned = everything
            .clone()
            .labels(&format!("{MANAGED_BY}={MANAGED_BY_VALUE}"));
        // Secrets one by one (a streaming list): a page of 500 Secrets'
        // metadata, annotations and all, would be a transient heap the size
        // of their data.
        let secrets = everything.clone().streaming_lists();

        macro_rules! watch {
            ($kind:ty, $config:expr) => {
                Cached::<$kind>::reflect(
                    watcher(scope.api::<$kind>(client), $config.clone()).default_backoff(),
                )
            };
        }
        let (runtimes, runtimes_watch, _) = watch!(TrussiumRuntime, everything);
        let (config_maps, config_maps_watch, _) = watch!(ConfigMap, owned);
        let (service_accounts, service_accounts_watch, _) = watch!(ServiceAccount, owned);
        let (services, services_watch, _) = watch!(Service, owned);
        let (deployments, deployments_watch, _) = watch!(Deployment, owned);
        let (pdbs, pdbs_watch, _) = watch!(PodDisruptionBudget, owned);
        let (policies, policies_watch, _) = watch!(NetworkPolicy, owned);
        let (hpas, hpas_watch, _) = watch!(HorizontalPodAutoscaler, owned);
        // `Api<PartialObjectMeta<_>>` uses the metadata-only endpoints.
        let (secret_metadata, secrets_watch, secrets_refused) =
            watch!(PartialObjectMeta<Secret>, secrets);
        let synced = {
            let stores = (
                runtimes.store(),
                config_maps.store(),
                service_accounts.store(),
                services.store(),
                deployments.store(),
                pdbs.store(),
                policies.store(),
                hpas.store(),
                secret_metadata.store(),
            );
            async move {
                stores.0.wait_until_ready().await.is_ok()
                    && stores.1.wait_until_ready().await.is_ok()
                    && stores.2.wait_until_ready().await.is_ok()
                    && stores.3.wait_until_ready().await.is_ok()
                    && stores.4.wait_until_ready().await.is_ok()
                    && stores.5.wait_until_ready().await.is_ok()
                    && stores.6.wait_until_ready().await.is_ok()
                    && stores.7.wait_until_ready().await.is_ok()
                    && stores.8.wait_until_ready().await.is_ok()
            }
            .boxed()
            .shared()
        };
        (
            Caches {
                synced,
                runtimes,
                config_maps,
                service_accounts,
                services,
                deployments,
                pod_disruption_budgets: pdbs,
                network_policies: policies,
                horizontal_pod_autoscalers: hpas,
                secrets: secret_metadata,
            },
            Watches {
                runtimes: runtimes_watch,
                config_maps: config_maps_watch,
                service_accounts: service_accounts_watch,
                services: services_watch,
                deployments: deployments_watch,
                pod_disruption_budgets: pdbs_watch,
                network_policies: policies_watch,
                horizontal_pod_autoscalers: hpas_watch,
                secrets: secrets_watch,
                secrets_refused,
            },
        )
    }

    /// Resolves once every store holds its first full list: before that, an
    /// empty store would read as "nothing exists" and every object would be
    /// applied again.
    /// `false` when a watch stopped first (the controller is shutting down).
    pub async fn ready(&self) -> bool {
        self.synced.clone().await
    }

    /// Whether every store has taken in its first full list, without waiting
    /// (readiness asks this: a second waiter on a store's
    /// `wait_until_ready` could take the wake-up from the controller's).
    pub fn all_listed(&self) -> bool {
        self.runtimes.listed()
            && self.config_maps.listed()
            && self.service_accounts.listed()
            && self.services.listed()
            && self.deployments.listed()
            && self.pod_disruption_budgets.listed()
            && self.network_policies.listed()
            && self.horizontal_pod_autoscalers.listed()
            && self.secrets.listed()
    }

    /// The resourceVersion of Secret `namespace/name`, if it exists.
    pub fn secret_version(&self, namespace: &str, name: &str) -> Option<String> {
        self.secrets
            .get(namespace, name)
            .map(|secret| secret.resource_version().unwrap_or_default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn our_write_stands_in_until_the_watch_has_passed_it() {
        // The watch has not reached our write, the store has an older copy.
        assert!(cache_lags(10, 9, Some(5)));
        // ... or none yet (we just created it).
        assert!(cache_lags(10, 9, None));
        // The store shows our write, or something newer.
        assert!(!cache_lags(10, 10, Some(10)));
        assert!(!cache_lags(10, 9, Some(12)));
        // The watch went past our write and the object is gone: someone
        // deleted it, and the store's absence is the truth.
        assert!(!cache_lags(10, 11, None));
    }

    #[test]
    fn secrets_keep_nothing_but_name_and_version() {
        let mut secret = PartialObjectMeta::<Secret> {
            types: None,
            metadata: ObjectMeta {
                name: Some("s".into()),
                namespace: Some("ns".into()),
                resource_version: Some("42".into()),
                uid: Some("u".into()),
                labels: Some(BTreeMap::from([("a".into(), "b".into())])),
                annotations: Some(BTreeMap::from([(
                    LAST_APPLIED.into(),
                    "{\"data\":..}".into(),
                )])),
                managed_fields: Some(vec![Default::default()]),
                ..ObjectMeta::default()
            },
            _phantom: Default::default(),
        };
        secret.keep_only_what_is_read();
        assert_eq!(
            secret.metadata,
            ObjectMeta {
                name: Some("s".into()),
                namespace: Some("ns".into()),
                resource_version: Some("42".into()),
                ..ObjectMeta::default()
            }
        );
    }

    #[test]
    fn owned_objects_lose_managed_fields_and_last_applied_only() {
        let mut service = Service {
            metadata: ObjectMeta {
                name: Some("s".into()),
                annotations: Some(BTreeMap::from([
                    (LAST_APPLIED.into(), "{}".into()),
                    ("runtime.trussium.io/applied-hash".into(), "h".into()),
                ])),
                managed_fields: Some(vec![Default::default()]),
                ..ObjectMeta::default()
            },
            spec: Some(Default::default()),
            status: Some(Default::default()),
        };
        service.keep_only_what_is_read();
        assert_eq!(service.metadata.managed_fields, None);
        assert_eq!(
            service.metadata.annotations,
            Some(BTreeMap::from([(
                "runtime.trussium.io/applied-hash".into(),
                "h".into()
            )]))
        );
        assert!(service.spec.is_some());
        assert!(service.status.is_none());

        let mut deployment = Deployment {
            status: Some(Default::default()),
            ..Deployment::default()
        };
        deployment.keep_only_what_is_read();
        assert!(deployment.status.is_some(), "the rollout is read from it");
    }
}
