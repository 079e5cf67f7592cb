//! F11: time is the Redis server's time. A consumer whose host clock steps after it started
//! (libfaketime) writes and judges heartbeats, retry and death scores by the server's clock
//! still, beside a consumer whose clock did not step; and a heartbeat no clock could have
//! written is named for what it is.

mod support;

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant, SystemTime};

use support::judge::{End, Enqueue, History};
use support::ledger::Run;
use support::{qctl, qctl_process, spawn_consumer_at, wait_until, Background, RedisServer, FAST};

/// libfaketime's preload library (Debian: package `faketime`), when it is installed.
fn libfaketime() -> Option<PathBuf> {
    let dirs = [
        "/usr/lib/x86_64-linux-gnu",
        "/usr/lib/aarch64-linux-gnu",
        "/usr/lib",
        "/usr/local/lib",
    ];
    dirs.iter()
        .map(|d| PathBuf::from(d).join("faketime/libfaketime.so.1"))
        .find(|p| p.is_file())
}

/// libfaketime, or None after a note when it is missing and not required (CI requires it:
/// QCTL_REQUIRE_FAKETIME).
fn libfaketime_or_skip(test: &str) -> Option<PathBuf> {
    let lib = libfaketime();
    if lib.is_none() {
        assert!(
            std::env::var_os("QCTL_REQUIRE_FAKETIME").is_none(),
            "libfaketime is not installed (apt-get install -y faketime) and QCTL_REQUIRE_FAKETIME is set"
        );
        eprintln!(
            "note: libfaketime is not installed (apt-get install -y faketime): {test} skipped"
        );
    }
    lib
}

/// What `command` needs to run with its wall clock set by `file` (`+180` is three minutes
/// ahead), read anew at every call, and its monotonic clock untouched, as in a real step.
fn faked(command: &mut Command, lib: &PathBuf, file: &PathBuf) {
    command
        .env("LD_PRELOAD", lib)
        .env("FAKETIME_TIMESTAMP_FILE", file)
        .env("FAKETIME_NO_CACHE", "1")
        .env("DONT_FAKE_MONOTONIC", "1")
        .env("FAKETIME_DONT_FAKE_MONOTONIC", "1");
}

/// The server's clock (`TIME`) in unix seconds.
fn server_time(server: &RedisServer) -> f64 {
    let (secs, micros): (f64, f64) = server.cmd(&[b"TIME"]);
    secs + micros / 1e6
}

#[test]
fn f11_a_host_clock_step_after_start_changes_nothing() {
    let Some(lib) = libfaketime_or_skip("F11") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let clock = dir.path().join("clock");
    std::fs::write(&clock, "+0\n").unwrap();
    // The step must reach a process run this way, else this test proves nothing.
    let mut date = Command::new("date");
    date.arg("+%s");
    faked(&mut date, &lib, &clock);
    std::fs::write(&clock, "+3600\n").unwrap();
    let shown: f64 = String::from_utf8(date.output().unwrap().stdout)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let local = qctl::engine::now();
    assert!(
        (shown - local - 3600.0).abs() < 5.0,
        "libfaketime did not move the clock: {shown} vs {local}"
    );
    std::fs::write(&clock, "+0\n").unwrap();

    // Each run appends "ID EPOCH" (its host's wall clock); a job "fail..." fails.
    let runs = dir.path().join("runs");
    let script = dir.path().join("handler.sh");
    std::fs::write(
        &script,
        format!(
            "d=$(cat)\nprintf '%s %s\\n' \"$QCTL_JOB_ID\" \"$(date +%s)\" >> '{}'\n\
             case \"$d\" in fail) exit 3 ;; esac\nsleep 0.2\n",
            runs.display()
        ),
    )
    .unwrap();
    let server = RedisServer::start();
    let ids: Vec<String> = (0..400)
        .map(|i| format!("{}{i:03}", if i % 10 == 0 { "fail" } else { "ok" }))
        .collect();
    let input: String = ids
        .iter()
        .map(|id| {
            let data = if id.starts_with("fail") { "fail" } else { "ok" };
            format!("{{\"id\":\"{id}\",\"data\":\"{data}\"}}\n")
        })
        .collect();
    qctl(&server)
        .args(["enqueue", "q", "--jsonl", "-q"])
        .write_stdin(input)
        .assert()
        .success();
    let started = server_time(&server);
    let args = [
        "consume",
        "q",
        "--json",
        "-c",
        "2",
        "--poll-interval",
        "200ms",
        "--heartbeat",
        "1s",
        "--orphan-after",
        "6s",
        "--max-backoff",
        "2s",
        "--max-retries",
        "1",
        "--",
        "sh",
        script.to_str().unwrap(),
    ];
    let mut cmd = qctl_process(&server);
    cmd.args(args);
    faked(&mut cmd, &lib, &clock);
    let mut stepped = Background::spawn(cmd);
    let consumers = || -> Vec<(String, f64)> { server.zrange_withscores("q:consumers") };
    assert!(
        wait_until(Duration::from_secs(10), || consumers().len() == 1),
        "{}",
        stepped.stderr()
    );
    let stepped_key = consumers().remove(0).0;
    let mut steady = Background::spawn({
        let mut cmd = qctl_process(&server);
        cmd.args(args);
        cmd
    });
    assert!(wait_until(Duration::from_secs(10), || consumers().len() == 2));

    // Every 100 ms: each heartbeat and each retry score against the server's clock.
    let mut worst_beat = 0.0f64;
    let mut worst_retry = 0.0f64;
    let mut retries_seen = 0;
    let mut watch = |for_how_long: Duration| {
        let until = Instant::now() + for_how_long;
        while Instant::now() < until {
            let now = server_time(&server);
            for (_, score) in consumers() {
                worst_beat = worst_beat.max((score - now).abs());
            }
            for (_, score) in server.zrange_withscores("q:scheduled") {
                retries_seen += 1;
                worst_retry = worst_retry.max((score - now).abs());
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    };
    watch(Duration::from_secs(2));
    std::fs::write(&clock, "+180\n").unwrap();
    watch(Duration::from_secs(8));
    std::fs::write(&clock, "-180\n").unwrap();
    watch(Duration::from_secs(8));
    for (name, c) in [("stepped", &stepped), ("steady", &steady)] {
        assert!(
            support::running(c.pid()),
            "the {name} consumer stopped:\n{}",
            c.stderr()
        );
    }
    // Done: every record left is a dead job's.
    let done = || {
        let dead: i64 = server.cmd(&[b"ZCARD", b"q:dead"]);
        dead == 40 && support::pending(&server) == 40
    };
    assert!(
        wait_until(Duration::from_secs(60), done),
        "jobs left: {:?}\nstepped:\n{}\nsteady:\n{}",
        server
            .dump_all()
            .iter()
            .map(|(k, t, _)| (k, t))
            .collect::<Vec<_>>(),
        stepped.stderr(),
        steady.stderr()
    );
    let ended = server_time(&server);
    let stepped_exit = stepped.stop(Duration::from_secs(15)).and_then(|s| s.code());
    let steady_exit = steady.stop(Duration::from_secs(15)).and_then(|s| s.code());

    let out = format!("{}{}", stepped.stdout(), steady.stdout());
    let events: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON event"))
        .collect();
    let of = |kind: &str| events.iter().filter(|e| e["event"] == kind).count();
    assert_eq!(
        (stepped_exit, steady_exit),
        (Some(0), Some(0)),
        "stepped:\n{}\nsteady:\n{}",
        stepped.stderr(),
        steady.stderr()
    );
    assert_eq!((of("recovered"), of("lost")), (0, 0), "{out}");
    // (Both are told that --orphan-after 6s is short: that is all they may say.)
    let warnings: Vec<_> = events
        .iter()
        .filter(|e| e["event"] == "warning")
        .filter(|e| !e["message"].as_str().unwrap().contains("is below 2m"))
        .collect();
    assert!(warnings.is_empty(), "{warnings:?}");

    // Every job ran once, a failing one twice (one retry).
    let text = std::fs::read_to_string(&runs).unwrap();
    let recorded: Vec<(&str, f64)> = text
        .lines()
        .map(|l| {
            let (id, epoch) = l.split_once(' ').expect("ID EPOCH");
            (id, epoch.parse().expect("an epoch"))
        })
        .collect();
    for id in &ids {
        let n = recorded.iter().filter(|(r, _)| r == id).count();
        let want = if id.starts_with("fail") { 2 } else { 1 };
        assert_eq!(n, want, "{id} ran {n} times");
    }
    // Judged: the failing jobs (one retry) dead, the others acked, none lost nor run more
    // than it may. The clock steps are no fault the judge is told of: no step may explain a
    // job run twice.
    let mut history = History::new();
    history.enqueued(&ids, Enqueue::Acknowledged);
    for id in ids.iter().filter(|id| id.starts_with("fail")) {
        history.may_repeat(id, 1);
    }
    history.ran(recorded.iter().map(|(id, epoch)| Run {
        id: id.to_string(),
        pid: 0,
        started: SystemTime::UNIX_EPOCH + Duration::from_secs_f64(*epoch),
        consumer: 0,
    }));
    let verdict = history.judge(&End::read(&server, "q"));
    verdict.check("F11");
    assert!(verdict.waiting.is_empty(), "{}", verdict.table());
    // The stepped consumer's handlers saw both steps: its clock did move.
    assert!(recorded.iter().any(|(_, t)| *t > ended + 100.0));
    assert!(recorded.iter().any(|(_, t)| *t < started - 100.0));

    // Death scores, written by both, lie between the start and the end by the server's clock.
    let dead = server.zrange_withscores("q:dead");
    assert_eq!(dead.len(), 40);
    for (id, score) in &dead {
        assert!(
            (started - 1.0..=ended + 1.0).contains(score),
            "{id} died at {score}, outside {started}..{ended}"
        );
    }
    assert!(retries_seen > 0, "no retry score was seen");
    assert!(
        worst_beat < 5.0,
        "a heartbeat was {worst_beat:.1}s off the server's clock"
    );
    assert!(
        worst_retry < 5.0,
        "a retry score was {worst_retry:.1}s off the server's clock"
    );
    support::figure(&format!(
        "F11 host clock stepped +180 s, then -180 s, under one of two consumers (libfaketime): \
         {}, no consumer recovered, exit 0 and 0, 400 jobs each ran once (40 failing ones \
         twice, then dead); heartbeats \
         at most {worst_beat:.1}s and {retries_seen} retry score samples at most {worst_retry:.1}s \
         off the server's clock; stepped consumer {stepped_key}",
        verdict.line()
    ));
}

#[test]
fn one_shot_commands_judge_by_the_servers_clock_not_the_hosts() {
    let Some(lib) = libfaketime_or_skip("the one-shot clock test") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let clock = dir.path().join("clock");
    let server = RedisServer::start();
    let now = server_time(&server);
    // A live consumer (heartbeat now) holding a job, and a job due in ten minutes.
    let member = "q:inflight:0b7d3e2a-1c4f-4d5e-9f00-aabbccddeeff";
    let record = qctl::engine::Job::new("held", Some(b"x".to_vec())).encode();
    let _: () = server.cmd(&[b"HSET", b"q:data", b"held", &record]);
    let _: () = server.cmd(&[b"SADD", member.as_bytes(), b"held"]);
    let beat = now.to_string();
    let _: () = server.cmd(&[b"ZADD", b"q:consumers", beat.as_bytes(), member.as_bytes()]);
    let later = (now + 600.0).to_string();
    let _: () = server.cmd(&[b"ZADD", b"q:scheduled", later.as_bytes(), b"later"]);
    let before = server.dump_all();
    // This host's clock an hour ahead, then an hour behind: the answers stay the same.
    for step in ["+3600", "-3600"] {
        std::fs::write(&clock, format!("{step}\n")).unwrap();
        let run = |args: &[&str]| {
            let mut cmd = qctl_process(&server);
            cmd.args(args);
            faked(&mut cmd, &lib, &clock);
            cmd.output().unwrap()
        };
        let out = run(&["--json", "stats", "q"]);
        let stats: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
        let q = &stats[0];
        assert_eq!(
            (&q["consumers_alive"], &q["consumers_expired"]),
            (&serde_json::json!(1), &serde_json::json!(0)),
            "{step}: {q}"
        );
        assert_eq!(
            (&q["scheduled_due"], &q["scheduled_later"]),
            (&serde_json::json!(0), &serde_json::json!(1)),
            "{step}: {q}"
        );
        let out = run(&["--json", "consumers", "q"]);
        let rows: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(rows[0]["alive"], true, "{step}: {rows}");
        assert!(rows[0]["problem"].is_null(), "{step}: {rows}");
        let out = run(&["orphans", "q"]);
        assert_eq!(out.status.code(), Some(0), "{step}: {out:?}");
        assert_eq!(
            server.dump_all(),
            before,
            "{step}: orphans moved a live consumer's job"
        );
    }
}

#[test]
fn a_heartbeat_of_plus_inf_is_named_for_what_it_is() {
    let server = RedisServer::start();
    let member = "q:inflight:0b7d3e2a-1c4f-4d5e-9f00-aabbccddeeff";
    let record = qctl::engine::Job::new("held", Some(b"x".to_vec())).encode();
    let _: () = server.cmd(&[b"HSET", b"q:data", b"held", &record]);
    let _: () = server.cmd(&[b"SADD", member.as_bytes(), b"held"]);
    let _: () = server.cmd(&[b"ZADD", b"q:consumers", b"+inf", member.as_bytes()]);
    let said = "heartbeat of +inf, which no clock writes";

    let out = qctl(&server).args(["consumers", "q"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(said) && !text.contains("infs"), "{text}");
    let out = qctl(&server)
        .args(["--json", "consumers", "q"])
        .output()
        .unwrap();
    let rows: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        rows[0]["problem"].as_str().unwrap().contains(said),
        "{rows}"
    );
    let out = qctl(&server)
        .args(["orphans", "q", "--dry-run"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(said), "{text}");
    let out = qctl(&server).args(["orphans", "q"]).output().unwrap();
    assert_eq!(out.status.code(), Some(7));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(said), "{text}");

    // A running consumer says so once, and recovers the job once the heartbeat stays put.
    let mut consumer = spawn_consumer_at(&server.url(), &[&["q"], FAST, &["--", "true"]].concat());
    assert!(
        wait_until(Duration::from_secs(20), || support::pending(&server) == 0),
        "{}",
        consumer.stderr()
    );
    assert_eq!(
        consumer
            .stop(Duration::from_secs(10))
            .and_then(|s| s.code()),
        Some(0)
    );
    let stderr = consumer.stderr();
    assert_eq!(stderr.matches(said).count(), 1, "{stderr}");
    assert!(!stderr.contains("infs"), "{stderr}");
}

/// `qctl doctor` on a host whose clock is two minutes ahead of the server's names the
/// offset, CRITICAL; with the clocks together it is OK.
#[test]
fn doctor_measures_the_clock_offset_between_this_host_and_redis() {
    let Some(lib) = libfaketime_or_skip("the doctor clock test") else {
        return;
    };
    let server = RedisServer::start();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("faketime");
    let clock = |offset: &str| -> (String, String) {
        std::fs::write(&file, format!("{offset}\n")).unwrap();
        let mut cmd = support::qctl_process(&server);
        cmd.args(["doctor", "--json"]);
        faked(&mut cmd, &lib, &file);
        let out = cmd.output().unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let f = v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["check"] == "clock")
            .cloned()
            .expect("a clock finding");
        (
            f["severity"].as_str().unwrap().to_string(),
            f["summary"].as_str().unwrap().to_string(),
        )
    };
    let (severity, summary) = clock("+120");
    assert_eq!(severity, "CRITICAL", "{summary}");
    let behind: f64 = summary
        .strip_prefix("the server's clock is ")
        .and_then(|s| s.strip_suffix(" s behind this host's"))
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("{summary}"));
    assert!((119.0..121.0).contains(&behind), "{summary}");
    let (severity, summary) = clock("+5");
    assert_eq!(severity, "WARNING", "{summary}");
    let (severity, summary) = clock("+0");
    assert_eq!(severity, "OK", "{summary}");
}
