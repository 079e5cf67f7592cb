//! One handler in both forms, per job (`sh`, data on stdin) and `--pipe` (`python3`, JSON
//! lines), driven by the job's data, so a scenario can run in both modes:
//! `ok`, `fail` (prints `oops` to stderr and fails: per job `exit 3`, piped the error
//! `oops`), `sleep SECONDS`. Both print `attempt N` to stderr first. The pipe handler knows
//! more: `exit N` (dies), `garbage` (answers a line that is not JSON), `unknown` (answers
//! another id), `pid` (appends its pid to $PIPE_OUT), `retry SECONDS` (fails asking for that
//! retry delay), `env` (writes its environment to $PIPE_OUT); binary data (`data_b64`) is
//! written to $PIPE_OUT. It answers each job from its own thread, so with --pipe-depth > 1 a
//! shorter `sleep` answers first.

use std::path::PathBuf;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    PerJob,
    Pipe,
}

const PER_JOB: &str = r#"#!/bin/sh
d=$(cat)
echo "attempt $QCTL_JOB_ATTEMPT" >&2
case "$d" in
  fail) echo oops >&2; exit 3 ;;
  sleep\ *) sleep "${d#sleep }" ;;
esac
exit 0
"#;

const PIPE: &str = r#"import base64, json, os, sys, threading, time
lock = threading.Lock()
def say(obj=None, raw=None):
    with lock:
        sys.stdout.write(raw if raw is not None else json.dumps(obj) + "\n")
        sys.stdout.flush()
def handle(job):
    i = job["id"]
    if "data_b64" in job:
        with open(os.environ["PIPE_OUT"], "wb") as f:
            f.write(base64.b64decode(job["data_b64"]))
        return say({"id": i, "ok": True})
    word, _, arg = job["data"].partition(" ")
    if word == "fail":
        sys.stderr.write("oops\n"); sys.stderr.flush()
        return say({"id": i, "ok": False, "error": "oops"})
    if word == "sleep":
        time.sleep(float(arg))
    elif word == "exit":
        sys.stderr.write("dying\n"); sys.stderr.flush()
        os._exit(int(arg))
    elif word == "garbage":
        return say(raw="this is not json\n")
    elif word == "unknown":
        return say({"id": "no-such-job", "ok": True})
    elif word == "retry":
        return say({"id": i, "ok": False, "error": "later", "retry_in": float(arg)})
    elif word == "pid":
        with open(os.environ["PIPE_OUT"], "a") as f:
            f.write("%d\n" % os.getpid())
    elif word == "env":
        with open(os.environ["PIPE_OUT"], "w") as f:
            f.write("\n".join("%s=%s" % kv for kv in sorted(os.environ.items())))
    say({"id": i, "ok": True})
for line in sys.stdin:
    job = json.loads(line)
    sys.stderr.write("attempt %d\n" % job["attempt"]); sys.stderr.flush()
    threading.Thread(target=handle, args=(job,)).start()
"#;

/// The handler scripts, in a temporary directory that lives as long as this.
pub struct Handlers {
    dir: tempfile::TempDir,
}

impl Handlers {
    pub fn new() -> Handlers {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(dir.path().join("per-job.sh"), PER_JOB).unwrap();
        std::fs::write(dir.path().join("pipe.py"), PIPE).unwrap();
        Handlers { dir }
    }

    /// What follows the consume options: `[--pipe] -- CMD ARGS`.
    pub fn args(&self, mode: Mode) -> Vec<String> {
        let path = |name: &str| self.dir.path().join(name).display().to_string();
        match mode {
            Mode::PerJob => vec!["--".into(), "sh".into(), path("per-job.sh")],
            Mode::Pipe => vec![
                "--pipe".into(),
                "--".into(),
                "python3".into(),
                path("pipe.py"),
            ],
        }
    }

    /// A file in the handlers' directory.
    pub fn file(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
}
