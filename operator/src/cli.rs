//! The operator's command line: every flag, its environment variable and its
//! default, declared once. `main.rs` runs it; the manual's operator reference
//! and the docs checks read it through [`command`].

use std::time::Duration;

use clap::{ArgAction, CommandFactory, Parser, Subcommand, ValueEnum};

use crate::shell::endpoints::{BindAddress, parse_bind_address};
use trussium_api::duration;
use trussium_api::operator::{
    LEADER_ELECT_FLAG, LEASE_NAME_DEFAULT, LEASE_NAME_FLAG, LEASE_NAMESPACE_FLAG,
    WATCH_NAMESPACE_ENV, WATCH_NAMESPACE_FLAG,
};

#[derive(Parser, Debug)]
#[command(
    name = "trussium-operator",
    version,
    about = "Runs Trussium AI runtimes on Kubernetes"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,

    /// progressDeadlineSeconds of every managed Deployment: how long a rollout
    /// may make no progress before it counts as failed.
    #[arg(long, env = "TRUSSIUM_PROGRESS_DEADLINE_SECONDS", default_value_t = 600,
          value_parser = clap::value_parser!(i32).range(1..))]
    pub progress_deadline_seconds: i32,

    /// Cluster DNS domain, used in status.endpoint.
    #[arg(long, env = "TRUSSIUM_CLUSTER_DOMAIN", default_value = "cluster.local")]
    pub cluster_domain: String,

    /// Watch only this namespace instead of the whole cluster.
    #[arg(long = WATCH_NAMESPACE_FLAG, env = WATCH_NAMESPACE_ENV)]
    pub namespace: Option<String>,

    /// Runtimes reconciled at the same time.
    #[arg(long, env = "TRUSSIUM_CONCURRENCY", default_value_t = 4,
          value_parser = clap::value_parser!(u16).range(1..))]
    pub concurrency: u16,

    /// Runtimes whose pods may roll at the same time because the operator
    /// was upgraded and builds another pod template from the same spec. The
    /// others wait their turn, in the order of namespace and name, each
    /// turn held until the Deployment is available again; a rollout that
    /// fails keeps its turn, so a template that fails everywhere stops
    /// there. Rollouts a runtime's own change asks for never wait.
    #[arg(long, env = "TRUSSIUM_MAX_CONCURRENT_ROLLOUTS", default_value_t = 5,
          value_parser = clap::value_parser!(u16).range(1..))]
    pub max_concurrent_rollouts: u16,

    /// Seconds between reconciles of a runtime nothing changed. Each is
    /// decided from the watch caches and sends no request unless something
    /// must change.
    #[arg(long, env = "TRUSSIUM_RESYNC_SECONDS", default_value_t = 300,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub resync_seconds: u64,

    /// How long one API request may go unanswered before it fails (it is
    /// retried). Watches are not bound by it: they stay open for
    /// --watch-timeout-seconds.
    #[arg(long, env = "TRUSSIUM_REQUEST_TIMEOUT", default_value = "30s", value_parser = timeout)]
    pub request_timeout: Duration,

    /// How long one reconcile of a runtime may take before it is abandoned
    /// and retried: a hung request can never hold a runtime forever.
    #[arg(long, env = "TRUSSIUM_RECONCILE_TIMEOUT", default_value = "2m", value_parser = timeout)]
    pub reconcile_timeout: Duration,

    /// Seconds a watch runs before the operator opens it again (the API
    /// server ends it then; one request per watch). An open watch outlives a
    /// revoked permission: a refusal shows on the next opening. Lower it
    /// behind a load balancer that drops idle connections sooner.
    #[arg(long, env = "TRUSSIUM_WATCH_TIMEOUT_SECONDS", default_value_t = 290,
          value_parser = clap::value_parser!(u32).range(1..=3600))]
    pub watch_timeout_seconds: u32,

    /// Log format.
    #[arg(long, env = "TRUSSIUM_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,

    /// Where /metrics is served: `:8080`, `host:port`, or `0` for nowhere.
    /// Port 0 (`127.0.0.1:0`) takes a free port, logged as `serving`.
    #[arg(long, default_value = ":8080", value_parser = parse_bind_address)]
    pub metrics_bind_address: BindAddress,

    /// Where /healthz and /readyz are served: `:8081`, `host:port`, or `0`.
    /// Port 0 takes a free port, as for --metrics-bind-address.
    #[arg(long, default_value = ":8081", value_parser = parse_bind_address)]
    pub health_probe_bind_address: BindAddress,

    /// Elect one leader among the replicas through a Lease; only the leader
    /// reconciles. `--leader-elect=false` turns it off.
    #[arg(long = LEADER_ELECT_FLAG, default_value_t = true, action = ArgAction::Set, num_args = 0..=1,
          require_equals = true, default_missing_value = "true")]
    pub leader_elect: bool,

    /// How long a standby waits after the leader's last renewal before taking over.
    #[arg(long, default_value = "15s", value_parser = duration::parse)]
    pub leader_elect_lease_duration: Duration,

    /// How long the leader retries renewing before it gives up and exits.
    #[arg(long, default_value = "10s", value_parser = duration::parse)]
    pub leader_elect_renew_deadline: Duration,

    /// How often the leader renews and a standby tries to take over.
    #[arg(long, default_value = "2s", value_parser = duration::parse)]
    pub leader_elect_retry_period: Duration,

    /// Name of the Lease.
    #[arg(long = LEASE_NAME_FLAG, default_value = LEASE_NAME_DEFAULT)]
    pub leader_elect_resource_name: String,

    /// Namespace of the Lease (default: the operator's own namespace).
    #[arg(long = LEASE_NAMESPACE_FLAG)]
    pub leader_elect_resource_namespace: Option<String>,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Print the TrussiumRuntime CustomResourceDefinition as YAML.
    Crd,
}

#[derive(ValueEnum, Clone, Copy, Debug)]
pub enum LogFormat {
    Text,
    Json,
}

/// The clap command, for help and for the manual.
pub fn command() -> clap::Command {
    Cli::command()
}

/// A duration greater than zero: a zero timeout would fail every request
/// or reconcile at once.
fn timeout(value: &str) -> Result<Duration, String> {
    let parsed = duration::parse(value)?;
    if parsed.is_zero() {
        return Err(format!(
            "{value:?} is zero: a timeout must be greater than 0"
        ));
    }
    Ok(parsed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeouts_are_durations_greater_than_zero() {
        let parse = |args: &[&str]| {
            Cli::try_parse_from(["trussium-operator"].iter().chain(args))
                .map(|cli| (cli.request_timeout, cli.reconcile_timeout))
                .map_err(|e| e.to_string())
        };
        assert_eq!(
            parse(&[]),
            Ok((Duration::from_secs(30), Duration::from_secs(120)))
        );
        assert_eq!(
            parse(&["--request-timeout=5s", "--reconcile-timeout=1m30s"]),
            Ok((Duration::from_secs(5), Duration::from_secs(90)))
        );
        for bad in [
            "--request-timeout=0s",
            "--reconcile-timeout=0",
            "--request-timeout=soon",
        ] {
            let error = parse(&[bad]).err().unwrap_or_default();
            assert!(
                error.contains("is zero") || error.contains("invalid duration"),
                "{bad}: {error}"
            );
        }
    }
}
