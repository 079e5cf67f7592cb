//! The model of one queue's state changes (and of a second queue that `qctl move` writes
//! into): the keys of the CurlyQ format and qctl's own keys where they matter, the consumers
//! (qctl's and Go CurlyQ's) and what their handlers are doing, and the actions that change
//! them, each doing what its script in lua/ does. docs/reliability.md says what the model
//! leaves out; tests/model/MAPPING.md ties each action to its script and engine function.
//!
//! Time is relative: a scheduled score is negative, due or in the future, and a heartbeat is
//! fresh (0), late (1) or expired (2, older than the orphan cut-off). `Tick` moves time on
//! when that changes something: a job in the future becomes due, a consumer that does not
//! beat ages. A consumer that is alive beats in time, so it never ages.

use std::collections::{BTreeMap, BTreeSet};

use stateright::{Model, Property};

pub type Id = u8;
pub type C = u8;

/// A scheduled job's score, relative to now.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Score {
    /// Below zero: a Go producer's zero time.
    Negative,
    Due,
    Future,
}

/// Where a job is in a queue (its state in an export, in `move`'s journal).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Place {
    Ready,
    Scheduled,
    Dead,
}

/// A job's record in `NAME:data`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Record {
    pub attempt: u8,
    /// Cannot be decoded.
    pub damaged: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    Qctl,
    Go,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    Alive,
    /// Its heartbeats fail (cut off from Redis) while it runs.
    Stalled,
    /// Stopped as a whole (SIGSTOP, a paused VM): neither its heartbeat nor its lease timer
    /// runs; its handlers may, and a settle call it sent before may still land.
    Frozen,
    /// Stopping, or its lease lost: it gives back what it holds and leaves.
    Leaving,
    Stopped,
    /// Killed: its handlers died with it.
    Dead,
}

/// The attempt a handler read for a damaged record (the consumer buries it).
pub const DAMAGED: u8 = u8::MAX;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Consumer {
    pub kind: Kind,
    pub status: Status,
    /// A member of NAME:consumers.
    pub registered: bool,
    /// Heartbeat age: 0 fresh, 1 late, 2 expired.
    pub age: u8,
    /// Jobs whose handler runs here, with the attempt their record had when reserved.
    pub running: BTreeMap<Id, u8>,
}

/// One queue's keys (the in-flight sets are the source queue's, in [`State`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Queue {
    pub active: Vec<Id>,
    pub scheduled: BTreeMap<Id, Score>,
    pub dead: BTreeSet<Id>,
    pub records: BTreeMap<Id, Record>,
    /// NAME:failures (qctl's).
    pub failures: BTreeSet<Id>,
}

impl Queue {
    /// How many times `id` is in the queue's list and sets.
    pub fn count(&self, id: Id) -> usize {
        self.active.iter().filter(|&&a| a == id).count()
            + usize::from(self.scheduled.contains_key(&id))
            + usize::from(self.dead.contains(&id))
    }

    /// The scheduled set in Redis's order: by score, then by member.
    pub fn ranked(&self) -> Vec<(Id, Score)> {
        let mut v: Vec<(Id, Score)> = self.scheduled.iter().map(|(i, s)| (*i, *s)).collect();
        v.sort_by_key(|(i, s)| (*s, *i));
        v
    }

    fn put(&mut self, id: Id, place: Place, score: Score) {
        match place {
            Place::Ready => self.active.push(id),
            Place::Scheduled => {
                self.scheduled.insert(id, score);
            }
            Place::Dead => {
                self.dead.insert(id);
            }
        }
    }

    fn remove(&mut self, id: Id) -> bool {
        let before = self.count(id);
        self.active.retain(|&a| a != id);
        self.scheduled.remove(&id);
        self.dead.remove(&id);
        before > 0
    }
}

/// What became of a job, as the test sees it (not in Redis).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Life {
    Never,
    Live,
    Acked,
    Deleted,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Ghost {
    pub life: Life,
    /// Runs that failed since it was enqueued (or requeued with its attempts reset).
    pub failed: u8,
    /// Acked by a Go consumer, which leaves qctl's failure record of it behind.
    pub go_acked: bool,
}

/// Transition properties, noted in the state when an action breaks them.
pub const STOLEN: u8 = 1;
pub const LATE_SETTLE: u8 = 2;
pub const ATTEMPT_DOWN: u8 = 4;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct State {
    pub src: Queue,
    pub dst: Queue,
    /// NAME:inflight:<uuid>, one per consumer.
    pub inflight: Vec<BTreeSet<Id>>,
    pub consumers: Vec<Consumer>,
    pub paused: bool,
    /// Consumers that qctl's orphan recovery read as expired and will recover next.
    pub planned: BTreeSet<C>,
    /// The source's journal NAME:move-out: id -> where it was, its score, its record and
    /// whether it had a failure record.
    pub move_out: BTreeMap<Id, (Place, Score, Record, bool)>,
    /// The destination's journal NAME:move-in.
    pub move_in: BTreeSet<Id>,
    pub ghost: Vec<Ghost>,
    pub broke: u8,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    /// push.lua / push_new.lua (qctl), CurlyQ's push (Go): ids in one call.
    Push(Kind, Vec<Id>),
    /// schedule.lua (qctl), CurlyQ's schedule (Go).
    Schedule(Kind, Id, Score),
    /// import.lua, or import_replace.lua when the flag is set.
    Import(Id, Place, bool),
    /// promote.lua (qctl), CurlyQ's scheduler (Go).
    Promote(Kind),
    Reserve(C),
    /// The handler succeeded: ack.lua.
    Ack(C, Id),
    /// The handler failed: retry.lua, or kill.lua when out of attempts.
    Fail(C, Id),
    /// A damaged record is moved to the dead set: kill.lua keeping the record.
    Bury(C, Id),
    /// Beats again: a stalled or frozen consumer comes back.
    Heartbeat(C),
    Stall(C),
    Freeze(C),
    Die(C),
    /// A qctl consumer stops: its handlers are interrupted.
    Stop(C),
    /// A Go consumer stops.
    GoStop(C),
    /// requeue.lua: give back what it holds, unchanged.
    Requeue(C),
    Deregister(C),
    /// qctl: read the expired consumers (ZRANGEBYSCORE).
    OrphanScan,
    /// qctl: recover.lua for one consumer read as expired.
    Recover(C),
    /// The Go custodian run by this Go consumer.
    Custodian(C),
    Tick,
    RequeueDead(Id, bool),
    DeleteDead(Id),
    DeleteScheduled(Id),
    DeleteReady(Id),
    RunNow(Id),
    RequeueStranded(Id),
    DropMissing(Id),
    Pause,
    Unpause,
    MoveTake(Place),
    MovePublish(Id),
    MoveReturn(Id),
    MoveForget(Id),
    MoveSweep(Id),
    /// find.lua: reads only.
    Find,
    /// rights.lua: reads only.
    CheckRights,
}

/// The names of every action, as MAPPING.md names them.
pub const ACTIONS: &[&str] = &[
    "Push",
    "Schedule",
    "Import",
    "Promote",
    "Reserve",
    "Ack",
    "Fail",
    "Bury",
    "Heartbeat",
    "Stall",
    "Freeze",
    "Die",
    "Stop",
    "GoStop",
    "Requeue",
    "Deregister",
    "OrphanScan",
    "Recover",
    "Custodian",
    "Tick",
    "RequeueDead",
    "DeleteDead",
    "DeleteScheduled",
    "DeleteReady",
    "RunNow",
    "RequeueStranded",
    "DropMissing",
    "Pause",
    "Unpause",
    "MoveTake",
    "MovePublish",
    "MoveReturn",
    "MoveForget",
    "MoveSweep",
    "Find",
    "CheckRights",
];

impl Action {
    /// The action's name, as MAPPING.md names it.
    pub fn name(&self) -> &'static str {
        match self {
            Action::Push(..) => "Push",
            Action::Schedule(..) => "Schedule",
            Action::Import(..) => "Import",
            Action::Promote(_) => "Promote",
            Action::Reserve(_) => "Reserve",
            Action::Ack(..) => "Ack",
            Action::Fail(..) => "Fail",
            Action::Bury(..) => "Bury",
            Action::Heartbeat(_) => "Heartbeat",
            Action::Stall(_) => "Stall",
            Action::Freeze(_) => "Freeze",
            Action::Die(_) => "Die",
            Action::Stop(_) => "Stop",
            Action::GoStop(_) => "GoStop",
            Action::Requeue(_) => "Requeue",
            Action::Deregister(_) => "Deregister",
            Action::OrphanScan => "OrphanScan",
            Action::Recover(_) => "Recover",
            Action::Custodian(_) => "Custodian",
            Action::Tick => "Tick",
            Action::RequeueDead(..) => "RequeueDead",
            Action::DeleteDead(_) => "DeleteDead",
            Action::DeleteScheduled(_) => "DeleteScheduled",
            Action::DeleteReady(_) => "DeleteReady",
            Action::RunNow(_) => "RunNow",
            Action::RequeueStranded(_) => "RequeueStranded",
            Action::DropMissing(_) => "DropMissing",
            Action::Pause => "Pause",
            Action::Unpause => "Unpause",
            Action::MoveTake(_) => "MoveTake",
            Action::MovePublish(_) => "MovePublish",
            Action::MoveReturn(_) => "MoveReturn",
            Action::MoveForget(_) => "MoveForget",
            Action::MoveSweep(_) => "MoveSweep",
            Action::Find => "Find",
            Action::CheckRights => "CheckRights",
        }
    }
}

/// One rule broken on purpose: the model must then find a counterexample.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Broken {
    /// ack, retry and kill change the queue whether or not the job is in the settling
    /// consumer's in-flight set.
    SettleWithoutInFlightCheck,
    /// recover.lua moves a consumer's jobs without looking at its heartbeat again.
    RecoverWithoutRecheck,
    /// A qctl consumer whose heartbeats fail keeps its handlers running past the cut-off.
    NoLeaseTimer,
    /// Reference defect 1: a Go consumer that reserves an undecodable record leaves it in
    /// flight.
    UndecodableStaysInFlight,
    /// Reference defect 2: the Go custodian moves more ids than Lua's unpack takes (one,
    /// here): they are popped, then the push fails.
    UnpackLimit,
    /// Reference defect 3: a Go producer writes a negative score (a zero time), and Go's
    /// scheduler deletes by rank what it read by score.
    NegativeScore,
    /// Reference defect 4: a Go consumer whose heartbeats fail keeps running its jobs.
    LapsedGoConsumer,
    /// Reference defect 7: a Go consumer's shutdown counts interrupted jobs as failures.
    ShutdownCountsFailures,
    /// Reference defect 8: dead jobs trimmed from the dead set, their records left.
    DeadTrimmedWithoutRecords,
}

/// Which actions run, and the bounds.
#[derive(Clone, Debug)]
pub struct Queues {
    pub jobs: u8,
    /// One per consumer.
    pub kinds: Vec<Kind>,
    /// How many runs a job gets: a job that failed attempts - 1 times is killed next.
    pub attempts: u8,
    /// Every way to enqueue (batches, a job due at once, import) and re-enqueue an id whose
    /// job ended; without, a job is pushed (by qctl or Go) or scheduled once.
    pub producers: bool,
    /// The dead and scheduled sets' commands, pause, repairs.
    pub admin: bool,
    /// `qctl move` to a second queue.
    pub moving: bool,
    /// Job 0 is enqueued with a damaged record.
    pub damaged: bool,
    /// The liveness check: consumer 0 stays alive, nothing pauses, each id is enqueued once,
    /// no admin and no move; the property that every job is eventually settled is checked.
    pub liveness: bool,
    /// Go consumers' heartbeats may lapse (stalled or frozen) while they run: reference
    /// defect 4, which the witnesses use.
    pub go_lapses: bool,
    pub broken: Option<Broken>,
}

impl Queues {
    pub fn new(jobs: u8, kinds: Vec<Kind>, attempts: u8) -> Queues {
        Queues {
            jobs,
            kinds,
            attempts,
            producers: false,
            admin: false,
            moving: false,
            damaged: false,
            liveness: false,
            go_lapses: false,
            broken: None,
        }
    }

    fn go_lapses(&self) -> bool {
        self.go_lapses || self.is(Broken::LapsedGoConsumer)
    }

    fn is(&self, b: Broken) -> bool {
        self.broken == Some(b)
    }

    fn ids(&self) -> impl Iterator<Item = Id> {
        0..self.jobs
    }

    fn cs(&self) -> impl Iterator<Item = C> {
        0..self.kinds.len() as C
    }

    /// Whether `id` may be enqueued now.
    fn enqueueable(&self, s: &State, id: Id) -> bool {
        match s.ghost[id as usize].life {
            Life::Never => true,
            Life::Acked | Life::Deleted => self.producers && !self.liveness,
            Life::Live => false,
        }
    }

    fn record_for(&self, id: Id) -> Record {
        Record {
            attempt: 0,
            damaged: self.damaged && id == 0,
        }
    }
}

/// The transition properties that the step from `s` by `a` to `n` breaks (bits).
pub fn transition(s: &State, a: &Action, n: &State) -> u8 {
    let mut broke = 0;
    for (c, before) in s.inflight.iter().enumerate() {
        let own = matches!(a,
            Action::Ack(x, _) | Action::Fail(x, _) | Action::Bury(x, _)
            | Action::Requeue(x) if *x as usize == c);
        let fresh = s.consumers[c].registered && s.consumers[c].age < 2;
        if fresh && !own && before.iter().any(|id| !n.inflight[c].contains(id)) {
            broke |= STOLEN;
        }
    }
    if let Action::Ack(c, id) | Action::Fail(c, id) | Action::Bury(c, id) = a {
        if !s.inflight[*c as usize].contains(id) {
            let mut after = n.clone();
            after.consumers = s.consumers.clone();
            after.ghost = s.ghost.clone();
            after.broke = s.broke;
            if after != *s {
                broke |= LATE_SETTLE;
            }
        }
    }
    let says_so = matches!(a, Action::RequeueDead(_, true) | Action::Import(_, _, true));
    for (id, r) in &s.src.records {
        if let Some(now) = n.src.records.get(id) {
            if now.attempt < r.attempt && !says_so {
                broke |= ATTEMPT_DOWN;
            }
        }
    }
    broke
}

fn holds(s: &State, id: Id) -> usize {
    s.inflight.iter().filter(|f| f.contains(&id)).count()
}

/// The number of places `id` is in: the source's list and sets, the in-flight sets, the
/// source's journal (until the destination notes the arrival) and the destination's keys.
pub fn places(s: &State, id: Id) -> usize {
    s.src.count(id)
        + holds(s, id)
        + usize::from(s.move_out.contains_key(&id) && !s.move_in.contains(&id))
        + s.dst.count(id)
}

/// Places in the source queue (its keys and journal, before arrival) and in the destination.
pub fn sides(s: &State, id: Id) -> (usize, usize) {
    (
        s.src.count(id)
            + holds(s, id)
            + usize::from(s.move_out.contains_key(&id) && !s.move_in.contains(&id)),
        s.dst.count(id),
    )
}

impl Queues {
    pub fn initial(&self) -> State {
        State {
            src: Queue::default(),
            dst: Queue::default(),
            inflight: self.kinds.iter().map(|_| BTreeSet::new()).collect(),
            consumers: self
                .kinds
                .iter()
                .map(|k| Consumer {
                    kind: *k,
                    status: Status::Alive,
                    registered: true,
                    age: 0,
                    running: BTreeMap::new(),
                })
                .collect(),
            paused: false,
            planned: BTreeSet::new(),
            move_out: BTreeMap::new(),
            move_in: BTreeSet::new(),
            ghost: self
                .ids()
                .map(|_| Ghost {
                    life: Life::Never,
                    failed: 0,
                    go_acked: false,
                })
                .collect(),
            broke: 0,
        }
    }

    /// Every action worth trying in `s` (an action that changes nothing there is dropped by
    /// [`Queues::step`]).
    pub fn all_actions(&self, s: &State, out: &mut Vec<Action>) {
        let kinds_present = |k: Kind| self.kinds.contains(&k);
        for id in self.ids() {
            if !self.enqueueable(s, id) {
                continue;
            }
            out.push(Action::Push(Kind::Qctl, vec![id]));
            if kinds_present(Kind::Go) {
                out.push(Action::Push(Kind::Go, vec![id]));
            }
            out.push(Action::Schedule(Kind::Qctl, id, Score::Future));
            if self.is(Broken::NegativeScore) {
                out.push(Action::Schedule(Kind::Go, id, Score::Negative));
            }
        }
        if self.producers {
            for id in self.ids() {
                if !self.enqueueable(s, id) {
                    continue;
                }
                for other in self.ids().filter(|o| {
                    *o != id && (self.enqueueable(s, *o) || s.src.records.contains_key(o))
                }) {
                    out.push(Action::Push(Kind::Qctl, vec![id, other]));
                }
                out.push(Action::Schedule(Kind::Qctl, id, Score::Due));
                if !self.liveness {
                    out.push(Action::Import(id, Place::Ready, false));
                    out.push(Action::Import(id, Place::Scheduled, false));
                    out.push(Action::Import(id, Place::Dead, false));
                }
            }
            if self.admin {
                for id in self.ids() {
                    out.push(Action::Import(id, Place::Ready, true));
                    out.push(Action::Import(id, Place::Dead, true));
                }
            }
        }
        out.push(Action::Promote(Kind::Qctl));
        if kinds_present(Kind::Go) {
            out.push(Action::Promote(Kind::Go));
        }
        for c in self.cs() {
            out.push(Action::Reserve(c));
            for id in s.consumers[c as usize].running.keys() {
                out.push(Action::Ack(c, *id));
                out.push(Action::Fail(c, *id));
                out.push(Action::Bury(c, *id));
            }
            out.push(Action::Heartbeat(c));
            if !(self.liveness && c == 0) {
                out.push(Action::Stall(c));
                out.push(Action::Freeze(c));
                out.push(Action::Die(c));
                out.push(Action::Stop(c));
                out.push(Action::GoStop(c));
            }
            out.push(Action::Requeue(c));
            out.push(Action::Deregister(c));
            out.push(Action::Recover(c));
            out.push(Action::Custodian(c));
        }
        out.push(Action::OrphanScan);
        out.push(Action::Tick);
        if self.admin {
            for id in self.ids() {
                out.push(Action::RequeueDead(id, true));
                out.push(Action::RequeueDead(id, false));
                out.push(Action::DeleteDead(id));
                out.push(Action::DeleteScheduled(id));
                out.push(Action::DeleteReady(id));
                out.push(Action::RunNow(id));
                out.push(Action::RequeueStranded(id));
                out.push(Action::DropMissing(id));
            }
            out.push(Action::Pause);
            out.push(Action::Unpause);
            out.push(Action::Find);
            out.push(Action::CheckRights);
        }
        if self.is(Broken::DeadTrimmedWithoutRecords) {
            for id in self.ids() {
                out.push(Action::DeleteDead(id));
            }
        }
        if self.moving {
            out.push(Action::MoveTake(Place::Ready));
            out.push(Action::MoveTake(Place::Scheduled));
            out.push(Action::MoveTake(Place::Dead));
            for id in self.ids() {
                out.push(Action::MovePublish(id));
                out.push(Action::MoveReturn(id));
                out.push(Action::MoveForget(id));
                out.push(Action::MoveSweep(id));
            }
        }
    }

    /// The state after `a`, or None when `a` cannot run in `s` or changes nothing.
    pub fn step(&self, s: &State, a: &Action) -> Option<State> {
        let mut n = s.clone();
        self.apply(&mut n, a)?;
        n.broke |= transition(s, a, &n);
        // The heartbeat age of a consumer that left NAME:consumers means nothing.
        for co in &mut n.consumers {
            if !co.registered {
                co.age = 0;
            }
        }
        (n != *s).then_some(n)
    }

    fn apply(&self, s: &mut State, a: &Action) -> Option<()> {
        match a {
            Action::Push(by, ids) => {
                if !self.enqueueable(s, ids[0]) || (*by == Kind::Go && ids.len() > 1) {
                    return None;
                }
                // An id whose job is on its way to another queue (its record is in the
                // journal) would be a second job of that id: left out.
                if ids
                    .iter()
                    .any(|i| !self.enqueueable(s, *i) && !s.src.records.contains_key(i))
                {
                    return None;
                }
                let mut seen = BTreeSet::new();
                for id in ids {
                    if s.src.records.contains_key(id) || !seen.insert(*id) {
                        continue;
                    }
                    s.src.records.insert(*id, self.record_for(*id));
                    s.src.active.push(*id);
                    s.ghost[*id as usize] = Ghost {
                        life: Life::Live,
                        failed: 0,
                        go_acked: false,
                    };
                }
            }
            Action::Schedule(_, id, score) => {
                if !self.enqueueable(s, *id) || s.src.records.contains_key(id) {
                    return None;
                }
                s.src.records.insert(*id, self.record_for(*id));
                s.src.scheduled.insert(*id, *score);
                s.ghost[*id as usize] = Ghost {
                    life: Life::Live,
                    failed: 0,
                    go_acked: false,
                };
            }
            Action::Import(id, place, replace) => {
                let record = self.record_for(*id);
                if s.src.records.contains_key(id) {
                    // import.lua skips it; import_replace.lua replaces it when it is in
                    // the list or a sorted set (not in flight).
                    if !replace || s.src.count(*id) == 0 {
                        return None;
                    }
                    s.src.remove(*id);
                    s.src.failures.remove(id);
                } else if !self.enqueueable(s, *id) {
                    return None;
                }
                s.src.records.insert(*id, record);
                s.src.put(*id, *place, Score::Future);
                s.ghost[*id as usize] = Ghost {
                    life: Life::Live,
                    failed: 0,
                    go_acked: false,
                };
            }
            Action::Promote(Kind::Qctl) => {
                let due: Vec<Id> = s
                    .src
                    .ranked()
                    .into_iter()
                    .filter(|(_, sc)| *sc != Score::Future)
                    .map(|(i, _)| i)
                    .collect();
                if due.is_empty() {
                    return None;
                }
                for id in due {
                    s.src.scheduled.remove(&id);
                    s.src.active.push(id);
                }
            }
            Action::Promote(Kind::Go) => {
                // CurlyQ's scheduler: ZRANGEBYSCORE 0 now, then ZREMRANGEBYRANK 0 k-1.
                let ranked = s.src.ranked();
                let due: Vec<Id> = ranked
                    .iter()
                    .filter(|(_, sc)| *sc == Score::Due)
                    .map(|(i, _)| *i)
                    .collect();
                if due.is_empty() {
                    return None;
                }
                for (id, _) in ranked.iter().take(due.len()) {
                    s.src.scheduled.remove(id);
                }
                s.src.active.extend(due);
            }
            Action::Reserve(c) => {
                let co = &s.consumers[*c as usize];
                if co.status != Status::Alive || !co.registered || s.src.active.is_empty() {
                    return None;
                }
                if co.kind == Kind::Qctl && s.paused {
                    return None;
                }
                let id = s.src.active.remove(0);
                s.inflight[*c as usize].insert(id);
                let record = s.src.records.get(&id).copied();
                let co = &mut s.consumers[*c as usize];
                match record {
                    Some(r) if !r.damaged => {
                        co.running.insert(id, r.attempt);
                    }
                    _ if co.kind == Kind::Qctl => {
                        co.running.insert(id, DAMAGED);
                    }
                    // The reference leaves it in flight.
                    _ if self.is(Broken::UndecodableStaysInFlight) => {}
                    _ => return None,
                }
            }
            Action::Ack(c, id) | Action::Fail(c, id) | Action::Bury(c, id) => {
                let co = &mut s.consumers[*c as usize];
                if !matches!(co.status, Status::Alive | Status::Stalled | Status::Frozen) {
                    return None;
                }
                let read = *co.running.get(id)?;
                if (read == DAMAGED) != matches!(a, Action::Bury(..)) {
                    return None;
                }
                co.running.remove(id);
                let kind = co.kind;
                // Counts above the attempts are kept at the attempts (a dead job requeued with
                // its attempts kept runs again): the model stays finite.
                let cap = self.attempts;
                if matches!(a, Action::Fail(..)) {
                    let g = &mut s.ghost[*id as usize];
                    g.failed = (g.failed + 1).min(cap);
                }
                let held = s.inflight[*c as usize].remove(id);
                if !held && !self.is(Broken::SettleWithoutInFlightCheck) {
                    return Some(());
                }
                match a {
                    Action::Ack(..) => {
                        s.src.records.remove(id);
                        if kind == Kind::Qctl {
                            s.src.failures.remove(id);
                        } else {
                            s.ghost[*id as usize].go_acked = true;
                        }
                        s.ghost[*id as usize].life = Life::Acked;
                    }
                    Action::Fail(..) => {
                        let next = Record {
                            attempt: (read + 1).min(cap),
                            damaged: false,
                        };
                        s.src.records.insert(*id, next);
                        if read + 1 < self.attempts {
                            s.src.scheduled.insert(*id, Score::Future);
                        } else {
                            s.src.dead.insert(*id);
                        }
                        if kind == Kind::Qctl {
                            s.src.failures.insert(*id);
                        }
                    }
                    _ => {
                        s.src.dead.insert(*id);
                        s.src.failures.insert(*id);
                    }
                }
            }
            Action::Heartbeat(c) => {
                let co = &mut s.consumers[*c as usize];
                if !matches!(co.status, Status::Stalled | Status::Frozen) {
                    return None;
                }
                if co.kind == Kind::Go {
                    co.status = Status::Alive;
                    co.age = 0;
                    co.registered = true;
                } else if !co.registered || co.age >= 2 {
                    // Its lease timer has run out (a thawed consumer's fires at once), or
                    // ZADD XX finds its entry gone: the lease is lost, its handlers stop.
                    co.status = Status::Leaving;
                    co.running.clear();
                } else {
                    co.status = Status::Alive;
                    co.age = 0;
                }
            }
            Action::Stall(c) => {
                let co = &mut s.consumers[*c as usize];
                let may = co.kind == Kind::Qctl || self.go_lapses();
                if co.status != Status::Alive || !may {
                    return None;
                }
                co.status = Status::Stalled;
            }
            Action::Freeze(c) => {
                let co = &mut s.consumers[*c as usize];
                let may = co.kind == Kind::Qctl || self.go_lapses();
                if co.status != Status::Alive || !may {
                    return None;
                }
                co.status = Status::Frozen;
            }
            Action::Die(c) => {
                let co = &mut s.consumers[*c as usize];
                if matches!(co.status, Status::Dead | Status::Stopped) {
                    return None;
                }
                co.status = Status::Dead;
                co.running.clear();
            }
            Action::Stop(c) => {
                let co = &mut s.consumers[*c as usize];
                if co.kind != Kind::Qctl || co.status != Status::Alive {
                    return None;
                }
                co.status = Status::Leaving;
                co.running.clear();
            }
            Action::GoStop(c) => {
                let co = &mut s.consumers[*c as usize];
                if co.kind != Kind::Go || co.status != Status::Alive {
                    return None;
                }
                let running = std::mem::take(&mut co.running);
                co.status = Status::Stopped;
                if !running.is_empty() {
                    if !self.is(Broken::ShutdownCountsFailures) {
                        return None;
                    }
                    // Each interrupted job is retried as a failed attempt.
                    for (id, read) in running {
                        if s.inflight[*c as usize].remove(&id) {
                            s.src.records.insert(
                                id,
                                Record {
                                    attempt: (read + 1).min(self.attempts),
                                    damaged: false,
                                },
                            );
                            s.src.scheduled.insert(id, Score::Future);
                        }
                    }
                }
            }
            Action::Requeue(c) => {
                if s.consumers[*c as usize].status != Status::Leaving {
                    return None;
                }
                let ids = std::mem::take(&mut s.inflight[*c as usize]);
                if ids.is_empty() {
                    return None;
                }
                s.src.active.extend(ids);
            }
            Action::Deregister(c) => {
                let co = &mut s.consumers[*c as usize];
                if co.status != Status::Leaving {
                    return None;
                }
                co.status = Status::Stopped;
                if s.inflight[*c as usize].is_empty() {
                    co.registered = false;
                }
            }
            Action::OrphanScan => {
                let expired: BTreeSet<C> = self
                    .cs()
                    .filter(|c| {
                        let co = &s.consumers[*c as usize];
                        co.registered && co.age >= 2
                    })
                    .collect();
                if expired.is_empty() || expired == s.planned {
                    return None;
                }
                s.planned = expired;
            }
            Action::Recover(c) => {
                if !s.planned.remove(c) {
                    return None;
                }
                let co = &s.consumers[*c as usize];
                let expired = co.registered && co.age >= 2;
                if expired || self.is(Broken::RecoverWithoutRecheck) {
                    let ids = std::mem::take(&mut s.inflight[*c as usize]);
                    s.src.active.extend(ids);
                    s.consumers[*c as usize].registered = false;
                }
            }
            Action::Custodian(by) => {
                let me = &s.consumers[*by as usize];
                if me.kind != Kind::Go || me.status != Status::Alive {
                    return None;
                }
                let expired: Vec<C> = self
                    .cs()
                    .filter(|c| {
                        let co = &s.consumers[*c as usize];
                        co.registered && co.age >= 2
                    })
                    .collect();
                if expired.is_empty() {
                    return None;
                }
                for c in expired {
                    let ids = std::mem::take(&mut s.inflight[c as usize]);
                    if self.is(Broken::UnpackLimit) && ids.len() > 1 {
                        // Popped, then RPUSH fails: the script stops here.
                        break;
                    }
                    s.src.active.extend(ids);
                    s.consumers[c as usize].registered = false;
                }
            }
            Action::Tick => {
                let future = s.src.scheduled.values().any(|sc| *sc == Score::Future);
                let aging = s
                    .consumers
                    .iter()
                    .any(|co| co.registered && co.status != Status::Alive && co.age < 2);
                if !future && !aging {
                    return None;
                }
                let scores = s
                    .src
                    .scheduled
                    .values_mut()
                    .chain(s.dst.scheduled.values_mut())
                    .chain(s.move_out.values_mut().map(|(_, sc, _, _)| sc));
                for sc in scores {
                    if *sc == Score::Future {
                        *sc = Score::Due;
                    }
                }
                for co in &mut s.consumers {
                    if co.registered && co.status != Status::Alive && co.age < 2 {
                        co.age += 1;
                        let lease_lost = co.age == 2
                            && co.kind == Kind::Qctl
                            && co.status == Status::Stalled
                            && !self.is(Broken::NoLeaseTimer);
                        if lease_lost {
                            // The lease timer fires before the cut-off: the handlers are
                            // stopped, none is settled.
                            co.status = Status::Leaving;
                            co.running.clear();
                        }
                    }
                }
            }
            Action::RequeueDead(id, reset) => {
                if !s.src.dead.remove(id) {
                    return None;
                }
                let r = s.src.records.get_mut(id)?;
                if *reset {
                    r.attempt = 0;
                    s.ghost[*id as usize].failed = 0;
                }
                s.src.failures.remove(id);
                s.src.active.push(*id);
            }
            Action::DeleteDead(id) => {
                if !s.src.dead.remove(id) {
                    return None;
                }
                if !self.is(Broken::DeadTrimmedWithoutRecords) {
                    s.src.records.remove(id);
                    s.src.failures.remove(id);
                }
                s.ghost[*id as usize].life = Life::Deleted;
            }
            Action::DeleteScheduled(id) => {
                s.src.scheduled.remove(id)?;
                s.src.records.remove(id);
                s.src.failures.remove(id);
                s.ghost[*id as usize].life = Life::Deleted;
            }
            Action::DeleteReady(id) => {
                if !s.src.active.contains(id) {
                    return None;
                }
                s.src.active.retain(|a| a != id);
                s.src.records.remove(id);
                s.src.failures.remove(id);
                s.ghost[*id as usize].life = Life::Deleted;
            }
            Action::RunNow(id) => {
                s.src.scheduled.remove(id)?;
                s.src.active.push(*id);
            }
            Action::RequeueStranded(id) => {
                if !s.src.records.contains_key(id) || s.src.count(*id) + holds(s, *id) > 0 {
                    return None;
                }
                s.src.active.push(*id);
            }
            Action::DropMissing(id) => {
                if s.src.records.contains_key(id) || s.src.count(*id) == 0 {
                    return None;
                }
                s.src.remove(*id);
            }
            Action::Pause => {
                if s.paused || self.liveness {
                    return None;
                }
                s.paused = true;
            }
            Action::Unpause => {
                if !s.paused {
                    return None;
                }
                s.paused = false;
            }
            Action::MoveTake(from) => {
                // One job a chunk; a chunk waits until the journal is empty.
                if !s.move_out.is_empty() {
                    return None;
                }
                let (id, score) = match from {
                    Place::Ready => (*s.src.active.first()?, Score::Due),
                    Place::Scheduled => *s.src.ranked().first()?,
                    Place::Dead => (*s.src.dead.iter().next()?, Score::Due),
                };
                let record = *s.src.records.get(&id)?;
                s.src.remove(id);
                s.src.records.remove(&id);
                let failure = s.src.failures.remove(&id);
                s.move_out.insert(id, (*from, score, record, failure));
            }
            Action::MovePublish(id) => {
                let (place, score, record, failure) = *s.move_out.get(id)?;
                if s.move_in.contains(id) || s.dst.records.contains_key(id) {
                    return None;
                }
                s.dst.records.insert(*id, record);
                if failure {
                    s.dst.failures.insert(*id);
                }
                s.dst.put(*id, place, score);
                s.move_in.insert(*id);
            }
            Action::MoveReturn(id) => {
                // The destination refused the chunk: it goes back where it was.
                if s.move_in.contains(id) || s.src.records.contains_key(id) {
                    return None;
                }
                let (place, score, record, failure) = s.move_out.remove(id)?;
                s.src.records.insert(*id, record);
                if failure {
                    s.src.failures.insert(*id);
                }
                match place {
                    Place::Ready => s.src.active.insert(0, *id),
                    _ => s.src.put(*id, place, score),
                }
            }
            Action::MoveForget(id) => {
                if !s.move_in.contains(id) {
                    return None;
                }
                s.move_out.remove(id)?;
            }
            Action::MoveSweep(id) => {
                if s.move_out.contains_key(id) || !s.move_in.remove(id) {
                    return None;
                }
            }
            Action::Find | Action::CheckRights => return None,
        }
        Some(())
    }
}

impl Model for Queues {
    type State = State;
    type Action = Action;

    fn init_states(&self) -> Vec<State> {
        vec![self.initial()]
    }

    fn actions(&self, s: &State, out: &mut Vec<Action>) {
        self.all_actions(s, out);
    }

    fn next_state(&self, s: &State, a: Action) -> Option<State> {
        self.step(s, &a)
    }

    fn properties(&self) -> Vec<Property<Self>> {
        let mut p = super::invariants::always();
        if self.liveness {
            p.push(super::invariants::liveness());
        }
        p
    }
}
