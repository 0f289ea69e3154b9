//! The views of `status`, drawn from a runtime (and its Events) as text: the
//! list, and the detailed view with its next steps. Pure: time and colours
//! come in as arguments.

use k8s_openapi::api::events::v1::Event;
use k8s_openapi::jiff::Timestamp;
use kube::{Resource, ResourceExt};
use trussium_api::image::version_of;
use trussium_api::suspension::suspension;
use trussium_api::validation::syntax::without_user_info;
use trussium_api::{TrussiumRuntime, TrussiumRuntimeStatus};

use crate::age;
use crate::diagnosis::pods::PodView;
use crate::diagnosis::render::pods_table;
use crate::fetched::Fetched;
use crate::interpret::{
    TERMINATING, condition_health, desired_replicas, next_steps, ordered_conditions, summary,
    terminating, waiting_for_turn,
};
use crate::output::{Health, Palette};
use crate::runtime_events;
use crate::table;
use crate::terminal::safe;

/// How many Events the detailed view shows.
pub const RECENT_EVENTS: usize = 5;

/// A section of the detailed view read beside the runtime: what was read,
/// or why it could not be (a failure to read Events or pods does not fail
/// `status`).
#[derive(Debug, Clone)]
pub enum Section<T> {
    Shown(T),
    Unavailable(String),
}

/// The runtime's Events, oldest first.
pub type RecentEvents = Section<Vec<Event>>;

/// The runtime's pods, new revision first.
pub type RuntimePods = Section<Vec<PodView>>;

// The list view

/// `NAME READY DESIRED PROVIDER MODEL VERSION AGE`, with NAMESPACE first for
/// -A; under the table, one line for each runtime that could not be read.
pub fn render_list(
    fetched: &[Fetched],
    all_namespaces: bool,
    now: Timestamp,
    palette: Palette,
) -> String {
    let runtimes: Vec<&TrussiumRuntime> =
        fetched.iter().filter_map(Fetched::whole_runtime).collect();
    let mut out = if runtimes.is_empty() {
        String::new()
    } else {
        render_table(&runtimes, all_namespaces, now, palette)
    };
    for f in fetched.iter().filter(|f| f.whole_runtime().is_none()) {
        let name = match (all_namespaces, f.namespace()) {
            (true, Some(ns)) => format!("{}/{}", safe(&ns), safe(&f.name_any())),
            _ => safe(&f.name_any()),
        };
        out.push_str(&format!(
            "{name}: {}\n",
            palette.bad(&format!(
                "cannot read its status: {}",
                safe(f.problem.as_deref().unwrap_or_default())
            ))
        ));
    }
    out
}

fn render_table(
    runtimes: &[&TrussiumRuntime],
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
        let count = ready.map_or("-".to_string(), |r| r.to_string());
        // Suspended: the count as it is, and that nothing will move it.
        // Queued: a rollout of the operator's new template waits its turn.
        let suspended = suspension(&rt.metadata).is_suspended();
        let ready_text = match ready {
            _ if terminating(rt) => TERMINATING.to_string(),
            _ if suspended => format!("{count} SUSPENDED"),
            _ if waiting_for_turn(rt) => format!("{count} QUEUED"),
            _ => count,
        };
        let ready_health = match (ready, desired) {
            _ if terminating(rt) || suspended => Health::Warn,
            (Some(r), Some(d)) if r >= d => Health::Good,
            _ => Health::Warn,
        };
        let mut row = vec![
            safe(&rt.name_any()),
            palette.health(&ready_text, ready_health),
            desired.map_or("-".to_string(), |d| d.to_string()),
            rt.spec.provider.type_.as_str().to_string(),
            safe(&rt.spec.provider.model),
            safe(&version_column(rt)),
            creation_age(rt, now),
        ];
        if all_namespaces {
            row.insert(0, safe(&rt.namespace().unwrap_or_default()));
        }
        t.add_row(row);
    }
    table::render(&t, 0)
}

/// VERSION: the tag, or a short digest for a digest-pinned runtime.
pub fn version_column(rt: &TrussiumRuntime) -> String {
    rt.spec.image.version()
}

fn creation_age(rt: &TrussiumRuntime, now: Timestamp) -> String {
    rt.meta()
        .creation_timestamp
        .as_ref()
        .map_or("-".to_string(), |t| age::since(&t.0, now))
}
/// One image line: the reference, highlighted (colour and words) when it
/// differs from the desired one.
pub fn image_value(value: Option<&str>, desired: &str, missing: &str, palette: Palette) -> String {
    match value {
        None => palette.dim(missing),
        Some(v) if v == desired => palette.good(&safe(v)),
        Some(v) => format!(
            "{} {}",
            palette.warn(&safe(v)),
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
        safe(reference)
    } else {
        safe(&v)
    }
}

// The detailed view

const LABEL_WIDTH: usize = 14;

fn field(out: &mut String, label: &str, value: &str) {
    out.push_str(&format!(
        "{:<width$}{value}\n",
        format!("{label}:"),
        width = LABEL_WIDTH
    ));
}

/// A base URL as it may be shown: without user information (a runtime
/// stored before the API refused it may carry `user:password@`).
fn base_url(url: &str) -> String {
    let shown = without_user_info(url);
    if shown == url {
        safe(url)
    } else {
        format!("{} (user information hidden)", safe(&shown))
    }
}

/// The detailed view of one runtime; `problem` says why its status could
/// not be read (it is then shown without one).
pub fn render_detail(
    rt: &TrussiumRuntime,
    problem: Option<&str>,
    recent: &RecentEvents,
    pods: &RuntimePods,
    now: Timestamp,
    palette: Palette,
) -> String {
    let mut out = String::new();
    let status = rt.status.clone().unwrap_or_default();
    let (health, text) = match problem {
        Some(why) => (
            Health::Bad,
            format!("cannot read its status: {}", safe(why)),
        ),
        None => summary(rt),
    };
    field(&mut out, "Name", &palette.bold(&safe(&rt.name_any())));
    field(
        &mut out,
        "Namespace",
        &safe(&rt.namespace().unwrap_or_default()),
    );
    field(&mut out, "Status", &palette.health(&text, health));
    field(&mut out, "Provider", rt.spec.provider.type_.as_str());
    field(&mut out, "Model", &safe(&rt.spec.provider.model));
    if let Some(url) = &rt.spec.provider.base_url {
        field(&mut out, "Base URL", &base_url(url));
    }
    field(
        &mut out,
        "Endpoint",
        &safe(status.endpoint.as_deref().unwrap_or("- (not reported yet)")),
    );
    field(&mut out, "Replicas", &replicas(rt, &status, palette));
    field(&mut out, "Autoscaling", &autoscaling(rt));
    generation(&mut out, rt, &status, now, palette);
    next_steps_section(&mut out, rt, palette);
    images_section(&mut out, rt, &status, palette);
    conditions_section(&mut out, &status, now, palette);
    pods_section(&mut out, pods, now, palette);
    events_section(&mut out, recent, now, palette);
    out
}

/// "ready/desired ready, N available".
fn replicas(rt: &TrussiumRuntime, status: &TrussiumRuntimeStatus, palette: Palette) -> String {
    let desired = desired_replicas(rt);
    let ready = status.ready_replicas.unwrap_or(0);
    let available = status.available_replicas.unwrap_or(0);
    let desired_text = desired.map_or("?".to_string(), |d| d.to_string());
    let replicas_health = match desired {
        Some(d) if ready >= d => Health::Good,
        _ => Health::Warn,
    };
    format!(
        "{} ready, {available} available",
        palette.health(&format!("{ready}/{desired_text}"), replicas_health)
    )
}

/// "off", or the autoscaling range and target.
fn autoscaling(rt: &TrussiumRuntime) -> String {
    match rt.spec.autoscaling.as_ref().filter(|a| a.enabled) {
        Some(a) => format!(
            "on: {}–{} replicas at {}% CPU (spec.replicas {} is ignored)",
            a.min_replicas,
            a.max_replicas.map_or("?".to_string(), |m| m.to_string()),
            a.target_cpu_utilization_percentage,
            rt.spec.replicas
        ),
        None => "off".to_string(),
    }
}

/// The Generation and Age fields, and a warning when the status describes
/// an older spec.
fn generation(
    out: &mut String,
    rt: &TrussiumRuntime,
    status: &TrussiumRuntimeStatus,
    now: Timestamp,
    palette: Palette,
) {
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
    field(out, "Generation", &generation_text);
    field(out, "Age", &creation_age(rt, now));

    if stale {
        out.push('\n');
        out.push_str(&palette.warn(&format!(
            "Warning: the operator has not processed the latest spec yet: this status describes generation {} but the spec is at generation {}.",
            observed.map_or("none".to_string(), |g| g.to_string()),
            generation.unwrap_or_default()
        )));
        out.push('\n');
    }
}

fn next_steps_section(out: &mut String, rt: &TrussiumRuntime, palette: Palette) {
    let steps = next_steps(rt);
    if !steps.is_empty() {
        out.push('\n');
        out.push_str(&palette.bold("Next steps"));
        out.push('\n');
        for step in steps {
            out.push_str(&format!(
                "  {}:\n    {}\n",
                safe(&step.why),
                palette.bold(&safe(&step.command))
            ));
        }
    }
}

fn images_section(
    out: &mut String,
    rt: &TrussiumRuntime,
    status: &TrussiumRuntimeStatus,
    palette: Palette,
) {
    let desired_image = rt.spec.image.reference();
    out.push('\n');
    out.push_str(&palette.bold("Images"));
    out.push('\n');
    let image_field = |out: &mut String, label: &str, value: String| {
        out.push_str(&format!("  {:<18}{value}\n", format!("{label}:")));
    };
    image_field(out, "Desired", palette.bold(&safe(&desired_image)));
    image_field(
        out,
        "Current",
        image_value(
            status.current_image.as_deref(),
            &desired_image,
            "- (not reported yet)",
            palette,
        ),
    );
    image_field(
        out,
        "Last successful",
        image_value(
            status.last_successful_image.as_deref(),
            &desired_image,
            "- (no rollout has completed yet)",
            palette,
        ),
    );
}

fn conditions_section(
    out: &mut String,
    status: &TrussiumRuntimeStatus,
    now: Timestamp,
    palette: Palette,
) {
    out.push('\n');
    out.push_str(&palette.bold("Conditions"));
    out.push('\n');
    if status.conditions.is_empty() {
        out.push_str(&format!("  {}\n", palette.dim("none reported yet")));
    } else {
        let mut t = table::new(&["TYPE", "STATUS", "REASON", "AGE", "MESSAGE"], palette);
        for c in ordered_conditions(&status.conditions) {
            t.add_row(vec![
                safe(&c.type_),
                palette.health(&safe(&c.status), condition_health(c)),
                safe(&c.reason),
                age::since(&c.last_transition_time.0, now),
                safe(&c.message),
            ]);
        }
        out.push_str(&table::render(&t, 2));
    }
}

/// Each pod: its revision (the image asked for, or an older one), phase,
/// readiness, restarts, age, and why it is not ready.
fn pods_section(out: &mut String, pods: &RuntimePods, now: Timestamp, palette: Palette) {
    out.push('\n');
    out.push_str(&palette.bold("Pods"));
    match pods {
        Section::Shown(list) if list.is_empty() => {
            out.push_str(&format!("\n  {}\n", palette.dim("none")));
        }
        Section::Shown(list) => {
            out.push('\n');
            out.push_str(&pods_table(list, now, palette));
        }
        Section::Unavailable(why) => out.push_str(&format!(
            "\n  {}\n",
            palette.warn(&format!("unavailable: {}", safe(why)))
        )),
    }
}

fn events_section(out: &mut String, recent: &RecentEvents, now: Timestamp, palette: Palette) {
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
            out.push_str(&runtime_events::render_table(shown, now, palette, 2));
        }
        RecentEvents::Unavailable(why) => {
            out.push_str(&palette.bold("Events"));
            out.push_str(&format!(
                "\n  {}\n",
                palette.warn(&format!("unavailable: {}", safe(why)))
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::{UPGRADING, at, event, now, runtime};

    /// The detailed view of a runtime without pods.
    fn detail(
        rt: &TrussiumRuntime,
        problem: Option<&str>,
        recent: &RecentEvents,
        now: Timestamp,
        palette: Palette,
    ) -> String {
        render_detail(
            rt,
            problem,
            recent,
            &Section::Shown(Vec::new()),
            now,
            palette,
        )
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
        let text = detail(&rt, None, &recent, now(), Palette::PLAIN);
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

Pods
  none

Events
  AGE   TYPE     REASON                  ACTION      NOTE
  11m   Normal   RuntimeReady            Reconcile   All requested replicas are ready.
  20s   Normal   RuntimeUpgradeStarted   Reconcile   Upgrading from v1.22.0 to v1.23.0.
";
        assert_eq!(text, want, "\n--- got ---\n{text}");
    }

    #[test]
    fn the_pods_section_shows_each_pod_or_why_not() {
        use crate::diagnosis::pods::{Problem, Revision};
        let rt = runtime(UPGRADING);
        let pod = |name: &str, revision, ready, problem| PodView {
            name: name.to_string(),
            revision,
            image: None,
            phase: "Running".to_string(),
            ready,
            restarts: 2,
            created: Some(at(-90)),
            problem,
        };
        let pods = RuntimePods::Shown(vec![
            pod(
                "private-ai-new-1",
                Revision::New,
                false,
                Some(Problem::CrashLoop {
                    exit_code: Some(1),
                    reason: None,
                    message: None,
                    restarts: 2,
                }),
            ),
            pod("private-ai-old-1", Revision::Old, true, None),
        ]);
        let text = render_detail(
            &rt,
            None,
            &RecentEvents::Shown(vec![]),
            &pods,
            now(),
            Palette::PLAIN,
        );
        assert!(
            text.contains(
                "Pods
  NAME               REVISION   PHASE     READY   RESTARTS   AGE   STATE
  private-ai-new-1   new        Running   0/1     2          90s   CrashLoopBackOff (exit 1)
  private-ai-old-1   old        Running   1/1     2          90s
"
            ),
            "{text}"
        );
        let denied = RuntimePods::Unavailable(
            "forbidden: you may not list pods in namespace \"trussium\"".into(),
        );
        let text = render_detail(
            &rt,
            None,
            &RecentEvents::Shown(vec![]),
            &denied,
            now(),
            Palette::PLAIN,
        );
        assert!(
            text.contains(
                "Pods\n  unavailable: forbidden: you may not list pods in namespace \"trussium\"\n"
            ),
            "{text}"
        );
    }

    #[test]
    fn detail_view_coloured_highlights() {
        let rt = runtime(UPGRADING);
        let text = detail(
            &rt,
            None,
            &RecentEvents::Shown(vec![]),
            now(),
            Palette::COLORED,
        );
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
        let text = detail(
            &rt,
            None,
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
        let text = detail(
            &rt,
            None,
            &RecentEvents::Shown(list),
            at(10),
            Palette::PLAIN,
        );
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
        let text = render_list(
            &[
                Fetched::from_runtime(a.clone()),
                Fetched::from_runtime(b.clone()),
            ],
            false,
            now(),
            Palette::PLAIN,
        );
        assert_eq!(
            text,
            "\
NAME            READY   DESIRED   PROVIDER   MODEL      VERSION               AGE
private-ai      2       3         ollama     llama3.2   v1.23.0               13m
digest-pinned   -       3         openai     gpt-5      sha256:abcdef012345   13m
"
        );
        let text = render_list(&[Fetched::from_runtime(a)], true, now(), Palette::PLAIN);
        assert!(text.starts_with("NAMESPACE   NAME         READY"), "{text}");
        assert!(text.contains("trussium    private-ai   2"), "{text}");
    }

    #[test]
    fn a_credential_in_the_base_url_is_not_shown() {
        let mut rt = runtime(UPGRADING);
        rt.spec.provider.base_url = Some("https://alice:sk-live-123@api.example.com/v1".into());
        let text = detail(
            &rt,
            None,
            &RecentEvents::Shown(vec![]),
            now(),
            Palette::PLAIN,
        );
        assert!(
            !text.contains("alice") && !text.contains("sk-live"),
            "{text}"
        );
        assert!(
            text.contains("Base URL:     https://api.example.com/v1 (user information hidden)\n"),
            "{text}"
        );
        assert_eq!(
            base_url("http://a.example/x@y"),
            "http://a.example/x@y",
            "an '@' in the path is no user information"
        );
    }

    #[test]
    fn hostile_values_stay_on_their_line() {
        let mut rt = runtime(UPGRADING);
        rt.spec.provider.model = "llama\nFORGED: Ready\u{1b}]0;x\u{7}".into();
        rt.spec.provider.base_url = Some("http://a\u{1b}[2J".into());
        if let Some(s) = rt.status.as_mut() {
            s.conditions[0].message = format!("{}\n", "x".repeat(200_000));
            s.current_image = Some("r/x:v1\r\u{9b}2K".into());
        }
        let text = detail(
            &rt,
            None,
            &RecentEvents::Shown(vec![]),
            now(),
            Palette::PLAIN,
        );
        assert!(
            !text.contains(['\u{1b}', '\u{7}', '\r', '\u{9b}']),
            "{text:?}"
        );
        assert!(!text.lines().any(|l| l.starts_with("FORGED")), "{text}");
        assert!(
            text.contains("Model:        llama\\nFORGED: Ready\\x1b]0;x\\x07\n"),
            "{text}"
        );
        assert!(text.contains("Base URL:     http://a\\x1b[2J\n"), "{text}");
        assert!(text.contains("… (199489 more)"), "{text}");
        assert!(text.lines().all(|l| l.chars().count() < 700), "{text}");
        let list = render_list(&[Fetched::from_runtime(rt)], false, now(), Palette::PLAIN);
        assert_eq!(list.lines().count(), 2, "{list}");
    }

    #[test]
    fn a_suspended_runtime_says_so_in_the_list() {
        let mut rt = runtime(UPGRADING);
        rt.metadata.annotations = Some(
            [(
                "runtime.trussium.io/suspended".to_string(),
                "true".to_string(),
            )]
            .into(),
        );
        let text = render_list(
            &[Fetched::from_runtime(rt.clone())],
            false,
            now(),
            Palette::PLAIN,
        );
        assert!(
            text.lines()
                .nth(1)
                .is_some_and(|l| l.starts_with("private-ai   2 SUSPENDED ")),
            "{text}"
        );
        rt.status = None;
        let text = render_list(&[Fetched::from_runtime(rt)], false, now(), Palette::PLAIN);
        assert!(text.contains("private-ai   - SUSPENDED "), "{text}");
    }

    #[test]
    fn list_view_with_an_unreadable_and_a_terminating_runtime() {
        let mut odd = serde_json::to_value(runtime(UPGRADING)).unwrap_or_default();
        odd["metadata"]["name"] = "odd".into();
        odd["status"]["readyReplicas"] = i64::MAX.into();
        let mut leaving = runtime(UPGRADING);
        leaving.metadata.name = Some("leaving".into());
        leaving.metadata.deletion_timestamp = Some(
            k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(crate::fixtures::at(0)),
        );
        let fetched = [
            Fetched::from_runtime(runtime(UPGRADING)),
            Fetched::from_value(odd),
            Fetched::from_runtime(leaving.clone()),
        ];
        let text = render_list(&fetched, false, now(), Palette::PLAIN);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 4, "{text}");
        assert!(lines[1].starts_with("private-ai   2 "), "{text}");
        assert!(lines[2].starts_with("leaving      Terminating "), "{text}");
        assert_eq!(
            lines[3],
            "odd: cannot read its status: invalid value: integer `9223372036854775807`, expected i32"
        );
        let leaving_view = detail(
            &leaving,
            None,
            &RecentEvents::Shown(vec![]),
            now(),
            Palette::PLAIN,
        );
        assert!(
            leaving_view.contains("Status:       Terminating\n"),
            "{leaving_view}"
        );
        assert!(!leaving_view.contains("Next steps"), "{leaving_view}");
        let unread = detail(
            &runtime(UPGRADING),
            Some("bad\u{1b}"),
            &RecentEvents::Shown(vec![]),
            now(),
            Palette::PLAIN,
        );
        assert!(
            unread.contains("Status:       cannot read its status: bad\\x1b\n"),
            "{unread}"
        );
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

    #[test]
    fn version_column_is_tag_or_short_digest() {
        let mut rt = runtime(UPGRADING);
        assert_eq!(version_column(&rt), "v1.23.0");
        rt.spec.image.tag = None;
        rt.spec.image.digest =
            Some("sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef".into());
        assert_eq!(version_column(&rt), "sha256:0123456789ab");
    }

    #[test]
    fn detail_view_says_what_to_do_after_a_failed_upgrade() {
        let mut rt = runtime(UPGRADING);
        if let Some(s) = rt.status.as_mut() {
            s.observed_generation = Some(5);
            for c in &mut s.conditions {
                if c.type_ == "Upgrading" {
                    c.status = "False".into();
                    c.reason = "UpgradeFailed".into();
                }
            }
        }
        let text = detail(
            &rt,
            None,
            &RecentEvents::Shown(vec![]),
            now(),
            Palette::PLAIN,
        );
        assert!(
            text.contains(
                "\nNext steps\n  the upgrade to v1.23.0 failed; go back to ghcr.io/trussiumhq/trussium:v1.22.0:\n    kubectl trussium rollback private-ai -n trussium --wait\n\nImages\n"
            ),
            "{text}"
        );
    }
}
