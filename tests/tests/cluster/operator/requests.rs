//! What a runtime costs the API server, from the audit log: a new runtime
//! is nine requests, all writes (its five objects created, two Events, two
//! status writes), no read. Its objects are created by server-side applies
//! that only create, proven on every owned kind: the fields are the
//! operator's as an apply's (a later apply prunes one the creation set), and
//! an object that exists, the operator's or anyone's, is refused and left
//! as it was.

use std::collections::BTreeMap;
use std::fmt::Debug;
use std::time::Duration;

use super::support::PROGRESS_DEADLINE_ARG;
use k8s_openapi::NamespaceResourceScope;
use kube::api::{Patch, PatchParams, PostParams};
use kube::{Api, Client, Resource, ResourceExt};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::json;
use tokio::time::Instant;
use trussium_api::TrussiumRuntime;
use trussium_e2e::{
    BoxError, Harness, OPERATOR_NAMESPACE, OPERATOR_SERVICE_ACCOUNT, PROMPT, TestNamespace,
    TestResult, client_as_service_account, describe_requests, ensure, install, minimal,
    require_cluster, wait_for, with_operator,
};
use trussium_operator::pure::config::OperatorConfig;
use trussium_operator::pure::resources::{BuildContext, FIELD_MANAGER, build, creation_body};

/// A label the creation sets and the next apply leaves out.
const PRUNED: &str = "e2e.trussium.io/set-by-the-creation";

/// Waits until the operator has read the API server's revision after it
/// started leading (a list of at most one runtime, see `catch_up`): until
/// then a report reads its runtime fresh, by design.
async fn caught_up(h: &Harness) -> TestResult {
    wait_for(
        "the operator to catch its runtime cache up",
        PROMPT,
        async || {
            let caught_up = h
                .operator_requests_since(&h.before_start)
                .await?
                .iter()
                .any(|e| {
                    e.verb == "list"
                        && e.resource() == "trussiumruntimes"
                        && e.request_uri.contains("limit=1")
                });
            Ok(caught_up.then_some(()))
        },
    )
    .await?;
    Ok(())
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn a_new_runtime_costs_nine_requests_all_writes() -> TestResult {
    with_operator("op-requests", &[PROGRESS_DEADLINE_ARG], async |h| {
        caught_up(h).await?;
        let mark = h.mark();
        let created = Instant::now();
        h.create_runtime(minimal("x", json!({}))?).await?;
        h.wait_ready("x").await?;
        let rollout = created.elapsed();
        h.wait_until_quiet(Duration::from_secs(2)).await?;

        // Everything but the watches (and lists: the operator's start-up,
        // not this runtime's), by verb and resource.
        let requests: Vec<_> = h
            .operator_requests_since(&mark)
            .await?
            .into_iter()
            .filter(|e| e.verb != "list")
            .collect();
        let mut counts = BTreeMap::<String, usize>::new();
        for e in &requests {
            *counts
                .entry(format!("{} {}", e.verb, e.resource()))
                .or_default() += 1;
        }
        eprintln!("a new runtime: {} requests: {counts:?}", requests.len());
        // A status write that only says how far the rollout got waits 10 s
        // after the last one: a rollout slower than that may add one.
        let status_writes = counts.remove("patch trussiumruntimes/status").unwrap_or(0);
        let progress = usize::try_from(rollout.as_secs() / 10).unwrap_or(usize::MAX);
        ensure(
            (2..=2 + progress).contains(&status_writes),
            format!("{status_writes} status writes for a rollout of {rollout:?}"),
        )?;
        let expected = BTreeMap::from(
            [
                "create events",
                "patch configmaps",
                "patch deployments",
                "patch poddisruptionbudgets",
                "patch serviceaccounts",
                "patch services",
            ]
            .map(|r| (r.to_string(), if r == "create events" { 2 } else { 1 })),
        );
        ensure(
            counts == expected,
            format!(
                "besides the status writes, expected {expected:?}, got {counts:?}: {}",
                describe_requests(&requests)
            ),
        )?;
        // Each object was created by its one request (201), not read first.
        let created_objects = requests
            .iter()
            .filter(|e| e.verb == "patch" && e.resource() != "trussiumruntimes/status")
            .filter(|e| e.code() == 201)
            .count();
        ensure(
            created_objects == 5,
            format!(
                "not every object was created by its apply: {}",
                describe_requests(&requests)
            ),
        )
    })
    .await
}

/// Each owned kind, created by the operator's own request for it.
#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn an_owned_object_is_created_by_an_apply_that_only_creates() -> TestResult {
    require_cluster();
    let ns = TestNamespace::create("op-create-only").await?;
    let outcome = async {
        install(&ns.client).await?;
        let operator =
            client_as_service_account(&ns.client, OPERATOR_NAMESPACE, OPERATOR_SERVICE_ACCOUNT)
                .await?;
        // A runtime no operator serves: it owns what is built from it, so
        // that the garbage collector leaves the objects alone.
        let runtime: TrussiumRuntime = ns
            .api::<TrussiumRuntime>()
            .create(
                &PostParams::default(),
                &serde_json::from_value(minimal(
                    "x",
                    json!({
                        "networkPolicy": {"enabled": true, "ingress": [
                            {"namespaceSelector": {"matchLabels": {"team": "clients"}}},
                        ]},
                        "resources": {"requests": {"cpu": "100m"}},
                        "autoscaling": {"enabled": true, "minReplicas": 1, "maxReplicas": 3},
                    }),
                )?)?,
            )
            .await?;
        let config = OperatorConfig::default();
        let versions = BTreeMap::new();
        let desired = build(
            &runtime,
            &BuildContext {
                config: &config,
                secret_versions: &versions,
                observed_replicas: None,
            },
        )?;
        let (Some(policy), Some(autoscaler)) =
            (desired.network_policy, desired.horizontal_pod_autoscaler)
        else {
            return Err("no NetworkPolicy or HPA built".into());
        };
        let on = Kind {
            operator: &operator,
            ns: &ns,
        };
        on.creates_only(desired.config_map).await?;
        on.creates_only(desired.service_account).await?;
        on.creates_only(desired.service).await?;
        on.creates_only(desired.deployment).await?;
        on.creates_only(desired.pod_disruption_budget).await?;
        on.creates_only(policy).await?;
        on.creates_only(autoscaler).await?;
        Ok::<(), BoxError>(())
    }
    .await;
    ns.delete().await;
    outcome
}

/// Where the creations are tried: the operator's client, the test's namespace.
struct Kind<'a> {
    operator: &'a Client,
    ns: &'a TestNamespace,
}

impl Kind<'_> {
    /// Proves on `desired`'s kind: created by an apply that only creates,
    /// owned as an apply (a later apply prunes what only the creation set),
    /// refused once it exists; and refused on an object someone else
    /// created, which stays as it was.
    async fn creates_only<K>(&self, desired: K) -> TestResult
    where
        K: Resource<DynamicType = (), Scope = NamespaceResourceScope>
            + Clone
            + Debug
            + Serialize
            + DeserializeOwned,
    {
        let kind = K::kind(&()).to_string();
        let api: Api<K> = Api::namespaced(self.operator.clone(), &self.ns.name);
        let name = desired.name_any();
        let create_only = PatchParams::apply(FIELD_MANAGER);

        let mut first = desired.clone();
        first
            .meta_mut()
            .labels
            .get_or_insert_default()
            .insert(PRUNED.into(), "yes".into());
        let created = api
            .patch(&name, &create_only, &Patch::Apply(creation_body(&first)))
            .await?;
        let entries: Vec<(String, String)> = created
            .managed_fields()
            .iter()
            .map(|m| {
                (
                    m.manager.clone().unwrap_or_default(),
                    m.operation.clone().unwrap_or_default(),
                )
            })
            .collect();
        ensure(
            entries.contains(&(FIELD_MANAGER.into(), "Apply".into()))
                && !entries.contains(&(FIELD_MANAGER.into(), "Update".into())),
            format!("{kind}: the creation's fields are not owned as an apply's: {entries:?}"),
        )?;

        let again = api
            .patch(&name, &create_only, &Patch::Apply(creation_body(&desired)))
            .await;
        ensure(
            matches!(&again, Err(kube::Error::Api(s)) if s.code == 409),
            format!("{kind}: a second creation was not refused: {again:?}"),
        )?;
        let now = api.get(&name).await?;
        ensure(
            written(&now) == written(&created),
            format!("{kind}: the refused creation changed the object"),
        )?;

        let applied = api
            .patch(
                &name,
                &PatchParams::apply(FIELD_MANAGER).force(),
                &Patch::Apply(&desired),
            )
            .await?;
        ensure(
            !applied.labels().contains_key(PRUNED),
            format!("{kind}: the later apply did not prune the creation's label"),
        )?;

        // Someone else's object under the name: refused, untouched.
        let foreign_name = format!("{name}-foreign");
        let mut foreign = desired.clone();
        foreign.meta_mut().name = Some(foreign_name.clone());
        foreign.meta_mut().owner_references = None;
        let foreign = self
            .ns
            .api::<K>()
            .create(&PostParams::default(), &foreign)
            .await?;
        let mut ours = desired;
        ours.meta_mut().name = Some(foreign_name.clone());
        let refused = api
            .patch(
                &foreign_name,
                &create_only,
                &Patch::Apply(creation_body(&ours)),
            )
            .await;
        ensure(
            matches!(&refused, Err(kube::Error::Api(s)) if s.code == 409),
            format!("{kind}: creating over someone else's object was not refused: {refused:?}"),
        )?;
        let after = api.get(&foreign_name).await?;
        ensure(
            written(&after) == written(&foreign)
                && after.owner_references().is_empty()
                && !after
                    .managed_fields()
                    .iter()
                    .any(|m| m.manager.as_deref() == Some(FIELD_MANAGER)),
            format!("{kind}: someone else's object was changed"),
        )
    }
}

/// What a write other than a status update changes: the generation (the
/// spec), labels, owners and who manages which fields. A resourceVersion
/// comparison would not do: the Deployment controller writes status to the
/// object meanwhile.
fn written<K: Resource>(object: &K) -> impl PartialEq + Debug {
    let meta = object.meta();
    let managers: Vec<_> = meta
        .managed_fields
        .iter()
        .flatten()
        .filter(|m| m.subresource.as_deref() != Some("status"))
        .map(|m| (m.manager.clone(), m.operation.clone(), m.fields_v1.clone()))
        .collect();
    (
        meta.generation,
        meta.labels.clone(),
        meta.owner_references.clone(),
        managers,
    )
}
