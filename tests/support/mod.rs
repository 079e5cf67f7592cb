//! Test support: a real redis-server on a free port, started per test and killed on drop,
//! and small helpers to run qctl against it and read Redis as raw bytes.
#![allow(dead_code)]

pub mod browser;
pub mod cluster;
pub mod handlers;
pub mod judge;
pub mod ledger;
pub mod neighbours;
pub mod proxy;
pub mod tls;
pub mod tmux;
pub mod web;

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Consumer settings for tests that must not wait on production defaults: the cut-off is
/// 3 s.
pub const FAST: &[&str] = &[
    "--poll-interval",
    "200ms",
    "--heartbeat",
    "1s",
    "--orphan-after",
    "3s",
    "--max-backoff",
    "0s",
];

/// As [`FAST`] with a 10 s cut-off, for runs that pass much data through a debug build: a
/// lease window of seconds on a loaded 2-core machine.
pub const FAST_LONG_LEASE: &[&str] = &[
    "--heartbeat",
    "1s",
    "--orphan-after",
    "10s",
    "--poll-interval",
    "200ms",
];

pub struct RedisServer {
    port: u16,
    child: Option<Child>,
    dir: tempfile::TempDir,
    extra: Vec<String>,
    /// Set for a server on a TLS port only (see `tls::tls_server`).
    tls: Option<tls::TlsConfig>,
}

fn server_binary() -> PathBuf {
    if let Some(p) = std::env::var_os("QCTL_TEST_REDIS_SERVER") {
        return PathBuf::from(p);
    }
    let found = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|d| d.join("redis-server"))
        .find(|p| p.is_file());
    found.unwrap_or_else(|| {
        panic!("redis-server not found: install it (apt-get install -y redis-server) or set QCTL_TEST_REDIS_SERVER")
    })
}

pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// Gives SIGINT and SIGHUP their default action in the test process, so that the qctl
/// processes it starts handle them (qctl leaves alone a signal it inherits as ignored, as a
/// shell's background job or `nohup` has it): the tests signal them whatever started the
/// suite. A test of an ignored signal sets it in the child itself.
fn default_signals() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        for sig in [libc::SIGINT, libc::SIGHUP] {
            // SAFETY: SIG_DFL installs no handler; nothing in the test process handles these.
            unsafe { libc::signal(sig, libc::SIG_DFL) };
        }
    });
}

impl RedisServer {
    /// A server without persistence.
    pub fn start() -> RedisServer {
        Self::start_with(&[])
    }

    /// A server with extra arguments (e.g. `--appendonly yes` to survive `restart`).
    pub fn start_with(extra: &[&str]) -> RedisServer {
        Self::try_start(extra, None).unwrap_or_else(|log| {
            panic!("could not start redis-server on a free port after 5 tries:\n{log}")
        })
    }

    /// A server with extra arguments, on a TLS port only when `tls` is set; on failure the
    /// log of the last try.
    pub fn try_start(extra: &[&str], tls: Option<tls::TlsConfig>) -> Result<RedisServer, String> {
        default_signals();
        let mut log = String::new();
        for _ in 0..5 {
            let mut server = RedisServer {
                port: free_port(),
                child: None,
                dir: tempfile::tempdir().expect("temp dir"),
                extra: extra.iter().map(|s| s.to_string()).collect(),
                tls: tls.clone(),
            };
            if server.spawn() {
                return Ok(server);
            }
            log = std::fs::read_to_string(server.dir.path().join("redis.log")).unwrap_or_default();
        }
        Err(log)
    }

    fn spawn(&mut self) -> bool {
        let log = std::fs::File::create(self.dir.path().join("redis.log")).expect("log file");
        let mut cmd = Command::new(server_binary());
        match &self.tls {
            Some(tls) => cmd.args(tls.server_args(self.port)),
            None => cmd.args(["--port", &self.port.to_string()]),
        };
        cmd.args(["--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .arg("--dir")
            .arg(self.dir.path())
            .args(&self.extra)
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("log"))
            .stderr(log);
        let child = cmd.spawn().unwrap_or_else(|e| {
            panic!("cannot start redis-server: {e}; install it (apt-get install -y redis-server) or set QCTL_TEST_REDIS_SERVER")
        });
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Some(Ok(Some(_))) = self.child.as_mut().map(|c| c.try_wait()) {
                self.child = None;
                return false;
            }
            if let Ok(mut con) = self.client().and_then(|c| c.get_connection()) {
                match redis::cmd("PING").query::<String>(&mut con) {
                    Ok(_) => return true,
                    // A server started with --requirepass is up when it asks for the password.
                    Err(e) if e.code() == Some("NOAUTH") => return true,
                    Err(_) => {}
                }
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        self.stop();
        false
    }

    /// Kills the server (SIGKILL) and reaps it.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Freezes the server (SIGSTOP): it keeps its connections and answers nothing until
    /// [`RedisServer::resume`].
    pub fn pause(&self) {
        self.send(nix::sys::signal::Signal::SIGSTOP);
    }

    /// Lets a paused server go on (SIGCONT).
    pub fn resume(&self) {
        self.send(nix::sys::signal::Signal::SIGCONT);
    }

    fn send(&self, sig: nix::sys::signal::Signal) {
        let child = self.child.as_ref().expect("the server runs");
        nix::sys::signal::kill(nix::unistd::Pid::from_raw(child.id() as i32), sig)
            .expect("signal the server");
    }

    /// Stops the server and starts it again on the same port (data survives only with
    /// persistence turned on through `start_with`).
    pub fn restart(&mut self) {
        self.stop();
        for _ in 0..50 {
            if self.spawn() {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!("redis-server did not come back on port {}", self.port);
    }

    /// `redis://127.0.0.1:PORT`, or `rediss://` for a TLS server.
    pub fn url(&self) -> String {
        let scheme = if self.tls.is_some() {
            "rediss"
        } else {
            "redis"
        };
        format!("{scheme}://127.0.0.1:{}", self.port)
    }

    /// How a TLS server speaks TLS; None for a plain one.
    pub fn tls(&self) -> Option<&tls::TlsConfig> {
        self.tls.as_ref()
    }

    /// A redis-rs client for the test's own checks (over TLS to a TLS server).
    fn client(&self) -> redis::RedisResult<redis::Client> {
        match &self.tls {
            // The test's own connections check nothing: a test may give the server a
            // certificate for another host on purpose.
            Some(tls) => tls.client(&format!("{}/#insecure", self.url())),
            None => redis::Client::open(self.url()),
        }
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    pub fn conn(&self) -> redis::Connection {
        self.client()
            .and_then(|c| c.get_connection())
            .expect("connect to the test server")
    }

    pub fn cmd<T: redis::FromRedisValue>(&self, args: &[&[u8]]) -> T {
        let mut cmd = redis::cmd(std::str::from_utf8(args[0]).expect("command name"));
        for a in &args[1..] {
            cmd.arg(*a);
        }
        cmd.query(&mut self.conn()).expect("redis command")
    }

    /// How many times Redis ran `command` since the last CONFIG RESETSTAT (scripts' own
    /// calls included), from INFO commandstats.
    pub fn calls(&self, command: &str) -> u64 {
        let info: String = self.cmd(&[b"INFO", b"commandstats"]);
        let prefix = format!("cmdstat_{command}:calls=");
        info.lines()
            .find_map(|l| l.strip_prefix(&prefix))
            .map_or(0, |rest| rest.split(',').next().unwrap().parse().unwrap())
    }

    pub fn hget_bytes(&self, key: &str, field: &str) -> Option<Vec<u8>> {
        redis::cmd("HGET")
            .arg(key)
            .arg(field)
            .query(&mut self.conn())
            .expect("HGET")
    }

    pub fn lrange(&self, key: &str) -> Vec<String> {
        redis::cmd("LRANGE")
            .arg(key)
            .arg(0)
            .arg(-1)
            .query(&mut self.conn())
            .expect("LRANGE")
    }

    pub fn zrange_withscores(&self, key: &str) -> Vec<(String, f64)> {
        redis::cmd("ZRANGE")
            .arg(key)
            .arg(0)
            .arg(-1)
            .arg("WITHSCORES")
            .query(&mut self.conn())
            .expect("ZRANGE")
    }

    pub fn smembers(&self, key: &str) -> Vec<String> {
        redis::cmd("SMEMBERS")
            .arg(key)
            .query(&mut self.conn())
            .expect("SMEMBERS")
    }

    pub fn key_type(&self, key: &str) -> String {
        redis::cmd("TYPE")
            .arg(key)
            .query(&mut self.conn())
            .expect("TYPE")
    }

    /// Every key with its type and full contents, sorted: for "nothing changed" checks.
    pub fn dump_all(&self) -> Vec<(String, String, String)> {
        let mut con = self.conn();
        let mut keys: Vec<String> = redis::cmd("KEYS").arg("*").query(&mut con).expect("KEYS");
        keys.sort();
        keys.into_iter()
            .map(|k| {
                let t: String = redis::cmd("TYPE").arg(&k).query(&mut con).expect("TYPE");
                let v: redis::Value = match t.as_str() {
                    "string" => redis::cmd("GET").arg(&k).query(&mut con),
                    "list" => redis::cmd("LRANGE").arg(&k).arg(0).arg(-1).query(&mut con),
                    "set" => redis::cmd("SMEMBERS").arg(&k).query(&mut con),
                    "zset" => redis::cmd("ZRANGE")
                        .arg(&k)
                        .arg(0)
                        .arg(-1)
                        .arg("WITHSCORES")
                        .query(&mut con),
                    _ => Ok(redis::Value::Nil),
                }
                .expect("read key");
                let mut v = format!("{v:?}");
                if t == "set" {
                    let mut members: Vec<Vec<u8>> = redis::cmd("SMEMBERS")
                        .arg(&k)
                        .query(&mut con)
                        .expect("SMEMBERS");
                    members.sort();
                    v = format!("{members:?}");
                }
                // A hash has no order: HDEL of fields just added can change the order HGETALL
                // gives (a hash grown past its compact encoding).
                if t == "hash" {
                    let mut fields: Vec<(Vec<u8>, Vec<u8>)> = redis::cmd("HGETALL")
                        .arg(&k)
                        .query(&mut con)
                        .expect("HGETALL");
                    fields.sort();
                    v = format!("{fields:?}");
                }
                (k, t, v)
            })
            .collect()
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Environment variables of the --tls-* options: tests set them explicitly when they want
/// them.
pub const TLS_ENV: [&str; 4] = [
    "QCTL_TLS_CA_CERT",
    "QCTL_TLS_CERT",
    "QCTL_TLS_KEY",
    "QCTL_TLS_INSECURE",
];

/// The built qctl binary pointed at `server`, with no colour and no URL from the environment.
pub fn qctl(server: &RedisServer) -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::cargo_bin("qctl").expect("the qctl binary");
    cmd.arg("-u")
        .arg(server.url())
        .env("NO_COLOR", "1")
        .env_remove("QCTL_REDIS_URL")
        .env_remove("REDIS_URL");
    for name in TLS_ENV {
        cmd.env_remove(name);
    }
    cmd
}

/// As `qctl`, for any Redis URL.
pub fn qctl_url(url: &str) -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::cargo_bin("qctl").expect("the qctl binary");
    cmd.arg("-u")
        .arg(url)
        .env("NO_COLOR", "1")
        .env_remove("QCTL_REDIS_URL")
        .env_remove("REDIS_URL");
    cmd
}

/// A TCP server that accepts connections and never says a word, and counts them.
pub struct SilentServer {
    pub port: u16,
    accepted: Arc<std::sync::atomic::AtomicUsize>,
}

impl SilentServer {
    /// The connections accepted so far.
    pub fn accepted(&self) -> usize {
        self.accepted.load(std::sync::atomic::Ordering::SeqCst)
    }
}

pub fn silent_server() -> SilentServer {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let accepted = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = accepted.clone();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().flatten() {
            held.push(stream);
            counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
    });
    SilentServer { port, accepted }
}

/// A `std::process::Command` for qctl (for runs that must be signalled or run in the
/// background).
pub fn qctl_process(server: &RedisServer) -> Command {
    qctl_process_at(&server.url())
}

/// As `qctl_process`, for any Redis URL (a fault proxy's, for instance).
pub fn qctl_process_at(url: &str) -> Command {
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("qctl"));
    cmd.arg("-u")
        .arg(url)
        .env("NO_COLOR", "1")
        .env_remove("QCTL_REDIS_URL")
        .env_remove("REDIS_URL");
    for name in TLS_ENV {
        cmd.env_remove(name);
    }
    cmd
}

/// What one qctl run did.
pub struct Ran {
    pub code: Option<i32>,
    pub out: Vec<u8>,
    pub err: String,
    pub took: Duration,
}

impl Ran {
    pub fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.out).into_owned()
    }

    pub fn text(&self) -> String {
        format!("{}{}", self.stdout(), self.err)
    }
}

impl std::fmt::Debug for Ran {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let out = self.stdout();
        let cut = |s: &str| s.chars().take(600).collect::<String>();
        write!(
            f,
            "exit {:?} after {:?}\nstdout: {:?}\nstderr: {:?}",
            self.code,
            self.took,
            cut(&out),
            cut(&self.err)
        )
    }
}

/// Texts of the client library's internals that no message of qctl's may hold.
pub const RAW_CLIENT_TEXT: &[&str] = &[
    "Pipeline failure",
    "Incompatible type",
    "InvalidClientConfig",
    "panicked",
];

/// Runs a prepared qctl command to its end (killed after a minute, so a hang fails).
pub fn run(cmd: &mut assert_cmd::Command) -> Ran {
    run_checked(cmd, RAW_CLIENT_TEXT)
}

/// As [`run`], checking that stderr holds none of `raw`: every message is qctl's or Redis's
/// own words, never the client library's internals.
pub fn run_checked(cmd: &mut assert_cmd::Command, raw: &[&str]) -> Ran {
    let start = Instant::now();
    let out = cmd
        .timeout(Duration::from_secs(60))
        .output()
        .expect("run qctl");
    let ran = Ran {
        code: out.status.code(),
        out: out.stdout,
        err: String::from_utf8_lossy(&out.stderr).into_owned(),
        took: start.elapsed(),
    };
    for raw in raw {
        assert!(!ran.err.contains(raw), "raw client text {raw:?}: {ran:?}");
    }
    ran
}

/// Enqueues one job with this id and data (binary-safe, through a file).
pub fn enqueue(server: &RedisServer, queue: &str, id: &str, data: &[u8]) {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("data");
    std::fs::write(&file, data).expect("write the data");
    qctl(server)
        .args(["enqueue", queue, "--id", id, "--file"])
        .arg(&file)
        .assert()
        .success();
}

/// Polls `cond` every 20 ms until it holds or `limit` passes; true if it held.
pub fn wait_until(limit: Duration, mut cond: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        if cond() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    cond()
}

/// `qctl consume ARGS` running in the background, its output piped.
pub fn spawn_consumer(server: &RedisServer, args: &[&str]) -> std::process::Child {
    qctl_process(server)
        .arg("consume")
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start qctl consume")
}

/// Sends `sig` to a child process.
pub fn signal(child: &std::process::Child, sig: nix::sys::signal::Signal) {
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(child.id() as i32), sig)
        .expect("signal the child");
}

/// A background process that is killed (SIGKILL) and reaped when dropped, so a failing test
/// never leaves it running. Its stdout and stderr are collected by threads, so it never
/// blocks on a full pipe.
pub struct Background {
    child: Child,
    stdout: Arc<Mutex<Vec<u8>>>,
    stderr: Arc<Mutex<Vec<u8>>>,
    readers: Vec<JoinHandle<()>>,
}

impl Background {
    pub fn spawn(mut cmd: Command) -> Background {
        let mut child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start a background process");
        let stdout = Arc::new(Mutex::new(Vec::new()));
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let readers = vec![
            collect(child.stdout.take().expect("piped"), stdout.clone()),
            collect(child.stderr.take().expect("piped"), stderr.clone()),
        ];
        Background {
            child,
            stdout,
            stderr,
            readers,
        }
    }

    pub fn pid(&self) -> i32 {
        self.child.id() as i32
    }

    pub fn signal(&self, sig: nix::sys::signal::Signal) {
        signal(&self.child, sig);
    }

    /// The exit status, once it exits within `limit`.
    pub fn wait_timeout(&mut self, limit: Duration) -> Option<ExitStatus> {
        let mut status = None;
        wait_until(limit, || {
            status = self.child.try_wait().expect("try_wait");
            status.is_some()
        });
        status
    }

    /// SIGTERM, then the exit status once it exits within `limit`.
    pub fn stop(&mut self, limit: Duration) -> Option<ExitStatus> {
        if let Ok(Some(status)) = self.child.try_wait() {
            return Some(status);
        }
        self.signal(nix::sys::signal::Signal::SIGTERM);
        self.wait_timeout(limit)
    }

    /// Its stdout so far (all of it once it has exited and its pipes are drained).
    pub fn stdout(&self) -> String {
        self.drain();
        String::from_utf8_lossy(&self.stdout.lock().unwrap()).into_owned()
    }

    /// Its stderr so far (all of it once it has exited and its pipes are drained).
    pub fn stderr(&self) -> String {
        self.drain();
        String::from_utf8_lossy(&self.stderr.lock().unwrap()).into_owned()
    }

    /// After an exit, gives the readers a moment to reach the end of the pipes (a grandchild
    /// that inherited them could hold them open, so this is bounded).
    fn drain(&self) {
        let exited = std::fs::metadata(format!("/proc/{}", self.pid())).is_err()
            || process_state(self.pid()) == Some('Z');
        if exited {
            wait_until(Duration::from_secs(2), || {
                self.readers.iter().all(JoinHandle::is_finished)
            });
        }
    }
}

impl Drop for Background {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn collect(mut pipe: impl Read + Send + 'static, into: Arc<Mutex<Vec<u8>>>) -> JoinHandle<()> {
    std::thread::spawn(move || {
        let mut buf = [0u8; 8192];
        while let Ok(n) = pipe.read(&mut buf) {
            if n == 0 {
                break;
            }
            into.lock().unwrap().extend_from_slice(&buf[..n]);
        }
    })
}

/// `qctl -u URL consume ARGS` in the background.
pub fn spawn_consumer_at(url: &str, args: &[&str]) -> Background {
    let mut cmd = qctl_process_at(url);
    cmd.arg("consume").args(args);
    Background::spawn(cmd)
}

/// The state letter of `/proc/PID/stat` (R, S, Z, ...), or None when there is no such
/// process.
pub fn process_state(pid: i32) -> Option<char> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name in parentheses may contain spaces: the state follows the last ')'.
    stat.rsplit_once(')')?.1.trim_start().chars().next()
}

/// Whether `pid` is still a running process: a zombie has stopped running, even if its
/// parent has not reaped it yet.
pub fn running(pid: i32) -> bool {
    !matches!(process_state(pid), None | Some('Z') | Some('X'))
}

/// Whether any process of the process group `pgid` is still running (zombies aside).
pub fn group_running(pgid: i32) -> bool {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return false;
    };
    dir.filter_map(Result::ok).any(|entry| {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            return false;
        };
        // After the command name: state, ppid, pgrp.
        let mut fields = stat.rsplit_once(')').map_or("", |s| s.1).split_whitespace();
        let state = fields.next();
        let pgrp = fields.nth(1).and_then(|p| p.parse::<i32>().ok());
        pgrp == Some(pgid) && !matches!(state, Some("Z") | Some("X"))
    })
}

/// Records still in `q:data`: jobs not acked yet.
pub fn pending(server: &RedisServer) -> i64 {
    server.cmd(&[b"HLEN", b"q:data"])
}

/// The members of `q:consumers`.
pub fn consumer_keys(server: &RedisServer) -> Vec<String> {
    server.cmd(&[b"ZRANGE", b"q:consumers", b"0", b"-1"])
}

/// Prints a scenario's figure line and appends it to `fault-figures.txt` in the test target's
/// temp dir, so CI can show every figure at the end. One O_APPEND write per line keeps lines
/// of tests running in parallel whole.
pub fn figure(line: &str) {
    println!("{line}");
    let path = concat!(env!("CARGO_TARGET_TMPDIR"), "/fault-figures.txt");
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap_or_else(|e| panic!("open {path}: {e}"));
    file.write_all(format!("{line}\n").as_bytes())
        .unwrap_or_else(|e| panic!("append to {path}: {e}"));
}

/// The recipe of docs/configuration.md's "Users and passwords (ACL)": the user name and every
/// rule after it, from the first `ACL SETUSER` code block of that section.
pub fn acl_recipe() -> (String, Vec<String>) {
    let page = include_str!("../../docs/configuration.md");
    let section = page
        .split("### Users and passwords (ACL)")
        .nth(1)
        .expect("docs/configuration.md has a section \"### Users and passwords (ACL)\"");
    let block = section
        .split("```")
        .skip(1)
        .step_by(2)
        .find(|b| b.contains("ACL SETUSER"))
        .expect("the section has a code block with ACL SETUSER");
    let joined = block.replace("\\\n", " ");
    let tokens: Vec<String> = joined
        .split_whitespace()
        .skip_while(|t| *t != "SETUSER")
        .skip(1)
        .map(|t| t.trim_matches('\'').to_string())
        .collect();
    let (name, rules) = tokens.split_first().expect("a user name after SETUSER");
    (name.clone(), rules.to_vec())
}

/// Puts job `f` of `queue` in flight at a live consumer, and adds a consumer whose heartbeat
/// is ten minutes old.
pub fn hold_in_flight(server: &RedisServer, queue: &str) {
    let inflight = format!("{queue}:inflight:0b7d3e2a-1c4f-4d5e-9f00-aabbccddeeff");
    let expired = format!("{queue}:inflight:1b7d3e2a-1c4f-4d5e-9f00-aabbccddeeff");
    let (data, consumers) = (format!("{queue}:data"), format!("{queue}:consumers"));
    let record = qctl::engine::Job::new("f", Some(b"x".to_vec())).encode();
    let now = qctl::engine::now();
    let _: () = server.cmd(&[b"HSET", data.as_bytes(), b"f", &record]);
    let _: () = server.cmd(&[b"SADD", inflight.as_bytes(), b"f"]);
    for (score, member) in [(now, &inflight), (now - 600.0, &expired)] {
        let _: () = server.cmd(&[
            b"ZADD",
            consumers.as_bytes(),
            score.to_string().as_bytes(),
            member.as_bytes(),
        ]);
    }
}

/// What breaks the invariants of `queue`: an id in `QUEUE:active`, `QUEUE:scheduled` or
/// `QUEUE:dead` without a record in `QUEUE:data`, a record whose id is in none of them nor in
/// an in-flight set (`QUEUE:inflight:*`), or one of those keys of another type. Empty when the
/// queue is sound.
pub fn invariants(server: &RedisServer, queue: &str) -> Vec<String> {
    let mut con = server.conn();
    let mut broken = Vec::new();
    let data = format!("{queue}:data");
    let type_of = |con: &mut redis::Connection, key: &str| -> String {
        redis::cmd("TYPE").arg(key).query(con).expect("TYPE")
    };
    let records: std::collections::HashSet<Vec<u8>> = match type_of(&mut con, &data).as_str() {
        "hash" => redis::cmd("HKEYS")
            .arg(&data)
            .query(&mut con)
            .expect("HKEYS"),
        "none" => Default::default(),
        other => {
            broken.push(format!("{data} is a {other}"));
            Default::default()
        }
    };
    let mut placed = std::collections::HashSet::new();
    for (suffix, want) in [("active", "list"), ("scheduled", "zset"), ("dead", "zset")] {
        let key = format!("{queue}:{suffix}");
        let ids: Vec<Vec<u8>> = match type_of(&mut con, &key).as_str() {
            "none" => Vec::new(),
            t if t != want => {
                broken.push(format!("{key} is a {t}"));
                Vec::new()
            }
            "list" => redis::cmd("LRANGE")
                .arg(&key)
                .arg(0)
                .arg(-1)
                .query(&mut con)
                .expect("LRANGE"),
            _ => redis::cmd("ZRANGE")
                .arg(&key)
                .arg(0)
                .arg(-1)
                .query(&mut con)
                .expect("ZRANGE"),
        };
        for id in ids {
            if !records.contains(&id) {
                broken.push(format!(
                    "{key} holds {:?} without a record in {data}",
                    String::from_utf8_lossy(&id)
                ));
            }
            placed.insert(id);
        }
    }
    let escaped: String = queue
        .chars()
        .flat_map(|c| {
            let escape = matches!(c, '*' | '?' | '[' | ']' | '\\').then_some('\\');
            escape.into_iter().chain([c])
        })
        .collect();
    let inflight: Vec<String> = redis::cmd("KEYS")
        .arg(format!("{escaped}:inflight:*"))
        .query(&mut con)
        .expect("KEYS");
    for key in inflight {
        if type_of(&mut con, &key) == "set" {
            let ids: Vec<Vec<u8>> = redis::cmd("SMEMBERS")
                .arg(&key)
                .query(&mut con)
                .expect("SMEMBERS");
            placed.extend(ids);
        }
    }
    let mut stranded: Vec<String> = records
        .iter()
        .filter(|id| !placed.contains(*id))
        .map(|id| String::from_utf8_lossy(id).into_owned())
        .collect();
    stranded.sort();
    for id in stranded {
        broken.push(format!(
            "the record of {id:?} in {data} has its id in no list or set"
        ));
    }
    broken
}

/// The processes whose parent is `pid`.
pub fn children(pid: i32) -> Vec<i32> {
    std::fs::read_dir("/proc")
        .expect("/proc")
        .filter_map(Result::ok)
        .filter_map(|e| {
            let child: i32 = e.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(e.path().join("stat")).ok()?;
            let ppid: i32 = stat
                .rsplit_once(')')?
                .1
                .split_whitespace()
                .nth(1)?
                .parse()
                .ok()?;
            (ppid == pid).then_some(child)
        })
        .collect()
}

/// A queue `q` with one job, and a minute of its history an hour ago (3 done, 1 failed, 1
/// retried) and one eight days ago (100 done), older than any minute a consumer keeps
/// (written here without an expiry). Returns the time it took for now.
pub fn an_hour_and_eight_days_ago(server: &RedisServer) -> f64 {
    qctl(server).args(["enqueue", "q", "x"]).assert().success();
    let now = qctl::engine::now();
    let minute = |t: f64| format!("q:history:{}", qctl::engine::history::minute_of(t));
    let recent = minute(now - 3600.0);
    let _: () = server.cmd(&[
        b"HSET",
        recent.as_bytes(),
        b"completed",
        b"3",
        b"failed",
        b"1",
        b"retried",
        b"1",
    ]);
    let old = minute(now - 8.0 * 86_400.0);
    let _: () = server.cmd(&[b"HSET", old.as_bytes(), b"completed", b"100"]);
    now
}
