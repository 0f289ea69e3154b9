//! Reading a Deployment's status as the controller manager wrote it.

use k8s_openapi::api::apps::v1::{Deployment, DeploymentCondition};

/// The Deployment's condition of `type_` ("Available", "Progressing"), if
/// its controller has set one.
pub fn deployment_condition<'a>(d: &'a Deployment, type_: &str) -> Option<&'a DeploymentCondition> {
    d.status
        .as_ref()?
        .conditions
        .as_ref()?
        .iter()
        .find(|c| c.type_ == type_)
}
