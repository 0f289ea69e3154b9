//! The command line: standard kubectl flags after the plugin name, one
//! subcommand per command file, and flag values checked before any request.
//! Help texts end with the exit codes of [`crate::exit`].

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::ops::Deref;
use std::path::{Path, PathBuf};

use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand, ValueHint};

use crate::connection::ConnectionFlags;
use crate::exit;
use crate::output::ColorChoice;

// Each command's arguments and help text live in its module; this one was
// here before and `tests/completions.rs` still imports it from here.
pub use crate::commands::completion::CompletionShell;

/// Look at and steer Trussium runtimes.
#[derive(Parser, Debug)]
#[command(
    name = "kubectl-trussium",
    version,
    about = "Look at and steer Trussium runtimes (TrussiumRuntime objects)",
    propagate_version = true,
    subcommand_required = true,
    arg_required_else_help = true
)]
pub struct Cli {
    #[command(flatten, next_help_heading = "Global options")]
    pub global: GlobalFlags,

    #[command(subcommand)]
    pub command: Command,
}

/// kubectl's standard flags, accepted anywhere after the plugin name.
#[derive(Args, Debug, Clone, Default, PartialEq, Eq)]
pub struct GlobalFlags {
    /// Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)
    #[arg(long, global = true, value_name = "PATH", value_hint = ValueHint::FilePath)]
    pub kubeconfig: Option<PathBuf>,

    /// The kubeconfig context to use
    #[arg(long, global = true, value_name = "NAME")]
    pub context: Option<ContextName>,

    /// Namespace of the runtime (default: the context's namespace); for install and
    /// uninstall, the operator's own (default: trussium-system)
    #[arg(short = 'n', long, global = true, value_name = "NAMESPACE")]
    pub namespace: Option<NamespaceName>,

    /// List runtimes across all namespaces
    #[arg(short = 'A', long, global = true)]
    pub all_namespaces: bool,

    /// When to use colours (auto: only on a terminal, and never with NO_COLOR set)
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto, value_name = "WHEN")]
    pub color: ColorChoice,

    #[command(flatten)]
    pub connection: ConnectionFlags,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Show one runtime in detail, or list the runtimes of a namespace
    #[command(after_help = crate::commands::status::HELP)]
    Status(crate::commands::status::StatusArgs),

    /// Create a runtime from flags (or print it with --dry-run), and optionally wait until it is Ready
    #[command(after_help = crate::commands::create::HELP)]
    Create(crate::commands::create::CreateArgs),

    /// Change the runtime image to a new tag or digest, and optionally wait for the rollout
    #[command(after_help = crate::commands::upgrade::HELP)]
    Upgrade(crate::commands::upgrade::UpgradeArgs),

    /// Go back to an earlier image (by default the one before the current), and optionally wait
    #[command(after_help = crate::commands::rollback::HELP)]
    Rollback(crate::commands::rollback::RollbackArgs),

    /// List the images a runtime has run, newest first
    #[command(after_help = crate::commands::history::HELP)]
    History(crate::commands::history::HistoryArgs),

    /// Set the number of runtime replicas (0 scales the runtime down)
    #[command(after_help = crate::commands::scale::HELP)]
    Scale(crate::commands::scale::ScaleArgs),

    /// Roll the runtime's pods (declaratively, through the operator), and optionally wait
    #[command(after_help = crate::commands::restart::HELP)]
    Restart(crate::commands::restart::RestartArgs),

    /// Suspend a runtime: the operator changes none of its objects until it is resumed
    #[command(after_help = crate::commands::suspend::HELP)]
    Suspend(crate::commands::suspend::SuspendArgs),

    /// Resume a suspended runtime: the operator puts its objects back to the spec
    #[command(after_help = crate::commands::resume::HELP)]
    Resume(crate::commands::resume::ResumeArgs),

    /// Show the runtime's Events, oldest first
    #[command(after_help = crate::commands::events::HELP)]
    Events(crate::commands::events::EventsArgs),

    /// Say why a runtime is not Ready: the root cause first, with the next step, then the evidence
    #[command(after_help = crate::commands::diagnose::HELP)]
    Diagnose(crate::commands::diagnose::DiagnoseArgs),

    /// Print the runtime container's log from every pod, each line prefixed with its pod; -f follows
    #[command(after_help = crate::commands::logs::HELP)]
    Logs(crate::commands::logs::LogsArgs),

    /// Check the cluster, the CRD, the operator, its leader and your access; say what to fix
    #[command(after_help = crate::commands::check::HELP)]
    Check(crate::commands::check::CheckArgs),

    /// Install (or upgrade) the CRD and the operator of this plugin's version
    #[command(after_help = crate::commands::install::HELP)]
    Install(crate::commands::install::InstallArgs),

    /// Remove the operator; the CRD and the runtimes stay
    #[command(after_help = crate::commands::uninstall::HELP)]
    Uninstall(crate::commands::uninstall::UninstallArgs),

    /// Rewrite every runtime in the CRD's storage version, so older versions can be dropped
    #[command(after_help = crate::commands::migrate::HELP)]
    Migrate(crate::commands::migrate::MigrateArgs),

    /// Print a shell completion script
    #[command(after_help = crate::commands::completion::HELP)]
    Completion(crate::commands::completion::CompletionArgs),

    /// Print the plugin's version and platform
    Version,
}

/// A TrussiumRuntime's name. Its own type so that completion offers the
/// runtimes of the cluster wherever one is asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuntimeName(pub String);

/// A namespace's name (completion offers the cluster's namespaces).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NamespaceName(pub String);

/// A kubeconfig context's name (completion offers the kubeconfig's contexts).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContextName(pub String);

/// A kubeconfig cluster's name (completion offers the kubeconfig's clusters).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClusterName(pub String);

/// A kubeconfig user's name (completion offers the kubeconfig's users).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UserName(pub String);

macro_rules! name_type {
    ($($name:ident),*) => {$(
        impl From<String> for $name {
            fn from(value: String) -> Self {
                $name(value)
            }
        }

        impl Deref for $name {
            type Target = str;
            fn deref(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }
    )*};
}
name_type!(
    RuntimeName,
    NamespaceName,
    ContextName,
    ClusterName,
    UserName
);

/// The clap command, as used for help, for completion and for generating
/// completion scripts and reference docs: every help text ends with the exit
/// codes that command can end with.
pub fn command() -> clap::Command {
    let mut cmd = Cli::command().after_help(exit::help(None));
    let names: Vec<String> = cmd
        .get_subcommands()
        .map(|sub| sub.get_name().to_string())
        .collect();
    for name in names {
        cmd = cmd.mut_subcommand(&name, |sub| {
            let codes = exit::help(Some(&name));
            let text = match sub.get_after_help() {
                Some(before) => format!("{before}\n\n{codes}"),
                None => codes,
            };
            sub.after_help(text)
        });
    }
    cmd
}

/// Parses `args` (argv, program name first), printing `display_name` in help.
pub fn parse(display_name: &str, args: Vec<OsString>) -> Result<Cli, clap::Error> {
    let mut cmd = command()
        .bin_name(display_name.to_string())
        .display_name(display_name.to_string());
    let matches = cmd.try_get_matches_from_mut(args)?;
    Cli::from_arg_matches(&matches).map_err(|e| e.format(&mut cmd))
}

/// `kubectl trussium` when run as a kubectl plugin (argv[0] keeps the
/// `kubectl-trussium` file name, also through krew's symlink), the file name
/// otherwise.
pub fn display_name(argv0: Option<&OsStr>) -> String {
    let file = argv0
        .map(Path::new)
        .and_then(Path::file_name)
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_else(|| "kubectl-trussium".to_string());
    let file = file.strip_suffix(".exe").unwrap_or(&file).to_string();
    match file.strip_prefix("kubectl-") {
        // kubectl maps `kubectl foo-bar` to kubectl-foo_bar.
        Some(plugin) => format!("kubectl {}", plugin.replace('-', " ").replace('_', "-")),
        None => file,
    }
}

/// Parses `args` (what follows the program name) as `kubectl trussium`: for
/// the tests of the commands' flags.
#[cfg(test)]
pub(crate) fn try_parse(args: &[&str]) -> Result<Cli, clap::Error> {
    let mut argv = vec![OsString::from("kubectl-trussium")];
    argv.extend(args.iter().map(OsString::from));
    parse("kubectl trussium", argv)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_name_from_argv0() {
        let name = |s: &str| display_name(Some(OsStr::new(s)));
        assert_eq!(name("/usr/local/bin/kubectl-trussium"), "kubectl trussium");
        assert_eq!(
            name("/home/me/.krew/bin/kubectl-trussium"),
            "kubectl trussium"
        );
        assert_eq!(name("kubectl-trussium.exe"), "kubectl trussium");
        assert_eq!(name("./target/debug/trussium-dev"), "trussium-dev");
        assert_eq!(display_name(None), "kubectl trussium");
    }

    #[test]
    fn help_uses_the_display_name_and_lists_exit_codes() {
        let Err(e) = try_parse(&["--help"]) else {
            panic!("--help must stop parsing");
        };
        let help = e.render().to_string();
        assert!(help.contains("Usage: kubectl trussium"), "{help}");
        assert!(help.trim_end().ends_with(&exit::help(None)), "{help}");
    }

    #[test]
    fn each_command_lists_its_own_exit_codes_after_its_examples() {
        let Err(e) = try_parse(&["rollback", "--help"]) else {
            panic!("--help must stop parsing");
        };
        let help = e.render().to_string();
        assert!(help.contains("Examples:\n"), "{help}");
        assert!(
            help.trim_end().ends_with(&exit::help(Some("rollback"))),
            "{help}"
        );
        let Err(e) = try_parse(&["version", "--help"]) else {
            panic!("--help must stop parsing");
        };
        let help = e.render().to_string();
        assert!(
            help.trim_end().ends_with(&exit::help(Some("version"))),
            "{help}"
        );
    }

    #[test]
    fn the_exit_table_names_only_real_commands() {
        let cmd = command();
        for row in exit::TABLE {
            for name in row.commands {
                assert!(
                    cmd.find_subcommand(name).is_some(),
                    "exit code {} names {name:?}, which is no command",
                    row.exit.code()
                );
            }
        }
    }

    #[test]
    fn global_flags_after_the_subcommand() {
        let cli = try_parse(&[
            "status",
            "rt",
            "-n",
            "ai",
            "--context",
            "c",
            "--kubeconfig",
            "/k",
        ])
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(cli.global.namespace.as_deref(), Some("ai"));
        assert_eq!(cli.global.context.as_deref(), Some("c"));
        assert_eq!(cli.global.kubeconfig, Some(PathBuf::from("/k")));
        let cli = try_parse(&["-A", "status"]).unwrap_or_else(|e| panic!("{e}"));
        assert!(cli.global.all_namespaces);
    }

    #[test]
    fn the_namespace_help_names_the_manifests_default() {
        let namespace = crate::manifests::default_namespace().unwrap_or_default();
        let cmd = command();
        let help = cmd
            .get_arguments()
            .find(|a| a.get_short() == Some('n'))
            .and_then(|a| a.get_help())
            .map(|h| h.to_string())
            .unwrap_or_default();
        assert!(help.contains(&format!("(default: {namespace})")), "{help}");
        for sub in ["install", "uninstall", "check"] {
            let text = cmd
                .find_subcommand(sub)
                .and_then(|s| s.get_after_help())
                .map(|h| h.to_string())
                .unwrap_or_default();
            assert!(
                text.contains(&format!("default: {namespace}")),
                "{sub}: {text}"
            );
        }
    }

    #[test]
    fn clap_definition_is_consistent() {
        command().debug_assert();
    }

    /// The reference docs and man pages are generated from these texts.
    #[test]
    fn every_command_and_flag_says_what_it_does() {
        let mut cmd = command();
        cmd.build();
        for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
            assert!(sub.get_about().is_some(), "{} has no about", sub.get_name());
            for arg in sub.get_arguments().filter(|a| !a.is_hide_set()) {
                assert!(
                    arg.get_help().is_some(),
                    "{} {} has no help",
                    sub.get_name(),
                    arg.get_id()
                );
            }
        }
    }
}
