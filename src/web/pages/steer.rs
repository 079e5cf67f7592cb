//! Orders to running consumers from a queue's page, as `qctl cancel` and `qctl consumers
//! quiet | stop | resize` give them and through the same engine functions
//! ([`crate::engine::orders`]): `POST /queues/{queue}/cancel/preview` says which jobs run
//! where and asks, `.../cancel/apply` cancels them and says what became of each;
//! `POST /queues/{queue}/consumers/{uuid}/preview` and `.../apply` the same for an order to a
//! consumer. Refused, changing nothing, unless the request comes from qctl web's own page
//! ([`crate::web::change`]); recorded with who asked, as every change from the page.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{ConnectInfo, Path, State};
use axum::http::HeaderMap;
use axum::response::Response;
use axum::Extension;
use maud::html;

use super::queue::page;
use super::Shown;
use crate::engine::changes::{self, Origin};
use crate::engine::consumers::{self, host_pid, short_name};
use crate::engine::orders::{self, Reach, Settle, What};
use crate::engine::text::{plural, shell_quote};
use crate::engine::{Error, QueueKeys};
use crate::web::bulk::decoded;
use crate::web::change::{self, Session, MAX_FORM};
use crate::web::queue::{self, queue_path, Refusal};
use crate::web::App;

/// `/queues/{queue}/cancel/{step}`.
pub fn cancel_path(queue_name: &str, step: &str) -> String {
    format!("{}/cancel/{step}", queue_path(queue_name))
}

/// `/queues/{queue}/consumers/{uuid}/{step}`.
pub fn consumer_path(queue_name: &str, uuid: &str, step: &str) -> String {
    format!("{}/consumers/{uuid}/{step}", queue_path(queue_name))
}

/// The form of a change from the page itself, of a queue that is there.
async fn read_form(
    app: &App,
    queue_name: &str,
    session: &Session,
    headers: &HeaderMap,
    body: &Bytes,
) -> Result<(QueueKeys, Vec<(String, String)>), Refusal> {
    if body.len() > MAX_FORM {
        return Err(Refusal::bad("the form is too large"));
    }
    let fields = change::fields(body);
    if let Some(refusal) = change::refusal(headers, app, session, &fields) {
        return Err(refusal);
    }
    Ok((queue::find(app, queue_name).await?, fields))
}

/// The ids of a cancel form (percent-encoded, as every id a page holds) and where they go.
fn cancel_form(fields: &[(String, String)]) -> Result<(Vec<String>, Settle), Refusal> {
    let ids: Vec<String> = fields
        .iter()
        .filter(|(n, v)| n == "id" && !v.is_empty())
        .map(|(_, v)| decoded(v))
        .collect();
    if ids.is_empty() {
        return Err(Refusal::bad("no job was selected"));
    }
    let settle = match fields.iter().rev().find(|(n, _)| n == "settle") {
        None => Settle::Dead,
        Some((_, v)) if v == "dead" => Settle::Dead,
        Some((_, v)) if v == "retry" => Settle::Retry,
        Some((_, v)) => return Err(Refusal::bad(format!("no settle {v:?}: dead or retry"))),
    };
    Ok((ids, settle))
}

/// Who gives the order, as the consumer records it: `user@address (web)`.
fn by(origin: &Origin) -> String {
    format!(
        "{}@{} (web)",
        origin.user,
        origin.address.as_deref().unwrap_or("-")
    )
}

/// What both steps of a cancel read first: the form, from the page itself, of a queue that is
/// there, with the ids and where they go.
async fn read_cancel(
    app: &App,
    queue_name: &str,
    session: &Session,
    headers: &HeaderMap,
    body: &Bytes,
) -> Result<(QueueKeys, Vec<(String, String)>, Vec<String>, Settle), Refusal> {
    let (keys, fields) = read_form(app, queue_name, session, headers, body).await?;
    let (ids, settle) = cancel_form(&fields)?;
    Ok((keys, fields, ids, settle))
}

/// What both steps of an order to a consumer read first: the form, the order, and the
/// consumer, which must take orders.
struct OrderForm {
    keys: QueueKeys,
    fields: Vec<(String, String)>,
    what: What,
    /// The consumer's in-flight key.
    key: String,
    seen: consumers::Seen,
}

async fn read_order(
    app: &App,
    queue_name: &str,
    uuid: &str,
    session: &Session,
    headers: &HeaderMap,
    body: &Bytes,
) -> Result<OrderForm, Refusal> {
    let (keys, fields) = read_form(app, queue_name, session, headers, body).await?;
    let what = order_form(&fields)?;
    let (key, seen) = consumer_of(app, &keys, uuid).await?;
    Ok(OrderForm {
        keys,
        fields,
        what,
        key,
        seen,
    })
}

/// `POST /queues/{queue}/cancel/preview`.
pub async fn cancel_preview(
    State(app): State<Arc<App>>,
    Path(queue_name): Path<String>,
    Extension(session): Extension<Session>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let (keys, _, ids, settle) =
        match read_cancel(&app, &queue_name, &session, &headers, &body).await {
            Ok(read) => read,
            Err(refusal) => return change::refused(&app, refusal),
        };
    let plan = async {
        let mut redis = app.link.redis().await?;
        orders::plan_cancel(&mut redis, &keys, &ids).await
    };
    let plan: Result<_, Error> = plan.await;
    let plan = match plan {
        Ok(plan) => plan,
        Err(e) => return change::refused(&app, e.into()),
    };
    let goes = match settle {
        Settle::Dead => format!("to {}", keys.dead),
        Settle::Retry => "to run again at once".to_string(),
    };
    let question = format!(
        "cancel {} (their handlers are stopped; each goes {goes})?",
        plural(plan.asked() as u64, "running job")
    );
    let mut line = format!("qctl cancel {}", shell_quote(&queue_name));
    for id in &plan.ids {
        line.push(' ');
        line.push_str(&shell_quote(id));
    }
    if settle == Settle::Retry {
        line.push_str(" --retry");
    }
    let body = html! {
        ul.orders {
            @for (consumer, jobs) in &plan.asks {
                @for id in jobs { li { (Shown(&plan.describe(id, consumer, &keys))) } }
            }
            @for fate in &plan.fates {
                li.warning { (Shown(&format!("{}: {}: {}", fate.id, fate.result.replace('_', " "), fate.detail))) }
            }
        }
        @if plan.asked() > 0 {
            form.change.confirm method="post" action=(cancel_path(&queue_name, "apply")) {
                input type="hidden" name="token" value=(app.changes.token(&session));
                @for jobs in plan.asks.values() {
                    @for id in jobs { input type="hidden" name="id" value=(queue::segment(id)); }
                }
                input type="hidden" name="settle" value=(match settle { Settle::Dead => "dead", Settle::Retry => "retry" });
                p.question { (Shown(&question)) }
                button type="submit" autofocus { "Yes, cancel" }
                " " a href=(queue_path(&queue_name)) { "No, back to the queue" }
            }
            p.note { "The same from a shell: " code { (Shown(&line)) } }
        }
    };
    page(
        &app,
        &queue_name,
        "Cancel running jobs",
        &cancel_path(&queue_name, "preview"),
        body,
    )
}

/// `POST /queues/{queue}/cancel/apply`.
pub async fn cancel_apply(
    State(app): State<Arc<App>>,
    Path(queue_name): Path<String>,
    Extension(session): Extension<Session>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let (keys, fields, ids, settle) =
        match read_cancel(&app, &queue_name, &session, &headers, &body).await {
            Ok(read) => read,
            Err(refusal) => return change::refused(&app, refusal),
        };
    let path = cancel_path(&queue_name, "apply");
    let origin = change::origin(&headers, peer, "POST", &path, &fields);
    // In a task of its own: a browser that goes away does not stop it halfway.
    let (owned, task_keys) = (app.clone(), keys.clone());
    let task = tokio::spawn(async move {
        let (app, keys) = (owned, task_keys);
        let mut redis = app.link.redis().await?;
        changes::check_rights(&mut redis, &keys).await?;
        let plan = orders::plan_cancel(&mut redis, &keys, &ids).await?;
        let fates =
            orders::cancel(app.link.spec(), &redis, &keys, &plan, settle, &by(&origin)).await;
        let change = orders::cancel_change(settle, &fates);
        let not_recorded = changes::record(&mut redis, &keys, &change, &origin)
            .await
            .err()
            .filter(|_| change.is_recorded())
            .map(|e| {
                format!(
                    "the change was made, but recording it in {} failed: {e}",
                    keys.changes
                )
            });
        Ok::<_, Error>((fates, not_recorded))
    });
    let done = match task.await {
        Ok(done) => done,
        Err(e) => Err(Error::BadInput(format!("the change ended abnormally: {e}"))),
    };
    let (fates, not_recorded) = match done {
        Ok(done) => done,
        Err(e) => return change::refused(&app, e.into()),
    };
    let body = html! {
        ul.orders {
            @for fate in &fates {
                li.(fate.result) { (Shown(&format!("{}: {}: {}", fate.id, fate.result.replace('_', " "), fate.detail))) }
            }
        }
        p.done role="status" {
            (Shown(&format!("cancelled {} of {}", fates.iter().filter(|f| f.result == "cancelled").count(), plural(fates.len() as u64, "job"))))
        }
        @if let Some(warning) = &not_recorded { p.warning { (Shown(warning)) } }
        p { a href=(queue_path(&queue_name)) { "Back to the queue." } }
    };
    page(&app, &queue_name, "Jobs cancelled", &path, body)
}

/// The order of a consumer form.
fn order_form(fields: &[(String, String)]) -> Result<What, Refusal> {
    let field = |name: &str| {
        fields
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    };
    match field("order").unwrap_or_default() {
        "quiet" => Ok(What::Quiet),
        "stop" => Ok(What::Stop),
        "resize" => {
            let n = field("concurrency").unwrap_or_default();
            match n.trim().parse::<usize>() {
                Ok(concurrency) if concurrency >= 1 => Ok(What::Resize { concurrency }),
                _ => Err(Refusal::bad(format!(
                    "concurrency {n:?} is not a whole number of 1 or more"
                ))),
            }
        }
        other => Err(Refusal::bad(format!(
            "no order {other:?}: quiet, stop or resize"
        ))),
    }
}

/// The consumer `uuid` of the queue: its in-flight key and what it wrote about itself, read
/// with the queue's consumers.
async fn consumer_of(
    app: &App,
    keys: &QueueKeys,
    uuid: &str,
) -> Result<(String, consumers::Seen), Refusal> {
    let key = keys.inflight(uuid);
    let read = async {
        let mut redis = app.link.redis().await?;
        consumers::seen(&mut redis, keys).await
    };
    let seen: consumers::Seen = read.await.map_err(Refusal::from)?;
    if !seen.list.iter().any(|c| c.key == key) {
        return Err(Refusal::bad(format!(
            "queue {:?} has no consumer {uuid:?}",
            keys.name
        )));
    }
    let described = seen.descriptions().get(key.as_str()).copied().cloned();
    if let Some(why) = Reach::of(described.as_ref()).why_not() {
        return Err(Refusal::bad(format!(
            "consumer {} cannot be given orders: {why}",
            short_name(&key, keys)
        )));
    }
    Ok((key, seen))
}

/// `POST /queues/{queue}/consumers/{uuid}/preview`.
pub async fn consumer_preview(
    State(app): State<Arc<App>>,
    Path((queue_name, uuid)): Path<(String, String)>,
    Extension(session): Extension<Session>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let OrderForm {
        keys,
        fields: _,
        what,
        key,
        seen,
    } = match read_order(&app, &queue_name, &uuid, &session, &headers, &body).await {
        Ok(read) => read,
        Err(refusal) => return change::refused(&app, refusal),
    };
    let described = seen.descriptions().get(key.as_str()).copied().cloned();
    let name = short_name(&key, &keys);
    let verb = what.name();
    let mut line = format!(
        "qctl consumers {verb} {name} --queue {}",
        shell_quote(&queue_name)
    );
    if let What::Resize { concurrency } = &what {
        line.push_str(&format!(" -c {concurrency}"));
    }
    let body = html! {
        p { (Shown(&format!("consumer {name} ({}{})", host_pid(described.as_ref()), described.as_ref().map_or(String::new(), |d| format!(", {}", d.setup(seen.now)))))) }
        form.change.confirm method="post" action=(consumer_path(&queue_name, &uuid, "apply")) {
            input type="hidden" name="token" value=(app.changes.token(&session));
            input type="hidden" name="order" value=(verb);
            @if let What::Resize { concurrency } = &what {
                input type="hidden" name="concurrency" value=(concurrency);
            }
            p.question { (Shown(&format!("{verb} this consumer ({})?", what.words()))) }
            button type="submit" autofocus { "Yes, " (verb) }
            " " a href=(queue_path(&queue_name)) { "No, back to the queue" }
        }
        p.note { "The same from a shell: " code { (Shown(&line)) } }
    };
    page(
        &app,
        &queue_name,
        &format!("{} a consumer", capitalised(verb)),
        &consumer_path(&queue_name, &uuid, "preview"),
        body,
    )
}

fn capitalised(word: &str) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// `POST /queues/{queue}/consumers/{uuid}/apply`.
pub async fn consumer_apply(
    State(app): State<Arc<App>>,
    Path((queue_name, uuid)): Path<(String, String)>,
    Extension(session): Extension<Session>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let OrderForm {
        keys,
        fields,
        what,
        key,
        seen,
    } = match read_order(&app, &queue_name, &uuid, &session, &headers, &body).await {
        Ok(read) => read,
        Err(refusal) => return change::refused(&app, refusal),
    };
    let path = consumer_path(&queue_name, &uuid, "apply");
    let origin = change::origin(&headers, peer, "POST", &path, &fields);
    let verb = what.name();
    let (owned, task_keys, task_key) = (app.clone(), keys.clone(), key.clone());
    let task = tokio::spawn(async move {
        let (app, keys, key) = (owned, task_keys, task_key);
        let mut redis = app.link.redis().await?;
        changes::check_rights(&mut redis, &keys).await?;
        let steered = orders::steer(
            app.link.spec(),
            &mut redis,
            &keys,
            &seen,
            &key,
            what.clone(),
            &by(&origin),
        )
        .await;
        let mut not_recorded = None;
        if steered.0 == "done" || steered.0 == "stopping" {
            let change = what.change(&key);
            if let Err(e) = changes::record(&mut redis, &keys, &change, &origin).await {
                not_recorded = Some(format!(
                    "the change was made, but recording it in {} failed: {e}",
                    keys.changes
                ));
            }
        }
        Ok::<_, Error>((steered, not_recorded))
    });
    let done = match task.await {
        Ok(done) => done,
        Err(e) => Err(Error::BadInput(format!("the change ended abnormally: {e}"))),
    };
    let ((result, detail), not_recorded) = match done {
        Ok(done) => done,
        Err(e) => return change::refused(&app, e.into()),
    };
    let name = short_name(&key, &keys);
    let body = html! {
        p.(if result == "done" { "done" } else { "warning" }) role="status" {
            (Shown(&format!("{name}: {}: {detail}", result.replace('_', " "))))
        }
        @if let Some(warning) = &not_recorded { p.warning { (Shown(warning)) } }
        p { a href=(queue_path(&queue_name)) { "Back to the queue." } }
    };
    page(&app, &queue_name, &format!("Consumer: {verb}"), &path, body)
}
