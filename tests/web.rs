//! `qctl web` as a process against real redis-servers, asked over HTTP: what it serves, the
//! headers and refusals that make it safe to leave running, and how it ends.

mod support;

use std::time::Duration;

use nix::sys::signal::Signal;
use serde_json::{json, Value};
use support::browser::{Browser, Rect};
use support::web::{Reply, Web};
use support::{figure, qctl, qctl_process, run, wait_until, RedisServer, FAST};

/// Bound on every wait for something qctl web does by itself (a reading, an exit).
const LIMIT: Duration = Duration::from_secs(60);

fn enqueue(server: &RedisServer, args: &[&str]) {
    qctl(server).arg("enqueue").args(args).assert().success();
}

/// Queue `mail`: 2 jobs done and 1 dead by a real consumer, then 3 ready and 1 scheduled
/// for later. Queue `sms`: 1 ready job.
fn fill(server: &RedisServer) {
    for data in ["ok", "fail", "ok"] {
        enqueue(server, &["mail", data]);
    }
    qctl(server)
        .args(["consume", "mail", "--drain", "--max-retries", "0"])
        .args(FAST)
        .args(["--", "grep", "-qv", "fail"])
        .assert()
        .code(7);
    for _ in 0..3 {
        enqueue(server, &["mail", "ready"]);
    }
    enqueue(server, &["mail", "--in", "1h", "later"]);
    enqueue(server, &["sms", "hi"]);
}

/// The CSP's directives that every response must carry.
fn assert_safe_headers(reply: &Reply, what: &str) {
    let csp = reply.header("content-security-policy");
    for directive in ["default-src 'self'", "frame-ancestors 'none'"] {
        assert!(csp.contains(directive), "{what}: CSP {csp:?}");
    }
    assert!(!csp.contains("unsafe-inline"), "{what}: CSP {csp:?}");
    assert_eq!(reply.header("x-content-type-options"), "nosniff", "{what}");
    assert_eq!(reply.header("referrer-policy"), "no-referrer", "{what}");
}

#[test]
fn web_prints_its_url_and_serves_what_stats_json_counts() {
    let server = RedisServer::start();
    fill(&server);
    let web = Web::start(&server, &[]);
    assert_eq!(web.url, format!("http://127.0.0.1:{}/", web.port));
    // Said on stderr after the URL on stdout.
    assert!(
        wait_until(LIMIT, || web.process.stderr().contains(&web.url)),
        "{}",
        web.process.stderr()
    );

    let api = web.overview();
    let status = &api["status"];
    assert_eq!(status["ok"], true, "{status}");
    assert_eq!(status["error"], Value::Null);
    let stats: Value = serde_json::from_slice(
        &qctl(&server)
            .args(["stats", "--json"])
            .output()
            .expect("qctl stats")
            .stdout,
    )
    .expect("stats --json");
    let listed = api["queues"].as_array().expect("queues");
    assert_eq!(listed.len(), 2, "{api}");
    for (ours, theirs) in listed.iter().zip(stats.as_array().expect("rows")) {
        for (field, value) in theirs.as_object().expect("an object") {
            assert_eq!(&ours[field], value, "{field} of {}", theirs["queue"]);
        }
        for field in ["time", "done_per_sec", "failed_per_sec", "history"] {
            assert!(ours.get(field).is_some(), "{field} missing: {ours}");
        }
    }
    let mail = web.queue("mail").expect("mail listed");
    assert_eq!(
        (&mail["active"], &mail["scheduled_later"], &mail["dead"]),
        (&Value::from(3), &Value::from(1), &Value::from(1))
    );
    assert_eq!(
        (&mail["done"], &mail["failed"]),
        (&Value::from(2), &Value::from(1))
    );

    // Its history: a step per minute of the last hour, as `stats --history --json` has
    // them, with the runs the consumer recorded.
    let history = mail["history"].as_array().expect("history");
    assert_eq!(history.len(), 60);
    let steps: Value = serde_json::from_slice(
        &qctl(&server)
            .args(["stats", "mail", "--history", "1h", "--step", "1m", "--json"])
            .output()
            .expect("qctl stats --history")
            .stdout,
    )
    .expect("stats --history --json");
    let fields = |v: &Value| {
        let mut keys: Vec<String> = v.as_object().expect("a step").keys().cloned().collect();
        keys.sort();
        keys
    };
    assert_eq!(fields(&history[59]), fields(&steps[0]));
    let sum = |steps: &[Value], field: &str| -> u64 {
        steps.iter().map(|s| s[field].as_u64().unwrap_or(0)).sum()
    };
    let steps = steps.as_array().expect("steps");
    for field in ["done", "failed", "dead"] {
        assert_eq!(sum(history, field), sum(steps, field), "{field}");
    }
    assert_eq!(sum(history, "done"), 2);
    assert_eq!(history[59]["seconds"], 60);

    // The page: a row per queue with the counts, and mail's charts; sms has no history.
    // Each name links to the queue's page.
    let page = web.get("/");
    assert_eq!(page.status, 200);
    assert_eq!(page.header("content-type"), "text/html; charset=utf-8");
    let row = |queue: &str| -> Vec<String> {
        let start = format!("<tr><th scope=\"row\"><a href=\"/queues/{queue}\">{queue}</a></th>");
        let at = page
            .body
            .find(&start)
            .unwrap_or_else(|| panic!("no row of {queue}"));
        let rest = &page.body[at + start.len()..];
        let end = rest.find("</tr>").expect("the row's end");
        rest[..end]
            .split("</td>")
            .filter_map(|c| c.strip_prefix("<td").and_then(|c| c.split_once('>')))
            .map(|(_, text)| text.to_string())
            .collect()
    };
    assert_eq!(
        row("mail")[..9],
        ["3", "0", "1", "0", "1", "0", "no", "2", "1"]
    );
    assert_eq!(row("sms")[..2], ["1", "0"]);
    assert!(
        page.body.contains("class=\"chart counts\""),
        "{}",
        page.body
    );
    assert!(
        page.body
            .contains("no history: jobs run by Go consumers or none ran"),
        "{}",
        page.body
    );
}

#[test]
fn a_count_changes_in_the_api_after_an_enqueue_without_asking_again() {
    let server = RedisServer::start();
    enqueue(&server, &["mail", "one"]);
    let web = Web::start(&server, &["--interval", "300ms"]);
    assert_eq!(web.queue("mail").expect("mail")["active"], 1);
    enqueue(&server, &["mail", "two"]);
    enqueue(&server, &["sms", "new"]);
    assert!(
        wait_until(LIMIT, || {
            web.queue("mail").is_some_and(|q| q["active"] == 2) && web.queue("sms").is_some()
        }),
        "{}",
        web.overview()
    );
    // The rates come from two readings.
    let mail = web.queue("mail").expect("mail");
    assert!(mail["done_per_sec"].is_number(), "{mail}");
}

#[test]
fn queues_named_are_the_only_ones_shown_and_an_unknown_name_is_refused() {
    let server = RedisServer::start();
    fill(&server);
    let web = Web::start(&server, &["sms"]);
    let names: Vec<Value> = web.overview()["queues"]
        .as_array()
        .expect("queues")
        .iter()
        .map(|q| q["queue"].clone())
        .collect();
    assert_eq!(names, ["sms"]);
    assert!(!web.get("/").body.contains(">mail<"));

    let ran = run(qctl(&server).args(["web", "--listen", "127.0.0.1:0", "mial"]));
    assert_eq!(ran.code, Some(5), "{ran:?}");
    assert!(
        ran.err.contains("no queue \"mial\"") && ran.err.contains("mail"),
        "{ran:?}"
    );
    let web = Web::start(&server, &["mial", "--allow-missing"]);
    assert_eq!(web.queue("mial").expect("shown")["active"], 0);
}

#[test]
fn every_response_carries_the_security_headers_and_pages_hold_no_inline_code() {
    let server = RedisServer::start();
    fill(&server);
    let web = Web::start(&server, &[]);
    let page = web.get("/");
    assert_safe_headers(&page, "/");
    assert_eq!(page.header("cache-control"), "no-store");
    let api = web.get("/api/overview");
    assert_safe_headers(&api, "/api/overview");
    assert_eq!(api.header("cache-control"), "no-store");
    assert_eq!(api.header("content-type"), "application/json");

    // The style sheet and the script, named by their content, kept by browsers.
    let assets: Vec<&str> = page
        .body
        .split('"')
        .filter(|s| s.starts_with("/assets/"))
        .collect();
    assert_eq!(assets.len(), 2, "{}", page.body);
    for path in assets {
        let asset = web.get(path);
        assert_eq!(asset.status, 200, "{path}");
        assert_safe_headers(&asset, path);
        assert!(
            asset.header("cache-control").contains("immutable"),
            "{path}"
        );
        let kind = if path.ends_with(".css") {
            "text/css; charset=utf-8"
        } else {
            "text/javascript; charset=utf-8"
        };
        assert_eq!(asset.header("content-type"), kind);
        // Nothing fetched from elsewhere (the SVG namespace is a name, not a request).
        let body = asset.body.replace("\"http://www.w3.org/2000/svg\"", "");
        assert!(
            !body.contains("http://") && !body.contains("https://"),
            "{path}"
        );
    }
    let missing = web.get("/assets/app.0000.css");
    assert_eq!(missing.status, 404);
    assert_safe_headers(&missing, "an unknown asset");
    let nowhere = web.get("/no/such/page");
    assert_eq!(nowhere.status, 404);
    assert_safe_headers(&nowhere, "a 404");

    // No script but from /assets/, no style attribute, no event handler.
    let html = &page.body;
    assert_eq!(html.matches("<script").count(), 1, "{html}");
    assert!(html.contains("<script src=\"/assets/"), "{html}");
    assert!(!html.contains(" style="), "{html}");
    assert!(!html.contains("<style"), "{html}");
    assert!(
        !html.contains(" onerror=") && !html.contains(" onload="),
        "{html}"
    );
    assert!(
        !html.contains("http://") && !html.contains("https://"),
        "{html}"
    );
}

#[test]
fn a_request_for_another_host_is_refused_before_anything_is_read() {
    let server = RedisServer::start();
    fill(&server);
    let web = Web::start(&server, &["--allowed-host", "queues.example.com"]);
    let port = web.port;
    for host in [
        "evil.example".to_string(),
        format!("evil.example:{port}"),
        format!("127.0.0.1.evil.example:{port}"),
        format!("localhost:{}", port + 1),
    ] {
        for path in ["/", "/api/overview", "/no/such/page"] {
            let reply = web.request(path, &[("Host", &host)]);
            assert!(
                reply.status == 421 || reply.status == 403,
                "{host} {path}: {reply:?}"
            );
            assert!(!reply.body.contains("mail"), "{host} {path}: {reply:?}");
            assert_safe_headers(&reply, &host);
        }
    }
    for host in [
        format!("127.0.0.1:{port}"),
        format!("localhost:{port}"),
        format!("[::1]:{port}"),
        "queues.example.com".to_string(),
    ] {
        let reply = web.request("/api/overview", &[("Host", &host)]);
        assert_eq!(reply.status, 200, "{host}: {reply:?}");
    }
}

#[test]
fn an_address_beyond_loopback_needs_a_password_or_no_auth_and_says_so() {
    let server = RedisServer::start();
    let ran =
        run(qctl(&server)
            .env_remove("QCTL_WEB_PASSWORD")
            .args(["web", "--listen", "0.0.0.0:0"]));
    assert_eq!(ran.code, Some(2), "{ran:?}");
    assert!(
        ran.err.contains("not a loopback address") && ran.err.contains("--no-auth"),
        "{ran:?}"
    );
    assert!(ran.out.is_empty(), "{ran:?}");

    // --no-auth: served, with a warning, even with --quiet.
    let mut cmd = qctl_process(&server);
    cmd.args(["-q", "web", "--listen", "0.0.0.0:0", "--no-auth"]);
    let mut web = Web::spawn(cmd);
    assert!(web.url.starts_with("http://0.0.0.0:"), "{}", web.url);
    let reply = web.request(
        "/api/overview",
        &[("Host", &format!("127.0.0.1:{}", web.port))],
    );
    assert_eq!(reply.status, 200, "{reply:?}");
    assert_eq!(web.process.stop(LIMIT).and_then(|s| s.code()), Some(0));
    let stderr = web.process.stderr();
    assert!(stderr.contains("warning: --no-auth"), "{stderr}");

    // A password over plain HTTP: served, with a warning.
    let mut cmd = qctl_process(&server);
    cmd.env("QCTL_WEB_PASSWORD", "s3cret-pw")
        .args(["web", "--listen", "0.0.0.0:0"]);
    let mut web = Web::spawn_as_is(cmd);
    assert_eq!(web.process.stop(LIMIT).and_then(|s| s.code()), Some(0));
    let stderr = web.process.stderr();
    assert!(stderr.contains("unencrypted over plain HTTP"), "{stderr}");
    assert!(!stderr.contains("s3cret-pw"), "{stderr}");

    let ran = run(qctl(&server)
        .env("QCTL_WEB_PASSWORD", "s3cret-pw")
        .args(["web", "--no-auth"]));
    assert_eq!(ran.code, Some(2), "{ran:?}");
}

#[test]
fn with_a_password_only_the_right_one_gets_in_and_it_is_shown_nowhere() {
    let server = RedisServer::start_with(&["--requirepass", "redis-pw-1234"]);
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("web-password");
    std::fs::write(&file, "web-pw-5678\n").expect("write the password");
    let redis_env = |cmd: &mut std::process::Command| {
        cmd.env("QCTL_REDIS_PASSWORD", "redis-pw-1234");
    };
    qctl(&server)
        .env("QCTL_REDIS_PASSWORD", "redis-pw-1234")
        .args(["enqueue", "mail", "x"])
        .assert()
        .success();
    let basic = |user: &str, password: &str| {
        use base64::Engine as _;
        format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"))
        )
    };
    // From $QCTL_WEB_PASSWORD, and from --web-password-file.
    let mut by_env = qctl_process(&server);
    redis_env(&mut by_env);
    by_env
        .env("QCTL_WEB_PASSWORD", "web-pw-5678")
        .args(["web", "--listen", "127.0.0.1:0"]);
    let mut by_file = qctl_process(&server);
    redis_env(&mut by_file);
    by_file
        .args(["web", "--listen", "127.0.0.1:0", "--web-password-file"])
        .arg(&file);
    for mut web in [Web::spawn_as_is(by_env), Web::spawn(by_file)] {
        let mut bodies = Vec::new();
        for path in ["/", "/api/overview", "/no/such/page"] {
            let none = web.get(path);
            assert_eq!(none.status, 401, "{path}: {none:?}");
            assert!(
                none.header("www-authenticate").starts_with("Basic realm="),
                "{none:?}"
            );
            assert_safe_headers(&none, "401");
            let wrong = web.request(path, &[("Authorization", &basic("qctl", "web-pw-567"))]);
            assert_eq!(wrong.status, 401, "{path}: {wrong:?}");
            let garbled = web.request(path, &[("Authorization", "Basic !!!")]);
            assert_eq!(garbled.status, 401, "{path}: {garbled:?}");
            bodies.extend([none.body, wrong.body, garbled.body]);
        }
        for user in ["qctl", "anyone", ""] {
            let right = web.request("/", &[("Authorization", &basic(user, "web-pw-5678"))]);
            assert_eq!(right.status, 200, "{right:?}");
            assert!(right.body.contains("mail"), "{right:?}");
            bodies.push(right.body);
        }
        let api = web.request(
            "/api/overview",
            &[("Authorization", &basic("qctl", "web-pw-5678"))],
        );
        assert_eq!(api.status, 200, "{api:?}");
        assert_eq!(api.json()["queues"][0]["active"], 1);
        bodies.push(api.body);
        assert_eq!(web.process.stop(LIMIT).and_then(|s| s.code()), Some(0));
        let mut shown = bodies;
        shown.extend([web.url.clone(), web.process.stdout(), web.process.stderr()]);
        for text in shown {
            for secret in ["web-pw-5678", "redis-pw-1234"] {
                assert!(!text.contains(secret), "{secret} shown in {text}");
            }
        }
    }
}

#[test]
fn hostile_queue_names_appear_only_as_text() {
    let server = RedisServer::start();
    let names: [&[u8]; 5] = [
        b"<script>alert(1)</script>",
        b"\"><img src=x onerror=alert(1)>",
        "a\u{202e}b".as_bytes(),
        b"nul\0x",
        b"bad\xff\xfeutf8",
    ];
    for name in names {
        let mut key = name.to_vec();
        key.extend_from_slice(b":active");
        let _: () = server.cmd(&[b"RPUSH", &key, b"id"]);
    }
    let web = Web::start(&server, &[]);
    let page = web.get("/");
    assert_eq!(page.status, 200);
    let html = &page.body;
    for raw in [
        "<script>alert",
        "<img",
        "\u{202e}",
        "\0",
        "onerror=alert(1)>",
    ] {
        assert!(!html.contains(raw), "{raw:?} in the page:\n{html}");
    }
    for shown in [
        "&lt;script&gt;alert(1)&lt;/script&gt;",
        "&quot;&gt;&lt;img src=x onerror=alert(1)&gt;",
        "a\\u{202e}b",
        "nul\\u{0}x",
    ] {
        assert!(html.contains(shown), "{shown:?} not in the page:\n{html}");
    }
    // The JSON has the names as they are (a name that is not UTF-8 is no queue to stats).
    let listed: Vec<String> = web.overview()["queues"]
        .as_array()
        .expect("queues")
        .iter()
        .map(|q| q["queue"].as_str().expect("a name").to_string())
        .collect();
    assert_eq!(
        listed.iter().collect::<std::collections::BTreeSet<_>>(),
        names[..4]
            .iter()
            .map(|n| String::from_utf8(n.to_vec()).unwrap())
            .collect::<Vec<_>>()
            .iter()
            .collect()
    );
}

#[test]
fn sigterm_sigint_and_sighup_end_it_with_0() {
    let server = RedisServer::start();
    for sig in [Signal::SIGTERM, Signal::SIGINT, Signal::SIGHUP] {
        let mut web = Web::start(&server, &[]);
        assert_eq!(web.get("/").status, 200);
        web.process.signal(sig);
        let status = web.process.wait_timeout(LIMIT);
        assert_eq!(status.and_then(|s| s.code()), Some(0), "{sig}: {status:?}");
    }
}

#[test]
fn redis_gone_is_said_on_the_page_and_in_the_api_and_it_recovers_by_itself() {
    let mut server = RedisServer::start();
    enqueue(&server, &["mail", "x"]);
    let web = Web::start(&server, &["--interval", "300ms"]);
    assert_eq!(web.overview()["status"]["ok"], true);
    server.stop();
    let mut api = Value::Null;
    assert!(
        wait_until(LIMIT, || {
            api = web.overview();
            api["status"]["ok"] == false
        }),
        "{api}"
    );
    let error = api["status"]["error"]
        .as_str()
        .expect("an error")
        .to_string();
    assert!(error.contains("cannot reach Redis"), "{error}");
    assert!(!error.contains('\n'), "{error}");
    assert!(api["status"]["age_secs"].is_number(), "{api}");
    // The last reading is still shown, under a banner that says why and how old it is.
    assert_eq!(api["queues"][0]["queue"], "mail");
    let page = web.get("/");
    assert_eq!(page.status, 200);
    assert!(
        page.body.contains("role=\"alert\"")
            && page.body.contains("Redis cannot be read")
            && page.body.contains("last good reading"),
        "{}",
        page.body
    );

    server.restart();
    enqueue(&server, &["sms", "back"]);
    assert!(
        wait_until(LIMIT, || {
            api = web.overview();
            api["status"]["ok"] == true && web.queue("sms").is_some()
        }),
        "{api}"
    );
    assert_eq!(api["status"]["error"], Value::Null);
    assert!(!web.get("/").body.contains("Redis cannot be read"));
    assert!(support::running(web.process.pid()));
    let stderr = web.process.stderr();
    assert!(stderr.contains("read Redis at"), "{stderr}");
}

#[test]
fn one_reading_serves_every_client_however_many_poll() {
    let server = RedisServer::start();
    fill(&server);
    // A reading at start and none for an hour: every request below is served from it.
    let web = Web::start(&server, &["--interval", "1h"]);
    let _: () = server.cmd(&[b"CONFIG", b"RESETSTAT"]);
    std::thread::scope(|s| {
        for _ in 0..10 {
            s.spawn(|| {
                for i in 0..20 {
                    let path = if i % 2 == 0 { "/" } else { "/api/overview" };
                    assert_eq!(web.get(path).status, 200);
                }
            });
        }
    });
    for command in ["time", "scan", "llen", "hmget"] {
        assert_eq!(server.calls(command), 0, "{command} after 200 requests");
    }
}

#[test]
fn each_reading_reads_the_history_of_the_current_minute_and_the_one_before_only() {
    let server = RedisServer::start();
    fill(&server);
    let web = Web::start(&server, &["--interval", "200ms"]);
    let _: () = server.cmd(&[b"CONFIG", b"RESETSTAT"]);
    // Some readings (each one TIME) go by, while a client asks (without one it would stop).
    assert!(wait_until(LIMIT, || {
        assert_eq!(web.get("/api/overview").status, 200);
        server.calls("time") >= 5
    }));
    let _ = web.overview();
    let readings = server.calls("time");
    let hmget = server.calls("hmget");
    // Per reading and queue: NAME:stats, and two minutes of history (not 60); a reading
    // under way when the counters were reset may have sent its HMGETs after.
    let per_reading = 2 * (1 + 2);
    assert!(
        hmget <= (readings + 1) * per_reading,
        "{hmget} HMGET calls in {readings} readings"
    );
    assert!(
        hmget >= readings * 2,
        "{hmget} HMGET calls in {readings} readings"
    );
}

#[test]
fn https_serves_the_page_with_the_certificate_given() {
    let server = RedisServer::start();
    enqueue(&server, &["mail", "x"]);
    let pki = support::tls::Pki::generate();
    let mut cmd = qctl_process(&server);
    cmd.args(["web", "--listen", "127.0.0.1:0", "--https-cert"])
        .arg(&pki.server_cert)
        .arg("--https-key")
        .arg(&pki.server_key);
    let web = Web::spawn(cmd);
    assert!(web.url.starts_with("https://127.0.0.1:"), "{}", web.url);
    let script = "import ssl, sys, urllib.request\n\
        ctx = ssl.create_default_context(cafile=sys.argv[2])\n\
        r = urllib.request.urlopen(sys.argv[1] + 'api/overview', context=ctx, timeout=30)\n\
        print(r.status, r.headers['x-content-type-options'])\n\
        print(r.read().decode())\n";
    let out = std::process::Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(&web.url)
        .arg(&pki.ca)
        .output()
        .expect("python3");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("200 nosniff\n"), "{text} {:?}", out);
    assert!(text.contains("\"queue\":\"mail\""), "{text}");

    let ran = run(qctl(&server)
        .args(["web", "--listen", "127.0.0.1:0", "--https-cert"])
        .arg(&pki.server_key)
        .arg("--https-key")
        .arg(&pki.server_key));
    assert_eq!(ran.code, Some(6), "{ran:?}");
    assert!(ran.err.contains("--https-cert"), "{ran:?}");
}

/// `stats --json`: every queue as `stats` counts it, in its order.
fn stats_json(server: &RedisServer) -> Vec<Value> {
    let out = qctl(server)
        .args(["stats", "--json"])
        .output()
        .expect("qctl stats");
    let stats: Value = serde_json::from_slice(&out.stdout).expect("stats --json");
    stats.as_array().expect("rows").clone()
}

/// The names of the queues of an answer of /api/overview.
fn names(api: &Value) -> Vec<String> {
    api["queues"]
        .as_array()
        .expect("queues")
        .iter()
        .map(|q| q["queue"].as_str().expect("a name").to_string())
        .collect()
}

/// Queues `q000` to `q119` with one job each, and `mail-eu`, `mail-us` with two: 122 queues.
fn fill_many(server: &RedisServer) {
    let mut conn = server.conn();
    let mut pipe = redis::pipe();
    for i in 0..120 {
        pipe.rpush(format!("q{i:03}:active"), "j").ignore();
    }
    for name in ["mail-eu", "mail-us"] {
        pipe.rpush(format!("{name}:active"), &["a", "b"][..])
            .ignore();
    }
    let _: () = pipe.query(&mut conn).expect("fill");
}

#[test]
fn the_overview_is_paged_and_filtered_in_the_order_stats_lists_them() {
    let server = RedisServer::start();
    fill_many(&server);
    let web = Web::start(&server, &[]);
    let all: Vec<String> = stats_json(&server)
        .iter()
        .map(|q| q["queue"].as_str().expect("a name").to_string())
        .collect();
    assert_eq!(all.len(), 122);

    // 50 a page by default, in the order of stats, with the page in the status.
    let api = web.overview();
    assert_eq!(names(&api), all[..50]);
    let status = &api["status"];
    assert_eq!(
        (
            &status["total"],
            &status["offset"],
            &status["limit"],
            &status["next_offset"]
        ),
        (
            &Value::from(122),
            &Value::from(0),
            &Value::from(50),
            &Value::from(50)
        ),
        "{status}"
    );
    assert_eq!(status["ok"], true);

    // The last page, and one past the end.
    let last = web.get("/api/overview?offset=100").json();
    assert_eq!(names(&last), all[100..]);
    assert_eq!(last["status"]["next_offset"], Value::Null);
    // Its queues were not on a page before: their history is read for the answer.
    for q in last["queues"].as_array().expect("queues") {
        assert_eq!(q["history"].as_array().map(Vec::len), Some(60), "{q}");
    }
    let past = web.get("/api/overview?offset=500").json();
    assert_eq!(names(&past), Vec::<String>::new());
    assert_eq!(past["status"]["total"], 122);

    // q keeps the names that hold the text; limit sets the page's size.
    let mail = web.get("/api/overview?q=mail").json();
    assert_eq!(names(&mail), ["mail-eu", "mail-us"]);
    assert_eq!(mail["status"]["total"], 2);
    assert_eq!(mail["queues"][1]["active"], 2);
    let some = web.get("/api/overview?q=q1&limit=7&offset=7").json();
    let holding: Vec<String> = all.iter().filter(|n| n.contains("q1")).cloned().collect();
    assert_eq!(names(&some), holding[7..14]);
    assert_eq!(some["status"]["total"], holding.len());
    assert_eq!(some["status"]["next_offset"], 14);
    let everything = web.get("/api/overview?limit=500").json();
    assert_eq!(names(&everything), all);

    // A value that is no number, or out of range, is refused with the words of the CLI.
    for (query, words) in [
        ("offset=-1", "offset: expected a whole number of 0 or more"),
        ("limit=0", "limit: expected a whole number from 1 to 500"),
        ("limit=501", "limit: expected a whole number from 1 to 500"),
        ("offset=ten", "offset: expected a whole number"),
    ] {
        let api = web.get(&format!("/api/overview?{query}"));
        assert_eq!(api.status, 400, "{query}: {api:?}");
        assert!(
            api.json()["error"]
                .as_str()
                .unwrap_or_default()
                .contains(words),
            "{query}: {api:?}"
        );
        let page = web.get(&format!("/?{query}"));
        assert_eq!(page.status, 400, "{query}: {page:?}");
        assert!(page.body.contains(words), "{query}: {}", page.body);
        assert_safe_headers(&page, query);
    }

    // The page: the same 50 queues, a card each, which of how many, links to the others.
    let page = web.get("/");
    assert_eq!(page.status, 200);
    let html = &page.body;
    assert_eq!(html.matches("<tr><th scope=\"row\">").count(), 50, "{html}");
    assert_eq!(html.matches("<section class=\"card\">").count(), 50);
    assert!(html.contains(&format!(">{}</a></th>", all[49])));
    assert!(!html.contains(&format!(">{}</a></th>", all[50])));
    assert!(html.contains("1 to 50 of 122 queues"), "{html}");
    assert!(html.contains("page 1 of 3"), "{html}");
    assert!(
        html.contains("<a rel=\"next\" href=\"/?offset=50\">next</a>"),
        "{html}"
    );
    assert!(
        html.contains("<a rel=\"last\" href=\"/?offset=100\">last</a>"),
        "{html}"
    );
    assert!(
        html.contains("data-api=\"/api/overview?offset=0\""),
        "{html}"
    );
    let page = web.get("/?offset=50&limit=20&q=q");
    let html = &page.body;
    assert_eq!(html.matches("<tr><th scope=\"row\">").count(), 20);
    assert!(
        html.contains("51 to 70 of 120 queues whose name holds &quot;q&quot;"),
        "{html}"
    );
    for (rel, offset) in [("first", 0), ("prev", 30), ("next", 70), ("last", 100)] {
        let link = format!("<a rel=\"{rel}\" href=\"/?offset={offset}&amp;limit=20&amp;q=q\">");
        assert!(html.contains(&link), "{link} in {html}");
    }
    assert!(
        html.contains("data-api=\"/api/overview?offset=50&amp;limit=20&amp;q=q\""),
        "{html}"
    );
    // The filter keeps the page's size; every queue fits on one page: no links to others.
    assert!(
        html.contains("<input type=\"hidden\" name=\"limit\" value=\"20\">"),
        "{html}"
    );
    let page = web.get("/?q=mail");
    assert!(page
        .body
        .contains("2 queues whose name holds &quot;mail&quot;"));
    assert!(page.body.contains("<nav class=\"pager\""), "{}", page.body);
    assert!(!page.body.contains("rel=\"next\""), "{}", page.body);
    let none = web.get("/?q=nothing-like-it");
    assert!(
        none.body
            .contains("no queue whose name holds &quot;nothing-like-it&quot;"),
        "{}",
        none.body
    );
}

#[test]
fn each_queue_name_links_to_its_page_with_the_name_percent_encoded() {
    let server = RedisServer::start();
    for name in ["a/b", "sp ace", "100%", "ü-q", "{tag}x", "it's?#&"] {
        enqueue(&server, &[name, "x"]);
    }
    let web = Web::start(&server, &[]);
    let html = web.get("/").body;
    for (name, href) in [
        ("a/b", "/queues/a%2Fb"),
        ("sp ace", "/queues/sp%20ace"),
        ("100%", "/queues/100%25"),
        ("ü-q", "/queues/%C3%BC-q"),
        ("{tag}x", "/queues/%7Btag%7Dx"),
        ("it's?#&amp;", "/queues/it's%3F%23%26"),
    ] {
        // In the table and on the card.
        let link = format!("<a href=\"{href}\">{name}</a>");
        assert_eq!(html.matches(&link).count(), 2, "{link} in {html}");
    }
}

/// The number of lines of `text` that hold `words`.
fn lines_with(text: &str, words: &str) -> usize {
    text.lines().filter(|l| l.contains(words)).count()
}

#[test]
fn an_idle_dashboard_reads_nothing_until_a_request_which_is_answered_from_a_reading_made_for_it() {
    let server = RedisServer::start();
    enqueue(&server, &["mail", "one"]);
    let web = Web::start(&server, &["-v", "--interval", "200ms"]);
    // With -v it says when it stops reading and when it reads again: it is idle when it
    // stopped more often than it started again.
    let said = |words: &str| lines_with(&web.process.stderr(), words);
    let pauses = || said("no page or API request for 600ms: not reading Redis until one comes");
    let resumes = || said("without one: reading Redis again");
    let idle = || pauses() > resumes();
    // Nobody asks: it stops reading after 3 intervals.
    assert!(wait_until(LIMIT, idle), "{}", web.process.stderr());
    enqueue(&server, &["mail", "two"]);
    let _: () = server.cmd(&[b"CONFIG", b"RESETSTAT"]);
    // Ten intervals without a request: not one call.
    std::thread::sleep(Duration::from_secs(2));
    for command in ["time", "scan", "llen", "hmget", "zcard", "ping"] {
        assert_eq!(server.calls(command), 0, "{command} while idle");
    }
    // The first request is answered from a reading made at once for it: the job enqueued
    // while idle is counted, and no rate spans the pause.
    let api = web.overview();
    assert_eq!(api["queues"][0]["active"], 2, "{api}");
    assert_eq!(api["queues"][0]["done_per_sec"], Value::Null, "{api}");
    assert!(server.calls("time") >= 1);
    assert_eq!(resumes(), 1, "{}", web.process.stderr());
    // Readings go on while it is asked, every interval: the rates come back.
    assert!(
        wait_until(LIMIT, || web
            .queue("mail")
            .is_some_and(|q| q["done_per_sec"].is_number())),
        "{}",
        web.overview()
    );
    // And stop again when nobody asks; the page (HTML) wakes it too.
    assert!(wait_until(LIMIT, idle), "{}", web.process.stderr());
    enqueue(&server, &["mail", "three"]);
    let page = web.get("/");
    assert!(
        page.body
            .contains("<a href=\"/queues/mail\">mail</a></th><td data-label=\"active\">3</td>"),
        "{}",
        page.body
    );
    // Refused requests and the assets wake nothing.
    assert!(wait_until(LIMIT, idle), "{}", web.process.stderr());
    let _: () = server.cmd(&[b"CONFIG", b"RESETSTAT"]);
    let woken = resumes();
    let asset = page
        .body
        .split('"')
        .find(|s| s.starts_with("/assets/"))
        .expect("an asset")
        .to_string();
    for _ in 0..5 {
        assert_eq!(web.get(&asset).status, 200);
        assert_eq!(web.get("/favicon.ico").status, 200);
        let refused = web.request("/api/overview", &[("Host", "evil.example")]);
        assert_eq!(refused.status, 421);
    }
    std::thread::sleep(Duration::from_secs(1));
    assert_eq!(server.calls("time"), 0);
    assert_eq!(resumes(), woken, "{}", web.process.stderr());
}

// ---- In a real browser (tests/support/browser.rs): skipped with a note without Chromium.

/// The rows of the overview's table as the page holds them now: the name, then each cell.
fn screen_rows(browser: &Browser) -> Vec<Vec<String>> {
    let rows = browser.run_js(
        "return Array.from(document.querySelectorAll('#queues tbody tr'))
           .map(tr => Array.from(tr.cells).map(c => c.textContent));",
    );
    serde_json::from_value(rows).expect("rows of cells")
}

/// The row of `queue` on screen.
fn screen_row(browser: &Browser, queue: &str) -> Option<Vec<String>> {
    screen_rows(browser).into_iter().find(|r| r[0] == queue)
}

/// The label of `queue`'s chart of jobs done and failed (which says how many), if drawn.
fn counts_chart(browser: &Browser, queue: &str) -> Option<String> {
    browser
        .run_js_with(
            "const card = Array.from(document.querySelectorAll('#charts .card'))
               .find(c => c.querySelector('h3').textContent === arguments[0]);
             const svg = card && card.querySelector('svg.counts');
             return svg ? svg.getAttribute('aria-label') : null;",
            &[json!(queue)],
        )
        .as_str()
        .map(str::to_string)
}

/// The cells `stats --json` gives a queue, in the table's order (up to failed).
fn stats_cells(q: &Value) -> Vec<String> {
    let n = |field: &str| q[field].to_string();
    let consumers = if q["consumers_expired"] == 0 {
        n("consumers_alive")
    } else {
        format!(
            "{}, {} expired",
            n("consumers_alive"),
            n("consumers_expired")
        )
    };
    vec![
        q["queue"].as_str().expect("a name").to_string(),
        n("active"),
        n("scheduled_due"),
        n("scheduled_later"),
        n("in_flight"),
        n("dead"),
        consumers,
        if q["paused"] == true { "yes" } else { "no" }.to_string(),
        n("done"),
        n("failed"),
    ]
}

#[test]
fn in_a_browser_the_overview_shows_what_redis_holds_and_follows_an_enqueue_and_a_consumer() {
    let server = RedisServer::start();
    fill(&server);
    let web = Web::start(&server, &["--interval", "300ms"]);
    let Some(browser) = Browser::start(1280, 800) else {
        return;
    };
    browser.open(&web.url);
    assert_eq!(browser.title(), "Queues - qctl web");
    let stats = stats_json(&server);
    let rows: Vec<Vec<String>> = screen_rows(&browser)
        .into_iter()
        .map(|r| r[..10].to_vec())
        .collect();
    assert_eq!(rows, stats.iter().map(stats_cells).collect::<Vec<_>>());
    assert_eq!(rows[0][..6], ["mail", "3", "0", "1", "0", "1"]);

    // An enqueue shows without a reload (the page's own script asks for the counts).
    browser.run_js("window.stillThisPage = true;");
    enqueue(&server, &["sms", "more"]);
    browser.wait("sms's active count to become 2", |b| {
        screen_row(b, "sms").is_some_and(|r| r[1] == "2")
    });
    // A real consumer runs sms's jobs: its done count and its chart follow.
    assert_eq!(
        counts_chart(&browser, "sms"),
        None,
        "sms has no history yet"
    );
    let mut consumer = qctl_process(&server);
    consumer
        .args(["consume", "sms"])
        .args(FAST)
        .args(["--", "true"]);
    let _consumer = support::Background::spawn(consumer);
    browser.wait("sms's 2 jobs done, on the table", |b| {
        screen_row(b, "sms").is_some_and(|r| r[1] == "0" && r[8] == "2")
    });
    browser.wait("sms's 2 jobs done, on its chart", |b| {
        counts_chart(b, "sms").is_some_and(|label| label.contains(": 2 done, 0 failed"))
    });
    browser.wait("the consumer, counted", |b| {
        screen_row(b, "sms").is_some_and(|r| r[6] == "1")
    });
    assert_eq!(
        browser.run_js("return window.stillThisPage === true;"),
        json!(true),
        "the page was loaded again"
    );
    // mail's row did not move; nothing failed in the page.
    assert_eq!(
        screen_row(&browser, "mail").expect("mail")[..10],
        stats_cells(&stats[0])[..]
    );
    assert_eq!(browser.console_errors(), Vec::<String>::new());
}

#[test]
fn in_a_browser_the_overview_pages_and_filters_and_links_each_queue() {
    let server = RedisServer::start();
    fill_many(&server);
    let web = Web::start(&server, &["--interval", "300ms"]);
    let Some(browser) = Browser::start(1280, 800) else {
        return;
    };
    let all: Vec<String> = stats_json(&server)
        .iter()
        .map(|q| q["queue"].as_str().expect("a name").to_string())
        .collect();
    browser.open(&web.url);
    let shown =
        |b: &Browser| -> Vec<String> { screen_rows(b).into_iter().map(|r| r[0].clone()).collect() };
    assert_eq!(shown(&browser), all[..50]);
    assert_eq!(
        browser.text("#summary").as_deref(),
        Some("1 to 50 of 122 queues")
    );
    // Next, as a person would: the link, then the page's own updates keep to that page.
    browser.element("nav.pager a[rel=next]").click();
    browser.wait("the second page", |b| shown(b) == all[50..100]);
    assert!(browser.url().ends_with("/?offset=50"), "{}", browser.url());
    browser.run_js("window.stillThisPage = true;");
    enqueue(&server, &["q050", "another"]);
    browser.wait("q050's count to become 2 on the second page", |b| {
        screen_row(b, "q050").is_some_and(|r| r[1] == "2")
    });
    assert_eq!(shown(&browser), all[50..100]);
    assert_eq!(
        browser.text("#summary").as_deref(),
        Some("51 to 100 of 122 queues")
    );
    assert_eq!(
        browser.run_js("return window.stillThisPage === true;"),
        json!(true)
    );
    // Charts for this page's queues only, each drawn or saying why not.
    assert_eq!(browser.find_all("#charts .card").len(), 50);
    // The filter, typed and sent with Enter.
    let filter = browser.element("input#q");
    filter.type_text("mail");
    browser.press(support::browser::key::ENTER);
    browser.wait("the queues whose name holds mail", |b| {
        shown(b) == ["mail-eu", "mail-us"]
    });
    assert_eq!(
        browser.text("#summary").as_deref(),
        Some("2 queues whose name holds \"mail\"")
    );
    // Each name links to its queue's page.
    let href = browser.element("#queues tbody th a").property("href");
    assert_eq!(href, json!(format!("{}queues/mail-eu", web.url)));
    assert_eq!(browser.console_errors(), Vec::<String>::new());
}

#[test]
fn in_a_browser_hostile_queue_names_show_as_text_and_run_nothing() {
    let server = RedisServer::start();
    let names = [
        "<script>window.pwned=1</script>",
        "\"><img src=x onerror=\"window.pwned=1\">",
        "right\u{202e}left",
        "nul\0byte",
    ];
    for name in names {
        let key = format!("{name}:active");
        let _: () = server.cmd(&[b"RPUSH", key.as_bytes(), b"id"]);
    }
    let web = Web::start(&server, &["--interval", "300ms"]);
    let Some(browser) = Browser::start(1280, 800) else {
        return;
    };
    browser.open(&web.url);
    // As the server wrote them, then as the page's script writes them again (a new queue
    // changes the list, and the rows and cards are made anew).
    for drawn_by in ["the server", "the script"] {
        if drawn_by == "the script" {
            enqueue(&server, &["zz-new", "x"]);
            browser.wait("the new queue's row", |b| screen_row(b, "zz-new").is_some());
        }
        assert_eq!(
            browser.run_js("return typeof window.pwned;"),
            json!("undefined"),
            "{drawn_by}"
        );
        assert_eq!(browser.find_all("#queues img, #charts img").len(), 0);
        assert_eq!(browser.find_all("main script").len(), 0);
        let seen = browser.run_js(
            "return Array.from(document.querySelectorAll('#queues tbody th a'))
               .map(a => [a.textContent, a.getAttribute('href')]);",
        );
        let seen: Vec<(String, String)> = serde_json::from_value(seen).expect("links");
        for (name, text) in names.iter().zip([
            "<script>window.pwned=1</script>",
            "\"><img src=x onerror=\"window.pwned=1\">",
            "right\\u{202e}left",
            "nul\\u{0}byte",
        ]) {
            let href = browser
                .run_js_with(
                    "return '/queues/' + encodeURIComponent(arguments[0]);",
                    &[json!(name)],
                )
                .as_str()
                .expect("an href")
                .to_string();
            assert!(
                seen.contains(&(text.to_string(), href.clone())),
                "{drawn_by}: {text:?} {href:?} not in {seen:?}"
            );
        }
        let cards = browser.run_js(
            "return Array.from(document.querySelectorAll('#charts .card h3')).map(h => h.textContent);",
        );
        assert!(
            cards
                .as_array()
                .expect("cards")
                .contains(&json!("right\\u{202e}left")),
            "{drawn_by}: {cards}"
        );
    }
    assert_eq!(browser.console_errors(), Vec::<String>::new());
}

#[test]
fn in_a_browser_a_page_by_another_name_is_refused_as_over_http() {
    let server = RedisServer::start();
    fill(&server);
    let web = Web::start(&server, &[]);
    let Some(browser) = Browser::start_resolving(1280, 800, &["evil.test"]) else {
        return;
    };
    // By its address it is served.
    browser.open(&web.url);
    assert!(browser.find("#queues").is_some());
    // A name that resolves to it but is not its own (DNS rebinding): refused, nothing shown,
    // and the page at that name cannot read the API either.
    let evil = format!("http://evil.test:{}/", web.port);
    browser.open(&evil);
    let text = browser.body_text();
    assert!(
        text.contains("this request names a host qctl web does not serve"),
        "{text}"
    );
    assert!(!text.contains("mail"), "{text}");
    assert!(browser.find("#queues").is_none());
    assert_ne!(browser.title(), "Queues - qctl web");
    browser.run_js(
        "fetch('/api/overview').then(r => r.text().then(t => { window.answered = [r.status, t]; }));",
    );
    browser.wait("the API's answer to the page at evil.test", |b| {
        b.run_js("return window.answered !== undefined;") == json!(true)
    });
    let answered = browser.run_js("return window.answered;");
    assert_eq!(answered[0], 421, "{answered}");
    assert!(!answered[1].as_str().unwrap_or_default().contains("mail"));
    // Over HTTP, with the Host header the browser sent.
    let reply = web.request("/", &[("Host", &format!("evil.test:{}", web.port))]);
    assert_eq!(reply.status, 421, "{reply:?}");
    assert!(!reply.body.contains("mail"));
    assert_safe_headers(&reply, "evil.test");
}

#[test]
fn in_a_browser_a_listen_beyond_loopback_without_auth_is_not_served_and_a_password_is_asked() {
    let server = RedisServer::start();
    fill(&server);
    let Some(browser) = Browser::start(1280, 800) else {
        return;
    };
    // Refused at start: nothing listens.
    let port = support::free_port();
    let ran = run(qctl(&server)
        .env_remove("QCTL_WEB_PASSWORD")
        .env_remove("QCTL_WEB_PASSWORD_FILE")
        .args(["web", "--listen", &format!("0.0.0.0:{port}")]));
    assert_eq!(ran.code, Some(2), "{ran:?}");
    let refused = browser.try_open(&format!("http://127.0.0.1:{port}/"));
    assert!(
        refused
            .as_ref()
            .is_err_and(|e| e.contains("ERR_CONNECTION_REFUSED")),
        "{refused:?}"
    );

    // With a password: 401 without it, the page with it (its script's requests too).
    let mut cmd = qctl_process(&server);
    cmd.env("QCTL_WEB_PASSWORD", "pw-for-the-page").args([
        "web",
        "--listen",
        "127.0.0.1:0",
        "--interval",
        "300ms",
    ]);
    let web = Web::spawn_as_is(cmd);
    // A browser without it shows nothing of the page (headless Chromium, asked for a
    // password it cannot ask anyone, shows an empty error page): the status says 401.
    let status = |b: &Browser| {
        b.run_js(
            "const e = performance.getEntriesByType('navigation')[0];
             return [e ? e.responseStatus : null, document.documentElement.outerHTML];",
        )
    };
    browser.open(&web.url);
    let got = status(&browser);
    assert_eq!(got[0], 401, "{got}");
    assert!(
        !got[1].as_str().unwrap_or_default().contains("mail"),
        "{got}"
    );
    browser.open(&format!("http://qctl:wrong@127.0.0.1:{}/", web.port));
    let got = status(&browser);
    assert_eq!(got[0], 401, "{got}");
    assert!(browser.find("#queues").is_none(), "{got}");
    browser.open(&format!(
        "http://qctl:pw-for-the-page@127.0.0.1:{}/",
        web.port
    ));
    assert!(screen_row(&browser, "mail").is_some());
    enqueue(&server, &["mail", "one more"]);
    browser.wait("mail's count to become 4", |b| {
        screen_row(b, "mail").is_some_and(|r| r[1] == "4")
    });
}

#[test]
fn in_a_browser_the_overview_of_a_cluster_lists_its_hash_tagged_queues() {
    let cluster = support::cluster::Cluster::start(3);
    // Queues whose slots are on every master, with 1, 2 and 3 jobs.
    let mut queues: Vec<String> = Vec::new();
    for master in 0..3 {
        let name = (0..)
            .map(|i| format!("{{t{i}}}jobs"))
            .find(|n| cluster.owner_of_slot(cluster.slot(n)) == master)
            .expect("a tag on each master");
        queues.push(name);
    }
    let url = cluster.nodes[0].url();
    for (i, queue) in queues.iter().enumerate() {
        for _ in 0..=i {
            support::qctl_url(&url)
                .args(["--cluster", "enqueue", queue, "x"])
                .env_remove("QCTL_CLUSTER")
                .assert()
                .success();
        }
    }
    let mut cmd = support::qctl_process_at(&url);
    cmd.env_remove("QCTL_CLUSTER").args([
        "--cluster",
        "web",
        "--listen",
        "127.0.0.1:0",
        "--interval",
        "300ms",
    ]);
    let web = Web::spawn(cmd);
    let Some(browser) = Browser::start(1280, 800) else {
        return;
    };
    browser.open(&web.url);
    let out = support::qctl_url(&url)
        .env_remove("QCTL_CLUSTER")
        .args(["--cluster", "stats", "--json"])
        .output()
        .expect("qctl stats");
    let stats: Value = serde_json::from_slice(&out.stdout).expect("stats --json");
    let want: Vec<Vec<String>> = stats
        .as_array()
        .expect("rows")
        .iter()
        .map(stats_cells)
        .collect();
    assert_eq!(want.len(), 3, "{stats}");
    let rows: Vec<Vec<String>> = screen_rows(&browser)
        .into_iter()
        .map(|r| r[..10].to_vec())
        .collect();
    assert_eq!(rows, want);
    let active: Vec<&str> = rows.iter().map(|r| r[1].as_str()).collect();
    let mut sorted = active.clone();
    sorted.sort();
    assert_eq!(sorted, ["1", "2", "3"]);
    // The counts follow there too.
    support::qctl_url(&url)
        .env_remove("QCTL_CLUSTER")
        .args(["--cluster", "enqueue", &queues[0], "y"])
        .assert()
        .success();
    browser.wait("the first queue's count to become 2", |b| {
        screen_row(b, &queues[0]).is_some_and(|r| r[1] == "2")
    });
}

#[test]
fn the_icon_a_browser_asks_for_is_served_with_the_headers() {
    let server = RedisServer::start();
    let web = Web::start(&server, &[]);
    let icon = web.get("/favicon.ico");
    assert_eq!(icon.status, 200, "{icon:?}");
    assert_eq!(icon.header("content-type"), "image/svg+xml");
    assert!(icon.body.starts_with("<svg"), "{icon:?}");
    assert_safe_headers(&icon, "/favicon.ico");
}

/// A hidden page (another tab, a locked phone) asks nothing, so qctl web stops reading
/// Redis; seen again, it asks at once and shows what Redis holds now.
#[test]
fn in_a_browser_a_hidden_page_asks_nothing_and_asks_at_once_when_seen_again() {
    let server = RedisServer::start();
    enqueue(&server, &["mail", "one"]);
    let web = Web::start(&server, &["-v", "--interval", "300ms"]);
    let Some(browser) = Browser::start(1280, 800) else {
        return;
    };
    browser.open(&web.url);
    // Hidden, as a browser tells a page whose tab is in the background.
    let visibility = |hidden: bool| {
        browser.run_js_with(
            "Object.defineProperty(document, 'hidden', { value: arguments[0], configurable: true });
             Object.defineProperty(document, 'visibilityState',
               { value: arguments[0] ? 'hidden' : 'visible', configurable: true });
             document.dispatchEvent(new Event('visibilitychange'));",
            &[json!(hidden)],
        );
    };
    // Counted now: qctl web may have stopped and read again before (a browser is slow to start).
    let paused = lines_with(&web.process.stderr(), "no page or API request");
    visibility(true);
    assert!(
        wait_until(LIMIT, || lines_with(
            &web.process.stderr(),
            "no page or API request"
        ) > paused),
        "{}",
        web.process.stderr()
    );
    enqueue(&server, &["mail", "two"]);
    let _: () = server.cmd(&[b"CONFIG", b"RESETSTAT"]);
    std::thread::sleep(Duration::from_secs(2));
    assert_eq!(server.calls("time"), 0, "read while the page was hidden");
    assert_eq!(screen_row(&browser, "mail").expect("mail")[1], "1");
    let resumed = lines_with(&web.process.stderr(), "reading Redis again");
    visibility(false);
    browser.wait("the count of now, once seen", |b| {
        screen_row(b, "mail").is_some_and(|r| r[1] == "2")
    });
    assert!(
        lines_with(&web.process.stderr(), "reading Redis again") > resumed,
        "{}",
        web.process.stderr()
    );
}

/// The history of `queue` for the last 60 minutes by the server's clock: `minute(i)` gives
/// minute i's (0 the oldest) jobs done, failed, and runs per run-time bucket field
/// (`ms:50`...), as qctl consumers write them.
fn plant_hour(
    server: &RedisServer,
    queue: &str,
    minute: impl Fn(u64) -> (u64, u64, Vec<(&'static str, u64)>),
) {
    let (secs, _): (String, String) = redis::cmd("TIME").query(&mut server.conn()).expect("TIME");
    let now: i64 = secs.parse().expect("seconds");
    let last = now / 60 * 60;
    let mut pipe = redis::pipe();
    for i in 0..60u64 {
        let start = last - 60 * (59 - i as i64);
        let (done, failed, runs) = minute(i);
        if done + failed == 0 {
            continue;
        }
        let key = format!("{queue}:history:{start}");
        pipe.hset(&key, "completed", done).ignore();
        pipe.hset(&key, "failed", failed).ignore();
        pipe.hset(&key, "killed", failed / 3).ignore();
        pipe.hset(&key, "retried", failed - failed / 3).ignore();
        let mut run_ms = 0;
        for (field, n) in runs {
            pipe.hset(&key, field, n).ignore();
            let ms: u64 = field.trim_start_matches("ms:").parse().unwrap_or(3_600_000);
            run_ms += n * ms;
        }
        pipe.hset(&key, "run_ms", run_ms).ignore();
    }
    let _: () = pipe.query(&mut server.conn()).expect("plant the history");
}

#[test]
fn in_a_browser_screenshots_of_the_overview_at_a_desk_and_on_a_phone_light_and_dark() {
    let server = RedisServer::start();
    // What an operator looks at: queues busy and idle, failing, paused, backed up, with long
    // names and big counts, and a consumer at work.
    plant_hour(&server, "email", |i| {
        let done = 40 + (i * 7) % 23 + if (40..45).contains(&i) { 60 } else { 0 };
        let failed = if (30..34).contains(&i) { 9 } else { i % 5 / 4 };
        (
            done,
            failed,
            vec![
                ("ms:20", done / 2),
                ("ms:50", done / 3),
                ("ms:200", done - done / 2 - done / 3 + failed),
                ("ms:2000", if i % 9 == 0 { 2 } else { 0 }),
            ],
        )
    });
    plant_hour(&server, "payments.webhooks-retry-eu-west-1", |i| {
        let done = if i > 20 { 3 + i % 4 } else { 0 };
        (done, 0, vec![("ms:500", done), ("ms:1000", done / 3)])
    });
    plant_hour(&server, "reports", |i| {
        if i % 15 == 0 {
            (1, 0, vec![("ms:50000", 1)])
        } else {
            (0, 0, vec![])
        }
    });
    let mut pipe = redis::pipe();
    for i in 0..12_345 {
        pipe.rpush("email:active", format!("e{i}")).ignore();
    }
    for i in 0..4 {
        pipe.rpush("sms:active", format!("s{i}")).ignore();
    }
    pipe.set("sms:paused", "1").ignore();
    pipe.hset("email:stats", "completed", 1_234_567).ignore();
    pipe.hset("email:stats", "failed", 321).ignore();
    for i in 0..37 {
        pipe.zadd("email:dead", format!("d{i}"), 1_700_000_000 + i)
            .ignore();
        pipe.hset("email:data", format!("d{i}"), "{}").ignore();
    }
    for i in 0..8 {
        pipe.rpush("payments.webhooks-retry-eu-west-1:active", format!("p{i}"))
            .ignore();
    }
    let _: () = pipe.query(&mut server.conn()).expect("fill");
    enqueue(&server, &["reports", "--in", "1h", "nightly"]);
    enqueue(&server, &["thumbnails", "img-1"]);
    let mut consumer = qctl_process(&server);
    consumer
        .args(["consume", "thumbnails"])
        .args(FAST)
        .args(["--", "true"]);
    let _consumer = support::Background::spawn(consumer);

    let web = Web::start(&server, &["--interval", "500ms"]);
    let dir = support::browser::screenshot_dir();
    for (name, phone, width, height) in [
        ("overview-1280x800", false, 1280, 800),
        ("overview-390x844", true, 390, 844),
    ] {
        let browser = if phone {
            Browser::start_mobile(width, height)
        } else {
            Browser::start(width, height)
        };
        let Some(browser) = browser else {
            return;
        };
        browser.open(&web.url);
        browser.wait("the consumer at work", |b| {
            screen_row(b, "thumbnails").is_some_and(|r| r[6] == "1" && r[8] == "1")
        });
        for dark in [false, true] {
            if dark {
                browser.emulate_media(&[("prefers-color-scheme", "dark")]);
                assert_eq!(
                    browser.run_js("return matchMedia('(prefers-color-scheme: dark)').matches;"),
                    json!(true)
                );
            }
            let scheme = if dark { "-dark" } else { "" };
            browser.run_js("window.scrollTo(0, 0);");
            let top = browser.screenshot(&format!("{name}{scheme}"));
            assert_eq!(support::browser::png_size(&top), (width, height));
            browser.run_js("document.getElementById('charts').scrollIntoView();");
            let charts = browser.screenshot(&format!("{name}{scheme}-charts"));
            assert_eq!(support::browser::png_size(&charts), (width, height));
            // The page is no wider than the screen: only the table scrolls sideways.
            let widths = browser.run_js(
                "return [document.documentElement.scrollWidth, document.documentElement.clientWidth];",
            );
            assert!(
                widths[0].as_f64() <= widths[1].as_f64(),
                "{name}{scheme}: {widths}"
            );
        }
        // A page of two, with the links to the others.
        browser.emulate_media(&[]);
        browser.open(&format!("{}?offset=2&limit=2", web.url));
        assert!(browser.element("nav.pager a[rel=next]").displayed());
        let paged = browser.screenshot(&format!("{name}-paged"));
        assert_eq!(support::browser::png_size(&paged), (width, height));
        assert_eq!(browser.console_errors(), Vec::<String>::new());
    }
    figure(&format!(
        "W1 screenshots of the overview at 1280x800 and 390x844, light and dark: {}",
        dir.display()
    ));
}

/// `qctl ARGS` against `server`: its exit code, stdout and stderr.
fn qctl_output(server: &RedisServer, args: &[&str]) -> std::process::Output {
    qctl(server).args(args).output().expect("qctl")
}

/// Queue `mail`: `dead1` dead after a run that wrote to stderr, `done1` acked by a qctl
/// consumer, `ready1` and `ready2` ready, `later1` scheduled for an hour from now, and a
/// record `stranded1` in no state. Queue `busy`: `run1` in flight at a live qctl consumer
/// (running `sleep`), which is returned.
fn jobs_in_every_state(server: &RedisServer) -> support::Background {
    enqueue(server, &["mail", "--id", "dead1", "fail"]);
    enqueue(server, &["mail", "--id", "done1", "ok"]);
    qctl(server)
        .args(["consume", "mail", "--drain", "--max-retries", "0"])
        .args(FAST)
        .args([
            "--",
            "sh",
            "-c",
            "if grep -q fail; then echo 'boom: <b>not bold</b>' >&2; exit 3; fi",
        ])
        .assert()
        .code(7);
    enqueue(server, &["mail", "--id", "ready1", "r1"]);
    enqueue(server, &["mail", "--id", "ready2", "r2"]);
    enqueue(server, &["mail", "--id", "later1", "--in", "1h", "later"]);
    let record = qctl::engine::Job::new("stranded1", Some(b"s".to_vec())).encode();
    let _: () = server.cmd(&[b"HSET", b"mail:data", b"stranded1", &record]);
    enqueue(server, &["busy", "--id", "run1", "x"]);
    let mut cmd = qctl_process(server);
    cmd.args(["consume", "busy"])
        .args(FAST)
        .args(["--", "sleep", "600"]);
    let consumer = support::Background::spawn(cmd);
    assert!(
        wait_until(LIMIT, || {
            let out = qctl_output(server, &["inflight", "busy", "--json"]);
            serde_json::from_slice::<Value>(&out.stdout)
                .is_ok_and(|v| v[0]["id"] == "run1" && v[0]["started"].is_number())
        }),
        "run1 never ran: {}",
        consumer.stderr()
    );
    consumer
}

#[test]
fn the_job_api_says_what_show_json_says_in_every_state() {
    let server = RedisServer::start();
    let _consumer = jobs_in_every_state(&server);
    let web = Web::start(&server, &[]);
    for (queue, id, command, state) in [
        ("mail", "dead1", "dead", "dead"),
        ("mail", "later1", "scheduled", "scheduled"),
        ("mail", "ready2", "dead", "active"),
        ("busy", "run1", "dead", "in_flight"),
        ("mail", "stranded1", "dead", "stranded"),
    ] {
        let reply = web.get(&format!("/api/queues/{queue}/jobs/{id}"));
        assert_eq!(reply.status, 200, "{id}: {reply:?}");
        assert_eq!(reply.header("content-type"), "application/json");
        let api = reply.json();
        let out = qctl_output(&server, &[command, "show", queue, id, "--json"]);
        assert!(out.status.success(), "{id}: {out:?}");
        let cli: Value = serde_json::from_slice(&out.stdout).expect("show --json");
        assert_eq!(api, cli, "{id}");
        assert_eq!(api["location"]["state"], state, "{id}: {api}");

        let page = web.get(&format!("/queues/{queue}/jobs/{id}"));
        assert_eq!(page.status, 200, "{id}");
        assert!(
            page.body
                .contains(&format!("<span id=\"job-id\">{id}</span>")),
            "{id}: {}",
            page.body
        );
    }
    let api = web.get("/api/queues/mail/jobs/dead1").json();
    assert_eq!(api["failure"]["exit_code"], 3, "{api}");
    assert!(
        api["died"].is_number() && api["died_at"].is_string(),
        "{api}"
    );
    assert_eq!(
        web.get("/api/queues/mail/jobs/ready2").json()["location"]["position"],
        1
    );
    let running = web.get("/api/queues/busy/jobs/run1").json();
    assert!(running["location"]["started"].is_number(), "{running}");

    // The page: where it is, its failure with stderr as text, its data, its size.
    let page = web.get("/queues/mail/jobs/dead1").body;
    for shown in [
        "dead since ",
        "<dd class=\"reason\">exit 3</dd>",
        "boom: &lt;b&gt;not bold&lt;/b&gt;",
        "<pre class=\"data text\" id=\"data\">fail</pre>",
        "4 bytes, shown as text",
        "href=\"/queues/mail/jobs/dead1/data\"",
    ] {
        assert!(page.contains(shown), "{shown:?} not in:\n{page}");
    }
    let page = web.get("/queues/busy/jobs/run1").body;
    assert!(
        page.contains("in flight, reserved by busy:inflight:"),
        "{page}"
    );
    assert!(page.contains("<dt>running</dt><dd>for "), "{page}");
}

#[test]
fn a_job_that_is_not_there_is_404_in_the_words_of_the_cli() {
    let server = RedisServer::start();
    let _consumer = jobs_in_every_state(&server);
    let web = Web::start(&server, &[]);
    for (queue, id, acked) in [
        ("mial", "dead1", Value::Null),
        ("mail", "nope", Value::Bool(false)),
        ("mail", "done1", Value::Bool(true)),
    ] {
        let reply = web.get(&format!("/api/queues/{queue}/jobs/{id}"));
        assert_eq!(reply.status, 404, "{queue} {id}: {reply:?}");
        let api = reply.json();
        assert_eq!(api["acked"], acked, "{api}");
        let words = api["error"].as_str().expect("the error's words");
        let out = qctl_output(&server, &["dead", "show", queue, id]);
        assert_eq!(out.status.code(), Some(5), "{out:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(words), "{words:?} not in {err:?}");

        let page = web.get(&format!("/queues/{queue}/jobs/{id}"));
        assert_eq!(page.status, 404);
        assert!(
            page.body.contains(&words.replace('"', "&quot;")),
            "{words:?} not in:\n{}",
            page.body
        );
        let download = web.get(&format!("/queues/{queue}/jobs/{id}/data"));
        assert_eq!(download.status, 404);
        assert_eq!(download.body.trim_end(), words);
    }
    let api = web.get("/api/queues/mial/jobs/dead1").json();
    let words = api["error"].as_str().unwrap_or_default();
    assert!(
        words.starts_with("no queue \"mial\" (known: ") && words.contains("mail"),
        "{api}"
    );
    let api = web.get("/api/queues/mail/jobs/done1").json();
    assert!(
        api["error"]
            .as_str()
            .is_some_and(|e| e.contains("a qctl consumer acked it")),
        "{api}"
    );
    let page = web.get("/queues/mail/jobs/nope").body;
    assert!(
        page.contains("it ended without a record of success"),
        "{page}"
    );
    // A queue qctl web was not started with is not shown.
    let only = Web::start(&server, &["busy"]);
    let reply = only.get("/api/queues/mail/jobs/dead1");
    assert_eq!(reply.status, 404);
    assert!(reply.body.contains("is not shown here"), "{reply:?}");
}

#[test]
fn the_download_is_the_exact_bytes_of_the_data_read_once() {
    let server = RedisServer::start();
    let binary: Vec<u8> = (0..1024u32).map(|i| (i % 256) as u8).collect();
    let big: Vec<u8> = (0..16u32 << 20)
        .map(|i| (i.wrapping_mul(31) % 251) as u8)
        .collect();
    support::enqueue(&server, "mail", "binary", &binary);
    support::enqueue(&server, "mail", "empty", b"");
    support::enqueue(&server, "mail", "big", &big);
    // One reading at start, none after: the calls counted are the downloads'.
    let web = Web::start(&server, &["--interval", "1h"]);
    for (id, data) in [("binary", &binary), ("empty", &Vec::new()), ("big", &big)] {
        let _: () = server.cmd(&[b"CONFIG", b"RESETSTAT"]);
        let (status, headers, body) = web.get_bytes(&format!("/queues/mail/jobs/{id}/data"));
        assert_eq!(status, 200, "{id}");
        assert_eq!(headers["content-type"], "application/octet-stream");
        assert_eq!(
            headers["content-disposition"],
            format!("attachment; filename=\"{id}.bin\"; filename*=UTF-8''{id}.bin")
        );
        assert_eq!(headers["x-content-type-options"], "nosniff");
        assert!(
            body == *data,
            "{id}: {} bytes, not the {}",
            body.len(),
            data.len()
        );
        // Read once: one HMGET, no measuring or reading in chunks.
        assert_eq!(server.calls("hmget"), 1, "{id}");
        for command in ["hget", "hstrlen"] {
            assert_eq!(server.calls(command), 0, "{id}: {command}");
        }
        let raw = qctl_output(&server, &["dead", "show", "mail", id, "--raw"]);
        assert!(raw.stdout == *data, "{id}: show --raw differs");
    }
    // The page of 16 MiB shows the first 64 KiB and says the size.
    let page = web.get("/queues/mail/jobs/big");
    assert_eq!(page.status, 200);
    assert!(
        page.body
            .contains("16,777,216 bytes (16 MiB), shown in hex: the first 64 KiB of 16 MiB"),
        "{}",
        &page.body[..page.body.len().min(4000)]
    );
    assert!(page.body.len() < 1 << 20, "{} bytes", page.body.len());
    let page = web.get("/queues/mail/jobs/empty").body;
    assert!(page.contains("0 bytes, shown as text"), "{page}");
}

#[test]
fn a_hostile_id_is_downloaded_under_a_safe_file_name() {
    let server = RedisServer::start();
    let id = "\"; filename=evil.sh\r\nX-Evil: 1/../..\\\u{202e}gpj.exe\0";
    let record = qctl::engine::Job::new(id, Some(b"data".to_vec())).encode();
    let _: () = server.cmd(&[b"HSET", b"mail:data", id.as_bytes(), &record]);
    let _: () = server.cmd(&[b"RPUSH", b"mail:active", id.as_bytes()]);
    let web = Web::start(&server, &[]);
    let path = segment(id);
    let (status, headers, body) = web.get_bytes(&format!("/queues/mail/jobs/{path}/data"));
    assert_eq!(status, 200, "{headers:?}");
    assert_eq!(body, b"data");
    assert!(!headers.contains_key("x-evil"), "{headers:?}");
    let disposition = &headers["content-disposition"];
    assert!(!disposition.contains('\n'), "{disposition:?}");
    assert!(
        disposition
            .chars()
            .all(|c| c.is_ascii_graphic() || c == ' '),
        "{disposition:?}"
    );
    let plain = disposition
        .strip_prefix("attachment; filename=\"")
        .and_then(|rest| rest.split_once("\"; filename*=UTF-8''"))
        .map(|(name, _)| name)
        .unwrap_or_else(|| panic!("{disposition:?}"));
    assert!(
        plain
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c)),
        "{plain:?}"
    );
    assert!(!plain.starts_with('.'), "{plain:?}");
    let encoded = disposition.rsplit("UTF-8''").next().unwrap_or_default();
    for bad in [
        "%2F",
        "%5C",
        "%22",
        "%0D",
        "%0A",
        "%00",
        "%E2%80%AE",
        "/",
        "\\",
    ] {
        assert!(!encoded.contains(bad), "{bad} in {encoded:?}");
    }
    // Its page runs no code and says the id as text.
    let page = web.get(&format!("/queues/mail/jobs/{path}")).body;
    assert!(
        page.contains("&quot;; filename=evil.sh\\r\\nX-Evil: 1/../..\\\\u{202e}gpj.exe\\u{0}"),
        "{page}"
    );
}

/// The values of the attribute `name` in `html`, as a browser reads them.
fn attributes(html: &str, name: &str) -> Vec<String> {
    let marker = format!(" {name}=\"");
    html.split(&marker)
        .skip(1)
        .filter_map(|rest| rest.split_once('"'))
        .map(|(value, _)| {
            value
                .replace("&quot;", "\"")
                .replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&amp;", "&")
        })
        .collect()
}

#[test]
fn the_commands_a_job_page_lists_run_as_they_are_in_a_posix_shell() {
    let server = RedisServer::start_with(&["--requirepass", "pw-9911"]);
    let dir = tempfile::tempdir().expect("temp dir");
    let touched = dir.path().join("touched");
    let id = format!("-it's \"odd\" $(touch {}) ;x", touched.display());
    let url = format!("redis://:pw-9911@127.0.0.1:{}", server.port());
    let as_user = |args: &[&str]| {
        support::qctl_url(&format!("redis://127.0.0.1:{}", server.port()))
            .env("QCTL_REDIS_PASSWORD", "pw-9911")
            .args(args)
            .output()
            .expect("qctl")
    };
    assert!(as_user(&["enqueue", "mail", &format!("--id={id}"), "x"])
        .status
        .success());
    let out = as_user(&[
        "consume",
        "mail",
        "--drain",
        "--max-retries",
        "0",
        "--",
        "false",
    ]);
    assert_eq!(out.status.code(), Some(7), "{out:?}");
    let mut cmd = support::qctl_process_at(&url);
    cmd.args(["web", "--listen", "127.0.0.1:0"]);
    let web = Web::spawn(cmd);
    let page = web.get(&format!("/queues/mail/jobs/{}", segment(&id)));
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(!page.body.contains("pw-9911"), "{}", page.body);
    let commands = attributes(&page.body, "data-command");
    assert_eq!(commands.len(), 3, "{commands:?}");
    let requeue = &commands[0];
    assert!(
        requeue.starts_with(&format!(
            "qctl -u redis://127.0.0.1:{} dead requeue --yes -- mail '-it'\\''s",
            server.port()
        )),
        "{requeue}"
    );
    // Run as it is, by a POSIX shell, with the password from the environment.
    let bin = assert_cmd::cargo::cargo_bin("qctl");
    let path_var = format!(
        "{}:{}",
        bin.parent().expect("the binary's directory").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let ran = std::process::Command::new("sh")
        .arg("-c")
        .arg(requeue)
        .env("PATH", path_var)
        .env("QCTL_REDIS_PASSWORD", "pw-9911")
        .env_remove("QCTL_REDIS_URL")
        .output()
        .expect("sh");
    assert!(ran.status.success(), "{ran:?}");
    assert!(!touched.exists(), "the id ran as a command");
    let active: Vec<String> = redis::cmd("LRANGE")
        .arg("mail:active")
        .arg(0)
        .arg(-1)
        .query(
            &mut redis::Client::open(url.as_str())
                .unwrap()
                .get_connection()
                .unwrap(),
        )
        .expect("LRANGE");
    assert_eq!(active, [id]);
}

#[test]
fn the_health_api_finds_what_doctor_json_and_check_json_find() {
    let server = RedisServer::start();
    fill(&server);
    let web = Web::start(&server, &[]);
    let reply = web.get("/api/health");
    assert_eq!(reply.status, 200, "{reply:?}");
    let api = reply.json();
    assert_eq!(api["read"]["queues"], serde_json::json!(["mail", "sms"]));

    let out = qctl_output(&server, &["doctor", "mail", "sms", "--json"]);
    let doctor: Value = serde_json::from_slice(&out.stdout).expect("doctor --json");
    let ours = api["doctor"]["findings"].as_array().expect("findings");
    let theirs = doctor["findings"].as_array().expect("findings");
    assert_eq!(ours.len(), theirs.len(), "{api}\n{doctor}");
    assert!(ours.len() > 20, "{api}");
    for (a, b) in ours.iter().zip(theirs) {
        // Measured times and sizes differ from one reading to the next.
        let measured = ["latency", "clock", "memory"].contains(&b["check"].as_str().unwrap_or(""));
        for (field, value) in b.as_object().expect("a finding") {
            if field == "summary" && measured {
                continue;
            }
            assert_eq!(&a[field], value, "{field} of {b}");
        }
    }
    assert_eq!(api["doctor"]["status"], doctor["status"]);
    assert_eq!(api["doctor"]["exit_code"], doctor["exit_code"]);

    let command = api["read"]["check_command"].as_str().expect("the command");
    let words: Vec<&str> = command.split_whitespace().collect();
    assert_eq!(
        words[..3],
        ["qctl", "-u", server.url().as_str()],
        "{command}"
    );
    assert!(command.contains(" check --warn-"), "{command}");
    let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("qctl"))
        .args(&words[1..])
        .arg("--json")
        .output()
        .expect("qctl check");
    let check: Value = serde_json::from_slice(&out.stdout).expect("check --json");
    assert_eq!(api["check"], check);
    assert_eq!(check["queues"].as_array().map(Vec::len), Some(2), "{check}");

    // The page says the same, grouped as doctor groups it.
    let page = web.get("/health").body;
    for shown in [
        "<h3>server 127.0.0.1:",
        "<h3>rights of the current user on queue mail</h3>",
        "queue <a href=\"/queues/mail\">mail</a> (",
        "id=\"check-command\"",
    ] {
        assert!(page.contains(shown), "{shown:?} not in:\n{page}");
    }
    assert!(page.contains(&format!(
        "<span class=\"sev {}\">",
        doctor["status"].as_str().unwrap().to_lowercase()
    )));
}

#[test]
fn health_is_read_at_most_once_per_interval_however_many_ask() {
    let server = RedisServer::start();
    fill(&server);
    let web = Web::start(&server, &["--interval", "1h"]);
    let _: () = server.cmd(&[b"CONFIG", b"RESETSTAT"]);
    let times = std::sync::Mutex::new(std::collections::BTreeSet::new());
    std::thread::scope(|s| {
        for t in 0..10 {
            let (web, times) = (&web, &times);
            s.spawn(move || {
                for i in 0..5 {
                    if (t + i) % 2 == 0 {
                        assert_eq!(web.get("/health").status, 200);
                    } else {
                        let api = web.get("/api/health").json();
                        let time = api["read"]["time"].as_f64().expect("a time");
                        times.lock().unwrap().insert(time.to_bits());
                    }
                }
            });
        }
    });
    assert_eq!(times.lock().unwrap().len(), 1, "more than one reading");
    let served: Vec<u64> = ["type", "hscan", "evalsha", "hello"]
        .iter()
        .map(|c| server.calls(c))
        .collect();
    // What one doctor and one check cost.
    let _: () = server.cmd(&[b"CONFIG", b"RESETSTAT"]);
    qctl_output(&server, &["doctor", "mail", "sms", "--json"]);
    let one: Vec<u64> = ["type", "hscan", "evalsha", "hello"]
        .iter()
        .map(|c| server.calls(c))
        .collect();
    assert!(one.iter().all(|n| *n > 0), "{one:?}");
    // qctl doctor opens its connection with HELLO; qctl web's was open already.
    assert_eq!(
        served[..3],
        one[..3],
        "50 requests cost {served:?}, one doctor {one:?}"
    );
    assert!(served[3] <= one[3], "{served:?} {one:?}");
}

/// `text` as a page shows text from Redis: control characters and those that reorder text
/// written as Rust writes them.
fn visible(text: &str) -> String {
    text.chars()
        .flat_map(|c| {
            let hidden = c.is_control()
                || matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
            if hidden {
                c.escape_default().collect::<Vec<_>>()
            } else {
                vec![c]
            }
        })
        .collect()
}

/// `text` as one segment of a URL's path: every byte but letters and digits percent-encoded.
fn segment(text: &str) -> String {
    text.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

#[test]
fn hostile_records_open_as_text_in_a_browser_and_run_nothing() {
    let Some(browser) = support::browser::Browser::start(1280, 800) else {
        return;
    };
    let server = RedisServer::start();
    const SCRIPT: &str = "<script>window.pwned=1</script>";
    const IMG: &str = "\"><img src=x onerror=\"window.pwned=1\">";
    // (id, data, shown as text)
    let records: Vec<(&str, Vec<u8>, bool)> = vec![
        (SCRIPT, SCRIPT.as_bytes().to_vec(), true),
        (IMG, IMG.as_bytes().to_vec(), true),
        (
            "</textarea>",
            format!("</textarea>{SCRIPT}").into_bytes(),
            true,
        ),
        ("a\u{202e}b", "\u{202e}txt.exe".as_bytes().to_vec(), true),
        ("nul\0id", format!("a\0b{SCRIPT}").into_bytes(), false),
        (
            "not-utf8",
            [b"\xff\xfe".as_slice(), SCRIPT.as_bytes()].concat(),
            false,
        ),
    ];
    for (id, data, _) in &records {
        let record = qctl::engine::Job::new(*id, Some(data.clone())).encode();
        let _: () = server.cmd(&[b"HSET", b"mail:data", id.as_bytes(), &record]);
        let _: () = server.cmd(&[b"RPUSH", b"mail:active", id.as_bytes()]);
    }
    // A record that is no CurlyQ record at all, and invalid UTF-8, through a raw HSET.
    let damaged = [b"\xff\xfe\xc1".as_slice(), SCRIPT.as_bytes()].concat();
    let _: () = server.cmd(&[b"HSET", b"mail:data", b"damaged", &damaged]);
    let _: () = server.cmd(&[b"RPUSH", b"mail:active", b"damaged"]);
    let big = SCRIPT.repeat((16 << 20) / SCRIPT.len() + 1);
    support::enqueue(&server, "mail", "big", big.as_bytes());
    let web = Web::start(&server, &[]);
    let pwned = |b: &support::browser::Browser| b.run_js("return typeof window.pwned");

    for (id, data, text) in &records {
        browser.open(&format!("{}queues/mail/jobs/{}", web.url, segment(id)));
        browser.wait("the job's page", |b| b.text("#job-id").is_some());
        assert_eq!(pwned(&browser), "undefined", "{id:?}");
        assert_eq!(
            browser.text("#job-id").as_deref(),
            Some(visible(id).as_str()),
            "{id:?}"
        );
        let class = browser.run_js("return document.getElementById('data').className");
        if *text {
            assert_eq!(class, "data text", "{id:?}");
            let shown = browser.text("#data").unwrap_or_default();
            assert_eq!(shown, visible(std::str::from_utf8(data).unwrap()), "{id:?}");
        } else {
            assert_eq!(class, "data hex", "{id:?}");
            let shown = browser.text("#data").unwrap_or_default();
            assert!(shown.starts_with("00000000  "), "{id:?}: {shown}");
        }
        let size = browser.text("#data-size").unwrap_or_default();
        assert!(
            size.starts_with(&format!("{} bytes", data.len())),
            "{id:?}: {size}"
        );
    }

    browser.open(&format!("{}queues/mail/jobs/damaged", web.url));
    browser.wait("the damaged job's page", |b| b.text("#damaged").is_some());
    assert_eq!(pwned(&browser), "undefined");
    let shown = browser.text("#data").unwrap_or_default();
    assert!(shown.starts_with("00000000  ff fe c1 3c 73 63"), "{shown}");

    browser.open(&format!("{}queues/mail/jobs/big", web.url));
    browser.wait("the big job's page", |b| b.text("#data-size").is_some());
    assert_eq!(pwned(&browser), "undefined");
    let size = browser.text("#data-size").unwrap_or_default();
    assert!(
        size.contains("(16 MiB), shown as text: the first 64 KiB of 16 MiB"),
        "{size}"
    );
    let shown = browser.text("#data").unwrap_or_default();
    assert!(
        shown.starts_with(SCRIPT) && shown.len() <= 64 << 10,
        "{}",
        shown.len()
    );

    // The commands' Copy buttons are there once the script runs, and say what they did.
    browser.open(&format!("{}queues/mail/jobs/{}", web.url, segment(IMG)));
    browser.wait("the Copy buttons", |b| {
        b.find("button.copy").is_some_and(|e| e.displayed())
    });
    let copies = browser.find_all("button.copy");
    assert_eq!(copies.len(), 3);
    copies[0].click();
    browser.wait("the copy's note", |b| {
        b.text(".copied").is_some_and(|t| !t.is_empty())
    });
    let note = browser.text(".copied").unwrap_or_default();
    assert!(note == "copied" || note.starts_with("not copied"), "{note}");
    assert_eq!(pwned(&browser), "undefined");
}

#[test]
fn the_job_and_health_pages_fit_a_laptop_and_a_phone() {
    let server = RedisServer::start();
    let _consumer = jobs_in_every_state(&server);
    let web = Web::start(&server, &[]);
    for (width, height, mobile) in [(1280, 800, false), (390, 844, true)] {
        let browser = if mobile {
            support::browser::Browser::start_mobile(width, height)
        } else {
            support::browser::Browser::start(width, height)
        };
        let Some(browser) = browser else {
            return;
        };
        for (page, path, ready) in [
            ("job", "queues/mail/jobs/dead1", "#commands"),
            ("health", "health", "#check-summary"),
        ] {
            browser.open(&format!("{}{path}", web.url));
            browser.wait(page, |b| b.find(ready).is_some());
            let overflow = browser.run_js(
                "return document.documentElement.scrollWidth - document.documentElement.clientWidth",
            );
            assert_eq!(overflow, 0, "{page} at {width}x{height} scrolls sideways");
            let shot = browser.screenshot(&format!("web-{page}-{width}x{height}"));
            assert_eq!(
                support::browser::png_size(&shot),
                (width, height),
                "{}",
                shot.display()
            );
        }
        let stale = browser.find("button.copy").map(|b| b.displayed());
        assert_eq!(stale, None, "the health page has no Copy button");
    }
}

// ---- A queue's pages: the summary, pages of jobs, failures grouped ----

/// `qctl --json ARGS` against `server`, parsed; it must succeed.
fn cli_json(server: &RedisServer, args: &[&str]) -> Value {
    let out = qctl(server).arg("--json").args(args).assert().success();
    serde_json::from_slice(&out.get_output().stdout)
        .unwrap_or_else(|e| panic!("qctl {args:?} --json ({e})"))
}

/// The ids of a list of jobs.
fn ids(jobs: &Value) -> Vec<String> {
    jobs.as_array()
        .unwrap_or_else(|| panic!("not a list: {jobs}"))
        .iter()
        .map(|j| j["id"].as_str().expect("an id").to_string())
        .collect()
}

/// A failure record as a qctl consumer writes it.
fn failure(reason: &str, stderr: &str, attempt: i64, time: f64) -> qctl::engine::failure::Failure {
    qctl::engine::failure::Failure {
        reason: reason.into(),
        exit_code: reason.strip_prefix("exit ").and_then(|c| c.parse().ok()),
        stderr: stderr.into(),
        attempt,
        time,
        consumer: "q:inflight:0b7d3e2a-1c4f-4d5e-9f00-aabbccddeeff".into(),
        ..Default::default()
    }
}

/// One job to put in a set, as raw bytes: its id, its record, its failure record, its score.
struct Planted {
    id: Vec<u8>,
    record: Vec<u8>,
    failure: Option<Vec<u8>>,
    score: f64,
}

impl Planted {
    /// A job as qctl's consumers leave it: its record with `attempt` failures, and the last.
    fn job(
        id: &str,
        data: &[u8],
        attempt: i64,
        failed: Option<qctl::engine::failure::Failure>,
        score: f64,
    ) -> Planted {
        let mut job = qctl::engine::Job::new(id, Some(data.to_vec()));
        job.attempt = attempt;
        Planted {
            id: id.as_bytes().to_vec(),
            record: job.encode(),
            failure: failed.map(|f| f.to_json().into_bytes()),
            score,
        }
    }
}

/// Puts `jobs` in `queue`'s sorted set `set` (`dead`, `scheduled`) with their records, in
/// one pipeline.
fn plant(server: &RedisServer, queue: &str, set: &str, jobs: &[Planted]) {
    let mut pipe = redis::pipe();
    for j in jobs {
        pipe.cmd("HSET")
            .arg(format!("{queue}:data"))
            .arg(&j.id)
            .arg(&j.record)
            .ignore();
        if let Some(f) = &j.failure {
            pipe.cmd("HSET")
                .arg(format!("{queue}:failures"))
                .arg(&j.id)
                .arg(f)
                .ignore();
        }
        pipe.cmd("ZADD")
            .arg(format!("{queue}:{set}"))
            .arg(j.score)
            .arg(&j.id)
            .ignore();
    }
    let () = pipe.query(&mut server.conn()).expect("plant the jobs");
}

/// Every command Redis ran so far, with its count (INFO commandstats).
fn commands_run(server: &RedisServer) -> std::collections::BTreeMap<String, u64> {
    let info: String = server.cmd(&[b"INFO", b"commandstats"]);
    info.lines()
        .filter_map(|l| {
            let (name, rest) = l.strip_prefix("cmdstat_")?.split_once(":calls=")?;
            Some((name.to_string(), rest.split(',').next()?.parse().ok()?))
        })
        .collect()
}

/// The commands Redis ran for one request (and the INFO that counts them).
fn commands_of(
    server: &RedisServer,
    web: &Web,
    path: &str,
) -> std::collections::BTreeMap<String, u64> {
    let before = commands_run(server);
    let reply = web.get(path);
    assert_eq!(reply.status, 200, "{path}: {reply:?}");
    let after = commands_run(server);
    after
        .into_iter()
        .map(|(name, n)| {
            let was = before.get(&name).copied().unwrap_or(0);
            (name, n - was)
        })
        .filter(|(_, n)| *n > 0)
        .collect()
}

/// The ids of the jobs of a page's table, in order, as its links name them (decoded).
fn page_ids(html: &str) -> Vec<String> {
    html.split("<th scope=\"row\"><a href=\"")
        .skip(1)
        .map(|rest| {
            let href = &rest[..rest.find('"').expect("the link's end")];
            let id = href.rsplit('/').next().expect("an id");
            url_decode(id)
        })
        .collect()
}

fn url_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            out.push(u8::from_str_radix(&text[i + 1..i + 3], 16).expect("hex"));
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).expect("UTF-8")
}

/// 5,000 dead jobs in `big`, one a second, with one of two failures.
fn five_thousand_dead(server: &RedisServer) {
    let start = 1_700_000_000.0;
    let jobs: Vec<Planted> = (0..5000)
        .map(|i| {
            let (reason, stderr) = if i % 3 == 0 {
                ("exit 2", format!("timeout after {i} ms"))
            } else {
                ("exit 1", format!("no such user u{i}"))
            };
            Planted::job(
                &format!("job-{i:05}"),
                format!("data of {i}").as_bytes(),
                1 + (i % 4) as i64,
                Some(failure(reason, &stderr, (i % 4) as i64, start + i as f64)),
                start + i as f64,
            )
        })
        .collect();
    plant(server, "big", "dead", &jobs);
}

#[test]
fn the_50th_page_of_5000_dead_jobs_is_dead_list_at_offset_980_and_costs_what_the_first_does() {
    let server = RedisServer::start();
    five_thousand_dead(&server);
    // One reading at the start and none while the pages are asked.
    let web = Web::start(&server, &["--interval", "1h"]);

    let api = web.get("/api/queues/big/dead?offset=980&limit=20");
    assert_eq!(api.status, 200, "{api:?}");
    assert_eq!(api.header("content-type"), "application/json");
    let page = api.json();
    let cli = cli_json(
        &server,
        &["dead", "list", "big", "--offset", "980", "--limit", "20"],
    );
    assert_eq!(page["jobs"], cli, "the 50th page");
    assert_eq!(page["total"], 5000);
    assert_eq!(page["offset"], 980);
    assert_eq!(page["limit"], 20);
    assert_eq!(page["next_offset"], 1000);
    let last = web.get("/api/queues/big/dead?offset=4990&limit=20").json();
    assert_eq!(ids(&last["jobs"]).len(), 10);
    assert_eq!(last["next_offset"], Value::Null);

    // The page: the same jobs, with the CLI's closing words and links to the pages around.
    let html = web.get("/queues/big/dead?offset=980").body;
    assert_eq!(page_ids(&html), ids(&cli));
    assert!(html.contains("20 shown of 5,000 in big:dead"), "{html}");
    assert!(
        html.contains("href=\"/queues/big/dead?offset=1000\"")
            && html.contains("href=\"/queues/big/dead?offset=960\""),
        "{html}"
    );

    // A page deep in the set costs Redis what the first one costs: the same commands, as
    // many times, by rank.
    let first = commands_of(&server, &web, "/api/queues/big/dead?limit=20");
    let deep = commands_of(&server, &web, "/api/queues/big/dead?offset=4960&limit=20");
    assert_eq!(first, deep);
    assert!(first.values().sum::<u64>() < 100, "{first:?}");
    let first = commands_of(&server, &web, "/queues/big/dead");
    let deep = commands_of(&server, &web, "/queues/big/dead?offset=4960");
    assert_eq!(first, deep);
}

#[test]
fn a_list_filtered_lists_what_the_cli_filter_lists_and_a_bad_value_is_refused_in_its_words() {
    let server = RedisServer::start();
    five_thousand_dead(&server);
    let web = Web::start(&server, &["--interval", "1h"]);
    let group = cli_json(&server, &["dead", "groups", "big"])["groups"][1]["fingerprint"]
        .as_str()
        .expect("a fingerprint")
        .to_string();
    for (query, flags) in [
        ("grep=data+of+12", vec!["--grep", "data of 12"]),
        (
            "reason=TIMEOUT&limit=7",
            vec!["--reason", "TIMEOUT", "--limit", "7"],
        ),
        (
            "reason=user&offset=40",
            vec!["--reason", "user", "--offset", "40"],
        ),
        (
            "min_attempts=4&offset=3&limit=5",
            vec!["--min-attempts", "4", "--offset", "3", "--limit", "5"],
        ),
        (
            "since=1700000100&until=1700000130",
            vec!["--since", "1700000100", "--until", "1700000130"],
        ),
        (
            "since=2023-11-14T22:15:00Z&limit=3&offset=2",
            vec![
                "--since",
                "2023-11-14T22:15:00Z",
                "--limit",
                "3",
                "--offset",
                "2",
            ],
        ),
        (
            &*format!("group={group}&limit=50"),
            vec!["--group", &group, "--limit", "50"],
        ),
        ("group=none", vec!["--group", "none"]),
    ] {
        let mut args = vec!["dead", "list", "big"];
        args.extend(&flags);
        let cli = cli_json(&server, &args);
        let page = web.get(&format!("/api/queues/big/dead?{query}"));
        assert_eq!(page.status, 200, "{query}: {page:?}");
        let page = page.json();
        assert_eq!(ids(&page["jobs"]), ids(&cli), "{query}");
        assert_eq!(page["jobs"], cli, "{query}");
        let html = web.get(&format!("/queues/big/dead?{query}")).body;
        assert_eq!(page_ids(&html), ids(&cli), "{query}");
    }
    // The form's fields keep what was asked; an empty field is no filter.
    let html = web
        .get("/queues/big/dead?grep=data+of+12&reason=&group=")
        .body;
    assert!(
        html.contains("name=\"grep\" value=\"data of 12\""),
        "{html}"
    );
    assert_eq!(
        page_ids(&html),
        ids(&cli_json(
            &server,
            &["dead", "list", "big", "--grep", "data of 12"]
        ))
    );

    // A bad value: 400, with what clap says of the same value of the flag.
    for (query, flag, value) in [
        ("since=soon", "--since", "soon"),
        ("until=%2B2x", "--until", "+2x"),
        ("group=abc", "--group", "abc"),
        ("min_attempts=-1", "--min-attempts", "-1"),
        ("offset=x", "--offset", "x"),
    ] {
        let ran = run(qctl(&server).args(["dead", "list", "big", flag, value]));
        assert_eq!(ran.code, Some(2), "{ran:?}");
        let words = ran.err.lines().next().unwrap_or_default();
        let why = words
            .rsplit_once("': ")
            .map(|(_, why)| why)
            .expect("clap's words");
        let api = web.get(&format!("/api/queues/big/dead?{query}"));
        assert_eq!(api.status, 400, "{query}: {api:?}");
        let error = api.json()["error"].as_str().expect("an error").to_string();
        assert!(
            error.ends_with(why) && error.contains(flag),
            "{query}: {error:?} against {why:?}"
        );
        let page = web.get(&format!("/queues/big/dead?{query}"));
        assert_eq!(page.status, 400);
        assert!(page.body.contains("Bad request"), "{}", page.body);
    }
    // Ready jobs have no time: refused as the CLI refuses it.
    let ran = run(qctl(&server).args(["active", "list", "big", "--since", "1h"]));
    let api = web.get("/api/queues/big/ready?since=1h");
    assert_eq!(api.status, 400, "{api:?}");
    assert_eq!(
        api.json()["error"].as_str().map(|e| format!("qctl: {e}")),
        ran.err.lines().next().map(str::to_string)
    );
    let api = web.get("/api/queues/big/inflight?grep=x");
    assert_eq!(api.status, 400, "{api:?}");
    let api = web.get("/api/queues/big/dead?limit=0");
    assert_eq!(api.status, 400, "{api:?}");
}

#[test]
fn failures_grouped_answer_as_dead_groups_json_and_each_group_links_to_its_jobs() {
    let server = RedisServer::start();
    five_thousand_dead(&server);
    let now = qctl::engine::now();
    let scheduled: Vec<Planted> = (0..30)
        .map(|i| {
            let failed = (i % 2 == 0).then(|| failure("exit 7", "gateway 502", 0, now));
            Planted::job(
                &format!("s{i}"),
                b"later",
                1,
                failed,
                now + 3600.0 + i as f64,
            )
        })
        .collect();
    plant(&server, "big", "scheduled", &scheduled);
    let web = Web::start(&server, &["--interval", "1h"]);
    for (path, args) in [
        ("/api/queues/big/dead/groups", vec!["dead", "groups", "big"]),
        (
            "/api/queues/big/dead/groups?limit=1",
            vec!["dead", "groups", "big", "--limit", "1"],
        ),
        (
            "/api/queues/big/dead/groups?since=1700004000&until=1700004010",
            vec![
                "dead",
                "groups",
                "big",
                "--since",
                "1700004000",
                "--until",
                "1700004010",
            ],
        ),
        (
            "/api/queues/big/scheduled/groups",
            vec!["scheduled", "groups", "big"],
        ),
    ] {
        let api = web.get(path);
        assert_eq!(api.status, 200, "{path}: {api:?}");
        assert_eq!(api.json(), cli_json(&server, &args), "{path}");
    }

    let html = web.get("/queues/big/dead/groups").body;
    let groups = cli_json(&server, &["dead", "groups", "big"]);
    for g in groups["groups"].as_array().expect("groups") {
        let fp = g["fingerprint"].as_str().expect("a fingerprint");
        let link = format!("href=\"/queues/big/dead?group={fp}\"");
        assert!(html.contains(&link), "{link} in {html}");
        let jobs = web.get(&format!("/api/queues/big/dead?group={fp}")).json();
        assert_eq!(
            jobs["jobs"],
            cli_json(&server, &["dead", "list", "big", "--group", fp])
        );
    }
    let summary = format!(
        "5,000 jobs of big:dead in {} groups",
        groups["groups_found"]
    );
    assert!(html.contains(&summary), "{summary} in {html}");
    let html = web.get("/queues/big/scheduled/groups").body;
    assert!(
        html.contains("href=\"/queues/big/scheduled?group=none\""),
        "{html}"
    );
    assert_eq!(web.get("/queues/big/ready/groups").status, 404);
}

#[test]
fn an_unknown_queue_is_not_found_in_the_cli_words_and_queues_not_named_are_not_shown() {
    let server = RedisServer::start();
    fill(&server);
    let ran = run(qctl(&server).args(["dead", "list", "mial"]));
    assert_eq!(ran.code, Some(5), "{ran:?}");
    let words = ran.err.trim().trim_start_matches("qctl: ").to_string();
    assert!(
        words.starts_with("no queue \"mial\" (known: mail"),
        "{words}"
    );
    let web = Web::start(&server, &[]);
    for path in [
        "/api/queues/mial",
        "/api/queues/mial/dead",
        "/api/queues/mial/dead/groups",
    ] {
        let api = web.get(path);
        assert_eq!(api.status, 404, "{path}");
        assert_eq!(api.json()["error"], words.as_str(), "{path}");
    }
    for path in [
        "/queues/mial",
        "/queues/mial/ready",
        "/queues/mial/scheduled/groups",
    ] {
        let page = web.get(path);
        assert_eq!(page.status, 404, "{path}");
        assert!(
            page.body.contains("no queue &quot;mial&quot; (known: mail"),
            "{}",
            page.body
        );
        assert_safe_headers(&page, path);
    }
    assert_eq!(web.get("/queues/mail/done").status, 404);
    assert_eq!(web.get("/api/queues/mail/done").status, 404);

    let web = Web::start(&server, &["sms"]);
    assert_eq!(web.get("/queues/sms").status, 200);
    for path in [
        "/queues/mail",
        "/queues/mail/dead",
        "/api/queues/mail/dead",
        "/api/queues/mail",
    ] {
        let reply = web.get(path);
        assert_eq!(reply.status, 404, "{path}: {reply:?}");
        assert!(reply.body.contains("known: sms"), "{path}: {reply:?}");
    }
}

/// The fields of `consumers --json` that do not change from one reading to the next.
const STEADY: [&str; 14] = [
    "consumer",
    "run_by",
    "host",
    "pid",
    "version",
    "command",
    "mode",
    "concurrency",
    "started",
    "ran",
    "failed",
    "in_flight",
    "alive",
    "process",
];

#[test]
fn the_queue_summary_answers_what_stats_consumers_inflight_limit_and_tail_answer() {
    let server = RedisServer::start();
    fill(&server);
    qctl(&server)
        .args(["limit", "work", "--max-running", "5"])
        .assert()
        .success();
    enqueue(&server, &["work", "--id", "held", "hold"]);
    // A Go CurlyQ consumer's state: a member in work:consumers, its in-flight set holding f,
    // no description; and one whose heartbeat is ten minutes old.
    support::hold_in_flight(&server, "work");
    let mut args = vec!["work", "-c", "2", "--shutdown-grace", "1s"];
    args.extend(FAST);
    args.extend(["--orphan-after", "1h", "--", "sleep", "60"]);
    let _consumer = support::spawn_consumer_at(&server.url(), &args);
    let started = wait_until(LIMIT, || {
        cli_json(&server, &["inflight", "work"])
            .as_array()
            .is_some_and(|jobs| {
                jobs.iter()
                    .any(|j| j["id"] == "held" && j["started"].is_number())
            })
    });
    assert!(started, "{}", cli_json(&server, &["inflight", "work"]));
    let web = Web::start(&server, &["--interval", "300ms", "--orphan-after", "1h"]);

    let mut api = Value::Null;
    let counted = wait_until(LIMIT, || {
        api = web.get("/api/queues/work").json();
        api["stats"] == cli_json(&server, &["stats", "work", "--orphan-after", "1h"])[0]
    });
    assert!(counted, "{api}");
    let consumers = cli_json(&server, &["consumers", "work", "--orphan-after", "1h"]);
    assert_eq!(consumers.as_array().map(Vec::len), Some(3), "{consumers}");
    let ours = api["consumers"].as_array().expect("consumers");
    assert_eq!(ours.len(), 3);
    for theirs in consumers.as_array().expect("consumers") {
        let mine = ours
            .iter()
            .find(|c| c["consumer"] == theirs["consumer"])
            .unwrap_or_else(|| panic!("{} missing: {api}", theirs["consumer"]));
        for field in STEADY {
            assert_eq!(
                mine[field], theirs[field],
                "{field} of {}",
                theirs["consumer"]
            );
        }
        let keys = |v: &Value| v.as_object().map(|o| o.keys().cloned().collect::<Vec<_>>());
        assert_eq!(keys(mine), keys(theirs));
    }
    let inflight = cli_json(&server, &["inflight", "work"]);
    let inflight = inflight.as_array().expect("jobs");
    let running = api["inflight"].as_array().expect("inflight");
    assert_eq!(running.len(), inflight.len());
    for (mine, theirs) in running.iter().zip(inflight) {
        for field in ["id", "consumer", "run_by", "host", "pid", "started"] {
            assert_eq!(
                mine[field], theirs[field],
                "{field}: {mine} against {theirs}"
            );
        }
    }
    let mut limits = cli_json(&server, &["limit", "work", "--orphan-after", "1h"]);
    limits["tokens"] = Value::Null;
    api["limits"]["tokens"] = Value::Null;
    assert_eq!(api["limits"], limits);

    // Its recent events, as `tail --no-follow --since 10m --json` has them: mail's death.
    let mail = web.get("/api/queues/mail").json();
    let out = qctl(&server)
        .args(["--json", "tail", "mail", "--no-follow", "--since", "10m"])
        .assert()
        .success();
    let tail: Vec<Value> = String::from_utf8_lossy(&out.get_output().stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .filter(|v: &Value| v["event"] != "following")
        .collect();
    assert_eq!(tail.len(), 1, "{tail:?}");
    assert_eq!(mail["events"], Value::Array(tail));

    // The page: the consumers as `consumers` names them, what each runs, and what cannot be
    // known of the Go one, in the CLI's words.
    let page = web.get("/queues/work");
    assert_eq!(page.status, 200);
    let html = page.body;
    for text in [
        "0b7d3e2a",
        "1b7d3e2a",
        "CurlyQ",
        "href=\"/queues/work/jobs/held\"",
        "href=\"/queues/work/jobs/f\"",
        ">f</a> (-)",
        "10m ago",
        "(how long each has run is not known: no start recorded)",
        qctl::engine::consumers::UNDESCRIBED,
        qctl::engine::consumers::NO_START,
        "max running  5",
        "per-job, concurrency 2",
        "sleep 60",
    ] {
        assert!(html.contains(text), "{text:?} not in {html}");
    }
    let mail = web.get("/queues/mail").body;
    assert!(mail.contains(" after run 1: exit 1"), "{mail}");
}

#[test]
fn each_list_answers_what_its_command_answers_go_written_records_too() {
    let server = RedisServer::start();
    fill(&server);
    // Records as Go CurlyQ writes them (and as it cannot read them), moved to the dead set
    // without a failure record, as a Go consumer moves them.
    let vectors = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/golden/decode.jsonl"
    ))
    .expect("the golden vectors");
    let go: Vec<Planted> = vectors
        .lines()
        .enumerate()
        .map(|(i, line)| {
            let case: Value = serde_json::from_str(line).expect("a vector");
            let hex = case["hex"].as_str().expect("hex");
            let record = (0..hex.len())
                .step_by(2)
                .map(|k| u8::from_str_radix(&hex[k..k + 2], 16).expect("hex"))
                .collect();
            let id = if i == 0 {
                "a".to_string()
            } else {
                format!("g{i:02}")
            };
            Planted {
                id: id.into_bytes(),
                record,
                failure: None,
                score: 1_700_000_000.0 + i as f64,
            }
        })
        .collect();
    plant(&server, "mail", "dead", &go);
    support::hold_in_flight(&server, "mail");
    let web = Web::start(&server, &[]);
    for (state, args) in [
        ("ready", vec!["active", "list", "mail"]),
        ("scheduled", vec!["scheduled", "list", "mail"]),
        ("dead", vec!["dead", "list", "mail", "--limit", "50"]),
        (
            "dead",
            vec!["dead", "list", "mail", "--limit", "5", "--offset", "4"],
        ),
    ] {
        let limit = args
            .iter()
            .skip_while(|a| **a != "--limit")
            .nth(1)
            .unwrap_or(&"20");
        let offset = args
            .iter()
            .skip_while(|a| **a != "--offset")
            .nth(1)
            .unwrap_or(&"0");
        let api = web.get(&format!(
            "/api/queues/mail/{state}?limit={limit}&offset={offset}"
        ));
        assert_eq!(api.status, 200, "{state}: {api:?}");
        let page = api.json();
        assert_eq!(page["jobs"], cli_json(&server, &args), "{state} {args:?}");
        let html = web
            .get(&format!(
                "/queues/mail/{state}?limit={limit}&offset={offset}"
            ))
            .body;
        assert_eq!(page_ids(&html), ids(&page["jobs"]), "{state}");
    }
    let dead = web.get("/queues/mail/dead?limit=50").body;
    assert!(dead.contains("damaged: "), "{dead}");
    let groups = web.get("/api/queues/mail/dead/groups").json();
    assert_eq!(groups, cli_json(&server, &["dead", "groups", "mail"]));
    assert!(web
        .get("/queues/mail/dead/groups")
        .body
        .contains("no failure recorded (moved by Go CurlyQ or another tool)"));

    // In flight at a Go CurlyQ consumer: no start known, no host, as `inflight` says.
    let page = web.get("/api/queues/mail/inflight").json();
    let cli = cli_json(&server, &["inflight", "mail"]);
    assert_eq!(page["jobs"], cli);
    assert_eq!(page["jobs"][0]["run_by"], "CurlyQ");
    assert_eq!(page["jobs"][0]["running_secs"], Value::Null);
    assert_eq!(
        (&page["total"], &page["next_offset"]),
        (&Value::from(1), &Value::Null)
    );
    let html = web.get("/queues/mail/inflight").body;
    assert_eq!(page_ids(&html), ["f"]);
    assert!(html.contains("1 shown of 1 in flight"), "{html}");
    let empty = web.get("/queues/sms/inflight").body;
    assert!(
        empty.contains("no jobs in flight in queue &quot;sms&quot;"),
        "{empty}"
    );
    let empty = web.get("/queues/sms/dead").body;
    assert!(empty.contains("no jobs in sms:dead"), "{empty}");
}

/// Hostile records: ids, data, failures, consumer names and descriptions that would run
/// script or reorder text if a page wrote them as HTML, NUL bytes, invalid UTF-8.
const PWN_SCRIPT: &str = "<script>window.pwned=1</script>";
const PWN_IMG: &str = "\"><img src=x onerror=\"window.pwned=1\">";

fn plant_hostile(server: &RedisServer) {
    let now = qctl::engine::now();
    let hostile_failure = failure(
        &format!("exit 1 {PWN_SCRIPT}"),
        &format!("</textarea>{PWN_IMG}\u{202e}evil\0nul\n"),
        0,
        now,
    );
    let mut jobs = vec![
        Planted::job(
            PWN_SCRIPT,
            PWN_IMG.as_bytes(),
            1,
            Some(hostile_failure.clone()),
            now - 1.0,
        ),
        Planted::job(
            PWN_IMG,
            format!("</textarea>{PWN_SCRIPT}\0\0").as_bytes(),
            2,
            Some(hostile_failure),
            now - 2.0,
        ),
        Planted::job(
            "rtl\u{202e}gpj.exe/a b",
            b"\xff\xfe<script>window.pwned=1</script>",
            1,
            None,
            now - 3.0,
        ),
        Planted::job("nul\0id", b"x", 1, None, now - 4.0),
    ];
    // A record that is no msgpack at all, and not UTF-8.
    jobs.push(Planted {
        id: b"raw</textarea>".to_vec(),
        record: b"\xff\xfe<script>window.pwned=1</script>".to_vec(),
        failure: Some(b"<img src=x onerror=window.pwned=1>".to_vec()),
        score: now - 5.0,
    });
    plant(server, "q", "dead", &jobs);
    // Consumers: a member that is no in-flight key, and a described one with a hostile
    // host and command holding a hostile id.
    let uuid = "2b7d3e2a-1c4f-4d5e-9f00-aabbccddeeff";
    let member = format!("q:inflight:{uuid}");
    let now_text = now.to_string();
    let _: () = server.cmd(&[
        b"ZADD",
        b"q:consumers",
        now_text.as_bytes(),
        PWN_IMG.as_bytes(),
    ]);
    let _: () = server.cmd(&[
        b"ZADD",
        b"q:consumers",
        now_text.as_bytes(),
        member.as_bytes(),
    ]);
    let _: () = server.cmd(&[b"SADD", member.as_bytes(), PWN_SCRIPT.as_bytes()]);
    let command = serde_json::to_string(&[PWN_IMG, PWN_SCRIPT, "\u{202e}x"]).unwrap();
    let _: () = server.cmd(&[
        b"HSET",
        format!("q:consumer:{uuid}").as_bytes(),
        b"host",
        PWN_SCRIPT.as_bytes(),
        b"pid",
        b"1",
        b"version",
        b"<b>1</b>",
        b"command",
        command.as_bytes(),
        b"mode",
        PWN_IMG.as_bytes(),
    ]);
}

#[test]
fn hostile_records_are_text_in_every_queue_page_and_their_links_are_encoded() {
    let server = RedisServer::start();
    plant_hostile(&server);
    let web = Web::start(&server, &[]);
    for path in [
        "/queues/q",
        "/queues/q/dead",
        "/queues/q/dead?grep=%3Cscript",
        "/queues/q/inflight",
        "/queues/q/dead/groups",
        "/queues/q/dead?grep=%3Cscript%3E%22%3E%3Cimg",
    ] {
        let page = web.get(path);
        assert_eq!(page.status, 200, "{path}: {page:?}");
        let html = &page.body;
        for raw in [
            "<script>window",
            "<img src=x",
            "\u{202e}",
            "\0",
            "</textarea>",
            "<b>1",
        ] {
            assert!(!html.contains(raw), "{raw:?} in {path}:\n{html}");
        }
        assert_eq!(html.matches("<script").count(), 1, "{path}");
    }
    let dead = web.get("/queues/q/dead").body;
    for shown in [
        "&lt;script&gt;window.pwned=1&lt;/script&gt;",
        "&quot;&gt;&lt;img src=x onerror=&quot;window.pwned=1&quot;&gt;",
        "rtl\\u{202e}gpj.exe/a b",
        "nul\\u{0}id",
        "&lt;binary, 33 bytes&gt;",
        "raw&lt;/textarea&gt;",
    ] {
        assert!(dead.contains(shown), "{shown:?} not in {dead}");
    }
    // Each id's link is its one encoded path segment, which the route decodes back.
    for href in [
        "/queues/q/jobs/%3Cscript%3Ewindow.pwned%3D1%3C%2Fscript%3E",
        "/queues/q/jobs/rtl%E2%80%AEgpj.exe%2Fa%20b",
        "/queues/q/jobs/nul%00id",
    ] {
        assert!(
            dead.contains(&format!("href=\"{href}\"")),
            "{href} not in {dead}"
        );
    }
    // The JSON has them as they are.
    let api = web.get("/api/queues/q/dead").json();
    assert_eq!(api["jobs"], cli_json(&server, &["dead", "list", "q"]));
    assert_eq!(api["jobs"][0]["id"], PWN_SCRIPT);
    let summary = web.get("/api/queues/q").json();
    assert_eq!(summary["consumers"].as_array().map(Vec::len), Some(2));
    // A queue whose name needs encoding, in links and in the route.
    let name = "a/b <c>";
    support::enqueue(&server, name, "x", b"y");
    let page = web.get("/queues/a%2Fb%20%3Cc%3E/ready");
    assert_eq!(page.status, 200, "{page:?}");
    assert!(
        page.body
            .contains("href=\"/queues/a%2Fb%20%3Cc%3E/jobs/x\""),
        "{}",
        page.body
    );
    assert!(
        page.body
            .contains("<span class=\"queue\">a/b &lt;c&gt;</span>"),
        "{}",
        page.body
    );
}

/// The ids a browser shows in the table of jobs of the page it is on, as the links name
/// them.
fn shown_ids(browser: &support::browser::Browser) -> Vec<String> {
    let v = browser.run_js(
        "return Array.from(document.querySelectorAll('table.jobs tbody th a'))\
         .map(a => decodeURIComponent(a.getAttribute('href').split('/').pop()));",
    );
    v.as_array()
        .expect("a list")
        .iter()
        .map(|id| id.as_str().expect("an id").to_string())
        .collect()
}

/// The console's errors but the browser's own request for /favicon.ico, which no page
/// names.
fn page_errors(browser: &support::browser::Browser) -> Vec<String> {
    browser
        .console_errors()
        .into_iter()
        .filter(|e| !e.contains("/favicon.ico"))
        .collect()
}

/// 90 dead jobs in `mail`, in two groups.
fn ninety_dead(server: &RedisServer) {
    let now = qctl::engine::now();
    let jobs: Vec<Planted> = (0..90)
        .map(|i| {
            let failed = if i % 3 == 0 {
                failure("exit 2", &format!("timeout after {i} ms"), 0, now)
            } else {
                failure("exit 1", "connection refused", 1, now)
            };
            Planted::job(
                &format!("job-{i:02}"),
                format!("data {i}").as_bytes(),
                1 + (i % 3) as i64,
                Some(failed),
                now - 90.0 + i as f64,
            )
        })
        .collect();
    plant(server, "mail", "dead", &jobs);
}

#[test]
fn in_a_browser_the_dead_tab_pages_groups_and_filters_list_what_dead_list_lists() {
    let server = RedisServer::start();
    ninety_dead(&server);
    support::hold_in_flight(&server, "mail");
    qctl(&server)
        .args(["limit", "mail", "--rate", "10/s"])
        .assert()
        .success();
    let web = Web::start(&server, &[]);
    let Some(browser) = support::browser::Browser::start(1280, 800) else {
        return;
    };
    let dead_ids = |args: &[&str]| {
        let mut all = vec!["dead", "list", "mail"];
        all.extend(args);
        ids(&cli_json(&server, &all))
    };

    // The dead tab, reached from the queue's page.
    browser.open(&format!("{}queues/mail", web.url));
    browser.wait("the consumers", |b| b.find("table.consumers").is_some());
    browser.screenshot("queue-1280x800");
    browser
        .element("nav.tabs a[href=\"/queues/mail/dead\"]")
        .click();
    browser.wait("the dead tab", |b| b.url().ends_with("/queues/mail/dead"));
    assert_eq!(shown_ids(&browser), dead_ids(&[]));
    assert_eq!(
        browser.text("#shown").as_deref(),
        Some("20 shown of 90 in mail:dead")
    );
    browser.screenshot("dead-1280x800");

    // The next page, and the one before.
    browser.element("a[rel=next]").click();
    browser.wait("the second page", |b| b.url().ends_with("?offset=20"));
    assert_eq!(shown_ids(&browser), dead_ids(&["--offset", "20"]));
    browser.element("a[rel=prev]").click();
    browser.wait("the first page", |b| b.url().ends_with("/queues/mail/dead"));
    assert_eq!(shown_ids(&browser), dead_ids(&[]));

    // A group's link lists its jobs.
    browser
        .element("nav.tabs a[href=\"/queues/mail/dead/groups\"]")
        .click();
    browser.wait("the groups", |b| b.find("a.group").is_some());
    let group = browser.element("a.group").text();
    browser.element("a.group").click();
    browser.wait("the group's jobs", |b| b.url().contains("group="));
    assert_eq!(shown_ids(&browser), dead_ids(&["--group", &group]));

    // The filter form, without script: a GET of the same page.
    browser.open(&format!("{}queues/mail/dead", web.url));
    browser.element("input[name=grep]").type_text("data 1");
    browser.element("input[name=min_attempts]").type_text("2");
    browser.element("form.filters button").click();
    browser.wait("the filtered page", |b| b.url().contains("grep=data+1"));
    assert_eq!(
        shown_ids(&browser),
        dead_ids(&["--grep", "data 1", "--min-attempts", "2"])
    );
    assert_eq!(
        browser.element("input[name=grep]").property("value"),
        "data 1"
    );
    // A bad value: the page says what is wrong.
    browser.open(&format!("{}queues/mail/dead?since=soon", web.url));
    let refusal = browser.text(".refusal").unwrap_or_default();
    assert!(
        refusal.starts_with("invalid value 'soon' for '--since <TIME>'"),
        "{refusal}"
    );
    let errors = page_errors(&browser);
    assert_eq!(
        errors.iter().filter(|e| !e.contains("400")).count(),
        0,
        "{errors:?}"
    );

    let Some(phone) = support::browser::Browser::start_mobile(390, 844) else {
        return;
    };
    phone.open(&format!("{}queues/mail", web.url));
    phone.wait("the consumers", |b| b.find("table.consumers").is_some());
    phone.screenshot("queue-390x844");
    phone.open(&format!("{}queues/mail/dead", web.url));
    phone.wait("the dead jobs", |b| b.find("table.jobs").is_some());
    phone.screenshot("dead-390x844");
    // The page fits the phone's width: only the tables scroll sideways.
    let overflow = phone.run_js("return document.documentElement.scrollWidth - window.innerWidth;");
    assert!(overflow.as_f64().is_some_and(|o| o <= 0.0), "{overflow}");
}

#[test]
fn in_a_browser_hostile_records_show_as_text_and_run_nothing() {
    let server = RedisServer::start();
    plant_hostile(&server);
    let web = Web::start(&server, &[]);
    let Some(browser) = support::browser::Browser::start(1280, 800) else {
        return;
    };
    for path in [
        "queues/q",
        "queues/q/dead",
        "queues/q/dead?grep=%3Cscript",
        "queues/q/dead/groups",
        "queues/q/inflight",
    ] {
        browser.open(&format!("{}{path}", web.url));
        browser.wait("the page", |b| b.find("main h1").is_some());
        assert_eq!(
            browser.run_js("return typeof window.pwned;"),
            "undefined",
            "{path}"
        );
        assert_eq!(
            browser.run_js("return document.images.length;"),
            0,
            "{path}"
        );
        let text = browser.body_text();
        assert!(!text.contains('\u{202e}'), "{path}: {text}");
        let errors = page_errors(&browser);
        assert!(errors.is_empty(), "{path}: {errors:?}");
    }
    browser.open(&format!("{}queues/q/dead", web.url));
    let text = browser.body_text();
    for shown in [
        PWN_SCRIPT,
        PWN_IMG,
        "rtl\\u{202e}gpj.exe/a b",
        "nul\\u{0}id",
        "raw</textarea>",
    ] {
        assert!(text.contains(shown), "{shown:?} not in {text}");
    }
    // The link of an id holding `/` takes the route that id, whole.
    let href = browser
        .element("table.jobs tbody tr:nth-child(3) th a")
        .property("href");
    assert!(
        href.as_str()
            .is_some_and(|h| h.ends_with("/queues/q/jobs/rtl%E2%80%AEgpj.exe%2Fa%20b")),
        "{href}"
    );
    browser.open(&format!("{}queues/q", web.url));
    let text = browser.body_text();
    assert!(
        text.contains(PWN_IMG) && text.contains(PWN_SCRIPT),
        "{text}"
    );
    assert_eq!(browser.run_js("return typeof window.pwned;"), "undefined");
}

#[test]
fn a_queue_page_says_when_redis_cannot_be_read_and_reads_it_again_when_it_is_back() {
    let mut server = RedisServer::start();
    enqueue(&server, &["mail", "x"]);
    let web = Web::start(&server, &["--interval", "300ms"]);
    assert_eq!(web.get("/api/queues/mail/ready").json()["total"], 1);
    server.stop();
    for path in [
        "/queues/mail",
        "/queues/mail/ready",
        "/queues/mail/dead/groups",
    ] {
        let page = web.get(path);
        assert_eq!(page.status, 503, "{path}: {page:?}");
        assert!(
            page.body.contains("cannot reach Redis"),
            "{path}: {}",
            page.body
        );
        let api = web.get(&format!("/api{path}"));
        assert_eq!(api.status, 503, "{path}: {api:?}");
        assert!(api.json()["error"]
            .as_str()
            .is_some_and(|e| e.contains("cannot reach Redis")));
    }
    server.restart();
    enqueue(&server, &["mail", "back"]);
    let mut total = Value::Null;
    assert!(
        wait_until(LIMIT, || {
            let reply = web.get("/api/queues/mail/ready");
            total = if reply.status == 200 {
                reply.json()["total"].clone()
            } else {
                Value::Null
            };
            total == 1
        }),
        "{total}"
    );
    assert_eq!(web.get("/queues/mail").status, 200);
}

#[test]
fn a_key_of_the_wrong_type_is_said_where_it_is_read_in_the_cli_words() {
    let server = RedisServer::start();
    enqueue(&server, &["wt", "x"]);
    let _: () = server.cmd(&[b"SET", b"wt:dead", b"not a set"]);
    let web = Web::start(&server, &[]);
    // The summary shows what it can read, and says what Redis refused.
    let api = web.get("/api/queues/wt");
    assert_eq!(api.status, 200, "{api:?}");
    let api = api.json();
    assert_eq!(api["events"], Value::Null);
    let error = api["errors"]["events"].as_str().unwrap_or_default();
    assert!(
        error.contains("WRONGTYPE") && error.contains("wt:dead"),
        "{api}"
    );
    assert_eq!(api["consumers"], serde_json::json!([]));
    assert_eq!(api["stats"]["wrong_type"], serde_json::json!(["wt:dead"]));
    let page = web.get("/queues/wt").body;
    assert!(page.contains("WRONGTYPE"), "{page}");
    // The list itself cannot be read: 502, in the words the CLI says it with.
    let ran = run(qctl(&server).args(["dead", "list", "wt"]));
    let api = web.get("/api/queues/wt/dead");
    assert_eq!(api.status, 502, "{api:?}");
    let error = api.json()["error"].as_str().unwrap_or_default().to_string();
    assert!(
        error.contains("WRONGTYPE") && ran.err.contains(&error),
        "{error:?} in {ran:?}"
    );
    assert_eq!(web.get("/queues/wt/dead").status, 502);
    assert_eq!(web.get("/api/queues/wt/ready").status, 200);
}

/// The request line and headers as they come, without a client library that would mend them.
fn raw_request(port: u16, head: &str) -> String {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    stream.write_all(head.as_bytes()).expect("write");
    let mut reply = Vec::new();
    let _ = stream.read_to_end(&mut reply);
    String::from_utf8_lossy(&reply).into_owned()
}

#[test]
fn a_request_naming_another_host_in_its_target_or_a_second_host_header_is_refused() {
    let server = RedisServer::start();
    fill(&server);
    let web = Web::start(&server, &[]);
    let port = web.port;
    let own = format!("127.0.0.1:{port}");
    for head in [
        format!("GET http://evil.example/api/overview HTTP/1.1\r\nHost: {own}\r\nConnection: close\r\n\r\n"),
        format!("GET http://evil.example:{port}/api/overview HTTP/1.1\r\nHost: {own}\r\nConnection: close\r\n\r\n"),
        format!("GET /api/overview HTTP/1.1\r\nHost: {own}\r\nHost: evil.example\r\nConnection: close\r\n\r\n"),
        format!("GET /api/overview HTTP/1.1\r\nHost: evil.example\r\nHost: {own}\r\nConnection: close\r\n\r\n"),
        "GET /api/overview HTTP/1.0\r\n\r\n".to_string(),
    ] {
        let reply = raw_request(port, &head);
        assert!(
            reply.starts_with("HTTP/1.1 421") || reply.starts_with("HTTP/1.0 421"),
            "{head:?}: {reply}"
        );
        assert!(!reply.contains("mail"), "{head:?}: {reply}");
    }
    let reply = raw_request(
        port,
        &format!(
            "GET http://{own}/api/overview HTTP/1.1\r\nHost: {own}\r\nConnection: close\r\n\r\n"
        ),
    );
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    assert!(reply.contains("\"mail\""), "{reply}");
}

/// The session cookie a page of `web` sets and the token of its pause or resume form.
fn session_and_token(web: &Web, queue_path: &str) -> (String, String) {
    let reply = raw_request(
        web.port,
        &format!(
            "GET {queue_path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\n\r\n",
            web.port
        ),
    );
    let cookie_line = reply
        .lines()
        .find(|l| l.to_ascii_lowercase().starts_with("set-cookie:"))
        .unwrap_or_else(|| panic!("no cookie set: {reply}"));
    for attribute in ["HttpOnly", "SameSite=Strict", "Path=/"] {
        assert!(cookie_line.contains(attribute), "{cookie_line}");
    }
    let cookie = cookie_line
        .split_once(':')
        .map(|(_, v)| v.trim())
        .and_then(|v| v.split(';').next())
        .expect("a cookie")
        .to_string();
    let token = reply
        .split("name=\"token\" value=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap_or_else(|| panic!("no token in the page: {reply}"))
        .to_string();
    (cookie, token)
}

/// The session cookie (`name=value`) the page at `path` of `web` sets.
fn cookie_of(web: &Web, path: &str) -> String {
    raw_request(
        web.port,
        &format!(
            "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\n\r\n",
            web.port
        ),
    )
    .lines()
    .find_map(|l| {
        l.strip_prefix("set-cookie: ")
            .map(|v| v.split(';').next().unwrap_or("").to_string())
    })
    .expect("a cookie")
}

/// A form post to `path` with these headers and this body; the status.
fn post(web: &Web, path: &str, headers: &[String], body: &str) -> (u16, String) {
    let mut head = format!(
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: {}\r\n",
        web.port,
        body.len()
    );
    for h in headers {
        head.push_str(h);
        head.push_str("\r\n");
    }
    head.push_str("\r\n");
    head.push_str(body);
    let reply = raw_request(web.port, &head);
    let status = reply
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status: {reply}"));
    (status, reply)
}

fn paused(server: &RedisServer, queue: &str) -> bool {
    let n: i64 = server.cmd(&[b"EXISTS", format!("{queue}:paused").as_bytes()]);
    n == 1
}

#[test]
fn a_change_needs_the_pages_origin_session_and_token_and_read_only_refuses_every_one() {
    let server = RedisServer::start();
    fill(&server);
    let web = Web::start(&server, &[]);
    let capabilities = web.get("/api/capabilities").json();
    assert_eq!(capabilities["read_only"], false, "{capabilities}");
    assert_eq!(
        capabilities["changes"],
        json!([
            "pause", "resume", "requeue", "delete", "run-now", "orphans", "cancel", "quiet",
            "stop", "resize"
        ])
    );
    let (cookie, token) = session_and_token(&web, "/queues/mail");
    let origin = format!("Origin: http://127.0.0.1:{}", web.port);
    let with_cookie = format!("Cookie: {cookie}");
    let body = format!("token={token}");
    let (other_cookie, _) = session_and_token(&web, "/queues/mail");
    let refused: [(&str, Vec<String>, String); 7] = [
        ("no Origin", vec![with_cookie.clone()], body.clone()),
        (
            "another site's Origin",
            vec![with_cookie.clone(), "Origin: http://evil.example".into()],
            body.clone(),
        ),
        (
            "another port's Origin",
            vec![
                with_cookie.clone(),
                format!("Origin: http://127.0.0.1:{}", web.port + 1),
            ],
            body.clone(),
        ),
        ("no cookie", vec![origin.clone()], body.clone()),
        (
            "another session's cookie",
            vec![origin.clone(), format!("Cookie: {other_cookie}")],
            body.clone(),
        ),
        (
            "no token",
            vec![origin.clone(), with_cookie.clone()],
            String::new(),
        ),
        (
            "a cross-site fetch",
            vec![
                origin.clone(),
                with_cookie.clone(),
                "Sec-Fetch-Site: cross-site".into(),
            ],
            body.clone(),
        ),
    ];
    for (what, headers, body) in &refused {
        let (status, reply) = post(&web, "/queues/mail/pause", headers, body);
        assert_eq!(status, 403, "{what}: {reply}");
        assert!(!paused(&server, "mail"), "{what}: paused");
    }
    let (status, reply) = post(
        &web,
        "/queues/mail/pause",
        &[origin.clone(), with_cookie.clone()],
        &body,
    );
    assert_eq!(status, 200, "{reply}");
    assert!(
        reply.contains("queue &quot;mail&quot; is paused"),
        "{reply}"
    );
    assert!(paused(&server, "mail"));
    let (_, reply) = post(
        &web,
        "/queues/mail/pause",
        &[origin.clone(), with_cookie.clone()],
        &body,
    );
    assert!(reply.contains("was already paused"), "{reply}");
    // The page now offers to resume it, as `qctl stats` has it paused.
    let (cookie, token) = session_and_token(&web, "/queues/mail");
    let (status, reply) = post(
        &web,
        "/queues/mail/resume",
        &[origin.clone(), format!("Cookie: {cookie}")],
        &format!("token={token}"),
    );
    assert_eq!(status, 200, "{reply}");
    assert!(reply.contains("is running"), "{reply}");
    assert!(!paused(&server, "mail"));
    // An unknown queue is not created by a pause.
    let (status, reply) = post(
        &web,
        "/queues/nosuch/pause",
        &[origin.clone(), with_cookie.clone()],
        &body,
    );
    assert_eq!(status, 404, "{reply}");
    assert!(!paused(&server, "nosuch"));

    // Read-only: no form, every change refused however right the request.
    let ro = Web::start(&server, &["--read-only"]);
    let capabilities = ro.get("/api/capabilities").json();
    assert_eq!(capabilities["read_only"], true, "{capabilities}");
    assert_eq!(capabilities["changes"], json!([]));
    let page = ro.get("/queues/mail");
    assert!(
        !page.body.contains("<form class=\"change\""),
        "{}",
        page.body
    );
    assert!(
        page.body.contains("read-only (--read-only)"),
        "{}",
        page.body
    );
    // A token of the server that allows changes, a cookie of its own: refused all the same.
    let ro_cookie = cookie_of(&ro, "/queues/mail");
    for path in ["/queues/mail/pause", "/queues/mail/resume"] {
        let (status, reply) = post(
            &ro,
            path,
            &[
                format!("Origin: http://127.0.0.1:{}", ro.port),
                format!("Cookie: {ro_cookie}"),
            ],
            &body,
        );
        assert_eq!(status, 403, "{reply}");
        assert!(reply.contains("read-only"), "{reply}");
    }
    assert!(!paused(&server, "mail"));
}

/// Serves `html` to every request on a port of its own, as another site would.
fn other_site(html: String) -> u16 {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut buf = [0u8; 4096];
            let _ = stream.read(&mut buf);
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{html}",
                html.len()
            );
        }
    });
    port
}

#[test]
fn in_a_browser_the_queue_page_pauses_and_resumes_and_another_sites_form_changes_nothing() {
    let server = RedisServer::start();
    fill(&server);
    let web = Web::start(&server, &[]);
    let Some(browser) = Browser::start_resolving(1280, 800, &["evil.test"]) else {
        return;
    };
    browser.open(&format!("{}queues/mail", web.url));
    browser.element("form.change button").click();
    browser.wait("the pause's answer", |b| {
        b.text("p.done").is_some_and(|t| t.contains("is paused"))
    });
    assert!(paused(&server, "mail"));
    let stats = run(qctl(&server).args(["--json", "stats", "mail"]));
    assert!(stats.stdout().contains("\"paused\":true"), "{stats:?}");
    // Another site, open in the same browser that holds the session, posts a form to it:
    // from another name (cross-site: no cookie) and from another port of the same address
    // (same site: the cookie goes, its Origin does not match).
    let form = |target: &str, id: &str| {
        format!(
            "<!doctype html><title>evil</title><form id=f method=post action=\"{target}\"><input name=token value=\"{id}\"></form><script>document.getElementById('f').submit()</script>"
        )
    };
    let resume = format!("{}queues/mail/resume", web.url);
    for host in ["evil.test", "127.0.0.1"] {
        let port = other_site(form(&resume, "guessed"));
        browser.open(&format!("http://{host}:{port}/"));
        browser.wait("the other site's post to be answered", |b| {
            b.url().contains("/queues/mail/resume")
        });
        let text = browser.body_text();
        assert!(text.contains("Not changed"), "{host}: {text}");
        assert!(paused(&server, "mail"), "{host}: resumed by another site");
    }
    // The page's own form still works.
    browser.open(&format!("{}queues/mail", web.url));
    browser.element("form.change button").click();
    browser.wait("the resume's answer", |b| {
        b.text("p.done").is_some_and(|t| t.contains("is running"))
    });
    assert!(!paused(&server, "mail"));
    browser.screenshot("queue-resumed-1280x800");
}

#[test]
fn a_redis_user_that_may_not_pause_gets_no_pause_button_but_the_reason() {
    let server = RedisServer::start();
    fill(&server);
    let _: () = server.cmd(&[
        b"ACL",
        b"SETUSER",
        b"viewer",
        b"on",
        b">viewer-pw",
        b"~*",
        b"&*",
        b"+@all",
        b"-set",
        b"-del",
        b"-unlink",
    ]);
    let mut cmd = qctl_process(&server);
    cmd.args(["--user", "viewer", "web", "--listen", "127.0.0.1:0"])
        .env("QCTL_REDIS_PASSWORD", "viewer-pw")
        .env_remove("QCTL_REDIS_PASSWORD_FILE");
    let web = Web::spawn(cmd);
    let page = web.get("/queues/mail");
    assert_eq!(page.status, 200, "{page:?}");
    assert!(
        !page.body.contains("<form class=\"change\""),
        "{}",
        page.body
    );
    assert!(
        page.body
            .contains("the Redis user qctl web reads with may not pause this queue")
            && page.body.contains("mail:paused"),
        "{}",
        page.body
    );
    // The admin's page has the button.
    let admin = Web::start(&server, &[]);
    let page = admin.get("/queues/mail");
    assert!(
        page.body.contains("<form class=\"change\""),
        "{}",
        page.body
    );
    assert!(!page.body.contains("may not pause"), "{}", page.body);
}

/// Queue `mail` with 3 dead jobs of one cause (`a1`..`a3`: smtp down), 2 of another
/// (`b1`, `b2`: bad address) and one ready job; the fingerprints of the two groups.
fn two_causes(server: &RedisServer) -> (String, String) {
    for data in ["a1", "b1", "a2", "b2", "a3"] {
        enqueue(server, &["mail", "--id", data, data]);
    }
    qctl(server)
        .args(["consume", "mail", "--drain", "--max-retries", "0"])
        .args(FAST)
        .args([
            "--",
            "sh",
            "-c",
            "read d; case $d in a*) echo 'smtp down' >&2; exit 4;; *) echo 'bad address' >&2; exit 5;; esac",
        ])
        .assert()
        .code(7);
    enqueue(server, &["mail", "--id", "r1", "ready"]);
    let groups = run(qctl(server).args(["--json", "dead", "groups", "mail"]));
    let mut smtp = String::new();
    let mut bad = String::new();
    let doc: Value = serde_json::from_slice(&groups.out).expect("JSON");
    for g in doc["groups"].as_array().expect("groups") {
        let fp = g["fingerprint"].as_str().unwrap_or_default().to_string();
        if g["pattern"].as_str().unwrap_or_default().contains("smtp") {
            smtp = fp;
        } else {
            bad = fp;
        }
    }
    assert!(!smtp.is_empty() && !bad.is_empty(), "{groups:?}");
    (smtp, bad)
}

fn ready_ids(server: &RedisServer) -> Vec<String> {
    server.cmd(&[b"LRANGE", b"mail:active", b"0", b"-1"])
}

fn dead_ids(server: &RedisServer) -> Vec<String> {
    let mut ids: Vec<String> = server.cmd(&[b"ZRANGE", b"mail:dead", b"0", b"-1"]);
    ids.sort();
    ids
}

/// The data of job `id`, as `qctl dead show --json` reads it from its record.
fn data_of(server: &RedisServer, id: &str) -> String {
    let shown = run(qctl(server).args(["--json", "dead", "show", "mail", id]));
    let doc: Value = serde_json::from_slice(&shown.out).expect("JSON");
    doc["data"].as_str().unwrap_or_default().to_string()
}

#[test]
fn a_bulk_change_from_the_page_previews_changing_nothing_then_does_what_the_cli_does() {
    let server = RedisServer::start();
    let (smtp, _bad) = two_causes(&server);
    let web = Web::start(&server, &[]);
    let origin = format!("Origin: http://127.0.0.1:{}", web.port);
    let (cookie, token) = session_and_token(&web, "/queues/mail/dead/groups");
    let headers = [origin.clone(), format!("Cookie: {cookie}")];
    // The groups page offers each group; the list offers the selected and every matching.
    let page = web.get(&format!("/queues/mail/dead?group={smtp}"));
    assert!(
        page.body.contains("name=\"id\" value=\"a1\""),
        "{}",
        page.body
    );
    assert!(
        page.body.contains("Requeue every job matching"),
        "{}",
        page.body
    );
    // The preview: what the CLI's preview says, and nothing changed.
    let group = format!("token={token}&action=requeue&all=1&group={smtp}");
    let (status, reply) = post(&web, "/queues/mail/dead/preview", &headers, &group);
    assert_eq!(status, 200, "{reply}");
    assert!(
        reply.contains("will requeue 3 jobs of mail:dead, e.g."),
        "{reply}"
    );
    assert!(reply.contains("requeue 3 jobs of mail:dead?"), "{reply}");
    assert!(
        reply.contains(&format!("dead requeue mail --group {smtp} --yes")),
        "{reply}"
    );
    assert_eq!(dead_ids(&server).len(), 5);
    assert_eq!(ready_ids(&server), ["r1"]);
    // Confirmed: exactly the group's jobs are ready, after r1, with their data intact.
    let (status, reply) = post(&web, "/queues/mail/dead/apply", &headers, &group);
    assert_eq!(status, 200, "{reply}");
    assert!(
        reply.contains("requeued 3, not found 0, skipped 0"),
        "{reply}"
    );
    let mut ready = ready_ids(&server);
    assert_eq!(ready.remove(0), "r1");
    ready.sort();
    assert_eq!(ready, ["a1", "a2", "a3"]);
    assert_eq!(dead_ids(&server), ["b1", "b2"]);
    for id in ["a1", "a2", "a3"] {
        let active = run(qctl(&server).args(["--json", "dead", "show", "mail", id]));
        let doc: Value = serde_json::from_slice(&active.out).expect("JSON");
        assert_eq!(doc["data"], id, "{active:?}");
        assert_eq!(doc["attempt"], 0, "{active:?}");
    }
    // Ids ticked, one of them not dead: done and not found, as the CLI says.
    let ids = format!("token={token}&action=delete&id=b1&id=a1");
    let (_, reply) = post(&web, "/queues/mail/dead/preview", &headers, &ids);
    assert!(
        reply.contains("job &quot;a1&quot; is not in mail:dead; skipped"),
        "{reply}"
    );
    assert!(reply.contains("will delete 1 job of mail:dead"), "{reply}");
    let (_, reply) = post(&web, "/queues/mail/dead/apply", &headers, &ids);
    assert!(
        reply.contains("deleted 1, not found 1, skipped 0"),
        "{reply}"
    );
    assert_eq!(dead_ids(&server), ["b2"]);
    assert_eq!(data_of(&server, "b2"), "b2");
    // Ids and a filter together, an action the list has not, nothing named: refused.
    for (body, words) in [
        (
            format!("token={token}&action=delete&id=b2&grep=x"),
            "give ids or filters, not both",
        ),
        (
            format!("token={token}&action=run-now&id=b2"),
            "no action \"run-now\" for dead jobs",
        ),
        (format!("token={token}&action=delete"), "name the jobs"),
        (
            format!("token={token}&action=delete&all=1&since=soon"),
            "invalid value 'soon'",
        ),
    ] {
        let (status, reply) = post(&web, "/queues/mail/dead/apply", &headers, &body);
        assert_eq!(status, 400, "{body}: {reply}");
        assert!(
            reply.contains(&words.replace('"', "&quot;")),
            "{body}: {reply}"
        );
    }
    assert_eq!(dead_ids(&server), ["b2"]);
    // Without the token, or from another origin: nothing.
    let forged = "action=delete&all=1";
    let (status, _) = post(&web, "/queues/mail/dead/apply", &headers, forged);
    assert_eq!(status, 403);
    let (status, _) = post(
        &web,
        "/queues/mail/dead/apply",
        &[
            "Origin: http://evil.example".into(),
            format!("Cookie: {cookie}"),
        ],
        &format!("token={token}&{forged}"),
    );
    assert_eq!(status, 403);
    assert_eq!(dead_ids(&server), ["b2"]);
    // The ready list: delete only.
    let (_, reply) = post(
        &web,
        "/queues/mail/ready/apply",
        &headers,
        &format!("token={token}&action=delete&id=a2"),
    );
    assert!(
        reply.contains("deleted 1, not found 0, skipped 0"),
        "{reply}"
    );
    assert!(!ready_ids(&server).contains(&"a2".to_string()));
}

#[test]
fn read_only_offers_no_bulk_change_and_refuses_a_forged_one() {
    let server = RedisServer::start();
    let (smtp, _) = two_causes(&server);
    let web = Web::start(&server, &["--read-only"]);
    for path in [
        "/queues/mail/dead".to_string(),
        format!("/queues/mail/dead?group={smtp}"),
        "/queues/mail/dead/groups".to_string(),
        "/queues/mail/jobs/a1".to_string(),
        "/queues/mail/ready".to_string(),
    ] {
        let page = web.get(&path);
        assert_eq!(page.status, 200, "{path}");
        assert!(
            !page.body.contains("<form class=\"change"),
            "{path}: {}",
            page.body
        );
        assert!(!page.body.contains("type=\"checkbox\""), "{path}");
    }
    let cookie = cookie_of(&web, "/queues/mail/dead");
    for path in ["/queues/mail/dead/preview", "/queues/mail/dead/apply"] {
        let (status, reply) = post(
            &web,
            path,
            &[
                format!("Origin: http://127.0.0.1:{}", web.port),
                format!("Cookie: {cookie}"),
            ],
            &format!("token=00&action=requeue&all=1&group={smtp}"),
        );
        assert_eq!(status, 403, "{reply}");
        assert!(reply.contains("read-only"), "{reply}");
    }
    assert_eq!(dead_ids(&server).len(), 5);
    assert_eq!(ready_ids(&server), ["r1"]);
}

#[test]
fn in_a_browser_a_failure_group_is_requeued_from_the_page_and_read_only_has_no_button() {
    let server = RedisServer::start();
    let (smtp, _) = two_causes(&server);
    let web = Web::start(&server, &[]);
    let Some(browser) = Browser::start(1280, 800) else {
        return;
    };
    browser.open(&format!("{}queues/mail/dead/groups", web.url));
    // The group of smtp down: its row's detail holds its form.
    let forms = browser.find_all("tr.detail form.change");
    assert_eq!(forms.len(), 2, "{}", browser.body_text());
    let smtp_index = browser
        .find_all("table.groups th a.group")
        .iter()
        .position(|a| a.text() == smtp)
        .expect("the smtp group listed");
    let buttons = browser.find_all("tr.detail form.change button[value=requeue]");
    buttons[smtp_index].click();
    browser.wait("the preview", |b| {
        b.text("p.preview")
            .is_some_and(|t| t.contains("will requeue 3 jobs of mail:dead"))
    });
    assert_eq!(dead_ids(&server).len(), 5, "the preview changed something");
    browser.screenshot("bulk-confirm-1280x800");
    browser.element("form.confirm button[type=submit]").click();
    browser.wait("the change's answer", |b| {
        b.text("p.done")
            .is_some_and(|t| t.contains("requeued 3, not found 0, skipped 0"))
    });
    let mut ready = ready_ids(&server);
    assert_eq!(ready.remove(0), "r1");
    ready.sort();
    assert_eq!(ready, ["a1", "a2", "a3"]);
    assert_eq!(dead_ids(&server), ["b1", "b2"]);
    // Selected on the list: tick b1, delete it.
    browser.open(&format!("{}queues/mail/dead", web.url));
    browser.element("input[type=checkbox][value=b1]").click();
    browser
        .element("form#selected button[value=delete]")
        .click();
    browser.wait("the preview of the selection", |b| {
        b.text("p.preview")
            .is_some_and(|t| t.contains("will delete 1 job of mail:dead"))
    });
    browser.element("form.confirm button[type=submit]").click();
    browser.wait("the deletion", |b| {
        b.text("p.done").is_some_and(|t| t.contains("deleted 1"))
    });
    assert_eq!(dead_ids(&server), ["b2"]);

    let ro = Web::start(&server, &["--read-only"]);
    browser.open(&format!("{}queues/mail/dead/groups", ro.url));
    assert!(
        browser.find("form.change").is_none(),
        "{}",
        browser.body_text()
    );
    browser.open(&format!("{}queues/mail/jobs/b2", ro.url));
    assert!(browser.find("form.change").is_none());
    // A forged post from the page itself (its script, without a token): refused.
    browser.run_js(&format!(
        "fetch('/queues/mail/dead/apply', {{method: 'POST', headers: {{'Content-Type': 'application/x-www-form-urlencoded'}}, body: 'action=delete&all=1&group={smtp}'}}).then(r => {{ window.forged = r.status; }});"
    ));
    browser.wait("the forged post's answer", |b| {
        b.run_js("return window.forged !== undefined;") == json!(true)
    });
    assert_eq!(browser.run_js("return window.forged;"), json!(403));
    assert_eq!(dead_ids(&server), ["b2"]);
}

#[test]
fn a_job_whose_id_holds_slashes_pluses_percents_and_bidi_is_changed_from_its_own_page() {
    let server = RedisServer::start();
    let id = "x/ y+z%41\u{202e}\"<b>";
    enqueue(&server, &["mail", "--id", id, "data"]);
    enqueue(&server, &["mail", "--id", "other", "data"]);
    let web = Web::start(&server, &[]);
    let path = format!(
        "/queues/mail/jobs/{}",
        url::form_urlencoded::byte_serialize(id.as_bytes())
            .collect::<String>()
            .replace('+', "%20")
    );
    let (cookie, token) = session_and_token(&web, &path);
    let page = raw_request(
        web.port,
        &format!(
            "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\n\r\n",
            web.port
        ),
    );
    let value = page
        .split("name=\"id\" value=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap_or_else(|| panic!("no id field: {page}"))
        .to_string();
    assert!(
        !value.contains('\u{202e}') && !value.contains('/'),
        "{value}"
    );
    let headers = [
        format!("Origin: http://127.0.0.1:{}", web.port),
        format!("Cookie: {cookie}"),
    ];
    // As a browser posts the field: form-encoded.
    let body = format!(
        "token={token}&action=delete&id={}",
        url::form_urlencoded::byte_serialize(value.as_bytes()).collect::<String>()
    );
    let (status, reply) = post(&web, "/queues/mail/ready/preview", &headers, &body);
    assert_eq!(status, 200, "{reply}");
    assert!(
        reply.contains("will delete 1 job of mail:active"),
        "{reply}"
    );
    assert!(!reply.contains('\u{202e}'), "{reply}");
    let (_, reply) = post(&web, "/queues/mail/ready/apply", &headers, &body);
    assert!(
        reply.contains("deleted 1, not found 0, skipped 0"),
        "{reply}"
    );
    assert_eq!(ready_ids(&server), ["other"]);
}

/// The descriptor of the socket `pid` holds for the TCP connection from local port `from` to
/// its port `to` on loopback, found by the socket's inode in /proc.
fn socket_of(pid: i32, to: u16, from: u16) -> Option<i32> {
    let local = format!("0100007F:{to:04X}");
    let remote = format!("0100007F:{from:04X}");
    let table = std::fs::read_to_string(format!("/proc/{pid}/net/tcp")).ok()?;
    let inode = table.lines().skip(1).find_map(|line| {
        let fields: Vec<&str> = line.split_whitespace().collect();
        (fields.get(1) == Some(&local.as_str()) && fields.get(2) == Some(&remote.as_str()))
            .then(|| fields.get(9).map(|s| s.to_string()))
            .flatten()
    })?;
    let wanted = format!("socket:[{inode}]");
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .ok()?
        .flatten()
        .find(|entry| {
            std::fs::read_link(entry.path()).is_ok_and(|target| target.to_str() == Some(&wanted))
        })
        .and_then(|entry| entry.file_name().to_str()?.parse().ok())
}

/// Whether TCP_NODELAY is set on descriptor `fd` of process `pid` (a copy of it taken with
/// pidfd_getfd, which a parent may do to its child).
fn nodelay_of(pid: i32, fd: i32) -> bool {
    // SAFETY: plain system calls on descriptors this function opens and closes; the option
    // is read into a c_int of the size given.
    unsafe {
        let pidfd = libc::syscall(libc::SYS_pidfd_open, pid, 0) as i32;
        assert!(
            pidfd >= 0,
            "pidfd_open: {}",
            std::io::Error::last_os_error()
        );
        let copy = libc::syscall(libc::SYS_pidfd_getfd, pidfd, fd, 0) as i32;
        assert!(
            copy >= 0,
            "pidfd_getfd: {}",
            std::io::Error::last_os_error()
        );
        let mut value: libc::c_int = 0;
        let mut len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
        let rc = libc::getsockopt(
            copy,
            libc::IPPROTO_TCP,
            libc::TCP_NODELAY,
            (&mut value as *mut libc::c_int).cast(),
            &mut len,
        );
        assert_eq!(rc, 0, "getsockopt: {}", std::io::Error::last_os_error());
        libc::close(copy);
        libc::close(pidfd);
        value != 0
    }
}

#[test]
fn every_connection_is_served_with_nodelay_so_a_page_written_in_parts_is_not_held_back() {
    // A page of jobs is written as it is read, in parts; with Nagle's algorithm on the
    // connection each part after the first waited for the client's delayed acknowledgement
    // (40 ms a request on a connection kept open, as bench/web measured).
    use std::io::{Read, Write};
    let server = RedisServer::start();
    fill(&server);
    let web = Web::start(&server, &[]);
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", web.port)).expect("connect");
    let from = stream.local_addr().expect("local address").port();
    for _ in 0..2 {
        write!(
            stream,
            "GET /api/queues/mail/dead HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n\r\n",
            web.port
        )
        .expect("send a request");
        // The chunked answer ends with its last, empty chunk.
        let mut answer = Vec::new();
        let mut buf = [0u8; 4096];
        while !answer.ends_with(b"0\r\n\r\n") {
            let n = stream.read(&mut buf).expect("read the answer");
            assert!(n > 0, "closed: {}", String::from_utf8_lossy(&answer));
            answer.extend_from_slice(&buf[..n]);
        }
        let text = String::from_utf8_lossy(&answer);
        assert!(text.starts_with("HTTP/1.1 200"), "{text}");
        assert!(text.contains("\"total\":1"), "{text}");
    }
    let pid = web.process.pid();
    let fd = socket_of(pid, web.port, from)
        .unwrap_or_else(|| panic!("no socket of qctl web for the connection from port {from}"));
    assert!(
        nodelay_of(pid, fd),
        "qctl web serves the connection with Nagle's algorithm on (TCP_NODELAY not set)"
    );
}

/// `(where, id, matched)` of each job in `jobs`, sorted.
fn found_of(jobs: &[Value]) -> Vec<(String, String, String)> {
    let mut out: Vec<(String, String, String)> = jobs
        .iter()
        .map(|j| {
            (
                j["where"].as_str().unwrap_or_default().to_string(),
                j["id"].as_str().unwrap_or_default().to_string(),
                j["matched"].to_string(),
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn the_search_page_and_its_api_find_what_qctl_find_finds() {
    let server = RedisServer::start();
    let (_smtp, _bad) = two_causes(&server);
    enqueue(
        &server,
        &["mail", "--in", "1h", "--id", "later", "smtp later"],
    );
    let web = Web::start(&server, &[]);
    for (query, args) in [
        ("text=smtp", vec!["smtp"]),
        ("text=a2", vec!["a2"]),
        ("text=smtp&in=scheduled", vec!["smtp", "--in", "scheduled"]),
        (
            "text=smtp&in=dead,ready&limit=2",
            vec!["smtp", "--in", "dead,ready", "--limit", "2"],
        ),
        ("text=b&max_scan=1", vec!["b", "--max-scan", "1"]),
    ] {
        let cli = run(qctl(&server).args(["find", "mail", "--jsonl"]).args(&args));
        let expected: Vec<Value> = cli
            .stdout()
            .lines()
            .map(|l| serde_json::from_str(l).expect("JSON"))
            .collect();
        let api = web.get(&format!("/api/queues/mail/find?{query}"));
        assert_eq!(api.status, 200, "{query}: {api:?}");
        let answer = api.json();
        let jobs = answer["jobs"].as_array().expect("jobs").clone();
        assert_eq!(found_of(&jobs), found_of(&expected), "{query}");
        // The closing line of qctl find, in the page and the API.
        let closing = cli.err.lines().last().unwrap_or_default().to_string();
        assert!(
            closing.ends_with(answer["searched"].as_str().unwrap_or("?")),
            "{query}: {closing} / {answer}"
        );
        let page = web.get(&format!("/queues/mail/find?{query}"));
        assert_eq!(page.status, 200, "{query}");
        assert!(
            page.body.contains(&closing.replace('"', "&quot;")),
            "{query}: {closing}: {}",
            page.body
        );
        for job in &jobs {
            let id = job["id"].as_str().unwrap_or_default();
            assert!(
                page.body.contains(&format!("/queues/mail/jobs/{id}\"")),
                "{id}"
            );
        }
    }
    // Every queue page has the box; a bad value is refused in the CLI's words.
    let summary = web.get("/queues/mail");
    assert!(
        summary.body.contains("action=\"/queues/mail/find\""),
        "{}",
        summary.body
    );
    let bad = web.get("/api/queues/mail/find?text=x&in=everywhere");
    assert_eq!(bad.status, 400);
    assert!(
        bad.body.contains("invalid value 'everywhere'"),
        "{}",
        bad.body
    );
    let none = web.get("/api/queues/mail/find?text=nothing-holds-this");
    assert_eq!(none.json()["found"], 0);
    let page = web.get("/queues/mail/find?text=nothing-holds-this");
    assert!(
        page.body.contains("nothing found; searched"),
        "{}",
        page.body
    );
}

#[test]
fn a_queue_page_shows_the_changes_qctl_made_as_tail_does() {
    let server = RedisServer::start();
    qctl(&server)
        .args(["enqueue", "mail", "--id", "j1", "x"])
        .assert()
        .success();
    qctl(&server)
        .args(["active", "delete", "mail", "j1", "--yes"])
        .assert()
        .success();
    qctl(&server).args(["pause", "mail"]).assert().success();
    let web = Web::start(&server, &[]);
    let api = web.get("/api/queues/mail").json();
    let changes: Vec<&Value> = api["events"]
        .as_array()
        .unwrap_or_else(|| panic!("{api}"))
        .iter()
        .filter(|e| e["event"] == "change")
        .collect();
    let actions: Vec<&Value> = changes.iter().map(|e| &e["action"]).collect();
    assert_eq!(actions, [&json!("active delete"), &json!("pause")], "{api}");
    assert_eq!(changes[0]["sample"], json!(["j1"]), "{api}");
    let page = web.get("/queues/mail");
    assert_eq!(page.status, 200);
    assert!(
        page.body.contains("active delete by ") && page.body.contains("1 done; e.g. j1"),
        "{}",
        page.body
    );
}

#[test]
fn in_a_browser_the_search_box_finds_a_job_by_a_word_in_its_data() {
    let server = RedisServer::start();
    two_causes(&server);
    enqueue(
        &server,
        &["mail", "--id", "needle-job", "<b>order 4711</b>"],
    );
    let web = Web::start(&server, &[]);
    let Some(browser) = Browser::start(1280, 800) else {
        return;
    };
    browser.open(&format!("{}queues/mail", web.url));
    let field = browser.element("form.find input[name=text]");
    field.click();
    field.type_text("4711\n");
    browser.wait("the search's answer", |b| {
        b.text("#shown").is_some_and(|t| t.contains("1 job found"))
    });
    let link = browser.element("table.found th a");
    assert_eq!(link.text(), "needle-job");
    assert!(browser.body_text().contains("<b>order 4711</b>"));
    link.click();
    browser.wait("the job's page", |b| {
        b.url().contains("/queues/mail/jobs/needle-job")
    });
}

/// The filter form of a list and of the groups: its button is as tall as its fields, and the
/// Clear link's text is on the line of the button's (the button was 5 pixels taller than the
/// fields, in a larger font, and Clear's text sat 6 pixels below the button's).
#[test]
fn in_a_browser_the_filter_forms_button_fields_and_clear_link_line_up() {
    let server = RedisServer::start();
    ninety_dead(&server);
    let web = Web::start(&server, &[]);
    let Some(browser) = support::browser::Browser::start(1280, 800) else {
        return;
    };
    for page in ["queues/mail/dead", "queues/mail/dead/groups"] {
        browser.open(&format!("{}{page}", web.url));
        let button = browser.element("form.filters button").rect();
        let middle = |r: Rect| r.y + r.height / 2.0;
        let field = browser.element("form.filters input").rect();
        let clear = browser.element("form.filters > a").rect();
        assert!(
            (button.height - field.height).abs() <= 1.0,
            "{page}: the button {button:?}, a field {field:?}"
        );
        assert!(
            (middle(button) - middle(clear)).abs() <= 1.0,
            "{page}: the button {button:?}, Clear {clear:?}"
        );
    }
}

#[test]
fn changes_from_the_page_are_recorded_with_who_and_from_where_and_tail_shows_them() {
    let server = RedisServer::start();
    let (smtp, _) = two_causes(&server);
    let dir = tempfile::tempdir().expect("a directory");
    let password = dir.path().join("pw");
    std::fs::write(&password, "page-pw\n").expect("write");
    let web = Web::start(
        &server,
        &["--web-password-file", password.to_str().expect("a path")],
    );
    let mut tail = qctl_process(&server);
    tail.args(["--json", "tail", "mail", "--poll", "100ms"]);
    let tail = support::Background::spawn(tail);
    // A CLI change first, seen by tail once it follows the record.
    run(qctl(&server).args(["dead", "delete", "mail", "b2", "--yes"]));
    assert!(wait_until(Duration::from_secs(30), || tail
        .stdout()
        .contains("\"change\"")));
    let auth = format!(
        "Authorization: Basic {}",
        base64::Engine::encode(&base64::engine::general_purpose::STANDARD, "ann:page-pw")
    );
    let page = raw_request(
        web.port,
        &format!(
            "GET /queues/mail HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n{auth}\r\nConnection: close\r\n\r\n",
            web.port
        ),
    );
    let cookie = page
        .lines()
        .find_map(|l| {
            l.strip_prefix("set-cookie: ")
                .map(|v| v.split(';').next().unwrap_or("").to_string())
        })
        .expect("a cookie");
    let token = page
        .split("name=\"token\" value=\"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .expect("a token")
        .to_string();
    let headers = [
        format!("Origin: http://127.0.0.1:{}", web.port),
        format!("Cookie: {cookie}"),
        auth.clone(),
    ];
    let (status, reply) = post(
        &web,
        "/queues/mail/dead/apply",
        &headers,
        &format!("token={token}&action=requeue&all=1&group={smtp}"),
    );
    assert_eq!(status, 200, "{reply}");
    let (status, reply) = post(
        &web,
        "/queues/mail/dead/apply",
        &headers,
        &format!("token={token}&action=delete&id=b1"),
    );
    assert_eq!(status, 200, "{reply}");
    let (status, reply) = post(
        &web,
        "/queues/mail/pause",
        &headers,
        &format!("token={token}"),
    );
    assert_eq!(status, 200, "{reply}");

    let listed = run(qctl(&server).args(["--json", "changes", "mail"]));
    assert_eq!(listed.code, Some(0), "{listed:?}");
    let entries: Vec<Value> = serde_json::from_slice(&listed.out).expect("JSON");
    let actions: Vec<&str> = entries
        .iter()
        .map(|e| e["action"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(
        actions,
        ["dead delete", "dead requeue", "dead delete", "pause"],
        "{entries:?}"
    );
    assert_eq!(entries[0]["source"], "cli");
    let entries = &entries[1..];
    for (i, entry) in entries.iter().enumerate() {
        assert_eq!(entry["source"], "web", "{entry}");
        assert_eq!(entry["user"], "ann", "{entry}");
        assert_eq!(entry["address"], "127.0.0.1", "{entry}");
        let argv = entry["argv"].to_string();
        assert!(argv.contains("POST /queues/mail/"), "{i}: {argv}");
        assert!(
            !argv.contains("page-pw") && !argv.contains(&token),
            "{argv}"
        );
    }
    assert_eq!(entries[0]["done"], 3);
    let mut sample: Vec<String> = entries[0]["sample"]
        .as_array()
        .expect("a sample")
        .iter()
        .map(|v| v.as_str().unwrap_or_default().to_string())
        .collect();
    sample.sort();
    assert_eq!(sample, ["a1", "a2", "a3"]);
    assert!(entries[0]["argv"]
        .to_string()
        .contains(&format!("group={smtp}")));
    assert_eq!(entries[1]["sample"], json!(["b1"]));
    assert!(entries[1]["argv"].to_string().contains("ids=1"));
    // The page lists the same record, and its API is what changes --json prints.
    let api = raw_request(
        web.port,
        &format!(
            "GET /api/queues/mail/changes HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n{auth}\r\nConnection: close\r\n\r\n",
            web.port
        ),
    );
    let api_json: Value = serde_json::from_str(api.split("\r\n\r\n").nth(1).unwrap_or(""))
        .unwrap_or_else(|e| panic!("{e}: {api}"));
    let cli_json: Value = serde_json::from_slice(&listed.out).expect("JSON");
    assert_eq!(api_json, cli_json);
    let page = raw_request(
        web.port,
        &format!(
            "GET /queues/mail/changes HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n{auth}\r\nConnection: close\r\n\r\n",
            web.port
        ),
    );
    assert!(page.contains("4 changes, oldest first"), "{page}");
    assert_eq!(page.matches("ann@127.0.0.1 (web)").count(), 3, "{page}");
    assert!(page.contains("POST /queues/mail/pause"), "{page}");
    // tail saw each as it happened.
    wait_until(Duration::from_secs(30), || {
        tail.stdout()
            .lines()
            .filter(|l| l.contains("\"change\""))
            .count()
            >= 4
    });
    let seen: Vec<String> = tail
        .stdout()
        .lines()
        .filter(|l| l.contains("\"change\""))
        .map(str::to_string)
        .collect();
    assert_eq!(seen.len(), 4, "{seen:?}");
    assert!(seen[0].contains("\"cli\""), "{seen:?}");
    for line in &seen[1..] {
        assert!(
            line.contains("\"web\"") && line.contains("\"ann\""),
            "{seen:?}"
        );
    }
}

#[test]
fn the_jobs_of_an_expired_consumer_are_recovered_from_the_page_and_a_live_ones_are_not() {
    let server = RedisServer::start();
    for id in ["o1", "o2", "l1"] {
        enqueue(&server, &["mail", "--id", id, id]);
    }
    let _: () = server.cmd(&[b"DEL", b"mail:active"]);
    let now = qctl::engine::now();
    let dead = "mail:inflight:0b7d3e2a-1c4f-4d5e-9f00-aabbccddeeff";
    let live = "mail:inflight:1b7d3e2a-1c4f-4d5e-9f00-aabbccddeeff";
    let _: () = server.cmd(&[b"SADD", dead.as_bytes(), b"o1", b"o2"]);
    let _: () = server.cmd(&[b"SADD", live.as_bytes(), b"l1"]);
    let old = (now - 600.0).to_string();
    let fresh = now.to_string();
    let _: () = server.cmd(&[b"ZADD", b"mail:consumers", old.as_bytes(), dead.as_bytes()]);
    let _: () = server.cmd(&[
        b"ZADD",
        b"mail:consumers",
        fresh.as_bytes(),
        live.as_bytes(),
    ]);
    let web = Web::start(&server, &[]);
    let (cookie, token) = session_and_token(&web, "/queues/mail");
    let page = web.get("/queues/mail");
    assert!(page.body.contains("Recover orphans"), "{}", page.body);
    assert!(
        page.body.contains("the 1 consumer silent for more than 2m"),
        "{}",
        page.body
    );
    let headers = [
        format!("Origin: http://127.0.0.1:{}", web.port),
        format!("Cookie: {cookie}"),
    ];
    let body = format!("token={token}");
    let (status, reply) = post(&web, "/queues/mail/orphans/preview", &headers, &body);
    assert_eq!(status, 200, "{reply}");
    assert!(
        reply.contains("return 2 jobs of 1 consumer silent for more than 2m to mail:active?"),
        "{reply}"
    );
    assert!(reply.contains(dead), "{reply}");
    assert!(!reply.contains(live), "{reply}");
    assert!(ready_ids(&server).is_empty(), "the preview moved jobs");
    // Without the token: nothing.
    let (status, _) = post(&web, "/queues/mail/orphans/apply", &headers, "");
    assert_eq!(status, 403);
    assert!(ready_ids(&server).is_empty());
    let (status, reply) = post(&web, "/queues/mail/orphans/apply", &headers, &body);
    assert_eq!(status, 200, "{reply}");
    assert!(
        reply.contains("moved 2 jobs back to mail:active"),
        "{reply}"
    );
    let mut ready = ready_ids(&server);
    ready.sort();
    assert_eq!(ready, ["o1", "o2"]);
    let left: Vec<String> = server.cmd(&[b"SMEMBERS", live.as_bytes()]);
    assert_eq!(left, ["l1"]);
    let members: Vec<String> = server.cmd(&[b"ZRANGE", b"mail:consumers", b"0", b"-1"]);
    assert_eq!(members, [live]);
    let listed = run(qctl(&server).args(["--json", "changes", "mail"]));
    let entries: Vec<Value> = serde_json::from_slice(&listed.out).expect("JSON");
    assert_eq!(entries.len(), 1, "{entries:?}");
    assert_eq!(entries[0]["action"], "orphans");
    assert_eq!(entries[0]["done"], 2);
    assert_eq!(entries[0]["source"], "web");
    // Read-only: no button, and the forged post is refused.
    let ro = Web::start(&server, &["--read-only"]);
    let _: () = server.cmd(&[b"ZADD", b"mail:consumers", old.as_bytes(), live.as_bytes()]);
    let page = ro.get("/queues/mail");
    assert!(!page.body.contains("Recover orphans"), "{}", page.body);
    let cookie = cookie_of(&ro, "/queues/mail");
    let (status, _) = post(
        &ro,
        "/queues/mail/orphans/apply",
        &[
            format!("Origin: http://127.0.0.1:{}", ro.port),
            format!("Cookie: {cookie}"),
        ],
        "token=00",
    );
    assert_eq!(status, 403);
    let left: Vec<String> = server.cmd(&[b"SMEMBERS", live.as_bytes()]);
    assert_eq!(left, ["l1"]);
}

/// The queue page's consumers and in-flight tabs give orders as `qctl cancel` and `qctl
/// consumers` do: a running job cancelled (its handler's group gone, the job dead with who
/// cancelled it from where), the consumer resized and quieted, each after its preview, each
/// recorded as a change from the web; without the token nothing happens, and read-only shows
/// no such form.
#[test]
fn running_jobs_are_cancelled_and_consumers_steered_from_the_page() {
    let server = RedisServer::start();
    for id in ["w1", "w2"] {
        enqueue(&server, &["mail", "--id", id, id]);
    }
    let mut cmd = support::qctl_process(&server);
    cmd.args([
        "consume",
        "mail",
        "-c",
        "2",
        "--poll-interval",
        "200ms",
        "--kill-after",
        "1s",
        "--shutdown-grace",
        "1s",
        "--",
        "sleep",
        "3600",
    ]);
    let mut consumer = support::Background::spawn(cmd);
    let held = || {
        let members: Vec<String> = server.cmd(&[b"ZRANGE", b"mail:consumers", b"0", b"-1"]);
        members
            .iter()
            .map(|k| server.smembers(k).len())
            .sum::<usize>()
    };
    assert!(support::wait_until(Duration::from_secs(20), || held() == 2));
    let members: Vec<String> = server.cmd(&[b"ZRANGE", b"mail:consumers", b"0", b"-1"]);
    let uuid = members[0].rsplit(':').next().unwrap().to_string();
    let web = Web::start(&server, &[]);
    let (cookie, token) = session_and_token(&web, "/queues/mail");
    let page = web.get("/queues/mail");
    assert!(
        page.body
            .contains(&format!("/queues/mail/consumers/{uuid}/preview")),
        "{}",
        page.body
    );
    let list = web.get("/queues/mail/inflight");
    assert!(list.body.contains("Cancel selected"), "{}", list.body);
    let headers = [
        format!("Origin: http://127.0.0.1:{}", web.port),
        format!("Cookie: {cookie}"),
    ];
    // Cancel w1: the preview changes nothing, the apply without the token neither.
    let body = format!("token={token}&id=w1&settle=dead");
    let (status, reply) = post(&web, "/queues/mail/cancel/preview", &headers, &body);
    assert_eq!(status, 200, "{reply}");
    assert!(reply.contains("cancel 1 running job"), "{reply}");
    assert!(reply.contains("qctl cancel mail w1"), "{reply}");
    let (status, _) = post(&web, "/queues/mail/cancel/apply", &headers, "id=w1");
    assert_eq!(status, 403);
    assert_eq!(held(), 2);
    let (status, reply) = post(&web, "/queues/mail/cancel/apply", &headers, &body);
    assert_eq!(status, 200, "{reply}");
    assert!(
        reply.contains("w1: cancelled: moved to mail:dead"),
        "{reply}"
    );
    let dead: Vec<String> = server.cmd(&[b"ZRANGE", b"mail:dead", b"0", b"-1"]);
    assert_eq!(dead, ["w1"]);
    let failure = server.hget_bytes("mail:failures", "w1").unwrap();
    let failure = String::from_utf8_lossy(&failure);
    assert!(
        failure.contains("cancelled by anonymous@127.0.0.1 (web)"),
        "{failure}"
    );
    assert_eq!(held(), 1);
    // Resize, then quiet.
    let path = format!("/queues/mail/consumers/{uuid}");
    let body = format!("token={token}&order=resize&concurrency=1");
    let (status, reply) = post(&web, &format!("{path}/preview"), &headers, &body);
    assert_eq!(status, 200, "{reply}");
    assert!(reply.contains("run 1 at once from now on"), "{reply}");
    let (status, reply) = post(&web, &format!("{path}/apply"), &headers, &body);
    assert_eq!(status, 200, "{reply}");
    assert!(reply.contains("concurrency 2 -&gt; 1"), "{reply}");
    let body = format!("token={token}&order=quiet");
    let (status, reply) = post(&web, &format!("{path}/apply"), &headers, &body);
    assert_eq!(status, 200, "{reply}");
    assert!(reply.contains("done: quiet"), "{reply}");
    let listed = run(qctl(&server).args(["--json", "changes", "mail"]));
    let entries: Vec<Value> = serde_json::from_slice(&listed.out).expect("JSON");
    let actions: Vec<&str> = entries
        .iter()
        .filter_map(|e| e["action"].as_str())
        .collect();
    assert!(
        ["cancel", "consumers resize", "consumers quiet"]
            .iter()
            .all(|a| actions.contains(a)),
        "{entries:?}"
    );
    assert!(entries.iter().all(|e| e["source"] == "web"), "{entries:?}");
    // Read-only: no order form at all.
    let ro = Web::start(&server, &["--read-only"]);
    assert!(!ro.get("/queues/mail").body.contains("/preview"));
    assert!(!ro
        .get("/queues/mail/inflight")
        .body
        .contains("Cancel selected"));
    let cookie = cookie_of(&ro, "/queues/mail");
    let (status, _) = post(
        &ro,
        "/queues/mail/cancel/apply",
        &[
            format!("Origin: http://127.0.0.1:{}", ro.port),
            format!("Cookie: {cookie}"),
        ],
        "token=00&id=w2",
    );
    assert_eq!(status, 403);
    assert_eq!(held(), 1);
    let _ = consumer.stop(Duration::from_secs(20));
}
