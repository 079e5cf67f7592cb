//! The last failure of a job, kept by qctl in `NAME:failures` (id -> JSON) until the job is
//! acked, requeued or deleted.

use serde::{Deserialize, Serialize};

/// How much of a handler's stderr is kept for the failure record: its last bytes, so the
/// record's stderr may begin inside a line when the handler wrote more.
pub const STDERR_TAIL: usize = 4096;

/// Why and how one run of a job failed.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Failure {
    /// `exit 3`, `signal 9 (SIGKILL)`, `timeout`, `damaged: ...`, `spawn: ...`.
    pub reason: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signal: Option<i32>,
    #[serde(default)]
    pub timed_out: bool,
    /// The last 4 KiB of the handler's stderr (invalid UTF-8 replaced).
    #[serde(default)]
    pub stderr: String,
    #[serde(default)]
    pub duration_ms: u64,
    /// The job's Attempt when this run started (failures before it).
    #[serde(default)]
    pub attempt: i64,
    /// When it failed (unix seconds).
    #[serde(default)]
    pub time: f64,
    /// The consumer's in-flight key.
    #[serde(default)]
    pub consumer: String,
}

impl Failure {
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a failure serializes")
    }

    pub fn from_json(text: &[u8]) -> Option<Failure> {
        serde_json::from_slice(text).ok()
    }
}
