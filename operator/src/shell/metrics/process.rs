//! The process metrics every Prometheus client library exports
//! (`process_cpu_seconds_total`, `process_resident_memory_bytes`, ...), read
//! from `/proc/self` at each scrape, so that a dashboard charts the
//! operator's CPU and memory without cAdvisor.

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;

#[derive(Debug)]
pub(super) struct ProcessCollector;

/// What one scrape reports; `None` where `/proc` could not tell.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct ProcessFacts {
    pub cpu_seconds: f64,
    pub resident_memory_bytes: i64,
    pub virtual_memory_bytes: i64,
    pub start_time_seconds: f64,
    pub threads: i64,
    pub open_fds: Option<i64>,
    pub max_fds: Option<i64>,
}

/// Reads `/proc/self`; `None` when it cannot be read (not on Linux).
fn read() -> Option<ProcessFacts> {
    let process = procfs::process::Process::myself().ok()?;
    let stat = process.stat().ok()?;
    let ticks = procfs::ticks_per_second() as f64;
    let boot = procfs::boot_time_secs().ok()? as f64;
    let max_fds = process
        .limits()
        .ok()
        .and_then(|limits| match limits.max_open_files.soft_limit {
            procfs::process::LimitValue::Value(n) => i64::try_from(n).ok(),
            procfs::process::LimitValue::Unlimited => None,
        });
    Some(ProcessFacts {
        cpu_seconds: (stat.utime + stat.stime) as f64 / ticks,
        resident_memory_bytes: i64::try_from(stat.rss.saturating_mul(procfs::page_size()))
            .unwrap_or(i64::MAX),
        virtual_memory_bytes: i64::try_from(stat.vsize).unwrap_or(i64::MAX),
        start_time_seconds: boot + stat.starttime as f64 / ticks,
        threads: stat.num_threads,
        open_fds: process.fd_count().ok().and_then(|n| i64::try_from(n).ok()),
        max_fds,
    })
}

fn gauge(
    encoder: &mut DescriptorEncoder,
    name: &str,
    help: &str,
    value: i64,
) -> Result<(), std::fmt::Error> {
    let gauge = ConstGauge::new(value);
    let metric = encoder.encode_descriptor(name, help, None, gauge.metric_type())?;
    gauge.encode(metric)
}

impl Collector for ProcessCollector {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let Some(facts) = read() else {
            return Ok(());
        };
        // prometheus-client appends `_total` to a counter's name.
        let cpu = ConstCounter::new(facts.cpu_seconds);
        cpu.encode(encoder.encode_descriptor(
            "process_cpu_seconds",
            "Total user and system CPU time spent in seconds",
            None,
            cpu.metric_type(),
        )?)?;
        let start = ConstGauge::new(facts.start_time_seconds);
        start.encode(encoder.encode_descriptor(
            "process_start_time_seconds",
            "Start time of the process since unix epoch in seconds",
            None,
            start.metric_type(),
        )?)?;
        gauge(
            &mut encoder,
            "process_resident_memory_bytes",
            "Resident memory size in bytes",
            facts.resident_memory_bytes,
        )?;
        gauge(
            &mut encoder,
            "process_virtual_memory_bytes",
            "Virtual memory size in bytes",
            facts.virtual_memory_bytes,
        )?;
        gauge(
            &mut encoder,
            "process_threads",
            "Number of OS threads in the process",
            facts.threads,
        )?;
        if let Some(open) = facts.open_fds {
            gauge(
                &mut encoder,
                "process_open_fds",
                "Number of open file descriptors",
                open,
            )?;
        }
        if let Some(max) = facts.max_fds {
            gauge(
                &mut encoder,
                "process_max_fds",
                "Maximum number of open file descriptors",
                max,
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_this_process() {
        let Some(facts) = read() else {
            panic!("/proc/self is readable on Linux");
        };
        assert!(facts.resident_memory_bytes > 0);
        assert!(facts.virtual_memory_bytes >= facts.resident_memory_bytes);
        assert!(facts.threads >= 1);
        assert!(facts.open_fds.is_some_and(|n| n >= 3));
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs_f64())
            .unwrap_or_default();
        // Started within the last day, not in the future (clock ticks and
        // boot time agree).
        assert!(facts.start_time_seconds <= now + 1.0);
        assert!(facts.start_time_seconds > now - 86_400.0);
    }
}
