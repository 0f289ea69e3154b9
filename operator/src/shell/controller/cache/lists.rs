//! How a watch takes in its first full list: streamed one object at a time
//! where the API server can (a watch with `sendInitialEvents`), in pages of
//! 500 where it cannot.
//!
//! A page holds 500 whole objects at once, before a cache trims them: at a
//! restart with a thousand runtimes, eight kinds' first pages are a heap of
//! tens of MiB that the allocator then keeps. A streamed list holds one.
//! Kubernetes 1.33 turned streamed lists off by default (`WatchList`, on
//! again from 1.34, the oldest we support) and refuses such a watch as
//! invalid; there, and wherever an administrator turned them off, the watch
//! lists in pages from then on.

use std::sync::atomic::{AtomicBool, Ordering};

use futures::StreamExt;
use kube::Api;
use kube::runtime::watcher;
use serde::de::DeserializeOwned;

use super::Watch;

/// Logged once per process, not once per kind.
static WARNED: AtomicBool = AtomicBool::new(false);

/// The watch of `api` with `config`, its lists streamed unless the API
/// server refuses that, then paged.
pub fn streamed_or_paged<K>(api: Api<K>, config: watcher::Config) -> Watch<K>
where
    K: kube::Resource<DynamicType = ()>
        + Clone
        + DeserializeOwned
        + std::fmt::Debug
        + Send
        + 'static,
{
    let streamed: Watch<K> = watcher(api.clone(), config.clone().streaming_lists()).boxed();
    let state = (streamed, Some((api, config)));
    futures::stream::unfold(state, |(mut events, mut paged)| async move {
        loop {
            let event = events.next().await?;
            if streaming_refused(&event)
                && let Some((api, config)) = paged.take()
            {
                if !WARNED.swap(true, Ordering::Relaxed) {
                    tracing::warn!(
                        "the API server does not stream lists (feature gate WatchList off); \
                         listing in pages of 500 instead"
                    );
                }
                events = watcher(api, config).boxed();
                continue;
            }
            return Some((event, (events, paged)));
        }
    })
    .boxed()
}

/// Whether the API server refused a streamed list as an invalid request
/// (422: `sendInitialEvents` is forbidden unless WatchList is on).
fn streaming_refused<K>(event: &Result<watcher::Event<K>, watcher::Error>) -> bool {
    matches!(
        event,
        Err(watcher::Error::WatchStartFailed(kube::Error::Api(status)))
            if status.is_invalid()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::ConfigMap;
    use kube::core::Status;

    fn failed(code: u16, reason: &str) -> Result<watcher::Event<ConfigMap>, watcher::Error> {
        let status = Status::failure("refused", reason).with_code(code);
        Err(watcher::Error::WatchStartFailed(kube::Error::Api(
            Box::new(status),
        )))
    }

    #[test]
    fn an_invalid_streamed_list_falls_back_to_pages() {
        assert!(streaming_refused(&failed(422, "Invalid")));
    }

    #[test]
    fn other_failures_are_retried_as_they_are() {
        assert!(!streaming_refused(&failed(403, "Forbidden")));
        assert!(!streaming_refused(&failed(500, "InternalError")));
        assert!(!streaming_refused(&failed(410, "Expired")));
        assert!(!streaming_refused::<ConfigMap>(&Ok(watcher::Event::Init)));
    }
}
