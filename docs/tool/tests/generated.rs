//! The manual's generated pages and the man pages committed in the
//! repository match the code. `UPDATE_GENERATED=1 cargo test -p trussium-docs
//! --test generated` (`make generate`) rewrites them.

use std::path::Path;

use trussium_docs::{generated, man, repo_root};

#[test]
fn committed_generated_files_match_the_code() -> Result<(), Box<dyn std::error::Error>> {
    let repo = repo_root();
    let files = generated::files(&repo)?;
    let update = std::env::var_os("UPDATE_GENERATED").is_some_and(|v| v == "1");
    let mut stale = Vec::new();
    for file in &files {
        let path = repo.join(&file.path);
        if update {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir)?;
            }
            std::fs::write(&path, &file.contents)?;
        } else if std::fs::read(&path).ok().as_deref() != Some(file.contents.as_slice()) {
            stale.push(file.path.clone());
        }
    }
    // A man page of a command that is gone.
    for entry in std::fs::read_dir(repo.join(man::DIR))? {
        let path = entry?.path();
        let relative = format!("{}/{}", man::DIR, file_name(&path));
        if !files.iter().any(|f| f.path == relative) {
            if update {
                std::fs::remove_file(&path)?;
            } else {
                stale.push(format!("{relative} (no such command any more)"));
            }
        }
    }
    assert!(
        stale.is_empty(),
        "stale generated files {stale:?}: run `make generate` and commit the result"
    );
    Ok(())
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}
