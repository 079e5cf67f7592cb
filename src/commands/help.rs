//! `qctl help [COMMAND... | TOPIC]`: the help of a command, or of a topic that concerns
//! many: the connection options, the exit codes, the handler contract, the `--pipe` protocol.

use super::Context;
use crate::engine::{Error, ExitCode};

/// The topics, with a line each.
pub const TOPICS: [(&str, &str); 4] = [
    (
        "connection",
        "where Redis is: URL, user and password, TLS, Cluster, timeouts",
    ),
    ("exit-codes", "what each exit code of qctl means"),
    (
        "handlers",
        "what a consume handler gets and gives back (stdin, exit code)",
    ),
    ("pipe", "the JSON-lines protocol of consume --pipe"),
];

/// The exit codes, as `qctl help exit-codes` and the manual page print them. Every line of
/// this text and of [`HANDLERS`] and [`PIPE`] fits in 78 columns: `--help` on an 80-column
/// terminal shows them as written (clap wraps a longer line where it overflows).
pub const EXIT_CODES: &str = "\
Exit codes:
  0    everything asked for was done
  1    an error not listed below (a local file could not be written; a bug
       in qctl)
  2    usage: unknown flag, bad value, bad Redis URL
  3    Redis could not be reached (refused, timed out, TLS or DNS failure,
       not a Redis server); a consumer lost its lease; a reply too large to
       arrive within --response-timeout
  4    Redis answered with an error, shown in its own words: WRONGTYPE
       (naming the key), NOPERM, NOAUTH, WRONGPASS, OOM; BADVALUE for a
       counter of NAME:stats that is no integer
  5    nothing was done: the id is taken, nothing matched, or the queue
       named has no key
  6    bad input: unreadable file, invalid JSON line, damaged record, a job
       larger than Redis takes (proto-max-bulk-len)
  7    partly done: some of the work failed (consume --drain: some job
       ended dead; wait: a job died, or ended without a record of success)
  8    consume --drain: the queue is paused (or a limit of 0 holds it) with
       jobs ready or retries pending
  9    consume --drain --max-jobs N: stopped after N jobs, jobs left to run
  124  wait --timeout: the time ran out before what it waits for happened
  129, 130, 143
       stopped by SIGHUP, SIGINT (Ctrl-C) or SIGTERM before it was done;
       the last line says exactly what was done
  141  stopped because its output was closed before it was done (a command
       that only reads ends with 0 instead)
  check and doctor end with the monitoring-plugins codes instead: 0 OK,
  1 WARNING, 2 CRITICAL, 3 UNKNOWN (Redis could not be read, or a bad
  command line).
";

/// The handler contract of `consume`, per job.
pub const HANDLERS: &str = "\
The handler (qctl consume QUEUE -- CMD [ARGS...]):
  CMD runs once per job, directly (PATH lookup, no shell), in a process
  group of its own. Its stdin is the job's data, then EOF; with --replace
  STR, STR in ARGS becomes the data (like xargs -I; still no shell).
  Its environment is qctl's, without QCTL_REDIS_URL, REDIS_URL,
  QCTL_REDIS_PASSWORD and QCTL_REDIS_PASSWORD_FILE, plus:
    QCTL_QUEUE        the queue's name
    QCTL_JOB_ID       the job's id
    QCTL_JOB_ATTEMPT  how many times the job failed before this run (0 on
                      its first)
    QCTL_CONSUMER_ID  this consumer's id
  Exit 0: done; the job is acked and its record deleted. Any other exit,
  or a signal: failed; retried with backoff (--max-retries, --max-backoff),
  then moved to the dead set. The reason, the exit code or signal and the
  last 4 KiB of stderr are recorded (qctl dead show QUEUE ID).
  Its stdout and stderr go to qctl's, in whole lines (--prefix puts [ID]
  before each; with --json its stdout goes to stderr). --timeout DUR stops
  it: SIGTERM to its group, SIGKILL after --kill-after. What it leaves
  running in its group is killed when it ends.
";

/// The `--pipe` protocol.
pub const PIPE: &str = "\
The --pipe protocol (qctl consume QUEUE --pipe -- CMD [ARGS...]):
  qctl starts --concurrency long-lived copies of CMD (no shell, each in its
  own process group; the environment as for handlers, without the per-job
  variables) and writes one line per job to a copy's stdin:
    {\"id\":\"...\",\"attempt\":0,\"queue\":\"mail\",\"data\":\"...\"}
  with \"data_b64\" (standard base64) instead of \"data\" when the data is
  not UTF-8. The copy answers one line per job on stdout, in any order:
    {\"id\":\"...\",\"ok\":true}
    {\"id\":\"...\",\"ok\":false,\"error\":\"why\",\"retry_in\":30}
  (\"retry_in\", in seconds, is optional and capped by --max-backoff). Its
  stdout carries answers only; its stderr goes to qctl's.
  --pipe-depth N lets N jobs be outstanding per copy. Without it qctl
  chooses each copy's depth as jobs run: from 1, doubling up to 64 while
  the copy answers within 5 ms a job and more jobs wait, halving when an
  answer takes over 100 ms (or half of --timeout), back to 1 while a job is
  outstanding that long, halving again when the copy is restarted;
  consume -v shows each change. A copy that exits, answers a line that is
  not such an object or an id it does not hold, or exceeds --timeout fails
  its outstanding jobs and is started again (after 100 ms, doubling up to
  10 s).
";

pub fn run(mut ctx: Context, words: &[String]) -> anyhow::Result<ExitCode> {
    let text = match words {
        [] => crate::cli::command().render_long_help().to_string(),
        [topic] if topic == "connection" => connection(),
        [topic] if topic == "exit-codes" => EXIT_CODES.to_string(),
        [topic] if topic == "handlers" => HANDLERS.to_string(),
        [topic] if topic == "pipe" => PIPE.to_string(),
        [topic] if topic == "topics" => topics(),
        path => {
            let mut cmd = crate::cli::command();
            for word in path {
                cmd = match cmd.find_subcommand(word) {
                    Some(sub) => sub.clone(),
                    None => {
                        return Err(Error::Usage(format!(
                        "no command or topic {word:?} (see `qctl help topics` and `qctl --help`)"
                    ))
                        .into())
                    }
                };
            }
            let name = format!("qctl {}", path.join(" "));
            cmd.bin_name(name).render_long_help().to_string()
        }
    };
    ctx.out.raw(text.as_bytes())?;
    ctx.out.flush()?;
    Ok(ExitCode::Success)
}

/// The list of topics.
fn topics() -> String {
    let mut out = String::from("Help topics (qctl help TOPIC):\n");
    for (name, line) in TOPICS {
        out.push_str(&format!("  {name:<12} {line}\n"));
    }
    out.push_str("\nOr a command: qctl help dead list\n");
    out
}

/// The connection options, with their environment variables.
fn connection() -> String {
    let root = crate::cli::command();
    let mut cmd = clap::Command::new("connection")
        .bin_name("qctl [COMMAND]")
        .about("Where Redis is and how to reach it; every command takes these options.")
        .disable_help_flag(true)
        .disable_version_flag(true)
        .after_help(
            "A password never goes on the command line: give it in $QCTL_REDIS_PASSWORD or in \
             the first line of --password-file. The URL's password, if any, is used when \
             neither is given; messages show it as ***.",
        );
    for arg in root
        .get_arguments()
        .filter(|a| a.get_help_heading() == Some(crate::cli::CONNECTION))
    {
        cmd = cmd.arg(arg.clone().hide_short_help(false));
    }
    cmd.render_long_help().to_string()
}
