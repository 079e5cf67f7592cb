//! What the consumer asks of whatever runs its jobs: run one job, say how it ended. The
//! consumer never learns how (a process per job, a long-lived process fed over a pipe, or
//! plain Rust code in a test); the `consume` command chooses.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

/// One job, as the handler sees it.
pub struct JobInput<'a> {
    pub queue: &'a str,
    pub id: &'a str,
    pub attempt: i64,
    pub consumer_id: &'a str,
    pub data: &'a [u8],
    /// Fires when this job alone is cancelled (an order: `qctl cancel`), and with the
    /// consumer's `cancel`: the handler then stops it as on `cancel` and ends with
    /// [`Outcome::Cancelled`].
    pub cancel: &'a CancellationToken,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Succeeded,
    Failed {
        exit_code: Option<i32>,
        signal: Option<i32>,
        timed_out: bool,
    },
    /// Stopped through the cancel token (shutdown, lost lease): not a failure of the job.
    Cancelled,
}

#[derive(Debug)]
pub struct RunReport {
    pub outcome: Outcome,
    pub duration: Duration,
    /// The last 4 KiB of the handler's stderr.
    pub stderr_tail: Vec<u8>,
    /// The reason recorded for a failure when it is not `exit N`, `signal N` or `timeout`
    /// (a command that could not be started, a handler's own error message, ...).
    pub reason: Option<String>,
    /// When the handler asked for the retry: used instead of the backoff, capped by it.
    pub retry_in: Option<Duration>,
    /// Something the consumer should report once, such as a reaper that could not start.
    pub warning: Option<String>,
}

impl RunReport {
    /// A report with nothing but an outcome and a duration.
    pub fn new(outcome: Outcome, duration: Duration) -> RunReport {
        RunReport {
            outcome,
            duration,
            stderr_tail: Vec::new(),
            reason: None,
            retry_in: None,
            warning: None,
        }
    }
}

/// A job's future, as the trait returns it.
pub type RunFuture<'a> = Pin<Box<dyn Future<Output = RunReport> + Send + 'a>>;

/// Runs jobs for the consumer; `run` is called for up to `--concurrency` jobs at once.
pub trait Handler: Send + Sync {
    /// Runs one job and reports how it ended. `cancel` asks it to stop (shutdown past its
    /// grace, a lost lease): it then ends with [`Outcome::Cancelled`], after a grace of its
    /// own that `kill_now` cuts short. Both tokens are the consumer's own: every job gets the
    /// same two, and they fire for all running jobs at once.
    fn run<'a>(
        &'a self,
        job: JobInput<'a>,
        cancel: &'a CancellationToken,
        kill_now: &'a CancellationToken,
    ) -> RunFuture<'a>;
}
