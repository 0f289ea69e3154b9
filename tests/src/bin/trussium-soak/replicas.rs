//! The two operator replicas of the soak: release builds, each its own
//! process as the operator's ServiceAccount (as two pods of the operator's
//! Deployment are), each reaching the API server through a relay the soak
//! can cut, electing a leader through a Lease of their own. Their memory
//! (VmRSS and RssAnon from /proc) and their tasks
//! (`trussium_tokio_alive_tasks`) are sampled, with which of them leads; the
//! Lease's holder is followed to count failovers.

use std::path::PathBuf;
use std::process::ExitStatus;
use std::time::Duration;

use kube::Client;
use tokio::time::Instant;
use trussium_e2e::{
    BoxError, OPERATOR_NAMESPACE, OPERATOR_SERVICE_ACCOUNT, Relay, Replica, api_server_address,
    e2e_dir, kubeconfig_for_service_account, lease_holder, metric,
};

/// The Lease the soak's replicas compete for (not the operator's own).
pub const LEASE: &str = "trussium-soak";
/// How long a new leader may take: the lease duration (15 s) and a retry,
/// with room for a loaded machine.
const TAKEOVER: Duration = Duration::from_secs(60);
const SAMPLE_EVERY: Duration = Duration::from_secs(5);
const TASKS: &str = "trussium_tokio_alive_tasks";

/// One sample of one replica's process.
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    pub replica: usize,
    /// Which process of that replica (it restarts after each failover).
    pub pid: u32,
    /// Since the soak began.
    pub at: Duration,
    pub rss_kib: u64,
    /// The anonymous part of `rss_kib` (heap, stacks).
    pub anon_kib: u64,
    pub tasks: Option<u64>,
    /// Whether the replica held the Lease when sampled.
    pub leads: bool,
}

struct Slot {
    replica: Replica,
    relay: Relay,
}

pub struct Replicas {
    slots: Vec<Slot>,
    admin: Client,
    started: Instant,
    last_sample: Option<Instant>,
    pub samples: Vec<Sample>,
    /// Lease holders in the order seen.
    pub holders: Vec<String>,
}

impl Replicas {
    /// Starts replicas `names` with `args` (their logs start empty).
    pub async fn start(
        admin: &Client,
        names: &[&str],
        args: &[String],
    ) -> Result<Replicas, BoxError> {
        let dir = e2e_dir();
        std::fs::create_dir_all(&dir)?;
        let mut slots = Vec::new();
        for name in names {
            let direct = dir.join(format!("{name}.kubeconfig"));
            kubeconfig_for_service_account(
                admin,
                OPERATOR_NAMESPACE,
                OPERATOR_SERVICE_ACCOUNT,
                &direct,
            )
            .await?;
            let relay = Relay::start(api_server_address(&direct)?).await?;
            let log = dir.join(format!("{name}.operator.log"));
            let _ = std::fs::remove_file(&log);
            let replica = Replica::start_with_kubeconfig(name, relay.kubeconfig(&direct)?, args)?;
            slots.push(Slot { replica, relay });
        }
        Ok(Replicas {
            slots,
            admin: admin.clone(),
            started: Instant::now(),
            last_sample: None,
            samples: Vec::new(),
            holders: Vec::new(),
        })
    }

    /// Waits until every replica is ready and one leads.
    pub async fn wait_ready(&mut self) -> Result<(), BoxError> {
        for slot in &self.slots {
            slot.replica.wait_ready(TAKEOVER).await?;
        }
        self.leader().await.map(drop)
    }

    pub fn logs(&self) -> Vec<PathBuf> {
        self.slots.iter().map(|s| s.replica.log.clone()).collect()
    }

    pub fn names(&self) -> Vec<String> {
        self.slots.iter().map(|s| s.replica.name.clone()).collect()
    }

    /// The slot of the replica holding the Lease (waiting for one).
    async fn leader(&mut self) -> Result<usize, BoxError> {
        let deadline = Instant::now() + TAKEOVER;
        loop {
            self.follow_lease().await;
            if let Some(holder) = self.holders.last()
                && let Some(slot) = self.slots.iter().position(|s| &s.replica.name == holder)
                && self.slots[slot].replica.pid().is_some()
            {
                return Ok(slot);
            }
            if Instant::now() > deadline {
                return Err(
                    format!("no replica took the Lease {LEASE} within {TAKEOVER:?}").into(),
                );
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    }

    async fn follow_lease(&mut self) {
        if let Ok(Some(holder)) = lease_holder(&self.admin, LEASE).await
            && self.holders.last() != Some(&holder)
        {
            self.holders.push(holder);
        }
    }

    /// How often the Lease changed hands.
    pub fn failovers(&self) -> usize {
        self.holders.len().saturating_sub(1)
    }

    /// `kill -9` of the leader; once the other replica has taken over (the
    /// Lease expires first), the killed one starts again, as a standby.
    /// (Started at once under the same name, it would take its own Lease
    /// back: a container restarted in its pod keeps the pod's name.)
    pub async fn kill_leader(&mut self) -> Result<String, BoxError> {
        let slot = self.leader().await?;
        let name = self.slots[slot].replica.name.clone();
        self.slots[slot].replica.kill().await?;
        self.wait_for_new_leader(&name).await?;
        self.slots[slot].replica.restart()?;
        Ok(name)
    }

    /// SIGTERM of the leader: a graceful stop (exit 0 within the pod's
    /// grace period, 30 s) that hands over at once; then it starts again.
    pub async fn stop_leader(&mut self) -> Result<(String, ExitStatus), BoxError> {
        let slot = self.leader().await?;
        let name = self.slots[slot].replica.name.clone();
        let status = self.slots[slot]
            .replica
            .terminate(Duration::from_secs(30))
            .await?;
        self.wait_for_new_leader(&name).await?;
        self.slots[slot].replica.restart()?;
        Ok((name, status))
    }

    async fn wait_for_new_leader(&mut self, old: &str) -> Result<(), BoxError> {
        let deadline = Instant::now() + TAKEOVER;
        loop {
            self.sample().await;
            if self.holders.last().is_some_and(|h| h != old) {
                return Ok(());
            }
            if Instant::now() > deadline {
                return Err(format!("no failover from {old} within {TAKEOVER:?}").into());
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    }

    /// Closes every connection of every replica; returns how many.
    pub fn cut_connections(&self) -> usize {
        self.slots.iter().map(|s| s.relay.close_connections()).sum()
    }

    /// Samples memory and tasks when due, and follows the Lease.
    pub async fn sample(&mut self) {
        self.follow_lease().await;
        if self
            .last_sample
            .is_some_and(|at| at.elapsed() < SAMPLE_EVERY)
        {
            return;
        }
        self.last_sample = Some(Instant::now());
        for (index, slot) in self.slots.iter().enumerate() {
            let (Some(pid), Some(memory)) = (slot.replica.pid(), slot.replica.memory()) else {
                continue;
            };
            let tasks = match slot.replica.scrape().await {
                Ok(text) => metric(&text, TASKS).map(|v| v as u64),
                Err(_) => None,
            };
            self.samples.push(Sample {
                replica: index,
                pid,
                at: self.started.elapsed(),
                rss_kib: memory.rss_kib,
                anon_kib: memory.anon_kib,
                tasks,
                leads: self.holders.last() == Some(&slot.replica.name),
            });
        }
    }

    /// Where the samples are written at the end.
    pub fn samples_file(&self) -> PathBuf {
        e2e_dir().join("soak-samples.csv")
    }

    /// The samples as CSV, one line per sample: how memory and tasks went.
    pub fn samples_csv(&self) -> String {
        let names = self.names();
        let mut csv = String::from("replica,pid,seconds,leads,rss_kib,anon_kib,tasks\n");
        for s in &self.samples {
            csv.push_str(&format!(
                "{},{},{:.1},{},{},{},{}\n",
                names.get(s.replica).map_or("?", String::as_str),
                s.pid,
                s.at.as_secs_f64(),
                s.leads,
                s.rss_kib,
                s.anon_kib,
                s.tasks.map_or(String::new(), |t| t.to_string())
            ));
        }
        csv
    }
}
