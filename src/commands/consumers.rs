//! `qctl consumers QUEUE`: each consumer's heartbeat age, jobs in flight, alive or expired,
//! and for qctl consumers where they run, what they run and their counters.

use anyhow::Context as _;
use serde_json::json;

use super::orphans::seconds;
use super::Context;
use crate::engine::consumers::{self, Description, Process};
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
                    "run_by": run_by(&c.key, &keys, d.version.is_some()),
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
                    "clock_ahead_secs": ahead(c.heartbeat, now),
                    "in_flight": c.in_flight,
                    "alive": c.heartbeat > cutoff && *process != Some(Process::Gone),
                    "process": process,
                    "problem": c.problem.clone().or_else(|| ahead(c.heartbeat, now).map(|_| ahead_problem(c.heartbeat, now))),
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
            let state = state(c, d.as_ref(), *process, now, cutoff);
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
                    None => run_by(&c.key, &keys, false).into(),
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

/// How far (seconds) a heartbeat is in the future, when it is more than a few seconds.
fn ahead(heartbeat: f64, now: f64) -> Option<f64> {
    (heartbeat > now + consumers::AHEAD_TOLERANCE).then(|| (heartbeat - now).round())
}

fn ahead_problem(heartbeat: f64, now: f64) -> String {
    format!(
        "{}; a running qctl consumer recovers its jobs once the heartbeat stays unchanged for --orphan-after",
        consumers::ahead_note(heartbeat, now)
    )
}

/// A consumer's state as the tables show it: `alive`, `expired`, `gone (pid 4242 not
/// running)` for one on this host whose process is gone before its lease ran out, `expired
/// (pid 4242 still running)`, a heartbeat in the future, or what is wrong with its member.
/// `process` is [`Description::process`] of what it wrote; `cutoff` the oldest heartbeat
/// that is alive.
pub fn state(
    c: &consumers::ConsumerInfo,
    described: Option<&Description>,
    process: Option<Process>,
    now: f64,
    cutoff: f64,
) -> String {
    let pid = described.and_then(|d| d.pid).unwrap_or(0);
    match (
        &c.problem,
        ahead(c.heartbeat, now),
        c.heartbeat > cutoff,
        process,
    ) {
        (Some(p), _, _, _) => format!("invalid: {p}"),
        (None, Some(_), _, _) => ahead_problem(c.heartbeat, now),
        (None, None, true, Some(Process::Gone)) => format!("gone (pid {pid} not running)"),
        (None, None, true, _) => "alive".into(),
        (None, None, false, Some(Process::Gone)) => format!("expired (pid {pid} not running)"),
        (None, None, false, Some(Process::Running)) => {
            format!("expired (pid {pid} still running)")
        }
        (None, None, false, None) => "expired".into(),
    }
}

/// Who runs a consumer: `qctl` when it described itself, else `CurlyQ` (a Go CurlyQ
/// consumer, or a qctl consumer whose description expired, a day after its lease), `-` for a
/// member that is no in-flight key.
pub fn run_by(key: &str, keys: &crate::engine::QueueKeys, described: bool) -> &'static str {
    match (described, keys.consumer_uuid(key).is_some()) {
        (true, _) => "qctl",
        (false, true) => "CurlyQ",
        (false, false) => "-",
    }
}

/// A consumer as the table names it: the first 8 characters of its UUID (the JSON has the
/// whole key), or the whole member when it is no in-flight key.
pub fn short_name(key: &str, keys: &crate::engine::QueueKeys) -> String {
    match keys.consumer_uuid(key) {
        Some(uuid) => uuid[..8].to_string(),
        None => printable(key),
    }
}

/// Where a consumer runs, as the tables show it: `HOST:PID`, or `-` when it wrote nothing.
pub fn host_pid(d: Option<&Description>) -> String {
    match d.map(|d| (&d.host, d.pid)) {
        None | Some((None, None)) => "-".into(),
        Some((h, p)) => format!(
            "{}:{}",
            printable(h.as_deref().unwrap_or("-")),
            p.map_or("-".into(), |p| p.to_string())
        ),
    }
}

/// A handler's program and arguments as one line, each word quoted for a POSIX shell where
/// it needs it.
pub fn command_line(words: &[String]) -> String {
    words
        .iter()
        .map(|w| printable(&shell_quote(w)))
        .collect::<Vec<_>>()
        .join(" ")
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
