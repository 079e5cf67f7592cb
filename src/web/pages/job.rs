//! `/queues/{queue}/jobs/{id}`: one job, as `qctl dead show` shows it wherever it is: where
//! it is, its failures, its recorded failure, its data (as text, or as a hex dump; the first
//! 64 KiB of a larger one) with its size, and the `qctl` command line of each thing one can
//! do with it. `/queues/{queue}/jobs/{id}/data` answers the data's exact bytes, as a file.
//! Its JSON twin is `/api/queues/{queue}/jobs/{id}` ([`crate::web::api::job`]). All are read
//! when asked, through the engine's `jobs::show` and `jobs::stored`.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::header::{self, HeaderValue};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use axum::Extension;
use maud::{html, Markup};

use super::{layout, respond, segment, Shown, ShownLines};
use crate::engine::jobs::{self, describe_time, Found, Gone, Location, Stored};
use crate::engine::listing::Entry;
use crate::engine::text::{shell_quote, size, span, thousands};
use crate::engine::{queues, Error, QueueKeys};
use crate::output::relative;
use crate::web::change::Session;
use crate::web::pages::queue::Changing;
use crate::web::queue::State as Listed;
use crate::web::App;

/// The most bytes of data a page shows; the download has them all.
pub const SHOWN_BYTES: usize = 64 << 10;

/// Why a job is not shown: the status of the answer and its words.
#[derive(Debug)]
pub struct Refused {
    pub status: StatusCode,
    /// What went wrong, in the CLI's words (`no job "x" in queue "mail"`).
    pub words: String,
    /// A job that is not there: what can be known of it.
    pub gone: Option<Gone>,
}

impl Refused {
    fn not_found(words: String) -> Refused {
        Refused {
            status: StatusCode::NOT_FOUND,
            words,
            gone: None,
        }
    }

    /// Redis refused what the page asked (502: a key of the wrong type, a command the user
    /// may not run), or could not be reached (503), as the pages of a queue answer them.
    fn unreadable(e: &Error) -> Refused {
        let status = match e {
            Error::Redis { .. } => StatusCode::BAD_GATEWAY,
            _ => StatusCode::SERVICE_UNAVAILABLE,
        };
        Refused {
            status,
            words: format!("Redis could not be read: {e}"),
            gone: None,
        }
    }
}

/// The keys of `queue`, when it is one qctl web shows: one named on the command line (when
/// some were), with a hash tag in a cluster, and with a key on the server.
async fn queue_keys(
    app: &App,
    redis: &mut crate::engine::Redis,
    queue: &str,
) -> Result<QueueKeys, Refused> {
    if !app.named.is_empty() && !app.named.iter().any(|q| q == queue) {
        let shown: Vec<String> = app.named.iter().map(|q| format!("{q:?}")).collect();
        return Err(Refused::not_found(format!(
            "queue {queue:?} is not shown here: qctl web was started with {}",
            shown.join(", ")
        )));
    }
    let keys = if app.link.is_cluster() {
        QueueKeys::for_cluster(queue).map_err(|e| Refused::not_found(e.to_string()))?
    } else {
        QueueKeys::new(queue)
    };
    match queues::known(redis, &keys).await {
        Ok(true) => Ok(keys),
        Ok(false) => Err(Refused::not_found(queues::no_queue(redis, queue).await)),
        Err(e) => Err(Refused::unreadable(&e)),
    }
}

/// Reads the job `id` of `queue` as `dead show` does.
pub async fn load(app: &App, queue: &str, id: &str) -> Result<Box<jobs::Shown>, Refused> {
    let mut redis = app
        .link
        .redis()
        .await
        .map_err(|e| Refused::unreadable(&e))?;
    let keys = queue_keys(app, &mut redis, queue).await?;
    match jobs::show(&mut redis, &keys, id).await {
        Ok(Found::Job(shown)) => Ok(shown),
        Ok(Found::Gone(gone)) => Err(Refused {
            status: StatusCode::NOT_FOUND,
            words: gone.words(),
            gone: Some(gone),
        }),
        Err(e) => {
            app.link.failed(&e).await;
            Err(Refused::unreadable(&e))
        }
    }
}

/// `GET /queues/{queue}/jobs/{id}`.
pub async fn page(
    State(app): State<Arc<App>>,
    Path((queue, id)): Path<(String, String)>,
    Extension(session): Extension<Session>,
) -> Response {
    let latest = app.latest.borrow().clone();
    let title = format!("Job {id}");
    match load(&app, &queue, &id).await {
        Ok(shown) => {
            let state = changeable(&shown.location);
            let may = match (state, app.keys(&queue)) {
                (Some(_), Ok(keys)) => crate::web::queue::may(&app, &keys, "repair").await,
                _ => None,
            };
            let changes = Changing {
                app: &app,
                session: &session,
                not_offered: crate::web::queue::not_offered(
                    may.as_ref(),
                    "change the jobs of",
                    &queue,
                ),
            };
            respond(layout(
                &app,
                &latest,
                &title,
                "",
                html! {
                    (body(&queue, &id, &shown))
                    @if let Some(state) = state {
                        (actions(&queue, &id, state, &changes))
                    }
                    (commands(&app, &queue, &id, &shown.location))
                },
            ))
        }
        Err(refused) => {
            let page = layout(&app, &latest, &title, "", refusal(&queue, &refused));
            (refused.status, Html(page.into_string())).into_response()
        }
    }
}

/// The page of a job that cannot be shown.
fn refusal(queue: &str, refused: &Refused) -> Markup {
    html! {
        h1 { @if refused.status == StatusCode::NOT_FOUND { "Not found" } @else { "Cannot be read" } }
        p #refusal { (Shown(&refused.words)) }
        @if let Some(gone) = &refused.gone {
            @if !gone.acked {
                p { (Gone::unknown_words()) }
            }
            p { a href=(format!("/queues/{}", segment(queue))) { "See queue " (Shown(queue)) } }
        }
    }
}

fn body(queue: &str, id: &str, shown: &jobs::Shown) -> Markup {
    let entry = &shown.entry;
    let queue_link = format!("/queues/{}", segment(queue));
    html! {
        h1.job { "Job " span #job-id { (Shown(id)) } }
        p.queue { "in queue " a href=(queue_link) { (Shown(queue)) } }
        dl.facts {
            dt { "where" }
            dd #where { (Shown(&shown.location.to_string())) }
            @match &shown.location {
                Location::Scheduled { due } => {
                    dt { "due" } dd { (describe_time(*due)) " (" (relative(*due, shown.now)) ")" }
                }
                Location::Dead { died } => {
                    dt { "died" } dd { (describe_time(*died)) " (" (relative(*died, shown.now)) ")" }
                }
                Location::InFlight { consumer } => {
                    dt { "consumer" } dd { (Shown(consumer)) }
                    dt { "running" }
                    dd {
                        @match (shown.started, shown.running_secs()) {
                            (Some(t), Some(secs)) => { "for " (span(secs)) ", since " (describe_time(t)) }
                            _ => { "- (no start recorded: a Go CurlyQ consumer, a job in a consumer's buffer, or just started)" }
                        }
                    }
                }
                _ => {}
            }
            dt { "failures" }
            dd #failures { (entry.attempt().map_or("-".to_string(), |a| a.to_string())) }
        }
        (failure(entry, shown.now))
        (data_section(queue, id, entry))
    }
}

/// The recorded failure, as qctl consumers record it.
fn failure(entry: &Entry, now: f64) -> Markup {
    html! {
        h2 { "Last failure" }
        @match &entry.failure {
            None => p #failure.empty { "no failure recorded (a job that has not failed, or one a Go CurlyQ consumer ran: it records none)" },
            Some(f) => {
                dl #failure.facts {
                    dt { "reason" } dd.reason { (Shown(&f.reason)) }
                    @if let Some(code) = f.exit_code { dt { "exit code" } dd { (code) } }
                    @if let Some(signal) = f.signal { dt { "signal" } dd { (signal) } }
                    dt { "timed out" } dd { @if f.timed_out { "yes" } @else { "no" } }
                    dt { "run" } dd { (f.attempt.saturating_add(1)) }
                    dt { "duration" } dd { (thousands(f.duration_ms)) " ms" }
                    dt { "at" } dd { (describe_time(f.time)) " (" (relative(f.time, now)) ")" }
                    dt { "consumer" } dd { (Shown(&f.consumer)) }
                }
                h3 { "stderr (last 4 KiB)" }
                @if f.stderr.is_empty() {
                    p.empty { "nothing written" }
                } @else {
                    pre #stderr.output { (ShownLines(&f.stderr)) }
                }
            }
        }
    }
}

/// Whether data shows as text: UTF-8 with no control character but line breaks and tabs.
fn is_text(data: &[u8]) -> Option<&str> {
    let text = std::str::from_utf8(data).ok()?;
    (!text
        .chars()
        .any(|c| c.is_control() && !matches!(c, '\n' | '\r' | '\t')))
    .then_some(text)
}

/// The data, as text or as a hex dump, its first [`SHOWN_BYTES`] when larger, its size and
/// the link to its exact bytes; a damaged record's stored bytes in hex.
fn data_section(queue: &str, id: &str, entry: &Entry) -> Markup {
    let download = format!("/queues/{}/jobs/{}/data", segment(queue), segment(id));
    let (bytes, damaged): (&[u8], Option<String>) = match entry.damage() {
        Some(why) => (entry.raw.as_deref().unwrap_or_default(), Some(why)),
        None => (entry.data().unwrap_or_default(), None),
    };
    let nil = damaged.is_none()
        && entry
            .job
            .as_ref()
            .is_some_and(|j| j.as_ref().is_ok_and(|j| j.data.is_none()));
    let cut = bytes.len() > SHOWN_BYTES;
    let text = if damaged.is_none() {
        is_text(bytes)
    } else {
        None
    };
    html! {
        h2 { "Data" }
        @if let Some(why) = &damaged {
            p #damaged.banner role="status" { "damaged: " (Shown(why)) }
        }
        p #data-size {
            @if nil {
                "none (nil): 0 bytes"
            } @else {
                @if damaged.is_some() { "the stored record: " }
                (thousands(bytes.len() as u64)) " bytes"
                @if bytes.len() >= 1024 { " (" (size(bytes.len() as u64)) ")" }
                ", shown " (if text.is_some() { "as text" } else { "in hex" })
                @if cut { ": the first " (size(SHOWN_BYTES as u64)) " of " (size(bytes.len() as u64)) }
            }
            @if damaged.is_none() || entry.raw.is_some() {
                " " a #download href=(download) download { "Download " @if cut { "all " (size(bytes.len() as u64)) } @else { "its bytes" } }
            }
        }
        @if !bytes.is_empty() {
            @match text {
                Some(text) => {
                    pre #data.data.text { (ShownLines(cut_text(text, SHOWN_BYTES))) }
                }
                None => {
                    pre #data.data.hex { (hex_dump(&bytes[..bytes.len().min(SHOWN_BYTES)])) }
                }
            }
            @if cut {
                p.cut { "cut at " (size(SHOWN_BYTES as u64)) ": download it for the whole of its " (size(bytes.len() as u64)) }
            }
        }
    }
}

/// The longest start of `text` of at most `max` bytes that ends between characters.
fn cut_text(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// `bytes` as `hexdump -C` shows them: the offset, 16 bytes in hex, and those of them that
/// are printable ASCII (others as `.`).
pub fn hex_dump(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() / 16 * 78 + 78);
    for (i, line) in bytes.chunks(16).enumerate() {
        out.push_str(&format!("{:08x}  ", i * 16));
        for k in 0..16 {
            match line.get(k) {
                Some(b) => out.push_str(&format!("{b:02x} ")),
                None => out.push_str("   "),
            }
            if k == 7 {
                out.push(' ');
            }
        }
        out.push_str(" |");
        out.extend(line.iter().map(|&b| {
            if (0x20..0x7f).contains(&b) {
                b as char
            } else {
                '.'
            }
        }));
        out.push_str("|\n");
    }
    out
}

/// The `qctl` command line of each thing one can do with a job where it is: its words
/// quoted for a POSIX shell, with the connection options qctl web was started with; None
/// when the job's id or queue cannot be an argument (it holds a NUL).
pub fn command_lines(
    app: &App,
    queue: &str,
    id: &str,
    location: &Location,
) -> Option<Vec<(&'static str, String)>> {
    if queue.contains('\0') || id.contains('\0') {
        return None;
    }
    let line = |command: &[&str], options: &[&str]| -> String {
        let mut words: Vec<&str> = vec!["qctl"];
        words.extend(app.connection.iter().map(String::as_str));
        words.extend_from_slice(command);
        // A queue or id that begins with `-` follows `--`, to be taken for no option.
        if queue.starts_with('-') || id.starts_with('-') {
            words.extend_from_slice(options);
            words.extend(["--", queue, id]);
        } else {
            words.extend([queue, id]);
            words.extend_from_slice(options);
        }
        words
            .iter()
            .map(|w| shell_quote(w))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut out = Vec::new();
    match location {
        Location::Dead { .. } => {
            out.push((
                "Requeue it (its failures reset to 0)",
                line(&["dead", "requeue"], &["--yes"]),
            ));
            out.push((
                "Delete it, with its record",
                line(&["dead", "delete"], &["--yes"]),
            ));
            out.push((
                "Write its data to stdout",
                line(&["dead", "show"], &["--raw"]),
            ));
        }
        Location::Scheduled { .. } => {
            out.push((
                "Run it now (make it ready)",
                line(&["scheduled", "run-now"], &["--yes"]),
            ));
            out.push((
                "Delete it, with its record",
                line(&["scheduled", "delete"], &["--yes"]),
            ));
            out.push(("Wait until it has ended", line(&["wait"], &[])));
            out.push((
                "Write its data to stdout",
                line(&["scheduled", "show"], &["--raw"]),
            ));
        }
        Location::Active { .. } => {
            out.push((
                "Delete it, with its record",
                line(&["active", "delete"], &["--yes"]),
            ));
            out.push(("Wait until it has ended", line(&["wait"], &[])));
            out.push((
                "Write its data to stdout",
                line(&["dead", "show"], &["--raw"]),
            ));
        }
        Location::InFlight { .. } => {
            out.push(("Wait until it has ended", line(&["wait"], &[])));
            out.push((
                "Write its data to stdout",
                line(&["dead", "show"], &["--raw"]),
            ));
        }
        Location::Stranded | Location::Unknown => {
            out.push((
                "Write its data to stdout",
                line(&["dead", "show"], &["--raw"]),
            ));
        }
    }
    Some(out)
}

/// The list a job where it is can be changed from, if any.
fn changeable(location: &Location) -> Option<Listed> {
    match location {
        Location::Dead { .. } => Some(Listed::Dead),
        Location::Scheduled { .. } => Some(Listed::Scheduled),
        Location::Active { .. } => Some(Listed::Ready),
        _ => None,
    }
}

/// The buttons that change the job where it is (each shows what it will do and asks
/// first), or why there are none.
fn actions(queue: &str, id: &str, state: Listed, changes: &Changing) -> Markup {
    html! {
        @if changes.offered() {
            h2 { "Change it" }
            (changes.form(queue, state, &[("id", &crate::web::queue::segment(id))], "", None))
        } @else {
            (changes.note_markup())
        }
    }
}

/// The commands section: each command line, shown with its control and bidi characters
/// escaped, and a Copy button (app.js) that copies it as it is.
fn commands(app: &App, queue: &str, id: &str, location: &Location) -> Markup {
    let lines = command_lines(app, queue, id, location);
    let stranded = matches!(location, Location::Stranded);
    html! {
        h2 { "Commands" }
        @match lines {
            None => p.empty { "Its id or its queue's name holds a NUL byte, which no command-line argument can hold." },
            Some(lines) => {
                ul #commands.commands {
                    @for (i, (what, line)) in lines.iter().enumerate() {
                        li {
                            span.what { (what) }
                            code id=(format!("command-{i}")) { (Shown(line)) }
                            button.copy type="button" data-command=(line) aria-label=(format!("Copy: {what}")) hidden { "Copy" }
                            span.copied aria-live="polite" {}
                        }
                    }
                }
                @if stranded {
                    p { "A record in no state runs nowhere: " code { "qctl doctor " (Shown(&shell_quote(queue))) " --fix" } " puts it back in the queue." }
                }
                p.note { "With the connection options qctl web was started with. A password is never shown: qctl reads it from $QCTL_REDIS_PASSWORD or --password-file." }
            }
        }
    }
}

/// `GET /queues/{queue}/jobs/{id}/data`: the data's exact bytes as a file (a damaged
/// record's stored bytes), read once and sent from the buffer they were read into.
pub async fn data(
    State(app): State<Arc<App>>,
    Path((queue, id)): Path<(String, String)>,
) -> Response {
    let stored = async {
        let mut redis = app
            .link
            .redis()
            .await
            .map_err(|e| Refused::unreadable(&e))?;
        let keys = queue_keys(&app, &mut redis, &queue).await?;
        let read = async {
            match jobs::stored(&mut redis, &keys, &id).await? {
                Stored::Data(bytes) => return Ok(Ok((bytes, "bin"))),
                Stored::Damaged { record, .. } => return Ok(Ok((record, "record"))),
                Stored::Missing => {}
            }
            // No record: an id in a set without one, or no job at all.
            let words = match jobs::locate(&mut redis, &keys, &id).await? {
                Location::Unknown => Gone {
                    queue: queue.clone(),
                    id: id.clone(),
                    acked: jobs::acked(&mut redis, &keys, &id).await?,
                }
                .words(),
                _ => format!("job {id:?} has no record in {}", keys.data),
            };
            Ok::<_, Error>(Err(Refused::not_found(words)))
        };
        match read.await {
            Ok(found) => found,
            Err(e) => {
                app.link.failed(&e).await;
                Err(Refused::unreadable(&e))
            }
        }
    };
    let (bytes, extension) = match stored.await {
        Ok(found) => found,
        Err(refused) => {
            return (
                refused.status,
                [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
                format!("{}\n", refused.words),
            )
                .into_response()
        }
    };
    let disposition = HeaderValue::from_str(&disposition(&id, extension))
        .unwrap_or_else(|_| HeaderValue::from_static("attachment"));
    (
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/octet-stream"),
            ),
            (header::CONTENT_DISPOSITION, disposition),
        ],
        Body::from(bytes),
    )
        .into_response()
}

/// The Content-Disposition of a job's download: `attachment`, a file name of the id's safe
/// characters (letters, digits, `-`, `_`, `.`; others as `_`) and, for browsers that read
/// it (RFC 6266), the id itself in `filename*`, UTF-8 percent-encoded, with what a file
/// name must not hold (quotes, slashes, control and bidi characters) as `_`.
pub fn disposition(id: &str, extension: &str) -> String {
    const MAX: usize = 100;
    let plain: String = id
        .chars()
        .take(MAX)
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    let unicode: String = id
        .chars()
        .take(MAX)
        .map(|c| {
            if super::hidden(c) || matches!(c, '"' | '\'' | '/' | '\\') {
                '_'
            } else {
                c
            }
        })
        .collect();
    // No name begins with a dot (a hidden file) or is empty.
    let name = |stem: String| {
        if stem.is_empty() || stem.starts_with('.') {
            format!("job{stem}.{extension}")
        } else {
            format!("{stem}.{extension}")
        }
    };
    format!(
        "attachment; filename=\"{}\"; filename*=UTF-8''{}",
        name(plain),
        segment(&name(unicode))
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hex_dump_has_offsets_hex_and_printable_ascii() {
        let dump = hex_dump(b"<script>window.pwned=1</script>!\x00\xff");
        let lines: Vec<&str> = dump.lines().collect();
        assert_eq!(
            lines[0],
            "00000000  3c 73 63 72 69 70 74 3e  77 69 6e 64 6f 77 2e 70  |<script>window.p|"
        );
        assert_eq!(lines[2], format!("00000020  00 ff {} |..|", " ".repeat(43)));
        assert_eq!(lines.len(), 3);
    }

    #[test]
    fn text_is_utf8_without_control_characters_but_line_breaks() {
        assert_eq!(is_text(b"a\nb\tc\r\n"), Some("a\nb\tc\r\n"));
        assert_eq!(is_text(b"nul\0"), None);
        assert_eq!(is_text(b"\x1b[31m"), None);
        assert_eq!(is_text(b"\xff\xfe"), None);
        assert_eq!(is_text("\u{202e}".as_bytes()), Some("\u{202e}"));
        assert_eq!(cut_text("aé", 2), "a");
        assert_eq!(cut_text("aé", 3), "aé");
    }

    #[test]
    fn a_download_is_named_after_the_id_with_nothing_a_file_name_must_not_hold() {
        assert_eq!(
            disposition("8b0e2a4c-1", "bin"),
            "attachment; filename=\"8b0e2a4c-1.bin\"; filename*=UTF-8''8b0e2a4c-1.bin"
        );
        let hostile = disposition("\"/../\u{202e}x\r\n\0é;", "bin");
        assert_eq!(
            hostile,
            "attachment; filename=\"__..__x_____.bin\"; filename*=UTF-8''__..__x___%C3%A9%3B.bin"
        );
        assert_eq!(
            disposition("", "bin"),
            "attachment; filename=\"job.bin\"; filename*=UTF-8''job.bin"
        );
        assert_eq!(
            disposition(".hidden", "record"),
            "attachment; filename=\"job.hidden.record\"; filename*=UTF-8''job.hidden.record"
        );
    }
}
