//! Moving a live queue (`qctl move`), a chunk at a time: a chunk leaves the source into its
//! journal `NAME:move-out` (lua/move_take.lua), arrives at the destination, which notes it in
//! `NAME:move-in` (lua/move_publish.lua), and then both journals forget it. So a job is in
//! the source's keys, the source's journal or the destination's keys, never in two, and a
//! move stopped anywhere is finished from the journal. A job the destination cannot take
//! goes back where it was (lua/move_return.lua).

use std::time::Duration;

use super::conn::Redis;
use super::error::Error;
use super::keys::QueueKeys;
use super::listing::{CALL_BYTES, CHUNK};
use super::scripts;

/// Where a job was taken from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum From {
    Ready,
    Scheduled,
    Dead,
    InFlight,
}

impl From {
    fn code(self) -> &'static str {
        match self {
            From::Ready => "a",
            From::Scheduled => "s",
            From::Dead => "d",
            From::InFlight => "f",
        }
    }

    fn parse(code: &[u8]) -> Option<From> {
        Some(match code {
            b"a" => From::Ready,
            b"s" => From::Scheduled,
            b"d" => From::Dead,
            b"f" => From::InFlight,
            _ => return None,
        })
    }
}

/// A job on its way.
#[derive(Clone, Debug, PartialEq)]
pub struct Job {
    /// The id's bytes, as Redis holds them (an id need not be UTF-8).
    pub id: Vec<u8>,
    pub from: From,
    /// Its score as Redis holds it (scheduled and dead jobs).
    pub score: Option<String>,
    pub record: Option<Vec<u8>>,
    pub failure: Option<Vec<u8>>,
    /// Its place in the chunk, from 1: ready jobs are in this order.
    pub position: u64,
}

/// A chunk taken: its token and jobs.
#[derive(Debug, Default)]
pub struct Chunk {
    pub token: String,
    pub jobs: Vec<Job>,
}

/// A chunk an earlier move left in the source's journal.
#[derive(Debug)]
pub struct Pending {
    /// Where it was going (the destination's [`Mover::to`]).
    pub to: String,
    pub chunks: Vec<Chunk>,
}

impl Pending {
    pub fn jobs(&self) -> usize {
        self.chunks.iter().map(|c| c.jobs.len()).sum()
    }
}

/// What became of a chunk.
#[derive(Debug, Default)]
pub struct Settled {
    /// The jobs that arrived, by where they were taken from.
    pub arrived: Vec<From>,
    /// Their ids, in the same order (an id that is not UTF-8 as it reads lossily).
    pub arrived_ids: Vec<String>,
    /// Jobs whose ids the destination has for another job: given back to the source.
    pub collided: Vec<String>,
    /// Jobs that could not be given back (the source has their ids again): left in the
    /// source's journal.
    pub stuck: Vec<String>,
}

impl Settled {
    fn add(&mut self, other: Settled) {
        self.arrived.extend(other.arrived);
        self.arrived_ids.extend(other.arrived_ids);
        self.collided.extend(other.collided);
        self.stuck.extend(other.stuck);
    }
}

/// A move from one queue to another, on one server or two.
pub struct Mover {
    pub src: Redis,
    pub dst: Redis,
    pub source: QueueKeys,
    pub destination: QueueKeys,
    /// The source as the destination's journal names it: server and queue, one line.
    pub from: String,
    /// The destination as the source's journal names it.
    pub to: String,
}

/// A server and queue on one line, as the journals name them.
pub fn place(server: &str, queue: &str) -> String {
    format!("{server} {queue:?}")
}

impl Mover {
    pub fn new(src: Redis, dst: Redis, source: QueueKeys, destination: QueueKeys) -> Mover {
        let from = place(src.server(), &source.name);
        let to = place(dst.server(), &destination.name);
        Mover {
            src,
            dst,
            source,
            destination,
            from,
            to,
        }
    }

    /// What the source's journal holds: a chunk of a move that did not finish, or None.
    pub async fn pending(&mut self) -> Result<Option<Pending>, Error> {
        let key = &self.source.move_out;
        let mut entries: Vec<(Vec<u8>, Vec<u8>)> = self
            .src
            .query(redis::cmd("HGETALL").arg(key), format!("HGETALL {key}"))
            .await?;
        if entries.iter().any(|(id, _)| id == PROBE) {
            // A probe of `same_queue` whose move was killed in that instant.
            let _: u64 = self
                .src
                .query(
                    redis::cmd("HDEL").arg(key).arg(PROBE),
                    format!("HDEL {key}"),
                )
                .await?;
            entries.retain(|(id, _)| id != PROBE);
        }
        if entries.is_empty() {
            return Ok(None);
        }
        let mut pending = Pending {
            to: String::new(),
            chunks: Vec::new(),
        };
        for (id, entry) in entries {
            let (token, to, job) = parse_entry(id, &entry).ok_or_else(|| {
                Error::BadInput(format!(
                    "an entry of {key} cannot be read; it holds a job of a move: look at it \
                     with redis-cli HGETALL {key}"
                ))
            })?;
            if pending.to.is_empty() {
                pending.to = to;
            } else if pending.to != to {
                return Err(Error::BadInput(format!(
                    "{key} holds jobs on their way to two places ({} and {to})",
                    pending.to
                )));
            }
            match pending.chunks.iter_mut().find(|c| c.token == token) {
                Some(chunk) => chunk.jobs.push(job),
                None => pending.chunks.push(Chunk {
                    token,
                    jobs: vec![job],
                }),
            }
        }
        for chunk in &mut pending.chunks {
            chunk.jobs.sort_by_key(|j| j.position);
        }
        Ok(Some(pending))
    }

    /// Whether the destination is the source itself, reached by another URL of its server:
    /// a probe written into the source's journal is looked for at the destination (only when
    /// the two names are the same: otherwise their keys differ) and taken out again.
    pub async fn same_queue(&mut self) -> Result<bool, Error> {
        if self.source.name != self.destination.name {
            return Ok(false);
        }
        let nonce = format!("{:016x}", fastrand::u64(..));
        let (out, into) = (&self.source.move_out, &self.destination.move_out);
        let _: u64 = self
            .src
            .query(
                redis::cmd("HSET").arg(out).arg(PROBE).arg(&nonce),
                format!("HSET {out}"),
            )
            .await?;
        let seen: Result<Option<String>, Error> = self
            .dst
            .query(
                redis::cmd("HGET").arg(into).arg(PROBE),
                format!("HGET {into}"),
            )
            .await;
        let _: u64 = self
            .src
            .query(
                redis::cmd("HDEL").arg(out).arg(PROBE),
                format!("HDEL {out}"),
            )
            .await?;
        Ok(seen?.as_deref() == Some(nonce.as_str()))
    }

    /// Finishes what the source's journal holds, when it was going where this move goes.
    pub async fn resume(&mut self, pending: Pending) -> Result<Settled, Error> {
        if pending.to != self.to {
            return Err(self.refusal(&pending));
        }
        let mut settled = Settled::default();
        for chunk in pending.chunks {
            settled.add(self.settle(chunk).await?);
        }
        Ok(settled)
    }

    /// Why a journal of a move elsewhere stops this one.
    pub fn refusal(&self, pending: &Pending) -> Error {
        Error::Usage(format!(
            "{} holds {} of a move to {} that did not finish: run that move again to finish \
             it first",
            self.source.move_out,
            super::text::plural(pending.jobs() as u64, "job"),
            pending.to
        ))
    }

    /// Forgets the arrivals from this source that the destination's journal still notes (a
    /// move stopped between the two journals' forgetting).
    pub async fn sweep(&mut self) -> Result<(), Error> {
        let key = &self.destination.move_in;
        let entries: Vec<(Vec<u8>, Vec<u8>)> = self
            .dst
            .query(redis::cmd("HGETALL").arg(key), format!("HGETALL {key}"))
            .await?;
        let from = format!(" {}", self.from);
        let stale: Vec<&Vec<u8>> = entries
            .iter()
            .filter(|(_, v)| v.ends_with(from.as_bytes()))
            .map(|(id, _)| id)
            .collect();
        for ids in stale.chunks(CHUNK) {
            let _: u64 = self
                .dst
                .query(redis::cmd("HDEL").arg(key).arg(ids), format!("HDEL {key}"))
                .await?;
        }
        Ok(())
    }

    /// Takes the next chunk from `key` (the state's key: NAME:active, NAME:scheduled,
    /// NAME:dead or an in-flight set) and brings it over. None when the key has no job.
    pub async fn step(&mut self, from: From, key: &str) -> Result<Option<Settled>, Error> {
        let token = format!("{:016x}", fastrand::u64(..));
        let k = &self.source;
        let reply: Vec<Option<Vec<u8>>> = scripts::MOVE_TAKE
            .call(&[&k.data, &k.failures, &k.move_out, key, &k.signal])
            .arg(from.code())
            .arg(CHUNK)
            .arg(CALL_BYTES)
            .arg(format!("{token} {}", self.to))
            .invoke(&mut self.src)
            .await?;
        if reply.is_empty() {
            return Ok(None);
        }
        let mut jobs = Vec::with_capacity(reply.len() / 5);
        for (i, job) in reply.chunks(5).enumerate() {
            let score = job[2]
                .as_ref()
                .map(|b| String::from_utf8_lossy(b).into_owned())
                .unwrap_or_default();
            jobs.push(Job {
                id: job[0].clone().unwrap_or_default(),
                from,
                score: (!score.is_empty()).then_some(score),
                record: job[3].clone(),
                failure: job[4].clone(),
                position: i as u64 + 1,
            });
        }
        self.settle(Chunk { token, jobs }).await.map(Some)
    }

    /// Brings a chunk in the source's journal over: writes it at the destination (again,
    /// if it was written before: that changes nothing), gives back to the source the jobs
    /// the destination cannot take, and has both journals forget the chunk.
    async fn settle(&mut self, chunk: Chunk) -> Result<Settled, Error> {
        let line = format!("{} {}", chunk.token, self.from);
        let codes = match self.publish(&line, &chunk.jobs).await {
            Ok(codes) => codes,
            Err(e @ Error::Redis { .. }) => {
                // Refused: the script wrote nothing, or what it wrote is in the journal of
                // arrivals. The rest goes back.
                let arrived = self.arrived(&line, &chunk.jobs).await?;
                let back: Vec<&[u8]> = chunk
                    .jobs
                    .iter()
                    .zip(&arrived)
                    .filter(|(_, a)| !**a)
                    .map(|(j, _)| j.id.as_slice())
                    .collect();
                self.give_back(&back).await?;
                let there: Vec<&[u8]> = chunk
                    .jobs
                    .iter()
                    .zip(&arrived)
                    .filter(|(_, a)| **a)
                    .map(|(j, _)| j.id.as_slice())
                    .collect();
                self.forget(&there).await?;
                return Err(e);
            }
            Err(e) => return Err(e),
        };
        let mut settled = Settled::default();
        let mut there = Vec::new();
        let mut collided = Vec::new();
        for (job, code) in chunk.jobs.iter().zip(codes) {
            if code == 0 {
                collided.push(job.id.as_slice());
            } else {
                there.push(job.id.as_slice());
                settled.arrived.push(job.from);
                settled
                    .arrived_ids
                    .push(String::from_utf8_lossy(&job.id).into_owned());
            }
        }
        if !collided.is_empty() {
            let given = self.give_back(&collided).await?;
            for (id, code) in collided.into_iter().zip(given) {
                let shown = String::from_utf8_lossy(id).into_owned();
                if code == 2 {
                    settled.stuck.push(shown);
                } else {
                    settled.collided.push(shown);
                }
            }
        }
        self.forget(&there).await?;
        Ok(settled)
    }

    /// lua/move_publish.lua, retried while the destination's failure is transient: a chunk
    /// written twice is written once.
    async fn publish(&mut self, line: &str, jobs: &[Job]) -> Result<Vec<i64>, Error> {
        let k = &self.destination;
        let mut call = scripts::MOVE_PUBLISH.call(&[
            &k.data,
            &k.active,
            &k.scheduled,
            &k.dead,
            &k.failures,
            &k.signal,
            &k.move_in,
            &k.move_out,
        ]);
        call.arg(line);
        for job in jobs {
            let flags = match (&job.record, &job.failure) {
                (Some(_), Some(_)) => "rf",
                (Some(_), None) => "r",
                (None, Some(_)) => "f",
                (None, None) => "",
            };
            call.arg(&job.id)
                .arg(job.from.code())
                .arg(job.score.as_deref().unwrap_or_default())
                .arg(job.record.as_deref().unwrap_or_default())
                .arg(job.failure.as_deref().unwrap_or_default())
                .arg(flags);
        }
        let mut tries = 0;
        loop {
            match call.invoke(&mut self.dst).await {
                Err(e) if e.is_transient() && tries < RETRIES => {
                    tries += 1;
                    tokio::time::sleep(Duration::from_millis(200 * tries)).await;
                }
                reply => return reply,
            }
        }
    }

    /// Which of the jobs the destination's journal notes as arrived in the chunk `line`.
    async fn arrived(&mut self, line: &str, jobs: &[Job]) -> Result<Vec<bool>, Error> {
        let key = &self.destination.move_in;
        let mut out = Vec::with_capacity(jobs.len());
        for batch in jobs.chunks(CHUNK) {
            let ids: Vec<&[u8]> = batch.iter().map(|j| j.id.as_slice()).collect();
            let noted: Vec<Option<Vec<u8>>> = self
                .dst
                .query(
                    redis::cmd("HMGET").arg(key).arg(&ids),
                    format!("HMGET {key}"),
                )
                .await?;
            out.extend(noted.iter().map(|n| n.as_deref() == Some(line.as_bytes())));
        }
        Ok(out)
    }

    /// lua/move_return.lua: 1 given back, 0 not in the journal, 2 left in it.
    async fn give_back(&mut self, ids: &[&[u8]]) -> Result<Vec<i64>, Error> {
        let k = &self.source;
        let mut out = Vec::with_capacity(ids.len());
        for batch in ids.chunks(CHUNK) {
            let codes: Vec<i64> = scripts::MOVE_RETURN
                .call(&[
                    &k.data,
                    &k.active,
                    &k.scheduled,
                    &k.dead,
                    &k.failures,
                    &k.signal,
                    &k.move_out,
                ])
                .arg(batch)
                .invoke(&mut self.src)
                .await?;
            out.extend(codes);
        }
        Ok(out)
    }

    /// Both journals forget jobs that arrived: the source's first, so that a stop in between
    /// leaves only a note the next move of this source sweeps away.
    async fn forget(&mut self, ids: &[&[u8]]) -> Result<(), Error> {
        for batch in ids.chunks(CHUNK) {
            for (redis, key) in [
                (&mut self.src, &self.source.move_out),
                (&mut self.dst, &self.destination.move_in),
            ] {
                let mut tries = 0;
                loop {
                    let cmd = redis::cmd("HDEL").arg(key).arg(batch).clone();
                    match redis.query::<u64>(&cmd, format!("HDEL {key}")).await {
                        Err(e) if e.is_transient() && tries < RETRIES => {
                            tries += 1;
                            tokio::time::sleep(Duration::from_millis(200 * tries)).await;
                        }
                        Err(e) => return Err(e),
                        Ok(_) => break,
                    }
                }
            }
        }
        Ok(())
    }
}

/// What a source still holds while it is moved: its jobs by state, and its in-flight sets:
/// `known` (found by the SCAN at the start of the move) and the members of `NAME:consumers`
/// now, so that waiting does not scan the keyspace again.
pub async fn holds(
    redis: &mut Redis,
    keys: &QueueKeys,
    known: &[String],
) -> Result<(super::transfer::Counts, Vec<String>), Error> {
    let members: Vec<String> = redis
        .query(
            redis::cmd("ZRANGE").arg(&keys.consumers).arg(0).arg(-1),
            format!("ZRANGE {}", keys.consumers),
        )
        .await?;
    let mut sets: Vec<String> = known
        .iter()
        .cloned()
        .chain(members.into_iter().filter(|m| keys.is_inflight_key(m)))
        .collect();
    sets.sort();
    sets.dedup();
    let counts = super::transfer::count_in(redis, keys, &sets).await?;
    Ok((counts, sets))
}

/// The field of a source's journal that [`Mover::same_queue`] writes for an instant: no job
/// id (CurlyQ's are UUIDs), and never read as an entry.
const PROBE: &[u8] = b"\0qctl-move-probe";

/// How many times a call that writes nothing twice is tried again after a transient
/// failure (about 4 s in all).
const RETRIES: u64 = 5;

/// An entry of the source's journal (see lua/move_take.lua): the chunk's token, where it
/// goes, and the job.
fn parse_entry(id: Vec<u8>, entry: &[u8]) -> Option<(String, String, Job)> {
    let first = entry.iter().position(|&b| b == b'\n')?;
    let second = first + 1 + entry[first + 1..].iter().position(|&b| b == b'\n')?;
    let head = std::str::from_utf8(&entry[..first]).ok()?;
    let (token, to) = head.split_once(' ')?;
    let fields = std::str::from_utf8(&entry[first + 1..second]).ok()?;
    let mut f = fields.split(' ');
    let from = From::parse(f.next()?.as_bytes())?;
    let position: u64 = f.next()?.parse().ok()?;
    let score = f.next()?;
    let rlen: i64 = f.next()?.parse().ok()?;
    let flen: i64 = f.next()?.parse().ok()?;
    if f.next().is_some() {
        return None;
    }
    let body = &entry[second + 1..];
    let r = rlen.max(0) as usize;
    let fl = flen.max(0) as usize;
    if body.len() != r + fl {
        return None;
    }
    let job = Job {
        id,
        from,
        score: (score != "-").then(|| score.to_string()),
        record: (rlen >= 0).then(|| body[..r].to_vec()),
        failure: (flen >= 0).then(|| body[r..].to_vec()),
        position,
    };
    Some((token.to_string(), to.to_string(), job))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_journal_entry_reads_back() {
        let entry = b"00ff 127.0.0.1:6379 \"{mail}\"\ns 3 1700000000.25 3 2\nabc{}";
        let (token, to, job) = parse_entry(b"id1".to_vec(), entry).unwrap();
        assert_eq!(token, "00ff");
        assert_eq!(to, "127.0.0.1:6379 \"{mail}\"");
        assert_eq!(job.from, From::Scheduled);
        assert_eq!(job.position, 3);
        assert_eq!(job.score.as_deref(), Some("1700000000.25"));
        assert_eq!(job.record.as_deref(), Some(&b"abc"[..]));
        assert_eq!(job.failure.as_deref(), Some(&b"{}"[..]));

        let bare = b"t x\na 1 - -1 -1\n";
        let (_, _, job) = parse_entry(b"id2".to_vec(), bare).unwrap();
        assert_eq!((job.record, job.failure, job.score), (None, None, None));
        // A record with newlines in it is counted, not split.
        let binary = b"t x\nd 2 5 4 -1\n\n\n\x00\n";
        let (_, _, job) = parse_entry(b"id3".to_vec(), binary).unwrap();
        assert_eq!(job.record.as_deref(), Some(&b"\n\n\x00\n"[..]));

        assert!(parse_entry(b"x".to_vec(), b"t x\na 1 - 5 -1\nabc").is_none());
        assert!(parse_entry(b"x".to_vec(), b"t x\nq 1 - -1 -1\n").is_none());
    }
}
