//! The install surfaces as objects, for comparing them: the Helm chart
//! rendered with given values, a kustomize directory built, and both
//! normalised so that only Helm's own bookkeeping differs.
//!
//! ```text
//! let chart = chart_objects("trussium-operator", "trussium-system", &json!({}))?;
//! let deploy = kustomize_objects(&repo_root().join("deploy"))?;
//! let differences = differences(&normalise(chart), &normalise(deploy));
//! ```
//!
//! The third-party tools come from `scripts/tool.sh` (built once per machine
//! from their pins in `tools/`); `make test` builds them first and names them
//! in `TRUSSIUM_TOOL_<NAME>`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde::Deserialize;
use serde_json::Value;

use crate::{Error, e2e_dir, kubectl_path, repo_root};

/// The chart's directory, relative to the checkout.
pub const CHART_DIR: &str = "charts/trussium-operator";

/// The labels Helm's chart adds to every object on top of what `deploy/`
/// has (`app.kubernetes.io/name`): they name the release and the chart.
pub const HELM_LABELS: [&str; 4] = [
    "app.kubernetes.io/instance",
    "app.kubernetes.io/version",
    "app.kubernetes.io/managed-by",
    "helm.sh/chart",
];

/// The annotation with which the chart keeps its CRD on `helm uninstall`.
pub const HELM_KEEP_ANNOTATION: &str = "helm.sh/resource-policy";

/// The path of pinned tool `name` (`helm`, `promtool`): `TRUSSIUM_TOOL_<NAME>`
/// when set, else built or found by `scripts/tool.sh`.
pub fn tool(name: &str) -> Result<PathBuf, Error> {
    let env = format!("TRUSSIUM_TOOL_{}", name.to_uppercase().replace('-', "_"));
    if let Some(path) = std::env::var_os(&env).filter(|p| !p.is_empty()) {
        return Ok(PathBuf::from(path));
    }
    let script = repo_root().join("scripts/tool.sh");
    let output = Command::new(&script)
        .arg(name)
        .output()
        .map_err(|e| Error::io(&script, e))?;
    if !output.status.success() {
        return Err(Error::Check(format!(
            "scripts/tool.sh {name} failed: {}",
            String::from_utf8_lossy(&output.stderr)
        )));
    }
    Ok(PathBuf::from(
        String::from_utf8_lossy(&output.stdout).trim().to_string(),
    ))
}

/// Runs `program` with `args`; its standard output, or an error carrying its
/// standard error.
pub fn run_tool(program: &Path, args: &[&str]) -> Result<String, Error> {
    let output = Command::new(program)
        .args(args)
        .output()
        .map_err(|e| Error::io(program, e))?;
    if !output.status.success() {
        return Err(Error::Check(format!(
            "{} {}: {}\n{}",
            program.display(),
            args.join(" "),
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        )));
    }
    Ok(String::from_utf8_lossy(&output.stdout).to_string())
}

/// Writes `values` (a JSON object) as a values file for `helm -f`.
pub fn values_file(values: &Value) -> Result<PathBuf, Error> {
    let dir = e2e_dir().join("values");
    std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
    let text = serde_json::to_string(values)?;
    // Named by content: concurrent tests never overwrite each other's.
    let digest = text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    let path = dir.join(format!("{digest:016x}.json"));
    std::fs::write(&path, text).map_err(|e| Error::io(&path, e))?;
    Ok(path)
}

/// `helm template <release> charts/trussium-operator -n <namespace> -f
/// <values>`: the objects the chart renders, in order.
pub fn chart_objects(release: &str, namespace: &str, values: &Value) -> Result<Vec<Value>, Error> {
    let values = values_file(values)?;
    let chart = repo_root().join(CHART_DIR);
    let text = run_tool(
        &tool("helm")?,
        &[
            "template",
            release,
            &chart.to_string_lossy(),
            "--namespace",
            namespace,
            "--values",
            &values.to_string_lossy(),
        ],
    )?;
    parse_documents(&text)
}

/// `kubectl kustomize <dir>` (the control plane's kubectl): the objects
/// `kubectl apply -k <dir>` applies.
pub fn kustomize_objects(dir: &Path) -> Result<Vec<Value>, Error> {
    let text = run_tool(&kubectl_path(), &["kustomize", &dir.to_string_lossy()])?;
    parse_documents(&text)
}

/// The objects of a multi-document YAML stream (empty documents skipped).
pub fn parse_documents(text: &str) -> Result<Vec<Value>, Error> {
    let mut objects = Vec::new();
    for document in serde_yaml::Deserializer::from_str(text) {
        let value = Value::deserialize(document)?;
        if !value.is_null() {
            objects.push(value);
        }
    }
    Ok(objects)
}

/// Objects by `apiVersion kind namespace/name`, for comparing two surfaces.
pub type Objects = BTreeMap<String, Value>;

/// The identity of an object: `apps/v1 Deployment trussium-system/trussium-operator`.
pub fn object_key(object: &Value) -> String {
    let text = |pointer: &str| {
        object
            .pointer(pointer)
            .and_then(Value::as_str)
            .unwrap_or("")
    };
    format!(
        "{} {} {}/{}",
        text("/apiVersion"),
        text("/kind"),
        text("/metadata/namespace"),
        text("/metadata/name")
    )
}

/// `objects` keyed by identity, without Helm's own labels ([`HELM_LABELS`])
/// and the CRD's keep annotation: what is left must be equal field by field
/// across the install surfaces. Maps left empty are dropped.
pub fn normalise(objects: Vec<Value>) -> Objects {
    objects
        .into_iter()
        .map(|mut object| {
            for (field, keys) in [
                ("labels", &HELM_LABELS[..]),
                ("annotations", &[HELM_KEEP_ANNOTATION][..]),
            ] {
                let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut)
                else {
                    continue;
                };
                if let Some(map) = metadata.get_mut(field).and_then(Value::as_object_mut) {
                    for key in keys {
                        map.remove(*key);
                    }
                    if map.is_empty() {
                        metadata.remove(field);
                    }
                }
            }
            (object_key(&object), object)
        })
        .collect()
}

/// Every difference between two sets of objects, one line each, naming the
/// object and the JSON pointer of the field: empty when they are equal.
pub fn differences(left: &Objects, right: &Objects) -> Vec<String> {
    let keys: std::collections::BTreeSet<&String> = left.keys().chain(right.keys()).collect();
    let mut out = Vec::new();
    for key in keys {
        match (left.get(key), right.get(key)) {
            (Some(a), Some(b)) => value_differences(&format!("{key}:"), "", a, b, &mut out),
            (Some(_), None) => out.push(format!("{key}: only on the left")),
            (None, Some(_)) => out.push(format!("{key}: only on the right")),
            (None, None) => {}
        }
    }
    out
}

fn value_differences(key: &str, path: &str, a: &Value, b: &Value, out: &mut Vec<String>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let fields: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for field in fields {
                let child = format!("{path}/{}", field.replace('~', "~0").replace('/', "~1"));
                match (x.get(field), y.get(field)) {
                    (Some(a), Some(b)) => value_differences(key, &child, a, b, out),
                    (a, b) => out.push(format!("{key} {child}: {} != {}", show(a), show(b))),
                }
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (a, b)) in x.iter().zip(y).enumerate() {
                value_differences(key, &format!("{path}/{i}"), a, b, out);
            }
        }
        _ if numbers_equal(a, b) || a == b => {}
        _ => out.push(format!(
            "{key} {path}: {} != {}",
            show(Some(a)),
            show(Some(b))
        )),
    }
}

/// YAML parsers differ on `1` vs `1.0`; the API server does not.
fn numbers_equal(a: &Value, b: &Value) -> bool {
    matches!((a.as_f64(), b.as_f64()), (Some(x), Some(y)) if x == y)
}

fn show(value: Option<&Value>) -> String {
    match value {
        None => "(absent)".into(),
        Some(v) => {
            let text = v.to_string();
            if text.len() > 200 {
                format!("{}…", &text[..text.floor_char_boundary(200)])
            } else {
                text
            }
        }
    }
}

/// Copies a directory tree (a chart, deploy/) so that a test can render a
/// changed copy of it.
pub fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), target)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn deployment(labels: Value, replicas: i64) -> Value {
        json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": { "name": "op", "namespace": "ns", "labels": labels },
            "spec": { "replicas": replicas, "template": { "spec": { "containers": [{ "args": ["--a"] }] } } },
        })
    }

    #[test]
    fn helm_labels_are_the_only_difference_dropped() {
        let chart = normalise(vec![deployment(
            json!({ "app.kubernetes.io/name": "op", "helm.sh/chart": "op-0.1.0",
                    "app.kubernetes.io/managed-by": "Helm", "app.kubernetes.io/instance": "op",
                    "app.kubernetes.io/version": "0.1.0" }),
            2,
        )]);
        let deploy = normalise(vec![deployment(
            json!({ "app.kubernetes.io/name": "op" }),
            2,
        )]);
        assert_eq!(differences(&chart, &deploy), Vec::<String>::new());

        let other = normalise(vec![deployment(
            json!({ "app.kubernetes.io/name": "x" }),
            3,
        )]);
        assert_eq!(
            differences(&chart, &other),
            vec![
                "apps/v1 Deployment ns/op: /metadata/labels/app.kubernetes.io~1name: \"op\" != \"x\""
                    .to_string(),
                "apps/v1 Deployment ns/op: /spec/replicas: 2 != 3".to_string(),
            ]
        );
    }

    #[test]
    fn missing_objects_and_list_lengths_are_named() {
        let one = normalise(vec![deployment(json!({}), 1)]);
        let none = Objects::new();
        assert_eq!(
            differences(&one, &none),
            vec!["apps/v1 Deployment ns/op: only on the left".to_string()]
        );
        let mut longer = deployment(json!({}), 1);
        longer["spec"]["template"]["spec"]["containers"][0]["args"] = json!(["--a", "--b"]);
        let longer = normalise(vec![longer]);
        assert_eq!(
            differences(&one, &longer),
            vec![
                "apps/v1 Deployment ns/op: /spec/template/spec/containers/0/args: [\"--a\"] != [\"--a\",\"--b\"]"
                    .to_string()
            ]
        );
    }

    #[test]
    fn numbers_compare_by_value() {
        let a = normalise(vec![
            json!({ "kind": "X", "metadata": { "name": "a" }, "v": 1 }),
        ]);
        let b = normalise(vec![
            json!({ "kind": "X", "metadata": { "name": "a" }, "v": 1.0 }),
        ]);
        assert!(differences(&a, &b).is_empty());
    }
}
