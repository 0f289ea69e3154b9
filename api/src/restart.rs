//! Restarting a runtime's pods declaratively: an annotation on the runtime
//! that the operator copies into the pod template, so a new value rolls the
//! pods like any template change, and GitOps can ask for it too.
//!
//! The pod template carries it under the same key, not kubectl's
//! `kubectl.kubernetes.io/restartedAt`: that one belongs to `kubectl rollout
//! restart`, which keeps working, and an operator that owned it would put
//! back the value of its own restart after each of kubectl's, rolling the
//! pods a second time.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

/// On the runtime: when a restart was asked for (`kubectl trussium restart`
/// writes the time, RFC 3339). In the pod template: the restart it carries.
pub const RESTARTED_AT: &str = "runtime.trussium.io/restartedAt";

/// The restart `meta` asks for or carries, if any (blank counts as none).
pub fn restarted_at(meta: &ObjectMeta) -> Option<&str> {
    meta.annotations
        .as_ref()?
        .get(RESTARTED_AT)
        .map(|v| v.trim())
        .filter(|v| !v.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(value: Option<&str>) -> ObjectMeta {
        ObjectMeta {
            annotations: value.map(|v| [(RESTARTED_AT.to_string(), v.to_string())].into()),
            ..ObjectMeta::default()
        }
    }

    #[test]
    fn reads_the_annotation_and_takes_blank_for_none() {
        assert_eq!(restarted_at(&meta(None)), None);
        assert_eq!(restarted_at(&meta(Some(""))), None);
        assert_eq!(restarted_at(&meta(Some("  "))), None);
        assert_eq!(
            restarted_at(&meta(Some("2026-12-04T10:00:00Z"))),
            Some("2026-12-04T10:00:00Z")
        );
    }
}
