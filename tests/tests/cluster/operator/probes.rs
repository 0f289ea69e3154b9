//! /healthz and /readyz: alive at once; ready only once the watch caches
//! have synced, so a replica (here a standby, since it cannot take the
//! lease) that cannot reach the API server never claims readiness.

use std::time::Duration;

use kube::config::Kubeconfig;
use trussium_e2e::{
    BoxError, Identity, Replica, TestNamespace, TestResult, install, require_cluster, wait_for,
};

const START: Duration = Duration::from_secs(60);

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn ready_only_after_the_caches_synced() -> TestResult {
    require_cluster();
    let ns = TestNamespace::create("probes").await?;
    let admin = ns.client.clone();
    install(&admin).await?;
    let identity = Identity::create(&admin, &format!("{}-op", ns.name), true).await?;
    let outcome = async {
        // The same identity, pointed at a port where nothing listens: port 1
        // is outside the range the kernel hands out, so nothing takes it
        // while the test runs.
        let good = std::fs::read_to_string(identity.kubeconfig(&admin).await?)?;
        let mut kubeconfig: Kubeconfig = serde_yaml::from_str(&good)?;
        for cluster in &mut kubeconfig.clusters {
            if let Some(c) = cluster.cluster.as_mut() {
                c.server = Some("https://127.0.0.1:1".into());
            }
        }
        let cut_off_path = trussium_e2e::repo_root()
            .join("target/e2e")
            .join(format!("{}-cut-off.kubeconfig", identity.name));
        std::fs::write(&cut_off_path, serde_yaml::to_string(&kubeconfig)?)?;
        let cut_off = Replica::start_with_kubeconfig(
            &format!("{}-cut-off", identity.name),
            cut_off_path,
            &[
                format!("--namespace={}", ns.name),
                format!("--leader-elect-resource-name={}", ns.name),
            ],
        )?;
        wait_for("/healthz of the cut-off replica", START, async || {
            Ok(matches!(cut_off.probe("/healthz").await, Ok(200)).then_some(()))
        })
        .await?;
        // Not a moment of startup: it stays unready while it cannot sync.
        for _ in 0..6 {
            assert_eq!(
                cut_off.probe("/readyz").await?,
                503,
                "{}",
                cut_off.log_text()
            );
            assert_eq!(cut_off.probe("/healthz").await?, 200);
            tokio::time::sleep(Duration::from_millis(500)).await;
        }

        let reachable = Replica::start(
            &admin,
            &identity,
            &[
                format!("--namespace={}", ns.name),
                "--leader-elect=false".into(),
            ],
        )
        .await?;
        reachable.wait_ready(START).await?;
        assert_eq!(reachable.probe("/healthz").await?, 200);
        assert_eq!(reachable.probe("/nope").await?, 404);
        Ok::<(), BoxError>(())
    }
    .await;
    identity.remove().await;
    ns.delete().await;
    outcome
}
