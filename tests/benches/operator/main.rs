//! Operator benchmark against the local cluster (`make cluster-up`; run with
//! `make bench-operator` or `cargo bench -p trussium-e2e --bench operator`).
//!
//! First, once: what a status write costs the API server, server-side apply
//! against a merge patch (`status_writes`). Then for each N in
//! BENCH_RUNTIMES (default "100"; `make bench` runs "100 1000 3000"):
//! - the baseline: `kubectl apply --server-side` of the objects the operator
//!   would create (ConfigMap, ServiceAccount, Service, Deployment, PDB per
//!   runtime) until every Deployment is available; and (after the operator's
//!   run) the same objects applied by BENCH_KUBECTL_STREAMS kubectl at once
//!   (default 8; 1 skips it), the fastest a client gets them available on
//!   this control plane;
//! - the operator as shipped (concurrency 4, the default resync, leader
//!   election on): N runtimes created the way a GitOps tool creates them,
//!   BENCH_KUBECTL_STREAMS `kubectl apply --server-side` at once, until all
//!   are Ready; its API requests by verb (the audit log records every
//!   request of the operator), then over an idle minute, then over the
//!   first minute of a restarted operator (which reconciles every runtime
//!   again, as a resync does); its RSS before and after; the latency from a
//!   Deployment becoming available to its runtime reporting Ready; an
//!   upgrade of every runtime; its RSS once every runtime references a
//!   Secret of BENCH_SECRET_KIB KiB (default 100, with `kubectl apply`'s
//!   copy in an annotation);
//! - `kubectl trussium status -A` against `kubectl get trussiumruntimes -A`;
//! - converging again at every concurrency of BENCH_CONCURRENCY (default
//!   "1 16");
//! - for the baseline and the operator's converge: how long `kubectl apply`
//!   itself ran, and the CPU seconds each cluster process, the operator and
//!   kubectl spent, with how busy the machine was and how much of it went to
//!   other processes (`cpu`): where both cores are busy, the control plane's
//!   work sets the time.
//!
//! Prints a block of lines per N (scripts read the first ones: keep them),
//! the goals against what was measured, and a Markdown table of
//! every N at the end.

mod cpu;
mod figures;
mod manifests;
mod status_writes;
mod watched;

use std::collections::BTreeMap;
use std::ops::Range;
use std::time::Duration;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{Namespace, Secret};
use kube::api::{Patch, PatchParams};
use kube::{Api, Client};
use tokio::time::Instant;
use trussium_api::{TrussiumRuntime, condition_type, reason};
use trussium_e2e::{
    Audit, AuditMark, BoxError, OPERATOR_NAMESPACE, OPERATOR_USER, Operator, TestNamespace,
    admin_client, cluster_dir, install, install_crd, install_leader_election_rbac, kubectl_path,
    lease_holder, require_cluster, wait_for,
};

use figures::{Baseline, Converged, Figures, Requests};
use manifests::runtime_name;
use watched::Watched;

pub type Result<T> = std::result::Result<T, BoxError>;

const IDLE: Duration = Duration::from_secs(60);
/// After a converge: the window whose writes are counted (a converged
/// operator should write nothing), and the pause before RSS is read.
const SETTLE: Duration = Duration::from_secs(10);
/// How long a freshly started operator may take to hold its Lease.
const ELECTED: Duration = Duration::from_secs(60);

#[tokio::main]
async fn main() -> Result<()> {
    require_cluster();
    // A fresh cluster (`make cluster-up`) has no CRD: the tests install it.
    let admin = admin_client().await?;
    install_crd(&admin).await?;
    // The operator's namespace, account and RBAC, before its Lease's RBAC.
    install(&admin).await?;
    install_leader_election_rbac(&admin).await?;
    let sizes = numbers("BENCH_RUNTIMES", "100");
    let sweep = numbers("BENCH_CONCURRENCY", "1 16");
    let streams = number("BENCH_KUBECTL_STREAMS", 8);
    let secret_kib = number("BENCH_SECRET_KIB", 100);
    // Once, first: what one status write costs does not depend on N.
    let status_writes = match status_writes::measure(streams).await {
        Ok(cost) => Some(cost),
        Err(err) => {
            eprintln!("status write costs skipped: {err}");
            None
        }
    };
    let mut all = Vec::new();
    for &n in &sizes {
        let mut figures = Figures::new(n, secret_kib);
        figures.kubectl_apply = Some(baseline(n, 1).await?);
        full_run(n, streams, &mut figures).await?;
        // After the operator's run, which thus follows the same history as
        // in earlier versions of this benchmark.
        if streams > 1 {
            figures.kubectl_streams = Some(baseline(n, streams).await?);
        }
        for &c in &sweep {
            let converged = converge_only(n, streams, c).await?;
            figures.sweep.push((c, converged));
        }
        figures.print_block();
        all.push(figures);
    }
    figures::print_goals(&all, status_writes.as_ref());
    figures::print_table(&all);
    Ok(())
}

fn numbers(var: &str, default: &str) -> Vec<usize> {
    std::env::var(var)
        .unwrap_or_else(|_| default.to_string())
        .split_whitespace()
        .filter_map(|v| v.parse().ok())
        .collect()
}

/// The first number of `var`, or `default`.
fn number(var: &str, default: usize) -> usize {
    numbers(var, "").first().copied().unwrap_or(default)
}

fn timeout(n: usize) -> Duration {
    Duration::from_secs(120 + n as u64)
}

/// The runtimes (numbered `0..n`) that stream `k` of `streams` handles.
fn share(n: usize, streams: usize, k: usize) -> Range<usize> {
    (n * k / streams)..(n * (k + 1) / streams)
}

/// `kubectl apply --server-side` of the owned objects of N runtimes, until
/// every Deployment is available: one kubectl for them all, or, with
/// `streams` above 1, that many kubectl at once, each for its share of the
/// runtimes (what any client gets at best from this control plane).
async fn baseline(n: usize, streams: usize) -> Result<Baseline> {
    let ns = TestNamespace::create("bench-kubectl").await?;
    let outcome = async {
        let deployments = Watched::start(ns.api::<Deployment>(), deployment_available).await?;
        let streams = streams.clamp(1, n.max(1));
        let files = (0..streams)
            .map(|k| {
                manifests::write(
                    &format!("owned-objects-{k}.yaml"),
                    &manifests::owned_objects_yaml(&ns.name, share(n, streams, k))?,
                )
            })
            .collect::<Result<Vec<_>>>()?;
        progress(&format!(
            "{n} runtimes: kubectl apply of the owned objects ({streams} at once)"
        ));
        let cpu_before = cpu::sample(&cluster_dir(), None);
        let started = Instant::now();
        let kubectl = manifests::kubectl_apply_at_once(&files)?;
        deployments
            .wait_for("Deployments available", n, timeout(n), deployment_available)
            .await?;
        let time = started.elapsed();
        let cpu = cpu::spent(&cpu_before, &cpu::sample(&cluster_dir(), None));
        Ok::<_, BoxError>(Baseline {
            streams,
            time,
            kubectl,
            cpu,
        })
    }
    .await;
    delete_namespace(ns).await;
    outcome
}

/// The operator as shipped (leader election on, the default resync and
/// concurrency), watching `namespace`, with `extra` flags; returns once it
/// holds its Lease (a Lease of its own: each phase's operator is alone).
async fn start_operator(admin: &Client, namespace: &str, extra: &[String]) -> Result<Operator> {
    let mut args = vec![
        "--leader-elect".to_string(),
        format!("--leader-elect-resource-name={namespace}"),
        format!("--leader-elect-resource-namespace={OPERATOR_NAMESPACE}"),
    ];
    args.extend_from_slice(extra);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let operator = Operator::start(admin, namespace, &args).await?;
    wait_for("the operator to hold its Lease", ELECTED, async || {
        Ok(lease_holder(admin, namespace).await?.map(drop))
    })
    .await?;
    Ok(operator)
}

/// Creates N runtimes under a running operator and measures everything.
async fn full_run(n: usize, streams: usize, figures: &mut Figures) -> Result<()> {
    let ns = TestNamespace::create("bench-operator").await?;
    let outcome = async {
        let admin = admin_client().await?;
        let audit = Audit::open()?;
        let runtimes = ns.api::<TrussiumRuntime>();
        let watched_runtimes = Watched::start(runtimes.clone(), runtime_ready).await?;
        let deployments = Watched::start(ns.api::<Deployment>(), deployment_available).await?;

        let before_start = audit.mark();
        let mut operator = start_operator(&admin, &ns.name, &[]).await?;
        // Let its watches list the empty namespace first.
        tokio::time::sleep(Duration::from_secs(3)).await;
        figures.rss_empty = operator.pid().and_then(|pid| memory_kib(pid, "VmRSS"));
        let converged = converge(
            n,
            streams,
            &ns.name,
            &audit,
            &watched_runtimes,
            operator.pid(),
        )
        .await?;
        figures.deployments_available = deployments
            .firsts()
            .values()
            .max()
            .map(|last| last.saturating_duration_since(converged.started));
        figures.converge_requests = requests_by_verb(&audit, &before_start, &ns.name)?;
        figures.converge = Some(converged);
        figures.latency = latencies(&deployments.firsts(), &watched_runtimes.firsts());

        let quiet = audit.mark();
        tokio::time::sleep(SETTLE).await;
        audit.settle().await?;
        figures.quiet_writes = writes_by_resource(&audit, &quiet, &ns.name)?;
        tokio::time::sleep(IDLE - SETTLE).await;
        audit.settle().await?;
        figures.idle_requests = requests_by_verb(&audit, &quiet, &ns.name)?;
        figures.rss = operator.pid().and_then(|pid| memory_kib(pid, "VmRSS"));
        figures.peak_rss = operator.pid().and_then(|pid| memory_kib(pid, "VmHWM"));

        // A restarted operator reconciles every runtime again (what a resync
        // does): from its caches, sending nothing but its lists and watches.
        progress(&format!(
            "{n} runtimes: a restarted operator's first minute"
        ));
        let restarted = audit.mark();
        operator.restart().await?;
        tokio::time::sleep(IDLE).await;
        audit.settle().await?;
        figures.restart_requests = requests_by_verb(&audit, &restarted, &ns.name)?;

        figures.plugin = match plugin_times() {
            Ok(times) => Some(times),
            Err(err) => {
                eprintln!("plugin timings skipped: {err}");
                None
            }
        };

        // Upgrade every runtime.
        progress(&format!("{n} runtimes: upgrade"));
        let before_upgrade = audit.mark();
        let started = Instant::now();
        let patch = serde_json::json!({"spec": {"image": {"tag": "v1.23.0"}}});
        for i in 0..n {
            runtimes
                .patch(
                    &runtime_name(i),
                    &PatchParams::default(),
                    &Patch::Merge(&patch),
                )
                .await?;
        }
        watched_runtimes
            .wait_for("upgrades complete", n, timeout(n), |rt| {
                has_condition(rt, condition_type::UPGRADING, reason::UPGRADE_COMPLETE)
            })
            .await?;
        figures.upgrade = Some(started.elapsed());
        audit.settle().await?;
        figures.upgrade_writes = audit.writes_by(OPERATOR_USER, &before_upgrade)?.len();

        // Every runtime references a large Secret of its own (last: the
        // audit log records Secret bodies, and nothing reads it after this).
        progress(&format!(
            "{n} runtimes: a Secret of {secret_kib} KiB each",
            secret_kib = figures.secret_kib
        ));
        let secrets: Api<Secret> = ns.api();
        manifests::create_large_secrets(&secrets, n, figures.secret_kib).await?;
        for i in 0..n {
            let reference = serde_json::json!({"spec": {"provider": {"credentialsSecretRef":
                {"name": format!("secret-{i:04}"), "key": "api-key"}}}});
            runtimes
                .patch(
                    &runtime_name(i),
                    &PatchParams::default(),
                    &Patch::Merge(&reference),
                )
                .await?;
        }
        watched_runtimes
            .wait_for("Ready with Secrets", n, timeout(n), runtime_ready)
            .await?;
        tokio::time::sleep(SETTLE).await;
        figures.rss_with_secrets = operator.pid().and_then(|pid| memory_kib(pid, "VmRSS"));
        figures.peak_rss_with_secrets = operator.pid().and_then(|pid| memory_kib(pid, "VmHWM"));
        Ok::<_, BoxError>(())
    }
    .await;
    delete_namespace(ns).await;
    outcome
}

/// Only converging, at another concurrency.
async fn converge_only(n: usize, streams: usize, concurrency: usize) -> Result<Converged> {
    let ns = TestNamespace::create("bench-concurrency").await?;
    let outcome = async {
        let admin = admin_client().await?;
        let audit = Audit::open()?;
        let runtimes = Watched::start(ns.api::<TrussiumRuntime>(), runtime_ready).await?;
        let operator =
            start_operator(&admin, &ns.name, &[format!("--concurrency={concurrency}")]).await?;
        tokio::time::sleep(Duration::from_secs(3)).await;
        converge(n, streams, &ns.name, &audit, &runtimes, operator.pid()).await
    }
    .await;
    delete_namespace(ns).await;
    outcome
}

/// N runtimes created under a started operator as a GitOps tool creates
/// them (`streams` `kubectl apply --server-side` at once, each for its
/// share), until all are Ready; the time, the operator's writes and the CPU
/// spent meanwhile.
async fn converge(
    n: usize,
    streams: usize,
    namespace: &str,
    audit: &Audit,
    runtimes: &Watched<TrussiumRuntime>,
    operator: Option<u32>,
) -> Result<Converged> {
    let streams = streams.clamp(1, n.max(1));
    let files = (0..streams)
        .map(|k| {
            manifests::write(
                &format!("runtimes-{k}.yaml"),
                &manifests::runtimes_yaml(namespace, share(n, streams, k))?,
            )
        })
        .collect::<Result<Vec<_>>>()?;
    progress(&format!(
        "{n} runtimes: kubectl apply of the runtimes ({streams} at once)"
    ));
    let mark = audit.mark();
    let cpu_before = cpu::sample(&cluster_dir(), operator);
    let started = Instant::now();
    let kubectl = manifests::kubectl_apply_at_once(&files)?;
    runtimes
        .wait_for("runtimes Ready", n, timeout(n), runtime_ready)
        .await?;
    let time = started.elapsed();
    let cpu = cpu::spent(&cpu_before, &cpu::sample(&cluster_dir(), operator));
    audit.settle().await?;
    let writes = writes_by_resource(audit, &mark, namespace)?;
    Ok(Converged {
        started,
        time,
        kubectl,
        streams,
        writes,
        cpu,
    })
}

/// A line on stderr when a phase starts (with the time, to line up with
/// logs and profiles).
fn progress(phase: &str) {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or_default();
    eprintln!("bench [{now}]: {phase}");
}

/// Deletes the namespace and waits until it is gone, so that the next run
/// does not share the machine with its garbage collection.
async fn delete_namespace(ns: TestNamespace) {
    let name = ns.name.clone();
    let client = ns.client.clone();
    ns.delete().await;
    let namespaces: Api<Namespace> = Api::all(client);
    let deadline = Instant::now() + Duration::from_secs(900);
    while Instant::now() < deadline {
        match namespaces.get_opt(&name).await {
            Ok(None) => return,
            _ => tokio::time::sleep(Duration::from_secs(2)).await,
        }
    }
    eprintln!("namespace {name} still terminating after 15 minutes");
}

fn deployment_available(d: &Deployment) -> bool {
    let Some(status) = &d.status else {
        return false;
    };
    let want = d.spec.as_ref().and_then(|s| s.replicas).unwrap_or(1);
    status.observed_generation == d.metadata.generation
        && status.updated_replicas.unwrap_or(0) >= want
        && status.available_replicas.unwrap_or(0) >= want
}

fn runtime_ready(rt: &TrussiumRuntime) -> bool {
    has_condition(rt, condition_type::READY, reason::RUNTIME_READY)
}

/// The condition has `reason` for the runtime's current generation.
fn has_condition(rt: &TrussiumRuntime, type_: &str, reason: &str) -> bool {
    rt.status.as_ref().is_some_and(|s| {
        s.observed_generation == rt.metadata.generation
            && s.condition(type_).is_some_and(|c| c.reason == reason)
    })
}

/// Deployment available → runtime Ready, per runtime.
fn latencies(
    deployments: &std::collections::HashMap<String, Instant>,
    runtimes: &std::collections::HashMap<String, Instant>,
) -> Vec<Duration> {
    let mut all: Vec<Duration> = runtimes
        .iter()
        .filter_map(|(name, ready)| Some(ready.saturating_duration_since(*deployments.get(name)?)))
        .collect();
    all.sort();
    all
}

/// The operator's requests in `namespace` after `since`, by verb (a watch
/// counts when it starts).
fn requests_by_verb(audit: &Audit, since: &AuditMark, namespace: &str) -> Result<Requests> {
    let mut counts = BTreeMap::new();
    for event in audit.events_since(since)? {
        let counted = if event.verb == "watch" {
            event.stage == "ResponseStarted"
        } else {
            event.stage == "ResponseComplete"
        };
        let here = event
            .object_ref
            .as_ref()
            .and_then(|o| o.namespace.as_deref())
            == Some(namespace);
        if counted && here && event.user.username == OPERATOR_USER {
            *counts.entry(event.verb.clone()).or_default() += 1;
        }
    }
    Ok(counts)
}

fn writes_by_resource(audit: &Audit, since: &AuditMark, namespace: &str) -> Result<Requests> {
    let mut counts = BTreeMap::new();
    for event in audit.writes_by(OPERATOR_USER, since)? {
        if event
            .object_ref
            .as_ref()
            .and_then(|o| o.namespace.as_deref())
            == Some(namespace)
        {
            *counts
                .entry(format!("{} {}", event.verb, event.resource()))
                .or_default() += 1;
        }
    }
    Ok(counts)
}

/// A /proc/<pid>/status figure in KiB (VmRSS now, VmHWM the peak).
fn memory_kib(pid: u32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// Median wall time of `kubectl trussium status -A` and of `kubectl get
/// trussiumruntimes -A` over five runs each (the release plugin on PATH).
fn plugin_times() -> Result<(Duration, Duration)> {
    let release = trussium_e2e::repo_root().join("target").join("release");
    let path = format!(
        "{}:{}",
        release.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let time = |args: &[&str]| -> Result<Duration> {
        let mut runs = Vec::new();
        for _ in 0..5 {
            let started = Instant::now();
            let output = std::process::Command::new(kubectl_path())
                .env("PATH", &path)
                .env("KUBECONFIG", trussium_e2e::admin_kubeconfig_path())
                .args(args)
                .output()?;
            if !output.status.success() {
                return Err(format!(
                    "kubectl {}: {}",
                    args.join(" "),
                    String::from_utf8_lossy(&output.stderr)
                )
                .into());
            }
            runs.push(started.elapsed());
        }
        runs.sort();
        Ok(runs[runs.len() / 2])
    };
    Ok((
        time(&["trussium", "status", "-A"])?,
        time(&["get", "trussiumruntimes", "-A"])?,
    ))
}
