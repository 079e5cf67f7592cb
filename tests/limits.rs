//! Consumer limits: the queue's shared limits (`qctl limit`: a running cap and a rate, obeyed
//! by every qctl consumer through the reserve script) and a consumer's own `--rate`, against
//! real redis-servers with per-job and `--pipe` handlers that stamp when each job started and
//! ended.

mod support;

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use nix::sys::signal::Signal;
use qctl::engine::Job;
use serde_json::{json, Value};
use support::handlers::Mode;
use support::ledger::enqueue_numbered;
use support::{
    figure, invariants, pending, qctl, spawn_consumer_at, wait_until, Background, RedisServer, FAST,
};

/// The per-job stamping handler: `bash stamp.sh RUNS SECONDS`. It stamps its start, sleeps
/// SECONDS (none for 0), stamps its end, and appends `ID PID START END` (unix seconds) to RUNS
/// in one O_APPEND write. Both stamps lie inside the job's reservation. Bash's
/// $EPOCHREALTIME reads the clock without a fork, which would add its own jitter.
const PER_JOB: &str = r#"s=${EPOCHREALTIME:-$(date +%s.%N)}
[ "$2" = 0 ] || sleep "$2"
e=${EPOCHREALTIME:-$(date +%s.%N)}
printf '%s %s %s %s\n' "$QCTL_JOB_ID" "$$" "${s/,/.}" "${e/,/.}" >> "$1"
"#;

/// The `--pipe` form: `python3 stamp.py RUNS SECONDS`, each job in a thread of its own; the
/// line is written before the answer. Once started it appends its pid to RUNS.ready.
const PIPE: &str = r#"import json, os, sys, threading, time
runs = os.open(sys.argv[1], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
pause = float(sys.argv[2])
with open(sys.argv[1] + ".ready", "a") as f:
    f.write("%d\n" % os.getpid())
lock = threading.Lock()
def run(job):
    s = time.time()
    if pause > 0:
        time.sleep(pause)
    e = time.time()
    os.write(runs, ("%s %d %.6f %.6f\n" % (job["id"], os.getpid(), s, e)).encode())
    with lock:
        sys.stdout.write(json.dumps({"id": job["id"], "ok": True}) + "\n")
        sys.stdout.flush()
for line in sys.stdin:
    threading.Thread(target=run, args=(json.loads(line),)).start()
"#;

/// One handler run as it stamped it.
#[derive(Clone, Debug)]
struct Stamp {
    id: String,
    pid: i32,
    start: f64,
    end: f64,
}

/// A temp dir with the stamping handlers and the runs file they append to (one per consumer,
/// so runs can be told apart by consumer).
struct Stamps {
    dir: tempfile::TempDir,
}

impl Stamps {
    fn new() -> Stamps {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(dir.path().join("stamp.sh"), PER_JOB).unwrap();
        std::fs::write(dir.path().join("stamp.py"), PIPE).unwrap();
        Stamps { dir }
    }

    fn path(&self, name: &str) -> String {
        self.dir.path().join(name).display().to_string()
    }

    fn runs_file(&self) -> PathBuf {
        self.dir.path().join("runs")
    }

    /// What follows the consume options: `[--pipe] -- CMD ARGS`.
    fn args(&self, mode: Mode, pause: &str) -> Vec<String> {
        let runs = self.path("runs");
        match mode {
            Mode::PerJob => vec![
                "--".into(),
                "bash".into(),
                self.path("stamp.sh"),
                runs,
                pause.into(),
            ],
            Mode::Pipe => vec![
                "--pipe".into(),
                "--".into(),
                "python3".into(),
                self.path("stamp.py"),
                runs,
                pause.into(),
            ],
        }
    }

    /// How many `--pipe` handlers have started and are reading jobs.
    fn ready(&self) -> usize {
        std::fs::read_to_string(self.dir.path().join("runs.ready")).map_or(0, |t| t.lines().count())
    }

    /// Every complete line so far, in file order.
    fn entries(&self) -> Vec<Stamp> {
        let text = match std::fs::read_to_string(self.runs_file()) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Vec::new(),
            Err(e) => panic!("read the runs: {e}"),
        };
        let complete = &text[..text.rfind('\n').map_or(0, |i| i + 1)];
        complete
            .lines()
            .map(|line| {
                let f: Vec<&str> = line.split(' ').collect();
                assert_eq!(f.len(), 4, "a malformed runs line {line:?}");
                Stamp {
                    id: f[0].to_string(),
                    pid: f[1].parse().expect("a pid"),
                    start: f[2].parse().expect("a start"),
                    end: f[3].parse().expect("an end"),
                }
            })
            .collect()
    }
}

/// `qctl consume q FAST OPTS HANDLER` in the background.
fn consumer(server: &RedisServer, opts: &[&str], handler: &[String]) -> Background {
    let mut args = vec!["q"];
    args.extend_from_slice(FAST);
    args.extend_from_slice(opts);
    args.extend(handler.iter().map(String::as_str));
    spawn_consumer_at(&server.url(), &args)
}

fn limit(server: &RedisServer, args: &[&str]) {
    qctl(server)
        .arg("limit")
        .arg("q")
        .args(args)
        .assert()
        .success();
}

fn hgetall(server: &RedisServer, key: &str) -> HashMap<String, String> {
    redis::cmd("HGETALL")
        .arg(key)
        .query(&mut server.conn())
        .expect("HGETALL")
}

fn fields(pairs: &[(&str, &str)]) -> HashMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// The most runs that overlap at any moment (an end at the same instant as a start does not
/// overlap it).
fn max_overlap(runs: &[Stamp]) -> usize {
    let mut events: Vec<(f64, i32)> = runs
        .iter()
        .flat_map(|r| [(r.start, 1), (r.end, -1)])
        .collect();
    events.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let (mut now, mut most) = (0i32, 0i32);
    for (_, d) in events {
        now += d;
        most = most.max(now);
    }
    most as usize
}

/// How many of the sorted `starts` follow the one before them by less than `gap` seconds.
fn close_pairs(starts: &[f64], gap: f64) -> usize {
    starts.windows(2).filter(|w| w[1] - w[0] < gap).count()
}

/// The median gap between consecutive sorted `starts`: robust to a start that came late.
fn median_gap(starts: &[f64]) -> f64 {
    let mut gaps: Vec<f64> = starts.windows(2).map(|w| w[1] - w[0]).collect();
    gaps.sort_by(|a, b| a.partial_cmp(b).unwrap());
    gaps[gaps.len() / 2]
}

fn sorted_starts(runs: &[Stamp]) -> Vec<f64> {
    let mut starts: Vec<f64> = runs.iter().map(|r| r.start).collect();
    starts.sort_by(|a, b| a.partial_cmp(b).unwrap());
    starts
}

fn unix_now() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
}

/// Each enqueued id ran exactly once: (lost, dup).
fn once_each(ids: &[String], runs: &[Stamp]) -> (usize, usize) {
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for r in runs {
        *counts.entry(r.id.as_str()).or_default() += 1;
    }
    let lost = ids
        .iter()
        .filter(|id| !counts.contains_key(id.as_str()))
        .count();
    let dup = runs.len() - (ids.len() - lost);
    (lost, dup)
}

fn stop_all(consumers: &mut [Background]) {
    for c in consumers.iter_mut() {
        c.signal(Signal::SIGTERM);
    }
    for c in consumers.iter_mut() {
        let status = c.wait_timeout(Duration::from_secs(10));
        assert_eq!(
            status.and_then(|s| s.code()),
            Some(0),
            "a consumer stopped by SIGTERM exits 0: {}",
            c.stderr()
        );
    }
}

// ---------------------------------------------------------------------------------------
// L1 the running cap, shared by per-job and --pipe consumers

#[test]
fn three_consumers_sharing_a_cap_of_2_never_run_more_than_2_jobs_at_once() {
    let server = RedisServer::start();
    limit(&server, &["--max-running", "2"]);
    let stamps = [Stamps::new(), Stamps::new(), Stamps::new()];
    let modes = [Mode::PerJob, Mode::Pipe, Mode::Pipe];
    let mut consumers: Vec<Background> = stamps
        .iter()
        .zip(modes)
        .map(|(s, m)| consumer(&server, &["-c", "3"], &s.args(m, "0.05")))
        .collect();
    // Every consumer ready to run jobs before they come.
    assert!(
        wait_until(Duration::from_secs(10), || stamps[1].ready() == 3
            && stamps[2].ready() == 3
            && support::consumer_keys(&server).len() == 3),
        "the consumers did not start: {}",
        consumers[1].stderr()
    );
    let ids = enqueue_numbered(&server, "q", "c", 60);
    let began = Instant::now();
    let done = wait_until(Duration::from_secs(30), || pending(&server) == 0);
    let took = began.elapsed();
    stop_all(&mut consumers);
    assert!(
        done,
        "{} jobs left: {}",
        pending(&server),
        consumers[0].stderr()
    );
    let per: Vec<Vec<Stamp>> = stamps.iter().map(Stamps::entries).collect();
    let all: Vec<Stamp> = per.iter().flatten().cloned().collect();
    let (lost, dup) = once_each(&ids, &all);
    assert_eq!((lost, dup), (0, 0), "every job ran exactly once");
    let most = max_overlap(&all);
    assert!(most <= 2, "{most} jobs ran at once under a cap of 2");
    assert_eq!(most, 2, "the cap of 2 was never used to the full");
    // How much of the time two ran at once: the cap is used, not undershot.
    let busy: f64 = all.iter().map(|r| r.end - r.start).sum();
    let first = sorted_starts(&all)[0];
    let last_end = all.iter().map(|r| r.end).fold(0.0, f64::max);
    let mean = busy / (last_end - first);
    assert!(
        mean > 1.2,
        "on average {mean:.2} jobs ran at once under a cap of 2"
    );
    assert!(
        invariants(&server, "q").is_empty(),
        "{:?}",
        invariants(&server, "q")
    );
    figure(&format!(
        "L1 cap 2 shared by 3 consumers (per-job -c 3, 2x --pipe -c 3), 60 jobs of 50 ms: max overlap {most}, mean {mean:.2} running, runs per consumer {:?}, lost={lost} dup={dup}, all done in {:.1}s",
        per.iter().map(Vec::len).collect::<Vec<_>>(),
        took.as_secs_f64()
    ));
}

// ---------------------------------------------------------------------------------------
// L2 the shared rate, and its burst after an idle spell

#[test]
fn a_shared_rate_of_50_per_second_holds_across_3_consumers_and_bursts_after_a_quiet_spell() {
    let server = RedisServer::start();
    limit(&server, &["--rate", "50/s"]);
    let stamps = [Stamps::new(), Stamps::new(), Stamps::new()];
    let modes = [Mode::PerJob, Mode::Pipe, Mode::Pipe];
    let mut consumers: Vec<Background> = stamps
        .iter()
        .zip(modes)
        .map(|(s, m)| consumer(&server, &["-c", "3"], &s.args(m, "0")))
        .collect();
    // The jobs come once every handler reads: jobs handed to a --pipe handler still starting
    // would start late, then bunched.
    assert!(
        wait_until(Duration::from_secs(10), || stamps[1].ready() == 3
            && stamps[2].ready() == 3
            && support::consumer_keys(&server).len() == 3),
        "the consumers did not start: {}",
        consumers[1].stderr()
    );
    // 10.6 s of work at 50/s: the queue never runs dry within the 10 s window.
    let ids = enqueue_numbered(&server, "q", "r", 530);
    let all = || -> Vec<Stamp> { stamps.iter().flat_map(Stamps::entries).collect() };
    assert!(
        wait_until(Duration::from_secs(10), || !all().is_empty()),
        "nothing started: {}",
        consumers[0].stderr()
    );
    let t0 = sorted_starts(&all())[0];
    while unix_now() < t0 + 10.3 {
        std::thread::sleep(Duration::from_millis(50));
    }
    let left = pending(&server);
    let starts = sorted_starts(&all());
    assert!(
        left > 0,
        "all 530 jobs ran within 10.3 s of the first start: faster than 50/s"
    );
    let window: Vec<f64> = starts.iter().copied().filter(|s| *s < t0 + 10.0).collect();
    let in_window = window.len();
    let close = close_pairs(&window, 0.010);
    let gaps: Vec<f64> = window.windows(2).map(|w| w[1] - w[0]).collect();
    let min_gap = gaps.iter().copied().fold(f64::MAX, f64::min);
    let median = median_gap(&window);
    assert!(
        (450..=550).contains(&in_window),
        "{in_window} starts in the 10 s after the first at 50/s"
    );
    // Alone this test sees none; beside the rest of this file on 2 CPUs, up to 6, and 17 with
    // another run of the suite beside it (CI's Redis 6.2 and Valkey runs share two cores): a
    // per-job handler's fork and exec come late, and the next one on time. A rate kept in
    // bursts, even of two, would give half of them or more.
    assert!(
        close <= in_window / 10,
        "{close} of {in_window} starts came less than 10 ms after the one before (burst 1: one every 20 ms)"
    );
    assert!(
        (0.017..=0.023).contains(&median),
        "the median gap between starts is {:.1} ms (one every 20 ms)",
        median * 1000.0
    );
    // How the consumers shared the rate (shown, not required).
    let shares: Vec<usize> = stamps.iter().map(|s| s.entries().len()).collect();
    assert!(
        wait_until(Duration::from_secs(10), || pending(&server) == 0),
        "{} jobs left",
        pending(&server)
    );
    let (lost, dup) = once_each(&ids, &all());
    assert_eq!((lost, dup), (0, 0));

    // Burst 5: 20 jobs make the bucket run dry (5 at once, then one every 20 ms); after an
    // idle spell that refills it (5 tokens come in 100 ms), 10 more: 5 start at once, the
    // other 5 one every 20 ms after them.
    limit(&server, &["--burst", "5"]);
    let batch = |prefix: char| -> Vec<f64> {
        let runs: Vec<Stamp> = all()
            .into_iter()
            .filter(|r| r.id.starts_with(prefix))
            .collect();
        sorted_starts(&runs)
    };
    enqueue_numbered(&server, "q", "b", 20);
    assert!(wait_until(Duration::from_secs(10), || pending(&server) == 0));
    let first = batch('b');
    assert_eq!(first.len(), 20);
    std::thread::sleep(Duration::from_millis(500));
    enqueue_numbered(&server, "q", "a", 10);
    assert!(wait_until(Duration::from_secs(10), || pending(&server) == 0));
    stop_all(&mut consumers);
    let burst = batch('a');
    assert_eq!(burst.len(), 10);
    let five = burst[4] - burst[0];
    let ten = burst[9] - burst[0];
    let sixth = burst[5] - burst[0];
    assert!(
        five <= 0.050,
        "after an idle spell the 5 of the burst started over {:.0} ms",
        five * 1000.0
    );
    // The tokens after the burst come at 50/s: the 6th 20 ms after the burst, the 10th 100 ms.
    assert!(
        sixth >= 0.012,
        "the 6th start came {:.0} ms after the first (burst 5 at 50/s)",
        sixth * 1000.0
    );
    assert!(
        (0.090..=0.300).contains(&ten),
        "10 jobs after an idle spell took {:.0} ms to start (5 at once, then 5 at 50/s)",
        ten * 1000.0
    );
    // The first batch found a full bucket too (the change of burst refilled it).
    let first_span = first[19] - first[0];
    assert!(
        (0.280..=0.600).contains(&first_span),
        "20 jobs with burst 5 took {:.0} ms to start (5 at once, then 15 at 50/s)",
        first_span * 1000.0
    );
    assert!(invariants(&server, "q").is_empty());
    figure(&format!(
        "L2 shared --rate 50/s across 3 consumers (per-job + 2x --pipe): {in_window} starts in 10 s (want 450..=550), {close} gaps < 10 ms, median gap {:.1} ms, min gap {:.1} ms, shares {shares:?}; --burst 5 after idle: 5 started over {:.1} ms, the 6th at +{:.1} ms, the 10th at +{:.1} ms",
        median * 1000.0,
        min_gap * 1000.0,
        five * 1000.0,
        sixth * 1000.0,
        ten * 1000.0
    ));
}

// ---------------------------------------------------------------------------------------
// L3 a killed consumer's share of the cap comes back after its lease

/// A per-job handler: `bash long.sh RUNS MARK`; stamps its start, and the job whose data is
/// `long` sleeps 60 s on its first run (its `exec`ed sleep is the handler's pid and group).
const LONG: &str = r#"s=${EPOCHREALTIME:-$(date +%s.%N)}
s=${s/,/.}
d=$(cat)
printf '%s %s %s %s\n' "$QCTL_JOB_ID" "$$" "$s" "$s" >> "$1"
if [ "$d" = long ] && mkdir "$2" 2>/dev/null; then exec sleep 60; fi
sleep 0.05
"#;

#[test]
fn a_sigkilled_consumers_share_of_the_cap_returns_once_its_heartbeat_is_older_than_the_cutoff() {
    let server = RedisServer::start();
    support::enqueue(&server, "q", "long", b"long");
    for i in 1..=4 {
        support::enqueue(&server, "q", &format!("s{i}"), b"short");
    }
    limit(&server, &["--max-running", "1"]);
    let stamps = Stamps::new();
    std::fs::write(stamps.dir.path().join("long.sh"), LONG).unwrap();
    let handler = vec![
        "--".to_string(),
        "bash".to_string(),
        stamps.path("long.sh"),
        stamps.path("runs"),
        stamps.path("mark"),
    ];
    let lease = [
        "-c",
        "2",
        "--heartbeat",
        "500ms",
        "--orphan-after",
        "2s",
        "--poll-interval",
        "200ms",
    ];
    let start = |h: &[String]| {
        let mut cmd = support::qctl_process(&server);
        cmd.args(["consume", "q"]).args(lease).args(h);
        Background::spawn(cmd)
    };
    let mut a = start(&handler);
    assert!(
        wait_until(Duration::from_secs(10), || !stamps.entries().is_empty()),
        "{}",
        a.stderr()
    );
    // A holds its only share: nothing else starts beside the long job.
    std::thread::sleep(Duration::from_millis(600));
    let runs = stamps.entries();
    assert_eq!(
        runs.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(),
        ["long"],
        "cap 1: one job at a time"
    );
    let handler_pid = runs[0].pid;
    a.signal(Signal::SIGKILL);
    a.wait_timeout(Duration::from_secs(5)).expect("A died");
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(-handler_pid), Signal::SIGKILL)
        .expect("kill A's handler group");
    let members = server.zrange_withscores("q:consumers");
    assert_eq!(members.len(), 1, "{members:?}");
    let (a_key, last_beat) = members[0].clone();
    let mut b = start(&handler);
    let b_started = unix_now();
    assert!(
        b_started < last_beat + 1.0,
        "B started {:.2}s after A's last heartbeat: too late to see it wait",
        b_started - last_beat
    );
    assert!(
        wait_until(Duration::from_secs(15), || pending(&server) == 0),
        "{} jobs left: {}",
        pending(&server),
        b.stderr()
    );
    b.stop(Duration::from_secs(10));
    let runs = stamps.entries();
    let b_first = runs[1].start;
    let after = b_first - last_beat;
    assert!(
        after >= 2.0 - 0.005,
        "B started a job {after:.3}s after A's last heartbeat, within the cut-off of 2s"
    );
    assert!(
        after <= 2.0 + 1.5,
        "B started its first job only {after:.3}s after A's last heartbeat (cut-off 2s)"
    );
    let mut ran: Vec<&str> = runs.iter().map(|r| r.id.as_str()).collect();
    ran.sort();
    assert_eq!(
        ran,
        ["long", "long", "s1", "s2", "s3", "s4"],
        "A's job was recovered and ran again, the rest once each"
    );
    assert!(
        b.stderr().contains("recovered 1 job of expired consumer"),
        "{}",
        b.stderr()
    );
    assert!(server.smembers(&a_key).is_empty());
    assert!(invariants(&server, "q").is_empty());
    figure(&format!(
        "L3 cap 1, consumer A SIGKILLed mid-job (--orphan-after 2s, heartbeat 0.5s): B started {:.2}s after A's last heartbeat, its first job {after:.2}s after it (cut-off 2s); A's job recovered and run again",
        b_started - last_beat
    ));
}

// ---------------------------------------------------------------------------------------
// L4 a consumer's own --rate

#[test]
fn a_consumers_own_rate_of_20_per_second_starts_60_jobs_in_3_seconds_evenly() {
    let server = RedisServer::start();
    enqueue_numbered(&server, "q", "o", 80);
    let stamps = Stamps::new();
    let mut c = consumer(
        &server,
        &["-c", "4", "--rate", "20/s"],
        &stamps.args(Mode::PerJob, "0"),
    );
    assert!(
        wait_until(Duration::from_secs(10), || !stamps.entries().is_empty()),
        "{}",
        c.stderr()
    );
    let t0 = sorted_starts(&stamps.entries())[0];
    while unix_now() < t0 + 3.3 {
        std::thread::sleep(Duration::from_millis(50));
    }
    let starts: Vec<f64> = sorted_starts(&stamps.entries())
        .into_iter()
        .filter(|s| *s < t0 + 3.0)
        .collect();
    stop_all(std::slice::from_mut(&mut c));
    let n = starts.len();
    let close = close_pairs(&starts, 0.025);
    let min_gap = starts
        .windows(2)
        .map(|w| w[1] - w[0])
        .fold(f64::MAX, f64::min);
    assert!((54..=66).contains(&n), "{n} starts in 3 s at --rate 20/s");
    // A start that comes late (a fork on a busy machine) makes one close pair, and a machine
    // whose two cores other builds share makes a few (7 of 58 seen so); starts kept in bursts
    // would make most of them close.
    let median = median_gap(&starts);
    assert!(
        close <= n / 5,
        "{close} of {n} starts came less than 25 ms after the one before (one every 50 ms)"
    );
    assert!(
        (0.042..=0.058).contains(&median),
        "the median gap between starts is {:.1} ms (one every 50 ms)",
        median * 1000.0
    );
    assert!(invariants(&server, "q").is_empty());
    figure(&format!(
        "L4 consume --rate 20/s -c 4: {n} starts in 3 s (want 54..=66), {close} gaps < 25 ms, median gap {:.1} ms, min gap {:.1} ms",
        median * 1000.0,
        min_gap * 1000.0
    ));
}

// ---------------------------------------------------------------------------------------
// L5 qctl limit: show, set, clear

/// A consumer as Go CurlyQ leaves it: its member in `q:consumers` with a fresh heartbeat,
/// its in-flight set, its job's record; no `q:consumer:<uuid>` description.
const GO: &str = "q:inflight:0b7d3e2a-1c4f-4d5e-9f00-aabbccddeeff";

fn plant_go_consumer(server: &RedisServer, id: &str) {
    let record = Job::new(id, Some(b"go".to_vec())).encode();
    let _: () = server.cmd(&[b"HSET", b"q:data", id.as_bytes(), &record]);
    let _: () = server.cmd(&[b"SADD", GO.as_bytes(), id.as_bytes()]);
    go_heartbeat(server, qctl::engine::now());
}

fn go_heartbeat(server: &RedisServer, at: f64) {
    let at = at.to_string();
    let _: () = server.cmd(&[b"ZADD", b"q:consumers", at.as_bytes(), GO.as_bytes()]);
}

#[test]
fn limit_shows_sets_and_clears_the_limits_and_counts_what_runs_at_qctl_and_go_consumers() {
    let server = RedisServer::start();

    // A queue with no keys: nothing to show; setting warns and sets.
    qctl(&server).args(["limit", "none"]).assert().code(5);
    let out = qctl(&server)
        .args(["limit", "none", "--max-running", "3"])
        .assert()
        .success()
        .get_output()
        .clone();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("warning") && stderr.contains("setting its limits anyway"),
        "{stderr}"
    );
    assert_eq!(
        hgetall(&server, "none:limits"),
        fields(&[("max_running", "3")])
    );

    // A bad rate: a usage error that shows what a rate looks like.
    let out = qctl(&server)
        .args(["limit", "none", "--rate", "5/d"])
        .assert()
        .code(2)
        .get_output()
        .clone();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("5/d") && stderr.contains("100/s"),
        "{stderr}"
    );
    qctl(&server)
        .args(["consume", "none", "--rate", "5/d", "--", "true"])
        .assert()
        .code(2);
    assert_eq!(
        hgetall(&server, "none:limits"),
        fields(&[("max_running", "3")]),
        "a refused change changes nothing"
    );

    // A queue without limits.
    support::enqueue(&server, "q", "hold", b"");
    let out = qctl(&server).args(["limit", "q"]).assert().success();
    assert_eq!(
        String::from_utf8_lossy(&out.get_output().stdout),
        "queue \"q\" has no limits: its consumers start jobs as fast as they can\n"
    );

    // Set all three at once: the new limits on stderr, the fields in the hash.
    let out = qctl(&server)
        .args([
            "limit",
            "q",
            "--rate",
            "100/s",
            "--burst",
            "3",
            "--max-running",
            "4",
        ])
        .assert()
        .success()
        .get_output()
        .clone();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("100/s") && stderr.contains("burst 3") && stderr.contains("max running  4"),
        "{stderr}"
    );
    assert_eq!(
        hgetall(&server, "q:limits"),
        fields(&[
            ("rate", "100"),
            ("rate_text", "100/s"),
            ("burst", "3"),
            ("max_running", "4")
        ])
    );

    // One job held at a qctl consumer, one at a Go consumer (registered with a fresh
    // heartbeat, no q:consumer:<uuid> description).
    let mut args = vec!["q", "-c", "1", "--shutdown-grace", "300ms"];
    args.extend(FAST);
    args.extend(["--", "sleep", "30"]);
    let mut held = spawn_consumer_at(&server.url(), &args);
    assert!(
        wait_until(Duration::from_secs(10), || server
            .lrange("q:active")
            .is_empty()),
        "{}",
        held.stderr()
    );
    plant_go_consumer(&server, "g1");

    let out = qctl(&server)
        .args(["limit", "q", "--json"])
        .assert()
        .success()
        .get_output()
        .clone();
    let shown: Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!(
        shown,
        json!({
            "queue": "q",
            "rate": 100.0,
            "rate_text": "100/s",
            "burst": 3,
            "max_running": 4,
            "stops_all": false,
            "running": 2,
            "tokens": 3.0,
            "qctl_consumers": 1,
            "other_consumers": 1,
        })
    );
    let warning = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        warning.contains("warning")
            && warning.contains("1 consumer of queue \"q\" is not qctl's")
            && warning.contains("Go CurlyQ"),
        "{warning}"
    );
    let out = qctl(&server).args(["limit", "q"]).assert().success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(
        text.contains("100/s (burst 3)")
            && text.contains("3.0 of 3 may start now")
            && text.contains("max running  4; 2 in flight at 2 live consumers"),
        "{text}"
    );

    // A Go consumer whose heartbeat is older than --orphan-after is gone: not counted.
    go_heartbeat(&server, qctl::engine::now() - 5.0);
    let out = qctl(&server)
        .args(["limit", "q", "--json", "--orphan-after", "3s"])
        .assert()
        .success()
        .get_output()
        .clone();
    let shown: Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!(
        (
            &shown["running"],
            &shown["qctl_consumers"],
            &shown["other_consumers"]
        ),
        (&json!(1), &json!(1), &json!(0)),
        "{shown}"
    );
    assert!(!String::from_utf8_lossy(&out.stderr).contains("Go CurlyQ"));

    // --no-rate takes the rate, its burst and its bucket.
    limit(&server, &["--no-rate"]);
    assert_eq!(
        hgetall(&server, "q:limits"),
        fields(&[("max_running", "4")])
    );
    assert_eq!(server.key_type("q:bucket"), "none");
    // A burst without a rate means nothing: refused, nothing written.
    let out = qctl(&server)
        .args(["limit", "q", "--burst", "5"])
        .output()
        .expect("run qctl");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--rate"));
    assert_eq!(
        hgetall(&server, "q:limits"),
        fields(&[("max_running", "4")])
    );
    // A rate in another unit, kept per second and as written.
    limit(&server, &["--rate", "30/m"]);
    assert_eq!(
        hgetall(&server, "q:limits"),
        fields(&[("rate", "0.5"), ("rate_text", "30/m"), ("max_running", "4")])
    );
    limit(&server, &["--no-max-running"]);
    assert_eq!(
        hgetall(&server, "q:limits"),
        fields(&[("rate", "0.5"), ("rate_text", "30/m")])
    );
    limit(&server, &["--max-running", "0", "--burst", "2"]);
    let out = qctl(&server)
        .args(["--json", "limit", "q"])
        .assert()
        .success()
        .get_output()
        .clone();
    let shown: Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!(
        (
            &shown["rate"],
            &shown["burst"],
            &shown["max_running"],
            &shown["stops_all"],
            &shown["tokens"]
        ),
        (&json!(0.5), &json!(2), &json!(0), &json!(true), &json!(2.0))
    );
    limit(&server, &["--clear"]);
    assert_eq!(server.key_type("q:limits"), "none");
    assert_eq!(server.key_type("q:bucket"), "none");
    let out = qctl(&server)
        .args(["limit", "q", "--json"])
        .assert()
        .success()
        .get_output()
        .clone();
    let shown: Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!(
        (&shown["rate"], &shown["max_running"], &shown["running"]),
        (&Value::Null, &Value::Null, &json!(2))
    );
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("Go CurlyQ"),
        "no limits, nothing ignored"
    );
    assert_eq!(
        held.stop(Duration::from_secs(10)).and_then(|s| s.code()),
        Some(0)
    );
    figure("L5 qctl limit: no keys -> exit 5 (set: warning, set), 5/d -> exit 2 naming 100/s, set rate+burst+cap in the hash, --json exact with 1 job at qctl and 1 at a Go consumer (running 2, other_consumers 1, warning), --no-rate/--no-max-running/--clear remove their fields");
}

// ---------------------------------------------------------------------------------------
// L6 a cap of 0 (or a rate of 0) acts like pause

#[test]
fn a_cap_of_0_acts_like_pause_and_raising_it_lets_a_waiting_consumer_go_on() {
    let server = RedisServer::start();
    let ids = enqueue_numbered(&server, "q", "p", 3);
    let stamps = Stamps::new();
    let drain = |stamps: &Stamps| {
        qctl(&server)
            .args(["consume", "q", "--drain", "-c", "2"])
            .args(FAST)
            .args(stamps.args(Mode::PerJob, "0"))
            .timeout(Duration::from_secs(20))
            .assert()
            .get_output()
            .clone()
    };
    limit(&server, &["--max-running", "0"]);
    let out = drain(&stamps);
    assert_eq!(out.status.code(), Some(8), "{:?}", out);
    limit(&server, &["--no-max-running", "--rate", "0/s"]);
    let out = drain(&stamps);
    assert_eq!(out.status.code(), Some(8), "{:?}", out);
    assert!(stamps.entries().is_empty(), "nothing ran");
    assert_eq!(server.lrange("q:active"), ids);

    limit(&server, &["--no-rate", "--max-running", "0"]);
    let mut c = consumer(&server, &["-c", "2"], &stamps.args(Mode::PerJob, "0.2"));
    std::thread::sleep(Duration::from_millis(1500));
    assert!(
        stamps.entries().is_empty(),
        "a job started under a cap of 0"
    );
    assert_eq!(server.lrange("q:active"), ids);
    // A Go CurlyQ consumer (fresh heartbeat, no description) holds a job: it counts against
    // the cap, so of a cap of 2 one job at a time is left to qctl.
    plant_go_consumer(&server, "g1");
    let raised = unix_now();
    limit(&server, &["--max-running", "2"]);
    assert!(
        wait_until(Duration::from_secs(10), || pending(&server) == 1),
        "{}",
        c.stderr()
    );
    stop_all(std::slice::from_mut(&mut c));
    let runs = stamps.entries();
    let (lost, dup) = once_each(&ids, &runs);
    assert_eq!((lost, dup), (0, 0));
    let went_on = sorted_starts(&runs)[0] - raised;
    assert!(
        (0.0..=1.5).contains(&went_on),
        "the first job started {went_on:.2}s after the cap was raised"
    );
    let most = max_overlap(&runs);
    assert_eq!(
        most, 1,
        "cap 2 with 1 job in flight at a Go consumer: qctl ran {most} at once"
    );
    assert_eq!(server.smembers(GO), ["g1"]);
    assert!(invariants(&server, "q").is_empty());
    figure(&format!(
        "L6 cap 0 and rate 0: consume --drain exits 8 running nothing; a waiting consumer started {went_on:.2}s after the cap was raised to 2, running {most} at once beside a Go consumer's job"
    ));
}

// ---------------------------------------------------------------------------------------
// L7 what a limited run leaves for Go

#[test]
fn a_limited_run_leaves_the_queue_as_go_curlyq_reads_it() {
    let server = RedisServer::start();
    let ids = enqueue_numbered(&server, "q", "g", 12);
    support::enqueue(&server, "q", "bad", b"fail");
    limit(
        &server,
        &["--max-running", "2", "--rate", "100/s", "--burst", "2"],
    );
    let out = qctl(&server)
        .args(["consume", "q", "--drain", "-c", "4", "--max-retries", "0"])
        .args(FAST)
        .args(["--", "sh", "-c", "d=$(cat); [ \"$d\" != fail ] || exit 3"])
        .timeout(Duration::from_secs(20))
        .assert()
        .code(7)
        .get_output()
        .clone();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(invariants(&server, "q"), Vec::<String>::new());
    for id in &ids {
        assert_eq!(
            server.hget_bytes("q:data", id),
            None,
            "{id} acked: {stderr}"
        );
    }
    let dead = server.zrange_withscores("q:dead");
    assert_eq!(dead.len(), 1);
    assert_eq!(dead[0].0, "bad");
    // The dead job's record is byte for byte what Go's encoder writes for it.
    let mut want = Job::new("bad", Some(b"fail".to_vec()));
    want.attempt = 1;
    assert_eq!(server.hget_bytes("q:data", "bad"), Some(want.encode()));
    assert_eq!(server.key_type("q:active"), "none");
    assert_eq!(
        server.key_type("q:consumers"),
        "none",
        "a clean exit deregisters"
    );
    let inflight: Vec<String> = server.cmd(&[b"KEYS", b"q:inflight:*"]);
    assert!(inflight.is_empty(), "{inflight:?}");
    // What qctl added beside Go's keys all starts with q: (it follows the queue's slot).
    let keys: Vec<String> = server.cmd(&[b"KEYS", b"*"]);
    assert!(keys.iter().all(|k| k.starts_with("q:")), "{keys:?}");
    // The limits stay for the next consumers.
    assert_eq!(
        hgetall(&server, "q:limits"),
        fields(&[
            ("rate", "100"),
            ("rate_text", "100/s"),
            ("burst", "2"),
            ("max_running", "2")
        ])
    );
    let mut keys = keys;
    keys.sort();
    figure(&format!(
        "L7 a drain under cap 2 and 100/s: 12 jobs acked, 1 dead with a Go-exact record (attempt 1), invariants hold, keys left {keys:?}"
    ));
}
