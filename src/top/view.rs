//! Drawing `qctl top` from its [`Model`]: the list of queues or one queue's consumers and
//! dead jobs, the sparklines of the queue under the cursor, a status line and the keys.

use std::time::Instant;

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::{Block, Cell, Paragraph, Row, Sparkline, Table, TableState};
use ratatui::Frame;

use super::fetch::DEAD_SHOWN;
use super::model::{Model, Prompt, QueueRow, View};
use crate::commands::millis;
use crate::engine::consumers::AHEAD_TOLERANCE;
use crate::output::{
    agree, column_widths, cut_middle, dead_reason, plural, preview, printable, queue_cells,
    relative,
};

pub fn draw(frame: &mut Frame, m: &Model) {
    let [title, body, charts, status, keys] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(3),
        Constraint::Length(5),
        Constraint::Length(1),
        Constraint::Length(1),
    ])
    .areas(frame.area());
    frame.render_widget(Paragraph::new(title_line(m)), title);
    match &m.view {
        View::List => draw_list(frame, body, m),
        View::Queue(q) => draw_queue(frame, body, m, q),
    }
    draw_charts(frame, charts, m);
    frame.render_widget(Paragraph::new(status_line(m)), status);
    frame.render_widget(
        Paragraph::new(keys_line(m)).style(Style::new().add_modifier(Modifier::REVERSED)),
        keys,
    );
}

fn title_line(m: &Model) -> String {
    let shown = m.visible().len();
    let filter = if m.filter.is_empty() {
        String::new()
    } else {
        format!(", {shown} matching /{}", printable(&m.filter))
    };
    format!(
        "qctl top: {}: {}{filter}, sorted by {}, every {}",
        m.server,
        plural(m.rows.len() as u64, "queue"),
        m.sort.label(),
        humantime::format_duration(m.interval)
    )
}

/// A column of the queue list: its header and when it goes on a narrow terminal (1 first;
/// 0 never).
struct Column {
    name: &'static str,
    drop: u8,
}

/// The columns of the queue list: those of `stats`, the rates since the last refresh, then
/// what qctl consumers did in the last minutes (done per minute, and the 95th percentile of
/// run time).
const COLUMNS: [Column; 12] = [
    Column {
        name: "QUEUE",
        drop: 0,
    },
    Column {
        name: "ACTIVE",
        drop: 0,
    },
    Column {
        name: "DUE",
        drop: 0,
    },
    Column {
        name: "LATER",
        drop: 2,
    },
    Column {
        name: "IN FLIGHT",
        drop: 0,
    },
    Column {
        name: "DEAD",
        drop: 0,
    },
    Column {
        name: "CONSUMERS",
        drop: 6,
    },
    Column {
        name: "PAUSED",
        drop: 5,
    },
    Column {
        name: "DONE/S",
        drop: 3,
    },
    Column {
        name: "FAILED/S",
        drop: 1,
    },
    Column {
        name: "DONE 10M",
        drop: 7,
    },
    Column {
        name: "P95 10M",
        drop: 4,
    },
];

/// The narrowest QUEUE column kept before other columns go.
const QUEUE_MIN: u16 = 14;

/// The QUEUE column other columns go for, when names are that long: past it, names are cut
/// in the middle ([`cut_middle`]) rather than columns left out.
const QUEUE_WANT: u16 = 24;

/// The rows' cells (every column's, in the order of [`COLUMNS`]), whether each row's queue
/// is paused, and the width of each column: its header's or its widest cell's (QUEUE: its
/// longest name).
struct Cells {
    rows: Vec<Vec<String>>,
    paused: Vec<bool>,
    widths: Vec<u16>,
}

impl Cells {
    fn of<'a>(rows: impl IntoIterator<Item = &'a QueueRow>) -> Cells {
        let (rows, paused): (Vec<Vec<String>>, Vec<bool>) =
            rows.into_iter().map(|r| (cells(r), r.stats.paused)).unzip();
        let headers: Vec<&str> = COLUMNS.iter().map(|c| c.name).collect();
        let widths = column_widths(&headers, &rows)
            .into_iter()
            .map(|w| w as u16)
            .collect();
        Cells {
            rows,
            paused,
            widths,
        }
    }

    /// The cells the columns `cols` leave to QUEUE in `width`, after the highlight symbol
    /// and the space between columns.
    fn queue_room(&self, width: u16, cols: &[usize]) -> u16 {
        let used = 2 + cols
            .iter()
            .filter(|&&i| i != 0)
            .map(|&i| self.widths[i] + 1)
            .sum::<u16>();
        width.saturating_sub(used)
    }

    /// The columns shown in `width` cells: every one while QUEUE keeps room for the longest
    /// name (up to [`QUEUE_WANT`], at least [`QUEUE_MIN`]), else the least needed go first.
    fn shown(&self, width: u16) -> Vec<usize> {
        let want = self.widths[0].clamp(QUEUE_MIN, QUEUE_WANT);
        let mut cols: Vec<usize> = (0..COLUMNS.len()).collect();
        let mut rank = 1;
        while self.queue_room(width, &cols) < want && rank <= 7 {
            cols.retain(|&i| COLUMNS[i].drop != rank);
            rank += 1;
        }
        cols
    }

    /// The shown columns' widths: QUEUE takes what is left.
    fn constraints(&self, cols: &[usize]) -> Vec<Constraint> {
        cols.iter()
            .map(|&i| match i {
                0 => Constraint::Fill(1),
                i => Constraint::Length(self.widths[i]),
            })
            .collect()
    }

    /// The table of the rows in `width` cells, with its header.
    fn table(self, width: u16) -> Table<'static> {
        let cols = self.shown(width);
        let room = self.queue_room(width, &cols) as usize;
        let constraints = self.constraints(&cols);
        let rows = self
            .rows
            .into_iter()
            .zip(self.paused)
            .map(|(mut all, paused)| {
                // Without the PAUSED column, a paused queue says so after its name.
                let suffix = if paused && !cols.contains(&7) {
                    " (paused)"
                } else {
                    ""
                };
                all[0] = cut_middle(&all[0], room.saturating_sub(suffix.len())) + suffix;
                Row::new(
                    cols.iter()
                        .map(|&i| all.get(i).cloned().unwrap_or_default()),
                )
            });
        Table::new(rows, constraints).header(header(cols.iter().map(|&i| COLUMNS[i].name)))
    }
}

fn per_sec(r: Option<f64>) -> String {
    r.map_or("-".into(), |r| format!("{r:.1}"))
}

/// Every cell of a row, in the order of [`COLUMNS`].
fn cells(r: &QueueRow) -> Vec<String> {
    let mut cells = queue_cells(&r.stats);
    cells.extend([per_sec(r.done_rate), per_sec(r.failed_rate)]);
    cells.push(spark(&r.recent));
    let mut seen = crate::engine::history::Tally::default();
    let mut read = false;
    for minute in r.recent.iter().flatten() {
        seen.add(minute);
        read = true;
    }
    cells.push(if read || r.recent.is_empty() {
        millis(seen.percentile(0.95))
    } else {
        "?".into()
    });
    cells
}

/// Jobs done per minute as a line of bars, scaled to the busiest minute: `·` for none, `?`
/// for a minute that could not be read.
fn spark(minutes: &[Option<crate::engine::history::Tally>]) -> String {
    const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
    let max = minutes
        .iter()
        .flatten()
        .map(|t| t.completed)
        .max()
        .unwrap_or(0);
    minutes
        .iter()
        .map(|m| match m {
            None => '?',
            Some(t) if t.completed == 0 => '·',
            Some(t) => {
                let i = (t.completed * BARS.len() as u64).div_ceil(max.max(1)) as usize;
                BARS[i.clamp(1, BARS.len()) - 1]
            }
        })
        .collect()
}

fn header(names: impl IntoIterator<Item = &'static str>) -> Row<'static> {
    Row::new(names.into_iter().map(Cell::from)).style(Style::new().add_modifier(Modifier::BOLD))
}

fn draw_list(frame: &mut Frame, area: Rect, m: &Model) {
    let rows = m.visible();
    if m.last.is_none() {
        frame.render_widget(Paragraph::new("reading the queues..."), area);
        return;
    }
    if rows.is_empty() {
        let text = if m.rows.is_empty() {
            "no queues found".to_string()
        } else {
            format!("no queue matches /{}", printable(&m.filter))
        };
        frame.render_widget(Paragraph::new(text), area);
        return;
    }
    let table = Cells::of(rows.iter().copied())
        .table(area.width)
        .row_highlight_style(Style::new().add_modifier(Modifier::REVERSED))
        .highlight_symbol("> ");
    let mut state = TableState::default().with_selected(m.cursor());
    frame.render_stateful_widget(table, area, &mut state);
}

fn draw_queue(frame: &mut Frame, area: Rect, m: &Model, queue: &str) {
    let [counts, consumers, dead] = Layout::vertical([
        Constraint::Length(4),
        Constraint::Percentage(40),
        Constraint::Fill(1),
    ])
    .areas(area);
    let summary = match m.row(queue) {
        Some(r) => Cells::of([r]).table(counts.width.saturating_sub(2)),
        None => Table::new(
            [Row::new([format!("queue {} is gone", printable(queue))])],
            [Constraint::Fill(1)],
        ),
    };
    frame.render_widget(
        summary.block(Block::bordered().title(format!(" queue {} ", printable(queue)))),
        counts,
    );
    let Some(d) = m.detail.as_ref().filter(|d| d.queue == queue) else {
        frame.render_widget(
            Paragraph::new("reading consumers and dead jobs..."),
            consumers,
        );
        return;
    };
    let rows: Vec<Row> = d
        .consumers
        .iter()
        .map(|c| {
            let cutoff = d.now - m.orphan_after.as_secs_f64();
            let state = match &c.problem {
                Some(p) => format!("invalid: {p}"),
                None if c.heartbeat > d.now + AHEAD_TOLERANCE => "clock ahead".into(),
                None if c.heartbeat > cutoff => "alive".into(),
                None => "expired".into(),
            };
            Row::new([
                printable(&c.key),
                relative(c.heartbeat, d.now),
                c.in_flight.map_or("?".into(), |n| n.to_string()),
                state,
            ])
        })
        .collect();
    let title = format!(" consumers: {} ", d.consumers.len());
    let table = if rows.is_empty() {
        Table::new([Row::new(["no consumers"])], [Constraint::Fill(1)])
    } else {
        Table::new(
            rows,
            [
                Constraint::Fill(1),
                Constraint::Length(12),
                Constraint::Length(10),
                Constraint::Length(30),
            ],
        )
        .header(header(["CONSUMER", "HEARTBEAT", "IN FLIGHT", "STATE"]))
    };
    frame.render_widget(table.block(Block::bordered().title(title)), consumers);
    let rows: Vec<Row> = d
        .dead
        .iter()
        .map(|e| {
            Row::new([
                printable(&e.id),
                e.score.map_or("-".into(), |t| relative(t, d.now)),
                e.attempt().map_or("-".into(), |a| a.to_string()),
                dead_reason(e),
                match e.damage() {
                    Some(_) => "-".into(),
                    None => preview(e.data().unwrap_or_default(), 40),
                },
            ])
        })
        .collect();
    let title = format!(
        " newest dead jobs: {} of {} ",
        d.dead.len().min(DEAD_SHOWN as usize),
        d.dead_total
    );
    let table = if rows.is_empty() {
        Table::new([Row::new(["no dead jobs"])], [Constraint::Fill(1)])
    } else {
        Table::new(
            rows,
            [
                Constraint::Length(38),
                Constraint::Length(10),
                Constraint::Length(8),
                Constraint::Fill(2),
                Constraint::Fill(1),
            ],
        )
        .header(header(["ID", "DIED", "FAILURES", "REASON", "DATA"]))
    };
    frame.render_widget(table.block(Block::bordered().title(title)), dead);
}

/// The backlog (active and due) and done/s of the queue under the cursor, newest on the right.
fn draw_charts(frame: &mut Frame, area: Rect, m: &Model) {
    let queue = match &m.view {
        View::Queue(q) => Some(q.as_str()),
        View::List => m.current().map(QueueRow::name),
    };
    let Some(h) = queue.and_then(|q| m.history.get(q)) else {
        return;
    };
    let queue = printable(queue.unwrap_or_default());
    let [left, right] =
        Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(area);
    let span =
        |n: usize| humantime::format_duration(m.interval * n.saturating_sub(1) as u32).to_string();
    let width = left.width.saturating_sub(2) as usize;
    let backlog: Vec<u64> = h.backlog.iter().copied().collect();
    let backlog = &backlog[backlog.len().saturating_sub(width)..];
    let title = format!(
        " backlog of {queue}: {} now, max {} over {} ",
        backlog.last().copied().unwrap_or(0),
        backlog.iter().max().copied().unwrap_or(0),
        span(backlog.len())
    );
    frame.render_widget(
        Sparkline::default()
            .block(Block::bordered().title(title))
            .data(backlog),
        left,
    );
    let width = right.width.saturating_sub(2) as usize;
    let done: Vec<f64> = h.done_rate.iter().copied().collect();
    let done = &done[done.len().saturating_sub(width)..];
    let max = done.iter().copied().fold(0.0, f64::max);
    let title = format!(
        " done/s of {queue}: {:.1} now, max {max:.1} over {} ",
        done.last().copied().unwrap_or(0.0),
        span(done.len())
    );
    // Sparklines take integers: hundredths keep slow rates visible.
    let bars: Vec<u64> = done.iter().map(|r| (r * 100.0).round() as u64).collect();
    frame.render_widget(
        Sparkline::default()
            .block(Block::bordered().title(title))
            .data(&bars),
        right,
    );
}

fn status_line(m: &Model) -> Line<'static> {
    let age = m.last.as_ref().map(|l| {
        format!(
            "{:.0}s ago",
            Instant::now().duration_since(l.at).as_secs_f64()
        )
    });
    if let Some(e) = &m.error {
        return Line::from(format!(
            "error: {e}; retrying every {} (last update {})",
            humantime::format_duration(m.interval),
            age.unwrap_or_else(|| "never".into())
        ))
        .style(Style::new().add_modifier(Modifier::BOLD));
    }
    if let Some(msg) = &m.message {
        return Line::from(msg.clone());
    }
    let Some(l) = &m.last else {
        return Line::from("connecting...");
    };
    let mut parts = vec![
        format!("updated {}", age.unwrap_or_default()),
        format!("{} per refresh", plural(l.round_trips, "round trip")),
    ];
    if l.unreadable > 0 {
        parts.push(format!(
            "{} skipped: this Redis user may not read {} keys",
            plural(l.unreadable as u64, "queue"),
            agree(l.unreadable as u64, "its", "their")
        ));
    }
    if l.untagged > 0 {
        parts.push(format!(
            "{} without a hash tag skipped",
            plural(l.untagged as u64, "queue")
        ));
    }
    if l.incomplete {
        parts.push("discovery stopped at --max-keys: some queues may be missing".into());
    }
    Line::from(parts.join(", "))
}

fn keys_line(m: &Model) -> String {
    match (&m.prompt, &m.view) {
        (Some(Prompt::Filter), _) => format!(
            "filter: /{}_   (Enter keep, Esc clear)",
            printable(&m.filter)
        ),
        (
            Some(Prompt::Confirm {
                queue,
                pause,
                answer,
            }),
            _,
        ) => format!(
            "{} queue {}? [y/N] {}_   (Enter answers, Esc leaves it)",
            if *pause { "Pause" } else { "Resume" },
            printable(queue),
            printable(answer)
        ),
        (None, View::List) => {
            "q quit  ↑↓ select  Enter consumers, dead jobs  s sort  / filter  p pause/resume".into()
        }
        (None, View::Queue(_)) => "q quit  Esc back  p pause/resume".into(),
    }
}
