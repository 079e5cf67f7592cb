//! `qctl consume QUEUE -- CMD [ARGS]`: run CMD for every job, as a CurlyQ consumer; with
//! `--pipe`, feed jobs to long-lived copies of CMD instead.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use tokio::signal::unix::{signal, SignalKind};
use tokio::sync::mpsc;

use super::Context;
use crate::cli::ConsumeArgs;
use crate::engine::consumer::{Config, Consumer, Event, Handler, Summary};
use crate::engine::jobs::describe_time;
use crate::engine::{Error, ExitCode};
use crate::handler::{resolve_program, HandlerSpec, LineSink, ProcessHandler};
use crate::pipe::{PipeHandler, PipeSpec};

pub async fn run(mut ctx: Context, args: ConsumeArgs) -> anyhow::Result<ExitCode> {
    let (mut cfg, spec, program) = config(&args)?;
    // Routine events are shown with --json and -v only.
    cfg.routine_events = ctx.out.json || ctx.out.verbose > 0;
    let handlers = cfg.concurrency;
    let depth = args.pipe_depth.map_or(1, |d| d as usize);
    let cfg = if args.pipe {
        // Every handler may hold --pipe-depth jobs: the engine runs that many at once.
        let concurrency = handlers * depth;
        Config {
            concurrency,
            handlers,
            buffer: args.buffer.map(|b| b as usize),
            ..cfg
        }
    } else {
        cfg
    };
    let queue = cfg.queue.clone();
    if cfg.orphan_after < Duration::from_secs(120) {
        ctx.out.warn(format_args!(
            "--orphan-after {}s is below 2m: live Go CurlyQ consumers (heartbeat every 60s) could be robbed of their jobs",
            cfg.orphan_after.as_secs()
        ));
    }
    ctx.keys(&queue)?;
    let server = ctx.server()?;
    let (tx, mut events) = mpsc::unbounded_channel();
    let sink = LineSink::new(ctx.out.json);
    let mut pipe = None;
    let handler: Arc<dyn Handler> = if args.pipe {
        let p = Arc::new(PipeHandler::new(
            PipeSpec {
                program: spec.program,
                args: spec.args,
                path: program,
                handlers,
                depth,
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
    let consumer = Consumer::connect(server, cfg, handler, tx.clone()).await?;
    let handle = consumer.handle();
    if let Some(p) = &pipe {
        p.start(&queue, &handle.id, tx);
    }
    ctx.out.verbose(format_args!(
        "consumer {} on queue {:?} ({})",
        handle.id, queue, handle.inflight
    ));

    let mut sigint = signal(SignalKind::interrupt())?;
    let mut sigterm = signal(SignalKind::terminate())?;
    let mut sigusr1 = signal(SignalKind::user_defined1())?;
    let mut signals = 0;
    let mut running = tokio::spawn(consumer.run());
    let (summary, failure) = loop {
        tokio::select! {
            done = &mut running => break done.expect("the consumer task does not panic"),
            Some(event) = events.recv() => render(&mut ctx, &event)?,
            _ = sigint.recv() => stop(&ctx, &handle, &mut signals),
            _ = sigterm.recv() => stop(&ctx, &handle, &mut signals),
            _ = sigusr1.recv() => {
                let snap = handle.status.snapshot();
                let mut text = String::from("status:");
                for (name, state) in &snap.loops {
                    text.push_str(&format!("\n  {name:<10} {}", serde_json::to_string(state).unwrap_or_default()));
                }
                for (id, attempt, secs) in &snap.running {
                    text.push_str(&format!("\n  running {id} (attempt {attempt}) for {secs:.1}s"));
                }
                let s = handle.summary();
                text.push_str(&format!(
                    "\n  so far: ran {}, succeeded {}, retried {}, killed {}, damaged {}, returned {}",
                    s.ran, s.succeeded, s.retried, s.killed, s.damaged, s.returned
                ));
                eprintln!("{text}");
            }
        }
    };
    // No job is outstanding any more: the pipe handlers get EOF and exit.
    if let Some(p) = &pipe {
        p.close().await;
    }
    // Handler output still queued is written before the closing summary.
    sink.flush().await;
    while let Ok(event) = events.try_recv() {
        render(&mut ctx, &event)?;
    }
    print_summary(&mut ctx, &summary)?;
    if let Some(err) = failure {
        return Err(
            anyhow::Error::from(err).context(format!("consumer of queue {queue:?} stopped"))
        );
    }
    Ok(
        if (args.drain || args.max_jobs.is_some()) && summary.any_failed() {
            ExitCode::Partial
        } else {
            ExitCode::Success
        },
    )
}

/// The consumer's configuration, the command to run and where it was found.
fn config(args: &ConsumeArgs) -> anyhow::Result<(Config, HandlerSpec, PathBuf)> {
    let (program, rest) = args
        .command
        .split_first()
        .ok_or_else(|| Error::Usage("no command given after --".into()))?;
    let resolved = resolve_program(program).map_err(|e| Error::Usage(e.to_string()))?;
    let concurrency = args
        .concurrency
        .map(|c| c as usize)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    if args.max_retries < 0 {
        return Err(Error::Usage("--max-retries must be 0 or more".into()).into());
    }
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
        .clone()
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
        max_retries: args.max_retries,
        max_backoff: args.max_backoff,
        poll_interval: args.poll_interval,
        scheduler_interval: Duration::from_secs(5)
            .min(args.poll_interval.max(Duration::from_secs(1))),
        shutdown_grace: args.shutdown_grace,
        drain: args.drain,
        max_jobs: args.max_jobs,
        routine_events: true,
    };
    Ok((cfg, spec, resolved))
}

fn stop(ctx: &Context, handle: &crate::engine::consumer::Handle, signals: &mut u32) {
    *signals += 1;
    if *signals == 1 {
        ctx.out.note(
            "stopping: no new jobs; waiting for running jobs (signal again to stop them now)",
        );
        handle.stop.cancel();
    } else {
        ctx.out
            .note("stopping running jobs; their jobs go back to the queue");
        handle.stop.cancel();
        handle.kill.cancel();
    }
}

fn render(ctx: &mut Context, event: &Event) -> anyhow::Result<()> {
    if ctx.out.json {
        // A warning goes to stderr for people and, as every event, to stdout for programs.
        if let Event::Warning { message } = event {
            ctx.out.warn(message);
        }
        let mut value = serde_json::to_value(event)?;
        value["time"] = serde_json::json!(crate::engine::now());
        ctx.out.json_line(&value)?;
        return ctx.out.flush().map_err(Into::into);
    }
    match event {
        Event::Warning { message } => ctx.out.warn(message),
        Event::Failed {
            id,
            attempt,
            reason,
            duration_ms,
            ..
        } => ctx.out.note(format_args!(
            "job {id} failed ({reason}) after {duration_ms} ms, attempt {}",
            attempt + 1
        )),
        Event::Retried { id, retry_at, .. } => ctx.out.note(format_args!(
            "job {id} will be retried at {}",
            describe_time(*retry_at)
        )),
        Event::Killed { id, attempt } => ctx
            .out
            .note(format_args!("job {id} is dead after {attempt} failures")),
        Event::Damaged { id, reason } => ctx.out.warn(format_args!(
            "job {id} has a damaged record ({reason}); moved to the dead set"
        )),
        Event::Recovered { consumer, jobs } => ctx.out.note(format_args!(
            "recovered {jobs} jobs of expired consumer {consumer}"
        )),
        Event::Lost { id, reason } => ctx.out.warn(format_args!("job {id}: {reason}")),
        Event::Returned { id, .. } => ctx
            .out
            .verbose(format_args!("job {id} returned to the queue")),
        Event::Started { id, attempt } => ctx
            .out
            .verbose(format_args!("job {id} started (attempt {})", attempt + 1)),
        Event::Succeeded {
            id, duration_ms, ..
        } => ctx
            .out
            .verbose(format_args!("job {id} succeeded in {duration_ms} ms")),
        Event::Reserved { .. } => {}
    }
    Ok(())
}

fn print_summary(ctx: &mut Context, s: &Summary) -> anyhow::Result<()> {
    if ctx.out.json {
        let mut value = serde_json::to_value(s)?;
        value["event"] = "summary".into();
        ctx.out.json_line(&value)?;
        ctx.out.flush()?;
    }
    ctx.out.note(format_args!(
        "ran {}, succeeded {}, retried {}, killed {}, damaged {}, returned {}",
        s.ran, s.succeeded, s.retried, s.killed, s.damaged, s.returned
    ));
    Ok(())
}
