//! `qctl check`: thresholds, the monitoring-plugins exit codes and output, against real
//! redis-servers.

mod support;

use serde_json::Value;
use support::{qctl, qctl_url, RedisServer};

/// Runs `check ARGS` and returns its exit code and its lines.
fn check(server: &RedisServer, args: &[&str]) -> (i32, Vec<String>) {
    let out = qctl(server).arg("check").args(args).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    (
        out.status.code().unwrap_or(-1),
        stdout.lines().map(str::to_string).collect(),
    )
}

/// Two queues: `mail` with 3 dead jobs and 4 ready, `sms` with 1 ready.
fn queues() -> RedisServer {
    let server = RedisServer::start();
    for (queue, n) in [("mail", 4), ("sms", 1)] {
        qctl(&server)
            .args(["enqueue", queue, "--lines"])
            .write_stdin("x\n".repeat(n))
            .assert()
            .success();
    }
    qctl(&server)
        .args(["enqueue", "mail", "--lines"])
        .write_stdin("dies\n".repeat(3))
        .assert()
        .success();
    // The three "dies" jobs end dead (no retries), the four others done; then four more.
    qctl(&server)
        .args(["consume", "mail", "--drain", "--max-retries", "0", "-q"])
        .args([
            "--replace",
            "@",
            "--",
            "sh",
            "-c",
            "[ \"$1\" != dies ]",
            "sh",
            "@",
        ])
        .assert()
        .code(7);
    qctl(&server)
        .args(["enqueue", "mail", "--lines"])
        .write_stdin("x\n".repeat(4))
        .assert()
        .success();
    server
}

#[test]
fn thresholds_give_ok_warning_and_critical_with_perfdata() {
    let server = queues();
    let (code, lines) = check(&server, &["--dead-max", "5"]);
    assert_eq!(code, 0, "{lines:?}");
    assert_eq!(
        lines[0],
        "QCTL OK - 2 queues OK | mail.dead=3;;5;0 sms.dead=0;;5;0"
    );
    assert_eq!(lines[1..], ["OK mail: dead 3", "OK sms: dead 0"]);

    let (code, lines) = check(&server, &["--warn-dead", "2", "--dead-max", "5"]);
    assert_eq!(code, 1, "{lines:?}");
    assert!(
        lines[0].starts_with("QCTL WARNING - mail: dead 3 > 2 | mail.dead=3;2;5;0"),
        "{lines:?}"
    );

    let (code, lines) = check(&server, &["mail", "--dead-max", "2", "--ready-max", "10"]);
    assert_eq!(code, 2, "{lines:?}");
    assert_eq!(
        lines[0],
        "QCTL CRITICAL - mail: dead 3 > 2 | mail.dead=3;;2;0 mail.ready=4;;10;0"
    );

    // Too few consumers: thresholds as ranges `N:` in the perfdata.
    let (code, lines) = check(
        &server,
        &["sms", "--min-consumers", "1", "--warn-min-consumers", "2"],
    );
    assert_eq!(code, 2, "{lines:?}");
    assert_eq!(
        lines[0],
        "QCTL CRITICAL - sms: consumers 0 < 1 | sms.consumers=0;2:;1:;0"
    );
}

#[test]
fn failure_rate_comes_from_the_history_and_stale_consumers_are_found() {
    let server = queues();
    // mail: 3 runs failed, 4 succeeded so far; run the 4 waiting: 3 of 11 failed.
    qctl(&server)
        .args(["consume", "mail", "--drain", "-q", "--", "true"])
        .assert()
        .success();
    let (code, lines) = check(
        &server,
        &[
            "mail",
            "--failure-rate-max",
            "0.5",
            "--warn-failure-rate",
            "10%",
        ],
    );
    assert_eq!(code, 1, "{lines:?}");
    assert_eq!(
        lines[0],
        "QCTL WARNING - mail: failure_rate 27.3% > 10% | mail.failure_rate=27.273%;10;50;0"
    );
    // A queue where nothing ran has no rate, and that is no failure.
    let (code, lines) = check(&server, &["sms", "--failure-rate-max", "0.1"]);
    assert_eq!(code, 0, "{lines:?}");
    assert_eq!(
        lines[1],
        "OK sms: failure_rate none (nothing ran); no run settled by a qctl consumer in the last 15m"
    );

    // A consumer whose heartbeat is 10 minutes old, and one alive.
    support::hold_in_flight(&server, "sms");
    let (code, lines) = check(&server, &["sms", "--stale-consumers"]);
    assert_eq!(code, 2, "{lines:?}");
    assert!(
        lines[0].starts_with("QCTL CRITICAL - sms: stale_consumers 1 > 0"),
        "{lines:?}"
    );
    let (code, _) = check(&server, &["sms", "--warn-stale-consumers"]);
    assert_eq!(code, 1);
    let (code, lines) = check(
        &server,
        &["sms", "--stale-consumers", "--orphan-after", "1h"],
    );
    assert_eq!(code, 0, "{lines:?}");
}

#[test]
fn overdue_scheduled_jobs_are_measured_in_seconds() {
    let server = RedisServer::start();
    // A job due two hours ago that no consumer moved to active.
    let record = qctl::engine::Job::new("j", Some(b"x".to_vec())).encode();
    let due = (qctl::engine::now() - 7200.0).to_string();
    let _: () = server.cmd(&[b"HSET", b"t:data", b"j", &record]);
    let _: () = server.cmd(&[b"ZADD", b"t:scheduled", due.as_bytes(), b"j"]);
    let (code, lines) = check(&server, &["t", "--overdue-max", "1h"]);
    assert_eq!(code, 2, "{lines:?}");
    assert!(
        lines[0].starts_with("QCTL CRITICAL - t: overdue "),
        "{lines:?}"
    );
    assert!(lines[0].contains(" > 3600s | t.overdue="), "{lines:?}");
}

#[test]
fn unknown_covers_what_cannot_be_told() {
    let server = queues();
    // A mistyped queue has no keys.
    let (code, lines) = check(&server, &["mial", "--dead-max", "1"]);
    assert_eq!(code, 3, "{lines:?}");
    assert_eq!(
        lines[0],
        "QCTL UNKNOWN - mial: no queue \"mial\" (known: mail, sms)"
    );
    // No threshold, a bad value, and a server that is not there.
    let (code, lines) = check(&server, &[]);
    assert_eq!(code, 3);
    assert!(
        lines[0].starts_with("QCTL UNKNOWN - no threshold given"),
        "{lines:?}"
    );
    qctl(&server)
        .args(["check", "--dead-max", "many"])
        .assert()
        .code(3);
    qctl(&server)
        .args(["check", "--failure-rate-max", "2"])
        .assert()
        .code(3);
    let port = support::free_port();
    let out = qctl_url(&format!("redis://127.0.0.1:{port}"))
        .args(["check", "--dead-max", "1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.starts_with("QCTL UNKNOWN - cannot reach Redis at 127.0.0.1:"),
        "{stdout}"
    );
    // A key of the wrong type makes its measure UNKNOWN.
    let _: () = server.cmd(&[b"SET", b"sms:dead", b"x"]);
    let (code, lines) = check(&server, &["sms", "--dead-max", "1"]);
    assert_eq!(code, 3, "{lines:?}");
    assert!(
        lines[0].contains("dead unknown (its key holds the wrong type)"),
        "{lines:?}"
    );
}

#[test]
fn json_holds_the_status_and_every_measure() {
    let server = queues();
    let out = qctl(&server)
        .args(["check", "--dead-max", "2", "--ready-max", "100", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["status"], "CRITICAL");
    assert_eq!(v["code"], 2);
    let mail = &v["queues"][0];
    assert_eq!(mail["queue"], "mail");
    assert_eq!(mail["status"], "CRITICAL");
    assert_eq!(mail["measures"][0]["name"], "dead");
    assert_eq!(mail["measures"][0]["value"], 3.0);
    assert_eq!(mail["measures"][0]["crit"], 2.0);
    assert_eq!(mail["measures"][1]["name"], "ready");
    assert_eq!(mail["measures"][1]["status"], "OK");
    assert_eq!(v["queues"][1]["status"], "OK");
}

#[test]
fn a_window_longer_than_the_history_is_measured_over_the_week_kept() {
    let server = RedisServer::start();
    // An hour ago 3 runs done and 1 failed (25%); eight days ago, older than any minute a
    // consumer keeps, 100 done that would bring it under 1%.
    support::an_hour_and_eight_days_ago(&server);
    for window in ["30d", "99999d", "10000y"] {
        let _: () = server.cmd(&[b"CONFIG", b"RESETSTAT"]);
        let ran = support::run(qctl(&server).args([
            "check",
            "q",
            "--failure-rate-max",
            "5%",
            "--window",
            window,
            "--json",
        ]));
        assert_eq!(ran.code, Some(2), "{window}: {ran:?}");
        let v: Value = serde_json::from_str(&ran.stdout()).unwrap();
        assert_eq!(
            v["queues"][0]["measures"][0]["value"], 0.25,
            "{window}: {v}"
        );
        let notes = v["queues"][0]["notes"].to_string();
        assert!(
            notes.contains(
                "is longer than the 7d of history qctl consumers keep: measured over the last 7d"
            ),
            "{window}: {notes}"
        );
        // The minutes of a week and the one going on, whatever the window.
        let reads = server.calls("hmget");
        assert!(reads <= 7 * 24 * 60 + 10, "{window}: {reads} HMGET");
    }
    // Within the week kept nothing is said.
    let (code, lines) = check(
        &server,
        &["q", "--failure-rate-max", "5%", "--window", "2h"],
    );
    assert_eq!(code, 2, "{lines:?}");
    assert!(!lines.join("\n").contains("longer than"), "{lines:?}");
}
