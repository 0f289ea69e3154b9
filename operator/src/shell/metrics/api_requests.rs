//! `trussium_api_requests_total{kind,verb,code}`: a tower layer on the kube
//! Client counts every request it sends, by the answer's HTTP status code, so
//! "no requests when nothing changed" and "requests failing" are visible in
//! production. It also tells the probes whether the API server answers.

use std::task::{Context, Poll};

use futures::future::BoxFuture;
use http::{Method, Request, Uri};
use tower::{Layer, Service};

use super::{Metrics, NO_ANSWER};
use crate::shell::probes::ProbeState;

/// The resource (`deployments`, `trussiumruntimes/status`) and the
/// Kubernetes verb (`get`, `list`, `watch`, `create`, `patch`, ...) of a
/// request, from its method and URL. Non-resource URLs (`/version`) are
/// `("nonresource", <method>)`.
pub fn request_kind_and_verb(method: &Method, uri: &Uri) -> (String, String) {
    let segments: Vec<&str> = uri.path().split('/').filter(|s| !s.is_empty()).collect();
    // After /api/v1 or /apis/<group>/<version>.
    let rest = match segments.as_slice() {
        ["api", _version, rest @ ..] => rest,
        ["apis", _group, _version, rest @ ..] => rest,
        _ => &[][..],
    };
    // namespaces/<ns>/<resource>/... is namespaced; a bare namespaces/<name>
    // is the Namespace itself.
    let rest = match rest {
        ["namespaces", _ns, resource, tail @ ..] => {
            let mut all = vec![*resource];
            all.extend_from_slice(tail);
            all
        }
        other => other.to_vec(),
    };
    let Some((resource, tail)) = rest.split_first() else {
        return ("nonresource".into(), method.as_str().to_lowercase());
    };
    let named = !tail.is_empty();
    let kind = match tail.get(1) {
        Some(subresource) => format!("{resource}/{subresource}"),
        None => resource.to_string(),
    };
    let watching = uri
        .query()
        .is_some_and(|q| q.split('&').any(|p| p == "watch=true" || p == "watch=1"));
    let verb = match *method {
        Method::GET if watching => "watch",
        Method::GET if named => "get",
        Method::GET => "list",
        Method::POST => "create",
        Method::PUT => "update",
        Method::PATCH => "patch",
        Method::DELETE if named => "delete",
        Method::DELETE => "deletecollection",
        _ => return (kind, method.as_str().to_lowercase()),
    };
    (kind, verb.into())
}

/// Counts requests into [`Metrics`] and records in [`ProbeState`] whether the API
/// server answered.
#[derive(Clone)]
pub struct ApiRequestsLayer {
    metrics: Metrics,
    health: ProbeState,
}

impl ApiRequestsLayer {
    pub fn new(metrics: Metrics, health: ProbeState) -> Self {
        ApiRequestsLayer { metrics, health }
    }
}

impl<S> Layer<S> for ApiRequestsLayer {
    type Service = ApiRequests<S>;

    fn layer(&self, inner: S) -> Self::Service {
        ApiRequests {
            inner,
            metrics: self.metrics.clone(),
            health: self.health.clone(),
        }
    }
}

#[derive(Clone)]
pub struct ApiRequests<S> {
    inner: S,
    metrics: Metrics,
    health: ProbeState,
}

/// Counts one request when it is answered, or as [`NO_ANSWER`] when it ends
/// without an answer: an error, or dropped by whoever waited (a deadline).
struct Pending {
    metrics: Metrics,
    kind: String,
    verb: String,
    code: Option<String>,
}

impl Drop for Pending {
    fn drop(&mut self) {
        let code = self.code.take().unwrap_or_else(|| NO_ANSWER.into());
        self.metrics.api_request(
            std::mem::take(&mut self.kind),
            std::mem::take(&mut self.verb),
            code,
        );
    }
}

impl<S, B, R> Service<Request<B>> for ApiRequests<S>
where
    S: Service<Request<B>, Response = http::Response<R>>,
    S::Future: Send + 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = BoxFuture<'static, Result<S::Response, S::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let (kind, verb) = request_kind_and_verb(request.method(), request.uri());
        let mut pending = Pending {
            metrics: self.metrics.clone(),
            kind,
            verb,
            code: None,
        };
        let health = self.health.clone();
        let response = self.inner.call(request);
        Box::pin(async move {
            let response = response.await;
            // Any HTTP answer (even 403) means the server is reachable.
            health.set_api_reachable(response.is_ok());
            if let Ok(answer) = &response {
                pending.code = Some(answer.status().as_u16().to_string());
            }
            drop(pending);
            response
        })
    }
}

#[cfg(test)]
mod tests {
    use std::future::Future;

    use super::*;

    /// A stand-in for the API server: answers `status`, fails, or never answers.
    #[derive(Clone)]
    enum Server {
        Answers(u16),
        Fails,
        Hangs,
    }

    impl Service<Request<()>> for Server {
        type Response = http::Response<()>;
        type Error = &'static str;
        type Future = BoxFuture<'static, Result<http::Response<()>, &'static str>>;

        fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
            Poll::Ready(Ok(()))
        }

        fn call(&mut self, _: Request<()>) -> Self::Future {
            let server = self.clone();
            Box::pin(async move {
                match server {
                    Server::Answers(code) => http::Response::builder()
                        .status(code)
                        .body(())
                        .map_err(|_| "bad status"),
                    Server::Fails => Err("connection refused"),
                    Server::Hangs => std::future::pending().await,
                }
            })
        }
    }

    fn get_secret() -> Request<()> {
        match Request::get("/api/v1/namespaces/a/secrets/s").body(()) {
            Ok(request) => request,
            Err(err) => panic!("test request: {err}"),
        }
    }

    /// Polls a future that is known to finish at once.
    fn now<F: Future>(future: F) -> F::Output {
        let waker = std::task::Waker::noop();
        let mut cx = Context::from_waker(waker);
        let mut future = std::pin::pin!(future);
        match future.as_mut().poll(&mut cx) {
            Poll::Ready(output) => output,
            Poll::Pending => panic!("the test server answers at once"),
        }
    }

    #[test]
    fn requests_are_counted_by_the_answer_or_its_absence() -> Result<(), std::fmt::Error> {
        let metrics = Metrics::new();
        let layer = ApiRequestsLayer::new(metrics.clone(), ProbeState::default());
        let _ = now(layer.layer(Server::Answers(404)).call(get_secret()));
        let _ = now(layer.layer(Server::Answers(200)).call(get_secret()));
        let _ = now(layer.layer(Server::Answers(200)).call(get_secret()));
        let _ = now(layer.layer(Server::Fails).call(get_secret()));
        // Given up before any answer: what a deadline does.
        drop(layer.layer(Server::Hangs).call(get_secret()));
        let text = metrics.encode()?;
        for line in [
            "trussium_api_requests_total{kind=\"secrets\",verb=\"get\",code=\"404\"} 1\n",
            "trussium_api_requests_total{kind=\"secrets\",verb=\"get\",code=\"200\"} 2\n",
            "trussium_api_requests_total{kind=\"secrets\",verb=\"get\",code=\"<error>\"} 2\n",
        ] {
            assert!(text.contains(line), "missing {line:?} in:\n{text}");
        }
        Ok(())
    }

    fn classify(method: Method, uri: &str) -> (String, String) {
        let uri: Uri = match uri.parse() {
            Ok(uri) => uri,
            Err(err) => panic!("bad test uri {uri}: {err}"),
        };
        request_kind_and_verb(&method, &uri)
    }

    fn pair(kind: &str, verb: &str) -> (String, String) {
        (kind.into(), verb.into())
    }

    #[test]
    fn resource_urls_map_to_kind_and_verb() {
        let cases = [
            (
                Method::GET,
                "/api/v1/namespaces/a/secrets/s",
                pair("secrets", "get"),
            ),
            (
                Method::GET,
                "/api/v1/secrets?limit=500",
                pair("secrets", "list"),
            ),
            (
                Method::GET,
                "/api/v1/namespaces/a/secrets?watch=true&resourceVersion=1",
                pair("secrets", "watch"),
            ),
            (
                Method::PATCH,
                "/apis/apps/v1/namespaces/a/deployments/web?fieldManager=x",
                pair("deployments", "patch"),
            ),
            (
                Method::PATCH,
                "/apis/runtime.trussium.io/v1beta1/namespaces/a/trussiumruntimes/r/status",
                pair("trussiumruntimes/status", "patch"),
            ),
            (
                Method::POST,
                "/apis/events.k8s.io/v1/namespaces/a/events",
                pair("events", "create"),
            ),
            (
                Method::PUT,
                "/apis/coordination.k8s.io/v1/namespaces/s/leases/l",
                pair("leases", "update"),
            ),
            (
                Method::DELETE,
                "/api/v1/namespaces/a/configmaps/c",
                pair("configmaps", "delete"),
            ),
            (
                Method::DELETE,
                "/api/v1/namespaces/a/configmaps",
                pair("configmaps", "deletecollection"),
            ),
            (
                Method::GET,
                "/api/v1/namespaces/a",
                pair("namespaces", "get"),
            ),
            (
                Method::GET,
                "/api/v1/namespaces",
                pair("namespaces", "list"),
            ),
            (
                Method::GET,
                "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/x",
                pair("customresourcedefinitions", "get"),
            ),
            (Method::GET, "/version", pair("nonresource", "get")),
        ];
        for (method, uri, expected) in cases {
            assert_eq!(classify(method, uri), expected, "{uri}");
        }
    }
}
