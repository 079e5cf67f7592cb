//! `qctl consume QUEUE -- CMD [ARGS]`: run CMD for every job, as a CurlyQ consumer; with
//! `--pipe`, feed jobs to long-lived copies of CMD instead.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use std::panic::AssertUnwindSafe;

use futures_util::FutureExt as _;
use tokio::signal::unix::{signal, SignalKind};
use tokio::sync::mpsc;

use super::Context;
use crate::cli::ConsumeArgs;
use crate::engine::consumer::{
    Config, Consumer, DrainEnd, Event, Gate, GateOrder, Handle, Handler, Identity, Left, Member,
    RunLimit, Summary,
};
use crate::engine::jobs::describe_time;
use crate::engine::{Error, ExitCode};
use crate::handler::{check_runnable, resolve_program, HandlerSpec, LineSink, ProcessHandler};
use crate::output::{agree, handler_line, plural, printable};
use crate::pipe::{PipeHandler, PipeSpec, AUTO_DEPTH_MAX};
use crate::signals;

pub async fn run(mut ctx: Context, args: ConsumeArgs) -> anyhow::Result<ExitCode> {
    // Signals are taken over first, so that one at any moment of the start stops the
    // consumer cleanly rather than killing it.
    let stop = signals::install()?;
    let (mut cfg, spec, program) = config(&args)?;
    let queues = queues(&args)?;
    // Routine events are shown with --json and -v only.
    cfg.routine_events = ctx.out.json || ctx.out.verbose > 0;
    let handlers = cfg.concurrency;
    // Every handler holds up to its depth of jobs (--pipe-depth, or chosen as jobs run, from
    // 1 up): the engine runs as many at once as the depths add up to.
    let limit = Arc::new(match args.pipe_depth {
        Some(depth) => RunLimit::new(handlers, depth as usize, depth as usize),
        None => RunLimit::new(handlers, 1, AUTO_DEPTH_MAX),
    });
    let cfg = if args.pipe {
        Config {
            concurrency: limit.most_total(),
            handlers,
            run_limit: Some(limit.clone()),
            ..cfg
        }
    } else {
        cfg
    };
    if cfg.orphan_after < Duration::from_secs(120) {
        ctx.out.warn(format_args!(
            "--orphan-after {}s is below 2m: live Go CurlyQ consumers (heartbeat every 60s) could be robbed of their jobs",
            cfg.orphan_after.as_secs()
        ));
    }
    let mut keys = Vec::with_capacity(queues.len());
    for queue in &queues {
        keys.push(ctx.keys(queue)?);
    }
    let server = ctx.server()?;
    // A queue with no key yet: say so, with the names it may have meant, and go on.
    let then = if args.drain {
        "nothing to run"
    } else {
        "waiting for its first job"
    };
    // Nothing is taken before the consumer runs: a signal until then (a server that does not
    // answer holds the start for up to --connect-timeout) ends the run at once.
    let known = stop
        .unless_signalled(async {
            let mut redis = server.connect().await?;
            for k in &keys {
                super::warn_unknown_queue(&ctx, &mut redis, k, then).await?;
            }
            Ok::<(), anyhow::Error>(())
        })
        .await;
    let Some(known) = known else {
        return Ok(stopped_before_start(&mut ctx, &stop, &args));
    };
    known?;
    let (tx, mut events) = mpsc::unbounded_channel::<(usize, Event)>();
    let sink = LineSink::new(ctx.out.json, handler_line);
    let mut pipe = None;
    let handler: Arc<dyn Handler> = if args.pipe {
        let p = Arc::new(PipeHandler::new(
            PipeSpec {
                program: spec.program,
                args: spec.args,
                path: program,
                handlers,
                limit: limit.clone(),
                timeout: spec.timeout,
                kill_after: spec.kill_after,
            },
            sink.clone(),
        ));
        pipe = Some(p.clone());
        p
    } else {
        Arc::new(ProcessHandler {
            spec,
            program,
            sink: sink.clone(),
        })
    };
    // Several queues share the handlers' places through a gate, in their order or by weight.
    let gate = (queues.len() > 1).then(|| {
        let order = match &args.weights {
            Some(weights) => GateOrder::Weighted(weights.clone()),
            None => GateOrder::Strict,
        };
        let (capacity, held_back): GateLimits = match args.pipe {
            true => {
                let held = limit.clone();
                (
                    Box::new(move || limit.total()),
                    Box::new(move || held.hold_back()),
                )
            }
            false => (Box::new(move || handlers), Box::new(|| {})),
        };
        Gate::new(queues.len(), order, capacity, held_back)
    });
    // A signal may stop the preparation, which writes nothing, but not the registration
    // once sent: its reply says whether the entry was made, and a stop that came meanwhile
    // then ends the run at once, leaving NAME:consumers as every stop does.
    let mut consumers = Vec::with_capacity(queues.len());
    for (i, queue) in queues.iter().enumerate() {
        let member = gate.as_ref().map(|gate| Member {
            gate: gate.clone(),
            queue: i,
        });
        let handler = handler.clone();
        // With several queues, jobs wait for a place at the gate rather than for one of this
        // queue's own: twice as many may be past its own limit, so that each queue has jobs
        // waiting there whenever it has work, for the gate to choose from.
        let concurrency = match (&member, args.pipe) {
            (Some(_), false) => cfg.concurrency * 2,
            _ => cfg.concurrency,
        };
        let cfg = Config {
            queue: queue.clone(),
            member,
            concurrency,
            ..cfg.clone()
        };
        let (own_tx, mut own) = mpsc::unbounded_channel();
        let tagged = tx.clone();
        tokio::spawn(async move {
            while let Some(event) = own.recv().await {
                if tagged.send((i, event)).is_err() {
                    break;
                }
            }
        });
        let prepared = stop
            .unless_signalled(Consumer::prepare(server.clone(), cfg, handler, own_tx))
            .await;
        // Those prepared before wrote nothing: dropping them leaves nothing in Redis.
        let Some(consumer) = prepared else {
            return Ok(stopped_before_start(&mut ctx, &stop, &args));
        };
        consumers.push(consumer?);
    }
    // The pipe handlers' warnings go with the first queue's events.
    let pipe_events = {
        let (ptx, mut prx) = mpsc::unbounded_channel::<Event>();
        let tagged = tx.clone();
        tokio::spawn(async move {
            while let Some(event) = prx.recv().await {
                if tagged.send((0, event)).is_err() {
                    break;
                }
            }
        });
        ptx
    };
    drop(tx);
    let handles: Vec<Handle> = consumers.iter().map(Consumer::handle).collect();
    for consumer in &consumers {
        if let Err(e) = consumer.register().await {
            for h in &handles {
                h.give_back_and_leave().await;
            }
            return Err(e.into());
        }
    }
    if let Some(p) = &pipe {
        // With several queues, each job's line says its queue.
        let queue = match queues.as_slice() {
            [one] => Some(one.as_str()),
            _ => None,
        };
        p.start(queue, &handles[0].id, pipe_events);
    }
    for (handle, queue) in handles.iter().zip(&queues) {
        ctx.out.verbose(format_args!(
            "consumer {} on queue {:?} ({})",
            handle.id, queue, handle.inflight
        ));
    }

    let mut sigusr1 = signal(SignalKind::user_defined1())?;
    let running: Vec<_> = consumers
        .into_iter()
        .map(|c| tokio::spawn(c.run()))
        .collect();
    // Whatever happens below (a panic included), the consumers are stopped and their tasks
    // awaited, so that each returns what it holds and leaves NAME:consumers.
    let names: Vec<&str> = match queues.len() {
        1 => Vec::new(),
        _ => queues.iter().map(String::as_str).collect(),
    };
    let watched = AssertUnwindSafe(watch(
        &mut ctx,
        &handles,
        &names,
        &stop,
        &mut events,
        &mut sigusr1,
        running,
    ))
    .catch_unwind()
    .await;
    let (summaries, failure, output_error) = match watched {
        Ok(ended) => ended,
        Err(panic) => {
            for handle in &handles {
                handle.stop.cancel();
                handle.kill.cancel();
                handle.give_back_and_leave().await;
            }
            std::panic::resume_unwind(panic);
        }
    };
    // No job is outstanding any more: the pipe handlers get EOF and exit.
    if let Some(p) = &pipe {
        p.close().await;
    }
    // Handler output still queued is written before the closing summary.
    sink.flush().await;
    while let Ok((i, event)) = events.try_recv() {
        let _ = render(&mut ctx, names.get(i).copied(), &event);
    }
    let bounded = args.drain || args.max_jobs.is_some();
    // What is left is read for a bounded run (its closing line says it), unless the run
    // failed: Redis may then not answer.
    let mut lefts = Vec::with_capacity(handles.len());
    for handle in &handles {
        lefts.push(if bounded && failure.is_none() {
            let limit = handle_limit(&ctx);
            match tokio::time::timeout(limit, handle.left()).await {
                Ok(Ok(left)) => Some(left),
                _ => None,
            }
        } else {
            None
        });
    }
    let codes: Vec<ExitCode> = handles
        .iter()
        .zip(&summaries)
        .zip(&lefts)
        .map(|((h, s), l)| exit_code(&args, h, s, stop.cause(), l.as_ref()))
        .collect();
    // The first queue's code that is not success, else success.
    let code = codes
        .iter()
        .copied()
        .find(|c| *c != ExitCode::Success)
        .unwrap_or(ExitCode::Success);
    for (i, ((handle, summary), left)) in handles.iter().zip(&summaries).zip(&lefts).enumerate() {
        let closing = Closing {
            summary,
            cause: stop.cause(),
            left: left.as_ref(),
            code: codes[i],
            failed: failure.is_some(),
        };
        print_summary(&mut ctx, handle, names.get(i).copied(), &args, &closing);
    }
    if names.len() > 1 {
        print_total(&mut ctx, &summaries, code);
    }
    if let Some(err) = failure {
        let what = match queues.as_slice() {
            [one] => format!("consumer of queue {one:?} stopped"),
            many => format!("consumer of queues {} stopped", many.join(", ")),
        };
        return Err(anyhow::Error::from(err).context(what));
    }
    if let Some(err) = output_error {
        return Err(anyhow::Error::from(err).context("cannot write the consumer's output"));
    }
    Ok(code)
}

/// How many jobs the gate of several queues lets run at once, and what it tells when one
/// waits for a place.
type GateLimits = (
    Box<dyn Fn() -> usize + Send + Sync>,
    Box<dyn Fn() + Send + Sync>,
);

/// The queues to consume, in their order; with `--weights`, one weight each.
fn queues(args: &ConsumeArgs) -> anyhow::Result<Vec<String>> {
    let mut queues: Vec<String> = args.queue.clone();
    if let Some(name) = &args.queue_name {
        queues.push(name.clone());
    }
    for (i, q) in queues.iter().enumerate() {
        if queues[..i].contains(q) {
            return Err(Error::Usage(format!("queue {q:?} is given twice")).into());
        }
    }
    if queues.len() > 1 && args.max_jobs.is_some() {
        return Err(Error::Usage(
            "--max-jobs takes one queue: with several, each would count its own".into(),
        )
        .into());
    }
    if let Some(weights) = &args.weights {
        if weights.len() != queues.len() {
            return Err(Error::Usage(format!(
                "--weights gives {} weights for {}: one per queue, in their order",
                weights.len(),
                plural(queues.len() as u64, "queue")
            ))
            .into());
        }
    }
    Ok(queues)
}

/// How long the closing reads may take.
fn handle_limit(ctx: &Context) -> Duration {
    ctx.global.response_timeout.min(Duration::from_secs(5))
}

/// The end of a run that a signal stopped before the consumer started: no job was taken.
/// The exit code is the one of a consumer stopped at once (see [`exit_code`]).
fn stopped_before_start(ctx: &mut Context, stop: &signals::Stop, args: &ConsumeArgs) -> ExitCode {
    let Some(cause) = stop.cause() else {
        return ExitCode::Success;
    };
    ctx.out.last_word(&format!(
        "{} before the consumer started: no job was taken",
        crate::output::stopped_by(cause)
    ));
    match cause {
        signals::Cause::OutputClosed => ExitCode::OutputClosed,
        _ if args.drain || args.max_jobs.is_some() => cause.exit_code(),
        _ => ExitCode::Success,
    }
}

type Ended = (
    Vec<Summary>,
    Option<crate::engine::Error>,
    Option<std::io::Error>,
);

/// Shows the consumers' events and passes stop requests on until their tasks end: the first
/// request stops them, a second one stops their running handlers. One consumer ending with an
/// error stops the others. `names` are the queues' names when there are several (events
/// then say their queue).
async fn watch(
    ctx: &mut Context,
    handles: &[Handle],
    names: &[&str],
    stop: &signals::Stop,
    events: &mut mpsc::UnboundedReceiver<(usize, Event)>,
    sigusr1: &mut tokio::signal::unix::Signal,
    running: Vec<tokio::task::JoinHandle<(Summary, Option<crate::engine::Error>)>>,
) -> Ended {
    use futures_util::StreamExt as _;
    let mut output_error = None;
    let mut asked = false;
    let mut forced = false;
    let mut summaries: Vec<Option<Summary>> = handles.iter().map(|_| None).collect();
    let mut failure = None;
    let mut pending: futures_util::stream::FuturesUnordered<_> = running
        .into_iter()
        .enumerate()
        .map(|(i, task)| async move { (i, task.await) })
        .collect();
    let stop_all = |kill: bool| {
        for handle in handles {
            handle.stop.cancel();
            if kill {
                handle.kill.cancel();
            }
        }
    };
    loop {
        tokio::select! {
            done = pending.next() => {
                let Some((i, done)) = done else { break };
                match done {
                    Ok((summary, failed)) => {
                        summaries[i] = Some(summary);
                        if let Some(e) = failed {
                            failure.get_or_insert(e);
                            stop_all(false);
                        }
                    }
                    Err(join) => {
                        // The consumer's task panicked before it could clean up.
                        handles[i].give_back_and_leave().await;
                        match join.try_into_panic() {
                            Ok(panic) => std::panic::resume_unwind(panic),
                            Err(_) => summaries[i] = Some(handles[i].summary()),
                        }
                    }
                }
            }
            Some((i, event)) = events.recv() => {
                if matches!(event, Event::Started { .. }) {
                    crate::engine::test_panic("consume");
                }
                if let Err(e) = render(ctx, names.get(i).copied(), &event) {
                    // A closed pipe is a stop request (signals::Cause::OutputClosed); any
                    // other write error stops the consumer too, and is its exit's error.
                    if e.kind() != std::io::ErrorKind::BrokenPipe && output_error.is_none() {
                        output_error = Some(e);
                        stop_all(false);
                    }
                }
            }
            _ = stop.requested.cancelled(), if !asked => {
                asked = true;
                let why = stop.cause().map_or("a stop request", signals::Cause::name);
                ctx.out.note(format_args!(
                    "stopping ({why}): running jobs get {}s to end; signal again to end them now",
                    handle_grace(&handles[0])
                ));
                stop_all(false);
            }
            _ = stop.forced.cancelled(), if !forced => {
                forced = true;
                ctx.out.note("stopping running jobs; their jobs go back to the queue");
                stop_all(true);
            }
            _ = sigusr1.recv() => {
                let mut text = String::from("status:");
                for (i, handle) in handles.iter().enumerate() {
                    let snap = handle.status.snapshot();
                    if let Some(name) = names.get(i) {
                        text.push_str(&format!("\n queue {:?}:", printable(name)));
                    }
                    for (name, state) in &snap.loops {
                        text.push_str(&format!("\n  {name:<10} {}", serde_json::to_string(state).unwrap_or_default()));
                    }
                    for (id, attempt, secs) in &snap.running {
                        text.push_str(&format!("\n  running {} (run {}) for {secs:.1}s", printable(id), attempt + 1));
                    }
                    let s = handle.summary();
                    text.push_str(&format!(
                        "\n  so far: ran {}, succeeded {}, retried {}, dead {}, damaged {}, returned {}",
                        s.ran, s.succeeded, s.retried, s.killed, s.damaged, s.returned
                    ));
                }
                crate::output::stderr_line(&text);
            }
        }
    }
    let summaries = summaries
        .into_iter()
        .zip(handles)
        .map(|(s, h)| s.unwrap_or_else(|| h.summary()))
        .collect();
    (summaries, failure, output_error)
}

/// The shutdown grace in seconds, for messages.
fn handle_grace(handle: &Handle) -> f64 {
    handle.shutdown_grace().as_secs_f64()
}

/// The exit code of a consumer that ran: see docs/exit-codes.md. A stop request
/// ends a bounded run (--drain, --max-jobs) before it was done; a consumer that runs until
/// stopped did what it was asked when a signal stops it, but not when its output is closed.
fn exit_code(
    args: &ConsumeArgs,
    handle: &Handle,
    summary: &Summary,
    cause: Option<signals::Cause>,
    left: Option<&Left>,
) -> ExitCode {
    let bounded = args.drain || args.max_jobs.is_some();
    match cause {
        Some(signals::Cause::OutputClosed) => return ExitCode::OutputClosed,
        Some(cause) if bounded => return cause.exit_code(),
        Some(_) => return ExitCode::Success,
        None => {}
    }
    if args.drain {
        if summary.killed + summary.damaged > 0 {
            return ExitCode::Partial;
        }
        if handle.drain_end() == Some(DrainEnd::Paused) {
            return ExitCode::Paused;
        }
        let drained = handle.drain_end() == Some(DrainEnd::Drained);
        let nothing_left = left.is_some_and(|l| l.ready + l.retries_pending == 0);
        if !drained && !nothing_left {
            return ExitCode::Unfinished;
        }
        return ExitCode::Success;
    }
    if args.max_jobs.is_some() && summary.any_failed() {
        return ExitCode::Partial;
    }
    ExitCode::Success
}

/// --max-retries and --max-backoff when not given: a consumer retries a job 20 times with
/// waits of up to 7 days, as CurlyQ does; a drain, which a person or a CI job waits for,
/// 2 times with waits of up to 10 s.
pub const RETRIES: (i64, Duration) = (20, Duration::from_secs(7 * 24 * 3600));
pub const DRAIN_RETRIES: (i64, Duration) = (2, Duration::from_secs(10));

/// The retries and the cap of their backoff: as given, else [`RETRIES`] or, with --drain,
/// [`DRAIN_RETRIES`].
fn retries(args: &ConsumeArgs) -> (i64, Duration) {
    let (retries, backoff) = if args.drain { DRAIN_RETRIES } else { RETRIES };
    (
        args.max_retries.unwrap_or(retries),
        args.max_backoff.unwrap_or(backoff),
    )
}

/// The consumer's configuration, the command to run and where it was found.
fn config(args: &ConsumeArgs) -> anyhow::Result<(Config, HandlerSpec, PathBuf)> {
    let (program, rest) = args
        .command
        .split_first()
        .ok_or_else(|| Error::Usage("no command given after --".into()))?;
    let resolved = resolve_program(program).map_err(|e| Error::Usage(e.to_string()))?;
    check_runnable(&resolved, &resolved.display().to_string())
        .map_err(|e| Error::Usage(e.to_string()))?;
    let concurrency = args
        .concurrency
        .map(|c| c as usize)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    // --max-retries is 0 or more: its parser refuses a negative count.
    let (max_retries, max_backoff) = retries(args);
    if args.orphan_after <= args.heartbeat * 2 {
        return Err(Error::Usage(format!(
            "--orphan-after ({}s) must be more than twice --heartbeat ({}s)",
            args.orphan_after.as_secs_f64(),
            args.heartbeat.as_secs_f64()
        ))
        .into());
    }
    let queue = args
        .queue
        .first()
        .cloned()
        .or_else(|| args.queue_name.clone())
        .unwrap_or_default();
    let spec = HandlerSpec {
        program: program.clone(),
        args: rest.to_vec(),
        replace: args.replace.clone(),
        timeout: args.timeout,
        kill_after: args.kill_after,
        prefix: args.prefix,
    };
    let cfg = Config {
        queue,
        concurrency,
        handlers: concurrency,
        buffer: args.buffer.map(|b| b as usize),
        heartbeat: args.heartbeat,
        orphan_after: args.orphan_after,
        max_retries,
        max_backoff,
        poll_interval: args.poll_interval,
        scheduler_interval: Duration::from_secs(5)
            .min(args.poll_interval.max(Duration::from_secs(1))),
        shutdown_grace: args.shutdown_grace,
        kill_after: args.kill_after,
        drain: args.drain,
        wait_scheduled: args.wait_scheduled,
        max_jobs: args.max_jobs,
        rate: args.rate.as_ref().map(|r| (r.per_second(), args.burst)),
        routine_events: true,
        run_limit: None,
        member: None,
        identity: Identity {
            command: args
                .command
                .iter()
                .map(|a| a.to_string_lossy().into_owned())
                .collect(),
            mode: if args.pipe { "pipe" } else { "per-job" }.into(),
        },
    };
    Ok((cfg, spec, resolved))
}

/// Shows one event; `queue` names its queue when the consumer takes several.
fn render(ctx: &mut Context, queue: Option<&str>, event: &Event) -> std::io::Result<()> {
    if ctx.out.json {
        // A warning goes to stderr for people and, as every event, to stdout for programs.
        if let Event::Warning { message } = event {
            ctx.out.warn(printable(message));
        }
        let mut value = serde_json::to_value(event).map_err(std::io::Error::from)?;
        value["time"] = serde_json::json!(crate::engine::now());
        if let Some(queue) = queue {
            value["queue"] = queue.into();
        }
        ctx.out.json_line(&value)?;
        return ctx.out.flush();
    }
    // Ids, reasons and consumers come from jobs and Redis: shown escaped (`printable`).
    let p = printable;
    let q = queue.map_or(String::new(), |name| format!("{}: ", p(name)));
    match event {
        Event::Warning { message } => ctx.out.warn(format_args!("{q}{}", p(message))),
        Event::Failed {
            id,
            attempt,
            reason,
            duration_ms,
            ..
        } => ctx.out.note(format_args!(
            "{q}job {} failed ({}) on run {} after {duration_ms} ms",
            p(id),
            p(reason),
            attempt + 1
        )),
        Event::Retried { id, retry_at, .. } => ctx.out.note(format_args!(
            "{q}job {} will be retried at {}",
            p(id),
            describe_time(*retry_at)
        )),
        Event::Killed { id, attempt } => ctx.out.note(format_args!(
            "{q}job {} moved to the dead set after {}",
            p(id),
            plural(*attempt as u64, "failure")
        )),
        Event::Damaged { id, reason } => ctx.out.warn(format_args!(
            "{q}job {} has a damaged record ({}); moved to the dead set",
            p(id),
            p(reason)
        )),
        Event::Recovered { consumer, jobs } => ctx.out.note(format_args!(
            "{q}recovered {} of expired consumer {}",
            plural(*jobs, "job"),
            p(consumer)
        )),
        Event::Lost { id, reason } => ctx
            .out
            .warn(format_args!("{q}job {}: {}", p(id), p(reason))),
        Event::Returned { id, .. } => ctx
            .out
            .verbose(format_args!("{q}job {} returned to the queue", p(id))),
        Event::Started { id, attempt } => ctx.out.verbose(format_args!(
            "{q}job {} started (run {})",
            p(id),
            attempt + 1
        )),
        Event::Succeeded {
            id, duration_ms, ..
        } => ctx.out.verbose(format_args!(
            "{q}job {} succeeded in {duration_ms} ms",
            p(id)
        )),
        Event::Depth { handler, depth } => ctx
            .out
            .verbose(format_args!("{q}handler {handler}: depth {depth}")),
        Event::Reserved { .. } => {}
    }
    Ok(())
}

/// How a run ended, for its closing lines.
#[derive(Clone, Copy)]
struct Closing<'a> {
    summary: &'a Summary,
    cause: Option<signals::Cause>,
    left: Option<&'a Left>,
    code: ExitCode,
    failed: bool,
}

/// The closing lines: the counts, and for a bounded run how it ended and what it left. With
/// --json also a `summary` event on stdout. Write errors are not the run's: ignored.
fn print_summary(
    ctx: &mut Context,
    handle: &Handle,
    queue: Option<&str>,
    args: &ConsumeArgs,
    closing: &Closing,
) {
    let Closing {
        summary: s,
        cause,
        left,
        code,
        failed,
    } = *closing;
    let (ended, how) = ending(args, handle, cause, failed);
    if ctx.out.json {
        if let Ok(mut value) = serde_json::to_value(s) {
            value["event"] = "summary".into();
            value["ended"] = ended.into();
            value["stopped_by"] = cause.map(signals::Cause::name).into();
            value["left"] = left.map_or(serde_json::Value::Null, |l| {
                serde_json::to_value(l).unwrap_or_default()
            });
            value["exit_code"] = (code as u8).into();
            value["time"] = serde_json::json!(crate::engine::now());
            if let Some(queue) = queue {
                value["queue"] = queue.into();
            }
            if let Some(by) = handle.stopped_by() {
                value["stopped_by_order_of"] = by.into();
            }
            let _ = ctx.out.json_line(&value).and_then(|_| ctx.out.flush());
        }
    }
    let q = queue.map_or(String::new(), |name| format!("{}: ", printable(name)));
    ctx.out.note(format_args!(
        "{q}ran {}, succeeded {}, retried {}, dead {}, damaged {}, returned {}",
        s.ran, s.succeeded, s.retried, s.killed, s.damaged, s.returned
    ));
    if let Some(by) = handle.stopped_by() {
        ctx.out.note(format_args!(
            "{q}stopped by {} (qctl consumers stop)",
            printable(&by)
        ));
    }
    if args.drain || args.max_jobs.is_some() {
        let what = match left {
            Some(l) => describe_left(l, args.drain && !args.wait_scheduled),
            None => "what is left could not be read".into(),
        };
        ctx.out.note(format_args!("{q}{how}; {what}"));
    }
}

/// The closing line of a consumer of several queues: the counts over all of them, and with
/// `--json` a `total` event.
fn print_total(ctx: &mut Context, summaries: &[Summary], code: ExitCode) {
    let mut t = Summary::default();
    for s in summaries {
        t.ran += s.ran;
        t.succeeded += s.succeeded;
        t.retried += s.retried;
        t.killed += s.killed;
        t.damaged += s.damaged;
        t.returned += s.returned;
    }
    if ctx.out.json {
        if let Ok(mut value) = serde_json::to_value(&t) {
            value["event"] = "total".into();
            value["exit_code"] = (code as u8).into();
            value["time"] = serde_json::json!(crate::engine::now());
            let _ = ctx.out.json_line(&value).and_then(|_| ctx.out.flush());
        }
    }
    ctx.out.note(format_args!(
        "all queues: ran {}, succeeded {}, retried {}, dead {}, damaged {}, returned {}",
        t.ran, t.succeeded, t.retried, t.killed, t.damaged, t.returned
    ));
}

/// How a run ended: a stable word for `--json` (`drained`, `paused`, `max_jobs`, `stopped`,
/// `failed`) and words for people.
fn ending(
    args: &ConsumeArgs,
    handle: &Handle,
    cause: Option<signals::Cause>,
    failed: bool,
) -> (&'static str, String) {
    if failed {
        return ("failed", "stopped by an error".into());
    }
    if let Some(cause) = cause {
        let how = match cause {
            signals::Cause::OutputClosed => "stopped because its output was closed".into(),
            cause => format!("stopped by {}", cause.name()),
        };
        return ("stopped", how);
    }
    match handle.drain_end() {
        Some(DrainEnd::Drained) => ("drained", "drained".into()),
        Some(DrainEnd::Paused) => (
            "paused",
            "not drained: the queue is paused (qctl pause, or a cap or rate of 0 set by qctl limit)"
                .into(),
        ),
        None if args.max_jobs.is_some() && handle.max_jobs_reached() => {
            ("max_jobs", "max jobs reached".into())
        }
        None => ("stopped", "stopped".into()),
    }
}

/// `left: 3 ready, 2 retries pending, 1 in flight elsewhere, 4 scheduled` or `nothing left`.
fn describe_left(l: &Left, scheduled_not_waited: bool) -> String {
    let mut parts = Vec::new();
    if l.ready > 0 {
        parts.push(format!("{} ready", l.ready));
    }
    if l.retries_pending > 0 {
        parts.push(format!(
            "{} {} pending",
            l.retries_pending,
            agree(l.retries_pending, "retry", "retries")
        ));
    }
    if l.in_flight_elsewhere > 0 {
        parts.push(format!("{} in flight elsewhere", l.in_flight_elsewhere));
    }
    if l.scheduled > 0 {
        parts.push(if scheduled_not_waited {
            format!(
                "{} scheduled for later (not waited for; --wait-scheduled waits)",
                l.scheduled
            )
        } else {
            format!("{} scheduled", l.scheduled)
        });
    }
    if parts.is_empty() {
        "nothing left".into()
    } else {
        format!("left: {}", parts.join(", "))
    }
}
