//! What one benchmark size measured, and how it is printed.

use std::collections::BTreeMap;
use std::time::Duration;

use tokio::time::Instant;

use crate::cpu::Spent;
use crate::status_writes::StatusWriteCost;

/// Counts by verb, or by `verb resource`.
pub type Requests = BTreeMap<String, usize>;

/// The baseline: `kubectl apply` of the owned objects to all available.
pub struct Baseline {
    /// How many kubectl ran at once, each for its share of the objects.
    pub streams: usize,
    pub time: Duration,
    /// How long `kubectl apply` itself ran.
    pub kubectl: Duration,
    pub cpu: Spent,
}

/// One converge run: time to all Ready, the operator's writes, the CPU spent.
pub struct Converged {
    pub started: Instant,
    pub time: Duration,
    /// How long `kubectl apply` of the runtimes ran: when it ends, the last
    /// runtime exists.
    pub kubectl: Duration,
    /// How many kubectl created the runtimes at once.
    pub streams: usize,
    pub writes: Requests,
    pub cpu: Spent,
}

impl Converged {
    fn writes(&self) -> usize {
        self.writes.values().sum()
    }

    /// From the last runtime's creation until all were Ready.
    fn after_last_created(&self) -> Duration {
        self.time.saturating_sub(self.kubectl)
    }
}

pub struct Figures {
    pub n: usize,
    pub secret_kib: usize,
    pub kubectl_apply: Option<Baseline>,
    /// The same objects applied by several kubectl at once.
    pub kubectl_streams: Option<Baseline>,
    pub converge: Option<Converged>,
    /// From creating the runtimes until the last Deployment was available.
    pub deployments_available: Option<Duration>,
    /// Every request of the operator from its start until all Ready.
    pub converge_requests: Requests,
    pub quiet_writes: Requests,
    /// Every request over the idle minute.
    pub idle_requests: Requests,
    /// Every request of a restarted operator over its first minute.
    pub restart_requests: Requests,
    /// The operator's RSS before the runtimes were created.
    pub rss_empty: Option<u64>,
    pub rss: Option<u64>,
    pub peak_rss: Option<u64>,
    pub latency: Vec<Duration>,
    pub upgrade: Option<Duration>,
    pub upgrade_writes: usize,
    pub rss_with_secrets: Option<u64>,
    pub peak_rss_with_secrets: Option<u64>,
    /// `kubectl trussium status -A`, `kubectl get trussiumruntimes -A`.
    pub plugin: Option<(Duration, Duration)>,
    /// Converging at other concurrencies.
    pub sweep: Vec<(usize, Converged)>,
}

impl Figures {
    pub fn new(n: usize, secret_kib: usize) -> Self {
        Figures {
            n,
            secret_kib,
            kubectl_apply: None,
            kubectl_streams: None,
            converge: None,
            deployments_available: None,
            converge_requests: Requests::new(),
            quiet_writes: Requests::new(),
            idle_requests: Requests::new(),
            restart_requests: Requests::new(),
            rss_empty: None,
            rss: None,
            peak_rss: None,
            latency: Vec::new(),
            upgrade: None,
            upgrade_writes: 0,
            rss_with_secrets: None,
            peak_rss_with_secrets: None,
            plugin: None,
            sweep: Vec::new(),
        }
    }

    fn per_runtime(&self, count: usize) -> f64 {
        count as f64 / self.n as f64
    }

    fn ratio(&self) -> Option<f64> {
        Some(
            self.converge.as_ref()?.time.as_secs_f64()
                / self.kubectl_apply.as_ref()?.time.as_secs_f64(),
        )
    }

    /// The operator's requests per runtime while converging, by what they
    /// are: (writes, reads of single objects, lists and watches).
    fn requests_per_runtime(&self) -> (f64, f64, f64) {
        let count = |verbs: &[&str]| -> usize {
            self.converge_requests
                .iter()
                .filter(|(verb, _)| verbs.contains(&verb.as_str()))
                .map(|(_, count)| count)
                .sum()
        };
        (
            self.per_runtime(count(&["create", "update", "patch", "delete"])),
            self.per_runtime(count(&["get"])),
            self.per_runtime(count(&["list", "watch"])),
        )
    }

    /// Control-plane and operator CPU milliseconds per runtime while
    /// converging.
    fn cpu_per_runtime(&self) -> Option<(f64, f64)> {
        let c = self.converge.as_ref()?;
        let operator = c.cpu.seconds.get("operator").copied().unwrap_or_default();
        Some((
            c.cpu.control_plane() * 1000.0 / self.n as f64,
            operator * 1000.0 / self.n as f64,
        ))
    }

    /// Operator RSS per runtime in KiB, above the operator's own before any
    /// runtime existed.
    fn rss_per_runtime(&self, rss: Option<u64>) -> Option<f64> {
        Some(rss?.saturating_sub(self.rss_empty?) as f64 / self.n as f64)
    }

    /// The converge against 8 kubectl at once of the owned objects (time),
    /// and against one kubectl (control-plane CPU).
    fn against_baselines(&self) -> (Option<f64>, Option<f64>) {
        let Some(c) = &self.converge else {
            return (None, None);
        };
        (
            self.kubectl_streams
                .as_ref()
                .map(|b| c.time.as_secs_f64() / b.time.as_secs_f64()),
            self.kubectl_apply
                .as_ref()
                .map(|b| c.cpu.control_plane() / b.cpu.control_plane()),
        )
    }

    fn percentile(&self, p: f64) -> Option<Duration> {
        if self.latency.is_empty() {
            return None;
        }
        let i = ((self.latency.len() as f64 * p).ceil() as usize).clamp(1, self.latency.len());
        Some(self.latency[i - 1])
    }

    /// The lines `make bench-operator` always printed (scripts read them),
    /// then the new ones.
    pub fn print_block(&self) {
        let n = self.n;
        println!("operator benchmark: {n} runtimes, one operator (concurrency 4), KWOK pods");
        if let Some(c) = &self.converge {
            println!(
                "  create -> all Ready:        {:>8.2} s",
                c.time.as_secs_f64()
            );
            println!(
                "  writes while converging:    {:>8}  ({:.1} per runtime)",
                c.writes(),
                self.per_runtime(c.writes())
            );
            for (resource, count) in &c.writes {
                println!("    {resource:<40} {count:>6}");
            }
        }
        println!(
            "  writes in 10 s quiet:       {:>8}",
            self.quiet_writes.values().sum::<usize>()
        );
        for (resource, count) in &self.quiet_writes {
            println!("    {resource:<40} {count:>6}");
        }
        if let Some(upgrade) = self.upgrade {
            println!(
                "  upgrade all -> Complete:    {:>8.2} s",
                upgrade.as_secs_f64()
            );
        }
        println!(
            "  writes during the upgrade:  {:>8}  ({:.1} per runtime)",
            self.upgrade_writes,
            self.per_runtime(self.upgrade_writes)
        );
        println!("  operator peak RSS:          {:>8}", mib(self.peak_rss));

        if let Some(baseline) = &self.kubectl_apply {
            println!(
                "  kubectl apply (owned objects) -> all available: {:>8.2} s",
                baseline.time.as_secs_f64()
            );
        }
        if let Some(ratio) = self.ratio() {
            println!("  operator / kubectl apply:   {ratio:>8.2}");
        }
        for baseline in [&self.kubectl_apply, &self.kubectl_streams]
            .into_iter()
            .flatten()
        {
            println!(
                "  {} kubectl apply (owned objects) -> all available {:.1} s: kubectl ran {:.1} s; CPU {}",
                baseline.streams,
                baseline.time.as_secs_f64(),
                baseline.kubectl.as_secs_f64(),
                cpu_line(&baseline.cpu)
            );
        }
        if let Some(c) = &self.converge {
            println!(
                "  operator: {} kubectl apply of the runtimes ran {:.1} s, last Deployment available at {}, all Ready at {:.1} s ({:.1} s after the last runtime was created); CPU {}",
                c.streams,
                c.kubectl.as_secs_f64(),
                secs(self.deployments_available),
                c.time.as_secs_f64(),
                c.after_last_created().as_secs_f64(),
                cpu_line(&c.cpu)
            );
        }
        let (writes, reads, lists) = self.requests_per_runtime();
        println!(
            "  requests per runtime while converging: {:.2} ({writes:.2} writes, {reads:.2} reads, {lists:.2} lists and watches)",
            writes + reads + lists
        );
        if let Some((control_plane, operator)) = self.cpu_per_runtime() {
            println!(
                "  CPU per runtime while converging: control plane {control_plane:.0} ms, operator {operator:.1} ms"
            );
        }
        println!("  requests while converging (from operator start), per runtime:");
        for (verb, count) in &self.converge_requests {
            println!(
                "    {verb:<40} {count:>6}  ({:.2} per runtime)",
                self.per_runtime(*count)
            );
        }
        println!(
            "  requests in an idle minute (3 resyncs): {:>3}",
            self.idle_requests.values().sum::<usize>()
        );
        for (verb, count) in &self.idle_requests {
            println!("    {verb:<40} {count:>6}");
        }
        println!(
            "  requests in a restarted operator's first minute: {:>3}",
            self.restart_requests.values().sum::<usize>()
        );
        for (verb, count) in &self.restart_requests {
            println!("    {verb:<40} {count:>6}");
        }
        println!("  operator RSS at {n}:        {:>8}", mib(self.rss));
        println!(
            "  operator RSS before any runtime: {}; per runtime above it: {} at {n}, {} with Secrets",
            mib(self.rss_empty),
            kib(self.rss_per_runtime(self.rss)),
            kib(self.rss_per_runtime(self.rss_with_secrets))
        );
        println!(
            "  operator RSS with {n} Secrets of {} KiB: {} (peak {})",
            self.secret_kib,
            mib(self.rss_with_secrets),
            mib(self.peak_rss_with_secrets)
        );
        println!(
            "  Deployment available -> runtime Ready: p50 {}, p99 {} ({} runtimes)",
            millis(self.percentile(0.5)),
            millis(self.percentile(0.99)),
            self.latency.len()
        );
        for (concurrency, c) in &self.sweep {
            println!(
                "  concurrency {concurrency:>2}: create -> all Ready {:>8.2} s ({:.1} s after the last runtime was created), {:.1} writes per runtime, control-plane CPU {:.1} s",
                c.time.as_secs_f64(),
                c.after_last_created().as_secs_f64(),
                self.per_runtime(c.writes()),
                c.cpu.control_plane()
            );
        }
        if let Some((status, get)) = self.plugin {
            println!(
                "  kubectl trussium status -A: {}, kubectl get trussiumruntimes -A: {}",
                millis(Some(status)),
                millis(Some(get))
            );
        }
    }
}

/// CPU seconds by process, the machine's busy share and what of it went to
/// other processes.
fn cpu_line(cpu: &Spent) -> String {
    let each: Vec<String> = cpu
        .seconds
        .iter()
        .map(|(process, s)| format!("{process} {s:.1}"))
        .collect();
    format!(
        "control plane {:.1} s ({}), machine busy {}",
        cpu.control_plane(),
        each.join(", "),
        busy(cpu)
    )
}

/// The machine's busy share, and the share of other processes in it.
fn busy(cpu: &Spent) -> String {
    format!(
        "{:.0}% (others {:.0}%, {:.0} CPU s)",
        cpu.machine_busy * 100.0,
        cpu.others_share() * 100.0,
        cpu.others()
    )
}

fn kib(k: Option<f64>) -> String {
    k.map_or("-".into(), |k| format!("{k:.1} KiB"))
}

fn ratio(r: Option<f64>) -> String {
    r.map_or("-".into(), |r| format!("{r:.2}"))
}

/// Issue 21's goals, each against what this run measured.
pub fn print_goals(all: &[Figures], status_writes: Option<&StatusWriteCost>) {
    println!();
    println!("goals (issue 21) against this run:");
    if let Some(costs) = status_writes {
        for (method, cost) in [
            ("server-side apply", costs.apply()),
            ("merge patch", costs.merge()),
        ] {
            println!(
                "  status write by {method} (resourceVersion precondition): {:.2} ms API server + etcd CPU, {:.2} ms wall per write ({} writes)",
                cost.cpu_ms_per_write(),
                cost.wall_ms_per_write(),
                cost.writes
            );
        }
        println!(
            "  status write: merge patch cheaper in {} of {} pairs of rounds; median merge / apply CPU {} (keep the cheaper)",
            costs.merge_cheaper(),
            costs.pairs.len(),
            ratio(costs.median_ratio())
        );
    }
    for f in all {
        let n = f.n;
        let (writes, reads, lists) = f.requests_per_runtime();
        let (time, cpu) = f.against_baselines();
        let c = f.converge.as_ref();
        println!(
            "  N = {n}: requests per converged runtime {:.2} ({writes:.2} writes, {reads:.2} reads, {lists:.2} lists and watches; goal <= 9, all writes)",
            writes + reads + lists
        );
        println!(
            "  N = {n}: all Ready {} after the last runtime was created (goal <= 15 s)",
            secs(c.map(Converged::after_last_created))
        );
        println!(
            "  N = {n}: converge / {} kubectl at once {} (goal <= 1.5); control-plane CPU / one kubectl {} (goal <= 1.0)",
            f.kubectl_streams.as_ref().map_or(0, |b| b.streams),
            ratio(time),
            ratio(cpu)
        );
        println!(
            "  N = {n}: Deployment available -> Ready p50 {} (goal <= 1 s), p99 {} (goal <= 10 s)",
            millis(f.percentile(0.5)),
            millis(f.percentile(0.99))
        );
        println!(
            "  N = {n}: RSS {}, {} with Secrets (goal <= 64 MiB at 1000, <= 150 MiB at 3000)",
            mib(f.rss),
            mib(f.rss_with_secrets)
        );
    }
}

fn mib(kib: Option<u64>) -> String {
    kib.map_or("unknown".into(), |k| {
        format!("{:.1} MiB", k as f64 / 1024.0)
    })
}

fn millis(d: Option<Duration>) -> String {
    d.map_or("-".into(), |d| format!("{} ms", d.as_millis()))
}

fn secs(d: Option<Duration>) -> String {
    d.map_or("-".into(), |d| format!("{:.1} s", d.as_secs_f64()))
}

/// A Markdown table, one column per N.
pub fn print_table(all: &[Figures]) {
    let mut rows: Vec<(String, Vec<String>)> = Vec::new();
    let mut row = |label: &str, value: &dyn Fn(&Figures) -> String| {
        rows.push((label.to_string(), all.iter().map(value).collect()));
    };
    row(
        "`kubectl apply --server-side` of the owned objects → all Deployments available",
        &|f| secs(f.kubectl_apply.as_ref().map(|b| b.time)),
    );
    row(
        "operator: `kubectl apply` of the runtimes → all Ready (concurrency 4)",
        &|f| secs(f.converge.as_ref().map(|c| c.time)),
    );
    row(
        "all Ready after the last runtime was created (runtimes by several `kubectl apply` at once)",
        &|f| {
            f.converge.as_ref().map_or("-".into(), |c| {
                format!(
                    "{} ({} kubectl)",
                    secs(Some(c.after_last_created())),
                    c.streams
                )
            })
        },
    );
    row("ratio operator / kubectl apply", &|f| {
        f.ratio().map_or("-".into(), |r| format!("{r:.2}"))
    });
    row(
        "the same objects by several `kubectl apply` at once → all available",
        &|f| {
            f.kubectl_streams.as_ref().map_or("-".into(), |b| {
                format!("{} ({} kubectl)", secs(Some(b.time)), b.streams)
            })
        },
    );
    row("ratio operator / several `kubectl apply` at once", &|f| {
        ratio(f.against_baselines().0)
    });
    row(
        "control-plane CPU, kubectl apply / operator (machine busy)",
        &|f| match (&f.kubectl_apply, &f.converge) {
            (Some(b), Some(c)) => format!(
                "{:.0} s / {:.0} s ({:.0}% / {:.0}%)",
                b.cpu.control_plane(),
                c.cpu.control_plane(),
                b.cpu.machine_busy * 100.0,
                c.cpu.machine_busy * 100.0
            ),
            _ => "-".into(),
        },
    );
    row("control-plane CPU, operator / one kubectl apply", &|f| {
        ratio(f.against_baselines().1)
    });
    row(
        "other processes on the machine, kubectl apply / operator (share of all cores)",
        &|f| match (&f.kubectl_apply, &f.converge) {
            (Some(b), Some(c)) => format!(
                "{:.0}% / {:.0}%",
                b.cpu.others_share() * 100.0,
                c.cpu.others_share() * 100.0
            ),
            _ => "-".into(),
        },
    );
    row(
        "CPU per runtime while converging: control plane / operator",
        &|f| {
            f.cpu_per_runtime()
                .map_or("-".into(), |(c, o)| format!("{c:.0} ms / {o:.1} ms"))
        },
    );
    row("operator: last Deployment available / all Ready", &|f| {
        format!(
            "{} / {}",
            secs(f.deployments_available),
            secs(f.converge.as_ref().map(|c| c.time))
        )
    });
    row("writes per runtime while converging", &|f| {
        f.converge
            .as_ref()
            .map_or("-".into(), |c| format!("{:.2}", f.per_runtime(c.writes())))
    });
    row(
        "requests per runtime while converging: writes / reads / lists and watches",
        &|f| {
            let (writes, reads, lists) = f.requests_per_runtime();
            format!("{writes:.2} / {reads:.2} / {lists:.2}")
        },
    );
    row("requests per runtime while converging, by verb", &|f| {
        f.converge_requests
            .iter()
            .map(|(verb, count)| format!("{verb} {:.2}", f.per_runtime(*count)))
            .collect::<Vec<_>>()
            .join(", ")
    });
    row("requests in an idle minute", &|f| by_verb(&f.idle_requests));
    row(
        "requests in a restarted operator's first minute (every runtime reconciled)",
        &|f| by_verb(&f.restart_requests),
    );
    row("operator RSS at N (peak)", &|f| {
        format!("{} ({})", mib(f.rss), mib(f.peak_rss))
    });
    row(
        "operator RSS per runtime (above the operator before any runtime), without / with Secrets",
        &|f| {
            format!(
                "{} / {}",
                kib(f.rss_per_runtime(f.rss)),
                kib(f.rss_per_runtime(f.rss_with_secrets))
            )
        },
    );
    row(
        "operator RSS with N Secrets of 100 KiB referenced (peak)",
        &|f| {
            format!(
                "{} ({})",
                mib(f.rss_with_secrets),
                mib(f.peak_rss_with_secrets)
            )
        },
    );
    row("Deployment available → runtime Ready, p50 / p99", &|f| {
        format!(
            "{} / {}",
            millis(f.percentile(0.5)),
            millis(f.percentile(0.99))
        )
    });
    row("all Ready at concurrency 1 / 4 / 16", &|f| {
        let at = |c: usize| {
            if c == 4 {
                return secs(f.converge.as_ref().map(|c| c.time));
            }
            secs(f.sweep.iter().find(|(k, _)| *k == c).map(|(_, c)| c.time))
        };
        format!("{} / {} / {}", at(1), at(4), at(16))
    });
    row("upgrade of every runtime → Complete", &|f| {
        secs(f.upgrade)
    });
    row(
        "`kubectl trussium status -A` / `kubectl get trussiumruntimes -A`",
        &|f| {
            f.plugin.map_or("-".into(), |(s, g)| {
                format!("{} / {}", millis(Some(s)), millis(Some(g)))
            })
        },
    );

    println!();
    let header: Vec<String> = all.iter().map(|f| format!("N = {}", f.n)).collect();
    println!("| | {} |", header.join(" | "));
    println!("|---|{}", "---:|".repeat(all.len()));
    for (label, values) in rows {
        println!("| {label} | {} |", values.join(" | "));
    }
}

/// Requests as `verb count, …`, or `0`.
fn by_verb(requests: &Requests) -> String {
    if requests.values().sum::<usize>() == 0 {
        return "0".into();
    }
    requests
        .iter()
        .map(|(verb, count)| format!("{verb} {count}"))
        .collect::<Vec<_>>()
        .join(", ")
}
