//! `qctl find QUEUE TEXT`: the jobs whose id, data or recorded failure holds a text, written
//! as they are found, and what was searched.

use std::ops::ControlFlow;

use anyhow::Context as _;

use super::Context;
use crate::cli::{FindArgs, FindPlace};
use crate::engine::find::{self, Search, Where};
use crate::engine::ExitCode;
use crate::output::{found_json, FoundRows};

pub async fn run(mut ctx: Context, args: FindArgs) -> anyhow::Result<ExitCode> {
    let keys = ctx.keys(&args.queue)?;
    let mut redis = ctx.server()?.connect().await?;
    super::require_queue(&mut redis, &keys).await?;
    let places: Vec<Where> = Where::ALL
        .into_iter()
        .filter(|w| args.places.is_empty() || args.places.iter().any(|p| place(*p) == *w))
        .collect();
    let search = Search {
        text: args.text.clone(),
        places,
        max_scan: (args.max_scan > 0).then_some(args.max_scan),
        limit: (args.limit > 0).then_some(args.limit as u64),
    };
    let array = ctx.out.json && !args.jsonl;
    if array {
        ctx.out.raw(b"[")?;
    }
    let mut rows = FoundRows::new();
    let mut written: std::io::Result<()> = Ok(());
    let mut shown = 0u64;
    let out = &mut ctx.out;
    let queue = args.queue.as_str();
    let report = find::find(&mut redis, &keys, &search, |hit| {
        written = if args.jsonl {
            out.json_line(&found_json(queue, &hit))
        } else if array {
            out.raw(if shown == 0 { b"" } else { b"," })
                .and_then(|_| out.json(&found_json(queue, &hit)))
        } else {
            rows.lines(&hit).into_iter().try_for_each(|l| out.line(l))
        }
        .and_then(|_| out.flush());
        shown += 1;
        match written {
            Ok(()) => ControlFlow::Continue(()),
            Err(_) => ControlFlow::Break(()),
        }
    })
    .await
    .with_context(|| format!("cannot search queue {:?}", args.queue))?;
    // A closed stdout ends a read command quietly.
    written?;
    if array {
        ctx.out.raw(b"]\n")?;
        ctx.out.flush()?;
    }
    let searched = report.describe();
    if report.found == 0 {
        ctx.out.note(format_args!("nothing found; {searched}"));
        return Ok(ExitCode::NothingDone);
    }
    ctx.out.note(format_args!(
        "{} found; {searched}",
        crate::output::plural(report.found, "job")
    ));
    Ok(ExitCode::Success)
}

fn place(p: FindPlace) -> Where {
    match p {
        FindPlace::Ready => Where::Ready,
        FindPlace::Scheduled => Where::Scheduled,
        FindPlace::Inflight => Where::InFlight,
        FindPlace::Dead => Where::Dead,
    }
}
