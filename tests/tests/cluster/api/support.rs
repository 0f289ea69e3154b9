//! Shared by the `api` cluster tests: the TrussiumRuntime resource as a
//! dynamic object, and the manifest corpus in `tests/fixtures/`.

use std::path::{Path, PathBuf};

use kube::api::{ApiResource, DynamicObject};
use kube::{Api, Client, ResourceExt};
use trussium_api::TrussiumRuntime;
use trussium_api::crd::api_resource;
use trussium_e2e::{BoxError, repo_root};

pub const CRD_NAME: &str = "trussiumruntimes.runtime.trussium.io";

/// The TrussiumRuntime resource, for `Api<DynamicObject>`.
pub fn runtime_resource() -> ApiResource {
    ApiResource::erase::<TrussiumRuntime>(&())
}

pub fn dynamic_api(client: &Client, namespace: &str) -> Api<DynamicObject> {
    Api::namespaced_with(client.clone(), namespace, &runtime_resource())
}

/// The runtimes through the deprecated `v1alpha1`.
pub fn deprecated_api(client: &Client, namespace: &str) -> Api<DynamicObject> {
    Api::namespaced_with(client.clone(), namespace, &api_resource("v1alpha1"))
}

/// `object` as a manifest of the deprecated `v1alpha1`.
pub fn as_deprecated(mut object: DynamicObject) -> DynamicObject {
    if let Some(types) = object.types.as_mut() {
        types.api_version = api_resource("v1alpha1").api_version;
    }
    object
}

/// Whitespace collapsed to single spaces (kubectl wraps long descriptions).
pub fn squeeze(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// One manifest of the corpus in `tests/fixtures/{invalid,valid}/`.
///
/// The header comment documents it:
/// ```yaml
/// # Refused: image.tag and image.digest are both set.
/// # expect: exactly one of image.tag or image.digest must be set
/// # api: pruned
/// ```
/// Every `expect:` line is a substring the API server's message must contain.
/// `api: pruned` marks an unknown field: `kubectl apply` (strict field
/// validation) refuses it, a client that does not ask for strict validation
/// gets it dropped with a warning.
#[derive(Debug, Clone)]
pub struct Fixture {
    pub case: String,
    pub path: PathBuf,
    pub expects: Vec<String>,
    pub pruned_by_default: bool,
    pub text: String,
}

impl Fixture {
    /// The manifest as a dynamic object.
    pub fn object(&self) -> Result<DynamicObject, BoxError> {
        Ok(
            serde_yaml::from_str(&self.text)
                .map_err(|e| format!("{}: {e}", self.path.display()))?,
        )
    }

    /// The manifest as JSON.
    pub fn value(&self) -> Result<serde_json::Value, BoxError> {
        Ok(
            serde_yaml::from_str(&self.text)
                .map_err(|e| format!("{}: {e}", self.path.display()))?,
        )
    }

    /// The object name (the file stem).
    pub fn name(&self) -> Result<String, BoxError> {
        Ok(self.object()?.name_any())
    }
}

pub fn fixtures_dir() -> PathBuf {
    repo_root().join("tests/fixtures")
}

/// The fixtures of one directory (`invalid` or `valid`), sorted by name.
pub fn load_fixtures(kind: &str) -> Result<Vec<Fixture>, BoxError> {
    yaml_files(&fixtures_dir().join(kind))?
        .iter()
        .map(|p| read_fixture(p))
        .collect()
}

/// The `.yaml` files of `dir`, sorted by name.
fn yaml_files(dir: &Path) -> Result<Vec<PathBuf>, BoxError> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    paths.sort();
    Ok(paths)
}

fn read_fixture(path: &Path) -> Result<Fixture, BoxError> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let case = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or_default()
        .to_string();
    let mut expects = Vec::new();
    let mut pruned_by_default = false;
    for line in text.lines().take_while(|l| l.starts_with('#')) {
        let line = line.trim_start_matches('#').trim();
        if let Some(expect) = line.strip_prefix("expect:") {
            expects.push(expect.trim().to_string());
        } else if let Some(mode) = line.strip_prefix("api:") {
            pruned_by_default = mode.trim() == "pruned";
        }
    }
    Ok(Fixture {
        case,
        path: path.to_path_buf(),
        expects,
        pruned_by_default,
        text,
    })
}

/// The sample manifests in `deploy/samples/`, sorted by name.
pub fn samples() -> Result<Vec<(String, PathBuf)>, BoxError> {
    Ok(yaml_files(&repo_root().join("deploy/samples"))?
        .into_iter()
        .map(|p| {
            let stem = p
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or_default()
                .to_string();
            (stem, p)
        })
        .collect())
}

/// The API server's message for a refused request.
pub fn refusal_message(error: &kube::Error) -> Option<String> {
    match error {
        kube::Error::Api(status) => Some(status.message.clone()),
        _ => None,
    }
}
