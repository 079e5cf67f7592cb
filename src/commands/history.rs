//! `qctl stats QUEUE --history DUR`: what qctl consumers did, step by step, with run-time
//! percentiles; and the words and numbers `stats` and `check` share for it.

use anyhow::Context as _;

use super::Context;
use crate::engine::history::{self, Step, Tally};
use crate::engine::snapshot::{step_json, PERCENTILES};
use crate::engine::text::millis;
use crate::engine::{ExitCode, Redis};
use crate::output::{count, cut, printable, table_width, Fit};

pub use crate::engine::history::blind_spot;
pub use crate::engine::text::span_words;

/// `stats --history`: a table per queue (or JSON: one object per step of every queue).
pub async fn show(
    ctx: &mut Context,
    redis: &mut Redis,
    queues: &[String],
    span: std::time::Duration,
    step: Option<std::time::Duration>,
) -> anyhow::Result<ExitCode> {
    // What is not kept is not shown, nor read: a span longer than the history is cut to it.
    let asked = span;
    let span = history::kept(asked);
    let step = step.unwrap_or_else(|| history::step_for(span, 24));
    let step_s = history::step_seconds(step);
    if asked > span {
        ctx.out.note(format_args!(
            "note: qctl consumers keep {} of history: showing the last {} of the {} asked",
            span_words(history::KEPT),
            span_words(span),
            span_words(asked)
        ));
    }
    let now = redis.server_time().await?;
    let mut rows = Vec::new();
    for (n, queue) in queues.iter().enumerate() {
        let keys = ctx.keys(queue)?;
        let steps = history::steps(redis, &keys, now, span, step)
            .await
            .with_context(|| format!("cannot read the history of queue {queue:?}"))?;
        let blind = blind_spot(redis, &keys).await?;
        if ctx.out.json {
            rows.extend(steps.iter().map(|s| step_json(queue, s, step_s)));
            if let Some(note) = blind {
                ctx.out.note(format_args!("note: {note}"));
            }
            continue;
        }
        if n > 0 {
            ctx.out.line("")?;
        }
        let mut total = Tally::default();
        for s in &steps {
            total.add(&s.tally);
        }
        let title = format!(
            "{}: the last {} in steps of {} (local time)",
            printable(queue),
            span_words(span),
            span_words(std::time::Duration::from_secs(step_s as u64)),
        );
        ctx.out.line(match table_width() {
            Some(width) => cut(&title, width),
            None => title,
        })?;
        // A step that began a day or more before now shows its date; a year or more, its year.
        let format = match steps.first().map_or(0.0, |s| now - s.start as f64) {
            age if age >= 365.0 * 86_400.0 => "%Y-%m-%d %H:%M",
            _ if span.as_secs() >= 86_400 || step_s >= 86_400 => "%m-%d %H:%M",
            _ => "%H:%M",
        };
        let mut rows: Vec<Vec<String>> = steps.iter().map(|s| step_cells(s, format)).collect();
        rows.push(total_cells(&total));
        let mut columns = vec![("START", Fit::Keep)];
        columns.extend(
            ["DONE", "FAILED", "RETRIED", "DEAD", "P50", "P95", "P99"].map(|c| (c, Fit::Number)),
        );
        let table = ctx.out.fit_table(&columns, rows);
        ctx.out.print_table(&table)?;
        if total == Tally::default() {
            ctx.out.note(format_args!(
                "note: no qctl consumer settled a job of {} in the last {} (history is kept by qctl consumers)",
                printable(queue),
                span_words(span)
            ));
        }
        if let Some(note) = blind {
            ctx.out.note(format_args!("note: {note}"));
        }
    }
    if ctx.out.json {
        ctx.out.json_line(&rows)?;
    }
    ctx.out.flush()?;
    Ok(ExitCode::Success)
}

/// The cells of one step: its local start time, counts and percentiles.
fn step_cells(s: &Step, format: &str) -> Vec<String> {
    let start = chrono::DateTime::from_timestamp(s.start, 0)
        .map(|t| t.with_timezone(&chrono::Local).format(format).to_string())
        .unwrap_or_else(|| s.start.to_string());
    let mut row = vec![start];
    row.extend(counts_and_percentiles(&s.tally));
    row
}

fn total_cells(t: &Tally) -> Vec<String> {
    let mut row = vec!["total".to_string()];
    row.extend(counts_and_percentiles(t));
    row
}

fn counts_and_percentiles(t: &Tally) -> Vec<String> {
    let mut row: Vec<String> = [t.completed, t.failed, t.retried, t.killed]
        .into_iter()
        .map(|n| count(Some(n)))
        .collect();
    row.extend(PERCENTILES.iter().map(|(q, _)| millis(t.percentile(*q))));
    row
}
