//! Following one object through a watch until a judgment of it says it is
//! done (`upgrade --wait`, `rollback --wait`, `install --wait`): one progress
//! line, a deadline, and a watch failure turned into the error people read.

use std::fmt::Debug;
use std::time::{Duration, Instant};

use futures::StreamExt;
use kube::runtime::{WatchStreamExt, watcher};
use kube::{Api, Resource};
use serde::de::DeserializeOwned;

use crate::client::{Target, watch_error_is_fatal};
use crate::error::{Error, Request, Result};
use crate::output::{self, Palette};

/// What a judgment of the object says.
pub enum Judgment<T> {
    /// Not yet, and what it waits for.
    Waiting(String),
    Done(T),
}

/// How following ended.
pub enum Ending<T> {
    Done {
        outcome: T,
        seconds: u64,
        /// Whether a progress line was shown: false when the first answer
        /// was already the end.
        waited: bool,
    },
    /// The deadline passed; what it last waited for.
    TimedOut {
        last: String,
    },
    Deleted,
}

/// The settings of one follow.
pub struct Watching<'a> {
    pub target: &'a Target,
    /// How a failed watch names what it watched.
    pub request: Request,
    /// What the progress line says before what it waits for.
    pub label: String,
    pub timeout: Duration,
    pub palette: Palette,
}

/// Watches the object `name` of `api` (starting from `first`, if known)
/// until `judge` says it is done or the deadline passes.
pub async fn follow<K, T>(
    watching: &Watching<'_>,
    api: Api<K>,
    name: &str,
    first: Option<K>,
    mut judge: impl FnMut(&K) -> Judgment<T>,
) -> Result<Ending<T>>
where
    K: Resource + Clone + DeserializeOwned + Debug + Send + 'static,
{
    let config = watcher::Config::default().fields(&format!("metadata.name={name}"));
    let mut stream = watcher(api, config).default_backoff().boxed();
    let deadline = tokio::time::Instant::now() + watching.timeout;
    let mut progress = ProgressLine::start();
    let mut ticker = tokio::time::interval(Duration::from_millis(250));
    let mut latest = first;
    let mut last = "waiting for the first answer".to_string();
    loop {
        if let Some(object) = &latest {
            match judge(object) {
                Judgment::Done(outcome) => {
                    progress.clear()?;
                    return Ok(Ending::Done {
                        outcome,
                        seconds: progress.seconds(),
                        waited: progress.shown(),
                    });
                }
                Judgment::Waiting(text) => last = text,
            }
        }
        // Nothing is said before the first answer: it may well be the end.
        if latest.is_some() || progress.seconds() >= 1 {
            progress.update(&format!("{}: {last}", watching.label), watching.palette)?;
        }
        tokio::select! {
            _ = tokio::time::sleep_until(deadline) => {
                progress.clear()?;
                return Ok(Ending::TimedOut { last });
            }
            _ = ticker.tick(), if progress.redraws() => {}
            item = stream.next() => match item {
                Some(Ok(watcher::Event::Apply(object) | watcher::Event::InitApply(object))) => {
                    latest = Some(object);
                }
                Some(Ok(watcher::Event::Delete(_))) => {
                    progress.clear()?;
                    return Ok(Ending::Deleted);
                }
                Some(Ok(_)) => {}
                Some(Err(e)) if watch_error_is_fatal(&e) => {
                    progress.clear()?;
                    return Err(watching.target.fail_watch(watching.request.clone(), e));
                }
                Some(Err(_)) => {}
                None => {
                    progress.clear()?;
                    return Err(Error::Api {
                        request: watching.request.clone(),
                        code: 0,
                        message: "the watch ended".to_string(),
                    });
                }
            },
        }
    }
}

/// One status line that updates in place on a terminal and prints only
/// changes otherwise.
struct ProgressLine {
    tty: bool,
    last: String,
    started: Instant,
    tick: usize,
}

const SPINNER: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

impl ProgressLine {
    fn start() -> Self {
        ProgressLine {
            tty: output::stdout_is_tty(),
            last: String::new(),
            started: Instant::now(),
            tick: 0,
        }
    }

    /// Whether it redraws (a terminal), so that the follower ticks it.
    fn redraws(&self) -> bool {
        self.tty
    }

    /// Whether anything was shown.
    fn shown(&self) -> bool {
        !self.last.is_empty()
    }

    /// Seconds since [`ProgressLine::start`].
    fn seconds(&self) -> u64 {
        self.started.elapsed().as_secs()
    }

    fn update(&mut self, text: &str, palette: Palette) -> Result<()> {
        if self.tty {
            self.tick += 1;
            let spin = SPINNER[self.tick % SPINNER.len()];
            let elapsed = self.started.elapsed().as_secs();
            output::print(&format!(
                "\r\u{1b}[2K{} {text} {}",
                palette.warn(spin),
                palette.dim(&format!("({elapsed}s)"))
            ))?;
        } else if text != self.last {
            output::println(text)?;
        }
        self.last = text.to_string();
        Ok(())
    }

    fn clear(&self) -> Result<()> {
        if self.tty {
            output::print("\r\u{1b}[2K")?;
        }
        Ok(())
    }
}
