//! Reading a Prometheus text exposition (the operator's `/metrics`).

use std::collections::{BTreeMap, BTreeSet};

/// One sample line: `name{label="value",...} value`.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    pub name: String,
    pub labels: BTreeMap<String, String>,
    pub value: f64,
}

/// The samples of `text`; comment lines and lines that do not parse are skipped.
pub fn samples(text: &str) -> Vec<Sample> {
    text.lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .filter_map(sample)
        .collect()
}

fn sample(line: &str) -> Option<Sample> {
    let (series, value) = line.rsplit_once(' ')?;
    let value = value.trim().parse().ok()?;
    let (name, labels) = match series.split_once('{') {
        Some((name, rest)) => (name, labels(rest.strip_suffix('}')?)?),
        None => (series, BTreeMap::new()),
    };
    Some(Sample {
        name: name.to_string(),
        labels,
        value,
    })
}

/// `a="x",b="y\"z"` as a map (values unescaped).
fn labels(mut text: &str) -> Option<BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    while !text.is_empty() {
        let (key, rest) = text.split_once("=\"")?;
        let mut value = String::new();
        let mut chars = rest.char_indices();
        let end = loop {
            match chars.next()? {
                (_, '\\') => match chars.next()?.1 {
                    'n' => value.push('\n'),
                    other => value.push(other),
                },
                (i, '"') => break i,
                (_, c) => value.push(c),
            }
        };
        out.insert(key.trim_start_matches(',').to_string(), value);
        text = rest.get(end + 1..)?.trim_start_matches(',');
    }
    Some(out)
}

/// The names of every series in `text` (`trussium_events_total`,
/// `controller_runtime_reconcile_time_seconds_bucket`, ...).
pub fn series_names(text: &str) -> BTreeSet<String> {
    samples(text).into_iter().map(|s| s.name).collect()
}

/// The sum of the samples named `name` whose labels include all of `labels`.
pub fn sum(text: &str, name: &str, labels: &[(&str, &str)]) -> f64 {
    samples(text)
        .iter()
        .filter(|s| s.name == name)
        .filter(|s| {
            labels
                .iter()
                .all(|(k, v)| s.labels.get(*k).map(String::as_str) == Some(*v))
        })
        .map(|s| s.value)
        .sum()
}

/// The value of `series` (e.g. `trussium_runtimes{ready="True"}`) in a
/// Prometheus text exposition.
pub fn metric(text: &str, series: &str) -> Option<f64> {
    text.lines().filter(|l| !l.starts_with('#')).find_map(|l| {
        l.strip_prefix(series)?
            .strip_prefix(' ')?
            .trim()
            .parse()
            .ok()
    })
}

/// Reconciles counted by `controller_runtime_reconcile_total`, all results.
pub fn reconciles(text: &str) -> f64 {
    text.lines()
        .filter(|l| l.starts_with("controller_runtime_reconcile_total{"))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "# HELP x help\n# TYPE x counter\n\
        trussium_api_requests_total{kind=\"deployments\",verb=\"patch\",code=\"200\"} 3\n\
        trussium_api_requests_total{kind=\"deployments\",verb=\"patch\",code=\"201\"} 1\n\
        trussium_api_requests_total{kind=\"secrets\",verb=\"get\",code=\"<error>\"} 2\n\
        trussium_runtime_status_condition{namespace=\"a\",runtime=\"r\",condition=\"Ready\",status=\"True\",reason=\"Say \\\"hi\\\", ok\"} 1\n\
        process_threads 7\n# EOF\n";

    #[test]
    fn parses_names_labels_and_values() {
        let all = samples(TEXT);
        assert_eq!(all.len(), 5);
        assert_eq!(
            all[3].labels.get("reason").map(String::as_str),
            Some("Say \"hi\", ok")
        );
        assert_eq!(
            all[3].labels.get("status").map(String::as_str),
            Some("True")
        );
        assert_eq!(all[4].name, "process_threads");
        assert_eq!(all[4].value, 7.0);
        assert_eq!(
            series_names(TEXT).into_iter().collect::<Vec<_>>(),
            [
                "process_threads",
                "trussium_api_requests_total",
                "trussium_runtime_status_condition"
            ]
        );
    }

    #[test]
    fn sums_over_the_labels_not_named() {
        let requests = "trussium_api_requests_total";
        assert_eq!(
            sum(
                TEXT,
                requests,
                &[("kind", "deployments"), ("verb", "patch")]
            ),
            4.0
        );
        assert_eq!(sum(TEXT, requests, &[("code", "<error>")]), 2.0);
        assert_eq!(sum(TEXT, requests, &[("kind", "services")]), 0.0);
    }
}
