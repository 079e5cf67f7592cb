//! The fault half of the reliability suite: consumers killed, stopped, cut off and restarted,
//! odd scores and heartbeats, bad consumer entries, against real redis-servers. Each
//! scenario ends with one `support::figure` line saying what it saw.

mod support;

use std::time::{Duration, Instant};

use qctl::engine::Job;
use support::{figure, qctl, spawn_consumer, wait_until, RedisServer};

/// Fast consumer settings: the cut-off is 3 s.
const FAST: &[&str] = &[
    "--poll-interval",
    "200ms",
    "--heartbeat",
    "1s",
    "--orphan-after",
    "3s",
    "--max-backoff",
    "0s",
];

/// Stores a job record (Attempt 0) without placing its id anywhere.
fn store(server: &RedisServer, queue: &str, id: &str, data: &[u8]) {
    let record = Job::new(id, Some(data.to_vec())).encode();
    let _: () = server.cmd(&[
        b"HSET",
        format!("{queue}:data").as_bytes(),
        id.as_bytes(),
        &record,
    ]);
}

/// Registers a consumer entry with this heartbeat score holding `ids` in its in-flight set.
fn fake_consumer(
    server: &RedisServer,
    queue: &str,
    uuid: &str,
    score: &str,
    ids: &[&str],
) -> String {
    let key = format!("{queue}:inflight:{uuid}");
    for id in ids {
        store(server, queue, id, id.as_bytes());
        let _: () = server.cmd(&[b"SADD", key.as_bytes(), id.as_bytes()]);
    }
    let _: () = server.cmd(&[
        b"ZADD",
        format!("{queue}:consumers").as_bytes(),
        score.as_bytes(),
        key.as_bytes(),
    ]);
    key
}

fn count(haystack: &str, needle: &str) -> usize {
    haystack.matches(needle).count()
}

#[test]
fn f7_scores_zero_negative_and_minus_infinity_are_due_and_run_once() {
    let server = RedisServer::start();
    let now = qctl::engine::now();
    let due = [("zero", "0"), ("negative", "-5"), ("minus-inf", "-inf")];
    for (id, score) in due {
        store(&server, "q", id, format!("{id}\n").as_bytes());
        let _: () = server.cmd(&[b"ZADD", b"q:scheduled", score.as_bytes(), id.as_bytes()]);
    }
    store(&server, "q", "later", b"later\n");
    let later = (now + 3600.0).to_string();
    let _: () = server.cmd(&[b"ZADD", b"q:scheduled", later.as_bytes(), b"later"]);

    // The listing reads every score sensibly (no "infd", no panic).
    let out = qctl(&server)
        .args(["scheduled", "list", "q"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let listing = String::from_utf8_lossy(&out);
    assert!(listing.contains("due (score -inf)"), "{listing}");
    assert!(!listing.contains("infd"), "{listing}");

    let out = qctl(&server)
        .args(["consume", "q", "--drain", "-c", "2"])
        .args(FAST)
        .args(["--", "cat"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let mut ran: Vec<String> = String::from_utf8_lossy(&out)
        .lines()
        .map(str::to_string)
        .collect();
    ran.sort();
    assert_eq!(
        ran,
        ["minus-inf", "negative", "zero"],
        "each due job ran once"
    );
    assert_eq!(
        server.zrange_withscores("q:scheduled"),
        vec![("later".to_string(), later.parse::<f64>().unwrap())],
        "the job due later stays, with its score"
    );
    assert!(server.hget_bytes("q:data", "later").is_some());
    figure(
        "F7 scheduled scores 0, -5, -inf: all 3 ran once, lost=0 dup=0; a job due in 1h left alone",
    );
}

#[test]
fn f8_heartbeats_in_the_future_are_flagged_once_and_recovered_only_when_they_stop_changing() {
    let server = RedisServer::start();
    let now = qctl::engine::now();
    // A dead consumer whose clock was 10 minutes ahead: its score never changes.
    let frozen = fake_consumer(
        &server,
        "q",
        "0b7d3e2a-1c4f-4d5e-9f00-aabbccddeeff",
        &(now + 600.0).to_string(),
        &["frozen-job"],
    );
    // A live consumer whose clock is ahead: the test renews its score below.
    let live = fake_consumer(
        &server,
        "q",
        "1b7d3e2a-1c4f-4d5e-9f00-aabbccddeeff",
        &(now + 600.0).to_string(),
        &["live-job"],
    );
    // A consumer whose heartbeat is long past: expired at once.
    fake_consumer(
        &server,
        "q",
        "2b7d3e2a-1c4f-4d5e-9f00-aabbccddeeff",
        &(now - 600.0).to_string(),
        &["past-job"],
    );
    let started = Instant::now();
    let consumer = spawn_consumer(
        &server,
        &[&["q", "-c", "2"][..], FAST, &["--", "cat"]].concat(),
    );
    assert!(
        wait_until(Duration::from_secs(5), || server
            .hget_bytes("q:data", "past-job")
            .is_none()),
        "a heartbeat in the past is recovered at once"
    );
    let mut frozen_recovered_at = None;
    while started.elapsed() < Duration::from_secs(9) {
        let beat = (qctl::engine::now() + 600.0).to_string();
        let _: () = server.cmd(&[b"ZADD", b"q:consumers", beat.as_bytes(), live.as_bytes()]);
        if frozen_recovered_at.is_none() && server.hget_bytes("q:data", "frozen-job").is_none() {
            frozen_recovered_at = Some(started.elapsed());
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    support::signal(&consumer, nix::sys::signal::Signal::SIGTERM);
    let out = consumer.wait_with_output_bounded(Duration::from_secs(10));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let recovered = frozen_recovered_at.expect("the frozen heartbeat's job was recovered and run");
    assert!(
        recovered >= Duration::from_millis(2900),
        "recovered before the heartbeat had been unchanged for --orphan-after: {recovered:?}"
    );
    let mine: Vec<String> = server.cmd(&[b"SMEMBERS", live.as_bytes()]);
    assert_eq!(
        mine,
        ["live-job"],
        "a live consumer ahead of time keeps its job"
    );
    assert!(server.hget_bytes("q:data", "live-job").is_some());
    assert_eq!(server.key_type(&frozen), "none");
    // Said once per consumer, however many passes saw it.
    assert_eq!(
        count(&stderr, &format!("consumer {live:?} has a heartbeat")),
        1,
        "{stderr}"
    );
    assert_eq!(
        count(&stderr, &format!("consumer {frozen:?} has a heartbeat")),
        1,
        "{stderr}"
    );
    let listed = qctl(&server)
        .args(["--json", "consumers", "q"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let rows: serde_json::Value = serde_json::from_slice(&listed).unwrap();
    let row = rows
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["consumer"] == live.as_str())
        .unwrap();
    assert!(row["clock_ahead_secs"].as_f64().unwrap() > 500.0);
    figure(&format!(
        "F8 heartbeats: past one recovered at start; frozen one 600s ahead recovered after {:.1}s unchanged (cut-off 3s); live one ahead kept its job for 9s; each flagged once",
        recovered.as_secs_f64()
    ));
}

#[test]
fn f9_bad_consumer_entries_are_skipped_once_and_9000_orphans_move_in_batches() {
    let server = RedisServer::start();
    let old = (qctl::engine::now() - 600.0).to_string();
    // Members that are not in-flight keys of this queue, and one whose key is not a set.
    for member in [
        "q:inflight:not-a-uuid",
        "other:inflight:3b7d3e2a-1c4f-4d5e-9f00-aabbccddeeff",
    ] {
        let _: () = server.cmd(&[b"ZADD", b"q:consumers", old.as_bytes(), member.as_bytes()]);
    }
    let stringy = "q:inflight:4b7d3e2a-1c4f-4d5e-9f00-aabbccddeeff";
    let _: () = server.cmd(&[b"SET", stringy.as_bytes(), b"not a set"]);
    let _: () = server.cmd(&[b"ZADD", b"q:consumers", old.as_bytes(), stringy.as_bytes()]);
    // 9,000 orphans of one expired consumer.
    let big = "q:inflight:5b7d3e2a-1c4f-4d5e-9f00-aabbccddeeff";
    let ids: Vec<String> = (0..9000).map(|i| format!("o{i:05}")).collect();
    let mut con = server.conn();
    for chunk in ids.chunks(1000) {
        let mut pipe = redis::pipe();
        for id in chunk {
            pipe.hset("q:data", id, Job::new(id.as_str(), Some(vec![])).encode())
                .ignore();
        }
        pipe.sadd(big, chunk).ignore();
        let _: () = pipe.query(&mut con).unwrap();
    }
    let _: () = server.cmd(&[b"ZADD", b"q:consumers", old.as_bytes(), big.as_bytes()]);

    // A running consumer, paused so that it only recovers: several custodian passes.
    let _: () = server.cmd(&[b"SET", b"q:paused", b"1"]);
    let consumer = spawn_consumer(
        &server,
        &[&["q", "-c", "1"][..], FAST, &["--", "true"]].concat(),
    );
    assert!(wait_until(Duration::from_secs(10), || server
        .cmd::<u64>(&[b"LLEN", b"q:active"])
        == 9000));
    // Let the custodian (every second at this cut-off) pass over the bad members again.
    std::thread::sleep(Duration::from_millis(3500));
    support::signal(&consumer, nix::sys::signal::Signal::SIGTERM);
    let out = consumer.wait_with_output_bounded(Duration::from_secs(10));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let mut active = server.lrange("q:active");
    active.sort();
    assert_eq!(active, ids, "every orphan moved once, none lost");
    assert_eq!(server.key_type(big), "none");
    for (member, why) in [
        ("q:inflight:not-a-uuid", "not of the form q:inflight:<uuid>"),
        (
            "other:inflight:3b7d3e2a-1c4f-4d5e-9f00-aabbccddeeff",
            "not of the form q:inflight:<uuid>",
        ),
        (stringy, "its in-flight key is not a set"),
    ] {
        let line = format!("orphan recovery skipped {member:?}: {why}");
        assert_eq!(count(&stderr, &line), 1, "said once: {line}\n{stderr}");
    }
    assert_eq!(
        server.cmd::<String>(&[b"GET", stringy.as_bytes()]),
        "not a set",
        "a bad member's key is never touched"
    );
    figure("F9 consumer entries: 3 bad members skipped and said once over 4+ passes; 9,000 orphans of one consumer recovered (1000 ids a script call), lost=0 dup=0");
}

/// Waiting for a child with a bound, for tests that must not hang.
trait WaitBounded {
    fn wait_with_output_bounded(self, limit: Duration) -> std::process::Output;
}

impl WaitBounded for std::process::Child {
    fn wait_with_output_bounded(mut self, limit: Duration) -> std::process::Output {
        let deadline = Instant::now() + limit;
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.try_wait() {
                return self.wait_with_output().expect("collect the output");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.kill();
        let out = self.wait_with_output().expect("collect the output");
        panic!(
            "the process did not exit within {limit:?}; stderr:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
