//! One file per command.

pub mod completion;
pub mod events;
pub mod rollback;
pub mod scale;
pub mod status;
pub mod upgrade;
pub mod version;

use crate::cli::{Cli, Command};
use crate::client::connect;
use crate::error::{Error, Result};
use crate::output::Palette;

/// Runs the parsed command line.
pub async fn run(cli: Cli) -> Result<()> {
    let palette = Palette::for_stdout(cli.global.color);
    match &cli.command {
        Command::Completion(args) => return completion::run(args),
        Command::Version => return version::run(),
        _ => {}
    }
    let named = match &cli.command {
        Command::Status(a) => a.name.is_some(),
        Command::Upgrade(_) | Command::Rollback(_) | Command::Scale(_) | Command::Events(_) => true,
        Command::Completion(_) | Command::Version => false,
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
        Command::Rollback(args) => rollback::run(&target, args, palette).await,
        Command::Scale(args) => scale::run(&target, args, palette).await,
        Command::Events(args) => events::run(&target, args, palette).await,
        Command::Completion(args) => completion::run(args),
        Command::Version => version::run(),
    }
}
