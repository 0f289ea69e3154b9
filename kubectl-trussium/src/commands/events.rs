//! `kubectl trussium events NAME [--watch] [-o json|yaml]`: the runtime's
//! events.k8s.io/v1 Events, oldest first.

use std::collections::HashSet;

use futures::StreamExt;
use k8s_openapi::api::events::v1::Event;
use k8s_openapi::jiff::Timestamp;
use kube::runtime::{WatchStreamExt, watcher};
use kube::{Api, ResourceExt};
use trussium_api::TrussiumRuntime;

use crate::cli::EventsArgs;
use crate::client::{Target, watch_error_is_fatal};
use crate::error::{Error, Result};
use crate::output::{self, Palette};
use crate::runtime_events::{
    HEADER, cells, count, for_runtime, list_events, regards, render_line, render_table, selector,
    sort_oldest_first,
};

pub async fn run(target: &Target, args: &EventsArgs, palette: Palette) -> Result<()> {
    let rt = target.get_runtime(&args.name).await?;
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

async fn watch(target: &Target, rt: &TrussiumRuntime, palette: Palette) -> Result<()> {
    let api: Api<Event> = Api::namespaced(target.client.clone(), &target.namespace);
    let config = watcher::Config::default().fields(&selector(&rt.name_any()));
    let mut stream = watcher(api, config).default_backoff().boxed();
    let header = HEADER.map(str::to_string);
    output::println(&render_line(&header, palette, true))?;
    // Printed (uid, count) pairs: a repeated Event (a series) prints again.
    let mut seen: HashSet<(String, i32)> = HashSet::new();
    let mut initial: Vec<Event> = Vec::new();
    let mut listing = false;
    while let Some(item) = stream.next().await {
        let mut batch = Vec::new();
        match item {
            Ok(watcher::Event::Init) => {
                listing = true;
                initial.clear();
            }
            Ok(watcher::Event::InitApply(e)) => initial.push(e),
            Ok(watcher::Event::InitDone) => {
                listing = false;
                batch.append(&mut initial);
            }
            Ok(watcher::Event::Apply(e)) if !listing => batch.push(e),
            Ok(_) => {}
            Err(e) if watch_error_is_fatal(&e) => {
                return Err(target.fail_watch(list_events(target), e));
            }
            Err(_) => {}
        }
        sort_oldest_first(&mut batch);
        let now = Timestamp::now();
        for event in batch.iter().filter(|e| regards(e, rt)) {
            let key = (event.uid().unwrap_or_default(), count(event));
            if seen.insert(key) {
                output::println(&render_line(&cells(event, now), palette, false))?;
            }
        }
    }
    Ok(())
}
