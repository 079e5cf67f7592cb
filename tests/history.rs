//! The history qctl consumers keep (`NAME:history:<minute>`, the totals in `NAME:stats`)
//! and what reads it: `stats --history`, `stats --prometheus`, against real redis-servers.

mod support;

use qctl::engine::history::{bucket, Tally, BUCKETS};
use serde_json::Value;
use support::{qctl, RedisServer};

/// Enqueues one job per line of `lines`.
fn fill(server: &RedisServer, queue: &str, lines: &str) {
    qctl(server)
        .args(["enqueue", queue, "--lines"])
        .write_stdin(lines.to_string())
        .assert()
        .success();
}

/// `stats QUEUE --history 10m --step 10m --json`, summed over its steps, with the p50 and
/// p95 of the step that holds every run (None when the runs span two steps).
fn history(server: &RedisServer, queue: &str) -> (Tally, Vec<Value>) {
    let out = qctl(server)
        .args(["stats", queue, "--history", "10m", "--step", "1m", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let steps: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    let mut total = Tally::default();
    for s in &steps {
        let n = |f: &str| s[f].as_u64().unwrap();
        total.completed += n("done");
        total.failed += n("failed");
        total.retried += n("retried");
        total.killed += n("dead");
        total.run_ms += n("run_ms");
    }
    (total, steps)
}

/// The run times (ms) a consumer's --json events report for its succeeded jobs.
fn durations(stdout: &[u8]) -> Vec<u64> {
    String::from_utf8_lossy(stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["event"] == "succeeded")
        .map(|e| e["duration_ms"].as_u64().unwrap())
        .collect()
}

/// The exact `q` quantile of `values` (nearest rank).
fn quantile(values: &[u64], q: f64) -> u64 {
    let mut v = values.to_vec();
    v.sort_unstable();
    let rank = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len());
    v[rank - 1]
}

#[test]
fn percentiles_of_known_run_times_are_within_one_bucket_of_the_truth() {
    let server = RedisServer::start();
    // 60 jobs of 10 ms, 30 of 50 ms, 10 of 200 ms: p50 is a 10 ms job, p95 a 200 ms one.
    let mut lines = String::new();
    for (n, secs) in [(60, "0.01"), (30, "0.05"), (10, "0.2")] {
        lines.push_str(&format!("{secs}\n").repeat(n));
    }
    fill(&server, "q", &lines);
    let out = qctl(&server)
        .args([
            "consume",
            "q",
            "--drain",
            "-c",
            "4",
            "--json",
            "--replace",
            "@",
        ])
        .args(["--", "sleep", "@"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let runs = durations(&out.stdout);
    assert_eq!(runs.len(), 100);

    let (total, steps) = history(&server, "q");
    assert_eq!((total.completed, total.failed), (100, 0));
    let sum: u64 = runs.iter().sum();
    assert!(
        total.run_ms.abs_diff(sum) <= 100,
        "{} vs {sum}",
        total.run_ms
    );
    // The runs may straddle a minute: the percentiles of the whole come from the totals
    // (NAME:stats), which `stats --prometheus` exposes as a histogram; the steps' own
    // percentiles are checked where one step holds them all.
    let text = qctl(&server)
        .args(["stats", "q", "--prometheus"])
        .output()
        .unwrap()
        .stdout;
    let text = String::from_utf8(text).unwrap();
    let mut cumulative = Vec::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("qctl_job_run_seconds_bucket{queue=\"q\",le=\"") {
            let (_, count) = rest.split_once("\"} ").unwrap();
            cumulative.push(count.parse::<u64>().unwrap());
        }
    }
    assert_eq!(cumulative.len(), BUCKETS, "{text}");
    assert_eq!(cumulative.last(), Some(&100), "{text}");
    assert!(
        text.contains("qctl_job_run_seconds_count{queue=\"q\"} 100\n"),
        "{text}"
    );
    let mut totals = Tally::default();
    let mut below = 0;
    for (i, c) in cumulative.iter().enumerate() {
        totals.runs[i] = c - below;
        below = *c;
    }
    let mut checked = vec![("totals", totals)];
    if let Some(all) = steps.iter().find(|s| s["done"].as_u64() == Some(100)) {
        let step = |name: &str| all[name].as_f64().unwrap();
        for (q, name) in [(0.5, "p50_ms"), (0.95, "p95_ms")] {
            let truth = quantile(&runs, q);
            let got = step(name);
            assert!(
                bucket(got.ceil() as u64).abs_diff(bucket(truth)) <= 1,
                "{name} {got} vs the true {truth} ms"
            );
        }
    }
    for (what, tally) in checked.drain(..) {
        for q in [0.5, 0.95] {
            let truth = quantile(&runs, q);
            let got = tally.percentile(q).unwrap();
            assert!(
                bucket(got.ceil() as u64).abs_diff(bucket(truth)) <= 1,
                "{what}: p{} {got} vs the true {truth} ms (runs {runs:?})",
                q * 100.0
            );
        }
    }
}

#[test]
fn consumers_add_into_the_same_minutes_which_expire_after_a_week() {
    let server = RedisServer::start();
    // 90 jobs: those whose number ends in 0 fail always (3 runs each with --max-retries 2).
    let lines: String = (1..=90).map(|i| format!("{i}\n")).collect();
    fill(&server, "q", &lines);
    let consumer = |server: &RedisServer| {
        let mut cmd = support::qctl_process(server);
        cmd.args(["consume", "q", "--drain", "-c", "2", "--max-retries", "2"])
            .args(["--max-backoff", "0s", "--replace", "@", "-q"])
            .args(["--", "sh", "-c", "case $1 in *0) exit 3;; esac", "sh", "@"]);
        cmd.stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        cmd.spawn().unwrap()
    };
    let mut a = consumer(&server);
    let mut b = consumer(&server);
    // Both drain: each ends when nothing is left that it could run.
    let (a, b) = (a.wait().unwrap(), b.wait().unwrap());
    assert!(a.code().is_some() && b.code().is_some());
    assert!(support::wait_until(
        std::time::Duration::from_secs(20),
        || { server.cmd::<i64>(&[b"ZCARD", b"q:dead"]) == 9 }
    ));
    let (total, _) = history(&server, "q");
    // 81 done; 9 jobs failed 3 times: 18 retries, 9 kills.
    assert_eq!(
        (total.completed, total.failed, total.retried, total.killed),
        (81, 27, 18, 9),
        "{total:?}"
    );
    let minutes: Vec<String> = server.cmd(&[b"KEYS", b"q:history:*"]);
    assert!(!minutes.is_empty() && minutes.len() <= 2, "{minutes:?}");
    let week_ms = 7 * 24 * 3600 * 1000;
    for key in &minutes {
        let ttl: i64 = server.cmd(&[b"PTTL", key.as_bytes()]);
        assert!(ttl > week_ms - 120_000 && ttl <= week_ms, "{key}: {ttl}");
        let start: i64 = key.rsplit(':').next().unwrap().parse().unwrap();
        assert_eq!(start % 60, 0, "{key}");
    }
    // The totals agree with the minutes.
    let stats: Vec<(String, String)> = server.cmd(&[b"HGETALL", b"q:stats"]);
    let field = |f: &str| stats.iter().find(|(k, _)| k == f).map(|(_, v)| v.clone());
    assert_eq!(field("retried").as_deref(), Some("18"));
    assert_eq!(field("killed").as_deref(), Some("9"));
    // purge takes the history with the queue.
    qctl(&server)
        .args(["purge", "q", "--yes"])
        .assert()
        .success();
    // But for the record of its changes, with the purge in it.
    let left: Vec<String> = server.cmd(&[b"KEYS", b"q:*"]);
    assert_eq!(left, ["q:changes"]);
}

#[test]
fn the_history_table_says_what_it_cannot_know() {
    let server = RedisServer::start();
    // A Go CurlyQ consumer: registered, with an in-flight set, and no description.
    support::hold_in_flight(&server, "q");
    let out = qctl(&server)
        .args(["stats", "q", "--history", "30m"])
        .env("COLUMNS", "80")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stdout.contains("in steps of 2m"), "{stdout}");
    assert_eq!(
        stdout.lines().filter(|l| l.contains(":")).count(),
        16,
        "{stdout}"
    );
    assert!(stdout.lines().all(|l| l.chars().count() <= 80), "{stdout}");
    assert!(
        stderr.contains("no qctl consumer settled a job of q in the last 30m"),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "2 consumers of q keep no history (Go CurlyQ consumers): the jobs they run are not counted here"
        ),
        "{stderr}"
    );
}

#[test]
fn a_damaged_history_is_named_when_read_and_never_stops_a_consumer() {
    let server = RedisServer::start();
    let now = qctl::engine::now();
    let minute = |t: f64| format!("q:history:{}", qctl::engine::history::minute_of(t));
    // This minute and the next hold a string; the one before a count that is no number.
    for t in [now, now + 60.0] {
        let _: () = server.cmd(&[b"SET", minute(t).as_bytes(), b"x"]);
    }
    let before = minute(now - 60.0);
    let _: () = server.cmd(&[b"HSET", before.as_bytes(), b"completed", b"many"]);
    fill(&server, "q", "a\nb\nc\n");
    qctl(&server)
        .args(["consume", "q", "--drain", "-q", "--", "true"])
        .assert()
        .success();
    assert_eq!(server.cmd::<i64>(&[b"HLEN", b"q:data"]), 0);
    let completed: String = server.cmd(&[b"HGET", b"q:stats", b"completed"]);
    assert_eq!(completed, "3");
    let out = qctl(&server)
        .args(["stats", "q", "--history", "5m"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(4), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("{before} field completed holds \"many\"")),
        "{stderr}"
    );
    // A step that is not whole minutes is refused by name.
    qctl(&server)
        .args(["stats", "q", "--history", "1h", "--step", "90s"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("whole minutes"));
}

#[test]
fn both_modes_count_their_runs_and_run_times() {
    use support::handlers::{Handlers, Mode};
    let handlers = Handlers::new();
    for mode in [Mode::PerJob, Mode::Pipe] {
        let server = RedisServer::start();
        // 20 jobs of 50 ms, 10 that fail on each of their two runs.
        let lines = format!("{}{}", "sleep 0.05\n".repeat(20), "fail\n".repeat(10));
        fill(&server, "q", &lines);
        let out = qctl(&server)
            .args(["consume", "q", "--drain", "-c", "4", "--max-retries", "1"])
            .args(["--max-backoff", "0s", "-q"])
            .args(handlers.args(mode))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(7), "{mode:?}: {out:?}");
        let (total, _) = history(&server, "q");
        assert_eq!(
            (total.completed, total.failed, total.retried, total.killed),
            (20, 20, 10, 10),
            "{mode:?}: {total:?}"
        );
        // The 20 sleeps lasted at least 50 ms each.
        assert!(total.run_ms >= 1000, "{mode:?}: {total:?}");
        // Every run is in the histogram of the totals; the 20 sleeps of 50 ms above 20 ms.
        let stats: Vec<(String, String)> = server.cmd(&[b"HGETALL", b"q:stats"]);
        let bucket = |above: u64| -> u64 {
            stats
                .iter()
                .filter_map(|(f, v)| {
                    let bound = f.strip_prefix("ms:")?;
                    let bound = bound.parse::<u64>().unwrap_or(u64::MAX);
                    (bound > above).then(|| v.parse::<u64>().unwrap())
                })
                .sum()
        };
        assert_eq!(bucket(0), 40, "{mode:?}: {stats:?}");
        assert!(bucket(20) >= 20, "{mode:?}: {stats:?}");
    }
}

#[test]
fn a_span_longer_than_the_week_kept_is_cut_to_it_and_costs_no_more_than_a_week() {
    let server = RedisServer::start();
    let now = support::an_hour_and_eight_days_ago(&server);
    // A week of minutes, and the one going on: each is one HMGET.
    let week = 7 * 24 * 60 + 1;
    // The longest duration the parser takes, as span and as step, and a month by minute.
    for args in [
        &["--history", "10000y"][..],
        &["--history", "10000y", "--step", "10000y"],
        &["--history", "30d", "--step", "1m"],
    ] {
        let _: () = server.cmd(&[b"CONFIG", b"RESETSTAT"]);
        let ran = support::run(qctl(&server).args(["stats", "q", "--json"]).args(args));
        assert_eq!(ran.code, Some(0), "{args:?}: {ran:?}");
        let steps: Vec<Value> = serde_json::from_str(&ran.stdout()).unwrap();
        assert!(
            steps.len() <= week as usize,
            "{args:?}: {} steps",
            steps.len()
        );
        let done: u64 = steps.iter().map(|s| s["done"].as_u64().unwrap()).sum();
        assert_eq!(done, 3, "{args:?}: what is not kept is not shown");
        // Only the minutes still kept are read, whatever the span asked.
        let reads = server.calls("hmget");
        assert!(reads <= week + 10, "{args:?}: {reads} HMGET");
        assert!(
            ran.err
                .contains("qctl consumers keep 7d of history: showing the last 7d of the"),
            "{args:?}: {ran:?}"
        );
        if args[1] == "10000y" {
            assert!(ran.err.contains("of the 3652500d asked"), "{ran:?}");
        }
        if args.len() == 2 {
            // The steps shown start within the week kept (the first one may begin before it).
            let first = steps[0]["start_unix"].as_f64().unwrap();
            assert!(first >= now - 7.5 * 86_400.0, "{steps:?}");
        }
    }
    // In a table too; a step longer than the time since 1970 starts then.
    let ran =
        support::run(qctl(&server).args(["stats", "q", "--history", "10000y", "--step", "10000y"]));
    assert_eq!(ran.code, Some(0), "{ran:?}");
    let out = ran.stdout();
    assert!(out.contains("the last 7d in steps of"), "{out}");
    assert!(
        out.contains("1970-01-01") || out.contains("1969-12-31"),
        "{out}"
    );
    assert!(
        out.lines()
            .any(|l| l.split_whitespace().take(2).eq(["total", "3"])),
        "{out}"
    );
    // Longer than the parser takes: refused by name, exit 2.
    qctl(&server)
        .args(["stats", "q", "--history", "10001y"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("longest duration"));
}
