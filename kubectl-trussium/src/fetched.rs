//! A TrussiumRuntime read as far as it can be. The API server accepts
//! values our types cannot hold (a `date-time` after 9999-12-30T22:00:00Z
//! is past what a `Timestamp` holds; another CRD version may allow more),
//! and anyone with status-write rights can store them: one such runtime
//! must not fail a list, a watch or `status` for every other. [`Fetched`] is what the
//! plugin's GETs, LISTs and watches deserialize: the runtime, or as much of
//! it as reads and why the rest does not.

use std::borrow::Cow;

use k8s_openapi::NamespaceResourceScope;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use k8s_openapi::jiff::Timestamp;
use kube::Resource;
use serde::{Deserialize, Deserializer};
use serde_json::Value;
use trussium_api::TrussiumRuntime;

/// One runtime as the API server sent it.
#[derive(Clone, Debug)]
pub struct Fetched {
    metadata: ObjectMeta,
    /// The runtime; without its status when only the status could not be
    /// read, `None` when not even the spec could.
    pub runtime: Option<TrussiumRuntime>,
    /// Why it could not be read whole.
    pub problem: Option<String>,
    /// What the API server sent, kept for `-o json|yaml` when the runtime
    /// could not be read whole.
    raw: Option<Value>,
}

impl Fetched {
    /// Reads what can be read, times out of range clamped to the nearest
    /// time that can be held (they are far in the future or the past).
    pub fn from_value(value: Value) -> Fetched {
        let raw = value.clone();
        let mut fetched = Fetched::read(value);
        if fetched.problem.is_some() {
            fetched.raw = Some(raw);
        }
        fetched
    }

    fn read(mut value: Value) -> Fetched {
        let first = match TrussiumRuntime::deserialize(&value) {
            Ok(rt) => return Fetched::whole(rt),
            Err(e) => e.to_string(),
        };
        if clamp_times(&mut value)
            && let Ok(rt) = TrussiumRuntime::deserialize(&value)
        {
            return Fetched::whole(rt);
        }
        if let Some(object) = value.as_object_mut() {
            object.remove("status");
        }
        let runtime = TrussiumRuntime::deserialize(&value).ok();
        let metadata = match &runtime {
            Some(rt) => rt.metadata.clone(),
            None => metadata_of(&value["metadata"]),
        };
        Fetched {
            metadata,
            runtime,
            problem: Some(first),
            raw: None,
        }
    }

    fn whole(rt: TrussiumRuntime) -> Fetched {
        Fetched {
            metadata: rt.metadata.clone(),
            runtime: Some(rt),
            problem: None,
            raw: None,
        }
    }

    /// A runtime read whole.
    pub fn from_runtime(rt: TrussiumRuntime) -> Fetched {
        Fetched::whole(rt)
    }

    /// The object for `-o json|yaml`: the runtime as read, or what the API
    /// server sent when it could not be read whole.
    pub fn to_value(&self) -> serde_json::Result<Value> {
        match (&self.raw, self.whole_runtime()) {
            (_, Some(rt)) => serde_json::to_value(rt),
            (Some(raw), None) => Ok(raw.clone()),
            (None, None) => Ok(Value::Null),
        }
    }

    /// The runtime, only if it was read whole.
    pub fn whole_runtime(&self) -> Option<&TrussiumRuntime> {
        self.runtime.as_ref().filter(|_| self.problem.is_none())
    }
}

impl<'de> Deserialize<'de> for Fetched {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Value::deserialize(deserializer).map(Fetched::from_value)
    }
}

impl Resource for Fetched {
    type DynamicType = ();
    type Scope = NamespaceResourceScope;

    fn kind(dt: &()) -> Cow<'_, str> {
        TrussiumRuntime::kind(dt)
    }
    fn group(dt: &()) -> Cow<'_, str> {
        TrussiumRuntime::group(dt)
    }
    fn version(dt: &()) -> Cow<'_, str> {
        TrussiumRuntime::version(dt)
    }
    fn plural(dt: &()) -> Cow<'_, str> {
        TrussiumRuntime::plural(dt)
    }
    fn meta(&self) -> &ObjectMeta {
        &self.metadata
    }
    fn meta_mut(&mut self) -> &mut ObjectMeta {
        &mut self.metadata
    }
}

/// The metadata, or at least its names, when even it does not read.
fn metadata_of(value: &Value) -> ObjectMeta {
    ObjectMeta::deserialize(value).unwrap_or_else(|_| {
        let text = |key: &str| value[key].as_str().map(str::to_string);
        ObjectMeta {
            name: text("name"),
            namespace: text("namespace"),
            uid: text("uid"),
            resource_version: text("resourceVersion"),
            ..ObjectMeta::default()
        }
    })
}

/// Replaces every time (a `…Time` or `…Timestamp` field) that does not fit
/// a `Timestamp` with the latest or earliest one that does. Whether any was.
fn clamp_times(value: &mut Value) -> bool {
    let mut changed = false;
    match value {
        Value::Object(map) => {
            for (key, v) in map.iter_mut() {
                let is_time = key.ends_with("Time") || key.ends_with("Timestamp") || key == "time";
                match v {
                    Value::String(s) if is_time && s.parse::<Timestamp>().is_err() => {
                        let clamped = if s.starts_with(['5', '6', '7', '8', '9']) {
                            Timestamp::MAX
                        } else {
                            Timestamp::MIN
                        };
                        *s = clamped.to_string();
                        changed = true;
                    }
                    other => changed |= clamp_times(other),
                }
            }
        }
        Value::Array(items) => {
            for item in items {
                changed |= clamp_times(item);
            }
        }
        _ => {}
    }
    changed
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::fixtures::{UPGRADING, runtime};

    fn upgrading() -> Value {
        serde_json::to_value(runtime(UPGRADING)).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn a_whole_runtime_reads_whole() {
        let f = Fetched::from_value(upgrading());
        assert!(f.problem.is_none());
        assert_eq!(f.whole_runtime().map(|r| r.spec.replicas), Some(3));
    }

    #[test]
    fn a_time_in_year_9999_is_clamped() {
        let mut v = upgrading();
        v["status"]["conditions"][0]["lastTransitionTime"] = json!("9999-12-31T23:59:59Z");
        assert!(
            TrussiumRuntime::deserialize(&v).is_err(),
            "the case no longer fails"
        );
        let f = Fetched::from_value(v);
        assert!(f.problem.is_none(), "{:?}", f.problem);
        let rt = f.whole_runtime().unwrap_or_else(|| panic!("not read"));
        let conditions = &rt.status.as_ref().map(|s| s.conditions.clone());
        let times: Vec<Timestamp> = conditions
            .iter()
            .flatten()
            .map(|c| c.last_transition_time.0)
            .collect();
        assert_eq!(times[0], Timestamp::MAX);
    }

    #[test]
    fn an_unreadable_status_keeps_the_spec() {
        let mut v = upgrading();
        v["status"]["readyReplicas"] = json!(i64::MAX);
        let f = Fetched::from_value(v);
        let problem = f.problem.clone().unwrap_or_default();
        assert!(problem.contains("9223372036854775807"), "{problem}");
        let rt = f.runtime.as_ref().unwrap_or_else(|| panic!("spec lost"));
        assert!(rt.status.is_none());
        assert!(f.whole_runtime().is_none());
        assert_eq!(f.meta().name.as_deref(), Some("private-ai"));
    }

    #[test]
    fn an_unreadable_object_keeps_its_name() {
        let v =
            json!({"metadata": {"name": "odd", "namespace": "ai", "generation": "x"}, "spec": 1});
        let f = Fetched::from_value(v);
        assert!(f.runtime.is_none() && f.problem.is_some());
        assert_eq!(f.meta().name.as_deref(), Some("odd"));
        assert_eq!(f.meta().namespace.as_deref(), Some("ai"));
    }
}
