//! Storage migration: every `TrussiumRuntime` rewritten once in the storage
//! version, then the CRD's `status.storedVersions` trimmed to it, so that a
//! later CRD may stop serving the older versions (the API server refuses a
//! CRD that drops a version `storedVersions` still lists).
//!
//! Run by `migrate` and by `install` after it applies the CRD, with the user's
//! own rights (the operator has no CRD permission, and gets none for this).
//! Idempotent and resumable: an interrupted run leaves every object valid
//! (each rewrite is the object as read), and the next run rewrites again
//! (a rewrite of an object already stored in the storage version is no write
//! in etcd) and finishes. With nothing left to migrate it writes nothing.

use std::time::{Duration, Instant};

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{ApiResource, DynamicObject, ListParams, Patch, PatchParams, PostParams};
use kube::{Api, CustomResourceExt, ResourceExt};
use serde_json::json;
use trussium_api::TrussiumRuntime;
use trussium_api::crd::{DEPRECATED_VERSIONS, STORAGE_VERSION, api_resource};

use crate::client::Target;
use crate::error::{CRDS, Error, RUNTIMES, Request, Result};

/// What the CRD says is left to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Plan {
    /// `storedVersions` lists the storage version only.
    Nothing,
    /// Objects may be stored in these older versions.
    Rewrite { older: Vec<String> },
}

/// What `storedVersions` and the storage version of a stored CRD mean for a
/// migration. Refuses (nothing to write) a CRD whose storage version is not
/// this plugin's (apply this release's CRD first) and a stored version this
/// plugin does not know (a newer release wrote it).
pub fn plan(crd: &CustomResourceDefinition) -> std::result::Result<Plan, String> {
    let storage = crd.spec.versions.iter().find(|v| v.storage);
    if storage.map(|v| v.name.as_str()) != Some(STORAGE_VERSION) {
        return Err(format!(
            "the CRD stores {}, not {STORAGE_VERSION}: apply this release's CRD first (`kubectl trussium install`)",
            storage.map_or("no version", |v| v.name.as_str())
        ));
    }
    let stored = crd
        .status
        .as_ref()
        .and_then(|s| s.stored_versions.clone())
        .unwrap_or_default();
    let known = |v: &str| v == STORAGE_VERSION || DEPRECATED_VERSIONS.contains(&v);
    if let Some(unknown) = stored.iter().find(|v| !known(v)) {
        return Err(format!(
            "the CRD's storedVersions lists {unknown}, which this plugin does not know (a newer release wrote it): use that release's plugin"
        ));
    }
    let older: Vec<String> = stored
        .into_iter()
        .filter(|v| v != STORAGE_VERSION)
        .collect();
    Ok(if older.is_empty() {
        Plan::Nothing
    } else {
        Plan::Rewrite { older }
    })
}

/// What a run did (or, in a dry run, would do).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// The older versions `storedVersions` listed before the run.
    pub older: Vec<String>,
    /// Runtimes rewritten in the storage version (or to rewrite).
    pub rewritten: usize,
    /// Runtimes changed or deleted by someone else meanwhile: their own
    /// write stored them in the storage version, or they are gone.
    pub changed_meanwhile: usize,
}

impl Report {
    /// One line for people.
    pub fn summary(&self, dry_run: bool) -> String {
        if self.older.is_empty() {
            return format!(
                "nothing to migrate: every runtime is stored as {STORAGE_VERSION} (storedVersions: {STORAGE_VERSION})"
            );
        }
        let plural = |n: usize| if n == 1 { "" } else { "s" };
        let verb = if dry_run { "would rewrite" } else { "rewrote" };
        let trimmed = if dry_run { "would set" } else { "set" };
        let mut line = format!(
            "{verb} {} runtime{} stored before {STORAGE_VERSION} (storedVersions listed {}), and {trimmed} storedVersions to {STORAGE_VERSION}",
            self.rewritten,
            plural(self.rewritten),
            self.older.join(", "),
        );
        if self.changed_meanwhile > 0 {
            line.push_str(&format!(
                "; {} runtime{} changed or deleted meanwhile needed no rewrite",
                self.changed_meanwhile,
                plural(self.changed_meanwhile)
            ));
        }
        line
    }
}

/// Runs the migration: every runtime rewritten as read (guarded by its
/// resourceVersion, so a concurrent change wins and is not overwritten; no
/// spec, status or generation change), then `storedVersions` trimmed.
/// `progress(done, total)` is called about every two seconds on long runs.
pub async fn run(
    target: &Target,
    dry_run: bool,
    progress: impl FnMut(usize, usize),
) -> Result<Report> {
    let crds: Api<CustomResourceDefinition> = Api::all(target.client.clone());
    let crd = crds
        .get_opt(TrussiumRuntime::crd_name())
        .await
        .map_err(|e| target.fail(get_crd(), e))?
        .ok_or(Error::CrdMissing)?;
    let older = match plan(&crd).map_err(Error::Migration)? {
        Plan::Nothing => return Ok(Report::default()),
        Plan::Rewrite { older } => older,
    };

    wait_for_storage(target).await?;
    let resource = api_resource(STORAGE_VERSION);
    let listed = list_runtimes(target, &resource).await?;
    let mut report = Report {
        older,
        ..Report::default()
    };
    if dry_run {
        report.rewritten = listed.len();
        return Ok(report);
    }
    rewrite_all(target, &resource, listed, &mut report, progress).await?;
    trim_stored_versions(target, &crds, crd).await?;
    Ok(report)
}

/// The request that reads the runtimes' CRD, as errors name it.
fn get_crd() -> Request {
    Request::new("get", CRDS).name(TrussiumRuntime::crd_name())
}

/// Every runtime in every namespace, as stored, read page by page.
async fn list_runtimes(target: &Target, resource: &ApiResource) -> Result<Vec<DynamicObject>> {
    let runtimes: Api<DynamicObject> = Api::all_with(target.client.clone(), resource);
    let mut listed = Vec::new();
    let mut params = ListParams::default().limit(500);
    loop {
        let page = runtimes
            .list(&params)
            .await
            .map_err(|e| target.fail(Request::new("list", RUNTIMES), e))?;
        listed.extend(page.items);
        match page.metadata.continue_ {
            Some(token) if !token.is_empty() => params = params.continue_token(&token),
            _ => break,
        }
    }
    Ok(listed)
}

/// What became of one runtime's rewrite.
enum Rewrite {
    Done,
    /// Written or deleted by someone else since the list: nothing left to do.
    ChangedMeanwhile,
}

/// Rewrites each of `listed` in turn, counting what became of it in
/// `report`; stops at the first failure.
async fn rewrite_all(
    target: &Target,
    resource: &ApiResource,
    listed: Vec<DynamicObject>,
    report: &mut Report,
    mut progress: impl FnMut(usize, usize),
) -> Result<()> {
    let total = listed.len();
    let mut last_progress = Instant::now();
    for (done, object) in listed.into_iter().enumerate() {
        if last_progress.elapsed() >= Duration::from_secs(2) {
            progress(done, total);
            last_progress = Instant::now();
        }
        match rewrite(target, resource, &object).await? {
            Rewrite::Done => report.rewritten += 1,
            Rewrite::ChangedMeanwhile => report.changed_meanwhile += 1,
        }
    }
    Ok(())
}

/// Writes one runtime back as read, guarded by its resourceVersion.
async fn rewrite(
    target: &Target,
    resource: &ApiResource,
    object: &DynamicObject,
) -> Result<Rewrite> {
    let namespace = object.namespace().unwrap_or_default();
    let name = object.name_any();
    let api: Api<DynamicObject> = Api::namespaced_with(target.client.clone(), &namespace, resource);
    match api.replace(&name, &PostParams::default(), object).await {
        Ok(_) => Ok(Rewrite::Done),
        // Written by someone else since the list (stored in the storage
        // version by that write), or deleted (a 404 that names it; a bare
        // one means the version is not served): nothing left to do.
        Err(kube::Error::Api(status))
            if status.code == 409
                || (status.code == 404
                    && status.details.as_ref().is_some_and(|d| !d.name.is_empty())) =>
        {
            Ok(Rewrite::ChangedMeanwhile)
        }
        Err(e) => {
            let update = Request::new("update", RUNTIMES)
                .namespace(Some(&namespace))
                .name(&name);
            Err(target.fail(update, e))
        }
    }
}

/// Sets the CRD's `storedVersions` to the storage version alone, once every
/// runtime is rewritten; `crd` is the CRD as planned.
async fn trim_stored_versions(
    target: &Target,
    crds: &Api<CustomResourceDefinition>,
    crd: CustomResourceDefinition,
) -> Result<()> {
    let name = TrussiumRuntime::crd_name();
    let planned_generation = crd.metadata.generation;
    // Guarded by the CRD's resourceVersion: a CRD changed meanwhile (another
    // storage version applied) is read again and planned again.
    let mut crd = crd;
    loop {
        let patch = json!({
            "metadata": {"resourceVersion": crd.resource_version()},
            "status": {"storedVersions": [STORAGE_VERSION]},
        });
        match crds
            .patch_status(name, &PatchParams::default(), &Patch::Merge(&patch))
            .await
        {
            Ok(_) => return Ok(()),
            Err(kube::Error::Api(status)) if status.code == 409 => {
                crd = crds
                    .get(name)
                    .await
                    .map_err(|e| target.fail(get_crd(), e))?;
                plan(&crd).map_err(Error::Migration)?;
                // A changed spec (a storage version applied and reverted, say)
                // may have stored runtimes in another version meanwhile.
                if crd.metadata.generation != planned_generation {
                    return Err(Error::Migration(
                        "the CRD changed while migrating, storedVersions left as it was: run migrate again"
                            .to_string(),
                    ));
                }
            }
            Err(e) => {
                let patch = Request::new("patch", CRDS).name(name);
                return Err(target.fail(patch, e));
            }
        }
    }
}

/// What discovery shows as the storage version hash of a resource stored
/// as `group/version/kind` (the API server's `StorageVersionHash`).
pub fn storage_version_hash(group: &str, version: &str, kind: &str) -> String {
    use base64::Engine;
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(format!("{group}/{version}/{kind}").as_bytes());
    base64::engine::general_purpose::STANDARD.encode(&digest[..8])
}

/// Waits (up to 30 s) until discovery says the API server stores runtimes
/// in [`STORAGE_VERSION`]: it switches a moment after the CRD changes, and a
/// rewrite before that would store the old version again.
async fn wait_for_storage(target: &Target) -> Result<()> {
    let want = storage_version_hash("runtime.trussium.io", STORAGE_VERSION, "TrussiumRuntime");
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let resources = target
            .client
            .list_api_group_resources(&format!("runtime.trussium.io/{STORAGE_VERSION}"))
            .await
            .map_err(|e| target.fail(Request::new("list", RUNTIMES), e))?;
        let hash = resources
            .resources
            .iter()
            .find(|r| r.name == "trussiumruntimes")
            .and_then(|r| r.storage_version_hash.clone());
        match hash {
            Some(hash) if hash == want => return Ok(()),
            // An API server that does not publish the hash: nothing to wait for.
            None => return Ok(()),
            Some(_) if Instant::now() >= deadline => {
                return Err(Error::Migration(format!(
                    "the API server does not store runtimes as {STORAGE_VERSION} yet (discovery's storage version hash): run migrate again in a minute"
                )));
            }
            Some(_) => tokio::time::sleep(Duration::from_millis(200)).await,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn crd(storage: &str, stored: &[&str]) -> CustomResourceDefinition {
        let versions: Vec<_> = ["v1beta1", "v1alpha1"]
            .iter()
            .map(|name| json!({"name": name, "served": true, "storage": *name == storage}))
            .collect();
        serde_json::from_value(json!({
            "metadata": {"name": "trussiumruntimes.runtime.trussium.io"},
            "spec": {"group": "runtime.trussium.io", "scope": "Namespaced",
                     "names": {"plural": "trussiumruntimes", "kind": "TrussiumRuntime"},
                     "versions": versions},
            "status": {"storedVersions": stored}
        }))
        .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn the_storage_version_hash_is_the_api_servers() {
        // kube-apiserver's discovery for apps/v1 Deployment.
        assert_eq!(
            storage_version_hash("apps", "v1", "Deployment"),
            "8aSe+NMegvE="
        );
        // Read from a 1.36.4 API server serving this release's CRD.
        assert_eq!(
            storage_version_hash("runtime.trussium.io", "v1beta1", "TrussiumRuntime"),
            "pQiS7qUmoOs="
        );
    }

    #[test]
    fn only_the_storage_version_stored_is_nothing_to_do() {
        assert_eq!(plan(&crd("v1beta1", &["v1beta1"])), Ok(Plan::Nothing));
        assert_eq!(plan(&crd("v1beta1", &[])), Ok(Plan::Nothing));
    }

    #[test]
    fn an_older_stored_version_means_a_rewrite() {
        assert_eq!(
            plan(&crd("v1beta1", &["v1alpha1", "v1beta1"])),
            Ok(Plan::Rewrite {
                older: vec!["v1alpha1".to_string()]
            })
        );
    }

    #[test]
    fn a_crd_that_stores_another_version_is_refused() {
        assert_eq!(
            plan(&crd("v1alpha1", &["v1alpha1"])),
            Err(
            "the CRD stores v1alpha1, not v1beta1: apply this release's CRD first (`kubectl trussium install`)".to_string())
        );
    }

    #[test]
    fn an_unknown_stored_version_is_refused_and_named() {
        let refusal = plan(&crd("v1beta1", &["v1beta1", "v2"]));
        assert!(
            matches!(&refusal, Err(r) if r.contains("storedVersions lists v2")),
            "{refusal:?}"
        );
    }

    #[test]
    fn the_summary_says_what_was_done() {
        assert_eq!(
            Report::default().summary(false),
            "nothing to migrate: every runtime is stored as v1beta1 (storedVersions: v1beta1)"
        );
        let report = Report {
            older: vec!["v1alpha1".into()],
            rewritten: 3,
            changed_meanwhile: 1,
        };
        assert_eq!(
            report.summary(false),
            "rewrote 3 runtimes stored before v1beta1 (storedVersions listed v1alpha1), and set storedVersions to v1beta1; 1 runtime changed or deleted meanwhile needed no rewrite"
        );
        assert!(report.summary(true).starts_with("would rewrite 3 runtimes"));
    }
}
