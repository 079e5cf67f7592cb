//! `qctl check [QUEUE...]`: queues against thresholds, in the monitoring-plugins convention:
//! one line `QCTL STATUS - summary | perfdata`, a line per queue after it, and the exit code
//! 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN.

use serde_json::json;

use super::Context;
use crate::cli::CheckArgs;
use crate::engine::health::{Measure, Severity};
use crate::engine::history::{self, Tally};
use crate::engine::queues::QueueStats;
use crate::engine::ExitCode;
use crate::output::{printable, thousands};

/// One queue's verdict.
struct Verdict {
    queue: String,
    status: Severity,
    measures: Vec<Measure>,
    /// What the check could not know, or why it is UNKNOWN.
    notes: Vec<String>,
}

pub async fn run(mut ctx: Context, args: CheckArgs) -> anyhow::Result<ExitCode> {
    let verdicts = match judge(&ctx, &args).await {
        Ok(v) => v,
        Err(e) => {
            let reason: Vec<String> = e.chain().map(|c| c.to_string()).collect();
            let line = format!(
                "QCTL UNKNOWN - {}",
                printable(&one_line(&reason.join(": ")))
            );
            if ctx.out.json {
                let _ = ctx.out.json_line(&json!({
                    "status": Severity::Unknown,
                    "code": 3,
                    "summary": line,
                    "queues": [],
                }));
            } else {
                let _ = ctx.out.line(&line);
            }
            let _ = ctx.out.flush();
            return Ok(Severity::Unknown.exit_code());
        }
    };
    let status = verdicts.iter().fold(Severity::Ok, |s, v| s.worst(v.status));
    let summary = summary(&verdicts, status);
    // A closed output must not change the verdict: the exit code is the answer.
    let _ = if ctx.out.json {
        let queues: Vec<_> = verdicts
            .iter()
            .map(|v| {
                json!({
                    "queue": v.queue,
                    "status": v.status,
                    "measures": v.measures,
                    "notes": v.notes,
                })
            })
            .collect();
        ctx.out.json_line(&json!({
            "status": status,
            "code": status.exit_code() as u8,
            "summary": summary,
            "queues": queues,
        }))
    } else {
        write_text(&mut ctx, &verdicts, &summary)
    };
    let _ = ctx.out.flush();
    Ok(status.exit_code())
}

/// The first line, then a line per queue with every measure and note.
fn write_text(ctx: &mut Context, verdicts: &[Verdict], summary: &str) -> std::io::Result<()> {
    let perf: Vec<String> = verdicts
        .iter()
        .flat_map(|v| v.measures.iter().map(|m| perfdata(&v.queue, m)))
        .flatten()
        .collect();
    if perf.is_empty() {
        ctx.out.line(summary)?;
    } else {
        ctx.out.line(format!("{summary} | {}", perf.join(" ")))?;
    }
    for v in verdicts {
        let mut parts: Vec<String> = v.measures.iter().map(describe).collect();
        parts.extend(v.notes.iter().cloned());
        ctx.out.line(format!(
            "{} {}: {}",
            v.status.label(),
            printable(&v.queue),
            printable(&parts.join("; "))
        ))?;
    }
    Ok(())
}

/// `QCTL STATUS - ...`: the queues past a threshold with what they passed, or how many
/// queues are fine.
fn summary(verdicts: &[Verdict], status: Severity) -> String {
    let problems: Vec<String> = verdicts
        .iter()
        .filter(|v| v.status != Severity::Ok)
        .map(|v| {
            let mut parts: Vec<String> = v
                .measures
                .iter()
                .filter(|m| m.status != Severity::Ok)
                .map(describe)
                .collect();
            if v.status == Severity::Unknown && parts.is_empty() {
                parts.extend(v.notes.iter().take(1).cloned());
            }
            format!("{}: {}", printable(&v.queue), parts.join(", "))
        })
        .collect();
    let text = if problems.is_empty() {
        match verdicts.len() {
            0 => "no queues found".to_string(),
            1 => format!("{} OK", printable(&verdicts[0].queue)),
            n => format!("{n} queues OK"),
        }
    } else {
        problems.join("; ")
    };
    format!("QCTL {} - {}", status.label(), printable(&one_line(&text)))
}

/// A measure in words: `dead 12 > 10`, `consumers 0 < 1`, `ready 3`.
fn describe(m: &Measure) -> String {
    let value = match m.value {
        None if m.status == Severity::Ok => return format!("{} none (nothing ran)", m.name),
        None => return format!("{} unknown (its key holds the wrong type)", m.name),
        Some(v) => shown(m, v),
    };
    match m.passed() {
        Some(limit) => {
            let op = if m.below { "<" } else { ">" };
            format!("{} {value} {op} {}", m.name, shown(m, limit))
        }
        None => format!("{} {value}", m.name),
    }
}

/// A value in the measure's unit.
fn shown(m: &Measure, v: f64) -> String {
    match m.unit {
        "s" => format!("{}s", (v * 10.0).round() / 10.0),
        "%" => format!("{}%", (v * 1000.0).round() / 10.0),
        _ => thousands(v as u64),
    }
}

/// `label=value[unit];warn;crit;min`: labels quoted when they hold anything but letters,
/// digits, `_`, `-`, `.` and `:`; thresholds of too-little measures as ranges `N:`.
fn perfdata(queue: &str, m: &Measure) -> Option<String> {
    let value = m.value?;
    let label = printable(&format!("{queue}.{}", m.name));
    let plain = label
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "_-.:".contains(c));
    let label = if plain {
        label
    } else {
        format!("'{}'", label.replace('\'', "''").replace(['\n', '\r'], " "))
    };
    let scale = if m.unit == "%" { 100.0 } else { 1.0 };
    let num = |v: f64| {
        let v = (v * scale * 1000.0).round() / 1000.0;
        v.to_string()
    };
    let limit = |l: Option<f64>| match l {
        Some(l) if m.below => format!("{}:", num(l)),
        Some(l) => num(l),
        None => String::new(),
    };
    Some(format!(
        "{label}={}{};{};{};0",
        num(value),
        m.unit,
        limit(m.warn),
        limit(m.crit)
    ))
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Reads the queues and judges each against the thresholds given.
async fn judge(ctx: &Context, args: &CheckArgs) -> anyhow::Result<Vec<Verdict>> {
    let rate_asked = args.failure_rate_max.is_some() || args.warn_failure_rate.is_some();
    let asked = args.dead_max.is_some()
        || args.warn_dead.is_some()
        || args.ready_max.is_some()
        || args.warn_ready.is_some()
        || args.overdue_max.is_some()
        || args.warn_overdue.is_some()
        || args.min_consumers.is_some()
        || args.warn_min_consumers.is_some()
        || rate_asked
        || args.stale_consumers
        || args.warn_stale_consumers;
    if !asked {
        anyhow::bail!(
            "no threshold given: give at least one of --dead-max, --ready-max, --overdue-max, \
             --min-consumers, --failure-rate-max, --stale-consumers (or their --warn-* forms)"
        );
    }
    for queue in &args.queues {
        ctx.keys(queue)?;
    }
    let mut redis = ctx.server()?.connect().await?;
    let reading = super::stats::read(
        &mut redis,
        &args.queues,
        ctx.global.cluster,
        args.orphan_after,
        args.max_keys,
    )
    .await?;
    if let Some(note) = &reading.unreadable {
        anyhow::bail!("{note}");
    }
    let now = redis.server_time().await?;
    let mut verdicts = Vec::with_capacity(reading.stats.len());
    for s in reading.stats {
        let keys = ctx.keys(&s.queue)?;
        let mut notes = Vec::new();
        if !args.queues.is_empty() && !crate::engine::queues::exists(&mut redis, &keys).await? {
            verdicts.push(Verdict {
                queue: s.queue.clone(),
                status: Severity::Unknown,
                measures: Vec::new(),
                notes: vec![super::no_queue(&mut redis, &s.queue).await?],
            });
            continue;
        }
        let mut measures = measures(&s, args);
        if rate_asked {
            // What is not kept cannot be measured: a longer window is cut to the history.
            let span = history::kept(args.window);
            let window =
                history::minutes(&mut redis, &keys, now - span.as_secs_f64() + 60.0, now).await?;
            let mut seen = Tally::default();
            for (_, minute) in &window {
                seen.add(minute);
            }
            let rate = seen.failure_rate();
            let mut m = Measure::judge(
                "failure_rate",
                rate,
                args.warn_failure_rate,
                args.failure_rate_max,
                false,
                "%",
            );
            if rate.is_none() {
                // Nothing ran: no rate, and nothing failed.
                m.status = Severity::Ok;
                notes.push(format!(
                    "no run settled by a qctl consumer in the last {}",
                    humantime::format_duration(span)
                ));
            }
            if span < args.window {
                notes.push(format!(
                    "--window {} is longer than the {} of history qctl consumers keep: measured over the last {}",
                    super::history::span_words(args.window),
                    super::history::span_words(history::KEPT),
                    super::history::span_words(span)
                ));
            }
            measures.push(m);
            if let Some(blind) = super::history::blind_spot(&mut redis, &keys).await? {
                notes.push(blind);
            }
        }
        if !s.wrong_type.is_empty() {
            notes.push(format!("wrong type: {}", s.wrong_type.join(", ")));
        }
        let status = measures
            .iter()
            .fold(Severity::Ok, |st, m| st.worst(m.status));
        verdicts.push(Verdict {
            queue: s.queue.clone(),
            status,
            measures,
            notes,
        });
    }
    Ok(verdicts)
}

/// The measures the thresholds ask for, from the counts.
fn measures(s: &QueueStats, args: &CheckArgs) -> Vec<Measure> {
    let n = |v: Option<u64>| v.map(|v| v as f64);
    let mut out = Vec::new();
    if args.dead_max.is_some() || args.warn_dead.is_some() {
        out.push(Measure::judge(
            "dead",
            n(s.dead),
            n(args.warn_dead),
            n(args.dead_max),
            false,
            "",
        ));
    }
    if args.ready_max.is_some() || args.warn_ready.is_some() {
        let ready = s.active.zip(s.scheduled_due).map(|(a, d)| a + d);
        out.push(Measure::judge(
            "ready",
            n(ready),
            n(args.warn_ready),
            n(args.ready_max),
            false,
            "",
        ));
    }
    if args.overdue_max.is_some() || args.warn_overdue.is_some() {
        let secs = |d: Option<std::time::Duration>| d.map(|d| d.as_secs_f64());
        out.push(Measure::judge(
            "overdue",
            s.overdue_secs,
            secs(args.warn_overdue),
            secs(args.overdue_max),
            false,
            "s",
        ));
    }
    if args.min_consumers.is_some() || args.warn_min_consumers.is_some() {
        out.push(Measure::judge(
            "consumers",
            n(s.consumers_alive),
            n(args.warn_min_consumers),
            n(args.min_consumers),
            true,
            "",
        ));
    }
    if args.stale_consumers || args.warn_stale_consumers {
        let (warn, crit) = if args.stale_consumers {
            (None, Some(0.0))
        } else {
            (Some(0.0), None)
        };
        out.push(Measure::judge(
            "stale_consumers",
            n(s.consumers_expired),
            warn,
            crit,
            false,
            "",
        ));
    }
    out
}
