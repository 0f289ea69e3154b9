//! Acting as a ServiceAccount: a token from the TokenRequest API, as a client
//! or as a kubeconfig file for binaries.

use std::path::Path;

use k8s_openapi::api::authentication::v1::{TokenRequest, TokenRequestSpec};
use k8s_openapi::api::core::v1::ServiceAccount;
use kube::api::PostParams;
use kube::config::{AuthInfo, Context, KubeConfigOptions, Kubeconfig, NamedAuthInfo, NamedContext};
use kube::{Api, Client, Config};
use secrecy::SecretString;

use crate::{Error, admin_kubeconfig};

/// Lifetime asked for minted tokens: longer than any test run.
const TOKEN_SECONDS: i64 = 4 * 3600;

/// The username the API server (and the audit log) gives a ServiceAccount.
pub fn service_account_username(namespace: &str, name: &str) -> String {
    format!("system:serviceaccount:{namespace}:{name}")
}

/// A client that authenticates as ServiceAccount `namespace/name` with a fresh
/// token, against the same server and CA as the admin kubeconfig.
pub async fn client_as_service_account(
    admin: &Client,
    namespace: &str,
    name: &str,
) -> Result<Client, Error> {
    let kubeconfig = service_account_kubeconfig(admin, namespace, name).await?;
    let config = Config::from_custom_kubeconfig(kubeconfig, &KubeConfigOptions::default()).await?;
    Ok(Client::try_from(config)?)
}

/// Writes a kubeconfig that authenticates as ServiceAccount `namespace/name`
/// (for running binaries such as the operator or `kubectl` as it).
pub async fn kubeconfig_for_service_account(
    admin: &Client,
    namespace: &str,
    name: &str,
    path: &Path,
) -> Result<(), Error> {
    let kubeconfig = service_account_kubeconfig(admin, namespace, name).await?;
    let yaml = serde_yaml::to_string(&kubeconfig)?;
    std::fs::write(path, yaml).map_err(|e| Error::io(path, e))
}

/// The admin kubeconfig's cluster with a ServiceAccount token as the only user.
async fn service_account_kubeconfig(
    admin: &Client,
    namespace: &str,
    name: &str,
) -> Result<Kubeconfig, Error> {
    let token = mint_token(admin, namespace, name).await?;
    let admin_kubeconfig = admin_kubeconfig()?;
    let cluster = admin_kubeconfig
        .clusters
        .into_iter()
        .next()
        .ok_or_else(|| Error::NoCluster {
            path: crate::admin_kubeconfig_path(),
            reason: "it names no cluster".into(),
        })?;
    let user = service_account_username(namespace, name);
    Ok(Kubeconfig {
        current_context: Some(user.clone()),
        contexts: vec![NamedContext {
            name: user.clone(),
            context: Some(Context {
                cluster: cluster.name.clone(),
                user: Some(user.clone()),
                namespace: Some(namespace.to_string()),
                ..Context::default()
            }),
            ..NamedContext::default()
        }],
        auth_infos: vec![NamedAuthInfo {
            name: user,
            auth_info: Some(AuthInfo {
                token: Some(SecretString::from(token)),
                ..AuthInfo::default()
            }),
            ..NamedAuthInfo::default()
        }],
        clusters: vec![cluster],
        ..Kubeconfig::default()
    })
}

/// Asks the TokenRequest API for a token of the ServiceAccount.
async fn mint_token(admin: &Client, namespace: &str, name: &str) -> Result<String, Error> {
    let service_accounts: Api<ServiceAccount> = Api::namespaced(admin.clone(), namespace);
    let request = TokenRequest {
        spec: TokenRequestSpec {
            audiences: vec![],
            expiration_seconds: Some(TOKEN_SECONDS),
            bound_object_ref: None,
        },
        ..TokenRequest::default()
    };
    let response = service_accounts
        .create_token_request(name, &PostParams::default(), &request)
        .await?;
    response
        .status
        .map(|s| s.token)
        .filter(|t| !t.is_empty())
        .ok_or_else(|| Error::NoToken {
            namespace: namespace.to_string(),
            name: name.to_string(),
        })
}
