//! `kubectl trussium`: look at and steer Trussium runtimes.
//!
//! One file per command under [`commands`] (no command imports another); the
//! pieces they share (flags and the client and its TLS, errors, the exit
//! codes, what a status means, a runtime's Events and its rollout history,
//! following a rollout, the install manifests and the objects in them, what
//! the user may do, colours, tables, ages) are small modules of their own. Rendering is pure (`fn render_…(…) -> String`) so it is
//! unit-tested without a cluster.

pub mod access;
pub mod age;
pub mod cli;
pub mod client;
pub mod commands;
pub mod connection;
pub mod diagnosis;
pub mod dynamic;
pub mod error;
pub mod exit;
pub mod fetched;
pub mod follow;
pub mod interpret;
pub mod manifests;
pub mod migration;
pub mod output;
pub mod release;
pub mod request_log;
pub mod revisions;
pub mod rollout;
pub mod runtime_events;
pub mod runtime_pods;
pub mod suspension;
pub mod table;
pub mod terminal;
pub mod tls;

#[cfg(test)]
mod fixtures;

use std::ffi::OsString;
use std::process::ExitCode;

use crate::error::Error;
use crate::output::Palette;

/// Parses the command line, runs the command and turns the outcome into an
/// exit code (see [`exit`]).
pub fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().collect();

    // kubectl's plugin completion (`kubectl_complete-trussium`) passes the
    // typed words verbatim, flags included: handled before clap sees them.
    if args
        .get(1)
        .is_some_and(|a| a == commands::completion::COMPLETE_COMMAND)
    {
        let words = args
            .iter()
            .skip(2)
            .map(|a| a.to_string_lossy().into_owned())
            .collect::<Vec<_>>();
        return runtime()
            .map(|rt| rt.block_on(commands::completion::complete(&words)))
            .map_or(ExitCode::FAILURE, |()| ExitCode::SUCCESS);
    }

    let display_name = cli::display_name(args.first().map(OsString::as_os_str));
    let cli = match cli::parse(&display_name, args) {
        Ok(cli) => cli,
        // Help and --version exit 0; usage errors exit 2 (exit::Exit::Usage).
        Err(e) => e.exit(),
    };
    let stderr = Palette::for_stderr(cli.global.color);
    let result = runtime()
        .map_err(Error::Io)
        .and_then(|rt| rt.block_on(commands::run(cli)));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Error::BrokenPipe) => ExitCode::SUCCESS,
        Err(e) => {
            // Errors quote the API server and the cluster's objects.
            let message = terminal::bounded(&e.to_string(), 4 * terminal::MAX_CHARS);
            eprintln!("{} {message}", stderr.bad("error:"));
            if let Some(hint) = e.hint() {
                for line in hint.lines() {
                    eprintln!("  {}", terminal::bounded(line, 4 * terminal::MAX_CHARS));
                }
            }
            ExitCode::from(e.exit().code())
        }
    }
}

fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
}
