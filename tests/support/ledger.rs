//! Recording what ran: a handler script (per job, or a `--pipe` one) that appends one line per
//! run to a file (id, handler pid, start time, consumer pid), for the history judge
//! ([`super::judge`]) and the plain tally of those lines against the ids that were enqueued.

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use super::handlers::Mode;
use super::{qctl, spawn_consumer_at, Background, RedisServer, FAST};

/// The `--pipe` form of the ledger handler: `python3 pipe.py RUNS SECONDS`. Each job is
/// recorded, then waits in a `sleep SECONDS` child (in the handler's process group, so a
/// handler stopped without its group leaves it behind), then is answered ok; each job has a
/// thread of its own, so pipelined jobs run at once.
const PIPE: &str = r#"import json, os, subprocess, sys, threading, time
runs = os.open(sys.argv[1], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
lock = threading.Lock()
def run(job):
    os.write(runs, ("%s %d %.9f %d\n" % (job["id"], os.getpid(), time.time(), os.getppid())).encode())
    subprocess.run(["sleep", sys.argv[2]])
    with lock:
        sys.stdout.write(json.dumps({"id": job["id"], "ok": True}) + "\n")
        sys.stdout.flush()
for line in sys.stdin:
    threading.Thread(target=run, args=(json.loads(line),)).start()
"#;

/// A temp dir with the handler scripts and the runs file they append to.
pub struct Ledger {
    _dir: tempfile::TempDir,
    script: PathBuf,
    pipe: PathBuf,
    runs: PathBuf,
}

/// One handler run as the script recorded it.
#[derive(Clone, Debug)]
pub struct Run {
    pub id: String,
    /// The handler's pid, which is also its process group: per job the script `exec`s its
    /// sleep, so this is the process qctl waits on; with `--pipe`, the long-lived handler.
    pub pid: i32,
    pub started: SystemTime,
    /// The pid of the consumer that started the handler (its parent).
    pub consumer: i32,
}

/// Ids enqueued and never run, and runs beyond one per enqueued id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tally {
    pub lost: usize,
    pub dup: usize,
}

impl Ledger {
    pub fn new() -> Ledger {
        let dir = tempfile::tempdir().expect("ledger dir");
        let script = dir.path().join("handler.sh");
        let runs = dir.path().join("runs");
        let quoted = runs.to_str().expect("a UTF-8 temp path");
        assert!(!quoted.contains('\''), "{quoted} cannot be single-quoted");
        // One short line per run in a single O_APPEND write, so concurrent runs never tear
        // each other's lines. The job data is read and thrown away, never interpreted.
        let text = format!(
            "#!/bin/sh\n\
             started=$(date +%s.%N)\n\
             cat >/dev/null\n\
             printf '%s %s %s %s\\n' \"$QCTL_JOB_ID\" \"$$\" \"$started\" \"$PPID\" >> '{quoted}'\n\
             exec sleep \"$1\"\n"
        );
        std::fs::write(&script, text).expect("write the handler script");
        std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .expect("chmod the handler script");
        let pipe = dir.path().join("pipe.py");
        std::fs::write(&pipe, PIPE).expect("write the pipe handler script");
        Ledger {
            _dir: dir,
            script,
            pipe,
            runs,
        }
    }

    /// What to put after `--`: the script, sleeping `sleep` after it recorded the run. It runs
    /// through `sh` so a parallel test's fork that still holds the script's write descriptor
    /// cannot make the exec fail with ETXTBSY.
    pub fn handler_args(&self, sleep: Duration) -> Vec<String> {
        vec![
            "sh".to_string(),
            self.script.display().to_string(),
            format!("{:.3}", sleep.as_secs_f64()),
        ]
    }

    /// What follows the consume options: `[--pipe] -- CMD ARGS`, a handler that records each
    /// run and sleeps `sleep` before it succeeds.
    pub fn args(&self, mode: Mode, sleep: Duration) -> Vec<String> {
        match mode {
            Mode::PerJob => ["--".to_string()]
                .into_iter()
                .chain(self.handler_args(sleep))
                .collect(),
            Mode::Pipe => vec![
                "--pipe".to_string(),
                "--".to_string(),
                "python3".to_string(),
                self.pipe.display().to_string(),
                self.runs.display().to_string(),
                format!("{:.3}", sleep.as_secs_f64()),
            ],
        }
    }

    /// The ids run so far, in the order they started.
    pub fn runs(&self) -> Vec<String> {
        self.entries().into_iter().map(|r| r.id).collect()
    }

    /// Every run recorded so far, in the order they started.
    pub fn entries(&self) -> Vec<Run> {
        let text = match std::fs::read_to_string(&self.runs) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Vec::new(),
            Err(e) => panic!("read {}: {e}", self.runs.display()),
        };
        // A line still being written has no newline yet: leave it for the next read.
        let complete = &text[..text.rfind('\n').map_or(0, |i| i + 1)];
        complete
            .lines()
            .map(|line| {
                let mut fields = line.split(' ');
                let (Some(id), Some(pid), Some(started), Some(consumer), None) = (
                    fields.next(),
                    fields.next(),
                    fields.next(),
                    fields.next(),
                    fields.next(),
                ) else {
                    panic!("a malformed ledger line {line:?}");
                };
                let secs: f64 = started.parse().expect("a start time");
                Run {
                    id: id.to_string(),
                    pid: pid.parse().expect("a pid"),
                    started: SystemTime::UNIX_EPOCH + Duration::from_secs_f64(secs),
                    consumer: consumer.parse().expect("a consumer pid"),
                }
            })
            .collect()
    }
}

/// `lost`: enqueued ids never run; `dup`: runs beyond one per enqueued id (a run of an id
/// that was never enqueued counts as a dup too).
pub fn tally(enqueued: &[String], runs: &[String]) -> Tally {
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for id in runs {
        *counts.entry(id.as_str()).or_default() += 1;
    }
    let ran = enqueued
        .iter()
        .filter(|id| counts.contains_key(id.as_str()))
        .count();
    Tally {
        lost: enqueued.len() - ran,
        dup: runs.len() - ran,
    }
}

/// Ids run more than once, sorted.
pub fn repeated(runs: &[String]) -> Vec<String> {
    let mut seen = HashMap::<&str, usize>::new();
    for id in runs {
        *seen.entry(id).or_default() += 1;
    }
    let mut ids: Vec<String> = seen
        .into_iter()
        .filter(|(_, n)| *n > 1)
        .map(|(id, _)| id.to_string())
        .collect();
    ids.sort();
    ids
}

/// `qctl consume q FAST OPTS [--pipe] -- <ledger handler sleeping `sleep`>` in the
/// background.
pub fn consumer(
    server: &RedisServer,
    mode: Mode,
    opts: &[&str],
    ledger: &Ledger,
    sleep: Duration,
) -> Background {
    let handler = ledger.args(mode, sleep);
    let mut args = vec!["q"];
    args.extend_from_slice(FAST);
    args.extend_from_slice(opts);
    args.extend(handler.iter().map(String::as_str));
    spawn_consumer_at(&server.url(), &args)
}

/// Ids `{prefix}0001`, `{prefix}0002`, ... and the `--jsonl` input enqueueing each with empty
/// data.
pub fn numbered(prefix: &str, n: usize) -> (Vec<String>, String) {
    let ids: Vec<String> = (1..=n).map(|i| format!("{prefix}{i:04}")).collect();
    let input = ids
        .iter()
        .map(|id| format!("{{\"id\":\"{id}\",\"data\":\"\"}}\n"))
        .collect();
    (ids, input)
}

/// Enqueues `n` jobs with empty data and ids `{prefix}0001`, `{prefix}0002`, ... in one
/// `qctl enqueue QUEUE --jsonl` run; returns the ids in order.
pub fn enqueue_numbered(server: &RedisServer, queue: &str, prefix: &str, n: usize) -> Vec<String> {
    let (ids, input) = numbered(prefix, n);
    qctl(server)
        .args(["enqueue", queue, "--jsonl", "-q"])
        .write_stdin(input)
        .assert()
        .success();
    ids
}
