//! `kubectl trussium logs NAME`: the runtime container's log from every pod
//! of the runtime, each line prefixed with its pod as `kubectl logs -l …
//! --prefix` does. `-f` follows them all: a pod that starts meanwhile joins
//! the stream, one that goes away leaves it, so a rollout can be watched
//! from end to end.
//!
//! Like every view of the plugin, control characters in a line are escaped
//! (a tenant's container writes these lines); `kubectl logs` gives the raw
//! bytes.

use std::collections::BTreeMap;
use std::time::Duration;

use clap::Args;
use futures::{AsyncBufRead, AsyncBufReadExt, StreamExt};
use k8s_openapi::api::core::v1::Pod;
use kube::api::LogParams;
use kube::runtime::{WatchStreamExt, watcher};
use kube::{Api, ResourceExt};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use trussium_api::duration;
use trussium_api::operator::RUNTIME_CONTAINER;

use crate::cli::RuntimeName;
use crate::client::{Target, watch_error_is_fatal};
use crate::error::{Error, Request, Result};
use crate::output;
use crate::runtime_pods;
use crate::terminal::{MAX_CHARS, bounded, safe};

/// How much of one log line is shown: a line is text, not a file.
const MAX_LINE_CHARS: usize = 16 * MAX_CHARS;

/// How much of one log line is read; the rest is dropped unread into memory.
const MAX_LINE_BYTES: usize = 4 * MAX_LINE_CHARS;

#[derive(Args, Debug)]
pub struct LogsArgs {
    /// The runtime whose logs to show
    #[arg(value_name = "NAME")]
    pub name: RuntimeName,

    /// Keep streaming: new lines, and the pods that start meanwhile
    #[arg(short = 'f', long, conflicts_with = "previous")]
    pub follow: bool,

    /// The previous run of each container (after a crash or a restart)
    #[arg(short = 'p', long)]
    pub previous: bool,

    /// Only lines newer than this, e.g. 30s, 5m, 1h
    #[arg(long, value_name = "DURATION", value_parser = duration::parse)]
    pub since: Option<Duration>,

    /// Only the last N lines of each pod
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(i64).range(0..))]
    pub tail: Option<i64>,

    /// Only this pod of the runtime
    #[arg(long, value_name = "POD")]
    pub pod: Option<String>,

    /// Start each line with its timestamp
    #[arg(long)]
    pub timestamps: bool,
}

pub const HELP: &str = "\
The runtime container of every pod of the runtime (by the operator's labels),
each line prefixed with [pod/NAME/runtime]. With -f it keeps streaming, and
pods that start meanwhile (a rollout, a restart) join the stream. Exits 1
when the runtime has no pods (kubectl trussium diagnose NAME says why).

Examples:
  kubectl trussium logs private-ai --tail 20
  kubectl trussium logs private-ai -f
  kubectl trussium logs private-ai --previous --pod private-ai-7c9d8-x2k4q";

pub async fn run(target: &Target, args: &LogsArgs) -> Result<()> {
    let name: &str = &args.name;
    // The runtime first: a missing runtime or CRD gets its usual message.
    target.get_runtime_spec(name).await?;
    let pods = chosen(
        runtime_pods::list(target, name).await?,
        args.pod.as_deref(),
        name,
        &target.namespace,
    )?;
    if args.follow {
        return follow(target, name, args, pods).await;
    }
    print_all(target, args, &pods).await
}

/// The pods to read, by name: `--pod`, else all; an error when there is
/// none, or `--pod` is not one of them.
fn chosen(
    pods: Vec<Pod>,
    only: Option<&str>,
    runtime: &str,
    namespace: &str,
) -> Result<Vec<String>> {
    let mut names: Vec<String> = pods.iter().map(ResourceExt::name_any).collect();
    names.sort();
    if names.is_empty() {
        return Err(Error::NoPods {
            name: runtime.to_string(),
            namespace: namespace.to_string(),
        });
    }
    match only {
        None => Ok(names),
        Some(pod) if names.iter().any(|n| n == pod) => Ok(vec![pod.to_string()]),
        Some(pod) => Err(Error::Usage(format!(
            "pod {:?} is not one of runtime {runtime}'s pods: {}",
            safe(pod),
            names.join(", ")
        ))),
    }
}

/// `[pod/NAME/runtime] line`, the line's control characters escaped.
pub fn prefixed(pod: &str, line: &str) -> String {
    format!(
        "[pod/{}/{RUNTIME_CONTAINER}] {}",
        safe(pod),
        bounded(line.trim_end_matches('\r'), MAX_LINE_CHARS)
    )
}

fn params(args: &LogsArgs, follow: bool, joined_later: bool) -> LogParams {
    LogParams {
        container: Some(RUNTIME_CONTAINER.to_string()),
        follow,
        previous: args.previous,
        // A pod that joins a follow started after the command: all of it.
        since_seconds: args
            .since
            .filter(|_| !joined_later)
            .map(|d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX).max(1)),
        tail_lines: args.tail.filter(|_| !joined_later),
        timestamps: args.timestamps,
        ..LogParams::default()
    }
}

/// The request that reads `pod`'s log, as errors name it.
pub fn log_request(target: &Target, pod: &str) -> Request {
    Request::new("get", "pods/log")
        .namespace(Some(&target.namespace))
        .name(pod)
}

/// Each pod's log in turn, read in parallel; a pod whose log cannot be read
/// is named on stderr, and the command fails only when none could be.
async fn print_all(target: &Target, args: &LogsArgs, pods: &[String]) -> Result<()> {
    let api: Api<Pod> = Api::namespaced(target.client.clone(), &target.namespace);
    let lp = params(args, false, false);
    let logs = futures::future::join_all(pods.iter().map(|pod| {
        let (api, lp) = (&api, &lp);
        async move { log_lines(api, pod, lp).await }
    }))
    .await;
    let mut failures = Vec::new();
    for (pod, log) in pods.iter().zip(logs) {
        match log {
            Ok(lines) if lines.is_empty() => {}
            Ok(lines) => {
                let lines: Vec<String> = lines.iter().map(|l| prefixed(pod, l)).collect();
                output::println(&lines.join("\n"))?;
            }
            Err(e) => failures.push(target.fail(log_request(target, pod), e)),
        }
    }
    if failures.len() == pods.len() {
        // Nothing read: the (first) error is the command's.
        if let Some(error) = failures.into_iter().next() {
            return Err(error);
        }
        return Ok(());
    }
    for error in failures {
        eprintln!("{}", safe(&error.to_string()));
    }
    Ok(())
}

/// A pod's log as lines (see [`next_line`]), read to its end.
pub async fn log_lines(api: &Api<Pod>, pod: &str, params: &LogParams) -> kube::Result<Vec<String>> {
    let mut reader = Box::pin(api.log_stream(pod, params).await?);
    let mut lines = Vec::new();
    while let Some(line) = next_line(&mut reader)
        .await
        .map_err(kube::Error::ReadEvents)?
    {
        lines.push(line);
    }
    Ok(lines)
}

/// The next line of a log, without its newline: bytes that are not UTF-8
/// become U+FFFD, and past [`MAX_LINE_BYTES`] the rest of the line is
/// dropped as it streams by (a container that writes gigabytes without a
/// newline costs the plugin no memory). `None` at the end.
pub async fn next_line<R: AsyncBufRead + Unpin>(reader: &mut R) -> std::io::Result<Option<String>> {
    let mut line: Vec<u8> = Vec::new();
    let mut read_any = false;
    loop {
        let buf = reader.fill_buf().await?;
        if buf.is_empty() {
            return Ok(read_any.then(|| String::from_utf8_lossy(&line).into_owned()));
        }
        read_any = true;
        let newline = buf.iter().position(|b| *b == b'\n');
        let chunk = newline.map_or(buf, |at| buf.get(..at).unwrap_or(buf));
        let room = MAX_LINE_BYTES.saturating_sub(line.len());
        line.extend(chunk.iter().take(room));
        let used = newline.map_or(buf.len(), |at| at + 1);
        reader.consume_unpin(used);
        if newline.is_some() {
            return Ok(Some(String::from_utf8_lossy(&line).into_owned()));
        }
    }
}

/// What the follow loop hears: a pod came or changed, a line, or a pod
/// whose log could not be followed.
enum Heard {
    Pod(Box<std::result::Result<watcher::Event<Pod>, watcher::Error>>),
    Line(String, String),
    Failed(String, kube::Error),
}

/// Streams every pod's log until interrupted: a pod watch starts a stream
/// for each pod whose container runs (and again after it restarts), stops
/// it when the pod goes.
async fn follow(target: &Target, name: &str, args: &LogsArgs, first: Vec<String>) -> Result<()> {
    let api: Api<Pod> = Api::namespaced(target.client.clone(), &target.namespace);
    let (tx, mut rx) = mpsc::channel::<Heard>(1024);
    let pods = watcher(
        api.clone(),
        watcher::Config::default().labels(&runtime_pods::selector(name)),
    )
    .default_backoff();
    let watch_tx = tx.clone();
    let watch = tokio::spawn(async move {
        let mut pods = pods.boxed();
        while let Some(event) = pods.next().await {
            if watch_tx.send(Heard::Pod(Box::new(event))).await.is_err() {
                break;
            }
        }
    });
    let mut followed = Followed {
        api,
        args,
        first,
        tx,
        streams: BTreeMap::new(),
        finishing: Vec::new(),
    };
    let request = runtime_pods::list_request(target);
    while let Some(heard) = rx.recv().await {
        match heard {
            Heard::Line(pod, line) => output::println(&prefixed(&pod, &line))?,
            Heard::Failed(pod, e) => {
                let error = target.fail(log_request(target, &pod), e);
                eprintln!("{} (no longer following it)", safe(&error.to_string()));
            }
            Heard::Pod(event) => match *event {
                Ok(watcher::Event::Apply(pod) | watcher::Event::InitApply(pod)) => {
                    followed.saw(&pod);
                }
                Ok(watcher::Event::Delete(pod)) => followed.gone(&pod),
                Ok(_) => {}
                Err(e) if watch_error_is_fatal(&e) => {
                    watch.abort();
                    return Err(target.fail_watch(request, e));
                }
                Err(_) => {}
            },
        }
    }
    Ok(())
}

/// The pods whose log is followed.
struct Followed<'a> {
    api: Api<Pod>,
    args: &'a LogsArgs,
    /// The pods there when the command started: they get --tail and --since.
    first: Vec<String>,
    tx: mpsc::Sender<Heard>,
    streams: BTreeMap<String, Stream>,
    /// Streams of earlier runs, still draining.
    finishing: Vec<JoinHandle<()>>,
}

impl Followed<'_> {
    /// A pod came or changed: follow its container's current run.
    fn saw(&mut self, pod: &Pod) {
        let name = pod.name_any();
        if self.args.pod.as_deref().is_some_and(|only| only != name) {
            return;
        }
        let Some(run) = running_container(pod) else {
            return;
        };
        let stream = self.streams.entry(name.clone()).or_default();
        // One stream per run of the container (it ends with the run): a
        // restart starts the next.
        if stream.run == Some(run) {
            return;
        }
        // The previous run's stream ends by itself with that run, its last
        // lines (why it ended) included: it is left to finish.
        if let Some(task) = stream.task.take() {
            self.finishing.push(task);
        }
        let joined_later = !self.first.contains(&name) || stream.run.is_some();
        stream.run = Some(run);
        stream.task = Some(spawn_stream(
            self.api.clone(),
            name,
            params(self.args, true, joined_later),
            self.tx.clone(),
        ));
    }

    /// A pod went away: stop following it.
    fn gone(&mut self, pod: &Pod) {
        if let Some(task) = self
            .streams
            .remove(&pod.name_any())
            .and_then(|stream| stream.task)
        {
            task.abort();
        }
        self.finishing.retain(|task| !task.is_finished());
    }
}

/// A pod's stream: which run of its container it follows (or followed).
#[derive(Default)]
struct Stream {
    run: Option<i32>,
    task: Option<JoinHandle<()>>,
}

/// The run (restart count) of the runtime container while it runs; `None`
/// while it waits (pulling, starting, backing off), when there is no log
/// to follow yet.
fn running_container(pod: &Pod) -> Option<i32> {
    pod.status
        .as_ref()?
        .container_statuses
        .as_deref()?
        .iter()
        .find(|c| c.name == RUNTIME_CONTAINER)
        .filter(|c| c.state.as_ref().is_some_and(|s| s.running.is_some()))
        .map(|c| c.restart_count)
}

fn spawn_stream(
    api: Api<Pod>,
    pod: String,
    params: LogParams,
    tx: mpsc::Sender<Heard>,
) -> JoinHandle<()> {
    tokio::spawn(async move {
        let reader = match api.log_stream(&pod, &params).await {
            Ok(reader) => reader,
            Err(e) => {
                let _ = tx.send(Heard::Failed(pod, e)).await;
                return;
            }
        };
        let mut reader = Box::pin(reader);
        loop {
            match next_line(&mut reader).await {
                Ok(Some(line)) => {
                    if tx.send(Heard::Line(pod.clone(), line)).await.is_err() {
                        return;
                    }
                }
                // The run ended (or the pod went): nothing more to read.
                Ok(None) => return,
                Err(e) => {
                    let _ = tx
                        .send(Heard::Failed(pod, kube::Error::ReadEvents(e)))
                        .await;
                    return;
                }
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pod(name: &str, state: serde_json::Value, restarts: i32) -> Pod {
        serde_json::from_value(json!({
            "metadata": {"name": name},
            "status": {"containerStatuses": [{"name": RUNTIME_CONTAINER, "image": "x",
                "imageID": "", "ready": true, "restartCount": restarts, "state": state}]}
        }))
        .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn lines_are_prefixed_and_made_safe() {
        assert_eq!(
            prefixed("rt-abc", "listening on :9000"),
            "[pod/rt-abc/runtime] listening on :9000"
        );
        assert_eq!(
            prefixed("rt-abc", "evil\u{1b}[2Jline\r"),
            "[pod/rt-abc/runtime] evil\\x1b[2Jline"
        );
    }

    #[tokio::test]
    async fn lines_are_bounded_and_decoded_lossily() {
        let long = vec![b'x'; MAX_LINE_BYTES + 10];
        let mut input = b"one\n\xffbad\n".to_vec();
        input.extend(&long);
        input.extend(b"\nlast");
        let mut reader = futures::io::Cursor::new(input);
        let mut got = Vec::new();
        while let Ok(Some(line)) = next_line(&mut reader).await {
            got.push(line);
        }
        assert_eq!(got.len(), 4);
        assert_eq!(got[0], "one");
        assert_eq!(got[1], "\u{fffd}bad");
        assert_eq!(got[2].len(), MAX_LINE_BYTES);
        assert_eq!(got[3], "last");
        let mut empty = futures::io::Cursor::new(Vec::new());
        assert_eq!(next_line(&mut empty).await.ok(), Some(None));
    }

    #[test]
    fn the_pods_to_read() {
        let pods = vec![pod("b", json!({}), 0), pod("a", json!({}), 0)];
        assert_eq!(
            chosen(pods.clone(), None, "rt", "ai").ok(),
            Some(vec!["a".into(), "b".into()])
        );
        assert_eq!(
            chosen(pods.clone(), Some("b"), "rt", "ai").ok(),
            Some(vec!["b".into()])
        );
        let other = chosen(pods, Some("c"), "rt", "ai")
            .err()
            .map(|e| e.to_string());
        assert_eq!(
            other.as_deref(),
            Some("pod \"c\" is not one of runtime rt's pods: a, b")
        );
        let none = chosen(Vec::new(), None, "rt", "ai").err();
        assert!(matches!(none, Some(Error::NoPods { .. })));
    }

    #[test]
    fn a_stream_follows_a_running_container_and_each_restart() {
        let running = json!({"running": {"startedAt": "2026-12-01T10:00:00Z"}});
        assert_eq!(running_container(&pod("a", running.clone(), 0)), Some(0));
        assert_eq!(running_container(&pod("a", running, 3)), Some(3));
        let waiting = json!({"waiting": {"reason": "ContainerCreating"}});
        assert_eq!(running_container(&pod("a", waiting, 0)), None);
        assert_eq!(running_container(&Pod::default()), None);
    }

    #[test]
    fn tail_and_since_apply_to_the_pods_there_at_the_start() {
        let args = LogsArgs {
            name: RuntimeName("rt".into()),
            follow: true,
            previous: false,
            since: Some(Duration::from_secs(300)),
            tail: Some(5),
            pod: None,
            timestamps: true,
        };
        let first = params(&args, true, false);
        assert_eq!(
            (first.tail_lines, first.since_seconds, first.follow),
            (Some(5), Some(300), true)
        );
        assert_eq!(first.container.as_deref(), Some(RUNTIME_CONTAINER));
        assert!(first.timestamps);
        let later = params(&args, true, true);
        assert_eq!((later.tail_lines, later.since_seconds), (None, None));
    }
}
