//! Plain HTTP for the tests: an operator's metrics and probes (what the text
//! says: [`crate::metrics`]), a test registry's distribution API.

use std::net::SocketAddr;
use std::time::Duration;

use crate::BoxError;

/// `GET path` over plain HTTP: status code and body.
pub async fn http_get(address: SocketAddr, path: &str) -> Result<(u16, String), BoxError> {
    let response = http_request(address, path, &[]).await?;
    Ok((
        response.status,
        String::from_utf8_lossy(&response.body).into_owned(),
    ))
}

/// What [`http_request`] got back.
pub struct HttpResponse {
    pub status: u16,
    /// Header names in lower case.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl HttpResponse {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// GET `path` from `address` with extra request headers, as HTTP/1.0 (so
/// the body is never chunked) on a fresh connection.
pub async fn http_request(
    address: SocketAddr,
    path: &str,
    headers: &[(&str, &str)],
) -> Result<HttpResponse, BoxError> {
    let mut request = format!("GET {path} HTTP/1.0\r\nHost: {address}\r\n");
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    tokio::task::spawn_blocking(move || blocking_request(address, &request)).await?
}

/// POST `body` (JSON) to `path` on `address`, as [`http_request`] does a GET.
pub async fn http_post_json(
    address: SocketAddr,
    path: &str,
    body: &str,
) -> Result<HttpResponse, BoxError> {
    let request = format!(
        "POST {path} HTTP/1.0\r\nHost: {address}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    tokio::task::spawn_blocking(move || blocking_request(address, &request)).await?
}

fn blocking_request(address: SocketAddr, request: &str) -> Result<HttpResponse, BoxError> {
    use std::io::{Read, Write};
    let timeout = Duration::from_secs(10);
    let mut stream = std::net::TcpStream::connect_timeout(&address, timeout)?;
    stream.set_read_timeout(Some(timeout))?;
    stream.set_write_timeout(Some(timeout))?;
    stream.write_all(request.as_bytes())?;
    let mut response = Vec::new();
    stream.read_to_end(&mut response)?;
    let split = response
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| {
            format!(
                "not an HTTP response: {}",
                String::from_utf8_lossy(&response)
            )
        })?;
    let head = String::from_utf8_lossy(&response[..split]).into_owned();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("not an HTTP response: {head}"))?;
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    Ok(HttpResponse {
        status,
        headers,
        body: response[split + 4..].to_vec(),
    })
}
