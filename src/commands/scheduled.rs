//! `qctl scheduled list|show|run-now|delete|groups`: delayed jobs and retries.

use super::groups;
use super::listing::{self, Action, Place};
use super::Context;
use crate::cli::ScheduledCommand;
use crate::engine::ExitCode;

pub async fn run(ctx: Context, cmd: ScheduledCommand) -> anyhow::Result<ExitCode> {
    match cmd {
        ScheduledCommand::List(args) => listing::list(ctx, args, Place::Scheduled).await,
        ScheduledCommand::Show(args) => listing::show(ctx, args, Place::Scheduled).await,
        ScheduledCommand::RunNow(args) => {
            listing::bulk(ctx, args, Place::Scheduled, Action::RunNow, None).await
        }
        ScheduledCommand::Delete(args) => {
            listing::bulk(ctx, args, Place::Scheduled, Action::Delete, None).await
        }
        ScheduledCommand::Groups(args) => groups::run(ctx, args, Place::Scheduled).await,
    }
}
