//! Whether an observed object already carries everything the operator wants.
//!
//! Server-side apply of an unchanged object is a no-op in etcd but still a write
//! request; comparing first keeps a steady-state reconcile free of writes.
//! Two checks together decide:
//! - the applied-hash annotation: the desired object is what was last applied
//!   (this also notices fields the operator stopped setting, which apply removes);
//! - containment: every field the operator sets still has its value (drift made
//!   by someone else is reverted). Fields the server or others add are ignored.

use serde::Serialize;
use serde_json::Value;

use crate::pure::resources::APPLIED_HASH_ANNOTATION;

/// Why `observed` needs an apply of `desired` (the path of the first
/// difference), or `None` when it already carries everything.
pub fn needs_apply<K: Serialize>(desired: &K, observed: &K) -> Option<String> {
    match (
        serde_json::to_value(desired),
        serde_json::to_value(observed),
    ) {
        (Ok(want), Ok(have)) => difference(&want, &have),
        _ => Some("(not comparable)".to_string()),
    }
}

/// Whether `observed` differs from what the operator last applied although
/// that is still what it wants: someone else changed it (drift), as opposed
/// to the operator wanting something new. Only meaningful when
/// [`needs_apply`] says an apply is needed.
pub fn drifted<K: Serialize>(desired: &K, observed: &K) -> bool {
    match (
        serde_json::to_value(desired),
        serde_json::to_value(observed),
    ) {
        (Ok(want), Ok(have)) => {
            let hash = |v: &Value| v.pointer(&applied_hash_pointer()).cloned();
            hash(&want).is_some() && hash(&want) == hash(&have)
        }
        _ => false,
    }
}

fn applied_hash_pointer() -> String {
    format!(
        "/metadata/annotations/{}",
        APPLIED_HASH_ANNOTATION.replace('/', "~1")
    )
}

/// Why `observed` needs an apply: the JSON path of the first difference
/// (a path only, never a value, so it is safe to log).
pub fn difference(desired: &Value, observed: &Value) -> Option<String> {
    let pointer = applied_hash_pointer();
    match (desired.pointer(&pointer), observed.pointer(&pointer)) {
        (Some(want), Some(have)) if want == have => first_difference(desired, observed, "", false),
        _ => Some(format!("{pointer} (what the operator applies changed)")),
    }
}

/// The first path where `observed` lacks a field of `desired` or holds
/// another value, applied hash or not (see [`first_difference`]).
pub fn differs_at(desired: &Value, observed: &Value) -> Option<String> {
    first_difference(desired, observed, "", false)
}

/// The first path where `observed` lacks a field of `desired` or holds another
/// value. Lists must match element by element. Under `resources`, quantities
/// compare by value, because the API server canonicalises them (`1000m` is
/// stored as `1`).
fn first_difference(
    desired: &Value,
    observed: &Value,
    path: &str,
    in_resources: bool,
) -> Option<String> {
    match (desired, observed) {
        (Value::Object(want), Value::Object(have)) => want.iter().find_map(|(key, w)| {
            let here = format!("{path}/{key}");
            match have.get(key) {
                Some(h) => first_difference(w, h, &here, in_resources || key == "resources"),
                // An explicit null asks for absence.
                None if w.is_null() => None,
                None => Some(here),
            }
        }),
        (Value::Array(want), Value::Array(have)) if want.len() == have.len() => {
            want.iter().zip(have).enumerate().find_map(|(i, (w, h))| {
                first_difference(w, h, &format!("{path}/{i}"), in_resources)
            })
        }
        (Value::String(w), Value::String(h)) if in_resources && w != h => {
            let same = matches!((quantity(w), quantity(h)),
                (Some(a), Some(b)) if (a - b).abs() <= f64::EPSILON * a.abs().max(1.0));
            (!same).then(|| path.to_string())
        }
        (Value::Number(w), Value::Number(h)) if w.as_f64() == h.as_f64() => None,
        (w, h) if w == h => None,
        _ => Some(path.to_string()),
    }
}

/// The value of a Kubernetes quantity such as `250m`, `1.5`, `1Gi` or `2e3`.
fn quantity(s: &str) -> Option<f64> {
    const SUFFIXES: [(&str, f64); 13] = [
        ("Ki", 1024.0),
        ("Mi", 1_048_576.0),
        ("Gi", 1_073_741_824.0),
        ("Ti", 1_099_511_627_776.0),
        ("Pi", 1_125_899_906_842_624.0),
        ("Ei", 1_152_921_504_606_846_976.0),
        ("n", 1e-9),
        ("u", 1e-6),
        ("m", 1e-3),
        ("k", 1e3),
        ("M", 1e6),
        ("G", 1e9),
        ("T", 1e12),
    ];
    let (number, factor) = SUFFIXES
        .iter()
        .find_map(|(suffix, factor)| s.strip_suffix(suffix).map(|n| (n, *factor)))
        .or_else(|| s.strip_suffix('P').map(|n| (n, 1e15)))
        .or_else(|| {
            s.strip_suffix('E')
                .filter(|n| !n.is_empty())
                .map(|n| (n, 1e18))
        })
        .unwrap_or((s, 1.0));
    number.parse::<f64>().ok().map(|n| n * factor)
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::ConfigMap;
    use serde_json::json;

    fn up_to_date(desired: &Value, observed: &Value) -> bool {
        difference(desired, observed).is_none()
    }

    fn with_hash(mut v: Value, hash: &str) -> Value {
        v["metadata"]["annotations"][APPLIED_HASH_ANNOTATION] = json!(hash);
        v
    }

    #[test]
    fn extra_fields_on_the_server_are_fine() {
        let desired = with_hash(
            json!({"metadata": {"name": "a"}, "spec": {"replicas": 2}}),
            "h1",
        );
        let observed = with_hash(
            json!({"metadata": {"name": "a", "uid": "u", "resourceVersion": "7"},
                   "spec": {"replicas": 2, "revisionHistoryLimit": 10}, "status": {}}),
            "h1",
        );
        assert!(up_to_date(&desired, &observed));
    }

    #[test]
    fn drifted_value_needs_apply() {
        let desired = with_hash(json!({"spec": {"replicas": 2}}), "h1");
        let observed = with_hash(json!({"spec": {"replicas": 5}}), "h1");
        assert!(!up_to_date(&desired, &observed));
    }

    #[test]
    fn missing_field_needs_apply() {
        let desired = with_hash(json!({"metadata": {"labels": {"a": "b"}}}), "h1");
        let observed = with_hash(json!({"metadata": {"labels": {}}}), "h1");
        assert!(!up_to_date(&desired, &observed));
    }

    #[test]
    fn changed_hash_needs_apply() {
        let desired = with_hash(json!({"spec": {"replicas": 2}}), "h2");
        let observed = with_hash(json!({"spec": {"replicas": 2}}), "h1");
        assert!(!up_to_date(&desired, &observed));
    }

    #[test]
    fn no_hash_never_counts_as_up_to_date() {
        let desired = json!({"spec": {"replicas": 2}});
        assert!(!up_to_date(&desired, &desired));
    }

    #[test]
    fn lists_compare_element_by_element() {
        let desired = with_hash(json!({"ports": [{"port": 1}, {"port": 2}]}), "h");
        let shorter = with_hash(json!({"ports": [{"port": 1}]}), "h");
        let reordered = with_hash(json!({"ports": [{"port": 2}, {"port": 1}]}), "h");
        let defaulted = with_hash(
            json!({"ports": [{"port": 1, "protocol": "TCP"}, {"port": 2, "protocol": "TCP"}]}),
            "h",
        );
        assert!(!up_to_date(&desired, &shorter));
        assert!(!up_to_date(&desired, &reordered));
        assert!(up_to_date(&desired, &defaulted));
    }

    #[test]
    fn quantities_compare_by_value_under_resources() {
        let desired = with_hash(
            json!({"resources": {"requests": {"cpu": "1000m", "memory": "1024Mi"}}}),
            "h",
        );
        let canonical = with_hash(
            json!({"resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}),
            "h",
        );
        let different = with_hash(
            json!({"resources": {"requests": {"cpu": "2", "memory": "1Gi"}}}),
            "h",
        );
        assert!(up_to_date(&desired, &canonical));
        assert!(!up_to_date(&desired, &different));
        // Outside resources, strings are strings.
        let label = with_hash(json!({"labels": {"v": "1000m"}}), "h");
        let label_canonical = with_hash(json!({"labels": {"v": "1"}}), "h");
        assert!(!up_to_date(&label, &label_canonical));
    }

    #[test]
    fn an_explicit_null_asks_for_absence() {
        let desired = with_hash(json!({"spec": {"replicas": 2, "paused": null}}), "h");
        let without = with_hash(json!({"spec": {"replicas": 2}}), "h");
        assert!(up_to_date(&desired, &without));
    }

    #[test]
    fn numbers_compare_by_value() {
        let desired = with_hash(json!({"spec": {"replicas": 2, "ratio": 1}}), "h");
        let float = with_hash(json!({"spec": {"replicas": 2, "ratio": 1.0}}), "h");
        assert!(up_to_date(&desired, &float));
    }

    /// The operator wanting something new is told apart from drift: the
    /// reason names the applied hash, not the first field that moved.
    #[test]
    fn a_new_applied_hash_is_the_reason_whatever_else_differs() {
        let desired = with_hash(json!({"spec": {"replicas": 3}}), "h2");
        let observed = with_hash(json!({"spec": {"replicas": 2}}), "h1");
        assert_eq!(
            difference(&desired, &observed).as_deref(),
            Some(
                "/metadata/annotations/runtime.trussium.io~1applied-hash (what the operator applies changed)"
            )
        );
    }

    /// `needs_apply` on the typed objects the controller holds.
    #[test]
    fn typed_objects_need_an_apply_only_where_they_differ() {
        let config_map = |data: Value| -> ConfigMap {
            serde_json::from_value(with_hash(
                json!({"metadata": {"name": "rt"}, "data": data}),
                "h",
            ))
            .unwrap_or_else(|e| panic!("fixture: {e}"))
        };
        let desired = config_map(json!({"config.yaml": "a"}));
        let mut observed = config_map(json!({"config.yaml": "a"}));
        observed.metadata.resource_version = Some("7".into());
        assert_eq!(needs_apply(&desired, &observed), None);
        assert_eq!(
            needs_apply(&desired, &config_map(json!({"config.yaml": "b"}))).as_deref(),
            Some("/data/config.yaml")
        );
    }

    #[test]
    fn difference_names_the_path() {
        let desired = with_hash(json!({"spec": {"ports": [{"port": 1}]}}), "h");
        let observed = with_hash(json!({"spec": {"ports": [{"port": 2}]}}), "h");
        assert_eq!(
            difference(&desired, &observed).as_deref(),
            Some("/spec/ports/0/port")
        );
    }

    #[test]
    fn quantity_parsing() {
        assert_eq!(quantity("250m"), Some(0.25));
        assert_eq!(quantity("1.5"), Some(1.5));
        assert_eq!(quantity("1Gi"), Some(1_073_741_824.0));
        assert_eq!(quantity("2k"), Some(2000.0));
        assert_eq!(quantity("2e3"), Some(2000.0));
        assert_eq!(quantity("3P"), Some(3e15));
        assert_eq!(quantity("2E"), Some(2e18));
        assert_eq!(quantity("E"), None);
        assert_eq!(quantity("abc"), None);
    }
}

#[cfg(test)]
mod drift_tests {
    use super::*;
    use serde_json::json;

    fn object(hash: Option<&str>, component: &str) -> Value {
        let mut v = json!({"metadata": {"name": "x", "labels": {"app.kubernetes.io/component": component}}});
        if let Some(hash) = hash {
            v["metadata"]["annotations"] = json!({ APPLIED_HASH_ANNOTATION: hash });
        }
        v
    }

    #[test]
    fn someone_elses_change_is_drift_ours_is_not() {
        let desired = object(Some("h1"), "runtime");
        // Someone changed a field we set; what we applied is what we want.
        assert!(drifted(&desired, &object(Some("h1"), "fighter")));
        // We want something new (the hash moved): an update, not drift.
        assert!(!drifted(&desired, &object(Some("h0"), "runtime")));
        // Our annotation removed: we cannot tell, so it is no drift (no
        // backing off).
        assert!(!drifted(&desired, &object(None, "runtime")));
        assert!(!drifted(&object(None, "a"), &object(None, "b")));
    }
}
