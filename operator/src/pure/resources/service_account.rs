//! The ServiceAccount the runtime pods run as.

use k8s_openapi::api::core::v1::ServiceAccount;
use trussium_api::TrussiumRuntime;

use super::{BuildContext, BuildError, hash, object_meta};

/// The runtime's own ServiceAccount. The runtime never talks to the
/// Kubernetes API, so no token is mounted.
pub fn service_account(
    rt: &TrussiumRuntime,
    _ctx: &BuildContext,
) -> Result<ServiceAccount, BuildError> {
    hash::stamped(ServiceAccount {
        metadata: object_meta(rt)?,
        automount_service_account_token: Some(false),
        ..ServiceAccount::default()
    })
}

#[cfg(test)]
mod tests {
    use super::super::tests::{Result, context, fixture, json_of};
    use super::*;

    #[test]
    fn does_not_mount_a_token() -> Result {
        let sa = json_of(&service_account(&fixture("minimal")?, &context().ctx())?)?;
        assert_eq!(sa["apiVersion"], "v1");
        assert_eq!(sa["kind"], "ServiceAccount");
        assert_eq!(sa["automountServiceAccountToken"], false);
        assert!(sa.get("secrets").is_none());
        assert!(sa.get("imagePullSecrets").is_none());
        Ok(())
    }
}
