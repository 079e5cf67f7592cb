//! Bulk changes from the page: requeue, delete and run-now of one job, a selection, a
//! failure group or every job matching a filter, as `qctl dead requeue`, `dead delete`,
//! `scheduled run-now`, `scheduled delete` and `active delete` make them, through the same
//! engine functions (`bulk::preview`, `bulk::in_zset`, `bulk::change`): a preview that reads
//! only, then the change in steps, each job that moved meanwhile skipped, not damaged.
//! [`crate::web::pages::bulk`] renders them.

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use super::queue::{self, Refusal, State};
use super::App;
use crate::engine::bulk::{self, Action, Outcome, Selection};
use crate::engine::changes::{self, Change, Origin};
use crate::engine::listing::{Filter, Place};
use crate::engine::{Error, QueueKeys};

/// Ids of a preview's sample.
pub const SAMPLE: usize = 5;

/// The filter fields a change form may carry, as the list's query names them.
pub const FILTER_FIELDS: [&str; 6] = ["grep", "reason", "group", "since", "until", "min_attempts"];

/// What a change form asks.
#[derive(Debug, Clone)]
pub struct Asked {
    pub state: State,
    pub place: Place,
    pub action: Action,
    /// The action as the form and the CLI name it: `requeue`, `delete`, `run-now`.
    pub name: &'static str,
    pub selection: Selection,
    /// The fields that say which jobs (`id`s, or `all` and the filter), to be carried to the
    /// confirmation as they came.
    pub fields: Vec<(String, String)>,
}

impl Asked {
    /// The CLI's verb: `requeue`, `delete`, `run now`.
    pub fn verb(&self) -> &'static str {
        self.action.verb()
    }

    /// What was done, in the CLI's closing words.
    pub fn past(&self) -> &'static str {
        self.action.past()
    }

    /// The action as the queue's record of changes names it.
    pub fn recorded_action(&self) -> String {
        self.action.recorded(self.place)
    }

    /// The command line that does the same: `qctl dead requeue mail --group FP --yes`.
    pub fn command(&self, queue: &str, connection: &[String]) -> Vec<String> {
        let mut words = vec!["qctl".to_string()];
        words.extend(connection.iter().cloned());
        words.push(
            match self.place {
                Place::Dead => "dead",
                Place::Scheduled => "scheduled",
                Place::Active => "active",
            }
            .into(),
        );
        words.push(self.name.into());
        let mut options = Vec::new();
        let mut ids = Vec::new();
        for (name, value) in &self.fields {
            match name.as_str() {
                "id" => ids.push(decoded(value)),
                // Filters name the jobs themselves; --all alone means every one.
                "all" if self.fields.len() == 1 => options.push("--all".to_string()),
                "all" => {}
                other => {
                    options.push(format!("--{}", other.replace('_', "-")));
                    options.push(value.clone());
                }
            }
        }
        if !ids.is_empty() || queue.starts_with('-') {
            words.extend(options);
            words.push("--yes".into());
            words.push("--".into());
            words.push(queue.into());
            words.extend(ids);
        } else {
            words.push(queue.into());
            words.extend(options);
            words.push("--yes".into());
        }
        words
    }
}

/// The actions a list's jobs can be given: `(form name, button)`.
pub fn actions(state: State) -> &'static [(&'static str, &'static str)] {
    match state {
        State::Dead => &[("requeue", "Requeue"), ("delete", "Delete")],
        State::Scheduled => &[("run-now", "Run now"), ("delete", "Delete")],
        State::Ready => &[("delete", "Delete")],
        State::InFlight => &[],
    }
}

/// Reads a change form of a list of `state`: its action, and the jobs as ids (`id`,
/// repeated) or as `all` with the list's filters, read by the CLI's parsers.
pub fn ask(state: State, form: &[(String, String)]) -> Result<Asked, Refusal> {
    let Some(place) = state.place() else {
        return Err(Refusal::bad(
            "jobs in flight are changed by their consumer, not from the page",
        ));
    };
    let field = |name: &str| {
        form.iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    };
    let named = field("action").unwrap_or_default();
    let (name, action) = match (state, named) {
        (State::Dead, "requeue") => (
            "requeue",
            Action::Requeue {
                keep_attempts: false,
            },
        ),
        (State::Dead | State::Scheduled, "delete") => ("delete", Action::Delete),
        (State::Ready, "delete") => ("delete", Action::DeleteActive),
        (State::Scheduled, "run-now") => ("run-now", Action::RunNow),
        _ => {
            let known: Vec<&str> = actions(state).iter().map(|(n, _)| *n).collect();
            return Err(Refusal::bad(format!(
                "no action {named:?} for {} jobs: one of {}",
                state.segment(),
                known.join(", ")
            )));
        }
    };
    // Ids come percent-encoded, as in links: a page holds no id's bidi or control
    // characters as they are, not even in an attribute.
    let ids: Vec<String> = form
        .iter()
        .filter(|(n, v)| n == "id" && !v.is_empty())
        .map(|(_, v)| decoded(v))
        .collect();
    let all = field("all").is_some_and(|v| !v.is_empty());
    let filter_fields: Vec<(String, String)> = form
        .iter()
        .filter(|(n, v)| FILTER_FIELDS.contains(&n.as_str()) && !v.is_empty())
        .cloned()
        .collect();
    let query = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(filter_fields.iter())
        .finish();
    let filter: Filter = queue::ask(state, Some(&query))?.filter;
    let (selection, fields) = if !ids.is_empty() {
        if !filter.is_empty() || all {
            return Err(Refusal::bad("give ids or filters, not both"));
        }
        let fields = ids
            .iter()
            .map(|id| ("id".to_string(), queue::segment(id)))
            .collect();
        (Selection::Ids(ids), fields)
    } else if all {
        let mut fields = vec![("all".to_string(), "1".to_string())];
        fields.extend(filter_fields);
        (Selection::Matching(filter), fields)
    } else {
        return Err(Refusal::bad(
            "name the jobs: tick some, or change every one the filter matches",
        ));
    };
    Ok(Asked {
        state,
        place,
        action,
        name,
        selection,
        fields,
    })
}

/// A percent-encoded id as it was.
pub fn decoded(value: &str) -> String {
    url::form_urlencoded::parse(format!("i={}", value.replace('+', "%2B")).as_bytes())
        .next()
        .map(|(_, v)| v.into_owned())
        .unwrap_or_default()
}

/// What a change would touch: how many jobs of which set, a sample of their ids, and the
/// ids given that are not there.
#[derive(Debug)]
pub struct Preview {
    pub set: String,
    pub count: u64,
    pub sample: Vec<String>,
    pub missing: Vec<String>,
}

/// Reads what `asked` would touch, as the CLI's preview reads it; changes nothing.
pub async fn preview(app: &App, keys: &QueueKeys, asked: &Asked) -> Result<Preview, Error> {
    let mut redis = app.link.redis().await?;
    let read = async {
        let set = asked.place.key(keys).to_string();
        let (selection, missing) = present(&mut redis, &set, asked).await?;
        let (count, sample) = bulk::preview(&mut redis, keys, &set, &selection, SAMPLE).await?;
        Ok(Preview {
            set,
            count,
            sample,
            missing,
        })
    };
    let read: Result<Preview, Error> = read.await;
    if let Err(e) = &read {
        app.link.failed(e).await;
    }
    read
}

/// The selection with the ids given split into those in the sorted set and those not (the
/// active list's ids are looked for by the change itself).
async fn present(
    redis: &mut crate::engine::Redis,
    set: &str,
    asked: &Asked,
) -> Result<(Selection, Vec<String>), Error> {
    match &asked.selection {
        Selection::Ids(ids) if asked.place != Place::Active => {
            let (present, absent) = bulk::in_zset(redis, set, ids.clone()).await?;
            Ok((Selection::Ids(present), absent))
        }
        other => Ok((other.clone(), Vec::new())),
    }
}

/// What a change did.
#[derive(Debug)]
pub struct Applied {
    pub set: String,
    pub outcome: Outcome,
    /// Why the change, made, is not in the queue's record of changes.
    pub not_recorded: Option<String>,
}

/// Makes the change in steps, as the CLI does, in a task of its own: a browser that goes
/// away (or a stop of qctl web between steps) leaves every job in one place or the other,
/// never half moved, and the task finishes what it set out to do if qctl web runs on.
pub async fn apply(
    app: &Arc<App>,
    keys: &QueueKeys,
    asked: &Asked,
    origin: Origin,
) -> Result<Applied, Error> {
    let (app, keys, asked) = (app.clone(), keys.clone(), asked.clone());
    let task = tokio::spawn(async move {
        let run = async {
            let mut redis = app.link.redis().await?;
            // As the CLI: a change the record could not hold is not made.
            changes::check_rights(&mut redis, &keys).await?;
            let mut reader = redis.clone();
            let set = asked.place.key(&keys).to_string();
            let (selection, missing) = present(&mut redis, &set, &asked).await?;
            let never = CancellationToken::new();
            let mut change = Change::new(&asked.recorded_action());
            let mut outcome = bulk::change(
                &mut redis,
                &mut reader,
                &keys,
                &set,
                &selection,
                asked.action,
                &never,
                &never,
                |id, fate| match fate {
                    Some(bulk::Fate::Done) => change.did(id),
                    Some(bulk::Fate::Skipped(why)) => change.skip(why),
                    _ => {}
                },
            )
            .await?;
            let mut all_missing = missing;
            all_missing.append(&mut outcome.missing);
            outcome.missing = all_missing;
            change.not_found = outcome.missing.len() as u64;
            change.unconfirmed = outcome.unconfirmed;
            change.error = outcome.failure.as_ref().map(|f| match f {
                bulk::Failed::Change(e) | bulk::Failed::Read(e) => e.to_string(),
            });
            let mut not_recorded = None;
            if change.is_recorded() {
                if let Err(e) = changes::record(&mut redis, &keys, &change, &origin).await {
                    not_recorded = Some(format!(
                        "the change was made, but recording it in {} failed: {e}",
                        keys.changes
                    ));
                }
            }
            Ok(Applied {
                set,
                outcome,
                not_recorded,
            })
        };
        let done: Result<Applied, Error> = run.await;
        match &done {
            Err(e) => app.link.failed(e).await,
            Ok(Applied {
                outcome:
                    Outcome {
                        failure: Some(bulk::Failed::Change(e) | bulk::Failed::Read(e)),
                        ..
                    },
                ..
            }) => app.link.failed(e).await,
            Ok(_) => {}
        }
        done
    });
    task.await
        .map_err(|e| Error::BadInput(format!("the change ended abnormally: {e}")))?
}
