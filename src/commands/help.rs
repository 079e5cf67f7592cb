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
  2    usage: unknown flag, bad value, bad Redis URL; a change that asks
       first, run without a terminal and without --yes
  3    Redis could not be reached (refused, timed out, TLS or DNS failure,
       not a Redis server); a consumer lost its lease; a reply too large to
       arrive within --response-timeout
  4    Redis answered with an error, shown in its own words: WRONGTYPE
       (naming the key), NOPERM, NOAUTH, WRONGPASS, OOM; BADVALUE for a
       counter of NAME:stats that is no integer
  5    nothing was done: the id is taken, nothing matched (find found
       nothing), or the queue named has no key
  6    bad input: unreadable file, invalid JSON line, damaged record, a job
       larger than Redis takes (proto-max-bulk-len)
  7    partly done: some of the work failed (consume --drain: some job
       ended dead; wait: a job died, or ended without a record of success)
  8    consume --drain: the queue is paused (or a limit of 0 holds it) with
       jobs ready or retries pending
  9    consume --drain --max-jobs N: stopped after N jobs, jobs left to run
  10   declined: the question before a change was answered n, no or Enter
       alone; nothing changed
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

/// A job id as the examples show one.
const ID: &str = "0b7d3e2a-1c4f-4d5e-9f00-aabbccddeeff";

/// Two or three examples of each command, by its path under `qctl` ("" for qctl itself):
/// `-h` and `--help` show them under "Examples:". Each is a command line as typed; tests/cli.rs
/// checks that every one parses.
pub fn examples(path: &str) -> Vec<String> {
    let lines: &[&str] = match path {
        "" => &[
            "qctl enqueue mail '{\"to\":\"ann@example.com\"}'",
            "qctl consume mail -c 4 -- ./send-mail.sh",
        ],
        "enqueue" => &[
            "qctl enqueue mail '{\"to\":\"ann@example.com\"}'",
            "qctl enqueue mail --in 10m 'reminder'",
            "seq 1 100 | qctl enqueue numbers --lines",
        ],
        "consume" => &[
            "qctl consume mail -c 4 -- ./send-mail.sh",
            "qctl consume mail --drain --max-retries 2 -- ./send-mail.sh",
            "qctl consume high default low --weights 6,3,1 -- ./run.sh",
        ],
        "wait" => &[
            "qctl wait mail --timeout 10m",
            "qctl wait mail ID --timeout 1m",
        ],
        "stats" => &[
            "qctl stats",
            "qctl stats mail sms --json",
            "qctl stats mail --history 1h",
        ],
        "metrics" => &[
            "qctl metrics",
            "qctl metrics mail sms --listen 0.0.0.0:9187",
        ],
        "check" => &[
            "qctl check --dead-max 0 --min-consumers 1",
            "qctl check mail --warn-ready 1000 --ready-max 10000",
            "qctl check --failure-rate-max 5% --window 15m",
        ],
        "top" => &["qctl top", "qctl top --interval 500ms"],
        "web" => &[
            "qctl web",
            "qctl web mail sms --read-only",
            "qctl web --listen 0.0.0.0:9188 --web-password-file ~/.qctl-web-password",
        ],
        "dead" => &[
            "qctl dead list mail",
            "qctl dead groups mail",
            "qctl dead requeue mail --all --yes",
        ],
        "dead list" => &[
            "qctl dead list mail",
            "qctl dead list mail --reason timeout --since 1h",
            "qctl dead list mail --jsonl --limit 1000 > dead.jsonl",
        ],
        "dead show" => &[
            "qctl dead show mail ID",
            "qctl dead show mail ID --raw > job.json",
        ],
        "dead requeue" => &[
            "qctl dead requeue mail ID",
            "qctl dead requeue mail --all --dry-run",
            "qctl dead requeue mail --group 4f1c2a9b3e7d --yes",
        ],
        "dead delete" => &[
            "qctl dead delete mail ID",
            "qctl dead delete mail --older-than 30d --yes",
        ],
        "dead export" => &[
            "qctl dead export mail > dead.jsonl",
            "qctl dead export mail --reason timeout > timeouts.jsonl",
        ],
        "dead groups" => &["qctl dead groups mail", "qctl dead groups mail --since 1h"],
        "scheduled" => &[
            "qctl scheduled list mail",
            "qctl scheduled groups mail",
            "qctl scheduled run-now mail --all --yes",
        ],
        "scheduled list" => &[
            "qctl scheduled list mail",
            "qctl scheduled list mail --until +2h",
        ],
        "scheduled show" => &[
            "qctl scheduled show mail ID",
            "qctl scheduled show mail ID --raw",
        ],
        "scheduled run-now" => &[
            "qctl scheduled run-now mail ID",
            "qctl scheduled run-now mail --group none --yes",
        ],
        "scheduled delete" => &[
            "qctl scheduled delete mail ID",
            "qctl scheduled delete mail --grep test --dry-run",
        ],
        "scheduled groups" => &[
            "qctl scheduled groups mail",
            "qctl scheduled groups mail --limit 0",
        ],
        "active" => &["qctl active list mail", "qctl active delete mail ID"],
        "active list" => &[
            "qctl active list mail",
            "qctl active list mail --limit 5 --jsonl",
        ],
        "active delete" => &[
            "qctl active delete mail ID",
            "qctl active delete mail ID --yes",
        ],
        "find" => &[
            "qctl find mail ann@example.com",
            "qctl find mail 'exit 3' --in dead,scheduled --limit 0",
            "qctl find mail ID --jsonl",
        ],
        "tail" => &[
            "qctl tail mail",
            "qctl tail mail sms --failures",
            "qctl tail mail --since 1h --no-follow",
        ],
        "inflight" => &["qctl inflight mail", "qctl inflight mail --jsonl"],
        "consumers" => &[
            "qctl consumers mail",
            "qctl consumers quiet 11b772bd",
            "qctl consumers resize 11b772bd -c 1",
        ],
        "consumers quiet" => &[
            "qctl consumers quiet 11b772bd",
            "qctl consumers quiet --all mail --yes",
        ],
        "consumers stop" => &[
            "qctl consumers stop 11b772bd",
            "qctl consumers stop --all mail --yes",
        ],
        "consumers resize" => &[
            "qctl consumers resize 11b772bd -c 1",
            "qctl consumers resize 11b772bd -c 8 --queue mail",
        ],
        "cancel" => &["qctl cancel mail ID", "qctl cancel mail ID --retry --yes"],
        "orphans" => &["qctl orphans mail --dry-run", "qctl orphans mail --yes"],
        "pause" => &["qctl pause mail", "qctl resume mail"],
        "resume" => &["qctl resume mail", "qctl pause mail"],
        "purge" => &["qctl purge mail --dry-run", "qctl purge mail --yes"],
        "export" => &[
            "qctl export mail > mail.jsonl",
            "qctl export mail --state dead --state retrying > failed.jsonl",
        ],
        "import" => &[
            "qctl import mail < mail.jsonl",
            "qctl import mail-copy --file mail.jsonl",
        ],
        "move" => &[
            "qctl move mail mail-v2 --dry-run",
            "qctl move mail mail --to redis://new-host:6379 --yes",
        ],
        "limit" => &[
            "qctl limit mail",
            "qctl limit mail --rate 100/s --max-running 20",
            "qctl limit mail --clear",
        ],
        "doctor" => &[
            "qctl doctor",
            "qctl doctor mail",
            "qctl doctor mail --fix --dry-run",
        ],
        "changes" => &[
            "qctl changes mail",
            "qctl changes mail --since 1d --json",
            "qctl changes mail --ids 1764409719123-0",
        ],
        "completions" => &[
            "qctl completions bash > ~/.local/share/bash-completion/completions/qctl",
            "qctl completions zsh > ~/.zfunc/_qctl",
        ],
        "man" => &[
            "qctl man | man -l -",
            "qctl man --dir ~/.local/share/man/man1",
        ],
        "help" => &["qctl help dead list", "qctl help exit-codes"],
        _ => &[],
    };
    lines
        .iter()
        .map(|l| l.replace(" ID", &format!(" {ID}")))
        .collect()
}
