//! The command line, as clap derive definitions. Doc comments are the help text.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};

// The value parsers shared with `qctl web`'s query parameters.
pub use crate::engine::parse::{
    check_time, parse_count, parse_duration, parse_group, parse_time, parse_time_or_age,
    LATEST_TIME, LONGEST,
};

/// Operate and consume CurlyQ job queues in Redis.
///
/// qctl reads and writes queues in exactly the format of the Go library CurlyQ, so it can
/// work beside Go producers and consumers on the same queue.
#[derive(Debug, Parser)]
#[command(
    name = "qctl",
    version,
    propagate_version = true,
    max_term_width = 100,
    args_override_self = true,
    disable_help_subcommand = true
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,

    #[command(subcommand)]
    pub command: Command,
}

/// The heading of the connection options: shown by `--help` and `qctl help connection`, left
/// out of `-h`.
pub const CONNECTION: &str = "Connection";

/// The last lines of every command's `-h`, pointing to `--help` for what it leaves out. Each
/// line fits 80 columns as written.
const SHORT_HINT: &str = "\
--help shows every option in full, and those of every command: -q, -v,
--no-color, -V and the connection options (also: qctl help connection).";

/// The last line of `qctl -h`.
const ROOT_HINT: &str = "More in --help: --json, -q, -v, -V, -u URL ... (qctl help connection)";

/// The examples of the command at `path` ("" for qctl itself), under a heading.
fn examples(path: &str) -> String {
    let lines: Vec<String> = crate::commands::help::examples(path)
        .iter()
        .map(|l| format!("  {l}"))
        .collect();
    format!("Examples:\n{}\n", lines.join("\n"))
}

/// qctl's command line as clap knows it, with what the derive does not say: every command's
/// help has examples; its `-h` is about a screen (the options of every command, the
/// connection ones and the rarest are left to `--help`, which a last line points to); the
/// manual pages carry the exit codes, and `consume`'s the handler contract and the `--pipe`
/// protocol.
pub fn command() -> clap::Command {
    fn texts(cmd: clap::Command, path: &str) -> clap::Command {
        let examples = examples(path);
        cmd.after_help(format!("{examples}\n{SHORT_HINT}"))
            .after_long_help(examples)
            .mut_subcommands(|sub| {
                let path = format!("{path} {}", sub.get_name());
                texts(sub, path.trim())
            })
    }
    let topics = crate::commands::help::TOPICS
        .iter()
        .map(|(name, line)| format!("  {name:<12} {line}"))
        .collect::<Vec<_>>()
        .join("\n");
    // An error's usage line names the options given, and clap counts one set by its
    // environment variable as given (`qctl dead list --redis <URL> <QUEUE>`, as if it were
    // required): every command's usage is fixed to the plain one.
    fn plain_usage(cmd: &mut clap::Command) {
        for sub in cmd.get_subcommands_mut() {
            let usage = sub.render_usage().to_string();
            let usage = usage.trim().trim_start_matches("Usage:").trim().to_string();
            *sub = std::mem::take(sub).override_usage(usage);
            plain_usage(sub);
        }
    }
    // `-V` is in every command's `--help`, not its `-h`: one flag of qctl's own, given to
    // every command, instead of clap's.
    fn without_version_flag(cmd: clap::Command) -> clap::Command {
        cmd.disable_version_flag(true)
            .mut_subcommands(without_version_flag)
    }
    let version = clap::Arg::new("version")
        .short('V')
        .long("version")
        .action(clap::ArgAction::Version)
        .help("Print version")
        .global(true)
        .hide_short_help(true);
    let mut cmd = texts(without_version_flag(Cli::command()).arg(version), "")
        .after_help(format!("{}{ROOT_HINT}", examples("")))
        .after_long_help(format!(
            "{}\n{}\nHelp topics (qctl help TOPIC):\n{topics}",
            examples(""),
            crate::commands::help::EXIT_CODES
        ))
        .mut_subcommand("consume", |c| {
            c.after_long_help(format!(
                "{}\n{}\n{}\n{}",
                examples("consume"),
                crate::commands::help::HANDLERS,
                crate::commands::help::PIPE,
                crate::commands::help::EXIT_CODES
            ))
        });
    // qctl -h keeps to a screen: --json, which every command's -h shows, is named in its
    // last line instead of a line of its own. Each command gets its own copy first, which
    // the build then does not replace with the hidden one.
    let json = cmd.get_arguments().find(|a| a.get_id() == "json").cloned();
    if let Some(json) = json {
        cmd = cmd
            .mut_subcommands(|sub| sub.arg(json.clone()))
            .mut_arg("json", |a| a.hide_short_help(true));
    }
    cmd.build();
    // `qctl -h` does not list -h itself (--help does), so that it lists every command within
    // 40 lines; the flag is clap's, made as the command is built.
    cmd = cmd.mut_arg("help", |a| a.hide_short_help(true));
    plain_usage(&mut cmd);
    cmd
}

/// Parses `args` (the program's name first); a usage error comes with tips that name what
/// was meant (crate::tips) rather than clap's look-alikes.
pub fn try_parse_from(
    args: impl IntoIterator<Item = impl Into<std::ffi::OsString>>,
) -> Result<Cli, clap::Error> {
    let args: Vec<std::ffi::OsString> = args.into_iter().map(Into::into).collect();
    crate::tips::parse(command(), args)
        .and_then(|m| <Cli as clap::FromArgMatches>::from_arg_matches(&m))
}

/// Parses the command line, or prints the usage error (with a hint where clap's own tip
/// would mislead) and exits with 2.
pub fn parse() -> Cli {
    try_parse_from(std::env::args_os()).unwrap_or_else(|err| {
        // `check` and `doctor` speak the monitoring-plugins convention: a bad command line
        // is UNKNOWN.
        let checking = std::env::args()
            .skip(1)
            .find(|a| command().find_subcommand(a).is_some())
            .is_some_and(|a| a == "check" || a == "doctor");
        if checking && err.use_stderr() {
            let _ = err.print();
            std::process::exit(3);
        }
        // For `consume`, clap suggests `-- -name`, but `--` starts the command there. A
        // misspelt flag has clap's own tip; an unknown word with no `--` in the line is
        // most likely the handler's, which goes after `--`.
        let consume = std::env::args().any(|a| a == "consume");
        if consume && err.kind() == clap::error::ErrorKind::UnknownArgument {
            use clap::error::ContextKind;
            let _ = err.print();
            let tip = err.get(ContextKind::SuggestedArg).is_some();
            let separated = std::env::args().any(|a| a == "--");
            if !separated {
                crate::output::stderr_line(
                    "hint: the handler goes after --: qctl consume QUEUE [OPTIONS] -- CMD [ARGS...]",
                );
            } else if !tip {
                crate::output::stderr_line(
                    "hint: a queue name that starts with '-' is given as --queue=NAME",
                );
            }
            std::process::exit(2);
        }
        err.exit()
    })
}

#[derive(Debug, Args)]
pub struct GlobalArgs {
    /// Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or
    /// unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379.
    #[arg(
        help_heading = "Connection",
        hide_short_help = true,
        short = 'u',
        long = "redis",
        env = "QCTL_REDIS_URL",
        hide_env_values = true,
        global = true,
        value_name = "URL"
    )]
    pub redis: Option<String>,

    /// ACL user name (overrides a user in the URL). The password comes from
    /// $QCTL_REDIS_PASSWORD or --password-file, never from the command line.
    #[arg(
        help_heading = "Connection",
        hide_short_help = true,
        long,
        global = true,
        env = "QCTL_REDIS_USER",
        hide_env_values = true,
        value_name = "NAME"
    )]
    pub user: Option<String>,

    /// Read the Redis password from FILE (its first line).
    #[arg(
        help_heading = "Connection",
        hide_short_help = true,
        long,
        global = true,
        env = "QCTL_REDIS_PASSWORD_FILE",
        hide_env_values = true,
        value_name = "FILE"
    )]
    pub password_file: Option<PathBuf>,

    /// Verify the server with this CA certificate (PEM) instead of the system's trust store.
    #[arg(
        help_heading = "Connection",
        hide_short_help = true,
        long,
        global = true,
        env = "QCTL_TLS_CA_CERT",
        hide_env_values = true,
        value_name = "FILE"
    )]
    pub tls_ca_cert: Option<PathBuf>,

    /// Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key.
    #[arg(
        help_heading = "Connection",
        hide_short_help = true,
        long,
        global = true,
        env = "QCTL_TLS_CERT",
        hide_env_values = true,
        value_name = "FILE",
        requires = "tls_key"
    )]
    pub tls_cert: Option<PathBuf>,

    /// The client certificate's private key (PEM); needs --tls-cert.
    #[arg(
        help_heading = "Connection",
        hide_short_help = true,
        long,
        global = true,
        env = "QCTL_TLS_KEY",
        hide_env_values = true,
        value_name = "FILE",
        requires = "tls_cert"
    )]
    pub tls_key: Option<PathBuf>,

    /// Do not verify the server's TLS certificate (a warning says so).
    #[arg(help_heading = "Connection",
        hide_short_help = true, long, global = true, env = "QCTL_TLS_INSECURE", hide_env_values = true, value_parser = clap::builder::FalseyValueParser::new())]
    pub tls_insecure: bool,

    /// The URL names a node of a Redis Cluster: commands go to the node owning each queue's
    /// slot. Queue names need a hash tag, as in {mail}.
    #[arg(help_heading = "Connection",
        hide_short_help = true, long, global = true, env = "QCTL_CLUSTER", hide_env_values = true, value_parser = clap::builder::FalseyValueParser::new())]
    pub cluster: bool,

    /// Print results as JSON.
    #[arg(long, global = true)]
    pub json: bool,

    /// Print only results: no progress, no summaries, no warnings.
    #[arg(short, long, global = true, hide_short_help = true)]
    pub quiet: bool,

    /// Print more detail about what is being done (repeat for more).
    #[arg(short, long, global = true, hide_short_help = true, action = clap::ArgAction::Count)]
    pub verbose: u8,

    /// Never use colour (also: the NO_COLOR environment variable).
    #[arg(long, global = true, hide_short_help = true)]
    pub no_color: bool,

    /// How long to wait for a connection to Redis.
    #[arg(help_heading = "Connection",
        hide_short_help = true, long, global = true, value_name = "DUR", default_value = "5s", value_parser = parse_positive_duration)]
    pub connect_timeout: Duration,

    /// How long to wait for Redis to answer a command.
    #[arg(help_heading = "Connection",
        hide_short_help = true, long, global = true, value_name = "DUR", default_value = "10s", value_parser = parse_positive_duration)]
    pub response_timeout: Duration,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Add jobs to a queue.
    ///
    /// One job from DATA, --file or standard input; or many with --lines or --jsonl.
    /// Prints the id of every job enqueued.
    Enqueue(EnqueueArgs),

    /// Run a command for every job of a queue: a CurlyQ consumer.
    ///
    /// qctl consume is a CurlyQ-compatible consumer. CMD runs once per job with the job's data on its standard input; exit 0 acks the job,
    /// anything else fails it (retried with backoff, then moved to the dead set).
    Consume(ConsumeArgs),

    /// Wait until a queue is idle, or until the given jobs have ended.
    ///
    /// Without ids it waits until NAME:active is empty, no job is in flight, none in
    /// NAME:scheduled is due and none there is a retry (jobs scheduled for later are not
    /// waited for without --scheduled); exit 0, or 7 when a job died meanwhile. With ids it
    /// waits until each has ended: exit 0 when every one ended done, 7 when one died or
    /// ended without a record of success. A job that no longer exists is done only when a
    /// qctl consumer acked it (it notes the newest 10,000 acked ids in NAME:acked): one that
    /// a Go CurlyQ consumer acked, or that was deleted, ended without a record of success.
    /// --timeout gives up with exit 124. It only reads.
    Wait(WaitArgs),

    /// Count what each queue holds: jobs by state, consumers, paused.
    ///
    /// Active, scheduled (due and later), in flight, dead, consumers alive and expired, and
    /// whether the queue is paused. Without names, finds the queues by scanning key names (SCAN, never KEYS).
    Stats(StatsArgs),

    /// Serve the queues' counts to Prometheus over HTTP (GET /metrics).
    ///
    /// It serves until Ctrl-C. Redis is read at most once per --min-interval; scrapes in between get that reading.
    Metrics(MetricsArgs),

    /// Check queues against thresholds, for cron, CI and monitoring.
    ///
    /// For monitoring systems such as Nagios, Icinga, Sensu and Zabbix. Prints one line, `QCTL OK|WARNING|CRITICAL|UNKNOWN - ... | perfdata`, and exits with
    /// the monitoring-plugins code: 0 OK, 1 WARNING (a --warn-* threshold passed),
    /// 2 CRITICAL, 3 UNKNOWN (Redis could not be read, a queue has no keys, a bad option).
    /// Without names, checks every queue found.
    Check(CheckArgs),

    /// A live full-screen view of the queues, consumers and dead jobs.
    ///
    /// Counts, rates and the last minutes of every queue. Keys: arrows select, Enter shows a queue's consumers and dead jobs (arrows then scroll
    /// the dead jobs), s sorts, / filters, p pauses or resumes, q quits. Needs a terminal; for
    /// scripts use `qctl stats --watch --json`.
    Top(TopArgs),

    /// Serve a live view of the queues to a browser, on 127.0.0.1:9188.
    ///
    /// Every queue with the counts of `stats`, its rates and, from the history qctl
    /// consumers keep, its last hour: jobs done and failed per minute and run-time
    /// percentiles. The page updates itself. One reading of Redis per --interval is shared
    /// by every open page. It serves until Ctrl-C, SIGTERM or SIGHUP (exit 0). Only on
    /// loopback unless --listen says otherwise; then a password is needed
    /// ($QCTL_WEB_PASSWORD or --web-password-file; HTTP basic auth, any user name) or
    /// --no-auth. --https-cert and --https-key serve it over HTTPS (--tls-cert and
    /// --tls-key are Redis's client certificate).
    Web(WebArgs),

    /// Look at and repair dead jobs (jobs that ran out of retries).
    #[command(subcommand)]
    Dead(DeadCommand),

    /// Look at and change scheduled jobs (delayed jobs and retries).
    #[command(subcommand)]
    Scheduled(ScheduledCommand),

    /// Look at and delete jobs that are ready to run.
    #[command(subcommand)]
    Active(ActiveCommand),

    /// Look for a text in a queue's jobs: their ids, data and failures.
    ///
    /// TEXT is matched exactly, as bytes (case counts, as with --grep), in each job's id, its
    /// data and the failure qctl recorded for it (its reason and the tail of its stderr), in
    /// the dead, scheduled, in-flight and ready jobs, in that order; --in names fewer. A job
    /// whose id is TEXT is looked up first, in one round trip whatever the queue's size. Jobs
    /// are shown as they are found; the search stops at --limit results or once --max-scan
    /// jobs were looked at, and a last line on stderr says exactly what it searched. Redis
    /// does the scan (lua/find.lua), 500 jobs a call. Exit 0 when a job was found, 5 when
    /// none was.
    Find(FindArgs),

    /// Follow what happens to queues: deaths, retries, consumers, pauses.
    ///
    /// Until stopped (Ctrl-C): jobs dead and retried with their reasons, consumers joining,
    /// leaving, expiring and recovered, pause and resume, and a line per interval with the
    /// counts. It reads Redis state, so it works whatever runs the jobs; retries and reasons are
    /// known for jobs qctl consumers ran.
    Tail(TailArgs),

    /// List the jobs in flight (reserved by consumers), longest first.
    ///
    /// A job in flight is reserved by a consumer: running, or about to. Longest running first, with the consumer, its host and pid and how long each job
    /// has run (qctl consumers record these; for Go CurlyQ consumers they show as -).
    Inflight(InflightArgs),

    /// List a queue's consumers; quiet, stop or resize one.
    ///
    /// Who runs each (qctl and its version, or a Go CurlyQ consumer), its host and pid, its
    /// heartbeat's age, its jobs in flight, and whether it is alive, quiet or expired. The
    /// subcommands give a running qctl consumer an order, from any host.
    Consumers(ConsumersArgs),

    /// Cancel running jobs: stop their handlers, settle the jobs.
    ///
    /// Asks the qctl consumer that holds each job to stop its handler (its whole process
    /// group: SIGTERM, then SIGKILL after the consumer's --kill-after) and to settle the
    /// job: dead by default, with "cancelled by USER@HOST" as its failure; --retry runs it
    /// again. Waits for each settle and says what became of every id. A job held by a Go
    /// CurlyQ consumer cannot be cancelled: qctl says so.
    Cancel(CancelArgs),

    /// Return the in-flight jobs of expired consumers to the queue.
    Orphans {
        /// The queue's name.
        #[arg(value_parser = parse_queue)]
        queue: String,
        /// Heartbeat age that counts as expired.
        ///
        /// A consumer whose heartbeat is older than this is expired. Below the default, live
        /// consumers may look expired: qctl then names them and asks.
        #[arg(long, value_name = "DUR", default_value = "2m", value_parser = parse_positive_duration)]
        orphan_after: Duration,
        #[command(flatten)]
        confirm: ConfirmArgs,
    },

    /// Stop qctl consumers taking a queue's jobs (running ones finish).
    ///
    /// qctl consumers reserve no new job of a paused queue; jobs running finish. Go CurlyQ
    /// consumers do not know the pause.
    Pause {
        /// The queue's name.
        #[arg(value_parser = parse_queue)]
        queue: String,
    },

    /// Let qctl consumers reserve jobs of a paused queue again.
    Resume {
        /// The queue's name.
        #[arg(value_parser = parse_queue)]
        queue: String,
    },

    /// Delete a whole queue: every job in every state, and its keys.
    ///
    /// Every key of the queue: jobs in every state, consumers, and qctl's own keys, but
    /// for the record of its changes (NAME:changes, see `qctl changes`), which keeps the
    /// purge as its newest entry.
    Purge {
        /// The queue's name.
        #[arg(value_parser = parse_queue)]
        queue: String,
        /// Delete the record of the queue's changes (NAME:changes) too: nothing is left.
        #[arg(long)]
        forget_changes: bool,
        #[command(flatten)]
        confirm: ConfirmArgs,
    },

    /// Write a whole queue as JSON lines, every job in every state.
    ///
    /// Each job with its record and failure as stored. A header line (the format's version, the queue, the server, the time, the counts),
    /// then one line per job: ready (with its position), scheduled or retrying (with its due
    /// time), dead (with its time of death), in flight (with its consumer). `qctl import`
    /// reads it back, on this server or another, under this name or a new one.
    Export(ExportArgs),

    /// Read what `qctl export` wrote into a queue, each job in its state.
    ///
    /// It reads `enqueue --jsonl` lines too. Ready jobs in their order, scheduled, retrying and dead ones with their times, records
    /// byte for byte, failure records kept; jobs that were in flight become ready. Ids the
    /// queue has are skipped (--replace replaces them), so an interrupted import is finished
    /// by running it again. A line that cannot be used stops it with exit 6, naming the line;
    /// every job before it is written, none after.
    Import(ImportArgs),

    /// Move a live queue to another name or server, a chunk at a time.
    ///
    /// Ready jobs keep their order, scheduled and dead ones their times, records and failure
    /// records their bytes. A chunk leaves the source into its journal (SRC:move-out), arrives
    /// at the destination and is then forgotten by both journals, so each job is in one place
    /// at every moment and a move that was stopped or killed is finished by running it again.
    /// Jobs in flight are waited for (--wait), not taken, unless --take-in-flight. Consumers
    /// may keep running on both sides. The source options are the global ones; --to and the
    /// --to-* options name the destination (without --to: the same server).
    Move(MoveArgs),

    /// Show or set a queue's shared rate and cap on running jobs.
    ///
    /// The limits every qctl consumer of the queue obeys: a rate and a cap on the jobs
    /// running at once, across all consumers. Without options, shows the limits and how much of them is in use. The cap counts the
    /// jobs in flight at live consumers: a consumer that dies gives its share back once its
    /// heartbeat is older than --orphan-after. The rate is a token bucket kept in Redis. A cap
    /// or a rate of 0 acts like `qctl pause`. Consumers obey a change at their next
    /// reservation. Go CurlyQ consumers ignore limits (their jobs still count against the
    /// cap).
    Limit(LimitArgs),

    /// Check a queue's server, rights and integrity, with fixes.
    ///
    /// Server: eviction policy, memory, persistence, replica or cluster node, version,
    /// latency, clock. Rights: what the current user may do on each queue. Queue: ids without
    /// records, records in no state, ids in two states, in-flight sets without a consumer,
    /// heartbeats in the future, keys of the wrong type, damaged records. The exit code is
    /// the worst finding: 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN (Redis could not be read).
    Doctor(DoctorArgs),

    /// List the changes made to a queue: who, when, what, how many jobs.
    ///
    /// Every change qctl makes to a queue (requeue, delete, run-now, orphans, pause,
    /// resume, purge, move, import, limit, doctor --fix) appends an entry to NAME:changes: the server's
    /// time, the action, the jobs done, not found and skipped (with why), the first 1,000
    /// ids, the OS user and host, and the command line without passwords. Dry runs and
    /// declined questions record nothing. The newest --limit entries are listed oldest
    /// first, as tail does; --ids ENTRY prints the ids an entry kept, one a line. The
    /// record keeps about 10,000 entries and 90 days.
    Changes(ChangesArgs),

    /// Print a shell completion script to standard output.
    Completions {
        /// The shell to complete for.
        shell: Shell,
    },

    /// Print the manual page qctl.1, or write every page to a directory.
    ///
    /// qctl.1 lists the subcommands, each of which has its own page: qctl-enqueue.1,
    /// qctl-dead-list.1 and so on.
    Man {
        /// Write every page into DIR.
        ///
        /// qctl.1 and the page of every subcommand, into DIR (created if missing); the path
        /// of each page written is printed.
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },

    /// Help on a command or a topic: qctl help topics lists them.
    ///
    /// A command and its subcommand (qctl help dead list), or a topic: connection,
    /// exit-codes, handlers, pipe.
    Help {
        /// A command and its subcommand, or a topic.
        #[arg(value_name = "COMMAND|TOPIC")]
        words: Vec<String>,
    },
}

impl Command {
    /// Whether the command only reads (or shows what it would do): a closed stdout then ends
    /// it quietly with exit 0, while a command that changes queues was stopped before it was
    /// done.
    pub fn is_read_only(&self) -> bool {
        match self {
            Command::Stats(_)
            | Command::Check(_)
            | Command::Metrics(_)
            | Command::Top(_)
            | Command::Web(_)
            | Command::Inflight(_)
            | Command::Find(_)
            | Command::Tail(_)
            | Command::Changes(_)
            | Command::Export(_)
            | Command::Wait(_)
            | Command::Completions { .. }
            | Command::Help { .. }
            | Command::Man { .. } => true,
            Command::Doctor(args) => !args.fix || args.confirm.dry_run,
            Command::Orphans { confirm, .. } => confirm.dry_run,
            Command::Consumers(args) => match &args.command {
                None => true,
                Some(ConsumersCommand::Quiet(steer) | ConsumersCommand::Stop(steer)) => {
                    steer.confirm.dry_run
                }
                Some(ConsumersCommand::Resize { steer, .. }) => steer.confirm.dry_run,
            },
            Command::Cancel(args) => args.confirm.dry_run,
            Command::Dead(cmd) => match cmd {
                DeadCommand::List(_)
                | DeadCommand::Show(_)
                | DeadCommand::Export { .. }
                | DeadCommand::Groups(_) => true,
                DeadCommand::Requeue { bulk, .. } | DeadCommand::Delete { bulk, .. } => {
                    bulk.confirm.dry_run
                }
            },
            Command::Scheduled(cmd) => match cmd {
                ScheduledCommand::List(_)
                | ScheduledCommand::Show(_)
                | ScheduledCommand::Groups(_) => true,
                ScheduledCommand::RunNow(bulk) | ScheduledCommand::Delete(bulk) => {
                    bulk.confirm.dry_run
                }
            },
            Command::Active(cmd) => match cmd {
                ActiveCommand::List(_) => true,
                ActiveCommand::Delete { confirm, .. } => confirm.dry_run,
            },
            Command::Purge { confirm, .. } => confirm.dry_run,
            Command::Move(args) => args.confirm.dry_run,
            Command::Limit(args) => args.is_read_only(),
            Command::Enqueue(_)
            | Command::Consume(_)
            | Command::Import(_)
            | Command::Pause { .. } => false,
            Command::Resume { .. } => false,
        }
    }
}

#[derive(Debug, Args)]
pub struct EnqueueArgs {
    /// The queue's name (the prefix of its Redis keys).
    #[arg(value_parser = parse_queue)]
    pub queue: String,

    /// The job's data (`-`: standard input).
    ///
    /// `-` reads standard input. Without DATA or --file, standard input is read when it is not
    /// a terminal. Data that starts with `-` goes after `--`.
    #[arg(value_name = "DATA")]
    pub data: Option<std::ffi::OsString>,

    /// Read the job's data (or the jobs) from this file.
    ///
    /// With --lines or --jsonl, the jobs.
    #[arg(long, value_name = "PATH", conflicts_with = "data")]
    pub file: Option<PathBuf>,

    /// The job's id [default: a new UUID v4].
    ///
    /// When the id is taken nothing changes and qctl exits with code 5.
    #[arg(long, value_name = "ID", conflicts_with_all = ["lines", "jsonl"])]
    pub id: Option<String>,

    /// Run the job after this delay: 90s, 10m, 2h, 3d, 1h30m.
    #[arg(long = "in", value_name = "DUR", value_parser = parse_duration, conflicts_with = "at")]
    pub delay: Option<Duration>,

    /// Run the job at this time (RFC 3339, unix seconds).
    ///
    /// RFC 3339 (2026-01-02T15:04:05Z) or unix seconds. A time in the past runs at once.
    #[arg(long, value_name = "TIME", value_parser = parse_time)]
    pub at: Option<f64>,

    /// Every input line is the data of one job.
    ///
    /// Without its newline; a \r before it, as in a CRLF file, goes too unless --keep-cr.
    #[arg(long, conflicts_with = "jsonl")]
    pub lines: bool,

    /// With --lines, keep a \r that ends a line.
    ///
    /// As part of the job's data.
    #[arg(long, requires = "lines")]
    pub keep_cr: bool,

    /// Every input line is a job as a JSON object.
    ///
    /// {"id"?, "data" | "data_b64", "at"?, "attempt"?}.
    #[arg(long)]
    pub jsonl: bool,
}

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The queue's name.
    #[arg(value_parser = parse_queue)]
    pub queue: String,

    /// Export only jobs in this state (repeat for more).
    ///
    /// ready, scheduled, retrying, dead, in_flight [default: every state].
    #[arg(long = "state", value_name = "STATE", value_parser = parse_state)]
    pub states: Vec<crate::engine::transfer::State>,
}

#[derive(Debug, Args)]
pub struct WaitArgs {
    /// The queue's name.
    #[arg(value_parser = parse_queue)]
    pub queue: String,

    /// Wait for these jobs only, until each has ended: done, dead, or gone.
    #[arg(value_name = "ID")]
    pub ids: Vec<String>,

    /// Also wait for the jobs scheduled for later.
    ///
    /// Delayed jobs: until NAME:scheduled is empty. Without it, only retries and due jobs are
    /// waited for.
    #[arg(long, conflicts_with = "ids")]
    pub scheduled: bool,

    /// Give up after this long (exit 124).
    ///
    /// Exit 124 (as timeout(1)), saying what is still pending.
    #[arg(long, value_name = "DUR", value_parser = parse_duration)]
    pub timeout: Option<Duration>,
}

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The queue to import into (it may have another name than the exported one).
    #[arg(value_parser = parse_queue)]
    pub queue: String,

    /// Read the lines from this file.
    ///
    /// Instead of standard input.
    #[arg(long, value_name = "PATH")]
    pub file: Option<PathBuf>,

    /// Replace jobs whose ids the queue has.
    ///
    /// From wherever they are (never one in flight there), instead of skipping them.
    #[arg(long)]
    pub replace: bool,

    /// Schedule jobs that were in flight this long ahead.
    ///
    /// This long from now, instead of making them ready (their consumer may still be running
    /// them where they came from).
    #[arg(long, value_name = "DUR", value_parser = parse_duration)]
    pub in_flight_delay: Option<Duration>,
}

#[derive(Debug, Args)]
pub struct MoveArgs {
    /// The queue to move (on the server of the global options).
    #[arg(value_parser = parse_queue)]
    pub source: String,

    /// The name it gets where it goes.
    ///
    /// With --to-cluster it needs a hash tag, as in {mail}.
    #[arg(value_parser = parse_queue)]
    pub destination: String,

    /// The destination's Redis URL.
    ///
    /// As --redis; without it, the source's server.
    #[arg(
        long,
        value_name = "URL",
        env = "QCTL_TO_REDIS_URL",
        hide_env_values = true
    )]
    pub to: Option<String>,

    /// The destination's ACL user name (overrides a user in --to). Its password comes from
    /// $QCTL_TO_REDIS_PASSWORD or --to-password-file.
    #[arg(
        long,
        hide_short_help = true,
        value_name = "NAME",
        requires = "to",
        env = "QCTL_TO_REDIS_USER",
        hide_env_values = true
    )]
    pub to_user: Option<String>,

    /// Read the destination's password from FILE (its first line).
    #[arg(
        long,
        hide_short_help = true,
        value_name = "FILE",
        requires = "to",
        env = "QCTL_TO_REDIS_PASSWORD_FILE",
        hide_env_values = true
    )]
    pub to_password_file: Option<PathBuf>,

    /// Verify the destination with this CA certificate (PEM).
    #[arg(long, hide_short_help = true, value_name = "FILE", requires = "to")]
    pub to_tls_ca_cert: Option<PathBuf>,

    /// Client certificate (PEM) for the destination; needs --to-tls-key.
    #[arg(long, hide_short_help = true, value_name = "FILE", requires_all = ["to", "to_tls_key"])]
    pub to_tls_cert: Option<PathBuf>,

    /// The destination's client certificate key (PEM); needs --to-tls-cert.
    #[arg(long, hide_short_help = true, value_name = "FILE", requires_all = ["to", "to_tls_cert"])]
    pub to_tls_key: Option<PathBuf>,

    /// Do not verify the destination's TLS certificate (a warning says so).
    #[arg(long, hide_short_help = true, requires = "to")]
    pub to_tls_insecure: bool,

    /// --to names a node of a Redis Cluster (the destination name needs a hash tag).
    #[arg(long, hide_short_help = true, requires = "to")]
    pub to_cluster: bool,

    /// Also take the jobs in flight at the source.
    ///
    /// The jobs in flight at the source's consumers. A job whose handler is still running
    /// there then runs at the destination too: the only way a move runs a job twice.
    #[arg(long)]
    pub take_in_flight: bool,

    /// Wait this long for jobs in flight there.
    ///
    /// How long to wait for the jobs in flight at the source to finish (or come back to be
    /// moved) before stopping with exit 7.
    #[arg(long, value_name = "DUR", default_value = "1m", value_parser = parse_duration)]
    pub wait: Duration,

    #[command(flatten)]
    pub confirm: ConfirmArgs,
}

#[derive(Debug, Args)]
pub struct LimitArgs {
    /// The queue's name.
    #[arg(value_parser = parse_queue)]
    pub queue: String,

    /// Jobs started per interval, by all consumers: 100/s.
    ///
    /// Start at most this many of the queue's jobs per interval, across all qctl consumers:
    /// 100/s, 30/m, 500/h.
    #[arg(long, value_name = "RATE", value_parser = parse_job_rate, conflicts_with = "no_rate")]
    pub rate: Option<crate::engine::limits::Rate>,

    /// Jobs the rate lets start at once [default: 1].
    ///
    /// How many jobs the rate lets start at once after a quiet spell.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=100_000))]
    pub burst: Option<u64>,

    /// Jobs running at once, across all consumers.
    ///
    /// Run at most this many of the queue's jobs at once, across all qctl consumers.
    #[arg(long, value_name = "N", conflicts_with = "no_max_running")]
    pub max_running: Option<u64>,

    /// Remove the rate (and its burst).
    #[arg(long)]
    pub no_rate: bool,

    /// Remove the cap on running jobs.
    #[arg(long)]
    pub no_max_running: bool,

    /// Remove every limit.
    #[arg(long, conflicts_with_all = ["rate", "burst", "max_running", "no_rate", "no_max_running"])]
    pub clear: bool,

    /// Heartbeat age that counts as gone.
    ///
    /// A consumer whose heartbeat is older than this counts as gone (what the cap counts).
    #[arg(long, value_name = "DUR", default_value = "2m", value_parser = parse_positive_duration)]
    pub orphan_after: Duration,
}

#[derive(Debug, Args)]
pub struct ConsumeArgs {
    /// The queue's name (or --queue NAME); several: the first first.
    ///
    /// Or give it with --queue, e.g. when it starts with '-'. Several queues are taken from
    /// in the order given: a job of an earlier queue always starts before one of a later
    /// queue while the earlier one has work, unless --weights shares the starts.
    #[arg(value_name = "QUEUE", required_unless_present = "queue_name", value_parser = parse_queue)]
    pub queue: Vec<String>,

    /// With several queues: share the starts by weight (6,3,1) rather than strictly in order.
    ///
    /// One whole weight per queue, in their order: while several have work, each gets its
    /// share of the starts, so a busy first queue never starves the others.
    #[arg(long, value_name = "W,W...", value_delimiter = ',', value_parser = clap::value_parser!(u32).range(1..))]
    pub weights: Option<Vec<u32>>,

    /// The queue's name, for names that start with '-' (`--queue=-jobs`).
    #[arg(
        long = "queue",
        hide_short_help = true,
        value_name = "NAME",
        allow_hyphen_values = true,
        value_parser = parse_queue
    )]
    pub queue_name: Option<String>,

    /// How many handlers run at once [default: CPUs].
    ///
    /// The default is the number of CPUs.
    #[arg(short = 'c', long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub concurrency: Option<u32>,

    /// How many reserved jobs may wait locally for a free handler [default: about 20 ms of
    /// work, measured as jobs run: --concurrency at least, 1000 at most].
    #[arg(long, hide_short_help = true, value_name = "N", value_parser = clap::value_parser!(u32).range(0..=1000))]
    pub buffer: Option<u32>,

    /// Stop a handler that runs longer than this.
    ///
    /// SIGTERM to its process group, then SIGKILL after --kill-after; the run counts as
    /// failed with reason "timeout".
    #[arg(long, value_name = "DUR", value_parser = parse_positive_duration)]
    pub timeout: Option<Duration>,

    /// Time between SIGTERM and SIGKILL when a handler is stopped.
    #[arg(long, hide_short_help = true, value_name = "DUR", default_value = "5s", value_parser = parse_duration)]
    pub kill_after: Duration,

    /// Retries before a job goes dead [default: 20; with --drain: 2].
    ///
    /// Retries after the first failure (0: none); a job runs at most this + 1 times, then goes dead.
    #[arg(long, value_name = "N", value_parser = parse_count)]
    pub max_retries: Option<i64>,

    /// The longest wait before a retry [default: 7d; with --drain: 10s].
    ///
    /// The wait doubles with each failure, up to this.
    #[arg(long, value_name = "DUR", value_parser = parse_duration)]
    pub max_backoff: Option<Duration>,

    /// How often this consumer renews its heartbeat.
    #[arg(long, hide_short_help = true, value_name = "DUR", default_value = "15s", value_parser = parse_positive_duration)]
    pub heartbeat: Duration,

    /// Another consumer whose heartbeat is older than this is dead and its jobs are
    /// recovered. Keep it at 2m or more beside Go CurlyQ consumers (they beat every 60s).
    #[arg(long, hide_short_help = true, value_name = "DUR", default_value = "2m", value_parser = parse_positive_duration)]
    pub orphan_after: Duration,

    /// The longest an idle consumer waits for a wake-up before it looks again.
    #[arg(long, hide_short_help = true, value_name = "DUR", default_value = "5s", value_parser = parse_positive_duration)]
    pub poll_interval: Duration,

    /// On SIGINT/SIGTERM, how long running handlers may finish before they are stopped
    /// and their jobs returned to the queue.
    #[arg(long, hide_short_help = true, value_name = "DUR", default_value = "30s", value_parser = parse_duration)]
    pub shutdown_grace: Duration,

    /// Run every job that can run, then exit.
    ///
    /// It exits when nothing is ready, nothing runs here or at other consumers, and no retry of a job that failed here is pending (it waits for
    /// them). Exit 0 when every job ended done, 7 when some ended dead, 8 when the queue is
    /// paused with jobs ready (qctl help exit-codes). Unless given, --max-retries is 2 and
    /// --max-backoff 10s, so that a job that keeps failing ends dead within seconds (3 runs,
    /// at most 3s of waits between them) rather than days.
    #[arg(long)]
    pub drain: bool,

    /// With --drain: also run jobs scheduled for later.
    ///
    /// It waits for the jobs producers scheduled for later, and runs them.
    #[arg(long, requires = "drain")]
    pub wait_scheduled: bool,

    /// Exit after this many jobs.
    ///
    /// Exit code 7 if any job failed (with --drain: ended dead), 9 with --drain when it
    /// stopped with jobs left.
    #[arg(long, value_name = "N")]
    pub max_jobs: Option<u64>,

    /// Start at most this many jobs per interval: 20/s.
    ///
    /// Here, at this consumer: 20/s, 300/m, 1000/h. Starts are spread evenly (one every
    /// 1/rate) but for --burst; the queue's shared limits (qctl limit) apply as well.
    #[arg(long, value_name = "RATE", value_parser = parse_job_rate)]
    pub rate: Option<crate::engine::limits::Rate>,

    /// With --rate: how many may start at once.
    ///
    /// How many jobs may start at once after a quiet spell.
    #[arg(long, value_name = "N", default_value_t = 1, requires = "rate",
        value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub burst: u32,

    /// Replace STR in ARGS by the job's data (xargs -I).
    ///
    /// Like xargs -I; no shell is involved.
    #[arg(long, value_name = "STR")]
    pub replace: Option<String>,

    /// Put "[<job id>] " before every line a handler prints.
    #[arg(long)]
    pub prefix: bool,

    /// Feed jobs to long-lived handlers (qctl help pipe).
    ///
    /// Keep --concurrency long-lived copies of CMD and feed them jobs as JSON lines on stdin;
    /// each answers one JSON line per job on stdout (qctl help pipe).
    #[arg(long, conflicts_with_all = ["replace", "prefix"])]
    pub pipe: bool,

    /// With --pipe: how many jobs may be outstanding per handler (answers matched by id)
    /// [default: automatic, per handler: from 1, doubling up to 64 while it answers within
    /// 5 ms a job, halving when an answer takes over 100 ms].
    #[arg(long, hide_short_help = true, value_name = "N", requires = "pipe", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub pipe_depth: Option<u32>,

    /// The command to run for each job, and its arguments (after --).
    #[arg(required = true, last = true, value_name = "CMD")]
    pub command: Vec<std::ffi::OsString>,
}

#[derive(Debug, Args)]
pub struct StatsArgs {
    /// Queues to count [default: every queue found].
    #[arg(value_parser = parse_queue)]
    pub queues: Vec<String>,
    /// Redraw every DUR (default 2s) with rates.
    ///
    /// Until Ctrl-C.
    #[arg(long, value_name = "DUR", num_args = 0..=1, default_missing_value = "2s", value_parser = parse_positive_duration)]
    pub watch: Option<Duration>,
    /// Heartbeat age that counts as expired.
    ///
    /// A consumer whose heartbeat is older than this counts as expired.
    #[arg(long, value_name = "DUR", default_value = "2m", value_parser = parse_positive_duration)]
    pub orphan_after: Duration,
    /// Scan at most N keys for queues.
    ///
    /// Stop discovering queues after scanning this many keys.
    #[arg(long, value_name = "N", default_value_t = 10_000_000)]
    pub max_keys: u64,
    /// Print the counts in the Prometheus text format.
    ///
    /// As `qctl metrics` serves them.
    #[arg(long, conflicts_with = "watch")]
    pub prometheus: bool,
    /// Show what consumers did over the last DUR.
    ///
    /// What qctl consumers did, step by step: jobs done, failed, retried and dead, and
    /// run-time percentiles (kept for 7 days).
    #[arg(long, value_name = "DUR", value_parser = parse_positive_duration, conflicts_with_all = ["watch", "prometheus"])]
    pub history: Option<Duration>,
    /// The step of --history, in whole minutes.
    ///
    /// The length of one step [default: the step that shows DUR in at most 24 rows].
    #[arg(long, value_name = "DUR", requires = "history", value_parser = parse_minutes)]
    pub step: Option<Duration>,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Queues to check [default: every queue found].
    #[arg(value_parser = parse_queue)]
    pub queues: Vec<String>,
    /// CRITICAL when a queue has more than N dead jobs.
    #[arg(long, value_name = "N", help_heading = "Thresholds")]
    pub dead_max: Option<u64>,
    /// WARNING when a queue has more than N dead jobs.
    #[arg(long, value_name = "N", help_heading = "Thresholds")]
    pub warn_dead: Option<u64>,
    /// CRITICAL when more than N jobs are ready to run.
    ///
    /// Ready to run: active and due scheduled.
    #[arg(long, value_name = "N", help_heading = "Thresholds")]
    pub ready_max: Option<u64>,
    /// WARNING when more than N jobs are ready to run.
    #[arg(long, value_name = "N", help_heading = "Thresholds")]
    pub warn_ready: Option<u64>,
    /// CRITICAL when a due job waited longer than DUR.
    ///
    /// A due scheduled job that waited longer than DUR to be moved to active: no consumer
    /// promotes them.
    #[arg(long, value_name = "DUR", value_parser = parse_duration, help_heading = "Thresholds")]
    pub overdue_max: Option<Duration>,
    /// WARNING when a due job waited longer than DUR.
    #[arg(long, value_name = "DUR", value_parser = parse_duration, help_heading = "Thresholds")]
    pub warn_overdue: Option<Duration>,
    /// CRITICAL when fewer than N consumers are alive.
    #[arg(long, value_name = "N", help_heading = "Thresholds")]
    pub min_consumers: Option<u64>,
    /// WARNING when fewer than N consumers are alive.
    #[arg(long, value_name = "N", help_heading = "Thresholds")]
    pub warn_min_consumers: Option<u64>,
    /// CRITICAL when over R of the runs failed.
    ///
    /// When more than R (0 to 1) of the runs of qctl consumers failed within --window (from
    /// the history qctl consumers keep).
    #[arg(long, value_name = "R", value_parser = parse_rate, help_heading = "Thresholds")]
    pub failure_rate_max: Option<f64>,
    /// WARNING when over R of the runs failed.
    ///
    /// When more than R (0 to 1) of the runs failed within --window.
    #[arg(long, value_name = "R", value_parser = parse_rate, help_heading = "Thresholds")]
    pub warn_failure_rate: Option<f64>,
    /// The span of the failure rate.
    ///
    /// The span the failure rate is measured over, in whole minutes; at most the 7 days of
    /// history kept.
    #[arg(long, value_name = "DUR", default_value = "15m", value_parser = parse_minutes, help_heading = "Thresholds")]
    pub window: Duration,
    /// CRITICAL when a consumer's heartbeat is stale.
    ///
    /// Older than --orphan-after: it died and its jobs wait for `qctl orphans` or another
    /// consumer.
    #[arg(long, help_heading = "Thresholds")]
    pub stale_consumers: bool,
    /// WARNING when a consumer's heartbeat is stale.
    ///
    /// Older than --orphan-after.
    #[arg(long, conflicts_with = "stale_consumers", help_heading = "Thresholds")]
    pub warn_stale_consumers: bool,
    /// Heartbeat age that counts as expired.
    ///
    /// A consumer whose heartbeat is older than this counts as expired.
    #[arg(long, value_name = "DUR", default_value = "2m", value_parser = parse_positive_duration)]
    pub orphan_after: Duration,
    /// Scan at most N keys for queues.
    ///
    /// Stop discovering queues after scanning this many keys.
    #[arg(long, value_name = "N", default_value_t = 10_000_000)]
    pub max_keys: u64,
}

/// Parses a fraction from 0 to 1 (`0.05`), or a percentage (`5%`).
pub fn parse_rate(s: &str) -> Result<f64, String> {
    let s = s.trim();
    let (number, scale) = match s.strip_suffix('%') {
        Some(p) => (p, 100.0),
        None => (s, 1.0),
    };
    match number.trim().parse::<f64>() {
        Ok(v) if (0.0..=1.0).contains(&(v / scale)) => Ok(v / scale),
        _ => Err("expected a fraction from 0 to 1 (0.05) or a percentage (5%)".into()),
    }
}

#[derive(Debug, Args)]
pub struct MetricsArgs {
    /// Queues to count [default: every queue found].
    #[arg(value_parser = parse_queue)]
    pub queues: Vec<String>,
    /// The address to serve on.
    ///
    /// Port 0: any free port, printed at start.
    #[arg(long, value_name = "HOST:PORT", default_value = "127.0.0.1:9187")]
    pub listen: std::net::SocketAddr,
    /// Read Redis at most once per DUR.
    ///
    /// Scrapes in between get the last reading.
    #[arg(long, value_name = "DUR", default_value = "5s", value_parser = parse_positive_duration)]
    pub min_interval: Duration,
    /// Heartbeat age that counts as expired.
    ///
    /// A consumer whose heartbeat is older than this counts as expired.
    #[arg(long, value_name = "DUR", default_value = "2m", value_parser = parse_positive_duration)]
    pub orphan_after: Duration,
    /// Scan at most N keys for queues.
    ///
    /// Stop discovering queues after scanning this many keys.
    #[arg(long, value_name = "N", default_value_t = 10_000_000)]
    pub max_keys: u64,
    /// Serve a queue named that has no key on the server (yet), with counts of 0 until it
    /// appears. Without it, such a name (mistyped?) is refused at start with exit 5.
    #[arg(long)]
    pub allow_missing: bool,
}

#[derive(Debug, Args)]
pub struct TopArgs {
    /// Refresh every DUR.
    #[arg(long, value_name = "DUR", default_value = "2s", value_parser = parse_positive_duration)]
    pub interval: Duration,
    /// Heartbeat age that counts as expired.
    ///
    /// A consumer whose heartbeat is older than this counts as expired.
    #[arg(long, value_name = "DUR", default_value = "2m", value_parser = parse_positive_duration)]
    pub orphan_after: Duration,
    /// Scan at most N keys for queues.
    ///
    /// Stop discovering queues after scanning this many keys.
    #[arg(long, value_name = "N", default_value_t = 10_000_000)]
    pub max_keys: u64,
}

#[derive(Debug, Args)]
pub struct WebArgs {
    /// Queues to show [default: every queue found].
    #[arg(value_parser = parse_queue)]
    pub queues: Vec<String>,
    /// The address to serve on.
    ///
    /// Port 0: any free port; the URL is printed once it listens. An address other than
    /// loopback needs a password or --no-auth.
    #[arg(long, value_name = "HOST:PORT", default_value = "127.0.0.1:9188")]
    pub listen: std::net::SocketAddr,
    /// Read Redis every DUR.
    ///
    /// One reading per DUR, shared by every open page; pages ask for the latest as often.
    /// After 3 DUR without a request it reads nothing until the next one.
    #[arg(long, value_name = "DUR", default_value = "2s", value_parser = parse_positive_duration)]
    pub interval: Duration,
    /// The page's password: FILE's first line.
    ///
    /// Browsers then ask for it (HTTP basic auth; the user name is not checked). Also:
    /// $QCTL_WEB_PASSWORD. Not --password-file, which is Redis's password.
    #[arg(
        long,
        value_name = "FILE",
        env = "QCTL_WEB_PASSWORD_FILE",
        hide_env_values = true
    )]
    pub web_password_file: Option<PathBuf>,
    /// Serve without a password on an address other than loopback.
    ///
    /// Anyone who reaches the address sees the queues; a warning says so at every start.
    #[arg(long)]
    pub no_auth: bool,
    /// Also answer requests for host NAME (repeatable).
    ///
    /// Requests name the host they are for; those for any other name are refused (421),
    /// so that a web page cannot reach this one through a DNS name it controls. The
    /// address served on is always allowed (and localhost on loopback). Give the name a
    /// reverse proxy passes on; NAME:PORT allows that port only.
    #[arg(long, value_name = "NAME")]
    pub allowed_host: Vec<String>,
    /// Serve HTTPS with this certificate chain (PEM); needs --https-key.
    #[arg(
        long,
        value_name = "FILE",
        requires = "https_key",
        hide_short_help = true
    )]
    pub https_cert: Option<PathBuf>,
    /// The private key (PEM) of --https-cert.
    #[arg(
        long,
        value_name = "FILE",
        requires = "https_cert",
        hide_short_help = true
    )]
    pub https_key: Option<PathBuf>,
    /// Heartbeat age that counts as expired.
    ///
    /// A consumer whose heartbeat is older than this counts as expired.
    #[arg(long, value_name = "DUR", default_value = "2m", value_parser = parse_positive_duration, hide_short_help = true)]
    pub orphan_after: Duration,
    /// Scan at most N keys for queues.
    ///
    /// Stop discovering queues after scanning this many keys.
    #[arg(
        long,
        value_name = "N",
        default_value_t = 10_000_000,
        hide_short_help = true
    )]
    pub max_keys: u64,
    /// Show a queue named that has no key on the server (yet), with counts of 0 until it
    /// appears. Without it, such a name (mistyped?) is refused at start with exit 5.
    #[arg(long, hide_short_help = true)]
    pub allow_missing: bool,
    /// Refuse every change (403) and show no form.
    ///
    /// Without it, the queue's page can pause and resume it, from a form posted by the page
    /// itself (another site's cannot: see docs/web.md).
    #[arg(long, hide_short_help = true)]
    pub read_only: bool,
}

/// Which jobs of a listing to show or touch.
#[derive(Debug, Args, Clone, Default)]
pub struct FilterArgs {
    /// Only jobs whose data contains TEXT.
    ///
    /// Exactly, as bytes. The recorded failure is searched with --reason.
    #[arg(long, value_name = "TEXT")]
    pub grep: Option<String>,
    /// Only jobs whose failure mentions TEXT.
    ///
    /// Whose recorded failure contains TEXT in its reason or in the tail of its stderr,
    /// ignoring case. A job without a failure record (one a Go CurlyQ consumer
    /// moved) never matches: select those with --group none.
    #[arg(long, value_name = "TEXT")]
    pub reason: Option<String>,
    /// Only jobs of one failure group.
    ///
    /// A fingerprint that `dead groups` or `scheduled groups` prints, or `none` for jobs
    /// without a failure record.
    #[arg(long, value_name = "FP", value_parser = parse_group)]
    pub group: Option<String>,
    /// Only jobs at or after TIME (2h: two hours ago).
    ///
    /// Dead at or after it, or due at or after it: RFC 3339, unix seconds, an age such as 2h
    /// for two hours ago, or +2h for two hours from now.
    #[arg(long, value_name = "TIME", value_parser = parse_time_or_age)]
    pub since: Option<f64>,
    /// Only jobs at or before TIME (as --since).
    ///
    /// `scheduled list Q --until +2h` lists what is due within two hours.
    #[arg(long, value_name = "TIME", value_parser = parse_time_or_age)]
    pub until: Option<f64>,
    /// Only jobs that failed at least N times.
    #[arg(long, value_name = "N", value_parser = parse_count)]
    pub min_attempts: Option<i64>,
}

#[derive(Debug, Args)]
pub struct ListArgs {
    /// The queue's name.
    #[arg(value_parser = parse_queue)]
    pub queue: String,
    /// How many jobs to show (0: every one).
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub limit: usize,
    /// Skip this many jobs.
    ///
    /// The next page's offset is printed.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub offset: u64,
    #[command(flatten)]
    pub filter: FilterArgs,
    /// One JSON object per line, with full data.
    #[arg(long)]
    pub jsonl: bool,
}

#[derive(Debug, Args)]
pub struct TailArgs {
    /// The queues' names.
    #[arg(required = true, value_parser = parse_queue)]
    pub queues: Vec<String>,
    /// Start with what happened since TIME (10m: ago).
    ///
    /// Start from the recent past: what happened since TIME (RFC 3339, unix seconds, or an
    /// age such as 10m) to dead jobs and retries is shown first.
    #[arg(long, value_name = "TIME", value_parser = parse_time_or_age)]
    pub since: Option<f64>,
    /// Only failures: jobs dead and retries scheduled.
    #[arg(long)]
    pub failures: bool,
    /// Print what happened and exit; do not follow.
    ///
    /// What happened since --since.
    #[arg(long)]
    pub no_follow: bool,
    /// Print the counts every DUR.
    ///
    /// A line with each queue's counts.
    #[arg(long, value_name = "DUR", default_value = "10s", value_parser = parse_positive_duration)]
    pub interval: Duration,
    /// Look for changes every DUR.
    #[arg(long, value_name = "DUR", default_value = "1s", value_parser = parse_positive_duration)]
    pub poll: Duration,
    /// Heartbeat age that counts as expired.
    ///
    /// A consumer whose heartbeat is older than this counts as expired.
    #[arg(long, value_name = "DUR", default_value = "2m", value_parser = parse_positive_duration)]
    pub orphan_after: Duration,
}

#[derive(Debug, Args)]
pub struct FindArgs {
    /// The queue's name.
    #[arg(value_parser = parse_queue)]
    pub queue: String,
    /// The text to look for.
    #[arg(value_parser = parse_text)]
    pub text: String,
    /// Only in these places, comma-separated.
    ///
    /// A comma-separated list, or the option given again: `--in dead,scheduled`.
    #[arg(long = "in", value_name = "PLACES", value_enum, value_delimiter = ',')]
    pub places: Vec<FindPlace>,
    /// Stop after N jobs found (0: every one).
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub limit: usize,
    /// Stop after looking at N jobs (0: every one).
    ///
    /// The default, 1,000,000 jobs, is a few seconds of Redis's time; the last line says
    /// what was searched.
    #[arg(long, value_name = "N", default_value_t = 1_000_000)]
    pub max_scan: u64,
    /// One JSON object per line.
    #[arg(long)]
    pub jsonl: bool,
}

/// A place `find --in` names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FindPlace {
    Ready,
    Scheduled,
    Inflight,
    Dead,
}

#[derive(Debug, Args)]
pub struct ChangesArgs {
    /// The queue's name.
    #[arg(value_parser = parse_queue)]
    pub queue: String,
    /// Only changes made since TIME (10m: ago).
    ///
    /// RFC 3339, unix seconds, or an age such as 10m or 2d.
    #[arg(long, value_name = "TIME", value_parser = parse_time_or_age)]
    pub since: Option<f64>,
    /// Only changes made until TIME (10m: ago).
    ///
    /// RFC 3339, unix seconds, or an age such as 10m or 2d.
    #[arg(long, value_name = "TIME", value_parser = parse_time_or_age)]
    pub until: Option<f64>,
    /// How many of the newest changes to show (0: every one).
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub limit: usize,
    /// Print the ids of the jobs the change ENTRY touched, one a line.
    ///
    /// ENTRY is the first column of the listing. An entry keeps the first 1,000 ids of a
    /// change; what it did not keep is said on stderr.
    #[arg(long, value_name = "ENTRY")]
    pub ids: Option<String>,
}

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct ConsumersArgs {
    #[command(subcommand)]
    pub command: Option<ConsumersCommand>,
    /// The queue's name.
    #[arg(value_parser = parse_queue, required = true)]
    pub queue: Option<String>,
    /// Heartbeat age that counts as expired.
    ///
    /// A consumer whose heartbeat is older than this counts as expired.
    #[arg(long, value_name = "DUR", default_value = "2m", value_parser = parse_positive_duration)]
    pub orphan_after: Duration,
}

#[derive(Debug, Subcommand)]
pub enum ConsumersCommand {
    /// Quiet a consumer: no new jobs; running ones finish; it stays.
    ///
    /// It takes no new job, returns those it reserved and has not started, finishes the
    /// running ones and stays registered (`qctl consumers` shows it quiet): before a deploy.
    Quiet(SteerArgs),
    /// Stop a consumer cleanly, as SIGTERM does, from any host.
    ///
    /// Running jobs finish within its --shutdown-grace, the rest go back, and it exits 0.
    Stop(SteerArgs),
    /// Change how many jobs a consumer runs at once, while it runs.
    ///
    /// Lowering it lets running jobs finish: no new one starts until fewer run than asked.
    /// A --pipe consumer's handlers are not resized.
    Resize {
        #[command(flatten)]
        steer: SteerArgs,
        /// How many jobs it runs at once from now on.
        #[arg(short = 'c', long, value_name = "N", required = true, value_parser = clap::value_parser!(u32).range(1..))]
        concurrency: u32,
    },
}

#[derive(Debug, Args)]
pub struct SteerArgs {
    /// The consumer (what qctl consumers prints); with --all, a queue.
    ///
    /// The start of its id: what `qctl consumers` prints, or any prefix that names one
    /// consumer. With --all: the queue whose qctl consumers all get the order.
    #[arg(value_name = "ID|QUEUE")]
    pub target: String,
    /// Every qctl consumer of the queue given.
    #[arg(long)]
    pub all: bool,
    /// Look for the consumer in this queue only (else every queue is searched).
    #[arg(long, value_name = "QUEUE", value_parser = parse_queue, conflicts_with = "all")]
    pub queue: Option<String>,
    #[command(flatten)]
    pub confirm: ConfirmArgs,
}

#[derive(Debug, Args)]
pub struct CancelArgs {
    /// The queue's name.
    #[arg(value_parser = parse_queue)]
    pub queue: String,
    /// The ids of the running jobs to cancel.
    #[arg(value_name = "ID", required = true)]
    pub ids: Vec<String>,
    /// Run each job again at once (its attempt counted) rather than burying it.
    #[arg(long, conflicts_with = "dead")]
    pub retry: bool,
    /// Move each job to the dead set (the default).
    #[arg(long)]
    pub dead: bool,
    #[command(flatten)]
    pub confirm: ConfirmArgs,
}

#[derive(Debug, Args)]
pub struct InflightArgs {
    /// The queue's name.
    #[arg(value_parser = parse_queue)]
    pub queue: String,
    /// How many jobs to show (0: every one).
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub limit: usize,
    /// Skip this many jobs.
    ///
    /// The next page's offset is printed.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub offset: u64,
    /// One JSON object per line, with full data.
    #[arg(long)]
    pub jsonl: bool,
}

#[derive(Debug, Args)]
pub struct GroupsArgs {
    /// The queue's name.
    #[arg(value_parser = parse_queue)]
    pub queue: String,
    /// How many groups to show (0: all).
    ///
    /// The largest first; 0 shows every group.
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub limit: usize,
    /// Only jobs at or after TIME (2h: two hours ago).
    ///
    /// RFC 3339, unix seconds, or an age such as 2h.
    #[arg(long, value_name = "TIME", value_parser = parse_time_or_age)]
    pub since: Option<f64>,
    /// Only jobs at or before TIME (as --since).
    ///
    /// RFC 3339, unix seconds, or an age such as 2h.
    #[arg(long, value_name = "TIME", value_parser = parse_time_or_age)]
    pub until: Option<f64>,
}

#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// The queues to check; without any, only the server is checked.
    #[arg(value_name = "QUEUE", value_parser = parse_queue)]
    pub queues: Vec<String>,
    /// Repair what needs no guessing (asks first).
    ///
    /// Put records whose id is in no list or set back at the tail of NAME:active, and remove
    /// ids without a record from their keys. Each id is printed; asks first (--yes,
    /// --dry-run).
    #[arg(long)]
    pub fix: bool,
    #[command(flatten)]
    pub confirm: ConfirmArgs,
}

#[derive(Debug, Args, Clone)]
pub struct ConfirmArgs {
    /// Do it without asking.
    #[arg(short = 'y', long)]
    pub yes: bool,
    /// Show what would be done; change nothing.
    #[arg(long)]
    pub dry_run: bool,
}

#[derive(Debug, Args)]
pub struct BulkArgs {
    /// The queue's name.
    #[arg(value_parser = parse_queue)]
    pub queue: String,
    /// The jobs' ids.
    #[arg(value_name = "ID")]
    pub ids: Vec<String>,
    /// Every job (narrowed by the filters, if any).
    #[arg(long, conflicts_with = "ids")]
    pub all: bool,
    #[command(flatten)]
    pub filter: FilterArgs,
    #[command(flatten)]
    pub confirm: ConfirmArgs,
}

#[derive(Debug, Args)]
pub struct ShowArgs {
    /// The queue's name.
    #[arg(value_parser = parse_queue)]
    pub queue: String,
    /// The job's id.
    pub id: String,
    /// Write only the job's data bytes to standard output.
    #[arg(long)]
    pub raw: bool,
}

#[derive(Debug, Subcommand)]
pub enum DeadCommand {
    /// List dead jobs, newest first.
    List(ListArgs),
    /// Show one dead job: its record and why it failed.
    Show(ShowArgs),
    /// Move dead jobs back to the queue (Attempt reset to 0, failure cleared).
    Requeue {
        #[command(flatten)]
        bulk: BulkArgs,
        /// Keep each job's Attempt instead of resetting it.
        #[arg(long)]
        keep_attempts: bool,
    },
    /// Delete dead jobs with their records.
    Delete {
        #[command(flatten)]
        bulk: BulkArgs,
        /// Only jobs that died longer ago than this (e.g. 30d).
        #[arg(long, value_name = "DUR", value_parser = parse_duration)]
        older_than: Option<Duration>,
    },
    /// Write dead jobs as JSON lines that `qctl enqueue --jsonl` reads back.
    Export {
        /// The queue's name.
        #[arg(value_parser = parse_queue)]
        queue: String,
        #[command(flatten)]
        filter: FilterArgs,
    },
    /// Group dead jobs by the cause of their failure, largest group first.
    ///
    /// A group is the recorded reason and first stderr line with numbers, ids, addresses,
    /// paths and quoted text replaced by placeholders (exit codes, signals and status codes
    /// are kept). Its fingerprint selects its jobs in list, requeue, delete and export
    /// (--group FP). Jobs without a failure record form the group `none`.
    Groups(GroupsArgs),
}

#[derive(Debug, Subcommand)]
pub enum ScheduledCommand {
    /// List scheduled jobs, soonest first.
    List(ListArgs),
    /// Show one scheduled job.
    Show(ShowArgs),
    /// Make scheduled jobs ready now.
    RunNow(BulkArgs),
    /// Delete scheduled jobs with their records.
    Delete(BulkArgs),
    /// Group retries by the cause of their last failure, largest group first.
    ///
    /// Groups are formed as in `dead groups`; their fingerprints select their jobs in list,
    /// run-now and delete (--group FP). Jobs without a failure record (delayed jobs, and
    /// retries of Go CurlyQ consumers) form the group `none`.
    Groups(GroupsArgs),
}

#[derive(Debug, Subcommand)]
pub enum ActiveCommand {
    /// Show the jobs at the head of the queue (next to run first); reserves nothing.
    List(ListArgs),
    /// Delete ready jobs with their records.
    Delete {
        /// The queue's name.
        #[arg(value_parser = parse_queue)]
        queue: String,
        /// The jobs' ids.
        #[arg(value_name = "ID", required = true)]
        ids: Vec<String>,
        #[command(flatten)]
        confirm: ConfirmArgs,
    },
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum Shell {
    Bash,
    Zsh,
    Fish,
    Elvish,
    Powershell,
}

/// A text to look for: any text but the empty one, which every job holds.
pub fn parse_text(s: &str) -> Result<String, String> {
    if s.is_empty() {
        Err("the text is empty (every job holds it): give the text to look for".into())
    } else {
        Ok(s.to_string())
    }
}

/// A queue name: any text but the empty one (its keys would be `:active`, `:data`, ...).
pub fn parse_queue(s: &str) -> Result<String, String> {
    if s.is_empty() {
        Err("the queue name is empty".into())
    } else {
        Ok(s.to_string())
    }
}

/// A rate: jobs per interval.
pub fn parse_job_rate(s: &str) -> Result<crate::engine::limits::Rate, String> {
    crate::engine::limits::Rate::parse(s)
}

impl LimitArgs {
    /// Whether it only shows the limits.
    pub fn is_read_only(&self) -> bool {
        self.rate.is_none()
            && self.burst.is_none()
            && self.max_running.is_none()
            && !self.no_rate
            && !self.no_max_running
            && !self.clear
    }
}

/// A job state of an export.
pub fn parse_state(s: &str) -> Result<crate::engine::transfer::State, String> {
    use crate::engine::transfer::State;
    State::parse(s).ok_or_else(|| {
        let names: Vec<&str> = State::ALL.iter().map(|s| s.name()).collect();
        format!("no state {s:?}: one of {}", names.join(", "))
    })
}

/// Parses a duration that must be more than 0: an interval, a timeout, a heartbeat or a
/// cut-off, which at 0 would busy-loop or fail everything. clap names the flag in the error
/// and exits with 2. Durations where 0 means something (`--kill-after`, `--shutdown-grace`,
/// `--in`, `--older-than`, `--max-backoff`) use [`parse_duration`].
pub fn parse_positive_duration(s: &str) -> Result<Duration, String> {
    let d = parse_duration(s)?;
    if d.is_zero() {
        Err("must be more than 0".into())
    } else {
        Ok(d)
    }
}

/// Parses a duration of whole minutes, at least one: a step of the history, which is kept
/// per minute.
pub fn parse_minutes(s: &str) -> Result<Duration, String> {
    let d = parse_duration(s)?;
    if d.as_secs() < 60 || d.as_secs() % 60 != 0 || d.subsec_nanos() != 0 {
        Err("must be whole minutes, such as 1m, 5m or 1h (the history is kept per minute)".into())
    } else {
        Ok(d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_cli_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn durations_and_times_parse() {
        assert_eq!(parse_duration("90s").unwrap(), Duration::from_secs(90));
        assert_eq!(
            parse_duration("3d").unwrap(),
            Duration::from_secs(3 * 86400)
        );
        assert!(parse_duration("soon").is_err());
        assert_eq!(parse_duration("0s").unwrap(), Duration::ZERO);
        assert!(parse_positive_duration("0s").is_err());
        assert_eq!(parse_duration("10000y").unwrap(), LONGEST);
        assert!(parse_duration("10001y")
            .unwrap_err()
            .contains("10000 years"));
        assert!(parse_duration("18446744073709551615s").is_err());
        assert_eq!(parse_time_or_age("9999y").unwrap(), 0.0);
        assert_eq!(parse_time_or_age("+9999y").unwrap(), LATEST_TIME);
        assert!(parse_positive_duration("0ms").is_err());
        assert_eq!(
            parse_positive_duration("1ms").unwrap(),
            Duration::from_millis(1)
        );
        assert_eq!(parse_time("1700000000").unwrap(), 1_700_000_000.0);
        assert_eq!(parse_time("2023-11-14T22:13:20Z").unwrap(), 1_700_000_000.0);
        assert_eq!(
            parse_time("2023-11-14T23:13:20+01:00").unwrap(),
            1_700_000_000.0
        );
        assert!(parse_time("tomorrow").is_err());
        for bad in ["1e30", "-1", "inf", "NaN", "10000-01-01T00:00:00Z"] {
            assert!(parse_time(bad).is_err(), "{bad} accepted");
        }
    }
}
