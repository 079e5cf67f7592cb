//! `qctl dead groups` and `qctl scheduled groups`: the jobs of a set grouped by the cause of
//! their failure, largest group first.

use anyhow::Context as _;
use serde_json::json;

use super::listing::Place;
use super::Context;
use crate::cli::GroupsArgs;
use crate::engine::groups::{self, Group, MAX_GROUPS};
use crate::engine::jobs::describe_time;
use crate::engine::{self, ExitCode};
use crate::output::{agree, plural, printable, relative, thousands};

/// The width the table keeps within.
const WIDTH: usize = 80;
/// Where a group's pattern and sample start, under its row.
const INDENT: &str = "   ";
/// The most lines a pattern takes in the table (the full pattern is in `--json`).
const PATTERN_LINES: usize = 2;

pub async fn run(mut ctx: Context, args: GroupsArgs, place: Place) -> anyhow::Result<ExitCode> {
    let keys = ctx.keys(&args.queue)?;
    let set = place.key(&keys).to_string();
    let mut redis = ctx.server()?.connect().await?;
    super::require_queue(&mut redis, &keys).await?;
    let bar = ctx.out.counter("jobs read");
    let found = groups::walk(&mut redis, &keys, &set, args.since, args.until, |n| {
        bar.set_position(n)
    })
    .await
    .with_context(|| format!("cannot group the failures of {set}"));
    bar.finish_and_clear();
    let found = found?;
    let shown = match args.limit {
        0 => &found.groups[..],
        n => &found.groups[..n.min(found.groups.len())],
    };
    let more = found.groups.len() - shown.len();
    if ctx.out.json {
        let value = json!({
            "queue": args.queue,
            "set": set,
            "jobs": found.jobs,
            "groups_found": found.groups.len(),
            "more_groups": more,
            "ungrouped": found.ungrouped,
            "groups": shown.iter().map(group_json).collect::<Vec<_>>(),
        });
        ctx.out.json_line(&value)?;
    } else if found.jobs == 0 {
        ctx.out.note(format_args!("no jobs in {set}"));
    } else {
        let mut table = ctx
            .out
            .table(&["GROUP", "COUNT", "FAILURES", "FIRST", "LAST"]);
        if let Some(count) = table.column_mut(1) {
            count.set_cell_alignment(comfy_table::CellAlignment::Right);
        }
        let now = engine::now();
        for g in shown {
            table.add_row(cells(g, now));
        }
        // Each row is followed by its pattern and a sample id, indented, on lines of their
        // own: at 80 columns a pattern or a UUID has no room in a column.
        let mut lines = table.lines();
        if let Some(header) = lines.next() {
            ctx.out.line(header.trim_end())?;
        }
        let width = WIDTH - INDENT.len();
        for (g, row) in shown.iter().zip(lines) {
            ctx.out.line(row.trim_end())?;
            for line in wrap(&printable(&g.pattern), width, PATTERN_LINES) {
                ctx.out.line(format!("{INDENT}{line}"))?;
            }
            let sample = fit(&printable(&g.sample), width - "e.g. ".len());
            ctx.out.line(format!("{INDENT}e.g. {sample}"))?;
        }
    }
    ctx.out.flush()?;
    if found.ungrouped > 0 {
        ctx.out.warn(format_args!(
            "more than {} distinct failure patterns: {} of further patterns {} in no group",
            thousands(MAX_GROUPS as u64),
            plural(found.ungrouped, "job"),
            agree(found.ungrouped, "is", "are")
        ));
    }
    if found.jobs > 0 && !ctx.out.json {
        let mut text = format!(
            "{} of {set} in {}",
            plural(found.jobs, "job"),
            plural(found.groups.len() as u64, "group")
        );
        if more > 0 {
            text.push_str(&format!(
                "; {} more {} not shown (--limit 0 shows every one)",
                thousands(more as u64),
                agree(more as u64, "group", "groups")
            ));
        }
        ctx.out.note(text);
        if let Some(first) = shown.first() {
            let command = match place {
                Place::Dead => "dead",
                _ => "scheduled",
            };
            ctx.out.note(format_args!(
                "a group's jobs: qctl {command} list {} --group {}",
                printable(&args.queue),
                first.fingerprint
            ));
        }
    }
    Ok(ExitCode::Success)
}

/// The stable JSON form of a group: `fingerprint`, `pattern`, `count`, `first` and `last`
/// (unix seconds) with `first_at` and `last_at` (RFC 3339), `attempts_min` and
/// `attempts_max` (null when no failure record tells them), `sample` (an id) and `example`
/// (its failure as recorded, or null).
fn group_json(g: &Group) -> serde_json::Value {
    json!({
        "fingerprint": g.fingerprint,
        "pattern": g.pattern,
        "count": g.count,
        "first": g.first,
        "first_at": describe_time(g.first),
        "last": g.last,
        "last_at": describe_time(g.last),
        "attempts_min": g.attempts.map(|a| a.0),
        "attempts_max": g.attempts.map(|a| a.1),
        "sample": g.sample,
        "example": (!g.example.is_empty()).then_some(&g.example),
    })
}

/// The cells of a group's row.
fn cells(g: &Group, now: f64) -> Vec<String> {
    let attempts = match g.attempts {
        None => "-".to_string(),
        Some((lo, hi)) if lo == hi => lo.to_string(),
        Some((lo, hi)) => format!("{lo}..{hi}"),
    };
    vec![
        g.fingerprint.clone(),
        thousands(g.count),
        attempts,
        relative(g.first, now),
        relative(g.last, now),
    ]
}

/// `text` in at most `max` lines of at most `width` characters, broken at spaces where it
/// can be; the last line ends in `…` when the text goes on.
fn wrap(text: &str, width: usize, max: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut rest = text.trim();
    while !rest.is_empty() && lines.len() < max {
        if rest.chars().count() <= width {
            lines.push(rest.to_string());
            return lines;
        }
        if lines.len() + 1 == max {
            lines.push(fit(rest, width));
            return lines;
        }
        let end = rest
            .char_indices()
            .nth(width)
            .map_or(rest.len(), |(at, _)| at);
        let at = if rest[end..].starts_with(' ') {
            end
        } else {
            rest[..end].rfind(' ').filter(|&at| at > 0).unwrap_or(end)
        };
        lines.push(rest[..at].trim_end().to_string());
        rest = rest[at..].trim_start();
    }
    lines
}

/// `text` cut to `width` characters, the last one `…` when it was longer.
fn fit(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        text.to_string()
    } else {
        let mut cut: String = text.chars().take(width.saturating_sub(1)).collect();
        cut.push('…');
        cut
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_wrap_at_spaces_into_two_lines_at_most() {
        assert_eq!(wrap("exit 3: boom", 20, 2), ["exit 3: boom"]);
        assert_eq!(
            wrap(
                "no failure recorded (moved by Go CurlyQ or another tool)",
                30,
                2
            ),
            [
                "no failure recorded (moved by",
                "Go CurlyQ or another tool)"
            ]
        );
        assert_eq!(
            wrap("aaaa bbbb cccc dddd eeee", 9, 2),
            ["aaaa bbbb", "cccc ddd…"]
        );
        assert_eq!(wrap("ééééééééé ü", 4, 2), ["éééé", "ééé…"]);
        for lines in [
            wrap(&"é ".repeat(100), 29, 2),
            wrap(&"x".repeat(100), 29, 2),
        ] {
            assert_eq!(lines.len(), 2);
            assert!(lines.iter().all(|l| l.chars().count() <= 29), "{lines:?}");
        }
    }
}
