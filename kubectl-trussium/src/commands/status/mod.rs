//! `kubectl trussium status [NAME] [--watch] [-o json|yaml]`: one runtime in
//! detail, or the runtimes of a namespace (or all, with -A) as a list.
//! [`render`] draws the views (pure), [`watch`] keeps them up to date; what a
//! status means is [`crate::interpret`]'s.

mod render;
mod watch;

use k8s_openapi::jiff::Timestamp;
use kube::ResourceExt;
use kube::api::ListParams;
use trussium_api::TrussiumRuntime;

use crate::cli::StatusArgs;
use crate::client::Target;
use crate::error::{Error, RUNTIMES, Request, Result};
use crate::output::{self, OutputFormat, Palette};
use crate::runtime_events;

use render::{RecentEvents, render_detail, render_list};
use watch::{watch_detail, watch_list};

pub async fn run(target: &Target, args: &StatusArgs, palette: Palette) -> Result<()> {
    match (&args.name, args.watch) {
        (Some(name), false) => {
            if let Some(format) = args.output {
                return output::print(&machine(&target.get_runtime(name).await?, format)?);
            }
            // The runtime and its Events in parallel: one round trip.
            let (rt, events) = tokio::join!(
                target.get_runtime(name),
                runtime_events::for_name(target, name)
            );
            let rt = rt?;
            let recent = match events {
                Ok(mut list) => {
                    list.retain(|e| runtime_events::regards(e, &rt));
                    RecentEvents::Shown(list)
                }
                Err(e) => RecentEvents::Unavailable(e.to_string()),
            };
            output::print(&render_detail(&rt, &recent, Timestamp::now(), palette))
        }
        (None, false) => {
            let runtimes = list(target).await?;
            if let Some(format) = args.output {
                return output::print(&machine_list(&runtimes, format)?);
            }
            if runtimes.is_empty() {
                eprintln!("{}", nothing_found(target));
                return Ok(());
            }
            output::print(&render_list(
                &runtimes,
                target.all_namespaces,
                Timestamp::now(),
                palette,
            ))
        }
        (Some(name), true) => watch_detail(target, name, args.output, palette).await,
        (None, true) => watch_list(target, args.output, palette).await,
    }
}

pub(super) fn nothing_found(target: &Target) -> String {
    match target.scope() {
        Some(ns) => format!("No TrussiumRuntimes found in namespace {ns}."),
        None => "No TrussiumRuntimes found in any namespace.".to_string(),
    }
}

/// All runtimes in scope, in pages of 500 like kubectl.
async fn list(target: &Target) -> Result<Vec<TrussiumRuntime>> {
    let request = Request::new("list", RUNTIMES).namespace(target.scope());
    let mut items = target
        .list_all(&target.runtimes_in_scope(), ListParams::default(), request)
        .await?;
    sort(&mut items);
    Ok(items)
}

fn sort(items: &mut [TrussiumRuntime]) {
    items.sort_by_key(|rt| (rt.namespace(), rt.name_any()));
}

pub(super) fn machine(rt: &TrussiumRuntime, format: OutputFormat) -> Result<String> {
    let value = serde_json::to_value(rt).map_err(|e| Error::Io(std::io::Error::other(e)))?;
    output::render_machine(&output::without_managed_fields(value), format)
}

pub(super) fn machine_list(runtimes: &[TrussiumRuntime], format: OutputFormat) -> Result<String> {
    let items = runtimes
        .iter()
        .map(|rt| serde_json::to_value(rt).map(output::without_managed_fields))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| Error::Io(std::io::Error::other(e)))?;
    let list = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": items});
    output::render_machine(&list, format)
}
