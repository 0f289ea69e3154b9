//! The test registry (tools/registry: go-containerregistry's, with the OCI
//! 1.1 referrers API), on a free loopback port, speaking plain HTTP.

use std::io::BufRead;
use std::process::Stdio;

use crate::{BoxError, repo_root};

/// A running registry; killed when dropped.
pub struct Registry {
    child: std::process::Child,
    pub address: std::net::SocketAddr,
}

impl Drop for Registry {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Registry {
    /// Starts one (the tool is built once per machine by scripts/tool.sh).
    pub fn start() -> Result<Registry, BoxError> {
        let tool = std::process::Command::new(repo_root().join("scripts/tool.sh"))
            .arg("registry")
            .stderr(Stdio::inherit())
            .output()?;
        if !tool.status.success() {
            return Err("scripts/tool.sh registry failed".into());
        }
        let program = String::from_utf8_lossy(&tool.stdout).trim().to_string();
        let mut child = std::process::Command::new(program)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()?;
        let stdout = child.stdout.take();
        let mut first = String::new();
        if let Some(stdout) = stdout {
            std::io::BufReader::new(stdout).read_line(&mut first)?;
        }
        let address = match first.trim().strip_prefix("serving on ").map(str::parse) {
            Some(Ok(address)) => address,
            _ => {
                let _ = child.kill();
                return Err(format!("the registry said {first:?}").into());
            }
        };
        Ok(Registry { child, address })
    }
}
