//! `kubectl trussium status [NAME] [--watch] [-o json|yaml]`: one runtime in
//! detail, or the runtimes of a namespace (or all, with -A) as a list.
//! [`render`] draws the views (pure), [`watch`] keeps them up to date; what a
//! status means is [`crate::interpret`]'s.

mod render;
mod watch;

use clap::Args;
use k8s_openapi::jiff::Timestamp;
use kube::ResourceExt;
use kube::api::ListParams;

use crate::cli::RuntimeName;
use crate::client::Target;
use crate::error::{Error, RUNTIMES, Request, Result};
use crate::fetched::Fetched;
use crate::output::{self, OutputFormat, Palette};
use crate::{runtime_events, runtime_pods};

pub use render::{RecentEvents, RuntimePods, Section};
use render::{render_detail, render_list};
use watch::{watch_detail, watch_list};

#[derive(Args, Debug)]
pub struct StatusArgs {
    /// The runtime to show; without it, list the runtimes
    #[arg(value_name = "NAME")]
    pub name: Option<RuntimeName>,

    /// Keep watching and redraw when something changes
    #[arg(short = 'w', long)]
    pub watch: bool,

    /// Print machine-readable output instead of the view
    #[arg(short = 'o', long, value_enum, value_name = "FORMAT")]
    pub output: Option<OutputFormat>,
}

pub const HELP: &str = "\
Examples:
  kubectl trussium status
  kubectl trussium status -A
  kubectl trussium status private-ai -n ai
  kubectl trussium status private-ai --watch
  kubectl trussium status -o json | jq '.items[].status'";

pub async fn run(target: &Target, args: &StatusArgs, palette: Palette) -> Result<()> {
    match (&args.name, args.watch) {
        (Some(name), false) => {
            if let Some(format) = args.output {
                return output::print(&machine(&target.get_fetched(name).await?, format)?);
            }
            // The runtime, its Events and pods in parallel: one round trip.
            let (fetched, events, pods) = tokio::join!(
                target.get_fetched(name),
                runtime_events::for_name(target, name),
                runtime_pods::list(target, name)
            );
            let fetched = fetched?;
            let Some(rt) = fetched.runtime else {
                return Err(Error::Unreadable {
                    name: name.to_string(),
                    namespace: target.namespace.clone(),
                    reason: fetched.problem.unwrap_or_default(),
                });
            };
            let recent = match events {
                Ok(mut list) => {
                    list.retain(|e| runtime_events::regards(e, &rt));
                    RecentEvents::Shown(list)
                }
                Err(e) => RecentEvents::Unavailable(e.to_string()),
            };
            let pods = runtime_pods::section(&rt, pods);
            output::print(&render_detail(
                &rt,
                fetched.problem.as_deref(),
                &recent,
                &pods,
                Timestamp::now(),
                palette,
            ))
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

/// All runtimes in scope, in pages of 500 like kubectl; each read as far as
/// it can be, so that one odd object does not fail the list.
async fn list(target: &Target) -> Result<Vec<Fetched>> {
    let request = Request::new("list", RUNTIMES).namespace(target.scope());
    let mut items = target
        .list_all(&target.fetched_in_scope(), ListParams::default(), request)
        .await?;
    sort(&mut items);
    Ok(items)
}

fn sort(items: &mut [Fetched]) {
    items.sort_by_key(|rt| (rt.namespace(), rt.name_any()));
}

pub(super) fn machine(rt: &Fetched, format: OutputFormat) -> Result<String> {
    let value = rt
        .to_value()
        .map_err(|e| Error::Io(std::io::Error::other(e)))?;
    output::render_machine(&output::without_managed_fields(value), format)
}

pub(super) fn machine_list(runtimes: &[Fetched], format: OutputFormat) -> Result<String> {
    let items = runtimes
        .iter()
        .map(|rt| rt.to_value().map(output::without_managed_fields))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| Error::Io(std::io::Error::other(e)))?;
    let list = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": items});
    output::render_machine(&list, format)
}
