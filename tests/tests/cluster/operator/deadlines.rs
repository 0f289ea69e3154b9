//! No request may hang a reconcile forever. A relay in front of the API
//! server stops forwarding at the first request of a reconcile (it neither
//! answers nor fails, as over a dead connection) and then lets new
//! connections through again; the caught request stays unanswered for good.
//! The runtime still converges: the request times out
//! (`--request-timeout`), or, were every request allowed to wait longer,
//! the reconcile is abandoned at its deadline (`--reconcile-timeout`), and
//! retried. Without either, that reconcile would wait forever and the
//! runtime would never be reconciled again.

use std::time::Duration;

use serde_json::json;
use tokio::time::Instant;
use trussium_e2e::{
    PROMPT, TestResult, ensure, is_ready, minimal, wait_for, with_operator_behind_relay,
};

/// Watches caught by the cut are given up after this plus 5 s (kube's
/// idle timeout) and opened again; the default would take five minutes.
const WATCH_TIMEOUT_ARG: &str = "--watch-timeout-seconds=5";

/// Scales a Ready runtime to 2 with the relay armed, so that the reconcile's
/// first request is caught; heals the relay, and waits for the runtime to
/// be Ready at 2. Returns the operator's log since the cut.
async fn converges_after_a_hung_request(
    prefix: &str,
    args: &[&str],
) -> Result<String, trussium_e2e::BoxError> {
    let mut log = String::new();
    with_operator_behind_relay(prefix, args, async |h| {
        h.create_runtime(minimal("x", json!({}))?).await?;
        h.wait_ready("x").await?;
        h.wait_until_quiet(Duration::from_secs(2)).await?;
        let relay = h.relay.as_ref().ok_or("no relay")?;
        let log_mark = h.operator.log_mark();

        relay.cut_at_the_next_request();
        let generation = h.set_replicas("x", 2).await?;
        wait_for("the reconcile's request to be caught", PROMPT, async || {
            Ok(relay.is_cut().then_some(()))
        })
        .await?;
        relay.heal();
        let healed = Instant::now();
        wait_for(
            "x to be Ready at 2 replicas",
            Duration::from_secs(90),
            async || {
                let rt = h.get("x").await?;
                let ready = rt.metadata.generation == Some(generation)
                    && is_ready(&rt)
                    && rt.status.as_ref().and_then(|s| s.ready_replicas) == Some(2);
                Ok(ready.then_some(()))
            },
        )
        .await?;
        eprintln!(
            "{prefix}: Ready at 2 replicas {:.1}s after new connections passed again",
            healed.elapsed().as_secs_f64()
        );
        log = h.operator.log_since(log_mark);
        Ok(())
    })
    .await?;
    Ok(log)
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn a_request_that_never_answers_times_out_and_is_retried() -> TestResult {
    let log = converges_after_a_hung_request(
        "op-hung-request",
        &["--request-timeout=3s", WATCH_TIMEOUT_ARG],
    )
    .await?;
    ensure(
        log.contains("no answer from the API server"),
        format!("the operator did not say the request went unanswered:\n{log}"),
    )
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn a_reconcile_past_its_deadline_is_abandoned_and_retried() -> TestResult {
    let log = converges_after_a_hung_request(
        "op-hung-reconcile",
        &[
            "--request-timeout=10m",
            "--reconcile-timeout=3s",
            WATCH_TIMEOUT_ARG,
        ],
    )
    .await?;
    ensure(
        log.contains("longer than its deadline"),
        format!("the operator did not say the reconcile was abandoned:\n{log}"),
    )
}
