//! The soak (`make soak`) refuses bad settings and a cluster that is not up
//! with one line and a non-zero exit, before it creates anything.

use std::process::{Command, Output};

use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::Namespace;
use kube::api::ListParams;
use kube::{Api, ResourceExt};
use trussium_e2e::{
    BoxError, KUBECONFIG_ENV, OPERATOR_NAMESPACE, TestResult, admin_client, e2e_dir,
    require_cluster,
};

/// The soak binary as cargo built it for these tests.
const SOAK: &str = env!("CARGO_BIN_EXE_trussium-soak");

fn soak(settings: &[(&str, &str)]) -> Result<Output, BoxError> {
    Ok(Command::new(SOAK)
        .env_remove("SOAK_DURATION")
        .env_remove("SOAK_SEED")
        .envs(settings.iter().copied())
        .output()?)
}

/// Exit code `code`, nothing on stdout, exactly one line on stderr holding
/// `says`.
fn refused(output: &Output, code: i32, says: &str) -> TestResult {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(code), "{stderr}");
    assert_eq!(String::from_utf8_lossy(&output.stdout), "");
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    assert!(
        stderr.starts_with("soak: ") && stderr.contains(says),
        "{stderr}"
    );
    Ok(())
}

#[test]
fn a_cluster_that_is_not_up_is_one_line() -> TestResult {
    let dir = e2e_dir();
    std::fs::create_dir_all(&dir)?;
    let kubeconfig = dir.join("no-cluster.kubeconfig");
    // Port 1 on loopback: nothing listens there.
    std::fs::write(
        &kubeconfig,
        "apiVersion: v1\nkind: Config\n\
         clusters: [{name: c, cluster: {server: 'https://127.0.0.1:1'}}]\n\
         users: [{name: u, user: {token: t}}]\n\
         contexts: [{name: x, context: {cluster: c, user: u}}]\n\
         current-context: x\n",
    )?;
    let kubeconfig = kubeconfig.to_string_lossy().to_string();
    let output = soak(&[("SOAK_DURATION", "3m"), (KUBECONFIG_ENV, &kubeconfig)])?;
    refused(&output, 1, "the local cluster is not up")
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn bad_settings_are_one_line_and_create_nothing() -> TestResult {
    require_cluster();
    let admin = admin_client().await?;
    let namespaces: Api<Namespace> = Api::all(admin.clone());
    let soak_namespaces = async || -> Result<Vec<String>, BoxError> {
        Ok(namespaces
            .list(&ListParams::default())
            .await?
            .items
            .iter()
            .map(|n| n.name_any())
            .filter(|n| n.starts_with("soak-"))
            .collect())
    };
    let leases: Api<Lease> = Api::namespaced(admin, OPERATOR_NAMESPACE);
    let lease = async || -> Result<Option<String>, BoxError> {
        let lease = leases.get_opt("trussium-soak").await?;
        Ok(lease.and_then(|l| l.resource_version()))
    };
    let before = (soak_namespaces().await?, lease().await?);
    for (settings, says) in [
        (
            vec![("SOAK_DURATION", "soon")],
            "DURATION: invalid duration \"soon\": use a number with a unit",
        ),
        (
            vec![("SOAK_DURATION", "10s")],
            "shorter than the shortest soak",
        ),
        (
            vec![("SOAK_DURATION", "3m"), ("SOAK_SEED", "x42")],
            "SOAK_SEED: 'x42' is not a number",
        ),
    ] {
        refused(&soak(&settings)?, 2, says)?;
    }
    assert_eq!(
        (soak_namespaces().await?, lease().await?),
        before,
        "no namespace created, no replica started (its Lease untouched)"
    );
    Ok(())
}
