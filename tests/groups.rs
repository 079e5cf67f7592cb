//! Failures by cause: `dead groups`, `scheduled groups`, and the `--reason` and `--group`
//! filters of the listing and bulk commands, against real redis-servers.

mod support;

use std::collections::BTreeSet;

use predicates::str::contains;
use qctl::engine::failure::Failure;
use qctl::engine::groups::{fingerprint, NONE_PATTERN, NONE_SCHEDULED};
use qctl::engine::Job;
use support::{qctl, RedisServer};

/// A job in the sorted set `set` of queue q with its record (as CurlyQ writes it) and, when
/// given, the failure qctl records for it.
fn plant(
    server: &RedisServer,
    set: &str,
    id: &str,
    attempt: i64,
    score: f64,
    failure: Option<&Failure>,
) {
    let record = Job {
        id: id.into(),
        data: Some(format!("data of {id}").into_bytes()),
        attempt,
    }
    .encode();
    let _: () = server.cmd(&[b"HSET", b"q:data", id.as_bytes(), &record]);
    let key = format!("q:{set}");
    let _: () = server.cmd(&[
        b"ZADD",
        key.as_bytes(),
        score.to_string().as_bytes(),
        id.as_bytes(),
    ]);
    if let Some(f) = failure {
        let _: () = server.cmd(&[
            b"HSET",
            b"q:failures",
            id.as_bytes(),
            f.to_json().as_bytes(),
        ]);
    }
}

/// A failure as a qctl consumer records it: `attempt` is the Attempt the failed run started
/// with.
fn failure(reason: &str, stderr: &str, attempt: i64) -> Failure {
    Failure {
        reason: reason.into(),
        exit_code: reason.strip_prefix("exit ").and_then(|c| c.parse().ok()),
        stderr: stderr.into(),
        attempt,
        time: 1_700_000_000.0,
        consumer: "q:inflight:0b7d3e2a-1c4f-4d5e-9f00-aabbccddeeff".into(),
        ..Failure::default()
    }
}

/// The dead set of the scenarios: 5 jobs failing with `502 from gateway N` (exit 3), 3
/// failing to connect to different addresses (exit 1), 2 killed by exit 137, and 4 killed by
/// a Go CurlyQ consumer (no failure record).
fn plant_dead(server: &RedisServer) {
    for i in 0..5 {
        let f = failure(
            "exit 3",
            &format!("502 from gateway {}\nretrying\n", 17 + i * 9),
            2 + i,
        );
        plant(
            server,
            "dead",
            &format!("gw{i}"),
            3 + i,
            1_700_000_100.0 + i as f64,
            Some(&f),
        );
    }
    for i in 0..3 {
        let f = failure(
            "exit 1",
            &format!(
                "connect to 10.0.0.{}:5432 failed: connection refused\n",
                7 + i
            ),
            20,
        );
        plant(
            server,
            "dead",
            &format!("db{i}"),
            21,
            1_700_000_200.0 + i as f64,
            Some(&f),
        );
    }
    for i in 0..2 {
        let f = failure("exit 137", &format!("502 from gateway {i}\n"), 20);
        plant(
            server,
            "dead",
            &format!("oom{i}"),
            21,
            1_700_000_300.0 + i as f64,
            Some(&f),
        );
    }
    for i in 0..4 {
        plant(
            server,
            "dead",
            &format!("go{i}"),
            21,
            1_700_000_400.0 + i as f64,
            None,
        );
    }
}

fn json_doc(out: &[u8]) -> serde_json::Value {
    serde_json::from_slice(out).expect("one JSON document")
}

fn stdout_of(cmd: &mut assert_cmd::Command, code: i32) -> Vec<u8> {
    cmd.assert().code(code).get_output().stdout.clone()
}

fn groups_json(server: &RedisServer, args: &[&str]) -> serde_json::Value {
    json_doc(&stdout_of(qctl(server).arg("--json").args(args), 0))
}

fn group<'a>(doc: &'a serde_json::Value, fp: &str) -> &'a serde_json::Value {
    doc["groups"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["fingerprint"] == fp)
        .unwrap_or_else(|| panic!("no group {fp} in {doc}"))
}

fn ids_of_list(out: &[u8]) -> BTreeSet<String> {
    json_doc(out)
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_str().unwrap().to_string())
        .collect()
}

fn ids_of_lines(out: &[u8]) -> BTreeSet<String> {
    String::from_utf8(out.to_vec())
        .unwrap()
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["id"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect()
}

fn set(ids: &[&str]) -> BTreeSet<String> {
    ids.iter().map(|s| s.to_string()).collect()
}

fn zset_ids(server: &RedisServer, key: &str) -> BTreeSet<String> {
    server
        .zrange_withscores(key)
        .into_iter()
        .map(|(id, _)| id)
        .collect()
}

fn fp(reason: &str, stderr: &str) -> String {
    fingerprint(Some(&failure(reason, stderr, 0)))
}

#[test]
fn failures_written_by_a_qctl_consumer_group_by_their_normalised_pattern() {
    let server = RedisServer::start();
    let jobs = [
        "502 from gateway 17",
        "502 from gateway 9",
        "502 from gateway 1234",
        "connect to 10.0.0.7:5432 failed",
        "connect to 10.0.0.8:5432 failed",
        "open /tmp/run-4f1c2a3b-9d8e-4c7b-a6f5-0123456789ab/out.txt: denied",
        "open /var/tmp/x.txt: denied",
    ];
    for data in jobs {
        qctl(&server)
            .args(["enqueue", "q", data])
            .assert()
            .success();
    }
    // The handler echoes the data to stderr; connection failures exit 1, the others 3.
    qctl(&server)
        .args([
            "consume",
            "q",
            "--drain",
            "--max-retries",
            "0",
            "-c",
            "2",
            "--",
        ])
        .args([
            "sh",
            "-c",
            r#"d=$(cat); printf '%s\n' "$d" >&2; case "$d" in connect*) exit 1;; esac; exit 3"#,
        ])
        .assert()
        .code(7);
    let before = server.dump_all();
    let doc = groups_json(&server, &["dead", "groups", "q"]);
    assert_eq!(doc["jobs"], 7, "{doc}");
    assert_eq!(doc["groups_found"], 3, "{doc}");
    let counts: Vec<(String, u64)> = doc["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            (
                g["pattern"].as_str().unwrap().to_string(),
                g["count"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        counts,
        [
            ("exit 3: <n> from gateway <n>".to_string(), 3),
            ("exit 1: connect to <ip>:<n> failed".to_string(), 2),
            ("exit 3: open <path>: denied".to_string(), 2),
        ]
    );
    let gateway = &doc["groups"][0];
    assert_eq!(gateway["fingerprint"], fp("exit 3", "502 from gateway 5\n"));
    // Killed at their first failure: the record's Attempt is 1.
    assert_eq!(
        (
            gateway["attempts_min"].as_i64(),
            gateway["attempts_max"].as_i64()
        ),
        (Some(1), Some(1))
    );
    // The table names the same groups.
    let table =
        String::from_utf8(stdout_of(qctl(&server).args(["dead", "groups", "q"]), 0)).unwrap();
    for g in doc["groups"].as_array().unwrap() {
        assert!(
            table.contains(g["fingerprint"].as_str().unwrap()),
            "{table}"
        );
    }
    assert!(
        table.contains("exit 1: connect to <ip>:<n> failed"),
        "{table}"
    );
    assert!(table.lines().all(|l| l.chars().count() <= 80), "{table}");
    assert_eq!(server.dump_all(), before, "dead groups changed something");
}

#[test]
fn groups_keep_exit_codes_apart_and_report_counts_times_attempts_and_a_sample() {
    let server = RedisServer::start();
    plant_dead(&server);
    let doc = groups_json(&server, &["dead", "groups", "q"]);
    let fields: Vec<&String> = doc.as_object().unwrap().keys().collect();
    assert_eq!(
        fields,
        [
            "groups",
            "groups_found",
            "jobs",
            "more_groups",
            "queue",
            "set",
            "ungrouped"
        ]
    );
    assert_eq!(doc["queue"], "q");
    assert_eq!(doc["set"], "q:dead");
    assert_eq!(
        (doc["jobs"].as_u64(), doc["groups_found"].as_u64()),
        (Some(14), Some(4))
    );
    assert_eq!(
        (doc["more_groups"].as_u64(), doc["ungrouped"].as_u64()),
        (Some(0), Some(0))
    );
    let gw = group(&doc, &fp("exit 3", "502 from gateway 1\n"));
    let fields: Vec<&String> = gw.as_object().unwrap().keys().collect();
    assert_eq!(
        fields,
        [
            "attempts_max",
            "attempts_min",
            "count",
            "example",
            "fingerprint",
            "first",
            "first_at",
            "last",
            "last_at",
            "pattern",
            "sample"
        ]
    );
    assert_eq!(gw["pattern"], "exit 3: <n> from gateway <n>");
    assert_eq!(gw["count"], 5);
    assert_eq!(
        (gw["first"].as_f64(), gw["last"].as_f64()),
        (Some(1_700_000_100.0), Some(1_700_000_104.0))
    );
    assert_eq!(gw["first_at"], "2023-11-14T22:15:00Z");
    assert_eq!(
        (gw["attempts_min"].as_i64(), gw["attempts_max"].as_i64()),
        (Some(3), Some(7))
    );
    assert_eq!(gw["sample"], "gw4", "the newest job is the sample");
    assert_eq!(gw["example"], "exit 3: 502 from gateway 53");
    // The same message with another exit code is another group.
    let oom = group(&doc, &fp("exit 137", "502 from gateway 1\n"));
    assert_eq!(
        (oom["count"].as_u64(), oom["pattern"].as_str()),
        (Some(2), Some("exit 137: <n> from gateway <n>"))
    );
    let db = group(
        &doc,
        &fp(
            "exit 1",
            "connect to 10.0.0.1:5432 failed: connection refused",
        ),
    );
    assert_eq!(db["count"], 3);
    // Largest first.
    let counts: Vec<u64> = doc["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["count"].as_u64().unwrap())
        .collect();
    assert_eq!(counts, [5, 4, 3, 2]);
    // --limit keeps the largest and says how many more there were.
    let limited = qctl(&server)
        .args(["dead", "groups", "q", "--limit", "2"])
        .assert()
        .success()
        .stderr(contains("2 more groups not shown"))
        .get_output()
        .stdout
        .clone();
    let table = String::from_utf8(limited).unwrap();
    assert!(
        table.contains(gw["fingerprint"].as_str().unwrap()) && table.contains("none"),
        "{table}"
    );
    assert!(
        !table.contains(oom["fingerprint"].as_str().unwrap()),
        "{table}"
    );
    let doc = groups_json(&server, &["dead", "groups", "q", "--limit", "1"]);
    assert_eq!(
        (
            doc["groups"].as_array().unwrap().len(),
            doc["more_groups"].as_u64()
        ),
        (1, Some(3))
    );
    // --since and --until select by time of death.
    let doc = groups_json(
        &server,
        &[
            "dead",
            "groups",
            "q",
            "--since",
            "1700000200",
            "--until",
            "1700000301",
        ],
    );
    assert_eq!(doc["jobs"], 5);
    assert_eq!(doc["groups_found"], 2);
}

#[test]
fn a_queue_killed_by_go_curlyq_shows_as_the_no_failure_recorded_group() {
    let server = RedisServer::start();
    // What a Go CurlyQ consumer leaves after killing jobs: records with Attempt + 1 and ids
    // in NAME:dead with the time of death, and no NAME:failures at all.
    for i in 0..6 {
        let id = format!("go-{i}");
        let record = Job {
            attempt: 21,
            ..Job::new(id.as_str(), Some(format!("payload {i}").into_bytes()))
        }
        .encode();
        let _: () = server.cmd(&[b"HSET", b"q:data", id.as_bytes(), &record]);
        let _: () = server.cmd(&[
            b"ZADD",
            b"q:dead",
            (1_700_000_000 + i).to_string().as_bytes(),
            id.as_bytes(),
        ]);
    }
    assert_eq!(server.key_type("q:failures"), "none");
    let doc = groups_json(&server, &["dead", "groups", "q"]);
    assert_eq!(doc["groups_found"], 1);
    let none = group(&doc, "none");
    assert_eq!(none["pattern"], NONE_PATTERN);
    assert_eq!(none["count"], 6);
    assert!(
        none["attempts_min"].is_null() && none["attempts_max"].is_null(),
        "{none}"
    );
    assert!(none["example"].is_null(), "{none}");
    assert_eq!(none["sample"], "go-5");
    let table =
        String::from_utf8(stdout_of(qctl(&server).args(["dead", "groups", "q"]), 0)).unwrap();
    let lines: Vec<&str> = table.lines().collect();
    assert!(lines[1].trim_start().starts_with("none"), "{table}");
    assert_eq!(lines[2].trim(), NONE_PATTERN, "{table}");
    assert_eq!(lines[3].trim(), "e.g. go-5", "{table}");
    // None of them has a reason to match.
    let out = stdout_of(
        qctl(&server).args(["--json", "dead", "list", "q", "--reason", "exit"]),
        0,
    );
    assert!(ids_of_list(&out).is_empty());
}

#[test]
fn reason_matches_the_recorded_reason_and_stderr_ignoring_case_and_grep_stays_on_data() {
    let server = RedisServer::start();
    plant_dead(&server);
    let before = server.dump_all();
    // --grep searches data only: the reason column says 502, the data does not.
    let out = stdout_of(
        qctl(&server).args(["--json", "dead", "list", "q", "--grep", "502"]),
        0,
    );
    assert!(ids_of_list(&out).is_empty());
    let out = stdout_of(
        qctl(&server).args(["--json", "dead", "list", "q", "--reason", "502 FROM"]),
        0,
    );
    assert_eq!(
        ids_of_list(&out),
        set(&["gw0", "gw1", "gw2", "gw3", "gw4", "oom0", "oom1"])
    );
    // The reason itself, and text past the first line of stderr.
    let out = stdout_of(
        qctl(&server).args(["--json", "dead", "list", "q", "--reason", "exit 137"]),
        0,
    );
    assert_eq!(ids_of_list(&out), set(&["oom0", "oom1"]));
    let out = stdout_of(
        qctl(&server).args(["--json", "dead", "list", "q", "--reason", "Retrying"]),
        0,
    );
    assert_eq!(ids_of_list(&out).len(), 5);
    // Combined with the other filters.
    let out = stdout_of(
        qctl(&server).args([
            "--json",
            "dead",
            "list",
            "q",
            "--reason",
            "exit 3",
            "--min-attempts",
            "6",
        ]),
        0,
    );
    assert_eq!(ids_of_list(&out), set(&["gw3", "gw4"]));
    let out = stdout_of(
        qctl(&server).args(["dead", "export", "q", "--reason", "refused"]),
        0,
    );
    assert_eq!(ids_of_lines(&out), set(&["db0", "db1", "db2"]));
    assert_eq!(
        server.dump_all(),
        before,
        "listing and export changed something"
    );

    // requeue moves exactly the matching jobs and clears their failures.
    qctl(&server)
        .args(["dead", "requeue", "q", "--reason", "REFUSED", "--yes"])
        .assert()
        .success()
        .stderr(contains("requeued 3"));
    let active: BTreeSet<String> = server.lrange("q:active").into_iter().collect();
    assert_eq!(active, set(&["db0", "db1", "db2"]));
    for id in ["db0", "db1", "db2"] {
        assert_eq!(server.hget_bytes("q:failures", id), None);
        assert_eq!(
            Job::decode(&server.hget_bytes("q:data", id).unwrap())
                .unwrap()
                .attempt,
            0
        );
    }
    // delete removes the id, its record and its failure together.
    qctl(&server)
        .args(["dead", "delete", "q", "--reason", "exit 137", "--yes"])
        .assert()
        .success()
        .stderr(contains("deleted 2"));
    for id in ["oom0", "oom1"] {
        assert_eq!(server.hget_bytes("q:data", id), None);
        assert_eq!(server.hget_bytes("q:failures", id), None);
    }
    assert_eq!(
        zset_ids(&server, "q:dead"),
        set(&["gw0", "gw1", "gw2", "gw3", "gw4", "go0", "go1", "go2", "go3"])
    );
    // Nothing matching: exit 5, nothing changed.
    let before = server.dump_all();
    qctl(&server)
        .args(["dead", "delete", "q", "--reason", "no such text", "--yes"])
        .assert()
        .code(5);
    assert_eq!(server.dump_all(), before);
}

#[test]
fn group_requeue_with_yes_moves_exactly_that_groups_jobs() {
    let server = RedisServer::start();
    plant_dead(&server);
    let gw = fp("exit 3", "502 from gateway 0\n");
    let listed = stdout_of(
        qctl(&server).args(["--json", "dead", "list", "q", "--group", &gw]),
        0,
    );
    assert_eq!(
        ids_of_list(&listed),
        set(&["gw0", "gw1", "gw2", "gw3", "gw4"])
    );
    let exported = stdout_of(
        qctl(&server).args(["dead", "export", "q", "--group", &gw.to_uppercase()]),
        0,
    );
    assert_eq!(ids_of_lines(&exported), ids_of_list(&listed));
    qctl(&server)
        .args(["dead", "requeue", "q", "--group", &gw, "--yes"])
        .assert()
        .success()
        .stderr(contains("will requeue 5 jobs of q:dead"))
        .stderr(contains("requeued 5, not found 0, skipped 0"));
    let active: BTreeSet<String> = server.lrange("q:active").into_iter().collect();
    assert_eq!(active, set(&["gw0", "gw1", "gw2", "gw3", "gw4"]));
    assert_eq!(
        zset_ids(&server, "q:dead"),
        set(&["db0", "db1", "db2", "oom0", "oom1", "go0", "go1", "go2", "go3"])
    );
    for i in 0..5 {
        assert_eq!(server.hget_bytes("q:failures", &format!("gw{i}")), None);
    }
    // The other groups' failures are still there, and the group is gone from the report.
    assert!(server.hget_bytes("q:failures", "oom0").is_some());
    let doc = groups_json(&server, &["dead", "groups", "q"]);
    assert_eq!(doc["jobs"], 9);
    assert!(doc["groups"]
        .as_array()
        .unwrap()
        .iter()
        .all(|g| g["fingerprint"] != gw.as_str()));
}

#[test]
fn group_none_selects_the_jobs_without_a_failure_record() {
    let server = RedisServer::start();
    plant_dead(&server);
    let listed = stdout_of(
        qctl(&server).args(["--json", "dead", "list", "q", "--group", "none"]),
        0,
    );
    assert_eq!(ids_of_list(&listed), set(&["go0", "go1", "go2", "go3"]));
    qctl(&server)
        .args(["dead", "requeue", "q", "--group", "none", "--yes"])
        .assert()
        .success()
        .stderr(contains("requeued 4"));
    let active: BTreeSet<String> = server.lrange("q:active").into_iter().collect();
    assert_eq!(active, set(&["go0", "go1", "go2", "go3"]));
    assert_eq!(zset_ids(&server, "q:dead").len(), 10);
    // delete --group none: the dead jobs left all have failures, so nothing matches.
    qctl(&server)
        .args(["dead", "delete", "q", "--group", "none", "--yes"])
        .assert()
        .code(5);
    assert_eq!(zset_ids(&server, "q:dead").len(), 10);
}

#[test]
fn dry_run_of_a_group_or_a_reason_changes_nothing() {
    let server = RedisServer::start();
    plant_dead(&server);
    let before = server.dump_all();
    let gw = fp("exit 3", "502 from gateway 0\n");
    qctl(&server)
        .args(["dead", "requeue", "q", "--group", &gw, "--dry-run"])
        .assert()
        .success()
        .stderr(contains("dry run: would requeue 5 jobs of q:dead"));
    qctl(&server)
        .args(["dead", "delete", "q", "--reason", "refused", "--dry-run"])
        .assert()
        .success()
        .stderr(contains("dry run: would delete 3 jobs of q:dead"));
    let out = stdout_of(
        qctl(&server).args([
            "--json",
            "dead",
            "delete",
            "q",
            "--group",
            "none",
            "--dry-run",
        ]),
        0,
    );
    let plan = json_doc(&out);
    assert_eq!(
        (plan["dry_run"].as_bool(), plan["count"].as_u64()),
        (Some(true), Some(4))
    );
    // Without --yes and without a terminal, it is refused.
    qctl(&server)
        .args(["dead", "requeue", "q", "--group", &gw])
        .assert()
        .code(2)
        .stderr(contains("--yes"));
    assert_eq!(server.dump_all(), before);
}

#[test]
fn scheduled_groups_group_retries_by_due_time_and_delayed_jobs_have_none() {
    let server = RedisServer::start();
    let due = qctl::engine::now() + 3600.0;
    for i in 0..4 {
        let f = failure(
            "exit 3",
            &format!("timeout after {}ms talking to db-{i}\n", 100 + i),
            i,
        );
        plant(
            &server,
            "scheduled",
            &format!("r{i}"),
            i + 1,
            due + i as f64,
            Some(&f),
        );
    }
    let f = failure("signal 9", "", 0);
    plant(&server, "scheduled", "k0", 1, due + 10.0, Some(&f));
    for i in 0..3 {
        plant(
            &server,
            "scheduled",
            &format!("later{i}"),
            0,
            due + 20.0 + i as f64,
            None,
        );
    }
    let before = server.dump_all();
    let doc = groups_json(&server, &["scheduled", "groups", "q"]);
    assert_eq!(doc["set"], "q:scheduled");
    assert_eq!(
        (doc["jobs"].as_u64(), doc["groups_found"].as_u64()),
        (Some(8), Some(3))
    );
    let retries = &doc["groups"][0];
    assert_eq!(
        retries["pattern"],
        "exit 3: timeout after <n>ms talking to db-<n>"
    );
    assert_eq!(retries["count"], 4);
    // Redis keeps a score to 17 significant digits: within a microsecond of what was set.
    let near =
        |v: &serde_json::Value, want: f64| v.as_f64().is_some_and(|t| (t - want).abs() < 1e-6);
    assert!(
        near(&retries["first"], due) && near(&retries["last"], due + 3.0),
        "{retries}"
    );
    assert_eq!(
        (
            retries["attempts_min"].as_i64(),
            retries["attempts_max"].as_i64()
        ),
        (Some(1), Some(4))
    );
    let none = group(&doc, "none");
    assert_eq!(
        (none["count"].as_u64(), none["pattern"].as_str()),
        (Some(3), Some(NONE_SCHEDULED))
    );
    let table = String::from_utf8(stdout_of(
        qctl(&server).args(["scheduled", "groups", "q"]),
        0,
    ))
    .unwrap();
    assert!(
        table.contains("in 1h"),
        "due times are in the future: {table}"
    );
    assert_eq!(
        server.dump_all(),
        before,
        "scheduled groups changed something"
    );
    // run-now of one group makes exactly its jobs ready.
    let fp = retries["fingerprint"].as_str().unwrap();
    qctl(&server)
        .args(["scheduled", "run-now", "q", "--group", fp, "--yes"])
        .assert()
        .success()
        .stderr(contains("made ready 4"));
    assert_eq!(server.lrange("q:active"), ["r0", "r1", "r2", "r3"]);
    assert_eq!(
        zset_ids(&server, "q:scheduled"),
        set(&["k0", "later0", "later1", "later2"])
    );
    let out = stdout_of(
        qctl(&server).args(["--json", "scheduled", "list", "q", "--reason", "SIGNAL"]),
        0,
    );
    assert_eq!(ids_of_list(&out), set(&["k0"]));
}

#[test]
fn an_empty_set_has_no_groups_and_exits_0() {
    let server = RedisServer::start();
    // The queue has a ready job and no dead one.
    qctl(&server).args(["enqueue", "q", "x"]).assert().success();
    qctl(&server)
        .args(["dead", "groups", "q"])
        .assert()
        .success()
        .stdout("")
        .stderr(contains("no jobs in q:dead"));
    let doc = groups_json(&server, &["dead", "groups", "q"]);
    assert_eq!(
        (doc["jobs"].as_u64(), doc["groups"].as_array().map(Vec::len)),
        (Some(0), Some(0))
    );
    // A key of the wrong type is Redis's refusal, exit 4 naming it.
    let _: () = server.cmd(&[b"SET", b"q:dead", b"x"]);
    qctl(&server)
        .args(["dead", "groups", "q"])
        .assert()
        .code(4)
        .stderr(contains("q:dead"));
}

#[test]
fn dead_groups_reads_failures_in_chunks_and_never_the_records() {
    let server = RedisServer::start();
    let mut conn = server.conn();
    let mut pipe = redis::pipe();
    for i in 0..2500 {
        let id = format!("j{i}");
        pipe.hset(
            "q:data",
            &id,
            Job::new(id.as_str(), Some(b"x".to_vec())).encode(),
        );
        pipe.zadd("q:dead", &id, 1_700_000_000 + i);
        if i % 10 != 0 {
            pipe.hset(
                "q:failures",
                &id,
                failure("exit 3", &format!("job {i} failed\n"), 1).to_json(),
            );
        }
    }
    let _: () = pipe.query(&mut conn).unwrap();
    let _: () = server.cmd(&[b"CONFIG", b"RESETSTAT"]);
    let doc = groups_json(&server, &["dead", "groups", "q"]);
    assert_eq!(doc["jobs"], 2500);
    assert_eq!(group(&doc, "none")["count"], 250);
    assert_eq!(doc["groups"][0]["count"], 2250);
    // Three chunks of at most 1,000: one ZRANGE and one HMGET of NAME:failures each, and the
    // size of each failure; records are neither measured nor read.
    assert_eq!(server.calls("zrange"), 3);
    assert_eq!(server.calls("hmget"), 3);
    assert_eq!(server.calls("hstrlen"), 2500);
    assert_eq!(server.calls("hget"), 0);
}

#[test]
fn a_closed_stdout_ends_groups_quietly_with_exit_0() {
    let server = RedisServer::start();
    let mut conn = server.conn();
    let mut pipe = redis::pipe();
    // 3,000 groups: their table is larger than a pipe's buffer.
    for i in 0..3000u32 {
        let id = format!("j{i}");
        let word: String = [i % 26, i / 26 % 26, i / 676]
            .iter()
            .map(|d| char::from(b'a' + *d as u8))
            .collect();
        pipe.hset(
            "q:data",
            &id,
            Job::new(id.as_str(), Some(b"x".to_vec())).encode(),
        );
        pipe.zadd("q:dead", &id, 1_700_000_000 + i);
        pipe.hset(
            "q:failures",
            &id,
            failure("exit 3", &format!("kind {word} failed\n"), 1).to_json(),
        );
    }
    let _: () = pipe.query(&mut conn).unwrap();
    for json in [false, true] {
        let mut cmd = support::qctl_process(&server);
        if json {
            cmd.arg("--json");
        }
        let mut child = cmd
            .args(["dead", "groups", "q", "--limit", "0"])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // Read a little, then close stdout like `| head -1`.
        {
            use std::io::Read;
            let mut first = [0u8; 64];
            child.stdout.take().unwrap().read_exact(&mut first).unwrap();
        }
        let output = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(0), "json {json}: {stderr}");
        assert!(
            !stderr.contains("panicked") && !stderr.contains("qctl:"),
            "json {json}: {stderr}"
        );
    }
}

#[test]
fn the_table_fits_80_columns_with_long_patterns_and_ids() {
    let server = RedisServer::start();
    let mut conn = server.conn();
    let mut pipe = redis::pipe();
    let long_id = "x".repeat(100);
    for i in 0..1200 {
        let id = if i == 1199 {
            long_id.clone()
        } else {
            format!("4f1c2a3b-9d8e-4c7b-a6f5-{i:012}")
        };
        pipe.hset(
            "q:data",
            &id,
            Job::new(id.as_str(), Some(b"x".to_vec())).encode(),
        );
        pipe.zadd("q:dead", &id, 1_700_000_000 + i);
        let stderr = format!(
            "{} {i}\n",
            "the upstream service answered with an error ".repeat(4)
        );
        pipe.hset("q:failures", &id, failure("exit 3", &stderr, 20).to_json());
    }
    let _: () = pipe.query(&mut conn).unwrap();
    let table =
        String::from_utf8(stdout_of(qctl(&server).args(["dead", "groups", "q"]), 0)).unwrap();
    assert!(table.lines().all(|l| l.chars().count() <= 80), "{table}");
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), 5, "{table}");
    assert!(lines[1].contains(" 1,200 "), "{table}");
    assert!(
        lines[3].ends_with('…'),
        "a pattern longer than two lines is cut: {table}"
    );
    assert!(
        lines[4].trim_start().starts_with("e.g. xxxx") && lines[4].ends_with('…'),
        "{table}"
    );
}

#[test]
fn a_page_of_groups_says_so_in_json_too_and_limit_0_shows_every_group() {
    let server = RedisServer::start();
    // Four groups (see plant_dead).
    plant_dead(&server);
    let run = |args: &[&str]| {
        let out = qctl(&server)
            .args(["--json", "dead", "groups", "q"])
            .args(args)
            .assert()
            .success();
        let out = out.get_output();
        (
            json_doc(&out.stdout),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (doc, err) = run(&["--limit", "1"]);
    assert_eq!(doc["groups"].as_array().unwrap().len(), 1);
    assert_eq!(doc["more_groups"], 3);
    assert!(
        err.contains("3 more groups not shown (--limit 0 shows every one)"),
        "{err:?}"
    );
    for args in [&["--limit", "0"][..], &[]] {
        let (doc, err) = run(args);
        assert_eq!(doc["groups"].as_array().unwrap().len(), 4, "{args:?}");
        assert_eq!(doc["more_groups"], 0, "{args:?}");
        assert!(!err.contains("not shown"), "{args:?}: {err:?}");
    }
}

#[test]
fn ids_that_mix_letters_and_digits_fold_into_one_group_and_other_causes_stay_apart() {
    let server = RedisServer::start();
    let messages = [
        "req=g22357 user=bob192 order A7871-X",
        "req=g10 user=alice7 order B12-QQ",
        "req=h9f1 user=carol2024 order Z1-Y",
        "req=k77 user=dave_3 order C4410-A",
        "req=m5 user=e2 order D9-B",
    ];
    for (i, m) in messages.iter().enumerate() {
        let f = failure("exit 2", &format!("payment declined: {m}\n"), 4);
        plant(
            &server,
            "dead",
            &format!("pay{i}"),
            5,
            1_700_000_100.0 + i as f64,
            Some(&f),
        );
    }
    // Different causes with the same shape stay apart: another exit code, another word,
    // another digest named with a digit.
    let others = [
        ("exit 3", "payment declined: req=g1 user=bob1 order A1-X"),
        ("exit 2", "payment refused: req=g1 user=bob1 order A1-X"),
        ("exit 2", "sha256 mismatch for order A1-X"),
        ("exit 2", "md5 mismatch for order A1-X"),
    ];
    for (i, (reason, stderr)) in others.iter().enumerate() {
        let f = failure(reason, stderr, 4);
        plant(
            &server,
            "dead",
            &format!("other{i}"),
            5,
            1_700_000_200.0 + i as f64,
            Some(&f),
        );
    }
    let doc = groups_json(&server, &["dead", "groups", "q"]);
    assert_eq!(doc["jobs"], 9, "{doc}");
    let groups = doc["groups"].as_array().unwrap();
    assert_eq!(groups.len(), 5, "{doc}");
    assert_eq!(groups[0]["count"], 5, "{doc}");
    assert_eq!(
        groups[0]["pattern"],
        "exit 2: payment declined: req=<id> user=<id> order <id>"
    );
    assert_eq!(
        groups[0]["fingerprint"],
        fingerprint(Some(&failure(
            "exit 2",
            &format!("payment declined: {}", messages[0]),
            4
        )))
    );
    let patterns: BTreeSet<&str> = groups[1..]
        .iter()
        .map(|g| g["pattern"].as_str().unwrap())
        .collect();
    assert_eq!(
        patterns,
        BTreeSet::from([
            "exit 3: payment declined: req=<id> user=<id> order <id>",
            "exit 2: payment refused: req=<id> user=<id> order <id>",
            "exit 2: sha256 mismatch for order <id>",
            "exit 2: md5 mismatch for order <id>",
        ])
    );
    // The group's fingerprint selects its five jobs.
    let fp = groups[0]["fingerprint"].as_str().unwrap();
    let out = stdout_of(
        qctl(&server).args(["--json", "dead", "list", "q", "--group", fp]),
        0,
    );
    assert_eq!(
        ids_of_list(&out),
        set(&["pay0", "pay1", "pay2", "pay3", "pay4"])
    );
}
