//! `qctl enqueue QUEUE [DATA]`: one job from an argument, a file or stdin; or a stream of
//! jobs with --lines / --jsonl, read and encoded on a thread of its own in constant memory,
//! and sent many per script call with several calls in flight.

use std::ffi::OsString;
use std::io::{BufReader, IsTerminal, Read};
use std::os::unix::ffi::OsStringExt;

use anyhow::Context as _;
use base64::Engine as _;
use serde_json::json;
use tokio::sync::mpsc;

use super::Context;
use crate::cli::{check_time, parse_time, EnqueueArgs};
use crate::engine::enqueue::{self, Accepted, Batch, NewJob, Outcome, Sender, Settled, Submission};
use crate::engine::jobs::{describe_time, locate};
use crate::engine::keys::QueueKeys;
use crate::engine::listing::CALL_BYTES;
use crate::engine::{self, Error, ExitCode, Redis, ServerSpec};
use crate::output::{plural, printable, stopped_by, thousands};
use crate::signals;

/// Script calls in flight: Redis runs one while the next ones wait in its socket, so it
/// never waits for qctl.
const CALLS_IN_FLIGHT: usize = 4;
/// Batches read ahead of the calls in flight.
const READ_AHEAD: usize = 4;
/// A batch stops growing at this many bytes of ids and records (half a call's budget,
/// [`CALL_BYTES`]; a job that would take it past the budget starts the next batch).
const MAX_BATCH_BYTES: usize = 4 << 20;
/// The length of a new job's id, a UUID.
const UUID_LEN: usize = 36;
/// Duplicates and invalid lines reported one by one before only counting them.
const MAX_REPORTED: u64 = 20;

pub async fn run(ctx: Context, args: EnqueueArgs) -> anyhow::Result<ExitCode> {
    if args.id.as_deref() == Some("") {
        return Err(Error::Usage(
            "--id is empty: give a job id, or leave --id out for a new UUID".into(),
        )
        .into());
    }
    let due =
        match (args.delay, args.at) {
            (Some(delay), _) => Some(check_time(engine::now() + delay.as_secs_f64()).map_err(
                |e| Error::Usage(format!("--in {}: {e}", humantime::format_duration(delay))),
            )?),
            (None, at) => at,
        }
        .map(|t| (t * 1000.0).round() / 1000.0);
    if args.lines || args.jsonl {
        bulk(ctx, args, due).await
    } else {
        single(ctx, args, due).await
    }
}

async fn single(mut ctx: Context, args: EnqueueArgs, due: Option<f64>) -> anyhow::Result<ExitCode> {
    let keys = ctx.keys(&args.queue)?;
    let server = ctx.server()?;
    let mut limit = Limit {
        accepted: Accepted::always(server.server()),
        asked: false,
        redis: None,
        id_len: args.id.as_deref().map_or(UUID_LEN, str::len),
    };
    let data = read_data(&args, &server, &keys, &mut limit).await?;
    if let Some(note) = super::assumed(&limit.accepted) {
        ctx.out.warn(note);
    }
    // From here on a signal lets the call in flight answer, so that qctl can say whether the
    // job was enqueued.
    let stop = signals::install()?;
    let mut batch = Batch::new(&keys, engine::now());
    let job = batch.add(NewJob {
        id: args.id.as_deref(),
        data: Some(&data),
        attempt: 0,
        due,
    });
    let submission = batch.finish();
    let mut redis = match limit.redis.take() {
        Some(redis) => redis,
        None => tokio::select! {
            redis = server.connect() => redis?,
            _ = stop.requested.cancelled() => {
                return Ok(nothing_sent(&mut ctx, &stop));
            }
        },
    };
    let mut sender = Sender::new(redis.clone(), 1);
    sender.start(submission, ());
    // The first stop request waits for the answer (bounded by --response-timeout); a second
    // one stops at once.
    let settled = tokio::select! {
        settled = sender.next() => settled,
        _ = stop.forced.cancelled() => None,
    };
    let Some(Settled {
        outcomes, error, ..
    }) = settled
    else {
        let cause = stop.cause().unwrap_or(signals::Cause::Interrupt);
        ctx.out.last_word(&format!(
            "{}: job {:?} was sent to queue {:?}; stopped at once by a second signal, before Redis answered: see whether it is there with `qctl dead show`, `scheduled show` or `active list`",
            stopped_by(cause),
            job.id,
            keys.name
        ));
        return Ok(cause.exit_code());
    };
    let state = if job.due.is_some() {
        "scheduled"
    } else {
        "active"
    };
    let code = match outcomes[0] {
        Outcome::Added => {
            let shown = if ctx.out.json {
                ctx.out.json_line(&json!({
                    "id": job.id,
                    "queue": keys.name,
                    "result": "enqueued",
                    "state": state,
                    "due": job.due,
                }))
            } else {
                ctx.out.line(printable(&job.id))
            };
            shown.and_then(|_| ctx.out.flush()).or_else(closed_pipe)?;
            if let Some(t) = job.due {
                ctx.out
                    .verbose(format_args!("scheduled for {}", describe_time(t)));
            }
            if let Some(err) = &error {
                ctx.out.warn(format_args!(
                    "the reply was lost ({err}); read back from Redis: the job was enqueued"
                ));
            }
            ExitCode::Success
        }
        Outcome::Taken => {
            let location = locate(&mut redis, &keys, &job.id)
                .await
                .with_context(|| format!("cannot tell where job {:?} is", job.id))?;
            let msg = format!(
                "job {:?} already exists in queue {:?} ({}); nothing changed",
                job.id,
                keys.name,
                printable(&location.to_string())
            );
            if ctx.out.json {
                ctx.out
                    .json_line(&json!({
                        "id": job.id,
                        "queue": keys.name,
                        "result": "duplicate",
                        "existing": location,
                    }))
                    .and_then(|_| ctx.out.flush())
                    .or_else(closed_pipe)?;
            }
            crate::output::stderr_line(&format!("qctl: {msg}"));
            ExitCode::NothingDone
        }
        Outcome::NotAdded | Outcome::Unknown => {
            let err = error.unwrap_or_else(|| Error::Unreachable {
                server: server.server().to_string(),
                op: "enqueue".into(),
                reason: "no reply".into(),
            });
            let what = if outcomes[0] == Outcome::Unknown {
                format!(
                    "whether job {:?} was enqueued into queue {:?} is not known: its reply was lost and reading it back failed",
                    job.id, keys.name
                )
            } else if limit.accepted.assumed.is_some() && err.exit_code() == ExitCode::Unreachable {
                // Redis closes the connection on an argument over its proto-max-bulk-len.
                format!(
                    "cannot enqueue into queue {:?}: the job's record is {}, and Redis closes the connection on a record larger than it takes (its proto-max-bulk-len, which could not be read)",
                    keys.name,
                    super::bytes_text(crate::engine::job::record_len(job.id.len(), Some(data.len())) as u64)
                )
            } else {
                format!("cannot enqueue into queue {:?}", keys.name)
            };
            if let Some(cause) = stop.cause() {
                ctx.out.last_word(&format!("{}: {what}", stopped_by(cause)));
            }
            return Err(anyhow::Error::from(err).context(what));
        }
    };
    match stop.cause() {
        // A reader gone once the job was enqueued (or found taken) changes nothing: the work
        // was done.
        Some(signals::Cause::OutputClosed) | None => Ok(code),
        Some(cause) => {
            let done = match outcomes[0] {
                Outcome::Added => format!("enqueued 1 job ({})", printable(&job.id)),
                _ => "enqueued nothing".into(),
            };
            ctx.out.last_word(&format!("{}: {done}", stopped_by(cause)));
            Ok(cause.exit_code())
        }
    }
}

/// A write to stdout that found it closed is no error of its own: the stop request it
/// makes (see [`crate::output::closed`]) decides how the command ends.
fn closed_pipe(err: std::io::Error) -> std::io::Result<()> {
    if err.kind() == std::io::ErrorKind::BrokenPipe {
        Ok(())
    } else {
        Err(err)
    }
}

/// A stop request came before anything was sent.
fn nothing_sent(ctx: &mut Context, stop: &signals::Stop) -> ExitCode {
    let cause = stop.cause().unwrap_or(signals::Cause::Interrupt);
    ctx.out.last_word(&format!(
        "{}: nothing was sent; no job enqueued",
        stopped_by(cause)
    ));
    cause.exit_code()
}

/// What the server takes in one argument, as far as the single job needs to know.
struct Limit {
    accepted: Accepted,
    /// Whether the server was asked.
    asked: bool,
    /// The connection made to ask it, kept for the job.
    redis: Option<Redis>,
    /// The length of the job's id.
    id_len: usize,
}

impl Limit {
    /// The most data the job may carry: what every server takes, or once `len` bytes are
    /// more than that, what this server takes (asked once).
    async fn max_data(
        &mut self,
        len: u64,
        server: &ServerSpec,
        keys: &QueueKeys,
    ) -> anyhow::Result<u64> {
        if len > self.accepted.max_data(self.id_len) && !self.asked {
            self.asked = true;
            let redis = match &mut self.redis {
                Some(redis) => redis,
                None => self.redis.insert(server.connect().await?),
            };
            self.accepted = enqueue::accepted(redis, &keys.data).await?;
        }
        Ok(self.accepted.max_data(self.id_len))
    }
}

/// The single job's data from DATA, --file, or standard input, read no further than the
/// server takes: a file's size is known before it is read, and standard input is read up to
/// what every server takes, then up to what this one does; past that, nothing is sent (exit
/// 6), and memory stays bounded by the server's limit.
async fn read_data(
    args: &EnqueueArgs,
    server: &ServerSpec,
    keys: &QueueKeys,
    limit: &mut Limit,
) -> anyhow::Result<Vec<u8>> {
    let (mut reader, size, name): (Box<dyn Read>, Option<u64>, String) =
        match (&args.file, &args.data) {
            (Some(path), _) => {
                let file = std::fs::File::open(path)
                    .map_err(|e| Error::BadInput(format!("cannot read {}: {e}", path.display())))?;
                let size = file
                    .metadata()
                    .ok()
                    .filter(|m| m.is_file())
                    .map(|m| m.len());
                (Box::new(file), size, path.display().to_string())
            }
            (None, Some(arg)) if arg != "-" => {
                let data = OsString::into_vec(arg.clone());
                let max = limit.max_data(data.len() as u64, server, keys).await?;
                if data.len() as u64 > max {
                    return Err(refused(
                        limit,
                        &format!(
                            "its record would be {}",
                            record_size(limit, data.len() as u64)
                        ),
                    )
                    .into());
                }
                return Ok(data);
            }
            (None, None) if std::io::stdin().is_terminal() => {
                return Err(Error::Usage(
                    "no job data: give DATA, --file PATH, or pipe it to standard input".into(),
                )
                .into())
            }
            (None, _) => {
                // A file redirected to standard input has its size known too.
                let size = std::fs::metadata("/dev/stdin")
                    .ok()
                    .filter(|m| m.is_file())
                    .map(|m| m.len());
                (
                    Box::new(std::io::stdin()),
                    size,
                    "standard input".to_string(),
                )
            }
        };
    let mut max = limit.accepted.max_data(limit.id_len);
    if let Some(size) = size {
        max = limit.max_data(size, server, keys).await?;
        if size > max {
            return Err(refused(
                limit,
                &format!("its record would be {}", record_size(limit, size)),
            )
            .into());
        }
    }
    let mut data = Vec::with_capacity(size.map_or(8192, |s| s.min(max) as usize + 1));
    loop {
        if data.len() as u64 <= max {
            let room = max + 1 - data.len() as u64;
            (&mut reader)
                .take(room)
                .read_to_end(&mut data)
                .map_err(|e| Error::BadInput(format!("cannot read {name}: {e}")))?;
            if data.len() as u64 <= max {
                return Ok(data);
            }
        }
        if limit.asked {
            return Err(refused(
                limit,
                &format!(
                    "its data is more than {} ({name} was read no further)",
                    super::bytes_text(max)
                ),
            )
            .into());
        }
        max = limit.max_data(data.len() as u64, server, keys).await?;
    }
}

/// `2.5 MiB (2,621,440 bytes)`: the size of the record of data of `len` bytes.
fn record_size(limit: &Limit, len: u64) -> String {
    let record = crate::engine::job::record_len(limit.id_len, Some(len as usize));
    super::bytes_text(record as u64)
}

/// The error of a job too large for the server: nothing was sent.
fn refused(limit: &Limit, what: &str) -> Error {
    Error::BadInput(format!(
        "{}; nothing was sent: no job enqueued",
        super::too_large(&limit.accepted, what)
    ))
}

/// One input line, read by the reader thread.
enum Item {
    Job { line: u64, id: String },
    Invalid { line: u64, reason: String },
}

/// Lines read, and the script calls that add their jobs.
struct Chunk {
    items: Vec<Item>,
    submission: Submission,
    /// Warnings of the reader to show (the server's limit could not be read).
    notes: Vec<String>,
}

#[derive(Default, serde::Serialize)]
struct Summary {
    enqueued: u64,
    duplicates: u64,
    failed: u64,
}

/// The lines a run has settled, in input order: every line up to `last` got its answer;
/// the jobs of the lines in `not_added` were sent and did not take effect (their call failed),
/// and of those in `unknown` it is not known (the reply was lost and reading back failed).
#[derive(Default)]
struct Lines {
    last: u64,
    not_added: Vec<(u64, u64)>,
    unknown: Vec<(u64, u64)>,
}

/// Adds lines `first` to `last` to a list of ranges, joined to the last range when they follow
/// it.
fn extend(ranges: &mut Vec<(u64, u64)>, first: u64, last: u64) {
    match ranges.last_mut() {
        Some((_, end)) if *end + 1 >= first => *end = last,
        _ => ranges.push((first, last)),
    }
}

/// `lines 3 to 7, 9 to 9`.
fn ranges_text(ranges: &[(u64, u64)]) -> String {
    let parts: Vec<String> = ranges
        .iter()
        .map(|(a, b)| format!("{} to {}", thousands(*a), thousands(*b)))
        .collect();
    format!("lines {}", parts.join(", "))
}

/// The first and last line of a chunk.
fn span(items: &[Item]) -> (u64, u64) {
    let line = |item: &Item| match item {
        Item::Job { line, .. } | Item::Invalid { line, .. } => *line,
    };
    (items.first().map_or(0, line), items.last().map_or(0, line))
}

async fn bulk(mut ctx: Context, args: EnqueueArgs, due: Option<f64>) -> anyhow::Result<ExitCode> {
    if args.data.as_ref().is_some_and(|d| d != "-") {
        return Err(Error::Usage(
            "with --lines or --jsonl the jobs come from standard input or --file, not DATA".into(),
        )
        .into());
    }
    // Signals are taken over first: from the first call on, a stop request lets the calls in
    // flight answer and says exactly what was enqueued.
    let stop = signals::install()?;
    let input = super::input(args.file.as_deref())?;
    let keys = ctx.keys(&args.queue)?;
    let server = ctx.server()?;
    let redis = tokio::select! {
        redis = server.connect() => redis?,
        _ = stop.requested.cancelled() => return Ok(nothing_sent(&mut ctx, &stop)),
    };

    let (tx, mut rx) = mpsc::channel::<Chunk>(READ_AHEAD);
    let (jsonl, keep_cr) = (args.jsonl, args.keep_cr);
    let reader_keys = keys.clone();
    let limit = super::RecordLimit::new(&redis, &keys.data);
    let reader =
        std::thread::spawn(move || read_items(input, jsonl, keep_cr, due, &reader_keys, limit, tx));

    // The counter shows what Redis confirmed, never what is only sent.
    let counter = ctx.out.counter("jobs enqueued");
    let mut summary = Summary::default();
    let mut lines = Lines::default();
    let mut failure: Option<anyhow::Error> = None;
    let mut output_error: Option<std::io::Error> = None;
    let mut stdout_open = true;
    let mut reported = 0u64;
    // Batches start in input order on one connection, so jobs reach the queue in input
    // order; their results come back in that order too. After a failure or a stop request
    // nothing more starts, and the calls in flight are still reported; a second signal
    // stops without waiting for them.
    let mut sender = Sender::new(redis, CALLS_IN_FLIGHT);
    let mut reading = true;
    let mut input_done = false;
    let mut stopping = false;
    let mut forced = false;
    loop {
        tokio::select! {
            biased;
            _ = stop.forced.cancelled(), if stopping && !sender.is_empty() => {
                forced = true;
                break;
            }
            _ = stop.requested.cancelled(), if !stopping && (reading || !sender.is_empty()) => {
                stopping = true;
                reading = false;
            }
            chunk = rx.recv(), if reading && sender.has_room() => match chunk {
                Some(Chunk { items, submission, notes }) => {
                    for note in notes {
                        counter.suspend(|| ctx.out.warn(note));
                    }
                    sender.start(submission, items)
                }
                None => {
                    reading = false;
                    input_done = true;
                }
            },
            settled = sender.next(), if !sender.is_empty() => {
                let Some(Settled { tag: items, outcomes, error }) = settled else { continue };
                let (first, last) = span(&items);
                let mut outcomes = outcomes.into_iter();
                let mut unknown = false;
                for item in items {
                    let shown = match item {
                        Item::Job { line, id } => {
                            let outcome = outcomes.next().unwrap_or(Outcome::Unknown);
                            match outcome {
                                Outcome::Added => summary.enqueued += 1,
                                Outcome::Taken => summary.duplicates += 1,
                                Outcome::NotAdded => {
                                    summary.failed += 1;
                                    extend(&mut lines.not_added, line, line);
                                }
                                Outcome::Unknown => unknown = true,
                            }
                            match outcome {
                                Outcome::Added | Outcome::Taken if stdout_open => {
                                    report_job(&mut ctx, line, &id, outcome == Outcome::Added, &mut reported)
                                }
                                _ => Ok(()),
                            }
                        }
                        Item::Invalid { line, reason } => {
                            summary.failed += 1;
                            report_invalid(&mut ctx, line, &reason, stdout_open, &mut reported)
                        }
                    };
                    if let Err(e) = shown {
                        stdout_open = false;
                        if e.kind() != std::io::ErrorKind::BrokenPipe {
                            output_error.get_or_insert(e);
                            reading = false;
                        }
                    }
                }
                if unknown {
                    extend(&mut lines.unknown, first, last);
                }
                lines.last = last;
                if let Some(err) = error {
                    failure.get_or_insert(err.into());
                    reading = false;
                }
                counter.set_position(summary.enqueued);
            }
            else => break,
        }
    }
    counter.finish_and_clear();
    drop(rx);
    // The reader may be blocked on input that is not coming: it is waited for only when the
    // input ended.
    let read_result = if input_done {
        reader.join().expect("input reader thread panicked")
    } else {
        Ok(())
    };
    let unconfirmed: Option<(u64, u64)> = {
        let spans: Vec<(u64, u64)> = sender.pending().map(|items| span(items)).collect();
        spans.first().zip(spans.last()).map(|(a, b)| (a.0, b.1))
    };

    if reported > MAX_REPORTED {
        ctx.out.warn(format_args!(
            "{} more duplicates or invalid lines not shown",
            reported - MAX_REPORTED
        ));
    }
    if ctx.out.json && stdout_open {
        let mut value = json!({"result": "summary", "queue": keys.name, "enqueued": summary.enqueued, "duplicates": summary.duplicates, "failed": summary.failed});
        if let Some(cause) = stop.cause() {
            value["interrupted"] = cause.name().into();
            value["last_line"] = lines.last.into();
        }
        if let Err(e) = ctx.out.json_line(&value).or_else(closed_pipe) {
            output_error.get_or_insert(e);
        }
    }
    if let Err(e) = ctx.out.flush().or_else(closed_pipe) {
        output_error.get_or_insert(e);
    }
    // Read after the last write: finding stdout closed there stops the run too, unless the
    // whole input was read and answered: then the stop request stopped nothing.
    let finished = input_done && unconfirmed.is_none() && !forced;
    let cause = stop.cause().filter(|_| !finished);
    let settled = describe_settled(&summary, &lines, unconfirmed, forced);
    if cause.is_none() {
        ctx.out.note(format_args!(
            "enqueued {}, duplicates {}, failed {}",
            thousands(summary.enqueued),
            thousands(summary.duplicates),
            thousands(summary.failed)
        ));
    }
    if let Some(cause) = cause {
        let mut text = format!("{}: {settled}", stopped_by(cause));
        if let Some(err) = &failure {
            text.push_str(&format!(
                "; error: {}",
                crate::engine::error::redact(&format!("{err:#}"))
            ));
        }
        ctx.out.last_word(&text);
        return Ok(cause.exit_code());
    }
    if let Some(err) = failure {
        return Err(err.context(format!(
            "enqueueing into queue {:?} stopped: {settled}; the ids printed were enqueued",
            keys.name
        )));
    }
    if let Some(err) = output_error {
        return Err(anyhow::Error::from(err).context(format!("cannot write the ids: {settled}")));
    }
    read_result?;
    Ok(if summary.failed > 0 {
        ExitCode::BadInput
    } else if summary.enqueued == 0 && summary.duplicates > 0 {
        ExitCode::NothingDone
    } else {
        ExitCode::Success
    })
}

/// What a bulk enqueue did, for its last message: `enqueued 1,299,960 jobs (lines 1 to
/// 1,299,960); nothing after that was sent`, with the duplicates, invalid lines and lines
/// whose jobs were not enqueued or whose fate is not known.
fn describe_settled(
    summary: &Summary,
    lines: &Lines,
    unconfirmed: Option<(u64, u64)>,
    forced: bool,
) -> String {
    let not_added: u64 = lines.not_added.iter().map(|(a, b)| b - a + 1).sum();
    let invalid = summary.failed - not_added;
    let mut text = format!("enqueued {}", plural(summary.enqueued, "job"));
    if summary.duplicates > 0 {
        text.push_str(&format!(", {} duplicates", thousands(summary.duplicates)));
    }
    if invalid > 0 {
        text.push_str(&format!(", {} invalid lines", thousands(invalid)));
    }
    if lines.last > 0 {
        text.push_str(&format!(" (lines 1 to {})", thousands(lines.last)));
    }
    if not_added > 0 {
        text.push_str(&format!(
            "; not enqueued: {} of {} (their calls failed)",
            plural(not_added, "job"),
            ranges_text(&lines.not_added)
        ));
    }
    if !lines.unknown.is_empty() {
        text.push_str(&format!(
            "; {} were sent and whether they were enqueued is not known (the reply was lost and reading it back failed)",
            ranges_text(&lines.unknown)
        ));
    }
    match unconfirmed {
        Some((first, last)) if forced => text.push_str(&format!(
            "; lines {} to {} were sent, and a second signal stopped qctl before Redis answered: some may be enqueued; nothing after that was sent",
            thousands(first),
            thousands(last)
        )),
        _ if lines.last == 0 => text.push_str("; nothing was sent"),
        _ => text.push_str("; nothing after that was sent"),
    }
    text
}

fn report_job(
    ctx: &mut Context,
    line: u64,
    id: &str,
    new: bool,
    reported: &mut u64,
) -> std::io::Result<()> {
    if ctx.out.json {
        let result = if new { "enqueued" } else { "duplicate" };
        ctx.out
            .json_line(&json!({"line": line, "id": id, "result": result}))?;
    } else if new {
        ctx.out.line(printable(id))?;
    } else {
        *reported += 1;
        if *reported <= MAX_REPORTED {
            ctx.out.warn(format_args!(
                "line {line}: job {id:?} already exists; skipped"
            ));
        }
    }
    Ok(())
}

fn report_invalid(
    ctx: &mut Context,
    line: u64,
    reason: &str,
    stdout_open: bool,
    reported: &mut u64,
) -> std::io::Result<()> {
    *reported += 1;
    if *reported <= MAX_REPORTED {
        ctx.out.warn(format_args!("line {line}: {reason}; skipped"));
    }
    if ctx.out.json && stdout_open {
        ctx.out
            .json_line(&json!({"line": line, "result": "invalid", "error": reason}))?;
    }
    Ok(())
}

/// Hands the batch and its items over to be sent, leaving both empty for the next; false
/// when the receiver has gone away.
fn hand_over(
    batch: &mut Batch<'_>,
    items: &mut Vec<Item>,
    notes: &mut Vec<String>,
    tx: &mpsc::Sender<Chunk>,
) -> bool {
    let next = batch.successor();
    let submission = std::mem::replace(batch, next).finish();
    let chunk = Chunk {
        items: std::mem::take(items),
        submission,
        notes: std::mem::take(notes),
    };
    tx.blocking_send(chunk).is_ok()
}

/// Reads the input line by line, putting each job into the script calls of a batch (or
/// noting an invalid line), and hands over a batch when it is full or before a read that may
/// wait for more input; until the input ends or the receiver goes away. A line whose job
/// would be larger than the server takes is an invalid line, read past without being kept
/// whole.
fn read_items(
    input: Box<dyn Read + Send>,
    jsonl: bool,
    keep_cr: bool,
    due: Option<f64>,
    keys: &QueueKeys,
    mut limit: super::RecordLimit,
    tx: mpsc::Sender<Chunk>,
) -> anyhow::Result<()> {
    let mut reader = BufReader::with_capacity(1 << 20, input);
    let mut buf = Vec::with_capacity(256);
    let mut line = 0u64;
    let now = engine::now();
    let mut batch = Batch::new(keys, now);
    let mut items = Vec::new();
    let mut notes = Vec::new();
    loop {
        // A line of --lines keeps what a job's data may be, with its line end; a --jsonl
        // line twice what a record may be (its data may be escaped or in base64).
        let read = super::next_line_within(&mut reader, &mut buf, line, |wanted| {
            Ok(if jsonl {
                2 * limit.get(wanted / 2)?.bytes + 1
            } else {
                let data = wanted.saturating_sub(2) as usize;
                let record = crate::engine::job::record_len(UUID_LEN, Some(data)) as u64;
                limit.get(record)?.max_data(UUID_LEN) + 2
            })
        })?;
        notes.extend(limit.note.take());
        if read == super::LineRead::End {
            if !items.is_empty() {
                let submission = batch.finish();
                let _ = tx.blocking_send(Chunk {
                    items,
                    submission,
                    notes,
                });
            }
            return Ok(());
        }
        line += 1;
        if let super::LineRead::TooLong(len) = read {
            let what = format!("the line is {}", super::bytes_text(len));
            items.push(Item::Invalid {
                line,
                reason: super::too_large(&limit.accepted, &what),
            });
            if reader.buffer().is_empty() && !hand_over(&mut batch, &mut items, &mut notes, &tx) {
                return Ok(());
            }
            continue;
        }
        if buf.last() == Some(&b'\n') {
            buf.pop();
            // A line of a CRLF file ends in \r\n: the \r is no part of the job.
            if !keep_cr && !jsonl && buf.last() == Some(&b'\r') {
                buf.pop();
            }
        }
        // A job that would take the batch past a call's byte budget starts the next one: a
        // record larger than the budget goes alone.
        if !items.is_empty()
            && batch.bytes() + buf.len() > CALL_BYTES
            && !hand_over(&mut batch, &mut items, &mut notes, &tx)
        {
            return Ok(());
        }
        if jsonl {
            if !buf.iter().all(u8::is_ascii_whitespace) {
                let parsed = match parse_json_job(&buf, due) {
                    Ok(job) => {
                        let id_len = job.id.as_deref().map_or(UUID_LEN, str::len);
                        let len = job.data.as_deref().map(<[u8]>::len);
                        let record = crate::engine::job::record_len(id_len, len);
                        match limit.refuse(record)? {
                            None => Ok(job),
                            Some(why) => Err(why),
                        }
                    }
                    Err(why) => Err(why),
                };
                notes.extend(limit.note.take());
                items.push(match parsed {
                    Ok(job) => Item::Job {
                        line,
                        id: batch.add(job.as_new()).id,
                    },
                    Err(reason) => Item::Invalid { line, reason },
                });
            }
        } else {
            let record = crate::engine::job::record_len(UUID_LEN, Some(buf.len()));
            match limit.refuse(record)? {
                None => {
                    let job = NewJob {
                        id: None,
                        data: Some(&buf),
                        attempt: 0,
                        due,
                    };
                    items.push(Item::Job {
                        line,
                        id: batch.add(job).id,
                    });
                }
                Some(reason) => items.push(Item::Invalid { line, reason }),
            }
        }
        let full = batch.is_full() || batch.bytes() >= MAX_BATCH_BYTES;
        if (full || reader.buffer().is_empty())
            && !items.is_empty()
            && !hand_over(&mut batch, &mut items, &mut notes, &tx)
        {
            return Ok(());
        }
    }
}

/// One `--jsonl` line: `{"id"?, "data" | "data_b64", "at"?, "attempt"?}`. A `data` that is
/// not a string is stored as its JSON text. Other fields are ignored.
pub(super) fn parse_json_job(line: &[u8], default_due: Option<f64>) -> Result<JsonJob, String> {
    #[derive(serde::Deserialize)]
    struct Fields {
        id: Option<String>,
        data: Option<serde_json::Value>,
        data_b64: Option<String>,
        at: Option<serde_json::Value>,
        attempt: Option<i64>,
    }
    let value: serde_json::Value =
        serde_json::from_slice(line).map_err(|e| format!("invalid JSON: {e}"))?;
    if !value.is_object() {
        return Err(
            "a JSON job is an object {\"id\"?, \"data\" | \"data_b64\", \"at\"?, \"attempt\"?}"
                .into(),
        );
    }
    let j: Fields = serde_json::from_value(value).map_err(|e| format!("invalid JSON job: {e}"))?;
    let data = json_data(j.data, j.data_b64.as_deref())?
        .ok_or_else(|| "needs \"data\" or \"data_b64\"".to_string())?;
    let due = match j.at {
        None | Some(serde_json::Value::Null) => default_due,
        Some(serde_json::Value::Number(n)) => Some(
            n.as_f64()
                .ok_or_else(|| "\"at\" is out of range".to_string())
                .and_then(check_time)
                .map_err(|e| format!("\"at\": {e}"))?,
        ),
        Some(serde_json::Value::String(s)) => {
            Some(parse_time(&s).map_err(|e| format!("\"at\": {e}"))?)
        }
        Some(_) => return Err("\"at\" must be RFC 3339 text or unix seconds".into()),
    };
    if j.id.as_deref() == Some("") {
        return Err("\"id\" is empty".into());
    }
    if j.attempt.is_some_and(|a| a < 0) {
        return Err("\"attempt\" is negative: it counts failures so far, 0 or more".into());
    }
    Ok(JsonJob {
        id: j.id,
        data: Some(data),
        attempt: j.attempt.unwrap_or(0),
        due,
    })
}

/// The data of a JSON job line: `data` (text as it is, other JSON as its text, null as
/// nothing) or `data_b64`; None when the line gives neither.
pub(super) fn json_data(
    data: Option<serde_json::Value>,
    data_b64: Option<&str>,
) -> Result<Option<Vec<u8>>, String> {
    Ok(match (data, data_b64) {
        (Some(_), Some(_)) => return Err("give either \"data\" or \"data_b64\", not both".into()),
        (Some(serde_json::Value::String(s)), None) => Some(s.into_bytes()),
        (Some(serde_json::Value::Null), None) => Some(Vec::new()),
        (Some(other), None) => Some(other.to_string().into_bytes()),
        (None, Some(b64)) => Some(unb64("data_b64", b64)?),
        (None, None) => None,
    })
}

/// The bytes of a base64 `field` of a JSON line.
pub(super) fn unb64(field: &str, text: &str) -> Result<Vec<u8>, String> {
    base64::engine::general_purpose::STANDARD
        .decode(text.as_bytes())
        .map_err(|e| format!("\"{field}\" is not valid base64: {e}"))
}

/// A job of a `--jsonl` line.
#[derive(Debug)]
pub(super) struct JsonJob {
    pub(super) id: Option<String>,
    pub(super) data: Option<Vec<u8>>,
    pub(super) attempt: i64,
    pub(super) due: Option<f64>,
}

impl JsonJob {
    fn as_new(&self) -> NewJob<'_> {
        NewJob {
            id: self.id.as_deref(),
            data: self.data.as_deref(),
            attempt: self.attempt,
            due: self.due,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_jobs_parse_every_documented_form() {
        let j = parse_json_job(br#"{"id":"a","data":"hello","attempt":2}"#, None).unwrap();
        assert_eq!(
            (j.id.as_deref(), j.data.as_deref(), j.attempt),
            (Some("a"), Some(&b"hello"[..]), 2)
        );
        let j = parse_json_job(br#"{"data_b64":"AP8="}"#, None).unwrap();
        assert_eq!(j.data.as_deref(), Some(&[0u8, 255][..]));
        let j = parse_json_job(br#"{"data":{"to":"x"},"at":1700000000}"#, None).unwrap();
        assert_eq!(j.data.as_deref(), Some(&br#"{"to":"x"}"#[..]));
        assert_eq!(j.due, Some(1_700_000_000.0));
        let j = parse_json_job(br#"{"data":"x","at":"2023-11-14T22:13:20Z"}"#, Some(5.0)).unwrap();
        assert_eq!(j.due, Some(1_700_000_000.0));
        assert_eq!(
            parse_json_job(br#"{"data":"x"}"#, Some(5.0)).unwrap().due,
            Some(5.0)
        );
    }

    #[test]
    fn bad_json_jobs_say_what_is_wrong() {
        for (line, want) in [
            (&br#"{"id":"a"}"#[..], "needs"),
            (br#"{"data":"x","data_b64":"eA=="}"#, "either"),
            (br#"{"data_b64":"!!"}"#, "base64"),
            (br#"{"data":"x","at":"soon"}"#, "\"at\""),
            (br#"not json"#, "invalid JSON"),
            (br#"["x"]"#, "is an object"),
            (br#"{"id":"","data":"x"}"#, "empty"),
            (br#"{"data":"x","attempt":-1}"#, "negative"),
            (br#"{"data":"x","at":1e30}"#, "out of range"),
            (br#"{"data":"x","at":"1e30"}"#, "out of range"),
        ] {
            let err = parse_json_job(line, None).unwrap_err();
            assert!(err.contains(want), "{err}");
        }
    }
}
