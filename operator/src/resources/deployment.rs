//! The runtime Deployment.

use k8s_openapi::api::apps::v1::{
    Deployment, DeploymentSpec, DeploymentStrategy, RollingUpdateDeployment,
};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use trussium_api::TrussiumRuntime;

use super::{
    BuildContext, BuildError, autoscaling_bounds, hash, object_meta, pod, runtime_name, selector,
};

/// The runtime Deployment.
///
/// Its applied hash leaves out `spec.replicas` while autoscaling is enabled:
/// there the value follows the HPA, and an HPA decision must not look like a
/// change the operator has to apply.
pub fn deployment(rt: &TrussiumRuntime, ctx: &BuildContext) -> Result<Deployment, BuildError> {
    let autoscaling = autoscaling_bounds(rt)?.is_some();
    let mut deployment = Deployment {
        metadata: object_meta(rt)?,
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
        let mut without_replicas = deployment.clone();
        if let Some(spec) = without_replicas.spec.as_mut() {
            spec.replicas = None;
        }
        hash::applied_hash(&without_replicas)?
    } else {
        hash::applied_hash(&deployment)?
    };
    hash::stamp(&mut deployment, hash);
    Ok(deployment)
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
