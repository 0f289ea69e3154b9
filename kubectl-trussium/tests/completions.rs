//! The completion scripts committed in completions/ match the code.
//! `UPDATE_GENERATED=1 cargo test -p kubectl-trussium --test completions`
//! (`make generate`) rewrites them.

use std::path::PathBuf;

use clap::ValueEnum;
use kubectl_trussium::cli::CompletionShell;
use kubectl_trussium::commands::completion::{file_name, script};

fn completions_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../completions")
}

#[test]
fn committed_completion_scripts_are_up_to_date() {
    let update = std::env::var_os("UPDATE_GENERATED").is_some_and(|v| v == "1");
    let mut stale = Vec::new();
    for shell in CompletionShell::value_variants() {
        let path = completions_dir().join(file_name(*shell));
        let want = script(*shell);
        if update {
            std::fs::write(&path, &want).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            #[cfg(unix)]
            if *shell == CompletionShell::Kubectl {
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
                    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            }
            continue;
        }
        let have = std::fs::read_to_string(&path).unwrap_or_default();
        if have != want {
            stale.push(path.display().to_string());
        }
    }
    assert!(
        stale.is_empty(),
        "stale completion scripts {stale:?}: run `make generate` and commit the result"
    );
}

#[cfg(unix)]
#[test]
fn kubectl_helper_is_executable() {
    use std::os::unix::fs::PermissionsExt;
    if std::env::var_os("UPDATE_GENERATED").is_some_and(|v| v == "1") {
        return; // being rewritten by the other test
    }
    let path = completions_dir().join(file_name(CompletionShell::Kubectl));
    let mode = std::fs::metadata(&path)
        .map(|m| m.permissions().mode())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(mode & 0o111 != 0, "{} is not executable", path.display());
}
