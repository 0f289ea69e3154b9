//! Checks that every internal link leads somewhere: in the built manual
//! (the HTML mdBook wrote, so that anchors are the ids it really gave) and in
//! the README (as the code host shows it: paths in the repository, anchors of
//! its own headings and of the manual's pages). A link to this repository on
//! its code host must name a file that exists.

use std::collections::{BTreeSet, HashMap};
use std::path::{Component, Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;

use crate::{BOOK_SOURCES, Error, Finding, REPOSITORY_URL, read};

/// Checks the manual built into `site` from `repo`'s `docs/src`.
pub fn check_site(repo: &Path, site: &Path) -> Result<Vec<Finding>, Error> {
    let mut findings = Vec::new();
    let mut ids = Ids::default();
    for file in crate::sources(repo)? {
        let Some(relative) = file
            .strip_prefix(BOOK_SOURCES)
            .map(|r| Path::new(r.trim_start_matches('/')))
        else {
            continue; // the README: see check_readme
        };
        if relative == Path::new("SUMMARY.md") {
            continue;
        }
        let html = site.join(relative.with_extension("html"));
        if !html.is_file() {
            findings.push(finding(
                &file,
                "is not in SUMMARY.md, so the manual does not show it".into(),
            ));
            continue;
        }
        let page = read(&html)?;
        for href in hrefs(main_content(&page)) {
            if let Some(problem) = check_href(repo, site, &html, &href, &mut ids)? {
                findings.push(finding(&file, problem));
            }
        }
    }
    findings.sort();
    Ok(findings)
}

/// Checks the README's links; anchors into the manual against the built `site`.
pub fn check_readme(repo: &Path, site: &Path) -> Result<Vec<Finding>, Error> {
    let file = "README.md";
    let text = read(&repo.join(file))?;
    let page = crate::markdown::parse(&text);
    let own: BTreeSet<String> = page
        .headings
        .iter()
        .map(|h| github_anchor(&h.text))
        .collect();
    let mut ids = Ids::default();
    let mut findings = Vec::new();
    for link in &page.links {
        let problem = if let Some(fragment) = link.text.strip_prefix('#') {
            (!own.contains(fragment)).then(|| format!("no heading for #{fragment}"))
        } else if is_external(&link.text) {
            check_repository_url(repo, &link.text)
        } else {
            let (path, fragment) = split_fragment(&link.text);
            let target = repo.join(path.trim_start_matches("./"));
            if !target.exists() {
                Some(format!("{} does not exist", link.text))
            } else if let (Some(fragment), Some(page)) = (fragment, manual_page_of(path)) {
                let html = site.join(page);
                (!ids.of(&html)?.contains(fragment))
                    .then(|| format!("{}: the manual's page has no anchor #{fragment}", link.text))
            } else {
                None
            }
        };
        if let Some(problem) = problem {
            findings.push(Finding {
                file: file.into(),
                line: Some(link.line),
                message: problem,
            });
        }
    }
    Ok(findings)
}

fn finding(file: &str, message: String) -> Finding {
    Finding {
        file: file.to_string(),
        line: None,
        message,
    }
}

/// The HTML page of a manual source: `docs/src/status.md` → `status.html`.
fn manual_page_of(path: &str) -> Option<PathBuf> {
    let inner = path
        .trim_start_matches("./")
        .strip_prefix(BOOK_SOURCES)?
        .trim_start_matches('/');
    inner
        .ends_with(".md")
        .then(|| Path::new(inner).with_extension("html"))
}

/// The ids of the pages read so far.
#[derive(Default)]
struct Ids(HashMap<PathBuf, BTreeSet<String>>);

impl Ids {
    fn of(&mut self, html: &Path) -> Result<&BTreeSet<String>, Error> {
        if !self.0.contains_key(html) {
            let ids = if html.is_file() {
                ID.captures_iter(&read(html)?)
                    .map(|c| decode(&c[1]))
                    .collect()
            } else {
                BTreeSet::new()
            };
            self.0.insert(html.to_path_buf(), ids);
        }
        Ok(&self.0[html])
    }
}

// mdBook writes plain, well-formed HTML: attributes in double quotes.
static ID: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"\bid="([^"]+)""#).unwrap_or_else(|e| panic!("{e}")));
static HREF: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"\b(?:href|src)="([^"]+)""#).unwrap_or_else(|e| panic!("{e}")));

/// The page's own content, without mdBook's navigation (whose links mdBook makes).
fn main_content(page: &str) -> &str {
    let start = page.find("<main>").unwrap_or(0);
    let end = page[start..]
        .find("</main>")
        .map_or(page.len(), |e| start + e);
    &page[start..end]
}

fn hrefs(html: &str) -> Vec<String> {
    HREF.captures_iter(html).map(|c| decode(&c[1])).collect()
}

fn decode(value: &str) -> String {
    value
        .replace("&amp;", "&")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
}

fn is_external(href: &str) -> bool {
    href.split(['/', '#'])
        .next()
        .is_some_and(|first| first.contains(':'))
}

fn split_fragment(href: &str) -> (&str, Option<&str>) {
    match href.split_once('#') {
        Some((path, fragment)) => (path, Some(fragment)),
        None => (href, None),
    }
}

/// A link to this repository on its code host names an existing path.
fn check_repository_url(repo: &Path, href: &str) -> Option<String> {
    let rest = href.strip_prefix(REPOSITORY_URL)?;
    let path = ["/blob/main/", "/tree/main/"]
        .iter()
        .find_map(|prefix| rest.strip_prefix(prefix))?;
    let (path, _) = split_fragment(path);
    (!repo.join(path).exists()).then(|| format!("{href}: {path} is not in the repository"))
}

fn check_href(
    repo: &Path,
    site: &Path,
    page: &Path,
    href: &str,
    ids: &mut Ids,
) -> Result<Option<String>, Error> {
    if is_external(href) {
        return Ok(check_repository_url(repo, href));
    }
    let (path, fragment) = split_fragment(href);
    let target = if path.is_empty() {
        page.to_path_buf()
    } else {
        let joined = page.parent().unwrap_or(site).join(path);
        let normal = normalize(&joined);
        if !normal.starts_with(site) {
            return Ok(Some(format!(
                "{href} leads out of the manual (link to the repository on its code host instead)"
            )));
        }
        normal
    };
    if !target.exists() {
        return Ok(Some(format!("{href}: no such page")));
    }
    if let Some(fragment) = fragment.filter(|f| !f.is_empty())
        && target.extension().is_some_and(|e| e == "html")
        && !ids.of(&target)?.contains(fragment)
    {
        return Ok(Some(format!("{href}: no anchor #{fragment}")));
    }
    Ok(None)
}

fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// The anchor a code host gives a heading: lowercase, punctuation dropped,
/// spaces as hyphens.
pub fn github_anchor(heading: &str) -> String {
    heading
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site() -> Result<(tempfile::TempDir, PathBuf), Error> {
        let dir = tempfile::tempdir().map_err(|source| Error::Io {
            path: "a temporary directory".into(),
            source,
        })?;
        let repo = dir.path().to_path_buf();
        let write = |path: &str, text: &str| -> Result<(), Error> {
            let path = repo.join(path);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).map_err(|source| Error::Io {
                    path: parent.display().to_string(),
                    source,
                })?;
            }
            std::fs::write(&path, text).map_err(|source| Error::Io {
                path: path.display().to_string(),
                source,
            })
        };
        write("deploy/x.yaml", "")?;
        write("docs/src/SUMMARY.md", "")?;
        write("docs/src/a.md", "")?;
        write("docs/src/sub/b.md", "")?;
        write("docs/src/orphan.md", "")?;
        write(
            "site/a.html",
            r##"<nav><a href="missing.html">nav</a></nav><main><h1 id="top">A</h1>
<a href="#top">ok</a> <a href="sub/b.html#part">ok</a> <a href="sub/b.html#nope">bad anchor</a>
<a href="gone.html">bad page</a> <a href="https://example.com/x">external</a>
<a href="https://github.com/trussiumhq/trussium-operator/blob/main/deploy/x.yaml">ok</a>
<a href="https://github.com/trussiumhq/trussium-operator/blob/main/deploy/y.yaml">bad</a>
<a href="../README.md">out</a></main>"##,
        )?;
        write(
            "site/sub/b.html",
            r#"<main><h2 id="part">B</h2><a href="../a.html#top">ok</a></main>"#,
        )?;
        write(
            "README.md",
            "# Trussium Operator\n\n## Two commands\n\n[a](#two-commands) [b](#three) [c](docs/src/a.md#top) [d](docs/src/a.md#gone) [e](deploy/) [f](deploy/nothing.yaml)\n",
        )?;
        Ok((dir, repo))
    }

    #[test]
    fn broken_pages_anchors_and_repository_paths_are_found() -> Result<(), Error> {
        let (_dir, repo) = site()?;
        let found: Vec<String> = check_site(&repo, &repo.join("site"))?
            .into_iter()
            .map(|f| f.to_string())
            .collect();
        assert_eq!(
            found,
            [
                "docs/src/a.md: ../README.md leads out of the manual (link to the repository on its code host instead)",
                "docs/src/a.md: gone.html: no such page",
                "docs/src/a.md: https://github.com/trussiumhq/trussium-operator/blob/main/deploy/y.yaml: deploy/y.yaml is not in the repository",
                "docs/src/a.md: sub/b.html#nope: no anchor #nope",
                "docs/src/orphan.md: is not in SUMMARY.md, so the manual does not show it",
            ]
        );
        Ok(())
    }

    #[test]
    fn readme_links() -> Result<(), Error> {
        let (_dir, repo) = site()?;
        let found: Vec<String> = check_readme(&repo, &repo.join("site"))?
            .into_iter()
            .map(|f| f.message)
            .collect();
        assert_eq!(
            found,
            [
                "no heading for #three",
                "docs/src/a.md#gone: the manual's page has no anchor #gone",
                "deploy/nothing.yaml does not exist",
            ]
        );
        Ok(())
    }

    #[test]
    fn anchors_as_the_code_host_makes_them() {
        assert_eq!(github_anchor("Two commands"), "two-commands");
        assert_eq!(
            github_anchor("GitOps: kstatus (Flux), `kubectl wait`"),
            "gitops-kstatus-flux-kubectl-wait"
        );
    }
}
