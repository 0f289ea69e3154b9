//! A runtime's pods, as the plugin finds them: by the labels the operator
//! puts on them (the plugin reads pods with the user's rights; the operator
//! never does).

use k8s_openapi::api::core::v1::Pod;
use kube::Api;
use kube::api::ListParams;
use trussium_api::TrussiumRuntime;
use trussium_api::labels as keys;

use crate::client::Target;
use crate::commands::status::RuntimePods;
use crate::diagnosis::pods::{self, PodView};
use crate::error::{PODS, Request, Result};

/// The label selector of one runtime's pods (and ReplicaSets).
pub fn selector(name: &str) -> String {
    format!(
        "{}={},{}={name}",
        keys::NAME,
        keys::NAME_VALUE,
        keys::INSTANCE
    )
}

/// The request that lists them, as errors name it.
pub fn list_request(target: &Target) -> Request {
    Request::new("list", PODS).namespace(Some(&target.namespace))
}

/// The runtime's pods in the target namespace, in pages.
pub async fn list(target: &Target, name: &str) -> Result<Vec<Pod>> {
    let api: Api<Pod> = Api::namespaced(target.client.clone(), &target.namespace);
    let params = ListParams::default().labels(&selector(name));
    target.list_all(&api, params, list_request(target)).await
}

/// The pods section of `status`: each pod against the image the runtime
/// asks for, or why they could not be read.
pub fn section(rt: &TrussiumRuntime, read: Result<Vec<Pod>>) -> RuntimePods {
    match read {
        Ok(list) => RuntimePods::Shown(views(rt, list.iter())),
        Err(e) => RuntimePods::Unavailable(e.to_string()),
    }
}

/// The pods as `status` shows them, new revision first.
pub fn views<'a>(rt: &TrussiumRuntime, list: impl Iterator<Item = &'a Pod>) -> Vec<PodView> {
    let desired = rt.spec.image.reference();
    let mut views: Vec<PodView> = list.map(|p| pods::view_by_image(p, &desired)).collect();
    pods::sort(&mut views);
    views
}
