//! When the election last wrote its Lease successfully, seen from the HTTP
//! answers of the election's own client.
//!
//! kube-lease-manager renews inside `LeaseManager::changed`, which returns
//! only when the holder changes or a request fails: a renewal that never
//! answers (a dead connection, a frozen API server) leaves the leader
//! blocked without knowing when it last renewed. Recording each accepted
//! write of the Lease lets the renew deadline count from the last renewal
//! the API server confirmed, as client-go's does.

use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Instant;

use futures::future::BoxFuture;
use http::{Method, Request, Response};
use tower::{Layer, Service};

/// The moment of the last accepted Lease write.
#[derive(Clone)]
pub struct Renewals {
    last: Arc<Mutex<Instant>>,
}

impl Default for Renewals {
    fn default() -> Self {
        Renewals {
            last: Arc::new(Mutex::new(Instant::now())),
        }
    }
}

impl Renewals {
    /// When the API server last accepted a write of the Lease (or when this
    /// was created, before any).
    pub fn last(&self) -> Instant {
        *self
            .last
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn accepted(&self) {
        *self
            .last
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Instant::now();
    }

    /// The layer for the election's client (which writes only its Lease).
    pub fn layer(&self) -> RenewalsLayer {
        RenewalsLayer {
            renewals: self.clone(),
        }
    }
}

#[derive(Clone)]
pub struct RenewalsLayer {
    renewals: Renewals,
}

impl<S> Layer<S> for RenewalsLayer {
    type Service = WithRenewals<S>;

    fn layer(&self, inner: S) -> Self::Service {
        WithRenewals {
            inner,
            renewals: self.renewals.clone(),
        }
    }
}

#[derive(Clone)]
pub struct WithRenewals<S> {
    inner: S,
    renewals: Renewals,
}

impl<S, B, RB> Service<Request<B>> for WithRenewals<S>
where
    S: Service<Request<B>, Response = Response<RB>>,
    S::Future: Send + 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = BoxFuture<'static, Result<S::Response, S::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let write = matches!(
            *request.method(),
            Method::PATCH | Method::PUT | Method::POST
        );
        let renewals = self.renewals.clone();
        let response = self.inner.call(request);
        Box::pin(async move {
            let response = response.await;
            if write && response.as_ref().is_ok_and(|r| r.status().is_success()) {
                renewals.accepted();
            }
            response
        })
    }
}

#[cfg(test)]
mod tests {
    use std::convert::Infallible;
    use std::time::Duration;

    use http::StatusCode;
    use tower::ServiceExt;

    use super::*;

    /// Answers every request with `status`.
    fn answering(
        status: StatusCode,
    ) -> impl Service<
        Request<()>,
        Response = Response<()>,
        Error = Infallible,
        Future = std::future::Ready<Result<Response<()>, Infallible>>,
    > + Clone {
        tower::service_fn(move |_: Request<()>| {
            let mut response = Response::new(());
            *response.status_mut() = status;
            std::future::ready(Ok::<_, Infallible>(response))
        })
    }

    async fn send(renewals: &Renewals, status: StatusCode, method: Method) -> Instant {
        let before = renewals.last();
        tokio::time::sleep(Duration::from_millis(2)).await;
        let service = renewals.layer().layer(answering(status));
        let request = Request::builder()
            .method(method)
            .body(())
            .unwrap_or_default();
        let _ = service.oneshot(request).await;
        assert!(renewals.last() >= before);
        renewals.last()
    }

    #[tokio::test]
    async fn only_accepted_writes_count_as_renewals() {
        let renewals = Renewals::default();
        let start = renewals.last();
        assert_eq!(send(&renewals, StatusCode::OK, Method::GET).await, start);
        assert_eq!(
            send(&renewals, StatusCode::CONFLICT, Method::PATCH).await,
            start
        );
        assert_eq!(
            send(&renewals, StatusCode::INTERNAL_SERVER_ERROR, Method::PUT).await,
            start
        );
        let renewed = send(&renewals, StatusCode::OK, Method::PATCH).await;
        assert!(renewed > start);
        assert!(send(&renewals, StatusCode::CREATED, Method::POST).await > renewed);
    }
}
