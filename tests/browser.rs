//! The browser harness of the page tests (tests/support/browser.rs) on a small page served
//! here: it loads the page and its script, reads text, clicks, types, presses keys, runs
//! JavaScript, reads the console and takes screenshots at the sizes the page tests use. Skipped
//! with a note when chromium or chromedriver is missing, unless QCTL_REQUIRE_BROWSER is set
//! (scripts/test sets it once it installed them).

mod support;

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use serde_json::json;
use support::browser::{key, png_size, Browser, LIMIT};

const INDEX: &str = r#"<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Harness</title>
<link rel="icon" href="data:,">
<script src="/app.js" defer></script>
</head>
<body>
<h1 id="title">The harness page</h1>
<p><a id="link" href="/other.html" data-kind="plain">The other page</a></p>
<button id="go" type="button">Go</button>
<p id="out">waiting</p>
<input id="name" name="name" autocomplete="off">
<p id="echo"></p>
<p id="hidden" hidden>not shown</p>
</body>
</html>
"#;

const APP: &str = r#"document.getElementById("go").addEventListener("click", () => {
  document.getElementById("out").textContent = "clicked";
});
const input = document.getElementById("name");
input.addEventListener("input", () => {
  document.getElementById("echo").textContent = "typed " + input.value;
});
input.addEventListener("keydown", (e) => {
  if (e.key === "Enter") window.submitted = input.value;
  if (e.key === "Escape") input.value = "";
});
window.appLoaded = true;
console.error("app.js says hello on the error console");
"#;

const OTHER: &str = r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Other</title><link rel="icon" href="data:,"></head>
<body><p id="here">The other page.</p></body></html>
"#;

/// A page that loads an image and a script and fetches from FAR, an address other than
/// localhost and 127.0.0.1, then says how the fetch went.
const OUTSIDE: &str = r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Outside</title><link rel="icon" href="data:,"></head>
<body>
<img id="far" src="http://FAR/x.png" alt="far"
     onerror="window.imageFailed = true" onload="window.imageLoaded = true">
<script src="http://FAR/y.js"></script>
<p id="state">fetching</p>
<script>
fetch("http://FAR/z")
  .then(() => { document.getElementById("state").textContent = "fetched"; })
  .catch(() => { document.getElementById("state").textContent = "fetch failed"; });
</script>
</body></html>
"#;

/// Serves the pages above on a free port of 127.0.0.1, one thread per connection (a browser
/// opens connections it may never send a request on), with `far` for FAR; its base URL.
fn serve(far: &str) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let base = format!("http://{}", listener.local_addr().unwrap());
    let outside: &'static str = OUTSIDE.replace("FAR", far).leak();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || answer(stream, outside));
        }
    });
    base
}

/// A server on 127.0.0.2, a loopback address the browser is not let resolve, that accepts
/// connections and never answers (as a far host that hangs would): its address, and the
/// number of connections it has accepted.
fn far_and_silent() -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.2:0").expect("bind 127.0.0.2");
    let far = listener.local_addr().unwrap().to_string();
    let accepted = Arc::new(AtomicUsize::new(0));
    let counter = accepted.clone();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().flatten() {
            held.push(stream);
            counter.fetch_add(1, Ordering::SeqCst);
        }
    });
    (far, accepted)
}

fn answer(stream: TcpStream, outside: &str) {
    let _ = stream.set_read_timeout(Some(LIMIT));
    let mut reader = BufReader::new(&stream);
    let mut request = String::new();
    if reader.read_line(&mut request).is_err() {
        return;
    }
    loop {
        let mut header = String::new();
        match reader.read_line(&mut header) {
            Ok(0) | Err(_) => return,
            Ok(_) if header == "\r\n" => break,
            Ok(_) => {}
        }
    }
    let path = request.split_whitespace().nth(1).unwrap_or("/");
    let (status, kind, body) = match path {
        "/" => ("200 OK", "text/html; charset=utf-8", INDEX),
        "/app.js" => ("200 OK", "text/javascript; charset=utf-8", APP),
        "/other.html" => ("200 OK", "text/html; charset=utf-8", OTHER),
        "/outside.html" => ("200 OK", "text/html; charset=utf-8", outside),
        _ => ("404 Not Found", "text/plain; charset=utf-8", "not found\n"),
    };
    let _ = write!(
        &stream,
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
}

/// At 1280x800: the page and its script load, text and attributes read, a click changes the
/// page, typing reaches the input, keys are pressed, JavaScript's results come back as JSON,
/// the console's errors are read, a link leads to the other page, and the screenshot is a
/// 1280x800 PNG.
#[test]
fn the_harness_loads_reads_clicks_types_and_runs_javascript_on_a_desktop_page() {
    let Some(browser) = Browser::start(1280, 800) else {
        return;
    };
    let base = serve("example.invalid");
    browser.open(&format!("{base}/"));
    assert_eq!(browser.title(), "Harness");
    assert_eq!(browser.url(), format!("{base}/"));
    browser.wait("app.js to run", |b| {
        b.run_js("return window.appLoaded === true") == json!(true)
    });

    let body = browser.body_text();
    assert!(body.contains("The harness page"), "{body}");
    assert!(body.contains("waiting"), "{body}");
    assert!(
        !body.contains("not shown"),
        "hidden text is left out: {body}"
    );
    assert_eq!(browser.text("#title").as_deref(), Some("The harness page"));
    assert_eq!(browser.text("#nothing-here"), None);
    assert!(browser.find("#nothing-here").is_none());
    assert_eq!(browser.find_all("p").len(), 4);
    let link = browser.element("#link");
    assert_eq!(link.text(), "The other page");
    assert_eq!(link.attr("href").as_deref(), Some("/other.html"));
    assert_eq!(link.attr("data-kind").as_deref(), Some("plain"));
    assert_eq!(link.attr("title"), None);
    assert_eq!(link.property("href"), json!(format!("{base}/other.html")));
    assert!(link.displayed());
    assert!(!browser.element("#hidden").displayed());
    let rect = browser.element("#go").rect();
    assert!(rect.width > 0.0 && rect.height > 0.0, "{rect:?}");

    browser.element("#go").click();
    browser.wait("the click's text", |b| {
        b.text("#out").as_deref() == Some("clicked")
    });

    let input = browser.element("#name");
    input.type_text("queue one");
    assert_eq!(input.property("value"), json!("queue one"));
    browser.wait("the typed text's echo", |b| {
        b.text("#echo").as_deref() == Some("typed queue one")
    });
    browser.press(key::ENTER);
    assert_eq!(
        browser.run_js("return window.submitted"),
        json!("queue one")
    );
    browser.press(" and two");
    assert_eq!(input.property("value"), json!("queue one and two"));
    browser.press(key::ESCAPE);
    assert_eq!(input.property("value"), json!(""));
    input.type_text("again");
    input.clear();
    assert_eq!(input.property("value"), json!(""));

    assert_eq!(
        browser.run_js("return {n: 1 + 2, s: document.title, list: [true, null]}"),
        json!({"n": 3, "s": "Harness", "list": [true, null]})
    );
    assert_eq!(browser.run_js("window.noReturn = 1"), json!(null));
    assert_eq!(
        browser.run_js_with("return arguments[0] + arguments[1]", &[json!(40), json!(2)]),
        json!(42)
    );
    assert_eq!(
        browser.run_js("return typeof window.pwned"),
        json!("undefined")
    );

    let errors = browser.console_errors();
    assert!(
        errors
            .iter()
            .any(|e| e.contains("app.js says hello on the error console")),
        "{errors:?}"
    );
    let again = browser.console_errors();
    assert!(
        !again.iter().any(|e| e.contains("app.js says hello")),
        "each error is read once: {again:?}"
    );

    let shot = browser.screenshot("harness-1280x800");
    assert!(shot.starts_with(support::browser::screenshot_dir()));
    assert_eq!(png_size(&shot), (1280, 800), "{}", shot.display());

    browser.element("#link").click();
    browser.wait("the other page", |b| b.text("#here").is_some());
    assert_eq!(browser.url(), format!("{base}/other.html"));
    assert_eq!(browser.title(), "Other");
}

/// At 390x844 the page is 390 pixels wide, its media queries see a 390-pixel screen, and the
/// screenshot is a 390x844 PNG: as a desktop browser narrowed that far, and as a phone shows a
/// page that has a viewport meta tag.
#[test]
fn screenshots_at_phone_size_are_390x844_pngs() {
    let base = serve("example.invalid");
    for (name, mobile) in [("harness-390x844", false), ("harness-390x844-mobile", true)] {
        let started = if mobile {
            Browser::start_mobile(390, 844)
        } else {
            Browser::start(390, 844)
        };
        let Some(browser) = started else {
            return;
        };
        assert_eq!(browser.size(), (390, 844));
        browser.open(&format!("{base}/"));
        assert_eq!(
            browser.run_js(
                "return [innerWidth, innerHeight, matchMedia('(max-width: 400px)').matches, devicePixelRatio]"
            ),
            json!([390, 844, true, 1]),
            "{name}"
        );
        browser.element("#go").click();
        browser.wait("the click's text", |b| {
            b.text("#out").as_deref() == Some("clicked")
        });
        let shot = browser.screenshot(name);
        assert_eq!(png_size(&shot), (390, 844), "{}", shot.display());
    }
}

/// A page whose image, script and fetch point outside, at a host that would accept and never
/// answer, loads at once: the browser resolves nothing but localhost and 127.0.0.1, so all
/// three fail without a connection, and the console says so. (Were the browser to connect,
/// the page's load would wait on the image and the script, and `open` would fail after its
/// bound.)
#[test]
fn a_page_fetching_from_outside_loads_without_waiting_on_the_network() {
    let Some(browser) = Browser::start(1280, 800) else {
        return;
    };
    let (far, accepted) = far_and_silent();
    let base = serve(&far);
    browser.open(&format!("{base}/outside.html"));
    assert_eq!(browser.run_js("return window.imageFailed"), json!(true));
    assert_eq!(browser.run_js("return window.imageLoaded"), json!(null));
    browser.wait("the fetch to fail", |b| {
        b.text("#state").as_deref() == Some("fetch failed")
    });
    let errors = browser.console_errors();
    for what in ["x.png", "y.js"] {
        assert!(
            errors
                .iter()
                .any(|e| e.contains(&format!("http://{far}/{what}"))),
            "{what}: {errors:?}"
        );
    }
    assert_eq!(accepted.load(Ordering::SeqCst), 0, "the browser connected");
}

/// A name given to start_resolving reaches the server on 127.0.0.1 (and another name still
/// resolves to nothing); emulate_media makes the page see a dark preference and then its
/// own again; try_open gives the error of a page nothing serves instead of failing.
#[test]
fn the_harness_resolves_names_given_emulates_dark_and_reports_a_refused_page() {
    let Some(browser) = Browser::start_resolving(1280, 800, &["mapped.test"]) else {
        return;
    };
    let base = serve("example.invalid");
    let port = base.rsplit(':').next().expect("a port");
    browser.open(&format!("http://mapped.test:{port}/"));
    assert_eq!(browser.title(), "Harness");
    let elsewhere = browser.try_open(&format!("http://other.test:{port}/"));
    assert!(
        elsewhere
            .as_ref()
            .is_err_and(|e| e.contains("ERR_NAME_NOT_RESOLVED")),
        "{elsewhere:?}"
    );

    browser.open(&format!("{base}/"));
    let dark = "return matchMedia('(prefers-color-scheme: dark)').matches;";
    assert_eq!(browser.run_js(dark), json!(false));
    browser.emulate_media(&[("prefers-color-scheme", "dark")]);
    assert_eq!(browser.run_js(dark), json!(true));
    browser.open(&format!("{base}/other.html"));
    assert_eq!(browser.run_js(dark), json!(true), "kept for the next page");
    browser.emulate_media(&[]);
    assert_eq!(browser.run_js(dark), json!(false));

    // A port nothing listens on.
    let closed = TcpListener::bind("127.0.0.1:0").expect("bind");
    let free = closed.local_addr().unwrap().port();
    drop(closed);
    let refused = browser.try_open(&format!("http://127.0.0.1:{free}/"));
    assert!(
        refused
            .as_ref()
            .is_err_and(|e| e.contains("ERR_CONNECTION_REFUSED")),
        "{refused:?}"
    );
    assert!(browser.try_open(&format!("{base}/")).is_ok());
}
