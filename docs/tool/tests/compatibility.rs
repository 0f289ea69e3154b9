//! The compatibility page states the supported Kubernetes range of
//! `kubernetes-versions.txt`: a row per supported minor, the tested ends
//! with the patch releases the test clusters build.

use trussium_api::kubernetes::{supported_range, supported_versions};
use trussium_docs::repo_root;

const PAGE: &str = "docs/src/reference/compatibility.md";

#[test]
fn the_compatibility_page_follows_kubernetes_versions_txt() -> Result<(), Box<dyn std::error::Error>>
{
    let page = std::fs::read_to_string(repo_root().join(PAGE))?;
    let range = supported_range();
    let stated = format!("This release supports **Kubernetes {range}**.");
    assert!(page.contains(&stated), "{PAGE} must say {stated:?}");
    let rows: Vec<&str> = page.lines().filter(|l| l.starts_with("| 1.")).collect();
    let versions = supported_versions();
    assert_eq!(
        rows.len(),
        versions.len(),
        "one row per supported minor: {rows:?}"
    );
    for (row, (minor, patch)) in rows.iter().zip(&versions) {
        assert!(row.starts_with(&format!("| {minor} |")), "{row}");
        if *minor == range.oldest {
            assert!(
                row.contains(&format!("the core subset, on {patch}")),
                "{row}"
            );
        }
        if *minor == range.newest {
            assert!(
                row.contains(&format!("the whole suite, on {patch}")),
                "{row}"
            );
        }
    }
    let kube_version = format!("`kubeVersion` is `>={}.0-0`", range.oldest);
    assert!(
        page.contains(&kube_version),
        "{PAGE} must say {kube_version:?}"
    );
    Ok(())
}
