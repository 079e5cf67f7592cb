//! `qctl stats --prometheus` read by a Prometheus text-format parser, and `qctl metrics`
//! scraped over HTTP, against real redis-servers.

mod support;

use std::time::{Duration, Instant};

use prometheus_parse::{Scrape, Value};
use qctl::engine::Job;
use support::{hold_in_flight, qctl, qctl_process, wait_until, Background, RedisServer, FAST};

/// The metric families qctl writes, each with its type.
const FAMILIES: [(&str, &str); 15] = [
    ("qctl_up", "gauge"),
    ("qctl_scrape_duration_seconds", "gauge"),
    ("qctl_queue_active", "gauge"),
    ("qctl_queue_scheduled", "gauge"),
    ("qctl_queue_scheduled_overdue_seconds", "gauge"),
    ("qctl_queue_in_flight", "gauge"),
    ("qctl_queue_dead", "gauge"),
    ("qctl_consumers", "gauge"),
    ("qctl_queue_paused", "gauge"),
    ("qctl_queue_wrong_type_keys", "gauge"),
    ("qctl_jobs_completed_total", "counter"),
    ("qctl_jobs_failed_total", "counter"),
    ("qctl_jobs_retried_total", "counter"),
    ("qctl_jobs_dead_total", "counter"),
    ("qctl_job_run_seconds", "histogram"),
];

/// Parses an exposition, after checking what the parser forgives: every sample belongs to a
/// family announced by HELP and TYPE lines before it, and no series appears twice.
fn parse(text: &str) -> Scrape {
    let mut announced = Vec::new();
    let mut series = std::collections::HashSet::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("# HELP ") {
            let name = rest.split(' ').next().unwrap();
            assert!(!announced.contains(&name), "{name} announced twice");
            announced.push(name);
        } else if let Some(rest) = line.strip_prefix("# TYPE ") {
            let (name, kind) = rest.split_once(' ').unwrap();
            assert_eq!(Some(&name), announced.last(), "TYPE right after HELP");
            let expected = FAMILIES.iter().find(|(n, _)| *n == name);
            assert_eq!(expected.map(|(_, k)| *k), Some(kind), "type of {name}");
        } else {
            let name = line.split(['{', ' ']).next().unwrap();
            // A histogram's samples are its name with _bucket, _sum and _count.
            let family = ["_bucket", "_sum", "_count"]
                .iter()
                .find_map(|suffix| name.strip_suffix(suffix))
                .filter(|f| announced.last() == Some(f))
                .unwrap_or(name);
            assert_eq!(
                Some(&family),
                announced.last(),
                "sample outside its family: {line}"
            );
            let (key, _) = line.rsplit_once(' ').unwrap();
            assert!(series.insert(key.to_string()), "series twice: {key}");
        }
    }
    if text.contains("\nqctl_up 1\n") {
        assert_eq!(announced.len(), FAMILIES.len(), "families: {announced:?}");
    }
    let scrape = Scrape::parse(text.lines().map(|l| Ok(l.to_string()))).expect("parses");
    // The parser makes one sample of a histogram's _bucket lines (one per series of
    // labels, as many as its _sum lines), and one of each _sum and _count line.
    let lines = |suffix: &str| series.iter().filter(|k| k.contains(suffix)).count();
    assert_eq!(
        scrape.samples.len(),
        series.len() - lines("_bucket{") + lines("_sum{"),
        "the parser read every sample:\n{text}"
    );
    scrape
}

/// The value of the sample of `metric` with exactly these labels, if there is one; a
/// counter must be typed as one.
fn value(scrape: &Scrape, metric: &str, labels: &[(&str, &str)]) -> Option<f64> {
    let sample = scrape.samples.iter().find(|s| {
        s.metric == metric
            && s.labels.len() == labels.len()
            && labels.iter().all(|(k, v)| s.labels.get(k) == Some(*v))
    })?;
    match (&sample.value, metric.ends_with("_total")) {
        (Value::Counter(v), true) | (Value::Gauge(v), false) => Some(*v),
        (other, _) => panic!("{metric} is {other:?}"),
    }
}

fn queue(scrape: &Scrape, metric: &str, name: &str) -> Option<f64> {
    value(scrape, metric, &[("queue", name)])
}

fn state(scrape: &Scrape, metric: &str, name: &str, state: &str) -> Option<f64> {
    value(scrape, metric, &[("queue", name), ("state", state)])
}

fn enqueue(server: &RedisServer, args: &[&str]) {
    qctl(server).arg("enqueue").args(args).assert().success();
}

/// Queue `mail`: 3 jobs completed and 2 failed into the dead set by a real consumer, then 4
/// ready, 1 due 100 s ago, 2 due in an hour, 1 in flight with a live consumer, an expired
/// consumer, paused. Queue `sms`: 1 ready job.
fn fill(server: &RedisServer) {
    for data in ["ok", "fail", "ok", "fail", "ok"] {
        enqueue(server, &["mail", data]);
    }
    qctl(server)
        .args([
            "consume",
            "mail",
            "--drain",
            "-c",
            "1",
            "--max-retries",
            "0",
        ])
        .args(FAST)
        .args(["--", "grep", "-qv", "fail"])
        .assert()
        .code(7);
    for _ in 0..4 {
        enqueue(server, &["mail", "ready"]);
    }
    // A job due 100 s ago that no scheduler has moved yet (enqueue would make it ready).
    let now = qctl::engine::now();
    let record = Job::new("due", Some(b"x".to_vec())).encode();
    let _: () = server.cmd(&[b"HSET", b"mail:data", b"due", &record]);
    let _: () = server.cmd(&[
        b"ZADD",
        b"mail:scheduled",
        (now - 100.0).to_string().as_bytes(),
        b"due",
    ]);
    enqueue(server, &["mail", "--in", "1h", "later"]);
    enqueue(server, &["mail", "--in", "1h", "later"]);
    hold_in_flight(server, "mail");
    qctl(server).args(["pause", "mail"]).assert().success();
    enqueue(server, &["sms", "hello"]);
}

#[test]
fn stats_prometheus_exposes_every_count_of_every_queue() {
    let server = RedisServer::start();
    fill(&server);
    // A queue whose name needs escaping, and one with a key of the wrong type.
    enqueue(&server, &["a\"b\\c", "x"]);
    let _: () = server.cmd(&[b"SET", b"broken:active", b"not a list"]);
    let before = server.dump_all();
    let out = qctl(&server)
        .args(["stats", "--prometheus"])
        .assert()
        .code(4)
        .get_output()
        .stdout
        .clone();
    assert_eq!(server.dump_all(), before, "stats changed something");
    let text = String::from_utf8(out).unwrap();
    let m = parse(&text);
    assert_eq!(value(&m, "qctl_up", &[]), Some(1.0));
    assert!(value(&m, "qctl_scrape_duration_seconds", &[]).unwrap() > 0.0);

    assert_eq!(queue(&m, "qctl_queue_active", "mail"), Some(4.0));
    assert_eq!(state(&m, "qctl_queue_scheduled", "mail", "due"), Some(1.0));
    assert_eq!(
        state(&m, "qctl_queue_scheduled", "mail", "later"),
        Some(2.0)
    );
    let overdue = queue(&m, "qctl_queue_scheduled_overdue_seconds", "mail").unwrap();
    assert!((100.0..160.0).contains(&overdue), "overdue {overdue}");
    assert_eq!(queue(&m, "qctl_queue_in_flight", "mail"), Some(1.0));
    assert_eq!(queue(&m, "qctl_queue_dead", "mail"), Some(2.0));
    assert_eq!(state(&m, "qctl_consumers", "mail", "alive"), Some(1.0));
    assert_eq!(state(&m, "qctl_consumers", "mail", "expired"), Some(1.0));
    assert_eq!(queue(&m, "qctl_queue_paused", "mail"), Some(1.0));
    assert_eq!(queue(&m, "qctl_queue_wrong_type_keys", "mail"), Some(0.0));
    assert_eq!(queue(&m, "qctl_jobs_completed_total", "mail"), Some(3.0));
    assert_eq!(queue(&m, "qctl_jobs_failed_total", "mail"), Some(2.0));
    assert_eq!(queue(&m, "qctl_jobs_dead_total", "mail"), Some(2.0));
    assert_eq!(queue(&m, "qctl_jobs_retried_total", "mail"), Some(0.0));
    // Every one of the 5 runs is in the run-time histogram, cumulative up to +Inf.
    let runs = m
        .samples
        .iter()
        .find(|s| s.metric == "qctl_job_run_seconds" && s.labels.get("queue") == Some("mail"))
        .map(|s| match &s.value {
            Value::Histogram(buckets) => buckets.iter().map(|b| b.count).collect::<Vec<_>>(),
            other => panic!("qctl_job_run_seconds is {other:?}"),
        })
        .expect("a histogram for mail");
    assert_eq!(runs.len(), qctl::engine::history::BUCKETS, "{runs:?}");
    assert!(runs.windows(2).all(|w| w[0] <= w[1]), "{runs:?}");
    assert_eq!(runs.last(), Some(&5.0), "{runs:?}");

    assert_eq!(queue(&m, "qctl_queue_active", "sms"), Some(1.0));
    assert_eq!(queue(&m, "qctl_queue_dead", "sms"), Some(0.0));
    assert_eq!(queue(&m, "qctl_queue_paused", "sms"), Some(0.0));
    assert_eq!(
        queue(&m, "qctl_queue_scheduled_overdue_seconds", "sms"),
        Some(0.0)
    );
    assert_eq!(state(&m, "qctl_consumers", "sms", "alive"), Some(0.0));
    assert_eq!(queue(&m, "qctl_jobs_completed_total", "sms"), Some(0.0));

    // The parser keeps label values as written: quote and backslash escaped.
    assert!(
        text.contains("\nqctl_queue_active{queue=\"a\\\"b\\\\c\"} 1\n"),
        "{text}"
    );
    assert_eq!(queue(&m, "qctl_queue_active", "a\\\"b\\\\c"), Some(1.0));

    // A count that cannot be read has no sample; the queue says how many keys are wrong.
    assert_eq!(queue(&m, "qctl_queue_active", "broken"), None);
    assert_eq!(queue(&m, "qctl_queue_wrong_type_keys", "broken"), Some(1.0));
    assert_eq!(queue(&m, "qctl_queue_dead", "broken"), Some(0.0));

    // Named queues only, and --orphan-after decides which consumers are alive.
    let out = qctl(&server)
        .args(["stats", "--prometheus", "--orphan-after", "1h", "mail"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let m = parse(&String::from_utf8(out).unwrap());
    assert_eq!(state(&m, "qctl_consumers", "mail", "alive"), Some(2.0));
    assert_eq!(state(&m, "qctl_consumers", "mail", "expired"), Some(0.0));
    assert_eq!(queue(&m, "qctl_queue_active", "sms"), None);
}

#[test]
fn stats_table_and_json_show_done_and_failed_totals() {
    let server = RedisServer::start();
    fill(&server);
    let out = qctl(&server).args(["stats", "mail"]).assert().success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split_whitespace().collect();
    assert_eq!(header[header.len() - 2..], ["DONE", "FAILED"], "{text}");
    let row: Vec<&str> = lines.next().unwrap().split_whitespace().collect();
    assert_eq!(row[row.len() - 2..], ["3", "2"], "{text}");
    let out = qctl(&server)
        .args(["--json", "stats", "mail"])
        .assert()
        .success();
    let rows: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(rows[0]["done"], 3);
    assert_eq!(rows[0]["failed"], 2);
    let overdue = rows[0]["overdue_secs"].as_f64().unwrap();
    assert!((100.0..160.0).contains(&overdue), "overdue {overdue}");
    qctl(&server)
        .args(["--json", "stats", "--prometheus"])
        .assert()
        .code(2);
}

/// `qctl metrics` on a free port, once it says where it serves.
struct Exporter {
    process: Background,
    base: String,
}

impl Exporter {
    fn start(server: &RedisServer, args: &[&str]) -> Exporter {
        let mut cmd = qctl_process(server);
        cmd.args([
            "--connect-timeout",
            "1s",
            "metrics",
            "--listen",
            "127.0.0.1:0",
        ])
        .args(args);
        let process = Background::spawn(cmd);
        let mut base = None;
        wait_until(Duration::from_secs(10), || {
            base = process.stderr().split_whitespace().find_map(|w| {
                w.strip_suffix("/metrics")
                    .filter(|w| w.starts_with("http://"))
                    .map(str::to_string)
            });
            base.is_some()
        });
        let base = base.unwrap_or_else(|| {
            panic!(
                "qctl metrics did not say where it serves: {}",
                process.stderr()
            )
        });
        Exporter { process, base }
    }

    /// GET `path`: the status, the Content-Type and the body.
    fn get(&self, path: &str) -> (u16, String, String) {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(30)))
            .build()
            .into();
        let mut response = agent
            .get(format!("{}{path}", self.base))
            .call()
            .expect("an HTTP response");
        let kind = response
            .headers()
            .get("content-type")
            .map(|v| v.to_str().unwrap().to_string())
            .unwrap_or_default();
        let body = response.body_mut().read_to_string().unwrap();
        (response.status().as_u16(), kind, body)
    }

    fn scrape(&self) -> String {
        let (status, kind, body) = self.get("/metrics");
        assert_eq!(status, 200, "{body}");
        assert_eq!(kind, "text/plain; version=0.0.4; charset=utf-8");
        body
    }

    /// `scrape` from `n` clients at once.
    fn scrape_together(&self, n: usize) -> Vec<String> {
        std::thread::scope(|s| {
            let clients: Vec<_> = (0..n).map(|_| s.spawn(|| self.scrape())).collect();
            clients.into_iter().map(|c| c.join().unwrap()).collect()
        })
    }
}

/// How many SCAN calls the server has answered: one per reading of Redis by `qctl metrics`
/// without queue names.
fn scans(server: &RedisServer) -> u64 {
    let info: String = server.cmd(&[b"INFO", b"commandstats"]);
    info.lines()
        .find_map(|l| l.strip_prefix("cmdstat_scan:calls="))
        .map_or(0, |rest| rest.split(',').next().unwrap().parse().unwrap())
}

#[test]
fn metrics_serves_over_http_reading_redis_at_most_once_per_min_interval() {
    let server = RedisServer::start();
    fill(&server);
    let interval = Duration::from_secs(4);
    let mut exporter = Exporter::start(&server, &["--min-interval", "4s"]);
    assert_eq!(scans(&server), 0, "nothing is read before the first scrape");

    let first_at = Instant::now();
    let first = exporter.scrape();
    // The first reading started between these two instants.
    let first_done = Instant::now();
    let m = parse(&first);
    assert_eq!(value(&m, "qctl_up", &[]), Some(1.0));
    assert_eq!(queue(&m, "qctl_queue_active", "mail"), Some(4.0));
    assert_eq!(queue(&m, "qctl_queue_dead", "mail"), Some(2.0));
    assert_eq!(queue(&m, "qctl_jobs_completed_total", "mail"), Some(3.0));
    assert_eq!(state(&m, "qctl_consumers", "mail", "alive"), Some(1.0));
    assert_eq!(queue(&m, "qctl_queue_active", "sms"), Some(1.0));
    // The same exposition as `stats --prometheus`, bar the times.
    let printed = qctl(&server)
        .args(["stats", "--prometheus"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let without_times = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| {
                !l.starts_with("qctl_scrape_duration_seconds ")
                    && !l.starts_with("qctl_queue_scheduled_overdue_seconds{")
            })
            .map(str::to_string)
            .collect()
    };
    assert_eq!(
        without_times(&first),
        without_times(&String::from_utf8(printed).unwrap())
    );
    let scans_after_first = scans(&server);

    // Redis changes; scrapes within the interval get the first reading and read nothing.
    enqueue(&server, &["mail", "more"]);
    let _: () = server.cmd(&[b"HINCRBY", b"mail:stats", b"completed", b"5"]);
    for body in exporter.scrape_together(4) {
        assert_eq!(body, first);
    }
    assert!(
        first_at.elapsed() < interval,
        "the machine is too slow for this test: {:?} between scrapes",
        first_at.elapsed()
    );
    assert_eq!(scans(&server), scans_after_first);

    // After the interval, concurrent scrapes share one new reading.
    std::thread::sleep(interval.saturating_sub(first_done.elapsed()));
    let bodies = exporter.scrape_together(4);
    assert!(bodies.iter().all(|b| *b == bodies[0]));
    assert_eq!(scans(&server), scans_after_first + 1, "one reading, shared");
    let m = parse(&bodies[0]);
    assert_eq!(queue(&m, "qctl_queue_active", "mail"), Some(5.0));
    assert_eq!(queue(&m, "qctl_jobs_completed_total", "mail"), Some(8.0));

    let (status, _, body) = exporter.get("/");
    assert_eq!(status, 404, "{body}");
    let (status, _, _) = exporter.get("/metrics/x");
    assert_eq!(status, 404);
    let status = exporter.process.stop(Duration::from_secs(5));
    assert!(
        status.is_some_and(|s| s.success()),
        "SIGTERM ends it with exit 0: {status:?} {}",
        exporter.process.stderr()
    );
}

#[test]
fn metrics_serves_up_0_while_redis_is_down_and_recovers() {
    let mut server = RedisServer::start();
    enqueue(&server, &["mail", "x"]);
    let mut exporter = Exporter::start(&server, &["--min-interval", "100ms", "mail"]);
    let m = parse(&exporter.scrape());
    assert_eq!(value(&m, "qctl_up", &[]), Some(1.0));
    assert_eq!(queue(&m, "qctl_queue_active", "mail"), Some(1.0));

    server.stop();
    let mut down = String::new();
    assert!(
        wait_until(Duration::from_secs(10), || {
            down = exporter.scrape();
            value(&parse(&down), "qctl_up", &[]) == Some(0.0)
        }),
        "{down}"
    );
    assert!(!down.contains("qctl_queue_"), "no queue counts: {down}");
    assert!(value(&parse(&down), "qctl_scrape_duration_seconds", &[]).is_some());
    assert!(
        exporter.process.wait_timeout(Duration::ZERO).is_none(),
        "still serving"
    );
    let stderr = exporter.process.stderr();
    assert!(
        stderr.contains(&format!("127.0.0.1:{}", server.port())),
        "the error names the server: {stderr}"
    );

    server.restart();
    enqueue(&server, &["mail", "y"]);
    let mut up = String::new();
    assert!(
        wait_until(Duration::from_secs(10), || {
            up = exporter.scrape();
            value(&parse(&up), "qctl_up", &[]) == Some(1.0)
        }),
        "{up}"
    );
    assert_eq!(queue(&parse(&up), "qctl_queue_active", "mail"), Some(1.0));
    let status = exporter.process.stop(Duration::from_secs(5));
    assert!(status.is_some_and(|s| s.success()), "{status:?}");
}

/// A queue drained by qctl consumers keeps its DONE and FAILED counters in `stats`,
/// `--prometheus` and `/metrics` until it is purged; keys that only look like qctl's own
/// (an application's `page:stats` hash, a `user:failures` string) are no queue.
#[test]
fn a_drained_queue_stays_listed_with_its_counters_until_purged() {
    let server = RedisServer::start();
    for data in ["ok", "fail", "ok"] {
        enqueue(&server, &["mail", data]);
    }
    qctl(&server)
        .args(["consume", "mail", "--drain", "--max-retries", "0"])
        .args(FAST)
        .args(["--", "grep", "-qv", "fail"])
        .assert()
        .code(7);
    qctl(&server)
        .args(["dead", "delete", "mail", "--all", "--yes"])
        .assert()
        .success();
    // A queue Go CurlyQ consumers drained: its last job acked, nothing of it is left.
    let record = Job::new("g1", Some(b"x".to_vec())).encode();
    let _: () = server.cmd(&[b"HSET", b"go:data", b"g1", &record]);
    let _: () = server.cmd(&[b"RPUSH", b"go:active", b"g1"]);
    let out = qctl(&server).args(["--json", "stats"]).assert().success();
    let rows: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(rows.as_array().map(Vec::len), Some(2), "{rows}");
    let _: () = server.cmd(&[b"DEL", b"go:active", b"go:data"]);
    let _: () = server.cmd(&[b"HSET", b"page:stats", b"views", b"12"]);
    let _: () = server.cmd(&[b"SET", b"user:failures", b"3"]);
    let mut keys: Vec<String> = server.cmd(&[b"KEYS", b"mail:*"]);
    // The minutes of its history stay too, each for a week.
    keys.retain(|k| !k.starts_with("mail:history:"));
    keys.sort();
    assert_eq!(
        keys,
        ["mail:acked", "mail:changes", "mail:stats"],
        "the queue drained: only its counters, history, acked ids and the record of its \
         changes (the dead delete) are left"
    );

    let out = qctl(&server).args(["--json", "stats"]).assert().success();
    let rows: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let names: Vec<&str> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["queue"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["mail"], "{rows}");
    assert_eq!(rows[0]["done"], 2);
    assert_eq!(rows[0]["failed"], 1);
    assert_eq!(rows[0]["active"], 0);
    let out = qctl(&server)
        .args(["stats", "--prometheus"])
        .assert()
        .success();
    let scrape = parse(&String::from_utf8_lossy(&out.get_output().stdout));
    assert_eq!(
        queue(&scrape, "qctl_jobs_completed_total", "mail"),
        Some(2.0)
    );
    assert_eq!(queue(&scrape, "qctl_jobs_failed_total", "mail"), Some(1.0));
    assert_eq!(queue(&scrape, "qctl_queue_active", "page"), None);
    let exporter = Exporter::start(&server, &[]);
    let scrape = parse(&exporter.scrape());
    assert_eq!(
        queue(&scrape, "qctl_jobs_completed_total", "mail"),
        Some(2.0)
    );

    qctl(&server)
        .args(["purge", "mail", "--yes"])
        .assert()
        .success();
    let out = qctl(&server).args(["--json", "stats"]).assert().code(0);
    let rows: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(rows, serde_json::json!([]), "purged, it is gone");
}

/// A queue named that has no key (a typo) is refused at start with exit 5 and the queues
/// there are, as `stats` refuses it; `--allow-missing` serves it (0 until it appears). A
/// refused login is exit 4 at start, before serving anything.
#[test]
fn metrics_refuses_a_queue_name_with_no_key_unless_allowed_and_a_refused_login() {
    let server = RedisServer::start();
    enqueue(&server, &["mail", "x"]);
    let ran = qctl(&server)
        .args(["metrics", "mial", "mail", "--listen", "127.0.0.1:0"])
        .timeout(Duration::from_secs(30))
        .assert()
        .code(5);
    let err = String::from_utf8_lossy(&ran.get_output().stderr).into_owned();
    assert!(
        err.contains("no queue \"mial\" (known: mail)") && err.contains("--allow-missing"),
        "{err}"
    );
    assert!(!err.contains("serving"), "it served nothing: {err}");
    let stats = qctl(&server).args(["stats", "mial"]).assert().code(5);
    assert!(String::from_utf8_lossy(&stats.get_output().stderr).contains("no queue \"mial\""));

    let mut exporter = Exporter::start(&server, &["mial", "mail", "--allow-missing"]);
    let m = parse(&exporter.scrape());
    assert_eq!(value(&m, "qctl_up", &[]), Some(1.0));
    assert_eq!(queue(&m, "qctl_queue_active", "mial"), Some(0.0));
    assert_eq!(queue(&m, "qctl_queue_active", "mail"), Some(1.0));
    let said = exporter.process.stderr();
    assert!(
        said.contains("no queue \"mial\" (known: mail); serving it anyway (--allow-missing)"),
        "{said}"
    );
    let status = exporter.process.stop(Duration::from_secs(5));
    assert!(status.is_some_and(|s| s.success()), "{status:?}");

    let locked = RedisServer::start_with(&["--requirepass", "Metrics-Pw-2"]);
    let ran = qctl(&locked)
        .args(["metrics", "--listen", "127.0.0.1:0"])
        .timeout(Duration::from_secs(30))
        .assert()
        .code(4);
    let err = String::from_utf8_lossy(&ran.get_output().stderr).into_owned();
    assert!(
        err.contains("it requires a password, and none was given (NOAUTH)"),
        "{err}"
    );
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
}

/// With Redis down at start, the names cannot be checked: it serves `qctl_up 0`, and the
/// first reading that succeeds says which name has no key.
#[test]
fn metrics_started_while_redis_is_down_checks_the_names_at_its_first_reading() {
    let mut server = RedisServer::start();
    server.stop();
    let mut exporter = Exporter::start(&server, &["--min-interval", "100ms", "mial"]);
    let m = parse(&exporter.scrape());
    assert_eq!(value(&m, "qctl_up", &[]), Some(0.0));
    server.restart();
    enqueue(&server, &["mail", "x"]);
    let mut up = String::new();
    assert!(
        wait_until(Duration::from_secs(20), || {
            up = exporter.scrape();
            value(&parse(&up), "qctl_up", &[]) == Some(1.0)
        }),
        "{up}"
    );
    let mut said = String::new();
    assert!(
        wait_until(Duration::from_secs(10), || {
            said = exporter.process.stderr();
            said.contains("no queue \"mial\" (known: mail)")
        }),
        "{said}"
    );
    assert_eq!(said.matches("no queue").count(), 1, "said once: {said}");
    let status = exporter.process.stop(Duration::from_secs(5));
    assert!(status.is_some_and(|s| s.success()), "{status:?}");
}
