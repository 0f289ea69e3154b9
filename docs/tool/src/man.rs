//! The plugin's man pages (roff), from its clap definitions with clap_mangen:
//! one page for `kubectl-trussium` and one per command
//! (`kubectl-trussium-status.1`, as git names its own). They ship in the
//! release archives (`scripts/release.sh`).

use clap::Command;

use crate::Error;
use crate::cli_reference::visible_commands;

/// Where the pages are committed, relative to the repository's root.
pub const DIR: &str = "docs/man";

/// `(file name, contents)` of every page. `program` is the executable's
/// name (`kubectl-trussium`), `invoked_as` how people type it (`kubectl trussium`).
///
/// The pages carry no version and no date, so that they change only when the
/// command line does (a release does not make them stale).
pub fn pages(
    root: Command,
    program: &str,
    invoked_as: &str,
) -> Result<Vec<(String, Vec<u8>)>, Error> {
    // No page for clap's `help` command, as clap_mangen's own generate_to.
    // NAME says the page's name (what `man -k` finds), SYNOPSIS how people
    // type it.
    let mut root = root
        .bin_name(invoked_as)
        .display_name(program)
        .disable_help_subcommand(true);
    root.build();
    let mut out = vec![(
        format!("{program}.1"),
        render(root.clone(), program, program)?,
    )];
    for (words, command) in visible_commands(&root, invoked_as) {
        let name = words.replacen(invoked_as, program, 1).replace(' ', "-");
        let command = command
            .name(name.clone())
            .bin_name(words)
            .display_name(name.clone());
        out.push((format!("{name}.1"), render(command, &name, program)?));
    }
    Ok(out)
}

fn render(command: Command, name: &str, source: &str) -> Result<Vec<u8>, Error> {
    let command = command.version(None::<&str>).long_version(None::<&str>);
    let mut buffer = Vec::new();
    clap_mangen::Man::new(command)
        .title(name.to_uppercase())
        .source(source)
        .manual("kubectl trussium")
        .render(&mut buffer)
        .map_err(|source| Error::Io {
            path: format!("{name}.1"),
            source,
        })?;
    Ok(buffer)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_page_per_command_named_like_git_s() -> Result<(), Error> {
        let root = Command::new("tool")
            .version("1.2.3")
            .about("Does things")
            .subcommand(Command::new("show").about("Shows a thing"))
            .subcommand(Command::new("secret").hide(true));
        let pages = pages(root, "kubectl-tool", "kubectl tool")?;
        let names: Vec<&str> = pages.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["kubectl-tool.1", "kubectl-tool-show.1"]);
        let show = String::from_utf8_lossy(&pages[1].1).into_owned();
        assert!(show.contains(".TH KUBECTL-TOOL-SHOW 1"), "{show}");
        assert!(
            show.contains(".SH NAME\nkubectl\\-tool\\-show \\- Shows a thing"),
            "{show}"
        );
        assert!(show.contains("\\fBkubectl tool show\\fR"), "{show}");
        assert!(!show.contains("1.2.3"), "no version in a page: {show}");
        Ok(())
    }
}
