//! Running the real operator binary in a test, as its own ServiceAccount.
//!
//! Each test starts an operator that watches only the test's namespace, so
//! tests run in parallel without two operators fighting over one runtime.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use k8s_openapi::api::core::v1::{Namespace, ServiceAccount};
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding};
use kube::api::{Patch, PatchParams};
use kube::{Api, Client, ResourceExt};
use tokio::process::{Child, Command};

use crate::crd::INSTALLER;
use crate::{Error, Relay, Tap, e2e_dir, install_crd, kubeconfig_for_service_account, repo_root};

/// How an operator reaches the API server.
enum Route<'a> {
    Direct,
    /// Through a relay the test can cut.
    Relay(&'a Relay),
    /// Through a tap that records each request's head.
    Tap(&'a Tap),
}

pub const OPERATOR_NAMESPACE: &str = "trussium-system";
pub const OPERATOR_SERVICE_ACCOUNT: &str = "trussium-operator";
/// The audit-log username of the operator.
pub const OPERATOR_USER: &str = "system:serviceaccount:trussium-system:trussium-operator";

/// Applies `crds/` and `deploy/rbac/`, and waits until the CRD is served.
/// Idempotent.
pub async fn install(admin: &Client) -> Result<(), Error> {
    install_crd(admin).await?;
    let params = PatchParams::apply(INSTALLER).force();
    let rbac = repo_root().join("deploy/rbac");
    let namespace: Namespace = read_yaml(&rbac.join("namespace.yaml"))?;
    Api::<Namespace>::all(admin.clone())
        .patch(&namespace.name_any(), &params, &Patch::Apply(&namespace))
        .await?;
    let account: ServiceAccount = read_yaml(&rbac.join("service_account.yaml"))?;
    Api::<ServiceAccount>::namespaced(admin.clone(), OPERATOR_NAMESPACE)
        .patch(&account.name_any(), &params, &Patch::Apply(&account))
        .await?;
    let role: ClusterRole = read_yaml(&rbac.join("cluster_role.yaml"))?;
    Api::<ClusterRole>::all(admin.clone())
        .patch(&role.name_any(), &params, &Patch::Apply(&role))
        .await?;
    let binding: ClusterRoleBinding = read_yaml(&rbac.join("cluster_role_binding.yaml"))?;
    Api::<ClusterRoleBinding>::all(admin.clone())
        .patch(&binding.name_any(), &params, &Patch::Apply(&binding))
        .await?;
    Ok(())
}

fn read_yaml<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, Error> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    Ok(serde_yaml::from_str(&text)?)
}

/// The operator binary built by `cargo build` (`TRUSSIUM_OPERATOR_BIN` overrides).
pub fn operator_binary() -> PathBuf {
    if let Some(path) = std::env::var_os("TRUSSIUM_OPERATOR_BIN") {
        return PathBuf::from(path);
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("target"));
    target.join("debug").join("trussium-operator")
}

/// A running operator process; killed when dropped.
pub struct Operator {
    child: Child,
    /// The program and its leading arguments: the operator binary, or e.g.
    /// qemu-user and a binary of another CPU.
    command: Vec<OsString>,
    namespace: String,
    args: Vec<String>,
    kubeconfig: PathBuf,
    pub log: PathBuf,
}

impl Operator {
    /// Installs CRD and RBAC, then starts the operator as its ServiceAccount,
    /// watching only `namespace`, with extra flags (e.g.
    /// `--progress-deadline-seconds=10`).
    pub async fn start(admin: &Client, namespace: &str, args: &[&str]) -> Result<Operator, Error> {
        Self::start_as(
            admin,
            OPERATOR_NAMESPACE,
            OPERATOR_SERVICE_ACCOUNT,
            namespace,
            args,
        )
        .await
    }

    /// Like [`Operator::start`], but authenticating as another
    /// ServiceAccount (whose permissions the test controls).
    pub async fn start_as(
        admin: &Client,
        account_namespace: &str,
        account: &str,
        namespace: &str,
        args: &[&str],
    ) -> Result<Operator, Error> {
        let command = vec![operator_binary().into_os_string()];
        let account = (account_namespace, account);
        Self::start_command(admin, &command, account, namespace, args, Route::Direct).await
    }

    /// Like [`Operator::start`], but running `command` (a program and its
    /// leading arguments) in place of the workspace's operator binary.
    pub async fn start_program(
        admin: &Client,
        command: &[OsString],
        namespace: &str,
        args: &[&str],
    ) -> Result<Operator, Error> {
        let account = (OPERATOR_NAMESPACE, OPERATOR_SERVICE_ACCOUNT);
        Self::start_command(admin, command, account, namespace, args, Route::Direct).await
    }

    /// Like [`Operator::start`], but reaching the API server through
    /// `relay` (which the test can cut).
    pub async fn start_behind(
        admin: &Client,
        namespace: &str,
        args: &[&str],
        relay: &Relay,
    ) -> Result<Operator, Error> {
        let command = vec![operator_binary().into_os_string()];
        let account = (OPERATOR_NAMESPACE, OPERATOR_SERVICE_ACCOUNT);
        Self::start_command(
            admin,
            &command,
            account,
            namespace,
            args,
            Route::Relay(relay),
        )
        .await
    }

    /// Like [`Operator::start`], but reaching the API server through `tap`
    /// (which records every request's head).
    pub async fn start_tapped(
        admin: &Client,
        namespace: &str,
        args: &[&str],
        tap: &Tap,
    ) -> Result<Operator, Error> {
        let command = vec![operator_binary().into_os_string()];
        let account = (OPERATOR_NAMESPACE, OPERATOR_SERVICE_ACCOUNT);
        Self::start_command(admin, &command, account, namespace, args, Route::Tap(tap)).await
    }

    async fn start_command(
        admin: &Client,
        command: &[OsString],
        (account_namespace, account): (&str, &str),
        namespace: &str,
        args: &[&str],
        route: Route<'_>,
    ) -> Result<Operator, Error> {
        install(admin).await?;
        let dir = e2e_dir();
        std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
        let kubeconfig = dir.join(format!("{namespace}.operator.kubeconfig"));
        kubeconfig_for_service_account(admin, account_namespace, account, &kubeconfig).await?;
        let kubeconfig = match route {
            Route::Relay(relay) => relay.kubeconfig(&kubeconfig)?,
            Route::Tap(tap) => tap.kubeconfig(&kubeconfig)?,
            Route::Direct => kubeconfig,
        };
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        let log = dir.join(format!("{namespace}.operator.log"));
        let command = command.to_vec();
        let child = spawn(&command, &kubeconfig, namespace, &args, &log)?;
        Ok(Operator {
            child,
            command,
            namespace: namespace.to_string(),
            args,
            kubeconfig,
            log,
        })
    }

    /// Kills the process with SIGKILL (no chance to finish anything: what a
    /// crash or an OOM kill looks like), waits for it, and starts a fresh
    /// one with the same settings.
    pub async fn crash_and_restart(&mut self) -> Result<(), Error> {
        let _ = self.child.kill().await;
        self.respawn()
    }

    /// A fresh process with the same settings.
    fn respawn(&mut self) -> Result<(), Error> {
        self.child = spawn(
            &self.command,
            &self.kubeconfig,
            &self.namespace,
            &self.args,
            &self.log,
        )?;
        Ok(())
    }

    /// Whether the process started last still runs.
    pub fn is_running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Stops the process (SIGTERM, then kill) and starts a fresh one with the
    /// same settings: what a restart of the operator looks like.
    pub async fn restart(&mut self) -> Result<(), Error> {
        self.stop().await;
        self.respawn()
    }

    /// Stops the process and waits for it to exit.
    pub async fn stop(&mut self) {
        // Graceful first, as Kubernetes would.
        self.terminate(std::time::Duration::from_secs(10)).await;
    }

    /// Sends SIGTERM and waits up to `grace` for the process to exit, then
    /// kills it. Whether it exited by itself in time.
    pub async fn terminate(&mut self, grace: std::time::Duration) -> bool {
        let Some(pid) = self.child.id() else {
            return true;
        };
        let _ = std::process::Command::new("kill")
            .args(["-TERM", &pid.to_string()])
            .status();
        match tokio::time::timeout(grace, self.child.wait()).await {
            Ok(_) => true,
            Err(_) => {
                let _ = self.child.kill().await;
                false
            }
        }
    }

    /// The process id, while it runs.
    /// Freezes the process (SIGSTOP): it reads nothing and sends nothing
    /// until [`Operator::resume`], while the kernel keeps its connections
    /// (one the API server closes reads as closed once it runs again).
    pub fn pause(&self) -> Result<(), Error> {
        self.signal("STOP")
    }

    /// Lets a paused process run again (SIGCONT).
    pub fn resume(&self) -> Result<(), Error> {
        self.signal("CONT")
    }

    fn signal(&self, name: &str) -> Result<(), Error> {
        let pid = self
            .child
            .id()
            .ok_or_else(|| Error::Check("the operator has exited".into()))?;
        let status = std::process::Command::new("kill")
            .args([format!("-{name}"), pid.to_string()])
            .status()
            .map_err(|e| Error::Check(format!("kill -{name} {pid}: {e}")))?;
        match status.success() {
            true => Ok(()),
            false => Err(Error::Check(format!("kill -{name} {pid}: {status}"))),
        }
    }

    pub fn pid(&self) -> Option<u32> {
        self.child.id()
    }

    /// The current end of the log (for [`Operator::log_since`]).
    pub fn log_mark(&self) -> u64 {
        std::fs::metadata(&self.log).map(|m| m.len()).unwrap_or(0)
    }

    /// What the operator logged after `mark`.
    pub fn log_since(&self, mark: u64) -> String {
        let text = self.log_text();
        let from = usize::try_from(mark).unwrap_or(usize::MAX);
        text.get(from..).unwrap_or_default().to_string()
    }

    /// How many reconciles of runtime `namespace/name` the operator finished
    /// after `log_mark`: its log has a debug line per reconcile, the only
    /// trace of one that sends no request.
    pub fn reconciles_since(&self, namespace: &str, name: &str, log_mark: u64) -> usize {
        let suffix = format!("/{name}.{namespace}");
        without_colours(&self.log_since(log_mark))
            .lines()
            .filter_map(|line| line.split_once("reconciled runtime="))
            .filter(|(_, object)| object.trim_end().ends_with(&suffix))
            .count()
    }

    /// Everything the operator logged so far.
    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Operator {
    fn drop(&mut self) {
        let _ = self.child.start_kill();
    }
}

/// Test operators run side by side, one per namespace: no leader election
/// (each is alone in its namespace) and no fixed metrics or probe ports,
/// unless the test asks for them.
fn quiet_defaults(args: &[String]) -> Vec<&'static str> {
    [
        ("--leader-elect", "--leader-elect=false"),
        ("--metrics-bind-address", "--metrics-bind-address=0"),
        (
            "--health-probe-bind-address",
            "--health-probe-bind-address=0",
        ),
    ]
    .into_iter()
    .filter(|(flag, _)| {
        !args
            .iter()
            .any(|a| a == flag || a.starts_with(&format!("{flag}=")))
    })
    .map(|(_, default)| default)
    .collect()
}

/// `text` without ANSI colour sequences (`ESC [ ... m`), as the operator's
/// log has them.
pub(crate) fn without_colours(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn spawn(
    command: &[OsString],
    kubeconfig: &Path,
    namespace: &str,
    args: &[String],
    log: &Path,
) -> Result<Child, Error> {
    let mut command = operator_command(command, kubeconfig, log)?;
    command
        .arg(format!("--namespace={namespace}"))
        .args(quiet_defaults(args))
        .args(args);
    let program = PathBuf::from(command.as_std().get_program());
    command.spawn().map_err(|e| Error::io(program, e))
}

/// `command` (the operator binary, or a program and its leading arguments
/// such as qemu-user and a binary of another CPU) as the user of
/// `kubeconfig`, its output appended to `log`, killed with its [`Child`]; the
/// caller adds flags and spawns it.
pub(crate) fn operator_command(
    command: &[OsString],
    kubeconfig: &Path,
    log: &Path,
) -> Result<Command, Error> {
    let (program, leading) = command
        .split_first()
        .ok_or_else(|| Error::Check("no operator command".into()))?;
    let binary = Path::new(program);
    if !binary.exists() {
        return Err(Error::io(
            binary,
            std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "operator binary not built: run `cargo build -p trussium-operator`",
            ),
        ));
    }
    let out = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .map_err(|e| Error::io(log, e))?;
    let err = out.try_clone().map_err(|e| Error::io(log, e))?;
    let mut command = Command::new(binary);
    command
        .args(leading)
        .env("KUBECONFIG", kubeconfig)
        // Debug for the controller: a line per reconcile, the only trace of
        // one that sends no request.
        .env(
            "RUST_LOG",
            "info,kube=warn,trussium_operator::shell::controller=debug",
        )
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .kill_on_drop(true);
    Ok(command)
}

#[cfg(test)]
mod tests {
    #[test]
    fn colours_are_dropped() {
        let line = "\u{1b}[2m2026\u{1b}[0m \u{1b}[34mDEBUG\u{1b}[0m reconciled \u{1b}[3mruntime\u{1b}[0m\u{1b}[2m=\u{1b}[0mT/x.ns";
        assert_eq!(
            super::without_colours(line),
            "2026 DEBUG reconciled runtime=T/x.ns"
        );
    }
}
