//! `trussium_tokio_alive_tasks`: the tasks alive in the operator's async
//! runtime, read at each scrape. Flat while nothing changes; a task that
//! never ends (a watch, a request, a timer per runtime left behind) makes it
//! grow, which no thread count shows (the worker threads are a fixed pool).

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::gauge::ConstGauge;

#[derive(Debug)]
pub(super) struct AliveTasks;

impl Collector for AliveTasks {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        // Scraped from the HTTP server's task, inside the runtime; nothing
        // to say from outside one.
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return Ok(());
        };
        let alive = i64::try_from(runtime.metrics().num_alive_tasks()).unwrap_or(i64::MAX);
        let gauge = ConstGauge::new(alive);
        let metric = encoder.encode_descriptor(
            "trussium_tokio_alive_tasks",
            "Tasks alive in the operator's async runtime (growth while nothing changes is a leak)",
            None,
            gauge.metric_type(),
        )?;
        gauge.encode(metric)
    }
}

#[cfg(test)]
mod tests {
    use super::super::Metrics;

    fn alive(text: &str) -> Option<i64> {
        text.lines()
            .find_map(|l| l.strip_prefix("trussium_tokio_alive_tasks "))
            .and_then(|v| v.trim().parse().ok())
    }

    #[tokio::test]
    async fn counts_the_tasks_alive_now() -> Result<(), std::fmt::Error> {
        let metrics = Metrics::new();
        let before = alive(&metrics.encode()?).unwrap_or(-1);
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            let _ = stopped.await;
        });
        assert_eq!(alive(&metrics.encode()?), Some(before + 1));
        let _ = stop.send(());
        let _ = task.await;
        assert_eq!(alive(&metrics.encode()?), Some(before));
        Ok(())
    }

    #[test]
    fn says_nothing_outside_a_runtime() -> Result<(), std::fmt::Error> {
        assert_eq!(alive(&Metrics::new().encode()?), None);
        Ok(())
    }
}
