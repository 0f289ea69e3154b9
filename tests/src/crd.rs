//! Installing the TrussiumRuntime CRD as users do: `crds/` as committed.

use std::time::Duration;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{ListParams, Patch, PatchParams};
use kube::{Api, Client, ResourceExt};
use trussium_api::TrussiumRuntime;

use crate::{Error, repo_root, wait_for};

/// Field manager of everything the test support installs.
pub(crate) const INSTALLER: &str = "trussium-e2e";

/// Applies `crds/` (server-side, idempotent; a test keeps it equal to what
/// the types generate), waits until it is Established and the API server
/// serves the resource, and returns the CRD as stored.
pub async fn install_crd(client: &Client) -> Result<CustomResourceDefinition, Error> {
    let path = repo_root().join(trussium_api::crd::CRD_PATH);
    let text = std::fs::read_to_string(&path).map_err(|e| Error::io(&path, e))?;
    let crd: CustomResourceDefinition = serde_yaml::from_str(&text)?;
    let name = crd.name_any();
    let crds: Api<CustomResourceDefinition> = Api::all(client.clone());
    crds.patch(
        &name,
        &PatchParams::apply(INSTALLER).force(),
        &Patch::Apply(&crd),
    )
    .await?;
    let stored = wait_for(
        "the TrussiumRuntime CRD to be established",
        Duration::from_secs(30),
        async || {
            let crd = crds.get(&name).await?;
            let established = trussium_api::crd::is_established(&crd);
            Ok(established.then_some(crd))
        },
    )
    .await?;
    // Established comes a moment before every API server path serves it.
    // (Metadata only: another test's runtime may hold a status our types
    // cannot read, on purpose.)
    let runtimes: Api<TrussiumRuntime> = Api::all(client.clone());
    let one = ListParams::default().limit(1);
    wait_for(
        "trussiumruntimes to be served",
        Duration::from_secs(30),
        async || Ok(runtimes.list_metadata(&one).await.ok().map(|_| ())),
    )
    .await?;
    Ok(stored)
}
