//! The fault half of the reliability suite: consumers killed, stopped, cut off and restarted,
//! odd scores and heartbeats, bad consumer entries, against real redis-servers. Each
//! scenario ends with one `support::figure` line saying what it saw.

mod support;

use std::time::{Duration, Instant, SystemTime};

use nix::sys::signal::Signal;
use qctl::engine::Job;
use support::handlers::Mode;
use support::judge::{Class, End, Enqueue, History, Hit};
use support::ledger::{consumer, enqueue_numbered, repeated, Ledger};
use support::{
    consumer_keys, figure, pending, qctl, running, spawn_consumer_at, wait_until, Background,
    RedisServer, FAST,
};

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
fn f1_sigkill_of_one_of_four_consumers_loses_nothing_and_repeats_only_what_it_ran() {
    let server = RedisServer::start();
    let ledger = Ledger::new();
    let ids = enqueue_numbered(&server, "q", "j", 2000);
    let sleep = Duration::from_millis(20);
    let mut victim = consumer(&server, Mode::PerJob, &["-c", "2"], &ledger, sleep);
    assert!(wait_until(Duration::from_secs(10), || consumer_keys(
        &server
    )
    .len()
        == 1));
    let victim_key = consumer_keys(&server).remove(0);
    let mut others: Vec<Background> = (0..3)
        .map(|_| consumer(&server, Mode::PerJob, &["-c", "2"], &ledger, sleep))
        .collect();
    assert!(wait_until(Duration::from_secs(60), || ledger.runs().len() >= 600));
    let mut history = History::new();
    history.enqueued(&ids, Enqueue::Acknowledged);
    let killed_at = SystemTime::now();
    victim.signal(Signal::SIGKILL);
    let killed = Instant::now();
    victim
        .wait_timeout(Duration::from_secs(5))
        .expect("the victim dies");
    // What it held when it died: the jobs that may run twice (those it had started).
    let held = server.smembers(&victim_key);
    history.fault(
        "the SIGKILL",
        killed_at,
        Hit::Consumer {
            pid: victim.pid(),
            held: Some(held.clone()),
        },
    );
    let victim_runs: Vec<_> = ledger
        .entries()
        .into_iter()
        .filter(|r| held.contains(&r.id))
        .collect();
    // Its handlers die with it (the reaper), not beside the recovered copies.
    assert!(
        wait_until(Duration::from_secs(5), || victim_runs
            .iter()
            .all(|r| !running(r.pid))),
        "a killed consumer's handlers outlived it"
    );
    assert!(
        wait_until(Duration::from_secs(30), || !consumer_keys(&server)
            .contains(&victim_key)),
        "the killed consumer's jobs were never recovered"
    );
    let recovered_in = killed.elapsed();
    assert!(
        wait_until(Duration::from_secs(60), || pending(&server) == 0),
        "jobs left unacked"
    );
    for c in &mut others {
        assert_eq!(
            c.stop(Duration::from_secs(15)).and_then(|s| s.code()),
            Some(0),
            "{}",
            c.stderr()
        );
    }
    let runs = ledger.runs();
    let verdict = history
        .ran(ledger.entries())
        .judge(&End::read(&server, "q"));
    verdict.check("F1");
    assert!(verdict.waiting.is_empty(), "{}", verdict.table());
    let twice = repeated(&runs);
    assert!(
        twice.iter().all(|id| held.contains(id)),
        "only jobs the killed consumer held may run twice: {twice:?} vs {held:?}"
    );
    assert_eq!(
        consumer_keys(&server),
        Vec::<String>::new(),
        "everyone left"
    );
    figure(&format!(
        "F1 SIGKILL 1 of 4 consumers at {}/2000 runs: {} (the {} it held) recovered_in={:.1}s (cut-off 3s)",
        600,
        verdict.line(),
        held.len(),
        recovered_in.as_secs_f64()
    ));
}

#[test]
fn f2_sigterm_lets_short_jobs_finish_and_returns_long_ones_with_attempt_unchanged() {
    let server = RedisServer::start();
    for (id, secs) in [("short", "0.5"), ("long", "60")] {
        qctl(&server)
            .args(["enqueue", "q", "--id", id, secs])
            .assert()
            .success();
    }
    let mut args = vec!["q", "-c", "2", "--shutdown-grace", "2s"];
    args.extend_from_slice(FAST);
    // `xargs sleep` runs `sleep DATA`: the data is an argument, never shell text.
    args.extend(["--", "xargs", "sleep"]);
    // Runs a consumer until both jobs run, sends SIGTERM `signals` times, and returns how
    // long it took to exit after the last one.
    let run_and_stop = |signals: usize| {
        let mut c = spawn_consumer_at(&server.url(), &args);
        assert!(wait_until(Duration::from_secs(10), || server
            .lrange("q:active")
            .is_empty()));
        for _ in 0..signals {
            std::thread::sleep(Duration::from_millis(200));
            c.signal(Signal::SIGTERM);
        }
        let signalled = Instant::now();
        let status = c.wait_timeout(Duration::from_secs(15)).expect("it exits");
        let took = signalled.elapsed();
        assert_eq!(status.code(), Some(0), "{}", c.stderr());
        took
    };
    let exit_after = run_and_stop(1);
    assert_eq!(
        server.hget_bytes("q:data", "short"),
        None,
        "the short job finished and was acked"
    );
    assert_eq!(
        server.lrange("q:active"),
        ["long"],
        "the long job went back"
    );
    let long = Job::decode(&server.hget_bytes("q:data", "long").unwrap()).unwrap();
    assert_eq!(
        long.attempt, 0,
        "an interrupted job is not a failed attempt"
    );
    assert!(
        exit_after >= Duration::from_millis(1900),
        "the grace was not given: {exit_after:?}"
    );
    assert_eq!(consumer_keys(&server), Vec::<String>::new());

    // A second signal skips the grace.
    let second_exit = run_and_stop(2);
    assert_eq!(server.lrange("q:active"), ["long"]);
    figure(&format!(
        "F2 SIGTERM, grace 2s: short job finished and acked, long job returned with attempt 0; exit {:.1}s after the signal, {:.1}s after a second signal",
        exit_after.as_secs_f64(),
        second_exit.as_secs_f64()
    ));
}

#[test]
fn f3_a_consumer_stopped_past_the_cut_off_changes_nothing_when_it_wakes() {
    let server = RedisServer::start();
    let ledger = Ledger::new();
    let ids = enqueue_numbered(&server, "q", "s", 1);
    // A's handler ends while A is stopped: on waking it holds a success it must not record.
    let mut a = consumer(
        &server,
        Mode::PerJob,
        &["-c", "1"],
        &ledger,
        Duration::from_secs(2),
    );
    assert!(wait_until(Duration::from_secs(10), || ledger.runs().len() == 1));
    let a_key = consumer_keys(&server).remove(0);
    let mut history = History::new();
    history.enqueued(&ids, Enqueue::Acknowledged).fault(
        "the SIGSTOP",
        SystemTime::now(),
        Hit::Consumer {
            pid: a.pid(),
            held: Some(server.smembers(&a_key)),
        },
    );
    a.signal(Signal::SIGSTOP);
    let stopped = Instant::now();
    let mut b = consumer(
        &server,
        Mode::PerJob,
        &["-c", "1"],
        &ledger,
        Duration::from_secs(6),
    );
    assert!(
        wait_until(Duration::from_secs(15), || ledger.runs().len() == 2),
        "B never recovered the job"
    );
    let b_started = stopped.elapsed();
    std::thread::sleep(Duration::from_millis(500));
    a.signal(Signal::SIGCONT);
    let status = a
        .wait_timeout(Duration::from_secs(10))
        .expect("A exits on its own");
    let a_stderr = a.stderr();
    assert_eq!(status.code(), Some(3), "{a_stderr}");
    assert!(a_stderr.contains("lost the lease"), "{a_stderr}");
    // A's late success changed nothing: B's copy still holds the job and its record.
    assert!(
        server.hget_bytes("q:data", &ids[0]).is_some(),
        "a stale ack deleted the record"
    );
    let b_key = consumer_keys(&server)
        .into_iter()
        .find(|k| *k != a_key)
        .expect("B is registered");
    assert_eq!(server.smembers(&b_key), ids);
    assert!(
        !consumer_keys(&server).contains(&a_key),
        "A left q:consumers"
    );
    assert!(wait_until(Duration::from_secs(15), || pending(&server) == 0));
    b.stop(Duration::from_secs(10)).expect("B stops");
    let verdict = history
        .ran(ledger.entries())
        .judge(&End::read(&server, "q"));
    verdict.check("F3");
    assert!(verdict.waiting.is_empty(), "{}", verdict.table());
    figure(&format!(
        "F3 SIGSTOP past the cut-off: B recovered and started the job {:.1}s after the stop; on SIGCONT A exited 3 (lease lost), its stale ack changed nothing, it left q:consumers; {} (the job A had started)",
        b_started.as_secs_f64(),
        verdict.line()
    ));
}

#[test]
fn f4_a_redis_restart_with_aof_loses_no_job() {
    let mut server = RedisServer::start_with(&["--appendonly", "yes", "--appendfsync", "always"]);
    let ledger = Ledger::new();
    let ids = enqueue_numbered(&server, "q", "r", 300);
    let mut c = consumer(
        &server,
        Mode::PerJob,
        &["-c", "4", "--orphan-after", "30s"],
        &ledger,
        Duration::from_millis(20),
    );
    assert!(wait_until(Duration::from_secs(30), || ledger.runs().len() >= 90));
    let mut history = History::new();
    // AOF with a sync per write: the restarted server has every write it acknowledged.
    history.enqueued(&ids, Enqueue::Acknowledged).fault(
        "the restart",
        SystemTime::now(),
        Hit::Redis { lost_writes: false },
    );
    let down = Instant::now();
    server.restart();
    let back = down.elapsed();
    let before = pending(&server);
    assert!(
        wait_until(Duration::from_secs(30), || pending(&server) < before),
        "nothing acked after the restart: {}",
        c.stderr()
    );
    let resumed_in = down.elapsed();
    assert!(
        wait_until(Duration::from_secs(60), || pending(&server) == 0),
        "jobs left after the restart: {}",
        c.stderr()
    );
    let status = c.stop(Duration::from_secs(15)).expect("the consumer stops");
    assert_eq!(status.code(), Some(0), "{}", c.stderr());
    let verdict = history
        .ran(ledger.entries())
        .judge(&End::read(&server, "q"));
    verdict.check("F4");
    assert!(verdict.waiting.is_empty(), "{}", verdict.table());
    assert!(server.lrange("q:active").is_empty());
    assert_eq!(consumer_keys(&server), Vec::<String>::new());
    figure(&format!(
        "F4 redis-server SIGKILLed and restarted (AOF always) at 90/300 runs: {}; down {:.1}s, first ack {:.1}s after the kill",
        verdict.line(),
        back.as_secs_f64(),
        resumed_in.as_secs_f64()
    ));
}

#[test]
fn f6_a_timeout_kills_the_handler_its_children_and_a_sigterm_ignorer() {
    let server = RedisServer::start();
    let dir = tempfile::tempdir().unwrap();
    let pids = dir.path().join("pids");
    qctl(&server)
        .args(["enqueue", "q", "--id", "t", "x"])
        .assert()
        .success();
    // The handler ignores SIGTERM and leaves a grandchild in its group.
    let script = format!(
        "trap '' TERM; sleep 300 & echo $! >> {p}; echo $$ >> {p}; while true; do sleep 1; done",
        p = pids.display()
    );
    let started = Instant::now();
    qctl(&server)
        .args(["consume", "q", "--drain", "-c", "1", "--max-retries", "0"])
        .args(["--timeout", "1s", "--kill-after", "1s"])
        .args(FAST)
        .args(["--", "sh", "-c", &script])
        .assert()
        .code(7);
    let took = started.elapsed();
    let pids: Vec<i32> = std::fs::read_to_string(&pids)
        .unwrap()
        .lines()
        .map(|l| l.trim().parse().unwrap())
        .collect();
    assert_eq!(pids.len(), 2);
    assert!(
        pids.iter().all(|p| !running(*p)),
        "{pids:?} outlived the job"
    );
    let failure: serde_json::Value =
        serde_json::from_slice(&server.hget_bytes("q:failures", "t").unwrap()).unwrap();
    assert_eq!(failure["reason"], "timeout");
    assert_eq!(failure["timed_out"], true);
    assert_eq!(server.zrange_withscores("q:dead").len(), 1);
    figure(&format!(
        "F6 --timeout 1s --kill-after 1s, handler ignoring SIGTERM with a grandchild: both killed, job dead with reason timeout; consume ended in {:.1}s",
        took.as_secs_f64()
    ));
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
    let mut consumer = spawn_consumer_at(
        &server.url(),
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
    consumer
        .stop(Duration::from_secs(10))
        .expect("the consumer stops");
    let stderr = consumer.stderr();
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
    let mut consumer = spawn_consumer_at(
        &server.url(),
        &[&["q", "-c", "1"][..], FAST, &["--", "true"]].concat(),
    );
    assert!(wait_until(Duration::from_secs(10), || server
        .cmd::<u64>(&[b"LLEN", b"q:active"])
        == 9000));
    // Let the custodian (every second at this cut-off) pass over the bad members again.
    std::thread::sleep(Duration::from_millis(3500));
    consumer
        .stop(Duration::from_secs(10))
        .expect("the consumer stops");
    let stderr = consumer.stderr();
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

/// F12: Redis restarted without persistence, over and over, while a consumer holds jobs
/// (running, and waiting for a handler): Redis comes back empty, the consumer's entry and
/// the jobs it held gone with it. Nobody else can run those jobs, so the consumer registers
/// again and goes on, in both modes, every time: each job enqueued afterwards runs once.
/// Before, whichever of the heartbeat and the settles of those jobs came first decided, and
/// a heartbeat that found the entry gone while jobs were held gave up the lease (exit 3).
#[test]
fn f12_a_redis_restart_without_persistence_under_held_jobs_leaves_the_consumer_running() {
    let mut figures = Vec::new();
    for mode in [Mode::PerJob, Mode::Pipe] {
        let mut server = RedisServer::start();
        let ledger = Ledger::new();
        // A lease of 14 s: an outage of a second or two is well within it.
        let opts = ["-c", "4", "--orphan-after", "20s"];
        let mut c = consumer(&server, mode, &opts, &ledger, Duration::from_secs(2));
        let mut restarts = 0;
        for round in 0..4 {
            let ids = enqueue_numbered(&server, "q", &format!("r{round}-"), 8);
            let started = || {
                let runs = ledger.runs();
                ids.iter().filter(|id| runs.contains(id)).count()
            };
            assert!(
                wait_until(Duration::from_secs(30), || started() >= 2),
                "{mode:?} round {round}: its jobs did not start: {}",
                c.stderr()
            );
            // Jobs are running and more wait for a handler: Redis goes, and comes back
            // empty, at once or after a while.
            server.stop();
            if round % 2 == 1 {
                std::thread::sleep(Duration::from_millis(1500));
            }
            server.restart();
            restarts += 1;
            // The held jobs run out (2 s each) and the heartbeat looks meanwhile.
            std::thread::sleep(Duration::from_secs(3));
            assert!(
                c.wait_timeout(Duration::ZERO).is_none(),
                "{mode:?}: the consumer exited after restart {restarts}:\n{}",
                c.stderr()
            );
        }
        let ids = enqueue_numbered(&server, "q", "after-", 12);
        let mut history = History::new();
        history.enqueued(&ids, Enqueue::Acknowledged);
        assert!(
            wait_until(Duration::from_secs(60), || pending(&server) == 0),
            "{mode:?}: the jobs enqueued after the restarts did not all run:\n{}",
            c.stderr()
        );
        let status = c.stop(Duration::from_secs(15)).expect("the consumer stops");
        let stderr = c.stderr();
        assert_eq!(status.code(), Some(0), "{mode:?}: {stderr}");
        assert!(!stderr.contains("lost the lease"), "{mode:?}: {stderr}");
        assert!(stderr.contains("it registered again"), "{mode:?}: {stderr}");
        // Jobs Redis lost with the restarts ran once or not at all; the later ones once.
        let runs = ledger.runs();
        assert!(
            repeated(&runs).is_empty(),
            "{mode:?}: {:?}",
            repeated(&runs)
        );
        // The jobs enqueued after the restarts are judged: those Redis lost before are gone
        // with what it held, and the judge is not told of them.
        let after = ledger
            .entries()
            .into_iter()
            .filter(|r| r.id.starts_with("after-"));
        let mut end = End::read(&server, "q");
        end.retain(|id| id.starts_with("after-"));
        let verdict = history.ran(after).judge(&end);
        verdict.check(&format!("F12 {mode:?}"));
        assert!(verdict.waiting.is_empty(), "{}", verdict.table());
        assert!(server.lrange("q:active").is_empty());
        assert_eq!(consumer_keys(&server), Vec::<String>::new());
        figures.push(format!(
            "{}: {restarts} restarts, still running, the 12 jobs enqueued after {}",
            match mode {
                Mode::PerJob => "per job",
                Mode::Pipe => "--pipe",
            },
            verdict.line()
        ));
    }
    figure(&format!(
        "F12 redis-server restarted without persistence while jobs were held (-c 4, 2 s jobs): {}",
        figures.join("; ")
    ));
}

/// F12, the other side: a consumer whose entry is gone while its held jobs were taken from
/// its in-flight set (recovered by another consumer: back in `q:active`, their records
/// there) still loses its lease and stops its handlers, exit 3; one whose entry alone was
/// deleted (its in-flight set still holds its jobs: nobody else can run them) registers
/// again and goes on.
#[test]
fn f12_a_consumer_whose_held_jobs_were_taken_still_loses_its_lease() {
    for taken in [true, false] {
        let server = RedisServer::start();
        let ledger = Ledger::new();
        let ids = enqueue_numbered(&server, "q", "t", 2);
        let opts = ["-c", "2", "--orphan-after", "20s"];
        let mut c = consumer(
            &server,
            Mode::PerJob,
            &opts,
            &ledger,
            Duration::from_secs(30),
        );
        assert!(wait_until(Duration::from_secs(15), || ledger.runs().len() == 2));
        let key = consumer_keys(&server).remove(0);
        if taken {
            // What recovery does: the ids back in q:active, the entry gone.
            for id in &ids {
                let _: () = server.cmd(&[b"SREM", key.as_bytes(), id.as_bytes()]);
                let _: () = server.cmd(&[b"RPUSH", b"q:active", id.as_bytes()]);
            }
        }
        let _: () = server.cmd(&[b"ZREM", b"q:consumers", key.as_bytes()]);
        let handlers: Vec<i32> = ledger.entries().iter().map(|r| r.pid).collect();
        if taken {
            let status = c
                .wait_timeout(Duration::from_secs(20))
                .expect("it exits by itself");
            let stderr = c.stderr();
            assert_eq!(status.code(), Some(3), "{stderr}");
            assert!(
                stderr.contains("2 of the 2 jobs its handlers run or wait for"),
                "{stderr}"
            );
            assert!(stderr.contains("others may run them"), "{stderr}");
            assert!(handlers.iter().all(|pid| !running(*pid)), "{stderr}");
        } else {
            assert!(
                wait_until(Duration::from_secs(10), || consumer_keys(&server)
                    == [key.clone()]),
                "it did not register again: {}",
                c.stderr()
            );
            assert!(c.wait_timeout(Duration::ZERO).is_none(), "{}", c.stderr());
            assert!(handlers.iter().all(|pid| running(*pid)));
            let stderr = c.stderr();
            assert!(
                stderr.contains("its in-flight set still holds the 2 jobs"),
                "{stderr}"
            );
            // A second signal ends the running jobs at once: they go back to q:active.
            c.signal(Signal::SIGTERM);
            std::thread::sleep(Duration::from_millis(300));
            let status = c.stop(Duration::from_secs(15)).expect("it stops");
            assert_eq!(status.code(), Some(0), "{}", c.stderr());
        }
        assert!(support::invariants(&server, "q").is_empty());
    }
}

/// F13: Redis frozen for good (SIGSTOP) under a consumer whose handlers keep ending, so acks
/// are waiting for an answer. Its lease runs out 3 s after the last heartbeat
/// (`--heartbeat 1s --orphan-after 6s`); the calls still unanswered get 3 s more, and it
/// exits 3 then, about 6 s after the freeze as docs/reliability.md says, however long
/// `--response-timeout` is (30 s here: before, it waited for each pending ack call in turn,
/// 30 s each, and 3 s more to leave). Woken, Redis holds every job whole.
#[test]
fn f13_a_consumer_whose_redis_freezes_for_good_exits_within_its_lease_not_its_response_timeouts() {
    let server = RedisServer::start();
    let ledger = Ledger::new();
    let ids = enqueue_numbered(&server, "q", "z", 300);
    let opts = [
        "-c",
        "4",
        "--orphan-after",
        "6s",
        "--response-timeout",
        "30s",
    ];
    let mut c = consumer(
        &server,
        Mode::PerJob,
        &opts,
        &ledger,
        Duration::from_millis(200),
    );
    assert!(
        wait_until(Duration::from_secs(30), || pending(&server) <= 290),
        "nothing acked: {}",
        c.stderr()
    );
    let mut history = History::new();
    history.enqueued(&ids, Enqueue::Acknowledged).fault(
        "the freeze",
        SystemTime::now(),
        Hit::Redis { lost_writes: false },
    );
    server.pause();
    let frozen = Instant::now();
    // Documented: 6 s. A generous margin, and still well short of one --response-timeout.
    let status = c.wait_timeout(Duration::from_secs(25));
    let took = frozen.elapsed();
    server.resume();
    let stderr = c.stderr();
    let status = status.unwrap_or_else(|| {
        panic!(
            "still running {:.1} s after the freeze:\n{stderr}",
            took.as_secs_f64()
        )
    });
    assert_eq!(status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("lost the lease"), "{stderr}");
    assert!(
        stderr.contains("Redis did not answer within 3s of the loss of the lease"),
        "{stderr}"
    );
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(support::invariants(&server, "q"), Vec::<String>::new());
    // Every job whole: acked, or still to run (ready, or in the in-flight set of the consumer
    // that left, for recovery); none lost, none run twice.
    let verdict = history
        .ran(ledger.entries())
        .judge(&End::read(&server, "q"));
    verdict.check("F13");
    figure(&format!(
        "F13 redis-server SIGSTOPped for good under a consumer acking 0.2 s jobs (-c 4, --response-timeout 30s): exit 3 {:.1} s after the freeze; {}, every job whole once Redis woke",
        took.as_secs_f64(),
        verdict.line()
    ));
}

/// F14: a producer SIGKILLed in the middle of `qctl enqueue --jsonl` while a consumer runs
/// what it enqueued, and another producer's enqueue completes meanwhile. The ids the killed
/// one printed were acknowledged (it prints to a pipe in blocks: often none); every other id
/// it was given is indeterminate: Redis may or may not have taken it. Judged: each
/// acknowledged job (the other producer's) ran once, each indeterminate one that arrived ran
/// once (recovered), none ran twice, nothing is lost and nothing unexpected appears.
#[test]
fn f14_a_producer_killed_mid_enqueue_leaves_no_job_half_made() {
    use std::io::{BufRead, Write};
    let server = RedisServer::start();
    let ledger = Ledger::new();
    let mut c = consumer(&server, Mode::PerJob, &["-c", "4"], &ledger, Duration::ZERO);
    let mut cmd = support::qctl_process(&server);
    cmd.args(["enqueue", "q", "--jsonl"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null());
    let mut producer = cmd.spawn().expect("start qctl enqueue");
    let pid = producer.id() as i32;
    // The ids it printed, as they come.
    let stdout = producer.stdout.take().expect("piped");
    let printed = std::thread::spawn(move || {
        std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
            .collect::<Vec<String>>()
    });
    // Its input: 10 jobs at a time, until it is gone (or 20,000 were written, 100 s).
    let mut stdin = producer.stdin.take().expect("piped");
    let writer = std::thread::spawn(move || {
        let mut written = Vec::new();
        for batch in 0..2000 {
            let ids: Vec<String> = (0..10).map(|i| format!("p{:05}", batch * 10 + i)).collect();
            let lines: String = ids
                .iter()
                .map(|id| format!("{{\"id\":\"{id}\",\"data\":\"\"}}\n"))
                .collect();
            if stdin.write_all(lines.as_bytes()).is_err() {
                break;
            }
            written.extend(ids);
            std::thread::sleep(Duration::from_millis(50));
        }
        written
    });
    let acknowledged = enqueue_numbered(&server, "q", "a", 100);
    assert!(
        wait_until(Duration::from_secs(60), || ledger.runs().len() >= 50),
        "the consumer ran nothing: {}",
        c.stderr()
    );
    let killed_at = SystemTime::now();
    support::signal(&producer, Signal::SIGKILL);
    producer.wait().expect("the producer dies");
    let written = writer.join().expect("the writer");
    let printed = printed.join().expect("the reader");
    assert!(
        printed.len() < written.len(),
        "the producer had enqueued all it was given before it was killed"
    );
    assert!(
        wait_until(Duration::from_secs(120), || pending(&server) == 0),
        "jobs left: {}",
        c.stderr()
    );
    let status = c.stop(Duration::from_secs(15)).expect("the consumer stops");
    assert_eq!(status.code(), Some(0), "{}", c.stderr());
    let unsure: Vec<&String> = written.iter().filter(|id| !printed.contains(id)).collect();
    let mut history = History::new();
    history
        .enqueued(&acknowledged, Enqueue::Acknowledged)
        .enqueued(&printed, Enqueue::Acknowledged)
        .enqueued(&unsure, Enqueue::Indeterminate)
        .fault("the SIGKILL", killed_at, Hit::Producer { pid })
        .ran(ledger.entries());
    let verdict = history.judge(&End::read(&server, "q"));
    verdict.check("F14");
    assert!(verdict.waiting.is_empty(), "{}", verdict.table());
    assert_eq!(
        verdict.count(Class::Duplicated),
        0,
        "a job ran twice: {}",
        verdict.table()
    );
    figure(&format!(
        "F14 qctl enqueue --jsonl SIGKILLed after {} jobs printed of {} given, another's 100 jobs enqueued meanwhile, a consumer running them: {}",
        printed.len(),
        written.len(),
        verdict.line()
    ));
}
