//! `trussium-docs check <site>`: checks the manual built into <site> (run by
//! `make docs` after mdBook): links and anchors of the site and of the
//! README, and the names every page uses.

use std::path::PathBuf;
use std::process::ExitCode;

use trussium_docs::{Error, Finding, links, names, repo_root, sources, vocabulary::Vocabulary};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let site = match args.as_slice() {
        [command, site] if command == "check" => PathBuf::from(site),
        _ => {
            eprintln!("usage: trussium-docs check <built manual directory>");
            return ExitCode::from(2);
        }
    };
    match check(site) {
        Ok(findings) if findings.is_empty() => ExitCode::SUCCESS,
        Ok(findings) => {
            for finding in &findings {
                eprintln!("{finding}");
            }
            eprintln!("docs: {} problems", findings.len());
            ExitCode::FAILURE
        }
        Err(err) => {
            eprintln!("docs: {err}");
            ExitCode::FAILURE
        }
    }
}

fn check(site: PathBuf) -> Result<Vec<Finding>, Error> {
    let repo = repo_root();
    let mut findings = links::check_site(&repo, &site)?;
    findings.extend(links::check_readme(&repo, &site)?);
    let vocabulary = Vocabulary::of_the_code();
    for file in sources(&repo)? {
        let text = trussium_docs::read(&repo.join(&file))?;
        findings.extend(names::check(&file, &text, &vocabulary));
    }
    Ok(findings)
}
