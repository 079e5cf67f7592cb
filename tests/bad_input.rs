//! The bad-input and security half of the reliability suite: damaged records, keys of the
//! wrong type, huge and binary payloads, odd queue names, bad connections, broken handlers,
//! invalid bulk input, shell syntax and passwords. Every case checks the exit code, the words
//! of the message and what Redis holds afterwards, against real redis-servers.

mod support;

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use qctl::engine::failure::Failure;
use qctl::engine::Job;
use support::{figure, qctl, run, signal, spawn_consumer, wait_until, Ran, RedisServer};

/// Fast consumer settings so refusals and drains do not wait on production defaults.
const FAST: &[&str] = support::FAST_LONG_LEASE;

/// Short timeouts for connections that are meant to fail.
const QUICK: &[&str] = &["--connect-timeout", "1s", "--response-timeout", "1s"];

/// Runs the commands six at a time, so that slow refusals overlap; results in input order.
fn run_all(cmds: Vec<assert_cmd::Command>) -> Vec<Ran> {
    let todo = Mutex::new(cmds.into_iter().enumerate());
    let done = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..6 {
            s.spawn(|| loop {
                let next = todo.lock().unwrap().next();
                let Some((i, mut cmd)) = next else { break };
                let ran = run(&mut cmd);
                done.lock().unwrap().push((i, ran));
            });
        }
    });
    let mut done = done.into_inner().unwrap();
    done.sort_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, ran)| ran).collect()
}

/// qctl with no server chosen and no URL from the environment.
fn qctl_bare() -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::cargo_bin("qctl").expect("the qctl binary");
    cmd.env("NO_COLOR", "1")
        .env_remove("QCTL_REDIS_URL")
        .env_remove("REDIS_URL");
    cmd
}

fn qctl_at(url: &str) -> assert_cmd::Command {
    let mut cmd = qctl_bare();
    cmd.arg("-u").arg(url);
    cmd
}

fn record(id: &str, data: &[u8], attempt: i64) -> Vec<u8> {
    Job {
        id: id.into(),
        data: Some(data.to_vec()),
        attempt,
    }
    .encode()
}

/// A job ready to run: record and id at the tail of `QUEUE:active`.
fn put_active(server: &RedisServer, queue: &str, id: &str, data: &[u8]) {
    let data_key = format!("{queue}:data");
    let active = format!("{queue}:active");
    let _: () = server.cmd(&[
        b"HSET",
        data_key.as_bytes(),
        id.as_bytes(),
        &record(id, data, 0),
    ]);
    let _: () = server.cmd(&[b"RPUSH", active.as_bytes(), id.as_bytes()]);
}

/// A dead job as a consumer leaves it: stored bytes, id in `QUEUE:dead`, failure recorded.
fn put_dead(server: &RedisServer, queue: &str, id: &str, stored: Option<&[u8]>, died: f64) {
    if let Some(bytes) = stored {
        let data_key = format!("{queue}:data");
        let _: () = server.cmd(&[b"HSET", data_key.as_bytes(), id.as_bytes(), bytes]);
    }
    let dead = format!("{queue}:dead");
    let _: () = server.cmd(&[
        b"ZADD",
        dead.as_bytes(),
        died.to_string().as_bytes(),
        id.as_bytes(),
    ]);
}

fn failure(server: &RedisServer, queue: &str, id: &str) -> Option<Failure> {
    server
        .hget_bytes(&format!("{queue}:failures"), id)
        .and_then(|b| Failure::from_json(&b))
}

fn keys(server: &RedisServer) -> Vec<String> {
    server.dump_all().into_iter().map(|(k, _, _)| k).collect()
}

/// An executable file holding `text`.
fn executable(dir: &Path, name: &str, text: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// A shell script of our own; job data only ever reaches it on stdin.
fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    executable(dir, name, &format!("#!/bin/sh\n{body}\n"))
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A TCP server that answers every connection with an HTTP error and closes it.
fn http_error_server() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            let _ = stream.set_read_timeout(Some(Duration::from_millis(500)));
            let _ = stream.read(&mut [0u8; 1024]);
            let _ = stream.write_all(b"HTTP/1.1 400 Bad Request\r\n\r\n");
        }
    });
    port
}

/// Every key with its DUMP, through a connection that authenticates (`dump_all` cannot).
fn snapshot(url: &str) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut con = redis::Client::open(url)
        .and_then(|c| c.get_connection())
        .expect("connect with the password");
    let mut keys: Vec<Vec<u8>> = redis::cmd("KEYS").arg("*").query(&mut con).unwrap();
    keys.sort();
    keys.into_iter()
        .map(|k| {
            let v: Vec<u8> = redis::cmd("DUMP").arg(&k).query(&mut con).unwrap();
            (k, v)
        })
        .collect()
}

fn authed(url: &str, args: &[&[u8]]) -> redis::Value {
    let mut con = redis::Client::open(url)
        .and_then(|c| c.get_connection())
        .expect("connect with the password");
    let mut cmd = redis::cmd(std::str::from_utf8(args[0]).unwrap());
    for a in &args[1..] {
        cmd.arg(*a);
    }
    cmd.query(&mut con).expect("redis command")
}

/// The line of a listing table that starts with `id`.
fn row_of(listing: &Ran, id: &str) -> String {
    listing
        .stdout()
        .lines()
        .find(|l| l.trim_start().starts_with(&format!("{id} ")))
        .map(str::to_string)
        .unwrap_or_else(|| panic!("no row for {id}: {listing:?}"))
}

// ---------------------------------------------------------------------------------------
// B1 damaged and missing records

#[test]
fn damaged_and_missing_records_are_listed_shown_skipped_and_buried_as_damaged() {
    let server = RedisServer::start();
    let garbage: &[u8] = b"\xc1\x00garbage\xff\n";
    let whole = record("trunc", b"hello world", 2);
    let truncated = whole[..whole.len() / 2].to_vec();
    let other = record("someone-else", b"x", 1);
    put_dead(&server, "q", "garbage", Some(garbage), 1_700_000_004.0);
    put_dead(&server, "q", "trunc", Some(&truncated), 1_700_000_003.0);
    put_dead(&server, "q", "other", Some(&other), 1_700_000_002.0);
    put_dead(&server, "q", "norec", None, 1_700_000_001.0);
    let damaged = [
        ("garbage", "msgpack"),
        ("trunc", "truncated"),
        ("other", "another id"),
        ("norec", "no record"),
    ];
    let before = server.dump_all();
    let mut cases = 0;

    let list = run(qctl(&server).args(["dead", "list", "q"]));
    assert_eq!(list.code, Some(0), "{list:?}");
    for (id, why) in damaged {
        let row = row_of(&list, id);
        assert!(row.contains("damaged") && row.contains(why), "{row}");
    }
    let json = run(qctl(&server).args(["--json", "dead", "list", "q"]));
    assert_eq!(json.code, Some(0), "{json:?}");
    let rows: serde_json::Value = serde_json::from_slice(&json.out).unwrap();
    for (id, why) in damaged {
        let row = rows
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == id)
            .unwrap();
        assert!(row["damaged"].as_str().unwrap().contains(why), "{row}");
    }
    cases += 2;

    let show = run(qctl(&server).args(["dead", "show", "q", "norec"]));
    assert_eq!(show.code, Some(0), "{show:?}");
    assert!(show.stdout().contains("damaged") && show.stdout().contains("no record"));
    assert!(!show.text().contains("no job"), "{show:?}");
    cases += 1;

    for (id, stored) in [("garbage", garbage), ("trunc", &truncated[..])] {
        let raw = run(qctl(&server).args(["dead", "show", "q", id, "--raw"]));
        assert_eq!(raw.code, Some(0), "{raw:?}");
        assert_eq!(raw.out, stored, "--raw of {id} writes the stored bytes");
        assert!(
            raw.err.contains("warning") && raw.err.contains("damaged"),
            "{raw:?}"
        );
        cases += 1;
    }
    let raw = run(qctl(&server).args(["dead", "show", "q", "norec", "--raw"]));
    assert_eq!(raw.code, Some(6), "{raw:?}");
    assert!(
        raw.out.is_empty() && raw.err.contains("no record"),
        "{raw:?}"
    );
    cases += 1;

    let all = run(qctl(&server).args(["dead", "requeue", "q", "--all", "--yes"]));
    let named = run(qctl(&server).args([
        "dead", "requeue", "q", "garbage", "trunc", "other", "norec", "--yes",
    ]));
    for requeue in [&all, &named] {
        assert_eq!(requeue.code, Some(5), "{requeue:?}");
        for (id, why) in damaged {
            let line = requeue
                .err
                .lines()
                .find(|l| l.contains(&format!("\"{id}\"")))
                .unwrap_or_else(|| panic!("{id} not reported: {requeue:?}"));
            assert!(line.contains("skipped") && line.contains(why), "{line}");
        }
        cases += 1;
    }
    assert_eq!(server.dump_all(), before, "damaged records were changed");

    // Beside a good dead job: the good one moves, the damaged ones stay as they are.
    put_dead(
        &server,
        "q",
        "fine",
        Some(&record("fine", b"ok", 21)),
        1_700_000_005.0,
    );
    let mixed = run(qctl(&server).args(["dead", "requeue", "q", "--all", "--yes"]));
    assert_eq!(mixed.code, Some(7), "{mixed:?}");
    assert_eq!(server.lrange("q:active"), vec!["fine"]);
    let mut left: Vec<String> = server
        .zrange_withscores("q:dead")
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    left.sort();
    assert_eq!(left, ["garbage", "norec", "other", "trunc"]);
    assert_eq!(server.hget_bytes("q:data", "garbage").unwrap(), garbage);
    assert_eq!(server.hget_bytes("q:data", "trunc").unwrap(), truncated);
    assert_eq!(server.hget_bytes("q:data", "other").unwrap(), other);
    cases += 1;

    // A consumer buries every kind of damage and runs the good jobs of the same batch.
    put_active(&server, "w", "good1", b"first");
    for (id, stored) in [
        ("garbage", garbage),
        ("trunc", &truncated[..]),
        ("other", &other[..]),
    ] {
        let _: () = server.cmd(&[b"HSET", b"w:data", id.as_bytes(), stored]);
        let _: () = server.cmd(&[b"RPUSH", b"w:active", id.as_bytes()]);
    }
    let _: () = server.cmd(&[b"RPUSH", b"w:active", b"missing"]);
    put_active(&server, "w", "good2", b"second");
    let consume = run(qctl(&server)
        .args(["consume", "w", "--drain", "-c", "4", "--buffer", "4"])
        .args(FAST)
        .args(["--", "cat"]));
    assert_eq!(consume.code, Some(7), "{consume:?}");
    let out = consume.stdout();
    assert!(
        out.contains("first\n") && out.contains("second\n"),
        "{consume:?}"
    );
    assert_eq!(server.hget_bytes("w:data", "good1"), None);
    assert_eq!(server.hget_bytes("w:data", "good2"), None);
    let mut buried: Vec<String> = server
        .zrange_withscores("w:dead")
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    buried.sort();
    assert_eq!(buried, ["garbage", "missing", "other", "trunc"]);
    for (id, why) in [
        ("garbage", "msgpack"),
        ("trunc", "truncated"),
        ("other", "someone-else"),
        ("missing", "no record"),
    ] {
        let f = failure(&server, "w", id).unwrap_or_else(|| panic!("no failure for {id}"));
        assert!(
            f.reason.starts_with("damaged") && f.reason.contains(why),
            "{id}: {}",
            f.reason
        );
    }
    assert_eq!(server.hget_bytes("w:data", "garbage").unwrap(), garbage);
    assert_eq!(server.hget_bytes("w:data", "trunc").unwrap(), truncated);
    assert_eq!(server.hget_bytes("w:data", "other").unwrap(), other);
    assert!(server.lrange("w:active").is_empty());
    assert_eq!(server.key_type("w:consumers"), "none");
    assert!(keys(&server).iter().all(|k| !k.contains(":inflight:")));
    let listed = run(qctl(&server).args(["dead", "list", "w"]));
    assert_eq!(listed.code, Some(0), "{listed:?}");
    for id in ["garbage", "trunc", "other", "missing"] {
        assert!(row_of(&listed, id).contains("damaged"), "{listed:?}");
    }
    cases += 2;

    figure(&format!(
        "B1 damaged records: 4 kinds (garbage, truncated, another id, no record) in {cases} cases: listed and shown as damaged (exit 0), --raw writes the stored bytes (exit 0) or exits 6 without a record, requeue skips each with its reason (exit 5, 7 beside a good job) changing nothing of them; consume buried 4 kinds while 2 good jobs ran"
    ));
}

// ---------------------------------------------------------------------------------------
// B2 keys of the wrong type

const INFLIGHT: &str = "q:inflight:0b7d3e2a-1c4f-4d5e-9f00-aabbccddeeff";

/// Queue `q` with a job in every state: a1 ready, s1 scheduled, d1 dead with its failure,
/// f1 in flight at an expired consumer, and counters.
fn fill_queue(server: &RedisServer) {
    let _: () = server.cmd(&[b"FLUSHALL"]);
    let now = qctl::engine::now();
    put_active(server, "q", "a1", b"ready");
    let _: () = server.cmd(&[b"HSET", b"q:data", b"s1", &record("s1", b"later", 0)]);
    let _: () = server.cmd(&[
        b"ZADD",
        b"q:scheduled",
        (now + 3600.0).to_string().as_bytes(),
        b"s1",
    ]);
    put_dead(
        server,
        "q",
        "d1",
        Some(&record("d1", b"dead", 21)),
        1_700_000_000.0,
    );
    let f = Failure {
        reason: "exit 3".into(),
        exit_code: Some(3),
        ..Failure::default()
    };
    let _: () = server.cmd(&[b"HSET", b"q:failures", b"d1", f.to_json().as_bytes()]);
    let _: () = server.cmd(&[b"HSET", b"q:data", b"f1", &record("f1", b"flying", 0)]);
    let _: () = server.cmd(&[b"SADD", INFLIGHT.as_bytes(), b"f1"]);
    let _: () = server.cmd(&[
        b"ZADD",
        b"q:consumers",
        (now - 600.0).to_string().as_bytes(),
        INFLIGHT.as_bytes(),
    ]);
    let _: () = server.cmd(&[b"HSET", b"q:stats", b"completed", b"3", b"failed", b"1"]);
}

#[test]
fn a_key_of_the_wrong_type_is_refused_by_every_command_that_touches_it() {
    let server = RedisServer::start();
    let commands: Vec<(&str, Vec<&str>, Option<&str>)> = vec![
        ("enqueue", vec!["enqueue", "q", "--id", "new", "x"], None),
        (
            "enqueue --lines",
            vec!["enqueue", "q", "--lines"],
            Some("l1\nl2\n"),
        ),
        (
            "consume --drain",
            [&["consume", "q", "--drain"], FAST, &["--", "true"]].concat(),
            None,
        ),
        ("stats", vec!["stats", "q"], None),
        ("dead list", vec!["dead", "list", "q"], None),
        ("dead show", vec!["dead", "show", "q", "d1"], None),
        (
            "dead requeue",
            vec!["dead", "requeue", "q", "--all", "--yes"],
            None,
        ),
        ("dead export", vec!["dead", "export", "q"], None),
        ("scheduled list", vec!["scheduled", "list", "q"], None),
        ("active list", vec!["active", "list", "q"], None),
        ("consumers", vec!["consumers", "q"], None),
        ("orphans", vec!["orphans", "q", "--yes"], None),
    ];
    // (key, how it is made wrong, commands that must refuse, commands that skip and report)
    type Table<'a> = Vec<(&'a str, Vec<&'a [u8]>, Vec<&'a str>, Vec<(&'a str, i32)>)>;
    let table: Table = vec![
        (
            "q:active",
            vec![b"SET", b"q:active", b"oops"],
            vec![
                "enqueue",
                "enqueue --lines",
                "consume --drain",
                "stats",
                "dead show",
                "dead requeue",
                "active list",
                "orphans",
            ],
            vec![],
        ),
        (
            "q:data",
            vec![b"RPUSH", b"q:data", b"oops"],
            vec![
                "enqueue",
                "enqueue --lines",
                "consume --drain",
                "stats",
                "dead list",
                "dead show",
                "dead requeue",
                "dead export",
                "scheduled list",
                "active list",
            ],
            vec![],
        ),
        (
            "q:scheduled",
            vec![b"HSET", b"q:scheduled", b"s1", b"1"],
            vec!["consume --drain", "stats", "dead show", "scheduled list"],
            vec![],
        ),
        (
            "q:dead",
            vec![b"SADD", b"q:dead", b"d1"],
            vec![
                "consume --drain",
                "stats",
                "dead list",
                "dead show",
                "dead requeue",
                "dead export",
            ],
            vec![],
        ),
        (
            "q:consumers",
            vec![b"SET", b"q:consumers", INFLIGHT.as_bytes()],
            vec![
                "consume --drain",
                "stats",
                "dead show",
                "consumers",
                "orphans",
            ],
            vec![],
        ),
        (
            "q:failures",
            vec![b"SET", b"q:failures", b"oops"],
            vec![
                "consume --drain",
                "dead list",
                "dead show",
                "dead requeue",
                "dead export",
                "scheduled list",
                "active list",
            ],
            vec![],
        ),
        (
            "q:stats",
            vec![b"RPUSH", b"q:stats", b"completed"],
            vec!["consume --drain", "stats"],
            vec![],
        ),
        // A consumer whose in-flight key is not a set is skipped and reported (docs/commands.md).
        (
            INFLIGHT,
            vec![b"SET", INFLIGHT.as_bytes(), b"f1"],
            vec![],
            vec![("consume --drain", 0), ("consumers", 0), ("orphans", 7)],
        ),
    ];
    let (mut refused, mut reported, mut unaffected) = (0, 0, 0);
    for (key, wrong, refusing, reporting) in &table {
        for (name, args, stdin) in &commands {
            fill_queue(&server);
            let _: () = server.cmd(&[b"DEL", key.as_bytes()]);
            let _: () = server.cmd(wrong);
            let before = server.dump_all();
            let mut cmd = qctl(&server);
            cmd.args(args);
            if let Some(input) = stdin {
                cmd.write_stdin(*input);
            }
            let ran = run(&mut cmd);
            let case = format!("{key} wrong, {name}: {ran:?}");
            if refusing.contains(name) {
                assert_eq!(ran.code, Some(4), "{case}");
                assert!(
                    ran.err.contains(key) && ran.err.contains("WRONGTYPE"),
                    "{case}"
                );
                for word in ["no record", "damaged", "no job"] {
                    assert!(!ran.text().contains(word), "{case}");
                }
                assert_eq!(server.dump_all(), before, "{case}");
                if *name == "stats" {
                    let table = ran.stdout();
                    assert!(table.contains("QUEUE"), "{case}");
                    // The table has no column for q:stats's counters: see the test below.
                    if *key != "q:stats" {
                        assert!(table.contains('?'), "{case}");
                    }
                    let json = run(qctl(&server).args(["--json", "stats", "q"]));
                    assert_eq!(json.code, Some(4), "{case}");
                    let rows: serde_json::Value = serde_json::from_slice(&json.out).unwrap();
                    assert_eq!(rows[0]["wrong_type"], serde_json::json!([key]), "{case}");
                } else {
                    assert!(ran.out.is_empty(), "{case}");
                }
                if *name == "consume --drain" {
                    assert!(ran.took < Duration::from_secs(10), "{case}");
                }
                refused += 1;
            } else if let Some((_, code)) = reporting.iter().find(|(n, _)| n == name) {
                assert_eq!(ran.code, Some(*code), "{case}");
                assert!(
                    ran.text().contains(key) && ran.text().contains("not a set"),
                    "{case}"
                );
                reported += 1;
            } else {
                assert_eq!(ran.code, Some(0), "{case}");
                assert!(!ran.err.contains("WRONGTYPE"), "{case}");
                unaffected += 1;
            }
        }
    }

    // Writers delete and recreate the wake-up list, whatever it was.
    let wrong_signals: [&[&[u8]]; 4] = [
        &[b"SET", b"q:signal", b"x"],
        &[b"HSET", b"q:signal", b"a", b"b"],
        &[b"ZADD", b"q:signal", b"1", b"a"],
        &[b"SADD", b"q:signal", b"a"],
    ];
    for wrong in wrong_signals {
        let _: () = server.cmd(&[b"FLUSHALL"]);
        put_active(&server, "q", "j", b"x");
        let _: () = server.cmd(wrong);
        let enq = run(qctl(&server).args(["enqueue", "q", "--id", "e", "y"]));
        assert_eq!(enq.code, Some(0), "{wrong:?}: {enq:?}");
        assert_eq!(server.key_type("q:signal"), "list");
        let _: () = server.cmd(&[b"DEL", b"q:signal"]);
        let _: () = server.cmd(wrong);
        let drain = run(qctl(&server)
            .args(["consume", "q", "--drain", "-c", "1"])
            .args(FAST)
            .args(["--", "cat"]));
        assert_eq!(drain.code, Some(0), "{wrong:?}: {drain:?}");
        assert_eq!(drain.stdout(), "x\ny\n");
        assert_eq!(server.key_type("q:data"), "none");
    }
    // An idle consumer whose signal turns into a string still finds new work.
    let _: () = server.cmd(&[b"FLUSHALL"]);
    let mut idle = spawn_consumer(&server, &[&["q"], FAST, &["--", "true"]].concat());
    assert!(wait_until(Duration::from_secs(10), || server
        .key_type("q:consumers")
        == "zset"));
    // Set again and again, so that the consumer's blocking wait meets it as a string too.
    let until = std::time::Instant::now() + Duration::from_millis(1500);
    while std::time::Instant::now() < until {
        let _: () = server.cmd(&[b"SET", b"q:signal", b"x"]);
        std::thread::sleep(Duration::from_millis(5));
    }
    put_active(&server, "q", "late", b"x");
    let ran = wait_until(Duration::from_secs(10), || {
        server.hget_bytes("q:data", "late").is_none()
    });
    signal(&idle, nix::sys::signal::Signal::SIGTERM);
    let status = idle.wait().unwrap();
    assert!(ran, "a wrong-typed signal stalled an idle consumer");
    assert_eq!(status.code(), Some(0));

    // The pause flag is its existence, whatever its type.
    let pauses: [&[&[u8]]; 5] = [
        &[b"SET", b"q:paused", b"1"],
        &[b"RPUSH", b"q:paused", b"1"],
        &[b"HSET", b"q:paused", b"a", b"1"],
        &[b"SADD", b"q:paused", b"1"],
        &[b"ZADD", b"q:paused", b"1", b"a"],
    ];
    for pause in pauses {
        let _: () = server.cmd(&[b"FLUSHALL"]);
        put_active(&server, "q", "held", b"x");
        let _: () = server.cmd(pause);
        let json = run(qctl(&server).args(["--json", "stats", "q"]));
        assert_eq!(json.code, Some(0), "{pause:?}: {json:?}");
        let rows: serde_json::Value = serde_json::from_slice(&json.out).unwrap();
        assert_eq!(rows[0]["paused"], true, "{pause:?}");
        let drain = run(qctl(&server)
            .args(["consume", "q", "--drain"])
            .args(FAST)
            .args(["--", "true"]));
        assert!(drain.err.contains("paused"), "{pause:?}: {drain:?}");
        assert_eq!(server.lrange("q:active"), vec!["held"], "{pause:?}");
        assert!(server.hget_bytes("q:data", "held").is_some());
    }

    figure(&format!(
        "B2 wrong key types: {} keys x {} commands = {} cases: {refused} refused with exit 4 naming the key (WRONGTYPE) and nothing changed, {reported} skipped and reported, {unaffected} untouched and fine; q:signal of 4 wrong types broke neither enqueue nor consume (nor an idle consumer); q:paused of 5 types paused",
        table.len(),
        commands.len(),
        table.len() * commands.len()
    ));
}

#[test]
fn stats_shows_the_completed_and_failed_counters_and_a_question_mark_when_unreadable() {
    let server = RedisServer::start();
    fill_queue(&server);
    let _: () = server.cmd(&[
        b"HSET",
        b"q:stats",
        b"completed",
        b"7777",
        b"failed",
        b"5555",
    ]);
    let fine = run(qctl(&server).args(["stats", "q"]));
    assert_eq!(fine.code, Some(0), "{fine:?}");
    let _: () = server.cmd(&[b"DEL", b"q:stats"]);
    let _: () = server.cmd(&[b"RPUSH", b"q:stats", b"completed"]);
    let wrong = run(qctl(&server).args(["stats", "q"]));
    assert_eq!(wrong.code, Some(4), "{wrong:?}");
    assert!(
        fine.stdout().contains("7777") && fine.stdout().contains("5555"),
        "the docs list completed/failed among the counts: {fine:?}"
    );
    let row = wrong
        .stdout()
        .lines()
        .nth(1)
        .unwrap_or_default()
        .to_string();
    assert!(
        row.contains('?'),
        "the warning says \"counts shown as ?\" but none is: {wrong:?}"
    );
    figure(
        "B2 stats with q:stats of the wrong type: the completed/failed counters shown as ?, exit 4",
    );
}

// ---------------------------------------------------------------------------------------
// B3 64 MiB and every byte value

fn sha256_of(path: &Path) -> String {
    let out = std::process::Command::new("sha256sum")
        .arg(path)
        .output()
        .expect("sha256sum");
    String::from_utf8(out.stdout)
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .to_string()
}

#[test]
fn a_64_mib_payload_and_every_byte_value_survive_every_round_trip() {
    let server = RedisServer::start();
    let dir = tempfile::tempdir().unwrap();
    let mut rng = fastrand::Rng::with_seed(64);
    let mut big = vec![0u8; 64 << 20];
    rng.fill(&mut big);
    let big_file = dir.path().join("big");
    std::fs::write(&big_file, &big).unwrap();
    let want = sha256_of(&big_file);
    let got = dir.path().join("big.sha");
    let hasher = script(
        dir.path(),
        "hash",
        &format!("sha256sum > '{}'\nexit 1", got.display()),
    );
    let enq = run(qctl(&server)
        .args(["enqueue", "q", "--id", "big", "--file"])
        .arg(&big_file));
    assert_eq!(enq.code, Some(0), "{enq:?}");
    let consume = run(qctl(&server)
        .args(["consume", "q", "--drain", "--max-retries", "0"])
        .args(FAST)
        .arg("--")
        .arg(&hasher));
    assert_eq!(consume.code, Some(7), "{consume:?}");
    let handed = std::fs::read_to_string(&got).unwrap();
    assert_eq!(
        handed.split_whitespace().next(),
        Some(want.as_str()),
        "the handler got other bytes"
    );
    let raw = run(qctl(&server).args(["dead", "show", "q", "big", "--raw"]));
    assert_eq!(raw.code, Some(0), "{:?}", raw.err);
    assert!(raw.out == big, "dead show --raw of 64 MiB differs");

    // Every byte value, as one payload and as single bytes that look like line ends.
    let mut all: Vec<u8> = (0..=255u8).collect();
    all.extend((0..=255u8).rev());
    let mut payloads = vec![("all".to_string(), all)];
    for b in [0u8, b'\n', b'\r', 0x80, 0xff] {
        payloads.push((format!("b{b:02x}"), vec![b]));
    }
    for (id, data) in &payloads {
        let file = dir.path().join(id);
        std::fs::write(&file, data).unwrap();
        let enq = run(qctl(&server)
            .args(["enqueue", "bytes", "--id", id, "--file"])
            .arg(&file));
        assert_eq!(enq.code, Some(0), "{enq:?}");
    }
    let first = dir.path().join("first");
    let second = dir.path().join("second");
    std::fs::create_dir(&first).unwrap();
    std::fs::create_dir(&second).unwrap();
    let keep =
        |out: &Path, code: i32| format!("cat > '{}'/\"$QCTL_JOB_ID\"\nexit {code}", out.display());
    let failing = script(dir.path(), "keep-and-fail", &keep(&first, 1));
    let passing = script(dir.path(), "keep", &keep(&second, 0));
    let consume = run(qctl(&server)
        .args(["consume", "bytes", "--drain", "--max-retries", "0"])
        .args(FAST)
        .arg("--")
        .arg(&failing));
    assert_eq!(consume.code, Some(7), "{consume:?}");
    for (id, data) in &payloads {
        assert_eq!(
            &std::fs::read(first.join(id)).unwrap(),
            data,
            "handler {id}"
        );
        let raw = run(qctl(&server).args(["dead", "show", "bytes", id, "--raw"]));
        assert_eq!(raw.code, Some(0), "{raw:?}");
        assert_eq!(&raw.out, data, "dead show --raw {id}");
    }
    let export = run(qctl(&server).args(["dead", "export", "bytes"]));
    assert_eq!(export.code, Some(0), "{export:?}");
    let lines: Vec<serde_json::Value> = export
        .stdout()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), payloads.len());
    let all_line = lines.iter().find(|l| l["id"] == "all").unwrap();
    assert!(all_line["data_b64"].is_string(), "{all_line}");
    let import = run(qctl(&server)
        .args(["enqueue", "copy", "--jsonl"])
        .write_stdin(export.out.clone()));
    assert_eq!(import.code, Some(0), "{import:?}");
    for (id, data) in &payloads {
        let copy = Job::decode(&server.hget_bytes("copy:data", id).unwrap()).unwrap();
        assert_eq!(copy.data.as_deref(), Some(&data[..]), "re-imported {id}");
    }
    let consume = run(qctl(&server)
        .args(["consume", "copy", "--drain"])
        .args(FAST)
        .arg("--")
        .arg(&passing));
    assert_eq!(consume.code, Some(0), "{consume:?}");
    for (id, data) in &payloads {
        assert_eq!(
            &std::fs::read(second.join(id)).unwrap(),
            data,
            "replayed {id}"
        );
    }

    figure(&format!(
        "B3 64 MiB and all bytes: a 64 MiB job reached its handler with the same sha256 and came back byte-identical from dead show --raw; {} payloads holding all 256 byte values survived enqueue --file, the handler, dead show --raw, dead export (data_b64) and enqueue --jsonl",
        payloads.len()
    ));
}

// ---------------------------------------------------------------------------------------
// B4 odd queue names

#[test]
fn odd_queue_names_work_end_to_end_and_never_reach_other_queues() {
    let server = RedisServer::start();
    let long = "L".repeat(10_000);
    let names: Vec<&str> = vec![
        "a b",
        "nl\nx",
        "t\tb",
        "ünï✓ 名前",
        "a*",
        "q?",
        "[x]",
        "{x}",
        "-dash",
        &long,
    ];
    // Queues that the glob characters above would match if a name were used as a pattern.
    let siblings = ["ab", "qz", "x"];
    for sibling in siblings {
        put_active(&server, sibling, "keep", b"x");
    }
    let sibling_keys = |server: &RedisServer| -> Vec<(String, String, String)> {
        server
            .dump_all()
            .into_iter()
            .filter(|(k, _, _)| siblings.iter().any(|s| k.starts_with(&format!("{s}:"))))
            .collect()
    };
    let untouched = sibling_keys(&server);
    for (i, name) in names.iter().enumerate() {
        let data = format!("data {i}");
        let enq = run(qctl(&server).args(["enqueue", "--id", "j", "--", name, &data]));
        assert_eq!(enq.code, Some(0), "{name:?}: {enq:?}");
        assert_eq!(server.lrange(&format!("{name}:active")), vec!["j"]);
    }

    // One row per queue: a newline in a name is shown escaped and cannot break the table.
    let stats = run(qctl(&server).arg("stats"));
    assert_eq!(stats.code, Some(0), "{stats:?}");
    let text = stats.stdout();
    assert_eq!(
        text.lines().count(),
        1 + names.len() + siblings.len(),
        "{stats:?}"
    );
    assert!(
        text.contains("nl\\nx") && text.contains("t\\tb"),
        "{stats:?}"
    );
    assert!(!text.contains('\t'));
    let json = run(qctl(&server).args(["--json", "stats"]));
    let rows: serde_json::Value = serde_json::from_slice(&json.out).unwrap();
    for name in &names {
        let row = rows
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["queue"] == *name)
            .unwrap_or_else(|| panic!("{name:?} not discovered"));
        assert_eq!(row["active"], 1, "{name:?}");
    }

    let mut cases = 2;
    for (i, name) in names.iter().enumerate() {
        let one = run(qctl(&server).args(["stats", "--", name]));
        assert_eq!(one.code, Some(0), "{name:?}: {one:?}");
        assert_eq!(one.stdout().lines().count(), 2, "{name:?}: {one:?}");
        let consume = if name.starts_with('-') {
            run(qctl(&server)
                .args(["consume", "--queue", name, "--drain"])
                .args(FAST)
                .args(["--", "cat"]))
        } else {
            run(qctl(&server)
                .args(["consume", name, "--drain"])
                .args(FAST)
                .args(["--", "cat"]))
        };
        assert_eq!(consume.code, Some(0), "{name:?}: {consume:?}");
        assert_eq!(consume.stdout(), format!("data {i}\n"), "{name:?}");
        if name.starts_with('-') {
            let enq = run(qctl(&server).args(["enqueue", "--", name, "again"]));
            assert_eq!(enq.code, Some(0), "{enq:?}");
            let eq = run(qctl(&server)
                .arg("consume")
                .arg(format!("--queue={name}"))
                .arg("--drain")
                .args(FAST)
                .args(["--", "cat"]));
            assert_eq!(eq.code, Some(0), "{eq:?}");
            assert_eq!(eq.stdout(), "again\n");
            cases += 1;
        }
        assert_eq!(server.key_type(&format!("{name}:data")), "none");
        let purge = run(qctl(&server).args(["purge", "--yes", "--forget-changes", "--", name]));
        assert_eq!(purge.code, Some(0), "{name:?}: {purge:?}");
        assert!(
            keys(&server)
                .iter()
                .all(|k| !k.starts_with(&format!("{name}:"))),
            "{name:?} left keys behind"
        );
        cases += 4;
    }
    assert_eq!(
        sibling_keys(&server),
        untouched,
        "a name was used as a pattern"
    );
    assert_eq!(keys(&server).len(), untouched.len());

    figure(&format!(
        "B4 odd queue names: {} names (space, newline, tab, unicode, * ? [] globs, {{x}}, leading -, 10,000 chars) in {cases} cases: enqueue, stats NAME, consume --drain and purge --yes end to end; stats printed one row per queue with the newline escaped; purges of glob names left {} sibling queues untouched",
        names.len(),
        siblings.len()
    ));
}

#[test]
fn an_empty_queue_name_is_a_usage_error_for_every_command() {
    let server = RedisServer::start();
    put_active(&server, "q", "j", b"x");
    let before = server.dump_all();
    let commands: Vec<Vec<&str>> = vec![
        vec!["enqueue", "", "x"],
        [&["consume", "", "--drain"], FAST, &["--", "true"]].concat(),
        [&["consume", "--queue=", "--drain"], FAST, &["--", "true"]].concat(),
        vec!["stats", ""],
        vec!["purge", "", "--yes"],
        vec!["pause", ""],
        vec!["resume", ""],
        vec!["dead", "list", ""],
        vec!["dead", "show", "", "j"],
        vec!["dead", "requeue", "", "--all", "--yes"],
        vec!["dead", "export", ""],
        vec!["scheduled", "list", ""],
        vec!["active", "list", ""],
        vec!["consumers", ""],
        vec!["orphans", ""],
    ];
    let mut wrong = Vec::new();
    for args in &commands {
        let ran = run(qctl(&server).args(args));
        let changed = server.dump_all() != before;
        if ran.code != Some(2) || !ran.err.contains("empty") || changed {
            let keys = keys(&server);
            wrong.push(format!("qctl {:?}: {ran:?}\nkeys after: {keys:?}", args));
        }
        if changed {
            let _: () = server.cmd(&[b"FLUSHALL"]);
            put_active(&server, "q", "j", b"x");
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {} commands accepted the empty queue name:\n{}",
        wrong.len(),
        commands.len(),
        wrong.join("\n")
    );
    figure(&format!(
        "B4 empty queue name: {} commands, all exit 2 saying the name is empty, nothing changed",
        commands.len()
    ));
}

// ---------------------------------------------------------------------------------------
// B5 connections

#[test]
fn bad_urls_refused_logins_and_servers_that_are_not_redis_fail_clearly_and_quickly() {
    const PW: &str = "Pw-b5-Zq8x";
    let server = RedisServer::start_with(&["--requirepass", PW]);
    let admin = format!("redis://:{PW}@127.0.0.1:{}", server.port());
    let _ = authed(
        &admin,
        &[
            b"ACL",
            b"SETUSER",
            b"lim",
            b"on",
            b">pw",
            b"~other:*",
            b"+@all",
        ],
    );
    let _ = authed(&admin, &[b"HSET", b"q:data", b"j", &record("j", b"x", 0)]);
    let _ = authed(&admin, &[b"RPUSH", b"q:active", b"j"]);
    let before = snapshot(&admin);
    let plain = RedisServer::start();
    let http = http_error_server();
    let silent = support::silent_server().port;
    let nobody = free_port();
    // --connect-timeout + --response-timeout (QUICK) + a few seconds.
    let bound = Duration::from_secs(1 + 1 + 5);
    let consume: Vec<&str> = [&["consume", "q", "--drain"], FAST, &["--", "true"]].concat();

    struct Case {
        url: String,
        args: Vec<String>,
        code: i32,
        words: Vec<&'static str>,
        within: Option<Duration>,
    }
    let mut cases: Vec<Case> = Vec::new();
    let mut add = |url: &str, args: &[&str], code, words: &[&'static str], within| {
        cases.push(Case {
            url: url.to_string(),
            args: args.iter().map(|s| s.to_string()).collect(),
            code,
            words: words.to_vec(),
            within,
        })
    };
    for url in [
        "nonsense".to_string(),
        format!("http://u:{PW}@h"),
        "redis://h:notaport".to_string(),
        "redis://h/notadb".to_string(),
        format!("redis://u:{PW}@h:notaport"),
        format!("redis://u:{PW}@h/notadb"),
        format!("redis://:{PW}@127.0.0.1:99999"),
    ] {
        add(&url, &["stats"], 2, &["invalid Redis URL"], None);
    }
    let ten = Some(Duration::from_secs(10));
    let reads: [&[&str]; 4] = [
        &["stats"],
        &["stats", "q"],
        &["dead", "list", "q"],
        &["enqueue", "q", "x"],
    ];
    let no_password = server.url();
    let wrong_password = format!("redis://:not-{PW}@127.0.0.1:{}", server.port());
    for args in reads.iter().copied().chain([&consume[..]]) {
        add(&no_password, args, 4, &["NOAUTH"], ten);
        add(&wrong_password, args, 4, &["authentication failed"], ten);
    }
    let limited = format!("redis://lim:pw@127.0.0.1:{}", server.port());
    for args in reads.iter().copied().skip(1).chain([&consume[..]]) {
        add(&limited, args, 4, &["NOPERM"], ten);
    }
    let one_shot: [&[&str]; 3] = [&["stats"], &["enqueue", "q", "x"], &["dead", "list", "q"]];
    for args in one_shot.iter().copied().chain([&consume[..]]) {
        add(
            &format!("redis://127.0.0.1:{http}"),
            args,
            3,
            &["not a Redis server"],
            Some(Duration::from_secs(30)),
        );
        let refused = format!("127.0.0.1:{nobody}");
        add(
            &format!("redis://:{PW}@{refused}"),
            args,
            3,
            &["cannot reach", "refused"],
            Some(Duration::from_secs(30)),
        );
    }
    for args in one_shot {
        add(
            &format!("rediss://:{PW}@127.0.0.1:{}", plain.port()),
            args,
            3,
            &["cannot reach"],
            Some(bound),
        );
        add(
            &format!("redis://:{PW}@127.0.0.1:{silent}"),
            args,
            3,
            &["cannot reach", "timed out"],
            Some(bound),
        );
    }
    let runs = run_all(
        cases
            .iter()
            .map(|c| {
                let mut cmd = qctl_at(&c.url);
                cmd.args(QUICK).args(&c.args);
                cmd
            })
            .collect(),
    );
    for (c, ran) in cases.iter().zip(&runs) {
        let case = format!("-u {} {}: {ran:?}", c.url, c.args.join(" "));
        assert_eq!(ran.code, Some(c.code), "{case}");
        for word in &c.words {
            assert!(ran.err.contains(word), "{word:?} missing: {case}");
        }
        for word in ["WRONGTYPE", "wrong type", "panicked"] {
            assert!(!ran.text().contains(word), "{case}");
        }
        assert!(!ran.text().contains(PW), "password printed: {case}");
        if let Some(limit) = c.within {
            assert!(ran.took < limit, "took too long: {case}");
        }
    }
    assert_eq!(snapshot(&admin), before, "a refused command changed Redis");
    // The limited user works on the keys it may use: its refusal above was about keys.
    let allowed = run(qctl_at(&limited).args(["enqueue", "other", "x"]));
    assert_eq!(allowed.code, Some(0), "{allowed:?}");

    let count = |code| cases.iter().filter(|c| c.code == code).count();
    figure(&format!(
        "B5 connections: {} cases: {} bad URLs exit 2 without the password; {} refused logins and NOPERM exit 4 with Redis's words (consume at once); {} unreachable, not Redis, TLS to plain and silent servers exit 3 in time; no panic, nothing changed",
        cases.len(),
        count(2),
        count(4),
        count(3)
    ));
}

#[test]
fn a_malformed_url_never_prints_its_password() {
    const PW: &str = "Leak-Pw9";
    let mut leaked = Vec::new();
    let urls = [
        format!("u:{PW}@127.0.0.1:7000"),
        format!("redis:/u:{PW}@127.0.0.1:7000"),
        format!("redis://:{PW}/x@127.0.0.1:7000"),
        format!("redis+unix:///tmp/none.sock?pass={PW}&db=x"),
    ];
    for url in &urls {
        let ran = run(qctl_at(url).arg("stats"));
        assert_eq!(ran.code, Some(2), "{url}: {ran:?}");
        if ran.text().contains(PW) {
            leaked.push(format!("-u {url}: {}", ran.err.trim()));
        }
    }
    assert!(
        leaked.is_empty(),
        "{} of {} malformed URLs were printed with their password:\n{}",
        leaked.len(),
        urls.len(),
        leaked.join("\n")
    );
    figure(&format!(
        "B5 malformed URLs with a password: {} forms, all exit 2 without printing it",
        urls.len()
    ));
}

#[test]
fn consume_gives_up_within_its_timeouts_on_a_server_that_never_answers() {
    let plain = RedisServer::start();
    let silent = support::silent_server().port;
    // The whole first connection (the handshake and the HELLO that checks a Redis server is
    // there) is bounded by --connect-timeout, not by --response-timeout besides: 1 s + a few
    // seconds, well below the 30 s of --response-timeout.
    const TIMEOUTS: &[&str] = &["--connect-timeout", "1s", "--response-timeout", "30s"];
    let bound = Duration::from_secs(1 + 5);
    let urls = [
        format!("redis://127.0.0.1:{silent}"),
        format!("rediss://127.0.0.1:{}", plain.port()),
    ];
    let runs = run_all(
        urls.iter()
            .map(|url| {
                let mut cmd = qctl_at(url);
                cmd.args(TIMEOUTS)
                    .args(["consume", "q", "--drain"])
                    .args(FAST)
                    .args(["--", "true"]);
                cmd
            })
            .collect(),
    );
    let slow: Vec<String> = urls
        .iter()
        .zip(&runs)
        .filter(|(_, ran)| ran.code != Some(3) || ran.took >= bound)
        .map(|(url, ran)| format!("consume -u {url} {}: {ran:?}", TIMEOUTS.join(" ")))
        .collect();
    assert!(
        slow.is_empty(),
        "not exit 3 within {bound:?}:\n{}",
        slow.join("\n")
    );
    figure("B5 consume against a silent server and TLS to a plain port: exit 3 within --connect-timeout + 5 s (--response-timeout 30s)");
}

// ---------------------------------------------------------------------------------------
// B6 handlers

#[test]
fn a_stalled_reader_of_the_output_does_not_stop_the_heartbeats() {
    let server = RedisServer::start();
    put_active(&server, "q", "loud", b"");
    let mut consumer = spawn_consumer(
        &server,
        &[
            &["q", "--drain", "-c", "1"],
            FAST,
            &["--", "seq", "1", "300000"],
        ]
        .concat(),
    );
    let beat = || {
        server
            .zrange_withscores("q:consumers")
            .first()
            .map(|(_, at)| *at)
    };
    assert!(wait_until(Duration::from_secs(10), || beat().is_some()));
    let first = beat().unwrap();
    // Nobody reads qctl's stdout for longer than the lease window: the pipe fills up, and
    // the heartbeats must go on while the handler waits to be read.
    std::thread::sleep(Duration::from_secs(8));
    let later = beat();
    let mut out = String::new();
    consumer
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    let status = consumer.wait().unwrap();
    let mut err = String::new();
    consumer
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert!(
        later.is_some_and(|at| at >= first + 5.0),
        "no heartbeat while stdout was full: {first} then {later:?}; {err}"
    );
    assert_eq!(status.code(), Some(0), "{err}");
    assert_eq!(out.lines().count(), 300_000);
    figure("B6 a reader that stalls 8 s on 2 MB of handler output: heartbeats went on, the job completed whole");
}

// ---------------------------------------------------------------------------------------
// B7 invalid bulk input

#[test]
fn invalid_bulk_input_is_reported_by_line_and_refused_commands_change_nothing() {
    let server = RedisServer::start();
    let lines: Vec<&[u8]> = vec![
        br#"{"id":"v1","data":"one"}"#,
        br#"{not json"#,
        br#"{"id":"nodata"}"#,
        br#"{"id":"b64","data_b64":"!!!notbase64"}"#,
        br#"{"id":"neg","data":"x","attempt":-1}"#,
        br#"{"id":"far","data":"x","at":1e30}"#,
        br#"{"id":"","data":"x"}"#,
        br#"{"id":"v2","data":"two"}"#,
        br#"["not","an","object"]"#,
        br#"{"id":"both","data":"x","data_b64":"eA=="}"#,
        br#"{"id":"past","data":"x","at":-5}"#,
        b"{\"id\":\"utf\",\"data\":\"\xff\xfe\"}",
        br#"{"id":"v3","data":"three"}"#,
    ];
    let invalid: Vec<usize> = vec![2, 3, 4, 5, 6, 7, 9, 10, 11, 12];
    let input = lines.join(&b"\n"[..]);
    let ran = run(qctl(&server)
        .args(["enqueue", "q", "--jsonl"])
        .write_stdin(input.clone()));
    assert_eq!(ran.code, Some(6), "{ran:?}");
    assert_eq!(ran.stdout(), "v1\nv2\nv3\n");
    for n in &invalid {
        assert!(ran.err.contains(&format!("line {n}:")), "line {n}: {ran:?}");
    }
    assert!(ran.err.contains(&format!(
        "enqueued 3, duplicates 0, failed {}",
        invalid.len()
    )));
    assert_eq!(server.lrange("q:active"), ["v1", "v2", "v3"]);
    let stored: u64 = server.cmd(&[b"HLEN", b"q:data"]);
    assert_eq!(stored, 3);
    assert_eq!(server.key_type("q:scheduled"), "none");
    let json = run(qctl(&server)
        .args(["--json", "enqueue", "again", "--jsonl"])
        .write_stdin(input));
    assert_eq!(json.code, Some(6), "{json:?}");
    let results: Vec<serde_json::Value> = json
        .stdout()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    for (i, r) in results.iter().take(lines.len()).enumerate() {
        let want = if invalid.contains(&(i + 1)) {
            "invalid"
        } else {
            "enqueued"
        };
        assert_eq!(r["result"], want, "line {}: {r}", i + 1);
        assert_eq!(r["line"], i + 1);
    }
    assert_eq!(results.len(), lines.len() + 1);

    // Refused single commands: the exit code, the words, and nothing changed.
    let _: () = server.cmd(&[b"FLUSHALL"]);
    put_active(&server, "q", "a", b"x");
    put_dead(
        &server,
        "q",
        "d",
        Some(&record("d", b"x", 21)),
        1_700_000_000.0,
    );
    let dir = tempfile::tempdir().unwrap();
    let before = server.dump_all();
    let refused: Vec<(Vec<String>, i32, Vec<&str>)> = vec![
        (vec!["enqueue", "q", "--id", "", "x"], 2, vec!["--id"]),
        (
            vec!["enqueue", "q", "--at", "1e30", "x"],
            2,
            vec!["--at", "out of range"],
        ),
        (
            vec!["enqueue", "q", "--at=-5", "x"],
            2,
            vec!["--at", "out of range"],
        ),
        (vec!["enqueue", "q", "--at", "-5", "x"], 2, vec!["-5"]),
        (
            vec!["dead", "requeue", "q", "nosuchid", "--yes"],
            5,
            vec!["nosuchid"],
        ),
        (
            vec!["dead", "list", "q", "--since", "soon"],
            2,
            vec!["--since", "soon"],
        ),
        (vec!["dead", "delete", "q"], 2, vec!["--all"]),
        (vec!["dead", "delete", "q", "--yes"], 2, vec!["--all"]),
        (
            vec!["enqueue", "q", "--file", "/no/such/file"],
            6,
            vec!["/no/such/file"],
        ),
        (
            vec!["enqueue", "q", "--jsonl", "--file", "/no/such/file"],
            6,
            vec!["/no/such/file"],
        ),
        (
            vec![
                "enqueue",
                "q",
                "--lines",
                "--file",
                &dir.path().display().to_string(),
            ],
            6,
            vec!["Is a directory"],
        ),
    ]
    .into_iter()
    .map(|(a, c, w)| (a.into_iter().map(String::from).collect(), c, w))
    .collect();
    for (args, code, words) in &refused {
        let ran = run(qctl(&server).args(args));
        let case = format!("qctl {}: {ran:?}", args.join(" "));
        assert_eq!(ran.code, Some(*code), "{case}");
        for word in words {
            assert!(ran.err.contains(word), "{word:?} missing: {case}");
        }
        assert!(ran.out.is_empty(), "{case}");
        assert_eq!(server.dump_all(), before, "{case}");
    }

    // The command printed by a refusal without a terminal runs as printed, quoting and all.
    let name = "my q'x";
    let _: () = server.cmd(&[b"FLUSHALL"]);
    put_dead(
        &server,
        name,
        "d",
        Some(&record("d", b"it's", 5)),
        1_700_000_005.0,
    );
    let ran = run(qctl(&server).args([
        "dead",
        "requeue",
        name,
        "--all",
        "--grep",
        "it's",
        "--since",
        "1700000000",
    ]));
    assert_eq!(ran.code, Some(2), "{ran:?}");
    let line = ran
        .err
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("qctl ") && l.ends_with("--yes"))
        .unwrap_or_else(|| panic!("no command to re-run: {ran:?}"))
        .to_string();
    assert_eq!(
        server.lrange(&format!("{name}:active")),
        Vec::<String>::new()
    );
    let bin = assert_cmd::cargo::cargo_bin("qctl");
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let rerun = std::process::Command::new("sh")
        .args(["-c", &line])
        .env("PATH", path)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(rerun.status.success(), "{line}: {rerun:?}");
    assert_eq!(server.lrange(&format!("{name}:active")), vec!["d"]);

    figure(&format!(
        "B7 invalid bulk input: {} JSON lines, {} invalid reported by line number and 3 valid enqueued in order (exit 6, also with --json); {} refused commands exit 2/5/6 naming the bad value with nothing changed; the printed re-run command ran as printed",
        lines.len(),
        invalid.len(),
        refused.len()
    ));
}

#[test]
fn dead_requeue_of_an_unknown_id_reports_it_as_not_found() {
    let server = RedisServer::start();
    put_dead(
        &server,
        "q",
        "d",
        Some(&record("d", b"x", 21)),
        1_700_000_000.0,
    );
    let before = server.dump_all();
    let text = run(qctl(&server).args(["dead", "requeue", "q", "nosuchid", "--yes"]));
    let json = run(qctl(&server).args(["--json", "dead", "requeue", "q", "nosuchid", "--yes"]));
    assert_eq!(server.dump_all(), before);
    assert_eq!(text.code, Some(5), "{text:?}");
    assert!(
        text.err.contains("\"nosuchid\" is not in q:dead") && text.err.contains("not found 1"),
        "an id that is nowhere is not found, not a record to delete: {text:?}"
    );
    let report: serde_json::Value = serde_json::from_slice(&json.out).unwrap();
    assert_eq!(
        report["not_found"],
        serde_json::json!(["nosuchid"]),
        "{report}"
    );
    figure("B7 dead requeue of an unknown id: exit 5, reported as not in q:dead, nothing changed");
}

// ---------------------------------------------------------------------------------------
// S1 shell metacharacters

#[test]
fn shell_metacharacters_in_data_ids_queue_names_and_arguments_are_never_executed() {
    let server = RedisServer::start();
    let dir = tempfile::tempdir().unwrap();
    let marker = |n: usize| dir.path().join(format!("M{n}"));
    let payloads: Vec<String> = vec![
        format!("$(touch {})", marker(1).display()),
        format!("`touch {}`", marker(2).display()),
        format!("; touch {}", marker(3).display()),
        format!("| touch {}", marker(4).display()),
        format!("&& touch {}", marker(5).display()),
        format!("\n touch {}", marker(6).display()),
    ];
    let mut runs = 0;
    for p in payloads.iter().map(String::as_str) {
        let queue = format!("s1 {p}");
        let enqueue = || {
            let ran = run(qctl(&server).args(["enqueue", "--id", p, "--", &queue, p]));
            assert_eq!(ran.code, Some(0), "{ran:?}");
        };
        let consume = |handler: &[&str], replace: bool| {
            enqueue();
            let mut cmd = qctl(&server);
            cmd.args(["consume", &queue, "--drain"]).args(FAST);
            if replace {
                cmd.args(["--replace", "{}"]);
            }
            let ran = run(cmd.arg("--").args(handler));
            assert_eq!(ran.code, Some(0), "{handler:?}: {ran:?}");
            ran.stdout()
        };
        assert_eq!(consume(&["cat"], false), format!("{p}\n"));
        assert_eq!(consume(&["printf", "%s\n", p], false), format!("{p}\n"));
        assert_eq!(
            consume(&["printf", "%s\n", "{}", p, "<{}>"], true),
            format!("{p}\n{p}\n<{p}>\n")
        );
        assert_eq!(
            consume(&["printenv", "QCTL_JOB_ID", "QCTL_QUEUE"], false),
            format!("{p}\n{queue}\n")
        );
        runs += 4;
    }
    let ran: Vec<usize> = (1..=payloads.len())
        .filter(|&n| marker(n).exists())
        .collect();
    assert!(ran.is_empty(), "a shell ran payloads {ran:?}");
    figure(&format!(
        "S1 shell metacharacters: {} payloads ($(), backticks, ;, |, &&, newline) as data, id, queue name and argument in {runs} consumes (cat, printf with and without --replace, printenv): byte-exact, no marker file",
        payloads.len()
    ));
}

// ---------------------------------------------------------------------------------------
// S2 passwords

#[test]
fn the_password_is_never_printed_whatever_the_command_or_the_outcome() {
    const PW: &str = "Pw-s2-7Hq";
    let server = RedisServer::start_with(&["--requirepass", PW]);
    let right = format!("redis://:{PW}@127.0.0.1:{}", server.port());
    // Percent-encoded: neither the encoded nor the decoded form may appear.
    let wrong = format!("redis://app:wr%40ng-{PW}@127.0.0.1:{}", server.port());
    let unreachable = format!("redis://app:{PW}@127.0.0.1:{}", free_port());
    let secrets = [
        PW.to_string(),
        format!("wr%40ng-{PW}"),
        format!("wr@ng-{PW}"),
    ];
    let _ = authed(&right, &[b"HSET", b"q:data", b"d", &record("d", b"x", 21)]);
    let _ = authed(&right, &[b"ZADD", b"q:dead", b"1700000000", b"d"]);
    let _ = authed(&right, &[b"HSET", b"q:data", b"s", &record("s", b"x", 0)]);
    let _ = authed(&right, &[b"ZADD", b"q:scheduled", b"4102444800", b"s"]);
    let commands: Vec<Vec<&str>> = vec![
        vec!["enqueue", "q", "x"],
        [&["consume", "q", "--drain"], FAST, &["--", "true"]].concat(),
        vec!["stats"],
        vec!["dead", "list", "q"],
        vec!["dead", "show", "q", "d"],
        vec!["scheduled", "list", "q"],
        vec!["active", "list", "q"],
        vec!["consumers", "q"],
        vec!["orphans", "q", "--yes"],
        vec!["pause", "q"],
        vec!["purge", "q", "--dry-run"],
        // Refused without a terminal: prints the command to re-run.
        vec!["purge", "q"],
    ];
    let mut cmds = Vec::new();
    let mut expect = Vec::new();
    for (url, outcome) in [
        (&right, "right"),
        (&wrong, "wrong"),
        (&unreachable, "unreachable"),
    ] {
        for how in ["-u", "QCTL_REDIS_URL", "REDIS_URL"] {
            for args in &commands {
                let mut cmd = qctl_bare();
                match how {
                    "-u" => {
                        cmd.arg("-u").arg(url);
                    }
                    var => {
                        cmd.env(var, url);
                    }
                }
                cmd.arg("-v").args(QUICK).args(args);
                cmds.push(cmd);
                expect.push((outcome, how, args.join(" ")));
            }
        }
    }
    let runs = run_all(cmds);
    for ((outcome, how, args), ran) in expect.iter().zip(&runs) {
        let case = format!("{outcome} password by {how}, {args}: {ran:?}");
        for secret in &secrets {
            assert!(!ran.text().contains(secret.as_str()), "printed: {case}");
        }
        match *outcome {
            "wrong" => assert_eq!(ran.code, Some(4), "{case}"),
            "unreachable" => assert_eq!(ran.code, Some(3), "{case}"),
            // The commands run at once: `pause` may stop the drain (8).
            _ => assert!(matches!(ran.code, Some(0 | 2 | 5 | 7 | 8)), "{case}"),
        }
    }
    figure(&format!(
        "S2 passwords: {} commands x right/wrong/unreachable x -u/QCTL_REDIS_URL/REDIS_URL = {} runs with -v, the password in none of their output",
        commands.len(),
        runs.len()
    ));
}

#[test]
fn a_duration_longer_than_ten_thousand_years_is_refused_and_the_longest_is_never_a_panic() {
    let server = RedisServer::start();
    // A queue with nothing to run: one dead job.
    qctl(&server).args(["enqueue", "q", "x"]).assert().success();
    qctl(&server)
        .args([
            "consume",
            "q",
            "--drain",
            "--max-retries",
            "0",
            "-q",
            "--",
            "false",
        ])
        .assert()
        .code(7);
    // Each of these overflowed a clock or a counter at the largest number humantime reads.
    let flags: [&[&str]; 6] = [
        &["--connect-timeout", "DUR", "stats", "q"],
        &["wait", "q", "--timeout", "DUR"],
        &[
            "consume",
            "q",
            "--drain",
            "--heartbeat",
            "DUR",
            "--",
            "true",
        ],
        &[
            "consume",
            "q",
            "--drain",
            "--poll-interval",
            "DUR",
            "--",
            "true",
        ],
        &["stats", "q", "--history", "DUR"],
        &["dead", "list", "q", "--since", "DUR"],
    ];
    let with = |args: &[&str], d: &str| {
        let mut cmd = qctl(&server);
        cmd.args(args.iter().map(|a| if *a == "DUR" { d } else { a }));
        cmd
    };
    let refused = run_all(
        flags
            .iter()
            .map(|args| with(args, "18446744073709551615s"))
            .collect(),
    );
    for (args, ran) in flags.iter().zip(&refused) {
        assert_eq!(ran.code, Some(2), "{args:?}: {ran:?}");
        assert!(
            ran.err
                .contains("longer than 10000 years, the longest duration qctl accepts"),
            "{args:?}: {ran:?}"
        );
    }
    // The longest duration taken works where it is not refused for another reason: a
    // heartbeat of 10000y is no less than half the default --orphan-after, said by name.
    let longest = run_all(flags.iter().map(|args| with(args, "10000y")).collect());
    for (args, ran) in flags.iter().zip(&longest) {
        let expected = if args.contains(&"--heartbeat") { 2 } else { 0 };
        assert_eq!(ran.code, Some(expected), "{args:?}: {ran:?}");
        assert!(!ran.err.contains("internal error"), "{args:?}: {ran:?}");
    }
}

// B8 control characters from jobs

/// The bytes a job may carry that would act on a terminal (colour, its title, a carriage
/// return or a backspace that hides what came before, a NUL), and the line an id with a
/// newline could fake.
const ACTING: [(&[u8], &str); 6] = [
    (b"\x1b", "ESC"),
    (b"\x07", "BEL"),
    (b"\r", "CR"),
    (b"\x08", "backspace"),
    (b"\x00", "NUL"),
    (b"\nfake-line", "a faked line"),
];

/// Checks that `ran` wrote none of [`ACTING`] to stdout or stderr; the number of checks.
fn assert_escaped(what: &str, ran: &Ran) -> usize {
    for (stream, bytes) in [("stdout", &ran.out[..]), ("stderr", ran.err.as_bytes())] {
        for (raw, name) in ACTING {
            assert!(
                !bytes.windows(raw.len()).any(|w| w == raw),
                "{what}: {name} on {stream} as it was: {ran:?}"
            );
        }
    }
    1
}

/// Ids, data, failure reasons and stderr tails, consumers' descriptions and queue names that
/// hold control characters are shown escaped by every command that prints them, in text
/// and in JSON (escaped by JSON itself, not twice).
#[test]
fn bytes_from_jobs_are_escaped_wherever_qctl_shows_them() {
    let server = RedisServer::start();
    // An id as an operator may paste it (no NUL: a command line cannot hold one), and one
    // only a program can write, through JSON.
    let id = "evil\x1b[31mRED\x1b]0;pwned\x07CR\rBS\x08\nfake-line";
    let nul_id = "nul\x00id\x1b[31m";
    let data = "data\x1b[31m\x1b]0;title\x07\r\x08end";
    let mut checked = 0;
    let q = |args: &[&str]| {
        let mut cmd = qctl(&server);
        cmd.args(args);
        cmd
    };

    let ran = run(q(&["enqueue", "q", "--id", id, data]).write_stdin(""));
    assert_eq!(ran.code, Some(0), "{ran:?}");
    assert!(ran.stdout().contains("evil\\u{1b}[31mRED"), "{ran:?}");
    checked += assert_escaped("enqueue --id", &ran);
    let line = serde_json::json!({"id": nul_id, "data": "x\u{0}\u{1b}[31m\r"}).to_string();
    let ran = run(q(&["enqueue", "q", "--jsonl"]).write_stdin(line + "\n"));
    assert_eq!(ran.code, Some(0), "{ran:?}");
    checked += assert_escaped("enqueue --jsonl", &ran);
    let ran = run(q(&["enqueue", "q", "--id", id, "again"]).write_stdin(""));
    assert_eq!(ran.code, Some(5), "{ran:?}");
    checked += assert_escaped("enqueue of a taken id", &ran);
    let ran = run(q(&["--json", "enqueue", "q", "--id", "other", data]).write_stdin(""));
    checked += assert_escaped("enqueue --json", &ran);

    let ran = run(&mut q(&[
        "consume",
        "q",
        "--drain",
        "-v",
        "--max-retries",
        "0",
        "--prefix",
        "--",
        "sh",
        "-c",
        "echo out; exit 3",
    ]));
    assert_eq!(ran.code, Some(7), "{ran:?}");
    assert!(ran.err.contains("job evil\\u{1b}[31mRED"), "{ran:?}");
    checked += assert_escaped("consume -v --prefix", &ran);

    // A failure whose reason and stderr tail hold them too.
    let failure = serde_json::json!({
        "reason": "exit 3\u{1b}[31m",
        "exit_code": 3,
        "stderr": "boom\u{1b}]0;title\u{7}\r\u{8}\u{0}tail\nsecond\tline\n",
        "attempt": 0,
        "time": 1_700_000_000,
    });
    let _: () = server.cmd(&[
        b"HSET",
        b"q:failures",
        id.as_bytes(),
        failure.to_string().as_bytes(),
    ]);
    // A queue found by SCAN whose name holds them.
    let _: () = server.cmd(&[b"ZADD", b"bad\x1b[31m\rq:dead", b"1", b"x"]);
    let reads: [&[&str]; 14] = [
        &["dead", "list", "q"],
        &["dead", "show", "q", id],
        &["--json", "dead", "show", "q", id],
        &["dead", "groups", "q"],
        &["dead", "export", "q"],
        &["dead", "requeue", "q", id, "--dry-run"],
        &["dead", "requeue", "q", "--all", "--dry-run"],
        &["dead", "delete", "q", id, "--dry-run"],
        &["wait", "q", id, "--timeout", "10s"],
        &["tail", "q", "--since", "1d", "--no-follow"],
        &["stats"],
        &["check", "--dead-max", "0"],
        &["doctor", "q"],
        &["export", "q"],
    ];
    for args in reads {
        let ran = run(&mut q(args));
        checked += assert_escaped(&args.join(" "), &ran);
    }
    let shown = run(&mut q(&["dead", "show", "q", id]));
    for part in [
        "id:        evil\\u{1b}[31mRED\\u{1b}]0;pwned\\u{7}CR\\rBS\\u{8}\\nfake-line",
        "failure:   exit 3\\u{1b}[31m",
        "  boom\\u{1b}]0;title\\u{7}\\r\\u{8}\\u{0}tail",
        "  second\tline",
    ] {
        assert!(shown.stdout().contains(part), "{part}: {shown:?}");
    }
    // JSON keeps the bytes, escaped the JSON way.
    let json = run(&mut q(&["--json", "dead", "show", "q", id]));
    let doc: serde_json::Value = serde_json::from_slice(&json.out).expect("JSON");
    assert_eq!(doc["id"], id);
    assert_eq!(doc["failure"]["reason"], "exit 3\u{1b}[31m");

    let ran = run(&mut q(&["dead", "requeue", "q", "--all", "--yes"]));
    assert_eq!(ran.code, Some(0), "{ran:?}");
    checked += assert_escaped("dead requeue --all --yes", &ran);
    for args in [
        &["active", "list", "q"][..],
        &["active", "delete", "q", id, "--dry-run"],
        &["move", "q", "q2", "--dry-run"],
    ] {
        let ran = run(&mut q(args));
        checked += assert_escaped(&args.join(" "), &ran);
    }

    // A consumer, silent for ten minutes, that describes itself with them, holding the NUL
    // id.
    let uuid = "0b7d3e2a-1c4f-4d5e-9f00-aabbccddeeff";
    let member = format!("q:inflight:{uuid}");
    let info = format!("q:consumer:{uuid}");
    let then = (qctl::engine::now() - 600.0).to_string();
    let _: () = server.cmd(&[b"LREM", b"q:active", b"0", nul_id.as_bytes()]);
    let _: () = server.cmd(&[b"SADD", member.as_bytes(), nul_id.as_bytes()]);
    let _: () = server.cmd(&[b"ZADD", b"q:consumers", then.as_bytes(), member.as_bytes()]);
    let command = serde_json::json!(["sh", "-c", "\u{1b}]0;title\u{7}"]).to_string();
    let _: () = server.cmd(&[
        b"HSET",
        info.as_bytes(),
        b"host",
        b"host\x1b[31m",
        b"pid",
        b"1",
        b"version",
        b"1.0\x1b[31m",
        b"command",
        command.as_bytes(),
        b"mode",
        b"per-job\x1b[31m\r",
    ]);
    for args in [
        &["consumers", "q"][..],
        &["inflight", "q"],
        &["orphans", "q", "--dry-run"],
    ] {
        let ran = run(&mut q(args));
        checked += assert_escaped(&args.join(" "), &ran);
    }
    figure(&format!(
        "B8 control characters from jobs (ESC, BEL, CR, backspace, NUL, a newline) in ids, data, failures, consumers and queue names: {checked} runs of enqueue, consume, dead, wait, tail, stats, check, doctor, export, active, move, consumers, inflight, orphans; none written raw"
    ));
}

// ---------------------------------------------------------------------------------------
// B5 connections: what is wrong with a URL

#[test]
fn every_bad_url_says_what_is_wrong_with_it_without_its_password() {
    const PW: &str = "Url-Pw-4kZ";
    let cases: Vec<(String, &str)> = vec![
        (
            format!("http://u:{PW}@127.0.0.1:6379"),
            "http:// is not a scheme of Redis",
        ),
        ("https://127.0.0.1:6380".into(), "rediss://host:port"),
        (format!("ftp://:{PW}@h"), "ftp:// is not a scheme of Redis"),
        (
            format!("redis://:{PW}@127.0.0.1:99999"),
            "the port 99999 is out of range: ports go from 1 to 65535",
        ),
        (
            "redis://127.0.0.1:0".into(),
            "port 0 cannot be connected to",
        ),
        (
            "redis://127.0.0.1:port".into(),
            "the port \"port\" is not a number",
        ),
        ("redis://:6379".into(), "the host is missing"),
        (format!("redis://u:{PW}@:6379/0"), "the host is missing"),
        ("redis://".into(), "the host is missing"),
        (
            format!("redis://u:{PW}%zz@127.0.0.1:6379"),
            "the password holds a % that is not followed by two hex digits",
        ),
        (
            format!("redis://u:{PW}%4@127.0.0.1:6379"),
            "the password holds a %",
        ),
        (
            format!("redis://u:{PW}%ff@127.0.0.1:6379"),
            "the password is not UTF-8",
        ),
        (
            format!("redis://u%g1:{PW}@127.0.0.1:6379"),
            "the user name holds a %",
        ),
        (
            "redis://127.0.0.1:6379/mail".into(),
            "the path \"mail\" is no database number",
        ),
        (
            "redis://127.0.0.1:6379/-1".into(),
            "the database -1 is negative",
        ),
        (
            "redis://127.0.0.1:6379?db=3".into(),
            "gives its database as the path",
        ),
        (
            format!("redis://127.0.0.1:6379?password={PW}"),
            "before the host",
        ),
        ("redis://[::1:6379".into(), "no closing ]"),
        (
            "redis://local host:6379".into(),
            "holds a character a host name cannot hold",
        ),
        (
            "unix://redis.sock".into(),
            "absolute path, after three slashes",
        ),
        (
            format!("unix:///tmp/none.sock?pass={PW}&db=x"),
            "the database \"x\" (?db=) is not a number",
        ),
        ("/run/redis/redis.sock".into(), "unix:///path/to/redis.sock"),
        ("127.0.0.1:6390".into(), "write redis://127.0.0.1:6390"),
        (
            format!("u:{PW}@127.0.0.1:6390"),
            "expected a URL such as redis://",
        ),
        (format!("redis://:{PW}/x@127.0.0.1:7000"), "holds a / or ?"),
    ];
    let mut cmds = Vec::new();
    for (url, _) in &cases {
        let mut cmd = qctl_at(url);
        cmd.args(QUICK).arg("stats");
        cmds.push(cmd);
        // The destination of `move` is read the same way.
        let mut cmd = qctl_bare();
        cmd.args(QUICK)
            .args(["-u", "redis://127.0.0.1:1", "move", "a", "b", "--to"])
            .arg(url);
        cmds.push(cmd);
    }
    let runs = run_all(cmds);
    for ((url, words), ran) in cases.iter().flat_map(|c| [c, c]).zip(&runs) {
        let case = format!("{url}: {ran:?}");
        assert_eq!(ran.code, Some(2), "{case}");
        assert!(ran.err.contains("invalid Redis URL"), "{case}");
        assert!(ran.err.contains(words), "{words:?} missing: {case}");
        assert!(!ran.err.contains("did not parse"), "{case}");
        assert_eq!(ran.err.trim_end().lines().count(), 1, "one line: {case}");
        assert!(!ran.text().contains(PW), "password printed: {case}");
    }
    figure(&format!(
        "B5 bad URLs: {} forms, each as -u and as move --to, exit 2 with one line naming what is wrong, the password in none",
        cases.len()
    ));
}

// ---------------------------------------------------------------------------------------
// B5 connections: a refused login

#[test]
fn a_refused_login_is_one_line_saying_whether_a_password_was_given_for_every_command() {
    const PW: &str = "Login-Pw-8Qm";
    let server = RedisServer::start_with(&["--requirepass", PW]);
    let admin = format!("redis://:{PW}@127.0.0.1:{}", server.port());
    let _ = authed(&admin, &[b"HSET", b"q:data", b"j", &record("j", b"x", 0)]);
    let _ = authed(&admin, &[b"RPUSH", b"q:active", b"j"]);
    let before = snapshot(&admin);
    let none = server.url();
    let wrong = format!("redis://:not-{PW}@127.0.0.1:{}", server.port());
    let consume: Vec<&str> = [&["consume", "q", "--drain"], FAST, &["--", "true"]].concat();
    // Every kind of command: reads, writes, bulk, streams, the consumer; `enqueue --lines`
    // sends more than 10 arguments in its first call, which Redis answers before a login
    // with a protocol error and a closed connection.
    let lines: String = (0..50).map(|i| format!("job {i}\n")).collect();
    let ordinary: Vec<(Vec<&str>, Option<&str>)> = vec![
        (vec!["stats"], None),
        (vec!["stats", "q"], None),
        (vec!["enqueue", "q", "x"], None),
        (vec!["enqueue", "q", "--lines"], Some(lines.as_str())),
        (vec!["import", "q"], Some("{\"data\":\"x\"}\n")),
        (consume.clone(), None),
        (vec!["dead", "list", "q"], None),
        (vec!["dead", "requeue", "q", "--all", "--yes"], None),
        (vec!["active", "list", "q"], None),
        (vec!["tail", "q"], None),
        (vec!["wait", "q", "--timeout", "5s"], None),
        (vec!["consumers", "q"], None),
        (vec!["inflight", "q"], None),
        (vec!["export", "q"], None),
        (vec!["limit", "q"], None),
        (vec!["pause", "q"], None),
        (vec!["orphans", "q", "--yes"], None),
        (vec!["purge", "q", "--yes"], None),
        (vec!["move", "q", "r", "--yes"], None),
    ];
    let monitoring: Vec<Vec<&str>> = vec![
        vec!["check", "q", "--dead-max", "1"],
        vec!["check", "--dead-max", "1"],
        vec!["doctor"],
        vec!["doctor", "q"],
    ];
    struct Case {
        url: String,
        args: Vec<String>,
        code: i32,
        words: &'static str,
    }
    let mut cases = Vec::new();
    let mut cmds = Vec::new();
    for (url, words) in [
        (&none, "it requires a password, and none was given (NOAUTH): give it with $QCTL_REDIS_PASSWORD or --password-file FILE"),
        (&wrong, "the password given was refused"),
    ] {
        for (args, stdin) in &ordinary {
            let mut cmd = qctl_at(url);
            cmd.args(QUICK).args(args);
            if let Some(input) = stdin {
                cmd.write_stdin(*input);
            }
            cmds.push(cmd);
            cases.push(Case {
                url: url.clone(),
                args: args.iter().map(|s| s.to_string()).collect(),
                code: 4,
                words,
            });
        }
        for args in &monitoring {
            let mut cmd = qctl_at(url);
            cmd.args(QUICK).args(args);
            cmds.push(cmd);
            cases.push(Case {
                url: url.clone(),
                args: args.iter().map(|s| s.to_string()).collect(),
                code: 3,
                words,
            });
        }
    }
    // A user named without a password.
    let mut cmd = qctl_at(&none);
    cmd.args(QUICK).args(["--user", "app", "stats"]);
    cmds.push(cmd);
    cases.push(Case {
        url: none.clone(),
        args: vec!["--user app stats".into()],
        code: 4,
        words: "none was given for the user \"app\" (NOAUTH)",
    });
    let runs = run_all(cmds);
    for (c, ran) in cases.iter().zip(&runs) {
        let case = format!("-u {} {}: {ran:?}", c.url, c.args.join(" "));
        assert_eq!(ran.code, Some(c.code), "{case}");
        // Doctor wraps its findings.
        let text = ran.text().split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(text.contains(c.words), "{:?} missing: {case}", c.words);
        assert_eq!(text.matches(c.words).count(), 1, "said once: {case}");
        for word in [
            "broken pipe",
            "Protocol error",
            "could not be told",
            "Grant +time",
            "retrying",
            "panicked",
        ] {
            assert!(!text.contains(word), "{word:?}: {case}");
        }
        assert!(!text.contains(PW), "password printed: {case}");
        if c.args[0] == "doctor" {
            // The server's section, with the one finding: UNKNOWN, and how to log in.
            assert_eq!(text.matches("server 127.0.0.1").count(), 1, "{case}");
            assert!(
                text.contains("UNKNOWN: 0 critical, 0 warning, 1 unknown, 0 OK"),
                "{case}"
            );
            assert!(text.contains("--password-file"), "{case}");
        } else if c.args[0] == "check" {
            assert!(ran.stdout().starts_with("QCTL UNKNOWN - "), "{case}");
            assert_eq!(ran.stdout().lines().count(), 1, "{case}");
        } else {
            assert!(ran.stdout().is_empty(), "{case}");
            let errors: Vec<&str> = ran
                .err
                .lines()
                .filter(|l| !l.starts_with("warning: --orphan-after"))
                .collect();
            assert_eq!(errors.len(), 1, "one line: {case}");
        }
    }
    assert_eq!(snapshot(&admin), before, "a refused login changed Redis");
    figure(&format!(
        "B5 refused logins: {} commands with no password and with a wrong one: one line saying which, exit 4 (check and doctor UNKNOWN 3), nothing changed",
        ordinary.len() + monitoring.len()
    ));
}

// ---------------------------------------------------------------------------------------
// B4 queue names: a name with no key

#[test]
fn an_unknown_queue_name_is_told_with_the_known_ones_by_every_command() {
    let server = RedisServer::start();
    put_active(&server, "mail", "j1", b"x");
    put_active(&server, "mail-retry", "j2", b"x");
    let words = "no queue \"mial\" (known: mail, mail-retry)";
    // Commands that have nothing to do on a queue with no key: exit 5 and the line.
    let refused: Vec<Vec<&str>> = vec![
        vec!["stats", "mial"],
        vec!["stats", "--history", "1h", "mial"],
        vec!["consumers", "mial"],
        vec!["inflight", "mial"],
        vec!["export", "mial"],
        vec!["limit", "mial"],
        vec!["dead", "list", "mial"],
        vec!["dead", "show", "mial", "j1"],
        vec!["dead", "requeue", "mial", "--all", "--yes"],
        vec!["dead", "delete", "mial", "--all", "--yes"],
        vec!["dead", "export", "mial"],
        vec!["dead", "groups", "mial"],
        vec!["scheduled", "list", "mial"],
        vec!["scheduled", "run-now", "mial", "--all", "--yes"],
        vec!["scheduled", "groups", "mial"],
        vec!["active", "list", "mial"],
        vec!["active", "delete", "mial", "j1", "--yes"],
        vec!["orphans", "mial", "--yes"],
        vec!["resume", "mial"],
        vec!["purge", "mial", "--yes"],
        vec!["move", "mial", "other", "--yes"],
        vec!["wait", "mial", "--timeout", "5s"],
        vec!["metrics", "mial", "--listen", "127.0.0.1:0"],
    ];
    // Monitoring: UNKNOWN (3), with the line.
    let unknown: Vec<Vec<&str>> = vec![
        vec!["check", "mial", "--dead-max", "1"],
        vec!["doctor", "mial"],
        vec!["doctor", "mial", "mail"],
    ];
    let mut cmds = Vec::new();
    for args in refused.iter().chain(&unknown) {
        let mut cmd = qctl(&server);
        cmd.args(QUICK).args(args);
        cmds.push(cmd);
    }
    let runs = run_all(cmds);
    for (args, ran) in refused.iter().chain(&unknown).zip(&runs) {
        let case = format!("{}: {ran:?}", args.join(" "));
        let text = ran.text().split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(text.contains(words), "{case}");
        if args[0] == "check" || args[0] == "doctor" {
            assert_eq!(ran.code, Some(3), "{case}");
        } else {
            assert_eq!(ran.code, Some(5), "{case}");
            assert_eq!(ran.err.trim_end().lines().count(), 1, "one line: {case}");
        }
    }
    let doctor = &runs[refused.len() + 2];
    let text = doctor.stdout();
    assert!(
        text.contains("UNKNOWN   no queue \"mial\"") && text.contains("queue mail ("),
        "the other queue is checked: {text}"
    );
    // Commands that go on (they wait for the queue, or make it): the same words as a
    // warning, one at a time, the ones that create a key last.
    let go_on: Vec<(Vec<&str>, &str)> = vec![
        (
            [&["consume", "mial", "--drain"], FAST, &["--", "true"]].concat(),
            "; nothing to run",
        ),
        (
            vec!["wait", "mial", "a", "--timeout", "5s"],
            "; the jobs named can only have ended",
        ),
        (
            vec!["limit", "mial", "--rate", "5/s"],
            "; setting its limits anyway",
        ),
    ];
    for (args, then) in &go_on {
        let ran = run(qctl(&server).args(QUICK).args(args));
        let case = format!("{}: {ran:?}", args.join(" "));
        assert!(
            ran.err.contains(&format!("warning: {words}{then}")),
            "{case}"
        );
        let _: () = server.cmd(&[b"DEL", b"mial:limits", b"mial:paused"]);
    }
    let ran = run(qctl(&server).args(["pause", "mial"]));
    assert!(
        ran.err
            .contains(&format!("warning: {words}; pausing it anyway")),
        "{ran:?}"
    );
    figure(&format!(
        "B4 unknown queue names: {} commands exit 5 and check/doctor UNKNOWN with `{words}`; {} go on with it as a warning",
        refused.len(),
        go_on.len() + 1
    ));
}

/// Characters that change the direction of text (bidi controls such as U+202E, which make
/// `evil\u{202e}gpj.exe` read as `evilexe.jpg`) in ids, data, failures and queue names are
/// shown escaped by the terminal's tables and messages, as the web page shows them; JSON
/// keeps them as they are.
#[test]
fn bidi_controls_from_jobs_are_shown_escaped_as_the_web_page_shows_them() {
    let server = RedisServer::start();
    let id = "evil\u{202e}gpj.exe";
    let q = |args: &[&str]| {
        let mut cmd = qctl(&server);
        cmd.args(args);
        cmd
    };
    let ran = run(q(&["enqueue", "b\u{2066}q", "--id", id, "data\u{200f}x"]).write_stdin(""));
    assert_eq!(ran.code, Some(0), "{ran:?}");
    assert_eq!(ran.stdout().trim_end(), "evil\\u{202e}gpj.exe", "{ran:?}");
    let ran = run(&mut q(&[
        "consume",
        "b\u{2066}q",
        "--drain",
        "--max-retries",
        "0",
        "--",
        "sh",
        "-c",
        "printf 'bad \\342\\200\\256 thing' >&2; exit 3",
    ]));
    assert_eq!(ran.code, Some(7), "{ran:?}");
    let mut checked = 0;
    for args in [
        &["dead", "list", "b\u{2066}q"][..],
        &["dead", "show", "b\u{2066}q", id],
        &["dead", "groups", "b\u{2066}q"],
        &["stats"],
        &["dead", "requeue", "b\u{2066}q", "--all", "--dry-run"],
    ] {
        let ran = run(&mut q(args));
        assert_eq!(ran.code, Some(0), "{args:?}: {ran:?}");
        let text = format!("{}{}", ran.stdout(), ran.err);
        for bidi in ['\u{202e}', '\u{2066}', '\u{200f}'] {
            assert!(
                !text.contains(bidi),
                "{args:?}: {bidi:?} as it was: {ran:?}"
            );
        }
        checked += 1;
    }
    let shown = run(&mut q(&["dead", "show", "b\u{2066}q", id]));
    for part in [
        "evil\\u{202e}gpj.exe",
        "data:      data x",
        "bad \\u{202e} thing",
    ] {
        assert!(shown.stdout().contains(part), "{part}: {shown:?}");
    }
    let stats = run(&mut q(&["stats"]));
    assert!(stats.stdout().contains("b\\u{2066}q"), "{stats:?}");
    let json = run(&mut q(&["--json", "dead", "show", "b\u{2066}q", id]));
    let doc: serde_json::Value = serde_json::from_slice(&json.out).expect("JSON");
    assert_eq!(doc["id"], id);
    figure(&format!(
        "B9 bidi controls (U+202E, U+2066, U+200F) in an id, data, a failure's stderr and a queue name: {checked} commands showed them escaped; JSON kept them"
    ));
}

#[test]
fn changes_refuses_a_bad_time_an_empty_span_and_an_entry_that_is_no_stream_id() {
    let server = RedisServer::start();
    qctl(&server).args(["pause", "q"]).assert().success();
    for (args, words) in [
        (&["changes", "q", "--since", "garbage"][..], "--since"),
        (
            &["changes", "q", "--since", "1h", "--until", "2h"],
            "--since is after --until",
        ),
        (
            &["changes", "q", "--ids", "1\u{1b}[31m-0"],
            "is not an entry of q:changes",
        ),
        (&["changes", "q", "--limit", "-1"], "--limit"),
    ] {
        let out = qctl(&server).args(args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(words), "{args:?}: {err}");
        assert!(
            !err.contains('\u{1b}'),
            "{args:?}: an escape reached the terminal: {err:?}"
        );
    }
}
