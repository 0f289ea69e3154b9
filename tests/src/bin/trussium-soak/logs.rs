//! The replicas' logs (JSON lines): no warning and no error but those an
//! injected fault explains, and no Secret value.
//!
//! A warning is explained when it comes within [`AFTER_A_FAULT`] of a fault
//! the soak injected (a cut connection fails the requests in flight; a
//! watch reopens). Warnings about other namespaces than the soak's (a
//! cluster may hold other runtimes; the replicas watch the whole cluster)
//! are not the soak's business.

use std::time::Duration;

use k8s_openapi::jiff::Timestamp;
use serde_json::Value;

use crate::act::NAMESPACE_PREFIX;

/// How long after a fault its warnings may come: a watch that failed backs
/// off up to half a minute, and a retry comes 10 s after a failed
/// reconcile.
pub const AFTER_A_FAULT: Duration = Duration::from_secs(90);

/// A warning or error line nothing explains.
pub fn unexplained(log: &str, faults: &[Timestamp]) -> Vec<String> {
    log.lines()
        .filter(|line| !line.trim().is_empty())
        .filter_map(|line| {
            let Ok(entry) = serde_json::from_str::<Value>(line) else {
                // Printed outside the log: a fatal error.
                return Some(line.to_string());
            };
            if !matches!(entry["level"].as_str(), Some("WARN" | "ERROR")) || about_another(&entry) {
                return None;
            }
            let at: Option<Timestamp> = entry["timestamp"].as_str().and_then(|t| t.parse().ok());
            let explained = at.is_some_and(|at| {
                faults.iter().any(|fault| {
                    let since = at.duration_since(*fault);
                    since.is_positive() && since.unsigned_abs() <= AFTER_A_FAULT
                })
            });
            (!explained).then(|| line.to_string())
        })
        .collect()
}

/// Whether the line names a namespace or runtime, none of them the soak's.
fn about_another(entry: &Value) -> bool {
    let subjects: Vec<&str> = ["namespace", "runtime", "name"]
        .iter()
        .filter_map(|field| entry["fields"][field].as_str())
        .collect();
    !subjects.is_empty() && !subjects.iter().any(|s| s.contains(NAMESPACE_PREFIX))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(at: &str, level: &str, fields: &str) -> String {
        format!(
            r#"{{"timestamp":"{at}","level":"{level}","fields":{{"message":"m"{fields}}},"target":"t"}}"#
        )
    }

    #[test]
    fn warnings_after_a_fault_are_explained_the_others_not() -> Result<(), String> {
        let fault: Timestamp = "2026-12-01T10:00:00Z".parse().map_err(|e| format!("{e}"))?;
        let log = [
            line("2026-12-01T10:00:30Z", "WARN", r#","runtime":"soak-3""#),
            line("2026-12-01T10:05:00Z", "WARN", r#","runtime":"soak-4""#),
            line("2026-12-01T09:59:00Z", "ERROR", ""),
            line("2026-12-01T10:05:00Z", "INFO", r#","runtime":"soak-5""#),
            line("2026-12-01T10:05:00Z", "WARN", r#","namespace":"team-a""#),
            "thread 'main' panicked".to_string(),
        ]
        .join("\n");
        let left = unexplained(&log, &[fault]);
        assert_eq!(left.len(), 3, "{left:#?}");
        assert!(left[0].contains("soak-4"));
        assert!(left[1].contains("09:59:00"));
        assert!(left[2].contains("panicked"));
        Ok(())
    }
}
