//! `qctl active list|delete`: jobs ready to run.

use super::listing::{self, Action, Place};
use super::Context;
use crate::cli::{ActiveCommand, BulkArgs, FilterArgs};
use crate::engine::ExitCode;

pub async fn run(ctx: Context, cmd: ActiveCommand) -> anyhow::Result<ExitCode> {
    match cmd {
        ActiveCommand::List(args) => listing::list(ctx, args, Place::Active).await,
        ActiveCommand::Delete {
            queue,
            ids,
            confirm,
        } => {
            let args = BulkArgs {
                queue,
                ids,
                all: false,
                filter: FilterArgs::default(),
                confirm,
            };
            listing::bulk(ctx, args, Place::Active, Action::Delete, None).await
        }
    }
}
