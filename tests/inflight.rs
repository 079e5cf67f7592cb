//! What is running and who runs it: `qctl inflight` and `qctl consumers` against real
//! redis-servers, with qctl consumers (which describe themselves) and a queue state written
//! byte for byte as Go CurlyQ consumers leave it (which they do not).

mod support;

use std::time::Duration;

use nix::sys::signal::Signal;
use qctl::engine::Job;
use serde_json::Value;
use support::{qctl, spawn_consumer_at, wait_until, RedisServer, FAST};

const LIMIT: Duration = Duration::from_secs(20);

/// The handler of these tests: the job's data (on stdin) says what it does.
const HANDLER: &[&str] = &[
    "--",
    "sh",
    "-c",
    "d=$(cat); case $d in fail) exit 3;; hold*) sleep 60;; esac",
];

fn json(server: &RedisServer, args: &[&str]) -> Value {
    let out = qctl(server).arg("--json").args(args).assert().success();
    serde_json::from_slice(&out.get_output().stdout).expect("JSON")
}

fn enqueue(server: &RedisServer, data: &str) -> String {
    let out = qctl(server).args(["enqueue", "q", data]).assert().success();
    String::from_utf8_lossy(&out.get_output().stdout)
        .trim()
        .to_string()
}

fn host() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .expect("host name")
        .trim()
        .to_string()
}

/// A consumer in flight as a Go CurlyQ consumer leaves it: its member in `q:consumers` with
/// a fresh heartbeat, its in-flight set, the jobs' records; nothing of qctl's.
const GO: &str = "q:inflight:0b7d3e2a-1c4f-4d5e-9f00-aabbccddeeff";

fn plant_go_consumer(server: &RedisServer, ids: &[&str]) {
    for id in ids {
        let record = Job::new(*id, Some(format!("go {id}").into_bytes())).encode();
        let _: () = server.cmd(&[b"HSET", b"q:data", id.as_bytes(), &record]);
        let _: () = server.cmd(&[b"SADD", GO.as_bytes(), id.as_bytes()]);
    }
    let now = qctl::engine::now().to_string();
    let _: () = server.cmd(&[b"ZADD", b"q:consumers", now.as_bytes(), GO.as_bytes()]);
}

#[test]
fn inflight_and_consumers_show_what_runs_where_for_qctl_and_go_consumers() {
    let server = RedisServer::start();
    let held: Vec<String> = (0..2)
        .map(|i| enqueue(&server, &format!("hold {i}")))
        .collect();
    enqueue(&server, "ok");
    enqueue(&server, "fail");
    plant_go_consumer(&server, &["g1", "g2"]);
    let mut args = vec![
        "q",
        "-c",
        "3",
        "--max-retries",
        "0",
        "--shutdown-grace",
        "1s",
    ];
    args.extend(FAST);
    args.extend(HANDLER);
    let mut consumer = spawn_consumer_at(&server.url(), &args);

    // Both held jobs run with a recorded start, and the counters caught up.
    let mut rows = Value::Null;
    let ready = wait_until(LIMIT, || {
        rows = json(&server, &["inflight", "q"]);
        let started = rows
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["started"].is_number())
            .count();
        let c = json(&server, &["consumers", "q"]);
        started == 2 && c.as_array().unwrap().iter().any(|c| c["ran"] == 2)
    });
    assert!(ready, "{rows}\n{}", consumer.stderr());
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 4, "two of qctl's, two of Go's: {rows:?}");
    // Longest running first: qctl's two, then Go's, whose start nobody recorded.
    let mut ids: Vec<&str> = rows[..2]
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    ids.sort();
    let mut want: Vec<&str> = held.iter().map(String::as_str).collect();
    want.sort();
    assert_eq!(ids, want);
    for r in &rows[..2] {
        assert_eq!(r["run_by"], "qctl");
        assert_eq!(r["pid"], consumer.pid());
        assert_eq!(r["host"], host().as_str());
        assert_eq!(r["attempt"], 0);
        assert!(r["data"].as_str().unwrap().starts_with("hold "));
        let secs = r["running_secs"].as_f64().unwrap();
        assert!((0.0..30.0).contains(&secs), "{r}");
        assert!(r["consumer"].as_str().unwrap().starts_with("q:inflight:"));
    }
    for r in &rows[2..] {
        assert_eq!(r["run_by"], "CurlyQ");
        assert_eq!(r["consumer"], GO);
        assert!(r["started"].is_null() && r["host"].is_null() && r["pid"].is_null());
        assert!(r["data"].as_str().unwrap().starts_with("go g"));
    }

    let consumers = json(&server, &["consumers", "q"]);
    let by = |kind: &str| -> Value {
        consumers
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["run_by"] == kind)
            .cloned()
            .unwrap_or_else(|| panic!("no {kind} consumer: {consumers}"))
    };
    let ours = by("qctl");
    assert_eq!(ours["pid"], consumer.pid());
    assert_eq!(ours["host"], host().as_str());
    assert_eq!(ours["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(ours["command"], serde_json::json!(HANDLER[1..]));
    assert_eq!(ours["mode"], "per-job");
    assert_eq!(ours["concurrency"], 3);
    assert_eq!(ours["ran"], 2, "ok and fail ran: {ours}");
    assert_eq!(ours["failed"], 1);
    assert_eq!(ours["in_flight"], 2);
    let age = qctl::engine::now() - ours["started"].as_f64().unwrap();
    assert!((0.0..30.0).contains(&age), "{ours}");
    let go = by("CurlyQ");
    assert_eq!(go["consumer"], GO);
    assert_eq!(go["in_flight"], 2);
    assert!(go["host"].is_null() && go["command"].is_null() && go["ran"].is_null());

    // The table says the same at a glance; its notes say what cannot be known.
    let out = qctl(&server).args(["consumers", "q"]).assert().success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        text.contains(&format!("qctl {}", env!("CARGO_PKG_VERSION"))),
        "{text}"
    );
    assert!(
        text.contains(&format!("{}:{}", host(), consumer.pid())),
        "{text}"
    );
    assert!(text.contains("0b7d3e2a  CurlyQ"), "{text}");
    assert!(
        text.contains("per-job, concurrency 3") && text.contains("sh -c 'd=$(cat);"),
        "{text}"
    );
    assert!(err.contains("RUN BY CurlyQ"), "{err}");
    let out = qctl(&server).args(["inflight", "q"]).assert().success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert_eq!(text.lines().count(), 5, "a header and 4 jobs:\n{text}");
    assert!(text.lines().nth(3).unwrap().contains(" g1 "), "{text}");
    assert!(err.contains("4 shown of 4 in flight"), "{err}");
    assert!(err.contains("RUNNING -: no start recorded"), "{err}");

    // The ready list, empty while they run, says where running jobs are listed.
    qctl(&server)
        .args(["active", "list", "q"])
        .assert()
        .success()
        .stderr(predicates::str::contains(
            "no jobs in q:active (it holds jobs ready to run; running ones: qctl inflight q)",
        ));

    // Pages: the third job alone, and where the next page starts.
    let out = qctl(&server)
        .args(["inflight", "q", "--limit", "1", "--offset", "2"])
        .assert()
        .success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(text.contains(" g1 ") && !text.contains(" g2 "), "{text}");
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        err.contains("1 shown of 4 in flight; next page: --offset 3"),
        "{err}"
    );
    let lines = qctl(&server)
        .args(["inflight", "q", "--jsonl"])
        .assert()
        .success();
    assert_eq!(
        String::from_utf8_lossy(&lines.get_output().stdout)
            .lines()
            .count(),
        4
    );

    // Its list of running jobs lives as long as its lease, its description a day longer;
    // both go when it leaves.
    let uuid = ours["consumer"]
        .as_str()
        .unwrap()
        .rsplit(':')
        .next()
        .unwrap()
        .to_string();
    let info = format!("q:consumer:{uuid}");
    let running = format!("{info}:running");
    let ttl: i64 = server.cmd(&[b"PTTL", running.as_bytes()]);
    assert!(
        (1..=3000).contains(&ttl),
        "{running} expires with the 3 s lease: {ttl}"
    );
    let ttl: i64 = server.cmd(&[b"PTTL", info.as_bytes()]);
    assert!(
        (86_000_000..=86_403_000).contains(&ttl),
        "{info} expires a day after the 3 s lease: {ttl}"
    );
    consumer.signal(Signal::SIGTERM);
    assert!(consumer.wait_timeout(LIMIT).is_some(), "it stopped");
    let left: Vec<String> = server.cmd(&[b"KEYS", b"q:consumer:*"]);
    assert!(left.is_empty(), "{left:?}");
}

/// A consumer (with `settings`) that runs a held job and is killed with SIGKILL, leaving
/// its description and its list of running jobs behind.
fn killed_while_running(server: &RedisServer, settings: &[&str]) {
    enqueue(server, "hold");
    let mut args = vec!["q"];
    args.extend(settings);
    args.extend(HANDLER);
    let mut consumer = spawn_consumer_at(&server.url(), &args);
    assert!(
        wait_until(LIMIT, || {
            let keys: Vec<String> = server.cmd(&[b"KEYS", b"q:consumer:*:running"]);
            !keys.is_empty()
        }),
        "{}",
        consumer.stderr()
    );
    consumer.signal(Signal::SIGKILL);
    consumer.wait_timeout(LIMIT);
}

#[test]
fn a_killed_consumer_on_this_host_is_gone_at_once_and_still_named_after_its_lease() {
    let server = RedisServer::start();
    killed_while_running(&server, FAST);
    // Its heartbeat is fresh by the default cut-off (2m), but its pid names no process here.
    let rows = json(&server, &["consumers", "q"]);
    assert_eq!(rows[0]["alive"], false, "{rows}");
    assert_eq!(rows[0]["process"], "gone", "{rows}");
    let pid = rows[0]["pid"].as_u64().expect("a pid");
    let out = qctl(&server).args(["consumers", "q"]).assert().success();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.get_output().stdout).into_owned(),
        String::from_utf8_lossy(&out.get_output().stderr).into_owned(),
    );
    assert!(
        stdout.contains(&format!("gone (pid {pid} not running)")),
        "{stdout}"
    );
    assert!(
        stderr.contains(&format!(
            "its process is gone (pid {pid} not running on this host); its 1 job returns"
        )) && stderr.contains("qctl orphans q --orphan-after "),
        "{stderr}"
    );
    // --orphan-after 3s: past its lease, its description is still there to name it.
    assert!(wait_until(LIMIT, || {
        json(&server, &["consumers", "q"])[0]["heartbeat_age_secs"]
            .as_f64()
            .is_some_and(|age| age > 4.0)
    }));
    let rows = json(&server, &["consumers", "q", "--orphan-after", "3s"]);
    assert_eq!(rows[0]["run_by"], "qctl", "{rows}");
    assert_eq!(rows[0]["alive"], false, "{rows}");
    assert_eq!(rows[0]["host"], host(), "{rows}");
    assert_eq!(rows[0]["pid"], pid, "{rows}");
    qctl(&server)
        .args(["consumers", "q", "--orphan-after", "3s"])
        .assert()
        .success()
        .stdout(predicates::str::contains(format!(
            "expired (pid {pid} not running)"
        )));
    let jobs = json(&server, &["inflight", "q"]);
    assert_eq!(jobs[0]["run_by"], "qctl", "{jobs}");
    assert_eq!(
        (&jobs[0]["host"], &jobs[0]["pid"]),
        (&host().into(), &pid.into())
    );
    // Kept a day past the lease; the list of running jobs went with the lease.
    let described: Vec<String> = server.cmd(&[b"KEYS", b"q:consumer:*"]);
    assert_eq!(described.len(), 1, "{described:?}");
    let ttl: i64 = server.cmd(&[b"PTTL", described[0].as_bytes()]);
    assert!(ttl > 86_000_000, "{ttl}");
}

#[test]
fn a_consumer_of_another_pid_namespace_is_not_judged_by_its_pid() {
    // The same host name, but another PID namespace (a container sharing the host's name):
    // a pid there says nothing here.
    let server = RedisServer::start();
    let mut child = std::process::Command::new("true")
        .spawn()
        .expect("run true");
    let pid = child.id().to_string();
    child.wait().expect("wait for true");
    plant_go_consumer(&server, &["j1"]);
    let info = GO.replace(":inflight:", ":consumer:");
    let _: () = server.cmd(&[
        b"HSET",
        info.as_bytes(),
        b"host",
        host().as_bytes(),
        b"pid",
        pid.as_bytes(),
        b"version",
        b"0.1.0",
        b"pid_ns",
        b"pid:[1]",
    ]);
    let rows = json(&server, &["consumers", "q"]);
    assert_eq!(rows[0]["process"], Value::Null, "{rows}");
    assert_eq!(rows[0]["alive"], true, "{rows}");
    // In this host's namespace the same pid is gone.
    let ns = std::fs::read_link("/proc/self/ns/pid").expect("the PID namespace");
    let _: () = server.cmd(&[
        b"HSET",
        info.as_bytes(),
        b"pid_ns",
        ns.to_string_lossy().as_bytes(),
    ]);
    let rows = json(&server, &["consumers", "q"]);
    assert_eq!(rows[0]["process"], "gone", "{rows}");
    assert_eq!(rows[0]["alive"], false, "{rows}");
}

#[test]
fn nothing_in_flight_is_said_and_is_exit_0() {
    let server = RedisServer::start();
    // The queue has a ready job, and no consumer.
    qctl(&server).args(["enqueue", "q", "x"]).assert().success();
    qctl(&server)
        .args(["inflight", "q"])
        .assert()
        .success()
        .stdout("")
        .stderr(predicates::str::contains(
            "no jobs in flight in queue \"q\"",
        ));
    assert_eq!(json(&server, &["inflight", "q"]), serde_json::json!([]));
}

#[test]
fn purge_takes_the_descriptions_of_consumers_with_the_queue() {
    let server = RedisServer::start();
    killed_while_running(&server, &[]);
    qctl(&server)
        .args(["purge", "q", "--yes"])
        .assert()
        .success();
    // But for the record of its changes, with the purge in it.
    let left: Vec<String> = server.cmd(&[b"KEYS", b"*"]);
    assert_eq!(left, ["q:changes"]);
}

#[test]
fn a_page_of_jobs_in_flight_says_so_in_json_too_and_limit_0_lists_every_one() {
    let server = RedisServer::start();
    let ids: Vec<String> = (0..30).map(|i| format!("g{i:02}")).collect();
    let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
    plant_go_consumer(&server, &ids);
    for format in ["--json", "--jsonl"] {
        let run = |extra: &[&str]| {
            let out = qctl(&server)
                .args(["inflight", "q", format])
                .args(extra)
                .assert()
                .success();
            let out = out.get_output();
            let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
            let n = if format == "--jsonl" {
                stdout.lines().count()
            } else {
                serde_json::from_str::<Vec<Value>>(&stdout).unwrap().len()
            };
            (n, String::from_utf8_lossy(&out.stderr).into_owned())
        };
        let (n, err) = run(&[]);
        assert_eq!(n, 20, "{format}");
        assert!(
            err.contains(
                "20 shown of 30 in flight; next page: --offset 20 (--limit 0 shows every one)"
            ),
            "{format}: {err:?}"
        );
        for (extra, expected) in [(&["--limit", "0"][..], 30), (&["--offset", "20"], 10)] {
            let (n, err) = run(extra);
            assert_eq!(n, expected, "{format} {extra:?}");
            assert!(!err.contains("shown of"), "{format} {extra:?}: {err:?}");
        }
    }
    let out = qctl(&server)
        .args(["inflight", "q", "--limit", "0"])
        .assert()
        .success();
    assert_eq!(
        String::from_utf8_lossy(&out.get_output().stdout)
            .lines()
            .count(),
        31,
        "a header and 30 jobs"
    );
}

#[test]
fn consumers_and_inflight_show_nothing_of_queues_named_after_the_queue() {
    // Beside `p`, queues named `p:inflight:abc`, `p:inflight`, ... whose keys match
    // `p:inflight:*`, each with a consumer described as a qctl consumer holding a job.
    let server = RedisServer::start();
    let member = "p:inflight:0b7d3e2a-1c4f-4d5e-9f00-aabbccddeeff";
    let record = Job::new("p-held", Some(b"x".to_vec())).encode();
    let _: () = server.cmd(&[b"HSET", b"p:data", b"p-held", &record]);
    let _: () = server.cmd(&[b"SADD", member.as_bytes(), b"p-held"]);
    let now = qctl::engine::now().to_string();
    let _: () = server.cmd(&[b"ZADD", b"p:consumers", now.as_bytes(), member.as_bytes()]);
    let planted = support::neighbours::plant(&server, "p");
    let before = support::neighbours::dump(&server, &planted);

    let consumers = json(&server, &["consumers", "p"]);
    assert_eq!(consumers.as_array().map(Vec::len), Some(1), "{consumers}");
    assert_eq!(consumers[0]["in_flight"], 1, "{consumers}");
    let jobs = json(&server, &["inflight", "p"]);
    assert_eq!(jobs.as_array().map(Vec::len), Some(1), "{jobs}");
    assert_eq!(jobs[0]["id"], "p-held", "{jobs}");
    for args in [["consumers", "p"], ["inflight", "p"]] {
        let out = qctl(&server).args(args).assert().success();
        let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned()
            + &String::from_utf8_lossy(&out.get_output().stderr);
        assert_eq!(
            support::neighbours::mentioned(&planted, &text),
            None,
            "{text}"
        );
    }
    assert_eq!(support::neighbours::dump(&server, &planted), before);
}
