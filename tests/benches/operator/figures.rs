//! What one benchmark size measured, and how it is printed.

use std::collections::BTreeMap;
use std::time::Duration;

use tokio::time::Instant;

use crate::cpu::Spent;

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
    /// How long `kubectl apply` of the runtimes ran.
    pub kubectl: Duration,
    pub writes: Requests,
    pub cpu: Spent,
}

impl Converged {
    fn writes(&self) -> usize {
        self.writes.values().sum()
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
    /// Every request over the idle minute (resyncs included).
    pub idle_requests: Requests,
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
                "  operator: kubectl apply ran {:.1} s, last Deployment available at {}, all Ready at {:.1} s; CPU {}",
                c.kubectl.as_secs_f64(),
                secs(self.deployments_available),
                c.time.as_secs_f64(),
                cpu_line(&c.cpu)
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
        println!("  operator RSS at {n}:        {:>8}", mib(self.rss));
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
                "  concurrency {concurrency:>2}: create -> all Ready {:>8.2} s, {:.1} writes per runtime",
                c.time.as_secs_f64(),
                self.per_runtime(c.writes())
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

/// CPU seconds by process and the machine's busy share.
fn cpu_line(cpu: &Spent) -> String {
    let each: Vec<String> = cpu
        .seconds
        .iter()
        .map(|(process, s)| format!("{process} {s:.1}"))
        .collect();
    format!(
        "control plane {:.1} s ({}), machine busy {:.0}%",
        cpu.control_plane(),
        each.join(", "),
        cpu.machine_busy * 100.0
    )
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
    row("requests per runtime while converging, by verb", &|f| {
        f.converge_requests
            .iter()
            .map(|(verb, count)| format!("{verb} {:.2}", f.per_runtime(*count)))
            .collect::<Vec<_>>()
            .join(", ")
    });
    row(
        "requests in an idle minute (3 resyncs of every runtime)",
        &|f| {
            let total: usize = f.idle_requests.values().sum();
            if total == 0 {
                "0".into()
            } else {
                f.idle_requests
                    .iter()
                    .map(|(verb, count)| format!("{verb} {count}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        },
    );
    row("operator RSS at N (peak)", &|f| {
        format!("{} ({})", mib(f.rss), mib(f.peak_rss))
    });
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
