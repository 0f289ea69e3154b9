//! CPU time spent by the control plane, the operator and kubectl over a
//! phase, and how busy the whole machine was: on a small machine the
//! control plane's own work, not the client, sets the pace, and these
//! figures show how much of it each path costs.

use std::collections::BTreeMap;
use std::path::Path;

/// The local cluster's processes, as `tests/cluster/up.sh` names their pid
/// files.
const COMPONENTS: [&str; 5] = [
    "kube-apiserver",
    "etcd",
    "kube-controller-manager",
    "kube-scheduler",
    "kwok",
];

/// CPU seconds by process, and the machine's busy and total ticks, at one
/// moment.
#[derive(Clone, Debug, Default)]
pub struct Sample {
    seconds: BTreeMap<String, f64>,
    busy_ticks: u64,
    all_ticks: u64,
}

/// CPU seconds by process over a phase, and the machine's busy share.
#[derive(Clone, Debug, Default)]
pub struct Spent {
    pub seconds: BTreeMap<String, f64>,
    /// Share of all cores' time that was not idle (0..=1).
    pub machine_busy: f64,
    /// CPU seconds of the whole machine (all cores) that were not idle.
    pub machine_seconds: f64,
}

impl Spent {
    /// CPU seconds of the cluster's processes together.
    pub fn control_plane(&self) -> f64 {
        COMPONENTS.iter().filter_map(|c| self.seconds.get(*c)).sum()
    }

    /// CPU seconds of everything else on the machine: other engineers'
    /// builds and clusters, whatever ran beside the benchmark.
    pub fn others(&self) -> f64 {
        (self.machine_seconds - self.seconds.values().sum::<f64>()).max(0.0)
    }

    /// [`Spent::others`] as a share of all cores' time (0..=1).
    pub fn others_share(&self) -> f64 {
        if self.machine_busy == 0.0 {
            return 0.0;
        }
        // machine_seconds / machine_busy is all cores' time.
        self.others() * self.machine_busy / self.machine_seconds
    }
}

/// Reads the clock of every cluster process (and the operator's, if given),
/// of kubectl (this process's finished children) and of the machine.
pub fn sample(cluster_dir: &Path, operator: Option<u32>) -> Sample {
    let mut seconds = BTreeMap::new();
    for component in COMPONENTS {
        let pid = std::fs::read_to_string(cluster_dir.join(format!("{component}.pid")))
            .ok()
            .and_then(|p| p.trim().parse::<u32>().ok());
        if let Some(s) = pid.and_then(|pid| process_seconds(&pid.to_string(), false)) {
            seconds.insert(component.to_string(), s);
        }
    }
    if let Some(s) = operator.and_then(|pid| process_seconds(&pid.to_string(), false)) {
        seconds.insert("operator".to_string(), s);
    }
    // kubectl runs as a child of the benchmark and is waited for.
    if let Some(s) = process_seconds("self", true) {
        seconds.insert("kubectl".to_string(), s);
    }
    // The benchmark's own watches.
    if let Some(s) = process_seconds("self", false) {
        seconds.insert("bench".to_string(), s);
    }
    let (busy_ticks, all_ticks) = machine_ticks().unwrap_or_default();
    Sample {
        seconds,
        busy_ticks,
        all_ticks,
    }
}

/// What was spent from `before` to `after`. A process missing from either
/// sample (restarted, not running) is left out.
pub fn spent(before: &Sample, after: &Sample) -> Spent {
    let seconds = after
        .seconds
        .iter()
        .filter_map(|(process, &end)| {
            let start = *before.seconds.get(process)?;
            Some((process.clone(), (end - start).max(0.0)))
        })
        .collect();
    let all = after.all_ticks.saturating_sub(before.all_ticks);
    let busy = after.busy_ticks.saturating_sub(before.busy_ticks);
    Spent {
        seconds,
        machine_busy: if all == 0 {
            0.0
        } else {
            busy as f64 / all as f64
        },
        machine_seconds: busy as f64 / ticks_per_second(),
    }
}

/// utime + stime of `/proc/<pid>/stat` in seconds; with `children`, the
/// finished children's instead (cutime + cstime).
fn process_seconds(pid: &str, children: bool) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may hold spaces: count from after it.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    // Fields 14..=17 of the whole line are utime, stime, cutime, cstime;
    // after the name, field 3 is index 0.
    let at = if children { 13 } else { 11 };
    let user: u64 = fields.get(at)?.parse().ok()?;
    let system: u64 = fields.get(at + 1)?.parse().ok()?;
    Some((user + system) as f64 / ticks_per_second())
}

/// The machine's busy and total ticks from the first line of /proc/stat.
fn machine_ticks() -> Option<(u64, u64)> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let cpu = stat.lines().next()?.strip_prefix("cpu ")?;
    let ticks: Vec<u64> = cpu
        .split_whitespace()
        .filter_map(|t| t.parse().ok())
        .collect();
    // user nice system idle iowait irq softirq steal (guest time is already
    // in user).
    let all: u64 = ticks.iter().take(8).sum();
    let idle = ticks.get(3)? + ticks.get(4).copied().unwrap_or(0);
    Some((all - idle, all))
}

/// USER_HZ; 100 on every Linux this runs on.
fn ticks_per_second() -> f64 {
    100.0
}
