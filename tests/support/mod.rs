//! Test support: a real redis-server on a free port, started per test and killed on drop,
//! and small helpers to run qctl against it and read Redis as raw bytes.
#![allow(dead_code)]

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct RedisServer {
    port: u16,
    child: Option<Child>,
    dir: tempfile::TempDir,
    extra: Vec<String>,
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

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

impl RedisServer {
    /// A server without persistence.
    pub fn start() -> RedisServer {
        Self::start_with(&[])
    }

    /// A server with extra arguments (e.g. `--appendonly yes` to survive `restart`).
    pub fn start_with(extra: &[&str]) -> RedisServer {
        for _ in 0..5 {
            let mut server = RedisServer {
                port: free_port(),
                child: None,
                dir: tempfile::tempdir().expect("temp dir"),
                extra: extra.iter().map(|s| s.to_string()).collect(),
            };
            if server.spawn() {
                return server;
            }
        }
        panic!("could not start redis-server on a free port after 5 tries");
    }

    fn spawn(&mut self) -> bool {
        let log = std::fs::File::create(self.dir.path().join("redis.log")).expect("log file");
        let mut cmd = Command::new(server_binary());
        cmd.args(["--port", &self.port.to_string(), "--bind", "127.0.0.1"])
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
            if let Ok(mut con) = redis::Client::open(self.url()).and_then(|c| c.get_connection()) {
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

    fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
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

    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    pub fn conn(&self) -> redis::Connection {
        redis::Client::open(self.url())
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
                    "hash" => redis::cmd("HGETALL").arg(&k).query(&mut con),
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

/// The built qctl binary pointed at `server`, with no colour and no URL from the environment.
pub fn qctl(server: &RedisServer) -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::cargo_bin("qctl").expect("the qctl binary");
    cmd.arg("-u")
        .arg(server.url())
        .env("NO_COLOR", "1")
        .env_remove("QCTL_REDIS_URL")
        .env_remove("REDIS_URL");
    cmd
}

/// A `std::process::Command` for qctl (for runs that must be signalled or run in the
/// background).
pub fn qctl_process(server: &RedisServer) -> Command {
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("qctl"));
    cmd.arg("-u")
        .arg(server.url())
        .env("NO_COLOR", "1")
        .env_remove("QCTL_REDIS_URL")
        .env_remove("REDIS_URL");
    cmd
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

/// Prints one line of a fault or bad-input scenario's figures, and appends it to
/// `fault-figures.txt` in Cargo's test scratch directory so that CI can print them all at the
/// end (tests run in parallel: one append per line).
pub fn figure(line: &str) {
    use std::io::Write;
    println!("{line}");
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("fault-figures.txt");
    if let Ok(mut file) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
    {
        let _ = file.write_all(format!("{line}\n").as_bytes());
    }
}
