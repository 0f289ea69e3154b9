//! What a status write costs the API server, by the two ways the operator
//! could make it with the same conflict handling (a write from a stale view
//! is refused with 409): a server-side apply carrying the runtime's
//! `resourceVersion` (what the operator sends), and a JSON merge patch with
//! the same precondition.
//!
//! Runtimes converged by the operator give real statuses; the operator is
//! then stopped and each method rewrites every status, changing one
//! condition's message, in pairs of rounds, one per method, the order
//! alternating from pair to pair (so that neither always runs first, on a
//! warmer server). Figures: the API server's and etcd's CPU, and the wall
//! time, per write; in how many pairs each method was the cheaper; the
//! median pair. One total alone swings by 10–20 % from run to run on this
//! machine (Go's garbage collection, etcd's compactions), more than the two
//! methods differ, so the verdict is taken pair by pair.

use std::time::Duration;

use kube::api::{ListParams, Patch, PatchParams};
use kube::{Api, Resource, ResourceExt};
use serde_json::{Value, json};
use tokio::time::Instant;
use trussium_api::{TrussiumRuntime, condition_type};
use trussium_e2e::{Audit, TestNamespace, admin_client, cluster_dir};
use trussium_operator::pure::resources::FIELD_MANAGER;

use crate::cpu;
use crate::watched::Watched;
use crate::{Result, converge, delete_namespace, number, progress, runtime_ready, start_operator};

/// How many runtimes.
const RUNTIMES: usize = 300;
/// Pairs of rounds (one per method) unless BENCH_STATUS_PAIRS says.
const PAIRS: usize = 6;

#[derive(Clone, Copy, Debug, Default)]
pub struct Cost {
    pub writes: usize,
    /// kube-apiserver + etcd CPU seconds.
    pub server_cpu: f64,
    pub wall: Duration,
}

impl Cost {
    fn add(&mut self, other: Cost) {
        self.writes += other.writes;
        self.server_cpu += other.server_cpu;
        self.wall += other.wall;
    }

    pub fn cpu_ms_per_write(&self) -> f64 {
        self.server_cpu * 1000.0 / self.writes.max(1) as f64
    }

    pub fn wall_ms_per_write(&self) -> f64 {
        self.wall.as_secs_f64() * 1000.0 / self.writes.max(1) as f64
    }
}

/// Per pair of rounds: the apply's cost, the merge patch's.
#[derive(Clone, Debug, Default)]
pub struct StatusWriteCost {
    pub pairs: Vec<(Cost, Cost)>,
}

impl StatusWriteCost {
    pub fn apply(&self) -> Cost {
        self.total(|(apply, _)| *apply)
    }

    pub fn merge(&self) -> Cost {
        self.total(|(_, merge)| *merge)
    }

    fn total(&self, side: impl Fn(&(Cost, Cost)) -> Cost) -> Cost {
        let mut sum = Cost::default();
        for pair in &self.pairs {
            sum.add(side(pair));
        }
        sum
    }

    /// In how many pairs the merge patch cost the server less CPU.
    pub fn merge_cheaper(&self) -> usize {
        self.pairs
            .iter()
            .filter(|(apply, merge)| merge.cpu_ms_per_write() < apply.cpu_ms_per_write())
            .count()
    }

    /// The median, over the pairs, of merge patch CPU / apply CPU.
    pub fn median_ratio(&self) -> Option<f64> {
        let mut ratios: Vec<f64> = self
            .pairs
            .iter()
            .map(|(apply, merge)| merge.cpu_ms_per_write() / apply.cpu_ms_per_write())
            .filter(|r| r.is_finite())
            .collect();
        ratios.sort_by(f64::total_cmp);
        let mid = ratios.len() / 2;
        match ratios.len() {
            0 => None,
            n if n % 2 == 1 => Some(ratios[mid]),
            _ => Some((ratios[mid - 1] + ratios[mid]) / 2.0),
        }
    }
}

#[derive(Clone, Copy)]
enum Method {
    Apply,
    Merge,
}

pub async fn measure(streams: usize) -> Result<StatusWriteCost> {
    let ns = TestNamespace::create("bench-status").await?;
    let outcome = async {
        let admin = admin_client().await?;
        let audit = Audit::open()?;
        let runtimes = ns.api::<TrussiumRuntime>();
        let watched = Watched::start(runtimes.clone(), runtime_ready).await?;
        let mut operator = start_operator(&admin, &ns.name, &[]).await?;
        converge(
            RUNTIMES,
            streams,
            &ns.name,
            &audit,
            &watched,
            operator.pid(),
        )
        .await?;
        // From here on nobody else writes these statuses.
        operator.stop().await;
        let pairs = number("BENCH_STATUS_PAIRS", PAIRS);
        progress(&format!(
            "{RUNTIMES} status writes per round, {pairs} pairs of rounds: server-side apply against merge patch"
        ));
        let mut cost = StatusWriteCost::default();
        for pair in 0..pairs {
            let (apply, merge) = if pair % 2 == 0 {
                let apply = rewrite_all(&runtimes, Method::Apply, 2 * pair).await?;
                (apply, rewrite_all(&runtimes, Method::Merge, 2 * pair + 1).await?)
            } else {
                let merge = rewrite_all(&runtimes, Method::Merge, 2 * pair).await?;
                (rewrite_all(&runtimes, Method::Apply, 2 * pair + 1).await?, merge)
            };
            eprintln!(
                "  pair {}: apply {:.2}, merge patch {:.2} ms server CPU per write",
                pair + 1,
                apply.cpu_ms_per_write(),
                merge.cpu_ms_per_write()
            );
            cost.pairs.push((apply, merge));
        }
        Ok::<_, crate::BoxError>(cost)
    }
    .await;
    delete_namespace(ns).await;
    outcome
}

/// One write per runtime, one at a time (the operator's reports are single
/// writes too), each from the runtime as just read.
async fn rewrite_all(
    runtimes: &Api<TrussiumRuntime>,
    method: Method,
    round: usize,
) -> Result<Cost> {
    let stored = runtimes.list(&ListParams::default()).await?.items;
    let before = cpu::sample(&cluster_dir(), None);
    let started = Instant::now();
    for rt in &stored {
        let status = changed_status(rt, round)?;
        let meta = json!({ "resourceVersion": rt.resource_version() });
        let (params, patch) = match method {
            Method::Apply => (
                PatchParams::apply(FIELD_MANAGER).force(),
                Patch::Apply(json!({
                    "apiVersion": TrussiumRuntime::api_version(&()),
                    "kind": TrussiumRuntime::kind(&()),
                    "metadata": meta,
                    "status": status,
                })),
            ),
            // As the operator would send it: its field manager, an update.
            Method::Merge => (
                PatchParams {
                    field_manager: Some(FIELD_MANAGER.into()),
                    ..PatchParams::default()
                },
                Patch::Merge(json!({ "metadata": meta, "status": status })),
            ),
        };
        runtimes
            .patch_status(&rt.name_any(), &params, &patch)
            .await?;
    }
    let wall = started.elapsed();
    let spent = cpu::spent(&before, &cpu::sample(&cluster_dir(), None));
    let server_cpu = ["kube-apiserver", "etcd"]
        .iter()
        .filter_map(|p| spent.seconds.get(*p))
        .sum();
    Ok(Cost {
        writes: stored.len(),
        server_cpu,
        wall,
    })
}

/// The stored status with the Ready condition's message changed, so that
/// every write changes the object (a no-op write costs less).
fn changed_status(rt: &TrussiumRuntime, round: usize) -> Result<Value> {
    let mut status = serde_json::to_value(rt.status.as_ref().ok_or("a runtime without status")?)?;
    if let Some(conditions) = status.get_mut("conditions").and_then(Value::as_array_mut) {
        for condition in conditions {
            if condition.get("type").and_then(Value::as_str) == Some(condition_type::READY) {
                condition["message"] = json!(format!("status write benchmark, round {round}"));
            }
        }
    }
    Ok(status)
}
