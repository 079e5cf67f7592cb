//! `qctl dead groups` and `qctl scheduled groups`: the jobs of a set grouped by the cause of
//! their failure, largest group first.

use anyhow::Context as _;

use super::listing::Place;
use super::Context;
use crate::cli::GroupsArgs;
use crate::engine::groups::{self, MAX_GROUPS};
use crate::engine::{self, ExitCode};
use crate::output::{agree, cut, group_cells, plural, printable, thousands, wrap};

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
        let value = found.json(&args.queue, &set, shown.len());
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
            table.add_row(group_cells(g, now));
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
            let sample = cut(&printable(&g.sample), width - "e.g. ".len());
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
    // JSON too says when it is a page (and `more_groups` how many are not shown).
    if found.jobs > 0 && (!ctx.out.json || more > 0) {
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
    }
    if found.jobs > 0 && !ctx.out.json {
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
