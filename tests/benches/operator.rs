//! Operator benchmark against the local cluster (`make cluster-up`; run with
//! `make bench` or `cargo bench -p trussium-e2e --bench operator`).
//!
//! Creates N runtimes (BENCH_RUNTIMES, default 100), starts the operator as its
//! ServiceAccount, and prints: time until all are Ready, write requests it
//! made, writes over a quiet period (should be 0), time for an upgrade of
//! every runtime, and the operator's peak resident memory.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use kube::api::{ListParams, Patch, PatchParams, PostParams};
use trussium_api::{TrussiumRuntime, condition_type, reason};
use trussium_e2e::{
    Audit, OPERATOR_USER, Operator, TestNamespace, admin_client, require_cluster, wait_for,
};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

const MINIMAL: &str = r#"
apiVersion: runtime.trussium.io/v1alpha1
kind: TrussiumRuntime
metadata:
  name: placeholder
spec:
  image:
    repository: ghcr.io/trussiumhq/trussium
    tag: v1.22.0
  provider:
    type: ollama
    model: llama3.2
"#;

#[tokio::main]
async fn main() -> Result<()> {
    require_cluster();
    let n: usize = std::env::var("BENCH_RUNTIMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100);
    let admin = admin_client().await?;
    let ns = TestNamespace::create("bench-operator").await?;
    let runtimes = ns.api::<TrussiumRuntime>();
    let outcome = run(&admin, &ns.name, &runtimes, n).await;
    ns.delete().await;
    outcome
}

async fn run(
    admin: &kube::Client,
    namespace: &str,
    runtimes: &kube::Api<TrussiumRuntime>,
    n: usize,
) -> Result<()> {
    let template: TrussiumRuntime = serde_yaml::from_str(MINIMAL)?;
    for i in 0..n {
        let mut rt = template.clone();
        rt.metadata.name = Some(format!("rt-{i:04}"));
        runtimes.create(&PostParams::default(), &rt).await?;
    }
    let audit = Audit::open()?;
    audit.settle().await?;
    let before_start = audit.mark();

    let started = Instant::now();
    let operator = Operator::start(admin, namespace, &[]).await?;
    let timeout = Duration::from_secs(60 + n as u64);
    wait_for(&format!("all {n} runtimes Ready"), timeout, async || {
        Ok(
            (count_with(runtimes, condition_type::READY, reason::RUNTIME_READY).await? == n)
                .then_some(()),
        )
    })
    .await?;
    let converge = started.elapsed();
    audit.settle().await?;
    let converge_writes = writes_by_resource(&audit, &before_start)?;

    let quiet = audit.mark();
    tokio::time::sleep(Duration::from_secs(10)).await;
    audit.settle().await?;
    let quiet_writes = writes_by_resource(&audit, &quiet)?;

    let before_upgrade = audit.mark();
    let started = Instant::now();
    let patch = serde_json::json!({"spec": {"image": {"tag": "v1.23.0"}}});
    for i in 0..n {
        runtimes
            .patch(
                &format!("rt-{i:04}"),
                &PatchParams::default(),
                &Patch::Merge(&patch),
            )
            .await?;
    }
    wait_for(&format!("all {n} upgrades complete"), timeout, async || {
        Ok((count_with(
            runtimes,
            condition_type::UPGRADING,
            reason::UPGRADE_COMPLETE,
        )
        .await?
            == n)
            .then_some(()))
    })
    .await?;
    let upgrade = started.elapsed();
    audit.settle().await?;
    let upgrade_writes = audit.writes_by(OPERATOR_USER, &before_upgrade)?.len();

    let peak_rss = operator.pid().and_then(peak_rss_kib);

    println!("operator benchmark: {n} runtimes, one operator (concurrency 4), KWOK pods");
    println!(
        "  create -> all Ready:        {:>8.2} s",
        converge.as_secs_f64()
    );
    println!(
        "  writes while converging:    {:>8}  ({:.1} per runtime)",
        converge_writes.values().sum::<usize>(),
        converge_writes.values().sum::<usize>() as f64 / n as f64
    );
    for (resource, count) in &converge_writes {
        println!("    {resource:<40} {count:>6}");
    }
    println!(
        "  writes in 10 s quiet:       {:>8}",
        quiet_writes.values().sum::<usize>()
    );
    for (resource, count) in &quiet_writes {
        println!("    {resource:<40} {count:>6}");
    }
    println!(
        "  upgrade all -> Complete:    {:>8.2} s",
        upgrade.as_secs_f64()
    );
    println!(
        "  writes during the upgrade:  {upgrade_writes:>8}  ({:.1} per runtime)",
        upgrade_writes as f64 / n as f64
    );
    match peak_rss {
        Some(kib) => println!(
            "  operator peak RSS:          {:>8.1} MiB",
            kib as f64 / 1024.0
        ),
        None => println!("  operator peak RSS:          unknown"),
    }
    Ok(())
}

async fn count_with(
    runtimes: &kube::Api<TrussiumRuntime>,
    type_: &str,
    reason: &str,
) -> std::result::Result<usize, kube::Error> {
    let list = runtimes.list(&ListParams::default()).await?;
    Ok(list
        .items
        .iter()
        .filter(|rt| {
            rt.status
                .as_ref()
                .and_then(|s| s.condition(type_))
                .is_some_and(|c| {
                    c.reason == reason
                        && rt.status.as_ref().and_then(|s| s.observed_generation)
                            == rt.metadata.generation
                })
        })
        .count())
}

fn writes_by_resource(
    audit: &Audit,
    since: &trussium_e2e::AuditMark,
) -> Result<BTreeMap<String, usize>> {
    let mut counts = BTreeMap::new();
    for event in audit.writes_by(OPERATOR_USER, since)? {
        *counts
            .entry(format!("{} {}", event.verb, event.resource()))
            .or_default() += 1;
    }
    Ok(counts)
}

/// VmHWM of a process: its peak resident set, in KiB.
fn peak_rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}
