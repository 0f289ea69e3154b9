//! Changes reverted out loud. When the operator puts back a field someone
//! else changed on an owned object, it says on the runtime who changed it
//! (the field manager that owned the field, from `managedFields`), what it
//! put back, and how to make such a change stick; at most once per object
//! and field every [`QUIET`], so a fight with another writer does not flood
//! the Events. Pure, apart from the clock the caller passes in.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::Value;

/// At most one Event per object and field this often.
pub const QUIET: Duration = Duration::from_secs(600);

/// Longest value quoted in an Event (a long argument list, say).
const MAX_VALUE: usize = 200;

/// One revert, as the Event tells it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reverted {
    /// The owned object's kind and name (in the runtime's namespace).
    pub kind: String,
    pub name: String,
    /// Where it differed (see `drift::difference`).
    pub path: String,
    /// The field manager that last owned the field, when one other than the
    /// operator did, with the subresource it wrote through (`kubectl
    /// scale` writes as `kubectl` through `scale`).
    pub changed_by: Option<String>,
    /// What the operator put back, as JSON.
    pub value: String,
}

/// A step into a JSON document.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Step {
    Key(String),
    Index(usize),
}

/// `path` (as `drift::difference` writes it: keys joined with `/`, which
/// keys such as `app.kubernetes.io/name` contain too) as steps into `root`.
fn steps(root: &Value, path: &str) -> Option<Vec<Step>> {
    let mut rest = path.strip_prefix('/')?;
    let mut node = root;
    let mut out = Vec::new();
    while !rest.is_empty() {
        match node {
            Value::Object(map) => {
                // The longest key that the rest of the path starts with.
                let key = map
                    .keys()
                    .filter(|k| rest == k.as_str() || rest.starts_with(&format!("{k}/")))
                    .max_by_key(|k| k.len())?;
                node = &map[key];
                rest = rest[key.len()..].trim_start_matches('/');
                out.push(Step::Key(key.clone()));
            }
            Value::Array(items) => {
                let (index, tail) = rest.split_once('/').unwrap_or((rest, ""));
                let index: usize = index.parse().ok()?;
                node = items.get(index)?;
                rest = tail;
                out.push(Step::Index(index));
            }
            _ => return None,
        }
    }
    Some(out)
}

/// The value of `desired` at `path`, as compact JSON, cut to a readable
/// length.
pub fn value_at(desired: &Value, path: &str) -> Option<String> {
    let mut node = desired;
    for step in steps(desired, path)? {
        node = match step {
            Step::Key(k) => node.get(&k)?,
            Step::Index(i) => node.get(i)?,
        };
    }
    let text = match node {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    Some(crate::pure::status::conditions::truncated(&text, MAX_VALUE))
}

/// Whether the `fieldsV1` tree `fields` owns the field at `steps` of
/// `value` (the object the steps walk, to identify list items by key).
fn owns(fields: &Value, value: &Value, steps: &[Step]) -> bool {
    let Some(children) = fields.as_object() else {
        return false;
    };
    let Some((step, rest)) = steps.split_first() else {
        return true;
    };
    // A leaf above the end: the manager owns the whole field (an atomic
    // list or map).
    if children.is_empty() {
        return true;
    }
    match step {
        Step::Key(key) => children
            .get(&format!("f:{key}"))
            .is_some_and(|child| owns(child, &value[key.as_str()], rest)),
        Step::Index(index) => {
            let Some(item) = value.get(index) else {
                return false;
            };
            children
                .iter()
                .any(|(name, child)| list_item_is(name, item) && owns(child, item, rest))
        }
    }
}

/// Whether a `fieldsV1` list entry (`k:{"name":"runtime"}`, `v:"x"`) names
/// `item`.
fn list_item_is(name: &str, item: &Value) -> bool {
    if let Some(key) = name.strip_prefix("k:") {
        let Ok(Value::Object(fields)) = serde_json::from_str::<Value>(key) else {
            return false;
        };
        return fields.iter().all(|(k, v)| item.get(k) == Some(v));
    }
    if let Some(set_value) = name.strip_prefix("v:") {
        return serde_json::from_str::<Value>(set_value).is_ok_and(|v| &v == item);
    }
    false
}

/// Who changed `path` of an object: among its `managedFields` (from
/// `object`, as the API server returns it), the managers other than `ours`
/// that own the field, the most recent first; `desired` identifies list
/// items (it has the same items as the object where the path runs).
pub fn changed_by(object: &Value, desired: &Value, path: &str, ours: &str) -> Option<String> {
    let steps = steps(desired, path)?;
    let entries = object.pointer("/metadata/managedFields")?.as_array()?;
    entries
        .iter()
        .filter(|e| e["manager"].as_str().is_some_and(|m| m != ours))
        .filter(|e| owns(&e["fieldsV1"], desired, &steps))
        // RFC 3339 times in UTC compare as text.
        .max_by_key(|e| e["time"].as_str().unwrap_or_default().to_string())
        .and_then(|e| {
            let manager = e["manager"].as_str()?;
            Some(match e["subresource"].as_str().filter(|s| !s.is_empty()) {
                Some(subresource) => format!("{manager} ({subresource} subresource)"),
                None => manager.to_string(),
            })
        })
}

/// How to make such a change stick, by the field changed.
pub fn advice(path: &str, runtime: &str, namespace: &str) -> String {
    let target = format!("{runtime} -n {namespace}");
    if path == "/spec/replicas" {
        format!("scale the runtime instead (kubectl trussium scale {target} --replicas N)")
    } else if path.ends_with("/image") {
        format!("upgrade the runtime instead (kubectl trussium upgrade {target} --tag TAG)")
    } else {
        format!(
            "change the runtime's spec instead (kubectl edit trussiumruntime {target}), or suspend it first (kubectl trussium suspend {target})"
        )
    }
}

/// The Event's note.
pub fn note(r: &Reverted, runtime: &str, namespace: &str) -> String {
    let who = r.changed_by.as_deref().unwrap_or("another writer");
    format!(
        "{} {}: {} was changed by {who}; the operator put back {}. To make such a change stick, {}.",
        r.kind,
        r.name,
        r.path,
        r.value,
        advice(&r.path, runtime, namespace)
    )
}

/// Which object and field an Event was last published for.
type Key = (String, String, String, String);

/// When each object and field was last announced, to publish at most once
/// every [`QUIET`].
#[derive(Debug, Default)]
pub struct Announced {
    last: Mutex<HashMap<Key, Instant>>,
}

impl Announced {
    /// Whether the revert of `path` on `kind` `namespace/name` is to be
    /// announced `now`; if so, remembered as announced. Entries older than
    /// [`QUIET`] are forgotten, so the memory is bounded by what was
    /// reverted lately.
    pub fn due(&self, kind: &str, namespace: &str, name: &str, path: &str, now: Instant) -> bool {
        let mut last = self.last.lock().unwrap_or_else(|p| p.into_inner());
        last.retain(|_, at| now.saturating_duration_since(*at) < QUIET);
        let key = (kind.into(), namespace.into(), name.into(), path.into());
        if last.contains_key(&key) {
            return false;
        }
        last.insert(key, now);
        true
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn deployment() -> Value {
        json!({
            "metadata": {"name": "x", "labels": {"app.kubernetes.io/name": "trussium"}},
            "spec": {
                "replicas": 1,
                "template": {"spec": {"containers": [
                    {"name": "runtime", "image": "ghcr.io/trussiumhq/trussium:v1.22.0",
                     "ports": [{"containerPort": 8080, "protocol": "TCP"}]},
                ]}},
            },
        })
    }

    fn managed(entries: Value) -> Value {
        let mut object = deployment();
        object["metadata"]["managedFields"] = entries;
        object
    }

    #[test]
    fn paths_resolve_through_keys_with_slashes_and_list_indexes() {
        let d = deployment();
        assert_eq!(value_at(&d, "/spec/replicas").as_deref(), Some("1"));
        assert_eq!(
            value_at(&d, "/metadata/labels/app.kubernetes.io/name").as_deref(),
            Some("trussium")
        );
        assert_eq!(
            value_at(&d, "/spec/template/spec/containers/0/image").as_deref(),
            Some("ghcr.io/trussiumhq/trussium:v1.22.0")
        );
        assert_eq!(value_at(&d, "/spec/nothing"), None);
        assert_eq!(value_at(&d, "/spec/template/spec/containers/7/image"), None);
        assert_eq!(value_at(&d, "no slash"), None);
        let long = json!({"args": "x".repeat(1000)});
        assert!(value_at(&long, "/args").is_some_and(|v| v.len() <= MAX_VALUE));
    }

    #[test]
    fn the_manager_that_owns_the_field_is_named() {
        let object = managed(json!([
            {"manager": "trussium-operator", "operation": "Apply", "time": "2026-12-04T10:00:00Z",
             "fieldsV1": {"f:spec": {"f:replicas": {}, "f:template": {}}}},
            {"manager": "kubectl-scale", "operation": "Update", "subresource": "scale",
             "time": "2026-12-04T10:05:00Z", "fieldsV1": {"f:spec": {"f:replicas": {}}}},
            {"manager": "kube-controller-manager", "operation": "Update", "subresource": "status",
             "time": "2026-12-04T10:06:00Z", "fieldsV1": {"f:status": {"f:replicas": {}}}},
        ]));
        let d = deployment();
        assert_eq!(
            changed_by(&object, &d, "/spec/replicas", "trussium-operator").as_deref(),
            Some("kubectl-scale (scale subresource)")
        );
        // Only the operator owns the template: nobody else to name.
        assert_eq!(
            changed_by(
                &object,
                &d,
                "/spec/template/spec/containers/0/image",
                "trussium-operator"
            ),
            None
        );
    }

    #[test]
    fn list_items_are_found_by_their_keys() {
        let object = managed(json!([
            {"manager": "kubectl-set", "operation": "Update", "time": "2026-12-04T10:05:00Z",
             "fieldsV1": {"f:spec": {"f:template": {"f:spec": {"f:containers": {
                 "k:{\"name\":\"runtime\"}": {".": {}, "f:image": {}}}}}}}},
            {"manager": "kubectl-edit", "operation": "Update", "time": "2026-12-04T10:07:00Z",
             "fieldsV1": {"f:spec": {"f:template": {"f:spec": {"f:containers": {
                 "k:{\"name\":\"sidecar\"}": {"f:image": {}}}}}}}},
            {"manager": "kubectl-patch", "operation": "Update", "time": "2026-12-04T10:08:00Z",
             "fieldsV1": {"f:spec": {"f:template": {"f:spec": {"f:containers": {
                 "k:{\"name\":\"runtime\"}": {"f:ports": {
                     "k:{\"containerPort\":8080,\"protocol\":\"TCP\"}": {"f:containerPort": {}}}}}}}}}},
        ]));
        let d = deployment();
        let ours = "trussium-operator";
        assert_eq!(
            changed_by(&object, &d, "/spec/template/spec/containers/0/image", ours).as_deref(),
            Some("kubectl-set"),
            "the sidecar's editor does not own the runtime's image"
        );
        assert_eq!(
            changed_by(
                &object,
                &d,
                "/spec/template/spec/containers/0/ports/0/containerPort",
                ours
            )
            .as_deref(),
            Some("kubectl-patch")
        );
    }

    #[test]
    fn an_atomic_field_is_owned_whole_and_the_latest_owner_wins() {
        let object = managed(json!([
            {"manager": "first", "time": "2026-12-04T10:00:00Z", "fieldsV1": {"f:spec": {"f:template": {}}}},
            {"manager": "second", "time": "2026-12-04T11:00:00Z", "fieldsV1": {"f:spec": {"f:template": {}}}},
        ]));
        let d = deployment();
        assert_eq!(
            changed_by(
                &object,
                &d,
                "/spec/template/spec/containers/0/image",
                "ours"
            )
            .as_deref(),
            Some("second")
        );
        assert_eq!(
            changed_by(&deployment(), &d, "/spec/replicas", "ours"),
            None,
            "no managedFields"
        );
        assert!(list_item_is("v:\"a\"", &json!("a")));
        assert!(!list_item_is("k:not json", &json!({})));
        assert!(!list_item_is("i:0", &json!({})));
    }

    #[test]
    fn the_note_says_who_what_and_how_to_make_it_stick() {
        let r = Reverted {
            kind: "Deployment".into(),
            name: "x".into(),
            path: "/spec/replicas".into(),
            changed_by: Some("kubectl-scale".into()),
            value: "1".into(),
        };
        assert_eq!(
            note(&r, "x", "team-a"),
            "Deployment x: /spec/replicas was changed by kubectl-scale; the operator put back 1. \
             To make such a change stick, scale the runtime instead (kubectl trussium scale x -n team-a --replicas N)."
        );
        let image = Reverted {
            path: "/spec/template/spec/containers/0/image".into(),
            changed_by: None,
            ..r.clone()
        };
        let text = note(&image, "x", "team-a");
        assert!(text.contains("changed by another writer"), "{text}");
        assert!(
            text.contains("kubectl trussium upgrade x -n team-a --tag TAG"),
            "{text}"
        );
        let other = advice("/data/TRUSSIUM_PROVIDER_MODEL", "x", "team-a");
        assert!(
            other.contains("kubectl edit trussiumruntime x -n team-a"),
            "{other}"
        );
        assert!(
            other.contains("kubectl trussium suspend x -n team-a"),
            "{other}"
        );
    }

    #[test]
    fn one_announcement_per_object_and_field_every_ten_minutes() {
        let announced = Announced::default();
        let t0 = Instant::now();
        assert!(announced.due("Deployment", "ns", "x", "/spec/replicas", t0));
        assert!(!announced.due(
            "Deployment",
            "ns",
            "x",
            "/spec/replicas",
            t0 + Duration::from_secs(60)
        ));
        // Another field, object or namespace is another announcement.
        assert!(announced.due("Deployment", "ns", "x", "/spec/template", t0));
        assert!(announced.due("ConfigMap", "ns", "x", "/spec/replicas", t0));
        assert!(announced.due("Deployment", "other", "x", "/spec/replicas", t0));
        assert!(announced.due("Deployment", "ns", "x", "/spec/replicas", t0 + QUIET));
        // Old entries are forgotten.
        let later = t0 + QUIET * 3;
        assert!(announced.due("Deployment", "ns", "y", "/a", later));
        assert_eq!(announced.last.lock().map(|l| l.len()).unwrap_or(0), 1);
    }
}
