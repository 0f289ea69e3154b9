//! The operator process started as a rendered Deployment's pod would run it
//! (the chart's, `deploy/`'s, the plugin's install): its container's arguments
//! and environment, as its ServiceAccount. KWOK fakes Pods, so the operator's
//! own Deployment never runs in the test cluster; this is how an install
//! surface is proven to give a working operator.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::Container;
use kube::{Client, ResourceExt};

use tokio::process::{Child, Command};

use crate::{
    ANY_LOOPBACK_PORT, BoxError, Endpoint, Error, LoggedEndpoints, e2e_dir, http_get,
    kubeconfig_for_service_account, operator_binary,
};

/// A running operator started from a Deployment; killed when dropped.
pub struct DeployedOperator {
    child: Child,
    /// Its standard output and error.
    pub log: PathBuf,
    /// Where its `/metrics` and probes are served (loopback ports the
    /// kernel picks).
    endpoints: LoggedEndpoints,
    /// The arguments it was started with.
    pub args: Vec<String>,
}

fn container(deployment: &Deployment) -> Result<&Container, Error> {
    deployment
        .spec
        .as_ref()
        .and_then(|s| s.template.spec.as_ref())
        .and_then(|s| s.containers.first())
        .ok_or_else(|| {
            Error::Check(format!(
                "Deployment {} has no container",
                deployment.name_any()
            ))
        })
}

/// The container's arguments, with the metrics and probe addresses moved to
/// loopback ports the kernel picks (the process shares the host's network).
pub fn local_args(container: &Container) -> Vec<String> {
    container
        .args
        .clone()
        .unwrap_or_default()
        .into_iter()
        .map(|arg| {
            if arg.starts_with("--metrics-bind-address=") {
                format!("--metrics-bind-address={ANY_LOOPBACK_PORT}")
            } else if arg.starts_with("--health-probe-bind-address=") {
                format!("--health-probe-bind-address={ANY_LOOPBACK_PORT}")
            } else {
                arg
            }
        })
        .collect()
}

impl DeployedOperator {
    /// Starts the operator binary with the first container's arguments and
    /// environment of `deployment` (a `metadata.name` fieldRef becomes
    /// `pod_name`), authenticating as the pod's ServiceAccount with a
    /// TokenRequest token and that ServiceAccount's namespace as its own (as
    /// in a pod).
    pub async fn start(
        admin: &Client,
        deployment: &Deployment,
        pod_name: &str,
    ) -> Result<DeployedOperator, BoxError> {
        let namespace = deployment.namespace().unwrap_or_default();
        let pod = deployment
            .spec
            .as_ref()
            .and_then(|s| s.template.spec.as_ref());
        let account = pod
            .and_then(|p| p.service_account_name.clone())
            .unwrap_or_else(|| "default".into());
        let container = container(deployment)?;
        let dir = e2e_dir();
        std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
        let kubeconfig = dir.join(format!("{pod_name}.kubeconfig"));
        kubeconfig_for_service_account(admin, &namespace, &account, &kubeconfig).await?;

        let args = local_args(container);
        let mut command = Command::new(operator_binary());
        command.args(&args).env("KUBECONFIG", &kubeconfig);
        for var in container.env.iter().flatten() {
            let value = match (&var.value, &var.value_from) {
                (Some(value), _) => value.clone(),
                (None, Some(from)) => {
                    match from.field_ref.as_ref().map(|f| f.field_path.as_str()) {
                        Some("metadata.name") => pod_name.to_string(),
                        Some("metadata.namespace") => namespace.clone(),
                        other => {
                            return Err(Error::Check(format!(
                                "env {} comes from {other:?}, which this test does not resolve",
                                var.name
                            ))
                            .into());
                        }
                    }
                }
                (None, None) => String::new(),
            };
            command.env(&var.name, value);
        }
        let log = dir.join(format!("{pod_name}.log"));
        let out = std::fs::File::create(&log).map_err(|e| Error::io(&log, e))?;
        let endpoints = LoggedEndpoints::before_start(&log);
        let err = out.try_clone().map_err(|e| Error::io(&log, e))?;
        let child = command
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| Error::io(operator_binary(), e))?;
        Ok(DeployedOperator {
            child,
            log,
            endpoints,
            args,
        })
    }

    /// Its `/metrics` text.
    pub async fn scrape(&self) -> Result<String, BoxError> {
        let address = self.endpoints.address(Endpoint::Metrics).await?;
        let (status, body) = http_get(address, "/metrics").await?;
        if status != 200 {
            return Err(Error::Check(format!("/metrics answered {status}: {body}")).into());
        }
        Ok(body)
    }

    /// Everything it logged so far.
    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Stops it as Kubernetes would (SIGTERM, then a kill after 10 s).
    pub async fn stop(&mut self) {
        if let Some(pid) = self.child.id() {
            let _ = std::process::Command::new("kill")
                .args(["-TERM", &pid.to_string()])
                .status();
            let waited = tokio::time::timeout(Duration::from_secs(10), self.child.wait()).await;
            if waited.is_err() {
                let _ = self.child.kill().await;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1::Container;

    use super::*;

    #[test]
    fn only_the_listen_addresses_move() {
        let container = Container {
            args: Some(vec![
                "--leader-elect".into(),
                "--metrics-bind-address=:8080".into(),
                "--health-probe-bind-address=:8081".into(),
                "--namespace=team".into(),
            ]),
            ..Container::default()
        };
        let args = local_args(&container);
        assert_eq!(
            args,
            [
                "--leader-elect",
                "--metrics-bind-address=127.0.0.1:0",
                "--health-probe-bind-address=127.0.0.1:0",
                "--namespace=team"
            ]
        );
    }
}
