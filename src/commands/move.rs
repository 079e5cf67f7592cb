//! `qctl move SRC DST`: a live queue moved to another name or another server, a chunk at a
//! time (engine/move.rs), after saying what goes; passes over its states until one finds
//! nothing, then waits for the jobs in flight at the source (or takes them).

use std::time::{Duration, Instant};

use serde_json::json;

use super::Context;
use crate::cli::MoveArgs;
use crate::engine::changes::Change;
use crate::engine::conn::Access;
use crate::engine::r#move::{self, From, Mover, Settled};
use crate::engine::transfer::{self, Counts};
use crate::engine::{keys, Error, ExitCode, QueueKeys, ServerSpec};
use crate::output::{agree, plural, printable, stopped_by};
use crate::signals;

/// How often the move looks again while it waits for jobs in flight.
const POLL: Duration = Duration::from_millis(250);

#[derive(Default)]
struct Tally {
    ready: u64,
    scheduled: u64,
    dead: u64,
    in_flight: u64,
    collided: Vec<String>,
    stuck: Vec<String>,
    /// Jobs still in flight at the source when the wait for them ended.
    left_in_flight: u64,
    /// What the record of changes keeps of the ids that arrived.
    ids: Change,
}

impl Tally {
    fn add(&mut self, settled: Settled) -> u64 {
        let n = settled.arrived.len() as u64;
        for id in &settled.arrived_ids {
            self.ids.touched(id);
        }
        for from in settled.arrived {
            match from {
                From::Ready => self.ready += 1,
                From::Scheduled => self.scheduled += 1,
                From::Dead => self.dead += 1,
                From::InFlight => self.in_flight += 1,
            }
        }
        self.collided.extend(settled.collided);
        self.stuck.extend(settled.stuck);
        n
    }

    fn moved(&self) -> u64 {
        self.ready + self.scheduled + self.dead + self.in_flight
    }

    fn states(&self) -> String {
        let parts: Vec<String> = [
            (self.ready, "ready"),
            (self.scheduled, "scheduled"),
            (self.dead, "dead"),
            (self.in_flight, "taken in flight"),
        ]
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, what)| format!("{} {what}", crate::output::thousands(*n)))
        .collect();
        parts.join(", ")
    }
}

pub async fn run(mut ctx: Context, args: MoveArgs) -> anyhow::Result<ExitCode> {
    let source = ctx.keys(&args.source)?;
    let to_cluster = match args.to {
        Some(_) => args.to_cluster,
        None => ctx.global.cluster,
    };
    let destination = if to_cluster {
        QueueKeys::for_cluster(&args.destination)?
    } else {
        QueueKeys::new(&args.destination)
    };
    if args.to.is_none() && args.source == args.destination {
        return Err(Error::Usage(format!(
            "queue {:?} would move onto itself: give it another name, or another server with --to",
            args.source
        ))
        .into());
    }
    let src_spec = ctx.server()?;
    let dst_spec = match &args.to {
        Some(url) => destination_server(&ctx, &args, url)?,
        None => src_spec.clone(),
    };
    let stop = signals::install()?;
    let connected = tokio::select! {
        pair = async { Ok::<_, Error>((src_spec.connect().await?, dst_spec.connect().await?)) } => Some(pair?),
        _ = stop.requested.cancelled() => None,
    };
    let Some((mut src, mut dst)) = connected else {
        let cause = stop.cause().unwrap_or(signals::Cause::Interrupt);
        return Ok(super::stopped_before_any_change(&mut ctx, cause));
    };
    super::require_queue(&mut src, &source).await?;
    keys::check_types(&mut src, &source).await?;
    keys::check_types(&mut dst, &destination).await?;
    let mut mover = Mover::new(src, dst, source, destination);
    let same = match mover.same_queue().await {
        Ok(same) => same,
        Err(_) if args.confirm.dry_run => false,
        Err(e) => return Err(e.into()),
    };
    if same {
        return Err(Error::Usage(format!(
            "{:?} at {} and {:?} at {} are the same queue: nothing to move",
            args.source,
            mover.src.server(),
            args.destination,
            mover.dst.server()
        ))
        .into());
    }
    let pending = mover.pending().await?;
    if let Some(p) = &pending {
        if p.to != mover.to {
            // Says whose move it is, and changes nothing.
            return Err(mover.refusal(p).into());
        }
    }
    // The in-flight sets this SCAN finds serve the whole move: consumers that come later are
    // found through NAME:consumers.
    let (counts, known) = transfer::count(&mut mover.src, &mover.source).await?;
    let journal = pending.as_ref().map_or(0, |p| p.jobs() as u64);
    let (from, to) = (args.source.as_str(), args.destination.as_str());
    let there = match &args.to {
        Some(_) => format!(" at {}", mover.dst.server()),
        None => String::new(),
    };
    let total = counts.ready + counts.scheduled + counts.dead + journal;
    ctx.out.note(preview(
        &counts,
        journal,
        from,
        mover.src.server(),
        &format!("{to:?}{there}"),
        &args,
    ));
    if args.confirm.dry_run {
        if ctx.out.json {
            ctx.out.json_line(&json!({
                "dry_run": true, "from": from, "to": to,
                "ready": counts.ready, "scheduled": counts.scheduled, "dead": counts.dead,
                "in_flight": counts.in_flight, "journal": journal,
            }))?;
            ctx.out.flush()?;
        }
        return Ok(super::dry_run_end(&ctx, &stop));
    }
    let question = format!(
        "move {} from {from:?} to {to:?}{there}?",
        plural(total + counts.in_flight, "job")
    );
    if let Some(end) = super::ask(&mut ctx, &question, args.confirm.yes, &stop).await? {
        return Ok(end);
    }

    super::may_record(&mut mover.src, &mover.source).await?;
    super::may_record(&mut mover.dst, &mover.destination).await?;
    let counter = ctx.out.counter("jobs moved");
    let mut tally = Tally::default();
    let mut stopped = None;
    let outcome = moving(
        &mut mover,
        &args,
        &known,
        &stop,
        &mut tally,
        &mut stopped,
        &counter,
    )
    .await;
    counter.finish_and_clear();

    // Both queues record the move: the source what left it, the destination what came.
    if tally.moved() > 0
        || !tally.collided.is_empty()
        || !tally.stuck.is_empty()
        || outcome.is_err()
    {
        let mut change = Change::new("move out");
        change.done = tally.moved();
        change.ids = std::mem::take(&mut tally.ids.ids);
        change.ids_total = tally.ids.ids_total;
        for _ in &tally.collided {
            change.skip("the destination has another job with its id: given back");
        }
        for _ in &tally.stuck {
            change.skip("the destination has another job with its id, and the source its id again: left in NAME:move-out");
        }
        let states = tally.states();
        let states = if states.is_empty() {
            String::new()
        } else {
            format!(": {states}")
        };
        change.interrupted = stopped.map(|cause| cause.name().to_string());
        change.error = outcome.as_ref().err().map(|e| e.to_string());
        let mut arrived = change.clone();
        change.detail = format!("to {to:?} at {}{states}", mover.dst.server());
        super::record(&ctx, &mut mover.src, &mover.source, &change, Some(&stop)).await;
        arrived.action = "move in".into();
        arrived.detail = format!("from {from:?} at {}{states}", mover.src.server());
        super::record(
            &ctx,
            &mut mover.dst,
            &mover.destination,
            &arrived,
            Some(&stop),
        )
        .await;
    }

    if ctx.out.json {
        let _ = ctx.out.json_line(&json!({
            "result": "summary", "from": from, "to": to, "moved": tally.moved(),
            "ready": tally.ready, "scheduled": tally.scheduled, "dead": tally.dead,
            "in_flight": tally.in_flight, "left_in_flight": tally.left_in_flight,
            "collided": tally.collided.len(), "stuck": tally.stuck.len(),
            "interrupted": stopped.map(signals::Cause::name),
            "error": outcome.as_ref().err().map(|e| e.to_string()),
        }));
    }
    let _ = ctx.out.flush();
    let states = tally.states();
    let summary = format!(
        "moved {} from {from:?} to {to:?}{there}{}{states}",
        plural(tally.moved(), "job"),
        if states.is_empty() { "" } else { ": " }
    );
    if let Err(e) = outcome {
        // What the source's journal still holds is finished by the same command.
        let left = match mover.pending().await {
            Ok(Some(p)) => format!(
                "; {} {} in {} on the way: run the same command again to finish",
                plural(p.jobs() as u64, "job"),
                agree(p.jobs() as u64, "is", "are"),
                mover.source.move_out
            ),
            _ => String::new(),
        };
        if e.code() == Some("SAMEQUEUE") {
            return Err(Error::Usage(format!(
                "{from:?} at {} and {to:?}{there} are the same queue: nothing to move",
                mover.src.server()
            ))
            .into());
        }
        return Err(anyhow::Error::from(e).context(format!("{summary}{left}")));
    }
    if let Some(cause) = stopped {
        ctx.out.last_word(&format!(
            "{}: {summary}; run the same command again to go on",
            stopped_by(cause)
        ));
        return Ok(cause.exit_code());
    }
    ctx.out.note(&summary);
    let mut code = ExitCode::Success;
    if tally.left_in_flight > 0 {
        ctx.out.warn(format_args!(
            "{} {} still in flight at {from:?} after --wait {}: run the same command again \
             once {} finished, or with --take-in-flight (a job still running there then runs \
             at {to:?} too)",
            plural(tally.left_in_flight, "job"),
            agree(tally.left_in_flight, "is", "are"),
            humantime::format_duration(args.wait),
            if tally.left_in_flight == 1 {
                "it has"
            } else {
                "they have"
            }
        ));
        code = ExitCode::Partial;
    }
    if !tally.collided.is_empty() {
        ctx.out.warn(format_args!(
            "{} went back to {from:?}: {to:?} has other jobs with their ids (e.g. {}); look at \
             both, delete one of each pair, and run the same command again",
            plural(tally.collided.len() as u64, "job"),
            sample_ids(&tally.collided)
        ));
        code = ExitCode::Partial;
    }
    if !tally.stuck.is_empty() {
        ctx.out.warn(format_args!(
            "{} {} left in {}: {to:?} has other jobs with their ids and {from:?} has their \
             ids again (e.g. {})",
            plural(tally.stuck.len() as u64, "job"),
            agree(tally.stuck.len() as u64, "is", "are"),
            mover.source.move_out,
            sample_ids(&tally.stuck)
        ));
        code = ExitCode::Partial;
    }
    Ok(code)
}

/// The passes of a move: every state until a pass finds nothing, then the wait for the jobs
/// in flight at the source. Stops between chunks when asked to.
async fn moving(
    mover: &mut Mover,
    args: &MoveArgs,
    known: &[String],
    stop: &signals::Stop,
    tally: &mut Tally,
    stopped: &mut Option<signals::Cause>,
    counter: &indicatif::ProgressBar,
) -> Result<(), Error> {
    if let Some(pending) = mover.pending().await? {
        tally.add(mover.resume(pending).await?);
    }
    mover.sweep().await?;
    let states = [
        (From::Ready, mover.source.active.clone()),
        (From::Scheduled, mover.source.scheduled.clone()),
        (From::Dead, mover.source.dead.clone()),
    ];
    let mut waiting: Option<Instant> = None;
    loop {
        let mut moved = 0;
        let (_, sets) = r#move::holds(&mut mover.src, &mover.source, known).await?;
        let mut keys: Vec<(From, String)> = states.to_vec();
        if args.take_in_flight {
            keys.extend(sets.into_iter().map(|s| (From::InFlight, s)));
        }
        for (from, key) in &keys {
            loop {
                if stop.requested.is_cancelled() {
                    *stopped = stop.cause();
                    return Ok(());
                }
                let Some(settled) = step(mover, *from, key).await? else {
                    break;
                };
                let collided = !settled.collided.is_empty() || !settled.stuck.is_empty();
                moved += tally.add(settled);
                counter.set_position(tally.moved());
                if collided {
                    return Ok(());
                }
            }
        }
        if moved > 0 {
            continue;
        }
        let (counts, _) = r#move::holds(&mut mover.src, &mover.source, known).await?;
        if counts.ready + counts.scheduled + counts.dead > 0 {
            continue;
        }
        if counts.in_flight == 0 {
            return Ok(());
        }
        let since = *waiting.get_or_insert_with(Instant::now);
        if since.elapsed() >= args.wait {
            tally.left_in_flight = counts.in_flight;
            return Ok(());
        }
        tokio::select! {
            _ = tokio::time::sleep(POLL) => {}
            _ = stop.requested.cancelled() => {}
        }
    }
}

/// One chunk; after a transient failure, what the journal holds is finished instead.
async fn step(mover: &mut Mover, from: From, key: &str) -> Result<Option<Settled>, Error> {
    let mut tries = 0u64;
    loop {
        match mover.step(from, key).await {
            Err(e) if e.is_transient() && tries < 5 => {
                tries += 1;
                tokio::time::sleep(Duration::from_millis(200 * tries)).await;
                if let Ok(Some(pending)) = mover.pending().await {
                    return mover.resume(pending).await.map(Some);
                }
            }
            done => return done,
        }
    }
}

/// What the move will do, before it asks.
fn preview(
    counts: &Counts,
    journal: u64,
    from: &str,
    server: &str,
    to: &str,
    args: &MoveArgs,
) -> String {
    let total = counts.ready + counts.scheduled + counts.dead;
    let mut text = format!(
        "{} move {} from {from:?} at {server} to {to}:\n  {} ready, {} scheduled, {} dead",
        super::will(args.confirm.dry_run),
        plural(total, "job"),
        crate::output::thousands(counts.ready),
        crate::output::thousands(counts.scheduled),
        crate::output::thousands(counts.dead),
    );
    if journal > 0 {
        text.push_str(&format!(
            ", and first the {} an earlier move left on the way",
            plural(journal, "job")
        ));
    }
    if counts.in_flight > 0 {
        text.push_str(&if args.take_in_flight {
            format!(
                "; and the {} in flight (a job still running there then runs at {to} too)",
                plural(counts.in_flight, "job")
            )
        } else {
            format!(
                "; {} in flight there {} waited for up to {}",
                plural(counts.in_flight, "job"),
                if counts.in_flight == 1 { "is" } else { "are" },
                humantime::format_duration(args.wait)
            )
        });
    }
    text
}

/// The first three ids, shown escaped: `a, b, c`.
fn sample_ids(ids: &[String]) -> String {
    let shown: Vec<String> = ids.iter().take(3).map(|id| printable(id)).collect();
    shown.join(", ")
}

/// The destination's server from --to and the --to-* options.
fn destination_server(ctx: &Context, args: &MoveArgs, url: &str) -> anyhow::Result<ServerSpec> {
    let access = Access {
        user: args.to_user.clone(),
        password: super::password_file(args.to_password_file.as_deref())?,
        default_password: super::env_password("QCTL_TO_REDIS_PASSWORD"),
        tls_ca_cert: args.to_tls_ca_cert.clone(),
        tls_cert: args.to_tls_cert.clone(),
        tls_key: args.to_tls_key.clone(),
        tls_insecure: args.to_tls_insecure,
        cluster: args.to_cluster,
        password_from: Some("$QCTL_TO_REDIS_PASSWORD or --to-password-file FILE"),
    };
    ctx.open(url, &access, "--to-tls-insecure")
}
