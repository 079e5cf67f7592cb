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
    // With the record of its changes: nothing is left.
    check(
        "purge",
        &["purge", "q", "--yes", "--forget-changes"],
        "unlink",
        1,
        true,
        None,
    );
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

/// Every key of `server`, for "nothing was written".
fn keys(server: &RedisServer) -> Vec<String> {
    let mut keys: Vec<String> = server.cmd(&[b"KEYS", b"*"]);
    keys.sort();
    keys
}

/// qctl against `url` with `stdin`; its exit code and stderr.
fn fed(url: &str, args: &[&str], stdin: &[u8]) -> (Option<i32>, String) {
    let out = support::qctl_url(url)
        .args(args)
        .write_stdin(stdin.to_vec())
        .timeout(Duration::from_secs(120))
        .output()
        .expect("run qctl");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A job larger than the server takes in one argument (its proto-max-bulk-len, here 1 MiB,
/// the least Redis allows) is refused before anything is sent, naming the limit, from a
/// file, standard input, --lines, --jsonl and import; a job exactly at the
/// limit goes. Redis would close the connection on it ("broken pipe"), after qctl had read
/// and copied all of it.
#[test]
fn l5_a_job_larger_than_redis_takes_is_refused_before_sending_naming_the_limit() {
    let server = RedisServer::start_with(&["--proto-max-bulk-len", "1mb"]);
    let url = server.url();
    let limit = "1 MiB (1,048,576 bytes, its proto-max-bulk-len)";
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big");
    std::fs::write(&big, data("big", 3 * MIB)).unwrap();
    let nothing = "nothing was sent: no job enqueued";

    // A file: its size is known before it is read.
    let (code, err) = fed(
        &url,
        &["enqueue", "q", "--file", big.to_str().unwrap()],
        b"",
    );
    assert_eq!(code, Some(6), "{err}");
    assert!(
        err.contains("the job is too large for Redis at 127.0.0.1:"),
        "{err}"
    );
    assert!(
        err.contains("its record would be 3 MiB (3,145,797 bytes)"),
        "{err}"
    );
    assert!(err.contains(limit) && err.contains(nothing), "{err}");
    assert!(
        !err.contains("broken pipe") && !err.contains("cannot reach"),
        "{err}"
    );
    assert_eq!(keys(&server), Vec::<String>::new(), "nothing written");
    // The same file on standard input, then through a pipe (its size unknown).
    let (code, err) = fed(&url, &["enqueue", "q"], &data("big", 3 * MIB));
    assert_eq!(code, Some(6), "{err}");
    assert!(err.contains(limit) && err.contains(nothing), "{err}");
    assert!(
        err.contains("its data is more than")
            && err.contains("(standard input was read no further)"),
        "{err}"
    );
    // Exactly what the server takes goes: a record of 1,048,576 bytes.
    let fits = MIB - 38;
    let (code, err) = fed(&url, &["enqueue", "q", "--id", "fits-1"], &data("x", fits));
    assert_eq!(code, Some(0), "{err}");
    let stored: Vec<u8> = server.cmd(&[b"HGET", b"q:data", b"fits-1"]);
    assert_eq!(stored.len(), MIB);
    let (code, err) = fed(&url, &["enqueue", "q", "--id", "fits-1x"], &data("x", fits));
    assert_eq!(code, Some(6), "one byte more of id is too much: {err}");

    // --lines: the line too large is an invalid line (exit 6); the others are enqueued.
    let mut lines = b"small 1\n".to_vec();
    lines.extend(data("line", 3 * MIB));
    lines.extend(b"\nsmall 2\n");
    let (code, err) = fed(&url, &["enqueue", "big", "--lines"], &lines);
    assert_eq!(code, Some(6), "{err}");
    assert!(
        err.contains("line 2: the job is too large for Redis at 127.0.0.1:")
            && err.contains("the line is 3 MiB (3,145,729 bytes)")
            && err.contains(limit),
        "{err}"
    );
    assert!(err.contains("enqueued 2, duplicates 0, failed 1"), "{err}");
    let queued: i64 = server.cmd(&[b"LLEN", b"big:active"]);
    assert_eq!(queued, 2);
    // --jsonl: data in base64 whose record is too large; an id too long for the rest.
    let b64 = base64_of(&data("b", MIB + 1000));
    let jsonl = format!(
        "{{\"data\":\"a\"}}\n{{\"data_b64\":\"{b64}\"}}\n{{\"id\":\"{}\",\"data\":\"{}\"}}\n{{\"data\":\"c\"}}\n",
        "i".repeat(100),
        "d".repeat(MIB - 100)
    );
    let (code, err) = fed(&url, &["enqueue", "json", "--jsonl"], jsonl.as_bytes());
    assert_eq!(code, Some(6), "{err}");
    assert!(
        err.contains("line 2: the job is too large") && err.contains("its record would be"),
        "{err}"
    );
    assert!(err.contains("line 3: the job is too large"), "{err}");
    let queued: i64 = server.cmd(&[b"LLEN", b"json:active"]);
    assert_eq!(queued, 2);
    // import: stops at the line, naming it; the lines before it are imported.
    let (code, err) = fed(&url, &["import", "imp"], jsonl.as_bytes());
    assert_eq!(code, Some(6), "{err}");
    assert!(
        err.contains("line 2: the job is too large for Redis at 127.0.0.1:")
            && err.contains("the lines before it are imported"),
        "{err}"
    );
    let queued: i64 = server.cmd(&[b"LLEN", b"imp:active"]);
    assert_eq!(queued, 1);
}

/// Standard input through a pipe is read no further than the server takes: qctl stops
/// reading at the limit (here 1 MiB) and ends, whatever more is coming, so its memory
/// stays bounded by the limit and not by the input.
#[test]
fn l6_standard_input_is_read_no_further_than_redis_takes() {
    use std::io::Write;
    let server = RedisServer::start_with(&["--proto-max-bulk-len", "1mb"]);
    for args in [
        &["enqueue", "q"][..],
        &["enqueue", "q", "--lines"],
        &["import", "q"],
    ] {
        let mut child = qctl_process(&server)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        // One line of 256 MiB (a JSON string for import), written until qctl stops reading.
        let chunk = vec![b'x'; 64 * 1024];
        let mut written = 0usize;
        if args[0] == "import" {
            written += stdin.write(b"{\"data\":\"").unwrap();
        }
        while written < 256 * MIB {
            match stdin.write(&chunk) {
                Ok(n) => written += n,
                Err(_) => break,
            }
        }
        drop(stdin);
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(6), "{args:?}: {err}");
        assert!(err.contains("too large for Redis"), "{args:?}: {err}");
        if args.len() == 2 && args[0] == "enqueue" {
            assert!(written < 16 * MIB, "{args:?}: read {written} bytes: {err}");
        }
    }
    assert_eq!(keys(&server), Vec::<String>::new(), "nothing written");
}

/// A user that may not run CONFIG GET (the least-privilege recipe grants none) cannot know
/// the server's limit: Redis's default, 512 MiB, is assumed and said, and a record that the
/// server then closes the connection on is told as possibly too large.
#[test]
fn l7_without_config_get_the_default_limit_is_assumed_and_said() {
    let server = RedisServer::start_with(&["--proto-max-bulk-len", "1mb"]);
    let _: () = server.cmd(&[
        b"ACL", b"SETUSER", b"app", b"on", b">app-pw", b"~*", b"+@all", b"-config",
    ]);
    let url = format!("redis://app:app-pw@127.0.0.1:{}", server.port());
    let assumed = "the largest job Redis at 127.0.0.1:";
    let (code, err) = fed(&url, &["enqueue", "q"], &data("x", MIB + MIB / 2));
    assert_eq!(code, Some(3), "{err}");
    assert!(
        err.contains(assumed) && err.contains("CONFIG GET was refused: NOPERM"),
        "{err}"
    );
    assert!(err.contains("assuming Redis's default, 512 MiB"), "{err}");
    assert!(
        err.contains("Redis closes the connection on a record larger than it takes"),
        "{err}"
    );
    let (code, err) = fed(
        &url,
        &["enqueue", "q", "--lines"],
        &data("x", MIB + MIB / 2),
    );
    assert_eq!(code, Some(3), "{err}");
    assert!(
        err.contains(assumed) && err.contains("assuming Redis's default"),
        "{err}"
    );
    // Small jobs never ask.
    let (code, err) = fed(&url, &["enqueue", "q", "small"], b"");
    assert_eq!(code, Some(0), "{err}");
    assert!(!err.contains(assumed), "{err}");
    let _: () = server.cmd(&[b"CONFIG", b"SET", b"proto-max-bulk-len", b"8mb"]);
    let (code, err) = fed(&url, &["enqueue", "q"], &data("x", MIB + MIB / 2));
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains(assumed), "{err}");
}

fn base64_of(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}
