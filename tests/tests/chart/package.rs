//! `make chart` (scripts/chart.sh): `helm package` of the chart, repacked so
//! that the same sources give the same bytes (Helm stamps every file with
//! the packaging time), and still a package Helm reads.

use trussium_e2e::repo_root;

use crate::support::{TestResult, helm_ok};

fn package(dir: &std::path::Path) -> Result<Vec<u8>, crate::support::BoxError> {
    let status = std::process::Command::new(repo_root().join("scripts/chart.sh"))
        .env("DIST_DIR", dir)
        .env("SOURCE_DATE_EPOCH", "1700000000")
        .status()?;
    assert!(status.success(), "scripts/chart.sh failed: {status}");
    let file = dir.join(format!(
        "trussium-operator-{}.tgz",
        env!("CARGO_PKG_VERSION")
    ));
    Ok(std::fs::read(file)?)
}

#[test]
#[ignore = "needs helm (make test)"]
fn the_chart_package_is_the_same_bytes_for_the_same_sources() -> TestResult {
    let dir = repo_root().join("target/e2e/chart-package");
    let (first, second) = (dir.join("first"), dir.join("second"));
    let a = package(&first)?;
    // Helm's own packaging times differ by at least a second between the two.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let b = package(&second)?;
    assert_eq!(a, b, "two packages of the same sources differ");
    let file = first.join(format!(
        "trussium-operator-{}.tgz",
        env!("CARGO_PKG_VERSION")
    ));
    let shown = helm_ok(&["show", "chart", &file.to_string_lossy()])?;
    assert!(shown.contains("name: trussium-operator"), "{shown}");
    println!("chart package: {} bytes", a.len());
    Ok(())
}
