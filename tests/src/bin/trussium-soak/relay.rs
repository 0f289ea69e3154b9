//! A TCP relay in front of the API server whose open connections the soak
//! can cut: every connection through it is closed at once (watches, the
//! Lease renewals, requests in flight), as when a load balancer or a
//! restarting API server drops them; new connections pass as before.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::production_support::BoxError;
use kube::config::Kubeconfig;
use tokio::net::{TcpListener, TcpStream};
use tokio::task::{AbortHandle, JoinHandle};

pub struct Relay {
    address: SocketAddr,
    open: Arc<Mutex<Vec<AbortHandle>>>,
    task: JoinHandle<()>,
}

impl Relay {
    /// Relays a loopback port to `upstream`.
    pub async fn start(upstream: SocketAddr) -> Result<Relay, BoxError> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let address = listener.local_addr()?;
        let open: Arc<Mutex<Vec<AbortHandle>>> = Arc::default();
        let task = tokio::spawn({
            let open = open.clone();
            async move {
                while let Ok((mut client, _)) = listener.accept().await {
                    let connection = tokio::spawn(async move {
                        if let Ok(mut server) = TcpStream::connect(upstream).await {
                            let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
                        }
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
            open,
            task,
        })
    }

    /// Closes every open connection; returns how many there were.
    pub fn cut(&self) -> usize {
        let Ok(mut open) = self.open.lock() else {
            return 0;
        };
        let cut = open.iter().filter(|c| !c.is_finished()).count();
        for connection in open.drain(..) {
            connection.abort();
        }
        cut
    }

    /// A copy of `kubeconfig` whose clusters are reached through the relay.
    pub fn kubeconfig(&self, kubeconfig: &Path) -> Result<PathBuf, BoxError> {
        let mut config = Kubeconfig::read_from(kubeconfig)?;
        for cluster in config
            .clusters
            .iter_mut()
            .filter_map(|c| c.cluster.as_mut())
        {
            cluster.server = Some(format!("https://{}", self.address));
        }
        let path = kubeconfig.with_extension("relayed.kubeconfig");
        std::fs::write(&path, serde_yaml::to_string(&config)?)?;
        Ok(path)
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.task.abort();
        self.cut();
    }
}
