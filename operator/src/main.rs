//! `trussium-operator`: runs the TrussiumRuntime controller.

use std::future::Future;
use std::io::Write;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::Parser;
use kube::client::ClientBuilder;
use kube::{Client, Config};
use tracing_subscriber::EnvFilter;
use trussium_operator::cli::{Cli, Command, LogFormat};
use trussium_operator::pure::config::OperatorConfig;
use trussium_operator::pure::events::object::Reporter;
use trussium_operator::shell::controller::{self, Clients, Instruments, Scope};
use trussium_operator::shell::endpoints::{self, Routes};
use trussium_operator::shell::kubernetes_version;
use trussium_operator::shell::leader::{Election, Leadership, LeaseTimings, Renewals, Role};
use trussium_operator::shell::metrics::{ApiRequestsLayer, Metrics};
use trussium_operator::shell::probes::ProbeState;

#[tokio::main]
async fn main() -> ExitCode {
    let cli = match parse() {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    if let Some(Command::Crd) = cli.command {
        return print_crd();
    }
    match run(cli).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => fail(&message),
    }
}

/// The arguments, or the exit code when they end the run (`--help`, a
/// usage error).
fn parse() -> Result<Cli, ExitCode> {
    match Cli::try_parse() {
        Ok(cli) => Ok(cli),
        Err(err) if !err.use_stderr() => {
            // --help, --version
            let _ = err.print();
            Err(ExitCode::SUCCESS)
        }
        Err(err) => {
            // clap's first line, without its usage block.
            let text = err.render().to_string();
            let line = text.lines().next().unwrap_or("invalid arguments");
            let line = line.strip_prefix("error: ").unwrap_or(line);
            eprintln!("trussium-operator: {line} (see --help)");
            Err(ExitCode::from(2))
        }
    }
}

fn print_crd() -> ExitCode {
    match trussium_api::crd::crd_yaml() {
        Ok(yaml) => match std::io::stdout().write_all(yaml.as_bytes()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(err) => fail(&format!("writing the CRD: {err}")),
        },
        Err(err) => fail(&format!("rendering the CRD: {err}")),
    }
}

/// What starts, in order, until SIGTERM (or a lost leadership) ends it.
async fn run(cli: Cli) -> Result<(), String> {
    let timings = LeaseTimings::new(
        cli.leader_elect_lease_duration,
        cli.leader_elect_renew_deadline,
        cli.leader_elect_retry_period,
    )?;
    init_tracing(cli.log_format);
    // Listen first: a port in use is a start-up error, not a later surprise.
    let metrics_listener = listen(cli.metrics_bind_address.0, "metrics").await?;
    let probe_listener = listen(cli.health_probe_bind_address.0, "health probes").await?;
    let metrics = Metrics::new();
    let health = ProbeState::default();
    let kube_config = kube_config().await?;
    let clients = clients(&kube_config, cli.request_timeout, &metrics, &health)?;
    serve(metrics_listener, Routes::Metrics(metrics.clone()));
    serve(probe_listener, Routes::Probes(health.clone()));
    let reporter = reporter();
    let election = match cli.leader_elect {
        true => Some(election(
            &cli,
            kube_config,
            &clients,
            &reporter,
            timings,
            (&metrics, &health),
        )?),
        false => None,
    };
    let (leadership, role) = match election {
        Some(_) => Leadership::standby(),
        None => Leadership::always(),
    };
    let role = Arc::new(role);
    let (config, scope, pace) = settings(&cli);
    tracing::info!(?scope, ?config, leader_elect = cli.leader_elect, "starting");
    // Beside the start, not before it: an API server that is slow to answer
    // must not hold up the controller.
    tokio::spawn(kubernetes_version::warn_if_unsupported(
        clients.requests.clone(),
    ));
    let instruments = Instruments {
        leadership,
        metrics: metrics.clone(),
        health,
    };
    let stopping = stopping(role.clone());
    let controller = controller::run(
        clients,
        config,
        scope,
        pace,
        reporter,
        instruments,
        stopping,
    );
    campaign_while(controller, election.as_ref(), &role, &metrics).await;
    tracing::info!("stopped");
    Ok(())
}

/// Runs `controller` to its end; with an election, campaigns meanwhile,
/// releases the Lease at the end, and exits at once if leadership is lost.
async fn campaign_while(
    controller: impl Future<Output = ()>,
    election: Option<&Election>,
    role: &tokio::sync::watch::Sender<Role>,
    metrics: &Metrics,
) {
    let Some(election) = election else {
        return controller.await;
    };
    tokio::select! {
        () = controller => {}
        lost = election.campaign(role, metrics) => {
            // As controller-runtime: no drain, another replica leads now.
            eprintln!("trussium-operator: lost leadership: {lost}");
            std::process::exit(1);
        }
    }
    election.release().await;
}

/// What the controller is told: its configuration, where it looks, its pace.
fn settings(cli: &Cli) -> (OperatorConfig, Scope, controller::Pace) {
    let config = OperatorConfig {
        progress_deadline_seconds: cli.progress_deadline_seconds,
        cluster_domain: cli.cluster_domain.clone(),
    };
    let scope = match &cli.namespace {
        Some(ns) => Scope::Namespace(ns.clone()),
        None => Scope::Cluster,
    };
    let pace = controller::Pace {
        concurrency: cli.concurrency,
        max_concurrent_rollouts: cli.max_concurrent_rollouts,
        resync: Duration::from_secs(cli.resync_seconds),
        watch_timeout_seconds: cli.watch_timeout_seconds,
        reconcile_timeout: cli.reconcile_timeout,
    };
    (config, scope, pace)
}

/// Who writes Events: the pod name in a cluster; otherwise the host and
/// process.
fn reporter() -> Reporter {
    Reporter {
        controller: "trussium-operator".into(),
        instance: std::env::var("POD_NAME").unwrap_or_else(|_| {
            let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
            format!("{}-{}", host.trim(), std::process::id())
        }),
    }
}

/// The leader election, with its own client (see [`election_client`]).
fn election(
    cli: &Cli,
    kube_config: Config,
    clients: &Clients,
    reporter: &Reporter,
    timings: LeaseTimings,
    (metrics, health): (&Metrics, &ProbeState),
) -> Result<Election, String> {
    let namespace = cli
        .leader_elect_resource_namespace
        .clone()
        .unwrap_or_else(|| clients.requests.default_namespace().to_string());
    let renewals = Renewals::default();
    let lease_client = election_client(kube_config, &timings, &renewals, metrics, health)?;
    Ok(Election::new(
        lease_client,
        renewals,
        &namespace,
        &cli.leader_elect_resource_name,
        &reporter.instance,
        timings,
    ))
}

/// Resolves on SIGINT or SIGTERM, once this replica has stepped down.
async fn stopping(role: Arc<tokio::sync::watch::Sender<Role>>) {
    shutdown_signal().await;
    tracing::info!("stopping: finishing the reconciles in flight");
    role.send_replace(Role::Stopping);
}

/// Serves `routes` on `listener`, when there is one.
fn serve(listener: Option<tokio::net::TcpListener>, routes: Routes) {
    if let Some(listener) = listener {
        tokio::spawn(endpoints::serve(listener, routes));
    }
}

/// Binds `address` for `what`, or nothing when it is disabled.
async fn listen(
    address: Option<SocketAddr>,
    what: &str,
) -> Result<Option<tokio::net::TcpListener>, String> {
    let Some(address) = address else {
        return Ok(None);
    };
    endpoints::bind(address)
        .await
        .map(Some)
        .map_err(|err| format!("cannot serve {what} on {address}: {err}"))
}

/// Where a Pod finds its ServiceAccount token.
const IN_CLUSTER_TOKEN: &str = "/var/run/secrets/kubernetes.io/serviceaccount/token";

/// The client configuration as client-go finds it: `KUBECONFIG`, else
/// in-cluster when in a Pod, else `~/.kube/config`.
async fn kube_config() -> Result<Config, String> {
    let in_pod = std::env::var_os("KUBECONFIG").is_none()
        && std::env::var_os("KUBERNETES_SERVICE_HOST").is_some();
    let config = if in_pod {
        if let Err(err) = std::fs::metadata(IN_CLUSTER_TOKEN) {
            return Err(format!(
                "in a Pod (KUBERNETES_SERVICE_HOST is set) but the ServiceAccount token {IN_CLUSTER_TOKEN} cannot be read: {err}"
            ));
        }
        Config::incluster()
            .map_err(|err| format!("cannot load the in-cluster configuration: {err}"))?
    } else {
        Config::infer()
            .await
            .map_err(|err| format!("cannot find a Kubernetes configuration: {err}"))?
    };
    Ok(config)
}

/// The kube clients, counting their requests: every request of the one
/// reconciles use times out after `request_timeout` (without an answer it
/// would hold its reconcile forever); the watches' client has no timeout.
fn clients(
    config: &Config,
    request_timeout: Duration,
    metrics: &Metrics,
    health: &ProbeState,
) -> Result<Clients, String> {
    let counted = ApiRequestsLayer::new(metrics.clone(), health.clone());
    let watches = ClientBuilder::try_from(config.clone())
        .map_err(cannot_build)?
        .with_layer(&counted)
        .build();
    let requests = ClientBuilder::try_from(timed(config.clone(), request_timeout))
        .map_err(cannot_build)?
        .with_layer(&counted)
        .build();
    Ok(Clients { requests, watches })
}

/// The leader election's own client: every request times out (see
/// `LeaseTimings::request_timeout`), and its accepted Lease writes are
/// recorded in `renewals`.
fn election_client(
    config: Config,
    timings: &LeaseTimings,
    renewals: &Renewals,
    metrics: &Metrics,
    health: &ProbeState,
) -> Result<Client, String> {
    Ok(
        ClientBuilder::try_from(timed(config, timings.request_timeout()))
            .map_err(cannot_build)?
            .with_layer(&ApiRequestsLayer::new(metrics.clone(), health.clone()))
            .with_layer(&renewals.layer())
            .build(),
    )
}

/// `config` with every request timing out after `timeout`.
fn timed(mut config: Config, timeout: Duration) -> Config {
    config.connect_timeout = Some(timeout);
    config.read_timeout = Some(timeout);
    config.write_timeout = Some(timeout);
    // Count the read timeout from the request, not from when its pooled
    // connection went idle.
    config.reset_reader_on_write = true;
    config
}

fn cannot_build(err: kube::Error) -> String {
    format!("cannot build a Kubernetes client: {err}")
}

fn init_tracing(format: LogFormat) {
    let filter =
        EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info,kube=warn"));
    let builder = tracing_subscriber::fmt().with_env_filter(filter);
    match format {
        LogFormat::Text => builder.init(),
        LogFormat::Json => builder.json().init(),
    }
}

/// Resolves on SIGINT or SIGTERM.
async fn shutdown_signal() {
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {},
        _ = terminate => {},
    }
}

fn fail(message: &str) -> ExitCode {
    eprintln!("trussium-operator: {message}");
    ExitCode::FAILURE
}
