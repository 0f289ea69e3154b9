//! The harness of the tests that run an operator per namespace: a namespace
//! of its own with its own operator (running as the operator's
//! ServiceAccount, watching only that namespace), the audit log, and the
//! waits on the cluster every such test needs.
//!
//! Waiting has two shapes only (both from this crate): [`wait_for`] (until
//! the final state shows; a fast controller may skip an intermediate state,
//! so nothing here waits for one) and [`holds_for`] (a bounded window in
//! which something must not happen).

use std::collections::BTreeMap;
use std::panic::AssertUnwindSafe;
use std::time::Duration;

use futures::FutureExt;
use k8s_openapi::ByteString;
use k8s_openapi::api::core::v1::Secret;
use k8s_openapi::api::events::v1::Event;
use kube::api::{ListParams, Patch, PatchParams, PostParams};
use kube::{Api, Resource, ResourceExt};
use serde_json::{Value, json};
use trussium_api::TrussiumRuntime;
use trussium_operator::pure::references::referenced_secrets;

use crate::{
    Audit, AuditEvent, AuditMark, BoxError, CONVERGE, EVENTS_LAG, Error, Kubectl, OPERATOR_USER,
    Operator, QUIET_AFTER_SETTLING, Relay, SeenEvent, TestNamespace, TestResult,
    admin_kubeconfig_path, api_server_address, condition, condition_summary, describe_events,
    holds_for, kubectl, pairs, require_cluster, secret, wait_for,
};

/// One test's world: its namespace, its operator and the audit log (and the
/// relay in front of the API server, for [`with_operator_behind_relay`]).
pub struct Harness {
    pub ns: TestNamespace,
    pub operator: Operator,
    pub audit: Audit,
    /// The audit log before the operator started.
    pub before_start: AuditMark,
    pub relay: Option<Relay>,
}

/// A point in the audit log (what it derefs to) and in the operator's log.
#[derive(Clone, Copy, Debug)]
pub struct Mark {
    pub audit: AuditMark,
    pub log: u64,
}

impl std::ops::Deref for Mark {
    type Target = AuditMark;
    fn deref(&self) -> &AuditMark {
        &self.audit
    }
}

/// Runs `body` in a fresh namespace with its own operator (started with
/// `operator_args`); afterwards stops the operator and deletes the
/// namespace. When the body fails (error or panic) the operator's log is
/// printed first.
pub async fn with_operator<F>(prefix: &str, operator_args: &[&str], body: F) -> TestResult
where
    F: AsyncFnOnce(&mut Harness) -> TestResult,
{
    run(prefix, operator_args, false, body).await
}

/// [`with_operator`], the operator reaching the API server through a
/// [`Relay`] (`harness.relay`) the test can cut.
pub async fn with_operator_behind_relay<F>(
    prefix: &str,
    operator_args: &[&str],
    body: F,
) -> TestResult
where
    F: AsyncFnOnce(&mut Harness) -> TestResult,
{
    run(prefix, operator_args, true, body).await
}

async fn run<F>(prefix: &str, operator_args: &[&str], relayed: bool, body: F) -> TestResult
where
    F: AsyncFnOnce(&mut Harness) -> TestResult,
{
    require_cluster();
    let ns = TestNamespace::create(prefix).await?;
    let audit = Audit::open()?;
    let before_start = audit.mark();
    let started = async {
        if !relayed {
            return Ok((
                Operator::start(&ns.client, &ns.name, operator_args).await?,
                None,
            ));
        }
        let relay = Relay::start(api_server_address(&admin_kubeconfig_path())?).await?;
        let operator = Operator::start_behind(&ns.client, &ns.name, operator_args, &relay).await?;
        Ok::<_, BoxError>((operator, Some(relay)))
    }
    .await;
    let (operator, relay) = match started {
        Ok(started) => started,
        Err(err) => {
            ns.delete().await;
            return Err(err);
        }
    };
    let mut harness = Harness {
        ns,
        operator,
        audit,
        before_start,
        relay,
    };
    let outcome = AssertUnwindSafe(body(&mut harness)).catch_unwind().await;
    if !matches!(outcome, Ok(Ok(()))) {
        eprintln!(
            "---- operator log of namespace {} ({}) ----\n{}---- end of operator log ----",
            harness.ns.name,
            harness.operator.log.display(),
            harness.operator.log_text()
        );
    }
    harness.operator.stop().await;
    harness.ns.delete().await;
    match outcome {
        Ok(result) => result,
        Err(panic) => std::panic::resume_unwind(panic),
    }
}

impl Harness {
    pub fn namespace(&self) -> &str {
        &self.ns.name
    }

    pub fn api<K>(&self) -> Api<K>
    where
        K: Resource<Scope = k8s_openapi::NamespaceResourceScope>,
        <K as Resource>::DynamicType: Default,
    {
        self.ns.api()
    }

    pub fn runtimes(&self) -> Api<TrussiumRuntime> {
        self.api()
    }

    pub fn events(&self) -> Api<Event> {
        self.api()
    }

    pub fn secrets(&self) -> Api<Secret> {
        self.api()
    }

    /// Creates a runtime from its JSON manifest, as the admin.
    pub async fn create_runtime(&self, manifest: Value) -> Result<TrussiumRuntime, BoxError> {
        let rt: TrussiumRuntime = serde_json::from_value(manifest)?;
        Ok(self.runtimes().create(&PostParams::default(), &rt).await?)
    }

    pub async fn get(&self, name: &str) -> Result<TrussiumRuntime, BoxError> {
        Ok(self.runtimes().get(name).await?)
    }

    /// Merges `spec_changes` into the runtime's spec (JSON merge patch).
    pub async fn patch_spec(
        &self,
        name: &str,
        spec_changes: Value,
    ) -> Result<TrussiumRuntime, BoxError> {
        Ok(self
            .runtimes()
            .patch(
                name,
                &PatchParams::default(),
                &Patch::Merge(json!({ "spec": spec_changes })),
            )
            .await?)
    }

    /// Merges `spec_changes` into the runtime's spec; returns the new generation.
    pub async fn set_spec(&self, name: &str, spec_changes: Value) -> Result<i64, BoxError> {
        let rt = self.patch_spec(name, spec_changes).await?;
        Ok(rt.metadata.generation.unwrap_or_default())
    }

    /// Sets `spec.replicas`; returns the new generation.
    pub async fn set_replicas(&self, name: &str, replicas: i32) -> Result<i64, BoxError> {
        let rt = self
            .patch_spec(name, json!({ "replicas": replicas }))
            .await?;
        Ok(rt.metadata.generation.unwrap_or_default())
    }

    /// Sets `spec.image` to `repository:tag`; returns the new generation.
    pub async fn set_image(&self, name: &str, reference: &str) -> Result<i64, BoxError> {
        let (repository, tag) = reference
            .rsplit_once(':')
            .ok_or_else(|| format!("{reference} has no tag"))?;
        let rt = self
            .patch_spec(
                name,
                json!({ "image": { "repository": repository, "tag": tag } }),
            )
            .await?;
        Ok(rt.metadata.generation.unwrap_or_default())
    }

    /// Creates an Opaque Secret with one key.
    pub async fn create_secret(&self, name: &str, key: &str, value: &str) -> TestResult {
        self.create_secret_with(name, key, value, BTreeMap::new())
            .await
    }

    /// Creates an Opaque Secret with one key and the given annotations.
    pub async fn create_secret_with(
        &self,
        name: &str,
        key: &str,
        value: &str,
        annotations: BTreeMap<String, String>,
    ) -> TestResult {
        let mut secret = secret(name, key, value);
        secret.metadata.annotations = (!annotations.is_empty()).then_some(annotations);
        self.secrets()
            .create(&PostParams::default(), &secret)
            .await?;
        Ok(())
    }

    /// Replaces the value of one key of a Secret (a rotation).
    pub async fn rotate_secret(&self, name: &str, key: &str, value: &str) -> TestResult {
        let encoded = ByteString(value.as_bytes().to_vec());
        self.secrets()
            .patch(
                name,
                &PatchParams::default(),
                &Patch::Merge(json!({ "data": { key: encoded } })),
            )
            .await?;
        Ok(())
    }

    /// Waits until the runtime reports `type_` with `status` (and `reason`,
    /// when given) for its current generation.
    pub async fn wait_condition(
        &self,
        name: &str,
        type_: &str,
        status: &str,
        reason: Option<&str>,
        timeout: Duration,
    ) -> Result<TrussiumRuntime, BoxError> {
        let runtimes = self.runtimes();
        let want = match reason {
            Some(reason) => format!("{status}/{reason}"),
            None => status.to_string(),
        };
        let mut last = String::new();
        let result = wait_for(
            &format!("runtime {name} to report {type_}={want}"),
            timeout,
            async || {
                let rt = runtimes.get(name).await?;
                last = condition_summary(&rt, type_);
                let current = rt.status.as_ref().and_then(|s| s.observed_generation)
                    == rt.metadata.generation;
                let matches = condition(&rt, type_).is_some_and(|c| {
                    c.status == status
                        && reason.is_none_or(|r| c.reason == r)
                        && c.observed_generation == rt.metadata.generation
                });
                Ok((current && matches).then_some(rt))
            },
        )
        .await;
        result.map_err(|e| format!("{e} (last seen: {type_}={last})").into())
    }

    /// Waits until the runtime is Ready for its current generation.
    pub async fn wait_ready(&self, name: &str) -> Result<TrussiumRuntime, BoxError> {
        self.wait_condition(name, "Ready", "True", None, CONVERGE)
            .await
    }

    /// Waits until an object exists and `check` accepts it.
    pub async fn wait_object<K>(
        &self,
        what: &str,
        name: &str,
        timeout: Duration,
        check: impl Fn(&K) -> bool,
    ) -> Result<K, BoxError>
    where
        K: Resource<Scope = k8s_openapi::NamespaceResourceScope>
            + Clone
            + std::fmt::Debug
            + serde::de::DeserializeOwned,
        <K as Resource>::DynamicType: Default,
    {
        let api = self.api::<K>();
        Ok(wait_for(what, timeout, async || {
            Ok(api.get_opt(name).await?.filter(|o| check(o)))
        })
        .await?)
    }

    /// Waits until an object exists.
    pub async fn wait_exists<K>(&self, what: &str, name: &str) -> Result<K, BoxError>
    where
        K: Resource<Scope = k8s_openapi::NamespaceResourceScope>
            + Clone
            + std::fmt::Debug
            + serde::de::DeserializeOwned,
        <K as Resource>::DynamicType: Default,
    {
        self.wait_object(what, name, CONVERGE, |_: &K| true).await
    }

    /// Waits until an object is gone.
    pub async fn wait_gone<K>(&self, what: &str, name: &str, timeout: Duration) -> TestResult
    where
        K: Resource<Scope = k8s_openapi::NamespaceResourceScope>
            + Clone
            + std::fmt::Debug
            + serde::de::DeserializeOwned,
        <K as Resource>::DynamicType: Default,
    {
        let api = self.api::<K>();
        wait_for(what, timeout, async || {
            Ok(api.get_opt(name).await?.is_none().then_some(()))
        })
        .await?;
        Ok(())
    }

    /// Every events.k8s.io/v1 Event of the namespace about the object with
    /// `uid`, in creation order.
    pub async fn events_of(&self, uid: &str) -> Result<Vec<SeenEvent>, BoxError> {
        let mut seen: Vec<SeenEvent> = self
            .events()
            .list(&ListParams::default())
            .await?
            .items
            .into_iter()
            .filter(|e| e.regarding.as_ref().and_then(|r| r.uid.as_deref()) == Some(uid))
            .map(SeenEvent::from)
            .collect();
        seen.sort_by_key(|e| e.resource_version);
        Ok(seen)
    }

    /// Waits until the Events about `rt` are exactly `expected` (type,
    /// reason, in order), checks what every one of them must carry, and
    /// returns them. Fails at once when the Events are no longer a prefix of
    /// `expected` (more, or something else in place: no wait helps).
    pub async fn expect_events(
        &self,
        rt: &TrussiumRuntime,
        expected: &[(&str, &str)],
    ) -> Result<Vec<SeenEvent>, BoxError> {
        let uid = rt.uid().ok_or("runtime without uid")?;
        let mut last = Vec::new();
        let outcome = wait_for(
            &format!("the Events about {}", rt.name_any()),
            EVENTS_LAG,
            async || {
                let seen = self.events_of(&uid).await?;
                let got = pairs(&seen);
                if got == expected {
                    return Ok(Some(Ok(seen)));
                }
                let prefix = got.len() <= expected.len() && expected[..got.len()] == got[..];
                last = seen.clone();
                Ok((!prefix).then_some(Err(())))
            },
        )
        .await;
        match outcome {
            Ok(Ok(seen)) => {
                for e in &seen {
                    e.check(rt)?;
                }
                Ok(seen)
            }
            _ => Err(format!(
                "Events about {}: expected\n  {expected:?}\ngot\n  {}",
                rt.name_any(),
                describe_events(&last)
            )
            .into()),
        }
    }

    /// Waits until the Events about the object with `uid` are exactly one of
    /// `candidates` (type, reason, in order) and returns that one: for steps
    /// whose Events depend on whether the operator saw a short-lived state
    /// (a fast rollout may skip it), or come in more than one order.
    pub async fn expect_any_events(
        &self,
        uid: &str,
        candidates: &[Vec<(&'static str, &'static str)>],
    ) -> Result<Vec<(&'static str, &'static str)>, BoxError> {
        let mut last = Vec::new();
        let found = wait_for(
            "the Events to be one of the candidates",
            EVENTS_LAG,
            async || {
                let seen = self.events_of(uid).await?;
                let got = pairs(&seen);
                let found = candidates.iter().find(|c| **c == got).cloned();
                last = seen;
                Ok(found)
            },
        )
        .await;
        found.map_err(|e| {
            format!(
                "{e}: expected one of {candidates:#?}\ngot\n  {}",
                describe_events(&last)
            )
            .into()
        })
    }

    /// Over [`QUIET_AFTER_SETTLING`], the Events about `rt` stay exactly `expected`.
    pub async fn events_stay(
        &self,
        rt: &TrussiumRuntime,
        expected: &[(&str, &str)],
    ) -> Result<(), BoxError> {
        let uid = rt.uid().ok_or("runtime without uid")?;
        holds_for(
            &format!("the Events about {} to stay {expected:?}", rt.name_any()),
            QUIET_AFTER_SETTLING,
            async || {
                let seen = self.events_of(&uid).await?;
                let got = pairs(&seen);
                Ok((got != expected).then(|| format!("they are {got:?}")))
            },
        )
        .await?;
        Ok(())
    }

    /// Every write request (create, update, patch, delete) the operator sent
    /// in this namespace after `mark`, once the audit log has caught up.
    pub async fn operator_writes_since(
        &self,
        mark: &AuditMark,
    ) -> Result<Vec<AuditEvent>, BoxError> {
        self.audit.settle().await?;
        Ok(self
            .audit
            .writes_by(OPERATOR_USER, mark)?
            .into_iter()
            .filter(|e| self.in_namespace(e))
            .collect())
    }

    /// [`Harness::operator_writes_since`] as `verb resource name` lines.
    pub async fn operator_writes(&self, mark: &AuditMark) -> Result<Vec<String>, BoxError> {
        Ok(self
            .operator_writes_since(mark)
            .await?
            .into_iter()
            .map(|e| {
                let name = e
                    .object_ref
                    .as_ref()
                    .and_then(|o| o.name.clone())
                    .unwrap_or_default();
                format!("{} {} {name}", e.verb, e.resource())
            })
            .collect())
    }

    /// Every audit event of the operator in this namespace after `mark`
    /// (the policy records every request of the operator).
    pub async fn operator_events_since(
        &self,
        mark: &AuditMark,
    ) -> Result<Vec<AuditEvent>, BoxError> {
        self.audit.settle().await?;
        Ok(self
            .audit
            .events_since(mark)?
            .into_iter()
            .filter(|e| e.user.username == OPERATOR_USER && self.in_namespace(e))
            .collect())
    }

    fn in_namespace(&self, event: &AuditEvent) -> bool {
        event
            .object_ref
            .as_ref()
            .and_then(|o| o.namespace.as_deref())
            == Some(self.namespace())
    }

    /// A point in the audit log and in the operator's log, to count
    /// requests and reconciles after it.
    pub fn mark(&self) -> Mark {
        Mark {
            audit: self.audit.mark(),
            log: self.operator.log_mark(),
        }
    }

    /// Every request the operator sent in this namespace after `mark`,
    /// reads included, except its watches (the audit log records them when
    /// they start and end: not what a reconcile sends).
    pub async fn operator_requests_since(
        &self,
        mark: &AuditMark,
    ) -> Result<Vec<AuditEvent>, BoxError> {
        Ok(self
            .operator_events_since(mark)
            .await?
            .into_iter()
            .filter(|e| e.stage == "ResponseComplete" && e.verb != "watch")
            .collect())
    }

    /// How many reconciles of runtime `name` the operator finished after
    /// `log_mark` (its log has a debug line per reconcile: the only trace of
    /// one that sends no request).
    pub fn reconciles_since(&self, name: &str, log_mark: u64) -> usize {
        self.operator
            .reconciles_since(self.namespace(), name, log_mark)
    }

    /// Waits until the operator has finished `count` reconciles of runtime
    /// `name` after `log_mark`.
    pub async fn wait_for_reconciles_of(
        &self,
        name: &str,
        count: usize,
        log_mark: u64,
        timeout: Duration,
    ) -> TestResult {
        wait_for(
            &format!("the operator to reconcile runtime {name} {count} time(s)"),
            timeout,
            async || Ok((self.reconciles_since(name, log_mark) >= count).then_some(())),
        )
        .await?;
        Ok(())
    }

    /// How many times the operator reconciled a runtime that references the
    /// Secret `name` since `mark` (from its log: a reconcile that changes
    /// nothing sends no request).
    pub async fn secret_checks(&self, name: &str, mark: &Mark) -> Result<usize, BoxError> {
        let runtimes = self.runtimes().list(&ListParams::default()).await?.items;
        Ok(runtimes
            .iter()
            .filter(|rt| referenced_secrets(rt).iter().any(|s| s == name))
            .map(|rt| self.reconciles_since(&rt.name_any(), mark.log))
            .sum())
    }

    /// Waits until the operator has reconciled a runtime referencing the
    /// Secret `secret` at least `n` times since `mark`.
    pub async fn wait_for_reconciles(&self, secret: &str, mark: &Mark, n: usize) -> TestResult {
        wait_for(
            &format!("{n} reconciles of runtimes referencing Secret {secret}"),
            CONVERGE,
            async || Ok((self.secret_checks(secret, mark).await? >= n).then_some(())),
        )
        .await?;
        Ok(())
    }

    /// Waits (up to [`CONVERGE`]) for a window of `window` in which the
    /// operator does not reconcile the runtime referencing Secret `secret`:
    /// the Deployment controller's last status updates have been seen.
    pub async fn wait_until_idle(&self, secret: &str, window: Duration) -> TestResult {
        wait_for("the operator to stop reconciling", CONVERGE, async || {
            let mark = self.mark();
            tokio::time::sleep(window).await;
            Ok((self.secret_checks(secret, &mark).await? == 0).then_some(()))
        })
        .await?;
        Ok(())
    }

    /// Waits (up to [`CONVERGE`]) for a window of `window` in which the
    /// operator writes nothing in the namespace.
    pub async fn wait_until_quiet(&self, window: Duration) -> TestResult {
        wait_for("the operator to stop writing", CONVERGE, async || {
            let mark = self.audit.mark();
            tokio::time::sleep(window).await;
            Ok(self.operator_writes(&mark).await?.is_empty().then_some(()))
        })
        .await?;
        Ok(())
    }

    /// Over [`QUIET_AFTER_SETTLING`] from `mark`: the operator neither reconciles (no
    /// check of Secret `secret`) nor writes anything in the namespace.
    pub async fn stays_idle(&self, secret: &str, mark: &Mark) -> TestResult {
        holds_for(
            "the operator to stay idle",
            QUIET_AFTER_SETTLING,
            async || {
                self.audit.settle().await?;
                let writes = self.operator_writes(mark).await?;
                let checks = self.secret_checks(secret, mark).await?;
                Ok((!writes.is_empty() || checks > 0)
                    .then(|| format!("it reconciled {checks} times and wrote {writes:?}")))
            },
        )
        .await?;
        Ok(())
    }

    /// Runs the real kubectl as the admin in this namespace, without a limit
    /// on one request: `kubectl wait` watches for as long as its `--timeout`.
    pub async fn kubectl(&self, args: &[&str]) -> Result<Kubectl, Error> {
        let mut all = vec!["--namespace", self.namespace(), "--request-timeout=0"];
        all.extend_from_slice(args);
        kubectl(&all, None).await
    }
}
