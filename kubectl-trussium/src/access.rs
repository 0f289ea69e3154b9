//! What the user may do, as the API server answers a SelfSubjectAccessReview:
//! `check` reports it, `install` and `uninstall` ask before they write.

use std::fmt;

use futures::future::try_join_all;
use k8s_openapi::api::authorization::v1::{
    ResourceAttributes, SelfSubjectAccessReview, SelfSubjectAccessReviewSpec,
};
use kube::Api;
use kube::api::PostParams;

use crate::client::Target;
use crate::error::{Request, Result};

/// One thing to be allowed: a verb on a resource, in a namespace (or
/// cluster-wide), optionally on one object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Permission {
    pub verb: String,
    pub group: String,
    /// The plural, e.g. `clusterroles`.
    pub resource: String,
    pub namespace: Option<String>,
    pub name: Option<String>,
}

impl fmt::Display for Permission {
    /// `create clusterroles.rbac.authorization.k8s.io (cluster-wide)`,
    /// `patch deployments.apps trussium-operator in namespace "ops"`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.verb, self.resource)?;
        if !self.group.is_empty() {
            write!(f, ".{}", self.group)?;
        }
        if let Some(name) = &self.name {
            write!(f, " {name}")?;
        }
        match &self.namespace {
            Some(ns) => write!(f, " in namespace {ns:?}"),
            None => write!(f, " (cluster-wide)"),
        }
    }
}

/// The permissions of `wanted` the API server denies, in order, each once.
pub async fn missing(target: &Target, wanted: &[Permission]) -> Result<Vec<Permission>> {
    let mut unique: Vec<&Permission> = Vec::new();
    for permission in wanted {
        if !unique.contains(&permission) {
            unique.push(permission);
        }
    }
    let answers = try_join_all(unique.iter().map(|p| allowed(target, p))).await?;
    Ok(unique
        .into_iter()
        .zip(answers)
        .filter(|(_, allowed)| !allowed)
        .map(|(p, _)| p.clone())
        .collect())
}

async fn allowed(target: &Target, permission: &Permission) -> Result<bool> {
    let review = SelfSubjectAccessReview {
        spec: SelfSubjectAccessReviewSpec {
            resource_attributes: Some(ResourceAttributes {
                verb: Some(permission.verb.clone()),
                group: Some(permission.group.clone()),
                resource: Some(permission.resource.clone()),
                namespace: permission.namespace.clone(),
                name: permission.name.clone(),
                ..ResourceAttributes::default()
            }),
            ..SelfSubjectAccessReviewSpec::default()
        },
        ..SelfSubjectAccessReview::default()
    };
    let answer = Api::<SelfSubjectAccessReview>::all(target.client.clone())
        .create(&PostParams::default(), &review)
        .await
        .map_err(|e| {
            target.fail(
                Request::new("create", "selfsubjectaccessreviews.authorization.k8s.io"),
                e,
            )
        })?;
    Ok(answer.status.is_some_and(|s| s.allowed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permissions_read_as_a_sentence() {
        let p = Permission {
            verb: "create".into(),
            group: "rbac.authorization.k8s.io".into(),
            resource: "clusterroles".into(),
            namespace: None,
            name: None,
        };
        assert_eq!(
            p.to_string(),
            "create clusterroles.rbac.authorization.k8s.io (cluster-wide)"
        );
        let p = Permission {
            verb: "patch".into(),
            group: String::new(),
            resource: "serviceaccounts".into(),
            namespace: Some("ops".into()),
            name: Some("trussium-operator".into()),
        };
        assert_eq!(
            p.to_string(),
            "patch serviceaccounts trussium-operator in namespace \"ops\""
        );
    }
}
