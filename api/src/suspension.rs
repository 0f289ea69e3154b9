//! Suspending a runtime: the operator leaves its objects alone until it is
//! resumed. An annotation on the runtime, not a spec field, so it means the
//! same in every API version and setting it changes no generation (as
//! Cluster API's `paused` and Crossplane's `paused` annotations do).

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

/// Set to [`SUSPENDED_VALUE`] to suspend; removed to resume.
pub const SUSPENDED: &str = "runtime.trussium.io/suspended";
/// The only value that suspends. Any other is ignored, with a Warning.
pub const SUSPENDED_VALUE: &str = "true";
/// Why it was suspended, in the user's words (optional).
pub const SUSPEND_REASON: &str = "runtime.trussium.io/suspend-reason";

/// What a runtime's annotations say about suspension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Suspension<'a> {
    /// No suspend annotation: the operator manages the runtime.
    Active,
    /// Suspended, with the reason given, if any.
    Suspended { reason: Option<&'a str> },
    /// The annotation holds another value than "true": ignored.
    Ignored { value: &'a str },
}

impl Suspension<'_> {
    pub fn is_suspended(&self) -> bool {
        matches!(self, Suspension::Suspended { .. })
    }
}

/// What `meta`'s annotations say about suspension.
pub fn suspension(meta: &ObjectMeta) -> Suspension<'_> {
    let annotations = meta.annotations.as_ref();
    let get = |key: &str| annotations.and_then(|a| a.get(key)).map(String::as_str);
    match get(SUSPENDED) {
        None => Suspension::Active,
        Some(SUSPENDED_VALUE) => Suspension::Suspended {
            reason: get(SUSPEND_REASON).map(str::trim).filter(|r| !r.is_empty()),
        },
        Some(value) => Suspension::Ignored { value },
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn meta(pairs: &[(&str, &str)]) -> ObjectMeta {
        ObjectMeta {
            annotations: (!pairs.is_empty()).then(|| {
                pairs
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect::<BTreeMap<_, _>>()
            }),
            ..ObjectMeta::default()
        }
    }

    #[test]
    fn only_true_suspends() {
        assert_eq!(suspension(&meta(&[])), Suspension::Active);
        assert_eq!(suspension(&meta(&[("other", "true")])), Suspension::Active);
        assert_eq!(
            suspension(&meta(&[(SUSPENDED, "true")])),
            Suspension::Suspended { reason: None }
        );
        for value in ["True", "yes", "1", "false", ""] {
            assert_eq!(
                suspension(&meta(&[(SUSPENDED, value)])),
                Suspension::Ignored { value },
                "{value:?}"
            );
        }
        assert!(suspension(&meta(&[(SUSPENDED, "true")])).is_suspended());
        assert!(!suspension(&meta(&[(SUSPENDED, "yes")])).is_suspended());
    }

    #[test]
    fn the_reason_is_read_trimmed_and_only_while_suspended() {
        let suspended = meta(&[(SUSPENDED, "true"), (SUSPEND_REASON, " incident 42 ")]);
        assert_eq!(
            suspension(&suspended),
            Suspension::Suspended {
                reason: Some("incident 42")
            }
        );
        let blank = meta(&[(SUSPENDED, "true"), (SUSPEND_REASON, "  ")]);
        assert_eq!(suspension(&blank), Suspension::Suspended { reason: None });
        let ignored = meta(&[(SUSPENDED, "no"), (SUSPEND_REASON, "x")]);
        assert_eq!(suspension(&ignored), Suspension::Ignored { value: "no" });
    }
}
