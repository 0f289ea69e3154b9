//! Reading an operator's metrics and probes over plain HTTP.

use std::net::SocketAddr;
use std::time::Duration;

use crate::BoxError;

/// `GET path` over plain HTTP/1.1: status code and body.
pub async fn http_get(address: SocketAddr, path: &str) -> Result<(u16, String), BoxError> {
    let path = path.to_string();
    tokio::task::spawn_blocking(move || blocking_get(address, &path)).await?
}

fn blocking_get(address: SocketAddr, path: &str) -> Result<(u16, String), BoxError> {
    use std::io::{Read, Write};
    let timeout = Duration::from_secs(10);
    let mut stream = std::net::TcpStream::connect_timeout(&address, timeout)?;
    stream.set_read_timeout(Some(timeout))?;
    stream.set_write_timeout(Some(timeout))?;
    stream.write_all(
        format!("GET {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n").as_bytes(),
    )?;
    let mut response = Vec::new();
    stream.read_to_end(&mut response)?;
    let text = String::from_utf8_lossy(&response).to_string();
    let status = text
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("not an HTTP response: {text}"))?;
    let body = text
        .split_once("\r\n\r\n")
        .map(|(_, body)| body.to_string())
        .unwrap_or_default();
    Ok((status, body))
}

/// The value of `series` (e.g. `trussium_runtimes{ready="True"}`) in a
/// Prometheus text exposition.
pub fn metric(text: &str, series: &str) -> Option<f64> {
    text.lines().filter(|l| !l.starts_with('#')).find_map(|l| {
        l.strip_prefix(series)?
            .strip_prefix(' ')?
            .trim()
            .parse()
            .ok()
    })
}

/// Reconciles counted by `controller_runtime_reconcile_total`, all results.
pub fn reconciles(text: &str) -> f64 {
    text.lines()
        .filter(|l| l.starts_with("controller_runtime_reconcile_total{"))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum()
}
