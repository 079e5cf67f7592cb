//! What qctl says to a person: a mistyped queue named with the queues it may have meant,
//! counts in words that mean one thing, against real redis-servers.

mod support;

use std::time::Duration;

use support::{qctl, wait_until, Background, RedisServer};

/// Queues `mail` and `mail-retry` with a job each.
fn queues() -> RedisServer {
    let server = RedisServer::start();
    for queue in ["mail", "mail-retry"] {
        qctl(&server)
            .args(["enqueue", queue, "x"])
            .assert()
            .success();
    }
    server
}

#[test]
fn read_commands_name_the_queues_a_mistyped_one_may_mean() {
    let server = queues();
    let before = server.dump_all();
    let reads: [&[&str]; 9] = [
        &["stats", "mial"],
        &["dead", "list", "mial"],
        &["dead", "show", "mial", "some-id"],
        &["scheduled", "list", "mial"],
        &["active", "list", "mial"],
        &["dead", "groups", "mial"],
        &["consumers", "mial"],
        &["inflight", "mial"],
        &["stats", "mial", "--history", "1h"],
    ];
    for args in reads {
        let out = qctl(&server).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(5), "{args:?}: {out:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("no queue \"mial\" (known: mail, mail-retry)"),
            "{args:?}: {stderr}"
        );
    }
    // Nothing close: the queues there are; none at all: said so.
    let out = qctl(&server)
        .args(["dead", "list", "zzzzzz"])
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("no queue \"zzzzzz\" (known: mail, mail-retry)"),
        "{out:?}"
    );
    let empty = RedisServer::start();
    let out = qctl(&empty)
        .args(["dead", "list", "mail"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(5));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("no queue \"mail\" (this server has no queues)"),
        "{out:?}"
    );
    assert_eq!(server.dump_all(), before, "a read changed something");
}

#[test]
fn pause_consume_and_tail_warn_and_go_on() {
    let server = queues();
    let out = qctl(&server).args(["pause", "mial"]).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("no queue \"mial\" (known: mail, mail-retry); pausing it anyway"),
        "{stderr}"
    );
    assert_eq!(server.cmd::<i64>(&[b"EXISTS", b"mial:paused"]), 1);
    qctl(&server).args(["resume", "mial"]).assert().success();
    qctl(&server).args(["resume", "nope"]).assert().code(5);

    // A drain of a queue with no key says so and finds nothing to run.
    let out = qctl(&server)
        .args(["consume", "mailx", "--drain", "--", "true"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("no queue \"mailx\" (known: mail, mail-retry); nothing to run"),
        "{out:?}"
    );
    // A consumer waits for it, and runs its first job when it comes.
    let mut consumer = Background::spawn({
        let mut cmd = support::qctl_process(&server);
        cmd.args(["consume", "later", "--", "true"]);
        cmd
    });
    assert!(wait_until(Duration::from_secs(10), || consumer
        .stderr()
        .contains("no queue \"later\"")));
    assert!(consumer.stderr().contains("waiting for its first job"));
    qctl(&server)
        .args(["enqueue", "later", "x"])
        .assert()
        .success();
    assert!(wait_until(Duration::from_secs(10), || server
        .cmd::<i64>(&[b"HLEN", b"later:data"])
        == 0));
    consumer.stop(Duration::from_secs(10));
}

#[test]
fn the_words_of_a_consumer_mean_what_happened() {
    let server = RedisServer::start();
    qctl(&server).args(["enqueue", "q", "x"]).assert().success();
    let out = qctl(&server)
        .args([
            "consume",
            "q",
            "--drain",
            "--max-retries",
            "0",
            "--",
            "false",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(7));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("moved to the dead set after 1 failure\n"),
        "{stderr}"
    );
    assert!(
        stderr.contains("ran 1, succeeded 0, retried 0, dead 1, damaged 0, returned 0"),
        "{stderr}"
    );
}

#[test]
fn input_and_times_mean_what_a_person_means() {
    let server = RedisServer::start();
    // A CRLF file: the \r is no part of a job, unless --keep-cr.
    qctl(&server)
        .args(["enqueue", "crlf", "--lines"])
        .write_stdin("a\r\nb\r\n")
        .assert()
        .success();
    qctl(&server)
        .args(["enqueue", "crlf", "--lines", "--keep-cr"])
        .write_stdin("c\r\n")
        .assert()
        .success();
    let out = qctl(&server)
        .args(["active", "list", "crlf", "--json"])
        .output()
        .unwrap();
    let jobs: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let data: Vec<&str> = jobs
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["data"].as_str().unwrap())
        .collect();
    assert_eq!(data, ["a", "b", "c\r"]);

    // Due within two hours: +2h is two hours from now.
    qctl(&server)
        .args(["enqueue", "t", "--id", "soon", "--in", "1h", "x"])
        .assert()
        .success();
    qctl(&server)
        .args(["enqueue", "t", "--id", "later", "--in", "3h", "x"])
        .assert()
        .success();
    let out = qctl(&server)
        .args(["scheduled", "list", "t", "--until", "+2h", "--json"])
        .output()
        .unwrap();
    let listed: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let ids: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["soon"]);
    // Ready jobs have no time: a time filter is refused, not ignored.
    qctl(&server)
        .args(["active", "list", "crlf", "--since", "1h"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("ready jobs have none"));
}

#[test]
fn one_job_has_the_same_numbers_in_the_log_the_tables_json_and_show() {
    let server = RedisServer::start();
    qctl(&server)
        .args(["enqueue", "q", "--id", "j", "x"])
        .assert()
        .success();
    // Two runs, both failing: run 1 is retried, run 2 goes dead with attempt 2.
    let fail_twice = |json: bool| {
        let mut cmd = qctl(&server);
        cmd.args([
            "consume",
            "q",
            "--drain",
            "--max-retries",
            "1",
            "--max-backoff",
            "0s",
        ]);
        if json {
            cmd.arg("--json");
        }
        cmd.args(["--", "sh", "-c", "exit 3"]).output().unwrap()
    };
    let out = fail_twice(true);
    assert_eq!(out.status.code(), Some(7));
    let events: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let attempts = |kind: &str| -> Vec<i64> {
        events
            .iter()
            .filter(|e| e["event"] == kind)
            .map(|e| e["attempt"].as_i64().unwrap())
            .collect()
    };
    assert_eq!(attempts("failed"), [0, 1]);
    assert_eq!(attempts("dead"), [2]);

    qctl(&server)
        .args(["enqueue", "q", "--id", "k", "x"])
        .assert()
        .success();
    let out = fail_twice(false);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("job k failed (exit 3) on run 1 after"),
        "{stderr}"
    );
    assert!(
        stderr.contains("job k failed (exit 3) on run 2 after"),
        "{stderr}"
    );
    assert!(
        stderr.contains("job k moved to the dead set after 2 failures"),
        "{stderr}"
    );

    // The table: FAILURES 2; JSON: attempt 2, its failure record's run was attempt 1.
    let out = qctl(&server).args(["dead", "list", "q"]).output().unwrap();
    let table = String::from_utf8_lossy(&out.stdout);
    let header: Vec<&str> = table.lines().next().unwrap().split_whitespace().collect();
    let row: Vec<&str> = table
        .lines()
        .find(|l| l.trim_start().starts_with("j "))
        .unwrap()
        .split_whitespace()
        .collect();
    let column = header.iter().position(|h| *h == "FAILURES").unwrap();
    assert_eq!(row[column], "2", "{table}");
    let out = qctl(&server)
        .args(["dead", "show", "q", "j", "--json"])
        .output()
        .unwrap();
    let shown: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(shown["attempt"], 2);
    assert_eq!(shown["failure"]["attempt"], 1);
    let out = qctl(&server)
        .args(["dead", "show", "q", "j"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("failures:  2"), "{text}");
    assert!(text.contains("failure:   exit 3 (run 2,"), "{text}");
    // tail says the same run.
    let out = qctl(&server)
        .args(["tail", "q", "--since", "1h", "--no-follow", "--failures"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("dead j after run 2: exit 3"), "{text}");
}

/// Every --dry-run says that it is one and that nothing changed, in text (its preview
/// `dry run: would ...` and a last line) and in JSON (`"dry_run": true`); the same preview
/// without --dry-run says `will`.
#[test]
fn every_dry_run_says_it_is_one_and_that_nothing_changed() {
    let server = RedisServer::start();
    let mut pipe = redis::pipe();
    let record = |id: &str| qctl::engine::Job::new(id, Some(b"x".to_vec())).encode();
    for id in ["r1", "d1", "s1", "o1", "stray"] {
        pipe.hset("q:data", id, record(id));
    }
    pipe.rpush("q:active", "r1")
        .zadd("q:dead", "d1", 1_700_000_000)
        .zadd("q:scheduled", "s1", qctl::engine::now() + 3600.0);
    let consumer = "q:inflight:0b7d3e2a-1c4f-4d5e-9f00-aabbccddeeff";
    pipe.sadd(consumer, "o1")
        .zadd("q:consumers", consumer, qctl::engine::now() - 600.0);
    let _: () = pipe.query(&mut server.conn()).expect("fill");
    let before = server.dump_all();
    let runs: [(&[&str], &str); 9] = [
        (&["dead", "requeue", "q", "--all"], "would requeue 1 job"),
        (&["dead", "delete", "q", "--all"], "would delete 1 job"),
        (
            &["scheduled", "run-now", "q", "--all"],
            "would run now 1 job",
        ),
        (&["scheduled", "delete", "q", "--all"], "would delete 1 job"),
        (&["active", "delete", "q", "r1"], "would delete 1 job"),
        (&["purge", "q"], "would delete 6 keys"),
        (&["orphans", "q"], "would recover 1 job"),
        (&["move", "q", "q2"], "would move 3 jobs"),
        (&["doctor", "q", "--fix"], "would put 1 record"),
    ];
    for (args, preview) in runs {
        let out = qctl(&server).args(args).arg("--dry-run").output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        let said = String::from_utf8_lossy(&out.stdout).into_owned() + &stderr;
        assert!(said.contains(preview), "{args:?}: {said}");
        assert!(
            !stderr.lines().any(|l| l.starts_with("will ")),
            "{args:?}: {said}"
        );
        assert!(
            stderr.trim_end().ends_with("dry run: nothing changed"),
            "{args:?}: {said}"
        );
        let out = qctl(&server)
            .args(["--json"])
            .args(args)
            .arg("--dry-run")
            .output()
            .unwrap();
        let json: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{args:?} --json: {e}: {out:?}"));
        let dry = json["dry_run"]
            .as_bool()
            .or_else(|| json["fix"]["dry_run"].as_bool());
        assert_eq!(dry, Some(true), "{args:?}: {json}");
        assert!(
            server.dump_all() == before,
            "{args:?} --dry-run changed Redis"
        );
    }
    // Without --dry-run the same preview says what it will do (then asks).
    let out = qctl(&server)
        .args(["dead", "requeue", "q", "--all"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("will requeue 1 job of q:dead"), "{stderr}");
    assert!(!stderr.contains("dry run"), "{stderr}");
}

/// `qctl ARGS` without a server: its exit code and stderr.
fn usage_error(args: &[&str]) -> (Option<i32>, String) {
    let out = assert_cmd::Command::cargo_bin("qctl")
        .unwrap()
        .env("NO_COLOR", "1")
        .env_remove("QCTL_REDIS_URL")
        .env_remove("REDIS_URL")
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_mistyped_command_gets_what_was_meant_never_its_opposite_nor_a_look_alike() {
    let cases: &[(&[&str], &[&str], &[&str])] = &[
        (
            &["unpause", "mail"],
            &["qctl resume"],
            &["'pause'", "qctl pause"],
        ),
        (
            &["requeue", "mail"],
            &["qctl dead requeue"],
            &["resume", "enqueue"],
        ),
        (&["retry", "mail"], &["qctl dead requeue"], &["resume"]),
        (&["list"], &["qctl dead list", "qctl stats"], &["limit"]),
        (&["ls"], &["qctl dead list", "qctl stats"], &["limit"]),
        (&["queues"], &["qctl stats"], &["enqueue"]),
        (&["show"], &["qctl dead show"], &[]),
        (&["rm"], &["qctl dead delete", "qctl purge"], &[]),
        (
            &["dead", "retry", "mail"],
            &["qctl dead requeue"],
            &["scheduled"],
        ),
        (
            &["dead", "rm", "mail"],
            &["qctl dead delete"],
            &["active delete"],
        ),
        (&["dead", "purge", "mail"], &["qctl purge"], &[]),
        (
            &["scheduled", "run", "mail"],
            &["qctl scheduled run-now"],
            &[],
        ),
        (
            &["consumer", "mail"],
            &["'consume'", "'consumers'"],
            &["resume"],
        ),
        (&["enque", "mail", "x"], &["'enqueue'"], &[]),
        (&["xyzzy"], &[], &["tip:"]),
    ];
    for (args, wanted, unwanted) in cases {
        let (code, stderr) = usage_error(args);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        for w in *wanted {
            assert!(stderr.contains(w), "{args:?}: no {w:?}:\n{stderr}");
        }
        for w in *unwanted {
            assert!(!stderr.contains(w), "{args:?}: {w:?}:\n{stderr}");
        }
        assert!(
            stderr.lines().all(|l| l.chars().count() <= 80),
            "{args:?}: a line over 80 columns:\n{stderr}"
        );
    }
}

/// Every command's path under `qctl`, with the command.
fn commands() -> Vec<(Vec<String>, clap::Command)> {
    fn walk(cmd: &clap::Command, path: Vec<String>, out: &mut Vec<(Vec<String>, clap::Command)>) {
        for sub in cmd.get_subcommands() {
            let mut p = path.clone();
            p.push(sub.get_name().to_string());
            out.push((p.clone(), sub.clone()));
            walk(sub, p, out);
        }
    }
    let mut out = Vec::new();
    walk(&qctl::cli::command(), Vec::new(), &mut out);
    out
}

/// A command line of `path` with a word for each positional, `extra` after them, and the
/// handler a consumer needs.
fn line_of(path: &[String], cmd: &clap::Command, extra: &[&str]) -> Vec<String> {
    let mut args = path.to_vec();
    for p in cmd.get_positionals().filter(|p| !p.is_last_set()) {
        let word = p
            .get_possible_values()
            .first()
            .map(|v| v.get_name().to_string());
        args.push(word.unwrap_or_else(|| "q".into()));
    }
    args.extend(extra.iter().map(|s| s.to_string()));
    if cmd.get_positionals().any(|p| p.is_last_set()) {
        args.extend(["--".into(), "true".into()]);
    }
    args
}

#[test]
fn a_negative_number_says_what_the_option_takes_not_to_write_it_after_dashes() {
    let (code, stderr) = usage_error(&["consume", "q", "--max-retries", "-1", "--", "true"]);
    assert_eq!(code, Some(2), "{stderr}");
    for w in ["--max-retries", "0 or more", "--max-retries 0: no retry"] {
        assert!(stderr.contains(w), "no {w:?}:\n{stderr}");
    }
    assert!(!stderr.contains("hint:"), "{stderr}");
    let (code, stderr) = usage_error(&["consume", "q", "--max-retries=-1", "--", "true"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("0 or more"), "{stderr}");
    let (_, stderr) = usage_error(&["dead", "list", "q", "--since", "-2h"]);
    assert!(stderr.contains("--since 2h is two hours ago"), "{stderr}");
    let (_, stderr) = usage_error(&["--connect-timeout", "-1s", "stats"]);
    assert!(
        stderr.contains("--connect-timeout takes a duration"),
        "{stderr}"
    );
    // Every numeric, duration and time option of every command (the global ones above).
    let mut checked = 0;
    for (path, cmd) in commands() {
        for option in cmd.get_arguments() {
            let numeric = option
                .get_value_names()
                .and_then(|v| v.first())
                .is_some_and(|v| ["N", "DUR", "TIME", "R", "RATE"].contains(&v.as_str()));
            let (Some(long), true) = (option.get_long(), numeric && !option.is_global_set()) else {
                continue;
            };
            let flag = format!("--{long}");
            let args = line_of(&path, &cmd, &[&flag, "-1"]);
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let (code, stderr) = usage_error(&args);
            checked += 1;
            let usage = if ["check", "doctor"].contains(&path[0].as_str()) {
                3
            } else {
                2
            };
            assert_eq!(code, Some(usage), "{args:?}: {stderr}");
            assert!(!stderr.contains("'-- -1'"), "{args:?}:\n{stderr}");
            assert!(
                stderr.contains(&format!("for '{flag}")) && stderr.contains(" takes "),
                "{args:?}: the option and what it takes:\n{stderr}"
            );
        }
    }
    assert!(checked > 30, "{checked} options checked");
}

#[test]
fn an_option_of_another_command_names_the_commands_that_have_it() {
    let (code, stderr) = usage_error(&["active", "delete", "mail", "--all"]);
    assert_eq!(code, Some(2), "{stderr}");
    for w in [
        "'qctl active delete' has no --all",
        "'dead requeue'",
        "whose ids it is given",
        "qctl purge QUEUE",
    ] {
        assert!(stderr.contains(w), "no {w:?}:\n{stderr}");
    }
    assert!(!stderr.contains("'-- --all'"), "{stderr}");
    // Options of the commands that change or list jobs, on every command without them.
    let all = commands();
    let mut checked = 0;
    for long in [
        "all",
        "yes",
        "dry-run",
        "limit",
        "grep",
        "jsonl",
        "raw",
        "older-than",
        "watch",
    ] {
        for (path, cmd) in &all {
            let leaf = cmd.get_subcommands().next().is_none();
            let has = cmd.get_arguments().any(|a| a.get_long() == Some(long));
            if !leaf || has || path[0] == "help" {
                continue;
            }
            let flag = format!("--{long}");
            let args = line_of(path, cmd, &[&flag]);
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let (_, stderr) = usage_error(&args);
            checked += 1;
            assert!(
                stderr.contains(&format!("has no {flag};")) && !stderr.contains("'-- --"),
                "{args:?}:\n{stderr}"
            );
        }
    }
    assert!(checked > 100, "{checked} command lines checked");
}

/// A change whose call got no reply within --response-timeout may have been made all the
/// same (tests/settle.rs shows Redis running such a call as it wakes). With Redis holding
/// writes (CLIENT PAUSE WRITE), each command says so, in the words of a lost reply, and
/// never that nothing changed.
#[test]
fn a_change_that_got_no_reply_says_it_may_or_may_not_have_been_made() {
    let server = queues();
    let import = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(import.path(), "{\"id\":\"imported\",\"data\":\"x\"}\n").unwrap();
    let file = import.path().to_str().unwrap();
    // Each of them first checks that the change can be recorded in mail:changes (a script,
    // which Redis holds with the writes): that check changes nothing, and is what gets no
    // reply, so each says that no change was made.
    let held = "no change was made: the check that it can be recorded in mail:changes got no reply";
    let cases: [(&[&str], &str); 4] = [
        (&["pause", "mail"], held),
        (&["resume", "mail"], held),
        (&["limit", "mail", "--rate", "5/s"], held),
        (&["import", "mail", "--file", file], held),
    ];
    for (args, words) in cases {
        let _: () = server.cmd(&[b"CLIENT", b"PAUSE", b"10000", b"WRITE"]);
        let out = qctl(&server)
            .args(["--response-timeout", "1s"])
            .args(args)
            .output()
            .unwrap();
        let _: () = server.cmd(&[b"CLIENT", b"UNPAUSE"]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "{args:?}: {stderr}");
        assert!(stderr.contains(words), "{args:?}: {stderr}");
        assert!(
            !stderr.contains("nothing was changed"),
            "{args:?}: {stderr}"
        );
    }
    // Whatever Redis ran of them once it let writes go, the queue is whole.
    assert_eq!(support::invariants(&server, "mail"), Vec::<String>::new());
}

/// The `word N` or `N word` pairs of a list (`ran 3, dead 1`, `2 ready, 1 dead`).
fn counted_words(text: &str) -> Vec<(String, u64)> {
    text.split([',', ';'])
        .filter_map(|part| {
            let words: Vec<&str> = part.split_whitespace().collect();
            match words[..] {
                [a, b] => match (a.parse::<u64>(), b.parse::<u64>()) {
                    (Ok(n), Err(_)) => Some((b.to_string(), n)),
                    (Err(_), Ok(n)) => Some((a.to_string(), n)),
                    _ => None,
                },
                _ => None,
            }
        })
        .collect()
}

/// A table's header names (lower case, `_` for a space) with the cells of row `row`.
fn table_row(table: &str, row: usize) -> Vec<(String, String)> {
    let lines: Vec<&str> = table.lines().collect();
    let header = lines[0];
    // Columns are two spaces apart at least; a header may be two words (IN FLIGHT).
    let names: Vec<&str> = header
        .split("  ")
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect();
    let line = lines[row + 1];
    let cells: Vec<&str> = line
        .split("  ")
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect();
    assert_eq!(cells.len(), names.len(), "{table}");
    names
        .into_iter()
        .zip(cells)
        .map(|(n, c)| (n.to_lowercase().replace(' ', "_"), c.to_string()))
        .collect()
}

#[test]
fn json_says_what_the_text_says_in_the_same_words() {
    let server = RedisServer::start();
    for (id, data) in [("ok", "ok"), ("bad", "bad"), ("flaky", "flaky")] {
        qctl(&server)
            .args(["enqueue", "q", "--id", id, data])
            .assert()
            .success();
    }
    // ok succeeds, bad fails twice and goes dead, flaky fails once and is retried once more.
    let handler =
        r#"read x; case "$x" in ok) exit 0 ;; bad) exit 3 ;; esac; [ "$QCTL_JOB_ATTEMPT" = 1 ]"#;
    let consume = |json: bool| {
        let mut cmd = qctl(&server);
        cmd.args(["consume", "q", "--drain", "--max-retries", "1"])
            .args(["--max-backoff", "0s"]);
        if json {
            cmd.arg("--json");
        }
        cmd.args(["--", "sh", "-c", handler]).output().unwrap()
    };
    let text = consume(false);
    assert_eq!(text.status.code(), Some(7), "{text:?}");
    let stderr = String::from_utf8_lossy(&text.stderr).into_owned();
    let summary = stderr
        .lines()
        .find(|l| l.starts_with("ran "))
        .unwrap_or_else(|| panic!("{stderr}"));
    let said = counted_words(summary);
    assert_eq!(said.len(), 6, "{summary}");
    assert!(stderr.contains("job bad moved to the dead set"), "{stderr}");

    // The same again, with --json: the summary event has the text's words, and the event of
    // a job moved to the dead set is `dead`.
    for (id, data) in [("ok", "ok"), ("bad", "bad"), ("flaky", "flaky")] {
        qctl(&server)
            .args(["dead", "delete", "q", id, "--yes"])
            .output()
            .unwrap();
        qctl(&server)
            .args(["enqueue", "q", "--id", id, data])
            .assert()
            .success();
    }
    let json = consume(true);
    assert_eq!(json.status.code(), Some(7), "{json:?}");
    let events: Vec<serde_json::Value> = String::from_utf8_lossy(&json.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let summary_event = events.iter().find(|e| e["event"] == "summary").unwrap();
    for (word, n) in &said {
        assert_eq!(summary_event[word], *n, "{word} in {summary_event}");
    }
    let dead: Vec<&serde_json::Value> = events.iter().filter(|e| e["event"] == "dead").collect();
    assert_eq!(dead.len(), 1, "{events:?}");
    assert_eq!(dead[0]["id"], "bad");

    // stats: each column that is a count has a JSON field of its name with its value.
    let table = qctl(&server).args(["stats", "q"]).output().unwrap();
    let table = String::from_utf8_lossy(&table.stdout).into_owned();
    let doc: serde_json::Value = serde_json::from_slice(
        &qctl(&server)
            .args(["stats", "q", "--json"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let row = table_row(&table, 0);
    let mut compared = Vec::new();
    for (name, cell) in &row {
        if let Ok(n) = cell.parse::<u64>() {
            if ["due", "later", "consumers"].contains(&name.as_str()) {
                continue; // scheduled_due, scheduled_later, consumers_alive
            }
            assert_eq!(doc[0][name], n, "{name} in {table}\n{doc}");
            compared.push(name.as_str());
        }
    }
    assert_eq!(
        compared,
        ["active", "in_flight", "dead", "done", "failed"],
        "{table}"
    );

    // stats --history: its columns are the fields of its JSON.
    let table = qctl(&server)
        .args(["stats", "q", "--history", "10m"])
        .output()
        .unwrap();
    let table = String::from_utf8_lossy(&table.stdout).into_owned();
    // Its first line names the span; then the header, the steps and the total.
    let header = table.lines().nth(1).unwrap();
    let total = table
        .lines()
        .find(|l| l.trim_start().starts_with("total"))
        .unwrap();
    let totals = table_row(&format!("{header}\n{total}"), 0);
    let steps: serde_json::Value = serde_json::from_slice(
        &qctl(&server)
            .args(["stats", "q", "--history", "10m", "--json"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let mut compared = Vec::new();
    for (name, cell) in &totals {
        if let Ok(n) = cell.parse::<u64>() {
            let sum: u64 = steps
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s[name].as_u64().unwrap_or_else(|| panic!("{name} in {s}")))
                .sum();
            assert_eq!(sum, n, "{name}");
            compared.push(name.as_str());
        }
    }
    assert_eq!(compared, ["done", "failed", "retried", "dead"], "{table}");

    // tail: a job moved to the dead set is `dead` in both; the counts have the text's words.
    let tail = |json: bool| {
        let mut cmd = qctl(&server);
        cmd.args(["tail", "q", "--since", "1h", "--no-follow"]);
        if json {
            cmd.arg("--json");
        }
        String::from_utf8_lossy(&cmd.output().unwrap().stdout).into_owned()
    };
    let text = tail(false);
    let json: Vec<serde_json::Value> = tail(true)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let first = text.lines().next().unwrap();
    let (_, counts) = first.rsplit_once("): ").unwrap();
    let counts = counted_words(counts);
    assert!(counts.len() >= 3, "{first}");
    for (word, n) in counts {
        assert_eq!(
            json[0]["counts"][&word], n,
            "{word} in {first}\n{}",
            json[0]
        );
    }
    let dead_lines: Vec<&str> = text.lines().filter(|l| l.contains(" dead bad")).collect();
    assert_eq!(dead_lines.len(), 1, "{text}");
    let dead_events: Vec<&serde_json::Value> =
        json.iter().filter(|e| e["event"] == "dead").collect();
    assert_eq!(dead_events.len(), 1, "{json:?}");
    assert_eq!(dead_events[0]["id"], "bad");
}
