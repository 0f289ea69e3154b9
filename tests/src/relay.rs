//! A TCP relay in front of the API server that a test can cut: from then on
//! it forwards nothing and closes nothing, as a dead connection or a frozen
//! API server looks to a client (requests neither answer nor fail). It can
//! also cut at the next request the client sends (watches already open
//! deliver until then), and heal: connections opened afterwards pass again,
//! while the ones caught by the cut stay frozen for good.
//!
//! Or it closes every open connection at once and goes on relaying new ones,
//! as a load balancer or a restarting API server drops them (the soak).

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex};

use kube::config::Kubeconfig;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::AbortHandle;

use crate::BoxError;

pub struct Relay {
    pub address: SocketAddr,
    cut: Arc<Cut>,
    /// The connections relayed now.
    open: Arc<Mutex<Vec<AbortHandle>>>,
    task: tokio::task::JoinHandle<()>,
}

/// Whether the relay forwards: [`FORWARDING`], [`ARMED`] (until the client
/// sends something) or [`CUT`].
#[derive(Default)]
struct Cut(AtomicU8);

const FORWARDING: u8 = 0;
const ARMED: u8 = 1;
const CUT: u8 = 2;

impl Cut {
    fn is_cut(&self) -> bool {
        self.0.load(Ordering::SeqCst) == CUT
    }

    /// The client sent something: an armed relay cuts now.
    fn client_sent(&self) {
        let _ = self
            .0
            .compare_exchange(ARMED, CUT, Ordering::SeqCst, Ordering::SeqCst);
    }
}

impl Relay {
    /// Relays a loopback port to `upstream`.
    pub async fn start(upstream: SocketAddr) -> Result<Relay, BoxError> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let address = listener.local_addr()?;
        let cut = Arc::new(Cut::default());
        let open: Arc<Mutex<Vec<AbortHandle>>> = Arc::default();
        let task = tokio::spawn({
            let cut = cut.clone();
            let open = open.clone();
            async move {
                while let Ok((client, _)) = listener.accept().await {
                    let cut = cut.clone();
                    let connection = tokio::spawn(async move {
                        if cut.is_cut() {
                            // Accepted, never answered (`client` stays open).
                            std::future::pending::<()>().await;
                        }
                        let Ok(server) = TcpStream::connect(upstream).await else {
                            return;
                        };
                        let (client_read, client_write) = client.into_split();
                        let (server_read, server_write) = server.into_split();
                        tokio::join!(
                            pump(client_read, server_write, cut.clone(), true),
                            pump(server_read, client_write, cut, false),
                        );
                    });
                    if let Ok(mut open) = open.lock() {
                        open.retain(|c| !c.is_finished());
                        open.push(connection.abort_handle());
                    }
                }
            }
        });
        Ok(Relay {
            address,
            cut,
            open,
            task,
        })
    }

    /// From now on nothing passes, either way, on any connection.
    pub fn cut(&self) {
        self.cut.0.store(CUT, Ordering::SeqCst);
    }

    /// Cuts as soon as the client sends anything (a request on any
    /// connection, or a new connection's handshake); until then the API
    /// server's answers and watch events pass.
    pub fn cut_at_the_next_request(&self) {
        self.cut.0.store(ARMED, Ordering::SeqCst);
    }

    /// Whether it is cut.
    pub fn is_cut(&self) -> bool {
        self.cut.is_cut()
    }

    /// Connections opened from now on pass again; those the cut caught stay
    /// frozen (as a dead connection does).
    pub fn heal(&self) {
        self.cut.0.store(FORWARDING, Ordering::SeqCst);
    }

    /// Closes every open connection (each side sees it closed); new ones
    /// are relayed as before. Returns how many were open.
    pub fn close_connections(&self) -> usize {
        let Ok(mut open) = self.open.lock() else {
            return 0;
        };
        let closed = open.iter().filter(|c| !c.is_finished()).count();
        for connection in open.drain(..) {
            connection.abort();
        }
        closed
    }

    /// A copy of `kubeconfig` whose clusters are reached through the relay.
    pub fn kubeconfig(&self, kubeconfig: &Path) -> Result<PathBuf, BoxError> {
        reached_through(kubeconfig, self.address, "relayed.kubeconfig")
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Copies bytes until either side closes; once cut, holds what it read
/// and keeps both ends open (a close would tell the client something), for
/// good. `from_client`: this pump carries what the client sends.
async fn pump(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    cut: Arc<Cut>,
    from_client: bool,
) {
    let mut buffer = vec![0u8; 16 * 1024];
    loop {
        let read = from.read(&mut buffer).await;
        if from_client && matches!(read, Ok(n) if n > 0) {
            cut.client_sent();
        }
        if cut.is_cut() {
            // `from` and `to` stay open.
            std::future::pending::<()>().await;
        }
        let n = match read {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        if to.write_all(&buffer[..n]).await.is_err() {
            return;
        }
    }
}

/// A copy of `kubeconfig`, written beside it with `extension`, whose
/// clusters are reached at `address` (the CA stays).
pub(crate) fn reached_through(
    kubeconfig: &Path,
    address: SocketAddr,
    extension: &str,
) -> Result<PathBuf, BoxError> {
    let mut config = Kubeconfig::read_from(kubeconfig)?;
    for cluster in config
        .clusters
        .iter_mut()
        .filter_map(|c| c.cluster.as_mut())
    {
        cluster.server = Some(format!("https://{address}"));
    }
    let path = kubeconfig.with_extension(extension);
    std::fs::write(&path, serde_yaml::to_string(&config)?)?;
    Ok(path)
}

/// The API server's address in `kubeconfig` (its first cluster).
pub fn api_server_address(kubeconfig: &Path) -> Result<SocketAddr, BoxError> {
    let config = Kubeconfig::read_from(kubeconfig)?;
    let server = config
        .clusters
        .first()
        .and_then(|c| c.cluster.as_ref()?.server.as_deref())
        .ok_or("kubeconfig without a server")?;
    let host_port = server.trim_start_matches("https://").trim_end_matches('/');
    Ok(host_port.parse()?)
}
