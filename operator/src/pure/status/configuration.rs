//! `ConfigurationValid`, from the outcome of the spec and Secret checks.
//! Messages name Secrets and fields, never anything they hold.

use trussium_api::reason;
use trussium_api::validation::Problem;

use super::conditions::Verdict;
use crate::pure::references::ReferenceCheck;

pub fn verdict(check: &ReferenceCheck, namespace: &str) -> Verdict {
    match check {
        ReferenceCheck::Resolved { versions } if versions.is_empty() => {
            Verdict::yes(reason::REFERENCES_RESOLVED, "No Secrets are referenced.")
        }
        ReferenceCheck::Resolved { .. } => Verdict::yes(
            reason::REFERENCES_RESOLVED,
            "All referenced Secrets are available.",
        ),
        ReferenceCheck::Missing { names } => {
            Verdict::no(reason::SECRET_NOT_FOUND, missing(names, namespace))
        }
        ReferenceCheck::Failed { message } => Verdict::no(
            reason::REFERENCE_CHECK_FAILED,
            format!("Checking the referenced Secrets failed: {message}"),
        ),
        ReferenceCheck::InvalidSpec { problems } => {
            Verdict::no(reason::INVALID_SPEC, invalid(problems))
        }
    }
}

/// Names each field and says what is wrong with it, in the API server's
/// words; never the value (a baseURL may hold a credential).
fn invalid(problems: &[Problem]) -> String {
    let each: Vec<String> = problems.iter().map(Problem::to_string).collect();
    format!(
        "The spec is invalid: {}. No owned object is created or updated until it is fixed.",
        each.join("; ")
    )
}

fn missing(names: &[String], namespace: &str) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("{n:?}")).collect();
    let (noun, verb, pronoun) = if names.len() == 1 {
        ("Secret", "does", "it exists")
    } else {
        ("Secrets", "do", "they exist")
    };
    format!(
        "{noun} {} {verb} not exist in namespace {namespace:?}; no owned object is created or updated until {pronoun}.",
        quoted.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    #[test]
    fn resolved() {
        let none = ReferenceCheck::Resolved {
            versions: BTreeMap::new(),
        };
        assert_eq!(
            verdict(&none, "ns"),
            Verdict::yes("ReferencesResolved", "No Secrets are referenced.")
        );
        let some = ReferenceCheck::Resolved {
            versions: BTreeMap::from([("a".to_string(), "1".to_string())]),
        };
        assert_eq!(
            verdict(&some, "ns"),
            Verdict::yes(
                "ReferencesResolved",
                "All referenced Secrets are available."
            )
        );
    }

    #[test]
    fn missing_names_every_secret() {
        let one = verdict(
            &ReferenceCheck::Missing {
                names: vec!["openai".into()],
            },
            "ai",
        );
        assert_eq!(one.reason, "SecretNotFound");
        assert!(!one.status);
        assert!(
            one.message
                .starts_with(r#"Secret "openai" does not exist in namespace "ai""#),
            "{}",
            one.message
        );
        let two = verdict(
            &ReferenceCheck::Missing {
                names: vec!["a".into(), "b".into()],
            },
            "ai",
        );
        assert!(
            two.message.starts_with(r#"Secrets "a", "b" do not exist"#),
            "{}",
            two.message
        );
    }

    #[test]
    fn an_invalid_spec_names_every_field() {
        let problems = vec![
            Problem {
                field: "metadata.name".into(),
                message: "bad name",
            },
            Problem {
                field: "spec.provider".into(),
                message: "bad url",
            },
        ];
        let v = verdict(&ReferenceCheck::InvalidSpec { problems }, "ai");
        assert_eq!(v.reason, "InvalidSpec");
        assert!(!v.status);
        assert!(
            v.message.starts_with(
                "The spec is invalid: metadata.name: bad name; spec.provider: bad url."
            ),
            "{}",
            v.message
        );
    }

    #[test]
    fn failed_check() {
        let v = verdict(
            &ReferenceCheck::Failed {
                message: "forbidden".into(),
            },
            "ai",
        );
        assert_eq!(
            v,
            Verdict::no(
                "ReferenceCheckFailed",
                "Checking the referenced Secrets failed: forbidden"
            )
        );
    }
}
