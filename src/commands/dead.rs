//! `qctl dead list|show|requeue|delete|export|groups`: jobs that ran out of retries.

use anyhow::Context as _;

use super::groups;
use super::listing::{self, Action, Place};
use super::Context;
use crate::cli::DeadCommand;
use crate::engine::bulk::{Selection, Walk};
use crate::engine::{self, ExitCode};
use crate::output::{entry_json, plural};

pub async fn run(ctx: Context, cmd: DeadCommand) -> anyhow::Result<ExitCode> {
    match cmd {
        DeadCommand::List(args) => listing::list(ctx, args, Place::Dead).await,
        DeadCommand::Show(args) => listing::show(ctx, args, Place::Dead).await,
        DeadCommand::Requeue {
            bulk,
            keep_attempts,
        } => {
            listing::bulk(
                ctx,
                bulk,
                Place::Dead,
                Action::Requeue { keep_attempts },
                None,
            )
            .await
        }
        DeadCommand::Delete { bulk, older_than } => {
            let until = older_than.map(|d| engine::now() - d.as_secs_f64());
            let mut bulk = bulk;
            bulk.all |= until.is_some();
            listing::bulk(ctx, bulk, Place::Dead, Action::Delete, until).await
        }
        DeadCommand::Export { queue, filter } => {
            export(ctx, &queue, listing::filter(&filter)).await
        }
        DeadCommand::Groups(args) => groups::run(ctx, args, Place::Dead).await,
    }
}

/// Every matching dead job as a JSON line (oldest first), in chunks; reads only.
async fn export(
    mut ctx: Context,
    queue: &str,
    filter: engine::listing::Filter,
) -> anyhow::Result<ExitCode> {
    let keys = ctx.keys(queue)?;
    let mut redis = ctx.server()?.connect().await?;
    super::require_queue(&mut redis, &keys).await?;
    let mut walk = Walk::new(&keys.dead, &Selection::Matching(filter));
    let mut n = 0u64;
    while let Some(chunk) = walk
        .next(&mut redis, &keys)
        .await
        .with_context(|| format!("cannot read {}", keys.dead))?
    {
        for e in &chunk {
            ctx.out.json_line(&entry_json(e, "died"))?;
        }
        n += chunk.len() as u64;
    }
    ctx.out.flush()?;
    ctx.out.note(format_args!(
        "exported {} of queue {queue:?}",
        plural(n, "dead job")
    ));
    Ok(ExitCode::Success)
}
