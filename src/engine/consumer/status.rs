//! What each loop is doing and which jobs run, for the status report (SIGUSR1).

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde::Serialize;

/// The state of one loop.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum LoopState {
    Running,
    BackingOff {
        error: String,
        retry_in_ms: u64,
    },
    Paused,
    /// Quieted by an order: it takes no new job.
    Quiet,
    Stopping,
    Stopped,
}

#[derive(Default)]
struct Inner {
    loops: BTreeMap<&'static str, LoopState>,
    running: HashMap<String, (i64, Instant)>,
}

/// Shared, cheap to clone.
#[derive(Clone, Default)]
pub struct Status(Arc<Mutex<Inner>>);

/// A point-in-time copy of [`Status`].
#[derive(Debug, Serialize)]
pub struct Snapshot {
    pub loops: BTreeMap<&'static str, LoopState>,
    /// (id, attempt, seconds running)
    pub running: Vec<(String, i64, f64)>,
}

impl Status {
    pub fn set(&self, name: &'static str, state: LoopState) {
        self.0
            .lock()
            .expect("status lock")
            .loops
            .insert(name, state);
    }

    pub fn started(&self, id: &str, attempt: i64) {
        self.0
            .lock()
            .expect("status lock")
            .running
            .insert(id.to_string(), (attempt, Instant::now()));
    }

    pub fn finished(&self, id: &str) {
        self.0.lock().expect("status lock").running.remove(id);
    }

    pub fn snapshot(&self) -> Snapshot {
        let inner = self.0.lock().expect("status lock");
        let mut running: Vec<(String, i64, f64)> = inner
            .running
            .iter()
            .map(|(id, (attempt, since))| (id.clone(), *attempt, since.elapsed().as_secs_f64()))
            .collect();
        running.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        Snapshot {
            loops: inner.loops.clone(),
            running,
        }
    }
}
