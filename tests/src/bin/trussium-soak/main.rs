//! `trussium-soak`: the operator under a long, seeded churn against the
//! local cluster (`make soak DURATION=30m`; `make test` runs three minutes
//! with a fixed seed).
//!
//! Two replicas of the release build elect a leader while the soak creates,
//! upgrades (also to an image that never gets ready, and back), scales
//! (also to zero) and deletes runtimes, switches autoscaling and network
//! policies, rotates, deletes and recreates Secrets, deletes whole
//! namespaces, cuts every connection of the replicas, and kills (`-9`) or
//! stops (SIGTERM) the leader every few minutes, all decided by a seed
//! (`SOAK_SEED=` replays one). At checkpoints and at the end it lets
//! everything settle and checks, against the API server: every runtime's
//! status and owned objects are what its spec, Secrets and Deployment say;
//! every transition has its Event exactly once; no owned object is
//! orphaned or owned by another; no warning but those its faults explain;
//! no Secret value in any status, Event, ConfigMap, log line or response
//! the operator received; each replica's memory and tasks flat. It prints
//! a summary table and exits non-zero on any violation, naming it.
//!
//! Settings: `SOAK_DURATION` (`30m`), `SOAK_SEED` (fresh, printed),
//! `TRUSSIUM_OPERATOR_BIN` (the operator binary; `make soak` builds the
//! release one). Bad settings or no cluster: one line, exit before anything
//! is created.

mod act;
mod events;
mod history;
mod logs;
mod plan;
mod replicas;
mod sentinel;
mod settings;
mod state;
mod summary;
mod trend;

use std::process::ExitCode;
use std::time::Duration;

use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::Namespace;
use k8s_openapi::api::events::v1::Event;
use k8s_openapi::jiff::Timestamp;
use kube::api::{DeleteParams, ListParams};
use kube::{Api, Client};
use tokio::time::Instant;
use trussium_api::TrussiumRuntime;
use trussium_e2e::{
    Audit, AuditMark, BoxError, OPERATOR_NAMESPACE, OPERATOR_USER, admin_client, install,
    install_leader_election_rbac, operator_binary,
};
use trussium_operator::pure::config::OperatorConfig;

use act::{Cluster, NAMESPACE_PREFIX};
use history::Recorder;
use plan::{Fault, Operation, Plan, Step};
use replicas::{LEASE, Replicas};
use settings::{DURATION_ENV, SEED_ENV, STEP, Settings};
use state::Observed;
use summary::{Report, Requests};

/// The replicas' settings that the checks use too.
fn operator_config() -> OperatorConfig {
    OperatorConfig {
        // A rollout to the never-ready image fails within the churn.
        progress_deadline_seconds: 15,
        ..OperatorConfig::default()
    }
}

/// The replicas' arguments: leader election on a Lease of the soak's own,
/// JSON logs (the checks read them), and a resync and watch renewal every
/// minute or two, so that even a short soak goes through both.
fn operator_args(config: &OperatorConfig) -> Vec<String> {
    vec![
        "--leader-elect=true".into(),
        format!("--leader-elect-resource-name={LEASE}"),
        format!("--leader-elect-resource-namespace={OPERATOR_NAMESPACE}"),
        format!(
            "--progress-deadline-seconds={}",
            config.progress_deadline_seconds
        ),
        format!("--cluster-domain={}", config.cluster_domain),
        "--log-format=json".into(),
        "--resync-seconds=60".into(),
        "--watch-timeout-seconds=120".into(),
    ]
}

const REPLICAS: [&str; 2] = ["soak-a", "soak-b"];
/// How long a checkpoint waits for everything to settle.
const SETTLE: Duration = Duration::from_secs(240);

#[tokio::main]
async fn main() -> ExitCode {
    let env = |name: &str| std::env::var(name).ok();
    let settings = match settings::parse(
        env(DURATION_ENV).as_deref(),
        env(SEED_ENV).as_deref(),
        settings::fresh_seed(),
    ) {
        Ok(settings) => settings,
        Err(message) => {
            eprintln!("soak: {message}");
            return ExitCode::from(2);
        }
    };
    let admin = match reachable_cluster().await {
        Ok(admin) => admin,
        Err(message) => {
            eprintln!("soak: {message}");
            return ExitCode::FAILURE;
        }
    };
    let binary = operator_binary();
    if !binary.exists() {
        eprintln!(
            "soak: no operator binary at {} (make soak builds the release one)",
            binary.display()
        );
        return ExitCode::FAILURE;
    }
    println!(
        "soak: seed {} (replay: SOAK_SEED={}), {} s of churn, operator {}",
        settings.seed,
        settings.seed,
        settings.duration.as_secs(),
        binary.display()
    );
    match Soak::run(settings, admin).await {
        Ok(report) => {
            report.print();
            if report.violations.is_empty() {
                println!("soak: PASSED");
                ExitCode::SUCCESS
            } else {
                println!("soak: FAILED (replay: SOAK_SEED={})", settings.seed);
                ExitCode::FAILURE
            }
        }
        Err(err) => {
            eprintln!("soak: {err} (replay: SOAK_SEED={})", settings.seed);
            ExitCode::FAILURE
        }
    }
}

/// The admin client, once the API server answers.
async fn reachable_cluster() -> Result<Client, String> {
    let not_up = |reason: String| {
        format!("the local cluster is not up ({reason}); start it with make cluster-up")
    };
    let admin = admin_client().await.map_err(|e| not_up(e.to_string()))?;
    match tokio::time::timeout(Duration::from_secs(10), admin.apiserver_version()).await {
        Ok(Ok(_)) => Ok(admin),
        Ok(Err(err)) => Err(not_up(err.to_string())),
        Err(_) => Err(not_up("no answer within 10 s".into())),
    }
}

/// Everything the soak keeps while it runs.
struct Soak {
    admin: Client,
    config: OperatorConfig,
    cluster: Cluster,
    replicas: Replicas,
    recorder: Recorder,
    audit: Audit,
    audit_mark: AuditMark,
    /// When each fault was injected (warnings after it are explained).
    faults: Vec<Timestamp>,
    report: Report,
    started: Instant,
}

impl Soak {
    async fn run(settings: Settings, admin: Client) -> Result<Report, BoxError> {
        let started = Instant::now();
        settle_other_namespaces(&admin).await?;
        install(&admin).await?;
        install_leader_election_rbac(&admin).await?;
        // A Lease left by an interrupted soak would hold the replicas back
        // until it expires.
        let _ = Api::<Lease>::namespaced(admin.clone(), OPERATOR_NAMESPACE)
            .delete(LEASE, &DeleteParams::default())
            .await;
        let audit = Audit::open()?;
        let audit_mark = audit.mark();
        let recorder = Recorder::start(&admin, NAMESPACE_PREFIX);
        let config = operator_config();
        let mut replicas = Replicas::start(&admin, &REPLICAS, &operator_args(&config)).await?;
        replicas.wait_ready().await?;
        let mut soak = Soak {
            cluster: Cluster::new(&admin, settings.seed),
            admin,
            config,
            replicas,
            recorder,
            audit,
            audit_mark,
            faults: Vec::new(),
            report: Report::new(settings.seed, settings.duration),
            started,
        };
        let outcome = soak.churn(settings).await;
        if let Err(err) = outcome {
            soak.report
                .violations
                .push(format!("the soak stopped: {err}"));
        }
        if soak.report.violations.is_empty() {
            soak.checkpoint().await?;
        }
        soak.finish().await?;
        Ok(soak.report)
    }

    /// Every step of the plan, about one a second; stops at the first
    /// checkpoint that finds a violation.
    async fn churn(&mut self, settings: Settings) -> Result<(), BoxError> {
        let mut plan = Plan::new(settings.seed, settings.steps());
        let mut next = Instant::now();
        let mut done = 0;
        while let Some(step) = plan.next() {
            self.replicas.sample().await;
            match step {
                Step::Operation(operation) => {
                    tokio::time::sleep_until(next).await;
                    next = (next + STEP).max(Instant::now());
                    self.operate(&operation).await?;
                    done += 1;
                    if done % 60 == 0 {
                        println!(
                            "soak: {done}/{} operations, {} failovers",
                            plan.steps(),
                            self.replicas.failovers()
                        );
                    }
                }
                Step::Fault(fault) => self.inject(fault).await?,
                Step::Checkpoint => {
                    self.checkpoint().await?;
                    if !self.report.violations.is_empty() {
                        return Ok(());
                    }
                    next = Instant::now();
                }
            }
        }
        Ok(())
    }

    async fn operate(&mut self, operation: &Operation) -> Result<(), BoxError> {
        if let Operation::DeleteNamespace { namespace } = operation {
            // Its Events go with it: check them first.
            let name = self.cluster.namespace(*namespace)?.to_string();
            self.check_events(&name).await?;
            self.recorder.forget_namespace(&name);
        }
        self.cluster
            .apply(operation)
            .await
            .map_err(|e| format!("{operation:?} failed: {e}"))?;
        *self.report.operations.entry(operation.kind()).or_default() += 1;
        Ok(())
    }

    async fn inject(&mut self, fault: Fault) -> Result<(), BoxError> {
        self.faults.push(Timestamp::now());
        match fault {
            Fault::CutConnections => {
                self.replicas.cut_connections();
            }
            Fault::KillLeader => {
                let killed = self.replicas.kill_leader().await?;
                println!("soak: killed the leader {killed} (-9)");
            }
            Fault::StopLeader => {
                let (stopped, status) = self.replicas.stop_leader().await?;
                println!("soak: stopped the leader {stopped} (TERM): {status}");
                if !status.success() {
                    self.report.violations.push(format!(
                        "replica {stopped} exited with {status} after SIGTERM (a graceful stop exits 0)"
                    ));
                }
            }
        }
        // The new leader's first moments belong to the fault too.
        self.faults.push(Timestamp::now());
        *self.report.faults.entry(fault.kind()).or_default() += 1;
        Ok(())
    }

    /// Lets everything settle, then checks every invariant of the live
    /// namespaces and of the logs so far.
    async fn checkpoint(&mut self) -> Result<(), BoxError> {
        let started = Instant::now();
        let namespaces = self.cluster.namespaces();
        let deadline = Instant::now() + SETTLE;
        let problems = loop {
            self.replicas.sample().await;
            let mut problems = Vec::new();
            for namespace in &namespaces {
                problems.extend(
                    Observed::list(&self.admin, namespace)
                        .await?
                        .problems(&self.config),
                );
            }
            if problems.is_empty() || Instant::now() > deadline {
                break problems;
            }
            tokio::time::sleep(Duration::from_secs(2)).await;
        };
        self.report.violations.extend(problems);
        for namespace in &namespaces {
            self.check_events(namespace).await?;
            self.check_objects_for_secrets(namespace).await?;
        }
        self.check_logs();
        self.report.checkpoints += 1;
        println!(
            "soak: checkpoint {}: {} namespaces settled and checked in {:.0} s, {} violations",
            self.report.checkpoints,
            namespaces.len(),
            started.elapsed().as_secs_f64(),
            self.report.violations.len()
        );
        Ok(())
    }

    async fn check_events(&mut self, namespace: &str) -> Result<(), BoxError> {
        let events = events::list(&self.admin, namespace).await?;
        for (uid, history) in self.recorder.of_namespace(namespace) {
            let seen = events.get(&uid).map(Vec::as_slice).unwrap_or_default();
            let verdict = events::check(&uid, &history, seen);
            self.report.events_published(&uid, verdict.published.len());
            self.report.gaps_seen(&uid, verdict.gaps);
            for line in verdict.unrecorded {
                if !self.report.unrecorded.contains(&line) {
                    self.report.unrecorded.push(line);
                }
            }
            self.report.violations.extend(verdict.violations);
        }
        Ok(())
    }

    /// No Secret value in a runtime's status, an Event or a ConfigMap.
    async fn check_objects_for_secrets(&mut self, namespace: &str) -> Result<(), BoxError> {
        let runtimes = Api::<TrussiumRuntime>::namespaced(self.admin.clone(), namespace)
            .list(&ListParams::default())
            .await?;
        let events = Api::<Event>::namespaced(self.admin.clone(), namespace)
            .list(&ListParams::default())
            .await?;
        let config_maps =
            Api::<k8s_openapi::api::core::v1::ConfigMap>::namespaced(self.admin.clone(), namespace)
                .list(&ListParams::default())
                .await?;
        for (what, text) in [
            (
                "a runtime's status",
                serde_json::to_string(
                    &runtimes.items.iter().map(|r| &r.status).collect::<Vec<_>>(),
                )?,
            ),
            ("an Event", serde_json::to_string(&events.items)?),
            ("a ConfigMap", serde_json::to_string(&config_maps.items)?),
        ] {
            if sentinel::found_in(&text) {
                self.report.violations.push(format!(
                    "a Secret value is in {what} in namespace {namespace}"
                ));
            }
        }
        Ok(())
    }

    /// Warnings nothing explains, and Secret values, in the logs so far.
    fn check_logs(&mut self) {
        for path in self.replicas.logs() {
            let log = std::fs::read_to_string(&path).unwrap_or_default();
            for line in logs::unexplained(&log, &self.faults) {
                let violation = format!("{} logged: {line}", path.display());
                if !self.report.violations.contains(&violation) {
                    self.report.violations.push(violation);
                }
            }
            if sentinel::found_in(&log) {
                let violation = format!("a Secret value is in {}", path.display());
                if !self.report.violations.contains(&violation) {
                    self.report.violations.push(violation);
                }
            }
        }
    }

    /// The figures of the whole soak, the audit log's view of it, and what
    /// the processes did; the namespaces go when nothing was found.
    async fn finish(&mut self) -> Result<(), BoxError> {
        self.check_logs();
        self.audit.settle().await?;
        let mut requests = Requests::default();
        for event in self.audit.events_since(&self.audit_mark)? {
            if event.user.username != OPERATOR_USER || event.stage != "ResponseComplete" {
                continue;
            }
            if sentinel::found_in(&serde_json::to_string(&event.response_object)?)
                || sentinel::found_in(&serde_json::to_string(&event.request_object)?)
            {
                self.report.violations.push(format!(
                    "a Secret value is in the audit log of the operator's {} {}",
                    event.verb, event.request_uri
                ));
            }
            if event.verb == "watch" {
                requests.watches += 1;
                continue;
            }
            requests.total += 1;
            requests.writes += usize::from(event.is_write());
            requests.lease += usize::from(event.resource() == "leases");
        }
        self.report.requests = requests;
        self.report.failovers = self.replicas.failovers();
        let samples = self.replicas.samples_file();
        match std::fs::write(&samples, self.replicas.samples_csv()) {
            Ok(()) => println!("soak: memory and tasks, sampled: {}", samples.display()),
            Err(e) => println!("soak: could not write {}: {e}", samples.display()),
        }
        self.report.processes = summary::processes(&self.replicas.samples, &self.replicas.names());
        self.report
            .violations
            .extend(summary::growth(&self.report.processes));
        self.report.elapsed = self.started.elapsed();
        if self.report.violations.is_empty() {
            let namespaces: Api<Namespace> = Api::all(self.admin.clone());
            for namespace in self.cluster.namespaces() {
                let _ = namespaces
                    .delete(&namespace, &DeleteParams::background())
                    .await;
            }
        } else {
            println!(
                "soak: left for a look: namespaces {:?}, logs {:?}",
                self.cluster.namespaces(),
                self.replicas.logs()
            );
        }
        Ok(())
    }
}

/// Waits (a while) until no namespace is being deleted: what other tests
/// left behind is gone before the replicas, which watch the whole cluster,
/// start.
async fn settle_other_namespaces(admin: &Client) -> Result<(), BoxError> {
    let namespaces: Api<Namespace> = Api::all(admin.clone());
    let deadline = Instant::now() + Duration::from_secs(180);
    loop {
        let terminating = namespaces
            .list(&ListParams::default())
            .await?
            .items
            .iter()
            .filter(|n| n.metadata.deletion_timestamp.is_some())
            .count();
        if terminating == 0 || Instant::now() > deadline {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_secs(2)).await;
    }
}
