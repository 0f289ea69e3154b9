//! Reading a runtime whatever its status holds.
//!
//! The API server accepts in a status what the operator's types cannot hold:
//! a time past the year 9999 jiff can represent, an integer past `i32`, a
//! condition without a field. Read strictly, one such value made the whole
//! object unreadable: the watch failed without naming it and the operator
//! stopped acting on the runtime until someone removed the value. So the
//! status is read field by field, and what does not parse is left out and
//! said ([`Read::problems`]): the operator reconciles the runtime and
//! rewrites its status from what it observes.
//!
//! A condition whose `lastTransitionTime` does not parse keeps its place
//! with [`UNREADABLE_TIME`], the latest time there is: a time in the future
//! is repaired like any forged one (see [`crate::pure::status::basis`]), and the
//! condition's status still counts, so a restarted operator does not
//! announce again what it holds.
//!
//! The spec is validated by the API server; one that still does not parse
//! (stored before a rule existed) makes the runtime unreadable as a whole,
//! and that is said too, with its name.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, ObjectMeta};
use k8s_openapi::jiff::Timestamp;
use serde_json::{Map, Value};
use trussium_api::{TrussiumRuntime, TrussiumRuntimeStatus};

/// What a `lastTransitionTime` that does not parse is read as.
pub const UNREADABLE_TIME: Timestamp = Timestamp::MAX;

/// The most of one problem's text kept (the value quoted may be long).
const MAX_PROBLEM: usize = 200;

/// A runtime as read, and what of its status could not be.
#[derive(Clone, Debug, PartialEq)]
pub struct Read {
    pub runtime: TrussiumRuntime,
    /// One line per status field (or condition) left out; empty when the
    /// whole object parsed.
    pub problems: Vec<String>,
}

/// Reads `object` (a TrussiumRuntime as JSON); `Err` with the reason when
/// even its metadata and spec do not parse.
pub fn read(object: Value) -> Result<Read, String> {
    let Value::Object(mut object) = object else {
        return Err("not a JSON object".to_string());
    };
    let status = object.remove("status");
    let mut runtime: TrussiumRuntime =
        serde_json::from_value(Value::Object(object)).map_err(|err| bounded(&err.to_string()))?;
    let mut problems = Vec::new();
    runtime.status = status
        .filter(|s| !s.is_null())
        .map(|s| read_status(s, &mut problems));
    Ok(Read { runtime, problems })
}

/// The status in `value`, with what does not parse left out (and said in
/// `problems`).
pub fn read_status(value: Value, problems: &mut Vec<String>) -> TrussiumRuntimeStatus {
    let Value::Object(fields) = value else {
        problems.push("status: not a JSON object".to_string());
        return TrussiumRuntimeStatus::default();
    };
    // The common case: it all parses.
    if let Ok(status) = serde_json::from_value(Value::Object(fields.clone())) {
        return status;
    }
    let mut readable = Map::new();
    for (key, value) in fields {
        if key == "conditions" {
            let conditions = read_conditions(value, problems);
            readable.insert(key, Value::Array(conditions));
            continue;
        }
        let alone = Value::Object(Map::from_iter([(key.clone(), value.clone())]));
        match serde_json::from_value::<TrussiumRuntimeStatus>(alone) {
            Ok(_) => {
                readable.insert(key, value);
            }
            Err(err) => problems.push(bounded(&format!("status.{key}: {err}"))),
        }
    }
    // Each field parsed alone, so together they do too.
    serde_json::from_value(Value::Object(readable)).unwrap_or_default()
}

/// The conditions that parse, those with a time that does not at
/// [`UNREADABLE_TIME`].
fn read_conditions(value: Value, problems: &mut Vec<String>) -> Vec<Value> {
    let Value::Array(conditions) = value else {
        problems.push("status.conditions: not a list".to_string());
        return Vec::new();
    };
    let mut readable = Vec::new();
    for (i, mut condition) in conditions.into_iter().enumerate() {
        let type_ = condition
            .get("type")
            .and_then(Value::as_str)
            .map_or_else(|| format!("[{i}]"), |t| format!("[{}]", bounded(t)));
        match serde_json::from_value::<Condition>(condition.clone()) {
            Ok(_) => readable.push(condition),
            Err(err) => {
                problems.push(bounded(&format!("status.conditions{type_}: {err}")));
                // Only its time is wrong: keep the rest.
                if let Some(time) = condition.get_mut("lastTransitionTime") {
                    *time = Value::String(UNREADABLE_TIME.to_string());
                }
                if serde_json::from_value::<Condition>(condition.clone()).is_ok() {
                    readable.push(condition);
                }
            }
        }
    }
    readable
}

/// A stand-in for a runtime whose spec does not parse: its metadata and an
/// empty spec, for the cache to forget it by.
pub fn placeholder(metadata: ObjectMeta) -> Option<TrussiumRuntime> {
    let spec = serde_json::json!({
        "image": {"repository": "unreadable"},
        "provider": {"type": "openai", "model": "unreadable",
            "credentialsSecretRef": {"name": "unreadable", "key": "unreadable"}},
    });
    let mut runtime: TrussiumRuntime =
        serde_json::from_value(serde_json::json!({"metadata": {}, "spec": spec})).ok()?;
    runtime.metadata = metadata;
    Some(runtime)
}

/// `text` on one line, at most [`MAX_PROBLEM`] bytes.
fn bounded(text: &str) -> String {
    let one_line: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    crate::pure::status::conditions::truncated(&one_line, MAX_PROBLEM)
}

#[cfg(test)]
mod tests;
