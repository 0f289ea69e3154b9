//! Label keys the operator owns on everything it manages.

pub const NAME: &str = "app.kubernetes.io/name";
pub const INSTANCE: &str = "app.kubernetes.io/instance";
pub const MANAGED_BY: &str = "app.kubernetes.io/managed-by";
pub const COMPONENT: &str = "app.kubernetes.io/component";
/// Prefix of every operator-reserved key.
pub const RESERVED_PREFIX: &str = "runtime.trussium.io/";

/// Values of the well-known labels.
pub const NAME_VALUE: &str = "trussium";
pub const MANAGED_BY_VALUE: &str = "trussium-operator";
pub const COMPONENT_VALUE: &str = "runtime";

/// Keys users may not set through podMetadata.labels.
pub const RESERVED: [&str; 4] = [NAME, INSTANCE, MANAGED_BY, COMPONENT];

/// The CEL form of [`is_reserved`], enforced by the API server.
pub const RESERVED_LABELS_CEL: &str = "self.all(k, !(k in ['app.kubernetes.io/name', 'app.kubernetes.io/instance', 'app.kubernetes.io/managed-by', 'app.kubernetes.io/component']) && !k.startsWith('runtime.trussium.io/'))";

/// CEL: the map key `k` is a qualified name (`[prefix/]name`), as Kubernetes
/// requires of label and annotation keys: an optional DNS-subdomain prefix and
/// a name of at most 63 characters.
macro_rules! qualified_key_cel {
    () => {
        "size(k) <= 317 && k.matches('^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$')"
    };
}

/// The CEL rule for label syntax (keys and values), enforced by the API
/// server so that a bad label is refused up front instead of breaking the
/// Deployment later.
pub const LABELS_SYNTAX_CEL: &str = concat!(
    "self.all(k, ",
    qualified_key_cel!(),
    " && self[k].matches('^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$'))"
);

/// The CEL rule refusing operator-owned annotation keys (the operator writes
/// `runtime.trussium.io/config-hash` on the pod template itself).
pub const RESERVED_ANNOTATIONS_CEL: &str = "self.all(k, !k.startsWith('runtime.trussium.io/'))";

/// The CEL rule for annotation keys.
pub const ANNOTATION_KEYS_CEL: &str = concat!("self.all(k, ", qualified_key_cel!(), ")");

/// Whether a label key is owned by the operator.
pub fn is_reserved(key: &str) -> bool {
    RESERVED.contains(&key) || key.starts_with(RESERVED_PREFIX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserved_keys() {
        for key in RESERVED {
            assert!(is_reserved(key), "{key}");
        }
        assert!(is_reserved("runtime.trussium.io/anything"));
        assert!(!is_reserved("team"));
        assert!(!is_reserved("app.kubernetes.io/version"));
        assert!(!is_reserved("example.com/runtime.trussium.io/x"));
    }

    #[test]
    fn cel_rule_names_every_reserved_key() {
        for key in RESERVED {
            assert!(RESERVED_LABELS_CEL.contains(&format!("'{key}'")), "{key}");
        }
        assert!(RESERVED_LABELS_CEL.contains(RESERVED_PREFIX));
        assert!(RESERVED_ANNOTATIONS_CEL.contains(RESERVED_PREFIX));
    }
}
