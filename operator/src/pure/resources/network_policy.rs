//! The ingress NetworkPolicy, while `spec.networkPolicy.enabled`.

use k8s_openapi::api::networking::v1::{
    NetworkPolicy, NetworkPolicyIngressRule, NetworkPolicyPeer, NetworkPolicyPort,
    NetworkPolicySpec,
};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use trussium_api::{NetworkPolicyIngress, TrussiumRuntime};

use super::{BuildContext, BuildError, HTTP_PORT, hash, object_meta, runtime_name, selector};

/// The runtime's NetworkPolicy, or `None` when it is disabled (the reconciler
/// then deletes an existing one).
///
/// Ingress only: egress stays open so the runtime can resolve DNS and reach its
/// provider. Each spec entry becomes one rule allowing TCP to the HTTP port.
/// Should an enabled policy have no entries (the API server refuses that), the
/// policy allows no ingress at all: enabled means "only the listed sources".
pub fn network_policy(
    rt: &TrussiumRuntime,
    _ctx: &BuildContext,
) -> Result<Option<NetworkPolicy>, BuildError> {
    let Some(spec) = rt.spec.network_policy.as_ref().filter(|np| np.enabled) else {
        return Ok(None);
    };
    let rules: Vec<NetworkPolicyIngressRule> = spec.ingress.iter().map(rule).collect();
    let policy = NetworkPolicy {
        metadata: object_meta(rt)?,
        spec: Some(NetworkPolicySpec {
            pod_selector: Some(selector(runtime_name(rt)?)),
            policy_types: Some(vec!["Ingress".to_string()]),
            ingress: (!rules.is_empty()).then_some(rules),
            egress: None,
        }),
    };
    hash::stamped(policy).map(Some)
}

/// One peer holding both selectors, so they AND: pods matching `podSelector`
/// in namespaces matching `namespaceSelector`.
fn rule(entry: &NetworkPolicyIngress) -> NetworkPolicyIngressRule {
    NetworkPolicyIngressRule {
        from: Some(vec![NetworkPolicyPeer {
            namespace_selector: Some(entry.namespace_selector.clone()),
            pod_selector: entry.pod_selector.clone(),
            ip_block: None,
        }]),
        ports: Some(vec![NetworkPolicyPort {
            protocol: Some("TCP".to_string()),
            port: Some(IntOrString::Int(HTTP_PORT)),
            end_port: None,
        }]),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::tests::{Result, context, fixture, json_of};
    use super::*;

    #[test]
    fn absent_unless_enabled() -> Result {
        let ctx = context();
        assert_eq!(network_policy(&fixture("minimal")?, &ctx.ctx())?, None);

        let mut rt = fixture("full")?;
        if let Some(np) = rt.spec.network_policy.as_mut() {
            np.enabled = false;
        }
        assert_eq!(network_policy(&rt, &ctx.ctx())?, None);
        Ok(())
    }

    #[test]
    fn one_tcp_9000_rule_per_entry() -> Result {
        let np = network_policy(&fixture("full")?, &context().ctx())?.ok_or("no policy")?;
        let np = json_of(&np)?;
        assert_eq!(np["apiVersion"], "networking.k8s.io/v1");
        assert_eq!(np["kind"], "NetworkPolicy");
        assert_eq!(
            np["spec"],
            json!({
                "podSelector": {"matchLabels": {
                    "app.kubernetes.io/name": "trussium",
                    "app.kubernetes.io/instance": "private-ai",
                }},
                "policyTypes": ["Ingress"],
                "ingress": [
                    {
                        "from": [{
                            "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "clients"}},
                            "podSelector": {"matchLabels": {"app.kubernetes.io/component": "gateway"}},
                        }],
                        "ports": [{"protocol": "TCP", "port": 9000}],
                    },
                    {
                        "from": [{
                            "namespaceSelector": {"matchExpressions": [{
                                "key": "team", "operator": "In", "values": ["ai", "search"],
                            }]},
                        }],
                        "ports": [{"protocol": "TCP", "port": 9000}],
                    },
                ],
            })
        );
        Ok(())
    }

    #[test]
    fn enabled_without_entries_allows_nothing() -> Result {
        let mut rt = fixture("full")?;
        if let Some(np) = rt.spec.network_policy.as_mut() {
            np.ingress.clear();
        }
        let np = network_policy(&rt, &context().ctx())?.ok_or("no policy")?;
        let np = json_of(&np)?;
        assert_eq!(np["spec"]["policyTypes"], json!(["Ingress"]));
        assert!(np["spec"].get("ingress").is_none());
        Ok(())
    }
}
