//! Checks that a page names only what the code has:
//!
//! - **command lines** of our programs (in code spans and code blocks, from
//!   `kubectl trussium`, `kubectl-trussium` or `trussium-operator` to the end
//!   of the command): each command word must be a command, each flag a flag
//!   of that command;
//! - **a flag on its own** in a code span (`` `--leader-elect` ``): a flag of
//!   one of our programs (a flag of another tool is written with its command);
//! - **conditions** written `Type=Status/Reason` or `Type=Reason` (Type one
//!   of ours): the status and the reason must exist;
//! - **reasons**: in a table column headed Reason, True or False, in a heading
//!   that is one code span, and in code spans right after the word "reason":
//!   a condition or Event reason;
//! - in a table column headed Condition: a condition type.

use std::collections::BTreeSet;
use std::sync::LazyLock;

use clap::Command;
use regex::Regex;

use crate::Finding;
use crate::markdown::{Page, Table};
use crate::vocabulary::Vocabulary;

/// Checks one page; `file` names it in the findings.
pub fn check(file: &str, markdown: &str, vocabulary: &Vocabulary) -> Vec<Finding> {
    let page = crate::markdown::parse(markdown);
    let mut findings = Vec::new();
    let mut report = |line: usize, message: String| {
        findings.push(Finding {
            file: file.to_string(),
            line: Some(line),
            message,
        })
    };
    command_lines(&page, vocabulary, &mut report);
    lone_flags(&page, vocabulary, &mut report);
    conditions(&page, vocabulary, &mut report);
    reasons(&page, vocabulary, &mut report);
    findings.sort();
    findings.dedup();
    findings
}

type Report<'a> = dyn FnMut(usize, String) + 'a;

fn command_lines(page: &Page, vocabulary: &Vocabulary, report: &mut Report) {
    for snippet in &page.code {
        for program in &vocabulary.programs {
            for spelling in &program.spellings {
                for (start, _) in snippet.text.match_indices(spelling) {
                    // A command starts a line or follows a shell separator;
                    // elsewhere the name is an argument (`helm install
                    // trussium-operator …`), a path or a longer word.
                    let before = snippet.text[..start].trim_end().trim_start_matches("$ ");
                    if !(before.is_empty() || before.ends_with(['|', ';', '&', '(', '`'])) {
                        continue;
                    }
                    let rest = &snippet.text[start + spelling.len()..];
                    if rest.starts_with(|c: char| c.is_alphanumeric() || "-_./".contains(c)) {
                        continue;
                    }
                    if let Err(message) = check_command_line(&program.command, spelling, rest) {
                        report(snippet.line, message);
                    }
                }
            }
        }
    }
}

/// Where a command ends: a pipe, a list, a redirection, a comment, a placeholder.
fn command_words(rest: &str) -> Vec<&str> {
    let end = rest
        .find(['|', ';', '&', '>', '<', '#', '`', ')', '\\'])
        .unwrap_or(rest.len());
    rest[..end].split_whitespace().collect()
}

fn check_command_line(root: &Command, spelling: &str, rest: &str) -> Result<(), String> {
    let mut command = root;
    let mut words_so_far = spelling.to_string();
    let mut positionals = 0;
    let mut words = command_words(rest).into_iter();
    while let Some(word) = words.next() {
        if word == "--" {
            break;
        }
        if let Some(flag) = word.strip_prefix("--") {
            let (name, inline_value) = match flag.split_once('=') {
                Some((name, _)) => (name, true),
                None => (flag, false),
            };
            let Some(arg) = command.get_arguments().find(|a| a.get_long() == Some(name)) else {
                return Err(format!("`{words_so_far}` has no flag --{name}"));
            };
            if arg.get_action().takes_values() && !inline_value && !arg.is_require_equals_set() {
                words.next();
            }
            continue;
        }
        if let Some(shorts) = word
            .strip_prefix('-')
            .filter(|s| !s.is_empty() && !s.starts_with(|c: char| c.is_ascii_digit()))
        {
            let mut takes_value = false;
            for short in shorts.chars() {
                let Some(arg) = command
                    .get_arguments()
                    .find(|a| a.get_short() == Some(short))
                else {
                    return Err(format!("`{words_so_far}` has no flag -{short}"));
                };
                takes_value = arg.get_action().takes_values();
                if takes_value {
                    break;
                }
            }
            if takes_value && shorts.chars().count() == 1 {
                words.next();
            }
            continue;
        }
        if positionals == 0 && command.has_subcommands() {
            match command.find_subcommand(word) {
                Some(sub) => {
                    command = sub;
                    words_so_far = format!("{words_so_far} {word}");
                    continue;
                }
                None if is_placeholder(word) => return Ok(()),
                None => return Err(format!("`{words_so_far}` has no command `{word}`")),
            }
        }
        positionals += 1;
    }
    Ok(())
}

/// `NAME`, `<name>`, `[OPTIONS]`, `$NAME`, `...`: a stand-in, not a command word.
fn is_placeholder(word: &str) -> bool {
    word.chars()
        .all(|c| c.is_ascii_uppercase() || c == '_' || c == '.')
        || word.starts_with('[')
        || word.contains(['$', '<', '{', '…'])
}

static LONE_FLAG: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(--[a-z][a-z0-9-]*|-[a-zA-Z])(=\S*)?$").unwrap_or_else(|e| panic!("{e}"))
});

fn lone_flags(page: &Page, vocabulary: &Vocabulary, report: &mut Report) {
    let flags = vocabulary.all_flags();
    for snippet in &page.code_spans {
        let Some(found) = LONE_FLAG.captures(snippet.text.trim()) else {
            continue;
        };
        let flag = &found[1];
        if !flags.contains(flag) {
            report(
                snippet.line,
                format!(
                    "names flag {flag}, which neither kubectl trussium nor trussium-operator has \
                     (a flag of another tool is written with its command, e.g. `kubectl apply {flag}`)"
                ),
            );
        }
    }
}

static CONDITION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b([A-Z][A-Za-z]+)=([A-Z][A-Za-z]+)(?:/([A-Z][A-Za-z]+))?\b")
        .unwrap_or_else(|e| panic!("{e}"))
});

fn conditions(page: &Page, vocabulary: &Vocabulary, report: &mut Report) {
    for snippet in page.text.iter().chain(&page.code) {
        for found in CONDITION.captures_iter(&snippet.text) {
            let type_ = &found[1];
            if !vocabulary.condition_types.contains(type_) {
                continue; // another kind's condition (a Deployment's, say)
            }
            let (status, reason) = match found.get(3) {
                Some(reason) => (Some(&found[2]), reason.as_str()),
                None if vocabulary.condition_statuses.contains(&found[2]) => continue,
                None => (None, &found[2]),
            };
            if let Some(status) = status.filter(|s| !vocabulary.condition_statuses.contains(*s)) {
                report(
                    snippet.line,
                    format!("{type_}={status}/…: a condition's status is True, False or Unknown"),
                );
            }
            if !vocabulary.condition_reasons.contains(reason) {
                report(
                    snippet.line,
                    format!("{type_}: no condition reason {reason} in the code"),
                );
            }
        }
    }
}

static UPPER_CAMEL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+\b").unwrap_or_else(|e| panic!("{e}"))
});
static CAPITALIZED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b[A-Z][A-Za-z]+\b").unwrap_or_else(|e| panic!("{e}")));
static AFTER_REASON: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\breasons?\s+((?:`[A-Za-z]+`(?:,\s*|\s+(?:and|or)\s+|\s*)?)+)")
        .unwrap_or_else(|e| panic!("{e}"))
});

fn reasons(page: &Page, vocabulary: &Vocabulary, report: &mut Report) {
    let all_reasons: BTreeSet<&String> = vocabulary
        .condition_reasons
        .iter()
        .chain(&vocabulary.event_reasons)
        .collect();
    let check_reason = |line: usize, name: &str, report: &mut Report| {
        if !all_reasons.contains(&name.to_string()) {
            report(
                line,
                format!("no condition or Event reason {name} in the code"),
            );
        }
    };
    for table in &page.tables {
        for (column, kind) in columns(table) {
            for (line, row) in &table.rows {
                let Some(cell) = row.get(column) else {
                    continue;
                };
                match kind {
                    Column::Reason => {
                        for name in UPPER_CAMEL.find_iter(cell) {
                            check_reason(*line, name.as_str(), report);
                        }
                    }
                    // Condition types are single words (Ready) as well.
                    Column::Condition => {
                        for name in CAPITALIZED.find_iter(cell) {
                            if !vocabulary.condition_types.contains(name.as_str()) {
                                report(
                                    *line,
                                    format!("no condition type {} in the code", name.as_str()),
                                );
                            }
                        }
                    }
                }
            }
        }
    }
    for heading in &page.code_headings {
        if UPPER_CAMEL.is_match(&heading.text)
            && UPPER_CAMEL
                .find(&heading.text)
                .is_some_and(|m| m.as_str() == heading.text)
            && !vocabulary.condition_types.contains(&heading.text)
        {
            check_reason(heading.line, &heading.text, report);
        }
    }
    for snippet in &page.text {
        for found in AFTER_REASON.captures_iter(&snippet.text) {
            for name in found[1].split('`').skip(1).step_by(2) {
                if UPPER_CAMEL.is_match(name) {
                    check_reason(snippet.line, name, report);
                }
            }
        }
    }
}

#[derive(Clone, Copy)]
enum Column {
    Reason,
    Condition,
}

fn columns(table: &Table) -> Vec<(usize, Column)> {
    table
        .header
        .iter()
        .enumerate()
        .filter_map(|(i, h)| {
            let h = h.trim_matches('`').to_lowercase();
            let h = h.trim();
            if h.ends_with("reason") || h.ends_with("reasons") || h == "true" || h == "false" {
                Some((i, Column::Reason))
            } else if h == "condition" || h == "condition type" {
                Some((i, Column::Condition))
            } else {
                None
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn findings(markdown: &str) -> Vec<String> {
        check("page.md", markdown, &Vocabulary::of_the_code())
            .into_iter()
            .map(|f| f.message)
            .collect()
    }

    #[test]
    fn real_names_pass() {
        let page = "\
Run `kubectl trussium status -A --watch` or `kubectl trussium -n ai status private-ai -o json`.

```sh
kubectl trussium upgrade private-ai --tag v1.23.0 --wait --timeout 10m | tee log
kubectl-trussium completion bash > file
trussium-operator --leader-elect=false --metrics-bind-address=0
helm install trussium-operator charts/trussium-operator --create-namespace
$ kubectl trussium version
```

`--leader-elect-lease-duration` and `-A`. `Ready=True/RuntimeReady`, `Upgrading=UpgradeComplete`,
a Deployment's `ReplicaFailure=True/FailedCreate`, with reason `SecretNotFound` or `RuntimeReady`.

### `ProgressDeadlineExceeded`

| Condition | True | False |
|---|---|---|
| Stalled | ProgressDeadlineExceeded | AsExpected, Retrying |

| Reason | Type |
|---|---|
| `RuntimeUpgradeStarted` | Normal |
";
        assert_eq!(findings(page), Vec::<String>::new());
    }

    #[test]
    fn names_the_code_lacks_fail() {
        let found = findings(
            "\
`kubectl trussium status --wide` and `kubectl trussium frobnicate x`.

`trussium-operator --no-such-flag` and `--dry-runs`, `echo | kubectl trussium statuss`.

Ready=Yes/RuntimeReady and Stalled=True/SecretMissing, Upgrading=UpgradeDone,
with reason `RuntimeBroken`.

### `RuntimeExploded`

| Condition | False |
|---|---|
| Readiness | NotReadyAtAll |
",
        );
        let expected = [
            "`kubectl trussium status` has no flag --wide",
            "`kubectl trussium` has no command `frobnicate`",
            "`trussium-operator` has no flag --no-such-flag",
            "`kubectl trussium` has no command `statuss`",
            "names flag --dry-runs, which neither",
            "Ready=Yes/…: a condition's status is True, False or Unknown",
            "Stalled: no condition reason SecretMissing in the code",
            "Upgrading: no condition reason UpgradeDone in the code",
            "no condition or Event reason RuntimeBroken in the code",
            "no condition or Event reason RuntimeExploded in the code",
            "no condition type Readiness in the code",
            "no condition or Event reason NotReadyAtAll in the code",
        ];
        for want in expected {
            assert!(
                found.iter().any(|f| f.starts_with(want)),
                "{want} not in {found:#?}"
            );
        }
        assert_eq!(found.len(), expected.len(), "{found:#?}");
    }
}
