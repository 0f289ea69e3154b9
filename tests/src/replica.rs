//! Operator replicas as production runs them: each process as a
//! ServiceAccount of its own (so the audit log tells them apart) with the
//! operator's permissions, its metrics and probes on loopback ports the
//! kernel picks (read from its log).

use std::path::PathBuf;
use std::process::ExitStatus;
use std::time::Duration;

use k8s_openapi::api::core::v1::ServiceAccount;
use k8s_openapi::api::rbac::v1::{ClusterRoleBinding, Role, RoleBinding};
use kube::api::{DeleteParams, Patch, PatchParams};
use kube::{Api, Client, ResourceExt};
use serde_json::json;
use tokio::process::Child;

use crate::operator::operator_command;
use crate::{
    ANY_LOOPBACK_PORT, BoxError, Endpoint, LoggedEndpoints, OPERATOR_NAMESPACE, TestResult,
    e2e_dir, http_get, kubeconfig_for_service_account, metric, operator_binary, repo_root,
    service_account_username, wait_for,
};

/// The Role of deploy/rbac that lets the operator hold its Lease.
pub const LEADER_ELECTION_ROLE: &str = "trussium-operator-leader-election";
const FIELD_MANAGER: &str = "trussium-e2e-production";

/// Applies deploy/rbac's leader-election Role and RoleBinding.
pub async fn install_leader_election_rbac(admin: &Client) -> TestResult {
    let rbac = repo_root().join("deploy/rbac");
    let params = PatchParams::apply(FIELD_MANAGER).force();
    let role: Role = serde_yaml::from_str(&std::fs::read_to_string(
        rbac.join("leader_election_role.yaml"),
    )?)?;
    Api::<Role>::namespaced(admin.clone(), OPERATOR_NAMESPACE)
        .patch(&role.name_any(), &params, &Patch::Apply(&role))
        .await?;
    let binding: RoleBinding = serde_yaml::from_str(&std::fs::read_to_string(
        rbac.join("leader_election_role_binding.yaml"),
    )?)?;
    Api::<RoleBinding>::namespaced(admin.clone(), OPERATOR_NAMESPACE)
        .patch(&binding.name_any(), &params, &Patch::Apply(&binding))
        .await?;
    Ok(())
}

/// A ServiceAccount in the operator's namespace with the operator's
/// permissions: the ClusterRole (when `cluster_role`) and the
/// leader-election Role. Removed by [`Identity::remove`].
pub struct Identity {
    pub name: String,
    pub user: String,
    admin: Client,
}

impl Identity {
    pub async fn create(
        admin: &Client,
        name: &str,
        cluster_role: bool,
    ) -> Result<Identity, BoxError> {
        let params = PatchParams::apply(FIELD_MANAGER).force();
        let account: ServiceAccount = serde_json::from_value(json!({
            "apiVersion": "v1", "kind": "ServiceAccount",
            "metadata": { "name": name, "namespace": OPERATOR_NAMESPACE },
        }))?;
        Api::<ServiceAccount>::namespaced(admin.clone(), OPERATOR_NAMESPACE)
            .patch(name, &params, &Patch::Apply(&account))
            .await?;
        let subject =
            json!([{ "kind": "ServiceAccount", "name": name, "namespace": OPERATOR_NAMESPACE }]);
        if cluster_role {
            let binding: ClusterRoleBinding = serde_json::from_value(json!({
                "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
                "metadata": { "name": name },
                "roleRef": { "apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "trussium-operator" },
                "subjects": subject,
            }))?;
            Api::<ClusterRoleBinding>::all(admin.clone())
                .patch(name, &params, &Patch::Apply(&binding))
                .await?;
        }
        let binding: RoleBinding = serde_json::from_value(json!({
            "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
            "metadata": { "name": name, "namespace": OPERATOR_NAMESPACE },
            "roleRef": { "apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": LEADER_ELECTION_ROLE },
            "subjects": subject,
        }))?;
        Api::<RoleBinding>::namespaced(admin.clone(), OPERATOR_NAMESPACE)
            .patch(name, &params, &Patch::Apply(&binding))
            .await?;
        Ok(Identity {
            name: name.to_string(),
            user: service_account_username(OPERATOR_NAMESPACE, name),
            admin: admin.clone(),
        })
    }

    /// A kubeconfig with a fresh token of this identity, under target/e2e.
    pub async fn kubeconfig(&self, admin: &Client) -> Result<PathBuf, BoxError> {
        let dir = e2e_dir();
        std::fs::create_dir_all(&dir)?;
        let path = dir.join(format!("{}.kubeconfig", self.name));
        kubeconfig_for_service_account(admin, OPERATOR_NAMESPACE, &self.name, &path).await?;
        Ok(path)
    }

    pub async fn remove(self) {
        let dp = DeleteParams::default();
        let _ = Api::<ClusterRoleBinding>::all(self.admin.clone())
            .delete(&self.name, &dp)
            .await;
        let _ = Api::<RoleBinding>::namespaced(self.admin.clone(), OPERATOR_NAMESPACE)
            .delete(&self.name, &dp)
            .await;
        let _ = Api::<ServiceAccount>::namespaced(self.admin.clone(), OPERATOR_NAMESPACE)
            .delete(&self.name, &dp)
            .await;
    }
}

/// One operator process, as `identity`, with metrics and probes on
/// loopback ports the kernel picks. Killed when dropped.
pub struct Replica {
    pub name: String,
    pub log: PathBuf,
    /// Where the process started last serves.
    endpoints: LoggedEndpoints,
    kubeconfig: PathBuf,
    args: Vec<String>,
    child: Option<Child>,
}

impl Replica {
    /// Starts the operator binary as `identity` with `args` (plus its own
    /// metrics and probe addresses). `POD_NAME` is the identity's name, so it
    /// is also the Lease holder's name.
    pub async fn start(
        admin: &Client,
        identity: &Identity,
        args: &[String],
    ) -> Result<Replica, BoxError> {
        let kubeconfig = identity.kubeconfig(admin).await?;
        Self::start_with_kubeconfig(&identity.name, kubeconfig, args)
    }

    pub fn start_with_kubeconfig(
        name: &str,
        kubeconfig: PathBuf,
        args: &[String],
    ) -> Result<Replica, BoxError> {
        let log = e2e_dir().join(format!("{name}.operator.log"));
        let mut replica = Replica {
            name: name.to_string(),
            endpoints: LoggedEndpoints::before_start(&log),
            log,
            kubeconfig,
            args: args.to_vec(),
            child: None,
        };
        replica.spawn()?;
        Ok(replica)
    }

    fn spawn(&mut self) -> TestResult {
        // A fresh process binds fresh ports: its own lines of the log say which.
        self.endpoints = LoggedEndpoints::before_start(&self.log);
        let child = operator_command(&[operator_binary().into()], &self.kubeconfig, &self.log)?
            .args(&self.args)
            .arg(format!("--metrics-bind-address={ANY_LOOPBACK_PORT}"))
            .arg(format!("--health-probe-bind-address={ANY_LOOPBACK_PORT}"))
            .env("POD_NAME", &self.name)
            .spawn()?;
        self.child = Some(child);
        Ok(())
    }

    /// Starts the process again with the same settings.
    pub fn restart(&mut self) -> TestResult {
        self.spawn()
    }

    /// SIGKILL: no goodbye, the lease stays held until it expires.
    pub async fn kill(&mut self) -> TestResult {
        if let Some(child) = self.child.as_mut() {
            child.kill().await?;
        }
        self.child = None;
        Ok(())
    }

    /// SIGTERM, as the kubelet sends it, and the exit status.
    pub async fn terminate(&mut self, timeout: Duration) -> Result<ExitStatus, BoxError> {
        let child = self.child.as_mut().ok_or("the replica is not running")?;
        let pid = child.id().ok_or("the replica has exited")?;
        std::process::Command::new("kill")
            .args(["-TERM", &pid.to_string()])
            .status()?;
        let status = tokio::time::timeout(timeout, child.wait())
            .await
            .map_err(|_| {
                format!(
                    "replica {} did not exit within {timeout:?} of SIGTERM",
                    self.name
                )
            })??;
        self.child = None;
        Ok(status)
    }

    /// The exit status, once the process has ended.
    pub fn try_exit(&mut self) -> Result<Option<ExitStatus>, BoxError> {
        let child = self.child.as_mut().ok_or("the replica is not running")?;
        Ok(child.try_wait()?)
    }

    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().and_then(|c| c.id())
    }

    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// The /metrics text.
    pub async fn scrape(&self) -> Result<String, BoxError> {
        let address = self.endpoints.address(Endpoint::Metrics).await?;
        let (status, body) = http_get(address, "/metrics").await?;
        if status != 200 {
            return Err(format!("/metrics of {} answered {status}: {body}", self.name).into());
        }
        Ok(body)
    }

    /// The value of one series (`name{labels}` exactly as exposed), 0 when absent.
    pub async fn metric(&self, series: &str) -> Result<f64, BoxError> {
        Ok(metric(&self.scrape().await?, series).unwrap_or(0.0))
    }

    /// The status code of a probe path (`/healthz`, `/readyz`).
    pub async fn probe(&self, path: &str) -> Result<u16, BoxError> {
        let address = self.endpoints.address(Endpoint::Probes).await?;
        Ok(http_get(address, path).await?.0)
    }

    /// Waits until `/readyz` answers 200.
    pub async fn wait_ready(&self, timeout: Duration) -> TestResult {
        wait_for(&format!("{} to be ready", self.name), timeout, async || {
            Ok(matches!(self.probe("/readyz").await, Ok(200)).then_some(()))
        })
        .await?;
        Ok(())
    }

    /// Resident memory of the process in KiB (VmRSS).
    pub fn rss_kib(&self) -> Option<u64> {
        self.memory().map(|m| m.rss_kib)
    }

    /// The process's resident memory and its anonymous part, from
    /// `/proc/<pid>/status`.
    pub fn memory(&self) -> Option<Memory> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid()?)).ok()?;
        Memory::parse(&status)
    }
}

/// Resident memory of a process, in KiB.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Memory {
    /// All of it (VmRSS).
    pub rss_kib: u64,
    /// The heap, stacks and other private memory (RssAnon): what grows when
    /// something leaks. The rest of VmRSS is mostly the executable's own
    /// pages, read in as code runs for the first time, and bounded by its
    /// size.
    pub anon_kib: u64,
}

impl Memory {
    /// From the text of `/proc/<pid>/status`.
    pub fn parse(status: &str) -> Option<Memory> {
        let kib = |field: &str| {
            status
                .lines()
                .find_map(|l| l.strip_prefix(field))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        };
        Some(Memory {
            rss_kib: kib("VmRSS:")?,
            anon_kib: kib("RssAnon:")?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_from_proc_status() {
        let status = "Name:\ttrussium-operat\nVmRSS:\t   19828 kB\nRssAnon:\t    4552 kB\nRssFile:\t   15276 kB\n";
        assert_eq!(
            Memory::parse(status),
            Some(Memory {
                rss_kib: 19828,
                anon_kib: 4552
            })
        );
        assert_eq!(Memory::parse("VmRSS:\t1 kB\n"), None);
    }
}
