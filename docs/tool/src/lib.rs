//! The manual's generated parts, and its checks.
//!
//! Generated from the code and committed (a test fails when one is stale;
//! `make generate` rewrites them, see [`generated`]): the API reference from
//! the CRD ([`api_reference`]), the command-line references of the plugin and
//! of the operator from their clap definitions ([`cli_reference`]) and the
//! plugin's man pages ([`man`]).
//!
//! Checked ([`names`], [`links`]; `trussium-docs check`, run by `make docs`):
//! every page names only flags, condition types and reasons that the code
//! has ([`vocabulary`] reads them from the code), and every internal link and
//! anchor of the built manual and of the README leads somewhere.

pub mod api_reference;
pub mod cli_reference;
pub mod generated;
pub mod links;
pub mod man;
pub mod markdown;
pub mod names;
pub mod upstream;
pub mod vocabulary;

use std::path::{Path, PathBuf};

/// The repository's root (this crate lives in `docs/tool/`).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The manual's sources, relative to the repository's root.
pub const BOOK_SOURCES: &str = "docs/src";

/// Where the project's files are shown on its code host; links with this
/// prefix must name a file or directory that exists in the repository.
pub const REPOSITORY_URL: &str = "https://github.com/trussiumhq/trussium-operator";

/// A problem a check found, said so that a person can fix it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Finding {
    /// The file, relative to the repository's root.
    pub file: String,
    /// 1-based line, when known.
    pub line: Option<usize>,
    pub message: String,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}: {}", self.file, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

/// Errors of the generators and checks (I/O, a CRD that does not parse).
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{0}")]
    Yaml(#[from] serde_yaml::Error),
    #[error("{0}")]
    Json(#[from] serde_json::Error),
    #[error("{0}")]
    Invalid(String),
}

/// The pages the name checks read, relative to the repository's root: the
/// README and every page of the manual.
pub fn sources(repo: &Path) -> Result<Vec<String>, Error> {
    let mut files = vec!["README.md".to_string()];
    let mut dirs = vec![repo.join(BOOK_SOURCES)];
    while let Some(dir) = dirs.pop() {
        let entries = std::fs::read_dir(&dir).map_err(|source| Error::Io {
            path: dir.display().to_string(),
            source,
        })?;
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                let relative = path.strip_prefix(repo).unwrap_or(&path);
                files.push(relative.display().to_string());
            }
        }
    }
    files[1..].sort();
    Ok(files)
}

/// Reads a file, naming it in the error.
pub fn read(path: &Path) -> Result<String, Error> {
    std::fs::read_to_string(path).map_err(|source| Error::Io {
        path: path.display().to_string(),
        source,
    })
}
