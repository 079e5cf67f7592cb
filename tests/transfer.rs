//! `qctl export` and `qctl import` against real redis-servers: a queue carried to another
//! server under another name byte for byte, jobs in flight, imports run twice or with
//! `--replace`, unusable lines, `enqueue --jsonl` lines, state filters, an import killed
//! half-way, a cluster-style name and the header of an export.

mod support;

use std::collections::{BTreeMap, HashSet};
use std::io::Write;
use std::process::{Child, Output, Stdio};
use std::time::Duration;

use qctl::engine::failure::Failure;
use qctl::engine::Job;
use serde_json::Value;
use support::{enqueue, invariants, qctl, qctl_process, qctl_url, wait_until, RedisServer};

/// The uuid of the consumer that holds the jobs planted in flight.
const CONSUMER: &str = "0b7d3e2a-1c4f-4d5e-9f00-aabbccddeeff";

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

/// A record as CurlyQ writes it.
fn record(id: &str, data: &[u8], attempt: i64) -> Vec<u8> {
    Job {
        id: id.into(),
        data: Some(data.to_vec()),
        attempt,
    }
    .encode()
}

/// A failure as a qctl consumer records it.
fn failure(reason: &str, attempt: i64) -> Vec<u8> {
    Failure {
        reason: reason.into(),
        exit_code: reason.strip_prefix("exit ").and_then(|c| c.parse().ok()),
        stderr: format!("{reason}: it went wrong\n"),
        attempt,
        time: 1_700_000_000.5,
        consumer: format!("mail:inflight:{CONSUMER}"),
        ..Failure::default()
    }
    .to_json()
    .into_bytes()
}

fn run<T: redis::FromRedisValue>(con: &mut redis::Connection, args: &[&[u8]]) -> T {
    let mut cmd = redis::cmd(std::str::from_utf8(args[0]).expect("command name"));
    for a in &args[1..] {
        cmd.arg(*a);
    }
    cmd.query(con)
        .unwrap_or_else(|e| panic!("{:?}: {e}", String::from_utf8_lossy(args[0])))
}

fn key(queue: &str, suffix: &str) -> Vec<u8> {
    format!("{queue}:{suffix}").into_bytes()
}

/// A ready job: its record, and its id at the tail of `QUEUE:active`.
fn put_ready(con: &mut redis::Connection, queue: &str, id: &str, record: &[u8]) {
    let _: () = run(con, &[b"HSET", &key(queue, "data"), id.as_bytes(), record]);
    let _: () = run(con, &[b"RPUSH", &key(queue, "active"), id.as_bytes()]);
}

/// A job in the sorted set `set` (`scheduled` or `dead`) with this score.
fn put_in_set(
    con: &mut redis::Connection,
    queue: &str,
    set: &str,
    id: &str,
    record: &[u8],
    score: f64,
) {
    let _: () = run(con, &[b"HSET", &key(queue, "data"), id.as_bytes(), record]);
    let _: () = run(
        con,
        &[
            b"ZADD",
            &key(queue, set),
            score.to_string().as_bytes(),
            id.as_bytes(),
        ],
    );
}

fn put_failure(con: &mut redis::Connection, queue: &str, id: &str, failure: &[u8]) {
    let _: () = run(
        con,
        &[b"HSET", &key(queue, "failures"), id.as_bytes(), failure],
    );
}

/// A job reserved by the consumer `uuid`, registered with a fresh heartbeat.
fn put_in_flight(con: &mut redis::Connection, queue: &str, uuid: &str, id: &str, record: &[u8]) {
    let inflight = key(queue, &format!("inflight:{uuid}"));
    let _: () = run(con, &[b"HSET", &key(queue, "data"), id.as_bytes(), record]);
    let _: () = run(con, &[b"SADD", &inflight, id.as_bytes()]);
    let now = qctl::engine::now().to_string();
    let _: () = run(
        con,
        &[b"ZADD", &key(queue, "consumers"), now.as_bytes(), &inflight],
    );
}

/// What a queue holds, as raw bytes and exact scores.
#[derive(Debug, PartialEq)]
struct Snapshot {
    active: Vec<Vec<u8>>,
    data: BTreeMap<Vec<u8>, Vec<u8>>,
    scheduled: Vec<(Vec<u8>, f64)>,
    dead: Vec<(Vec<u8>, f64)>,
    failures: BTreeMap<Vec<u8>, Vec<u8>>,
}

fn snapshot(con: &mut redis::Connection, queue: &str) -> Snapshot {
    let zset = |con: &mut redis::Connection, suffix: &str| -> Vec<(Vec<u8>, f64)> {
        run(
            con,
            &[b"ZRANGE", &key(queue, suffix), b"0", b"-1", b"WITHSCORES"],
        )
    };
    Snapshot {
        active: run(con, &[b"LRANGE", &key(queue, "active"), b"0", b"-1"]),
        data: run(con, &[b"HGETALL", &key(queue, "data")]),
        scheduled: zset(con, "scheduled"),
        dead: zset(con, "dead"),
        failures: run(con, &[b"HGETALL", &key(queue, "failures")]),
    }
}

/// Compares two queues part by part, so a failure says which part differs.
fn assert_same_queue(copy: &Snapshot, source: &Snapshot) {
    assert_eq!(
        lossy(&copy.active),
        lossy(&source.active),
        "ready jobs (LRANGE active) differ"
    );
    let fields = |m: &BTreeMap<Vec<u8>, Vec<u8>>| lossy(&m.keys().cloned().collect::<Vec<_>>());
    assert_eq!(
        fields(&copy.data),
        fields(&source.data),
        "the ids in data differ"
    );
    for (id, rec) in &source.data {
        assert_eq!(
            copy.data.get(id),
            Some(rec),
            "the record of {:?} is not byte for byte the source's",
            String::from_utf8_lossy(id)
        );
    }
    assert_eq!(
        copy.scheduled, source.scheduled,
        "scheduled (ids, exact scores) differ"
    );
    assert_eq!(copy.dead, source.dead, "dead (ids, exact scores) differ");
    assert_eq!(copy.failures, source.failures, "failure records differ");
    assert_eq!(copy, source);
}

fn lossy(ids: &[Vec<u8>]) -> Vec<String> {
    ids.iter()
        .map(|i| String::from_utf8_lossy(i).into_owned())
        .collect()
}

/// `qctl export QUEUE ARGS`, which must succeed: its stdout and stderr.
fn export(server: &RedisServer, queue: &str, args: &[&str]) -> (Vec<u8>, String) {
    let out = qctl(server)
        .arg("export")
        .arg(queue)
        .args(args)
        .assert()
        .success()
        .get_output()
        .clone();
    (
        out.stdout,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `qctl [--json] import QUEUE ARGS` reading `input` on stdin, whatever its exit code.
fn import(server: &RedisServer, queue: &str, args: &[&str], input: &[u8]) -> Output {
    qctl(server)
        .arg("import")
        .arg(queue)
        .args(args)
        .write_stdin(input.to_vec())
        .output()
        .expect("run qctl import")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn assert_code(out: &Output, code: i32, what: &str) {
    assert_eq!(
        out.status.code(),
        Some(code),
        "{what}: exit {:?}, expected {code}\nstdout:\n{}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        stderr(out)
    );
}

fn json_lines(bytes: &[u8]) -> Vec<Value> {
    String::from_utf8(bytes.to_vec())
        .expect("an export is UTF-8")
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

/// The job lines of an export by id (the header is left out).
fn jobs_by_id(lines: &[Value]) -> BTreeMap<String, Value> {
    let mut jobs = BTreeMap::new();
    for line in &lines[1..] {
        let id = line["id"]
            .as_str()
            .expect("a job line has an id")
            .to_string();
        assert!(
            jobs.insert(id.clone(), line.clone()).is_none(),
            "{id} exported twice"
        );
    }
    jobs
}

/// The last JSON object printed on stdout (`import --json`'s summary).
fn summary(out: &Output) -> Value {
    let text = String::from_utf8_lossy(&out.stdout);
    let last = text
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or_else(|| panic!("import --json printed nothing; stderr:\n{}", stderr(out)));
    serde_json::from_str(last).unwrap_or_else(|e| panic!("not JSON ({e}): {last}"))
}

/// Whether `text` names line `n` (and not line `n`0, `n`1, ...).
fn names_line(text: &str, n: usize) -> bool {
    let needle = format!("line {n}");
    text.match_indices(&needle).any(|(at, _)| {
        !text[at + needle.len()..]
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_digit())
    })
}

/// Every id of `queue` that is in more than one of active, scheduled and dead, or twice in
/// active.
fn ids_in_two_places(con: &mut redis::Connection, queue: &str) -> Vec<String> {
    let s = snapshot(con, queue);
    let mut seen = HashSet::new();
    let mut twice = Vec::new();
    let all = s
        .active
        .iter()
        .chain(s.scheduled.iter().map(|(id, _)| id))
        .chain(s.dead.iter().map(|(id, _)| id));
    for id in all {
        if !seen.insert(id.clone()) {
            twice.push(String::from_utf8_lossy(id).into_owned());
        }
    }
    twice
}

/// The keys of a server.
fn keys(con: &mut redis::Connection) -> Vec<String> {
    let mut keys: Vec<String> = run(con, &[b"KEYS", b"*"]);
    keys.sort();
    keys
}

#[test]
fn a_queue_exported_from_one_server_is_imported_on_another_under_another_name_byte_for_byte() {
    let a = RedisServer::start();
    let b = RedisServer::start();
    let mut con = a.conn();
    let now = qctl::engine::now().floor();

    // Ready jobs in a known order, enqueued by qctl itself.
    for i in 0..6 {
        enqueue(
            &a,
            "mail",
            &format!("r-{i}"),
            format!("payload {i}").as_bytes(),
        );
    }
    // Data that is not UTF-8.
    put_ready(
        &mut con,
        "mail",
        "binary-data",
        &record(
            "binary-data",
            &[0x00, 0xff, 0xfe, 0x80, b'\n', b'"', 0xc3],
            0,
        ),
    );
    // Records written by the Go library, each in the state its Attempt suggests.
    let golden = include_str!("golden/encode.jsonl");
    let mut golden_ids = Vec::new();
    for (n, line) in golden.lines().enumerate() {
        let v: Value = serde_json::from_str(line).expect("a golden vector");
        let id = v["id"].as_str().unwrap();
        // qctl refuses empty ids everywhere; the negative Attempt has a test of its own.
        if id.is_empty() || v["attempt"].as_i64().unwrap() < 0 {
            continue;
        }
        let rec = hex(v["hex"].as_str().unwrap());
        match v["attempt"].as_i64().unwrap() {
            0 => put_ready(&mut con, "mail", id, &rec),
            a if a <= 20 => {
                put_in_set(
                    &mut con,
                    "mail",
                    "scheduled",
                    id,
                    &rec,
                    now + 60.0 + n as f64 / 8.0,
                );
                put_failure(&mut con, "mail", id, &failure("exit 3", a - 1));
            }
            a => {
                put_in_set(
                    &mut con,
                    "mail",
                    "dead",
                    id,
                    &rec,
                    1_700_000_000.0 + n as f64 / 3.0,
                );
                put_failure(&mut con, "mail", id, &failure("exit 9", a - 1));
            }
        }
        golden_ids.push(id.to_string());
    }
    assert!(golden_ids.len() >= 10, "the golden vectors were read");
    // Records the reference reads that qctl would not write: keys in another order.
    let decode = include_str!("golden/decode.jsonl");
    let case = |name: &str| -> Vec<u8> {
        decode
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .find(|v| v["case"] == name)
            .map(|v| hex(v["hex"].as_str().unwrap()))
            .unwrap_or_else(|| panic!("no golden case {name:?}"))
    };
    put_in_set(
        &mut con,
        "mail",
        "dead",
        "a",
        &case("keys in another order"),
        1_700_000_100.0,
    );
    put_failure(&mut con, "mail", "a", &failure("exit 1", 4));
    // Records that do not decode: one ready, one scheduled.
    put_ready(&mut con, "mail", "damaged", &case("not msgpack at all"));
    put_in_set(
        &mut con,
        "mail",
        "scheduled",
        "damaged-too",
        &case("truncated record"),
        1_795_560_000.75,
    );
    // Delayed jobs with fractional due times, one of which has no short decimal form.
    for (id, due) in [
        ("later-1", 1_795_560_300.25),
        ("later-2", now + 3_600.123_456_789),
        ("later-3", 1e9 + 1.0 / 3.0),
    ] {
        put_in_set(
            &mut con,
            "mail",
            "scheduled",
            id,
            &record(id, id.as_bytes(), 0),
            due,
        );
    }
    // Retries with their failure records.
    for (id, attempt, due) in [("retry-1", 1, now + 0.5), ("retry-2", 4, 1_795_560_301.7)] {
        put_in_set(
            &mut con,
            "mail",
            "scheduled",
            id,
            &record(id, b"try again", attempt),
            due,
        );
        put_failure(&mut con, "mail", id, &failure("exit 2", attempt - 1));
    }
    // Dead jobs: a failure record as qctl writes it, one that is not JSON, one on two lines.
    put_in_set(
        &mut con,
        "mail",
        "dead",
        "dead-1",
        &record("dead-1", b"x", 21),
        1_700_000_000.123,
    );
    put_failure(&mut con, "mail", "dead-1", &failure("exit 3", 20));
    put_in_set(
        &mut con,
        "mail",
        "dead",
        "dead-2",
        &record("dead-2", b"y", 21),
        1_700_000_001.5,
    );
    put_failure(&mut con, "mail", "dead-2", b"\xff\xfe not JSON {");
    put_in_set(
        &mut con,
        "mail",
        "dead",
        "dead-3",
        &record("dead-3", b"z", 3),
        1_700_000_002.0,
    );
    put_failure(
        &mut con,
        "mail",
        "dead-3",
        b"{\n  \"reason\": \"exit 1\"\n}",
    );
    assert!(
        invariants(&a, "mail").is_empty(),
        "{:?}",
        invariants(&a, "mail")
    );

    let source = snapshot(&mut con, "mail");
    let before = a.dump_all();
    let (exported, _) = export(&a, "mail", &[]);
    assert_eq!(a.dump_all(), before, "export changed the source");
    let lines = json_lines(&exported);
    assert_eq!(
        lines[0]["qctl_export"], 1,
        "the first line is the header: {}",
        lines[0]
    );
    let jobs = jobs_by_id(&lines);
    assert_eq!(
        jobs.len(),
        source.data.len(),
        "one line per job: {:?}",
        jobs.keys()
    );
    assert!(
        jobs["damaged"]["damaged"].is_string(),
        "{}",
        jobs["damaged"]
    );
    assert!(
        jobs["binary-data"]["data_b64"].is_string(),
        "{}",
        jobs["binary-data"]
    );

    let out = import(&b, "copy", &[], &exported);
    assert_code(&out, 0, "import");
    let mut bcon = b.conn();
    assert_same_queue(&snapshot(&mut bcon, "copy"), &source);
    assert!(
        invariants(&b, "copy").is_empty(),
        "{:?}",
        invariants(&b, "copy")
    );
    let stray: Vec<String> = keys(&mut bcon)
        .into_iter()
        .filter(|k| !k.starts_with("copy:"))
        .collect();
    assert!(stray.is_empty(), "keys outside the queue copy: {stray:?}");
}

#[test]
fn a_go_record_with_a_negative_attempt_is_carried_byte_for_byte() {
    // The Go encoder writes any Attempt it is given (golden vector "neg": Attempt -1); an
    // export of such a queue must import as it was, its record unchanged.
    let a = RedisServer::start();
    let b = RedisServer::start();
    let golden = include_str!("golden/encode.jsonl");
    let neg: Value = golden
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|v| v["id"] == "neg")
        .expect("the golden vector \"neg\"");
    assert_eq!(neg["attempt"], -1);
    let mut con = a.conn();
    put_ready(&mut con, "mail", "before", &record("before", b"b", 0));
    put_ready(&mut con, "mail", "neg", &hex(neg["hex"].as_str().unwrap()));
    put_ready(&mut con, "mail", "after", &record("after", b"a", 0));
    let source = snapshot(&mut con, "mail");

    let (exported, _) = export(&a, "mail", &[]);
    let out = import(&b, "copy", &[], &exported);
    assert_code(&out, 0, "import");
    assert_same_queue(&snapshot(&mut b.conn(), "copy"), &source);
}

#[test]
fn jobs_in_flight_are_exported_with_their_consumer_and_imported_ready_or_delayed() {
    let a = RedisServer::start();
    let b = RedisServer::start();
    let mut con = a.conn();
    put_ready(&mut con, "mail", "waiting", &record("waiting", b"w", 0));
    let busy = record("busy", b"working on it", 2);
    put_in_flight(&mut con, "mail", CONSUMER, "busy", &busy);
    let before = a.dump_all();

    let (exported, _) = export(&a, "mail", &[]);
    assert_eq!(a.dump_all(), before, "export changed the source");
    let lines = json_lines(&exported);
    let jobs = jobs_by_id(&lines);
    let line = &jobs["busy"];
    assert_eq!(line["state"], "in_flight", "{line}");
    assert_eq!(
        line["consumer"],
        format!("mail:inflight:{CONSUMER}"),
        "{line}"
    );
    assert_eq!(line["attempt"], 2, "{line}");
    assert_eq!(line["data"], "working on it", "{line}");
    assert_eq!(lines[0]["counts"]["in_flight"], 1, "{}", lines[0]);

    // Imported as they are: ready, after the ready jobs before them in the file.
    let out = import(&b, "copy", &[], &exported);
    assert_code(&out, 0, "import");
    let mut bcon = b.conn();
    let copy = snapshot(&mut bcon, "copy");
    assert!(
        copy.active.contains(&b"busy".to_vec()),
        "{:?}",
        lossy(&copy.active)
    );
    assert_eq!(copy.active.len(), 2, "{:?}", lossy(&copy.active));
    assert!(
        copy.scheduled.is_empty() && copy.dead.is_empty(),
        "{copy:?}"
    );
    assert_eq!(
        copy.data.get(b"busy".as_slice()),
        Some(&busy),
        "record changed"
    );
    let inflight: Vec<String> = run(&mut bcon, &[b"KEYS", b"copy:inflight:*"]);
    assert!(
        inflight.is_empty(),
        "in flight at the destination: {inflight:?}"
    );
    assert!(
        invariants(&b, "copy").is_empty(),
        "{:?}",
        invariants(&b, "copy")
    );

    // With --in-flight-delay 10m: due ten minutes after the import.
    let start = qctl::engine::now();
    let out = import(&b, "later", &["--in-flight-delay", "10m"], &exported);
    let end = qctl::engine::now();
    assert_code(&out, 0, "import --in-flight-delay 10m");
    let later = snapshot(&mut bcon, "later");
    assert_eq!(
        lossy(&later.active),
        ["waiting"],
        "only the ready job is ready"
    );
    assert_eq!(later.scheduled.len(), 1, "{:?}", later.scheduled);
    let (id, due) = &later.scheduled[0];
    assert_eq!(id, b"busy");
    assert!(
        (start + 600.0 - 1.0..=end + 600.0 + 1.0).contains(due),
        "due {due}, expected about {} (import ran from {start} to {end})",
        start + 600.0
    );
    assert_eq!(
        later.data.get(b"busy".as_slice()),
        Some(&busy),
        "record changed"
    );
    assert!(
        invariants(&b, "later").is_empty(),
        "{:?}",
        invariants(&b, "later")
    );
}

/// A source queue `mail` with ready, scheduled, retrying and dead jobs (10 in all).
fn mixed_queue(server: &RedisServer) {
    let mut con = server.conn();
    for i in 0..5 {
        let id = format!("r-{i}");
        put_ready(&mut con, "mail", &id, &record(&id, b"ready", 0));
    }
    put_in_set(
        &mut con,
        "mail",
        "scheduled",
        "s-0",
        &record("s-0", b"s", 0),
        1_795_560_300.5,
    );
    put_in_set(
        &mut con,
        "mail",
        "scheduled",
        "s-1",
        &record("s-1", b"s", 0),
        1_795_560_301.5,
    );
    put_in_set(
        &mut con,
        "mail",
        "scheduled",
        "t-0",
        &record("t-0", b"t", 3),
        1_795_560_302.5,
    );
    put_failure(&mut con, "mail", "t-0", &failure("exit 3", 2));
    for id in ["d-0", "d-1"] {
        put_in_set(
            &mut con,
            "mail",
            "dead",
            id,
            &record(id, b"d", 21),
            1_700_000_000.25,
        );
        put_failure(&mut con, "mail", id, &failure("exit 4", 20));
    }
}

#[test]
fn the_same_import_run_twice_skips_every_job_the_second_time_and_duplicates_nothing() {
    let a = RedisServer::start();
    let b = RedisServer::start();
    mixed_queue(&a);
    let (exported, _) = export(&a, "mail", &[]);
    let out = import(&b, "copy", &[], &exported);
    assert_code(&out, 0, "first import");
    let mut bcon = b.conn();
    let first = snapshot(&mut bcon, "copy");
    assert_eq!(first.data.len(), 10, "{first:?}");

    let out = import(&b, "copy", &[], &exported);
    assert_code(&out, 0, "second import");
    let err = stderr(&out);
    assert!(
        err.contains("10 already there, skipped"),
        "the summary does not say the 10 jobs were skipped:\n{err}"
    );
    let second = snapshot(&mut bcon, "copy");
    assert_eq!(second.active.len(), first.active.len(), "LLEN changed");
    assert_eq!(second, first, "the second import changed the queue");
    assert!(ids_in_two_places(&mut bcon, "copy").is_empty());
    assert!(
        invariants(&b, "copy").is_empty(),
        "{:?}",
        invariants(&b, "copy")
    );

    // --json says the same.
    let out = import(&b, "copy", &["--json"], &exported);
    assert_code(&out, 0, "third import, --json");
    let s = summary(&out);
    assert_eq!(s["imported"], 0, "{s}");
    assert_eq!(s["skipped"], 10, "{s}");
    assert_eq!(snapshot(&mut bcon, "copy"), first);
}

#[test]
fn replace_overwrites_jobs_the_destination_has_but_never_one_in_flight_there() {
    let a = RedisServer::start();
    let b = RedisServer::start();
    let mut con = a.conn();
    let changed = record("changed", b"new version", 0);
    let again = record("again", b"retry me", 2);
    let again_failure = failure("exit 5", 1);
    put_ready(&mut con, "mail", "changed", &changed);
    put_ready(&mut con, "mail", "busy", &record("busy", b"new busy", 0));
    put_ready(&mut con, "mail", "fresh", &record("fresh", b"fresh", 0));
    put_in_set(
        &mut con,
        "mail",
        "scheduled",
        "again",
        &again,
        1_795_560_300.75,
    );
    put_failure(&mut con, "mail", "again", &again_failure);

    // At the destination: an unrelated job, "changed" and "again" dead with other data and
    // failures, "busy" in flight at a live consumer.
    let mut bcon = b.conn();
    put_ready(&mut bcon, "copy", "other", &record("other", b"other", 0));
    put_in_set(
        &mut bcon,
        "copy",
        "dead",
        "changed",
        &record("changed", b"old", 21),
        1_700_000_000.0,
    );
    put_failure(&mut bcon, "copy", "changed", &failure("exit 1", 20));
    put_in_set(
        &mut bcon,
        "copy",
        "dead",
        "again",
        &record("again", b"old", 21),
        1_700_000_000.0,
    );
    put_failure(&mut bcon, "copy", "again", &failure("exit 1", 20));
    let busy_there = record("busy", b"old busy", 0);
    put_in_flight(&mut bcon, "copy", CONSUMER, "busy", &busy_there);

    let (exported, _) = export(&a, "mail", &[]);
    let out = import(&b, "copy", &["--json", "--replace"], &exported);
    assert_code(
        &out,
        7,
        "import --replace with a job in flight at the destination",
    );
    assert!(
        stderr(&out).contains("busy"),
        "the job in flight is not named:\n{}",
        stderr(&out)
    );
    let s = summary(&out);
    assert_eq!(s["replaced"], 2, "{s}");
    assert_eq!(s["not_replaced"], 1, "{s}");

    let copy = snapshot(&mut bcon, "copy");
    // Ready jobs at the end, in the order of the file; "busy" not among them.
    assert_eq!(lossy(&copy.active), ["other", "changed", "fresh"]);
    assert_eq!(copy.data.get(b"changed".as_slice()), Some(&changed));
    assert_eq!(copy.data.get(b"again".as_slice()), Some(&again));
    assert_eq!(copy.scheduled, vec![(b"again".to_vec(), 1_795_560_300.75)]);
    assert!(
        copy.dead.is_empty(),
        "replaced jobs left in dead: {:?}",
        copy.dead
    );
    assert!(
        !copy.failures.contains_key(b"changed".as_slice()),
        "the replaced job's old failure record stayed"
    );
    assert_eq!(copy.failures.get(b"again".as_slice()), Some(&again_failure));
    // The job in flight is untouched.
    assert_eq!(copy.data.get(b"busy".as_slice()), Some(&busy_there));
    let held: Vec<String> = run(
        &mut bcon,
        &[b"SMEMBERS", format!("copy:inflight:{CONSUMER}").as_bytes()],
    );
    assert_eq!(held, ["busy"]);
    assert!(ids_in_two_places(&mut bcon, "copy").is_empty());
    assert!(
        invariants(&b, "copy").is_empty(),
        "{:?}",
        invariants(&b, "copy")
    );
}

#[test]
fn an_unusable_line_stops_the_import_with_exit_6_naming_it_after_every_job_before_it() {
    let a = RedisServer::start();
    let mut con = a.conn();
    for i in 1..=8 {
        let id = format!("j-{i}");
        put_ready(&mut con, "mail", &id, &record(&id, b"data", 0));
    }
    let (exported, _) = export(&a, "mail", &[]);
    let lines: Vec<String> = String::from_utf8(exported)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    assert_eq!(lines.len(), 9, "a header and 8 jobs");
    // The 4th job is line 5 of the file.
    let fourth: Value = serde_json::from_str(&lines[4]).unwrap();
    assert_eq!(fourth["id"], "j-4");
    let edited = |field: &str, value: &str| {
        let mut v = fourth.clone();
        v[field] = Value::from(value);
        v.to_string()
    };
    let cases = [
        (
            "not JSON",
            "{\"id\":\"j-4\",\"state\":\"ready\",".to_string(),
        ),
        ("an unknown state", edited("state", "limbo")),
        ("bad base64", edited("record_b64", "%%% not base64 %%%")),
    ];
    for (n, (what, bad)) in cases.into_iter().enumerate() {
        let queue = format!("copy-{n}");
        let mut file = lines.clone();
        file[4] = bad;
        let out = import(&a, &queue, &[], (file.join("\n") + "\n").as_bytes());
        assert_code(&out, 6, &format!("import of a file whose line 5 is {what}"));
        assert!(
            names_line(&stderr(&out), 5),
            "{what}: line 5 is not named:\n{}",
            stderr(&out)
        );
        let copy = snapshot(&mut con, &queue);
        assert_eq!(
            lossy(&copy.active),
            ["j-1", "j-2", "j-3"],
            "{what}: not exactly the jobs before line 5"
        );
        assert_eq!(copy.data.len(), 3, "{what}: {:?}", copy.data.keys());
        assert!(
            invariants(&a, &queue).is_empty(),
            "{:?}",
            invariants(&a, &queue)
        );
    }
}

#[test]
fn enqueue_jsonl_lines_import_as_ready_or_scheduled_jobs() {
    let server = RedisServer::start();
    let at = qctl::engine::now().floor() + 3600.0;
    let input = format!(
        "{{\"id\":\"x\",\"data\":\"hello\"}}\n{{\"data_b64\":\"AP8=\"}}\n{{\"id\":\"later\",\"data\":\"x\",\"at\":{at}}}\n"
    );
    let out = import(&server, "copy", &[], input.as_bytes());
    assert_code(&out, 0, "import of enqueue --jsonl lines");
    let mut con = server.conn();
    let copy = snapshot(&mut con, "copy");
    assert_eq!(copy.active.len(), 2, "{:?}", lossy(&copy.active));
    assert_eq!(copy.active[0], b"x");
    assert_eq!(copy.data[b"x".as_slice()], record("x", b"hello", 0));
    let new = String::from_utf8(copy.active[1].clone()).unwrap();
    assert_eq!(new.len(), 36, "not a UUID: {new}");
    assert_eq!(
        copy.data[new.as_bytes()],
        record(&new, &[0x00, 0xff], 0),
        "the record of the data_b64 line"
    );
    assert_eq!(copy.scheduled, vec![(b"later".to_vec(), at)]);
    assert_eq!(copy.data[b"later".as_slice()], record("later", b"x", 0));
    assert!(copy.dead.is_empty() && copy.failures.is_empty());
    assert!(
        invariants(&server, "copy").is_empty(),
        "{:?}",
        invariants(&server, "copy")
    );
}

#[test]
fn export_with_state_filters_writes_the_header_and_only_those_states() {
    let server = RedisServer::start();
    mixed_queue(&server);
    let mut con = server.conn();
    put_in_flight(&mut con, "mail", CONSUMER, "f-0", &record("f-0", b"f", 0));
    let (exported, _) = export(&server, "mail", &["--state", "dead", "--state", "retrying"]);
    let lines = json_lines(&exported);
    let header = &lines[0];
    assert_eq!(header["qctl_export"], 1, "{header}");
    assert_eq!(header["queue"], "mail", "{header}");
    assert!(
        header.get("id").is_none(),
        "the first line is a job: {header}"
    );
    let jobs = jobs_by_id(&lines);
    assert_eq!(
        jobs.keys().collect::<Vec<_>>(),
        ["d-0", "d-1", "t-0"],
        "not exactly the dead and retrying jobs"
    );
    for (id, line) in &jobs {
        let state = line["state"].as_str().unwrap();
        match state {
            "dead" => assert_eq!(line["died"], 1_700_000_000.25, "{line}"),
            "retrying" => assert_eq!(line["due"], 1_795_560_302.5, "{line}"),
            other => panic!("{id} exported in state {other}"),
        }
    }
    assert_eq!(jobs["t-0"]["state"], "retrying");
    assert_eq!(jobs["d-0"]["state"], "dead");
}

/// Kills (SIGKILL) and reaps a child when dropped, so a failing test leaves nothing behind.
struct KillOnDrop(Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn an_import_killed_half_way_is_finished_by_running_it_again() {
    const JOBS: usize = 50_000;
    let a = RedisServer::start();
    let b = RedisServer::start();
    let lines: String = (0..JOBS).map(|i| format!("{i}\n")).collect();
    qctl(&a)
        .args(["enqueue", "mail", "--lines"])
        .write_stdin(lines)
        .assert()
        .success();
    let (exported, _) = export(&a, "mail", &[]);
    let order: Vec<Vec<u8>> = a.cmd(&[b"LRANGE", b"mail:active", b"0", b"-1"]);
    assert_eq!(order.len(), JOBS);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("mail.jsonl");
    std::fs::write(&file, &exported).unwrap();

    // The lines go through a pipe, a slice at a time, so the kill lands half-way.
    let mut child = KillOnDrop(
        qctl_process(&b)
            .args(["import", "copy"])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start qctl import"),
    );
    let mut stdin = child.0.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        for slice in exported.chunks(1 << 20) {
            if stdin.write_all(slice).is_err() {
                return; // killed
            }
            std::thread::sleep(Duration::from_millis(40));
        }
    });
    let mut seen = 0;
    let partway = wait_until(Duration::from_secs(60), || {
        seen = b.cmd::<usize>(&[b"LLEN", b"copy:active"]);
        seen > 0
    });
    assert!(partway, "no job arrived within 60 s");
    assert!(seen < JOBS, "the import finished before it could be killed");
    child.0.kill().unwrap();
    child.0.wait().unwrap();
    writer.join().unwrap();
    let after_kill: usize = b.cmd(&[b"LLEN", b"copy:active"]);
    assert!(
        after_kill > 0 && after_kill < JOBS,
        "not killed half-way: {after_kill} of {JOBS} ready"
    );
    assert!(
        invariants(&b, "copy").is_empty(),
        "after the kill: {:?}",
        invariants(&b, "copy")
    );
    support::figure(&format!(
        "transfer: import killed with {after_kill} of {JOBS} jobs written"
    ));

    let out = qctl(&b)
        .args(["import", "copy", "--file"])
        .arg(&file)
        .output()
        .unwrap();
    assert_code(&out, 0, "the import run again");
    let copy: Vec<Vec<u8>> = b.cmd(&[b"LRANGE", b"copy:active", b"0", b"-1"]);
    let unique: HashSet<&Vec<u8>> = copy.iter().collect();
    assert_eq!(unique.len(), copy.len(), "an id is twice in copy:active");
    assert_eq!(copy.len(), JOBS, "not every job is in copy:active");
    assert!(
        copy == order,
        "the ready jobs are not in the order of the file"
    );
    let records: usize = b.cmd(&[b"HLEN", b"copy:data"]);
    assert_eq!(records, JOBS);
    assert!(
        invariants(&b, "copy").is_empty(),
        "{:?}",
        invariants(&b, "copy")
    );
}

#[test]
fn a_queue_with_a_cluster_hash_tag_in_its_name_is_exported_and_imported() {
    let server = RedisServer::start();
    enqueue(&server, "{mail}", "first", b"one");
    enqueue(&server, "{mail}", "second", b"two");
    let mut con = server.conn();
    put_in_set(
        &mut con,
        "{mail}",
        "scheduled",
        "later",
        &record("later", b"l", 0),
        1_795_560_300.5,
    );
    put_in_set(
        &mut con,
        "{mail}",
        "dead",
        "gone",
        &record("gone", b"g", 21),
        1_700_000_000.5,
    );
    put_failure(&mut con, "{mail}", "gone", &failure("exit 3", 20));

    let (exported, _) = export(&server, "{mail}", &[]);
    let lines = json_lines(&exported);
    assert_eq!(lines[0]["queue"], "{mail}", "{}", lines[0]);
    assert_eq!(jobs_by_id(&lines).len(), 4);
    let out = import(&server, "{copy}", &[], &exported);
    assert_code(&out, 0, "import into {copy}");
    assert_same_queue(&snapshot(&mut con, "{copy}"), &snapshot(&mut con, "{mail}"));
    assert!(
        invariants(&server, "{copy}").is_empty(),
        "{:?}",
        invariants(&server, "{copy}")
    );
    let stray: Vec<String> = keys(&mut con)
        .into_iter()
        .filter(|k| !k.starts_with("{mail}:") && !k.starts_with("{copy}:"))
        .collect();
    assert!(stray.is_empty(), "keys outside the two queues: {stray:?}");
}

#[test]
fn the_header_counts_what_the_source_held_and_names_it_without_the_password() {
    const PW: &str = "Tr4nsfer-s3cret-pw";
    let server = RedisServer::start_with(&["--requirepass", PW]);
    let port = server.port();
    let with_password = format!("redis://:{PW}@127.0.0.1:{port}");
    let mut con = redis::Client::open(with_password.as_str())
        .and_then(|c| c.get_connection())
        .expect("connect with the password");
    for i in 0..3 {
        let id = format!("r-{i}");
        put_ready(&mut con, "mail", &id, &record(&id, b"r", 0));
    }
    put_in_set(
        &mut con,
        "mail",
        "scheduled",
        "s-0",
        &record("s-0", b"s", 0),
        1_795_560_300.5,
    );
    put_in_set(
        &mut con,
        "mail",
        "scheduled",
        "s-1",
        &record("s-1", b"s", 0),
        1_795_560_300.5,
    );
    put_in_set(
        &mut con,
        "mail",
        "scheduled",
        "t-0",
        &record("t-0", b"t", 1),
        1_795_560_300.5,
    );
    put_in_set(
        &mut con,
        "mail",
        "dead",
        "d-0",
        &record("d-0", b"d", 21),
        1_700_000_000.0,
    );
    put_in_set(
        &mut con,
        "mail",
        "dead",
        "d-1",
        &record("d-1", b"d", 21),
        1_700_000_000.0,
    );
    put_in_flight(&mut con, "mail", CONSUMER, "f-0", &record("f-0", b"f", 0));
    let other = "1b7d3e2a-1c4f-4d5e-9f00-aabbccddeeff";
    put_in_flight(&mut con, "mail", other, "f-1", &record("f-1", b"f", 0));

    let without_password = format!("redis://127.0.0.1:{port}");
    let runs = [
        qctl_url(&with_password).args(["export", "mail"]).output(),
        qctl_url(&without_password)
            .env("QCTL_REDIS_PASSWORD", PW)
            .env_remove("QCTL_REDIS_PASSWORD_FILE")
            .args(["export", "mail"])
            .output(),
    ];
    for (how, out) in ["password in the URL", "password in $QCTL_REDIS_PASSWORD"]
        .into_iter()
        .zip(runs)
    {
        let server_time: Vec<String> = run(&mut con, &[b"TIME"]);
        let server_now: f64 = server_time[0].parse().unwrap();
        let out = out.expect("run qctl export");
        assert_code(&out, 0, &format!("export, {how}"));
        let (stdout, err) = (String::from_utf8_lossy(&out.stdout), stderr(&out));
        assert!(
            !stdout.contains(PW) && !err.contains(PW),
            "{how}: the password was printed"
        );
        let lines = json_lines(&out.stdout);
        let header = &lines[0];
        assert_eq!(header["qctl_export"], 1, "{how}: {header}");
        assert_eq!(header["queue"], "mail", "{how}: {header}");
        assert_eq!(
            header["source"],
            format!("127.0.0.1:{port}"),
            "{how}: {header}"
        );
        let counts = &header["counts"];
        assert_eq!(counts["ready"], 3, "{how}: {header}");
        assert_eq!(counts["scheduled"], 3, "{how}: {header}");
        assert_eq!(counts["dead"], 2, "{how}: {header}");
        assert_eq!(counts["in_flight"], 2, "{how}: {header}");
        let time = header["time_unix"].as_f64().expect("time_unix is a number");
        assert!(
            (server_now - 5.0..=server_now + 1.0).contains(&time),
            "{how}: time_unix {time}, the server's clock said {server_now} after the export"
        );
        assert!(header["time"].is_string(), "{how}: {header}");
        assert_eq!(jobs_by_id(&lines).len(), 10, "{how}");
    }
}

#[test]
fn an_id_exported_without_a_record_is_named_and_makes_the_exit_code_7() {
    let server = RedisServer::start();
    let mut con = server.conn();
    put_ready(&mut con, "mail", "a", &record("a", b"x", 0));
    // An id whose record is gone: doctor's "ids without a record".
    run::<()>(&mut con, &[b"RPUSH", b"mail:active", b"ghost"]);
    let (bytes, _) = export(&server, "mail", &[]);
    let lines = json_lines(&bytes);
    let ghost = jobs_by_id(&lines)["ghost"].clone();
    assert_eq!(ghost["record_b64"], Value::Null, "{ghost}");
    let to = RedisServer::start();
    let out = import(&to, "copy", &["--json"], &bytes);
    assert_code(&out, 7, "an id without a record");
    let err = stderr(&out);
    assert!(
        err.contains("1 id exported without a record, not imported (e.g. ghost)"),
        "{err}"
    );
    assert_eq!(summary(&out)["without_record"], 1);
    assert_eq!(to.lrange("copy:active"), vec!["a".to_string()]);
}

/// Bytes Redis has sent so far (INFO stats).
fn bytes_sent(server: &RedisServer) -> u64 {
    let info: String = server.cmd(&[b"INFO", b"stats"]);
    info.lines()
        .find_map(|l| l.strip_prefix("total_net_output_bytes:"))
        .and_then(|v| v.trim().parse().ok())
        .expect("total_net_output_bytes in INFO stats")
}

/// Jobs of one score (a burst enqueued with `--in 1h`, or killed in one second) cost an
/// export no more than jobs of many: the walk goes on by rank, not by re-reading the score.
#[test]
fn jobs_of_one_score_are_exported_once_each_at_the_cost_of_any_others() {
    let server = RedisServer::start();
    let n = 40_000u64;
    let mut con = server.conn();
    let fill = |con: &mut redis::Connection, queue: &str, same: bool| {
        let mut pipe = redis::pipe();
        for i in 0..n {
            let id = format!("s-{i}");
            let score = if same {
                1_800_000_000.0
            } else {
                1_800_000_000.0 + i as f64
            };
            pipe.hset(format!("{queue}:data"), &id, record(&id, b"x", 0))
                .ignore()
                .zadd(format!("{queue}:scheduled"), &id, score)
                .ignore();
        }
        pipe.query::<()>(con).expect("fill");
    };
    fill(&mut con, "tied", true);
    fill(&mut con, "spread", false);
    let mut sent = Vec::new();
    for queue in ["tied", "spread"] {
        let before = bytes_sent(&server);
        let (bytes, _) = export(&server, queue, &[]);
        sent.push(bytes_sent(&server) - before);
        let lines = json_lines(&bytes);
        let ids: HashSet<String> = lines[1..]
            .iter()
            .map(|l| l["id"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(lines.len() as u64, n + 1, "{queue}: one line per job");
        assert_eq!(ids.len() as u64, n, "{queue}: each job once");
    }
    let ratio = sent[0] as f64 / sent[1] as f64;
    assert!(
        ratio < 1.2,
        "Redis sent {} bytes for {n} jobs of one score, {} for {n} of as many scores",
        sent[0],
        sent[1]
    );
    support::figure(&format!(
        "T1 export of {n} scheduled jobs of one score: Redis sent {} bytes, {} for {n} of distinct scores (ratio {ratio:.2})",
        sent[0], sent[1]
    ));
}

/// Lines without an id get a new one each run: an import of them that was stopped says to go
/// on after the last line it imported, and doing so imports every line once.
#[test]
fn a_stopped_import_of_lines_without_ids_says_where_to_go_on() {
    let server = RedisServer::start();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("jobs.jsonl");
    let n = 200_000u64;
    let lines: String = (1..=n).map(|i| format!("{{\"data\":\"{i}\"}}\n")).collect();
    std::fs::write(&file, lines).unwrap();
    let child = qctl_process(&server)
        .args(["import", "q", "--file"])
        .arg(&file)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let llen = |server: &RedisServer| -> u64 { server.cmd(&[b"LLEN", b"q:active"]) };
    assert!(wait_until(Duration::from_secs(30), || llen(&server) > 0));
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGTERM,
    )
    .unwrap();
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    let done = llen(&server);
    if out.status.code() == Some(0) {
        // It finished before the signal was handled: nothing to go on with.
        assert_eq!(done, n, "{err}");
        return;
    }
    assert_eq!(out.status.code(), Some(143), "{err}");
    assert!(done < n, "{err}");
    let hint = format!("tail -n +{}", done + 1);
    assert!(
        err.contains(&hint) && !err.contains("run the same command again"),
        "{err}"
    );
    let rest: String = std::fs::read_to_string(&file)
        .unwrap()
        .lines()
        .skip(done as usize)
        .map(|l| format!("{l}\n"))
        .collect();
    qctl(&server)
        .args(["import", "q"])
        .write_stdin(rest)
        .assert()
        .success();
    assert_eq!(llen(&server), n, "every line once");
    let records: std::collections::HashMap<String, Vec<u8>> = server.cmd(&[b"HGETALL", b"q:data"]);
    let data: Vec<u64> = server
        .lrange("q:active")
        .iter()
        .map(|id| {
            let job = Job::decode(&records[id]).unwrap();
            String::from_utf8(job.data_bytes().to_vec())
                .unwrap()
                .parse()
                .unwrap()
        })
        .collect();
    assert_eq!(
        data,
        (1..=n).collect::<Vec<_>>(),
        "in the order of the file"
    );
}

/// `p` holds a job in every state, one of them in flight at a live consumer.
fn queue_p(server: &RedisServer) {
    let mut con = server.conn();
    put_ready(&mut con, "p", "p-ready", &record("p-ready", b"r", 0));
    put_in_set(
        &mut con,
        "p",
        "scheduled",
        "p-later",
        &record("p-later", b"s", 0),
        4e9,
    );
    put_in_set(
        &mut con,
        "p",
        "dead",
        "p-dead",
        &record("p-dead", b"d", 3),
        1e9,
    );
    put_in_flight(
        &mut con,
        "p",
        CONSUMER,
        "p-held",
        &record("p-held", b"h", 0),
    );
}

#[test]
fn export_of_a_queue_counts_and_writes_none_of_the_jobs_of_queues_named_after_it() {
    // `p:inflight:abc:active` matches `p:inflight:*`, as does the in-flight set of the queue
    // `p:inflight`: the export failed with WRONGTYPE (naming no key), or counted and wrote
    // the neighbour's jobs as p's.
    let server = RedisServer::start();
    queue_p(&server);
    let planted = support::neighbours::plant(&server, "p");
    let before = support::neighbours::dump(&server, &planted);
    let (out, err) = export(&server, "p", &[]);
    let lines = json_lines(&out);
    assert_eq!(
        lines[0]["counts"],
        serde_json::json!({"ready": 1, "scheduled": 1, "dead": 1, "in_flight": 1}),
        "{err}"
    );
    let ids: Vec<String> = jobs_by_id(&lines).into_keys().collect();
    assert_eq!(ids, ["p-dead", "p-held", "p-later", "p-ready"], "{err}");
    let text = String::from_utf8_lossy(&out);
    assert_eq!(support::neighbours::mentioned(&planted, &text), None);
    assert_eq!(support::neighbours::mentioned(&planted, &err), None);
    assert_eq!(support::neighbours::dump(&server, &planted), before);
}

#[test]
fn a_key_of_the_wrong_type_found_while_counting_a_queue_is_named() {
    // The counts are read in one pipeline: its WRONGTYPE said "refused LLEN, ZCARD, SCARD of
    // queue" without the key.
    let server = RedisServer::start();
    queue_p(&server);
    let _: () = server.cmd(&[b"DEL", b"p:scheduled"]);
    let _: () = server.cmd(&[b"SET", b"p:scheduled", b"x"]);
    let out = qctl(&server)
        .args(["export", "p"])
        .output()
        .expect("run qctl export");
    assert_code(&out, 4, "export of a queue with a string as p:scheduled");
    let err = stderr(&out);
    assert!(err.contains("ZCARD p:scheduled"), "{err}");
    assert!(err.contains("WRONGTYPE"), "{err}");
}
