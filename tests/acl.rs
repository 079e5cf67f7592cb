//! Least-privilege ACL users and passwords: the recipe of docs/configuration.md runs the whole workload, a
//! missing right is exit 4 naming the command and the key, passwords never show, and `stats`
//! passes over queues the user cannot read.

mod support;

use std::io::Write as _;
use std::process::Output;
use std::time::Duration;

use support::{qctl, qctl_process, wait_until, Background, RedisServer, FAST};

const PW: &str = "Acl-pw-7Qz3x";

/// The commands the recipe allows (`+cmd`), in its order.
fn recipe_commands() -> Vec<String> {
    support::acl_recipe()
        .1
        .into_iter()
        .filter_map(|r| r.strip_prefix('+').map(str::to_string))
        .collect()
}

/// Creates `user` with password [`PW`] and the recipe's rules, the queue pattern replaced by
/// `~QUEUE:*` and `+cmd` left out for every command in `without`.
fn set_user(server: &RedisServer, user: &str, queue: &str, without: &[&str]) {
    let (_, rules) = support::acl_recipe();
    let mut args: Vec<Vec<u8>> = vec![b"ACL".to_vec(), b"SETUSER".to_vec(), user.into()];
    for rule in rules {
        let rule = if rule.starts_with('>') {
            format!(">{PW}")
        } else if rule.starts_with('~') {
            format!("~{queue}:*")
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

/// qctl as `user`, the password in `$QCTL_REDIS_PASSWORD`, with -v.
fn as_user(server: &RedisServer, user: &str) -> assert_cmd::Command {
    let mut cmd = qctl(server);
    cmd.args(["-v", "--user", user])
        .env("QCTL_REDIS_PASSWORD", PW)
        .env_remove("QCTL_REDIS_PASSWORD_FILE")
        .env_remove("QCTL_REDIS_USER");
    cmd
}

fn text(out: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Runs `cmd`, checks its exit code and that the password is in none of its output.
fn expect(cmd: &mut assert_cmd::Command, code: i32) -> (String, String) {
    let out = cmd.output().expect("run qctl");
    let (stdout, stderr) = text(&out);
    assert_eq!(
        out.status.code(),
        Some(code),
        "{cmd:?}\nstdout: {stdout}\nstderr: {stderr}"
    );
    assert!(
        !stdout.contains(PW) && !stderr.contains(PW),
        "the password was printed by {cmd:?}:\n{stdout}\n{stderr}"
    );
    // A right that is missing can also show as a warning of a step that carried on.
    for line in stderr.lines().filter(|l| l.contains("warning:")) {
        assert!(
            line.contains("--orphan-after 3s is below 2m")
                || line.contains("job dmg has a damaged"),
            "{cmd:?} warned: {line}\n{stderr}"
        );
    }
    (stdout, stderr)
}

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text.trim()).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

/// The `stats --json` row of `queue`.
fn stats_of(server: &RedisServer, user: &str, queue: &str) -> serde_json::Value {
    let (out, _) = expect(as_user(server, user).args(["stats", "--json", queue]), 0);
    json(&out)[0].clone()
}

fn keys(server: &RedisServer, pattern: &str) -> Vec<String> {
    let mut keys: Vec<String> = server.cmd(&[b"KEYS", pattern.as_bytes()]);
    keys.sort();
    keys
}

/// Everything qctl does to the queue `mail`, as `user`: enqueue in every form, inspect, repair,
/// consume with retries, damaged records and dead jobs, recover orphans, pause, purge. Every
/// step must succeed with the right result. The admin (default user) only sets the scene: a
/// damaged record and an orphaned consumer.
fn workload(server: &RedisServer, user: &str) {
    let run = || as_user(server, user);
    // Enqueue: single, duplicate, --lines, --jsonl, scheduled, due in the past.
    let (out, _) = expect(run().args(["enqueue", "mail", "--id", "one", "hello"]), 0);
    assert_eq!(out, "one\n");
    let (_, err) = expect(run().args(["enqueue", "mail", "--id", "one", "again"]), 5);
    assert!(err.contains("active"), "{err}");
    let (out, _) = expect(
        run()
            .args(["enqueue", "mail", "--lines"])
            .write_stdin("a\nfail\nb\n"),
        0,
    );
    let ids: Vec<&str> = out.lines().collect();
    assert_eq!(ids.len(), 3, "{out}");
    let fail_id = ids[1].to_string();
    let (out, _) = expect(
        run().args(["enqueue", "mail", "--jsonl"]).write_stdin(
            "{\"id\":\"j1\",\"data\":\"x\"}\n\
             {\"id\":\"j2\",\"data_b64\":\"AAEC\",\"attempt\":2}\n\
             {\"id\":\"later\",\"data\":\"l\",\"at\":\"2999-01-01T00:00:00Z\"}\n",
        ),
        0,
    );
    assert_eq!(out, "j1\nj2\nlater\n");
    expect(
        run().args(["enqueue", "mail", "--id", "soon", "--in", "1h", "s"]),
        0,
    );
    expect(
        run().args(["enqueue", "mail", "--id", "past", "--at", "1", "p"]),
        0,
    );
    expect(run().args(["enqueue", "mail", "--id", "orph", "o"]), 0);

    // The scene: a damaged record, and an expired consumer holding `orph`.
    let _: redis::Value = server.cmd(&[b"HSET", b"mail:data", b"dmg", b"not msgpack"]);
    let _: redis::Value = server.cmd(&[b"RPUSH", b"mail:active", b"dmg"]);
    let gone = "mail:inflight:0b7d3e2a-1c4f-4d5e-9f00-aabbccddeeff";
    let _: redis::Value = server.cmd(&[b"LREM", b"mail:active", b"0", b"orph"]);
    let _: redis::Value = server.cmd(&[b"SADD", gone.as_bytes(), b"orph"]);
    let _: redis::Value = server.cmd(&[b"ZADD", b"mail:consumers", b"1000", gone.as_bytes()]);

    // Look.
    let (out, _) = expect(run().args(["stats"]), 0);
    assert!(out.contains("mail"), "{out}");
    let (out, _) = expect(run().args(["stats", "--json"]), 0);
    let all = json(&out);
    assert_eq!(all.as_array().map(Vec::len), Some(1), "{out}");
    let s = &all[0];
    assert_eq!(s["queue"], "mail");
    assert_eq!(s["active"], 8, "{s}");
    assert_eq!(s["scheduled_later"], 2, "{s}");
    assert_eq!(s["in_flight"], 1, "{s}");
    assert_eq!(s["consumers_expired"], 1, "{s}");
    let (out, _) = expect(run().args(["active", "list", "mail", "--json"]), 0);
    assert_eq!(json(&out).as_array().map(Vec::len), Some(8), "{out}");
    let (out, _) = expect(run().args(["consumers", "mail", "--json"]), 0);
    let consumers = json(&out);
    assert_eq!(consumers[0]["consumer"], gone, "{out}");
    assert_eq!(consumers[0]["alive"], false, "{out}");
    let (out, _) = expect(run().args(["inflight", "mail", "--json"]), 0);
    assert_eq!(json(&out)[0]["consumer"], gone, "{out}");
    let (_, err) = expect(run().args(["enqueue", "mail", "--id", "orph", "again"]), 5);
    assert!(err.contains("in flight"), "{err}");

    // Orphans.
    expect(run().args(["orphans", "mail", "--dry-run"]), 0);
    assert_eq!(server.key_type(gone), "set", "--dry-run moves nothing");
    expect(run().args(["orphans", "mail", "--yes"]), 0);
    assert_eq!(server.key_type(gone), "none");
    assert!(server.lrange("mail:active").contains(&"orph".to_string()));

    // Scheduled jobs.
    let (out, _) = expect(run().args(["scheduled", "list", "mail", "--json"]), 0);
    assert_eq!(json(&out).as_array().map(Vec::len), Some(2), "{out}");
    let (out, _) = expect(run().args(["scheduled", "show", "mail", "soon"]), 0);
    assert!(out.contains("soon"), "{out}");
    let (out, _) = expect(run().args(["scheduled", "groups", "mail", "--json"]), 0);
    assert_eq!(json(&out)["jobs"], 2, "{out}");
    expect(
        run().args(["scheduled", "run-now", "mail", "soon", "--yes"]),
        0,
    );
    expect(
        run().args(["scheduled", "delete", "mail", "later", "--yes"]),
        0,
    );
    assert_eq!(server.key_type("mail:scheduled"), "none");
    assert_eq!(server.hget_bytes("mail:data", "later"), None);
    expect(run().args(["active", "delete", "mail", "past", "--yes"]), 0);
    assert_eq!(server.hget_bytes("mail:data", "past"), None);

    // Pause and resume.
    expect(run().args(["pause", "mail"]), 0);
    assert_eq!(stats_of(server, user, "mail")["paused"], true);
    expect(run().args(["resume", "mail"]), 0);
    assert_eq!(stats_of(server, user, "mail")["paused"], false);

    // Export, and import back: every id is there, so each is skipped; --replace rewrites
    // them where they are.
    let (out, _) = expect(run().args(["export", "mail"]), 0);
    assert!(out.lines().count() > 3, "{out}");
    let (_, err) = expect(run().args(["import", "mail"]).write_stdin(out.clone()), 0);
    assert!(err.contains("already there, skipped"), "{err}");
    let (_, err) = expect(
        run().args(["import", "mail", "--replace"]).write_stdin(out),
        0,
    );
    assert!(err.contains("replaced"), "{err}");

    // Move to another name and back, the second time naming the destination with --to, its
    // own user and its password: every job comes back, the ready ones in their order, and
    // neither journal is left.
    let ready = server.lrange("mail:active");
    let scheduled = server.zrange_withscores("mail:scheduled");
    let (_, err) = expect(run().args(["move", "mail", "mail:moved", "--yes"]), 0);
    assert!(err.contains("moved"), "{err}");
    assert_eq!(server.lrange("mail:moved:active"), ready);
    let (_, err) = expect(
        run()
            .args(["move", "mail:moved", "mail", "--yes", "--to", &server.url()])
            .args(["--to-user", user])
            .env("QCTL_TO_REDIS_PASSWORD", PW),
        0,
    );
    assert!(err.contains("moved"), "{err}");
    assert_eq!(server.lrange("mail:active"), ready);
    assert_eq!(server.zrange_withscores("mail:scheduled"), scheduled);
    // The record of changes of mail:moved stays: the move in and out.
    assert_eq!(
        keys(server, "mail:moved:*"),
        vec!["mail:moved:changes".to_string()]
    );
    assert_eq!(keys(server, "mail:move-*"), Vec::<String>::new());

    // Consume, and stop: the running job and the buffered ones go back.
    let before = server.lrange("mail:active");
    let mut stopped = {
        let mut cmd = qctl_process(server);
        cmd.args([
            "-v", "--user", user, "consume", "mail", "-c", "1", "--buffer", "3",
        ])
        .args(FAST)
        .args(["--shutdown-grace", "100ms", "--", "sleep", "30"])
        .env("QCTL_REDIS_PASSWORD", PW);
        Background::spawn(cmd)
    };
    assert!(wait_until(Duration::from_secs(10), || {
        keys(server, "mail:inflight:*").len() == 1
            && server.lrange("mail:active").len() + 4 == before.len()
    }));
    std::thread::sleep(Duration::from_millis(300));
    let status = stopped.stop(Duration::from_secs(10));
    let err = stopped.stderr();
    assert_eq!(status.and_then(|s| s.code()), Some(0), "{err}");
    assert!(err.contains("returned 4"), "{err}");
    assert!(
        !err.contains(PW) && !err.contains("warning: could not"),
        "{err}"
    );
    let mut after = server.lrange("mail:active");
    after.sort();
    let mut before = before;
    before.sort();
    assert_eq!(after, before, "every job went back");
    assert_eq!(keys(server, "mail:inflight:*"), Vec::<String>::new());
    assert_eq!(server.key_type("mail:consumers"), "none");
    // Limits shared by the consumers: the drain below runs under them (the reservation reads
    // them, counts the jobs in flight and keeps the rate's bucket).
    expect(
        run().args([
            "limit",
            "mail",
            "--rate",
            "1000/s",
            "--burst",
            "2",
            "--max-running",
            "5",
        ]),
        0,
    );
    let (out, _) = expect(run().args(["limit", "mail", "--json"]), 0);
    let limits = json(&out);
    assert_eq!(limits["max_running"], 5, "{out}");
    assert_eq!(limits["rate_text"], "1000/s", "{out}");
    // Consume the rest: `fail` fails twice and dies, `dmg` is buried as damaged.
    let (_, err) = expect(
        run()
            .args([
                "consume",
                "mail",
                "--drain",
                "-c",
                "2",
                "--max-retries",
                "1",
            ])
            .args(FAST)
            .args(["--", "sh", "-c", "test \"$(cat)\" != fail"]),
        7,
    );
    assert!(err.contains("damaged"), "{err}");
    assert_eq!(
        server.key_type("mail:bucket"),
        "hash",
        "the rate's bucket was kept"
    );
    expect(run().args(["limit", "mail", "--clear"]), 0);
    assert_eq!(keys(server, "mail:limits"), Vec::<String>::new());
    assert_eq!(keys(server, "mail:bucket"), Vec::<String>::new());
    let dead: Vec<String> = server
        .zrange_withscores("mail:dead")
        .into_iter()
        .map(|(id, _)| id)
        .collect();
    let mut want = vec![fail_id.clone(), "dmg".to_string()];
    want.sort();
    let mut got = dead.clone();
    got.sort();
    assert_eq!(got, want);
    assert_eq!(server.key_type("mail:active"), "none");
    let mut left: Vec<String> = server.cmd(&[b"HKEYS", b"mail:data"]);
    left.sort();
    assert_eq!(left, want, "every other job was acked");
    // An idle consumer is woken by an enqueue.
    let mut idle = {
        let mut cmd = qctl_process(server);
        cmd.args(["--user", user, "consume", "mail", "--max-jobs", "1"])
            .args(FAST)
            .args(["--", "true"])
            .env("QCTL_REDIS_PASSWORD", PW);
        Background::spawn(cmd)
    };
    assert!(wait_until(Duration::from_secs(10), || server
        .key_type("mail:consumers")
        == "zset"));
    std::thread::sleep(Duration::from_millis(300));
    expect(run().args(["enqueue", "mail", "--id", "wake", "w"]), 0);
    let status = idle.wait_timeout(Duration::from_secs(10));
    assert_eq!(
        status.and_then(|s| s.code()),
        Some(0),
        "the idle consumer ran the new job: {}",
        idle.stderr()
    );
    assert!(!idle.stderr().contains(PW));
    assert!(!idle.stderr().contains("NOPERM"), "{}", idle.stderr());
    assert_eq!(server.hget_bytes("mail:data", "wake"), None);
    let s = stats_of(server, user, "mail");
    assert_eq!(s["done"], 8, "{s}");
    assert_eq!(s["dead"], 2, "{s}");
    // Wait: nothing is left to run; `wake` was acked by a qctl consumer, `fail` died.
    let (out, _) = expect(run().args(["wait", "mail", "--json"]), 0);
    assert_eq!(json(&out)["result"], "done", "{out}");
    let (out, _) = expect(
        run().args([
            "wait",
            "mail",
            "wake",
            &fail_id,
            "--json",
            "--timeout",
            "10s",
        ]),
        7,
    );
    let waited = json(&out);
    assert_eq!(
        (&waited["done"], &waited["died"]),
        (&1.into(), &1.into()),
        "{out}"
    );

    // Dead jobs.
    let (out, _) = expect(run().args(["dead", "list", "mail", "--json"]), 0);
    let list = json(&out);
    assert_eq!(list.as_array().map(Vec::len), Some(2), "{out}");
    let (out, _) = expect(run().args(["dead", "show", "mail", &fail_id]), 0);
    assert!(out.contains("exit 1"), "{out}");
    let (out, _) = expect(run().args(["dead", "show", "mail", &fail_id, "--raw"]), 0);
    assert_eq!(out, "fail");
    let (out, _) = expect(run().args(["dead", "export", "mail"]), 0);
    assert_eq!(out.lines().count(), 2, "{out}");
    let (out, _) = expect(
        run().args(["tail", "mail", "--since", "1h", "--no-follow", "--failures"]),
        0,
    );
    assert!(out.contains(&format!("retry {fail_id}")), "{out}");
    assert!(out.contains(&format!("dead {fail_id}")), "{out}");
    let (out, _) = expect(run().args(["dead", "groups", "mail", "--json"]), 0);
    let groups = json(&out);
    assert_eq!(groups["jobs"], 2, "{out}");
    assert_eq!(groups["groups_found"], 2, "{out}");
    let (out, _) = expect(
        run().args(["dead", "list", "mail", "--reason", "EXIT 1", "--json"]),
        0,
    );
    assert_eq!(json(&out).as_array().map(Vec::len), Some(1), "{out}");
    let damaged = groups["groups"]
        .as_array()
        .and_then(|g| g.iter().find(|g| g["sample"] == "dmg"))
        .and_then(|g| g["fingerprint"].as_str())
        .unwrap_or_else(|| panic!("no group of the damaged job: {out}"))
        .to_string();
    let (out, _) = expect(
        run().args(["dead", "export", "mail", "--group", &damaged]),
        0,
    );
    assert_eq!(out.lines().count(), 1, "{out}");
    expect(
        run().args(["dead", "requeue", "mail", &fail_id, "--yes"]),
        0,
    );
    assert_eq!(server.lrange("mail:active"), vec![fail_id.clone()]);
    expect(run().args(["dead", "delete", "mail", "dmg", "--yes"]), 0);
    assert_eq!(server.key_type("mail:dead"), "none");

    // Purge: the record of changes stays, with the purge in it.
    let (_, err) = expect(run().args(["purge", "mail", "--yes"]), 0);
    assert!(!err.contains("recording it in"), "{err}");
    assert_eq!(
        keys(server, "mail:*"),
        ["mail:changes", "mail:moved:changes"].map(String::from)
    );
    // Every change was recorded.
    let (out, err) = expect(run().args(["changes", "mail", "--limit", "0", "--json"]), 0);
    assert!(!err.contains("recording it in"), "{err}");
    let actions: Vec<String> = json(&out)
        .as_array()
        .map(|a| {
            a.iter()
                .map(|e| e["action"].as_str().unwrap_or("").to_string())
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(
        actions,
        [
            "orphans",
            "scheduled run-now",
            "scheduled delete",
            "active delete",
            "pause",
            "resume",
            // The first import skipped every job, so changed nothing.
            "import",
            "move out",
            "move in",
            "limit",
            "limit",
            "dead requeue",
            "dead delete",
            "purge"
        ],
        "{out}"
    );

    // Steer a running consumer: cancel its job, quiet it (found by its id on every queue),
    // stop it.
    expect(run().args(["enqueue", "mail", "--id", "long", "l"]), 0);
    let mut cmd = qctl_process(server);
    cmd.args(["--user", user, "consume", "mail", "-c", "1"])
        .args(["--poll-interval", "200ms", "--shutdown-grace", "1s"])
        .args(["--", "sleep", "3600"])
        .env("QCTL_REDIS_PASSWORD", PW);
    let mut consumer = Background::spawn(cmd);
    let running = wait_until(Duration::from_secs(20), || {
        keys(server, "mail:inflight:*")
            .iter()
            .any(|k| server.smembers(k).contains(&"long".to_string()))
    });
    assert!(running, "the consumer did not start: {}", consumer.stderr());
    let (out, _) = expect(run().args(["cancel", "mail", "long", "--yes"]), 0);
    assert!(out.contains("long: cancelled"), "{out}");
    let (out, _) = expect(run().args(["consumers", "mail", "--json"]), 0);
    let key = json(&out)[0]["consumer"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let id = key.rsplit(':').next().unwrap_or_default()[..8].to_string();
    expect(run().args(["consumers", "quiet", &id, "--yes"]), 0);
    expect(
        run().args(["consumers", "stop", &id, "--queue", "mail", "--yes"]),
        0,
    );
    let status = consumer.wait_timeout(Duration::from_secs(20));
    assert_eq!(
        status.and_then(|s| s.code()),
        Some(0),
        "{}",
        consumer.stderr()
    );
}

#[test]
fn the_readme_recipe_runs_the_whole_workload() {
    let (user, rules) = support::acl_recipe();
    assert!(
        rules.contains(&"~mail:*".to_string()),
        "the recipe is for the queue mail: {rules:?}"
    );
    let server = RedisServer::start();
    set_user(&server, &user, "mail", &[]);
    workload(&server, &user);
}

/// Keeps the recipe minimal: for each of its commands the workload runs under the recipe
/// without it, and must fail. `target/tmp/acl-needed.txt` gets each command with the first
/// failure its absence caused.
#[test]
fn every_command_of_the_recipe_is_needed() {
    let commands = recipe_commands();
    let results = std::sync::Mutex::new(Vec::new());
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let Some(cmd) = commands.get(i) else { break };
                let outcome = std::thread::scope(|inner| {
                    inner
                        .spawn(|| {
                            let server = RedisServer::start();
                            set_user(&server, "w", "mail", &[cmd.as_str()]);
                            workload(&server, "w");
                        })
                        .join()
                });
                let why = match outcome {
                    Ok(()) => "NOT NEEDED: the workload passed without it".to_string(),
                    Err(e) => e
                        .downcast_ref::<String>()
                        .cloned()
                        .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_default(),
                };
                results.lock().unwrap().push((cmd.clone(), why));
            });
        }
    });
    let results = results.into_inner().unwrap();
    let mut report = std::fs::File::create(concat!(env!("CARGO_TARGET_TMPDIR"), "/acl-needed.txt"))
        .expect("report file");
    for (cmd, why) in &results {
        writeln!(report, "=== -{cmd}\n{why}\n").unwrap();
    }
    let unneeded: Vec<&String> = results
        .iter()
        .filter(|(_, why)| why.starts_with("NOT NEEDED"))
        .map(|(c, _)| c)
        .collect();
    assert!(unneeded.is_empty(), "not needed: {unneeded:?}");
}

/// `stderr` contains every one of `words`, ignoring case.
fn names_all(stderr: &str, words: &[&str]) -> bool {
    let lower = stderr.to_lowercase();
    words.iter().all(|w| lower.contains(&w.to_lowercase()))
}

#[test]
fn a_missing_right_is_exit_4_naming_the_command_and_the_key() {
    let server = RedisServer::start();
    qctl(&server)
        .args(["enqueue", "mail", "--id", "j", "x"])
        .assert()
        .success();
    // Enqueueing without --id: HSET then the push_new script in one MULTI/EXEC; with --id:
    // the push script by EVALSHA.
    let cases: [(&str, &[&str], &[&str]); 12] = [
        // Inside a script: Redis 7.0 names neither the command nor the key.
        (
            "lpush",
            &["enqueue", "mail", "x"],
            &["LPUSH", "mail:signal"],
        ),
        (
            "rpush",
            &["enqueue", "mail", "x"],
            &["RPUSH", "mail:active"],
        ),
        (
            "lpush",
            &["enqueue", "mail", "--id", "k", "x"],
            &["LPUSH", "mail:signal"],
        ),
        (
            "rpush",
            &["enqueue", "mail", "--id", "k", "x"],
            &["RPUSH", "mail:active"],
        ),
        // lib.lua's key-type check, the first command of every script.
        ("type", &["enqueue", "mail", "x"], &["TYPE", "mail:data"]),
        (
            "evalsha",
            &["enqueue", "mail", "--id", "k", "x"],
            &["EVALSHA", "mail:data"],
        ),
        (
            "evalsha",
            &["enqueue", "mail", "x"],
            &["EVALSHA", "mail:data"],
        ),
        ("multi", &["enqueue", "mail", "x"], &["MULTI"]),
        ("exec", &["enqueue", "mail", "x"], &["EXEC"]),
        // Plain commands.
        (
            "hexists",
            &["enqueue", "mail", "--id", "j", "x"],
            &["HEXISTS", "mail:data"],
        ),
        ("zcard", &["stats", "mail"], &["ZCARD", "mail:scheduled"]),
        ("set", &["pause", "mail"], &["SET", "mail:paused"]),
    ];
    // A refusal leaves the queue as it was; a wake-up flag raised before one is harmless.
    let state = |server: &RedisServer| {
        let mut all = server.dump_all();
        all.retain(|(key, _, _)| key != "mail:signal");
        all
    };
    let before = state(&server);
    for (i, (without, args, words)) in cases.into_iter().enumerate() {
        let user = format!("u{i}");
        set_user(&server, &user, "mail", &[without]);
        let (_, err) = expect(as_user(&server, &user).args(args), 4);
        assert!(err.contains("NOPERM"), "-{without}: {err}");
        assert!(names_all(&err, words), "-{without}: {words:?} in {err}");
        assert_eq!(
            state(&server),
            before,
            "-{without} {args:?} changed the queue"
        );
    }
    // Every right, but not to the queue's keys.
    set_user(&server, "elsewhere", "other", &[]);
    let (_, err) = expect(
        as_user(&server, "elsewhere").args(["enqueue", "mail", "x"]),
        4,
    );
    assert!(
        names_all(&err, &["NOPERM", "EVALSHA", "mail:data"]),
        "{err}"
    );
    let (_, err) = expect(
        as_user(&server, "elsewhere").args(["dead", "list", "mail"]),
        4,
    );
    assert!(names_all(&err, &["NOPERM", "mail:dead"]), "{err}");
}

#[test]
fn a_consumer_missing_a_right_stops_at_once_with_exit_4_naming_it() {
    let cases: [(&str, bool, &[&str]); 3] = [
        // The last command of the ack script: checked at start, before any job runs.
        ("hincrby", true, &["HINCRBY", "mail:stats"]),
        // The reserve script.
        ("sadd", true, &["SADD", "mail:inflight:"]),
        // An idle consumer waiting on the signal list.
        ("brpoplpush", false, &["BRPOPLPUSH", "mail:signal"]),
    ];
    for (without, with_job, words) in cases {
        let server = RedisServer::start();
        if with_job {
            qctl(&server)
                .args(["enqueue", "mail", "--id", "j", "x"])
                .assert()
                .success();
        }
        set_user(&server, "w", "mail", &[without]);
        let mut cmd = qctl_process(&server);
        cmd.args(["--user", "w", "consume", "mail"])
            .args(FAST)
            .args(["--", "true"])
            .env("QCTL_REDIS_PASSWORD", PW);
        let started = std::time::Instant::now();
        let mut consumer = Background::spawn(cmd);
        let status = consumer.wait_timeout(Duration::from_secs(10));
        let err = consumer.stderr();
        assert_eq!(status.and_then(|s| s.code()), Some(4), "-{without}: {err}");
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "-{without}: exit after {:?}: {err}",
            started.elapsed()
        );
        assert!(!err.contains("retrying"), "-{without} was retried: {err}");
        assert!(
            names_all(&err, &["NOPERM"]) && names_all(&err, words),
            "-{without}: {words:?} in {err}"
        );
        assert!(!err.contains(PW));
    }
}

#[test]
fn the_password_comes_from_the_environment_or_a_file_and_is_never_printed() {
    let server = RedisServer::start();
    set_user(&server, "worker", "mail", &[]);
    let dir = tempfile::tempdir().unwrap();
    let file = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path
    };
    let plain = qctl;
    // $QCTL_REDIS_PASSWORD, --user.
    expect(
        plain(&server)
            .args(["--user", "worker", "enqueue", "mail", "--id", "env", "x"])
            .env("QCTL_REDIS_PASSWORD", PW),
        0,
    );
    // --password-file: the first line, its newline and any further lines ignored.
    for (n, text) in [
        format!("{PW}\n"),
        PW.to_string(),
        format!("{PW}\r\nnot the password\n"),
    ]
    .iter()
    .enumerate()
    {
        let path = file(&format!("pw{n}"), text);
        expect(
            plain(&server)
                .args(["--user", "worker", "--password-file"])
                .arg(&path)
                .args(["enqueue", "mail", "--id", &format!("file{n}"), "x"]),
            0,
        );
    }
    // $QCTL_REDIS_PASSWORD_FILE and $QCTL_REDIS_USER; the file wins over the variable.
    expect(
        plain(&server)
            .args(["enqueue", "mail", "--id", "envfile", "x"])
            .env("QCTL_REDIS_USER", "worker")
            .env(
                "QCTL_REDIS_PASSWORD_FILE",
                file("pw-env", &format!("{PW}\n")),
            )
            .env("QCTL_REDIS_PASSWORD", "not-it"),
        0,
    );
    let mut ids: Vec<String> = server.cmd(&[b"HKEYS", b"mail:data"]);
    ids.sort();
    assert_eq!(ids, ["env", "envfile", "file0", "file1", "file2"]);

    // A wrong password: exit 4, "authentication failed", the password nowhere.
    let wrong = "Wrong-pw-3Kd9";
    let wrong_file = file("wrong", &format!("{wrong}\n"));
    let before = server.dump_all();
    let commands: [&[&str]; 5] = [
        &["stats"],
        &["stats", "mail"],
        &["enqueue", "mail", "x"],
        &["dead", "list", "mail"],
        &["consume", "mail", "--drain", "--", "true"],
    ];
    for args in commands {
        for by_file in [false, true] {
            let mut cmd = plain(&server);
            cmd.args(["-v", "-v", "--user", "worker"]);
            if by_file {
                cmd.arg("--password-file").arg(&wrong_file);
            } else {
                cmd.env("QCTL_REDIS_PASSWORD", wrong);
            }
            let (out, err) = expect(cmd.args(args), 4);
            assert!(err.contains("authentication failed"), "{args:?}: {err}");
            assert!(
                !out.contains(wrong) && !err.contains(wrong),
                "{args:?}: the password was printed: {out}{err}"
            );
        }
    }
    assert_eq!(server.dump_all(), before, "a refused login changes nothing");
}

#[test]
fn a_handler_never_sees_the_password_or_the_url() {
    let server = RedisServer::start();
    set_user(&server, "worker", "mail", &[]);
    qctl(&server)
        .args(["enqueue", "mail", "--id", "j", "x"])
        .assert()
        .success();
    let dir = tempfile::tempdir().unwrap();
    let pw_file = dir.path().join("pw");
    std::fs::write(&pw_file, format!("{PW}\n")).unwrap();
    let env_file = dir.path().join("env.txt");
    let out = assert_cmd::Command::cargo_bin("qctl")
        .unwrap()
        .env("NO_COLOR", "1")
        .env("QCTL_REDIS_URL", server.url())
        .env("REDIS_URL", server.url())
        .env("QCTL_REDIS_USER", "worker")
        .env("QCTL_REDIS_PASSWORD_FILE", &pw_file)
        .env("QCTL_REDIS_PASSWORD", PW)
        .env("QCTL_TEST_KEPT", "kept")
        .args(["-v", "consume", "mail", "--drain"])
        .args(FAST)
        .args(["--", "sh", "-c", "env > \"$1\"", "sh"])
        .arg(&env_file)
        .output()
        .unwrap();
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(!stdout.contains(PW) && !stderr.contains(PW));
    let env = std::fs::read_to_string(&env_file).expect("the handler wrote its environment");
    assert!(env.contains("QCTL_JOB_ID=j\n"), "{env}");
    assert!(env.contains("QCTL_TEST_KEPT=kept\n"), "{env}");
    for name in [
        "QCTL_REDIS_URL",
        "REDIS_URL",
        "QCTL_REDIS_PASSWORD",
        "QCTL_REDIS_PASSWORD_FILE",
    ] {
        assert!(
            !env.lines().any(|l| l.starts_with(&format!("{name}="))),
            "{name} reached the handler:\n{env}"
        );
    }
    assert!(!env.contains(PW), "the password reached the handler");
    assert!(
        !env.contains(&pw_file.display().to_string()),
        "the password file's name reached the handler"
    );
}

#[test]
fn stats_passes_over_queues_the_user_may_not_read_with_one_note() {
    let server = RedisServer::start();
    for queue in ["mail", "other", "other:eu"] {
        qctl(&server)
            .args(["enqueue", queue, "--id", "j", "x"])
            .assert()
            .success();
        qctl(&server)
            .args(["enqueue", queue, "--id", "later", "--in", "1h", "x"])
            .assert()
            .success();
    }
    set_user(&server, "worker", "mail", &[]);
    let (out, err) = expect(as_user(&server, "worker").arg("stats"), 0);
    assert!(out.contains("mail"), "{out}");
    assert!(!out.contains("other"), "{out}");
    let notes: Vec<&str> = err.lines().filter(|l| l.contains("skipped")).collect();
    assert_eq!(notes.len(), 1, "{err}");
    assert!(notes[0].contains("skipped 2 queues whose keys"), "{err}");
    assert!(notes[0].contains("may not read"), "{err}");
    let lower = err.to_lowercase();
    assert!(
        !lower.contains("wrongtype") && !lower.contains("wrong type"),
        "{err}"
    );

    let (out, err) = expect(as_user(&server, "worker").args(["stats", "--json"]), 0);
    let rows = json(&out);
    assert_eq!(rows.as_array().map(Vec::len), Some(1), "{out}");
    assert_eq!(rows[0]["queue"], "mail");
    assert_eq!(rows[0]["active"], 1);
    assert_eq!(rows[0]["scheduled_later"], 1);
    assert_eq!(
        err.lines().filter(|l| l.contains("skipped")).count(),
        1,
        "{err}"
    );

    // A queue asked for by name is an error.
    let (_, err) = expect(as_user(&server, "worker").args(["stats", "other"]), 4);
    assert!(names_all(&err, &["NOPERM", "other:"]), "{err}");
}

/// No `+client|setinfo` in the recipe: qctl never sends CLIENT SETINFO, which Redis 7.2+ and
/// Valkey refuse to a user without that right (redis-rs sends it unless told not to). Redis
/// 7.0 has no such subcommand and refuses it to everyone, quietly: so this checks that qctl
/// gets no error reply at all.
#[test]
fn qctl_sends_no_client_setinfo() {
    let server = RedisServer::start();
    set_user(&server, "worker", "mail", &[]);
    let mut admin = server.conn();
    // Error replies by code; NOSCRIPT (before a script is loaded) is expected.
    let errors = |admin: &mut redis::Connection| -> Vec<String> {
        let info: String = redis::cmd("INFO").arg("errorstats").query(admin).unwrap();
        info.lines()
            .filter(|l| l.starts_with("errorstat_") && !l.starts_with("errorstat_NOSCRIPT"))
            .map(str::to_string)
            .collect()
    };
    let before = errors(&mut admin);
    expect(as_user(&server, "worker").args(["enqueue", "mail", "x"]), 0);
    expect(as_user(&server, "worker").arg("stats"), 0);
    expect(
        as_user(&server, "worker")
            .args(["consume", "mail", "--drain"])
            .args(FAST)
            .args(["--", "true"]),
        0,
    );
    assert_eq!(
        errors(&mut admin),
        before,
        "qctl got an error reply (redis-rs's own connections, made by the test, get one for \
         each CLIENT SETINFO they send)"
    );
}

/// A job record as qctl writes it.
fn record(id: &str, data: &str) -> Vec<u8> {
    qctl::engine::Job::new(id, Some(data.as_bytes().to_vec())).encode()
}

/// Ready jobs in `mail:active`.
fn ready(server: &RedisServer, jobs: &[(&str, &str)]) {
    for (id, data) in jobs {
        let _: () = server.cmd(&[b"HSET", b"mail:data", id.as_bytes(), &record(id, data)]);
        let _: () = server.cmd(&[b"RPUSH", b"mail:active", id.as_bytes()]);
    }
}

/// A job in the sorted set `key` (`mail:scheduled`, `mail:dead`) with this score.
fn in_zset(server: &RedisServer, key: &str, id: &str, score: f64) {
    let _: () = server.cmd(&[b"HSET", b"mail:data", id.as_bytes(), &record(id, "z")]);
    let _: () = server.cmd(&[
        b"ZADD",
        key.as_bytes(),
        score.to_string().as_bytes(),
        id.as_bytes(),
    ]);
}

/// A consumer that holds job `id` and last beat `age` seconds ago.
fn orphan(server: &RedisServer, id: &str, age: f64) {
    let key = "mail:inflight:0b7d3e2a-1c4f-4d5e-9f00-aabbccddeeff";
    let _: () = server.cmd(&[b"HSET", b"mail:data", id.as_bytes(), &record(id, "ok")]);
    let _: () = server.cmd(&[b"SADD", key.as_bytes(), id.as_bytes()]);
    let beat = qctl::engine::now() - age;
    let _: () = server.cmd(&[
        b"ZADD",
        b"mail:consumers",
        beat.to_string().as_bytes(),
        key.as_bytes(),
    ]);
}

/// One thing qctl does to the queue `mail`: the scene the admin sets before it, and how it
/// runs.
struct Operation {
    name: &'static str,
    scene: fn(&RedisServer),
    args: Vec<&'static str>,
    stdin: Option<&'static str>,
    /// The exit code with every right of the recipe.
    code: i32,
    how: How,
}

/// How an operation runs.
#[derive(Clone, Copy)]
enum How {
    /// To its end.
    Foreground,
    /// A consumer in the background that ends by itself.
    Background,
    /// A consumer in the background, stopped (SIGTERM) once this holds.
    StoppedWhen(fn(&RedisServer) -> bool),
}

fn operations() -> Vec<Operation> {
    let consume = |more: &[&'static str]| -> Vec<&'static str> {
        let mut args = vec!["consume", "mail"];
        args.extend_from_slice(FAST);
        args.extend_from_slice(more);
        args
    };
    let one = |server: &RedisServer| ready(server, &[("r1", "x")]);
    let op = |name, scene, args: &[&'static str], code| Operation {
        name,
        scene,
        args: args.to_vec(),
        stdin: None,
        code,
        how: How::Foreground,
    };
    vec![
        Operation {
            stdin: Some("a\nb\n"),
            ..op("enqueue --lines", one, &["enqueue", "mail", "--lines"], 0)
        },
        op(
            "enqueue --id",
            one,
            &["enqueue", "mail", "--id", "k", "x"],
            0,
        ),
        op(
            "enqueue --in",
            one,
            &["enqueue", "mail", "--id", "s", "--in", "1h", "x"],
            0,
        ),
        op(
            "dead requeue",
            |s| in_zset(s, "mail:dead", "d1", 1000.0),
            &["dead", "requeue", "mail", "--all", "--yes"],
            0,
        ),
        op(
            "dead delete",
            |s| in_zset(s, "mail:dead", "d1", 1000.0),
            &["dead", "delete", "mail", "d1", "--yes"],
            0,
        ),
        op(
            "scheduled run-now",
            |s| in_zset(s, "mail:scheduled", "s1", qctl::engine::now() + 3600.0),
            &["scheduled", "run-now", "mail", "s1", "--yes"],
            0,
        ),
        op(
            "scheduled delete",
            |s| in_zset(s, "mail:scheduled", "s1", qctl::engine::now() + 3600.0),
            &["scheduled", "delete", "mail", "s1", "--yes"],
            0,
        ),
        op(
            "active delete",
            |s| ready(s, &[("r1", "x"), ("r2", "y")]),
            &["active", "delete", "mail", "r1", "--yes"],
            0,
        ),
        op(
            "orphans",
            |s| orphan(s, "o1", 600.0),
            &["orphans", "mail", "--yes"],
            0,
        ),
        op(
            "purge",
            |s| {
                ready(s, &[("r1", "x")]);
                in_zset(s, "mail:dead", "d1", 1000.0);
                in_zset(s, "mail:scheduled", "s1", qctl::engine::now() + 3600.0);
                orphan(s, "o1", 600.0);
            },
            &["purge", "mail", "--yes"],
            0,
        ),
        // Reserve, ack, retry, kill (out of retries, and a damaged record), promote, orphan
        // recovery, register, heartbeat, deregister.
        op(
            "consume --drain",
            |s| {
                ready(s, &[("ok1", "ok"), ("f1", "fail")]);
                let _: () = s.cmd(&[b"HSET", b"mail:data", b"dmg", b"not msgpack"]);
                let _: () = s.cmd(&[b"RPUSH", b"mail:active", b"dmg"]);
                in_zset(s, "mail:scheduled", "due", 1.0);
                orphan(s, "o1", 600.0);
            },
            &consume(&[
                "--drain",
                "-c",
                "2",
                "--max-retries",
                "1",
                "--",
                "sh",
                "-c",
                "test \"$(cat)\" != fail",
            ]),
            7,
        ),
        // Stopped while it holds jobs: they go back.
        Operation {
            how: How::StoppedWhen(|s| {
                // KEYS, which qctl never sends, so that the commands counted are qctl's.
                !s.cmd::<Vec<String>>(&[b"KEYS", b"mail:inflight:*"])
                    .is_empty()
            }),
            ..op(
                "consume, stopped",
                |s| ready(s, &[("r1", "x"), ("r2", "x"), ("r3", "x")]),
                &consume(&[
                    "-c",
                    "1",
                    "--buffer",
                    "1",
                    "--shutdown-grace",
                    "100ms",
                    "--",
                    "sleep",
                    "30",
                ]),
                0,
            )
        },
        // Idle on the wake-up list until the job of a consumer that stops beating is
        // recovered.
        Operation {
            how: How::Background,
            ..op(
                "consume, idle",
                |s| orphan(s, "o1", 1.5),
                &consume(&["--max-jobs", "1", "--", "true"]),
                0,
            )
        },
    ]
}

/// Runs `op` as `user`: its exit code and stderr.
fn run_as(server: &RedisServer, user: &str, op: &Operation) -> (Option<i32>, String) {
    if let How::Foreground = op.how {
        let mut cmd = as_user(server, user);
        cmd.args(&op.args);
        if let Some(input) = op.stdin {
            cmd.write_stdin(input);
        }
        let out = cmd.output().expect("run qctl");
        return (out.status.code(), text(&out).1);
    }
    let mut cmd = qctl_process(server);
    cmd.args(["-v", "--user", user])
        .args(&op.args)
        .env("QCTL_REDIS_PASSWORD", PW);
    let mut consumer = Background::spawn(cmd);
    if let How::StoppedWhen(ready) = op.how {
        let pid = consumer.pid();
        wait_until(Duration::from_secs(10), || {
            !support::running(pid) || ready(server)
        });
        consumer.stop(Duration::from_secs(10));
    }
    let status = consumer.wait_timeout(Duration::from_secs(20));
    (status.and_then(|s| s.code()), consumer.stderr())
}

/// The recipe's commands Redis ran since the last CONFIG RESETSTAT (scripts' own included).
fn commands_run(server: &RedisServer) -> Vec<String> {
    let recipe = recipe_commands();
    let info: String = server.cmd(&[b"INFO", b"commandstats"]);
    let mut run: Vec<String> = info
        .lines()
        .filter_map(|l| l.strip_prefix("cmdstat_")?.split_once(':'))
        // Redis 6.2 counts SCRIPT LOAD as "script".
        .map(|(name, _)| match name {
            "script" => "script|load".to_string(),
            name => name.to_string(),
        })
        .filter(|name| recipe.contains(name))
        .collect();
    run.sort();
    run.dedup();
    run
}

/// Everything but the wake-up flag, which a refused run may raise (a harmless wake-up).
fn queue_state(server: &RedisServer) -> Vec<(String, String, String)> {
    let mut all = server.dump_all();
    all.retain(|(key, _, _)| key != "mail:signal");
    all
}

/// Issue point 4: for each command each operation makes Redis run (counted by Redis itself,
/// scripts included), the operation runs as a user denied exactly that command. It must stop
/// with exit 4 naming the command, and leave the queue as it was: no id without its record,
/// no record without its id, nothing changed at all. `target/tmp/acl-refusals.txt` gets the
/// outcome of each case.
#[test]
fn an_operation_refused_any_command_it_runs_changes_nothing_and_names_it() {
    let operations = operations();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let report = std::sync::Mutex::new(Vec::new());
    let failed = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let Some(op) = operations.get(i) else { break };
                let server = RedisServer::start();
                let fresh = |server: &RedisServer| {
                    let _: () = server.cmd(&[b"FLUSHALL"]);
                    let _: () = server.cmd(&[b"SCRIPT", b"FLUSH"]);
                    (op.scene)(server);
                };
                // With every right: what it runs.
                fresh(&server);
                set_user(&server, "w", "mail", &[]);
                let _: () = server.cmd(&[b"CONFIG", b"RESETSTAT"]);
                let (code, err) = run_as(&server, "w", op);
                assert_eq!(code, Some(op.code), "{}: {err}", op.name);
                let used = commands_run(&server);
                assert!(used.len() > 2, "{}: {used:?}", op.name);
                assert_eq!(support::invariants(&server, "mail"), Vec::<String>::new());
                for command in &used {
                    fresh(&server);
                    let before = queue_state(&server);
                    set_user(&server, "w", "mail", &[command.as_str()]);
                    let (code, err) = run_as(&server, "w", op);
                    let case = format!("{} without {command}", op.name);
                    let mut wrong = Vec::new();
                    if code != Some(4) {
                        wrong.push(format!("exit {code:?}"));
                    }
                    if !names_all(&err, &[&command.replace('|', " ")]) {
                        wrong.push("the command is not named".to_string());
                    }
                    assert!(!err.contains(PW));
                    wrong.extend(support::invariants(&server, "mail"));
                    if queue_state(&server) != before {
                        wrong.push("the queue changed".to_string());
                    }
                    let message = err.lines().last().unwrap_or_default().trim().to_string();
                    if wrong.is_empty() {
                        report.lock().unwrap().push(format!("{case}: {message}"));
                    } else {
                        let wrong = wrong.join("; ");
                        report
                            .lock()
                            .unwrap()
                            .push(format!("{case}: FAILED: {wrong}: {message}"));
                        failed
                            .lock()
                            .unwrap()
                            .push(format!("{case}: {wrong}\n{err}"));
                    }
                }
            });
        }
    });
    let mut report = report.into_inner().unwrap();
    report.sort();
    let mut file = std::fs::File::create(concat!(env!("CARGO_TARGET_TMPDIR"), "/acl-refusals.txt"))
        .expect("report file");
    for line in &report {
        writeln!(file, "{line}").unwrap();
    }
    let failed = failed.into_inner().unwrap();
    assert!(
        failed.is_empty(),
        "{} of {} cases failed:\n{}",
        failed.len(),
        report.len(),
        failed.join("\n")
    );
    assert!(report.len() > 100, "{} cases", report.len());
}

/// `find` needs nothing beyond the recipe: it runs under it in every place, and as a user
/// denied any one command it makes Redis run (its script's own included), it stops with exit 4
/// naming that command and changes nothing.
#[test]
fn find_runs_under_the_recipe_and_names_each_command_it_is_denied() {
    let server = RedisServer::start();
    let scene = |server: &RedisServer| {
        let _: () = server.cmd(&[b"FLUSHALL"]);
        let _: () = server.cmd(&[b"SCRIPT", b"FLUSH"]);
        ready(server, &[("r1", "needle ready"), ("r2", "other")]);
        in_zset(server, "mail:dead", "d1", 1_700_000_000.0);
        let _: () = server.cmd(&[b"HSET", b"mail:data", b"d1", &record("d1", "needle dead")]);
        in_zset(server, "mail:scheduled", "s1", 4_000_000_000.0);
        let _: () = server.cmd(&[
            b"HSET",
            b"mail:failures",
            b"s1",
            br#"{"reason":"exit 3","stderr":"needle in stderr\n"}"#,
        ]);
        support::hold_in_flight(server, "mail");
    };
    scene(&server);
    set_user(&server, "finder", "mail", &[]);
    let _: () = server.cmd(&[b"CONFIG", b"RESETSTAT"]);
    let args = ["find", "mail", "needle", "--jsonl"];
    let (stdout, _) = expect(as_user(&server, "finder").args(args), 0);
    let found: Vec<&str> = stdout.lines().collect();
    assert_eq!(found.len(), 3, "{stdout}");
    let used = commands_run(&server);
    assert!(used.contains(&"evalsha".to_string()), "{used:?}");
    for command in &used {
        scene(&server);
        let before = queue_state(&server);
        let user = format!("finder-{}", command.replace('|', "-"));
        set_user(&server, &user, "mail", &[command.as_str()]);
        let (_, err) = expect(as_user(&server, &user).args(args), 4);
        assert!(
            names_all(&err, &["NOPERM", &command.replace('|', " ")]),
            "-{command}: {err}"
        );
        assert_eq!(queue_state(&server), before, "-{command}");
    }
}

/// Where the word NOPERM or "no permission" is in `body`, with what follows it.
fn refusals(body: &str) -> Vec<String> {
    let lower = body.to_lowercase();
    ["noperm", "no permission"]
        .iter()
        .flat_map(|word| {
            lower
                .match_indices(word)
                .map(|(i, _)| i)
                .collect::<Vec<_>>()
        })
        .map(|i| lower[i..].chars().take(90).collect())
        .collect()
}

/// `qctl web` as the recipe's user, against a queue with jobs in every state (ready, scheduled,
/// in flight at a live consumer beside an expired one, dead with the failure record a qctl
/// consumer wrote, done in its history), set up by the default user: every page, its JSON twin, the job's page and download
/// and the Health page answer 200, and none says NOPERM but the Health page's two findings
/// that `qctl doctor` makes under the recipe, which say what it leaves unknown without INFO and
/// HSCAN (docs/monitoring.md): the recipe gives the web what it needs to show everything else.
#[test]
fn web_serves_every_page_as_the_recipes_user() {
    let (user, _) = support::acl_recipe();
    let server = RedisServer::start();
    set_user(&server, &user, "mail", &[]);
    // The scene is set with every right (the default user), so that only the web runs as the
    // recipe's user.
    let run = || {
        let mut cmd = qctl(&server);
        cmd.env_remove("QCTL_REDIS_USER")
            .env_remove("QCTL_REDIS_PASSWORD")
            .env_remove("QCTL_REDIS_PASSWORD_FILE");
        cmd
    };
    expect(run().args(["enqueue", "mail", "--id", "sent", "to ann"]), 0);
    expect(
        run().args(["enqueue", "mail", "--id", "broken", "to bob"]),
        0,
    );
    expect(
        run().args(["enqueue", "mail", "--id", "later", "--in", "1h", "x"]),
        0,
    );
    let handler = "read -r d; case $d in *bob*) echo 'smtp 550: no such user' >&2; exit 3;; esac";
    expect(
        run().args([
            "consume",
            "mail",
            "--drain",
            "--max-retries",
            "0",
            "--",
            "sh",
            "-c",
            handler,
        ]),
        7,
    );
    expect(run().args(["enqueue", "mail", "--id", "r1", "one"]), 0);
    expect(run().args(["enqueue", "mail", "--id", "r2", "two"]), 0);
    support::hold_in_flight(&server, "mail");

    let mut cmd = qctl_process(&server);
    cmd.args(["--user", &user, "web", "--listen", "127.0.0.1:0"])
        .env("QCTL_REDIS_PASSWORD", PW)
        .env_remove("QCTL_REDIS_PASSWORD_FILE")
        .env_remove("QCTL_REDIS_USER");
    let web = support::web::Web::spawn(cmd);

    let overview = web.get("/api/overview");
    assert_eq!(overview.status, 200, "{}", overview.body);
    let mail = &overview.json()["queues"][0];
    for (field, want) in [
        ("active", 2),
        ("scheduled_later", 1),
        ("in_flight", 1),
        ("dead", 1),
        ("done", 1),
        ("failed", 1),
        ("consumers_alive", 1),
        ("consumers_expired", 1),
    ] {
        assert_eq!(mail[field], want, "{field} of {mail}");
    }
    assert_eq!(overview.json()["status"]["warnings"], serde_json::json!([]));

    let mut pages = vec!["/".to_string(), "/api/overview".to_string()];
    for base in ["/queues/mail", "/api/queues/mail"] {
        pages.push(base.to_string());
        for state in ["ready", "scheduled", "inflight", "dead"] {
            pages.push(format!("{base}/{state}"));
        }
        for state in ["scheduled", "dead"] {
            pages.push(format!("{base}/{state}/groups"));
        }
        for job in ["broken", "later", "r1", "f"] {
            pages.push(format!("{base}/jobs/{job}"));
        }
    }
    pages.push("/queues/mail/jobs/broken/data".to_string());
    for page in &pages {
        let reply = web.get(page);
        assert_eq!(reply.status, 200, "{page}: {}", reply.body);
        assert_eq!(refusals(&reply.body), Vec::<String>::new(), "{page}");
    }
    let queue = web.get("/api/queues/mail").json();
    assert_eq!(queue["errors"], serde_json::json!({}), "{queue}");
    for part in ["stats", "consumers", "inflight", "limits", "events"] {
        assert!(!queue[part].is_null(), "{part} of {queue}");
    }
    let job = web.get("/queues/mail/jobs/broken");
    assert!(job.body.contains("smtp 550: no such user"), "{}", job.body);
    assert_eq!(web.get("/queues/mail/jobs/broken/data").body, "to bob");
    let groups = web.get("/api/queues/mail/dead/groups").json();
    assert_eq!(groups["jobs"], 1, "{groups}");

    for page in ["/health", "/api/health"] {
        let reply = web.get(page);
        assert_eq!(reply.status, 200, "{page}: {}", reply.body);
        let found = refusals(&reply.body);
        assert!(
            found
                .iter()
                .all(|r| r.contains("'info'") || r.contains("'hscan'")),
            "{page} says NOPERM of more than INFO and HSCAN: {found:?}"
        );
        for unknown in ["could not be read", "were not checked"] {
            assert!(reply.body.contains(unknown), "{page}: {}", reply.body);
        }
    }
}

/// A job's page, its JSON and its download that Redis refuses to read (here as the recipe's
/// user without LPOS or HMGET) answer 502 with Redis's words, as the pages of a queue answer a
/// refusal, not 503, which says Redis cannot be reached.
#[test]
fn a_job_page_redis_refuses_is_502_naming_the_command() {
    let (user, _) = support::acl_recipe();
    for (without, command, pages) in [
        (
            "lpos",
            "LPOS",
            ["/queues/mail/jobs/r1", "/api/queues/mail/jobs/r1"].as_slice(),
        ),
        ("hmget", "HMGET", ["/queues/mail/jobs/r1/data"].as_slice()),
    ] {
        let server = RedisServer::start();
        set_user(&server, &user, "mail", &[without]);
        ready(&server, &[("r1", "one")]);
        let mut cmd = qctl_process(&server);
        cmd.args(["--user", &user, "web", "mail", "--listen", "127.0.0.1:0"])
            .env("QCTL_REDIS_PASSWORD", PW)
            .env_remove("QCTL_REDIS_PASSWORD_FILE")
            .env_remove("QCTL_REDIS_USER");
        let web = support::web::Web::spawn(cmd);
        for page in pages {
            let reply = web.get(page);
            assert_eq!(reply.status, 502, "-{without}: {page}: {}", reply.body);
            assert!(
                reply.body.contains(&format!("refused {command}")) && reply.body.contains("NOPERM"),
                "-{without}: {page}: {}",
                reply.body
            );
        }
    }
}
