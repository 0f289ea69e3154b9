//! Bad input ends the operator with one clear line and a non-zero exit,
//! before it talks to any cluster.

use std::net::TcpListener;
use std::process::{Command, Output};

/// Runs the operator; `env` sets (`Some`) or removes (`None`) variables.
fn operator(args: &[&str], env: &[(&str, Option<&str>)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_trussium-operator"));
    command
        .args(args)
        // Never reach a real cluster from here.
        .env("KUBECONFIG", "/nonexistent/trussium-test-kubeconfig")
        .env_remove("KUBERNETES_SERVICE_HOST")
        .env_remove("KUBERNETES_SERVICE_PORT");
    for (key, value) in env {
        match value {
            Some(value) => command.env(key, value),
            None => command.env_remove(key),
        };
    }
    match command.output() {
        Ok(output) => output,
        Err(err) => panic!("running the operator: {err}"),
    }
}

/// The exit code and the single line on stderr (fails if there are more).
fn one_line_failure(output: &Output) -> (i32, String) {
    let stderr = String::from_utf8_lossy(&output.stderr).to_string();
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "exactly one line on stderr, got:\n{stderr}");
    assert!(
        lines[0].starts_with("trussium-operator: "),
        "names the program: {stderr}"
    );
    assert!(output.stdout.is_empty(), "nothing on stdout");
    (output.status.code().unwrap_or(-1), lines[0].to_string())
}

#[test]
fn an_unknown_flag_is_one_line_and_exit_2() {
    let (code, line) = one_line_failure(&operator(&["--no-such-flag"], &[]));
    assert_eq!(code, 2);
    assert!(line.contains("--no-such-flag"), "{line}");
}

#[test]
fn a_lease_shorter_than_the_renew_deadline_is_refused() {
    let (code, line) = one_line_failure(&operator(
        &[
            "--leader-elect-lease-duration=5s",
            "--leader-elect-renew-deadline=10s",
        ],
        &[],
    ));
    assert_eq!(code, 1);
    assert!(
        line.contains("--leader-elect-lease-duration (5s) must be greater than --leader-elect-renew-deadline (10s)"),
        "{line}"
    );
    // A duration (the one rule of trussium_api::duration), but a Lease counts
    // whole seconds.
    let (code, line) = one_line_failure(&operator(&["--leader-elect-retry-period=2.5s"], &[]));
    assert_eq!(code, 1, "{line}");
    assert!(
        line.contains("--leader-elect-retry-period must be a whole number of seconds"),
        "{line}"
    );
    let (code, line) = one_line_failure(&operator(&["--leader-elect-retry-period=soon"], &[]));
    assert_eq!(code, 2, "{line}");
}

#[test]
fn a_metrics_port_in_use_is_refused() {
    let taken = match TcpListener::bind("127.0.0.1:0") {
        Ok(listener) => listener,
        Err(err) => panic!("binding a port: {err}"),
    };
    let address = match taken.local_addr() {
        Ok(address) => address.to_string(),
        Err(err) => panic!("{err}"),
    };
    let (code, line) = one_line_failure(&operator(
        &[
            &format!("--metrics-bind-address={address}"),
            "--health-probe-bind-address=0",
        ],
        &[],
    ));
    assert_eq!(code, 1);
    assert!(
        line.contains(&format!("cannot serve metrics on {address}")),
        "{line}"
    );
}

#[test]
fn a_missing_in_cluster_token_is_refused() {
    // What a Pod without its ServiceAccount token mount looks like.
    let (code, line) = one_line_failure(&operator(
        &["--metrics-bind-address=0", "--health-probe-bind-address=0"],
        &[
            ("KUBECONFIG", None),
            ("KUBERNETES_SERVICE_HOST", Some("127.0.0.1")),
            ("KUBERNETES_SERVICE_PORT", Some("1")),
        ],
    ));
    assert_eq!(code, 1);
    assert!(
        line.contains("the ServiceAccount token /var/run/secrets/kubernetes.io/serviceaccount/token cannot be read"),
        "{line}"
    );
}
