//! Steering running consumers from another process: `qctl cancel` (per-job and `--pipe`
//! handlers), `qctl consumers quiet | resize | stop`, what is said of consumers that cannot
//! take orders (Go CurlyQ's) or do not answer (stopped), and that nothing else a consumer
//! holds is touched.

mod support;

use std::path::Path;
use std::time::Duration;

use qctl::engine::failure::Failure;
use qctl::engine::Job;
use support::{enqueue, qctl, qctl_process, wait_until, Background, RedisServer};

/// A per-job handler that writes its process group (its pid: qctl starts each handler in a
/// group of its own) to DIR/ID, then waits on two children that sleep an hour.
const LONG: &str = r#"echo $$ > "$0/$QCTL_JOB_ID"; sleep 3600 & sleep 3600; wait"#;

fn consumer(server: &RedisServer, args: &[&str]) -> Background {
    let mut cmd = qctl_process(server);
    cmd.arg("consume").args(args);
    Background::spawn(cmd)
}

fn record(server: &RedisServer, id: &str) -> Option<Job> {
    server
        .hget_bytes("mail:data", id)
        .map(|b| Job::decode(&b).expect("a readable record"))
}

fn failure(server: &RedisServer, id: &str) -> Option<Failure> {
    server
        .hget_bytes("mail:failures", id)
        .and_then(|b| Failure::from_json(&b))
}

fn group_alive(pgid: i32) -> bool {
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(-pgid), None).is_ok()
}

fn pgid(dir: &Path, id: &str) -> i32 {
    let mut text = String::new();
    assert!(
        wait_until(Duration::from_secs(20), || {
            text = std::fs::read_to_string(dir.join(id)).unwrap_or_default();
            text.ends_with('\n')
        }),
        "job {id} never started"
    );
    text.trim().parse().expect("a pid")
}

fn dead(server: &RedisServer) -> Vec<String> {
    server
        .zrange_withscores("mail:dead")
        .into_iter()
        .map(|(id, _)| id)
        .collect()
}

/// The in-flight sets' members of every consumer registered.
fn in_flight(server: &RedisServer) -> Vec<String> {
    let mut ids = Vec::new();
    for (key, _) in server.zrange_withscores("mail:consumers") {
        ids.extend(server.smembers(&key));
    }
    ids.sort();
    ids
}

/// The short name `qctl consumers` prints of the only qctl consumer of `mail`.
fn short_id(server: &RedisServer) -> String {
    let out = qctl(server)
        .args(["consumers", "mail", "--json"])
        .output()
        .unwrap();
    let list: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let key = list
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["run_by"] == "qctl")
        .expect("a qctl consumer")["consumer"]
        .as_str()
        .unwrap()
        .to_string();
    key.rsplit(':').next().unwrap()[..8].to_string()
}

#[test]
fn a_cancelled_job_s_whole_process_group_ends_and_it_is_dead_with_the_reason_and_nothing_else_is_touched(
) {
    let server = RedisServer::start();
    let dir = tempfile::tempdir().unwrap();
    // A job held by a consumer that wrote no description: a Go CurlyQ consumer.
    enqueue(&server, "mail", "go-held", b"g");
    let go = "mail:inflight:0a0b0c0d-0000-4000-8000-000000000000";
    let _: i64 = server.cmd(&[b"LREM", b"mail:active", b"0", b"go-held"]);
    let _: i64 = server.cmd(&[b"SADD", go.as_bytes(), b"go-held"]);
    let now = format!("{}", qctl::engine::now());
    let _: i64 = server.cmd(&[b"ZADD", b"mail:consumers", now.as_bytes(), go.as_bytes()]);
    enqueue(&server, "mail", "a", b"x");
    enqueue(&server, "mail", "b", b"y");
    let dir_arg = dir.path().to_str().unwrap();
    let mut c = consumer(
        &server,
        &[
            "mail",
            "-c",
            "2",
            "--poll-interval",
            "200ms",
            "--kill-after",
            "2s",
            "--shutdown-grace",
            "1s",
            "--",
            "sh",
            "-c",
            LONG,
            dir_arg,
        ],
    );
    let (a, b) = (pgid(dir.path(), "a"), pgid(dir.path(), "b"));
    assert!(group_alive(a) && group_alive(b));

    let out = qctl(&server)
        .args(["cancel", "mail", "a", "go-held", "nosuch", "--yes"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    // Some of the ids were cancelled, not all: exit 7.
    assert_eq!(out.status.code(), Some(7), "{stdout}{stderr}");
    assert!(
        stdout.contains("a: cancelled: moved to mail:dead"),
        "{stdout}"
    );
    assert!(
        stdout.contains("go-held: not cancellable") && stdout.contains("Go CurlyQ consumer"),
        "{stdout}"
    );
    assert!(stdout.contains("qctl orphans mail"), "{stdout}");
    assert!(
        stdout.contains("nosuch: not running: there is no job"),
        "{stdout}"
    );
    // Settled before the command returned: dead, with the reason; the group is gone.
    assert_eq!(dead(&server), ["a"]);
    let f = failure(&server, "a").expect("a failure record");
    assert!(f.reason.starts_with("cancelled by "), "{f:?}");
    assert!(wait_until(Duration::from_secs(5), || !group_alive(a)));
    // Nothing else: b runs on, the Go consumer's job is where it was.
    assert!(group_alive(b));
    assert_eq!(in_flight(&server), ["b", "go-held"]);
    assert_eq!(record(&server, "b").unwrap().attempt, 0);
    // The record of changes has it.
    let changes = qctl(&server)
        .args(["changes", "mail", "--json"])
        .output()
        .unwrap();
    let changes = String::from_utf8_lossy(&changes.stdout);
    assert!(changes.contains("\"cancel\""), "{changes}");

    // --retry: run again at once, its attempt counted.
    let out = qctl(&server)
        .args(["cancel", "mail", "b", "--retry", "--yes"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(wait_until(Duration::from_secs(5), || !group_alive(b)));
    assert_eq!(record(&server, "b").unwrap().attempt, 1);
    assert!(failure(&server, "b")
        .unwrap()
        .reason
        .starts_with("cancelled by "));
    assert!(!dead(&server).contains(&"b".to_string()));
    assert_eq!(
        c.stop(Duration::from_secs(30)).and_then(|s| s.code()),
        Some(0)
    );
}

#[test]
fn a_pipe_job_is_cancelled_and_a_handler_that_ignores_the_cancel_is_restarted_while_the_other_job_goes_back_unchanged(
) {
    let server = RedisServer::start();
    let dir = tempfile::tempdir().unwrap();
    // Records each job's line and never answers: a cancel line is read and ignored.
    let script = dir.path().join("h.py");
    std::fs::write(
        &script,
        "import json, os, sys\n\
         log = open(sys.argv[1], 'a')\n\
         for line in sys.stdin:\n\
         \x20   log.write(line); log.flush()\n",
    )
    .unwrap();
    let log = dir.path().join("lines");
    enqueue(&server, "mail", "p1", b"x");
    enqueue(&server, "mail", "p2", b"y");
    let mut c = consumer(
        &server,
        &[
            "mail",
            "--pipe",
            "-c",
            "1",
            "--pipe-depth",
            "2",
            "--kill-after",
            "1s",
            "--poll-interval",
            "200ms",
            "--",
            "python3",
            script.to_str().unwrap(),
            log.to_str().unwrap(),
        ],
    );
    assert!(wait_until(Duration::from_secs(20), || {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        text.contains("\"p1\"") && text.contains("\"p2\"")
    }));
    let out = qctl(&server)
        .args(["cancel", "mail", "p1", "--yes"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("p1: cancelled"), "{stdout}");
    assert_eq!(dead(&server), ["p1"]);
    // The handler was told.
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.contains(r#"{"cancel":"p1"}"#), "{text}");
    // It did not answer within --kill-after: restarted; p2 went back unchanged and was
    // given to the new handler (it is in flight again, its attempt not counted).
    assert!(wait_until(Duration::from_secs(20), || c
        .stderr()
        .contains("did not answer cancelled job p1")));
    assert!(wait_until(Duration::from_secs(20), || {
        std::fs::read_to_string(&log)
            .unwrap()
            .matches("\"p2\"")
            .count()
            == 2
    }));
    assert_eq!(record(&server, "p2").unwrap().attempt, 0);
    assert!(failure(&server, "p2").is_none());
    assert_eq!(
        c.stop(Duration::from_secs(40)).and_then(|s| s.code()),
        Some(0)
    );
}

#[test]
fn a_stopped_consumer_is_reported_as_not_answering_and_never_acts_on_the_order_later() {
    let server = RedisServer::start();
    let dir = tempfile::tempdir().unwrap();
    enqueue(&server, "mail", "s", b"x");
    let dir_arg = dir.path().to_str().unwrap();
    let mut c = consumer(
        &server,
        &[
            "mail",
            "-c",
            "1",
            "--poll-interval",
            "200ms",
            "--",
            "sh",
            "-c",
            LONG,
            dir_arg,
        ],
    );
    let group = pgid(dir.path(), "s");
    c.signal(nix::sys::signal::Signal::SIGSTOP);
    let out = qctl(&server)
        .args(["cancel", "mail", "s", "--yes"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(5), "{stdout}");
    assert!(
        stdout.contains("s: no answer: consumer") && stdout.contains("did not answer within 5s"),
        "{stdout}"
    );
    assert!(stdout.contains("stuck"), "{stdout}");
    c.signal(nix::sys::signal::Signal::SIGCONT);
    // It reads the order now, past its deadline, and leaves the job alone.
    assert!(wait_until(Duration::from_secs(10), || c
        .stderr()
        .contains("ignored the order to cancel")));
    assert!(group_alive(group));
    assert_eq!(in_flight(&server), ["s"]);
    assert!(dead(&server).is_empty());
    let _ = c.stop(Duration::from_secs(40));
}

#[test]
fn a_consumer_is_resized_quieted_and_stopped_from_another_process() {
    let server = RedisServer::start();
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("log");
    // Each job sleeps as many seconds as its data says; starts and ends are logged.
    let script = r#"n=$(cat); echo "start $QCTL_JOB_ID $(date +%s.%N)" >> "$0"; sleep "$n"; echo "end $QCTL_JOB_ID $(date +%s.%N)" >> "$0""#;
    for i in 0..4 {
        enqueue(&server, "mail", &format!("long{i}"), b"2");
    }
    let mut c = consumer(
        &server,
        &[
            "mail",
            "-c",
            "4",
            "--poll-interval",
            "200ms",
            "--",
            "sh",
            "-c",
            script,
            log.to_str().unwrap(),
        ],
    );
    let lines = || std::fs::read_to_string(&log).unwrap_or_default();
    assert!(wait_until(Duration::from_secs(20), || lines()
        .matches("start long")
        .count()
        == 4));
    let id = short_id(&server);
    let out = qctl(&server)
        .args(["consumers", "resize", &id, "-c", "1", "--yes"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("concurrency 4 -> 1"), "{stdout}");
    for i in 0..3 {
        enqueue(&server, "mail", &format!("short{i}"), b"0.3");
    }
    assert!(wait_until(Duration::from_secs(30), || lines()
        .matches("end short")
        .count()
        == 3));
    // After the resize, one at a time: every short job starts after the one before ended,
    // and after all four long ones ended.
    let mut events: Vec<(f64, bool, String)> = lines()
        .lines()
        .map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            (w[2].parse().unwrap(), w[0] == "start", w[1].to_string())
        })
        .collect();
    events.sort_by(|x, y| x.0.partial_cmp(&y.0).unwrap());
    let mut running = 0i32;
    let mut most_after_longs = 0;
    let mut longs_ended = 0;
    for (_, start, id) in &events {
        running += if *start { 1 } else { -1 };
        if !*start && id.starts_with("long") {
            longs_ended += 1;
        }
        if *start && id.starts_with("short") {
            assert_eq!(longs_ended, 4, "{events:?}");
            most_after_longs = most_after_longs.max(running);
        }
    }
    assert_eq!(most_after_longs, 1, "{events:?}");
    // `consumers` says its concurrency is 1.
    let listed = qctl(&server).args(["consumers", "mail"]).output().unwrap();
    assert!(String::from_utf8_lossy(&listed.stdout).contains("concurrency 1"));

    // Quiet: no new job is taken; it stays, shown quiet.
    let out = qctl(&server)
        .args(["consumers", "quiet", &id, "--yes"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    enqueue(&server, "mail", "after-quiet", b"0");
    std::thread::sleep(Duration::from_secs(2));
    let active: Vec<String> = server.cmd(&[b"LRANGE", b"mail:active", b"0", b"-1"]);
    assert_eq!(active, ["after-quiet"]);
    let listed = qctl(&server).args(["consumers", "mail"]).output().unwrap();
    assert!(String::from_utf8_lossy(&listed.stdout).contains("quiet"));

    // Stop: it leaves with nothing in flight and exits 0.
    let out = qctl(&server)
        .args(["consumers", "stop", &id, "--yes"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains("stopped: it has left mail:consumers"),
        "{stdout}"
    );
    assert_eq!(
        c.wait_timeout(Duration::from_secs(20))
            .and_then(|s| s.code()),
        Some(0)
    );
    assert!(in_flight(&server).is_empty());
    assert!(server.zrange_withscores("mail:consumers").is_empty());
}

#[test]
fn orders_are_refused_without_a_terminal_and_without_yes_and_a_wrong_id_is_named() {
    let server = RedisServer::start();
    enqueue(&server, "mail", "j", b"x");
    let out = qctl(&server)
        .args(["consumers", "quiet", "0a0b0c0d"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no consumer's id starts with \"0a0b0c0d\"")
    );
    let out = qctl(&server)
        .args(["consumers", "stop", "not-an-id!"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is no consumer id"));
    let mut c = consumer(
        &server,
        &[
            "mail",
            "-c",
            "1",
            "--poll-interval",
            "200ms",
            "--",
            "sleep",
            "3600",
        ],
    );
    assert!(wait_until(Duration::from_secs(20), || in_flight(&server) == ["j"]));
    let id = short_id(&server);
    for args in [
        vec!["consumers", "quiet", id.as_str()],
        vec!["cancel", "mail", "j"],
    ] {
        let out = qctl(&server).args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("needs confirmation"),
            "{args:?}"
        );
    }
    assert_eq!(in_flight(&server), ["j"]);
    let _ = c.stop(Duration::from_secs(40));
}

/// On a Redis Cluster, through a node that does not own the queue: the orders and answers
/// live in the queue's slot; a consumer is found by its id on every master; a job is
/// cancelled, the consumer quieted and stopped.
#[test]
fn on_a_cluster_a_job_is_cancelled_and_its_consumer_quieted_and_stopped() {
    let cluster = support::cluster::Cluster::start(3);
    let q = "{mail}";
    let url = cluster.url_not_owning(q);
    let owner = cluster.owner(q);
    let at = |args: &[&str]| {
        let mut cmd = support::qctl_url(&url);
        cmd.arg("--cluster").env_remove("QCTL_CLUSTER").args(args);
        cmd.output().unwrap()
    };
    for id in ["c1", "c2"] {
        let out = at(&["enqueue", q, "--id", id, "x"]);
        assert!(out.status.success());
    }
    let mut cmd = support::qctl_process_at(&url);
    cmd.args([
        "--cluster",
        "consume",
        q,
        "-c",
        "2",
        "--poll-interval",
        "200ms",
        "--shutdown-grace",
        "1s",
        "--",
        "sleep",
        "3600",
    ]);
    let mut consumer = Background::spawn(cmd);
    let held = || {
        let members: Vec<String> = redis::cmd("ZRANGE")
            .arg(format!("{q}:consumers"))
            .arg(0)
            .arg(-1)
            .query(&mut owner.conn())
            .unwrap();
        let mut ids: Vec<String> = Vec::new();
        for key in members {
            let m: Vec<String> = redis::cmd("SMEMBERS")
                .arg(&key)
                .query(&mut owner.conn())
                .unwrap();
            ids.extend(m);
        }
        ids.sort();
        ids
    };
    assert!(wait_until(Duration::from_secs(30), || held() == ["c1", "c2"]));
    let out = at(&["cancel", q, "c1", "--yes"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("c1: cancelled"), "{stdout}");
    assert_eq!(held(), ["c2"]);
    let listed = at(&["consumers", q, "--json"]);
    let list: serde_json::Value = serde_json::from_slice(&listed.stdout).expect("JSON");
    let key = list[0]["consumer"].as_str().unwrap().to_string();
    let id = &key.rsplit(':').next().unwrap()[..8];
    let out = at(&["consumers", "quiet", id, "--yes"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = at(&["consumers", "stop", id, "--yes"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        consumer
            .wait_timeout(Duration::from_secs(20))
            .and_then(|s| s.code()),
        Some(0)
    );
}

/// Ctrl-C while `cancel` waits for the answers ends the wait at once (exit 130), says the order
/// was given, and the record of changes keeps it as interrupted.
#[test]
fn an_interrupt_ends_the_wait_for_answers_but_not_the_order() {
    let server = RedisServer::start();
    let dir = tempfile::tempdir().unwrap();
    enqueue(&server, "mail", "i", b"x");
    let dir_arg = dir.path().to_str().unwrap();
    let mut c = consumer(
        &server,
        &[
            "mail",
            "-c",
            "1",
            "--poll-interval",
            "200ms",
            "--",
            "sh",
            "-c",
            LONG,
            dir_arg,
        ],
    );
    pgid(dir.path(), "i");
    // Stopped, it answers nothing: the command waits.
    c.signal(nix::sys::signal::Signal::SIGSTOP);
    let mut cmd = qctl_process(&server);
    cmd.args(["cancel", "mail", "i", "--yes"]);
    let mut asking = Background::spawn(cmd);
    std::thread::sleep(Duration::from_millis(1500));
    asking.signal(nix::sys::signal::Signal::SIGINT);
    let status = asking.wait_timeout(Duration::from_secs(3));
    assert_eq!(
        status.and_then(|s| s.code()),
        Some(130),
        "{}",
        asking.stderr()
    );
    assert!(
        asking.stderr().contains("stopped waiting for the answers"),
        "{}",
        asking.stderr()
    );
    let changes = qctl(&server)
        .args(["changes", "mail", "--json"])
        .output()
        .unwrap();
    let entries: serde_json::Value = serde_json::from_slice(&changes.stdout).unwrap();
    assert_eq!(entries[0]["action"], "cancel", "{entries}");
    assert_eq!(entries[0]["interrupted"], "SIGINT", "{entries}");
    c.signal(nix::sys::signal::Signal::SIGCONT);
    let _ = c.stop(Duration::from_secs(40));
}

/// `--all` gives the order to every qctl consumer of the queue and leaves a Go CurlyQ consumer
/// (a member with no description) alone, saying why, with its job where it was.
#[test]
fn all_orders_every_qctl_consumer_and_leaves_a_go_consumer_alone() {
    let server = RedisServer::start();
    enqueue(&server, "mail", "go-held", b"g");
    let go = "mail:inflight:0a0b0c0d-0000-4000-8000-000000000000";
    let _: i64 = server.cmd(&[b"LREM", b"mail:active", b"0", b"go-held"]);
    let _: i64 = server.cmd(&[b"SADD", go.as_bytes(), b"go-held"]);
    let now = format!("{}", qctl::engine::now());
    let _: i64 = server.cmd(&[b"ZADD", b"mail:consumers", now.as_bytes(), go.as_bytes()]);
    let mut c = consumer(
        &server,
        &[
            "mail",
            "-c",
            "1",
            "--poll-interval",
            "200ms",
            "--",
            "sleep",
            "3600",
        ],
    );
    assert!(wait_until(Duration::from_secs(20), || server
        .zrange_withscores("mail:consumers")
        .len()
        == 2));
    let out = qctl(&server)
        .args(["consumers", "quiet", "--all", "mail", "--yes"])
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    assert!(stdout.contains("done: quiet"), "{stdout}");
    assert!(
        stderr.contains("consumer 0a0b0c0d") && stderr.contains("cannot be given orders"),
        "{stderr}"
    );
    assert_eq!(server.smembers(go), ["go-held"]);
    let _ = c.stop(Duration::from_secs(40));
}
