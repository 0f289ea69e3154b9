//! The cluster-wide install mode: one operator for every namespace. A
//! Secret's creation wakes only the runtimes of its own namespace that
//! reference it, never a runtime elsewhere that references a Secret of the
//! same name.

use std::time::Duration;

use k8s_openapi::api::core::v1::Secret;
use kube::Api;
use kube::api::PostParams;
use serde_json::json;
use trussium_api::{TrussiumRuntime, condition_type};
use trussium_e2e::{
    BoxError, CONVERGE, Identity, Replica, TestNamespace, TestResult, condition, install, is_ready,
    minimal, require_cluster, secret, wait_for,
};

/// After the woken runtime has converged: time for anything else to wake.
const AFTERMATH: Duration = Duration::from_secs(5);

/// `status/reason` of ConfigurationValid.
async fn configuration(
    runtimes: &Api<TrussiumRuntime>,
    name: &str,
) -> Result<String, trussium_e2e::Error> {
    let rt = runtimes.get(name).await?;
    Ok(condition(&rt, condition_type::CONFIGURATION_VALID)
        .map(|c| format!("{}/{}", c.status, c.reason))
        .unwrap_or_default())
}

fn referencing(name: &str, secret: Option<&str>) -> Result<TrussiumRuntime, BoxError> {
    let mut provider = json!({ "type": "openai", "model": "gpt-5" });
    if let Some(secret) = secret {
        provider["credentialsSecretRef"] = json!({ "name": secret, "key": "api-key" });
    }
    Ok(serde_json::from_value(minimal(
        name,
        json!({ "provider": provider }),
    )?)?)
}

/// Lines of the operator log since byte `from` saying it reconciled
/// `namespace/name` (the controller's debug line).
fn reconciles_of(log: &str, from: usize, namespace: &str, name: &str) -> usize {
    let needle = format!("/{name}.{namespace}");
    log.get(from..)
        .unwrap_or_default()
        .lines()
        .filter(|l| l.contains("reconciled") && l.contains(&needle))
        .count()
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn a_secret_wakes_only_the_runtimes_of_its_namespace_that_reference_it() -> TestResult {
    require_cluster();
    let _alone = crate::one_at_a_time().await;
    let home = TestNamespace::create("wide-home").await?;
    let away = TestNamespace::create("wide-away").await?;
    let admin = home.client.clone();
    install(&admin).await?;
    let identity = Identity::create(&admin, &format!("{}-op", home.name), true).await?;
    let outcome = async {
        let (home_rts, away_rts): (Api<TrussiumRuntime>, Api<TrussiumRuntime>) =
            (home.api(), away.api());
        let pp = PostParams::default();
        home_rts
            .create(&pp, &referencing("uses", Some("creds"))?)
            .await?;
        home_rts.create(&pp, &referencing("ignores", None)?).await?;
        away_rts
            .create(&pp, &referencing("uses", Some("creds"))?)
            .await?;

        // One operator, no --namespace: the whole cluster.
        let operator = Replica::start(&admin, &identity, &["--leader-elect=false".into()]).await?;
        for (runtimes, name, expected) in [
            (&home_rts, "uses", "False/SecretNotFound"),
            (&home_rts, "ignores", "True/"),
            (&away_rts, "uses", "False/SecretNotFound"),
        ] {
            wait_for(
                &format!("{name}: ConfigurationValid {expected}"),
                CONVERGE,
                async || {
                    Ok(configuration(runtimes, name)
                        .await?
                        .starts_with(expected)
                        .then_some(()))
                },
            )
            .await?;
        }
        // Settled: the ignoring runtime is Ready.
        wait_for("ignores to be Ready", CONVERGE, async || {
            let rt = home_rts.get("ignores").await?;
            Ok(is_ready(&rt).then_some(()))
        })
        .await?;
        tokio::time::sleep(AFTERMATH).await;

        let from = operator.log_text().len();
        let secret = secret("creds", "api-key", "not-a-real-key");
        home.api::<Secret>().create(&pp, &secret).await?;
        wait_for("home/uses to find its Secret", CONVERGE, async || {
            Ok(configuration(&home_rts, "uses")
                .await?
                .starts_with("True/")
                .then_some(()))
        })
        .await?;
        tokio::time::sleep(AFTERMATH).await;

        let log = operator.log_text();
        assert!(
            reconciles_of(&log, from, &home.name, "uses") >= 1,
            "the referencing runtime woke"
        );
        assert_eq!(
            reconciles_of(&log, from, &home.name, "ignores"),
            0,
            "a runtime not referencing it slept"
        );
        assert_eq!(
            reconciles_of(&log, from, &away.name, "uses"),
            0,
            "a same-named reference elsewhere slept"
        );
        assert_eq!(
            configuration(&away_rts, "uses").await?,
            "False/SecretNotFound"
        );
        Ok::<(), BoxError>(())
    }
    .await;
    identity.remove().await;
    home.delete().await;
    away.delete().await;
    outcome
}
