//! Runtimes whose namespace is being deleted: let go, quietly.
//!
//! Deleting a namespace deletes everything in it; the namespace controller
//! does it, kind by kind, and the runtimes and their owned objects go in no
//! order the operator can rely on. Meanwhile each owned object that goes
//! (and each pod, through its Deployment's status) triggers a reconcile of a
//! runtime still in the cache, which would create the object again, announce
//! the runtime's decline and record it in the status: writes the API server
//! refuses (no new object may be created in a terminating namespace), each
//! refusal a warning and a retry.
//!
//! The API server says why it refuses: a 403 whose `Status` carries a cause
//! of type `NamespaceTerminating`, or, once the namespace is gone, a 404
//! naming the namespace ([`refused_for_namespace_deletion`], the one place
//! that reads it). That refusal is how the operator learns it; it does not
//! watch Namespaces (a cluster-wide watch, and a permission, that a
//! single-namespace install cannot even be given by a Role). From then on
//! every runtime the cache holds in that namespace is treated as being
//! deleted (see `reconcile`): nothing is applied, announced or written, and
//! nothing is retried. At most one refused write per runtime, usually far
//! fewer: the first refusal lets the whole namespace go.
//!
//! Remembered by uid, not by namespace name: a namespace created again under
//! the same name holds new runtimes, with new uids.

use std::collections::HashSet;
use std::sync::Mutex;

use super::lock::lock;
use kube::core::Status;

/// The `StatusCause` type of the API server's refusal to create anything in
/// a namespace being deleted (`NamespaceTerminatingCause` in k8s.io/api).
pub const NAMESPACE_TERMINATING: &str = "NamespaceTerminating";

/// Whether the API server refused a request because the namespace is being
/// deleted, or is gone already.
pub fn refused_for_namespace_deletion(err: &kube::Error) -> bool {
    match err {
        kube::Error::Api(status) => is_terminating(status) || names_a_missing_namespace(status),
        _ => false,
    }
}

/// The cause alone decides, as in Kubernetes' own controllers
/// (`apierrors.HasStatusCause(err, v1.NamespaceTerminatingCause)`).
fn is_terminating(status: &Status) -> bool {
    status
        .details
        .as_ref()
        .is_some_and(|d| d.causes.iter().any(|c| c.reason == NAMESPACE_TERMINATING))
}

/// A create in a namespace that no longer exists is answered with the
/// namespace's own NotFound (a request that reaches an object answers with
/// the object's kind instead).
fn names_a_missing_namespace(status: &Status) -> bool {
    status.is_not_found()
        && status
            .details
            .as_ref()
            .is_some_and(|d| d.kind == "namespaces")
}

/// A runtime as far as letting it go is concerned.
#[derive(Clone, Copy, Debug)]
pub struct Known<'a> {
    pub namespace: &'a str,
    pub uid: &'a str,
}

/// The uids of the runtimes being let go.
#[derive(Default)]
pub struct Terminating {
    uids: Mutex<HashSet<String>>,
}

impl Terminating {
    /// Whether the runtime with `uid` is being let go.
    pub fn holds(&self, uid: &str) -> bool {
        let uids = lock(&self.uids);
        !uids.is_empty() && uids.contains(uid)
    }

    /// A write for runtime `refused` was refused because its namespace is
    /// being deleted: lets go of every runtime of that namespace in `cached`
    /// (the runtime cache as it is now). Returns how many it newly let go.
    ///
    /// Only while the cache still holds `refused` itself: the namespace
    /// cannot be gone (and created again, with new runtimes) before every
    /// runtime in it is deleted, and the cache takes in changes in the order
    /// they happened, so a cache that holds `refused` holds no runtime of a
    /// later namespace of that name. Runtimes the cache no longer holds are
    /// forgotten.
    pub fn let_go<'a>(
        &self,
        refused: Known<'_>,
        cached: impl IntoIterator<Item = Known<'a>>,
    ) -> usize {
        let cached: Vec<Known> = cached.into_iter().collect();
        let mut uids = lock(&self.uids);
        uids.retain(|uid| cached.iter().any(|rt| rt.uid == uid));
        if !cached.iter().any(|rt| rt.uid == refused.uid) {
            return 0;
        }
        cached
            .iter()
            .filter(|rt| rt.namespace == refused.namespace)
            .filter(|rt| uids.insert(rt.uid.to_string()))
            .count()
    }
}

#[cfg(test)]
mod tests {
    use kube::core::response::{StatusCause, StatusDetails};

    use super::*;

    /// The API server's answer to a create in a terminating namespace.
    fn refusal(cause: &str) -> kube::Error {
        let status = Status::failure(
            "configmaps \"web\" is forbidden: unable to create new content in namespace \
             preview because it is being terminated",
            "Forbidden",
        )
        .with_code(403)
        .with_details(StatusDetails {
            name: "web".into(),
            group: String::new(),
            kind: "configmaps".into(),
            uid: String::new(),
            causes: vec![StatusCause {
                reason: cause.into(),
                message: "namespace preview is being terminated".into(),
                field: "metadata.namespace".into(),
            }],
            retry_after_seconds: 0,
        });
        kube::Error::Api(status.boxed())
    }

    #[test]
    fn only_the_namespace_being_deleted_counts() {
        assert!(refused_for_namespace_deletion(&refusal(
            NAMESPACE_TERMINATING
        )));
        // Forbidden for another reason (RBAC, a policy): a real refusal,
        // reported.
        assert!(!refused_for_namespace_deletion(&refusal(
            "FieldValueForbidden"
        )));
        let plain = Status::failure("forbidden", "Forbidden").with_code(403);
        assert!(!refused_for_namespace_deletion(&kube::Error::Api(
            plain.boxed()
        )));
        assert!(!refused_for_namespace_deletion(
            &kube::Error::LinesCodecMaxLineLengthExceeded
        ));
        // Gone already: NotFound naming the namespace, not the object.
        let gone = |kind: &str| {
            let status = Status::failure(&format!("{kind} \"preview\" not found"), "NotFound")
                .with_code(404)
                .with_details(StatusDetails {
                    name: "preview".into(),
                    group: String::new(),
                    kind: kind.into(),
                    uid: String::new(),
                    causes: vec![],
                    retry_after_seconds: 0,
                });
            kube::Error::Api(status.boxed())
        };
        assert!(refused_for_namespace_deletion(&gone("namespaces")));
        assert!(!refused_for_namespace_deletion(&gone("configmaps")));
    }

    fn rt<'a>(namespace: &'a str, uid: &'a str) -> Known<'a> {
        Known { namespace, uid }
    }

    #[test]
    fn one_refusal_lets_go_of_the_whole_namespace() {
        let terminating = Terminating::default();
        let cached = [rt("preview", "a"), rt("preview", "b"), rt("prod", "c")];
        assert_eq!(terminating.let_go(rt("preview", "a"), cached), 2);
        assert!(terminating.holds("a") && terminating.holds("b"));
        assert!(!terminating.holds("c"), "another namespace goes on");
        // A second refusal (a write already in flight) adds nothing.
        assert_eq!(terminating.let_go(rt("preview", "b"), cached), 0);
    }

    #[test]
    fn a_namespace_created_again_under_the_same_name_is_not_let_go() {
        let terminating = Terminating::default();
        terminating.let_go(rt("preview", "a"), [rt("preview", "a")]);
        // Old runtime gone, a new one of a new namespace "preview" in the
        // cache; a refusal answered late for the old one changes nothing,
        // and the old one is forgotten.
        assert_eq!(
            terminating.let_go(rt("preview", "a"), [rt("preview", "new")]),
            0
        );
        assert!(!terminating.holds("new"));
        assert!(!terminating.holds("a"));
    }

    #[test]
    fn runtimes_gone_from_the_cache_are_forgotten() {
        let terminating = Terminating::default();
        terminating.let_go(rt("one", "a"), [rt("one", "a"), rt("one", "b")]);
        terminating.let_go(rt("two", "c"), [rt("one", "b"), rt("two", "c")]);
        assert!(!terminating.holds("a"));
        assert!(terminating.holds("b") && terminating.holds("c"));
        assert_eq!(super::lock(&terminating.uids).len(), 2);
    }
}
