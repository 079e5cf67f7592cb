//! `qctl orphans QUEUE`: return the in-flight jobs of expired consumers to the queue, after
//! saying which consumers and how many jobs, and asking.

use std::time::Duration;

use anyhow::Context as _;
use serde_json::json;

use super::Context;
use crate::cli::ConfirmArgs;
use crate::engine::consumers::{self, ConsumerInfo, Recovery, Step};
use crate::engine::ExitCode;
use crate::output::{plural, printable, stopped_by};
use crate::signals;

/// Below this age a heartbeat looks alive: the default `--orphan-after`, and twice the
/// heartbeat interval of Go CurlyQ consumers.
pub const LOOKS_ALIVE: Duration = Duration::from_secs(120);

/// A consumer the command would touch.
struct Planned<'a> {
    consumer: &'a ConsumerInfo,
    /// Heartbeat age in seconds (negative: in the future).
    age: f64,
    /// Why it is left alone, if it is.
    skip: Option<String>,
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
    // Expired ones, and ones with a heartbeat in the future (skipped), with why.
    let plan: Vec<Planned> = list
        .iter()
        .filter_map(|c| {
            let ahead = c.heartbeat > now + consumers::AHEAD_TOLERANCE;
            let skip = c.problem.clone().or_else(|| {
                ahead.then(|| {
                    format!(
                        "{}; a running qctl consumer recovers it once the heartbeat stays unchanged for --orphan-after",
                        consumers::ahead_note(c.heartbeat, now)
                    )
                })
            });
            (c.heartbeat <= cutoff || ahead).then_some(Planned {
                consumer: c,
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
    let alive: Vec<&&Planned> = recoverable
        .iter()
        .filter(|p| p.age < LOOKS_ALIVE.as_secs_f64())
        .collect();

    if confirm.dry_run {
        if ctx.out.json {
            let rows: Vec<_> = plan
                .iter()
                .map(|p| {
                    json!({
                        "consumer": p.consumer.key,
                        "in_flight": p.consumer.in_flight,
                        "heartbeat_age_secs": p.age,
                        "looks_alive": p.skip.is_none() && p.age < LOOKS_ALIVE.as_secs_f64(),
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
                        "would recover {} of {} (heartbeat {} ago{})",
                        plural(p.consumer.in_flight.unwrap_or(0), "job"),
                        printable(&p.consumer.key),
                        seconds(p.age),
                        if p.age < LOOKS_ALIVE.as_secs_f64() {
                            "; it looks alive"
                        } else {
                            ""
                        }
                    ))?,
                }
            }
            if plan.is_empty() {
                ctx.out.note("no expired consumers");
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
        let mut question = format!(
            "return {} of {} silent for more than {} to {}",
            plural(jobs, "job"),
            plural(recoverable.len() as u64, "consumer"),
            seconds(orphan_after.as_secs_f64()),
            keys.active
        );
        if !alive.is_empty() {
            let names: Vec<String> = alive
                .iter()
                .map(|p| {
                    format!(
                        "{} (heartbeat {} ago)",
                        printable(&p.consumer.key),
                        seconds(p.age)
                    )
                })
                .collect();
            question.push_str(&format!(
                ", although {} look{} alive: a heartbeat younger than {} is normal for a running consumer (Go CurlyQ consumers beat every 60s), which would then lose its jobs",
                names.join(", "),
                if alive.len() == 1 { "s" } else { "" },
                seconds(LOOKS_ALIVE.as_secs_f64())
            ));
        }
        question.push('?');
        if let Some(end) = super::ask(&mut ctx, &question, confirm.yes, &stop).await? {
            return Ok(end);
        }
    }

    let mut report = Recovery::default();
    let mut failure: Option<anyhow::Error> = None;
    // Jobs whose move is not known: a second signal did not wait for the call's answer.
    let mut unconfirmed = false;
    // Whether a stop request ended the run before it was through.
    let mut cut_short = false;
    'consumers: for p in plan.iter().filter(|p| p.skip.is_none()) {
        if stop.requested.is_cancelled() {
            cut_short = true;
            break;
        }
        let key = &p.consumer.key;
        if !keys.is_inflight_key(key) {
            // Planned consumers are well-formed; recover() says why one is not.
            consumers::recover(&mut redis, &keys, key, cutoff, &mut report).await?;
            continue;
        }
        let (mut moved, mut left) = (0u64, p.consumer.in_flight.unwrap_or(0));
        loop {
            if stop.requested.is_cancelled() {
                cut_short = true;
                break;
            }
            // The script looks at the heartbeat again: a consumer that beat since is left
            // alone.
            let step = tokio::select! {
                step = consumers::recover_step(&mut redis, &keys, key, cutoff) => step,
                _ = stop.forced.cancelled() => {
                    unconfirmed = true;
                    cut_short = true;
                    break;
                }
            };
            match step {
                Ok(Step::Alive) => break,
                Ok(Step::NotASet) => {
                    report
                        .skipped
                        .push((key.clone(), "its in-flight key is not a set".into()));
                    break;
                }
                Ok(Step::Moved { moved: n, left: l }) => {
                    moved += n;
                    left = l;
                    if l == 0 {
                        break;
                    }
                }
                Err(err) => {
                    // A lost reply: what is left in the set tells what the call moved.
                    if !matches!(err, crate::engine::Error::Redis { code: Some(_), .. }) {
                        let now: Result<u64, _> = redis
                            .query(redis::cmd("SCARD").arg(key), format!("SCARD {key}"))
                            .await;
                        match now {
                            Ok(now) => moved += left.saturating_sub(now),
                            Err(_) => unconfirmed = true,
                        }
                    }
                    failure = Some(
                        anyhow::Error::from(err)
                            .context(format!("cannot recover the orphans of queue {queue:?}")),
                    );
                    break;
                }
            }
        }
        if moved > 0 {
            report.recovered.push((key.clone(), moved));
        }
        if failure.is_some() || unconfirmed || cut_short {
            break 'consumers;
        }
    }
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
    let written = write_report(&mut ctx, &report, &keys.active, plan.is_empty(), &stopped);
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
            (None, true) => ctx.out.note("no expired consumers"),
            (None, false) => ctx.out.note(format_args!(
                "moved {} back to {active}; {} skipped",
                plural(report.moved(), "job"),
                plural(report.skipped.len() as u64, "consumer")
            )),
        }
    }
    ctx.out.flush()
}

/// `14s`, `3m20s`: an age or a span for messages.
fn seconds(secs: f64) -> String {
    let secs = secs.abs().round() as u64;
    humantime::format_duration(Duration::from_secs(secs))
        .to_string()
        .replace(' ', "")
}
