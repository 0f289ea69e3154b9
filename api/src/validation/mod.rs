//! What the API server refuses because it could never work, checked again in
//! Rust: an object stored before a rule existed stays (CEL ratcheting keeps
//! an unchanged field), and the operator must refuse it the same way, in
//! status, instead of failing at the Deployment or the Service.
//!
//! [`rules`] holds each CEL rule with its message; [`problems`] finds the
//! same faults with the same messages. Bounds that only keep the rules'
//! cost down (`maxItems`, `maxLength`) are not repeated here: a stored
//! object over them still works.

mod quantity;
pub mod rules;
mod scheduling;
pub mod schema;
pub mod syntax;

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::ResourceRequirements;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;

use crate::TrussiumRuntime;
use rules::Rule;

/// The largest `replicas`, `autoscaling.minReplicas` and
/// `autoscaling.maxReplicas`. A gateway in front of a provider needs far
/// fewer; the bound turns a typo (or 2^31-1) into a refusal instead of a
/// Deployment that never converges and a Progressing condition that counts
/// "0 of 2147483647" until its deadline.
pub const MAX_REPLICAS: i32 = 1000;

/// The operator's message for a replica count over [`MAX_REPLICAS`] (the API
/// server's own is "should be less than or equal to 1000").
pub const REPLICAS_MESSAGE: &str =
    "must be at most 1000: a larger Deployment could never converge here";

/// One fault: the field (`spec.scheduling.tolerations[0]`) and what is
/// wrong with it, as the API server words it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    pub field: String,
    pub message: &'static str,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

/// Collects problems; `check` adds one when a rule fails.
#[derive(Default)]
pub(crate) struct Problems(Vec<Problem>);

impl Problems {
    pub(crate) fn check(&mut self, ok: bool, field: impl Into<String>, rule: &Rule) {
        self.refuse_unless(ok, field, rule.message);
    }

    fn refuse_unless(&mut self, ok: bool, field: impl Into<String>, message: &'static str) {
        if !ok {
            self.0.push(Problem {
                field: field.into(),
                message,
            });
        }
    }

    fn replicas(&mut self, value: Option<i32>, field: &str) {
        if value.is_some_and(|v| v > MAX_REPLICAS) {
            self.0.push(Problem {
                field: field.to_string(),
                message: REPLICAS_MESSAGE,
            });
        }
    }
}

/// Every fault of the runtime that a CEL or OpenAPI rule of the CRD refuses
/// today and that an object stored earlier may still have. Empty when the
/// runtime can work.
pub fn problems(rt: &TrussiumRuntime) -> Vec<Problem> {
    let mut found = Problems::default();
    let name = rt.metadata.name.as_deref().unwrap_or_default();
    found.check(
        syntax::is_dns1035_label(name),
        "metadata.name",
        &rules::NAME,
    );
    found.check(name != "default", "metadata.name", &rules::NAME_NOT_DEFAULT);
    let namespace = rt.metadata.namespace.as_deref();
    found.check(
        !(name == "kubernetes" && namespace == Some("default")),
        "metadata.name",
        &rules::NAME_NOT_KUBERNETES_IN_DEFAULT,
    );

    let spec = &rt.spec;
    image(&mut found, &spec.image.repository);
    found.replicas(Some(spec.replicas), "spec.replicas");
    if let Some(autoscaling) = &spec.autoscaling {
        found.replicas(
            Some(autoscaling.min_replicas),
            "spec.autoscaling.minReplicas",
        );
        found.replicas(autoscaling.max_replicas, "spec.autoscaling.maxReplicas");
        found.check(
            !autoscaling.enabled || autoscaling.max_replicas.is_some(),
            "spec.autoscaling",
            &rules::AUTOSCALING_MAX_REPLICAS,
        );
        found.check(
            autoscaling
                .max_replicas
                .is_none_or(|max| max >= autoscaling.min_replicas),
            "spec.autoscaling",
            &rules::AUTOSCALING_MAX_AT_LEAST_MIN,
        );
    }
    for (i, secret) in spec.image_pull_secrets.iter().flatten().enumerate() {
        let field = format!("spec.imagePullSecrets[{i}].name");
        found.check(
            syntax::is_dns1123_subdomain(&secret.name),
            field,
            &rules::PULL_SECRET_NAME,
        );
    }
    provider(&mut found, &spec.provider);
    if let Some(resources) = &spec.resources {
        self::resources(&mut found, resources);
    }
    if let Some(policy) = &spec.network_policy {
        for (i, ingress) in policy.ingress.iter().enumerate() {
            let field = format!("spec.networkPolicy.ingress[{i}]");
            scheduling::label_selector(
                &mut found,
                &ingress.namespace_selector,
                &format!("{field}.namespaceSelector"),
            );
            if let Some(pods) = &ingress.pod_selector {
                scheduling::label_selector(&mut found, pods, &format!("{field}.podSelector"));
            }
        }
    }
    if let Some(scheduling) = &spec.scheduling {
        scheduling::check(&mut found, scheduling);
    }
    found.0
}

/// The repository's rules, one message per mistake (as the CRD's).
fn image(found: &mut Problems, repository: &str) {
    let field = "spec.image.repository";
    let digest = repository.contains('@');
    let tag = repository
        .rsplit('/')
        .next()
        .is_some_and(|last| last.contains(':'));
    found.check(!digest, field, &rules::REPOSITORY_NO_DIGEST);
    found.check(digest || !tag, field, &rules::REPOSITORY_NO_TAG);
    found.check(
        digest || tag || syntax::is_repository(repository),
        field,
        &rules::REPOSITORY_NAME,
    );
}

fn provider(found: &mut Problems, provider: &crate::ProviderSpec) {
    let field = "spec.provider";
    found.check(
        !syntax::has_control(&provider.model),
        field,
        &rules::MODEL_PRINTABLE,
    );
    if let Some(url) = &provider.base_url {
        found.check(syntax::is_http_url(url), field, &rules::BASE_URL_SCHEME);
        found.check(!syntax::has_control(url), field, &rules::BASE_URL_PRINTABLE);
        found.check(
            !syntax::has_user_info(url),
            field,
            &rules::BASE_URL_NO_USER_INFO,
        );
    }
    if let Some(credentials) = &provider.credentials_secret_ref {
        let field = "spec.provider.credentialsSecretRef";
        found.check(
            syntax::is_dns1123_subdomain(&credentials.name),
            format!("{field}.name"),
            &rules::CREDENTIALS_NAME,
        );
        found.check(
            syntax::is_secret_key(&credentials.key),
            format!("{field}.key"),
            &rules::CREDENTIALS_KEY,
        );
    }
}

fn resources(found: &mut Problems, resources: &ResourceRequirements) {
    let parse = |q: &Quantity| quantity::parse(&q.0);
    for (list, values) in [
        ("limits", &resources.limits),
        ("requests", &resources.requests),
    ] {
        for (name, value) in values.iter().flatten() {
            let field = format!("spec.resources.{list}[{name}]");
            // As the pattern: no sign `-`, even on a zero.
            let ok = !value.0.starts_with('-') && parse(value).is_some_and(|v| v >= 0.0);
            found.refuse_unless(ok, field, rules::QUANTITY_MESSAGE);
        }
    }
    let empty = BTreeMap::new();
    let limits = resources.limits.as_ref().unwrap_or(&empty);
    let within = resources.requests.iter().flatten().all(|(name, request)| {
        match (parse(request), limits.get(name).and_then(parse)) {
            (Some(request), Some(limit)) => request <= limit,
            _ => true,
        }
    });
    found.check(within, "spec.resources", &rules::REQUESTS_WITHIN_LIMITS);
}

#[cfg(test)]
mod tests;
