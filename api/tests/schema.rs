//! Properties of the generated OpenAPI schema that `kubectl explain`, the API
//! server and the operator rely on.

use serde_json::{Value, json};
use trussium_api::TrussiumRuntimeSpec;
use trussium_api::crd::crd;

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// The version's `openAPIV3Schema` as JSON.
fn root_schema() -> Result<Value, Box<dyn std::error::Error>> {
    let crd = serde_json::to_value(crd())?;
    let schema = crd
        .pointer("/spec/versions/0/schema/openAPIV3Schema")
        .cloned()
        .ok_or("the CRD has no openAPIV3Schema")?;
    Ok(schema)
}

fn spec_schema() -> Result<Value, Box<dyn std::error::Error>> {
    root_schema()?
        .pointer("/properties/spec")
        .cloned()
        .ok_or_else(|| "the schema has no spec".into())
}

/// Visits every schema node, with its path (`spec.provider.model`,
/// `spec.imagePullSecrets[].name`, `spec.podMetadata.labels{}`).
fn walk(schema: &Value, path: &str, visit: &mut dyn FnMut(&str, &Value)) {
    visit(path, schema);
    if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
        for (name, property) in properties {
            let child = if path.is_empty() {
                name.clone()
            } else {
                format!("{path}.{name}")
            };
            walk(property, &child, visit);
        }
    }
    if let Some(items) = schema.get("items") {
        walk(items, &format!("{path}[]"), visit);
    }
    if let Some(additional) = schema.get("additionalProperties").filter(|a| a.is_object()) {
        walk(additional, &format!("{path}{{}}"), visit);
    }
}

#[test]
fn every_property_has_a_description() -> TestResult {
    let root = root_schema()?;
    let mut missing = Vec::new();
    let mut properties = 0;
    walk(&root, "", &mut |path, schema| {
        if let Some(props) = schema.get("properties").and_then(Value::as_object) {
            for (name, property) in props {
                properties += 1;
                let described = property
                    .get("description")
                    .and_then(Value::as_str)
                    .is_some_and(|d| !d.trim().is_empty());
                if !described {
                    missing.push(if path.is_empty() {
                        name.clone()
                    } else {
                        format!("{path}.{name}")
                    });
                }
            }
        }
    });
    assert!(
        missing.is_empty(),
        "properties without a description (kubectl explain would show nothing): {missing:#?}"
    );
    // spec and status with all their k8s-openapi sub-schemas (Affinity, ...).
    assert!(properties > 150, "only {properties} properties walked");
    Ok(())
}

#[test]
fn no_spec_field_is_nullable() -> TestResult {
    // Without `nullable` the API server prunes an explicit null before
    // defaulting, so `service: null` means "default Service" and `tag: null`
    // is never stored (see crd::crd).
    let mut nullable = Vec::new();
    walk(&spec_schema()?, "spec", &mut |path, schema| {
        if schema.get("nullable").is_some() {
            nullable.push(path.to_string());
        }
    });
    assert!(nullable.is_empty(), "nullable spec fields: {nullable:#?}");
    Ok(())
}

/// Checks that every schema `default` below `schema` is what serde produced in
/// `value`, and that every field serde added to `input` is a schema default.
fn compare_defaults(
    schema: &Value,
    input: &Value,
    value: &Value,
    path: &str,
    failures: &mut Vec<String>,
) {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return;
    };
    for (name, property) in properties {
        let child = format!("{path}.{name}");
        let given = input.get(name);
        let produced = value.get(name);
        match (property.get("default"), given, produced) {
            (Some(default), None, Some(produced)) if produced != default => failures.push(format!(
                "{child}: schema default {default}, serde default {produced}"
            )),
            (Some(default), None, None) => failures.push(format!(
                "{child}: schema default {default}, serde leaves it out"
            )),
            (None, None, Some(produced)) => failures.push(format!(
                "{child}: serde defaults it to {produced}, the schema has no default"
            )),
            _ => {}
        }
        if let Some(produced) = produced.filter(|p| p.is_object()) {
            let empty = json!({});
            compare_defaults(
                property,
                given.unwrap_or(&empty),
                produced,
                &child,
                failures,
            );
        }
    }
}

fn assert_defaults_mirror(input: Value) -> TestResult {
    let spec: TrussiumRuntimeSpec = serde_json::from_value(input.clone())?;
    let value = serde_json::to_value(&spec)?;
    let mut failures = Vec::new();
    compare_defaults(&spec_schema()?, &input, &value, "spec", &mut failures);
    assert!(
        failures.is_empty(),
        "serde and schema defaults differ for {input}: {failures:#?}"
    );
    Ok(())
}

#[test]
fn serde_defaults_mirror_schema_defaults_when_sections_are_omitted() -> TestResult {
    assert_defaults_mirror(json!({
        "image": {"repository": "ghcr.io/trussiumhq/trussium", "tag": "v1.22.0"},
        "provider": {"type": "ollama", "model": "llama3.2"},
    }))
}

#[test]
fn serde_defaults_mirror_schema_defaults_inside_empty_sections() -> TestResult {
    assert_defaults_mirror(json!({
        "image": {"repository": "ghcr.io/trussiumhq/trussium", "tag": "v1.22.0"},
        "provider": {"type": "ollama", "model": "llama3.2"},
        "runtime": {},
        "service": {},
        "networkPolicy": {},
        "autoscaling": {},
        "resources": {},
        "podMetadata": {},
        "scheduling": {},
    }))
}

#[test]
fn documented_defaults() -> TestResult {
    let spec = spec_schema()?;
    assert_eq!(
        spec.pointer("/properties/replicas/default"),
        Some(&json!(1))
    );
    assert_eq!(
        spec.pointer("/properties/image/properties/pullPolicy/default"),
        Some(&json!("IfNotPresent"))
    );
    // Also when `service` is omitted entirely.
    assert_eq!(
        spec.pointer("/properties/service/default"),
        Some(&json!({"type": "ClusterIP", "port": 9000}))
    );
    assert_eq!(
        spec.pointer("/properties/autoscaling/properties/minReplicas/default"),
        Some(&json!(1))
    );
    assert_eq!(
        spec.pointer("/properties/autoscaling/properties/targetCPUUtilizationPercentage/default"),
        Some(&json!(80))
    );
    assert_eq!(
        spec.pointer("/properties/networkPolicy/properties/enabled/default"),
        Some(&json!(false))
    );
    Ok(())
}

#[test]
fn every_cel_rule_has_a_message() -> TestResult {
    let mut bare = Vec::new();
    let mut rules = 0;
    walk(&root_schema()?, "", &mut |path, schema| {
        for rule in schema
            .get("x-kubernetes-validations")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            rules += 1;
            if rule.get("message").and_then(Value::as_str).is_none() {
                bare.push(format!("{path}: {rule}"));
            }
        }
    });
    assert!(bare.is_empty(), "rules without a message: {bare:#?}");
    assert!(rules >= 60, "only {rules} CEL rules");
    Ok(())
}

#[test]
fn resource_identity_and_cli_surface() -> TestResult {
    let crd = serde_json::to_value(crd())?;
    assert_eq!(
        crd["metadata"]["name"],
        "trussiumruntimes.runtime.trussium.io"
    );
    assert_eq!(crd["spec"]["scope"], "Namespaced");
    assert_eq!(crd["spec"]["names"]["shortNames"], json!(["trt"]));
    assert_eq!(crd["spec"]["names"]["categories"], json!(["trussium"]));
    let version = &crd["spec"]["versions"][0];
    assert_eq!(version["name"], "v1beta1");
    let columns: Vec<&str> = version["additionalPrinterColumns"]
        .as_array()
        .ok_or("no printer columns")?
        .iter()
        .filter_map(|c| c["name"].as_str())
        .collect();
    // NAME comes first on its own; Status and Stalled only with `-o wide`.
    assert_eq!(
        columns,
        [
            "Ready", "Desired", "Provider", "Model", "Version", "Age", "Status", "Stalled"
        ]
    );
    let wide: Vec<&str> = version["additionalPrinterColumns"]
        .as_array()
        .ok_or("no printer columns")?
        .iter()
        .filter(|c| c["priority"].as_i64().unwrap_or(0) > 0)
        .filter_map(|c| c["name"].as_str())
        .collect();
    assert_eq!(wide, ["Status", "Stalled"]);
    assert_eq!(
        version["subresources"]["scale"]["specReplicasPath"],
        ".spec.replicas"
    );
    assert_eq!(version["subresources"]["status"], json!({}));
    // Served as "not processed yet" until the operator writes a status.
    assert_eq!(
        version["schema"]["openAPIV3Schema"]["properties"]["status"]["default"],
        json!({"observedGeneration": 0})
    );
    Ok(())
}

#[test]
fn every_spec_list_and_map_that_a_rule_walks_is_bounded() -> TestResult {
    // The API server estimates a rule's cost from these bounds (times every
    // list around it) and refuses a CRD whose rules could cost too much.
    let mut unbounded = Vec::new();
    walk(&spec_schema()?, "spec", &mut |path, schema| {
        if schema.get("items").is_some() && schema.get("maxItems").is_none() {
            unbounded.push(path.to_string());
        }
    });
    assert!(
        unbounded.is_empty(),
        "lists without maxItems: {unbounded:#?}"
    );
    Ok(())
}

#[test]
fn replica_counts_are_bounded_at_1000() -> TestResult {
    let spec = spec_schema()?;
    for pointer in [
        "/properties/replicas/maximum",
        "/properties/autoscaling/properties/minReplicas/maximum",
        "/properties/autoscaling/properties/maxReplicas/maximum",
    ] {
        assert_eq!(
            spec.pointer(pointer).and_then(Value::as_f64),
            Some(f64::from(trussium_api::validation::MAX_REPLICAS)),
            "{pointer}"
        );
    }
    Ok(())
}

#[test]
fn the_embedded_kubernetes_types_carry_their_rules() -> TestResult {
    let spec = spec_schema()?;
    let messages_at = |pointer: &str| -> Vec<String> {
        spec.pointer(pointer)
            .and_then(|node| node.get("x-kubernetes-validations"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|rule| rule["message"].as_str().map(str::to_string))
            .collect()
    };
    use trussium_api::validation::rules;
    let tolerations = "/properties/scheduling/properties/tolerations/items";
    assert!(messages_at(tolerations).contains(&rules::TOLERATION_EFFECT.message.to_string()));
    assert!(
        messages_at("/properties/resources")
            .contains(&rules::REQUESTS_WITHIN_LIMITS.message.to_string())
    );
    let pod_selector = "/properties/networkPolicy/properties/ingress/items/properties/podSelector/properties/matchExpressions/items";
    assert!(messages_at(pod_selector).contains(&rules::SELECTOR_OPERATOR.message.to_string()));
    let weight = "/properties/scheduling/properties/affinity/properties/podAffinity/properties/preferredDuringSchedulingIgnoredDuringExecution/items/properties/weight";
    assert_eq!(
        spec.pointer(&format!("{weight}/maximum"))
            .and_then(Value::as_f64),
        Some(100.0)
    );
    let root = root_schema()?;
    let root_rules: Vec<&str> = root["x-kubernetes-validations"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| r["message"].as_str())
        .collect();
    assert_eq!(
        root_rules,
        [rules::NAME.message, rules::NAME_NOT_DEFAULT.message]
    );
    Ok(())
}
