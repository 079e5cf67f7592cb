//! TLS against real redis-servers listening on a TLS port only, with certificates made per
//! test (tests/support/tls.rs): enqueue, consume, dead, stats and orphans with the CA, with
//! client certificates required, through the system trust store and with --tls-insecure;
//! and every way it fails (an unknown CA, a certificate for another host, no client
//! certificate, TLS to a plain port, unusable certificate files) with its exit code and a
//! reason in words, never a panic, a hang or the client library's internals.

mod support;

use std::path::Path;
use std::time::Duration;

use qctl::engine::Job;
use support::tls::{qctl_tls, tls_server, Pki};
use support::{qctl, Ran, RedisServer, FAST};

/// Short timeouts for connections that are meant to fail.
const QUICK: &[&str] = &["--connect-timeout", "2s", "--response-timeout", "2s"];
/// Timeouts for connections the server refuses in its handshake: the refusal is the answer
/// awaited, and a server busy with the rest of the suite may take seconds to send it.
const REFUSED: &[&str] = &["--connect-timeout", "8s", "--response-timeout", "2s"];

/// Runs a prepared qctl command to its end (killed after a minute, so a hang fails) and
/// checks that its messages are in words: no panic, no debug dump of the client library's
/// or rustls's types.
fn run(cmd: &mut assert_cmd::Command) -> Ran {
    support::run_checked(
        cmd,
        &[
            "panicked",
            "Kind(",
            "Custom {",
            "InvalidClientConfig",
            "Other(",
            "OtherError",
            "DnsName(",
            "IpAddress(",
            "Pipeline failure",
            "Incompatible type",
        ],
    )
}

/// The five commands of the issue, each reading or writing queue `q`.
fn commands() -> Vec<Vec<&'static str>> {
    let mut consume = vec!["consume", "q", "--drain"];
    consume.extend_from_slice(FAST);
    consume.extend_from_slice(&["--", "true"]);
    vec![
        vec!["enqueue", "q", "x"],
        consume,
        vec!["dead", "list", "q"],
        vec!["stats"],
        vec!["orphans", "q", "--yes"],
    ]
}

/// An expired consumer holding `id` (with its record) in its in-flight set.
fn plant_orphan(server: &RedisServer, id: &str) {
    let inflight = "q:inflight:0b7d3e2a-1c4f-4d5e-9f00-aabbccddeeff";
    let beat = qctl::engine::now() - 600.0;
    let record = Job {
        id: id.into(),
        data: Some(b"orphaned".to_vec()),
        attempt: 0,
    }
    .encode();
    let _: () = server.cmd(&[b"HSET", b"q:data", id.as_bytes(), &record]);
    let _: () = server.cmd(&[b"SADD", inflight.as_bytes(), id.as_bytes()]);
    let _: () = server.cmd(&[
        b"ZADD",
        b"q:consumers",
        beat.to_string().as_bytes(),
        inflight.as_bytes(),
    ]);
}

/// enqueue, consume, dead, stats and orphans through `qctl` (a command already pointed at
/// the server, TLS options included), checking what reached Redis after each.
fn round_trip(server: &RedisServer, qctl: impl Fn() -> assert_cmd::Command) {
    // enqueue: 40 jobs, one per line.
    let input: String = (1..=40).map(|i| format!("{i}\n")).collect();
    let ran = run(qctl().args(["enqueue", "q", "--lines"]).write_stdin(input));
    assert_eq!(ran.code, Some(0), "enqueue: {ran:?}");
    assert_eq!(ran.stdout().lines().count(), 40, "{ran:?}");
    assert_eq!(server.lrange("q:active").len(), 40);

    // consume: every job runs once; 7 and 13 fail and, without retries, die.
    let ran = run(qctl()
        .args(["consume", "q", "--drain", "-c", "4", "--max-retries", "0"])
        .args(FAST)
        .args([
            "--",
            "sh",
            "-c",
            r#"d=$(cat); echo "ran $d"; case "$d" in 7|13) exit 3;; esac"#,
        ]));
    assert_eq!(ran.code, Some(7), "consume: {ran:?}");
    let mut ran_ids: Vec<u32> = ran
        .stdout()
        .lines()
        .filter_map(|l| l.strip_prefix("ran ")?.parse().ok())
        .collect();
    ran_ids.sort_unstable();
    assert_eq!(ran_ids, (1..=40).collect::<Vec<_>>(), "{ran:?}");
    assert!(server.lrange("q:active").is_empty());
    assert_eq!(server.zrange_withscores("q:dead").len(), 2);
    let counter = |field: &str| {
        String::from_utf8(server.hget_bytes("q:stats", field).unwrap_or_default()).unwrap()
    };
    assert_eq!(counter("completed"), "38");
    assert_eq!(counter("failed"), "2");

    // dead: the two failed jobs with their reason.
    let ran = run(qctl().args(["--json", "dead", "list", "q"]));
    assert_eq!(ran.code, Some(0), "dead list: {ran:?}");
    let dead: serde_json::Value = serde_json::from_str(&ran.stdout()).expect("dead list --json");
    let mut data: Vec<&str> = dead
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["data"].as_str().unwrap())
        .collect();
    data.sort_unstable();
    assert_eq!(data, ["13", "7"], "{ran:?}");
    assert!(ran.stdout().contains("exit 3"), "{ran:?}");

    // stats: the counts Redis holds.
    let ran = run(qctl().args(["--json", "stats", "q"]));
    assert_eq!(ran.code, Some(0), "stats: {ran:?}");
    let stats: serde_json::Value = serde_json::from_str(&ran.stdout()).expect("stats --json");
    assert_eq!(stats[0]["active"], 0, "{ran:?}");
    assert_eq!(stats[0]["dead"], 2, "{ran:?}");
    assert_eq!(stats[0]["done"], 38, "{ran:?}");
    assert_eq!(stats[0]["failed"], 2, "{ran:?}");

    // orphans: the job of a consumer gone silent goes back to active.
    plant_orphan(server, "orphan-1");
    let ran = run(qctl().args(["orphans", "q", "--yes"]));
    assert_eq!(ran.code, Some(0), "orphans: {ran:?}");
    assert_eq!(server.lrange("q:active"), ["orphan-1"], "{ran:?}");
}

#[test]
fn every_command_works_over_tls_with_the_ca() {
    let pki = Pki::generate();
    let Some(server) = tls_server(pki.server(false), &[]) else {
        return;
    };
    round_trip(&server, || qctl_tls(&server));
}

#[test]
fn every_command_works_when_the_server_requires_client_certificates() {
    let pki = Pki::generate();
    let Some(server) = tls_server(pki.server(true), &[]) else {
        return;
    };
    // Given by the environment this time.
    round_trip(&server, || {
        let mut cmd = qctl(&server);
        cmd.env("QCTL_TLS_CA_CERT", &pki.ca)
            .env("QCTL_TLS_CERT", &pki.client_cert)
            .env("QCTL_TLS_KEY", &pki.client_key);
        cmd
    });
}

#[test]
fn no_client_certificate_or_one_from_another_ca_is_exit_3_in_words() {
    let pki = Pki::generate();
    let Some(server) = tls_server(pki.server(true), &[]) else {
        return;
    };
    qctl_tls(&server)
        .args(["enqueue", "q", "--id", "kept", "data"])
        .assert()
        .success();
    let before = server.dump_all();
    let bound = Duration::from_secs(8 + 2 + 5);
    for args in commands() {
        let none = run(qctl(&server)
            .args(REFUSED)
            .arg("--tls-ca-cert")
            .arg(&pki.ca)
            .args(&args));
        let case = format!("{args:?} without a client certificate: {none:?}");
        assert_eq!(none.code, Some(3), "{case}");
        assert!(none.err.contains("cannot reach Redis"), "{case}");
        assert!(none.err.contains("client certificate"), "{case}");
        assert!(none.took < bound, "{case}");

        let stranger = run(qctl(&server)
            .args(REFUSED)
            .arg("--tls-ca-cert")
            .arg(&pki.ca)
            .arg("--tls-cert")
            .arg(&pki.stranger_cert)
            .arg("--tls-key")
            .arg(&pki.stranger_key)
            .args(&args));
        let case = format!("{args:?} with a client certificate of another CA: {stranger:?}");
        assert_eq!(stranger.code, Some(3), "{case}");
        // "refused the client certificate (UnknownCA)" when the alert arrives before the
        // connection is gone, "may refuse the client certificate" otherwise.
        assert!(stranger.err.contains("refuse"), "{case}");
        assert!(stranger.err.contains("client certificate"), "{case}");
        assert!(stranger.took < bound, "{case}");
    }
    assert_eq!(
        server.dump_all(),
        before,
        "a refused connection changed Redis"
    );
}

#[test]
fn a_server_certificate_from_another_ca_is_not_trusted() {
    let pki = Pki::generate();
    let Some(server) = tls_server(pki.server(false), &[]) else {
        return;
    };
    qctl_tls(&server)
        .args(["enqueue", "q", "--id", "kept", "data"])
        .assert()
        .success();
    let before = server.dump_all();
    for args in commands() {
        // The wrong CA given, and none at all (the system's store does not know the test CA).
        let wrong = run(qctl(&server)
            .args(QUICK)
            .arg("--tls-ca-cert")
            .arg(&pki.other_ca)
            .args(&args));
        let system = run(qctl(&server)
            .args(QUICK)
            .env_remove("SSL_CERT_FILE")
            .env_remove("SSL_CERT_DIR")
            .args(&args));
        for ran in [wrong, system] {
            let case = format!("{args:?}: {ran:?}");
            assert_eq!(ran.code, Some(3), "{case}");
            assert!(ran.err.contains("certificate not trusted"), "{case}");
            assert!(ran.err.contains("UnknownIssuer"), "{case}");
            assert!(
                ran.err.contains(&format!("127.0.0.1:{}", server.port())),
                "{case}"
            );
        }
    }
    assert_eq!(server.dump_all(), before);
}

#[test]
fn a_certificate_for_another_host_name_is_refused() {
    let pki = Pki::generate();
    let mut config = pki.server(false);
    config.cert = pki.misnamed_cert.clone();
    config.key = pki.misnamed_key.clone();
    let Some(server) = tls_server(config, &[]) else {
        return;
    };
    for host in ["127.0.0.1", "localhost"] {
        let ran = run(qctl(&server)
            .args(QUICK)
            .arg("--tls-ca-cert")
            .arg(&pki.ca)
            .arg("-u")
            .arg(format!("rediss://{host}:{}", server.port()))
            .arg("stats"));
        assert_eq!(ran.code, Some(3), "{host}: {ran:?}");
        assert!(
            ran.err
                .contains(&format!("certificate not valid for the host name {host}")),
            "{host}: {ran:?}"
        );
        assert!(ran.err.contains("redis.example"), "{host}: {ran:?}");
    }
}

#[test]
fn rediss_to_a_plain_port_is_exit_3_without_hanging() {
    let plain = RedisServer::start();
    let url = format!("rediss://127.0.0.1:{}", plain.port());
    // Within the connect timeout (2 s), retries included: 1.5 s to spare for starting a
    // process on a busy machine, less than a second timeout would take.
    let bound = Duration::from_millis(3_500);
    for args in commands() {
        let ran = run(qctl(&plain).args(QUICK).arg("-u").arg(&url).args(&args));
        let case = format!("{args:?}: {ran:?}");
        assert_eq!(ran.code, Some(3), "{case}");
        assert!(ran.err.contains("cannot reach Redis"), "{case}");
        assert!(ran.err.contains("TLS"), "{case}");
        assert!(ran.took < bound, "{case}");
    }
    assert!(plain.dump_all().is_empty());
}

#[test]
fn the_system_trust_store_is_used_without_tls_ca_cert() {
    let pki = Pki::generate();
    let Some(server) = tls_server(pki.server(false), &[]) else {
        return;
    };
    let ran = run(qctl(&server)
        .env("SSL_CERT_FILE", &pki.ca)
        .env_remove("SSL_CERT_DIR")
        .args(["enqueue", "q", "--id", "via-store", "hello"]));
    assert_eq!(ran.code, Some(0), "{ran:?}");
    assert_eq!(server.lrange("q:active"), ["via-store"]);
    let ran = run(qctl(&server)
        .env("SSL_CERT_FILE", &pki.ca)
        .args(["--json", "stats", "q"]));
    assert_eq!(ran.code, Some(0), "{ran:?}");
    assert!(ran.stdout().contains(r#""active":1"#), "{ran:?}");

    // A trust store that cannot be read is named, not taken for an unreachable server.
    let missing = pki.dir().join("no-such-store.pem");
    let ran = run(qctl(&server).env("SSL_CERT_FILE", &missing).arg("stats"));
    assert_eq!(ran.code, Some(6), "{ran:?}");
    assert!(ran.err.contains("trust store"), "{ran:?}");
    assert!(ran.err.contains(&missing.display().to_string()), "{ran:?}");
}

#[test]
fn tls_insecure_connects_to_an_unknown_ca_and_warns_naming_the_server() {
    let pki = Pki::generate();
    let mut config = pki.server(false);
    // Neither trusted nor for this host name: --tls-insecure checks nothing.
    config.cert = pki.misnamed_cert.clone();
    config.key = pki.misnamed_key.clone();
    let Some(server) = tls_server(config, &[]) else {
        return;
    };
    let named = format!("127.0.0.1:{}", server.port());
    let ran = run(qctl(&server).args(["--tls-insecure", "enqueue", "q", "--id", "a", "x"]));
    assert_eq!(ran.code, Some(0), "{ran:?}");
    assert!(ran.err.contains("warning"), "{ran:?}");
    assert!(ran.err.contains("--tls-insecure"), "{ran:?}");
    assert!(ran.err.contains("not verified"), "{ran:?}");
    assert!(ran.err.contains(&named), "{ran:?}");
    let ran = run(qctl(&server)
        .env("QCTL_TLS_INSECURE", "1")
        .args(["enqueue", "q", "--id", "b", "y"]));
    assert_eq!(ran.code, Some(0), "{ran:?}");
    assert!(ran.err.contains(&named), "{ran:?}");
    assert_eq!(server.lrange("q:active"), ["a", "b"]);
    // The same server without it is refused.
    let ran = run(qctl(&server).args(QUICK).arg("stats"));
    assert_eq!(ran.code, Some(3), "{ran:?}");
}

#[test]
fn unusable_certificate_files_are_named() {
    let pki = Pki::generate();
    let Some(server) = tls_server(pki.server(false), &[]) else {
        return;
    };
    let dir = pki.dir();
    let garbage = dir.join("garbage.pem");
    std::fs::write(&garbage, "this is not PEM\n").unwrap();
    let truncated = dir.join("truncated.pem");
    let ca_text = std::fs::read_to_string(&pki.ca).unwrap();
    std::fs::write(&truncated, &ca_text[..ca_text.len() / 2]).unwrap();
    let missing = dir.join("missing.pem");
    let bad_base64 = dir.join("bad-base64.pem");
    std::fs::write(
        &bad_base64,
        "-----BEGIN CERTIFICATE-----\n!!!!\n-----END CERTIFICATE-----\n",
    )
    .unwrap();

    let ca = |p: &Path| vec!["--tls-ca-cert".to_string(), p.display().to_string()];
    let client = |cert: &Path, key: &Path| {
        let mut v = ca(&pki.ca);
        v.extend([
            "--tls-cert".to_string(),
            cert.display().to_string(),
            "--tls-key".to_string(),
            key.display().to_string(),
        ]);
        v
    };
    // (options, the file the message must name, words it must hold)
    let cases: Vec<(Vec<String>, &Path, &str)> = vec![
        (ca(&missing), &missing, "cannot read"),
        (ca(dir), dir, "cannot read"),
        (ca(&garbage), &garbage, "no certificate"),
        (ca(&truncated), &truncated, "not valid PEM"),
        (ca(&bad_base64), &bad_base64, "not valid PEM"),
        (ca(&pki.client_key), &pki.client_key, "no certificate"),
        (client(&missing, &pki.client_key), &missing, "cannot read"),
        (client(&pki.client_cert, &missing), &missing, "cannot read"),
        (
            client(&garbage, &pki.client_key),
            &garbage,
            "no certificate",
        ),
        (
            client(&pki.client_cert, &garbage),
            &garbage,
            "no private key",
        ),
        (
            client(&pki.client_key, &pki.client_cert),
            &pki.client_key,
            "no certificate",
        ),
        (
            client(&pki.client_cert, &pki.stranger_key),
            &pki.stranger_key,
            "does not belong to the certificate",
        ),
    ];
    let before = server.dump_all();
    for (options, file, words) in &cases {
        for args in [&["stats"][..], &["enqueue", "q", "x"]] {
            let ran = run(qctl(&server).args(QUICK).args(options).args(args));
            let case = format!("{options:?} {args:?}: {ran:?}");
            assert_eq!(ran.code, Some(6), "{case}");
            assert!(ran.err.contains(&file.display().to_string()), "{case}");
            assert!(ran.err.contains(words), "{case}");
        }
    }
    assert_eq!(server.dump_all(), before);

    // Half a client certificate, or TLS options on a plain URL, are usage errors.
    let ran = run(qctl(&server)
        .arg("--tls-cert")
        .arg(&pki.client_cert)
        .arg("stats"));
    assert_eq!(ran.code, Some(2), "{ran:?}");
    let ran = run(qctl(&server)
        .arg("-u")
        .arg(format!("redis://127.0.0.1:{}", server.port()))
        .arg("--tls-ca-cert")
        .arg(&pki.ca)
        .arg("stats"));
    assert_eq!(ran.code, Some(2), "{ran:?}");
    assert!(ran.err.contains("rediss://"), "{ran:?}");
}

#[test]
fn a_password_works_over_tls_and_is_never_printed() {
    const PW: &str = "Tls-Secret-7";
    let pki = Pki::generate();
    let Some(server) = tls_server(pki.server(true), &["--requirepass", PW]) else {
        return;
    };
    let with_password = |pw: &str| {
        let mut cmd = qctl_tls(&server);
        cmd.args(QUICK).env("QCTL_REDIS_PASSWORD", pw);
        cmd
    };
    let ran = run(with_password(PW).args(["enqueue", "q", "--id", "a", "x"]));
    assert_eq!(ran.code, Some(0), "{ran:?}");
    let ran = run(with_password(PW)
        .args(["consume", "q", "--drain"])
        .args(FAST)
        .args(["--", "true"]));
    assert_eq!(ran.code, Some(0), "{ran:?}");
    let ran = run(with_password(PW).args(["--json", "stats", "q"]));
    assert_eq!(ran.code, Some(0), "{ran:?}");
    assert!(ran.stdout().contains(r#""done":1"#), "{ran:?}");

    let mut runs = Vec::new();
    let wrong = run(with_password("not-it").arg("stats"));
    assert_eq!(wrong.code, Some(4), "{wrong:?}");
    assert!(wrong.err.contains("authentication failed"), "{wrong:?}");
    runs.push(wrong);
    let none = run(qctl_tls(&server).args(QUICK).arg("stats"));
    assert_eq!(none.code, Some(4), "{none:?}");
    assert!(none.err.contains("NOAUTH"), "{none:?}");
    // The password in the URL, with a CA that does not trust the server.
    let untrusted = run(qctl(&server)
        .args(QUICK)
        .arg("-u")
        .arg(format!("rediss://:{PW}@127.0.0.1:{}", server.port()))
        .arg("--tls-ca-cert")
        .arg(&pki.other_ca)
        .arg("stats"));
    assert_eq!(untrusted.code, Some(3), "{untrusted:?}");
    assert!(
        untrusted.err.contains("certificate not trusted"),
        "{untrusted:?}"
    );
    runs.push(untrusted);
    let no_cert = run(qctl(&server)
        .args(QUICK)
        .env("QCTL_REDIS_PASSWORD", PW)
        .arg("--tls-ca-cert")
        .arg(&pki.ca)
        .arg("stats"));
    assert_eq!(no_cert.code, Some(3), "{no_cert:?}");
    runs.push(no_cert);
    for ran in runs {
        assert!(
            !ran.stdout().contains(PW) && !ran.err.contains(PW),
            "password printed: {ran:?}"
        );
    }
}
