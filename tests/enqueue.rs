//! `qctl enqueue` against real redis-servers, checked key by key.

mod support;

use std::time::Duration;

use base64::Engine as _;
use predicates::str::contains;
use qctl::engine::Job;
use support::{qctl, RedisServer};

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

fn record(server: &RedisServer, queue: &str, id: &str) -> Job {
    let bytes = server
        .hget_bytes(&format!("{queue}:data"), id)
        .expect("a record");
    Job::decode(&bytes).expect("a readable record")
}

fn data_file(data: &[u8]) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("data");
    std::fs::write(&path, data).unwrap();
    (dir, path)
}

#[test]
fn enqueue_writes_a_record_byte_identical_to_curlyq() {
    let server = RedisServer::start();
    qctl(&server)
        .args(["enqueue", "q", "--id", "j0", "payload-0"])
        .assert()
        .success()
        .stdout("j0\n");
    assert_eq!(
        server.hget_bytes("q:data", "j0").unwrap(),
        hex("83a24944a26a30a444617461c4097061796c6f61642d30a7417474656d7074d30000000000000000")
    );
    assert_eq!(server.lrange("q:active"), vec!["j0"]);
    assert_eq!(server.key_type("q:signal"), "list");
    assert_eq!(server.lrange("q:signal"), vec!["1"]);
}

#[test]
fn every_golden_vector_enqueued_with_its_id_is_stored_byte_for_byte() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/encode.jsonl");
    let text = std::fs::read_to_string(path).expect("the golden vectors");
    let server = RedisServer::start();
    let mut checked = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let case: serde_json::Value = serde_json::from_str(line).unwrap();
        let id = case["id"].as_str().unwrap();
        let Some(b64) = case["data_b64"].as_str() else {
            continue;
        };
        if case["attempt"] != 0 || id.is_empty() {
            continue;
        }
        let data = base64::engine::general_purpose::STANDARD
            .decode(b64)
            .unwrap();
        let (_dir, file) = data_file(&data);
        qctl(&server)
            .args(["enqueue", "q", "--id", id, "--file"])
            .arg(&file)
            .assert()
            .success();
        assert_eq!(
            server.hget_bytes("q:data", id).unwrap(),
            hex(case["hex"].as_str().unwrap()),
            "id {id:?}"
        );
        checked += 1;
    }
    assert!(checked >= 8, "only {checked} vectors checked");
}

#[test]
fn without_an_id_a_uuid_v4_is_assigned_and_printed_alone() {
    let server = RedisServer::start();
    let out = qctl(&server)
        .args(["enqueue", "q", "hello"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let id = String::from_utf8(out).unwrap();
    let id = id.strip_suffix('\n').expect("one line");
    let uuid = uuid::Uuid::parse_str(id).expect("a UUID");
    assert_eq!(uuid.get_version_num(), 4);
    assert_eq!(id, uuid.hyphenated().to_string());
    assert_eq!(
        record(&server, "q", id).data.as_deref(),
        Some(&b"hello"[..])
    );
}

#[test]
fn a_taken_id_changes_nothing_says_where_the_job_is_and_exits_5() {
    let server = RedisServer::start();
    qctl(&server)
        .args(["enqueue", "q", "--id", "a", "first"])
        .assert()
        .success();
    qctl(&server)
        .args(["enqueue", "q", "--id", "s", "--in", "1h", "x"])
        .assert()
        .success();
    let dead = Job::new("d", Some(b"x".to_vec())).encode();
    let _: () = server.cmd(&[b"HSET", b"q:data", b"d", &dead]);
    let _: () = server.cmd(&[b"ZADD", b"q:dead", b"1700000000", b"d"]);
    let flight = Job::new("f", Some(b"x".to_vec())).encode();
    let inflight = "q:inflight:0b7d3e2a-1c4f-4d5e-9f00-aabbccddeeff";
    let _: () = server.cmd(&[b"HSET", b"q:data", b"f", &flight]);
    let _: () = server.cmd(&[b"SADD", inflight.as_bytes(), b"f"]);
    let _: () = server.cmd(&[b"ZADD", b"q:consumers", b"1700000000", inflight.as_bytes()]);
    let before = server.dump_all();
    for (id, place) in [
        ("a", "active"),
        ("s", "scheduled"),
        ("d", "dead"),
        ("f", "in flight"),
    ] {
        qctl(&server)
            .args(["enqueue", "q", "--id", id, "second"])
            .assert()
            .code(5)
            .stdout("")
            .stderr(contains(place).and(contains(id)));
    }
    assert_eq!(server.dump_all(), before);
}

use predicates::prelude::PredicateBooleanExt;

#[test]
fn in_schedules_and_at_in_the_past_runs_at_once() {
    let server = RedisServer::start();
    let now = qctl::engine::now();
    qctl(&server)
        .args(["enqueue", "q", "--id", "later", "--in", "10m", "x"])
        .assert()
        .success();
    let scheduled = server.zrange_withscores("q:scheduled");
    assert_eq!(scheduled.len(), 1);
    assert!(
        (scheduled[0].1 - (now + 600.0)).abs() < 5.0,
        "score {}",
        scheduled[0].1
    );
    assert!(server.lrange("q:active").is_empty());

    qctl(&server)
        .args([
            "enqueue",
            "q",
            "--id",
            "past1",
            "--at",
            "2020-01-01T00:00:00Z",
            "x",
        ])
        .assert()
        .success();
    qctl(&server)
        .args(["enqueue", "q", "--id", "past2", "--at", "1577836800", "x"])
        .assert()
        .success();
    assert_eq!(server.lrange("q:active"), vec!["past1", "past2"]);

    qctl(&server)
        .args(["enqueue", "q", "--id", "exact", "--at", "4102444800", "x"])
        .assert()
        .success();
    let exact = server
        .zrange_withscores("q:scheduled")
        .into_iter()
        .find(|(id, _)| id == "exact")
        .unwrap();
    assert_eq!(exact.1, 4102444800.0);
}

#[test]
fn data_comes_from_stdin_or_a_file_byte_exact() {
    let server = RedisServer::start();
    let all: Vec<u8> = (0..=255u8).collect();
    qctl(&server)
        .args(["enqueue", "q", "--id", "dash", "-"])
        .write_stdin(all.clone())
        .assert()
        .success();
    qctl(&server)
        .args(["enqueue", "q", "--id", "piped"])
        .write_stdin(all.clone())
        .assert()
        .success();
    let (_dir, file) = data_file(&all);
    qctl(&server)
        .args(["enqueue", "q", "--id", "file", "--file"])
        .arg(&file)
        .assert()
        .success();
    for id in ["dash", "piped", "file"] {
        assert_eq!(
            record(&server, "q", id).data.as_deref(),
            Some(&all[..]),
            "{id}"
        );
    }
}

#[test]
fn lines_enqueues_100k_jobs_in_order() {
    let server = RedisServer::start();
    let input: String = (0..100_000).map(|i| format!("line-{i}\n")).collect();
    let out = qctl(&server)
        .args(["enqueue", "q", "--lines"])
        .write_stdin(input)
        .timeout(Duration::from_secs(120))
        .assert()
        .success()
        .stderr(contains("enqueued 100,000, duplicates 0, failed 0"))
        .get_output()
        .stdout
        .clone();
    let ids: Vec<String> = String::from_utf8(out)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(ids.len(), 100_000);
    let llen: u64 = server.cmd(&[b"LLEN", b"q:active"]);
    let hlen: u64 = server.cmd(&[b"HLEN", b"q:data"]);
    assert_eq!((llen, hlen), (100_000, 100_000));
    let active = server.lrange("q:active");
    assert_eq!(active, ids, "ids are printed and queued in input order");
    for i in [0usize, 1, 4_999, 50_000, 99_999] {
        assert_eq!(
            record(&server, "q", &ids[i]).data.unwrap(),
            format!("line-{i}").into_bytes()
        );
    }
}

#[test]
fn jsonl_honours_ids_data_at_and_attempt_and_reports_bad_lines() {
    let server = RedisServer::start();
    qctl(&server)
        .args(["enqueue", "q", "--id", "taken", "x"])
        .assert()
        .success();
    let input = [
        r#"{"id":"a","data":"text"}"#,
        r#"{"id":"b","data_b64":"AP8="}"#,
        r#"{"id":"c","data":"later","at":4102444800}"#,
        r#"{"id":"d","data":"retry","attempt":3}"#,
        r#"{"id":"e"}"#,
        r#"{"id":"taken","data":"dup"}"#,
        "",
    ]
    .join("\n");
    let out = qctl(&server)
        .args(["--json", "enqueue", "q", "--jsonl"])
        .write_stdin(input)
        .assert()
        .code(6)
        .get_output()
        .clone();
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON lines"))
        .collect();
    let results: Vec<&str> = lines
        .iter()
        .map(|l| l["result"].as_str().unwrap())
        .collect();
    assert_eq!(
        results,
        [
            "enqueued",
            "enqueued",
            "enqueued",
            "enqueued",
            "invalid",
            "duplicate",
            "summary"
        ]
    );
    let summary = lines.last().unwrap();
    assert_eq!(
        (
            summary["enqueued"].as_u64(),
            summary["duplicates"].as_u64(),
            summary["failed"].as_u64()
        ),
        (Some(4), Some(1), Some(1))
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("line 5"));
    assert_eq!(
        record(&server, "q", "a").data.as_deref(),
        Some(&b"text"[..])
    );
    assert_eq!(
        record(&server, "q", "b").data.as_deref(),
        Some(&[0u8, 255][..])
    );
    assert_eq!(record(&server, "q", "d").attempt, 3);
    assert_eq!(
        server.zrange_withscores("q:scheduled"),
        vec![("c".to_string(), 4102444800.0)]
    );
    assert_eq!(
        record(&server, "q", "taken").data.as_deref(),
        Some(&b"x"[..])
    );
}

#[test]
fn a_bad_or_unreachable_url_fails_clearly_without_the_password() {
    let server = RedisServer::start();
    let before = server.dump_all();
    qctl(&server)
        .args(["-u", "nonsense", "enqueue", "q", "x"])
        .assert()
        .code(2)
        .stderr(contains("invalid Redis URL"));
    let unused = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let out = qctl(&server)
        .args([
            "-u",
            &format!("redis://user:hunter2@127.0.0.1:{unused}"),
            "enqueue",
            "q",
            "x",
        ])
        .assert()
        .code(3)
        .get_output()
        .clone();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(&format!("127.0.0.1:{unused}")), "{stderr}");
    assert!(!stderr.contains("hunter2"), "{stderr}");
    assert_eq!(server.dump_all(), before);
}

#[test]
fn a_key_of_the_wrong_type_fails_naming_it_and_changes_nothing() {
    for (key, setup, extra) in [
        (
            "q:active",
            &[&b"SET"[..], b"q:active", b"oops"][..],
            &[][..],
        ),
        ("q:data", &[&b"RPUSH"[..], b"q:data", b"oops"][..], &[][..]),
        (
            "q:scheduled",
            &[&b"SET"[..], b"q:scheduled", b"oops"][..],
            &["--in", "1h"][..],
        ),
    ] {
        let server = RedisServer::start();
        let _: () = server.cmd(setup);
        let before = server.dump_all();
        qctl(&server)
            .args(["enqueue", "q"])
            .args(extra)
            .arg("x")
            .assert()
            .code(4)
            .stderr(contains(key).and(contains("WRONGTYPE")));
        assert_eq!(server.dump_all(), before, "{key}");
    }
}

#[test]
fn enqueue_still_works_after_the_server_lost_its_scripts() {
    let server = RedisServer::start();
    qctl(&server)
        .args(["enqueue", "q", "--id", "one", "x"])
        .assert()
        .success();
    let _: () = server.cmd(&[b"SCRIPT", b"FLUSH"]);
    qctl(&server)
        .args(["enqueue", "q", "--id", "two", "x"])
        .assert()
        .success();
    let _: () = server.cmd(&[b"SCRIPT", b"FLUSH"]);
    qctl(&server)
        .args(["enqueue", "q", "--lines"])
        .write_stdin("a\nb\n")
        .assert()
        .success();
    assert_eq!(server.lrange("q:active").len(), 4);
}

#[test]
fn a_repeated_id_within_one_input_is_a_duplicate_of_its_first_line() {
    let server = RedisServer::start();
    let input = "{\"id\":\"x\",\"data\":\"first\"}\n{\"id\":\"x\",\"data\":\"second\"}\n";
    qctl(&server)
        .args(["enqueue", "q", "--jsonl"])
        .write_stdin(input)
        .assert()
        .success()
        .stdout("x\n")
        .stderr(contains("enqueued 1, duplicates 1"));
    assert_eq!(
        record(&server, "q", "x").data.as_deref(),
        Some(&b"first"[..])
    );
    assert_eq!(server.lrange("q:active"), vec!["x"]);
}

#[test]
fn a_call_with_taken_new_and_repeated_ids_adds_each_new_id_once_with_its_first_record() {
    let server = RedisServer::start();
    qctl(&server)
        .args(["enqueue", "q", "--id", "a", "old"])
        .assert()
        .success();
    let input = [
        r#"{"id":"b","data":"1"}"#,
        r#"{"id":"a","data":"2"}"#,
        r#"{"id":"c","data":"3"}"#,
        r#"{"id":"b","data":"4"}"#,
        "",
    ]
    .join("\n");
    qctl(&server)
        .args(["enqueue", "q", "--jsonl"])
        .write_stdin(input)
        .assert()
        .success()
        .stdout("b\nc\n")
        .stderr(contains("enqueued 2, duplicates 2, failed 0"));
    assert_eq!(server.lrange("q:active"), vec!["a", "b", "c"]);
    for (id, data) in [("a", "old"), ("b", "1"), ("c", "3")] {
        assert_eq!(
            record(&server, "q", id).data.as_deref(),
            Some(data.as_bytes())
        );
    }
}

/// A connection of qctl's engine to `server`.
async fn connect(server: &RedisServer) -> qctl::engine::Redis {
    qctl::engine::ServerSpec::parse(
        &server.url(),
        Duration::from_secs(5),
        Duration::from_secs(5),
    )
    .unwrap()
    .connect()
    .await
    .unwrap()
}

/// What qctl sends for jobs with new UUIDs: HSET and RPUSH of `q`, the ids' bytes into
/// q:push, then push_new.lua, in one transaction; each id's record is "record of ID".
fn push_new(ids: &[&str]) -> qctl::engine::scripts::Call<'static> {
    let (mut hset, mut rpush, mut stash) =
        (redis::cmd("HSET"), redis::cmd("RPUSH"), redis::cmd("HSET"));
    hset.arg("q:data");
    rpush.arg("q:active");
    let mut packed = Vec::new();
    for id in ids {
        hset.arg(*id).arg(format!("record of {id}"));
        rpush.arg(*id);
        packed.extend_from_slice(uuid::Uuid::parse_str(id).unwrap().as_bytes());
    }
    stash.arg("q:push").arg("ids").arg(packed);
    let n = ids.len() as i64;
    let mut call = qctl::engine::scripts::PUSH_NEW.call_after(
        vec![(hset, Some(n)), (rpush, None), (stash, None)],
        &["q:data", "q:active", "q:signal", "q:push"],
    );
    call.arg(n);
    call
}

#[tokio::test]
async fn fresh_uuids_go_by_plain_commands_and_a_script_in_one_transaction_that_undoes_them() {
    let server = RedisServer::start();
    // UUIDs whose last digit names them: the script gets each as its 16 bytes.
    let id = |c: char| format!("00000000-0000-4000-8000-00000000000{c}");
    let (a, b, c, d, e, f) = (id('a'), id('b'), id('c'), id('d'), id('e'), id('f'));
    qctl(&server)
        .args(["enqueue", "q", "--id", &a, "old"])
        .assert()
        .success();
    let mut redis = connect(&server).await;
    let push = push_new;
    let n: i64 = push(&[&b, &c]).invoke(&mut redis).await.unwrap();
    assert_eq!(n, 2);
    assert_eq!(
        server.lrange("q:active"),
        vec![a.clone(), b.clone(), c.clone()]
    );
    assert_eq!(
        server.hget_bytes("q:data", &c).unwrap(),
        format!("record of {c}").as_bytes()
    );
    assert_eq!(server.lrange("q:signal"), vec!["1"]);
    // A taken id (a UUID v4 never is) is reported, not passed over.
    let err = push(&[&d, &a])
        .invoke::<redis::Value>(&mut redis)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("HSET answered 1, not 2"), "{err}");

    // A key of another type: what the plain commands wrote is removed again, and only that,
    // whether the other key holds jobs already or does not exist yet.
    let x = id('9');
    let active: Vec<&[u8]> = vec![b"RPUSH", b"q:active", x.as_bytes()];
    let data: Vec<&[u8]> = vec![b"HSET", b"q:data", x.as_bytes(), b"record of x"];
    type Command<'a> = Vec<&'a [u8]>;
    let cases: [(Command, &[u8], &str); 4] = [
        (active, b"q:data", "WRONGTYPE q:data holds a string"),
        (
            vec![b"DEL", b"q:active"],
            b"q:data",
            "WRONGTYPE q:data holds a string",
        ),
        (data, b"q:active", "WRONGTYPE q:active holds a string"),
        (
            vec![b"DEL", b"q:data"],
            b"q:active",
            "WRONGTYPE q:active holds a string",
        ),
    ];
    for (other, wrong, message) in cases {
        let _: () = server.cmd(&[b"DEL", b"q:active", b"q:data", b"q:signal"]);
        let _: () = server.cmd(&other);
        let _: () = server.cmd(&[b"SET", wrong, b"oops"]);
        let before = server.dump_all();
        let err = push(&[&e, &f]).invoke::<i64>(&mut redis).await.unwrap_err();
        assert!(err.to_string().contains(message), "{err}");
        assert_eq!(server.dump_all(), before, "{message}");
    }
}

/// How many errors of `code` the server has answered (`INFO errorstats`, Redis 6.2+).
fn errors_of(server: &RedisServer, code: &str) -> u64 {
    let info: String = server.cmd(&[b"INFO", b"errorstats"]);
    info.lines()
        .find_map(|l| l.strip_prefix(&format!("errorstat_{code}:count=")))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(0)
}

#[tokio::test]
async fn a_transaction_whose_script_the_server_lost_adds_its_jobs_once_or_undoes_them() {
    let server = RedisServer::start();
    let mut redis = connect(&server).await;
    let id = |n: u32| format!("00000000-0000-4000-8000-{n:012}");
    let push = |ids: &[String]| push_new(&ids.iter().map(String::as_str).collect::<Vec<_>>());
    // The first call on the connection loads the script.
    let n: i64 = push(&[id(1)]).invoke(&mut redis).await.unwrap();
    assert_eq!(n, 1);

    // Lost after loading: the commands ran without it; the script run alone raises the
    // signal, and each job is in the queue once.
    let _: () = server.cmd(&[b"SCRIPT", b"FLUSH"]);
    let _: () = server.cmd(&[b"DEL", b"q:signal"]);
    let before = errors_of(&server, "NOSCRIPT");
    let n: i64 = push(&[id(2), id(3)]).invoke(&mut redis).await.unwrap();
    assert_eq!(n, 2);
    assert_eq!(errors_of(&server, "NOSCRIPT"), before + 1, "the path taken");
    assert_eq!(server.lrange("q:active"), vec![id(1), id(2), id(3)]);
    assert_eq!(
        server.hget_bytes("q:data", &id(3)).unwrap(),
        format!("record of {}", id(3)).as_bytes()
    );
    assert_eq!(server.lrange("q:signal"), vec!["1"]);

    // Lost, and a key of another type: what the other command wrote is removed again, item
    // by item, and the error names the key, whichever key it is.
    let cases: [(&[u8], &str); 2] = [
        (b"q:active", "WRONGTYPE q:active holds a string"),
        (b"q:data", "WRONGTYPE q:data holds a string"),
    ];
    for (wrong, message) in cases {
        let _: () = server.cmd(&[b"DEL", b"q:active", b"q:data", b"q:signal"]);
        let _: () = server.cmd(&[b"RPUSH", b"q:active", id(7).as_bytes()]);
        let _: () = server.cmd(&[b"HSET", b"q:data", id(7).as_bytes(), b"r"]);
        let _: () = server.cmd(&[b"DEL", wrong]);
        let _: () = server.cmd(&[b"SET", wrong, b"oops"]);
        let _: () = server.cmd(&[b"SCRIPT", b"FLUSH"]);
        let state = server.dump_all();
        let before = errors_of(&server, "NOSCRIPT");
        let err = push(&[id(8), id(9)])
            .invoke::<i64>(&mut redis)
            .await
            .unwrap_err();
        assert_eq!(errors_of(&server, "NOSCRIPT"), before + 1, "the path taken");
        assert!(err.to_string().contains(message), "{err}");
        assert_eq!(err.code(), Some("WRONGTYPE"), "{err}");
        assert_eq!(server.dump_all(), state, "{message}");
    }
}

/// A thread that sends SCRIPT FLUSH to a server, with `pause` after each, until stopped.
struct Flusher {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: std::thread::JoinHandle<()>,
}

impl Flusher {
    fn start(server: &RedisServer, pause: Duration) -> Flusher {
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let mut conn = server.conn();
        let thread = std::thread::spawn({
            let stop = stop.clone();
            move || {
                while !stop.load(std::sync::atomic::Ordering::SeqCst) {
                    let _: () = redis::cmd("SCRIPT").arg("FLUSH").query(&mut conn).unwrap();
                    std::thread::sleep(pause);
                }
            }
        });
        Flusher { stop, thread }
    }

    fn stop(self) {
        self.stop.store(true, std::sync::atomic::Ordering::SeqCst);
        self.thread.join().unwrap();
    }
}

#[tokio::test]
async fn a_transaction_whose_script_is_flushed_without_pause_still_adds_its_jobs_once() {
    let server = RedisServer::start();
    let mut redis = connect(&server).await;
    let id = |n: u32| format!("00000000-0000-4000-8000-{n:012}");
    let flusher = Flusher::start(&server, Duration::ZERO);
    let before = errors_of(&server, "NOSCRIPT");
    let mut pushed = Vec::new();
    let mut outcome = Ok(());
    for n in 0..200 {
        let ids = [id(2 * n), id(2 * n + 1)];
        match push_new(&[&ids[0], &ids[1]])
            .invoke::<i64>(&mut redis)
            .await
        {
            Ok(2) => pushed.extend(ids),
            other => {
                outcome = Err(format!("call {n}: {other:?}"));
                break;
            }
        }
    }
    flusher.stop();
    outcome.unwrap();
    let met = errors_of(&server, "NOSCRIPT") - before;
    assert!(met > 0, "no call met NOSCRIPT: nothing was tested");
    assert_eq!(
        server.lrange("q:active"),
        pushed,
        "every job once, in order"
    );
    assert_eq!(server.lrange("q:signal"), vec!["1"]);
}

#[test]
fn enqueueing_while_the_server_keeps_losing_its_scripts_adds_every_job_once_in_order() {
    let server = RedisServer::start();
    let lines: String = (1..=60_000).map(|i| format!("line-{i}\n")).collect();
    let (_dir, path) = data_file(lines.as_bytes());
    let before = errors_of(&server, "NOSCRIPT");
    let flusher = Flusher::start(&server, Duration::from_millis(25));
    let out = qctl(&server)
        .args(["enqueue", "q", "--lines", "--file"])
        .arg(&path)
        .output()
        .unwrap();
    flusher.stop();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let flushed = errors_of(&server, "NOSCRIPT") - before;
    assert!(flushed > 0, "no call met NOSCRIPT: nothing was tested");
    let ids: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    assert_eq!(ids.len(), 60_000);
    assert_eq!(server.lrange("q:active"), ids, "every job once, in order");
    let first = record(&server, "q", &ids[0]);
    let last = record(&server, "q", &ids[59_999]);
    assert_eq!(first.data.as_deref(), Some(&b"line-1"[..]));
    assert_eq!(last.data.as_deref(), Some(&b"line-60000"[..]));
    let count: i64 = server.cmd(&[b"HLEN", b"q:data"]);
    assert_eq!(count, 60_000);
    assert_eq!(server.lrange("q:signal"), vec!["1"]);
    support::figure(&format!(
        "E1 enqueue --lines of 60,000 while SCRIPT FLUSH ran every 25 ms: {flushed} calls met NOSCRIPT, every job once and in order"
    ));
}
