//! One file per subcommand: read the flags, call the engine, render the result.

mod active;
mod cancel;
mod changes;
mod check;
mod completions;
mod consume;
pub(crate) mod consumers;
mod dead;
mod doctor;
mod enqueue;
mod export;
mod find;
mod groups;
pub(crate) mod help;
mod history;
mod import;
mod inflight;
mod limit;
mod listing;
mod man;
mod metrics;
mod r#move;
mod orphans;
mod pause;
mod purge;
mod scheduled;
mod stats;
mod steer;
mod tail;
mod top;
mod wait;
mod web;

use crate::cli::{Cli, Command, GlobalArgs};
use crate::engine::conn::{Access, Secret};
use crate::engine::{Error, ExitCode, QueueKeys, ServerSpec};
use crate::output::Output;

/// The default server when neither --redis, $QCTL_REDIS_URL nor $REDIS_URL says otherwise.
pub const DEFAULT_URL: &str = "redis://127.0.0.1:6379";

/// What every command gets: the output and where Redis is.
pub struct Context {
    pub out: Output,
    pub global: GlobalArgs,
}

impl Context {
    /// The server from --redis / $QCTL_REDIS_URL, then $REDIS_URL, then the default, with
    /// the user, password, TLS and cluster options applied.
    pub fn server(&self) -> anyhow::Result<ServerSpec> {
        let g = &self.global;
        let url = g
            .redis
            .clone()
            .or_else(|| std::env::var("REDIS_URL").ok().filter(|u| !u.is_empty()))
            .unwrap_or_else(|| DEFAULT_URL.to_string());
        let access = Access {
            user: g.user.clone(),
            password: password_file(g.password_file.as_deref())?,
            default_password: env_password("QCTL_REDIS_PASSWORD"),
            tls_ca_cert: g.tls_ca_cert.clone(),
            tls_cert: g.tls_cert.clone(),
            tls_key: g.tls_key.clone(),
            tls_insecure: g.tls_insecure,
            cluster: g.cluster,
            password_from: Some("$QCTL_REDIS_PASSWORD or --password-file FILE"),
        };
        self.open(&url, &access, "--tls-insecure")
    }

    /// The server at `url` with `access` and the global timeouts; `insecure` names the option
    /// that turned off the check of its certificate, for the warning.
    pub fn open(&self, url: &str, access: &Access, insecure: &str) -> anyhow::Result<ServerSpec> {
        let g = &self.global;
        let spec = ServerSpec::open(url, access, g.connect_timeout, g.response_timeout)?;
        if access.tls_insecure {
            self.out.warn(format!(
                "{insecure}: the certificate of {} is not verified",
                spec.server()
            ));
        }
        Ok(spec)
    }
}

/// A password from the environment variable `name`, when it is set and not empty.
fn env_password(name: &str) -> Option<Secret> {
    std::env::var(name)
        .ok()
        .filter(|p| !p.is_empty())
        .map(Secret)
}

impl Context {
    /// The keys of `queue`; with --cluster, only for a name with a hash tag.
    pub fn keys(&self, queue: &str) -> Result<QueueKeys, Error> {
        if self.global.cluster {
            QueueKeys::for_cluster(queue)
        } else {
            Ok(QueueKeys::new(queue))
        }
    }
}

/// Where lines of jobs come from: the file given, else standard input.
fn input(file: Option<&std::path::Path>) -> Result<Box<dyn std::io::Read + Send>, Error> {
    Ok(match file {
        Some(path) => Box::new(
            std::fs::File::open(path)
                .map_err(|e| Error::BadInput(format!("cannot open {}: {e}", path.display())))?,
        ),
        None => Box::new(std::io::stdin()),
    })
}

/// How [`next_line_within`] read a line.
#[derive(Debug, PartialEq, Eq)]
enum LineRead {
    /// The input ended before another line.
    End,
    /// A whole line, in the buffer.
    Line,
    /// A line longer than allowed, of this many bytes: read past, not kept.
    TooLong(u64),
}

/// Reads the next line of the input into `buf` (with its newline), keeping no more of it
/// than `room` allows; `line` is the number of lines read so far, for the error.
/// `room(n)` is asked for the bytes a line of `n` bytes may keep, again whenever the line
/// outgrows what it allowed; once a line outgrows what `room` allows, the rest of it is read
/// past without being kept, so that memory stays bounded whatever the input holds.
fn next_line_within(
    reader: &mut impl std::io::BufRead,
    buf: &mut Vec<u8>,
    line: u64,
    mut room: impl FnMut(u64) -> Result<u64, Error>,
) -> Result<LineRead, Error> {
    let failed =
        |e: std::io::Error| Error::BadInput(format!("cannot read input after line {line}: {e}"));
    buf.clear();
    let mut allowed = room(0)?;
    let mut total = 0u64;
    let mut over = false;
    loop {
        let available = match reader.fill_buf() {
            Ok(available) => available,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(failed(e)),
        };
        if available.is_empty() {
            return Ok(match (total, over) {
                (0, _) => LineRead::End,
                (_, true) => LineRead::TooLong(total),
                (_, false) => LineRead::Line,
            });
        }
        let (n, ends) = match memchr::memchr(b'\n', available) {
            Some(at) => (at + 1, true),
            None => (available.len(), false),
        };
        if !over {
            let wanted = buf.len() as u64 + n as u64;
            if wanted > allowed {
                allowed = room(wanted)?;
            }
            if wanted > allowed {
                over = true;
                *buf = Vec::with_capacity(256);
            } else {
                buf.extend_from_slice(&available[..n]);
            }
        }
        total += n as u64;
        reader.consume(n);
        if ends {
            return Ok(if over {
                LineRead::TooLong(total)
            } else {
                LineRead::Line
            });
        }
    }
}

/// What Redis takes in one argument, for the threads that read jobs: what every server
/// takes, until a record larger than that comes; then the server is asked, once
/// ([`crate::engine::enqueue::accepted`]).
struct RecordLimit {
    accepted: crate::engine::enqueue::Accepted,
    asked: bool,
    /// A note to show once: the server's limit could not be read.
    note: Option<String>,
    redis: crate::engine::Redis,
    key: String,
    runtime: tokio::runtime::Handle,
}

impl RecordLimit {
    /// For records into `key` (`NAME:data`) on `redis`; to be made on the runtime and used
    /// on a thread outside it.
    fn new(redis: &crate::engine::Redis, key: &str) -> RecordLimit {
        RecordLimit {
            accepted: crate::engine::enqueue::Accepted::always(redis.server()),
            asked: false,
            note: None,
            redis: redis.clone(),
            key: key.to_string(),
            runtime: tokio::runtime::Handle::current(),
        }
    }

    /// What the server takes, asking it when `wanted` bytes are more than what is known to
    /// be taken.
    fn get(&mut self, wanted: u64) -> Result<&crate::engine::enqueue::Accepted, Error> {
        if wanted > self.accepted.bytes && !self.asked {
            self.asked = true;
            let asked = self
                .runtime
                .block_on(crate::engine::enqueue::accepted(&mut self.redis, &self.key))?;
            self.note = assumed(&asked);
            self.accepted = asked;
        }
        Ok(&self.accepted)
    }

    /// Why a job whose record is `len` bytes is not sent (None: it is taken).
    fn refuse(&mut self, len: usize) -> Result<Option<String>, Error> {
        let accepted = self.get(len as u64)?;
        Ok((!accepted.takes(len)).then(|| {
            too_large(
                accepted,
                &format!("its record would be {}", bytes_text(len as u64)),
            )
        }))
    }
}

/// The warning that the server's limit is not known and Redis's default is assumed.
fn assumed(accepted: &crate::engine::enqueue::Accepted) -> Option<String> {
    let why = accepted.assumed.as_ref()?;
    Some(format!(
        "the largest job Redis at {} takes is not known ({why}): assuming Redis's default, {}",
        accepted.server,
        crate::engine::text::size(accepted.bytes)
    ))
}

/// `2.5 MiB (2,621,440 bytes)`.
fn bytes_text(n: u64) -> String {
    format!(
        "{} ({} bytes)",
        crate::engine::text::size(n),
        crate::engine::text::thousands(n)
    )
}

/// Why a job is not sent: `what` it is, against what Redis takes.
fn too_large(accepted: &crate::engine::enqueue::Accepted, what: &str) -> String {
    format!(
        "the job is too large for Redis at {}: {what}, and Redis takes at most {} in one piece",
        accepted.server,
        accepted.describe()
    )
}

/// The password from --password-file: the file's first line.
fn password_file(file: Option<&std::path::Path>) -> Result<Option<Secret>, Error> {
    let Some(path) = file else {
        return Ok(None);
    };
    let text = std::fs::read_to_string(path).map_err(|e| {
        Error::BadInput(format!(
            "cannot read the password file {}: {e}",
            path.display()
        ))
    })?;
    match text.lines().next() {
        Some(line) if !line.is_empty() => Ok(Some(Secret(line.to_string()))),
        _ => Err(Error::BadInput(format!(
            "the password file {} is empty",
            path.display()
        ))),
    }
}

/// Runs the parsed command line; the exit code says how it went.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let ctx = Context {
        out: Output::new(&cli.global),
        global: cli.global,
    };
    runtime.block_on(async move {
        match cli.command {
            Command::Enqueue(args) => enqueue::run(ctx, args).await,
            Command::Consume(args) => consume::run(ctx, args).await,
            Command::Wait(args) => wait::run(ctx, args).await,
            Command::Dead(cmd) => dead::run(ctx, cmd).await,
            Command::Stats(args) => stats::run(ctx, args).await,
            Command::Check(args) => check::run(ctx, args).await,
            Command::Metrics(args) => metrics::run(ctx, args).await,
            Command::Top(args) => top::run(ctx, args).await,
            Command::Web(args) => web::run(ctx, args).await,
            Command::Scheduled(cmd) => scheduled::run(ctx, cmd).await,
            Command::Active(cmd) => active::run(ctx, cmd).await,
            Command::Inflight(args) => inflight::run(ctx, args).await,
            Command::Find(args) => find::run(ctx, args).await,
            Command::Tail(args) => tail::run(ctx, args).await,
            Command::Consumers(args) => match args.command {
                None => {
                    let queue = args.queue.unwrap_or_default();
                    consumers::run(ctx, &queue, args.orphan_after).await
                }
                Some(command) => steer::run(ctx, command).await,
            },
            Command::Cancel(args) => cancel::run(ctx, args).await,
            Command::Orphans {
                queue,
                orphan_after,
                confirm,
            } => orphans::run(ctx, &queue, orphan_after, confirm).await,
            Command::Pause { queue } => pause::run(ctx, &queue, true).await,
            Command::Resume { queue } => pause::run(ctx, &queue, false).await,
            Command::Purge {
                queue,
                forget_changes,
                confirm,
            } => purge::run(ctx, &queue, forget_changes, confirm).await,
            Command::Doctor(args) => doctor::run(ctx, args).await,
            Command::Changes(args) => changes::run(ctx, args).await,
            Command::Export(args) => export::run(ctx, args).await,
            Command::Import(args) => import::run(ctx, args).await,
            Command::Move(args) => r#move::run(ctx, args).await,
            Command::Limit(args) => limit::run(ctx, args).await,
            Command::Completions { shell } => completions::run(ctx, shell),
            Command::Man { dir } => man::run(ctx, dir.as_deref()),
            Command::Help { words } => help::run(ctx, &words),
        }
    })
}

/// Appends `change` to the queue's record (`NAME:changes`, through
/// [`crate::engine::changes::record`]) once it is made (one that changed nothing is not: see
/// [`crate::engine::changes::Change::is_recorded`]). A change that cannot be recorded (Redis
/// went away meanwhile, the key is of another type) stands: a warning says so. After a
/// second signal (`stop`), which stops a command at once, nothing more is sent: the warning
/// says the change was not recorded; one during the write ends the wait for it.
async fn record(
    ctx: &Context,
    redis: &mut crate::engine::Redis,
    keys: &QueueKeys,
    change: &crate::engine::changes::Change,
    stop: Option<&crate::signals::Stop>,
) {
    if !change.is_recorded() {
        return;
    }
    let at_once = "a second signal stopped qctl before Redis answered";
    let origin = crate::engine::changes::Origin::cli();
    let written = match stop {
        Some(stop) if stop.forced.is_cancelled() => Err(at_once.to_string()),
        Some(stop) => tokio::select! {
            written = crate::engine::changes::record(redis, keys, change, &origin) => {
                written.map_err(|e| e.to_string())
            }
            _ = stop.forced.cancelled() => Err(at_once.to_string()),
        },
        None => crate::engine::changes::record(redis, keys, change, &origin)
            .await
            .map_err(|e| e.to_string()),
    };
    if let Err(why) = written {
        ctx.out.warn(format_args!(
            "the change was made, but recording it in {} failed: {why}",
            crate::output::printable(&keys.changes)
        ));
    }
}

/// Checks, before a change's first write, that the user may write the queue's record of
/// changes ([`crate::engine::changes::check_rights`]): refused, the change is not made (exit
/// 4, naming the command and the key). The check changes nothing, so a check that got no
/// reply (Redis holding writes, or gone) is said as such: no change was made.
async fn may_record(redis: &mut crate::engine::Redis, keys: &QueueKeys) -> anyhow::Result<()> {
    crate::engine::changes::check_rights(redis, keys)
        .await
        .map_err(|e| {
            if e.outcome_unknown() {
                anyhow::Error::from(e).context(format!(
                    "no change was made: the check that it can be recorded in {} got no reply",
                    crate::output::printable(&keys.changes)
                ))
            } else {
                e.into()
            }
        })
}

/// The error of a change that failed, told as one whose outcome is not known when the call
/// may have been carried out all the same (the link failed, or no reply came within
/// `--response-timeout`: see [`Error::outcome_unknown`]): `whether {what} is not known`.
fn unknown_change(err: Error, what: impl FnOnce() -> String) -> anyhow::Error {
    if !err.outcome_unknown() {
        return err.into();
    }
    let reply = match err {
        Error::Redis { .. } => "its reply could not be read",
        _ => "its reply was lost",
    };
    anyhow::Error::from(err).context(format!(
        "whether {} is not known: {reply}, so the change may or may not have been made; run the same command again to be sure",
        what()
    ))
}

/// The words for a queue that has no key on the server (see [`crate::engine::queues::no_queue`]).
async fn no_queue(redis: &mut crate::engine::Redis, name: &str) -> anyhow::Result<String> {
    Ok(crate::engine::queues::no_queue(redis, name).await)
}

/// Fails (exit 5) when `keys` names a queue with no key on the server, naming the queues
/// it may have meant: read commands have nothing to read there.
async fn require_queue(redis: &mut crate::engine::Redis, keys: &QueueKeys) -> anyhow::Result<()> {
    Ok(crate::engine::queues::require(redis, keys).await?)
}

/// Whether the queue has a key on the server (see [`crate::engine::queues::known`]).
async fn queue_known(redis: &mut crate::engine::Redis, keys: &QueueKeys) -> anyhow::Result<bool> {
    Ok(crate::engine::queues::known(redis, keys).await?)
}

/// For the commands that serve queues (`metrics`, `web`): refuses (exit 5) a queue named
/// that has no key on the server, naming the queues there are, unless --allow-missing: then
/// it is said and served (its counts are 0 until it appears).
async fn check_names(
    ctx: &Context,
    redis: &mut crate::engine::Redis,
    keys: &[QueueKeys],
    allow_missing: bool,
) -> anyhow::Result<()> {
    let missing = missing(redis, keys).await?;
    if missing.is_empty() {
        return Ok(());
    }
    if allow_missing {
        for words in &missing {
            ctx.out.warn(format_args!(
                "{words}; serving it anyway (--allow-missing): 0 until it appears"
            ));
        }
        return Ok(());
    }
    Err(Error::NothingDone(format!(
        "{}; give --allow-missing to serve a queue that has no key yet",
        missing.join("; ")
    ))
    .into())
}

/// As [`check_names`] once `qctl {command}` serves: a name with no key is said on stderr.
async fn check_names_while_serving(
    out: &Output,
    redis: &mut crate::engine::Redis,
    keys: &[QueueKeys],
    allow_missing: bool,
    command: &str,
) -> anyhow::Result<()> {
    for words in missing(redis, keys).await? {
        if allow_missing {
            out.warn(format_args!(
                "{words}; serving it anyway (--allow-missing): 0 until it appears"
            ));
        } else {
            out.warn(format_args!(
                "{words}; its counts are served as 0 (a mistyped name? Redis could not be read when qctl {command} started, so it was not refused then)"
            ));
        }
    }
    Ok(())
}

/// `no queue "mial" (known: ...)` for each of `keys` that has no key on the server.
async fn missing(
    redis: &mut crate::engine::Redis,
    keys: &[QueueKeys],
) -> anyhow::Result<Vec<String>> {
    let mut words = Vec::new();
    for k in keys {
        if !queue_known(redis, k).await? {
            words.push(no_queue(redis, &k.name).await?);
        }
    }
    Ok(words)
}

/// Warns when `keys` names a queue with no key on the server (a command that waits for it,
/// or creates it, goes on): `then` says what it does now.
async fn warn_unknown_queue(
    ctx: &Context,
    redis: &mut crate::engine::Redis,
    keys: &QueueKeys,
    then: &str,
) -> anyhow::Result<()> {
    if !queue_known(redis, keys).await? {
        let words = no_queue(redis, &keys.name).await?;
        ctx.out.warn(format_args!("{words}; {then}"));
    }
    Ok(())
}

/// Asks `question` (unless `yes`) before a command changes anything: None to go on, else
/// the exit code of the command that was answered no (10, "nothing changed") or stopped by
/// a signal before any change.
async fn ask(
    ctx: &mut Context,
    question: &str,
    yes: bool,
    stop: &crate::signals::Stop,
) -> anyhow::Result<Option<ExitCode>> {
    Ok(match ctx.out.confirm(question, yes, stop).await? {
        crate::output::Answer::Yes => None,
        crate::output::Answer::No => {
            ctx.out.note("nothing changed");
            Some(ExitCode::Declined)
        }
        crate::output::Answer::Stopped(cause) => Some(stopped_before_any_change(ctx, cause)),
    })
}

/// The end of a bulk command that a stop request ended before it changed anything.
fn stopped_before_any_change(ctx: &mut Context, cause: crate::signals::Cause) -> ExitCode {
    ctx.out.last_word(&format!(
        "{}: nothing changed",
        crate::output::stopped_by(cause)
    ));
    cause.exit_code()
}

/// The end of a command that a signal stopped while it was connecting, before it did
/// anything (see [`crate::signals::Stop::unless_signalled`]).
fn stopped_before_redis_answered(ctx: &mut Context, stop: &crate::signals::Stop) -> ExitCode {
    let cause = stop.cause().unwrap_or(crate::signals::Cause::Interrupt);
    ctx.out.last_word(&format!(
        "{} before Redis answered: nothing was done",
        crate::output::stopped_by(cause)
    ));
    cause.exit_code()
}

/// How a preview of a change begins: `will` before the change, `dry run: would` for
/// --dry-run, which only shows it.
fn will(dry_run: bool) -> &'static str {
    if dry_run {
        "dry run: would"
    } else {
        "will"
    }
}

/// The end of a dry run: a last line says that it was one and that nothing changed. Its exit
/// code: a signal that came while it showed its plan still names the end, as it would have
/// ended the command had it not been handled.
fn dry_run_end(ctx: &Context, stop: &crate::signals::Stop) -> ExitCode {
    ctx.out.note("dry run: nothing changed");
    match stop.cause() {
        Some(cause) if cause != crate::signals::Cause::OutputClosed => cause.exit_code(),
        _ => ExitCode::Success,
    }
}
