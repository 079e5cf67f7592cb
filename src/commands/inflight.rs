//! `qctl inflight QUEUE`: every job in flight, from every consumer's in-flight set, with the
//! consumer, where it runs and how long the job has run.

use anyhow::Context as _;

use super::Context;
use crate::cli::InflightArgs;
use crate::engine::consumers;
use crate::engine::{listing, ExitCode};
use crate::output::{inflight_cells, inflight_json, INFLIGHT_COLUMNS};

/// Records read per call while a page is written.
const CHUNK: usize = 100;

pub async fn run(mut ctx: Context, args: InflightArgs) -> anyhow::Result<ExitCode> {
    let keys = ctx.keys(&args.queue)?;
    let mut redis = ctx.server()?.connect().await?;
    super::require_queue(&mut redis, &keys).await?;
    let what = || format!("cannot list the jobs in flight of queue {:?}", args.queue);
    let seen = consumers::seen(&mut redis, &keys)
        .await
        .with_context(what)?;
    let jobs = consumers::in_flight(&mut redis, &keys, &seen.list)
        .await
        .with_context(what)?;
    let now = seen.now;
    let total = jobs.len() as u64;
    let page: Vec<_> = jobs
        .into_iter()
        .skip(args.offset.min(total) as usize)
        .take(super::listing::page_limit(args.limit).min(total) as usize)
        .collect();
    let descriptions = seen.descriptions();
    let mut rows = Vec::new();
    let mut unknown = false;
    if ctx.out.json && !args.jsonl {
        ctx.out.raw(b"[")?;
    }
    let mut shown = 0u64;
    for chunk in page.chunks(CHUNK) {
        let ids = chunk.iter().map(|j| (j.id.clone(), None)).collect();
        let entries = listing::fill(&mut redis, &keys, ids)
            .await
            .with_context(what)?;
        for (job, e) in chunk.iter().zip(&entries) {
            let d = descriptions.get(job.consumer.as_str()).copied();
            let running = job.running(now);
            if args.jsonl || ctx.out.json {
                let v = inflight_json(e, job, d, now);
                if args.jsonl {
                    ctx.out.json_line(&v)?;
                } else {
                    if shown > 0 {
                        ctx.out.raw(b",")?;
                    }
                    ctx.out.json(&v)?;
                }
            } else {
                unknown |= running.is_none();
                rows.push(inflight_cells(e, job, d, &keys, now));
            }
            shown += 1;
        }
    }
    if ctx.out.json && !args.jsonl {
        ctx.out.raw(b"]\n")?;
    } else if !args.jsonl {
        if shown == 0 {
            ctx.out.note(if total == 0 {
                format!("no jobs in flight in queue {:?}", args.queue)
            } else {
                format!(
                    "no jobs in flight at --offset {} ({total} in all)",
                    args.offset
                )
            });
        } else {
            let table = ctx.out.fit_table(&INFLIGHT_COLUMNS, rows);
            ctx.out.print_table(&table)?;
        }
    }
    ctx.out.flush()?;
    let end = args.offset.saturating_add(shown);
    let next = (end < total).then_some(end);
    // JSON too says when it is a page, so that a script never takes a page for the whole.
    let machine = ctx.out.json || args.jsonl;
    if shown > 0 && (!machine || next.is_some()) {
        ctx.out.note(format_args!(
            "{shown} shown of {total} in flight{}",
            super::listing::next_page(next)
        ));
    }
    // Only a table shows RUNNING.
    if unknown {
        ctx.out.note(consumers::NO_START);
    }
    Ok(ExitCode::Success)
}
