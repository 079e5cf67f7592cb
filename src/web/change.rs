//! Changes made from the page, and what keeps another site from making them.
//!
//! A change is a plain HTML form posted to the server (it works with scripts off). It is
//! made only when every one of these holds, whatever the client sends:
//! - qctl web was not started with `--read-only` (which refuses every change with 403 and
//!   shows no form);
//! - the request's `Origin` is the page's own: its host and port are those of the Host
//!   header the guard let in (`http` or `https`: a reverse proxy may serve HTTPS in front);
//!   a browser sends it with every form it posts, and a request without it is refused;
//!   `Sec-Fetch-Site`, when sent, says `same-origin`;
//! - the form carries the token of the session: each browser gets a session cookie
//!   (`qctl_session`, `HttpOnly`, `SameSite=Strict`, `Secure` over HTTPS) with its first page,
//!   and the pages' forms carry the HMAC-SHA256 of that session under a key made at each
//!   start. Another site can neither read the cookie nor compute the token; a page from
//!   before a restart must be reloaded.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{ConnectInfo, Path, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{Html, IntoResponse, Response};
use axum::Extension;
use maud::html;
use ring::hmac;
use ring::rand::{SecureRandom, SystemRandom};

use super::pages::{layout, Shown};
use super::queue::{self, queue_path, Refusal};
use super::App;
use crate::engine::changes::{self, Change, Origin};
use crate::engine::{queues, Error};

/// The name of the session cookie.
pub const COOKIE: &str = "qctl_session";

/// Bytes of a session id (written as twice as many hex digits).
const SESSION_BYTES: usize = 16;

/// The most a form's body may hold.
pub const MAX_FORM: usize = 64 << 10;

/// Whether changes are allowed, and the key of the sessions' tokens.
pub struct Changes {
    /// `--read-only`: every change refused, no form shown.
    pub read_only: bool,
    /// Whether the page is served over HTTPS (the cookie is then `Secure`).
    pub https: bool,
    key: hmac::Key,
    random: SystemRandom,
}

impl std::fmt::Debug for Changes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Changes(read_only: {})", self.read_only)
    }
}

/// A browser's session: its id, and whether this request is the first of it (the response
/// then sets the cookie).
#[derive(Clone, Debug)]
pub struct Session {
    id: String,
    new: bool,
}

/// The changes the page makes, as `/api/capabilities` lists them.
pub const CHANGES: [&str; 10] = [
    "pause", "resume", "requeue", "delete", "run-now", "orphans", "cancel", "quiet", "stop",
    "resize",
];

impl Changes {
    pub fn new(read_only: bool, https: bool) -> Result<Changes, Error> {
        let random = SystemRandom::new();
        let mut secret = [0u8; 32];
        random.fill(&mut secret).map_err(|_| {
            Error::BadInput("cannot read random bytes for the page's sessions".into())
        })?;
        Ok(Changes {
            read_only,
            https,
            key: hmac::Key::new(hmac::HMAC_SHA256, &secret),
            random,
        })
    }

    /// The token the forms of `session`'s pages carry.
    pub fn token(&self, session: &Session) -> String {
        hex(hmac::sign(&self.key, session.id.as_bytes()).as_ref())
    }

    /// Whether `token` is `session`'s (compared in constant time).
    fn verify(&self, session: &Session, token: &str) -> bool {
        match unhex(token) {
            Some(tag) => hmac::verify(&self.key, session.id.as_bytes(), &tag).is_ok(),
            None => false,
        }
    }

    fn new_session(&self) -> Option<Session> {
        let mut id = [0u8; SESSION_BYTES];
        self.random.fill(&mut id).ok()?;
        Some(Session {
            id: hex(&id),
            new: true,
        })
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    if text.len() % 2 != 0 || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).ok())
        .collect()
}

/// The session the request's cookie names, when it is one this server could have made.
fn cookie_session(headers: &HeaderMap) -> Option<Session> {
    for value in headers.get_all(header::COOKIE) {
        let Ok(value) = value.to_str() else { continue };
        for pair in value.split(';') {
            if let Some((name, id)) = pair.trim().split_once('=') {
                if name == COOKIE
                    && id.len() == 2 * SESSION_BYTES
                    && id.bytes().all(|b| b.is_ascii_hexdigit())
                {
                    return Some(Session {
                        id: id.to_ascii_lowercase(),
                        new: false,
                    });
                }
            }
        }
    }
    None
}

/// The middleware: gives every request its session (the cookie's, or a new one, which an
/// HTML response sets).
pub async fn session(State(app): State<Arc<App>>, mut request: Request, next: Next) -> Response {
    let session = cookie_session(request.headers()).or_else(|| app.changes.new_session());
    let Some(session) = session else {
        return super::guard::plain(
            StatusCode::SERVICE_UNAVAILABLE,
            "cannot read random bytes for a session\n",
        );
    };
    request.extensions_mut().insert(session.clone());
    let mut response = next.run(request).await;
    let html = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/html"));
    if session.new && html {
        let cookie = format!(
            "{COOKIE}={}; Path=/; HttpOnly; SameSite=Strict{}",
            session.id,
            if app.changes.https { "; Secure" } else { "" }
        );
        if let Ok(value) = HeaderValue::from_str(&cookie) {
            response.headers_mut().append(header::SET_COOKIE, value);
        }
    }
    response
}

/// Why a change was refused before anything was read.
pub fn refusal(
    headers: &HeaderMap,
    app: &App,
    session: &Session,
    form: &[(String, String)],
) -> Option<Refusal> {
    if app.changes.read_only {
        return Some(Refusal::new(
            StatusCode::FORBIDDEN,
            "qctl web runs read-only (--read-only): it changes nothing",
        ));
    }
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    let origin = headers.get(header::ORIGIN).and_then(|h| h.to_str().ok());
    let same_origin = match (origin, host) {
        (Some(origin), Some(host)) => ["http://", "https://"].iter().any(|scheme| {
            origin
                .strip_prefix(scheme)
                .is_some_and(|rest| rest.eq_ignore_ascii_case(host))
        }),
        _ => false,
    };
    let fetched_from_elsewhere = headers
        .get("sec-fetch-site")
        .and_then(|h| h.to_str().ok())
        .is_some_and(|site| site != "same-origin");
    if !same_origin || fetched_from_elsewhere {
        return Some(Refusal::new(
            StatusCode::FORBIDDEN,
            "a change is made only from qctl web's own pages: this request did not come from one (its Origin is not this page's)",
        ));
    }
    let token = form
        .iter()
        .rev()
        .find(|(name, _)| name == "token")
        .map(|(_, v)| v.as_str());
    if session.new || !token.is_some_and(|t| app.changes.verify(session, t)) {
        return Some(Refusal::new(
            StatusCode::FORBIDDEN,
            "this form is out of date or not from this page (qctl web restarted, or the session cookie is gone): reload the page and try again",
        ));
    }
    None
}

/// Where a change asked for by this request comes from, for the queue's record: the user
/// name the browser signed in with (`anonymous` when qctl web asks for no password), the
/// client's address (with what `X-Forwarded-For` says, when a proxy sent it: it is the
/// proxy's word) and what it asked: the method, the path and the form's fields but the token
/// (ids counted, not listed: the entry keeps them).
pub fn origin(
    headers: &HeaderMap,
    peer: SocketAddr,
    method: &str,
    path: &str,
    form: &[(String, String)],
) -> Origin {
    let user = super::guard::user_of(headers).unwrap_or_else(|| "anonymous".into());
    let mut address = peer.ip().to_string();
    if let Some(forwarded) = headers
        .get("x-forwarded-for")
        .and_then(|v| v.to_str().ok())
        .map(crate::engine::text::printable)
    {
        address.push_str(&format!(" (forwarded for {forwarded})"));
    }
    let mut request = format!("{method} {path}");
    let ids = form.iter().filter(|(n, _)| n == "id").count();
    for (name, value) in form {
        if name != "token" && name != "id" {
            request.push_str(&format!(" {name}={value}"));
        }
    }
    if ids > 0 {
        request.push_str(&format!(" ids={ids}"));
    }
    Origin::web(&user, &address, &request)
}

/// The fields of a form's body.
pub fn fields(body: &Bytes) -> Vec<(String, String)> {
    url::form_urlencoded::parse(body)
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

/// What a change's request holds: the session, the headers, the client and the form.
pub struct Asked {
    pub session: Session,
    pub headers: HeaderMap,
    pub peer: SocketAddr,
    pub body: Bytes,
}

/// `POST /queues/{queue}/pause`.
pub async fn pause(
    State(app): State<Arc<App>>,
    Path(queue): Path<String>,
    Extension(session): Extension<Session>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let asked = Asked {
        session,
        headers,
        peer,
        body,
    };
    set_paused(&app, &queue, &asked, true).await
}

/// `POST /queues/{queue}/resume`.
pub async fn resume(
    State(app): State<Arc<App>>,
    Path(queue): Path<String>,
    Extension(session): Extension<Session>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let asked = Asked {
        session,
        headers,
        peer,
        body,
    };
    set_paused(&app, &queue, &asked, false).await
}

/// Pauses or resumes `queue` as `qctl pause` and `qctl resume` do, and says so.
async fn set_paused(app: &App, queue: &str, asked: &Asked, pause: bool) -> Response {
    if asked.body.len() > MAX_FORM {
        return refused(app, Refusal::bad("the form is too large"));
    }
    let form = fields(&asked.body);
    if let Some(refusal) = refusal(&asked.headers, app, &asked.session, &form) {
        return refused(app, refusal);
    }
    let keys = match queue::find(app, queue).await {
        Ok(keys) => keys,
        Err(refusal) => return refused(app, refusal),
    };
    let action = if pause { "pause" } else { "resume" };
    let path = format!("{}/{action}", queue_path(queue));
    let origin = origin(&asked.headers, asked.peer, "POST", &path, &form);
    // As the CLI: a change the record could not hold is not made; one that is made and
    // whose record fails says so.
    let mut not_recorded = None;
    let changed = match app.link.redis().await {
        Ok(mut redis) => match changes::check_rights(&mut redis, &keys).await {
            Err(e) => Err(e),
            Ok(()) => {
                let changed = queues::set_paused(&mut redis, &keys, pause).await;
                if let Ok(true) = changed {
                    let change = Change {
                        of_queue: true,
                        ..Change::new(action)
                    };
                    if let Err(e) = changes::record(&mut redis, &keys, &change, &origin).await {
                        not_recorded = Some(format!(
                            "the change was made, but recording it in {} failed: {e}",
                            keys.changes
                        ));
                    }
                }
                changed
            }
        },
        Err(e) => Err(e),
    };
    let (done, state) = if pause {
        ("paused", "paused")
    } else {
        ("resumed", "running")
    };
    let said = match changed {
        Ok(true) => format!("queue {queue:?} is {state}"),
        Ok(false) => format!("queue {queue:?} was already {state}"),
        Err(e) => {
            app.link.failed(&e).await;
            let mut refusal = Refusal::of(&e);
            if e.outcome_unknown() {
                refusal.message = format!(
                    "whether queue {queue:?} was {done} is not known: {e}, so the change may or may not have been made; reload the queue's page to see"
                );
            }
            return refused(app, refusal);
        }
    };
    let latest = app.latest.borrow().clone();
    let page = layout(
        app,
        &latest,
        &format!("{} - {queue}", if pause { "Paused" } else { "Resumed" }),
        "",
        html! {
            h1 { "Queue " span.queue { (Shown(queue)) } }
            p.done role="status" { (Shown(&said)) }
            @if let Some(warning) = &not_recorded { p.warning { (Shown(warning)) } }
            p { a href=(queue_path(queue)) { "Back to the queue." } }
        },
    );
    Html(page.into_string()).into_response()
}

/// A page saying why a change was not made.
pub fn refused(app: &App, refusal: Refusal) -> Response {
    super::pages::queue::refused(app, refusal)
}

/// `GET /api/capabilities`: whether the page changes anything, and what.
pub async fn capabilities(State(app): State<Arc<App>>) -> Response {
    let changes: Vec<&str> = if app.changes.read_only {
        Vec::new()
    } else {
        CHANGES.to_vec()
    };
    super::api::json_response(
        StatusCode::OK,
        &serde_json::json!({
            "read_only": app.changes.read_only,
            "changes": changes,
            "version": env!("CARGO_PKG_VERSION"),
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_is_its_sessions_only() {
        let changes = Changes::new(false, false).expect("random");
        let one = changes.new_session().expect("a session");
        let two = changes.new_session().expect("a session");
        assert_ne!(one.id, two.id);
        assert!(changes.verify(&one, &changes.token(&one)));
        assert!(!changes.verify(&two, &changes.token(&one)));
        assert!(!changes.verify(&one, ""));
        assert!(!changes.verify(&one, "zz"));
        let other = Changes::new(false, false).expect("random");
        assert!(!other.verify(&one, &changes.token(&one)));
    }

    #[test]
    fn only_a_cookie_this_server_could_have_made_is_a_session() {
        let mut headers = HeaderMap::new();
        headers.append(
            header::COOKIE,
            HeaderValue::from_static("a=1; qctl_session=00112233445566778899aabbccddeeff"),
        );
        assert!(cookie_session(&headers).is_some());
        let mut headers = HeaderMap::new();
        headers.append(header::COOKIE, HeaderValue::from_static("qctl_session=x"));
        assert!(cookie_session(&headers).is_none());
    }
}
