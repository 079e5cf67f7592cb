//! `qctl move SRC DST` against real redis-servers: a queue of every kind of job (Go records,
//! damaged ones, awkward scores, failures, an id without a record) carried to another server
//! and back byte for byte, ids that are not UTF-8 too; a rename on one server and the
//! refusals, a move onto itself through another URL of the same server among them; a move
//! under consumers on both sides and a producer (nothing lost, nothing run twice); a move
//! killed (SIGKILL) half-way or between its two journals, or stopped (SIGTERM), finished by
//! running it again; a destination with a password; jobs in flight waited for or taken, and
//! their consumer's late settles; ids the destination already has; a 3-master cluster as the
//! destination; a closed stdout. No journal key (`*:move-out`, `*:move-in`) is left anywhere.

mod support;

use std::collections::{BTreeMap, HashSet};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant, SystemTime};

use nix::sys::signal::Signal;
use qctl::engine::failure::Failure;
use qctl::engine::Job;
use serde_json::Value;
use support::cluster::Cluster;
use support::judge::{End, Enqueue, History};
use support::ledger::Run;
use support::{
    figure, hold_in_flight, invariants, qctl, qctl_process_at, qctl_url, wait_until, Background,
    RedisServer, FAST, TLS_ENV,
};

/// The environment that could point a move elsewhere than the test says.
const MOVE_ENV: [&str; 8] = [
    "QCTL_TO_REDIS_URL",
    "QCTL_TO_REDIS_USER",
    "QCTL_TO_REDIS_PASSWORD",
    "QCTL_TO_REDIS_PASSWORD_FILE",
    "QCTL_CLUSTER",
    "QCTL_REDIS_PASSWORD",
    "QCTL_REDIS_PASSWORD_FILE",
    "QCTL_REDIS_USER",
];

/// The uuid of the consumer that holds the jobs planted in flight.
const CONSUMER: &str = "0b7d3e2a-1c4f-4d5e-9f00-aabbccddeeff";

/// The five keys that hold a queue's jobs.
const JOB_KEYS: [&str; 5] = ["active", "data", "scheduled", "dead", "failures"];

// ---------------------------------------------------------------------------------------
// Running qctl move.

/// `qctl -u URL GLOBAL move ARGS`, waited for (at most 60 s), whatever its exit code.
fn qctl_move(url: &str, global: &[&str], args: &[&str]) -> Output {
    let mut cmd = qctl_url(url);
    for name in MOVE_ENV.iter().chain(TLS_ENV.iter()) {
        cmd.env_remove(name);
    }
    cmd.args(global)
        .arg("move")
        .args(args)
        .timeout(Duration::from_secs(60))
        .output()
        .expect("run qctl move")
}

/// Removes what could point a move elsewhere than the test says.
fn clean_env(cmd: &mut Command) {
    for name in MOVE_ENV.iter().chain(TLS_ENV.iter()) {
        cmd.env_remove(name);
    }
    cmd.env("NO_COLOR", "1")
        .env_remove("QCTL_REDIS_URL")
        .env_remove("REDIS_URL");
}

/// `qctl -u URL move ARGS` as a process of its own (to be signalled or piped).
fn move_process(url: &str, args: &[&str]) -> Command {
    let mut cmd = qctl_process_at(url);
    clean_env(&mut cmd);
    cmd.arg("move").args(args);
    cmd
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
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
        stdout(out),
        stderr(out)
    );
}

/// The JSON summary: the last non-empty line of stdout.
fn summary_of(text: &str, err: &str) -> Value {
    let last = text
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or_else(|| panic!("move --json printed nothing on stdout; stderr:\n{err}"));
    serde_json::from_str(last).unwrap_or_else(|e| panic!("not JSON ({e}): {last}\n{err}"))
}

fn summary(out: &Output) -> Value {
    summary_of(&stdout(out), &stderr(out))
}

/// Asserts the summary's fields (those given) are exactly these values.
fn assert_summary(s: &Value, want: &[(&str, Value)]) {
    for (field, value) in want {
        assert_eq!(&s[*field], value, "summary field {field:?}: {s}");
    }
}

// ---------------------------------------------------------------------------------------
// Reading and writing queues as raw bytes.

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

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

/// A record as CurlyQ writes it.
fn record(id: &[u8], data: &[u8], attempt: i64) -> Vec<u8> {
    Job {
        id: String::from_utf8_lossy(id).into_owned(),
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

/// A ready job: its record (none when `record` is None), and its id at the tail of active.
fn put_ready(con: &mut redis::Connection, queue: &str, id: &[u8], record: Option<&[u8]>) {
    if let Some(record) = record {
        let _: () = run(con, &[b"HSET", &key(queue, "data"), id, record]);
    }
    let _: () = run(con, &[b"RPUSH", &key(queue, "active"), id]);
}

/// A job in the sorted set `set` (`scheduled` or `dead`) with this score, given as the
/// string ZADD reads.
fn put_in_set(
    con: &mut redis::Connection,
    queue: &str,
    set: &str,
    id: &[u8],
    record: Option<&[u8]>,
    score: &str,
) {
    if let Some(record) = record {
        let _: () = run(con, &[b"HSET", &key(queue, "data"), id, record]);
    }
    let _: () = run(con, &[b"ZADD", &key(queue, set), score.as_bytes(), id]);
}

fn put_failure(con: &mut redis::Connection, queue: &str, id: &[u8], failure: &[u8]) {
    let _: () = run(con, &[b"HSET", &key(queue, "failures"), id, failure]);
}

type Pairs = Vec<(Vec<u8>, Vec<u8>)>;

/// A queue's jobs as raw bytes: the ready ids in order, records and failures sorted by id,
/// the sorted sets with their scores as the strings Redis gives.
#[derive(Clone, Debug, PartialEq)]
struct Snapshot {
    active: Vec<Vec<u8>>,
    data: Pairs,
    scheduled: Pairs,
    dead: Pairs,
    failures: Pairs,
}

fn pairs(flat: Vec<Vec<u8>>) -> Pairs {
    assert!(flat.len() % 2 == 0, "a reply of pairs has an odd length");
    flat.chunks(2)
        .map(|p| (p[0].clone(), p[1].clone()))
        .collect()
}

fn snapshot(con: &mut redis::Connection, queue: &str) -> Snapshot {
    let hash = |con: &mut redis::Connection, suffix: &str| -> Pairs {
        let mut p = pairs(run(con, &[b"HGETALL", &key(queue, suffix)]));
        p.sort();
        p
    };
    let zset = |con: &mut redis::Connection, suffix: &str| -> Pairs {
        pairs(run(
            con,
            &[b"ZRANGE", &key(queue, suffix), b"0", b"-1", b"WITHSCORES"],
        ))
    };
    Snapshot {
        active: run(con, &[b"LRANGE", &key(queue, "active"), b"0", b"-1"]),
        data: hash(con, "data"),
        scheduled: zset(con, "scheduled"),
        dead: zset(con, "dead"),
        failures: hash(con, "failures"),
    }
}

fn lossy(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn lossy_ids(ids: &[Vec<u8>]) -> Vec<String> {
    ids.iter().map(|i| lossy(i)).collect()
}

fn lossy_pairs(p: &Pairs) -> Vec<(String, String)> {
    p.iter().map(|(a, b)| (lossy(a), lossy(b))).collect()
}

/// Compares two queues part by part, so a failure says which part differs.
fn assert_same_queue(got: &Snapshot, want: &Snapshot, what: &str) {
    assert_eq!(
        lossy_ids(&got.active),
        lossy_ids(&want.active),
        "{what}: the ready jobs (LRANGE active) differ"
    );
    let ids = |p: &Pairs| lossy_ids(&p.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>());
    assert_eq!(
        ids(&got.data),
        ids(&want.data),
        "{what}: the ids in data differ"
    );
    for ((id, rec), (_, want_rec)) in got.data.iter().zip(&want.data) {
        assert!(
            rec == want_rec,
            "{what}: the record of {:?} is not byte for byte the original's:\n got {rec:02x?}\nwant {want_rec:02x?}",
            lossy(id)
        );
    }
    assert_eq!(
        lossy_pairs(&got.scheduled),
        lossy_pairs(&want.scheduled),
        "{what}: scheduled (ids, score strings) differ"
    );
    assert_eq!(
        lossy_pairs(&got.dead),
        lossy_pairs(&want.dead),
        "{what}: dead (ids, score strings) differ"
    );
    assert_eq!(
        lossy_pairs(&got.failures),
        lossy_pairs(&want.failures),
        "{what}: failure records differ"
    );
    assert!(got == want, "{what}: the queues differ in bytes");
}

/// Which of the five job keys of `queue` exist.
fn job_keys(con: &mut redis::Connection, queue: &str) -> Vec<String> {
    JOB_KEYS
        .iter()
        .filter(|s| run::<i64>(con, &[b"EXISTS", &key(queue, s)]) == 1)
        .map(|s| format!("{queue}:{s}"))
        .collect()
}

/// Every key of a server, sorted.
fn keys(con: &mut redis::Connection) -> Vec<String> {
    let mut keys: Vec<String> = run(con, &[b"KEYS", b"*"]);
    keys.sort();
    keys
}

/// The move journals of a server (`*:move-out`, `*:move-in`).
fn journals(server: &RedisServer) -> Vec<String> {
    let mut con = server.conn();
    let mut found: Vec<String> = run(&mut con, &[b"KEYS", b"*:move-out"]);
    found.extend(run::<Vec<String>>(&mut con, &[b"KEYS", b"*:move-in"]));
    found.sort();
    found
}

fn assert_no_journal(servers: &[&RedisServer], what: &str) {
    for s in servers {
        let left = journals(s);
        assert!(
            left.is_empty(),
            "{what}: journal keys left on {}: {left:?}",
            s.url()
        );
    }
}

/// The keys of `server` that differ from `before` (its `dump_all`): added, removed, changed.
fn changes(server: &RedisServer, before: &[(String, String, String)]) -> Vec<String> {
    let after = server.dump_all();
    if after == before {
        return Vec::new();
    }
    let names = |d: &[(String, String, String)]| -> BTreeMap<String, (String, String)> {
        d.iter()
            .map(|(k, t, v)| (k.clone(), (t.clone(), v.clone())))
            .collect()
    };
    let (was, now) = (names(before), names(&after));
    let mut diff = Vec::new();
    for (k, v) in &now {
        match was.get(k) {
            None => diff.push(format!("{k} was added ({}: {:.200})", v.0, v.1)),
            Some(w) if w != v => diff.push(format!("{k} changed to {:.200}", v.1)),
            _ => {}
        }
    }
    for k in was.keys().filter(|k| !now.contains_key(*k)) {
        diff.push(format!("{k} was removed"));
    }
    diff
}

/// Asserts `server` holds exactly what `before` (its `dump_all`) held, naming the keys that
/// differ.
fn assert_unchanged(server: &RedisServer, before: &[(String, String, String)], what: &str) {
    let diff = changes(server, before);
    assert!(diff.is_empty(), "{what} changed something: {diff:?}");
}

/// Whether `text` names `id` as a word of its own (not inside another word).
fn names(text: &str, id: &str) -> bool {
    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '-' || c == '_');
    text.match_indices(id).any(|(at, _)| {
        !word(text[..at].chars().next_back()) && !word(text[at + id.len()..].chars().next())
    })
}

fn assert_sound(server: &RedisServer, queue: &str, what: &str) {
    let broken = invariants(server, queue);
    assert!(broken.is_empty(), "{what}: {queue}: {broken:?}");
}

fn llen(con: &mut redis::Connection, key: &str) -> usize {
    run(con, &[b"LLEN", key.as_bytes()])
}

// ---------------------------------------------------------------------------------------
// The queue of every kind of job.

/// What `seed` put in a queue, by state.
#[derive(Clone, Copy, Debug)]
struct Counts {
    ready: usize,
    scheduled: usize,
    dead: usize,
}

impl Counts {
    fn total(&self) -> usize {
        self.ready + self.scheduled + self.dead
    }
}

fn golden_decode_case(name: &str) -> Vec<u8> {
    include_str!("golden/decode.jsonl")
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("a golden case"))
        .find(|v| v["case"] == name)
        .map(|v| hex(v["hex"].as_str().unwrap()))
        .unwrap_or_else(|| panic!("no golden case {name:?}"))
}

/// Fills `queue` with: Go's records (golden/encode.jsonl, the empty id aside) ready, retrying
/// or dead as their Attempt says; records the reference reads that qctl would not write;
/// damaged records; data that is not UTF-8; an id in active and one in scheduled without a
/// record; scheduled jobs due at fractions, ties, a negative time and the far future; retries
/// and dead jobs with qctl failure records, one not JSON, one on two lines.
fn seed(con: &mut redis::Connection, queue: &str) -> Counts {
    let mut n = Counts {
        ready: 0,
        scheduled: 0,
        dead: 0,
    };
    let golden = include_str!("golden/encode.jsonl");
    for (i, line) in golden.lines().enumerate() {
        let v: Value = serde_json::from_str(line).expect("a golden vector");
        let id = v["id"].as_str().unwrap().as_bytes();
        if id.is_empty() {
            continue; // qctl refuses empty ids everywhere
        }
        let rec = hex(v["hex"].as_str().unwrap());
        match v["attempt"].as_i64().unwrap() {
            // "neg" (Attempt -1) too: a move carries records without reading them.
            a if a <= 0 => {
                put_ready(con, queue, id, Some(&rec));
                n.ready += 1;
            }
            a if a <= 20 => {
                let due = format!("{}.125", 1_795_560_000 + i);
                put_in_set(con, queue, "scheduled", id, Some(&rec), &due);
                put_failure(con, queue, id, &failure("exit 3", a - 1));
                n.scheduled += 1;
            }
            a => {
                let died = format!("{}.{}", 1_700_000_000 + i, i);
                put_in_set(con, queue, "dead", id, Some(&rec), &died);
                put_failure(con, queue, id, &failure("exit 9", (a - 1).min(20)));
                n.dead += 1;
            }
        }
    }
    assert!(n.ready >= 8 && n.scheduled >= 1 && n.dead >= 2, "{n:?}");

    // Ready: data that is not UTF-8, an id with blanks, records the reference reads,
    // damaged records, an id without a record.
    let all_bytes: Vec<u8> = (0..=255u8).rev().collect();
    let ready: [(&[u8], Option<Vec<u8>>); 8] = [
        (b"binary-data", Some(record(b"binary-data", &all_bytes, 0))),
        (
            b"id with spaces\tand a tab",
            Some(record(b"id with spaces\tand a tab", b"blank", 0)),
        ),
        (
            b"dec-fixint",
            Some(golden_decode_case("Attempt as positive fixint")),
        ),
        (
            b"dec-str",
            Some(golden_decode_case("Data as str instead of bin")),
        ),
        (
            b"dec-array",
            Some(golden_decode_case(
                "the record as a 3-element array [ID, Data, Attempt]",
            )),
        ),
        (b"damaged", Some(golden_decode_case("not msgpack at all"))),
        (b"ghost", None),
        (b"last", Some(record(b"last", b"the tail", 0))),
    ];
    for (id, rec) in &ready {
        put_ready(con, queue, id, rec.as_deref());
        n.ready += 1;
    }

    // Scheduled: awkward due times, a damaged record, an id without a record, retries.
    let scheduled: [(&[u8], &str); 10] = [
        (b"later-frac", "1795560300.25"),
        (b"later-third", "1000000000.3333333333333"),
        (b"later-micro", "1700000000.000001"),
        (b"tie-c", "1795560400"),
        (b"tie-a", "1795560400"),
        (b"tie-b", "1795560400"),
        (b"go-zero-time", "-62135596800"),
        (b"year-9999", "253402300799.999"),
        (b"far-far", "1e300"),
        (b"tiny", "0.1"),
    ];
    for (id, due) in &scheduled {
        put_in_set(
            con,
            queue,
            "scheduled",
            id,
            Some(&record(id, b"later", 0)),
            due,
        );
        n.scheduled += 1;
    }
    put_in_set(
        con,
        queue,
        "scheduled",
        b"damaged-too",
        Some(&golden_decode_case("truncated record")),
        "1795560000.75",
    );
    put_in_set(
        con,
        queue,
        "scheduled",
        b"ghost-later",
        None,
        "1795560001.5",
    );
    put_in_set(
        con,
        queue,
        "scheduled",
        b"retry-1",
        Some(&record(b"retry-1", b"try again", 1)),
        "1795560301.7",
    );
    put_failure(con, queue, b"retry-1", &failure("exit 2", 0));
    put_in_set(
        con,
        queue,
        "scheduled",
        b"retry-2",
        Some(&record(b"retry-2", b"try again", 4)),
        "1795560400",
    );
    put_failure(con, queue, b"retry-2", b"\xff\xfe not JSON {");
    n.scheduled += 4;

    // Dead: failures as qctl writes them, not JSON, on two lines; ties; a damaged record.
    put_in_set(
        con,
        queue,
        "dead",
        b"dead-1",
        Some(&record(b"dead-1", b"x", 21)),
        "1700000000.123",
    );
    put_failure(con, queue, b"dead-1", &failure("exit 3", 20));
    put_in_set(
        con,
        queue,
        "dead",
        b"dead-2",
        Some(&record(b"dead-2", b"y", 21)),
        "1700000001.5",
    );
    put_failure(con, queue, b"dead-2", b"\xff\xfe not JSON {");
    put_in_set(
        con,
        queue,
        "dead",
        b"dead-3",
        Some(&record(b"dead-3", b"z", 3)),
        "1700000002",
    );
    put_failure(con, queue, b"dead-3", b"{\n  \"reason\": \"exit 1\"\n}");
    for id in [b"dead-tie-b".as_slice(), b"dead-tie-a".as_slice()] {
        put_in_set(
            con,
            queue,
            "dead",
            id,
            Some(&record(id, b"t", 21)),
            "1700000003",
        );
        put_failure(con, queue, id, &failure("exit 4", 20));
    }
    put_in_set(
        con,
        queue,
        "dead",
        b"lower",
        Some(&golden_decode_case(
            "lower-case keys (the reference silently ignores them: empty ID)",
        )),
        "1700000004.25",
    );
    put_failure(
        con,
        queue,
        b"lower",
        b"{\"reason\":\"damaged: no ID\",\"attempt\":0,\"time\":1700000004.25}",
    );
    n.dead += 6;
    n
}

/// Checks `seed`'s counts against the queue itself, so the tests' expectations hold.
fn assert_seeded(s: &Snapshot, n: Counts) {
    assert_eq!(s.active.len(), n.ready, "seeded ready jobs");
    assert_eq!(s.scheduled.len(), n.scheduled, "seeded scheduled jobs");
    assert_eq!(s.dead.len(), n.dead, "seeded dead jobs");
    // The awkward scores are there (each server writes them in its own way: Valkey
    // 9 gives "1.0000000003333334e+9" where Redis gives "1000000000.3333334").
    let score = |id: &[u8]| -> Option<f64> {
        s.scheduled
            .iter()
            .find(|(i, _)| i == id)
            .and_then(|(_, sc)| lossy(sc).parse().ok())
    };
    assert_eq!(score(b"go-zero-time"), Some(-62_135_596_800.0));
    assert_eq!(
        score(b"later-third"),
        "1000000000.3333333333333".parse().ok()
    );
    assert_eq!(score(b"far-far"), Some(1e300));
}

// ---------------------------------------------------------------------------------------
// 1. Across two servers and back.

#[test]
fn a_queue_moved_to_another_server_and_back_is_byte_for_byte_what_it_was() {
    let a = RedisServer::start();
    let b = RedisServer::start();
    let mut acon = a.conn();
    let mut bcon = b.conn();
    let n = seed(&mut acon, "mail");
    // qctl's own keys stay with the source.
    let _: () = run(&mut acon, &[b"HSET", b"mail:stats", b"completed", b"7"]);
    let original = snapshot(&mut acon, "mail");
    assert_seeded(&original, n);

    let out = qctl_move(
        &a.url(),
        &[],
        &["mail", "{mail}", "--to", &b.url(), "--yes", "--json"],
    );
    assert_code(&out, 0, "move mail {mail} --to B");
    let s = summary(&out);
    assert_summary(
        &s,
        &[
            ("result", "summary".into()),
            ("from", "mail".into()),
            ("to", "{mail}".into()),
            ("moved", n.total().into()),
            ("ready", n.ready.into()),
            ("scheduled", n.scheduled.into()),
            ("dead", n.dead.into()),
            ("in_flight", 0.into()),
            ("left_in_flight", 0.into()),
            ("collided", 0.into()),
            ("interrupted", Value::Null),
        ],
    );
    assert_eq!(
        job_keys(&mut acon, "mail"),
        Vec::<String>::new(),
        "the source still has job keys after the move"
    );
    let stats: Option<Vec<u8>> = run(&mut acon, &[b"HGET", b"mail:stats", b"completed"]);
    assert_eq!(
        stats.as_deref(),
        Some(b"7".as_slice()),
        "mail:stats did not stay with the source"
    );
    assert_same_queue(
        &snapshot(&mut bcon, "{mail}"),
        &original,
        "{mail} at B after the move",
    );
    let signal: Vec<String> = run(&mut bcon, &[b"LRANGE", b"{mail}:signal", b"0", b"-1"]);
    assert_eq!(signal, ["1"], "the destination's signal was not raised");
    let b_keys = keys(&mut bcon);
    assert!(
        !b_keys.iter().any(|k| k == "{mail}:stats"),
        "qctl's counters went with the jobs: {b_keys:?}"
    );
    assert_no_journal(&[&a, &b], "after the move there");

    // And back, under its old name; the summary on stderr this time.
    let out = qctl_move(
        &b.url(),
        &[],
        &["{mail}", "mail", "--to", &a.url(), "--yes"],
    );
    assert_code(&out, 0, "move {mail} mail --to A");
    let err = stderr(&out);
    // `moved N jobs from "SRC" to "DST"[ at HOST:PORT]: R ready, S scheduled, D dead`
    let head = format!("moved {} jobs from \"{{mail}}\" to \"mail\"", n.total());
    let tail = format!(
        ": {} ready, {} scheduled, {} dead",
        n.ready, n.scheduled, n.dead
    );
    let said = err.lines().find(|l| l.contains(&head));
    assert!(
        said.is_some_and(|l| l.ends_with(&tail)),
        "no summary {head:?} ... {tail:?} on stderr:\n{err}"
    );
    assert_same_queue(
        &snapshot(&mut acon, "mail"),
        &original,
        "mail at A after the round trip",
    );
    assert_eq!(
        job_keys(&mut bcon, "{mail}"),
        Vec::<String>::new(),
        "B still has job keys after the move back"
    );
    // B keeps the record of its changes: the move in and the move out.
    let left: Vec<String> = keys(&mut bcon)
        .into_iter()
        .filter(|k| k != "{mail}:signal" && k != "{mail}:changes")
        .collect();
    assert!(
        left.is_empty(),
        "B keeps keys after the move back: {left:?}"
    );
    assert_no_journal(&[&a, &b], "after the round trip");
    figure(&format!(
        "M1 move of {} jobs (Go records, damaged ones, awkward scores, failures, ids without a record) to another server and back: byte for byte, no journal left",
        n.total()
    ));
}

/// Ids that are not UTF-8 are Redis strings like any other: moved as they are.
#[test]
fn ids_that_are_not_utf8_are_moved_as_they_are() {
    let a = RedisServer::start();
    let b = RedisServer::start();
    let mut acon = a.conn();
    let ids: [&[u8]; 3] = [b"\xffbin\x00id", b"plain", b"\xc3(\x80"];
    for id in ids {
        put_ready(&mut acon, "bin", id, Some(&record(id, id, 0)));
    }
    put_in_set(
        &mut acon,
        "bin",
        "scheduled",
        b"\xfe later",
        Some(&record(b"\xfe later", b"l", 2)),
        "1795560300.5",
    );
    put_failure(&mut acon, "bin", b"\xfe later", b"\xfe failure");
    put_in_set(
        &mut acon,
        "bin",
        "dead",
        b"\x80dead",
        Some(&record(b"\x80dead", b"d", 21)),
        "1700000000.5",
    );
    let original = snapshot(&mut acon, "bin");
    let out = qctl_move(&a.url(), &[], &["bin", "bin", "--to", &b.url(), "--yes"]);
    assert_code(&out, 0, "move of ids that are not UTF-8");
    assert_same_queue(&snapshot(&mut b.conn(), "bin"), &original, "bin at B");
    assert_eq!(job_keys(&mut acon, "bin"), Vec::<String>::new());
    assert_no_journal(&[&a, &b], "after the move");
}

// ---------------------------------------------------------------------------------------
// 2. A rename on one server, and the refusals.

#[test]
fn a_rename_on_one_server_moves_everything_and_refusals_change_nothing() {
    let a = RedisServer::start();
    let mut con = a.conn();
    let n = seed(&mut con, "mail");
    let _: () = run(&mut con, &[b"HSET", b"mail:stats", b"completed", b"7"]);
    let original = snapshot(&mut con, "mail");
    assert_seeded(&original, n);
    let before = a.dump_all();
    let url = a.url();

    // The same queue on the same server (through other URLs: see the next test).
    let out = qctl_move(&url, &[], &["mail", "mail", "--yes"]);
    assert_code(&out, 2, "move mail mail");
    assert_unchanged(&a, &before, "move mail mail");

    // A cluster destination needs a hash tag: the message gives the name with one.
    let out = qctl_move(
        &url,
        &[],
        &["mail", "other", "--to", &url, "--to-cluster", "--yes"],
    );
    assert_code(&out, 2, "--to-cluster with an untagged destination");
    assert!(
        stderr(&out).contains("{other}"),
        "the refusal does not suggest {{other}}:\n{}",
        stderr(&out)
    );
    assert_unchanged(&a, &before, "the --to-cluster refusal");

    // No terminal and no --yes: refused as purge is.
    let out = qctl_move(&url, &[], &["mail", "other"]);
    assert_code(&out, 2, "move without a terminal and without --yes");
    assert!(
        stderr(&out).contains("--yes"),
        "the refusal does not say how to go ahead:\n{}",
        stderr(&out)
    );
    assert_unchanged(&a, &before, "the unconfirmed move");

    // --dry-run says what it would move and moves nothing.
    let out = qctl_move(&url, &[], &["mail", "other", "--dry-run"]);
    assert_code(&out, 0, "move --dry-run");
    let said = stdout(&out) + &stderr(&out);
    for part in [
        format!("{} ready", n.ready),
        format!("{} scheduled", n.scheduled),
        format!("{} dead", n.dead),
        n.total().to_string(),
    ] {
        assert!(
            said.contains(&part),
            "--dry-run does not say {part:?}:\n{said}"
        );
    }
    assert_unchanged(&a, &before, "--dry-run");

    // A source with no keys at all.
    let out = qctl_move(&url, &[], &["nothing", "other", "--yes"]);
    assert_code(&out, 5, "move of a queue that does not exist");
    assert_unchanged(&a, &before, "the move of nothing");

    // The rename.
    let out = qctl_move(&url, &[], &["mail", "other", "--yes"]);
    assert_code(&out, 0, "move mail other");
    assert_same_queue(
        &snapshot(&mut con, "other"),
        &original,
        "other after the rename",
    );
    assert_eq!(
        job_keys(&mut con, "mail"),
        Vec::<String>::new(),
        "mail still has job keys after the rename"
    );
    let stats: Option<Vec<u8>> = run(&mut con, &[b"HGET", b"mail:stats", b"completed"]);
    assert_eq!(stats.as_deref(), Some(b"7".as_slice()));
    let signal: Vec<String> = run(&mut con, &[b"LRANGE", b"other:signal", b"0", b"-1"]);
    assert_eq!(signal, ["1"], "other:signal was not raised");
    assert_no_journal(&[&a], "after the rename");
}

/// `--to` naming the source's own server (its URL, or `localhost` for 127.0.0.1) is the same
/// queue too: refused with exit 2 and nothing changed, not even a job taken from flight.
#[test]
fn a_move_onto_itself_through_a_url_of_the_same_server_changes_nothing() {
    let a = RedisServer::start();
    // `mail` with ready and scheduled jobs; `held` whose only job runs at a live consumer.
    let fill = || {
        let _: () = a.cmd(&[b"FLUSHALL"]);
        let mut con = a.conn();
        for id in [b"r-1".as_slice(), b"r-2".as_slice()] {
            put_ready(&mut con, "mail", id, Some(&record(id, b"ready", 0)));
        }
        put_in_set(
            &mut con,
            "mail",
            "scheduled",
            b"s-1",
            Some(&record(b"s-1", b"later", 0)),
            "1795560300.5",
        );
        hold_in_flight(&a, "held");
        a.dump_all()
    };
    let url = a.url();
    let localhost = format!("redis://localhost:{}", a.port());
    let mut wrong = Vec::new();
    for (queue, extra) in [
        ("held", Some("--take-in-flight")),
        ("mail", Some("--take-in-flight")),
        ("mail", None),
    ] {
        for to in [url.as_str(), localhost.as_str()] {
            let before = fill();
            let mut args = vec![queue, queue, "--to", to, "--yes"];
            args.extend(extra);
            let what = format!("move {}", args.join(" "));
            let out = qctl_move(&url, &[], &args);
            if out.status.code() != Some(2) {
                wrong.push(format!(
                    "{what}: exit {:?}, expected 2; stderr: {}",
                    out.status.code(),
                    stderr(&out)
                ));
            }
            let diff = changes(&a, &before);
            if !diff.is_empty() {
                wrong.push(format!("{what} changed {diff:?}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

// ---------------------------------------------------------------------------------------
// 3. Under running consumers on both sides.

/// A `--pipe` handler: each job appends its data and a newline to the file argv[1] in one
/// O_APPEND write, waits argv[2] seconds in a thread of its own, and succeeds.
const LEDGER_PIPE: &str = r#"import json, os, sys, threading, time
out = os.open(sys.argv[1], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
pause = float(sys.argv[2])
lock = threading.Lock()
def run(job):
    os.write(out, (job["data"] + "\n").encode())
    time.sleep(pause)
    with lock:
        sys.stdout.write(json.dumps({"id": job["id"], "ok": True}) + "\n")
        sys.stdout.flush()
for line in sys.stdin:
    threading.Thread(target=run, args=(json.loads(line),)).start()
"#;

/// The numbers a ledger file holds, one a line.
fn ledger(path: &std::path::Path) -> Vec<u64> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let complete = &text[..text.rfind('\n').map_or(0, |i| i + 1)];
    complete
        .lines()
        .map(|l| l.parse().unwrap_or_else(|_| panic!("a ledger line {l:?}")))
        .collect()
}

/// Jobs of `queue` not settled yet: records, ready ids, ids in flight.
fn unsettled(server: &RedisServer, queue: &str) -> usize {
    let mut con = server.conn();
    let records: usize = run(&mut con, &[b"HLEN", &key(queue, "data")]);
    let ready = llen(&mut con, &format!("{queue}:active"));
    let sets: Vec<String> = run(&mut con, &[b"KEYS", &key(queue, "inflight:*")]);
    let in_flight: usize = sets
        .iter()
        .map(|k| run::<usize>(&mut con, &[b"SCARD", k.as_bytes()]))
        .sum();
    records + ready + in_flight
}

#[test]
fn a_move_under_consumers_on_both_sides_loses_nothing_and_runs_nothing_twice() {
    const SOURCE_JOBS: u64 = 3_000;
    const DEST_JOBS: u64 = 500;
    /// Enqueued at the source while the move runs, numbered after the destination's own.
    const PUSHED: u64 = 500;
    const ALL: u64 = SOURCE_JOBS + DEST_JOBS + PUSHED;
    let from_source = |n: &u64| *n <= SOURCE_JOBS || *n > SOURCE_JOBS + DEST_JOBS;
    // Each job's id is its number, which is also its data: what the handler records.
    let jsonl = |numbers: &[u64]| -> String {
        numbers
            .iter()
            .map(|i| format!("{{\"id\":\"{i}\",\"data\":\"{i}\"}}\n"))
            .collect()
    };
    let a = RedisServer::start();
    let b = RedisServer::start();
    qctl(&a)
        .args(["enqueue", "work", "--jsonl", "-q"])
        .write_stdin(jsonl(&(1..=SOURCE_JOBS).collect::<Vec<_>>()))
        .assert()
        .success();
    qctl(&b)
        .args(["enqueue", "work", "--jsonl", "-q"])
        .write_stdin(jsonl(
            &(SOURCE_JOBS + 1..=SOURCE_JOBS + DEST_JOBS).collect::<Vec<_>>(),
        ))
        .assert()
        .success();

    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("ledger.py");
    std::fs::write(&script, LEDGER_PIPE).unwrap();
    let (ran_a, ran_b) = (dir.path().join("ran-a"), dir.path().join("ran-b"));
    let consumer = |server: &RedisServer, ledger: &std::path::Path| {
        let mut args: Vec<String> = ["work", "-c", "2", "--pipe", "--pipe-depth", "4"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        args.extend(FAST.iter().map(|s| s.to_string()));
        args.extend([
            "--".to_string(),
            "python3".to_string(),
            script.display().to_string(),
            ledger.display().to_string(),
            "0.004".to_string(),
        ]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        support::spawn_consumer_at(&server.url(), &args)
    };
    let mut at_a = consumer(&a, &ran_a);
    let mut at_b = consumer(&b, &ran_b);
    // The move starts while the source's consumer is busy.
    assert!(
        wait_until(Duration::from_secs(20), || ledger(&ran_a).len() >= 100),
        "the source's consumer ran nothing in 20 s:\n{}",
        at_a.stderr()
    );

    // A producer goes on pushing to the source during the move, 50 jobs at a time.
    let url = a.url();
    let producer = std::thread::spawn(move || {
        let first = SOURCE_JOBS + DEST_JOBS + 1;
        for batch in (first..first + PUSHED).collect::<Vec<_>>().chunks(50) {
            qctl_url(&url)
                .env_remove("QCTL_TO_REDIS_URL")
                .args(["enqueue", "work", "--jsonl", "-q"])
                .write_stdin(jsonl(batch))
                .assert()
                .success();
            std::thread::sleep(Duration::from_millis(20));
        }
    });
    let started = Instant::now();
    let out = qctl_move(
        &a.url(),
        &[],
        &["work", "work", "--to", &b.url(), "--yes", "--json"],
    );
    let took = started.elapsed();
    producer.join().expect("the producer");
    assert_code(&out, 0, "move under consumers");
    let s = summary(&out);
    assert_summary(
        &s,
        &[
            ("left_in_flight", 0.into()),
            ("collided", 0.into()),
            ("in_flight", 0.into()),
            ("scheduled", 0.into()),
            ("dead", 0.into()),
            ("interrupted", Value::Null),
        ],
    );
    let moved = s["moved"].as_u64().expect("moved is a number");
    assert_eq!(s["ready"], moved, "{s}");

    let drained = wait_until(Duration::from_secs(40), || {
        unsettled(&a, "work") == 0 && unsettled(&b, "work") == 0
    });
    assert!(
        drained,
        "not drained within 40 s: {} jobs unsettled at the source, {} at the destination",
        unsettled(&a, "work"),
        unsettled(&b, "work")
    );
    let stopped_a = at_a.stop(Duration::from_secs(15));
    let stopped_b = at_b.stop(Duration::from_secs(15));
    assert!(stopped_a.is_some(), "the source's consumer did not stop");
    assert!(
        stopped_b.is_some(),
        "the destination's consumer did not stop"
    );

    let (runs_a, runs_b) = (ledger(&ran_a), ledger(&ran_b));
    let mut all: Vec<u64> = runs_a.iter().chain(&runs_b).copied().collect();
    all.sort_unstable();
    let mut seen = HashSet::new();
    let twice: Vec<u64> = all.iter().filter(|n| !seen.insert(**n)).copied().collect();
    let lost: Vec<u64> = (1..=ALL).filter(|n| !seen.contains(n)).collect();
    assert!(
        twice.is_empty() && lost.is_empty(),
        "ran twice: {} (e.g. {:?}); never ran: {} (e.g. {:?})\nsource consumer:\n{}\ndestination consumer:\n{}",
        twice.len(),
        &twice[..twice.len().min(10)],
        lost.len(),
        &lost[..lost.len().min(10)],
        at_a.stderr(),
        at_b.stderr()
    );
    assert_eq!(all.len() as u64, ALL);
    // Every source job that ran at the destination was moved, and each moved job ran there.
    let moved_runs = runs_b.iter().filter(|n| from_source(n)).count() as u64;
    assert_eq!(
        moved_runs, moved,
        "the summary says {moved} jobs moved; {moved_runs} source jobs ran at the destination"
    );
    assert!(
        runs_a.iter().all(from_source),
        "a destination job ran at the source"
    );
    assert_sound(&a, "work", "the source after the move");
    assert_sound(&b, "work", "the destination after the move");
    assert_eq!(job_keys(&mut a.conn(), "work"), Vec::<String>::new());
    assert_no_journal(&[&a, &b], "after the move under consumers");
    // Judged over both queues: the move is no fault, so no job may run twice.
    let ids: Vec<String> = (1..=ALL).map(|n| n.to_string()).collect();
    let mut history = History::new();
    history.enqueued(&ids, Enqueue::Acknowledged);
    for (runs, consumer) in [(&runs_a, &at_a), (&runs_b, &at_b)] {
        history.ran(runs.iter().map(|n| Run {
            id: n.to_string(),
            pid: 0,
            started: SystemTime::UNIX_EPOCH,
            consumer: consumer.pid(),
        }));
    }
    let mut end = End::read(&a, "work");
    end.merge(End::read(&b, "work"));
    let verdict = history.judge(&end);
    verdict.check("M3");
    assert!(verdict.waiting.is_empty(), "{}", verdict.table());
    figure(&format!(
        "M3 move under consumers on both sides and a producer at the source: {moved} of {} jobs moved in {:.2} s while the source's consumer ran {}; {}",
        SOURCE_JOBS + PUSHED,
        took.as_secs_f64(),
        runs_a.len(),
        verdict.line()
    ));
}

// ---------------------------------------------------------------------------------------
// 4. Killed, stopped, and run again.

/// Checks that every id of `all` is in exactly one place: the source's active list, the
/// source's journal (when not yet noted at the destination), the destination's active list;
/// and that records go with them. Returns how many are in each.
fn assert_each_in_one_place(
    src: &RedisServer,
    sq: &str,
    dst: &RedisServer,
    dq: &str,
    all: &[Vec<u8>],
) -> (usize, usize, usize) {
    let mut scon = src.conn();
    let mut dcon = dst.conn();
    let at_src: Vec<Vec<u8>> = run(&mut scon, &[b"LRANGE", &key(sq, "active"), b"0", b"-1"]);
    let out: Vec<Vec<u8>> = run(&mut scon, &[b"HKEYS", &key(sq, "move-out")]);
    let noted: HashSet<Vec<u8>> = run::<Vec<Vec<u8>>>(&mut dcon, &[b"HKEYS", &key(dq, "move-in")])
        .into_iter()
        .collect();
    let at_dst: Vec<Vec<u8>> = run(&mut dcon, &[b"LRANGE", &key(dq, "active"), b"0", b"-1"]);
    let in_journal: Vec<&Vec<u8>> = out.iter().filter(|id| !noted.contains(*id)).collect();
    let mut count: BTreeMap<&Vec<u8>, usize> = BTreeMap::new();
    for id in at_src
        .iter()
        .chain(in_journal.iter().copied())
        .chain(&at_dst)
    {
        *count.entry(id).or_default() += 1;
    }
    let twice: Vec<String> = count
        .iter()
        .filter(|(_, n)| **n > 1)
        .map(|(id, _)| lossy(id))
        .take(5)
        .collect();
    assert!(twice.is_empty(), "ids in two places: {twice:?}");
    let missing: Vec<String> = all
        .iter()
        .filter(|id| !count.contains_key(id))
        .map(|id| lossy(id))
        .take(5)
        .collect();
    assert!(missing.is_empty(), "ids in no place: {missing:?}");
    assert_eq!(
        count.len(),
        all.len(),
        "ids that were never enqueued appeared"
    );
    let src_records: usize = run(&mut scon, &[b"HLEN", &key(sq, "data")]);
    let dst_records: usize = run(&mut dcon, &[b"HLEN", &key(dq, "data")]);
    assert_eq!(src_records, at_src.len(), "records at the source");
    assert_eq!(dst_records, at_dst.len(), "records at the destination");
    (at_src.len(), in_journal.len(), at_dst.len())
}

#[test]
fn a_move_killed_half_way_is_finished_by_running_it_again_and_sigterm_stops_it_cleanly() {
    const JOBS: usize = 50_000;
    let a = RedisServer::start();
    let b = RedisServer::start();
    let lines: String = (0..JOBS).map(|i| format!("{i}\n")).collect();
    qctl(&a)
        .args(["enqueue", "mail", "--lines", "-q"])
        .write_stdin(lines)
        .assert()
        .success();
    let mut acon = a.conn();
    let mut bcon = b.conn();
    let order: Vec<Vec<u8>> = run(&mut acon, &[b"LRANGE", b"mail:active", b"0", b"-1"]);
    assert_eq!(order.len(), JOBS);
    let mut records = pairs(run(&mut acon, &[b"HGETALL", b"mail:data"]));
    records.sort();
    let (a_url, b_url) = (a.url(), b.url());
    let args = ["mail", "copy", "--to", b_url.as_str(), "--yes"];

    // SIGKILL once the destination has some of the jobs.
    let mut mover = Background::spawn(move_process(&a_url, &args));
    let mut seen = 0;
    let partway = wait_until(Duration::from_secs(30), || {
        seen = llen(&mut bcon, "copy:active");
        seen > 0
    });
    mover.signal(Signal::SIGKILL);
    let status = mover.wait_timeout(Duration::from_secs(10));
    assert!(partway, "no job arrived within 30 s:\n{}", mover.stderr());
    assert!(seen < JOBS, "the move finished before it could be killed");
    assert!(status.is_some(), "the killed move did not go");
    let (at_src, in_journal, at_dst) = assert_each_in_one_place(&a, "mail", &b, "copy", &order);
    assert!(
        at_dst < JOBS && at_src + in_journal > 0,
        "the move finished before it could be killed ({at_dst} of {JOBS} moved)"
    );
    let out_len: usize = run(&mut acon, &[b"HLEN", b"mail:move-out"]);
    let in_len: usize = run(&mut bcon, &[b"HLEN", b"copy:move-in"]);
    // A chunk at a time: the source's journal holds at most one, and the destination's notes
    // of it; or, killed between the two journals' forgetting, only those notes.
    assert!(
        out_len <= 1000 && in_len <= 1000 && (out_len == 0 || in_len <= out_len),
        "the journals hold more than a chunk: {out_len} in mail:move-out, {in_len} in copy:move-in"
    );
    figure(&format!(
        "M4 move killed (SIGKILL) with {at_dst} of {JOBS} jobs at the destination, {out_len} in the source's journal ({in_len} noted at the destination)"
    ));

    let out = qctl_move(&a_url, &[], &args);
    assert_code(&out, 0, "the killed move run again");
    let copy: Vec<Vec<u8>> = run(&mut bcon, &[b"LRANGE", b"copy:active", b"0", b"-1"]);
    let unique: HashSet<&Vec<u8>> = copy.iter().collect();
    assert_eq!(unique.len(), copy.len(), "an id is twice in copy:active");
    assert_eq!(copy.len(), JOBS, "not every job is in copy:active");
    assert!(
        copy == order,
        "the ready jobs are not in their original order"
    );
    let mut moved_records = pairs(run(&mut bcon, &[b"HGETALL", b"copy:data"]));
    moved_records.sort();
    assert!(moved_records == records, "the records changed on the way");
    assert_eq!(job_keys(&mut acon, "mail"), Vec::<String>::new());
    assert_no_journal(&[&a, &b], "after the killed move was run again");
    assert_sound(&b, "copy", "after the killed move was run again");

    // Back again, stopped by SIGTERM half-way: it finishes its chunk and leaves no journal.
    let back = ["copy", "mail", "--to", a_url.as_str(), "--yes", "--json"];
    let mut mover = Background::spawn(move_process(&b_url, &back));
    let partway = wait_until(Duration::from_secs(30), || {
        llen(&mut acon, "mail:active") > 0
    });
    mover.signal(Signal::SIGTERM);
    let status = mover.wait_timeout(Duration::from_secs(20));
    assert!(partway, "no job arrived within 30 s:\n{}", mover.stderr());
    let err = mover.stderr();
    assert_eq!(
        status.and_then(|s| s.code()),
        Some(143),
        "the move stopped by SIGTERM: {status:?}\nstderr:\n{err}"
    );
    assert_no_journal(&[&a, &b], "after SIGTERM");
    let (at_src, in_journal, at_dst) = assert_each_in_one_place(&b, "copy", &a, "mail", &order);
    assert_eq!(in_journal, 0);
    assert!(at_dst < JOBS, "everything moved before SIGTERM");
    assert_eq!(at_src + at_dst, JOBS);
    let s = summary_of(&mover.stdout(), &err);
    assert_summary(
        &s,
        &[
            ("interrupted", "SIGTERM".into()),
            ("moved", at_dst.into()),
            ("ready", at_dst.into()),
            ("in_flight", 0.into()),
        ],
    );
    let done = llen(&mut acon, "mail:active");
    let head: Vec<Vec<u8>> = run(&mut acon, &[b"LRANGE", b"mail:active", b"0", b"-1"]);
    assert!(
        head == order[..done],
        "the jobs moved back are not the head, in order"
    );
    figure(&format!(
        "M4 move stopped by SIGTERM with {at_dst} of {JOBS} jobs moved: exit 143, no journal"
    ));

    let out = qctl_move(&b_url, &[], &back);
    assert_code(&out, 0, "the stopped move run again");
    let back_again: Vec<Vec<u8>> = run(&mut acon, &[b"LRANGE", b"mail:active", b"0", b"-1"]);
    assert_eq!(back_again.len(), JOBS);
    assert!(
        back_again == order,
        "not in the original order after two moves"
    );
    assert_eq!(job_keys(&mut bcon, "copy"), Vec::<String>::new());
    assert_no_journal(&[&a, &b], "at the end");
}

/// Killed after the source's journal forgot a chunk and before the destination's did: the
/// move run again leaves neither journal (the destination's note of the chunk is swept).
/// Latency in front of the destination holds that moment open long enough to land in it.
#[test]
fn a_move_killed_between_the_two_journals_leaves_no_journal_once_run_again() {
    const JOBS: usize = 2_500;
    let a = RedisServer::start();
    let b = RedisServer::start();
    let proxy = support::proxy::FaultProxy::start(b.port());
    let mut acon = a.conn();
    let mut bcon = b.conn();
    let to = proxy.url();
    let args = ["mail", "copy", "--to", to.as_str(), "--yes"];
    let lines: String = (0..JOBS).map(|i| format!("{i}\n")).collect();
    // The kill must come within the proxy's delay of the source's HDEL: a machine too busy
    // to see it in time tries again from the start.
    let mut landed = None;
    for _ in 0..3 {
        let _: () = run(&mut acon, &[b"FLUSHALL"]);
        let _: () = run(&mut bcon, &[b"FLUSHALL"]);
        qctl(&a)
            .args(["enqueue", "mail", "--lines", "-q"])
            .write_stdin(lines.clone())
            .assert()
            .success();
        let order: Vec<Vec<u8>> = run(&mut acon, &[b"LRANGE", b"mail:active", b"0", b"-1"]);
        proxy.latency(Duration::from_millis(150));
        let mut mover = Background::spawn(move_process(&a.url(), &args));
        let mut journals_seen = (0, 0);
        let between = wait_until(Duration::from_secs(30), || {
            let out: usize = run(&mut acon, &[b"HLEN", b"mail:move-out"]);
            let noted: usize = run(&mut bcon, &[b"HLEN", b"copy:move-in"]);
            journals_seen = (out, noted);
            out == 0 && noted > 0
        });
        // The destination's HDEL is on its way through the proxy: it never arrives.
        proxy.blackhole();
        mover.signal(Signal::SIGKILL);
        assert!(
            mover.wait_timeout(Duration::from_secs(10)).is_some(),
            "the killed move did not go"
        );
        proxy.reset_all();
        proxy.pass();
        assert!(
            between,
            "never saw the source's journal empty and the destination's not: {journals_seen:?}\n{}",
            mover.stderr()
        );
        let noted: usize = run(&mut bcon, &[b"HLEN", b"copy:move-in"]);
        let out: usize = run(&mut acon, &[b"HLEN", b"mail:move-out"]);
        if out == 0 && noted > 0 {
            landed = Some((order, noted));
            break;
        }
    }
    let (order, noted) = landed.expect("in 3 tries, the kill never landed between the journals");
    let (_, in_journal, at_dst) = assert_each_in_one_place(&a, "mail", &b, "copy", &order);
    assert_eq!(in_journal, 0);
    assert!(at_dst < JOBS, "the move finished before it could be killed");
    figure(&format!(
        "M4b move killed between the journals: {at_dst} of {JOBS} at the destination, {noted} noted in copy:move-in, mail:move-out empty"
    ));

    let out = qctl_move(&a.url(), &[], &args);
    assert_code(&out, 0, "the move killed between the journals, run again");
    let moved: Vec<Vec<u8>> = run(&mut bcon, &[b"LRANGE", b"copy:active", b"0", b"-1"]);
    assert!(
        moved == order,
        "not every job, in order, at the destination"
    );
    assert_eq!(job_keys(&mut acon, "mail"), Vec::<String>::new());
    assert_no_journal(&[&a, &b], "after the move was run again");
}

/// A destination with a password: $QCTL_TO_REDIS_PASSWORD gives it; without it the move fails
/// before any job leaves the source, and the password is never printed.
#[test]
fn the_destination_password_comes_from_its_own_variable_and_a_refusal_strands_nothing() {
    const PW: &str = "M0ve-t0-s3cret";
    let a = RedisServer::start();
    let b = RedisServer::start_with(&["--requirepass", PW]);
    let mut acon = a.conn();
    let n = seed(&mut acon, "mail");
    let original = snapshot(&mut acon, "mail");
    let before = a.dump_all();
    let to = format!("redis://127.0.0.1:{}", b.port());

    let out = qctl_move(&a.url(), &[], &["mail", "mail", "--to", &to, "--yes"]);
    assert!(
        matches!(out.status.code(), Some(3) | Some(4)),
        "a destination that wants a password, none given: exit {:?}\n{}",
        out.status.code(),
        stderr(&out)
    );
    assert_unchanged(&a, &before, "the move refused by the destination");

    let mut cmd = qctl_url(&a.url());
    for name in MOVE_ENV.iter().chain(TLS_ENV.iter()) {
        cmd.env_remove(name);
    }
    let out = cmd
        .env("QCTL_TO_REDIS_PASSWORD", PW)
        .args(["move", "mail", "mail", "--to", &to, "--yes", "--json"])
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    assert_code(&out, 0, "move with $QCTL_TO_REDIS_PASSWORD");
    assert!(
        !stdout(&out).contains(PW) && !stderr(&out).contains(PW),
        "the password was printed"
    );
    assert_eq!(summary(&out)["moved"], n.total());
    let mut bcon = redis::Client::open(format!("redis://:{PW}@127.0.0.1:{}", b.port()))
        .and_then(|c| c.get_connection())
        .expect("connect with the password");
    assert_same_queue(&snapshot(&mut bcon, "mail"), &original, "mail at B");
    assert_eq!(job_keys(&mut acon, "mail"), Vec::<String>::new());
    assert!(journals(&a).is_empty());
    let left: Vec<String> = run(&mut bcon, &[b"KEYS", b"*:move-*"]);
    assert!(left.is_empty(), "journal keys at the destination: {left:?}");
}

// ---------------------------------------------------------------------------------------
// 5. Jobs in flight.

#[test]
fn jobs_in_flight_are_waited_for_then_left_with_exit_7_or_taken_with_take_in_flight() {
    let a = RedisServer::start();
    let b = RedisServer::start();
    let mut acon = a.conn();
    let mut bcon = b.conn();
    for id in [b"r-1".as_slice(), b"r-2".as_slice()] {
        put_ready(&mut acon, "mail", id, Some(&record(id, b"ready", 0)));
    }
    put_in_set(
        &mut acon,
        "mail",
        "scheduled",
        b"s-1",
        Some(&record(b"s-1", b"later", 0)),
        "1795560300.5",
    );
    // "f" in flight at a live consumer, and a consumer silent for ten minutes.
    hold_in_flight(&a, "mail");
    let f_record: Vec<u8> = a.hget_bytes("mail:data", "f").expect("f's record");
    let inflight = format!("mail:inflight:{CONSUMER}");

    let started = Instant::now();
    let out = qctl_move(
        &a.url(),
        &[],
        &[
            "mail",
            "copy",
            "--to",
            &b.url(),
            "--wait",
            "1s",
            "--yes",
            "--json",
        ],
    );
    let took = started.elapsed();
    assert_code(&out, 7, "move with a job in flight past --wait");
    assert!(
        took >= Duration::from_millis(900),
        "it did not wait for the job in flight: {took:?}"
    );
    let err = stderr(&out);
    assert!(
        err.contains('1') && err.contains("in flight"),
        "it does not say how many jobs are left in flight:\n{err}"
    );
    assert_summary(
        &summary(&out),
        &[
            ("moved", 3.into()),
            ("ready", 2.into()),
            ("scheduled", 1.into()),
            ("in_flight", 0.into()),
            ("left_in_flight", 1.into()),
        ],
    );
    assert_eq!(a.smembers(&inflight), ["f"], "the job in flight moved");
    assert_eq!(a.hget_bytes("mail:data", "f").as_ref(), Some(&f_record));
    let src = snapshot(&mut acon, "mail");
    assert!(
        src.active.is_empty() && src.scheduled.is_empty() && src.data.len() == 1,
        "{src:?}"
    );
    assert_eq!(b.lrange("copy:active"), ["r-1", "r-2"]);
    assert_eq!(b.zrange_withscores("copy:scheduled").len(), 1);
    assert_no_journal(&[&a, &b], "after exit 7");

    let out = qctl_move(
        &a.url(),
        &[],
        &[
            "mail",
            "copy",
            "--to",
            &b.url(),
            "--take-in-flight",
            "--yes",
            "--json",
        ],
    );
    assert_code(&out, 0, "move --take-in-flight");
    assert_summary(
        &summary(&out),
        &[
            ("moved", 1.into()),
            ("ready", 0.into()),
            ("in_flight", 1.into()),
            ("left_in_flight", 0.into()),
        ],
    );
    assert_eq!(
        b.lrange("copy:active"),
        ["r-1", "r-2", "f"],
        "the job taken from flight is not ready at the destination"
    );
    assert_eq!(b.hget_bytes("copy:data", "f").as_ref(), Some(&f_record));
    assert!(
        a.smembers(&inflight).is_empty(),
        "still in flight at the source"
    );
    assert_eq!(job_keys(&mut acon, "mail"), Vec::<String>::new());
    let taken: Vec<String> = run(&mut bcon, &[b"KEYS", b"copy:inflight:*"]);
    assert!(taken.is_empty(), "in flight at the destination: {taken:?}");
    assert_sound(&b, "copy", "after --take-in-flight");
    assert_no_journal(&[&a, &b], "after --take-in-flight");
}

/// A handler that waits for the file $0 to exist, then fails when its data is "fail".
const GATED: &str =
    "d=$(cat); while [ ! -e \"$0\" ]; do sleep 0.05; done; [ \"$d\" = fail ] && exit 3; exit 0";

#[test]
fn after_take_in_flight_the_source_consumers_late_ack_and_retry_change_nothing() {
    let a = RedisServer::start();
    let b = RedisServer::start();
    let mut acon = a.conn();
    support::enqueue(&a, "busy", "will-ack", b"ok");
    support::enqueue(&a, "busy", "will-fail", b"fail");
    let records: Vec<Option<Vec<u8>>> = ["will-ack", "will-fail"]
        .iter()
        .map(|id| a.hget_bytes("busy:data", id))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let gate = dir.path().join("gate");
    let gate_arg = gate.display().to_string();
    let mut args = vec!["busy", "-c", "2"];
    args.extend_from_slice(FAST);
    args.extend_from_slice(&["--", "sh", "-c", GATED, &gate_arg]);
    let mut consumer = support::spawn_consumer_at(&a.url(), &args);
    let held = || -> usize {
        let mut con = a.conn();
        let sets: Vec<String> = run(&mut con, &[b"KEYS", b"busy:inflight:*"]);
        sets.iter()
            .map(|k| run::<usize>(&mut con, &[b"SCARD", k.as_bytes()]))
            .sum()
    };
    assert!(
        wait_until(Duration::from_secs(20), || held() == 2),
        "the consumer did not reserve both jobs:\n{}",
        consumer.stderr()
    );

    let out = qctl_move(
        &a.url(),
        &[],
        &[
            "busy",
            "busy",
            "--to",
            &b.url(),
            "--wait",
            "1s",
            "--yes",
            "--json",
        ],
    );
    assert_code(&out, 7, "move with two handlers running past --wait");
    assert_summary(
        &summary(&out),
        &[("moved", 0.into()), ("left_in_flight", 2.into())],
    );
    assert!(
        stderr(&out).contains('2') && stderr(&out).contains("in flight"),
        "it does not say how many jobs are left in flight:\n{}",
        stderr(&out)
    );
    assert_eq!(
        held(),
        2,
        "the jobs in flight moved without --take-in-flight"
    );
    assert_eq!(job_keys(&mut b.conn(), "busy"), Vec::<String>::new());

    let out = qctl_move(
        &a.url(),
        &[],
        &[
            "busy",
            "busy",
            "--to",
            &b.url(),
            "--take-in-flight",
            "--yes",
            "--json",
        ],
    );
    assert_code(&out, 0, "move --take-in-flight with two handlers running");
    assert_summary(
        &summary(&out),
        &[("moved", 2.into()), ("in_flight", 2.into())],
    );
    assert_eq!(held(), 0, "jobs still in flight at the source");
    let mut at_b = b.lrange("busy:active");
    at_b.sort();
    assert_eq!(at_b, ["will-ack", "will-fail"]);

    // The handlers finish now: one succeeds, one fails. Their ack and retry find nothing.
    std::fs::write(&gate, b"").unwrap();
    let status = consumer.stop(Duration::from_secs(20));
    let consumer_err = consumer.stderr();
    assert!(
        status.is_some(),
        "the consumer did not stop:\n{consumer_err}"
    );
    assert_eq!(
        job_keys(&mut acon, "busy"),
        Vec::<String>::new(),
        "the late ack or retry wrote at the source:\n{consumer_err}"
    );
    let completed: Option<String> = run(&mut acon, &[b"HGET", b"busy:stats", b"completed"]);
    assert!(
        matches!(completed.as_deref(), None | Some("0")),
        "the late ack was counted as done: completed = {completed:?}"
    );
    let mut at_b = b.lrange("busy:active");
    at_b.sort();
    assert_eq!(at_b, ["will-ack", "will-fail"], "the destination changed");
    let moved: Vec<Option<Vec<u8>>> = ["will-ack", "will-fail"]
        .iter()
        .map(|id| b.hget_bytes("busy:data", id))
        .collect();
    assert_eq!(moved, records, "the records changed on the way");
    assert!(b.zrange_withscores("busy:scheduled").is_empty());
    assert_sound(&a, "busy", "the source after the late settles");
    assert_sound(&b, "busy", "the destination");
    assert_no_journal(&[&a, &b], "at the end");
}

// ---------------------------------------------------------------------------------------
// Ids the destination already has.

/// Ids the destination already has: a ready one, then (once that one is gone there) a dead
/// one. Each stays where it was at the source, the destination's job untouched, exit 7.
#[test]
fn an_id_the_destination_has_is_never_overwritten_and_stays_at_the_source_with_exit_7() {
    let a = RedisServer::start();
    let b = RedisServer::start();
    let mut acon = a.conn();
    let mut bcon = b.conn();
    for id in [b"a".as_slice(), b"x".as_slice(), b"b".as_slice()] {
        put_ready(&mut acon, "mail", id, Some(&record(id, b"source", 0)));
    }
    put_in_set(
        &mut acon,
        "mail",
        "dead",
        b"d",
        Some(&record(b"d", b"source dead", 21)),
        "1700000000.25",
    );
    put_failure(&mut acon, "mail", b"d", &failure("exit 3", 20));
    put_in_set(
        &mut acon,
        "mail",
        "dead",
        b"e",
        Some(&record(b"e", b"source dead too", 21)),
        "1700000001.25",
    );
    let x_there = record(b"x", b"destination", 0);
    let d_there = record(b"d", b"destination later", 1);
    put_ready(&mut bcon, "copy", b"x", Some(&x_there));
    put_in_set(
        &mut bcon,
        "copy",
        "scheduled",
        b"d",
        Some(&d_there),
        "1795560300.5",
    );
    let x_source = a.hget_bytes("mail:data", "x");
    let d_source = a.hget_bytes("mail:data", "d");
    let e_source = a.hget_bytes("mail:data", "e");
    let args = ["mail", "copy", "--to", &b.url(), "--yes", "--json"];

    let out = qctl_move(&a.url(), &[], &args);
    assert_code(&out, 7, "move with a ready id the destination has");
    let err = stderr(&out);
    assert!(names(&err, "x"), "the colliding id x is not named:\n{err}");
    assert_summary(
        &summary(&out),
        &[
            ("moved", 2.into()),
            ("ready", 2.into()),
            ("collided", 1.into()),
        ],
    );
    // The destination's job is untouched; the others arrived after it.
    assert_eq!(b.lrange("copy:active"), ["x", "a", "b"]);
    assert_eq!(b.hget_bytes("copy:data", "x"), Some(x_there.clone()));
    // x is back at the source, ready, its record as it was.
    assert_eq!(a.lrange("mail:active"), ["x"]);
    assert_eq!(a.hget_bytes("mail:data", "x"), x_source);
    assert_sound(&a, "mail", "the source after the first collision");
    assert_sound(&b, "copy", "the destination after the first collision");
    assert_no_journal(&[&a, &b], "after the first collision");

    // The destination's x is done; the next run moves x, then meets d.
    let _: () = run(&mut bcon, &[b"LREM", b"copy:active", b"0", b"x"]);
    let _: () = run(&mut bcon, &[b"HDEL", b"copy:data", b"x"]);
    let out = qctl_move(&a.url(), &[], &args);
    assert_code(&out, 7, "move with a dead id the destination has");
    assert!(
        names(&stderr(&out), "d"),
        "the colliding id d is not named:\n{}",
        stderr(&out)
    );
    let s = summary(&out);
    assert_eq!(s["collided"], 1, "{s}");
    assert_eq!(s["ready"], 1, "{s}");
    assert_eq!(b.lrange("copy:active"), ["a", "b", "x"]);
    assert_eq!(b.hget_bytes("copy:data", "x"), x_source);
    assert_eq!(b.hget_bytes("copy:data", "d"), Some(d_there));
    assert_eq!(
        b.zrange_withscores("copy:scheduled"),
        [("d".to_string(), 1795560300.5)]
    );
    // d is back in the source's dead set with its score and failure; e either moved in the
    // same chunk or is still at the source, never both nor neither.
    let dead: Vec<Vec<u8>> = run(
        &mut acon,
        &[b"ZRANGE", b"mail:dead", b"0", b"-1", b"WITHSCORES"],
    );
    let e_moved = b.hget_bytes("copy:data", "e").is_some();
    if e_moved {
        assert_eq!(lossy_ids(&dead), ["d", "1700000000.25"]);
        assert_eq!(b.hget_bytes("copy:data", "e"), e_source);
        assert_eq!(s["dead"], 1, "{s}");
    } else {
        assert_eq!(
            lossy_ids(&dead),
            ["d", "1700000000.25", "e", "1700000001.25"]
        );
        assert_eq!(a.hget_bytes("mail:data", "e"), e_source);
    }
    assert_eq!(a.hget_bytes("mail:data", "d"), d_source);
    assert_eq!(
        a.hget_bytes("mail:failures", "d"),
        Some(failure("exit 3", 20))
    );
    assert_eq!(a.lrange("mail:active"), Vec::<String>::new());
    assert_sound(&a, "mail", "the source after the second collision");
    assert_sound(&b, "copy", "the destination after the second collision");
    assert_no_journal(&[&a, &b], "after the second collision");
}

// ---------------------------------------------------------------------------------------
// 6. Into a cluster.

/// Every key of every node of the cluster, sorted.
fn cluster_keys(cluster: &Cluster) -> Vec<String> {
    let mut all = Vec::new();
    for node in &cluster.nodes {
        all.extend(keys(&mut node.conn()));
    }
    all.sort();
    all
}

#[test]
fn a_queue_moves_into_a_cluster_under_a_tagged_name_byte_for_byte() {
    let single = RedisServer::start();
    let mut scon = single.conn();
    let n = seed(&mut scon, "mail");
    let original = snapshot(&mut scon, "mail");
    assert_seeded(&original, n);
    let before = single.dump_all();
    let cluster = Cluster::start(3);

    let url = cluster.url_not_owning("{mail}");
    let out = qctl_move(
        &single.url(),
        &[],
        &["mail", "mail", "--to", &url, "--to-cluster", "--yes"],
    );
    assert_code(&out, 2, "--to-cluster with the untagged name mail");
    assert!(
        stderr(&out).contains("{mail}"),
        "the refusal does not suggest {{mail}}:\n{}",
        stderr(&out)
    );
    assert_unchanged(&single, &before, "the --to-cluster refusal of mail");
    assert_eq!(
        cluster_keys(&cluster),
        Vec::<String>::new(),
        "the refusal wrote to the cluster"
    );

    let out = qctl_move(
        &single.url(),
        &[],
        &[
            "mail",
            "{mail}",
            "--to",
            &url,
            "--to-cluster",
            "--yes",
            "--json",
        ],
    );
    assert_code(&out, 0, "move mail {mail} into the cluster");
    assert_summary(&summary(&out), &[("moved", n.total().into())]);
    let mut owner = cluster.owner("{mail}").conn();
    assert_same_queue(
        &snapshot(&mut owner, "{mail}"),
        &original,
        "{mail} in the cluster",
    );
    assert_eq!(job_keys(&mut scon, "mail"), Vec::<String>::new());
    assert_no_journal(&[&single], "the source");
    for node in &cluster.nodes {
        assert_no_journal(&[node], "a cluster node");
    }

    // Within the cluster (the global --cluster, no --to), to another slot.
    let url = cluster.nodes[0].url();
    let out = qctl_move(&url, &["--cluster"], &["{mail}", "{copy}", "--yes"]);
    assert_code(&out, 0, "move {mail} {copy} within the cluster");
    let mut owner = cluster.owner("{copy}").conn();
    assert_same_queue(
        &snapshot(&mut owner, "{copy}"),
        &original,
        "{copy} in the cluster",
    );
    assert_eq!(
        job_keys(&mut cluster.owner("{mail}").conn(), "{mail}"),
        Vec::<String>::new()
    );
    // An untagged destination with the global --cluster is refused too.
    let before: Vec<_> = cluster.nodes.iter().map(|n| n.dump_all()).collect();
    let out = qctl_move(&url, &["--cluster"], &["{copy}", "other", "--yes"]);
    assert_code(&out, 2, "--cluster move to the untagged name other");
    assert!(
        stderr(&out).contains("{other}"),
        "the refusal does not suggest {{other}}:\n{}",
        stderr(&out)
    );
    let after: Vec<_> = cluster.nodes.iter().map(|n| n.dump_all()).collect();
    assert!(after == before, "the refusal changed the cluster");
    for node in &cluster.nodes {
        assert_no_journal(&[node], "a cluster node at the end");
    }
    figure("M6 move of a single node's queue into a 3-master cluster as {mail} (through a node that does not own it), then to {copy} within it: byte for byte; untagged names refused with the fix");
}

// ---------------------------------------------------------------------------------------
// 7. A pipeline that closes stdout.

/// The write end of a pipe whose read end is already closed.
fn closed_pipe() -> Stdio {
    let (read, write) = nix::unistd::pipe().expect("pipe");
    drop(read);
    Stdio::from(write)
}

/// After a move whose output was closed: no panic, exit 0 (all moved) or 141 (stopped at a
/// clean point), no journal, every id in one place; a 141 is finished by running it again.
fn assert_closed_output_run(
    what: &str,
    code: Option<i32>,
    err: &str,
    a: &RedisServer,
    b: &RedisServer,
    queue: &str,
    order: &[Vec<u8>],
) -> Option<i32> {
    assert_ne!(code, Some(101), "{what}: a panic\n{err}");
    assert!(!err.contains("panicked"), "{what}: {err}");
    assert!(
        matches!(code, Some(0) | Some(141)),
        "{what}: exit {code:?}\n{err}"
    );
    assert_no_journal(&[a, b], what);
    let (at_src, in_journal, at_dst) = assert_each_in_one_place(a, queue, b, queue, order);
    assert_eq!(in_journal, 0, "{what}");
    if code == Some(0) {
        assert_eq!(
            at_dst,
            order.len(),
            "{what}: exit 0 with jobs left at the source"
        );
    } else {
        assert_eq!(at_src + at_dst, order.len(), "{what}");
        let out = qctl_move(&a.url(), &[], &[queue, queue, "--to", &b.url(), "--yes"]);
        assert_code(&out, 0, &format!("{what}, run again"));
    }
    let moved: Vec<Vec<u8>> = run(
        &mut b.conn(),
        &[b"LRANGE", &key(queue, "active"), b"0", b"-1"],
    );
    assert!(
        moved == order,
        "{what}: not every job, in order, at the destination"
    );
    code
}

#[test]
fn a_move_whose_stdout_closes_early_does_not_panic_nor_strand_jobs() {
    const JOBS: usize = 20_000;
    let a = RedisServer::start();
    let b = RedisServer::start();
    let lines: String = (0..JOBS).map(|i| format!("{i}\n")).collect();
    for queue in ["piped", "closed"] {
        qctl(&a)
            .args(["enqueue", queue, "--lines", "-q"])
            .write_stdin(lines.clone())
            .assert()
            .success();
    }
    let order = |queue: &str| -> Vec<Vec<u8>> {
        run(
            &mut a.conn(),
            &[b"LRANGE", &key(queue, "active"), b"0", b"-1"],
        )
    };
    let (piped, closed) = (order("piped"), order("closed"));
    let b_url = b.url();

    // `qctl move ... --json | head -c 1`
    let mover = move_process(
        &a.url(),
        &["piped", "piped", "--to", &b_url, "--yes", "--json"],
    );
    let mut pipeline = Command::new("bash");
    clean_env(&mut pipeline);
    let out = pipeline
        .arg("-c")
        .arg(r#""$@" | head -c 1; exit "${PIPESTATUS[0]}""#)
        .arg("qctl")
        .arg(mover.get_program())
        .args(mover.get_args())
        .stdin(Stdio::null())
        .output()
        .expect("run the pipeline");
    let code = assert_closed_output_run(
        "move --json | head -c 1",
        out.status.code(),
        &stderr(&out),
        &a,
        &b,
        "piped",
        &piped,
    );
    if code == Some(0) {
        assert_eq!(
            stdout(&out),
            "{",
            "head -c 1 did not get the summary's first byte"
        );
    }

    // stdout closed before it starts.
    let mut mover = move_process(
        &a.url(),
        &["closed", "closed", "--to", &b_url, "--yes", "--json"],
    );
    let out = mover
        .stdin(Stdio::null())
        .stdout(closed_pipe())
        .stderr(Stdio::piped())
        .output()
        .expect("run qctl move");
    let code2 = assert_closed_output_run(
        "move --json >&- (a closed pipe)",
        out.status.code(),
        &stderr(&out),
        &a,
        &b,
        "closed",
        &closed,
    );
    figure(&format!(
        "M7 move --json with stdout closed: | head -c 1 exit {code:?}, a closed pipe exit {code2:?}; no panic, no journal, every job moved once in order"
    ));
}

#[test]
fn a_move_leaves_queues_named_after_the_source_alone() {
    // `p:inflight:abc:active` matches `p:inflight:*`: `move p p2` failed with WRONGTYPE,
    // naming no key, before it moved anything.
    let server = RedisServer::start();
    let mut con = server.conn();
    put_ready(
        &mut con,
        "p",
        b"p-ready",
        Some(&record(b"p-ready", b"r", 0)),
    );
    put_in_set(
        &mut con,
        "p",
        "scheduled",
        b"p-later",
        Some(&record(b"p-later", b"s", 0)),
        "4000000000",
    );
    put_in_set(
        &mut con,
        "p",
        "dead",
        b"p-dead",
        Some(&record(b"p-dead", b"d", 2)),
        "1000000000",
    );
    let source = snapshot(&mut con, "p");
    let planted = support::neighbours::plant(&server, "p");
    let before = support::neighbours::dump(&server, &planted);
    let out = qctl_move(&server.url(), &["--json"], &["p", "p2", "--yes"]);
    assert_code(&out, 0, "move p p2");
    assert_summary(&summary(&out), &[("moved", Value::from(3))]);
    assert_same_queue(&snapshot(&mut con, "p2"), &source, "p2 after the move");
    assert_eq!(job_keys(&mut con, "p"), Vec::<String>::new());
    for text in [stdout(&out), stderr(&out)] {
        assert_eq!(support::neighbours::mentioned(&planted, &text), None);
    }
    assert_eq!(support::neighbours::dump(&server, &planted), before);
    assert_no_journal(&[&server], "after the move");
}
