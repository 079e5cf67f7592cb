//! The properties checked in every reachable state of the model.

use stateright::Property;

use super::queue::{
    places, sides, Life, Queues, Score, State, Status, ATTEMPT_DOWN, LATE_SETTLE, STOLEN,
};

/// A job that is somewhere must be in one place; one that was acked or deleted in none.
pub const ONE_PLACE: &str =
    "every job is in exactly one of ready, scheduled, dead or one in-flight set, or was acked or deleted";
pub const RECORDS: &str = "a record exists exactly for the ids that are somewhere";
pub const FAILURES: &str =
    "a failure record exists only beside the job's record, or after a Go consumer acked the job";
pub const FRESH_HOLDER: &str =
    "a job held by a consumer whose heartbeat is fresh is never taken by another";
pub const LATE_SETTLE_NOTHING: &str =
    "a settle by a consumer that no longer holds the job changes nothing";
pub const ATTEMPTS: &str = "attempts never decrease except by a requeue that says so";
pub const ATTEMPT_COUNTS_FAILURES: &str = "a job's attempt counts only runs that failed";
pub const NO_NEGATIVE_SCORE: &str = "no scheduled score is negative";
pub const MOVE_ONE_QUEUE: &str = "a move leaves each job in exactly one of the two queues";
pub const ONE_HANDLER: &str =
    "a job runs in at most one handler at a time, but at a consumer frozen past the cut-off";
pub const SETTLED: &str =
    "with a consumer alive and the queue not paused, every job is eventually settled";

fn expected(s: &State, id: u8) -> usize {
    usize::from(s.ghost[id as usize].life == Life::Live)
}

fn one_place(_: &Queues, s: &State) -> bool {
    (0..s.ghost.len() as u8).all(|id| places(s, id) == expected(s, id))
}

fn records(_: &Queues, s: &State) -> bool {
    (0..s.ghost.len() as u8).all(|id| {
        let (src, dst) = sides(s, id);
        let journal_only = s.move_out.contains_key(&id) && !s.move_in.contains(&id);
        s.src.records.contains_key(&id) == (src > 0 && !journal_only)
            && s.dst.records.contains_key(&id) == (dst > 0)
    })
}

fn failures(_: &Queues, s: &State) -> bool {
    s.src
        .failures
        .iter()
        .all(|id| s.src.records.contains_key(id) || s.ghost[*id as usize].go_acked)
}

fn fresh_holder(_: &Queues, s: &State) -> bool {
    s.broke & STOLEN == 0
}

fn late_settle(_: &Queues, s: &State) -> bool {
    s.broke & LATE_SETTLE == 0
}

fn attempts(_: &Queues, s: &State) -> bool {
    s.broke & ATTEMPT_DOWN == 0
}

fn attempt_counts_failures(_: &Queues, s: &State) -> bool {
    s.src
        .records
        .iter()
        .all(|(id, r)| r.attempt <= s.ghost[*id as usize].failed)
}

fn no_negative_score(_: &Queues, s: &State) -> bool {
    s.src.scheduled.values().all(|sc| *sc != Score::Negative)
}

fn move_one_queue(_: &Queues, s: &State) -> bool {
    (0..s.ghost.len() as u8).all(|id| {
        let (src, dst) = sides(s, id);
        expected(s, id) == 0 || (src == 0) != (dst == 0)
    })
}

fn one_handler(_: &Queues, s: &State) -> bool {
    (0..s.ghost.len() as u8).all(|id| {
        s.consumers
            .iter()
            .filter(|c| c.status != Status::Frozen && c.running.contains_key(&id))
            .count()
            <= 1
    })
}

/// Settled: acked, dead or deleted (and every id was enqueued).
fn settled(_: &Queues, s: &State) -> bool {
    (0..s.ghost.len() as u8).all(|id| match s.ghost[id as usize].life {
        Life::Never => false,
        Life::Acked | Life::Deleted => true,
        Life::Live => s.src.dead.contains(&id),
    }) && s.consumers[0].status == Status::Alive
}

pub fn always() -> Vec<Property<Queues>> {
    vec![
        Property::always(ONE_PLACE, one_place),
        Property::always(RECORDS, records),
        Property::always(FAILURES, failures),
        Property::always(FRESH_HOLDER, fresh_holder),
        Property::always(LATE_SETTLE_NOTHING, late_settle),
        Property::always(ATTEMPTS, attempts),
        Property::always(ATTEMPT_COUNTS_FAILURES, attempt_counts_failures),
        Property::always(NO_NEGATIVE_SCORE, no_negative_score),
        Property::always(MOVE_ONE_QUEUE, move_one_queue),
        Property::always(ONE_HANDLER, one_handler),
    ]
}

pub fn liveness() -> Property<Queues> {
    Property::eventually(SETTLED, settled)
}

/// The names of the properties that do not hold in `s` (for the state-machine test).
pub fn broken_in(model: &Queues, s: &State) -> Vec<&'static str> {
    always()
        .into_iter()
        .filter(|p| !(p.condition)(model, s))
        .map(|p| p.name)
        .collect()
}
