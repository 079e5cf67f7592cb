//! `qctl inflight QUEUE`: every job in flight, from every consumer's in-flight set, with the
//! consumer, where it runs and how long the job has run.

use anyhow::Context as _;

use std::collections::HashMap;

use super::Context;
use crate::cli::InflightArgs;
use crate::engine::consumers::{self, host_pid, short_name, Description};
use crate::engine::{listing, ExitCode};
use crate::output::{entry_json, preview, printable, Fit};

/// Records read per call while a page is written.
const CHUNK: usize = 100;

pub async fn run(mut ctx: Context, args: InflightArgs) -> anyhow::Result<ExitCode> {
    let keys = ctx.keys(&args.queue)?;
    let mut redis = ctx.server()?.connect().await?;
    super::require_queue(&mut redis, &keys).await?;
    let what = || format!("cannot list the jobs in flight of queue {:?}", args.queue);
    let list = consumers::list(&mut redis, &keys)
        .await
        .with_context(what)?;
    let described = consumers::describe(&mut redis, &keys, &list)
        .await
        .with_context(what)?;
    let jobs = consumers::in_flight(&mut redis, &keys, &list)
        .await
        .with_context(what)?;
    let now = redis.server_time().await?;
    let total = jobs.len() as u64;
    let page: Vec<_> = jobs
        .into_iter()
        .skip(args.offset.min(total) as usize)
        .take(super::listing::page_limit(args.limit).min(total) as usize)
        .collect();
    let descriptions: HashMap<&str, &Description> = list
        .iter()
        .zip(&described)
        .filter_map(|(c, d)| Some((c.key.as_str(), d.as_ref()?)))
        .collect();
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
            let running = job.started.map(|t| (now - t).max(0.0));
            if args.jsonl || ctx.out.json {
                let mut v = entry_json(e, "score");
                v["consumer"] = job.consumer.clone().into();
                v["run_by"] = if d.is_some() { "qctl" } else { "CurlyQ" }.into();
                v["host"] = d.and_then(|d| d.host.clone()).into();
                v["pid"] = d.and_then(|d| d.pid).into();
                v["started"] = job.started.into();
                v["running_secs"] = running.into();
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
                rows.push(vec![
                    printable(&job.id),
                    short_name(&job.consumer, &keys),
                    host_pid(d),
                    running.map_or("-".into(), duration),
                    e.attempt().map_or("-".into(), |a| a.to_string()),
                    match e.damage() {
                        Some(why) => format!("<damaged: {}>", printable(&why)),
                        None => preview(e.data().unwrap_or_default(), 200),
                    },
                ]);
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
            let table = ctx.out.fit_table(
                &[
                    ("ID", Fit::Keep),
                    ("CONSUMER", Fit::Keep),
                    ("HOST:PID", Fit::Cut(12)),
                    ("RUNNING", Fit::Keep),
                    ("FAILURES", Fit::Number),
                    ("DATA", Fit::Cut(8)),
                ],
                rows,
            );
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
        ctx.out.note(
            "RUNNING -: no start recorded (Go CurlyQ consumer, buffered job, or just started)",
        );
    }
    Ok(ExitCode::Success)
}

/// A running time: `42s`, `3m 05s`, `2h 10m`, `3d 4h`.
fn duration(secs: f64) -> String {
    let s = secs.floor() as u64;
    match s {
        0..=59 => format!("{s}s"),
        60..=3599 => format!("{}m {:02}s", s / 60, s % 60),
        3600..=86399 => format!("{}h {:02}m", s / 3600, s % 3600 / 60),
        _ => format!("{}d {}h", s / 86400, s % 86400 / 3600),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn running_times_read_at_a_glance() {
        assert_eq!(super::duration(0.4), "0s");
        assert_eq!(super::duration(42.9), "42s");
        assert_eq!(super::duration(185.0), "3m 05s");
        assert_eq!(super::duration(7800.0), "2h 10m");
        assert_eq!(super::duration(273600.0), "3d 4h");
    }
}
