//! Secret references of a runtime, and the outcome of checking that they exist.
//!
//! The controller answers "does this Secret exist, at which resourceVersion"
//! from its metadata-only Secret watch (or, while that watch is refused, by
//! reading); deciding from the answers is here.

use std::collections::BTreeMap;

use trussium_api::TrussiumRuntime;
use trussium_api::validation::Problem;

/// Outcome of checking the spec and that every referenced Secret exists.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReferenceCheck {
    /// Every Secret exists. Maps each name to its `metadata.resourceVersion`,
    /// which changes when the Secret is rotated (never its data).
    Resolved { versions: BTreeMap<String, String> },
    /// These Secrets do not exist (sorted, unique).
    Missing { names: Vec<String> },
    /// The check itself failed (e.g. forbidden); the message says why.
    Failed { message: String },
    /// The spec breaks rules of the API (an object stored before the rules
    /// existed): no Secret is checked, nothing is applied.
    InvalidSpec { problems: Vec<Problem> },
}

/// Names of every Secret the runtime references (credentials and image pull
/// secrets), sorted and unique.
pub fn referenced_secrets(rt: &TrussiumRuntime) -> Vec<String> {
    let credentials = rt
        .spec
        .provider
        .credentials_secret_ref
        .iter()
        .map(|r| r.name.clone());
    let pull = rt
        .spec
        .image_pull_secrets
        .iter()
        .flatten()
        .map(|r| r.name.clone());
    let mut names: Vec<String> = credentials.chain(pull).collect();
    names.sort();
    names.dedup();
    names
}

/// Checks every Secret the runtime references; `version` answers a Secret
/// name with its resourceVersion, `None` when it does not exist, or why it
/// could not be asked. A failed question outweighs a missing Secret: what
/// is missing cannot be told then.
pub fn check_references(
    rt: &TrussiumRuntime,
    version: impl Fn(&str) -> Result<Option<String>, String>,
) -> ReferenceCheck {
    let mut versions = BTreeMap::new();
    let mut missing = Vec::new();
    for name in referenced_secrets(rt) {
        match version(&name) {
            Ok(Some(v)) => {
                versions.insert(name, v);
            }
            Ok(None) => missing.push(name),
            Err(message) => return ReferenceCheck::Failed { message },
        }
    }
    if missing.is_empty() {
        ReferenceCheck::Resolved { versions }
    } else {
        ReferenceCheck::Missing { names: missing }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runtime(credentials: Option<&str>, pull: &[&str]) -> TrussiumRuntime {
        let mut spec = serde_json::json!({
            "image": {"repository": "r", "tag": "t"},
            "provider": {"type": "openai", "model": "m"},
        });
        if let Some(name) = credentials {
            spec["provider"]["credentialsSecretRef"] =
                serde_json::json!({"name": name, "key": "k"});
        }
        if !pull.is_empty() {
            spec["imagePullSecrets"] = pull
                .iter()
                .map(|n| serde_json::json!({"name": n}))
                .collect();
        }
        let rt = serde_json::json!({
            "apiVersion": "runtime.trussium.io/v1beta1", "kind": "TrussiumRuntime",
            "metadata": {"name": "rt", "namespace": "ns"}, "spec": spec,
        });
        serde_json::from_value(rt).unwrap_or_else(|e| panic!("fixture: {e}"))
    }

    #[test]
    fn names_are_sorted_and_unique() {
        let rt = runtime(Some("b"), &["c", "b", "a"]);
        assert_eq!(referenced_secrets(&rt), ["a", "b", "c"]);
        assert!(referenced_secrets(&runtime(None, &[])).is_empty());
    }

    #[test]
    fn every_reference_present_resolves_with_versions() {
        let rt = runtime(Some("creds"), &["pull"]);
        let check = check_references(&rt, |name| Ok(Some(format!("v-{name}"))));
        assert_eq!(
            check,
            ReferenceCheck::Resolved {
                versions: BTreeMap::from([
                    ("creds".to_string(), "v-creds".to_string()),
                    ("pull".to_string(), "v-pull".to_string()),
                ])
            }
        );
        assert_eq!(
            check_references(&runtime(None, &[]), |_| Ok(None)),
            ReferenceCheck::Resolved {
                versions: BTreeMap::new()
            }
        );
    }

    #[test]
    fn every_missing_reference_is_named() {
        let rt = runtime(Some("creds"), &["pull", "other"]);
        let check = check_references(&rt, |name| Ok((name == "pull").then(|| "1".to_string())));
        assert_eq!(
            check,
            ReferenceCheck::Missing {
                names: vec!["creds".to_string(), "other".to_string()]
            }
        );
    }

    #[test]
    fn a_refused_question_fails_the_check_even_beside_a_missing_secret() {
        let rt = runtime(Some("creds"), &["pull"]);
        let check = check_references(&rt, |name| match name {
            "pull" => Err("secrets \"pull\" is forbidden".to_string()),
            _ => Ok(None),
        });
        assert_eq!(
            check,
            ReferenceCheck::Failed {
                message: "secrets \"pull\" is forbidden".to_string()
            }
        );
        // No reference, nothing to ask.
        assert_eq!(
            check_references(&runtime(None, &[]), |_| Err("refused".to_string())),
            ReferenceCheck::Resolved {
                versions: BTreeMap::new()
            }
        );
    }
}
