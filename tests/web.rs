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
