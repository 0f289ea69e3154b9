//! Command-line reference pages, generated from a clap `Command` by walking
//! its tree: every visible command, argument and flag, with its values,
//! default, environment variable and help, in the order clap shows them. A
//! command added to the code appears here by itself.

use std::fmt::Write;

use clap::{Arg, ArgAction, Command};

/// How a program's reference page is titled and introduced.
pub struct Page<'a> {
    pub title: &'a str,
    /// How people type the program (`kubectl trussium`).
    pub invoked_as: &'a str,
    /// Where the page is generated from, named in its header.
    pub source: &'a str,
    /// A paragraph after the title.
    pub introduction: &'a str,
}

/// The page, as Markdown: one section per command, depth first.
pub fn render(page: &Page, command: Command) -> String {
    let mut root = command
        .bin_name(page.invoked_as)
        .display_name(page.invoked_as);
    root.build();
    let mut out = String::new();
    let _ = writeln!(out, "# {}\n", page.title);
    let _ = writeln!(
        out,
        "<!-- Generated from {} by `make generate` (docs/tool); do not edit. -->\n",
        page.source
    );
    let _ = writeln!(out, "{}\n", page.introduction.trim());
    section(&mut out, &root, page.invoked_as, true);
    out.trim_end().to_string() + "\n"
}

/// The commands under `command` that people see (not clap's `help`), depth
/// first, each with the words that invoke it.
pub fn visible_commands(command: &Command, invoked_as: &str) -> Vec<(String, Command)> {
    let mut out = Vec::new();
    for sub in command.get_subcommands() {
        if sub.is_hide_set() || is_generated_help(command, sub) {
            continue;
        }
        let words = format!("{invoked_as} {}", sub.get_name());
        out.push((words.clone(), sub.clone()));
        out.extend(visible_commands(sub, &words));
    }
    out
}

/// clap adds a `help` subcommand to every command that has subcommands.
fn is_generated_help(parent: &Command, sub: &Command) -> bool {
    sub.get_name() == "help" && !parent.is_disable_help_subcommand_set()
}

/// The anchor of a command's section: `kubectl trussium status` → `kubectl-trussium-status`.
pub fn anchor(words: &str) -> String {
    words.split_whitespace().collect::<Vec<_>>().join("-")
}

fn section(out: &mut String, command: &Command, words: &str, root: bool) {
    let level = if root { "##" } else { "###" };
    let _ = writeln!(out, "{level} `{words}` {{#{}}}\n", anchor(words));
    let about = command
        .get_long_about()
        .or(command.get_about())
        .map(|a| a.to_string());
    if let Some(about) = about {
        let _ = writeln!(out, "{}\n", sentence(&about));
    }
    let _ = writeln!(out, "```text\n{}\n```\n", usage(command, words));

    let subcommands = visible_commands_here(command);
    if !subcommands.is_empty() {
        let _ = writeln!(out, "| Command | What it does |\n|---|---|");
        for sub in &subcommands {
            let sub_words = format!("{words} {}", sub.get_name());
            let _ = writeln!(
                out,
                "| [`{}`](#{}) | {} |",
                sub.get_name(),
                anchor(&sub_words),
                sub.get_about()
                    .map(|a| sentence(&a.to_string()))
                    .unwrap_or_default()
            );
        }
        out.push('\n');
    }

    // Globals are listed once, under the command that declares them; so is
    // --version, which clap repeats under every command.
    let args: Vec<&Arg> = command
        .get_arguments()
        .filter(|a| !a.is_hide_set() && (root || !a.is_global_set()))
        .filter(|a| match a.get_action() {
            ArgAction::Help | ArgAction::HelpShort | ArgAction::HelpLong => false,
            ArgAction::Version => root,
            _ => true,
        })
        .collect();
    let positionals: Vec<&Arg> = args.iter().copied().filter(|a| a.is_positional()).collect();
    if !positionals.is_empty() {
        let _ = writeln!(out, "| Argument | Description |\n|---|---|");
        for arg in positionals {
            let _ = writeln!(out, "| `{}` | {} |", value_name(arg), describe(arg));
        }
        out.push('\n');
    }
    for (heading, global) in [("Option", false), ("Global option", true)] {
        let flags: Vec<&Arg> = args
            .iter()
            .copied()
            .filter(|a| !a.is_positional() && a.is_global_set() == global)
            .collect();
        if flags.is_empty() {
            continue;
        }
        let _ = writeln!(out, "| {heading} | Description |\n|---|---|");
        for arg in flags {
            let _ = writeln!(out, "| {} | {} |", flag_spelling(arg), describe(arg));
        }
        out.push('\n');
    }
    if let Some(after) = command.get_after_long_help().or(command.get_after_help()) {
        let _ = writeln!(out, "```text\n{}\n```\n", after.to_string().trim_end());
    }
    for sub in subcommands {
        let sub_words = format!("{words} {}", sub.get_name());
        section(out, sub, &sub_words, false);
    }
}

fn visible_commands_here(command: &Command) -> Vec<&Command> {
    command
        .get_subcommands()
        .filter(|s| !s.is_hide_set() && !is_generated_help(command, s))
        .collect()
}

fn usage(command: &Command, words: &str) -> String {
    let mut command = command.clone().bin_name(words);
    let rendered = command.render_usage().to_string();
    rendered
        .strip_prefix("Usage: ")
        .unwrap_or(&rendered)
        .to_string()
}

fn value_name(arg: &Arg) -> String {
    arg.get_value_names()
        .map(|names| {
            names
                .iter()
                .map(|n| n.to_string())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_else(|| arg.get_id().to_string().to_uppercase())
}

/// `-n, --namespace <NAMESPACE>`, as a code span.
fn flag_spelling(arg: &Arg) -> String {
    let mut names = Vec::new();
    if let Some(short) = arg.get_short() {
        names.push(format!("-{short}"));
    }
    if let Some(long) = arg.get_long() {
        names.push(format!("--{long}"));
    }
    let mut spelling = names.join(", ");
    if arg.get_action().takes_values() {
        let value = value_name(arg);
        if arg.is_require_equals_set() {
            spelling.push_str(&format!("[={value}]"));
        } else {
            spelling.push_str(&format!(" <{value}>"));
        }
    }
    format!("`{spelling}`")
}

/// The help text, then what values it takes, its default and environment variable.
fn describe(arg: &Arg) -> String {
    let help = arg
        .get_long_help()
        .or(arg.get_help())
        .map(|h| sentence(&h.to_string()))
        .unwrap_or_default();
    let mut parts = vec![help];
    let values: Vec<String> = arg
        .get_possible_values()
        .iter()
        .filter(|v| !v.is_hide_set())
        .map(|v| match v.get_help() {
            Some(help) => format!(
                "`{}` ({})",
                v.get_name(),
                help.to_string().trim_end_matches('.')
            ),
            None => format!("`{}`", v.get_name()),
        })
        .collect();
    if !values.is_empty() && arg.get_action().takes_values() {
        parts.push(format!("One of {}.", values.join(", ")));
    }
    let defaults: Vec<String> = arg
        .get_default_values()
        .iter()
        .map(|v| v.to_string_lossy().into_owned())
        .collect();
    if !defaults.is_empty() && arg.get_action().takes_values() {
        parts.push(format!("Default `{}`.", defaults.join(",")));
    }
    if let Some(env) = arg.get_env() {
        parts.push(format!("Environment variable `{}`.", env.to_string_lossy()));
    }
    if arg.is_required_set() {
        parts.push("Required.".to_string());
    }
    parts
        .into_iter()
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
        .replace('|', "\\|")
}

/// Help text as one line ending with a full stop.
fn sentence(text: &str) -> String {
    let joined = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if joined.is_empty() || joined.ends_with(['.', '!', '?', ':']) {
        joined
    } else {
        format!("{joined}.")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{Parser, Subcommand, ValueEnum};

    #[derive(Parser)]
    #[command(name = "tool", about = "Does things")]
    struct Cli {
        /// Where the config is
        #[arg(long, global = true, env = "TOOL_CONFIG", value_name = "PATH")]
        config: Option<String>,
        #[command(subcommand)]
        command: Sub,
    }

    #[derive(Subcommand)]
    enum Sub {
        /// Shows a thing
        #[command(after_help = "Examples:\n  tool show x")]
        Show {
            /// The thing
            #[arg(value_name = "NAME")]
            name: String,
            /// Output format
            #[arg(short = 'o', long, value_enum, default_value_t = Format::Text)]
            output: Format,
        },
        #[command(hide = true)]
        Secret,
    }

    #[derive(ValueEnum, Clone)]
    enum Format {
        Text,
        /// Machine-readable
        Json,
    }

    fn page() -> String {
        use clap::CommandFactory;
        render(
            &Page {
                title: "tool reference",
                invoked_as: "tool",
                source: "src/cli.rs",
                introduction: "Intro.",
            },
            Cli::command(),
        )
    }

    #[test]
    fn every_visible_command_and_flag() {
        let page = page();
        assert!(
            page.contains("## `tool` {#tool}\n\nDoes things.\n"),
            "{page}"
        );
        assert!(
            page.contains("| [`show`](#tool-show) | Shows a thing. |"),
            "{page}"
        );
        assert!(page.contains("| Global option | Description |"), "{page}");
        assert!(
            page.contains(
                "| `--config <PATH>` | Where the config is. Environment variable `TOOL_CONFIG`. |"
            ),
            "{page}"
        );
        assert!(page.contains("### `tool show` {#tool-show}"), "{page}");
        assert!(page.contains("tool show [OPTIONS] <NAME>"), "{page}");
        assert!(page.contains("| `NAME` | The thing. Required. |"), "{page}");
        assert!(page.contains("| `-o, --output <OUTPUT>` | Output format. One of `text`, `json` (Machine-readable). Default `text`. |"), "{page}");
        assert!(page.contains("Examples:\n  tool show x"), "{page}");
        // Hidden commands, clap's help command and a global repeated under each command are left out.
        assert!(!page.contains("secret"), "{page}");
        assert!(!page.contains("`tool help`"), "{page}");
        assert_eq!(page.matches("--config <PATH>").count(), 1, "{page}");
    }

    #[test]
    fn commands_in_depth_first_order() {
        use clap::CommandFactory;
        let names: Vec<String> = visible_commands(&Cli::command(), "tool")
            .into_iter()
            .map(|(words, _)| words)
            .collect();
        assert_eq!(names, ["tool show"]);
    }
}
