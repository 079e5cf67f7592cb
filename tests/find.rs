//! `qctl find`: a text looked for in the ids, data and recorded failures of a queue's jobs in
//! every place, against real redis-servers: an exact id in one round trip, --in, the scan
//! budget and --limit with the last line that says what was searched, Go-written, damaged
//! and hostile records, wrong types.

mod support;

use qctl::engine::failure::Failure;
use qctl::engine::Job;
use support::{qctl, run, RedisServer};

/// The record of job `id` with `data`, as CurlyQ writes it.
fn record(id: &str, data: &[u8], attempt: i64) -> Vec<u8> {
    Job {
        id: id.into(),
        data: Some(data.to_vec()),
        attempt,
    }
    .encode()
}

/// Job `id` in the sorted set `q:{set}` at `score`, with its record.
fn in_zset(server: &RedisServer, set: &str, id: &str, data: &[u8], score: f64) {
    let _: () = server.cmd(&[b"HSET", b"q:data", id.as_bytes(), &record(id, data, 2)]);
    let key = format!("q:{set}");
    let _: () = server.cmd(&[
        b"ZADD",
        key.as_bytes(),
        score.to_string().as_bytes(),
        id.as_bytes(),
    ]);
}

/// Job `id` at the tail of `q:active`, with its record.
fn ready(server: &RedisServer, id: &str, data: &[u8]) {
    let _: () = server.cmd(&[b"HSET", b"q:data", id.as_bytes(), &record(id, data, 0)]);
    let _: () = server.cmd(&[b"RPUSH", b"q:active", id.as_bytes()]);
}

/// The in-flight set of a live consumer.
const INFLIGHT: &str = "q:inflight:0b7d3e2a-1c4f-4d5e-9f00-aabbccddeeff";

/// Job `id` in flight at a live consumer, with its record.
fn in_flight(server: &RedisServer, id: &str, data: &[u8]) {
    let _: () = server.cmd(&[b"HSET", b"q:data", id.as_bytes(), &record(id, data, 1)]);
    let _: () = server.cmd(&[b"SADD", INFLIGHT.as_bytes(), id.as_bytes()]);
    let now = qctl::engine::now().to_string();
    let _: () = server.cmd(&[b"ZADD", b"q:consumers", now.as_bytes(), INFLIGHT.as_bytes()]);
}

/// The failure a qctl consumer records for job `id`.
fn fail(server: &RedisServer, id: &str, reason: &str, stderr: &str) {
    let failure = Failure {
        reason: reason.into(),
        exit_code: reason.strip_prefix("exit ").and_then(|c| c.parse().ok()),
        stderr: stderr.into(),
        attempt: 1,
        time: 1_700_000_000.0,
        consumer: INFLIGHT.into(),
        ..Failure::default()
    };
    let _: () = server.cmd(&[
        b"HSET",
        b"q:failures",
        id.as_bytes(),
        failure.to_json().as_bytes(),
    ]);
}

/// `n` jobs in one place through one pipeline: ids `{prefix}{i}`, data `filler {i}`.
fn many(server: &RedisServer, place: &str, prefix: &str, n: usize) {
    let mut conn = server.conn();
    let mut pipe = redis::pipe();
    for i in 0..n {
        let id = format!("{prefix}{i}");
        pipe.hset(
            "q:data",
            &id,
            record(&id, format!("filler {i}").as_bytes(), 0),
        );
        match place {
            "ready" => {
                pipe.rpush("q:active", &id);
            }
            set => {
                pipe.zadd(format!("q:{set}"), &id, 1_700_000_000 + i as i64);
            }
        }
        if pipe.len() > 2000 {
            let _: () = pipe.query(&mut conn).expect("plant jobs");
            pipe = redis::pipe();
        }
    }
    let _: () = pipe.query(&mut conn).expect("plant jobs");
}

/// `qctl find ARGS` against `server`: its exit code, stdout and stderr.
fn find(server: &RedisServer, args: &[&str]) -> (Option<i32>, String, String) {
    let ran = run(qctl(server).args(["find", "q"]).args(args));
    (ran.code, ran.stdout(), ran.err.clone())
}

/// The objects of `--jsonl` output.
fn objects(stdout: &str) -> Vec<serde_json::Value> {
    stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// The `where` and `id` of each object.
fn places_and_ids(stdout: &str) -> Vec<(String, String)> {
    objects(stdout)
        .iter()
        .map(|o| {
            (
                o["where"].as_str().unwrap_or_default().to_string(),
                o["id"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

/// Each command Redis ran since the last CONFIG RESETSTAT, with its calls.
fn commands_run(server: &RedisServer) -> Vec<(String, u64)> {
    let info: String = server.cmd(&[b"INFO", b"commandstats"]);
    info.lines()
        .filter_map(|l| {
            let (name, rest) = l.strip_prefix("cmdstat_")?.split_once(":calls=")?;
            Some((name.to_string(), rest.split(',').next()?.parse().ok()?))
        })
        // The test's own connections: INFO, CONFIG RESETSTAT, CLIENT SETINFO.
        .filter(|(name, _)| {
            !["info", "config", "client"]
                .iter()
                .any(|own| name.split('|').next() == Some(own))
        })
        .collect::<std::collections::BTreeMap<_, _>>()
        .into_iter()
        .collect()
}

#[test]
fn an_exact_id_is_found_first_in_one_round_trip_among_many_jobs() {
    let server = RedisServer::start();
    many(&server, "ready", "r", 20_000);
    many(&server, "dead", "d", 5_000);
    let _: () = server.cmd(&[b"CONFIG", b"RESETSTAT"]);
    // The 15,000th ready job, by its id: found without a scan.
    let (code, stdout, stderr) = find(&server, &["r15000", "--limit", "1", "--jsonl"]);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    let found = objects(&stdout);
    assert_eq!(found.len(), 1, "{stdout}");
    assert_eq!(found[0]["where"], "ready");
    assert_eq!(found[0]["ahead"], 15_000);
    assert_eq!(found[0]["matched"], serde_json::json!(["id"]));
    assert_eq!(found[0]["data"], "filler 15000");
    assert!(
        stderr.contains("1 job found; searched 0 of 5,000 dead, no scheduled, no in-flight and 0 of 20,000 ready jobs: stopped at --limit 1 result"),
        "{stderr}"
    );
    // No scan: no script, no range of ids, and the same commands for twice the jobs.
    assert_eq!(server.calls("evalsha"), 0, "a scan ran");
    assert_eq!(server.calls("lrange"), 0);
    let first = commands_run(&server);
    many(&server, "ready", "x", 20_000);
    let _: () = server.cmd(&[b"CONFIG", b"RESETSTAT"]);
    let (code, _, stderr) = find(&server, &["r15000", "--limit", "1", "--jsonl"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(commands_run(&server), first);
    let total: u64 = first.iter().map(|(_, n)| n).sum();
    assert!(total < 40, "{first:?}");

    // Without a limit it comes first, once, and the scan finds the ids holding it.
    let (code, stdout, stderr) = find(&server, &["r1500", "--limit", "0", "--jsonl"]);
    assert_eq!(code, Some(0), "{stderr}");
    let found = places_and_ids(&stdout);
    assert_eq!(found[0], ("ready".to_string(), "r1500".to_string()));
    let ids: Vec<&str> = found.iter().map(|(_, id)| id.as_str()).collect();
    assert_eq!(
        ids.iter().filter(|id| **id == "r1500").count(),
        1,
        "{ids:?}"
    );
    let mut rest: Vec<&str> = ids[1..].to_vec();
    rest.sort();
    assert_eq!(
        rest,
        [
            "r15000", "r15001", "r15002", "r15003", "r15004", "r15005", "r15006", "r15007",
            "r15008", "r15009"
        ]
    );
}

#[test]
fn text_in_data_is_found_in_each_place_in_order() {
    let server = RedisServer::start();
    ready(&server, "r1", b"nothing here");
    ready(&server, "r2", b"a needle in ready");
    in_zset(
        &server,
        "dead",
        "d1",
        b"the needle of the dead",
        1_700_000_000.0,
    );
    in_zset(&server, "dead", "d2", b"no", 1_700_000_001.0);
    in_zset(&server, "scheduled", "s1", b"needle later", 4_000_000_000.0);
    in_flight(&server, "f1", b"running needle");
    in_flight(&server, "f2", b"running");
    let (code, stdout, stderr) = find(&server, &["needle", "--jsonl"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(
        places_and_ids(&stdout),
        [
            ("dead".to_string(), "d1".to_string()),
            ("scheduled".to_string(), "s1".to_string()),
            ("inflight".to_string(), "f1".to_string()),
            ("ready".to_string(), "r2".to_string()),
        ]
    );
    let found = objects(&stdout);
    for o in &found {
        assert_eq!(o["matched"], serde_json::json!(["data"]), "{o}");
        assert_eq!(o["queue"], "q");
    }
    assert_eq!(found[0]["died"], 1_700_000_000.0);
    assert_eq!(found[0]["attempt"], 2);
    assert_eq!(found[1]["due"], 4_000_000_000.0);
    assert_eq!(found[2]["consumer"], INFLIGHT);
    assert_eq!(found[3]["ahead"], 1);
    assert!(
        stderr.contains(
            "4 jobs found; searched all 2 dead, all 1 scheduled, all 2 in-flight and all 2 ready jobs"
        ),
        "{stderr}"
    );

    // The table: a header, then a row a job as found.
    let (code, stdout, _) = find(&server, &["needle"]);
    assert_eq!(code, Some(0));
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 5, "{stdout}");
    let header: Vec<&str> = lines[0].split_whitespace().collect();
    assert_eq!(header, ["WHERE", "ID", "MATCHED", "FAILURES", "DATA"]);
    let first: Vec<&str> = lines[1].split_whitespace().collect();
    assert_eq!(first[..4], ["dead", "d1", "data", "2"], "{stdout}");
    assert!(lines[1].ends_with("the needle of the dead"), "{stdout}");
    assert!(lines[3].starts_with("in flight"), "{stdout}");

    // --json: one array.
    let (code, stdout, _) = find(&server, &["needle", "--json"]);
    assert_eq!(code, Some(0));
    let array: Vec<serde_json::Value> = serde_json::from_str(&stdout).expect("a JSON array");
    assert_eq!(array.len(), 4);

    // Case counts, as with --grep.
    let (code, stdout, stderr) = find(&server, &["NEEDLE"]);
    assert_eq!(code, Some(5), "{stdout}{stderr}");
    assert_eq!(stdout, "");
    assert!(
        stderr.contains("nothing found; searched all 2 dead, all 1 scheduled, all 2 in-flight and all 2 ready jobs"),
        "{stderr}"
    );
}

#[test]
fn text_in_a_failure_reason_or_stderr_is_found() {
    let server = RedisServer::start();
    in_zset(&server, "dead", "d1", b"plain", 1_700_000_000.0);
    fail(
        &server,
        "d1",
        "exit 42",
        "connecting\nrefused: \"db\" at C:\\data\n",
    );
    in_zset(&server, "dead", "d2", b"plain", 1_700_000_001.0);
    fail(&server, "d2", "timeout", "slow\n");
    in_zset(&server, "scheduled", "s1", b"plain", 4_000_000_000.0);
    fail(&server, "s1", "exit 3", "tab\there, ünïcode\n");
    for (text, want) in [
        ("exit 42", vec!["d1"]),
        // JSON escapes quotes, backslashes, line breaks and tabs in the record: found all the
        // same.
        ("refused: \"db\" at C:\\data\n", vec!["d1"]),
        ("tab\there, ünïcode", vec!["s1"]),
        ("timeout", vec!["d2"]),
    ] {
        let (code, stdout, stderr) = find(&server, &[text, "--jsonl"]);
        assert_eq!(code, Some(0), "{text:?}: {stderr}");
        let found = objects(&stdout);
        let ids: Vec<&str> = found.iter().filter_map(|o| o["id"].as_str()).collect();
        assert_eq!(ids, want, "{text:?}");
        assert_eq!(
            found[0]["matched"],
            serde_json::json!(["failure"]),
            "{text:?}"
        );
    }
    // The rest of the failure record (its field names, the consumer) is not searched.
    let (code, _, stderr) = find(&server, &["duration_ms"]);
    assert_eq!(code, Some(5), "{stderr}");
    let (code, _, stderr) = find(&server, &["0b7d3e2a"]);
    assert_eq!(code, Some(5), "{stderr}");
}

#[test]
fn in_narrows_the_places_searched() {
    let server = RedisServer::start();
    ready(&server, "r1", b"word");
    in_zset(&server, "dead", "d1", b"word", 1_700_000_000.0);
    in_zset(&server, "scheduled", "s1", b"word", 4_000_000_000.0);
    in_flight(&server, "f1", b"word");
    let (code, stdout, stderr) = find(&server, &["word", "--in", "scheduled,dead", "--jsonl"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(
        places_and_ids(&stdout),
        [
            ("dead".to_string(), "d1".to_string()),
            ("scheduled".to_string(), "s1".to_string())
        ]
    );
    assert!(
        stderr.contains("2 jobs found; searched all 1 dead and all 1 scheduled jobs"),
        "{stderr}"
    );
    let (code, stdout, stderr) = find(
        &server,
        &["word", "--in", "ready", "--in", "inflight", "--jsonl"],
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(
        places_and_ids(&stdout),
        [
            ("inflight".to_string(), "f1".to_string()),
            ("ready".to_string(), "r1".to_string())
        ]
    );
    // An exact id in a place not searched is not shown.
    let (code, stdout, stderr) = find(&server, &["d1", "--in", "ready"]);
    assert_eq!(code, Some(5), "{stdout}{stderr}");
    assert!(
        stderr.contains("nothing found; searched all 1 ready jobs"),
        "{stderr}"
    );
    let (code, _, stderr) = find(&server, &["word", "--in", "nowhere"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("ready, scheduled, inflight, dead"),
        "{stderr}"
    );
}

#[test]
fn the_scan_budget_stops_it_and_the_last_line_says_exactly_what_was_searched() {
    let server = RedisServer::start();
    many(&server, "dead", "d", 1_200);
    many(&server, "ready", "r", 1_500);
    let (code, stdout, stderr) = find(&server, &["absent", "--max-scan", "1300"]);
    assert_eq!(code, Some(5), "{stdout}{stderr}");
    assert_eq!(
        stderr.trim_end(),
        "nothing found; searched all 1,200 dead, no scheduled, no in-flight and 100 of 1,500 ready jobs: stopped at --max-scan 1,300 (--max-scan 0 searches every job)"
    );
    let (code, _, stderr) = find(&server, &["absent", "--max-scan", "0"]);
    assert_eq!(code, Some(5));
    assert_eq!(
        stderr.trim_end(),
        "nothing found; searched all 1,200 dead, no scheduled, no in-flight and all 1,500 ready jobs"
    );
    // A budget that ends with the last job stopped nothing.
    let (code, _, stderr) = find(&server, &["absent", "--max-scan", "2700"]);
    assert_eq!(code, Some(5));
    assert_eq!(
        stderr.trim_end(),
        "nothing found; searched all 1,200 dead, no scheduled, no in-flight and all 1,500 ready jobs"
    );
    // By default a bounded number of jobs.
    let help = run(qctl(&server).args(["find", "--help"])).stdout();
    assert!(help.contains("[default: 1000000]"), "{help}");
}

#[test]
fn limit_stops_at_that_many_results() {
    let server = RedisServer::start();
    many(&server, "dead", "d", 1_200);
    let (code, stdout, stderr) = find(&server, &["filler 1", "--limit", "5", "--jsonl"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(objects(&stdout).len(), 5);
    assert!(
        stderr
            .trim_end()
            .ends_with(": stopped at --limit 5 results"),
        "{stderr}"
    );
    assert!(stderr.contains("5 jobs found; searched "), "{stderr}");
    // 20 by default.
    let (_, stdout, stderr) = find(&server, &["filler 1", "--jsonl"]);
    assert_eq!(objects(&stdout).len(), 20, "{stderr}");
    // 0: every one. "filler 1" is in 1, 10-19, 100-199 and 1000-1199.
    let (code, stdout, stderr) = find(&server, &["filler 1", "--limit", "0", "--jsonl"]);
    assert_eq!(code, Some(0));
    assert_eq!(objects(&stdout).len(), 1 + 10 + 100 + 200, "{stderr}");
    assert_eq!(
        stderr.trim_end(),
        "311 jobs found; searched all 1,200 dead, no scheduled, no in-flight and no ready jobs"
    );
}

#[test]
fn a_go_written_record_without_a_failure_record_is_searched() {
    let server = RedisServer::start();
    // As the reference may write or read them: Data as str with a compact Attempt, and the
    // record as an array; the queue has no NAME:failures at all.
    let mut map = vec![0x83, 0xa2, b'I', b'D', 0xa2, b'g', b'1', 0xa4];
    map.extend_from_slice(b"Data");
    map.push(0xa0 | 11);
    map.extend_from_slice(b"hello world");
    map.push(0xa7);
    map.extend_from_slice(b"Attempt");
    map.push(0x04);
    let mut array = vec![0x93, 0xa2, b'g', b'2', 0xc4, 9];
    array.extend_from_slice(b"world cup");
    array.push(0x01);
    for (id, rec) in [("g1", &map), ("g2", &array)] {
        let _: () = server.cmd(&[b"HSET", b"q:data", id.as_bytes(), rec]);
        let _: () = server.cmd(&[b"ZADD", b"q:dead", b"1700000000", id.as_bytes()]);
    }
    let (code, stdout, stderr) = find(&server, &["world", "--jsonl"]);
    assert_eq!(code, Some(0), "{stderr}");
    let found = objects(&stdout);
    assert_eq!(found.len(), 2, "{stdout}");
    let g1 = found.iter().find(|o| o["id"] == "g1").expect("g1");
    assert_eq!(g1["data"], "hello world");
    assert_eq!(g1["attempt"], 4);
    assert_eq!(g1["matched"], serde_json::json!(["data"]));
    let g2 = found.iter().find(|o| o["id"] == "g2").expect("g2");
    assert_eq!(g2["data"], "world cup");
    assert_eq!(g2["attempt"], 1);
    // The record's own words are not its data.
    let (code, _, stderr) = find(&server, &["Attempt"]);
    assert_eq!(code, Some(5), "{stderr}");
}

#[test]
fn damaged_records_and_hostile_data_are_found_and_shown_escaped() {
    let server = RedisServer::start();
    // A record that is not msgpack, holding the text; an id without a record.
    let _: () = server.cmd(&[b"HSET", b"q:data", b"bad", b"\xc1garbage with needle"]);
    let _: () = server.cmd(&[b"ZADD", b"q:dead", b"1700000000", b"bad"]);
    let _: () = server.cmd(&[b"ZADD", b"q:dead", b"1700000001", b"needle-without-record"]);
    // Control characters in an id and in data.
    ready(&server, "evil\x1b[2Jneedle", b"needle \x1b[31mred\x07\r\n");
    let (code, stdout, stderr) = find(&server, &["needle"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        !stdout.contains('\x1b') && !stdout.contains('\x07') && !stdout.contains('\r'),
        "{stdout:?}"
    );
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 4, "{stdout}");
    assert!(
        lines.iter().any(|l| l.starts_with("dead")
            && l.contains("needle-without-record")
            && l.contains("id")
            && l.contains("<no record>")),
        "{stdout}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("dead") && l.contains("bad") && l.contains("<damaged: ")),
        "{stdout}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains("evil\\u{1b}[2Jneedle") && l.contains("id,data")),
        "{stdout}"
    );
    let (_, stdout, _) = find(&server, &["needle", "--jsonl"]);
    let found = objects(&stdout);
    let bad = found.iter().find(|o| o["id"] == "bad").expect("bad");
    assert_eq!(bad["matched"], serde_json::json!(["data"]));
    assert!(bad["damaged"].is_string(), "{bad}");
    assert!(bad["data"].is_null(), "{bad}");
}

#[test]
fn wrong_types_and_an_unknown_queue_are_refused_as_elsewhere() {
    let server = RedisServer::start();
    let (code, _, stderr) = find(&server, &["x"]);
    assert_eq!(code, Some(5), "{stderr}");
    assert!(stderr.contains("no queue \"q\""), "{stderr}");
    in_zset(&server, "dead", "d1", b"word", 1_700_000_000.0);
    // An in-flight set of another type is passed over, as `consumers` shows it.
    let now = qctl::engine::now().to_string();
    let _: () = server.cmd(&[b"SET", INFLIGHT.as_bytes(), b"x"]);
    let _: () = server.cmd(&[b"ZADD", b"q:consumers", now.as_bytes(), INFLIGHT.as_bytes()]);
    let (code, _, stderr) = find(&server, &["word"]);
    assert_eq!(code, Some(0), "{stderr}");
    for key in ["q:failures", "q:scheduled", "q:active", "q:data"] {
        let _: () = server.cmd(&[b"DEL", key.as_bytes()]);
        if key == "q:data" {
            let _: () = server.cmd(&[b"SET", b"q:data", b"x"]);
        } else {
            let _: () = server.cmd(&[b"SET", key.as_bytes(), b"x"]);
        }
        let (code, _, stderr) = find(&server, &["word"]);
        assert_eq!(code, Some(4), "{key}: {stderr}");
        assert!(
            stderr.contains("WRONGTYPE") && stderr.contains(key),
            "{key}: {stderr}"
        );
        // A place not searched may hold anything.
        if key == "q:scheduled" || key == "q:active" {
            let (code, stdout, stderr) = find(&server, &["word", "--in", "dead"]);
            assert_eq!(code, Some(0), "{key}: {stdout}{stderr}");
        }
        let _: () = server.cmd(&[b"DEL", key.as_bytes()]);
        if key == "q:data" {
            in_zset(&server, "dead", "d1", b"word", 1_700_000_000.0);
        }
    }
    let (code, _, stderr) = find(&server, &[""]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("the text is empty"), "{stderr}");
}

#[test]
fn a_record_in_no_place_is_found_by_its_id_when_every_place_is_searched() {
    let server = RedisServer::start();
    in_zset(&server, "dead", "d1", b"word", 1_700_000_000.0);
    // A record whose id is in no place: stranded.
    let _: () = server.cmd(&[
        b"HSET",
        b"q:data",
        b"lost",
        &record("lost", b"left over", 3),
    ]);
    let (code, stdout, stderr) = find(&server, &["lost", "--jsonl"]);
    assert_eq!(code, Some(0), "{stderr}");
    let found = objects(&stdout);
    assert_eq!(found.len(), 1, "{stdout}");
    assert_eq!(found[0]["where"], "stranded");
    assert_eq!(found[0]["attempt"], 3);
    assert_eq!(found[0]["data"], "left over");
    let (_, stdout, _) = find(&server, &["lost"]);
    assert!(
        stdout
            .lines()
            .nth(1)
            .unwrap_or_default()
            .starts_with(&format!("stranded   lost{}  id", " ".repeat(32))),
        "{stdout}"
    );
    // Not in a search of some places only.
    let (code, stdout, stderr) = find(&server, &["lost", "--in", "dead,ready,scheduled"]);
    assert_eq!(code, Some(5), "{stdout}{stderr}");
}
