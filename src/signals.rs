//! SIGINT, SIGTERM and SIGHUP for the commands that must stop at a clean point rather than
//! die where they stand: `consume`, the commands that change queues in bulk, and `wait`. The
//! first signal (or an output found closed, see [`crate::output::closed`]) asks them to stop;
//! a second signal asks them to stop at once. What stopped them gives the exit code: 130
//! (SIGINT), 143 (SIGTERM), 129 (SIGHUP), 141 (a closed output, when no signal came).

use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};
use std::sync::Arc;

use tokio::signal::unix::{signal, SignalKind};
use tokio_util::sync::CancellationToken;

use crate::engine::ExitCode;

/// What asked a command to stop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cause {
    Interrupt,
    Terminate,
    Hangup,
    OutputClosed,
}

impl Cause {
    /// The exit code of a command this stopped before it was done.
    pub fn exit_code(self) -> ExitCode {
        match self {
            Cause::Interrupt => ExitCode::Interrupted,
            Cause::Terminate => ExitCode::Terminated,
            Cause::Hangup => ExitCode::Hangup,
            Cause::OutputClosed => ExitCode::OutputClosed,
        }
    }

    /// How it is named in messages.
    pub fn name(self) -> &'static str {
        match self {
            Cause::Interrupt => "SIGINT",
            Cause::Terminate => "SIGTERM",
            Cause::Hangup => "SIGHUP",
            Cause::OutputClosed => "its output was closed",
        }
    }

    fn code(self) -> u8 {
        self as u8 + 1
    }

    fn from_code(code: u8) -> Option<Cause> {
        [
            Cause::Interrupt,
            Cause::Terminate,
            Cause::Hangup,
            Cause::OutputClosed,
        ]
        .into_iter()
        .find(|c| c.code() == code)
    }
}

/// The stop requests of one run.
pub struct Stop {
    /// The first request: stop at the next clean point.
    pub requested: CancellationToken,
    /// A second signal: stop now.
    pub forced: CancellationToken,
    first: AtomicU8,
    /// The first signal, if any.
    signal: AtomicU8,
    signals: AtomicUsize,
}

impl Stop {
    /// What asked: a signal if one came, else the closed output (counted as soon as it is
    /// seen, before the task that listens for requests has). Ctrl-C through a pipeline
    /// (`qctl ... | tee log`) reaches qctl and `tee` at once, and `tee`'s end can close qctl's
    /// output before qctl has handled its signal: the signal still names the stop.
    pub fn cause(&self) -> Option<Cause> {
        if let Some(signal) = Cause::from_code(self.signal.load(Ordering::SeqCst)) {
            return Some(signal);
        }
        Cause::from_code(self.first.load(Ordering::SeqCst)).or_else(|| {
            crate::output::closed()
                .is_cancelled()
                .then_some(Cause::OutputClosed)
        })
    }

    /// Waits for the first signal (SIGINT, SIGTERM or SIGHUP). A closed output does not count:
    /// a command whose answer is its exit code (`wait`) goes on without its output.
    pub async fn signalled(&self) -> Cause {
        loop {
            match self.cause() {
                Some(Cause::OutputClosed) => {
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await
                }
                Some(cause) => return cause,
                None => self.requested.cancelled().await,
            }
        }
    }

    /// Runs `work` unless a signal comes first (None then). A command's start, before it has
    /// done anything, ends at once on a signal rather than when a server that does not answer
    /// gives up (--connect-timeout). A closed output does not count, as in
    /// [`Stop::signalled`]: what the command does then is its own to say.
    pub async fn unless_signalled<F: std::future::Future>(&self, work: F) -> Option<F::Output> {
        tokio::select! {
            biased;
            _ = self.signalled() => None,
            done = work => Some(done),
        }
    }

    /// Records a request (the first cause is kept) and tells how many signals came so far.
    pub fn request(&self, cause: Cause) -> usize {
        let _ = self
            .first
            .compare_exchange(0, cause.code(), Ordering::SeqCst, Ordering::SeqCst);
        if cause != Cause::OutputClosed {
            let _ =
                self.signal
                    .compare_exchange(0, cause.code(), Ordering::SeqCst, Ordering::SeqCst);
        }
        let n = if cause == Cause::OutputClosed {
            self.signals.load(Ordering::SeqCst)
        } else {
            self.signals.fetch_add(1, Ordering::SeqCst) + 1
        };
        self.requested.cancel();
        if n >= 2 {
            self.forced.cancel();
        }
        n
    }
}

/// Installs the handlers (inside the runtime) and returns the requests they make. SIGINT and
/// SIGHUP are handled only when they were not ignored when qctl started: a shell ignores
/// SIGINT for the jobs a script starts in the background, so that Ctrl-C does not reach
/// them, and `nohup` ignores SIGHUP.
pub fn install() -> std::io::Result<Arc<Stop>> {
    let stop = Arc::new(Stop {
        requested: CancellationToken::new(),
        forced: CancellationToken::new(),
        first: AtomicU8::new(0),
        signal: AtomicU8::new(0),
        signals: AtomicUsize::new(0),
    });
    let unless_ignored = |number: libc::c_int, kind: SignalKind| {
        if ignored(number) {
            Ok(None)
        } else {
            signal(kind).map(Some)
        }
    };
    let mut sigint = unless_ignored(libc::SIGINT, SignalKind::interrupt())?;
    let mut sigterm = signal(SignalKind::terminate())?;
    let mut sighup = unless_ignored(libc::SIGHUP, SignalKind::hangup())?;
    // An output found closed before now stops the command before it starts its work.
    if crate::output::closed().is_cancelled() {
        stop.request(Cause::OutputClosed);
    }
    let listening = stop.clone();
    tokio::spawn(async move {
        let closed = crate::output::closed();
        let mut output_seen = false;
        loop {
            let cause = tokio::select! {
                Some(_) = async { sigint.as_mut()?.recv().await } => Cause::Interrupt,
                Some(_) = sigterm.recv() => Cause::Terminate,
                Some(_) = async { sighup.as_mut()?.recv().await } => Cause::Hangup,
                _ = closed.cancelled(), if !output_seen => {
                    output_seen = true;
                    Cause::OutputClosed
                }
                else => break,
            };
            listening.request(cause);
        }
    });
    Ok(stop)
}

/// Whether the signal is ignored (the disposition qctl inherited).
fn ignored(number: libc::c_int) -> bool {
    // SAFETY: sigaction with a null new action only reads the current one.
    unsafe {
        let mut old: libc::sigaction = std::mem::zeroed();
        libc::sigaction(number, std::ptr::null(), &mut old) == 0
            && old.sa_sigaction == libc::SIG_IGN
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signal_names_the_stop_over_a_closed_output_and_a_second_one_forces() {
        let stop = Stop {
            requested: CancellationToken::new(),
            forced: CancellationToken::new(),
            first: AtomicU8::new(0),
            signal: AtomicU8::new(0),
            signals: AtomicUsize::new(0),
        };
        assert_eq!(stop.cause(), None);
        assert_eq!(stop.request(Cause::OutputClosed), 0);
        assert!(stop.requested.is_cancelled() && !stop.forced.is_cancelled());
        assert_eq!(stop.request(Cause::Terminate), 1);
        assert!(!stop.forced.is_cancelled(), "a closed output is no signal");
        assert_eq!(stop.request(Cause::Interrupt), 2);
        assert!(stop.forced.is_cancelled());
        assert_eq!(
            stop.cause(),
            Some(Cause::Terminate),
            "a signal names the stop"
        );
        assert_eq!(
            stop.cause().map(Cause::exit_code),
            Some(ExitCode::Terminated)
        );
        let closed = Stop {
            requested: CancellationToken::new(),
            forced: CancellationToken::new(),
            first: AtomicU8::new(0),
            signal: AtomicU8::new(0),
            signals: AtomicUsize::new(0),
        };
        closed.request(Cause::OutputClosed);
        assert_eq!(
            closed.cause().map(Cause::exit_code),
            Some(ExitCode::OutputClosed)
        );
    }
}
