//! `kubectl trussium status [NAME] [--watch] [-o json|yaml]`: one runtime in
//! detail, or the runtimes of a namespace (or all, with -A) as a list.

use std::collections::BTreeMap;
use std::time::Duration;

use futures::{Stream, StreamExt};
use k8s_openapi::api::events::v1::Event;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use k8s_openapi::jiff::Timestamp;
use kube::api::ListParams;
use kube::runtime::{WatchStreamExt, watcher};
use kube::{Api, Resource, ResourceExt};
use trussium_api::image::version_of;
use trussium_api::{TrussiumRuntime, condition_type, reason};

use crate::age;
use crate::cli::{OutputFormat, StatusArgs};
use crate::client::{Target, watch_error_is_fatal};
use crate::commands::events;
use crate::error::{EVENTS, Error, RUNTIMES, Request, Result};
use crate::output::{self, Health, Palette};
use crate::table;

/// How many Events the detailed view shows.
pub const RECENT_EVENTS: usize = 5;

pub async fn run(target: &Target, args: &StatusArgs, palette: Palette) -> Result<()> {
    match (&args.name, args.watch) {
        (Some(name), false) => {
            if let Some(format) = args.output {
                return output::print(&machine(&target.get_runtime(name).await?, format)?);
            }
            // The runtime and its Events in parallel: one round trip.
            let (rt, events) =
                tokio::join!(target.get_runtime(name), events::for_name(target, name));
            let rt = rt?;
            let recent = match events {
                Ok(mut list) => {
                    list.retain(|e| events::regards(e, &rt));
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

fn nothing_found(target: &Target) -> String {
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

/// The Events section of the detailed view: the Events, or why there are
/// none (a failure to read Events does not fail `status`).
#[derive(Debug, Clone)]
pub enum RecentEvents {
    Shown(Vec<Event>),
    Unavailable(String),
}

fn machine(rt: &TrussiumRuntime, format: OutputFormat) -> Result<String> {
    let value = serde_json::to_value(rt).map_err(|e| Error::Io(std::io::Error::other(e)))?;
    output::render_machine(&output::without_managed_fields(value), format)
}

fn machine_list(runtimes: &[TrussiumRuntime], format: OutputFormat) -> Result<String> {
    let items = runtimes
        .iter()
        .map(|rt| serde_json::to_value(rt).map(output::without_managed_fields))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| Error::Io(std::io::Error::other(e)))?;
    let list = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": items});
    output::render_machine(&list, format)
}

// ---------------------------------------------------------------------------
// The list view

/// `NAME READY DESIRED PROVIDER MODEL VERSION AGE`, with NAMESPACE first for -A.
pub fn render_list(
    runtimes: &[TrussiumRuntime],
    all_namespaces: bool,
    now: Timestamp,
    palette: Palette,
) -> String {
    let mut header = vec![
        "NAME", "READY", "DESIRED", "PROVIDER", "MODEL", "VERSION", "AGE",
    ];
    if all_namespaces {
        header.insert(0, "NAMESPACE");
    }
    let mut t = table::new(&header, palette);
    for rt in runtimes {
        let ready = rt.status.as_ref().and_then(|s| s.ready_replicas);
        let desired = desired_replicas(rt);
        let ready_text = ready.map_or("-".to_string(), |r| r.to_string());
        let ready_health = match (ready, desired) {
            (Some(r), Some(d)) if r >= d => Health::Good,
            _ => Health::Warn,
        };
        let mut row = vec![
            rt.name_any(),
            palette.health(&ready_text, ready_health),
            desired.map_or("-".to_string(), |d| d.to_string()),
            rt.spec.provider.type_.as_str().to_string(),
            rt.spec.provider.model.clone(),
            version_column(rt),
            creation_age(rt, now),
        ];
        if all_namespaces {
            row.insert(0, rt.namespace().unwrap_or_default());
        }
        t.add_row(row);
    }
    table::render(&t, 0)
}

/// VERSION: the tag, or a short digest for a digest-pinned runtime.
pub fn version_column(rt: &TrussiumRuntime) -> String {
    rt.spec.image.version()
}

/// The replica count the operator converges to: its report, else spec.replicas
/// (unknown while autoscaling is on and nothing is reported).
pub fn desired_replicas(rt: &TrussiumRuntime) -> Option<i32> {
    rt.status
        .as_ref()
        .and_then(|s| s.desired_replicas)
        .or_else(|| (!autoscaling_enabled(rt)).then_some(rt.spec.replicas))
}

pub fn autoscaling_enabled(rt: &TrussiumRuntime) -> bool {
    rt.spec.autoscaling.as_ref().is_some_and(|a| a.enabled)
}

fn creation_age(rt: &TrussiumRuntime, now: Timestamp) -> String {
    rt.meta()
        .creation_timestamp
        .as_ref()
        .map_or("-".to_string(), |t| age::since(&t.0, now))
}

// ---------------------------------------------------------------------------
// The detailed view

/// One word (and a few more) for the whole runtime.
pub fn summary(rt: &TrussiumRuntime) -> (Health, String) {
    let Some(status) = &rt.status else {
        return (
            Health::Warn,
            "Pending (no status yet: is the operator running?)".to_string(),
        );
    };
    let cond = |t: &str| status.condition(t);
    let is = |t: &str, s: &str| cond(t).is_some_and(|c| c.status == s);
    let reason_of = |t: &str| cond(t).map(|c| c.reason.clone()).unwrap_or_default();
    if is(condition_type::CONFIGURATION_VALID, "False") {
        return (
            Health::Bad,
            format!(
                "Invalid configuration ({})",
                reason_of(condition_type::CONFIGURATION_VALID)
            ),
        );
    }
    if is(condition_type::DEGRADED, "True") {
        return (
            Health::Bad,
            format!("Degraded ({})", reason_of(condition_type::DEGRADED)),
        );
    }
    if cond(condition_type::UPGRADING).is_some_and(|c| c.reason == reason::UPGRADE_FAILED) {
        return (Health::Bad, "Upgrade failed".to_string());
    }
    if is(condition_type::UPGRADING, "True") {
        return (
            Health::Warn,
            format!("Upgrading to {}", rt.spec.image.version()),
        );
    }
    if is(condition_type::READY, "True") {
        if reason_of(condition_type::READY) == reason::SCALED_TO_ZERO {
            return (Health::Neutral, "Scaled to zero".to_string());
        }
        return (Health::Good, "Ready".to_string());
    }
    if is(condition_type::PROGRESSING, "True") {
        return (Health::Warn, "Progressing".to_string());
    }
    if status.conditions.is_empty() {
        return (
            Health::Warn,
            "Pending (no conditions reported yet)".to_string(),
        );
    }
    (Health::Warn, "Not ready".to_string())
}

/// The colour of a condition's status, given what True means for its type.
pub fn condition_health(c: &Condition) -> Health {
    let (t, s, r) = (c.type_.as_str(), c.status.as_str(), c.reason.as_str());
    if s == "Unknown" {
        return Health::Warn;
    }
    let truth = s == "True";
    match t {
        condition_type::CONFIGURATION_VALID => good_if(truth),
        condition_type::AVAILABLE | condition_type::READY => {
            if r == reason::SCALED_TO_ZERO {
                Health::Neutral
            } else {
                good_if(truth)
            }
        }
        condition_type::DEGRADED | condition_type::STALLED => good_if(!truth),
        condition_type::PROGRESSING if truth => Health::Warn,
        condition_type::PROGRESSING => match r {
            reason::CONFIGURATION_INVALID
            | reason::DEPLOYMENT_FAILED
            | reason::RECONCILIATION_FAILED => Health::Bad,
            _ => Health::Good,
        },
        condition_type::UPGRADING if truth => Health::Warn,
        condition_type::UPGRADING if r == reason::UPGRADE_FAILED => Health::Bad,
        condition_type::UPGRADING => Health::Good,
        _ => Health::Neutral,
    }
}

fn good_if(ok: bool) -> Health {
    if ok { Health::Good } else { Health::Bad }
}

/// One image line: the reference, highlighted (colour and words) when it
/// differs from the desired one.
pub fn image_value(value: Option<&str>, desired: &str, missing: &str, palette: Palette) -> String {
    match value {
        None => palette.dim(missing),
        Some(v) if v == desired => palette.good(v),
        Some(v) => format!(
            "{} {}",
            palette.warn(v),
            palette.warn(&format!(
                "(differs from desired: {} ≠ {})",
                version_or_ref(v),
                version_or_ref(desired)
            ))
        ),
    }
}

fn version_or_ref(reference: &str) -> String {
    let v = version_of(reference);
    if v.is_empty() {
        reference.to_string()
    } else {
        v
    }
}

const LABEL_WIDTH: usize = 14;

fn field(out: &mut String, label: &str, value: &str) {
    out.push_str(&format!(
        "{:<width$}{value}\n",
        format!("{label}:"),
        width = LABEL_WIDTH
    ));
}

/// The detailed view of one runtime.
pub fn render_detail(
    rt: &TrussiumRuntime,
    recent: &RecentEvents,
    now: Timestamp,
    palette: Palette,
) -> String {
    let mut out = String::new();
    let status = rt.status.clone().unwrap_or_default();
    let (health, text) = summary(rt);

    field(&mut out, "Name", &palette.bold(&rt.name_any()));
    field(&mut out, "Namespace", &rt.namespace().unwrap_or_default());
    field(&mut out, "Status", &palette.health(&text, health));
    field(&mut out, "Provider", rt.spec.provider.type_.as_str());
    field(&mut out, "Model", &rt.spec.provider.model);
    if let Some(url) = &rt.spec.provider.base_url {
        field(&mut out, "Base URL", url);
    }
    field(
        &mut out,
        "Endpoint",
        status.endpoint.as_deref().unwrap_or("- (not reported yet)"),
    );

    let desired = desired_replicas(rt);
    let ready = status.ready_replicas.unwrap_or(0);
    let available = status.available_replicas.unwrap_or(0);
    let desired_text = desired.map_or("?".to_string(), |d| d.to_string());
    let replicas_health = match desired {
        Some(d) if ready >= d => Health::Good,
        _ => Health::Warn,
    };
    field(
        &mut out,
        "Replicas",
        &format!(
            "{} ready, {available} available",
            palette.health(&format!("{ready}/{desired_text}"), replicas_health)
        ),
    );
    let autoscaling = match rt.spec.autoscaling.as_ref().filter(|a| a.enabled) {
        Some(a) => format!(
            "on: {}–{} replicas at {}% CPU (spec.replicas {} is ignored)",
            a.min_replicas,
            a.max_replicas.map_or("?".to_string(), |m| m.to_string()),
            a.target_cpu_utilization_percentage,
            rt.spec.replicas
        ),
        None => "off".to_string(),
    };
    field(&mut out, "Autoscaling", &autoscaling);

    let generation = rt.meta().generation;
    let observed = status.observed_generation;
    let stale = generation.is_some() && generation != observed;
    let generation_text = format!(
        "{} (observed {})",
        generation.map_or("-".to_string(), |g| g.to_string()),
        observed.map_or("none".to_string(), |g| g.to_string())
    );
    let generation_text = if stale {
        palette.warn(&generation_text)
    } else {
        generation_text
    };
    field(&mut out, "Generation", &generation_text);
    field(&mut out, "Age", &creation_age(rt, now));

    if stale {
        out.push('\n');
        out.push_str(&palette.warn(&format!(
            "Warning: the operator has not processed the latest spec yet: this status describes generation {} but the spec is at generation {}.",
            observed.map_or("none".to_string(), |g| g.to_string()),
            generation.unwrap_or_default()
        )));
        out.push('\n');
    }

    // Images
    let desired_image = rt.spec.image.reference();
    out.push('\n');
    out.push_str(&palette.bold("Images"));
    out.push('\n');
    let image_field = |out: &mut String, label: &str, value: String| {
        out.push_str(&format!("  {:<18}{value}\n", format!("{label}:")));
    };
    image_field(&mut out, "Desired", palette.bold(&desired_image));
    image_field(
        &mut out,
        "Current",
        image_value(
            status.current_image.as_deref(),
            &desired_image,
            "- (not reported yet)",
            palette,
        ),
    );
    image_field(
        &mut out,
        "Last successful",
        image_value(
            status.last_successful_image.as_deref(),
            &desired_image,
            "- (no rollout has completed yet)",
            palette,
        ),
    );

    // Conditions
    out.push('\n');
    out.push_str(&palette.bold("Conditions"));
    out.push('\n');
    if status.conditions.is_empty() {
        out.push_str(&format!("  {}\n", palette.dim("none reported yet")));
    } else {
        let mut t = table::new(&["TYPE", "STATUS", "REASON", "AGE", "MESSAGE"], palette);
        for c in ordered_conditions(&status.conditions) {
            t.add_row(vec![
                c.type_.clone(),
                palette.health(&c.status, condition_health(c)),
                c.reason.clone(),
                age::since(&c.last_transition_time.0, now),
                c.message.replace(['\n', '\r'], " "),
            ]);
        }
        out.push_str(&table::render(&t, 2));
    }

    // Events
    out.push('\n');
    match recent {
        RecentEvents::Shown(list) if list.is_empty() => {
            out.push_str(&palette.bold("Events"));
            out.push_str(&format!("\n  {}\n", palette.dim("none")));
        }
        RecentEvents::Shown(list) => {
            let shown = &list[list.len().saturating_sub(RECENT_EVENTS)..];
            let title = if shown.len() < list.len() {
                format!("Events (last {} of {})", shown.len(), list.len())
            } else {
                "Events".to_string()
            };
            out.push_str(&palette.bold(&title));
            out.push('\n');
            out.push_str(&events::render_table(shown, now, palette, 2));
        }
        RecentEvents::Unavailable(why) => {
            out.push_str(&palette.bold("Events"));
            out.push_str(&format!(
                "\n  {}\n",
                palette.warn(&format!("unavailable: {why}"))
            ));
        }
    }
    out
}

/// The contract's order first, then any others as reported.
fn ordered_conditions(conditions: &[Condition]) -> Vec<&Condition> {
    let rank = |c: &Condition| {
        condition_type::ALL
            .iter()
            .position(|t| *t == c.type_)
            .unwrap_or(condition_type::ALL.len())
    };
    let mut sorted: Vec<&Condition> = conditions.iter().collect();
    sorted.sort_by_key(|c| rank(c));
    sorted
}

// ---------------------------------------------------------------------------
// --watch

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
    Runtime(Result<watcher::Event<TrussiumRuntime>, watcher::Error>),
    Event(Result<watcher::Event<Event>, watcher::Error>),
}

async fn watch_detail(
    target: &Target,
    name: &str,
    format: Option<OutputFormat>,
    palette: Palette,
) -> Result<()> {
    // Fail fast, with the usual messages, on a missing runtime, CRD or permission.
    let first = target.get_runtime(name).await?;
    let by_name = format!("metadata.name={name}");
    let runtimes = watcher(
        target.runtimes(),
        watcher::Config::default().fields(&by_name),
    )
    .default_backoff()
    .map(Change::Runtime);
    let events_api: Api<Event> = Api::namespaced(target.client.clone(), &target.namespace);
    let event_stream = watcher(
        events_api,
        watcher::Config::default().fields(&events::selector(name)),
    )
    .default_backoff()
    .map(Change::Event);
    let mut changes = futures::stream::select(runtimes.boxed(), event_stream.boxed());

    let mut runtime: Option<TrussiumRuntime> = Some(first);
    let mut event_mirror: Mirror<Event> = Mirror::new();
    let mut events_problem: Option<String> = None;
    let mut screen = Screen::new();
    let mut last_version = String::new();
    let request = Request::new("watch", RUNTIMES)
        .namespace(Some(&target.namespace))
        .name(name);

    while let Some(batch) = next_burst(&mut changes).await {
        for change in batch {
            match change {
                Change::Runtime(Ok(watcher::Event::Apply(rt) | watcher::Event::InitApply(rt))) => {
                    runtime = Some(rt);
                }
                Change::Runtime(Ok(watcher::Event::Delete(_))) => runtime = None,
                Change::Runtime(Ok(_)) => {}
                Change::Runtime(Err(e)) if watch_error_is_fatal(&e) => {
                    return Err(target.fail_watch(request, e));
                }
                Change::Runtime(Err(_)) => {}
                Change::Event(Ok(ev)) => {
                    events_problem = None;
                    event_mirror.apply(ev);
                }
                Change::Event(Err(e)) => {
                    let req = Request::new("watch", EVENTS).namespace(Some(&target.namespace));
                    events_problem = Some(target.fail_watch(req, e).to_string());
                }
            }
        }
        if let Some(format) = format {
            // Machine output: the object each time it changes.
            if let Some(rt) = &runtime {
                let version = rt.resource_version().unwrap_or_default();
                if version != last_version {
                    output::print(&machine(rt, format)?)?;
                    last_version = version;
                }
            }
            continue;
        }
        let frame = match &runtime {
            Some(rt) => {
                let recent = match &events_problem {
                    Some(why) => RecentEvents::Unavailable(why.clone()),
                    None => {
                        let mut list: Vec<Event> = event_mirror
                            .items
                            .values()
                            .filter(|e| events::regards(e, rt))
                            .cloned()
                            .collect();
                        events::sort_oldest_first(&mut list);
                        RecentEvents::Shown(list)
                    }
                };
                render_detail(rt, &recent, Timestamp::now(), palette)
            }
            None => format!(
                "TrussiumRuntime {name} in namespace {} was deleted; waiting for it to come back…\n",
                target.namespace
            ),
        };
        screen.show(frame, palette)?;
    }
    Ok(())
}

async fn watch_list(target: &Target, format: Option<OutputFormat>, palette: Palette) -> Result<()> {
    // Fail fast on a missing CRD or permission.
    target
        .runtimes_in_scope()
        .list(&ListParams::default().limit(1))
        .await
        .map_err(|e| target.fail(Request::new("list", RUNTIMES).namespace(target.scope()), e))?;
    let mut stream = watcher(target.runtimes_in_scope(), watcher::Config::default())
        .default_backoff()
        .boxed();
    let mut mirror: Mirror<TrussiumRuntime> = Mirror::new();
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
        let runtimes: Vec<TrussiumRuntime> = mirror.items.values().cloned().collect();
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
    use crate::commands::events::tests::{at, event};

    pub(crate) fn runtime(yaml: &str) -> TrussiumRuntime {
        serde_yaml::from_str(yaml).unwrap_or_else(|e| panic!("{e}"))
    }

    const UPGRADING: &str = r#"
apiVersion: runtime.trussium.io/v1alpha1
kind: TrussiumRuntime
metadata:
  name: private-ai
  namespace: trussium
  uid: rt-uid
  generation: 5
  creationTimestamp: "2023-11-14T22:00:00Z"
spec:
  image:
    repository: ghcr.io/trussiumhq/trussium
    tag: v1.23.0
  replicas: 3
  provider:
    type: ollama
    model: llama3.2
    baseURL: http://ollama.ollama.svc.cluster.local:11434/v1
status:
  observedGeneration: 4
  desiredReplicas: 3
  readyReplicas: 2
  availableReplicas: 2
  desiredImage: ghcr.io/trussiumhq/trussium:v1.22.0
  currentImage: ghcr.io/trussiumhq/trussium:v1.22.0
  lastSuccessfulImage: ghcr.io/trussiumhq/trussium:v1.22.0
  endpoint: http://private-ai.trussium.svc.cluster.local:9000
  conditions:
  - type: Upgrading
    status: "True"
    reason: UpgradeInProgress
    message: Rolling out v1.23.0.
    lastTransitionTime: "2023-11-14T22:13:00Z"
    observedGeneration: 4
  - type: Ready
    status: "False"
    reason: RuntimeNotReady
    message: 2 of 3 replicas are ready.
    lastTransitionTime: "2023-11-14T22:13:00Z"
    observedGeneration: 4
  - type: ConfigurationValid
    status: "True"
    reason: ReferencesResolved
    message: All referenced Secrets are available.
    lastTransitionTime: "2023-11-14T22:00:10Z"
    observedGeneration: 4
  - type: Degraded
    status: "False"
    reason: AsExpected
    message: The runtime is progressing normally.
    lastTransitionTime: "2023-11-14T22:00:10Z"
    observedGeneration: 4
"#;

    /// 2023-11-14T22:13:20Z.
    fn now() -> Timestamp {
        at(0)
    }

    #[test]
    fn detail_view_plain() {
        let rt = runtime(UPGRADING);
        let recent = RecentEvents::Shown(vec![
            event(
                "e1",
                "Normal",
                "RuntimeReady",
                -700,
                "All requested replicas are ready.",
            ),
            event(
                "e2",
                "Normal",
                "RuntimeUpgradeStarted",
                -20,
                "Upgrading from v1.22.0 to v1.23.0.",
            ),
        ]);
        let text = render_detail(&rt, &recent, now(), Palette::PLAIN);
        let want = "\
Name:         private-ai
Namespace:    trussium
Status:       Upgrading to v1.23.0
Provider:     ollama
Model:        llama3.2
Base URL:     http://ollama.ollama.svc.cluster.local:11434/v1
Endpoint:     http://private-ai.trussium.svc.cluster.local:9000
Replicas:     2/3 ready, 2 available
Autoscaling:  off
Generation:   5 (observed 4)
Age:          13m

Warning: the operator has not processed the latest spec yet: this status describes generation 4 but the spec is at generation 5.

Images
  Desired:          ghcr.io/trussiumhq/trussium:v1.23.0
  Current:          ghcr.io/trussiumhq/trussium:v1.22.0 (differs from desired: v1.22.0 ≠ v1.23.0)
  Last successful:  ghcr.io/trussiumhq/trussium:v1.22.0 (differs from desired: v1.22.0 ≠ v1.23.0)

Conditions
  TYPE                 STATUS   REASON               AGE   MESSAGE
  ConfigurationValid   True     ReferencesResolved   13m   All referenced Secrets are available.
  Ready                False    RuntimeNotReady      20s   2 of 3 replicas are ready.
  Degraded             False    AsExpected           13m   The runtime is progressing normally.
  Upgrading            True     UpgradeInProgress    20s   Rolling out v1.23.0.

Events
  AGE   TYPE     REASON                  ACTION      NOTE
  11m   Normal   RuntimeReady            Reconcile   All requested replicas are ready.
  20s   Normal   RuntimeUpgradeStarted   Reconcile   Upgrading from v1.22.0 to v1.23.0.
";
        assert_eq!(text, want, "\n--- got ---\n{text}");
    }

    #[test]
    fn detail_view_coloured_highlights() {
        let rt = runtime(UPGRADING);
        let text = render_detail(&rt, &RecentEvents::Shown(vec![]), now(), Palette::COLORED);
        // Differing images are yellow, the matching desired one is not.
        assert!(
            text.contains("\u{1b}[33mghcr.io/trussiumhq/trussium:v1.22.0"),
            "{text:?}"
        );
        // Ready=False is red, Degraded=False is green.
        assert!(text.contains("\u{1b}[31;1mFalse"), "{text:?}");
        assert!(text.contains("\u{1b}[32mFalse"), "{text:?}");
    }

    #[test]
    fn detail_view_without_status_or_events() {
        let mut rt = runtime(UPGRADING);
        rt.status = None;
        rt.spec.image.tag = None;
        rt.spec.image.digest =
            Some("sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef".into());
        let text = render_detail(
            &rt,
            &RecentEvents::Unavailable("forbidden: you may not list events.events.k8s.io".into()),
            now(),
            Palette::PLAIN,
        );
        assert!(
            text.contains("Status:       Pending (no status yet: is the operator running?)"),
            "{text}"
        );
        assert!(text.contains("Generation:   5 (observed none)"), "{text}");
        assert!(
            text.contains("Current:          - (not reported yet)"),
            "{text}"
        );
        assert!(
            text.contains("Last successful:  - (no rollout has completed yet)"),
            "{text}"
        );
        assert!(
            text.contains("Desired:          ghcr.io/trussiumhq/trussium@sha256:0123"),
            "{text}"
        );
        assert!(text.contains("Conditions\n  none reported yet\n"), "{text}");
        assert!(text.contains("Events\n  unavailable: forbidden"), "{text}");
    }

    #[test]
    fn detail_view_keeps_the_last_five_events() {
        let rt = runtime(UPGRADING);
        let list = (0..8)
            .map(|i| event(&format!("e{i}"), "Normal", &format!("Reason{i}"), i, "n"))
            .collect();
        let text = render_detail(&rt, &RecentEvents::Shown(list), at(10), Palette::PLAIN);
        assert!(text.contains("Events (last 5 of 8)"), "{text}");
        assert!(!text.contains("Reason2") && text.contains("Reason3") && text.contains("Reason7"));
    }

    #[test]
    fn list_view() {
        let a = runtime(UPGRADING);
        let mut b = runtime(UPGRADING);
        b.metadata.name = Some("digest-pinned".into());
        b.metadata.namespace = Some("other".into());
        b.spec.image.tag = None;
        b.spec.image.digest =
            Some("sha256:abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789".into());
        b.spec.provider.type_ = trussium_api::ProviderType::Openai;
        b.spec.provider.model = "gpt-5".into();
        b.status = None;
        let text = render_list(&[a.clone(), b.clone()], false, now(), Palette::PLAIN);
        assert_eq!(
            text,
            "\
NAME            READY   DESIRED   PROVIDER   MODEL      VERSION               AGE
private-ai      2       3         ollama     llama3.2   v1.23.0               13m
digest-pinned   -       3         openai     gpt-5      sha256:abcdef012345   13m
"
        );
        let text = render_list(&[a], true, now(), Palette::PLAIN);
        assert!(text.starts_with("NAMESPACE   NAME         READY"), "{text}");
        assert!(text.contains("trussium    private-ai   2"), "{text}");
    }

    #[test]
    fn version_column_and_desired_replicas() {
        let mut rt = runtime(UPGRADING);
        assert_eq!(version_column(&rt), "v1.23.0");
        rt.spec.image.tag = None;
        rt.spec.image.digest =
            Some("sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef".into());
        assert_eq!(version_column(&rt), "sha256:0123456789ab");
        assert_eq!(desired_replicas(&rt), Some(3));
        rt.status = None;
        assert_eq!(desired_replicas(&rt), Some(3));
        rt.spec.autoscaling = Some(trussium_api::AutoscalingSpec {
            enabled: true,
            min_replicas: 2,
            max_replicas: Some(5),
            target_cpu_utilization_percentage: 80,
        });
        assert_eq!(desired_replicas(&rt), None);
    }

    #[test]
    fn summaries() {
        let mut rt = runtime(UPGRADING);
        assert_eq!(
            summary(&rt),
            (Health::Warn, "Upgrading to v1.23.0".to_string())
        );
        let set = |rt: &mut TrussiumRuntime, t: &str, s: &str, r: &str| {
            if let Some(status) = rt.status.as_mut()
                && let Some(c) = status.conditions.iter_mut().find(|c| c.type_ == t)
            {
                c.status = s.into();
                c.reason = r.into();
            }
        };
        set(&mut rt, "Upgrading", "False", "UpgradeFailed");
        assert_eq!(summary(&rt).0, Health::Bad);
        set(&mut rt, "Upgrading", "False", "UpgradeComplete");
        set(&mut rt, "Ready", "True", "RuntimeReady");
        assert_eq!(summary(&rt), (Health::Good, "Ready".to_string()));
        set(&mut rt, "Ready", "True", "ScaledToZero");
        assert_eq!(
            summary(&rt),
            (Health::Neutral, "Scaled to zero".to_string())
        );
        set(&mut rt, "Degraded", "True", "ProgressDeadlineExceeded");
        assert_eq!(
            summary(&rt),
            (
                Health::Bad,
                "Degraded (ProgressDeadlineExceeded)".to_string()
            )
        );
        set(&mut rt, "ConfigurationValid", "False", "SecretNotFound");
        assert_eq!(
            summary(&rt),
            (
                Health::Bad,
                "Invalid configuration (SecretNotFound)".to_string()
            )
        );
    }

    #[test]
    fn condition_colours_follow_polarity() {
        let c = |t: &str, s: &str, r: &str| Condition {
            type_: t.into(),
            status: s.into(),
            reason: r.into(),
            message: String::new(),
            last_transition_time: k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(at(0)),
            observed_generation: None,
        };
        assert_eq!(
            condition_health(&c("Ready", "True", "RuntimeReady")),
            Health::Good
        );
        assert_eq!(
            condition_health(&c("Ready", "False", "RuntimeNotReady")),
            Health::Bad
        );
        assert_eq!(
            condition_health(&c("Available", "False", "ScaledToZero")),
            Health::Neutral
        );
        assert_eq!(
            condition_health(&c("Degraded", "True", "ReplicaFailure")),
            Health::Bad
        );
        assert_eq!(
            condition_health(&c("Degraded", "False", "AsExpected")),
            Health::Good
        );
        assert_eq!(
            condition_health(&c("Stalled", "True", "SecretNotFound")),
            Health::Bad
        );
        assert_eq!(
            condition_health(&c("Stalled", "False", "Retrying")),
            Health::Good
        );
        assert_eq!(
            condition_health(&c("Progressing", "True", "DeploymentProgressing")),
            Health::Warn
        );
        assert_eq!(
            condition_health(&c("Progressing", "False", "DeploymentFailed")),
            Health::Bad
        );
        assert_eq!(
            condition_health(&c("Upgrading", "False", "UpgradeFailed")),
            Health::Bad
        );
        assert_eq!(
            condition_health(&c("Upgrading", "False", "NoUpgrade")),
            Health::Good
        );
        assert_eq!(condition_health(&c("Ready", "Unknown", "X")), Health::Warn);
        assert_eq!(condition_health(&c("Custom", "True", "X")), Health::Neutral);
    }

    #[test]
    fn mirror_follows_a_watch_and_relists() {
        let rt = |name: &str| {
            let mut r = runtime(UPGRADING);
            r.metadata.name = Some(name.into());
            r
        };
        let mut m: Mirror<TrussiumRuntime> = Mirror::new();
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

    #[test]
    fn image_highlighting() {
        let d = "r/x:v2";
        assert_eq!(
            image_value(Some("r/x:v2"), d, "-", Palette::PLAIN),
            "r/x:v2"
        );
        assert_eq!(
            image_value(Some("r/x:v1"), d, "-", Palette::PLAIN),
            "r/x:v1 (differs from desired: v1 ≠ v2)"
        );
        assert_eq!(image_value(None, d, "- (none)", Palette::PLAIN), "- (none)");
    }
}
