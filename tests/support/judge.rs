//! The judge of a fault run's history: every job of the run sorted into one of five classes,
//! the way Jepsen's total-queue checker sorts the messages of a queue.
//!
//! A run's history is what the test saw: each enqueue, acknowledged (qctl enqueue exited 0
//! with the id) or indeterminate (the enqueue failed or was cut: the job may or may not
//! exist); each start of a handler (the ledger's lines: id, handler pid, consumer pid, time);
//! each fault injected (what, when, and what it hit); and where every job is at the end
//! (read from Redis: `NAME:acked`, the dead and scheduled sets, the ready list, the in-flight
//! sets). The classes:
//!
//! - ok: an acknowledged enqueue that ran once and was settled (acked or dead);
//! - lost: an acknowledged enqueue that never ran and is nowhere to run, or that ran once and
//!   then vanished without being acked;
//! - recovered: an indeterminate enqueue that did arrive, or a job a fault stranded (held by
//!   the consumer it hit, not started there) that recovery then ran once;
//! - unexpected: a job that ran or is in the queue but was never enqueued, not even
//!   indeterminately;
//! - duplicated: a job that ran more often than once (plus the failed runs the test allows
//!   it). Each repeat is tied to the fault that explains it: the run before it was on the
//!   consumer the fault hit (and, when the test read it, among the jobs that consumer held)
//!   and started before the fault, the repeat after it; or Redis lost acknowledged writes
//!   (a restart without persistence, a failover to a replica behind its master) between the
//!   two runs. A repeat no fault explains is a failure of its own.
//!
//! Two counts are told beside the classes and judged by the tests themselves: acknowledged
//! jobs still waiting to run at the end (ready, scheduled, in flight: not lost, and a test
//! that drained the queue says there are none), and indeterminate enqueues that never
//! arrived (neither lost nor recovered).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write as _;
use std::time::SystemTime;

use super::ledger::Run;
use super::RedisServer;

/// How long after a fault a handler that its consumer started just before it may note its
/// start (the time its shell takes to run `date`, on a loaded machine).
const START_SLACK: std::time::Duration = std::time::Duration::from_secs(1);
/// How an enqueue ended, as the test saw it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Enqueue {
    /// qctl enqueue exited 0 with the id: the job exists.
    Acknowledged,
    /// The enqueue failed or was cut: the job may or may not exist.
    Indeterminate,
}

/// What a fault hit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Hit {
    /// A consumer process (its pid): killed, stopped, or cut off alone. `held`: the ids its
    /// in-flight set held at the fault, when the test read them.
    Consumer { pid: i32, held: Option<Vec<String>> },
    /// The network between these consumers (pids) and Redis: reset, blackholed, slowed.
    Network { consumers: Vec<i32> },
    /// A producer (its pid), killed or cut off while it enqueued: it leaves enqueues
    /// indeterminate, and explains no job run twice.
    Producer { pid: i32 },
    /// The Redis server, or the master of the queue's slot: restarted, frozen, failed over,
    /// its slot migrated. `lost_writes`: it may have come back without writes it had
    /// acknowledged (no persistence, a replica promoted before it had them).
    Redis { lost_writes: bool },
}

/// A fault injected in the run.
#[derive(Clone, Debug)]
pub struct Fault {
    /// How the figures name it ("SIGKILL of consumer 1234").
    pub name: String,
    pub at: SystemTime,
    pub hit: Hit,
}

/// Where the jobs are at the end of the run.
#[derive(Clone, Debug, Default)]
pub struct End {
    /// `NAME:acked`: the ids qctl consumers acked (the newest 10,000).
    pub acked: HashSet<String>,
    pub dead: HashSet<String>,
    pub ready: HashSet<String>,
    pub scheduled: HashSet<String>,
    /// In-flight key -> the ids it holds.
    pub in_flight: BTreeMap<String, HashSet<String>>,
}

impl End {
    /// Reads the end state of `queue` from `server` (for a cluster: the master of the
    /// queue's slot; every key of a queue is in that slot).
    pub fn read(server: &RedisServer, queue: &str) -> End {
        let mut con = server.conn();
        let list = |con: &mut redis::Connection, key: String| -> HashSet<String> {
            redis::cmd("LRANGE")
                .arg(key)
                .arg(0)
                .arg(-1)
                .query::<Vec<String>>(con)
                .expect("LRANGE")
                .into_iter()
                .collect()
        };
        let zset = |con: &mut redis::Connection, key: String| -> HashSet<String> {
            redis::cmd("ZRANGE")
                .arg(key)
                .arg(0)
                .arg(-1)
                .query::<Vec<String>>(con)
                .expect("ZRANGE")
                .into_iter()
                .collect()
        };
        let mut end = End {
            acked: list(&mut con, format!("{queue}:acked")),
            dead: zset(&mut con, format!("{queue}:dead")),
            ready: list(&mut con, format!("{queue}:active")),
            scheduled: zset(&mut con, format!("{queue}:scheduled")),
            in_flight: BTreeMap::new(),
        };
        let pattern = format!("{}:inflight:*", qctl::engine::keys::glob_escape(queue));
        let mut cursor = 0u64;
        let mut keys = HashSet::new();
        loop {
            let (next, batch): (u64, Vec<String>) = redis::cmd("SCAN")
                .arg(cursor)
                .arg("MATCH")
                .arg(&pattern)
                .arg("COUNT")
                .arg(1000)
                .query(&mut con)
                .expect("SCAN");
            keys.extend(batch);
            if next == 0 {
                break;
            }
            cursor = next;
        }
        for key in keys {
            let ids: Vec<String> = redis::cmd("SMEMBERS")
                .arg(&key)
                .query(&mut con)
                .expect("SMEMBERS");
            end.in_flight.insert(key, ids.into_iter().collect());
        }
        end
    }

    /// Adds where the jobs are in another queue: for a run over two queues (a move).
    pub fn merge(&mut self, other: End) {
        self.acked.extend(other.acked);
        self.dead.extend(other.dead);
        self.ready.extend(other.ready);
        self.scheduled.extend(other.scheduled);
        self.in_flight.extend(other.in_flight);
    }

    /// Keeps only the ids `keep` accepts: for a run judged on part of its jobs.
    pub fn retain(&mut self, keep: impl Fn(&str) -> bool) {
        for ids in [
            &mut self.acked,
            &mut self.dead,
            &mut self.ready,
            &mut self.scheduled,
        ] {
            ids.retain(|id| keep(id));
        }
        for ids in self.in_flight.values_mut() {
            ids.retain(|id| keep(id));
        }
    }

    fn place(&self, id: &str) -> Place {
        if self.ready.contains(id)
            || self.scheduled.contains(id)
            || self.in_flight.values().any(|ids| ids.contains(id))
        {
            Place::Waiting
        } else if self.acked.contains(id) || self.dead.contains(id) {
            Place::Settled
        } else {
            Place::Nowhere
        }
    }

    fn ids(&self) -> impl Iterator<Item = &String> {
        self.acked
            .iter()
            .chain(&self.dead)
            .chain(&self.ready)
            .chain(&self.scheduled)
            .chain(self.in_flight.values().flatten())
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Place {
    /// Ready, scheduled or in flight: it may still run.
    Waiting,
    /// Acked or dead.
    Settled,
    Nowhere,
}

/// The five classes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Class {
    Ok,
    Lost,
    Recovered,
    Unexpected,
    Duplicated,
}

impl Class {
    pub const ALL: [Class; 5] = [
        Class::Ok,
        Class::Lost,
        Class::Recovered,
        Class::Unexpected,
        Class::Duplicated,
    ];

    pub fn word(self) -> &'static str {
        match self {
            Class::Ok => "ok",
            Class::Lost => "lost",
            Class::Recovered => "recovered",
            Class::Unexpected => "unexpected",
            Class::Duplicated => "duplicated",
        }
    }
}

/// A job that ran more often than it may, and what explains each repeat.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Duplicate {
    pub id: String,
    pub runs: usize,
    /// Per repeat beyond what the job may run: the name of the fault that explains it, or
    /// None.
    pub faults: Vec<Option<String>>,
}

impl Duplicate {
    pub fn explained(&self) -> bool {
        self.faults.iter().all(Option::is_some)
    }
}

/// A fault run's history, built up as the test goes.
#[derive(Clone, Debug, Default)]
pub struct History {
    enqueued: Vec<(String, Enqueue)>,
    runs: Vec<Run>,
    allowed: HashMap<String, usize>,
    faults: Vec<Fault>,
}

impl History {
    pub fn new() -> History {
        History::default()
    }

    /// Enqueues of these ids, ended as `how`.
    pub fn enqueued<S: AsRef<str>>(&mut self, ids: &[S], how: Enqueue) -> &mut History {
        self.enqueued
            .extend(ids.iter().map(|id| (id.as_ref().to_string(), how)));
        self
    }

    /// The handler runs (the ledger's entries).
    pub fn ran(&mut self, runs: impl IntoIterator<Item = Run>) -> &mut History {
        self.runs.extend(runs);
        self
    }

    /// Job `id` may run `extra` times more than once: the test made those runs fail.
    pub fn may_repeat(&mut self, id: &str, extra: usize) -> &mut History {
        self.allowed.insert(id.to_string(), extra);
        self
    }

    pub fn fault(&mut self, name: &str, at: SystemTime, hit: Hit) -> &mut History {
        self.faults.push(Fault {
            name: name.to_string(),
            at,
            hit,
        });
        self
    }

    /// Sorts every job of the history into its class, given where the jobs are at `end`.
    pub fn judge(&self, end: &End) -> Verdict {
        let mut how: HashMap<&str, Enqueue> = HashMap::new();
        for (id, e) in &self.enqueued {
            // One acknowledged enqueue of an id is enough to know it exists.
            let slot = how.entry(id.as_str()).or_insert(*e);
            if *e == Enqueue::Acknowledged {
                *slot = Enqueue::Acknowledged;
            }
        }
        let mut runs: HashMap<&str, Vec<&Run>> = HashMap::new();
        for run in &self.runs {
            runs.entry(run.id.as_str()).or_default().push(run);
        }
        for list in runs.values_mut() {
            list.sort_by_key(|r| r.started);
        }
        let mut ids: Vec<&str> = how.keys().copied().collect();
        ids.extend(runs.keys().copied());
        ids.extend(end.ids().map(String::as_str));
        ids.sort_unstable();
        ids.dedup();

        let mut verdict = Verdict::default();
        for id in ids {
            let ran: &[&Run] = runs.get(id).map_or(&[], Vec::as_slice);
            let place = end.place(id);
            let class = match how.get(id) {
                None => Class::Unexpected,
                Some(_) if ran.len() > 1 + self.allowed.get(id).copied().unwrap_or(0) => {
                    let extra = ran.len() - 1 - self.allowed.get(id).copied().unwrap_or(0);
                    verdict.duplicates.push(self.explain(id, ran, extra));
                    Class::Duplicated
                }
                Some(Enqueue::Indeterminate) => {
                    if ran.is_empty() && place == Place::Nowhere {
                        verdict.never_arrived.push(id.to_string());
                        continue;
                    }
                    if ran.is_empty() && place == Place::Waiting {
                        verdict.waiting.push(id.to_string());
                        continue;
                    }
                    Class::Recovered
                }
                Some(Enqueue::Acknowledged) => match (ran.is_empty(), place) {
                    (_, Place::Waiting) => {
                        verdict.waiting.push(id.to_string());
                        continue;
                    }
                    (true, Place::Nowhere) => Class::Lost,
                    // Ran, then vanished without an ack: its success was never recorded.
                    (false, Place::Nowhere) => Class::Lost,
                    (_, Place::Settled) if self.stranded(id, ran) => Class::Recovered,
                    (_, Place::Settled) => Class::Ok,
                },
            };
            verdict
                .classes
                .entry(class)
                .or_default()
                .push(id.to_string());
        }
        verdict
    }

    /// Whether a fault stranded job `id` (it was held by the consumer the fault hit) and it
    /// ran after the fault, never on that consumer before it.
    fn stranded(&self, id: &str, ran: &[&Run]) -> bool {
        self.faults.iter().any(|f| match &f.hit {
            Hit::Consumer {
                pid,
                held: Some(held),
            } => {
                held.iter().any(|h| h == id)
                    && !ran.is_empty()
                    && ran
                        .iter()
                        .all(|r| !(r.consumer == *pid && r.started <= f.at))
            }
            _ => false,
        })
    }

    /// For each of the last `extra` repeats of job `id`, the fault that explains it: one that
    /// came between a run and the next, and hit that run.
    fn explain(&self, id: &str, ran: &[&Run], extra: usize) -> Duplicate {
        let mut explained: Vec<Option<String>> = ran
            .windows(2)
            .map(|pair| {
                let (before, after) = (pair[0], pair[1]);
                self.faults
                    .iter()
                    .find(|f| {
                        // A handler a consumer started in the instant before the fault may
                        // note its start just after it (its shell is still starting): a
                        // consumer the fault killed or stopped starts none later, so a run
                        // on it within START_SLACK of the fault was started before it.
                        let started_before = match &f.hit {
                            Hit::Consumer { .. } => before.started <= f.at + START_SLACK,
                            _ => before.started <= f.at,
                        };
                        started_before
                            && f.at <= after.started
                            && match &f.hit {
                                Hit::Consumer { pid, held } => {
                                    before.consumer == *pid
                                        && held
                                            .as_ref()
                                            .is_none_or(|held| held.iter().any(|h| h == id))
                                }
                                Hit::Network { consumers } => consumers.contains(&before.consumer),
                                Hit::Redis { lost_writes } => *lost_writes,
                                Hit::Producer { .. } => false,
                            }
                    })
                    .map(|f| f.name.clone())
            })
            .collect();
        // The repeats a failure allowed need no fault: the best explained ones stand for
        // the extra runs.
        explained.sort_by_key(Option::is_none);
        let faults: Vec<Option<String>> = explained.into_iter().take(extra).collect();
        Duplicate {
            id: id.to_string(),
            runs: ran.len(),
            faults,
        }
    }
}

/// The classes of every job of a run.
#[derive(Clone, Debug, Default)]
pub struct Verdict {
    pub classes: BTreeMap<Class, Vec<String>>,
    pub duplicates: Vec<Duplicate>,
    /// Acknowledged (or arrived) jobs that never settled and may still run.
    pub waiting: Vec<String>,
    /// Indeterminate enqueues that never arrived.
    pub never_arrived: Vec<String>,
}

impl Verdict {
    pub fn count(&self, class: Class) -> usize {
        self.classes.get(&class).map_or(0, Vec::len)
    }

    pub fn ids(&self, class: Class) -> &[String] {
        self.classes.get(&class).map_or(&[], Vec::as_slice)
    }

    /// The duplicates no fault explains.
    pub fn unexplained(&self) -> Vec<&Duplicate> {
        self.duplicates.iter().filter(|d| !d.explained()).collect()
    }

    /// The figure: `ok=N lost=N recovered=N unexpected=N duplicated=N`, then each duplicate
    /// with the fault that explains it.
    pub fn line(&self) -> String {
        let mut line = Class::ALL
            .iter()
            .map(|c| format!("{}={}", c.word(), self.count(*c)))
            .collect::<Vec<_>>()
            .join(" ");
        if !self.duplicates.is_empty() {
            let mut by_fault: BTreeMap<String, Vec<&str>> = BTreeMap::new();
            for d in &self.duplicates {
                for f in &d.faults {
                    let name = f.clone().unwrap_or_else(|| "no fault".to_string());
                    by_fault.entry(name).or_default().push(&d.id);
                }
            }
            let parts: Vec<String> = by_fault
                .iter()
                .map(|(f, ids)| format!("{} by {f}", ids.join(",")))
                .collect();
            let _ = write!(line, " ({})", parts.join("; "));
        }
        if !self.waiting.is_empty() {
            let _ = write!(line, " waiting={}", self.waiting.len());
        }
        if !self.never_arrived.is_empty() {
            let _ = write!(line, " never_arrived={}", self.never_arrived.len());
        }
        line
    }

    /// The table: the five classes with their counts and a few ids each, then each duplicate
    /// with its runs and the fault that explains it.
    pub fn table(&self) -> String {
        let mut out = String::from("class       jobs  ids\n");
        let few = |ids: &[String]| {
            let mut shown: Vec<&str> = ids.iter().take(5).map(String::as_str).collect();
            if ids.len() > 5 {
                shown.push("...");
            }
            shown.join(" ")
        };
        for class in Class::ALL {
            let row = format!(
                "{:<10} {:>5}  {}",
                class.word(),
                self.count(class),
                few(self.ids(class))
            );
            let _ = writeln!(out, "{}", row.trim_end());
        }
        for (word, ids) in [
            ("waiting", &self.waiting),
            ("never arrived", &self.never_arrived),
        ] {
            if !ids.is_empty() {
                let _ = writeln!(out, "({word}: {} {})", ids.len(), few(ids));
            }
        }
        for d in &self.duplicates {
            let faults: Vec<&str> = d
                .faults
                .iter()
                .map(|f| f.as_deref().unwrap_or("NO FAULT EXPLAINS IT"))
                .collect();
            let _ = writeln!(
                out,
                "duplicate {}: {} runs; {}",
                d.id,
                d.runs,
                faults.join("; ")
            );
        }
        out
    }

    /// What fails the run: lost jobs, unexpected jobs, duplicates no fault explains.
    pub fn failures(&self) -> Vec<String> {
        let mut failures = Vec::new();
        for class in [Class::Lost, Class::Unexpected] {
            if self.count(class) > 0 {
                failures.push(format!(
                    "{} {}: {:?}",
                    self.count(class),
                    class.word(),
                    self.ids(class)
                ));
            }
        }
        for d in self.unexplained() {
            failures.push(format!(
                "{} ran {} times and no fault explains it",
                d.id, d.runs
            ));
        }
        failures
    }

    /// Prints the table and panics on a lost or unexpected job or an unexplained duplicate.
    pub fn check(&self, what: &str) {
        let table = self.table();
        println!("{what}\n{table}");
        let failures = self.failures();
        assert!(
            failures.is_empty(),
            "{what}: {}\n{table}",
            failures.join("; ")
        );
    }
}
