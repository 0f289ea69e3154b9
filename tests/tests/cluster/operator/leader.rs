//! Leader election between two operator processes: exactly one writes; a
//! `kill -9` of the leader with a change pending hands over within the lease
//! duration without repeating an Event; SIGTERM hands over at once; the
//! metrics move with the reconciles.

use std::time::Duration;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::events::v1::Event;
use kube::api::{ListParams, Patch, PatchParams, PostParams};
use kube::{Api, ResourceExt};
use serde_json::json;
use tokio::time::Instant;
use trussium_api::TrussiumRuntime;
use trussium_e2e::{
    Audit, BoxError, CONVERGE, Identity, NEW_TAG, OLD_TAG, Relay, Replica, TestNamespace,
    TestResult, api_server_address, install, install_leader_election_rbac, lease_holder,
    lease_spec, metric, minimal, reconciles, require_cluster, wait_for, wait_for_holder,
};

/// Takeover after a kill: the lease duration (15 s) plus a retry, under load.
const TAKEOVER: Duration = Duration::from_secs(60);
const LEADER: &str = r#"leader_election_master_status{name="trussium-operator"}"#;

/// (reason, reporting instance) of every Event about `uid`, oldest first.
async fn events_about(
    events: &Api<Event>,
    uid: &str,
) -> Result<Vec<(String, String)>, trussium_e2e::Error> {
    let mut seen: Vec<Event> = events
        .list(&ListParams::default())
        .await?
        .items
        .into_iter()
        .filter(|e| e.regarding.as_ref().and_then(|r| r.uid.as_deref()) == Some(uid))
        .collect();
    seen.sort_by_key(|e| {
        e.resource_version()
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0)
    });
    Ok(seen
        .into_iter()
        .map(|e| {
            (
                e.reason.unwrap_or_default(),
                e.reporting_instance.unwrap_or_default(),
            )
        })
        .collect())
}

/// Waits until the runtime reports Ready for its current generation with
/// `tag` as the last successful image.
async fn wait_settled(
    runtimes: &Api<TrussiumRuntime>,
    name: &str,
    tag: &str,
) -> Result<TrussiumRuntime, BoxError> {
    Ok(wait_for(
        &format!("runtime {name} ready on {tag}"),
        CONVERGE,
        async || {
            let rt = runtimes.get(name).await?;
            let generation = rt.metadata.generation;
            let done = rt.status.as_ref().is_some_and(|s| {
                s.observed_generation == generation
                    && s.last_successful_image
                        .as_deref()
                        .is_some_and(|i| i.ends_with(&format!(":{tag}")))
                    && s.condition("Ready").is_some_and(|c| c.status == "True")
            });
            Ok(done.then_some(rt))
        },
    )
    .await?)
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn one_leader_writes_and_the_standby_takes_over() -> TestResult {
    require_cluster();
    let ns = TestNamespace::create("leader").await?;
    let admin = ns.client.clone();
    install(&admin).await?;
    install_leader_election_rbac(&admin).await?;
    let a = Identity::create(&admin, &format!("{}-a", ns.name), true).await?;
    let b = Identity::create(&admin, &format!("{}-b", ns.name), true).await?;
    // A Lease of its own: other tests' operators never compete for it.
    let lease = ns.name.clone();
    let args = vec![
        format!("--namespace={}", ns.name),
        "--leader-elect".to_string(),
        format!("--leader-elect-resource-name={lease}"),
        "--leader-elect-resource-namespace=trussium-system".to_string(),
    ];
    let mut first = Replica::start(&admin, &a, &args).await?;
    let mut second = None;
    let outcome = async {
        wait_for_holder(&admin, &lease, &a.name, TAKEOVER).await?;
        let standby = second.insert(Replica::start(&admin, &b, &args).await?);
        // Both ready: the standby too (warm caches, API server reachable).
        first.wait_ready(CONVERGE).await?;
        standby.wait_ready(CONVERGE).await?;
        wait_for(
            "the first replica to report that it leads",
            TAKEOVER,
            async || Ok(matches!(first.metric(LEADER).await, Ok(v) if v == 1.0).then_some(())),
        )
        .await?;
        assert_eq!(
            standby.metric(LEADER).await?,
            0.0,
            "the second one stands by"
        );

        // Only the leader writes.
        let audit = Audit::open()?;
        let mark = audit.mark();
        let runtimes: Api<TrussiumRuntime> = ns.api();
        let events: Api<Event> = ns.api();
        runtimes
            .create(
                &PostParams::default(),
                &serde_json::from_value(minimal("web", json!({}))?)?,
            )
            .await?;
        let rt = wait_settled(&runtimes, "web", OLD_TAG).await?;
        let uid = rt.uid().ok_or("runtime without uid")?;
        audit.settle().await?;
        let in_namespace = |e: &trussium_e2e::AuditEvent| {
            e.object_ref.as_ref().and_then(|o| o.namespace.as_deref()) == Some(ns.name.as_str())
        };
        let leader_writes: Vec<_> = audit
            .writes_by(&a.user, &mark)?
            .into_iter()
            .filter(in_namespace)
            .collect();
        let standby_writes: Vec<_> = audit
            .writes_by(&b.user, &mark)?
            .into_iter()
            .filter(in_namespace)
            .collect();
        assert!(
            !leader_writes.is_empty(),
            "the leader wrote the runtime's objects"
        );
        assert!(
            standby_writes.is_empty(),
            "the standby wrote nothing: {:?}",
            standby_writes
                .iter()
                .map(|e| format!("{} {}", e.verb, e.resource()))
                .collect::<Vec<_>>()
        );

        // The metrics moved with the reconcile, and only on the leader. (The
        // counters move when a reconcile ends, after its status write; the
        // caches follow the API server: wait, do not sample once.)
        let leader_counted = |t: &str| {
            reconciles(t) >= 1.0
                && metric(t, r#"trussium_runtimes{ready="True"}"#) == Some(1.0)
                && trussium_e2e::metrics::sum(
                    t,
                    "trussium_api_requests_total",
                    &[("kind", "deployments"), ("verb", "patch")],
                ) >= 1.0
                && metric(t, r#"trussium_events_total{reason="RuntimeReady"}"#)
                    .is_some_and(|v| v >= 1.0)
        };
        let text = wait_for(
            "the leader's metrics to count the reconcile",
            CONVERGE,
            async || Ok(first.scrape().await.ok().filter(|t| leader_counted(t))),
        )
        .await?;
        // The standby's cache is warm (it counts the Ready runtime) but it
        // reconciled nothing.
        let standby_text = wait_for(
            "the standby's cache to see the runtime Ready",
            CONVERGE,
            async || {
                Ok(standby
                    .scrape()
                    .await
                    .ok()
                    .filter(|t| metric(t, r#"trussium_runtimes{ready="True"}"#) == Some(1.0)))
            },
        )
        .await?;
        assert_eq!(
            reconciles(&standby_text),
            0.0,
            "the standby reconciled nothing:\n{standby_text}"
        );
        let before = reconciles(&text);
        runtimes
            .patch(
                "web",
                &PatchParams::default(),
                &Patch::Merge(json!({ "spec": { "replicas": 2 } })),
            )
            .await?;
        wait_for("the deployment to scale to 2", CONVERGE, async || {
            let d = ns.api::<Deployment>().get("web").await?;
            Ok((d.spec.and_then(|s| s.replicas) == Some(2)).then_some(()))
        })
        .await?;
        // Counted when the reconcile ends (after its status write and Events).
        wait_for(
            "controller_runtime_reconcile_total to move",
            CONVERGE,
            async || {
                Ok(matches!(first.scrape().await, Ok(t) if reconciles(&t) > before).then_some(()))
            },
        )
        .await?;
        // Idle before the kill: the scale-up has settled.
        wait_for("two ready replicas reported", CONVERGE, async || {
            let rt = runtimes.get("web").await?;
            let settled = rt.status.as_ref().is_some_and(|s| {
                s.observed_generation == rt.metadata.generation && s.ready_replicas == Some(2)
            });
            Ok(settled.then_some(()))
        })
        .await?;
        let events_before_kill = events_about(&events, &uid).await?;
        println!(
            "RSS: leader {} KiB, standby {} KiB",
            first.rss_kib().unwrap_or(0),
            standby.rss_kib().unwrap_or(0)
        );

        // kill -9 of the leader, with a change pending.
        first.kill().await?;
        let killed = Instant::now();
        runtimes
            .patch(
                "web",
                &PatchParams::default(),
                &Patch::Merge(json!({ "spec": { "image": { "tag": NEW_TAG } } })),
            )
            .await?;
        wait_for_holder(&admin, &lease, &b.name, TAKEOVER).await?;
        println!(
            "failover after kill -9: {:.1}s",
            killed.elapsed().as_secs_f64()
        );
        wait_settled(&runtimes, "web", NEW_TAG).await?;
        // The upgrade's Events, once each, from the new leader; the old ones unchanged.
        let events_after = wait_for("the upgrade's Events", CONVERGE, async || {
            let seen = events_about(&events, &uid).await?;
            Ok(seen
                .iter()
                .any(|(r, _)| r == "RuntimeUpgradeCompleted")
                .then_some(seen))
        })
        .await?;
        assert_eq!(
            &events_after[..events_before_kill.len()],
            &events_before_kill[..]
        );
        let new: Vec<_> = events_after[events_before_kill.len()..].to_vec();
        for reason in ["RuntimeUpgradeStarted", "RuntimeUpgradeCompleted"] {
            let said: Vec<_> = new.iter().filter(|(r, _)| r == reason).collect();
            assert_eq!(said.len(), 1, "{reason} once: {new:?}");
            assert_eq!(said[0].1, b.name, "{reason} from the new leader: {new:?}");
        }

        // SIGTERM hand-over: the old leader comes back as a standby; the
        // leader stops gracefully, releases the lease, exits 0.
        first.restart()?;
        first.wait_ready(CONVERGE).await?;
        assert_eq!(first.metric(LEADER).await?, 0.0, "back as the standby");
        let events_before_term = events_about(&events, &uid).await?;
        let terminated = Instant::now();
        let status = standby.terminate(Duration::from_secs(30)).await?;
        assert!(status.success(), "a graceful stop exits 0: {status}");
        wait_for_holder(&admin, &lease, &a.name, TAKEOVER).await?;
        println!(
            "hand-over after SIGTERM: {:.1}s",
            terminated.elapsed().as_secs_f64()
        );
        // The new leader reconciles what is there, and says nothing new.
        wait_for("the new leader to reconcile", CONVERGE, async || {
            Ok(matches!(first.scrape().await, Ok(t) if reconciles(&t) >= 1.0).then_some(()))
        })
        .await?;
        tokio::time::sleep(Duration::from_secs(3)).await;
        assert_eq!(
            events_about(&events, &uid).await?,
            events_before_term,
            "no Event repeated"
        );
        Ok::<(), BoxError>(())
    }
    .await;
    if outcome.is_err() {
        eprintln!("---- replica a ----\n{}", first.log_text());
        if let Some(r) = &second {
            eprintln!("---- replica b ----\n{}", r.log_text());
        }
    }
    drop(first);
    drop(second);
    a.remove().await;
    b.remove().await;
    ns.delete().await;
    outcome
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn a_leader_that_loses_its_lease_exits_at_once() -> TestResult {
    require_cluster();
    let ns = TestNamespace::create("usurped").await?;
    let admin = ns.client.clone();
    install(&admin).await?;
    install_leader_election_rbac(&admin).await?;
    let identity = Identity::create(&admin, &format!("{}-op", ns.name), true).await?;
    let lease = ns.name.clone();
    let mut leader = Replica::start(
        &admin,
        &identity,
        &[
            format!("--namespace={}", ns.name),
            format!("--leader-elect-resource-name={lease}"),
        ],
    )
    .await?;
    let outcome = async {
        // Leading in its own view, not only in the Lease's: it may have
        // written the Lease and not yet seen the answer.
        wait_for_holder(&admin, &lease, &identity.name, TAKEOVER).await?;
        wait_for(
            "the operator to report that it leads",
            TAKEOVER,
            async || Ok(matches!(leader.metric(LEADER).await, Ok(v) if v == 1.0).then_some(())),
        )
        .await?;
        // Someone else takes the Lease (as after a partition healed).
        let now = k8s_openapi::jiff::Timestamp::now();
        let usurper: Lease = serde_json::from_value(json!({
            "apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
            "metadata": { "name": lease, "namespace": "trussium-system" },
            "spec": {
                "holderIdentity": "usurper",
                "leaseDurationSeconds": 3600,
                "acquireTime": now.to_string(),
                "renewTime": now.to_string(),
            },
        }))?;
        Api::<Lease>::namespaced(admin.clone(), "trussium-system")
            .patch(
                &lease,
                &PatchParams::apply("usurper").force(),
                &Patch::Apply(&usurper),
            )
            .await?;
        // It notices at its next renewal (within the lease duration) and
        // exits non-zero, without draining.
        let status = wait_for("the usurped leader to exit", TAKEOVER, async || {
            Ok(leader.try_exit().ok().flatten())
        })
        .await?;
        assert!(
            !status.success(),
            "losing the lease is a failure exit: {status}"
        );
        assert!(
            leader
                .log_text()
                .contains("lost leadership: another replica holds the lease"),
            "says why: {}",
            leader.log_text()
        );
        assert_eq!(
            lease_holder(&admin, &lease).await?.as_deref(),
            Some("usurper"),
            "and does not release a lease it no longer holds"
        );
        Ok::<(), BoxError>(())
    }
    .await;
    if outcome.is_err() {
        eprintln!("---- operator ----\n{}", leader.log_text());
    }
    drop(leader);
    identity.remove().await;
    ns.delete().await;
    outcome
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn a_leader_cut_off_from_the_api_server_exits_within_the_renew_deadline() -> TestResult {
    require_cluster();
    let ns = TestNamespace::create("cut-off").await?;
    let admin = ns.client.clone();
    install(&admin).await?;
    install_leader_election_rbac(&admin).await?;
    let identity = Identity::create(&admin, &format!("{}-op", ns.name), true).await?;
    let lease = ns.name.clone();
    let direct = identity.kubeconfig(&admin).await?;
    let relay = Relay::start(api_server_address(&direct)?).await?;
    let mut leader = Replica::start_with_kubeconfig(
        &identity.name,
        relay.kubeconfig(&direct)?,
        &[
            format!("--namespace={}", ns.name),
            format!("--leader-elect-resource-name={lease}"),
        ],
    )?;
    let outcome = async {
        wait_for(
            "the operator to report that it leads",
            TAKEOVER,
            async || Ok(matches!(leader.metric(LEADER).await, Ok(v) if v == 1.0).then_some(())),
        )
        .await?;
        // Nothing answers any more, nothing fails either: without a deadline
        // of its own a renewal waits forever, while a standby would take the
        // lease over once it expires (15 s).
        relay.cut();
        let cut = Instant::now();
        let status = wait_for(
            "the cut-off leader to exit",
            Duration::from_secs(30),
            async || Ok(leader.try_exit().ok().flatten()),
        )
        .await?;
        let exited = k8s_openapi::jiff::Timestamp::now();
        assert!(!status.success(), "losing the lease is a failure exit: {status}");
        assert!(
            leader
                .log_text()
                .contains("lost leadership: the lease was not renewed within the renew deadline (10s)"),
            "says why: {}",
            leader.log_text()
        );
        // Held on for the renew deadline (10 s) after its last accepted
        // renewal, and was gone before the lease (15 s) could pass to a
        // standby. The Lease may show one renewal more than the operator
        // saw accepted (the cut lost its answer), a retry period (2 s) later.
        let renewed = lease_spec(&admin, &lease)
            .await?
            .and_then(|s| s.renew_time)
            .ok_or("the Lease has no renewTime")?
            .0;
        let after_renewal = exited.duration_since(renewed).as_secs_f64();
        eprintln!(
            "cut-off leader exited {:.1}s after the cut, {after_renewal:.1}s after its last renewal",
            cut.elapsed().as_secs_f64()
        );
        assert!(
            (7.5..15.0).contains(&after_renewal),
            "exited {after_renewal:.1}s after the Lease's last renewal; the renew deadline is 10 s, the lease 15 s"
        );
        Ok::<(), BoxError>(())
    }
    .await;
    if outcome.is_err() {
        eprintln!("---- operator ----\n{}", leader.log_text());
    }
    drop(leader);
    drop(relay);
    identity.remove().await;
    ns.delete().await;
    outcome
}
