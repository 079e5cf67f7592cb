//! The command line itself: help, usage errors, completions.

mod support;

use predicates::str::contains;

fn qctl() -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::cargo_bin("qctl").expect("the qctl binary");
    cmd.env("NO_COLOR", "1")
        .env_remove("QCTL_REDIS_URL")
        .env_remove("REDIS_URL");
    cmd
}

#[test]
fn help_lists_the_commands() {
    let out = qctl()
        .arg("--help")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    for cmd in [
        "enqueue",
        "consume",
        "stats",
        "dead",
        "scheduled",
        "active",
        "consumers",
        "orphans",
        "pause",
        "resume",
        "purge",
        "completions",
    ] {
        assert!(text.contains(cmd), "--help does not mention {cmd}");
    }
    qctl()
        .args(["enqueue", "--help"])
        .assert()
        .success()
        .stdout(contains("--lines"));
}

#[test]
fn help_never_shows_a_password_from_the_environment() {
    let out = qctl()
        .env("QCTL_REDIS_URL", "redis://user:hunter2@example:6379")
        .arg("--help")
        .assert()
        .success()
        .get_output()
        .clone();
    assert!(!String::from_utf8_lossy(&out.stdout).contains("hunter2"));
}

#[test]
fn usage_errors_exit_with_code_2() {
    qctl()
        .args(["enqueue", "q", "--no-such-flag"])
        .assert()
        .code(2);
    qctl()
        .args(["enqueue", "q", "x", "--in", "soon"])
        .assert()
        .code(2)
        .stderr(contains("soon"));
    qctl()
        .args(["enqueue", "q", "--lines", "--id", "a"])
        .assert()
        .code(2);
    qctl()
        .args(["-u", "redis://u:hunter2@h:notaport", "stats"])
        .assert()
        .code(2)
        .stderr(contains("***"));
    qctl().args(["consume", "q"]).assert().code(2);
}

/// The files in completions/ are what the binary generates. Regenerate them with
/// `QCTL_UPDATE_COMPLETIONS=1 cargo test --test cli`.
#[test]
fn completions_are_not_stale() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("completions");
    let update = std::env::var_os("QCTL_UPDATE_COMPLETIONS").is_some();
    for (shell, file) in [
        ("bash", "qctl.bash"),
        ("zsh", "_qctl"),
        ("fish", "qctl.fish"),
        ("elvish", "qctl.elv"),
        ("powershell", "_qctl.ps1"),
    ] {
        let generated = qctl()
            .args(["completions", shell])
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        assert!(!generated.is_empty(), "{shell}: empty completions");
        let path = dir.join(file);
        if update {
            std::fs::write(&path, &generated).unwrap();
            continue;
        }
        let stored = std::fs::read(&path).unwrap_or_default();
        assert!(
            stored == generated,
            "completions/{file} is stale: run QCTL_UPDATE_COMPLETIONS=1 cargo test --test cli"
        );
    }
}

#[test]
fn a_closed_stdout_ends_quietly_with_exit_0() {
    let server = support::RedisServer::start();
    let input: String = (0..50_000).map(|i| format!("{i}\n")).collect();
    let mut child = support::qctl_process(&server)
        .args(["enqueue", "q", "--lines"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        let _ = stdin.write_all(input.as_bytes());
    });
    // Read one line, then close stdout like `| head -1`.
    {
        use std::io::BufRead;
        let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        assert!(!line.is_empty());
    }
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert_eq!(output.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !stderr.contains("Broken pipe") && !stderr.contains("qctl:"),
        "{stderr}"
    );
}

#[test]
fn nothing_in_the_project_reads_files_outside_it() {
    // A user clones only this repository: code, tests, benchmarks and scripts must not reach
    // for a sibling directory such as the specification's.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let outside = ["..", "/shared"].concat();
    let mut offenders = Vec::new();
    let mut dirs = vec![
        root.join("src"),
        root.join("tests"),
        root.join("bench"),
        root.join("scripts"),
        root.join(".ci"),
    ];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if let Ok(text) = std::fs::read_to_string(&path) {
                if text.contains(&outside) {
                    offenders.push(path.display().to_string());
                }
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "files reading {outside}: {offenders:?}"
    );
    for golden in ["encode.jsonl", "decode.jsonl"] {
        assert!(
            root.join("tests/golden").join(golden).is_file(),
            "tests/golden/{golden} is part of the project"
        );
    }
}
