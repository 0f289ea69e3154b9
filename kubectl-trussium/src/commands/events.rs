//! `kubectl trussium events NAME [--watch] [-o json|yaml]`: the runtime's
//! events.k8s.io/v1 Events, oldest first.

use std::collections::{BTreeMap, HashSet};

use clap::Args;
use futures::StreamExt;
use k8s_openapi::api::events::v1::Event;
use k8s_openapi::jiff::Timestamp;
use kube::runtime::{WatchStreamExt, watcher};
use kube::{Api, ResourceExt};
use trussium_api::TrussiumRuntime;

use crate::cli::RuntimeName;
use crate::client::{Target, watch_error_is_fatal};
use crate::error::{Error, Result};
use crate::fetched::Fetched;
use crate::output::{self, OutputFormat, Palette};
use crate::runtime_events::{
    HEADER, cells, count, for_runtime, list_events, render_line, render_table, selector,
    sort_oldest_first,
};

#[derive(Args, Debug)]
pub struct EventsArgs {
    /// The runtime whose Events to show
    #[arg(value_name = "NAME")]
    pub name: RuntimeName,

    /// Keep watching and print new Events as they happen
    #[arg(short = 'w', long)]
    pub watch: bool,

    /// Print machine-readable output instead of the table
    #[arg(
        short = 'o',
        long,
        value_enum,
        value_name = "FORMAT",
        conflicts_with = "watch"
    )]
    pub output: Option<OutputFormat>,
}

pub const HELP: &str = "\
Examples:
  kubectl trussium events private-ai
  kubectl trussium events private-ai --watch";

pub async fn run(target: &Target, args: &EventsArgs, palette: Palette) -> Result<()> {
    let rt = target.get_runtime_spec(&args.name).await?;
    if args.watch {
        return watch(target, &rt, palette).await;
    }
    let events = for_runtime(target, &rt).await?;
    if let Some(format) = args.output {
        let items = events
            .iter()
            .map(|e| serde_json::to_value(e).map(output::without_managed_fields))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| Error::Io(std::io::Error::other(e)))?;
        let list = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": items});
        return output::print(&output::render_machine(&list, format)?);
    }
    if events.is_empty() {
        eprintln!(
            "No events for TrussiumRuntime {} in namespace {}.",
            args.name, target.namespace
        );
        return Ok(());
    }
    output::print(&render_table(&events, Timestamp::now(), palette, 0))
}

/// What `--watch` follows: the runtime (its uid changes when it is deleted
/// and created again) and the Events regarding its name.
#[allow(clippy::large_enum_variant)]
enum Change {
    Runtime(Result<watcher::Event<Fetched>, watcher::Error>),
    Event(Result<watcher::Event<Event>, watcher::Error>),
}

async fn watch(target: &Target, rt: &TrussiumRuntime, palette: Palette) -> Result<()> {
    let name = rt.name_any();
    let events: Api<Event> = Api::namespaced(target.client.clone(), &target.namespace);
    let events = watcher(events, watcher::Config::default().fields(&selector(&name)))
        .default_backoff()
        .map(Change::Event);
    let runtimes = watcher(
        target.fetched(),
        watcher::Config::default().fields(&format!("metadata.name={name}")),
    )
    .default_backoff()
    .map(Change::Runtime);
    let mut changes = futures::stream::select(events.boxed(), runtimes.boxed());
    let header = HEADER.map(str::to_string);
    output::println(&render_line(&header, palette, true))?;
    let mut state = Followed {
        uid: rt.uid(),
        ..Followed::default()
    };
    while let Some(change) = changes.next().await {
        match change {
            Change::Runtime(Ok(watcher::Event::Apply(f) | watcher::Event::InitApply(f))) => {
                state.uid = f.uid();
            }
            Change::Runtime(Ok(_)) => {}
            Change::Runtime(Err(e)) if watch_error_is_fatal(&e) => {
                return Err(target.fail_watch(target.runtime_request("watch", &name), e));
            }
            Change::Event(Err(e)) if watch_error_is_fatal(&e) => {
                return Err(target.fail_watch(list_events(target), e));
            }
            Change::Runtime(Err(_)) | Change::Event(Err(_)) => {}
            Change::Event(Ok(event)) => state.apply(event),
        }
        for line in state.unprinted(Timestamp::now(), palette) {
            output::println(&line)?;
        }
    }
    Ok(())
}

/// The Events seen so far and which were printed.
#[derive(Default)]
struct Followed {
    /// The uid of the runtime now of that name.
    uid: Option<String>,
    events: BTreeMap<String, Event>,
    listing: Option<BTreeMap<String, Event>>,
    /// Printed (uid, count) pairs: a repeated Event (a series) prints again.
    printed: HashSet<(String, i32)>,
}

impl Followed {
    fn apply(&mut self, event: watcher::Event<Event>) {
        match event {
            watcher::Event::Init => self.listing = Some(BTreeMap::new()),
            watcher::Event::InitApply(e) => {
                if let Some(listing) = &mut self.listing {
                    listing.insert(e.uid().unwrap_or_default(), e);
                }
            }
            watcher::Event::InitDone => {
                if let Some(listing) = self.listing.take() {
                    self.events = listing;
                }
            }
            watcher::Event::Apply(e) => {
                self.events.insert(e.uid().unwrap_or_default(), e);
            }
            watcher::Event::Delete(e) => {
                self.events.remove(&e.uid().unwrap_or_default());
            }
        }
    }

    /// The lines of the Events about the current runtime not printed yet,
    /// oldest first (none while a list is under way).
    fn unprinted(&mut self, now: Timestamp, palette: Palette) -> Vec<String> {
        if self.listing.is_some() {
            return Vec::new();
        }
        let mut due: Vec<Event> = self
            .events
            .values()
            .filter(|e| regards_uid(e, self.uid.as_deref()))
            .filter(|e| {
                !self
                    .printed
                    .contains(&(e.uid().unwrap_or_default(), count(e)))
            })
            .cloned()
            .collect();
        sort_oldest_first(&mut due);
        due.iter()
            .map(|e| {
                self.printed.insert((e.uid().unwrap_or_default(), count(e)));
                render_line(&cells(e, now), palette, false)
            })
            .collect()
    }
}

/// Whether the Event regards the runtime with that uid (any, when unknown).
fn regards_uid(event: &Event, uid: Option<&str>) -> bool {
    let regarding = event.regarding.as_ref().and_then(|r| r.uid.as_deref());
    match (uid, regarding) {
        (Some(a), Some(b)) => a == b,
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::{at, event};

    #[test]
    fn follows_the_runtime_now_of_that_name() {
        let mut state = Followed {
            uid: Some("rt-uid".into()),
            ..Followed::default()
        };
        state.apply(watcher::Event::Init);
        state.apply(watcher::Event::InitApply(event(
            "a", "Normal", "Old", 0, "n",
        )));
        assert!(state.unprinted(at(5), Palette::PLAIN).is_empty(), "listing");
        state.apply(watcher::Event::InitDone);
        assert_eq!(state.unprinted(at(5), Palette::PLAIN).len(), 1);
        assert!(
            state.unprinted(at(5), Palette::PLAIN).is_empty(),
            "printed once"
        );
        // Recreated: its Events carry the new uid, possibly before the
        // runtime's own watch says so; they print once it does.
        let mut new = event("b", "Normal", "RuntimeReady", 3, "again");
        if let Some(r) = new.regarding.as_mut() {
            r.uid = Some("new-uid".into());
        }
        state.apply(watcher::Event::Apply(new));
        assert!(state.unprinted(at(5), Palette::PLAIN).is_empty());
        state.uid = Some("new-uid".into());
        let lines = state.unprinted(at(5), Palette::PLAIN);
        assert_eq!(lines.len(), 1);
        assert!(lines[0].contains("RuntimeReady"), "{lines:?}");
    }
}
