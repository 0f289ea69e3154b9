//! What every reconcile shares, built once at start-up.

use std::sync::Mutex;
use std::time::Duration;

use kube::Client;

use super::cache::Caches;
use super::memory::Memory;
use super::terminating::Terminating;
use crate::pure::backoff::Backoff;
use crate::pure::config::OperatorConfig;
use crate::pure::events::object::Reporter;
use crate::pure::reverted::Announced;
use crate::pure::turns::Turns;
use crate::shell::metrics::Metrics;

pub struct Context {
    pub client: Client,
    pub config: OperatorConfig,
    /// Who signs the Events.
    pub reporter: Reporter,
    /// Counts the Events published.
    pub metrics: Metrics,
    /// What the watches know: every reconcile decides from it.
    pub caches: Caches,
    /// How often a converged runtime is reconciled again without a trigger.
    pub resync: Duration,
    /// What is remembered of each runtime between reconciles: status
    /// writes, refusals, stalls, failures in a row.
    pub memory: Memory,
    /// Recent drift reverts, to back off from another writer.
    pub backoff: Mutex<Backoff>,
    /// Runtimes let go because their namespace is being deleted.
    pub terminating: Terminating,
    /// Reverted changes lately announced, to say each once in a while.
    pub reverted: Announced,
    /// Rollouts only an operator upgrade causes, taking turns.
    pub turns: Mutex<Turns>,
}

impl Context {
    pub fn new(
        client: Client,
        config: OperatorConfig,
        reporter: Reporter,
        metrics: Metrics,
        caches: Caches,
        resync: Duration,
        max_concurrent_rollouts: u16,
    ) -> Self {
        Context {
            client,
            config,
            reporter,
            metrics,
            caches,
            resync,
            memory: Memory::default(),
            backoff: Mutex::new(Backoff::default()),
            terminating: Terminating::default(),
            reverted: Announced::default(),
            turns: Mutex::new(Turns::new(usize::from(max_concurrent_rollouts))),
        }
    }
}
