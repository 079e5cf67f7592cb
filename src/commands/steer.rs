//! `qctl consumers quiet | stop | resize ID`: gives a running qctl consumer an order (see
//! engine::orders), found by the start of its id on any queue (or `--all` of a queue's), after
//! asking, and says what it answered.

use serde_json::json;

use super::Context;
use crate::cli::{ConsumersCommand, SteerArgs};
use crate::engine::consumers::{self, host_pid, short_name, Seen};
use crate::engine::orders::{self, Reach, What};
use crate::engine::{Error, ExitCode, QueueKeys};
use crate::output::{plural, printable, shell_quote};
use crate::signals;

/// A consumer to give the order to.
struct Target {
    keys: QueueKeys,
    /// Its in-flight key.
    key: String,
    uuid: String,
}

pub async fn run(mut ctx: Context, command: ConsumersCommand) -> anyhow::Result<ExitCode> {
    let (steer, what) = match command {
        ConsumersCommand::Quiet(steer) => (steer, What::Quiet),
        ConsumersCommand::Stop(steer) => (steer, What::Stop),
        ConsumersCommand::Resize { steer, concurrency } => (
            steer,
            What::Resize {
                concurrency: concurrency as usize,
            },
        ),
    };
    let spec = ctx.server()?;
    let mut redis = spec.connect().await?;
    let targets = targets(&mut ctx, &mut redis, &steer).await?;
    // Each queue's consumers, as `qctl consumers` sees them.
    let mut seen: Vec<(String, Seen)> = Vec::new();
    for t in &targets {
        if !seen.iter().any(|(q, _)| *q == t.keys.name) {
            seen.push((
                t.keys.name.clone(),
                consumers::seen(&mut redis, &t.keys).await?,
            ));
        }
    }
    let seen_of = |queue: &str| &seen.iter().find(|(q, _)| q == queue).expect("read above").1;
    // Those that take no order are said, and left.
    let mut refused = Vec::new();
    let mut asked = Vec::new();
    for t in targets {
        let s = seen_of(&t.keys.name);
        let described = s.descriptions().get(t.key.as_str()).copied().cloned();
        match Reach::of(described.as_ref()).why_not() {
            Some(why) => refused.push(format!(
                "consumer {} of queue {:?} ({}): {why}; it cannot be given orders",
                short_name(&t.key, &t.keys),
                t.keys.name,
                host_pid(described.as_ref())
            )),
            None => asked.push((t, described)),
        }
    }
    for line in &refused {
        ctx.out.warn(printable(line));
    }
    if asked.is_empty() {
        return Err(Error::Usage(match refused.is_empty() {
            true => "no qctl consumer to give the order to".into(),
            false => {
                "no consumer named can be given orders: only qctl consumers listen for them".into()
            }
        })
        .into());
    }
    let verb = what.name();
    let names: Vec<String> = asked
        .iter()
        .map(|(t, d)| {
            format!(
                "{} of queue {:?} ({}{})",
                short_name(&t.key, &t.keys),
                t.keys.name,
                host_pid(d.as_ref()),
                d.as_ref().map_or(String::new(), |d| format!(
                    ", {}",
                    d.setup(seen_of(&t.keys.name).now)
                ))
            )
        })
        .collect();
    let what_words = what.words();
    if steer.confirm.dry_run {
        for name in &names {
            ctx.out.note(format_args!(
                "would {verb} consumer {}: {what_words}",
                printable(name)
            ));
        }
        ctx.out.note("dry run: nothing changed");
        return Ok(ExitCode::Success);
    }
    let stop = signals::install()?;
    if !steer.confirm.yes {
        for name in &names {
            ctx.out.note(format_args!("consumer {}", printable(name)));
        }
    }
    let question = format!(
        "{verb} {} ({what_words})?",
        match asked.len() {
            1 => "this consumer".to_string(),
            n => plural(n as u64, "consumer"),
        }
    );
    if let Some(end) = super::ask(&mut ctx, &question, steer.confirm.yes, &stop).await? {
        return Ok(end);
    }
    for (t, _) in &asked {
        super::may_record(&mut redis, &t.keys).await?;
    }
    let by = orders::by_cli();
    let orders = asked.iter().map(|(t, _)| {
        let (spec, mut redis, what, by) = (&spec, redis.clone(), what.clone(), &by);
        let seen = seen_of(&t.keys.name);
        async move { orders::steer(spec, &mut redis, &t.keys, seen, &t.key, what, by).await }
    });
    // A stop request ends the wait, not the orders: the consumers carry them out all the same.
    let heard = tokio::select! {
        heard = futures_util::future::join_all(orders) => heard,
        _ = stop.requested.cancelled() => {
            let cause = stop.cause().unwrap_or(signals::Cause::Interrupt);
            for (t, _) in &asked {
                let mut change = what.change(&t.key);
                change.interrupted = Some(cause.name().to_string());
                super::record(&ctx, &mut redis, &t.keys, &change, Some(&stop)).await;
            }
            ctx.out.last_word(&format!(
                "{}: stopped waiting for the answers; the orders were given and the consumers carry them out (`qctl consumers QUEUE` shows them)",
                crate::output::stopped_by(cause)
            ));
            return Ok(cause.exit_code());
        }
    };
    let mut all_done = true;
    for ((t, _), (result, detail)) in asked.iter().zip(heard) {
        let name = short_name(&t.key, &t.keys);
        all_done &= result == "done";
        if result == "done" || result == "stopping" {
            let change = what.change(&t.key);
            super::record(&ctx, &mut redis, &t.keys, &change, Some(&stop)).await;
        }
        if ctx.out.json {
            ctx.out.json_line(&json!({
                "consumer": t.key,
                "queue": t.keys.name,
                "order": verb,
                "result": result,
                "detail": detail,
            }))?;
        } else {
            ctx.out.line(format!(
                "{name} ({}): {}: {}",
                printable(&t.keys.name),
                result.replace('_', " "),
                printable(&detail)
            ))?;
        }
    }
    ctx.out.flush()?;
    Ok(if all_done {
        ExitCode::Success
    } else {
        ExitCode::Partial
    })
}

/// The consumers the order is for: the one whose id starts with the target (on the queue
/// given, else on any), or with `--all` every qctl consumer of the queue.
async fn targets(
    ctx: &mut Context,
    redis: &mut crate::engine::Redis,
    steer: &SteerArgs,
) -> anyhow::Result<Vec<Target>> {
    if steer.all {
        let keys = ctx.keys(&steer.target)?;
        super::require_queue(redis, &keys).await?;
        let list = consumers::list(redis, &keys).await?;
        let found: Vec<Target> = list
            .into_iter()
            .filter_map(|c| {
                let uuid = keys.consumer_uuid(&c.key)?.to_string();
                Some(Target {
                    keys: keys.clone(),
                    key: c.key,
                    uuid,
                })
            })
            .collect();
        if found.is_empty() {
            return Err(Error::Usage(format!(
                "queue {:?} has no consumer (`qctl consumers {}` lists them)",
                steer.target,
                printable(&shell_quote(&steer.target))
            ))
            .into());
        }
        return Ok(found);
    }
    let prefix = steer.target.as_str();
    if prefix.is_empty() || !prefix.chars().all(|c| c.is_ascii_hexdigit() || c == '-') {
        return Err(Error::Usage(format!(
            "{:?} is no consumer id: give the start of one as `qctl consumers QUEUE` prints it (8 hex digits), or --all QUEUE",
            steer.target
        ))
        .into());
    }
    let found: Vec<Target> = match &steer.queue {
        Some(queue) => {
            let keys = ctx.keys(queue)?;
            super::require_queue(redis, &keys).await?;
            consumers::list(redis, &keys)
                .await?
                .into_iter()
                .filter_map(|c| {
                    let uuid = keys.consumer_uuid(&c.key)?.to_string();
                    uuid.starts_with(prefix).then(|| Target {
                        keys: keys.clone(),
                        key: c.key,
                        uuid,
                    })
                })
                .collect()
        }
        None => orders::find(redis, prefix)
            .await?
            .into_iter()
            .map(|f| {
                let keys = QueueKeys::new(&f.queue);
                Target {
                    key: keys.inflight(&f.uuid),
                    keys,
                    uuid: f.uuid,
                }
            })
            .collect(),
    };
    match found.len() {
        0 => Err(Error::Usage(format!(
            "no consumer's id starts with {prefix:?}{}: `qctl consumers QUEUE` lists them (Go CurlyQ consumers take no orders{})",
            steer.queue.as_ref().map_or(String::new(), |q| format!(" in queue {q:?}")),
            if steer.queue.is_none() { "; without --queue only qctl consumers are looked for" } else { "" }
        ))
        .into()),
        1 => Ok(found),
        n => Err(Error::Usage(format!(
            "{n} consumers' ids start with {prefix:?} ({}): give more of the id",
            found
                .iter()
                .take(5)
                .map(|t| format!("{} of {:?}", t.uuid, t.keys.name))
                .collect::<Vec<_>>()
                .join(", ")
        ))
        .into()),
    }
}
