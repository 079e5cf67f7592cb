//! Scenario F5: consumers that reach Redis through a fault proxy (resets, partitions,
//! latency) while jobs are enqueued straight to the server. Each scenario prints a figure
//! line (`support::figure`) and checks that no job was lost and nothing stayed reserved.

mod support;

use std::io::{BufRead, Write};
use std::time::{Duration, Instant, SystemTime};

use nix::sys::signal::Signal;
use support::handlers::Mode;
use support::judge::{Class, End, Enqueue, History, Hit};
use support::ledger::{enqueue_numbered, Ledger};
use support::proxy::FaultProxy;
use support::{
    figure, group_running, pending, running, spawn_consumer_at, wait_until, Background, RedisServer,
};

const QUEUE: &str = "q";

/// `qctl -u URL consume q OPTS [--pipe] -- <ledger handler sleeping `sleep`>` in the
/// background.
fn consumer(url: &str, mode: Mode, opts: &[&str], ledger: &Ledger, sleep: Duration) -> Background {
    let handler = ledger.args(mode, sleep);
    let mut args = vec![QUEUE, "--poll-interval", "200ms", "--max-backoff", "0s"];
    args.extend_from_slice(opts);
    args.extend(handler.iter().map(String::as_str));
    spawn_consumer_at(url, &args)
}

/// Every id held by any `q:inflight:*` set.
fn in_flight(server: &RedisServer) -> Vec<String> {
    let keys: Vec<String> = server.cmd(&[b"KEYS", b"q:inflight:*"]);
    keys.iter()
        .flat_map(|k| server.cmd::<Vec<String>>(&[b"SMEMBERS", k.as_bytes()]))
        .collect()
}

/// Where the unsettled jobs are, for failure messages.
fn whereabouts(server: &RedisServer) -> String {
    format!(
        "records left {}, active {}, in flight {:?}, scheduled {:?}, dead {:?}",
        pending(server),
        server.lrange("q:active").len(),
        in_flight(server),
        server.zrange_withscores("q:scheduled"),
        server.zrange_withscores("q:dead"),
    )
}

/// Every job's record is gone from `q:data` (acked) and no in-flight set holds anything.
fn assert_settled(server: &RedisServer, ids: &[String]) {
    let mut cmd = redis::cmd("HMGET");
    cmd.arg("q:data").arg(ids);
    let records: Vec<Option<Vec<u8>>> = cmd.query(&mut server.conn()).expect("HMGET");
    let left: Vec<&String> = ids
        .iter()
        .zip(&records)
        .filter(|(_, r)| r.is_some())
        .map(|(id, _)| id)
        .collect();
    assert!(left.is_empty(), "not acked: {left:?}");
    assert_eq!(in_flight(server), Vec::<String>::new(), "left in flight");
}

fn secs(d: Duration) -> String {
    format!("{:.2}s", d.as_secs_f64())
}

/// `t` relative to `origin`, signed, in seconds.
fn since(origin: SystemTime, t: SystemTime) -> f64 {
    match t.duration_since(origin) {
        Ok(d) => d.as_secs_f64(),
        Err(e) => -e.duration().as_secs_f64(),
    }
}

/// The ids that ran more than once, with their counts.
fn duplicates(runs: &[String]) -> Vec<(String, usize)> {
    let mut counts = std::collections::BTreeMap::<&str, usize>::new();
    for id in runs {
        *counts.entry(id).or_default() += 1;
    }
    counts
        .into_iter()
        .filter(|(_, n)| *n > 1)
        .map(|(id, n)| (id.to_string(), n))
        .collect()
}

// --- the proxy itself -------------------------------------------------------------------

fn connect(url: &str) -> redis::Connection {
    let con = redis::Client::open(url)
        .unwrap()
        .get_connection_with_timeout(Duration::from_secs(2))
        .expect("connect through the proxy");
    con.set_read_timeout(Some(Duration::from_millis(500)))
        .unwrap();
    con
}

fn ping(con: &mut redis::Connection) -> redis::RedisResult<String> {
    redis::cmd("PING").query(con)
}

#[test]
fn proxy_passes_commands_through() {
    let server = RedisServer::start();
    let proxy = FaultProxy::start(server.port());
    let mut con = connect(&proxy.url());
    assert_eq!(ping(&mut con).unwrap(), "PONG");
    let _: () = redis::cmd("SET").arg("k").arg("v").query(&mut con).unwrap();
    assert_eq!(server.cmd::<String>(&[b"GET", b"k"]), "v");
    assert_eq!(proxy.connections(), 1);
}

#[test]
fn proxy_blackhole_holds_bytes_until_pass() {
    let server = RedisServer::start();
    let proxy = FaultProxy::start(server.port());
    let mut con = connect(&proxy.url());
    assert_eq!(ping(&mut con).unwrap(), "PONG");

    proxy.blackhole();
    let err = ping(&mut con).expect_err("a PING through a blackhole is answered");
    assert!(err.is_timeout(), "{err}");
    // A new connection is accepted but gets nothing, and what it sent is held, not lost.
    let mut raw = std::net::TcpStream::connect(("127.0.0.1", proxy.port())).unwrap();
    raw.set_read_timeout(Some(Duration::from_millis(300)))
        .unwrap();
    std::io::Write::write_all(&mut raw, b"PING\r\n").unwrap();
    let mut buf = [0u8; 64];
    let held = std::io::Read::read(&mut raw, &mut buf).expect_err("an answer in a blackhole");
    assert!(matches!(
        held.kind(),
        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
    ));

    proxy.pass();
    raw.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
    let n = std::io::Read::read(&mut raw, &mut buf).expect("the held PING is answered");
    assert_eq!(&buf[..n], b"+PONG\r\n");
    assert_eq!(
        ping(&mut con).unwrap(),
        "PONG",
        "the old connection works again"
    );
    assert_eq!(proxy.connections(), 2);
}

#[test]
fn proxy_reset_all_breaks_current_connections_only() {
    let server = RedisServer::start();
    let proxy = FaultProxy::start(server.port());
    let mut old = connect(&proxy.url());
    assert_eq!(ping(&mut old).unwrap(), "PONG");
    let mut raw = std::net::TcpStream::connect(("127.0.0.1", proxy.port())).unwrap();
    raw.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
    assert!(wait_until(Duration::from_secs(2), || proxy.connections() == 2));
    proxy.reset_all();
    let err = ping(&mut old).expect_err("a command on a reset connection succeeded");
    assert!(
        !err.is_timeout(),
        "a reset fails at once, not by timeout: {err}"
    );
    // An abort, not an orderly close: the peer reads ECONNRESET rather than end of stream.
    let read = std::io::Read::read(&mut raw, &mut [0u8; 16]);
    assert_eq!(
        read.map_err(|e| e.kind()),
        Err(std::io::ErrorKind::ConnectionReset)
    );
    let mut new = connect(&proxy.url());
    assert_eq!(ping(&mut new).unwrap(), "PONG");
    assert_eq!(proxy.connections(), 3);
}

#[test]
fn proxy_latency_delays_each_direction() {
    let server = RedisServer::start();
    let proxy = FaultProxy::start(server.port());
    let mut con = connect(&proxy.url());
    proxy.latency(Duration::from_millis(100));
    let start = Instant::now();
    assert_eq!(ping(&mut con).unwrap(), "PONG");
    let rtt = start.elapsed();
    assert!(rtt >= Duration::from_millis(200), "round trip {rtt:?}");
    proxy.pass();
}

// --- F5 ---------------------------------------------------------------------------------

/// F5a: every connection is reset three times while 300 short jobs run on 4 handlers.
#[test]
fn f5a_connection_resets_mid_run_lose_no_job() {
    let server = RedisServer::start();
    let proxy = FaultProxy::start(server.port());
    let ledger = Ledger::new();
    let ids = enqueue_numbered(&server, QUEUE, "j", 300);
    let opts = ["-c", "4", "--heartbeat", "1s", "--orphan-after", "15s"];
    let mut a = consumer(
        &proxy.url(),
        Mode::PerJob,
        &opts,
        &ledger,
        Duration::from_millis(20),
    );

    let mut history = History::new();
    history.enqueued(&ids, Enqueue::Acknowledged);
    let mut slowest = Duration::ZERO;
    let mut connections_before = 0;
    for (i, mark) in [40, 110, 180].into_iter().enumerate() {
        assert!(
            wait_until(Duration::from_secs(30), || ledger.runs().len() >= mark),
            "only {} runs before reset {i}: {}",
            ledger.runs().len(),
            whereabouts(&server)
        );
        if i == 0 {
            connections_before = proxy.connections();
        }
        history.fault(
            &format!("reset {}", i + 1),
            SystemTime::now(),
            Hit::Network {
                consumers: vec![a.pid()],
            },
        );
        proxy.reset_all();
        let reset_at = Instant::now();
        let before = pending(&server);
        assert!(
            wait_until(Duration::from_secs(30), || pending(&server) < before),
            "no ack after reset {i}: {}\n{}",
            whereabouts(&server),
            a.stderr()
        );
        slowest = slowest.max(reset_at.elapsed());
    }
    let done = wait_until(Duration::from_secs(60), || pending(&server) == 0);
    assert!(done, "jobs left: {}\n{}", whereabouts(&server), a.stderr());
    let status = a.stop(Duration::from_secs(15)).expect("the consumer stops");
    let verdict = history
        .ran(ledger.entries())
        .judge(&End::read(&server, QUEUE));
    let retries = a.stderr().matches("retrying").count();
    figure(&format!(
        "F5a connection reset x3 mid-run: {} recovered_in={} (slowest first ack after a reset) jobs=300 -c 4 connections={} warnings_retrying={}",
        verdict.line(),
        secs(slowest),
        proxy.connections(),
        retries,
    ));
    assert_eq!(status.code(), Some(0), "{}", a.stderr());
    verdict.check("F5a");
    assert!(
        proxy.connections() > connections_before,
        "the consumer never reconnected"
    );
    assert_settled(&server, &ids);
}

/// F5b: a 5 s partition while jobs run, well inside the lease (orphan-after 15s minus the
/// heartbeat + 5 s margin = 9 s): afterwards everything completes exactly once.
#[test]
fn f5b_a_partition_shorter_than_the_lease_delays_but_loses_and_repeats_nothing() {
    let server = RedisServer::start();
    let proxy = FaultProxy::start(server.port());
    let ledger = Ledger::new();
    let ids = enqueue_numbered(&server, QUEUE, "j", 40);
    let opts = ["-c", "2", "--heartbeat", "1s", "--orphan-after", "15s"];
    let mut a = consumer(
        &proxy.url(),
        Mode::PerJob,
        &opts,
        &ledger,
        Duration::from_millis(200),
    );

    assert!(
        wait_until(Duration::from_secs(30), || ledger.runs().len() >= 8),
        "{}",
        whereabouts(&server)
    );
    let cut_runs = ledger.runs().len();
    let mut history = History::new();
    history.enqueued(&ids, Enqueue::Acknowledged).fault(
        "the partition",
        SystemTime::now(),
        Hit::Network {
            consumers: vec![a.pid()],
        },
    );
    proxy.blackhole();
    // Whatever was already on its way to Redis lands within this moment.
    std::thread::sleep(Duration::from_millis(200));
    let cut_pending = pending(&server);
    std::thread::sleep(Duration::from_millis(4800));
    let healed_pending = pending(&server);
    let runs_in_partition = ledger.runs().len() - cut_runs;
    proxy.pass();
    let healed = Instant::now();
    let healed_wall = SystemTime::now();

    assert!(
        wait_until(Duration::from_secs(30), || pending(&server)
            < healed_pending),
        "no ack after the partition healed: {}\n{}",
        whereabouts(&server),
        a.stderr()
    );
    let first_ack = healed.elapsed();
    let done = wait_until(Duration::from_secs(60), || pending(&server) == 0);
    assert!(done, "jobs left: {}\n{}", whereabouts(&server), a.stderr());
    let first_start = ledger
        .entries()
        .iter()
        .map(|r| since(healed_wall, r.started))
        .find(|s| *s >= 0.0);
    let status = a.stop(Duration::from_secs(15)).expect("the consumer stops");
    let runs = ledger.runs();
    let verdict = history
        .ran(ledger.entries())
        .judge(&End::read(&server, QUEUE));
    figure(&format!(
        "F5b blackhole 5s: {} recovered_in={} (first ack after heal) first_start_after_heal={} jobs=40 -c 2 runs_during_partition={}",
        verdict.line(),
        secs(first_ack),
        first_start.map_or("none".into(), |s| format!("{s:.2}s")),
        runs_in_partition,
    ));
    assert_eq!(
        healed_pending, cut_pending,
        "an ack reached Redis during the partition"
    );
    assert_eq!(status.code(), Some(0), "{}", a.stderr());
    verdict.check("F5b");
    assert_eq!(
        verdict.count(Class::Duplicated),
        0,
        "a job ran twice: {:?}",
        duplicates(&runs)
    );
    assert_settled(&server, &ids);
}

/// F5c: 50 ms added each way; the same consumer runs one batch without and one with it.
#[test]
fn f5c_latency_slows_but_loses_nothing() {
    let server = RedisServer::start();
    let proxy = FaultProxy::start(server.port());
    let ledger = Ledger::new();
    let opts = ["-c", "4", "--heartbeat", "1s", "--orphan-after", "15s"];
    let mut a = consumer(&proxy.url(), Mode::PerJob, &opts, &ledger, Duration::ZERO);
    assert!(wait_until(Duration::from_secs(10), || server
        .zrange_withscores("q:consumers")
        .len()
        == 1));

    let rate = |prefix: &str| {
        let start = Instant::now();
        let ids = enqueue_numbered(&server, QUEUE, prefix, 100);
        let done = wait_until(Duration::from_secs(60), || pending(&server) == 0);
        assert!(done, "jobs left: {}\n{}", whereabouts(&server), a.stderr());
        (ids, 100.0 / start.elapsed().as_secs_f64())
    };
    let (mut ids, plain) = rate("a");
    let mut history = History::new();
    history.fault(
        "the latency",
        SystemTime::now(),
        Hit::Network {
            consumers: vec![a.pid()],
        },
    );
    proxy.latency(Duration::from_millis(50));
    let (slow_ids, slow) = rate("b");
    proxy.pass();
    ids.extend(slow_ids);

    let status = a.stop(Duration::from_secs(15)).expect("the consumer stops");
    let runs = ledger.runs();
    let verdict = history
        .enqueued(&ids, Enqueue::Acknowledged)
        .ran(ledger.entries())
        .judge(&End::read(&server, QUEUE));
    figure(&format!(
        "F5c latency 50ms each way: {} jobs/s without={plain:.0} with={slow:.0} (ratio {:.2}) jobs=2x100 -c 4",
        verdict.line(),
        slow / plain
    ));
    assert_eq!(status.code(), Some(0), "{}", a.stderr());
    verdict.check("F5c");
    assert_eq!(
        verdict.count(Class::Duplicated),
        0,
        "a job ran twice: {:?}",
        duplicates(&runs)
    );
    assert_settled(&server, &ids);
}

/// Kills leftover handler process groups (they outlive a killed qctl).
struct KillOnDrop(Vec<i32>);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        for pgid in &self.0 {
            if group_running(*pgid) {
                let _ =
                    nix::sys::signal::killpg(nix::unistd::Pid::from_raw(*pgid), Signal::SIGKILL);
            }
        }
    }
}

/// F5d: consumer A is cut off from Redis for good while its two jobs run. Consumer B, on the
/// server directly, recovers them once A's heartbeat is older than --orphan-after. A must
/// have stopped its handlers before B can start the copies, and exit by itself with code 3
/// saying it lost its lease.
#[test]
fn f5d_a_consumer_cut_off_for_good_stops_its_handlers_before_they_are_recovered() {
    f5d(Mode::PerJob);
}

/// F5d with `--pipe`: A's two long-lived handlers (one job each) and the `sleep` children
/// they run the jobs in, all in the handlers' process groups, are gone before B starts the
/// copies.
#[test]
fn f5d_pipe_a_consumer_cut_off_for_good_stops_its_pipe_handlers_before_they_are_recovered() {
    f5d(Mode::Pipe);
}

fn f5d(mode: Mode) {
    const ORPHAN_AFTER: u64 = 6;
    let server = RedisServer::start();
    let proxy = FaultProxy::start(server.port());
    let ledger = Ledger::new();
    let ids = enqueue_numbered(&server, QUEUE, "j", 2);
    let orphan_after = format!("{ORPHAN_AFTER}s");
    let opts = [
        "-c",
        "2",
        "--heartbeat",
        "1s",
        "--orphan-after",
        &orphan_after,
    ];
    let mut a = consumer(&proxy.url(), mode, &opts, &ledger, Duration::from_secs(60));
    assert!(
        wait_until(Duration::from_secs(15), || ledger.runs().len() == 2),
        "A did not start both jobs: {}\n{}",
        whereabouts(&server),
        a.stderr()
    );
    let first = ledger.entries();
    let _leftovers = KillOnDrop(first.iter().map(|r| r.pid).collect());
    assert!(first.iter().all(|r| running(r.pid)));
    if mode == Mode::Pipe {
        assert_ne!(
            first[0].pid, first[1].pid,
            "one job on each of A's handlers"
        );
    }

    let cut_wall = SystemTime::now();
    let mut history = History::new();
    history.enqueued(&ids, Enqueue::Acknowledged).fault(
        "the cut",
        cut_wall,
        Hit::Network {
            consumers: vec![a.pid()],
        },
    );
    proxy.blackhole();
    let cut = Instant::now();
    let mut b = consumer(&server.url(), mode, &opts, &ledger, Duration::ZERO);

    // Watch until A's handlers died, B ran both copies and A exited, or time is up.
    let mut died: Vec<Option<f64>> = vec![None; first.len()];
    let mut a_exit: Option<(f64, std::process::ExitStatus)> = None;
    let limit = Duration::from_secs(ORPHAN_AFTER + 40);
    while cut.elapsed() < limit {
        for (run, died) in first.iter().zip(died.iter_mut()) {
            // The handler, and anything else in its process group.
            if died.is_none() && !running(run.pid) && !group_running(run.pid) {
                *died = Some(cut.elapsed().as_secs_f64());
            }
        }
        if a_exit.is_none() {
            if let Some(status) = a.wait_timeout(Duration::ZERO) {
                a_exit = Some((cut.elapsed().as_secs_f64(), status));
            }
        }
        if died.iter().all(Option::is_some) && a_exit.is_some() && ledger.runs().len() >= 4 {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let entries = ledger.entries();
    // B's copy of each job: its second run.
    let copies: Vec<Option<f64>> = first
        .iter()
        .map(|r| {
            entries
                .iter()
                .filter(|e| e.id == r.id)
                .nth(1)
                .map(|e| since(cut_wall, e.started))
        })
        .collect();
    let done = wait_until(Duration::from_secs(10), || pending(&server) == 0);
    let b_status = b.stop(Duration::from_secs(15));
    let a_stderr = a.stderr();
    let verdict = history
        .ran(ledger.entries())
        .judge(&End::read(&server, QUEUE));
    let show = |v: &[Option<f64>]| {
        v.iter()
            .map(|s| s.map_or("never".to_string(), |s| format!("+{s:.2}s")))
            .collect::<Vec<_>>()
            .join(",")
    };
    let label = match mode {
        Mode::PerJob => "F5d",
        Mode::Pipe => "F5d --pipe",
    };
    figure(&format!(
        "{label} permanent blackhole: {} recovered_in={} (B started the copies) handlers_died=[{}] b_started=[{}] a_exit={} a_code={:?} heartbeat=1s orphan_after={ORPHAN_AFTER}s",
        verdict.line(),
        copies
            .iter()
            .flatten()
            .copied()
            .reduce(f64::min)
            .map_or("never".into(), |s| format!("{s:.1}s")),
        show(&died),
        show(&copies),
        a_exit.as_ref().map_or("none".into(), |(s, _)| format!("+{s:.2}s")),
        a_exit.as_ref().and_then(|(_, s)| s.code()),
    ));

    // The guarantee: A's handlers are gone before B may start the recovered copies.
    for ((run, died), copy) in first.iter().zip(&died).zip(&copies) {
        let copy = copy.unwrap_or_else(|| {
            panic!(
                "B never ran a copy of {}: {}\n{}",
                run.id,
                whereabouts(&server),
                b.stderr()
            )
        });
        match died {
            Some(died) => assert!(
                *died < copy,
                "job {}: A's handler (process group {}) ran until +{died:.2}s but B started its copy at +{copy:.2}s after the cut; A's stderr:\n{a_stderr}",
                run.id,
                run.pid
            ),
            None => panic!(
                "job {}: A's handler (process group {}) was still running at +{:.0}s, B started its copy at +{copy:.2}s; A's stderr:\n{a_stderr}",
                run.id,
                run.pid,
                limit.as_secs_f64()
            ),
        }
    }
    let (exit_at, status) = a_exit.unwrap_or_else(|| {
        panic!(
            "A was still running {}s after the cut: {a_stderr}",
            limit.as_secs()
        )
    });
    assert!(
        exit_at <= (ORPHAN_AFTER + 5) as f64,
        "A exited only at +{exit_at:.2}s: {a_stderr}"
    );
    assert_eq!(status.code(), Some(3), "A's exit: {a_stderr}");
    assert!(a_stderr.contains("lease"), "A did not say why: {a_stderr}");
    assert!(done, "jobs left: {}", whereabouts(&server));
    assert_eq!(b_status.and_then(|s| s.code()), Some(0), "{}", b.stderr());
    verdict.check(label);
    assert_eq!(
        verdict.ids(Class::Duplicated),
        ids,
        "each job ran once in A (stopped) and once in B: {:?}",
        ledger.runs()
    );
    assert_settled(&server, &ids);
}

#[test]
fn f5e_a_reservation_whose_reply_was_lost_is_returned_while_the_consumer_lives() {
    let server = RedisServer::start();
    let proxy = FaultProxy::start(server.port());
    let ledger = Ledger::new();
    let opts = ["-c", "1", "--heartbeat", "1s", "--orphan-after", "15s"];
    let mut a = consumer(
        &proxy.url(),
        Mode::PerJob,
        &opts,
        &ledger,
        Duration::from_millis(20),
    );
    assert!(wait_until(Duration::from_secs(10), || {
        server.cmd::<i64>(&[b"ZCARD", b"q:consumers"]) == 1
    }));
    let members: Vec<String> = server.cmd(&[b"ZRANGE", b"q:consumers", b"0", b"-1"]);
    let inflight = members[0].clone();
    // What a reservation leaves behind when Redis ran it but its reply was lost on the way:
    // the id in this consumer's in-flight set, and the consumer none the wiser.
    // Paused, the consumer reserves nothing, so the job is placed by hand alone.
    let _: () = server.cmd(&[b"SET", b"q:paused", b"1"]);
    let ids = enqueue_numbered(&server, QUEUE, "lost", 1);
    let _: () = server.cmd(&[b"LREM", b"q:active", b"0", ids[0].as_bytes()]);
    let _: () = server.cmd(&[b"SADD", inflight.as_bytes(), ids[0].as_bytes()]);
    // The resets hit the consumer while its in-flight set holds the stranded job.
    let mut history = History::new();
    history.enqueued(&ids, Enqueue::Acknowledged).fault(
        "the resets",
        SystemTime::now(),
        Hit::Consumer {
            pid: a.pid(),
            held: Some(ids.clone()),
        },
    );
    let started = Instant::now();
    // The next failed call makes the consumer unsure of its reservations: it gives back what
    // it does not hold.
    let returned = wait_until(Duration::from_secs(20), || {
        proxy.reset_all();
        std::thread::sleep(Duration::from_millis(300));
        server.lrange("q:active") == ids
    });
    assert!(returned, "{}\n{}", whereabouts(&server), a.stderr());
    let returned_in = started.elapsed();
    let _: () = server.cmd(&[b"DEL", b"q:paused"]);
    assert!(
        wait_until(Duration::from_secs(10), || ledger.runs().len() == 1),
        "{}\n{}",
        whereabouts(&server),
        a.stderr()
    );
    let status = a.stop(Duration::from_secs(15)).expect("the consumer stops");
    assert_eq!(status.code(), Some(0), "{}", a.stderr());
    assert!(
        a.stderr().contains("whose reservation reply was lost"),
        "{}",
        a.stderr()
    );
    assert_settled(&server, &ids);
    let verdict = history
        .ran(ledger.entries())
        .judge(&End::read(&server, QUEUE));
    verdict.check("F5e");
    assert_eq!(verdict.ids(Class::Recovered), ids, "{}", verdict.table());
    figure(&format!(
        "F5e lost reservation reply: the stranded job was returned {} after the connection failed, while its consumer lived, then ran once; {}",
        secs(returned_in),
        verdict.line()
    ));
}

#[test]
fn a_consumer_lives_through_a_reset_that_hits_its_pause_check() {
    let server = RedisServer::start();
    let proxy = FaultProxy::start(server.port());
    let ledger = Ledger::new();
    // Paused, the consumer's poller calls the reservation script, then checks the pause key.
    let _: () = server.cmd(&[b"SET", b"q:paused", b"1"]);
    let mut a = consumer(
        &proxy.url(),
        Mode::PerJob,
        &["--heartbeat", "5s", "--orphan-after", "30s"],
        &ledger,
        Duration::ZERO,
    );
    assert!(
        wait_until(Duration::from_secs(10), || {
            server.cmd::<i64>(&[b"ZCARD", b"q:consumers"]) == 1
        }),
        "{}",
        a.stderr()
    );
    // With 200 ms each way, the pause check is on its way to Redis from 200 to 400 ms after
    // Redis ran the reservation (seen on MONITOR, straight at the server): the reset at 300 ms
    // breaks that call. Each try watches on a new MONITOR connection, so it acts on a
    // reservation that has just run, not on one read late.
    let delay = Duration::from_millis(200);
    proxy.latency(delay);
    let mut hit = false;
    for _ in 0..10 {
        let mut monitor =
            std::net::TcpStream::connect(("127.0.0.1", server.port())).expect("MONITOR");
        monitor
            .set_read_timeout(Some(Duration::from_secs(10)))
            .expect("a read timeout");
        monitor.write_all(b"MONITOR\r\n").expect("MONITOR");
        let reservation = std::io::BufReader::new(monitor)
            .lines()
            .map_while(Result::ok)
            .find(|l| l.contains("\"EVALSHA\"") && l.contains("\"q:paused\""));
        assert!(reservation.is_some(), "MONITOR ended: {}", a.stderr());
        std::thread::sleep(delay + delay / 2);
        proxy.reset_all();
        hit = wait_until(Duration::from_secs(2), || {
            a.stderr().contains("(EXISTS q:paused)")
        });
        if hit {
            break;
        }
    }
    assert!(hit, "no reset hit the pause check: {}", a.stderr());
    std::thread::sleep(Duration::from_secs(1));
    assert!(running(a.pid()), "the consumer stopped: {}", a.stderr());
    proxy.pass();
    let _: () = server.cmd(&[b"DEL", b"q:paused"]);
    let ids = enqueue_numbered(&server, QUEUE, "after", 2);
    assert!(
        wait_until(Duration::from_secs(10), || ledger.runs().len() == 2),
        "{}\n{}",
        whereabouts(&server),
        a.stderr()
    );
    let status = a.stop(Duration::from_secs(15)).expect("the consumer stops");
    assert_eq!(status.code(), Some(0), "{}", a.stderr());
    assert_settled(&server, &ids);
}
