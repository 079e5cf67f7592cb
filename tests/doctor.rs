//! `qctl doctor` against real servers: each server check on a server set up to fail it, the
//! rights of a restricted ACL user, each kind of damage to a queue found with its key and
//! samples, no false finding while a consumer drains the queue, `--fix`, `--json` and the
//! exit codes of the monitoring-plugins convention.

mod support;

use std::time::{Duration, Instant};

use serde_json::Value;
use support::cluster::Cluster;
use support::{qctl, qctl_url, RedisServer};

/// Runs `qctl doctor ARGS --json` and returns the document and the exit code.
fn doctor_json(cmd: &mut assert_cmd::Command, args: &[&str]) -> (Value, i32) {
    let out = cmd
        .arg("--json")
        .arg("doctor")
        .args(args)
        .output()
        .expect("run qctl doctor");
    let code = out.status.code().expect("an exit code");
    let text = String::from_utf8_lossy(&out.stdout);
    let doc: Value = serde_json::from_str(text.lines().last().unwrap_or("")).unwrap_or_else(|e| {
        panic!(
            "doctor --json printed no JSON ({e}): {text}\nstderr: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (doc, code)
}

/// The findings of a check.
fn findings<'a>(doc: &'a Value, check: &str) -> Vec<&'a Value> {
    doc["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["check"] == check)
        .collect()
}

/// The one finding of a check.
fn finding<'a>(doc: &'a Value, check: &str) -> &'a Value {
    let found = findings(doc, check);
    assert_eq!(found.len(), 1, "one {check} finding in {doc:#}");
    found[0]
}

fn samples(f: &Value) -> Vec<String> {
    f["samples"]
        .as_array()
        .expect("samples")
        .iter()
        .map(|s| s.as_str().unwrap_or("").to_string())
        .collect()
}

fn record(id: &str) -> Vec<u8> {
    qctl::engine::Job::new(id, Some(b"x".to_vec())).encode()
}

const UUID: &str = "0b7d3e2a-1c4f-4d5e-9f00-aabbccddeeff";

#[test]
fn an_eviction_policy_is_critical_and_names_the_fix() {
    let server = RedisServer::start_with(&["--maxmemory-policy", "allkeys-lru"]);
    let out = qctl(&server).arg("doctor").output().expect("run");
    assert_eq!(out.status.code(), Some(2));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("CRITICAL  maxmemory-policy is allkeys-lru"),
        "{text}"
    );
    assert!(
        text.contains("fix: CONFIG SET maxmemory-policy noeviction"),
        "{text}"
    );
    assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
    assert!(
        text.lines()
            .last()
            .unwrap_or("")
            .starts_with("CRITICAL: 1 critical"),
        "{text}"
    );
    let (doc, code) = doctor_json(&mut qctl(&server), &[]);
    assert_eq!(code, 2);
    assert_eq!(doc["status"], "CRITICAL");
    let f = finding(&doc, "maxmemory-policy");
    assert_eq!(f["severity"], "CRITICAL");
    assert_eq!(f["node"], format!("127.0.0.1:{}", server.port()));
}

#[test]
fn persistence_off_is_a_warning_and_aof_is_ok() {
    let off = RedisServer::start();
    let (doc, code) = doctor_json(&mut qctl(&off), &[]);
    assert_eq!(code, 1, "{doc:#}");
    let f = finding(&doc, "persistence");
    assert_eq!(f["severity"], "WARNING");
    assert!(f["summary"]
        .as_str()
        .unwrap()
        .contains("no AOF and no RDB save points"));
    assert!(f["fix"].as_str().unwrap().contains("appendonly yes"));

    let on = RedisServer::start_with(&["--appendonly", "yes"]);
    let (doc, code) = doctor_json(&mut qctl(&on), &[]);
    assert_eq!(finding(&doc, "persistence")["severity"], "OK");
    assert_eq!(finding(&doc, "persistence")["summary"], "AOF on");
    for check in [
        "version",
        "role",
        "memory",
        "latency",
        "clock",
        "maxmemory-policy",
    ] {
        assert_eq!(finding(&doc, check)["severity"], "OK", "{check}: {doc:#}");
    }
    assert_eq!(code, 0, "{doc:#}");
}

#[test]
fn a_replica_is_critical() {
    let master = RedisServer::start_with(&["--appendonly", "yes"]);
    let port = master.port().to_string();
    let replica =
        RedisServer::start_with(&["--appendonly", "yes", "--replicaof", "127.0.0.1", &port]);
    let (doc, code) = doctor_json(&mut qctl(&replica), &[]);
    assert_eq!(code, 2, "{doc:#}");
    let f = finding(&doc, "role");
    assert_eq!(f["severity"], "CRITICAL");
    let summary = f["summary"].as_str().unwrap();
    assert!(
        summary.contains(&format!("replica of 127.0.0.1:{port} (read-only)")),
        "{summary}"
    );
    assert!(f["fix"].as_str().unwrap().contains("master"));
}

#[test]
fn a_cluster_node_without_cluster_is_named_and_with_it_every_master_is_checked() {
    let cluster = Cluster::start(3);
    let url = cluster.nodes[0].url();
    let (doc, _) = doctor_json(&mut qctl_url(&url), &[]);
    let f = finding(&doc, "cluster");
    assert_eq!(f["severity"], "WARNING");
    assert!(f["fix"].as_str().unwrap().contains("--cluster"), "{f:#}");
    assert!(
        f["explanation"].as_str().unwrap().contains("stats"),
        "{f:#}"
    );

    // A queue with a key: a name with none is UNKNOWN, and its integrity is not checked.
    qctl_url(&url)
        .args(["--cluster", "enqueue", "{mail}", "x"])
        .assert()
        .success();
    let (doc, _) = doctor_json(qctl_url(&url).arg("--cluster"), &["{mail}"]);
    let nodes: std::collections::BTreeSet<String> = findings(&doc, "maxmemory-policy")
        .iter()
        .map(|f| f["node"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(nodes.len(), 3, "{doc:#}");
    for f in findings(&doc, "cluster") {
        assert_eq!(f["severity"], "OK");
    }
    assert_eq!(finding(&doc, "records-in-no-state")["severity"], "OK");
    assert_eq!(finding(&doc, "rights-consume")["allowed"], true);
}

#[test]
fn a_restricted_user_is_told_what_it_can_and_cannot_do() {
    let server = RedisServer::start();
    let (_, rules) = support::acl_recipe();
    let mut args: Vec<String> = vec!["ACL".into(), "SETUSER".into(), "worker".into()];
    for rule in rules {
        let rule = if rule.starts_with('>') {
            ">pw".to_string()
        } else {
            rule
        };
        if rule != "+unlink" {
            args.push(rule);
        }
    }
    let args: Vec<&[u8]> = args.iter().map(|a| a.as_bytes()).collect();
    let _: () = server.cmd(&args);
    support::enqueue(&server, "mail", "j1", b"x");
    let mut cmd = qctl(&server);
    cmd.args(["--user", "worker"])
        .env("QCTL_REDIS_PASSWORD", "pw");
    let (doc, code) = doctor_json(&mut cmd, &["mail"]);
    // INFO and CONFIG GET are refused: said, not failed.
    assert_eq!(code, 1, "{doc:#}");
    let info = finding(&doc, "info");
    assert_eq!(info["severity"], "WARNING");
    assert!(
        info["summary"]
            .as_str()
            .unwrap()
            .contains("INFO was refused"),
        "{info:#}"
    );
    for group in ["enqueue", "consume", "inspect", "repair", "pause"] {
        let f = finding(&doc, &format!("rights-{group}"));
        assert_eq!(f["allowed"], true, "{group}: {f:#}");
    }
    let purge = finding(&doc, "rights-purge");
    assert_eq!(purge["allowed"], false, "{purge:#}");
    assert_eq!(
        purge["summary"],
        "cannot purge: may not run UNLINK on mail:active"
    );
    assert_eq!(purge["key"], "mail:active");
    assert!(
        purge["fix"].as_str().unwrap().contains("+unlink"),
        "{purge:#}"
    );
    // The recipe has no HSCAN: the record checks are said to be left out, the others made.
    let records = finding(&doc, "records");
    assert!(
        records["summary"].as_str().unwrap().contains("hscan"),
        "{records:#}"
    );
    assert_eq!(finding(&doc, "ids-without-record")["severity"], "OK");
    assert_eq!(finding(&doc, "key-types")["severity"], "OK");
    assert!(!serde_json::to_string(&doc).unwrap().contains("pw\""));
}

#[test]
fn every_kind_of_damage_is_found_with_its_key_and_samples() {
    let server = RedisServer::start_with(&["--appendonly", "yes"]);
    let inflight = format!("q:inflight:{UUID}");
    let ahead = "q:inflight:1b7d3e2a-1c4f-4d5e-9f00-aabbccddeeff";
    for id in ["ok1", "ok2", "both", "held"] {
        let _: () = server.cmd(&[b"HSET", b"q:data", id.as_bytes(), &record(id)]);
    }
    let _: () = server.cmd(&[b"RPUSH", b"q:active", b"ok1", b"ghost-a", b"both"]);
    let _: () = server.cmd(&[b"ZADD", b"q:scheduled", b"1", b"ghost-s", b"1", b"both"]);
    let _: () = server.cmd(&[b"ZADD", b"q:dead", b"1", b"ghost-d"]);
    let _: () = server.cmd(&[b"SADD", inflight.as_bytes(), b"held"]);
    // Records in no state (ok2 and the damaged ones), a damaged record, one whose ID differs.
    let _: () = server.cmd(&[b"HSET", b"q:data", b"junk", b"\xc1not msgpack"]);
    let _: () = server.cmd(&[b"HSET", b"q:data", b"other", &record("someone-else")]);
    let future = (qctl::engine::now() + 3600.0).to_string();
    let _: () = server.cmd(&[b"ZADD", b"q:consumers", future.as_bytes(), ahead.as_bytes()]);
    let _: () = server.cmd(&[b"SET", b"q:stats", b"not a hash"]);

    let (doc, code) = doctor_json(&mut qctl(&server), &["q"]);
    assert_eq!(code, 2, "{doc:#}");
    let missing = finding(&doc, "ids-without-record");
    assert_eq!(missing["severity"], "CRITICAL");
    assert_eq!(missing["count"], 3);
    let mut s = samples(missing);
    s.sort();
    assert_eq!(s, ["ghost-a", "ghost-d", "ghost-s"]);
    let stranded = finding(&doc, "records-in-no-state");
    assert_eq!(stranded["key"], "q:data");
    let mut s = samples(stranded);
    s.sort();
    assert_eq!(s, ["junk", "ok2", "other"]);
    let two = finding(&doc, "ids-in-two-states");
    assert_eq!(samples(two), ["both"]);
    let unowned = finding(&doc, "inflight-without-consumer");
    assert_eq!(unowned["severity"], "CRITICAL");
    assert_eq!(samples(unowned), [format!("{inflight} (1 job)")]);
    let beat = finding(&doc, "heartbeat-ahead");
    assert_eq!(beat["severity"], "WARNING");
    assert!(samples(beat)[0].starts_with(ahead), "{beat:#}");
    let types = finding(&doc, "key-types");
    assert_eq!(types["key"], "q:stats");
    assert_eq!(samples(types), ["q:stats: a string, expected a hash"]);
    let damaged = finding(&doc, "damaged-records");
    let s = samples(damaged);
    assert_eq!(s.len(), 2, "{s:?}");
    assert!(s.iter().any(|x| x.starts_with("junk: ")), "{s:?}");
    assert!(s.iter().any(|x| x.contains("\"someone-else\"")), "{s:?}");
    for f in doc["findings"].as_array().unwrap() {
        for field in [
            "check",
            "severity",
            "key",
            "count",
            "samples",
            "explanation",
            "fix",
            "summary",
            "area",
            "node",
        ] {
            assert!(f.get(field).is_some(), "{field} missing in {f:#}");
        }
    }
}

#[test]
fn fix_dry_run_changes_nothing_and_fix_repairs_what_a_consumer_then_runs() {
    let server = RedisServer::start_with(&["--appendonly", "yes"]);
    for id in ["lost1", "lost2"] {
        let _: () = server.cmd(&[b"HSET", b"q:data", id.as_bytes(), &record(id)]);
    }
    support::enqueue(&server, "q", "fine", b"x");
    let _: () = server.cmd(&[b"RPUSH", b"q:active", b"ghost-a"]);
    let _: () = server.cmd(&[b"ZADD", b"q:dead", b"1", b"ghost-d"]);
    let before = server.dump_all();

    let out = qctl(&server)
        .args(["doctor", "q", "--fix", "--dry-run"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let text = String::from_utf8_lossy(&out.stdout);
    for line in [
        "would requeue lost1 to q:active",
        "would requeue lost2 to q:active",
        "would remove ghost-a from q:active",
        "would remove ghost-d from q:dead",
    ] {
        assert!(text.contains(line), "{line} not in {text}");
    }
    // The plan names the list the records go back to.
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("dry run: would put 2 records in no state back at the tail of q:active"),
        "{err}"
    );
    assert_eq!(server.dump_all(), before, "--dry-run changed Redis");

    // Without a terminal and without --yes it is refused, and nothing changes.
    let out = qctl(&server)
        .args(["doctor", "q", "--fix"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--yes"));
    assert_eq!(server.dump_all(), before);

    let out = qctl(&server)
        .args(["doctor", "q", "--fix", "--yes"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    for line in [
        "requeued lost1",
        "requeued lost2",
        "removed ghost-a from q:active",
        "removed ghost-d from q:dead",
    ] {
        assert!(text.contains(line), "{line} not in {text}");
    }
    assert!(
        support::invariants(&server, "q").is_empty(),
        "{:?}",
        support::invariants(&server, "q")
    );
    assert_eq!(
        server.zrange_withscores("q:dead"),
        Vec::<(String, f64)>::new()
    );
    let (doc, code) = doctor_json(&mut qctl(&server), &["q"]);
    assert_eq!(code, 0, "{doc:#}");

    qctl(&server)
        .args(["consume", "q", "--drain"])
        .args(support::FAST)
        .args(["--", "true"])
        .assert()
        .success();
    let left: u64 = server.cmd(&[b"HLEN", b"q:data"]);
    assert_eq!(left, 0, "the requeued jobs ran");
}

#[test]
fn a_queue_being_consumed_yields_no_integrity_findings() {
    let server = RedisServer::start_with(&["--appendonly", "yes"]);
    let lines: String = (0..20_000).map(|i| format!("job {i}\n")).collect();
    qctl(&server)
        .args(["enqueue", "q", "--lines"])
        .write_stdin(lines)
        .assert()
        .success();
    // Some of the jobs fail once, so retries move through the scheduled set too.
    let mut consumer = support::spawn_consumer_at(
        &server.url(),
        &[
            "q",
            "-c",
            "4",
            "--poll-interval",
            "200ms",
            "--heartbeat",
            "1s",
            "--max-backoff",
            "0s",
            "--",
            "sh",
            "-c",
            "case $$ in *3) exit 1;; esac",
        ],
    );
    // Looks for 6 s, and at least three times however slow a look is on a busy machine.
    let started = Instant::now();
    let mut runs = 0;
    while runs < 3 || started.elapsed() < Duration::from_secs(6) {
        let (doc, _) = doctor_json(&mut qctl(&server), &["q"]);
        for f in doc["findings"].as_array().unwrap() {
            if f["area"] == "queue" {
                assert_eq!(
                    f["severity"], "OK",
                    "a false finding under a live consumer: {f:#}"
                );
            }
        }
        runs += 1;
    }
    let pending: u64 = server.cmd(&[b"HLEN", b"q:data"]);
    consumer.stop(Duration::from_secs(10));
    assert!(pending < 20_000, "the consumer ran jobs meanwhile");
}

#[test]
fn exit_codes_follow_the_monitoring_plugins_convention() {
    let healthy = RedisServer::start_with(&["--appendonly", "yes"]);
    support::enqueue(&healthy, "q", "a", b"x");
    qctl(&healthy).args(["doctor", "q"]).assert().code(0);
    let plain = RedisServer::start();
    qctl(&plain).args(["doctor"]).assert().code(1);
    let lru = RedisServer::start_with(&["--maxmemory-policy", "allkeys-lru"]);
    qctl(&lru).args(["doctor"]).assert().code(2);
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("redis://127.0.0.1:{port}");
    let (doc, code) = doctor_json(&mut qctl_url(&url), &["q"]);
    assert_eq!(code, 3);
    assert_eq!(doc["status"], "UNKNOWN");
    assert_eq!(finding(&doc, "connect")["severity"], "UNKNOWN");
    qctl_url(&url)
        .args(["doctor"])
        .assert()
        .code(3)
        .stdout(predicates::str::contains("UNKNOWN"));
    // --yes and --dry-run go with --fix; a bad command line is UNKNOWN too.
    qctl(&healthy)
        .args(["doctor", "q", "--yes"])
        .assert()
        .code(3);
    qctl(&healthy)
        .args(["doctor", "--no-such-flag"])
        .assert()
        .code(3);
}

#[test]
fn doctor_checks_and_fixes_none_of_the_keys_of_queues_named_after_the_queue() {
    // Beside `p`, queues named `p:inflight:abc`, `p:inflight`, ... whose keys match
    // `p:inflight:*` and `p:*`, of every type: none is a key of `p`, so none has a wrong
    // type, none is an in-flight set without its consumer, and --fix leaves them be.
    let server = RedisServer::start();
    qctl(&server).args(["enqueue", "p", "x"]).assert().success();
    let planted = support::neighbours::plant(&server, "p");
    let before = support::neighbours::dump(&server, &planted);
    let (doc, _) = doctor_json(&mut qctl(&server), &["p"]);
    for check in [
        "key-types",
        "inflight-without-consumer",
        "records-in-no-state",
    ] {
        assert_eq!(finding(&doc, check)["severity"], "OK", "{check}: {doc}");
    }
    let out = qctl(&server)
        .args(["doctor", "p", "--fix", "--yes"])
        .output()
        .expect("run qctl doctor");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        support::neighbours::mentioned(&planted, &text),
        None,
        "{text}"
    );
    assert_eq!(
        support::neighbours::mentioned(&planted, &doc.to_string()),
        None
    );
    assert_eq!(support::neighbours::dump(&server, &planted), before);
}

/// A consumer of `q` holding `id`, its heartbeat `age` seconds old; with `pid`, described as
/// a qctl consumer of this host with that pid.
fn plant_holder(server: &RedisServer, uuid: &str, id: &str, age: f64, pid: Option<u32>) {
    let member = format!("q:inflight:{uuid}");
    let record = qctl::engine::Job::new(id, Some(b"x".to_vec())).encode();
    let _: () = server.cmd(&[b"HSET", b"q:data", id.as_bytes(), &record]);
    let _: () = server.cmd(&[b"SADD", member.as_bytes(), id.as_bytes()]);
    let beat = (qctl::engine::now() - age).to_string();
    let _: () = server.cmd(&[b"ZADD", b"q:consumers", beat.as_bytes(), member.as_bytes()]);
    if let Some(pid) = pid {
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname").expect("host name");
        let info = format!("q:consumer:{uuid}");
        let _: () = server.cmd(&[
            b"HSET",
            info.as_bytes(),
            b"host",
            host.trim().as_bytes(),
            b"pid",
            pid.to_string().as_bytes(),
        ]);
    }
}

#[test]
fn jobs_held_by_expired_consumers_are_a_warning_and_critical_with_no_live_consumer() {
    let server = RedisServer::start();
    let held = |doc: &Value| finding(doc, "held-by-expired-consumers").clone();
    qctl(&server).args(["enqueue", "q", "x"]).assert().success();
    let (doc, _) = doctor_json(&mut qctl(&server), &["q"]);
    assert_eq!(held(&doc)["severity"], "OK", "{doc}");
    assert_eq!(held(&doc)["summary"], "no jobs held by expired consumers");

    // A consumer that died ten minutes ago, and no other: nothing will return its job.
    let expired = "0b7d3e2a-1c4f-4d5e-9f00-aabbccddeeff";
    plant_holder(&server, expired, "e1", 600.0, None);
    let (doc, code) = doctor_json(&mut qctl(&server), &["q"]);
    let f = held(&doc);
    assert_eq!(
        (f["severity"].as_str(), code),
        (Some("CRITICAL"), 2),
        "{doc}"
    );
    assert_eq!(
        f["summary"],
        "1 job held by 1 consumer that is expired or gone, and no live consumer to return them"
    );
    assert!(
        f["samples"][0]
            .as_str()
            .is_some_and(|s| s.starts_with(&format!("q:inflight:{expired}: 1 job (heartbeat "))),
        "{f}"
    );

    // A live consumer will recover it: a warning.
    plant_holder(
        &server,
        "1b7d3e2a-1c4f-4d5e-9f00-aabbccddeeff",
        "l1",
        0.0,
        None,
    );
    let (doc, _) = doctor_json(&mut qctl(&server), &["q"]);
    assert_eq!(held(&doc)["severity"], "WARNING", "{doc}");

    // A consumer of this host whose process is gone, its heartbeat still fresh, counts too.
    let mut child = std::process::Command::new("true")
        .spawn()
        .expect("run true");
    let pid = child.id();
    child.wait().expect("wait for true");
    let gone = "2b7d3e2a-1c4f-4d5e-9f00-aabbccddeeff";
    plant_holder(&server, gone, "g1", 1.0, Some(pid));
    let (doc, _) = doctor_json(&mut qctl(&server), &["q"]);
    let f = held(&doc);
    assert_eq!(f["severity"], "WARNING", "{doc}");
    assert_eq!(f["count"], 2, "{f}");
    assert!(
        f["samples"].as_array().unwrap().iter().any(|s| s
            .as_str()
            .is_some_and(|s| s.starts_with(&format!("q:inflight:{gone}"))
                && s.ends_with(&format!(":{pid}, its process is gone)")))),
        "{f}"
    );
}
