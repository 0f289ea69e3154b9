//! `kubectl trussium completion bash|zsh|fish|powershell|kubectl`, and the
//! hidden `__complete` entry point behind `kubectl trussium <TAB>`.
//!
//! kubectl (1.26 or later) completes a plugin's arguments by running an
//! executable named `kubectl_complete-trussium` with the words typed so far
//! (the last one being the word to complete, possibly empty) and reading one
//! candidate per line (`value<TAB>description`), optionally followed by a
//! `:<cobra directive>` line. Our helper script forwards to `__complete`.

use std::time::Duration;

use clap::ValueEnum;
use k8s_openapi::api::core::v1::Namespace;
use kube::api::ListParams;
use kube::config::Kubeconfig;
use kube::{Api, ResourceExt};

use crate::cli::{self, CompletionArgs, CompletionShell, GlobalFlags};
use crate::client::connect;
use crate::error::Result;
use crate::output;

/// The hidden subcommand the helper calls.
pub const COMPLETE_COMMAND: &str = "__complete";

/// The `kubectl_complete-trussium` helper (also in completions/).
pub const KUBECTL_HELPER: &str = "\
#!/bin/sh
# kubectl (1.26 or later) runs this when completing `kubectl trussium ...`,
# with the words typed after `trussium`; the plugin answers.
# Install it as an executable named kubectl_complete-trussium on PATH:
#   kubectl trussium completion kubectl > ~/.local/bin/kubectl_complete-trussium
#   chmod +x ~/.local/bin/kubectl_complete-trussium
exec kubectl-trussium __complete \"$@\"
";

/// Cobra shell-completion directives understood by kubectl.
const DIRECTIVE_DEFAULT: u32 = 0;
const DIRECTIVE_NO_FILE: u32 = 4;

/// Commands whose first argument is a runtime name.
const RUNTIME_COMMANDS: [&str; 5] = ["status", "upgrade", "rollback", "scale", "events"];

/// The completion script for a shell, as committed in completions/.
pub fn script(shell: CompletionShell) -> String {
    let generator = match shell {
        CompletionShell::Kubectl => return KUBECTL_HELPER.to_string(),
        CompletionShell::Bash => clap_complete::Shell::Bash,
        CompletionShell::Zsh => clap_complete::Shell::Zsh,
        CompletionShell::Fish => clap_complete::Shell::Fish,
        CompletionShell::Powershell => clap_complete::Shell::PowerShell,
    };
    let mut buf = Vec::new();
    clap_complete::generate(generator, &mut cli::command(), "kubectl-trussium", &mut buf);
    String::from_utf8_lossy(&buf).into_owned()
}

/// The file under completions/ that holds each script.
pub fn file_name(shell: CompletionShell) -> &'static str {
    match shell {
        CompletionShell::Bash => "kubectl-trussium.bash",
        CompletionShell::Zsh => "_kubectl-trussium",
        CompletionShell::Fish => "kubectl-trussium.fish",
        CompletionShell::Powershell => "kubectl-trussium.ps1",
        CompletionShell::Kubectl => "kubectl_complete-trussium",
    }
}

pub fn run(args: &CompletionArgs) -> Result<()> {
    output::print(&script(args.shell))
}

/// Something only the cluster or the kubeconfig knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lookup {
    Runtimes,
    Namespaces,
    Contexts,
}

/// What to answer for the typed words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// The word being completed.
    pub prefix: String,
    /// `(value, description)` candidates known without asking anyone.
    pub candidates: Vec<(String, String)>,
    pub lookup: Option<Lookup>,
    pub directive: u32,
    /// The standard flags typed so far, for the lookups.
    pub flags: GlobalFlags,
}

/// Decides the completion of the last word from the words before it.
pub fn plan(words: &[String]) -> Plan {
    let mut root = cli::command();
    root.build();
    let (prefix, before) = match words.split_last() {
        Some((last, before)) => (last.clone(), before),
        None => (String::new(), &[][..]),
    };
    let mut plan = Plan {
        prefix: prefix.clone(),
        candidates: Vec::new(),
        lookup: None,
        directive: DIRECTIVE_NO_FILE,
        flags: GlobalFlags::default(),
    };
    let mut sub: Option<clap::Command> = None;
    let mut positionals = 0;
    let mut pending: Option<clap::Arg> = None;

    for word in before {
        let scope = sub.as_ref().unwrap_or(&root);
        if let Some(arg) = pending.take() {
            record(&arg, word, &mut plan.flags);
        } else if let Some(long) = word.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (long, None),
            };
            if let Some(arg) = scope.get_arguments().find(|a| a.get_long() == Some(name)) {
                match (takes_value(arg), value) {
                    (true, Some(v)) => record(arg, v, &mut plan.flags),
                    (true, None) => pending = Some(arg.clone()),
                    (false, _) => record(arg, "", &mut plan.flags),
                }
            }
        } else if let Some(shorts) = word.strip_prefix('-').filter(|s| !s.is_empty()) {
            for (i, c) in shorts.char_indices() {
                let Some(arg) = scope.get_arguments().find(|a| a.get_short() == Some(c)) else {
                    break;
                };
                if takes_value(arg) {
                    let rest = &shorts[i + c.len_utf8()..];
                    if rest.is_empty() {
                        pending = Some(arg.clone());
                    } else {
                        record(arg, rest, &mut plan.flags);
                    }
                    break;
                }
                record(arg, "", &mut plan.flags);
            }
        } else if sub.is_none() {
            sub = root.find_subcommand(word).cloned();
        } else {
            positionals += 1;
        }
    }

    let scope = sub.as_ref().unwrap_or(&root);
    if let Some(arg) = pending {
        match arg.get_id().as_str() {
            "namespace" => plan.lookup = Some(Lookup::Namespaces),
            "context" => plan.lookup = Some(Lookup::Contexts),
            "kubeconfig" => plan.directive = DIRECTIVE_DEFAULT,
            _ => plan.candidates = possible_values(&arg),
        }
    } else if prefix.starts_with('-') {
        plan.candidates = scope
            .get_arguments()
            .filter(|a| !a.is_hide_set() && a.get_id() != "help" || a.get_long() == Some("help"))
            .filter_map(|a| {
                a.get_long()
                    .map(|l| (format!("--{l}"), help_text(a.get_help())))
            })
            .collect();
    } else {
        match sub.as_ref().map(|s| s.get_name().to_string()) {
            None => {
                plan.candidates = root
                    .get_subcommands()
                    .filter(|s| !s.is_hide_set() && s.get_name() != "help")
                    .map(|s| (s.get_name().to_string(), help_text(s.get_about())))
                    .collect();
            }
            Some(name) if name == "completion" && positionals == 0 => {
                plan.candidates = CompletionShell::value_variants()
                    .iter()
                    .filter_map(|v| v.to_possible_value())
                    .map(|v| (v.get_name().to_string(), help_text(v.get_help())))
                    .collect();
            }
            Some(name) if RUNTIME_COMMANDS.contains(&name.as_str()) && positionals == 0 => {
                plan.lookup = Some(Lookup::Runtimes);
            }
            Some(_) => {}
        }
    }
    plan.candidates
        .retain(|(value, _)| value.starts_with(&prefix));
    plan
}

fn takes_value(arg: &clap::Arg) -> bool {
    arg.get_action().takes_values()
}

fn possible_values(arg: &clap::Arg) -> Vec<(String, String)> {
    arg.get_possible_values()
        .iter()
        .filter(|v| !v.is_hide_set())
        .map(|v| (v.get_name().to_string(), help_text(v.get_help())))
        .collect()
}

fn help_text(help: Option<&clap::builder::StyledStr>) -> String {
    help.map(|h| h.to_string()).unwrap_or_default()
}

fn record(arg: &clap::Arg, value: &str, flags: &mut GlobalFlags) {
    match arg.get_id().as_str() {
        "kubeconfig" => flags.kubeconfig = Some(value.into()),
        "context" => flags.context = Some(value.to_string()),
        "namespace" => flags.namespace = Some(value.to_string()),
        "all_namespaces" => flags.all_namespaces = true,
        _ => {}
    }
}

/// Answers kubectl: candidates, one per line, then the directive.
pub async fn complete(words: &[String]) {
    let mut plan = plan(words);
    if let Some(lookup) = plan.lookup {
        // A slow or absent cluster must not hang the shell.
        let found = tokio::time::timeout(Duration::from_secs(3), look_up(lookup, &plan.flags))
            .await
            .unwrap_or_default();
        plan.candidates = found
            .into_iter()
            .filter(|(value, _)| value.starts_with(&plan.prefix))
            .collect();
    }
    let mut text = String::new();
    for (value, help) in &plan.candidates {
        let help = help.lines().next().unwrap_or_default();
        if help.is_empty() {
            text.push_str(&format!("{value}\n"));
        } else {
            text.push_str(&format!("{value}\t{help}\n"));
        }
    }
    text.push_str(&format!(":{}\n", plan.directive));
    // Nothing useful can be done when the shell went away.
    let _ = output::print(&text);
}

async fn look_up(lookup: Lookup, flags: &GlobalFlags) -> Vec<(String, String)> {
    match lookup {
        Lookup::Contexts => {
            let config = match &flags.kubeconfig {
                Some(path) => Kubeconfig::read_from(path),
                None => Kubeconfig::read(),
            };
            config
                .map(|c| {
                    c.contexts
                        .into_iter()
                        .map(|ctx| (ctx.name, String::new()))
                        .collect()
                })
                .unwrap_or_default()
        }
        Lookup::Namespaces => {
            let Ok(target) = connect(flags).await else {
                return Vec::new();
            };
            let api: Api<Namespace> = Api::all(target.client);
            api.list_metadata(&ListParams::default())
                .await
                .map(|list| {
                    list.items
                        .iter()
                        .map(|n| (n.name_any(), String::new()))
                        .collect()
                })
                .unwrap_or_default()
        }
        Lookup::Runtimes => {
            let mut flags = flags.clone();
            flags.all_namespaces = false;
            let Ok(target) = connect(&flags).await else {
                return Vec::new();
            };
            target
                .runtimes()
                .list(&ListParams::default().limit(500))
                .await
                .map(|list| {
                    list.items
                        .iter()
                        .map(|rt| {
                            let ready = rt
                                .status
                                .as_ref()
                                .and_then(|s| s.ready_replicas)
                                .unwrap_or(0);
                            let about = format!(
                                "{} {} · {}/{} ready",
                                rt.spec.provider.type_.as_str(),
                                rt.spec.image.version(),
                                ready,
                                rt.spec.replicas
                            );
                            (rt.name_any(), about)
                        })
                        .collect()
                })
                .unwrap_or_default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &[&str]) -> Vec<String> {
        s.iter().map(|w| w.to_string()).collect()
    }

    fn values(p: &Plan) -> Vec<&str> {
        p.candidates.iter().map(|(v, _)| v.as_str()).collect()
    }

    #[test]
    fn subcommands_first() {
        let p = plan(&words(&[""]));
        assert_eq!(
            values(&p),
            [
                "status",
                "upgrade",
                "rollback",
                "scale",
                "events",
                "completion",
                "version"
            ]
        );
        assert_eq!(p.directive, DIRECTIVE_NO_FILE);
        assert!(p.candidates[0].1.starts_with("Show one runtime"));
        assert_eq!(values(&plan(&words(&["s"]))), ["status", "scale"]);
        assert_eq!(values(&plan(&words(&[]))).len(), 7);
    }

    #[test]
    fn runtime_names_from_the_cluster_with_the_typed_flags() {
        let p = plan(&words(&["-n", "ai", "--context=kind", "upgrade", "pr"]));
        assert_eq!(p.lookup, Some(Lookup::Runtimes));
        assert_eq!(p.prefix, "pr");
        assert_eq!(p.flags.namespace.as_deref(), Some("ai"));
        assert_eq!(p.flags.context.as_deref(), Some("kind"));
        let p = plan(&words(&["status", "-nai", ""]));
        assert_eq!(p.flags.namespace.as_deref(), Some("ai"));
        assert_eq!(p.lookup, Some(Lookup::Runtimes));
        // After the name, nothing more to look up.
        let p = plan(&words(&["scale", "rt", ""]));
        assert_eq!(p.lookup, None);
        assert!(p.candidates.is_empty());
    }

    #[test]
    fn flag_values() {
        assert_eq!(
            plan(&words(&["status", "-n", ""])).lookup,
            Some(Lookup::Namespaces)
        );
        assert_eq!(
            plan(&words(&["--context", "k"])).lookup,
            Some(Lookup::Contexts)
        );
        assert_eq!(
            values(&plan(&words(&["status", "-o", ""]))),
            ["json", "yaml"]
        );
        assert_eq!(values(&plan(&words(&["--color", "n"]))), ["never"]);
        assert_eq!(
            plan(&words(&["--kubeconfig", ""])).directive,
            DIRECTIVE_DEFAULT
        );
        assert!(
            plan(&words(&["upgrade", "rt", "--tag", ""]))
                .candidates
                .is_empty()
        );
    }

    #[test]
    fn flags_of_the_subcommand_and_globals() {
        let p = plan(&words(&["upgrade", "rt", "--"]));
        let v = values(&p);
        for want in [
            "--tag",
            "--digest",
            "--wait",
            "--timeout",
            "--namespace",
            "--context",
            "--kubeconfig",
        ] {
            assert!(v.contains(&want), "{want} missing from {v:?}");
        }
        assert_eq!(
            values(&plan(&words(&["scale", "rt", "--re"]))),
            ["--replicas"]
        );
    }

    #[test]
    fn shells() {
        assert_eq!(
            values(&plan(&words(&["completion", ""]))),
            ["bash", "zsh", "fish", "powershell", "kubectl"]
        );
    }

    #[test]
    fn scripts_are_generated() {
        assert!(script(CompletionShell::Bash).contains("kubectl-trussium"));
        assert!(
            script(CompletionShell::Kubectl).contains("exec kubectl-trussium __complete \"$@\"")
        );
        assert!(script(CompletionShell::Zsh).starts_with("#compdef kubectl-trussium"));
    }
}
