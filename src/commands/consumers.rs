//! `qctl consumers QUEUE`: each consumer's heartbeat age, jobs in flight, alive or expired,
//! and for qctl consumers where they run, what they run and their counters.

use anyhow::Context as _;

use super::orphans::seconds;
use super::Context;
use crate::engine::consumers::{self, command_line, Process, Seen};
use crate::engine::text::{agree, plural};
use crate::engine::ExitCode;
use crate::output::{consumer_cells, consumer_name, printable, shell_quote, CONSUMER_COLUMNS};

pub async fn run(
    mut ctx: Context,
    queue: &str,
    orphan_after: std::time::Duration,
) -> anyhow::Result<ExitCode> {
    let keys = ctx.keys(queue)?;
    let mut redis = ctx.server()?.connect().await?;
    super::require_queue(&mut redis, &keys).await?;
    let seen = consumers::seen(&mut redis, &keys)
        .await
        .with_context(|| format!("cannot list the consumers of queue {queue:?}"))?;
    let Seen {
        list,
        described,
        processes,
        now,
    } = &seen;
    let now = *now;
    let cutoff = now - orphan_after.as_secs_f64();
    if ctx.out.json {
        ctx.out.json_line(&seen.json(&keys, orphan_after))?;
    } else if list.is_empty() {
        ctx.out
            .note(format_args!("no consumers in {}", keys.consumers));
    } else {
        let mut rows = Vec::with_capacity(list.len());
        let mut commands = Vec::new();
        let mut gone = Vec::new();
        for ((c, d), process) in list.iter().zip(described).zip(processes) {
            let pid = d.as_ref().and_then(|d| d.pid).unwrap_or(0);
            let fresh = c.heartbeat > cutoff;
            let name = consumer_name(c, &keys);
            rows.push(consumer_cells(c, d.as_ref(), *process, &keys, now, cutoff));
            let d = d.clone().unwrap_or_default();
            if fresh && c.problem.is_none() && *process == Some(Process::Gone) {
                gone.push(gone_note(&name, pid, c, now, orphan_after, &keys.name));
            }
            if let Some(command) = &d.command {
                commands.push(format!(
                    "{name}: {}: {}",
                    d.setup(now),
                    command_line(command)
                ));
            }
        }
        let table = ctx.out.fit_table(&CONSUMER_COLUMNS, rows);
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
        if seen.undescribed(&keys) {
            ctx.out.note(consumers::UNDESCRIBED);
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
