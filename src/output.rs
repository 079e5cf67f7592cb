//! Everything that talks to the terminal: results on stdout (text or JSON), messages,
//! progress bars and confirmations on stderr. It is also the one place that handles a closed
//! stream: a write to a pipe whose reader is gone never panics; it marks the output closed
//! ([`closed`]), which long-running commands watch to stop at a clean point.

use std::io::{self, BufWriter, IsTerminal, Stdout, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use tokio_util::sync::CancellationToken;

use crate::cli::GlobalArgs;
use crate::engine::changes::Entry as ChangeEntry;
use crate::engine::consumers::{
    command_line, host_pid, short_name, ConsumerInfo, Description, InFlight, Process,
};
use crate::engine::failure::Failure;
use crate::engine::listing::{Entry, Place};
use crate::engine::tail::Happening;
pub use crate::engine::text::{
    agree, plural, printable, printable_message, relative, shell_quote, thousands, without_password,
};
use crate::engine::QueueKeys;

/// Cancelled when a write to stdout or stderr finds the stream closed (its reader is gone):
/// a consumer or a bulk command then stops as it does on SIGTERM.
pub fn closed() -> &'static CancellationToken {
    static CLOSED: OnceLock<CancellationToken> = OnceLock::new();
    CLOSED.get_or_init(CancellationToken::new)
}

/// Whether stderr was found closed: nothing more is written to it.
static STDERR_CLOSED: AtomicBool = AtomicBool::new(false);

/// Notes a failed write: a broken pipe marks the output closed.
pub fn note_write_error(err: &io::Error) {
    if err.kind() == io::ErrorKind::BrokenPipe {
        closed().cancel();
    }
}

/// Writes `text` and a newline to stderr in one piece, its control characters but line
/// breaks and tabs escaped ([`printable_message`]): a message may quote what came from a job
/// or from Redis. A failure is not an error of the command: a closed stderr is noted (see
/// [`closed`]) and nothing more is written to it.
pub fn stderr_line(text: &str) {
    write_stderr_line(&printable_message(text));
}

/// Writes `text` and a newline to stderr as it is (see [`stderr_line`]).
fn write_stderr_line(text: &str) {
    if STDERR_CLOSED.load(Ordering::Relaxed) {
        return;
    }
    let mut line = String::with_capacity(text.len() + 1);
    line.push_str(text);
    line.push('\n');
    if let Err(e) = io::stderr().lock().write_all(line.as_bytes()) {
        if e.kind() == io::ErrorKind::BrokenPipe {
            STDERR_CLOSED.store(true, Ordering::Relaxed);
        }
        note_write_error(&e);
    }
}

/// Whether stderr is still open (no write to it has found it closed).
pub fn stderr_open() -> bool {
    !STDERR_CLOSED.load(Ordering::Relaxed)
}

/// Writes a line of a handler's output, whole, to stdout or stderr (the consumer's
/// [`crate::handler::LineSink`] calls it from its thread). A closed stream must not fail the
/// job: the line is dropped, and the closed output stops the consumer (see [`closed`]).
pub fn handler_line(stream: crate::handler::Stream, line: &[u8]) {
    let written = match stream {
        crate::handler::Stream::Stdout => {
            let mut out = io::stdout().lock();
            out.write_all(line).and_then(|_| out.flush())
        }
        crate::handler::Stream::Stderr => io::stderr().lock().write_all(line),
    };
    if let Err(e) = written {
        note_write_error(&e);
    }
}

/// How a message names what stopped a command before it was done: `interrupted (SIGINT)`,
/// `stopped (its output was closed)`.
pub fn stopped_by(cause: crate::signals::Cause) -> String {
    match cause {
        crate::signals::Cause::OutputClosed => format!("stopped ({})", cause.name()),
        _ => format!("interrupted ({})", cause.name()),
    }
}

/// How results and messages are shown, from the global flags.
pub struct Output {
    pub json: bool,
    pub quiet: bool,
    pub verbose: u8,
    pub color: bool,
    stdout: BufWriter<Stdout>,
}

impl Output {
    pub fn new(global: &GlobalArgs) -> Self {
        let no_color_env = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Output {
            json: global.json,
            quiet: global.quiet,
            verbose: global.verbose,
            color: !global.no_color && !no_color_env && io::stderr().is_terminal(),
            stdout: BufWriter::with_capacity(64 * 1024, io::stdout()),
        }
    }

    /// One line of result on stdout.
    pub fn line(&mut self, text: impl AsRef<[u8]>) -> io::Result<()> {
        let written = self
            .stdout
            .write_all(text.as_ref())
            .and_then(|_| self.stdout.write_all(b"\n"));
        checked(written)
    }

    /// One JSON value on its own line on stdout.
    pub fn json_line(&mut self, value: &impl serde::Serialize) -> io::Result<()> {
        let written = serde_json::to_writer(&mut self.stdout, value)
            .map_err(io::Error::from)
            .and_then(|_| self.stdout.write_all(b"\n"));
        checked(written)
    }

    /// One JSON value on stdout, without a newline (for a JSON array written piece by piece).
    pub fn json(&mut self, value: &impl serde::Serialize) -> io::Result<()> {
        checked(serde_json::to_writer(&mut self.stdout, value).map_err(io::Error::from))
    }

    /// Bytes on stdout as they are.
    pub fn raw(&mut self, bytes: &[u8]) -> io::Result<()> {
        checked(self.stdout.write_all(bytes))
    }

    pub fn flush(&mut self) -> io::Result<()> {
        checked(self.stdout.flush())
    }

    /// The result of writing a report of work already done: a closed stdout is no error then
    /// (the work is done; nobody reads the report), any other write error still is.
    pub fn after_done(&self, written: io::Result<()>) -> io::Result<()> {
        match written {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
            other => other,
        }
    }

    /// What a command stopped before it was done did, whatever --quiet says: on stderr, or
    /// on stdout when stderr is closed, so that it reaches whichever stream is still read.
    pub fn last_word(&mut self, text: &str) {
        stderr_line(text);
        if !stderr_open() {
            let _ = self.line(text).and_then(|_| self.flush());
        }
    }

    /// A message for people on stderr, unless --quiet.
    pub fn note(&self, msg: impl std::fmt::Display) {
        if !self.quiet {
            stderr_line(&msg.to_string());
        }
    }

    /// A warning on stderr, unless --quiet.
    pub fn warn(&self, msg: impl std::fmt::Display) {
        if !self.quiet {
            let msg = printable_message(&msg.to_string());
            write_stderr_line(&format!("{} {msg}", self.paint("warning:", "33")));
        }
    }

    /// Detail shown with -v.
    pub fn verbose(&self, msg: impl std::fmt::Display) {
        if self.verbose > 0 && !self.quiet {
            stderr_line(&msg.to_string());
        }
    }

    /// `text` in an ANSI colour when colour is on.
    pub fn paint(&self, text: &str, ansi: &str) -> String {
        if self.color {
            format!("\x1b[{ansi}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }

    /// A spinner with a line of text that changes (`set_message`) and the time elapsed, on
    /// stderr; hidden when stderr is no terminal or with --quiet.
    pub fn spinner(&self) -> ProgressBar {
        if self.quiet || !io::stderr().is_terminal() {
            return ProgressBar::hidden();
        }
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template("{spinner} {wide_msg} {elapsed}")
                .expect("valid progress template"),
        );
        bar.enable_steady_tick(Duration::from_millis(120));
        bar
    }

    /// A counter with a rate on stderr; hidden when stderr is no terminal or with --quiet.
    pub fn counter(&self, what: &str) -> ProgressBar {
        if self.quiet || !io::stderr().is_terminal() {
            return ProgressBar::hidden();
        }
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        bar.set_style(with_rate(
            ProgressStyle::with_template(&format!(
                "{{spinner}} {{human_pos}} {what} ({{rate}}, {{elapsed}})"
            ))
            .expect("valid progress template"),
        ));
        bar.enable_steady_tick(Duration::from_millis(120));
        bar
    }
}

/// The style with a key `{rate}`: items per second, whole above 10 (`72,609/s`), else with
/// one decimal (`3.5/s`).
fn with_rate(style: ProgressStyle) -> ProgressStyle {
    style.with_key(
        "rate",
        |state: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
            let _ = write!(w, "{}", per_second(state.per_sec()));
        },
    )
}

/// A rate for people: `72,609/s`, `3.5/s`.
pub fn per_second(rate: f64) -> String {
    if !rate.is_finite() || rate < 0.0 {
        "-/s".into()
    } else if rate >= 10.0 {
        format!("{}/s", thousands(rate.round() as u64))
    } else {
        format!("{rate:.1}/s")
    }
}

/// Prints an error for people: `qctl: <message>` with each cause on its own line.
pub fn print_error(err: &anyhow::Error) {
    let mut text = format!("qctl: {err}");
    for cause in err.chain().skip(1) {
        let cause = cause.to_string();
        // Typed errors often repeat their source; print each distinct part once.
        if !text.contains(&cause) {
            text.push_str(&format!("\n  caused by: {cause}"));
        }
    }
    stderr_line(&crate::engine::error::redact(&text));
}

/// A write to stdout as it went, a broken pipe noted (see [`closed`]).
fn checked(written: io::Result<()>) -> io::Result<()> {
    if let Err(e) = &written {
        note_write_error(e);
    }
    written
}

/// How a column of a table for people fits a narrow terminal (see [`Output::fit_table`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fit {
    /// Never cut: ids, times, short words.
    Keep,
    /// A number: right-aligned, never cut.
    Number,
    /// A number that may be left out: right-aligned, never cut.
    Extra,
    /// Text, cut with `…` down to this many columns, or left out.
    Cut(usize),
    /// What a row is about (a queue's name): cut in its middle with `…` ([`cut_middle`])
    /// down to this many columns, never left out.
    Name(usize),
}

/// The width tables for people fit: `$COLUMNS` when it is set to a number, else the
/// terminal's when stdout is one; None (nothing is cut) otherwise.
pub fn table_width() -> Option<usize> {
    if let Some(n) = std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|n| *n > 0)
    {
        return Some(n);
    }
    // A terminal that does not know its size (a pty nobody sized, as under `script`) says 0.
    io::stdout()
        .is_terminal()
        .then(crossterm::terminal::size)
        .and_then(Result::ok)
        .map(|(cols, _)| cols as usize)
        .filter(|cols| *cols > 0)
}

/// The columns `text` takes on a terminal.
pub fn width_of(text: &str) -> usize {
    unicode_width::UnicodeWidthStr::width(text)
}

/// `text` cut to `width` columns, ending in `…` when it was cut.
pub fn cut(text: &str, width: usize) -> String {
    if width_of(text) <= width {
        return text.to_string();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if used + w + 1 > width {
            break;
        }
        out.push(c);
        used += w;
    }
    out.push('…');
    out
}

/// The width each column of a table takes whole: its header's or its widest cell's.
pub fn column_widths(headers: &[&str], rows: &[Vec<String>]) -> Vec<usize> {
    (0..headers.len())
        .map(|i| {
            rows.iter()
                .map(|r| r.get(i).map_or(0, |c| width_of(c)))
                .chain([width_of(headers[i])])
                .max()
                .unwrap_or(0)
        })
        .collect()
}

/// `text` in at most `max` lines of at most `width` characters, broken at spaces where it
/// can be (a word longer than a line is broken inside); the last line ends in `…` when the
/// text goes on. Line breaks and tabs in `text` count as spaces. A width of 0 leaves the
/// text on one line.
pub fn wrap(text: &str, width: usize, max: usize) -> Vec<String> {
    if width == 0 {
        return vec![text.to_string()];
    }
    let text: String = text
        .chars()
        .map(|c| if c.is_whitespace() { ' ' } else { c })
        .collect();
    let mut lines = Vec::new();
    let mut rest = text.trim();
    while !rest.is_empty() && lines.len() < max {
        if rest.chars().count() <= width {
            lines.push(rest.to_string());
            return lines;
        }
        if lines.len() + 1 == max {
            lines.push(cut(rest, width));
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

/// `text` cut to `width` columns in its middle: its start and its end with `…` between, so
/// names that differ only at one end (`mail-eu`, `mail-us`; `{a}:mail`, `{b}:mail`) stay
/// apart. The start keeps the odd column.
pub fn cut_middle(text: &str, width: usize) -> String {
    if width_of(text) <= width || width < 3 {
        return cut(text, width);
    }
    let tail_room = (width - 1) / 2;
    let head_room = width - 1 - tail_room;
    let fit = |chars: &mut dyn Iterator<Item = char>, room: usize| {
        let mut used = 0;
        let mut kept = Vec::new();
        for c in chars {
            let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
            if used + w > room {
                break;
            }
            kept.push(c);
            used += w;
        }
        kept
    };
    let head = fit(&mut text.chars(), head_room);
    let mut tail = fit(&mut text.chars().rev(), tail_room);
    tail.reverse();
    head.into_iter().chain(['…']).chain(tail).collect()
}

impl Output {
    /// A table for people: no borders, header, wraps to the terminal.
    pub fn table(&self, header: &[&str]) -> comfy_table::Table {
        let mut table = comfy_table::Table::new();
        table
            .load_style(comfy_table::presets::NOTHING)
            .set_content_arrangement(comfy_table::ContentArrangement::Disabled)
            .set_header(header.to_vec());
        table
    }

    /// A table for people that fits [`table_width`]: each column as `columns` says. Text
    /// columns are cut with `…`, the widest first, down to their least width (never below
    /// their header); when even that is too wide, the columns that may go
    /// ([`Fit::Cut`], [`Fit::Extra`]) are left out, the last first, and a note names them.
    /// Ids, times and numbers are never cut; numbers are right-aligned. Off a terminal (and
    /// without `$COLUMNS`) nothing is cut.
    pub fn fit_table(
        &self,
        columns: &[(&str, Fit)],
        mut rows: Vec<Vec<String>>,
    ) -> comfy_table::Table {
        let mut shown: Vec<usize> = (0..columns.len()).collect();
        let headers: Vec<&str> = columns.iter().map(|(name, _)| *name).collect();
        let natural = column_widths(&headers, &rows);
        if let Some(room) = table_width() {
            let floors: Vec<usize> = (0..columns.len())
                .map(|i| match columns[i].1 {
                    Fit::Cut(min) | Fit::Name(min) => {
                        natural[i].min(min.max(width_of(columns[i].0)))
                    }
                    _ => natural[i],
                })
                .collect();
            // Each cell has a space on either side; the last line's trailing spaces go.
            let used = |shown: &[usize], widths: &[usize]| {
                shown
                    .iter()
                    .map(|&i| widths[i] + 2)
                    .sum::<usize>()
                    .saturating_sub(1)
            };
            let mut left_out = Vec::new();
            while used(&shown, &floors) > room {
                let Some(pos) = shown
                    .iter()
                    .rposition(|&i| matches!(columns[i].1, Fit::Cut(_) | Fit::Extra))
                else {
                    break;
                };
                left_out.push(columns[shown.remove(pos)].0);
            }
            if !left_out.is_empty() {
                left_out.reverse();
                self.note(format_args!(
                    "{} left out to fit {room} columns (--json shows everything)",
                    left_out.join(", ")
                ));
            }
            // The widest text column that can give some room gives it, until the line fits.
            let mut widths = natural.clone();
            while used(&shown, &widths) > room {
                let Some(&widest) = shown
                    .iter()
                    .filter(|&&i| widths[i] > floors[i])
                    .max_by_key(|&&i| (widths[i], i))
                else {
                    break;
                };
                let over = used(&shown, &widths) - room;
                widths[widest] -= over.min(widths[widest] - floors[widest]);
            }
            for row in &mut rows {
                for &i in &shown {
                    if let Some(cell) = row.get_mut(i) {
                        if width_of(cell) > widths[i] {
                            *cell = match columns[i].1 {
                                Fit::Name(_) => cut_middle(cell, widths[i]),
                                _ => cut(cell, widths[i]),
                            };
                        }
                    }
                }
            }
        }
        let header: Vec<&str> = shown.iter().map(|&i| columns[i].0).collect();
        let mut table = self.table(&header);
        for (pos, &i) in shown.iter().enumerate() {
            if matches!(columns[i].1, Fit::Number | Fit::Extra) {
                if let Some(column) = table.column_mut(pos) {
                    column.set_cell_alignment(comfy_table::CellAlignment::Right);
                }
            }
        }
        for row in rows {
            table.add_row(
                shown
                    .iter()
                    .map(|&i| row.get(i).cloned().unwrap_or_default()),
            );
        }
        table
    }

    /// Prints a table (trailing spaces trimmed).
    pub fn print_table(&mut self, table: &comfy_table::Table) -> io::Result<()> {
        for line in table.lines() {
            self.line(line.trim_end())?;
        }
        Ok(())
    }

    /// Asks before a destructive or bulk change. `--yes` answers for the user; without a
    /// terminal and without `--yes` the command is refused with the exact line to re-run. A
    /// stop request (before or during the question) is the answer when it comes first.
    pub async fn confirm(
        &self,
        question: &str,
        yes: bool,
        stop: &crate::signals::Stop,
    ) -> Result<Answer, crate::engine::Error> {
        if !yes && (!io::stdin().is_terminal() || !io::stderr().is_terminal()) {
            return Err(crate::engine::Error::Usage(format!(
                "{question} needs confirmation and there is no terminal to ask; to go ahead, run:\n  {}",
                rerun_with_yes()
            )));
        }
        if let Some(cause) = stop.cause() {
            return Ok(Answer::Stopped(cause));
        }
        if yes {
            return Ok(Answer::Yes);
        }
        // The prompt reads the terminal in a thread of its own, so that a signal that does
        // not come from the keyboard (SIGTERM, a Ctrl-C elsewhere in a pipeline) ends the
        // wait too. The terminal stays in its own (canonical) mode: it echoes and edits the
        // line, Ctrl-C is its SIGINT, and the read takes the whole line, Enter included, so
        // nothing typed is left over for the shell.
        let (tx, rx) = tokio::sync::oneshot::channel();
        let question = format!("{} [y/N] ", printable_message(question));
        std::thread::spawn(move || {
            let _ = tx.send(ask_line(&question));
        });
        let stopped = || Answer::Stopped(stop.cause().unwrap_or(crate::signals::Cause::Interrupt));
        tokio::select! {
            answer = rx => match answer {
                Ok(Ok(answer)) => Ok(answer),
                Ok(Err(e)) => Err(crate::engine::Error::Usage(format!(
                    "cannot ask for confirmation: {e}"
                ))),
                Err(_) => Err(crate::engine::Error::Usage(
                    "cannot ask for confirmation: the prompt ended without an answer".into(),
                )),
            },
            _ = stop.requested.cancelled() => {
                // What stopped it is said on a line of its own, not after the question.
                stderr_line("");
                Ok(stopped())
            }
        }
    }
}

/// Asks `question` on stderr and reads a line of answer from the terminal on stdin, read as
/// [`crate::engine::text::yes_or_no`] says; anything else asks again. The end of the input
/// (Ctrl-D) is no answer, so no.
fn ask_line(question: &str) -> io::Result<Answer> {
    use std::io::BufRead;
    let mut stdin = io::stdin().lock();
    loop {
        {
            let mut stderr = io::stderr().lock();
            stderr.write_all(question.as_bytes())?;
            stderr.flush()?;
        }
        let mut line = Vec::new();
        if stdin.read_until(b'\n', &mut line)? == 0 {
            stderr_line("");
            return Ok(Answer::No);
        }
        match crate::engine::text::yes_or_no(&String::from_utf8_lossy(&line)) {
            Some(true) => return Ok(Answer::Yes),
            Some(false) => return Ok(Answer::No),
            None => stderr_line("answer y or yes to go ahead, n or no (or Enter alone) not to"),
        }
    }
}

/// The answer to a confirmation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answer {
    Yes,
    No,
    /// A stop request came first.
    Stopped(crate::signals::Cause),
}

/// This command line with `--yes` added, quoted for a POSIX shell.
pub fn rerun_with_yes() -> String {
    let mut hidden = false;
    let mut words: Vec<String> = std::env::args()
        .map(|a| {
            let plain = without_password(&a);
            hidden |= plain != a;
            shell_quote(&plain)
        })
        .collect();
    if let Some(first) = words.first_mut() {
        *first = "qctl".into();
    }
    words.push("--yes".into());
    let line = words.join(" ");
    if hidden {
        format!("{line}\n  (the URL's password is left out: give it in $QCTL_REDIS_PASSWORD or --password-file)")
    } else {
        line
    }
}

/// The columns of [`queue_cells`], as they fit a narrow terminal.
pub const QUEUE_COLUMNS: [(&str, Fit); 8] = [
    ("QUEUE", Fit::Name(12)),
    ("ACTIVE", Fit::Number),
    ("DUE", Fit::Number),
    ("LATER", Fit::Number),
    ("IN FLIGHT", Fit::Number),
    ("DEAD", Fit::Number),
    ("CONSUMERS", Fit::Keep),
    ("PAUSED", Fit::Keep),
];

/// The cells every view of a queue's counts starts with (`stats`, `top`): QUEUE, ACTIVE,
/// DUE, LATER, IN FLIGHT, DEAD, CONSUMERS (alive, then how many expired if any), PAUSED;
/// an unreadable count is `?`.
pub fn queue_cells(s: &crate::engine::queues::QueueStats) -> Vec<String> {
    vec![
        printable(&s.queue),
        count(s.active),
        count(s.scheduled_due),
        count(s.scheduled_later),
        count(s.in_flight),
        count(s.dead),
        match s.consumers_expired {
            Some(0) => count(s.consumers_alive),
            expired => format!("{}, {} expired", count(s.consumers_alive), count(expired)),
        },
        if s.paused { "yes" } else { "no" }.into(),
    ]
}

/// A count for a table cell: `?` when it could not be read.
pub fn count(c: crate::engine::queues::Count) -> String {
    c.map_or("?".into(), |n| n.to_string())
}

/// Data for a table cell: UTF-8 text cut at `max` characters on one line, or a binary mark.
pub fn preview(data: &[u8], max: usize) -> String {
    match std::str::from_utf8(data) {
        Ok(s) => {
            // Only the characters shown are read: a record may be many megabytes.
            let mut one_line: String = s
                .chars()
                .take(max)
                .map(|c| {
                    if crate::engine::text::hidden(c) {
                        ' '
                    } else {
                        c
                    }
                })
                .collect();
            if s.chars().nth(max).is_some() {
                one_line.push('…');
            }
            one_line
        }
        Err(_) => format!("<binary, {} bytes>", data.len()),
    }
}

/// Why a dead job died, for a table cell: the recorded reason and the first line of its
/// stderr.
pub fn dead_reason(e: &Entry) -> String {
    match (&e.failure, e.damage()) {
        (_, Some(why)) => format!("damaged: {}", printable(&why)),
        (Some(f), None) => {
            let first = f
                .stderr
                .lines()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("");
            if first.is_empty() {
                printable(&f.reason)
            } else {
                format!(
                    "{}: {}",
                    printable(&f.reason),
                    preview(first.as_bytes(), 120)
                )
            }
        }
        (None, None) => "-".into(),
    }
}

/// The stable JSON form of a listed job: `id`, `score` (unix seconds; death or due time),
/// `time` (the same as RFC 3339), `attempt`, `data` (UTF-8) or `data_b64`, `damaged` (why the
/// record cannot be read, else null), `failure` (the recorded failure, else null).
pub fn entry_json(e: &Entry, score_name: &str) -> serde_json::Value {
    use base64::Engine as _;
    let data = e.data();
    let (text, b64) = match data.map(std::str::from_utf8) {
        Some(Ok(s)) => (Some(s.to_string()), None),
        Some(Err(_)) => (
            None,
            data.map(|d| base64::engine::general_purpose::STANDARD.encode(d)),
        ),
        None => (None, None),
    };
    let mut v = serde_json::json!({
        "id": e.id,
        "attempt": e.attempt(),
        "damaged": e.damage(),
        "failure": e.failure,
    });
    if let Some(t) = text {
        v["data"] = t.into();
    }
    if let Some(b) = b64 {
        v["data_b64"] = b.into();
    }
    if let Some(s) = e.score {
        v[score_name] = s.into();
        v[format!("{score_name}_at")] = crate::engine::jobs::describe_time(s).into();
    }
    v
}

/// The JSON of `dead show` (`scheduled show`, `active show`) and of qctl web's job: the
/// fields of a listed job (the time of `score_name` when the entry has a score), `queue`,
/// and `location`: `state`, and `position` (active), `due` (scheduled), `died` (dead), or
/// `consumer` and `started` (in flight; unix seconds, null when not recorded).
pub fn shown_json(
    queue: &str,
    shown: &crate::engine::jobs::Shown,
    score_name: &str,
) -> serde_json::Value {
    let mut v = entry_json(&shown.entry, score_name);
    v["queue"] = queue.into();
    v["location"] = serde_json::to_value(&shown.location).unwrap_or_default();
    if matches!(
        shown.location,
        crate::engine::jobs::Location::InFlight { .. }
    ) {
        v["location"]["started"] = shown.started.into();
    }
    v
}

/// The JSON of a listed job: in the active list, `ahead` (jobs before it) instead of a time.
pub fn listed_json(e: &Entry, place: Place) -> serde_json::Value {
    if place != Place::Active {
        return entry_json(e, place.score_name());
    }
    let ahead = e.score;
    let mut v = entry_json(
        &Entry {
            score: None,
            ..e.clone()
        },
        place.score_name(),
    );
    v["ahead"] = ahead.map(|a| a as u64).into();
    v
}

/// The cells of a group's row in `dead groups` and `scheduled groups`: GROUP, COUNT,
/// FAILURES, FIRST, LAST.
pub fn group_cells(g: &crate::engine::groups::Group, now: f64) -> Vec<String> {
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

/// A happening of `qctl tail` in words, after its time and queue: `dead ID after run 3:
/// exit 1: ...`, `consumer 0b7d3e2a joined (qctl 0.1.0 on host:42, per-job: ./run)`.
pub fn event_text(keys: &QueueKeys, time: f64, happening: &Happening, now: f64) -> String {
    match happening {
        Happening::Dead { id, failure } => format!(
            "dead {}{}",
            printable(id),
            match failure {
                Some(f) => format!(" after run {}: {}", f.attempt + 1, why(f)),
                None =>
                    ": no failure recorded (a Go CurlyQ consumer or another tool moved it)".into(),
            }
        ),
        Happening::Retry { id, due, failure } => format!(
            "retry {} {}{}",
            printable(id),
            if !due.is_finite() {
                "due at an unknown time".to_string()
            } else if *due > time {
                format!(
                    "due {} ({} later)",
                    clock(*due),
                    relative(*due, time).trim_start_matches("in ")
                )
            } else {
                "due at once".to_string()
            },
            failure
                .as_ref()
                .map(|f| format!(" after run {}: {}", f.attempt + 1, why(f)))
                .unwrap_or_default()
        ),
        Happening::Joined {
            consumer,
            described,
        } => format!(
            "consumer {} joined{}",
            short_name(consumer, keys),
            described
                .as_ref()
                .map_or(" (writes no description: Go CurlyQ?)".to_string(), who)
        ),
        Happening::Left { consumer } => format!("consumer {} left", short_name(consumer, keys)),
        Happening::Expired {
            consumer,
            heartbeat,
            in_flight,
        } => format!(
            "consumer {} expired: heartbeat {}, {} in flight",
            short_name(consumer, keys),
            relative(*heartbeat, now),
            in_flight.map_or("? jobs".into(), |n| plural(n, "job"))
        ),
        Happening::Recovered { consumer } => format!(
            "consumer {} recovered: its jobs went back to {}",
            short_name(consumer, keys),
            keys.active
        ),
        Happening::Paused => "paused".into(),
        Happening::Resumed => "resumed".into(),
        Happening::Change(entry) => {
            let words = change_words(entry);
            format!(
                "change {}: {} by {}{}{words}",
                printable(&entry.entry),
                printable(&entry.action),
                printable(&entry.by()),
                if words.is_empty() { "" } else { ": " }
            )
        }
    }
}

/// What a change did, in a line: `3 done, 1 skipped; rate 100/s; e.g. j1, j2`.
pub fn change_words(entry: &ChangeEntry) -> String {
    let mut parts = vec![entry.counts()];
    parts.push(printable(&entry.detail));
    let sample: Vec<String> = entry.sample.iter().map(|id| printable(id)).collect();
    if !sample.is_empty() {
        parts.push(format!("e.g. {}", sample.join(", ")));
    }
    parts.retain(|p| !p.is_empty());
    parts.join("; ")
}

/// The columns of `qctl changes`; [`change_cells`] are a row's.
pub const CHANGE_COLUMNS: [(&str, Fit); 7] = [
    ("ENTRY", Fit::Keep),
    ("TIME (UTC)", Fit::Keep),
    ("ACTION", Fit::Keep),
    ("DONE", Fit::Number),
    ("SKIPPED", Fit::Extra),
    ("BY", Fit::Cut(10)),
    ("COMMAND", Fit::Cut(12)),
];

/// A row of `qctl changes`: SKIPPED counts the ids not found too; ACTION says when a stop
/// or an error ended the change.
pub fn change_cells(entry: &ChangeEntry) -> Vec<String> {
    let mut action = printable(&entry.action);
    if entry.interrupted.is_some() {
        action.push_str(" (stopped)");
    } else if entry.error.is_some() {
        action.push_str(" (failed)");
    }
    let command: Vec<String> = entry
        .argv
        .iter()
        .map(|w| printable(&shell_quote(w)))
        .collect();
    vec![
        printable(&entry.entry),
        chrono::DateTime::from_timestamp(entry.time.floor() as i64, 0)
            .map(|d| d.format("%Y-%m-%d %H:%M:%S").to_string())
            .unwrap_or_default(),
        action,
        thousands(entry.done),
        thousands(entry.skipped + entry.not_found),
        printable(&entry.by()),
        command.join(" "),
    ]
}

/// A failure in a line: the reason and the first line of stderr, without control
/// characters.
fn why(f: &Failure) -> String {
    let first = f
        .stderr
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .map(|l| format!(": {}", printable(l)))
        .unwrap_or_default();
    format!("{}{first}", printable(&f.reason))
}

fn who(d: &Description) -> String {
    format!(
        " (qctl {} on {}, {}: {})",
        printable(d.version.as_deref().unwrap_or("-")),
        host_pid(Some(d)),
        printable(d.mode.as_deref().unwrap_or("-")),
        d.command.as_deref().map(command_line).unwrap_or_default()
    )
}

/// A time of day, UTC, as the lines start with it.
pub fn clock(t: f64) -> String {
    chrono::DateTime::from_timestamp(t.floor() as i64, 0)
        .map(|d| d.format("%H:%M:%S").to_string())
        .unwrap_or_else(|| format!("{t}"))
}

/// The columns of `qctl consumers`'s table; [`consumer_cells`] are a row's.
pub const CONSUMER_COLUMNS: [(&str, Fit); 8] = [
    ("CONSUMER", Fit::Keep),
    ("RUN BY", Fit::Keep),
    ("HOST:PID", Fit::Cut(12)),
    ("HEARTBEAT", Fit::Keep),
    ("IN FLIGHT", Fit::Number),
    ("RAN", Fit::Extra),
    ("FAILED", Fit::Extra),
    ("STATE", Fit::Cut(8)),
];

/// A consumer as `qctl consumers` names it: the start of its UUID, or a member with a
/// problem in full, for whoever sets it right.
pub fn consumer_name(c: &ConsumerInfo, keys: &QueueKeys) -> String {
    match &c.problem {
        Some(_) => printable(&c.key),
        None => short_name(&c.key, keys),
    }
}

/// A row of `qctl consumers`'s table, with what it `described` of itself, whether its
/// `process` runs, the server's clock `now` and the oldest heartbeat alive, `cutoff`.
pub fn consumer_cells(
    c: &ConsumerInfo,
    described: Option<&Description>,
    process: Option<Process>,
    keys: &QueueKeys,
    now: f64,
    cutoff: f64,
) -> Vec<String> {
    let state = c.state(described, process, now, cutoff);
    let d = described.cloned().unwrap_or_default();
    let dash = |v: Option<String>| v.unwrap_or_else(|| "-".into());
    vec![
        consumer_name(c, keys),
        match &d.version {
            Some(v) => format!("qctl {}", printable(v)),
            None => c.run_by(keys, false).into(),
        },
        host_pid(Some(&d)),
        if c.heartbeat.is_finite() {
            relative(c.heartbeat, now)
        } else {
            crate::engine::jobs::describe_time(c.heartbeat)
        },
        c.in_flight.map_or("?".into(), |n| n.to_string()),
        dash(d.ran.map(|n| n.to_string())),
        dash(d.failed.map(|n| n.to_string())),
        state,
    ]
}

/// The JSON of a job in flight, as `qctl inflight --json` writes it: the fields of
/// [`entry_json`] and those of [`held_json`].
pub fn inflight_json(
    e: &Entry,
    job: &InFlight,
    d: Option<&Description>,
    now: f64,
) -> serde_json::Value {
    let mut v = entry_json(e, "score");
    if let (Some(v), serde_json::Value::Object(held)) = (v.as_object_mut(), held_json(job, d, now))
    {
        v.extend(held);
    }
    v
}

/// What `qctl inflight --json` says of a job in flight but for its record: `id`,
/// `consumer` (its in-flight key), `run_by` (`qctl` for a consumer that described itself,
/// else `CurlyQ`), `host`, `pid`, `started` and `running_secs` (null when not known).
pub fn held_json(job: &InFlight, d: Option<&Description>, now: f64) -> serde_json::Value {
    serde_json::json!({
        "id": job.id,
        "consumer": job.consumer,
        "run_by": if d.is_some() { "qctl" } else { "CurlyQ" },
        "host": d.and_then(|d| d.host.clone()),
        "pid": d.and_then(|d| d.pid),
        "started": job.started,
        "running_secs": job.running(now),
    })
}

/// The columns of `qctl inflight`'s table; [`inflight_cells`] are a row's.
pub const INFLIGHT_COLUMNS: [(&str, Fit); 6] = [
    ("ID", Fit::Keep),
    ("CONSUMER", Fit::Keep),
    ("HOST:PID", Fit::Cut(12)),
    ("RUNNING", Fit::Keep),
    ("FAILURES", Fit::Number),
    ("DATA", Fit::Cut(8)),
];

/// A row of `qctl inflight`'s table: RUNNING is `-` when the start is not known
/// ([`crate::engine::consumers::NO_START`]).
pub fn inflight_cells(
    e: &Entry,
    job: &InFlight,
    d: Option<&Description>,
    keys: &QueueKeys,
    now: f64,
) -> Vec<String> {
    vec![
        printable(&job.id),
        short_name(&job.consumer, keys),
        host_pid(d),
        job.running(now)
            .map_or("-".into(), crate::engine::text::running),
        e.attempt().map_or("-".into(), |a| a.to_string()),
        match e.damage() {
            Some(why) => format!("<damaged: {}>", printable(&why)),
            None => preview(e.data().unwrap_or_default(), 200),
        },
    ]
}

/// The columns of a listing's table (`dead list`, `scheduled list`, `active list`), as they
/// fit a narrow terminal; [`listed_cells`] are a row's.
pub fn listed_columns(place: Place) -> &'static [(&'static str, Fit)] {
    match place {
        Place::Dead => &[
            ("ID", Fit::Keep),
            ("FAILURES", Fit::Number),
            ("DIED", Fit::Keep),
            ("REASON", Fit::Cut(12)),
            ("DATA", Fit::Cut(8)),
        ],
        Place::Scheduled => &[
            ("ID", Fit::Keep),
            ("KIND", Fit::Keep),
            ("DUE", Fit::Keep),
            ("FAILURES", Fit::Number),
            ("DATA", Fit::Cut(8)),
        ],
        Place::Active => &[
            ("AHEAD", Fit::Number),
            ("ID", Fit::Keep),
            ("FAILURES", Fit::Number),
            ("DATA", Fit::Cut(8)),
        ],
    }
}

/// One table row of a listing; `index` is the job's position in the listing.
pub fn listed_cells(place: Place, e: &Entry, index: u64, now: f64) -> Vec<String> {
    let attempts = e.attempt().map_or("-".to_string(), |a| a.to_string());
    let data = match e.damage() {
        Some(why) => format!("<damaged: {}>", printable(&why)),
        None => preview(e.data().unwrap_or_default(), 60),
    };
    // Relative, to fit a narrow terminal: the time itself is in `show` and in JSON.
    let when = e.score.map(|s| due_text(place, s, now)).unwrap_or_default();
    let id = printable(&e.id);
    match place {
        Place::Dead => vec![id, attempts, when, dead_reason(e), data],
        Place::Scheduled => {
            let kind = if e.attempt().unwrap_or(0) > 0 {
                "retry"
            } else {
                "delayed"
            };
            vec![id, kind.into(), when, attempts, data]
        }
        Place::Active => vec![
            e.score.map_or(index, |a| a as u64).to_string(),
            id,
            attempts,
            data,
        ],
    }
}

/// When a listed job died or is due, relative to `now`, as a table cell shows it.
pub fn due_text(place: Place, t: f64, now: f64) -> String {
    match place {
        Place::Scheduled if t == f64::NEG_INFINITY => "due (score -inf)".into(),
        Place::Scheduled if t == f64::INFINITY => "never due (score +inf)".into(),
        Place::Scheduled if t <= now => {
            format!("overdue {}", relative(t, now).trim_end_matches(" ago"))
        }
        _ => relative(t, now),
    }
}

impl Output {
    /// A bar counting to `total` on stderr; hidden when stderr is no terminal or with --quiet.
    pub fn progress(&self, total: u64, what: &str) -> ProgressBar {
        if self.quiet || !io::stderr().is_terminal() {
            return ProgressBar::hidden();
        }
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
        bar.set_style(with_rate(
            ProgressStyle::with_template(&format!(
                "{what} {{bar:30}} {{human_pos}}/{{human_len}} ({{rate}}, eta {{eta}})"
            ))
            .expect("valid progress template"),
        ));
        bar
    }
}

/// The rows `qctl find` writes as it finds jobs: WHERE, ID, MATCHED, FAILURES, DATA. The
/// widths are fixed when the first row is written (the ID column as wide as a UUID, or the
/// first id when wider), so that each row goes out as soon as its job is found; a longer
/// id pushes its row's last cells.
pub struct FoundRows {
    id_width: Option<usize>,
}

impl Default for FoundRows {
    fn default() -> Self {
        Self::new()
    }
}

impl FoundRows {
    const WHERE: usize = 9;
    const MATCHED: usize = 7;
    const FAILURES: usize = 8;
    /// The ID column's least width: a UUID's.
    const ID: usize = 36;

    pub fn new() -> FoundRows {
        FoundRows { id_width: None }
    }

    /// The lines to write for `hit`: the header before the first row, then its row. DATA is
    /// cut as the listings cut it and to the room [`table_width`] leaves it.
    pub fn lines(&mut self, hit: &crate::engine::find::Hit) -> Vec<String> {
        let e = &hit.entry;
        let id = printable(&e.id);
        let mut lines = Vec::new();
        let id_width = match self.id_width {
            Some(w) => w,
            None => {
                // Rows go out as found, before the longest id is known: the column is as
                // wide as a UUID (what ids mostly are) or the first id, whichever is wider,
                // so that the rows after the first keep in line.
                let w = width_of(&id).max(Self::ID);
                self.id_width = Some(w);
                lines.push(self.row("WHERE", "ID", "MATCHED", "FAILURES", "DATA"));
                w
            }
        };
        let [place, _, matched, attempts, mut data] = found_cells(hit);
        if let Some(room) = table_width() {
            let used = Self::WHERE + id_width + Self::MATCHED + Self::FAILURES + 8;
            data = cut(&data, room.saturating_sub(used).max(8));
        }
        lines.push(self.row(&place, &id, &matched, &attempts, &data));
        lines
    }

    fn row(&self, place: &str, id: &str, matched: &str, attempts: &str, data: &str) -> String {
        let id_width = self.id_width.unwrap_or(2);
        let line = format!(
            "{place:<pw$}  {id}{idpad}  {matched:<mw$}  {attempts:>fw$}  {data}",
            pw = Self::WHERE,
            idpad = " ".repeat(id_width.saturating_sub(width_of(id))),
            mw = Self::MATCHED,
            fw = Self::FAILURES,
        );
        line.trim_end().to_string()
    }
}

/// The cells of a job `qctl find` found: WHERE, ID, MATCHED, FAILURES, DATA (its first 60
/// characters as the listings cut them, `<damaged: why>` or `<no record>`), escaped.
pub fn found_cells(hit: &crate::engine::find::Hit) -> [String; 5] {
    let e = &hit.entry;
    let matched: Vec<&str> = hit.matched.iter().map(|m| m.name()).collect();
    let attempts = e.attempt().map_or("-".to_string(), |a| a.to_string());
    let data = match e.damage() {
        Some(why) if e.job.is_some() => format!("<damaged: {}>", printable(&why)),
        Some(_) => "<no record>".to_string(),
        None => preview(e.data().unwrap_or_default(), 60),
    };
    [
        found_where(hit).to_string(),
        printable(&e.id),
        matched.join(","),
        attempts,
        data,
    ]
}

/// Where a job found is, in a row: `dead`, `scheduled`, `in flight`, `ready`, `stranded`.
fn found_where(hit: &crate::engine::find::Hit) -> &'static str {
    use crate::engine::find::Where;
    match hit.place {
        Some(Where::InFlight) => "in flight",
        Some(place) => place.name(),
        None => "stranded",
    }
}

/// The JSON of a job `qctl find` found: `queue`, `where` (`dead`, `scheduled`, `inflight`,
/// `ready`, or `stranded` for a record in no place), `id`, `matched` (`id`, `data`,
/// `failure`), `attempt`, `data` (as the table shows it: its first 60 characters, or
/// `<binary, N bytes>`; null when the record is damaged or missing), `damaged`, and
/// `died` (dead), `due` (scheduled), `ahead` (ready) or `consumer` (in flight).
pub fn found_json(queue: &str, hit: &crate::engine::find::Hit) -> serde_json::Value {
    use crate::engine::find::Where;
    let e = &hit.entry;
    let damaged = e.damage();
    let mut v = serde_json::json!({
        "queue": queue,
        "where": hit.place.map_or("stranded", Where::name),
        "id": e.id,
        "matched": hit.matched.iter().map(|m| m.name()).collect::<Vec<_>>(),
        "attempt": e.attempt(),
        "data": damaged.is_none().then(|| preview(e.data().unwrap_or_default(), 60)),
        "damaged": damaged,
    });
    match (hit.place, e.score) {
        (Some(Where::Dead), Some(t)) => v["died"] = t.into(),
        (Some(Where::Scheduled), Some(t)) => v["due"] = t.into(),
        (Some(Where::Ready), Some(a)) => v["ahead"] = (a as u64).into(),
        _ => {}
    }
    if let Some(consumer) = &hit.consumer {
        v["consumer"] = consumer.as_str().into();
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_preview_is_one_line_of_at_most_max_characters() {
        assert_eq!(preview(b"a\nb\tc", 10), "a b c");
        assert_eq!(preview("héllo wörld".as_bytes(), 5), "héllo…");
        assert_eq!(preview(b"12345", 5), "12345");
        assert_eq!(preview(b"", 5), "");
        assert_eq!(preview(&[b'a', 0xff], 5), "<binary, 2 bytes>");
        let big = "x".repeat(16 << 20);
        assert_eq!(preview(big.as_bytes(), 3), "xxx…");
    }

    #[test]
    fn text_wraps_at_spaces_into_lines_of_the_width() {
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
        let text = "the server is a replica of 127.0.0.1:6379 (read-only)";
        let lines = wrap(text, 20, usize::MAX);
        assert!(lines.iter().all(|l| l.chars().count() <= 20), "{lines:?}");
        assert_eq!(lines.join(" "), text);
        assert_eq!(wrap(&"x".repeat(45), 20, usize::MAX).len(), 3);
        assert_eq!(wrap("one\ntwo", 20, usize::MAX), ["one two"]);
        // Every width ends: 0 (a terminal of unknown size) keeps the text whole.
        assert_eq!(wrap("abc def", 0, usize::MAX), ["abc def"]);
        assert_eq!(wrap("日本 語", 1, usize::MAX), ["日", "本", "語"]);
        assert_eq!(cut("abcdef", 4), "abc…");
    }

    #[test]
    fn names_are_cut_in_the_middle() {
        assert_eq!(cut_middle("mail", 4), "mail");
        assert_eq!(
            cut_middle("queue-with-a-rather-long-name-12", 17),
            "queue-wi…-name-12"
        );
        assert_eq!(cut_middle("{tenant-a}:mail", 10), "{tena…mail");
        // Wide characters count as two columns; a column they cannot fill stays empty.
        assert_eq!(cut_middle("日本語のキュー名", 8), "日本…名");
        assert_eq!(width_of(&cut_middle("日本語のキュー名", 8)), 7);
        assert_eq!(cut_middle("abcdef", 2), "a…");
    }

    #[test]
    fn a_rerun_line_leaves_the_password_out_and_rates_are_short() {
        assert_eq!(
            without_password("redis://:hunter2@h:6379/0"),
            "redis://h:6379/0"
        );
        assert_eq!(without_password("-u=redis://u:pw@h"), "-u=redis://u@h");
        assert_eq!(without_password("rediss://h:6380"), "rediss://h:6380");
        assert_eq!(without_password("mail"), "mail");
        assert_eq!(per_second(72_609.367_9), "72,609/s");
        assert_eq!(per_second(3.46), "3.5/s");
    }
}
