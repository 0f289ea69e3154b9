//! kubectl's own connection and identity flags, with kubectl's meaning:
//! `--as` sees what a tenant sees, `-v=6` logs each request without a
//! header or a body, `--server` and `--request-timeout` override the
//! kubeconfig, and a bad value exits 2 before any request.

use trussium_api::TrussiumRuntime;
use trussium_e2e::{
    Error, TestNamespace, create_service_account, grant, install_crd, plugin, plugin_dir,
    require_cluster, rule,
};

use super::support::*;

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn as_impersonates_and_v6_logs_each_request() -> Result<(), Error> {
    require_cluster();
    plugin_dir()?;
    let ns = TestNamespace::create("plugin-as").await?;
    install_crd(&ns.client).await?;
    let api = ns.api::<TrussiumRuntime>();
    create(&api, &ollama_runtime("rt", "v1", 1)?).await?;
    create_service_account(&ns, "tenant").await?;
    let tenant = format!("system:serviceaccount:{}:tenant", ns.name);

    // Without rights: the API server's refusal, naming the impersonated user.
    let out = plugin(&["status", "-n", &ns.name, "--as", &tenant]).await?;
    assert_eq!(out.code, 1, "{out}");
    assert_eq!(
        out.stderr.lines().next(),
        Some(
            format!(
                "error: forbidden: {tenant} may not list trussiumruntimes.runtime.trussium.io in namespace \"{}\"",
                ns.name
            )
            .as_str()
        ),
        "{out}"
    );
    // With list rights: what the tenant sees.
    grant(
        &ns,
        "tenant",
        vec![rule(
            &["get", "list", "watch"],
            "runtime.trussium.io",
            "trussiumruntimes",
        )],
    )
    .await?;
    let out = plugin(&["status", "-n", &ns.name, "--as", &tenant]).await?;
    assert_eq!(out.code, 0, "{out}");
    assert_eq!(out.first_row().first().copied(), Some("rt"), "{out}");
    // check --as: what the tenant may do with runtimes, and so which
    // commands it may run, named.
    let out = plugin(&["check", "-n", &ns.name, "--as", &tenant]).await?;
    let said = format!("{}{}", out.stdout, out.stderr);
    assert!(
        said.contains(&format!(
            "✗ {tenant} may not patch runtimes in namespace {}: not upgrade, rollback, scale, restart, suspend, resume; {tenant} may run status, history, events, diagnose, --watch, --wait",
            ns.name
        )),
        "{out}"
    );
    // A group the tenant is not in changes nothing it may do here.
    let out = plugin(&[
        "status",
        "-n",
        &ns.name,
        "--as",
        &tenant,
        "--as-group",
        "system:authenticated",
    ])
    .await?;
    assert_eq!(out.code, 0, "{out}");

    // -v=6: one line per request, no credential, no body.
    let out = plugin(&["status", "-n", &ns.name, "--v=6"]).await?;
    assert_eq!(out.code, 0, "{out}");
    let listed = format!(
        "GET https://127.0.0.1:{}/apis/runtime.trussium.io/v1beta1/namespaces/{}/trussiumruntimes",
        api_server_port()?,
        ns.name
    );
    assert!(
        out.stderr
            .lines()
            .any(|l| l.starts_with(&listed) && l.contains(" 200 OK in ")),
        "{out}"
    );
    for secret in ["Bearer", "authorization", "\"spec\"", "BEGIN"] {
        assert!(!out.stderr.contains(secret), "{secret} in {out}");
    }
    // Without -v, nothing of it.
    let quiet = plugin(&["status", "-n", &ns.name]).await?;
    assert!(!quiet.stderr.contains("200 OK"), "{quiet}");

    ns.delete().await;
    Ok(())
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn bad_connection_flags_exit_2_and_an_unreachable_server_fails_in_time() -> Result<(), Error>
{
    require_cluster();
    plugin_dir()?;
    for (args, reason) in [
        (
            vec!["status", "--request-timeout", "soon"],
            "invalid duration",
        ),
        (vec!["status", "--as-group", "g"], "--as"),
        (vec!["status", "--v=11"], "11"),
        (
            vec!["status", "--server", "127.0.0.1:6443"],
            "invalid server",
        ),
        (
            vec![
                "status",
                "--insecure-skip-tls-verify",
                "--certificate-authority",
                "/x",
            ],
            "cannot be used with",
        ),
    ] {
        let out = plugin(&args).await?;
        assert_eq!(out.code, 2, "{args:?}: {out}");
        assert!(out.stderr.contains(reason), "{args:?}: {out}");
    }
    // Nothing listens on port 9: refused at once; --server overrides the
    // kubeconfig's.
    let out = plugin(&[
        "status",
        "--server",
        "https://127.0.0.1:9",
        "--request-timeout",
        "5s",
    ])
    .await?;
    assert_eq!(out.code, 1, "{out}");
    let first = out.stderr.lines().next().unwrap_or_default();
    assert!(
        first.contains("https://127.0.0.1:9") && first.contains("refused"),
        "{out}"
    );
    Ok(())
}

/// A server that accepts the connection and never answers: the request
/// gives up after --request-timeout, with a message that says so.
#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn request_timeout_bounds_a_request_that_never_answers() -> Result<(), Error> {
    require_cluster();
    plugin_dir()?;
    let upstream = trussium_e2e::api_server_address(&trussium_e2e::admin_kubeconfig_path())
        .map_err(|e| Error::Check(e.to_string()))?;
    let relay = trussium_e2e::Relay::start(upstream)
        .await
        .map_err(|e| Error::Check(e.to_string()))?;
    relay.cut();
    let server = format!("https://{}", relay.address);
    let started = std::time::Instant::now();
    let out = plugin(&[
        "status",
        "--server",
        &server,
        "--insecure-skip-tls-verify",
        "--request-timeout",
        "2s",
    ])
    .await?;
    let took = started.elapsed();
    assert_eq!(out.code, 1, "{out}");
    assert!(out.stderr.contains(&server), "{out}");
    assert!(out.stderr.contains("no answer in time"), "{out}");
    assert!(
        took < std::time::Duration::from_secs(20),
        "gave up after {took:?}: {out}"
    );
    eprintln!(
        "--request-timeout 2s: gave up after {:.1}s",
        took.as_secs_f64()
    );
    Ok(())
}

/// The local API server's port, from the admin kubeconfig.
fn api_server_port() -> Result<u16, Error> {
    let address = trussium_e2e::api_server_address(&trussium_e2e::admin_kubeconfig_path())
        .map_err(|e| Error::Check(e.to_string()))?;
    Ok(address.port())
}
