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
        assert_eq!(parse_duration("3d").unwrap(), Duration::from_secs(3 * 86400));
        assert!(parse_duration("soon").is_err());
        assert_eq!(parse_time("1700000000").unwrap(), 1_700_000_000.0);
        assert_eq!(parse_time("2023-11-14T22:13:20Z").unwrap(), 1_700_000_000.0);
        assert_eq!(parse_time("2023-11-14T23:13:20+01:00").unwrap(), 1_700_000_000.0);
        assert!(parse_time("tomorrow").is_err());
    }
}
