//! Where the local cluster lives and how to reach it as the admin.

use std::net::{TcpStream, ToSocketAddrs};
use std::path::PathBuf;
use std::time::Duration;

use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::{Client, Config};

use crate::Error;

/// Set by `make test`: cluster tests must fail, never skip, when the cluster is unreachable.
pub const UNDER_MAKE_TEST_ENV: &str = "TRUSSIUM_CLUSTER";
/// Overrides the admin kubeconfig path (default `<cluster dir>/admin.kubeconfig`).
pub const KUBECONFIG_ENV: &str = "TRUSSIUM_KUBECONFIG";
/// Overrides the cluster directory (default `.cluster/`), as `tests/cluster/env.sh` does.
pub const CLUSTER_DIR_ENV: &str = "TRUSSIUM_CLUSTER_DIR";
/// Overrides the directory of the cached control-plane binaries, as `tests/cluster/env.sh` does.
pub const BIN_DIR_ENV: &str = "TRUSSIUM_BIN";

/// The checkout's top directory (the workspace root).
pub fn repo_root() -> PathBuf {
    // This crate lives in `<root>/tests`.
    let manifest_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest_dir
        .parent()
        .map(PathBuf::from)
        .unwrap_or(manifest_dir)
}

/// `.cluster/` (or `$TRUSSIUM_CLUSTER_DIR`): kubeconfigs, PKI, logs and the
/// audit log of the local cluster.
pub fn cluster_dir() -> PathBuf {
    env_path(CLUSTER_DIR_ENV).unwrap_or_else(|| repo_root().join(".cluster"))
}

/// `target/e2e/`: what the tests write for a look afterwards (operator logs,
/// kubeconfigs, the soak's samples, release builds).
pub fn e2e_dir() -> PathBuf {
    repo_root().join("target").join("e2e")
}

/// The cached control-plane binaries of the cluster's Kubernetes
/// (`tests/cluster/build.sh`), its kubectl among them; without
/// `tests/cluster/env.sh`, the newest supported version's.
pub fn control_plane_bin_dir() -> PathBuf {
    env_path(BIN_DIR_ENV).unwrap_or_else(|| {
        let cache = env_path("XDG_CACHE_HOME")
            .or_else(|| env_path("HOME").map(|home| home.join(".cache")))
            .unwrap_or_else(|| PathBuf::from(".cache"));
        let newest = trussium_api::kubernetes::supported_range().newest;
        cache.join("trussium").join("bin").join(newest.to_string())
    })
}

/// The admin kubeconfig written by `make cluster-up`.
pub fn admin_kubeconfig_path() -> PathBuf {
    env_path(KUBECONFIG_ENV).unwrap_or_else(|| cluster_dir().join("admin.kubeconfig"))
}

/// A non-empty environment variable as a path.
pub(crate) fn env_path(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .filter(|value| !value.is_empty())
        .map(PathBuf::from)
}

/// The parsed admin kubeconfig.
pub fn admin_kubeconfig() -> Result<Kubeconfig, Error> {
    let path = admin_kubeconfig_path();
    if !path.exists() {
        return Err(Error::NoCluster {
            path,
            reason: "file not found".into(),
        });
    }
    Kubeconfig::read_from(&path).map_err(|e| Error::NoCluster {
        path,
        reason: e.to_string(),
    })
}

/// Client configuration for the admin (group `system:masters`).
pub async fn admin_config() -> Result<Config, Error> {
    let kubeconfig = admin_kubeconfig()?;
    Config::from_custom_kubeconfig(kubeconfig, &KubeConfigOptions::default())
        .await
        .map_err(|e| Error::NoCluster {
            path: admin_kubeconfig_path(),
            reason: e.to_string(),
        })
}

/// A client acting as the cluster admin.
pub async fn admin_client() -> Result<Client, Error> {
    Ok(Client::try_from(admin_config().await?)?)
}

/// Fails the calling test loudly when the local cluster cannot be reached.
///
/// Cluster tests are `#[ignore]`d, so they only run when asked for (`make test`
/// or `--include-ignored`); then an unreachable cluster is a failure, never a
/// silent pass. Under `make test` (`TRUSSIUM_CLUSTER=1`) the message says that
/// the harness's own cluster is gone.
pub fn require_cluster() {
    if let Err(reason) = probe_api_server() {
        if std::env::var(UNDER_MAKE_TEST_ENV).as_deref() == Ok("1") {
            panic!("make test's local cluster is unreachable: {reason}");
        }
        panic!("this test needs the local cluster: {reason}");
    }
}

/// Opens a TCP connection to the API server named in the admin kubeconfig.
fn probe_api_server() -> Result<(), String> {
    let kubeconfig = admin_kubeconfig().map_err(|e| e.to_string())?;
    let server = kubeconfig
        .clusters
        .first()
        .and_then(|c| c.cluster.as_ref())
        .and_then(|c| c.server.clone())
        .ok_or("the admin kubeconfig names no server; run `make cluster-up`")?;
    let authority = server
        .trim_start_matches("https://")
        .split('/')
        .next()
        .unwrap_or_default()
        .to_string();
    let addrs: Vec<_> = authority
        .to_socket_addrs()
        .map_err(|e| format!("bad server address {server}: {e}"))?
        .collect();
    for addr in &addrs {
        if TcpStream::connect_timeout(addr, Duration::from_secs(2)).is_ok() {
            return Ok(());
        }
    }
    Err(format!(
        "nothing listens at {server}; run `make cluster-up` (or `make test`)"
    ))
}
