//! Who may do what: ServiceAccounts of a test's namespace with a Role of
//! their own, and the API server's answer to "may this client do that?".

use k8s_openapi::api::authorization::v1::{
    ResourceAttributes, SelfSubjectAccessReview, SelfSubjectAccessReviewSpec,
};
use k8s_openapi::api::core::v1::ServiceAccount;
use k8s_openapi::api::rbac::v1::{PolicyRule, Role, RoleBinding, RoleRef, Subject};
use kube::api::{ObjectMeta, PostParams};
use kube::{Api, Client};

use crate::{Error, TestNamespace};

/// `verbs` on `resource` of API `group` (`""`: the core group).
pub fn rule(verbs: &[&str], group: &str, resource: &str) -> PolicyRule {
    PolicyRule {
        api_groups: Some(vec![group.to_string()]),
        resources: Some(vec![resource.to_string()]),
        verbs: verbs.iter().map(|v| v.to_string()).collect(),
        ..PolicyRule::default()
    }
}

/// Creates ServiceAccount `name` in `ns`, with no permissions.
pub async fn create_service_account(ns: &TestNamespace, name: &str) -> Result<(), Error> {
    let account = ServiceAccount {
        metadata: named(name),
        ..ServiceAccount::default()
    };
    ns.api::<ServiceAccount>()
        .create(&PostParams::default(), &account)
        .await?;
    Ok(())
}

/// Grants `rules` in `ns` to its ServiceAccount `name`: a Role and a
/// RoleBinding, both named after it.
pub async fn grant(ns: &TestNamespace, name: &str, rules: Vec<PolicyRule>) -> Result<(), Error> {
    let role = Role {
        metadata: named(name),
        rules: Some(rules),
    };
    let binding = RoleBinding {
        metadata: named(name),
        role_ref: RoleRef {
            api_group: "rbac.authorization.k8s.io".into(),
            kind: "Role".into(),
            name: name.to_string(),
        },
        subjects: Some(vec![Subject {
            kind: "ServiceAccount".into(),
            name: name.to_string(),
            namespace: Some(ns.name.clone()),
            ..Subject::default()
        }]),
    };
    ns.api::<Role>()
        .create(&PostParams::default(), &role)
        .await?;
    ns.api::<RoleBinding>()
        .create(&PostParams::default(), &binding)
        .await?;
    Ok(())
}

/// Whether `client` may `verb` `resource` of API `group` in `namespace`
/// (`None`: in every namespace), by the API server's own answer (a
/// SelfSubjectAccessReview).
pub async fn may(
    client: &Client,
    verb: &str,
    group: &str,
    resource: &str,
    namespace: Option<&str>,
) -> Result<bool, Error> {
    let review = SelfSubjectAccessReview {
        spec: SelfSubjectAccessReviewSpec {
            resource_attributes: Some(ResourceAttributes {
                group: Some(group.into()),
                resource: Some(resource.into()),
                verb: Some(verb.into()),
                namespace: namespace.map(Into::into),
                ..ResourceAttributes::default()
            }),
            ..SelfSubjectAccessReviewSpec::default()
        },
        ..SelfSubjectAccessReview::default()
    };
    let answer = Api::<SelfSubjectAccessReview>::all(client.clone())
        .create(&PostParams::default(), &review)
        .await?;
    Ok(answer.status.is_some_and(|s| s.allowed))
}

fn named(name: &str) -> ObjectMeta {
    ObjectMeta {
        name: Some(name.to_string()),
        ..ObjectMeta::default()
    }
}
