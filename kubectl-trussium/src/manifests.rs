//! What `install` applies: the CRD and the operator's manifests of this
//! release, embedded at build time, with the install settings applied.
//!
//! One source of truth: the CRD is [`trussium_api::crd::crd`] (crds/ is
//! generated from it), and the operator's manifests are `kubectl kustomize
//! deploy/` and `kubectl kustomize deploy/overlays/single-namespace` as
//! rendered into `kubectl-trussium/manifests/` by `make generate` (a test
//! fails when they are stale). The settings change them the way kustomize
//! would (`namespace:`, `replicas:`, `images:`, and the single-namespace
//! overlay's namespace), and a cluster test compares the two renderings.

use serde_json::Value;
use trussium_api::crd::{VERSION, crd};
use trussium_api::image::{check_digest, check_tag, split_reference};
use trussium_api::operator::{OperatorArgs, WATCH_NAMESPACE_FLAG};

/// `kubectl kustomize deploy/`.
pub const CLUSTER_WIDE: &str = include_str!("../manifests/install.yaml");
/// `kubectl kustomize deploy/overlays/single-namespace`.
pub const SINGLE_NAMESPACE: &str = include_str!("../manifests/install-single-namespace.yaml");

/// How `install` changes the embedded manifests; `None` keeps them as they are.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Settings {
    /// The operator's own namespace.
    pub namespace: Option<String>,
    /// Watch only this namespace (the single-namespace install mode).
    pub watch_namespace: Option<String>,
    pub replicas: Option<i32>,
    /// The operator image: a full reference, or a repository that gets this
    /// release's tag. Default: the manifests' repository at this release.
    pub image: Option<String>,
}

/// The embedded manifests could not be read: a build defect, never input.
#[derive(Debug, thiserror::Error)]
#[error("the install manifests built into the plugin are broken: {0}")]
pub struct BrokenManifests(String);

/// The objects `install` applies, in order: the CRD first, then the
/// operator's objects in kustomize's order (the Namespace first).
pub fn render(settings: &Settings) -> Result<Vec<Value>, BrokenManifests> {
    let crd = serde_json::to_value(crd()).map_err(|e| BrokenManifests(e.to_string()))?;
    let mut objects = vec![crd];
    objects.extend(operator_objects(settings)?);
    Ok(objects)
}

/// The operator's objects alone (no CRD), with `settings` applied.
pub fn operator_objects(settings: &Settings) -> Result<Vec<Value>, BrokenManifests> {
    let bundle = match settings.watch_namespace {
        None => CLUSTER_WIDE,
        Some(_) => SINGLE_NAMESPACE,
    };
    let mut objects = parse(bundle)?;
    let home = operator_namespace(&objects)?;
    let watched = watched_namespace(&objects)?;
    place(
        &mut objects,
        &home,
        settings.namespace.as_deref().unwrap_or(&home),
        watched.as_deref(),
        settings.watch_namespace.as_deref(),
    );
    let deployment = deployment_mut(&mut objects)?;
    if let Some(replicas) = settings.replicas {
        deployment["spec"]["replicas"] = Value::from(replicas);
    }
    let image = match &settings.image {
        Some(image) => with_default_tag(image),
        None => with_default_tag(&operator_repository(deployment)?),
    };
    set_image(deployment, &image)?;
    Ok(objects)
}

/// The namespace the manifests install the operator into (`trussium-system`).
pub fn default_namespace() -> Result<String, BrokenManifests> {
    operator_namespace(&parse(CLUSTER_WIDE)?)
}

/// The name of the operator's Deployment (`trussium-operator`).
pub fn deployment_name() -> Result<String, BrokenManifests> {
    deployment(&parse(CLUSTER_WIDE)?)
        .and_then(|d| d["metadata"]["name"].as_str())
        .map(str::to_string)
        .ok_or_else(|| BrokenManifests("no Deployment".to_string()))
}

/// The operator Deployment among `objects`.
pub fn deployment(objects: &[Value]) -> Option<&Value> {
    objects.iter().find(|o| o["kind"] == "Deployment")
}

/// Checks `--image`: a repository, optionally with a tag or a digest.
pub fn check_image(image: &str) -> Result<(), String> {
    let (repository, tag, digest) = split_reference(image);
    let valid_repository = !repository.is_empty()
        && repository.chars().all(|c| {
            c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '.' | '_' | '-' | '/' | ':')
        })
        && !repository.starts_with('/')
        && !repository.ends_with('/');
    if !valid_repository {
        return Err(format!(
            "invalid image {image:?}: expected a repository such as registry.example.com/trussium-operator, optionally with :TAG or @sha256:DIGEST"
        ));
    }
    if let Some(tag) = tag {
        check_tag(tag).map_err(|e| e.to_string())?;
    }
    if let Some(digest) = digest {
        check_digest(digest).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// A repository without a tag or digest gets this release's tag.
fn with_default_tag(image: &str) -> String {
    match split_reference(image) {
        (repository, None, None) => format!("{repository}:v{VERSION}"),
        _ => image.to_string(),
    }
}

fn parse(bundle: &str) -> Result<Vec<Value>, BrokenManifests> {
    use serde::Deserialize;
    serde_yaml::Deserializer::from_str(bundle)
        .map(|document| Value::deserialize(document).map_err(|e| BrokenManifests(e.to_string())))
        .filter(|object| !matches!(object, Ok(Value::Null)))
        .collect()
}

fn deployment_mut(objects: &mut [Value]) -> Result<&mut Value, BrokenManifests> {
    objects
        .iter_mut()
        .find(|o| o["kind"] == "Deployment")
        .ok_or_else(|| BrokenManifests("no Deployment".to_string()))
}

fn operator_namespace(objects: &[Value]) -> Result<String, BrokenManifests> {
    deployment(objects)
        .and_then(|d| d["metadata"]["namespace"].as_str())
        .map(str::to_string)
        .ok_or_else(|| BrokenManifests("the Deployment has no namespace".to_string()))
}

/// The operator container's args and literal env values.
pub fn container_args(deployment: &Value) -> (Vec<String>, Vec<(String, String)>) {
    let container = &deployment["spec"]["template"]["spec"]["containers"][0];
    let strings = |v: &Value| {
        v.as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|s| s.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    };
    let env = container["env"]
        .as_array()
        .map(|vars| {
            vars.iter()
                .filter_map(|v| Some((v["name"].as_str()?.into(), v["value"].as_str()?.into())))
                .collect()
        })
        .unwrap_or_default();
    (strings(&container["args"]), env)
}

/// The namespace the single-namespace overlay watches (`None` cluster-wide).
fn watched_namespace(objects: &[Value]) -> Result<Option<String>, BrokenManifests> {
    let deployment =
        deployment(objects).ok_or_else(|| BrokenManifests("no Deployment".to_string()))?;
    let (args, env) = container_args(deployment);
    Ok(OperatorArgs::read(&args, &env).watch_namespace)
}

/// Moves the operator's objects from `home` to `namespace` (and the
/// subjects of its bindings, as kustomize's `namespace:` does), and the
/// objects of the watched namespace `watched` to `watch`.
fn place(
    objects: &mut [Value],
    home: &str,
    namespace: &str,
    watched: Option<&str>,
    watch: Option<&str>,
) {
    let moved = |ns: &str| -> Option<String> {
        if ns == home {
            Some(namespace.to_string())
        } else if Some(ns) == watched {
            watch.map(str::to_string)
        } else {
            None
        }
    };
    for object in objects.iter_mut() {
        let kind = object["kind"].as_str().unwrap_or_default().to_string();
        if kind == "Namespace" && object["metadata"]["name"] == home {
            object["metadata"]["name"] = Value::from(namespace);
        }
        if let Some(to) = object["metadata"]["namespace"].as_str().and_then(moved) {
            object["metadata"]["namespace"] = Value::from(to);
        }
        if let Some(subjects) = object.get_mut("subjects").and_then(Value::as_array_mut) {
            for subject in subjects
                .iter_mut()
                .filter(|s| s["kind"] == "ServiceAccount")
            {
                if let Some(to) = subject["namespace"].as_str().and_then(moved) {
                    subject["namespace"] = Value::from(to);
                }
            }
        }
        if kind == "Deployment"
            && let (Some(watched), Some(watch)) = (watched, watch)
        {
            let old = format!("--{WATCH_NAMESPACE_FLAG}={watched}");
            let args = object
                .pointer_mut("/spec/template/spec/containers/0/args")
                .and_then(Value::as_array_mut);
            for arg in args.into_iter().flatten() {
                if *arg == old {
                    *arg = Value::from(format!("--{WATCH_NAMESPACE_FLAG}={watch}"));
                }
            }
        }
    }
}

/// The repository of the operator image in the manifests.
fn operator_repository(deployment: &Value) -> Result<String, BrokenManifests> {
    deployment["spec"]["template"]["spec"]["containers"][0]["image"]
        .as_str()
        .map(|image| split_reference(image).0.to_string())
        .ok_or_else(|| BrokenManifests("the Deployment has no image".to_string()))
}

/// Sets the image of every container that runs the operator image, as
/// kustomize's `images:` does (by repository).
fn set_image(deployment: &mut Value, image: &str) -> Result<(), BrokenManifests> {
    let repository = operator_repository(deployment)?;
    let containers = deployment
        .pointer_mut("/spec/template/spec/containers")
        .and_then(Value::as_array_mut);
    for container in containers.into_iter().flatten() {
        let runs_operator = container["image"]
            .as_str()
            .is_some_and(|i| split_reference(i).0 == repository);
        if runs_operator {
            container["image"] = Value::from(image);
        }
    }
    Ok(())
}

/// The objects as YAML documents, like `kubectl kustomize` prints them.
pub fn to_yaml(objects: &[Value]) -> Result<String, serde_yaml::Error> {
    let mut text = String::new();
    for (i, object) in objects.iter().enumerate() {
        if i > 0 {
            text.push_str("---\n");
        }
        text.push_str(&serde_yaml::to_string(object)?);
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render_ok(settings: &Settings) -> Vec<Value> {
        render(settings).unwrap_or_else(|e| panic!("{e}"))
    }

    fn find<'a>(objects: &'a [Value], kind: &str, name: &str) -> &'a Value {
        objects
            .iter()
            .find(|o| o["kind"] == kind && o["metadata"]["name"] == name)
            .unwrap_or_else(|| panic!("no {kind} {name}"))
    }

    fn args(objects: &[Value]) -> Vec<String> {
        container_args(deployment(objects).unwrap_or(&Value::Null)).0
    }

    #[test]
    fn the_crd_comes_first_and_the_namespace_before_what_lives_in_it() {
        let objects = render_ok(&Settings::default());
        let kinds: Vec<&str> = objects.iter().filter_map(|o| o["kind"].as_str()).collect();
        assert_eq!(kinds[..2], ["CustomResourceDefinition", "Namespace"]);
        assert!(kinds.contains(&"ClusterRole") && kinds.contains(&"Deployment"));
        assert_eq!(
            objects[0]["metadata"]["labels"]["app.kubernetes.io/version"],
            VERSION
        );
    }

    #[test]
    fn defaults_pin_the_image_to_this_release() {
        let objects = render_ok(&Settings::default());
        let deployment = find(&objects, "Deployment", "trussium-operator");
        assert_eq!(deployment["metadata"]["namespace"], "trussium-system");
        assert_eq!(
            deployment["spec"]["template"]["spec"]["containers"][0]["image"],
            format!("ghcr.io/trussiumhq/trussium-operator:v{VERSION}")
        );
        assert_eq!(
            default_namespace().unwrap_or_default(),
            "trussium-system".to_string()
        );
        assert!(!args(&objects).iter().any(|a| a.starts_with("--namespace")));
    }

    #[test]
    fn namespace_moves_every_namespaced_object_and_the_binding_subjects() {
        let objects = render_ok(&Settings {
            namespace: Some("ops".into()),
            ..Settings::default()
        });
        for object in &objects {
            let ns = &object["metadata"]["namespace"];
            assert!(ns.is_null() || *ns == "ops", "{object}");
            for subject in object["subjects"].as_array().into_iter().flatten() {
                assert_eq!(subject["namespace"], "ops", "{object}");
            }
        }
        assert!(
            objects
                .iter()
                .any(|o| o["kind"] == "Namespace" && o["metadata"]["name"] == "ops")
        );
    }

    #[test]
    fn watch_namespace_uses_the_overlay_with_its_namespace_changed() {
        let objects = render_ok(&Settings {
            namespace: Some("ops".into()),
            watch_namespace: Some("team-a".into()),
            ..Settings::default()
        });
        assert!(
            !objects
                .iter()
                .any(|o| o["kind"] == "ClusterRole" || o["kind"] == "ClusterRoleBinding")
        );
        let role = find(&objects, "Role", "trussium-operator");
        assert_eq!(role["metadata"]["namespace"], "team-a");
        let binding = find(&objects, "RoleBinding", "trussium-operator");
        assert_eq!(binding["metadata"]["namespace"], "team-a");
        assert_eq!(binding["subjects"][0]["namespace"], "ops");
        assert!(args(&objects).contains(&"--namespace=team-a".to_string()));
        let lease_role = find(&objects, "Role", "trussium-operator-leader-election");
        assert_eq!(lease_role["metadata"]["namespace"], "ops");
    }

    #[test]
    fn watching_the_operators_own_namespace_or_the_overlays_example() {
        // The watched namespace may be the operator's own...
        let objects = render_ok(&Settings {
            watch_namespace: Some("trussium-system".into()),
            ..Settings::default()
        });
        assert_eq!(
            find(&objects, "Role", "trussium-operator")["metadata"]["namespace"],
            "trussium-system"
        );
        // ...and the operator may live in the overlay's example namespace.
        let objects = render_ok(&Settings {
            namespace: Some("trussium".into()),
            watch_namespace: Some("team-a".into()),
            ..Settings::default()
        });
        assert_eq!(
            find(&objects, "Deployment", "trussium-operator")["metadata"]["namespace"],
            "trussium"
        );
        assert_eq!(
            find(&objects, "Role", "trussium-operator")["metadata"]["namespace"],
            "team-a"
        );
    }

    #[test]
    fn replicas_and_image() {
        let objects = render_ok(&Settings {
            replicas: Some(3),
            image: Some("registry.example.com/mirror/op".into()),
            ..Settings::default()
        });
        let deployment = find(&objects, "Deployment", "trussium-operator");
        assert_eq!(deployment["spec"]["replicas"], 3);
        assert_eq!(
            deployment["spec"]["template"]["spec"]["containers"][0]["image"],
            format!("registry.example.com/mirror/op:v{VERSION}")
        );
        let digest = format!("localhost:5000/op@sha256:{}", "a".repeat(64));
        let objects = render_ok(&Settings {
            image: Some(digest.clone()),
            ..Settings::default()
        });
        assert_eq!(
            find(&objects, "Deployment", "trussium-operator")["spec"]["template"]["spec"]["containers"]
                [0]["image"],
            digest
        );
    }

    #[test]
    fn image_flag_values() {
        for good in [
            "registry.example.com/op",
            "localhost:5000/op:v1",
            "op",
            &format!("r/op@sha256:{}", "0".repeat(64)),
        ] {
            assert_eq!(check_image(good), Ok(()), "{good}");
        }
        for bad in ["", "Op", "r/op:-x", "r/op@sha256:abc", "/op", "r op"] {
            assert!(check_image(bad).is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn yaml_documents_read_back_as_the_objects() {
        let objects = render_ok(&Settings::default());
        let text = to_yaml(&objects).unwrap_or_default();
        assert_eq!(parse(&text).unwrap_or_default(), objects);
    }
}
