//! The HTTPS client under kube's `Client`, set up here instead of by kube's
//! `rustls-tls` feature. That feature verifies through the operating system
//! (rustls-platform-verifier), which on macOS links Apple's Security
//! framework; the macOS binaries are cross-linked on Linux, where that
//! framework does not exist. Like kubectl, we trust the cluster's CA from the
//! kubeconfig; a kubeconfig without one falls back to Mozilla's roots.
//!
//! Not supported (kube's own client refuses them too without extra features):
//! `proxy-url`, and client certificates handed out by an exec plugin.

use std::sync::Arc;

use base64::Engine;
use hyper_rustls::{FixedServerNameResolver, HttpsConnectorBuilder};
use hyper_timeout::TimeoutConnector;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use kube::client::{Body, ConfigExt};
use kube::config::AuthInfo;
use kube::{Client, Config};
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
use rustls::{ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme};
use secrecy::ExposeSecret;
use tower::{BoxError, ServiceBuilder};

/// A client for `config`, or why there can be none; with `log_requests`,
/// one line per request on stderr ([`crate::request_log`]).
pub fn client(config: Config, log_requests: bool) -> Result<Client, String> {
    if let Some(proxy) = &config.proxy_url {
        return Err(format!(
            "the kubeconfig sets proxy-url {proxy}, which kubectl trussium does not support"
        ));
    }
    let tls = client_config(&config)?;
    let mut http = HttpConnector::new();
    http.enforce_http(false);
    let builder = HttpsConnectorBuilder::new()
        .with_tls_config(tls)
        .https_or_http();
    let builder = match &config.tls_server_name {
        Some(name) => {
            let name = ServerName::try_from(name.clone())
                .map_err(|e| format!("invalid tls-server-name {name:?}: {e}"))?;
            builder.with_server_name_resolver(FixedServerNameResolver::new(name))
        }
        None => builder,
    };
    let mut connector = TimeoutConnector::new(builder.enable_http1().wrap_connector(http));
    connector.set_connect_timeout(config.connect_timeout);
    connector.set_read_timeout(config.read_timeout);
    connector.set_write_timeout(config.write_timeout);
    let http_client: hyper_util::client::legacy::Client<_, Body> =
        hyper_util::client::legacy::Builder::new(TokioExecutor::new()).build(connector);

    let auth = config.auth_layer().map_err(|e| e.to_string())?;
    let headers = config.extra_headers_layer().map_err(|e| e.to_string())?;
    let service = ServiceBuilder::new()
        .layer(config.base_uri_layer())
        .option_layer(log_requests.then_some(crate::request_log::RequestLogLayer))
        .option_layer(auth)
        .layer(headers)
        .map_err(BoxError::from)
        .service(http_client);
    Ok(Client::new(service, config.default_namespace))
}

/// rustls settings from the kubeconfig: CA, client certificate, and
/// `insecure-skip-tls-verify`.
fn client_config(config: &Config) -> Result<ClientConfig, String> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?;
    let builder = if config.accept_invalid_certs {
        builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(AcceptAnyCertificate(provider)))
    } else {
        builder.with_root_certificates(root_store(config.root_cert.as_deref())?)
    };
    match identity(&config.auth_info)? {
        Some((chain, key)) => builder
            .with_client_auth_cert(chain, key)
            .map_err(|e| format!("invalid client certificate or key: {e}")),
        None => Ok(builder.with_no_client_auth()),
    }
}

/// The kubeconfig's CA certificates (DER), else Mozilla's roots.
fn root_store(ca: Option<&[Vec<u8>]>) -> Result<RootCertStore, String> {
    let Some(ca) = ca else {
        return Ok(RootCertStore {
            roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
        });
    };
    let mut store = RootCertStore::empty();
    for der in ca {
        store
            .add(CertificateDer::from(der.clone()))
            .map_err(|e| format!("invalid certificate-authority in the kubeconfig: {e}"))?;
    }
    Ok(store)
}

type Identity = (Vec<CertificateDer<'static>>, PrivateKeyDer<'static>);

/// The client certificate chain and key, from `*-data` (base64) or a file.
fn identity(user: &AuthInfo) -> Result<Option<Identity>, String> {
    let cert = load(
        "client-certificate",
        user.client_certificate_data.as_deref(),
        user.client_certificate.as_deref(),
    )?;
    let key_data = user
        .client_key_data
        .as_ref()
        .map(|k| k.expose_secret().to_string());
    let key = load(
        "client-key",
        key_data.as_deref(),
        user.client_key.as_deref(),
    )?;
    match (cert, key) {
        (None, None) => Ok(None),
        (Some(_), None) => {
            Err("the kubeconfig user has a client-certificate but no client-key".into())
        }
        (None, Some(_)) => {
            Err("the kubeconfig user has a client-key but no client-certificate".into())
        }
        (Some(cert), Some(key)) => {
            let chain = CertificateDer::pem_slice_iter(&cert)
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| format!("cannot read the client-certificate: {e}"))?;
            let key = PrivateKeyDer::from_pem_slice(&key)
                .map_err(|e| format!("cannot read the client-key: {e}"))?;
            Ok(Some((chain, key)))
        }
    }
}

/// PEM bytes from inline base64 data, else from a file (kube has made the
/// path absolute already).
fn load(what: &str, data: Option<&str>, file: Option<&str>) -> Result<Option<Vec<u8>>, String> {
    if let Some(data) = data {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(data.trim())
            .map_err(|e| format!("{what}-data in the kubeconfig is not base64: {e}"))?;
        return Ok(Some(bytes));
    }
    file.map(|path| std::fs::read(path).map_err(|e| format!("cannot read {what} {path}: {e}")))
        .transpose()
}

/// `insecure-skip-tls-verify: true`: any certificate, but still a valid
/// handshake signature.
#[derive(Debug)]
struct AcceptAnyCertificate(Arc<rustls::crypto::CryptoProvider>);

impl ServerCertVerifier for AcceptAnyCertificate {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_ca_falls_back_to_mozillas_roots() {
        let store = root_store(None).unwrap_or_else(|e| panic!("{e}"));
        assert!(store.len() > 100, "{}", store.len());
    }

    #[test]
    fn a_bad_ca_is_an_error_not_a_fallback() {
        let err = root_store(Some(&[b"not DER".to_vec()])).err();
        assert!(
            err.is_some_and(|e| e.contains("certificate-authority")),
            "a broken CA must be reported"
        );
    }

    #[test]
    fn identity_needs_both_halves() {
        let mut user = AuthInfo {
            client_certificate_data: Some("LS0t".into()),
            ..AuthInfo::default()
        };
        assert!(
            identity(&user)
                .err()
                .is_some_and(|e| e.contains("no client-key"))
        );
        user.client_certificate_data = None;
        assert!(matches!(identity(&user), Ok(None)));
        user.client_certificate_data = Some("%%%".into());
        assert!(identity(&user).err().is_some_and(|e| e.contains("base64")));
    }
}
