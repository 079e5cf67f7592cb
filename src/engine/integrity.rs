//! The integrity of a queue: every id in exactly one of active, scheduled, dead or one
//! consumer's in-flight set, and with a decodable record; every in-flight set with its
//! consumer; every key of its type. Read in bounded passes (LRANGE and ZRANGE by rank,
//! SMEMBERS of a consumer's set or SSCAN of a large one, HSCAN of the records: a few hundred
//! entries a call), so that no command blocks Redis for long, and checked again
//! by targeted reads in MULTI/EXEC, so that a job moving while the pass ran is not reported.
//!
//! Memory: the pass keeps a 64-bit hash of every id in a list or set (8 bytes per id, in a
//! sorted vector: 8 MB for 1,000,000 ids), not the ids; the records are read a page at a
//! time and not kept. A collision of two hashes can only hide a finding, never make one: each
//! candidate is read again by its id.

use std::collections::HashSet;
use std::hash::{Hash, Hasher};

use redis::Value;

use super::conn::Redis;
use super::doctor::{Area, Finding, SAMPLES};
use super::error::Error;
use super::health::Severity;
use super::job::Job;
use super::keys::QueueKeys;
use super::scripts;
use super::text::{agree, plural, shell_quote};

/// Entries asked for per LRANGE, ZRANGE, SSCAN and SCAN call.
const PAGE: usize = 500;
/// Entries asked for per HSCAN call: these carry the records.
const RECORD_PAGE: usize = 200;
/// In-flight sets up to this size are read with one SMEMBERS.
const SMALL_SET: u64 = 10_000;
/// The most candidates of one check read again (and repaired by one --fix).
pub const CANDIDATES: usize = 10_000;
/// Ids in lists and sets beyond which the cross-checks are left out (8 bytes each).
const MAX_IDS: usize = 50_000_000;
/// List elements LPOS may walk in one transaction (a few milliseconds of Redis time); a
/// longer active list is read again by pages instead.
const LPOS_BUDGET: u64 = 200_000;

/// The expected type of each fixed key of a queue.
pub fn expected_types(keys: &QueueKeys) -> [(&str, &'static str); 17] {
    [
        (&keys.active, "list"),
        (&keys.data, "hash"),
        (&keys.scheduled, "zset"),
        (&keys.dead, "zset"),
        (&keys.consumers, "zset"),
        (&keys.signal, "list"),
        (&keys.failures, "hash"),
        (&keys.paused, "string"),
        (&keys.stats, "hash"),
        (&keys.events, "stream"),
        (&keys.move_out, "hash"),
        (&keys.move_in, "hash"),
        (&keys.limits, "hash"),
        (&keys.bucket, "hash"),
        (&keys.acked, "list"),
        (&keys.push, "hash"),
        (&keys.changes, "stream"),
    ]
}

/// Where one id is, read atomically.
#[derive(Clone, Debug, Default)]
struct Placement {
    record: bool,
    /// None when not looked at (LPOS left out).
    active: Option<bool>,
    scheduled: bool,
    dead: bool,
    inflight: bool,
}

impl Placement {
    /// How many of the states it is in (active counted when it was looked at).
    fn states(&self) -> usize {
        [
            self.active == Some(true),
            self.scheduled,
            self.dead,
            self.inflight,
        ]
        .iter()
        .filter(|s| **s)
        .count()
    }
}

/// A state that holds ids.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Active,
    Scheduled,
    Dead,
    InFlight,
}

/// What the check found, and what `--fix` may repair.
#[derive(Debug, Default)]
pub struct Report {
    pub findings: Vec<Finding>,
    /// Records whose id is in no state, confirmed (at most [`CANDIDATES`]).
    pub stranded: Vec<Vec<u8>>,
    /// Ids without a record, confirmed, with the key holding them and its type.
    pub missing: Vec<(String, &'static str, Vec<u8>)>,
    /// Every in-flight set of the queue (members of NAME:consumers and keys SCAN found).
    pub inflight_keys: Vec<String>,
    /// The length of NAME:active when it was read.
    pub active_len: u64,
    /// Records read.
    pub records: u64,
}

/// A page of HSCAN: field and value.
type Pairs = Vec<(Vec<u8>, Vec<u8>)>;

fn hash_id(id: &[u8]) -> u64 {
    let mut h = std::hash::DefaultHasher::new();
    id.hash(&mut h);
    h.finish()
}

fn shown(id: &[u8]) -> String {
    String::from_utf8_lossy(id).into_owned()
}

/// Checks the integrity of the queue `keys` (`node` names its server in findings).
pub async fn check(redis: &mut Redis, keys: &QueueKeys, node: &str) -> Result<Report, Error> {
    let mut report = Report::default();
    let now = redis.server_time().await?;
    let finding = |check: &str, severity: Severity, summary: String| {
        let mut f = Finding::new(Area::Queue, check, severity, summary).node(node);
        f.queue = Some(keys.name.clone());
        f
    };

    // Key types.
    let expected = expected_types(keys);
    let mut pipe = redis::pipe();
    for (key, _) in &expected {
        pipe.cmd("TYPE").arg(*key);
    }
    let types: Vec<String> = redis
        .pipeline(&pipe, format!("TYPE of the keys of queue {:?}", keys.name))
        .await?;
    let mut wrong: Vec<(String, String, String)> = Vec::new();
    for ((key, want), got) in expected.iter().zip(&types) {
        if got != "none" && got != want {
            wrong.push((key.to_string(), got.clone(), want.to_string()));
        }
    }
    let usable = |key: &str| !wrong.iter().any(|(k, _, _)| k == key);
    let (active_ok, data_ok) = (usable(&keys.active), usable(&keys.data));
    let (scheduled_ok, dead_ok) = (usable(&keys.scheduled), usable(&keys.dead));
    let consumers_ok = usable(&keys.consumers);
    let move_out_ok = usable(&keys.move_out);

    // Consumers and in-flight sets.
    let mut members: Vec<(String, f64)> = Vec::new();
    if consumers_ok {
        // By rank, a page at a time (ZRANGE is in the least-privilege recipe, ZSCAN is not).
        let mut from = 0usize;
        loop {
            let page: Vec<(String, f64)> = redis
                .query(
                    redis::cmd("ZRANGE")
                        .arg(&keys.consumers)
                        .arg(from)
                        .arg(from + PAGE - 1)
                        .arg("WITHSCORES"),
                    format!("ZRANGE {}", keys.consumers),
                )
                .await?;
            let n = page.len();
            members.extend(page);
            if n < PAGE {
                break;
            }
            from += PAGE;
        }
        members.sort_by(|a, b| a.0.cmp(&b.0));
        members.dedup_by(|a, b| a.0 == b.0);
    }
    let scanned = keys.inflight_sets(redis, PAGE as u64).await?;
    let mut inflight: Vec<String> = members
        .iter()
        .map(|(k, _)| k.clone())
        .filter(|k| keys.is_inflight_key(k))
        .chain(scanned)
        .collect();
    inflight.sort();
    inflight.dedup();
    if !inflight.is_empty() {
        let mut pipe = redis::pipe();
        for key in &inflight {
            pipe.cmd("TYPE").arg(key);
        }
        let types: Vec<String> = redis
            .pipeline(
                &pipe,
                format!("TYPE of the in-flight sets of queue {:?}", keys.name),
            )
            .await?;
        for (key, got) in inflight.iter().zip(types) {
            if got != "none" && got != "set" {
                wrong.push((key.clone(), got, "set".into()));
            }
        }
    }
    let sets: Vec<String> = inflight
        .iter()
        .filter(|k| !wrong.iter().any(|(w, _, _)| w == *k))
        .cloned()
        .collect();
    report.inflight_keys = sets.clone();

    if wrong.is_empty() {
        report.findings.push(finding(
            "key-types",
            Severity::Ok,
            format!("key types ({} keys)", expected.len() + inflight.len()),
        ));
    } else {
        let mut f = finding(
            "key-types",
            Severity::Critical,
            format!("{} of the wrong type", plural(wrong.len() as u64, "key")),
        )
        .key(&wrong[0].0)
        .explain(
            "Scripts refuse to work on a key of another type (WRONGTYPE): consumers stop, \
             enqueues fail, and doctor leaves the key out of its other checks.",
        )
        .fix(
            "Look at the key (TYPE, and DUMP to keep a copy); a key another program wrote \
             under the queue's name must move elsewhere (RENAME), or be deleted (UNLINK).",
        );
        f.count = Some(wrong.len() as u64);
        f.samples = wrong
            .iter()
            .take(SAMPLES)
            .map(|(k, got, want)| format!("{k}: a {got}, expected a {want}"))
            .collect();
        report.findings.push(f);
    }

    // Consumers: members that are not in-flight keys, heartbeats in the future, and
    // in-flight sets no member names.
    let ahead: Vec<String> = members
        .iter()
        .filter(|(_, beat)| *beat > now + super::consumers::AHEAD_TOLERANCE)
        .map(|(k, _)| k.clone())
        .collect();
    let ahead = confirm_ahead(redis, keys, ahead, now).await?;
    push_ids(
        &mut report.findings,
        finding("heartbeat-ahead", Severity::Warning, String::new()).key(&keys.consumers),
        &ahead,
        |n| {
            format!(
                "{} with a heartbeat in the future",
                plural(n as u64, "consumer")
            )
        },
        "heartbeats not in the future",
        "A consumer's clock is ahead of the server's: while its heartbeat stays in the future \
         it never looks expired, so if it dies its jobs wait until the server's clock passes \
         it. qctl orphans skips such consumers.",
        "Synchronise the clock of the host the consumer runs on (NTP); once it is stopped, \
         ZADD the member with the current time so that `qctl orphans` can recover its jobs.",
    );
    if consumers_ok {
        let base = finding("held-by-expired-consumers", Severity::Ok, String::new());
        report
            .findings
            .push(held_by_expired(redis, keys, now, base).await?);
    }
    let malformed: Vec<String> = members
        .iter()
        .map(|(k, _)| k.clone())
        .filter(|k| !keys.is_inflight_key(k))
        .collect();
    if !malformed.is_empty() {
        let mut f = finding(
            "consumer-members",
            Severity::Warning,
            format!(
                "{} of {} {} of this queue",
                plural(malformed.len() as u64, "member"),
                keys.consumers,
                agree(
                    malformed.len() as u64,
                    "is not an in-flight key",
                    "are not in-flight keys"
                )
            ),
        )
        .key(&keys.consumers)
        .explain(format!(
            "Members must be {}:inflight:<uuid>; Go CurlyQ's orphan recovery fails on others \
             and stops recovering for every consumer.",
            keys.name
        ))
        .fix(format!(
            "ZREM {} <member> for each one, after a look at it.",
            keys.consumers
        ));
        f.count = Some(malformed.len() as u64);
        f.samples = malformed.iter().take(SAMPLES).cloned().collect();
        report.findings.push(f);
    }
    // A move stopped half-way: its chunk is in no state of this queue.
    if move_out_ok {
        let on_the_way: u64 = redis
            .query(
                redis::cmd("HLEN").arg(&keys.move_out),
                format!("HLEN {}", keys.move_out),
            )
            .await?;
        if on_the_way > 0 {
            let mut f = finding(
                "move-journal",
                Severity::Warning,
                format!(
                    "{} on the way in a move that did not finish",
                    plural(on_the_way, "job")
                ),
            )
            .key(&keys.move_out)
            .explain(
                "qctl move took these jobs out of the queue and keeps them in its journal until \
                 they arrive where they go; no consumer sees them meanwhile. A move that was \
                 killed or lost its connection leaves them there (a running move holds them a \
                 few milliseconds).",
            )
            .fix(format!(
                "Run the same qctl move again (the journal names where they go: HGETALL {}); \
                 it brings them over first.",
                keys.move_out
            ));
            f.count = Some(on_the_way);
            report.findings.push(f);
        }
    }
    let member_set: HashSet<&str> = members.iter().map(|(k, _)| k.as_str()).collect();
    let unowned: Vec<String> = sets
        .iter()
        .filter(|k| !member_set.contains(k.as_str()))
        .cloned()
        .collect();
    let unowned = if consumers_ok {
        confirm_unowned(redis, keys, unowned).await?
    } else {
        Vec::new()
    };
    push_ids(
        &mut report.findings,
        finding(
            "inflight-without-consumer",
            Severity::Critical,
            String::new(),
        ),
        &unowned,
        |n| {
            format!(
                "{} without an entry in {}",
                plural(n as u64, "in-flight set"),
                keys.consumers
            )
        },
        "every in-flight set has its consumer",
        "Orphan recovery finds in-flight sets through NAME:consumers only: the jobs in these \
         sets are never run again by anyone.",
        &format!(
            "Register each set as an expired consumer so that its jobs are recovered: \
             ZADD {} 0 <set>, then qctl orphans {}.",
            keys.consumers, keys.name
        ),
    );
    if let Some(f) = report
        .findings
        .last_mut()
        .filter(|f| f.check == "inflight-without-consumer")
    {
        if f.severity != Severity::Ok {
            f.key = Some(keys.consumers.clone());
        }
    }

    // The ids of every state, hashed; ids without a record are found on the way.
    let mut ids: [Vec<u64>; 4] = Default::default();
    let mut taken = Taken::default();
    let mut multi: HashSet<u64> = HashSet::new();

    if active_ok {
        report.active_len = redis
            .query(
                redis::cmd("LLEN").arg(&keys.active),
                format!("LLEN {}", keys.active),
            )
            .await?;
        // From the tail, by negative index: pushes at the tail and pops at the head during
        // the pass shift no element that stays in the list past the page being read.
        let mut from = 0usize;
        loop {
            let page = tail_page(redis, keys, from).await?;
            let n = page.len();
            let list = &keys.active;
            take_page(
                redis,
                keys,
                data_ok,
                (list, "list"),
                page,
                &mut ids[0],
                &mut taken,
            )
            .await?;
            if n < PAGE {
                break;
            }
            from += PAGE;
        }
    }
    for (slot, key, ok) in [(1, &keys.scheduled, scheduled_ok), (2, &keys.dead, dead_ok)] {
        if !ok {
            continue;
        }
        // By rank: an id that moves meanwhile may be passed over, which can only make a
        // candidate that the reads by id then clear.
        let mut from = 0usize;
        loop {
            let page: Vec<Vec<u8>> = redis
                .query(
                    redis::cmd("ZRANGE").arg(key).arg(from).arg(from + PAGE - 1),
                    format!("ZRANGE {key}"),
                )
                .await?;
            let n = page.len();
            take_page(
                redis,
                keys,
                data_ok,
                (key, "zset"),
                page,
                &mut ids[slot],
                &mut taken,
            )
            .await?;
            if n < PAGE {
                break;
            }
            from += PAGE;
        }
    }
    for set in &sets {
        let mut own: Vec<u64> = Vec::new();
        // A consumer holds at most its buffer and its handlers' jobs: SMEMBERS reads such a
        // set at once; a larger one goes by SSCAN pages.
        let size: u64 = redis
            .query(redis::cmd("SCARD").arg(set), format!("SCARD {set}"))
            .await?;
        let mut cursor = 0u64;
        loop {
            let (next, page): (u64, Vec<Vec<u8>>) = if size <= SMALL_SET {
                let all = redis
                    .query(redis::cmd("SMEMBERS").arg(set), format!("SMEMBERS {set}"))
                    .await?;
                (0, all)
            } else {
                redis
                    .query(
                        redis::cmd("SSCAN")
                            .arg(set)
                            .arg(cursor)
                            .arg("COUNT")
                            .arg(PAGE),
                        format!("SSCAN {set}"),
                    )
                    .await?
            };
            take_page(
                redis,
                keys,
                data_ok,
                (set, "set"),
                page,
                &mut own,
                &mut taken,
            )
            .await?;
            cursor = next;
            if cursor == 0 {
                break;
            }
        }
        own.sort_unstable();
        own.dedup();
        // An id in two consumers' sets is in two states.
        for h in &own {
            if ids[3].binary_search(h).is_ok() {
                multi.insert(*h);
            }
        }
        ids[3].extend(own);
        ids[3].sort_unstable();
    }
    for v in ids.iter_mut() {
        v.sort_unstable();
        v.dedup();
    }

    // Ids without a record, read again.
    let missing = confirm_missing(redis, keys, taken.missing, report.active_len).await?;
    {
        let mut f = finding("ids-without-record", Severity::Critical, String::new());
        let sample_ids: Vec<String> = missing.iter().map(|(_, _, id)| shown(id)).collect();
        if let Some((key, _, _)) = missing.first() {
            f = f.key(key);
        }
        push_ids(
            &mut report.findings,
            f,
            &sample_ids,
            |n| {
                let keys_named: HashSet<&str> =
                    missing.iter().map(|(k, _, _)| k.as_str()).collect();
                format!(
                    "{} without a record in {} (in {})",
                    plural(n as u64, "id"),
                    keys.data,
                    keys_named.into_iter().collect::<Vec<_>>().join(", ")
                )
            },
            "every id in a list or set has its record",
            "The record is the job: these ids cannot run. Go CurlyQ consumers crash on such an \
             id; qctl consumers move it to the dead set as damaged.",
            &format!(
                "qctl doctor {} --fix removes them from their keys (each id is printed).",
                shell_quote(&keys.name)
            ),
        );
        if taken.missing_seen as usize > CANDIDATES {
            note_more(report.findings.last_mut(), taken.missing_seen);
        }
    }
    report.missing = missing;

    // The records: decodable, and each id in exactly one state.
    let mut stranded: Vec<Vec<u8>> = Vec::new();
    let mut stranded_seen = 0u64;
    let mut doubled: Vec<(Vec<u8>, bool)> = Vec::new();
    let mut damaged: Vec<(Vec<u8>, String)> = Vec::new();
    let mut damaged_seen = 0u64;
    let cross = !taken.too_many;
    let mut records_read = data_ok;
    if data_ok {
        let mut cursor = 0u64;
        loop {
            let reply: Result<(u64, Pairs), Error> = redis
                .query(
                    redis::cmd("HSCAN")
                        .arg(&keys.data)
                        .arg(cursor)
                        .arg("COUNT")
                        .arg(RECORD_PAGE),
                    format!("HSCAN {}", keys.data),
                )
                .await;
            let (next, page) = match reply {
                Ok(page) => page,
                // HSCAN is beyond the least-privilege recipe: the record checks are left out.
                Err(e) if cursor == 0 && e.code() == Some("NOPERM") => {
                    records_read = false;
                    report.findings.push(
                        finding(
                            "records",
                            Severity::Warning,
                            format!("the records could not be read: {e}"),
                        )
                        .key(&keys.data)
                        .explain(
                            "Records in no state, ids in two states and damaged records were \
                             not checked (ids without records, key types and consumers were).",
                        )
                        .fix(
                            "Run doctor as a user that may run HSCAN on the queue's keys (+hscan).",
                        ),
                    );
                    break;
                }
                Err(e) => return Err(e),
            };
            for (id, record) in page {
                report.records += 1;
                if let Some(why) = damage(&id, &record) {
                    damaged_seen += 1;
                    if damaged.len() < CANDIDATES {
                        damaged.push((id.clone(), why));
                    }
                }
                if !cross {
                    continue;
                }
                let h = hash_id(&id);
                let found: Vec<State> = [
                    State::Active,
                    State::Scheduled,
                    State::Dead,
                    State::InFlight,
                ]
                .into_iter()
                .zip(ids.iter())
                .filter(|(_, v)| v.binary_search(&h).is_ok())
                .map(|(s, _)| s)
                .collect();
                if found.is_empty() {
                    stranded_seen += 1;
                    if stranded.len() < CANDIDATES {
                        stranded.push(id);
                    }
                } else if (found.len() > 1 || multi.contains(&h)) && doubled.len() < CANDIDATES {
                    doubled.push((id, found.contains(&State::Active)));
                }
            }
            cursor = next;
            if cursor == 0 {
                break;
            }
        }
    }
    drop(ids);
    if !records_read {
        return Ok(report);
    }

    let damaged = confirm_damaged(redis, keys, damaged).await?;
    {
        let samples: Vec<String> = damaged
            .iter()
            .map(|(id, why)| format!("{}: {why}", shown(id)))
            .collect();
        push_ids(
            &mut report.findings,
            finding("damaged-records", Severity::Warning, String::new()).key(&keys.data),
            &samples,
            |n| format!("{} in {}", plural(n as u64, "damaged record"), keys.data),
            "every record decodes as a CurlyQ job",
            "A record that does not decode as CurlyQ's {ID, Data, Attempt} stalls a Go CurlyQ \
             consumer's whole batch; qctl consumers move the job to the dead set as damaged.",
            &format!(
                "Look at each with qctl dead show {} ID (or HGET {} ID); delete the ones \
                 beyond repair with qctl dead delete / active delete, or HDEL.",
                shell_quote(&keys.name),
                keys.data
            ),
        );
        if let Some(f) = report.findings.last_mut() {
            f.samples.truncate(SAMPLES);
        }
        if damaged_seen as usize > CANDIDATES {
            note_more(report.findings.last_mut(), damaged_seen);
        }
    }

    if taken.too_many {
        report.findings.push(
            finding(
                "cross-check",
                Severity::Warning,
                format!("more than {MAX_IDS} ids: records in no state and ids in two states were not checked"),
            )
            .explain("Cross-checking keeps 8 bytes per id in memory; this many was over the bound.")
            .fix("Drain or trim the queue, then run doctor again."),
        );
        return Ok(report);
    }

    let inflight_ok = sets.clone();
    let stranded = confirm_stranded(
        redis,
        keys,
        &inflight_ok,
        stranded,
        report.active_len,
        active_ok,
    )
    .await?;
    push_ids(
        &mut report.findings,
        finding("records-in-no-state", Severity::Critical, String::new()).key(&keys.data),
        &stranded.iter().map(|id| shown(id)).collect::<Vec<_>>(),
        |n| {
            format!(
                "{} whose id is in no list or set",
                plural(n as u64, "record")
            )
        },
        "every record's id is in a list or set",
        "These jobs are stored but no consumer will ever run them: their ids are in none of \
         active, scheduled, dead and the in-flight sets.",
        &format!(
            "qctl doctor {} --fix puts them back at the tail of {}.",
            shell_quote(&keys.name),
            keys.active
        ),
    );
    if stranded_seen as usize > CANDIDATES {
        note_more(report.findings.last_mut(), stranded_seen);
    }
    report.stranded = stranded;

    let doubled = confirm_doubled(redis, keys, &inflight_ok, doubled, report.active_len).await?;
    push_ids(
        &mut report.findings,
        finding("ids-in-two-states", Severity::Warning, String::new()).key(&keys.data),
        &doubled,
        |n| format!("{} in two states at once", plural(n as u64, "id")),
        "no id is in two states",
        "An id in two of active, scheduled, dead and the in-flight sets can run twice, or run \
         while it is also counted dead.",
        &format!(
            "Find where each is with qctl dead show {} ID, and remove it from the state it \
             should not be in (LREM, ZREM or SREM).",
            shell_quote(&keys.name)
        ),
    );
    Ok(report)
}

/// Appends a finding about `items`: OK with `ok` when there are none, else `base` with the
/// count, the samples and `summary(count)`.
#[allow(clippy::too_many_arguments)]
fn push_ids(
    findings: &mut Vec<Finding>,
    base: Finding,
    items: &[String],
    summary: impl Fn(usize) -> String,
    ok: &str,
    explanation: &str,
    fix: &str,
) {
    if items.is_empty() {
        let mut f = base;
        f.severity = Severity::Ok;
        f.summary = ok.to_string();
        f.key = None;
        findings.push(f);
        return;
    }
    let mut f = base.explain(explanation).fix(fix);
    f.summary = summary(items.len());
    f.count = Some(items.len() as u64);
    f.samples = items.iter().take(SAMPLES).cloned().collect();
    findings.push(f);
}

/// Says that the pass found more candidates than were read again.
fn note_more(finding: Option<&mut Finding>, seen: u64) {
    if let Some(f) = finding.filter(|f| f.severity != Severity::Ok) {
        f.summary = format!(
            "{} (the first {CANDIDATES} of {seen} found were read again; run again after a --fix)",
            f.summary
        );
    }
}

/// Why a record cannot be used, if it cannot.
fn damage(id: &[u8], record: &[u8]) -> Option<String> {
    match Job::decode(record) {
        Err(e) => Some(e.0),
        Ok(job) if job.id.as_bytes() != id => {
            Some(format!("its ID entry is {:?}, not its field", job.id))
        }
        Ok(_) => None,
    }
}

/// Hashes a page of ids of one key into `into` and checks that each has a record
/// (pipelined HEXISTS); those without one become candidates.
/// What the pages of the state keys gave so far: how many ids, whether there were too many
/// to hold, and the ids without a record (the first [`CANDIDATES`], and how many in all).
#[derive(Default)]
struct Taken {
    total: usize,
    too_many: bool,
    missing: Vec<(String, &'static str, Vec<u8>)>,
    missing_seen: u64,
}

/// Takes a page of ids of `key` (of type `kind`): their hashes into `into` (while there are
/// not too many), and those without a record into `taken` (when the records may be read).
async fn take_page(
    redis: &mut Redis,
    keys: &QueueKeys,
    data_ok: bool,
    (key, kind): (&str, &'static str),
    page: Vec<Vec<u8>>,
    into: &mut Vec<u64>,
    taken: &mut Taken,
) -> Result<(), Error> {
    if page.is_empty() {
        return Ok(());
    }
    taken.total += page.len();
    if taken.total > MAX_IDS {
        taken.too_many = true;
    }
    if !taken.too_many {
        into.extend(page.iter().map(|id| hash_id(id)));
    }
    if !data_ok {
        return Ok(());
    }
    let mut pipe = redis::pipe();
    for id in &page {
        pipe.hexists(&keys.data, id);
    }
    let exists: Vec<bool> = redis
        .pipeline(&pipe, format!("HEXISTS {}", keys.data))
        .await?;
    for (id, exists) in page.into_iter().zip(exists) {
        if !exists {
            taken.missing_seen += 1;
            if taken.missing.len() < CANDIDATES {
                taken.missing.push((key.to_string(), kind, id));
            }
        }
    }
    Ok(())
}

/// Reads where each id is, atomically per transaction: its record, scheduled, dead, in any
/// of `sets`, and (`lpos`) in active. With LPOS, as many ids share a transaction as keep its
/// walk of the list within [`LPOS_BUDGET`].
async fn placements(
    redis: &mut Redis,
    keys: &QueueKeys,
    sets: &[String],
    ids: &[Vec<u8>],
    lpos: bool,
    active_len: u64,
) -> Result<Vec<Placement>, Error> {
    let per = if lpos {
        (LPOS_BUDGET / active_len.max(1)).clamp(1, 100) as usize
    } else {
        100
    };
    let mut out = Vec::with_capacity(ids.len());
    for chunk in ids.chunks(per) {
        let mut pipe = redis::pipe();
        pipe.atomic();
        for id in chunk {
            pipe.hexists(&keys.data, id);
        }
        for zset in [&keys.scheduled, &keys.dead] {
            for id in chunk {
                pipe.zscore(zset, id);
            }
        }
        for set in sets {
            pipe.cmd("SMISMEMBER").arg(set).arg(chunk);
        }
        if lpos {
            for id in chunk {
                pipe.cmd("LPOS").arg(&keys.active).arg(id);
            }
        }
        let replies: Vec<Value> = redis
            .pipeline(
                &pipe,
                format!(
                    "reading where {} of queue {:?} {}",
                    plural(chunk.len() as u64, "id"),
                    keys.name,
                    agree(chunk.len() as u64, "is", "are")
                ),
            )
            .await?;
        let mut replies = replies.into_iter();
        let n = chunk.len();
        let mut got: Vec<Placement> = (0..n).map(|_| Placement::default()).collect();
        for p in got.iter_mut() {
            p.record = matches!(replies.next(), Some(Value::Int(1)));
        }
        for which in 0..2 {
            for p in got.iter_mut() {
                let present = !matches!(replies.next(), Some(Value::Nil) | None);
                if which == 0 {
                    p.scheduled = present;
                } else {
                    p.dead = present;
                }
            }
        }
        for _ in sets {
            if let Some(Value::Array(flags)) = replies.next() {
                for (p, f) in got.iter_mut().zip(flags) {
                    p.inflight |= matches!(f, Value::Int(1));
                }
            }
        }
        if lpos {
            for p in got.iter_mut() {
                p.active = Some(matches!(replies.next(), Some(Value::Int(_))));
            }
        }
        out.extend(got);
    }
    Ok(out)
}

/// Of the records seen in no state, those still in none: first by the cheap reads (record,
/// scheduled, dead, in flight), then, for those left, with LPOS on active in the same
/// transaction, or on a long list by reading it again by pages.
async fn confirm_stranded(
    redis: &mut Redis,
    keys: &QueueKeys,
    sets: &[String],
    ids: Vec<Vec<u8>>,
    active_len: u64,
    active_ok: bool,
) -> Result<Vec<Vec<u8>>, Error> {
    if ids.is_empty() {
        return Ok(ids);
    }
    let first = placements(redis, keys, sets, &ids, false, active_len).await?;
    let mut left: Vec<Vec<u8>> = ids
        .into_iter()
        .zip(first)
        .filter(|(_, p)| p.record && p.states() == 0)
        .map(|(id, _)| id)
        .collect();
    if !active_ok {
        return Ok(left);
    }
    if active_len > LPOS_BUDGET {
        // A long list: one LPOS would block Redis for milliseconds. Read the list again by
        // pages for these ids, then read the others again (a job reserved meanwhile is in
        // flight by then).
        let held = active_holds(redis, keys, &left).await?;
        left = left
            .into_iter()
            .zip(held)
            .filter(|(_, h)| !h)
            .map(|(id, _)| id)
            .collect();
        let again = placements(redis, keys, sets, &left, false, active_len).await?;
        return Ok(left
            .into_iter()
            .zip(again)
            .filter(|(_, p)| p.record && p.states() == 0)
            .map(|(id, _)| id)
            .collect());
    }
    let second = placements(redis, keys, sets, &left, true, active_len).await?;
    Ok(left
        .into_iter()
        .zip(second)
        .filter(|(_, p)| p.record && p.states() == 0)
        .map(|(id, _)| id)
        .collect())
}

/// Of the records seen in two states, those still in two (`.1`: the pass saw it in active).
async fn confirm_doubled(
    redis: &mut Redis,
    keys: &QueueKeys,
    sets: &[String],
    ids: Vec<(Vec<u8>, bool)>,
    active_len: u64,
) -> Result<Vec<String>, Error> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let plain: Vec<Vec<u8>> = ids.iter().map(|(id, _)| id.clone()).collect();
    let first = placements(redis, keys, sets, &plain, false, active_len).await?;
    let mut out = Vec::new();
    let mut with_active = Vec::new();
    for ((id, in_active), p) in ids.into_iter().zip(first) {
        // Two in-flight sets count as one state here: the pass told them apart.
        if p.states() >= 2 {
            out.push(shown(&id));
        } else if in_active && p.states() == 1 {
            with_active.push(id);
        } else if p.inflight && p.states() == 1 {
            let holders = holders(redis, sets, &id).await?;
            if holders > 1 {
                out.push(shown(&id));
            }
        }
    }
    if active_len > LPOS_BUDGET {
        // A long list: found in it by pages, and still in its other state afterwards.
        let held = active_holds(redis, keys, &with_active).await?;
        let found: Vec<Vec<u8>> = with_active
            .into_iter()
            .zip(held)
            .filter(|(_, h)| *h)
            .map(|(id, _)| id)
            .collect();
        let again = placements(redis, keys, sets, &found, false, active_len).await?;
        out.extend(
            found
                .into_iter()
                .zip(again)
                .filter(|(_, p)| p.states() >= 1)
                .map(|(id, _)| shown(&id)),
        );
        return Ok(out);
    }
    let second = placements(redis, keys, sets, &with_active, true, active_len).await?;
    for (id, p) in with_active.into_iter().zip(second) {
        if p.states() >= 2 {
            out.push(shown(&id));
        }
    }
    Ok(out)
}

/// Which of `ids` NAME:active holds, read by LRANGE pages from the tail (as the pass reads
/// it): for a list too long for LPOS to walk in a moment.
async fn active_holds(
    redis: &mut Redis,
    keys: &QueueKeys,
    ids: &[Vec<u8>],
) -> Result<Vec<bool>, Error> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let wanted: HashSet<u64> = ids.iter().map(|id| hash_id(id)).collect();
    let mut seen: HashSet<u64> = HashSet::new();
    let mut from = 0usize;
    loop {
        let page = tail_page(redis, keys, from).await?;
        let n = page.len();
        for id in &page {
            let h = hash_id(id);
            if wanted.contains(&h) {
                seen.insert(h);
            }
        }
        if n < PAGE {
            break;
        }
        from += PAGE;
    }
    Ok(ids.iter().map(|id| seen.contains(&hash_id(id))).collect())
}

/// How many of `sets` hold `id`, read in one transaction.
async fn holders(redis: &mut Redis, sets: &[String], id: &[u8]) -> Result<usize, Error> {
    let mut pipe = redis::pipe();
    pipe.atomic();
    for set in sets {
        pipe.sismember(set, id);
    }
    let flags: Vec<bool> = redis
        .pipeline(&pipe, "SISMEMBER of the in-flight sets")
        .await?;
    Ok(flags.into_iter().filter(|f| *f).count())
}

/// Of the ids seen without a record, those still without one and still in their key.
async fn confirm_missing(
    redis: &mut Redis,
    keys: &QueueKeys,
    ids: Vec<(String, &'static str, Vec<u8>)>,
    active_len: u64,
) -> Result<Vec<(String, &'static str, Vec<u8>)>, Error> {
    let mut out = Vec::new();
    let mut in_list = Vec::new();
    for chunk in ids.chunks(100) {
        let mut pipe = redis::pipe();
        pipe.atomic();
        for (key, kind, id) in chunk {
            pipe.hexists(&keys.data, id);
            match *kind {
                "zset" => pipe.zscore(key, id),
                "set" => pipe.sismember(key, id),
                _ => pipe.exists(key),
            };
        }
        let replies: Vec<Value> = redis
            .pipeline(&pipe, format!("HEXISTS {}", keys.data))
            .await?;
        for (i, item) in chunk.iter().enumerate() {
            let record = matches!(replies.get(2 * i), Some(Value::Int(1)));
            let held = match replies.get(2 * i + 1) {
                Some(Value::Nil) | Some(Value::Int(0)) | None => false,
                Some(_) => true,
            };
            if record || !held {
                continue;
            }
            if item.1 == "list" {
                in_list.push(item.clone());
            } else {
                out.push(item.clone());
            }
        }
    }
    if active_len > LPOS_BUDGET {
        // A long list: found in it by pages, and still without a record afterwards.
        let ids: Vec<Vec<u8>> = in_list.iter().map(|(_, _, id)| id.clone()).collect();
        let held = active_holds(redis, keys, &ids).await?;
        let found: Vec<_> = in_list
            .into_iter()
            .zip(held)
            .filter(|(_, h)| *h)
            .map(|(item, _)| item)
            .collect();
        for chunk in found.chunks(100) {
            let mut pipe = redis::pipe();
            for (_, _, id) in chunk {
                pipe.hexists(&keys.data, id);
            }
            let records: Vec<bool> = redis
                .pipeline(&pipe, format!("HEXISTS {}", keys.data))
                .await?;
            out.extend(
                chunk
                    .iter()
                    .zip(records)
                    .filter(|(_, r)| !r)
                    .map(|(item, _)| item.clone()),
            );
        }
        return Ok(out);
    }
    let per = (LPOS_BUDGET / active_len.max(1)).clamp(1, 100) as usize;
    for chunk in in_list.chunks(per) {
        let mut pipe = redis::pipe();
        pipe.atomic();
        for (key, _, id) in chunk {
            pipe.hexists(&keys.data, id);
            pipe.cmd("LPOS").arg(key).arg(id);
        }
        let replies: Vec<Value> = redis
            .pipeline(&pipe, format!("LPOS {}", keys.active))
            .await?;
        for (i, item) in chunk.iter().enumerate() {
            let record = matches!(replies.get(2 * i), Some(Value::Int(1)));
            let held = matches!(replies.get(2 * i + 1), Some(Value::Int(_)));
            if !record && held {
                out.push(item.clone());
            }
        }
    }
    Ok(out)
}

/// Of the records that did not decode, those that still do not.
async fn confirm_damaged(
    redis: &mut Redis,
    keys: &QueueKeys,
    ids: Vec<(Vec<u8>, String)>,
) -> Result<Vec<(Vec<u8>, String)>, Error> {
    let mut out = Vec::new();
    for chunk in ids.chunks(100) {
        let mut pipe = redis::pipe();
        for (id, _) in chunk {
            pipe.hget(&keys.data, id);
        }
        let records: Vec<Option<Vec<u8>>> =
            redis.pipeline(&pipe, format!("HGET {}", keys.data)).await?;
        for ((id, _), record) in chunk.iter().zip(records) {
            if let Some(why) = record.and_then(|r| damage(id, &r)) {
                out.push((id.clone(), why));
            }
        }
    }
    Ok(out)
}

/// Jobs held by consumers that will not run them: expired ones (a heartbeat older than
/// [`super::consumers::ORPHAN_AFTER`]) and ones on this host whose process is gone. A
/// WARNING while a live consumer remains, whose orphan recovery returns them once their
/// heartbeat expires; CRITICAL with none, as nothing returns them then.
async fn held_by_expired(
    redis: &mut Redis,
    keys: &QueueKeys,
    now: f64,
    base: Finding,
) -> Result<Finding, Error> {
    use super::consumers::{self, Process};
    let list = consumers::list(redis, keys).await?;
    let described = consumers::describe(redis, keys, &list).await?;
    let cutoff = now - consumers::ORPHAN_AFTER.as_secs_f64();
    let mut held: Vec<(String, u64)> = Vec::new();
    let mut live = 0usize;
    for (c, d) in list.iter().zip(&described) {
        if c.problem.is_some() {
            continue;
        }
        let process = d.as_ref().and_then(|d| d.process());
        let expired = c.heartbeat <= cutoff;
        if !expired && process != Some(Process::Gone) {
            live += 1;
            continue;
        }
        let n = c.in_flight.unwrap_or(0);
        if n == 0 {
            continue;
        }
        let age = super::text::span(now - c.heartbeat);
        let mut why = format!("heartbeat {age} ago");
        if let Some(d) = d {
            why.push_str(&format!(
                ", {}:{}",
                d.host.as_deref().unwrap_or("-"),
                d.pid.map_or("-".into(), |p| p.to_string())
            ));
        }
        if process == Some(Process::Gone) {
            why.push_str(", its process is gone");
        }
        held.push((format!("{}: {} ({why})", c.key, plural(n, "job")), n));
    }
    if held.is_empty() {
        let mut f = base;
        f.summary = "no jobs held by expired consumers".into();
        return Ok(f);
    }
    let jobs: u64 = held.iter().map(|(_, n)| n).sum();
    let (severity, fix) = if live > 0 {
        (
            Severity::Warning,
            format!(
                "Nothing to do when the consumers that died are known: the live consumers \
                 return the jobs once the heartbeats are older than their --orphan-after; \
                 `qctl orphans {}` returns them now (with --orphan-after for a consumer whose \
                 process is gone).",
                keys.name
            ),
        )
    } else {
        (
            Severity::Critical,
            format!(
                "Start a consumer (it returns the jobs once the heartbeats are older than its \
                 --orphan-after), or run `qctl orphans {}` (with --orphan-after for a consumer \
                 whose process is gone).",
                keys.name
            ),
        )
    };
    let mut f = base
        .key(&keys.consumers)
        .explain(
            "A consumer that died keeps its jobs in flight until another consumer's orphan \
             recovery (or qctl orphans) returns them to NAME:active: until then no one runs \
             them.",
        )
        .fix(fix);
    f.severity = severity;
    f.summary = format!(
        "{} held by {} that {} expired or gone{}",
        plural(jobs, "job"),
        plural(held.len() as u64, "consumer"),
        agree(held.len() as u64, "is", "are"),
        if live > 0 {
            String::new()
        } else {
            ", and no live consumer to return them".into()
        }
    );
    f.count = Some(held.len() as u64);
    f.samples = held.into_iter().take(SAMPLES).map(|(s, _)| s).collect();
    Ok(f)
}

/// Of the consumers seen with a heartbeat in the future, those still so.
async fn confirm_ahead(
    redis: &mut Redis,
    keys: &QueueKeys,
    members: Vec<String>,
    now: f64,
) -> Result<Vec<String>, Error> {
    let mut out = Vec::new();
    for m in members {
        let beat: Option<f64> = redis
            .query(
                redis::cmd("ZSCORE").arg(&keys.consumers).arg(&m),
                format!("ZSCORE {}", keys.consumers),
            )
            .await?;
        if let Some(beat) = beat.filter(|b| *b > now + super::consumers::AHEAD_TOLERANCE) {
            out.push(format!("{m} (+{:.0}s)", beat - now));
        }
    }
    Ok(out)
}

/// Of the in-flight sets seen without a consumer entry, those still without one and not empty.
async fn confirm_unowned(
    redis: &mut Redis,
    keys: &QueueKeys,
    sets: Vec<String>,
) -> Result<Vec<String>, Error> {
    let mut out = Vec::new();
    for set in sets {
        let mut pipe = redis::pipe();
        pipe.atomic().zscore(&keys.consumers, &set).scard(&set);
        let (beat, n): (Option<f64>, u64) = redis
            .pipeline(&pipe, format!("ZSCORE {}", keys.consumers))
            .await?;
        if beat.is_none() && n > 0 {
            out.push(format!("{set} ({})", plural(n, "job")));
        }
    }
    Ok(out)
}

/// What a `--fix` did.
#[derive(Debug, Default)]
pub struct Repair {
    /// Ids put back at the tail of NAME:active.
    pub requeued: Vec<String>,
    /// Ids removed, with the key they were removed from.
    pub removed: Vec<(String, String)>,
    /// Ids left alone because they changed since the check.
    pub left: u64,
}

/// Puts the records in no state back at the tail of NAME:active, each only if it is still in
/// no state (`lua/requeue_stranded.lua`), in calls whose LPOS walks stay bounded. `stop`
/// is looked at between calls.
pub async fn requeue_stranded(
    redis: &mut Redis,
    keys: &QueueKeys,
    report: &Report,
    repair: &mut Repair,
    stop: &dyn Fn() -> bool,
) -> Result<(), Error> {
    let per = (LPOS_BUDGET / report.active_len.max(1)).clamp(1, 100) as usize;
    let mut call_keys: Vec<&str> = vec![
        &keys.data,
        &keys.active,
        &keys.scheduled,
        &keys.dead,
        &keys.signal,
    ];
    call_keys.extend(report.inflight_keys.iter().map(String::as_str));
    for chunk in report.stranded.chunks(per) {
        if stop() {
            break;
        }
        let mut call = scripts::REQUEUE_STRANDED.call(&call_keys);
        call.arg(chunk);
        let flags: Vec<i64> = call.invoke(redis).await?;
        for (id, flag) in chunk.iter().zip(flags) {
            if flag == 1 {
                repair.requeued.push(shown(id));
            } else {
                repair.left += 1;
            }
        }
    }
    Ok(())
}

/// Removes the ids without a record from their keys, each only if it still has none
/// (`lua/drop_missing.lua`).
pub async fn drop_missing(
    redis: &mut Redis,
    keys: &QueueKeys,
    report: &Report,
    repair: &mut Repair,
    stop: &dyn Fn() -> bool,
) -> Result<(), Error> {
    let mut by_key: Vec<(&str, &'static str, Vec<&[u8]>)> = Vec::new();
    for (key, kind, id) in &report.missing {
        match by_key.iter_mut().find(|(k, _, _)| k == key) {
            Some((_, _, ids)) => ids.push(id),
            None => by_key.push((key, kind, vec![id])),
        }
    }
    for (key, kind, ids) in by_key {
        let per = if kind == "list" {
            (LPOS_BUDGET / report.active_len.max(1)).clamp(1, 100) as usize
        } else {
            100
        };
        for chunk in ids.chunks(per) {
            if stop() {
                return Ok(());
            }
            let mut call = scripts::DROP_MISSING.call(&[&keys.data, key]);
            call.arg(kind).arg(chunk);
            let flags: Vec<i64> = call.invoke(redis).await?;
            for (id, flag) in chunk.iter().zip(flags) {
                if flag == 1 {
                    repair.removed.push((key.to_string(), shown(id)));
                } else {
                    repair.left += 1;
                }
            }
        }
    }
    Ok(())
}

/// A page of `NAME:active` counted from its tail: the ids `from` to `from + PAGE` before the
/// last one (pushes at the tail and pops at the head during a pass shift none of them).
async fn tail_page(
    redis: &mut Redis,
    keys: &QueueKeys,
    from: usize,
) -> Result<Vec<Vec<u8>>, Error> {
    redis
        .query(
            redis::cmd("LRANGE")
                .arg(&keys.active)
                .arg(-((from + PAGE) as i64))
                .arg(-((from + 1) as i64)),
            format!("LRANGE {}", keys.active),
        )
        .await
}
