//! The CEL rules the API server enforces, each with its message. The
//! operator reports a stored object that breaks one (kept by CEL ratcheting
//! from before the rule existed) with the same message ([`super::problems`]).
//!
//! Kubernetes versions: every function used here is in the CEL base
//! environment of Kubernetes 1.28 or older: `matches`, `size`, `all`, `in`,
//! `startsWith` (1.25, with CRD validation rules), `string()` (1.25), and the
//! quantity library (`isQuantity`, `quantity`, `isLessThan`, `compareTo`: 1.28;
//! stored CRDs may use it from 1.29). `\p{Cc}` is RE2 syntax, which
//! `matches` has always used. `metadata.name` is readable at the root since
//! 1.25.

/// A rule and the message the API server gives when it fails.
pub struct Rule {
    pub cel: &'static str,
    pub message: &'static str,
}

/// CEL for "`$s` is a qualified name (label key)": an optional DNS-subdomain
/// prefix and '/', then a name of at most 63 characters.
macro_rules! qualified {
    ($s:literal) => {
        concat!(
            "size(", $s, ") <= 317 && ", $s,
            r".matches('^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$')"
        )
    };
}

/// CEL for "`$s` is a label value".
macro_rules! label_value {
    ($s:literal) => {
        concat!(
            $s,
            r".matches('^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$')"
        )
    };
}

/// CEL for "`$s` is a DNS-1123 subdomain" (at most 253 characters is the
/// field's maxLength).
macro_rules! subdomain {
    ($s:literal) => {
        concat!(
            $s,
            r".matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$')"
        )
    };
}

// --- metadata.name (at the root of the object) ---

pub const NAME: Rule = Rule {
    cel: r"size(self.metadata.name) <= 63 && self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')",
    message: "metadata.name must be a DNS-1035 label, as the runtime's Service name and label values require: at most 63 lowercase letters, digits and '-', starting with a letter and ending with a letter or digit (no dots)",
};

pub const NAME_NOT_DEFAULT: Rule = Rule {
    cel: "self.metadata.name != 'default'",
    message: "metadata.name must not be default: the runtime's ServiceAccount has the runtime's name, and default is the namespace's own ServiceAccount",
};

/// Not a CEL rule: a rule cannot read the namespace. Checked by the
/// operator only (see `problems`).
pub const NAME_NOT_KUBERNETES_IN_DEFAULT: Rule = Rule {
    cel: "",
    message: "metadata.name must not be kubernetes in namespace default: the runtime's Service would be the API server's own",
};

// --- Secret references ---

pub const PULL_SECRET_NAME: Rule = Rule {
    cel: subdomain!("self"),
    message: "imagePullSecrets[].name must be a Secret name: lowercase letters, digits, '-' and '.', each dot-separated part starting and ending with a letter or digit",
};

pub const CREDENTIALS_NAME: Rule = Rule {
    cel: subdomain!("self"),
    message: "provider.credentialsSecretRef.name must be a Secret name: lowercase letters, digits, '-' and '.', each dot-separated part starting and ending with a letter or digit",
};

pub const CREDENTIALS_KEY: Rule = Rule {
    cel: r"self.matches('^[-._a-zA-Z0-9]+$') && self != '.' && !self.startsWith('..')",
    message: "provider.credentialsSecretRef.key must be a Secret key: letters, digits, '-', '_' and '.', not '.' and not starting with '..'",
};

// --- image.repository (one message per mistake: the shape rule stays quiet
// when one of the two more specific rules already explains the problem) ---

pub const REPOSITORY_NO_DIGEST: Rule = Rule {
    cel: "!self.contains('@')",
    message: "image.repository must not contain a digest: put it in image.digest",
};

pub const REPOSITORY_NO_TAG: Rule = Rule {
    cel: "self.contains('@') || !self.matches(':[^/]*$')",
    message: "image.repository must not contain a tag: put it in image.tag",
};

/// The regular expression of [`REPOSITORY_NAME`].
pub const REPOSITORY_PATTERN: &str = "^([a-zA-Z0-9]([a-zA-Z0-9.-]*[a-zA-Z0-9])?(:[0-9]+)?/)?[a-z0-9]+([._-]+[a-z0-9]+)*(/[a-z0-9]+([._-]+[a-z0-9]+)*)*$";

pub const REPOSITORY_NAME: Rule = Rule {
    cel: concat!(
        "self.contains('@') || self.matches(':[^/]*$') || self.matches('",
        "^([a-zA-Z0-9]([a-zA-Z0-9.-]*[a-zA-Z0-9])?(:[0-9]+)?/)?[a-z0-9]+([._-]+[a-z0-9]+)*(/[a-z0-9]+([._-]+[a-z0-9]+)*)*$",
        "')"
    ),
    message: "image.repository must be an image name such as ghcr.io/trussiumhq/trussium (lowercase path, optional registry host:port)",
};

// --- provider (rules of the provider object: see ProviderSpec) ---

pub const MODEL_PRINTABLE: Rule = Rule {
    cel: r"!self.model.matches('\\p{Cc}')",
    message: "provider.model must be printable: no control characters (newline, tab, ESC, ...)",
};

pub const BASE_URL_SCHEME: Rule = Rule {
    cel: r"!has(self.baseURL) || self.baseURL.matches('^https?://[^\\s]+$')",
    message: "provider.baseURL must be an http:// or https:// URL",
};

pub const BASE_URL_PRINTABLE: Rule = Rule {
    cel: r"!has(self.baseURL) || !self.baseURL.matches('\\p{Cc}')",
    message: "provider.baseURL must not contain control characters",
};

pub const BASE_URL_NO_USER_INFO: Rule = Rule {
    cel: r"!has(self.baseURL) || !self.baseURL.matches('^[^/?#]*//[^/?#]*@')",
    message: "provider.baseURL must not contain user information (user:password@): store the credential in a Secret and reference it with provider.credentialsSecretRef",
};

// --- autoscaling ---

pub const AUTOSCALING_MAX_REPLICAS: Rule = Rule {
    cel: "!self.enabled || has(self.maxReplicas)",
    message: "autoscaling.enabled requires autoscaling.maxReplicas",
};

pub const AUTOSCALING_MAX_AT_LEAST_MIN: Rule = Rule {
    cel: "!has(self.maxReplicas) || self.maxReplicas >= self.minReplicas",
    message: "autoscaling.maxReplicas must be at least autoscaling.minReplicas",
};

// --- resources ---

/// Each quantity of `limits` and `requests`, as OpenAPI checks it: this
/// `pattern` on a string (`resource.ParseQuantity`'s grammar without the
/// sign `-`: controller-gen's pattern for a Quantity allows it) and
/// `minimum: 0` on a number. Not CEL: Kubernetes 1.33 estimates the cost of
/// `string(self)` on an int-or-string without its `maxLength`, and refused
/// the CRD with `isQuantity` rules on these maps (4 to 8 times over the
/// budget, checked on 1.33.13).
pub const QUANTITY_PATTERN: &str = r"^\+?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$";

/// The operator's message for a stored quantity [`QUANTITY_PATTERN`] refuses
/// (the API server's own quotes the pattern).
pub const QUANTITY_MESSAGE: &str =
    "resources: a quantity must be a non-negative amount like 500m, 2, 1.5, 256Mi or 1Gi";

/// The API server compares request and limit of cpu, memory and
/// ephemeral-storage only: on Kubernetes 1.33 the rule over every key of
/// `requests` costs 16 times the budget (the same estimate as above), over
/// these three it fits. The operator compares every resource
/// ([`super::problems`]); the Deployment would be refused anyway.
pub const REQUESTS_WITHIN_LIMITS: Rule = Rule {
    cel: "!has(self.requests) || !has(self.limits) || ['cpu', 'memory', 'ephemeral-storage'].all(k, !(k in self.requests) || !(k in self.limits) || !isQuantity(string(self.requests[k])) || !isQuantity(string(self.limits[k])) || quantity(string(self.requests[k])).compareTo(quantity(string(self.limits[k]))) <= 0)",
    message: "resources.requests must not exceed resources.limits for the same resource",
};

// --- tolerations ---

pub const TOLERATION_OPERATOR: Rule = Rule {
    cel: "!has(self.operator) || self.operator in ['', 'Equal', 'Exists']",
    message: "scheduling.tolerations[].operator must be Exists or Equal (the default)",
};

pub const TOLERATION_EFFECT: Rule = Rule {
    cel: "!has(self.effect) || self.effect in ['', 'NoSchedule', 'PreferNoSchedule', 'NoExecute']",
    message: "scheduling.tolerations[].effect must be NoSchedule, PreferNoSchedule or NoExecute (or empty: every effect)",
};

pub const TOLERATION_EXISTS_NO_VALUE: Rule = Rule {
    cel: "!has(self.operator) || self.operator != 'Exists' || !has(self.value) || self.value == ''",
    message: "scheduling.tolerations[]: operator Exists takes no value",
};

pub const TOLERATION_EMPTY_KEY: Rule = Rule {
    cel: "(has(self.key) && self.key != '') || (has(self.operator) && self.operator == 'Exists')",
    message: "scheduling.tolerations[]: an empty key (every taint) requires operator Exists",
};

pub const TOLERATION_SECONDS: Rule = Rule {
    cel: "!has(self.tolerationSeconds) || (has(self.effect) && self.effect == 'NoExecute')",
    message: "scheduling.tolerations[]: tolerationSeconds requires effect NoExecute",
};

pub const TOLERATION_KEY: Rule = Rule {
    cel: concat!("self == '' || (", qualified!("self"), ")"),
    message: "scheduling.tolerations[].key must be a label key: an optional DNS subdomain prefix and '/', then at most 63 letters, digits, '-', '_' or '.', beginning and ending with a letter or digit",
};

pub const TOLERATION_VALUE: Rule = Rule {
    cel: label_value!("self"),
    message: "scheduling.tolerations[].value must be a label value: at most 63 letters, digits, '-', '_' or '.', beginning and ending with a letter or digit",
};

// --- label selectors (networkPolicy, affinity) and node selectors ---

pub const SELECTOR_OPERATOR: Rule = Rule {
    cel: "self.operator in ['In', 'NotIn', 'Exists', 'DoesNotExist']",
    message: "label selector: matchExpressions[].operator must be In, NotIn, Exists or DoesNotExist",
};

pub const SELECTOR_VALUES: Rule = Rule {
    cel: "self.operator in ['In', 'NotIn'] ? (has(self.values) && size(self.values) > 0) : (!(self.operator in ['Exists', 'DoesNotExist']) || !has(self.values) || size(self.values) == 0)",
    message: "label selector: matchExpressions[].values must be set for In and NotIn, and empty for Exists and DoesNotExist",
};

pub const SELECTOR_KEY: Rule = Rule {
    cel: qualified!("self"),
    message: "label selector: matchExpressions[].key must be a label key: an optional DNS subdomain prefix and '/', then at most 63 letters, digits, '-', '_' or '.', beginning and ending with a letter or digit",
};

pub const SELECTOR_VALUE: Rule = Rule {
    cel: label_value!("self"),
    message: "label selector: matchExpressions[].values[] must be label values: at most 63 letters, digits, '-', '_' or '.', beginning and ending with a letter or digit",
};

pub const MATCH_LABELS: Rule = Rule {
    cel: crate::labels::LABELS_SYNTAX_CEL,
    message: "label selector: matchLabels must be valid Kubernetes labels: a key is an optional DNS subdomain prefix and '/' followed by a name of at most 63 letters, digits, '-', '_' or '.'; a value has at most 63 of those characters; names and non-empty values begin and end with a letter or digit",
};

pub const NODE_SELECTOR: Rule = Rule {
    cel: crate::labels::LABELS_SYNTAX_CEL,
    message: "scheduling.nodeSelector must be valid Kubernetes labels: a key is an optional DNS subdomain prefix and '/' followed by a name of at most 63 letters, digits, '-', '_' or '.'; a value has at most 63 of those characters; names and non-empty values begin and end with a letter or digit",
};

pub const NODE_OPERATOR: Rule = Rule {
    cel: "self.operator in ['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt']",
    message: "node selector: matchExpressions[].operator must be In, NotIn, Exists, DoesNotExist, Gt or Lt",
};

pub const NODE_VALUES: Rule = Rule {
    cel: r"self.operator in ['In', 'NotIn'] ? (has(self.values) && size(self.values) > 0) : self.operator in ['Gt', 'Lt'] ? (has(self.values) && size(self.values) == 1 && self.values[0].matches('^[-+]?[0-9]+$')) : (!(self.operator in ['Exists', 'DoesNotExist']) || !has(self.values) || size(self.values) == 0)",
    message: "node selector: matchExpressions[].values must be set for In and NotIn, one integer for Gt and Lt, and empty for Exists and DoesNotExist",
};

pub const NODE_KEY: Rule = Rule {
    cel: qualified!("self"),
    message: "node selector: matchExpressions[].key must be a label key: an optional DNS subdomain prefix and '/', then at most 63 letters, digits, '-', '_' or '.', beginning and ending with a letter or digit",
};

pub const NODE_FIELD: Rule = Rule {
    cel: "self.key == 'metadata.name' && self.operator in ['In', 'NotIn'] && has(self.values) && size(self.values) == 1",
    message: "node selector: matchFields[] supports key metadata.name only, with operator In or NotIn and exactly one value",
};

pub const TOPOLOGY_KEY: Rule = Rule {
    cel: qualified!("self"),
    message: "affinity: topologyKey must be a label key, such as kubernetes.io/hostname or topology.kubernetes.io/zone",
};

pub const AFFINITY_NAMESPACE: Rule = Rule {
    cel: r"size(self) <= 63 && self.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')",
    message: "affinity: namespaces[] must be namespace names: at most 63 lowercase letters, digits and '-', beginning and ending with a letter or digit",
};

/// Not a CEL rule: `minimum: 1` and `maximum: 100` on every affinity
/// `weight`. The message is the operator's.
pub const WEIGHT: Rule = Rule {
    cel: "",
    message: "affinity: weight must be between 1 and 100",
};
