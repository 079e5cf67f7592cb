//! `qctl import QUEUE`: jobs written by `qctl export` (or `enqueue --jsonl` lines) back into a
//! queue, each in the state it had. The input is read and checked on a thread of its own;
//! jobs are written in atomic chunks, in input order, until the input ends, a line cannot be
//! used (exit 6, naming it), or a stop request comes between two chunks.

use std::io::{BufReader, Read};
use std::time::Duration;

use serde_json::value::RawValue;
use serde_json::{json, Value};
use tokio::sync::mpsc;

use super::Context;
use crate::cli::ImportArgs;
use crate::engine::changes::Change;
use crate::engine::job::{encode_record, Job};
use crate::engine::listing::CALL_BYTES;
use crate::engine::transfer::{self, Import, State, Target, Written, IMPORT_CALL, VERSION};
use crate::engine::{Error, ExitCode};
use crate::output::{plural, printable, stopped_by, thousands};
use crate::signals;

use super::enqueue::{json_data, unb64};

/// What the reader hands over: jobs to write in one call, then maybe why it stopped.
#[derive(Default)]
struct Chunk {
    jobs: Vec<Import>,
    /// The state each job had, in the order of `jobs`.
    was: Vec<State>,
    /// The line of the first job.
    first: u64,
    /// Whether a job of it got a new id (its line gave none).
    new_ids: bool,
    /// Ids exported without a record: nothing to import.
    unrecorded: Vec<String>,
    /// The header's description of the export, when this chunk read one.
    header: Option<String>,
    /// The line that stopped the reading, and why.
    bad: Option<(u64, String)>,
    /// The last line read into this chunk.
    last: u64,
    /// Warnings of the reader to show (the server's limit could not be read).
    notes: Vec<String>,
}

#[derive(Default)]
struct Tally {
    ready: u64,
    scheduled: u64,
    dead: u64,
    /// Of those imported, the jobs that were in flight.
    in_flight: u64,
    skipped: u64,
    replaced: u64,
    not_replaced: Vec<String>,
    unrecorded: Vec<String>,
    last_line: u64,
    /// Whether a job written got a new id: running the import again would add it again.
    new_ids: bool,
}

impl Tally {
    fn imported(&self) -> u64 {
        self.ready + self.scheduled + self.dead
    }

    fn describe(&self, queue: &str) -> String {
        let mut parts = Vec::new();
        for (n, what) in [
            (self.ready, "ready"),
            (self.scheduled, "scheduled"),
            (self.dead, "dead"),
        ] {
            if n > 0 {
                parts.push(format!("{} {what}", thousands(n)));
            }
        }
        let mut text = format!("imported {} into {queue:?}", plural(self.imported(), "job"));
        if !parts.is_empty() {
            text.push_str(&format!(": {}", parts.join(", ")));
        }
        if self.in_flight > 0 {
            text.push_str(&format!(
                " ({} in flight where {} exported)",
                thousands(self.in_flight),
                if self.in_flight == 1 {
                    "it was"
                } else {
                    "they were"
                }
            ));
        }
        if self.replaced > 0 {
            text.push_str(&format!("; {} replaced", thousands(self.replaced)));
        }
        if self.skipped > 0 {
            text.push_str(&format!(
                "; {} already there, skipped",
                thousands(self.skipped)
            ));
        }
        text
    }
}

pub async fn run(mut ctx: Context, args: ImportArgs) -> anyhow::Result<ExitCode> {
    let keys = ctx.keys(&args.queue)?;
    let stop = signals::install()?;
    let input = super::input(args.file.as_deref())?;
    let server = ctx.server()?;
    let mut redis = tokio::select! {
        redis = server.connect() => redis?,
        _ = stop.requested.cancelled() => {
            let cause = stop.cause().unwrap_or(signals::Cause::Interrupt);
            return Ok(super::stopped_before_any_change(&mut ctx, cause));
        }
    };
    let now = redis.server_time().await?;
    super::may_record(&mut redis, &keys).await?;
    let delay = args.in_flight_delay;
    let (tx, mut rx) = mpsc::channel::<Chunk>(2);
    let limit = super::RecordLimit::new(&redis, &keys.data);
    let reader = std::thread::spawn(move || read(input, now, delay, limit, tx));

    let counter = ctx.out.counter("jobs imported");
    let mut tally = Tally::default();
    let mut bad: Option<(u64, String)> = None;
    let mut failure: Option<anyhow::Error> = None;
    let mut stopped = None;
    let mut change = Change::new("import");
    loop {
        let chunk = tokio::select! {
            biased;
            _ = stop.requested.cancelled() => {
                stopped = stop.cause();
                break;
            }
            chunk = rx.recv() => chunk,
        };
        let Some(chunk) = chunk else { break };
        if let Some(header) = &chunk.header {
            counter.suspend(|| ctx.out.note(header));
        }
        for note in &chunk.notes {
            counter.suspend(|| ctx.out.warn(note));
        }
        tally.unrecorded.extend(chunk.unrecorded);
        tally.new_ids |= chunk.new_ids;
        match transfer::write(&mut redis, &keys, &chunk.jobs, args.replace).await {
            Ok(written) => {
                for ((job, was), w) in chunk.jobs.iter().zip(&chunk.was).zip(written) {
                    match w {
                        Written::New | Written::Replaced => {
                            change.did(&job.id);
                            match job.target {
                                Target::Ready => tally.ready += 1,
                                Target::Scheduled(_) => tally.scheduled += 1,
                                Target::Dead(_) => tally.dead += 1,
                            }
                            if *was == State::InFlight {
                                tally.in_flight += 1;
                            }
                            if w == Written::Replaced {
                                tally.replaced += 1;
                            }
                        }
                        Written::Present => {
                            change.skip("its id is there already");
                            tally.skipped += 1
                        }
                        Written::InFlightThere => {
                            change.skip("in flight there, not replaced");
                            tally.not_replaced.push(job.id.clone())
                        }
                    }
                }
                tally.last_line = chunk.last;
            }
            Err(e) => {
                let first = if chunk.jobs.is_empty() {
                    chunk.last
                } else {
                    chunk.first
                };
                let what = match e.outcome_unknown() && !chunk.jobs.is_empty() {
                    true => format!(
                        "lines {first} to {} were sent and whether they were imported into queue {:?} is not known: the reply was lost",
                        chunk.last, keys.name
                    ),
                    false => format!(
                        "cannot import lines {first} to {} into queue {:?}",
                        chunk.last, keys.name
                    ),
                };
                failure = Some(anyhow::Error::from(e).context(what));
                break;
            }
        }
        counter.set_position(tally.imported());
        if chunk.bad.is_some() {
            bad = chunk.bad;
            break;
        }
    }
    counter.finish_and_clear();
    let input_done = rx.is_closed() || bad.is_some();
    drop(rx);
    // The reader may be waiting for input that is not coming: it is waited for only when
    // the input ended.
    let read_error = if stopped.is_none() && failure.is_none() && input_done {
        reader.join().expect("input reader thread panicked").err()
    } else {
        None
    };

    if change.done + change.skipped > 0 || failure.is_some() || stopped.is_some() {
        for _ in &tally.unrecorded {
            change.skip("exported without a record");
        }
        change.detail = format!(
            "{} ready, {} scheduled, {} dead ({} of them in flight before), {} replaced; lines 1 to {}",
            thousands(tally.ready),
            thousands(tally.scheduled),
            thousands(tally.dead),
            thousands(tally.in_flight),
            thousands(tally.replaced),
            thousands(tally.last_line)
        );
        change.interrupted = stopped.map(|cause| cause.name().to_string());
        change.error = failure.as_ref().map(|err| format!("{err:#}"));
        super::record(&ctx, &mut redis, &keys, &change, Some(&stop)).await;
    }
    let queue = keys.name.as_str();
    if ctx.out.json {
        let value = json!({
            "result": "summary",
            "queue": queue,
            "imported": tally.imported(),
            "ready": tally.ready,
            "scheduled": tally.scheduled,
            "dead": tally.dead,
            "in_flight": tally.in_flight,
            "skipped": tally.skipped,
            "replaced": tally.replaced,
            "not_replaced": tally.not_replaced.len(),
            "without_record": tally.unrecorded.len(),
            "lines": tally.last_line,
            "interrupted": stopped.map(signals::Cause::name),
            "bad_line": bad.as_ref().map(|(n, _)| n),
        });
        let _ = ctx.out.json_line(&value);
    }
    let _ = ctx.out.flush();
    let summary = tally.describe(queue);
    // Ids already there are skipped, so the same run goes on where this one stopped; jobs
    // whose lines gave no id would get new ones and be added twice.
    let go_on = if tally.new_ids {
        format!(
            "lines without an id got new ones, so go on with the lines after line {} (tail -n +{}), not the same command",
            thousands(tally.last_line),
            tally.last_line + 1
        )
    } else {
        "run the same command again to go on".to_string()
    };
    if let Some(cause) = stopped {
        ctx.out.last_word(&format!(
            "{}: {summary} (lines 1 to {}); {go_on}",
            stopped_by(cause),
            thousands(tally.last_line)
        ));
        return Ok(cause.exit_code());
    }
    if let Some(err) = failure {
        return Err(err.context(format!(
            "{summary} (lines 1 to {}) before the error; {go_on}",
            thousands(tally.last_line)
        )));
    }
    if let Some(err) = read_error {
        return Err(err.context(summary));
    }
    if let Some((line, why)) = bad {
        ctx.out.note(&summary);
        return Err(Error::BadInput(format!(
            "line {line}: {why}; the lines before it are imported, nothing after it"
        ))
        .into());
    }
    ctx.out.note(&summary);
    let mut code = ExitCode::Success;
    let left_out = [
        (
            &tally.not_replaced,
            "job",
            format!("in flight in {queue:?}, not replaced"),
        ),
        (
            &tally.unrecorded,
            "id",
            "exported without a record, not imported".to_string(),
        ),
    ];
    for (ids, noun, what) in left_out {
        if !ids.is_empty() {
            ctx.out.warn(format_args!(
                "{} {what} (e.g. {})",
                plural(ids.len() as u64, noun),
                ids.iter()
                    .take(3)
                    .map(|id| printable(id))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
            code = ExitCode::Partial;
        }
    }
    Ok(code)
}

/// Reads the input line by line into chunks of at most [`IMPORT_CALL`] jobs and
/// [`CALL_BYTES`] (a larger record alone), until it ends, a line cannot be used (a record
/// larger than the server takes among them, read past without being kept whole), or the
/// receiver goes away.
fn read(
    input: Box<dyn Read + Send>,
    now: f64,
    delay: Option<Duration>,
    mut limit: super::RecordLimit,
    tx: mpsc::Sender<Chunk>,
) -> anyhow::Result<()> {
    let mut reader = BufReader::with_capacity(1 << 20, input);
    let mut buf = Vec::with_capacity(256);
    let mut line = 0u64;
    let mut chunk = Chunk::default();
    let mut bytes = 0usize;
    loop {
        // A line keeps twice what a record may be: the record comes in base64 or escaped.
        let read = super::next_line_within(&mut reader, &mut buf, line, |wanted| {
            Ok(2 * limit.get(wanted / 2)?.bytes + 1)
        })?;
        chunk.notes.extend(limit.note.take());
        if read == super::LineRead::End {
            if chunk.last > 0 || !chunk.notes.is_empty() {
                let _ = tx.blocking_send(chunk);
            }
            return Ok(());
        }
        line += 1;
        if let super::LineRead::TooLong(len) = read {
            let what = format!("the line is {}", super::bytes_text(len));
            chunk.bad = Some((line, super::too_large(&limit.accepted, &what)));
            let _ = tx.blocking_send(chunk);
            return Ok(());
        }
        if buf.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let parsed = match parse(&buf, now, delay) {
            Ok(Line::Job { was, job, new_id }) => match limit.refuse(job.record.len())? {
                Some(why) => Err(why),
                None => Ok(Line::Job { was, job, new_id }),
            },
            parsed => parsed,
        };
        chunk.notes.extend(limit.note.take());
        let (was, job) = match parsed {
            Ok(Line::Header(text)) => {
                chunk.header = Some(text);
                chunk.last = line;
                continue;
            }
            Ok(Line::Unrecorded(id)) => {
                chunk.unrecorded.push(id);
                chunk.last = line;
                continue;
            }
            Ok(Line::Job { was, job, new_id }) => {
                chunk.new_ids |= new_id;
                (was, job)
            }
            Err(why) => {
                chunk.bad = Some((line, why));
                let _ = tx.blocking_send(chunk);
                return Ok(());
            }
        };
        let size = job.bytes();
        if !chunk.jobs.is_empty() && bytes + size > CALL_BYTES {
            if tx.blocking_send(std::mem::take(&mut chunk)).is_err() {
                return Ok(());
            }
            bytes = 0;
        }
        bytes += size;
        if chunk.jobs.is_empty() {
            chunk.first = line;
        }
        chunk.jobs.push(job);
        chunk.was.push(was);
        chunk.last = line;
        if chunk.jobs.len() >= IMPORT_CALL || bytes >= CALL_BYTES {
            if tx.blocking_send(std::mem::take(&mut chunk)).is_err() {
                return Ok(());
            }
            bytes = 0;
        }
    }
}

/// What one input line is.
enum Line {
    /// An export's header, described for the user.
    Header(String),
    /// A job, with the state it had; `new_id` when the line gave no id and it got a new one.
    Job {
        was: State,
        job: Import,
        new_id: bool,
    },
    /// An id exported without a record.
    Unrecorded(String),
}

/// The fields of a line that import reads; others are ignored.
#[derive(serde::Deserialize)]
struct Fields<'a> {
    qctl_export: Option<Value>,
    queue: Option<String>,
    source: Option<String>,
    time: Option<String>,
    counts: Option<transfer::Counts>,
    id: Option<String>,
    state: Option<String>,
    attempt: Option<i64>,
    data: Option<Value>,
    data_b64: Option<String>,
    #[serde(default, deserialize_with = "present")]
    record_b64: Option<Option<String>>,
    #[serde(borrow)]
    failure: Option<&'a RawValue>,
    failure_b64: Option<String>,
    due: Option<f64>,
    died: Option<f64>,
}

/// A field that may be present with null: Some(None).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Option<String>>, D::Error> {
    Ok(Some(serde::Deserialize::deserialize(d)?))
}

/// One line of the input: a header, an exported job, or an `enqueue --jsonl` job.
fn parse(line: &[u8], now: f64, delay: Option<Duration>) -> Result<Line, String> {
    let f: Fields = serde_json::from_slice(line).map_err(|e| format!("invalid JSON: {e}"))?;
    if let Some(version) = f.qctl_export {
        let version = version
            .as_u64()
            .ok_or("\"qctl_export\" is not a version number")?;
        if version > VERSION {
            return Err(format!(
                "an export in format {version}, written by a newer qctl (this one reads format {VERSION})"
            ));
        }
        let mut text = format!(
            "importing an export of queue {:?}",
            f.queue.as_deref().unwrap_or("?")
        );
        if let Some(source) = &f.source {
            text.push_str(&format!(" from {source}"));
        }
        if let Some(time) = &f.time {
            text.push_str(&format!(" taken at {time}"));
        }
        if let Some(c) = f.counts {
            text.push_str(&format!(
                " ({} ready, {} scheduled, {} dead, {} in flight then)",
                thousands(c.ready),
                thousands(c.scheduled),
                thousands(c.dead),
                thousands(c.in_flight)
            ));
        }
        return Ok(Line::Header(text));
    }
    if f.state.is_none() && f.record_b64.is_none() {
        return enqueued(line);
    }
    let name = f
        .state
        .as_deref()
        .ok_or("an exported job needs \"state\"")?;
    let was = State::parse(name).ok_or_else(|| {
        let names: Vec<&str> = State::ALL.iter().map(|s| s.name()).collect();
        format!("unknown state {name:?} (one of {})", names.join(", "))
    })?;
    let id = match f.id {
        Some(id) if !id.is_empty() => id,
        _ => return Err("an exported job needs a non-empty \"id\"".into()),
    };
    let data = json_data(f.data, f.data_b64.as_deref())?;
    // A record made from the line's fields counts failures from 0; one exported as it is
    // (a Go-written record may hold anything) goes byte for byte.
    let negative = || "\"attempt\" is negative: it counts failures so far, 0 or more".to_string();
    let record = match f.record_b64 {
        Some(None) => return Ok(Line::Unrecorded(id)),
        Some(Some(text)) => {
            let raw = unb64("record_b64", &text)?;
            match Job::decode(&raw) {
                Ok(job) if job.id != id => {
                    return Err(format!(
                        "the record's id is {:?}, not the line's {id:?}",
                        job.id
                    ))
                }
                Ok(job) => {
                    let attempt = f.attempt.unwrap_or(job.attempt);
                    let edited = data.as_deref().is_some_and(|d| d != job.data_bytes())
                        || attempt != job.attempt;
                    if edited {
                        if attempt < 0 && attempt != job.attempt {
                            return Err(negative());
                        }
                        record_of(&id, data.as_deref().or(job.data.as_deref()), attempt)
                    } else {
                        raw
                    }
                }
                // A damaged record goes as it is: a consumer buries it with its reason.
                Err(_) => raw,
            }
        }
        None => {
            let Some(d) = data.as_deref() else {
                return Err("needs \"record_b64\", \"data\" or \"data_b64\"".into());
            };
            if f.attempt.is_some_and(|a| a < 0) {
                return Err(negative());
            }
            record_of(&id, Some(d), f.attempt.unwrap_or(0))
        }
    };
    let score = |value: Option<f64>, field: &str| -> Result<f64, String> {
        value
            .filter(|v| v.is_finite())
            .ok_or_else(|| format!("a {name} job needs \"{field}\" (unix seconds)"))
    };
    let target = match was {
        State::Ready => Target::Ready,
        State::InFlight => match delay {
            Some(d) => Target::Scheduled(now + d.as_secs_f64()),
            None => Target::Ready,
        },
        State::Scheduled | State::Retrying => Target::Scheduled(score(f.due, "due")?),
        State::Dead => Target::Dead(score(f.died, "died")?),
    };
    let failure = match (f.failure, f.failure_b64) {
        (Some(_), Some(_)) => {
            return Err("give either \"failure\" or \"failure_b64\", not both".into())
        }
        (Some(raw), None) if raw.get() != "null" => Some(raw.get().as_bytes().to_vec()),
        (_, Some(b)) => Some(unb64("failure_b64", &b)?),
        _ => None,
    };
    Ok(Line::Job {
        was,
        job: Import {
            id,
            record,
            target,
            failure,
        },
        new_id: false,
    })
}

/// A CurlyQ record made from a line's fields.
fn record_of(id: &str, data: Option<&[u8]>, attempt: i64) -> Vec<u8> {
    let mut record = Vec::new();
    encode_record(&mut record, id, data, attempt);
    record
}

/// An `enqueue --jsonl` line: a ready job, or a scheduled one with `at`.
fn enqueued(line: &[u8]) -> Result<Line, String> {
    let j = super::enqueue::parse_json_job(line, None)?;
    let new_id = j.id.is_none();
    let id = j.id.unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
    let record = record_of(&id, j.data.as_deref(), j.attempt);
    let (was, target) = match j.due {
        Some(at) => (State::Scheduled, Target::Scheduled(at)),
        None => (State::Ready, Target::Ready),
    };
    Ok(Line::Job {
        was,
        job: Import {
            id,
            record,
            target,
            failure: None,
        },
        new_id,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::Engine as _;

    fn job(line: &str) -> (State, Import) {
        match parse(line.as_bytes(), 1000.0, None) {
            Ok(Line::Job { was, job, .. }) => (was, job),
            Ok(_) => panic!("not a job: {line}"),
            Err(e) => panic!("{line}: {e}"),
        }
    }

    #[test]
    fn an_exported_line_keeps_its_record_unless_it_was_edited() {
        let record = Job {
            attempt: 2,
            ..Job::new("r7", Some(b"hello".to_vec()))
        }
        .encode();
        let b64 = base64::engine::general_purpose::STANDARD.encode(&record);
        let line = format!(
            r#"{{"id":"r7","state":"retrying","due":1795560300.25,"attempt":2,"data":"hello","record_b64":"{b64}","failure":{{"reason":"exit 3", "attempt":1}}}}"#
        );
        let (was, j) = job(&line);
        assert_eq!(was, State::Retrying);
        assert_eq!(j.record, record);
        assert_eq!(j.target, Target::Scheduled(1795560300.25));
        assert_eq!(
            j.failure.as_deref(),
            Some(&br#"{"reason":"exit 3", "attempt":1}"#[..]),
            "the failure goes byte for byte"
        );
        let edited = line.replace(r#""data":"hello""#, r#""data":"hullo""#);
        let (_, j) = job(&edited);
        let decoded = Job::decode(&j.record).unwrap();
        assert_eq!((decoded.data_bytes(), decoded.attempt), (&b"hullo"[..], 2));
    }

    #[test]
    fn a_line_that_cannot_be_used_says_why() {
        let bad = |line: &str| match parse(line.as_bytes(), 0.0, None) {
            Err(e) => e,
            Ok(_) => panic!("accepted: {line}"),
        };
        assert!(bad("{").contains("invalid JSON"));
        assert!(bad(r#"{"id":"a","state":"gone","data":"x"}"#).contains("unknown state"));
        assert!(bad(r#"{"id":"a","state":"ready","record_b64":"***"}"#).contains("base64"));
        assert!(bad(r#"{"id":"a","state":"dead","data":"x"}"#).contains("\"died\""));
        assert!(bad(r#"{"qctl_export":2}"#).contains("newer qctl"));
        let other = base64::engine::general_purpose::STANDARD
            .encode(Job::new("b", Some(b"x".to_vec())).encode());
        assert!(bad(&format!(
            r#"{{"id":"a","state":"ready","record_b64":"{other}"}}"#
        ))
        .contains("not the line's"));
    }

    #[test]
    fn in_flight_jobs_become_ready_or_scheduled_after_the_delay() {
        let line = r#"{"id":"f","state":"in_flight","data":"x"}"#;
        assert_eq!(job(line).1.target, Target::Ready);
        match parse(line.as_bytes(), 1000.0, Some(Duration::from_secs(600))) {
            Ok(Line::Job {
                was: State::InFlight,
                job: j,
                ..
            }) => assert_eq!(j.target, Target::Scheduled(1600.0)),
            _ => panic!("not scheduled"),
        }
    }

    #[test]
    fn scores_come_back_exactly_as_exported() {
        let mut rng = fastrand::Rng::with_seed(7);
        let mut scores = vec![1.7955615655573843e9, 1e9 + 1.0 / 3.0, 0.1, 5e-324];
        scores.extend((0..20_000).map(|_| 1.7e9 + rng.f64() * 1e8));
        for at in scores {
            let line = format!(
                r#"{{"id":"d","state":"dead","died":{},"data":"x"}}"#,
                serde_json::to_string(&at).unwrap()
            );
            assert_eq!(job(&line).1.target, Target::Dead(at), "{line}");
        }
    }

    #[test]
    fn enqueue_lines_are_jobs_too() {
        let (was, j) = job(r#"{"id":"x","data":"hello"}"#);
        assert_eq!((was, j.target), (State::Ready, Target::Ready));
        let (was, j) = job(r#"{"data":"x","at":1700000000}"#);
        assert_eq!(
            (was, j.target),
            (State::Scheduled, Target::Scheduled(1.7e9))
        );
        assert_eq!(j.id.len(), 36, "a new UUID");
    }
}
