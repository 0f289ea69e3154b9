//! What a failed write of an owned object comes to. Pure: the reconcile acts
//! on how it is handled.
//!
//! - A refusal the API server will repeat for the same object is permanent:
//!   an invalid object (422) or a bad request (400), a body too large (413)
//!   — unless the message says the server failed on its way to the answer —,
//!   a name someone else's object holds (409 `AlreadyExists`: the operator
//!   never takes it over), and the 500 an apply gets for a body that does
//!   not decode (a resource quantity that does not parse). The runtime
//!   stalls, naming the object, the field and the reason; the operator does
//!   not retry until something changes (see `reconcile`).
//! - Anything else may pass by itself: no answer (the API server restarts),
//!   429, a real server failure, a conflict (409 `Conflict`), a refusal of
//!   our rights (403, which a restarting API server gives for a moment: see
//!   [`super::refusals`]). Retried, backing off (see
//!   [`crate::pure::backoff::failed`]).
//! - A write refused because the namespace is being deleted lets the runtime
//!   go (see [`super::terminating`]).

use std::fmt;

use k8s_openapi::api::networking::v1::NetworkPolicy;
use kube::Resource;
use trussium_api::reason;

use super::error::one_line;
use super::grace::retried_before_reporting;
use super::terminating::refused_for_namespace_deletion;
use crate::pure::status::stalled::Stall;

/// A write of an owned object that failed: which object, and the answer.
#[derive(Debug)]
pub struct Failed {
    pub kind: String,
    pub name: String,
    pub source: kube::Error,
}

impl Failed {
    /// Names a failed write of the `K` called `name`.
    pub fn of<K: Resource<DynamicType = ()>>(name: &str) -> impl FnOnce(kube::Error) -> Failed {
        let name = name.to_string();
        move |source| Failed {
            kind: K::kind(&()).into_owned(),
            name,
            source,
        }
    }
}

impl fmt::Display for Failed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&one_line(&self.source))
    }
}

/// Whether the API server will answer the same for the same object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// Refused, and refused again until the object or the cluster changes:
    /// the field the API server names (if it does) and its reason.
    Permanent {
        field: Option<String>,
        reason: String,
        /// Someone else's object holds the name.
        conflict: bool,
    },
    /// May pass by itself.
    Transient,
}

/// Sorts an answer to a write (see the module's documentation).
pub fn classify(err: &kube::Error) -> Failure {
    let kube::Error::Api(status) = err else {
        return Failure::Transient;
    };
    let conflict = status.code == 409 && status.reason == "AlreadyExists";
    let permanent = match status.code {
        400 | 413 | 422 => !failed_inside_the_server(&status.message),
        409 => conflict,
        500 => undecodable(&status.message),
        // A webhook or policy may refuse with its own code and say why.
        code if code < 500 && code != 429 => {
            ["Invalid", "BadRequest", "RequestEntityTooLarge"].contains(&status.reason.as_str())
        }
        _ => false,
    };
    if !permanent {
        return Failure::Transient;
    }
    let causes = status.details.as_ref().map(|d| d.causes.as_slice());
    let mut fields: Vec<&str> = causes
        .unwrap_or_default()
        .iter()
        .map(|cause| cause.field.as_str())
        .filter(|field| !field.is_empty())
        .collect();
    fields.dedup();
    let field = if fields.is_empty() {
        field_in_message(&status.message)
    } else {
        Some(fields.join(", "))
    };
    Failure::Permanent {
        field,
        reason: status.message.clone(),
        conflict,
    }
}

/// What `message` of a 500 says when the object sent cannot be read: its
/// body does not decode into the kind (a quantity that does not parse, a
/// value of the wrong type). The same body fails the same way every time;
/// the API server reports it as its own failure only for want of a better
/// code. Anything else a 500 says is a failure of the server: also a bare
/// "cannot unmarshal", which a stored object that does not decode gives
/// too (the phrases of the apply body cover the quantities).
fn undecodable(message: &str) -> bool {
    const SAID: [&str; 4] = [
        "failed to create typed patch object",
        "unable to convert unstructured object to",
        "quantities must match the regular expression",
        "unable to parse quantity",
    ];
    SAID.iter().any(|said| message.contains(said))
}

/// Whether a refusal's `message` says the API server failed on its way to
/// an answer rather than judged the object: a Service create during an API
/// server's shutdown is refused 422 "failed to allocate IP: Post
/// …/ipaddresses: dial tcp …: connection refused" (its loopback call to
/// itself), and the same object passes a moment later.
fn failed_inside_the_server(message: &str) -> bool {
    const SAID: [&str; 5] = [
        "failed to allocate",
        "connection refused",
        "dial tcp",
        "i/o timeout",
        "context deadline exceeded",
    ];
    SAID.iter().any(|said| message.contains(said))
}

/// The field a message without causes names, as the typed-patch errors put
/// it: `… (ns/x; apps/v1, Kind=Deployment): .spec.x.y: what is wrong`.
fn field_in_message(message: &str) -> Option<String> {
    let start = message.find(": .")? + 2;
    let rest = &message[start..];
    let end = rest.find(": ")?;
    let field = rest[..end].trim_start_matches('.');
    (!field.is_empty() && !field.contains(' ')).then(|| field.to_string())
}

/// What the reconcile does about a failed write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Handling {
    /// No answer at all: the API server is away (restarting). Retry, and
    /// report nothing: a restart must not read as a failure.
    Unanswered,
    /// The namespace is being deleted: let the runtime go.
    NamespaceDeleting,
    /// Retry, backing off. `confirm` when a restarting API server gives
    /// such answers for a moment: reported only once they last (see
    /// [`super::refusals`]).
    Transient { confirm: bool },
    /// Report the stall; no retry until something changes.
    Permanent(Stall),
}

/// How the reconcile handles `failed`, a write of an object of the runtime.
pub fn handling(failed: &Failed) -> Handling {
    let kube::Error::Api(status) = &failed.source else {
        return Handling::Unanswered;
    };
    if refused_for_namespace_deletion(&failed.source) {
        return Handling::NamespaceDeleting;
    }
    match classify(&failed.source) {
        Failure::Transient => Handling::Transient {
            confirm: retried_before_reporting(status.code),
        },
        Failure::Permanent {
            field,
            reason,
            conflict,
        } => Handling::Permanent(stall(failed, field.as_deref(), &reason, conflict)),
    }
}

/// The stall a permanent failure of `failed` reports.
fn stall(failed: &Failed, field: Option<&str>, why: &str, conflict: bool) -> Stall {
    let Failed { kind, name, .. } = failed;
    let policy = kind.as_str() == <NetworkPolicy as k8s_openapi::Resource>::KIND;
    let held = if policy {
        " The Deployment is not created or changed until the policy applies."
    } else {
        ""
    };
    let reason = match (policy, conflict) {
        (true, true) => reason::NETWORK_POLICY_CONFLICT,
        (true, false) => reason::NETWORK_POLICY_REFUSED,
        (false, true) => reason::NAME_CONFLICT,
        (false, false) => reason::APPLY_REFUSED,
    };
    let message = if conflict {
        format!(
            "{kind} {name:?} exists and is not controlled by this TrussiumRuntime; the operator neither takes it over nor deletes it: remove or rename it.{held}"
        )
    } else {
        let field = field.map_or(String::new(), |f| format!(" (field {f})"));
        format!(
            "The API server refuses {kind} {name:?}{field}: {why}. The operator applies it again when the runtime changes.{held}"
        )
    };
    Stall { reason, message }
}

#[cfg(test)]
mod tests {
    use kube::core::Status;
    use kube::core::response::{StatusCause, StatusDetails};

    use super::*;

    fn api(code: u16, reason: &str, message: &str) -> kube::Error {
        kube::Error::Api(Status::failure(message, reason).with_code(code).boxed())
    }

    fn with_causes(code: u16, reason: &str, message: &str, fields: &[&str]) -> kube::Error {
        caused(code, reason, message, "FieldValueInvalid", fields)
    }

    fn caused(code: u16, reason: &str, message: &str, cause: &str, fields: &[&str]) -> kube::Error {
        let mut status = Status::failure(message, reason).with_code(code);
        status.details = Some(StatusDetails {
            name: "x".into(),
            group: String::new(),
            kind: String::new(),
            uid: String::new(),
            causes: fields
                .iter()
                .map(|field| StatusCause {
                    reason: cause.into(),
                    message: "Invalid value".into(),
                    field: (*field).into(),
                })
                .collect(),
            retry_after_seconds: 0,
        });
        kube::Error::Api(status.boxed())
    }

    fn failed(kind: &str, source: kube::Error) -> Failed {
        Failed {
            kind: kind.into(),
            name: "x".into(),
            source,
        }
    }

    /// As Kubernetes 1.36 answers an apply of a Deployment with a CPU limit
    /// of "1x".
    const QUANTITY_SEEN: &str = "failed to convert new object (default/q; apps/v1, Kind=Deployment) to proper version: unable to convert unstructured object to apps/v1, Kind=Deployment: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
    const QUANTITY: &str = "failed to create typed patch object (ns/x; apps/v1, Kind=Deployment): .spec.template.spec.containers[name=\"runtime\"].resources.limits.cpu: quantities must match the regular expression";

    #[test]
    fn classification_table() {
        let unanswered = kube::Error::Service("connection refused".into());
        let permanent = |field: Option<&str>| Failure::Permanent {
            field: field.map(String::from),
            reason: String::new(),
            conflict: false,
        };
        let table: [(kube::Error, Failure); 20] = [
            (api(500, "InternalError", QUANTITY_SEEN), permanent(None)),
            (unanswered, Failure::Transient),
            (
                with_causes(422, "Invalid", "bad", &["metadata.labels"]),
                permanent(Some("metadata.labels")),
            ),
            (api(422, "Invalid", "denied by policy"), permanent(None)),
            (api(400, "BadRequest", "bad"), permanent(None)),
            (api(413, "RequestEntityTooLarge", "big"), permanent(None)),
            (
                api(500, "InternalError", QUANTITY),
                permanent(Some(
                    "spec.template.spec.containers[name=\"runtime\"].resources.limits.cpu",
                )),
            ),
            (
                api(
                    500,
                    "InternalError",
                    "quantities must match the regular expression",
                ),
                permanent(None),
            ),
            (
                api(
                    500,
                    "InternalError",
                    "failed to allocate a serviceIP: range is full",
                ),
                Failure::Transient,
            ),
            (
                api(500, "InternalError", "etcdserver: request timed out"),
                Failure::Transient,
            ),
            // A stored object that does not decode: not the body sent.
            (
                api(
                    500,
                    "InternalError",
                    "json: cannot unmarshal string into Go struct field ObjectMeta.metadata.generation of type int64",
                ),
                Failure::Transient,
            ),
            (api(502, "", "bad gateway"), Failure::Transient),
            // The API server's own call to itself failed (seen during its
            // shutdown): the same Service passes a moment later.
            (
                api(
                    422,
                    "Invalid",
                    "Service \"rt-13\" is invalid: spec.clusterIPs: Invalid value: [\"\"]: failed to allocate IP: Post \"https://127.0.0.1:26443/apis/networking.k8s.io/v1/ipaddresses\": dial tcp 127.0.0.1:26443: connect: connection refused",
                ),
                Failure::Transient,
            ),
            (
                api(503, "ServiceUnavailable", "unavailable"),
                Failure::Transient,
            ),
            (api(504, "Timeout", "timeout"), Failure::Transient),
            (api(429, "TooManyRequests", "slow down"), Failure::Transient),
            (api(403, "Forbidden", "forbidden"), Failure::Transient),
            (
                api(409, "Conflict", "the object has been modified"),
                Failure::Transient,
            ),
            (api(404, "NotFound", "not found"), Failure::Transient),
            (api(401, "Unauthorized", "Unauthorized"), Failure::Transient),
        ];
        for (err, want) in table {
            let got = match classify(&err) {
                Failure::Permanent { field, .. } => Failure::Permanent {
                    field,
                    reason: String::new(),
                    conflict: false,
                },
                other => other,
            };
            assert_eq!(got, want, "{err:?}");
        }
    }

    #[test]
    fn a_foreign_holder_is_a_permanent_conflict() {
        let err = api(409, "AlreadyExists", "NetworkPolicy ns/x exists");
        assert_eq!(
            classify(&err),
            Failure::Permanent {
                field: None,
                reason: "NetworkPolicy ns/x exists".into(),
                conflict: true
            }
        );
    }

    #[test]
    fn the_reason_is_the_api_servers_message_and_fields_are_listed_once() {
        let err = with_causes(
            422,
            "Invalid",
            "Deployment.apps \"x\" is invalid",
            &["a", "a", "b"],
        );
        assert_eq!(
            classify(&err),
            Failure::Permanent {
                field: Some("a, b".into()),
                reason: "Deployment.apps \"x\" is invalid".into(),
                conflict: false
            }
        );
    }

    #[test]
    fn a_field_is_only_read_from_a_message_shaped_for_it() {
        assert_eq!(field_in_message("no field here"), None);
        assert_eq!(field_in_message("x: . y: z"), None);
        assert_eq!(
            field_in_message("a (b): .spec.x: bad").as_deref(),
            Some("spec.x")
        );
    }

    #[test]
    fn handlings() {
        let gone = caused(
            403,
            "Forbidden",
            "unable to create new content in namespace ns because it is being terminated",
            "NamespaceTerminating",
            &[""],
        );
        let cases = [
            (
                failed("Deployment", kube::Error::Service("reset".into())),
                "Unanswered",
            ),
            (failed("Deployment", gone), "NamespaceDeleting"),
            (failed("Deployment", api(403, "Forbidden", "no")), "confirm"),
            (failed("Deployment", api(503, "", "no")), "confirm"),
            (
                failed("Deployment", api(409, "Conflict", "modified")),
                "at once",
            ),
            (
                failed("Deployment", api(422, "Invalid", "no")),
                "ApplyRefused",
            ),
            (
                failed("Service", api(409, "AlreadyExists", "held")),
                "NameConflict",
            ),
            (
                failed("NetworkPolicy", api(422, "Invalid", "no")),
                "NetworkPolicyRefused",
            ),
            (
                failed("NetworkPolicy", api(409, "AlreadyExists", "held")),
                "NetworkPolicyConflict",
            ),
        ];
        for (failed, want) in cases {
            let got = match handling(&failed) {
                Handling::Unanswered => "Unanswered",
                Handling::NamespaceDeleting => "NamespaceDeleting",
                Handling::Transient { confirm: true } => "confirm",
                Handling::Transient { confirm: false } => "at once",
                Handling::Permanent(stall) => stall.reason,
            };
            assert_eq!(got, want, "{failed:?}");
        }
    }

    /// The status a stall projects, and the Events: the contract's
    /// ReconciliationFailed reasons, Stalled with the stall's reason, one
    /// Warning; the same stall again says nothing more.
    #[test]
    #[allow(clippy::unwrap_used, clippy::expect_used)]
    fn a_stall_is_reported_once_with_the_contracts_reasons() {
        use std::collections::BTreeMap;

        use trussium_api::{TrussiumRuntime, condition_type};

        use crate::pure::config::OperatorConfig;
        use crate::pure::events::{Reason, transitions};
        use crate::pure::references::ReferenceCheck;
        use crate::pure::status::{StatusInput, project};

        let mut rt: TrussiumRuntime =
            serde_yaml::from_str(include_str!("../../pure/resources/fixtures/minimal.yaml"))
                .unwrap();
        rt.metadata.generation = Some(1);
        let Handling::Permanent(stall) =
            handling(&failed("NetworkPolicy", api(422, "Invalid", "denied")))
        else {
            panic!("not permanent");
        };
        let references = ReferenceCheck::Resolved {
            versions: BTreeMap::new(),
        };
        let config = OperatorConfig::default();
        let project_at = |rt: &TrussiumRuntime, second: i64| {
            project(&StatusInput {
                runtime: rt,
                deployment: None,
                references: &references,
                reconcile_error: None,
                stall: Some(&stall),
                config: &config,
                waiting: None,
                now: k8s_openapi::jiff::Timestamp::from_second(second).unwrap(),
            })
        };
        let first = project_at(&rt, 1_800_000_000);
        let of = |type_: &str| {
            let c = first.condition(type_).expect("every condition");
            (c.status.as_str(), c.reason.as_str())
        };
        assert_eq!(
            of(condition_type::STALLED),
            ("True", "NetworkPolicyRefused")
        );
        assert_eq!(
            of(condition_type::DEGRADED),
            ("True", "ReconciliationFailed")
        );
        assert_eq!(of(condition_type::READY), ("False", "ReconciliationFailed"));
        assert_eq!(
            of(condition_type::PROGRESSING),
            ("False", "ReconciliationFailed")
        );
        let events: Vec<Reason> = transitions(rt.status.as_ref(), &first)
            .into_iter()
            .map(|t| t.reason)
            .collect();
        assert_eq!(events, [Reason::ReconciliationFailed]);
        rt.status = Some(first.clone());
        let again = project_at(&rt, 1_800_000_300);
        assert!(transitions(Some(&first), &again).is_empty());
        assert!(crate::pure::status::semantically_equal(&first, &again));
    }

    #[test]
    fn a_stall_names_the_object_the_field_and_the_reason() {
        let refused = failed(
            "Deployment",
            with_causes(422, "Invalid", "denied: no", &["spec.replicas"]),
        );
        let Handling::Permanent(stall) = handling(&refused) else {
            panic!("not permanent");
        };
        assert_eq!(
            stall.message,
            "The API server refuses Deployment \"x\" (field spec.replicas): denied: no. The operator applies it again when the runtime changes."
        );
        let policy = failed("NetworkPolicy", api(409, "AlreadyExists", "held"));
        let Handling::Permanent(stall) = handling(&policy) else {
            panic!("not permanent");
        };
        assert!(
            stall
                .message
                .starts_with("NetworkPolicy \"x\" exists and is not controlled")
        );
        assert!(
            stall
                .message
                .ends_with("The Deployment is not created or changed until the policy applies.")
        );
    }
}
