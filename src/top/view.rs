//! Drawing `qctl top` from its [`Model`]: the list of queues or one queue's consumers and
//! dead jobs, the sparklines of the queue under the cursor, a status line and the keys.

use std::time::Instant;

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::{Block, Cell, Paragraph, Row, Sparkline, Table, TableState};
use ratatui::Frame;

use super::fetch::Detail;
use super::model::{Model, Prompt, QueueRow, View};
use crate::engine::consumers::{host_pid, short_name, AHEAD_TOLERANCE};
use crate::engine::listing::Entry;
use crate::engine::text::millis;
use crate::engine::QueueKeys;
use crate::output::{
    agree, column_widths, cut, cut_middle, dead_reason, plural, preview, printable, queue_cells,
    relative, width_of,
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

/// A column of the queue list: its header, when it goes on a narrow terminal (1 first;
/// 0 never), and whether it holds numbers (right-aligned, as `stats` shows them).
struct Column {
    name: &'static str,
    drop: u8,
    number: bool,
}

/// The columns of the queue list: those of `stats`, the rates since the last refresh, then
/// what qctl consumers did in the last minutes (done per minute, and the 95th percentile of
/// run time).
const COLUMNS: [Column; 12] = [
    Column {
        name: "QUEUE",
        drop: 0,
        number: false,
    },
    Column {
        name: "ACTIVE",
        drop: 0,
        number: true,
    },
    Column {
        name: "DUE",
        drop: 0,
        number: true,
    },
    Column {
        name: "LATER",
        drop: 2,
        number: true,
    },
    Column {
        name: "IN FLIGHT",
        drop: 0,
        number: true,
    },
    Column {
        name: "DEAD",
        drop: 0,
        number: true,
    },
    Column {
        name: "CONSUMERS",
        drop: 6,
        number: false,
    },
    Column {
        name: "PAUSED",
        drop: 5,
        number: false,
    },
    Column {
        name: "DONE/S",
        drop: 3,
        number: true,
    },
    Column {
        name: "FAILED/S",
        drop: 1,
        number: true,
    },
    Column {
        name: "DONE 10M",
        drop: 7,
        number: false,
    },
    Column {
        name: "P95 10M",
        drop: 4,
        number: true,
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
                        .map(|&i| cell(all.get(i).cloned().unwrap_or_default(), COLUMNS[i].number)),
                )
            });
        Table::new(rows, constraints).header(header(
            cols.iter().map(|&i| (COLUMNS[i].name, COLUMNS[i].number)),
        ))
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

/// A table cell: a number is right-aligned, as `stats` shows it.
fn cell(text: String, number: bool) -> Cell<'static> {
    if number {
        Cell::from(Line::from(text).right_aligned())
    } else {
        Cell::from(text)
    }
}

/// A header row: each name, and whether its column holds numbers.
fn header(names: impl IntoIterator<Item = (&'static str, bool)>) -> Row<'static> {
    Row::new(
        names
            .into_iter()
            .map(|(name, number)| cell(name.to_string(), number)),
    )
    .style(Style::new().add_modifier(Modifier::BOLD))
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
    let consumers_height = m
        .detail
        .as_ref()
        .filter(|d| d.queue == queue)
        .map_or(1, |d| d.consumers.len().max(1) as u16)
        + 3;
    let [counts, consumers, dead] = Layout::vertical([
        Constraint::Length(4),
        Constraint::Length(
            consumers_height
                .min(area.height.saturating_sub(4) / 2)
                .max(3),
        ),
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
    // The rows the dead jobs have: inside the border, under the header.
    m.dead_rows.set(dead.height.saturating_sub(3));
    let Some(d) = m.detail.as_ref().filter(|d| d.queue == queue) else {
        frame.render_widget(
            Paragraph::new("reading consumers and dead jobs..."),
            consumers,
        );
        return;
    };
    let inner = consumers.width.saturating_sub(2);
    let room = usize::from(consumers.height.saturating_sub(3));
    let title = if d.consumers.len() > room {
        format!(" consumers: {}, {room} shown ", d.consumers.len())
    } else {
        format!(" consumers: {} ", d.consumers.len())
    };
    frame.render_widget(
        consumers_table(d, m.orphan_after.as_secs_f64(), inner)
            .block(Block::bordered().title(title)),
        consumers,
    );
    let rows = u64::from(m.dead_rows.get());
    let first = m.dead_offset.min(d.dead_total.saturating_sub(1));
    let shown: Vec<Option<&Entry>> = (first..(first + rows).min(d.dead_total))
        .map(|i| {
            i.checked_sub(d.dead_offset)
                .and_then(|at| d.dead.get(at as usize))
        })
        .collect();
    let inner = dead.width.saturating_sub(2);
    let title = if d.dead_total == 0 {
        " dead jobs: none ".to_string()
    } else {
        fit_title(
            &[
                format!(
                    " dead jobs {}-{} of {}, newest first ",
                    first + 1,
                    first + shown.len() as u64,
                    d.dead_total
                ),
                format!(
                    " dead {}-{} of {} ",
                    first + 1,
                    first + shown.len() as u64,
                    d.dead_total
                ),
            ],
            inner,
        )
    };
    let table = if shown.is_empty() {
        Table::new([Row::new(["no dead jobs"])], [Constraint::Fill(1)])
    } else {
        dead_table(&shown, d.now, inner)
    };
    frame.render_widget(table.block(Block::bordered().title(title)), dead);
}

/// The consumers of an open queue in `width` cells: CONSUMER (the start of its UUID, as `qctl
/// consumers` names it), RUN BY, HOST:PID (`-` for a Go CurlyQ consumer, which writes
/// neither), HEARTBEAT, IN FLIGHT and STATE, which takes what is left.
fn consumers_table(d: &Detail, orphan_after: f64, width: u16) -> Table<'static> {
    if d.consumers.is_empty() {
        return Table::new([Row::new(["no consumers"])], [Constraint::Fill(1)]);
    }
    let keys = QueueKeys::new(&d.queue);
    let cutoff = d.now - orphan_after;
    let rows: Vec<Vec<String>> = d
        .consumers
        .iter()
        .zip(d.described.iter().chain(std::iter::repeat(&None)))
        .zip(d.processes.iter().chain(std::iter::repeat(&None)))
        .map(|((c, described), process)| {
            let state = match &c.problem {
                None if c.heartbeat > d.now + AHEAD_TOLERANCE => "clock ahead".into(),
                _ => c.state(described.as_ref(), *process, d.now, cutoff),
            };
            vec![
                cut_middle(&short_name(&c.key, &keys), 24),
                match described.as_ref().and_then(|d| d.version.as_deref()) {
                    Some(v) => format!("qctl {}", printable(v)),
                    None => c.run_by(&keys, false).into(),
                },
                cut_middle(&host_pid(described.as_ref()), 32),
                relative(c.heartbeat, d.now),
                c.in_flight.map_or("?".into(), |n| n.to_string()),
                state,
            ]
        })
        .collect();
    const HEADERS: [(&str, bool); 6] = [
        ("CONSUMER", false),
        ("RUN BY", false),
        ("HOST:PID", false),
        ("HEARTBEAT", false),
        ("IN FLIGHT", true),
        ("STATE", false),
    ];
    let names: Vec<&str> = HEADERS.iter().map(|(n, _)| *n).collect();
    let widths = column_widths(&names, &rows);
    let fixed: u16 = widths[..5].iter().map(|w| *w as u16 + 1).sum();
    let state = width.saturating_sub(fixed) as usize;
    let constraints: Vec<Constraint> = widths[..5]
        .iter()
        .map(|w| Constraint::Length(*w as u16))
        .chain([Constraint::Fill(1)])
        .collect();
    let rows = rows.into_iter().map(|mut r| {
        r[5] = cut(&r[5], state);
        Row::new(
            r.into_iter()
                .zip(HEADERS)
                .map(|(text, (_, number))| cell(text, number)),
        )
    });
    Table::new(rows, constraints).header(header(HEADERS))
}

/// The room REASON wants before an id is cut to [`ID_CUT`] cells.
const REASON_WANT: usize = 40;

/// The cells a long id is cut to (in its middle) on a narrow terminal.
const ID_CUT: usize = 17;

/// The least room DATA is shown with, after the whole reason.
const DATA_MIN: usize = 12;

/// Dead jobs in `width` cells: ID, DIED, FAILURES, REASON and, when the reason has all the
/// room it wants and some is left, DATA. The reason takes what the others leave: an id longer
/// than [`ID_CUT`] is cut in its middle when the reason would otherwise have less than
/// [`REASON_WANT`] cells (`qctl dead list` shows it whole). A job not read yet shows as `...`.
fn dead_table(shown: &[Option<&Entry>], now: f64, width: u16) -> Table<'static> {
    let width = width as usize;
    let ids: Vec<String> = shown
        .iter()
        .map(|e| e.map_or("...".into(), |e| printable(&e.id)))
        .collect();
    let died: Vec<String> = shown
        .iter()
        .map(|e| {
            e.and_then(|e| e.score)
                .map_or(String::new(), |t| relative(t, now))
        })
        .collect();
    let failures: Vec<String> = shown
        .iter()
        .map(|e| {
            e.map_or(String::new(), |e| {
                e.attempt().map_or("-".into(), |a| a.to_string())
            })
        })
        .collect();
    let reasons: Vec<String> = shown
        .iter()
        .map(|e| e.map_or(String::new(), dead_reason))
        .collect();
    let widest = |header: &str, cells: &[String]| {
        cells
            .iter()
            .map(|c| width_of(c))
            .chain([width_of(header)])
            .max()
            .unwrap_or(0)
    };
    let died_w = widest("DIED", &died);
    let failures_w = widest("FAILURES", &failures);
    let mut id_w = widest("ID", &ids);
    // Four columns leave three spaces between them.
    let room = |id_w: usize| width.saturating_sub(id_w + died_w + failures_w + 3);
    if room(id_w) < REASON_WANT && id_w > ID_CUT {
        id_w = ID_CUT;
    }
    let reason_want = widest("REASON", &reasons);
    let mut reason_w = room(id_w).max(width_of("REASON"));
    let data_w = reason_w.saturating_sub(reason_want + 1);
    let with_data = data_w >= DATA_MIN;
    if with_data {
        reason_w = reason_want;
    }
    let rows: Vec<Row> = shown
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let mut cells = vec![
                cell(cut_middle(&ids[i], id_w), false),
                cell(died[i].clone(), false),
                cell(failures[i].clone(), true),
                cell(cut(&reasons[i], reason_w), false),
            ];
            if with_data {
                let data = e.map_or(String::new(), |e| match e.damage() {
                    Some(_) => "-".into(),
                    None => preview(e.data().unwrap_or_default(), data_w),
                });
                cells.push(cell(cut(&data, data_w), false));
            }
            Row::new(cells)
        })
        .collect();
    let mut constraints = vec![
        Constraint::Length(id_w as u16),
        Constraint::Length(died_w as u16),
        Constraint::Length(failures_w as u16),
    ];
    let mut headers = vec![
        ("ID", false),
        ("DIED", false),
        ("FAILURES", true),
        ("REASON", false),
    ];
    if with_data {
        constraints.push(Constraint::Length(reason_w as u16));
        constraints.push(Constraint::Fill(1));
        headers.push(("DATA", false));
    } else {
        constraints.push(Constraint::Fill(1));
    }
    Table::new(rows, constraints).header(header(headers))
}

/// The first of `titles` that fits `width` cells (a box's top border), else the last cut
/// after a whole word: a title is never cut inside a word.
fn fit_title(titles: &[String], width: u16) -> String {
    let width = width as usize;
    if let Some(t) = titles.iter().find(|t| width_of(t) <= width) {
        return t.clone();
    }
    let last = titles.last().map_or("", String::as_str);
    let mut kept = String::new();
    for word in last.split(' ').filter(|w| !w.is_empty()) {
        let next = format!("{kept} {word}");
        if width_of(&next) + 1 > width {
            break;
        }
        kept = next;
    }
    if kept.is_empty() {
        String::new()
    } else {
        format!("{kept} ")
    }
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
    let (now, max) = (
        backlog.last().copied().unwrap_or(0),
        backlog.iter().max().copied().unwrap_or(0),
    );
    let over = span(backlog.len());
    let title = fit_title(
        &[
            format!(" backlog of {queue}: {now} now, max {max} over {over} "),
            format!(" backlog: {now} now, max {max} over {over} "),
            format!(" backlog: {now} now, max {max} "),
            format!(" backlog {now}, max {max} "),
            format!(" backlog {now} "),
        ],
        left.width.saturating_sub(2),
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
    let now = done.last().copied().unwrap_or(0.0);
    let over = span(done.len());
    let title = fit_title(
        &[
            format!(" done/s of {queue}: {now:.1} now, max {max:.1} over {over} "),
            format!(" done/s: {now:.1} now, max {max:.1} over {over} "),
            format!(" done/s: {now:.1} now, max {max:.1} "),
            format!(" done/s {now:.1}, max {max:.1} "),
            format!(" done/s {now:.1} "),
        ],
        right.width.saturating_sub(2),
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
        (None, View::Queue(_)) => {
            "q quit  Esc back  ↑↓ PgUp PgDn Home End scroll dead jobs  p pause/resume".into()
        }
    }
}
