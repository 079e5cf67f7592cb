//! `qctl consume --pipe`: what only long-lived handlers can do wrong, and pipelining. The
//! scenarios shared with per-job mode run in both modes in tests/consume.rs.

mod support;

use std::time::{Duration, Instant};

use nix::sys::signal::Signal;
use qctl::engine::failure::Failure;
use support::handlers::{Handlers, Mode};
use support::judge::{Class, End, Enqueue, History, Hit};
use support::ledger::{consumer, enqueue_numbered, repeated, tally, Ledger};
use support::{
    consumer_keys, enqueue, group_running, pending, qctl, signal, spawn_consumer, wait_until,
    RedisServer, FAST,
};

fn failure(server: &RedisServer, queue: &str, id: &str) -> Option<Failure> {
    server
        .hget_bytes(&format!("{queue}:failures"), id)
        .and_then(|b| Failure::from_json(&b))
}

/// `consume q --drain --max-retries 0 [EXTRA] --pipe -- python3 pipe.py`, exit code 7.
fn drain_failing(server: &RedisServer, h: &Handlers, extra: &[&str]) -> String {
    let out = qctl(server)
        .args(["consume", "q", "--drain", "--max-retries", "0", "-c", "1"])
        .args(extra)
        .args(FAST)
        .args(h.args(Mode::Pipe))
        .env("PIPE_OUT", h.file("out"))
        .timeout(Duration::from_secs(60))
        .assert()
        .code(7)
        .get_output()
        .clone();
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_reply_that_is_not_json_fails_the_job_with_the_line_number_and_quotes_it() {
    let server = RedisServer::start();
    let h = Handlers::new();
    enqueue(&server, "q", "g", b"garbage");
    drain_failing(&server, &h, &[]);
    let f = failure(&server, "q", "g").expect("recorded");
    assert!(
        f.reason.starts_with("invalid reply line 1: not JSON"),
        "{}",
        f.reason
    );
    assert!(f.reason.ends_with("this is not json"), "{}", f.reason);
    assert!(f.stderr.contains("attempt 0"), "{:?}", f.stderr);
}

#[test]
fn a_reply_for_an_unknown_id_fails_the_outstanding_job() {
    let server = RedisServer::start();
    let h = Handlers::new();
    enqueue(&server, "q", "u", b"unknown");
    drain_failing(&server, &h, &[]);
    let f = failure(&server, "q", "u").expect("recorded");
    assert!(
        f.reason.starts_with("unknown id in reply line 1: ") && f.reason.contains("no-such-job"),
        "{}",
        f.reason
    );
}

#[test]
fn a_handler_that_dies_fails_its_jobs_with_its_exit_code_and_is_restarted() {
    let server = RedisServer::start();
    let h = Handlers::new();
    enqueue(&server, "q", "a", b"pid");
    enqueue(&server, "q", "die", b"exit 3");
    enqueue(&server, "q", "b", b"pid");
    drain_failing(&server, &h, &[]);
    let f = failure(&server, "q", "die").expect("recorded");
    assert_eq!(f.reason, "handler exited 3");
    assert_eq!(f.exit_code, Some(3));
    assert!(f.stderr.contains("dying"), "{:?}", f.stderr);
    assert_eq!(server.hget_bytes("q:data", "a"), None);
    assert_eq!(
        server.hget_bytes("q:data", "b"),
        None,
        "the consumer went on"
    );
    let pids: Vec<String> = std::fs::read_to_string(h.file("out"))
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(pids.len(), 2);
    assert_ne!(
        pids[0], pids[1],
        "the job after the death ran in a new handler"
    );
}

/// The lines of `text` that report a handler restart.
fn restarts(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|l| l.contains("; restarting in "))
        .collect()
}

/// The pid in `... handler N (pid P) ...`.
fn pid_in(message: &str) -> i32 {
    let (_, rest) = message.split_once("(pid ").expect("a pid");
    rest.split_once(')')
        .expect("a pid")
        .0
        .parse()
        .expect("a pid")
}

#[test]
fn a_restarted_handler_is_reported_as_a_warning_and_as_a_json_event() {
    let server = RedisServer::start();
    let h = Handlers::new();
    // One handler: `a` runs in it and `die` kills it; `g` runs in the second, which answers
    // garbage (a second failure in a row: twice the wait); `b` runs in the third.
    enqueue(&server, "q", "a", b"pid");
    enqueue(&server, "q", "die", b"exit 3");
    enqueue(&server, "q", "g", b"garbage");
    enqueue(&server, "q", "b", b"pid");
    let stderr = drain_failing(&server, &h, &[]);
    let pids: Vec<i32> = std::fs::read_to_string(h.file("out"))
        .unwrap()
        .lines()
        .map(|l| l.parse().unwrap())
        .collect();
    assert_eq!(pids.len(), 2, "{stderr}");
    let said = restarts(&stderr);
    assert_eq!(
        said.len(),
        2,
        "one line per restart, none at the end: {stderr}"
    );
    assert_eq!(
        said[0],
        format!(
            "warning: handler 1 (pid {}) exited 3; restarting in 0.1s",
            pids[0]
        )
    );
    assert!(
        said[1].starts_with("warning: handler 1 (pid ")
            && said[1].contains(") stopped: invalid reply line 1: not JSON")
            && said[1].ends_with(": this is not json; restarting in 0.2s"),
        "{}",
        said[1]
    );
    let second = pid_in(said[1]);
    assert!(!pids.contains(&second), "{second} {pids:?}");

    // With --json: a `warning` event on stdout, and the same warning on stderr.
    enqueue(&server, "q", "die4", b"exit 4");
    let out = qctl(&server)
        .args([
            "--json",
            "consume",
            "q",
            "--drain",
            "--max-retries",
            "0",
            "-c",
            "1",
        ])
        .args(FAST)
        .args(h.args(Mode::Pipe))
        .timeout(Duration::from_secs(60))
        .assert()
        .code(7)
        .get_output()
        .clone();
    let warnings: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|e| e["event"] == "warning")
        .collect();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    let message = warnings[0]["message"].as_str().unwrap();
    assert!(
        message.starts_with("handler 1 (pid ")
            && message.ends_with(") exited 4; restarting in 0.1s"),
        "{message}"
    );
    assert!(warnings[0]["time"].as_f64().is_some(), "{:?}", warnings[0]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        restarts(&stderr),
        [format!("warning: {message}")],
        "{stderr}"
    );
}

#[test]
fn a_timeout_fails_the_job_stops_the_handler_and_the_next_job_runs_in_a_new_one() {
    let server = RedisServer::start();
    let h = Handlers::new();
    enqueue(&server, "q", "slow", b"sleep 30");
    enqueue(&server, "q", "next", b"pid");
    let started = Instant::now();
    // Long enough for the restarted handler to start and answer on a loaded machine: the
    // timeout counts from when a job is written, startup included.
    drain_failing(&server, &h, &["--timeout", "3s", "--kill-after", "500ms"]);
    assert!(started.elapsed() < Duration::from_secs(15));
    let f = failure(&server, "q", "slow").expect("recorded");
    assert_eq!(f.reason, "timeout");
    assert!(f.timed_out);
    assert_eq!(
        server.hget_bytes("q:data", "next"),
        None,
        "{:?}",
        failure(&server, "q", "next")
    );
}

#[test]
fn pipelined_jobs_are_matched_by_id_when_answered_out_of_order() {
    let server = RedisServer::start();
    let h = Handlers::new();
    // One handler with four outstanding jobs: the shortest sleeps answer first.
    for (id, secs) in [("d", "1.2"), ("c", "0.9"), ("b", "0.6"), ("a", "0.3")] {
        enqueue(&server, "q", id, format!("sleep {secs}").as_bytes());
    }
    let started = Instant::now();
    let out = qctl(&server)
        .args([
            "--json",
            "consume",
            "q",
            "--drain",
            "-c",
            "1",
            "--pipe-depth",
            "4",
        ])
        .args(FAST)
        .args(h.args(Mode::Pipe))
        .assert()
        .success()
        .get_output()
        .clone();
    let elapsed = started.elapsed();
    let done: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|e| e["event"] == "succeeded")
        .map(|e| e["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(done, ["a", "b", "c", "d"], "answers in the order they came");
    assert!(
        elapsed < Duration::from_millis(2900),
        "the jobs did not overlap: {elapsed:?}"
    );
    assert_eq!(server.hget_bytes("q:data", "d"), None);
}

#[test]
fn binary_data_goes_as_data_b64_and_arrives_intact() {
    let server = RedisServer::start();
    let h = Handlers::new();
    let data: Vec<u8> = (0..=255u8).collect();
    enqueue(&server, "q", "bin", &data);
    qctl(&server)
        .args(["consume", "q", "--drain"])
        .args(FAST)
        .args(h.args(Mode::Pipe))
        .env("PIPE_OUT", h.file("out"))
        .assert()
        .success();
    assert_eq!(std::fs::read(h.file("out")).unwrap(), data);
}

#[test]
fn a_failure_may_ask_for_its_retry_delay() {
    let server = RedisServer::start();
    let h = Handlers::new();
    enqueue(&server, "q", "r", b"retry 600");
    qctl(&server)
        .args(["consume", "q", "--max-jobs", "1", "-c", "1"])
        .args(["--poll-interval", "200ms"])
        .args(h.args(Mode::Pipe))
        .assert()
        .code(7);
    let scheduled = server.zrange_withscores("q:scheduled");
    assert_eq!(scheduled.len(), 1);
    let now = qctl::engine::now();
    assert!(
        scheduled[0].1 > now + 590.0 && scheduled[0].1 < now + 601.0,
        "{scheduled:?}"
    );
    assert_eq!(failure(&server, "q", "r").unwrap().reason, "later");
}

#[test]
fn pipe_handlers_never_see_the_redis_url_or_password() {
    let server = RedisServer::start();
    let h = Handlers::new();
    enqueue(&server, "q", "e", b"env");
    let url = server.url();
    qctl(&server)
        .args(["consume", "q", "--drain"])
        .args(FAST)
        .args(h.args(Mode::Pipe))
        .env("PIPE_OUT", h.file("out"))
        .env("QCTL_REDIS_URL", &url)
        .env("REDIS_URL", &url)
        .env("QCTL_TEST_KEPT", "kept")
        .assert()
        .success();
    let env = std::fs::read_to_string(h.file("out")).unwrap();
    // The same list as per job (WITHHELD_ENV); the password variables are left out here
    // because this server has no password.
    for name in ["QCTL_REDIS_URL=", "REDIS_URL="] {
        assert!(
            !env.lines().any(|l| l.starts_with(name)),
            "{name} reached the handler"
        );
    }
    assert!(env.lines().any(|l| l == "QCTL_QUEUE=q"), "{env}");
    assert!(env.lines().any(|l| l == "QCTL_TEST_KEPT=kept"), "{env}");
}

#[test]
fn sigterm_with_pipelined_jobs_finishes_them_and_loses_none() {
    let server = RedisServer::start();
    let h = Handlers::new();
    for i in 0..6 {
        enqueue(&server, "q", &format!("j{i}"), b"sleep 1");
    }
    let mut args = vec![
        "q",
        "-c",
        "1",
        "--pipe-depth",
        "3",
        "--buffer",
        "0",
        "--shutdown-grace",
        "20s",
    ];
    args.extend(FAST);
    let rest = h.args(Mode::Pipe);
    args.extend(rest.iter().map(String::as_str));
    let mut child = spawn_consumer(&server, &args);
    assert!(wait_until(Duration::from_secs(10), || server
        .lrange("q:active")
        .len()
        == 3));
    std::thread::sleep(Duration::from_millis(200));
    signal(&child, nix::sys::signal::Signal::SIGTERM);
    assert_eq!(child.wait().unwrap().code(), Some(0));
    let left = server.lrange("q:active");
    assert_eq!(
        left.len(),
        3,
        "the three outstanding jobs finished: {left:?}"
    );
    for i in 0..6 {
        let id = format!("j{i}");
        let acked = server.hget_bytes("q:data", &id).is_none();
        assert_eq!(
            acked,
            !left.contains(&id),
            "{id} neither acked nor returned"
        );
    }
    assert!(server.zrange_withscores("q:scheduled").is_empty());
    assert_eq!(server.key_type("q:consumers"), "none");
}

#[test]
fn pipe_conflicts_with_replace_and_prefix_and_depth_needs_pipe() {
    let server = RedisServer::start();
    for extra in [
        &["--pipe", "--prefix"][..],
        &["--pipe", "--replace", "{}"],
        &["--pipe-depth", "2"],
    ] {
        qctl(&server)
            .args(["consume", "q"])
            .args(extra)
            .args(["--", "true"])
            .assert()
            .code(2);
    }
}

#[test]
fn the_example_handlers_in_examples_work() {
    for (example, stderr) in [
        ("pipe-handler.py", "job j2: 3 bytes"),
        ("pipe-handler.sh", "3"),
    ] {
        let server = RedisServer::start();
        enqueue(&server, "q", "j1", b"hello");
        enqueue(&server, "q", "j2", b"\xff\x00\x01");
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/").to_string() + example;
        let out = qctl(&server)
            .args(["consume", "q", "--drain", "--pipe", "-c", "2"])
            .args(FAST)
            .args(["--", &path])
            .assert()
            .success()
            .get_output()
            .clone();
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(stderr),
            "{example}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(server.hget_bytes("q:data", "j1"), None, "{example}");
        assert_eq!(server.hget_bytes("q:data", "j2"), None, "{example}");
    }
}

#[test]
fn the_docs_show_the_example_handlers_as_they_are() {
    let root = env!("CARGO_MANIFEST_DIR");
    let page = std::fs::read_to_string(format!("{root}/docs/consume.md")).unwrap();
    for (file, lang) in [
        ("examples/pipe-handler.py", "python"),
        ("examples/pipe-handler.sh", "sh"),
    ] {
        let body = std::fs::read_to_string(format!("{root}/{file}")).unwrap();
        assert!(
            page.contains(&format!("```{lang}\n{body}```")),
            "docs/consume.md does not show {file} as it is"
        );
        assert!(body.lines().count() <= 14, "{file} grew");
    }
}

/// F1 with --pipe: a consumer SIGKILLed while its one handler holds four pipelined jobs (and
/// it has more reserved). Its handler's process group dies with it; another --pipe consumer
/// recovers every job it held after --orphan-after and runs them. Nothing is lost, and only
/// the jobs that were running in the killed consumer run twice.
#[test]
fn a_sigkilled_pipe_consumers_jobs_are_recovered_and_only_those_it_ran_run_twice() {
    let server = RedisServer::start();
    let ledger = Ledger::new();
    let ids = enqueue_numbered(&server, "q", "j", 12);
    let opts = ["-c", "1", "--pipe-depth", "4"];
    let mut victim = consumer(&server, Mode::Pipe, &opts, &ledger, Duration::from_secs(60));
    assert!(
        wait_until(Duration::from_secs(20), || ledger.runs().len() == 4),
        "the victim did not start four jobs: {:?}\n{}",
        ledger.runs(),
        victim.stderr()
    );
    let victim_key = consumer_keys(&server).remove(0);
    let ran = ledger.entries();
    let handler = ran[0].pid;
    assert!(
        ran.iter().all(|r| r.pid == handler),
        "all four outstanding on its one handler: {ran:?}"
    );
    let mut other = consumer(
        &server,
        Mode::Pipe,
        &["-c", "2", "--pipe-depth", "2"],
        &ledger,
        Duration::from_millis(20),
    );
    // The other consumer runs what the victim did not reserve.
    assert!(
        wait_until(Duration::from_secs(30), || server
            .lrange("q:active")
            .is_empty()
            && pending(&server) as usize == server.smembers(&victim_key).len()),
        "{}",
        other.stderr()
    );

    let killed_at = std::time::SystemTime::now();
    victim.signal(Signal::SIGKILL);
    victim
        .wait_timeout(Duration::from_secs(5))
        .expect("the victim dies");
    let held = server.smembers(&victim_key);
    assert!(held.len() >= 4, "{held:?}");
    let mut history = History::new();
    history.enqueued(&ids, Enqueue::Acknowledged).fault(
        "the SIGKILL",
        killed_at,
        Hit::Consumer {
            pid: victim.pid(),
            held: Some(held.clone()),
        },
    );
    let mut ran_in_victim: Vec<String> = ran.iter().map(|r| r.id.clone()).collect();
    ran_in_victim.sort();
    assert!(ran_in_victim.iter().all(|id| held.contains(id)));
    assert!(
        wait_until(Duration::from_secs(5), || !group_running(handler)),
        "the killed consumer's pipe handler (or its children) outlived it"
    );
    assert!(
        wait_until(Duration::from_secs(30), || !consumer_keys(&server)
            .contains(&victim_key)),
        "the killed consumer's jobs were never recovered"
    );
    assert!(
        wait_until(Duration::from_secs(30), || pending(&server) == 0),
        "jobs left unacked: {}",
        other.stderr()
    );
    assert_eq!(
        other.stop(Duration::from_secs(15)).and_then(|s| s.code()),
        Some(0),
        "{}",
        other.stderr()
    );
    assert!(other.stderr().contains("recovered"), "{}", other.stderr());
    let runs = ledger.runs();
    assert_eq!(tally(&ids, &runs).lost, 0, "{runs:?}");
    // Judged: the jobs it ran are duplicates the SIGKILL explains, those it held and had not
    // started are recovered, the rest ok.
    let verdict = history
        .ran(ledger.entries())
        .judge(&End::read(&server, "q"));
    verdict.check("F1 with --pipe");
    assert_eq!(verdict.ids(Class::Duplicated), ran_in_victim);
    assert_eq!(
        verdict.count(Class::Recovered),
        held.len() - ran_in_victim.len(),
        "{}",
        verdict.table()
    );
    assert_eq!(
        repeated(&runs),
        ran_in_victim,
        "exactly the jobs running in the killed consumer ran twice (it held {held:?})"
    );
    assert_eq!(runs.len(), ids.len() + ran_in_victim.len(), "{runs:?}");
    assert_eq!(
        consumer_keys(&server),
        Vec::<String>::new(),
        "everyone left"
    );
}

/// `consume q --drain --json [EXTRA] -- python3 pipe.py`: the `depth` events, as (handler,
/// depth) in order, and stdout and stderr.
fn drain_depths(server: &RedisServer, h: &Handlers, extra: &[&str]) -> (Vec<(u64, u64)>, String) {
    let out = qctl(server)
        .args(["--json", "consume", "q", "--drain"])
        .args(extra)
        .args(FAST)
        .args(h.args(Mode::Pipe))
        .env("PIPE_OUT", h.file("out"))
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let depths = stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|e| e["event"] == "depth")
        .map(|e| (e["handler"].as_u64().unwrap(), e["depth"].as_u64().unwrap()))
        .collect();
    let stderr = String::from_utf8_lossy(&out.stderr);
    (depths, format!("{stdout}\n{stderr}"))
}

/// Enqueues `n` jobs of data `ok`, ids f0...
fn enqueue_fast(server: &RedisServer, n: usize) {
    let lines: String = (0..n)
        .map(|i| format!("{{\"id\":\"f{i}\",\"data\":\"ok\"}}\n"))
        .collect();
    qctl(server)
        .args(["enqueue", "q", "--jsonl", "-q"])
        .write_stdin(lines)
        .assert()
        .success();
}

#[test]
fn the_automatic_depth_grows_under_fast_jobs_up_to_its_bound() {
    let server = RedisServer::start();
    let h = Handlers::new();
    enqueue_fast(&server, 2000);
    let (depths, out) = drain_depths(&server, &h, &["-c", "2"]);
    assert!(depths.iter().any(|&(_, d)| d > 1), "{out}");
    assert!(
        depths.iter().all(|&(n, d)| (1..=2).contains(&n) && d <= 64),
        "{depths:?}"
    );
    assert_eq!(server.key_type("q:data"), "none", "every job was acked");
}

#[test]
fn the_automatic_depth_falls_back_to_one_when_a_job_is_slow_and_times_out() {
    let server = RedisServer::start();
    let h = Handlers::new();
    enqueue_fast(&server, 400);
    enqueue(&server, "q", "slow", b"sleep 30");
    let opts = [
        "-c",
        "1",
        "--timeout",
        "1s",
        "--kill-after",
        "200ms",
        "--max-retries",
        "0",
    ];
    let (depths, out) = drain_depths(&server, &h, &opts);
    let top = depths.iter().position(|&(_, d)| d > 1).expect(&out);
    assert!(
        depths[top..].iter().any(|&(_, d)| d == 1),
        "never back to 1: {depths:?}"
    );
    assert_eq!(depths.last(), Some(&(1, 1)), "{depths:?}");
    let f = failure(&server, "q", "slow").expect("recorded");
    assert!(f.timed_out, "{out}");
}

/// A handler that runs one job at a time (`SECONDS` of sleep) and notes in $PIPE_OUT, as it
/// finishes each, whether another job had been written to it meanwhile (`queued ID`) or not
/// (`alone ID`).
const ONE_AT_A_TIME: &str = r#"import json, os, select, sys, time
buf = b""
while True:
    while b"\n" not in buf:
        chunk = os.read(0, 65536)
        if not chunk:
            sys.exit(0)
        buf += chunk
    line, buf = buf.split(b"\n", 1)
    job = json.loads(line)
    time.sleep(float(job["data"]))
    waiting = b"\n" in buf or select.select([0], [], [], 0)[0]
    with open(os.environ["PIPE_OUT"], "a") as f:
        f.write("%d %s %s\n" % (os.getpid(), "queued" if waiting else "alone", job["id"]))
    sys.stdout.write(json.dumps({"id": job["id"], "ok": True}) + "\n")
    sys.stdout.flush()
"#;

#[test]
fn slow_jobs_keep_the_automatic_depth_at_one_and_never_wait_behind_each_other() {
    let server = RedisServer::start();
    let h = Handlers::new();
    std::fs::write(h.file("one.py"), ONE_AT_A_TIME).unwrap();
    for i in 0..6 {
        enqueue(&server, "q", &format!("s{i}"), b"0.3");
    }
    let script = h.file("one.py").display().to_string();
    let out = qctl(&server)
        .args(["--json", "consume", "q", "--drain", "-c", "2", "--pipe"])
        .args(FAST)
        .args(["--", "python3", &script])
        .env("PIPE_OUT", h.file("out"))
        .timeout(Duration::from_secs(60))
        .assert()
        .success()
        .get_output()
        .clone();
    let notes = std::fs::read_to_string(h.file("out")).unwrap();
    assert_eq!(notes.lines().count(), 6, "{notes}");
    assert!(
        notes.lines().all(|l| l.split(' ').nth(1) == Some("alone")),
        "a job waited in a busy handler: {notes}"
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!stdout.contains("\"depth\""), "{stdout}");
    let pids: std::collections::BTreeSet<&str> =
        notes.lines().filter_map(|l| l.split(' ').next()).collect();
    assert_eq!(pids.len(), 2, "both handlers ran jobs: {notes}");
}

#[test]
fn consumers_show_the_depth_in_use_fixed_or_automatic() {
    let server = RedisServer::start();
    let h = Handlers::new();
    let handler = h.args(Mode::Pipe);
    let mut runs = Vec::new();
    for (depth, auto) in [(Some("3"), false), (None, true)] {
        let mut args = vec!["q", "-c", "2"];
        args.extend(FAST);
        if let Some(d) = depth {
            args.extend(["--pipe-depth", d]);
        }
        args.extend(handler.iter().map(String::as_str));
        runs.push((
            support::spawn_consumer_at(&server.url(), &args),
            depth,
            auto,
        ));
    }
    assert!(wait_until(Duration::from_secs(20), || consumer_keys(
        &server
    )
    .len()
        == 2));
    let listed = qctl(&server)
        .args(["consumers", "q", "--json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&listed).unwrap();
    let mut seen: Vec<(serde_json::Value, serde_json::Value, serde_json::Value)> = rows
        .iter()
        .map(|r| {
            (
                r["depth"].clone(),
                r["depth_auto"].clone(),
                r["concurrency"].clone(),
            )
        })
        .collect();
    seen.sort_by_key(|s| s.1.to_string());
    assert_eq!(
        seen,
        [
            (
                serde_json::json!([3, 3]),
                serde_json::json!(false),
                serde_json::json!(2)
            ),
            (
                serde_json::json!([1, 1]),
                serde_json::json!(true),
                serde_json::json!(2)
            ),
        ]
    );
    let text = qctl(&server)
        .args(["consumers", "q"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8_lossy(&text);
    assert!(text.contains("pipe, concurrency 2, depth 3, up"), "{text}");
    assert!(
        text.contains("pipe, concurrency 2, depth 1 (automatic), up"),
        "{text}"
    );
    for (mut c, ..) in runs {
        assert_eq!(
            c.stop(Duration::from_secs(15)).and_then(|s| s.code()),
            Some(0)
        );
    }
}

#[test]
fn a_fixed_pipe_depth_keeps_its_depth_under_fast_jobs() {
    let server = RedisServer::start();
    let h = Handlers::new();
    enqueue_fast(&server, 500);
    let (depths, out) = drain_depths(&server, &h, &["-c", "2", "--pipe-depth", "3"]);
    assert!(depths.is_empty(), "{depths:?}");
    assert!(out.contains("\"event\":\"summary\""), "{out}");
    assert_eq!(server.key_type("q:data"), "none", "every job was acked");
}
