//! `kubectl trussium history` and `rollback` to any earlier image, against
//! the real operator (pods made ready by KWOK), through the real kubectl.

use k8s_openapi::api::apps::v1::Deployment;
use serde_json::{Value, json};
use trussium_api::TrussiumRuntime;
use trussium_e2e::MARKED_REPOSITORY;
use trussium_e2e::{
    BoxError, Harness, PluginOutput, TestResult, ensure_contains, ensure_exit, minimal, plugin_dir,
    plugin_in, with_operator,
};

async fn trussium(h: &Harness, args: &[&str]) -> Result<PluginOutput, BoxError> {
    Ok(plugin_in(h.namespace(), args).await?)
}

/// `history -o json`: (revision, tag, rollout state) newest first.
async fn history(h: &Harness) -> Result<Vec<(i64, String, String)>, BoxError> {
    let out = trussium(h, &["history", "rt", "-o", "json"]).await?;
    ensure_exit(&out, 0, "history -o json")?;
    let parsed: Value = serde_json::from_str(&out.stdout)?;
    Ok(parsed["revisions"]
        .as_array()
        .ok_or("no revisions")?
        .iter()
        .map(|r| {
            (
                r["revision"].as_i64().unwrap_or_default(),
                r["image"]
                    .as_str()
                    .and_then(|i| i.rsplit_once(':'))
                    .map(|(_, tag)| tag.to_string())
                    .unwrap_or_default(),
                r["rollout"]["state"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
            )
        })
        .collect())
}

fn tag_of(rt: &TrussiumRuntime) -> String {
    rt.spec.image.tag.clone().unwrap_or_default()
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn history_lists_the_images_and_rollback_goes_to_any_earlier_one() -> TestResult {
    plugin_dir()?;
    with_operator("plugin-history", &[], async |h: &mut Harness| {
        h.create_runtime(minimal(
            "rt",
            json!({"image": {"repository": MARKED_REPOSITORY, "tag": "v1"}, "replicas": 1}),
        )?)
        .await?;
        h.wait_ready("rt").await?;

        // One replica and a surge pod: the completion line counts the
        // desired replicas on the new image, never the surge.
        let out = trussium(
            h,
            &["upgrade", "rt", "--tag", "v2", "--wait", "--timeout", "3m"],
        )
        .await?;
        ensure_exit(&out, 0, "upgrade --wait to v2")?;
        ensure_contains(&out.stdout, &["rt upgraded to v2 (1/1 ready) in "], &out)?;

        assert_eq!(
            history(h).await?,
            [
                (2, "v2".to_string(), "complete".to_string()),
                (1, "v1".to_string(), "superseded".to_string())
            ]
        );
        let out = trussium(h, &["history", "rt"]).await?;
        ensure_exit(&out, 0, "history")?;
        eprintln!("history after an upgrade:\n{}", out.stdout);
        ensure_contains(&out.stdout, &["REVISION   IMAGE   CREATED"], &out)?;
        ensure_contains(&out.stdout, &["current, completed"], &out)?;
        ensure_contains(
            &out.stdout,
            &[&format!("Images of {}", MARKED_REPOSITORY)],
            &out,
        )?;

        // After a completed upgrade: back to the image before it.
        let out = trussium(h, &["rollback", "rt", "--wait", "--timeout", "3m"]).await?;
        ensure_exit(&out, 0, "rollback --wait after a completed upgrade")?;
        ensure_contains(
            &out.stdout,
            &["rt: image v2 → v1 (rollback to revision 1, generation"],
            &out,
        )?;
        ensure_contains(&out.stdout, &["rt rolled back to v1 (1/1 ready) in "], &out)?;
        let rt = h.wait_ready("rt").await?;
        assert_eq!(tag_of(&rt), "v1");
        // The rollback changed the runtime; only the operator (and the
        // Deployment controller) ever wrote its Deployment.
        let deployment: Deployment = h.api::<Deployment>().get("rt").await?;
        for entry in deployment.metadata.managed_fields.iter().flatten() {
            let manager = entry.manager.as_deref().unwrap_or_default();
            assert!(
                ["trussium-operator", "kube-controller-manager"].contains(&manager),
                "the Deployment was written by {manager}"
            );
        }
        // The Deployment controller reused v1's ReplicaSet: revision 3 of v1.
        assert_eq!(
            history(h).await?,
            [
                (3, "v1".to_string(), "complete".to_string()),
                (2, "v2".to_string(), "superseded".to_string()),
                (1, "v1".to_string(), "superseded".to_string())
            ]
        );

        // Any earlier image, by revision or by tag.
        let out = trussium(
            h,
            &[
                "rollback",
                "rt",
                "--to-revision",
                "2",
                "--wait",
                "--timeout",
                "3m",
            ],
        )
        .await?;
        ensure_exit(&out, 0, "rollback --to-revision 2")?;
        ensure_contains(&out.stdout, &["rt rolled back to v2 (1/1 ready)"], &out)?;
        let out = trussium(
            h,
            &[
                "rollback",
                "rt",
                "--to-image",
                "v1",
                "--wait",
                "--timeout",
                "3m",
            ],
        )
        .await?;
        ensure_exit(&out, 0, "rollback --to-image v1")?;
        ensure_contains(&out.stdout, &["rt rolled back to v1 (1/1 ready)"], &out)?;
        let rt = h.wait_ready("rt").await?;
        assert_eq!(tag_of(&rt), "v1");

        // Refusals change nothing and say why, each with its exit code.
        let before = h.runtimes().get("rt").await?;
        for (args, code, says) in [
            (
                &["rollback", "rt", "--to-image", "v9"][..],
                9,
                "not rolling back rt: it never ran \"v9\"",
            ),
            (
                &["rollback", "rt", "--to-revision", "99"],
                9,
                "not rolling back rt: it has no revision 99 (revisions: 5, 4, 3, 2, 1)",
            ),
            (
                &["rollback", "rt", "--to-image", "v1"],
                7,
                "not rolling back rt: its desired image is already",
            ),
        ] {
            let out = trussium(h, args).await?;
            ensure_exit(&out, code, &format!("{args:?}"))?;
            ensure_contains(&out.stderr, &[says], &out)?;
        }
        let after = h.runtimes().get("rt").await?;
        assert_eq!(
            before.metadata.generation, after.metadata.generation,
            "a refusal changed the spec"
        );
        let out = trussium(h, &["rollback", "rt", "--to-image", "v9"]).await?;
        ensure_contains(
            &out.stderr,
            &[&format!("kubectl trussium history rt -n {}", h.namespace())],
            &out,
        )?;
        Ok(())
    })
    .await
}
