//! Running one command for one job: spawn it directly (no shell) in its own process group,
//! feed the job data to its stdin, pass its output on in whole lines, enforce the timeout,
//! and make sure nothing it started outlives it, nor the consumer (see `crate::reaper`).

use std::ffi::{OsStr, OsString};
use std::future::Future;
use std::io::Write;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use nix::fcntl::{fcntl, FcntlArg, OFlag};
use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWriteExt, BufReader};
use tokio::process::Command;
use tokio_util::sync::CancellationToken;

use crate::engine::consumer::{Handler, RunFuture};
pub use crate::engine::consumer::{JobInput, Outcome, RunReport};
use crate::engine::text::printable;

pub use crate::engine::failure::STDERR_TAIL;
/// What a pipe always takes in one write (POSIX's PIPE_BUF on Linux; a pipe holds at least
/// a page).
const PIPE_BUF: usize = 4096;
/// How long output is still read after the process group was killed.
pub(crate) const DRAIN_LIMIT: Duration = Duration::from_secs(1);
/// The longest piece of output passed on at once: a longer line, or output without any
/// newline, is split so that a handler cannot make qctl hold it all in memory.
pub const MAX_LINE: usize = 64 * 1024;
/// Variables of the consumer's environment that a handler does not get: they may carry the
/// Redis password.
pub(crate) const WITHHELD_ENV: [&str; 4] = [
    "QCTL_REDIS_URL",
    "REDIS_URL",
    "QCTL_REDIS_PASSWORD",
    "QCTL_REDIS_PASSWORD_FILE",
];

/// The command to run per job.
#[derive(Clone, Debug)]
pub struct HandlerSpec {
    pub program: OsString,
    pub args: Vec<OsString>,
    /// Every occurrence in ARGS is replaced by the job data.
    pub replace: Option<String>,
    pub timeout: Option<Duration>,
    /// Grace between SIGTERM and SIGKILL.
    pub kill_after: Duration,
    /// Put "[<job id>] " before every output line.
    pub prefix: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum HandlerError {
    #[error("command not found in PATH: {0}")]
    NotFound(String),
    #[error("no such file: {0}")]
    NoSuchFile(String),
    #[error("not an executable file: {0}")]
    NotExecutable(String),
    #[error("{0}: its interpreter {1} (from its #! line) does not exist")]
    NoInterpreter(String, String),
    #[error("{0}: its interpreter {1} (from its #! line) is not an executable file")]
    InterpreterNotExecutable(String, String),
    #[error("{0}: its #! line runs {1} through env, and {1} is not found in PATH")]
    EnvCommandNotFound(String, String),
    #[error("{0}: not an executable the system can run: its #! line names no interpreter")]
    EmptyShebang(String),
    #[error("{0}: not an executable the system can run: a script needs a #! line")]
    NoShebang(String),
}

/// How many bytes of a file the kernel reads to tell how to run it (Linux's
/// BINPRM_BUF_SIZE): a `#!` line is read from these.
const HEAD: usize = 256;

/// Whether `p` is a file with an execute bit.
fn executable(p: &Path) -> bool {
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Checks that the kernel can run the executable file `path` (`shown` names it): a script's
/// `#!` interpreter exists and is executable (and, for `#!/usr/bin/env NAME`, NAME is in
/// PATH); a file without `#!` is a binary (ELF), not text. A file that cannot be read is
/// left to the kernel.
pub fn check_runnable(path: &Path, shown: &str) -> Result<(), HandlerError> {
    use std::io::Read;
    let mut head = Vec::with_capacity(HEAD);
    let Ok(file) = std::fs::File::open(path) else {
        return Ok(());
    };
    if file.take(HEAD as u64).read_to_end(&mut head).is_err() {
        return Ok(());
    }
    let Some(line) = head.strip_prefix(b"#!") else {
        let text = !head.starts_with(b"\x7fELF") && !head.contains(&0);
        return if text {
            Err(HandlerError::NoShebang(shown.to_string()))
        } else {
            Ok(())
        };
    };
    // As the kernel reads it: the interpreter up to a blank, then one optional argument.
    let line = line.split(|&b| b == b'\n').next().unwrap_or_default();
    let line = line.trim_ascii();
    let end = line
        .iter()
        .position(|&b| b == b' ' || b == b'\t')
        .unwrap_or(line.len());
    let (interpreter, argument) = (&line[..end], line[end..].trim_ascii());
    if interpreter.is_empty() {
        return Err(HandlerError::EmptyShebang(shown.to_string()));
    }
    let interpreter = Path::new(OsStr::from_bytes(interpreter));
    let named = interpreter.display().to_string();
    if !interpreter.exists() {
        return Err(HandlerError::NoInterpreter(shown.to_string(), named));
    }
    if !executable(interpreter) {
        return Err(HandlerError::InterpreterNotExecutable(
            shown.to_string(),
            named,
        ));
    }
    // `#!/usr/bin/env NAME` runs NAME from PATH; with options (`-S`) or more words, env
    // reads them its own way.
    let plain_name = !argument.is_empty()
        && !argument.starts_with(b"-")
        && !argument.iter().any(u8::is_ascii_whitespace);
    if interpreter.file_name() == Some(OsStr::new("env")) && plain_name {
        let name = OsStr::from_bytes(argument);
        if let Err(HandlerError::NotFound(_) | HandlerError::NoSuchFile(_)) = resolve_program(name)
        {
            return Err(HandlerError::EnvCommandNotFound(
                shown.to_string(),
                name.to_string_lossy().into_owned(),
            ));
        }
    }
    Ok(())
}

/// Why `program` could not be started, in words: a missing interpreter or a script without
/// a `#!` line named as such (the system says "No such file or directory" of a file that
/// exists, and "Exec format error"), else the system's error.
pub(crate) fn spawn_error(program: &Path, e: &std::io::Error) -> String {
    let shown = program.display().to_string();
    match check_runnable(program, &shown) {
        Err(why) => why.to_string(),
        Ok(()) if e.raw_os_error() == Some(nix::errno::Errno::ENOEXEC as i32) => {
            format!("{shown}: not an executable the system can run ({e})")
        }
        Ok(()) if e.raw_os_error() == Some(nix::errno::Errno::E2BIG as i32) => format!(
            "{shown}: the job's data is too long for a command-line argument (--replace puts \
             the data in one; Linux takes 128 KiB an argument); it reaches a handler whole on stdin"
        ),
        Ok(()) => format!("{shown}: {e}"),
    }
}

/// Finds CMD as the shell would (a name with a '/' is a path, else PATH is searched) and
/// checks that it is an executable file (see [`check_runnable`] for whether it runs).
pub fn resolve_program(program: &OsStr) -> Result<PathBuf, HandlerError> {
    let shown = program.to_string_lossy().into_owned();
    if program.as_bytes().contains(&b'/') {
        let path = PathBuf::from(program);
        if !path.exists() {
            return Err(HandlerError::NoSuchFile(shown));
        }
        return if executable(&path) {
            Ok(path)
        } else {
            Err(HandlerError::NotExecutable(shown))
        };
    }
    if program.is_empty() {
        return Err(HandlerError::NotFound(shown));
    }
    let mut found_non_exec = None;
    for dir in std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()) {
        let candidate = dir.join(program);
        if executable(&candidate) {
            return Ok(candidate);
        }
        if candidate.exists() {
            found_non_exec.get_or_insert(candidate);
        }
    }
    match found_non_exec {
        Some(p) => Err(HandlerError::NotExecutable(p.display().to_string())),
        None => Err(HandlerError::NotFound(shown)),
    }
}

/// One of qctl's own output streams, where a handler's output lines go.
#[derive(Clone, Copy, Debug)]
pub enum Stream {
    Stdout,
    Stderr,
}

/// Writes one whole line of a handler's output to one of qctl's streams. The caller gives
/// it (`output::handler_line`): the streams are the terminal's, and a closed one must not
/// fail the job.
pub type WriteLine = fn(Stream, &[u8]);

/// What the output thread is asked to do.
enum Message {
    Line(Stream, Vec<u8>),
    /// Answered once every line sent before it has been written.
    Flush(tokio::sync::oneshot::Sender<()>),
}

#[derive(Clone)]
enum Target {
    /// Written by the output thread, so that a reader who stops reading qctl's output
    /// holds up only the handlers that write (through the bounded queue and their pipes),
    /// never the consumer's heartbeats.
    Terminal {
        queue: tokio::sync::mpsc::Sender<Message>,
        stream: Stream,
    },
    Memory(Arc<Mutex<Vec<u8>>>),
}

impl Target {
    async fn write_line(&self, line: Vec<u8>) {
        match self {
            Target::Terminal { queue, stream } => {
                let _ = queue.send(Message::Line(*stream, line)).await;
            }
            Target::Memory(buf) => buf.lock().expect("sink lock").extend_from_slice(&line),
        }
    }
}

/// Lines waiting for the output thread; a full queue makes handlers wait.
const OUTPUT_QUEUE: usize = 256;

/// Starts the thread that writes handler output lines, each whole, through `write`.
fn output_thread(write: WriteLine) -> tokio::sync::mpsc::Sender<Message> {
    let (tx, mut rx) = tokio::sync::mpsc::channel::<Message>(OUTPUT_QUEUE);
    std::thread::spawn(move || {
        while let Some(message) = rx.blocking_recv() {
            match message {
                Message::Line(stream, line) => write(stream, &line),
                Message::Flush(done) => {
                    let _ = done.send(());
                }
            }
        }
    });
    tx
}

/// Where handler output lines go; every line is written whole.
#[derive(Clone)]
pub struct LineSink {
    out: Target,
    err: Target,
}

impl LineSink {
    /// Handler stdout to our stdout (or to our stderr when `stdout_to_stderr`, for --json),
    /// handler stderr to our stderr, each line written by `write`.
    pub fn new(stdout_to_stderr: bool, write: WriteLine) -> Self {
        let queue = output_thread(write);
        LineSink {
            out: Target::Terminal {
                queue: queue.clone(),
                stream: if stdout_to_stderr {
                    Stream::Stderr
                } else {
                    Stream::Stdout
                },
            },
            err: Target::Terminal {
                queue,
                stream: Stream::Stderr,
            },
        }
    }

    /// Both streams into one buffer (for tests).
    pub fn memory() -> (Self, Arc<Mutex<Vec<u8>>>) {
        let buf = Arc::new(Mutex::new(Vec::new()));
        let t = Target::Memory(buf.clone());
        (
            LineSink {
                out: t.clone(),
                err: t,
            },
            buf,
        )
    }

    /// Passes a handler's stderr on, keeping its last 4 KiB in `tail` as it comes.
    pub(crate) async fn pump_stderr(
        &self,
        stream: impl AsyncRead + Unpin,
        tail: Arc<Mutex<Vec<u8>>>,
    ) {
        pump(stream, self.err.clone(), None, false, Some(tail)).await;
    }

    /// Waits until every line passed on so far has been written.
    pub async fn flush(&self) {
        if let Target::Terminal { queue, .. } = &self.out {
            let (done, written) = tokio::sync::oneshot::channel();
            if queue.send(Message::Flush(done)).await.is_ok() {
                let _ = written.await;
            }
        }
    }
}

/// The arguments with every occurrence of `replace` substituted by the job data.
fn build_args(spec: &HandlerSpec, data: &[u8]) -> Vec<OsString> {
    let Some(pattern) = spec.replace.as_deref().filter(|p| !p.is_empty()) else {
        return spec.args.clone();
    };
    let pattern = pattern.as_bytes();
    spec.args
        .iter()
        .map(|arg| {
            let bytes = arg.as_bytes();
            let mut out = Vec::with_capacity(bytes.len());
            let mut i = 0;
            while i < bytes.len() {
                if bytes[i..].starts_with(pattern) {
                    out.extend_from_slice(data);
                    i += pattern.len();
                } else {
                    out.push(bytes[i]);
                    i += 1;
                }
            }
            OsString::from_vec(out)
        })
        .collect()
}

/// A handler process of `program` (shown as `arg0`) for consumer `consumer_id`, as every mode
/// starts one: without the variables that may carry the Redis password, with
/// `QCTL_CONSUMER_ID` (by which the reaper finds it and all it starts), stdin, stdout and
/// stderr piped, in a process group of its own, killed when dropped, and dying with qctl when
/// no reaper runs.
pub(crate) fn handler_command(program: &Path, arg0: &OsStr, consumer_id: &str) -> Command {
    let mut cmd = Command::new(program);
    for name in WITHHELD_ENV {
        cmd.env_remove(name);
    }
    cmd.arg0(arg0)
        .env(crate::reaper::CONSUMER_ID_VAR, consumer_id)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    // The reaper learns the id before the handler exists. Without a reaper, the kernel's
    // parent-death signal is the only defence left. With one it is not set: a pre_exec hook
    // makes every spawn a full fork, which costs per-job mode about 30% of its rate.
    if !crate::reaper::ready(consumer_id) {
        die_with_parent(&mut cmd);
    }
    cmd
}

/// Runs the handler for one job and reports how it ended. Always returns within the
/// timeout (or cancellation) plus `kill_after` plus about a second. `cancel` stops it with
/// SIGTERM; `kill_now` cuts the grace before SIGKILL short.
pub async fn run(
    spec: &HandlerSpec,
    program: &Path,
    job: &JobInput<'_>,
    sink: &LineSink,
    cancel: &CancellationToken,
    kill_now: &CancellationToken,
) -> RunReport {
    let started = Instant::now();
    let mut cmd = handler_command(program, &spec.program, job.consumer_id);
    let args = build_args(spec, job.data);
    if args.iter().any(|a| a.as_bytes().contains(&0)) {
        return RunReport {
            reason: Some(
                "spawn: the job's data holds a NUL byte, which no command-line argument can \
                 carry (--replace puts the data in one); it reaches a handler whole on stdin"
                    .to_string(),
            ),
            ..RunReport::new(spawn_failure(), started.elapsed())
        };
    }
    cmd.args(args)
        .env("QCTL_QUEUE", job.queue)
        .env("QCTL_JOB_ID", job_id_var(job.id))
        .env("QCTL_JOB_ATTEMPT", job.attempt.to_string());
    // The job data goes into the pipe before the handler starts: data that fits in the
    // pipe's buffer (64 KiB on Linux), as most does, costs no task and no wake-up. Only
    // the rest is written as the handler reads.
    let (rest, stdin) = match feed_stdin(job.data) {
        Ok(fed) => fed,
        Err(e) => return spawn_failed(started, program, e),
    };
    cmd.stdin(stdin);
    let mut child = match cmd.spawn() {
        Ok(child) => child,
        Err(e) => return spawn_failed(started, program, e),
    };
    let pgid = child.id().map(|id| Pid::from_raw(id as i32));
    let warning = pgid.and_then(|p| crate::reaper::watch(p.as_raw()));
    let group = pgid.map(Group);

    // Input and output are driven in this task, beside the wait for the handler, not in
    // tasks of their own: a job costs fewer wake-ups that way.
    let feed = async {
        if let Some((writer, data, written)) = rest {
            if let Ok(mut writer) = tokio::net::unix::pipe::Sender::from_owned_fd(writer) {
                let _ = writer.write_all(&data[written..]).await;
            }
        }
        std::future::pending::<()>().await
    };
    // The id is the job's: shown escaped, as every id qctl prints.
    let prefix = spec
        .prefix
        .then(|| format!("[{}] ", printable(job.id)).into_bytes());
    let (stdout, stderr) = (child.stdout.take(), child.stderr.take());
    let output = async {
        let out = async {
            if let Some(s) = stdout {
                pump(s, sink.out.clone(), prefix.clone(), false, None).await;
            }
        };
        let err = async {
            match stderr {
                Some(s) => pump(s, sink.err.clone(), prefix.clone(), true, None).await,
                None => Vec::new(),
            }
        };
        tokio::join!(out, err).1
    };
    let mut io = Io {
        feed: Box::pin(feed),
        output: Box::pin(output),
        tail: None,
    };

    let deadline = async {
        match spec.timeout {
            Some(t) => tokio::time::sleep(t).await,
            None => std::future::pending().await,
        }
    };
    let mut timed_out = false;
    let mut cancelled = false;
    let status = io
        .beside(async {
            tokio::select! {
                s = child.wait() => s.ok(),
                _ = deadline => { timed_out = true; None }
                _ = cancel.cancelled() => { cancelled = true; None }
            }
        })
        .await;
    let status = match status {
        Some(s) => Some(s),
        None => {
            // SIGTERM the group, then SIGKILL it if the child has not exited in time.
            if let Some(pgid) = pgid {
                let _ = killpg(pgid, Signal::SIGTERM);
            }
            let exited = io
                .beside(async {
                    tokio::select! {
                        s = tokio::time::timeout(spec.kill_after, child.wait()) => s.ok(),
                        _ = kill_now.cancelled() => None,
                    }
                })
                .await;
            match exited {
                Some(s) => s.ok(),
                None => {
                    if let Some(pgid) = pgid {
                        let _ = killpg(pgid, Signal::SIGKILL);
                    }
                    io.beside(child.wait()).await.ok()
                }
            }
        }
    };
    // Nothing the handler started outlives the job.
    drop(group);
    let stderr_tail = match io.tail.take() {
        Some(tail) => tail,
        None => tokio::time::timeout(DRAIN_LIMIT, io.output)
            .await
            .unwrap_or_default(),
    };

    let outcome = if cancelled {
        Outcome::Cancelled
    } else if timed_out {
        Outcome::Failed {
            exit_code: status.and_then(|s| s.code()),
            signal: status.and_then(|s| std::os::unix::process::ExitStatusExt::signal(&s)),
            timed_out: true,
        }
    } else {
        match status {
            Some(s) if s.success() => Outcome::Succeeded,
            Some(s) => Outcome::Failed {
                exit_code: s.code(),
                signal: std::os::unix::process::ExitStatusExt::signal(&s),
                timed_out: false,
            },
            None => Outcome::Failed {
                exit_code: None,
                signal: None,
                timed_out: false,
            },
        }
    };
    RunReport {
        stderr_tail,
        warning,
        ..RunReport::new(outcome, started.elapsed())
    }
}

fn spawn_failed(started: Instant, program: &Path, e: std::io::Error) -> RunReport {
    RunReport {
        reason: Some(format!("spawn: {}", spawn_error(program, &e))),
        ..RunReport::new(spawn_failure(), started.elapsed())
    }
}

/// The outcome of a handler that could not be started: a failure with no exit code.
fn spawn_failure() -> Outcome {
    Outcome::Failed {
        exit_code: None,
        signal: None,
        timed_out: false,
    }
}

/// `QCTL_JOB_ID` for a job: its id, or, for an id with a NUL byte (which no environment
/// variable can hold), the id as qctl prints it, with the NUL written `\u{0}`.
fn job_id_var(id: &str) -> String {
    if id.contains('\0') {
        printable(id)
    } else {
        id.to_string()
    }
}

/// What is left to write after [`feed_stdin`]: the pipe's write end, the data, and how much
/// of it was written.
type Rest<'a> = (std::os::fd::OwnedFd, &'a [u8], usize);

/// A pipe for a handler's stdin with as much of `data` in it as its buffer takes; the
/// write end is closed (EOF for the reader) when all of it went in, else returned with
/// what is left.
fn feed_stdin(data: &[u8]) -> std::io::Result<(Option<Rest<'_>>, Stdio)> {
    use std::io::ErrorKind;
    let (reader, writer) = nix::unistd::pipe2(OFlag::O_CLOEXEC)?;
    let mut writer = std::fs::File::from(writer);
    let mut written = 0;
    if data.len() <= PIPE_BUF {
        // An empty pipe takes this much at once, whatever its size: no need to ask the
        // kernel for a write that cannot block.
        writer.write_all(data)?;
        written = data.len();
    } else {
        let flags = fcntl(&writer, FcntlArg::F_GETFL)?;
        let flags = OFlag::from_bits_retain(flags) | OFlag::O_NONBLOCK;
        fcntl(&writer, FcntlArg::F_SETFL(flags))?;
        while written < data.len() {
            match writer.write(&data[written..]) {
                Ok(n) => written += n,
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                Err(e) => return Err(e),
            }
        }
    }
    let rest = (written < data.len()).then(|| (writer.into(), data, written));
    Ok((rest, Stdio::from(reader)))
}

/// A handler's input and output, driven beside whatever the job waits for.
struct Io<F, O> {
    feed: std::pin::Pin<Box<F>>,
    output: std::pin::Pin<Box<O>>,
    /// The stderr tail, once both outputs have ended.
    tail: Option<Vec<u8>>,
}

impl<F: Future<Output = ()>, O: Future<Output = Vec<u8>>> Io<F, O> {
    /// Runs `wait` to its end while writing the rest of stdin and passing output on.
    async fn beside<T>(&mut self, wait: impl Future<Output = T>) -> T {
        let mut wait = std::pin::pin!(wait);
        loop {
            tokio::select! {
                biased;
                v = &mut wait => return v,
                tail = &mut self.output, if self.tail.is_none() => self.tail = Some(tail),
                _ = &mut self.feed => {}
            }
        }
    }
}

/// The per-job handler: one process per job, as [`run`] runs it.
pub struct ProcessHandler {
    pub spec: HandlerSpec,
    /// The resolved CMD.
    pub program: PathBuf,
    pub sink: LineSink,
}

impl Handler for ProcessHandler {
    fn run<'a>(
        &'a self,
        job: JobInput<'a>,
        _cancel: &'a CancellationToken,
        kill_now: &'a CancellationToken,
    ) -> RunFuture<'a> {
        // The job's own token fires with the consumer's too.
        Box::pin(async move {
            run(
                &self.spec,
                &self.program,
                &job,
                &self.sink,
                job.cancel,
                kill_now,
            )
            .await
        })
    }
}

/// A handler's process group, registered with the reaper. Dropping it kills whatever is
/// left in the group and then unregisters it; also when `run` is abandoned mid-job, while
/// the unreaped leader still keeps the id from being reused.
pub(crate) struct Group(pub(crate) Pid);

impl Drop for Group {
    fn drop(&mut self) {
        let _ = killpg(self.0, Signal::SIGKILL);
        crate::reaper::unwatch(self.0.as_raw());
    }
}

/// Asks the kernel to SIGKILL the handler when its parent dies, for a consumer without a
/// reaper. A weaker defence: it reaches the handler but nothing the handler started, it is
/// cleared by exec of a set-user-ID program, and it fires when the spawning *thread* exits
/// (tokio's workers live as long as the runtime, so in effect when the consumer dies).
pub(crate) fn die_with_parent(cmd: &mut Command) {
    #[cfg(target_os = "linux")]
    {
        let parent = nix::unistd::getpid();
        // SAFETY: only async-signal-safe calls (prctl, getppid) between fork and exec.
        unsafe {
            cmd.pre_exec(move || {
                nix::sys::prctl::set_pdeathsig(Signal::SIGKILL)?;
                // The parent died before the request was made: it will never fire.
                if nix::unistd::getppid() != parent {
                    return Err(std::io::Error::from_raw_os_error(libc::ESRCH));
                }
                Ok(())
            });
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = cmd;
}

/// Copies a stream to the sink line by line, in pieces of at most `MAX_LINE` bytes;
/// returns the last 4 KiB when `keep_tail`; `live_tail` holds them as they come.
async fn pump(
    stream: impl AsyncRead + Unpin,
    target: Target,
    prefix: Option<Vec<u8>>,
    keep_tail: bool,
    live_tail: Option<Arc<Mutex<Vec<u8>>>>,
) -> Vec<u8> {
    let mut reader = BufReader::new(stream);
    let mut line = Vec::new();
    let mut tail = Vec::new();
    loop {
        let buf = match reader.fill_buf().await {
            Ok(buf) if !buf.is_empty() => buf,
            _ => break,
        };
        let room = MAX_LINE - line.len();
        // A newline right after a full piece ends that piece instead of making an empty line.
        let (take, complete) = match buf.iter().take(room + 1).position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None if buf.len() > room => (room, true),
            None => (buf.len(), false),
        };
        let chunk = &buf[..take];
        line.extend_from_slice(chunk);
        if keep_tail {
            tail.extend_from_slice(chunk);
            if tail.len() > 2 * STDERR_TAIL {
                tail.drain(..tail.len() - STDERR_TAIL);
            }
        }
        if let Some(live) = &live_tail {
            let mut live = live.lock().expect("tail lock");
            live.extend_from_slice(chunk);
            if live.len() > STDERR_TAIL {
                let excess = live.len() - STDERR_TAIL;
                live.drain(..excess);
            }
        }
        reader.consume(take);
        if complete {
            pass_on(&line, &target, prefix.as_deref()).await;
            line.clear();
        }
    }
    if !line.is_empty() {
        pass_on(&line, &target, prefix.as_deref()).await;
    }
    if tail.len() > STDERR_TAIL {
        tail.drain(..tail.len() - STDERR_TAIL);
    }
    tail
}

/// Writes one line or piece whole, with the prefix and a newline at its end.
async fn pass_on(line: &[u8], target: &Target, prefix: Option<&[u8]>) {
    let mut out = Vec::with_capacity(line.len() + 1 + prefix.map_or(0, <[u8]>::len));
    if let Some(p) = prefix {
        out.extend_from_slice(p);
    }
    out.extend_from_slice(line);
    if out.last() != Some(&b'\n') {
        out.push(b'\n');
    }
    target.write_line(out).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn pieces(input: &[u8]) -> (Vec<Vec<u8>>, Vec<u8>) {
        let (sink, buf) = LineSink::memory();
        let tail = pump(input, sink.out, None, true, None).await;
        let out = buf.lock().unwrap().clone();
        let lines = out.split_inclusive(|&b| b == b'\n').map(<[u8]>::to_vec);
        (lines.collect(), tail)
    }

    #[tokio::test]
    async fn a_line_is_split_only_when_longer_than_max_line() {
        let mut exact = vec![b'x'; MAX_LINE];
        exact.push(b'\n');
        let (lines, _) = pieces(&exact).await;
        assert_eq!(
            lines,
            [exact.clone()],
            "a full piece and its newline stay one line"
        );

        let mut longer = vec![b'y'; MAX_LINE + 1];
        longer.push(b'\n');
        let (lines, _) = pieces(&longer).await;
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].len(), MAX_LINE + 1);
        assert_eq!(lines[1], b"y\n");

        let (lines, tail) = pieces(&vec![b'z'; 2 * MAX_LINE]).await;
        assert_eq!(lines.len(), 2, "no empty line after the last full piece");
        assert!(lines.iter().all(|l| l.len() == MAX_LINE + 1));
        assert_eq!(
            tail,
            vec![b'z'; STDERR_TAIL],
            "the tail holds the handler's bytes only"
        );
    }
}
