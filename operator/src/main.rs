//! `trussium-operator`: runs the TrussiumRuntime controller.

use std::io::Write;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use kube::Client;
use tracing_subscriber::EnvFilter;
use trussium_operator::config::OperatorConfig;
use trussium_operator::controller::{self, Reporter, Scope};

#[derive(Parser, Debug)]
#[command(
    name = "trussium-operator",
    version,
    about = "Runs Trussium AI runtimes on Kubernetes"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,

    /// progressDeadlineSeconds of every managed Deployment: how long a rollout
    /// may make no progress before it counts as failed.
    #[arg(long, env = "TRUSSIUM_PROGRESS_DEADLINE_SECONDS", default_value_t = 600,
          value_parser = clap::value_parser!(i32).range(1..))]
    progress_deadline_seconds: i32,

    /// Cluster DNS domain, used in status.endpoint.
    #[arg(long, env = "TRUSSIUM_CLUSTER_DOMAIN", default_value = "cluster.local")]
    cluster_domain: String,

    /// Watch only this namespace instead of the whole cluster.
    #[arg(long, env = "TRUSSIUM_WATCH_NAMESPACE")]
    namespace: Option<String>,

    /// Runtimes reconciled at the same time.
    #[arg(long, env = "TRUSSIUM_CONCURRENCY", default_value_t = 4,
          value_parser = clap::value_parser!(u16).range(1..))]
    concurrency: u16,

    /// Log format.
    #[arg(long, env = "TRUSSIUM_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    log_format: LogFormat,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Print the TrussiumRuntime CustomResourceDefinition as YAML.
    Crd,
}

#[derive(ValueEnum, Clone, Copy, Debug)]
enum LogFormat {
    Text,
    Json,
}

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Some(Command::Crd) = cli.command {
        return match trussium_api::crd::crd_yaml() {
            Ok(yaml) => match std::io::stdout().write_all(yaml.as_bytes()) {
                Ok(()) => ExitCode::SUCCESS,
                Err(err) => fail(&format!("writing the CRD: {err}")),
            },
            Err(err) => fail(&format!("rendering the CRD: {err}")),
        };
    }
    init_tracing(cli.log_format);

    let client = match Client::try_default().await {
        Ok(client) => client,
        Err(err) => return fail(&format!("cannot build a Kubernetes client: {err}")),
    };
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
    tracing::info!(?scope, ?config, "starting");
    controller::run(
        client,
        config,
        scope,
        cli.concurrency,
        reporter,
        shutdown_signal(),
    )
    .await;
    tracing::info!("stopped");
    ExitCode::SUCCESS
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
