//! The URL forms besides plain TCP: Unix sockets (`redis+unix://`, `unix://`) and database
//! numbers, each through the same small workload.

mod support;

use std::time::Duration;

use support::{qctl_url, RedisServer, FAST};

/// Enqueues three jobs, drains them and checks `stats` through `url`, checking in database
/// `db` of `server` that the jobs landed there and were all run; then empties that database.
fn workload(url: &str, server: &RedisServer, db: i64) {
    qctl_url(url)
        .args(["enqueue", "q", "--lines", "-q"])
        .write_stdin("a\nb\nc\n")
        .assert()
        .success();
    let mut conn = server.conn();
    let _: () = redis::cmd("SELECT").arg(db).query(&mut conn).unwrap();
    let queued: i64 = redis::cmd("LLEN").arg("q:active").query(&mut conn).unwrap();
    assert_eq!(queued, 3, "{url}: the jobs are in database {db}");
    qctl_url(url)
        .args(["consume", "q", "--drain"])
        .args(FAST)
        .args(["--", "true"])
        .timeout(Duration::from_secs(30))
        .assert()
        .success();
    let out = qctl_url(url)
        .args(["stats", "q", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let rows: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rows[0]["queue"], "q", "{url}");
    assert_eq!(rows[0]["done"], 3, "{url}");
    let left: i64 = redis::cmd("HLEN").arg("q:data").query(&mut conn).unwrap();
    assert_eq!(left, 0, "{url}");
    let _: () = redis::cmd("FLUSHDB").query(&mut conn).unwrap();
}

#[test]
fn unix_sockets_and_database_numbers_carry_the_whole_workload() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("redis.sock");
    let server = RedisServer::start_with(&[
        "--unixsocket",
        socket.to_str().unwrap(),
        "--unixsocketperm",
        "700",
    ]);
    let path = socket.display();
    workload(&format!("redis+unix://{path}"), &server, 0);
    workload(&format!("redis+unix://{path}?db=2"), &server, 2);
    workload(&format!("unix://{path}"), &server, 0);
    workload(&format!("{}/3", server.url()), &server, 3);
    // The socket is named in messages as such.
    let out = qctl_url("redis+unix:///nonexistent/redis.sock")
        .args(["stats"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unix:/nonexistent/redis.sock"), "{err}");
}
