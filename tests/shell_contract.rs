//! The shell contract: qctl as people run it, in pipelines, with Ctrl-C and in CI. Every
//! subcommand runs with its stdout closed, its stderr closed, both, and through `| head -1`;
//! consume also with SIGINT delivered to the whole pipeline (as a terminal's Ctrl-C does) and
//! with SIGTERM; and the `--drain` cases a CI script relies on. Each run must end with the exit
//! code of docs/exit-codes.md, never 101 (a panic), and leave no job in flight and no consumer
//! registered.

mod support;

use std::os::unix::process::CommandExt as _;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use support::tmux::Tmux;
use support::{figure, qctl, qctl_process, wait_until, RedisServer, FAST};

/// How a run's output goes.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Out {
    /// stdout is a pipe whose reader is gone.
    StdoutClosed,
    /// stderr is a pipe whose reader is gone.
    StderrClosed,
    /// Both are.
    BothClosed,
    /// `qctl ... 2>&1 | head -1`.
    HeadOne,
}

const MODES: [Out; 4] = [
    Out::StdoutClosed,
    Out::StderrClosed,
    Out::BothClosed,
    Out::HeadOne,
];

#[derive(Debug)]
struct Ran {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// The write end of a pipe whose read end is already closed.
fn closed_pipe() -> Stdio {
    let (read, write) = nix::unistd::pipe().expect("pipe");
    drop(read);
    Stdio::from(write)
}

/// Waits for `child` at most `limit`; kills it past that (the test then fails on its code).
fn wait_for(child: &mut std::process::Child, limit: Duration) -> Option<i32> {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            return status.code();
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Runs qctl ARGS against `server` with its output as `mode` says, `stdin` on its stdin.
fn run(server: &RedisServer, args: &[&str], stdin: Option<&[u8]>, mode: Out) -> Ran {
    let mut cmd = if mode == Out::HeadOne {
        let qctl_cmd = qctl_process(server);
        let mut sh = Command::new("bash");
        sh.arg("-c")
            .arg(r#""$@" 2>&1 | head -1; exit "${PIPESTATUS[0]}""#)
            .arg("qctl")
            .arg(qctl_cmd.get_program())
            .args(qctl_cmd.get_args())
            .args(args)
            .env("NO_COLOR", "1")
            .env_remove("QCTL_REDIS_URL")
            .env_remove("REDIS_URL");
        sh.stdout(Stdio::piped()).stderr(Stdio::piped());
        sh
    } else {
        let mut cmd = qctl_process(server);
        cmd.args(args);
        let (out, err) = match mode {
            Out::StdoutClosed => (closed_pipe(), Stdio::piped()),
            Out::StderrClosed => (Stdio::piped(), closed_pipe()),
            _ => (closed_pipe(), closed_pipe()),
        };
        cmd.stdout(out).stderr(err);
        cmd
    };
    cmd.stdin(if stdin.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    });
    let mut child = cmd.spawn().expect("start qctl");
    if let (Some(input), Some(mut pipe)) = (stdin, child.stdin.take()) {
        use std::io::Write as _;
        let input = input.to_vec();
        std::thread::spawn(move || {
            let _ = pipe.write_all(&input);
        });
    }
    let readers: Vec<_> = [
        child
            .stdout
            .take()
            .map(|s| Box::new(s) as Box<dyn std::io::Read + Send>),
        child
            .stderr
            .take()
            .map(|s| Box::new(s) as Box<dyn std::io::Read + Send>),
    ]
    .into_iter()
    .map(|pipe| {
        std::thread::spawn(move || {
            let mut text = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut text);
            }
            String::from_utf8_lossy(&text).into_owned()
        })
    })
    .collect();
    let code = wait_for(&mut child, Duration::from_secs(60));
    let mut texts = readers.into_iter().map(|r| r.join().unwrap_or_default());
    Ran {
        code,
        stdout: texts.next().unwrap_or_default(),
        stderr: texts.next().unwrap_or_default(),
    }
}

/// The queue `q`: 30 ready jobs r1..r30, 30 dead d1..d30 with recorded failures, 5 scheduled
/// for later s1..s5. Everything else is deleted first.
fn fill(server: &RedisServer) {
    let _: () = server.cmd(&[b"FLUSHALL"]);
    let mut conn = server.conn();
    let mut pipe = redis::pipe();
    let later = qctl::engine::now() + 3600.0;
    for i in 1..=30 {
        for (prefix, data) in [("r", format!("{i}")), ("d", format!("dead {i}"))] {
            let id = format!("{prefix}{i}");
            let record = qctl::engine::Job::new(id.as_str(), Some(data.into_bytes())).encode();
            pipe.hset("q:data", &id, record);
        }
        pipe.rpush("q:active", format!("r{i}"));
        pipe.zadd("q:dead", format!("d{i}"), 1_700_000_000 + i);
        pipe.hset(
            "q:failures",
            format!("d{i}"),
            format!(r#"{{"reason":"exit 3","exit_code":3,"stderr":"502 from gateway {i}\n","attempt":2,"time":1700000000}}"#),
        );
    }
    for i in 1..=5 {
        let id = format!("s{i}");
        let record = qctl::engine::Job::new(id.as_str(), Some(b"later".to_vec())).encode();
        pipe.hset("q:data", &id, record);
        pipe.zadd("q:scheduled", &id, later);
    }
    let _: () = pipe.query(&mut conn).expect("fill the queue");
}

/// A consumer silent for ten minutes holding `o1` (with its record).
const EXPIRED: &str = "q:inflight:0b7d3e2a-1c4f-4d5e-9f00-aabbccddeeff";

fn plant_expired(server: &RedisServer) {
    let record = qctl::engine::Job::new("o1", Some(b"orphan".to_vec())).encode();
    let _: () = server.cmd(&[b"HSET", b"q:data", b"o1", &record]);
    let _: () = server.cmd(&[b"SADD", EXPIRED.as_bytes(), b"o1"]);
    let then = (qctl::engine::now() - 600.0).to_string();
    let _: () = server.cmd(&[b"ZADD", b"q:consumers", then.as_bytes(), EXPIRED.as_bytes()]);
}

/// Consumers registered and jobs in flight, other than the planted expired consumer and its
/// job when `planted` says it is still expected.
fn leftovers(server: &RedisServer, planted: bool) -> Vec<String> {
    let mut found = Vec::new();
    let members: Vec<String> = server.cmd(&[b"ZRANGE", b"q:consumers", b"0", b"-1"]);
    for m in members {
        if !(planted && m == EXPIRED) {
            found.push(format!("consumer {m} still registered"));
        }
    }
    let keys: Vec<String> = server.cmd(&[b"KEYS", b"q:inflight:*"]);
    for k in keys {
        if planted && k == EXPIRED {
            continue;
        }
        let n: u64 = server.cmd(&[b"SCARD", k.as_bytes()]);
        if n > 0 {
            found.push(format!("{n} job(s) in flight in {k}"));
        }
    }
    let journals: Vec<String> = server.cmd(&[b"KEYS", b"*:move-*"]);
    for k in journals {
        found.push(format!("a move's journal left: {k}"));
    }
    found
}

/// Asserts a run ended with `want` (never a panic) and left nothing behind.
fn check(server: &RedisServer, what: &str, ran: &Ran, want: i32, planted: bool) {
    assert_ne!(ran.code, Some(101), "{what}: a panic\n{ran:?}");
    assert!(
        !ran.stderr.contains("panicked") && !ran.stdout.contains("panicked"),
        "{what}: {ran:?}"
    );
    assert_eq!(ran.code, Some(want), "{what}\n{ran:?}");
    let left = leftovers(server, planted);
    assert!(left.is_empty(), "{what}: {left:?}\n{ran:?}");
}

/// A subcommand run in every output mode.
struct Case {
    name: &'static str,
    args: Vec<&'static str>,
    stdin: Option<&'static [u8]>,
    /// The exit code it ends with when its output is fine.
    code: i32,
    /// The modes in which its output closes before its work is done: it stops there, 141.
    stops: &'static [Out],
}

fn case(
    name: &'static str,
    args: &[&'static str],
    stdin: Option<&'static [u8]>,
    code: i32,
) -> Case {
    Case {
        name,
        args: args.to_vec(),
        stdin,
        code,
        stops: &[],
    }
}

/// A change that says what it will do on stderr before it does it: with its stderr closed it
/// stops there, having done nothing.
fn says_first(mut c: Case) -> Case {
    c.stops = &[Out::StderrClosed, Out::BothClosed];
    c
}

/// Every subcommand, with the exit code it ends with when its output is fine. A command that
/// only reads ends with that code however its output is closed. One that changes the queue
/// stops at a clean point when its output closes before its work is done (141), and keeps its
/// code when the work was done before it reported.
fn commands() -> Vec<Case> {
    vec![
        case("stats", &["stats"], None, 0),
        case("stats q", &["stats", "q"], None, 0),
        case("stats --json", &["stats", "--json"], None, 0),
        case("stats --prometheus", &["stats", "--prometheus"], None, 0),
        case("dead list", &["dead", "list", "q"], None, 0),
        case(
            "dead list --jsonl",
            &["dead", "list", "q", "--jsonl", "--limit", "30"],
            None,
            0,
        ),
        case(
            "dead list --json",
            &["dead", "list", "q", "--json"],
            None,
            0,
        ),
        case("dead show", &["dead", "show", "q", "d1"], None, 0),
        case(
            "dead show --raw",
            &["dead", "show", "q", "d1", "--raw"],
            None,
            0,
        ),
        case("dead export", &["dead", "export", "q"], None, 0),
        case("export", &["export", "q"], None, 0),
        case("dead groups", &["dead", "groups", "q"], None, 0),
        case(
            "dead groups --json",
            &["dead", "groups", "q", "--json"],
            None,
            0,
        ),
        case("scheduled list", &["scheduled", "list", "q"], None, 0),
        case("scheduled show", &["scheduled", "show", "q", "s1"], None, 0),
        case("scheduled groups", &["scheduled", "groups", "q"], None, 0),
        case(
            "active list",
            &["active", "list", "q", "--limit", "30"],
            None,
            0,
        ),
        case("consumers", &["consumers", "q"], None, 0),
        case("inflight", &["inflight", "q"], None, 0),
        case("inflight --jsonl", &["inflight", "q", "--jsonl"], None, 0),
        case(
            "tail --no-follow",
            &["tail", "q", "--since", "1d", "--no-follow"],
            None,
            0,
        ),
        case("orphans --dry-run", &["orphans", "q", "--dry-run"], None, 0),
        // wait's answer is its exit code, whatever happens to its output.
        case(
            "wait --timeout",
            &["wait", "q", "--timeout", "0s"],
            None,
            124,
        ),
        case(
            "wait ids",
            &["wait", "q", "d1", "r1", "--timeout", "0s"],
            None,
            124,
        ),
        case(
            "wait ids --json",
            &["wait", "q", "d1", "d2", "--json"],
            None,
            7,
        ),
        case(
            "stats --history",
            &["stats", "q", "--history", "1h", "--step", "1m"],
            None,
            0,
        ),
        // check and doctor answer with their verdict whatever happens to their output:
        // doctor's is CRITICAL, the planted expired consumer holding a job with no live one.
        case("check", &["check", "q", "--dead-max", "0"], None, 2),
        case("doctor", &["doctor", "q"], None, 2),
        case("completions", &["completions", "bash"], None, 0),
        case("man", &["man"], None, 0),
        case("--help", &["--help"], None, 0),
        case(
            "dead requeue --help",
            &["dead", "requeue", "--help"],
            None,
            0,
        ),
        case("--version", &["--version"], None, 0),
        case("a usage error", &["dead", "list"], None, 2),
        case("top off a terminal", &["top"], None, 2),
        case("enqueue", &["enqueue", "q", "hello"], None, 0),
        case(
            "enqueue --id taken",
            &["enqueue", "q", "--id", "r1", "x"],
            None,
            5,
        ),
        case(
            "enqueue --lines",
            &["enqueue", "q", "--lines"],
            Some(b"a\nb\nc\n"),
            0,
        ),
        case(
            "enqueue --jsonl",
            &["enqueue", "q", "--jsonl"],
            Some(b"{\"id\":\"j1\",\"data\":\"x\"}\n"),
            0,
        ),
        case(
            "import",
            &["import", "q2"],
            Some(b"{\"id\":\"i1\",\"data\":\"x\"}\n"),
            0,
        ),
        case(
            "dead requeue --dry-run",
            &["dead", "requeue", "q", "--all", "--dry-run"],
            None,
            0,
        ),
        says_first(case(
            "dead requeue",
            &["dead", "requeue", "q", "--all", "--yes"],
            None,
            0,
        )),
        says_first(case(
            "dead delete",
            &["dead", "delete", "q", "d1", "d2", "--yes"],
            None,
            0,
        )),
        says_first(case(
            "scheduled run-now",
            &["scheduled", "run-now", "q", "s1", "--yes"],
            None,
            0,
        )),
        says_first(case(
            "scheduled delete",
            &["scheduled", "delete", "q", "--all", "--yes"],
            None,
            0,
        )),
        says_first(case(
            "active delete",
            &["active", "delete", "q", "r1", "--yes"],
            None,
            0,
        )),
        case("orphans", &["orphans", "q", "--yes"], None, 0),
        case("orphans unconfirmed", &["orphans", "q"], None, 2),
        case("pause", &["pause", "q"], None, 0),
        case("resume", &["resume", "q"], None, 0),
        says_first(case("purge", &["purge", "q", "--yes"], None, 0)),
        case("purge unconfirmed", &["purge", "q"], None, 2),
        // The planted job in flight stays: exit 7 after --wait.
        says_first(case(
            "move",
            &["move", "q", "q3", "--yes", "--wait", "0s"],
            None,
            7,
        )),
        says_first(case(
            "move --json",
            &["move", "q", "q3", "--yes", "--wait", "0s", "--json"],
            None,
            7,
        )),
        case(
            "move --dry-run",
            &["move", "q", "q3", "--dry-run", "--json"],
            None,
            0,
        ),
        case("move unconfirmed", &["move", "q", "q3"], None, 2),
        case("limit", &["limit", "q"], None, 0),
        case(
            "limit --max-running",
            &["limit", "q", "--max-running", "3", "--rate", "5/s"],
            None,
            0,
        ),
        case("changes", &["changes", "q", "--limit", "0"], None, 0),
    ]
}

#[test]
fn every_command_survives_a_closed_stdout_a_closed_stderr_and_head() {
    let server = RedisServer::start();
    let commands = commands();
    let mut runs = 0;
    let mut wrong = Vec::new();
    for c in &commands {
        for mode in MODES {
            fill(&server);
            plant_expired(&server);
            let ran = run(&server, &c.args, c.stdin, mode);
            let stopped = c.stops.contains(&mode);
            // The planted consumer and its job stay where a command did not get to them.
            let planted = stopped || (c.name != "orphans" && c.name != "purge");
            let want = if stopped { 141 } else { c.code };
            let what = format!("{} [{mode:?}]", c.name);
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                check(&server, &what, &ran, want, planted)
            }));
            if outcome.is_err() {
                wrong.push(format!("{what}: {ran:?}"));
            }
            runs += 1;
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {runs} runs:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    figure(&format!(
        "SC1 closed outputs: {} commands x 4 (stdout closed, stderr closed, both, | head -1) = {runs} runs: exit codes as documented, 0 panics, nothing left in flight",
        commands.len()
    ));
}

/// A consumer's output that closes while it runs stops it as SIGTERM does: running jobs
/// finish or go back, it leaves NAME:consumers, exit 141.
#[test]
fn a_consumer_whose_output_closes_stops_cleanly_with_141() {
    let server = RedisServer::start();
    let cases: [(&str, Vec<&str>, Out, i32); 5] = [
        // The issue's case: failures reported on stderr, read by head.
        (
            "--drain -- false 2>&1 >/dev/null | head -1",
            [
                &["consume", "q", "--drain", "-c", "2", "--max-retries", "0"][..],
                FAST,
                &["--", "false"],
            ]
            .concat(),
            Out::HeadOne,
            141,
        ),
        (
            "--drain --json -- true | head -1",
            [
                &["consume", "q", "--drain", "--json", "-c", "2"][..],
                FAST,
                &["--", "true"],
            ]
            .concat(),
            Out::HeadOne,
            141,
        ),
        (
            "-- echo (stdout closed), forever",
            [&["consume", "q", "-c", "2"][..], FAST, &["--", "echo", "hi"]].concat(),
            Out::StdoutClosed,
            141,
        ),
        (
            "--drain -- sh -c 'echo >&2' (stderr closed)",
            [
                &["consume", "q", "--drain", "-c", "2"][..],
                FAST,
                &["--", "sh", "-c", "echo oops >&2"],
            ]
            .concat(),
            Out::StderrClosed,
            141,
        ),
        (
            "--pipe --drain (stdout and stderr closed)",
            [
                &["consume", "q", "--drain", "--pipe", "-c", "2", "--json"][..],
                FAST,
                &[
                    "--",
                    "python3",
                    "-c",
                    "import json,sys\nfor l in sys.stdin:\n  print(json.dumps({'id':json.loads(l)['id'],'ok':True}),flush=True)",
                ],
            ]
            .concat(),
            Out::BothClosed,
            141,
        ),
    ];
    for (name, args, mode, want) in cases {
        fill(&server);
        let started = Instant::now();
        let ran = run(&server, &args, None, mode);
        check(&server, name, &ran, want, false);
        let ready: u64 = server.cmd(&[b"LLEN", b"q:active"]);
        assert!(ready > 0, "{name}: it stopped before the end ({ran:?})");
        figure(&format!(
            "SC2 consume {name}: exit {want} after {:.1}s with {ready} of 30 jobs left ready, none in flight, no consumer registered",
            started.elapsed().as_secs_f64()
        ));
    }
}

/// qctl and `tee log` in one process group, as a shell runs `qctl ... 2>&1 | tee log`; the
/// signal goes to the whole group, as a terminal's Ctrl-C does. Returns qctl's exit code and
/// what tee wrote.
fn pipeline_signalled(
    server: &RedisServer,
    args: &[&str],
    signal: Signal,
    after: impl FnOnce() -> bool,
) -> (Option<i32>, String) {
    let dir = tempfile::tempdir().expect("temp dir");
    let log = dir.path().join("log");
    let (read, write) = nix::unistd::pipe().expect("pipe");
    let write2 = write.try_clone().expect("dup");
    let mut qctl_cmd = qctl_process(server);
    qctl_cmd
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::from(write))
        .stderr(Stdio::from(write2))
        .process_group(0);
    let mut consumer = qctl_cmd.spawn().expect("start qctl");
    drop(qctl_cmd);
    let pgid = consumer.id() as i32;
    let mut tee = Command::new("tee")
        .arg(&log)
        .stdin(Stdio::from(read))
        .stdout(Stdio::null())
        .process_group(pgid)
        .spawn()
        .expect("start tee");
    assert!(after(), "the run never reached the state to signal it in");
    killpg(Pid::from_raw(pgid), signal).expect("signal the pipeline");
    let code = wait_for(&mut consumer, Duration::from_secs(30));
    let _ = wait_for(&mut tee, Duration::from_secs(5));
    (code, std::fs::read_to_string(&log).unwrap_or_default())
}

#[test]
fn ctrl_c_and_sigterm_through_a_pipeline_stop_a_consumer_cleanly() {
    let server = RedisServer::start();
    let in_flight = |server: &RedisServer, n: usize| {
        wait_until(Duration::from_secs(15), || {
            let keys: Vec<String> = server.cmd(&[b"KEYS", b"q:inflight:*"]);
            keys.iter()
                .map(|k| server.cmd::<u64>(&[b"SCARD", k.as_bytes()]))
                .sum::<u64>()
                >= n as u64
        })
    };
    // (what, args, signal, exit code): a consumer that runs until stopped did what it was
    // asked; a drain did not finish.
    let forever = [
        &["consume", "q", "-c", "2", "--shutdown-grace", "1s"][..],
        FAST,
        &["--", "sleep", "30"],
    ]
    .concat();
    let drain = [
        &[
            "consume",
            "q",
            "--drain",
            "-c",
            "2",
            "--shutdown-grace",
            "1s",
        ][..],
        FAST,
        &["--", "sleep", "30"],
    ]
    .concat();
    let cases = [
        ("consume | tee, Ctrl-C", &forever, Signal::SIGINT, 0),
        ("consume | tee, SIGTERM", &forever, Signal::SIGTERM, 0),
        ("consume --drain | tee, Ctrl-C", &drain, Signal::SIGINT, 130),
        (
            "consume --drain | tee, SIGTERM",
            &drain,
            Signal::SIGTERM,
            143,
        ),
        ("consume --drain | tee, SIGHUP", &drain, Signal::SIGHUP, 129),
    ];
    for (name, args, signal, want) in cases {
        fill(&server);
        let started = Instant::now();
        let (code, log) = pipeline_signalled(&server, args, signal, || in_flight(&server, 2));
        let ran = Ran {
            code,
            stdout: log.clone(),
            stderr: String::new(),
        };
        check(&server, name, &ran, want, false);
        let ready: u64 = server.cmd(&[b"LLEN", b"q:active"]);
        assert_eq!(ready, 30, "{name}: every job went back ({log})");
        figure(&format!(
            "SC3 {name}: exit {want} after {:.1}s, 30 jobs back in q:active with Attempt unchanged, none in flight, no consumer registered",
            started.elapsed().as_secs_f64()
        ));
    }
    // A signal in the first moments of the start, before it has connected and registered. In
    // the instant between exec and qctl's first steps the signal's default action still
    // applies: that ends the process before it has touched Redis (how long that instant lasts
    // depends on the machine's load: it is told by the connections Redis received). From
    // then on it is 143.
    let mut clean = 0;
    let delays = [0u64, 2, 5, 10, 20, 50, 100, 500];
    let mut watcher = server.conn();
    let connections = |conn: &mut redis::Connection| -> u64 {
        let info: String = redis::cmd("INFO").arg("stats").query(conn).unwrap();
        info.lines()
            .find_map(|l| l.strip_prefix("total_connections_received:"))
            .and_then(|n| n.trim().parse().ok())
            .expect("total_connections_received")
    };
    for delay_ms in delays {
        fill(&server);
        let before = connections(&mut watcher);
        let mut cmd = qctl_process(&server);
        cmd.args(&drain)
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().expect("start qctl");
        std::thread::sleep(Duration::from_millis(delay_ms));
        nix::sys::signal::kill(Pid::from_raw(child.id() as i32), Signal::SIGTERM).expect("signal");
        let code = wait_for(&mut child, Duration::from_secs(30));
        let mut err = String::new();
        use std::io::Read as _;
        let _ = child.stderr.take().map(|mut e| e.read_to_string(&mut err));
        let what = format!("SIGTERM {delay_ms} ms into the start");
        let ran = Ran {
            code,
            stdout: String::new(),
            stderr: err,
        };
        if code.is_none() {
            // Killed by the signal itself: only before it did anything.
            assert!(ran.stderr.is_empty(), "{what}: {ran:?}");
            assert_eq!(
                connections(&mut watcher),
                before,
                "{what}: killed by the signal after it had connected"
            );
            let left = leftovers(&server, false);
            assert!(left.is_empty(), "{what}: {left:?}");
        } else {
            check(&server, &what, &ran, 143, false);
            clean += 1;
        }
        let ready: u64 = server.cmd(&[b"LLEN", b"q:active"]);
        assert_eq!(ready, 30, "{what}: every job is ready again");
    }
    assert!(clean > 0, "no run lived long enough to stop cleanly");
    figure(&format!(
        "SC3 SIGTERM 0 to 500 ms into a drain's start ({} runs): {clean} exited 143 after stopping cleanly, the others ended by the signal before touching Redis; nothing in flight, no consumer registered",
        delays.len()
    ));
}

/// `qctl move ... 2>&1 | tee log` stopped by Ctrl-C, SIGTERM and SIGHUP to the whole group
/// while it moves: it stops between chunks with the signal's code and says what moved; no job
/// is left in a journal, none is in both queues, and the ready jobs keep their order (the
/// moved ones are the head of the source, the rest is still there).
#[test]
fn ctrl_c_sigterm_and_sighup_through_a_pipeline_stop_a_move_between_chunks() {
    let server = RedisServer::start();
    let total = 200_000u64;
    let lines: String = (1..=total).map(|i| format!("{i}\n")).collect();
    for (signal, want) in [
        (Signal::SIGINT, 130),
        (Signal::SIGTERM, 143),
        (Signal::SIGHUP, 129),
    ] {
        let _: () = server.cmd(&[b"FLUSHALL"]);
        qctl(&server)
            .args(["enqueue", "big", "--lines"])
            .write_stdin(lines.clone())
            .assert()
            .success();
        let order = server.lrange("big:active");
        let started = Instant::now();
        let (code, log) =
            pipeline_signalled(&server, &["move", "big", "moved", "--yes"], signal, || {
                wait_until(Duration::from_secs(20), || {
                    server.cmd::<u64>(&[b"LLEN", b"moved:active"]) >= 5_000
                })
            });
        let what = format!("move | tee, {signal}");
        assert_eq!(code, Some(want), "{what}: {log}");
        assert!(!log.contains("panicked"), "{what}: {log}");
        assert!(
            log.contains("moved"),
            "{what}: the summary says what moved: {log}"
        );
        let journals: Vec<String> = server.cmd(&[b"KEYS", b"*:move-*"]);
        assert!(journals.is_empty(), "{what}: {journals:?}");
        let moved = server.lrange("moved:active");
        let left = server.lrange("big:active");
        assert!(
            !moved.is_empty() && !left.is_empty(),
            "{what}: stopped half-way"
        );
        assert_eq!(
            moved.len() + left.len(),
            order.len(),
            "{what}: every job once"
        );
        assert_eq!(
            &order[..moved.len()],
            &moved[..],
            "{what}: the head moved, in order"
        );
        assert_eq!(
            &order[moved.len()..],
            &left[..],
            "{what}: the rest stayed, in order"
        );
        let records: u64 = server.cmd(&[b"HLEN", b"moved:data"]);
        assert_eq!(
            records,
            moved.len() as u64,
            "{what}: records went with their ids"
        );
        figure(&format!(
            "SC8 {what}: exit {want} after {:.1}s, {} of {total} jobs moved in order, the rest in place, no journal left",
            started.elapsed().as_secs_f64(),
            moved.len()
        ));
    }
}

/// systemd's `KillMode=control-group` (and a Ctrl-C that reaches a handler in the instant it
/// is being started) sends the consumer's stop signal to its handlers too. A handler that dies
/// of it was stopped with the consumer: its job goes back unchanged, no failed run recorded.
#[test]
fn a_handler_killed_by_the_signal_that_stops_the_consumer_gives_its_job_back() {
    let server = RedisServer::start();
    let dir = tempfile::tempdir().expect("temp dir");
    let pids = dir.path().join("pids");
    let script = format!("echo $$ >> '{}'; exec sleep 30", pids.display());
    for signal in [Signal::SIGTERM, Signal::SIGINT] {
        fill(&server);
        let _ = std::fs::remove_file(&pids);
        let mut cmd = qctl_process(&server);
        cmd.args(["consume", "q", "-c", "2", "--shutdown-grace", "10s"])
            .args(FAST)
            .args(["--", "sh", "-c", &script])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let mut consumer = cmd.spawn().expect("start qctl");
        let started = || {
            std::fs::read_to_string(&pids)
                .map(|s| s.lines().count() >= 2)
                .unwrap_or(false)
        };
        assert!(
            wait_until(Duration::from_secs(15), started),
            "{signal}: the handlers never started"
        );
        let handlers: Vec<i32> = std::fs::read_to_string(&pids)
            .unwrap()
            .lines()
            .map(|l| l.trim().parse().expect("a pid"))
            .collect();
        let began = Instant::now();
        for pid in handlers.iter().copied().chain([consumer.id() as i32]) {
            let _ = nix::sys::signal::kill(Pid::from_raw(pid), signal);
        }
        let code = wait_for(&mut consumer, Duration::from_secs(30));
        let mut err = String::new();
        use std::io::Read as _;
        let _ = consumer
            .stderr
            .take()
            .map(|mut e| e.read_to_string(&mut err));
        let what = format!("handlers and consumer sent {signal}");
        let ran = Ran {
            code,
            stdout: String::new(),
            stderr: err.clone(),
        };
        check(&server, &what, &ran, 0, false);
        let ready: u64 = server.cmd(&[b"LLEN", b"q:active"]);
        assert_eq!(ready, 30, "{what}: every job went back\n{err}");
        let scheduled: u64 = server.cmd(&[b"ZCARD", b"q:scheduled"]);
        assert_eq!(
            scheduled, 5,
            "{what}: no job was scheduled for a retry\n{err}"
        );
        let failures: u64 = server.cmd(&[b"HLEN", b"q:failures"]);
        assert_eq!(failures, 30, "{what}: no failure was recorded\n{err}");
        for id in ["r1", "r2"] {
            let record: Vec<u8> = server.cmd(&[b"HGET", b"q:data", id.as_bytes()]);
            let job = qctl::engine::Job::decode(&record).expect("a record");
            assert_eq!(job.attempt, 0, "{what}: {id}'s attempt is unchanged");
        }
        let handlers_run = std::fs::read_to_string(&pids).unwrap().lines().count();
        assert_eq!(
            handlers_run, 2,
            "{what}: no job started after the signal\n{err}"
        );
        assert!(
            !err.contains("failed"),
            "{what}: no run is reported failed\n{err}"
        );
        figure(&format!(
            "SC7 {what}: exit 0 after {:.1}s, both jobs back in q:active with attempt 0, no failure recorded",
            began.elapsed().as_secs_f64()
        ));
    }
}

#[test]
fn drains_exit_codes_tell_ci_what_happened() {
    let server = RedisServer::start();
    let dir = tempfile::tempdir().unwrap();
    let drain = |extra: &[&str], handler: &[&str]| -> Vec<String> {
        [
            &["consume", "q", "--drain", "-c", "2"][..],
            FAST,
            extra,
            &["--"],
            handler,
        ]
        .concat()
        .into_iter()
        .map(str::to_string)
        .collect()
    };
    let ten = || {
        let _: () = server.cmd(&[b"FLUSHALL"]);
        qctl(&server)
            .args(["enqueue", "q", "--lines"])
            .write_stdin("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n")
            .assert()
            .success();
    };
    let exec = |args: Vec<String>| {
        let out = qctl(&server).args(&args).output().expect("run qctl");
        Ran {
            code: out.status.code(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    };

    // A flaky case passes on its second try: the drain waits for its retry (backoff up to
    // 1 s) and exits 0.
    ten();
    let flaky = [
        "sh",
        "-c",
        "[ \"$QCTL_JOB_ATTEMPT\" -ge 1 ] || [ \"$(cat)\" != 3 ]",
    ];
    let mut args = drain(&["--max-retries", "3"], &flaky);
    let at = args.iter().position(|a| a == "--max-backoff").unwrap();
    args[at + 1] = "1s".into();
    let started = Instant::now();
    let ran = exec(args);
    check(&server, "a flaky case", &ran, 0, false);
    assert!(ran.stderr.contains("retried 1"), "{ran:?}");
    assert!(ran.stderr.contains("drained; nothing left"), "{ran:?}");
    assert_eq!(
        server.cmd::<u64>(&[b"HLEN", b"q:data"]),
        0,
        "every job acked"
    );
    figure(&format!(
        "SC4 drain, a case passing on its second try (backoff capped at 1s): exit 0 after {:.1}s, retried 1, nothing left",
        started.elapsed().as_secs_f64()
    ));

    // A case that keeps failing ends dead: 7.
    ten();
    let failing = ["sh", "-c", "[ \"$(cat)\" != 3 ]"];
    let ran = exec(drain(&["--max-retries", "2"], &failing));
    check(&server, "a failing case", &ran, 7, false);
    assert!(ran.stderr.contains("dead 1"), "{ran:?}");
    assert_eq!(server.cmd::<u64>(&[b"ZCARD", b"q:dead"]), 1);

    // A paused queue with jobs ready: 8, the jobs untouched.
    ten();
    qctl(&server).args(["pause", "q"]).assert().success();
    let ran = exec(drain(&[], &["true"]));
    check(&server, "a paused queue", &ran, 8, false);
    assert!(ran.stderr.contains("the queue is paused"), "{ran:?}");
    assert!(ran.stderr.contains("; left: 10 ready"), "{ran:?}");
    assert_eq!(server.cmd::<u64>(&[b"LLEN", b"q:active"]), 10);

    // --max-jobs stops a drain with jobs left: 9.
    ten();
    let ran = exec(drain(&["--max-jobs", "4", "-c", "1"], &["true"]));
    check(&server, "--max-jobs with jobs left", &ran, 9, false);
    assert!(ran.stderr.contains("left: 6 ready"), "{ran:?}");

    // Jobs a producer scheduled for later are reported, not waited for...
    ten();
    qctl(&server)
        .args(["enqueue", "q", "--id", "later", "--in", "1h", "x"])
        .assert()
        .success();
    let ran = exec(drain(&[], &["true"]));
    check(&server, "a job scheduled for later", &ran, 0, false);
    assert!(
        ran.stderr
            .contains("left: 1 scheduled for later (not waited for"),
        "{ran:?}"
    );
    // ...unless --wait-scheduled asks.
    let _: () = server.cmd(&[b"FLUSHALL"]);
    qctl(&server)
        .args(["enqueue", "q", "--id", "soon", "--in", "1s", "x"])
        .assert()
        .success();
    let marker = dir.path().join("ran");
    let started = Instant::now();
    let ran = exec(drain(
        &["--wait-scheduled"],
        &["sh", "-c", "touch \"$1\"", "sh", marker.to_str().unwrap()],
    ));
    check(&server, "--wait-scheduled", &ran, 0, false);
    assert!(marker.exists(), "the scheduled job ran: {ran:?}");
    figure(&format!(
        "SC4 drain: a failing case 7, a paused queue 8, --max-jobs with jobs left 9, a job scheduled in 1s run with --wait-scheduled after {:.1}s",
        started.elapsed().as_secs_f64()
    ));
}

/// A bug that panics inside a consumer (injected with `$QCTL_TEST_PANIC`, debug builds only)
/// still returns its jobs and takes it out of NAME:consumers: exit 1, "internal error", never
/// 101.
#[test]
fn a_panic_in_a_consumer_returns_its_jobs_and_exits_1() {
    let server = RedisServer::start();
    for point in ["poller", "consume"] {
        fill(&server);
        let out = qctl(&server)
            .args(["-v", "consume", "q", "--drain", "-c", "2"])
            .args(FAST)
            .args(["--", "sleep", "0.2"])
            .env("QCTL_TEST_PANIC", point)
            .timeout(Duration::from_secs(60))
            .output()
            .expect("run qctl");
        let ran = Ran {
            code: out.status.code(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        };
        assert!(
            ran.stderr.contains("qctl: internal error"),
            "{point}: {ran:?}"
        );
        let ran = Ran {
            stderr: ran.stderr.replace("panicked at", "failed at"),
            ..ran
        };
        check(&server, &format!("a panic in the {point}"), &ran, 1, false);
        let ready: u64 = server.cmd(&[b"LLEN", b"q:active"]);
        let done: u64 = server
            .cmd::<Option<u64>>(&[b"HGET", b"q:stats", b"completed"])
            .unwrap_or(0);
        assert_eq!(
            ready + done,
            30,
            "{point}: every job is done or ready again"
        );
    }
    figure("SC5 a panic in the consumer's poller and in its command loop: exit 1 with \"internal error\", every job done or back in q:active, no consumer registered");
}

/// Ctrl-C in a consumer on an 80x24 terminal: it says in one line of the terminal how it
/// stops, lets the running jobs end, exits 0 (a consumer that runs until stopped) and leaves
/// nothing in flight and no consumer registered.
#[test]
fn ctrl_c_stops_a_consumer_on_a_small_terminal_with_every_job_settled() {
    let server = RedisServer::start();
    fill(&server);
    let Some(tmux) = Tmux::start(
        &server.url(),
        "consume q -c 2 --shutdown-grace 10s -- sleep 0.5",
        (80, 24),
        None,
    ) else {
        return;
    };
    // Once jobs are running, as a person presses Ctrl-C.
    let deadline = Instant::now() + Duration::from_secs(20);
    while server.cmd::<i64>(&[b"LLEN", b"q:active"]) == 30 {
        assert!(
            Instant::now() < deadline,
            "no job started:\n{}",
            tmux.screen()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    tmux.keys(&["C-c"]);
    let code = tmux.exit_status();
    let screen = tmux.screen();
    assert_eq!(code, 0, "{screen}");
    let line = screen
        .lines()
        .find(|l| l.contains("stopping (SIGINT)"))
        .unwrap_or_else(|| panic!("no stopping line:\n{screen}"));
    assert!(
        line.trim_start_matches("^C")
            .trim_end()
            .ends_with("end them now"),
        "the stopping line wraps at 80 columns:\n{screen}"
    );
    let done: i64 = server
        .cmd::<Option<i64>>(&[b"HGET", b"q:stats", b"completed"])
        .unwrap_or(0);
    let ready: i64 = server.cmd(&[b"LLEN", b"q:active"]);
    assert!(done > 0, "{screen}");
    assert_eq!(ready + done, 30, "every job done or ready again:\n{screen}");
    assert_eq!(server.cmd::<i64>(&[b"ZCARD", b"q:consumers"]), 0);
    figure(&format!(
        "SC7 Ctrl-C in a consumer at 80x24: exit 0, the stopping line whole, {done} done and {ready} ready, none in flight"
    ));
}

/// A bulk change on an 80x24 terminal asks first; Ctrl-C and SIGTERM at the question end it
/// with 130 and 143, nothing changed and the terminal given back; n and Enter leave the jobs
/// (exit 10); y and Enter move them.
#[test]
fn a_confirmation_answers_ctrl_c_sigterm_n_and_y_on_a_small_terminal() {
    let server = RedisServer::start();
    fill(&server);
    let dead = || server.cmd::<i64>(&[b"ZCARD", b"q:dead"]);
    let question = "requeue 30 jobs of q:dead?";
    // Asks, answers with `answer` once the question shows, and gives the exit status and
    // the screen (None when tmux is missing).
    let ask = |answer: &dyn Fn(&Tmux)| -> Option<(i32, String)> {
        let tmux = Tmux::start(&server.url(), "dead requeue q --all", (80, 24), None)?;
        tmux.wait_for(question);
        answer(&tmux);
        let code = tmux.exit_status();
        Some((code, tmux.screen()))
    };

    let Some((code, screen)) = ask(&|t| t.keys(&["C-c"])) else {
        return;
    };
    assert_eq!(code, 130, "{screen}");
    assert!(
        screen.contains("interrupted (SIGINT): nothing changed"),
        "{screen}"
    );
    assert_eq!(dead(), 30);

    let sigterm = |t: &Tmux| {
        nix::sys::signal::kill(Pid::from_raw(t.qctl_pid()), Signal::SIGTERM).expect("SIGTERM")
    };
    let (code, screen) = ask(&sigterm).expect("tmux");
    assert_eq!(code, 143, "{screen}");
    assert!(
        screen.contains("interrupted (SIGTERM): nothing changed"),
        "{screen}"
    );
    assert_eq!(dead(), 30);

    let (code, screen) = ask(&|t| t.keys(&["n", "Enter"])).expect("tmux");
    assert_eq!(code, 10, "{screen}");
    assert_eq!(dead(), 30);

    let (code, screen) = ask(&|t| t.keys(&["y", "Enter"])).expect("tmux");
    assert_eq!(code, 0, "{screen}");
    assert_eq!(dead(), 0);
    assert_eq!(server.cmd::<i64>(&[b"LLEN", b"q:active"]), 60);
    figure("SC6 a confirmation at 80x24: Ctrl-C exit 130, SIGTERM 143 (nothing changed, terminal mode restored), n 10, y 0 with the 30 jobs moved");
}

/// What the shell that ran qctl on a terminal read next (`READ=[...]`, see
/// [`Tmux::start_reading_after`]), once qctl has ended and `after` and Enter were typed.
fn read_by_the_shell(tmux: &Tmux, after: &str) -> String {
    tmux.keys(&[after, "Enter"]);
    let screen = tmux.wait_for("READ=[");
    let at = screen.find("READ=[").expect("READ=[") + "READ=[".len();
    screen[at..].split(']').next().unwrap_or("").to_string()
}

/// A question takes a whole line, as people type it: `yes` and Enter go ahead, `no` and
/// Enter or Enter alone (the default) do not (exit 10, apart from 5, "nothing found"), `Y`
/// counts and anything else asks again; and the shell that ran qctl finds nothing of the
/// answer left for it (it ran `es` after `yes`, and `o` after `no`, when a question took one
/// key).
#[test]
fn a_confirmation_takes_a_whole_line_and_leaves_nothing_for_the_shell() {
    let server = RedisServer::start();
    let dead = || server.cmd::<i64>(&[b"ZCARD", b"q:dead"]);
    // Runs `args` on a terminal, types each answer and Enter once `question` shows; the
    // exit status, the screen, and the line the shell read after qctl ended.
    let answer = |args: &str, question: &str, answers: &[&str]| {
        let tmux = Tmux::start_reading_after(&server.url(), args, (80, 24))?;
        tmux.wait_for(question);
        for a in answers {
            if a.is_empty() {
                tmux.keys(&["Enter"]);
            } else {
                tmux.keys(&[a, "Enter"]);
            }
        }
        let code = tmux.exit_status();
        let screen = tmux.screen();
        Some((code, screen, read_by_the_shell(&tmux, "next")))
    };

    fill(&server);
    let Some((code, screen, read)) = answer(
        "dead requeue q --all",
        "requeue 30 jobs of q:dead? [y/N]",
        &["yes"],
    ) else {
        return;
    };
    assert_eq!(code, 0, "{screen}");
    assert_eq!(dead(), 0);
    assert_eq!(read, "next", "the shell got what qctl left:\n{screen}");

    let before = {
        fill(&server);
        server.dump_all()
    };
    let (code, screen, read) = answer("purge q", "delete queue \"q\" with", &["no"]).expect("tmux");
    assert_eq!(code, 10, "{screen}");
    assert!(screen.contains("nothing changed"), "{screen}");
    assert!(
        server.dump_all() == before,
        "purge answered no changed something"
    );
    assert_eq!(read, "next", "the shell got what qctl left:\n{screen}");

    let (code, screen, read) =
        answer("dead delete q --all", "delete 30 jobs of q:dead?", &[""]).expect("tmux");
    assert_eq!(code, 10, "Enter alone is no:\n{screen}");
    assert_eq!(dead(), 30);
    assert_eq!(read, "next", "{screen}");

    let (code, screen, read) = answer(
        "dead requeue q --all",
        "requeue 30 jobs of q:dead?",
        &["maybe", "Y"],
    )
    .expect("tmux");
    assert!(screen.contains("answer y or yes"), "{screen}");
    assert_eq!(code, 0, "{screen}");
    assert_eq!(dead(), 0);
    assert_eq!(read, "next", "{screen}");
    figure("SC8 a question reads a whole line: yes+Enter 0, no+Enter and Enter alone 10 with nothing changed, Y after an unclear answer 0; the shell read nothing of the answers");
}

/// Every command that asks before a change asks the same way: answered `no` and Enter on a
/// terminal it changes nothing and exits 10; without a terminal and without --yes it is
/// refused with exit 2, the line to re-run, and nothing changed.
#[test]
fn every_question_declined_exits_10_and_refused_without_a_terminal_exits_2() {
    let server = RedisServer::start();
    let prepare = || {
        fill(&server);
        plant_expired(&server);
        // A record in no state, for doctor --fix.
        let record = qctl::engine::Job::new("stray", Some(b"x".to_vec())).encode();
        let _: () = server.cmd(&[b"HSET", b"q:data", b"stray", &record]);
        server.dump_all()
    };
    let commands = [
        "dead requeue q --all",
        "dead delete q --all",
        "scheduled run-now q --all",
        "scheduled delete q --all",
        "active delete q r1",
        "purge q",
        "orphans q",
        "move q q2",
        "doctor q --fix",
    ];
    let mut declined = 0;
    for args in commands {
        let before = prepare();
        let words: Vec<&str> = args.split(' ').collect();
        let ran = support::run(qctl(&server).args(&words).write_stdin(""));
        assert_eq!(ran.code, Some(2), "{args} without a terminal: {ran:?}");
        assert!(
            ran.err.contains("--yes") && ran.err.contains("no terminal"),
            "{args}: {ran:?}"
        );
        assert!(
            server.dump_all() == before,
            "{args} refused changed something"
        );

        let Some(tmux) = Tmux::start(&server.url(), args, (120, 24), None) else {
            return;
        };
        tmux.wait_for("[y/N]");
        tmux.keys(&["no", "Enter"]);
        let code = tmux.exit_status();
        let screen = tmux.screen();
        assert_eq!(code, 10, "{args} answered no:\n{screen}");
        assert!(screen.contains("nothing changed"), "{args}:\n{screen}");
        assert!(
            server.dump_all() == before,
            "{args} answered no changed something"
        );
        declined += 1;
    }
    figure(&format!(
        "SC9 {declined} commands that ask: no+Enter exit 10, no terminal and no --yes exit 2, nothing changed either way"
    ));
}

/// A pause or a resume whose end state already holds succeeds, as `set -e` runbooks need, and
/// says so; a queue with no key at all is still not found (5).
#[test]
fn pause_and_resume_succeed_when_the_queue_already_is_so() {
    let server = RedisServer::start();
    support::enqueue(&server, "q", "j1", b"x");
    let script = |lines: &str| {
        let out = Command::new("sh")
            .arg("-ec")
            .arg(lines)
            .env("QCTL", assert_cmd::cargo::cargo_bin("qctl"))
            .env("QCTL_REDIS_URL", server.url())
            .output()
            .expect("sh");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, _, err) = script(r#""$QCTL" pause q; "$QCTL" pause q; echo done"#);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("queue \"q\" is paused"), "{err}");
    assert!(err.contains("queue \"q\" was already paused"), "{err}");
    assert_eq!(server.key_type("q:paused"), "string");
    let (code, out, err) = script(r#""$QCTL" resume q; "$QCTL" resume q; "$QCTL" --json resume q"#);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("queue \"q\" was already running"), "{err}");
    assert_eq!(
        out.trim(),
        r#"{"changed":false,"queue":"q","state":"running"}"#
    );
    assert_eq!(server.key_type("q:paused"), "none");
    let (code, _, err) = script(r#""$QCTL" resume nope"#);
    assert_eq!(code, Some(5), "{err}");
    figure("SC10 pause twice and resume twice under sh -e: every call 0, the second saying it already was; resume of a queue with no key 5");
}

/// GET `path` of a `qctl web` on loopback `port`: its status, or None when nothing answers.
fn web_status(port: u16, path: &str) -> Option<u16> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(30)))
        .build()
        .into();
    agent
        .get(format!("http://127.0.0.1:{port}{path}"))
        .call()
        .ok()
        .map(|r| r.status().as_u16())
}

/// `qctl web` is a server: its output is the URL and notes, and a closed stdout or stderr
/// (`| head -1` gone after the URL, a reader gone, `2>&-`) ends none of it. It keeps serving,
/// writing nothing more where nobody reads, and SIGTERM ends it with 0, as every run of it.
#[test]
fn web_keeps_serving_with_its_output_closed_and_sigterm_ends_it_with_0() {
    let server = RedisServer::start();
    qctl(&server).args(["enqueue", "q", "x"]).assert().success();
    let modes = [
        "stdout closed",
        "stderr closed",
        "both closed",
        "2>&-",
        "2>&1 | head -1",
    ];
    for mode in modes {
        let port = support::free_port();
        let listen = format!("127.0.0.1:{port}");
        // -v: it writes when it stops reading Redis for want of requests, and again when a
        // request comes, after its output closed.
        let args = ["-v", "web", "--listen", &listen, "--interval", "100ms"];
        let mut head = None;
        let mut child = match mode {
            "2>&-" => {
                let qctl_cmd = qctl_process(&server);
                let mut sh = Command::new("bash");
                sh.arg("-c")
                    .arg(r#"exec "$@" 2>&-"#)
                    .arg("qctl")
                    .arg(qctl_cmd.get_program())
                    .args(qctl_cmd.get_args())
                    .args(args)
                    .env_remove("QCTL_REDIS_URL")
                    .stdout(Stdio::null());
                sh.spawn().expect("start qctl web")
            }
            "2>&1 | head -1" => {
                let (read, write) = nix::unistd::pipe().expect("pipe");
                let write2 = write.try_clone().expect("dup");
                let mut cmd = qctl_process(&server);
                cmd.args(args)
                    .stdin(Stdio::null())
                    .stdout(Stdio::from(write))
                    .stderr(Stdio::from(write2));
                let child = cmd.spawn().expect("start qctl web");
                drop(cmd);
                head = Some(
                    Command::new("head")
                        .arg("-1")
                        .stdin(Stdio::from(read))
                        .stdout(Stdio::piped())
                        .spawn()
                        .expect("start head"),
                );
                child
            }
            _ => {
                let (out, err) = match mode {
                    "stdout closed" => (closed_pipe(), Stdio::null()),
                    "stderr closed" => (Stdio::null(), closed_pipe()),
                    _ => (closed_pipe(), closed_pipe()),
                };
                let mut cmd = qctl_process(&server);
                cmd.args(args).stdin(Stdio::null()).stdout(out).stderr(err);
                cmd.spawn().expect("start qctl web")
            }
        };
        assert!(
            wait_until(Duration::from_secs(60), || web_status(
                port,
                "/api/overview"
            ) == Some(200)),
            "{mode}: qctl web did not serve (exit {:?})",
            child.try_wait()
        );
        if let Some(head) = head.take() {
            let out = head.wait_with_output().expect("head");
            assert_eq!(
                String::from_utf8_lossy(&out.stdout),
                format!("http://{listen}/\n"),
                "{mode}"
            );
        }
        // Idle (it writes that it stops reading), then asked again (it writes that it reads).
        std::thread::sleep(Duration::from_millis(1500));
        assert_eq!(web_status(port, "/"), Some(200), "{mode}");
        assert_eq!(web_status(port, "/api/overview"), Some(200), "{mode}");
        assert_eq!(
            child.try_wait().expect("try_wait"),
            None,
            "{mode}: it ended"
        );
        nix::sys::signal::kill(Pid::from_raw(child.id() as i32), Signal::SIGTERM).expect("SIGTERM");
        let code = wait_for(&mut child, Duration::from_secs(60));
        assert_ne!(code, Some(101), "{mode}: a panic");
        assert_eq!(code, Some(0), "{mode}");
    }
    figure(&format!(
        "SC11 qctl web with {}: served before and after writing to its closed output, SIGTERM exit 0 each",
        modes.join(", ")
    ));
}

/// `find` only reads: with its stdout closed, its stderr closed, both, or through `| head -1`
/// it ends with the code it ends with otherwise (0 found, 5 nothing found); a reader gone
/// ends the search at once instead of scanning on.
#[test]
fn find_ends_cleanly_with_its_output_closed_and_stops_searching() {
    let server = RedisServer::start();
    let mut wrong = Vec::new();
    for (args, want) in [
        (vec!["find", "q", "gateway"], 0),
        (vec!["find", "q", "gateway", "--jsonl", "--limit", "0"], 0),
        (vec!["find", "q", "gateway", "--json"], 0),
        (vec!["find", "q", "absent"], 5),
    ] {
        for mode in MODES {
            fill(&server);
            plant_expired(&server);
            let ran = run(&server, &args, None, mode);
            let what = format!("{} [{mode:?}]", args.join(" "));
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                check(&server, &what, &ran, want, true)
            }));
            if outcome.is_err() {
                wrong.push(format!("{what}: {ran:?}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // 20,000 dead jobs that all hold the text, 40 calls of the script to find them all: the
    // first rows fill the pipe, the reader goes, and the search ends long before.
    let _: () = server.cmd(&[b"FLUSHALL"]);
    let mut conn = server.conn();
    let mut pipe = redis::pipe();
    for i in 0..20_000 {
        let id = format!("d{i}");
        let record = qctl::engine::Job::new(id.as_str(), Some(b"every one".to_vec())).encode();
        pipe.hset("q:data", &id, record).zadd("q:dead", &id, i);
    }
    let _: () = pipe.query(&mut conn).expect("fill");
    let _: () = server.cmd(&[b"CONFIG", b"RESETSTAT"]);
    let ran = run(
        &server,
        &["find", "q", "every", "--limit", "0", "--max-scan", "0"],
        None,
        Out::HeadOne,
    );
    assert_eq!(ran.code, Some(0), "{ran:?}");
    assert!(ran.stdout.starts_with("WHERE"), "{ran:?}");
    let calls: String = server.cmd(&[b"INFO", b"commandstats"]);
    let scripts: u64 = calls
        .lines()
        .find_map(|l| l.strip_prefix("cmdstat_evalsha:calls="))
        .and_then(|rest| rest.split(',').next()?.parse().ok())
        .unwrap_or(0);
    assert!((1..20).contains(&scripts), "{scripts} calls of the script");
}
