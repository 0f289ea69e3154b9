//! The Rust side of the scheduling rules: node selector, tolerations,
//! affinity, and the label selectors they (and the NetworkPolicy) hold.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{
    Affinity, NodeSelectorRequirement, NodeSelectorTerm, PodAffinityTerm, Toleration,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;

use super::syntax::{is_dns1123_label, is_label_value, is_qualified_name};
use super::{Problems, rules};
use crate::Scheduling;

pub(super) fn check(found: &mut Problems, scheduling: &Scheduling) {
    if let Some(labels) = &scheduling.node_selector {
        found.check(
            are_labels(labels),
            "spec.scheduling.nodeSelector",
            &rules::NODE_SELECTOR,
        );
    }
    for (i, toleration) in scheduling.tolerations.iter().flatten().enumerate() {
        self::toleration(
            found,
            toleration,
            &format!("spec.scheduling.tolerations[{i}]"),
        );
    }
    if let Some(affinity) = &scheduling.affinity {
        self::affinity(found, affinity, "spec.scheduling.affinity");
    }
}

fn are_labels(labels: &BTreeMap<String, String>) -> bool {
    labels
        .iter()
        .all(|(k, v)| is_qualified_name(k) && is_label_value(v))
}

fn toleration(found: &mut Problems, t: &Toleration, field: &str) {
    let operator = t.operator.as_deref().unwrap_or_default();
    let effect = t.effect.as_deref().unwrap_or_default();
    let key = t.key.as_deref().unwrap_or_default();
    let value = t.value.as_deref().unwrap_or_default();
    let exists = operator == "Exists";
    found.check(
        matches!(operator, "" | "Equal" | "Exists"),
        field,
        &rules::TOLERATION_OPERATOR,
    );
    found.check(
        matches!(effect, "" | "NoSchedule" | "PreferNoSchedule" | "NoExecute"),
        field,
        &rules::TOLERATION_EFFECT,
    );
    found.check(
        !exists || value.is_empty(),
        field,
        &rules::TOLERATION_EXISTS_NO_VALUE,
    );
    found.check(
        !key.is_empty() || exists,
        field,
        &rules::TOLERATION_EMPTY_KEY,
    );
    found.check(
        t.toleration_seconds.is_none() || effect == "NoExecute",
        field,
        &rules::TOLERATION_SECONDS,
    );
    found.check(
        key.is_empty() || is_qualified_name(key),
        format!("{field}.key"),
        &rules::TOLERATION_KEY,
    );
    found.check(
        is_label_value(value),
        format!("{field}.value"),
        &rules::TOLERATION_VALUE,
    );
}

fn affinity(found: &mut Problems, affinity: &Affinity, field: &str) {
    if let Some(node) = &affinity.node_affinity {
        let field = format!("{field}.nodeAffinity");
        if let Some(required) = &node.required_during_scheduling_ignored_during_execution {
            for (i, term) in required.node_selector_terms.iter().enumerate() {
                let field = format!(
                    "{field}.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[{i}]"
                );
                node_selector_term(found, term, &field);
            }
        }
        for (i, preferred) in node
            .preferred_during_scheduling_ignored_during_execution
            .iter()
            .flatten()
            .enumerate()
        {
            let field = format!("{field}.preferredDuringSchedulingIgnoredDuringExecution[{i}]");
            weight(found, preferred.weight, &field);
            node_selector_term(found, &preferred.preference, &format!("{field}.preference"));
        }
    }
    let pod = affinity.pod_affinity.as_ref().map(|a| {
        (
            &a.required_during_scheduling_ignored_during_execution,
            &a.preferred_during_scheduling_ignored_during_execution,
        )
    });
    let anti = affinity.pod_anti_affinity.as_ref().map(|a| {
        (
            &a.required_during_scheduling_ignored_during_execution,
            &a.preferred_during_scheduling_ignored_during_execution,
        )
    });
    for (kind, terms) in [("podAffinity", pod), ("podAntiAffinity", anti)] {
        let Some((required, preferred)) = terms else {
            continue;
        };
        let field = format!("{field}.{kind}");
        for (i, term) in required.iter().flatten().enumerate() {
            let field = format!("{field}.requiredDuringSchedulingIgnoredDuringExecution[{i}]");
            pod_affinity_term(found, term, &field);
        }
        for (i, weighted) in preferred.iter().flatten().enumerate() {
            let field = format!("{field}.preferredDuringSchedulingIgnoredDuringExecution[{i}]");
            weight(found, weighted.weight, &field);
            pod_affinity_term(
                found,
                &weighted.pod_affinity_term,
                &format!("{field}.podAffinityTerm"),
            );
        }
    }
}

/// The weight's bounds are OpenAPI's (`minimum`/`maximum`); its message is
/// the API server's.
fn weight(found: &mut Problems, weight: i32, field: &str) {
    found.check(
        (1..=100).contains(&weight),
        format!("{field}.weight"),
        &rules::WEIGHT,
    );
}

fn node_selector_term(found: &mut Problems, term: &NodeSelectorTerm, field: &str) {
    for (i, requirement) in term.match_expressions.iter().flatten().enumerate() {
        node_requirement(
            found,
            requirement,
            &format!("{field}.matchExpressions[{i}]"),
        );
    }
    for (i, requirement) in term.match_fields.iter().flatten().enumerate() {
        let values = requirement.values.as_deref().unwrap_or_default();
        let ok = requirement.key == "metadata.name"
            && matches!(requirement.operator.as_str(), "In" | "NotIn")
            && values.len() == 1;
        found.check(ok, format!("{field}.matchFields[{i}]"), &rules::NODE_FIELD);
    }
}

fn node_requirement(found: &mut Problems, r: &NodeSelectorRequirement, field: &str) {
    let values = r.values.as_deref().unwrap_or_default();
    let operator = r.operator.as_str();
    let known = matches!(
        operator,
        "In" | "NotIn" | "Exists" | "DoesNotExist" | "Gt" | "Lt"
    );
    found.check(known, field, &rules::NODE_OPERATOR);
    let values_ok = match operator {
        "In" | "NotIn" => !values.is_empty(),
        "Gt" | "Lt" => values.len() == 1 && is_integer(&values[0]),
        "Exists" | "DoesNotExist" => values.is_empty(),
        _ => true,
    };
    found.check(values_ok, field, &rules::NODE_VALUES);
    found.check(
        is_qualified_name(&r.key),
        format!("{field}.key"),
        &rules::NODE_KEY,
    );
}

/// `^[-+]?[0-9]+$`, as the CEL rule says.
fn is_integer(s: &str) -> bool {
    let digits = s.strip_prefix(['-', '+']).unwrap_or(s);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

fn pod_affinity_term(found: &mut Problems, term: &PodAffinityTerm, field: &str) {
    found.check(
        is_qualified_name(&term.topology_key),
        format!("{field}.topologyKey"),
        &rules::TOPOLOGY_KEY,
    );
    for (i, namespace) in term.namespaces.iter().flatten().enumerate() {
        found.check(
            is_dns1123_label(namespace),
            format!("{field}.namespaces[{i}]"),
            &rules::AFFINITY_NAMESPACE,
        );
    }
    if let Some(selector) = &term.label_selector {
        label_selector(found, selector, &format!("{field}.labelSelector"));
    }
    if let Some(selector) = &term.namespace_selector {
        label_selector(found, selector, &format!("{field}.namespaceSelector"));
    }
}

pub(super) fn label_selector(found: &mut Problems, selector: &LabelSelector, field: &str) {
    if let Some(labels) = &selector.match_labels {
        found.check(
            are_labels(labels),
            format!("{field}.matchLabels"),
            &rules::MATCH_LABELS,
        );
    }
    for (i, r) in selector.match_expressions.iter().flatten().enumerate() {
        let field = format!("{field}.matchExpressions[{i}]");
        let values = r.values.as_deref().unwrap_or_default();
        let operator = r.operator.as_str();
        let known = matches!(operator, "In" | "NotIn" | "Exists" | "DoesNotExist");
        found.check(known, field.clone(), &rules::SELECTOR_OPERATOR);
        let values_ok = match operator {
            "In" | "NotIn" => !values.is_empty(),
            "Exists" | "DoesNotExist" => values.is_empty(),
            _ => true,
        };
        found.check(values_ok, field.clone(), &rules::SELECTOR_VALUES);
        found.check(
            is_qualified_name(&r.key),
            format!("{field}.key"),
            &rules::SELECTOR_KEY,
        );
        for (j, value) in values.iter().enumerate() {
            found.check(
                is_label_value(value),
                format!("{field}.values[{j}]"),
                &rules::SELECTOR_VALUE,
            );
        }
    }
}
