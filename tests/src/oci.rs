//! An OCI image layout (image-spec 1.1) as `make image` writes it and
//! `make release` ships it (in a tar): the index, each platform's image, and
//! the artifacts that refer to an image (its SBOM). Every blob read is
//! checked against its digest.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};

use crate::Error;

/// The annotation that tags a manifest in a layout's `index.json`.
pub const REF_NAME: &str = "org.opencontainers.image.ref.name";
/// cosign's annotations on a Sigstore bundle stored as a referrer.
pub const SIGSTORE_BUNDLE: &str = "dev.sigstore.bundle.content";
pub const SIGSTORE_PREDICATE_TYPE: &str = "dev.sigstore.bundle.predicateType";
pub const IMAGE_INDEX: &str = "application/vnd.oci.image.index.v1+json";
pub const IMAGE_MANIFEST: &str = "application/vnd.oci.image.manifest.v1+json";

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Descriptor {
    pub media_type: String,
    pub digest: String,
    pub size: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub platform: Option<Platform>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifact_type: Option<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub annotations: BTreeMap<String, String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Platform {
    pub architecture: String,
    pub os: String,
}

/// `index.json`, or an image index blob.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Index {
    pub schema_version: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media_type: Option<String>,
    pub manifests: Vec<Descriptor>,
}

/// An image manifest, or an artifact's (with `artifactType` and `subject`).
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Manifest {
    pub media_type: String,
    pub artifact_type: Option<String>,
    pub config: Descriptor,
    pub layers: Vec<Descriptor>,
    pub subject: Option<Descriptor>,
    #[serde(default)]
    pub annotations: BTreeMap<String, String>,
}

/// The parts of an image's config the tests look at.
#[derive(Clone, Debug, Deserialize)]
pub struct ImageConfig {
    pub architecture: String,
    pub os: String,
    pub config: ContainerConfig,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct ContainerConfig {
    pub user: Option<String>,
    pub entrypoint: Option<Vec<String>>,
}

/// An OCI layout directory.
pub struct Layout {
    pub dir: PathBuf,
}

impl Layout {
    /// Unpacks an OCI archive (a tar of a layout) into `into`.
    pub fn unpack(archive: &Path, into: &Path) -> Result<Layout, Error> {
        std::fs::create_dir_all(into).map_err(|e| Error::io(into, e))?;
        let out = std::process::Command::new("tar")
            .arg("-xf")
            .arg(archive)
            .arg("-C")
            .arg(into)
            .output()
            .map_err(|e| Error::io(archive, e))?;
        if !out.status.success() {
            return Err(Error::Check(format!(
                "tar -xf {}: {}",
                archive.display(),
                String::from_utf8_lossy(&out.stderr)
            )));
        }
        Ok(Layout {
            dir: into.to_path_buf(),
        })
    }

    /// The layout's `index.json`.
    pub fn index(&self) -> Result<Index, Error> {
        let path = self.dir.join("index.json");
        let text = std::fs::read(&path).map_err(|e| Error::io(&path, e))?;
        Ok(serde_json::from_slice(&text)?)
    }

    /// The descriptor `index.json` tags `tag`.
    pub fn tagged(&self, tag: &str) -> Result<Descriptor, Error> {
        self.index()?
            .manifests
            .into_iter()
            .find(|d| d.annotations.get(REF_NAME).map(String::as_str) == Some(tag))
            .ok_or_else(|| Error::Check(format!("{}: nothing tagged {tag}", self.dir.display())))
    }

    fn blob_path(&self, digest: &str) -> Result<PathBuf, Error> {
        let hex = digest
            .strip_prefix("sha256:")
            .filter(|h| h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit()))
            .ok_or_else(|| Error::Check(format!("not a sha256 digest: {digest}")))?;
        Ok(self.dir.join("blobs").join("sha256").join(hex))
    }

    /// A blob's content, checked against its digest.
    pub fn blob(&self, digest: &str) -> Result<Vec<u8>, Error> {
        let path = self.blob_path(digest)?;
        let bytes = std::fs::read(&path).map_err(|e| Error::io(&path, e))?;
        let actual = format!("sha256:{:x}", Sha256::digest(&bytes));
        if actual != digest {
            return Err(Error::Check(format!(
                "blob {digest} holds content of digest {actual}"
            )));
        }
        Ok(bytes)
    }

    /// A JSON blob (an index, a manifest, a config), checked against its descriptor.
    pub fn json<T: DeserializeOwned>(&self, descriptor: &Descriptor) -> Result<T, Error> {
        let bytes = self.blob(&descriptor.digest)?;
        if bytes.len() as u64 != descriptor.size {
            return Err(Error::Check(format!(
                "blob {} has {} bytes, its descriptor says {}",
                descriptor.digest,
                bytes.len(),
                descriptor.size
            )));
        }
        Ok(serde_json::from_slice(&bytes)?)
    }

    /// The artifacts `index.json` lists whose `subject` is `subject` (an
    /// image's referrers, as a registry's referrers API would list them).
    pub fn referrers(&self, subject: &str) -> Result<Vec<Manifest>, Error> {
        let mut found = Vec::new();
        for descriptor in self.index()?.manifests {
            if descriptor.media_type != IMAGE_MANIFEST {
                continue;
            }
            let manifest: Manifest = self.json(&descriptor)?;
            if manifest.subject.as_ref().map(|s| s.digest.as_str()) == Some(subject) {
                found.push(manifest);
            }
        }
        Ok(found)
    }

    /// The Sigstore bundles (cosign's signatures and attestations) that
    /// `index.json` lists for `subject`, with the predicate type each says it
    /// holds (`https://sigstore.dev/cosign/sign/v1` for a signature).
    pub fn sigstore_bundles(&self, subject: &str) -> Result<Vec<(Descriptor, String)>, Error> {
        let mut found = Vec::new();
        for descriptor in self.index()?.manifests {
            if descriptor.media_type != IMAGE_MANIFEST {
                continue;
            }
            let manifest: Manifest = self.json(&descriptor)?;
            if manifest.subject.as_ref().map(|s| s.digest.as_str()) != Some(subject)
                || !manifest.annotations.contains_key(SIGSTORE_BUNDLE)
            {
                continue;
            }
            let predicate = manifest
                .annotations
                .get(SIGSTORE_PREDICATE_TYPE)
                .cloned()
                .unwrap_or_default();
            found.push((descriptor, predicate));
        }
        Ok(found)
    }

    /// One file of a (gzip-compressed tar) layer.
    pub fn file_in_layer(&self, layer: &Descriptor, file: &str) -> Result<Vec<u8>, Error> {
        self.blob(&layer.digest)?;
        let path = self.blob_path(&layer.digest)?;
        let out = std::process::Command::new("tar")
            .arg("-xzOf")
            .arg(&path)
            .arg(file)
            .output()
            .map_err(|e| Error::io(&path, e))?;
        if !out.status.success() {
            return Err(Error::Check(format!(
                "no {file} in layer {}: {}",
                layer.digest,
                String::from_utf8_lossy(&out.stderr)
            )));
        }
        Ok(out.stdout)
    }

    /// Rewrites `index.json` to hold `manifest` alone, tagged `tag`: what
    /// tools that read one image, not an index, need (umoci).
    pub fn keep_only(&self, manifest: &Descriptor, tag: &str) -> Result<(), Error> {
        let mut descriptor = manifest.clone();
        descriptor.platform = None;
        descriptor.annotations = BTreeMap::from([(REF_NAME.to_string(), tag.to_string())]);
        let index = Index {
            schema_version: 2,
            media_type: None,
            manifests: vec![descriptor],
        };
        let path = self.dir.join("index.json");
        std::fs::write(&path, serde_json::to_vec(&index)?).map_err(|e| Error::io(&path, e))
    }
}
