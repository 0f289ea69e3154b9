//! The committed CRD must be exactly what the types generate.
//! `UPDATE_GENERATED=1 cargo test -p trussium-api --test crd` (or `make crds`) rewrites it.

use std::path::PathBuf;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceDefinition, CustomResourceDefinitionVersion,
};
use trussium_api::crd::{CRD_PATH, STORAGE_VERSION, crd_yaml};

#[test]
fn committed_crd_matches_the_types() -> Result<(), Box<dyn std::error::Error>> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(CRD_PATH);
    let generated = crd_yaml()?;
    if std::env::var_os("UPDATE_GENERATED").is_some() {
        std::fs::write(&path, &generated)?;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "{CRD_PATH} is stale: run `make crds` and commit the result"
    );
    Ok(())
}

/// Every served version has the storage version's schema, printer columns
/// and subresources, field for field: with conversion `None` the API server
/// only rewrites `apiVersion`, so a field in one version alone would be
/// pruned from objects read or written through the other. Checked on the
/// YAML (what users apply; the test above holds the committed file to it).
#[test]
fn every_version_has_the_same_schema() -> Result<(), Box<dyn std::error::Error>> {
    let committed: CustomResourceDefinition = serde_yaml::from_str(&crd_yaml()?)?;
    assert!(
        committed
            .spec
            .conversion
            .as_ref()
            .is_none_or(|c| c.strategy == "None"),
        "a conversion other than None needs a webhook"
    );
    let versions = &committed.spec.versions;
    let storage = versions
        .iter()
        .find(|v| v.name == STORAGE_VERSION)
        .ok_or("the storage version is not in the CRD")?;
    assert!(versions.len() >= 2, "only {} version(s)", versions.len());
    for version in versions {
        let shape = |v: &CustomResourceDefinitionVersion| {
            serde_json::json!({
                "schema": v.schema,
                "additionalPrinterColumns": v.additional_printer_columns,
                "subresources": v.subresources,
                "selectableFields": v.selectable_fields,
            })
        };
        assert!(
            shape(version) == shape(storage),
            "{} differs from {STORAGE_VERSION}",
            version.name
        );
    }
    Ok(())
}
