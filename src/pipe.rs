//! `consume --pipe`: long-lived handlers fed over a pipe. Each of `--concurrency` copies of
//! CMD runs in its own process group and gets jobs as JSON lines on stdin
//! (`{"id","attempt","data"|"data_b64","queue"}`), answering one line per job on stdout
//! (`{"id","ok":true}` or `{"id","ok":false,"error":"...","retry_in":SECONDS}`). Up to its
//! depth of jobs may be outstanding per handler (`--pipe-depth`, or chosen as it goes: see
//! [`Tuner`]), and lines of at most [`CALL_BYTES`] together (one longer line alone), so big
//! jobs do not pile up in a handler's pipe; answers are matched by id. A handler that dies, answers garbage or an unknown id, or exceeds
//! `--timeout` on a job fails its outstanding jobs and is restarted with backoff; each
//! restart is reported as a warning. A job cancelled alone (`qctl cancel`) is answered as
//! cancelled at once and its handler told with `{"cancel":ID}`; a handler that does not answer
//! it within `--kill-after` is restarted, the other jobs it held going back unchanged.

use std::collections::{BTreeMap, HashMap};
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitStatus;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base64::Engine as _;
use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWriteExt, BufReader};
use tokio::process::Child;
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use crate::engine::consumer::{Event, Handler, JobInput, Outcome, RunFuture, RunLimit, RunReport};
use crate::engine::listing::CALL_BYTES;
use crate::handler::{handler_command, spawn_error, Group, LineSink, DRAIN_LIMIT, MAX_LINE};

/// The first wait before a handler is started again; it doubles with each failure in a row.
const RESTART_BASE: Duration = Duration::from_millis(100);
/// The longest wait before a handler is started again.
const RESTART_CAP: Duration = Duration::from_secs(10);
/// How much of a bad reply line the recorded reason quotes.
const QUOTE: usize = 200;
/// The most jobs the automatic depth gives one handler.
pub const AUTO_DEPTH_MAX: usize = 64;
/// An answer that took longer than this (or than half of `--timeout`) halves its handler's
/// automatic depth, and a job outstanding that long brings it to 1: a long job never has
/// others queued behind it in one handler while another could run them.
const SLOW_ANSWER: Duration = Duration::from_millis(100);
/// A handler that takes less than this per job may double its automatic depth.
const FAST_JOB: Duration = Duration::from_millis(5);

/// The command to keep running.
#[derive(Clone, Debug)]
pub struct PipeSpec {
    pub program: OsString,
    pub args: Vec<OsString>,
    /// The resolved CMD.
    pub path: PathBuf,
    /// How many copies run.
    pub handlers: usize,
    /// Jobs outstanding per handler: each one's share, fixed (`--pipe-depth`) or automatic.
    pub limit: Arc<RunLimit>,
    /// Per job, from when it was written to the handler.
    pub timeout: Option<Duration>,
    /// Grace between SIGTERM and SIGKILL; also how long a handler has to exit after EOF.
    pub kill_after: Duration,
}

/// One job waiting for, or written to, a handler.
struct Request {
    id: String,
    line: Vec<u8>,
    /// Set by whoever takes it: a handler, or `run` giving up on a cancelled job.
    taken: Arc<AtomicBool>,
    reply: oneshot::Sender<RunReport>,
}

/// The consumer's two tokens that every job carries (see `Handler::run`): kept once, as the
/// first job brings them, rather than with each job.
#[derive(Default)]
struct Tokens(std::sync::OnceLock<(CancellationToken, CancellationToken)>);

impl Tokens {
    /// Stops the handlers: shutdown past its grace, or a lost lease.
    fn cancel(&self) -> Option<&CancellationToken> {
        self.0.get().map(|(cancel, _)| cancel)
    }

    /// Cuts their SIGTERM grace short.
    fn kill_now(&self) -> Option<&CancellationToken> {
        self.0.get().map(|(_, kill_now)| kill_now)
    }
}

impl Request {
    fn take(&self) -> bool {
        !self.taken.swap(true, Ordering::AcqRel)
    }
}

/// The pipe handlers: a queue of jobs that `--concurrency` long-lived processes take from.
pub struct PipeHandler {
    spec: Arc<PipeSpec>,
    sink: LineSink,
    queue: mpsc::UnboundedSender<Request>,
    jobs: Arc<tokio::sync::Mutex<mpsc::UnboundedReceiver<Request>>>,
    tokens: Arc<Tokens>,
    closing: CancellationToken,
    workers: Mutex<Vec<tokio::task::JoinHandle<()>>>,
    cancels: Cancels,
}

/// The jobs cancelled alone (`qctl cancel`) while a handler holds them: their ids, and a
/// counter every worker watches, so the one holding a job hears of it at once.
#[derive(Clone)]
struct Cancels {
    ids: Arc<Mutex<std::collections::HashSet<String>>>,
    rung: Arc<tokio::sync::watch::Sender<u64>>,
}

impl Cancels {
    fn new() -> Cancels {
        Cancels {
            ids: Arc::default(),
            rung: Arc::new(tokio::sync::watch::channel(0).0),
        }
    }

    fn add(&self, id: &str) {
        self.ids
            .lock()
            .expect("cancels lock")
            .insert(id.to_string());
        self.rung.send_modify(|n| *n += 1);
    }

    /// Takes the ids of `pending` that were cancelled.
    fn take_of<V>(&self, pending: &HashMap<String, V>) -> Vec<String> {
        let mut ids = self.ids.lock().expect("cancels lock");
        let mine: Vec<String> = ids
            .iter()
            .filter(|id| pending.contains_key(*id))
            .cloned()
            .collect();
        for id in &mine {
            ids.remove(id);
        }
        mine
    }

    fn forget(&self, id: &str) {
        self.ids.lock().expect("cancels lock").remove(id);
    }
}

impl PipeHandler {
    pub fn new(spec: PipeSpec, sink: LineSink) -> PipeHandler {
        let (queue, jobs) = mpsc::unbounded_channel();
        PipeHandler {
            spec: Arc::new(spec),
            sink,
            queue,
            jobs: Arc::new(tokio::sync::Mutex::new(jobs)),
            tokens: Arc::default(),
            closing: CancellationToken::new(),
            workers: Mutex::new(Vec::new()),
            cancels: Cancels::new(),
        }
    }

    /// Starts the handlers; `QCTL_QUEUE` and `QCTL_CONSUMER_ID` are in their environment.
    /// Restarts are reported on `events` as warnings.
    /// With several queues `queue` is None: each job's line says its queue, and
    /// `QCTL_QUEUE` is not set.
    pub fn start(
        &self,
        queue: Option<&str>,
        consumer_id: &str,
        events: mpsc::UnboundedSender<Event>,
    ) {
        let mut workers = self.workers.lock().expect("workers lock");
        for number in 1..=self.spec.handlers {
            let worker = Worker {
                number,
                events: events.clone(),
                spec: self.spec.clone(),
                sink: self.sink.clone(),
                jobs: self.jobs.clone(),
                tokens: self.tokens.clone(),
                closing: self.closing.clone(),
                cancels: self.cancels.clone(),
                queue: queue.map(str::to_string),
                consumer_id: consumer_id.to_string(),
            };
            workers.push(tokio::spawn(worker.run()));
        }
    }

    /// Stops the handlers once no job is outstanding: EOF on their stdin, then SIGKILL to
    /// the group of any still running after `--kill-after`.
    pub async fn close(&self) {
        self.closing.cancel();
        let workers = std::mem::take(&mut *self.workers.lock().expect("workers lock"));
        for w in workers {
            let _ = w.await;
        }
    }
}

impl Handler for PipeHandler {
    fn run<'a>(
        &'a self,
        job: JobInput<'a>,
        cancel: &'a CancellationToken,
        kill_now: &'a CancellationToken,
    ) -> RunFuture<'a> {
        Box::pin(async move {
            let started = Instant::now();
            self.tokens
                .0
                .get_or_init(|| (cancel.clone(), kill_now.clone()));
            let (reply, mut answer) = oneshot::channel();
            let taken = Arc::new(AtomicBool::new(false));
            let line = if job.data.len() >= HEAVY_LINE {
                off_the_runtime(|| request_line(&job))
            } else {
                request_line(&job)
            };
            let request = Request {
                id: job.id.to_string(),
                line,
                taken: taken.clone(),
                reply,
            };
            if self.queue.send(request).is_err() {
                return failed(started, "the pipe handlers have stopped".into());
            }
            // The job's own token fires with the consumer's `cancel` too.
            tokio::select! {
                report = &mut answer => return report.unwrap_or_else(|_| gone(started)),
                _ = job.cancel.cancelled() => {}
            }
            // Cancelled before any handler took it: it never reached one.
            if !taken.swap(true, Ordering::AcqRel) {
                return RunReport::new(Outcome::Cancelled, started.elapsed());
            }
            if !cancel.is_cancelled() {
                // This job alone: the handler holding it is told, and it is answered at once.
                self.cancels.add(job.id);
            }
            let report = answer.await.unwrap_or_else(|_| gone(started));
            self.cancels.forget(job.id);
            report
        })
    }
}

/// Data from this size on is turned into its line off the runtime's workers.
const HEAVY_LINE: usize = 1 << 20;

/// Runs `f`, which takes a while (the line of a job of many megabytes takes tens of
/// milliseconds, more in a debug build), without holding up the consumer's other tasks (its
/// heartbeat): on a worker of a multi-threaded runtime, after handing that worker's other
/// tasks to another thread.
fn off_the_runtime<T>(f: impl FnOnce() -> T) -> T {
    match tokio::runtime::Handle::try_current().map(|h| h.runtime_flavor()) {
        Ok(tokio::runtime::RuntimeFlavor::MultiThread) => tokio::task::block_in_place(f),
        _ => f(),
    }
}

/// The line written to a handler for one job: its data is copied once, into the line.
fn request_line(job: &JobInput<'_>) -> Vec<u8> {
    #[derive(serde::Serialize)]
    struct Line<'a> {
        attempt: i64,
        #[serde(skip_serializing_if = "Option::is_none")]
        data: Option<&'a str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        data_b64: Option<String>,
        id: &'a str,
        queue: &'a str,
    }
    let text = std::str::from_utf8(job.data).ok();
    let line = Line {
        attempt: job.attempt,
        data: text,
        data_b64: match text {
            Some(_) => None,
            None => Some(base64::engine::general_purpose::STANDARD.encode(job.data)),
        },
        id: job.id,
        queue: job.queue,
    };
    let mut out = Vec::with_capacity(job.data.len() + job.data.len() / 3 + 128);
    serde_json::to_writer(&mut out, &line).expect("a job line serializes");
    out.push(b'\n');
    out
}

fn failed(started: Instant, reason: String) -> RunReport {
    RunReport {
        reason: Some(reason),
        ..RunReport::new(failure(None, None, false), started.elapsed())
    }
}

fn gone(started: Instant) -> RunReport {
    failed(started, "the pipe handler went away".into())
}

fn failure(exit_code: Option<i32>, signal: Option<i32>, timed_out: bool) -> Outcome {
    Outcome::Failed {
        exit_code,
        signal,
        timed_out,
    }
}

/// A handler's answer to one job.
#[derive(Debug, PartialEq)]
struct Reply {
    id: String,
    ok: bool,
    error: Option<String>,
    retry_in: Option<Duration>,
}

/// Reads one answer line; the error says what is wrong with it.
fn parse_reply(line: &[u8]) -> Result<Reply, String> {
    // The usual answer, read without building a JSON value; anything else is read again
    // below, for its error.
    #[derive(serde::Deserialize)]
    struct Usual<'a> {
        #[serde(borrow)]
        id: std::borrow::Cow<'a, str>,
        ok: bool,
        error: Option<String>,
        retry_in: Option<f64>,
    }
    if let Ok(usual) = serde_json::from_slice::<Usual>(line) {
        let retry_in = usual.retry_in.filter(|s| s.is_finite() && *s >= 0.0);
        if retry_in.is_some() == usual.retry_in.is_some() {
            return Ok(Reply {
                id: usual.id.into_owned(),
                ok: usual.ok,
                error: usual.error,
                retry_in: retry_in.map(|secs| Duration::from_secs_f64(secs.min(1e9))),
            });
        }
    }
    let value: serde_json::Value =
        serde_json::from_slice(line).map_err(|e| format!("not JSON ({e})"))?;
    let object = value.as_object().ok_or("not a JSON object")?;
    let id = object
        .get("id")
        .and_then(|v| v.as_str())
        .ok_or("no string \"id\"")?;
    let ok = object
        .get("ok")
        .and_then(|v| v.as_bool())
        .ok_or("no boolean \"ok\"")?;
    let error = match object.get("error") {
        None | Some(serde_json::Value::Null) => None,
        Some(serde_json::Value::String(s)) => Some(s.clone()),
        Some(other) => Some(other.to_string()),
    };
    let retry_in = match object.get("retry_in") {
        None | Some(serde_json::Value::Null) => None,
        Some(v) => {
            let secs = v
                .as_f64()
                .filter(|s| s.is_finite() && *s >= 0.0)
                .ok_or("\"retry_in\" is not a number of seconds >= 0")?;
            Some(Duration::from_secs_f64(secs.min(1e9)))
        }
    };
    Ok(Reply {
        id: id.to_string(),
        ok,
        error,
        retry_in,
    })
}

/// A bad line, quoted for the recorded reason.
fn quote(line: &[u8]) -> String {
    let text = String::from_utf8_lossy(line);
    let text = text.trim_end_matches(['\n', '\r']);
    match text.char_indices().nth(QUOTE) {
        Some((i, _)) => format!("{}...", &text[..i]),
        None => text.to_string(),
    }
}

/// A job written to a handler and not answered yet.
struct Pending {
    reply: oneshot::Sender<RunReport>,
    /// The length of its line.
    bytes: usize,
    /// Its place in the order the handler's jobs were written.
    seq: u64,
    written: Instant,
    deadline: Option<tokio::time::Instant>,
}

/// Why a handler's session ended.
enum End {
    /// It exited (or its stdout closed and it was waited for).
    Exited(Option<ExitStatus>),
    /// It answered something it should not have.
    Bad(String),
    TimedOut(String),
    Cancelled,
    /// It did not answer a cancelled job within `--kill-after` of being told.
    Unanswered(String),
    Closing,
}

impl End {
    /// How a handler's session ended, for the restart warning.
    fn describe(&self) -> String {
        match self {
            End::Exited(status) => exit_reason(
                status.and_then(|s| s.code()),
                status.and_then(|s| std::os::unix::process::ExitStatusExt::signal(&s)),
            ),
            End::Bad(why) => format!("stopped: {why}"),
            End::TimedOut(id) => format!("stopped: job {id} timed out"),
            End::Unanswered(id) => format!(
                "stopped: it did not answer cancelled job {id} within --kill-after of being told"
            ),
            End::Cancelled | End::Closing => "stopped".to_string(),
        }
    }
}

/// How a handler that ended by itself ended: `exited 3`, `killed by signal 9`.
fn exit_reason(exit_code: Option<i32>, signal: Option<i32>) -> String {
    match (exit_code, signal) {
        (Some(code), _) => format!("exited {code}"),
        (None, Some(sig)) => format!("killed by signal {sig}"),
        (None, None) => "closed its stdout".to_string(),
    }
}

/// A handler's automatic depth, chosen as its jobs are answered. It starts at 1 and doubles
/// (up to [`AUTO_DEPTH_MAX`]) after a depth's worth of answers in which the handler held all
/// it could take, more jobs waited for it, it took under [`FAST_JOB`] per job, and twice the
/// depth would still be answered within half the slow mark ([`SLOW_ANSWER`], or half of
/// `--timeout` when shorter). It halves on an answer slower than the slow mark and when its
/// handler is stopped (a timeout, a bad answer) or exits, and drops to 1 while a job has been
/// outstanding that long. A fixed depth never moves.
struct Tuner {
    limit: Arc<RunLimit>,
    /// The handler's share in `limit`.
    index: usize,
    slow: Duration,
    /// The window of answers since the depth last changed, or since the handler was idle.
    since: Instant,
    answers: usize,
    /// Whether the handler held as many jobs as its depth allows in the window.
    full: bool,
    /// `limit.held_back()` when the window began.
    held_back: u64,
}

impl Tuner {
    fn new(limit: Arc<RunLimit>, index: usize, timeout: Option<Duration>) -> Tuner {
        let slow = timeout.map_or(SLOW_ANSWER, |t| SLOW_ANSWER.min(t / 2));
        let held_back = limit.held_back();
        Tuner {
            limit,
            index,
            slow,
            since: Instant::now(),
            answers: 0,
            full: false,
            held_back,
        }
    }

    fn depth(&self) -> usize {
        self.limit.share(self.index)
    }

    /// Whether it may still drop: automatic, and above 1.
    fn may_drop(&self) -> bool {
        self.limit.automatic() && self.depth() > 1
    }

    /// A job was written; `pending` are now outstanding.
    fn written(&mut self, pending: usize) {
        if pending == 1 && self.answers == 0 {
            self.since = Instant::now();
        }
        if pending >= self.depth() {
            self.full = true;
        }
    }

    /// A job was answered `took` after it was written; the new depth if it changed.
    fn answered(&mut self, took: Duration) -> Option<usize> {
        if !self.limit.automatic() {
            return None;
        }
        let depth = self.depth();
        if took > self.slow {
            return self.set(depth / 2);
        }
        self.answers += 1;
        if self.answers < depth {
            return None;
        }
        let per_job = self.since.elapsed() / self.answers as u32;
        let waited = self.limit.held_back() > self.held_back;
        let room = per_job * (2 * depth) as u32 <= self.slow / 2;
        if self.full && waited && per_job < FAST_JOB && room {
            return self.set(depth * 2);
        }
        self.restart();
        None
    }

    /// Halves the depth (after a timeout, a bad answer, an exit); the new one if it changed.
    fn halve(&mut self) -> Option<usize> {
        match self.limit.automatic() {
            true => self.set(self.depth() / 2),
            false => None,
        }
    }

    /// Sets the depth and starts a new window; the new depth if it changed.
    fn set(&mut self, depth: usize) -> Option<usize> {
        self.restart();
        let depth = depth.clamp(1, self.limit.most());
        self.limit.set(self.index, depth).then_some(depth)
    }

    fn restart(&mut self) {
        self.since = Instant::now();
        self.answers = 0;
        self.full = false;
        self.held_back = self.limit.held_back();
    }
}

/// One slot: keeps one copy of the handler running.
struct Worker {
    /// Which of the `--concurrency` handlers this is, from 1.
    number: usize,
    events: mpsc::UnboundedSender<Event>,
    spec: Arc<PipeSpec>,
    sink: LineSink,
    jobs: Arc<tokio::sync::Mutex<mpsc::UnboundedReceiver<Request>>>,
    tokens: Arc<Tokens>,
    closing: CancellationToken,
    cancels: Cancels,
    queue: Option<String>,
    consumer_id: String,
}

impl Worker {
    async fn run(self) {
        let mut failures = 0u32;
        let limit = self.spec.limit.clone();
        let mut tuner = Tuner::new(limit, self.number - 1, self.spec.timeout);
        loop {
            if self.closing.is_cancelled() {
                return;
            }
            let (end, answered, how) = match self.spawn() {
                Ok(child) => {
                    let pid = child.id().map_or(String::new(), |p| format!(" (pid {p})"));
                    let (end, answered) = self.session(child, &mut tuner).await;
                    if matches!(end, End::Exited(_) | End::Bad(_) | End::TimedOut(_)) {
                        self.tuned(tuner.halve());
                    }
                    let how = format!("{pid} {}", end.describe());
                    (end, answered, how)
                }
                Err(e) => {
                    // Fail the next job with why, so the failure is recorded somewhere.
                    let why = format!("spawn: {}", spawn_error(&self.spec.path, &e));
                    let how = format!(" could not be started ({why})");
                    tokio::select! {
                        request = self.next() => if let Some(r) = request {
                            let _ = r.reply.send(failed(Instant::now(), why));
                        },
                        _ = self.closing.cancelled() => return,
                    }
                    (End::Exited(None), false, how)
                }
            };
            match end {
                End::Closing => return,
                End::Cancelled => failures = 0,
                // Said, and started again after the shortest wait.
                End::Unanswered(_) => failures = 1,
                _ if answered => failures = 1,
                _ => failures += 1,
            }
            if failures > 0 {
                let wait = RESTART_BASE
                    .saturating_mul(1 << (failures - 1).min(16))
                    .min(RESTART_CAP);
                let _ = self.events.send(Event::Warning {
                    message: format!(
                        "handler {}{how}; restarting in {}s",
                        self.number,
                        wait.as_secs_f64()
                    ),
                });
                tokio::select! {
                    _ = tokio::time::sleep(wait) => {}
                    _ = self.closing.cancelled() => return,
                }
            }
        }
    }

    /// Reports a new depth.
    fn tuned(&self, depth: Option<usize>) {
        if let Some(depth) = depth {
            let _ = self.events.send(Event::Depth {
                handler: self.number,
                depth,
            });
        }
    }

    /// The next job that is still wanted.
    async fn next(&self) -> Option<Request> {
        let mut jobs = self.jobs.lock().await;
        loop {
            let request = jobs.recv().await?;
            if request.take() {
                return Some(request);
            }
        }
    }

    /// The next job that is still wanted, if one waits now.
    fn try_next(&self) -> Option<Request> {
        let mut jobs = self.jobs.try_lock().ok()?;
        loop {
            let request = jobs.try_recv().ok()?;
            if request.take() {
                return Some(request);
            }
        }
    }

    fn spawn(&self) -> std::io::Result<Child> {
        let mut cmd = handler_command(&self.spec.path, &self.spec.program, &self.consumer_id);
        cmd.args(&self.spec.args);
        if let Some(queue) = &self.queue {
            cmd.env("QCTL_QUEUE", queue);
        }
        cmd.spawn()
    }

    /// Runs one copy of the handler until it ends; says how, and whether it answered any
    /// job well.
    async fn session(&self, mut child: Child, tuner: &mut Tuner) -> (End, bool) {
        let pgid = child.id().map(|id| Pid::from_raw(id as i32));
        let warning = pgid.and_then(|p| crate::reaper::watch(p.as_raw()));
        let group = pgid.map(Group);
        let tail = Arc::new(Mutex::new(Vec::new()));
        let err_task = child.stderr.take().map(|s| {
            let (sink, tail) = (self.sink.clone(), tail.clone());
            tokio::spawn(async move { sink.pump_stderr(s, tail).await })
        });
        let most = self.spec.limit.most();
        let (lines_tx, mut lines) = mpsc::channel(most.max(16));
        if let Some(out) = child.stdout.take() {
            tokio::spawn(read_lines(out, lines_tx));
        }
        let (writer, writes) = mpsc::channel::<Vec<u8>>(most);
        let write_task = child
            .stdin
            .take()
            .map(|s| tokio::spawn(write_lines(s, writes)));
        let mut halt: Option<CancellationToken> = None;

        let mut pending: HashMap<String, Pending> = HashMap::new();
        // The bytes of the lines of the pending jobs.
        let mut outstanding = 0usize;
        let mut line_no = 0u64;
        // When each outstanding job was written, in order, to find the oldest.
        let mut order: BTreeMap<u64, tokio::time::Instant> = BTreeMap::new();
        let mut seq = 0u64;
        let mut answered = false;
        let mut warning = warning;
        // Jobs cancelled alone, already answered to the consumer: the handler was told
        // (`{"cancel": ID}`) and has until then to answer them; its answers are passed over.
        let mut told: HashMap<String, tokio::time::Instant> = HashMap::new();
        let mut rung = self.cancels.rung.subscribe();
        let tail_now = || tail.lock().expect("tail lock").clone();

        let end = loop {
            // Every job gets the same timeout: the oldest outstanding is the first due.
            let deadline = self
                .spec
                .timeout
                .and_then(|t| order.first_key_value().map(|(_, at)| *at + t));
            // While its depth may drop, the oldest job still outstanding.
            let oldest = match tuner.may_drop() {
                true => order.first_key_value().map(|(_, at)| *at + tuner.slow),
                false => None,
            };
            let unanswered = told
                .iter()
                .min_by_key(|(_, at)| **at)
                .map(|(id, at)| (id.clone(), *at));
            tokio::select! {
                biased;
                _ = cancelled(&halt), if !pending.is_empty() => break End::Cancelled,
                status = child.wait() => break End::Exited(status.ok()),
                _ = rung.changed() => {
                    for id in self.cancels.take_of(&pending) {
                        let Some(p) = pending.remove(&id) else { continue };
                        outstanding -= p.bytes;
                        order.remove(&p.seq);
                        let _ = p.reply.send(RunReport::new(Outcome::Cancelled, p.written.elapsed()));
                        let line = serde_json::json!({ "cancel": id }).to_string() + "\n";
                        let _ = writer.try_send(line.into_bytes());
                        told.insert(id, tokio::time::Instant::now() + self.spec.kill_after);
                    }
                }
                _ = sleep_until(unanswered.as_ref().map(|(_, at)| *at)), if unanswered.is_some() => {
                    let (id, _) = unanswered.expect("checked in the guard");
                    break End::Unanswered(id);
                }
                line = lines.recv() => {
                    let Some(line) = line else {
                        // Its stdout closed: it is exiting, or will be made to.
                        let status = tokio::time::timeout(self.spec.kill_after, child.wait()).await;
                        break End::Exited(status.ok().and_then(Result::ok));
                    };
                    // Then every answer already read, in one go.
                    let mut next = Some(line);
                    let mut bad = None;
                    while let Some(line) = next.take() {
                        line_no += 1;
                        let reply = match parse_reply(&line) {
                            Ok(reply) => reply,
                            Err(e) => {
                                bad = Some(format!("invalid reply line {line_no}: {e}: {}", quote(&line)));
                                break;
                            }
                        };
                        if told.remove(&reply.id).is_some() {
                            // The answer to a job cancelled meanwhile: it was settled already.
                            next = lines.try_recv().ok();
                            continue;
                        }
                        let Some(p) = pending.remove(&reply.id) else {
                            bad = Some(format!("unknown id in reply line {line_no}: {}", quote(&line)));
                            break;
                        };
                        outstanding -= p.bytes;
                        order.remove(&p.seq);
                        answered |= reply.ok;
                        self.tuned(tuner.answered(p.written.elapsed()));
                        let report = answer(&p, reply, &tail_now, warning.take());
                        let _ = p.reply.send(report);
                        next = lines.try_recv().ok();
                    }
                    if let Some(why) = bad {
                        break End::Bad(why);
                    }
                }
                _ = sleep_until(oldest), if oldest.is_some() => {
                    // A job outstanding this long: nothing more goes to this handler meanwhile.
                    self.tuned(tuner.set(1));
                }
                _ = sleep_until(deadline), if deadline.is_some() => {
                    let now = tokio::time::Instant::now();
                    let id = pending
                        .iter()
                        .find(|(_, p)| p.deadline.is_some_and(|d| d <= now))
                        .map(|(id, _)| id.clone());
                    if let Some(id) = id {
                        break End::TimedOut(id);
                    }
                }
                request = self.next(), if pending.len() < tuner.depth()
                    && (pending.is_empty() || outstanding < CALL_BYTES) => {
                    let Some(request) = request else { break End::Closing };
                    // The slots whose jobs were just answered send their next jobs one by
                    // one: let them run first, so the jobs they send go in one write too.
                    tokio::task::yield_now().await;
                    // Then every job already waiting that the depth lets in, in one go.
                    let mut next = Some(request);
                    while let Some(request) = next.take() {
                        // Set before the first job was sent.
                        if halt.is_none() {
                            halt = self.tokens.cancel().cloned();
                        }
                        let bytes = request.line.len();
                        outstanding += bytes;
                        let _ = writer.try_send(request.line);
                        seq += 1;
                        let now = tokio::time::Instant::now();
                        order.insert(seq, now);
                        pending.insert(request.id, Pending {
                            reply: request.reply,
                            bytes,
                            seq,
                            written: Instant::now(),
                            deadline: self.spec.timeout.map(|t| now + t),
                        });
                        tuner.written(pending.len());
                        if pending.len() < tuner.depth() && outstanding < CALL_BYTES {
                            next = self.try_next();
                        }
                    }
                }
                _ = self.closing.cancelled(), if pending.is_empty() => break End::Closing,
            }
        };

        // Stop the handler in the way its end calls for.
        drop(writer);
        let status = match &end {
            End::Exited(status) => *status,
            End::Closing => {
                // EOF on stdin asks it to exit; it gets --kill-after to do so.
                tokio::time::timeout(self.spec.kill_after, child.wait())
                    .await
                    .ok()
                    .and_then(Result::ok)
            }
            _ => {
                // The jobs' own grace, while any is outstanding.
                let kill_now = match pending.is_empty() {
                    true => None,
                    false => self.tokens.kill_now().cloned(),
                };
                terminate(&mut child, pgid, self.spec.kill_after, kill_now).await
            }
        };
        if let Some(t) = write_task {
            t.abort();
        }
        // Answers written before it exited still count.
        if matches!(end, End::Exited(_)) {
            let drain = async {
                while let Some(line) = lines.recv().await {
                    let Ok(reply) = parse_reply(&line) else {
                        continue;
                    };
                    if let Some(p) = pending.remove(&reply.id) {
                        answered |= reply.ok;
                        let report = answer(&p, reply, &tail_now, None);
                        let _ = p.reply.send(report);
                    }
                }
            };
            let _ = tokio::time::timeout(DRAIN_LIMIT, drain).await;
        }
        drop(group);
        if let Some(t) = err_task {
            let _ = tokio::time::timeout(DRAIN_LIMIT, t).await;
        }
        let stderr_tail = tail_now();
        let (exit_code, signal) = match status {
            Some(s) => (s.code(), std::os::unix::process::ExitStatusExt::signal(&s)),
            None => (None, None),
        };
        // A handler stopped or gone while it had been told of a cancelled job: the others it
        // held go back unchanged (a cancel touches nothing else the consumer holds).
        let after_cancel = matches!(end, End::Unanswered(_)) || !told.is_empty();
        for (id, p) in pending.drain() {
            let (outcome, reason) = match &end {
                End::Cancelled | End::Closing => (Outcome::Cancelled, None),
                End::Unanswered(_) => (Outcome::Cancelled, None),
                _ if after_cancel => (Outcome::Cancelled, None),
                End::TimedOut(late) if *late == id => (failure(exit_code, signal, true), None),
                End::TimedOut(late) => (
                    failure(exit_code, signal, false),
                    Some(format!("handler stopped: job {late} on it timed out")),
                ),
                End::Bad(why) => (failure(exit_code, signal, false), Some(why.clone())),
                End::Exited(_) => (
                    failure(exit_code, signal, false),
                    Some(format!("handler {}", exit_reason(exit_code, signal))),
                ),
            };
            let _ = p.reply.send(RunReport {
                stderr_tail: stderr_tail.clone(),
                reason,
                warning: warning.take(),
                ..RunReport::new(outcome, p.written.elapsed())
            });
        }
        (end, answered)
    }
}

/// The report for a job the handler answered.
fn answer(
    p: &Pending,
    reply: Reply,
    tail: &dyn Fn() -> Vec<u8>,
    warning: Option<String>,
) -> RunReport {
    let duration = p.written.elapsed();
    if reply.ok {
        return RunReport {
            warning,
            ..RunReport::new(Outcome::Succeeded, duration)
        };
    }
    RunReport {
        stderr_tail: tail(),
        reason: Some(
            reply
                .error
                .filter(|e| !e.is_empty())
                .unwrap_or_else(|| "failed".to_string()),
        ),
        retry_in: reply.retry_in,
        warning,
        ..RunReport::new(failure(None, None, false), duration)
    }
}

async fn cancelled(token: &Option<CancellationToken>) {
    match token {
        Some(t) => t.cancelled().await,
        None => std::future::pending().await,
    }
}

async fn sleep_until(deadline: Option<tokio::time::Instant>) {
    match deadline {
        Some(d) => tokio::time::sleep_until(d).await,
        None => std::future::pending().await,
    }
}

/// SIGTERM to the group, SIGKILL after `grace` (or when `kill_now` fires).
async fn terminate(
    child: &mut Child,
    pgid: Option<Pid>,
    grace: Duration,
    kill_now: Option<CancellationToken>,
) -> Option<ExitStatus> {
    if let Some(pgid) = pgid {
        let _ = killpg(pgid, Signal::SIGTERM);
    }
    let kill_now = kill_now.unwrap_or_default();
    let exited = tokio::select! {
        s = tokio::time::timeout(grace, child.wait()) => s.ok().and_then(Result::ok),
        _ = kill_now.cancelled() => None,
    };
    if exited.is_some() {
        return exited;
    }
    if let Some(pgid) = pgid {
        let _ = killpg(pgid, Signal::SIGKILL);
    }
    child.wait().await.ok()
}

/// Reads the handler's answers, a line at a time; a line longer than `MAX_LINE` is passed
/// on cut (and then is not valid JSON).
async fn read_lines(stream: impl AsyncRead + Unpin, lines: mpsc::Sender<Vec<u8>>) {
    let mut reader = BufReader::new(stream);
    let mut line = Vec::new();
    loop {
        let buf = match reader.fill_buf().await {
            Ok(buf) if !buf.is_empty() => buf,
            _ => break,
        };
        let room = MAX_LINE - line.len();
        let (take, complete) = match buf.iter().take(room).position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None if buf.len() >= room => (room, true),
            None => (buf.len(), false),
        };
        line.extend_from_slice(&buf[..take]);
        reader.consume(take);
        if complete {
            let done = std::mem::take(&mut line);
            if done.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            if lines.send(done).await.is_err() {
                return;
            }
        }
    }
    if !line.is_empty() {
        let _ = lines.send(line).await;
    }
}

/// Writes jobs to the handler; short lines waiting together go in one write, a long one is
/// written from where it is, not copied.
async fn write_lines(stdin: tokio::process::ChildStdin, mut lines: mpsc::Receiver<Vec<u8>>) {
    let mut stdin = tokio::io::BufWriter::with_capacity(64 << 10, stdin);
    let mut waiting = Vec::new();
    while lines.recv_many(&mut waiting, 64).await > 0 {
        for line in waiting.drain(..) {
            if stdin.write_all(&line).await.is_err() {
                return;
            }
        }
        if stdin.flush().await.is_err() {
            return;
        }
    }
    let _ = stdin.shutdown().await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_are_read_strictly() {
        assert_eq!(
            parse_reply(br#"{"id":"a","ok":true}"#),
            Ok(Reply {
                id: "a".into(),
                ok: true,
                error: None,
                retry_in: None
            })
        );
        let r = parse_reply(br#"{"id":"b","ok":false,"error":"no","retry_in":2.5}"#).unwrap();
        assert_eq!(r.error.as_deref(), Some("no"));
        assert_eq!(r.retry_in, Some(Duration::from_millis(2500)));
        assert!(parse_reply(b"hello").unwrap_err().starts_with("not JSON"));
        assert_eq!(parse_reply(b"[1]").unwrap_err(), "not a JSON object");
        assert!(parse_reply(br#"{"id":1,"ok":true}"#).is_err());
        assert!(parse_reply(br#"{"id":"a","ok":"yes"}"#).is_err());
        assert!(parse_reply(br#"{"id":"a","ok":false,"retry_in":-1}"#).is_err());
        // What the quick reading does not take is read as before.
        let r = parse_reply(br#"{"id":"c\u00e9","ok":false,"error":{"code":3},"x":[1]}"#).unwrap();
        assert_eq!(r.id, "c\u{e9}");
        assert_eq!(r.error.as_deref(), Some(r#"{"code":3}"#));
        let r = parse_reply(br#"{"id":"d","ok":true,"retry_in":null,"error":null}"#).unwrap();
        assert_eq!((r.error, r.retry_in), (None, None));
    }

    #[test]
    fn data_goes_as_text_when_it_is_utf8_else_as_base64() {
        let never = CancellationToken::new();
        let job = |data: &'static [u8]| JobInput {
            queue: "q",
            id: "j",
            attempt: 2,
            consumer_id: "c",
            data,
            cancel: &never,
        };
        let text: serde_json::Value =
            serde_json::from_slice(&request_line(&job(b"h\xc3\xa9"))).unwrap();
        assert_eq!(
            text,
            serde_json::json!({"id": "j", "attempt": 2, "queue": "q", "data": "hé"})
        );
        let binary: serde_json::Value =
            serde_json::from_slice(&request_line(&job(b"\xff\x00"))).unwrap();
        assert_eq!(binary["data_b64"], "/wA=");
        assert!(binary.get("data").is_none());
    }
}
