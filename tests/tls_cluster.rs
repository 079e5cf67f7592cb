//! TLS on a Redis Cluster whose nodes speak TLS only (`--tls-cluster yes`,
//! `--tls-replication yes`, `--tls-auth-clients yes`), with certificates made per test:
//! the workload through a node that does not own the queue, `--tls-insecure` with a CA and
//! client certificates, every TLS failure in the words a single node gets (a command, `top`,
//! `metrics`), and a TLS replica taking over under a running consumer, whose warnings name
//! the master that failed.

mod support;

use std::time::{Duration, Instant, SystemTime};

use support::cluster::Cluster;
use support::judge::{Class, End, Enqueue, History, Hit};
use support::ledger::{numbered, Ledger};
use support::tls::{qctl_tls, tls_server, Pki};
use support::tmux::Tmux;
use support::{qctl_process_at, qctl_url, wait_until, Background, FAST, TLS_ENV};

/// The options that trust the test CA and present the client certificate.
fn trusted(pki: &Pki) -> Vec<String> {
    [
        ("--tls-ca-cert", &pki.ca),
        ("--tls-cert", &pki.client_cert),
        ("--tls-key", &pki.client_key),
    ]
    .into_iter()
    .flat_map(|(flag, path)| [flag.to_string(), path.display().to_string()])
    .collect()
}

/// qctl in cluster mode against `url`, with `tls` options, nothing TLS-related taken from
/// the environment.
fn qctl_at(url: &str, tls: &[String]) -> assert_cmd::Command {
    let mut cmd = qctl_url(url);
    cmd.arg("--cluster").args(tls).env_remove("QCTL_CLUSTER");
    for name in TLS_ENV {
        cmd.env_remove(name);
    }
    cmd
}

/// What one qctl run did.
struct Ran {
    code: Option<i32>,
    out: String,
    err: String,
}

impl std::fmt::Debug for Ran {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "exit {:?}\nstdout: {}\nstderr: {}",
            self.code, self.out, self.err
        )
    }
}

fn run(cmd: &mut assert_cmd::Command) -> Ran {
    let out = cmd
        .timeout(Duration::from_secs(60))
        .output()
        .expect("run qctl");
    Ran {
        code: out.status.code(),
        out: String::from_utf8_lossy(&out.stdout).into_owned(),
        err: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// What an error message says after the server and the operation: `cannot reach Redis at
/// 127.0.0.1:7000 (TLS) (cluster) (connect): REASON` gives REASON.
fn reason(err: &str) -> String {
    let line = err
        .lines()
        .find(|l| l.contains("cannot reach Redis"))
        .unwrap_or_else(|| panic!("no error line in {err:?}"));
    line.split_once("(connect): ")
        .unwrap_or_else(|| panic!("no reason in {line:?}"))
        .1
        .trim()
        .to_string()
}

#[test]
fn the_workload_and_tls_insecure_with_certificates_run_on_a_tls_cluster_and_failures_read_as_on_one_node(
) {
    let pki = Pki::generate();
    let Some(cluster) = Cluster::start_tls(3, false, &pki.server(true), 1500) else {
        return;
    };
    let q = "{mail}";
    let url = cluster.url_not_owning(q);
    let owner = cluster.owner(q);
    let tls = trusted(&pki);
    let qctl = || qctl_at(&url, &tls);

    // The workload, through a node that does not own the queue.
    let input: String = (1..=40).map(|i| format!("{i}\n")).collect();
    let ran = run(qctl().args(["enqueue", q, "--lines"]).write_stdin(input));
    assert_eq!(ran.code, Some(0), "enqueue: {ran:?}");
    assert_eq!(ran.out.lines().count(), 40, "{ran:?}");
    assert_eq!(owner.lrange(&format!("{q}:active")).len(), 40);
    let ran = run(qctl()
        .args(["consume", q, "--drain", "-c", "4", "--max-retries", "0"])
        .args(FAST)
        .args([
            "--",
            "sh",
            "-c",
            r#"d=$(cat); echo "ran $d"; case "$d" in 7|13) exit 3;; esac"#,
        ]));
    assert_eq!(ran.code, Some(7), "consume: {ran:?}");
    let mut ran_ids: Vec<u32> = ran
        .out
        .lines()
        .filter_map(|l| l.strip_prefix("ran ")?.parse().ok())
        .collect();
    ran_ids.sort_unstable();
    assert_eq!(ran_ids, (1..=40).collect::<Vec<_>>(), "{ran:?}");
    let ran = run(qctl().args(["--json", "dead", "list", q]));
    assert_eq!(ran.code, Some(0), "dead list: {ran:?}");
    let dead: serde_json::Value = serde_json::from_str(&ran.out).expect("dead list --json");
    let mut data: Vec<&str> = dead
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["data"].as_str().unwrap())
        .collect();
    data.sort_unstable();
    assert_eq!(data, ["13", "7"], "{ran:?}");
    // stats without a queue name scans every master.
    let ran = run(qctl().args(["--json", "stats"]));
    assert_eq!(ran.code, Some(0), "stats: {ran:?}");
    let stats: serde_json::Value = serde_json::from_str(&ran.out).expect("stats --json");
    assert_eq!(stats[0]["queue"], q, "{ran:?}");
    assert_eq!(stats[0]["dead"], 2, "{ran:?}");
    assert_eq!(stats[0]["done"], 38, "{ran:?}");
    let ran = run(qctl().args(["dead", "requeue", q, "--all", "--yes"]));
    assert_eq!(ran.code, Some(0), "dead requeue: {ran:?}");
    let ran = run(qctl().args(["--json", "wait", q, "--timeout", "1s"]));
    assert_eq!(ran.code, Some(124), "wait: {ran:?}");
    let ran = run(qctl().args(["orphans", q, "--yes"]));
    assert_eq!(ran.code, Some(0), "orphans: {ran:?}");
    let ran = run(qctl().args(["doctor", q]));
    assert!(matches!(ran.code, Some(0 | 1)), "doctor: {ran:?}");
    let ran = run(qctl().args(["purge", q, "--yes"]));
    assert_eq!(ran.code, Some(0), "purge: {ran:?}");
    let left: Vec<String> = redis::cmd("KEYS")
        .arg(format!("{q}:*"))
        .query(&mut owner.conn())
        .unwrap();
    // But for the record of its changes, with the purge in it.
    assert_eq!(left, [format!("{q}:changes")], "purge left {left:?}");

    // --tls-insecure holds with a CA that does not trust the nodes and with client
    // certificates, which these nodes require; it warns naming the node.
    let client = [
        "--tls-cert".to_string(),
        pki.client_cert.display().to_string(),
        "--tls-key".to_string(),
        pki.client_key.display().to_string(),
    ];
    let mut with_ca = vec![
        "--tls-insecure".to_string(),
        "--tls-ca-cert".to_string(),
        pki.other_ca.display().to_string(),
    ];
    with_ca.extend(client.clone());
    let mut without_ca = vec!["--tls-insecure".to_string()];
    without_ca.extend(client);
    for (i, options) in [with_ca, without_ca].iter().enumerate() {
        let id = format!("insecure-{i}");
        let ran = run(qctl_at(&url, options)
            .env_remove("SSL_CERT_FILE")
            .env_remove("SSL_CERT_DIR")
            .args(["enqueue", q, "--id", &id, "x"]));
        assert_eq!(ran.code, Some(0), "{options:?}: {ran:?}");
        assert!(ran.err.contains("not verified"), "{ran:?}");
        assert!(ran.err.contains(&url["rediss://".len()..]), "{ran:?}");
    }
    assert_eq!(
        owner.lrange(&format!("{q}:active")),
        ["insecure-0", "insecure-1"]
    );

    // Each TLS failure in the words, exit code and node of a single node's.
    let single = tls_server(pki.server(true), &[]).expect("a TLS server");
    let quick = ["--connect-timeout", "8s", "--response-timeout", "2s"].map(String::from);
    let path = |p: &std::path::Path| p.display().to_string();
    let failures: [(&str, Vec<String>, &str); 3] = [
        (
            "no client certificate",
            vec!["--tls-ca-cert".into(), path(&pki.ca)],
            "the server requires a client certificate (CertificateRequired): give --tls-cert \
             and --tls-key",
        ),
        (
            "a client certificate of another CA",
            vec![
                "--tls-ca-cert".into(),
                path(&pki.ca),
                "--tls-cert".into(),
                path(&pki.stranger_cert),
                "--tls-key".into(),
                path(&pki.stranger_key),
            ],
            "the server refused the client certificate (UnknownCA)",
        ),
        (
            "a server certificate of another CA",
            {
                let mut options = trusted(&pki);
                options[1] = path(&pki.other_ca);
                options
            },
            "certificate not trusted (UnknownIssuer): the server's certificate is not signed by \
             a CA of --tls-ca-cert or of the system's trust store",
        ),
    ];
    let before: Vec<_> = cluster.nodes.iter().map(|n| n.dump_all()).collect();
    for (case, options, words) in &failures {
        let mut options = options.clone();
        options.extend(quick.clone());
        // One node says the same, or, when its connection is gone before the server's alert
        // arrives (TLS 1.3 ends the handshake on the client's side first), that the server
        // dropped it and may want or refuse a client certificate.
        let one = run(support::qctl(&single).args(&options).arg("stats"));
        assert_eq!(one.code, Some(3), "{case} on one node: {one:?}");
        assert!(
            reason(&one.err) == *words
                || (words.contains("client certificate") && one.err.contains("client certificate")),
            "{case} on one node: {one:?}"
        );
        for args in [&["stats"][..], &["enqueue", q, "x"], &["dead", "list", q]] {
            let ran = run(qctl_at(&url, &options).args(args));
            let what = format!("{case}, {args:?}: {ran:?}");
            assert_eq!(ran.code, Some(3), "{what}");
            assert_eq!(reason(&ran.err), *words, "{what}");
            assert!(
                ran.err.contains(&format!(
                    "cannot reach Redis at {}",
                    &url["rediss://".len()..]
                )),
                "{what}"
            );
            assert!(!ran.err.contains("Failed to create"), "{what}");
        }

        // qctl top says it before it takes the screen.
        let args = format!("--cluster {} top", options.join(" "));
        if let Some(tmux) = Tmux::start(&url, &args, (300, 40), None) {
            assert_eq!(tmux.exit_status(), 3, "{case}: {}", tmux.screen());
            let screen = tmux.screen().replace('\n', "");
            assert!(screen.contains(words), "{case}: {screen}");
        }

        // qctl metrics serves qctl_up 0 and says why.
        let mut cmd = qctl_process_at(&url);
        cmd.arg("--cluster")
            .args(&options)
            .args(["metrics", "--listen", "127.0.0.1:0"]);
        let metrics = Background::spawn(cmd);
        let mut base = None;
        wait_until(Duration::from_secs(10), || {
            base = metrics.stderr().split_whitespace().find_map(|w| {
                w.strip_suffix("/metrics")
                    .filter(|w| w.starts_with("http://"))
                    .map(str::to_string)
            });
            base.is_some()
        });
        let base = base.unwrap_or_else(|| panic!("{case}: {}", metrics.stderr()));
        let body = ureq::get(format!("{base}/metrics"))
            .call()
            .expect("a scrape")
            .body_mut()
            .read_to_string()
            .unwrap();
        assert!(body.contains("qctl_up 0"), "{case}: {body}");
        assert!(
            wait_until(Duration::from_secs(10), || metrics.stderr().contains(words)),
            "{case}: {}",
            metrics.stderr()
        );
    }
    let after: Vec<_> = cluster.nodes.iter().map(|n| n.dump_all()).collect();
    assert!(before == after, "a refused connection changed the cluster");
    // The same commands with the right certificates still work on the single node.
    qctl_tls(&single).arg("stats").assert().success();
}

#[test]
fn a_tls_replica_takes_over_under_a_running_consumer_which_names_the_master_that_failed() {
    let pki = Pki::generate();
    let Some(mut cluster) = Cluster::start_tls(3, true, &pki.server(true), 1500) else {
        return;
    };
    let q = "{fo}";
    let slot = cluster.slot(q);
    let from = cluster.owner_of_slot(slot);
    let url = cluster.nodes[(from + 1) % 3].url();
    let tls = trusted(&pki);
    let ledger = Ledger::new();
    let (ids, input) = numbered("j", 600);
    qctl_at(&url, &tls)
        .args(["enqueue", q, "--jsonl", "-q"])
        .write_stdin(input)
        .assert()
        .success();
    let mut cmd = qctl_process_at(&url);
    cmd.arg("--cluster")
        .args(&tls)
        .args(["consume", q, "-c", "4", "--drain"])
        .args(FAST)
        // The lease outlasts the failover (node timeout 1.5 s, then the election).
        .args(["--orphan-after", "30s", "--"])
        .args(ledger.handler_args(Duration::from_millis(5)));
    let mut consumer = Background::spawn(cmd);
    assert!(
        wait_until(Duration::from_secs(60), || ledger.runs().len() >= 100),
        "the consumer did not start: {}",
        consumer.stderr()
    );
    // The consumer holds still while everything the master acknowledged reaches its replica
    // and the master is killed: no write of it is lost, so every job runs exactly once.
    consumer.signal(nix::sys::signal::Signal::SIGSTOP);
    cluster.replicated(from);
    let at = ledger.runs().len();
    let master = format!("127.0.0.1:{}", cluster.nodes[from].port());
    let mut history = History::new();
    history.enqueued(&ids, Enqueue::Acknowledged).fault(
        "the failover",
        SystemTime::now(),
        Hit::Redis { lost_writes: false },
    );
    let killed = Instant::now();
    cluster.nodes[from].stop();
    consumer.signal(nix::sys::signal::Signal::SIGCONT);
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
    let stderr = consumer.stderr();
    assert_eq!(status.code(), Some(0), "{stderr}");
    let verdict = history
        .ran(ledger.entries())
        .judge(&End::read(&cluster.nodes[replica], q));
    verdict.check("C4");
    assert!(verdict.waiting.is_empty(), "{}", verdict.table());
    assert_eq!(verdict.count(Class::Duplicated), 0, "{stderr}");
    let failures: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("cannot reach"))
        .collect();
    assert!(!failures.is_empty(), "no warning of the failover: {stderr}");
    for line in failures {
        assert!(
            line.contains(&format!(
                "cannot reach Redis at {master} (TLS) (cluster master"
            )),
            "the warning does not name the master that failed ({master}): {line}"
        );
    }
    support::figure(&format!(
        "C4 TLS master of {q} SIGKILLed at {at}/600 runs, TLS replica promoted after {:.1}s: {}; drain ended {:.1}s after the kill",
        promoted.as_secs_f64(),
        verdict.line(),
        killed.elapsed().as_secs_f64()
    ));
}
