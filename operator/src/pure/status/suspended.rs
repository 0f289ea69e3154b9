//! What a suspended runtime reports (see `trussium_api::suspension`): the
//! `Suspended` condition, present only while the annotation is, and
//! `Progressing`'s verdict meanwhile.

use trussium_api::reason;
use trussium_api::suspension::{SUSPENDED, SUSPENDED_VALUE, Suspension};

use super::conditions::Verdict;

/// The `Suspended` condition, or `None` while the runtime carries no suspend
/// annotation. True while suspended; False, with a Warning's worth of
/// message, while the annotation's value is ignored.
pub fn verdict(suspension: &Suspension, name: Option<&str>) -> Option<Verdict> {
    let name = name.unwrap_or("NAME");
    match suspension {
        Suspension::Active => None,
        Suspension::Suspended { reason: why } => {
            let why = why.map_or_else(
                || "no reason given".to_string(),
                |why| format!("reason: {why}"),
            );
            Some(Verdict::yes(
                reason::SUSPENDED,
                format!(
                    "Suspended ({why}): the operator changes none of the runtime's objects until it is resumed (kubectl trussium resume {name})"
                ),
            ))
        }
        Suspension::Ignored { value } => Some(Verdict::no(
            reason::SUSPEND_VALUE_IGNORED,
            format!(
                "The annotation {SUSPENDED} is {value:?}; only {SUSPENDED_VALUE:?} suspends, so it is ignored and the runtime is managed as usual"
            ),
        )),
    }
}

/// `Progressing` while suspended: nothing the operator does moves the
/// runtime.
pub fn progressing() -> Verdict {
    Verdict::no(
        reason::SUSPENDED,
        "Suspended: the operator applies no change until the runtime is resumed",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_condition_without_the_annotation() {
        assert_eq!(verdict(&Suspension::Active, Some("rt")), None);
    }

    #[test]
    fn suspended_says_why_and_how_to_resume() {
        let v = verdict(
            &Suspension::Suspended {
                reason: Some("incident 42"),
            },
            Some("rt"),
        );
        let v = v.unwrap_or_else(|| Verdict::no("", ""));
        assert!(v.status);
        assert_eq!(v.reason, "Suspended");
        assert!(v.message.contains("reason: incident 42"), "{}", v.message);
        assert!(
            v.message.contains("kubectl trussium resume rt"),
            "{}",
            v.message
        );
        let v = verdict(&Suspension::Suspended { reason: None }, Some("rt"));
        assert!(v.is_some_and(|v| v.message.contains("no reason given")));
    }

    #[test]
    fn an_ignored_value_is_false_and_names_the_value_that_counts() {
        let v = verdict(&Suspension::Ignored { value: "yes" }, Some("rt"));
        let v = v.unwrap_or_else(|| Verdict::yes("", ""));
        assert!(!v.status);
        assert_eq!(v.reason, "SuspendValueIgnored");
        assert!(v.message.contains("\"yes\""), "{}", v.message);
        assert!(
            v.message.contains("only \"true\" suspends"),
            "{}",
            v.message
        );
    }

    #[test]
    fn progressing_is_false_with_reason_suspended() {
        let v = progressing();
        assert!(!v.status);
        assert_eq!(v.reason, "Suspended");
    }
}
