//! The HTTP endpoints: `/metrics` on the metrics address, `/healthz` and
//! `/readyz` on the probe address (as kubebuilder operators lay them out).

use std::convert::Infallible;
use std::net::SocketAddr;

use bytes::Bytes;
use http::{Request, Response, StatusCode};
use http_body_util::Full;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;

use crate::shell::metrics::Metrics;
use crate::shell::probes::ProbeState;

/// Where to listen; `None` serves nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BindAddress(pub Option<SocketAddr>);

/// `--metrics-bind-address` / `--health-probe-bind-address`: `:8080` (all
/// interfaces), `host:port`, or `0` to serve nothing (controller-runtime's
/// spelling).
pub fn parse_bind_address(value: &str) -> Result<BindAddress, String> {
    if value == "0" {
        return Ok(BindAddress(None));
    }
    let full = match value.strip_prefix(':') {
        Some(port) => format!("0.0.0.0:{port}"),
        None => value.to_string(),
    };
    full.parse::<SocketAddr>()
        .map(|address| BindAddress(Some(address)))
        .map_err(|_| format!("'{value}' is not an address like :8080 or 127.0.0.1:8080, or 0"))
}

/// What a listener serves.
#[derive(Clone)]
pub enum Routes {
    Metrics(Metrics),
    Probes(ProbeState),
}

impl Routes {
    /// Its name in the `serving` log line.
    fn name(&self) -> &'static str {
        match self {
            Routes::Metrics(_) => "metrics",
            Routes::Probes(_) => "probes",
        }
    }
}

/// Binds now (so that a port in use is a start-up error), serves later.
pub async fn bind(address: SocketAddr) -> std::io::Result<TcpListener> {
    TcpListener::bind(address).await
}

/// Serves until the process ends.
pub async fn serve(listener: TcpListener, routes: Routes) {
    // Port 0 lets the kernel pick a free port; this line says which it
    // picked (the tests start replicas so, then read it).
    match listener.local_addr() {
        Ok(address) => tracing::info!(endpoint = routes.name(), %address, "serving"),
        Err(err) => tracing::warn!(endpoint = routes.name(), error = %err, "serving"),
    }
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(err) => {
                tracing::warn!(error = %err, "accepting a connection");
                continue;
            }
        };
        let routes = routes.clone();
        let service = service_fn(move |request: Request<hyper::body::Incoming>| {
            let routes = routes.clone();
            async move { Ok::<_, Infallible>(respond(&routes, request.uri().path())) }
        });
        tokio::spawn(async move {
            if let Err(err) = http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await
            {
                tracing::debug!(error = %err, "serving a connection");
            }
        });
    }
}

fn respond(routes: &Routes, path: &str) -> Response<Full<Bytes>> {
    let (status, content_type, body) = match (routes, path) {
        (Routes::Metrics(metrics), "/metrics") => match metrics.encode() {
            Ok(text) => (
                StatusCode::OK,
                prometheus_client::encoding::prometheus_text::CONTENT_TYPE,
                text,
            ),
            Err(_) => (
                StatusCode::INTERNAL_SERVER_ERROR,
                "text/plain",
                "encoding the metrics failed\n".into(),
            ),
        },
        (Routes::Probes(_), "/healthz") => (StatusCode::OK, "text/plain", "ok\n".into()),
        (Routes::Probes(health), "/readyz") => match health.readiness() {
            Ok(()) => (StatusCode::OK, "text/plain", "ok\n".into()),
            Err(why) => (
                StatusCode::SERVICE_UNAVAILABLE,
                "text/plain",
                format!("not ready: {why}\n"),
            ),
        },
        _ => (StatusCode::NOT_FOUND, "text/plain", "not found\n".into()),
    };
    let mut response = Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() = status;
    if let Ok(value) = http::HeaderValue::from_str(content_type) {
        response
            .headers_mut()
            .insert(http::header::CONTENT_TYPE, value);
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bind_addresses_are_spelled_as_in_controller_runtime() {
        assert_eq!(parse_bind_address("0"), Ok(BindAddress(None)));
        assert_eq!(
            parse_bind_address(":8080"),
            Ok(BindAddress(Some(SocketAddr::from(([0, 0, 0, 0], 8080)))))
        );
        assert_eq!(
            parse_bind_address("127.0.0.1:9000"),
            Ok(BindAddress(Some(SocketAddr::from(([127, 0, 0, 1], 9000)))))
        );
        // Port 0: the kernel picks one (logged as `serving`).
        assert_eq!(
            parse_bind_address("127.0.0.1:0"),
            Ok(BindAddress(Some(SocketAddr::from(([127, 0, 0, 1], 0)))))
        );
        assert!(parse_bind_address("8080").is_err());
        assert!(parse_bind_address(":http").is_err());
        assert!(parse_bind_address("").is_err());
    }

    #[test]
    fn probes_and_metrics_answer_only_on_their_own_listener() {
        let health = ProbeState::default();
        let probes = Routes::Probes(health.clone());
        assert_eq!(respond(&probes, "/healthz").status(), StatusCode::OK);
        assert_eq!(
            respond(&probes, "/readyz").status(),
            StatusCode::SERVICE_UNAVAILABLE
        );
        health.set_synced();
        assert_eq!(respond(&probes, "/readyz").status(), StatusCode::OK);
        assert_eq!(respond(&probes, "/metrics").status(), StatusCode::NOT_FOUND);
        let metrics = Routes::Metrics(Metrics::new());
        assert_eq!(respond(&metrics, "/metrics").status(), StatusCode::OK);
        assert_eq!(respond(&metrics, "/readyz").status(), StatusCode::NOT_FOUND);
    }
}
