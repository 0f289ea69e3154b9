//! A tap between a client and the API server that sees each request's head:
//! it ends the client's TLS with a certificate for 127.0.0.1 signed by the
//! local cluster's CA (which the client already trusts), opens its own TLS
//! connection to the API server, and passes bytes both ways, recording the
//! method, path and `Accept` header of every request on the way. What a
//! test asks of it: which requests a client sent, as the API server got
//! them, headers included (the audit log has no headers, and a watch's
//! answer is not in it).

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;
use tokio_rustls::{TlsAcceptor, TlsConnector};

use crate::relay::reached_through;
use crate::{BoxError, cluster_dir, e2e_dir};

/// One request as the tap saw it.
#[derive(Clone, Debug)]
pub struct Tapped {
    pub method: String,
    /// With its query.
    pub path: String,
    pub accept: Option<String>,
}

/// A running tap; stops when dropped.
pub struct Tap {
    pub address: SocketAddr,
    seen: Arc<Mutex<Vec<Tapped>>>,
    task: JoinHandle<()>,
}

impl Tap {
    /// Starts a tap in front of the API server at `upstream`.
    pub async fn start(upstream: SocketAddr) -> Result<Tap, BoxError> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let pki = cluster_dir().join("pki");
        let (certificate, key) = certificate_for_loopback(&pki)?;
        let mut server = rustls::ServerConfig::builder_with_provider(provider.clone())
            .with_safe_default_protocol_versions()?
            .with_no_client_auth()
            .with_single_cert(vec![certificate], key)?;
        // One request head after another on a connection: HTTP/1.1 only.
        server.alpn_protocols = vec![b"http/1.1".to_vec()];
        let mut roots = rustls::RootCertStore::empty();
        roots.add(CertificateDer::from_pem_file(pki.join("ca.crt"))?)?;
        let client = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()?
            .with_root_certificates(roots)
            .with_no_client_auth();
        let acceptor = TlsAcceptor::from(Arc::new(server));
        let connector = TlsConnector::from(Arc::new(client));
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let address = listener.local_addr()?;
        let seen = Arc::new(Mutex::new(Vec::new()));
        let recorded = seen.clone();
        let task = tokio::spawn(async move {
            while let Ok((incoming, _)) = listener.accept().await {
                let (acceptor, connector, recorded) =
                    (acceptor.clone(), connector.clone(), recorded.clone());
                tokio::spawn(async move {
                    let Ok(client) = acceptor.accept(incoming).await else {
                        return;
                    };
                    let Ok(tcp) = TcpStream::connect(upstream).await else {
                        return;
                    };
                    let name = ServerName::IpAddress(upstream.ip().into());
                    let Ok(server) = connector.connect(name, tcp).await else {
                        return;
                    };
                    let (client_read, client_write) = tokio::io::split(client);
                    let (server_read, server_write) = tokio::io::split(server);
                    tokio::select! {
                        () = requests(client_read, server_write, recorded) => {}
                        () = copy(server_read, client_write) => {}
                    }
                });
            }
        });
        Ok(Tap {
            address,
            seen,
            task,
        })
    }

    /// Every request so far.
    pub fn seen(&self) -> Vec<Tapped> {
        self.seen.lock().map(|s| s.clone()).unwrap_or_default()
    }

    /// A copy of `kubeconfig` whose clusters are reached through the tap
    /// (the CA stays: the tap's certificate is the cluster CA's).
    pub fn kubeconfig(&self, kubeconfig: &Path) -> Result<PathBuf, BoxError> {
        reached_through(kubeconfig, self.address, "tapped.kubeconfig")
    }
}

impl Drop for Tap {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// A key and a certificate for IP 127.0.0.1, signed by the cluster's CA
/// (made with openssl, as the cluster's own PKI is).
fn certificate_for_loopback(
    pki: &Path,
) -> Result<(CertificateDer<'static>, PrivateKeyDer<'static>), BoxError> {
    let dir = e2e_dir().join("tap");
    std::fs::create_dir_all(&dir)?;
    let run = |args: &[&str]| -> Result<(), BoxError> {
        let out = std::process::Command::new("openssl")
            .args(args)
            .current_dir(&dir)
            .output()?;
        if !out.status.success() {
            return Err(format!(
                "openssl {}: {}",
                args.join(" "),
                String::from_utf8_lossy(&out.stderr)
            )
            .into());
        }
        Ok(())
    };
    let ca_crt = pki.join("ca.crt").to_string_lossy().to_string();
    let ca_key = pki.join("ca.key").to_string_lossy().to_string();
    std::fs::write(dir.join("ext.cnf"), "subjectAltName=IP:127.0.0.1\n")?;
    run(&[
        "genpkey",
        "-algorithm",
        "EC",
        "-pkeyopt",
        "ec_paramgen_curve:P-256",
        "-out",
        "tap.key",
    ])?;
    run(&[
        "req",
        "-new",
        "-key",
        "tap.key",
        "-subj",
        "/CN=127.0.0.1",
        "-out",
        "tap.csr",
    ])?;
    run(&[
        "x509",
        "-req",
        "-in",
        "tap.csr",
        "-CA",
        &ca_crt,
        "-CAkey",
        &ca_key,
        "-CAcreateserial",
        "-days",
        "1",
        "-extfile",
        "ext.cnf",
        "-out",
        "tap.crt",
    ])?;
    Ok((
        CertificateDer::from_pem_file(dir.join("tap.crt"))?,
        PrivateKeyDer::from_pem_file(dir.join("tap.key"))?,
    ))
}

/// Passes the client's requests on, recording each head. A body is framed
/// by its Content-Length (what kube sends); a chunked one ends the parsing,
/// and the rest passes unread.
async fn requests<R, W>(mut from: R, mut to: W, seen: Arc<Mutex<Vec<Tapped>>>)
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut buffer: Vec<u8> = Vec::new();
    let mut chunk = vec![0u8; 16 * 1024];
    loop {
        let Some(end) = buffer.windows(4).position(|w| w == b"\r\n\r\n") else {
            match from.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(n) => buffer.extend_from_slice(&chunk[..n]),
            }
            continue;
        };
        let head = String::from_utf8_lossy(&buffer[..end]).to_string();
        let mut lines = head.split("\r\n");
        let mut request = lines.next().unwrap_or_default().split(' ');
        let (method, path) = (request.next(), request.next());
        let header = |name: &str| {
            head.split("\r\n").skip(1).find_map(|l| {
                let (key, value) = l.split_once(':')?;
                key.trim()
                    .eq_ignore_ascii_case(name)
                    .then(|| value.trim().to_string())
            })
        };
        if let Ok(mut seen) = seen.lock() {
            seen.push(Tapped {
                method: method.unwrap_or_default().to_string(),
                path: path.unwrap_or_default().to_string(),
                accept: header("accept"),
            });
        }
        let chunked = header("transfer-encoding").is_some_and(|t| t.contains("chunked"));
        let mut body: usize = header("content-length")
            .and_then(|l| l.parse().ok())
            .unwrap_or(0);
        // The head, and what of the body came with it.
        let head_end = end + 4;
        let with_head = body.min(buffer.len() - head_end);
        if to.write_all(&buffer[..head_end + with_head]).await.is_err() {
            return;
        }
        buffer.drain(..head_end + with_head);
        body -= with_head;
        while body > 0 {
            let n = match from.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(n) => n,
            };
            let part = n.min(body);
            if to.write_all(&chunk[..part]).await.is_err() {
                return;
            }
            buffer.extend_from_slice(&chunk[part..n]);
            body -= part;
        }
        if chunked {
            if to.write_all(&buffer).await.is_err() {
                return;
            }
            copy(from, to).await;
            return;
        }
    }
}

async fn copy<R, W>(mut from: R, mut to: W)
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let _ = tokio::io::copy(&mut from, &mut to).await;
}
