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
        "man",
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

/// How to regenerate the completions and man pages after a change to the CLI.
const REGENERATE: &str = "QCTL_UPDATE_COMPLETIONS=1 cargo test --test cli";

/// Whether this run regenerates the files instead of checking them.
fn updating() -> bool {
    std::env::var_os("QCTL_UPDATE_COMPLETIONS").is_some()
}

/// The files in completions/ are what the binary generates.
#[test]
fn completions_are_not_stale() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("completions");
    let update = updating();
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
            "completions/{file} is stale: run {REGENERATE}"
        );
    }
}

/// The *.1 files of a directory, by name.
fn man_pages_in(dir: &std::path::Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".1"))
        .map(|name| {
            let page = std::fs::read(dir.join(&name)).unwrap();
            (name, page)
        })
        .collect()
}

/// The pages in man/ are what `qctl man --dir` writes, no more and no fewer, and `qctl man`
/// prints qctl.1.
#[test]
fn man_pages_are_not_stale() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("man");
    let tmp = tempfile::tempdir().unwrap();
    let listed = qctl()
        .args(["man", "--dir"])
        .arg(tmp.path())
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let generated = man_pages_in(tmp.path());
    assert_eq!(
        String::from_utf8(listed).unwrap().lines().count(),
        generated.len(),
        "qctl man --dir prints the path of each page it writes"
    );
    for name in ["qctl.1", "qctl-consume.1", "qctl-dead-list.1", "qctl-man.1"] {
        assert!(
            generated.contains_key(name),
            "qctl man --dir wrote no {name}"
        );
    }
    let printed = qctl()
        .arg("man")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    assert_eq!(
        printed, generated["qctl.1"],
        "qctl man prints the page qctl man --dir writes as qctl.1"
    );
    if updating() {
        std::fs::create_dir_all(&dir).unwrap();
        for name in man_pages_in(&dir).keys() {
            if !generated.contains_key(name) {
                std::fs::remove_file(dir.join(name)).unwrap();
            }
        }
        for (name, page) in &generated {
            std::fs::write(dir.join(name), page).unwrap();
        }
        return;
    }
    let stored = man_pages_in(&dir);
    for (name, page) in &generated {
        assert!(
            stored.get(name) == Some(page),
            "man/{name} is stale or missing: run {REGENERATE}"
        );
    }
    for name in stored.keys() {
        assert!(
            generated.contains_key(name),
            "man/{name} belongs to no command of qctl: run {REGENERATE}"
        );
    }
}

#[test]
fn man_into_a_directory_that_cannot_be_made_is_exit_1() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("taken");
    std::fs::write(&file, "").unwrap();
    qctl()
        .args(["man", "--dir"])
        .arg(&file)
        .assert()
        .code(1)
        .stderr(contains("cannot create the directory"))
        .stderr(contains("taken"));
}

/// Every page in man/ renders with groff's man macros without a warning.
#[test]
fn man_pages_render() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("man");
    let pages = man_pages_in(&dir);
    assert!(pages.len() > 1, "no pages in man/: run {REGENERATE}");
    for name in pages.keys() {
        let out = std::process::Command::new("groff")
            // -P-cbou: plain text, without overstrike for bold and underline.
            .args(["-man", "-Tutf8", "-ww", "-P-cbou"])
            .arg(dir.join(name))
            .output()
            .unwrap_or_else(|e| {
                panic!("cannot run groff ({e}): apt-get install -y groff-base renders man pages")
            });
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success() && stderr.is_empty(),
            "groff: {name}: {stderr}"
        );
        let text = String::from_utf8_lossy(&out.stdout);
        let command = name.trim_end_matches(".1");
        for heading in ["NAME", "SYNOPSIS", "DESCRIPTION"] {
            assert!(text.contains(heading), "{name} renders without {heading}");
        }
        assert!(text.contains(command), "{name} does not name {command}");
    }
}

#[test]
fn a_closed_stdout_ends_a_read_command_quietly_with_exit_0() {
    let server = support::RedisServer::start();
    let input: String = (0..50_000).map(|i| format!("{i}\n")).collect();
    support::qctl(&server)
        .args(["enqueue", "q", "--lines", "-q"])
        .write_stdin(input)
        .assert()
        .success();
    // A read command (enqueue's own closed output is in tests/interrupt.rs: exit 141).
    let mut child = support::qctl_process(&server)
        .args(["active", "list", "q", "--limit", "50000", "--jsonl"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Read one line, then close stdout like `| head -1`.
    {
        use std::io::BufRead;
        let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        assert!(!line.is_empty());
    }
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        !stderr.contains("Broken pipe") && !stderr.contains("qctl:"),
        "{stderr}"
    );
}

/// Every duration flag where 0 makes no sense, at 0: exit 2 naming the flag, before any
/// connection (the URL points nowhere).
#[test]
fn durations_that_make_no_sense_at_0_are_refused_naming_the_flag() {
    let cases: &[(&[&str], &str)] = &[
        (&["--connect-timeout", "0s", "stats"], "--connect-timeout"),
        (
            &["--response-timeout", "0ms", "stats"],
            "--response-timeout",
        ),
        (&["stats", "--watch", "0s"], "--watch"),
        (&["stats", "--orphan-after", "0s"], "--orphan-after"),
        (&["top", "--interval", "0s"], "--interval"),
        (&["top", "--orphan-after", "0s"], "--orphan-after"),
        (&["metrics", "--min-interval", "0s"], "--min-interval"),
        (&["metrics", "--orphan-after", "0s"], "--orphan-after"),
        (
            &["consumers", "q", "--orphan-after", "0s"],
            "--orphan-after",
        ),
        (&["orphans", "q", "--orphan-after", "0s"], "--orphan-after"),
        (
            &["consume", "q", "--timeout", "0s", "--", "true"],
            "--timeout",
        ),
        (
            &["consume", "q", "--heartbeat", "0s", "--", "true"],
            "--heartbeat",
        ),
        (
            &["consume", "q", "--orphan-after", "0s", "--", "true"],
            "--orphan-after",
        ),
        (
            &["consume", "q", "--poll-interval", "0s", "--", "true"],
            "--poll-interval",
        ),
    ];
    for (args, flag) in cases {
        let out = qctl()
            .args(["-u", "redis://127.0.0.1:1"])
            .args(*args)
            .output()
            .expect("run qctl");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains(flag) && stderr.contains("must be more than 0"),
            "{args:?}: {stderr}"
        );
    }
}

/// Where 0 means something, it is taken: no wait before SIGKILL, no grace, ready now,
/// everything older than now, retries at once.
#[test]
fn durations_where_0_means_something_are_accepted() {
    let server = support::RedisServer::start();
    support::qctl(&server)
        .args(["enqueue", "q", "--in", "0s", "x"])
        .assert()
        .success();
    support::qctl(&server)
        .args([
            "consume",
            "q",
            "--drain",
            "--kill-after",
            "0s",
            "--shutdown-grace",
            "0s",
        ])
        .args(["--max-backoff", "0s", "--", "true"])
        .assert()
        .success();
    support::qctl(&server)
        .args(["dead", "delete", "q", "--older-than", "0s", "--yes"])
        .assert()
        .code(5);
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

/// The text of `qctl ARGS` on stdout, which must succeed.
fn stdout_of(args: &[&str]) -> String {
    let out = qctl().args(args).assert().success().get_output().clone();
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn short_help_shows_the_commands_own_options_and_points_to_the_connection_ones() {
    let short = stdout_of(&["dead", "list", "-h"]);
    assert!(
        short.contains("--limit") && short.contains("--grep"),
        "{short}"
    );
    for connection in [
        "--tls-ca-cert <FILE>",
        "--password-file <FILE>",
        "--connect-timeout <DUR>",
        "names a node of a Redis Cluster",
    ] {
        assert!(!short.contains(connection), "{connection} in -h:\n{short}");
    }
    assert!(short.contains("qctl help connection"), "{short}");
    let long = stdout_of(&["dead", "list", "--help"]);
    assert!(
        long.contains("--tls-ca-cert") && long.contains("--limit"),
        "{long}"
    );
    // The command's own options come first.
    assert!(long.find("--limit") < long.find("--tls-ca-cert"), "{long}");
}

#[test]
fn help_topics_carry_what_the_readme_says() {
    let connection = stdout_of(&["help", "connection"]);
    for word in [
        "--redis",
        "QCTL_REDIS_URL",
        "--password-file",
        "--tls-cert",
        "--cluster",
    ] {
        assert!(connection.contains(word), "{word}:\n{connection}");
    }
    let codes = stdout_of(&["help", "exit-codes"]);
    for word in ["141", "130", "monitoring-plugins", "NOPERM"] {
        assert!(codes.contains(word), "{word}:\n{codes}");
    }
    let handlers = stdout_of(&["help", "handlers"]);
    for word in ["QCTL_JOB_ATTEMPT", "QCTL_JOB_ID", "no shell", "--timeout"] {
        assert!(handlers.contains(word), "{word}:\n{handlers}");
    }
    let pipe = stdout_of(&["help", "pipe"]);
    assert!(
        pipe.contains("data_b64") && pipe.contains("retry_in"),
        "{pipe}"
    );
    assert!(stdout_of(&["help", "topics"]).contains("exit-codes"));
    let list = stdout_of(&["help", "dead", "list"]);
    assert!(
        list.contains("List dead jobs") && list.contains("--limit"),
        "{list}"
    );
    qctl()
        .args(["help", "nosuch"])
        .assert()
        .code(2)
        .stderr(contains("qctl help topics"));
    // consume's --help and manual page carry the handler contract and the protocol.
    let consume = stdout_of(&["consume", "--help"]);
    assert!(consume.contains("QCTL_JOB_ATTEMPT") && consume.contains("data_b64"));
    let page = stdout_of(&["man"]);
    assert!(page.contains("Exit codes"), "qctl.1 without exit codes");
}

/// `qctl ARGS` on an 80-column terminal (clap reads `$COLUMNS`): its stdout.
fn at_80_columns(args: &[&str]) -> String {
    let out = qctl()
        .env("COLUMNS", "80")
        .args(args)
        .assert()
        .success()
        .get_output()
        .clone();
    String::from_utf8(out.stdout).unwrap()
}

/// The commands a help page lists under "Commands:", but `help`.
fn commands_listed(page: &str) -> Vec<String> {
    page.lines()
        .skip_while(|line| *line != "Commands:")
        .skip(1)
        .take_while(|line| !line.is_empty())
        .filter(|line| line.starts_with("  ") && !line.starts_with("   "))
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(String::from)
        .collect()
}

#[test]
fn help_fits_80_columns_and_shows_the_written_texts_as_written() {
    // Every help page, of every command at every depth, fits 80 columns.
    let mut paths = vec![Vec::<String>::new()];
    let mut pages = 0;
    while let Some(path) = paths.pop() {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("--help");
        let page = at_80_columns(&args);
        pages += 1;
        for line in page.lines() {
            assert!(
                line.chars().count() <= 80,
                "qctl {}: a line of {} columns:\n{line}",
                args.join(" "),
                line.chars().count()
            );
        }
        for name in commands_listed(&page) {
            let mut sub = path.clone();
            sub.push(name);
            paths.push(sub);
        }
    }
    assert!(pages > 30, "only {pages} help pages found");
    // The texts written by hand (the exit codes, the handler contract, the --pipe protocol
    // and the topics) come whole, line for line, not wrapped again where a line overflowed.
    let root = at_80_columns(&["--help"]);
    let consume = at_80_columns(&["consume", "--help"]);
    for (topic, shown_in) in [
        ("exit-codes", vec![&root, &consume]),
        ("handlers", vec![&consume]),
        ("pipe", vec![&consume]),
        ("topics", vec![&root]),
    ] {
        let text = stdout_of(&["help", topic]);
        for page in shown_in {
            let lines: std::collections::HashSet<&str> = page.lines().collect();
            for line in text.lines().filter(|l| l.starts_with("  ")) {
                assert!(
                    line.len() <= 78,
                    "qctl help {topic}: over 78 columns:\n{line}"
                );
                assert!(
                    lines.contains(line),
                    "qctl help {topic}: {line:?} is not whole in --help at 80 columns:\n{page}"
                );
            }
        }
    }
}

#[test]
fn consume_hints_only_where_they_help() {
    // A forgotten `--`: the handler's word is taken for an option.
    let out = qctl()
        .args(["consume", "q", "./send.sh", "-x"])
        .assert()
        .code(2)
        .get_output()
        .clone();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("the handler goes after --"), "{stderr}");
    // A misspelt flag has clap's tip, not a hint about queue names.
    let out = qctl()
        .args(["consume", "q", "--concurency", "2", "--", "true"])
        .assert()
        .code(2)
        .get_output()
        .clone();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--concurrency"), "{stderr}");
    assert!(!stderr.contains("hint:"), "{stderr}");
}

#[test]
fn an_option_set_by_its_variable_is_not_shown_as_required() {
    let out = qctl()
        .env("QCTL_REDIS_URL", "redis://127.0.0.1:1")
        .env("QCTL_REDIS_USER", "worker")
        .args(["dead", "list"])
        .assert()
        .code(2)
        .get_output()
        .clone();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("Usage: qctl dead list [OPTIONS] <QUEUE>"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("--redis") && !stderr.contains("--user"),
        "{stderr}"
    );
}

/// The qctl command lines of an example line: split at `|`, `;` and `&&`, redirections
/// dropped.
fn example_invocations(line: &str) -> Vec<Vec<String>> {
    let words = shlex::split(line).unwrap_or_else(|| panic!("not shell words: {line}"));
    words
        .split(|w| ["|", "&&", ";", "||"].contains(&w.as_str()))
        .filter(|segment| segment.first().is_some_and(|w| w == "qctl"))
        .map(|segment| {
            let mut argv = Vec::new();
            let mut words = segment.iter();
            while let Some(w) = words.next() {
                if [">", "<", ">>", "2>"].contains(&w.as_str()) {
                    words.next();
                } else {
                    argv.push(w.clone());
                }
            }
            argv
        })
        .collect()
}

#[test]
fn every_short_help_is_about_a_screen_with_examples_that_parse() {
    // qctl itself and the big commands get a screen of 40 lines at 80 columns; the others,
    // such as dead list, 30.
    let big = [
        vec![],
        vec!["consume".to_string()],
        vec!["check".to_string()],
    ];
    let mut paths = vec![Vec::<String>::new()];
    let mut pages = 0;
    while let Some(path) = paths.pop() {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        let name = format!("qctl {}", args.join(" "));
        args.push("-h");
        let page = at_80_columns(&args);
        pages += 1;
        let most = match path.len() {
            _ if path.is_empty() || big.contains(&path) => 40,
            _ => 30,
        };
        let lines = page.lines().count();
        assert!(
            lines <= most,
            "{name} -h: {lines} lines at 80 columns, more than {most}:\n{page}"
        );
        assert!(
            page.lines().all(|l| l.chars().count() <= 80),
            "{name} -h: a line over 80 columns:\n{page}"
        );
        // Two or three examples, each a command line that parses.
        let examples: Vec<&str> = page
            .lines()
            .skip_while(|l| *l != "Examples:")
            .skip(1)
            .take_while(|l| l.starts_with("  "))
            .map(str::trim)
            .collect();
        assert!(
            (2..=3).contains(&examples.len()),
            "{name} -h: {} examples:\n{page}",
            examples.len()
        );
        for example in &examples {
            let found = example_invocations(example);
            assert!(!found.is_empty(), "{name}: {example:?} runs no qctl");
            for argv in found {
                if let Err(e) = qctl::cli::command().try_get_matches_from(&argv) {
                    panic!("{name}: the example {example:?} does not parse:\n{e}");
                }
            }
        }
        // The long text stays in --help, with the same examples.
        args.pop();
        args.push("--help");
        let long = at_80_columns(&args);
        assert!(long.lines().count() > lines, "{name}: --help is not longer");
        assert!(
            examples.iter().all(|e| long.contains(e)),
            "{name} --help lacks the examples"
        );
        for sub in commands_listed(&page) {
            let mut p = path.clone();
            p.push(sub);
            paths.push(p);
        }
    }
    assert!(pages > 30, "only {pages} pages found");
    // What -h leaves out is in --help: the rarer options and the texts in full.
    let consume = stdout_of(&["consume", "--help"]);
    for word in [
        "--heartbeat",
        "--poll-interval",
        "--kill-after",
        "--pipe-depth",
    ] {
        assert!(consume.contains(word), "consume --help lacks {word}");
        assert!(
            !stdout_of(&["consume", "-h"]).contains(word),
            "{word} in consume -h"
        );
    }
    let list = at_80_columns(&["dead", "list", "--help"]);
    assert!(
        list.contains("select those with --group none") && list.contains("--quiet"),
        "{list}"
    );
}
