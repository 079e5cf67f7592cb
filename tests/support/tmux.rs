//! qctl on a real terminal: a tmux server on a private socket runs one command at a fixed
//! size; the test types keys and reads the screen. [`Tmux::start`] gives None (with a note)
//! when tmux is missing, unless QCTL_REQUIRE_TMUX is set (CI sets it once it installed tmux).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use super::TLS_ENV;

/// How long any expected screen may take to appear.
pub const LIMIT: Duration = Duration::from_secs(20);

/// A tmux server on a private socket running one session with one command; killed on drop.
pub struct Tmux {
    _dir: tempfile::TempDir,
    socket: PathBuf,
}

impl Tmux {
    /// Runs `qctl -u URL ARGS` in a `width`x`height` session; after it ends (Ctrl-C too) the
    /// shell prints its exit status (`EXIT=N`) and whether the terminal is back in canonical
    /// mode. With `raw`, everything written to the terminal is recorded there (tmux's
    /// pipe-pane, started before qctl runs).
    pub fn start(url: &str, args: &str, size: (u16, u16), raw: Option<&Path>) -> Option<Tmux> {
        Tmux::launch(url, args, size, raw, "")
    }

    /// As [`Tmux::start`], and once qctl has ended the shell reads the next line typed on
    /// the terminal and shows it as `READ=[line]`: what qctl left unread there would be the
    /// shell's next command.
    pub fn start_reading_after(url: &str, args: &str, size: (u16, u16)) -> Option<Tmux> {
        Tmux::launch(
            url,
            args,
            size,
            None,
            r#"IFS= read -r line; echo "READ=[$line]"; "#,
        )
    }

    fn launch(
        url: &str,
        args: &str,
        (width, height): (u16, u16),
        raw: Option<&Path>,
        after: &str,
    ) -> Option<Tmux> {
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
        // The shell survives a Ctrl-C to the foreground group, as a person's interactive
        // shell does, to print how qctl ended (a trap with a command is reset for qctl at
        // its exec; one with '' would leave SIGINT ignored in it).
        let command = format!(
            "trap : INT; {}'{}' -u {url} {args}; echo EXIT=$?; stty -a | grep -o -- '-*icanon'; {after}sleep 120",
            if raw.is_some() { "sleep 1; " } else { "" },
            bin.display(),
        );
        let (width, height) = (width.to_string(), height.to_string());
        let out = tmux
            .cmd()
            .args([
                "new-session",
                "-d",
                "-x",
                &width,
                "-y",
                &height,
                "-s",
                "qctl",
            ])
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
                "qctl",
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

    pub fn run(&self, args: &[&str]) -> String {
        let out = self.cmd().args(args).output().expect("run tmux");
        assert!(
            out.status.success(),
            "tmux {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The text on the screen.
    pub fn screen(&self) -> String {
        self.run(&["capture-pane", "-p", "-t", "qctl"])
    }

    /// Types keys (tmux key names: Enter, Down, Left, C-c, or plain text).
    pub fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "qctl"];
        args.extend(keys);
        self.run(&args);
    }

    /// A pane variable such as `alternate_on` or `cursor_flag`.
    pub fn pane(&self, var: &str) -> String {
        self.run(&[
            "display-message",
            "-p",
            "-t",
            "qctl",
            &format!("#{{{var}}}"),
        ])
        .trim()
        .to_string()
    }

    /// The qctl process the pane's shell runs.
    pub fn qctl_pid(&self) -> i32 {
        let shell: i32 = self.pane("pane_pid").parse().expect("pane pid");
        let qctl = super::children(shell);
        assert_eq!(qctl.len(), 1, "one qctl under the pane's shell");
        qctl[0]
    }

    /// Polls the screen until `cond` holds; the screen then. Fails with `what` and the last
    /// screen when it does not within [`LIMIT`].
    pub fn wait(&self, what: &str, mut cond: impl FnMut(&str) -> bool) -> String {
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

    pub fn wait_for(&self, text: &str) -> String {
        self.wait(&format!("{text:?}"), |s| s.contains(text))
    }

    /// Waits for qctl to end; the exit status it ended with, having checked that it gave the
    /// terminal back: canonical mode on, the alternate screen left, the cursor shown.
    pub fn exit_status(&self) -> i32 {
        let screen = self.wait("the exit status and terminal mode", |s| {
            s.contains("EXIT=") && s.contains("icanon")
        });
        let mode: Vec<&str> = screen.lines().filter(|l| l.contains("icanon")).collect();
        assert_eq!(
            mode,
            ["icanon"],
            "the terminal is left in raw mode:\n{screen}"
        );
        assert_eq!(
            self.pane("alternate_on"),
            "0",
            "still on the alternate screen"
        );
        assert_eq!(self.pane("cursor_flag"), "1", "the cursor is hidden");
        let at = screen.find("EXIT=").expect("EXIT=") + "EXIT=".len();
        screen[at..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect::<String>()
            .parse()
            .expect("exit status")
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.cmd().arg("kill-server").output();
    }
}
