//! The API reference page, generated from the committed CRD: every field with
//! its type, whether it is required, its default, its constraints and its CEL
//! validation rules with the message the API server answers when one fails.

use std::collections::BTreeMap;
use std::fmt::Write;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceDefinition, CustomResourceDefinitionVersion, JSONSchemaProps,
    JSONSchemaPropsOrArray, JSONSchemaPropsOrBool,
};

use crate::Error;
use crate::upstream::KubernetesType;

/// Where the generated page lives, relative to the repository's root.
pub const PAGE: &str = "docs/src/reference/api.md";

/// Everything the page is made from.
pub struct Inputs<'a> {
    /// The CRD YAML, as committed.
    pub crd_yaml: &'a str,
    /// Where the CRD comes from, named in the page's header.
    pub crd_path: &'a str,
    /// Fields that hold one of Kubernetes' own types (see [`crate::upstream`]).
    pub kubernetes_types: &'a BTreeMap<String, KubernetesType>,
    /// The Kubernetes API reference to link them to, e.g. `v1.33`.
    pub kubernetes_docs_version: &'a str,
}

/// The page, as Markdown.
pub fn render(inputs: &Inputs) -> Result<String, Error> {
    let crd: CustomResourceDefinition = serde_yaml::from_str(inputs.crd_yaml)?;
    let names = &crd.spec.names;
    let mut out = String::new();
    let _ = writeln!(out, "# API reference\n");
    let _ = writeln!(
        out,
        "<!-- Generated from {} by `make generate` (docs/tool); do not edit. -->\n",
        inputs.crd_path
    );
    for version in &crd.spec.versions {
        if version.deprecated == Some(true) {
            // Said under the storage version (below): the same schema.
            continue;
        }
        let schema = version
            .schema
            .as_ref()
            .and_then(|s| s.open_api_v3_schema.as_ref())
            .ok_or_else(|| Error::Invalid(format!("version {} has no schema", version.name)))?;
        let _ = writeln!(
            out,
            "`{kind}` is a {scope} resource of the API group `{group}`, version `{version}` \
             (plural `{plural}`{short}{categories}).{storage}\n",
            kind = names.kind,
            scope = crd.spec.scope.to_lowercase(),
            group = crd.spec.group,
            version = version.name,
            plural = names.plural,
            short = list_suffix("short name", names.short_names.as_deref()),
            categories = list_suffix("category", names.categories.as_deref()),
            storage = if version.storage {
                ""
            } else {
                " Served, not stored."
            },
        );
        deprecated_versions(&mut out, &crd);
        if let Some(description) = &schema.description {
            let _ = writeln!(out, "{}\n", one_paragraph(description));
        }
        let _ = writeln!(
            out,
            "The API server checks every type, constraint and rule on this page when a \
             runtime is created or changed, and refuses a runtime that breaks one with the \
             message shown. `kubectl explain trussiumruntime.<field>` prints the same \
             descriptions.\n"
        );
        subresources(&mut out, version);
        printer_columns(&mut out, version);
        let writer = FieldWriter { inputs };
        for root in ["spec", "status"] {
            if let Some(node) = schema.properties.as_ref().and_then(|p| p.get(root)) {
                let required = schema
                    .required
                    .as_ref()
                    .is_some_and(|r| r.iter().any(|n| n == root));
                let _ = writeln!(out, "## `{root}` {{#{}}}\n", anchor(root));
                writer.field(&mut out, root, node, required, true);
            }
        }
    }
    Ok(out.trim_end().to_string() + "\n")
}

/// One line per deprecated version: the same schema as the storage version
/// (a test in api/ holds them equal), so not the page again.
fn deprecated_versions(out: &mut String, crd: &CustomResourceDefinition) {
    for version in &crd.spec.versions {
        if version.deprecated == Some(true) {
            let _ = writeln!(
                out,
                "Version `{}` is served too, deprecated, with the same schema field for field: \
                 {}. See [API versions](api-versions.md).\n",
                version.name,
                version
                    .deprecation_warning
                    .as_deref()
                    .unwrap_or("use the storage version")
            );
        }
    }
}

fn list_suffix(what: &str, values: Option<&[String]>) -> String {
    match values {
        Some(values) if !values.is_empty() => format!(
            ", {what} {}",
            values
                .iter()
                .map(|v| format!("`{v}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        _ => String::new(),
    }
}

fn subresources(out: &mut String, version: &CustomResourceDefinitionVersion) {
    let Some(sub) = &version.subresources else {
        return;
    };
    let mut lines = Vec::new();
    if sub.status.is_some() {
        lines.push("- `status`: the status is written through its own endpoint, so a change of the spec never overwrites it.".to_string());
    }
    if let Some(scale) = &sub.scale {
        lines.push(format!(
            "- `scale`: `kubectl scale` and autoscalers set `{}` and read `{}`.",
            scale.spec_replicas_path, scale.status_replicas_path
        ));
    }
    if !lines.is_empty() {
        let _ = writeln!(out, "Subresources:\n\n{}\n", lines.join("\n"));
    }
}

fn printer_columns(out: &mut String, version: &CustomResourceDefinitionVersion) {
    let Some(columns) = &version.additional_printer_columns else {
        return;
    };
    let _ = writeln!(out, "## Columns of `kubectl get` {{#columns}}\n");
    let _ = writeln!(
        out,
        "| Column | Shown | From | Description |\n|---|---|---|---|"
    );
    for column in columns {
        let shown = if column.priority.unwrap_or(0) > 0 {
            "with `-o wide`"
        } else {
            "always"
        };
        let _ = writeln!(
            out,
            "| {} | {shown} | `{}` | {} |",
            column.name.to_uppercase(),
            column.json_path.replace('|', "\\|"),
            column
                .description
                .as_deref()
                .map(one_paragraph)
                .unwrap_or_default()
                .replace('|', "\\|")
        );
    }
    out.push('\n');
}

struct FieldWriter<'a> {
    inputs: &'a Inputs<'a>,
}

impl FieldWriter<'_> {
    /// Writes the field at `path` (its heading is written by the caller for
    /// the two roots), then every field under it, depth first.
    fn field(
        &self,
        out: &mut String,
        path: &str,
        node: &JSONSchemaProps,
        required: bool,
        root: bool,
    ) {
        if !root {
            let _ = writeln!(out, "### `{path}` {{#{}}}\n", anchor(path));
        }
        let upstream = self.inputs.kubernetes_types.get(path);
        let mut facts = vec![self.type_name(node, upstream)];
        facts.push(if required { "required" } else { "optional" }.to_string());
        if let Some(default) = &node.default {
            facts.push(format!("default `{}`", compact_json(&default.0)));
        }
        let _ = writeln!(out, "{}\n", facts.join(" · "));
        if let Some(description) = &node.description {
            let _ = writeln!(out, "{}\n", description.trim());
        }
        let constraints = constraints(node);
        if !constraints.is_empty() {
            let _ = writeln!(out, "{}\n", constraints.join("\n"));
        }
        if upstream.is_some() {
            // Kubernetes documents its own fields; ours end here.
            return;
        }
        let object = object_of(node);
        let children = object.and_then(|o| o.properties.as_ref());
        let Some(children) = children.filter(|c| !c.is_empty()) else {
            return;
        };
        let required_children = object.and_then(|o| o.required.clone()).unwrap_or_default();
        let _ = writeln!(
            out,
            "Fields: {}\n",
            children
                .keys()
                .map(|name| {
                    let child = format!("{path}.{name}");
                    format!("[`{name}`](#{})", anchor(&child))
                })
                .collect::<Vec<_>>()
                .join(", ")
        );
        for (name, child) in children {
            let is_required = required_children.iter().any(|r| r == name);
            self.field(out, &format!("{path}.{name}"), child, is_required, false);
        }
    }

    fn type_name(&self, node: &JSONSchemaProps, upstream: Option<&KubernetesType>) -> String {
        let version = self.inputs.kubernetes_docs_version;
        let upstream_name = |t: &KubernetesType| {
            format!(
                "[{}]({}) (Kubernetes {})",
                t.kind(),
                t.reference_url(version),
                t.group_version()
            )
        };
        let keys = match (
            node.x_kubernetes_list_type.as_deref(),
            &node.x_kubernetes_list_map_keys,
        ) {
            (Some("map"), Some(keys)) => format!(
                ", one per {}",
                keys.iter()
                    .map(|k| format!("`{k}`"))
                    .collect::<Vec<_>>()
                    .join(" and ")
            ),
            (Some("set"), _) => ", each at most once".to_string(),
            _ => String::new(),
        };
        match (node.type_.as_deref(), upstream) {
            (Some("array"), Some(t)) => format!("list of {}{keys}", upstream_name(t)),
            (_, Some(t)) => upstream_name(t),
            (Some("array"), None) => {
                let item = match &node.items {
                    Some(JSONSchemaPropsOrArray::Schema(item)) => self.type_name(item, None),
                    _ => "values".to_string(),
                };
                format!("list of {item}{keys}")
            }
            (Some("object"), None) => match &node.additional_properties {
                Some(JSONSchemaPropsOrBool::Schema(value)) => {
                    format!("map of string to {}", self.type_name(value, None))
                }
                _ => "object".to_string(),
            },
            (Some(scalar), None) => match node.format.as_deref() {
                Some(format) => format!("{scalar} ({format})"),
                None => scalar.to_string(),
            },
            (None, None) if node.x_kubernetes_int_or_string == Some(true) => {
                "integer or string".to_string()
            }
            (None, None) => "any".to_string(),
        }
    }
}

/// The object whose fields a node has: itself, or its list's item.
fn object_of(node: &JSONSchemaProps) -> Option<&JSONSchemaProps> {
    match (&node.properties, &node.items) {
        (Some(_), _) => Some(node),
        (None, Some(JSONSchemaPropsOrArray::Schema(item))) => Some(item),
        _ => None,
    }
}

/// The constraints of a node (and of its list items), one Markdown list item each.
fn constraints(node: &JSONSchemaProps) -> Vec<String> {
    let mut out = Vec::new();
    push_constraints(&mut out, node, "");
    if let Some(JSONSchemaPropsOrArray::Schema(item)) = &node.items {
        push_constraints(&mut out, item, "each item: ");
    }
    if let Some(JSONSchemaPropsOrBool::Schema(value)) = &node.additional_properties {
        push_constraints(&mut out, value, "each value: ");
    }
    out
}

fn push_constraints(out: &mut Vec<String>, node: &JSONSchemaProps, prefix: &str) {
    let number = |n: f64| {
        if n.fract() == 0.0 {
            format!("{}", n as i64)
        } else {
            n.to_string()
        }
    };
    match (node.minimum, node.maximum) {
        (Some(min), Some(max)) => {
            out.push(format!("- {prefix}from {} to {}", number(min), number(max)))
        }
        (Some(min), None) => out.push(format!("- {prefix}at least {}", number(min))),
        (None, Some(max)) => out.push(format!("- {prefix}at most {}", number(max))),
        (None, None) => {}
    }
    match (node.min_length, node.max_length) {
        (Some(min), Some(max)) => out.push(format!("- {prefix}{min} to {max} characters")),
        (Some(min), None) => out.push(format!("- {prefix}at least {min} characters")),
        (None, Some(max)) => out.push(format!("- {prefix}at most {max} characters")),
        (None, None) => {}
    }
    if let Some(max) = node.max_items {
        out.push(format!("- {prefix}at most {max} items"));
    }
    if let Some(min) = node.min_items {
        out.push(format!("- {prefix}at least {min} items"));
    }
    if let Some(max) = node.max_properties {
        out.push(format!("- {prefix}at most {max} entries"));
    }
    if let Some(pattern) = &node.pattern {
        out.push(format!("- {prefix}matches `{pattern}`"));
    }
    if let Some(values) = &node.enum_ {
        out.push(format!(
            "- {prefix}one of {}",
            values
                .iter()
                .map(|v| format!("`{}`", compact_json(&v.0)))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    for rule in node.x_kubernetes_validations.iter().flatten() {
        let message = rule
            .message
            .as_deref()
            .map(|m| format!(" — refused with “{m}”"))
            .unwrap_or_default();
        out.push(format!("- {prefix}rule `{}`{message}", rule.rule));
    }
}

/// A JSON value on one line; a string without its quotes.
fn compact_json(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn one_paragraph(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The anchor of a field's heading: `spec.image.tag` → `spec-image-tag`.
pub fn anchor(path: &str) -> String {
    path.replace('.', "-").to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    const CRD: &str = r#"
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.io
spec:
  group: example.io
  names: {kind: Widget, plural: widgets, shortNames: [wd]}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [size]
            properties:
              size:
                description: How big.
                type: integer
                format: int32
                minimum: 1.0
                maximum: 9.0
                default: 3
              mode:
                type: string
                enum: [fast, slow]
              selector:
                type: object
                properties:
                  matchLabels: {type: object, additionalProperties: {type: string}}
            x-kubernetes-validations:
            - rule: self.size > 2 || self.mode == 'slow'
              message: small widgets are slow
"#;

    fn page() -> Result<String, Error> {
        let mut types = BTreeMap::new();
        types.insert(
            "spec.selector".to_string(),
            KubernetesType {
                openapi_name: "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector".into(),
            },
        );
        render(&Inputs {
            crd_yaml: CRD,
            crd_path: "crds/widgets.yaml",
            kubernetes_types: &types,
            kubernetes_docs_version: "v1.33",
        })
    }

    #[test]
    fn every_field_with_type_default_constraints_and_rules() -> Result<(), Error> {
        let page = page()?;
        assert!(page.contains("`Widget` is a namespaced resource of the API group `example.io`, version `v1` (plural `widgets`, short name `wd`)."), "{page}");
        assert!(page.contains("### `spec.size` {#spec-size}\n\ninteger (int32) · required · default `3`\n\nHow big.\n\n- from 1 to 9\n"), "{page}");
        assert!(
            page.contains(
                "### `spec.mode` {#spec-mode}\n\nstring · optional\n\n- one of `fast`, `slow`\n"
            ),
            "{page}"
        );
        assert!(page.contains("- rule `self.size > 2 || self.mode == 'slow'` — refused with “small widgets are slow”"), "{page}");
        assert!(
            page.contains(
                "Fields: [`mode`](#spec-mode), [`selector`](#spec-selector), [`size`](#spec-size)"
            ),
            "{page}"
        );
        Ok(())
    }

    #[test]
    fn kubernetes_types_are_linked_not_expanded() -> Result<(), Error> {
        let page = page()?;
        assert!(page.contains("[LabelSelector](https://kubernetes.io/docs/reference/generated/kubernetes-api/v1.33/#labelselector-v1-meta) (Kubernetes meta/v1) · optional"), "{page}");
        assert!(!page.contains("matchLabels"), "{page}");
        Ok(())
    }

    #[test]
    fn a_deprecated_version_is_one_line_not_the_page_again() -> Result<(), Error> {
        let deprecated = "  - name: v0\n    served: true\n    storage: false\n    deprecated: true\n    deprecationWarning: example.io/v0 Widget is deprecated; use example.io/v1\n    schema:\n      openAPIV3Schema: {type: object}\n";
        let crd = format!("{CRD}{deprecated}");
        let page = render(&Inputs {
            crd_yaml: &crd,
            crd_path: "crds/widgets.yaml",
            kubernetes_types: &BTreeMap::new(),
            kubernetes_docs_version: "v1.33",
        })?;
        assert!(page.contains("Version `v0` is served too, deprecated, with the same schema field for field: example.io/v0 Widget is deprecated; use example.io/v1."), "{page}");
        assert_eq!(page.matches("### `spec.size`").count(), 1, "{page}");
        Ok(())
    }
}
