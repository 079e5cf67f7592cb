//! `qctl cancel QUEUE ID...`: asks the qctl consumers holding running jobs to stop their
//! handlers and settle them (dead, or `--retry`), waits for each settle, and says what became
//! of every id (see engine::orders).

use serde_json::json;

use super::Context;
use crate::cli::CancelArgs;
use crate::engine::orders::{self, Fate, Settle};
use crate::engine::ExitCode;
use crate::output::{plural, printable};
use crate::signals;

pub async fn run(mut ctx: Context, args: CancelArgs) -> anyhow::Result<ExitCode> {
    let keys = ctx.keys(&args.queue)?;
    let spec = ctx.server()?;
    let mut redis = spec.connect().await?;
    super::require_queue(&mut redis, &keys).await?;
    let settle = if args.retry {
        Settle::Retry
    } else {
        Settle::Dead
    };
    let plan = orders::plan_cancel(&mut redis, &keys, &args.ids).await?;
    let asked = plan.asked();
    let by = orders::by_cli();
    if args.confirm.dry_run || asked == 0 || !args.confirm.yes {
        let would = if args.confirm.dry_run {
            "would cancel "
        } else {
            ""
        };
        for (consumer, jobs) in &plan.asks {
            for id in jobs {
                ctx.out.note(format_args!(
                    "{would}{}",
                    plan.describe(id, consumer, &keys)
                ));
            }
        }
    }
    if args.confirm.dry_run || asked == 0 {
        for fate in &plan.fates {
            say(&mut ctx, fate)?;
        }
        ctx.out.flush()?;
        if args.confirm.dry_run {
            ctx.out.note("dry run: nothing changed");
            return Ok(ExitCode::Success);
        }
        return Ok(ExitCode::NothingDone);
    }

    let stop = signals::install()?;
    let goes = match settle {
        Settle::Dead => format!("to {}", keys.dead),
        Settle::Retry => "to run again at once".to_string(),
    };
    if !args.confirm.yes {
        ctx.out.note(format_args!(
            "their handlers are stopped; each goes {goes}, its failure \"cancelled by {}\"",
            printable(&by)
        ));
    }
    let question = format!("cancel {}?", plural(asked as u64, "running job"));
    if let Some(end) = super::ask(&mut ctx, &question, args.confirm.yes, &stop).await? {
        return Ok(end);
    }
    super::may_record(&mut redis, &keys).await?;
    // A stop request ends the wait, not the order: the consumers carry it out all the same.
    let fates = tokio::select! {
        fates = orders::cancel(&spec, &redis, &keys, &plan, settle, &by) => fates,
        _ = stop.requested.cancelled() => {
            let cause = stop.cause().unwrap_or(signals::Cause::Interrupt);
            let mut change = orders::cancel_change(settle, &plan.fates);
            change.unconfirmed = asked as u64;
            change.interrupted = Some(cause.name().to_string());
            super::record(&ctx, &mut redis, &keys, &change, Some(&stop)).await;
            ctx.out.last_word(&format!(
                "{}: stopped waiting for the answers; the orders were given and their consumers carry them out (`qctl find {} ID` says where a job is)",
                crate::output::stopped_by(cause),
                printable(&crate::output::shell_quote(&keys.name))
            ));
            return Ok(cause.exit_code());
        }
    };
    let change = orders::cancel_change(settle, &fates);
    super::record(&ctx, &mut redis, &keys, &change, Some(&stop)).await;
    for fate in &fates {
        say(&mut ctx, fate)?;
    }
    ctx.out.flush()?;
    let cancelled = fates.iter().filter(|f| f.result == "cancelled").count();
    Ok(match cancelled {
        n if n == fates.len() => ExitCode::Success,
        0 => ExitCode::NothingDone,
        _ => ExitCode::Partial,
    })
}

/// One id's fate: a line on stdout, or its JSON.
fn say(ctx: &mut Context, fate: &Fate) -> anyhow::Result<()> {
    if ctx.out.json {
        ctx.out.json_line(&json!(fate))?;
    } else {
        ctx.out.line(format!(
            "{}: {}: {}",
            printable(&fate.id),
            fate.result.replace('_', " "),
            printable(&fate.detail)
        ))?;
    }
    Ok(())
}
