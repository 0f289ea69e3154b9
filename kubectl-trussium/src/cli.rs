//! The command line: standard kubectl flags after the plugin name, one
//! subcommand per command file, and flag values checked before any request.
//! Help texts end with the exit codes of [`crate::exit`].

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::{
    ArgGroup, Args, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum, ValueHint,
};
use trussium_api::duration;
use trussium_api::image::{check_digest, check_tag};
use trussium_api::validation::MAX_REPLICAS;

use crate::connection::ConnectionFlags;
use crate::exit;
use crate::output::{ColorChoice, OutputFormat};

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
    #[command(
        after_help = "Examples:\n  kubectl trussium status\n  kubectl trussium status -A\n  kubectl trussium status private-ai -n ai\n  kubectl trussium status private-ai --watch\n  kubectl trussium status -o json | jq '.items[].status'"
    )]
    Status(StatusArgs),

    /// Change the runtime image to a new tag or digest, and optionally wait for the rollout
    #[command(
        after_help = "Only spec.image changes: --digest removes the tag and --tag removes the digest.\n\nExamples:\n  kubectl trussium upgrade private-ai --tag v1.23.0\n  kubectl trussium upgrade private-ai --digest sha256:<64 hex> --wait --timeout 10m"
    )]
    Upgrade(UpgradeArgs),

    /// Go back to an earlier image (by default the one before the current), and optionally wait
    #[command(after_help = ROLLBACK_HELP)]
    Rollback(RollbackArgs),

    /// List the images a runtime has run, newest first
    #[command(after_help = HISTORY_HELP)]
    History(HistoryArgs),

    /// Set the number of runtime replicas (0 scales the runtime down)
    #[command(
        after_help = "While spec.autoscaling.enabled is true the HorizontalPodAutoscaler owns the\nreplica count: scale refuses and says what to do instead;\n--force sets spec.replicas anyway, to take effect once autoscaling is disabled.\n\nExamples:\n  kubectl trussium scale private-ai --replicas 3\n  kubectl trussium scale private-ai --replicas 0"
    )]
    Scale(ScaleArgs),

    /// Show the runtime's Events, oldest first
    #[command(
        after_help = "Examples:\n  kubectl trussium events private-ai\n  kubectl trussium events private-ai --watch"
    )]
    Events(EventsArgs),

    /// Say why a runtime is not Ready: the root cause first, with the next step, then the evidence
    #[command(after_help = crate::commands::diagnose::HELP)]
    Diagnose(crate::commands::diagnose::DiagnoseArgs),

    /// Print the runtime container's log from every pod, each line prefixed with its pod; -f follows
    #[command(after_help = crate::commands::logs::HELP)]
    Logs(crate::commands::logs::LogsArgs),

    /// Check the cluster, the CRD, the operator, its leader and your access; say what to fix
    #[command(after_help = CHECK_HELP)]
    Check(CheckArgs),

    /// Install (or upgrade) the CRD and the operator of this plugin's version
    #[command(after_help = INSTALL_HELP)]
    Install(InstallArgs),

    /// Remove the operator; the CRD and the runtimes stay
    #[command(after_help = UNINSTALL_HELP)]
    Uninstall(UninstallArgs),

    /// Rewrite every runtime in the CRD's storage version, so older versions can be dropped
    #[command(after_help = MIGRATE_HELP)]
    Migrate(MigrateArgs),

    /// Print a shell completion script
    #[command(after_help = COMPLETION_HELP)]
    Completion(CompletionArgs),

    /// Print the plugin's version and platform
    Version,
}

const ROLLBACK_HELP: &str = "\
Sets spec.image to an earlier image; the operator rolls it out. By default:
after a failed (or unfinished) upgrade, status.lastSuccessfulImage; after a
completed one, the image before it (as `kubectl rollout undo`). --to-image
and --to-revision pick any image the runtime ran (see `history`). Nothing
changes, and the exit code says why, when there is no earlier image, when
the image is already the desired one, when the runtime never ran it, or
when the runtime is being deleted.

Examples:
  kubectl trussium rollback private-ai
  kubectl trussium rollback private-ai --wait --timeout 10m
  kubectl trussium rollback private-ai --to-revision 3
  kubectl trussium rollback private-ai --to-image v1.22.0";

const HISTORY_HELP: &str = "\
One line per revision of the runtime's Deployment (its ReplicaSets, as
`kubectl rollout history` reads them): the image, when that ReplicaSet was
created, and where its rollout stands. Kubernetes keeps no completion time
for earlier rollouts; the current one's is the Deployment's.

Examples:
  kubectl trussium history private-ai
  kubectl trussium history private-ai -o json";

const CHECK_HELP: &str = "\
One line per check, ✓ or ✗, and for each ✗ the next step: the cluster
answers; the CRD is installed at the plugin's version; the operator
Deployment is available and of the plugin's version; a leader holds a fresh
Lease; the operator watches the namespace (-n, default: the context's);
you may read and patch runtimes there. The operator is looked for in
--operator-namespace (default: trussium-system).

Examples:
  kubectl trussium check
  kubectl trussium check -n team-a
  kubectl trussium check -o json";

const INSTALL_HELP: &str = "\
Applies, with server-side apply (field manager kubectl-trussium), the
TrussiumRuntime CRD and the operator's manifests of this plugin's version:
the files its release ships (crds.yaml, install.yaml). -n/--namespace is the
operator's namespace (default: trussium-system), not the context's. Before
writing anything it checks your permissions and has the API server try every
object (a server-side dry run), so a refusal leaves nothing half applied. A
CRD of an older version is upgraded in place (runtimes keep running); a
newer one is refused.

Examples:
  kubectl trussium install --wait
  kubectl trussium install --watch-namespace team-a
  kubectl trussium install --image registry.example.com/mirror/trussium-operator
  kubectl trussium install -o yaml > trussium.yaml
  kubectl trussium install --dry-run=server";

const UNINSTALL_HELP: &str = "\
Deletes what install applied (the Deployment, its Service and
PodDisruptionBudget, the RBAC, the ServiceAccount) and the leader-election
Lease. The CRD, the runtimes and the namespace stay. -n/--namespace is the
operator's namespace (default: trussium-system). Refuses while runtimes exist
unless --force: they would keep serving, but nothing would manage them.

Examples:
  kubectl trussium uninstall
  kubectl trussium uninstall --force";

const MIGRATE_HELP: &str = "\
Rewrites every TrussiumRuntime in all namespaces once, as stored (guarded by
its resourceVersion: a runtime changed meanwhile is left to that change; no
spec, status or generation changes, no Event), then sets the CRD's
status.storedVersions to v1beta1, so that a later CRD may stop serving
v1alpha1. Needs get on customresourcedefinitions, list and update on
trussiumruntimes in all namespaces and patch on
customresourcedefinitions/status: your rights, not the operator's. Safe to
interrupt and run again; with nothing to migrate it writes nothing.
`install` runs it after applying the CRD; run it yourself after upgrading
the CRD with Helm or kustomize.

Examples:
  kubectl trussium migrate --dry-run
  kubectl trussium migrate";

const COMPLETION_HELP: &str = "\
`kubectl trussium <TAB>` (kubectl 1.26 or later) needs an executable named
kubectl_complete-trussium on PATH; `completion kubectl` prints it:

  kubectl trussium completion kubectl > ~/.local/bin/kubectl_complete-trussium
  chmod +x ~/.local/bin/kubectl_complete-trussium

It completes subcommands, flags, and runtime, namespace and context names.
The bash, zsh, fish and powershell scripts complete the kubectl-trussium
binary itself:

  source <(kubectl-trussium completion bash)";

#[derive(Args, Debug)]
pub struct StatusArgs {
    /// The runtime to show; without it, list the runtimes
    #[arg(value_name = "NAME")]
    pub name: Option<RuntimeName>,

    /// Keep watching and redraw when something changes
    #[arg(short = 'w', long)]
    pub watch: bool,

    /// Print machine-readable output instead of the view
    #[arg(short = 'o', long, value_enum, value_name = "FORMAT")]
    pub output: Option<OutputFormat>,
}

#[derive(Args, Debug)]
#[command(group(ArgGroup::new("image").required(true).args(["tag", "digest"])))]
pub struct UpgradeArgs {
    /// The runtime to upgrade
    #[arg(value_name = "NAME")]
    pub name: RuntimeName,

    /// New image tag (replaces a digest)
    #[arg(long, value_name = "TAG", value_parser = parse_tag, allow_hyphen_values = true)]
    pub tag: Option<String>,

    /// New image digest, sha256:<64 hex> (replaces a tag)
    #[arg(long, value_name = "DIGEST", value_parser = parse_digest, allow_hyphen_values = true)]
    pub digest: Option<String>,

    /// Follow the rollout until the operator reports the upgrade complete or failed
    #[arg(long)]
    pub wait: bool,

    /// How long --wait waits, e.g. 90s, 5m, 1h30m
    #[arg(long, value_name = "DURATION", default_value = "5m", value_parser = duration::parse, requires = "wait")]
    pub timeout: Duration,
}

impl UpgradeArgs {
    /// The requested change as an image selector.
    pub fn target(&self) -> ImageTarget {
        match (&self.tag, &self.digest) {
            (_, Some(digest)) => ImageTarget::Digest(digest.clone()),
            (Some(tag), None) => ImageTarget::Tag(tag.clone()),
            // The required ArgGroup makes this unreachable through clap.
            (None, None) => ImageTarget::Tag(String::new()),
        }
    }
}

#[derive(Args, Debug)]
pub struct RollbackArgs {
    /// The runtime to roll back
    #[arg(value_name = "NAME")]
    pub name: RuntimeName,

    /// Follow the rollout until the operator reports it complete or failed
    #[arg(long)]
    pub wait: bool,

    /// How long --wait waits, e.g. 90s, 5m, 1h30m
    #[arg(long, value_name = "DURATION", default_value = "5m", value_parser = duration::parse, requires = "wait")]
    pub timeout: Duration,

    /// Go back to this image the runtime ran: a full reference, or its tag or digest
    #[arg(
        long,
        value_name = "IMAGE",
        conflicts_with = "to_revision",
        allow_hyphen_values = true
    )]
    pub to_image: Option<String>,

    /// Go back to the image of this revision (see `history`)
    #[arg(long, value_name = "REVISION", value_parser = clap::value_parser!(i64).range(1..), allow_negative_numbers = true)]
    pub to_revision: Option<i64>,
}

#[derive(Args, Debug)]
pub struct HistoryArgs {
    /// The runtime whose history to show
    #[arg(value_name = "NAME")]
    pub name: RuntimeName,

    /// Print machine-readable output instead of the table
    #[arg(short = 'o', long, value_enum, value_name = "FORMAT")]
    pub output: Option<OutputFormat>,
}

#[derive(Args, Debug)]
pub struct CheckArgs {
    /// The namespace the operator is installed in (default: trussium-system)
    #[arg(long, value_name = "NAMESPACE")]
    pub operator_namespace: Option<NamespaceName>,

    /// Print machine-readable output instead of the checklist
    #[arg(short = 'o', long, value_enum, value_name = "FORMAT")]
    pub output: Option<OutputFormat>,
}

#[derive(Args, Debug)]
pub struct InstallArgs {
    /// Watch only this namespace (default: all); the operator's permissions become a
    /// Role there instead of a ClusterRole
    #[arg(long, value_name = "NAMESPACE", value_parser = parse_namespace)]
    pub watch_namespace: Option<NamespaceName>,

    /// Operator replicas (default: 2, a leader and a standby)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(i32).range(1..))]
    pub replicas: Option<i32>,

    /// Operator image, e.g. from a private registry: REPOSITORY[:TAG|@sha256:DIGEST]; a
    /// repository alone gets this version's tag
    #[arg(long, value_name = "IMAGE", value_parser = parse_image)]
    pub image: Option<String>,

    /// Print what would be applied (client), or also have the API server check every
    /// object without applying it (server)
    #[arg(long, value_enum, value_name = "MODE")]
    pub dry_run: Option<DryRun>,

    /// Print the objects instead of applying them (with --dry-run=server: as the API
    /// server would store them)
    #[arg(short = 'o', long, value_enum, value_name = "FORMAT")]
    pub output: Option<OutputFormat>,

    /// Wait until the operator is available
    #[arg(long, conflicts_with_all = ["dry_run", "output"])]
    pub wait: bool,

    /// How long --wait waits, e.g. 90s, 5m, 1h30m
    #[arg(long, value_name = "DURATION", default_value = "5m", value_parser = duration::parse, requires = "wait")]
    pub timeout: Duration,
}

/// `--dry-run`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum DryRun {
    /// Print what would be applied; no request to the cluster
    Client,
    /// Check permissions and have the API server dry-run every object
    Server,
}

#[derive(Args, Debug)]
pub struct UninstallArgs {
    /// Remove the operator even though runtimes exist (they keep serving, unmanaged)
    #[arg(long)]
    pub force: bool,
}

#[derive(Args, Debug)]
pub struct MigrateArgs {
    /// Say what would be rewritten, write nothing
    #[arg(long)]
    pub dry_run: bool,
}

/// A new tag or a new digest, never both.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImageTarget {
    Tag(String),
    Digest(String),
}

#[derive(Args, Debug)]
pub struct ScaleArgs {
    /// The runtime to scale
    #[arg(value_name = "NAME")]
    pub name: RuntimeName,

    /// The new replica count, 0 to 1000 (the API's bound)
    #[arg(long, value_name = "N", value_parser = parse_replicas, allow_negative_numbers = true)]
    pub replicas: i32,

    /// Set spec.replicas even while autoscaling owns the replica count
    #[arg(long)]
    pub force: bool,
}

#[derive(Args, Debug)]
pub struct EventsArgs {
    /// The runtime whose Events to show
    #[arg(value_name = "NAME")]
    pub name: RuntimeName,

    /// Keep watching and print new Events as they happen
    #[arg(short = 'w', long)]
    pub watch: bool,

    /// Print machine-readable output instead of the table
    #[arg(
        short = 'o',
        long,
        value_enum,
        value_name = "FORMAT",
        conflicts_with = "watch"
    )]
    pub output: Option<OutputFormat>,
}

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

fn parse_tag(value: &str) -> Result<String, String> {
    check_tag(value).map_err(|e| e.to_string())?;
    Ok(value.to_string())
}

fn parse_digest(value: &str) -> Result<String, String> {
    check_digest(value).map_err(|e| e.to_string())?;
    Ok(value.to_string())
}

fn parse_image(value: &str) -> Result<String, String> {
    crate::manifests::check_image(value)?;
    Ok(value.to_string())
}

/// A namespace name as Kubernetes allows it (an RFC 1123 label).
fn parse_namespace(value: &str) -> Result<NamespaceName, String> {
    let valid = !value.is_empty()
        && value.len() <= 63
        && value
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && !value.starts_with('-')
        && !value.ends_with('-');
    if !valid {
        return Err(format!(
            "invalid namespace {value:?}: at most 63 lowercase letters, digits and '-', starting and ending with a letter or digit"
        ));
    }
    Ok(NamespaceName(value.to_string()))
}

fn parse_replicas(value: &str) -> Result<i32, String> {
    let n: i64 = value
        .trim()
        .parse()
        .map_err(|_| format!("{value:?} is not a whole number"))?;
    if n < 0 {
        return Err(format!(
            "replicas must be 0 or more (got {n}); use 0 to scale the runtime down"
        ));
    }
    if n > i64::from(MAX_REPLICAS) {
        return Err(format!(
            "replicas must be at most {MAX_REPLICAS} (got {n}), the most the API allows"
        ));
    }
    i32::try_from(n).map_err(|_| format!("{n} replicas is more than the API allows"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIGEST: &str = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    fn try_parse(args: &[&str]) -> Result<Cli, clap::Error> {
        let mut argv = vec![OsString::from("kubectl-trussium")];
        argv.extend(args.iter().map(OsString::from));
        parse("kubectl trussium", argv)
    }

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
    fn upgrade_needs_exactly_one_of_tag_and_digest() {
        assert!(try_parse(&["upgrade", "rt"]).is_err());
        assert!(try_parse(&["upgrade", "rt", "--tag", "v1", "--digest", DIGEST]).is_err());
        let cli =
            try_parse(&["upgrade", "rt", "--digest", DIGEST]).unwrap_or_else(|e| panic!("{e}"));
        let Command::Upgrade(args) = cli.command else {
            panic!("not upgrade");
        };
        assert_eq!(args.target(), ImageTarget::Digest(DIGEST.into()));
        assert_eq!(args.timeout, Duration::from_secs(300));
    }

    #[test]
    fn invalid_tag_and_digest_are_usage_errors() {
        for args in [
            &["upgrade", "rt", "--tag", "-bad"][..],
            &["upgrade", "rt", "--tag", "v1/2"][..],
            &["upgrade", "rt", "--digest", "sha256:abc"][..],
            &["upgrade", "rt", "--digest", "v1.2"][..],
        ] {
            let err = try_parse(args)
                .err()
                .unwrap_or_else(|| panic!("{args:?} accepted"));
            assert_eq!(err.exit_code(), 2, "{args:?}");
        }
        let err = try_parse(&["upgrade", "rt", "--digest", "sha256:abc"])
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(err.contains("64 lowercase hexadecimal"), "{err}");
        // A tag that starts with '-' is a bad tag, not an unknown flag.
        let err = try_parse(&["upgrade", "rt", "--tag", "-x"])
            .err()
            .unwrap_or_else(|| panic!("-x accepted"));
        assert_eq!(err.exit_code(), 2);
        assert!(err.to_string().contains("invalid tag \"-x\""), "{err}");
    }

    #[test]
    fn a_negative_revision_is_out_of_range() {
        for revision in ["-1", "0"] {
            let err = try_parse(&["rollback", "rt", "--to-revision", revision])
                .err()
                .unwrap_or_else(|| panic!("{revision} accepted"));
            assert_eq!(err.exit_code(), 2);
            let text = err.to_string();
            assert!(
                text.contains(&format!(
                    "invalid value '{revision}' for '--to-revision <REVISION>'"
                )) && text.contains("not in 1.."),
                "{text}"
            );
        }
    }

    #[test]
    fn timeout_requires_wait() {
        assert!(try_parse(&["upgrade", "rt", "--tag", "v1", "--timeout", "1m"]).is_err());
        assert!(try_parse(&["upgrade", "rt", "--tag", "v1", "--wait", "--timeout", "1m"]).is_ok());
        assert!(
            try_parse(&[
                "upgrade",
                "rt",
                "--tag",
                "v1",
                "--wait",
                "--timeout",
                "soon"
            ])
            .is_err()
        );
    }

    #[test]
    fn rollback_takes_a_name_and_wait_like_upgrade() {
        let cli = try_parse(&["rollback", "rt", "--wait", "--timeout", "90s"])
            .unwrap_or_else(|e| panic!("{e}"));
        let Command::Rollback(args) = cli.command else {
            panic!("not rollback");
        };
        assert_eq!(&*args.name, "rt");
        assert!(args.wait);
        assert_eq!(args.timeout, Duration::from_secs(90));
        assert!(try_parse(&["rollback"]).is_err());
        assert!(try_parse(&["rollback", "rt", "--timeout", "1m"]).is_err());
    }

    #[test]
    fn rollback_picks_an_image_or_a_revision_not_both() {
        let cli =
            try_parse(&["rollback", "rt", "--to-revision", "3"]).unwrap_or_else(|e| panic!("{e}"));
        let Command::Rollback(args) = cli.command else {
            panic!("not rollback");
        };
        assert_eq!(args.to_revision, Some(3));
        assert!(try_parse(&["rollback", "rt", "--to-revision", "0"]).is_err());
        assert!(try_parse(&["rollback", "rt", "--to-image", "v1", "--to-revision", "2"]).is_err());
    }

    #[test]
    fn install_flags_are_checked_before_anything_is_sent() {
        let cli = try_parse(&[
            "install",
            "-n",
            "ops",
            "--watch-namespace",
            "team-a",
            "--replicas",
            "3",
            "--image",
            "registry.example.com/op",
            "-o",
            "yaml",
        ])
        .unwrap_or_else(|e| panic!("{e}"));
        let Command::Install(args) = cli.command else {
            panic!("not install");
        };
        assert_eq!(args.watch_namespace.as_deref(), Some("team-a"));
        assert_eq!(args.replicas, Some(3));
        assert_eq!(cli.global.namespace.as_deref(), Some("ops"));
        for bad in [
            &["install", "--replicas", "0"][..],
            &["install", "--watch-namespace", "Team_A"],
            &["install", "--image", "Registry/Op"],
            &["install", "--image", "r/op:-bad"],
            &["install", "--dry-run", "maybe"],
            &["install", "-o", "yaml", "--wait"],
            &["install", "--dry-run=server", "--wait"],
            &["install", "--timeout", "1m"],
        ] {
            let err = try_parse(bad)
                .err()
                .unwrap_or_else(|| panic!("{bad:?} accepted"));
            assert_eq!(err.exit_code(), 2, "{bad:?}");
        }
        assert!(try_parse(&["install", "--dry-run=client", "-o", "json"]).is_ok());
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
    fn replicas_zero_allowed_negative_refused() {
        let cli = try_parse(&["scale", "rt", "--replicas", "0"]).unwrap_or_else(|e| panic!("{e}"));
        let Command::Scale(args) = cli.command else {
            panic!("not scale");
        };
        assert_eq!(args.replicas, 0);
        let err = try_parse(&["scale", "rt", "--replicas", "-1"])
            .err()
            .unwrap_or_else(|| panic!("-1 accepted"));
        assert_eq!(err.exit_code(), 2);
        assert!(
            err.to_string().contains("replicas must be 0 or more"),
            "{err}"
        );
        assert!(try_parse(&["scale", "rt", "--replicas", "two"]).is_err());
        assert!(try_parse(&["scale", "rt"]).is_err());
        let max = MAX_REPLICAS.to_string();
        assert!(try_parse(&["scale", "rt", "--replicas", &max]).is_ok());
        for over in ["1001", "2147483647", "99999999999"] {
            let err = try_parse(&["scale", "rt", "--replicas", over])
                .err()
                .unwrap_or_else(|| panic!("{over} accepted"));
            assert_eq!(err.exit_code(), 2, "{over}");
            assert!(
                err.to_string().contains("replicas must be at most 1000"),
                "{err}"
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
