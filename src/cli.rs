//! The command line, as clap derive definitions. Doc comments are the help text.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Operate and consume CurlyQ job queues in Redis.
///
/// qctl reads and writes queues in exactly the format of the Go library CurlyQ, so it can
/// work beside Go producers and consumers on the same queue.
#[derive(Debug, Parser)]
#[command(name = "qctl", version, propagate_version = true, max_term_width = 100)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Args)]
pub struct GlobalArgs {
    /// Redis URL: redis://[user:password@]host[:port][/db], or rediss:// for TLS.
    /// Falls back to $REDIS_URL, then redis://127.0.0.1:6379.
    #[arg(
        short = 'u',
        long = "redis",
        env = "QCTL_REDIS_URL",
        hide_env_values = true,
        global = true,
        value_name = "URL"
    )]
    pub redis: Option<String>,

    /// Print results as JSON.
    #[arg(long, global = true)]
    pub json: bool,

    /// Print only results: no progress, no summaries, no warnings.
    #[arg(short, long, global = true)]
    pub quiet: bool,

    /// Print more detail about what is being done (repeat for more).
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub verbose: u8,

    /// Never use colour (also: the NO_COLOR environment variable).
    #[arg(long, global = true)]
    pub no_color: bool,

    /// How long to wait for a connection to Redis.
    #[arg(long, global = true, value_name = "DUR", default_value = "5s", value_parser = parse_duration)]
    pub connect_timeout: Duration,

    /// How long to wait for Redis to answer a command.
    #[arg(long, global = true, value_name = "DUR", default_value = "10s", value_parser = parse_duration)]
    pub response_timeout: Duration,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Add jobs to a queue.
    ///
    /// One job from DATA, --file or standard input; or many with --lines or --jsonl.
    /// Prints the id of every job enqueued.
    Enqueue(EnqueueArgs),

    /// Run a command for every job of a queue: a CurlyQ-compatible consumer.
    ///
    /// CMD runs once per job with the job's data on its standard input; exit 0 acks the job,
    /// anything else fails it (retried with backoff, then moved to the dead set).
    Consume(ConsumeArgs),

    /// Look at and repair dead jobs (jobs that ran out of retries).
    #[command(subcommand)]
    Dead(DeadCommand),

    /// Print a shell completion script to standard output.
    Completions {
        /// The shell to complete for.
        shell: Shell,
    },
}

#[derive(Debug, Args)]
pub struct EnqueueArgs {
    /// The queue's name (the prefix of its Redis keys).
    pub queue: String,

    /// The job's data; `-` reads standard input. Without DATA or --file, standard input is
    /// read when it is not a terminal.
    #[arg(value_name = "DATA", allow_hyphen_values = true)]
    pub data: Option<std::ffi::OsString>,

    /// Read the job's data (or, with --lines/--jsonl, the jobs) from this file.
    #[arg(long, value_name = "PATH", conflicts_with = "data")]
    pub file: Option<PathBuf>,

    /// The job's id (default: a new UUID v4). When the id is taken nothing changes and qctl
    /// exits with code 5.
    #[arg(long, value_name = "ID", conflicts_with_all = ["lines", "jsonl"])]
    pub id: Option<String>,

    /// Run the job after this delay: 90s, 10m, 2h, 3d, 1h30m.
    #[arg(long = "in", value_name = "DUR", value_parser = parse_duration, conflicts_with = "at")]
    pub delay: Option<Duration>,

    /// Run the job at this time: RFC 3339 (2026-01-02T15:04:05Z) or unix seconds.
    /// A time in the past runs at once.
    #[arg(long, value_name = "TIME", value_parser = parse_time)]
    pub at: Option<f64>,

    /// Every input line is the data of one job (without its newline).
    #[arg(long, conflicts_with = "jsonl")]
    pub lines: bool,

    /// Every input line is a JSON object {"id"?, "data" | "data_b64", "at"?, "attempt"?}.
    #[arg(long)]
    pub jsonl: bool,
}

#[derive(Debug, Args)]
pub struct ConsumeArgs {
    /// The queue's name.
    pub queue: String,

    /// How many handlers run at once [default: the number of CPUs].
    #[arg(short = 'c', long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub concurrency: Option<u32>,

    /// How many reserved jobs may wait locally for a free handler [default: --concurrency].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(0..=1000))]
    pub buffer: Option<u32>,

    /// Stop a handler that runs longer than this (SIGTERM to its process group, then SIGKILL
    /// after --kill-after); the run counts as failed with reason "timeout".
    #[arg(long, value_name = "DUR", value_parser = parse_duration)]
    pub timeout: Option<Duration>,

    /// Time between SIGTERM and SIGKILL when a handler is stopped.
    #[arg(long, value_name = "DUR", default_value = "5s", value_parser = parse_duration)]
    pub kill_after: Duration,

    /// Retries after the first failure; a job runs at most this + 1 times, then goes dead.
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub max_retries: i64,

    /// The longest wait before a retry (the wait doubles with each failure).
    #[arg(long, value_name = "DUR", default_value = "7d", value_parser = parse_duration)]
    pub max_backoff: Duration,

    /// How often this consumer renews its heartbeat.
    #[arg(long, value_name = "DUR", default_value = "15s", value_parser = parse_duration)]
    pub heartbeat: Duration,

    /// Another consumer whose heartbeat is older than this is dead and its jobs are
    /// recovered. Keep it at 2m or more beside Go CurlyQ consumers (they beat every 60s).
    #[arg(long, value_name = "DUR", default_value = "2m", value_parser = parse_duration)]
    pub orphan_after: Duration,

    /// The longest an idle consumer waits for a wake-up before it looks again.
    #[arg(long, value_name = "DUR", default_value = "5s", value_parser = parse_duration)]
    pub poll_interval: Duration,

    /// On SIGINT/SIGTERM, how long running handlers may finish before they are stopped
    /// and their jobs returned to the queue.
    #[arg(long, value_name = "DUR", default_value = "30s", value_parser = parse_duration)]
    pub shutdown_grace: Duration,

    /// Exit when nothing is ready and nothing is running; exit code 7 if any job failed.
    #[arg(long)]
    pub drain: bool,

    /// Exit after this many jobs; exit code 7 if any job failed.
    #[arg(long, value_name = "N")]
    pub max_jobs: Option<u64>,

    /// Replace STR in ARGS by the job's data (like xargs -I); no shell is involved.
    #[arg(long, value_name = "STR")]
    pub replace: Option<String>,

    /// Put "[<job id>] " before every line a handler prints.
    #[arg(long)]
    pub prefix: bool,

    /// The command to run for each job, and its arguments (after --).
    #[arg(required = true, last = true, value_name = "CMD")]
    pub command: Vec<std::ffi::OsString>,
}

#[derive(Debug, Subcommand)]
pub enum DeadCommand {
    /// Show one dead job: its record and why it failed.
    Show {
        /// The queue's name.
        queue: String,
        /// The job's id.
        id: String,
        /// Write only the job's data bytes to standard output.
        #[arg(long)]
        raw: bool,
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

/// Parses a duration such as `90s`, `10m`, `2h`, `3d`, `1h30m` or `500ms`.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    humantime::parse_duration(s.trim())
        .map_err(|e| format!("{e} (expected a duration such as 90s, 10m, 2h or 3d)"))
}

/// Parses a point in time: RFC 3339 or unix seconds (fractions allowed). Returns unix seconds.
pub fn parse_time(s: &str) -> Result<f64, String> {
    let s = s.trim();
    if let Ok(secs) = s.parse::<f64>() {
        if secs.is_finite() {
            return Ok(secs);
        }
    }
    chrono::DateTime::parse_from_rfc3339(s)
        .map(|t| t.timestamp() as f64 + f64::from(t.timestamp_subsec_millis()) / 1e3)
        .map_err(|e| {
            format!("{e} (expected RFC 3339 such as 2026-01-02T15:04:05Z, or unix seconds)")
        })
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
        assert_eq!(parse_time("1700000000").unwrap(), 1_700_000_000.0);
        assert_eq!(parse_time("2023-11-14T22:13:20Z").unwrap(), 1_700_000_000.0);
        assert_eq!(
            parse_time("2023-11-14T23:13:20+01:00").unwrap(),
            1_700_000_000.0
        );
        assert!(parse_time("tomorrow").is_err());
    }
}
