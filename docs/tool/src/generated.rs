//! Every generated file of the manual, as the code makes it now. The test
//! `tests/generated.rs` compares them with the committed ones;
//! `UPDATE_GENERATED=1` (`make generate`) writes them.

use std::path::Path;

use crate::vocabulary::{operator_command, plugin_command};
use crate::{Error, api_reference, cli_reference, man, read, upstream};

/// The plugin's command-line reference page.
pub const PLUGIN_REFERENCE: &str = "docs/src/plugin/reference.md";
/// The operator's command-line reference page.
pub const OPERATOR_REFERENCE: &str = "docs/src/reference/operator.md";

/// A generated file: its path relative to the repository's root, and contents.
pub struct File {
    pub path: String,
    pub contents: Vec<u8>,
}

/// All generated files.
pub fn files(repo: &Path) -> Result<Vec<File>, Error> {
    let mut files = Vec::new();
    let crd_path = trussium_api::crd::CRD_PATH;
    let crd_yaml = read(&repo.join(crd_path))?;
    let kubernetes_types = upstream::kubernetes_types()?;
    let docs_version = kubernetes_docs_version(&read(&repo.join("Cargo.toml"))?)?;
    files.push(File {
        path: api_reference::PAGE.into(),
        contents: api_reference::render(&api_reference::Inputs {
            crd_yaml: &crd_yaml,
            crd_path,
            kubernetes_types: &kubernetes_types,
            kubernetes_docs_version: &docs_version,
        })?
        .into_bytes(),
    });
    files.push(File {
        path: PLUGIN_REFERENCE.into(),
        contents: cli_reference::render(
            &cli_reference::Page {
                title: "kubectl trussium reference",
                invoked_as: "kubectl trussium",
                source: "the plugin's command line (kubectl-trussium/src)",
                introduction: "Every command of the plugin, its arguments and options, as `--help` \
                    prints them. The same pages ship as man pages (`man kubectl-trussium-status`) in \
                    the release archives. kubectl's standard options go after the plugin's name \
                    and apply to every command.",
            },
            plugin_command(),
        )
        .into_bytes(),
    });
    files.push(File {
        path: OPERATOR_REFERENCE.into(),
        contents: cli_reference::render(
            &cli_reference::Page {
                title: "trussium-operator command line",
                invoked_as: "trussium-operator",
                source: "the operator's command line (operator/src/cli.rs)",
                introduction: "The operator's options, as `trussium-operator --help` prints them. \
                    Those with an environment variable may be set either way; the command line \
                    wins. An invalid value is refused at start-up with one line on stderr and \
                    exit status 2.",
            },
            operator_command(),
        )
        .into_bytes(),
    });
    for (name, contents) in man::pages(plugin_command(), "kubectl-trussium", "kubectl trussium")? {
        files.push(File {
            path: format!("{}/{name}", man::DIR),
            contents,
        });
    }
    Ok(files)
}

/// `v1.33` from the workspace's `k8s-openapi` feature (`v1_33`): the oldest
/// Kubernetes we support, whose API reference the manual links to.
pub fn kubernetes_docs_version(cargo_toml: &str) -> Result<String, Error> {
    let line = cargo_toml
        .lines()
        .find(|l| l.trim_start().starts_with("k8s-openapi"))
        .ok_or_else(|| Error::Invalid("Cargo.toml names no k8s-openapi".into()))?;
    let feature = line
        .split('"')
        .find(|part| part.starts_with("v1_"))
        .ok_or_else(|| Error::Invalid(format!("no Kubernetes version feature in `{line}`")))?;
    Ok(feature.replacen('_', ".", 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kubernetes_version_from_the_workspace() -> Result<(), Error> {
        let toml = "[workspace.dependencies]\nk8s-openapi = { version = \"0.29.0\", features = [\"v1_33\"] }\n";
        assert_eq!(kubernetes_docs_version(toml)?, "v1.33");
        Ok(())
    }
}
