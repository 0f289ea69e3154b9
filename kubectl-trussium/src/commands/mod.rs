//! One file per command.

pub mod completion;
pub mod events;
pub mod scale;
pub mod status;
pub mod upgrade;

use crate::cli::{Cli, Command};
use crate::client::connect;
use crate::error::{Error, Result};
use crate::output::Palette;

/// Runs the parsed command line.
pub async fn run(cli: Cli) -> Result<()> {
    let palette = Palette::for_stdout(cli.global.color);
    if let Command::Completion(args) = &cli.command {
        return completion::run(args);
    }
    let named = match &cli.command {
        Command::Status(a) => a.name.is_some(),
        Command::Upgrade(_) | Command::Scale(_) | Command::Events(_) => true,
        Command::Completion(_) => false,
    };
    if named && cli.global.all_namespaces {
        return Err(Error::Usage(
            "a runtime cannot be named across all namespaces: drop -A and use -n NAMESPACE"
                .to_string(),
        ));
    }
    let target = connect(&cli.global).await?;
    match &cli.command {
        Command::Status(args) => status::run(&target, args, palette).await,
        Command::Upgrade(args) => upgrade::run(&target, args, palette).await,
        Command::Scale(args) => scale::run(&target, args, palette).await,
        Command::Events(args) => events::run(&target, args, palette).await,
        Command::Completion(args) => completion::run(args),
    }
}
