//! The layout's promise: `src/pure/` does no I/O. Nothing in it reaches the
//! shell, a client, the runtime or the clock, so that every decision there
//! stays a function a unit test can call.

use std::path::{Path, PathBuf};

/// What would bring I/O into the core, and why each is named (matched as
/// text, comments aside).
const FORBIDDEN: [(&str, &str); 12] = [
    ("shell::", "the I/O shell"),
    (
        "crate::{",
        "an import list, which hides what it imports from this check",
    ),
    ("Client", "an API client"),
    ("Api<", "an API client"),
    ("kube::Api", "an API client"),
    ("tokio", "the async runtime"),
    ("async ", "an await point"),
    (".await", "an await point"),
    ("Instant::now", "the clock (take `now` as an argument)"),
    ("SystemTime::now", "the clock (take `now` as an argument)"),
    ("Timestamp::now", "the clock (take `now` as an argument)"),
    ("std::fs", "the file system"),
];

fn rust_files(dir: &Path, found: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            rust_files(&path, found)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(path);
        }
    }
    Ok(())
}

/// Unit tests may use the clock; the code they test may not.
fn is_test_file(path: &Path) -> bool {
    path.components().any(|c| c.as_os_str() == "tests")
        || path.file_name().is_some_and(|n| n == "tests.rs")
}

#[test]
fn the_pure_core_does_no_io() -> std::io::Result<()> {
    let pure = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/pure");
    let mut files = Vec::new();
    rust_files(&pure, &mut files)?;
    assert!(
        files.len() > 20,
        "found only {} files under {}",
        files.len(),
        pure.display()
    );
    let mut found = Vec::new();
    for file in files.iter().filter(|f| !is_test_file(f)) {
        let text = std::fs::read_to_string(file)?;
        // What follows `#[cfg(test)]` is the file's unit tests.
        let code = text.split("#[cfg(test)]").next().unwrap_or_default();
        for (number, line) in code.lines().enumerate() {
            let line = line.split("//").next().unwrap_or_default();
            for (needle, what) in FORBIDDEN {
                if line.contains(needle) {
                    found.push(format!(
                        "{}:{}: {what} ({needle})",
                        file.display(),
                        number + 1
                    ));
                }
            }
        }
    }
    assert!(found.is_empty(), "I/O in src/pure/:\n{}", found.join("\n"));
    Ok(())
}
