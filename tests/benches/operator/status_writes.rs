//! What a status write costs the API server, by the two ways the operator
//! could make it with the same conflict handling (a write from a stale view
//! is refused with 409): a server-side apply carrying the runtime's
//! `resourceVersion` (what the operator sends), and a JSON merge patch with
//! the same precondition.
//!
//! Runtimes converged by the operator give real statuses; the operator is
//! then stopped and each method rewrites every status, changing one
//! condition's message, in alternating rounds (so that neither always runs
//! on a warmer server). Figures: the API server's and etcd's CPU, and the
//! wall time, per write.

use std::time::Duration;

use kube::api::{ListParams, Patch, PatchParams};
use kube::{Api, Resource, ResourceExt};
use serde_json::{Value, json};
use tokio::time::Instant;
use trussium_api::{TrussiumRuntime, condition_type};
use trussium_e2e::{Audit, TestNamespace, admin_client, cluster_dir};
use trussium_operator::resources::FIELD_MANAGER;

use crate::cpu;
use crate::watched::Watched;
use crate::{Result, converge, delete_namespace, progress, runtime_ready, start_operator};

/// How many runtimes, and rounds per method.
const RUNTIMES: usize = 300;
const ROUNDS: usize = 2;

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

#[derive(Clone, Copy, Debug, Default)]
pub struct StatusWriteCost {
    pub apply: Cost,
    pub merge: Cost,
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
        progress(&format!(
            "{RUNTIMES} status writes per round: server-side apply against merge patch"
        ));
        let mut cost = StatusWriteCost::default();
        for round in 0..ROUNDS * 2 {
            let (method, total) = if round % 2 == 0 {
                (Method::Apply, &mut cost.apply)
            } else {
                (Method::Merge, &mut cost.merge)
            };
            total.add(rewrite_all(&runtimes, method, round).await?);
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
            Method::Merge => (
                PatchParams::default(),
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
