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
    assert_eq!(attempts("killed"), [2]);

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
    let cases: [(&[&str], &str); 4] = [
        (
            &["pause", "mail"],
            "whether queue \"mail\" was paused is not known: its reply was lost, so the change may or may not have been made",
        ),
        (
            &["resume", "mail"],
            "whether queue \"mail\" was resumed is not known: its reply was lost, so the change may or may not have been made",
        ),
        (
            &["limit", "mail", "--rate", "5/s"],
            "whether the limits of queue \"mail\" were changed is not known: its reply was lost, so the change may or may not have been made",
        ),
        (
            &["import", "mail", "--file", file],
            "lines 1 to 1 were sent and whether they were imported into queue \"mail\" is not known",
        ),
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
