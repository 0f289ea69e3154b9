//! `kubectl trussium create`: a manifest printed without a request that
//! the cluster accepts as is, the cluster's CRD judging without creating,
//! a creation followed to Ready, a taken name left alone, and bad input
//! refused before any request.

use trussium_api::TrussiumRuntime;
use trussium_e2e::{
    OLD_TAG, REPOSITORY, TestResult, ensure, ensure_contains, ensure_exit, plugin_in, with_operator,
};

/// An API server that answers nothing: a command that reaches for it fails
/// with exit code 1, so exit code 0 or 2 proves it sent no request.
const NOWHERE: &str = "--server=https://127.0.0.1:1";

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn create_prints_checks_creates_and_waits_and_leaves_a_taken_name_alone() -> TestResult {
    with_operator("plugin-create", &[], async |h| {
        let ns = h.namespace();
        let flags = [
            "--provider",
            "ollama",
            "--model",
            "llama3.2",
            "--base-url",
            "http://ollama.ollama:11434/v1",
        ];
        let with = |name: &'static str, extra: &[&'static str]| {
            let mut line = vec!["create", name];
            line.extend_from_slice(&flags);
            line.extend_from_slice(extra);
            line
        };

        // A client dry run sends nothing; what it prints, the cluster takes.
        let out = plugin_in(
            ns,
            &with("printed", &["--dry-run=client", "-o", "yaml", NOWHERE]),
        )
        .await?;
        ensure_exit(&out, 0, "create --dry-run=client")?;
        let printed: TrussiumRuntime = serde_yaml::from_str(&out.stdout)?;
        assert_eq!(printed.metadata.namespace.as_deref(), Some(ns), "{out}");
        assert_eq!(
            printed.spec.image.reference(),
            format!("{REPOSITORY}:{OLD_TAG}")
        );
        let applied =
            trussium_e2e::kubectl(&["apply", "--dry-run=server", "-f", "-"], Some(&out.stdout))
                .await?;
        ensure(
            applied.success,
            format!(
                "kubectl apply of the printed manifest: {}{}",
                applied.stdout, applied.stderr
            ),
        )?;

        // Bad input: exit 2 with the CRD's message, before any request.
        let bad_url = [
            "create",
            "bad",
            "--provider",
            "ollama",
            "--model",
            "llama3.2",
            "--base-url",
            "ollama:11434",
            NOWHERE,
        ];
        let out = plugin_in(ns, &bad_url).await?;
        ensure_exit(&out, 2, "create with a URL that is not http(s)")?;
        ensure_contains(
            &out.stderr,
            &["provider.baseURL must be an http:// or https:// URL"],
            &out,
        )?;
        let out = plugin_in(
            ns,
            &with("bad", &["--image", "ghcr.io/t/trussium:bad tag", NOWHERE]),
        )
        .await?;
        ensure_exit(&out, 2, "create with a bad tag")?;

        // The server's dry run: the CRD judges, nothing is created.
        let out = plugin_in(ns, &with("judged", &["--dry-run=server"])).await?;
        ensure_exit(&out, 0, "create --dry-run=server")?;
        ensure_contains(
            &out.stdout,
            &[
                "judged: the cluster's CRD accepts it",
                "nothing was created",
            ],
            &out,
        )?;
        ensure(
            h.runtimes().get_opt("judged").await?.is_none(),
            "a server dry run created the runtime",
        )?;

        // Created and followed to Ready.
        let out = plugin_in(ns, &with("made", &["--wait", "--timeout", "2m"])).await?;
        ensure_exit(&out, 0, "create --wait")?;
        ensure_contains(
            &out.stdout,
            &[
                &format!("made created in namespace {ns} ({REPOSITORY}:{OLD_TAG}, 1 replica)"),
                &format!("✓ made rolled out to {OLD_TAG} (1/1 ready)"),
            ],
            &out,
        )?;
        h.wait_ready("made").await?;

        // A taken name: its own exit code, and the runtime as it was.
        let out = plugin_in(
            ns,
            &["create", "made", "--provider", "openai", "--model", "gpt-5"],
        )
        .await?;
        ensure_exit(&out, 12, "create of an existing name")?;
        ensure_contains(
            &out.stderr,
            &[&format!(
                "not creating made: a runtime of that name exists in namespace {ns}"
            )],
            &out,
        )?;
        let kept = h.runtimes().get("made").await?;
        assert_eq!(kept.spec.provider.model, "llama3.2");
        Ok(())
    })
    .await
}
