//! `qctl changes QUEUE`: the record of the changes qctl made to a queue (engine/changes.rs),
//! the newest --limit entries oldest first, as tail shows lines; `--ids ENTRY` the ids an
//! entry kept.

use anyhow::Context as _;

use super::Context;
use crate::cli::ChangesArgs;
use crate::engine::changes::{self, Entry};
use crate::engine::{Error, ExitCode};
use crate::output::{change_cells, plural, printable, thousands, CHANGE_COLUMNS};

pub async fn run(mut ctx: Context, args: ChangesArgs) -> anyhow::Result<ExitCode> {
    let keys = ctx.keys(&args.queue)?;
    if let Some(entry) = &args.ids {
        if !changes::is_entry_id(entry) {
            return Err(changes::get_usage(&keys, entry).into());
        }
    }
    let mut redis = ctx.server()?.connect().await?;
    if let Some(entry) = &args.ids {
        return ids(&mut ctx, &mut redis, &keys, entry).await;
    }
    if let (Some(since), Some(until)) = (args.since, args.until) {
        if since > until {
            return Err(
                Error::Usage("--since is after --until: nothing can be in between".into()).into(),
            );
        }
    }
    let mut entries = changes::list(&mut redis, &keys, args.since, args.until, args.limit)
        .await
        .with_context(|| format!("cannot read {}", keys.changes))?;
    // The newest are read; they are shown oldest first, the newest last, as tail does.
    entries.reverse();
    if entries.is_empty() {
        // A record that is empty, or a queue that has none: a mistyped name is told so.
        if args.since.is_none() && args.until.is_none() {
            super::require_queue(&mut redis, &keys).await?;
        }
    }
    if ctx.out.json {
        let all: Vec<&Entry> = entries.iter().collect();
        ctx.out.json_line(&all)?;
        ctx.out.flush()?;
        return Ok(ExitCode::Success);
    }
    if entries.is_empty() {
        ctx.out.note(format_args!(
            "no changes recorded in {}{}",
            printable(&keys.changes),
            if args.since.is_some() || args.until.is_some() {
                " in that time (--since, --until)"
            } else {
                ""
            }
        ));
        return Ok(ExitCode::Success);
    }
    let rows = entries.iter().map(change_cells).collect();
    let table = ctx.out.fit_table(&CHANGE_COLUMNS, rows);
    ctx.out.print_table(&table)?;
    ctx.out.flush()?;
    if args.limit > 0 && entries.len() == args.limit {
        ctx.out.note(format_args!(
            "the newest {} shown (--limit 0 shows every one; --since and --until a time)",
            plural(entries.len() as u64, "change")
        ));
    }
    Ok(ExitCode::Success)
}

/// `--ids ENTRY`: the ids the entry kept, one a line; what it did not keep on stderr.
async fn ids(
    ctx: &mut Context,
    redis: &mut crate::engine::Redis,
    keys: &crate::engine::QueueKeys,
    entry: &str,
) -> anyhow::Result<ExitCode> {
    let Some(found) = changes::get(redis, keys, entry)
        .await
        .with_context(|| format!("cannot read {}", keys.changes))?
    else {
        return Err(Error::NothingDone(format!(
            "{} has no entry {entry:?}: it was trimmed (the record keeps about {} entries and \
             {} days), or never made",
            printable(&keys.changes),
            thousands(changes::KEPT),
            changes::KEPT_FOR.as_secs() / 86_400
        ))
        .into());
    };
    if ctx.out.json {
        ctx.out.json_line(&serde_json::json!({
            "entry": found.entry,
            "action": found.action,
            "ids": found.ids,
            "ids_total": found.ids_total,
            "ids_kept": found.ids_kept,
        }))?;
    } else {
        for id in &found.ids {
            ctx.out.line(printable(id))?;
        }
    }
    ctx.out.flush()?;
    if found.ids_total == 0 {
        ctx.out.note(format_args!(
            "{} ({}) keeps no ids: {}",
            printable(&found.entry),
            printable(&found.action),
            if found.done + found.skipped + found.not_found == 0 {
                "it touched no job".to_string()
            } else {
                format!(
                    "the record of {} keeps its counts only ({})",
                    printable(&found.action),
                    found.counts()
                )
            }
        ));
    } else if found.ids_kept < found.ids_total {
        ctx.out.note(format_args!(
            "{} of {} ids kept: an entry keeps the first {} of a change; the other {} are not \
             kept",
            thousands(found.ids_kept),
            thousands(found.ids_total),
            thousands(changes::IDS_KEPT as u64),
            thousands(found.ids_total - found.ids_kept)
        ));
    }
    Ok(ExitCode::Success)
}
