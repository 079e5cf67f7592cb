//! Settling jobs (issue point 12): the scripts check the values they use before their first
//! write, so a refusal leaves everything as it was and the consumer says so; an ack, retry or
//! kill that finds its job gone from the consumer's in-flight set says where the job is.

mod support;

use std::process::Output;
use std::time::Duration;

use support::{qctl, qctl_process, wait_until, Background, RedisServer, FAST};

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn enqueue(server: &RedisServer, id: &str, data: &str) {
    qctl(server)
        .args(["enqueue", "q", "--id", id, data])
        .assert()
        .success();
}

/// `consume q --drain` with retries up to `max_retries`, whose handler fails on data "fail".
fn drain(server: &RedisServer, max_retries: &str) -> Output {
    qctl(server)
        .args(["consume", "q", "--drain", "--max-retries", max_retries])
        .args(FAST)
        .args(["--", "sh", "-c", "test \"$(cat)\" != fail"])
        .output()
        .expect("run qctl")
}

fn counters(server: &RedisServer) -> Vec<(String, String)> {
    let mut all: Vec<(String, String)> = server.cmd(&[b"HGETALL", b"q:stats"]);
    // The counters the scripts check (the others, of the history, are kept best effort).
    all.retain(|(field, _)| field == "completed" || field == "failed");
    all.sort();
    all
}

#[test]
fn a_counter_that_is_no_integer_stops_the_consumer_before_it_writes_anything() {
    // (field, value, how the job fails): the ack counts "completed", a retry or a kill
    // "failed".
    let cases = [
        ("completed", "abc", "ok", "0"),
        ("completed", "9223372036854775807", "ok", "0"),
        ("completed", "007", "ok", "0"),
        ("failed", "1.5", "fail", "3"),
        ("failed", "-9223372036854775809", "fail", "0"),
        ("failed", " 1", "fail", "0"),
    ];
    for (field, value, data, max_retries) in cases {
        let server = RedisServer::start();
        let _: () = server.cmd(&[b"HSET", b"q:stats", field.as_bytes(), value.as_bytes()]);
        enqueue(&server, "j", data);
        let before = server.dump_all();
        let out = drain(&server, max_retries);
        let err = stderr(&out);
        let case = format!("{field} = {value:?}: {err}");
        assert_eq!(out.status.code(), Some(4), "{case}");
        assert!(
            err.contains(&format!("BADVALUE q:stats field {field} holds \"{value}\"")),
            "{case}"
        );
        assert!(
            err.contains("nothing was changed: it stays reserved for recovery"),
            "{case}"
        );
        assert!(err.contains("retried 0, dead 0"), "{case}");
        // The job was returned as it was: the same record, in q:active, no failure recorded.
        assert_eq!(server.dump_all(), before, "{case}");
        assert_eq!(support::invariants(&server, "q"), Vec::<String>::new());
    }
}

#[test]
fn a_counter_counts_up_to_the_64_bit_limit_and_from_below_zero() {
    let server = RedisServer::start();
    let _: () = server.cmd(&[
        b"HSET",
        b"q:stats",
        b"completed",
        b"9223372036854775806",
        b"failed",
        b"-9223372036854775808",
    ]);
    enqueue(&server, "ok", "ok");
    enqueue(&server, "bad", "fail");
    let out = drain(&server, "0");
    assert_eq!(out.status.code(), Some(7), "{}", stderr(&out));
    assert_eq!(
        counters(&server),
        [
            ("completed".to_string(), "9223372036854775807".to_string()),
            ("failed".to_string(), "-9223372036854775807".to_string())
        ]
    );
    // One more would not fit: refused before anything is written.
    enqueue(&server, "ok2", "ok");
    let out = drain(&server, "0");
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    assert_eq!(server.lrange("q:active"), ["ok2"]);
    assert_eq!(
        counters(&server)[0],
        ("completed".to_string(), "9223372036854775807".to_string())
    );
}

/// A consumer whose one job runs for a while; `meanwhile` changes Redis while it runs. Its
/// stderr once it has ended.
fn while_it_runs(server: &RedisServer, meanwhile: impl FnOnce(&str)) -> String {
    enqueue(server, "j", "x");
    let mut cmd = qctl_process(server);
    cmd.args(["consume", "q", "--max-jobs", "1"])
        .args(FAST)
        .args(["--", "sleep", "1"]);
    let mut consumer = Background::spawn(cmd);
    let mut inflight = String::new();
    assert!(wait_until(Duration::from_secs(10), || {
        let keys: Vec<String> = server.cmd(&[b"KEYS", b"q:inflight:*"]);
        inflight = keys.into_iter().next().unwrap_or_default();
        !inflight.is_empty() && server.smembers(&inflight).contains(&"j".to_string())
    }));
    meanwhile(&inflight);
    let status = consumer.wait_timeout(Duration::from_secs(10));
    let err = consumer.stderr();
    assert_eq!(status.and_then(|s| s.code()), Some(0), "{err}");
    err
}

#[test]
fn an_ack_that_finds_its_job_gone_says_where_the_job_is() {
    let other = "q:inflight:0b7d3e2a-1c4f-4d5e-9f00-aabbccddeeff";
    let server = RedisServer::start();
    let err = while_it_runs(&server, |inflight| {
        let now = qctl::engine::now().to_string();
        let _: () = server.cmd(&[b"ZADD", b"q:consumers", now.as_bytes(), other.as_bytes()]);
        let _: () = server.cmd(&[b"SMOVE", inflight.as_bytes(), other.as_bytes(), b"j"]);
    });
    assert!(
        err.contains(&format!(
            "job j: it was no longer reserved by this consumer: it is reserved by {other} \
             (it was recovered from this consumer"
        )),
        "{err}"
    );
    assert_eq!(server.smembers(other), ["j"], "nothing changed");
    assert!(server.hget_bytes("q:data", "j").is_some());

    let server = RedisServer::start();
    let err = while_it_runs(&server, |inflight| {
        let _: () = server.cmd(&[b"SREM", inflight.as_bytes(), b"j"]);
        let _: () = server.cmd(&[b"RPUSH", b"q:active", b"j"]);
    });
    assert!(
        err.contains("job j: it was no longer reserved by this consumer: it is back in q:active"),
        "{err}"
    );
    // No other consumer is registered: no other consumer is blamed.
    assert!(err.contains("and no other consumer is registered"), "{err}");
    assert!(!err.contains("by another one"), "{err}");

    // Redis lost the job: neither its id nor its record is there.
    let server = RedisServer::start();
    let err = while_it_runs(&server, |inflight| {
        let _: () = server.cmd(&[b"DEL", inflight.as_bytes(), b"q:data"]);
    });
    assert!(
        err.contains(
            "job j: it was no longer reserved by this consumer: Redis no longer has this job"
        ),
        "{err}"
    );
    assert!(!err.contains("it was recovered"), "{err}");
    assert_eq!(support::invariants(&server, "q"), Vec::<String>::new());
}

/// An ack whose call got no reply while Redis was frozen (SIGSTOP) may have been made all
/// the same: Redis runs it when it wakes. The consumer says the change may or may not have
/// been made (as for a connection refused), never that nothing was changed; once Redis is
/// woken, what it holds is one of the two: the job acked, or still reserved.
#[test]
fn an_ack_that_timed_out_says_it_may_or_may_not_have_been_made() {
    let server = RedisServer::start();
    enqueue(&server, "frozen", "x");
    let mut cmd = qctl_process(&server);
    cmd.args(["consume", "q", "-c", "1"])
        .args([
            "--heartbeat",
            "1s",
            "--orphan-after",
            "6s",
            "--response-timeout",
            "1s",
        ])
        .args(["--", "sleep", "1"]);
    let mut consumer = Background::spawn(cmd);
    let mut inflight = String::new();
    assert!(wait_until(Duration::from_secs(10), || {
        let keys: Vec<String> = server.cmd(&[b"KEYS", b"q:inflight:*"]);
        inflight = keys.into_iter().next().unwrap_or_default();
        !inflight.is_empty() && server.smembers(&inflight).contains(&"frozen".to_string())
    }));
    // Frozen while the handler runs: its ack goes out to a Redis that does not answer.
    server.pause();
    let status = consumer.wait_timeout(Duration::from_secs(60));
    server.resume();
    let err = consumer.stderr();
    assert_eq!(status.and_then(|s| s.code()), Some(3), "{err}");
    let said: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("warning: could not settle job \"frozen\""))
        .collect();
    assert_eq!(said.len(), 1, "{err}");
    assert!(
        said[0].contains("the change may or may not have been made"),
        "{err}"
    );
    assert!(!said[0].contains("nothing was changed"), "{err}");
    // Redis, awake, ran what it was sent or not: the job is acked or still reserved, whole.
    // (What the consumer sent before it exited is read by Redis as it wakes.)
    std::thread::sleep(Duration::from_millis(500));
    let (record, reserved): (bool, bool) = redis::pipe()
        .atomic()
        .hexists("q:data", "frozen")
        .sismember(&inflight, "frozen")
        .query(&mut server.conn())
        .expect("read the job");
    assert_eq!(record, reserved, "acked or reserved, not half of each");
    assert_eq!(support::invariants(&server, "q"), Vec::<String>::new());
}
