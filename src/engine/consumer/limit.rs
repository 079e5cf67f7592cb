//! How many jobs the handlers may run at once when whatever runs them chooses it as it goes
//! (`consume --pipe`, whose handlers each take a depth of jobs): one share per handler, the
//! limit their sum. The processor starts a job only below the limit and the poller reserves
//! for it (and the buffer that goes with it), so handlers that slow down make the consumer
//! hold fewer jobs, and leave the rest to other consumers.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use tokio::sync::Notify;

#[derive(Debug)]
pub struct RunLimit {
    shares: Vec<AtomicUsize>,
    /// The largest share.
    most: usize,
    /// Whether the shares change as jobs run (false: each stays at its start).
    automatic: bool,
    /// Rung when a share changes.
    changed: Notify,
    /// How many times a job waited for room under the limit.
    held_back: AtomicU64,
}

impl RunLimit {
    /// `handlers` shares of `start` jobs each, each at most `most`; automatic when they may
    /// move.
    pub fn new(handlers: usize, start: usize, most: usize) -> RunLimit {
        let most = most.max(1);
        let start = start.clamp(1, most);
        RunLimit {
            shares: (0..handlers.max(1))
                .map(|_| AtomicUsize::new(start))
                .collect(),
            most,
            automatic: most > start,
            changed: Notify::new(),
            held_back: AtomicU64::new(0),
        }
    }

    /// The limit: the sum of the shares.
    pub fn total(&self) -> usize {
        self.shares.iter().map(|s| s.load(Ordering::Relaxed)).sum()
    }

    /// The most the limit can reach.
    pub fn most_total(&self) -> usize {
        self.most * self.shares.len()
    }

    /// The largest share.
    pub fn most(&self) -> usize {
        self.most
    }

    pub fn automatic(&self) -> bool {
        self.automatic
    }

    /// Each handler's share, in order.
    pub fn shares(&self) -> Vec<usize> {
        self.shares
            .iter()
            .map(|s| s.load(Ordering::Relaxed))
            .collect()
    }

    /// Handler `i`'s share (from 0).
    pub fn share(&self, i: usize) -> usize {
        self.shares[i].load(Ordering::Relaxed)
    }

    /// Sets handler `i`'s share, within 1 and the most; says whether it changed.
    pub fn set(&self, i: usize, n: usize) -> bool {
        let n = n.clamp(1, self.most);
        let changed = self.shares[i].swap(n, Ordering::Relaxed) != n;
        if changed {
            self.changed.notify_waiters();
        }
        changed
    }

    /// Notes that a job waited for room under the limit.
    pub(crate) fn hold_back(&self) {
        self.held_back.fetch_add(1, Ordering::Relaxed);
    }

    /// How many times a job waited for room under the limit so far: a handler compares two
    /// readings to learn whether more work was waiting for it.
    pub fn held_back(&self) -> u64 {
        self.held_back.load(Ordering::Relaxed)
    }

    /// Resolves at the next change of a share (created before the look it follows).
    pub(crate) fn changed(&self) -> tokio::sync::futures::Notified<'_> {
        self.changed.notified()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_stay_within_one_and_the_most_and_sum_to_the_limit() {
        let limit = RunLimit::new(2, 1, 64);
        assert!(limit.automatic());
        assert_eq!(limit.total(), 2);
        assert!(limit.set(0, 200));
        assert_eq!(limit.shares(), [64, 1]);
        assert!(!limit.set(0, 64));
        assert!(!limit.set(1, 0));
        assert_eq!(limit.total(), 65);
        assert_eq!(limit.most_total(), 128);
        assert!(!RunLimit::new(3, 8, 8).automatic());
    }
}
