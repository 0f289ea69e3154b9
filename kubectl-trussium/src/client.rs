//! The Kubernetes client, built the way kubectl would from `--kubeconfig`,
//! `--context`, `-n`, `KUBECONFIG` and kubectl's connection flags
//! ([`crate::connection`]).

use std::fmt::Debug;

use kube::api::{ListParams, ObjectList};
use kube::config::{KubeConfigOptions, Kubeconfig, KubeconfigError};
use kube::{Api, Client, Config};
use serde::de::DeserializeOwned;
use trussium_api::TrussiumRuntime;

use crate::cli::GlobalFlags;
use crate::error::{Error, RUNTIMES, Request, Result, classify};
use crate::fetched::Fetched;

/// A connected client and where to point it.
#[derive(Clone)]
pub struct Target {
    pub client: Client,
    /// `-n`, else the context's namespace, else `default`.
    pub namespace: String,
    pub all_namespaces: bool,
    /// The API server URL, for error messages.
    pub server: String,
    /// `--as`: whom the requests impersonate.
    pub impersonating: Option<String>,
}

impl Target {
    /// TrussiumRuntimes in the target namespace.
    pub fn runtimes(&self) -> Api<TrussiumRuntime> {
        Api::namespaced(self.client.clone(), &self.namespace)
    }

    /// TrussiumRuntimes in the namespace, or in all of them with `-A`.
    pub fn runtimes_in_scope(&self) -> Api<TrussiumRuntime> {
        if self.all_namespaces {
            Api::all(self.client.clone())
        } else {
            self.runtimes()
        }
    }

    /// The namespace for messages, `None` with `-A`.
    pub fn scope(&self) -> Option<&str> {
        (!self.all_namespaces).then_some(self.namespace.as_str())
    }

    /// The request `verb` on the named runtime, as error messages name it.
    pub fn runtime_request(&self, verb: &'static str, name: &str) -> Request {
        Request::new(verb, RUNTIMES)
            .namespace(Some(&self.namespace))
            .name(name)
    }

    /// TrussiumRuntimes in the target namespace, read as far as each can be.
    pub fn fetched(&self) -> Api<Fetched> {
        Api::namespaced(self.client.clone(), &self.namespace)
    }

    /// [`Target::fetched`] in the namespace, or in all of them with `-A`.
    pub fn fetched_in_scope(&self) -> Api<Fetched> {
        if self.all_namespaces {
            Api::all(self.client.clone())
        } else {
            self.fetched()
        }
    }

    /// Reads one runtime as far as it can be read (see [`Fetched`]).
    pub async fn get_fetched(&self, name: &str) -> Result<Fetched> {
        self.fetched()
            .get(name)
            .await
            .map_err(|e| self.fail(self.runtime_request("get", name), e))
    }

    /// Reads one runtime whole; failures become the error people read.
    pub async fn get_runtime(&self, name: &str) -> Result<TrussiumRuntime> {
        let fetched = self.get_fetched(name).await?;
        match (fetched.runtime, fetched.problem) {
            (Some(rt), None) => Ok(rt),
            (_, problem) => Err(Error::Unreadable {
                name: name.to_string(),
                namespace: self.namespace.clone(),
                reason: problem.unwrap_or_default(),
            }),
        }
    }

    /// Reads one runtime for a command that needs only its spec and
    /// metadata: a status that cannot be read is left out.
    pub async fn get_runtime_spec(&self, name: &str) -> Result<TrussiumRuntime> {
        let fetched = self.get_fetched(name).await?;
        match (fetched.runtime, fetched.problem) {
            (Some(rt), _) => Ok(rt),
            (None, problem) => Err(Error::Unreadable {
                name: name.to_string(),
                namespace: self.namespace.clone(),
                reason: problem.unwrap_or_default(),
            }),
        }
    }

    /// Every object `params` selects, in pages of 500 like kubectl, so a
    /// large namespace is never one huge response. `request` names the list
    /// in an error.
    pub async fn list_all<K>(
        &self,
        api: &Api<K>,
        params: ListParams,
        request: Request,
    ) -> Result<Vec<K>>
    where
        K: Clone + Debug + DeserializeOwned,
    {
        let mut items = Vec::new();
        let mut params = params.limit(500);
        loop {
            let page: ObjectList<K> = api
                .list(&params)
                .await
                .map_err(|e| self.fail(request.clone(), e))?;
            let next = page.metadata.continue_.clone().filter(|c| !c.is_empty());
            items.extend(page.items);
            match next {
                Some(token) => params = params.continue_token(&token),
                None => return Ok(items),
            }
        }
    }

    /// Maps a failed request to the error people read.
    pub fn fail(&self, request: Request, err: kube::Error) -> Error {
        classify(err, &request, &self.server)
    }

    /// The error for a failed watch.
    pub fn fail_watch(&self, request: Request, err: kube::runtime::watcher::Error) -> Error {
        use kube::runtime::watcher::Error as W;
        match err {
            W::InitialListFailed(e) | W::WatchStartFailed(e) | W::WatchFailed(e) => {
                self.fail(request, e)
            }
            W::WatchError(status) => self.fail(request, kube::Error::Api(status)),
            W::NoResourceVersion => Error::Api {
                request,
                code: 0,
                message: "the server sent no resourceVersion".to_string(),
            },
        }
    }
}

/// Whether a watch error is worth giving up on (rather than letting the
/// watcher retry): credentials, permissions, or a missing resource.
pub fn watch_error_is_fatal(err: &kube::runtime::watcher::Error) -> bool {
    use kube::runtime::watcher::Error as W;
    let status = match err {
        W::InitialListFailed(kube::Error::Api(s))
        | W::WatchStartFailed(kube::Error::Api(s))
        | W::WatchFailed(kube::Error::Api(s)) => s.code,
        W::WatchError(s) => s.code,
        _ => return false,
    };
    matches!(status, 401 | 403 | 404)
}

/// Connects as kubectl would.
pub async fn connect(flags: &GlobalFlags) -> Result<Target> {
    let mut config = load_config(flags).await?;
    flags.connection.apply(&mut config).map_err(Error::Config)?;
    let server = config.cluster_url.to_string();
    let server = server.trim_end_matches('/').to_string();
    let namespace = flags
        .namespace
        .as_deref()
        .map_or_else(|| config.default_namespace.clone(), str::to_string);
    let client = crate::tls::client(config, flags.connection.logs_requests())
        .map_err(|e| Error::Config(format!("cannot set up a client for {server}: {e}")))?;
    Ok(Target {
        client,
        namespace,
        all_namespaces: flags.all_namespaces,
        server,
        impersonating: flags.connection.as_user.clone(),
    })
}

async fn load_config(flags: &GlobalFlags) -> Result<Config> {
    let options = KubeConfigOptions {
        context: flags.context.as_deref().map(str::to_string),
        cluster: flags.connection.cluster.as_deref().map(str::to_string),
        user: flags.connection.user.as_deref().map(str::to_string),
    };
    let kubeconfig = match &flags.kubeconfig {
        Some(path) => Kubeconfig::read_from(path).map_err(|e| config_error(e, flags))?,
        None => match Kubeconfig::read() {
            Ok(kubeconfig) => kubeconfig,
            // No kubeconfig at all, but --server: that server, with the
            // other flags' credentials (as kubectl).
            Err(KubeconfigError::FindPath | KubeconfigError::ReadConfig(..))
                if flags.context.is_none()
                    && std::env::var_os("KUBECONFIG").is_none()
                    && flags.connection.server.is_some() =>
            {
                let server = flags.connection.server.clone().unwrap_or_default();
                return Ok(Config::new(server));
            }
            // No kubeconfig at all: inside a pod, use its ServiceAccount.
            Err(KubeconfigError::FindPath | KubeconfigError::ReadConfig(..))
                if flags.context.is_none() && std::env::var_os("KUBECONFIG").is_none() =>
            {
                return Config::incluster().map_err(|_| {
                    Error::Config(
                        "no kubeconfig found: set KUBECONFIG, pass --kubeconfig, or create ~/.kube/config"
                            .to_string(),
                    )
                });
            }
            Err(e) => return Err(config_error(e, flags)),
        },
    };
    Config::from_custom_kubeconfig(kubeconfig, &options)
        .await
        .map_err(|e| config_error(e, flags))
}

fn config_error(err: KubeconfigError, flags: &GlobalFlags) -> Error {
    let message = match (&err, &flags.context) {
        (KubeconfigError::LoadContext(_), Some(context)) => {
            format!("context {:?} not found in the kubeconfig", context.0)
        }
        (KubeconfigError::ReadConfig(e, path), _) => {
            format!("cannot read the kubeconfig {}: {e}", path.display())
        }
        (KubeconfigError::CurrentContextNotSet, None) => {
            "the kubeconfig has no current-context: pass --context".to_string()
        }
        _ => format!("cannot load the kubeconfig: {err}"),
    };
    Error::Config(message)
}
