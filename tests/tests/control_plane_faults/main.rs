//! Faults of the control plane itself: the API server and etcd restarted
//! while the operator converges runtimes. The operator must recover without
//! a restart of its own and announce every runtime's rollout exactly once.
//! Also: an API server that does not stream lists (its `WatchList` feature
//! gate off, as Kubernetes 1.33 had it by default).
//!
//! A test binary of its own: cargo runs test binaries one after another, so
//! nothing of the `cluster` binary runs while a component is down; within
//! this binary the tests take turns ([`SERIAL`]). Recovery times are
//! printed (`--nocapture`); they are figures, not assertions.

use std::time::{Duration, Instant};

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::ConfigMap;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::ResourceExt;
use kube::api::{DeleteParams, ListParams, Patch, PatchParams, PostParams};
use kube::{Api, CustomResourceExt};
use serde_json::json;
use trussium_api::{TrussiumRuntime, condition_type};
use trussium_e2e::{
    BoxError, Harness, OLD_TAG, TestResult, all_ready, check_first_rollout_events, condition,
    deployment_condition, ensure, events_by_runtime, install_crd, openai_runtime, repo_root,
    wait_for, with_operator,
};

/// One control-plane fault at a time.
static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

const RUNTIMES: usize = 30;

/// How long after its Deployment became available a runtime may report
/// Ready. The operator's share of a recovery; the control plane's own (the
/// controller manager catching up after a restart) varies by a minute or
/// more on a loaded machine, so the whole recovery is only printed.
const REPORT_LAG: i64 = 30;

/// Runs `tests/cluster/component.sh <action> <name> [flag...]` (flags: for
/// this start only).
async fn component(action: &str, name: &str, flags: &[&str]) -> TestResult {
    let script = repo_root().join("tests/cluster/component.sh");
    let status = tokio::process::Command::new(&script)
        .args([action, name])
        .args(flags)
        .status()
        .await?;
    ensure(
        status.success(),
        format!("{} {action} {name} {flags:?}: {status}", script.display()),
    )
}

/// The control plane's own clients of the API server, which these tests
/// do not examine.
const CONTROLLERS: [&str; 2] = ["kube-controller-manager", "kube-scheduler"];

/// Restarts `name` with `flags` added to up.sh's (none: as up.sh started
/// it). The controller manager and the scheduler are stopped across an API
/// server restart, and started again whatever the restart's outcome:
/// resuming their watches on the restarted API server, the controller
/// manager missed pod updates at times (a ReplicaSet stayed READY 0 for
/// minutes beside its Running, Ready pod), and the 1.37 scheduler, refused
/// its watches (403) while the restarted server's authorizer warmed up,
/// backed off and bound new pods a minute late. Neither is what these
/// tests are about. Started afresh they list everything.
async fn restart(name: &str, flags: &[&str]) -> TestResult {
    if name != "kube-apiserver" {
        return component("restart", name, flags).await;
    }
    for controller in CONTROLLERS {
        component("stop", controller, &[]).await?;
    }
    let restarted = component("restart", name, flags).await;
    let mut started = Ok(());
    for controller in CONTROLLERS {
        started = started.and(component("start", controller, &[]).await);
    }
    restarted.and(started)
}

/// Creates runtimes, restarts `name` once a third of them has a status,
/// and checks that all converge with the same operator process and each
/// first rollout announced exactly once.
async fn converge_through_restart_of(name: &'static str) -> TestResult {
    let _turn = SERIAL.lock().await;
    with_operator(&format!("cp-{name}"), &[], async |h| {
        for i in 0..RUNTIMES {
            h.create_runtime(openai_runtime(&format!("rt-{i:02}"), OLD_TAG, 1, None))
                .await?;
        }
        let runtimes = h.runtimes();
        wait_for(
            "a third of the runtimes to have a status",
            Duration::from_secs(300),
            async || {
                let list = runtimes.list(&ListParams::default()).await?.items;
                let reported = list.iter().filter(|rt| rt.status.is_some()).count();
                Ok((reported * 3 >= RUNTIMES).then_some(()))
            },
        )
        .await?;
        let pid = h.operator.pid();
        let stopped = Instant::now();
        restart(name, &[]).await?;
        let back = Instant::now();
        let all = wait_for(
            &format!("all {RUNTIMES} runtimes to be Ready after {name} restarted"),
            Duration::from_secs(600),
            async || Ok(all_ready(&h.runtimes(), RUNTIMES).await?),
        )
        .await?;
        eprintln!(
            "cp-{name}: restart took {:.1}s; all {RUNTIMES} runtimes Ready {:.1}s after the API server was ready again",
            (back - stopped).as_secs_f64(),
            back.elapsed().as_secs_f64()
        );
        ensure(
            h.operator.is_running() && h.operator.pid() == pid,
            "the operator did not survive the restart",
        )?;
        check_report_lag(h, &all).await?;
        let events = events_by_runtime(&h.events()).await?;
        check_first_rollout_events(&all, &events)?;
        Ok::<(), BoxError>(())
    })
    .await
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn the_operator_rides_out_an_api_server_restart() -> TestResult {
    converge_through_restart_of("kube-apiserver").await
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn the_operator_rides_out_an_etcd_restart() -> TestResult {
    converge_through_restart_of("etcd").await
}

/// What changed while the operator's watches were down reaches it once
/// they resume, also where the API server can no longer replay it: a
/// restarted API server has forgotten its watch history, so every watch
/// lists afresh. A ConfigMap deleted meanwhile is not in the new list at
/// all; an edited spec is, and a reconcile it triggered while the list
/// streamed in read the caches from before the list. Each must be acted
/// on at once, not at the resync (300 s, beyond the waits here).
#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn what_changed_while_the_watches_were_down_is_acted_on_after_they_list_again() -> TestResult
{
    let _turn = SERIAL.lock().await;
    with_operator("cp-relist", &[], async |h| {
        const EACH: usize = 3;
        let deleted = |i| format!("cm-gone-{i}");
        let edited = |i| format!("spec-edited-{i}");
        for i in 0..EACH {
            for name in [deleted(i), edited(i)] {
                h.create_runtime(openai_runtime(&name, OLD_TAG, 1, None))
                    .await?;
            }
        }
        for i in 0..EACH {
            h.wait_ready(&deleted(i)).await?;
            h.wait_ready(&edited(i)).await?;
        }

        // Frozen, the operator sees none of this as it happens.
        h.operator.pause()?;
        let missed = async {
            for i in 0..EACH {
                h.api::<ConfigMap>()
                    .delete(&deleted(i), &DeleteParams::default())
                    .await?;
                let two = json!({"spec": {"replicas": 2}});
                h.runtimes()
                    .patch(&edited(i), &PatchParams::default(), &Patch::Merge(&two))
                    .await?;
            }
            restart("kube-apiserver", &[]).await
        }
        .await;
        h.operator.resume()?;
        missed?;
        let resumed = Instant::now();

        for i in 0..EACH {
            h.wait_object::<ConfigMap>("the ConfigMap", &deleted(i), Duration::from_secs(60), |_| true)
                .await?;
            h.wait_condition(&edited(i), "Ready", "True", None, Duration::from_secs(60))
                .await?;
        }
        eprintln!(
            "cp-relist: {EACH} deleted ConfigMaps recreated and {EACH} edited specs Ready {:.1}s after the operator resumed",
            resumed.elapsed().as_secs_f64()
        );
        Ok::<(), BoxError>(())
    })
    .await
}

/// A CRD update gives its resource a new watch cache: the runtime watch,
/// and only it, lists afresh. Specs edited meanwhile are in that list, and
/// each must be reconciled from it (a reconcile started as the list
/// streamed in read the cache from before it, and nothing triggered
/// another until the resync).
#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn specs_edited_while_a_crd_update_relists_runtimes_are_reconciled() -> TestResult {
    let _turn = SERIAL.lock().await;
    with_operator("cp-crd-relist", &[], async |h| {
        const EDITED: usize = 8;
        let name = |i| format!("rt-{i}");
        for i in 0..EDITED {
            h.create_runtime(openai_runtime(&name(i), OLD_TAG, 1, None))
                .await?;
        }
        for i in 0..EDITED {
            h.wait_ready(&name(i)).await?;
        }
        let crds: Api<CustomResourceDefinition> = Api::all(h.ns.client.clone());
        // Any change of the CRD's spec will do: a description.
        let mut crd = crds.get(TrussiumRuntime::crd_name()).await?;
        for version in &mut crd.spec.versions {
            if let Some(schema) = version.schema.as_mut().and_then(|s| s.open_api_v3_schema.as_mut()) {
                schema.description = Some("edited by cp-crd-relist".into());
            }
        }

        h.operator.pause()?;
        let missed = async {
            crds.replace(TrussiumRuntime::crd_name(), &PostParams::default(), &crd)
                .await?;
            // The old cache's watches end a moment later; edits made after
            // that reach the operator only through the new list.
            tokio::time::sleep(Duration::from_secs(3)).await;
            for i in 0..EDITED {
                let two = json!({"spec": {"replicas": 2}});
                h.runtimes()
                    .patch(&name(i), &PatchParams::default(), &Patch::Merge(&two))
                    .await?;
            }
            Ok::<(), BoxError>(())
        }
        .await;
        h.operator.resume()?;
        let resumed = Instant::now();
        let outcome = async {
            missed?;
            for i in 0..EDITED {
                h.wait_condition(&name(i), "Ready", "True", None, Duration::from_secs(60))
                    .await?;
            }
            eprintln!(
                "cp-crd-relist: {EDITED} specs edited across a CRD update reconciled and Ready {:.1}s after the operator resumed",
                resumed.elapsed().as_secs_f64()
            );
            Ok::<(), BoxError>(())
        }
        .await;
        install_crd(&h.ns.client).await?;
        outcome
    })
    .await
}

/// An API server with the feature gate WatchList off (Kubernetes 1.33's
/// default; an administrator's choice on 1.34 to 1.37) refuses a watch that
/// asks for a streamed list as invalid. The operator lists in pages there instead: started
/// against such an API server, it fills its caches and converges runtimes,
/// one of them referencing a Secret.
#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn the_operator_converges_where_lists_are_not_streamed() -> TestResult {
    let _turn = SERIAL.lock().await;
    restart("kube-apiserver", &["--feature-gates=WatchList=false"]).await?;
    let outcome = converge_without_streamed_lists().await;
    // The cluster as up.sh made it, whatever the outcome.
    let restored = restart("kube-apiserver", &[]).await;
    outcome.and(restored)
}

async fn converge_without_streamed_lists() -> TestResult {
    with_operator("cp-paged", &[], async |h| {
        h.create_secret("creds", "api-key", "paged-list-test-value")
            .await?;
        h.create_runtime(openai_runtime("with-secret", OLD_TAG, 1, Some("creds")))
            .await?;
        h.create_runtime(openai_runtime("plain", OLD_TAG, 1, None))
            .await?;
        h.wait_ready("with-secret").await?;
        h.wait_ready("plain").await?;
        let log = h.operator.log_text();
        let fell_back = log.matches("does not stream lists").count();
        ensure(
            fell_back == 1,
            format!("expected the fallback to pages logged once, found {fell_back} times"),
        )
    })
    .await
}

/// Checks that every runtime became Ready within [`REPORT_LAG`] seconds of
/// its Deployment becoming available (both transition times, from the one
/// clock of the local cluster). A controller that backed off all its
/// triggers together after the restart heard nothing for minutes.
async fn check_report_lag(h: &Harness, runtimes: &[TrussiumRuntime]) -> TestResult {
    let deployments = h.api::<Deployment>();
    let mut late = Vec::new();
    for rt in runtimes {
        let name = rt.name_any();
        let deployment = deployments.get(&name).await?;
        let available = deployment_condition(&deployment, "Available")
            .filter(|c| c.status == "True")
            .and_then(|c| c.last_transition_time.as_ref())
            .map(|t| t.0.as_second());
        let ready =
            condition(rt, condition_type::READY).map(|c| c.last_transition_time.0.as_second());
        match (available, ready) {
            (Some(available), Some(ready)) if ready - available <= REPORT_LAG => {}
            _ => late.push(format!(
                "{name}: available at {available:?}, Ready at {ready:?}"
            )),
        }
    }
    ensure(
        late.is_empty(),
        format!(
            "runtimes reported Ready more than {REPORT_LAG} s after their Deployment was available:\n  {}",
            late.join("\n  ")
        ),
    )
}
