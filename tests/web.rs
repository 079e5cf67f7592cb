//! `qctl web` as a process against real redis-servers, asked over HTTP: what it serves, the
//! headers and refusals that make it safe to leave running, and how it ends.

mod support;

use std::time::Duration;

use nix::sys::signal::Signal;
use serde_json::{json, Value};
use support::browser::Browser;
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
