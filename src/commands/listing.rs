//! What `dead`, `scheduled` and `active` share: listing a page of jobs, showing one job,
//! and bulk changes with a preview, a confirmation, chunks and a progress bar.

use anyhow::Context as _;
use serde_json::json;

use super::Context;
use crate::cli::{BulkArgs, FilterArgs, ListArgs, ShowArgs};
pub use crate::engine::bulk::Action;
use crate::engine::bulk::{self, Selection};
use crate::engine::jobs::{describe_time, Found, Gone, Location, Stored};
pub use crate::engine::listing::Place;
use crate::engine::listing::{self, Filter, Pager};
use crate::engine::{self, Error, ExitCode, QueueKeys};
use crate::output::{
    due_text, listed_cells, listed_columns, listed_json, plural, preview, printable,
    printable_message, shown_json, stopped_by, thousands,
};
use crate::signals;

/// Ids reported one by one on stderr before only counting them.
const MAX_REPORTED: usize = 50;

/// The filter of `args` for jobs in `place` (see [`Filter::for_place`]).
pub fn filter_for(args: &FilterArgs, place: Place) -> Result<Filter, Error> {
    filter(args).for_place(place)
}

pub fn filter(args: &FilterArgs) -> Filter {
    Filter {
        grep: args.grep.clone(),
        since: args.since,
        until: args.until,
        min_attempts: args.min_attempts,
        reason: args.reason.clone(),
        group: args.group.clone(),
    }
}

pub async fn list(mut ctx: Context, args: ListArgs, place: Place) -> anyhow::Result<ExitCode> {
    let keys = ctx.keys(&args.queue)?;
    let mut redis = ctx.server()?.connect().await?;
    super::require_queue(&mut redis, &keys).await?;
    let filter = filter_for(&args.filter, place)?;
    let limit = page_limit(args.limit);
    let mut pager = Pager::of(&mut redis, &keys, place, &filter, args.offset, limit)
        .await
        .with_context(|| format!("cannot list {}", place.key(&keys)))?;
    let now = engine::now();
    let columns = listed_columns(place);
    let mut rows = Vec::new();
    let mut shown = 0u64;
    // JSON is written chunk by chunk as it is read, so any --limit runs in bounded memory.
    if ctx.out.json && !args.jsonl {
        ctx.out.raw(b"[")?;
    }
    while let Some(chunk) = pager
        .next(&mut redis, &keys)
        .await
        .with_context(|| format!("cannot list {}", place.key(&keys)))?
    {
        for e in &chunk {
            if args.jsonl {
                ctx.out.json_line(&listed_json(e, place))?;
            } else if ctx.out.json {
                if shown > 0 {
                    ctx.out.raw(b",")?;
                }
                ctx.out.json(&listed_json(e, place))?;
            } else {
                rows.push(listed_cells(place, e, args.offset + shown, now));
            }
            shown += 1;
        }
    }
    if ctx.out.json && !args.jsonl {
        ctx.out.raw(b"]\n")?;
    } else if !args.jsonl {
        if shown == 0 {
            let note =
                listing::nothing_shown(&mut redis, &keys, place, &filter, args.offset).await?;
            ctx.out.note(note);
        } else {
            let table = ctx.out.fit_table(columns, rows);
            ctx.out.print_table(&table)?;
        }
    }
    ctx.out.flush()?;
    // JSON too says when it is a page, so that a script never takes a page for the whole.
    let machine = ctx.out.json || args.jsonl;
    if shown > 0 && (!machine || pager.next_offset().is_some()) {
        ctx.out.note(format_args!(
            "{shown} shown of {} in {}{}",
            pager.total(),
            place.key(&keys),
            next_page(pager.next_offset())
        ));
    }
    Ok(ExitCode::Success)
}

/// The most items a page of a listing holds: `--limit N`, and 0 for no limit.
pub fn page_limit(limit: usize) -> u64 {
    match limit {
        0 => u64::MAX,
        n => n as u64,
    }
}

/// `; next page: --offset N (--limit 0 shows every one)` when a listing has more after its
/// page, else nothing.
pub fn next_page(offset: Option<u64>) -> String {
    offset
        .map(|o| format!("; next page: --offset {o} (--limit 0 shows every one)"))
        .unwrap_or_default()
}

pub async fn show(mut ctx: Context, args: ShowArgs, place: Place) -> anyhow::Result<ExitCode> {
    let keys = ctx.keys(&args.queue)?;
    let mut redis = ctx.server()?.connect().await?;
    super::require_queue(&mut redis, &keys).await?;
    let (queue, id) = (&args.queue, &args.id);
    if args.raw {
        return raw(&mut ctx, &mut redis, &keys, id, place).await;
    }
    let found = engine::jobs::show(&mut redis, &keys, id)
        .await
        .with_context(|| format!("cannot read job {id:?} of queue {queue:?}"))?;
    let mut shown = match found {
        Found::Job(shown) => shown,
        Found::Gone(gone) => return Err(Error::NothingDone(gone.words()).into()),
    };
    not_in_place(&ctx, &keys, id, &shown.location, place);
    // The time of its place, when it is in the place the command names.
    shown.entry.score = shown
        .score()
        .filter(|(name, _)| *name == place.score_name())
        .map(|(_, t)| t);
    let entry = &shown.entry;
    let location = &shown.location;
    if ctx.out.json {
        ctx.out
            .json_line(&shown_json(queue, &shown, place.score_name()))?;
    } else {
        let now = engine::now();
        // What came from the job and from Redis is shown escaped.
        let mut lines = vec![
            format!("id:        {}", printable(id)),
            format!("where:     {}", printable(&location.to_string())),
        ];
        if let Some(s) = entry.score {
            lines.push(format!(
                "{:<10} {} ({})",
                format!("{}:", place.score_name()),
                describe_time(s),
                due_text(place, s, now)
            ));
        }
        if let Some(a) = entry.attempt() {
            lines.push(format!("failures:  {a}"));
        }
        match entry.damage() {
            Some(why) => {
                lines.push(format!("damaged:   {}", printable(&why)));
                if let Some(raw) = &entry.raw {
                    lines.push(format!(
                        "stored:    {} bytes: {}",
                        raw.len(),
                        hex_preview(raw, 64)
                    ));
                }
            }
            None => lines.push(format!(
                "data:      {}",
                preview(entry.data().unwrap_or_default(), 2000)
            )),
        }
        if let Some(f) = &entry.failure {
            lines.push(format!(
                "failure:   {} (run {}, {} ms, at {})",
                printable(&f.reason),
                f.attempt.saturating_add(1),
                f.duration_ms,
                describe_time(f.time)
            ));
            if !f.stderr.is_empty() {
                lines.push("stderr (last 4 KiB):".into());
                lines.extend(
                    f.stderr
                        .lines()
                        .map(|l| format!("  {}", printable_message(l))),
                );
            }
        }
        for l in lines {
            ctx.out.line(l)?;
        }
    }
    ctx.out.flush()?;
    Ok(ExitCode::Success)
}

/// Warns when the job is not where the command looks (`dead show` of a ready job).
fn not_in_place(ctx: &Context, keys: &QueueKeys, id: &str, location: &Location, place: Place) {
    let expected = match place {
        Place::Dead => matches!(location, Location::Dead { .. }),
        Place::Scheduled => matches!(location, Location::Scheduled { .. }),
        Place::Active => matches!(location, Location::Active { .. }),
    };
    if !expected {
        ctx.out.warn(format_args!(
            "job {id:?} is not in {}: it is {}",
            place.key(keys),
            printable(&location.to_string())
        ));
    }
}

/// `show --raw`: only the job's data bytes, read once; a damaged record's stored bytes are
/// written as they are, for inspection.
async fn raw(
    ctx: &mut Context,
    redis: &mut engine::Redis,
    keys: &QueueKeys,
    id: &str,
    place: Place,
) -> anyhow::Result<ExitCode> {
    let queue = &keys.name;
    let what = || format!("cannot read job {id:?} of queue {queue:?}");
    let stored = engine::jobs::stored(redis, keys, id)
        .await
        .with_context(what)?;
    let location = engine::jobs::locate(redis, keys, id).await?;
    if matches!(stored, Stored::Missing) && location == Location::Unknown {
        let gone = Gone {
            queue: queue.clone(),
            id: id.to_string(),
            acked: engine::jobs::acked(redis, keys, id).await?,
        };
        return Err(Error::NothingDone(gone.words()).into());
    }
    not_in_place(ctx, keys, id, &location, place);
    let data = match stored {
        Stored::Data(data) => data,
        Stored::Damaged { why, record } => {
            ctx.out.warn(format_args!(
                "job {id:?} has a damaged record ({}); writing its stored bytes",
                printable(&why)
            ));
            record
        }
        Stored::Missing => {
            return Err(
                Error::BadInput(format!("job {id:?} has no record in {}", keys.data)).into(),
            )
        }
    };
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(&data)?;
    stdout.flush()?;
    Ok(ExitCode::Success)
}

/// The first `max` bytes in hex, for a record that cannot be decoded.
fn hex_preview(bytes: &[u8], max: usize) -> String {
    let mut text: String = bytes.iter().take(max).map(|b| format!("{b:02x}")).collect();
    if bytes.len() > max {
        text.push('…');
    }
    text
}

/// Runs a bulk action over ids or a filtered set: preview, confirm, then chunks.
pub async fn bulk(
    mut ctx: Context,
    args: BulkArgs,
    place: Place,
    action: Action,
    extra_until: Option<f64>,
) -> anyhow::Result<ExitCode> {
    let keys = ctx.keys(&args.queue)?;
    let mut filter = filter_for(&args.filter, place)?;
    if let Some(t) = extra_until {
        filter.until = Some(filter.until.map_or(t, |u| u.min(t)));
    }
    let selection = if !args.ids.is_empty() {
        if !filter.is_empty() {
            return Err(Error::Usage("give ids or filters, not both".into()).into());
        }
        Selection::Ids(args.ids.clone())
    } else if args.all || !filter.is_empty() {
        Selection::Matching(filter)
    } else {
        return Err(
            Error::Usage("name the jobs: give ids, --all, or filters (see --help)".into()).into(),
        );
    };
    let server = ctx.server()?;
    let mut redis = server.connect().await?;
    super::require_queue(&mut redis, &keys).await?;
    let set = place.key(&keys).to_string();
    // Ids that are not in the set are reported as not found, whatever their record.
    let mut missing = Vec::new();
    let selection = match selection {
        Selection::Ids(ids) if place != Place::Active => {
            let (present, absent) = bulk::in_zset(&mut redis, &set, ids).await?;
            missing = absent;
            Selection::Ids(present)
        }
        other => other,
    };

    // Say what will be touched: a count and a sample.
    let (count, sample) = bulk::preview(&mut redis, &keys, &set, &selection, 5).await?;
    let what = format!("{} {} of {set}", action.verb(), plural(count, "job"));
    if count == 0 && !missing.is_empty() {
        return report(&mut ctx, action, &args.queue, &set, 0, &missing, &[], None);
    }
    if count == 0 {
        ctx.out.note(format_args!(
            "nothing to {}: no matching jobs in {set}",
            action.verb()
        ));
        return Ok(ExitCode::NothingDone);
    }
    // From the preview on, a stop request ends the command at a clean point: before the
    // first change nothing changed, and from then on the step in flight answers and the
    // command says exactly what was done.
    let stop = signals::install()?;
    if !ctx.out.json {
        // On a terminal, broken between ids rather than inside one (width 0: one line).
        let sample: Vec<String> = sample.iter().map(|id| printable(id)).collect();
        let note = format!(
            "{} {what}, e.g. {}",
            super::will(args.confirm.dry_run),
            sample.join(", ")
        );
        let width = crate::output::table_width().unwrap_or(0);
        for line in crate::output::wrap(&note, width, usize::MAX) {
            ctx.out.note(line);
        }
    }
    if args.confirm.dry_run {
        if ctx.out.json {
            ctx.out.json_line(&json!({"dry_run": true, "action": action.verb(), "queue": args.queue, "count": count, "sample": sample}))?;
            ctx.out.flush()?;
        }
        return Ok(super::dry_run_end(&ctx, &stop));
    }
    let bulky = !matches!(selection, Selection::Ids(_)) || count > 1;
    let destructive = matches!(action, Action::Delete);
    let yes = args.confirm.yes || !(bulky || destructive);
    if let Some(end) = super::ask(&mut ctx, &format!("{what}?"), yes, &stop).await? {
        return Ok(end);
    }
    super::may_record(&mut redis, &keys).await?;

    let bar = ctx.out.progress(count, action.verb());
    let action = match (action, place) {
        (Action::Delete, Place::Active) => Action::DeleteActive,
        (a, _) => a,
    };
    // Reads go on a second connection, so that Redis serves them between this chunk's
    // script calls and the next chunk is ready when they finish.
    let mut reader = server.connect().await?;
    let mut handled = missing.len() as u64;
    let mut change = crate::engine::changes::Change::new(&action.recorded(place));
    let outcome = bulk::change(
        &mut redis,
        &mut reader,
        &keys,
        &set,
        &selection,
        action,
        &stop.requested,
        &stop.forced,
        |id, fate| {
            match fate {
                Some(bulk::Fate::Done) => change.did(id),
                Some(bulk::Fate::Skipped(why)) => change.skip(why),
                _ => {}
            }
            if fate.is_some() {
                handled += 1;
                bar.set_position(handled);
            }
        },
    )
    .await
    .with_context(|| format!("cannot read {set}"))?;
    let bulk::Outcome {
        done,
        missing: absent,
        skipped,
        unconfirmed,
        cut_short,
        failure,
    } = outcome;
    missing.extend(absent);
    let failure = failure.map(|failed| match failed {
        bulk::Failed::Change(err) => {
            anyhow::Error::from(err).context(format!("cannot {} jobs of {set}", action.verb()))
        }
        bulk::Failed::Read(err) => anyhow::Error::from(err).context(format!("cannot read {set}")),
    });
    bar.finish_and_clear();
    let tally = Tally {
        place,
        action,
        count,
        done,
        unconfirmed,
    };
    // A stop request that came once the last step was out stopped nothing: the work is done.
    let stopped = stop
        .cause()
        .filter(|_| cut_short || failure.is_some())
        .map(|cause| {
            let mut text = format!(
                "{}: {}",
                stopped_by(cause),
                tally.describe(&missing, &skipped)
            );
            if let Some(err) = &failure {
                text.push_str(&format!(
                    "; error: {}",
                    crate::engine::error::redact(&format!("{err:#}"))
                ));
            }
            (cause, text)
        });
    change.not_found = missing.len() as u64;
    change.unconfirmed = unconfirmed;
    change.interrupted = stopped.as_ref().map(|(cause, _)| cause.name().to_string());
    change.error = failure.as_ref().map(|err| format!("{err:#}"));
    super::record(&ctx, &mut redis, &keys, &change, Some(&stop)).await;
    if let (None, Some(err)) = (&stopped, failure) {
        return Err(err.context(tally.describe(&missing, &skipped)));
    }
    report(
        &mut ctx,
        action,
        &args.queue,
        &set,
        done,
        &missing,
        &skipped,
        stopped,
    )
}

/// How far a bulk command got, for the message of a run that stopped before it was done.
struct Tally {
    place: Place,
    action: Action,
    /// The jobs it set out to change.
    count: u64,
    done: u64,
    unconfirmed: u64,
}

impl Tally {
    /// `requeued 63,500 of 300,000 dead jobs; run the same command again to go on`, with the
    /// ids not found or skipped and the jobs whose fate is not known.
    fn describe(&self, missing: &[String], skipped: &[(String, String)]) -> String {
        let noun = self.place.jobs();
        let (done, count) = (thousands(self.done), thousands(self.count));
        let mut text = match self.action {
            Action::Requeue { .. } => format!("requeued {done} of {count} {noun}"),
            Action::Delete | Action::DeleteActive => format!("deleted {done} of {count} {noun}"),
            Action::RunNow => format!("made {done} of {count} {noun} ready"),
        };
        if !missing.is_empty() || !skipped.is_empty() {
            text.push_str(&format!(
                " (not found {}, skipped {})",
                thousands(missing.len() as u64),
                thousands(skipped.len() as u64)
            ));
        }
        if self.unconfirmed > 0 {
            text.push_str(&format!(
                "; the last step, {}, was sent and whether it took effect is not known",
                plural(self.unconfirmed, "job")
            ));
        }
        text.push_str("; run the same command again to go on");
        text
    }
}

/// Says what a bulk command did: the ids it could not touch (the first ones one by one),
/// JSON, a closing count; the exit code says whether all, some or none was done. A run
/// stopped before it was done closes with what stopped it and what it did (`stopped`),
/// whatever --quiet says.
#[allow(clippy::too_many_arguments)]
fn report(
    ctx: &mut Context,
    action: Action,
    queue: &str,
    set: &str,
    done: u64,
    missing: &[String],
    skipped: &[(String, String)],
    stopped: Option<(signals::Cause, String)>,
) -> anyhow::Result<ExitCode> {
    let reports = missing
        .iter()
        .map(|id| format!("job {id:?} is not in {set}; skipped"))
        .chain(
            skipped
                .iter()
                .map(|(id, why)| format!("job {id:?} skipped: {}", printable(why))),
        );
    for line in reports.take(MAX_REPORTED) {
        ctx.out.warn(line);
    }
    let total_reports = missing.len() + skipped.len();
    if total_reports > MAX_REPORTED {
        ctx.out.warn(format_args!(
            "{} more not shown (see --json)",
            total_reports - MAX_REPORTED
        ));
    }
    if ctx.out.json {
        let mut value = json!({
            "action": action.verb(),
            "queue": queue,
            "done": done,
            "not_found": missing,
            "skipped": skipped.iter().map(|(id, why)| json!({"id": id, "reason": why})).collect::<Vec<_>>(),
        });
        if let Some((cause, _)) = &stopped {
            value["interrupted"] = cause.name().into();
        }
        let written = ctx.out.json_line(&value).and_then(|_| ctx.out.flush());
        match written {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe && stopped.is_some() => {}
            other => other?,
        }
    }
    if let Some((cause, text)) = stopped {
        ctx.out.last_word(&text);
        return Ok(cause.exit_code());
    }
    let past = action.past();
    ctx.out.note(format_args!(
        "{past} {done}, not found {}, skipped {}",
        missing.len(),
        skipped.len()
    ));
    Ok(if missing.is_empty() && skipped.is_empty() {
        ExitCode::Success
    } else if done == 0 {
        ExitCode::NothingDone
    } else {
        ExitCode::Partial
    })
}
