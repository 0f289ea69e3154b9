//! Catches the runtime cache up whenever it is doubted (see
//! [`super::cache::Trust`]): one consistent read, a list of at most one
//! runtime, tells the API server's revision now.
//!
//! Only while leading: reports are made only then, and a read made as a
//! standby would not cover what the leader wrote after it. The cache is
//! doubted from the start, so the first read follows the start of
//! leadership (and losing leadership ends the process).

use std::sync::Arc;
use std::time::Duration;

use kube::Client;
use kube::api::ListParams;
use trussium_api::TrussiumRuntime;

use super::cache::Trust;
use super::error::one_line;
use super::scope::Scope;
use crate::shell::leader::Leadership;

/// How long to wait before reading again after a failed read.
const AGAIN: Duration = Duration::from_secs(1);

/// Runs for as long as the process leads (or until it stops waiting to).
pub async fn catch_up(client: Client, scope: Scope, trust: Arc<Trust>, leadership: Leadership) {
    if !leadership.wait_to_lead().await {
        return;
    }
    let runtimes = scope.api::<TrussiumRuntime>(&client);
    loop {
        let doubt = trust.catch_up().await;
        loop {
            // No resourceVersion: a consistent read, at the API server's
            // revision now.
            match runtimes
                .list_metadata(&ListParams::default().limit(1))
                .await
            {
                Ok(list) => {
                    match list.metadata.resource_version.as_deref().map(str::parse) {
                        Some(Ok(revision)) => trust.caught_up(doubt, revision),
                        // Not a number: the watch cannot be compared with it.
                        // The cache stays doubted; reports keep reading fresh.
                        _ => {
                            tracing::warn!("the runtime list carries no usable resourceVersion");
                            return;
                        }
                    }
                    break;
                }
                Err(err) => {
                    tracing::debug!(error = %one_line(&err), "catching the runtime cache up failed; again in 1 s");
                    tokio::time::sleep(AGAIN).await;
                }
            }
        }
    }
}
