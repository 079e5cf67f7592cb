//! Big jobs: reservations, acks and every bulk read are bounded in bytes (a budget of
//! `CALL_BYTES` a call; a larger record travels alone). A burst of 32 records of 16 MiB
//! behind tiny jobs drains in both modes with no slow command and bounded memory; listings,
//! exports and repairs over such records keep every call within the budget; and a record too
//! big for `--response-timeout` is reported as such, once, not as an unreachable Redis.
//!
//! The scenarios hold half a gigabyte or more in Redis: they run one at a time.

mod support;

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{ChildStdout, Command, Stdio};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use qctl::engine::inflight;
use qctl::engine::listing::CALL_BYTES;
use qctl::engine::{Job, QueueKeys, ServerSpec};
use support::{qctl_process, RedisServer};

const MIB: usize = 1 << 20;
/// The size of a big job's data.
const BIG: usize = 16 * MIB;
/// How many big jobs a scenario holds: 512 MiB, more than twice what any bound below lets
/// qctl hold, so a command that kept what it read would fail the bound.
const BIGS: usize = 32;
/// The slowest a Redis command may be in these scenarios (a generous bound: a budget is
/// copied in tens of milliseconds).
const SLOWEST: Duration = Duration::from_millis(500);

static HEAVY: Mutex<()> = Mutex::new(());

/// One heavy scenario at a time (each holds half a gigabyte or more in its Redis).
fn heavy() -> MutexGuard<'static, ()> {
    HEAVY.lock().unwrap_or_else(|e| e.into_inner())
}

/// `len` bytes of text starting with the job's id, so a handler can check what it got.
fn data(id: &str, len: usize) -> Vec<u8> {
    let mut d = Vec::with_capacity(len);
    d.extend_from_slice(id.as_bytes());
    d.push(b' ');
    while d.len() < len {
        d.extend_from_slice(b"0123456789abcdefghijklmnopqrstuvwxyz");
    }
    d.truncate(len);
    d
}

/// Where [`put`] writes jobs.
#[derive(Clone, Copy, PartialEq)]
enum Place {
    Active,
    Dead,
}

/// Writes jobs (id, data length) straight into Redis, records as qctl and CurlyQ write them.
fn put(server: &RedisServer, jobs: &[(String, usize)], place: Place) {
    let mut con = server.conn();
    for (i, (id, len)) in jobs.iter().enumerate() {
        let record = Job::new(id.clone(), Some(data(id, *len))).encode();
        let mut pipe = redis::pipe();
        pipe.cmd("HSET").arg("q:data").arg(id).arg(record);
        match place {
            Place::Active => pipe.cmd("RPUSH").arg("q:active").arg(id),
            Place::Dead => pipe
                .cmd("ZADD")
                .arg("q:dead")
                .arg(1_700_000_000 + i)
                .arg(id),
        };
        let _: () = pipe.query(&mut con).expect("write a job");
    }
}

/// `n` jobs named `prefix-NNN`, each of `len` bytes.
fn named(prefix: &str, n: usize, len: usize) -> Vec<(String, usize)> {
    (0..n).map(|i| (format!("{prefix}-{i:03}"), len)).collect()
}

/// Logs every command slower than 10 ms from now on.
fn watch_slowlog(server: &RedisServer) {
    let _: () = server.cmd(&[b"CONFIG", b"SET", b"slowlog-log-slower-than", b"10000"]);
    let _: () = server.cmd(&[b"CONFIG", b"SET", b"slowlog-max-len", b"100000"]);
    let _: () = server.cmd(&[b"SLOWLOG", b"RESET"]);
    let _: () = server.cmd(&[b"CONFIG", b"RESETSTAT"]);
}

/// The slowest command logged since [`watch_slowlog`]: its duration and its first words.
fn slowest(server: &RedisServer) -> (Duration, String) {
    let entries: Vec<redis::Value> = server.cmd(&[b"SLOWLOG", b"GET", b"100000"]);
    let mut worst = (Duration::ZERO, "none took 10 ms".to_string());
    for entry in entries {
        let redis::Value::Array(fields) = entry else {
            continue;
        };
        let micros: u64 = redis::from_redis_value(fields[2].clone()).unwrap_or(0);
        let args: Vec<Vec<u8>> = redis::from_redis_value(fields[3].clone()).unwrap_or_default();
        let took = Duration::from_micros(micros);
        if took > worst.0 {
            let words: Vec<String> = args
                .iter()
                .take(3)
                .map(|a| String::from_utf8_lossy(&a[..a.len().min(16)]).into_owned())
                .collect();
            worst = (took, words.join(" "));
        }
    }
    worst
}

/// How a measured run of qctl went.
struct Run {
    code: Option<i32>,
    stderr: String,
    /// Its peak resident memory (VmHWM).
    peak: u64,
    took: Duration,
    /// What an [`Out::Reader`] returned (0 for a file).
    read: usize,
}

/// Where a measured run's stdout goes.
enum Out<'a> {
    /// Into this file.
    File(&'a Path),
    /// To a reader, on a thread of its own, as it is written: what it returns is the run's
    /// `read`. Outputs of hundreds of megabytes are checked this way, without the disk space of a file.
    Reader(Box<dyn FnOnce(ChildStdout) -> usize + Send>),
}

/// Runs `cmd` to its end (within `limit`, else it is killed), its stdout sent to `out` and
/// its stderr written beside `err`, sampling its peak resident memory from /proc/PID/status.
fn measured(mut cmd: Command, out: Out, err: &Path, limit: Duration) -> Run {
    let started = Instant::now();
    let stdout = match &out {
        Out::File(path) => {
            Stdio::from(std::fs::File::create(path).expect("create the output file"))
        }
        Out::Reader(_) => Stdio::piped(),
    };
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(std::fs::File::create(err).expect("create the error file"))
        .spawn()
        .expect("start qctl");
    let reader = match out {
        Out::File(_) => None,
        Out::Reader(read) => {
            let pipe = child.stdout.take().expect("a piped stdout");
            Some(std::thread::spawn(move || read(pipe)))
        }
    };
    let status = format!("/proc/{}/status", child.id());
    let mut peak = 0;
    let code = loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            break status.code();
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        if let Some(kb) = std::fs::read_to_string(&status).ok().and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        }) {
            peak = peak.max(kb * 1024);
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let took = started.elapsed();
    let read = reader.map_or(0, |r| {
        r.join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    });
    Run {
        code,
        stderr: std::fs::read_to_string(err).unwrap_or_default(),
        peak,
        took,
        read,
    }
}

const PER_JOB: &str = r#"import os, sys
data = sys.stdin.buffer.read()
i = os.environ["QCTL_JOB_ID"]
with open(os.environ["LEDGER"], "a") as f:
    f.write("%s %d %d\n" % (i, len(data), data.startswith(i.encode() + b" ")))
"#;

const PIPE: &str = r#"import json, os, sys
ledger = open(os.environ["LEDGER"], "a")
for line in sys.stdin:
    job = json.loads(line)
    i, data = job["id"], job["data"].encode()
    ledger.write("%s %d %d\n" % (i, len(data), data.startswith(i.encode() + b" ")))
    ledger.flush()
    sys.stdout.write(json.dumps({"id": i, "ok": True}) + "\n")
    sys.stdout.flush()
"#;

/// Drains 20 tiny jobs and [`BIGS`] of 16 MiB behind them with `mode` (the consume options and
/// handler), checking that each ran once with its data and was acked, that no Redis command
/// was slow, and that the consumer's memory stayed within the budget per handler.
fn burst(name: &str, handlers: usize, mode: &[&str], handler: &str) {
    let _heavy = heavy();
    let server = RedisServer::start_with(&["--proto-max-bulk-len", "1gb"]);
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("handler.py");
    std::fs::write(&script, handler).unwrap();
    let ledger = dir.path().join("ledger");
    let mut jobs = named("tiny", 20, 100);
    jobs.extend(named("big", BIGS, BIG));
    put(&server, &jobs, Place::Active);
    watch_slowlog(&server);

    let mut cmd = qctl_process(&server);
    // The default heartbeat and cut-off: the scenario is about bytes, not lease timing.
    cmd.args(["consume", "q", "--drain", "--max-retries", "0"])
        .args(["--poll-interval", "200ms"])
        .args(mode)
        .arg("python3")
        .arg(&script)
        .env("LEDGER", &ledger);
    let run = measured(
        cmd,
        Out::File(&dir.path().join("out")),
        &dir.path().join("err"),
        Duration::from_secs(300),
    );
    assert_eq!(run.code, Some(0), "{name}: {}", run.stderr);

    let mut ran: HashMap<String, Vec<(usize, bool)>> = HashMap::new();
    for line in std::fs::read_to_string(&ledger).unwrap().lines() {
        let mut words = line.split(' ');
        let (id, len, ok) = (words.next(), words.next(), words.next());
        ran.entry(id.unwrap().to_string())
            .or_default()
            .push((len.unwrap().parse().unwrap(), ok == Some("1")));
    }
    for (id, len) in &jobs {
        assert_eq!(ran.get(id), Some(&vec![(*len, true)]), "{name}: job {id}");
    }
    assert_eq!(ran.len(), jobs.len(), "{name}");
    assert_eq!(support::pending(&server), 0, "{name}: every job acked");
    let completed: String = server.cmd(&[b"HGET", b"q:stats", b"completed"]);
    assert_eq!(completed, jobs.len().to_string(), "{name}: acked once each");
    for words in [
        "warning",
        "cannot reach Redis",
        "reservation reply was lost",
    ] {
        assert!(!run.stderr.contains(words), "{name}: {}", run.stderr);
    }
    let (took, what) = slowest(&server);
    assert!(took < SLOWEST, "{name}: {what} took {took:?}");
    // What the consumer holds: a budget per handler, and one job per handler when records
    // are larger, in up to three copies while it passes through (the reply, the decoded
    // job, the handler's input); and the program itself.
    let bound = (CALL_BYTES * handlers + handlers * 3 * BIG + 40 * MIB) as u64;
    assert!(
        run.peak < bound,
        "{name}: peak RSS {} MiB, bound {} MiB",
        run.peak >> 20,
        bound >> 20
    );
    support::figure(&format!(
        "{name}: {BIGS} x 16 MiB after 20 tiny jobs drained in {:.1}s, each once and acked; slowest Redis command {} ms ({what}); peak RSS {} MiB (bound {} MiB)",
        run.took.as_secs_f64(),
        took.as_millis(),
        run.peak >> 20,
        bound >> 20
    ));
}

#[test]
fn l1_a_burst_of_16_mib_jobs_drains_per_job() {
    burst("L1 per job, -c 2", 2, &["-c", "2", "--"], PER_JOB);
}

#[test]
fn l2_a_burst_of_16_mib_jobs_drains_with_pipe() {
    burst(
        "L2 --pipe --pipe-depth 64 -c 2",
        2,
        &["--pipe", "--pipe-depth", "64", "-c", "2", "--"],
        PIPE,
    );
}

/// Listing, exporting, requeuing and purging [`BIGS`] dead jobs of 16 MiB and 24 of 1 MiB: every
/// call reads, carries or deletes at most one budget of records (a larger record alone), no
/// command is slow, and qctl's memory stays within a few records.
#[test]
fn l3_listings_exports_and_repairs_of_big_records_stay_within_the_budget() {
    let _heavy = heavy();
    let server = RedisServer::start_with(&["--proto-max-bulk-len", "1gb"]);
    let dir = tempfile::tempdir().unwrap();
    let mut jobs = named("big", BIGS, BIG);
    jobs.extend(named("mid", 24, MIB));
    put(&server, &jobs, Place::Dead);
    // Each call moves at most a budget (a big record alone): at least this many calls.
    let calls = BIGS as u64 + (24 * MIB).div_ceil(CALL_BYTES) as u64;
    // What a command holds: a step of at most a budget of records (a larger record alone)
    // being read while the one before is written out or sent, each in up to six copies on
    // the way (the reply, the decoded job, its output or its script call as built and as
    // sent), and the program itself.
    let bound = (2 * 6 * CALL_BYTES.max(BIG) + 40 * MIB) as u64;
    let mut figures = Vec::new();
    // Runs one command; its stdout goes to a file named after it, or to `reader`.
    let mut check =
        |what: &str,
         args: &[&str],
         counted: &str,
         at_least: u64,
         fast: bool,
         reader: Option<Box<dyn FnOnce(ChildStdout) -> usize + Send>>| {
            watch_slowlog(&server);
            let mut cmd = qctl_process(&server);
            cmd.args(args);
            let out = dir.path().join(what.replace(' ', "-"));
            let to = match reader {
                Some(read) => Out::Reader(read),
                None => Out::File(&out),
            };
            let run = measured(
                cmd,
                to,
                &out.with_extension("err"),
                Duration::from_secs(300),
            );
            assert_eq!(run.code, Some(0), "{what}: {}", run.stderr);
            let n = server.calls(counted);
            assert!(
                n >= at_least,
                "{what}: {n} {counted} calls, expected {at_least} or more"
            );
            let (took, slow) = slowest(&server);
            assert!(!fast || took < SLOWEST, "{what}: {slow} took {took:?}");
            assert!(
                run.peak < bound,
                "{what}: peak RSS {} MiB, bound {} MiB",
                run.peak >> 20,
                bound >> 20
            );
            let slowest = match took.as_millis() {
                0 => "none took 10 ms".to_string(),
                ms => format!("slowest {ms} ms"),
            };
            let peak = match run.peak >> 20 {
                0 => String::new(),
                mib => format!(", peak RSS {mib} MiB"),
            };
            figures.push(format!(
                "{what} {:.1}s, {n} {counted} calls, {slowest}{peak}",
                run.took.as_secs_f64(),
            ));
            (out, run.read)
        };
    // HMGET of records and of failures go in pairs.
    let (listed, _) = check(
        "dead list",
        &["dead", "list", "q", "--limit", "200"],
        "hmget",
        2 * calls,
        true,
        None,
    );
    let table = std::fs::read_to_string(listed).unwrap();
    assert_eq!(table.lines().filter(|l| l.contains("big-")).count(), BIGS);
    // Over half a gigabyte of lines: each is checked as it arrives, none is kept.
    let sizes: HashMap<String, usize> = jobs.iter().cloned().collect();
    let check_lines = move |stdout: ChildStdout| {
        let mut seen = 0;
        for line in BufReader::new(stdout).lines() {
            let line = line.expect("read the export");
            let v: serde_json::Value = serde_json::from_str(&line).unwrap();
            let id = v["id"].as_str().unwrap();
            let len = sizes[id];
            assert_eq!(
                v["data"].as_str().unwrap().as_bytes(),
                data(id, len),
                "{id}"
            );
            seen += 1;
        }
        seen
    };
    let (_, seen) = check(
        "dead export",
        &["dead", "export", "q"],
        "hmget",
        2 * calls,
        true,
        Some(Box::new(check_lines)),
    );
    assert_eq!(seen, jobs.len());
    // A requeue carries each record twice (as read, and new).
    check(
        "dead requeue",
        &["dead", "requeue", "q", "--all", "--yes"],
        "evalsha",
        calls,
        false,
        None,
    );
    assert_eq!(server.lrange("q:active").len(), jobs.len());
    for (id, len) in &jobs {
        let stored: usize = server.cmd(&[b"HSTRLEN", b"q:data", id.as_bytes()]);
        let record = Job::new(id.clone(), Some(data(id, *len))).encode();
        assert_eq!(stored, record.len(), "{id}");
    }
    let record = server.hget_bytes("q:data", "big-021").unwrap();
    assert_eq!(
        Job::decode(&record).unwrap(),
        Job::new("big-021", Some(data("big-021", BIG)))
    );
    check("purge", &["purge", "q", "--yes"], "unlink", 1, true, None);
    assert_eq!(server.dump_all(), vec![]);
    support::figure(&format!(
        "L3 {BIGS} dead x 16 MiB + 24 x 1 MiB: {}",
        figures.join("; ")
    ));
}

/// A record that cannot arrive within --response-timeout (a 16 MiB reply over a link of
/// about 13 MB/s, 400 ms): a consumer stops once, saying so, and gives the job back; a read
/// says so too; neither calls Redis unreachable.
#[test]
fn l4_a_record_too_big_for_the_response_timeout_is_reported_once_as_such() {
    let _heavy = heavy();
    let server = RedisServer::start();
    put(
        &server,
        &[
            ("tiny-0".into(), 100),
            ("big-0".into(), BIG),
            ("tiny-1".into(), 100),
        ],
        Place::Active,
    );
    put(&server, &[("dead-0".into(), BIG)], Place::Dead);
    let proxy = support::proxy::FaultProxy::start(server.port());
    // Every chunk of 64 KiB waits 5 ms: small calls answer in milliseconds, 16 MiB in 1.3 s.
    proxy.latency(Duration::from_millis(5));
    let started = Instant::now();
    let mut consumer = support::spawn_consumer_at(
        &proxy.url(),
        &[
            "--response-timeout",
            "400ms",
            "q",
            "--drain",
            "-c",
            "1",
            "--",
            "true",
        ],
    );
    let status = consumer.wait_timeout(Duration::from_secs(60));
    let took = started.elapsed();
    let err = consumer.stderr();
    assert_eq!(status.and_then(|s| s.code()), Some(3), "{err}");
    let said =
        "did not answer HMGET q:data within --response-timeout (400ms), although it is reachable";
    assert!(err.contains(said), "{err}");
    assert_eq!(err.matches("did not answer").count(), 1, "{err}");
    for words in ["cannot reach Redis", "reservation reply was lost"] {
        assert!(!err.contains(words), "{err}");
    }
    // The small job before it ran; the big one went back, nothing is left in flight.
    let completed: String = server.cmd(&[b"HGET", b"q:stats", b"completed"]);
    assert_eq!(completed, "1");
    let mut active = server.lrange("q:active");
    active.sort();
    assert_eq!(active, ["big-0", "tiny-1"]);
    assert!(support::consumer_keys(&server).is_empty());

    let shown = support::qctl_url(&proxy.url())
        .args([
            "--response-timeout",
            "400ms",
            "dead",
            "show",
            "q",
            "dead-0",
            "--raw",
        ])
        .output()
        .unwrap();
    let shown_err = String::from_utf8_lossy(&shown.stderr);
    assert_eq!(shown.status.code(), Some(3), "{shown_err}");
    assert!(shown_err.contains(said), "{shown_err}");
    assert!(!shown_err.contains("cannot reach Redis"), "{shown_err}");
    support::figure(&format!(
        "L4 a 16 MiB record over a link of about 13 MB/s with --response-timeout 400ms: consume stopped after {:.1}s with exit 3 naming HMGET and the timeout, once; the job went back to q:active; dead show: exit 3 likewise",
        took.as_secs_f64()
    ));
}

/// The reservation script takes the longest prefix whose records fit in the budget (the
/// first id always), and deletes the signal only when the list held fewer ids than asked.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reservation_takes_what_fits_in_its_budget() {
    let server = RedisServer::start();
    let sizes = [3 * MIB, 3 * MIB, 3 * MIB, 1000, 10 * MIB, 10];
    let jobs: Vec<(String, usize)> = sizes
        .iter()
        .enumerate()
        .map(|(i, len)| (format!("j{i}"), *len))
        .collect();
    put(&server, &jobs, Place::Active);
    let inflight = "q:inflight:0b7d3e2a-1c4f-4d5e-9f00-aabbccddeeff";
    let _: () = server.cmd(&[b"ZADD", b"q:consumers", b"1", inflight.as_bytes()]);
    let spec = ServerSpec::parse(
        &server.url(),
        Duration::from_secs(5),
        Duration::from_secs(5),
    )
    .unwrap();
    let mut redis = spec.connect().await.unwrap();
    let keys = QueueKeys::new("q");
    let signal = || server.cmd::<i64>(&[b"LLEN", b"q:signal"]);
    let mut take = async |n: usize, budget: usize| -> Vec<(String, usize)> {
        let _: () = server.cmd(&[b"DEL", b"q:signal"]);
        let _: () = server.cmd(&[b"LPUSH", b"q:signal", b"1"]);
        let got = inflight::reserve(
            &mut redis.clone(),
            &mut redis,
            &keys,
            inflight,
            n,
            budget,
            Duration::from_secs(120),
        )
        .await
        .unwrap();
        got.jobs
            .into_iter()
            .map(|r| {
                let job = r.job.expect("a good record");
                assert_eq!(job.data_bytes(), data(&r.id, job.data_bytes().len()));
                (r.id, job.data_bytes().len())
            })
            .collect()
    };
    // 3 + 3 MiB fit in 8, a third does not; the list held as many ids as asked: the signal
    // stays for the others.
    assert_eq!(take(3, 8 * MIB).await, jobs[0..2]);
    assert_eq!(signal(), 1);
    // 3 MiB and 1000 bytes fit, 10 MiB does not; 4 ids asked, 4 there.
    assert_eq!(take(4, 8 * MIB).await, jobs[2..4]);
    assert_eq!(signal(), 1);
    // A record larger than the budget goes alone, even with a budget of 0.
    assert_eq!(take(5, 0).await, jobs[4..5]);
    // Fewer ids than asked: the signal goes, so idle consumers block again.
    assert_eq!(take(5, 8 * MIB).await, jobs[5..6]);
    assert_eq!(signal(), 0);
    let mut held = server.smembers(inflight);
    held.sort();
    assert_eq!(held, ["j0", "j1", "j2", "j3", "j4", "j5"]);
    assert!(server.lrange("q:active").is_empty());
}
