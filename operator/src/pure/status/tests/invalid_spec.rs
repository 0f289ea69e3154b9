//! A spec the API refuses today, stored before the rule existed: blocked
//! like a missing Secret, stalled until fixed, one Warning, no credential.

use trussium_api::validation::problems;

use super::*;

/// The check the reconciler makes, on the world's runtime with `base_url`.
fn with_base_url(w: &mut World, base_url: &str) -> ReferenceCheck {
    w.rt.spec.provider.base_url = Some(base_url.to_string());
    ReferenceCheck::InvalidSpec {
        problems: problems(&w.rt),
    }
}

#[test]
fn an_invalid_spec_blocks_stalls_and_warns_once_without_the_credential() {
    let mut w = World::new();
    let credential = "sk-live-never-shown";
    w.references = with_base_url(
        &mut w,
        &format!("https://alice:{credential}@api.example.com/v1"),
    );
    let s = w.reconcile();
    assert_conditions(
        &s.status,
        [
            "False/InvalidSpec",
            "False/ConfigurationInvalid",
            "False/RuntimeUnavailable",
            "False/ConfigurationInvalid",
            "True/ConfigurationInvalid",
            "False/NoUpgrade",
        ],
    );
    let stalled = condition(&s.status, "Stalled");
    assert_eq!(
        (stalled.status.as_str(), stalled.reason.as_str()),
        ("True", "InvalidSpec")
    );
    let valid = condition(&s.status, "ConfigurationValid");
    assert!(
        valid.message.starts_with(
            "The spec is invalid: spec.provider: provider.baseURL must not contain user information"
        ),
        "{}",
        valid.message
    );
    assert!(stalled.message.contains("spec.provider: provider.baseURL"));
    assert_events(&s.events, &["Warning/ConfigurationInvalid"]);
    assert!(s.events[0].note.contains("provider.baseURL"));
    let everything = format!("{:?}{:?}", s.status, s.events);
    assert!(!everything.contains(credential) && !everything.contains("alice"));

    // Still invalid: nothing new.
    assert_events(&w.reconcile().events, &[]);

    // Fixed: the operator applies.
    w.rt.spec.provider.base_url = Some("https://api.example.com/v1".into());
    w.references = resolved();
    w.apply();
    let s = w.reconcile();
    assert_eq!(
        condition(&s.status, "ConfigurationValid").reason,
        "ReferencesResolved"
    );
    assert_eq!(condition(&s.status, "Stalled").reason, "AsExpected");
}

#[test]
fn every_problem_is_named() {
    let mut w = World::new();
    w.rt.metadata.name = Some("a.b".into());
    w.rt.spec.replicas = 2_147_483_647;
    w.references = ReferenceCheck::InvalidSpec {
        problems: problems(&w.rt),
    };
    let s = w.reconcile();
    let message = &condition(&s.status, "ConfigurationValid").message;
    assert!(
        message.contains("metadata.name: metadata.name must be a DNS-1035 label"),
        "{message}"
    );
    assert!(
        message.contains("; spec.replicas: must be at most 1000"),
        "{message}"
    );
}
