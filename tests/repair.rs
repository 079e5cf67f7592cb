//! Inspect and repair commands against real redis-servers, checked key by key.

mod support;

use std::time::Duration;

use predicates::str::contains;
use qctl::engine::failure::Failure;
use qctl::engine::Job;
use support::{hold_in_flight, qctl, signal, spawn_consumer, wait_until, RedisServer};

/// A dead job as a consumer leaves it: record with Attempt, id in q:dead, failure recorded.
fn kill(server: &RedisServer, id: &str, data: &[u8], attempt: i64, died: f64) {
    let record = Job {
        id: id.into(),
        data: Some(data.to_vec()),
        attempt,
    }
    .encode();
    let failure = Failure {
        reason: "exit 3".into(),
        exit_code: Some(3),
        stderr: "boom\n".into(),
        ..Failure::default()
    };
    let _: () = server.cmd(&[b"HSET", b"q:data", id.as_bytes(), &record]);
    let _: () = server.cmd(&[
        b"ZADD",
        b"q:dead",
        died.to_string().as_bytes(),
        id.as_bytes(),
    ]);
    let _: () = server.cmd(&[
        b"HSET",
        b"q:failures",
        id.as_bytes(),
        failure.to_json().as_bytes(),
    ]);
}

fn record(server: &RedisServer, id: &str) -> Option<Job> {
    server
        .hget_bytes("q:data", id)
        .map(|b| Job::decode(&b).unwrap())
}

fn json_lines(out: &[u8]) -> Vec<serde_json::Value> {
    String::from_utf8(out.to_vec())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn keys_of(v: &serde_json::Value) -> Vec<String> {
    let mut k: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
    k.sort();
    k
}

#[test]
fn stats_counts_every_state_and_changes_nothing() {
    let server = RedisServer::start();
    qctl(&server).args(["enqueue", "q", "a"]).assert().success();
    qctl(&server)
        .args(["enqueue", "q", "--in", "1h", "later"])
        .assert()
        .success();
    qctl(&server)
        .args(["enqueue", "q", "--at", "1", "--id", "due", "x"])
        .assert()
        .success();
    let due = Job::new("due2", Some(b"x".to_vec())).encode();
    let _: () = server.cmd(&[b"HSET", b"q:data", b"due2", &due]);
    let _: () = server.cmd(&[b"ZADD", b"q:scheduled", b"1", b"due2"]);
    kill(&server, "d", b"x", 21, 1_700_000_000.0);
    hold_in_flight(&server, "q");
    let _: () = server.cmd(&[b"SET", b"q:paused", b"1"]);
    let _: () = server.cmd(&[b"SET", b"other:active", b"wrong type"]);
    let before = server.dump_all();
    // A wrong-typed key is listed as such and makes the exit code 4.
    let out = qctl(&server)
        .args(["--json", "stats"])
        .assert()
        .code(4)
        .get_output()
        .stdout
        .clone();
    assert_eq!(server.dump_all(), before, "stats changed something");
    let rows = json_lines(&out).remove(0);
    let rows = rows.as_array().unwrap();
    let q = rows
        .iter()
        .find(|r| r["queue"] == "q")
        .expect("queue q found by SCAN");
    assert_eq!(
        keys_of(q),
        [
            "active",
            "consumers_alive",
            "consumers_expired",
            "dead",
            "done",
            "failed",
            "in_flight",
            "overdue_secs",
            "paused",
            "queue",
            "scheduled_due",
            "scheduled_later",
            "wrong_type"
        ]
    );
    assert_eq!(q["active"], 2);
    assert_eq!(q["scheduled_due"], 1);
    assert_eq!(q["scheduled_later"], 1);
    assert_eq!(q["dead"], 1);
    assert_eq!(q["in_flight"], 1);
    assert_eq!(q["consumers_alive"], 1);
    assert_eq!(q["consumers_expired"], 1);
    assert_eq!(q["paused"], true);
    let other = rows
        .iter()
        .find(|r| r["queue"] == "other")
        .expect("a wrong-typed queue is still listed");
    assert!(other["active"].is_null());
    assert_eq!(other["wrong_type"], serde_json::json!(["other:active"]));
}

#[test]
fn dead_list_pages_newest_first_filters_and_marks_damage() {
    let server = RedisServer::start();
    for i in 0..7 {
        kill(
            &server,
            &format!("j{i}"),
            format!("payload {i}").as_bytes(),
            i,
            1_700_000_000.0 + i as f64,
        );
    }
    let _: () = server.cmd(&[b"HSET", b"q:data", b"bad", b"garbage"]);
    let _: () = server.cmd(&[b"ZADD", b"q:dead", b"1600000000", b"bad"]);
    let before = server.dump_all();
    let mut seen = Vec::new();
    for offset in ["0", "3", "6"] {
        let out = qctl(&server)
            .args([
                "--json", "dead", "list", "q", "--limit", "3", "--offset", offset,
            ])
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        let page = json_lines(&out).remove(0);
        seen.extend(
            page.as_array()
                .unwrap()
                .iter()
                .map(|e| e["id"].as_str().unwrap().to_string()),
        );
    }
    assert_eq!(seen, ["j6", "j5", "j4", "j3", "j2", "j1", "j0", "bad"]);
    let out = qctl(&server)
        .args(["--json", "dead", "list", "q", "--limit", "50"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let all = json_lines(&out).remove(0);
    let first = &all[0];
    assert_eq!(
        keys_of(first),
        ["attempt", "damaged", "data", "died", "died_at", "failure", "id"]
    );
    assert_eq!(first["failure"]["reason"], "exit 3");
    let bad = all
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["id"] == "bad")
        .unwrap();
    assert!(bad["damaged"].as_str().unwrap().contains("msgpack"));
    let grep = qctl(&server)
        .args(["--json", "dead", "list", "q", "--grep", "payload 3"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert_eq!(json_lines(&grep)[0][0]["id"], "j3");
    let range = qctl(&server)
        .args([
            "--json",
            "dead",
            "list",
            "q",
            "--since",
            "1700000002",
            "--until",
            "1700000004",
        ])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let ids: Vec<String> = json_lines(&range)[0]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_str().unwrap().into())
        .collect();
    assert_eq!(ids, ["j4", "j3", "j2"]);
    let min = qctl(&server)
        .args(["dead", "list", "q", "--min-attempts", "5", "--jsonl"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let ids: Vec<String> = json_lines(&min)
        .iter()
        .map(|e| e["id"].as_str().unwrap().into())
        .collect();
    assert_eq!(ids, ["j6", "j5"]);
    qctl(&server)
        .args(["dead", "list", "q"])
        .assert()
        .success()
        .stdout(contains("damaged"));
    assert_eq!(server.dump_all(), before, "listing changed something");
}

#[test]
fn dead_show_raw_writes_the_data_bytes_exactly() {
    let server = RedisServer::start();
    let data: Vec<u8> = (0..=255u8).collect();
    kill(&server, "bin", &data, 3, 1_700_000_000.0);
    qctl(&server)
        .args(["dead", "show", "q", "bin", "--raw"])
        .assert()
        .success()
        .stdout(data);
    qctl(&server)
        .args(["dead", "show", "q", "bin"])
        .assert()
        .success()
        .stdout(contains("exit 3").and(contains("boom")));
    qctl(&server)
        .args(["dead", "show", "q", "nope"])
        .assert()
        .code(5);
}

use predicates::prelude::PredicateBooleanExt;

#[test]
fn dead_requeue_resets_attempt_clears_the_failure_and_wakes_consumers() {
    let server = RedisServer::start();
    kill(&server, "a", b"x", 21, 1_700_000_000.0);
    kill(&server, "b", b"y", 21, 1_700_000_001.0);
    qctl(&server)
        .args(["dead", "requeue", "q", "a"])
        .assert()
        .success();
    assert_eq!(server.lrange("q:active"), vec!["a"]);
    assert_eq!(record(&server, "a").unwrap().attempt, 0);
    assert_eq!(server.hget_bytes("q:failures", "a"), None);
    assert_eq!(server.lrange("q:signal"), vec!["1"]);
    qctl(&server)
        .args(["dead", "requeue", "q", "b", "--keep-attempts"])
        .assert()
        .success();
    assert_eq!(record(&server, "b").unwrap().attempt, 21);
    assert!(server.zrange_withscores("q:dead").is_empty());
    qctl(&server)
        .args(["dead", "requeue", "q", "a"])
        .assert()
        .code(5)
        .stderr(contains("\"a\""));
}

#[test]
fn bulk_commands_without_a_terminal_refuse_and_print_the_command_to_rerun() {
    let server = RedisServer::start();
    kill(&server, "a", b"x", 21, 1_700_000_000.0);
    qctl(&server)
        .args(["enqueue", "q", "--id", "s", "--in", "1h", "x"])
        .assert()
        .success();
    qctl(&server)
        .args(["enqueue", "q", "--id", "r", "x"])
        .assert()
        .success();
    let before = server.dump_all();
    for args in [
        &["dead", "requeue", "q", "--all"][..],
        &["dead", "delete", "q", "a"][..],
        &["scheduled", "delete", "q", "s"][..],
        &["active", "delete", "q", "r"][..],
        &["purge", "q"][..],
    ] {
        qctl(&server)
            .args(args)
            .assert()
            .code(2)
            .stderr(contains("--yes").and(contains(args[0])));
    }
    qctl(&server)
        .args(["dead", "requeue", "q", "--all", "--dry-run"])
        .assert()
        .success();
    assert_eq!(server.dump_all(), before);
}

#[test]
fn dead_requeue_all_moves_everything_and_a_running_consumer_runs_it() {
    let server = RedisServer::start();
    for i in 0..5 {
        kill(
            &server,
            &format!("j{i}"),
            b"x",
            21,
            1_700_000_000.0 + i as f64,
        );
    }
    let mut consumer = spawn_consumer(&server, &["q", "--poll-interval", "200ms", "--", "true"]);
    assert!(wait_until(Duration::from_secs(10), || server
        .zrange_withscores("q:consumers")
        .len()
        == 1));
    qctl(&server)
        .args(["dead", "requeue", "q", "--all", "--yes"])
        .assert()
        .success()
        .stderr(contains("requeued 5"));
    let ran = wait_until(Duration::from_secs(10), || {
        let n: u64 = server.cmd(&[b"HLEN", b"q:data"]);
        n == 0
    });
    signal(&consumer, nix::sys::signal::Signal::SIGTERM);
    let _ = consumer.wait();
    assert!(ran, "requeued jobs did not run: {:?}", server.dump_all());
}

#[test]
fn dead_delete_removes_id_record_and_failure_together() {
    let server = RedisServer::start();
    let now = qctl::engine::now();
    kill(&server, "old", b"x", 21, now - 40.0 * 86400.0);
    kill(&server, "new", b"x", 21, now - 60.0);
    qctl(&server)
        .args(["dead", "delete", "q", "--older-than", "30d", "--yes"])
        .assert()
        .success();
    assert_eq!(server.hget_bytes("q:data", "old"), None);
    assert_eq!(server.hget_bytes("q:failures", "old"), None);
    assert_eq!(server.zrange_withscores("q:dead").len(), 1);
    qctl(&server)
        .args(["dead", "delete", "q", "new", "--yes"])
        .assert()
        .success();
    assert_eq!(server.key_type("q:data"), "none");
    assert_eq!(server.key_type("q:failures"), "none");
    assert_eq!(server.key_type("q:dead"), "none");
}

#[test]
fn dead_export_reimports_with_the_same_data_and_attempts() {
    let server = RedisServer::start();
    kill(&server, "t", b"text", 4, 1_700_000_000.0);
    kill(&server, "b", &[0, 255, 1], 2, 1_700_000_001.0);
    let out = qctl(&server)
        .args(["dead", "export", "q"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    qctl(&server)
        .args(["enqueue", "copy", "--jsonl"])
        .write_stdin(out)
        .assert()
        .success();
    let get = |id: &str| Job::decode(&server.hget_bytes("copy:data", id).unwrap()).unwrap();
    assert_eq!(
        (get("t").data.unwrap(), get("t").attempt),
        (b"text".to_vec(), 4)
    );
    assert_eq!(
        (get("b").data.unwrap(), get("b").attempt),
        (vec![0, 255, 1], 2)
    );
}

#[test]
fn scheduled_run_now_moves_the_job_to_active_and_delete_removes_it() {
    let server = RedisServer::start();
    qctl(&server)
        .args(["enqueue", "q", "--id", "s1", "--in", "1h", "x"])
        .assert()
        .success();
    qctl(&server)
        .args(["enqueue", "q", "--id", "s2", "--in", "2h", "x"])
        .assert()
        .success();
    qctl(&server)
        .args(["scheduled", "list", "q"])
        .assert()
        .success()
        .stdout(contains("in 1h").and(contains("delayed")));
    qctl(&server)
        .args(["scheduled", "run-now", "q", "s1"])
        .assert()
        .success();
    assert_eq!(server.lrange("q:active"), vec!["s1"]);
    assert_eq!(server.lrange("q:signal"), vec!["1"]);
    qctl(&server)
        .args(["scheduled", "delete", "q", "s2", "--yes"])
        .assert()
        .success();
    assert!(server.zrange_withscores("q:scheduled").is_empty());
    assert_eq!(server.hget_bytes("q:data", "s2"), None);
}

#[test]
fn active_list_peeks_in_order_and_reserves_nothing() {
    let server = RedisServer::start();
    for id in ["a", "b", "c"] {
        qctl(&server)
            .args(["enqueue", "q", "--id", id, id])
            .assert()
            .success();
    }
    let before = server.dump_all();
    let out = qctl(&server)
        .args(["active", "list", "q", "--jsonl", "--limit", "2"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let ids: Vec<String> = json_lines(&out)
        .iter()
        .map(|e| e["id"].as_str().unwrap().into())
        .collect();
    assert_eq!(ids, ["a", "b"]);
    assert_eq!(server.dump_all(), before);
    qctl(&server)
        .args(["active", "delete", "q", "b", "--yes"])
        .assert()
        .success();
    assert_eq!(server.lrange("q:active"), vec!["a", "c"]);
    assert_eq!(server.hget_bytes("q:data", "b"), None);
}

#[test]
fn consumers_and_orphans_judge_heartbeats_and_skip_invalid_members() {
    let server = RedisServer::start();
    let now = qctl::engine::now();
    let alive = "q:inflight:0b7d3e2a-1c4f-4d5e-9f00-aabbccddeeff";
    let dead = "q:inflight:1b7d3e2a-1c4f-4d5e-9f00-aabbccddeeff";
    let ahead = "q:inflight:2b7d3e2a-1c4f-4d5e-9f00-aabbccddeeff";
    for (key, beat) in [
        (alive, now),
        (dead, now - 600.0),
        (ahead, now + 180.0),
        ("q:inflight:not-a-uuid", now - 600.0),
    ] {
        let _: () = server.cmd(&[
            b"ZADD",
            b"q:consumers",
            beat.to_string().as_bytes(),
            key.as_bytes(),
        ]);
    }
    let ids: Vec<String> = (0..2500).map(|i| format!("o{i}")).collect();
    let mut con = server.conn();
    for chunk in ids.chunks(500) {
        let _: () = redis::cmd("SADD")
            .arg(dead)
            .arg(chunk)
            .query(&mut con)
            .unwrap();
    }
    let _: () = server.cmd(&[b"SADD", alive.as_bytes(), b"mine"]);
    let out = qctl(&server)
        .args(["--json", "consumers", "q"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let rows = json_lines(&out).remove(0);
    assert_eq!(
        keys_of(&rows[0]),
        [
            "alive",
            "clock_ahead_secs",
            "command",
            "concurrency",
            "consumer",
            "depth",
            "depth_auto",
            "failed",
            "heartbeat",
            "heartbeat_age_secs",
            "host",
            "in_flight",
            "mode",
            "pid",
            "problem",
            "process",
            "quiet",
            "ran",
            "run_by",
            "started",
            "takes_orders",
            "version"
        ]
    );
    let by = |k: &str| {
        rows.as_array()
            .unwrap()
            .iter()
            .find(|r| r["consumer"] == k)
            .unwrap()
            .clone()
    };
    assert_eq!(by(alive)["alive"], true);
    assert_eq!(by(dead)["alive"], false);
    assert_eq!(by(dead)["in_flight"], 2500);
    assert!(by("q:inflight:not-a-uuid")["problem"].is_string());
    // A heartbeat in the future is flagged, not shown as alive "in 3m" and left at that.
    let far = by(ahead)["clock_ahead_secs"].as_f64().unwrap();
    assert!((175.0..=185.0).contains(&far), "{far}");
    assert!(by(ahead)["problem"]
        .as_str()
        .unwrap()
        .contains("in the future"));
    assert!(by(alive)["clock_ahead_secs"].is_null());
    qctl(&server)
        .args(["consumers", "q"])
        .assert()
        .success()
        .stdout(contains("in the future"));
    let _: () = server.cmd(&[b"SADD", ahead.as_bytes(), b"theirs"]);
    let before = server.dump_all();
    qctl(&server)
        .args(["orphans", "q", "--dry-run"])
        .assert()
        .success()
        .stdout(contains("would recover 2,500 jobs of"));
    assert_eq!(server.dump_all(), before);
    qctl(&server)
        .args(["orphans", "q", "--yes"])
        .assert()
        .code(7)
        .stdout(contains("not-a-uuid"))
        .stdout(contains("in the future"));
    assert_eq!(
        server.lrange("q:active").len(),
        2500,
        "every orphan moved, in bounded batches"
    );
    assert_eq!(server.key_type(dead), "none");
    let members: Vec<String> = server
        .zrange_withscores("q:consumers")
        .into_iter()
        .map(|(k, _)| k)
        .collect();
    assert!(members.contains(&alive.to_string()) && !members.contains(&dead.to_string()));
    let mine: Vec<String> = server.cmd(&[b"SMEMBERS", alive.as_bytes()]);
    assert_eq!(mine, vec!["mine"], "a live consumer keeps its jobs");
    let theirs: Vec<String> = server.cmd(&[b"SMEMBERS", ahead.as_bytes()]);
    assert_eq!(
        theirs,
        vec!["theirs"],
        "one look cannot judge a heartbeat ahead"
    );
}

#[test]
fn pause_holds_jobs_from_a_running_consumer_until_resume() {
    let server = RedisServer::start();
    qctl(&server).args(["pause", "q"]).assert().success();
    assert_eq!(server.key_type("q:paused"), "string");
    qctl(&server).args(["pause", "q"]).assert().success();
    qctl(&server)
        .args(["enqueue", "q", "--id", "p", "x"])
        .assert()
        .success();
    let mut consumer = spawn_consumer(&server, &["q", "--poll-interval", "200ms", "--", "true"]);
    std::thread::sleep(Duration::from_millis(1200));
    assert_eq!(server.lrange("q:active"), vec!["p"]);
    qctl(&server).args(["resume", "q"]).assert().success();
    assert_eq!(server.key_type("q:paused"), "none");
    let ran = wait_until(Duration::from_secs(5), || {
        server.hget_bytes("q:data", "p").is_none()
    });
    signal(&consumer, nix::sys::signal::Signal::SIGTERM);
    let _ = consumer.wait();
    assert!(ran);
}

#[test]
fn purge_deletes_every_key_of_the_queue_and_nothing_else() {
    let server = RedisServer::start();
    qctl(&server).args(["enqueue", "q", "x"]).assert().success();
    qctl(&server)
        .args(["enqueue", "keep", "x"])
        .assert()
        .success();
    kill(&server, "d", b"x", 1, 1_700_000_000.0);
    let inflight = "q:inflight:0b7d3e2a-1c4f-4d5e-9f00-aabbccddeeff";
    let _: () = server.cmd(&[b"SADD", inflight.as_bytes(), b"z"]);
    let _: () = server.cmd(&[b"HSET", b"q:stats", b"completed", b"3"]);
    qctl(&server)
        .args(["purge", "q", "--yes"])
        .assert()
        .success();
    let left: Vec<String> = server.dump_all().into_iter().map(|(k, _, _)| k).collect();
    // But for the record of its changes, with the purge in it.
    assert!(
        left.iter()
            .all(|k| k.starts_with("keep:") || k == "q:changes"),
        "left behind: {left:?}"
    );
    assert!(left.contains(&"keep:data".to_string()));
}

#[test]
fn bulk_requeue_walks_past_thousands_of_equal_scores_without_missing_any() {
    let server = RedisServer::start();
    let mut con = server.conn();
    for i in 0..9000 {
        let id = format!("t{i}");
        let record = Job {
            id: id.clone(),
            data: Some(b"x".to_vec()),
            attempt: 21,
        }
        .encode();
        // Three scores only: each tie group is larger than one read window.
        let died = 1_700_000_000 + i / 3000;
        let _: () = redis::pipe()
            .hset("q:data", &id, record)
            .zadd("q:dead", &id, died)
            .query(&mut con)
            .unwrap();
    }
    qctl(&server)
        .args(["dead", "requeue", "q", "--all", "--yes"])
        .assert()
        .success()
        .stderr(contains("requeued 9000, not found 0, skipped 0"));
    assert_eq!(server.lrange("q:active").len(), 9000);
    assert_eq!(server.key_type("q:dead"), "none");
}

#[test]
fn dead_list_streams_json_over_many_chunks_newest_first() {
    let server = RedisServer::start();
    let mut con = server.conn();
    let mut pipe = redis::pipe();
    for i in 0..2500u32 {
        let id = format!("d{i:04}");
        pipe.hset(
            "q:data",
            &id,
            Job::new(id.as_str(), Some(b"x".to_vec())).encode(),
        )
        .ignore()
        .zadd("q:dead", &id, 1_700_000_000 + i)
        .ignore();
    }
    let _: () = pipe.query(&mut con).unwrap();
    let out = qctl(&server)
        .args(["dead", "list", "q", "--jsonl", "--limit", "200000"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let lines = json_lines(&out);
    assert_eq!(lines.len(), 2500, "every job, across chunks of 1000");
    assert_eq!(lines[0]["id"], "d2499");
    assert_eq!(lines[2499]["id"], "d0000");
    let out = qctl(&server)
        .args([
            "--json", "dead", "list", "q", "--limit", "1500", "--offset", "700",
        ])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let page: serde_json::Value = serde_json::from_slice(&out).expect("one JSON array");
    let page = page.as_array().unwrap();
    assert_eq!(page.len(), 1500);
    assert_eq!(page[0]["id"], "d1799");
    assert_eq!(page[1499]["id"], "d0300");
}

#[test]
fn a_page_of_a_listing_says_so_in_json_too_and_limit_0_lists_every_job() {
    let server = RedisServer::start();
    // 90 jobs in each of the dead set, the scheduled set and the ready list.
    for i in 0..90 {
        kill(&server, &format!("d{i:02}"), b"x", 1, 1000.0 + i as f64);
    }
    qctl(&server)
        .args(["enqueue", "q", "--in", "1h", "--lines"])
        .write_stdin("x\n".repeat(90))
        .assert()
        .success();
    qctl(&server)
        .args(["enqueue", "q", "--lines"])
        .write_stdin("x\n".repeat(90))
        .assert()
        .success();
    let jobs = |out: &[u8], jsonl: bool| -> usize {
        if jsonl {
            json_lines(out).len()
        } else {
            serde_json::from_slice::<Vec<serde_json::Value>>(out)
                .expect("a JSON array")
                .len()
        }
    };
    for (place, key) in [
        ("dead", "q:dead"),
        ("scheduled", "q:scheduled"),
        ("active", "q:active"),
    ] {
        for format in ["--json", "--jsonl"] {
            let jsonl = format == "--jsonl";
            let run = |extra: &[&str]| {
                let out = qctl(&server)
                    .args([place, "list", "q", format])
                    .args(extra)
                    .assert()
                    .success();
                let out = out.get_output();
                (
                    jobs(&out.stdout, jsonl),
                    String::from_utf8_lossy(&out.stderr).into_owned(),
                )
            };
            // The default page: 20 jobs, and stderr says it is a page and how to get all.
            let (n, err) = run(&[]);
            assert_eq!(n, 20, "{place} {format}");
            assert!(
                err.contains(&format!(
                    "20 shown of 90 in {key}; next page: --offset 20 (--limit 0 shows every one)"
                )),
                "{place} {format}: {err:?}"
            );
            // A page with nothing after it, and every job: nothing to say.
            for (extra, expected) in [
                (&["--offset", "80"][..], 10),
                (&["--limit", "0"], 90),
                (&["--limit", "90"], 90),
            ] {
                let (n, err) = run(extra);
                assert_eq!(n, expected, "{place} {format} {extra:?}");
                assert!(err.is_empty(), "{place} {format} {extra:?}: {err:?}");
            }
        }
        // A table says the same, and --limit 0 lists every job there too.
        let out = qctl(&server)
            .args([place, "list", "q", "--limit", "0"])
            .assert()
            .success();
        let out = out.get_output();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            String::from_utf8_lossy(&out.stdout).lines().count(),
            91,
            "{place}: a header and 90 jobs"
        );
        assert!(err.contains(&format!("90 shown of 90 in {key}")), "{err}");
        assert!(!err.contains("next page"), "{err}");
    }
}

#[test]
fn stats_watch_json_gives_every_object_its_time_and_rates() {
    let server = RedisServer::start();
    qctl(&server).args(["enqueue", "q", "x"]).assert().success();
    let mut cmd = support::qctl_process(&server);
    cmd.args(["stats", "--watch", "300ms", "--json"]);
    let mut watch = support::Background::spawn(cmd);
    assert!(
        wait_until(Duration::from_secs(60), || watch.stdout().lines().count()
            >= 3),
        "{}",
        watch.stderr()
    );
    assert_eq!(
        watch.stop(Duration::from_secs(20)).and_then(|s| s.code()),
        Some(0)
    );
    let readings: Vec<serde_json::Value> = watch
        .stdout()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut times = Vec::new();
    for (i, reading) in readings.iter().enumerate() {
        let q = &reading.as_array().unwrap()[0];
        assert_eq!(q["queue"], "q");
        let time = q["time"].as_f64().unwrap_or_else(|| panic!("{q}"));
        assert!((time - qctl::engine::now()).abs() < 3600.0, "{q}");
        times.push(time);
        // Each object has the rates: null while no reading before tells them, then a rate.
        for field in ["done_per_sec", "failed_per_sec"] {
            let v = q.get(field).unwrap_or_else(|| panic!("no {field}: {q}"));
            if i == 0 {
                assert!(v.is_null(), "{q}");
            } else {
                assert_eq!(v.as_f64(), Some(0.0), "{q}");
            }
        }
    }
    assert!(times.windows(2).all(|w| w[0] < w[1]), "{times:?}");
    // Once, without --watch, the object is as it was.
    let out = qctl(&server).args(["stats", "--json"]).assert().success();
    let once: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert!(once[0].get("time").is_none() && once[0].get("done_per_sec").is_none());
}

#[test]
fn orphans_and_purge_leave_queues_named_after_the_queue_alone() {
    // Beside `p`, queues named `p:inflight:abc`, `p:inflight`, `p:data`, ... whose keys match
    // `p:inflight:*` and `p:*`, each with a consumer expired long ago holding a job.
    let server = RedisServer::start();
    let expired = "p:inflight:1b7d3e2a-1c4f-4d5e-9f00-aabbccddeeff";
    let record = Job::new("p-held", Some(b"x".to_vec())).encode();
    let _: () = server.cmd(&[b"HSET", b"p:data", b"p-held", &record]);
    let _: () = server.cmd(&[b"SADD", expired.as_bytes(), b"p-held"]);
    let _: () = server.cmd(&[b"ZADD", b"p:consumers", b"1000", expired.as_bytes()]);
    let planted = support::neighbours::plant(&server, "p");
    let before = support::neighbours::dump(&server, &planted);

    let out = qctl(&server)
        .args(["--json", "orphans", "p", "--yes"])
        .assert()
        .success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned()
        + &String::from_utf8_lossy(&out.get_output().stderr);
    assert_eq!(server.lrange("p:active"), ["p-held"], "{text}");
    assert_eq!(support::neighbours::mentioned(&planted, &text), None);
    assert_eq!(support::neighbours::dump(&server, &planted), before);

    let out = qctl(&server)
        .args(["--json", "purge", "p", "--dry-run"])
        .assert()
        .success();
    let preview: serde_json::Value =
        serde_json::from_slice(&out.get_output().stdout).expect("JSON");
    assert_eq!(
        preview["keys"],
        serde_json::json!(["p:active", "p:data", "p:signal"]),
        "{preview}"
    );
    qctl(&server)
        .args(["purge", "p", "--yes"])
        .assert()
        .success();
    let mut left: Vec<String> = server.cmd(&[b"KEYS", b"*"]);
    // And the record of the changes of p, with the orphans and the purge in it.
    left.retain(|k| k != "p:changes");
    left.sort();
    assert_eq!(left, planted, "only the neighbours' keys are left");
    assert_eq!(support::neighbours::dump(&server, &planted), before);
}

/// A pid that no process has: that of a process that ended and was collected.
fn dead_pid() -> u32 {
    let mut child = std::process::Command::new("true")
        .spawn()
        .expect("run true");
    let pid = child.id();
    child.wait().expect("wait for true");
    pid
}

fn this_host() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .expect("host name")
        .trim()
        .to_string()
}

/// A consumer of `q` holding `id`, its heartbeat `age` seconds old; described as a qctl
/// consumer of this host with the pid `pid` when one is given (no expiry on the
/// description, and its list of running jobs).
fn plant_consumer(server: &RedisServer, uuid: &str, id: &str, age: f64, pid: Option<u32>) {
    let member = format!("q:inflight:{uuid}");
    let record = Job::new(id, Some(b"x".to_vec())).encode();
    let _: () = server.cmd(&[b"HSET", b"q:data", id.as_bytes(), &record]);
    let _: () = server.cmd(&[b"SADD", member.as_bytes(), id.as_bytes()]);
    let beat = (qctl::engine::now() - age).to_string();
    let _: () = server.cmd(&[b"ZADD", b"q:consumers", beat.as_bytes(), member.as_bytes()]);
    if let Some(pid) = pid {
        let info = format!("q:consumer:{uuid}");
        let _: () = server.cmd(&[
            b"HSET",
            info.as_bytes(),
            b"host",
            this_host().as_bytes(),
            b"pid",
            pid.to_string().as_bytes(),
            b"version",
            b"0.1.0",
        ]);
        let running = format!("{info}:running");
        let _: () = server.cmd(&[b"HSET", running.as_bytes(), id.as_bytes(), beat.as_bytes()]);
    }
}

#[test]
fn orphans_says_when_the_first_lease_ends_and_asks_a_question_that_reads() {
    let server = RedisServer::start();
    // A Go CurlyQ consumer beating, and a qctl consumer of this host whose process is gone.
    let go = "0b7d3e2a-1c4f-4d5e-9f00-aabbccddeeff";
    let gone = "1b7d3e2a-1c4f-4d5e-9f00-aabbccddeeff";
    let pid = dead_pid();
    plant_consumer(&server, go, "go-job", 2.0, None);
    plant_consumer(&server, gone, "gone-job", 5.0, Some(pid));

    // Nothing expired yet: when the first will be, and what --orphan-after does.
    let out = qctl(&server).args(["orphans", "q"]).assert().success();
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        err.contains(&format!(
            "no expired consumers: a consumer is expired once its heartbeat is older than \
             --orphan-after (2m); the first to expire, 1b7d3e2a ({}:{pid}) with 1 job, does in ",
            this_host()
        )),
        "{err}"
    );
    assert!(
        err.contains("A shorter --orphan-after recovers sooner"),
        "{err}"
    );
    assert!(
        err.contains(&format!(
            "1b7d3e2a: its process is gone (pid {pid} not running on this host); its 1 job \
             returns to the queue once its heartbeat is older than --orphan-after (2m)"
        )) && err.contains("to return it now: qctl orphans q --orphan-after "),
        "{err}"
    );
    assert_eq!(server.smembers(&format!("q:inflight:{gone}")), ["gone-job"]);

    // Asked with no terminal: the consumers and the warning on lines of their own, then a
    // question of one clause.
    let out = qctl(&server)
        .args(["orphans", "q", "--orphan-after", "1s"])
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    let lines: Vec<&str> = err.lines().collect();
    let named = |uuid: &str| {
        lines
            .iter()
            .find(|l| l.starts_with(&format!("q:inflight:{uuid}: 1 job, heartbeat ")))
            .copied()
            .unwrap_or_else(|| panic!("{uuid} named on a line of its own: {err}"))
    };
    assert!(
        named(gone).ends_with(&format!(
            ", {}:{pid}; its process is gone: pid {pid} is not running on this host",
            this_host()
        )),
        "{err}"
    );
    assert!(!named(go).contains("gone"), "{err}");
    assert!(
        lines.iter().any(|l| l.starts_with(&format!(
            "warning: q:inflight:{go} may be alive: a heartbeat younger than 2m is normal"
        ))),
        "{err}"
    );
    assert!(
        lines.contains(
            &"qctl: return 2 jobs of 2 consumers silent for more than 1s to q:active? needs \
              confirmation and there is no terminal to ask; to go ahead, run:"
        ),
        "{err}"
    );
    assert!(!err.contains("although"), "{err}");

    // Recovered: the consumer leaves with its description and its list of running jobs.
    qctl(&server)
        .args(["orphans", "q", "--orphan-after", "1s", "--yes"])
        .assert()
        .success();
    let mut ready = server.lrange("q:active");
    ready.sort();
    assert_eq!(ready, ["go-job", "gone-job"]);
    let left: Vec<String> = server.cmd(&[b"KEYS", b"q:consumer*"]);
    assert!(left.is_empty(), "{left:?}");
}
