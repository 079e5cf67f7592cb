//! Redis Cluster: a real 3-master cluster, reached through a node that does not own the
//! queue's slot, for the whole workload, discovery across masters, hash-tag rules, and a
//! slot migration under a running consumer.

mod support;

use std::time::{Duration, Instant, SystemTime};

use support::cluster::Cluster;
use support::judge::{End, Enqueue, History, Hit};
use support::ledger::{numbered, Ledger};
use support::{figure, qctl_process_at, qctl_url, wait_until, Background, FAST};

/// qctl against `url` in cluster mode.
fn qctl_at(url: &str) -> assert_cmd::Command {
    let mut cmd = qctl_url(url);
    cmd.arg("--cluster").env_remove("QCTL_CLUSTER");
    cmd
}

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Queue names whose hash tags land on three different masters.
fn queues_on_every_master(cluster: &Cluster) -> Vec<String> {
    let mut found: Vec<(usize, String)> = Vec::new();
    for i in 0.. {
        let name = format!("{{q{i}}}");
        let owner = cluster.owner_of_slot(cluster.slot(&name));
        if !found.iter().any(|(o, _)| *o == owner) {
            found.push((owner, name));
        }
        if found.len() == cluster.nodes.len() {
            break;
        }
    }
    found.into_iter().map(|(_, n)| n).collect()
}

#[test]
fn the_workload_runs_through_a_node_that_does_not_own_the_queue() {
    let cluster = Cluster::start(3);
    let q = "{mail}";
    let url = cluster.url_not_owning(q);
    let owner = cluster.owner(q);

    // enqueue: one job, then many lines.
    qctl_at(&url)
        .args(["enqueue", q, "--id", "one", "hello"])
        .assert()
        .success()
        .stdout("one\n");
    let lines: String = (0..50).map(|i| format!("line {i}\n")).collect();
    qctl_at(&url)
        .args(["enqueue", q, "--lines", "-q"])
        .write_stdin(lines)
        .assert()
        .success();
    qctl_at(&url)
        .args(["enqueue", q, "--id", "bad", "fail me"])
        .assert()
        .success();
    qctl_at(&url)
        .args(["enqueue", q, "--id", "later", "--in", "1h", "tomorrow"])
        .assert()
        .success();
    let active: i64 = redis::cmd("LLEN")
        .arg(format!("{q}:active"))
        .query(&mut owner.conn())
        .unwrap();
    assert_eq!(active, 52, "the jobs landed on the owning master");

    // consume --drain: every job runs; "fail me" dies after its retries.
    let out = qctl_at(&url)
        .args(["consume", q, "--drain", "--max-retries", "1"])
        .args(FAST)
        .args(["--", "sh", "-c", "! grep -q fail"])
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(7), "{}", stderr(&out));
    let active: i64 = redis::cmd("LLEN")
        .arg(format!("{q}:active"))
        .query(&mut owner.conn())
        .unwrap();
    assert_eq!(active, 0);
    // wait reads the queue in transactions on its slot's master: nothing is left to run
    // (`later` is not due), `one` was acked here and `bad` died.
    let out = qctl_at(&url).args(["wait", q, "--json"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = qctl_at(&url)
        .args(["wait", q, "one", "bad", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(7), "{}", stderr(&out));
    let waited: serde_json::Value = serde_json::from_slice(&out.stdout).expect("wait JSON");
    assert_eq!(waited["jobs"][0]["state"], "done", "{waited}");
    assert_eq!(waited["jobs"][1]["state"], "died", "{waited}");

    // Inspect and repair.
    let out = qctl_at(&url)
        .args(["dead", "list", q, "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("\"bad\""), "{}", stdout(&out));
    qctl_at(&url)
        .args(["dead", "show", q, "bad"])
        .assert()
        .success();
    // Why it failed, what happened, what runs: qctl's own keys share the queue's slot.
    let out = qctl_at(&url)
        .args(["dead", "groups", q, "--json"])
        .output()
        .unwrap();
    let groups: serde_json::Value = serde_json::from_slice(&out.stdout).expect("groups JSON");
    assert_eq!(groups["jobs"], 1, "{groups}");
    let out = qctl_at(&url)
        .args(["tail", q, "--since", "1h", "--no-follow", "--failures"])
        .output()
        .unwrap();
    let text = stdout(&out);
    assert!(
        text.contains("retry bad") && text.contains("dead bad"),
        "{text}{}",
        stderr(&out)
    );
    qctl_at(&url)
        .args(["enqueue", "{sms}", "--id", "slow", "x"])
        .assert()
        .success();
    let mut consumer = support::spawn_consumer_at(
        &url,
        &[
            "{sms}",
            "--cluster",
            "--shutdown-grace",
            "1s",
            "--",
            "sleep",
            "30",
        ],
    );
    let mut rows = serde_json::Value::Null;
    let running = support::wait_until(Duration::from_secs(20), || {
        let out = qctl_at(&url)
            .args(["--json", "inflight", "{sms}"])
            .output()
            .unwrap();
        rows = serde_json::from_slice(&out.stdout).unwrap_or_default();
        rows[0]["started"].is_number()
    });
    assert!(running, "{rows}\n{}", consumer.stderr());
    assert_eq!(rows[0]["id"], "slow");
    assert_eq!(rows[0]["pid"], consumer.pid());
    consumer.stop(Duration::from_secs(20));
    let out = qctl_at(&url)
        .args(["scheduled", "list", q])
        .output()
        .unwrap();
    assert!(stdout(&out).contains("later"), "{}", stdout(&out));
    qctl_at(&url)
        .args(["scheduled", "run-now", q, "later", "--yes"])
        .assert()
        .success();
    qctl_at(&url)
        .args(["dead", "requeue", q, "bad", "--yes"])
        .assert()
        .success();
    let out = qctl_at(&url)
        .args(["active", "list", q, "--json"])
        .output()
        .unwrap();
    let listed = stdout(&out);
    assert!(
        listed.contains("\"bad\"") && listed.contains("\"later\""),
        "{listed}"
    );
    qctl_at(&url).args(["pause", q]).assert().success();
    qctl_at(&url)
        .args(["consumers", q, "--json"])
        .assert()
        .success();
    qctl_at(&url)
        .args(["orphans", q, "--dry-run"])
        .assert()
        .success();
    let out = qctl_at(&url).args(["stats", q, "--json"]).output().unwrap();
    let stats: serde_json::Value = serde_json::from_slice(&out.stdout).expect("stats JSON");
    assert_eq!(stats[0]["queue"], q);
    assert_eq!(stats[0]["active"], 2);
    assert_eq!(stats[0]["paused"], true);
    assert_eq!(stats[0]["done"], 51);
    // The history, in the queue's slot, read through a node that does not own it; and
    // the check that reads it.
    let out = qctl_at(&url)
        .args(["stats", q, "--history", "10m", "--json"])
        .output()
        .unwrap();
    let steps: serde_json::Value = serde_json::from_slice(&out.stdout).expect("history JSON");
    let done: u64 = steps
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["done"].as_u64().unwrap())
        .sum();
    assert_eq!(done, 51, "{}", stdout(&out));
    qctl_at(&url)
        .args(["check", q, "--failure-rate-max", "0.9", "--ready-max", "5"])
        .assert()
        .success();
    qctl_at(&url).args(["resume", q]).assert().success();
    qctl_at(&url).args(["purge", q, "--yes"]).assert().success();
    let left: Vec<String> = redis::cmd("KEYS")
        .arg(format!("{q}:*"))
        .query(&mut owner.conn())
        .unwrap();
    // But for the record of its changes, with the purge in it.
    assert_eq!(left, [format!("{q}:changes")], "purge left {left:?}");
}

#[test]
fn stats_finds_the_queues_of_every_master() {
    let cluster = Cluster::start(3);
    let names = queues_on_every_master(&cluster);
    // And more queues than fit one slot group, to count them in several round trips.
    let mut all = names.clone();
    all.extend((0..20).map(|i| format!("{{extra{i}}}")));
    let url = cluster.nodes[0].url();
    for (i, q) in all.iter().enumerate() {
        let lines: String = (0..=i).map(|n| format!("{n}\n")).collect();
        qctl_at(&url)
            .args(["enqueue", q, "--lines", "-q"])
            .write_stdin(lines)
            .assert()
            .success();
    }
    let out = qctl_at(&url).args(["stats", "--json"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).expect("JSON");
    let mut seen: Vec<(String, u64)> = rows
        .iter()
        .map(|r| {
            (
                r["queue"].as_str().unwrap().to_string(),
                r["active"].as_u64().unwrap(),
            )
        })
        .collect();
    seen.sort();
    let mut want: Vec<(String, u64)> = all
        .iter()
        .enumerate()
        .map(|(i, q)| (q.clone(), i as u64 + 1))
        .collect();
    want.sort();
    assert_eq!(seen, want);
}

#[test]
fn a_queue_without_a_hash_tag_is_refused_with_the_fix() {
    let cluster = Cluster::start(3);
    let url = cluster.nodes[0].url();
    for args in [
        vec!["enqueue", "mail", "x"],
        vec!["consume", "mail", "--drain", "--", "true"],
        vec!["stats", "mail"],
        vec!["dead", "list", "mail"],
    ] {
        let out = qctl_at(&url).args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(err.contains("hash tag") && err.contains("{mail}"), "{err}");
    }
    for node in &cluster.nodes {
        let keys: Vec<String> = redis::cmd("KEYS").arg("*").query(&mut node.conn()).unwrap();
        assert!(keys.is_empty(), "a refused command wrote {keys:?}");
    }
    // A queue without a tag, written by someone else, is skipped by discovery with a note.
    let _: i64 = redis::cmd("LPUSH")
        .arg("mail:active")
        .arg("x")
        .query(&mut cluster.owner("mail:active").conn())
        .unwrap();
    qctl_at(&url)
        .args(["enqueue", "{tagged}", "x"])
        .assert()
        .success();
    let out = qctl_at(&url).args(["stats", "--json"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let rows: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(rows.as_array().map(Vec::len), Some(1), "{rows}");
    assert_eq!(rows[0]["queue"], "{tagged}");
    assert!(
        stderr(&out).contains("skipped 1 queue without a hash tag"),
        "{}",
        stderr(&out)
    );
    // Without --cluster, a node that does not own the key says where to go.
    let out = qctl_process_at(&cluster.url_not_owning("{mail}"))
        .args(["enqueue", "{mail}", "x"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(4));
    assert!(stderr(&out).contains("--cluster"), "{}", stderr(&out));
}

/// Enqueues `n` numbered jobs into `q` and starts `consume --drain -c 4` on them, its
/// handler recording each run in `ledger` and sleeping `sleep`; returns once `started` jobs
/// have run.
fn draining(
    url: &str,
    q: &str,
    n: usize,
    ledger: &Ledger,
    extra: &[&str],
    sleep: Duration,
    started: usize,
) -> (Vec<String>, Background) {
    let (ids, input) = numbered("j", n);
    qctl_at(url)
        .args(["enqueue", q, "--jsonl", "-q"])
        .write_stdin(input)
        .assert()
        .success();
    let mut cmd = qctl_process_at(url);
    cmd.args(["--cluster", "consume", q, "-c", "4", "--drain"])
        .args(FAST)
        .args(extra)
        .arg("--")
        .args(ledger.handler_args(sleep));
    let consumer = Background::spawn(cmd);
    assert!(
        wait_until(Duration::from_secs(60), || ledger.runs().len() >= started),
        "the consumer did not start: {}",
        consumer.stderr()
    );
    (ids, consumer)
}

#[test]
fn a_slot_migration_under_a_running_consumer_loses_no_job() {
    let cluster = Cluster::start(3);
    let q = "{mig}";
    let slot = cluster.slot(q);
    let from = cluster.owner_of_slot(slot);
    let to = (from + 1) % 3;
    let url = cluster.nodes[(from + 2) % 3].url();
    let ledger = Ledger::new();
    let started = Instant::now();
    let (ids, mut consumer) = draining(&url, q, 2000, &ledger, &[], Duration::ZERO, 300);
    let at = ledger.runs().len();
    // A migration moves keys whole, with what they hold: no write is lost.
    let mut history = History::new();
    history.enqueued(&ids, Enqueue::Acknowledged).fault(
        "the first migration",
        SystemTime::now(),
        Hit::Redis { lost_writes: false },
    );
    let moved = cluster.migrate_slot(slot, from, to);
    let migrated_at = started.elapsed();
    // And on again to the third master while the consumer runs on.
    assert!(
        wait_until(Duration::from_secs(60), || ledger.runs().len() >= 1000),
        "the consumer stalled after the first migration: {}",
        consumer.stderr()
    );
    let at2 = ledger.runs().len();
    let third = (from + 2) % 3;
    history.fault(
        "the second migration",
        SystemTime::now(),
        Hit::Redis { lost_writes: false },
    );
    cluster.migrate_slot(slot, to, third);
    let to = third;
    let status = consumer
        .wait_timeout(Duration::from_secs(120))
        .expect("the drain ends");
    assert_eq!(status.code(), Some(0), "{}", consumer.stderr());
    // Everything lives on the new owner now, and nothing is left to do.
    let owner = &cluster.nodes[to];
    let verdict = history.ran(ledger.entries()).judge(&End::read(owner, q));
    verdict.check("C1");
    assert!(verdict.waiting.is_empty(), "{}", verdict.table());
    let active: i64 = redis::cmd("LLEN")
        .arg(format!("{q}:active"))
        .query(&mut owner.conn())
        .unwrap();
    let data: i64 = redis::cmd("HLEN")
        .arg(format!("{q}:data"))
        .query(&mut owner.conn())
        .unwrap();
    assert_eq!((active, data), (0, 0));
    figure(&format!(
        "C1 slot {slot} of {q} migrated ({moved} keys) at {at}/2000 runs, {:.1}s in, and again at {at2}/2000: {}; drain took {:.1}s",
        migrated_at.as_secs_f64(),
        verdict.line(),
        started.elapsed().as_secs_f64()
    ));
}

#[test]
fn a_failover_under_a_running_consumer_loses_no_job() {
    let mut cluster = Cluster::start_with_replicas(3, true);
    let q = "{fo}";
    let slot = cluster.slot(q);
    let from = cluster.owner_of_slot(slot);
    let url = cluster.nodes[(from + 1) % 3].url();
    let ledger = Ledger::new();
    // The lease outlasts the failover (node timeout 3 s, then the election).
    let lease = ["--orphan-after", "30s"];
    let (ids, mut consumer) = draining(
        &url,
        q,
        1000,
        &ledger,
        &lease,
        Duration::from_millis(5),
        200,
    );
    // What the master acknowledged has reached its replica.
    cluster.replicated(from);
    let at = ledger.runs().len();
    // What the master acknowledged after that may not have reached the replica.
    let mut history = History::new();
    history.enqueued(&ids, Enqueue::Acknowledged).fault(
        "the failover",
        SystemTime::now(),
        Hit::Redis { lost_writes: true },
    );
    let killed = Instant::now();
    cluster.nodes[from].stop();
    let replica = cluster.masters + from;
    assert!(
        wait_until(Duration::from_secs(30), || cluster.try_owner_of_slot(slot)
            == Some(replica)),
        "the replica was not promoted"
    );
    let promoted = killed.elapsed();
    let status = consumer
        .wait_timeout(Duration::from_secs(120))
        .expect("the drain ends");
    assert_eq!(status.code(), Some(0), "{}", consumer.stderr());
    let verdict = history
        .ran(ledger.entries())
        .judge(&End::read(&cluster.nodes[replica], q));
    verdict.check("C2");
    assert!(verdict.waiting.is_empty(), "{}", verdict.table());
    figure(&format!(
        "C2 master of {q} SIGKILLed at {at}/1000 runs, replica promoted after {:.1}s: {}; drain ended {:.1}s after the kill",
        promoted.as_secs_f64(),
        verdict.line(),
        killed.elapsed().as_secs_f64()
    ));
}

#[test]
fn a_failover_while_a_call_waits_on_a_frozen_master_is_retried() {
    // A call sent to a master that stops answering times out; when a replica has taken the
    // slot over meanwhile, the cluster answers again at once. That is a failover to wait
    // out, not a reply too large to travel (which would stop the consumer).
    let cluster = Cluster::start_with_replicas(3, true);
    let q = "{frozen}";
    let slot = cluster.slot(q);
    let from = cluster.owner_of_slot(slot);
    let url = cluster.nodes[(from + 1) % 3].url();
    let ledger = Ledger::new();
    let extra = ["--orphan-after", "30s", "--response-timeout", "3s"];
    let (ids, mut consumer) = draining(&url, q, 1000, &ledger, &extra, Duration::ZERO, 200);
    cluster.replicated(from);
    let at = ledger.runs().len();
    // What the master acknowledged after that may not have reached the replica.
    let mut history = History::new();
    history.enqueued(&ids, Enqueue::Acknowledged).fault(
        "the takeover",
        SystemTime::now(),
        Hit::Redis { lost_writes: true },
    );
    let frozen = Instant::now();
    cluster.nodes[from].pause();
    let replica = cluster.masters + from;
    let _: () = redis::cmd("CLUSTER")
        .arg("FAILOVER")
        .arg("TAKEOVER")
        .query(&mut cluster.nodes[replica].conn())
        .expect("CLUSTER FAILOVER TAKEOVER");
    assert!(
        wait_until(Duration::from_secs(10), || cluster.claims(replica, slot)),
        "the replica did not take the slot over"
    );
    let status = consumer.wait_timeout(Duration::from_secs(120));
    cluster.nodes[from].resume();
    let status = status.unwrap_or_else(|| {
        panic!(
            "the drain did not end ({} runs): {}",
            ledger.runs().len(),
            consumer.stderr()
        )
    });
    assert_eq!(status.code(), Some(0), "{}", consumer.stderr());
    let err = consumer.stderr();
    assert!(!err.contains("too large"), "{err}");
    // The calls that went unanswered name the master they were sent to, not its successor.
    let successor = format!(":{} (cluster master", cluster.nodes[replica].port());
    assert!(!err.contains(&successor), "{err}");
    let frozen_at = format!(":{} (cluster master", cluster.nodes[from].port());
    assert!(err.contains(&frozen_at), "{err}");
    let verdict = history
        .ran(ledger.entries())
        .judge(&End::read(&cluster.nodes[replica], q));
    verdict.check("C5");
    assert!(verdict.waiting.is_empty(), "{}", verdict.table());
    figure(&format!(
        "C5 master of {q} frozen at {at}/1000 runs, its replica took over: {}; drain ended {:.1}s after the freeze",
        verdict.line(),
        frozen.elapsed().as_secs_f64()
    ));
}

/// The least-privilege recipe of docs/configuration.md for `{mail}:*` on every node, with what a cluster
/// adds to it (`extra`).
fn cluster_user(cluster: &Cluster, extra: &[&str]) {
    let (_, rules) = support::acl_recipe();
    for node in &cluster.nodes {
        let mut cmd = redis::cmd("ACL");
        cmd.arg("SETUSER").arg("worker");
        for rule in &rules {
            if rule.starts_with('>') {
                cmd.arg(">pw");
            } else if rule.starts_with('~') {
                cmd.arg("~{mail}:*");
            } else {
                cmd.arg(rule);
            }
        }
        cmd.arg(extra);
        let _: () = cmd.query(&mut node.conn()).unwrap();
    }
}

#[test]
fn the_acl_recipe_with_cluster_slots_runs_the_workload_on_a_cluster() {
    let cluster = Cluster::start(3);
    let q = "{mail}";
    let url = cluster.url_not_owning(q);
    let as_worker = || {
        let mut cmd = qctl_at(&url);
        cmd.args(["--user", "worker"])
            .env("QCTL_REDIS_PASSWORD", "pw");
        cmd
    };
    // Without CLUSTER SLOTS the client cannot learn the layout: refused, exit 4, in words.
    cluster_user(&cluster, &[]);
    let out = as_worker().args(["enqueue", q, "x"]).output().unwrap();
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    assert!(stderr(&out).contains("NOPERM"), "{}", stderr(&out));
    cluster_user(&cluster, &["+cluster|slots"]);
    as_worker()
        .args(["enqueue", q, "--lines", "-q"])
        .write_stdin("a\nb\nfail\n")
        .assert()
        .success();
    let out = as_worker()
        .args(["consume", q, "--drain", "--max-retries", "0"])
        .args(FAST)
        .args(["--", "sh", "-c", "! grep -q fail"])
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(7), "{}", stderr(&out));
    let out = as_worker().args(["stats", "--json"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let rows: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(rows[0]["queue"], q, "{rows}");
    assert_eq!(rows[0]["done"], 2, "{rows}");
    assert_eq!(rows[0]["dead"], 1, "{rows}");
    as_worker()
        .args(["dead", "requeue", q, "--all", "--yes"])
        .assert()
        .success();
    as_worker().args(["purge", q, "--yes"]).assert().success();
}

/// A queue on one node moves into a cluster under a hash-tagged name with `export | import`
/// (through a node that does not own it), every job in its state; an untagged name is
/// refused with the fix.
#[test]
fn a_queue_exported_from_one_node_is_imported_into_a_cluster_under_a_tagged_name() {
    let single = support::RedisServer::start();
    support::qctl(&single)
        .args(["enqueue", "mail", "--lines", "-q"])
        .write_stdin("1\n2\n3\n")
        .assert()
        .success();
    support::qctl(&single)
        .args(["enqueue", "mail", "--in", "1h", "--id", "later", "x"])
        .assert()
        .success();
    let out = support::qctl(&single)
        .args(["export", "mail"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let export = out.stdout;

    let cluster = Cluster::start(3);
    let refused = qctl_at(&cluster.nodes[0].url())
        .args(["import", "mail"])
        .write_stdin(export.clone())
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert!(stderr(&refused).contains("{mail}"), "{}", stderr(&refused));

    let url = cluster.url_not_owning("{mail}");
    let out = qctl_at(&url)
        .args(["import", "{mail}"])
        .write_stdin(export)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let mut owner = cluster.owner("{mail}").conn();
    let ready: Vec<Vec<u8>> = redis::cmd("LRANGE")
        .arg("{mail}:active")
        .arg(0)
        .arg(-1)
        .query(&mut owner)
        .unwrap();
    let source: Vec<Vec<u8>> = single.cmd(&[b"LRANGE", b"mail:active", b"0", b"-1"]);
    assert_eq!(ready, source, "the ready jobs, in order");
    for id in source.iter().chain([&b"later".to_vec()]) {
        let record: Option<Vec<u8>> = redis::cmd("HGET")
            .arg("{mail}:data")
            .arg(id)
            .query(&mut owner)
            .unwrap();
        let want: Option<Vec<u8>> = single.cmd(&[b"HGET", b"mail:data", id]);
        assert_eq!(
            record,
            want,
            "the record of {}",
            String::from_utf8_lossy(id)
        );
    }
    let due: Option<f64> = redis::cmd("ZSCORE")
        .arg("{mail}:scheduled")
        .arg("later")
        .query(&mut owner)
        .unwrap();
    let want: Option<f64> = single.cmd(&[b"ZSCORE", b"mail:scheduled", b"later"]);
    assert_eq!(due, want);
    figure("C3 export from one node, import into a 3-master cluster as {mail} through a node that does not own it: ready jobs in order, records and due time byte for byte; `import mail` refused with the fix");
}

/// `find` on a 3-master cluster, through a node that does not own the queue: the exact id
/// and the scan of every place (its script's keys share the queue's slot), with a budget.
#[test]
fn find_searches_a_queue_through_a_node_that_does_not_own_it() {
    let cluster = Cluster::start(3);
    let q = "{mail}";
    let url = cluster.url_not_owning(q);
    let lines: String = (0..1_200).map(|i| format!("line {i}\n")).collect();
    qctl_at(&url)
        .args(["enqueue", q, "--lines", "-q"])
        .write_stdin(lines)
        .assert()
        .success();
    qctl_at(&url)
        .args(["enqueue", q, "--id", "later", "--in", "1h", "line tomorrow"])
        .assert()
        .success();
    let out = qctl_at(&url)
        .args(["find", q, "line 11", "--limit", "0", "--jsonl"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // line 11, 110-119 and 1100-1199.
    assert_eq!(
        stdout(&out).lines().count(),
        1 + 10 + 100,
        "{}",
        stderr(&out)
    );
    assert!(
        stderr(&out).contains("111 jobs found; searched no dead, all 1 scheduled, no in-flight and all 1,200 ready jobs"),
        "{}",
        stderr(&out)
    );
    let out = qctl_at(&url)
        .args(["find", q, "later", "--jsonl"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let first: serde_json::Value =
        serde_json::from_str(stdout(&out).lines().next().unwrap_or_default()).unwrap();
    assert_eq!(first["where"], "scheduled");
    assert_eq!(first["matched"], serde_json::json!(["id"]));
    let out = qctl_at(&url)
        .args(["find", q, "nothing", "--max-scan", "700"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(5), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("searched no dead, all 1 scheduled, no in-flight and 699 of 1,200 ready jobs: stopped at --max-scan 700"),
        "{}",
        stderr(&out)
    );
}
