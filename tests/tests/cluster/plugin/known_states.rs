//! `kubectl trussium` as users run it: the real binary, found by the real
//! kubectl on PATH, against runtimes put into known states by writing their
//! status as the admin, for the states the operator does not hold still for
//! (see converged.rs for the plugin against the real operator): a spec
//! ahead of its status, chosen Event histories, no status at all, no operator
//! (upgrade --wait's timeout), RBAC refusals, and completion.

use std::time::{Duration, Instant};

use k8s_openapi::api::rbac::v1::PolicyRule;
use kube::Api;
use kube::api::{Patch, PatchParams};
use serde_json::{Value, json};
use trussium_api::TrussiumRuntime;
use trussium_e2e::{
    Error, REPOSITORY, TestNamespace, create_service_account, grant, image, install_crd,
    kubeconfig_for_service_account, kubectl_trussium, kubectl_trussium_as, path_with, plugin,
    plugin_dir, require_cluster, rule, run_to_end,
};

use super::support::*;

const QUICK: Duration = Duration::from_secs(30);

async fn setup(prefix: &str) -> Result<(TestNamespace, Api<TrussiumRuntime>), Error> {
    require_cluster();
    plugin_dir()?; // built before anything is timed
    let ns = TestNamespace::create(prefix).await?;
    install_crd(&ns.client).await?;
    let api = ns.api::<TrussiumRuntime>();
    Ok((ns, api))
}

/// A runtime running `tag` healthily, as the operator would report it.
async fn healthy(
    ns: &TestNamespace,
    api: &Api<TrussiumRuntime>,
    name: &str,
    tag: &str,
    replicas: i32,
) -> Result<TrussiumRuntime, Error> {
    let rt = create(api, &ollama_runtime(name, tag, replicas)?).await?;
    let generation = rt.metadata.generation.unwrap_or(1);
    set_status(
        api,
        name,
        healthy_status(name, &ns.name, tag, replicas, generation),
    )
    .await?;
    Ok(api.get(name).await?)
}

fn lines_with<'a>(text: &'a str, needle: &str) -> Vec<&'a str> {
    text.lines().filter(|l| l.contains(needle)).collect()
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn status_lists_runtimes_and_shows_one_in_detail() -> Result<(), Error> {
    let (ns, api) = setup("plugin-status").await?;
    let ready = healthy(&ns, &api, "private-ai", "v1.22.0", 2).await?;
    // A digest-pinned runtime mid-upgrade, whose spec moved past its status.
    let mut pinned = ollama_runtime("pinned", "v1.0.0", 3)?;
    pinned.spec.image.tag = None;
    pinned.spec.image.digest = Some(DIGEST.to_string());
    create(&api, &pinned).await?;
    let mut status = healthy_status("pinned", &ns.name, "v1.0.0", 3, 1);
    status["readyReplicas"] = json!(1);
    status["desiredImage"] = json!(format!("{REPOSITORY}@{DIGEST}"));
    status["conditions"][5] = written_condition(
        "Upgrading",
        "True",
        "UpgradeInProgress",
        "Rolling out the new image.",
        1,
    );
    set_status(&api, "pinned", status).await?;
    api.patch(
        "pinned",
        &PatchParams::default(),
        &Patch::Merge(json!({"spec": {"provider": {"model": "llama3.3"}}})),
    )
    .await?;
    publish_event(
        &ns.client,
        &ready,
        "Normal",
        "RuntimeProgressing",
        "Rolling out.",
        Duration::from_secs(300),
    )
    .await?;
    publish_event(
        &ns.client,
        &ready,
        "Normal",
        "RuntimeReady",
        "All requested replicas are ready.",
        Duration::from_secs(60),
    )
    .await?;

    // The list view.
    let out = plugin(&["status", "-n", &ns.name]).await?;
    assert_eq!(out.code, 0, "{out}");
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    let header: Vec<&str> = lines[0].split_whitespace().collect();
    assert_eq!(
        header,
        [
            "NAME", "READY", "DESIRED", "PROVIDER", "MODEL", "VERSION", "AGE"
        ]
    );
    let row: Vec<&str> = lines[1].split_whitespace().collect();
    assert_eq!(
        row[..6],
        [
            "pinned",
            "1",
            "3",
            "ollama",
            "llama3.3",
            "sha256:0123456789ab"
        ],
        "{out}"
    );
    let row: Vec<&str> = lines[2].split_whitespace().collect();
    assert_eq!(
        row[..6],
        ["private-ai", "2", "2", "ollama", "llama3.2", "v1.22.0"],
        "{out}"
    );
    assert!(
        !out.stdout.contains('\u{1b}'),
        "no colours when piped: {out}"
    );

    // -A adds the namespace.
    let out = plugin(&["status", "-A"]).await?;
    assert_eq!(out.code, 0, "{out}");
    assert!(out.stdout.starts_with("NAMESPACE"), "{out}");
    let mine = lines_with(&out.stdout, &ns.name);
    assert_eq!(mine.len(), 2, "{out}");
    assert!(
        mine[1].split_whitespace().nth(1) == Some("private-ai"),
        "{out}"
    );

    // The detailed view of a healthy runtime.
    let out = plugin(&["status", "private-ai", "-n", &ns.name]).await?;
    assert_eq!(out.code, 0, "{out}");
    let text = &out.stdout;
    for want in [
        "Name:         private-ai".to_string(),
        format!("Namespace:    {}", ns.name),
        "Status:       Ready".to_string(),
        "Provider:     ollama".to_string(),
        "Model:        llama3.2".to_string(),
        format!(
            "Endpoint:     http://private-ai.{}.svc.cluster.local:9000",
            ns.name
        ),
        "Replicas:     2/2 ready, 2 available".to_string(),
        "Generation:   1 (observed 1)".to_string(),
        format!("  Desired:          {}\n", image("v1.22.0")),
        format!("  Current:          {}\n", image("v1.22.0")),
        format!("  Last successful:  {}\n", image("v1.22.0")),
    ] {
        assert!(text.contains(&want), "missing {want:?} in\n{out}");
    }
    assert!(!text.contains("Warning:"), "{out}");
    let conditions: Vec<&str> = [
        "ConfigurationValid",
        "Progressing",
        "Available",
        "Ready",
        "Degraded",
        "Upgrading",
    ]
    .into_iter()
    .filter(|c| text.lines().any(|l| l.trim_start().starts_with(c)))
    .collect();
    assert_eq!(conditions.len(), 6, "{out}");
    let ready_row = lines_with(text, "RuntimeReady");
    assert!(
        ready_row
            .iter()
            .any(|l| l.contains("True") && l.contains("ready and available")),
        "{out}"
    );
    // The last Events, oldest first.
    let progressing = text.find("RuntimeProgressing");
    let ready_event = text.find("All requested replicas are ready.");
    assert!(
        progressing.is_some() && ready_event.is_some() && progressing < ready_event,
        "{out}"
    );

    // The detailed view of the one mid-upgrade with a stale status.
    let out = plugin(&["status", "pinned", "-n", &ns.name]).await?;
    assert_eq!(out.code, 0, "{out}");
    let text = &out.stdout;
    assert!(
        text.contains("Status:       Upgrading to sha256:0123456789ab"),
        "{out}"
    );
    assert!(text.contains("Generation:   2 (observed 1)"), "{out}");
    assert!(
        text.contains("Warning: the operator has not processed the latest spec yet: this status describes generation 1 but the spec is at generation 2."),
        "{out}"
    );
    assert!(
        text.contains(&format!("  Desired:          {REPOSITORY}@{DIGEST}")),
        "{out}"
    );
    assert!(
        text.contains(&format!(
            "  Current:          {} (differs from desired: v1.0.0 ≠ sha256:0123456789ab)",
            image("v1.0.0")
        )),
        "{out}"
    );
    assert!(text.contains("Replicas:     1/3 ready"), "{out}");
    assert!(text.contains("Events\n  none"), "{out}");

    // Colours on request, even when piped; off again with NO_COLOR under auto.
    let out = plugin(&["status", "private-ai", "-n", &ns.name, "--color", "always"]).await?;
    assert!(out.stdout.contains("\u{1b}[32mReady\u{1b}[0m"), "{out}");
    let mut cmd = kubectl_trussium(&["status", "-n", &ns.name])?;
    cmd.env("NO_COLOR", "1");
    assert!(!run_to_end(cmd).await?.stdout.contains('\u{1b}'));

    ns.delete().await;
    Ok(())
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn machine_readable_output_parses() -> Result<(), Error> {
    let (ns, api) = setup("plugin-output").await?;
    healthy(&ns, &api, "one", "v1", 1).await?;
    healthy(&ns, &api, "two", "v2", 2).await?;

    let out = plugin(&["status", "-n", &ns.name, "-o", "json"]).await?;
    assert_eq!(out.code, 0, "{out}");
    let list: Value = serde_json::from_str(&out.stdout)?;
    assert_eq!(list["kind"], "List");
    let names: Vec<&str> = list["items"]
        .as_array()
        .map(|items| {
            items
                .iter()
                .filter_map(|i| i["metadata"]["name"].as_str())
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(names, ["one", "two"]);
    assert_eq!(list["items"][1]["status"]["readyReplicas"], 2);

    let out = plugin(&["status", "two", "-n", &ns.name, "-o", "json"]).await?;
    assert_eq!(out.code, 0, "{out}");
    let rt: TrussiumRuntime = serde_json::from_str(&out.stdout)?;
    assert_eq!(rt.spec.image.tag.as_deref(), Some("v2"));
    assert!(
        rt.metadata.managed_fields.is_none(),
        "managedFields are left out like kubectl"
    );

    let out = plugin(&["status", "one", "-n", &ns.name, "-o", "yaml"]).await?;
    assert_eq!(out.code, 0, "{out}");
    let rt: TrussiumRuntime = serde_yaml::from_str(&out.stdout)?;
    assert_eq!(rt.status.and_then(|s| s.observed_generation), Some(1));

    let out = plugin(&["events", "one", "-n", &ns.name, "-o", "json"]).await?;
    assert_eq!(out.code, 0, "{out}");
    let events: Value = serde_json::from_str(&out.stdout)?;
    assert_eq!(events["items"].as_array().map(Vec::len), Some(0));

    ns.delete().await;
    Ok(())
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn upgrade_changes_only_the_image() -> Result<(), Error> {
    let (ns, api) = setup("plugin-upgrade").await?;
    let before = healthy(&ns, &api, "rt", "v1", 2).await?;

    let out = plugin(&["upgrade", "rt", "-n", &ns.name, "--digest", DIGEST]).await?;
    assert_eq!(out.code, 0, "{out}");
    assert!(
        out.stdout
            .starts_with("rt: image v1 → sha256:0123456789ab (generation 2)"),
        "{out}"
    );
    assert!(
        out.stdout.contains(&format!(
            "kubectl trussium status rt -n {} --watch",
            ns.name
        )),
        "{out}"
    );
    let after = api.get("rt").await?;
    assert_eq!(after.spec.image.digest.as_deref(), Some(DIGEST));
    assert_eq!(after.spec.image.tag, None, "the digest replaces the tag");
    let mut expected = before.spec.clone();
    expected.image.tag = None;
    expected.image.digest = Some(DIGEST.to_string());
    assert_eq!(after.spec, expected, "nothing but spec.image changed");
    assert_eq!(
        after.status, before.status,
        "the plugin never writes status"
    );

    let out = plugin(&["upgrade", "rt", "-n", &ns.name, "--tag", "v3"]).await?;
    assert_eq!(out.code, 0, "{out}");
    let after = api.get("rt").await?;
    assert_eq!(after.spec.image.tag.as_deref(), Some("v3"));
    assert_eq!(after.spec.image.digest, None, "the tag replaces the digest");

    // The same tag again changes nothing and says so.
    let out = plugin(&["upgrade", "rt", "-n", &ns.name, "--tag", "v3"]).await?;
    assert_eq!(out.code, 0, "{out}");
    assert!(out.stdout.contains("already"), "{out}");
    assert_eq!(
        api.get("rt").await?.metadata.generation,
        after.metadata.generation
    );

    // Invalid values are refused before any request: not even the (missing)
    // kubeconfig is read.
    let missing = std::env::temp_dir().join("no-such-kubeconfig");
    for args in [
        &["upgrade", "rt", "--tag", "bad/tag"][..],
        &["upgrade", "rt", "--digest", "sha256:abc"][..],
        &["upgrade", "rt", "--tag", "v1", "--digest", DIGEST][..],
    ] {
        let out = run_to_end(kubectl_trussium_as(&missing, args)?).await?;
        assert_eq!(out.code, 2, "{args:?}: {out}");
        assert!(out.stdout.is_empty(), "{out}");
    }
    let out = run_to_end(kubectl_trussium_as(
        &missing,
        &["upgrade", "rt", "--tag", "bad/tag"],
    )?)
    .await?;
    assert!(out.stderr.contains("invalid tag \"bad/tag\""), "{out}");
    // …whereas a valid one goes on to read it.
    let out = run_to_end(kubectl_trussium_as(
        &missing,
        &["upgrade", "rt", "--tag", "v9"],
    )?)
    .await?;
    assert_eq!(out.code, 1, "{out}");
    assert!(out.stderr.contains("cannot read the kubeconfig"), "{out}");
    assert_eq!(api.get("rt").await?.spec.image.tag.as_deref(), Some("v3"));

    ns.delete().await;
    Ok(())
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
// upgrade --wait's exit codes 0 and 3 (and rollback's) are tested against
// the real operator in converged.rs; this timeout is the one with no
// operator at all, which status cannot show otherwise.
async fn upgrade_wait_exits_4_on_timeout() -> Result<(), Error> {
    let (ns, api) = setup("plugin-wait-timeout").await?;
    healthy(&ns, &api, "rt", "v1", 2).await?;
    let started = Instant::now();
    let out = plugin(&[
        "upgrade",
        "rt",
        "-n",
        &ns.name,
        "--tag",
        "v2",
        "--wait",
        "--timeout",
        "3s",
    ])
    .await?;
    let took = started.elapsed();
    assert_eq!(out.code, 4, "{out}");
    assert!(took >= Duration::from_secs(3), "{took:?}");
    assert!(
        out.stderr.contains("error: timed out after 3s waiting for the upgrade of rt to v2 to finish; last seen: waiting for the operator to observe generation 2 (status is at 1)"),
        "{out}"
    );
    assert!(
        out.stderr.contains(&format!(
            "kubectl trussium status rt -n {} --watch",
            ns.name
        )),
        "{out}"
    );
    assert_eq!(
        api.get("rt").await?.spec.image.tag.as_deref(),
        Some("v2"),
        "the patch stays"
    );
    ns.delete().await;
    Ok(())
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn scale_sets_replicas_and_respects_autoscaling() -> Result<(), Error> {
    let (ns, api) = setup("plugin-scale").await?;
    healthy(&ns, &api, "rt", "v1", 1).await?;

    let out = plugin(&["scale", "rt", "-n", &ns.name, "--replicas", "3"]).await?;
    assert_eq!(out.code, 0, "{out}");
    assert_eq!(out.stdout, "rt scaled: spec.replicas 1 → 3\n");
    assert_eq!(api.get("rt").await?.spec.replicas, 3);

    let out = plugin(&["scale", "rt", "-n", &ns.name, "--replicas", "0"]).await?;
    assert_eq!(out.code, 0, "{out}");
    assert!(
        out.stdout.starts_with("rt scaled: spec.replicas 3 → 0"),
        "{out}"
    );
    assert_eq!(api.get("rt").await?.spec.replicas, 0);

    let out = plugin(&["scale", "rt", "-n", &ns.name, "--replicas", "0"]).await?;
    assert_eq!(
        out.stdout, "rt: spec.replicas is already 0; nothing changed\n",
        "{out}"
    );

    let out = plugin(&["scale", "rt", "-n", &ns.name, "--replicas", "-1"]).await?;
    assert_eq!(out.code, 2, "{out}");
    assert!(out.stderr.contains("replicas must be 0 or more"), "{out}");
    assert_eq!(api.get("rt").await?.spec.replicas, 0);

    // Autoscaled: refused, unchanged, with what to do instead.
    let mut auto = ollama_runtime("auto", "v1", 1)?;
    auto.spec.autoscaling = Some(trussium_api::AutoscalingSpec {
        enabled: true,
        min_replicas: 2,
        max_replicas: Some(10),
        target_cpu_utilization_percentage: 80,
    });
    auto.spec.resources = Some(serde_json::from_value(
        json!({"requests": {"cpu": "250m"}}),
    )?);
    create(&api, &auto).await?;
    let out = plugin(&["scale", "auto", "-n", &ns.name, "--replicas", "4"]).await?;
    assert_eq!(out.code, 5, "{out}");
    assert!(
        out.stderr.starts_with("error: not scaling auto to 4: autoscaling is enabled, so its HorizontalPodAutoscaler owns the replica count (2–10)"),
        "{out}"
    );
    assert!(
        out.stderr.contains("minReplicas") && out.stderr.contains("--force"),
        "{out}"
    );
    assert_eq!(api.get("auto").await?.spec.replicas, 1);

    let out = plugin(&[
        "scale",
        "auto",
        "-n",
        &ns.name,
        "--replicas",
        "4",
        "--force",
    ])
    .await?;
    assert_eq!(out.code, 0, "{out}");
    assert!(
        out.stdout
            .contains("spec.replicas 1 → 4, but autoscaling is enabled"),
        "{out}"
    );
    assert_eq!(api.get("auto").await?.spec.replicas, 4);

    ns.delete().await;
    Ok(())
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn events_oldest_first_and_watch_streams_new_ones() -> Result<(), Error> {
    let (ns, api) = setup("plugin-events").await?;
    let rt = healthy(&ns, &api, "rt", "v1", 1).await?;
    let other = healthy(&ns, &api, "other", "v1", 1).await?;
    publish_event(
        &ns.client,
        &rt,
        "Warning",
        "ConfigurationInvalid",
        "Secret openai-credentials not found.",
        Duration::from_secs(600),
    )
    .await?;
    publish_event(
        &ns.client,
        &rt,
        "Normal",
        "RuntimeReady",
        "All requested replicas are ready.",
        Duration::from_secs(30),
    )
    .await?;
    publish_event(
        &ns.client,
        &rt,
        "Normal",
        "RuntimeProgressing",
        "Rolling out.",
        Duration::from_secs(120),
    )
    .await?;
    publish_event(
        &ns.client,
        &other,
        "Normal",
        "NotAboutRt",
        "Another runtime.",
        Duration::from_secs(10),
    )
    .await?;

    let out = plugin(&["events", "rt", "-n", &ns.name]).await?;
    assert_eq!(out.code, 0, "{out}");
    let lines: Vec<Vec<&str>> = out
        .stdout
        .lines()
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(lines.len(), 4, "{out}");
    assert_eq!(lines[0], ["AGE", "TYPE", "REASON", "ACTION", "NOTE"]);
    assert_eq!(
        lines[1][1..4],
        ["Warning", "ConfigurationInvalid", "Reconcile"],
        "{out}"
    );
    assert!(
        lines[1][0].starts_with("10m") || lines[1][0].starts_with("11m"),
        "{out}"
    );
    // Published 2 minutes back; a slow machine may show "2m1s".
    assert!(lines[2][0].starts_with("2m"), "{out}");
    assert_eq!(lines[2][1..3], ["Normal", "RuntimeProgressing"], "{out}");
    assert_eq!(lines[3][1..3], ["Normal", "RuntimeReady"], "{out}");
    assert!(
        out.stdout.contains("Secret openai-credentials not found."),
        "{out}"
    );
    assert!(!out.stdout.contains("NotAboutRt"), "{out}");

    let mut watch = Running::spawn(kubectl_trussium(&[
        "events", "rt", "-n", &ns.name, "--watch",
    ])?)?;
    watch.wait_for_line("RuntimeReady", QUICK).await?;
    publish_event(
        &ns.client,
        &rt,
        "Warning",
        "RuntimeUpgradeFailed",
        "The rollout of v2 failed.",
        Duration::ZERO,
    )
    .await?;
    watch.wait_for_line("RuntimeUpgradeFailed", QUICK).await?;
    let seen = watch.seen.clone();
    watch.stop();
    let order: Vec<usize> = [
        "ConfigurationInvalid",
        "RuntimeProgressing",
        "RuntimeReady",
        "RuntimeUpgradeFailed",
    ]
    .iter()
    .filter_map(|r| seen.find(r))
    .collect();
    assert_eq!(order.len(), 4, "{seen}");
    assert!(
        order.windows(2).all(|w| w[0] < w[1]),
        "oldest first, new ones last:\n{seen}"
    );
    assert!(
        seen.lines()
            .any(|l| l.contains("Warning") && l.contains("The rollout of v2 failed.")),
        "{seen}"
    );

    ns.delete().await;
    Ok(())
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn status_watch_redraws_on_change() -> Result<(), Error> {
    let (ns, api) = setup("plugin-watch").await?;
    let rt = healthy(&ns, &api, "rt", "v1", 2).await?;

    let mut watch = Running::spawn(kubectl_trussium(&[
        "status", "rt", "-n", &ns.name, "--watch",
    ])?)?;
    watch
        .wait_for_line("Replicas:     2/2 ready", QUICK)
        .await?;
    set_status(
        &api,
        "rt",
        json!({"readyReplicas": 1, "availableReplicas": 1}),
    )
    .await?;
    watch
        .wait_for_line("Replicas:     1/2 ready, 1 available", QUICK)
        .await?;
    publish_event(
        &ns.client,
        &rt,
        "Warning",
        "RuntimeDegraded",
        "A replica failed.",
        Duration::ZERO,
    )
    .await?;
    watch.wait_for_line("A replica failed.", QUICK).await?;
    watch.stop();

    let mut list = Running::spawn(kubectl_trussium(&["status", "-n", &ns.name, "--watch"])?)?;
    list.wait_for_line("NAME", QUICK).await?;
    healthy(&ns, &api, "second", "v7", 1).await?;
    list.wait_for_line("v7", QUICK).await?;
    list.stop();

    ns.delete().await;
    Ok(())
}

async fn service_account_kubeconfig(
    ns: &TestNamespace,
    name: &str,
    rules: Vec<PolicyRule>,
) -> Result<std::path::PathBuf, Error> {
    create_service_account(ns, name).await?;
    if !rules.is_empty() {
        grant(ns, name, rules).await?;
    }
    let path = std::env::temp_dir().join(format!("{}-{name}.kubeconfig", ns.name));
    kubeconfig_for_service_account(&ns.client, &ns.name, name, &path).await?;
    Ok(path)
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn errors_are_one_clear_line_with_a_non_zero_exit() -> Result<(), Error> {
    let (ns, api) = setup("plugin-errors").await?;
    healthy(&ns, &api, "rt", "v1", 1).await?;

    // Not found.
    let out = plugin(&["status", "nope", "-n", &ns.name]).await?;
    assert_eq!(out.code, 1, "{out}");
    assert_eq!(
        out.stderr.lines().next(),
        Some(
            format!(
                "error: TrussiumRuntime \"nope\" not found in namespace \"{}\"",
                ns.name
            )
            .as_str()
        ),
        "{out}"
    );
    // A name with -A makes no sense.
    let out = plugin(&["status", "rt", "-A"]).await?;
    assert_eq!(out.code, 2, "{out}");

    // Forbidden: a ServiceAccount without any permission (its kubeconfig's
    // context namespace is the test namespace).
    let nobody = service_account_kubeconfig(&ns, "nobody", vec![]).await?;
    let user = format!("system:serviceaccount:{}:nobody", ns.name);
    let out = run_to_end(kubectl_trussium_as(&nobody, &["status"])?).await?;
    assert_eq!(out.code, 1, "{out}");
    assert_eq!(
        out.stderr.lines().next(),
        Some(format!("error: forbidden: {user} may not list trussiumruntimes.runtime.trussium.io in namespace \"{}\"", ns.name).as_str()),
        "{out}"
    );
    let out = run_to_end(kubectl_trussium_as(
        &nobody,
        &["scale", "rt", "--replicas", "2"],
    )?)
    .await?;
    assert!(
        out.stderr.starts_with(&format!(
            "error: forbidden: {user} may not get trussiumruntimes"
        )),
        "{out}"
    );

    // Allowed to read runtimes but not to patch them, nor to read Events:
    // status still works and says why the Events are missing.
    let reader = service_account_kubeconfig(
        &ns,
        "reader",
        vec![rule(
            &["get", "list", "watch"],
            "runtime.trussium.io",
            "trussiumruntimes",
        )],
    )
    .await?;
    let out = run_to_end(kubectl_trussium_as(
        &reader,
        &["upgrade", "rt", "--tag", "v2"],
    )?)
    .await?;
    assert_eq!(out.code, 1, "{out}");
    assert!(out.stderr.starts_with(&format!(
        "error: forbidden: system:serviceaccount:{}:reader may not patch trussiumruntimes.runtime.trussium.io in namespace",
        ns.name
    )), "{out}");
    assert_eq!(api.get("rt").await?.spec.image.tag.as_deref(), Some("v1"));
    let out = run_to_end(kubectl_trussium_as(&reader, &["status", "rt"])?).await?;
    assert_eq!(out.code, 0, "{out}");
    assert!(
        out.stdout.contains("Events\n  unavailable: forbidden:"),
        "{out}"
    );
    assert!(
        out.stdout.contains("may not list events.events.k8s.io"),
        "{out}"
    );

    // Unreachable: a kubeconfig naming a port nothing listens on.
    let unreachable = std::env::temp_dir().join(format!("{}-unreachable.kubeconfig", ns.name));
    std::fs::write(
        &unreachable,
        "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://127.0.0.1:1\n    insecure-skip-tls-verify: true\nusers:\n- name: u\n  user:\n    token: t\ncontexts:\n- name: x\n  context:\n    cluster: c\n    user: u\ncurrent-context: x\n",
    )
    .map_err(|e| Error::Io { path: unreachable.clone(), source: e })?;
    let out = run_to_end(kubectl_trussium_as(&unreachable, &["status"])?).await?;
    assert_eq!(out.code, 1, "{out}");
    assert!(
        out.stderr
            .starts_with("error: cannot reach the Kubernetes API server at https://127.0.0.1:1: "),
        "{out}"
    );
    // A context that does not exist.
    let out = plugin(&["status", "--context", "no-such-context"]).await?;
    assert_eq!(out.code, 1, "{out}");
    assert_eq!(
        out.stderr.trim_end(),
        "error: context \"no-such-context\" not found in the kubeconfig",
        "{out}"
    );

    for path in [nobody, reader, unreachable] {
        let _ = std::fs::remove_file(path);
    }
    ns.delete().await;
    Ok(())
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn kubectl_completes_runtime_names_through_the_helper() -> Result<(), Error> {
    let (ns, api) = setup("plugin-complete").await?;
    healthy(&ns, &api, "private-ai", "v1", 1).await?;
    healthy(&ns, &api, "public-ai", "v2", 1).await?;

    // kubectl ≥ 1.26 runs completions/kubectl_complete-trussium (on PATH here).
    let complete = |words: &[&str]| {
        let mut cmd = tokio::process::Command::new(trussium_e2e::kubectl_path());
        cmd.arg("__complete").arg("trussium").args(words);
        cmd
    };
    let dir = plugin_dir()?;
    let path = path_with(&[dir, trussium_e2e::repo_root().join("completions")]);
    let with_env = |mut cmd: tokio::process::Command| {
        cmd.env("PATH", &path)
            .env("KUBECONFIG", trussium_e2e::admin_kubeconfig_path());
        cmd
    };
    let out = run_to_end(with_env(complete(&["-n", &ns.name, "upgrade", "pr"]))).await?;
    assert_eq!(out.code, 0, "{out}");
    let values: Vec<&str> = out
        .stdout
        .lines()
        .map(|l| l.split('\t').next().unwrap_or_default())
        .collect();
    assert_eq!(values, ["private-ai", ":4"], "{out}");
    assert!(
        out.stdout.contains("private-ai\tollama v1 · 1/1 ready"),
        "{out}"
    );

    let out = run_to_end(with_env(complete(&["st"]))).await?;
    assert!(out.stdout.starts_with("status\tShow one runtime"), "{out}");
    // A runtime's name wherever a command takes one (history is newer).
    let out = run_to_end(with_env(complete(&["history", "-n", &ns.name, "pu"]))).await?;
    assert!(out.stdout.starts_with("public-ai\t"), "{out}");
    ns.delete().await;
    Ok(())
}
