//! An owner reference that names another version of the runtime's API.
//!
//! Objects made by a release that wrote `v1alpha1` name that version in
//! their controller reference; this one writes `v1beta1` in new ones. The
//! owner is the same either way (the same uid, group and kind), and an
//! existing object keeps the version it names: applying every object of
//! every runtime only to rename it would be all that an operator upgrade
//! writes, and the API server lets only someone who may delete an object
//! change its owner references (OwnerReferencesPermissionEnforcement),
//! which the operator may not for most kinds.

use super::hash::AppliedHash;

/// `desired` with its controller reference naming the version that
/// `observed`'s does, when that is all the two references differ in
/// (restamped: its applied hash is then what a release writing that
/// version applied). `None` when they agree already, or differ in more.
pub fn with_owner_version_of<K: AppliedHash>(desired: &K, observed: &K) -> Option<K> {
    let want = controller_reference(desired)?;
    let have = controller_reference(observed)?;
    let same_owner = want.uid == have.uid
        && want.kind == have.kind
        && want.name == have.name
        && group(&want.api_version) == group(&have.api_version);
    if !same_owner || want.api_version == have.api_version {
        return None;
    }
    let mut kept = desired.clone();
    let reference = kept
        .meta_mut()
        .owner_references
        .iter_mut()
        .flatten()
        .find(|o| o.controller == Some(true))?;
    reference.api_version = have.api_version.clone();
    kept.restamped_like(desired)
}

fn controller_reference<K: kube::Resource>(
    object: &K,
) -> Option<&k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference> {
    object
        .meta()
        .owner_references
        .iter()
        .flatten()
        .find(|o| o.controller == Some(true))
}

/// The group of an `apiVersion` (`group/version`; the core group has none).
fn group(api_version: &str) -> &str {
    api_version.rsplit_once('/').map_or("", |(group, _)| group)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pure::drift::needs_apply;
    use crate::pure::resources::hash;
    use crate::pure::resources::tests::{Result, context, fixture};
    use crate::pure::resources::{config_map, deployment};
    use k8s_openapi::api::apps::v1::Deployment;

    /// `object` as a release that wrote `api_version` made it: the
    /// reference renamed, the applied hash of that content.
    fn as_written_with(object: Deployment, api_version: &str) -> Result<Deployment> {
        let mut renamed = object.clone();
        for reference in renamed.metadata.owner_references.iter_mut().flatten() {
            reference.api_version = api_version.into();
        }
        Ok(renamed.restamped_like(&object).ok_or("restamped")?)
    }

    #[test]
    fn an_older_version_of_the_same_owner_needs_no_apply() -> Result {
        let rt = fixture("full")?;
        let desired = deployment(&rt, &context().ctx())?;
        let observed = as_written_with(desired.clone(), "runtime.trussium.io/v1alpha1")?;
        assert!(
            needs_apply(&desired, &observed).is_some(),
            "the hashes differ"
        );
        let kept = with_owner_version_of(&desired, &observed).ok_or("kept")?;
        assert_eq!(needs_apply(&kept, &observed), None);
        Ok(())
    }

    /// The full fixture autoscales: its Deployment's hash leaves replicas
    /// out, and so must the kept one's, or every HPA decision would apply.
    #[test]
    fn an_autoscaled_deployment_keeps_its_hash_rule() -> Result {
        let rt = fixture("full")?;
        let desired = deployment(&rt, &context().ctx())?;
        // As an older release made it, the HPA having scaled to 9 since.
        let older = deployment(&rt, &context().with_observed_replicas(Some(9)).ctx())?;
        let mut observed = desired.clone();
        observed.spec = older.spec;
        for reference in observed.metadata.owner_references.iter_mut().flatten() {
            reference.api_version = "runtime.trussium.io/v1alpha1".into();
        }
        let observed = observed.restamped_like(&desired).ok_or("restamped")?;
        let kept = with_owner_version_of(&desired, &observed).ok_or("kept")?;
        assert_eq!(hash::stamp_of(&kept), hash::stamp_of(&observed));
        // Only replicas differ: containment sees it, the hash does not.
        assert_eq!(
            needs_apply(&kept, &observed).as_deref(),
            Some("/spec/replicas")
        );
        Ok(())
    }

    #[test]
    fn anything_else_changed_still_applies_with_the_version_kept() -> Result {
        let rt = fixture("minimal")?;
        let desired = deployment(&rt, &context().ctx())?;
        let mut older = rt.clone();
        older.spec.replicas = 7;
        let mut observed = deployment(&older, &context().ctx())?;
        observed = as_written_with(observed, "runtime.trussium.io/v1alpha1")?;
        let kept = with_owner_version_of(&desired, &observed).ok_or("kept")?;
        assert!(needs_apply(&kept, &observed).is_some());
        let references = kept.metadata.owner_references.unwrap_or_default();
        assert_eq!(references[0].api_version, "runtime.trussium.io/v1alpha1");
        Ok(())
    }

    #[test]
    fn another_owner_group_or_kind_is_never_taken_for_it() -> Result {
        let rt = fixture("minimal")?;
        let desired = deployment(&rt, &context().ctx())?;
        for (api_version, kind, uid) in [
            ("other.example.com/v1alpha1", "TrussiumRuntime", None),
            ("runtime.trussium.io/v1alpha1", "Other", None),
            (
                "runtime.trussium.io/v1alpha1",
                "TrussiumRuntime",
                Some("another-uid"),
            ),
        ] {
            let mut observed = desired.clone();
            for reference in observed.metadata.owner_references.iter_mut().flatten() {
                reference.api_version = api_version.into();
                reference.kind = kind.into();
                if let Some(uid) = uid {
                    reference.uid = uid.into();
                }
            }
            assert!(
                with_owner_version_of(&desired, &observed).is_none(),
                "{api_version} {kind} {uid:?}"
            );
        }
        // The same version: nothing to keep.
        assert!(with_owner_version_of(&desired, &desired).is_none());
        let cm = config_map(&rt, &context().ctx())?;
        assert!(with_owner_version_of(&cm, &cm).is_none());
        Ok(())
    }

    #[test]
    fn the_group_of_an_api_version() {
        assert_eq!(group("runtime.trussium.io/v1beta1"), "runtime.trussium.io");
        assert_eq!(group("v1"), "");
    }
}
