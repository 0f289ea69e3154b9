//! What the soak did and found: the summary table, and whether each
//! replica's memory and tasks stayed flat.

use std::collections::BTreeMap;
use std::time::Duration;

use crate::replicas::Sample;
use crate::trend::slope;

/// A process's first three minutes, and its first three as the leader: its
/// caches fill, its first reconciles run, and the code it runs for the first
/// time is read into memory. Measured with one leader for 30 minutes of
/// churn: 16.2 MiB at start, 19.7 MiB after three minutes, then flat within
/// 0.3 MiB. A standby that takes over grows by megabytes in the same way.
const WARM_UP: Duration = Duration::from_secs(180);
/// A process is judged flat or not once it has run this long after its
/// warm-up (a short soak's processes only print their slopes).
const JUDGED_AFTER: Duration = Duration::from_secs(300);
/// Growth that is not noise: 256 KiB a minute is 15 MiB an hour.
const RSS_KIB_PER_MINUTE: f64 = 256.0;
/// A task a minute is a task per reconcile of something.
const TASKS_PER_MINUTE: f64 = 1.0;

/// One operator process (a replica between two restarts).
#[derive(Clone, Debug)]
pub struct Process {
    pub replica: String,
    pub pid: u32,
    pub lived: Duration,
    /// How long it was measured for: from the end of its warm-up (after it
    /// started, or after it took over, whichever came later).
    pub measured: Duration,
    pub max_rss_kib: u64,
    /// After warm-up, per minute.
    pub rss_slope: Option<f64>,
    /// Of the anonymous memory (the heap), after warm-up, per minute.
    pub anon_slope: Option<f64>,
    pub tasks: Option<(u64, u64)>,
    pub tasks_slope: Option<f64>,
    /// Long enough after warm-up to be judged.
    pub judged: bool,
}

/// Every process of the samples, in the order they started.
pub fn processes(samples: &[Sample], names: &[String]) -> Vec<Process> {
    let mut by_process: BTreeMap<(Duration, u32), Vec<&Sample>> = BTreeMap::new();
    let mut first: BTreeMap<u32, Duration> = BTreeMap::new();
    for s in samples {
        let start = *first.entry(s.pid).or_insert(s.at);
        by_process.entry((start, s.pid)).or_default().push(s);
    }
    by_process
        .into_iter()
        .map(|((start, pid), samples)| {
            let replica = samples
                .first()
                .and_then(|s| names.get(s.replica))
                .cloned()
                .unwrap_or_default();
            let end = samples.last().map_or(start, |s| s.at);
            let warm_from = took_over(&samples).unwrap_or(start) + WARM_UP;
            let warm: Vec<&&Sample> = samples.iter().filter(|s| s.at >= warm_from).collect();
            let minutes = |s: &Sample| (s.at - start).as_secs_f64() / 60.0;
            let series = |kib: fn(&Sample) -> u64| -> Vec<(f64, f64)> {
                warm.iter().map(|s| (minutes(s), kib(s) as f64)).collect()
            };
            let tasks: Vec<(f64, f64)> = warm
                .iter()
                .filter_map(|s| Some((minutes(s), s.tasks? as f64)))
                .collect();
            let counts: Vec<u64> = warm.iter().filter_map(|s| s.tasks).collect();
            Process {
                replica,
                pid,
                lived: end - start,
                measured: end.saturating_sub(warm_from),
                max_rss_kib: samples.iter().map(|s| s.rss_kib).max().unwrap_or(0),
                rss_slope: slope(&series(|s| s.rss_kib)),
                anon_slope: slope(&series(|s| s.anon_kib)),
                tasks: counts
                    .iter()
                    .min()
                    .zip(counts.iter().max())
                    .map(|(a, b)| (*a, *b)),
                tasks_slope: slope(&tasks),
                judged: end >= warm_from + JUDGED_AFTER,
            }
        })
        .collect()
}

/// When a process that began as the standby took the Lease over.
fn took_over(samples: &[&Sample]) -> Option<Duration> {
    samples
        .windows(2)
        .filter(|pair| !pair[0].leads && pair[1].leads)
        .map(|pair| pair[1].at)
        .next_back()
}

/// A judged process whose memory or tasks grew.
pub fn growth(processes: &[Process]) -> Vec<String> {
    let mut found = Vec::new();
    for p in processes.iter().filter(|p| p.judged) {
        if let Some(s) = p.rss_slope.filter(|s| *s > RSS_KIB_PER_MINUTE) {
            found.push(format!(
                "replica {} (pid {}): RSS grew {s:.0} KiB/min over {:.1} min after warm-up (at most {RSS_KIB_PER_MINUTE})",
                p.replica,
                p.pid,
                p.measured.as_secs_f64() / 60.0
            ));
        }
        if let Some(s) = p.tasks_slope.filter(|s| *s > TASKS_PER_MINUTE) {
            found.push(format!(
                "replica {} (pid {}): tasks grew {s:.2} a minute after warm-up (at most {TASKS_PER_MINUTE})",
                p.replica, p.pid
            ));
        }
    }
    found
}

/// The operator's requests in the soak's time, from the audit log.
#[derive(Clone, Copy, Debug, Default)]
pub struct Requests {
    /// Every request but watches.
    pub total: usize,
    pub writes: usize,
    /// Of those, to its Lease (renewals, every 2 s).
    pub lease: usize,
    pub watches: usize,
}

#[derive(Debug, Default)]
pub struct Report {
    pub seed: u64,
    pub duration: Duration,
    pub elapsed: Duration,
    pub operations: BTreeMap<&'static str, usize>,
    pub faults: BTreeMap<&'static str, usize>,
    pub failovers: usize,
    pub checkpoints: usize,
    pub events: usize,
    pub unrecorded: Vec<String>,
    pub gaps: usize,
    pub requests: Requests,
    pub processes: Vec<Process>,
    pub violations: Vec<String>,
    /// The most Events and record gaps seen per runtime uid (a namespace is
    /// checked at every checkpoint, and once more before it is deleted).
    events_by_runtime: BTreeMap<String, usize>,
    gaps_by_runtime: BTreeMap<String, usize>,
}

impl Report {
    pub fn new(seed: u64, duration: Duration) -> Report {
        Report {
            seed,
            duration,
            ..Report::default()
        }
    }

    /// Records how many Events runtime `uid` has now.
    pub fn events_published(&mut self, uid: &str, count: usize) {
        let seen = self.events_by_runtime.entry(uid.to_string()).or_default();
        *seen = (*seen).max(count);
        self.events = self.events_by_runtime.values().sum();
    }

    /// Records how many of runtime `uid`'s statuses the record misses.
    pub fn gaps_seen(&mut self, uid: &str, gaps: usize) {
        let seen = self.gaps_by_runtime.entry(uid.to_string()).or_default();
        *seen = (*seen).max(gaps);
        self.gaps = self.gaps_by_runtime.values().sum();
    }

    pub fn print(&self) {
        let operations: usize = self.operations.values().sum();
        let per = |n: usize| n as f64 / operations.max(1) as f64;
        let r = self.requests;
        let list = |m: &BTreeMap<&str, usize>| {
            m.iter()
                .map(|(k, v)| format!("{k} {v}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        println!();
        println!(
            "soak: seed {} (replay: SOAK_SEED={}), {:.0} min of churn, {:.1} min in all",
            self.seed,
            self.seed,
            self.duration.as_secs_f64() / 60.0,
            self.elapsed.as_secs_f64() / 60.0
        );
        println!();
        println!("| | |");
        println!("|---|---|");
        println!("| operations | {operations}: {} |", list(&self.operations));
        println!("| faults | {} |", list(&self.faults));
        println!("| failovers | {} |", self.failovers);
        println!("| checkpoints passed | {} |", self.checkpoints);
        println!(
            "| Events | {} published; {} from attempts whose status write did not stay; {} status record gaps |",
            self.events,
            self.unrecorded.len(),
            self.gaps
        );
        println!(
            "| requests per operation | {:.2} ({} requests: {} writes, {} Lease, {:.2} per operation without the Lease; {} watches opened) |",
            per(r.total),
            r.total,
            r.writes,
            r.lease,
            per(r.total - r.lease),
            r.watches
        );
        for name in self.replicas() {
            let own: Vec<&Process> = self
                .processes
                .iter()
                .filter(|p| p.replica == name)
                .collect();
            let max = own.iter().map(|p| p.max_rss_kib).max().unwrap_or(0);
            println!(
                "| max RSS {name} | {:.1} MiB ({} processes) |",
                max as f64 / 1024.0,
                own.len()
            );
            for p in own {
                let per_minute =
                    |s: Option<f64>| s.map_or("-".into(), |s| format!("{s:+.0} KiB/min"));
                println!(
                    "| RSS slope {name} pid {} | {} (heap {}) over {:.1} of {:.1} min; tasks {} ({}) |",
                    p.pid,
                    per_minute(p.rss_slope),
                    per_minute(p.anon_slope),
                    p.measured.as_secs_f64() / 60.0,
                    p.lived.as_secs_f64() / 60.0,
                    p.tasks.map_or("-".into(), |(a, b)| format!("{a}..{b}")),
                    match (p.tasks_slope, p.judged) {
                        (Some(s), true) => format!("{s:+.2}/min, judged"),
                        (Some(s), false) => format!("{s:+.2}/min, too short to judge"),
                        (None, _) => "too short".into(),
                    }
                );
            }
        }
        println!("| violations | {} |", self.violations.len());
        for line in &self.unrecorded {
            println!("soak: published by an attempt whose status write did not stay: {line}");
        }
        for violation in &self.violations {
            println!("soak: VIOLATION: {violation}");
        }
    }

    fn replicas(&self) -> Vec<String> {
        let mut names: Vec<String> = self.processes.iter().map(|p| p.replica.clone()).collect();
        names.sort();
        names.dedup();
        names
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Five-second samples of a process over `minutes`, growing
    /// `kib_per_minute`, leading from `leads_from` minutes on.
    fn samples(pid: u32, minutes: u64, kib_per_minute: u64, leads_from: u64) -> Vec<Sample> {
        (0..minutes * 12)
            .map(|i| Sample {
                replica: 0,
                pid,
                at: Duration::from_secs(i * 5),
                rss_kib: 30_000 + kib_per_minute * i / 12,
                anon_kib: 5_000 + kib_per_minute * i / 12,
                tasks: Some(100),
                leads: i >= leads_from * 12,
            })
            .collect()
    }

    #[test]
    fn a_long_lived_process_that_grows_is_named_a_flat_or_short_one_not() {
        let names = vec!["soak-a".to_string()];
        let leaking = processes(&samples(1, 10, 1024, 0), &names);
        assert_eq!(leaking.len(), 1);
        assert!(leaking[0].judged);
        let found = growth(&leaking);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].contains("soak-a") && found[0].contains("pid 1"));
        assert!(growth(&processes(&samples(2, 10, 0, 0), &names)).is_empty());
        let short = processes(&samples(3, 3, 1024, 0), &names);
        assert!(!short[0].judged);
        assert!(growth(&short).is_empty());
    }

    #[test]
    fn a_standby_warms_up_again_when_it_takes_over() {
        let names = vec!["soak-b".to_string()];
        // Flat as the standby for 4 minutes, megabytes in the two minutes
        // after it takes over, flat for 8 minutes after that: no leak.
        let mut warming: Vec<Sample> = samples(4, 14, 0, 4);
        let took_over = Duration::from_secs(240);
        for s in warming.iter_mut().filter(|s| s.at >= took_over) {
            let grown = (s.at - took_over).as_secs().min(120) * 4_000 / 120;
            s.rss_kib += grown;
            s.anon_kib += grown;
        }
        let p = processes(&warming, &names);
        assert!(p[0].judged, "{p:?}");
        let last = Duration::from_secs(14 * 60 - 5);
        assert_eq!(p[0].measured, last - took_over - WARM_UP);
        assert!(growth(&p).is_empty(), "{:?}", growth(&p));
        // Judged from its first minute alone, the same process grows.
        let as_if_always_leading: Vec<Sample> = warming
            .iter()
            .map(|s| Sample { leads: true, ..*s })
            .collect();
        assert_eq!(growth(&processes(&as_if_always_leading, &names)).len(), 1);
        // Growth that goes on after the leader's warm-up is a leak.
        let p = processes(&samples(5, 14, 1024, 4), &names);
        assert!(p[0].judged);
        assert_eq!(growth(&p).len(), 1);
        // Taking over too late to be judged: only printed.
        let p = processes(&samples(6, 12, 1024, 8), &names);
        assert!(!p[0].judged);
        assert!(growth(&p).is_empty());
    }
}
