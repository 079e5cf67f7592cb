//! The handler contract at its edges: handlers die with a killed consumer, never see the
//! Redis credentials, cannot make qctl hold unbounded output, a bad CMD path is named for
//! what is wrong with it, and handlers that ignore their input or close their output early
//! still complete.

mod support;

use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use qctl::engine::failure::Failure;
use qctl::engine::Job;
use qctl::handler::{MAX_LINE, STDERR_TAIL};
use support::{enqueue, qctl, qctl_process, signal, spawn_consumer, wait_until, RedisServer, FAST};

/// The fields of /proc/PID/stat after the command name: state, ppid, ...
fn stat_fields(pid: i32) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    Some(rest.split_whitespace().map(String::from).collect())
}

/// The process exists and has not exited (a zombie waiting to be reaped has).
fn running(pid: i32) -> bool {
    stat_fields(pid).is_some_and(|f| f[0] != "Z" && f[0] != "X")
}

/// The reaper a consumer started: its child whose argv[0] is `qctl-reaper`.
fn reaper_of(consumer: u32) -> Option<i32> {
    std::fs::read_dir("/proc")
        .ok()?
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .find(|&pid| {
            stat_fields(pid).is_some_and(|f| f[1] == consumer.to_string())
                && std::fs::read(format!("/proc/{pid}/cmdline"))
                    .is_ok_and(|c| c.split(|&b| b == 0).next() == Some(b"qctl-reaper"))
        })
}

/// A pid a handler wrote to `path`, once it is there.
fn pid_in(path: &Path) -> i32 {
    let mut pid = None;
    assert!(
        wait_until(Duration::from_secs(10), || {
            pid = std::fs::read_to_string(path)
                .ok()
                .and_then(|s| s.trim().parse().ok());
            pid.is_some()
        }),
        "no pid in {}",
        path.display()
    );
    pid.unwrap()
}

fn found_reaper(consumer: u32) -> i32 {
    let mut reaper = None;
    assert!(
        wait_until(Duration::from_secs(5), || {
            reaper = reaper_of(consumer);
            reaper.is_some()
        }),
        "consumer {consumer} started no reaper"
    );
    reaper.unwrap()
}

#[test]
fn a_consumer_killed_with_sigkill_takes_its_handler_and_the_handlers_children_along() {
    let server = RedisServer::start();
    enqueue(&server, "q", "j", b"");
    let dir = tempfile::tempdir().unwrap();
    let (handler, grandchild) = (dir.path().join("handler"), dir.path().join("grandchild"));
    let script = format!(
        "sleep 300 & echo $! > {}; echo $$ > {}; wait",
        grandchild.display(),
        handler.display()
    );
    let mut consumer = spawn_consumer(
        &server,
        &[&["q"], FAST, &["--", "sh", "-c", &script]].concat(),
    );
    let (handler, grandchild) = (pid_in(&handler), pid_in(&grandchild));
    let reaper = found_reaper(consumer.id());
    assert!(running(handler) && running(grandchild));

    signal(&consumer, Signal::SIGKILL);
    let _ = consumer.wait();
    assert!(
        wait_until(Duration::from_secs(5), || !running(handler)
            && !running(grandchild)),
        "handler {handler} or its child {grandchild} outlived the killed consumer"
    );
    assert!(
        wait_until(Duration::from_secs(5), || !running(reaper)),
        "the reaper {reaper} stayed"
    );
}

#[test]
fn a_consumer_that_exits_normally_leaves_no_reaper_and_the_reaper_holds_only_its_pipe() {
    let server = RedisServer::start();
    enqueue(&server, "q", "j", b"");
    let consumer = spawn_consumer(
        &server,
        &[&["q", "--drain"], FAST, &["--", "sleep", "1"]].concat(),
    );
    let reaper = found_reaper(consumer.id());
    let open_fds = || {
        let mut fds: Vec<(String, String)> = std::fs::read_dir(format!("/proc/{reaper}/fd"))
            .unwrap()
            .filter_map(|e| {
                let e = e.ok()?;
                let target = std::fs::read_link(e.path()).ok()?;
                Some((
                    e.file_name().into_string().ok()?,
                    target.display().to_string(),
                ))
            })
            .collect();
        fds.sort();
        fds
    };
    // The reaper closes what it inherited first thing; it may be found before that.
    let mut fds = open_fds();
    wait_until(Duration::from_secs(5), || {
        fds = open_fds();
        fds.len() == 3
    });
    assert_eq!(fds.len(), 3, "{fds:?}");
    assert!(fds[0].1.starts_with("pipe:"), "stdin is the pipe: {fds:?}");
    assert_eq!(
        (fds[1].1.as_str(), fds[2].1.as_str()),
        ("/dev/null", "/dev/null")
    );

    let out = consumer.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        server.hget_bytes("q:data", "j"),
        None,
        "the job ran and was acked"
    );
    assert!(
        wait_until(Duration::from_secs(3), || !running(reaper)),
        "the reaper {reaper} outlived its consumer"
    );
}

#[test]
fn ctrl_c_to_the_consumers_group_returns_the_job_and_the_reaper_kills_nothing_early() {
    let server = RedisServer::start();
    enqueue(&server, "q", "long", b"");
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("handler");
    let script = format!("echo $$ > {}; exec sleep 30", pidfile.display());
    // Its own group, as a shell gives a foreground job; the Ctrl-C goes to the whole group.
    let mut consumer = qctl_process(&server)
        .args(["consume", "q", "--shutdown-grace", "1s"])
        .args(FAST)
        .args(["--", "sh", "-c", &script])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .unwrap();
    let handler = pid_in(&pidfile);
    let reaper = found_reaper(consumer.id());

    killpg(Pid::from_raw(consumer.id() as i32), Signal::SIGINT).unwrap();
    std::thread::sleep(Duration::from_millis(500));
    assert!(running(reaper), "the reaper died of the Ctrl-C");
    assert!(
        running(handler),
        "the handler was stopped before the grace ended"
    );
    assert!(consumer.try_wait().unwrap().is_none(), "no grace was given");

    let status = consumer.wait().unwrap();
    assert_eq!(status.code(), Some(0), "a Ctrl-C ends the consumer cleanly");
    assert_eq!(server.lrange("q:active"), vec!["long".to_string()]);
    let record = server
        .hget_bytes("q:data", "long")
        .expect("the record stays");
    assert_eq!(Job::decode(&record).unwrap().attempt, 0);
    assert_eq!(server.hget_bytes("q:failures", "long"), None);
    assert_eq!(server.key_type("q:consumers"), "none");
    assert!(!running(handler), "the handler outlived the shutdown");
    assert!(
        wait_until(Duration::from_secs(3), || !running(reaper)),
        "the reaper {reaper} outlived its consumer"
    );
}

#[test]
fn handlers_never_see_the_redis_url_or_password() {
    let server = RedisServer::start();
    let _: redis::Value = server.cmd(&[
        b"ACL",
        b"SETUSER",
        b"worker",
        b"on",
        b">s3cret-pw",
        // $QCTL_REDIS_PASSWORD, set below, is valid too (the URL's password wins over it).
        b">third-pw",
        b"~*",
        b"&*",
        b"+@all",
    ]);
    enqueue(&server, "q", "j", b"");
    let port = server.port();
    let out = assert_cmd::Command::cargo_bin("qctl")
        .unwrap()
        .env("NO_COLOR", "1")
        .env(
            "QCTL_REDIS_URL",
            format!("redis://worker:s3cret-pw@127.0.0.1:{port}"),
        )
        .env(
            "REDIS_URL",
            format!("redis://worker:other-pw@127.0.0.1:{port}"),
        )
        .env("QCTL_REDIS_PASSWORD", "third-pw")
        .env("QCTL_TEST_KEPT", "kept")
        .args(["consume", "q", "--drain"])
        .args(FAST)
        .args(["--", "env"])
        .assert()
        .success()
        .get_output()
        .clone();
    assert_eq!(
        server.hget_bytes("q:data", "j"),
        None,
        "the job ran and was acked"
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("QCTL_JOB_ID=j\n"), "{stdout}");
    assert!(
        stdout.contains("QCTL_TEST_KEPT=kept\n"),
        "other variables stay"
    );
    let all = format!("{stdout}{}", String::from_utf8_lossy(&out.stderr));
    for secret in [
        "s3cret",
        "other-pw",
        "third-pw",
        "REDIS_URL",
        "REDIS_PASSWORD",
    ] {
        assert!(!all.contains(secret), "{secret} reached the handler: {all}");
    }
}

#[test]
fn a_megabyte_without_a_newline_is_passed_on_in_prefixed_64k_pieces() {
    let server = RedisServer::start();
    enqueue(&server, "q", "big", b"");
    let out = qctl(&server)
        .args(["consume", "q", "--drain", "--prefix"])
        .args(FAST)
        .args(["--", "sh", "-c", "head -c 1048576 /dev/zero | tr '\\0' a"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let prefix = b"[big] ";
    assert_eq!(out.last(), Some(&b'\n'));
    let lines: Vec<&[u8]> = out[..out.len() - 1].split(|&b| b == b'\n').collect();
    let mut total = 0;
    for line in &lines {
        assert!(
            line.len() <= MAX_LINE + prefix.len(),
            "a line of {}",
            line.len()
        );
        let data = line.strip_prefix(prefix).expect("every piece is prefixed");
        assert!(data.iter().all(|&b| b == b'a'));
        total += data.len();
    }
    assert_eq!(total, 1 << 20, "every byte arrived");
    assert_eq!(lines.len(), (1 << 20) / MAX_LINE);
}

#[test]
fn the_failure_keeps_the_last_4k_of_a_long_unterminated_stderr_line() {
    let server = RedisServer::start();
    enqueue(&server, "q", "loud", b"");
    let out = qctl(&server)
        .args(["consume", "q", "--drain", "--max-retries", "0"])
        .args(FAST)
        .args([
            "--",
            "sh",
            "-c",
            "head -c 1048576 /dev/zero | tr '\\0' e >&2; printf END >&2; exit 3",
        ])
        .assert()
        .code(7)
        .get_output()
        .stderr
        .clone();
    let failure = server
        .hget_bytes("q:failures", "loud")
        .and_then(|b| Failure::from_json(&b))
        .expect("the failure is recorded");
    assert_eq!(failure.reason, "exit 3");
    assert_eq!(failure.stderr.len(), STDERR_TAIL);
    assert!(
        failure.stderr.ends_with("eeeEND"),
        "{:?}",
        &failure.stderr[4000..]
    );
    let passed: usize = out
        .split(|&b| b == b'\n')
        .inspect(|l| assert!(l.len() <= MAX_LINE, "a line of {}", l.len()))
        .filter(|l| !l.is_empty() && l.iter().all(|&b| b == b'e'))
        .map(<[u8]>::len)
        .sum();
    assert_eq!(passed, 1 << 20, "every byte went to stderr");
}

#[test]
fn a_cmd_path_that_is_missing_or_not_executable_is_refused_naming_what_is_wrong() {
    let server = RedisServer::start();
    enqueue(&server, "q", "j", b"");
    let before = server.dump_all();
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("subdir")).unwrap();
    let plain = dir.path().join("plain.sh");
    std::fs::write(&plain, "#!/bin/sh\n").unwrap();
    std::fs::set_permissions(&plain, std::fs::Permissions::from_mode(0o644)).unwrap();
    let plain = plain.display().to_string();
    for (cmd, message) in [
        ("/no/such/file", "no such file: /no/such/file"),
        ("./missing", "no such file: ./missing"),
        ("bin/missing", "no such file: bin/missing"),
        ("./subdir", "not an executable file: ./subdir"),
        ("./plain.sh", "not an executable file: ./plain.sh"),
        (&plain, &format!("not an executable file: {plain}")),
    ] {
        let out = qctl(&server)
            .current_dir(dir.path())
            .args(["consume", "q", "--drain", "--", cmd])
            .assert()
            .code(2)
            .get_output()
            .stderr
            .clone();
        let stderr = String::from_utf8_lossy(&out);
        assert!(stderr.contains(message), "{cmd}: {stderr}");
        assert!(!stderr.contains("PATH"), "{cmd} is a path: {stderr}");
    }
    assert_eq!(server.dump_all(), before, "nothing was reserved");
}

/// Commands that cannot run are refused before any job is reserved; handlers that ignore
/// 8 MiB of input or close their output early still complete; 50 MB of lines from two jobs
/// at once arrive whole and in order through a consumer of bounded memory; a missing
/// interpreter is refused.
#[test]
fn broken_and_unruly_handlers_are_refused_or_survived() {
    let server = RedisServer::start();
    let dir = tempfile::tempdir().unwrap();
    enqueue(&server, "q", "j", b"x");
    let plain_file = dir.path().join("not-executable");
    std::fs::write(&plain_file, "echo hi\n").unwrap();
    let before = server.dump_all();
    let refusals = [
        ("/no/such/file".to_string(), "no such file"),
        ("no-such-cmd-xyz".to_string(), "not found"),
        (plain_file.display().to_string(), "not an executable"),
        (dir.path().display().to_string(), "not an executable"),
    ];
    for (cmd, why) in &refusals {
        let ran = support::run(
            qctl(&server)
                .args(["consume", "q", "--drain"])
                .args(support::FAST_LONG_LEASE)
                .args(["--", cmd]),
        );
        assert_eq!(ran.code, Some(2), "{cmd}: {ran:?}");
        assert!(ran.err.contains(cmd) && ran.err.contains(why), "{ran:?}");
        assert_eq!(server.dump_all(), before, "{cmd}: a job was touched");
    }
    let _: () = server.cmd(&[b"FLUSHALL"]);

    // Handlers that never read 8 MiB of stdin, or close stdout early, still complete.
    let mut eight = vec![0u8; 8 << 20];
    fastrand::Rng::with_seed(8).fill(&mut eight);
    let eight_file = dir.path().join("eight");
    std::fs::write(&eight_file, &eight).unwrap();
    let unruly: [(&[&str], &str); 5] = [
        (&["true"], ""),
        (&["sleep", "0.5"], ""),
        (&["sh", "-c", "seq 1 100000 >&2"], ""),
        (
            &["sh", "-c", "printf partial; exec 1>&-; cat > /dev/null"],
            "partial\n",
        ),
        (
            &["sh", "-c", "echo first; exec 1>&- 0<&-; sleep 0.3"],
            "first\n",
        ),
    ];
    for (handler, printed) in unruly {
        let enq = support::run(
            qctl(&server)
                .args(["enqueue", "q", "--id", "big", "--file"])
                .arg(&eight_file),
        );
        assert_eq!(enq.code, Some(0), "{enq:?}");
        let ran = support::run(
            qctl(&server)
                .args(["consume", "q", "--drain"])
                .args(support::FAST_LONG_LEASE)
                .arg("--")
                .args(handler),
        );
        assert_eq!(ran.code, Some(0), "{handler:?}: {ran:?}");
        assert_eq!(ran.stdout(), printed, "{handler:?}");
        assert_eq!(server.hget_bytes("q:data", "big"), None, "{handler:?}");
    }

    // 50 MB of lines from two jobs at once: every line whole, in order, and qctl's peak
    // memory well below what passed through it (the handler reads its parent's VmHWM). The
    // lines are numbers padded to 98 digits.
    let n = 250_000u32;
    for id in ["A", "B"] {
        enqueue(&server, "q", id, b"");
    }
    let ran = support::run(
        qctl(&server)
            .args(["consume", "q", "--drain", "-c", "2", "--prefix"])
            .args(support::FAST_LONG_LEASE)
            .args([
                "--",
                "sh",
                "-c",
                &format!("seq -f %098.0f 1 {n}; grep VmHWM /proc/$PPID/status >&2"),
            ]),
    );
    assert_eq!(ran.code, Some(0), "{ran:?}");
    assert!(ran.out.len() > 50_000_000, "{} bytes", ran.out.len());
    let mut next = [1u32, 1u32];
    for line in ran.out.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let line = std::str::from_utf8(line).expect("whole lines");
        let (job, num) = line.split_at(4);
        assert_eq!(num.len(), 98, "line {line:?}");
        let k = match job {
            "[A] " => 0,
            "[B] " => 1,
            _ => panic!("torn line {line:?}"),
        };
        assert_eq!(num.parse::<u32>().ok(), Some(next[k]), "line {line:?}");
        next[k] += 1;
    }
    assert_eq!(next, [n + 1, n + 1], "lines lost");
    let peaks: Vec<u64> = ran
        .err
        .lines()
        .filter_map(|l| l.split("VmHWM:").nth(1))
        .map(|v| v.trim().trim_end_matches("kB").trim().parse().unwrap())
        .collect();
    assert_eq!(peaks.len(), 2, "{ran:?}");
    assert!(
        peaks.iter().all(|&kb| kb < 40 * 1024),
        "qctl peaked at {peaks:?} kB while passing 50 MB"
    );

    // An executable whose interpreter is missing is refused before any job is reserved.
    let orphan = dir.path().join("no-interpreter");
    std::fs::write(&orphan, "#!/no/such/interpreter\necho hi\n").unwrap();
    std::fs::set_permissions(&orphan, std::fs::Permissions::from_mode(0o755)).unwrap();
    enqueue(&server, "q", "s", b"x");
    let ran = support::run(
        qctl(&server)
            .args(["consume", "q", "--drain", "--max-retries", "0"])
            .args(support::FAST_LONG_LEASE)
            .arg("--")
            .arg(&orphan),
    );
    assert_eq!(ran.code, Some(2), "{ran:?}");
    assert!(ran.err.contains("/no/such/interpreter"), "{ran:?}");
    assert_eq!(server.zrange_withscores("q:dead").len(), 0);

    support::figure(&format!(
        "B6 handlers: {} missing/non-executable/directory commands exit 2 before any job is reserved; {} handlers that ignore 8 MiB of stdin or close stdout early complete; 2 x {n} lines (50 MB) arrive whole and in order with qctl's peak RSS at {:?} kB; a missing interpreter is refused with exit 2",
        refusals.len(),
        unruly.len(),
        peaks
    ));
}

/// A file in `dir` with `text` and mode 755.
fn script(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    format!("./{name}")
}

#[test]
fn a_script_the_system_cannot_run_is_refused_at_start_saying_why() {
    let server = RedisServer::start();
    enqueue(&server, "q", "j", b"x");
    let before = server.dump_all();
    let dir = tempfile::tempdir().unwrap();
    let not_executable = dir.path().join("plain");
    std::fs::write(&not_executable, "").unwrap();
    let cases = [
        (
            script(dir.path(), "badshebang.sh", "#!/usr/bin/nosuch\necho hi\n"),
            "./badshebang.sh: its interpreter /usr/bin/nosuch (from its #! line) does not exist",
        ),
        (
            script(dir.path(), "spaced.sh", "#!  ./nosuch -x\n"),
            "./spaced.sh: its interpreter ./nosuch (from its #! line) does not exist",
        ),
        (
            script(
                dir.path(),
                "plainshebang.sh",
                &format!("#!{}\n", not_executable.display()),
            ),
            "(from its #! line) is not an executable file",
        ),
        (
            script(dir.path(), "env.sh", "#!/usr/bin/env no-such-interpreter-xyz\n"),
            "./env.sh: its #! line runs no-such-interpreter-xyz through env, and no-such-interpreter-xyz is not found in PATH",
        ),
        (
            script(dir.path(), "noshebang.sh", "echo hi\n"),
            "./noshebang.sh: not an executable the system can run: a script needs a #! line",
        ),
        (
            script(dir.path(), "empty.sh", ""),
            "./empty.sh: not an executable the system can run: a script needs a #! line",
        ),
        (
            script(dir.path(), "bare.sh", "#!\necho hi\n"),
            "./bare.sh: not an executable the system can run: its #! line names no interpreter",
        ),
    ];
    for (cmd, message) in &cases {
        for pipe in [false, true] {
            let ran = support::run(
                qctl(&server)
                    .current_dir(dir.path())
                    .args(["consume", "q", "--drain"])
                    .args(pipe.then_some("--pipe"))
                    .args(support::FAST_LONG_LEASE)
                    .args(["--", cmd]),
            );
            assert_eq!(ran.code, Some(2), "{cmd} (pipe {pipe}): {ran:?}");
            assert!(ran.err.contains(message), "{cmd} (pipe {pipe}): {ran:?}");
            assert_eq!(server.dump_all(), before, "{cmd}: a job was touched");
        }
    }
    // Scripts whose interpreter is there, through env too, and binaries run.
    for (cmd, data) in [
        (
            script(dir.path(), "good.sh", "#!/bin/sh\ncat >/dev/null\n"),
            "a",
        ),
        (
            script(
                dir.path(),
                "viaenv.sh",
                "#!/usr/bin/env sh\ncat >/dev/null\n",
            ),
            "b",
        ),
        ("true".to_string(), "c"),
    ] {
        enqueue(&server, "r", data, data.as_bytes());
        let ran = support::run(
            qctl(&server)
                .current_dir(dir.path())
                .args(["consume", "r", "--drain", "--max-retries", "0"])
                .args(support::FAST_LONG_LEASE)
                .args(["--", &cmd]),
        );
        assert_eq!(ran.code, Some(0), "{cmd}: {ran:?}");
    }
}

#[test]
fn a_script_that_can_no_longer_run_fails_its_job_saying_why() {
    let server = RedisServer::start();
    let dir = tempfile::tempdir().unwrap();
    // The handler runs once, then replaces itself with what the system cannot run; the
    // retry finds it so.
    for (broken, why) in [
        (
            "#!/usr/bin/nosuch\necho hi\n",
            "spawn: ./h.sh: its interpreter /usr/bin/nosuch (from its #! line) does not exist",
        ),
        (
            "echo hi\n",
            "spawn: ./h.sh: not an executable the system can run: a script needs a #! line",
        ),
    ] {
        for pipe in [false, true] {
            let _: () = server.cmd(&[b"FLUSHALL"]);
            std::fs::write(dir.path().join("broken"), broken).unwrap();
            std::fs::set_permissions(
                dir.path().join("broken"),
                std::fs::Permissions::from_mode(0o755),
            )
            .unwrap();
            script(
                dir.path(),
                "h.sh",
                "#!/bin/sh\ncp -p broken h.new && mv h.new h.sh\nexit 1\n",
            );
            enqueue(&server, "q", "j", b"x");
            let ran = support::run(
                qctl(&server)
                    .current_dir(dir.path())
                    .args(["consume", "q", "--drain", "-c", "1"])
                    .args(["--max-retries", "1", "--max-backoff", "100ms"])
                    .args(pipe.then_some("--pipe"))
                    .args(support::FAST_LONG_LEASE)
                    .args(["--", "./h.sh"]),
            );
            assert_eq!(ran.code, Some(7), "pipe {pipe}: {ran:?}");
            assert!(ran.err.contains(why), "pipe {pipe}: {ran:?}");
            assert!(!ran.err.contains("os error"), "pipe {pipe}: {ran:?}");
            let f = server
                .hget_bytes("q:failures", "j")
                .and_then(|b| Failure::from_json(&b))
                .expect("the failure is recorded");
            assert_eq!(f.reason, why, "pipe {pipe}");
        }
    }
}

/// What no process can be given, a NUL byte in an argument or an environment variable and an
/// argument over the system's limit, never makes a job fail with the system's words: an id
/// with a NUL reaches the handler as qctl prints it (`QCTL_JOB_ID`), and data that `--replace`
/// cannot put in an argument fails its job saying why.
#[test]
fn what_an_argument_or_the_environment_cannot_carry_is_said_not_failed_on() {
    let server = RedisServer::start();
    let plant = |id: &str, data: &[u8]| {
        let record = Job::new(id, Some(data.to_vec())).encode();
        let _: () = server.cmd(&[b"HSET", b"q:data", id.as_bytes(), &record]);
        let _: () = server.cmd(&[b"RPUSH", b"q:active", id.as_bytes()]);
    };
    plant("nul\0id", b"x");
    plant("nul-data", b"a\0b");
    plant("too-long", &[b'x'; 200_000]);
    let ran = support::run(
        qctl(&server)
            .args(["consume", "q", "--drain", "-c", "1", "--max-retries", "0"])
            .args(support::FAST_LONG_LEASE)
            .args(["--replace", "{}", "--", "sh", "-c"])
            .args(["printf 'id=%s\\n' \"$QCTL_JOB_ID\"", "sh", "{}"]),
    );
    assert_eq!(ran.code, Some(7), "two jobs end dead: {ran:?}");
    assert!(ran.stdout().contains("id=nul\\u{0}id\n"), "{ran:?}");
    assert!(!ran.err.contains("nul byte found"), "{ran:?}");
    assert!(!ran.err.contains("os error"), "{ran:?}");
    let reason = |id: &str| {
        server
            .hget_bytes("q:failures", id)
            .and_then(|b| Failure::from_json(&b))
            .map(|f| f.reason)
            .unwrap_or_default()
    };
    assert_eq!(
        reason("nul-data"),
        "spawn: the job's data holds a NUL byte, which no command-line argument can carry \
         (--replace puts the data in one); it reaches a handler whole on stdin"
    );
    assert!(
        reason("too-long").contains(
            "the job's data is too long for a command-line argument (--replace puts the data in one"
        ),
        "{}",
        reason("too-long")
    );
    let dead: Vec<String> = server.cmd(&[b"ZRANGE", b"q:dead", b"0", b"-1"]);
    assert_eq!(dead.len(), 2, "{dead:?}");
}
