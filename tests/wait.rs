//! `qctl wait` against real redis-servers: a queue drained by a real qctl consumer, jobs that
//! die or are retried, awaited ids that ended done, dead, deleted or acked by a Go CurlyQ
//! consumer (simulated with the spec's ack: SREM from its in-flight set, HDEL of the record),
//! `--scheduled`, `--timeout` and SIGTERM.

mod support;

use std::process::ExitStatus;
use std::time::{Duration, Instant, SystemTime};

use nix::sys::signal::Signal;
use qctl::engine::Job;
use serde_json::Value;
use support::handlers::Mode;
use support::ledger::{self, Ledger};
use support::{invariants, qctl, qctl_process, wait_until, Background, RedisServer, FAST};

const LIMIT: Duration = Duration::from_secs(20);

/// `qctl --json wait ARGS` in the background.
fn wait_bg(server: &RedisServer, args: &[&str]) -> Background {
    let mut cmd = qctl_process(server);
    cmd.args(["--json", "wait"]).args(args);
    Background::spawn(cmd)
}

/// Its exit status and when it was seen to end.
fn ended(bg: &mut Background) -> (ExitStatus, SystemTime) {
    let status = bg.wait_timeout(LIMIT).expect("qctl wait ended");
    (status, SystemTime::now())
}

/// The JSON object `wait --json` printed.
fn answer(bg: &Background) -> Value {
    serde_json::from_str(bg.stdout().trim())
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}\n{}", bg.stdout(), bg.stderr()))
}

/// `qctl --json wait ARGS` to its end: exit code, JSON, stderr.
fn wait_for(server: &RedisServer, args: &[&str]) -> (i32, Value, String) {
    let out = qctl(server)
        .args(["--json", "wait"])
        .args(args)
        .timeout(LIMIT)
        .output()
        .expect("run qctl wait");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let value = serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}\n{stderr}"));
    (out.status.code().unwrap_or(-1), value, stderr)
}

fn enqueue(server: &RedisServer, args: &[&str]) -> String {
    let out = qctl(server).arg("enqueue").args(args).assert().success();
    String::from_utf8_lossy(&out.get_output().stdout)
        .trim()
        .to_string()
}

fn hlen(server: &RedisServer, key: &str) -> i64 {
    server.cmd(&[b"HLEN", key.as_bytes()])
}

/// A consumer that runs `sh -c SCRIPT` per job (the data on its stdin), with FAST settings
/// and then `opts`.
fn consumer(server: &RedisServer, opts: &[&str], script: &str) -> Background {
    let mut args = vec!["q"];
    args.extend_from_slice(FAST);
    args.extend_from_slice(opts);
    args.extend_from_slice(&["--", "sh", "-c", script]);
    support::spawn_consumer_at(&server.url(), &args)
}

#[test]
fn a_queue_drained_by_a_qctl_consumer_ends_the_wait_only_after_its_last_job() {
    let server = RedisServer::start();
    let ids = ledger::enqueue_numbered(&server, "q", "j", 20);
    let mut wait = wait_bg(&server, &["q"]);
    std::thread::sleep(Duration::from_millis(400));
    assert!(
        wait.wait_timeout(Duration::ZERO).is_none(),
        "it waits while 20 jobs are ready: {}",
        wait.stderr()
    );
    let ledger = Ledger::new();
    let sleep = Duration::from_millis(150);
    let mut drain = ledger::consumer(
        &server,
        Mode::PerJob,
        &["-c", "2", "--drain"],
        &ledger,
        sleep,
    );
    let (status, seen_at) = ended(&mut wait);
    let left = hlen(&server, "q:data");
    assert_eq!(status.code(), Some(0), "{}", wait.stderr());
    assert_eq!(left, 0, "every job was acked when the wait ended");
    let runs = ledger.entries();
    assert_eq!(
        ledger::tally(&ids, &ledger.runs()),
        ledger::Tally { lost: 0, dup: 0 }
    );
    let last_end = runs.iter().map(|r| r.started).max().expect("runs") + sleep;
    assert!(
        seen_at >= last_end,
        "the wait ended {:?} before the last job did",
        last_end.duration_since(seen_at).unwrap_or_default()
    );
    let json = answer(&wait);
    assert_eq!(json["result"], "done", "{json}");
    assert_eq!(
        json["done"], 20,
        "qctl consumers acked 20 jobs meanwhile: {json}"
    );
    assert_eq!(json["died"], 0);
    assert_eq!(json["pending"], 0);
    assert!(
        wait.stderr()
            .contains("queue \"q\" has nothing ready, due or in flight, and no retry waiting"),
        "{}",
        wait.stderr()
    );
    assert_eq!(drain.wait_timeout(LIMIT).and_then(|s| s.code()), Some(0));
    assert_eq!(invariants(&server, "q"), Vec::<String>::new());
}

#[test]
fn a_job_that_dies_while_it_waits_makes_it_7_and_one_dead_before_does_not() {
    let server = RedisServer::start();
    // Dead long before the wait: not counted.
    let old = Job::new("old", Some(b"x".to_vec())).encode();
    let _: () = server.cmd(&[b"HSET", b"q:data", b"old", &old]);
    let _: () = server.cmd(&[b"ZADD", b"q:dead", b"1700000000", b"old"]);
    for data in ["ok", "fail", "ok"] {
        enqueue(&server, &["q", data]);
    }
    let mut wait = wait_bg(&server, &["q"]);
    std::thread::sleep(Duration::from_millis(300));
    let mut drain = consumer(
        &server,
        &["--drain", "--max-retries", "0"],
        "test \"$(cat)\" != fail",
    );
    let (status, _) = ended(&mut wait);
    assert_eq!(status.code(), Some(7), "{}", wait.stderr());
    let json = answer(&wait);
    assert_eq!(json["result"], "died", "{json}");
    assert_eq!(json["died"], 1, "{json}");
    assert!(
        wait.stderr()
            .contains("1 job died while it waited: qctl dead list q"),
        "{}",
        wait.stderr()
    );
    assert_eq!(drain.wait_timeout(LIMIT).and_then(|s| s.code()), Some(7));
    // Waiting again: nothing died during that wait.
    let (code, json, _) = wait_for(&server, &["q"]);
    assert_eq!((code, &json["died"]), (0, &Value::from(0)), "{json}");
}

#[test]
fn awaited_ids_end_done_dead_or_without_a_record_of_success() {
    let server = RedisServer::start();
    let a = enqueue(&server, &["q", "ok"]);
    let b = enqueue(&server, &["q", "ok"]);
    let c = enqueue(&server, &["q", "fail"]);
    let d = enqueue(&server, &["q", "ok"]);
    qctl(&server)
        .args(["active", "delete", "q", &d, "--yes"])
        .assert()
        .success();
    let mut all = wait_bg(&server, &["q", &a, &b, &c]);
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        all.wait_timeout(Duration::ZERO).is_none(),
        "{}",
        all.stderr()
    );
    let mut drain = consumer(
        &server,
        &["--drain", "--max-retries", "0"],
        "test \"$(cat)\" != fail",
    );
    let (status, _) = ended(&mut all);
    assert_eq!(status.code(), Some(7), "{}", all.stderr());
    let json = answer(&all);
    assert_eq!(json["result"], "died", "{json}");
    assert_eq!(
        (&json["done"], &json["died"]),
        (&Value::from(2), &Value::from(1))
    );
    assert_eq!(json["jobs"][2]["id"], c.as_str());
    assert_eq!(json["jobs"][2]["state"], "died");
    assert!(
        all.stderr()
            .contains(&format!("died (qctl dead show q ID): {c}")),
        "{}",
        all.stderr()
    );
    assert_eq!(drain.wait_timeout(LIMIT).and_then(|s| s.code()), Some(7));

    // Done ones alone: 0, at once.
    let (code, json, err) = wait_for(&server, &["q", &a, &b]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(json["result"], "done");
    assert!(err.contains("all 2 jobs of \"q\" done"), "{err}");
    // A deleted one has no record of success.
    let (code, json, err) = wait_for(&server, &["q", &a, &d]);
    assert_eq!(code, 7, "{err}");
    assert_eq!(json["result"], "unknown", "{json}");
    assert_eq!(json["jobs"][1]["state"], "unknown", "{json}");
    assert!(
        err.contains(&format!(
            "ended without a record of success (acked by a Go CurlyQ consumer, which records none; deleted; or acked more than 10,000 acks ago): {d}"
        )),
        "{err}"
    );
    // A queue with no key: the ids can only have ended, and nothing says how.
    let (code, json, err) = wait_for(&server, &["nope", &a]);
    assert_eq!(code, 7, "{err}");
    assert_eq!(json["unknown"], 1, "{json}");
    assert!(
        err.contains("warning: no queue \"nope\" (known: q)"),
        "{err}"
    );
    // Without ids, a queue with no key is exit 5.
    qctl(&server).args(["wait", "nope"]).assert().code(5);
}

#[test]
fn a_timeout_ends_it_with_124_saying_what_is_pending() {
    let server = RedisServer::start();
    let ids: Vec<String> = (0..3).map(|_| enqueue(&server, &["q", "x"])).collect();
    qctl(&server).args(["pause", "q"]).assert().success();
    let began = Instant::now();
    let (code, json, err) = wait_for(&server, &["q", "--timeout", "700ms"]);
    let took = began.elapsed();
    assert_eq!(code, 124, "{err}");
    assert!(took >= Duration::from_millis(700), "{took:?}");
    assert!(
        err.contains("timed out after 0.7s waiting for \"q\": 3 ready, 0 in flight"),
        "{err}"
    );
    assert!(
        err.contains("queue \"q\" is paused: qctl consumers start none of its ready jobs until `qctl resume q`"),
        "{err}"
    );
    assert_eq!(json["result"], "timed_out");
    assert_eq!(
        (&json["timed_out"], &json["pending"]),
        (&Value::from(true), &Value::from(3))
    );
    assert_eq!(json["left"]["ready"], 3, "{json}");

    let (code, json, err) = wait_for(&server, &["q", &ids[0], "--timeout", "0s"]);
    assert_eq!(code, 124, "{err}");
    assert!(err.contains(&format!("1 ready ({})", ids[0])), "{err}");
    assert_eq!(json["jobs"][0]["state"], "ready", "{json}");
}

#[test]
fn a_retry_keeps_it_waiting_until_the_job_succeeds() {
    let server = RedisServer::start();
    let dir = tempfile::tempdir().expect("temp dir");
    let runs = dir.path().join("runs");
    enqueue(&server, &["q", "--id", "flaky", "x"]);
    let mut wait = wait_bg(&server, &["q"]);
    std::thread::sleep(Duration::from_millis(300));
    // Fails on its first run; the retry comes 0.5 to 1 s later.
    let script = format!(
        "cat >/dev/null; echo \"$QCTL_JOB_ATTEMPT\" >> '{}'; test \"$QCTL_JOB_ATTEMPT\" != 0",
        runs.display()
    );
    let mut drain = consumer(&server, &["--drain", "--max-backoff", "1s"], &script);
    assert!(wait_until(LIMIT, || std::fs::read_to_string(&runs)
        .is_ok_and(|r| r.lines().count() >= 1)));
    let (status, _) = ended(&mut wait);
    let ran = std::fs::read_to_string(&runs).unwrap_or_default();
    let left = hlen(&server, "q:data");
    assert_eq!(status.code(), Some(0), "{}", wait.stderr());
    assert_eq!(ran, "0\n1\n", "the wait ended after the retry ran");
    assert_eq!(left, 0, "the retry succeeded before the wait ended");
    assert_eq!(answer(&wait)["result"], "done");
    assert_eq!(drain.wait_timeout(LIMIT).and_then(|s| s.code()), Some(0));
}

#[test]
fn scheduled_jobs_are_waited_for_only_with_scheduled() {
    let server = RedisServer::start();
    enqueue(&server, &["q", "--id", "later", "--in", "1500ms", "x"]);
    let (code, json, err) = wait_for(&server, &["q"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(json["left"]["scheduled"], 1, "{json}");
    assert!(
        err.contains("1 job scheduled for later is not waited for (--scheduled waits)"),
        "{err}"
    );
    let mut drain = consumer(&server, &["--drain", "--wait-scheduled"], "cat >/dev/null");
    let began = Instant::now();
    let (code, json, err) = wait_for(&server, &["q", "--scheduled"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(json["pending"], 0, "{json}");
    assert!(
        began.elapsed() >= Duration::from_secs(1),
        "{:?}",
        began.elapsed()
    );
    assert_eq!(hlen(&server, "q:data"), 0, "the delayed job ran first");
    assert_eq!(drain.wait_timeout(LIMIT).and_then(|s| s.code()), Some(0));
}

#[test]
fn sigterm_ends_it_with_143() {
    let server = RedisServer::start();
    enqueue(&server, &["q", "x"]);
    let _: () = server.cmd(&[b"CONFIG", b"RESETSTAT"]);
    let mut wait = wait_bg(&server, &["q"]);
    // Its looks are transactions: once it has made two, it is waiting.
    assert!(wait_until(LIMIT, || server.calls("exec") >= 2));
    wait.signal(Signal::SIGTERM);
    let (status, _) = ended(&mut wait);
    assert_eq!(status.code(), Some(143), "{}", wait.stderr());
    assert!(
        wait.stderr().contains("interrupted (SIGTERM) after"),
        "{}",
        wait.stderr()
    );
    let json = answer(&wait);
    assert_eq!(json["interrupted"], "SIGTERM", "{json}");
    assert_eq!(json["result"], "interrupted");
}

/// A Go CurlyQ consumer: it registers and reserves (in one transaction, as its scripts do)
/// after the wait began, and acks by the spec: SREM from its in-flight set, HDEL the record.
#[test]
fn a_job_a_go_consumer_acked_ended_without_a_record_of_success() {
    let server = RedisServer::start();
    let id = enqueue(&server, &["q", "go"]);
    let mut queue = wait_bg(&server, &["q"]);
    let mut job = wait_bg(&server, &["q", &id]);
    std::thread::sleep(Duration::from_millis(300));
    let go = "q:inflight:0b7d3e2a-1c4f-4d5e-9f00-aabbccddeeff";
    let now = qctl::engine::now().to_string();
    let mut conn = server.conn();
    let _: () = redis::pipe()
        .atomic()
        .zadd("q:consumers", go, &now)
        .lrem("q:active", 1, &id)
        .sadd(go, &id)
        .query(&mut conn)
        .expect("reserve as CurlyQ");
    std::thread::sleep(Duration::from_millis(1500));
    assert!(
        queue.wait_timeout(Duration::ZERO).is_none(),
        "the job is in flight at a Go consumer: {}",
        queue.stderr()
    );
    assert!(
        job.wait_timeout(Duration::ZERO).is_none(),
        "{}",
        job.stderr()
    );
    let _: () = redis::pipe()
        .atomic()
        .srem(go, &id)
        .hdel("q:data", &id)
        .query(&mut conn)
        .expect("ack as CurlyQ");
    let (status, _) = ended(&mut queue);
    assert_eq!(status.code(), Some(0), "{}", queue.stderr());
    assert_eq!(answer(&queue)["done"], 0, "no qctl consumer acked it");
    let (status, _) = ended(&mut job);
    assert_eq!(status.code(), Some(7), "{}", job.stderr());
    assert_eq!(answer(&job)["jobs"][0]["state"], "unknown");
    assert!(
        job.stderr().contains("ended without a record of success"),
        "{}",
        job.stderr()
    );
}

/// The success record: every ack notes its ids in `q:acked`, newest first, and keeps the
/// newest 10,000; a key of the wrong type there blocks no ack.
#[test]
fn acks_note_the_newest_10000_ids_and_a_wrong_type_there_blocks_no_ack() {
    let server = RedisServer::start();
    let keys = qctl::engine::QueueKeys::new("q");
    let inflight = keys.inflight("0b7d3e2a-1c4f-4d5e-9f00-aabbccddeeff");
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let spec = qctl::engine::ServerSpec::parse(
        &server.url(),
        Duration::from_secs(5),
        Duration::from_secs(10),
    )
    .expect("the URL");
    let mut redis = runtime.block_on(spec.connect()).expect("connect");
    // 10,500 jobs in flight, acked 1,000 at a time.
    let ids: Vec<String> = (0..10_500).map(|i| format!("a{i:05}")).collect();
    let mut conn = server.conn();
    for chunk in ids.chunks(1000) {
        let mut pipe = redis::pipe();
        for id in chunk {
            pipe.hset("q:data", id, Job::new(id.as_str(), None).encode())
                .sadd(&inflight, id);
        }
        let _: () = pipe.query(&mut conn).expect("put jobs in flight");
    }
    for chunk in ids.chunks(1000) {
        let jobs: Vec<(&str, u64)> = chunk.iter().map(|id| (id.as_str(), 1)).collect();
        let acked = runtime
            .block_on(qctl::engine::inflight::ack(
                &mut redis,
                &keys,
                &inflight,
                &jobs,
                qctl::engine::now(),
            ))
            .expect("ack");
        assert!(acked.iter().all(|a| *a));
    }
    let noted = server.lrange("q:acked");
    assert_eq!(noted.len(), 10_000);
    assert_eq!(noted[0], "a10499", "newest first");
    assert_eq!(noted[9_999], "a00500", "the oldest 500 were trimmed");

    // A string where the list should be: the job is acked all the same.
    let _: () = server.cmd(&[b"SET", b"q:acked", b"not a list"]);
    let _: () = server.cmd(&[b"HSET", b"q:data", b"b", &Job::new("b", None).encode()]);
    let _: () = server.cmd(&[b"SADD", inflight.as_bytes(), b"b"]);
    let acked = runtime
        .block_on(qctl::engine::inflight::ack(
            &mut redis,
            &keys,
            &inflight,
            &[("b", 1)],
            qctl::engine::now(),
        ))
        .expect("ack despite q:acked");
    assert_eq!(acked, vec![true]);
    assert_eq!(server.hget_bytes("q:data", "b"), None);
    assert_eq!(server.key_type("q:acked"), "string");
}

#[test]
fn jobs_in_flight_in_queues_named_after_the_queue_are_not_waited_for() {
    // The in-flight sets of the queues `p:inflight` and `p:inflight:abc` match
    // `p:inflight:*`: the wait counted their jobs as p's and waited for ever.
    let server = RedisServer::start();
    // A queue that ran its jobs: only its counters are left.
    let _: () = server.cmd(&[b"HSET", b"p:stats", b"completed", b"1"]);
    let planted = support::neighbours::plant(&server, "p");
    let before = support::neighbours::dump(&server, &planted);
    let (code, json, err) = wait_for(&server, &["p", "--timeout", "10s"]);
    assert_eq!(code, 0, "{json} {err}");
    assert_eq!(
        support::neighbours::mentioned(&planted, &err),
        None,
        "{err}"
    );
    assert_eq!(support::neighbours::dump(&server, &planted), before);
}
