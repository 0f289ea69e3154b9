//! `-v=6`: one line per request on stderr, as kubectl prints it: the verb,
//! the URL, the status and the time taken. Never a header or a body (a
//! token, a Secret's value).

use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Instant;

use http::{Request, Response};
use tower::{BoxError, Layer, Service};

#[derive(Clone, Copy, Debug)]
pub struct RequestLogLayer;

impl<S> Layer<S> for RequestLogLayer {
    type Service = RequestLog<S>;
    fn layer(&self, inner: S) -> RequestLog<S> {
        RequestLog { inner }
    }
}

#[derive(Clone, Debug)]
pub struct RequestLog<S> {
    inner: S,
}

type Answer<R> = Pin<Box<dyn Future<Output = Result<Response<R>, BoxError>> + Send>>;

impl<S, B, R> Service<Request<B>> for RequestLog<S>
where
    S: Service<Request<B>, Response = Response<R>, Error = BoxError>,
    S::Future: Send + 'static,
{
    type Response = Response<R>;
    type Error = BoxError;
    type Future = Answer<R>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let asked = format!("{} {}", request.method(), request.uri());
        let started = Instant::now();
        let answer = self.inner.call(request);
        Box::pin(async move {
            let result = answer.await;
            let outcome = match &result {
                Ok(response) => response.status().to_string(),
                Err(err) => format!("failed: {err}"),
            };
            eprintln!("{}", line(&asked, &outcome, started.elapsed().as_millis()));
            result
        })
    }
}

/// `GET https://…/api/v1/namespaces 200 OK in 5 milliseconds`, made
/// printable (a URL is the user's input echoed back).
fn line(asked: &str, outcome: &str, millis: u128) -> String {
    crate::terminal::safe(&format!("{asked} {outcome} in {millis} milliseconds"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_names_verb_url_status_and_time() {
        assert_eq!(
            line("GET https://h/api/v1/namespaces", "200 OK", 5),
            "GET https://h/api/v1/namespaces 200 OK in 5 milliseconds"
        );
    }
}
