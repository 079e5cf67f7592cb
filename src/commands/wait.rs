//! `qctl wait QUEUE [ID...]`: block until the queue has nothing ready, due or in flight, or
//! until the given jobs have ended; reads only. Its answer is its exit code: 0, 7 when a job
//! died (or, with ids, ended without a record of success), 124 when `--timeout` ran out.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use serde_json::json;

use super::Context;
use crate::cli::WaitArgs;
use crate::engine::keys::ACKED_KEPT;
use crate::engine::wait::{JobState, Jobs, Left, Watch};
use crate::engine::ExitCode;
use crate::output::{plural, printable, shell_quote, stopped_by, thousands};
use crate::signals::{self, Cause};

/// The first pause between two looks; it grows while nothing changes.
const FIRST_POLL: Duration = Duration::from_millis(200);
/// The longest pause between two looks.
const LONGEST_POLL: Duration = Duration::from_secs(1);
/// How long Redis may stay unreachable (the connection is made again meanwhile) before the
/// wait gives up with exit 3.
const UNREACHABLE_FOR: Duration = Duration::from_secs(30);
/// The longest the look made when `--timeout` runs out may take.
const LAST_LOOK: Duration = Duration::from_secs(1);
/// Ids named in one line of a message; `--json` lists every one.
const SHOWN_IDS: usize = 10;

/// What one look saw.
#[derive(Clone, Debug, PartialEq)]
enum Seen {
    Queue(Left),
    Jobs(Jobs),
}

/// How the wait ended.
#[derive(Clone, Copy, Debug, PartialEq)]
enum End {
    /// What it waited for happened.
    Reached,
    TimedOut,
    Stopped(Cause),
}

pub async fn run(mut ctx: Context, args: WaitArgs) -> anyhow::Result<ExitCode> {
    let keys = ctx.keys(&args.queue)?;
    let mut unique = HashSet::new();
    let ids: Vec<String> = args
        .ids
        .into_iter()
        .filter(|id| unique.insert(id.clone()))
        .collect();
    let stop = signals::install()?;
    let server = ctx.server()?;
    let Some(redis) = stop.unless_signalled(server.connect()).await else {
        return Ok(super::stopped_before_redis_answered(&mut ctx, &stop));
    };
    let mut redis = redis?;
    if ids.is_empty() {
        super::require_queue(&mut redis, &keys).await?;
    } else {
        // A queue run only by Go CurlyQ consumers leaves no key once drained: its jobs have
        // ended, and nothing says how.
        super::warn_unknown_queue(
            &ctx,
            &mut redis,
            &keys,
            "the jobs named can only have ended, without a record of success",
        )
        .await?;
    }
    let mut watch = Watch::start(&mut redis, &keys)
        .await
        .with_context(|| format!("cannot wait for queue {:?}", keys.name))?;
    let started = Instant::now();
    let deadline = args.timeout.map(|t| started + t);
    let spinner = ctx.out.spinner();
    let id_refs: Vec<&str> = ids.iter().map(String::as_str).collect();
    let mut poll = FIRST_POLL;
    let mut first: Option<Seen> = None;
    let mut last: Option<Seen> = None;
    let mut failing_since: Option<Instant> = None;
    let mut said = Said::default();
    let mut looks = 0u64;
    let mut overdue = false;
    let end = loop {
        let looked = async {
            if ids.is_empty() {
                watch
                    .queue(&mut redis, args.scheduled)
                    .await
                    .map(Seen::Queue)
            } else {
                watch.jobs(&mut redis, &id_refs).await.map(Seen::Jobs)
            }
        };
        // The first look is always made, even with --timeout 0s, and one more when the
        // time runs out, for at most LAST_LOOK.
        let looked = tokio::select! {
            looked = looked => looked,
            cause = stop.signalled() => break End::Stopped(cause),
            _ = until(deadline), if looks > 0 && !overdue => break End::TimedOut,
            _ = tokio::time::sleep(LAST_LOOK), if overdue => break End::TimedOut,
        };
        looks += 1;
        match looked {
            Ok(seen) => {
                failing_since = None;
                spinner.set_message(progress(&keys.name, &seen, args.scheduled));
                if let Some(warning) = said.news(&keys.name, &ids, &seen) {
                    spinner.suspend(|| ctx.out.warn(warning));
                }
                let reached = match &seen {
                    Seen::Queue(left) => left.is_empty(args.scheduled),
                    Seen::Jobs(jobs) => jobs.states.iter().all(|s| s.ended()),
                };
                poll = if last.as_ref() == Some(&seen) {
                    (poll * 3 / 2).min(LONGEST_POLL)
                } else {
                    FIRST_POLL
                };
                first.get_or_insert_with(|| seen.clone());
                last = Some(seen);
                if reached {
                    break End::Reached;
                }
            }
            Err(e) if e.is_transient() => {
                let first_failure = failing_since.is_none();
                let since = *failing_since.get_or_insert_with(Instant::now);
                if since.elapsed() >= UNREACHABLE_FOR {
                    spinner.finish_and_clear();
                    return Err(anyhow::Error::from(e).context(format!(
                        "cannot wait for queue {:?}: Redis could not be read for {}",
                        keys.name,
                        took(since.elapsed())
                    )));
                }
                if first_failure {
                    spinner.suspend(|| ctx.out.warn(format_args!("{e}; trying again")));
                }
                poll = FIRST_POLL;
            }
            Err(e) => {
                spinner.finish_and_clear();
                return Err(anyhow::Error::from(e)
                    .context(format!("cannot wait for queue {:?}", keys.name)));
            }
        }
        if overdue {
            break End::TimedOut;
        }
        tokio::select! {
            _ = tokio::time::sleep(poll) => {}
            cause = stop.signalled() => break End::Stopped(cause),
            _ = until(deadline) => overdue = true,
        }
    };
    spinner.finish_and_clear();
    let waited = started.elapsed();
    let report = Report {
        queue: &keys.name,
        ids: &ids,
        scheduled: args.scheduled,
        first: first.as_ref(),
        last: last.as_ref(),
        waited,
        end,
    };
    report.say(&ctx);
    let code = report.exit_code();
    if ctx.out.json {
        let mut out = ctx.out;
        let written = out.json_line(&report.json()).and_then(|_| out.flush());
        // The answer is the exit code: a closed stdout does not change it.
        out.after_done(written)?;
    }
    Ok(code)
}

/// What was said once: that nothing runs the jobs waited for.
#[derive(Default)]
struct Said {
    paused: bool,
    stranded: bool,
}

impl Said {
    /// A warning not given yet about what `seen` shows: the queue is paused while jobs
    /// waited for are ready, or jobs named have a record in no state.
    fn news(&mut self, queue: &str, ids: &[String], seen: &Seen) -> Option<String> {
        let paused = match seen {
            Seen::Queue(left) => left.paused && left.ready > 0,
            Seen::Jobs(jobs) => jobs.paused && jobs.states.contains(&JobState::Ready),
        };
        if paused && !self.paused {
            self.paused = true;
            return Some(format!(
                "queue {queue:?} is paused: qctl consumers start none of its ready jobs until \
                 `qctl resume {}` (Go CurlyQ consumers do not know the pause); waiting on",
                shell_quote(queue)
            ));
        }
        let Seen::Jobs(jobs) = seen else { return None };
        let stranded = with_state(ids, jobs, JobState::Stranded);
        if stranded.is_empty() || self.stranded {
            return None;
        }
        self.stranded = true;
        let n = stranded.len();
        Some(format!(
            "{} of queue {queue:?} {} a record but {} in no state (ready, scheduled, in flight \
             or dead), so nothing will run {}: {}; `qctl doctor {} --fix` makes such jobs \
             ready; waiting on",
            plural(n as u64, "job"),
            agree(n, "has", "have"),
            agree(n, "is", "are"),
            agree(n, "it", "them"),
            listed(&stranded),
            shell_quote(queue)
        ))
    }
}

/// Resolves when `deadline` passes; never without one.
async fn until(deadline: Option<Instant>) {
    match deadline {
        Some(at) => tokio::time::sleep_until(at.into()).await,
        None => std::future::pending().await,
    }
}

/// The ids of `ids` in `state`.
fn with_state<'a>(ids: &'a [String], jobs: &Jobs, state: JobState) -> Vec<&'a str> {
    ids.iter()
        .zip(&jobs.states)
        .filter(|(_, s)| **s == state)
        .map(|(id, _)| id.as_str())
        .collect()
}

/// Up to [`SHOWN_IDS`] ids, and how many more.
fn listed(ids: &[&str]) -> String {
    let shown: Vec<String> = ids.iter().take(SHOWN_IDS).map(|id| printable(id)).collect();
    let more = ids.len().saturating_sub(SHOWN_IDS);
    if more == 0 {
        shown.join(", ")
    } else {
        format!(
            "{} and {} more (--json lists every job)",
            shown.join(", "),
            thousands(more as u64)
        )
    }
}

fn agree(n: usize, one: &'static str, many: &'static str) -> &'static str {
    crate::output::agree(n as u64, one, many)
}

/// `3.2s`, `4m10s`: how long it waited.
fn took(d: Duration) -> String {
    if d < Duration::from_secs(60) {
        format!("{:.1}s", d.as_secs_f64())
    } else {
        humantime::format_duration(Duration::from_secs(d.as_secs()))
            .to_string()
            .replace(' ', "")
    }
}

/// `120 ready, 4 in flight, 2 due, 2 retrying`: what the queue still holds that is waited for.
fn queue_left(left: &Left, scheduled: bool) -> String {
    let mut parts = vec![
        format!("{} ready", thousands(left.ready)),
        format!("{} in flight", thousands(left.in_flight)),
    ];
    if left.due > 0 {
        parts.push(format!("{} due", thousands(left.due)));
    }
    let later = left.scheduled.saturating_sub(left.due);
    if scheduled && later > 0 {
        parts.push(format!("{} scheduled for later", thousands(later)));
    }
    if let (false, Some(n)) = (scheduled, left.retrying.filter(|n| *n > 0)) {
        parts.push(format!("{} retrying", thousands(n)));
    }
    parts.join(", ")
}

/// How many of the awaited jobs are in each state: those not ended, then those ended.
fn job_counts(jobs: &Jobs) -> (String, String) {
    let count = |state: JobState| jobs.states.iter().filter(|s| **s == state).count() as u64;
    let mut pending = Vec::new();
    for state in [
        JobState::Ready,
        JobState::InFlight,
        JobState::Scheduled,
        JobState::Stranded,
    ] {
        let n = count(state);
        if n > 0 {
            pending.push(format!("{} {}", thousands(n), state.name()));
        }
    }
    let mut ended = Vec::new();
    for state in [JobState::Done, JobState::Died, JobState::Unknown] {
        let n = count(state);
        if n > 0 {
            ended.push(format!("{} {}", thousands(n), state.name()));
        }
    }
    (pending.join(", "), ended.join(", "))
}

/// The line the spinner shows.
fn progress(name: &str, seen: &Seen, scheduled: bool) -> String {
    match seen {
        Seen::Queue(left) => {
            let mut line = format!("waiting for {name:?}: {}", queue_left(left, scheduled));
            if left.died > 0 {
                line.push_str(&format!("; {} died", thousands(left.died)));
            }
            line
        }
        Seen::Jobs(jobs) => {
            let waiting = jobs.states.iter().filter(|s| !s.ended()).count() as u64;
            let (pending, ended) = job_counts(jobs);
            let mut line = format!(
                "waiting for {} of {} of {name:?}: {pending}",
                thousands(waiting),
                plural(jobs.states.len() as u64, "job")
            );
            if !ended.is_empty() {
                line.push_str(&format!("; {ended}"));
            }
            line
        }
    }
}

/// What the wait saw and how it ended, for its last lines and its JSON.
struct Report<'a> {
    queue: &'a str,
    ids: &'a [String],
    scheduled: bool,
    first: Option<&'a Seen>,
    last: Option<&'a Seen>,
    waited: Duration,
    end: End,
}

impl Report<'_> {
    fn exit_code(&self) -> ExitCode {
        match self.end {
            End::TimedOut => ExitCode::TimedOut,
            End::Stopped(cause) => cause.exit_code(),
            End::Reached => match self.last {
                Some(Seen::Queue(left)) if left.died > 0 => ExitCode::Partial,
                Some(Seen::Jobs(jobs)) if jobs.states.iter().any(|s| *s != JobState::Done) => {
                    ExitCode::Partial
                }
                _ => ExitCode::Success,
            },
        }
    }

    /// The count of awaited jobs in `state`.
    fn count(&self, state: JobState) -> Option<u64> {
        match self.last {
            Some(Seen::Jobs(jobs)) => {
                Some(jobs.states.iter().filter(|s| **s == state).count() as u64)
            }
            _ => None,
        }
    }

    /// Jobs qctl consumers acked during the wait (queue mode).
    fn acked(&self) -> Option<u64> {
        match (self.first, self.last) {
            (Some(Seen::Queue(first)), Some(Seen::Queue(last))) => {
                Some(last.completed.saturating_sub(first.completed))
            }
            _ => None,
        }
    }

    /// What is still waited for, in words.
    fn pending_words(&self) -> String {
        match self.last {
            None => "Redis could not be read".to_string(),
            Some(Seen::Queue(left)) => {
                let mut words = format!(
                    "waiting for {:?}: {}",
                    self.queue,
                    queue_left(left, self.scheduled)
                );
                if left.died > 0 {
                    words.push_str(&format!("; {} died meanwhile", plural(left.died, "job")));
                }
                words
            }
            Some(Seen::Jobs(jobs)) => {
                let waiting: Vec<&str> = self
                    .ids
                    .iter()
                    .zip(&jobs.states)
                    .filter(|(_, s)| !s.ended())
                    .map(|(id, _)| id.as_str())
                    .collect();
                let (pending, ended) = job_counts(jobs);
                let mut words = format!(
                    "waiting for {} of {} of {:?}: {pending} ({})",
                    thousands(waiting.len() as u64),
                    plural(jobs.states.len() as u64, "job"),
                    self.queue,
                    listed(&waiting)
                );
                if !ended.is_empty() {
                    words.push_str(&format!("; {ended}"));
                }
                words
            }
        }
    }

    /// The last lines on stderr (none with --quiet).
    fn say(&self, ctx: &Context) {
        let waited = took(self.waited);
        match self.end {
            End::TimedOut => ctx.out.note(format_args!(
                "timed out after {waited} {}",
                self.pending_words()
            )),
            End::Stopped(cause) => ctx.out.note(format_args!(
                "{} after {waited} {}",
                stopped_by(cause),
                self.pending_words()
            )),
            End::Reached => match self.last {
                Some(Seen::Queue(left)) => self.say_queue(ctx, left, &waited),
                Some(Seen::Jobs(jobs)) => self.say_jobs(ctx, jobs, &waited),
                None => {}
            },
        }
    }

    fn say_queue(&self, ctx: &Context, left: &Left, waited: &str) {
        let what = if self.scheduled {
            "nothing ready, scheduled or in flight"
        } else {
            "nothing ready, due or in flight, and no retry waiting"
        };
        let mut line = format!("queue {:?} has {what} (waited {waited})", self.queue);
        let later = left.scheduled.saturating_sub(left.due);
        if !self.scheduled && later > 0 {
            line.push_str(&format!(
                "; {} scheduled for later {} not waited for (--scheduled waits)",
                plural(later, "job"),
                agree(later as usize, "is", "are")
            ));
        }
        ctx.out.note(line);
        if left.died > 0 {
            let limit = if left.died > 20 {
                format!(" --limit {}", left.died)
            } else {
                String::new()
            };
            ctx.out.note(format_args!(
                "{} died while it waited: qctl dead list {}{limit}",
                plural(left.died, "job"),
                shell_quote(self.queue)
            ));
        }
    }

    fn say_jobs(&self, ctx: &Context, jobs: &Jobs, waited: &str) {
        let n = jobs.states.len() as u64;
        if jobs.states.iter().all(|s| *s == JobState::Done) {
            ctx.out.note(if n == 1 {
                format!(
                    "job {} of {:?} done (waited {waited})",
                    printable(&self.ids[0]),
                    self.queue
                )
            } else {
                format!(
                    "all {} of {:?} done (waited {waited})",
                    plural(n, "job"),
                    self.queue
                )
            });
            return;
        }
        let (_, ended) = job_counts(jobs);
        ctx.out.note(format_args!(
            "{} of {:?} ended (waited {waited}): {ended}",
            plural(n, "job"),
            self.queue
        ));
        let died = with_state(self.ids, jobs, JobState::Died);
        if !died.is_empty() {
            ctx.out.note(format_args!(
                "died (qctl dead show {} ID): {}",
                shell_quote(self.queue),
                listed(&died)
            ));
        }
        let unknown = with_state(self.ids, jobs, JobState::Unknown);
        if !unknown.is_empty() {
            ctx.out.note(format_args!(
                "ended without a record of success (acked by a Go CurlyQ consumer, which \
                 records none; deleted; or acked more than {} acks ago): {}",
                thousands(ACKED_KEPT),
                listed(&unknown)
            ));
        }
    }

    fn json(&self) -> serde_json::Value {
        let result = match self.end {
            End::TimedOut => "timed_out",
            End::Stopped(_) => "interrupted",
            End::Reached => match self.last {
                Some(Seen::Queue(left)) if left.died > 0 => "died",
                Some(Seen::Jobs(jobs)) if jobs.states.contains(&JobState::Died) => "died",
                Some(Seen::Jobs(jobs)) if jobs.states.contains(&JobState::Unknown) => "unknown",
                _ => "done",
            },
        };
        let mut value = json!({
            "result": result,
            "queue": self.queue,
            "waited_s": (self.waited.as_secs_f64() * 1000.0).round() / 1000.0,
            "timed_out": self.end == End::TimedOut,
            "interrupted": match self.end {
                End::Stopped(cause) => Some(cause.name()),
                _ => None,
            },
        });
        match self.last {
            Some(Seen::Queue(left)) => {
                value["done"] = json!(self.acked());
                value["died"] = json!(left.died);
                value["unknown"] = json!(null);
                value["pending"] = json!(left.pending(self.scheduled));
                value["left"] = json!({
                    "ready": left.ready,
                    "in_flight": left.in_flight,
                    "due": left.due,
                    "scheduled": left.scheduled,
                    "retrying": left.retrying,
                    "paused": left.paused,
                });
            }
            Some(Seen::Jobs(jobs)) => {
                value["done"] = json!(self.count(JobState::Done));
                value["died"] = json!(self.count(JobState::Died));
                value["unknown"] = json!(self.count(JobState::Unknown));
                value["pending"] = json!(jobs.states.iter().filter(|s| !s.ended()).count());
                value["jobs"] = self
                    .ids
                    .iter()
                    .zip(&jobs.states)
                    .map(|(id, state)| json!({"id": id, "state": state}))
                    .collect();
            }
            None => {
                for field in ["done", "died", "unknown", "pending"] {
                    value[field] = json!(null);
                }
            }
        }
        value
    }
}
