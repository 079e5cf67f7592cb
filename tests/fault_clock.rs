//! Heartbeats no clock could have written are named for what they are.

mod support;

use std::time::Duration;

use support::{qctl, spawn_consumer_at, wait_until, RedisServer, FAST};

#[test]
fn a_heartbeat_of_plus_inf_is_named_for_what_it_is() {
    let server = RedisServer::start();
    let member = "q:inflight:0b7d3e2a-1c4f-4d5e-9f00-aabbccddeeff";
    let record = qctl::engine::Job::new("held", Some(b"x".to_vec())).encode();
    let _: () = server.cmd(&[b"HSET", b"q:data", b"held", &record]);
    let _: () = server.cmd(&[b"SADD", member.as_bytes(), b"held"]);
    let _: () = server.cmd(&[b"ZADD", b"q:consumers", b"+inf", member.as_bytes()]);
    let said = "heartbeat is +inf, which no clock writes";

    let out = qctl(&server).args(["consumers", "q"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(said) && !text.contains("infs"), "{text}");
    let out = qctl(&server)
        .args(["--json", "consumers", "q"])
        .output()
        .unwrap();
    let rows: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        rows[0]["problem"].as_str().unwrap().contains(said),
        "{rows}"
    );
    let out = qctl(&server)
        .args(["orphans", "q", "--dry-run"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(said), "{text}");
    let out = qctl(&server).args(["orphans", "q"]).output().unwrap();
    assert_eq!(out.status.code(), Some(7));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(said), "{text}");

    // A running consumer says so once, and recovers the job once the heartbeat stays put.
    let mut consumer = spawn_consumer_at(&server.url(), &[&["q"], FAST, &["--", "true"]].concat());
    assert!(
        wait_until(Duration::from_secs(20), || support::pending(&server) == 0),
        "{}",
        consumer.stderr()
    );
    assert_eq!(
        consumer
            .stop(Duration::from_secs(10))
            .and_then(|s| s.code()),
        Some(0)
    );
    let stderr = consumer.stderr();
    assert_eq!(stderr.matches(said).count(), 1, "{stderr}");
    assert!(!stderr.contains("infs"), "{stderr}");
}
