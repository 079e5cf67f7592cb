//! Pages in a real browser: Debian's Chromium, headless, driven through its ChromeDriver by
//! the W3C WebDriver protocol (JSON over HTTP, with ureq). [`Browser::start`] gives None
//! (with a note) when chromium or chromedriver is missing, unless QCTL_REQUIRE_BROWSER is
//! set (scripts/test sets it once it installed them).
//!
//! Every call is synchronous and bounded: chromedriver must answer within [`LIMIT`], a page
//! must load within it, and a WebDriver error fails the test with chromedriver's output. The
//! browser resolves nothing but `localhost` and `127.0.0.1` (its host resolver rules): a page
//! that fetches from elsewhere fails at once instead of waiting on the network; names given
//! to [`Browser::start_resolving`] resolve to 127.0.0.1 too (a name that is not the server's,
//! as a rebinding attack's). [`Browser::emulate_media`] sets what CSS media queries see
//! (`prefers-color-scheme: dark`).

use std::fs::File;
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// How long chromedriver may take to start, a session to open, a page to load, a script to
/// run, and [`Browser::wait`] to see its condition.
pub const LIMIT: Duration = Duration::from_secs(30);

/// The key of an element reference in WebDriver's JSON.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

/// Keys for [`Browser::press`] and [`Element::type_text`] (WebDriver's code points).
pub mod key {
    pub const ENTER: &str = "\u{E007}";
    pub const ESCAPE: &str = "\u{E00C}";
    pub const TAB: &str = "\u{E004}";
    pub const BACKSPACE: &str = "\u{E003}";
    pub const DELETE: &str = "\u{E017}";
    pub const SPACE: &str = "\u{E00D}";
    pub const PAGE_UP: &str = "\u{E00E}";
    pub const PAGE_DOWN: &str = "\u{E00F}";
    pub const END: &str = "\u{E010}";
    pub const HOME: &str = "\u{E011}";
    pub const LEFT: &str = "\u{E012}";
    pub const UP: &str = "\u{E013}";
    pub const RIGHT: &str = "\u{E014}";
    pub const DOWN: &str = "\u{E015}";
}

/// The flags every session starts Chromium with (docs/development.md): headless, and nothing
/// that reaches outside on its own (this machine's closed network refuses it).
const FLAGS: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
];

/// Chromium's host resolver rules: the names given resolve to 127.0.0.1, nothing but them,
/// localhost and 127.0.0.1 resolves (no page reaches elsewhere). The first rule that matches
/// a name applies.
fn resolver_rules(names: &[&str]) -> String {
    let mut rules: Vec<String> = names
        .iter()
        .map(|name| format!("MAP {name} 127.0.0.1"))
        .collect();
    rules.push("MAP * ~NOTFOUND".into());
    rules.push("EXCLUDE localhost".into());
    rules.push("EXCLUDE 127.0.0.1".into());
    format!("--host-resolver-rules={}", rules.join(" , "))
}

/// ChromeDriver on a free port with one headless Chromium session; the session is closed,
/// and chromedriver and the browser are killed, on drop.
pub struct Browser {
    agent: ureq::Agent,
    /// `http://127.0.0.1:PORT/session/ID`.
    session: String,
    size: (u32, u32),
    driver: Child,
    /// chromedriver's stdout and stderr (Chromium's stderr too).
    log: PathBuf,
    /// Holds the log and the browser's --user-data-dir; removed after the processes end.
    _dir: tempfile::TempDir,
}

/// An element of the current page, found by [`Browser::find`] or [`Browser::element`].
pub struct Element<'a> {
    browser: &'a Browser,
    id: String,
    css: String,
}

/// Where an element is on the page, in CSS pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
}

/// A WebDriver error: its code (`no such element`, `timeout`...) and message.
#[derive(Debug)]
struct Failure {
    error: String,
    message: String,
}

/// Where a program is on the PATH.
fn on_path(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

impl Browser {
    /// A desktop browser whose page (the viewport) is `width`x`height` CSS pixels at one
    /// device pixel per CSS pixel: screenshots are that size.
    #[track_caller]
    pub fn start(width: u32, height: u32) -> Option<Browser> {
        Browser::launch(width, height, false, &[])
    }

    /// As [`Browser::start`], with each of `names` resolving to 127.0.0.1: a page opened
    /// by such a name reaches a server on loopback with that name in its Host header.
    #[track_caller]
    pub fn start_resolving(width: u32, height: u32, names: &[&str]) -> Option<Browser> {
        Browser::launch(width, height, false, names)
    }

    /// As [`Browser::start`], as a phone shows a page: the page's `<meta name="viewport">`
    /// decides its layout width (without one, a phone lays it out 980 pixels wide), and
    /// scrollbars overlay the page.
    #[track_caller]
    pub fn start_mobile(width: u32, height: u32) -> Option<Browser> {
        Browser::launch(width, height, true, &[])
    }

    #[track_caller]
    fn launch(width: u32, height: u32, mobile: bool, names: &[&str]) -> Option<Browser> {
        let (Some(chromium), Some(driver)) = (on_path("chromium"), on_path("chromedriver")) else {
            if std::env::var_os("QCTL_REQUIRE_BROWSER").is_some() {
                panic!(
                    "chromium or chromedriver is missing and QCTL_REQUIRE_BROWSER is set: \
                     apt-get install -y chromium chromium-driver"
                );
            }
            println!(
                "note: skipped: chromium or chromedriver is missing \
                 (apt-get install -y chromium chromium-driver)"
            );
            return None;
        };
        let dir = tempfile::tempdir().expect("temp dir");
        let profile = dir.path().join("profile");
        std::fs::create_dir(&profile).expect("the browser's profile dir");
        let log = dir.path().join("chromedriver.log");
        // A port taken between free_port() and chromedriver's bind: another one.
        let mut tries = 0;
        let (child, base) = loop {
            tries += 1;
            let port = super::free_port();
            let out = File::options()
                .create(true)
                .append(true)
                .open(&log)
                .expect("chromedriver's log");
            let mut child = Command::new(&driver)
                .arg(format!("--port={port}"))
                // Chromium's stderr joins chromedriver's: why a browser did not start.
                .arg("--enable-chrome-logs")
                .stdin(Stdio::null())
                .stdout(out.try_clone().expect("the log, twice"))
                .stderr(out)
                // Its own process group: drop kills chromedriver and the browser under it.
                .process_group(0)
                .spawn()
                .expect("start chromedriver");
            let base = format!("http://127.0.0.1:{port}");
            let agent = agent(Duration::from_secs(5));
            let deadline = Instant::now() + LIMIT;
            let ready = loop {
                if let Ok(Some(_)) = child.try_wait() {
                    break false;
                }
                let status = agent.get(format!("{base}/status")).call();
                if let Ok(mut r) = status {
                    let body = r.body_mut().read_to_string().unwrap_or_default();
                    if serde_json::from_str::<Value>(&body)
                        .is_ok_and(|v| v["value"]["ready"] == json!(true))
                    {
                        break true;
                    }
                }
                if Instant::now() > deadline {
                    kill(&mut child);
                    panic!(
                        "chromedriver did not answer within {LIMIT:?}:\n{}",
                        tail(&log)
                    );
                }
                std::thread::sleep(Duration::from_millis(50));
            };
            if ready {
                break (child, base);
            }
            kill(&mut child);
            if tries == 3 {
                panic!("chromedriver did not start:\n{}", tail(&log));
            }
        };
        let mut args: Vec<String> = FLAGS.iter().map(|f| f.to_string()).collect();
        args.push(resolver_rules(names));
        args.push(format!("--user-data-dir={}", profile.display()));
        args.push(format!("--window-size={width},{height}"));
        let capabilities = json!({
            "capabilities": {
                "alwaysMatch": {
                    "browserName": "chrome",
                    "pageLoadStrategy": "normal",
                    "timeouts": {
                        "implicit": 0,
                        "pageLoad": LIMIT.as_millis() as u64,
                        "script": LIMIT.as_millis() as u64,
                    },
                    "goog:loggingPrefs": { "browser": "ALL" },
                    "goog:chromeOptions": {
                        "binary": chromium,
                        "args": args,
                    },
                }
            }
        });
        let mut browser = Browser {
            agent: agent(LIMIT + Duration::from_secs(15)),
            session: String::new(),
            size: (width, height),
            driver: child,
            log,
            _dir: dir,
        };
        // A session that does not start within LIMIT fails with chromedriver's output.
        let opened = agent(LIMIT)
            .post(format!("{base}/session"))
            .header("content-type", "application/json")
            .send(capabilities.to_string())
            .map_err(|e| Failure {
                error: "no answer".into(),
                message: e.to_string(),
            })
            .and_then(|mut r| answer(r.body_mut().read_to_string().unwrap_or_default()));
        let id = match opened {
            Ok(v) => v["sessionId"].as_str().expect("a session id").to_string(),
            Err(f) => panic!(
                "the browser session did not start (within {LIMIT:?}): {}: {}\nchromedriver:\n{}",
                f.error,
                first_line(&f.message),
                tail(&browser.log)
            ),
        };
        browser.session = format!("{base}/session/{id}");
        // The viewport itself is the size asked for: a headless window is at least 500
        // pixels wide, and its height counts the window's frame.
        browser.call(
            "POST",
            "/goog/cdp/execute",
            json!({
                "cmd": "Emulation.setDeviceMetricsOverride",
                "params": {
                    "width": width,
                    "height": height,
                    "deviceScaleFactor": 1,
                    "mobile": mobile,
                }
            }),
        );
        Some(browser)
    }

    /// The viewport's width and height, as started.
    pub fn size(&self) -> (u32, u32) {
        self.size
    }

    /// Loads `url` and waits for its load event (at most [`LIMIT`]).
    #[track_caller]
    pub fn open(&self, url: &str) {
        self.call("POST", "/url", json!({ "url": url }));
    }

    /// As [`Browser::open`], giving the browser's error instead of failing when the page
    /// cannot be loaded at all (`net::ERR_CONNECTION_REFUSED`: nothing listens there).
    #[track_caller]
    pub fn try_open(&self, url: &str) -> Result<(), String> {
        match self.try_call("POST", "/url", json!({ "url": url })) {
            Ok(_) => Ok(()),
            Err(f) if f.error == "unknown error" => Err(first_line(&f.message).to_string()),
            Err(f) => self.fail(&format!("open {url}"), f),
        }
    }

    /// Makes CSS media queries see `features` (`[("prefers-color-scheme", "dark")]`) in
    /// this session's pages, through the DevTools protocol's Emulation.setEmulatedMedia;
    /// none gives the browser's own again.
    #[track_caller]
    pub fn emulate_media(&self, features: &[(&str, &str)]) {
        let features: Vec<Value> = features
            .iter()
            .map(|(name, value)| json!({ "name": name, "value": value }))
            .collect();
        self.call(
            "POST",
            "/goog/cdp/execute",
            json!({
                "cmd": "Emulation.setEmulatedMedia",
                "params": { "features": features },
            }),
        );
    }

    /// The address of the current page.
    #[track_caller]
    pub fn url(&self) -> String {
        self.call("GET", "/url", Value::Null)
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    /// The title of the current page.
    #[track_caller]
    pub fn title(&self) -> String {
        self.call("GET", "/title", Value::Null)
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    /// The text of the page's body as it is rendered (hidden elements left out).
    #[track_caller]
    pub fn body_text(&self) -> String {
        self.element("body").text()
    }

    /// The rendered text of the first element matching `css`, read at once (no element to go
    /// stale between finding it and reading it: for polling); None when nothing matches.
    #[track_caller]
    pub fn text(&self, css: &str) -> Option<String> {
        let v = self.run_js_with(
            "const e = document.querySelector(arguments[0]); return e ? e.innerText : null;",
            &[json!(css)],
        );
        v.as_str().map(str::to_string)
    }

    /// The first element matching the CSS selector, if any now.
    #[track_caller]
    pub fn find(&self, css: &str) -> Option<Element<'_>> {
        match self.try_call(
            "POST",
            "/element",
            json!({ "using": "css selector", "value": css }),
        ) {
            Ok(v) => Some(self.element_of(&v, css)),
            Err(f) if f.error == "no such element" => None,
            Err(f) => self.fail(&format!("find {css:?}"), f),
        }
    }

    /// Every element matching the CSS selector now, in document order.
    #[track_caller]
    pub fn find_all(&self, css: &str) -> Vec<Element<'_>> {
        let v = self.call(
            "POST",
            "/elements",
            json!({ "using": "css selector", "value": css }),
        );
        v.as_array()
            .map(|a| a.iter().map(|e| self.element_of(e, css)).collect())
            .unwrap_or_default()
    }

    /// The first element matching the CSS selector, waiting up to [`LIMIT`] for one to
    /// appear; fails with the page's text when none does.
    #[track_caller]
    pub fn element(&self, css: &str) -> Element<'_> {
        let deadline = Instant::now() + LIMIT;
        loop {
            if let Some(e) = self.find(css) {
                return e;
            }
            if Instant::now() > deadline {
                panic!(
                    "no element matches {css:?} after {LIMIT:?} at {}; the page:\n{}",
                    self.url(),
                    self.page_text()
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Presses and releases each key of `keys` in turn (characters, or [`key`] constants),
    /// in the element that has the focus.
    #[track_caller]
    pub fn press(&self, keys: &str) {
        let mut actions = Vec::new();
        for c in keys.chars() {
            actions.push(json!({ "type": "keyDown", "value": c.to_string() }));
            actions.push(json!({ "type": "keyUp", "value": c.to_string() }));
        }
        self.call(
            "POST",
            "/actions",
            json!({ "actions": [{ "type": "key", "id": "keyboard", "actions": actions }] }),
        );
    }

    /// Runs `script` as the body of a function in the page (`return` gives the result) and
    /// gives its result as JSON (an element comes back as a WebDriver reference).
    #[track_caller]
    pub fn run_js(&self, script: &str) -> Value {
        self.run_js_with(script, &[])
    }

    /// As [`Browser::run_js`], with `arguments[0]`, `arguments[1]`... set to `args`.
    #[track_caller]
    pub fn run_js_with(&self, script: &str, args: &[Value]) -> Value {
        self.call(
            "POST",
            "/execute/sync",
            json!({ "script": script, "args": args }),
        )
    }

    /// Polls `cond` every 50 ms until it holds or `limit` passes; true if it held.
    pub fn wait_until(&self, limit: Duration, mut cond: impl FnMut(&Browser) -> bool) -> bool {
        let deadline = Instant::now() + limit;
        while Instant::now() < deadline {
            if cond(self) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        cond(self)
    }

    /// Polls `cond` until it holds; fails with `what` and the page's text when it does not
    /// within [`LIMIT`].
    #[track_caller]
    pub fn wait(&self, what: &str, cond: impl FnMut(&Browser) -> bool) {
        if !self.wait_until(LIMIT, cond) {
            panic!(
                "timed out after {LIMIT:?} waiting for {what} at {}; the page:\n{}",
                self.url(),
                self.page_text()
            );
        }
    }

    /// Saves what the viewport shows as `NAME.png` in [`screenshot_dir`] and gives its path.
    #[track_caller]
    pub fn screenshot(&self, name: &str) -> PathBuf {
        assert!(
            !name.is_empty() && !name.contains('/'),
            "a screenshot's name is a file name: {name:?}"
        );
        let dir = screenshot_dir();
        std::fs::create_dir_all(&dir).expect("the screenshot directory");
        let path = dir.join(format!("{name}.png"));
        let png = self.call("GET", "/screenshot", Value::Null);
        let png = base64::Engine::decode(
            &base64::engine::general_purpose::STANDARD,
            png.as_str().expect("a screenshot in base64"),
        )
        .expect("a screenshot in base64");
        std::fs::write(&path, png).expect("write the screenshot");
        path
    }

    /// The errors the page's console has shown since the last call (each read once): script
    /// errors, `console.error`, resources that failed to load, as `SOURCE: MESSAGE`.
    #[track_caller]
    pub fn console_errors(&self) -> Vec<String> {
        let entries = self.call("POST", "/se/log", json!({ "type": "browser" }));
        entries
            .as_array()
            .into_iter()
            .flatten()
            .filter(|e| e["level"] == "SEVERE")
            .map(|e| {
                format!(
                    "{}: {}",
                    e["source"].as_str().unwrap_or_default(),
                    e["message"].as_str().unwrap_or_default()
                )
            })
            .collect()
    }

    /// chromedriver's output so far, Chromium's stderr with it (its last 4 KiB).
    pub fn driver_log(&self) -> String {
        tail(&self.log)
    }

    /// The page's text for a failure message, or why there is none.
    #[track_caller]
    fn page_text(&self) -> String {
        match self.try_call(
            "POST",
            "/execute/sync",
            json!({ "script": "return document.body ? document.body.innerText : ''", "args": [] }),
        ) {
            Ok(v) => v.as_str().unwrap_or_default().to_string(),
            Err(f) => format!("(unreadable: {}: {})", f.error, first_line(&f.message)),
        }
    }

    #[track_caller]
    fn element_of(&self, v: &Value, css: &str) -> Element<'_> {
        Element {
            browser: self,
            id: v[ELEMENT]
                .as_str()
                .expect("an element reference")
                .to_string(),
            css: css.to_string(),
        }
    }

    /// A command of the session; its value, or the failure with chromedriver's output.
    #[track_caller]
    fn call(&self, method: &str, path: &str, body: Value) -> Value {
        match self.try_call(method, path, body) {
            Ok(v) => v,
            Err(f) => self.fail(&format!("{method} {path}"), f),
        }
    }

    #[track_caller]
    fn fail(&self, what: &str, f: Failure) -> ! {
        panic!(
            "WebDriver {what}: {}: {}\nchromedriver:\n{}",
            f.error,
            first_line(&f.message),
            tail(&self.log)
        )
    }

    fn try_call(&self, method: &str, path: &str, body: Value) -> Result<Value, Failure> {
        let url = format!("{}{path}", self.session);
        let sent = match method {
            "GET" => self.agent.get(url).call(),
            "DELETE" => self.agent.delete(url).call(),
            _ => self
                .agent
                .post(url)
                .header("content-type", "application/json")
                .send(body.to_string()),
        };
        let mut response = sent.map_err(|e| Failure {
            error: "no answer".into(),
            message: e.to_string(),
        })?;
        answer(response.body_mut().read_to_string().unwrap_or_default())
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        // Closing the session ends Chromium; chromedriver's process group goes after it,
        // with whatever of the browser is left.
        if !self.session.is_empty() {
            let _ = agent(Duration::from_secs(10))
                .delete(self.session.clone())
                .call();
        }
        kill(&mut self.driver);
    }
}

impl Element<'_> {
    /// The element's rendered text.
    #[track_caller]
    pub fn text(&self) -> String {
        self.get("/text").as_str().unwrap_or_default().to_string()
    }

    /// The value of the attribute `name` as written in the page, if it has one.
    #[track_caller]
    pub fn attr(&self, name: &str) -> Option<String> {
        self.get(&format!("/attribute/{name}"))
            .as_str()
            .map(str::to_string)
    }

    /// The DOM property `name` (`value` of an input, `checked`, `href` resolved...).
    #[track_caller]
    pub fn property(&self, name: &str) -> Value {
        self.get(&format!("/property/{name}"))
    }

    /// Whether the element is shown.
    #[track_caller]
    pub fn displayed(&self) -> bool {
        self.get("/displayed") == json!(true)
    }

    /// Where the element is, relative to the page's top left corner.
    #[track_caller]
    pub fn rect(&self) -> Rect {
        let v = self.get("/rect");
        let n = |k: &str| v[k].as_f64().unwrap_or_default();
        Rect {
            x: n("x"),
            y: n("y"),
            width: n("width"),
            height: n("height"),
        }
    }

    /// Clicks the middle of the element, scrolled into view (fails when another element
    /// would take the click).
    #[track_caller]
    pub fn click(&self) {
        self.post("/click", json!({}));
    }

    /// Clears an input or text area.
    #[track_caller]
    pub fn clear(&self) {
        self.post("/clear", json!({}));
    }

    /// Focuses the element and types `text` into it (characters, or [`key`] constants).
    #[track_caller]
    pub fn type_text(&self, text: &str) {
        self.post("/value", json!({ "text": text }));
    }

    #[track_caller]
    fn get(&self, what: &str) -> Value {
        self.command("GET", what, Value::Null)
    }

    #[track_caller]
    fn post(&self, what: &str, body: Value) {
        self.command("POST", what, body);
    }

    #[track_caller]
    fn command(&self, method: &str, what: &str, body: Value) -> Value {
        let path = format!("/element/{}{what}", self.id);
        match self.browser.try_call(method, &path, body) {
            Ok(v) => v,
            Err(f) => self
                .browser
                .fail(&format!("{method} {what} of {:?}", self.css), f),
        }
    }
}

/// The directory screenshots go to: `target/tmp/web-screenshots/`.
pub fn screenshot_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("web-screenshots")
}

/// The width and height a PNG file's header gives.
pub fn png_size(path: &Path) -> (u32, u32) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(
        bytes.len() > 24 && bytes.starts_with(b"\x89PNG\r\n\x1a\n") && &bytes[12..16] == b"IHDR",
        "{} is not a PNG",
        path.display()
    );
    let be = |at: usize| u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap());
    (be(16), be(20))
}

fn agent(limit: Duration) -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(limit))
        .build()
        .into()
}

/// A WebDriver answer's `value`, or its error.
fn answer(body: String) -> Result<Value, Failure> {
    let v: Value = serde_json::from_str(&body).map_err(|_| Failure {
        error: "not JSON".into(),
        message: body.clone(),
    })?;
    let value = v.get("value").cloned().unwrap_or(Value::Null);
    match value.get("error").and_then(Value::as_str) {
        Some(error) => Err(Failure {
            error: error.to_string(),
            message: value["message"].as_str().unwrap_or_default().to_string(),
        }),
        None => Ok(value),
    }
}

/// chromedriver's messages carry Chromium's build and session info on later lines.
fn first_line(message: &str) -> &str {
    message.lines().next().unwrap_or_default()
}

/// The last 4 KiB of a log.
fn tail(path: &Path) -> String {
    let mut text = String::new();
    if let Ok(mut f) = File::open(path) {
        let mut bytes = Vec::new();
        let _ = f.read_to_end(&mut bytes);
        let from = bytes.len().saturating_sub(4096);
        text = String::from_utf8_lossy(&bytes[from..]).into_owned();
    }
    text
}

/// Kills a child and its process group, and reaps it.
fn kill(child: &mut Child) {
    let group = nix::unistd::Pid::from_raw(child.id() as i32);
    let _ = nix::sys::signal::killpg(group, nix::sys::signal::Signal::SIGKILL);
    let _ = child.kill();
    let _ = child.wait();
}
