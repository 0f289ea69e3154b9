//! Faults the operator survives without losing or repeating an Event: a
//! `kill -9` while it converges many runtimes, its Secret permission
//! revoked and restored (or missing from the start: it must still stop), the
//! API server out of reach from the start (it must still stop), a second
//! writer fighting over a field it owns, and
//! an object someone else created under a runtime's name. (API server and
//! etcd restarts need the cluster to themselves: see the
//! `control_plane_faults` test binary.)
//!
//! Recovery times and write rates are printed (`--nocapture` shows them);
//! they are figures, not assertions.

use std::time::{Duration, Instant};

use k8s_openapi::api::admissionregistration::v1::ValidatingWebhookConfiguration;
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{ConfigMap, ServiceAccount};
use k8s_openapi::api::networking::v1::NetworkPolicy;
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding};
use kube::api::{DeleteParams, ListParams, Patch, PatchParams, PostParams};
use kube::{Api, ResourceExt};
use serde_json::json;
use trussium_api::condition_type;
use trussium_e2e::{
    BoxError, CONVERGE, Harness, OLD_TAG, Operator, QUIET_AFTER_SETTLING, TestResult, all_ready,
    check_first_rollout_events, condition, describe_requests, ensure, events_by_runtime,
    openai_runtime, repo_root, service_account_username, wait_for, with_operator,
    with_operator_behind_relay,
};

const N: &str = "Normal";
const W: &str = "Warning";

/// How many runtimes the crash test converges (`TRUSSIUM_FAULT_RUNTIMES`
/// overrides; the contract's figure is 200).
fn fault_runtimes() -> usize {
    std::env::var("TRUSSIUM_FAULT_RUNTIMES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(200)
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn a_killed_operator_loses_and_repeats_no_event() -> TestResult {
    let count = fault_runtimes();
    with_operator(
        "fault-kill",
        &["--progress-deadline-seconds=120"],
        async |h| {
            for i in 0..count {
                h.create_runtime(openai_runtime(&format!("rt-{i:03}"), OLD_TAG, 1, None))
                    .await?;
            }
            // Two crashes while it converges: after a quarter and after half of
            // the runtimes have a status, wherever each reconcile happens to be
            // (between publishing Events and writing the status included).
            let mut last_crash = Instant::now();
            for share in [4, 2] {
                let runtimes = h.runtimes();
                wait_for(
                    &format!("1/{share} of the runtimes to have a status"),
                    Duration::from_secs(600),
                    async || {
                        let list = runtimes.list(&ListParams::default()).await?.items;
                        let reported = list.iter().filter(|rt| rt.status.is_some()).count();
                        Ok((reported * share >= count).then_some(()))
                    },
                )
                .await?;
                h.operator.crash_and_restart().await?;
                last_crash = Instant::now();
            }
            let runtimes = wait_for(
                &format!("all {count} runtimes to be Ready"),
                Duration::from_secs(900),
                async || Ok(all_ready(&h.runtimes(), count).await?),
            )
            .await?;
            eprintln!(
                "fault-kill: {count} runtimes Ready {:.1}s after the second kill -9",
                last_crash.elapsed().as_secs_f64()
            );
            // Events may trail the status that records them by nothing (they are
            // published first), so what is there now is complete.
            let events = events_by_runtime(&h.events()).await?;
            check_first_rollout_events(&runtimes, &events)?;
            // And nothing more comes.
            tokio::time::sleep(QUIET_AFTER_SETTLING).await;
            ensure(
                events_by_runtime(&h.events()).await? == events,
                "Events changed after convergence",
            )
        },
    )
    .await
}

/// A ServiceAccount of the test's own with a copy of the operator's
/// ClusterRole, so that revoking a permission touches no other test.
struct OwnAccount {
    role: String,
    roles: Api<ClusterRole>,
    bindings: Api<ClusterRoleBinding>,
    rules: serde_json::Value,
}

impl OwnAccount {
    async fn create(h: &Harness, account: &str) -> Result<Self, BoxError> {
        let client = h.ns.client.clone();
        let sa: ServiceAccount = serde_json::from_value(json!({"metadata": {"name": account}}))?;
        h.api::<ServiceAccount>()
            .create(&PostParams::default(), &sa)
            .await?;
        let path = repo_root().join("deploy/rbac/cluster_role.yaml");
        let mut role: serde_json::Value = serde_yaml::from_str(&std::fs::read_to_string(&path)?)?;
        let name = format!("trussium-fault-{}", h.namespace());
        role["metadata"] = json!({ "name": name });
        let rules = role["rules"].clone();
        let roles: Api<ClusterRole> = Api::all(client.clone());
        roles
            .create(&PostParams::default(), &serde_json::from_value(role)?)
            .await?;
        let bindings: Api<ClusterRoleBinding> = Api::all(client);
        let binding = json!({
            "metadata": { "name": name },
            "roleRef": { "apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": name },
            "subjects": [{ "kind": "ServiceAccount", "name": account, "namespace": h.namespace() }],
        });
        bindings
            .create(&PostParams::default(), &serde_json::from_value(binding)?)
            .await?;
        Ok(OwnAccount {
            role: name,
            roles,
            bindings,
            rules,
        })
    }

    /// Sets the role's rules to the operator's, minus those on `resource`
    /// when `without` is given.
    async fn set_rules(&self, without: Option<&str>) -> TestResult {
        let rules: Vec<serde_json::Value> = self
            .rules
            .as_array()
            .cloned()
            .unwrap_or_default()
            .into_iter()
            .filter(|r| {
                without.is_none_or(|w| {
                    !r["resources"]
                        .as_array()
                        .is_some_and(|a| a.iter().any(|x| x == w))
                })
            })
            .collect();
        self.roles
            .patch(
                &self.role,
                &PatchParams::default(),
                &Patch::Merge(json!({ "rules": rules })),
            )
            .await?;
        Ok(())
    }

    async fn delete(&self) {
        let _ = self
            .bindings
            .delete(&self.role, &DeleteParams::default())
            .await;
        let _ = self
            .roles
            .delete(&self.role, &DeleteParams::default())
            .await;
    }
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn a_revoked_secret_permission_warns_once_and_recovers() -> TestResult {
    with_operator("fault-rbac", &[], async |h| {
        let account = OwnAccount::create(h, "fault-operator").await?;
        let outcome = revoked_secret_permission(h, &account).await;
        account.delete().await;
        outcome
    })
    .await
}

async fn revoked_secret_permission(h: &mut Harness, account: &OwnAccount) -> TestResult {
    h.operator.stop().await;
    // An open watch outlives a revoked permission: the refusal shows when the
    // Secret watch is opened again, every 10 s here.
    h.operator = Operator::start_as(
        &h.ns.client,
        h.namespace(),
        "fault-operator",
        h.namespace(),
        &["--watch-timeout-seconds=10"],
    )
    .await?;
    let user = service_account_username(h.namespace(), "fault-operator");
    h.create_secret("creds", "api-key", "rbac-test-value")
        .await?;
    let rt = h
        .create_runtime(openai_runtime("x", OLD_TAG, 1, Some("creds")))
        .await?;
    h.wait_ready("x").await?;
    let first = [(N, "RuntimeProgressing"), (N, "RuntimeReady")];
    h.expect_events(&rt, &first).await?;

    // Revoked. Nothing changes for the runtime: the refused Secret watch
    // alone must make the operator check again and say so.
    account.set_rules(Some("secrets")).await?;
    let revoked_at = Instant::now();
    let failed = h
        .wait_condition(
            "x",
            condition_type::CONFIGURATION_VALID,
            "False",
            Some("ReferenceCheckFailed"),
            CONVERGE,
        )
        .await?;
    let message = failed
        .status
        .as_ref()
        .and_then(|s| s.condition(condition_type::CONFIGURATION_VALID))
        .map(|c| c.message.clone())
        .unwrap_or_default();
    ensure(
        message.contains("forbidden") || message.contains("Forbidden"),
        format!("ReferenceCheckFailed message: {message}"),
    )?;
    eprintln!(
        "fault-rbac: ReferenceCheckFailed {:.1}s after the revocation",
        revoked_at.elapsed().as_secs_f64()
    );
    let warned = [
        (N, "RuntimeProgressing"),
        (N, "RuntimeReady"),
        (W, "ConfigurationInvalid"),
    ];
    h.expect_events(&rt, &warned).await?;

    // An owned object deleted now is not rebuilt: the check, read fresh
    // while the watch is refused, keeps failing. It keeps retrying (every
    // 10 s) and keeps being refused: still one Warning.
    let retries = h.mark();
    h.api::<ConfigMap>()
        .delete("x", &DeleteParams::default())
        .await?;
    wait_for("two more refused checks", CONVERGE, async || {
        Ok((forbidden_secret_reads(h, &user, &retries)? >= 2).then_some(()))
    })
    .await?;
    h.events_stay(&rt, &warned).await?;
    ensure(
        h.api::<ConfigMap>().get_opt("x").await?.is_none(),
        "an owned object was rebuilt while the check failed",
    )?;

    // Restored: the next retry reads the Secret and recovers.
    account.set_rules(None).await?;
    let restored_at = Instant::now();
    let rt = h.wait_ready("x").await?;
    h.wait_exists::<ConfigMap>("the ConfigMap", "x").await?;
    eprintln!(
        "fault-rbac: Ready {:.1}s after the permission was restored",
        restored_at.elapsed().as_secs_f64()
    );
    let recovered = [
        (N, "RuntimeProgressing"),
        (N, "RuntimeReady"),
        (W, "ConfigurationInvalid"),
        (N, "RuntimeRecovered"),
        (N, "RuntimeReady"),
    ];
    h.expect_events(&rt, &recovered).await?;
    h.events_stay(&rt, &recovered).await
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn an_operator_whose_caches_never_fill_still_stops_when_told() -> TestResult {
    with_operator("fault-unsynced", &[], async |h| {
        let account = OwnAccount::create(h, "unsynced-operator").await?;
        let outcome = stops_before_its_caches_fill(h, &account).await;
        account.delete().await;
        outcome
    })
    .await
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn an_operator_that_cannot_reach_the_api_server_still_stops_when_told() -> TestResult {
    with_operator_behind_relay("fault-unreachable", &[], async |h| {
        h.operator.stop().await;
        let Some(relay) = h.relay.as_ref() else {
            return Err("the harness started no relay".into());
        };
        // Connections are accepted and never answered: no list ever arrives.
        relay.cut();
        let namespace = h.ns.name.clone();
        h.operator = Operator::start_behind(&h.ns.client, &namespace, &[], relay).await?;
        wait_for("the operator to start", CONVERGE, async || {
            Ok(h.operator.log_text().contains("starting").then_some(()))
        })
        .await?;
        // Its watches have been waiting a while by now.
        tokio::time::sleep(Duration::from_secs(2)).await;
        let asked = Instant::now();
        let exited = h.operator.terminate(Duration::from_secs(10)).await;
        relay.heal();
        ensure(
            exited,
            "the operator did not exit within 10 s of SIGTERM while the API server never answered",
        )?;
        eprintln!(
            "fault-unreachable: exited {:.1}s after SIGTERM",
            asked.elapsed().as_secs_f64()
        );
        ensure(
            h.operator.log_text().contains("stopped"),
            "the operator's log does not say it stopped",
        )
    })
    .await
}

/// Without its Secret permission from the start, the operator's caches never
/// all fill and a runtime's reconcile waits for them. SIGTERM must still end
/// the process, as a rollout or a node drain expects, not a SIGKILL after the
/// grace period.
async fn stops_before_its_caches_fill(h: &mut Harness, account: &OwnAccount) -> TestResult {
    h.operator.stop().await;
    account.set_rules(Some("secrets")).await?;
    let user = service_account_username(h.namespace(), "unsynced-operator");
    let mark = h.mark();
    h.operator = Operator::start_as(
        &h.ns.client,
        h.namespace(),
        "unsynced-operator",
        h.namespace(),
        &[],
    )
    .await?;
    h.create_runtime(openai_runtime("x", OLD_TAG, 1, None))
        .await?;
    wait_for("the Secret watch to be refused", CONVERGE, async || {
        let refused = h.audit.events_since(&mark)?.iter().any(|e| {
            e.stage == "ResponseComplete"
                && e.user.username == user
                && e.resource() == "secrets"
                && e.code() == 403
        });
        Ok(refused.then_some(()))
    })
    .await?;
    // The reconcile of "x" is waiting for the caches by now (it was
    // triggered by the runtime's own list), and nothing was written.
    tokio::time::sleep(Duration::from_secs(2)).await;
    ensure(
        h.api::<ConfigMap>().get_opt("x").await?.is_none(),
        "the operator wrote before its caches were full",
    )?;
    let asked = Instant::now();
    let exited = h.operator.terminate(Duration::from_secs(10)).await;
    ensure(
        exited,
        "the operator did not exit within 10 s of SIGTERM while its caches were not full",
    )?;
    eprintln!(
        "fault-unsynced: exited {:.1}s after SIGTERM",
        asked.elapsed().as_secs_f64()
    );
    ensure(
        h.operator.log_text().contains("stopped"),
        "the operator's log does not say it stopped",
    )
}

/// Refused reads of one Secret by `user` in the namespace since `mark` (the
/// reference check; the refused watch is not counted).
fn forbidden_secret_reads(
    h: &Harness,
    user: &str,
    mark: &trussium_e2e::AuditMark,
) -> Result<usize, BoxError> {
    Ok(h.audit
        .events_since(mark)?
        .iter()
        .filter(|e| {
            e.stage == "ResponseComplete"
                && e.user.username == user
                && e.resource() == "secrets"
                && e.verb == "get"
                && e.code() == 403
                && e.object_ref.as_ref().and_then(|o| o.namespace.as_deref()) == Some(h.namespace())
        })
        .count())
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn a_second_writer_does_not_make_the_operator_loop() -> TestResult {
    const FIGHT: Duration = Duration::from_secs(20);
    const EVERY: Duration = Duration::from_millis(200);
    with_operator("fault-fight", &[], async |h| {
        let rt = h.create_runtime(openai_runtime("x", OLD_TAG, 1, None)).await?;
        h.wait_ready("x").await?;
        let first = [(N, "RuntimeProgressing"), (N, "RuntimeReady")];
        h.expect_events(&rt, &first).await?;
        h.wait_until_quiet(Duration::from_secs(2)).await?;

        // Another controller insists on a label value the operator applies.
        let deployments = h.api::<Deployment>();
        let mark = h.mark();
        let started = Instant::now();
        let mut fights = 0_u32;
        while started.elapsed() < FIGHT {
            let value = format!("fighter-{fights}");
            deployments
                .patch(
                    "x",
                    &PatchParams::default(),
                    &Patch::Merge(json!({"metadata": {"labels": {"app.kubernetes.io/component": value}}})),
                )
                .await?;
            fights += 1;
            tokio::time::sleep(EVERY).await;
        }
        let fought = started.elapsed().as_secs_f64();
        let all_writes = h.operator_writes_since(&mark).await?;
        // One Warning says who keeps changing it: the same field, so once.
        let (events, writes): (Vec<_>, Vec<_>) =
            all_writes.into_iter().partition(|e| e.resource() == "events");
        ensure(
            events.len() == 1,
            format!("ChangeReverted Events: {}", describe_requests(&events)),
        )?;
        let deployment_writes = writes
            .iter()
            .filter(|e| e.resource() == "deployments")
            .count();
        eprintln!(
            "fault-fight: over {fought:.1}s the second writer wrote {fights} times ({:.1}/s), \
             the operator {deployment_writes} times ({:.2}/s) and {} writes in all",
            f64::from(fights) / fought,
            deployment_writes as f64 / fought,
            writes.len()
        );
        // Backing off: reverts 1, 2, 4, 8 s apart (at 0, 1, 3, 7, 15 s),
        // not one per change; never a loop of its own, and no status or
        // Event churn.
        ensure(
            (2..=7).contains(&deployment_writes),
            format!(
                "the operator wrote the Deployment {deployment_writes} times against {fights} changes \
                 in {fought:.1}s (expected 2 to 7: it reverts, backing off)"
            ),
        )?;
        ensure(
            writes.iter().all(|e| e.resource() == "deployments"),
            format!("the fight made the operator write other things: {}", describe_requests(&writes)),
        )?;
        let reverted = [first[0], first[1], (W, "ChangeReverted")];
        let seen = h.expect_events(&rt, &reverted).await?;
        let note = &seen[2].note;
        ensure(
            note.contains("Deployment x: /metadata/labels/app.kubernetes.io/component was changed by"),
            format!("ChangeReverted note: {note}"),
        )?;
        h.events_stay(&rt, &reverted).await?;
        // Once the fight ends, the operator's value is back when the backoff
        // is due (at 31 s), holds, and the operator goes quiet.
        h.wait_object::<Deployment>("the operator's label back", "x", CONVERGE, |d| {
            d.labels().get("app.kubernetes.io/component").map(String::as_str) == Some("runtime")
        })
        .await?;
        h.wait_until_quiet(Duration::from_secs(3)).await?;
        Ok(())
    })
    .await
}

/// A server failure (5xx) on applying is retried before it is reported: a
/// restarted API server fails new Services for a moment ("range is full",
/// 500), which is not the runtime's failure. Here an admission webhook that
/// nobody answers, failing closed, makes the API server answer every
/// ConfigMap created in the test namespace with a 500 until it is removed.
#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn a_server_failure_is_retried_before_it_is_reported() -> TestResult {
    with_operator("fault-server", &[], async |h| {
        let webhooks: Api<ValidatingWebhookConfiguration> = Api::all(h.ns.client.clone());
        let name = format!("trussium-unanswered-{}", h.namespace());
        let webhook: ValidatingWebhookConfiguration = serde_json::from_value(json!({
            "metadata": {"name": name},
            "webhooks": [{
                "name": "unanswered.trussium.io",
                // Nothing listens on port 1: connection refused at once.
                "clientConfig": {"url": "https://127.0.0.1:1/validate"},
                "rules": [{"apiGroups": [""], "apiVersions": ["v1"],
                    "operations": ["CREATE"], "resources": ["configmaps"]}],
                "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": h.namespace()}},
                "failurePolicy": "Fail",
                "sideEffects": "None",
                "admissionReviewVersions": ["v1"],
                "timeoutSeconds": 1,
            }],
        }))?;
        webhooks.create(&PostParams::default(), &webhook).await?;
        let outcome = async {
            let created = Instant::now();
            let rt = h
                .create_runtime(openai_runtime("x", OLD_TAG, 1, None))
                .await?;
            let failed = h
                .wait_condition(
                    "x",
                    condition_type::DEGRADED,
                    "True",
                    Some("ReconciliationFailed"),
                    CONVERGE,
                )
                .await?;
            // Reported by the retry, not the first attempt.
            let log = h.operator.log_text();
            ensure(
                log.contains("(retrying before reporting it)") && log.contains("(500)"),
                "the first 500 was not retried before it was reported",
            )?;
            ensure(
                created.elapsed() >= Duration::from_secs(9),
                format!(
                    "reported {:.1} s after the runtime was created: before the retry",
                    created.elapsed().as_secs_f64()
                ),
            )?;
            let message = condition(&failed, condition_type::DEGRADED)
                .map(|c| c.message.clone())
                .unwrap_or_default();
            ensure(
                message.contains("failed calling webhook"),
                format!("the status does not say why it failed: {message}"),
            )?;
            h.expect_events(&rt, &[(W, "ReconciliationFailed")]).await?;
            // The webhook goes: it converges.
            webhooks.delete(&name, &DeleteParams::default()).await?;
            let rt = h.wait_ready("x").await?;
            h.expect_events(
                &rt,
                &[
                    (W, "ReconciliationFailed"),
                    (N, "RuntimeProgressing"),
                    (N, "RuntimeRecovered"),
                    (N, "RuntimeReady"),
                ],
            )
            .await?;
            Ok::<(), BoxError>(())
        }
        .await;
        let _ = webhooks.delete(&name, &DeleteParams::default()).await;
        outcome
    })
    .await
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn an_object_someone_else_created_is_never_taken_over() -> TestResult {
    // A resync every 5 s: how a stalled runtime notices that the foreign
    // object, which no watch shows, is gone.
    with_operator("fault-foreign", &["--resync-seconds=5"], async |h| {
        let config_maps = h.api::<ConfigMap>();
        let foreign: ConfigMap = serde_json::from_value(json!({
            "metadata": {"name": "x", "labels": {"team": "someone-else"}},
            "data": {"owner": "someone else"},
        }))?;
        let foreign = config_maps.create(&PostParams::default(), &foreign).await?;
        // An optional kind the runtime does not want: not ours to delete.
        let policy: NetworkPolicy = serde_json::from_value(json!({
            "metadata": {"name": "x"},
            "spec": {"podSelector": {}, "policyTypes": ["Ingress"]},
        }))?;
        let policy = h
            .api::<NetworkPolicy>()
            .create(&PostParams::default(), &policy)
            .await?;
        h.create_secret("creds", "api-key", "foreign-test-value")
            .await?;
        let mark = h.mark();
        let rt = h
            .create_runtime(openai_runtime("x", OLD_TAG, 1, Some("creds")))
            .await?;

        let stuck = h
            .wait_condition(
                "x",
                condition_type::DEGRADED,
                "True",
                Some("ReconciliationFailed"),
                CONVERGE,
            )
            .await?;
        let message = condition(&stuck, condition_type::DEGRADED)
            .map(|c| c.message.clone())
            .unwrap_or_default();
        ensure(
            message.contains("ConfigMap") && message.contains("not controlled by"),
            format!("the status does not say why it is stuck: {message}"),
        )?;
        let stalled = condition(&stuck, condition_type::STALLED)
            .map(|c| (c.status.clone(), c.reason.clone()))
            .unwrap_or_default();
        ensure(
            stalled == ("True".to_string(), "NameConflict".to_string()),
            format!("Stalled: {stalled:?}"),
        )?;
        h.expect_events(&rt, &[(W, "ReconciliationFailed")]).await?;
        // It looks again (at each resync) and stays stuck, saying so once.
        let retries = h.mark();
        h.wait_for_reconciles("creds", &retries, 1).await?;
        h.events_stay(&rt, &[(W, "ReconciliationFailed")]).await?;
        let now = config_maps.get("x").await?;
        ensure(
            now.resource_version() == foreign.resource_version()
                && now.owner_references().is_empty(),
            "the foreign ConfigMap was changed",
        )?;
        // It tried to create its ConfigMap (an apply that only creates) and
        // was refused, each time, and read what is there once per refusal;
        // nothing of someone else's was written.
        let requests = h.operator_requests_since(&mark).await?;
        let theirs: Vec<_> = requests
            .iter()
            .filter(|e| matches!(e.resource().as_str(), "configmaps" | "networkpolicies"))
            // The caches' lists and watches of the kinds name no object.
            .filter(|e| !matches!(e.verb.as_str(), "list" | "watch"))
            .cloned()
            .collect();
        let refused = theirs
            .iter()
            .filter(|e| e.verb == "patch" && e.code() == 409)
            .count();
        let reads = theirs.iter().filter(|e| e.verb == "get").count();
        ensure(
            refused > 0 && reads == refused && refused + reads == theirs.len(),
            format!(
                "expected refused creations of the ConfigMap, each followed by one read, and nothing else: {}",
                describe_requests(&theirs)
            ),
        )?;

        // Out of the way: it converges, and still leaves the policy alone.
        config_maps.delete("x", &DeleteParams::default()).await?;
        let rt = h.wait_ready("x").await?;
        h.expect_any_events(
            &rt.uid().unwrap_or_default(),
            &[vec![
                (W, "ReconciliationFailed"),
                (N, "RuntimeProgressing"),
                (N, "RuntimeRecovered"),
                (N, "RuntimeReady"),
            ]],
        )
        .await?;
        let still = h.api::<NetworkPolicy>().get("x").await?;
        ensure(
            still.resource_version() == policy.resource_version(),
            "the foreign NetworkPolicy was changed or deleted",
        )?;
        let owned = h.api::<ConfigMap>().get("x").await?;
        ensure(
            owned
                .owner_references()
                .iter()
                .any(|o| Some(&o.uid) == rt.metadata.uid.as_ref()),
            "the recreated ConfigMap is not the runtime's",
        )
    })
    .await
}
