//! `qctl check [QUEUE...]`: queues against thresholds, in the monitoring-plugins convention:
//! one line `QCTL STATUS - summary | perfdata`, a line per queue after it, and the exit code
//! 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN.

use super::Context;
use crate::cli::CheckArgs;
use crate::engine::health::{self, Checked, Measure, Severity, Thresholds, Verdict};
use crate::engine::ExitCode;
use crate::output::printable;

pub async fn run(mut ctx: Context, args: CheckArgs) -> anyhow::Result<ExitCode> {
    let checked = match judge(&ctx, &args).await {
        Ok(v) => Checked::of(v),
        Err(e) => {
            let reason: Vec<String> = e.chain().map(|c| c.to_string()).collect();
            let checked = Checked::unknown(&reason.join(": "));
            if ctx.out.json {
                let _ = ctx.out.json_line(&checked);
            } else {
                let _ = ctx.out.line(&checked.summary);
            }
            let _ = ctx.out.flush();
            return Ok(Severity::Unknown.exit_code());
        }
    };
    // A closed output must not change the verdict: the exit code is the answer.
    let _ = if ctx.out.json {
        ctx.out.json_line(&checked)
    } else {
        write_text(&mut ctx, &checked.queues, &checked.summary)
    };
    let _ = ctx.out.flush();
    Ok(checked.status.exit_code())
}

/// The thresholds of the command line.
fn thresholds(args: &CheckArgs) -> Thresholds {
    Thresholds {
        dead_max: args.dead_max,
        warn_dead: args.warn_dead,
        ready_max: args.ready_max,
        warn_ready: args.warn_ready,
        overdue_max: args.overdue_max,
        warn_overdue: args.warn_overdue,
        min_consumers: args.min_consumers,
        warn_min_consumers: args.warn_min_consumers,
        failure_rate_max: args.failure_rate_max,
        warn_failure_rate: args.warn_failure_rate,
        window: args.window,
        stale_consumers: args.stale_consumers,
        warn_stale_consumers: args.warn_stale_consumers,
        orphan_after: args.orphan_after,
        max_keys: args.max_keys,
    }
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
        let mut parts: Vec<String> = v.measures.iter().map(Measure::describe).collect();
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

/// Reads the queues and judges each against the thresholds given.
async fn judge(ctx: &Context, args: &CheckArgs) -> anyhow::Result<Vec<Verdict>> {
    let thresholds = thresholds(args);
    if !thresholds.any() {
        anyhow::bail!(
            "no threshold given: give at least one of --dead-max, --ready-max, --overdue-max, \
             --min-consumers, --failure-rate-max, --stale-consumers (or their --warn-* forms)"
        );
    }
    for queue in &args.queues {
        ctx.keys(queue)?;
    }
    let mut redis = ctx.server()?.connect().await?;
    Ok(health::check(&mut redis, &args.queues, ctx.global.cluster, &thresholds).await?)
}
