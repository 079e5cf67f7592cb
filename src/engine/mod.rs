//! The queue engine: keys, the job record, the Lua scripts and the operations on a CurlyQ
//! queue. No terminal code: every function returns plain values for the caller to render.

pub mod bulk;
pub mod changes;
pub mod conn;
pub mod consumer;
pub mod consumers;
pub mod doctor;
pub mod enqueue;
pub mod error;
pub mod failure;
pub mod find;
pub mod groups;
pub mod health;
pub mod history;
pub mod inflight;
pub mod integrity;
pub mod job;
pub mod jobs;
pub mod keys;
pub mod limits;
pub mod listing;
pub mod r#move;
pub mod orders;
pub mod parse;
pub mod queues;
pub mod redis_url;
pub mod scheduled;
pub mod scripts;
pub mod snapshot;
pub mod tail;
pub mod text;
pub mod transfer;
pub mod wait;

pub use conn::{Redis, ServerSpec};
pub use error::{Error, ExitCode};
pub use job::Job;
pub use keys::QueueKeys;

/// The local clock in unix seconds.
pub fn now() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

/// Panics at `point` when `$QCTL_TEST_PANIC` names it, in debug builds only: tests check that a
/// panic there still returns a consumer's jobs and ends with exit 1 (tests/shell_contract.rs).
pub fn test_panic(point: &str) {
    #[cfg(debug_assertions)]
    if std::env::var("QCTL_TEST_PANIC").is_ok_and(|p| p == point) {
        panic!("QCTL_TEST_PANIC={point}");
    }
    #[cfg(not(debug_assertions))]
    let _ = point;
}
