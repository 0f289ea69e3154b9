//! The alerts, unit-tested with `promtool test rules` (promtool built from
//! its Go module by `scripts/tool.sh promtool`): the chart's PrometheusRule
//! rendered at its defaults, against `tests/alerts/`. Every alert must have
//! at least one case where it fires and one where it does not.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;
use trussium_e2e::manifests::{chart_objects, run_tool, tool};
use trussium_e2e::repo_root;

use crate::support::TestResult;
use crate::surfaces::{NAMESPACE, RELEASE, monitoring_values};

const TESTS: &str = "tests/alerts/trussium-operator.test.yaml";
const RULES_FILE: &str = "trussium-operator.rules.yaml";

#[test]
#[ignore = "needs helm and promtool (make test)"]
fn every_alert_fires_and_stays_quiet_as_tested() -> TestResult {
    let rule = chart_objects(RELEASE, NAMESPACE, &monitoring_values())?
        .into_iter()
        .find(|o| o["kind"] == "PrometheusRule")
        .ok_or("the chart renders no PrometheusRule")?;
    // A PrometheusRule's spec is a Prometheus rules file.
    let dir = repo_root().join("target/e2e/alerts");
    std::fs::create_dir_all(&dir)?;
    let rules = dir.join(RULES_FILE);
    std::fs::write(&rules, serde_yaml::to_string(&rule["spec"])?)?;
    let tests_text = std::fs::read_to_string(repo_root().join(TESTS))?;
    let tests = dir.join("trussium-operator.test.yaml");
    std::fs::write(&tests, &tests_text)?;

    let promtool = tool("promtool")?;
    run_tool(&promtool, &["check", "rules", &rules.to_string_lossy()])?;
    let output = run_tool(&promtool, &["test", "rules", &tests.to_string_lossy()])?;
    assert!(output.contains("SUCCESS"), "{output}");

    // Firing and quiet cases per alert.
    let alerts: BTreeSet<String> = rule["spec"]["groups"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|g| g["rules"].as_array().cloned().unwrap_or_default())
        .filter_map(|r| r["alert"].as_str().map(String::from))
        .collect();
    let tests: Value = serde_yaml::from_str(&tests_text)?;
    let mut cases: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for test in tests["tests"].as_array().into_iter().flatten() {
        for case in test["alert_rule_test"].as_array().into_iter().flatten() {
            let name = case["alertname"].as_str().unwrap_or_default().to_string();
            let firing = case["exp_alerts"].as_array().is_some_and(|a| !a.is_empty());
            let entry = cases.entry(name).or_default();
            if firing {
                entry.0 += 1;
            } else {
                entry.1 += 1;
            }
        }
    }
    for alert in &alerts {
        let (firing, quiet) = cases.get(alert).copied().unwrap_or_default();
        assert!(
            firing > 0 && quiet > 0,
            "{alert}: {firing} firing and {quiet} quiet cases; both are needed"
        );
    }
    let unknown: Vec<&String> = cases.keys().filter(|k| !alerts.contains(*k)).collect();
    assert!(
        unknown.is_empty(),
        "tests of alerts the rules do not have: {unknown:?}"
    );
    let (firing, quiet) = cases.values().fold((0, 0), |(f, q), (a, b)| (f + a, q + b));
    println!(
        "promtool: {} alerts, {firing} firing and {quiet} not-firing cases, all pass",
        alerts.len()
    );
    Ok(())
}
