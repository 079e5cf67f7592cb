//! The real scripts against the model: random sequences of the model's actions, run both on
//! the model and on a real redis-server through qctl's scripts and engine calls (and, for a
//! Go CurlyQ consumer or producer, scripts that do what the reference's do), with the whole
//! queue compared after every step. A difference is shrunk to the shortest sequence that
//! still shows it, and reported with the invariants the real state breaks.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use qctl::engine::failure::Failure;
use qctl::engine::{consumers, inflight, queues, scheduled, scripts, Job, QueueKeys, Redis};

use super::invariants;
use super::queue::{
    transition, Action, Id, Kind, Place, Queue, Queues, Record, Score, State, Status,
};
use super::support::RedisServer;

/// Heartbeats older than this many seconds (at the real side's clock) are expired: the
/// model's age 2, a tick being 10 s.
const CUTOFF: f64 = 15.0;
const TICK: f64 = 10.0;

const GO_PUSH: &str = "if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 1 then \
     redis.call('RPUSH', KEYS[2], ARGV[1]) return 1 end return 0";
const GO_FETCH: &str = "if not redis.call('ZSCORE', KEYS[1], KEYS[3]) then \
     return redis.error_reply('not registered') end \
     local ids = redis.call('LRANGE', KEYS[2], 0, 0) \
     if #ids > 0 then redis.call('LTRIM', KEYS[2], #ids, -1) \
     redis.call('SADD', KEYS[3], unpack(ids)) end return ids";
const GO_ACK: &str = "if redis.call('SREM', KEYS[1], ARGV[1]) == 1 then \
     redis.call('HDEL', KEYS[2], ARGV[1]) return 1 end return 0";
/// CurlyQ's retry (KEYS[2] the scheduled set) and kill (KEYS[2] the dead set).
const GO_SETTLE: &str = "if redis.call('SREM', KEYS[1], ARGV[1]) == 1 then \
     redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1]) \
     redis.call('HSET', KEYS[3], ARGV[1], ARGV[3]) return 1 end return 0";
/// CurlyQ's scheduler: read by score from 0, delete by rank.
const GO_PROMOTE: &str =
    "local ids = redis.call('ZRANGEBYSCORE', KEYS[1], 0, ARGV[1], 'LIMIT', 0, 50) \
     if #ids > 0 then redis.call('RPUSH', KEYS[2], unpack(ids)) \
     redis.call('ZREMRANGEBYRANK', KEYS[1], 0, #ids - 1) end return #ids";
/// CurlyQ's custodian: every consumer whose heartbeat is at or before the cut-off.
const GO_CUSTODIAN: &str = "local cs = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1]) \
     for _, c in ipairs(cs) do local ids = redis.call('SMEMBERS', c) \
     if #ids > 0 then redis.call('RPUSH', KEYS[2], unpack(ids)) end \
     redis.call('DEL', c) redis.call('ZREM', KEYS[1], c) end return #cs";

fn name(id: Id) -> String {
    format!("j{id}")
}

fn id_of(name: &str) -> Id {
    name.trim_start_matches('j')
        .parse()
        .expect("an id of the test")
}

fn record(id: Id, attempt: u8, damaged: bool) -> Vec<u8> {
    if damaged {
        return b"\xc1 not a record".to_vec();
    }
    Job {
        id: name(id),
        data: Some(b"data".to_vec()),
        attempt: attempt as i64,
    }
    .encode()
}

/// One run's queues on the server, and the real side's clock.
struct Real {
    rt: tokio::runtime::Runtime,
    redis: Redis,
    reader: Redis,
    raw: redis::Connection,
    src: QueueKeys,
    dst: QueueKeys,
    uuids: Vec<String>,
    now: f64,
    /// What move_take returned for each id in the journal (for move_publish).
    taken: BTreeMap<Id, Vec<Option<Vec<u8>>>>,
    tokens: u64,
}

impl Real {
    fn new(server: &RedisServer, run: u64, model: &Queues) -> Real {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        let spec = qctl::engine::ServerSpec::parse(
            &server.url(),
            Duration::from_secs(5),
            Duration::from_secs(10),
        )
        .expect("the URL");
        let redis = rt.block_on(spec.connect()).expect("connect");
        let reader = rt.block_on(spec.connect()).expect("connect");
        let src = QueueKeys::new(&format!("m{run}"));
        let dst = QueueKeys::new(&format!("d{run}"));
        let uuids: Vec<String> = (0..model.kinds.len())
            .map(|c| format!("00000000-0000-4000-8000-{run:06}{c:06}"))
            .collect();
        let mut real = Real {
            rt,
            redis,
            reader,
            raw: server.conn(),
            src,
            dst,
            uuids,
            now: 1_000_000.0,
            taken: BTreeMap::new(),
            tokens: 0,
        };
        for c in 0..model.kinds.len() {
            let inflight = real.inflight(c as u8);
            let keys = real.src.clone();
            let now = real.now;
            real.rt
                .block_on(consumers::heartbeat(&mut real.redis, &keys, &inflight, now))
                .expect("register");
        }
        real
    }

    fn inflight(&self, c: u8) -> String {
        self.src.inflight(&self.uuids[c as usize])
    }

    fn eval(&mut self, script: &str, keys: &[&str], args: &[Vec<u8>]) -> redis::Value {
        let mut cmd = redis::cmd("EVAL");
        cmd.arg(script).arg(keys.len()).arg(keys);
        for a in args {
            cmd.arg(a.as_slice());
        }
        cmd.query(&mut self.raw).expect("EVAL")
    }

    fn failure(&self) -> Failure {
        Failure {
            reason: "exit 1".into(),
            time: self.now,
            ..Failure::default()
        }
    }

    /// Runs `a` (which the model ran from `before`) on the server.
    fn run(&mut self, model: &Queues, before: &State, a: &Action) {
        let k = self.src.clone();
        let now = self.now;
        let rt = &self.rt;
        match a {
            Action::Push(Kind::Qctl, ids) => {
                let mut call = scripts::PUSH.call(&[&k.data, &k.active, &k.signal]);
                for id in ids {
                    call.arg(name(*id))
                        .arg(record(*id, 0, model.damaged && *id == 0));
                }
                let _: redis::Value = rt.block_on(call.invoke(&mut self.redis)).expect("push");
            }
            Action::Push(Kind::Go, ids) => {
                let id = ids[0];
                self.eval(
                    GO_PUSH,
                    &[&k.data, &k.active],
                    &[
                        name(id).into_bytes(),
                        record(id, 0, model.damaged && id == 0),
                    ],
                );
            }
            Action::Schedule(_, id, score) => {
                let due = self.score(*score);
                let _: Vec<i64> = rt
                    .block_on(
                        scripts::SCHEDULE
                            .call(&[&k.data, &k.scheduled])
                            .arg(name(*id))
                            .arg(record(*id, 0, model.damaged && *id == 0))
                            .arg(due)
                            .invoke(&mut self.redis),
                    )
                    .expect("schedule");
            }
            Action::Import(id, place, replace) => {
                let lua = if *replace {
                    &scripts::IMPORT_REPLACE
                } else {
                    &scripts::IMPORT
                };
                let (state, score) = match place {
                    Place::Ready => ("a", String::new()),
                    Place::Scheduled => ("s", (now + TICK).to_string()),
                    Place::Dead => ("d", now.to_string()),
                };
                let _: Vec<i64> = rt
                    .block_on(
                        lua.call(&[
                            &k.data,
                            &k.active,
                            &k.scheduled,
                            &k.dead,
                            &k.failures,
                            &k.signal,
                        ])
                        .arg(name(*id))
                        .arg(record(*id, 0, model.damaged && *id == 0))
                        .arg(state)
                        .arg(score)
                        .arg("")
                        .invoke(&mut self.redis),
                    )
                    .expect("import");
            }
            Action::Promote(Kind::Qctl) => {
                rt.block_on(scheduled::promote_due(&mut self.redis, &k, now, 1000))
                    .expect("promote");
            }
            Action::Promote(Kind::Go) => {
                self.eval(
                    GO_PROMOTE,
                    &[&k.scheduled, &k.active],
                    &[now.to_string().into_bytes()],
                );
            }
            Action::Reserve(c) => {
                let inflight = self.inflight(*c);
                if model.kinds[*c as usize] == Kind::Qctl {
                    rt.block_on(inflight::reserve(
                        &mut self.redis,
                        &mut self.reader,
                        &k,
                        &inflight,
                        1,
                        1 << 20,
                        Duration::from_secs(CUTOFF as u64),
                    ))
                    .expect("reserve");
                } else {
                    self.eval(GO_FETCH, &[&k.consumers, &k.active, &inflight], &[]);
                }
            }
            Action::Ack(c, id) => {
                let inflight = self.inflight(*c);
                if model.kinds[*c as usize] == Kind::Qctl {
                    rt.block_on(inflight::ack(
                        &mut self.redis,
                        &k,
                        &inflight,
                        &[(&name(*id), 5)],
                        now,
                    ))
                    .expect("ack");
                } else {
                    self.eval(GO_ACK, &[&inflight, &k.data], &[name(*id).into_bytes()]);
                }
            }
            Action::Fail(c, id) => {
                let inflight = self.inflight(*c);
                let read = before.consumers[*c as usize].running[id];
                let job = Job {
                    id: name(*id),
                    data: Some(b"data".to_vec()),
                    attempt: read as i64,
                };
                let retry = read + 1 < model.attempts;
                if model.kinds[*c as usize] == Kind::Qctl {
                    let failure = self.failure();
                    if retry {
                        rt.block_on(inflight::retry(
                            &mut self.redis,
                            &k,
                            &inflight,
                            &job,
                            now + TICK,
                            &failure,
                        ))
                        .expect("retry");
                    } else {
                        rt.block_on(inflight::kill(
                            &mut self.redis,
                            &k,
                            &inflight,
                            &job.id,
                            Some(&job),
                            now,
                            &failure,
                        ))
                        .expect("kill");
                    }
                } else {
                    let next = record(*id, read + 1, false);
                    let (set, at) = if retry {
                        (&k.scheduled, now + TICK)
                    } else {
                        (&k.dead, now)
                    };
                    self.eval(
                        GO_SETTLE,
                        &[&inflight, set, &k.data],
                        &[name(*id).into_bytes(), at.to_string().into_bytes(), next],
                    );
                }
            }
            Action::Bury(c, id) => {
                let inflight = self.inflight(*c);
                let failure = self.failure();
                rt.block_on(inflight::kill(
                    &mut self.redis,
                    &k,
                    &inflight,
                    &name(*id),
                    None,
                    now,
                    &failure,
                ))
                .expect("kill");
            }
            Action::Heartbeat(c) => {
                let inflight = self.inflight(*c);
                let co = &before.consumers[*c as usize];
                if model.kinds[*c as usize] == Kind::Qctl && co.age >= 2 {
                    // Its lease timer has run out: it does not beat.
                } else if model.kinds[*c as usize] == Kind::Qctl {
                    let uuid = self.uuids[*c as usize].clone();
                    rt.block_on(consumers::renew(
                        &mut self.redis,
                        &k,
                        &uuid,
                        now,
                        Duration::from_secs(CUTOFF as u64),
                    ))
                    .expect("renew");
                } else {
                    rt.block_on(consumers::heartbeat(&mut self.redis, &k, &inflight, now))
                        .expect("heartbeat");
                }
            }
            // What the processes do: no call.
            Action::Stall(_)
            | Action::Freeze(_)
            | Action::Die(_)
            | Action::Stop(_)
            | Action::GoStop(_) => {}
            Action::Requeue(c) => {
                let inflight = self.inflight(*c);
                let ids: Vec<String> = before.inflight[*c as usize]
                    .iter()
                    .map(|i| name(*i))
                    .collect();
                let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
                rt.block_on(inflight::requeue(&mut self.redis, &k, &inflight, &ids))
                    .expect("requeue");
            }
            Action::Deregister(c) => {
                let uuid = self.uuids[*c as usize].clone();
                rt.block_on(consumers::deregister(&mut self.redis, &k, &uuid))
                    .expect("deregister");
            }
            Action::OrphanScan => {
                rt.block_on(consumers::expired(&mut self.redis, &k, now - CUTOFF))
                    .expect("expired");
            }
            Action::Recover(c) => {
                let member = self.inflight(*c);
                rt.block_on(consumers::recover_step(
                    &mut self.redis,
                    &k,
                    &member,
                    now - CUTOFF,
                ))
                .expect("recover");
            }
            Action::Custodian(_) => {
                self.eval(
                    GO_CUSTODIAN,
                    &[&k.consumers, &k.active],
                    &[(now - CUTOFF).to_string().into_bytes()],
                );
            }
            Action::Tick => {
                self.now += TICK;
                let now = self.now;
                for (c, co) in before.consumers.iter().enumerate() {
                    if co.status == super::queue::Status::Alive && co.registered {
                        let inflight = self.inflight(c as u8);
                        self.rt
                            .block_on(consumers::heartbeat(&mut self.redis, &k, &inflight, now))
                            .expect("heartbeat");
                    }
                }
            }
            Action::RequeueDead(id, reset) => {
                let stored: Vec<u8> = redis::cmd("HGET")
                    .arg(&k.data)
                    .arg(name(*id))
                    .query(&mut self.raw)
                    .expect("HGET");
                let r = before.src.records[id];
                let next = if r.damaged {
                    stored.clone()
                } else {
                    record(*id, if *reset { 0 } else { r.attempt }, false)
                };
                let _: Vec<i64> = rt
                    .block_on(
                        scripts::REQUEUE_DEAD
                            .call(&[&k.dead, &k.active, &k.data, &k.failures, &k.signal])
                            .arg(name(*id))
                            .arg(stored)
                            .arg(next)
                            .invoke(&mut self.redis),
                    )
                    .expect("requeue dead");
            }
            Action::DeleteDead(id) | Action::DeleteScheduled(id) => {
                let set = if matches!(a, Action::DeleteDead(_)) {
                    &k.dead
                } else {
                    &k.scheduled
                };
                let _: Vec<i64> = rt
                    .block_on(
                        scripts::DELETE
                            .call(&[set, &k.data, &k.failures])
                            .arg(name(*id))
                            .invoke(&mut self.redis),
                    )
                    .expect("delete");
            }
            Action::DeleteReady(id) => {
                let _: Vec<i64> = rt
                    .block_on(
                        scripts::DELETE_ACTIVE
                            .call(&[&k.active, &k.data, &k.failures])
                            .arg(name(*id))
                            .invoke(&mut self.redis),
                    )
                    .expect("delete ready");
            }
            Action::RunNow(id) => {
                let _: Vec<i64> = rt
                    .block_on(
                        scripts::RUN_NOW
                            .call(&[&k.scheduled, &k.active, &k.signal])
                            .arg(name(*id))
                            .invoke(&mut self.redis),
                    )
                    .expect("run now");
            }
            Action::RequeueStranded(id) => {
                let sets: Vec<String> = (0..model.kinds.len() as u8)
                    .map(|c| self.inflight(c))
                    .collect();
                let mut keys: Vec<&str> =
                    vec![&k.data, &k.active, &k.scheduled, &k.dead, &k.signal];
                keys.extend(sets.iter().map(String::as_str));
                let _: Vec<i64> = rt
                    .block_on(
                        scripts::REQUEUE_STRANDED
                            .call(&keys)
                            .arg(name(*id))
                            .invoke(&mut self.redis),
                    )
                    .expect("requeue stranded");
            }
            Action::DropMissing(id) => {
                let _: Vec<i64> = rt
                    .block_on(
                        scripts::DROP_MISSING
                            .call(&[&k.data, &k.active])
                            .arg("list")
                            .arg(name(*id))
                            .invoke(&mut self.redis),
                    )
                    .expect("drop missing");
            }
            Action::Pause | Action::Unpause => {
                rt.block_on(queues::set_paused(
                    &mut self.redis,
                    &k,
                    matches!(a, Action::Pause),
                ))
                .expect("pause");
            }
            Action::MoveTake(from) => {
                let (code, key) = match from {
                    Place::Ready => ("a", &k.active),
                    Place::Scheduled => ("s", &k.scheduled),
                    Place::Dead => ("d", &k.dead),
                };
                self.tokens += 1;
                let line = format!("t{} {}", self.tokens, self.dst.name);
                let reply: Vec<Option<Vec<u8>>> = rt
                    .block_on(
                        scripts::MOVE_TAKE
                            .call(&[&k.data, &k.failures, &k.move_out, key, &k.signal])
                            .arg(code)
                            .arg(1)
                            .arg(1 << 20)
                            .arg(line)
                            .invoke(&mut self.redis),
                    )
                    .expect("move take");
                for job in reply.chunks(5) {
                    let id = id_of(&String::from_utf8_lossy(
                        job[0].as_deref().unwrap_or_default(),
                    ));
                    self.taken.insert(id, job.to_vec());
                }
            }
            Action::MovePublish(id) => {
                let d = self.dst.clone();
                let job = self.taken[id].clone();
                let flags = match (&job[3], &job[4]) {
                    (Some(_), Some(_)) => "rf",
                    (Some(_), None) => "r",
                    (None, Some(_)) => "f",
                    (None, None) => "",
                };
                let line = format!("t{} {}", self.tokens, self.src.name);
                let mut call = scripts::MOVE_PUBLISH.call(&[
                    &d.data,
                    &d.active,
                    &d.scheduled,
                    &d.dead,
                    &d.failures,
                    &d.signal,
                    &d.move_in,
                    &d.move_out,
                ]);
                call.arg(line);
                for part in &job {
                    call.arg(part.clone().unwrap_or_default());
                }
                call.arg(flags);
                let _: Vec<i64> = rt
                    .block_on(call.invoke(&mut self.redis))
                    .expect("move publish");
            }
            Action::MoveReturn(id) => {
                let _: Vec<i64> = rt
                    .block_on(
                        scripts::MOVE_RETURN
                            .call(&[
                                &k.data,
                                &k.active,
                                &k.scheduled,
                                &k.dead,
                                &k.failures,
                                &k.signal,
                                &k.move_out,
                            ])
                            .arg(name(*id))
                            .invoke(&mut self.redis),
                    )
                    .expect("move return");
            }
            Action::MoveForget(id) => {
                let _: i64 = redis::cmd("HDEL")
                    .arg(&k.move_out)
                    .arg(name(*id))
                    .query(&mut self.raw)
                    .expect("HDEL");
            }
            Action::MoveSweep(id) => {
                let _: i64 = redis::cmd("HDEL")
                    .arg(&self.dst.move_in)
                    .arg(name(*id))
                    .query(&mut self.raw)
                    .expect("HDEL");
            }
            Action::Find | Action::CheckRights => {}
        }
    }

    fn score(&self, score: Score) -> f64 {
        match score {
            Score::Negative => -1.0,
            Score::Due => self.now - 1.0,
            Score::Future => self.now + TICK,
        }
    }

    fn class(&self, score: f64) -> Score {
        if score < 0.0 {
            Score::Negative
        } else if score <= self.now {
            Score::Due
        } else {
            Score::Future
        }
    }

    fn queue(&mut self, keys: &QueueKeys, attempts: u8) -> Queue {
        let c = &mut self.raw;
        let active: Vec<String> = redis::cmd("LRANGE")
            .arg(&keys.active)
            .arg(0)
            .arg(-1)
            .query(c)
            .expect("LRANGE");
        let scheduled: Vec<(String, f64)> = redis::cmd("ZRANGE")
            .arg(&keys.scheduled)
            .arg(0)
            .arg(-1)
            .arg("WITHSCORES")
            .query(c)
            .expect("ZRANGE");
        let dead: Vec<String> = redis::cmd("ZRANGE")
            .arg(&keys.dead)
            .arg(0)
            .arg(-1)
            .query(c)
            .expect("ZRANGE");
        let data: Vec<(String, Vec<u8>)> = redis::cmd("HGETALL")
            .arg(&keys.data)
            .query(c)
            .expect("HGETALL");
        let failures: Vec<String> = redis::cmd("HKEYS")
            .arg(&keys.failures)
            .query(c)
            .expect("HKEYS");
        Queue {
            active: active.iter().map(|i| id_of(i)).collect(),
            scheduled: scheduled
                .iter()
                .map(|(i, s)| (id_of(i), self.class(*s)))
                .collect(),
            dead: dead.iter().map(|i| id_of(i)).collect(),
            records: data
                .iter()
                .map(|(i, r)| {
                    let r = match Job::decode(r) {
                        Ok(job) => Record {
                            attempt: (job.attempt as u8).min(attempts),
                            damaged: false,
                        },
                        Err(_) => Record {
                            attempt: 0,
                            damaged: true,
                        },
                    };
                    (id_of(i), r)
                })
                .collect(),
            failures: failures.iter().map(|i| id_of(i)).collect(),
        }
    }

    /// The server's state in the model's terms; what only the processes know (what runs,
    /// their status, what orphan recovery read) and the test's own notes come from `model`.
    fn read(&mut self, model: &State, attempts: u8) -> State {
        let src = self.queue(&self.src.clone(), attempts);
        let dst = self.queue(&self.dst.clone(), attempts);
        let mut s = model.clone();
        s.src = src;
        s.dst = dst;
        for c in 0..s.consumers.len() {
            let key = self.inflight(c as u8);
            let members: Vec<String> = redis::cmd("SMEMBERS")
                .arg(&key)
                .query(&mut self.raw)
                .expect("SMEMBERS");
            s.inflight[c] = members.iter().map(|i| id_of(i)).collect();
            let beat: Option<f64> = redis::cmd("ZSCORE")
                .arg(&self.src.consumers)
                .arg(&key)
                .query(&mut self.raw)
                .expect("ZSCORE");
            s.consumers[c].registered = beat.is_some();
            if let Some(beat) = beat {
                s.consumers[c].age = if beat >= self.now {
                    0
                } else if beat > self.now - CUTOFF {
                    1
                } else {
                    2
                };
            } else {
                s.consumers[c].age = model.consumers[c].age;
            }
        }
        let paused: i64 = redis::cmd("EXISTS")
            .arg(&self.src.paused)
            .query(&mut self.raw)
            .expect("EXISTS");
        s.paused = paused == 1;
        let out: Vec<String> = redis::cmd("HKEYS")
            .arg(&self.src.move_out)
            .query(&mut self.raw)
            .expect("HKEYS");
        let journal: BTreeSet<Id> = out.iter().map(|i| id_of(i)).collect();
        s.move_out.retain(|id, _| journal.contains(id));
        for id in journal {
            s.move_out.entry(id).or_insert((
                Place::Ready,
                Score::Due,
                Record {
                    attempt: 0,
                    damaged: false,
                },
                false,
            ));
        }
        let inn: Vec<String> = redis::cmd("HKEYS")
            .arg(&self.dst.move_in)
            .query(&mut self.raw)
            .expect("HKEYS");
        s.move_in = inn.iter().map(|i| id_of(i)).collect();
        s
    }
}

/// Where the model and the server differ, in words; empty when they agree.
fn differences(model: &State, real: &State) -> Vec<String> {
    let mut out = Vec::new();
    let mut field = |what: &str, m: String, r: String| {
        if m != r {
            out.push(format!("{what}: model {m}, Redis {r}"));
        }
    };
    for (side, m, r) in [
        ("source", &model.src, &real.src),
        ("destination", &model.dst, &real.dst),
    ] {
        field(
            &format!("{side} ready"),
            format!("{:?}", m.active),
            format!("{:?}", r.active),
        );
        field(
            &format!("{side} scheduled"),
            format!("{:?}", m.scheduled),
            format!("{:?}", r.scheduled),
        );
        field(
            &format!("{side} dead"),
            format!("{:?}", m.dead),
            format!("{:?}", r.dead),
        );
        field(
            &format!("{side} records"),
            format!("{:?}", m.records),
            format!("{:?}", r.records),
        );
        field(
            &format!("{side} failures"),
            format!("{:?}", m.failures),
            format!("{:?}", r.failures),
        );
    }
    for c in 0..model.inflight.len() {
        field(
            &format!("in flight at consumer {c}"),
            format!("{:?}", model.inflight[c]),
            format!("{:?}", real.inflight[c]),
        );
        let (m, r) = (&model.consumers[c], &real.consumers[c]);
        field(
            &format!("consumer {c} registered, heartbeat age"),
            format!("{} {}", m.registered, if m.registered { m.age } else { 0 }),
            format!("{} {}", r.registered, if r.registered { r.age } else { 0 }),
        );
    }
    field(
        "paused",
        format!("{}", model.paused),
        format!("{}", real.paused),
    );
    field(
        "source journal",
        format!("{:?}", model.move_out.keys().collect::<Vec<_>>()),
        format!("{:?}", real.move_out.keys().collect::<Vec<_>>()),
    );
    field(
        "destination journal",
        format!("{:?}", model.move_in),
        format!("{:?}", real.move_in),
    );
    out
}

/// Whether the real side can run `a` in `s` as the model does (a move takes the first of a
/// sorted set, whose order by real score the model does not keep: only a set of one).
fn runnable(s: &State, a: &Action) -> bool {
    match a {
        Action::MoveTake(Place::Scheduled) => s.src.scheduled.len() == 1,
        Action::MoveTake(Place::Dead) => s.src.dead.len() == 1,
        Action::Find | Action::CheckRights => false,
        _ => true,
    }
}

/// Whether the order of the ids `a` appends to the ready list is the server's to choose (a
/// set's members, a sorted set's order by real score).
fn order_free(a: &Action) -> bool {
    matches!(
        a,
        Action::Recover(_) | Action::Custodian(_) | Action::Promote(_) | Action::Requeue(_)
    )
}

/// What went wrong in a run: the step, the action, the differences, the invariants broken.
pub struct Failed {
    pub steps: Vec<Action>,
    pub differences: Vec<String>,
    pub invariants: Vec<&'static str>,
}

/// Runs `actions` (those the model can run) on a fresh pair of queues; the actions run and
/// what went wrong at the first step where the server and the model differ.
fn replay(
    server: &RedisServer,
    run: u64,
    model: &Queues,
    actions: &[Action],
) -> Result<Vec<Action>, Failed> {
    let mut real = Real::new(server, run, model);
    let mut s = model.initial();
    let mut done = Vec::new();
    for a in actions {
        if !runnable(&s, a) {
            continue;
        }
        let Some(mut next) = model.step(&s, a) else {
            continue;
        };
        let before = real.read(&s, model.attempts);
        real.run(model, &s, a);
        done.push(a.clone());
        let mut after = real.read(&next, model.attempts);
        if order_free(a) {
            let mut m = next.src.active.clone();
            let mut r = after.src.active.clone();
            m.sort_unstable();
            r.sort_unstable();
            if m == r {
                next.src.active = after.src.active.clone();
            }
        }
        after.broke = before.broke | transition(&before, a, &after);
        let differences = differences(&next, &after);
        // What the model itself allows (a Go consumer whose heartbeat lapsed runs a job twice)
        // is not held against the scripts.
        let allowed = invariants::broken_in(model, &next);
        let invariants: Vec<&'static str> = invariants::broken_in(model, &after)
            .into_iter()
            .filter(|i| !allowed.contains(i))
            .collect();
        if !differences.is_empty() || !invariants.is_empty() {
            return Err(Failed {
                steps: done,
                differences,
                invariants,
            });
        }
        s = next;
    }
    Ok(done)
}

/// Whether `a` is the next move of the race of a frozen consumer and orphan recovery.
fn racing(s: &State, a: &Action) -> bool {
    let frozen = (0..s.consumers.len())
        .find(|c| s.consumers[*c].status == Status::Frozen && !s.consumers[*c].running.is_empty());
    if let Some(c) = frozen {
        let co = &s.consumers[c];
        let late: Vec<Id> = co
            .running
            .keys()
            .filter(|id| !s.inflight[c].contains(id))
            .copied()
            .collect();
        return match a {
            Action::Ack(x, id) | Action::Fail(x, id) | Action::Bury(x, id) => {
                *x as usize == c && late.contains(id)
            }
            _ if !late.is_empty() => false,
            Action::Tick => co.age < 2,
            Action::OrphanScan | Action::Recover(_) | Action::Custodian(_) => co.age >= 2,
            _ => false,
        };
    }
    let running = (0..s.consumers.len())
        .find(|c| s.consumers[*c].status == Status::Alive && !s.consumers[*c].running.is_empty());
    match (running, a) {
        (Some(c), Action::Freeze(x)) => *x as usize == c,
        (None, Action::Push(..) | Action::Reserve(_)) => true,
        _ => false,
    }
}

/// A random sequence of `len` actions that the model can run, from `seed`.
fn generate(model: &Queues, seed: u64, len: usize) -> Vec<Action> {
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut s = model.initial();
    let mut out = Vec::new();
    while out.len() < len {
        let mut all = Vec::new();
        model.all_actions(&s, &mut all);
        let steps: Vec<(Action, State)> = all
            .into_iter()
            .filter(|a| runnable(&s, a))
            .filter_map(|a| model.step(&s, &a).map(|n| (a, n)))
            .collect();
        if steps.is_empty() {
            break;
        }
        // Weighted towards what makes consumers race: a consumer that stops beating, time,
        // orphan recovery, and a settle by a consumer that no longer holds its job.
        let lapsed = s
            .consumers
            .iter()
            .any(|c| matches!(c.status, Status::Frozen | Status::Stalled));
        let weight = |a: &Action| match a {
            Action::Tick if lapsed => 20,
            Action::OrphanScan | Action::Recover(_) | Action::Custodian(_) => 20,
            Action::Ack(c, id) | Action::Fail(c, id) | Action::Bury(c, id) => {
                if s.inflight[*c as usize].contains(id) {
                    6
                } else {
                    60
                }
            }
            Action::Freeze(c) if !s.consumers[*c as usize].running.is_empty() => 20,
            Action::Reserve(_) => 10,
            Action::Push(..) | Action::Schedule(..) | Action::Tick | Action::Heartbeat(_) => 6,
            Action::Stall(_) | Action::Promote(_) => 2,
            _ => 1,
        };
        let total: usize = steps.iter().map(|(a, _)| weight(a)).sum();
        let mut pick = rng.usize(..total);
        let mut chosen = 0;
        for (i, (a, _)) in steps.iter().enumerate() {
            if pick < weight(a) {
                chosen = i;
                break;
            }
            pick -= weight(a);
        }
        // Every other sequence mostly plays the race of a consumer that stops while its
        // handler runs: its job is recovered, then it settles.
        let raced: Vec<usize> = (0..steps.len())
            .filter(|i| seed % 2 == 0 && racing(&s, &steps[*i].0))
            .collect();
        if !raced.is_empty() && rng.u8(..10) < 7 {
            chosen = raced[rng.usize(..raced.len())];
        }
        let (a, n) = steps[chosen].clone();
        out.push(a);
        s = n;
    }
    out
}

/// Runs `runs` random sequences of `len` actions; on a difference, shrinks the sequence (drops
/// each action in turn while the difference remains) and panics with the shortest one.
pub fn check(server: &RedisServer, model: &Queues, runs: u64, len: usize) {
    // Each replay has queues of its own on the server.
    static RUNS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let next = || RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    for seed in 0..runs {
        let actions = generate(model, seed, len);
        let Err(mut failed) = replay(server, next(), model, &actions) else {
            continue;
        };
        // Shrink: drop one action at a time while it still fails.
        let mut steps = failed.steps.clone();
        let mut i = 0;
        while i < steps.len() {
            let mut shorter = steps.clone();
            shorter.remove(i);
            match replay(server, next(), model, &shorter) {
                Err(f) => {
                    steps = f.steps.clone();
                    failed = f;
                }
                Ok(_) => i += 1,
            }
        }
        let shown: Vec<String> = failed.steps.iter().map(|a| format!("{a:?}")).collect();
        panic!(
            "the real scripts differ from the model (seed {seed}) after {} actions:\n  {}\n\
             invariants broken in Redis: {}\ndifferences:\n  {}",
            shown.len(),
            shown.join("\n  "),
            if failed.invariants.is_empty() {
                "none".to_string()
            } else {
                failed.invariants.join("; ")
            },
            failed.differences.join("\n  ")
        );
    }
}
