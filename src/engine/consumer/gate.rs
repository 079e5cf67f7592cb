//! One consumer of several queues (`qctl consume high default low`): a consumer per queue,
//! each with its own keys, registration, pause, limits and drain, whose handlers share one
//! set of running places. The gate hands those places out: in the order the queues were given
//! (a job of an earlier queue always starts before one of a later queue while the earlier one
//! has work), or by weight (`--weights 6,3,1`: each queue with jobs waiting gets its share
//! of the starts, so a busy first queue never starves the others).
//!
//! In the strict order a queue gets a place only when every earlier queue has no job waiting
//! at the gate, holds none on its way there (reserved, not started), and found nothing to
//! reserve at its last look (it is empty, paused or held by its limits): a job that an
//! earlier queue is about to reserve is waited for.

use std::collections::{HashSet, VecDeque};
use std::sync::{Arc, Mutex};

use tokio::sync::oneshot;

/// How the gate chooses between queues.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Order {
    /// The first queue with a job waiting, and none before it that may have one coming.
    Strict,
    /// By weight, one per queue: each start goes to the queue furthest behind its share of
    /// the starts among those with work, so that while several have work they start jobs in
    /// the proportion of their weights (a queue ahead of its share waits for one behind it
    /// that has jobs coming, even with places free).
    Weighted(Vec<u32>),
}

/// The running places shared by the consumers of several queues.
pub struct Gate {
    order: Order,
    /// How many jobs may run at once now, over all the queues.
    capacity: Box<dyn Fn() -> usize + Send + Sync>,
    /// Told when a job waits because every place is taken (a `--pipe` consumer's handlers
    /// then take more at once: see `RunLimit::hold_back`).
    held_back: Box<dyn Fn() + Send + Sync>,
    state: Mutex<State>,
}

impl std::fmt::Debug for Gate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Gate({:?})", self.order)
    }
}

struct State {
    in_use: usize,
    /// Per queue, the jobs waiting for a place, oldest first.
    waiting: Vec<VecDeque<oneshot::Sender<Pass>>>,
    /// Per queue: its last reservation found nothing (or it is paused, held by its limits,
    /// or stopped).
    found_none: Vec<bool>,
    /// Per queue, the jobs it reserved that have not reached the gate yet (their ids'
    /// hashes: no copy of an id is kept per job).
    coming: Vec<HashSet<u64>>,
    /// Per queue, its starts divided by its weight: who is behind its share.
    served: Vec<f64>,
}

/// A running place: given back when dropped.
pub struct Pass {
    gate: Arc<Gate>,
}

impl Drop for Pass {
    fn drop(&mut self) {
        {
            let mut state = self.gate.state.lock().expect("gate lock");
            state.in_use -= 1;
        }
        self.gate.dispatch();
    }
}

impl Gate {
    /// A gate for `queues` queues; `capacity` says how many jobs may run at once.
    pub fn new(
        queues: usize,
        order: Order,
        capacity: Box<dyn Fn() -> usize + Send + Sync>,
        held_back: Box<dyn Fn() + Send + Sync>,
    ) -> Arc<Gate> {
        Arc::new(Gate {
            order,
            capacity,
            held_back,
            state: Mutex::new(State {
                in_use: 0,
                waiting: (0..queues).map(|_| VecDeque::new()).collect(),
                found_none: vec![false; queues],
                coming: (0..queues).map(|_| HashSet::new()).collect(),
                served: vec![0.0; queues],
            }),
        })
    }

    /// Waits for a place for job `id` of queue `queue`.
    pub async fn enter(self: &Arc<Gate>, queue: usize, id: &str) -> Pass {
        let (tx, rx) = oneshot::channel();
        {
            let mut state = self.state.lock().expect("gate lock");
            state.coming[queue].remove(&hashed(id));
            state.waiting[queue].push_back(tx);
        }
        self.dispatch();
        rx.await.expect("the gate lives as long as its waiters")
    }

    /// Notes what queue `queue`'s last look found: these jobs (none: it is empty, paused,
    /// held by its limits, or stopped). They are on their way to the gate.
    pub fn found<'a>(self: &Arc<Gate>, queue: usize, ids: impl IntoIterator<Item = &'a str>) {
        {
            let mut state = self.state.lock().expect("gate lock");
            let before = state.coming[queue].len();
            state.coming[queue].extend(ids.into_iter().map(hashed));
            state.found_none[queue] = state.coming[queue].len() == before;
        }
        self.dispatch();
    }

    /// Notes that jobs of queue `queue` are settled or given back: those that never reached
    /// the gate are no longer on their way.
    pub fn gone<'a>(self: &Arc<Gate>, queue: usize, ids: impl IntoIterator<Item = &'a str>) {
        let emptied = {
            let mut state = self.state.lock().expect("gate lock");
            let had = !state.coming[queue].is_empty();
            for id in ids {
                state.coming[queue].remove(&hashed(id));
            }
            had && state.coming[queue].is_empty()
        };
        if emptied {
            self.dispatch();
        }
    }

    /// Gives free places to waiting jobs, in the gate's order.
    fn dispatch(self: &Arc<Gate>) {
        loop {
            let grant = {
                let mut state = self.state.lock().expect("gate lock");
                // Waiters that went away (their job was cancelled) are forgotten.
                for waiting in state.waiting.iter_mut() {
                    while waiting.front().is_some_and(oneshot::Sender::is_closed) {
                        waiting.pop_front();
                    }
                }
                if state.in_use >= (self.capacity)().max(1) {
                    if state.waiting.iter().any(|w| !w.is_empty()) {
                        (self.held_back)();
                    }
                    return;
                }
                let Some(queue) = self.pick(&mut state) else {
                    return;
                };
                let tx = state.waiting[queue].pop_front().expect("picked a waiter");
                state.in_use += 1;
                tx
            };
            // A waiter gone meanwhile drops the pass, which gives the place back.
            let _ = grant.send(Pass { gate: self.clone() });
        }
    }

    /// The queue whose waiting job gets the next place, if one may.
    fn pick(&self, state: &mut State) -> Option<usize> {
        match &self.order {
            Order::Strict => {
                for (queue, waiting) in state.waiting.iter().enumerate() {
                    if !waiting.is_empty() {
                        return Some(queue);
                    }
                    if !(state.found_none[queue] && state.coming[queue].is_empty()) {
                        // It may have a job coming: later queues wait for it.
                        return None;
                    }
                }
                None
            }
            Order::Weighted(weights) => {
                let queues = state.waiting.len();
                let active = |q: usize| {
                    !state.waiting[q].is_empty()
                        || !state.coming[q].is_empty()
                        || !state.found_none[q]
                };
                // A queue that had no work does not come back with a backlog of starts: it
                // starts level with the one furthest behind.
                let floor = (0..queues)
                    .filter(|q| active(*q))
                    .map(|q| state.served[q])
                    .fold(f64::INFINITY, f64::min);
                if floor.is_finite() {
                    for q in 0..queues {
                        if state.served[q] < floor {
                            state.served[q] = floor;
                        }
                    }
                }
                let best = (0..queues)
                    .filter(|q| !state.waiting[*q].is_empty())
                    .min_by(|a, b| state.served[*a].total_cmp(&state.served[*b]))?;
                // One with work coming that is further behind goes first.
                if (0..queues).any(|q| {
                    q != best
                        && state.waiting[q].is_empty()
                        && active(q)
                        && state.served[q] < state.served[best]
                }) {
                    return None;
                }
                state.served[best] += 1.0 / f64::from(weights[best].max(1));
                Some(best)
            }
        }
    }
}

/// A job id's hash, as the gate notes the jobs on their way.
fn hashed(id: &str) -> u64 {
    use std::hash::{BuildHasher, BuildHasherDefault};
    BuildHasherDefault::<std::collections::hash_map::DefaultHasher>::default().hash_one(id)
}

/// A consumer's place among the queues of a gate: its poller tells the gate what it finds,
/// and each of its jobs waits there for a place before its handler starts.
#[derive(Clone)]
pub struct Member {
    pub gate: Arc<Gate>,
    pub queue: usize,
}

impl std::fmt::Debug for Member {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Member({})", self.queue)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn strict_order_gives_places_to_earlier_queues_first_and_waits_for_one_that_may_have_work(
    ) {
        let gate = Gate::new(2, Order::Strict, Box::new(|| 1), Box::new(|| {}));
        // Neither has looked yet: the second waits for the first.
        let g = gate.clone();
        let low = tokio::spawn(async move { g.enter(1, "l1").await });
        tokio::task::yield_now().await;
        assert!(!low.is_finished());
        // The first found a job: it is on its way, and the second still waits.
        gate.found(0, ["h1"]);
        tokio::task::yield_now().await;
        assert!(!low.is_finished());
        gate.found(0, []);
        tokio::task::yield_now().await;
        assert!(!low.is_finished());
        // Settled without reaching the gate (given back): nothing of the first is coming.
        gate.gone(0, ["h1"]);
        let pass = low.await.unwrap();
        // The place is taken: a job of the first queue waits, and gets it first.
        let g = gate.clone();
        let high = tokio::spawn(async move { g.enter(0, "h2").await });
        let g = gate.clone();
        let low = tokio::spawn(async move { g.enter(1, "l2").await });
        tokio::task::yield_now().await;
        drop(pass);
        let pass = high.await.unwrap();
        tokio::task::yield_now().await;
        assert!(!low.is_finished());
        drop(pass);
        drop(low.await.unwrap());
    }

    #[test]
    fn weights_share_the_starts() {
        let gate = Gate::new(
            2,
            Order::Weighted(vec![3, 1]),
            Box::new(|| 1),
            Box::new(|| {}),
        );
        let mut state = gate.state.lock().unwrap();
        for q in 0..2 {
            for _ in 0..1000 {
                state.waiting[q].push_back(oneshot::channel().0);
            }
        }
        let mut starts = [0; 2];
        for _ in 0..400 {
            let q = gate.pick(&mut state).unwrap();
            starts[q] += 1;
        }
        assert_eq!(starts, [300, 100]);
    }
}
