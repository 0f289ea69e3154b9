//! Every page of the manual, and the README, names only flags, condition
//! types and reasons that the code has (the same check `make docs` runs).

use trussium_docs::{names, repo_root, sources, vocabulary::Vocabulary};

#[test]
fn pages_name_only_what_the_code_has() -> Result<(), Box<dyn std::error::Error>> {
    let repo = repo_root();
    let vocabulary = Vocabulary::of_the_code();
    let mut findings = Vec::new();
    for file in sources(&repo)? {
        let text = std::fs::read_to_string(repo.join(&file))?;
        findings.extend(names::check(&file, &text, &vocabulary));
    }
    let report: Vec<String> = findings.iter().map(ToString::to_string).collect();
    assert!(report.is_empty(), "\n{}", report.join("\n"));
    Ok(())
}
