//! The committed CRD must be exactly what the types generate.
//! `UPDATE_GENERATED=1 cargo test -p trussium-api --test crd` (or `make crds`) rewrites it.

use std::path::PathBuf;

use trussium_api::crd::{CRD_PATH, crd_yaml};

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
