//! `kubectl trussium check [-n NS] [--operator-namespace NS] [-o json|yaml]`:
//! one checklist a person reads at a glance. Each check is a pure judgment
//! of what was read; a check whose premise failed is not run (and says why).

use clap::Args;
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use k8s_openapi::jiff::Timestamp;
use kube::{Api, CustomResourceExt, Resource};
use serde::Serialize;
use trussium_api::TrussiumRuntime;
use trussium_api::crd::{STORAGE_VERSION, is_established, version_of};
use trussium_api::image::split_reference;
use trussium_api::kubernetes::{Minor, Outside, SupportedRange, supported_range};
use trussium_api::operator::{LEASE_NAME_DEFAULT, OperatorArgs};
use trussium_api::status::ConditionStatus;

use crate::access::{self, Permission};
use crate::age;
use crate::cli::{GlobalFlags, NamespaceName};
use crate::client::{Target, connect};
use crate::error::{CRDS, DEPLOYMENTS, Error, LEASES, Request, Result};
use crate::manifests;
use crate::output::{self, OutputFormat, Palette};
use crate::release::{VERSION, compare};
use crate::terminal;

#[derive(Args, Debug)]
pub struct CheckArgs {
    /// The namespace the operator is installed in (default: trussium-system)
    #[arg(long, value_name = "NAMESPACE")]
    pub operator_namespace: Option<NamespaceName>,

    /// Print machine-readable output instead of the checklist
    #[arg(short = 'o', long, value_enum, value_name = "FORMAT")]
    pub output: Option<OutputFormat>,
}

pub const HELP: &str = "\
One line per check, ✓ or ✗ (or ! for a warning), and for each ✗ or ! the
next step: the cluster answers, with a Kubernetes version this release
supports (outside the range: a warning, not a failure); the CRD is installed at the plugin's version; the operator
Deployment is available and of the plugin's version; a leader holds a fresh
Lease; the operator watches the namespace (-n, default: the context's);
you may read and patch runtimes there (with --as USER: what USER may, and
so which commands it may run). The operator is looked for in
--operator-namespace (default: trussium-system).

Examples:
  kubectl trussium check
  kubectl trussium check -n team-a
  kubectl trussium check -o json";

/// What one check found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "result")]
pub enum Outcome {
    Passed {
        message: String,
    },
    /// Works, but outside what is supported: shown, not counted as a failure.
    #[serde(rename_all = "camelCase")]
    Warning {
        message: String,
        next_step: String,
    },
    #[serde(rename_all = "camelCase")]
    Failed {
        message: String,
        next_step: String,
    },
    /// Not run: something it needs failed before.
    Skipped {
        message: String,
    },
}

use Outcome::{Failed, Passed, Skipped, Warning};

/// One line of the checklist.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub check: &'static str,
    #[serde(flatten)]
    pub outcome: Outcome,
}

fn passed(message: impl Into<String>) -> Outcome {
    Passed {
        message: message.into(),
    }
}

fn failed(message: impl Into<String>, next_step: impl Into<String>) -> Outcome {
    Failed {
        message: message.into(),
        next_step: next_step.into(),
    }
}

pub async fn run(flags: &GlobalFlags, args: &CheckArgs, palette: Palette) -> Result<()> {
    let operator_namespace = match &args.operator_namespace {
        Some(ns) => ns.to_string(),
        None => manifests::default_namespace().map_err(|e| Error::Config(e.to_string()))?,
    };
    let findings = gather(flags, &operator_namespace).await;
    let failures = findings
        .iter()
        .filter(|f| matches!(f.outcome, Failed { .. }))
        .count();
    match args.output {
        Some(format) => output::print(&output::render_machine(
            &serde_json::json!({ "ok": failures == 0, "checks": findings }),
            format,
        )?)?,
        None => output::print(&render(&findings, palette))?,
    }
    if failures > 0 {
        return Err(Error::ChecksFailed {
            failed: failures,
            total: findings.len(),
        });
    }
    Ok(())
}

/// The names of the checks, in order.
pub const CHECKS: [&str; 7] = [
    "cluster",
    "crd",
    "operator",
    "operator version",
    "leader",
    "watched namespace",
    "access",
];

/// Runs every check it can.
async fn gather(flags: &GlobalFlags, operator_namespace: &str) -> Vec<Finding> {
    let mut outcomes: Vec<Outcome> = Vec::new();
    let target = match connect(flags).await {
        Ok(target) => target,
        Err(e) => {
            outcomes.push(failed(e.to_string(), next_step_for(&e)));
            return findings(outcomes, "the cluster cannot be reached");
        }
    };
    match target.client.apiserver_version().await {
        Ok(info) => outcomes.push(judge_server(&target.server, &info, supported_range())),
        Err(e) => {
            let e = target.fail(Request::new("get", "version"), e);
            outcomes.push(failed(e.to_string(), next_step_for(&e)));
            return findings(outcomes, "the cluster does not answer");
        }
    }
    let namespace = target.namespace.clone();
    let deployment_name = manifests::deployment_name().unwrap_or_default();

    let crds: Api<CustomResourceDefinition> = Api::all(target.client.clone());
    let crd_name = TrussiumRuntime::crd_name();
    outcomes.push(
        match crds
            .get_opt(crd_name)
            .await
            .map_err(|e| target.fail(Request::new("get", CRDS).name(crd_name), e))
        {
            Ok(crd) => judge_crd(crd.as_ref(), VERSION),
            Err(e) => failed(e.to_string(), next_step_for(&e)),
        },
    );

    let deployments: Api<Deployment> = Api::namespaced(target.client.clone(), operator_namespace);
    let deployment = deployments.get_opt(&deployment_name).await.map_err(|e| {
        target.fail(
            Request::new("get", DEPLOYMENTS)
                .namespace(Some(operator_namespace))
                .name(&deployment_name),
            e,
        )
    });
    let deployment = match deployment {
        Ok(Some(d)) => d,
        Ok(None) => {
            // An operator may run outside the cluster (make run, make demo,
            // a debugger): its Lease tells. Unreadable counts as none.
            let leases: Api<Lease> = Api::namespaced(target.client.clone(), operator_namespace);
            let lease = leases.get_opt(LEASE_NAME_DEFAULT).await.ok().flatten();
            outcomes.extend(judge_missing_deployment(
                lease.as_ref(),
                operator_namespace,
                &deployment_name,
                Timestamp::now(),
            ));
            outcomes.push(access(&target, &namespace).await);
            return findings(outcomes, "");
        }
        Err(e) => {
            outcomes.push(failed(e.to_string(), next_step_for(&e)));
            outcomes.extend(skip(3, "the operator Deployment could not be read"));
            outcomes.push(access(&target, &namespace).await);
            return findings(outcomes, "");
        }
    };
    outcomes.push(judge_deployment(&deployment));
    outcomes.push(judge_operator_version(&deployment, VERSION));
    let (args, env) = container_args(&deployment);
    let operator_args = OperatorArgs::read(&args, &env);
    outcomes.push(lease(&target, &operator_args, &deployment).await);
    outcomes.push(judge_scope(&operator_args, &namespace));
    outcomes.push(access(&target, &namespace).await);
    findings(outcomes, "")
}

/// Pairs the outcomes with [`CHECKS`], the rest skipped for `why`.
fn findings(mut outcomes: Vec<Outcome>, why: &str) -> Vec<Finding> {
    let rest = CHECKS.len().saturating_sub(outcomes.len());
    outcomes.extend(skip(rest, why));
    CHECKS
        .iter()
        .zip(outcomes)
        .map(|(check, outcome)| Finding { check, outcome })
        .collect()
}

fn skip(n: usize, why: &str) -> Vec<Outcome> {
    vec![
        Skipped {
            message: format!("not checked: {why}"),
        };
        n
    ]
}

/// The next step an error's own hint gives, else a generic one.
fn next_step_for(e: &Error) -> String {
    e.hint()
        .map(|h| h.lines().collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|| "see the message above".to_string())
}

async fn lease(target: &Target, args: &OperatorArgs, deployment: &Deployment) -> Outcome {
    let Some((lease_namespace, lease_name)) = &args.lease else {
        let replicas = deployment
            .spec
            .as_ref()
            .and_then(|s| s.replicas)
            .unwrap_or(1);
        return judge_no_election(replicas);
    };
    let operator_namespace = deployment.metadata.namespace.clone().unwrap_or_default();
    let lease_namespace = lease_namespace.as_deref().unwrap_or(&operator_namespace);
    let leases: Api<Lease> = Api::namespaced(target.client.clone(), lease_namespace);
    match leases.get_opt(lease_name).await {
        Ok(lease) => judge_lease(
            lease.as_ref(),
            lease_namespace,
            lease_name,
            &logs_step(deployment),
            Timestamp::now(),
        ),
        Err(e) => {
            let e = target.fail(
                Request::new("get", LEASES)
                    .namespace(Some(lease_namespace))
                    .name(lease_name),
                e,
            );
            failed(e.to_string(), next_step_for(&e))
        }
    }
}

async fn access(target: &Target, namespace: &str) -> Outcome {
    let wanted: Vec<Permission> = ["get", "list", "watch", "patch"]
        .iter()
        .map(|verb| Permission {
            verb: verb.to_string(),
            group: TrussiumRuntime::group(&()).to_string(),
            resource: TrussiumRuntime::plural(&()).to_string(),
            namespace: Some(namespace.to_string()),
            name: None,
        })
        .collect();
    match access::missing(target, &wanted).await {
        Ok(missing) => judge_access(&missing, namespace, target.impersonating.as_deref()),
        Err(e) => failed(e.to_string(), next_step_for(&e)),
    }
}

/// The operator container's args and literal env of a Deployment.
fn container_args(deployment: &Deployment) -> (Vec<String>, Vec<(String, String)>) {
    let value = serde_json::to_value(deployment).unwrap_or_default();
    manifests::container_args(&value)
}

fn judge_crd(crd: Option<&CustomResourceDefinition>, plugin: &str) -> Outcome {
    let Some(crd) = crd else {
        return failed(
            format!("the CRD {} is not installed", TrussiumRuntime::crd_name()),
            "install it with the operator: `kubectl trussium install --wait`",
        );
    };
    let established = is_established(crd);
    if !established {
        return failed(
            "the CRD is installed but not established (the API server does not serve it yet)",
            format!(
                "see why: `kubectl get crd {} -o yaml`",
                TrussiumRuntime::crd_name()
            ),
        );
    }
    let served: Vec<&str> = crd
        .spec
        .versions
        .iter()
        .filter(|v| v.served)
        .map(|v| v.name.as_str())
        .collect();
    if !served.contains(&STORAGE_VERSION) {
        return failed(
            format!(
                "the CRD serves {} but not {STORAGE_VERSION}, which this plugin and its operator speak",
                served.join(", ")
            ),
            "upgrade it in place (runtimes keep running): `kubectl trussium install`",
        );
    }
    match crate::migration::plan(crd) {
        Ok(crate::migration::Plan::Nothing) => {}
        Ok(crate::migration::Plan::Rewrite { older }) => {
            return failed(
                format!(
                    "the CRD's storedVersions still lists {} beside {STORAGE_VERSION}: runtimes may be stored in it, and a CRD without it would be refused",
                    older.join(", ")
                ),
                format!(
                    "rewrite them in {STORAGE_VERSION} (safe to run at any time): `kubectl trussium migrate`"
                ),
            );
        }
        // A CRD that stores another version is the version check's to name.
        Err(_) => {}
    }
    match version_of(crd).map(|v| (v, compare(v, plugin))) {
        Some((_, Some(std::cmp::Ordering::Equal))) => passed(format!(
            "the CRD is installed, version {plugin} (the plugin's)"
        )),
        Some((installed, Some(std::cmp::Ordering::Greater))) => failed(
            format!("the CRD is version {installed}, newer than the plugin's {plugin}"),
            "upgrade the plugin: `kubectl krew upgrade trussium`",
        ),
        Some((installed, _)) => failed(
            format!("the CRD is version {installed}, older than the plugin's {plugin}"),
            "upgrade it in place (runtimes keep running): `kubectl trussium install`",
        ),
        None => failed(
            format!(
                "the CRD carries no version ({} label), so it is older than the plugin's {plugin}",
                trussium_api::crd::VERSION_LABEL
            ),
            "upgrade it in place (runtimes keep running): `kubectl trussium install`",
        ),
    }
}

/// Where to look when the operator misbehaves.
fn logs_step(deployment: &Deployment) -> String {
    let name = deployment.metadata.name.clone().unwrap_or_default();
    let ns = deployment.metadata.namespace.clone().unwrap_or_default();
    format!(
        "see why: `kubectl -n {ns} describe deployment {name}` and `kubectl -n {ns} logs deployment/{name}`"
    )
}

fn judge_deployment(deployment: &Deployment) -> Outcome {
    let name = deployment.metadata.name.clone().unwrap_or_default();
    let ns = deployment.metadata.namespace.clone().unwrap_or_default();
    let status = deployment.status.clone().unwrap_or_default();
    let desired = deployment
        .spec
        .as_ref()
        .and_then(|s| s.replicas)
        .unwrap_or(1);
    let ready = status.ready_replicas.unwrap_or(0);
    let available = status
        .conditions
        .as_ref()
        .and_then(|cs| cs.iter().find(|c| c.type_ == "Available"));
    let logs = logs_step(deployment);
    match available {
        Some(c) if ConditionStatus::parse(&c.status) == ConditionStatus::True => passed(format!(
            "the operator Deployment {ns}/{name} is available ({ready}/{desired} ready)"
        )),
        Some(c) => failed(
            format!(
                "the operator Deployment {ns}/{name} is not available ({ready}/{desired} ready): {}",
                c.message.clone().unwrap_or_default()
            ),
            logs,
        ),
        None => failed(
            format!(
                "the operator Deployment {ns}/{name} reports no availability yet ({ready}/{desired} ready)"
            ),
            logs,
        ),
    }
}

/// The operator's version is its image tag when that is a release tag.
fn judge_operator_version(deployment: &Deployment, plugin: &str) -> Outcome {
    let image = deployment
        .spec
        .as_ref()
        .and_then(|s| s.template.spec.as_ref())
        .and_then(|p| p.containers.first())
        .and_then(|c| c.image.clone())
        .unwrap_or_default();
    let (_, tag, _) = split_reference(&image);
    match tag.map(|t| (t, compare(t, plugin))) {
        Some((_, Some(std::cmp::Ordering::Equal))) => {
            passed(format!("the operator runs {image} (the plugin's version)"))
        }
        Some((tag, Some(_))) => failed(
            format!("the operator runs {tag}, the plugin is {plugin}"),
            format!(
                "install the plugin's version: `kubectl trussium install` (or a plugin of version {})",
                tag.trim_start_matches('v')
            ),
        ),
        _ => passed(format!(
            "the operator runs {image} (not a release tag: its version is not compared)"
        )),
    }
}

fn judge_no_election(replicas: i32) -> Outcome {
    if replicas > 1 {
        failed(
            format!(
                "leader election is off (--leader-elect=false) but {replicas} replicas run: all of them reconcile"
            ),
            "turn leader election on (drop --leader-elect=false) or run one replica",
        )
    } else {
        passed("leader election is off (--leader-elect=false); one replica reconciles")
    }
}

/// The Deployment, version, Lease and scope checks when there is no
/// operator Deployment: failed, unless a fresh Lease of the default name
/// says an operator runs outside the cluster.
fn judge_missing_deployment(
    lease: Option<&Lease>,
    operator_namespace: &str,
    deployment_name: &str,
    now: Timestamp,
) -> Vec<Outcome> {
    let missing =
        format!("no operator Deployment {deployment_name} in namespace {operator_namespace}");
    let led = lease.map(|l| judge_lease(Some(l), operator_namespace, LEASE_NAME_DEFAULT, "", now));
    let Some(lead @ Passed { .. }) = led else {
        let mut outcomes = vec![failed(
            missing,
            "install it: `kubectl trussium install --wait` (or pass --operator-namespace where it runs)",
        )];
        outcomes.extend(skip(3, "no operator Deployment"));
        return outcomes;
    };
    let holder = lease
        .and_then(|l| l.spec.as_ref()?.holder_identity.clone())
        .unwrap_or_default();
    let outside = "the operator runs outside the cluster";
    vec![
        Warning {
            message: format!(
                "{missing}, but {} holds the Lease {operator_namespace}/{LEASE_NAME_DEFAULT}: an operator runs outside the cluster (make run or make demo, say)",
                terminal::safe(&holder)
            ),
            next_step:
                "fine for development; to run it in the cluster: `kubectl trussium install --wait`"
                    .to_string(),
        },
        Skipped {
            message: format!("not checked: {outside}, its version is not known"),
        },
        lead,
        Skipped {
            message: format!("not checked: {outside}, its arguments are not known"),
        },
    ]
}

fn judge_lease(
    lease: Option<&Lease>,
    namespace: &str,
    name: &str,
    logs: &str,
    now: Timestamp,
) -> Outcome {
    let Some(spec) = lease.and_then(|l| l.spec.as_ref()) else {
        return failed(
            format!("no Lease {namespace}/{name}: no replica has become leader"),
            logs,
        );
    };
    let holder = spec.holder_identity.clone().filter(|h| !h.is_empty());
    let renewed = spec.renew_time.as_ref().map(|t| t.0);
    let duration = i64::from(spec.lease_duration_seconds.unwrap_or(15));
    match (holder, renewed) {
        (Some(holder), Some(renewed)) => {
            let ago = now.as_second() - renewed.as_second();
            if ago <= duration {
                passed(format!(
                    "{holder} leads: it renewed the Lease {namespace}/{name} {} ago",
                    age::human(ago)
                ))
            } else {
                failed(
                    format!(
                        "the Lease {namespace}/{name} is stale: {holder} last renewed it {} ago (it lasts {duration}s)",
                        age::human(ago)
                    ),
                    logs,
                )
            }
        }
        _ => failed(
            format!("nobody holds the Lease {namespace}/{name}: no replica leads"),
            logs,
        ),
    }
}

fn judge_scope(args: &OperatorArgs, namespace: &str) -> Outcome {
    match &args.watch_namespace {
        None => passed(format!(
            "the operator watches all namespaces, {namespace} among them"
        )),
        Some(watched) if watched == namespace => {
            passed(format!("the operator watches namespace {namespace}"))
        }
        Some(watched) => failed(
            format!("the operator watches only namespace {watched}, not {namespace}"),
            format!(
                "use -n {watched}, or reinstall it to watch {namespace} (`kubectl trussium install --watch-namespace {namespace}`) or all namespaces (`kubectl trussium install`)"
            ),
        ),
    }
}

/// The plugin's commands by the verbs they need on runtimes, for the
/// access line: what an identity may run follows from what it may do.
const COMMANDS_NEED: [(&str, &[&str]); 3] = [
    ("status, history, events, diagnose", &["get", "list"]),
    ("--watch, --wait", &["watch"]),
    (
        "upgrade, rollback, scale, restart, suspend, resume",
        &["get", "patch"],
    ),
];

/// What `who` (`--as`; else "you") may do with runtimes in `namespace`,
/// and so which commands it may run there.
fn judge_access(missing: &[Permission], namespace: &str, who: Option<&str>) -> Outcome {
    let who = who.unwrap_or("you");
    if missing.is_empty() {
        return passed(format!(
            "{who} may read and patch runtimes in namespace {namespace}: every command"
        ));
    }
    let verbs: Vec<&str> = missing.iter().map(|p| p.verb.as_str()).collect();
    let (ruled_out, left): (Vec<_>, Vec<_>) = COMMANDS_NEED
        .iter()
        .partition(|(_, needs)| needs.iter().any(|verb| verbs.contains(verb)));
    let names = |commands: Vec<&(&str, &[&str])>| {
        commands
            .iter()
            .map(|(c, _)| *c)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut message = format!(
        "{who} may not {} runtimes in namespace {namespace}: not {}",
        verbs.join(", "),
        names(ruled_out)
    );
    if !left.is_empty() {
        message.push_str(&format!("; {who} may run {}", names(left)));
    }
    failed(
        message,
        format!(
            "ask a cluster administrator for a Role in {namespace} that allows {} on {}.{}",
            verbs.join(", "),
            TrussiumRuntime::plural(&()),
            TrussiumRuntime::group(&())
        ),
    )
}

/// One message of the checklist, fit for a terminal.
fn line(message: &str) -> String {
    terminal::bounded(message, 2 * terminal::MAX_CHARS)
}

/// The API server answered: its Kubernetes version against the range this
/// release supports (kubernetes-versions.txt). Outside it, a warning.
fn judge_server(
    server: &str,
    info: &k8s_openapi::apimachinery::pkg::version::Info,
    range: SupportedRange,
) -> Outcome {
    let version = &info.git_version;
    let Some(minor) = Minor::from_server(&info.major, &info.minor) else {
        return Warning {
            message: format!(
                "the API server at {server} answers, but its version {version:?} names no Kubernetes release (supported: {range})"
            ),
            next_step: "nothing to do if you know this server; Trussium is tested on Kubernetes releases only".into(),
        };
    };
    match range.outside(minor) {
        None => passed(format!(
            "the API server at {server} answers (Kubernetes {version}; supported: {range})"
        )),
        Some(Outside::Older) => Warning {
            message: format!(
                "the API server at {server} runs Kubernetes {version}, older than the versions this release supports ({range})"
            ),
            next_step: format!(
                "upgrade the cluster to Kubernetes {} or later; until then features may be missing",
                range.oldest
            ),
        },
        Some(Outside::Newer) => Warning {
            message: format!(
                "the API server at {server} runs Kubernetes {version}, newer than the versions this release supports ({range})"
            ),
            next_step: format!(
                "look for a Trussium release that supports Kubernetes {minor}; this one is untested there"
            ),
        },
    }
}

/// The checklist: ✓, ✗, ! or –, the check's message, and under each ✗ or !
/// its next step.
pub fn render(findings: &[Finding], palette: Palette) -> String {
    let mut text = String::new();
    for finding in findings {
        match &finding.outcome {
            // Messages quote the cluster (conditions, images, holders).
            Passed { message } => {
                text.push_str(&format!("{} {}\n", palette.good("✓"), line(message)));
            }
            Warning { message, next_step } => {
                text.push_str(&format!("{} {}\n", palette.warn("!"), line(message)));
                text.push_str(&format!("  → {}\n", line(next_step)));
            }
            Failed { message, next_step } => {
                text.push_str(&format!("{} {}\n", palette.bad("✗"), line(message)));
                text.push_str(&format!("  → {}\n", line(next_step)));
            }
            Skipped { message } => {
                text.push_str(&palette.dim(&format!("– {}: {}", finding.check, line(message))));
                text.push('\n');
            }
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::fixtures::at;

    fn crd(version: Option<&str>, established: bool) -> CustomResourceDefinition {
        crd_serving(version, established, &["v1beta1", "v1alpha1"])
    }

    fn crd_serving(
        version: Option<&str>,
        established: bool,
        served: &[&str],
    ) -> CustomResourceDefinition {
        let labels = version.map(|v| json!({"app.kubernetes.io/version": v}));
        let versions: Vec<_> = served
            .iter()
            .map(|name| json!({"name": name, "served": true, "storage": *name == "v1beta1"}))
            .collect();
        serde_json::from_value(json!({
            "metadata": {"name": "trussiumruntimes.runtime.trussium.io", "labels": labels},
            "spec": {"group": "runtime.trussium.io", "scope": "Namespaced",
                     "names": {"plural": "trussiumruntimes", "kind": "TrussiumRuntime"}, "versions": versions},
            "status": {"conditions": [{"type": "Established", "status": if established {"True"} else {"False"}}]}
        }))
        .unwrap_or_else(|e| panic!("{e}"))
    }

    fn message(outcome: &Outcome) -> String {
        match outcome {
            Passed { message } | Skipped { message } => message.clone(),
            Warning { message, next_step } | Failed { message, next_step } => {
                format!("{message} → {next_step}")
            }
        }
    }

    #[test]
    fn the_crd_and_its_version() {
        assert!(matches!(
            judge_crd(Some(&crd(Some("0.1.0"), true)), "0.1.0"),
            Passed { .. }
        ));
        let missing = message(&judge_crd(None, "0.1.0"));
        assert!(missing.contains("not installed → install it"), "{missing}");
        let older = message(&judge_crd(Some(&crd(Some("0.0.9"), true)), "0.1.0"));
        assert!(
            older.contains("version 0.0.9, older than the plugin's 0.1.0"),
            "{older}"
        );
        assert!(older.contains("`kubectl trussium install`"), "{older}");
        let newer = message(&judge_crd(Some(&crd(Some("1.0.0"), true)), "0.1.0"));
        assert!(
            newer.contains("newer") && newer.contains("krew upgrade"),
            "{newer}"
        );
        let unlabelled = message(&judge_crd(Some(&crd(None, true)), "0.1.0"));
        assert!(unlabelled.contains("carries no version"), "{unlabelled}");
        let pending = message(&judge_crd(Some(&crd(Some("0.1.0"), false)), "0.1.0"));
        assert!(pending.contains("not established"), "{pending}");
    }

    #[test]
    fn a_crd_with_older_stored_versions_is_migrated() {
        let mut stored = crd(Some("0.1.0"), true);
        if let Some(status) = stored.status.as_mut() {
            status.stored_versions = Some(vec!["v1alpha1".into(), "v1beta1".into()]);
        }
        assert_eq!(
            message(&judge_crd(Some(&stored), "0.1.0")),
            "the CRD's storedVersions still lists v1alpha1 beside v1beta1: runtimes may be stored in it, \
             and a CRD without it would be refused → rewrite them in v1beta1 (safe to run at any time): \
             `kubectl trussium migrate`"
        );
    }

    #[test]
    fn a_crd_without_the_version_the_plugin_speaks_is_upgraded() {
        // Whatever its label says: a CRD from before v1beta1.
        let alpha_only = crd_serving(Some("0.1.0"), true, &["v1alpha1"]);
        assert_eq!(
            message(&judge_crd(Some(&alpha_only), "0.1.0")),
            "the CRD serves v1alpha1 but not v1beta1, which this plugin and its operator speak \
             → upgrade it in place (runtimes keep running): `kubectl trussium install`"
        );
    }

    fn deployment(available: Option<bool>, image: &str, ready: i32) -> Deployment {
        let conditions: Vec<_> = available
            .map(|a| {
                json!({"type": "Available", "status": if a {"True"} else {"False"},
                            "message": "Deployment does not have minimum availability."})
            })
            .into_iter()
            .collect();
        serde_json::from_value(json!({
            "metadata": {"name": "trussium-operator", "namespace": "trussium-system"},
            "spec": {"replicas": 2, "selector": {}, "template": {"spec": {"containers": [
                {"name": "operator", "image": image, "args": ["--namespace=ai"]}]}}},
            "status": {"readyReplicas": ready, "conditions": conditions}
        }))
        .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn the_operator_deployment_and_its_version() {
        let image = "ghcr.io/trussiumhq/trussium-operator:v0.1.0";
        let ok = message(&judge_deployment(&deployment(Some(true), image, 2)));
        assert_eq!(
            ok,
            "the operator Deployment trussium-system/trussium-operator is available (2/2 ready)"
        );
        let down = message(&judge_deployment(&deployment(Some(false), image, 0)));
        assert!(down.contains("is not available (0/2 ready)"), "{down}");
        assert!(down.contains("logs deployment/trussium-operator"), "{down}");
        assert!(matches!(
            judge_operator_version(&deployment(Some(true), image, 2), "0.1.0"),
            Passed { .. }
        ));
        let old = message(&judge_operator_version(
            &deployment(Some(true), "r/op:v0.0.9", 2),
            "0.1.0",
        ));
        assert!(old.contains("runs v0.0.9, the plugin is 0.1.0"), "{old}");
        assert!(matches!(
            judge_operator_version(&deployment(Some(true), "r/op:latest", 2), "0.1.0"),
            Passed { .. }
        ));
        let (args, _) = container_args(&deployment(Some(true), image, 2));
        assert_eq!(args, ["--namespace=ai"]);
    }

    fn lease(holder: Option<&str>, renewed: Option<i64>) -> Lease {
        serde_json::from_value(json!({
            "metadata": {"name": "trussium-operator"},
            "spec": {"holderIdentity": holder, "leaseDurationSeconds": 15,
                     "renewTime": renewed.map(|s| at(s).to_string())}
        }))
        .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn no_deployment_but_a_fresh_lease_is_an_operator_outside_the_cluster() {
        let judge = |l: Option<&Lease>| {
            judge_missing_deployment(l, "trussium-system", "trussium-operator", at(0))
                .iter()
                .map(message)
                .collect::<Vec<_>>()
        };
        let outside = judge(Some(&lease(Some("laptop_4242"), Some(-2))));
        assert_eq!(outside.len(), 4);
        assert_eq!(
            outside[0],
            "no operator Deployment trussium-operator in namespace trussium-system, but laptop_4242 holds the Lease trussium-system/trussium-operator: an operator runs outside the cluster (make run or make demo, say) → fine for development; to run it in the cluster: `kubectl trussium install --wait`"
        );
        assert!(
            outside[1].contains("its version is not known"),
            "{outside:?}"
        );
        assert!(outside[2].starts_with("laptop_4242 leads"), "{outside:?}");
        assert!(
            outside[3].contains("its arguments are not known"),
            "{outside:?}"
        );
        let outcomes = judge_missing_deployment(
            Some(&lease(Some("x"), Some(-2))),
            "trussium-system",
            "trussium-operator",
            at(0),
        );
        assert!(matches!(outcomes[0], Warning { .. }));
        // No Lease, a stale one or a released one: no operator at all.
        for lease in [
            None,
            Some(lease(Some("laptop_4242"), Some(-600))),
            Some(lease(None, Some(-1))),
        ] {
            let outcomes = judge_missing_deployment(
                lease.as_ref(),
                "trussium-system",
                "trussium-operator",
                at(0),
            );
            assert!(
                matches!(outcomes[0], Failed { .. }),
                "{:?}",
                judge(lease.as_ref())
            );
            assert_eq!(outcomes.len(), 4);
        }
    }

    #[test]
    fn a_fresh_lease_has_a_leader() {
        let judge = |l: Option<&Lease>| {
            message(&judge_lease(
                l,
                "trussium-system",
                "trussium-operator",
                "see the logs",
                at(0),
            ))
        };
        let fresh = lease(Some("op-1"), Some(-3));
        assert_eq!(
            judge(Some(&fresh)),
            "op-1 leads: it renewed the Lease trussium-system/trussium-operator 3s ago"
        );
        let stale = judge(Some(&lease(Some("op-1"), Some(-120))));
        assert!(
            stale.contains("is stale: op-1 last renewed it 2m ago (it lasts 15s)"),
            "{stale}"
        );
        let released = judge(Some(&lease(None, Some(-1))));
        assert!(released.contains("nobody holds the Lease"), "{released}");
        let none = judge(None);
        assert!(
            none.contains("no Lease trussium-system/trussium-operator"),
            "{none}"
        );
        assert!(matches!(judge_no_election(1), Passed { .. }));
        assert!(matches!(judge_no_election(2), Failed { .. }));
    }

    #[test]
    fn the_watched_namespace() {
        let all = OperatorArgs::read(&[], &[]);
        assert!(matches!(judge_scope(&all, "ai"), Passed { .. }));
        let one = OperatorArgs::read(&["--namespace=ai".to_string()], &[]);
        assert!(matches!(judge_scope(&one, "ai"), Passed { .. }));
        let other = message(&judge_scope(&one, "team-a"));
        assert!(
            other.contains("watches only namespace ai, not team-a"),
            "{other}"
        );
        assert!(other.contains("--watch-namespace team-a"), "{other}");
    }

    #[test]
    fn access_names_the_missing_verbs() {
        let patch = Permission {
            verb: "patch".into(),
            group: "runtime.trussium.io".into(),
            resource: "trussiumruntimes".into(),
            namespace: Some("ai".into()),
            name: None,
        };
        assert!(matches!(judge_access(&[], "ai", None), Passed { .. }));
        assert_eq!(
            message(&judge_access(&[], "ai", None)),
            "you may read and patch runtimes in namespace ai: every command"
        );
        assert_eq!(
            message(&judge_access(std::slice::from_ref(&patch), "ai", None)),
            "you may not patch runtimes in namespace ai: not upgrade, rollback, scale, restart, suspend, resume; you may run status, history, events, diagnose, --watch, --wait → ask a cluster administrator for a Role in ai that allows patch on trussiumruntimes.runtime.trussium.io"
        );
        // --as: the identity checked is named.
        let tenant = "system:serviceaccount:ai:deployer";
        assert_eq!(
            message(&judge_access(
                std::slice::from_ref(&patch),
                "ai",
                Some(tenant)
            )),
            format!(
                "{tenant} may not patch runtimes in namespace ai: not upgrade, rollback, scale, restart, suspend, resume; {tenant} may run status, history, events, diagnose, --watch, --wait → ask a cluster administrator for a Role in ai that allows patch on trussiumruntimes.runtime.trussium.io"
            )
        );
        // Nothing at all: no command.
        let all: Vec<Permission> = ["get", "list", "watch", "patch"]
            .iter()
            .map(|verb| Permission {
                verb: verb.to_string(),
                ..patch.clone()
            })
            .collect();
        let text = message(&judge_access(&all, "ai", None));
        assert!(
            text.starts_with("you may not get, list, watch, patch runtimes in namespace ai: not status, history, events, diagnose, --watch, --wait, upgrade,"),
            "{text}"
        );
        assert!(!text.contains("may run"), "{text}");
    }

    fn info(
        git_version: &str,
        major: &str,
        minor: &str,
    ) -> k8s_openapi::apimachinery::pkg::version::Info {
        serde_json::from_value(json!({
            "gitVersion": git_version, "major": major, "minor": minor,
            "buildDate": "", "compiler": "", "gitCommit": "", "gitTreeState": "",
            "goVersion": "", "platform": ""
        }))
        .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn the_servers_version_against_the_supported_range() {
        let range = SupportedRange {
            oldest: Minor {
                major: 1,
                minor: 34,
            },
            newest: Minor {
                major: 1,
                minor: 37,
            },
        };
        let judge = |v, major, minor| judge_server("https://k", &info(v, major, minor), range);
        assert_eq!(
            judge("v1.34.4", "1", "34"),
            passed(
                "the API server at https://k answers (Kubernetes v1.34.4; supported: 1.34 to 1.37)"
            )
        );
        assert!(matches!(judge("v1.36.1-eks-1", "1", "36+"), Passed { .. }));
        assert_eq!(
            message(&judge("v1.33.13", "1", "33")),
            "the API server at https://k runs Kubernetes v1.33.13, older than the versions this release supports (1.34 to 1.37) → upgrade the cluster to Kubernetes 1.34 or later; until then features may be missing"
        );
        assert_eq!(
            message(&judge("v1.38.0", "1", "38")),
            "the API server at https://k runs Kubernetes v1.38.0, newer than the versions this release supports (1.34 to 1.37) → look for a Trussium release that supports Kubernetes 1.38; this one is untested there"
        );
        assert!(matches!(judge("dev", "", ""), Warning { .. }));
    }

    #[test]
    fn a_warning_is_shown_but_is_not_a_failure() {
        let findings = findings(
            vec![Warning {
                message: "newer".into(),
                next_step: "look".into(),
            }],
            "stop",
        );
        assert_eq!(
            render(&findings[..1], Palette::PLAIN),
            "! newer\n  → look\n"
        );
        let json = serde_json::to_value(&findings[0]).unwrap_or_default();
        assert_eq!(
            json,
            json!({"check": "cluster", "result": "warning", "message": "newer", "nextStep": "look"})
        );
    }

    #[test]
    fn the_checklist_reads_at_a_glance() {
        let findings = findings(
            vec![
                passed(
                    "the API server at https://k answers (Kubernetes v1.37.2; supported: 1.34 to 1.37)",
                ),
                failed("the CRD is not installed", "kubectl trussium install"),
            ],
            "no operator",
        );
        assert_eq!(findings.len(), CHECKS.len());
        let text = render(&findings, Palette::PLAIN);
        assert!(
            text.starts_with(
                "✓ the API server at https://k answers (Kubernetes v1.37.2; supported: 1.34 to 1.37)\n\
                 ✗ the CRD is not installed\n  → kubectl trussium install\n\
                 – operator: not checked: no operator\n"
            ),
            "{text}"
        );
        let json = serde_json::to_value(&findings[1]).unwrap_or_default();
        assert_eq!(
            json,
            json!({"check": "crd", "result": "failed", "message": "the CRD is not installed",
                   "nextStep": "kubectl trussium install"})
        );
    }
}
