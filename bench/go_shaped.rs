//! bench/consume's baseline: a consumer shaped as a Go CurlyQ consumer with a no-op handler.
//! Each of W workers has its own connection and thread and reserves ONE job at a time through
//! CurlyQ's reserve script, decodes its record, runs nothing, and acks it through CurlyQ's ack
//! script, until the queue is empty. Both scripts make the calls the reference's make (the
//! format's spec, "What each state change does"): reserve checks that the consumer is
//! registered, takes N ids from the head of NAME:active (LRANGE, LTRIM) into the in-flight set
//! (SADD), deletes the signal when it found fewer than N, and returns their records (HMGET);
//! ack removes the id from the
//! in-flight set (SREM) and, only if it was there, deletes its record (HDEL). Left out: the
//! heartbeat (one ZADD a minute), the scheduler and orphan passes, and the local buffer the Go
//! poller keeps (it does not change the calls per job).
//! Usage: cargo bench --bench go_shaped -- URL QUEUE WORKERS; prints `go-shaped W workers:
//! N jobs in S s: R jobs/s`.

use std::time::Instant;

const RESERVE: &str = r#"
-- KEYS: consumers, active, in-flight set, data, signal; ARGV: how many, the in-flight key
if not redis.call("zscore", KEYS[1], ARGV[2]) then
  return redis.error_reply("consumer not registered")
end
local ids = redis.call("lrange", KEYS[2], 0, tonumber(ARGV[1]) - 1)
if #ids < tonumber(ARGV[1]) then
  redis.call("del", KEYS[5])
end
if #ids == 0 then
  return {}
end
redis.call("sadd", KEYS[3], unpack(ids))
redis.call("ltrim", KEYS[2], #ids, -1)
return redis.call("hmget", KEYS[4], unpack(ids))
"#;

const ACK: &str = r#"
-- KEYS: in-flight set, data; ARGV: the id
if redis.call("srem", KEYS[1], ARGV[1]) == 1 then
  redis.call("hdel", KEYS[2], ARGV[1])
  return 1
end
return 0
"#;

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let [url, queue, workers] = &args[..] else {
        panic!("usage: go_shaped URL QUEUE WORKERS");
    };
    let workers: usize = workers.parse().expect("WORKERS is a number");
    let client = redis::Client::open(url.as_str()).expect("a Redis URL");
    let inflight = format!("{queue}:inflight:{}", uuid::Uuid::new_v4());
    let consumers = format!("{queue}:consumers");
    let mut conn = client.get_connection().expect("connect");
    let now: f64 = qctl::engine::now();
    let _: () = redis::cmd("ZADD")
        .arg(&consumers)
        .arg(now as i64)
        .arg(&inflight)
        .query(&mut conn)
        .expect("register");
    let started = Instant::now();
    let threads: Vec<_> = (0..workers)
        .map(|_| {
            let client = client.clone();
            let (queue, inflight, consumers) = (queue.clone(), inflight.clone(), consumers.clone());
            std::thread::spawn(move || {
                let mut conn = client.get_connection().expect("connect");
                let reserve = redis::Script::new(RESERVE);
                let ack = redis::Script::new(ACK);
                let (active, data) = (format!("{queue}:active"), format!("{queue}:data"));
                let signal = format!("{queue}:signal");
                let mut done = 0u64;
                loop {
                    let records: Vec<Option<Vec<u8>>> = reserve
                        .key(&consumers)
                        .key(&active)
                        .key(&inflight)
                        .key(&data)
                        .key(&signal)
                        .arg(1)
                        .arg(&inflight)
                        .invoke(&mut conn)
                        .expect("reserve");
                    let Some(record) = records.into_iter().next() else {
                        return done;
                    };
                    let job = qctl::engine::job::Job::decode(&record.expect("a record"))
                        .expect("a CurlyQ record");
                    // The handler: nothing.
                    let acked: i64 = ack
                        .key(&inflight)
                        .key(&data)
                        .arg(&job.id)
                        .invoke(&mut conn)
                        .expect("ack");
                    assert_eq!(acked, 1, "job {} was not in flight", job.id);
                    done += 1;
                }
            })
        })
        .collect();
    let jobs: u64 = threads
        .into_iter()
        .map(|t| t.join().expect("a worker"))
        .sum();
    let secs = started.elapsed().as_secs_f64();
    let _: () = redis::cmd("ZREM")
        .arg(&consumers)
        .arg(&inflight)
        .query(&mut conn)
        .expect("leave");
    println!(
        "go-shaped {workers} workers: {jobs} jobs in {secs:.3} s: {:.0} jobs/s",
        jobs as f64 / secs
    );
}
