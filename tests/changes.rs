//! The record of changes (`NAME:changes`, `qctl changes`) against real redis-servers: every
//! command that changes a queue leaves an entry with its action, counts, ids, user, host and
//! command line (no password); dry runs record nothing; `changes` lists them with --since,
//! --json and --ids; `tail` shows them as they happen; an interrupted requeue records what
//! it did; the record stays bounded; on a cluster, under the ACL recipe, and through purge.

mod support;

use std::time::Duration;

use nix::sys::signal::Signal;
use qctl::engine::Job;
use serde_json::Value;
use support::cluster::Cluster;
use support::{qctl, qctl_process, qctl_url, wait_until, Background, RedisServer};

const PW: &str = "Chg-pw-9Rk2q";

/// A user `ops` who may do anything, with the password [`PW`]; the default user stays open
/// for the test's own reads.
fn with_ops_user(server: &RedisServer) {
    let _: redis::Value = server.cmd(&[
        b"ACL",
        b"SETUSER",
        b"ops",
        b"on",
        format!(">{PW}").as_bytes(),
        b"~*",
        b"&*",
        b"+@all",
    ]);
}

/// `n` dead jobs `PREFIX1`..`PREFIXn` of queue `q`, written straight to Redis.
fn dead_jobs(server: &RedisServer, q: &str, prefix: &str, n: usize) -> Vec<String> {
    let mut con = server.conn();
    let mut pipe = redis::pipe();
    let mut ids = Vec::new();
    for i in 1..=n {
        let id = format!("{prefix}{i}");
        let record = Job::new(id.as_str(), Some(b"secret-data".to_vec())).encode();
        pipe.hset(format!("{q}:data"), &id, record).ignore();
        pipe.zadd(format!("{q}:dead"), &id, 1_700_000_000.0 + i as f64)
            .ignore();
        ids.push(id);
    }
    let () = pipe.query(&mut con).expect("dead jobs");
    ids
}

/// `qctl changes QUEUE --limit 0 --json` as JSON, oldest first.
fn changes(server: &RedisServer, queue: &str) -> Vec<Value> {
    let out = qctl(server)
        .args(["--json", "changes", queue, "--limit", "0"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    serde_json::from_slice::<Vec<Value>>(&out.stdout).expect("a JSON array")
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn os_user() -> String {
    let out = std::process::Command::new("id")
        .arg("-un")
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .unwrap()
        .trim()
        .to_string()
}

/// The entry's argv as one line.
fn argv(entry: &Value) -> String {
    entry["argv"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap().to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn every_change_leaves_an_entry_with_its_counts_ids_user_host_and_command_line() {
    let server = RedisServer::start();
    with_ops_user(&server);
    let dir = tempfile::tempdir().unwrap();
    let pw_file = dir.path().join("pw");
    std::fs::write(&pw_file, format!("{PW}\n")).unwrap();
    let secret_url = format!("redis://ops:{PW}@127.0.0.1:{}", server.port());
    // Every command as `ops`: by a URL holding the password, or by --password-file.
    let by_url = || qctl_url(&secret_url);
    let by_file = || {
        let mut cmd = qctl(&server);
        cmd.args(["--user", "ops", "--password-file"]).arg(&pw_file);
        cmd
    };
    let run = |mut cmd: assert_cmd::Command, args: &[&str]| -> std::process::Output {
        let out = cmd.args(args).output().unwrap();
        assert!(
            !stderr(&out).contains("recording it in"),
            "{args:?}: {}",
            stderr(&out)
        );
        out
    };

    // dead requeue of 3 dead jobs, one damaged, and an id that is not there.
    dead_jobs(&server, "q", "d", 3);
    let _: () = server.cmd(&[b"HSET", b"q:data", b"d3", b"not msgpack"]);
    let out = run(
        by_url(),
        &["dead", "requeue", "q", "d1", "d2", "d3", "nope", "--yes"],
    );
    assert_eq!(out.status.code(), Some(7), "{}", stderr(&out));
    // dead delete, scheduled run-now and delete, active delete.
    dead_jobs(&server, "q", "x", 2);
    run(by_file(), &["dead", "delete", "q", "--all", "--yes"]);
    for (id, due) in [("s1", "1h"), ("s2", "2h")] {
        run(
            by_file(),
            &["enqueue", "q", "--id", id, "--in", due, "data"],
        );
    }
    run(by_file(), &["scheduled", "run-now", "q", "s1", "--yes"]);
    run(by_file(), &["scheduled", "delete", "q", "s2", "--yes"]);
    run(by_file(), &["active", "delete", "q", "s1", "--yes"]);
    // orphans: an expired consumer holding one job.
    let gone = "q:inflight:0b7d3e2a-1c4f-4d5e-9f00-aabbccddeeff";
    let record = Job::new("o1", Some(b"x".to_vec())).encode();
    let _: () = server.cmd(&[b"HSET", b"q:data", b"o1", &record]);
    let _: () = server.cmd(&[b"SADD", gone.as_bytes(), b"o1"]);
    let _: () = server.cmd(&[b"ZADD", b"q:consumers", b"1000", gone.as_bytes()]);
    run(by_file(), &["orphans", "q", "--yes"]);
    // pause, pause again (no change), resume; limit set and cleared.
    run(by_file(), &["pause", "q"]);
    run(by_file(), &["pause", "q"]);
    run(by_file(), &["resume", "q"]);
    run(
        by_file(),
        &["limit", "q", "--rate", "100/s", "--max-running", "5"],
    );
    run(by_file(), &["limit", "q", "--clear"]);
    // import: one new job, one already there.
    let export = run(by_file(), &["export", "q"]);
    let lines = String::from_utf8_lossy(&export.stdout).into_owned();
    let extra = "{\"id\":\"i1\",\"data\":\"imported\"}\n";
    let mut import = by_file();
    import.write_stdin(format!("{lines}{extra}"));
    run(import, &["import", "q"]);
    // move to another queue: both sides.
    run(by_file(), &["move", "q", "r", "--yes"]);

    let user = os_user();
    let host = host_name();
    let entries = changes(&server, "q");
    let actions: Vec<&str> = entries
        .iter()
        .map(|e| e["action"].as_str().unwrap())
        .collect();
    assert_eq!(
        actions,
        [
            "dead requeue",
            "dead delete",
            "scheduled run-now",
            "scheduled delete",
            "active delete",
            "orphans",
            "pause",
            "resume",
            "limit",
            "limit",
            "import",
            "move out",
        ],
        "{entries:#?}"
    );
    for e in &entries {
        assert_eq!(e["source"], "cli", "{e}");
        assert_eq!(e["user"], user.as_str(), "{e}");
        assert_eq!(e["host"], host.as_str(), "{e}");
        let line = argv(e);
        assert!(line.starts_with("qctl -u redis://"), "{line}");
        assert!(!e.to_string().contains(PW), "a password in {e}");
        assert!(!e.to_string().contains("secret-data"), "job data in {e}");
    }
    let requeue = &entries[0];
    assert_eq!(
        argv(requeue),
        format!(
            "qctl -u redis://ops@127.0.0.1:{} dead requeue q d1 d2 d3 nope --yes",
            server.port()
        )
    );
    assert_eq!(requeue["done"], 2, "{requeue}");
    assert_eq!(requeue["not_found"], 1, "{requeue}");
    assert_eq!(requeue["skipped"], 1, "{requeue}");
    assert!(
        requeue["reasons"][0]["reason"]
            .as_str()
            .unwrap()
            .starts_with("damaged record"),
        "{requeue}"
    );
    assert_eq!(requeue["reasons"][0]["count"], 1, "{requeue}");
    assert_eq!(
        requeue["sample"],
        serde_json::json!(["d1", "d2"]),
        "{requeue}"
    );
    let delete = &entries[1];
    assert!(
        argv(delete).contains(&format!("--password-file {}", pw_file.display())),
        "{delete}"
    );
    // The damaged job the requeue skipped, and x1, x2.
    assert_eq!(
        (&delete["done"], &delete["ids_total"]),
        (&3.into(), &3.into())
    );
    assert_eq!(entries[2]["sample"], serde_json::json!(["s1"]));
    assert_eq!(entries[3]["sample"], serde_json::json!(["s2"]));
    assert_eq!(entries[4]["sample"], serde_json::json!(["s1"]));
    assert_eq!(entries[5]["done"], 1, "orphans: {}", entries[5]);
    assert!(
        entries[5]["detail"].as_str().unwrap().contains(gone),
        "{}",
        entries[5]
    );
    assert_eq!(entries[8]["detail"], "rate 100/s, max-running 5");
    assert_eq!(entries[9]["detail"], "every limit cleared");
    let import = &entries[10];
    assert_eq!(import["done"], 1, "{import}");
    assert_eq!(import["sample"], serde_json::json!(["i1"]), "{import}");
    assert!(import["skipped"].as_u64().unwrap() >= 1, "{import}");
    assert_eq!(
        import["reasons"][0]["reason"], "its id is there already",
        "{import}"
    );
    let moved_out = &entries[11];
    let into = changes(&server, "r");
    assert_eq!(into.len(), 1, "{into:?}");
    assert_eq!(into[0]["action"], "move in");
    assert_eq!(into[0]["done"], moved_out["done"]);
    assert!(moved_out["done"].as_u64().unwrap() >= 2, "{moved_out}");
    // Both sides keep the ids that moved.
    assert_eq!(moved_out["ids_total"], moved_out["done"], "{moved_out}");
    assert_eq!(into[0]["ids_total"], moved_out["done"], "{}", into[0]);
    assert!(
        moved_out["sample"]
            .as_array()
            .unwrap()
            .iter()
            .any(|id| id == "i1"),
        "{moved_out}"
    );
    assert!(
        into[0]["detail"]
            .as_str()
            .unwrap()
            .starts_with("from \"q\""),
        "{}",
        into[0]
    );

    // The table: the newest last, the command line without the password.
    let out = qctl(&server).args(["changes", "q"]).output().unwrap();
    let table = String::from_utf8_lossy(&out.stdout).into_owned();
    let last = table.lines().last().unwrap_or_default();
    assert!(last.contains("move out"), "{table}");
    assert!(!table.contains(PW), "{table}");
    assert!(table.contains(&format!("{user}@{host}")), "{table}");
}

#[test]
fn dry_runs_refusals_and_changes_of_nothing_record_nothing() {
    let server = RedisServer::start();
    dead_jobs(&server, "q", "d", 2);
    qctl(&server)
        .args(["dead", "requeue", "q", "--all", "--dry-run"])
        .assert()
        .success();
    qctl(&server)
        .args(["purge", "q", "--dry-run"])
        .assert()
        .success();
    qctl(&server)
        .args(["orphans", "q", "--dry-run"])
        .assert()
        .success();
    // No terminal and no --yes: refused before any change.
    qctl(&server)
        .args(["dead", "delete", "q", "--all"])
        .assert()
        .code(2);
    qctl(&server).args(["resume", "q"]).assert().success();
    assert_eq!(server.key_type("q:changes"), "none");
    let out = qctl(&server).args(["changes", "q"]).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(
        stderr(&out).contains("no changes recorded in q:changes"),
        "{}",
        stderr(&out)
    );
    // A queue with no key at all is no queue.
    qctl(&server).args(["changes", "nosuch"]).assert().code(5);
}

#[test]
fn changes_lists_since_a_time_as_json_and_the_ids_an_entry_kept() {
    let server = RedisServer::start();
    dead_jobs(&server, "q", "a", 1_005);
    qctl(&server)
        .args(["dead", "requeue", "q", "--all", "--yes"])
        .assert()
        .success();
    // The first change is older than the next ones by more than a millisecond.
    std::thread::sleep(Duration::from_millis(20));
    qctl(&server).args(["pause", "q"]).assert().success();
    qctl(&server).args(["resume", "q"]).assert().success();
    let all = changes(&server, "q");
    assert_eq!(all.len(), 3);
    let first = all[0]["entry"].as_str().unwrap().to_string();
    let second_time = all[1]["time"].as_f64().unwrap();

    // --since: the second and the third, oldest first.
    let out = qctl(&server)
        .args([
            "--json",
            "changes",
            "q",
            "--since",
            &format!("{second_time}"),
        ])
        .output()
        .unwrap();
    let since: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    let actions: Vec<&str> = since
        .iter()
        .map(|e| e["action"].as_str().unwrap())
        .collect();
    assert_eq!(actions, ["pause", "resume"], "{since:?}");
    // --until before the second: the first alone; --limit 1: the newest.
    let out = qctl(&server)
        .args([
            "--json",
            "changes",
            "q",
            "--until",
            &format!("{}", second_time - 0.001),
        ])
        .output()
        .unwrap();
    let until: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(until.len(), 1, "{until:?}");
    assert_eq!(until[0]["action"], "dead requeue");
    let out = qctl(&server)
        .args(["--json", "changes", "q", "--limit", "1"])
        .output()
        .unwrap();
    let newest: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(newest.len(), 1);
    assert_eq!(newest[0]["action"], "resume");

    // The requeue of 1,005 jobs kept the first 1,000 ids; --ids prints them and says so.
    assert_eq!(all[0]["done"], 1_005);
    assert_eq!(all[0]["ids_total"], 1_005);
    assert_eq!(all[0]["ids_kept"], 1_000);
    let out = qctl(&server)
        .args(["changes", "q", "--ids", &first])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let ids: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(ids.len(), 1_000);
    assert_eq!(ids[0], "a1");
    assert!(
        stderr(&out).contains("1,000 of 1,005 ids kept"),
        "{}",
        stderr(&out)
    );
    // An entry that keeps no ids says so; one that is gone, or no entry id, is an error.
    let pause = all[1]["entry"].as_str().unwrap();
    let out = qctl(&server)
        .args(["changes", "q", "--ids", pause])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(out.stdout.is_empty());
    assert!(stderr(&out).contains("keeps no ids"), "{}", stderr(&out));
    qctl(&server)
        .args(["changes", "q", "--ids", "1-0"])
        .assert()
        .code(5);
    qctl(&server)
        .args(["changes", "q", "--ids", "yesterday"])
        .assert()
        .code(2);
}

#[test]
fn tail_shows_a_change_as_it_happens() {
    let server = RedisServer::start();
    dead_jobs(&server, "q", "d", 2);
    let mut cmd = qctl_process(&server);
    cmd.args(["--json", "tail", "q", "--poll", "100ms", "--interval", "1s"]);
    let mut bg = Background::spawn(cmd);
    assert!(wait_until(Duration::from_secs(20), || bg
        .stdout()
        .contains("\"following\"")));
    qctl(&server)
        .args(["dead", "requeue", "q", "--all", "--yes"])
        .assert()
        .success();
    let change = |bg: &Background| {
        bg.stdout()
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .find(|v| v["event"] == "change")
    };
    assert!(
        wait_until(Duration::from_secs(20), || change(&bg).is_some()),
        "{}",
        bg.stdout()
    );
    bg.stop(Duration::from_secs(10));
    let seen = change(&bg).unwrap();
    assert_eq!(seen["queue"], "q");
    assert_eq!(seen["action"], "dead requeue");
    assert_eq!(seen["done"], 2);
    assert_eq!(seen["sample"], serde_json::json!(["d1", "d2"]));
    assert_eq!(seen["user"], os_user().as_str());

    // In the text too.
    let out = qctl(&server)
        .args(["tail", "q", "--since", "1h", "--no-follow"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        text.contains(&format!(
            "dead requeue by {}@{}: 2 done; e.g. d1, d2",
            os_user(),
            host_name()
        )),
        "{text}"
    );
}

#[test]
fn an_interrupted_requeue_records_what_it_did_and_that_it_was_interrupted() {
    let server = RedisServer::start();
    const BIG: usize = 200_000;
    {
        let mut con = server.conn();
        for start in (1..=BIG).step_by(10_000) {
            let mut pipe = redis::pipe();
            for i in start..(start + 10_000).min(BIG + 1) {
                let id = format!("j{i}");
                let record = Job::new(id.as_str(), Some(b"x".to_vec())).encode();
                pipe.hset("q:data", &id, record).ignore();
                pipe.zadd("q:dead", &id, 1_700_000_000.0).ignore();
            }
            let () = pipe.query(&mut con).expect("fill");
        }
    }
    let llen = || server.cmd::<u64>(&[b"LLEN", b"q:active"]);
    let mut cmd = qctl_process(&server);
    cmd.args(["dead", "requeue", "q", "--all", "--yes"]);
    let mut bg = Background::spawn(cmd);
    assert!(
        wait_until(Duration::from_secs(60), || llen() >= 20_000),
        "{}",
        bg.stderr()
    );
    bg.signal(Signal::SIGINT);
    let status = bg.wait_timeout(Duration::from_secs(60)).expect("it stops");
    assert_eq!(status.code(), Some(130), "{}", bg.stderr());
    let moved = llen();
    assert!(moved < BIG as u64, "stopped half-way");
    let entries = changes(&server, "q");
    assert_eq!(entries.len(), 1, "{entries:?}");
    let e = &entries[0];
    assert_eq!(e["action"], "dead requeue");
    assert_eq!(e["interrupted"], "SIGINT", "{e}");
    assert_eq!(e["done"], moved, "{e}");
    assert_eq!(e["ids_kept"], 1_000, "{e}");
    let out = qctl(&server).args(["changes", "q"]).output().unwrap();
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("dead requeue (stopped)"),
        "{out:?}"
    );
}

#[test]
fn the_record_stays_bounded_by_count_and_by_age() {
    let server = RedisServer::start();
    // 10,500 entries written straight to the stream, the first 500 older than 90 days.
    {
        let mut con = server.conn();
        let mut pipe = redis::pipe();
        for i in 1..=500u64 {
            pipe.cmd("XADD")
                .arg("q:changes")
                .arg(format!("{}-0", 1_000_000 + i))
                .arg("action")
                .arg("old")
                .ignore();
        }
        for _ in 0..10_000 {
            pipe.cmd("XADD")
                .arg("q:changes")
                .arg("*")
                .arg("action")
                .arg("filler")
                .ignore();
        }
        let () = pipe.query(&mut con).expect("fill the record");
    }
    let xlen = || server.cmd::<u64>(&[b"XLEN", b"q:changes"]);
    assert_eq!(xlen(), 10_500);
    qctl(&server).args(["pause", "q"]).assert().success();
    // MAXLEN ~ trims whole nodes of the stream (100 entries each by default).
    let len = xlen();
    assert!((10_000..10_100).contains(&len), "{len} entries");
    let out = qctl(&server)
        .args(["--json", "changes", "q", "--limit", "1"])
        .output()
        .unwrap();
    let newest: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(newest[0]["action"], "pause");
    // Old entries go by age too, whatever the count.
    let _: () = server.cmd(&[b"DEL", b"q:changes"]);
    {
        let mut con = server.conn();
        let mut pipe = redis::pipe();
        for i in 1..=500u64 {
            pipe.cmd("XADD")
                .arg("q:changes")
                .arg(format!("{}-0", 1_000_000 + i))
                .arg("action")
                .arg("old")
                .ignore();
        }
        let () = pipe.query(&mut con).expect("fill the record");
    }
    qctl(&server).args(["resume", "q"]).assert().success();
    let old: Vec<redis::Value> = server.cmd(&[b"XRANGE", b"q:changes", b"-", b"2000000"]);
    assert!(old.len() < 100, "{} entries older than 90 days", old.len());
    assert!(xlen() < 101, "{}", xlen());
}

#[test]
fn purge_keeps_the_record_with_the_purge_and_forget_changes_removes_it() {
    let server = RedisServer::start();
    dead_jobs(&server, "q", "d", 3);
    qctl(&server).args(["pause", "q"]).assert().success();
    qctl(&server)
        .args(["purge", "q", "--yes"])
        .assert()
        .success();
    let mut left: Vec<String> = server.cmd(&[b"KEYS", b"q:*"]);
    left.sort();
    assert_eq!(left, ["q:changes"]);
    let entries = changes(&server, "q");
    let last = entries.last().unwrap();
    assert_eq!(last["action"], "purge");
    assert_eq!(last["done"], 3, "the job records it deleted: {last}");
    // A queue with only its record left is no queue to stats.
    let out = qctl(&server).args(["--json", "stats"]).output().unwrap();
    let stats: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(stats, serde_json::json!([]), "{stats}");
    // --forget-changes deletes the record too, and records nothing: alone, or with jobs.
    qctl(&server)
        .args(["purge", "q", "--yes", "--forget-changes"])
        .assert()
        .success();
    assert_eq!(server.key_type("q:changes"), "none");
    dead_jobs(&server, "q", "d", 1);
    qctl(&server)
        .args(["purge", "q", "--yes", "--forget-changes"])
        .assert()
        .success();
    let left: Vec<String> = server.cmd(&[b"KEYS", b"q:*"]);
    assert!(left.is_empty(), "{left:?}");
}

/// The recipe's user `w` on the queue `mail`, without the commands `without`.
fn recipe_user_without(server: &RedisServer, without: &[&str]) {
    let (_, rules) = support::acl_recipe();
    let mut args: Vec<Vec<u8>> = vec![b"ACL".to_vec(), b"SETUSER".to_vec(), b"w".to_vec()];
    for rule in rules {
        let rule = if rule.starts_with('>') {
            format!(">{PW}")
        } else if rule.starts_with('~') {
            "~mail:*".to_string()
        } else {
            rule
        };
        if rule.strip_prefix('+').is_some_and(|c| without.contains(&c)) {
            continue;
        }
        args.push(rule.into_bytes());
    }
    let args: Vec<&[u8]> = args.iter().map(Vec::as_slice).collect();
    let _: redis::Value = server.cmd(&args);
}

#[test]
fn a_user_who_may_not_write_the_record_is_refused_before_any_change() {
    for command in ["xadd", "xtrim"] {
        let server = RedisServer::start();
        dead_jobs(&server, "mail", "d", 2);
        recipe_user_without(&server, &[command]);
        for args in [
            &["pause", "mail"][..],
            &["dead", "requeue", "mail", "--all", "--yes"],
            &["purge", "mail", "--yes"],
            &["limit", "mail", "--rate", "5/s"],
        ] {
            let out = qctl(&server)
                .args(["--user", "w"])
                .args(args)
                .env("QCTL_REDIS_PASSWORD", PW)
                .output()
                .unwrap();
            let err = stderr(&out);
            assert_eq!(
                out.status.code(),
                Some(4),
                "{args:?} without {command}: {err}"
            );
            assert!(
                err.contains("recording the change in mail:changes")
                    && err.contains(&command.to_uppercase())
                    && err.contains("NOPERM"),
                "{args:?} without {command}: {err}"
            );
        }
        // Nothing changed.
        assert_eq!(server.key_type("mail:paused"), "none");
        assert_eq!(server.key_type("mail:limits"), "none");
        assert_eq!(server.cmd::<u64>(&[b"ZCARD", b"mail:dead"]), 2);
        assert_eq!(server.key_type("mail:changes"), "none");
    }
    // With every right of the recipe, the same user's change is recorded.
    let server = RedisServer::start();
    recipe_user_without(&server, &[]);
    qctl(&server)
        .args(["--user", "w", "pause", "mail"])
        .env("QCTL_REDIS_PASSWORD", PW)
        .assert()
        .success();
    assert_eq!(changes(&server, "mail")[0]["action"], "pause");
}

#[test]
fn on_a_cluster_the_record_is_in_the_queue_slot() {
    let cluster = Cluster::start(3);
    let url = cluster.nodes[0].url();
    let at = || {
        let mut cmd = qctl_url(&url);
        cmd.arg("--cluster").env_remove("QCTL_CLUSTER");
        cmd
    };
    for q in ["{a}", "{b}", "{c}"] {
        at().args(["enqueue", q, "--id", "j1", "x"])
            .assert()
            .success();
        at().args(["active", "delete", q, "j1", "--yes"])
            .assert()
            .success();
        at().args(["pause", q]).assert().success();
        let owner = cluster.owner(&format!("{q}:changes"));
        assert_eq!(owner.key_type(&format!("{q}:changes")), "stream", "{q}");
        let out = at().args(["--json", "changes", q]).output().unwrap();
        assert!(out.status.success(), "{out:?}");
        let entries: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
        let actions: Vec<&str> = entries
            .iter()
            .map(|e| e["action"].as_str().unwrap())
            .collect();
        assert_eq!(actions, ["active delete", "pause"], "{q}");
        assert_eq!(entries[0]["sample"], serde_json::json!(["j1"]));
    }
}

#[test]
fn a_record_of_the_wrong_type_is_named_by_changes_tail_doctor_and_a_change_warns() {
    let server = RedisServer::start();
    dead_jobs(&server, "q", "d", 1);
    let _: () = server.cmd(&[b"SET", b"q:changes", b"not a stream"]);
    for args in [&["changes", "q"][..], &["tail", "q", "--no-follow"]] {
        let out = qctl(&server).args(args).output().unwrap();
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(4), "{args:?}: {err}");
        assert!(
            err.contains("WRONGTYPE") && err.contains("q:changes"),
            "{args:?}: {err}"
        );
    }
    // The change is made; the warning names the key.
    let out = qctl(&server)
        .args(["dead", "requeue", "q", "--all", "--yes"])
        .output()
        .unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains("the change was made, but recording it in q:changes failed")
            && err.contains("WRONGTYPE"),
        "{err}"
    );
    assert_eq!(server.lrange("q:active"), ["d1"]);
    let out = qctl(&server)
        .args(["--json", "doctor", "q"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        text.contains("\"key\":\"q:changes\"") && text.contains("expected a stream"),
        "{text}"
    );
}

#[test]
fn doctor_fix_records_what_it_repaired() {
    let server = RedisServer::start();
    // A record in no state, and an id in q:active without a record.
    let record = Job::new("stranded", Some(b"x".to_vec())).encode();
    let _: () = server.cmd(&[b"HSET", b"q:data", b"stranded", &record]);
    let _: () = server.cmd(&[b"RPUSH", b"q:active", b"norecord"]);
    let out = qctl(&server)
        .args(["doctor", "q", "--fix", "--yes"])
        .output()
        .unwrap();
    assert!(
        !stderr(&out).contains("recording it in"),
        "{}",
        stderr(&out)
    );
    let entries = changes(&server, "q");
    assert_eq!(entries.len(), 1, "{entries:?}");
    let e = &entries[0];
    assert_eq!(e["action"], "doctor fix", "{e}");
    assert_eq!(e["done"], 2, "{e}");
    assert_eq!(
        e["sample"],
        serde_json::json!(["stranded", "norecord"]),
        "{e}"
    );
    assert_eq!(
        e["detail"], "requeued 1 record in no state, removed 1 id without a record",
        "{e}"
    );
    // A second run finds nothing to fix and records nothing.
    qctl(&server)
        .args(["doctor", "q", "--fix", "--yes"])
        .output()
        .unwrap();
    assert_eq!(changes(&server, "q").len(), 1);
}
