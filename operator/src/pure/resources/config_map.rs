//! The ConfigMap: the runtime's non-secret configuration, loaded into the
//! container environment with `envFrom`.
//!
//! Keys are the environment variables the runtime reads. Only what the spec
//! sets is written: an omitted override stays under the control of the runtime
//! release. Secret data never appears here; the credential reaches the pod
//! through `secretKeyRef` (see [`super::pod`]).

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::ConfigMap;
use trussium_api::TrussiumRuntime;
use trussium_api::validation::syntax::without_user_info;

use super::{BuildContext, BuildError, hash, object_meta};

/// `spec.provider.type`: `openai` or `ollama`.
pub const PROVIDER_TYPE: &str = "TRUSSIUM_PROVIDER_TYPE";
/// `spec.provider.model`.
pub const PROVIDER_MODEL: &str = "TRUSSIUM_PROVIDER_MODEL";
/// `spec.provider.baseURL`, when set.
pub const PROVIDER_BASE_URL: &str = "TRUSSIUM_PROVIDER_BASE_URL";
/// `spec.runtime.providerRequestTimeoutSeconds`, when set.
pub const PROVIDER_REQUEST_TIMEOUT_SECONDS: &str = "TRUSSIUM_PROVIDER_REQUEST_TIMEOUT_SECONDS";
/// `spec.runtime.streamIdleTimeoutSeconds`, when set.
pub const STREAM_IDLE_TIMEOUT_SECONDS: &str = "TRUSSIUM_STREAM_IDLE_TIMEOUT_SECONDS";
/// `spec.runtime.shutdownDrainTimeoutSeconds`, when set.
pub const SHUTDOWN_DRAIN_TIMEOUT_SECONDS: &str = "TRUSSIUM_SHUTDOWN_DRAIN_TIMEOUT_SECONDS";

/// The ConfigMap of the runtime.
pub fn config_map(rt: &TrussiumRuntime, _ctx: &BuildContext) -> Result<ConfigMap, BuildError> {
    hash::stamped(ConfigMap {
        metadata: object_meta(rt)?,
        data: Some(data(rt)),
        ..ConfigMap::default()
    })
}

/// The configuration entries; also the input of the pod template's config hash.
pub fn data(rt: &TrussiumRuntime) -> BTreeMap<String, String> {
    let provider = &rt.spec.provider;
    let overrides = rt.spec.runtime.clone().unwrap_or_default();
    let entries = [
        (PROVIDER_TYPE, Some(provider.type_.as_str().to_string())),
        (PROVIDER_MODEL, Some(provider.model.clone())),
        // Never a credential: a URL with user information is refused (see
        // `validation`), and stripped here should one get this far.
        (
            PROVIDER_BASE_URL,
            provider.base_url.as_deref().map(without_user_info),
        ),
        (
            PROVIDER_REQUEST_TIMEOUT_SECONDS,
            overrides
                .provider_request_timeout_seconds
                .map(|s| s.to_string()),
        ),
        (
            STREAM_IDLE_TIMEOUT_SECONDS,
            overrides.stream_idle_timeout_seconds.map(|s| s.to_string()),
        ),
        (
            SHUTDOWN_DRAIN_TIMEOUT_SECONDS,
            overrides
                .shutdown_drain_timeout_seconds
                .map(|s| s.to_string()),
        ),
    ];
    entries
        .into_iter()
        .filter_map(|(key, value)| value.map(|v| (key.to_string(), v)))
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::tests::{Result, context, fixture, json_of};
    use super::*;

    #[test]
    fn minimal_runtime_has_only_provider_entries() -> Result {
        let rt = fixture("minimal")?;
        let cm = json_of(&config_map(&rt, &context().ctx())?)?;
        assert_eq!(cm["apiVersion"], "v1");
        assert_eq!(cm["kind"], "ConfigMap");
        assert_eq!(
            cm["data"],
            json!({
                "TRUSSIUM_PROVIDER_TYPE": "ollama",
                "TRUSSIUM_PROVIDER_MODEL": "llama3.2",
                "TRUSSIUM_PROVIDER_BASE_URL": "http://ollama.ollama.svc.cluster.local:11434/v1",
            })
        );
        Ok(())
    }

    #[test]
    fn a_base_url_never_carries_user_information() -> Result {
        let mut rt = fixture("minimal")?;
        rt.spec.provider.base_url = Some("https://alice:sk-live-1@api.example.com/v1".into());
        let cm = json_of(&config_map(&rt, &context().ctx())?)?;
        assert_eq!(
            cm["data"]["TRUSSIUM_PROVIDER_BASE_URL"],
            "https://api.example.com/v1"
        );
        assert!(!cm.to_string().contains("sk-live-1"));
        Ok(())
    }

    #[test]
    fn overrides_appear_only_when_set() -> Result {
        let rt = fixture("full")?;
        let entries = data(&rt);
        assert_eq!(
            entries.get(PROVIDER_TYPE).map(String::as_str),
            Some("openai")
        );
        assert_eq!(
            entries.get(PROVIDER_MODEL).map(String::as_str),
            Some("gpt-5")
        );
        assert_eq!(entries.get(PROVIDER_BASE_URL), None);
        assert_eq!(
            entries
                .get(PROVIDER_REQUEST_TIMEOUT_SECONDS)
                .map(String::as_str),
            Some("60")
        );
        assert_eq!(
            entries.get(STREAM_IDLE_TIMEOUT_SECONDS).map(String::as_str),
            Some("30")
        );
        assert_eq!(
            entries
                .get(SHUTDOWN_DRAIN_TIMEOUT_SECONDS)
                .map(String::as_str),
            Some("45")
        );
        assert_eq!(entries.len(), 5);

        let mut rt = rt;
        if let Some(r) = rt.spec.runtime.as_mut() {
            r.stream_idle_timeout_seconds = None;
        }
        assert!(!data(&rt).contains_key(STREAM_IDLE_TIMEOUT_SECONDS));
        assert_eq!(data(&rt).len(), 4);
        Ok(())
    }

    #[test]
    fn zero_drain_timeout_is_still_written() -> Result {
        let mut rt = fixture("minimal")?;
        rt.spec.runtime = Some(trussium_api::RuntimeOverrides {
            shutdown_drain_timeout_seconds: Some(0),
            ..Default::default()
        });
        assert_eq!(
            data(&rt)
                .get(SHUTDOWN_DRAIN_TIMEOUT_SECONDS)
                .map(String::as_str),
            Some("0")
        );
        Ok(())
    }

    #[test]
    fn never_carries_the_credential_reference() -> Result {
        let rt = fixture("full")?;
        let text = serde_json::to_string(&config_map(&rt, &context().ctx())?)?;
        assert!(!text.contains("openai-credentials"), "{text}");
        assert!(!text.contains("api-key"), "{text}");
        assert!(!text.contains("API_KEY"), "{text}");
        Ok(())
    }
}
