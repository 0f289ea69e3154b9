//! Reading the API server's audit log (`.cluster/audit.log`, JSON lines).
//!
//! The policy (`tests/cluster/audit-policy.yaml`) records every write and
//! every request of the operator at Metadata level, and every Secret request
//! with its request and response (stage RequestReceived omitted).

use std::collections::BTreeMap;
use std::io::{Read, Seek, SeekFrom};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use k8s_openapi::api::core::v1::Secret;
use kube::Api;
use serde::Deserialize;

use crate::cluster::env_path;
use crate::{Error, admin_client, cluster_dir, wait_for};

/// Overrides the audit log path (default `<cluster dir>/audit.log`).
pub const AUDIT_LOG_ENV: &str = "TRUSSIUM_AUDIT_LOG";

/// The verbs that change something.
pub const WRITE_VERBS: [&str; 5] = ["create", "update", "patch", "delete", "deletecollection"];

/// The audit log of the local cluster.
pub struct Audit {
    path: PathBuf,
}

/// A point in the audit log (a byte offset); events after it are "since".
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct AuditMark(u64);

/// One audit event (`audit.k8s.io/v1` Event), the fields tests look at.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditEvent {
    #[serde(rename = "auditID")]
    pub audit_id: String,
    pub stage: String,
    pub level: String,
    pub verb: String,
    #[serde(rename = "requestURI")]
    pub request_uri: String,
    pub user: AuditUser,
    pub impersonated_user: Option<AuditUser>,
    pub user_agent: Option<String>,
    pub object_ref: Option<AuditObjectRef>,
    pub response_status: Option<AuditResponseStatus>,
    pub request_object: Option<serde_json::Value>,
    pub response_object: Option<serde_json::Value>,
    #[serde(default)]
    pub annotations: BTreeMap<String, String>,
    /// When the API server reached `stage` (RFC 3339, microseconds).
    #[serde(default)]
    pub stage_timestamp: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct AuditUser {
    #[serde(default)]
    pub username: String,
    #[serde(default)]
    pub groups: Vec<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditObjectRef {
    pub resource: Option<String>,
    pub subresource: Option<String>,
    pub namespace: Option<String>,
    pub name: Option<String>,
    pub api_group: Option<String>,
    pub api_version: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub struct AuditResponseStatus {
    pub code: Option<i32>,
    pub reason: Option<String>,
    pub message: Option<String>,
}

impl AuditEvent {
    /// A finished request that changes something.
    pub fn is_write(&self) -> bool {
        self.stage == "ResponseComplete" && WRITE_VERBS.contains(&self.verb.as_str())
    }

    /// `resource` or `resource/subresource`, e.g. `deployments` or `trussiumruntimes/status`.
    pub fn resource(&self) -> String {
        let Some(object) = &self.object_ref else {
            return String::new();
        };
        match (&object.resource, &object.subresource) {
            (Some(r), Some(s)) => format!("{r}/{s}"),
            (Some(r), None) => r.clone(),
            _ => String::new(),
        }
    }

    /// The HTTP status code of the response (0 when absent).
    pub fn code(&self) -> i32 {
        self.response_status
            .as_ref()
            .and_then(|s| s.code)
            .unwrap_or_default()
    }
}

impl Audit {
    /// Opens `.cluster/audit.log` (or `$TRUSSIUM_AUDIT_LOG`).
    pub fn open() -> Result<Audit, Error> {
        let path = env_path(AUDIT_LOG_ENV).unwrap_or_else(|| cluster_dir().join("audit.log"));
        std::fs::metadata(&path).map_err(|e| Error::io(&path, e))?;
        Ok(Audit { path })
    }

    /// The current end of the log.
    pub fn mark(&self) -> AuditMark {
        AuditMark(std::fs::metadata(&self.path).map(|m| m.len()).unwrap_or(0))
    }

    /// Waits until every request that completed before this call is in the log.
    ///
    /// It sends a uniquely named (and missing) Secret GET, which the policy
    /// records, and waits for that event: the API server has written the log
    /// up to a point after this call started.
    pub async fn settle(&self) -> Result<(), Error> {
        static PROBES: AtomicU64 = AtomicU64::new(0);
        let probe = format!(
            "trussium-audit-settle-{}-{}",
            std::process::id(),
            PROBES.fetch_add(1, Ordering::Relaxed)
        );
        let start = self.mark();
        let secrets: Api<Secret> = Api::namespaced(admin_client().await?, "default");
        secrets.get_opt(&probe).await?;
        wait_for(
            "the audit log to record the settle probe",
            Duration::from_secs(10),
            async || {
                let seen = self.events_since(&start)?.iter().any(|e| {
                    e.stage == "ResponseComplete"
                        && e.object_ref.as_ref().and_then(|o| o.name.as_deref()) == Some(&probe)
                });
                Ok(seen.then_some(()))
            },
        )
        .await
    }

    /// Every complete event written after `mark`.
    pub fn events_since(&self, mark: &AuditMark) -> Result<Vec<AuditEvent>, Error> {
        let mut file = std::fs::File::open(&self.path).map_err(|e| Error::io(&self.path, e))?;
        let len = file.metadata().map_err(|e| Error::io(&self.path, e))?.len();
        if len < mark.0 {
            return Err(Error::AuditRotated {
                path: self.path.clone(),
            });
        }
        // Read from one byte before the mark: a mark taken while the API
        // server was writing a line lands inside it, and that line (a request
        // that finished before the mark) belongs before the mark.
        let from = mark.0.saturating_sub(1);
        file.seek(SeekFrom::Start(from))
            .map_err(|e| Error::io(&self.path, e))?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)
            .map_err(|e| Error::io(&self.path, e))?;
        let text = String::from_utf8_lossy(&bytes);
        let skip = if mark.0 == 0 {
            0
        } else {
            text.find('\n').map_or(text.len(), |i| i + 1)
        };
        parse_lines(&text[skip..], from + skip as u64)
    }

    /// Finished write requests (create, update, patch, delete, deletecollection)
    /// made by `user` after `since`. See [`service_account_username`](crate::service_account_username).
    pub fn writes_by(&self, user: &str, since: &AuditMark) -> Result<Vec<AuditEvent>, Error> {
        Ok(self
            .events_since(since)?
            .into_iter()
            .filter(|e| e.is_write() && e.user.username == user)
            .collect())
    }
}

/// Audit events as `verb resource name -> code`, for assertion messages.
pub fn describe_requests(events: &[AuditEvent]) -> String {
    events
        .iter()
        .map(|e| {
            format!(
                "{} {} {} -> {}",
                e.verb,
                e.resource(),
                e.object_ref
                    .as_ref()
                    .and_then(|o| o.name.clone())
                    .unwrap_or_default(),
                e.code()
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// Parses complete lines; a last line without its newline is still being written.
fn parse_lines(text: &str, start_offset: u64) -> Result<Vec<AuditEvent>, Error> {
    let mut events = Vec::new();
    let mut offset = start_offset;
    let mut rest = text;
    while let Some(end) = rest.find('\n') {
        let line = &rest[..end];
        if !line.trim().is_empty() {
            let event =
                serde_json::from_str(line).map_err(|source| Error::AuditLine { offset, source })?;
            events.push(event);
        }
        offset += end as u64 + 1;
        rest = &rest[end + 1..];
    }
    Ok(events)
}

#[cfg(test)]
mod tests {
    use super::{Audit, AuditMark, parse_lines};

    const CREATE: &str = r#"{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"a","stage":"ResponseComplete","requestURI":"/api/v1/namespaces/n/configmaps","verb":"create","user":{"username":"system:serviceaccount:n:op","groups":["system:serviceaccounts"]},"objectRef":{"resource":"configmaps","namespace":"n","name":"c","apiVersion":"v1"},"responseStatus":{"metadata":{},"code":201}}"#;

    #[test]
    fn parses_complete_lines_and_leaves_a_partial_one() -> Result<(), crate::Error> {
        let text = format!("{CREATE}\n{CREATE}\n{{\"kind\":");
        let events = parse_lines(&text, 0)?;
        assert_eq!(events.len(), 2);
        assert!(events[0].is_write());
        assert_eq!(events[0].resource(), "configmaps");
        assert_eq!(events[0].code(), 201);
        assert_eq!(events[0].user.username, "system:serviceaccount:n:op");
        Ok(())
    }

    #[test]
    fn reports_the_offset_of_a_bad_line() {
        let text = format!("{CREATE}\nnot json\n");
        let err = parse_lines(&text, 100).err().map(|e| e.to_string());
        assert!(err.is_some_and(|e| e.contains(&format!("byte {}", 100 + CREATE.len() + 1))));
    }

    #[test]
    fn a_mark_inside_a_line_counts_that_line_before_it() -> Result<(), crate::Error> {
        let path = std::env::temp_dir().join(format!("trussium-audit-{}.log", std::process::id()));
        let text = format!("{CREATE}\n{}\n", CREATE.replace("\"c\"", "\"d\""));
        std::fs::write(&path, &text).map_err(|e| crate::Error::io(&path, e))?;
        let audit = Audit { path: path.clone() };
        let names = |mark: u64| -> Result<Vec<String>, crate::Error> {
            Ok(audit
                .events_since(&AuditMark(mark))?
                .iter()
                .filter_map(|e| e.object_ref.as_ref().and_then(|o| o.name.clone()))
                .collect())
        };
        let second_line = CREATE.len() as u64 + 1;
        assert_eq!(names(0)?, ["c", "d"]);
        assert_eq!(names(10)?, ["d"]);
        assert_eq!(names(second_line)?, ["d"]);
        assert_eq!(names(second_line + 5)?, Vec::<String>::new());
        assert_eq!(names(text.len() as u64)?, Vec::<String>::new());
        let _ = std::fs::remove_file(&path);
        Ok(())
    }
}
