//! `qctl tail` against real redis-servers: what a qctl consumer does (with reasons and
//! retries), and what a queue state written as Go CurlyQ leaves it shows (kills without
//! reasons, consumers without descriptions, expiry and recovery), `--since`, `--failures`.

mod support;

use std::time::Duration;

use nix::sys::signal::Signal;
use qctl::engine::Job;
use serde_json::Value;
use support::{qctl, qctl_process, spawn_consumer_at, wait_until, Background, RedisServer};

const LIMIT: Duration = Duration::from_secs(20);

fn tail(server: &RedisServer, args: &[&str]) -> Background {
    let mut cmd = qctl_process(server);
    cmd.args(["--json", "tail", "--poll", "100ms", "--interval", "1s"])
        .args(args);
    Background::spawn(cmd)
}

fn events(bg: &Background) -> Vec<Value> {
    bg.stdout()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

fn event<'a>(all: &'a [Value], kind: &str) -> Vec<&'a Value> {
    all.iter().filter(|e| e["event"] == kind).collect()
}

/// Waits until `cond` holds for the events so far; they are returned.
fn wait_events(bg: &Background, what: &str, cond: impl Fn(&[Value]) -> bool) -> Vec<Value> {
    let mut all = Vec::new();
    let ok = wait_until(LIMIT, || {
        all = events(bg);
        cond(&all)
    });
    assert!(
        ok,
        "no {what}; stdout:\n{}\nstderr:\n{}",
        bg.stdout(),
        bg.stderr()
    );
    all
}

fn enqueue(server: &RedisServer, data: &str) -> String {
    let out = qctl(server).args(["enqueue", "q", data]).assert().success();
    String::from_utf8_lossy(&out.get_output().stdout)
        .trim()
        .to_string()
}

#[test]
fn tail_follows_a_qctl_consumer_with_reasons_retries_and_counts() {
    let server = RedisServer::start();
    let mut follow = tail(&server, &["q"]);
    wait_events(&follow, "start line", |all| {
        !event(all, "following").is_empty()
    });
    let failing = enqueue(&server, "fail");
    enqueue(&server, "ok");
    let mut consumer = spawn_consumer_at(
        &server.url(),
        &[
            "q",
            "--max-retries",
            "1",
            "--max-backoff",
            "0s",
            "--poll-interval",
            "200ms",
            "--",
            "sh",
            "-c",
            "d=$(cat); case $d in fail) echo '502 from gateway 17' >&2; exit 3;; esac",
        ],
    );
    let all = wait_events(&follow, "the kill", |all| !event(all, "dead").is_empty());
    let joined = event(&all, "joined");
    assert_eq!(joined.len(), 1, "{all:?}");
    assert_eq!(joined[0]["described"]["pid"], consumer.pid());
    assert_eq!(joined[0]["described"]["mode"], "per-job");
    let retry = event(&all, "retry");
    assert_eq!(retry.len(), 1, "{all:?}");
    assert_eq!(retry[0]["id"], failing.as_str());
    assert_eq!(retry[0]["failure"]["reason"], "exit 3");
    assert!(retry[0]["due"].is_number());
    let killed = event(&all, "dead");
    assert_eq!(killed[0]["id"], failing.as_str());
    assert_eq!(killed[0]["failure"]["attempt"], 1);
    assert!(killed[0]["failure"]["stderr"]
        .as_str()
        .unwrap()
        .contains("502 from gateway 17"));
    assert_eq!(killed[0]["queue"], "q");

    // The interval lines count what qctl consumers did.
    let all = wait_events(&follow, "the counts", |all| {
        let (done, failed) = event(all, "interval").iter().fold((0, 0), |(d, f), e| {
            (
                d + e["done"].as_u64().unwrap_or(0),
                f + e["failed"].as_u64().unwrap_or(0),
            )
        });
        done == 1 && failed == 2
    });
    assert_eq!(event(&all, "interval").last().unwrap()["counts"]["dead"], 1);

    qctl(&server).args(["pause", "q"]).assert().success();
    wait_events(&follow, "pause", |all| !event(all, "paused").is_empty());
    qctl(&server).args(["resume", "q"]).assert().success();
    wait_events(&follow, "resume", |all| !event(all, "resumed").is_empty());
    consumer.signal(Signal::SIGTERM);
    consumer.wait_timeout(LIMIT).expect("the consumer stopped");
    wait_events(&follow, "the consumer leaving", |all| {
        !event(all, "left").is_empty()
    });

    // Ctrl-C ends it with 0.
    follow.signal(Signal::SIGINT);
    let status = follow.wait_timeout(LIMIT).expect("tail stopped");
    assert_eq!(status.code(), Some(0), "{}", follow.stderr());
}

/// A queue as Go CurlyQ consumers leave it: kills without a failure record, consumers
/// without descriptions, which expire and are recovered.
#[test]
fn tail_shows_what_go_consumers_leave_and_says_what_is_not_known() {
    let server = RedisServer::start();
    let member = "q:inflight:0b7d3e2a-1c4f-4d5e-9f00-aabbccddeeff";
    let mut follow = tail(&server, &["q", "--orphan-after", "2s"]);
    wait_events(&follow, "start line", |all| {
        !event(all, "following").is_empty()
    });
    let now = qctl::engine::now();
    let _: () = server.cmd(&[
        b"ZADD",
        b"q:consumers",
        now.to_string().as_bytes(),
        member.as_bytes(),
    ]);
    let _: () = server.cmd(&[b"SADD", member.as_bytes(), b"g1"]);
    let record = Job::new("g2", Some(b"go".to_vec())).encode();
    let _: () = server.cmd(&[b"HSET", b"q:data", b"g2", &record]);
    let _: () = server.cmd(&[b"ZADD", b"q:dead", now.to_string().as_bytes(), b"g2"]);
    let all = wait_events(&follow, "the Go consumer and its kill", |all| {
        !event(all, "joined").is_empty() && !event(all, "dead").is_empty()
    });
    assert!(event(&all, "joined")[0]["described"].is_null(), "{all:?}");
    assert_eq!(event(&all, "dead")[0]["id"], "g2");
    assert!(event(&all, "dead")[0]["failure"].is_null());
    // Its heartbeat stops: it expires, then orphan recovery takes its entry away.
    let all = wait_events(&follow, "expiry", |all| !event(all, "expired").is_empty());
    assert_eq!(event(&all, "expired")[0]["in_flight"], 1);
    let _: () = server.cmd(&[b"ZREM", b"q:consumers", member.as_bytes()]);
    wait_events(&follow, "recovery", |all| {
        !event(all, "recovered").is_empty()
    });
    // No counters of qctl's: the interval lines say so with null.
    let all = wait_events(&follow, "an interval line", |all| {
        !event(all, "interval").is_empty()
    });
    assert!(event(&all, "interval")[0]["done"].is_null(), "{all:?}");
    follow.signal(Signal::SIGTERM);
    assert_eq!(follow.wait_timeout(LIMIT).and_then(|s| s.code()), Some(0));

    // The same in words.
    let mut cmd = qctl_process(&server);
    cmd.args(["tail", "q", "--since", "1h", "--poll", "100ms"]);
    let mut words = Background::spawn(cmd);
    assert!(wait_until(LIMIT, || words.stdout().contains("dead g2")));
    words.signal(Signal::SIGINT);
    words.wait_timeout(LIMIT);
    let text = words.stdout();
    assert!(
        text.contains(
            "dead g2: no failure recorded (a Go CurlyQ consumer or another tool moved it)"
        ),
        "{text}"
    );
    assert!(text.contains("q following since"), "{text}");
}

#[test]
fn since_starts_in_the_past_and_failures_shows_only_failures() {
    let server = RedisServer::start();
    let now = qctl::engine::now();
    for (id, ago) in [("old", 1200.0), ("recent", 300.0)] {
        let record = Job::new(id, Some(b"x".to_vec())).encode();
        let _: () = server.cmd(&[b"HSET", b"q:data", id.as_bytes(), &record]);
        let t = (now - ago).to_string();
        let _: () = server.cmd(&[b"ZADD", b"q:dead", t.as_bytes(), id.as_bytes()]);
    }
    let mut follow = tail(&server, &["q", "--since", "10m", "--failures"]);
    let all = wait_events(&follow, "the recent kill", |all| {
        !event(all, "dead").is_empty()
    });
    let killed: Vec<&str> = event(&all, "dead")
        .iter()
        .map(|e| e["id"].as_str().unwrap())
        .collect();
    assert_eq!(killed, ["recent"]);
    qctl(&server).args(["pause", "q"]).assert().success();
    std::thread::sleep(Duration::from_millis(1500));
    let all = events(&follow);
    assert!(event(&all, "paused").is_empty(), "{all:?}");
    assert!(event(&all, "interval").is_empty(), "{all:?}");
    follow.signal(Signal::SIGINT);
    assert_eq!(follow.wait_timeout(LIMIT).and_then(|s| s.code()), Some(0));

    // Without following: what happened since then, and the end.
    let out = qctl(&server)
        .args(["tail", "q", "--since", "30m", "--no-follow"])
        .timeout(LIMIT)
        .assert()
        .success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    let lines: Vec<&str> = text.lines().collect();
    // The pause is in the record of changes, which --since reads too.
    assert_eq!(lines.len(), 4, "{text}");
    assert!(lines[0].contains("q since"), "{text}");
    assert!(
        lines[1].ends_with(
            "q dead old: no failure recorded (a Go CurlyQ consumer or another tool moved it)"
        ),
        "{text}"
    );
    assert!(lines[2].contains("q dead recent"), "{text}");
    assert!(lines[3].contains(": pause by "), "{text}");
}

#[test]
fn a_wrong_key_type_ends_tail_naming_the_key() {
    let server = RedisServer::start();
    let _: () = server.cmd(&[b"SET", b"q:dead", b"x"]);
    qctl(&server)
        .args(["tail", "q"])
        .timeout(LIMIT)
        .assert()
        .code(4)
        .stderr(predicates::str::contains("WRONGTYPE"));
}
