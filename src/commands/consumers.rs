//! `qctl consumers QUEUE`: each consumer's heartbeat age, jobs in flight, alive or expired,
//! and for qctl consumers where they run, what they run and their counters.

use anyhow::Context as _;
use serde_json::json;

use super::orphans::seconds;
use super::Context;
use crate::engine::consumers::{self, command_line, host_pid, short_name, Description, Process};
use crate::engine::jobs::describe_time;
use crate::engine::text::{agree, plural};
use crate::engine::ExitCode;
use crate::output::{printable, relative, shell_quote, Fit};

pub async fn run(
    mut ctx: Context,
    queue: &str,
    orphan_after: std::time::Duration,
) -> anyhow::Result<ExitCode> {
    let keys = ctx.keys(queue)?;
    let mut redis = ctx.server()?.connect().await?;
    super::require_queue(&mut redis, &keys).await?;
    let list = consumers::list(&mut redis, &keys)
        .await
        .with_context(|| format!("cannot list the consumers of queue {queue:?}"))?;
    let described = consumers::describe(&mut redis, &keys, &list)
        .await
        .with_context(|| {
            format!("cannot read the descriptions of the consumers of queue {queue:?}")
        })?;
    let now = redis.server_time().await?;
    let cutoff = now - orphan_after.as_secs_f64();
    // Whether each one's process runs, for those on this host.
    let processes: Vec<Option<Process>> = described
        .iter()
        .map(|d| d.as_ref().and_then(Description::process))
        .collect();
    if ctx.out.json {
        let rows: Vec<_> = list
            .iter()
            .zip(&described)
            .zip(&processes)
            .map(|((c, d), process)| {
                let d = d.clone().unwrap_or_default();
                json!({
                    "consumer": c.key,
                    "run_by": c.run_by(&keys, d.version.is_some()),
                    "host": d.host,
                    "pid": d.pid,
                    "version": d.version,
                    "command": d.command,
                    "mode": d.mode,
                    "concurrency": d.concurrency,
                    "depth": d.depth,
                    "depth_auto": d.depth_auto,
                    "started": d.started,
                    "ran": d.ran,
                    "failed": d.failed,
                    "heartbeat": c.heartbeat,
                    "heartbeat_age_secs": (now - c.heartbeat).max(0.0),
                    "clock_ahead_secs": c.clock_ahead(now),
                    "in_flight": c.in_flight,
                    "alive": c.heartbeat > cutoff && *process != Some(Process::Gone),
                    "process": process,
                    "problem": c.problem.clone().or_else(|| c.clock_ahead(now).map(|_| c.ahead_problem(now))),
                })
            })
            .collect();
        ctx.out.json_line(&rows)?;
    } else if list.is_empty() {
        ctx.out
            .note(format_args!("no consumers in {}", keys.consumers));
    } else {
        let mut rows = Vec::with_capacity(list.len());
        let mut commands = Vec::new();
        let mut gone = Vec::new();
        for ((c, d), process) in list.iter().zip(&described).zip(&processes) {
            let pid = d.as_ref().and_then(|d| d.pid).unwrap_or(0);
            let fresh = c.heartbeat > cutoff;
            let state = c.state(d.as_ref(), *process, now, cutoff);
            // A member with a problem is named in full, for whoever sets it right.
            let name = match &c.problem {
                Some(_) => printable(&c.key),
                None => short_name(&c.key, &keys),
            };
            let d = d.clone().unwrap_or_default();
            let dash = |v: Option<String>| v.unwrap_or_else(|| "-".into());
            rows.push(vec![
                name.clone(),
                match &d.version {
                    Some(v) => format!("qctl {}", printable(v)),
                    None => c.run_by(&keys, false).into(),
                },
                host_pid(Some(&d)),
                if c.heartbeat.is_finite() {
                    relative(c.heartbeat, now)
                } else {
                    describe_time(c.heartbeat)
                },
                c.in_flight.map_or("?".into(), |n| n.to_string()),
                dash(d.ran.map(|n| n.to_string())),
                dash(d.failed.map(|n| n.to_string())),
                state,
            ]);
            if fresh && c.problem.is_none() && *process == Some(Process::Gone) {
                gone.push(gone_note(&name, pid, c, now, orphan_after, &keys.name));
            }
            if let Some(command) = &d.command {
                commands.push(format!(
                    "{name}: {}{}{}{}: {}",
                    printable(d.mode.as_deref().unwrap_or("-")),
                    d.concurrency
                        .map_or(String::new(), |n| format!(", concurrency {n}")),
                    describe_depth(&d),
                    d.started.map_or(String::new(), |t| format!(
                        ", up {}",
                        relative(t, now).trim_end_matches(" ago")
                    )),
                    command_line(command)
                ));
            }
        }
        let table = ctx.out.fit_table(
            &[
                ("CONSUMER", Fit::Keep),
                ("RUN BY", Fit::Keep),
                ("HOST:PID", Fit::Cut(12)),
                ("HEARTBEAT", Fit::Keep),
                ("IN FLIGHT", Fit::Number),
                ("RAN", Fit::Extra),
                ("FAILED", Fit::Extra),
                ("STATE", Fit::Cut(8)),
            ],
            rows,
        );
        ctx.out.print_table(&table)?;
        if !commands.is_empty() {
            ctx.out.line("")?;
            for line in commands {
                ctx.out.line(&line)?;
            }
        }
        for line in gone {
            ctx.out.note(line);
        }
        if list
            .iter()
            .zip(&described)
            .any(|(c, d)| d.is_none() && keys.consumer_uuid(&c.key).is_some())
        {
            ctx.out.note(
                "RUN BY CurlyQ: no description written (a Go CurlyQ consumer, or a qctl one that \
                 expired more than a day ago)",
            );
        }
    }
    ctx.out.flush()?;
    Ok(ExitCode::Success)
}

/// What happens to the jobs of a consumer on this host whose process is gone while its
/// heartbeat is still fresh: they return once the heartbeat is older than `orphan_after`,
/// or at once with a shorter `--orphan-after` (every whole second of the heartbeat's age).
pub fn gone_note(
    name: &str,
    pid: u32,
    c: &consumers::ConsumerInfo,
    now: f64,
    orphan_after: std::time::Duration,
    queue: &str,
) -> String {
    let age = (now - c.heartbeat).max(0.0);
    let left = (orphan_after.as_secs_f64() - age).max(0.0);
    let jobs = c.in_flight.unwrap_or(0);
    format!(
        "{name}: its process is gone (pid {pid} not running on this host); its {} {} to the \
         queue once its heartbeat is older than --orphan-after ({}), in {}; to return {} now: \
         qctl orphans {} --orphan-after {}s",
        plural(jobs, "job"),
        agree(jobs, "returns", "return"),
        seconds(orphan_after.as_secs_f64()),
        seconds(left.ceil()),
        agree(jobs, "it", "them"),
        printable(&shell_quote(queue)),
        (age.floor() as u64).max(1),
    )
}

/// `, depth 8, 16 (automatic)`: what a `--pipe` consumer's handlers may each hold now.
fn describe_depth(d: &Description) -> String {
    let Some(depth) = &d.depth else {
        return String::new();
    };
    let how = if d.depth_auto == Some(true) {
        " (automatic)"
    } else {
        ""
    };
    let each = match depth.as_slice() {
        [] => return String::new(),
        [first, rest @ ..] if rest.iter().all(|n| n == first) => first.to_string(),
        all => {
            let words: Vec<String> = all.iter().map(u64::to_string).collect();
            words.join(", ")
        }
    };
    format!(", depth {each}{how}")
}
