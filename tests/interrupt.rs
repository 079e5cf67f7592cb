//! Bulk commands stopped half-way: SIGINT, SIGTERM or SIGHUP while they change a large set,
//! or their output closed. Each must say exactly what it did (the count it prints is the count
//! Redis holds, read back where a reply was lost) and exit with the cause's code: 130, 143,
//! 129, 141. Each scenario prints a figure line (`support::figure`).

mod support;

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use nix::sys::signal::Signal;
use support::proxy::FaultProxy;
use support::{figure, qctl_process, qctl_process_at, wait_until, Background, RedisServer};

/// How long a stopped command may take to exit.
const EXIT_LIMIT: Duration = Duration::from_secs(30);
/// How long a command may take to get going.
const START_LIMIT: Duration = Duration::from_secs(60);

/// The number right after `prefix` in `text` (thousands separators allowed).
fn count_after(text: &str, prefix: &str) -> u64 {
    let at = text
        .find(prefix)
        .unwrap_or_else(|| panic!("{prefix:?} not in:\n{text}"))
        + prefix.len();
    let digits: String = text[at..]
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == ',')
        .filter(char::is_ascii_digit)
        .collect();
    digits
        .parse()
        .unwrap_or_else(|_| panic!("no number after {prefix:?} in:\n{text}"))
}

fn hlen(server: &RedisServer, key: &str) -> u64 {
    server.cmd(&[b"HLEN", key.as_bytes()])
}

fn llen(server: &RedisServer, key: &str) -> u64 {
    server.cmd(&[b"LLEN", key.as_bytes()])
}

fn zcard(server: &RedisServer, key: &str) -> u64 {
    server.cmd(&[b"ZCARD", key.as_bytes()])
}

/// `n` jobs `j1`..`jn` with records in the data hash of the queue of `set` and ids in `set`, scored
/// `score`, written straight to Redis.
fn fill_set(server: &RedisServer, set: &str, n: u64, score: f64) {
    let data = format!(
        "{}:data",
        set.rsplit_once(':').map_or("q", |(queue, _)| queue)
    );
    let mut con = server.conn();
    for start in (1..=n).step_by(10_000) {
        let mut pipe = redis::pipe();
        for i in start..(start + 10_000).min(n + 1) {
            let id = format!("j{i}");
            let record = qctl::engine::Job::new(id.as_str(), Some(b"x".to_vec())).encode();
            pipe.hset(&data, &id, record).ignore();
            pipe.zadd(set, &id, score).ignore();
        }
        let () = pipe.query(&mut con).expect("fill the set");
    }
}

/// `n` ready jobs `j1`..`jn` in `q:active` with their records.
fn fill_active(server: &RedisServer, n: u64) {
    let mut con = server.conn();
    for start in (1..=n).step_by(10_000) {
        let mut pipe = redis::pipe();
        for i in start..(start + 10_000).min(n + 1) {
            let id = format!("j{i}");
            let record = qctl::engine::Job::new(id.as_str(), Some(b"x".to_vec())).encode();
            pipe.hset("q:data", &id, record).ignore();
            pipe.rpush("q:active", &id).ignore();
        }
        let () = pipe.query(&mut con).expect("fill the list");
    }
}

/// Runs `cmd` in the background, sends `sig` once `started` holds, and returns its exit
/// status and output.
fn stop_when(
    cmd: Command,
    sig: Signal,
    mut started: impl FnMut() -> bool,
) -> (ExitStatus, Background) {
    let mut bg = Background::spawn(cmd);
    assert!(
        wait_until(START_LIMIT, &mut started),
        "it never got going; stderr:\n{}",
        bg.stderr()
    );
    bg.signal(sig);
    let status = bg
        .wait_timeout(EXIT_LIMIT)
        .unwrap_or_else(|| panic!("it did not stop; stderr:\n{}", bg.stderr()));
    (status, bg)
}

/// `qctl enqueue q ARGS` fed by a thread that writes lines from `line(n)` (n from 1) to its
/// stdin until it stops reading: the input never ends by itself.
struct Feeder {
    child: Child,
    stdout: Arc<Mutex<Vec<u8>>>,
    stderr: Arc<Mutex<Vec<u8>>>,
    threads: Vec<JoinHandle<()>>,
}

impl Feeder {
    fn start(
        mut cmd: Command,
        line: fn(u64) -> String,
        stdout: bool,
    ) -> (Feeder, Option<std::process::ChildStdout>) {
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start qctl enqueue");
        let mut stdin = child.stdin.take().expect("piped");
        let mut threads = vec![std::thread::spawn(move || {
            let mut n = 0u64;
            loop {
                let mut chunk = String::with_capacity(64 * 1024);
                for _ in 0..1000 {
                    n += 1;
                    chunk.push_str(&line(n));
                    chunk.push('\n');
                }
                if stdin.write_all(chunk.as_bytes()).is_err() {
                    return;
                }
            }
        })];
        let out = Arc::new(Mutex::new(Vec::new()));
        let err = Arc::new(Mutex::new(Vec::new()));
        let mut pipe_out = child.stdout.take();
        if stdout {
            threads.push(collect(pipe_out.take().expect("piped"), out.clone()));
        }
        threads.push(collect(child.stderr.take().expect("piped"), err.clone()));
        (
            Feeder {
                child,
                stdout: out,
                stderr: err,
                threads,
            },
            pipe_out,
        )
    }

    fn signal(&self, sig: Signal) {
        support::signal(&self.child, sig);
    }

    /// The exit status and the whole stdout and stderr.
    fn finish(mut self) -> (ExitStatus, String, String) {
        let deadline = Instant::now() + EXIT_LIMIT;
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                break status;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!(
                    "qctl enqueue did not stop; stderr:\n{}",
                    String::from_utf8_lossy(&self.stderr.lock().unwrap())
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
        let out = String::from_utf8_lossy(&self.stdout.lock().unwrap()).into_owned();
        let err = String::from_utf8_lossy(&self.stderr.lock().unwrap()).into_owned();
        (status, out, err)
    }
}

impl Drop for Feeder {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn collect(mut pipe: impl Read + Send + 'static, into: Arc<Mutex<Vec<u8>>>) -> JoinHandle<()> {
    std::thread::spawn(move || {
        let mut buf = [0u8; 64 * 1024];
        while let Ok(n) = pipe.read(&mut buf) {
            if n == 0 {
                break;
            }
            into.lock().unwrap().extend_from_slice(&buf[..n]);
        }
    })
}

fn plain_line(n: u64) -> String {
    format!("job {n}")
}

fn json_line(n: u64) -> String {
    format!(r#"{{"data":"job {n}"}}"#)
}

/// The jobs a stopped enqueue names as not enqueued (their calls failed), 0 when none.
fn not_enqueued(err: &str) -> u64 {
    if err.contains("not enqueued: ") {
        count_after(err, "not enqueued: ")
    } else {
        0
    }
}

/// Checks a stopped enqueue: its exit code, that the count and the lines it printed are what
/// Redis holds, and that the ids on stdout are exactly the queue's, in order; returns the
/// count.
fn check_enqueue(server: &RedisServer, status: ExitStatus, code: i32, out: &str, err: &str) -> u64 {
    assert_eq!(status.code(), Some(code), "stderr:\n{err}");
    let printed = count_after(err, "enqueued ");
    let held = hlen(server, "q:data");
    assert_eq!(
        printed, held,
        "printed {printed}, Redis holds {held}:\n{err}"
    );
    assert_eq!(llen(server, "q:active"), held);
    // Lines whose calls never reached Redis are named as not enqueued.
    let not_added = not_enqueued(err);
    assert_eq!(count_after(err, "(lines 1 to "), held + not_added, "{err}");
    assert!(err.contains("nothing after that was sent"), "{err}");
    assert!(!err.contains("not known"), "{err}");
    if !out.is_empty() {
        let ids: Vec<&str> = out.lines().collect();
        assert_eq!(
            ids,
            server.lrange("q:active"),
            "the ids printed are the queue's"
        );
    }
    held
}

#[test]
fn sigint_in_enqueue_lines_says_exactly_what_was_enqueued() {
    let server = RedisServer::start();
    let mut cmd = qctl_process(&server);
    cmd.args(["enqueue", "q", "--lines"]);
    let (feeder, _) = Feeder::start(cmd, plain_line, true);
    assert!(wait_until(START_LIMIT, || hlen(&server, "q:data") >= 50_000));
    feeder.signal(Signal::SIGINT);
    let (status, out, err) = feeder.finish();
    assert!(err.contains("interrupted (SIGINT): enqueued "), "{err}");
    let held = check_enqueue(&server, status, 130, &out, &err);
    assert_eq!(out.lines().count() as u64, held);
    figure(&format!(
        "I1 SIGINT in enqueue --lines (input never ends): exit 130; printed {held} jobs (lines 1 to {held}) = {held} in Redis = {held} ids on stdout"
    ));
}

#[test]
fn sigterm_in_enqueue_jsonl_exits_143_with_the_count() {
    let server = RedisServer::start();
    let mut cmd = qctl_process(&server);
    cmd.args(["enqueue", "q", "--jsonl", "--json"]);
    let (feeder, _) = Feeder::start(cmd, json_line, true);
    assert!(wait_until(START_LIMIT, || hlen(&server, "q:data") >= 20_000));
    feeder.signal(Signal::SIGTERM);
    let (status, out, err) = feeder.finish();
    assert!(err.contains("interrupted (SIGTERM): enqueued "), "{err}");
    let held = check_enqueue(&server, status, 143, "", &err);
    let summary: serde_json::Value =
        serde_json::from_str(out.lines().last().expect("a summary line")).expect("JSON");
    assert_eq!(summary["enqueued"], held);
    assert_eq!(summary["interrupted"], "SIGTERM");
    assert_eq!(summary["last_line"], held);
    let enqueued = out
        .lines()
        .filter(|l| l.contains(r#""result":"enqueued""#))
        .count() as u64;
    assert_eq!(enqueued, held, "one JSON line per job enqueued");
    figure(&format!(
        "I2 SIGTERM in enqueue --jsonl --json: exit 143; printed {held} = {held} in Redis, JSON summary interrupted=SIGTERM"
    ));
}

#[test]
fn enqueue_whose_stdout_is_closed_exits_141_with_the_count_on_stderr() {
    let server = RedisServer::start();
    let mut cmd = qctl_process(&server);
    cmd.args(["enqueue", "q", "--lines"]);
    // `qctl enqueue q --lines | head -1`: one id is read, then the pipe is closed.
    let (feeder, stdout) = Feeder::start(cmd, plain_line, false);
    let mut first = String::new();
    BufReader::new(stdout.expect("stdout"))
        .read_line(&mut first)
        .expect("the first id");
    let (status, _, err) = feeder.finish();
    assert!(
        err.contains("stopped (its output was closed): enqueued "),
        "{err}"
    );
    let held = check_enqueue(&server, status, 141, "", &err);
    assert_eq!(
        server.lrange("q:active").first().map(String::as_str),
        Some(first.trim())
    );
    figure(&format!(
        "I3 enqueue --lines | head -1: exit 141; stderr says {held} enqueued = {held} in Redis"
    ));
}

/// Runs `qctl enqueue q ARGS` through a fault proxy, fed by `line`, until `q:active` holds
/// 20,000 jobs; then Redis holds every client for 2 s (CLIENT PAUSE) while qctl's calls reach
/// it and wait, the link holds everything and qctl is interrupted: when the pause ends Redis
/// runs the calls that reached it, their replies are held, and the connection is reset. Those
/// replies are lost, and calls sent after the hold never arrive: only Redis can tell which
/// calls took effect. Returns the exit status, stdout, stderr, and the ready jobs at the hold
/// and just before the reset.
fn lose_replies_on(
    server: &RedisServer,
    args: &[&str],
    line: fn(u64) -> String,
) -> (ExitStatus, String, String, u64, u64) {
    let proxy = FaultProxy::start(server.port());
    let mut cmd = qctl_process_at(&proxy.url());
    cmd.args(["enqueue", "q"]).args(args);
    let (feeder, _) = Feeder::start(cmd, line, true);
    assert!(wait_until(START_LIMIT, || llen(server, "q:active") >= 20_000));
    let mut pause = redis::pipe();
    pause
        .atomic()
        .llen("q:active")
        .cmd("CLIENT")
        .arg("PAUSE")
        .arg(2000)
        .arg("ALL")
        .ignore();
    let (at_hold,): (u64,) = pause.query(&mut server.conn()).expect("pause Redis");
    std::thread::sleep(Duration::from_millis(1000));
    proxy.blackhole();
    feeder.signal(Signal::SIGINT);
    std::thread::sleep(Duration::from_millis(1500));
    let before_reset = llen(server, "q:active");
    proxy.reset_all();
    proxy.pass();
    let (status, out, err) = feeder.finish();
    assert!(
        err.contains("error:"),
        "the reset reached calls in flight:\n{err}"
    );
    assert!(
        before_reset > at_hold,
        "calls ran whose replies were lost:\n{err}"
    );
    (status, out, err, at_hold, before_reset)
}

#[test]
fn replies_lost_while_enqueue_stops_are_read_back() {
    let server = RedisServer::start();
    let (status, out, err, at_hold, before_reset) =
        lose_replies_on(&server, &["--lines"], plain_line);
    let held = check_enqueue(&server, status, 130, &out, &err);
    assert_eq!(held, before_reset, "nothing was sent after the stop");
    let lost = before_reset - at_hold;
    let not_sent = err.contains("not enqueued: ");
    figure(&format!(
        "I4 SIGINT in enqueue --lines with Redis paused (CLIENT PAUSE), then every reply in flight lost (reset): exit 130; printed {held} = {held} in Redis, of which {lost} read back as enqueued{}",
        if not_sent { "; calls that never arrived read back as not enqueued" } else { "" }
    ));
}

fn line_with_id(n: u64) -> String {
    format!(r#"{{"id":"k{n}","data":"job {n}"}}"#)
}

#[test]
fn replies_lost_for_given_ids_tell_enqueued_from_taken() {
    // Every tenth id is taken already (a record with other data, not in the queue), so the
    // calls read back hold both jobs added and jobs whose id was taken.
    let server = RedisServer::start();
    let mut con = server.conn();
    for start in (10..=200_000u64).step_by(50_000) {
        let mut pipe = redis::pipe();
        for n in (start..start + 50_000).step_by(10) {
            let id = format!("k{n}");
            let record = qctl::engine::Job::new(id.as_str(), Some(b"old".to_vec())).encode();
            pipe.hset("q:data", &id, record).ignore();
        }
        let () = pipe.query(&mut con).expect("take ids");
    }
    let (status, out, err, at_hold, before_reset) =
        lose_replies_on(&server, &["--jsonl"], line_with_id);
    assert_eq!(status.code(), Some(130), "{err}");
    let enqueued = count_after(&err, "enqueued ");
    let duplicates = count_after(&err, " jobs, ");
    let not_added = not_enqueued(&err);
    let last = count_after(&err, "(lines 1 to ");
    assert_eq!(enqueued, llen(&server, "q:active"), "{err}");
    assert_eq!(enqueued, before_reset, "nothing was sent after the stop");
    assert_eq!(enqueued + duplicates + not_added, last, "{err}");
    let ids: Vec<&str> = out.lines().collect();
    assert_eq!(
        ids,
        server.lrange("q:active"),
        "the ids printed are the queue's"
    );
    // Every job enqueued holds the data sent; every id taken kept its old record.
    for id in ["k10", "k20000", &format!("k{}", last / 10 * 10)] {
        let record = server.hget_bytes("q:data", id).expect("a record");
        let job = qctl::engine::Job::decode(&record).expect("a job");
        assert_eq!(job.data.as_deref(), Some(&b"old"[..]), "{id}");
    }
    let lost = before_reset - at_hold;
    figure(&format!(
        "I4b the same with --jsonl and given ids, every tenth taken: exit 130; printed {enqueued} enqueued = Redis, {duplicates} duplicates, lines 1 to {last} accounted for; {lost} jobs read back as enqueued"
    ));
}

/// A bulk command over 200,000 jobs stopped once Redis shows it under way: exit code, and
/// the count it printed is the count Redis shows done (`done()`).
fn bulk_stopped(
    server: &RedisServer,
    args: &[&str],
    sig: Signal,
    code: i32,
    said: &str,
    done: impl Fn() -> u64,
) -> (u64, String) {
    let mut cmd = qctl_process(server);
    cmd.args(args).arg("--yes");
    let (status, bg) = stop_when(cmd, sig, || done() >= 20_000);
    let err = bg.stderr();
    assert_eq!(status.code(), Some(code), "stderr:\n{err}");
    let printed = count_after(&err, said);
    assert_eq!(printed, done(), "printed {printed}; stderr:\n{err}");
    assert!(err.contains("run the same command again to go on"), "{err}");
    (printed, err)
}

const BIG: u64 = 200_000;

#[test]
fn sigint_in_dead_requeue_all_says_how_many_moved() {
    let server = RedisServer::start();
    fill_set(&server, "q:dead", BIG, 1_700_000_000.0);
    let (moved, err) = bulk_stopped(
        &server,
        &["dead", "requeue", "q", "--all"],
        Signal::SIGINT,
        130,
        "interrupted (SIGINT): requeued ",
        || llen(&server, "q:active"),
    );
    assert!(
        err.contains(&format!("of {} dead jobs", "200,000")),
        "{err}"
    );
    assert!(moved < BIG, "stopped half-way");
    assert_eq!(zcard(&server, "q:dead"), BIG - moved);
    figure(&format!(
        "I5 SIGINT in dead requeue --all of 200,000: exit 130; printed {moved} = {moved} moved in Redis"
    ));
}

#[test]
fn sigterm_in_dead_delete_says_how_many_went() {
    let server = RedisServer::start();
    fill_set(&server, "q:dead", BIG, 1_700_000_000.0);
    let (deleted, _) = bulk_stopped(
        &server,
        &["dead", "delete", "q", "--all"],
        Signal::SIGTERM,
        143,
        "interrupted (SIGTERM): deleted ",
        || BIG - zcard(&server, "q:dead"),
    );
    assert!(deleted < BIG, "stopped half-way");
    assert_eq!(hlen(&server, "q:data"), BIG - deleted);
    figure(&format!(
        "I6 SIGTERM in dead delete --all of 200,000: exit 143; printed {deleted} = {deleted} deleted in Redis"
    ));
}

#[test]
fn sighup_in_scheduled_run_now_and_sigint_in_scheduled_delete() {
    let server = RedisServer::start();
    let later = qctl::engine::now() + 86_400.0;
    fill_set(&server, "q:scheduled", BIG, later);
    let (ready, _) = bulk_stopped(
        &server,
        &["scheduled", "run-now", "q", "--all"],
        Signal::SIGHUP,
        129,
        "interrupted (SIGHUP): made ",
        || llen(&server, "q:active"),
    );
    assert!(ready < BIG, "stopped half-way");
    assert_eq!(zcard(&server, "q:scheduled"), BIG - ready);
    let left = BIG - ready;
    let (deleted, err) = bulk_stopped(
        &server,
        &["scheduled", "delete", "q", "--all"],
        Signal::SIGINT,
        130,
        "interrupted (SIGINT): deleted ",
        || left - zcard(&server, "q:scheduled"),
    );
    assert!(err.contains("scheduled jobs") && deleted < left, "{err}");
    assert_eq!(hlen(&server, "q:data"), BIG - deleted);
    figure(&format!(
        "I7 SIGHUP in scheduled run-now --all of 200,000: exit 129, printed {ready} = Redis; SIGINT in scheduled delete --all: exit 130, printed {deleted} = Redis"
    ));
}

#[test]
fn sigint_in_active_delete_says_how_many_went() {
    let server = RedisServer::start();
    // LREM walks the list for every id: 12,000 ids out of 20,000 take several steps.
    fill_active(&server, 20_000);
    let ids: Vec<String> = (1..=12_000).map(|i| format!("j{i}")).collect();
    let mut cmd = qctl_process(&server);
    cmd.args(["active", "delete", "q"]).args(&ids).arg("--yes");
    let (status, bg) = stop_when(cmd, Signal::SIGINT, || llen(&server, "q:active") < 20_000);
    let err = bg.stderr();
    assert_eq!(status.code(), Some(130), "stderr:\n{err}");
    let deleted = count_after(&err, "interrupted (SIGINT): deleted ");
    assert!(err.contains("of 12,000 ready jobs"), "{err}");
    assert!(deleted < 12_000, "stopped half-way: {err}");
    assert_eq!(llen(&server, "q:active"), 20_000 - deleted);
    assert_eq!(hlen(&server, "q:data"), 20_000 - deleted);
    figure(&format!(
        "I8 SIGINT in active delete of 12,000 ids: exit 130; printed {deleted} = {deleted} deleted in Redis"
    ));
}

#[test]
fn sigint_in_purge_and_orphans_through_a_slow_link() {
    let server = RedisServer::start();
    let proxy = FaultProxy::start(server.port());
    // 1,000 in-flight sets of dead consumers, 3 ids each: purge unlinks 100 keys a call,
    // orphans moves one consumer's ids a call; 20 ms each way makes each call last.
    let mut con = server.conn();
    let mut pipe = redis::pipe();
    for c in 0..1000u32 {
        let key = format!("q:inflight:00000000-0000-4000-8000-{c:012}");
        pipe.zadd("q:consumers", &key, 1_000.0).ignore();
        for j in 0..3 {
            pipe.sadd(&key, format!("c{c}-{j}")).ignore();
        }
    }
    let () = pipe.query(&mut con).expect("fill");
    proxy.latency(Duration::from_millis(20));
    let mut cmd = qctl_process_at(&proxy.url());
    cmd.args(["orphans", "q", "--yes"]);
    let (status, bg) = stop_when(cmd, Signal::SIGINT, || llen(&server, "q:active") >= 30);
    let err = bg.stderr();
    assert_eq!(status.code(), Some(130), "stderr:\n{err}");
    let moved = count_after(&err, "interrupted (SIGINT): moved ");
    assert_eq!(moved, llen(&server, "q:active"), "{err}");
    assert!(moved < 3000, "stopped half-way: {err}");

    // purge deletes with one UNLINK (a refusal then leaves nothing half-done): a SIGINT
    // while it is out lets it answer; the keys then went, all of them, and it says so.
    let keys = |server: &RedisServer| -> u64 {
        server.cmd::<Vec<String>>(&[b"KEYS", b"q:*"]).len() as u64
    };
    let total = keys(&server);
    let mut cmd = qctl_process_at(&proxy.url());
    cmd.args(["purge", "q", "--yes"]);
    let mut bg = Background::spawn(cmd);
    assert!(
        wait_until(START_LIMIT, || bg.stderr().contains("will delete")),
        "it never got going; stderr:\n{}",
        bg.stderr()
    );
    bg.signal(Signal::SIGINT);
    let status = bg
        .wait_timeout(EXIT_LIMIT)
        .unwrap_or_else(|| panic!("it did not stop; stderr:\n{}", bg.stderr()));
    let err = bg.stderr();
    let left = keys(&server);
    match status.code() {
        Some(0) => {
            // But for the record of its changes, with the purge in it.
            assert_eq!(left, 1, "{err}");
            assert_eq!(count_after(&err, "deleted "), total, "{err}");
            assert!(err.contains(" keys of queue"), "{err}");
        }
        Some(130) => {
            assert_eq!(left, total, "{err}");
            assert!(err.contains("interrupted (SIGINT): deleted 0 of"), "{err}");
        }
        other => panic!("purge ended with {other:?}: {err}"),
    }
    figure(&format!(
        "I9 SIGINT in orphans (1,000 consumers, 20 ms latency each way): exit 130, printed {moved} moved = Redis; in purge ({total} keys, one UNLINK): exit {:?}, {} of {total} keys deleted, as printed",
        status.code(),
        total - left
    ));
}

/// The numbers a progress bar showed before `marker` (as in `63,500/200,000` with the
/// marker `/200,000`, or `1,265,192 jobs enqueued`), from a terminal's raw output.
fn shown(raw: &str, marker: &str) -> Vec<u64> {
    raw.match_indices(marker)
        .filter_map(|(at, _)| {
            let digits: String = raw[..at]
                .chars()
                .rev()
                .take_while(|c| c.is_ascii_digit() || *c == ',')
                .filter(char::is_ascii_digit)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            digits.parse().ok()
        })
        .collect()
}

/// Runs `qctl ARGS` on a terminal (`script`), stops it with SIGINT once `started` holds, and
/// returns its exit status and everything it drew. None when `script` is missing.
fn on_terminal(
    server: &RedisServer,
    args: &str,
    mut started: impl FnMut() -> bool,
) -> Option<(ExitStatus, String)> {
    if Command::new("script").arg("--version").output().is_err() {
        println!("note: skipped: `script` (util-linux) is missing");
        return None;
    }
    let bin = assert_cmd::cargo::cargo_bin("qctl");
    let line = format!("exec '{}' -u {} {args}", bin.display(), server.url());
    let mut cmd = Command::new("script");
    cmd.args(["-qfec", &line, "/dev/null"])
        .env("NO_COLOR", "1")
        .env("TERM", "xterm-256color")
        .env_remove("QCTL_REDIS_URL")
        .env_remove("REDIS_URL");
    let mut bg = Background::spawn(cmd);
    let mut pid = None;
    let began = wait_until(START_LIMIT, || {
        pid = pid.or_else(|| support::children(bg.pid()).first().copied());
        pid.is_some() && started()
    });
    if !began {
        // qctl runs in the session `script` made: it outlives `script`'s end unless ended here.
        if let Some(pid) = pid {
            let _ = nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), Signal::SIGKILL);
        }
        panic!(
            "qctl {args} did not get going within {START_LIMIT:?} (pid {pid:?}):\n{}",
            bg.stdout()
        );
    }
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(pid.expect("qctl's pid")),
        Signal::SIGINT,
    )
    .expect("signal qctl");
    let status = bg.wait_timeout(EXIT_LIMIT).expect("qctl stopped");
    Some((status, bg.stdout()))
}

#[test]
fn the_progress_bar_never_shows_more_than_redis_holds() {
    let server = RedisServer::start();
    fill_set(&server, "q:dead", BIG, 1_700_000_000.0);
    let Some((status, raw)) = on_terminal(&server, "dead requeue q --all --yes", || {
        llen(&server, "q:active") >= 20_000
    }) else {
        return;
    };
    assert_eq!(status.code(), Some(130), "{raw}");
    let moved = llen(&server, "q:active");
    assert_eq!(count_after(&raw, "interrupted (SIGINT): requeued "), moved);
    let bar = shown(&raw, "/200,000");
    assert!(!bar.is_empty(), "no progress bar drawn:\n{raw}");
    let bar_most = *bar.iter().max().unwrap_or(&0);
    assert!(
        bar_most <= moved,
        "the bar showed {bar_most}, Redis holds {moved}:\n{}",
        &raw[raw.len().saturating_sub(3000)..]
    );

    server.cmd::<()>(&[b"FLUSHALL"]);
    let lines = std::env::temp_dir().join(format!("qctl-lines-{}", std::process::id()));
    let text: String = (1..=3_000_000).map(|n| format!("job {n}\n")).collect();
    std::fs::write(&lines, text).expect("write the input");
    let args = format!("enqueue q --lines --file '{}' > /dev/null", lines.display());
    let run = on_terminal(&server, &args, || hlen(&server, "q:data") >= 200_000);
    let _ = std::fs::remove_file(&lines);
    let Some((status, raw)) = run else { return };
    assert_eq!(status.code(), Some(130), "{raw}");
    let held = hlen(&server, "q:data");
    assert_eq!(count_after(&raw, "interrupted (SIGINT): enqueued "), held);
    let counter = shown(&raw, " jobs enqueued");
    assert!(!counter.is_empty(), "no counter drawn:\n{raw}");
    let most = *counter.iter().max().unwrap_or(&0);
    assert!(
        most <= held,
        "the counter showed {most}, Redis holds {held}"
    );
    figure(&format!(
        "I10 progress on a terminal, SIGINT: dead requeue bar at most {bar_most} (Redis {moved}); enqueue counter at most {most} (Redis {held})"
    ));
}

#[test]
fn jobs_that_died_at_one_moment_are_each_requeued_once() {
    // The walk reads 4,000 ids a step: five steps over one score.
    let server = RedisServer::start();
    fill_set(&server, "q:dead", 20_000, 1_700_000_000.0);
    let out = support::qctl(&server)
        .args(["dead", "requeue", "q", "--all", "--yes"])
        .output()
        .expect("run qctl");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains("requeued 20000, not found 0, skipped 0"),
        "{err}"
    );
    assert_eq!(llen(&server, "q:active"), 20_000);
}

#[test]
fn a_second_signal_stops_at_once_and_says_what_is_not_known() {
    let server = RedisServer::start();
    let proxy = FaultProxy::start(server.port());
    // Answers would take up to 2 minutes: only the second signal ends these runs in time.
    let mut cmd = qctl_process_at(&proxy.url());
    cmd.args(["--response-timeout", "120s", "enqueue", "q", "--lines"]);
    let (feeder, _) = Feeder::start(cmd, plain_line, true);
    assert!(wait_until(START_LIMIT, || llen(&server, "q:active") >= 20_000));
    proxy.blackhole();
    std::thread::sleep(Duration::from_millis(300));
    feeder.signal(Signal::SIGINT);
    std::thread::sleep(Duration::from_millis(300));
    feeder.signal(Signal::SIGINT);
    let (status, out, err) = feeder.finish();
    assert_eq!(status.code(), Some(130), "{err}");
    assert!(
        err.contains("a second signal stopped qctl before Redis answered"),
        "{err}"
    );
    proxy.pass();
    let confirmed = count_after(&err, "enqueued ");
    assert_eq!(
        out.lines().count() as u64,
        confirmed,
        "ids only of jobs confirmed"
    );
    // The lines in flight are named, right after the last one confirmed.
    let first = count_after(&err, "; lines ");
    assert_eq!(first, count_after(&err, "(lines 1 to ") + 1, "{err}");

    // Another queue: what the proxy held of the enqueue may still reach Redis.
    server.cmd::<()>(&[b"FLUSHALL"]);
    fill_set(&server, "r:dead", BIG, 1_700_000_000.0);
    let mut cmd = qctl_process_at(&proxy.url());
    cmd.args([
        "--response-timeout",
        "120s",
        "dead",
        "requeue",
        "r",
        "--all",
        "--yes",
    ]);
    let mut bg = Background::spawn(cmd);
    assert!(wait_until(START_LIMIT, || llen(&server, "r:active") >= 20_000));
    proxy.blackhole();
    std::thread::sleep(Duration::from_millis(300));
    bg.signal(Signal::SIGINT);
    std::thread::sleep(Duration::from_millis(300));
    bg.signal(Signal::SIGINT);
    let status = bg.wait_timeout(EXIT_LIMIT).expect("stopped at once");
    let err = bg.stderr();
    assert_eq!(status.code(), Some(130), "{err}");
    assert!(
        err.contains("was sent and whether it took effect is not known"),
        "{err}"
    );
    proxy.pass();
    let moved = count_after(&err, "interrupted (SIGINT): requeued ");
    let unknown = count_after(&err, "the last step, ");
    let held = llen(&server, "r:active");
    assert!(
        moved <= held && held <= moved + unknown,
        "printed {moved} and {unknown} not known; Redis holds {held}"
    );
    figure(&format!(
        "I11 a second SIGINT with every answer held: enqueue exit 130, {confirmed} confirmed and the lines in flight named; dead requeue exit 130, {moved} confirmed and {unknown} named as not known (Redis {held})"
    ));
}

/// A signal while the server does not answer (a port that accepts and never speaks, with
/// --connect-timeout 60s) ends each command that takes over signals at once, having done
/// nothing, with the code of a stop: 130 for a bounded run, 0 for a consumer or a follower
/// that runs until stopped.
#[test]
fn a_signal_while_redis_does_not_answer_ends_the_start_at_once() {
    let cases: [(&[&str], i32); 9] = [
        (&["consume", "q", "--", "true"], 0),
        (&["consume", "q", "--drain", "--", "true"], 130),
        (
            &["consume", "q", "--pipe", "--max-jobs", "3", "--", "cat"],
            130,
        ),
        (&["wait", "q"], 130),
        (&["wait", "q", "j1", "--timeout", "1m"], 130),
        (&["export", "q"], 130),
        (&["tail", "q"], 0),
        (&["enqueue", "q", "x"], 130),
        (&["move", "q", "r", "--yes"], 130),
    ];
    let mut slowest = Duration::ZERO;
    for &(args, code) in &cases {
        let silent = support::silent_server();
        let mut cmd = qctl_process_at(&format!("redis://127.0.0.1:{}", silent.port));
        cmd.args(["--connect-timeout", "60s", "--response-timeout", "60s"])
            .args(args);
        let started = Instant::now();
        let (status, bg) = stop_when(cmd, Signal::SIGINT, || silent.accepted() > 0);
        slowest = slowest.max(started.elapsed());
        let err = bg.stderr();
        let what = args.join(" ");
        assert_eq!(status.code(), Some(code), "{what}: {err}");
        assert!(err.contains("interrupted (SIGINT)"), "{what}: {err}");
        assert!(!err.contains("cannot reach"), "{what}: {err}");
    }
    figure(&format!(
        "I12 SIGINT while Redis does not answer (--connect-timeout 60s): {} commands (consume, wait, export, tail, enqueue, move) stopped at once with their codes, the slowest run {:.1} s",
        cases.len(),
        slowest.as_secs_f64()
    ));
}

/// Two SIGINTs while Redis has stopped answering (every byte held by a proxy) end a consumer
/// within seconds, not when its lease runs out (100 s here): what it could not settle or
/// return stays reserved, every record is still placed, and it says so.
#[test]
fn a_second_signal_ends_a_consumer_whose_redis_stopped_answering() {
    let server = RedisServer::start();
    let proxy = FaultProxy::start(server.port());
    fill_active(&server, 20);
    let mut cmd = qctl_process_at(&proxy.url());
    cmd.args(["consume", "q", "-c", "2", "--", "sleep", "0.3"]);
    let mut bg = Background::spawn(cmd);
    assert!(
        wait_until(START_LIMIT, || hlen(&server, "q:data") <= 18),
        "no job was acked: {}",
        bg.stderr()
    );
    proxy.blackhole();
    std::thread::sleep(Duration::from_millis(300));
    bg.signal(Signal::SIGINT);
    std::thread::sleep(Duration::from_millis(500));
    bg.signal(Signal::SIGINT);
    let second = Instant::now();
    let status = bg.wait_timeout(Duration::from_secs(20)).unwrap_or_else(|| {
        panic!(
            "still running 20 s after the second SIGINT:\n{}",
            bg.stderr()
        )
    });
    let took = second.elapsed();
    let err = bg.stderr();
    assert_eq!(status.code(), Some(0), "{err}");
    assert!(err.contains("did not answer within 3s"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    proxy.pass();
    // A call the consumer sent before it gave up reaches Redis once the link passes again
    // (a requeue moves an id from q:inflight:* to q:active): the check waits for it.
    let mut broken = Vec::new();
    wait_until(Duration::from_secs(5), || {
        broken = support::invariants(&server, "q");
        broken.is_empty()
    });
    assert!(broken.is_empty(), "{broken:?}\n{err}");
    let left = hlen(&server, "q:data");
    let held: u64 = support::consumer_keys(&server)
        .iter()
        .filter(|k| k.starts_with("q:inflight:"))
        .map(|k| server.cmd::<u64>(&[b"SCARD", k.as_bytes()]))
        .sum();
    figure(&format!(
        "I13 two SIGINTs while Redis does not answer: consume exit 0 {:.1} s after the second (its lease would have held it 100 s); {} jobs acked before, {held} left reserved for recovery, {} in q:active, every record placed",
        took.as_secs_f64(),
        20 - left,
        llen(&server, "q:active")
    ));
}

/// A consumer stopped at any moment of its start leaves no entry in `NAME:consumers`: behind
/// a proxy that delays every reply by 30 ms, so that each step of the start (connections,
/// the rights check, the registration) takes a while, SIGTERM comes 0 to 1.4 s after the
/// spawn, and every run exits 143 with nothing registered and nothing in flight. A stop that
/// dropped the registration after it was sent left its entry behind.
#[test]
fn sigterm_at_any_moment_of_a_consumers_start_leaves_no_entry() {
    let server = RedisServer::start();
    fill_active(&server, 5);
    let proxy = FaultProxy::start(server.port());
    proxy.latency(Duration::from_millis(30));
    let mut runs = 0;
    let mut before_start = 0;
    for delay_ms in (0..=1400).step_by(50) {
        let mut cmd = qctl_process_at(&proxy.url());
        cmd.args([
            "consume",
            "q",
            "--drain",
            "-c",
            "1",
            "--shutdown-grace",
            "0s",
        ])
        .args(["--", "sleep", "5"]);
        let mut child = Background::spawn(cmd);
        std::thread::sleep(Duration::from_millis(delay_ms));
        child.signal(Signal::SIGTERM);
        let status = child
            .wait_timeout(Duration::from_secs(60))
            .expect("the consumer ends");
        // Before qctl takes over SIGTERM (its first milliseconds), the signal ends it as
        // it ends any process.
        use std::os::unix::process::ExitStatusExt as _;
        assert!(
            status.code() == Some(143) || status.signal() == Some(Signal::SIGTERM as i32),
            "SIGTERM {delay_ms} ms in: {status:?} {}",
            child.stderr()
        );
        let members: Vec<String> = server.cmd(&[b"ZRANGE", b"q:consumers", b"0", b"-1"]);
        assert!(
            members.is_empty(),
            "SIGTERM {delay_ms} ms in left {members:?}\n{}",
            child.stderr()
        );
        let held: Vec<String> = server.cmd(&[b"KEYS", b"q:inflight:*"]);
        assert!(held.is_empty(), "SIGTERM {delay_ms} ms in: {held:?}");
        assert_eq!(llen(&server, "q:active"), 5, "SIGTERM {delay_ms} ms in");
        runs += 1;
        before_start += usize::from(child.stderr().contains("before the consumer started"));
    }
    figure(&format!(
        "I14 SIGTERM 0 to 1.4 s into a consumer's start behind 30 ms of latency: {runs} runs, {before_start} before it started, none left an entry"
    ));
}
