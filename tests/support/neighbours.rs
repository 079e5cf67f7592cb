//! Queues whose names start with another queue's name and a colon (`p:inflight:abc`,
//! `p:inflight`, `p:data`, `p:x:y` beside `p`): their keys match the patterns of `p`'s keys
//! (`p:inflight:*`, `p:*`), with every kind of key a queue has. A command on `p` must neither
//! fail on them, nor count, show, move nor delete them.

use super::RedisServer;

/// The uuid of the consumer of each neighbour (its in-flight set, description and running
/// jobs), expired long ago.
pub const CONSUMER: &str = "5f1c7a2e-3b4d-4e6f-8a9b-0c1d2e3f4a5b";

/// The neighbours of the queue `queue`: names that make their keys look like `queue`'s.
pub fn names(queue: &str) -> Vec<String> {
    [
        "inflight:abc",
        "inflight",
        &format!("inflight:{CONSUMER}"),
        "data",
        "x:y",
        &format!("consumer:{CONSUMER}"),
        "history:1700000000",
    ]
    .iter()
    .map(|rest| format!("{queue}:{rest}"))
    .collect()
}

/// Writes the neighbours of `queue`, each holding a job in every state (the one in flight at
/// a consumer expired long ago) and every key qctl keeps, plus a string under a name no
/// queue uses; returns every key written.
pub fn plant(server: &RedisServer, queue: &str) -> Vec<String> {
    let mut planted = Vec::new();
    for name in names(queue) {
        let k = |rest: &str| format!("{name}:{rest}");
        let inflight = k(&format!("inflight:{CONSUMER}"));
        let record = |id: &str| {
            qctl::engine::Job {
                id: id.into(),
                data: Some(b"neighbour".to_vec()),
                attempt: 0,
            }
            .encode()
        };
        let b = |s: &str| s.as_bytes().to_vec();
        let commands: Vec<Vec<Vec<u8>>> = vec![
            vec![b("HSET"), b(&k("data")), b("n-ready"), record("n-ready")],
            vec![b("HSET"), b(&k("data")), b("n-due"), record("n-due")],
            vec![b("HSET"), b(&k("data")), b("n-dead"), record("n-dead")],
            vec![b("HSET"), b(&k("data")), b("n-held"), record("n-held")],
            vec![b("RPUSH"), b(&k("active")), b("n-ready")],
            vec![b("ZADD"), b(&k("scheduled")), b("1"), b("n-due")],
            vec![b("ZADD"), b(&k("dead")), b("1"), b("n-dead")],
            vec![b("SADD"), b(&inflight), b("n-held")],
            vec![b("ZADD"), b(&k("consumers")), b("1"), b(&inflight)],
            vec![b("LPUSH"), b(&k("signal")), b("1")],
            vec![b("HSET"), b(&k("failures")), b("n-dead"), b("{}")],
            vec![b("SET"), b(&k("paused")), b("1")],
            vec![b("HSET"), b(&k("stats")), b("completed"), b("1")],
            vec![b("XADD"), b(&k("events")), b("*"), b("kind"), b("test")],
            vec![b("HSET"), b(&k("limits")), b("max_running"), b("1")],
            vec![b("RPUSH"), b(&k("acked")), b("n-gone")],
            vec![
                b("HSET"),
                b(&k(&format!("consumer:{CONSUMER}"))),
                b("host"),
                b("elsewhere"),
            ],
            vec![
                b("HSET"),
                b(&k(&format!("consumer:{CONSUMER}:running"))),
                b("n-held"),
                b("1"),
            ],
            vec![
                b("HSET"),
                b(&k("history:1700000040")),
                b("completed"),
                b("1"),
            ],
            vec![b("SET"), b(&k("other")), b("x")],
        ];
        for command in &commands {
            let args: Vec<&[u8]> = command.iter().map(Vec::as_slice).collect();
            let _: redis::Value = server.cmd(&args);
            planted.push(String::from_utf8(command[1].clone()).expect("a key name"));
        }
    }
    planted.sort();
    planted.dedup();
    planted
}

/// The type and contents of each of `keys`, for "left intact" checks.
pub fn dump(server: &RedisServer, keys: &[String]) -> Vec<(String, String, String)> {
    let mut con = server.conn();
    keys.iter()
        .map(|k| {
            let t: String = redis::cmd("TYPE").arg(k).query(&mut con).expect("TYPE");
            let read = match t.as_str() {
                "string" => redis::cmd("GET").arg(k).clone(),
                "list" => redis::cmd("LRANGE").arg(k).arg(0).arg(-1).clone(),
                "set" => redis::cmd("SMEMBERS").arg(k).clone(),
                "zset" => redis::cmd("ZRANGE")
                    .arg(k)
                    .arg(0)
                    .arg(-1)
                    .arg("WITHSCORES")
                    .clone(),
                "hash" => redis::cmd("HGETALL").arg(k).clone(),
                "stream" => redis::cmd("XRANGE").arg(k).arg("-").arg("+").clone(),
                _ => redis::cmd("EXISTS").arg(k).clone(),
            };
            let v: redis::Value = read.query(&mut con).expect("read a key");
            (k.clone(), t, format!("{v:?}"))
        })
        .collect()
}

/// The first of the neighbours' keys `planted` that `text` names.
pub fn mentioned<'a>(planted: &'a [String], text: &str) -> Option<&'a str> {
    planted
        .iter()
        .map(String::as_str)
        .find(|k| text.contains(k))
}
