//! `status --watch`: mirrors of the watched objects, redrawn in bursts.

use std::collections::BTreeMap;
use std::time::Duration;

use futures::{Stream, StreamExt};
use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::api::events::v1::Event;
use k8s_openapi::jiff::Timestamp;
use kube::api::ListParams;
use kube::runtime::{WatchStreamExt, watcher};
use kube::{Api, Resource, ResourceExt};
use trussium_api::TrussiumRuntime;

use super::render::{RecentEvents, RuntimePods, render_detail, render_list};
use super::{machine, machine_list, nothing_found};

use crate::client::{Target, watch_error_is_fatal};
use crate::error::{EVENTS, PODS, RUNTIMES, Request, Result};
use crate::fetched::Fetched;
use crate::output::{self, OutputFormat, Palette};
use crate::terminal::safe;
use crate::{runtime_events, runtime_pods};

/// Objects kept up to date from a watcher, keyed by namespace/name.
struct Mirror<K> {
    items: BTreeMap<String, K>,
    buffer: Option<BTreeMap<String, K>>,
    ready: bool,
}

impl<K: Resource> Mirror<K> {
    fn new() -> Self {
        Mirror {
            items: BTreeMap::new(),
            buffer: None,
            ready: false,
        }
    }

    fn key(k: &K) -> String {
        format!("{}/{}", k.namespace().unwrap_or_default(), k.name_any())
    }

    /// Applies one watch event; true when the visible set changed.
    fn apply(&mut self, event: watcher::Event<K>) -> bool {
        match event {
            watcher::Event::Init => {
                self.buffer = Some(BTreeMap::new());
                false
            }
            watcher::Event::InitApply(k) => {
                if let Some(buffer) = &mut self.buffer {
                    buffer.insert(Self::key(&k), k);
                }
                false
            }
            watcher::Event::InitDone => {
                if let Some(buffer) = self.buffer.take() {
                    self.items = buffer;
                }
                self.ready = true;
                true
            }
            watcher::Event::Apply(k) => {
                self.items.insert(Self::key(&k), k);
                self.ready
            }
            watcher::Event::Delete(k) => {
                self.items.remove(&Self::key(&k));
                self.ready
            }
        }
    }
}

/// Redraws frames: in place on a terminal, appended (when changed) otherwise.
struct Screen {
    tty: bool,
    last: String,
}

impl Screen {
    fn new() -> Self {
        Screen {
            tty: output::stdout_is_tty(),
            last: String::new(),
        }
    }

    fn show(&mut self, frame: String, palette: Palette) -> Result<()> {
        if frame == self.last {
            return Ok(());
        }
        if self.tty {
            let footer = palette.dim("Watching for changes; press Ctrl-C to stop.");
            output::print(&format!("\u{1b}[H\u{1b}[2J{frame}\n{footer}\n"))?;
        } else {
            output::print(&format!("{frame}\n"))?;
        }
        self.last = frame;
        Ok(())
    }
}

/// Waits briefly for more items so that a burst of changes draws once.
async fn next_burst<S, T>(stream: &mut S) -> Option<Vec<T>>
where
    S: Stream<Item = T> + Unpin,
{
    let first = stream.next().await?;
    let mut batch = vec![first];
    while let Ok(Some(item)) = tokio::time::timeout(Duration::from_millis(50), stream.next()).await
    {
        batch.push(item);
        if batch.len() >= 1000 {
            break;
        }
    }
    Some(batch)
}

// Both variants are watch events of similar size (about 1 KiB); boxing one
// would only add an allocation per event.
#[allow(clippy::large_enum_variant)]
enum Change {
    Runtime(Result<watcher::Event<Fetched>, watcher::Error>),
    Event(Result<watcher::Event<Event>, watcher::Error>),
    Pod(Result<watcher::Event<Pod>, watcher::Error>),
}

pub(super) async fn watch_detail(
    target: &Target,
    name: &str,
    format: Option<OutputFormat>,
    palette: Palette,
) -> Result<()> {
    // Fail fast, with the usual messages, on a missing runtime, CRD or permission.
    let first = target.get_fetched(name).await?;
    let by_name = format!("metadata.name={name}");
    let runtimes = watcher(
        target.fetched(),
        watcher::Config::default().fields(&by_name),
    )
    .default_backoff()
    .map(Change::Runtime);
    let events_api: Api<Event> = Api::namespaced(target.client.clone(), &target.namespace);
    let event_stream = watcher(
        events_api,
        watcher::Config::default().fields(&runtime_events::selector(name)),
    )
    .default_backoff()
    .map(Change::Event);
    let pods_api: Api<Pod> = Api::namespaced(target.client.clone(), &target.namespace);
    let pod_stream = watcher(
        pods_api,
        watcher::Config::default().labels(&runtime_pods::selector(name)),
    )
    .default_backoff()
    .map(Change::Pod);
    let mut changes =
        futures::stream::select_all([runtimes.boxed(), event_stream.boxed(), pod_stream.boxed()]);

    let mut state = DetailState {
        runtime: Some(first),
        events: Mirror::new(),
        events_problem: None,
        pods: Mirror::new(),
        pods_problem: None,
    };
    let mut screen = Screen::new();
    let mut last_version = String::new();
    let request = Request::new("watch", RUNTIMES)
        .namespace(Some(&target.namespace))
        .name(name);

    while let Some(batch) = next_burst(&mut changes).await {
        for change in batch {
            state.apply(change, target, &request)?;
        }
        if let Some(format) = format {
            // Machine output: the object each time it changes.
            if let Some(rt) = &state.runtime {
                let version = rt.resource_version().unwrap_or_default();
                if version != last_version {
                    output::print(&machine(rt, format)?)?;
                    last_version = version;
                }
            }
            continue;
        }
        screen.show(state.frame(target, name, palette), palette)?;
    }
    Ok(())
}

/// What the detail view knows: the runtime as far as it reads (none once
/// deleted), its Events, and why those cannot be watched, if they cannot.
struct DetailState {
    runtime: Option<Fetched>,
    events: Mirror<Event>,
    events_problem: Option<String>,
    pods: Mirror<Pod>,
    pods_problem: Option<String>,
}

impl DetailState {
    /// Takes in one change; a runtime watch that cannot go on is an error.
    fn apply(&mut self, change: Change, target: &Target, request: &Request) -> Result<()> {
        match change {
            Change::Runtime(Ok(watcher::Event::Apply(rt) | watcher::Event::InitApply(rt))) => {
                self.runtime = Some(rt);
            }
            Change::Runtime(Ok(watcher::Event::Delete(_))) => self.runtime = None,
            Change::Runtime(Ok(_)) => {}
            Change::Runtime(Err(e)) if watch_error_is_fatal(&e) => {
                return Err(target.fail_watch(request.clone(), e));
            }
            Change::Runtime(Err(_)) => {}
            Change::Event(Ok(ev)) => {
                self.events_problem = None;
                self.events.apply(ev);
            }
            Change::Event(Err(e)) => {
                let req = Request::new("watch", EVENTS).namespace(Some(&target.namespace));
                self.events_problem = Some(target.fail_watch(req, e).to_string());
            }
            Change::Pod(Ok(pod)) => {
                self.pods_problem = None;
                self.pods.apply(pod);
            }
            Change::Pod(Err(e)) => {
                let req = Request::new("watch", PODS).namespace(Some(&target.namespace));
                self.pods_problem = Some(target.fail_watch(req, e).to_string());
            }
        }
        Ok(())
    }

    /// The screen: the runtime's detail, one line on why it does not read,
    /// or that it was deleted.
    fn frame(&self, target: &Target, name: &str, palette: Palette) -> String {
        let Some(fetched) = &self.runtime else {
            return format!(
                "TrussiumRuntime {name} in namespace {} was deleted; waiting for it to come back…\n",
                target.namespace
            );
        };
        let Some(rt) = &fetched.runtime else {
            return format!(
                "TrussiumRuntime {name} in namespace {}: {}\n",
                target.namespace,
                safe(fetched.problem.as_deref().unwrap_or_default())
            );
        };
        render_detail(
            rt,
            fetched.problem.as_deref(),
            &self.recent(rt),
            &self.pods(rt),
            Timestamp::now(),
            palette,
        )
    }

    /// The runtime's pods, or why they are not known.
    fn pods(&self, rt: &TrussiumRuntime) -> RuntimePods {
        match &self.pods_problem {
            Some(why) => RuntimePods::Unavailable(why.clone()),
            // Before the first list, "none" would be a guess.
            None if !self.pods.ready => RuntimePods::Unavailable("not listed yet".to_string()),
            None => RuntimePods::Shown(runtime_pods::views(rt, self.pods.items.values())),
        }
    }

    /// The runtime's Events, oldest first, or why they are not known.
    fn recent(&self, rt: &TrussiumRuntime) -> RecentEvents {
        if let Some(why) = &self.events_problem {
            return RecentEvents::Unavailable(why.clone());
        }
        let mut list: Vec<Event> = self
            .events
            .items
            .values()
            .filter(|e| runtime_events::regards(e, rt))
            .cloned()
            .collect();
        runtime_events::sort_oldest_first(&mut list);
        RecentEvents::Shown(list)
    }
}

pub(super) async fn watch_list(
    target: &Target,
    format: Option<OutputFormat>,
    palette: Palette,
) -> Result<()> {
    // Fail fast on a missing CRD or permission.
    target
        .fetched_in_scope()
        .list(&ListParams::default().limit(1))
        .await
        .map_err(|e| target.fail(Request::new("list", RUNTIMES).namespace(target.scope()), e))?;
    let mut stream = watcher(target.fetched_in_scope(), watcher::Config::default())
        .default_backoff()
        .boxed();
    let mut mirror: Mirror<Fetched> = Mirror::new();
    let mut screen = Screen::new();
    let request = Request::new("watch", RUNTIMES).namespace(target.scope());
    while let Some(batch) = next_burst(&mut stream).await {
        let mut changed = false;
        for item in batch {
            match item {
                Ok(watcher::Event::Apply(rt)) if format.is_some() && mirror.ready => {
                    if let Some(format) = format {
                        output::print(&machine(&rt, format)?)?;
                    }
                    mirror.apply(watcher::Event::Apply(rt));
                }
                Ok(event) => changed |= mirror.apply(event),
                Err(e) if watch_error_is_fatal(&e) => return Err(target.fail_watch(request, e)),
                Err(_) => {}
            }
        }
        if !changed || !mirror.ready {
            continue;
        }
        let runtimes: Vec<Fetched> = mirror.items.values().cloned().collect();
        if let Some(format) = format {
            if screen.last.is_empty() {
                screen.last = "printed".to_string();
                output::print(&machine_list(&runtimes, format)?)?;
            }
            continue;
        }
        let frame = if runtimes.is_empty() {
            format!("{}\n", nothing_found(target))
        } else {
            render_list(&runtimes, target.all_namespaces, Timestamp::now(), palette)
        };
        screen.show(frame, palette)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::{UPGRADING, runtime};

    #[test]
    fn mirror_follows_a_watch_and_relists() {
        let rt = |name: &str| {
            let mut r = runtime(UPGRADING);
            r.metadata.name = Some(name.into());
            Fetched::from_runtime(r)
        };
        let mut m: Mirror<Fetched> = Mirror::new();
        assert!(!m.apply(watcher::Event::Init));
        assert!(!m.apply(watcher::Event::InitApply(rt("a"))));
        assert!(!m.ready, "nothing is drawn before the list is complete");
        assert!(m.apply(watcher::Event::InitDone));
        assert!(m.apply(watcher::Event::Apply(rt("b"))));
        assert_eq!(m.items.len(), 2);
        assert!(m.apply(watcher::Event::Delete(rt("a"))));
        // A relist replaces everything at once.
        m.apply(watcher::Event::Init);
        m.apply(watcher::Event::InitApply(rt("c")));
        assert_eq!(m.items.len(), 1, "old items stay until the relist is done");
        m.apply(watcher::Event::InitDone);
        let keys: Vec<&String> = m.items.keys().collect();
        assert_eq!(keys, ["trussium/c"]);
    }
}
