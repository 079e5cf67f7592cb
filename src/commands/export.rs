//! `qctl export QUEUE`: the whole queue as JSON lines, a header and one line per job, read in
//! bounded chunks; reads only.

use anyhow::Context as _;

use super::Context;
use crate::cli::ExportArgs;
use crate::engine::transfer::{Exporter, State};
use crate::engine::ExitCode;
use crate::output::plural;
use crate::signals;

pub async fn run(mut ctx: Context, args: ExportArgs) -> anyhow::Result<ExitCode> {
    let keys = ctx.keys(&args.queue)?;
    let states = if args.states.is_empty() {
        State::ALL.to_vec()
    } else {
        args.states.clone()
    };
    let stop = signals::install()?;
    let server = ctx.server()?;
    let Some(redis) = stop.unless_signalled(server.connect()).await else {
        return Ok(super::stopped_before_redis_answered(&mut ctx, &stop));
    };
    let mut redis = redis?;
    super::require_queue(&mut redis, &keys).await?;
    let (mut exporter, header) = Exporter::start(&mut redis, &keys, &states)
        .await
        .with_context(|| format!("cannot read queue {:?}", keys.name))?;
    ctx.out.json_line(&header)?;
    let c = header.counts;
    let wanted = |s: State| states.contains(&s);
    let total = [
        (wanted(State::Ready), c.ready),
        (
            wanted(State::Scheduled) || wanted(State::Retrying),
            c.scheduled,
        ),
        (wanted(State::Dead), c.dead),
        (wanted(State::InFlight), c.in_flight),
    ]
    .iter()
    .filter(|(w, _)| *w)
    .map(|(_, n)| n)
    .sum();
    let bar = ctx.out.progress(total, "exporting");
    let mut counts: Vec<(State, u64)> = State::ALL.iter().map(|s| (*s, 0)).collect();
    let mut n = 0u64;
    loop {
        if stop.requested.is_cancelled() {
            bar.finish_and_clear();
            let cause = stop.cause().unwrap_or(signals::Cause::Interrupt);
            ctx.out.flush()?;
            ctx.out.last_word(&format!(
                "{}: exported {} of queue {:?}; the export is incomplete",
                crate::output::stopped_by(cause),
                plural(n, "job"),
                keys.name
            ));
            return Ok(cause.exit_code());
        }
        let Some(chunk) = exporter
            .next(&mut redis)
            .await
            .with_context(|| format!("cannot read queue {:?}", keys.name))?
        else {
            break;
        };
        for job in &chunk {
            ctx.out.line(job.line())?;
            if let Some(c) = counts.iter_mut().find(|(s, _)| *s == job.state) {
                c.1 += 1;
            }
        }
        n += chunk.len() as u64;
        bar.set_position(n);
    }
    bar.finish_and_clear();
    ctx.out.flush()?;
    let by_state: Vec<String> = counts
        .iter()
        .filter(|(s, n)| *n > 0 && wanted(*s))
        .map(|(s, n)| {
            format!(
                "{} {}",
                crate::output::thousands(*n),
                s.name().replace('_', " ")
            )
        })
        .collect();
    ctx.out.note(format_args!(
        "exported {} of queue {:?}{}",
        plural(n, "job"),
        keys.name,
        if by_state.is_empty() {
            String::new()
        } else {
            format!(": {}", by_state.join(", "))
        }
    ));
    Ok(ExitCode::Success)
}
