//! A suspended runtime (see `trussium_api::suspension`) and the commands
//! that would change it: `upgrade`, `scale`, `rollback` and `restart` refuse, since
//! the operator would apply nothing, unless `--force` records the change in
//! the spec for when the runtime is resumed.

use trussium_api::TrussiumRuntime;
use trussium_api::suspension::{Suspension, suspension};

use crate::error::{Error, Result};

/// Whether a change may go ahead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Guard {
    /// Not suspended: the operator applies it as ever.
    Applies,
    /// Suspended, and forced: recorded in the spec, applied on resume.
    Recorded,
}

/// Refuses `doing` (e.g. "upgrading") on a suspended runtime unless `force`.
pub fn guard(
    rt: &TrussiumRuntime,
    namespace: &str,
    doing: &'static str,
    force: bool,
) -> Result<Guard> {
    match suspension(&rt.metadata) {
        Suspension::Suspended { reason } if !force => Err(Error::Suspended {
            doing,
            name: rt.metadata.name.clone().unwrap_or_default(),
            namespace: namespace.to_string(),
            reason: reason.map(str::to_string),
        }),
        Suspension::Suspended { .. } => Ok(Guard::Recorded),
        Suspension::Active | Suspension::Ignored { .. } => Ok(Guard::Applies),
    }
}

/// The line a forced change on a suspended runtime ends with.
pub fn recorded_note(name: &str, namespace: &str) -> String {
    format!(
        "{name} is suspended: the change is recorded in the spec and applied once it is resumed (kubectl trussium resume {name} -n {namespace})"
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::exit::Exit;

    fn rt(annotations: serde_json::Value) -> TrussiumRuntime {
        serde_json::from_value(json!({
            "apiVersion": "runtime.trussium.io/v1beta1", "kind": "TrussiumRuntime",
            "metadata": {"name": "rt", "annotations": annotations},
            "spec": {"image": {"repository": "r", "tag": "v1"},
                     "provider": {"type": "ollama", "model": "m"}}
        }))
        .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn a_suspended_runtime_refuses_changes_unless_forced() {
        let suspended = rt(json!({
            "runtime.trussium.io/suspended": "true",
            "runtime.trussium.io/suspend-reason": "incident 42",
        }));
        let err = guard(&suspended, "ns", "upgrading", false)
            .err()
            .unwrap_or_else(|| panic!("not refused"));
        assert_eq!(err.exit(), Exit::Suspended);
        assert_eq!(
            err.to_string(),
            "not upgrading rt: it is suspended (reason: incident 42)"
        );
        let hint = err.hint().unwrap_or_default();
        assert!(hint.contains("kubectl trussium resume rt -n ns"), "{hint}");
        assert!(hint.contains("--force"), "{hint}");
        assert_eq!(
            guard(&suspended, "ns", "upgrading", true).ok(),
            Some(Guard::Recorded)
        );
    }

    #[test]
    fn an_active_runtime_or_an_ignored_value_does_not_refuse() {
        assert_eq!(
            guard(&rt(json!({})), "ns", "scaling", false).ok(),
            Some(Guard::Applies)
        );
        let ignored = rt(json!({"runtime.trussium.io/suspended": "yes"}));
        assert_eq!(
            guard(&ignored, "ns", "scaling", false).ok(),
            Some(Guard::Applies)
        );
    }
}
