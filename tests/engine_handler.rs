//! The consumer driven through its `Handler` trait by a handler in Rust (no process): the
//! engine's own rate, with no spawning in it.

mod support;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use qctl::engine::consumer::{
    Config, Consumer, Handler, Identity, JobInput, Outcome, RunFuture, RunReport,
};
use qctl::engine::ServerSpec;
use support::{qctl, RedisServer};
use tokio_util::sync::CancellationToken;

/// Succeeds at once, except for data "fail" (which asks for its retry in 600 s) and "panic"
/// (which panics).
struct Immediate {
    ran: AtomicU64,
}

impl Handler for Immediate {
    fn run<'a>(
        &'a self,
        job: JobInput<'a>,
        _cancel: &'a CancellationToken,
        _kill_now: &'a CancellationToken,
    ) -> RunFuture<'a> {
        Box::pin(async move {
            self.ran.fetch_add(1, Ordering::Relaxed);
            if job.data == b"panic" {
                panic!("a handler's bug, on purpose");
            }
            if job.data == b"fail" {
                let failed = Outcome::Failed {
                    exit_code: None,
                    signal: None,
                    timed_out: false,
                };
                return RunReport {
                    reason: Some("refused".into()),
                    retry_in: Some(Duration::from_secs(600)),
                    ..RunReport::new(failed, Duration::ZERO)
                };
            }
            RunReport::new(Outcome::Succeeded, Duration::ZERO)
        })
    }
}

/// A number from the environment (bench/consume sets these for a long release run).
fn env_or(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .map(|v| {
            v.parse()
                .unwrap_or_else(|_| panic!("{name}={v} is not a number"))
        })
        .unwrap_or(default)
}

fn config(queue: &str) -> Config {
    let concurrency = env_or("QCTL_ENGINE_CONCURRENCY", 2);
    Config {
        queue: queue.into(),
        concurrency,
        handlers: concurrency,
        buffer: std::env::var("QCTL_ENGINE_BUFFER")
            .ok()
            .map(|v| v.parse().expect("QCTL_ENGINE_BUFFER is a number")),
        heartbeat: Duration::from_secs(1),
        orphan_after: Duration::from_secs(3),
        max_retries: 5,
        max_backoff: Duration::from_secs(7 * 86400),
        poll_interval: Duration::from_millis(200),
        scheduler_interval: Duration::from_secs(1),
        shutdown_grace: Duration::from_secs(5),
        kill_after: Duration::from_secs(5),
        drain: true,
        wait_scheduled: false,
        max_jobs: None,
        rate: None,
        routine_events: false,
        run_limit: None,
        member: None,
        identity: Identity {
            command: vec!["engine_handler".into()],
            mode: "rust".into(),
        },
    }
}

/// Enqueues one job per line, then connects a consumer with `cfg` and an [`Immediate`]
/// handler (not yet running).
async fn consumer(server: &RedisServer, lines: String, cfg: Config) -> (Consumer, Arc<Immediate>) {
    qctl(server)
        .args(["enqueue", "q", "--lines"])
        .write_stdin(lines)
        .assert()
        .success();
    let spec = ServerSpec::parse(
        &server.url(),
        Duration::from_secs(5),
        Duration::from_secs(5),
    )
    .unwrap();
    let handler = Arc::new(Immediate {
        ran: AtomicU64::new(0),
    });
    let (tx, _events) = tokio::sync::mpsc::unbounded_channel();
    let consumer = Consumer::connect(spec, cfg, handler.clone(), tx)
        .await
        .unwrap();
    (consumer, handler)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rust_handler_drains_the_queue_and_shows_the_engines_own_rate() {
    let server = RedisServer::start();
    let jobs = env_or("QCTL_ENGINE_JOBS", 5000) as u64;
    let mut lines: String = (0..jobs).map(|i| format!("{i}\n")).collect();
    lines.push_str("fail\n");
    // A drain would wait for the failed job's retry, ten minutes away: the run ends after
    // every job ran once instead.
    let cfg = Config {
        drain: false,
        max_jobs: Some(jobs + 1),
        ..config("q")
    };
    let (consumer, handler) = consumer(&server, lines, cfg).await;
    let (cpu_before, own_before) = (redis_cpu(&server), own_cpu());
    let started = Instant::now();
    let (summary, failure) = consumer.run().await;
    let elapsed = started.elapsed();
    let redis_cpu = redis_cpu(&server) - cpu_before;
    let own_cpu = own_cpu() - own_before;
    assert!(failure.is_none(), "{failure:?}");
    assert_eq!(summary.succeeded, jobs);
    assert_eq!(summary.retried, 1);
    assert_eq!(handler.ran.load(Ordering::Relaxed), jobs + 1);
    let scheduled = server.zrange_withscores("q:scheduled");
    assert_eq!(scheduled.len(), 1, "the failure's own retry delay is used");
    assert!(scheduled[0].1 > qctl::engine::now() + 590.0);
    let cfg = config("q");
    println!(
        "engine ceiling (Rust handler, -c {} --buffer {}, {} build): {:.0} jobs/s, \
         redis-server CPU {:.3} s per 100k jobs, this process {:.3} s",
        cfg.concurrency,
        cfg.buffer.map_or("auto".to_string(), |b| b.to_string()),
        if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        },
        jobs as f64 / elapsed.as_secs_f64(),
        redis_cpu * 100_000.0 / jobs as f64,
        own_cpu * 100_000.0 / jobs as f64
    );
}

/// The CPU seconds this process has used (the consumer and its handler, user and system).
fn own_cpu() -> f64 {
    // SAFETY: getrusage only writes the struct it is given.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage
    };
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// The CPU seconds redis-server has used (INFO cpu, user and system).
fn redis_cpu(server: &RedisServer) -> f64 {
    let info: String = server.cmd(&[b"INFO", b"cpu"]);
    info.lines()
        .filter_map(|line| line.split_once(':'))
        .filter(|(name, _)| *name == "used_cpu_user" || *name == "used_cpu_sys")
        .filter_map(|(_, value)| value.trim().parse::<f64>().ok())
        .sum()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_busy_consumer_acks_in_batches_and_reserves_in_batches() {
    let server = RedisServer::start();
    let jobs = 3000u64;
    let lines: String = (0..jobs).map(|i| format!("{i}\n")).collect();
    let cfg = Config {
        concurrency: 16,
        handlers: 16,
        buffer: Some(500),
        ..config("q")
    };
    let (consumer, _) = consumer(&server, lines, cfg).await;
    let _: String = server.cmd(&[b"CONFIG", b"RESETSTAT"]);
    let (summary, failure) = consumer.run().await;
    assert!(failure.is_none(), "{failure:?}");
    assert_eq!(summary.succeeded, jobs);
    assert_eq!(server.cmd::<i64>(&[b"HLEN", b"q:data"]), 0);
    let completed: String = server.cmd(&[b"HGET", b"q:stats", b"completed"]);
    assert_eq!(completed, jobs.to_string());
    // Only the ack script runs SMISMEMBER (once a call), only the reserve script HMGET.
    let acks = server.calls("smismember");
    let reserves = server.calls("hmget");
    println!("{jobs} jobs: {acks} ack calls, {reserves} reservations");
    assert!(
        acks > 0 && acks * 2 <= jobs,
        "{acks} ack calls for {jobs} jobs"
    );
    assert!(
        reserves * 20 <= jobs,
        "{reserves} reservations for {jobs} jobs"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_handler_that_panics_stops_the_consumer_which_strands_no_job_and_passes_the_panic_on() {
    let server = RedisServer::start();
    let lines: String = (0..2000)
        .map(|i| match i {
            500 => "panic\n".to_string(),
            i => format!("{i}\n"),
        })
        .collect();
    let (consumer, handler) = consumer(&server, lines, config("q")).await;
    let ended = tokio::spawn(consumer.run()).await;
    let panic = ended.expect_err("the handler's panic goes on to the caller");
    assert!(panic.is_panic(), "{panic:?}");
    // The consumer stopped (the other slot may have run every job given to it while the
    // panic was being told): what did not succeed is back in the queue, the job that
    // panicked too, and nothing is left in flight or registered.
    let ran = handler.ran.load(Ordering::Relaxed);
    assert!(ran > 500, "{ran} jobs ran");
    let ready: Vec<String> = server.lrange("q:active");
    let records: i64 = server.cmd(&[b"HLEN", b"q:data"]);
    assert_eq!(records as usize, ready.len());
    assert!(ready.len() > 2000 - ran as usize, "{} ready", ready.len());
    let panicked = ready.iter().any(|id| {
        let record = server.hget_bytes("q:data", id).unwrap();
        qctl::engine::job::Job::decode(&record)
            .unwrap()
            .data_bytes()
            == b"panic"
    });
    assert!(
        panicked,
        "the job whose handler panicked is back in the queue"
    );
    let keys: Vec<String> = server.cmd(&[b"KEYS", b"q:inflight:*"]);
    assert!(keys.is_empty(), "{keys:?}");
    assert_eq!(server.cmd::<i64>(&[b"ZCARD", b"q:consumers"]), 0);
}

#[tokio::test]
async fn one_ack_call_settles_what_is_still_reserved_and_leaves_the_rest() {
    let server = RedisServer::start();
    let keys = qctl::engine::QueueKeys::new("q");
    let inflight = keys.inflight("c1");
    for (id, data) in [("a", "A"), ("b", "B"), ("x", "X")] {
        let _: i64 = server.cmd(&[b"HSET", b"q:data", id.as_bytes(), data.as_bytes()]);
        let _: i64 = server.cmd(&[b"HSET", b"q:failures", id.as_bytes(), b"{}"]);
    }
    let _: i64 = server.cmd(&[b"SADD", inflight.as_bytes(), b"a", b"b"]);
    let spec = ServerSpec::parse(
        &server.url(),
        Duration::from_secs(5),
        Duration::from_secs(5),
    )
    .unwrap();
    let mut redis = spec.connect().await.unwrap();
    // Run times of 15 ms, 3 ms and 700 ms; acked in the minute starting at 1,795,000,020.
    let now = 1_795_000_030.5;
    let jobs = [("a", 15), ("x", 3), ("b", 700)];
    let flags = qctl::engine::inflight::ack(&mut redis, &keys, &inflight, &jobs, now)
        .await
        .unwrap();
    assert_eq!(flags, [true, false, true]);
    assert_eq!(server.hget_bytes("q:data", "x").as_deref(), Some(&b"X"[..]));
    assert_eq!(
        server.hget_bytes("q:failures", "x").as_deref(),
        Some(&b"{}"[..])
    );
    assert_eq!(server.cmd::<i64>(&[b"HLEN", b"q:data"]), 1);
    assert_eq!(server.cmd::<i64>(&[b"HLEN", b"q:failures"]), 1);
    let completed: String = server.cmd(&[b"HGET", b"q:stats", b"completed"]);
    assert_eq!(completed, "2");
    let left: Vec<String> = server.cmd(&[b"SMEMBERS", inflight.as_bytes()]);
    assert!(left.is_empty(), "{left:?}");
    // The history of the minute and the totals count the two acked runs, not "x".
    let minute = "q:history:1795000020";
    for key in [minute, "q:stats"] {
        let mut fields: Vec<(String, String)> = server.cmd(&[b"HGETALL", key.as_bytes()]);
        fields.sort();
        let want = [
            ("completed", "2"),
            ("ms:1000", "1"),
            ("ms:20", "1"),
            ("run_ms", "715"),
        ];
        assert_eq!(
            fields,
            want.map(|(f, v)| (f.to_string(), v.to_string())),
            "{key}"
        );
    }
    let ttl: i64 = server.cmd(&[b"PTTL", minute.as_bytes()]);
    let week = 7 * 24 * 3600 * 1000;
    assert!(ttl > week - 60_000 && ttl <= week, "{ttl}");
    let total = qctl::engine::history::total(&mut redis, &keys)
        .await
        .unwrap();
    assert_eq!(
        (total.completed, total.run_ms, total.timed_runs()),
        (2, 715, 2)
    );
}
