//! What etcd holds for an object, read past the API server: the version a
//! custom resource is stored in, which no API request shows (the API server
//! converts on every read). Through etcd's JSON gateway on the test cluster's
//! plain-HTTP loopback port.

use std::io::{Read, Write};
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};

use crate::BoxError;

fn etcd_port() -> String {
    std::env::var("TRUSSIUM_ETCD_PORT").unwrap_or_else(|_| "22379".to_string())
}

/// The `apiVersion` a TrussiumRuntime is stored with in etcd, `None` when
/// etcd holds no such key.
pub async fn stored_api_version(namespace: &str, name: &str) -> Result<Option<String>, BoxError> {
    let key = format!("/registry/runtime.trussium.io/trussiumruntimes/{namespace}/{name}");
    let body = json!({"key": STANDARD.encode(key)}).to_string();
    let address = format!("127.0.0.1:{}", etcd_port());
    let answer =
        tokio::task::spawn_blocking(move || post(&address, "/v3/kv/range", &body)).await??;
    let value = answer["kvs"][0]["value"].as_str().map(str::to_string);
    let Some(value) = value else {
        return Ok(None);
    };
    let stored: Value = serde_json::from_slice(&STANDARD.decode(value)?)?;
    Ok(stored["apiVersion"].as_str().map(str::to_string))
}

fn post(address: &str, path: &str, body: &str) -> Result<Value, BoxError> {
    let timeout = Duration::from_secs(10);
    let mut stream = std::net::TcpStream::connect(address)?;
    stream.set_read_timeout(Some(timeout))?;
    stream.set_write_timeout(Some(timeout))?;
    let request = format!(
        "POST {path} HTTP/1.0\r\nHost: {address}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes())?;
    let mut response = Vec::new();
    stream.read_to_end(&mut response)?;
    let split = response
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or("etcd's answer is not HTTP")?;
    Ok(serde_json::from_slice(&response[split + 4..])?)
}
