//! `trussium-operator`: runs the TrussiumRuntime controller.

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
use trussium_operator::config::OperatorConfig;
use trussium_operator::controller::{self, Clients, Instruments, Reporter, Scope};
use trussium_operator::endpoints::{self, Routes};
use trussium_operator::health::Health;
use trussium_operator::leader::{Election, Leadership, LeaseTimings, Renewals, Role};
use trussium_operator::metrics::{ApiRequestsLayer, Metrics};

#[tokio::main]
async fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) if !err.use_stderr() => {
            // --help, --version
            let _ = err.print();
            return ExitCode::SUCCESS;
        }
        Err(err) => {
            // clap's first line, without its usage block.
            let text = err.render().to_string();
            let line = text.lines().next().unwrap_or("invalid arguments");
            let line = line.strip_prefix("error: ").unwrap_or(line);
            eprintln!("trussium-operator: {line} (see --help)");
            return ExitCode::from(2);
        }
    };
    if let Some(Command::Crd) = cli.command {
        return match trussium_api::crd::crd_yaml() {
            Ok(yaml) => match std::io::stdout().write_all(yaml.as_bytes()) {
                Ok(()) => ExitCode::SUCCESS,
                Err(err) => fail(&format!("writing the CRD: {err}")),
            },
            Err(err) => fail(&format!("rendering the CRD: {err}")),
        };
    }
    let timings = match LeaseTimings::new(
        cli.leader_elect_lease_duration,
        cli.leader_elect_renew_deadline,
        cli.leader_elect_retry_period,
    ) {
        Ok(timings) => timings,
        Err(err) => return fail(&err),
    };
    init_tracing(cli.log_format);

    // Listen first: a port in use is a start-up error, not a later surprise.
    let metrics_listener = match listen(cli.metrics_bind_address.0, "metrics").await {
        Ok(listener) => listener,
        Err(err) => return fail(&err),
    };
    let probe_listener = match listen(cli.health_probe_bind_address.0, "health probes").await {
        Ok(listener) => listener,
        Err(err) => return fail(&err),
    };

    let metrics = Metrics::new();
    let health = Health::default();
    let kube_config = match kube_config().await {
        Ok(config) => config,
        Err(err) => return fail(&err),
    };
    let clients = match clients(kube_config.clone(), cli.request_timeout, &metrics, &health) {
        Ok(clients) => clients,
        Err(err) => return fail(&err),
    };
    if let Some(listener) = metrics_listener {
        tokio::spawn(endpoints::serve(listener, Routes::Metrics(metrics.clone())));
    }
    if let Some(listener) = probe_listener {
        tokio::spawn(endpoints::serve(listener, Routes::Probes(health.clone())));
    }

    let config = OperatorConfig {
        progress_deadline_seconds: cli.progress_deadline_seconds,
        cluster_domain: cli.cluster_domain,
    };
    let scope = match cli.namespace {
        Some(ns) => Scope::Namespace(ns),
        None => Scope::Cluster,
    };
    let reporter = Reporter {
        controller: "trussium-operator".into(),
        // The pod name in a cluster; otherwise the host and process.
        instance: std::env::var("POD_NAME").unwrap_or_else(|_| {
            let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
            format!("{}-{}", host.trim(), std::process::id())
        }),
    };
    let election = if cli.leader_elect {
        let namespace = cli
            .leader_elect_resource_namespace
            .clone()
            .unwrap_or_else(|| clients.requests.default_namespace().to_string());
        let renewals = Renewals::default();
        let lease_client =
            match election_client(kube_config, &timings, &renewals, &metrics, &health) {
                Ok(client) => client,
                Err(err) => return fail(&err),
            };
        Some(Election::new(
            lease_client,
            renewals,
            &namespace,
            &cli.leader_elect_resource_name,
            &reporter.instance,
            timings,
        ))
    } else {
        None
    };
    let (leadership, role) = match election {
        Some(_) => Leadership::standby(),
        None => Leadership::always(),
    };
    let role = Arc::new(role);
    tracing::info!(?scope, ?config, leader_elect = cli.leader_elect, "starting");

    let stopping = {
        let role = role.clone();
        async move {
            shutdown_signal().await;
            tracing::info!("stopping: finishing the reconciles in flight");
            role.send_replace(Role::Stopping);
        }
    };
    let instruments = Instruments {
        leadership,
        metrics: metrics.clone(),
        health,
    };
    let controller = controller::run(
        clients,
        config,
        scope,
        controller::Pace {
            concurrency: cli.concurrency,
            resync: std::time::Duration::from_secs(cli.resync_seconds),
            watch_timeout_seconds: cli.watch_timeout_seconds,
            reconcile_timeout: cli.reconcile_timeout,
        },
        reporter,
        instruments,
        stopping,
    );
    match &election {
        None => controller.await,
        Some(election) => {
            tokio::select! {
                () = controller => {}
                lost = election.campaign(&role, &metrics) => {
                    // As controller-runtime: no drain, another replica leads now.
                    eprintln!("trussium-operator: lost leadership: {lost}");
                    std::process::exit(1);
                }
            }
            election.release().await;
        }
    }
    tracing::info!("stopped");
    ExitCode::SUCCESS
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
    config: Config,
    request_timeout: Duration,
    metrics: &Metrics,
    health: &Health,
) -> Result<Clients, String> {
    let watches = client(config.clone(), metrics, health)?;
    let mut config = config;
    let timeout = Some(request_timeout);
    config.connect_timeout = timeout;
    config.read_timeout = timeout;
    config.write_timeout = timeout;
    // Count the read timeout from the request, not from when its pooled
    // connection went idle.
    config.reset_reader_on_write = true;
    let requests = client(config, metrics, health)?;
    Ok(Clients { requests, watches })
}

/// A kube client, counting its requests.
fn client(config: Config, metrics: &Metrics, health: &Health) -> Result<Client, String> {
    let builder = ClientBuilder::try_from(config)
        .map_err(|err| format!("cannot build a Kubernetes client: {err}"))?;
    Ok(builder
        .with_layer(&ApiRequestsLayer::new(metrics.clone(), health.clone()))
        .build())
}

/// The leader election's own client: every request times out (see
/// `LeaseTimings::request_timeout`), and its accepted Lease writes are
/// recorded in `renewals`.
fn election_client(
    mut config: Config,
    timings: &LeaseTimings,
    renewals: &Renewals,
    metrics: &Metrics,
    health: &Health,
) -> Result<Client, String> {
    let timeout = Some(timings.request_timeout());
    config.connect_timeout = timeout;
    config.read_timeout = timeout;
    config.write_timeout = timeout;
    // Count the read timeout from the request, not from when its pooled
    // connection went idle.
    config.reset_reader_on_write = true;
    let builder = ClientBuilder::try_from(config)
        .map_err(|err| format!("cannot build a Kubernetes client: {err}"))?;
    Ok(builder
        .with_layer(&ApiRequestsLayer::new(metrics.clone(), health.clone()))
        .with_layer(&renewals.layer())
        .build())
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
