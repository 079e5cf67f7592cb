//! The reaper: a small watchdog process that kills a consumer's handlers when the consumer
//! dies, however it dies (SIGKILL included). It is the qctl binary re-executed with argv[0]
//! `qctl-reaper`; its stdin is a pipe from the consumer, which writes `=ID` for every
//! consumer id before it starts that consumer's first handler, `+PGID` for every handler
//! process group once it has started it and `-PGID` once it has reaped it. EOF on that pipe
//! means the consumer is gone: the reaper SIGKILLs every group still registered, then every
//! process whose environment holds `QCTL_CONSUMER_ID=ID` for an id it was told, with its
//! process group, until it finds none left.
//!
//! The second step covers what the first cannot: a handler started in the instant before the
//! consumer died (it had no time to write `+PGID`), and processes a handler started outside
//! its group. It finds every handler because the write end of the pipe is close-on-exec: a
//! spawn in progress holds it until its exec, so EOF comes only once every handler the
//! consumer started has its final environment.

use std::collections::HashSet;
use std::io::{self, Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use nix::sys::signal::{kill, killpg, SigHandler, Signal};
use nix::unistd::Pid;

/// argv[0] of a reaper process; [`init`] looks for it before the command line is parsed.
pub const ARG0: &str = "qctl-reaper";
/// The variable that carries the consumer's id into every handler's environment, and from
/// there into everything the handler starts: the reaper finds them by it.
pub const CONSUMER_ID_VAR: &str = "QCTL_CONSUMER_ID";
/// The longest consumer id the reaper is told of: a line must stay one atomic pipe write.
const MAX_ID: usize = 256;
/// After EOF the reaper looks for marked processes at least this long, so that a process it
/// could not see in one pass (in the middle of its exec, or just forked) is seen in the next.
const HUNT_AT_LEAST: Duration = Duration::from_millis(200);
/// Time between two passes over /proc.
const HUNT_PASS: Duration = Duration::from_millis(20);
/// Time between two reads of the consumer's lines.
const READ_PAUSE: Duration = Duration::from_millis(10);

/// Signals that reach the whole foreground process group (Ctrl-C, Ctrl-\, Ctrl-Z, a closed
/// terminal) or that are sent to a consumer's group: the consumer handles them itself, and
/// the reaper must outlive it to act on EOF.
const IGNORED: [Signal; 6] = [
    Signal::SIGINT,
    Signal::SIGTERM,
    Signal::SIGHUP,
    Signal::SIGQUIT,
    Signal::SIGTSTP,
    Signal::SIGUSR1,
];

/// Set when this process is the qctl binary, which can be re-executed as a reaper.
static ENABLED: AtomicBool = AtomicBool::new(false);
static WATCHER: Mutex<Watcher> = Mutex::new(Watcher::NotStarted);
static WARNED: AtomicBool = AtomicBool::new(false);

/// Call first thing in `main`: runs the reaper when this process was started as one and
/// returns its exit code. Otherwise it notes that handlers may be watched by a reaper; a
/// program that uses qctl as a library and does not call this gets none.
pub fn init() -> Option<ExitCode> {
    if std::env::args_os().next().is_some_and(|arg0| arg0 == ARG0) {
        return Some(reap());
    }
    ENABLED.store(true, Ordering::Relaxed);
    None
}

/// The reaper process: tracks the registered groups and consumer ids until EOF, then kills
/// the groups left and every process marked with one of the ids.
fn reap() -> ExitCode {
    ignore_signals();
    close_inherited_fds();
    let _ = nix::sys::prctl::set_name(c"qctl-reaper");
    let mut groups = HashSet::new();
    let mut consumers = HashSet::new();
    let mut stdin = io::stdin().lock();
    let mut buf = vec![0; 64 * 1024];
    let mut pending = Vec::new();
    // A read error is treated as EOF: without its input the reaper can no longer tell.
    while let Ok(n @ 1..) = stdin.read(&mut buf) {
        pending.extend_from_slice(&buf[..n]);
        let complete = pending
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        for line in pending[..complete].split(|&b| b == b'\n') {
            match parse(line) {
                Some(Line::Watch(pgid)) => groups.insert(pgid),
                Some(Line::Forget(pgid)) => groups.remove(&pgid),
                Some(Line::Consumer(id)) => consumers.insert(id),
                None => false,
            };
        }
        pending.drain(..complete);
        // Lines are taken in batches: a consumer writes two per job, and waking for each
        // would cost a busy consumer two context switches per job. The lines wait in the
        // pipe meanwhile (its 64 KiB hold thousands), in order, and EOF is seen at most
        // this late.
        std::thread::sleep(READ_PAUSE);
    }
    for &pgid in &groups {
        let _ = killpg(Pid::from_raw(pgid), Signal::SIGKILL);
    }
    let markers: Vec<Vec<u8>> = consumers
        .into_iter()
        .map(|id| [CONSUMER_ID_VAR.as_bytes(), b"=", &id].concat())
        .collect();
    if !markers.is_empty() {
        hunt(&markers);
    }
    ExitCode::SUCCESS
}

/// SIGKILLs every process whose environment holds one of `markers`, and its process group
/// (never the reaper's own: that is the consumer's, which may hold its caller's other
/// processes), pass after pass until one finds no process it had not seen, and for at least
/// [`HUNT_AT_LEAST`].
fn hunt(markers: &[Vec<u8>]) {
    let started = Instant::now();
    let me = std::process::id() as i32;
    let own_group = nix::unistd::getpgrp().as_raw();
    let mut seen = HashSet::new();
    let mut environ = Vec::new();
    loop {
        let mut new = 0;
        for pid in pids() {
            if pid == me || !marked(pid, markers, &mut environ) {
                continue;
            }
            // Killed again in every pass it is still seen in: its id may have been reused.
            let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
            if let Ok(group) = nix::unistd::getpgid(Some(Pid::from_raw(pid))) {
                if group.as_raw() > 1 && group.as_raw() != own_group {
                    let _ = killpg(group, Signal::SIGKILL);
                }
            }
            if seen.insert(pid) {
                new += 1;
            }
        }
        if new == 0 && started.elapsed() >= HUNT_AT_LEAST {
            return;
        }
        std::thread::sleep(HUNT_PASS);
    }
}

/// The ids of the processes in /proc.
fn pids() -> Vec<i32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
        .filter(|&pid| pid > 1)
        .collect()
}

/// Whether the environment of `pid` holds one of `markers` as a whole entry. A process that
/// cannot be read (gone, another user's) or has no environment (a zombie) is not marked.
fn marked(pid: i32, markers: &[Vec<u8>], buf: &mut Vec<u8>) -> bool {
    buf.clear();
    let read =
        std::fs::File::open(format!("/proc/{pid}/environ")).and_then(|mut f| f.read_to_end(buf));
    read.is_ok()
        && buf
            .split(|&b| b == 0)
            .any(|entry| markers.iter().any(|m| m.as_slice() == entry))
}

/// Whether a consumer id can be told to the reaper: one short line, and a value that an
/// environment entry can hold.
fn usable_id(id: &[u8]) -> bool {
    !id.is_empty() && id.len() <= MAX_ID && !id.contains(&0) && !id.contains(&b'\n')
}

/// One line from the consumer.
#[derive(Debug, PartialEq, Eq)]
enum Line {
    /// `+PGID`: a handler's process group runs.
    Watch(i32),
    /// `-PGID`: that group was waited for and killed.
    Forget(i32),
    /// `=ID`: handlers of consumer ID carry `QCTL_CONSUMER_ID=ID`.
    Consumer(Vec<u8>),
}

/// `+PGID`, `-PGID` or `=ID`; group ids 0 and 1 would mean our own group and init's, never a
/// handler's.
fn parse(line: &[u8]) -> Option<Line> {
    let (sign, rest) = line.split_first()?;
    if *sign == b'=' {
        return usable_id(rest).then(|| Line::Consumer(rest.to_vec()));
    }
    let pgid: i32 = std::str::from_utf8(rest).ok()?.parse().ok()?;
    if pgid <= 1 {
        return None;
    }
    match sign {
        b'+' => Some(Line::Watch(pgid)),
        b'-' => Some(Line::Forget(pgid)),
        _ => None,
    }
}

/// Closes every descriptor but stdin, stdout and stderr. qctl's own are close-on-exec, but
/// the consumer may have inherited others (a pipe someone waits to see closed) that the
/// reaper, outliving it, must not keep open.
fn close_inherited_fds() {
    let Ok(dir) = std::fs::read_dir("/proc/self/fd") else {
        return;
    };
    // Collected first: the directory's own descriptor is closed when the listing ends.
    let fds: Vec<i32> = dir
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
        .filter(|&fd| fd > 2)
        .collect();
    for fd in fds {
        // SAFETY: nothing in this process uses a descriptor above 2 yet.
        unsafe { libc::close(fd) };
    }
}

fn ignore_signals() {
    for sig in IGNORED {
        // SAFETY: SIG_IGN installs no handler; sigaction is async-signal-safe (this also
        // runs between fork and exec).
        let _ = unsafe { nix::sys::signal::signal(sig, SigHandler::SigIgn) };
    }
}

enum Watcher {
    NotStarted,
    Running {
        child: Child,
        stdin: ChildStdin,
        /// The consumer ids the reaper was told of.
        consumers: HashSet<String>,
    },
    /// Started and lost, or never started: why.
    Gone(String),
}

/// Starts this process's reaper if it has not been started and tells it of `consumer_id`;
/// true when one is running and knows the id. Call it before spawning a handler that
/// carries `QCTL_CONSUMER_ID=consumer_id`, so that the reaper knows the id whenever the
/// handler may run.
pub fn ready(consumer_id: &str) -> bool {
    if !ENABLED.load(Ordering::Relaxed) {
        return false;
    }
    let mut watcher = WATCHER.lock().unwrap_or_else(|e| e.into_inner());
    start_once(&mut watcher);
    let Watcher::Running { consumers, .. } = &mut *watcher else {
        return false;
    };
    if consumers.contains(consumer_id) {
        return true;
    }
    // An id the reaper cannot be told of finds no handler: the kernel's parent-death
    // signal is the caller's defence then.
    if !usable_id(consumer_id.as_bytes()) {
        return false;
    }
    consumers.insert(consumer_id.to_string());
    send(&mut watcher, &format!("={consumer_id}"));
    matches!(*watcher, Watcher::Running { .. })
}

fn start_once(watcher: &mut Watcher) {
    if let Watcher::NotStarted = *watcher {
        *watcher = match start() {
            Ok((child, stdin)) => Watcher::Running {
                child,
                stdin,
                consumers: HashSet::new(),
            },
            Err(e) => Watcher::Gone(format!("could not start the reaper process: {e}")),
        };
    }
}

/// Tells this process's reaper that handler group `pgid` runs, starting the reaper on first
/// use. Returns a warning, once per process, when there is no reaper to tell.
pub fn watch(pgid: i32) -> Option<String> {
    if !ENABLED.load(Ordering::Relaxed) {
        return None;
    }
    let mut watcher = WATCHER.lock().unwrap_or_else(|e| e.into_inner());
    start_once(&mut watcher);
    send(&mut watcher, &format!("+{pgid}"));
    match &*watcher {
        Watcher::Gone(why) if !WARNED.swap(true, Ordering::Relaxed) => Some(format!(
            "{why}; if this consumer is killed, processes its handlers started may keep running"
        )),
        _ => None,
    }
}

/// Tells the reaper that group `pgid` was waited for and killed: its id may be reused from
/// now on, so the reaper must forget it.
pub fn unwatch(pgid: i32) {
    let mut watcher = WATCHER.lock().unwrap_or_else(|e| e.into_inner());
    send(&mut watcher, &format!("-{pgid}"));
}

/// Writes one line to the reaper; on failure stops it and notes why.
fn send(watcher: &mut Watcher, line: &str) {
    let Watcher::Running { child, stdin, .. } = watcher else {
        return;
    };
    // One write of less than PIPE_BUF bytes: lines never interleave and never half-arrive.
    let Err(e) = stdin.write_all(format!("{line}\n").as_bytes()) else {
        return;
    };
    // Closing the pipe of a live reaper would make it kill every running handler: stop it
    // first. It is our child, so it cannot have been replaced by another process.
    let _ = child.kill();
    let _ = child.wait();
    *watcher = Watcher::Gone(format!("the reaper process stopped taking input: {e}"));
}

fn start() -> io::Result<(Child, ChildStdin)> {
    // /proc/self/exe still names this binary when its file was replaced or deleted.
    let exe = match Path::new("/proc/self/exe") {
        p if p.exists() => PathBuf::from(p),
        _ => std::env::current_exe()?,
    };
    let mut cmd = Command::new(exe);
    // Nothing of ours but the pipe: no environment (it may hold the Redis password), no
    // working directory pinned, stdout and stderr not held open for whoever reads them.
    cmd.arg0(ARG0)
        .env_clear()
        .current_dir("/")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    // SAFETY: only async-signal-safe calls between fork and exec. Ignoring the signals
    // before exec means a Ctrl-C during the reaper's start-up cannot kill it.
    unsafe {
        cmd.pre_exec(|| {
            ignore_signals();
            Ok(())
        });
    }
    let mut child = cmd.spawn()?;
    let stdin = child.stdin.take().expect("stdin is piped");
    // A reaper that stops reading must not block a consumer thread on a full pipe.
    // SAFETY: fcntl on a descriptor we own.
    let flags = unsafe { libc::fcntl(stdin.as_raw_fd(), libc::F_GETFL) };
    if flags < 0
        || unsafe { libc::fcntl(stdin.as_raw_fd(), libc::F_SETFL, flags | libc::O_NONBLOCK) } < 0
    {
        let e = io::Error::last_os_error();
        let _ = child.kill();
        let _ = child.wait();
        return Err(e);
    }
    Ok((child, stdin))
}

#[cfg(test)]
mod tests {
    use super::{parse, Line};

    #[test]
    fn lines_register_and_forget_groups_and_consumers_and_nothing_else() {
        assert_eq!(parse(b"+1234"), Some(Line::Watch(1234)));
        assert_eq!(parse(b"-1234"), Some(Line::Forget(1234)));
        assert_eq!(
            parse(b"=0b7d3e2a-1c4f"),
            Some(Line::Consumer(b"0b7d3e2a-1c4f".to_vec()))
        );
        let long = [&b"="[..], &[b'x'; 257]].concat();
        for bad in [
            &b""[..],
            b"+",
            b"+0",
            b"+1",
            b"--5",
            b"+-5",
            b"*5",
            b"+5 ",
            b"+x",
            b"=",
            b"=a\0b",
            &long,
        ] {
            assert_eq!(parse(bad), None, "{:?}", String::from_utf8_lossy(bad));
        }
    }
}
