//! Adds the rules of [`super::rules`] to the schemas of the Kubernetes types
//! the spec embeds (ResourceRequirements, Toleration, Affinity,
//! LabelSelector), which cannot carry attributes: a schemars transform on
//! the spec finds them by their properties and patches them in place.
//!
//! It also bounds every list (`maxItems`) and every string a rule matches
//! (`maxLength`): the API server estimates each rule's cost from those
//! bounds, times the size of every list around it, and refuses a CRD whose
//! rules could cost too much.

use serde_json::{Map, Value, json};

use super::rules::{self, Rule};

/// `maxItems` of a list that has none: tolerations, affinity terms, selector
/// requirements, imagePullSecrets.
pub const MAX_ITEMS: u64 = 32;
/// `maxItems` of a selector's `matchExpressions`.
pub const MAX_EXPRESSIONS: u64 = 16;
/// `maxItems` of a selector requirement's `values`.
pub const MAX_VALUES: u64 = 32;
/// `maxProperties` of `matchLabels`, `nodeSelector`, `limits`, `requests`.
pub const MAX_PROPERTIES: u64 = 64;
/// The longest qualified name: a 253-character prefix, '/', 63 characters.
const MAX_KEY: u64 = 317;
/// The longest label value.
const MAX_LABEL_VALUE: u64 = 63;
/// The longest quantity: far longer than any real one (`1.5Gi`,
/// `1000000000000000000m`).
const MAX_QUANTITY: u64 = 64;

/// The transform, for `#[schemars(transform = ...)]` on the spec.
pub fn harden(schema: &mut schemars::Schema) {
    if let Some(node) = schema.as_object_mut() {
        walk(node);
    }
}

fn walk(node: &mut Map<String, Value>) {
    patch(node);
    // (`items`, not `type`: an optional list is typed ["array", "null"] until
    // kube makes it nullable.)
    if node.contains_key("items") {
        node.entry("maxItems").or_insert(json!(MAX_ITEMS));
    }
    if let Some(properties) = node.get_mut("properties").and_then(Value::as_object_mut) {
        for child in properties.values_mut().filter_map(Value::as_object_mut) {
            walk(child);
        }
    }
    for key in ["items", "additionalProperties"] {
        if let Some(child) = node.get_mut(key).and_then(Value::as_object_mut) {
            walk(child);
        }
    }
}

fn has(node: &Map<String, Value>, names: &[&str]) -> bool {
    let properties = node.get("properties").and_then(Value::as_object);
    properties.is_some_and(|p| names.iter().all(|n| p.contains_key(*n)))
}

fn property<'a>(
    node: &'a mut Map<String, Value>,
    path: &[&str],
) -> Option<&'a mut Map<String, Value>> {
    let mut node = node;
    for step in path {
        node = match *step {
            "[]" => node.get_mut("items"),
            "{}" => node.get_mut("additionalProperties"),
            name => node.get_mut("properties").and_then(|p| p.get_mut(name)),
        }?
        .as_object_mut()?;
    }
    Some(node)
}

fn add(node: &mut Map<String, Value>, rule: &Rule) {
    let rules = node.entry("x-kubernetes-validations").or_insert(json!([]));
    if let Some(rules) = rules.as_array_mut() {
        rules.push(json!({"rule": rule.cel, "message": rule.message}));
    }
}

/// Adds `rule` and bounds to the node at `path`, if there is one.
fn at(node: &mut Map<String, Value>, path: &[&str], rules: &[&Rule], bounds: &[(&str, u64)]) {
    if let Some(target) = property(node, path) {
        for rule in rules {
            add(target, rule);
        }
        for (bound, value) in bounds {
            target.insert(bound.to_string(), json!(value));
        }
    }
}

/// Recognizes one embedded Kubernetes type by its properties.
fn patch(node: &mut Map<String, Value>) {
    if has(node, &["limits", "requests", "claims"]) {
        resource_requirements(node);
    } else if has(
        node,
        &["key", "operator", "value", "effect", "tolerationSeconds"],
    ) {
        toleration(node);
    } else if has(node, &["matchLabels", "matchExpressions"]) {
        label_selector(node);
    } else if has(node, &["matchExpressions", "matchFields"]) {
        node_selector_term(node);
    } else if has(node, &["topologyKey", "labelSelector"]) {
        pod_affinity_term(node);
    }
    if has(node, &["weight"]) && (has(node, &["preference"]) || has(node, &["podAffinityTerm"])) {
        at(node, &["weight"], &[], &[("minimum", 1), ("maximum", 100)]);
    }
}

/// `resources`: requests within limits, bounded maps of valid quantities.
fn resource_requirements(node: &mut Map<String, Value>) {
    add(node, &rules::REQUESTS_WITHIN_LIMITS);
    for list in ["limits", "requests"] {
        at(node, &[list], &[], &[("maxProperties", MAX_PROPERTIES)]);
        if let Some(quantity) = property(node, &[list, "{}"]) {
            quantity.insert("maxLength".into(), json!(MAX_QUANTITY));
            quantity.insert("pattern".into(), json!(rules::QUANTITY_PATTERN));
            quantity.insert("minimum".into(), json!(0));
        }
    }
}

/// A toleration: the operator and effect Kubernetes knows, bounded strings.
fn toleration(node: &mut Map<String, Value>) {
    for rule in [
        &rules::TOLERATION_OPERATOR,
        &rules::TOLERATION_EFFECT,
        &rules::TOLERATION_EXISTS_NO_VALUE,
        &rules::TOLERATION_EMPTY_KEY,
        &rules::TOLERATION_SECONDS,
    ] {
        add(node, rule);
    }
    at(
        node,
        &["key"],
        &[&rules::TOLERATION_KEY],
        &[("maxLength", MAX_KEY)],
    );
    at(
        node,
        &["value"],
        &[&rules::TOLERATION_VALUE],
        &[("maxLength", MAX_LABEL_VALUE)],
    );
}

/// A label selector: valid keys, values and operators, bounded lists.
fn label_selector(node: &mut Map<String, Value>) {
    let labels = &[("maxProperties", MAX_PROPERTIES)];
    at(node, &["matchLabels"], &[&rules::MATCH_LABELS], labels);
    at(
        node,
        &["matchLabels", "{}"],
        &[],
        &[("maxLength", MAX_LABEL_VALUE)],
    );
    let requirement = [&rules::SELECTOR_OPERATOR, &rules::SELECTOR_VALUES];
    let expressions = &[("maxItems", MAX_EXPRESSIONS)];
    at(node, &["matchExpressions"], &[], expressions);
    at(node, &["matchExpressions", "[]"], &requirement, &[]);
    at(
        node,
        &["matchExpressions", "[]", "key"],
        &[&rules::SELECTOR_KEY],
        &[("maxLength", MAX_KEY)],
    );
    at(
        node,
        &["matchExpressions", "[]", "values"],
        &[],
        &[("maxItems", MAX_VALUES)],
    );
    let value = [&rules::SELECTOR_VALUE];
    at(
        node,
        &["matchExpressions", "[]", "values", "[]"],
        &value,
        &[("maxLength", MAX_LABEL_VALUE)],
    );
}

/// A node selector term: valid keys, operators and fields, bounded lists.
fn node_selector_term(node: &mut Map<String, Value>) {
    let requirement = [&rules::NODE_OPERATOR, &rules::NODE_VALUES];
    let expressions = &[("maxItems", MAX_EXPRESSIONS)];
    at(node, &["matchExpressions"], &[], expressions);
    at(node, &["matchExpressions", "[]"], &requirement, &[]);
    at(
        node,
        &["matchExpressions", "[]", "key"],
        &[&rules::NODE_KEY],
        &[("maxLength", MAX_KEY)],
    );
    at(
        node,
        &["matchExpressions", "[]", "values"],
        &[],
        &[("maxItems", MAX_VALUES)],
    );
    at(
        node,
        &["matchExpressions", "[]", "values", "[]"],
        &[],
        &[("maxLength", MAX_LABEL_VALUE)],
    );
    at(node, &["matchFields", "[]"], &[&rules::NODE_FIELD], &[]);
}

/// A pod (anti-)affinity term: a valid topology key and namespaces.
fn pod_affinity_term(node: &mut Map<String, Value>) {
    at(
        node,
        &["topologyKey"],
        &[&rules::TOPOLOGY_KEY],
        &[("maxLength", MAX_KEY)],
    );
    let namespace = [&rules::AFFINITY_NAMESPACE];
    at(
        node,
        &["namespaces", "[]"],
        &namespace,
        &[("maxLength", MAX_LABEL_VALUE)],
    );
}
