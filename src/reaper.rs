//! The reaper: a small watchdog process that kills a consumer's handlers when the consumer
//! dies, however it dies (SIGKILL included). It is the qctl binary re-executed with argv[0]
//! `qctl-reaper`; its stdin is a pipe from the consumer, which writes `+PGID` for every
//! handler process group it starts and `-PGID` once it has reaped it. EOF on that pipe means
//! the consumer is gone: the reaper SIGKILLs every group still registered and exits.

use std::collections::HashSet;
use std::io::{self, BufRead, Write};
use std::os::fd::AsRawFd;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitCode, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use nix::sys::signal::{killpg, SigHandler, Signal};
use nix::unistd::Pid;

/// argv[0] of a reaper process; [`init`] looks for it before the command line is parsed.
pub const ARG0: &str = "qctl-reaper";

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

/// The reaper process: tracks the registered groups until EOF, then kills those left.
fn reap() -> ExitCode {
    ignore_signals();
    close_inherited_fds();
    let _ = nix::sys::prctl::set_name(c"qctl-reaper");
    let mut groups = HashSet::new();
    // A read error is treated as EOF: without its input the reaper can no longer tell.
    for line in io::stdin().lock().split(b'\n').map_while(Result::ok) {
        match parse(&line) {
            Some((true, pgid)) => groups.insert(pgid),
            Some((false, pgid)) => groups.remove(&pgid),
            None => false,
        };
    }
    for pgid in groups {
        let _ = killpg(Pid::from_raw(pgid), Signal::SIGKILL);
    }
    ExitCode::SUCCESS
}

/// `+PGID` or `-PGID`; ids 0 and 1 would mean our own group and init's, never a handler's.
fn parse(line: &[u8]) -> Option<(bool, i32)> {
    let (sign, digits) = line.split_first()?;
    let pgid: i32 = std::str::from_utf8(digits).ok()?.parse().ok()?;
    if pgid <= 1 {
        return None;
    }
    match sign {
        b'+' => Some((true, pgid)),
        b'-' => Some((false, pgid)),
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
    },
    /// Started and lost, or never started: why.
    Gone(String),
}

/// Starts this process's reaper if it has not been started; true when one is running.
pub fn ready() -> bool {
    if !ENABLED.load(Ordering::Relaxed) {
        return false;
    }
    let mut watcher = WATCHER.lock().unwrap_or_else(|e| e.into_inner());
    start_once(&mut watcher);
    matches!(*watcher, Watcher::Running { .. })
}

fn start_once(watcher: &mut Watcher) {
    if let Watcher::NotStarted = *watcher {
        *watcher = match start() {
            Ok((child, stdin)) => Watcher::Running { child, stdin },
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
    send(&mut watcher, '+', pgid);
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
    send(&mut watcher, '-', pgid);
}

fn send(watcher: &mut Watcher, sign: char, pgid: i32) {
    let Watcher::Running { child, stdin } = watcher else {
        return;
    };
    // One write of less than PIPE_BUF bytes: lines never interleave and never half-arrive.
    let Err(e) = stdin.write_all(format!("{sign}{pgid}\n").as_bytes()) else {
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
    use super::parse;

    #[test]
    fn lines_register_and_forget_groups_and_nothing_else() {
        assert_eq!(parse(b"+1234"), Some((true, 1234)));
        assert_eq!(parse(b"-1234"), Some((false, 1234)));
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
        ] {
            assert_eq!(parse(bad), None, "{:?}", String::from_utf8_lossy(bad));
        }
    }
}
