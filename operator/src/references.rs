//! Secret references of a runtime, and the outcome of checking that they exist.
//!
//! The check itself (metadata-only requests) lives in the controller; this
//! module is the pure part both sides agree on.

use std::collections::BTreeMap;

use trussium_api::TrussiumRuntime;

/// Outcome of checking that every referenced Secret exists.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReferenceCheck {
    /// Every Secret exists. Maps each name to its `metadata.resourceVersion`,
    /// which changes when the Secret is rotated (never its data).
    Resolved { versions: BTreeMap<String, String> },
    /// These Secrets do not exist (sorted, unique).
    Missing { names: Vec<String> },
    /// The check itself failed (e.g. forbidden); the message says why.
    Failed { message: String },
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
