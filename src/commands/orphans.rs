//! `qctl orphans QUEUE`: return the in-flight jobs of expired consumers to the queue, after
//! saying which consumers and how many jobs, and asking.

use std::time::Duration;

use anyhow::Context as _;
use serde_json::json;

use super::consumers::gone_note;
use super::Context;
use crate::cli::ConfirmArgs;
use crate::engine::changes::Change;
use crate::engine::consumers::{
    self, host_pid, short_name, ConsumerInfo, Description, Process, Recovery,
};
use crate::engine::ExitCode;
use crate::output::{plural, printable, stopped_by};
use crate::signals;

pub use crate::engine::consumers::LOOKS_ALIVE;

/// How many consumers the lines before the question name at most.
const NAMED: usize = 10;

/// A consumer the command would touch.
struct Planned<'a> {
    consumer: &'a ConsumerInfo,
    /// What a qctl consumer wrote about itself.
    description: Option<&'a Description>,
    /// Heartbeat age in seconds (negative: in the future).
    age: f64,
    /// Why it is left alone, if it is.
    skip: Option<String>,
}

impl Planned<'_> {
    /// Whether its process runs, when it runs on this host.
    fn process(&self) -> Option<Process> {
        self.description.and_then(Description::process)
    }

    /// Whether it may be alive: its heartbeat is younger than a live consumer's may be, and
    /// its process is not known to be gone.
    fn looks_alive(&self) -> bool {
        self.skip.is_none()
            && self.process() != Some(Process::Gone)
            && (self.age < LOOKS_ALIVE.as_secs_f64() || self.process() == Some(Process::Running))
    }

    /// `, vm:4242; its process is gone: pid 4242 is not running on this host`: where it
    /// runs and what this host knows of its process.
    fn whereabouts(&self) -> String {
        let Some(d) = self.description else {
            return String::new();
        };
        let pid = d.pid.unwrap_or(0);
        let process = match self.process() {
            Some(Process::Gone) => {
                format!("; its process is gone: pid {pid} is not running on this host")
            }
            Some(Process::Running) => format!("; alive: pid {pid} runs on this host"),
            None => String::new(),
        };
        format!(", {}{process}", host_pid(Some(d)))
    }
}

pub async fn run(
    mut ctx: Context,
    queue: &str,
    orphan_after: Duration,
    confirm: ConfirmArgs,
) -> anyhow::Result<ExitCode> {
    let keys = ctx.keys(queue)?;
    let mut redis = ctx.server()?.connect().await?;
    super::require_queue(&mut redis, &keys).await?;
    let now = redis.server_time().await?;
    let cutoff = now - orphan_after.as_secs_f64();
    let list = consumers::list(&mut redis, &keys)
        .await
        .with_context(|| format!("cannot list the consumers of queue {queue:?}"))?;
    let described = consumers::describe(&mut redis, &keys, &list)
        .await
        .with_context(|| {
            format!("cannot read the descriptions of the consumers of queue {queue:?}")
        })?;
    // Expired ones, and ones with a heartbeat in the future (skipped), with why.
    let plan: Vec<Planned> = list
        .iter()
        .zip(&described)
        .filter_map(|(c, d)| {
            consumers::orphaned(c, now, cutoff).map(|skip| Planned {
                consumer: c,
                description: d.as_ref(),
                age: now - c.heartbeat,
                skip,
            })
        })
        .collect();
    let recoverable: Vec<&Planned> = plan.iter().filter(|p| p.skip.is_none()).collect();
    let jobs: u64 = recoverable
        .iter()
        .filter_map(|p| p.consumer.in_flight)
        .sum();
    let alive: Vec<&&Planned> = recoverable.iter().filter(|p| p.looks_alive()).collect();
    // With nothing expired: when the first will be, and what a shorter cut-off does.
    let waiting = if plan.is_empty() {
        none_expired(&list, &described, now, orphan_after, &keys)
    } else {
        Vec::new()
    };

    if confirm.dry_run {
        if ctx.out.json {
            let rows: Vec<_> = plan
                .iter()
                .map(|p| {
                    json!({
                        "consumer": p.consumer.key,
                        "in_flight": p.consumer.in_flight,
                        "heartbeat_age_secs": p.age,
                        "looks_alive": p.looks_alive(),
                        "process": p.process(),
                        "skip": p.skip,
                    })
                })
                .collect();
            ctx.out
                .json_line(&json!({"dry_run": true, "expired": rows, "jobs": jobs}))?;
        } else {
            for p in &plan {
                match &p.skip {
                    Some(why) => ctx
                        .out
                        .line(format!("would skip {}: {why}", printable(&p.consumer.key)))?,
                    None => ctx.out.line(format!(
                        "would recover {} of {} (heartbeat {} ago{}{})",
                        plural(p.consumer.in_flight.unwrap_or(0), "job"),
                        printable(&p.consumer.key),
                        seconds(p.age),
                        p.whereabouts(),
                        if p.looks_alive() && p.process().is_none() {
                            "; it looks alive"
                        } else {
                            ""
                        }
                    ))?,
                }
            }
            for line in &waiting {
                ctx.out.note(line);
            }
        }
        ctx.out.flush()?;
        ctx.out.note("dry run: nothing changed");
        return Ok(ExitCode::Success);
    }

    // From the question on, a stop request ends the command at a clean point: before the
    // first move nothing changed, and from then on the call in flight answers and the
    // command says what was moved.
    let stop = signals::install()?;
    if !recoverable.is_empty() {
        // Each consumer on a line of its own and a warning for those that may be alive,
        // then a short question: asked on a terminal, or refused without one.
        if !confirm.yes {
            // Those that may be alive first; at most [`NAMED`] lines.
            let mut named: Vec<&&Planned> = alive.clone();
            named.extend(recoverable.iter().filter(|p| !p.looks_alive()));
            for p in named.iter().take(NAMED) {
                ctx.out.note(format_args!(
                    "{}: {}, heartbeat {} ago{}{}",
                    printable(&p.consumer.key),
                    plural(p.consumer.in_flight.unwrap_or(0), "job"),
                    seconds(p.age),
                    p.whereabouts(),
                    if p.looks_alive() && p.process().is_none() {
                        "; it may be alive"
                    } else {
                        ""
                    }
                ));
            }
            if named.len() > NAMED {
                ctx.out.note(format_args!(
                    "and {} more",
                    plural((named.len() - NAMED) as u64, "consumer")
                ));
            }
            if !alive.is_empty() {
                let running_here = alive.iter().any(|p| p.process() == Some(Process::Running));
                ctx.out.warn(format_args!(
                    "{} may be alive: a heartbeat younger than {} is normal for a running \
                     consumer (Go CurlyQ consumers beat every 60s){}; a live consumer whose \
                     jobs are returned loses them, and they may run twice",
                    match alive.as_slice() {
                        [one] => printable(&one.consumer.key),
                        more => format!("{} of these consumers", more.len()),
                    },
                    seconds(LOOKS_ALIVE.as_secs_f64()),
                    if running_here {
                        ", and a pid that runs on this host is a live process"
                    } else {
                        ""
                    }
                ));
            }
        }
        let question = format!(
            "return {} of {} silent for more than {} to {}?",
            plural(jobs, "job"),
            plural(recoverable.len() as u64, "consumer"),
            seconds(orphan_after.as_secs_f64()),
            keys.active
        );
        if let Some(end) = super::ask(&mut ctx, &question, confirm.yes, &stop).await? {
            return Ok(end);
        }
    }

    if !recoverable.is_empty() {
        super::may_record(&mut redis, &keys).await?;
    }
    let members: Vec<(String, u64)> = plan
        .iter()
        .filter(|p| p.skip.is_none())
        .map(|p| (p.consumer.key.clone(), p.consumer.in_flight.unwrap_or(0)))
        .collect();
    let consumers::Recovered {
        mut report,
        failure,
        unconfirmed,
        cut_short,
    } = consumers::recover_expired(
        &mut redis,
        &keys,
        &members,
        cutoff,
        &stop.requested,
        &stop.forced,
    )
    .await?;
    let failure = failure.map(|err| {
        anyhow::Error::from(err).context(format!("cannot recover the orphans of queue {queue:?}"))
    });
    // A stop request that came once the last call was out stopped nothing.
    let stopped = stop.cause().filter(|_| cut_short || failure.is_some()).map(|cause| {
        let mut text = format!(
            "{}: moved {} back to {}",
            stopped_by(cause),
            plural(report.moved(), "job"),
            keys.active
        );
        if unconfirmed {
            text.push_str("; the last call, up to 1,000 jobs, was sent and whether it took effect is not known");
        }
        text.push_str("; run the same command again to go on");
        (cause, text)
    });
    if !recoverable.is_empty() {
        let mut change = Change::new("orphans");
        change.done = report.moved();
        let reasons = report.skipped.iter().map(|(_, why)| why);
        for why in reasons.chain(plan.iter().filter_map(|p| p.skip.as_ref())) {
            change.skip(why);
        }
        change.detail = report.detail();
        change.interrupted = stopped.as_ref().map(|(cause, _)| cause.name().to_string());
        change.error = failure.as_ref().map(|err| format!("{err:#}"));
        change.unconfirmed = u64::from(unconfirmed);
        super::record(&ctx, &mut redis, &keys, &change, Some(&stop)).await;
    }
    if stopped.is_none() {
        if let Some(err) = failure {
            let unknown = match unconfirmed {
                true => "; the last call, up to 1,000 jobs, was sent and whether it took effect is not known",
                false => "",
            };
            return Err(err.context(format!(
                "moved {} back to {} before the error{unknown}",
                plural(report.moved(), "job"),
                keys.active
            )));
        }
    }
    report.skipped.extend(
        plan.iter()
            .filter_map(|p| Some((p.consumer.key.clone(), p.skip.clone()?))),
    );
    let written = write_report(
        &mut ctx,
        &report,
        &keys.active,
        &waiting,
        plan.is_empty(),
        &stopped,
    );
    if let Some((cause, text)) = stopped {
        // The output may be the very thing that was closed: what was moved goes to
        // whichever stream is still open.
        ctx.out.last_word(&text);
        return Ok(cause.exit_code());
    }
    // The work is done: a reader gone by now changes nothing.
    ctx.out.after_done(written)?;
    Ok(if report.skipped.is_empty() {
        ExitCode::Success
    } else {
        ExitCode::Partial
    })
}

/// What was recovered and skipped: JSON, or a line per consumer and a closing note (left to
/// the last word of a run that was stopped).
fn write_report(
    ctx: &mut Context,
    report: &Recovery,
    active: &str,
    waiting: &[String],
    none_expired: bool,
    stopped: &Option<(signals::Cause, String)>,
) -> std::io::Result<()> {
    if ctx.out.json {
        let mut value = json!({
            "recovered": report.recovered.iter().map(|(c, n)| json!({"consumer": c, "jobs": n})).collect::<Vec<_>>(),
            "skipped": report.skipped.iter().map(|(c, why)| json!({"consumer": c, "reason": why})).collect::<Vec<_>>(),
            "moved": report.moved(),
        });
        if let Some((cause, _)) = stopped {
            value["interrupted"] = cause.name().into();
        }
        ctx.out.json_line(&value)?;
    } else {
        for (c, n) in &report.recovered {
            ctx.out.line(format!(
                "recovered {} of {}",
                plural(*n, "job"),
                printable(c)
            ))?;
        }
        for (c, why) in &report.skipped {
            ctx.out.line(format!("skipped {}: {why}", printable(c)))?;
        }
        match (stopped, none_expired) {
            (Some(_), _) => {}
            (None, true) => {
                for line in waiting {
                    ctx.out.note(line);
                }
            }
            (None, false) => ctx.out.note(format_args!(
                "moved {} back to {active}; {} skipped",
                plural(report.moved(), "job"),
                plural(report.skipped.len() as u64, "consumer")
            )),
        }
    }
    ctx.out.flush()
}

/// What to say when no consumer is expired: none is registered, or when the first lease
/// ends and what --orphan-after does, and the consumers on this host whose process is gone.
fn none_expired(
    list: &[ConsumerInfo],
    described: &[Option<Description>],
    now: f64,
    orphan_after: Duration,
    keys: &crate::engine::QueueKeys,
) -> Vec<String> {
    // Those whose heartbeat will run out: well-formed, not in the future.
    let waiting: Vec<(&ConsumerInfo, Option<&Description>)> = list
        .iter()
        .zip(described)
        .filter(|(c, _)| c.problem.is_none() && c.heartbeat <= now + consumers::AHEAD_TOLERANCE)
        .map(|(c, d)| (c, d.as_ref()))
        .collect();
    let Some((first, d)) = waiting
        .iter()
        .min_by(|a, b| a.0.heartbeat.total_cmp(&b.0.heartbeat))
    else {
        return vec![if list.is_empty() {
            format!(
                "no expired consumers: no consumer is registered in {}",
                keys.consumers
            )
        } else {
            format!(
                "no expired consumers: {} holds no consumer whose heartbeat can expire",
                keys.consumers
            )
        }];
    };
    let cutoff = orphan_after.as_secs_f64();
    let left = (first.heartbeat + cutoff - now).max(0.0);
    let mut lines = vec![format!(
        "no expired consumers: a consumer is expired once its heartbeat is older than \
         --orphan-after ({}); the first to expire, {}{} with {}, does in {} unless it beats \
         again. A shorter --orphan-after recovers sooner, naming the consumers that may be \
         alive and asking first",
        seconds(cutoff),
        short_name(&first.key, keys),
        match d {
            Some(d) => format!(" ({})", host_pid(Some(d))),
            None => String::new(),
        },
        plural(first.in_flight.unwrap_or(0), "job"),
        seconds(left.ceil()),
    )];
    for (c, d) in &waiting {
        if d.and_then(Description::process) == Some(Process::Gone) {
            let pid = d.and_then(|d| d.pid).unwrap_or(0);
            let name = short_name(&c.key, keys);
            lines.push(gone_note(&name, pid, c, now, orphan_after, &keys.name));
        }
    }
    lines
}

/// `14s`, `3m20s`: an age or a span for messages.
pub fn seconds(secs: f64) -> String {
    let secs = secs.abs().round() as u64;
    humantime::format_duration(Duration::from_secs(secs))
        .to_string()
        .replace(' ', "")
}
