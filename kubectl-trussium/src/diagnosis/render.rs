//! The diagnosis as people read it: the cause in the first line, what to do
//! next, the pods, the evidence, and what could not be read. Pure; every
//! string from the cluster goes through [`safe`].

use k8s_openapi::jiff::Timestamp;

use super::pods::PodView;
use super::{Diagnosis, Item};
use crate::age;
use crate::output::{Health, Palette};
use crate::table;
use crate::terminal::safe;

/// One runtime's diagnosis.
pub fn render_detail(d: &Diagnosis, now: Timestamp, palette: Palette) -> String {
    let mut out = headline(d, palette);
    out.push('\n');
    if !d.next_steps.is_empty() {
        out.push_str(&format!("\n{}\n", palette.bold("Next:")));
        for step in &d.next_steps {
            out.push_str(&format!("  {}\n", step.why));
            if let Some(command) = &step.command {
                out.push_str(&format!("    {command}\n"));
            }
        }
    }
    for warning in &d.warnings {
        out.push_str(&format!("\n{} {warning}\n", palette.warn("Warning:")));
    }
    if !d.pods.is_empty() {
        out.push_str(&format!("\n{}\n", palette.bold("Pods:")));
        out.push_str(&pods_table(&d.pods, now, palette));
    }
    if !d.evidence.is_empty() {
        out.push_str(&format!("\n{}\n", palette.bold("Evidence:")));
        out.push_str(&evidence_table(&d.evidence, now, palette));
    }
    if let Some(log) = &d.previous_log {
        let title = format!("The previous run of {} ended with:", safe(&log.pod));
        out.push_str(&format!("\n{}\n", palette.bold(&title)));
        if log.lines.is_empty() {
            out.push_str("  (nothing: it wrote no log)\n");
        }
        for line in &log.lines {
            out.push_str(&format!("  {}\n", safe(line)));
        }
    }
    if !d.unread.is_empty() {
        out.push_str(&format!("\n{}\n", palette.bold("Not read:")));
        for line in &d.unread {
            out.push_str(&format!("  {line}\n"));
        }
    }
    out
}

/// The first line: the runtime and its cause.
pub fn headline(d: &Diagnosis, palette: Palette) -> String {
    let name = safe(&d.name);
    if d.ready {
        format!("{} {name}: {}", palette.good("✓"), d.summary)
    } else {
        format!("{} {name} is not Ready: {}", palette.bad("✗"), d.summary)
    }
}

/// `-A`: every runtime that is not Ready, with its cause in one line.
pub fn render_triage(all: &[Diagnosis], palette: Palette) -> String {
    let failing: Vec<&Diagnosis> = all.iter().filter(|d| !d.ready).collect();
    if failing.is_empty() {
        let all = match all.len() {
            1 => "the only runtime is Ready".to_string(),
            n => format!("all {n} runtimes are Ready"),
        };
        return format!("{} {all}\n", palette.good("✓"));
    }
    let mut t = table::new(&["NAMESPACE", "NAME", "CAUSE", "SUMMARY"], palette);
    for d in &failing {
        t.add_row(vec![
            safe(&d.namespace),
            safe(&d.name),
            palette.bad(&format!("{:?}", d.cause)),
            d.summary.clone(),
        ]);
    }
    let mut out = table::render(&t, 0);
    out.push_str(&format!(
        "\n{} of {} runtimes not Ready; `kubectl trussium diagnose NAME -n NAMESPACE` shows one in full\n",
        failing.len(),
        all.len()
    ));
    out
}

/// The pods as a table, indented under a section title.
pub fn pods_table(pods: &[PodView], now: Timestamp, palette: Palette) -> String {
    let mut t = table::new(
        &[
            "NAME", "REVISION", "PHASE", "READY", "RESTARTS", "AGE", "STATE",
        ],
        palette,
    );
    for p in pods {
        let ready = if p.ready {
            palette.good("1/1")
        } else {
            palette.bad("0/1")
        };
        let state = p.problem.as_ref().map_or(String::new(), |problem| {
            palette.health(&safe(&problem.state()), Health::Bad)
        });
        t.add_row(vec![
            safe(&p.name),
            p.revision.as_str().to_string(),
            safe(&p.phase),
            ready,
            p.restarts.to_string(),
            p.created.map_or("?".to_string(), |c| age::since(&c, now)),
            state,
        ]);
    }
    table::render(&t, 2)
}

fn evidence_table(items: &[Item], now: Timestamp, palette: Palette) -> String {
    let mut t = table::new(&["OBJECT", "AGE", "MESSAGE"], palette);
    for item in items {
        t.add_row(vec![
            safe(&item.object),
            item.since.map_or("-".to_string(), |s| age::since(&s, now)),
            safe(&item.message),
        ]);
    }
    table::render(&t, 2)
}
