//! `kubectl trussium install [--watch-namespace NS] [--replicas N] [--image I]
//! [--dry-run=client|server] [-o json|yaml] [--wait [--timeout D]]`: applies
//! the CRD and the operator of this release ([`crate::manifests`]) with
//! server-side apply. Everything it would refuse for is found before the
//! first write: a newer CRD, a namespace to watch that does not exist, a
//! missing permission, an object the API server would not accept.

use std::cmp::Ordering;
use std::time::Duration;

use clap::{Args, ValueEnum};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::Namespace;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{DynamicObject, ListParams, Patch, PatchParams};
use kube::{Api, CustomResourceExt};
use serde_json::Value;
use trussium_api::TrussiumRuntime;
use trussium_api::crd::{STORAGE_VERSION, api_resource, is_established, version_of};
use trussium_api::duration;

use crate::access;
use crate::cli::{GlobalFlags, NamespaceName};
use crate::client::{Target, connect};
use crate::dynamic::Object;
use crate::error::{CRDS, DEPLOYMENTS, Error, NAMESPACES, Request, Result};
use crate::follow::{Ending, Judgment, Watching, follow};
use crate::manifests::{self, Settings};
use crate::output::{self, OutputFormat, Palette};
use crate::release::{VERSION, compare};

#[derive(Args, Debug)]
pub struct InstallArgs {
    /// Watch only this namespace (default: all); the operator's permissions become a
    /// Role there instead of a ClusterRole
    #[arg(long, value_name = "NAMESPACE", value_parser = parse_namespace)]
    pub watch_namespace: Option<NamespaceName>,

    /// Operator replicas (default: 2, a leader and a standby)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(i32).range(1..))]
    pub replicas: Option<i32>,

    /// Operator image, e.g. from a private registry: REPOSITORY[:TAG|@sha256:DIGEST]; a
    /// repository alone gets this version's tag
    #[arg(long, value_name = "IMAGE", value_parser = parse_image)]
    pub image: Option<String>,

    /// Print what would be applied (client), or also have the API server check every
    /// object without applying it (server)
    #[arg(long, value_enum, value_name = "MODE")]
    pub dry_run: Option<DryRun>,

    /// Print the objects instead of applying them (with --dry-run=server: as the API
    /// server would store them)
    #[arg(short = 'o', long, value_enum, value_name = "FORMAT")]
    pub output: Option<OutputFormat>,

    /// Wait until the operator is available
    #[arg(long, conflicts_with_all = ["dry_run", "output"])]
    pub wait: bool,

    /// How long --wait waits, e.g. 90s, 5m, 1h30m
    #[arg(long, value_name = "DURATION", default_value = "5m", value_parser = duration::parse, requires = "wait")]
    pub timeout: Duration,
}

/// `--dry-run`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum DryRun {
    /// Print what would be applied; no request to the cluster
    Client,
    /// Check permissions and have the API server dry-run every object
    Server,
}

pub const HELP: &str = "\
Applies, with server-side apply (field manager kubectl-trussium), the
TrussiumRuntime CRD and the operator's manifests of this plugin's version:
the files its release ships (crds.yaml, install.yaml). -n/--namespace is the
operator's namespace (default: trussium-system), not the context's. Before
writing anything it checks your permissions and has the API server try every
object (a server-side dry run), so a refusal leaves nothing half applied. A
CRD of an older version is upgraded in place (runtimes keep running); a
newer one is refused.

Examples:
  kubectl trussium install --wait
  kubectl trussium install --watch-namespace team-a
  kubectl trussium install --image registry.example.com/mirror/trussium-operator
  kubectl trussium install -o yaml > trussium.yaml
  kubectl trussium install --dry-run=server";

fn parse_image(value: &str) -> Result<String, String> {
    crate::manifests::check_image(value)?;
    Ok(value.to_string())
}

/// A namespace name as Kubernetes allows it (an RFC 1123 label).
fn parse_namespace(value: &str) -> Result<NamespaceName, String> {
    let valid = !value.is_empty()
        && value.len() <= 63
        && value
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && !value.starts_with('-')
        && !value.ends_with('-');
    if !valid {
        return Err(format!(
            "invalid namespace {value:?}: at most 63 lowercase letters, digits and '-', starting and ending with a letter or digit"
        ));
    }
    Ok(NamespaceName(value.to_string()))
}

/// The field manager of everything `install` applies.
pub const FIELD_MANAGER: &str = "kubectl-trussium";

pub async fn run(flags: &GlobalFlags, args: &InstallArgs, palette: Palette) -> Result<()> {
    let settings = Settings {
        namespace: flags.namespace.as_deref().map(str::to_string),
        watch_namespace: args.watch_namespace.as_deref().map(str::to_string),
        replicas: args.replicas,
        image: args.image.clone(),
    };
    let values = manifests::render(&settings).map_err(|e| Error::Config(e.to_string()))?;
    if args.dry_run == Some(DryRun::Client) || (args.output.is_some() && args.dry_run.is_none()) {
        return print(&values, args.output, "(dry run)");
    }
    let objects: Vec<Object> = values.into_iter().filter_map(Object::new).collect();
    let target = connect(flags).await?;
    let plan = prepare(&target, &objects, &settings).await?;
    let answers = dry_run(&target, &objects, &plan).await?;
    if args.dry_run == Some(DryRun::Server) {
        for (object, _) in objects.iter().zip(&answers).filter(|(_, a)| a.is_none()) {
            eprintln!(
                "{object}: not tried, its namespace {} does not exist yet (install creates it)",
                plan.namespace
            );
        }
        let answers: Vec<Value> = answers.into_iter().flatten().collect();
        return print(&answers, args.output, "(server dry run)");
    }

    let deployment =
        manifests::deployment(&objects.iter().map(|o| o.value.clone()).collect::<Vec<_>>())
            .cloned()
            .unwrap_or_default();
    output::println(&format!(
        "Installing the Trussium operator {VERSION} into namespace {}, watching {}:",
        plan.namespace,
        match &settings.watch_namespace {
            Some(ns) => format!("namespace {ns}"),
            None => "all namespaces".to_string(),
        }
    ))?;
    for (applied, object) in objects.iter().enumerate() {
        apply(&target, object, false).await.map_err(|e| match e {
            Error::WouldBeRefused { object, message } => Error::ApplyFailed {
                object,
                message,
                applied,
            },
            other => other,
        })?;
        let note = match (object.kind(), &plan.crd) {
            ("CustomResourceDefinition", CrdChange::Upgrade { from, runtimes }) => {
                wait_established(&target, &object.name).await?;
                format!(
                    " (upgraded in place from {}; {runtimes} runtime{} keep{} running){}",
                    crate::terminal::safe(from),
                    if *runtimes == 1 { "" } else { "s" },
                    if *runtimes == 1 { "s" } else { "" },
                    migrate(&target).await?
                )
            }
            ("CustomResourceDefinition", _) => {
                wait_established(&target, &object.name).await?;
                migrate(&target).await?
            }
            ("Deployment", _) => format!(" (image {})", image_of(&deployment)),
            _ => String::new(),
        };
        output::println(&format!("  {} {object}{note}", palette.good("✓")))?;
    }
    if args.wait {
        wait_available(&target, &plan.namespace, &deployment, args.timeout, palette).await?;
    }
    let mut next = "kubectl trussium check".to_string();
    if let Some(watched) = &plan.watch_namespace {
        next.push_str(&format!(" -n {watched}"));
    }
    if plan.namespace != manifests::default_namespace().unwrap_or_default() {
        next.push_str(&format!(" --operator-namespace {}", plan.namespace));
    }
    output::println(&palette.dim(&format!("See that all is well with: {next}")))
}

/// The storage migration after the CRD is applied: objects stored in an
/// older version rewritten, `storedVersions` trimmed (nothing written when
/// there is nothing to migrate). Said in the CRD's line when it did something.
/// A migration that fails (your rights may not cover it) does not stop the
/// install: the runtimes stay valid, and a warning names the command to run.
async fn migrate(target: &Target) -> Result<String> {
    let run = crate::migration::run(target, false, |done, total| {
        eprintln!("install: migrating, {done} of {total} runtimes rewritten");
    })
    .await;
    Ok(match run {
        Ok(report) if report.older.is_empty() => String::new(),
        Ok(report) => format!("; {}", report.summary(false)),
        Err(e) => {
            eprintln!(
                "warning: the stored runtimes were not migrated: {}\n  \
                 → they stay valid; run `kubectl trussium migrate` with rights to list and update \
                 trussiumruntimes in all namespaces and patch customresourcedefinitions/status",
                crate::terminal::safe(&e.to_string())
            );
            String::new()
        }
    })
}

/// Prints the objects instead of applying them.
fn print(objects: &[Value], format: Option<OutputFormat>, note: &str) -> Result<()> {
    let io = |e: serde_json::Error| Error::Io(std::io::Error::other(e));
    match format {
        Some(OutputFormat::Yaml) => output::print(
            &manifests::to_yaml(objects).map_err(|e| Error::Io(std::io::Error::other(e)))?,
        ),
        Some(OutputFormat::Json) => {
            let list = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": objects});
            output::print(&(serde_json::to_string_pretty(&list).map_err(io)? + "\n"))
        }
        None => {
            for object in objects.iter().cloned().filter_map(Object::new) {
                output::println(&format!("{object} {note}"))?;
            }
            Ok(())
        }
    }
}

/// What is in the cluster already, found before anything is written.
struct Plan {
    /// The operator's namespace.
    namespace: String,
    namespace_exists: bool,
    watch_namespace: Option<String>,
    crd: CrdChange,
}

/// What installing does to the CRD.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CrdChange {
    New,
    Same,
    /// An older (or unlabelled) CRD, upgraded in place.
    Upgrade {
        from: String,
        runtimes: usize,
    },
}

/// What applying this release's CRD over `installed` means, or the refusal
/// for a newer one.
pub fn crd_change(installed: Option<&CustomResourceDefinition>) -> Result<CrdChange> {
    let Some(installed) = installed else {
        return Ok(CrdChange::New);
    };
    match version_of(installed) {
        Some(version) => match compare(version, VERSION) {
            Some(Ordering::Equal) => Ok(CrdChange::Same),
            Some(Ordering::Greater) => Err(Error::NewerCrd {
                installed: version.to_string(),
                plugin: VERSION.to_string(),
            }),
            _ => Ok(CrdChange::Upgrade {
                from: version.to_string(),
                runtimes: 0,
            }),
        },
        None => Ok(CrdChange::Upgrade {
            from: "an unlabelled version".to_string(),
            runtimes: 0,
        }),
    }
}

/// Reads what decides whether (and how) to install: the stored CRD, the
/// namespaces, and the user's permissions.
async fn prepare(target: &Target, objects: &[Object], settings: &Settings) -> Result<Plan> {
    let crds: Api<CustomResourceDefinition> = Api::all(target.client.clone());
    let crd_name = TrussiumRuntime::crd_name();
    let installed = crds
        .get_opt(crd_name)
        .await
        .map_err(|e| target.fail(Request::new("get", CRDS).name(crd_name), e))?;
    let mut crd = crd_change(installed.as_ref())?;
    if let (CrdChange::Upgrade { runtimes, .. }, Some(installed)) = (&mut crd, &installed) {
        // How many runtimes the in-place upgrade concerns (one page says
        // enough), through the version the installed CRD stores: an older
        // CRD may not serve this plugin's.
        let stored = installed.spec.versions.iter().find(|v| v.storage);
        let resource = api_resource(stored.map_or(STORAGE_VERSION, |v| v.name.as_str()));
        let all: Api<DynamicObject> = Api::all_with(target.client.clone(), &resource);
        *runtimes = all
            .list_metadata(&ListParams::default().limit(500))
            .await
            .map(|list| list.items.len())
            .unwrap_or_default();
    }
    let namespace = match &settings.namespace {
        Some(ns) => ns.clone(),
        None => manifests::default_namespace().map_err(|e| Error::Config(e.to_string()))?,
    };
    let namespaces: Api<Namespace> = Api::all(target.client.clone());
    let exists = async |name: &str| {
        namespaces
            .get_metadata_opt(name)
            .await
            .map(|n| n.is_some())
            .map_err(|e| target.fail(Request::new("get", NAMESPACES).name(name), e))
    };
    if let Some(watch) = &settings.watch_namespace
        && !exists(watch).await?
    {
        return Err(Error::NoSuchNamespace(watch.clone()));
    }
    let namespace_exists = exists(&namespace).await?;
    // Server-side apply creates what is missing and patches what is there.
    let wanted: Vec<_> = objects
        .iter()
        .flat_map(|o| [o.permission("create", false), o.permission("patch", true)])
        .collect();
    let missing = access::missing(target, &wanted).await?;
    if !missing.is_empty() {
        return Err(Error::NotPermitted {
            doing: "installing",
            missing: missing.iter().map(ToString::to_string).collect(),
        });
    }
    Ok(Plan {
        namespace,
        namespace_exists,
        watch_namespace: settings.watch_namespace.clone(),
        crd,
    })
}

/// Has the API server try every object (admission, validation, RBAC
/// escalation rules) without storing it; objects in the operator's
/// namespace only when it exists already (a dry run creates nothing).
async fn dry_run(target: &Target, objects: &[Object], plan: &Plan) -> Result<Vec<Option<Value>>> {
    let mut answers = Vec::new();
    for object in objects {
        let in_new_namespace =
            object.namespace.as_deref() == Some(plan.namespace.as_str()) && !plan.namespace_exists;
        if in_new_namespace {
            answers.push(None);
            continue;
        }
        answers.push(Some(apply(target, object, true).await?));
    }
    Ok(answers)
}

/// Server-side apply of one object (forcing conflicts: the installer owns
/// what it installs), or its dry run.
async fn apply(target: &Target, object: &Object, dry_run: bool) -> Result<Value> {
    let mut params = PatchParams::apply(FIELD_MANAGER).force();
    params.dry_run = dry_run;
    let body = object.body().map_err(|e| Error::Config(e.to_string()))?;
    let answer = object
        .api(&target.client)
        .patch(&object.name, &params, &Patch::Apply(&body))
        .await
        .map_err(|e| match e {
            kube::Error::Api(status) => Error::WouldBeRefused {
                object: object.to_string(),
                message: status.message,
            },
            other => target.fail(Request::new("apply", "the install manifests"), other),
        })?;
    let value = serde_json::to_value(answer).map_err(|e| Error::Io(std::io::Error::other(e)))?;
    Ok(output::without_managed_fields(value))
}

/// Waits (briefly) until the API server serves the CRD, so that runtimes can
/// be created right after `install`.
async fn wait_established(target: &Target, name: &str) -> Result<()> {
    let crds: Api<CustomResourceDefinition> = Api::all(target.client.clone());
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        let crd = crds
            .get(name)
            .await
            .map_err(|e| target.fail(Request::new("get", CRDS).name(name), e))?;
        let established = is_established(&crd);
        if established || tokio::time::Instant::now() >= deadline {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

fn image_of(deployment: &Value) -> String {
    deployment["spec"]["template"]["spec"]["containers"][0]["image"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// Where the operator Deployment's rollout stands, as `kubectl rollout
/// status` reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Availability {
    Waiting(String),
    Available { ready: i32 },
    Failed(String),
}

pub fn availability(deployment: &Deployment) -> Availability {
    let desired = deployment
        .spec
        .as_ref()
        .and_then(|s| s.replicas)
        .unwrap_or(1);
    let Some(status) = &deployment.status else {
        return Availability::Waiting("waiting for the Deployment controller".to_string());
    };
    if status.observed_generation.unwrap_or(0) < deployment.metadata.generation.unwrap_or(0) {
        return Availability::Waiting("waiting for the Deployment controller".to_string());
    }
    let deadline = status.conditions.iter().flatten().find(|c| {
        c.type_ == "Progressing" && c.reason.as_deref() == Some("ProgressDeadlineExceeded")
    });
    if let Some(c) = deadline {
        return Availability::Failed(c.message.clone().unwrap_or_default());
    }
    let updated = status.updated_replicas.unwrap_or(0);
    let available = status.available_replicas.unwrap_or(0);
    let total = status.replicas.unwrap_or(0);
    if updated < desired {
        Availability::Waiting(format!("{updated} of {desired} replicas updated"))
    } else if total > updated {
        Availability::Waiting(format!(
            "{} old replicas are pending termination",
            total - updated
        ))
    } else if available < updated {
        Availability::Waiting(format!("{available} of {updated} replicas available"))
    } else {
        Availability::Available {
            ready: status.ready_replicas.unwrap_or(0).min(desired),
        }
    }
}

/// Follows the operator Deployment until it is available, fails, or
/// `timeout` elapses.
async fn wait_available(
    target: &Target,
    namespace: &str,
    deployment: &Value,
    timeout: Duration,
    palette: Palette,
) -> Result<()> {
    let name = deployment["metadata"]["name"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let desired = deployment["spec"]["replicas"].as_i64().unwrap_or(1);
    let watching = Watching {
        target,
        request: Request::new("watch", DEPLOYMENTS)
            .namespace(Some(namespace))
            .name(&name),
        label: "waiting for the operator".to_string(),
        timeout,
        palette,
    };
    let api: Api<Deployment> = Api::namespaced(target.client.clone(), namespace);
    let ending = follow(&watching, api, &name, None, |d| match availability(d) {
        Availability::Waiting(text) => Judgment::Waiting(text),
        done => Judgment::Done(done),
    })
    .await?;
    match ending {
        Ending::Done {
            outcome: Availability::Available { ready },
            seconds,
            waited,
        } => {
            let took = if waited {
                format!(" in {seconds}s")
            } else {
                String::new()
            };
            output::println(&format!(
                "{} the operator is available ({ready}/{desired} ready){took}",
                palette.good("✓")
            ))
        }
        Ending::Done {
            outcome: Availability::Failed(message),
            ..
        } => Err(Error::RolloutFailed {
            action: "install",
            name: format!("{namespace}/{name}"),
            to: format!(" to {}", image_of(deployment)),
            message,
        }),
        Ending::Done {
            outcome: Availability::Waiting(last),
            ..
        }
        | Ending::TimedOut { last } => Err(Error::Timeout {
            rollout: format!("rollout of {namespace}/{name}"),
            after: timeout,
            last,
            follow: format!("kubectl -n {namespace} rollout status deployment/{name}"),
        }),
        Ending::Deleted => Err(Error::Deleted {
            object: format!("Deployment {namespace}/{name}"),
        }),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::cli::{Command, try_parse};

    fn crd(version: Option<&str>) -> CustomResourceDefinition {
        let labels = version.map(|v| json!({"app.kubernetes.io/version": v}));
        serde_json::from_value(json!({
            "metadata": {"name": "trussiumruntimes.runtime.trussium.io", "labels": labels},
            "spec": {"group": "runtime.trussium.io", "scope": "Namespaced",
                     "names": {"plural": "trussiumruntimes", "kind": "TrussiumRuntime"}, "versions": []}
        }))
        .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn an_older_crd_is_upgraded_a_newer_one_refused() {
        assert_eq!(crd_change(None).ok(), Some(CrdChange::New));
        assert_eq!(
            crd_change(Some(&crd(Some(VERSION)))).ok(),
            Some(CrdChange::Same)
        );
        assert_eq!(
            crd_change(Some(&crd(Some("0.0.1")))).ok(),
            Some(CrdChange::Upgrade {
                from: "0.0.1".into(),
                runtimes: 0
            })
        );
        assert!(matches!(
            crd_change(Some(&crd(None))),
            Ok(CrdChange::Upgrade { .. })
        ));
        let newer = crd_change(Some(&crd(Some("999.0.0"))));
        match newer {
            Err(e @ Error::NewerCrd { .. }) => {
                let text = e.to_string();
                assert!(text.contains("999.0.0") && text.contains(VERSION), "{text}");
            }
            other => panic!("{other:?}"),
        }
    }

    fn deployment(generation: i64, status: Value) -> Deployment {
        serde_json::from_value(json!({
            "metadata": {"name": "trussium-operator", "generation": generation},
            "spec": {"replicas": 2, "selector": {}, "template": {}},
            "status": status
        }))
        .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn available_as_kubectl_rollout_status_says() {
        let waiting =
            |s: Value| matches!(availability(&deployment(2, s)), Availability::Waiting(_));
        assert!(waiting(json!({"observedGeneration": 1})));
        assert!(waiting(
            json!({"observedGeneration": 2, "updatedReplicas": 1})
        ));
        assert!(waiting(
            json!({"observedGeneration": 2, "updatedReplicas": 2, "replicas": 3})
        ));
        assert!(waiting(
            json!({"observedGeneration": 2, "updatedReplicas": 2, "replicas": 2, "availableReplicas": 1})
        ));
        assert_eq!(
            availability(&deployment(
                2,
                json!({"observedGeneration": 2, "updatedReplicas": 2, "replicas": 2,
                       "availableReplicas": 2, "readyReplicas": 3})
            )),
            Availability::Available { ready: 2 }
        );
        assert_eq!(
            availability(&deployment(
                2,
                json!({"observedGeneration": 2, "conditions": [{"type": "Progressing", "status": "False",
                       "reason": "ProgressDeadlineExceeded", "message": "stuck"}]})
            )),
            Availability::Failed("stuck".into())
        );
    }

    #[test]
    fn install_flags_are_checked_before_anything_is_sent() {
        let cli = try_parse(&[
            "install",
            "-n",
            "ops",
            "--watch-namespace",
            "team-a",
            "--replicas",
            "3",
            "--image",
            "registry.example.com/op",
            "-o",
            "yaml",
        ])
        .unwrap_or_else(|e| panic!("{e}"));
        let Command::Install(args) = cli.command else {
            panic!("not install");
        };
        assert_eq!(args.watch_namespace.as_deref(), Some("team-a"));
        assert_eq!(args.replicas, Some(3));
        assert_eq!(cli.global.namespace.as_deref(), Some("ops"));
        for bad in [
            &["install", "--replicas", "0"][..],
            &["install", "--watch-namespace", "Team_A"],
            &["install", "--image", "Registry/Op"],
            &["install", "--image", "r/op:-bad"],
            &["install", "--dry-run", "maybe"],
            &["install", "-o", "yaml", "--wait"],
            &["install", "--dry-run=server", "--wait"],
            &["install", "--timeout", "1m"],
        ] {
            let err = try_parse(bad)
                .err()
                .unwrap_or_else(|| panic!("{bad:?} accepted"));
            assert_eq!(err.exit_code(), 2, "{bad:?}");
        }
        assert!(try_parse(&["install", "--dry-run=client", "-o", "json"]).is_ok());
    }
}
