//! kubectl's connection and identity flags (`--as`, `--server`, `--token`,
//! `--request-timeout`, `-v`…), with kubectl's meaning: each one set
//! overrides what the kubeconfig says, for this command only.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, ValueHint};
use kube::Config;
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;
use secrecy::SecretString;
use trussium_api::duration;

use crate::cli::{ClusterName, UserName};

/// The verbosity from which every request is logged (kubectl's level 6).
pub const LOG_REQUESTS: u8 = 6;

#[derive(Args, Debug, Clone, Default, PartialEq, Eq)]
pub struct ConnectionFlags {
    /// Username to impersonate for the command: a user, or a ServiceAccount
    /// as system:serviceaccount:NAMESPACE:NAME
    #[arg(long = "as", global = true, value_name = "USER")]
    pub as_user: Option<String>,

    /// Group to impersonate (repeat for several); needs --as
    #[arg(
        long = "as-group",
        global = true,
        value_name = "GROUP",
        requires = "as_user"
    )]
    pub as_group: Vec<String>,

    /// UID to impersonate; needs --as
    #[arg(
        long = "as-uid",
        global = true,
        value_name = "UID",
        requires = "as_user"
    )]
    pub as_uid: Option<String>,

    /// How long one request may wait for an answer: 0 waits forever
    /// (default); e.g. 30s, 1m
    #[arg(long, global = true, value_name = "DURATION", value_parser = duration::parse)]
    pub request_timeout: Option<Duration>,

    /// The kubeconfig cluster to use
    #[arg(long, global = true, value_name = "NAME")]
    pub cluster: Option<ClusterName>,

    /// The kubeconfig user to use
    #[arg(long, global = true, value_name = "NAME")]
    pub user: Option<UserName>,

    /// The address of the API server (https://HOST:PORT)
    #[arg(short = 's', long, global = true, value_name = "URL", value_parser = parse_server)]
    pub server: Option<http::Uri>,

    /// Bearer token for authentication to the API server
    #[arg(long, global = true, value_name = "TOKEN")]
    pub token: Option<Token>,

    /// A CA certificate file (PEM) to verify the API server with
    #[arg(long, global = true, value_name = "PATH", value_hint = ValueHint::FilePath)]
    pub certificate_authority: Option<PathBuf>,

    /// A client certificate file (PEM) for TLS
    #[arg(long, global = true, value_name = "PATH", value_hint = ValueHint::FilePath, requires = "client_key")]
    pub client_certificate: Option<PathBuf>,

    /// A client key file (PEM) for TLS
    #[arg(long, global = true, value_name = "PATH", value_hint = ValueHint::FilePath, requires = "client_certificate")]
    pub client_key: Option<PathBuf>,

    /// Do not verify the API server's certificate (insecure)
    #[arg(long, global = true, conflicts_with = "certificate_authority")]
    pub insecure_skip_tls_verify: bool,

    /// The server name to verify the API server's certificate against
    #[arg(long, global = true, value_name = "NAME")]
    pub tls_server_name: Option<String>,

    /// Log verbosity: 6 and above print one line per request on stderr
    /// (verb, URL, status, time; never a body)
    #[arg(short = 'v', long = "v", global = true, value_name = "N", default_value_t = 0,
          value_parser = clap::value_parser!(u8).range(0..=10))]
    pub verbosity: u8,
}

/// A bearer token, never shown by `Debug`.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Token(pub String);

impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Token(<redacted>)")
    }
}

impl std::str::FromStr for Token {
    type Err = String;
    fn from_str(value: &str) -> Result<Self, String> {
        if value.is_empty() {
            return Err("the token is empty".into());
        }
        Ok(Token(value.to_string()))
    }
}

fn parse_server(value: &str) -> Result<http::Uri, String> {
    let uri: http::Uri = value
        .parse()
        .map_err(|e| format!("invalid server {value:?}: {e}"))?;
    match (uri.scheme_str(), uri.host()) {
        (Some("https" | "http"), Some(_)) => Ok(uri),
        _ => Err(format!(
            "invalid server {value:?}: give a URL such as https://127.0.0.1:6443"
        )),
    }
}

impl ConnectionFlags {
    /// `config` with every flag that is set applied over the kubeconfig's
    /// settings.
    pub fn apply(&self, config: &mut Config) -> Result<(), String> {
        if let Some(server) = &self.server {
            config.cluster_url = server.clone();
        }
        if let Some(user) = &self.as_user {
            config.auth_info.impersonate = Some(user.clone());
            config.auth_info.impersonate_groups =
                (!self.as_group.is_empty()).then(|| self.as_group.clone());
            config.auth_info.impersonate_uid = self.as_uid.clone();
        }
        if let Some(Token(token)) = &self.token {
            // The token alone then: not the kubeconfig's other credentials.
            let auth = &mut config.auth_info;
            auth.token = Some(SecretString::from(token.clone()));
            auth.token_file = None;
            auth.exec = None;
            auth.auth_provider = None;
            auth.username = None;
            auth.password = None;
        }
        if let Some(path) = &self.certificate_authority {
            config.root_cert = Some(certificates(path)?);
            config.accept_invalid_certs = false;
        }
        if let (Some(cert), Some(key)) = (&self.client_certificate, &self.client_key) {
            let auth = &mut config.auth_info;
            auth.client_certificate = Some(cert.display().to_string());
            auth.client_key = Some(key.display().to_string());
            auth.client_certificate_data = None;
            auth.client_key_data = None;
        }
        if self.insecure_skip_tls_verify {
            config.accept_invalid_certs = true;
            config.root_cert = None;
        }
        if let Some(name) = &self.tls_server_name {
            config.tls_server_name = Some(name.clone());
        }
        if let Some(timeout) = self.request_timeout {
            let timeout = (!timeout.is_zero()).then_some(timeout);
            config.connect_timeout = timeout;
            config.read_timeout = timeout;
        }
        Ok(())
    }

    /// Whether each request is to be logged (`-v=6` and above).
    pub fn logs_requests(&self) -> bool {
        self.verbosity >= LOG_REQUESTS
    }
}

/// The certificates of a PEM file, as DER.
fn certificates(path: &std::path::Path) -> Result<Vec<Vec<u8>>, String> {
    let read = |e: &dyn fmt::Display| {
        format!(
            "cannot read --certificate-authority {}: {e}",
            path.display()
        )
    };
    let certs: Vec<Vec<u8>> = CertificateDer::pem_file_iter(path)
        .map_err(|e| read(&e))?
        .map(|c| c.map(|c| c.to_vec()).map_err(|e| read(&e)))
        .collect::<Result<_, _>>()?;
    if certs.is_empty() {
        return Err(read(&"no certificate in it"));
    }
    Ok(certs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> Config {
        Config::new(
            "https://kubeconfig.example:6443"
                .parse()
                .unwrap_or_default(),
        )
    }

    #[test]
    fn nothing_set_changes_nothing() -> Result<(), String> {
        let mut changed = config();
        ConnectionFlags::default().apply(&mut changed)?;
        let unchanged = config();
        assert_eq!(changed.cluster_url, unchanged.cluster_url);
        assert_eq!(changed.read_timeout, unchanged.read_timeout);
        assert_eq!(changed.auth_info.impersonate, None);
        Ok(())
    }

    #[test]
    fn each_flag_overrides_the_kubeconfig() -> Result<(), String> {
        let flags = ConnectionFlags {
            as_user: Some("system:serviceaccount:team-a:deployer".into()),
            as_group: vec!["a".into(), "b".into()],
            as_uid: Some("u-1".into()),
            request_timeout: Some(Duration::from_secs(30)),
            server: Some(parse_server("https://other.example:443")?),
            token: Some(Token("t0k3n".into())),
            insecure_skip_tls_verify: true,
            tls_server_name: Some("kubernetes".into()),
            ..ConnectionFlags::default()
        };
        let mut c = config();
        c.auth_info.token_file = Some("/var/run/token".into());
        flags.apply(&mut c)?;
        assert_eq!(c.cluster_url.to_string(), "https://other.example:443/");
        assert_eq!(
            c.auth_info.impersonate.as_deref(),
            Some("system:serviceaccount:team-a:deployer")
        );
        assert_eq!(
            c.auth_info.impersonate_groups,
            Some(vec!["a".into(), "b".into()])
        );
        assert_eq!(c.auth_info.impersonate_uid.as_deref(), Some("u-1"));
        assert!(c.auth_info.token.is_some() && c.auth_info.token_file.is_none());
        assert!(c.accept_invalid_certs);
        assert_eq!(c.tls_server_name.as_deref(), Some("kubernetes"));
        assert_eq!(c.read_timeout, Some(Duration::from_secs(30)));
        Ok(())
    }

    #[test]
    fn a_zero_request_timeout_waits_forever() -> Result<(), String> {
        let mut c = config();
        c.read_timeout = Some(Duration::from_secs(5));
        let flags = ConnectionFlags {
            request_timeout: Some(Duration::ZERO),
            ..ConnectionFlags::default()
        };
        flags.apply(&mut c)?;
        assert_eq!((c.read_timeout, c.connect_timeout), (None, None));
        Ok(())
    }

    #[test]
    fn a_token_never_shows_in_debug_output() {
        let flags = ConnectionFlags {
            token: Some(Token("sk-secret-token".into())),
            ..ConnectionFlags::default()
        };
        assert!(!format!("{flags:?}").contains("sk-secret-token"));
    }

    #[test]
    fn a_missing_or_empty_ca_file_is_named() {
        let missing = ConnectionFlags {
            certificate_authority: Some("/nonexistent/ca.pem".into()),
            ..ConnectionFlags::default()
        };
        let err = missing.apply(&mut config()).err().unwrap_or_default();
        assert!(err.contains("/nonexistent/ca.pem"), "{err}");
    }

    #[test]
    fn servers_must_be_urls() {
        assert!(parse_server("https://127.0.0.1:6443").is_ok());
        for bad in ["127.0.0.1:6443", "ftp://x", "", "https://"] {
            assert!(parse_server(bad).is_err(), "{bad}");
        }
    }
}
