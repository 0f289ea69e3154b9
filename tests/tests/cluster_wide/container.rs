//! The operator image, run as a real container: unpacked with umoci, run
//! with runc against the local API server, configured in-cluster exactly as
//! a kubelet would (a TokenRequest token of the operator's ServiceAccount,
//! `ca.crt` and `namespace` under /var/run/secrets/kubernetes.io/serviceaccount,
//! KUBERNETES_SERVICE_HOST/PORT), with the arguments, environment, user and
//! security context of the Deployment `kubectl trussium install` made. The
//! image takes the published path: the release bundle's image index pushed
//! with `make push` to a local registry, installed with `kubectl trussium
//! install --image <registry>/…@sha256:…`, and its linux/amd64 image pulled
//! back from the registry by that digest.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use base64::Engine as _;
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::authentication::v1::{TokenRequest, TokenRequestSpec};
use k8s_openapi::api::core::v1::ServiceAccount;
use kube::api::PostParams;
use kube::{Api, Client};
use serde_json::{Value, json};
use tokio::process::Command;
use tokio::time::Instant;
use trussium_api::TrussiumRuntime;
use trussium_e2e::{
    ANY_LOOPBACK_PORT, Audit, BoxError, Endpoint, LoggedEndpoints, OPERATOR_NAMESPACE,
    OPERATOR_SERVICE_ACCOUNT, OPERATOR_USER, Registry, TestNamespace, TestResult, admin_kubeconfig,
    e2e_dir, ensure, ensure_exit, http_get, image_archive, install, install_leader_election_rbac,
    is_ready, minimal, plugin, release_dist, release_key, repo_root, require_cluster, wait_for,
};

const START: Duration = Duration::from_secs(90);
const SERVICE_ACCOUNT_DIR: &str = "/var/run/secrets/kubernetes.io/serviceaccount";

/// `make push` of the release bundle's image index (make test builds the
/// bundle with the cheap `cross-check` profile) to `registry`: the
/// reference by digest it prints.
async fn pushed(registry: &Registry) -> Result<String, BoxError> {
    let repository = format!("{}/team/trussium-operator", registry.address);
    let out = Command::new("make")
        .args([
            "--no-print-directory",
            "push",
            &format!("IMAGE={repository}"),
        ])
        .current_dir(repo_root())
        .env("IMAGE_LAYOUT", image_archive(&release_dist()?))
        .env("PLAIN_HTTP", "1")
        .stdin(Stdio::null())
        .output()
        .await?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        return Err(format!(
            "make push: {}\n{stdout}{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        )
        .into());
    }
    let reference = stdout
        .lines()
        .last()
        .filter(|l| l.starts_with(&format!("{repository}@sha256:")))
        .ok_or_else(|| format!("make push printed no reference by digest:\n{stdout}"))?;
    Ok(reference.to_string())
}

/// The linux/amd64 image of `reference`, pulled back from the registry by
/// its digest into an OCI layout under `work`, as `<layout>:<tag>` for umoci.
async fn pulled(reference: &str, work: &Path) -> Result<String, BoxError> {
    let tool = repo_root().join("scripts/tool.sh");
    let oras = run(&tool.to_string_lossy(), &["oras"]).await?;
    let target = format!("{}:amd64", work.join("pulled").display());
    run(
        oras.trim(),
        &[
            "cp",
            "--from-plain-http",
            "--platform",
            "linux/amd64",
            reference,
            "--to-oci-layout",
            &target,
        ],
    )
    .await?;
    Ok(target)
}

async fn run(program: &str, args: &[&str]) -> Result<String, BoxError> {
    let output = Command::new(program).args(args).output().await?;
    if !output.status.success() {
        return Err(format!(
            "{program} {}: {}\n{}",
            args.join(" "),
            output.status,
            String::from_utf8_lossy(&output.stderr)
        )
        .into());
    }
    Ok(String::from_utf8_lossy(&output.stdout).to_string())
}

/// The operator Deployment `kubectl trussium install` made.
async fn installed_deployment(admin: &Client) -> Result<Deployment, BoxError> {
    Ok(
        Api::<Deployment>::namespaced(admin.clone(), OPERATOR_NAMESPACE)
            .get("trussium-operator")
            .await?,
    )
}

/// What the kubelet mounts: a token of the operator's ServiceAccount, the
/// cluster CA and the namespace.
async fn service_account_dir(admin: &Client, dir: &Path) -> TestResult {
    std::fs::create_dir_all(dir)?;
    let request = TokenRequest {
        spec: TokenRequestSpec {
            audiences: vec![],
            expiration_seconds: Some(3600),
            bound_object_ref: None,
        },
        ..TokenRequest::default()
    };
    let token = Api::<ServiceAccount>::namespaced(admin.clone(), OPERATOR_NAMESPACE)
        .create_token_request(OPERATOR_SERVICE_ACCOUNT, &PostParams::default(), &request)
        .await?
        .status
        .map(|s| s.token)
        .ok_or("TokenRequest returned no token")?;
    let kubeconfig = admin_kubeconfig()?;
    let cluster = kubeconfig
        .clusters
        .first()
        .and_then(|c| c.cluster.clone())
        .ok_or("the admin kubeconfig names no cluster")?;
    let ca = match (
        &cluster.certificate_authority_data,
        &cluster.certificate_authority,
    ) {
        (Some(data), _) => base64::engine::general_purpose::STANDARD.decode(data)?,
        (None, Some(file)) => std::fs::read(file)?,
        (None, None) => return Err("the admin kubeconfig has no CA".into()),
    };
    std::fs::write(dir.join("token"), token)?;
    std::fs::write(dir.join("ca.crt"), ca)?;
    std::fs::write(dir.join("namespace"), OPERATOR_NAMESPACE)?;
    // The container's user (65532) reads them, as from a kubelet's projected volume.
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o644))?;
    }
    std::fs::set_permissions(dir, std::os::unix::fs::PermissionsExt::from_mode(0o755))?;
    Ok(())
}

/// The API server's port, from the admin kubeconfig.
fn apiserver_port() -> Result<String, BoxError> {
    let kubeconfig = admin_kubeconfig()?;
    let server = kubeconfig
        .clusters
        .first()
        .and_then(|c| c.cluster.as_ref())
        .and_then(|c| c.server.clone())
        .ok_or("the admin kubeconfig names no server")?;
    let port = server
        .rsplit(':')
        .next()
        .map(|p| p.trim_end_matches('/').to_string())
        .ok_or("no port in the server URL")?;
    Ok(port)
}

/// Rewrites umoci's config.json into what the kubelet would run, from the
/// shipped Deployment. The container shares the host's network (where the
/// API server listens on loopback), so the metrics and probe ports of the
/// manifest become loopback ports the kernel picks (the container logs
/// which); everything else is the manifest's.
fn container_config(
    config: &mut Value,
    deployment: &Deployment,
    service_account: &Path,
) -> Result<(), BoxError> {
    let pod = deployment
        .spec
        .as_ref()
        .and_then(|s| s.template.spec.as_ref())
        .ok_or("no pod spec")?;
    let container = pod.containers.first().ok_or("no container")?;
    let pod_security = pod.security_context.clone().unwrap_or_default();
    let security = container.security_context.clone().unwrap_or_default();

    // Arguments: the image's entrypoint plus the manifest's args.
    let entrypoint: Vec<Value> = config["process"]["args"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let mut args = entrypoint;
    for arg in container.args.clone().unwrap_or_default() {
        let arg = match arg.as_str() {
            "--metrics-bind-address=:8080" => format!("--metrics-bind-address={ANY_LOOPBACK_PORT}"),
            "--health-probe-bind-address=:8081" => {
                format!("--health-probe-bind-address={ANY_LOOPBACK_PORT}")
            }
            _ => arg,
        };
        args.push(json!(arg));
    }
    config["process"]["args"] = json!(args);

    // Environment: the image's, the manifest's (fieldRefs resolved as the
    // kubelet would), and the service link of the kubernetes Service.
    let mut env: Vec<Value> = config["process"]["env"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    for var in container.env.clone().unwrap_or_default() {
        let value = match (&var.value, &var.value_from) {
            (Some(value), _) => value.clone(),
            (None, Some(from)) => match from.field_ref.as_ref().map(|f| f.field_path.as_str()) {
                Some("metadata.name") => "trussium-operator-container-test".to_string(),
                other => {
                    return Err(format!("unexpected env source {other:?} for {}", var.name).into());
                }
            },
            (None, None) => String::new(),
        };
        env.push(json!(format!("{}={value}", var.name)));
    }
    env.push(json!("KUBERNETES_SERVICE_HOST=127.0.0.1"));
    env.push(json!(format!(
        "KUBERNETES_SERVICE_PORT={}",
        apiserver_port()?
    )));
    config["process"]["env"] = json!(env);

    // User and privileges from the security contexts.
    let uid = security
        .run_as_user
        .or(pod_security.run_as_user)
        .ok_or("no runAsUser")?;
    let gid = security
        .run_as_group
        .or(pod_security.run_as_group)
        .ok_or("no runAsGroup")?;
    config["process"]["user"] = json!({ "uid": uid, "gid": gid });
    config["process"]["terminal"] = json!(false);
    config["process"]["noNewPrivileges"] =
        json!(security.allow_privilege_escalation == Some(false));
    let dropped_all = security
        .capabilities
        .as_ref()
        .and_then(|c| c.drop.as_ref())
        .is_some_and(|d| d.iter().any(|c| c == "ALL"));
    if dropped_all {
        config["process"]["capabilities"] = json!({
            "bounding": [], "effective": [], "inheritable": [], "permitted": [], "ambient": []
        });
    }
    config["root"]["readonly"] = json!(security.read_only_root_filesystem == Some(true));

    // Host network (no network namespace), no cgroup namespace or mount:
    // what runs here (production.md).
    if let Some(namespaces) = config["linux"]["namespaces"].as_array_mut() {
        namespaces.retain(|n| !matches!(n["type"].as_str(), Some("network") | Some("cgroup")));
    }
    let mounts = config["mounts"].as_array_mut().ok_or("no mounts")?;
    mounts.retain(|m| m["destination"] != "/sys/fs/cgroup");
    mounts.push(json!({
        "destination": SERVICE_ACCOUNT_DIR,
        "type": "bind",
        "source": service_account,
        "options": ["rbind", "ro"],
    }));
    Ok(())
}

/// The UID and whether `/` is mounted read-only, of process `pid`.
fn process_facts(pid: u32) -> Result<(String, bool), BoxError> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    let uid = status
        .lines()
        .find_map(|l| l.strip_prefix("Uid:"))
        .and_then(|l| l.split_whitespace().next())
        .unwrap_or_default()
        .to_string();
    let mountinfo = std::fs::read_to_string(format!("/proc/{pid}/mountinfo"))?;
    let root_read_only = mountinfo.lines().any(|l| {
        let fields: Vec<&str> = l.split_whitespace().collect();
        fields.get(4) == Some(&"/")
            && fields
                .get(5)
                .is_some_and(|o| o.split(',').any(|o| o == "ro"))
    });
    Ok((uid, root_read_only))
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn the_image_runs_as_a_container_with_in_cluster_configuration() -> TestResult {
    require_cluster();
    let _alone = crate::one_at_a_time().await;
    let ns = TestNamespace::create("container").await?;
    let admin = ns.client.clone();
    install(&admin).await?;
    install_leader_election_rbac(&admin).await?;
    let work = e2e_dir().join(&ns.name);
    std::fs::create_dir_all(&work)?;
    // The published-image path: pushed, installed by digest, pulled back.
    let registry = Registry::start()?;
    let pushing = Instant::now();
    let reference = pushed(&registry).await?;
    println!(
        "make push to {}: {:.1}s, {reference}",
        registry.address,
        pushing.elapsed().as_secs_f64()
    );
    // The index's signature and provenance went with it (referrers), and
    // verify where they are published, as a cluster's admission would.
    let verified = Command::new(repo_root().join("scripts/verify.sh"))
        .current_dir(repo_root())
        .env("KEY", release_key())
        .env("IMAGE", &reference)
        .env("PLAIN_HTTP", "1")
        .stdin(Stdio::null())
        .output()
        .await?;
    let said = String::from_utf8_lossy(&verified.stdout);
    assert!(
        verified.status.success()
            && said.contains(&format!("✓ image {reference}: signature verified"))
            && said.contains(&format!("✓ image {reference}: SLSA provenance verified")),
        "make verify IMAGE={reference}: {}\n{said}{}",
        verified.status,
        String::from_utf8_lossy(&verified.stderr)
    );
    let out = plugin(&["install", "--image", &reference]).await?;
    ensure_exit(&out, 0, "kubectl trussium install --image")?;
    let deployment = installed_deployment(&admin).await?;
    let installed_image = deployment
        .spec
        .as_ref()
        .and_then(|s| s.template.spec.as_ref())
        .and_then(|p| p.containers.first())
        .and_then(|c| c.image.clone());
    ensure(
        installed_image.as_deref() == Some(reference.as_str()),
        format!("the installed Deployment runs {installed_image:?}, not {reference}"),
    )?;
    let image = pulled(&reference, &work).await?;
    let bundle = work.join("bundle");
    let state = work.join("runc");
    std::fs::create_dir_all(&state)?;
    run(
        "umoci",
        &["unpack", "--image", &image, &bundle.to_string_lossy()],
    )
    .await?;
    let service_account = work.join("serviceaccount");
    service_account_dir(&admin, &service_account).await?;
    let config_path = bundle.join("config.json");
    let mut config: Value = serde_json::from_str(&std::fs::read_to_string(&config_path)?)?;
    container_config(&mut config, &deployment, &service_account)?;
    std::fs::write(&config_path, serde_json::to_string_pretty(&config)?)?;

    // A runtime that waits for the operator: its first status is the first reconcile.
    let runtimes: Api<TrussiumRuntime> = ns.api();
    runtimes
        .create(
            &PostParams::default(),
            &serde_json::from_value(minimal("before", json!({}))?)?,
        )
        .await?;
    let audit = Audit::open()?;
    let mark = audit.mark();

    let id = ns.name.clone();
    let log = work.join("container.log");
    let out = std::fs::File::create(&log)?;
    let endpoints = LoggedEndpoints::before_start(&log);
    let started = Instant::now();
    let mut container = Command::new("runc")
        .args([
            "--root",
            &state.to_string_lossy(),
            "run",
            "--bundle",
            &bundle.to_string_lossy(),
            &id,
        ])
        .stdin(Stdio::null())
        .stdout(out.try_clone()?)
        .stderr(out)
        .kill_on_drop(true)
        .spawn()?;

    let outcome = async {
        wait_for("the first reconcile by the container", START, async || {
            // (The CRD defaults status to observedGeneration 0.)
            let rt = runtimes.get("before").await?;
            let observed = rt.status.as_ref().and_then(|s| s.observed_generation);
            Ok((observed.is_some() && observed == rt.metadata.generation).then_some(()))
        })
        .await?;
        println!(
            "container start to first reconcile: {:.2}s",
            started.elapsed().as_secs_f64()
        );
        let probes_address = endpoints.address(Endpoint::Probes).await?;
        wait_for("the container's /readyz", START, async || {
            Ok(matches!(http_get(probes_address, "/readyz").await, Ok((200, _))).then_some(()))
        })
        .await?;

        // A runtime created afterwards becomes Ready.
        runtimes
            .create(
                &PostParams::default(),
                &serde_json::from_value(minimal("after", json!({}))?)?,
            )
            .await?;
        wait_for("runtime after to be Ready", START, async || {
            let rt = runtimes.get("after").await?;
            let ready = is_ready(&rt);
            Ok(ready.then_some(()))
        })
        .await?;

        // As the shipped ServiceAccount, through the in-cluster token.
        audit.settle().await?;
        let writes = audit.writes_by(OPERATOR_USER, &mark)?;
        assert!(
            writes.iter().any(
                |e| e.object_ref.as_ref().and_then(|o| o.namespace.as_deref())
                    == Some(ns.name.as_str())
            ),
            "the container wrote as {OPERATOR_USER}"
        );
        // Non-root, read-only root filesystem.
        let state_json: Value = serde_json::from_str(
            &run("runc", &["--root", &state.to_string_lossy(), "state", &id]).await?,
        )?;
        let pid = state_json["pid"].as_u64().ok_or("runc state without pid")? as u32;
        let (uid, read_only) = process_facts(pid)?;
        assert_eq!(uid, "65532", "runs as the manifest's user");
        assert!(read_only, "the root filesystem is read-only");
        let metrics_address = endpoints.address(Endpoint::Metrics).await?;
        let (code, text) = http_get(metrics_address, "/metrics").await?;
        assert_eq!(code, 200);
        assert!(
            text.contains("leader_election_master_status{name=\"trussium-operator\"} 1"),
            "{text}"
        );
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        if let Some(rss) = status.lines().find(|l| l.starts_with("VmRSS:")) {
            println!("container {rss}");
        }
        Ok::<(), BoxError>(())
    }
    .await;
    let state_arg = state.to_string_lossy().to_string();
    // SIGTERM first: the graceful path releases the lease for later runs.
    let _ = run("runc", &["--root", &state_arg, "kill", &id, "TERM"]).await;
    if tokio::time::timeout(Duration::from_secs(20), container.wait())
        .await
        .is_err()
    {
        let _ = run("runc", &["--root", &state_arg, "kill", &id, "KILL"]).await;
        let _ = container.wait().await;
    }
    let _ = run("runc", &["--root", &state_arg, "delete", "--force", &id]).await;
    if outcome.is_err() {
        eprintln!(
            "---- container log ----\n{}",
            std::fs::read_to_string(&log).unwrap_or_default()
        );
    }
    let _ = std::fs::remove_dir_all(&work);
    // What install added (the operator Deployment) goes; the next test
    // installs what it needs.
    if let Err(err) = plugin(&["uninstall", "--force"]).await {
        eprintln!("kubectl trussium uninstall --force: {err}");
    }
    ns.delete().await;
    outcome
}
