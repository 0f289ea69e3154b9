//! The runtime Deployment.

use k8s_openapi::api::apps::v1::{
    Deployment, DeploymentSpec, DeploymentStrategy, RollingUpdateDeployment,
};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use trussium_api::TrussiumRuntime;

use super::{
    APPLIED_FROM_ANNOTATION, BuildContext, BuildError, autoscaling_bounds, hash, object_meta, pod,
    runtime_name, selector,
};

/// The runtime Deployment.
///
/// Its applied hash leaves out `spec.replicas` while autoscaling is enabled:
/// there the value follows the HPA, and an HPA decision must not look like a
/// change the operator has to apply.
pub fn deployment(rt: &TrussiumRuntime, ctx: &BuildContext) -> Result<Deployment, BuildError> {
    let autoscaling = autoscaling_bounds(rt)?.is_some();
    let mut metadata = object_meta(rt)?;
    let from = hash::applied_from(rt, ctx.secret_versions)?;
    metadata.annotations = Some([(APPLIED_FROM_ANNOTATION.to_string(), from)].into());
    let mut deployment = Deployment {
        metadata,
        spec: Some(DeploymentSpec {
            replicas: Some(replicas(rt, ctx)?),
            // Immutable once created: only ever the selector labels.
            selector: selector(runtime_name(rt)?),
            template: pod::pod_template(rt, ctx)?,
            progress_deadline_seconds: Some(ctx.config.progress_deadline_seconds),
            // Surge first, never take a serving pod down early: a failed
            // upgrade leaves the old pods serving.
            strategy: Some(DeploymentStrategy {
                type_: Some("RollingUpdate".to_string()),
                rolling_update: Some(RollingUpdateDeployment {
                    max_unavailable: Some(IntOrString::Int(0)),
                    max_surge: Some(IntOrString::String("25%".to_string())),
                }),
            }),
            ..DeploymentSpec::default()
        }),
        status: None,
    };

    let hash = if autoscaling {
        hash::applied_hash(&without_replicas(&deployment))?
    } else {
        hash::applied_hash(&deployment)?
    };
    hash::stamp(&mut deployment, hash);
    Ok(deployment)
}

fn without_replicas(deployment: &Deployment) -> Deployment {
    let mut without = deployment.clone();
    if let Some(spec) = without.spec.as_mut() {
        spec.replicas = None;
    }
    without
}

/// `desired` as it is applied while its new pod template waits for a turn
/// (see `crate::pure::turns`): everything as desired (a scale goes through) but
/// the pod template, which stays as `observed` runs it. `None` when either
/// has no spec.
pub fn with_template_of(desired: &Deployment, observed: &Deployment) -> Option<Deployment> {
    let mut held = desired.clone();
    held.spec.as_mut()?.template = observed.spec.as_ref()?.template.clone();
    hash::AppliedHash::restamped_like(held, desired)
}

/// A Deployment's hash leaves `spec.replicas` out while autoscaling (see
/// [`deployment`]): `like` tells which by its own stamp.
impl hash::AppliedHash for Deployment {
    fn restamped_like(mut self, like: &Self) -> Option<Self> {
        let autoscaling = hash::applied_hash(&without_replicas(like)).ok();
        if autoscaling.is_some() && autoscaling.as_deref() == hash::stamp_of(like) {
            let hash = hash::applied_hash(&without_replicas(&self)).ok()?;
            hash::stamp(&mut self, hash);
        } else {
            hash::restamp(&mut self).ok()?;
        }
        Some(self)
    }
}

/// The replica count to apply.
///
/// Without autoscaling: `spec.replicas`. With it, the operator keeps owning the
/// field (so enabling or disabling never hands it to nobody, which would reset
/// it to 1) but follows what the HPA chose: the observed Deployment's value,
/// or `spec.replicas` before there is one; either clamped into
/// `[minReplicas, maxReplicas]` as the HPA itself would. Clamping also lifts a
/// scaled-to-zero runtime, which an HPA would otherwise never scale.
pub fn replicas(rt: &TrussiumRuntime, ctx: &BuildContext) -> Result<i32, BuildError> {
    Ok(match autoscaling_bounds(rt)? {
        None => rt.spec.replicas,
        Some((min, max)) => ctx
            .observed_replicas
            .unwrap_or(rt.spec.replicas)
            .clamp(min, max),
    })
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::super::tests::{Result, TestContext, context, fixture, json_of};
    use super::super::{APPLIED_FROM_ANNOTATION, APPLIED_HASH_ANNOTATION, CONFIG_HASH_ANNOTATION};
    use super::*;
    use crate::pure::config::OperatorConfig;

    fn built(rt: &TrussiumRuntime, ctx: &TestContext) -> Result<Value> {
        json_of(&deployment(rt, &ctx.ctx())?)
    }

    fn applied_hash(d: &Value) -> Result<String> {
        Ok(d["metadata"]["annotations"][APPLIED_HASH_ANNOTATION]
            .as_str()
            .ok_or("no applied hash")?
            .to_string())
    }

    /// What the pods are built from, as the Deployment's annotation says.
    fn applied_from(rt: &TrussiumRuntime, ctx: &TestContext) -> Result<String> {
        Ok(
            built(rt, ctx)?["metadata"]["annotations"][APPLIED_FROM_ANNOTATION]
                .as_str()
                .ok_or("no applied-from annotation")?
                .to_string(),
        )
    }

    #[test]
    fn applied_from_follows_what_the_pods_are_built_from_and_nothing_else() -> Result {
        let ctx = context();
        let base = fixed_scale()?;
        let before = applied_from(&base, &ctx)?;
        // What only other objects use, and what the API server keeps.
        let mut rt = base.clone();
        rt.spec.replicas = 7;
        rt.spec.service.port = 9001;
        rt.spec.network_policy = None;
        rt.metadata.generation = Some(42);
        assert_eq!(applied_from(&rt, &ctx)?, before);
        // The owner's: the image, a restart, a rotated Secret.
        let mut rt = base.clone();
        rt.spec.image.tag = Some("v9".into());
        assert_ne!(applied_from(&rt, &ctx)?, before);
        let mut rt = base.clone();
        rt.metadata.annotations.get_or_insert_default().insert(
            trussium_api::restart::RESTARTED_AT.into(),
            "2026-12-04T10:00:00Z".into(),
        );
        assert_ne!(applied_from(&rt, &ctx)?, before);
        let rotated = context().with_secrets(&[("openai-credentials", "99")]);
        assert_ne!(applied_from(&base, &rotated)?, before);
        Ok(())
    }

    #[test]
    fn a_deployment_waiting_for_its_turn_is_scaled_but_keeps_its_template() -> Result {
        let ctx = context();
        let mut rt = fixed_scale()?;
        let observed = deployment(&rt, &ctx.ctx())?;
        rt.spec.replicas = 5;
        let mut desired = deployment(&rt, &ctx.ctx())?;
        if let Some(spec) = desired.spec.as_mut() {
            spec.template
                .metadata
                .get_or_insert_default()
                .labels
                .get_or_insert_default()
                .insert("new-default".into(), "on".into());
        }
        hash::restamp(&mut desired)?;
        let held = with_template_of(&desired, &observed).ok_or("no spec")?;
        let spec = held.spec.as_ref().ok_or("no spec")?;
        assert_eq!(spec.replicas, Some(5));
        assert_eq!(
            Some(&spec.template),
            observed.spec.as_ref().map(|s| &s.template)
        );
        // Stamped for what it is: once applied, the same again is no change.
        assert_eq!(crate::pure::drift::needs_apply(&held, &held), None);
        assert_ne!(
            applied_hash(&json_of(&held)?)?,
            applied_hash(&json_of(&desired)?)?
        );
        Ok(())
    }

    /// `full` with autoscaling off, so replicas are spec.replicas (3).
    fn fixed_scale() -> Result<TrussiumRuntime> {
        let mut rt = fixture("full")?;
        rt.spec.autoscaling = None;
        Ok(rt)
    }

    #[test]
    fn deployment_spec() -> Result {
        let ctx = TestContext {
            config: OperatorConfig {
                progress_deadline_seconds: 42,
                ..OperatorConfig::default()
            },
            ..context()
        };
        let d = built(&fixture("minimal")?, &ctx)?;
        assert_eq!(d["apiVersion"], "apps/v1");
        assert_eq!(d["kind"], "Deployment");
        let spec = &d["spec"];
        assert_eq!(spec["replicas"], 1);
        assert_eq!(spec["progressDeadlineSeconds"], 42);
        assert_eq!(
            spec["strategy"],
            json!({"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 0, "maxSurge": "25%"}})
        );
        assert_eq!(
            spec["template"],
            json_of(&pod::pod_template(&fixture("minimal")?, &ctx.ctx())?)?
        );
        let mut keys: Vec<_> = spec.as_object().ok_or("no spec")?.keys().collect();
        keys.sort();
        assert_eq!(
            keys,
            [
                "progressDeadlineSeconds",
                "replicas",
                "selector",
                "strategy",
                "template"
            ]
        );
        Ok(())
    }

    #[test]
    fn default_progress_deadline_is_600() -> Result {
        let d = built(&fixture("minimal")?, &context())?;
        assert_eq!(d["spec"]["progressDeadlineSeconds"], 600);
        Ok(())
    }

    #[test]
    fn selector_is_only_the_selector_labels() -> Result {
        let d = built(&fixture("full")?, &context())?;
        let selector = json!({"matchLabels": {
            "app.kubernetes.io/name": "trussium",
            "app.kubernetes.io/instance": "private-ai",
        }});
        assert_eq!(d["spec"]["selector"], selector);
        // The template's labels must match it, whatever podMetadata says.
        let template_labels = &d["spec"]["template"]["metadata"]["labels"];
        for (k, v) in selector["matchLabels"].as_object().ok_or("no labels")? {
            assert_eq!(&template_labels[k], v, "{k}");
        }
        Ok(())
    }

    #[test]
    fn scaled_to_zero_is_kept() -> Result {
        let d = built(&fixture("digest")?, &context())?;
        assert_eq!(d["spec"]["replicas"], 0);
        Ok(())
    }

    #[test]
    fn replicas_follow_the_spec_without_autoscaling() -> Result {
        let rt = fixed_scale()?;
        assert_eq!(replicas(&rt, &context().ctx())?, 3);
        // Whatever the Deployment has now (an HPA left over, a manual scale).
        let observed = context().with_observed_replicas(Some(7));
        assert_eq!(replicas(&rt, &observed.ctx())?, 3);

        let mut disabled = fixture("full")?;
        if let Some(a) = disabled.spec.autoscaling.as_mut() {
            a.enabled = false;
        }
        assert_eq!(replicas(&disabled, &observed.ctx())?, 3);
        Ok(())
    }

    #[test]
    fn autoscaling_follows_the_observed_replicas() -> Result {
        let rt = fixture("full")?; // min 2, max 10, spec.replicas 3
        for observed in [2, 3, 6, 10] {
            let ctx = context().with_observed_replicas(Some(observed));
            assert_eq!(replicas(&rt, &ctx.ctx())?, observed);
            assert_eq!(built(&rt, &ctx)?["spec"]["replicas"], observed);
        }
        Ok(())
    }

    #[test]
    fn autoscaling_without_a_deployment_starts_from_spec_replicas_clamped() -> Result {
        let mut rt = fixture("full")?; // min 2, max 10
        for (spec_replicas, expected) in [(0, 2), (1, 2), (2, 2), (3, 3), (10, 10), (20, 10)] {
            rt.spec.replicas = spec_replicas;
            assert_eq!(
                replicas(&rt, &context().ctx())?,
                expected,
                "{spec_replicas}"
            );
        }
        Ok(())
    }

    #[test]
    fn autoscaling_clamps_an_observed_count_outside_the_bounds() -> Result {
        let rt = fixture("full")?; // min 2, max 10
        // A scaled-to-zero runtime is lifted to minReplicas: an HPA never
        // scales a target at zero.
        for (observed, expected) in [(0, 2), (1, 2), (11, 10), (50, 10)] {
            let ctx = context().with_observed_replicas(Some(observed));
            assert_eq!(replicas(&rt, &ctx.ctx())?, expected, "{observed}");
        }
        Ok(())
    }

    #[test]
    fn enabling_autoscaling_keeps_a_running_count() -> Result {
        // Running at 5 with spec.replicas 5, then autoscaling is enabled.
        let mut rt = fixture("full")?;
        rt.spec.replicas = 5;
        let ctx = context().with_observed_replicas(Some(5));
        assert_eq!(built(&rt, &ctx)?["spec"]["replicas"], 5);
        Ok(())
    }

    #[test]
    fn applied_hash_ignores_replicas_while_autoscaling() -> Result {
        let rt = fixture("full")?;
        let at = |n| -> Result<String> {
            applied_hash(&built(&rt, &context().with_observed_replicas(n))?)
        };
        let h = at(None)?;
        assert_eq!(at(Some(4))?, h);
        assert_eq!(at(Some(9))?, h);

        // Anything else still counts.
        let mut other = rt.clone();
        other.spec.image.tag = Some("v2".into());
        assert_ne!(applied_hash(&built(&other, &context())?)?, h);
        Ok(())
    }

    #[test]
    fn applied_hash_covers_replicas_without_autoscaling() -> Result {
        let mut rt = fixed_scale()?;
        let three = applied_hash(&built(&rt, &context())?)?;
        rt.spec.replicas = 4;
        assert_ne!(applied_hash(&built(&rt, &context())?)?, three);
        // Turning autoscaling off changes the hash even at the same count.
        let mut hpa = fixture("full")?;
        hpa.spec.replicas = 3;
        let on = applied_hash(&built(&hpa, &context().with_observed_replicas(Some(3)))?)?;
        assert_ne!(on, three);
        Ok(())
    }

    #[test]
    fn applied_hash_is_stable() -> Result {
        for rt in [fixture("minimal")?, fixture("full")?, fixture("digest")?] {
            let ctx = context()
                .with_secrets(&[("openai-credentials", "7")])
                .with_observed_replicas(Some(3));
            assert_eq!(
                applied_hash(&built(&rt, &ctx)?)?,
                applied_hash(&built(&rt, &ctx)?)?
            );
        }
        Ok(())
    }

    #[test]
    fn secret_rotation_changes_the_template_and_the_applied_hash() -> Result {
        let rt = fixture("full")?;
        let before = built(&rt, &context().with_secrets(&[("openai-credentials", "1")]))?;
        let after = built(&rt, &context().with_secrets(&[("openai-credentials", "2")]))?;
        let config_hash = |d: &Value| {
            d["spec"]["template"]["metadata"]["annotations"][CONFIG_HASH_ANNOTATION].clone()
        };
        assert_ne!(config_hash(&before), config_hash(&after));
        assert_ne!(applied_hash(&before)?, applied_hash(&after)?);
        Ok(())
    }
}
