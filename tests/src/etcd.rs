//! What etcd holds for an object, read past the API server: the version a
//! custom resource is stored in, which no API request shows (the API server
//! converts on every read). Through etcd's JSON gateway on the test cluster's
//! plain-HTTP loopback port.

use std::net::SocketAddr;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Value, json};

use crate::BoxError;
use crate::scrape::http_post_json;

fn etcd_address() -> Result<SocketAddr, BoxError> {
    let port = std::env::var("TRUSSIUM_ETCD_PORT").unwrap_or_else(|_| "22379".to_string());
    Ok(format!("127.0.0.1:{port}").parse()?)
}

/// The `apiVersion` a TrussiumRuntime is stored with in etcd, `None` when
/// etcd holds no such key.
pub async fn stored_api_version(namespace: &str, name: &str) -> Result<Option<String>, BoxError> {
    let key = format!("/registry/runtime.trussium.io/trussiumruntimes/{namespace}/{name}");
    let body = json!({"key": STANDARD.encode(key)}).to_string();
    let response = http_post_json(etcd_address()?, "/v3/kv/range", &body).await?;
    let answer: Value = serde_json::from_slice(&response.body)?;
    let Some(value) = answer["kvs"][0]["value"].as_str() else {
        return Ok(None);
    };
    let stored: Value = serde_json::from_slice(&STANDARD.decode(value)?)?;
    Ok(stored["apiVersion"].as_str().map(str::to_string))
}
