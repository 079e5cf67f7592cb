//! `qctl top` on a real terminal: tmux runs it at a fixed size against a redis-server the
//! test fills, the test types keys and reads the screen. Skipped with a note when tmux is
//! missing, unless QCTL_REQUIRE_TMUX is set (CI sets nothing but installs tmux).

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use predicates::str::contains;
use support::{enqueue, qctl, spawn_consumer_at, RedisServer, TLS_ENV};

/// How long any expected screen may take to appear.
const LIMIT: Duration = Duration::from_secs(20);

/// A tmux server on a private socket running one session with one command; killed on drop.
struct Tmux {
    _dir: tempfile::TempDir,
    socket: PathBuf,
}

impl Tmux {
    /// Runs `qctl -u URL top ARGS` in a 160x40 session; after it ends the shell prints its
    /// exit status and whether the terminal is back in canonical mode. None (with a note)
    /// when tmux is missing and QCTL_REQUIRE_TMUX is unset.
    fn top(server: &RedisServer, args: &str) -> Option<Tmux> {
        Self::top_recorded(server, args, None)
    }

    /// As [`Tmux::top`]; with `raw`, everything written to the terminal is recorded there
    /// (tmux's pipe-pane, started before top runs).
    fn top_recorded(server: &RedisServer, args: &str, raw: Option<&Path>) -> Option<Tmux> {
        if Command::new("tmux").arg("-V").output().is_err() {
            if std::env::var_os("QCTL_REQUIRE_TMUX").is_some() {
                panic!("tmux is missing and QCTL_REQUIRE_TMUX is set: apt-get install -y tmux");
            }
            println!("note: skipped: tmux is missing (apt-get install -y tmux)");
            return None;
        }
        let dir = tempfile::tempdir().expect("temp dir");
        let tmux = Tmux {
            socket: dir.path().join("tmux.sock"),
            _dir: dir,
        };
        let bin = assert_cmd::cargo::cargo_bin("qctl");
        let command = format!(
            "{}'{}' -u {} top {args}; echo EXIT=$?; stty -a | grep -o -- '-*icanon'; sleep 120",
            if raw.is_some() { "sleep 1; " } else { "" },
            bin.display(),
            server.url()
        );
        let out = tmux
            .cmd()
            .args(["new-session", "-d", "-x", "160", "-y", "40", "-s", "top"])
            .arg(command)
            .output()
            .expect("run tmux");
        assert!(
            out.status.success(),
            "tmux new-session: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        if let Some(raw) = raw {
            tmux.run(&[
                "pipe-pane",
                "-o",
                "-t",
                "top",
                &format!("cat >> '{}'", raw.display()),
            ]);
        }
        Some(tmux)
    }

    fn cmd(&self) -> Command {
        let mut cmd = Command::new("tmux");
        cmd.arg("-S")
            .arg(&self.socket)
            .args(["-f", "/dev/null"])
            .env("SHELL", "/bin/sh")
            .env("TERM", "xterm-256color")
            .env("NO_COLOR", "1")
            .env_remove("QCTL_REDIS_URL")
            .env_remove("REDIS_URL")
            .env_remove("TMUX");
        for name in TLS_ENV {
            cmd.env_remove(name);
        }
        cmd
    }

    fn run(&self, args: &[&str]) -> String {
        let out = self.cmd().args(args).output().expect("run tmux");
        assert!(
            out.status.success(),
            "tmux {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The text on the screen.
    fn screen(&self) -> String {
        self.run(&["capture-pane", "-p", "-t", "top"])
    }

    /// Types keys (tmux key names: Enter, Down, Left, C-c, or plain text).
    fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "top"];
        args.extend(keys);
        self.run(&args);
    }

    /// A pane variable such as `alternate_on` or `cursor_flag`.
    fn pane(&self, var: &str) -> String {
        self.run(&["display-message", "-p", "-t", "top", &format!("#{{{var}}}")])
            .trim()
            .to_string()
    }

    /// Polls the screen until `cond` holds; the screen then. Fails with `what` and the last
    /// screen when it does not within [`LIMIT`].
    fn wait(&self, what: &str, mut cond: impl FnMut(&str) -> bool) -> String {
        let deadline = Instant::now() + LIMIT;
        loop {
            let screen = self.screen();
            if cond(&screen) {
                return screen;
            }
            if Instant::now() > deadline {
                panic!("timed out waiting for {what}; the screen:\n{screen}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn wait_for(&self, text: &str) -> String {
        self.wait(&format!("{text:?}"), |s| s.contains(text))
    }

    /// Types q and checks that top exited 0 and gave the terminal back: the alternate
    /// screen left, the cursor shown, canonical mode on.
    fn quit(&self) {
        self.keys(&["q"]);
        let screen = self.wait_for("EXIT=");
        assert!(screen.contains("EXIT=0"), "exit status:\n{screen}");
        self.assert_restored();
    }

    fn assert_restored(&self) {
        let screen = self.wait("the terminal mode", |s| s.contains("icanon"));
        assert!(
            !screen.contains("qctl top:"),
            "the screen of top is still shown:\n{screen}"
        );
        let mode: Vec<&str> = screen.lines().filter(|l| l.contains("icanon")).collect();
        assert_eq!(mode, ["icanon"], "the terminal is left in raw mode");
        assert_eq!(
            self.pane("alternate_on"),
            "0",
            "still on the alternate screen"
        );
        assert_eq!(self.pane("cursor_flag"), "1", "the cursor is hidden");
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.cmd().arg("kill-server").output();
    }
}

/// The cells of a queue's row in the list (the selection mark dropped): name, active, due,
/// later, in flight, dead, N, "alive,", N, "expired", paused, done/s, failed/s.
fn row(screen: &str, queue: &str) -> Option<Vec<String>> {
    screen.lines().find_map(|line| {
        let mut cells: Vec<&str> = line.split_whitespace().collect();
        if cells.first() == Some(&">") {
            cells.remove(0);
        }
        (cells.first() == Some(&queue) && cells.len() == 13)
            .then(|| cells.iter().map(|c| c.to_string()).collect())
    })
}

/// The ACTIVE cell of a queue's row.
fn active(screen: &str, queue: &str) -> Option<String> {
    row(screen, queue).map(|r| r[1].clone())
}

/// Enqueues `n` jobs.
fn fill(server: &RedisServer, queue: &str, n: usize) {
    qctl(server)
        .args(["enqueue", queue, "--lines"])
        .write_stdin("{}\n".repeat(n))
        .assert()
        .success();
}

#[test]
fn top_shows_every_queue_and_follows_the_counts_as_jobs_are_consumed() {
    let server = RedisServer::start();
    fill(&server, "mail", 6);
    fill(&server, "sms", 2);
    let Some(tmux) = Tmux::top(&server, "--interval 300ms") else {
        return;
    };
    let screen = tmux.wait("both queues", |s| {
        active(s, "mail").as_deref() == Some("6") && active(s, "sms").as_deref() == Some("2")
    });
    assert!(screen.contains("2 queue(s)"), "{screen}");
    let mail = row(&screen, "mail").unwrap();
    assert_eq!(mail[6..10], ["0", "alive,", "0", "expired"], "{screen}");
    assert_eq!(mail[10], "no", "{screen}");

    qctl(&server)
        .args(["consume", "mail", "--drain", "--", "true"])
        .assert()
        .success();
    fill(&server, "sms", 3);
    tmux.wait("mail drained and sms grown", |s| {
        active(s, "mail").as_deref() == Some("0") && active(s, "sms").as_deref() == Some("5")
    });
    // The done/s sparkline of the queue under the cursor (mail, the first by name) saw the
    // six jobs go.
    let screen = tmux.wait("done/s of mail above 0", |s| {
        s.lines()
            .find_map(|l| {
                l.split_once("done/s of mail: ")?
                    .1
                    .split_once(" max ")?
                    .1
                    .split(' ')
                    .next()?
                    .parse::<f64>()
                    .ok()
            })
            .is_some_and(|max| max > 0.0)
    });
    assert!(screen.contains("backlog of mail: 0 now, max 6"), "{screen}");
    tmux.quit();
}

#[test]
fn slash_filters_the_list_and_s_sorts_it() {
    let server = RedisServer::start();
    fill(&server, "mail", 1);
    fill(&server, "mail-eu", 3);
    fill(&server, "sms", 2);
    let Some(tmux) = Tmux::top(&server, "--interval 300ms") else {
        return;
    };
    tmux.wait("three queues", |s| row(s, "sms").is_some());
    tmux.keys(&["/", "mail"]);
    let screen = tmux.wait("the filter applied", |s| {
        s.contains("filter: /mail_")
            && row(s, "sms").is_none()
            && row(s, "mail").is_some()
            && row(s, "mail-eu").is_some()
    });
    assert!(screen.contains("2 matching /mail"), "{screen}");
    tmux.keys(&["Enter", "s"]);
    // Sorted by ACTIVE, the larger queue first.
    let screen = tmux.wait_for("sorted by active");
    let order: Vec<&str> = screen
        .lines()
        .filter_map(|l| l.split_whitespace().find(|w| w.starts_with("mail")))
        .filter(|w| *w == "mail" || *w == "mail-eu")
        .collect();
    assert_eq!(order, ["mail-eu", "mail"], "{screen}");
    tmux.quit();
}

#[test]
fn enter_shows_consumers_and_dead_reasons_and_p_pauses_after_confirmation() {
    let server = RedisServer::start();
    enqueue(&server, "mail", "broken-1", b"boom");
    let mut consumer = spawn_consumer_at(
        &server.url(),
        &[
            "mail",
            "--max-retries",
            "0",
            "--poll-interval",
            "200ms",
            "--",
            "sh",
            "-c",
            "echo 'disk full on /var/spool' >&2; exit 3",
        ],
    );
    assert!(
        support::wait_until(LIMIT, || server.cmd::<i64>(&[b"ZCARD", b"mail:dead"]) == 1),
        "the job did not die: {}",
        consumer.stderr()
    );
    let Some(tmux) = Tmux::top(&server, "--interval 300ms") else {
        return;
    };
    tmux.wait("mail", |s| row(s, "mail").is_some());
    tmux.keys(&["Enter"]);
    let screen = tmux.wait("the consumer and the dead job", |s| {
        s.contains("mail:inflight:") && s.contains("broken-1")
    });
    assert!(screen.contains("consumers: 1"), "{screen}");
    assert!(screen.contains("alive"), "{screen}");
    assert!(screen.contains("newest dead jobs: 1 of 1"), "{screen}");
    assert!(
        screen.contains("exit 3: disk full on /var/spool"),
        "the reason is not shown:\n{screen}"
    );

    // p asks first; n leaves the queue running.
    tmux.keys(&["p"]);
    tmux.wait_for("Pause queue mail? y/n");
    tmux.keys(&["n"]);
    tmux.wait_for("left as it was");
    assert_eq!(server.cmd::<i64>(&[b"EXISTS", b"mail:paused"]), 0);
    tmux.keys(&["p"]);
    tmux.wait_for("Pause queue mail? y/n");
    tmux.keys(&["y"]);
    tmux.wait_for("queue \"mail\" is paused");
    assert_eq!(server.cmd::<i64>(&[b"EXISTS", b"mail:paused"]), 1);
    // Back in the list, the queue shows as paused.
    tmux.keys(&["Left"]);
    tmux.wait("PAUSED yes", |s| {
        row(s, "mail").is_some_and(|r| r[10] == "yes")
    });
    consumer.stop(Duration::from_secs(10));
    tmux.quit();
}

#[test]
fn top_off_a_terminal_exits_2_and_points_to_stats_watch_json() {
    let server = RedisServer::start();
    qctl(&server)
        .arg("top")
        .assert()
        .code(2)
        .stderr(contains("qctl stats --watch --json"));
}

#[test]
fn a_server_that_wants_a_password_ends_top_with_exit_4_before_the_screen() {
    let server = RedisServer::start_with(&["--requirepass", "sekret"]);
    let dir = tempfile::tempdir().expect("temp dir");
    let raw = dir.path().join("raw");
    let Some(tmux) = Tmux::top_recorded(&server, "", Some(&raw)) else {
        return;
    };
    let screen = tmux.wait_for("EXIT=");
    assert!(screen.contains("EXIT=4"), "{screen}");
    assert!(screen.contains("NOAUTH"), "Redis's words:\n{screen}");
    tmux.assert_restored();
    let written = std::fs::read(&raw).expect("the recorded terminal output");
    let alternate = b"\x1b[?1049h";
    assert!(
        !written.windows(alternate.len()).any(|w| w == alternate),
        "top took the screen:\n{}",
        String::from_utf8_lossy(&written)
    );
    assert!(
        String::from_utf8_lossy(&written).contains("NOAUTH"),
        "the recording holds what top wrote"
    );
}

#[test]
fn a_lost_server_is_shown_in_the_status_line_and_top_recovers() {
    let mut server = RedisServer::start();
    fill(&server, "mail", 2);
    let Some(tmux) = Tmux::top(&server, "--interval 300ms") else {
        return;
    };
    tmux.wait("mail", |s| active(s, "mail").as_deref() == Some("2"));
    server.stop();
    let screen = tmux.wait_for("error: ");
    assert!(screen.contains("retrying every 300ms"), "{screen}");
    assert!(
        screen.contains(&format!("127.0.0.1:{}", server.port())),
        "the error names the server:\n{screen}"
    );
    // Still running, and the last counts stay on screen.
    assert_eq!(active(&screen, "mail").as_deref(), Some("2"), "{screen}");
    server.restart();
    fill(&server, "sms", 4);
    let screen = tmux.wait("recovery", |s| {
        !s.contains("error: ") && active(s, "sms").as_deref() == Some("4")
    });
    assert!(screen.contains("updated "), "{screen}");
    tmux.quit();
}

#[test]
fn ctrl_c_and_sigterm_end_top_and_restore_the_terminal() {
    let server = RedisServer::start();
    fill(&server, "mail", 1);
    let Some(tmux) = Tmux::top(&server, "") else {
        return;
    };
    tmux.wait("mail", |s| row(s, "mail").is_some());
    tmux.keys(&["C-c"]);
    let screen = tmux.wait_for("EXIT=");
    assert!(screen.contains("EXIT=0"), "{screen}");
    tmux.assert_restored();

    let Some(tmux) = Tmux::top(&server, "") else {
        return;
    };
    tmux.wait("mail", |s| row(s, "mail").is_some());
    let shell: i32 = tmux.pane("pane_pid").parse().expect("pane pid");
    let top = children(shell);
    assert_eq!(top.len(), 1, "one qctl under the pane's shell");
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(top[0]),
        nix::sys::signal::Signal::SIGTERM,
    )
    .expect("SIGTERM");
    let screen = tmux.wait_for("EXIT=");
    assert!(screen.contains("EXIT=0"), "{screen}");
    tmux.assert_restored();
}

/// The processes whose parent is `pid`.
fn children(pid: i32) -> Vec<i32> {
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
