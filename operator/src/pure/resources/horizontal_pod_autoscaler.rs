//! The autoscaling/v2 HorizontalPodAutoscaler, while `spec.autoscaling.enabled`.

use k8s_openapi::api::autoscaling::v2::{
    CrossVersionObjectReference, HorizontalPodAutoscaler, HorizontalPodAutoscalerSpec, MetricSpec,
    MetricTarget, ResourceMetricSource,
};
use trussium_api::TrussiumRuntime;

use super::{BuildContext, BuildError, autoscaling_bounds, hash, object_meta, runtime_name};

/// The runtime's HPA on average CPU utilization, or `None` when autoscaling is
/// disabled (the reconciler then deletes an existing one).
pub fn horizontal_pod_autoscaler(
    rt: &TrussiumRuntime,
    _ctx: &BuildContext,
) -> Result<Option<HorizontalPodAutoscaler>, BuildError> {
    let (Some(spec), Some((min, max))) = (rt.spec.autoscaling.as_ref(), autoscaling_bounds(rt)?)
    else {
        return Ok(None);
    };
    let hpa = HorizontalPodAutoscaler {
        metadata: object_meta(rt)?,
        spec: Some(HorizontalPodAutoscalerSpec {
            scale_target_ref: CrossVersionObjectReference {
                api_version: Some("apps/v1".to_string()),
                kind: "Deployment".to_string(),
                name: runtime_name(rt)?.to_string(),
            },
            min_replicas: Some(min),
            max_replicas: max,
            metrics: Some(vec![MetricSpec {
                type_: "Resource".to_string(),
                resource: Some(ResourceMetricSource {
                    name: "cpu".to_string(),
                    target: MetricTarget {
                        type_: "Utilization".to_string(),
                        average_utilization: Some(spec.target_cpu_utilization_percentage),
                        ..MetricTarget::default()
                    },
                }),
                ..MetricSpec::default()
            }]),
            behavior: None,
        }),
        status: None,
    };
    hash::stamped(hpa).map(Some)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::tests::{Result, context, fixture, json_of};
    use super::*;

    #[test]
    fn absent_unless_enabled() -> Result {
        let ctx = context();
        assert_eq!(
            horizontal_pod_autoscaler(&fixture("minimal")?, &ctx.ctx())?,
            None
        );

        let mut rt = fixture("full")?;
        if let Some(a) = rt.spec.autoscaling.as_mut() {
            a.enabled = false;
        }
        assert_eq!(horizontal_pod_autoscaler(&rt, &ctx.ctx())?, None);
        Ok(())
    }

    #[test]
    fn targets_the_deployment_on_cpu() -> Result {
        let hpa =
            horizontal_pod_autoscaler(&fixture("full")?, &context().ctx())?.ok_or("no hpa")?;
        let hpa = json_of(&hpa)?;
        assert_eq!(hpa["apiVersion"], "autoscaling/v2");
        assert_eq!(hpa["kind"], "HorizontalPodAutoscaler");
        assert_eq!(
            hpa["spec"],
            json!({
                "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "private-ai"},
                "minReplicas": 2,
                "maxReplicas": 10,
                "metrics": [{
                    "type": "Resource",
                    "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 70}},
                }],
            })
        );
        Ok(())
    }

    #[test]
    fn defaults_apply_when_omitted() -> Result {
        let rt = super::super::tests::runtime(
            r"
            metadata: {name: rt, namespace: ns, uid: u-1}
            spec:
              image: {repository: ghcr.io/trussiumhq/trussium, tag: v1}
              provider: {type: ollama, model: m}
              resources: {requests: {cpu: 100m}}
              autoscaling: {enabled: true, maxReplicas: 3}
            ",
        )?;
        let hpa = json_of(&horizontal_pod_autoscaler(&rt, &context().ctx())?.ok_or("no hpa")?)?;
        assert_eq!(hpa["spec"]["minReplicas"], 1);
        assert_eq!(hpa["spec"]["maxReplicas"], 3);
        assert_eq!(
            hpa["spec"]["metrics"][0]["resource"]["target"]["averageUtilization"],
            80
        );
        Ok(())
    }

    #[test]
    fn enabled_without_max_is_an_error() -> Result {
        let mut rt = fixture("full")?;
        if let Some(a) = rt.spec.autoscaling.as_mut() {
            a.max_replicas = None;
        }
        assert!(matches!(
            horizontal_pod_autoscaler(&rt, &context().ctx()),
            Err(BuildError::MissingMaxReplicas)
        ));
        Ok(())
    }
}
