//! A namespace deleted with its runtimes in it, as a CI system tears down a
//! preview environment: the operator lets its runtimes go quietly. While the
//! namespace controller removes everything, the operator sends at most the
//! one refused write per runtime that tells it the namespace is being
//! deleted, publishes no Event, writes no status, logs no warning, and the
//! namespace is gone about as fast as with the operator stopped. A namespace
//! created again under the same name is served as usual.

use std::collections::BTreeMap;
use std::time::Duration;

use k8s_openapi::api::core::v1::{Namespace, ServiceAccount};
use kube::api::{DeleteParams, ListParams, ObjectMeta, PostParams};
use kube::{Api, Client};
use tokio::time::Instant;
use trussium_api::TrussiumRuntime;
use trussium_e2e::{
    Audit, AuditEvent, BoxError, OLD_TAG, OPERATOR_USER, Operator, TEST_NAMESPACE_LABEL,
    TestNamespace, TestResult, ensure, is_ready, openai_runtime, require_cluster, wait_for,
};

const RUNTIMES: usize = 20;
/// 40 runtimes converge on two cores shared with other tests.
const CONVERGE: Duration = Duration::from_secs(300);
const GONE: Duration = Duration::from_secs(300);

/// A namespace with its own operator (JSON logs, to count warnings) and
/// [`RUNTIMES`] runtimes, all Ready.
async fn converged(prefix: &str) -> Result<(TestNamespace, Operator), BoxError> {
    let ns = TestNamespace::create(prefix).await?;
    let operator = Operator::start(&ns.client, &ns.name, &["--log-format=json"]).await?;
    for i in 0..RUNTIMES {
        let name = format!("rt-{i:02}");
        // Every fourth with two replicas: a namespace is rarely uniform.
        let replicas = if i % 4 == 0 { 2 } else { 1 };
        ns.api::<TrussiumRuntime>()
            .create(
                &PostParams::default(),
                &serde_json::from_value(openai_runtime(&name, OLD_TAG, replicas, None))?,
            )
            .await?;
    }
    let runtimes: Api<TrussiumRuntime> = ns.api();
    wait_for(
        &format!("{RUNTIMES} runtimes Ready in {}", ns.name),
        CONVERGE,
        async || {
            let list = runtimes.list(&ListParams::default()).await?.items;
            Ok((list.len() == RUNTIMES && list.iter().all(is_ready)).then_some(()))
        },
    )
    .await?;
    Ok((ns, operator))
}

/// Deletes namespace `name` as `kubectl delete namespace` does and returns
/// how long it took to be gone.
async fn delete_namespace(admin: &Client, name: &str) -> Result<Duration, BoxError> {
    let namespaces: Api<Namespace> = Api::all(admin.clone());
    let started = Instant::now();
    namespaces.delete(name, &DeleteParams::background()).await?;
    wait_for(&format!("namespace {name} to be gone"), GONE, async || {
        Ok(namespaces.get_opt(name).await?.is_none().then_some(()))
    })
    .await?;
    Ok(started.elapsed())
}

/// The runtime an object of the operator's belongs to: owned objects and the
/// status carry its name, Events `<name>.<hash>`.
fn runtime_of(event: &AuditEvent) -> String {
    let name = event
        .object_ref
        .as_ref()
        .and_then(|o| o.name.as_deref())
        .unwrap_or_default();
    name.split('.').next().unwrap_or_default().to_string()
}

fn in_namespace(event: &AuditEvent, namespace: &str) -> bool {
    event
        .object_ref
        .as_ref()
        .and_then(|o| o.namespace.as_deref())
        == Some(namespace)
}

/// The warnings and errors in a JSON log.
fn warnings(log: &str) -> Vec<String> {
    log.lines()
        .filter(|line| {
            serde_json::from_str::<serde_json::Value>(line).map_or(
                // Not JSON: something the operator printed outside its log.
                !line.trim().is_empty(),
                |entry| matches!(entry["level"].as_str(), Some("WARN" | "ERROR")),
            )
        })
        .map(str::to_string)
        .collect()
}

/// Creates namespace `name` again (the test label included, as
/// [`TestNamespace`] does) and waits for its `default` ServiceAccount.
async fn recreate_namespace(admin: &Client, name: &str) -> Result<TestNamespace, BoxError> {
    let namespace = Namespace {
        metadata: ObjectMeta {
            name: Some(name.to_string()),
            labels: Some([(TEST_NAMESPACE_LABEL.to_string(), "true".to_string())].into()),
            ..ObjectMeta::default()
        },
        ..Namespace::default()
    };
    Api::<Namespace>::all(admin.clone())
        .create(&PostParams::default(), &namespace)
        .await?;
    let accounts: Api<ServiceAccount> = Api::namespaced(admin.clone(), name);
    wait_for(
        &format!("the default ServiceAccount of namespace {name}"),
        Duration::from_secs(30),
        async || Ok(accounts.get_opt("default").await?.map(|_| ())),
    )
    .await?;
    Ok(TestNamespace {
        name: name.to_string(),
        client: admin.clone(),
    })
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn a_deleted_namespace_is_let_go_quietly() -> TestResult {
    require_cluster();
    let (stopped, mut stopped_operator) = converged("ns-gone-stopped").await?;
    let (watched, operator) = converged("ns-gone-watched").await?;
    let admin = watched.client.clone();
    let outcome = async {
        // The yardstick: the same namespace with its operator stopped.
        stopped_operator.stop().await;
        let without = delete_namespace(&admin, &stopped.name).await?;

        let audit = Audit::open()?;
        let mark = audit.mark();
        let log_mark = operator.log_mark();
        let with = delete_namespace(&admin, &watched.name).await?;
        audit.settle().await?;
        let requests: Vec<AuditEvent> = audit
            .events_since(&mark)?
            .into_iter()
            .filter(|e| {
                e.stage == "ResponseComplete"
                    && e.user.username == OPERATOR_USER
                    && e.verb != "watch"
                    && in_namespace(e, &watched.name)
            })
            .collect();
        let writes: Vec<&AuditEvent> = requests.iter().filter(|e| e.is_write()).collect();
        let reads = requests.len() - writes.len();
        // 403 while the namespace is terminating, 404 once it is gone.
        let refused = |e: &AuditEvent| matches!(e.code(), 403 | 404);
        eprintln!(
            "namespace deletion with {RUNTIMES} runtimes: gone in {:.1}s with the operator \
             running, {:.1}s with it stopped; the operator sent {} writes (all refused: {}) \
             and {reads} reads after the deletion began",
            with.as_secs_f64(),
            without.as_secs_f64(),
            writes.len(),
            writes.iter().all(|e| refused(e)),
        );

        let describe = |events: &[&AuditEvent]| {
            events
                .iter()
                .map(|e| {
                    format!(
                        "{} {} {} -> {}",
                        e.verb,
                        e.resource(),
                        runtime_of(e),
                        e.code()
                    )
                })
                .collect::<Vec<_>>()
                .join("\n  ")
        };
        let accepted: Vec<&AuditEvent> = writes.iter().copied().filter(|e| !refused(e)).collect();
        ensure(
            accepted.is_empty(),
            format!(
                "after the deletion began the operator wrote (no Event, status or object \
                 may be written):\n  {}",
                describe(&accepted)
            ),
        )?;
        let mut per_runtime: BTreeMap<String, Vec<&AuditEvent>> = BTreeMap::new();
        for write in &writes {
            per_runtime
                .entry(runtime_of(write))
                .or_default()
                .push(write);
        }
        let repeated: Vec<&AuditEvent> = per_runtime
            .values()
            .filter(|w| w.len() > 1)
            .flatten()
            .copied()
            .collect();
        ensure(
            repeated.is_empty(),
            format!(
                "at most one refused write per runtime tells it; these runtimes tried again:\n  {}",
                describe(&repeated)
            ),
        )?;
        let warned = warnings(&operator.log_since(log_mark));
        ensure(
            warned.is_empty(),
            format!("the operator warned:\n{}", warned.join("\n")),
        )?;
        // The namespace controller's pace decides both; the operator must
        // not add to it. Generous: two deletions on a shared machine.
        let bound = without * 2 + Duration::from_secs(30);
        ensure(
            with <= bound,
            format!(
                "the namespace took {with:?} to go with the operator running, {without:?} \
                 without it (bound {bound:?})"
            ),
        )?;

        // The same name again: new runtimes, served as any.
        let again = recreate_namespace(&admin, &watched.name).await?;
        let runtimes: Api<TrussiumRuntime> = again.api();
        runtimes
            .create(
                &PostParams::default(),
                &serde_json::from_value(openai_runtime("again", OLD_TAG, 1, None))?,
            )
            .await?;
        wait_for(
            "the runtime of the namespace created again to be Ready",
            CONVERGE,
            async || {
                Ok(runtimes
                    .get_opt("again")
                    .await?
                    .filter(is_ready)
                    .map(|_| ()))
            },
        )
        .await?;
        Ok::<(), BoxError>(())
    }
    .await;
    if outcome.is_err() {
        eprintln!(
            "---- operator log of namespace {} ----\n{}---- end ----",
            watched.name,
            operator.log_text()
        );
    }
    drop(operator);
    drop(stopped_operator);
    let namespaces: Api<Namespace> = Api::all(admin);
    let _ = namespaces
        .delete(&watched.name, &DeleteParams::background())
        .await;
    outcome
}
