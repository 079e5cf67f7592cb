//! F10: a consumer's handlers die with it, whatever the moment of its SIGKILL, and so does
//! everything they started, inside their process group or not. Handlers are found by a
//! marker variable given to the consumer, which every handler and its descendants inherit.

mod support;

use std::time::{Duration, Instant};

use nix::sys::signal::Signal;
use support::{enqueue, qctl, qctl_process, wait_until, Background, RedisServer, FAST};

/// The variable that marks a test's processes.
const MARK: &str = "QCTL_TEST_MARK";

/// Live processes (zombies have no environment left) whose environment holds
/// `QCTL_TEST_MARK=value`, with their command lines.
fn marked(value: &str) -> Vec<(i32, String)> {
    let entry = format!("{MARK}={value}");
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/environ"))
                .is_ok_and(|env| env.split(|&b| b == 0).any(|e| e == entry.as_bytes()))
        })
        .map(|pid| {
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let shown = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            (pid, shown.trim_end().to_string())
        })
        .collect()
}

/// Kills what a failed round left behind, so that it does not outlive the test.
fn kill_all(found: &[(i32, String)]) {
    for (pid, _) in found {
        let _ = nix::sys::signal::kill(nix::unistd::Pid::from_raw(*pid), Signal::SIGKILL);
    }
}

/// `qctl consume q SETTINGS ARGS` with the marker in its environment.
fn marked_consumer(
    server: &RedisServer,
    value: &str,
    settings: &[&str],
    args: &[&str],
) -> Background {
    let mut cmd = qctl_process(server);
    cmd.env(MARK, value)
        .args(["consume", "q"])
        .args(settings)
        .args(args);
    Background::spawn(cmd)
}

#[test]
fn f10_sixty_sigkills_at_random_moments_leave_no_handler_and_nothing_it_started() {
    const ROUNDS: usize = 60;
    let server = RedisServer::start();
    let input: String = (0..4000).map(|i| format!("{i}\n")).collect();
    qctl(&server)
        .args(["enqueue", "q", "--lines", "-q"])
        .write_stdin(input)
        .assert()
        .success();
    let seed = fastrand::u64(..);
    let mut rng = fastrand::Rng::with_seed(seed);
    // Each job takes 0.3 s; its handler also starts a child that would live 5 s, which the
    // consumer kills with the handler's group when the job ends: left alone, it outlives the
    // 3 s this test waits after a kill.
    let handler = ["-c", "8", "--", "sh", "-c", "sleep 5 & sleep 0.3"];
    let mut failures = Vec::new();
    let mut slowest = Duration::ZERO;
    for round in 0..ROUNDS {
        let value = format!("f10-{}-{round}", std::process::id());
        let mut consumer = marked_consumer(&server, &value, FAST, &handler);
        let me = consumer.pid();
        assert!(
            wait_until(Duration::from_secs(20), || marked(&value)
                .iter()
                .any(|(pid, _)| *pid != me)),
            "round {round}: no handler started: {}",
            consumer.stderr()
        );
        std::thread::sleep(Duration::from_millis(rng.u64(0..=600)));
        consumer.signal(Signal::SIGKILL);
        let killed = Instant::now();
        consumer
            .wait_timeout(Duration::from_secs(5))
            .expect("the consumer dies");
        let gone = wait_until(Duration::from_secs(3), || marked(&value).is_empty());
        let took = killed.elapsed();
        let left = marked(&value);
        if !gone && !left.is_empty() {
            failures.push(format!("round {round}: {left:?}"));
            kill_all(&left);
        } else {
            slowest = slowest.max(took);
        }
    }
    support::figure(&format!(
        "F10 {ROUNDS} SIGKILLs of a consumer (-c 8, 0.3 s jobs) 0-600 ms into its run (seed {seed}): \
         {} left processes behind; the rest were gone within {:.2}s",
        failures.len(),
        slowest.as_secs_f64()
    ));
    assert!(
        failures.is_empty(),
        "{} of {ROUNDS} kills left handlers or their children running (seed {seed}):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn what_a_handler_started_outside_its_group_ends_with_its_consumer() {
    let server = RedisServer::start();
    // Per job and --pipe, the consumer SIGKILLed; then a consumer that exits by itself.
    let cases: [(&str, &[&str]); 3] = [
        (
            "killed",
            &["--", "sh", "-c", "setsid sleep 300 & sleep 300"],
        ),
        (
            "killed, --pipe",
            &["--pipe", "--", "sh", "-c", "setsid sleep 300 & exec cat"],
        ),
        (
            "exited",
            &[
                "--max-jobs",
                "1",
                "--",
                "sh",
                "-c",
                "setsid sleep 300 & sleep 1",
            ],
        ),
    ];
    for (round, (how, args)) in cases.into_iter().enumerate() {
        enqueue(&server, "q", &format!("job{round}"), b"");
        let value = format!("outside-{}-{round}", std::process::id());
        // A lease of 5 s: a loaded machine must not make the consumer that exits by
        // itself lose it.
        let settings = ["--heartbeat", "1s", "--orphan-after", "10s"];
        let mut consumer = marked_consumer(&server, &value, &settings, args);
        let me = consumer.pid();
        // The handler, what it runs in its group, and the process in a session of its own.
        assert!(
            wait_until(Duration::from_secs(20), || marked(&value)
                .iter()
                .filter(|(pid, _)| *pid != me)
                .count()
                >= 3),
            "{how}: the handler did not start: {:?} {}",
            marked(&value),
            consumer.stderr()
        );
        if how.starts_with("killed") {
            consumer.signal(Signal::SIGKILL);
        }
        let status = consumer
            .wait_timeout(Duration::from_secs(10))
            .expect("the consumer ends");
        if how == "exited" {
            assert_eq!(status.code(), Some(0), "{}", consumer.stderr());
        }
        let gone = wait_until(Duration::from_secs(5), || marked(&value).is_empty());
        let left = marked(&value);
        kill_all(&left);
        assert!(gone, "{how}: left running: {left:?}");
    }
}
