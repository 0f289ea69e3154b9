//! `kubectl trussium completion bash|zsh|fish|powershell|kubectl`, and the
//! hidden `__complete` entry point behind `kubectl trussium <TAB>`.
//!
//! kubectl (1.26 or later) completes a plugin's arguments by running an
//! executable named `kubectl_complete-trussium` with the words typed so far
//! (the last one being the word to complete, possibly empty) and reading one
//! candidate per line (`value<TAB>description`), optionally followed by a
//! `:<cobra directive>` line. Our helper script forwards to `__complete`.

use std::any::TypeId;
use std::time::Duration;

use clap::parser::ValueSource;
use clap::{Args, FromArgMatches, ValueEnum, ValueHint};
use k8s_openapi::api::core::v1::Namespace;
use kube::api::ListParams;
use kube::config::Kubeconfig;
use kube::{Api, ResourceExt};

use crate::cli::{
    self, ClusterName, ContextName, GlobalFlags, NamespaceName, RuntimeName, UserName,
};
use crate::client::connect;
use crate::error::Result;
use crate::output;

#[derive(Args, Debug)]
pub struct CompletionArgs {
    /// The shell, or `kubectl` for kubectl's plugin completion helper
    #[arg(value_enum, value_name = "SHELL")]
    pub shell: CompletionShell,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompletionShell {
    Bash,
    Zsh,
    Fish,
    Powershell,
    /// The kubectl_complete-trussium helper for `kubectl trussium <TAB>`
    Kubectl,
}

pub const HELP: &str = "\
`kubectl trussium <TAB>` (kubectl 1.26 or later) needs an executable named
kubectl_complete-trussium on PATH; `completion kubectl` prints it:

  kubectl trussium completion kubectl > ~/.local/bin/kubectl_complete-trussium
  chmod +x ~/.local/bin/kubectl_complete-trussium

It completes subcommands, flags, and runtime, namespace and context names.
The bash, zsh, fish and powershell scripts complete the kubectl-trussium
binary itself:

  source <(kubectl-trussium completion bash)";

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
    Clusters,
    Users,
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

/// Decides the completion of the last word from the words before it, as
/// [`cli::command`] parses them.
pub fn plan(words: &[String]) -> Plan {
    plan_with(&cli::command(), words)
}

/// [`plan`] for any command line built on [`GlobalFlags`]: clap parses the
/// words before the cursor; what to offer depends on the kind of value asked
/// for (its type, its hint, its possible values), never on an argument's name.
pub fn plan_with(command: &clap::Command, words: &[String]) -> Plan {
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
    // Partial parsing: clap keeps what it parsed up to a word it refused,
    // and records an option still waiting for its value without one.
    let mut root = command.clone().ignore_errors(true);
    root.build();
    let parse = |root: &mut clap::Command, words: &[String]| {
        let argv = std::iter::once("kubectl-trussium".to_string()).chain(words.iter().cloned());
        root.try_get_matches_from_mut(argv)
    };
    let Ok(matches) = parse(&mut root, before) else {
        // --help or --version before the cursor: nothing follows them.
        return plan;
    };
    let subcommand = matches.subcommand_name().map(str::to_string);
    let (scope, found) = match matches.subcommand() {
        Some((name, sub)) => (root.find_subcommand(name).unwrap_or(&root), sub),
        None => (&root, &matches),
    };
    plan.flags = GlobalFlags::from_arg_matches(found).unwrap_or_default();
    // The word before the cursor, parsed alone in the same scope: is it an
    // option that waits for a value (the one being typed)?
    let pending = before.last().and_then(|last| {
        let mut root = root.clone();
        let alone: Vec<String> = subcommand.iter().cloned().chain([last.clone()]).collect();
        let matches = parse(&mut root, &alone).ok()?;
        let found = matches.subcommand().map_or(&matches, |(_, sub)| sub);
        scope
            .get_arguments()
            .find(|arg| {
                !arg.is_positional()
                    && arg.get_action().takes_values()
                    && found.value_source(arg.get_id().as_str()) == Some(ValueSource::CommandLine)
                    && !has_value(found, arg)
            })
            .cloned()
    });
    if let Some(arg) = &pending {
        offer_values(arg, &mut plan);
    } else if prefix.starts_with('-') {
        plan.candidates = scope
            .get_arguments()
            .filter(|a| !a.is_hide_set())
            .filter_map(|a| {
                a.get_long()
                    .map(|l| (format!("--{l}"), help_text(a.get_help())))
            })
            .collect();
    } else if matches.subcommand().is_none() {
        plan.candidates = root
            .get_subcommands()
            .filter(|s| !s.is_hide_set() && s.get_name() != "help")
            .map(|s| (s.get_name().to_string(), help_text(s.get_about())))
            .collect();
    } else if let Some(arg) = scope.get_positionals().find(|arg| !has_value(found, arg)) {
        offer_values(arg, &mut plan);
    }
    plan.candidates
        .retain(|(value, _)| value.starts_with(&prefix));
    plan
}

/// Whether the command line gave `arg` a value.
fn has_value(matches: &clap::ArgMatches, arg: &clap::Arg) -> bool {
    matches
        .try_get_raw(arg.get_id().as_str())
        .ok()
        .flatten()
        .is_some_and(|mut values| values.next().is_some())
}

/// What a value of `arg` can be: names looked up by their type, files by the
/// hint, else the possible values (none for free text).
fn offer_values(arg: &clap::Arg, plan: &mut Plan) {
    let kind = arg.get_value_parser().type_id();
    if kind == TypeId::of::<RuntimeName>() {
        plan.lookup = Some(Lookup::Runtimes);
    } else if kind == TypeId::of::<NamespaceName>() {
        plan.lookup = Some(Lookup::Namespaces);
    } else if kind == TypeId::of::<ContextName>() {
        plan.lookup = Some(Lookup::Contexts);
    } else if kind == TypeId::of::<ClusterName>() {
        plan.lookup = Some(Lookup::Clusters);
    } else if kind == TypeId::of::<UserName>() {
        plan.lookup = Some(Lookup::Users);
    } else if matches!(
        arg.get_value_hint(),
        ValueHint::AnyPath | ValueHint::FilePath | ValueHint::DirPath
    ) {
        plan.directive = DIRECTIVE_DEFAULT;
    } else {
        plan.candidates = arg
            .get_possible_values()
            .iter()
            .filter(|v| !v.is_hide_set())
            .map(|v| (v.get_name().to_string(), help_text(v.get_help())))
            .collect();
    }
}

fn help_text(help: Option<&clap::builder::StyledStr>) -> String {
    help.map(|h| h.to_string()).unwrap_or_default()
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
        Lookup::Contexts | Lookup::Clusters | Lookup::Users => {
            let config = match &flags.kubeconfig {
                Some(path) => Kubeconfig::read_from(path),
                None => Kubeconfig::read(),
            };
            let Ok(config) = config else {
                return Vec::new();
            };
            let names: Vec<String> = match lookup {
                Lookup::Clusters => config.clusters.into_iter().map(|c| c.name).collect(),
                Lookup::Users => config.auth_infos.into_iter().map(|u| u.name).collect(),
                _ => config.contexts.into_iter().map(|c| c.name).collect(),
            };
            names.into_iter().map(|n| (n, String::new())).collect()
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
                "create",
                "upgrade",
                "rollback",
                "history",
                "scale",
                "restart",
                "suspend",
                "resume",
                "events",
                "diagnose",
                "logs",
                "check",
                "install",
                "uninstall",
                "migrate",
                "completion",
                "version"
            ]
        );
        assert_eq!(p.directive, DIRECTIVE_NO_FILE);
        assert!(p.candidates[0].1.starts_with("Show one runtime"));
        assert_eq!(
            values(&plan(&words(&["s"]))),
            ["status", "scale", "suspend"]
        );
        assert_eq!(values(&plan(&words(&[]))).len(), 18);
        // The new commands complete like the old: by the kind of value.
        for command in ["restart", "suspend", "resume"] {
            assert_eq!(
                plan(&words(&[command, ""])).lookup,
                Some(Lookup::Runtimes),
                "{command}"
            );
        }
        assert_eq!(
            plan(&words(&["history", ""])).lookup,
            Some(Lookup::Runtimes)
        );
        assert_eq!(
            plan(&words(&["install", "--watch-namespace", "t"])).lookup,
            Some(Lookup::Namespaces)
        );
        assert_eq!(
            values(&plan(&words(&["install", "--dry-run", ""]))),
            ["client", "server"]
        );
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
            plan(&words(&["status", "--cluster", ""])).lookup,
            Some(Lookup::Clusters)
        );
        assert_eq!(
            plan(&words(&["status", "--user", ""])).lookup,
            Some(Lookup::Users)
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
            values(&plan(&words(&["scale", "rt", "--rep"]))),
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
    fn values_after_flags_that_take_none_and_after_a_refused_value() {
        // --wait takes no value: the next word is a flag or nothing.
        let p = plan(&words(&["upgrade", "rt", "--wait", "--ti"]));
        assert_eq!(values(&p), ["--timeout"]);
        // After a value clap refused, the next word is not that option's.
        let p = plan(&words(&["--color", "x", "a"]));
        assert!(p.candidates.is_empty() && p.lookup.is_none(), "{p:?}");
        assert_eq!(values(&plan(&words(&["--color", "x", "st"]))), ["status"]);
        let p = plan(&words(&["status", "--", ""]));
        assert_eq!(p.lookup, Some(Lookup::Runtimes));
        // Nothing after --help.
        assert!(plan(&words(&["--help", ""])).candidates.is_empty());
    }

    /// Completion knows values by their type, not by the names of the
    /// fields that hold them: a command line whose fields are all named
    /// otherwise completes the same.
    #[test]
    fn renamed_fields_complete_the_same() {
        use clap::{CommandFactory, Parser, Subcommand};

        #[derive(Parser)]
        struct Renamed {
            #[command(flatten)]
            global: GlobalFlags,
            #[command(subcommand)]
            command: RenamedCommand,
        }
        #[derive(Subcommand)]
        enum RenamedCommand {
            Inspect {
                runtime_to_inspect: Option<RuntimeName>,
                #[arg(long)]
                scope: Option<NamespaceName>,
                #[arg(long)]
                kube_context: Option<ContextName>,
                #[arg(long, value_enum)]
                printed_as: Option<crate::output::OutputFormat>,
            },
        }
        let cmd = Renamed::command();
        let renamed = |w: &[&str]| plan_with(&cmd, &words(w));
        assert_eq!(renamed(&["inspect", ""]).lookup, Some(Lookup::Runtimes));
        assert_eq!(
            renamed(&["inspect", "--scope", ""]).lookup,
            Some(Lookup::Namespaces)
        );
        assert_eq!(
            renamed(&["inspect", "--kube-context", ""]).lookup,
            Some(Lookup::Contexts)
        );
        assert_eq!(
            values(&renamed(&["inspect", "--printed-as", ""])),
            ["json", "yaml"]
        );
        let p = renamed(&["-n", "ai", "inspect", "x", "--scope", "s"]);
        assert_eq!(p.flags.namespace.as_deref(), Some("ai"));
        assert_eq!(p.lookup, Some(Lookup::Namespaces));
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
