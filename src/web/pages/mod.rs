//! The pages, as maud templates: every value put in a page is escaped by maud (text and
//! attributes alike), and text that came from Redis or a job goes through [`Shown`] first,
//! which writes its control and bidi characters as `\u{..}`, so that it shows as what it
//! is. No page holds inline script or style: app.js and app.css come from /assets/.
//!
//! A page is a function from the shared [`Latest`] reading (and the request) to
//! [`Markup`], wrapped in [`layout`]; its route is added in [`super::router`], beside the
//! route of its JSON twin in [`super::api`].

pub mod bulk;
pub mod changes;
pub mod chart;
pub mod find;
pub mod health;
pub mod job;
pub mod orphans;
pub mod overview;
pub mod queue;
pub mod steer;

use std::time::Instant;

use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use maud::{html, Markup, Render, DOCTYPE};

use super::feed::Latest;
use super::App;
use crate::engine::text::{hidden, printable, printable_message, span};

/// Text that came from Redis, a job or a consumer (queue names, errors quoting them), as
/// it is shown in a page: control characters and the characters that reorder text (bidi
/// controls) are written as `\u{202e}`, then maud escapes the rest.
pub struct Shown<'a>(pub &'a str);

impl Render for Shown<'_> {
    fn render_to(&self, buffer: &mut String) {
        visible(self.0).as_str().render_to(buffer);
    }
}

/// `text` with each [`hidden`] character written as Rust writes it (`\n`, `\u{202e}`), as
/// the terminal shows them and as app.js writes them too.
pub fn visible(text: &str) -> String {
    printable(text)
}

/// Text of many lines that came from a job (its data, a handler's stderr), as a page shows
/// it in a `<pre>`: as [`Shown`], but line breaks and tabs stay what they are.
pub struct ShownLines<'a>(pub &'a str);

impl Render for ShownLines<'_> {
    fn render_to(&self, buffer: &mut String) {
        printable_message(self.0).as_str().render_to(buffer);
    }
}

pub use crate::web::queue::segment;

/// A page: its title, the navigation, the reading's status (a banner while Redis cannot be
/// read), and its body. `<body>` carries what app.js needs: the API it polls and how often.
pub fn layout(app: &App, latest: &Latest, title: &str, api: &str, body: Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                meta name="color-scheme" content="light dark";
                // Under the header's no-referrer a browser posts a form with `Origin: null`;
                // same-origin sends the page's Origin with its own forms, which a change
                // needs (web::change), and still no referrer to any other site.
                meta name="referrer" content="same-origin";
                title { (Shown(title)) " - qctl web" }
                link rel="stylesheet" href=(super::assets::path("app", "css"));
                script src=(super::assets::path("app", "js")) defer {}
            }
            body data-api=(api) data-interval-ms=(app.interval.as_millis()) data-interval-words=(interval_words(app)) {
                header.top {
                    a.brand href="/" { "qctl web" }
                    nav aria-label="pages" {
                        a href="/" { "Overview" }
                        a href="/health" { "Health" }
                    }
                    span.server { "Redis at " (Shown(&app.server)) }
                }
                (status(app, latest))
                main { (body) }
            }
        }
    }
}

/// The reading's status: when the last good reading was, every how often; or a banner
/// (role=alert) with the error while Redis cannot be read. app.js rewrites it from the
/// API's `status`.
fn status(app: &App, latest: &Latest) -> Markup {
    let now = Instant::now();
    let read = latest
        .snapshot
        .as_ref()
        .map(|s| span(now.saturating_duration_since(s.at).as_secs_f64()));
    html! {
        div #status {
            @if let Some(failure) = &latest.failure {
                div.banner role="alert" {
                    strong { "Redis cannot be read" }
                    ": " span.error { (Shown(&failure.message)) }
                    " " span.since {
                        @match &read {
                            Some(age) => { "(last good reading " (age) " ago; " }
                            None => { "(no good reading yet; " }
                        }
                        "retrying every " (interval_words(app)) ")"
                    }
                }
            } @else {
                p.updated {
                    @match &read {
                        Some(age) => { "updated " (age) " ago, every " (interval_words(app)) }
                        None => { "reading Redis..." }
                    }
                }
            }
        }
    }
}

fn interval_words(app: &App) -> String {
    humantime::format_duration(app.interval).to_string()
}

/// A page as a response (its headers are the guard's).
pub fn respond(markup: Markup) -> Response {
    Html(markup.into_string()).into_response()
}

/// Any path no page is at.
pub async fn not_found(
    axum::extract::State(app): axum::extract::State<std::sync::Arc<App>>,
) -> Response {
    let latest = app.latest.borrow().clone();
    let page = layout(
        &app,
        &latest,
        "Not found",
        "",
        html! {
            h1 { "Not found" }
            p { "No page is at this address. " a href="/" { "See every queue." } }
        },
    );
    (StatusCode::NOT_FOUND, Html(page.into_string())).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hostile_text_shows_as_text() {
        let shown = |s: &str| Shown(s).render().into_string();
        assert_eq!(
            shown("<script>x</script>"),
            "&lt;script&gt;x&lt;/script&gt;"
        );
        assert_eq!(
            shown("\"><img src=x onerror=alert(1)>"),
            "&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"
        );
        assert_eq!(shown("a\u{202e}b\0c\x1b\n"), "a\\u{202e}b\\u{0}c\\u{1b}\\n");
        assert_eq!(shown("mail"), "mail");
    }

    #[test]
    fn lines_keep_their_breaks_and_escape_the_rest() {
        let shown = |s: &str| ShownLines(s).render().into_string();
        assert_eq!(
            shown("a\n\tb\u{202e}c\0</pre><script>"),
            "a\n\tb\\u{202e}c\\u{0}&lt;/pre&gt;&lt;script&gt;"
        );
        assert_eq!(shown("x\r\n"), "x\\r\n");
    }

    #[test]
    fn a_segment_is_percent_encoded_but_for_unreserved_characters() {
        assert_eq!(segment("mail"), "mail");
        assert_eq!(segment("a/b c?d#e%"), "a%2Fb%20c%3Fd%23e%25");
        assert_eq!(segment("é\u{202e}"), "%C3%A9%E2%80%AE");
        assert_eq!(segment(""), "");
    }
}
