//! The chart README's values table, generated from `values.yaml`: the
//! comment lines right above a key are its description. A mapping whose
//! keys have comments of their own is a section (its keys get rows); any
//! other key is one row, whatever its value (`resources` is one row with
//! its default map). Every row must have a description.

use serde_json::Value;
use trussium_e2e::manifests::CHART_DIR;
use trussium_e2e::repo_root;

use crate::support::{BoxError, TestResult, check_generated};

const BEGIN: &str = "<!-- values:begin (generated from values.yaml by `make generate`) -->";
const END: &str = "<!-- values:end -->";

/// One key of values.yaml, with the comment above it.
#[derive(Clone, Debug, PartialEq)]
pub struct Key {
    pub path: Vec<String>,
    pub description: String,
}

/// Every key of `text` (a values.yaml) in order, with its dotted path and
/// the comment lines right above it. List items are not keys.
pub fn keys(text: &str) -> Vec<Key> {
    let mut out = Vec::new();
    let mut comment: Vec<String> = Vec::new();
    // (indent, key) of the enclosing mappings.
    let mut stack: Vec<(usize, String)> = Vec::new();
    for line in text.lines() {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        if trimmed.is_empty() {
            comment.clear();
            continue;
        }
        if let Some(text) = trimmed.strip_prefix('#') {
            comment.push(text.trim().to_string());
            continue;
        }
        let is_key = !trimmed.starts_with('-')
            && trimmed.split_once(':').is_some_and(|(k, rest)| {
                !k.contains(' ') && (rest.is_empty() || rest.starts_with(' '))
            });
        if !is_key {
            comment.clear();
            continue;
        }
        let key = trimmed.split_once(':').map(|(k, _)| k).unwrap_or_default();
        while stack.last().is_some_and(|(i, _)| *i >= indent) {
            stack.pop();
        }
        let mut path: Vec<String> = stack.iter().map(|(_, k)| k.clone()).collect();
        path.push(key.to_string());
        out.push(Key {
            path,
            description: comment.join(" "),
        });
        comment.clear();
        stack.push((indent, key.to_string()));
    }
    out
}

/// The rows of the table: keys whose parent is a section (the top level, or
/// a key with a described child), excluding sections themselves.
pub fn rows(keys: &[Key]) -> Vec<&Key> {
    let described_child = |key: &Key| {
        keys.iter().any(|k| {
            k.path.len() == key.path.len() + 1
                && k.path.starts_with(&key.path)
                && !k.description.is_empty()
        })
    };
    let is_section = |key: &Key| described_child(key);
    keys.iter()
        .filter(|key| {
            let parent = &key.path[..key.path.len() - 1];
            let parent_is_section = parent.is_empty()
                || keys
                    .iter()
                    .find(|k| k.path == parent)
                    .is_some_and(is_section);
            parent_is_section && !is_section(key)
        })
        .collect()
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_i64() || n.is_u64() => "int",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "list",
        Value::Object(_) => "map",
    }
}

/// The markdown table of `values_text`; an error names any undescribed key.
pub fn table(values_text: &str) -> Result<String, BoxError> {
    let values: Value = serde_yaml::from_str(values_text)?;
    let keys = keys(values_text);
    let rows = rows(&keys);
    let undescribed: Vec<String> = rows
        .iter()
        .filter(|k| k.description.is_empty())
        .map(|k| k.path.join("."))
        .collect();
    if !undescribed.is_empty() {
        return Err(format!(
            "values.yaml keys without a comment above them: {}",
            undescribed.join(", ")
        )
        .into());
    }
    let mut out = String::from("| Key | Type | Default | Description |\n|---|---|---|---|\n");
    for key in rows {
        let pointer = format!("/{}", key.path.join("/"));
        let value = values.pointer(&pointer).cloned().unwrap_or(Value::Null);
        let default = serde_json::to_string(&value)?.replace('|', "\\|");
        out.push_str(&format!(
            "| `{}` | {} | `{}` | {} |\n",
            key.path.join("."),
            type_name(&value),
            default,
            key.description.replace('|', "\\|")
        ));
    }
    Ok(out)
}

/// `readme` with the text between the markers replaced by `table`.
pub fn with_table(readme: &str, table: &str) -> Result<String, BoxError> {
    let start = readme
        .find(BEGIN)
        .ok_or("the chart README has no values:begin marker")?;
    let end = readme
        .find(END)
        .ok_or("the chart README has no values:end marker")?;
    Ok(format!(
        "{}{BEGIN}\n\n{table}\n{}",
        &readme[..start],
        &readme[end..]
    ))
}

#[test]
fn the_readme_values_table_is_current() -> TestResult {
    let dir = repo_root().join(CHART_DIR);
    let values = std::fs::read_to_string(dir.join("values.yaml"))?;
    let readme_path = dir.join("README.md");
    let readme = std::fs::read_to_string(&readme_path)?;
    check_generated(&readme_path, &with_table(&readme, &table(&values)?)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    const VALUES: &str = "\
# File header, not a key's.

# The image.
image:
  # Repository.
  repository: r
  # Tag.
  tag: \"\"
# Replicas.
replicaCount: 2
# Resources.
resources:
  requests:
    cpu: 50m
list:
  - a: 1
";

    #[test]
    fn keys_carry_the_comment_right_above_them() {
        let keys = keys(VALUES);
        let described: Vec<(String, &str)> = keys
            .iter()
            .map(|k| (k.path.join("."), k.description.as_str()))
            .collect();
        assert_eq!(
            described,
            [
                ("image".to_string(), "The image."),
                ("image.repository".to_string(), "Repository."),
                ("image.tag".to_string(), "Tag."),
                ("replicaCount".to_string(), "Replicas."),
                ("resources".to_string(), "Resources."),
                ("resources.requests".to_string(), ""),
                ("resources.requests.cpu".to_string(), ""),
                ("list".to_string(), ""),
            ]
        );
    }

    #[test]
    fn sections_expand_and_plain_maps_are_one_row() -> TestResult {
        let keys = keys(VALUES);
        let rows: Vec<String> = rows(&keys).iter().map(|k| k.path.join(".")).collect();
        assert_eq!(
            rows,
            [
                "image.repository",
                "image.tag",
                "replicaCount",
                "resources",
                "list"
            ]
        );
        let error = table(VALUES)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(error.contains("list"), "{error}");
        let table = table(&VALUES.replace("list:", "# A list.\nlist:"))?;
        assert!(
            table.contains(
                "| `resources` | map | `{\"requests\":{\"cpu\":\"50m\"}}` | Resources. |"
            ),
            "{table}"
        );
        assert!(
            table.contains("| `replicaCount` | int | `2` | Replicas. |"),
            "{table}"
        );
        Ok(())
    }

    #[test]
    fn the_table_goes_between_the_markers() -> TestResult {
        let readme = format!("# Chart\n\n{BEGIN}\nold\n{END}\n\nmore\n");
        assert_eq!(
            with_table(&readme, "| t |\n")?,
            format!("# Chart\n\n{BEGIN}\n\n| t |\n\n{END}\n\nmore\n")
        );
        Ok(())
    }
}
