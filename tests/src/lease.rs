//! The leader-election Lease in the operator's namespace.

use std::time::Duration;

use k8s_openapi::api::coordination::v1::{Lease, LeaseSpec};
use kube::{Api, Client};

use crate::{Error, OPERATOR_NAMESPACE, TestResult, wait_for};

/// The spec of Lease `name` in the operator's namespace, if it exists.
pub async fn lease_spec(admin: &Client, name: &str) -> Result<Option<LeaseSpec>, Error> {
    let lease = Api::<Lease>::namespaced(admin.clone(), OPERATOR_NAMESPACE)
        .get_opt(name)
        .await?;
    Ok(lease.and_then(|l| l.spec))
}

/// The holder of Lease `name` in the operator's namespace.
pub async fn lease_holder(admin: &Client, name: &str) -> Result<Option<String>, Error> {
    Ok(lease_spec(admin, name)
        .await?
        .and_then(|s| s.holder_identity)
        .filter(|h| !h.is_empty()))
}

/// Waits until `holder` holds Lease `name`.
pub async fn wait_for_holder(
    admin: &Client,
    name: &str,
    holder: &str,
    timeout: Duration,
) -> TestResult {
    wait_for(
        &format!("{holder} to hold Lease {name}"),
        timeout,
        async || {
            let current = lease_holder(admin, name).await?;
            Ok((current.as_deref() == Some(holder)).then_some(()))
        },
    )
    .await?;
    Ok(())
}
