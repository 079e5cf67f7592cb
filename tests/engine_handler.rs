//! The consumer driven through its `Handler` trait by a handler in Rust (no process): the
//! engine's own rate, with no spawning in it.

mod support;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use qctl::engine::consumer::{Config, Consumer, Handler, JobInput, Outcome, RunFuture, RunReport};
use qctl::engine::ServerSpec;
use support::{qctl, RedisServer};
use tokio_util::sync::CancellationToken;

/// Succeeds at once, except for data "fail" (which asks for its retry in 600 s).
struct Immediate {
    ran: AtomicU64,
}

impl Handler for Immediate {
    fn run<'a>(
        &'a self,
        job: JobInput<'a>,
        _cancel: &'a CancellationToken,
        _kill_now: &'a CancellationToken,
    ) -> RunFuture<'a> {
        Box::pin(async move {
            self.ran.fetch_add(1, Ordering::Relaxed);
            if job.data == b"fail" {
                let failed = Outcome::Failed {
                    exit_code: None,
                    signal: None,
                    timed_out: false,
                };
                return RunReport {
                    reason: Some("refused".into()),
                    retry_in: Some(Duration::from_secs(600)),
                    ..RunReport::new(failed, Duration::ZERO)
                };
            }
            RunReport::new(Outcome::Succeeded, Duration::ZERO)
        })
    }
}

fn config(queue: &str) -> Config {
    Config {
        queue: queue.into(),
        concurrency: 2,
        buffer: 2,
        heartbeat: Duration::from_secs(1),
        orphan_after: Duration::from_secs(3),
        max_retries: 5,
        max_backoff: Duration::from_secs(7 * 86400),
        poll_interval: Duration::from_millis(200),
        scheduler_interval: Duration::from_secs(1),
        shutdown_grace: Duration::from_secs(5),
        drain: true,
        max_jobs: None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rust_handler_drains_the_queue_and_shows_the_engines_own_rate() {
    let server = RedisServer::start();
    let jobs = 5000;
    let mut lines: String = (0..jobs).map(|i| format!("{i}\n")).collect();
    lines.push_str("fail\n");
    qctl(&server)
        .args(["enqueue", "q", "--lines"])
        .write_stdin(lines)
        .assert()
        .success();
    let spec = ServerSpec::parse(
        &server.url(),
        Duration::from_secs(5),
        Duration::from_secs(5),
    )
    .unwrap();
    let handler = Arc::new(Immediate {
        ran: AtomicU64::new(0),
    });
    let (tx, _events) = tokio::sync::mpsc::unbounded_channel();
    let consumer = Consumer::connect(spec, config("q"), handler.clone(), tx)
        .await
        .unwrap();
    let started = Instant::now();
    let (summary, failure) = consumer.run().await;
    let elapsed = started.elapsed();
    assert!(failure.is_none(), "{failure:?}");
    assert_eq!(summary.succeeded, jobs);
    assert_eq!(summary.retried, 1);
    assert_eq!(handler.ran.load(Ordering::Relaxed), jobs + 1);
    let scheduled = server.zrange_withscores("q:scheduled");
    assert_eq!(scheduled.len(), 1, "the failure's own retry delay is used");
    assert!(scheduled[0].1 > qctl::engine::now() + 590.0);
    println!(
        "engine ceiling (Rust handler, -c 2, debug build): {:.0} jobs/s",
        jobs as f64 / elapsed.as_secs_f64()
    );
}
