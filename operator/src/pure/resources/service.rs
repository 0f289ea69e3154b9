//! The Service in front of the runtime pods.

use k8s_openapi::api::core::v1::{Service, ServicePort, ServiceSpec};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use trussium_api::TrussiumRuntime;

use super::{
    BuildContext, BuildError, HTTP_PORT, HTTP_PORT_NAME, hash, object_meta, runtime_name,
    selector_labels,
};

/// The runtime Service: type and port from `spec.service`, always targeting the
/// runtime's HTTP port.
pub fn service(rt: &TrussiumRuntime, _ctx: &BuildContext) -> Result<Service, BuildError> {
    let name = runtime_name(rt)?;
    hash::stamped(Service {
        metadata: object_meta(rt)?,
        spec: Some(ServiceSpec {
            type_: Some(rt.spec.service.type_.as_str().to_string()),
            selector: Some(selector_labels(name)),
            ports: Some(vec![ServicePort {
                name: Some(HTTP_PORT_NAME.to_string()),
                protocol: Some("TCP".to_string()),
                port: rt.spec.service.port,
                target_port: Some(IntOrString::Int(HTTP_PORT)),
                ..ServicePort::default()
            }]),
            ..ServiceSpec::default()
        }),
        ..Service::default()
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::tests::{Result, context, fixture, json_of};
    use super::*;

    #[test]
    fn defaults_to_cluster_ip_on_9000() -> Result {
        let svc = json_of(&service(&fixture("minimal")?, &context().ctx())?)?;
        assert_eq!(svc["apiVersion"], "v1");
        assert_eq!(svc["kind"], "Service");
        assert_eq!(
            svc["spec"],
            json!({
                "type": "ClusterIP",
                "selector": {
                    "app.kubernetes.io/name": "trussium",
                    "app.kubernetes.io/instance": "private-ai",
                },
                "ports": [{"name": "http", "protocol": "TCP", "port": 9000, "targetPort": 9000}],
            })
        );
        Ok(())
    }

    #[test]
    fn type_and_port_follow_the_spec_target_stays_9000() -> Result {
        let svc = json_of(&service(&fixture("full")?, &context().ctx())?)?;
        assert_eq!(svc["spec"]["type"], "NodePort");
        assert_eq!(
            svc["spec"]["ports"],
            json!([{"name": "http", "protocol": "TCP", "port": 8080, "targetPort": 9000}])
        );
        // nodePort is left to the API server to allocate.
        assert!(svc["spec"]["ports"][0].get("nodePort").is_none());
        Ok(())
    }

    #[test]
    fn load_balancer() -> Result {
        let mut rt = fixture("minimal")?;
        rt.spec.service.type_ = trussium_api::ServiceType::LoadBalancer;
        let svc = json_of(&service(&rt, &context().ctx())?)?;
        assert_eq!(svc["spec"]["type"], "LoadBalancer");
        Ok(())
    }
}
