//! The pages a newcomer follows, run: every shell block of README.md, the
//! getting-started page and the install pages, in the order written,
//! against the local cluster, so that a page cannot drift from the code.
//!
//! Each command either runs as written (with the placeholders a reader
//! fills in filled: the registry, the digest `make push` printed) or is
//! skipped by a rule that says why; a command no rule knows fails the test.
//! KWOK fakes the operator's own pods, so after each install the test
//! starts the operator as the installed Deployment would run it.

use std::path::{Path, PathBuf};
use std::time::Duration;

use k8s_openapi::api::apps::v1::Deployment;
use kube::Api;
use trussium_e2e::manifests::tool;
use trussium_e2e::{
    BoxError, DeployedOperator, OPERATOR_NAMESPACE, Registry, TestResult, admin_client,
    admin_kubeconfig_path, ensure, image_archive, path_with, release_dist, repo_root,
    require_cluster, target_debug_dir,
};

use super::one_at_a_time;

/// A page, and the order its blocks are walked in (indices of its `sh`
/// blocks); a block left out fails the test.
const WALK: [(&str, usize); 19] = [
    ("README.md", 0),
    ("README.md", 1),
    ("README.md", 3),
    ("docs/src/getting-started.md", 0),
    ("docs/src/getting-started.md", 1),
    ("docs/src/getting-started.md", 2),
    ("docs/src/install/uninstall.md", 0),
    ("docs/src/install/uninstall.md", 1),
    ("docs/src/install/kustomize.md", 0),
    ("docs/src/install/kustomize.md", 1),
    ("docs/src/install/kustomize.md", 2),
    ("docs/src/install/kustomize.md", 3),
    ("docs/src/install/uninstall.md", 0),
    ("docs/src/install/uninstall.md", 3),
    // Helm installs the CRD only where there is none.
    ("docs/src/install/uninstall.md", 4),
    ("README.md", 2),
    ("docs/src/install/helm.md", 0),
    ("docs/src/install/helm.md", 1),
    ("docs/src/install/helm.md", 2),
];

/// Walked last.
const LAST: [(&str, usize); 2] = [
    ("docs/src/install/helm.md", 3),
    ("docs/src/install/uninstall.md", 2),
];

/// What the test does with one command of a page.
#[derive(Debug, PartialEq)]
enum Step {
    Run,
    /// Run in the release bundle's directory (a release's files).
    RunInRelease,
    Skip(&'static str),
}

/// The rules: every command of the pages is one of these (judged without
/// its comment).
fn step(command: &str) -> Step {
    let command = command.split(" #").next().unwrap_or(command);
    const SKIPS: [(&str, &str); 12] = [
        (
            "make demo",
            "the README's first command: it starts a cluster of its own",
        ),
        (
            "make test",
            "the README's second command: it is what runs this test",
        ),
        (
            "make image",
            "make test's release bundle holds the same image index (make push takes it as IMAGE_LAYOUT)",
        ),
        (
            "cargo install --locked --path kubectl-trussium",
            "a release build of the plugin (minutes); the same plugin, from make build, is first on PATH",
        ),
        (
            "export KUBECONFIG=",
            "the test's environment is that: the local cluster's kubeconfig, target/debug first on PATH",
        ),
        (
            "source tests/cluster/env.sh",
            "the test's environment is that",
        ),
        ("make cluster-up", "make test started the cluster"),
        (
            "make run",
            "runs in the foreground until interrupted; the test starts the installed operator",
        ),
        (
            "make cluster-down",
            "would stop the cluster the suite runs on",
        ),
        (
            "kubectl apply --server-side -k deploy/overlays/single-namespace",
            "needs its namespace edited first; the single-namespace install is tested by install:: and chart::",
        ),
        (
            "kubectl apply --server-side -k deploy/overlays/monitored",
            "needs the ServiceMonitor CRD; the monitored overlay is tested by chart::surfaces",
        ),
        (
            "kubectl label crd trussiumruntimes",
            "the take-over of a kustomize install by Helm: chart::install runs it",
        ),
    ];
    if let Some((_, why)) = SKIPS.iter().find(|(start, _)| command.starts_with(start)) {
        return Step::Skip(why);
    }
    if command.contains(" --watch") {
        return Step::Skip("follows until interrupted");
    }
    // The rest of the take-over block (helm.md): it runs only after a
    // kustomize install, which chart::install sets up.
    let take_over = [
        "kubectl delete deployment,service,poddisruptionbudget",
        "kubectl delete clusterrole,clusterrolebinding -l",
        "kubectl annotate crd trussiumruntimes",
        "helm install trussium-operator charts/trussium-operator -n trussium-system",
    ];
    if take_over.iter().any(|t| command.starts_with(t)) {
        return Step::Skip("the take-over of a kustomize install by Helm: chart::install runs it");
    }
    if command.contains("crds.yaml") || command.contains("install.yaml") {
        return Step::RunInRelease;
    }
    Step::Run
}

/// The `sh` blocks of a Markdown page, each a list of commands (a line
/// ending in `\` continues on the next).
fn blocks(page: &str) -> Vec<Vec<String>> {
    let mut blocks = Vec::new();
    let mut current: Option<Vec<String>> = None;
    let mut pending = String::new();
    for line in page.lines() {
        match (&mut current, line.trim_start()) {
            (None, "```sh") => current = Some(Vec::new()),
            (Some(_), "```") => blocks.extend(current.take()),
            (Some(commands), l) => {
                if let Some(start) = l.strip_suffix('\\') {
                    pending.push_str(start);
                    continue;
                }
                pending.push_str(l);
                let command = std::mem::take(&mut pending);
                if !command.trim().is_empty() && !command.trim_start().starts_with('#') {
                    commands.push(command.trim().to_string());
                }
            }
            (None, _) => {}
        }
    }
    blocks
}

/// The placeholders a reader fills in, filled.
fn filled(command: &str, repository: &str, digest: Option<&str>) -> String {
    let command = command.replace("registry.example.com/team/trussium-operator", repository);
    match digest {
        Some(digest) => command.replace("sha256:<digest>", digest),
        None => command,
    }
}

/// Whether the command installs the operator (then the test runs it).
fn installs(command: &str) -> bool {
    command.starts_with("kubectl trussium install")
        || command.starts_with("kubectl apply --server-side -k deploy/")
        || command.starts_with("kubectl apply --server-side -f install.yaml")
        || command.starts_with("helm install trussium-operator")
        || command.starts_with("helm upgrade trussium-operator")
}

/// Whether the command removes the operator.
fn uninstalls(command: &str) -> bool {
    command.starts_with("kubectl trussium uninstall")
        || command.starts_with("kubectl delete -k deploy/")
        || command.starts_with("helm uninstall")
}

struct Walker {
    repository: String,
    digest: Option<String>,
    operator: Option<DeployedOperator>,
    env: Vec<(String, std::ffi::OsString)>,
    ran: Vec<String>,
    skipped: Vec<(String, &'static str)>,
}

impl Walker {
    async fn command(&mut self, page: &str, command: &str) -> TestResult {
        let dir = match step(command) {
            Step::Skip(why) => {
                self.skipped.push((command.to_string(), why));
                return Ok(());
            }
            Step::Run => repo_root(),
            Step::RunInRelease => release_dist()?,
        };
        let line = filled(command, &self.repository, self.digest.as_deref());
        // The README names the Helm page's install command too.
        if line.starts_with("helm install") && self.ran.contains(&line) {
            self.skipped.push((
                command.to_string(),
                "ran already: the README names the same command",
            ));
            return Ok(());
        }
        if uninstalls(&line) {
            self.operator = None;
        }
        let started = tokio::time::Instant::now();
        let out = tokio::time::timeout(
            Duration::from_secs(360),
            tokio::process::Command::new("bash")
                .args(["-euo", "pipefail", "-c", &line])
                .current_dir(&dir)
                .envs(self.env.iter().map(|(k, v)| (k, v)))
                .stdin(std::process::Stdio::null())
                .output(),
        )
        .await
        .map_err(|_| format!("{page}: `{line}` did not end in 6 minutes"))??;
        let stdout = String::from_utf8_lossy(&out.stdout).to_string();
        let stderr = String::from_utf8_lossy(&out.stderr).to_string();
        ensure(
            out.status.success(),
            format!(
                "{page}: `{line}` failed ({}):\n{stdout}{stderr}",
                out.status
            ),
        )?;
        eprintln!(
            "docs: {page}: `{line}` ({:.1}s)",
            started.elapsed().as_secs_f64()
        );
        if line.starts_with("make push") {
            // Under make (make test), make says where it enters and leaves.
            let reference = stdout
                .lines()
                .rev()
                .find(|l| l.contains("@sha256:"))
                .unwrap_or_default();
            let digest = reference
                .split_once('@')
                .map(|(_, d)| d.to_string())
                .ok_or_else(|| format!("make push printed no digest:\n{stdout}"))?;
            self.digest = Some(digest);
        }
        if installs(&line) {
            self.start_operator().await?;
        }
        self.ran.push(line);
        Ok(())
    }

    /// No sample namespace, no operator install of any kind, and no Lease
    /// of a stopped operator (the next test would see it held): how the
    /// walk starts and ends (a failed walk may have left any).
    async fn clean(&mut self) -> TestResult {
        self.operator = None;
        let out = tokio::process::Command::new("bash")
            .args([
                "-c",
                "kubectl delete namespace trussium --ignore-not-found --wait --timeout=5m; \
                 helm uninstall trussium-operator --namespace trussium-system --wait 2>/dev/null; \
                 kubectl trussium uninstall --force >/dev/null 2>&1; \
                 kubectl delete lease -n trussium-system trussium-operator --ignore-not-found; true",
            ])
            .current_dir(repo_root())
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .output()
            .await?;
        ensure(out.status.success(), "cleaning up failed")?;
        Ok(())
    }

    /// The operator, as the installed Deployment would run it.
    async fn start_operator(&mut self) -> TestResult {
        self.operator = None;
        let admin = admin_client().await?;
        let deployment = Api::<Deployment>::namespaced(admin.clone(), OPERATOR_NAMESPACE)
            .get("trussium-operator")
            .await?;
        self.operator =
            Some(DeployedOperator::start(&admin, &deployment, "trussium-operator-docs").await?);
        Ok(())
    }
}

fn read(page: &str) -> Result<String, BoxError> {
    Ok(std::fs::read_to_string(repo_root().join(page))?)
}

fn helm_dir() -> Result<PathBuf, BoxError> {
    let helm = tool("helm")?;
    Ok(helm
        .parent()
        .map(Path::to_path_buf)
        .ok_or("the helm tool has no directory")?)
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn the_quick_start_and_install_pages_run_as_written() -> TestResult {
    require_cluster();
    let _alone = one_at_a_time().await;
    let registry = Registry::start()?;
    let work = repo_root().join("target/e2e/docs");
    std::fs::create_dir_all(&work)?;
    let env = vec![
        (
            "KUBECONFIG".to_string(),
            admin_kubeconfig_path().into_os_string(),
        ),
        (
            "KUBECACHEDIR".to_string(),
            trussium_e2e::discovery_cache_dir().into_os_string(),
        ),
        (
            "PATH".to_string(),
            path_with(&[target_debug_dir(), helm_dir()?]),
        ),
        ("PLAIN_HTTP".to_string(), "1".into()),
        (
            "IMAGE_LAYOUT".to_string(),
            image_archive(&release_dist()?).into_os_string(),
        ),
        (
            "HELM_CACHE_HOME".to_string(),
            work.join("helm/cache").into_os_string(),
        ),
        (
            "HELM_CONFIG_HOME".to_string(),
            work.join("helm/config").into_os_string(),
        ),
        (
            "HELM_DATA_HOME".to_string(),
            work.join("helm/data").into_os_string(),
        ),
    ];
    let mut walker = Walker {
        repository: format!("{}/team/trussium-operator", registry.address),
        digest: None,
        operator: None,
        env,
        ran: Vec::new(),
        skipped: Vec::new(),
    };

    // Every block of every page is walked once (uninstall.md's first
    // block, deleting the runtimes, after each install).
    let pages: Vec<&str> = WALK.iter().chain(&LAST).map(|(p, _)| *p).collect();
    for page in &pages {
        let count = blocks(&read(page)?).len();
        for index in 0..count {
            ensure(
                WALK.iter().chain(&LAST).any(|w| *w == (*page, index)),
                format!("{page}: its shell block {index} is not walked by this test"),
            )?;
        }
    }

    walker.clean().await?;
    let outcome = async {
        for (page, index) in WALK.iter().chain(&LAST) {
            let all = blocks(&read(page)?);
            let block = all
                .get(*index)
                .ok_or_else(|| format!("{page} has no shell block {index}"))?;
            for command in block {
                walker.command(page, command).await?;
            }
            // Between the install ways: the sample's namespace goes with
            // its runtimes, so that the next page creates it as written.
            if (*page, *index) == ("docs/src/install/uninstall.md", 1) {
                walker
                    .command(
                        "(between pages)",
                        "kubectl delete namespace trussium --wait --timeout=5m",
                    )
                    .await?;
            }
        }
        Ok::<(), BoxError>(())
    }
    .await;
    eprintln!("docs: ran {} commands; skipped:", walker.ran.len());
    for (command, why) in &walker.skipped {
        eprintln!("  `{command}`: {why}");
    }
    if let (Err(_), Some(operator)) = (&outcome, &walker.operator) {
        eprintln!(
            "---- operator log ----\n{}",
            std::fs::read_to_string(&operator.log).unwrap_or_default()
        );
    }
    walker.clean().await?;
    outcome
}

#[test]
fn every_command_of_the_pages_has_a_rule_and_the_blocks_parse() -> TestResult {
    let readme = blocks(&read("README.md")?);
    ensure(
        readme
            .iter()
            .flatten()
            .any(|c| c.starts_with("make push IMAGE=")),
        "README's quick start pushes the image",
    )?;
    let helm = blocks(&read("docs/src/install/helm.md")?);
    ensure(
        helm[0][0]
            == "helm install trussium-operator charts/trussium-operator --namespace trussium-system --create-namespace",
        format!("continuations are joined: {:?}", helm[0][0]),
    )?;
    assert_eq!(
        step("make image"),
        Step::Skip(
            "make test's release bundle holds the same image index (make push takes it as IMAGE_LAYOUT)"
        )
    );
    assert_eq!(step("kubectl trussium status -A"), Step::Run);
    assert_eq!(
        step("kubectl delete -k deploy/ --wait   # or: kubectl delete -f install.yaml"),
        Step::Run
    );
    assert_eq!(
        step("kubectl apply --server-side -f crds.yaml"),
        Step::RunInRelease
    );
    assert_eq!(
        filled(
            "kubectl trussium install --image registry.example.com/team/trussium-operator@sha256:<digest> --wait",
            "127.0.0.1:5000/t/op",
            Some("sha256:ab")
        ),
        "kubectl trussium install --image 127.0.0.1:5000/t/op@sha256:ab --wait"
    );
    Ok(())
}
