//! `kubectl trussium uninstall [--force]`: deletes what `install` applied for
//! the operator found in the namespace (read from its Deployment's
//! arguments: cluster-wide or single-namespace), and its Lease. The CRD, the
//! runtimes and the namespace stay. Refuses while runtimes exist unless
//! `--force`, and checks every permission before deleting anything.

use clap::Args;
use k8s_openapi::api::apps::v1::Deployment;
use kube::api::{DeleteParams, ListParams};
use kube::{Api, ResourceExt};
use serde_json::{Value, json};
use trussium_api::TrussiumRuntime;
use trussium_api::operator::OperatorArgs;

use crate::access;
use crate::cli::GlobalFlags;
use crate::client::{Target, connect};
use crate::dynamic::Object;
use crate::error::{DEPLOYMENTS, Error, RUNTIMES, Request, Result};
use crate::manifests::{self, Settings};
use crate::output::{self, Palette};

#[derive(Args, Debug)]
pub struct UninstallArgs {
    /// Remove the operator even though runtimes exist (they keep serving, unmanaged)
    #[arg(long)]
    pub force: bool,
}

pub const HELP: &str = "\
Deletes what install applied (the Deployment, its Service and
PodDisruptionBudget, the RBAC, the ServiceAccount) and the leader-election
Lease. The CRD, the runtimes and the namespace stay. -n/--namespace is the
operator's namespace (default: trussium-system). Refuses while runtimes exist
unless --force: they would keep serving, but nothing would manage them.

Examples:
  kubectl trussium uninstall
  kubectl trussium uninstall --force";

pub async fn run(flags: &GlobalFlags, args: &UninstallArgs, palette: Palette) -> Result<()> {
    let broken = |e: manifests::BrokenManifests| Error::Config(e.to_string());
    let namespace = match flags.namespace.as_deref() {
        Some(ns) => ns.to_string(),
        None => manifests::default_namespace().map_err(broken)?,
    };
    let name = manifests::deployment_name().map_err(broken)?;
    let target = connect(flags).await?;
    let deployments: Api<Deployment> = Api::namespaced(target.client.clone(), &namespace);
    let deployment = deployments
        .get_opt(&name)
        .await
        .map_err(|e| {
            let get = Request::new("get", DEPLOYMENTS)
                .namespace(Some(&namespace))
                .name(&name);
            target.fail(get, e)
        })?
        .ok_or_else(|| Error::NotInstalled {
            namespace: namespace.clone(),
            name: name.clone(),
        })?;
    let value = serde_json::to_value(&deployment).map_err(|e| Error::Config(e.to_string()))?;
    let (container_args, env) = manifests::container_args(&value);
    let installed = OperatorArgs::read(&container_args, &env);

    let runtimes = managed_runtimes(&target, installed.watch_namespace.as_deref()).await?;
    if !runtimes.is_empty() && !args.force {
        let mut namespaces: Vec<String> = runtimes.iter().filter_map(|r| r.namespace()).collect();
        namespaces.sort();
        namespaces.dedup();
        return Err(Error::RuntimesExist {
            count: runtimes.len(),
            namespaces,
        });
    }

    let objects = to_delete(&namespace, &installed).map_err(broken)?;
    let wanted: Vec<_> = objects
        .iter()
        .map(|o| o.permission("delete", true))
        .collect();
    let missing = access::missing(&target, &wanted).await?;
    if !missing.is_empty() {
        return Err(Error::NotPermitted {
            doing: "uninstalling",
            missing: missing.iter().map(ToString::to_string).collect(),
        });
    }
    output::println(&format!(
        "Removing the Trussium operator from namespace {namespace}:"
    ))?;
    for object in &objects {
        let gone = match object
            .api(&target.client)
            .delete(&object.name, &DeleteParams::default())
            .await
        {
            Ok(_) => "deleted",
            Err(kube::Error::Api(status)) if status.code == 404 => "already gone",
            Err(e) => {
                return Err(target.fail(Request::new("delete", "the operator's objects"), e));
            }
        };
        output::println(&format!("  {} {object} {gone}", palette.good("✓")))?;
    }
    output::println(&palette.dim(&format!(
        "Kept: the CRD, {} runtime{} (their Deployments keep serving, unmanaged), and namespace {namespace} (`kubectl delete namespace {namespace}` removes it).",
        runtimes.len(),
        if runtimes.len() == 1 { "" } else { "s" }
    )))
}

/// What `install` applied for this operator, in reverse order, without the
/// CRD and the namespace, and then its Lease.
fn to_delete(
    namespace: &str,
    installed: &OperatorArgs,
) -> Result<Vec<Object>, manifests::BrokenManifests> {
    let settings = Settings {
        namespace: Some(namespace.to_string()),
        watch_namespace: installed.watch_namespace.clone(),
        ..Settings::default()
    };
    let mut objects: Vec<Value> = manifests::operator_objects(&settings)?
        .into_iter()
        .filter(|o| o["kind"] != "Namespace")
        .rev()
        .collect();
    if let Some((lease_namespace, lease_name)) = &installed.lease {
        objects.push(json!({
            "apiVersion": "coordination.k8s.io/v1",
            "kind": "Lease",
            "metadata": {
                "name": lease_name,
                "namespace": lease_namespace.as_deref().unwrap_or(namespace),
            },
        }));
    }
    Ok(objects.into_iter().filter_map(Object::new).collect())
}

/// The runtimes the operator manages: in the namespace it watches, or all.
/// None when the CRD is not installed.
async fn managed_runtimes(
    target: &Target,
    watch_namespace: Option<&str>,
) -> Result<Vec<kube::core::PartialObjectMeta<TrussiumRuntime>>> {
    let api: Api<TrussiumRuntime> = match watch_namespace {
        Some(ns) => Api::namespaced(target.client.clone(), ns),
        None => Api::all(target.client.clone()),
    };
    match api.list_metadata(&ListParams::default()).await {
        Ok(list) => Ok(list.items),
        Err(kube::Error::Api(status)) if status.code == 404 => Ok(Vec::new()),
        Err(e) => Err(target.fail(Request::new("list", RUNTIMES).namespace(watch_namespace), e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deletes_what_install_applied_in_reverse_and_keeps_the_namespace() {
        let cluster_wide = OperatorArgs::read(&[], &[]);
        let objects = to_delete("ops", &cluster_wide).unwrap_or_default();
        let names: Vec<String> = objects.iter().map(ToString::to_string).collect();
        assert_eq!(
            names.first().map(String::as_str),
            Some("PodDisruptionBudget ops/trussium-operator")
        );
        assert_eq!(
            names.last().map(String::as_str),
            Some("Lease ops/trussium-operator")
        );
        assert!(
            names.contains(&"ClusterRole trussium-operator".to_string()),
            "{names:?}"
        );
        assert!(
            !names
                .iter()
                .any(|n| n.starts_with("Namespace") || n.starts_with("CustomResource"))
        );
        let deployment = names.iter().position(|n| n.starts_with("Deployment"));
        let account = names.iter().position(|n| n.starts_with("ServiceAccount"));
        assert!(
            deployment < account,
            "the operator stops before its identity goes: {names:?}"
        );

        let single = OperatorArgs::read(
            &[
                "--namespace=team-a".to_string(),
                "--leader-elect=false".to_string(),
            ],
            &[],
        );
        let names: Vec<String> = to_delete("ops", &single)
            .unwrap_or_default()
            .iter()
            .map(ToString::to_string)
            .collect();
        assert!(
            names.contains(&"Role team-a/trussium-operator".to_string()),
            "{names:?}"
        );
        assert!(
            !names
                .iter()
                .any(|n| n.starts_with("ClusterRole") || n.starts_with("Lease"))
        );
    }
}
