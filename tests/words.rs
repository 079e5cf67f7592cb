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
