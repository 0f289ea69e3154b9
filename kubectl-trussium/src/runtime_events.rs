//! A runtime's events.k8s.io/v1 Events: which ones regard it, reading them,
//! their order, and their table and `--watch` lines.

use k8s_openapi::api::events::v1::Event;
use k8s_openapi::jiff::Timestamp;
use kube::api::ListParams;
use kube::{Api, Resource, ResourceExt};
use trussium_api::TrussiumRuntime;

use crate::age;
use crate::client::Target;
use crate::error::{EVENTS, Request, Result};
use crate::output::{Health, Palette};
use crate::table;
use crate::terminal::safe;

pub fn list_events(target: &Target) -> Request {
    Request::new("list", EVENTS).namespace(Some(&target.namespace))
}

/// Field selector for the Events regarding a runtime.
pub fn selector(name: &str) -> String {
    format!(
        "regarding.kind={},regarding.name={name}",
        TrussiumRuntime::kind(&())
    )
}

/// Whether the Event is about this runtime object (not an older one of the
/// same name).
pub fn regards(event: &Event, rt: &TrussiumRuntime) -> bool {
    let uid = rt.uid();
    let regarding_uid = event.regarding.as_ref().and_then(|r| r.uid.clone());
    match (uid, regarding_uid) {
        (Some(a), Some(b)) => a == b,
        _ => true,
    }
}

/// The runtime's Events, oldest first.
pub async fn for_runtime(target: &Target, rt: &TrussiumRuntime) -> Result<Vec<Event>> {
    let mut events = for_name(target, &rt.name_any()).await?;
    events.retain(|e| regards(e, rt));
    Ok(events)
}

/// The Events regarding any runtime of that name, oldest first (filter with
/// [`regards`] once the runtime is known; this can run alongside its GET).
pub async fn for_name(target: &Target, name: &str) -> Result<Vec<Event>> {
    let api: Api<Event> = Api::namespaced(target.client.clone(), &target.namespace);
    let params = ListParams::default().fields(&selector(name));
    let mut events = target.list_all(&api, params, list_events(target)).await?;
    sort_oldest_first(&mut events);
    Ok(events)
}

/// When the Event last happened.
pub fn last_seen(event: &Event) -> Option<Timestamp> {
    event
        .series
        .as_ref()
        .map(|s| s.last_observed_time.0)
        .or_else(|| event.event_time.as_ref().map(|t| t.0))
        .or_else(|| event.deprecated_last_timestamp.as_ref().map(|t| t.0))
        .or_else(|| event.metadata.creation_timestamp.as_ref().map(|t| t.0))
}

/// When the Event first happened.
fn first_seen(event: &Event) -> Option<Timestamp> {
    event
        .event_time
        .as_ref()
        .map(|t| t.0)
        .or_else(|| event.deprecated_first_timestamp.as_ref().map(|t| t.0))
        .or_else(|| event.metadata.creation_timestamp.as_ref().map(|t| t.0))
}

/// How many times it happened.
pub fn count(event: &Event) -> i32 {
    event
        .series
        .as_ref()
        .map(|s| s.count)
        .or(event.deprecated_count)
        .unwrap_or(1)
        .max(1)
}

/// Oldest first. The operator publishes the Events of one transition with
/// the same time, cause first: within a time, creation order (the
/// resourceVersion, an etcd revision on every API server there is; one that
/// does not read as a number sorts by name after those that do).
pub fn sort_oldest_first(events: &mut [Event]) {
    let revision = |e: &Event| {
        e.metadata
            .resource_version
            .as_deref()
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(u64::MAX)
    };
    events.sort_by(|a, b| {
        last_seen(a)
            .cmp(&last_seen(b))
            .then_with(|| revision(a).cmp(&revision(b)))
            .then_with(|| a.metadata.name.cmp(&b.metadata.name))
    });
}

pub fn type_health(type_: &str) -> Health {
    match type_ {
        "Normal" => Health::Good,
        "Warning" => Health::Warn,
        _ => Health::Neutral,
    }
}

pub const HEADER: [&str; 5] = ["AGE", "TYPE", "REASON", "ACTION", "NOTE"];

/// The cells of one Event row, plain.
pub fn cells(event: &Event, now: Timestamp) -> [String; 5] {
    let age = match last_seen(event) {
        Some(t) => age::since(&t, now),
        None => "-".to_string(),
    };
    let n = count(event);
    let age = match (n, first_seen(event)) {
        (n, Some(first)) if n > 1 => format!("{age} (x{n} over {})", age::since(&first, now)),
        (n, None) if n > 1 => format!("{age} (x{n})"),
        _ => age,
    };
    let text = |v: &Option<String>| safe(v.as_deref().filter(|s| !s.is_empty()).unwrap_or("-"));
    let note = text(&event.note);
    [
        age,
        text(&event.type_),
        text(&event.reason),
        text(&event.action),
        note,
    ]
}

/// The Events as a table, oldest first (the caller sorts).
pub fn render_table(events: &[Event], now: Timestamp, palette: Palette, indent: usize) -> String {
    let mut t = table::new(&HEADER, palette);
    for event in events {
        let [age, type_, reason, action, note] = cells(event, now);
        let type_ = palette.health(&type_, type_health(&type_));
        t.add_row(vec![age, type_, reason, action, note]);
    }
    table::render(&t, indent)
}

/// Widths of the streamed rows of `--watch` (the last column is free).
const WATCH_WIDTHS: [usize; 4] = [10, 9, 28, 20];

/// One line of `--watch` output, columns padded before colouring.
pub fn render_line(cells: &[String; 5], palette: Palette, header: bool) -> String {
    let mut line = String::new();
    for (i, cell) in cells.iter().enumerate() {
        let text = match WATCH_WIDTHS.get(i) {
            Some(width) => format!("{cell:<width$}   ", width = width),
            None => cell.clone(),
        };
        let text = if header {
            palette.bold(&text)
        } else if i == 1 {
            palette.health(&text, type_health(cell))
        } else {
            text
        };
        line.push_str(&text);
    }
    line.trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::{at, event};

    #[test]
    fn oldest_first_with_series_time() {
        let mut late = event("b", "Normal", "RuntimeReady", 100, "ready");
        let early = event("a", "Warning", "ConfigurationInvalid", 50, "secret missing");
        let mut series = event("c", "Normal", "RuntimeProgressing", 10, "rolling");
        series.series = Some(k8s_openapi::api::events::v1::EventSeries {
            count: 3,
            last_observed_time: k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime(at(200)),
        });
        late.note = Some("line one\nline two".into());
        let mut events = vec![late, series, early];
        sort_oldest_first(&mut events);
        let names: Vec<_> = events.iter().map(|e| e.name_any()).collect();
        assert_eq!(names, ["a", "b", "c"]);

        let text = render_table(&events, at(400), Palette::PLAIN, 0);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 4, "{text}");
        assert!(lines[0].starts_with("AGE"), "{text}");
        assert!(lines[1].contains("Warning") && lines[1].contains("ConfigurationInvalid"));
        assert!(lines[1].starts_with("5m50s"), "{text}");
        assert!(lines[2].contains("line one\\nline two"), "{text}");
        assert!(lines[3].starts_with("3m20s (x3 over 6m30s)"), "{text}");
        assert!(lines[3].contains("Reconcile"), "{text}");
    }

    #[test]
    fn events_of_one_time_keep_the_order_they_were_published_in() {
        let mut cause = event(
            "x.ffff",
            "Normal",
            "RuntimeRestartRequested",
            100,
            "restart",
        );
        cause.metadata.resource_version = Some("120".into());
        let mut effect = event("x.0000", "Normal", "RuntimeProgressing", 100, "rolling");
        effect.metadata.resource_version = Some("121".into());
        let mut odd = event("x.1111", "Normal", "RuntimeReady", 100, "ready");
        odd.metadata.resource_version = Some("not-a-number".into());
        let mut events = vec![odd, effect, cause];
        sort_oldest_first(&mut events);
        let reasons: Vec<_> = events.iter().filter_map(|e| e.reason.clone()).collect();
        assert_eq!(
            reasons,
            [
                "RuntimeRestartRequested",
                "RuntimeProgressing",
                "RuntimeReady"
            ]
        );
    }

    #[test]
    fn hostile_notes_stay_on_one_bounded_line() {
        let note = format!(
            "\u{1b}]0;owned\u{7}ok\nforged line\0{}",
            "x".repeat(200_000)
        );
        let events = vec![event("a", "Warning\u{1b}[2J", "Reason\r", 0, &note)];
        let text = render_table(&events, at(10), Palette::PLAIN, 0);
        assert_eq!(text.lines().count(), 2, "{text}");
        assert!(!text.contains(['\u{1b}', '\u{7}', '\0', '\r']), "{text:?}");
        assert!(text.contains("\\x1b]0;owned\\x07ok\\nforged line\\x00"));
        assert!(text.len() < 2000, "{}", text.len());
        let line = render_line(&cells(&events[0], at(10)), Palette::PLAIN, false);
        assert!(!line.contains(['\u{1b}', '\n']) && line.len() < 2000);
    }

    #[test]
    fn types_are_coloured() {
        let events = vec![event("a", "Warning", "RuntimeUpgradeFailed", 0, "boom")];
        let text = render_table(&events, at(10), Palette::COLORED, 0);
        assert!(text.contains("\u{1b}[33mWarning"), "{text:?}");
        assert_eq!(type_health("Normal"), Health::Good);
    }

    #[test]
    fn watch_lines_are_padded_columns() {
        let e = event("a", "Normal", "RuntimeReady", 0, "all ready");
        let line = render_line(&cells(&e, at(5)), Palette::PLAIN, false);
        assert_eq!(
            line,
            format!(
                "{:<13}{:<12}{:<31}{:<23}all ready",
                "5s", "Normal", "RuntimeReady", "Reconcile"
            )
        );
    }

    #[test]
    fn uid_filter() {
        let mut rt: TrussiumRuntime = serde_json::from_value(serde_json::json!({
            "apiVersion": "runtime.trussium.io/v1beta1", "kind": "TrussiumRuntime",
            "metadata": {"name": "rt", "uid": "rt-uid"},
            "spec": {"image": {"repository": "r", "tag": "v1"}, "provider": {"type": "ollama", "model": "m"}}
        }))
        .unwrap_or_else(|e| panic!("{e}"));
        let e = event("a", "Normal", "RuntimeReady", 0, "x");
        assert!(regards(&e, &rt));
        rt.metadata.uid = Some("other".into());
        assert!(!regards(&e, &rt));
        assert_eq!(
            selector("rt"),
            "regarding.kind=TrussiumRuntime,regarding.name=rt"
        );
    }
}
