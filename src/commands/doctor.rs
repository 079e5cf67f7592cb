//! `qctl doctor [QUEUE...]`: check the server, the user's rights on each queue and each
//! queue's integrity; print every finding with its fix, and end with the worst severity's
//! exit code. `--fix` repairs what needs no guessing, after a preview and a question.

use serde_json::json;

use super::Context;
use crate::cli::DoctorArgs;
use crate::engine::changes::Change;
use crate::engine::doctor::{self, Area, Finding};
use crate::engine::health::Severity;
use crate::engine::integrity::{self, Repair, Report};
use crate::engine::{ExitCode, QueueKeys};
use crate::output::{
    agree, cut, plural, printable, printable_message, shell_quote, stopped_by, wrap,
};
use crate::signals;

/// The width human output fits.
const WIDTH: usize = 80;
/// Where the text of a finding starts: after two spaces and the severity.
const INDENT: usize = 12;

pub async fn run(mut ctx: Context, args: DoctorArgs) -> anyhow::Result<ExitCode> {
    if (args.confirm.yes || args.confirm.dry_run) && !args.fix {
        // A bad command line is UNKNOWN in the monitoring-plugins convention.
        crate::output::print_error(&anyhow::anyhow!("--yes and --dry-run go with --fix"));
        return Ok(crate::engine::health::Severity::Unknown.exit_code());
    }
    let spec = ctx.server()?;
    let queues: Vec<QueueKeys> = args
        .queues
        .iter()
        .map(|q| ctx.keys(q))
        .collect::<Result<_, _>>()?;
    let mut findings: Vec<Finding> = Vec::new();
    let mut reports: Vec<(QueueKeys, Report)> = Vec::new();
    let cluster = spec.is_cluster();
    let examined = async {
        let mut redis = spec.connect().await?;
        doctor::examine(&mut redis, &queues, cluster, &mut findings, &mut reports).await
    };
    if let Err(e) = examined.await {
        // Redis could not be read (any more): what was found so far, and UNKNOWN.
        findings.push(doctor::unreadable(&e, spec.server()));
    }
    let worst = doctor::worst(&findings);
    let shown = if ctx.out.json {
        Ok(())
    } else {
        render(&mut ctx, &findings, &reports).and_then(|()| ctx.out.flush())
    };
    if !args.fix || worst == Severity::Unknown && reports.is_empty() {
        // A closed output does not change the verdict: the exit code is the answer.
        if ctx.out.json {
            let _ = ctx.out.json_line(&doctor::Document::of(&findings, None));
            let _ = ctx.out.flush();
        }
        return Ok(worst.exit_code());
    }
    shown?;
    fix(ctx, &args, spec, findings, reports).await
}

/// The findings for people: grouped by server, rights and queue, each fitting 80 columns;
/// an OK check on one line.
fn render(
    ctx: &mut Context,
    findings: &[Finding],
    reports: &[(QueueKeys, Report)],
) -> std::io::Result<()> {
    let mut heading = String::new();
    for f in findings {
        let head = match f.area {
            Area::Server => format!("server {}", f.node.as_deref().unwrap_or("")),
            Area::Rights => format!(
                "rights of the current user on queue {}",
                printable(&shell_quote(f.queue.as_deref().unwrap_or("")))
            ),
            Area::Queue => {
                let q = f.queue.as_deref().unwrap_or("");
                let records = reports
                    .iter()
                    .find(|(k, _)| k.name == q)
                    .map(|(_, r)| format!(" ({})", plural(r.records, "record")))
                    .unwrap_or_default();
                format!("queue {}{records}", printable(&shell_quote(q)))
            }
        };
        if head != heading {
            ctx.out.line(&head)?;
            heading = head;
        }
        let label = format!("  {:<width$}", f.severity.label(), width = INDENT - 2);
        let label = if f.severity == Severity::Ok {
            label
        } else {
            let colour = match f.severity {
                Severity::Warning => "33",
                _ => "31",
            };
            ctx.out.paint(&label, colour)
        };
        if f.severity == Severity::Ok {
            ctx.out.line(format!(
                "{label}{}",
                cut(&printable(&f.summary), WIDTH - INDENT)
            ))?;
            continue;
        }
        let mut lines = wrap(&printable(&f.summary), WIDTH - INDENT, usize::MAX);
        if let Some(key) = &f.key {
            lines.extend(wrap(
                &format!("key: {}", printable(key)),
                WIDTH - INDENT,
                usize::MAX,
            ));
        }
        if !f.samples.is_empty() {
            let samples: Vec<String> = f.samples.iter().map(|s| printable(s)).collect();
            let more = match f.count {
                Some(n) if n as usize > samples.len() => {
                    format!(" (and {} more)", n as usize - samples.len())
                }
                _ => String::new(),
            };
            lines.extend(wrap(
                &format!("samples: {}{more}", samples.join(", ")),
                WIDTH - INDENT,
                usize::MAX,
            ));
        }
        if !f.explanation.is_empty() {
            lines.extend(wrap(
                &printable_message(&f.explanation),
                WIDTH - INDENT,
                usize::MAX,
            ));
        }
        if let Some(fix) = &f.fix {
            lines.extend(wrap(
                &format!("fix: {}", printable_message(fix)),
                WIDTH - INDENT,
                usize::MAX,
            ));
        }
        for (i, line) in lines.iter().enumerate() {
            if i == 0 {
                ctx.out.line(format!("{label}{line}"))?;
            } else {
                ctx.out.line(format!("{}{line}", " ".repeat(INDENT)))?;
            }
        }
    }
    let count = |s: Severity| findings.iter().filter(|f| f.severity == s).count();
    let worst = doctor::worst(findings);
    ctx.out.line(format!(
        "{}: {} critical, {} warning, {} unknown, {} OK",
        worst.label(),
        count(Severity::Critical),
        count(Severity::Warning),
        count(Severity::Unknown),
        count(Severity::Ok)
    ))?;
    Ok(())
}

/// `--fix`: preview, question, then the repairs, each id printed.
async fn fix(
    mut ctx: Context,
    args: &DoctorArgs,
    spec: crate::engine::ServerSpec,
    findings: Vec<Finding>,
    reports: Vec<(QueueKeys, Report)>,
) -> anyhow::Result<ExitCode> {
    let stranded: usize = reports.iter().map(|(_, r)| r.stranded.len()).sum();
    let missing: usize = reports.iter().map(|(_, r)| r.missing.len()).sum();
    // What stays wrong whatever the fix does.
    let fixable = |f: &Finding| {
        matches!(
            f.check.as_str(),
            "records-in-no-state" | "ids-without-record"
        )
    };
    let rest = findings
        .iter()
        .filter(|f| !fixable(f) || f.summary.contains("were read again"))
        .fold(Severity::Ok, |w, f| w.worst(f.severity));
    let worst = doctor::worst(&findings);
    if stranded + missing == 0 {
        if ctx.out.json {
            ctx.out.json_line(&doctor::Document::of(
                &findings,
                Some(json!({"requeued": [], "removed": []})),
            ))?;
            ctx.out.flush()?;
        }
        ctx.out.note("nothing to fix");
        return Ok(worst.exit_code());
    }
    // From the preview on, a stop request ends the command at a clean point: before the
    // first call nothing changed, and from then on the call in flight answers and the
    // command says what it did.
    let stop = signals::install()?;
    // The list they go back to: the queue's, or each queue's when doctor looked at several.
    let active = match reports.as_slice() {
        [(keys, _)] => printable(&keys.active),
        _ => "each queue's active list".to_string(),
    };
    let plan = format!(
        "put {} in no state back at the tail of {active} and remove {} without a record from {} keys",
        plural(stranded as u64, "record"),
        plural(missing as u64, "id"),
        agree(missing as u64, "its", "their")
    );
    ctx.out
        .note(format_args!("{} {plan}", super::will(args.confirm.dry_run)));
    if args.confirm.dry_run {
        let would_requeue: Vec<serde_json::Value> = reports
            .iter()
            .flat_map(|(k, r)| {
                r.stranded
                    .iter()
                    .map(move |id| json!({"id": String::from_utf8_lossy(id), "key": k.active}))
            })
            .collect();
        let would_remove: Vec<serde_json::Value> = reports
            .iter()
            .flat_map(|(_, r)| {
                r.missing
                    .iter()
                    .map(|(key, _, id)| json!({"id": String::from_utf8_lossy(id), "key": key}))
            })
            .collect();
        if ctx.out.json {
            ctx.out.json_line(&doctor::Document::of(
                &findings,
                Some(json!({"dry_run": true, "requeue": would_requeue, "remove": would_remove})),
            ))?;
        } else {
            for (keys, r) in &reports {
                for id in &r.stranded {
                    ctx.out.line(format!(
                        "would requeue {} to {}",
                        printable(&String::from_utf8_lossy(id)),
                        printable(&keys.active)
                    ))?;
                }
                for (key, _, id) in &r.missing {
                    ctx.out.line(format!(
                        "would remove {} from {}",
                        printable(&String::from_utf8_lossy(id)),
                        printable(key)
                    ))?;
                }
            }
        }
        ctx.out.flush()?;
        ctx.out.note("dry run: nothing changed");
        return Ok(match stop.cause() {
            Some(cause) if cause != signals::Cause::OutputClosed => cause.exit_code(),
            _ => worst.exit_code(),
        });
    }
    if let Some(end) = super::ask(&mut ctx, &format!("{plan}?"), args.confirm.yes, &stop).await? {
        return Ok(end);
    }
    let mut redis = spec.connect().await?;
    let mut repair = Repair::default();
    let mut failure: Option<anyhow::Error> = None;
    let stopped = || stop.requested.is_cancelled();
    for (keys, report) in &reports {
        if let Err(e) = super::may_record(&mut redis, keys).await {
            failure = Some(e);
            break;
        }
        let (requeued, removed) = (repair.requeued.len(), repair.removed.len());
        let step = async {
            integrity::requeue_stranded(&mut redis, keys, report, &mut repair, &stopped).await?;
            integrity::drop_missing(&mut redis, keys, report, &mut repair, &stopped).await
        };
        let result = tokio::select! {
            r = step => r,
            _ = stop.forced.cancelled() => Ok(()),
        };
        // What was done to this queue goes into its record of changes.
        let mut change = Change::new("doctor fix");
        for id in &repair.requeued[requeued..] {
            change.did(id);
        }
        for (_, id) in &repair.removed[removed..] {
            change.did(id);
        }
        change.detail = format!(
            "requeued {} in no state, removed {} without a record",
            plural((repair.requeued.len() - requeued) as u64, "record"),
            plural((repair.removed.len() - removed) as u64, "id")
        );
        change.interrupted = stop.cause().map(|cause| cause.name().to_string());
        change.error = result.as_ref().err().map(|e| e.to_string());
        super::record(&ctx, &mut redis, keys, &change, Some(&stop)).await;
        if let Err(e) = result {
            let unknown = match e.outcome_unknown() {
                true => {
                    ": the last call, up to 100 ids, was sent and whether it took effect is not known"
                }
                false => "",
            };
            failure = Some(
                anyhow::Error::from(e)
                    .context(format!("cannot repair queue {:?}{unknown}", keys.name)),
            );
            break;
        }
        if stopped() {
            break;
        }
    }
    let tally = format!(
        "requeued {} in no state and removed {} without a record",
        plural(repair.requeued.len() as u64, "record"),
        plural(repair.removed.len() as u64, "id")
    );
    let written = write_repair(&mut ctx, &findings, &repair);
    let done = repair.requeued.len() + repair.removed.len() + repair.left as usize;
    if let Some(cause) = stop.cause().filter(|_| done < stranded + missing) {
        ctx.out.last_word(&format!(
            "{}: {tally}; run the same command again to go on",
            stopped_by(cause)
        ));
        return Ok(cause.exit_code());
    }
    if let Some(err) = failure {
        return Err(err.context(format!("{tally} before the error")));
    }
    ctx.out.after_done(written)?;
    ctx.out.note(format_args!(
        "{tally}{}",
        if repair.left > 0 {
            format!(
                "; {} changed since the check and were left alone",
                repair.left
            )
        } else {
            String::new()
        }
    ));
    Ok(rest.exit_code())
}

/// A line per id repaired (or, with --json, the document with what was done).
fn write_repair(ctx: &mut Context, findings: &[Finding], repair: &Repair) -> std::io::Result<()> {
    if ctx.out.json {
        ctx.out.json_line(&doctor::Document::of(findings, Some(json!({
                "requeued": repair.requeued,
                "removed": repair.removed.iter().map(|(k, id)| json!({"key": k, "id": id})).collect::<Vec<_>>(),
                "left": repair.left,
            })),
        ))?;
    } else {
        for id in &repair.requeued {
            ctx.out.line(format!("requeued {}", printable(id)))?;
        }
        for (key, id) in &repair.removed {
            ctx.out
                .line(format!("removed {} from {}", printable(id), printable(key)))?;
        }
    }
    ctx.out.flush()
}
