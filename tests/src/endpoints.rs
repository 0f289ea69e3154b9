//! Where an operator process serves /metrics and its probes. Tests start it
//! on port 0 (the kernel picks a free port, with no window in which another
//! process could take it) and read the addresses from its log: at start-up
//! the operator logs one `serving` line per listener, with the `endpoint`
//! (`metrics`, `probes`) and the `address` it got, in either log format.

use std::io::{BufRead, BufReader, Seek, SeekFrom};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use crate::operator::without_colours;
use crate::{Error, wait_for};

/// The bind address that lets the kernel pick the port.
pub const ANY_LOOPBACK_PORT: &str = "127.0.0.1:0";

/// How long a process may take to log where it serves: it binds before it
/// talks to the API server, so only a loaded machine makes this take long.
const LOGGED: Duration = Duration::from_secs(60);

/// How far into a process's log its `serving` lines may be (they come
/// first; what follows is not read).
const HEAD_LINES: usize = 1000;

/// One of the operator's listeners.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Endpoint {
    Metrics,
    Probes,
}

impl Endpoint {
    fn name(self) -> &'static str {
        match self {
            Endpoint::Metrics => "metrics",
            Endpoint::Probes => "probes",
        }
    }

    fn named(name: &str) -> Option<Endpoint> {
        [Endpoint::Metrics, Endpoint::Probes]
            .into_iter()
            .find(|e| e.name() == name)
    }
}

/// The endpoint and address of an operator's `serving` line, in the text
/// format (with or without colours) or the JSON one; `None` for any other
/// line.
pub fn serving(line: &str) -> Option<(Endpoint, SocketAddr)> {
    let line = line.trim();
    if line.starts_with('{') {
        let value: serde_json::Value = serde_json::from_str(line).ok()?;
        let fields = value.get("fields")?;
        if fields.get("message")?.as_str()? != "serving" {
            return None;
        }
        let endpoint = Endpoint::named(fields.get("endpoint")?.as_str()?)?;
        return Some((endpoint, fields.get("address")?.as_str()?.parse().ok()?));
    }
    let plain = without_colours(line);
    let mut words = plain.split_whitespace();
    words.find(|w| *w == "serving")?;
    let (mut endpoint, mut address) = (None, None);
    for word in words {
        if let Some(name) = word.strip_prefix("endpoint=") {
            endpoint = Endpoint::named(name.trim_matches('"'));
        } else if let Some(value) = word.strip_prefix("address=") {
            address = value.trim_matches('"').parse().ok();
        }
    }
    Some((endpoint?, address?))
}

/// Where a process whose output goes to `log` serves, read from the log
/// from byte `from` on (the log may hold earlier processes' lines); each
/// address is read once and remembered.
#[derive(Debug)]
pub struct LoggedEndpoints {
    log: PathBuf,
    from: u64,
    found: Mutex<Vec<(Endpoint, SocketAddr)>>,
}

impl LoggedEndpoints {
    /// For a process about to start, its output appended to `log`.
    pub fn before_start(log: &Path) -> LoggedEndpoints {
        let from = std::fs::metadata(log).map(|m| m.len()).unwrap_or(0);
        LoggedEndpoints {
            log: log.to_path_buf(),
            from,
            found: Mutex::new(Vec::new()),
        }
    }

    /// The address of `endpoint`, waiting until the process has logged it.
    pub async fn address(&self, endpoint: Endpoint) -> Result<SocketAddr, Error> {
        if let Some(address) = self.remembered(endpoint) {
            return Ok(address);
        }
        let what = format!(
            "the {} address in {} (a `serving` line)",
            endpoint.name(),
            self.log.display()
        );
        let address = wait_for(&what, LOGGED, async || {
            Ok(self
                .read()?
                .into_iter()
                .find_map(|(e, address)| (e == endpoint).then_some(address)))
        })
        .await?;
        if let Ok(mut found) = self.found.lock() {
            found.push((endpoint, address));
        }
        Ok(address)
    }

    fn remembered(&self, endpoint: Endpoint) -> Option<SocketAddr> {
        let found = self.found.lock().ok()?;
        found
            .iter()
            .find_map(|(e, address)| (*e == endpoint).then_some(*address))
    }

    /// The `serving` lines among the first lines after `from`.
    fn read(&self) -> Result<Vec<(Endpoint, SocketAddr)>, Error> {
        let mut file = std::fs::File::open(&self.log).map_err(|e| Error::io(&self.log, e))?;
        file.seek(SeekFrom::Start(self.from))
            .map_err(|e| Error::io(&self.log, e))?;
        Ok(BufReader::new(file)
            .split(b'\n')
            .take(HEAD_LINES)
            .map_while(Result::ok)
            .filter_map(|line| serving(&String::from_utf8_lossy(&line)))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // As the operator writes them (`--log-format=text` with colours, and
    // `--log-format=json`).
    const TEXT: &str = "\u{1b}[2m2026-12-03T07:50:01.123456Z\u{1b}[0m \u{1b}[32m INFO\u{1b}[0m \u{1b}[2mtrussium_operator::shell::endpoints\u{1b}[0m\u{1b}[2m:\u{1b}[0m serving \u{1b}[3mendpoint\u{1b}[0m\u{1b}[2m=\u{1b}[0m\"metrics\" \u{1b}[3maddress\u{1b}[0m\u{1b}[2m=\u{1b}[0m127.0.0.1:41234";
    const JSON: &str = r#"{"timestamp":"2026-12-03T07:50:01.123456Z","level":"INFO","fields":{"message":"serving","endpoint":"probes","address":"127.0.0.1:41235"},"target":"trussium_operator::shell::endpoints"}"#;

    #[test]
    fn serving_lines_in_both_formats() {
        assert_eq!(
            serving(TEXT),
            Some((Endpoint::Metrics, SocketAddr::from(([127, 0, 0, 1], 41234))))
        );
        assert_eq!(
            serving(&without_colours(TEXT)),
            Some((Endpoint::Metrics, SocketAddr::from(([127, 0, 0, 1], 41234))))
        );
        assert_eq!(
            serving(JSON),
            Some((Endpoint::Probes, SocketAddr::from(([127, 0, 0, 1], 41235))))
        );
    }

    #[test]
    fn other_lines_are_not_serving_lines() {
        for line in [
            "",
            "2026-12-03T07:50:01Z  INFO trussium_operator: starting scope=Cluster",
            "2026-12-03T07:50:01Z DEBUG trussium_operator::shell::endpoints: serving a connection error=eof",
            "2026-12-03T07:50:01Z  INFO x: serving endpoint=\"metrics\" address=nowhere",
            "2026-12-03T07:50:01Z  INFO x: serving endpoint=\"other\" address=127.0.0.1:1",
            r#"{"fields":{"message":"starting","endpoint":"metrics","address":"127.0.0.1:1"}}"#,
            r#"{"fields":{"message":"serving","endpoint":"metrics"}}"#,
            "{not json",
        ] {
            assert_eq!(serving(line), None, "{line}");
        }
    }

    #[tokio::test]
    async fn addresses_after_the_mark_only() -> Result<(), Error> {
        let dir = std::env::temp_dir().join(format!("trussium-endpoints-{}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
        let log = dir.join("operator.log");
        // An earlier process's lines, then this one's.
        let earlier = "x INFO y: serving endpoint=metrics address=127.0.0.1:1000\n";
        std::fs::write(&log, earlier).map_err(|e| Error::io(&log, e))?;
        let endpoints = LoggedEndpoints::before_start(&log);
        let now =
            format!("{earlier}{JSON}\nx INFO y: serving endpoint=metrics address=127.0.0.1:2000\n");
        std::fs::write(&log, now).map_err(|e| Error::io(&log, e))?;
        assert_eq!(
            endpoints.address(Endpoint::Metrics).await?,
            SocketAddr::from(([127, 0, 0, 1], 2000))
        );
        assert_eq!(
            endpoints.address(Endpoint::Probes).await?,
            SocketAddr::from(([127, 0, 0, 1], 41235))
        );
        // Remembered: the log may be gone later.
        std::fs::remove_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
        assert_eq!(
            endpoints.address(Endpoint::Metrics).await?,
            SocketAddr::from(([127, 0, 0, 1], 2000))
        );
        Ok(())
    }
}
