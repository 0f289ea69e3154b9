//! One file per command.

pub mod check;
pub mod completion;
pub mod create;
pub mod diagnose;
pub mod events;
pub mod history;
pub mod install;
pub mod logs;
pub mod migrate;
pub mod restart;
pub mod resume;
pub mod rollback;
pub mod scale;
pub mod status;
pub mod suspend;
pub mod uninstall;
pub mod upgrade;
pub mod version;

use crate::cli::{Cli, Command};
use crate::client::connect;
use crate::error::{Error, Result};
use crate::output::Palette;

/// Runs the parsed command line.
pub async fn run(cli: Cli) -> Result<()> {
    let palette = Palette::for_stdout(cli.global.color);
    // Commands that name a runtime, or that act on one namespace.
    let one_namespace = match &cli.command {
        Command::Status(a) => a.name.is_some(),
        Command::Diagnose(a) => a.name.is_some(),
        Command::Logs(_) => true,
        Command::Create(_)
        | Command::Upgrade(_)
        | Command::Rollback(_)
        | Command::History(_)
        | Command::Scale(_)
        | Command::Restart(_)
        | Command::Suspend(_)
        | Command::Resume(_)
        | Command::Events(_)
        | Command::Check(_)
        | Command::Install(_)
        | Command::Uninstall(_) => true,
        Command::Migrate(_) | Command::Completion(_) | Command::Version => false,
    };
    if one_namespace && cli.global.all_namespaces {
        return Err(Error::Usage(
            "-A does not go with a runtime's name, create, check, install or uninstall: drop it and use -n NAMESPACE"
                .to_string(),
        ));
    }
    // create, check, install and uninstall connect themselves: create and
    // install may print without a cluster, and check reports a cluster it cannot reach as one
    // of its findings.
    let global = &cli.global;
    match &cli.command {
        Command::Status(args) => status::run(&connect(global).await?, args, palette).await,
        Command::Create(args) => create::run(global, args, palette).await,
        Command::Upgrade(args) => upgrade::run(&connect(global).await?, args, palette).await,
        Command::Rollback(args) => rollback::run(&connect(global).await?, args, palette).await,
        Command::History(args) => history::run(&connect(global).await?, args, palette).await,
        Command::Scale(args) => scale::run(&connect(global).await?, args, palette).await,
        Command::Restart(args) => restart::run(&connect(global).await?, args, palette).await,
        Command::Suspend(args) => suspend::run(&connect(global).await?, args, palette).await,
        Command::Resume(args) => resume::run(&connect(global).await?, args, palette).await,
        Command::Events(args) => events::run(&connect(global).await?, args, palette).await,
        Command::Diagnose(args) => diagnose::run(&connect(global).await?, args, palette).await,
        Command::Logs(args) => logs::run(&connect(global).await?, args).await,
        Command::Check(args) => check::run(global, args, palette).await,
        Command::Install(args) => install::run(global, args, palette).await,
        Command::Uninstall(args) => uninstall::run(global, args, palette).await,
        Command::Migrate(args) => migrate::run(&connect(global).await?, args, palette).await,
        Command::Completion(args) => completion::run(args),
        Command::Version => version::run(),
    }
}
