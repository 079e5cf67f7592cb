//! `qctl consume` against real redis-servers and real handler processes.

mod support;

use std::time::Duration;

use qctl::engine::failure::Failure;
use qctl::engine::Job;
use support::{enqueue, qctl, signal, spawn_consumer, wait_until, RedisServer, FAST};

fn record(server: &RedisServer, queue: &str, id: &str) -> Option<Job> {
    server
        .hget_bytes(&format!("{queue}:data"), id)
        .map(|b| Job::decode(&b).expect("a readable record"))
}

fn failure(server: &RedisServer, queue: &str, id: &str) -> Option<Failure> {
    server
        .hget_bytes(&format!("{queue}:failures"), id)
        .and_then(|b| Failure::from_json(&b))
}

/// The events of `consume --json`: every stdout line is one JSON object.
fn json_events_of(stdout: &[u8]) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("every stdout line is JSON"))
        .collect()
}

fn alive(pid: i32) -> bool {
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None).is_ok()
}

#[test]
fn a_successful_job_is_acked_and_its_record_deleted() {
    let server = RedisServer::start();
    enqueue(&server, "q", "j1", b"hello");
    qctl(&server)
        .args(["consume", "q", "--drain", "-c", "1"])
        .args(FAST)
        .args(["--", "cat"])
        .assert()
        .success()
        .stdout("hello\n");
    assert_eq!(server.hget_bytes("q:data", "j1"), None);
    assert!(server.lrange("q:active").is_empty());
    assert_eq!(
        server.key_type("q:consumers"),
        "none",
        "a clean exit deregisters"
    );
}

#[test]
fn a_failing_job_is_retried_with_attempt_plus_one_then_killed_after_max_retries() {
    let server = RedisServer::start();
    enqueue(&server, "q", "bad", b"x");
    let out = qctl(&server)
        .args(["consume", "q", "--drain", "-c", "1", "--max-retries", "2"])
        .args(FAST)
        .args([
            "--",
            "sh",
            "-c",
            "echo attempt $QCTL_JOB_ATTEMPT; echo oops >&2; exit 3",
        ])
        .assert()
        .code(7)
        .get_output()
        .clone();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        stdout, "attempt 0\nattempt 1\nattempt 2\n",
        "runs max-retries + 1 times"
    );
    let dead = server.zrange_withscores("q:dead");
    assert_eq!(dead.len(), 1);
    assert_eq!(dead[0].0, "bad");
    assert_eq!(record(&server, "q", "bad").unwrap().attempt, 3);
    let f = failure(&server, "q", "bad").expect("the failure is recorded");
    assert_eq!(f.reason, "exit 3");
    assert_eq!(f.exit_code, Some(3));
    assert_eq!(f.attempt, 2);
    assert!(f.stderr.contains("oops"));
    assert!(server.zrange_withscores("q:scheduled").is_empty());
}

#[test]
fn a_failure_schedules_the_retry_with_the_record_rewritten() {
    let server = RedisServer::start();
    enqueue(&server, "q", "r", b"x");
    qctl(&server)
        .args([
            "consume",
            "q",
            "--max-jobs",
            "1",
            "-c",
            "1",
            "--poll-interval",
            "200ms",
        ])
        .args(["--", "false"])
        .assert()
        .code(7);
    let scheduled = server.zrange_withscores("q:scheduled");
    assert_eq!(scheduled.len(), 1);
    let now = qctl::engine::now();
    assert!(
        scheduled[0].1 > now - 5.0 && scheduled[0].1 <= now + 1.0,
        "attempt 0 retries within 1 s"
    );
    assert_eq!(record(&server, "q", "r").unwrap().attempt, 1);
    assert_eq!(failure(&server, "q", "r").unwrap().exit_code, Some(1));
}

#[test]
fn a_timeout_kills_the_whole_process_group() {
    let server = RedisServer::start();
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("pid");
    enqueue(&server, "q", "slow", b"");
    let script = format!("sleep 1000 & echo $! > {}; sleep 1000", pidfile.display());
    qctl(&server)
        .args([
            "consume",
            "q",
            "--drain",
            "--max-retries",
            "0",
            "--timeout",
            "500ms",
            "--kill-after",
            "500ms",
        ])
        .args(FAST)
        .args(["--", "sh", "-c", &script])
        .timeout(Duration::from_secs(30))
        .assert()
        .code(7);
    let f = failure(&server, "q", "slow").expect("failure recorded");
    assert_eq!(f.reason, "timeout");
    assert!(f.timed_out);
    let pid: i32 = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(
        wait_until(Duration::from_secs(3), || !alive(pid)),
        "the background sleep {pid} outlived its job"
    );
}

#[test]
fn sigterm_mid_job_returns_the_job_with_attempt_unchanged() {
    let server = RedisServer::start();
    enqueue(&server, "q", "long", b"");
    let mut child = spawn_consumer(
        &server,
        &[
            "q",
            "--shutdown-grace",
            "300ms",
            "--poll-interval",
            "200ms",
            "--",
            "sleep",
            "30",
        ],
    );
    assert!(
        wait_until(Duration::from_secs(10), || server
            .hget_bytes("q:data", "long")
            .is_some()
            && server.lrange("q:active").is_empty()),
        "the job was reserved"
    );
    std::thread::sleep(Duration::from_millis(300));
    signal(&child, nix::sys::signal::Signal::SIGTERM);
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0), "a signalled consumer exits cleanly");
    assert_eq!(server.lrange("q:active"), vec!["long".to_string()]);
    assert_eq!(record(&server, "q", "long").unwrap().attempt, 0);
    assert_eq!(failure(&server, "q", "long"), None);
    assert_eq!(server.key_type("q:consumers"), "none");
}

#[test]
fn drain_waits_for_a_killed_consumers_jobs_and_recovers_them_after_the_cutoff() {
    let server = RedisServer::start();
    enqueue(&server, "q", "orphan", b"");
    let mut first = spawn_consumer(
        &server,
        &[
            "q",
            "--heartbeat",
            "1s",
            "--orphan-after",
            "3s",
            "--poll-interval",
            "200ms",
            "--",
            "sleep",
            "30",
        ],
    );
    assert!(wait_until(Duration::from_secs(10), || server
        .lrange("q:active")
        .is_empty()));
    signal(&first, nix::sys::signal::Signal::SIGKILL);
    let _ = first.wait();
    assert_eq!(
        server.zrange_withscores("q:consumers").len(),
        1,
        "a killed consumer stays registered"
    );
    let killed_at = std::time::Instant::now();
    // A draining consumer started right away must neither steal the job from a consumer
    // that may be alive nor call the queue drained while it is held: it waits, recovers it
    // once the killed consumer's heartbeat is older than the cut-off, and runs it.
    let out = qctl(&server)
        .args(["consume", "q", "--drain"])
        .args(FAST)
        .args(["--", "true"])
        .assert()
        .success()
        .get_output()
        .clone();
    let waited = killed_at.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("waiting for 1 job in flight at other consumers"),
        "{stderr}"
    );
    assert!(
        stderr.contains("recovered 1 job of expired consumer"),
        "{stderr}"
    );
    // The last heartbeat was at most 1 s before the kill; the cut-off is 3 s.
    assert!(
        waited >= Duration::from_millis(1900),
        "recovered too early: {waited:?}"
    );
    assert_eq!(
        server.hget_bytes("q:data", "orphan"),
        None,
        "the orphan ran and was acked"
    );
    assert_eq!(server.key_type("q:consumers"), "none");
}

#[test]
fn a_damaged_record_goes_dead_with_its_reason_while_the_rest_of_the_batch_runs() {
    let server = RedisServer::start();
    enqueue(&server, "q", "good1", b"a");
    let _: () = server.cmd(&[b"HSET", b"q:data", b"broken", b"not msgpack at all"]);
    let _: () = server.cmd(&[b"RPUSH", b"q:active", b"broken", b"missing"]);
    enqueue(&server, "q", "good2", b"b");
    qctl(&server)
        .args(["consume", "q", "--drain", "-c", "2"])
        .args(FAST)
        .args(["--", "cat"])
        .assert()
        .code(7);
    assert_eq!(server.hget_bytes("q:data", "good1"), None);
    assert_eq!(server.hget_bytes("q:data", "good2"), None);
    let dead: Vec<String> = server
        .zrange_withscores("q:dead")
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    assert_eq!(dead.len(), 2);
    assert!(dead.contains(&"broken".to_string()) && dead.contains(&"missing".to_string()));
    assert!(failure(&server, "q", "broken")
        .unwrap()
        .reason
        .starts_with("damaged"));
    assert!(failure(&server, "q", "missing")
        .unwrap()
        .reason
        .contains("no record"));
    assert_eq!(
        server.hget_bytes("q:data", "broken").unwrap(),
        b"not msgpack at all",
        "kept for inspection"
    );
    let inflight: Vec<String> = server.cmd(&[b"KEYS", b"q:inflight:*"]);
    assert!(inflight.is_empty(), "nothing stays in flight");
}

#[test]
fn a_job_in_active_without_a_signal_still_runs() {
    let server = RedisServer::start();
    let mut child = spawn_consumer(&server, &["q", "--poll-interval", "300ms", "--", "true"]);
    assert!(wait_until(Duration::from_secs(10), || server
        .zrange_withscores("q:consumers")
        .len()
        == 1));
    std::thread::sleep(Duration::from_millis(500));
    let record = Job::new("quiet", Some(b"x".to_vec())).encode();
    let mut con = server.conn();
    let _: () = redis::cmd("HSET")
        .arg("q:data")
        .arg("quiet")
        .arg(record)
        .query(&mut con)
        .unwrap();
    let _: () = redis::cmd("RPUSH")
        .arg("q:active")
        .arg("quiet")
        .query(&mut con)
        .unwrap();
    assert_eq!(server.key_type("q:signal"), "none");
    let ran = wait_until(Duration::from_secs(5), || {
        server.hget_bytes("q:data", "quiet").is_none()
    });
    signal(&child, nix::sys::signal::Signal::SIGTERM);
    let _ = child.wait();
    assert!(ran, "a job without a wake-up signal was not picked up");
}

#[test]
fn data_with_all_256_byte_values_reaches_the_handler_intact() {
    let server = RedisServer::start();
    let data: Vec<u8> = (0..=255u8).collect();
    enqueue(&server, "q", "bin", &data);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    qctl(&server)
        .args(["consume", "q", "--drain"])
        .args(FAST)
        .args(["--", "sh", "-c", &format!("cat > {}", out.display())])
        .assert()
        .success();
    assert_eq!(std::fs::read(&out).unwrap(), data);
}

#[test]
fn shell_syntax_in_data_id_or_args_never_executes() {
    let server = RedisServer::start();
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("x");
    let payload = format!("$(touch {})", marker.display());
    enqueue(
        &server,
        "q",
        &format!("`touch {}`", marker.display()),
        payload.as_bytes(),
    );
    let out = qctl(&server)
        .args(["consume", "q", "--drain", "--replace", "{}"])
        .args(FAST)
        .args([
            "--",
            "echo",
            "{}",
            &format!("$(touch {})", marker.display()),
        ])
        .assert()
        .success()
        .get_output()
        .clone();
    assert!(String::from_utf8_lossy(&out.stdout).contains(&payload));
    assert!(!marker.exists(), "something ran a shell");
}

#[test]
fn a_paused_queue_reserves_nothing_until_resumed() {
    let server = RedisServer::start();
    enqueue(&server, "q", "p", b"");
    let _: () = server.cmd(&[b"SET", b"q:paused", b"1"]);
    let mut child = spawn_consumer(&server, &["q", "--poll-interval", "200ms", "--", "true"]);
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(
        server.lrange("q:active"),
        vec!["p".to_string()],
        "a paused queue gave out a job"
    );
    let _: () = server.cmd(&[b"DEL", b"q:paused"]);
    let ran = wait_until(Duration::from_secs(5), || {
        server.hget_bytes("q:data", "p").is_none()
    });
    signal(&child, nix::sys::signal::Signal::SIGTERM);
    let _ = child.wait();
    assert!(ran, "the job did not run after resume");
}

#[test]
fn drain_exits_zero_when_all_pass_and_seven_when_any_fails() {
    let server = RedisServer::start();
    for i in 0..3 {
        enqueue(&server, "ok", &format!("j{i}"), b"0");
    }
    qctl(&server)
        .args(["consume", "ok", "--drain"])
        .args(FAST)
        .args(["--", "true"])
        .assert()
        .success();
    enqueue(&server, "mixed", "pass", b"0");
    enqueue(&server, "mixed", "fail", b"1");
    qctl(&server)
        .args(["consume", "mixed", "--drain", "--max-retries", "0"])
        .args(FAST)
        .args(["--", "sh", "-c", "read x; exit $x"])
        .assert()
        .code(7)
        .stderr(predicates::str::contains("succeeded 1"));
    // An empty queue drains at once.
    qctl(&server)
        .args(["consume", "empty", "--drain"])
        .args(FAST)
        .args(["--", "true"])
        .assert()
        .success();
}

#[test]
fn drain_says_how_long_the_retries_it_waits_for_can_take() {
    let server = RedisServer::start();
    // Fails on its first two runs: the drain waits for the retries (0.5 to 1 s, then 1 to
    // 2 s; the second is said at least) and ends 0.
    let flaky = [
        "sh",
        "-c",
        "cat >/dev/null; [ \"$QCTL_JOB_ATTEMPT\" -ge 2 ]",
    ];
    // The stderr of a drain of one such job.
    let drain = |queue: &str, retries: &str, backoff: &str| {
        enqueue(&server, queue, "j", b"0");
        let out = qctl(&server)
            .args(["consume", queue, "--drain", "--max-retries", retries])
            .args(FAST)
            .args(["--max-backoff", backoff])
            .arg("--")
            .args(flaky)
            .assert()
            .success()
            .get_output()
            .clone();
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let stderr = drain("long", "10", "2m");
    // 1 + 2 + ... + 64 + 3 * 120 s = 487 s, about 8 minutes.
    assert!(
        stderr.contains(
            "a job that keeps failing is retried 10 times over up to 8m: --max-retries and \
             --max-backoff bound that"
        ),
        "{stderr}"
    );
    // A bound of a minute or less goes unsaid.
    let stderr = drain("short", "3", "1s");
    assert!(stderr.contains("draining: waiting for 1 retry"), "{stderr}");
    assert!(!stderr.contains("keeps failing"), "{stderr}");
}

/// The count after `word` in a consumer's closing summary ("succeeded 3, ...").
fn summary_count(stderr: &[u8], word: &str) -> u64 {
    let text = String::from_utf8_lossy(stderr);
    let after = text
        .rsplit_once(&format!("{word} "))
        .unwrap_or_else(|| panic!("no {word:?} in the summary: {text}"))
        .1;
    let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().expect("a count")
}

#[test]
fn short_jobs_are_reserved_and_acked_in_batches_by_default() {
    let server = RedisServer::start();
    let jobs = 300u64;
    let lines: String = (0..jobs).map(|i| format!("{i}\n")).collect();
    qctl(&server)
        .args(["enqueue", "q", "--lines"])
        .write_stdin(lines)
        .assert()
        .success();
    let _: String = server.cmd(&[b"CONFIG", b"RESETSTAT"]);
    let out = qctl(&server)
        .args(["consume", "q", "--drain", "-c", "2"])
        .args(FAST)
        .args(["--", "true"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(summary_count(&out.stderr, "succeeded"), jobs);
    // Only the ack script runs SMISMEMBER (once a call), only the reserve script HMGET. One
    // of each per job would be 2 calls a job; batches must save at least a quarter of them
    // (about one call a job on an idle machine, 301 for 300 jobs seen with another test
    // run on the same two cores, when the handlers end further apart).
    let (acks, reserves) = (server.calls("smismember"), server.calls("hmget"));
    println!("{jobs} jobs: {acks} ack calls, {reserves} reservations");
    assert!(
        acks + reserves <= jobs * 3 / 2,
        "{acks} ack calls and {reserves} reservations for {jobs} jobs"
    );
}

#[test]
fn a_consumer_of_long_jobs_leaves_what_it_cannot_start_soon_to_others() {
    let server = RedisServer::start();
    for i in 0..6 {
        enqueue(&server, "q", &format!("j{i}"), b"");
    }
    let args = ["q", "--drain", "-c", "1"];
    let handler = ["--", "sleep", "0.3"];
    let first = spawn_consumer(&server, &[&args[..], FAST, &handler[..]].concat());
    // It takes one job to run and one to start next, and no more.
    assert!(wait_until(Duration::from_secs(10), || server
        .lrange("q:active")
        .len()
        <= 4));
    let second = qctl(&server)
        .arg("consume")
        .args(args)
        .args(FAST)
        .args(handler)
        .output()
        .unwrap();
    let first = first.wait_with_output().unwrap();
    assert!(first.status.success(), "{first:?}");
    assert!(second.status.success(), "{second:?}");
    let (a, b) = (
        summary_count(&first.stderr, "succeeded"),
        summary_count(&second.stderr, "succeeded"),
    );
    assert_eq!(a + b, 6);
    assert!(b >= 2, "the consumer that came second ran {b} of 6 jobs");
}

#[test]
fn a_missing_command_is_refused_before_any_job_is_reserved() {
    let server = RedisServer::start();
    enqueue(&server, "q", "j", b"");
    let before = server.dump_all();
    qctl(&server)
        .args(["consume", "q", "--drain", "--", "no-such-command-qctl"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("no-such-command-qctl"));
    assert_eq!(server.dump_all(), before);
}

#[test]
fn json_mode_prints_one_event_per_line_and_a_summary() {
    let server = RedisServer::start();
    enqueue(&server, "q", "j", b"hi");
    let out = qctl(&server)
        .args(["--json", "consume", "q", "--drain"])
        .args(FAST)
        .args(["--", "cat"])
        .assert()
        .success()
        .get_output()
        .clone();
    let events = json_events_of(&out.stdout);
    let kinds: Vec<&str> = events
        .iter()
        .map(|e| e["event"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["reserved", "started", "succeeded", "summary"]);
    assert_eq!(events[2]["id"], "j");
    assert_eq!(events[3]["succeeded"], 1);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("hi"),
        "handler stdout goes to stderr with --json"
    );
}

#[test]
fn sigusr1_prints_each_loop_state_the_running_jobs_and_the_counts() {
    let server = RedisServer::start();
    enqueue(&server, "q", "busy", b"");
    let child = spawn_consumer(
        &server,
        &[
            "q",
            "--shutdown-grace",
            "200ms",
            "--poll-interval",
            "200ms",
            "--",
            "sleep",
            "30",
        ],
    );
    assert!(wait_until(Duration::from_secs(10), || server
        .lrange("q:active")
        .is_empty()));
    std::thread::sleep(Duration::from_millis(300));
    signal(&child, nix::sys::signal::Signal::SIGUSR1);
    std::thread::sleep(Duration::from_millis(300));
    signal(&child, nix::sys::signal::Signal::SIGTERM);
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("status:"), "{stderr}");
    for name in ["heartbeat", "scheduler", "custodian", "poller", "processor"] {
        assert!(stderr.contains(name), "no state for {name}: {stderr}");
    }
    assert!(stderr.contains("running busy (run 1)"), "{stderr}");
    assert!(stderr.contains("so far: ran 0"), "{stderr}");
}

#[test]
fn prefix_marks_every_whole_line_and_the_environment_names_the_job() {
    let server = RedisServer::start();
    for i in 0..4 {
        enqueue(&server, "q", &format!("j{i}"), b"");
    }
    let script = "for n in 1 2 3 4 5 6 7 8 9 10; do echo \"$QCTL_QUEUE $QCTL_JOB_ID $QCTL_JOB_ATTEMPT ${#QCTL_CONSUMER_ID} line $n\"; done; printf 'no newline'";
    let out = qctl(&server)
        .args(["consume", "q", "--drain", "-c", "4", "--prefix"])
        .args(FAST)
        .args(["--", "sh", "-c", script])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4 * 11, "{text}");
    for line in lines {
        let (prefix, rest) = line.split_once("] ").expect("every line is prefixed");
        let id = prefix.strip_prefix('[').unwrap();
        if rest == "no newline" {
            continue;
        }
        assert!(rest.starts_with(&format!("q {id} 0 36 line ")), "{line}");
    }
}

// The consumer's behaviour in both modes: a handler per job, and `--pipe` handlers. Each
// scenario runs once per mode with the same data-driven handler (tests/support/handlers.rs).

use support::handlers::{Handlers, Mode};

macro_rules! both_modes {
    ($($name:ident),* $(,)?) => {
        mod per_job {
            $(#[test] fn $name() { super::$name(super::Mode::PerJob) })*
        }
        mod pipe {
            $(#[test] fn $name() { super::$name(super::Mode::Pipe) })*
        }
    };
}

both_modes!(
    success_acks,
    failures_retry_then_kill,
    sigterm_returns_a_running_job_unchanged,
    sigterm_lets_a_short_job_finish,
    drain_exit_codes,
    json_events,
    pause_holds_jobs,
    timeout_fails_the_job,
);

fn success_acks(mode: Mode) {
    let server = RedisServer::start();
    let h = Handlers::new();
    enqueue(&server, "q", "j1", b"ok");
    enqueue(&server, "q", "j2", b"ok");
    qctl(&server)
        .args(["consume", "q", "--drain", "-c", "2"])
        .args(FAST)
        .args(h.args(mode))
        .assert()
        .success()
        .stderr(predicates::str::contains("succeeded 2"));
    assert_eq!(server.hget_bytes("q:data", "j1"), None);
    assert_eq!(server.hget_bytes("q:data", "j2"), None);
    assert!(server.lrange("q:active").is_empty());
    assert_eq!(server.key_type("q:consumers"), "none");
}

fn failures_retry_then_kill(mode: Mode) {
    let server = RedisServer::start();
    let h = Handlers::new();
    enqueue(&server, "q", "bad", b"fail");
    let out = qctl(&server)
        .args(["consume", "q", "--drain", "-c", "1", "--max-retries", "2"])
        .args(FAST)
        .args(h.args(mode))
        .assert()
        .code(7)
        .get_output()
        .clone();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let runs: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("attempt "))
        .collect();
    assert_eq!(runs, ["attempt 0", "attempt 1", "attempt 2"], "{stderr}");
    let dead = server.zrange_withscores("q:dead");
    assert_eq!(dead.len(), 1);
    assert_eq!(record(&server, "q", "bad").unwrap().attempt, 3);
    let f = failure(&server, "q", "bad").expect("the failure is recorded");
    match mode {
        Mode::PerJob => {
            assert_eq!(f.reason, "exit 3");
            assert_eq!(f.exit_code, Some(3));
        }
        Mode::Pipe => {
            assert_eq!(f.reason, "oops");
            assert_eq!(f.exit_code, None);
        }
    }
    assert_eq!(f.attempt, 2);
    assert!(f.stderr.contains("oops"), "{:?}", f.stderr);
}

fn sigterm_returns_a_running_job_unchanged(mode: Mode) {
    let server = RedisServer::start();
    let h = Handlers::new();
    enqueue(&server, "q", "long", b"sleep 30");
    let mut args = vec!["q", "--shutdown-grace", "300ms", "--kill-after", "1s"];
    args.extend(FAST);
    let rest = h.args(mode);
    args.extend(rest.iter().map(String::as_str));
    let mut child = spawn_consumer(&server, &args);
    assert!(
        wait_until(Duration::from_secs(10), || server
            .lrange("q:active")
            .is_empty()),
        "the job was reserved"
    );
    std::thread::sleep(Duration::from_millis(500));
    signal(&child, nix::sys::signal::Signal::SIGTERM);
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0), "a signalled consumer exits cleanly");
    assert_eq!(server.lrange("q:active"), vec!["long".to_string()]);
    assert_eq!(record(&server, "q", "long").unwrap().attempt, 0);
    assert_eq!(failure(&server, "q", "long"), None);
    assert_eq!(server.key_type("q:consumers"), "none");
}

fn sigterm_lets_a_short_job_finish(mode: Mode) {
    let server = RedisServer::start();
    let h = Handlers::new();
    enqueue(&server, "q", "short", b"sleep 1");
    let mut args = vec!["q", "--shutdown-grace", "20s"];
    args.extend(FAST);
    let rest = h.args(mode);
    args.extend(rest.iter().map(String::as_str));
    let mut child = spawn_consumer(&server, &args);
    assert!(wait_until(Duration::from_secs(10), || server
        .lrange("q:active")
        .is_empty()));
    std::thread::sleep(Duration::from_millis(200));
    signal(&child, nix::sys::signal::Signal::SIGTERM);
    assert_eq!(child.wait().unwrap().code(), Some(0));
    assert_eq!(
        server.hget_bytes("q:data", "short"),
        None,
        "it finished and was acked"
    );
    assert!(server.lrange("q:active").is_empty());
    assert_eq!(server.key_type("q:consumers"), "none");
}

fn drain_exit_codes(mode: Mode) {
    let server = RedisServer::start();
    let h = Handlers::new();
    for i in 0..3 {
        enqueue(&server, "ok", &format!("j{i}"), b"ok");
    }
    qctl(&server)
        .args(["consume", "ok", "--drain"])
        .args(FAST)
        .args(h.args(mode))
        .assert()
        .success();
    enqueue(&server, "mixed", "pass", b"ok");
    enqueue(&server, "mixed", "fail", b"fail");
    qctl(&server)
        .args(["consume", "mixed", "--drain", "--max-retries", "0"])
        .args(FAST)
        .args(h.args(mode))
        .assert()
        .code(7)
        .stderr(predicates::str::contains("succeeded 1"));
    qctl(&server)
        .args(["consume", "empty", "--drain"])
        .args(FAST)
        .args(h.args(mode))
        .assert()
        .success();
}

fn json_events(mode: Mode) {
    let server = RedisServer::start();
    let h = Handlers::new();
    enqueue(&server, "q", "j", b"ok");
    let out = qctl(&server)
        .args(["--json", "consume", "q", "--drain"])
        .args(FAST)
        .args(h.args(mode))
        .assert()
        .success()
        .get_output()
        .clone();
    let events = json_events_of(&out.stdout);
    let kinds: Vec<&str> = events
        .iter()
        .map(|e| e["event"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["reserved", "started", "succeeded", "summary"]);
    assert_eq!(events[2]["id"], "j");
}

fn pause_holds_jobs(mode: Mode) {
    let server = RedisServer::start();
    let h = Handlers::new();
    enqueue(&server, "q", "p", b"ok");
    let _: () = server.cmd(&[b"SET", b"q:paused", b"1"]);
    let mut args = vec!["q", "--poll-interval", "200ms"];
    let rest = h.args(mode);
    args.extend(rest.iter().map(String::as_str));
    let mut child = spawn_consumer(&server, &args);
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(server.lrange("q:active"), vec!["p".to_string()]);
    let _: () = server.cmd(&[b"DEL", b"q:paused"]);
    let ran = wait_until(Duration::from_secs(5), || {
        server.hget_bytes("q:data", "p").is_none()
    });
    signal(&child, nix::sys::signal::Signal::SIGTERM);
    let _ = child.wait();
    assert!(ran, "the job did not run after resume");
}

fn timeout_fails_the_job(mode: Mode) {
    let server = RedisServer::start();
    let h = Handlers::new();
    enqueue(&server, "q", "slow", b"sleep 30");
    let started = std::time::Instant::now();
    qctl(&server)
        .args(["consume", "q", "--drain", "--max-retries", "0"])
        .args(["--timeout", "500ms", "--kill-after", "500ms"])
        .args(FAST)
        .args(h.args(mode))
        .timeout(Duration::from_secs(30))
        .assert()
        .code(7);
    assert!(started.elapsed() < Duration::from_secs(15));
    let f = failure(&server, "q", "slow").expect("failure recorded");
    assert_eq!(f.reason, "timeout");
    assert!(f.timed_out);
}

/// `n` jobs `PREFIX0..` on `queue`, enqueued in one call.
fn fill(server: &RedisServer, queue: &str, prefix: &str, n: usize) {
    let lines: String = (0..n)
        .map(|i| format!("{{\"id\":\"{prefix}{i}\",\"data\":\"x\"}}\n"))
        .collect();
    qctl(server)
        .args(["enqueue", queue, "--jsonl"])
        .write_stdin(lines)
        .assert()
        .success();
}

/// Several queues in strict order: while both are full, every job of the first starts before
/// any of the second; the handler is told its job's queue; the closing lines and `--json`
/// count per queue and in all.
#[test]
fn several_queues_are_taken_strictly_in_the_order_given() {
    let server = RedisServer::start();
    fill(&server, "high", "h", 40);
    fill(&server, "low", "l", 40);
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("starts");
    let out = qctl(&server)
        .args([
            "--json", "consume", "high", "low", "--drain", "-c", "1", "--",
        ])
        .args(["sh", "-c", r#"echo "$QCTL_QUEUE $QCTL_JOB_ID" >> "$0""#])
        .arg(&log)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("high: ran 40, succeeded 40"), "{stderr}");
    assert!(stderr.contains("low: ran 40, succeeded 40"), "{stderr}");
    assert!(
        stderr.contains("all queues: ran 80, succeeded 80"),
        "{stderr}"
    );
    let order: Vec<String> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    let mut summaries = Vec::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("JSON lines");
        match v["event"].as_str() {
            Some("summary") => summaries.push((v["queue"].clone(), v["ran"].clone())),
            Some("total") => assert_eq!(v["ran"], 80),
            _ => {}
        }
    }
    assert_eq!(
        summaries,
        [
            (serde_json::json!("high"), serde_json::json!(40)),
            (serde_json::json!("low"), serde_json::json!(40))
        ]
    );
    assert_eq!(order.len(), 80, "{order:?}");
    let first_low = order.iter().position(|l| l.starts_with("low ")).unwrap();
    let last_high = order.iter().rposition(|l| l.starts_with("high ")).unwrap();
    assert!(last_high < first_low, "{order:?}");
    // Each queue kept its own keys: nothing left anywhere.
    for q in ["high", "low"] {
        let n: u64 = server.cmd(&[b"HLEN", format!("{q}:data").as_bytes()]);
        assert_eq!(n, 0);
    }
}

/// `--weights 3,1` shares the starts 3:1 while both queues have work (here 20,000 jobs each,
/// through `--pipe`, whose job line names the queue), and the lighter queue is not starved.
#[test]
fn weights_share_the_starts_between_queues_while_both_have_work() {
    let server = RedisServer::start();
    fill(&server, "a", "a", 20_000);
    fill(&server, "b", "b", 20_000);
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("starts");
    let script = dir.path().join("h.py");
    std::fs::write(
        &script,
        "import json, sys\n\
         log = open(sys.argv[1], 'a')\n\
         for line in sys.stdin:\n\
         \x20   job = json.loads(line)\n\
         \x20   log.write(job['queue'] + '\\n')\n\
         \x20   sys.stdout.write(json.dumps({'id': job['id'], 'ok': True}) + '\\n')\n\
         \x20   sys.stdout.flush()\n",
    )
    .unwrap();
    let out = qctl(&server)
        .args([
            "consume",
            "a",
            "b",
            "--weights",
            "3,1",
            "--drain",
            "-c",
            "2",
            "--pipe",
        ])
        .args([
            "--",
            "python3",
            script.to_str().unwrap(),
            log.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let starts = std::fs::read_to_string(&log).unwrap();
    let starts: Vec<&str> = starts.lines().collect();
    assert_eq!(starts.len(), 40_000);
    // While both have work: the first 24,000 starts (a has 20,000, at 3 in 4 of the starts
    // it lasts 26,667).
    let a = starts[..24_000].iter().filter(|q| **q == "a").count() as f64;
    let share = a / 24_000.0;
    assert!(
        (share - 0.75).abs() < 0.03,
        "a had {share:.3} of the starts"
    );
}

#[test]
fn weights_must_be_one_per_queue_and_max_jobs_takes_one_queue() {
    let server = RedisServer::start();
    let out = qctl(&server)
        .args(["consume", "a", "b", "--weights", "3", "--", "true"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--weights gives 1 weights for 2 queues"));
    let out = qctl(&server)
        .args(["consume", "a", "b", "--max-jobs", "3", "--", "true"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--max-jobs takes one queue"));
    let out = qctl(&server)
        .args(["consume", "a", "a", "--", "true"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// A consumer of several queues leaves a Go CurlyQ consumer of one of them alone: its job and
/// its entry stay as they were while every other job of both queues runs.
#[test]
fn several_queues_leave_a_go_consumer_of_one_of_them_alone() {
    let server = RedisServer::start();
    fill(&server, "high", "h", 5);
    fill(&server, "low", "l", 5);
    enqueue(&server, "low", "go-held", b"g");
    let go = "low:inflight:0a0b0c0d-0000-4000-8000-000000000000";
    let _: i64 = server.cmd(&[b"LREM", b"low:active", b"0", b"go-held"]);
    let _: i64 = server.cmd(&[b"SADD", go.as_bytes(), b"go-held"]);
    let now = format!("{}", qctl::engine::now());
    let _: i64 = server.cmd(&[b"ZADD", b"low:consumers", now.as_bytes(), go.as_bytes()]);
    let mut cmd = support::qctl_process(&server);
    cmd.args([
        "consume",
        "high",
        "low",
        "-c",
        "2",
        "--poll-interval",
        "200ms",
    ])
    .args(["--", "true"]);
    let mut consumer = support::Background::spawn(cmd);
    let left = |q: &str| -> u64 { server.cmd(&[b"HLEN", format!("{q}:data").as_bytes()]) };
    assert!(
        wait_until(Duration::from_secs(30), || left("high") == 0
            && left("low") == 1),
        "{}",
        consumer.stderr()
    );
    let status = consumer.stop(Duration::from_secs(30));
    assert_eq!(
        status.and_then(|s| s.code()),
        Some(0),
        "{}",
        consumer.stderr()
    );
    assert_eq!(server.smembers(go), ["go-held"]);
    let members: Vec<String> = server.cmd(&[b"ZRANGE", b"low:consumers", b"0", b"-1"]);
    assert_eq!(members, [go]);
}
