//! Errors people read: one clear line (plus an optional hint), and the exit
//! code that scripts read.

use std::time::Duration;

use kube::core::Status;
use trussium_api::crd::STORAGE_VERSION;
use trussium_api::duration;

use crate::exit::Exit;

/// Where this version's release files are published: `make release` sets it
/// (RELEASE_BASE_URL), the default is the GitHub release of this version.
pub const RELEASE_BASE_URL: &str = match option_env!("TRUSSIUM_RELEASE_BASE_URL") {
    Some(url) => url,
    None => concat!(
        "https://github.com/trussiumhq/trussium-operator/releases/download/v",
        env!("CARGO_PKG_VERSION")
    ),
};

/// Where to get the CRD when it is missing: the bundle of this version's release.
pub fn crd_install_hint() -> String {
    format!(
        "install or upgrade it from this version's release:\n  kubectl apply --server-side -f {}/crds.yaml\n\
         or from a checkout of the trussium-operator repository:\n  kubectl apply --server-side -f crds/",
        RELEASE_BASE_URL.trim_end_matches('/')
    )
}

/// The resource names used in messages.
pub const RUNTIMES: &str = "trussiumruntimes.runtime.trussium.io";
pub const EVENTS: &str = "events.events.k8s.io";
pub const DEPLOYMENTS: &str = "deployments.apps";
pub const REPLICA_SETS: &str = "replicasets.apps";
pub const PODS: &str = "pods";
pub const CRDS: &str = "customresourcedefinitions.apiextensions.k8s.io";
pub const LEASES: &str = "leases.coordination.k8s.io";
pub const NAMESPACES: &str = "namespaces";

/// What the plugin was doing when a request failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    pub verb: &'static str,
    pub resource: &'static str,
    pub namespace: Option<String>,
    pub name: Option<String>,
}

impl Request {
    pub fn new(verb: &'static str, resource: &'static str) -> Self {
        Request {
            verb,
            resource,
            namespace: None,
            name: None,
        }
    }

    pub fn namespace(mut self, namespace: Option<&str>) -> Self {
        self.namespace = namespace.map(str::to_string);
        self
    }

    pub fn name(mut self, name: &str) -> Self {
        self.name = Some(name.to_string());
        self
    }
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A command-line problem found after parsing (e.g. a NAME with -A).
    #[error("{0}")]
    Usage(String),
    /// No usable kubeconfig or context.
    #[error("{0}")]
    Config(String),
    /// The API server does not serve the TrussiumRuntime version the plugin
    /// speaks: no CRD, or one older than that version.
    #[error(
        "this cluster does not serve {RUNTIMES}/{STORAGE_VERSION}: the TrussiumRuntime CRD is not installed, or older than this plugin"
    )]
    CrdMissing,
    /// The named runtime does not exist.
    #[error("TrussiumRuntime {name:?} not found in namespace {namespace:?}")]
    NotFound { name: String, namespace: String },
    /// RBAC refused the request.
    #[error(
        "forbidden: {} may not {} {} {}",
        user.as_deref().unwrap_or("you"),
        request.verb,
        request.resource,
        request.namespace.as_ref().map_or("at the cluster scope".to_string(), |ns| format!("in namespace {ns:?}"))
    )]
    Forbidden {
        request: Request,
        user: Option<String>,
    },
    /// The API server did not accept the credentials.
    #[error(
        "the API server at {server} rejected the credentials (401 Unauthorized): log in again or check the kubeconfig user"
    )]
    Unauthorized { server: String },
    /// The API server could not be reached.
    #[error("cannot reach the Kubernetes API server at {server}: {cause}")]
    Unreachable { server: String, cause: String },
    /// `create`: the name is taken; nothing was changed.
    #[error(
        "not creating {name}: a runtime of that name exists in namespace {namespace}; it was left as it is"
    )]
    AlreadyExists { name: String, namespace: String },
    /// Any other answer from the API server.
    #[error(
        "{} {}{} failed ({code}): {message}",
        request.verb,
        request.resource,
        request.name.as_ref().map_or(String::new(), |n| format!(" {n}"))
    )]
    Api {
        request: Request,
        code: u16,
        message: String,
    },
    /// `--wait`: the operator reported UpgradeFailed (for `install`: the
    /// operator's Deployment passed its progress deadline).
    #[error("{action} of {name}{to} failed: {message}")]
    RolloutFailed {
        action: &'static str,
        name: String,
        /// Where it was going, e.g. " to v2" (empty for a restart).
        to: String,
        message: String,
    },
    /// `--wait`: the timeout elapsed.
    #[error(
        "timed out after {} waiting for the {rollout} to finish; last seen: {last}",
        duration::format(*after)
    )]
    Timeout {
        /// What was rolling out, e.g. "upgrade of rt to v2".
        rollout: String,
        after: Duration,
        last: String,
        /// The command that follows it further.
        follow: String,
    },
    /// `scale` while autoscaling owns the replica count.
    #[error(
        "not scaling {name} to {requested}: autoscaling is enabled, so its HorizontalPodAutoscaler owns the replica count ({})",
        max.map_or(format!("{min} or more"), |max| format!("{min}–{max}"))
    )]
    AutoscalingOwnsReplicas {
        name: String,
        namespace: String,
        min: i32,
        max: Option<i32>,
        requested: i32,
    },
    /// `rollback` refused before changing anything.
    #[error("not rolling back {name}: {refusal}")]
    RollbackRefused {
        name: String,
        namespace: String,
        refusal: Refusal,
    },
    /// `upgrade`, `scale`, `rollback`: the runtime is suspended and
    /// --force was not given; nothing was changed.
    #[error("not {doing} {name}: it is suspended{}", reason.as_ref().map_or(String::new(), |r| format!(" (reason: {r})")))]
    Suspended {
        doing: &'static str,
        name: String,
        namespace: String,
        reason: Option<String>,
    },
    /// `scale`, `upgrade`: the runtime is being deleted.
    #[error("not {doing} {name}: it is being deleted")]
    BeingDeleted { doing: &'static str, name: String },
    /// The runtime's object does not read as a TrussiumRuntime (a value its
    /// type cannot hold).
    #[error("cannot read TrussiumRuntime {name} in namespace {namespace}: {reason}")]
    Unreadable {
        name: String,
        namespace: String,
        reason: String,
    },
    /// `migrate`, `install`: the CRD cannot be migrated by this plugin;
    /// nothing was written.
    #[error("not migrating: {0}; nothing was written")]
    Migration(String),
    /// `install`: the cluster's CRD belongs to a newer release.
    #[error(
        "not installing: the cluster's TrussiumRuntime CRD is version {installed}, newer than this plugin's {plugin}"
    )]
    NewerCrd { installed: String, plugin: String },
    /// `install`, `uninstall`: the user may not do all of it; nothing was
    /// changed.
    #[error("not {doing}: you may not {}; nothing was changed", missing.join(", "))]
    NotPermitted {
        doing: &'static str,
        missing: Vec<String>,
    },
    /// `install`: the API server refused an object in a dry run; nothing was
    /// changed.
    #[error("not installing: the API server refuses {object}: {message}; nothing was changed")]
    WouldBeRefused { object: String, message: String },
    /// `install`: applying an object failed after the checks passed (the
    /// cluster changed meanwhile); the objects before it are applied.
    #[error(
        "installing stopped at {object}: {message} ({applied} object{} applied before it)",
        if *applied == 1 { " was" } else { "s were" }
    )]
    ApplyFailed {
        object: String,
        message: String,
        applied: usize,
    },
    /// `install --watch-namespace`: the namespace to watch does not exist.
    #[error("not installing: namespace {0:?} (to watch) does not exist")]
    NoSuchNamespace(String),
    /// `uninstall`: there is no operator Deployment where it looked.
    #[error("no Trussium operator is installed in namespace {namespace:?} (no Deployment {name})")]
    NotInstalled { namespace: String, name: String },
    /// `uninstall` while runtimes exist, without `--force`.
    #[error(
        "not uninstalling: {} runtime{} exist{} (in {}); without the operator nobody manages them",
        count,
        if *count == 1 { "" } else { "s" },
        if *count == 1 { "s" } else { "" },
        namespaces.join(", ")
    )]
    RuntimesExist {
        count: usize,
        namespaces: Vec<String>,
    },
    /// `check`: at least one check failed.
    #[error("{failed} of {total} checks failed")]
    ChecksFailed { failed: usize, total: usize },
    /// `logs`: the runtime has no pods to read.
    #[error("TrussiumRuntime {name:?} has no pods in namespace {namespace:?}")]
    NoPods { name: String, namespace: String },
    /// `diagnose`: the runtime (or one of them) is not Ready; the diagnosis
    /// printed says why.
    #[error("{0}")]
    NotReady(String),
    /// What we were following went away.
    #[error("{object} was deleted")]
    Deleted { object: String },
    #[error("{0}")]
    Io(std::io::Error),
    /// stdout was closed (e.g. `| head`): stop quietly.
    #[error("broken pipe")]
    BrokenPipe,
}

/// Why `rollback` will not change anything.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("no rollout has completed yet, so there is no earlier image known to work")]
    NoRolloutCompleted,
    #[error("it has run no other image than the desired one")]
    NoEarlierImage,
    #[error("its desired image is already {0}")]
    AlreadyDesired(String),
    #[error("it is being deleted")]
    BeingDeleted,
    #[error("it never ran {0:?}")]
    NeverRan(String),
    /// The status names an image the Deployment's history does not show:
    /// status is written by whoever has the rights, so it is not trusted.
    #[error(
        "its status names {0:?} as the last successful image, but no revision in its history ran it"
    )]
    Unverified(String),
    #[error("it has no revision {revision} (revisions: {})", known.iter().map(i64::to_string).collect::<Vec<_>>().join(", "))]
    NoSuchRevision { revision: i64, known: Vec<i64> },
}

impl Refusal {
    /// What to do instead of the refused rollback of runtime `name`; nothing
    /// for one being deleted.
    fn hint(&self, name: &str, namespace: &str) -> Option<String> {
        Some(match self {
            Refusal::NoRolloutCompleted => format!(
                "choose an image instead: `kubectl trussium upgrade {name} -n {namespace} --tag TAG`"
            ),
            Refusal::AlreadyDesired(_) => format!(
                "see where the rollout stands with `kubectl trussium status {name} -n {namespace}`"
            ),
            Refusal::BeingDeleted => return None,
            Refusal::NoEarlierImage
            | Refusal::NeverRan(_)
            | Refusal::NoSuchRevision { .. }
            | Refusal::Unverified(_) => format!(
                "the images it ran: `kubectl trussium history {name} -n {namespace}`; another image: `kubectl trussium upgrade {name} -n {namespace} --tag TAG`"
            ),
        })
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// The exit code this error ends the plugin with.
    pub fn exit(&self) -> Exit {
        match self {
            Error::Usage(_) => Exit::Usage,
            Error::RolloutFailed { .. } => Exit::RolloutFailed,
            Error::Timeout { .. } => Exit::TimedOut,
            Error::AutoscalingOwnsReplicas { .. } | Error::RuntimesExist { .. } => Exit::Refused,
            Error::RollbackRefused { refusal, .. } => match refusal {
                Refusal::NoRolloutCompleted | Refusal::NoEarlierImage => Exit::NoEarlierImage,
                Refusal::AlreadyDesired(_) => Exit::AlreadyDesired,
                Refusal::BeingDeleted => Exit::BeingDeleted,
                Refusal::NeverRan(_) | Refusal::NoSuchRevision { .. } | Refusal::Unverified(_) => {
                    Exit::NotInHistory
                }
            },
            Error::BeingDeleted { .. } => Exit::BeingDeleted,
            Error::Suspended { .. } => Exit::Suspended,
            Error::ChecksFailed { .. } => Exit::CheckFailed,
            Error::NotReady(_) => Exit::NotReady,
            Error::AlreadyExists { .. } => Exit::AlreadyExists,
            Error::BrokenPipe => Exit::Ok,
            Error::Config(_)
            | Error::CrdMissing
            | Error::NoPods { .. }
            | Error::NotFound { .. }
            | Error::Forbidden { .. }
            | Error::Unauthorized { .. }
            | Error::Unreachable { .. }
            | Error::Api { .. }
            | Error::Deleted { .. }
            | Error::Unreadable { .. }
            | Error::NewerCrd { .. }
            | Error::Migration(_)
            | Error::NotPermitted { .. }
            | Error::WouldBeRefused { .. }
            | Error::ApplyFailed { .. }
            | Error::NoSuchNamespace(_)
            | Error::NotInstalled { .. }
            | Error::Io(_) => Exit::Error,
        }
    }

    /// Further lines telling what to do, when there is something to say.
    pub fn hint(&self) -> Option<String> {
        match self {
            Error::CrdMissing => Some(crd_install_hint()),
            Error::NotFound { namespace, .. } => Some(format!(
                "list the runtimes with `kubectl trussium status -n {namespace}` or `kubectl trussium status -A`"
            )),
            Error::Forbidden { request, .. } => Some(format!(
                "ask a cluster administrator for a Role that allows `{}` on {}",
                request.verb, request.resource
            )),
            Error::Unreachable { .. } => Some(
                "check that the cluster is running and that --context/--kubeconfig (or KUBECONFIG, or --server) select it"
                    .to_string(),
            ),
            Error::Timeout { follow, .. } => Some(format!(
                "the rollout may still finish: follow it with `{follow}`"
            )),
            Error::Suspended {
                name, namespace, ..
            } => Some(format!(
                "resume it first: kubectl trussium resume {name} -n {namespace}\n\
                 or pass --force to record the change in the spec now; the operator applies it once the runtime is resumed"
            )),
            Error::AutoscalingOwnsReplicas {
                name, namespace, ..
            } => Some(format!(
                "change the autoscaling bounds instead:\n  kubectl patch trussiumruntime {name} -n {namespace} --type merge -p '{{\"spec\":{{\"autoscaling\":{{\"minReplicas\":N,\"maxReplicas\":M}}}}}}'\n\
                 or disable autoscaling (spec.autoscaling.enabled: false) and scale again,\n\
                 or pass --force to set spec.replicas now; it takes effect once autoscaling is disabled"
            )),
            Error::RollbackRefused {
                name,
                namespace,
                refusal,
            } => refusal.hint(name, namespace),
            Error::NewerCrd { installed, .. } => Some(format!(
                "upgrade the plugin (`kubectl krew upgrade trussium`), or install with kubectl-trussium {installed}"
            )),
            Error::NotPermitted { doing, .. } => Some(format!(
                "ask a cluster administrator to run the {doing}, or for those permissions; \
                 `--dry-run=server` checks again without changing anything"
            )),
            Error::ApplyFailed { .. } => Some(
                "fix the cause and run install again: it applies every object again".to_string(),
            ),
            Error::NoSuchNamespace(namespace) => Some(format!(
                "create it first: `kubectl create namespace {namespace}`"
            )),
            Error::NotInstalled { .. } => Some(
                "pass -n with the namespace it was installed in (`kubectl get deployments -A -l app.kubernetes.io/name=trussium-operator`)"
                    .to_string(),
            ),
            Error::RuntimesExist { .. } => Some(
                "delete them first (`kubectl trussium status -A`), or pass --force to remove the operator anyway;\n\
                 the CRD and the runtimes stay, and their Deployments keep serving"
                    .to_string(),
            ),
            Error::ChecksFailed { .. } => {
                Some("each ✗ above says what to do next".to_string())
            }
            Error::NoPods { name, namespace } => Some(format!(
                "it is scaled to zero, or its pods are not created: `{}` says why",
                crate::terminal::shell_command(&["kubectl", "trussium", "diagnose", name, "-n", namespace])
            )),
            _ => None,
        }
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            Error::BrokenPipe
        } else {
            Error::Io(e)
        }
    }
}

/// Turns a failed request into the error a person should read.
pub fn classify(err: kube::Error, request: &Request, server: &str) -> Error {
    match err {
        kube::Error::Api(status) => classify_status(&status, request, server),
        kube::Error::Auth(e) => Error::Config(format!("cannot authenticate to {server}: {e}")),
        other => Error::Unreachable {
            server: server.to_string(),
            cause: root_cause(&other),
        },
    }
}

/// The pure part of [`classify`]: an API server `Status` answer.
pub fn classify_status(status: &Status, request: &Request, server: &str) -> Error {
    let named = status.details.as_ref().is_some_and(|d| !d.name.is_empty());
    match status.code {
        401 => Error::Unauthorized {
            server: server.to_string(),
        },
        403 => Error::Forbidden {
            request: request.clone(),
            user: user_in(&status.message),
        },
        // A named object that does not exist comes with details; a resource
        // the server does not know (no CRD) is a bare 404.
        404 if request.resource == RUNTIMES && !named => Error::CrdMissing,
        404 if request.resource == RUNTIMES => Error::NotFound {
            name: request.name.clone().unwrap_or_default(),
            namespace: request.namespace.clone().unwrap_or_default(),
        },
        code => Error::Api {
            request: request.clone(),
            code,
            message: status.message.clone(),
        },
    }
}

/// `User "system:serviceaccount:ns:sa" cannot …` → `system:serviceaccount:ns:sa`.
fn user_in(message: &str) -> Option<String> {
    let rest = message.split_once("User \"")?.1;
    let user = rest.split_once('"')?.0;
    (!user.is_empty()).then(|| user.to_string())
}

/// The innermost cause, which says what actually went wrong ("Connection
/// refused"), without the layers of wrapping above it.
fn root_cause(err: &(dyn std::error::Error + 'static)) -> String {
    let mut current = err;
    while let Some(next) = current.source() {
        current = next;
    }
    let text = current.to_string();
    if text.is_empty() {
        err.to_string()
    } else if text == "deadline has elapsed" {
        // tokio's words for a connection or a read past its time.
        "no answer in time (see --request-timeout)".to_string()
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(json: &str) -> Status {
        serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}"))
    }

    fn get(name: &str) -> Request {
        Request::new("get", RUNTIMES)
            .namespace(Some("ai"))
            .name(name)
    }

    // Answers of the API server (v1.36). A group that is not served at all
    // answers a plain-text "404 page not found", which kube turns into this:
    fn no_such_group() -> Status {
        Status::failure("404 page not found", "Failed to parse error data").with_code(404)
    }
    // A served group without the resource answers a bare Status:
    const NO_SUCH_RESOURCE: &str = r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","details":{},"code":404}"#;
    const NO_SUCH_RUNTIME: &str = r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"trussiumruntimes.runtime.trussium.io \"nope\" not found","reason":"NotFound","details":{"name":"nope","group":"runtime.trussium.io","kind":"trussiumruntimes"},"code":404}"#;
    const FORBIDDEN: &str = r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"trussiumruntimes.runtime.trussium.io is forbidden: User \"system:serviceaccount:ai:nobody\" cannot list resource \"trussiumruntimes\" in API group \"runtime.trussium.io\" in the namespace \"ai\"","reason":"Forbidden","details":{"group":"runtime.trussium.io","kind":"trussiumruntimes"},"code":403}"#;

    #[test]
    fn bare_404_means_the_crd_is_missing() {
        let e = classify_status(&no_such_group(), &get("rt"), "https://k");
        assert!(matches!(e, Error::CrdMissing), "{e:?}");
        let e = classify_status(&status(NO_SUCH_RESOURCE), &get("rt"), "https://k");
        assert!(matches!(e, Error::CrdMissing), "{e:?}");
        assert_eq!(e.exit(), Exit::Error);
        assert_eq!(
            e.to_string(),
            "this cluster does not serve trussiumruntimes.runtime.trussium.io/v1beta1: the TrussiumRuntime CRD is not installed, or older than this plugin"
        );
        let hint = e.hint().unwrap_or_default();
        assert!(
            hint.contains("kubectl apply --server-side -f crds/"),
            "{hint}"
        );
    }

    #[test]
    fn named_404_means_the_runtime_is_missing() {
        let e = classify_status(&status(NO_SUCH_RUNTIME), &get("nope"), "https://k");
        assert_eq!(
            e.to_string(),
            "TrussiumRuntime \"nope\" not found in namespace \"ai\""
        );
    }

    #[test]
    fn a_404_on_events_is_not_about_the_crd() {
        let req = Request::new("list", EVENTS).namespace(Some("ai"));
        let e = classify_status(&status(NO_SUCH_RESOURCE), &req, "https://k");
        assert!(matches!(e, Error::Api { code: 404, .. }), "{e:?}");
    }

    #[test]
    fn forbidden_names_who_verb_and_resource() {
        let req = Request::new("list", RUNTIMES).namespace(Some("ai"));
        let e = classify_status(&status(FORBIDDEN), &req, "https://k");
        assert_eq!(
            e.to_string(),
            "forbidden: system:serviceaccount:ai:nobody may not list trussiumruntimes.runtime.trussium.io in namespace \"ai\""
        );
        let all = Request::new("list", RUNTIMES);
        let e = classify_status(
            &status(r#"{"code":403,"message":"nope"}"#),
            &all,
            "https://k",
        );
        assert_eq!(
            e.to_string(),
            "forbidden: you may not list trussiumruntimes.runtime.trussium.io at the cluster scope"
        );
    }

    #[test]
    fn unauthorized_and_other_codes() {
        let e = classify_status(&status(r#"{"code":401}"#), &get("rt"), "https://k:6443");
        assert!(e.to_string().contains("https://k:6443"), "{e}");
        let e = classify_status(
            &status(r#"{"code":422,"message":"spec.image.tag: Invalid value"}"#),
            &Request::new("patch", RUNTIMES).name("rt"),
            "https://k",
        );
        assert_eq!(
            e.to_string(),
            "patch trussiumruntimes.runtime.trussium.io rt failed (422): spec.image.tag: Invalid value"
        );
    }

    #[test]
    fn exit_codes() {
        let timeout = Error::Timeout {
            rollout: "upgrade of rt to v2".into(),
            after: Duration::from_secs(300),
            last: "x".into(),
            follow: "kubectl trussium status rt -n ai --watch".into(),
        };
        let failed = Error::RolloutFailed {
            action: "upgrade",
            name: "rt".into(),
            to: " to i".into(),
            message: "m".into(),
        };
        let refused = Error::AutoscalingOwnsReplicas {
            name: "rt".into(),
            namespace: "ai".into(),
            min: 2,
            max: Some(10),
            requested: 3,
        };
        assert_eq!(timeout.exit(), Exit::TimedOut);
        assert_eq!(failed.exit(), Exit::RolloutFailed);
        assert_eq!(refused.exit(), Exit::Refused);
        assert_eq!(Error::Usage("x".into()).exit(), Exit::Usage);
        assert_eq!(Error::CrdMissing.exit(), Exit::Error);
        assert_eq!(Error::BrokenPipe.exit(), Exit::Ok);
        assert!(
            timeout.to_string().starts_with("timed out after 5m "),
            "{timeout}"
        );
        assert!(refused.to_string().contains("(2–10)"), "{refused}");
        assert!(refused.hint().unwrap_or_default().contains("--force"));
        assert!(
            timeout
                .hint()
                .unwrap_or_default()
                .contains("`kubectl trussium status rt -n ai --watch`")
        );
        let in_use = Error::RuntimesExist {
            count: 1,
            namespaces: vec!["ai".into()],
        };
        assert_eq!(in_use.exit(), Exit::Refused);
        assert_eq!(
            in_use.to_string(),
            "not uninstalling: 1 runtime exists (in ai); without the operator nobody manages them"
        );
        let failed = Error::ChecksFailed {
            failed: 2,
            total: 7,
        };
        assert_eq!(failed.exit(), Exit::CheckFailed);
        assert_eq!(failed.to_string(), "2 of 7 checks failed");
    }

    #[test]
    fn install_refusals_name_what_is_missing() {
        let e = Error::NotPermitted {
            doing: "installing",
            missing: vec![
                "create clusterroles.rbac.authorization.k8s.io".into(),
                "patch clusterroles.rbac.authorization.k8s.io trussium-operator".into(),
            ],
        };
        assert_eq!(
            e.to_string(),
            "not installing: you may not create clusterroles.rbac.authorization.k8s.io, patch clusterroles.rbac.authorization.k8s.io trussium-operator; nothing was changed"
        );
        let e = Error::NewerCrd {
            installed: "0.2.0".into(),
            plugin: "0.1.0".into(),
        };
        assert!(
            e.to_string()
                .contains("version 0.2.0, newer than this plugin's 0.1.0")
        );
        assert!(
            e.hint()
                .unwrap_or_default()
                .contains("kubectl-trussium 0.2.0")
        );
        assert_eq!(e.exit(), Exit::Error);
        let e = Error::ApplyFailed {
            object: "Deployment ops/trussium-operator".into(),
            message: "quota exceeded".into(),
            applied: 1,
        };
        assert_eq!(
            e.to_string(),
            "installing stopped at Deployment ops/trussium-operator: quota exceeded (1 object was applied before it)"
        );
    }

    #[test]
    fn root_cause_skips_wrappers() {
        let inner =
            std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "Connection refused");
        let outer = kube::Error::ReadEvents(inner);
        assert_eq!(root_cause(&outer), "Connection refused");
    }

    #[test]
    fn each_rollback_refusal_hints_what_to_do_instead() {
        let hint = |refusal| {
            Error::RollbackRefused {
                name: "rt".into(),
                namespace: "ai".into(),
                refusal,
            }
            .hint()
        };
        assert_eq!(
            hint(Refusal::NoRolloutCompleted).as_deref(),
            Some("choose an image instead: `kubectl trussium upgrade rt -n ai --tag TAG`")
        );
        assert_eq!(
            hint(Refusal::AlreadyDesired("r:v1".into())).as_deref(),
            Some("see where the rollout stands with `kubectl trussium status rt -n ai`")
        );
        assert_eq!(hint(Refusal::BeingDeleted), None);
        let elsewhere = "the images it ran: `kubectl trussium history rt -n ai`; another image: `kubectl trussium upgrade rt -n ai --tag TAG`";
        for refusal in [
            Refusal::NoEarlierImage,
            Refusal::NeverRan("v9".into()),
            Refusal::Unverified("r:v0".into()),
            Refusal::NoSuchRevision {
                revision: 7,
                known: vec![3],
            },
        ] {
            assert_eq!(hint(refusal).as_deref(), Some(elsewhere));
        }
    }

    #[test]
    fn each_rollback_refusal_has_its_own_exit_code_and_line() {
        let refused = |refusal| Error::RollbackRefused {
            name: "rt".into(),
            namespace: "ai".into(),
            refusal,
        };
        let none = refused(Refusal::NoRolloutCompleted);
        let only = refused(Refusal::NoEarlierImage);
        let same = refused(Refusal::AlreadyDesired("r:v1".into()));
        let deleting = refused(Refusal::BeingDeleted);
        let never = refused(Refusal::NeverRan("v9".into()));
        let revision = refused(Refusal::NoSuchRevision {
            revision: 7,
            known: vec![3, 2, 1],
        });
        assert_eq!(
            [&none, &only, &same, &deleting, &never, &revision].map(|e| e.exit().code()),
            [6, 6, 7, 8, 9, 9]
        );
        assert_eq!(
            none.to_string(),
            "not rolling back rt: no rollout has completed yet, so there is no earlier image known to work"
        );
        assert_eq!(
            same.to_string(),
            "not rolling back rt: its desired image is already r:v1"
        );
        assert_eq!(
            revision.to_string(),
            "not rolling back rt: it has no revision 7 (revisions: 3, 2, 1)"
        );
        assert!(
            never
                .hint()
                .unwrap_or_default()
                .contains("kubectl trussium history rt -n ai")
        );
        assert_eq!(
            deleting.to_string(),
            "not rolling back rt: it is being deleted"
        );
        assert!(none.hint().unwrap_or_default().contains("upgrade rt -n ai"));
    }

    #[test]
    fn the_crd_hint_names_this_versions_release() {
        let hint = crd_install_hint();
        assert!(
            hint.contains(&format!("{RELEASE_BASE_URL}/crds.yaml")),
            "{hint}"
        );
        if option_env!("TRUSSIUM_RELEASE_BASE_URL").is_none() {
            assert!(
                hint.contains(concat!(
                    "/releases/download/v",
                    env!("CARGO_PKG_VERSION"),
                    "/crds.yaml"
                )),
                "{hint}"
            );
        }
    }
}
