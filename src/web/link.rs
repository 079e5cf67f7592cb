//! The connection of the pages that read Redis when they are asked (a job, the health),
//! apart from the feed's: opened at the first such request, shared by every one after it (a
//! clone of one multiplexed connection), and opened again after the link failed.

use std::sync::Arc;

use tokio::sync::Mutex;

use crate::engine::{Error, Redis, ServerSpec};

/// Cheap to clone: clones share the connection.
#[derive(Clone)]
pub struct Link {
    spec: ServerSpec,
    redis: Arc<Mutex<Option<Redis>>>,
}

impl std::fmt::Debug for Link {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Link({})", self.spec.server())
    }
}

impl Link {
    pub fn new(spec: ServerSpec) -> Link {
        Link {
            spec,
            redis: Arc::new(Mutex::new(None)),
        }
    }

    /// The shared connection, opened if there is none.
    /// How to connect: for the calls that need a connection of their own (an order's
    /// answers, waited for with BLPOP).
    pub fn spec(&self) -> &ServerSpec {
        &self.spec
    }

    pub async fn redis(&self) -> Result<Redis, Error> {
        let mut held = self.redis.lock().await;
        if let Some(redis) = &*held {
            return Ok(redis.clone());
        }
        let redis = self.spec.connect().await?;
        *held = Some(redis.clone());
        Ok(redis)
    }

    /// After `error` on the connection: a failure of the link (not a refusal) has the next
    /// request open a fresh one.
    pub async fn failed(&self, error: &Error) {
        if !error.is_refusal() {
            *self.redis.lock().await = None;
        }
    }

    /// The server as messages name it (`host:port`).
    pub fn server(&self) -> &str {
        self.spec.server()
    }

    /// Whether qctl web was told the server is part of a Redis Cluster.
    pub fn is_cluster(&self) -> bool {
        self.spec.is_cluster()
    }
}
