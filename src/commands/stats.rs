//! `qctl stats [QUEUE...]`: what each queue holds, once or redrawn with rates (--watch), or
//! in the Prometheus text format (--prometheus).

use std::collections::HashMap;
use std::io::IsTerminal;
use std::time::{Duration, Instant};

use super::Context;
use crate::cli::StatsArgs;
use crate::engine::queues::{rate, QueueStats};
use crate::engine::snapshot::{stats_json, Watched};
use crate::engine::{Error, ExitCode, Redis};
use crate::output::{count, plural, queue_cells, Fit, QUEUE_COLUMNS};
use crate::prometheus;

pub async fn run(mut ctx: Context, args: StatsArgs) -> anyhow::Result<ExitCode> {
    for queue in &args.queues {
        ctx.keys(queue)?;
    }
    if args.prometheus && ctx.out.json {
        return Err(Error::Usage("--prometheus and --json cannot be used together".into()).into());
    }
    let mut redis = ctx.server()?.connect().await?;
    for queue in &args.queues {
        super::require_queue(&mut redis, &ctx.keys(queue)?).await?;
    }
    if let Some(span) = args.history {
        let mut queues = args.queues.clone();
        if queues.is_empty() {
            let reading = read(
                &mut redis,
                &[],
                ctx.global.cluster,
                args.orphan_after,
                args.max_keys,
            )
            .await?;
            for warning in &reading.warnings {
                ctx.out.warn(warning);
            }
            queues = reading.stats.into_iter().map(|s| s.queue).collect();
            if queues.is_empty() {
                ctx.out.note("no queues found");
                return Ok(ExitCode::Success);
            }
        }
        return super::history::show(&mut ctx, &mut redis, &queues, span, args.step).await;
    }
    // Ctrl-C, SIGTERM or SIGHUP is how a watch ends: that is success, as for `tail` and `top`.
    let stop = match args.watch {
        Some(_) => Some(crate::signals::install()?),
        None => None,
    };
    let mut previous: Option<(Instant, HashMap<String, QueueStats>)> = None;
    loop {
        let started = Instant::now();
        let reading = read(
            &mut redis,
            &args.queues,
            ctx.global.cluster,
            args.orphan_after,
            args.max_keys,
        )
        .await?;
        // The screen is cleared first, and at once: what this reading says on stderr (a
        // warning, the columns the table leaves out) then stays above its table.
        if args.watch.is_some() && std::io::stdout().is_terminal() && !ctx.out.json {
            ctx.out.line("\x1b[H\x1b[2J")?;
            ctx.out.flush()?;
        }
        for warning in &reading.warnings {
            ctx.out.warn(warning);
        }
        ctx.out.verbose(format_args!(
            "{}, {}",
            plural(reading.stats.len() as u64, "queue"),
            plural(reading.round_trips, "round trip")
        ));
        let stats = reading.stats;
        let now = Instant::now();
        let rates = previous
            .as_ref()
            .map(|(at, before)| (now.duration_since(*at).as_secs_f64(), before));
        if args.prometheus {
            ctx.out.raw(
                prometheus::render(&prometheus::Reading {
                    stats: Some(&stats),
                    duration: started.elapsed(),
                })
                .as_bytes(),
            )?;
        } else if ctx.out.json {
            let mut rows = Vec::new();
            for s in &stats {
                // Every object of a watch has its time and its rates: null until a reading
                // before this one tells them (the first, a queue new since).
                let watched = args.watch.map(|_| {
                    let before =
                        rates.and_then(|(secs, before)| Some((secs, before.get(&s.queue)?)));
                    Watched {
                        time: reading.time,
                        done_per_sec: before
                            .and_then(|(secs, b)| rate(s.completed, b.completed, secs)),
                        failed_per_sec: before.and_then(|(secs, b)| rate(s.failed, b.failed, secs)),
                    }
                });
                rows.push(stats_json(s, watched));
            }
            ctx.out.json_line(&rows)?;
        } else {
            let mut columns = QUEUE_COLUMNS.to_vec();
            columns.extend([("DONE", Fit::Extra), ("FAILED", Fit::Extra)]);
            if args.watch.is_some() {
                // The rates are what a watch is for: on a narrow terminal the totals go
                // first (the last first), then LATER; the rates stay.
                for (name, fit) in &mut columns {
                    if *name == "LATER" {
                        *fit = Fit::Extra;
                    }
                }
                columns.extend([("DONE/S", Fit::Number), ("FAILED/S", Fit::Number)]);
            }
            let mut rows = Vec::with_capacity(stats.len());
            for s in &stats {
                let mut row = queue_cells(s);
                row.extend([count(s.completed), count(s.failed)]);
                if args.watch.is_some() {
                    let b =
                        rates.and_then(|(secs, before)| before.get(&s.queue).map(|b| (secs, b)));
                    row.push(b.map_or("-".into(), |(secs, b)| {
                        rate(s.completed, b.completed, secs)
                            .map_or("?".into(), |r| format!("{r:.1}"))
                    }));
                    row.push(b.map_or("-".into(), |(secs, b)| {
                        rate(s.failed, b.failed, secs).map_or("?".into(), |r| format!("{r:.1}"))
                    }));
                }
                rows.push(row);
            }
            if stats.is_empty() {
                ctx.out.note("no queues found");
            } else {
                let table = ctx.out.fit_table(&columns, rows);
                ctx.out.print_table(&table)?;
            }
            for s in stats.iter().filter(|s| !s.wrong_type.is_empty()) {
                ctx.out.warn(format_args!(
                    "queue {:?}: WRONGTYPE: {} holds the wrong type of key (counts shown as ?)",
                    s.queue,
                    s.wrong_type.join(", ")
                ));
            }
        }
        ctx.out.flush()?;
        if let Some(note) = &reading.unreadable {
            ctx.out.note(note);
        }
        let Some(every) = args.watch else {
            // A key of the wrong type is an error Redis will repeat: say so in the exit code.
            return Ok(if stats.iter().any(|s| !s.wrong_type.is_empty()) {
                ExitCode::Redis
            } else {
                ExitCode::Success
            });
        };
        previous = Some((
            now,
            stats.into_iter().map(|s| (s.queue.clone(), s)).collect(),
        ));
        let stop = stop.as_ref().expect("installed for --watch");
        tokio::select! {
            _ = tokio::time::sleep(every) => {}
            _ = stop.requested.cancelled() => return Ok(ExitCode::Success),
        }
    }
}

pub(super) use crate::engine::queues::Reading;

/// Counts `queues`, or every queue SCAN finds (see [`crate::engine::queues::read`]).
pub(super) async fn read(
    redis: &mut Redis,
    queues: &[String],
    cluster: bool,
    orphan_after: Duration,
    max_keys: u64,
) -> anyhow::Result<Reading> {
    Ok(crate::engine::queues::read(redis, queues, cluster, orphan_after, max_keys).await?)
}
