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
    }
}
