//! `kubectl trussium version`: the plugin's version and the platform it was
//! built for (what a bug report needs; the release tests read it too).

use crate::error::Result;
use crate::output;

pub fn run() -> Result<()> {
    output::println(&line())
}

/// `kubectl-trussium 0.1.0 (linux/arm64)`, in Go's platform names like krew.
pub fn line() -> String {
    let arch = match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "aarch64" => "arm64",
        other => other,
    };
    format!(
        "kubectl-trussium {} ({}/{arch})",
        env!("CARGO_PKG_VERSION"),
        std::env::consts::OS
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_version_and_platform() {
        let line = line();
        assert!(
            line.starts_with(concat!(
                "kubectl-trussium ",
                env!("CARGO_PKG_VERSION"),
                " ("
            )),
            "{line}"
        );
        assert!(
            line.ends_with("/amd64)") || line.ends_with("/arm64)"),
            "{line}"
        );
    }
}
