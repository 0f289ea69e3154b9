//! `kubectl trussium diagnose` against real failures: the real scheduler (a
//! nodeSelector no node has), real quota admission (a ResourceQuota of
//! `pods: 0`), and the kubelet-side failures KWOK plays for marked images
//! (a pull that fails, a crash loop, an OOMKilled container, a container
//! that runs and is never ready). Each cause: the first line, the next
//! step, the exit code, the JSON. Then the partial diagnosis of a user who
//! may not read pods or Events, and what one diagnose costs in requests.
//!
//! The outputs are printed (`--nocapture` shows them): they are what users see.

use k8s_openapi::api::core::v1::ResourceQuota;
use kube::api::PostParams;
use serde_json::{Value, json};
use trussium_e2e::MARKED_REPOSITORY;
use trussium_e2e::{
    BoxError, CONVERGE, CRASH_LOOP_IMAGE, Harness, NEVER_READY_IMAGE, NOT_READY_IMAGE,
    OOM_KILLED_IMAGE, PluginOutput, TestResult, create_service_account, ensure, ensure_contains,
    ensure_exit, grant, kubeconfig_for_service_account, kubectl_trussium_as, minimal, plugin_dir,
    plugin_in, rule, run_to_end, wait_for, with_operator,
};

/// `diagnose`'s exit code for a runtime that is not Ready.
const NOT_READY: i32 = 11;

/// The minimal sample at `image` (a KWOK-marked one, or any other tag of
/// its repository, which KWOK makes ready), with `spec_changes` merged.
fn at(name: &str, image: &str, spec_changes: Value) -> Result<Value, BoxError> {
    let (repository, tag) = image.rsplit_once(':').ok_or("image without a tag")?;
    let mut rt = minimal(
        name,
        json!({"image": {"repository": repository, "tag": tag}, "replicas": 2}),
    )?;
    trussium_e2e::merge(&mut rt["spec"], spec_changes);
    Ok(rt)
}

/// A tag of the marked images' repository that KWOK makes ready.
fn good_image() -> String {
    format!("{MARKED_REPOSITORY}:v1.0.0")
}

async fn trussium(h: &Harness, args: &[&str]) -> Result<PluginOutput, BoxError> {
    Ok(plugin_in(h.namespace(), args).await?)
}

/// Waits until `diagnose NAME -o json` names `cause`; its JSON.
async fn diagnosed(h: &Harness, name: &str, cause: &str) -> Result<Value, BoxError> {
    Ok(wait_for(
        &format!("diagnose {name} to say {cause}"),
        CONVERGE,
        async || {
            let out = trussium(h, &["diagnose", name, "-o", "json"]).await?;
            let v: Value = serde_json::from_str(&out.stdout).unwrap_or(Value::Null);
            Ok((v["cause"] == cause).then_some(v))
        },
    )
    .await?)
}

/// `diagnose NAME` as people read it: exit 11, `first` as its first line
/// and `next` among the lines after it. Printed.
async fn report(h: &Harness, name: &str, first: &str, next: &[&str]) -> TestResult {
    let out = trussium(h, &["diagnose", name]).await?;
    eprintln!("$ kubectl trussium diagnose {name}\n{}", out.stdout);
    ensure_exit(&out, NOT_READY, "diagnose of a runtime that is not Ready")?;
    let line = out.stdout.lines().next().unwrap_or_default();
    ensure(
        line.starts_with(first),
        format!("first line {line:?}, wanted it to start with {first:?}\n{out}"),
    )?;
    ensure_contains(&out.stdout, next, &out)?;
    ensure_contains(&out.stderr, &[&format!("{name} is not Ready")], &out)?;
    Ok(())
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn diagnose_tells_each_pod_failure_apart() -> TestResult {
    plugin_dir()?;
    with_operator("diagnose", &[], async |h| {
        let good = good_image();
        h.create_runtime(at("fine", &good, json!({}))?).await?;
        h.create_runtime(at("pull", &good, json!({}))?).await?;
        h.create_runtime(at("crash", CRASH_LOOP_IMAGE, json!({}))?)
            .await?;
        h.create_runtime(at(
            "oom",
            OOM_KILLED_IMAGE,
            json!({"resources": {"limits": {"memory": "64Mi"}}}),
        )?)
        .await?;
        h.create_runtime(at("probe", NOT_READY_IMAGE, json!({}))?)
            .await?;
        h.create_runtime(at(
            "nowhere",
            &good,
            json!({"scheduling": {"nodeSelector": {"trussium.io/no-such-label": "true"}}}),
        )?)
        .await?;
        // An upgrade to an image that cannot be pulled, after one that rolled out.
        h.wait_ready("pull").await?;
        h.set_image("pull", NEVER_READY_IMAGE).await?;

        let v = diagnosed(h, "pull", "ImagePullFailed").await?;
        ensure(
            v["nextSteps"]
                .as_array()
                .is_some_and(|s| s.iter().any(|s| s["command"]
                    == format!("kubectl trussium rollback pull -n {} --wait", h.namespace()))),
            format!("no rollback step: {v}"),
        )?;
        report(
            h,
            "pull",
            &format!("✗ pull is not Ready: the image {NEVER_READY_IMAGE} cannot be pulled (ImagePullBackOff"),
            &["kubectl trussium rollback pull", "Back-off pulling image", "new"],
        )
        .await?;

        // status shows the same pods: the new one that cannot pull, the old
        // ones still serving.
        let out = trussium(h, &["status", "pull"]).await?;
        ensure_exit(&out, 0, "status of a runtime that is not Ready")?;
        let pods = out.stdout.split_once("\nPods\n").map(|(_, p)| p).unwrap_or_default();
        let rows: Vec<&str> = pods.lines().take_while(|l| l.starts_with("  ")).collect();
        ensure(
            rows.len() == 4
                && rows[1].contains(" new ")
                && rows[1].contains("ImagePullBackOff")
                && rows[2..].iter().all(|r| r.contains(" old ") && r.contains("1/1")),
            format!("the pods of status pull: {rows:#?}\n{out}"),
        )?;

        diagnosed(h, "crash", "CrashLoop").await?;
        report(
            h,
            "crash",
            "✗ crash is not Ready: the container keeps crashing (last exit code 3, Error; 2 pods, 5 restarts)",
            &["kubectl logs crash-", "--previous", "CrashLoopBackOff (Error, exit 3)"],
        )
        .await?;

        diagnosed(h, "oom", "OOMKilled").await?;
        report(
            h,
            "oom",
            "✗ oom is not Ready: the container is killed for running out of memory (limit 64Mi; 2 pods, 5 restarts)",
            &["spec.resources.limits.memory"],
        )
        .await?;

        diagnosed(h, "probe", "ContainerNotReady").await?;
        report(
            h,
            "probe",
            "✗ probe is not Ready: the container runs but never becomes ready (2 pods)",
            &["kubectl logs probe-", "Running, not ready"],
        )
        .await?;

        let v = diagnosed(h, "nowhere", "Unschedulable").await?;
        ensure(
            v["summary"]
                .as_str()
                .is_some_and(|s| s.contains("didn't match Pod's node affinity/selector")),
            format!("not the scheduler's words: {v}"),
        )?;
        report(
            h,
            "nowhere",
            "✗ nowhere is not Ready: no node can take the pods (2 pods): 0/",
            &["kubectl get nodes --show-labels", "spec.scheduling"],
        )
        .await?;

        // A Secret that does not exist: the operator's verdict, and the
        // command that creates it (a name and a key, never a value).
        let mut secretless = trussium_e2e::openai_runtime("secretless", "v1.0.0", 1, Some("no-such-secret"));
        secretless["spec"]["image"]["repository"] = json!(MARKED_REPOSITORY);
        h.create_runtime(secretless).await?;
        diagnosed(h, "secretless", "SecretNotFound").await?;
        report(
            h,
            "secretless",
            "✗ secretless is not Ready: the spec cannot be used: ",
            &["no-such-secret", "kubectl create secret generic no-such-secret"],
        )
        .await?;

        // Ready: says so, exits 0.
        h.wait_ready("fine").await?;
        let out = trussium(h, &["diagnose", "fine"]).await?;
        eprintln!("$ kubectl trussium diagnose fine\n{}", out.stdout);
        ensure_exit(&out, 0, "diagnose of a Ready runtime")?;
        ensure_contains(&out.stdout, &["✓ fine: Ready, 2 of 2 replicas ready: nothing to fix"], &out)?;

        // An autoscaler without metrics (no metrics-server here): Ready, with
        // a warning.
        h.create_runtime(at(
            "scaled",
            &good,
            json!({"resources": {"requests": {"cpu": "100m"}},
                   "autoscaling": {"enabled": true, "minReplicas": 1, "maxReplicas": 3,
                                   "targetCPUUtilizationPercentage": 70}}),
        )?)
        .await?;
        h.wait_ready("scaled").await?;
        let out = wait_for("the HPA to report that it cannot read metrics", CONVERGE, async || {
            let out = trussium(h, &["diagnose", "scaled"]).await?;
            Ok(out.stdout.contains("Warning: the HorizontalPodAutoscaler cannot scale").then_some(out))
        })
        .await?;
        eprintln!("$ kubectl trussium diagnose scaled\n{}", out.stdout);
        ensure_exit(&out, 0, "diagnose of a Ready runtime whose autoscaler has no metrics")?;
        ensure_contains(&out.stdout, &["✓ scaled: Ready", "(is metrics-server installed?)"], &out)?;

        // The namespace's triage: the six that are not Ready, one line each.
        let out = trussium(h, &["diagnose"]).await?;
        eprintln!("$ kubectl trussium diagnose\n{}", out.stdout);
        ensure_exit(&out, NOT_READY, "diagnose of a namespace with broken runtimes")?;
        for (name, cause) in [
            ("crash", "CrashLoop"),
            ("nowhere", "Unschedulable"),
            ("oom", "OOMKilled"),
            ("probe", "ContainerNotReady"),
            ("pull", "ImagePullFailed"),
            ("secretless", "SecretNotFound"),
        ] {
            ensure(
                out.stdout
                    .lines()
                    .any(|l| l.contains(&format!(" {name} ")) && l.contains(cause)),
                format!("{name} not listed with {cause}\n{out}"),
            )?;
        }
        ensure(!out.stdout.contains(" fine "), "a Ready runtime in the triage")?;
        ensure_contains(&out.stderr, &["6 of 8 runtimes are not Ready"], &out)?;

        // -A: every namespace (other tests' runtimes too), ours among them.
        let out = trussium_e2e::plugin(&["diagnose", "-A"]).await?;
        ensure_exit(&out, NOT_READY, "diagnose -A")?;
        ensure(
            out.stdout.lines().any(|l| {
                l.starts_with(&format!("{} ", h.namespace()))
                    && l.contains(" crash ")
                    && l.contains("CrashLoop")
            }),
            format!("diagnose -A does not list crash:\n{out}"),
        )?;

        // Each kind read once, whatever the number of pods.
        let out = trussium(h, &["diagnose", "crash", "-v=6"]).await?;
        let requests = out.stderr.lines().filter(|l| l.starts_with("GET ")).count();
        eprintln!("one diagnose of a crash loop (2 pods): {requests} requests");
        ensure(
            // The runtime, its Deployment, ReplicaSets, pods, Events,
            // EndpointSlices, and one previous log: not one per pod.
            requests == 7,
            format!("{requests} requests for one diagnose:\n{}", out.stderr),
        )?;

        // Twenty pods cost no more requests, and take this long.
        h.set_replicas("fine", 20).await?;
        h.wait_ready("fine").await?;
        let started = std::time::Instant::now();
        let out = trussium(h, &["diagnose", "fine", "-v=6"]).await?;
        let took = started.elapsed();
        ensure_exit(&out, 0, "diagnose of 20 ready pods")?;
        let requests = out.stderr.lines().filter(|l| l.starts_with("GET ")).count();
        eprintln!(
            "one diagnose of a Ready runtime with 20 pods: {requests} requests, {} ms (the kubectl process included)",
            took.as_millis()
        );
        ensure(requests == 6, format!("{requests} requests for 20 pods:\n{}", out.stderr))?;

        // Not found: one line, exit 1.
        let out = trussium(h, &["diagnose", "nope"]).await?;
        ensure_exit(&out, 1, "diagnose of a runtime that does not exist")?;
        ensure_contains(&out.stderr, &["\"nope\" not found"], &out)?;

        // A user who may read runtimes, Deployments and ReplicaSets, not pods
        // or Events: the partial diagnosis, and exactly what is missing.
        create_service_account(&h.ns, "no-pods").await?;
        grant(
            &h.ns,
            "no-pods",
            vec![
                rule(&["get", "list"], "runtime.trussium.io", "trussiumruntimes"),
                rule(&["get", "list"], "apps", "deployments"),
                rule(&["get", "list"], "apps", "replicasets"),
            ],
        )
        .await?;
        let path = std::env::temp_dir().join(format!("{}-no-pods.kubeconfig", h.namespace()));
        kubeconfig_for_service_account(&h.ns.client, h.namespace(), "no-pods", &path).await?;
        let out = run_to_end(kubectl_trussium_as(
            &path,
            &["diagnose", "nowhere", "-n", h.namespace()],
        )?)
        .await?;
        eprintln!("$ kubectl trussium diagnose nowhere   # without pods or Events\n{}", out.stdout);
        ensure_exit(&out, NOT_READY, "a partial diagnosis")?;
        let status = run_to_end(kubectl_trussium_as(
            &path,
            &["status", "nowhere", "-n", h.namespace()],
        )?)
        .await?;
        ensure_contains(
            &status.stdout,
            &["Pods\n  unavailable: forbidden: system:serviceaccount:"],
            &status,
        )?;
        ensure_contains(
            &out.stdout,
            &[
                "✗ nowhere is not Ready: the pods that would say why cannot be read; the operator reports: ",
                &format!("the pods: forbidden to list pods in namespace {}", h.namespace()),
                &format!(
                    "the Events: forbidden to list events.events.k8s.io in namespace {}",
                    h.namespace()
                ),
            ],
            &out,
        )?;
        Ok(())
    })
    .await
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn diagnose_names_a_quota_that_refuses_the_pods() -> TestResult {
    plugin_dir()?;
    with_operator("diagnose-quota", &[], async |h| {
        let quota: ResourceQuota = serde_json::from_value(json!({
            "metadata": {"name": "no-pods"},
            "spec": {"hard": {"pods": "0"}},
        }))?;
        h.api::<ResourceQuota>()
            .create(&PostParams::default(), &quota)
            .await?;
        h.create_runtime(at("quota", &good_image(), json!({}))?)
            .await?;
        // The operator names the cause in Ready, which kubectl wait and GitOps
        // tools show, without reading a pod.
        let runtimes = h.runtimes();
        wait_for("Ready to name the quota", CONVERGE, async || {
            let rt = runtimes.get("quota").await?;
            let ready = rt.status.and_then(|s| s.condition("Ready").cloned());
            Ok(ready.filter(|c| {
                c.status == "False"
                    && c.message.contains("Pods cannot be created: pods \"quota-")
                    && c.message.contains("exceeded quota: no-pods")
            }))
        })
        .await?;
        let v = diagnosed(h, "quota", "PodsNotCreated").await?;
        ensure(
            v["evidence"][0]["object"]
                .as_str()
                .is_some_and(|o| o.starts_with("ReplicaSet/quota-")),
            format!("the evidence is not the ReplicaSet's condition: {v}"),
        )?;
        report(
            h,
            "quota",
            "✗ quota is not Ready: pods are not created: pods \"quota-",
            &[
                "exceeded quota: no-pods",
                &format!("kubectl describe resourcequota -n {}", h.namespace()),
            ],
        )
        .await?;
        Ok(())
    })
    .await
}
