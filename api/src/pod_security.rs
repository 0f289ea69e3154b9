//! Pod Security: what `podMetadata` may not say about the runtime pods'
//! security, so that every runtime the API server accepts runs in a
//! namespace that enforces Pod Security `restricted`.
//!
//! The operator builds pods that meet `restricted` (non-root, no privilege
//! escalation, every capability dropped, seccomp `RuntimeDefault`, an
//! emptyDir as the only volume), and nothing in the spec changes that, except
//! two families of deprecated annotations that `podMetadata.annotations`
//! would pass on to the pods:
//!
//! - AppArmor (`container.apparmor.security.beta.kubernetes.io/<container>`):
//!   still honoured (the API server copies it into the container's
//!   `appArmorProfile`). `unconfined` is refused by Pod Security `baseline`
//!   and `restricted`, so the ReplicaSet could create no pod; a container
//!   other than the runtime's makes the Deployment itself invalid. Allowed:
//!   `runtime/default` and `localhost/<profile>`.
//! - seccomp (`seccomp.security.alpha.kubernetes.io/pod`,
//!   `container.seccomp.security.alpha.kubernetes.io/<container>`): ignored
//!   by Kubernetes since 1.27, and a pod-level one that disagrees with the
//!   operator's `RuntimeDefault` makes the Deployment invalid.
//!
//! Both are refused by the API server (CEL on `podMetadata.annotations`), in
//! every namespace: the operator cannot know which Pod Security level a
//! namespace enforces (it has no permission on Namespaces), and a runtime
//! whose pods could never start is better refused at `kubectl apply` than
//! reported later.

/// Prefix of the deprecated AppArmor annotation keys (one per container).
pub const APPARMOR_ANNOTATION_PREFIX: &str = "container.apparmor.security.beta.kubernetes.io/";

/// CEL: AppArmor annotations name the runtime's container only.
pub const APPARMOR_CONTAINER_CEL: &str = "self.all(k, !k.startsWith('container.apparmor.security.beta.kubernetes.io/') || k == 'container.apparmor.security.beta.kubernetes.io/runtime')";

/// CEL: AppArmor profiles that Pod Security `restricted` admits. No regular
/// expression on the values: they have no length limit, and the API server
/// bounds a rule's cost by it.
pub const APPARMOR_PROFILE_CEL: &str = "self.all(k, !k.startsWith('container.apparmor.security.beta.kubernetes.io/') || self[k] == 'runtime/default' || (self[k].startsWith('localhost/') && size(self[k]) > 10))";

/// CEL: no seccomp annotation at all.
pub const SECCOMP_CEL: &str = "self.all(k, k != 'seccomp.security.alpha.kubernetes.io/pod' && !k.startsWith('container.seccomp.security.alpha.kubernetes.io/'))";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::operator::RUNTIME_CONTAINER;

    #[test]
    fn the_rules_name_the_runtime_container_and_the_prefix() {
        assert!(APPARMOR_CONTAINER_CEL.contains(&format!(
            "'{APPARMOR_ANNOTATION_PREFIX}{RUNTIME_CONTAINER}'"
        )));
        assert!(APPARMOR_CONTAINER_CEL.contains(&format!("'{APPARMOR_ANNOTATION_PREFIX}'")));
        assert!(APPARMOR_PROFILE_CEL.contains(&format!("'{APPARMOR_ANNOTATION_PREFIX}'")));
        // `localhost/` and at least one character of a profile name.
        assert!(APPARMOR_PROFILE_CEL.contains(&format!("size(self[k]) > {}", "localhost/".len())));
    }
}
