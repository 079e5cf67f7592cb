//! `qctl web` as a process against real redis-servers, asked over HTTP: what it serves, the
//! headers and refusals that make it safe to leave running, and how it ends.

mod support;

use std::time::Duration;

use nix::sys::signal::Signal;
use serde_json::Value;
use support::web::{Reply, Web};
use support::{qctl, qctl_process, run, wait_until, RedisServer, FAST};

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
    let stderr = web.process.stderr();
    assert!(stderr.contains(&web.url), "{stderr}");

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
    let page = web.get("/");
    assert_eq!(page.status, 200);
    assert_eq!(page.header("content-type"), "text/html; charset=utf-8");
    let row = |queue: &str| -> Vec<String> {
        let start = format!("<tr><th scope=\"row\">{queue}</th>");
        let at = page
            .body
            .find(&start)
            .unwrap_or_else(|| panic!("no row of {queue}"));
        let rest = &page.body[at + start.len()..];
        let end = rest.find("</tr>").expect("the row's end");
        rest[..end]
            .split("</td>")
            .filter_map(|c| c.strip_prefix("<td>"))
            .map(str::to_string)
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
    // Some readings (each one TIME) go by.
    assert!(wait_until(LIMIT, || server.calls("time") >= 5));
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
