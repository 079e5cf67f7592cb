//! `qctl doctor`: what could lose or stall jobs on the server a queue lives on (eviction,
//! memory, persistence, replication, cluster addressing, version, latency, clock) and what
//! the current ACL user may do on a queue. Each check gives a [`Finding`] with its fix; the
//! queue's own integrity is checked in [`super::integrity`].

use std::collections::HashMap;
use std::time::Instant;

use serde::Serialize;

use super::conn::{Node, Redis};
use super::error::Error;
use super::health::Severity;
use super::keys::QueueKeys;
use super::scripts::{self, Rights};

/// The part of the system a finding is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Area {
    Server,
    Rights,
    Queue,
}

/// The most sample ids a finding names.
pub const SAMPLES: usize = 10;

/// One check's result: what was found, why it matters and how to fix it.
#[derive(Clone, Debug, Serialize)]
pub struct Finding {
    pub area: Area,
    /// The check's stable name (`maxmemory-policy`, `stranded-records`, `rights-purge`).
    pub check: String,
    pub severity: Severity,
    /// The server the finding is on (`host:port`).
    pub node: Option<String>,
    pub queue: Option<String>,
    /// The key the finding is about.
    pub key: Option<String>,
    /// How many ids (or keys, consumers) it is about.
    pub count: Option<u64>,
    /// Up to [`SAMPLES`] of them.
    pub samples: Vec<String>,
    /// One line: what was found.
    pub summary: String,
    /// Why it matters (empty for an OK check).
    pub explanation: String,
    /// What to do about it.
    pub fix: Option<String>,
    /// For the rights checks: whether the user may do it (None: it could not be told).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allowed: Option<bool>,
}

impl Finding {
    pub fn new(area: Area, check: &str, severity: Severity, summary: impl Into<String>) -> Self {
        Finding {
            area,
            check: check.to_string(),
            severity,
            node: None,
            queue: None,
            key: None,
            count: None,
            samples: Vec::new(),
            summary: summary.into(),
            explanation: String::new(),
            fix: None,
            allowed: None,
        }
    }

    pub fn explain(mut self, why: impl Into<String>) -> Self {
        self.explanation = why.into();
        self
    }

    pub fn fix(mut self, fix: impl Into<String>) -> Self {
        self.fix = Some(fix.into());
        self
    }

    pub fn node(mut self, node: &str) -> Self {
        self.node = Some(node.to_string());
        self
    }

    pub fn key(mut self, key: &str) -> Self {
        self.key = Some(key.to_string());
        self
    }
}

/// The worst severity of `findings` (OK when there are none).
pub fn worst(findings: &[Finding]) -> Severity {
    findings
        .iter()
        .fold(Severity::Ok, |w, f| w.worst(f.severity))
}

/// What HELLO says of a server: every user may run it.
#[derive(Clone, Debug, Default)]
pub struct Hello {
    /// `redis` or `valkey`.
    pub server: String,
    pub version: String,
    /// `standalone`, `cluster` or `sentinel`.
    pub mode: String,
    /// `master` or `replica`.
    pub role: String,
}

impl Hello {
    /// (major, minor) of the version.
    pub fn version_number(&self) -> Option<(u32, u32)> {
        let mut parts = self.version.split('.').map(|p| p.parse::<u32>().ok());
        Some((parts.next()??, parts.next()??))
    }

    pub fn is_valkey(&self) -> bool {
        self.server.eq_ignore_ascii_case("valkey")
    }

    /// Whether scripts can check a right without running the command (7.0+, Valkey).
    pub fn checks_rights_without_running(&self) -> bool {
        self.is_valkey() || self.version_number().is_some_and(|v| v >= (7, 0))
    }
}

/// Reads HELLO on `node`.
pub async fn hello(redis: &mut Redis, node: &Node) -> Result<Hello, Error> {
    let reply: redis::Value = redis
        .query_at(node, &redis::cmd("HELLO"), format!("HELLO{node}"))
        .await?;
    let mut out = Hello::default();
    let pairs: Vec<(String, redis::Value)> = match reply {
        redis::Value::Map(m) => m
            .into_iter()
            .filter_map(|(k, v)| Some((redis::from_redis_value::<String>(k).ok()?, v)))
            .collect(),
        redis::Value::Array(items) => items
            .chunks(2)
            .filter_map(|p| match p {
                [k, v] => Some((redis::from_redis_value_ref::<String>(k).ok()?, v.clone())),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    for (k, v) in pairs {
        let text = redis::from_redis_value::<String>(v).unwrap_or_default();
        match k.as_str() {
            "server" => out.server = text,
            "version" => out.version = text,
            "mode" => out.mode = text,
            "role" => out.role = text,
            _ => {}
        }
    }
    Ok(out)
}

/// `INFO` as field -> value; None with the refusal when the user may not run it.
async fn info(
    redis: &mut Redis,
    node: &Node,
) -> Result<Result<HashMap<String, String>, Error>, Error> {
    match redis
        .query_at::<String>(node, &redis::cmd("INFO"), format!("INFO{node}"))
        .await
    {
        Ok(text) => Ok(Ok(parse_info(&text))),
        Err(e) if e.is_refusal() => Ok(Err(e)),
        Err(e) => Err(e),
    }
}

/// The `field:value` lines of an INFO reply.
pub fn parse_info(text: &str) -> HashMap<String, String> {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect()
}

/// Why a refused command was refused, in a few words (`NOPERM`, `unknown command`).
fn refusal(err: &Error) -> String {
    match err {
        Error::Redis { reason, code, .. } => {
            let first = reason.lines().next().unwrap_or("");
            match code.as_deref() {
                Some(c) if !first.starts_with(c) => format!("{c} {first}"),
                _ => first.to_string(),
            }
        }
        other => other.to_string(),
    }
}

/// How many TIME round trips measure the latency and the clock.
const SAMPLES_TIME: usize = 5;

/// The checks of one server (`node`, shown as `name`): HELLO, INFO, CONFIG GET save (when
/// INFO does not settle persistence), and TIME round trips. `cluster` tells whether qctl
/// was told the server is part of a Redis Cluster. Only a server that cannot be reached at
/// all is an error; a refused command is a finding saying what could not be known.
pub async fn check_server(
    redis: &mut Redis,
    node: &Node,
    name: &str,
    cluster: bool,
) -> Result<(Hello, Vec<Finding>), Error> {
    let finding = |check: &str, severity: Severity, summary: String| {
        Finding::new(Area::Server, check, severity, summary).node(name)
    };
    let mut out = Vec::new();
    let hello = match hello(redis, node).await {
        Ok(h) => h,
        Err(e) if e.is_refusal() => {
            out.push(
                finding(
                    "version",
                    Severity::Warning,
                    format!("HELLO was refused: {}", refusal(&e)),
                )
                .explain("Without HELLO the version, role and mode of the server are not known.")
                .fix("Check the user's rights: every Redis user may normally run HELLO."),
            );
            Hello::default()
        }
        Err(e) => return Err(e),
    };
    let info = info(redis, node).await?;
    let fields = info.as_ref().ok();
    let get = |field: &str| fields.and_then(|f| f.get(field)).map(String::as_str);

    // Version.
    let product = if hello.is_valkey() || get("server_name") == Some("valkey") {
        "Valkey"
    } else {
        "Redis"
    };
    let version = if hello.version.is_empty() {
        get("valkey_version")
            .or(get("redis_version"))
            .unwrap_or("")
            .to_string()
    } else {
        hello.version.clone()
    };
    let hello = Hello {
        version: version.clone(),
        server: if product == "Valkey" {
            "valkey".into()
        } else {
            hello.server.clone()
        },
        ..hello
    };
    if !version.is_empty() {
        match hello.version_number() {
            Some(v) if product == "Redis" && v < (6, 2) => out.push(
                finding(
                    "version",
                    Severity::Critical,
                    format!("{product} {version} is older than 6.2, which qctl needs"),
                )
                .explain(
                    "qctl's scripts use commands of Redis 6.2 (LPOS, ZRANGE ... BYSCORE, \
                     SMISMEMBER); on an older server they fail.",
                )
                .fix("Upgrade the server to Redis 6.2 or later, or Valkey."),
            ),
            _ => out.push(finding(
                "version",
                Severity::Ok,
                format!("{product} {version} (qctl supports Redis 6.2+ and Valkey)"),
            )),
        }
    }

    // Role: a replica refuses writes (or takes them and loses them).
    let role = get("role")
        .map(str::to_string)
        .unwrap_or(hello.role.clone());
    if role == "slave" || role == "replica" {
        let master = match (get("master_host"), get("master_port")) {
            (Some(h), Some(p)) => format!(" of {h}:{p}"),
            _ => String::new(),
        };
        let read_only = get("slave_read_only")
            .or(get("replica_read_only"))
            .is_none_or(|v| v == "1");
        out.push(
            finding(
                "role",
                Severity::Critical,
                format!(
                    "the server is a replica{master}{}",
                    if read_only {
                        " (read-only)"
                    } else {
                        " (writable)"
                    }
                ),
            )
            .explain(if read_only {
                "A replica refuses every write: consumers cannot reserve, settle or heartbeat, \
                 and enqueue fails (READONLY)."
            } else {
                "A writable replica takes writes that its master never sees: the next sync \
                 throws away jobs enqueued and settled here."
            })
            .fix("Point qctl and the consumers at the master (or at Sentinel's current master)."),
        );
    } else if !role.is_empty() {
        out.push(finding("role", Severity::Ok, format!("role {role}")));
    }

    // A cluster node addressed as a single server.
    let in_cluster = hello.mode == "cluster" || get("cluster_enabled") == Some("1");
    if in_cluster && !cluster {
        out.push(
            finding(
                "cluster",
                Severity::Warning,
                "the server is a Redis Cluster node, addressed without --cluster".into(),
            )
            .explain(
                "Without --cluster qctl talks to this node only: `stats` shows only the queues \
                 whose slot this node owns, and a queue owned by another node answers MOVED.",
            )
            .fix("Add --cluster (or set QCTL_CLUSTER=1); queue names then need a hash tag, as in {mail}."),
        );
    } else if in_cluster {
        out.push(finding(
            "cluster",
            Severity::Ok,
            "cluster master, addressed with --cluster".into(),
        ));
    } else if cluster && !hello.mode.is_empty() {
        out.push(
            finding(
                "cluster",
                Severity::Warning,
                format!(
                    "--cluster was given, but the server runs in {} mode",
                    hello.mode
                ),
            )
            .explain("--cluster expects a Redis Cluster node.")
            .fix("Leave out --cluster for a single server."),
        );
    }

    match &info {
        Err(e) => out.push(
            finding(
                "info",
                Severity::Warning,
                format!("INFO was refused: {}", refusal(e)),
            )
            .explain(
                "The eviction policy, memory use, persistence and replication of the server \
                 could not be read, so they were not checked.",
            )
            .fix("Run doctor as a user that may run INFO (+info), or grant it to this user."),
        ),
        Ok(fields) => {
            memory_checks(fields, &finding, &mut out);
            persistence_checks(redis, node, fields, &finding, &mut out).await?;
        }
    }

    time_checks(redis, node, &finding, &mut out).await?;
    Ok((hello, out))
}

type Make<'a> = &'a (dyn Fn(&str, Severity, String) -> Finding + Sync);

/// maxmemory-policy and memory use against maxmemory, from INFO memory.
fn memory_checks(fields: &HashMap<String, String>, finding: Make<'_>, out: &mut Vec<Finding>) {
    let get = |f: &str| fields.get(f).map(String::as_str);
    let policy = get("maxmemory_policy").unwrap_or("");
    if policy == "noeviction" {
        out.push(finding(
            "maxmemory-policy",
            Severity::Ok,
            "maxmemory-policy noeviction".into(),
        ));
    } else if policy.starts_with("volatile") {
        out.push(
            finding(
                "maxmemory-policy",
                Severity::Warning,
                format!("maxmemory-policy is {policy}"),
            )
            .explain(
                "When memory is full Redis evicts keys that have a time to live: no job key \
                 has one, but qctl's consumer descriptions do, and other data on this server \
                 may vanish. Use noeviction on a queue's server.",
            )
            .fix("CONFIG SET maxmemory-policy noeviction, and the same in redis.conf."),
        );
    } else if !policy.is_empty() {
        out.push(
            finding(
                "maxmemory-policy",
                Severity::Critical,
                format!("maxmemory-policy is {policy}: Redis may evict jobs"),
            )
            .explain(
                "When memory is full Redis deletes keys to make room: a queue's records, its \
                 active list or a consumer's in-flight set can go without a trace, and the \
                 jobs in them are lost. With noeviction a full Redis refuses new jobs instead \
                 (OOM), which producers see.",
            )
            .fix("CONFIG SET maxmemory-policy noeviction, and the same in redis.conf."),
        );
    }
    let used = get("used_memory").and_then(|v| v.parse::<f64>().ok());
    let max = get("maxmemory").and_then(|v| v.parse::<f64>().ok());
    match (used, max) {
        (Some(used), Some(max)) if max > 0.0 => {
            let pct = 100.0 * used / max;
            let summary = format!(
                "memory {} of maxmemory {} ({pct:.0}%)",
                bytes(used),
                bytes(max)
            );
            let severity = if pct > 95.0 {
                Severity::Critical
            } else if pct > 80.0 {
                Severity::Warning
            } else {
                Severity::Ok
            };
            let mut f = finding("memory", severity, summary);
            if severity != Severity::Ok {
                f = f
                    .explain(
                        "Near maxmemory Redis evicts keys (under an eviction policy) or refuses \
                         writes with OOM: enqueues fail, and consumers cannot settle jobs.",
                    )
                    .fix(
                        "Raise maxmemory (CONFIG SET maxmemory), drain or purge queues, or \
                         delete old dead jobs (qctl dead delete QUEUE --older-than 30d).",
                    );
            }
            out.push(f);
        }
        (Some(used), _) => out.push(finding(
            "memory",
            Severity::Ok,
            format!("memory {} used, no maxmemory set", bytes(used)),
        )),
        _ => {}
    }
}

/// AOF or RDB save points: INFO persistence, refined by CONFIG GET save when AOF is off.
async fn persistence_checks(
    redis: &mut Redis,
    node: &Node,
    fields: &HashMap<String, String>,
    finding: Make<'_>,
    out: &mut Vec<Finding>,
) -> Result<(), Error> {
    let get = |f: &str| fields.get(f).map(String::as_str);
    if get("aof_enabled") == Some("1") {
        let status = get("aof_last_write_status").unwrap_or("ok");
        if status != "ok" {
            out.push(
                finding(
                    "persistence",
                    Severity::Warning,
                    format!("AOF is on, but its last write failed ({status})"),
                )
                .explain("Writes since the failure may not be on disk: a restart can lose jobs.")
                .fix("See the server's log; check the disk of its dir (CONFIG GET dir)."),
            );
        } else {
            out.push(finding("persistence", Severity::Ok, "AOF on".into()));
        }
        return Ok(());
    }
    let save: Result<Vec<String>, Error> = redis
        .query_at(
            node,
            redis::cmd("CONFIG").arg("GET").arg("save"),
            format!("CONFIG GET save{node}"),
        )
        .await;
    match save {
        Ok(pair) => {
            let points = pair
                .get(1)
                .map(|s| s.trim().to_string())
                .unwrap_or_default();
            if points.is_empty() {
                out.push(
                    finding(
                        "persistence",
                        Severity::Warning,
                        "persistence is off: no AOF and no RDB save points".into(),
                    )
                    .explain(
                        "Jobs live in memory only: a restart or a crash of Redis loses every \
                         job of every queue.",
                    )
                    .fix(
                        "CONFIG SET appendonly yes (and appendonly yes in redis.conf), or at \
                         least RDB save points (CONFIG SET save \"3600 1 300 100 60 10000\").",
                    ),
                );
            } else {
                let mut f = finding(
                    "persistence",
                    if get("rdb_last_bgsave_status") == Some("err") {
                        Severity::Warning
                    } else {
                        Severity::Ok
                    },
                    format!("RDB snapshots (save {points}), AOF off"),
                );
                if f.severity == Severity::Ok {
                    f.explanation =
                        "A crash loses the jobs changed since the last snapshot.".into();
                } else {
                    f = f
                        .explain("The last RDB snapshot failed: a restart loses everything since the one before.")
                        .fix("See the server's log; check the disk of its dir (CONFIG GET dir).");
                }
                out.push(f);
            }
        }
        Err(e) if e.is_refusal() => out.push(
            finding(
                "persistence",
                Severity::Warning,
                format!(
                    "AOF is off; RDB save points unknown: CONFIG GET save was refused ({})",
                    refusal(&e)
                ),
            )
            .explain(
                "INFO tells that AOF is off but not whether RDB snapshots are taken; without \
                 either, a restart of Redis loses every job.",
            )
            .fix("Check with an admin user: CONFIG GET save, CONFIG GET appendonly."),
        ),
        Err(e) => return Err(e),
    }
    Ok(())
}

/// Latency (TIME round trips: the median and the worst) and the offset between the server's
/// clock and this host's, from the round trip with the least delay.
async fn time_checks(
    redis: &mut Redis,
    node: &Node,
    finding: Make<'_>,
    out: &mut Vec<Finding>,
) -> Result<(), Error> {
    let mut trips: Vec<(f64, f64)> = Vec::with_capacity(SAMPLES_TIME);
    for _ in 0..SAMPLES_TIME {
        let before = super::now();
        let started = Instant::now();
        let reply: Result<(u64, u64), Error> = redis
            .query_at(node, &redis::cmd("TIME"), format!("TIME{node}"))
            .await;
        let rtt = started.elapsed().as_secs_f64();
        match reply {
            Ok((secs, micros)) => {
                let server = secs as f64 + micros as f64 / 1e6;
                trips.push((rtt, server - (before + rtt / 2.0)));
            }
            Err(e) if e.is_refusal() => {
                out.push(
                    finding(
                        "clock",
                        Severity::Warning,
                        format!("TIME was refused: {}", refusal(&e)),
                    )
                    .explain("The latency and the server's clock could not be measured.")
                    .fix("Grant +time: consumers need it too."),
                );
                return Ok(());
            }
            Err(e) => return Err(e),
        }
    }
    let mut rtts: Vec<f64> = trips.iter().map(|t| t.0).collect();
    rtts.sort_by(f64::total_cmp);
    let median = rtts[rtts.len() / 2] * 1e3;
    let max = rtts[rtts.len() - 1] * 1e3;
    let mut f = finding(
        "latency",
        if median > 50.0 {
            Severity::Warning
        } else {
            Severity::Ok
        },
        format!("round trip {median:.2} ms median, {max:.2} ms max ({SAMPLES_TIME} TIME calls)"),
    );
    if f.severity != Severity::Ok {
        f = f
            .explain("Every reservation and settlement waits a round trip: consumers run fewer jobs a second.")
            .fix("Run consumers near the server, or give them a larger --buffer.");
    }
    out.push(f);
    let offset = trips
        .iter()
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .map_or(0.0, |t| t.1);
    let severity = if offset.abs() > 60.0 {
        Severity::Critical
    } else if offset.abs() > 1.0 {
        Severity::Warning
    } else {
        Severity::Ok
    };
    let direction = if offset >= 0.0 { "ahead of" } else { "behind" };
    let mut f = finding(
        "clock",
        severity,
        format!(
            "the server's clock is {:.3} s {direction} this host's",
            offset.abs()
        ),
    );
    if severity != Severity::Ok {
        f = f
            .explain(
                "Go CurlyQ consumers write heartbeats and due times from their host's clock \
                 (qctl consumers follow the server's): a skewed clock makes live consumers look \
                 expired (their jobs run twice) or dead ones look alive (their jobs wait), and \
                 runs retries early or late.",
            )
            .fix("Synchronise the clocks of this host and the server (NTP, chrony).");
    }
    out.push(f);
    Ok(())
}

/// `1.5 MB`: a size in messages.
fn bytes(n: f64) -> String {
    if n >= 1e9 {
        format!("{:.1} GB", n / 1e9)
    } else if n >= 1e6 {
        format!("{:.1} MB", n / 1e6)
    } else {
        format!("{:.0} KB", n / 1e3)
    }
}

/// The kinds of work the rights are checked for, in the order shown.
pub const RIGHTS_GROUPS: [&str; 6] = ["enqueue", "consume", "inspect", "repair", "pause", "purge"];

/// What qctl sends for each kind of work on `keys`: the scripts with their keys (their
/// commands come from the scripts themselves) and the plain commands. `consumer` is an
/// in-flight key of a consumer that does not exist.
fn rights_for(group: &str, keys: &QueueKeys, uuid: &str, skip: &[String]) -> Rights {
    let inflight = keys.inflight(uuid);
    let mut r = Rights::new(format!("{group} on queue {:?}", keys.name));
    let command = |r: &mut Rights, c: &str, k: Option<&str>| {
        if !skip.iter().any(|s| s == c) {
            r.command(c, k);
        }
    };
    match group {
        "enqueue" => {
            r.script(&scripts::PUSH, &[&keys.data, &keys.active, &keys.signal])
                .script(
                    &scripts::PUSH_NEW,
                    &[&keys.data, &keys.active, &keys.signal, &keys.push],
                )
                .script(&scripts::SCHEDULE, &[&keys.data, &keys.scheduled]);
            for (c, k) in [
                ("HSET", &keys.data),
                ("RPUSH", &keys.active),
                ("HSET", &keys.push),
            ] {
                command(&mut r, c, Some(k));
            }
            // Not EVAL: redis.acl_check_cmd("EVAL") without its arguments crashes Valkey 9.1
            // for a user with restricted rights; the check itself runs by EVALSHA.
            for c in ["MULTI", "EXEC"] {
                command(&mut r, c, None);
            }
        }
        "consume" => {
            let mut all = super::consumers::rights(keys, uuid);
            std::mem::swap(&mut r, &mut all);
        }
        "inspect" => {
            for (c, k) in [
                ("TYPE", &keys.active),
                ("LLEN", &keys.active),
                ("LRANGE", &keys.active),
                ("HLEN", &keys.data),
                ("HMGET", &keys.data),
                ("HSTRLEN", &keys.data),
                ("ZCARD", &keys.scheduled),
                ("ZCOUNT", &keys.scheduled),
                ("ZRANGE", &keys.scheduled),
                ("ZSCORE", &keys.scheduled),
                ("ZCARD", &keys.dead),
                ("ZRANGE", &keys.dead),
                ("ZSCORE", &keys.dead),
                ("ZRANGE", &keys.consumers),
                ("ZCOUNT", &keys.consumers),
                ("SCARD", &inflight),
                ("SMEMBERS", &inflight),
                ("HMGET", &keys.failures),
                ("HGET", &keys.stats),
                ("EXISTS", &keys.paused),
                ("XRANGE", &keys.events),
                // wait: where given jobs are, and whether a qctl consumer acked them.
                ("HEXISTS", &keys.data),
                ("ZCOUNT", &keys.dead),
                ("SMISMEMBER", &inflight),
                ("LPOS", &keys.acked),
            ] {
                command(&mut r, c, Some(k));
            }
            // wait reads a queue in one transaction.
            for c in ["SCAN", "MULTI", "EXEC"] {
                command(&mut r, c, None);
            }
        }
        "repair" => {
            r.script(
                &scripts::REQUEUE_DEAD,
                &[
                    &keys.dead,
                    &keys.active,
                    &keys.data,
                    &keys.failures,
                    &keys.signal,
                ],
            )
            .script(&scripts::DELETE, &[&keys.dead, &keys.data, &keys.failures])
            .script(
                &scripts::DELETE,
                &[&keys.scheduled, &keys.data, &keys.failures],
            )
            .script(
                &scripts::RUN_NOW,
                &[&keys.scheduled, &keys.active, &keys.signal],
            )
            .script(
                &scripts::DELETE_ACTIVE,
                &[&keys.active, &keys.data, &keys.failures],
            )
            .script(
                &scripts::RECOVER,
                &[
                    &keys.consumers,
                    &keys.active,
                    &keys.signal,
                    &inflight,
                    &keys.consumer_info(uuid),
                    &keys.consumer_running(uuid),
                ],
            );
        }
        "pause" => {
            command(&mut r, "SET", Some(&keys.paused));
            command(&mut r, "DEL", Some(&keys.paused));
        }
        "purge" => {
            for k in keys.fixed() {
                command(&mut r, "UNLINK", Some(k));
            }
            command(&mut r, "UNLINK", Some(&inflight));
            command(&mut r, "EXISTS", Some(&keys.data));
            command(&mut r, "HLEN", Some(&keys.data));
            command(&mut r, "ZRANGE", Some(&keys.consumers));
            command(&mut r, "SCAN", None);
        }
        _ => {}
    }
    // Every change is recorded in NAME:changes (a change the record refuses is still made,
    // with a warning), which `qctl changes` reads.
    if matches!(group, "repair" | "pause" | "purge") {
        command(&mut r, "XADD", Some(&keys.changes));
        command(&mut r, "XTRIM", Some(&keys.changes));
    }
    if group == "inspect" {
        command(&mut r, "XREVRANGE", Some(&keys.changes));
    }
    r
}

/// Whether the current user may do one kind of work on a queue.
#[derive(Clone, Debug)]
pub struct Permission {
    pub group: &'static str,
    /// None: it could not be told.
    pub allowed: Option<bool>,
    /// The first command refused, with its key: `UNLINK on q:active`.
    pub refused: Option<String>,
    /// Commands that could not be checked without running them (Redis 6.2).
    pub unchecked: Vec<String>,
    /// Why it could not be told.
    pub error: Option<String>,
}

/// Checks, for each of [`RIGHTS_GROUPS`], every command qctl sends for it on the queue's keys,
/// with `lua/rights.lua` (Redis 7.0+ and Valkey: `redis.acl_check_cmd`, which runs nothing;
/// Redis 6.2: forms that leave every key as it was). Commands rights.lua cannot check on 6.2
/// are left out and named. Only a refusal of the check is a finding; a failure of the link
/// or a refused login is the error.
pub async fn rights(redis: &mut Redis, keys: &QueueKeys) -> Result<Vec<Permission>, Error> {
    let uuid = uuid::Uuid::new_v4().hyphenated().to_string();
    let mut out = Vec::new();
    for group in RIGHTS_GROUPS {
        out.push(permission(redis, keys, group, &uuid).await?);
    }
    Ok(out)
}

/// Whether the current user may do one kind of work (`group`, one of [`RIGHTS_GROUPS`]) on
/// a queue, checked as [`rights`] checks it; `uuid` names a consumer that does not exist.
pub async fn permission(
    redis: &mut Redis,
    keys: &QueueKeys,
    group: &'static str,
    uuid: &str,
) -> Result<Permission, Error> {
    let mut skip: Vec<String> = Vec::new();
    let permission = loop {
        let r = rights_for(group, keys, uuid, &skip);
        match r.check(redis).await {
            Ok(()) => {
                break Permission {
                    group,
                    allowed: Some(true),
                    refused: None,
                    unchecked: skip.clone(),
                    error: None,
                }
            }
            Err(e) if !e.is_refusal() => return Err(e),
            Err(e) => {
                let reason = match &e {
                    Error::Redis { reason, .. } => reason.clone(),
                    other => other.to_string(),
                };
                // Redis 6.2: a command rights.lua has no form for.
                if let Some(rest) = reason.split("rights.lua has no way to check ").nth(1) {
                    let c = rest.split_whitespace().next().unwrap_or("").to_string();
                    if !c.is_empty() && !skip.contains(&c) && skip.len() < 20 {
                        skip.push(c);
                        continue;
                    }
                }
                let vehicle = ["EVALSHA", "EVAL", "SCRIPT"]
                    .iter()
                    .any(|c| reason.contains(&format!("'{}'", c.to_ascii_lowercase())));
                let plain = matches!(group, "inspect" | "pause" | "purge");
                if vehicle && plain {
                    // The check itself runs in a script: plain commands cannot be told.
                    break Permission {
                        group,
                        allowed: None,
                        refused: None,
                        unchecked: skip.clone(),
                        error: Some(format!(
                            "the check runs in a Lua script, which the user may not run: {}",
                            reason.lines().next().unwrap_or("")
                        )),
                    };
                }
                if e.code() == Some("NOPERM") || reason.contains("NOPERM") {
                    break Permission {
                        group,
                        allowed: Some(false),
                        refused: Some(denied_text(&reason)),
                        unchecked: skip.clone(),
                        error: None,
                    };
                }
                break Permission {
                    group,
                    allowed: None,
                    refused: None,
                    unchecked: skip.clone(),
                    error: Some(reason),
                };
            }
        }
    };
    Ok(permission)
}

/// `UNLINK on q:active` out of a refusal: the words after "may not run" up to the first `;`,
/// or the whole reason when it has none (an EVALSHA refused outright).
fn denied_text(reason: &str) -> String {
    match reason.split_once("may not run ") {
        Some((_, rest)) => rest
            .split(" (in the script")
            .next()
            .unwrap_or(rest)
            .split(';')
            .next()
            .unwrap_or(rest)
            .trim()
            .to_string(),
        None => reason.lines().next().unwrap_or(reason).to_string(),
    }
}

/// What each kind of work covers, for messages.
pub fn group_covers(group: &str) -> &'static str {
    match group {
        "enqueue" => "qctl enqueue in every form",
        "consume" => "qctl consume: reserve, ack, retry, kill, heartbeat, recover orphans",
        "inspect" => {
            "stats, list and show of active, scheduled, dead, inflight, consumers, tail, wait"
        }
        "repair" => "dead requeue/delete, scheduled run-now/delete, active delete, orphans",
        "pause" => "qctl pause and resume",
        "purge" => "qctl purge",
        _ => "",
    }
}

/// The findings of [`rights`]: one per kind of work, OK whether it may or may not (which
/// user should do what is the operator's choice), WARNING when it could not be told.
pub fn rights_findings(keys: &QueueKeys, node: &str, permissions: &[Permission]) -> Vec<Finding> {
    permissions
        .iter()
        .map(|p| {
            let check = format!("rights-{}", p.group);
            let unchecked = if p.unchecked.is_empty() {
                String::new()
            } else {
                format!(
                    " ({} not checked: Redis 6.2 cannot check {} without running it)",
                    p.unchecked.join(", "),
                    if p.unchecked.len() == 1 { "it" } else { "them" }
                )
            };
            let mut f = match (p.allowed, &p.refused, &p.error) {
                (Some(true), _, _) => Finding::new(
                    Area::Rights,
                    &check,
                    Severity::Ok,
                    format!("can {}{unchecked}", p.group),
                ),
                (Some(false), refused, _) => {
                    let what = refused.clone().unwrap_or_default();
                    let mut f = Finding::new(
                        Area::Rights,
                        &check,
                        Severity::Ok,
                        format!("cannot {}: may not run {what}", p.group),
                    )
                    .explain(format!(
                        "{} would stop with exit 4 (NOPERM).",
                        group_covers(p.group)
                    ))
                    .fix(format!(
                        "If this user should {}, grant the command and the key: \
                         ACL SETUSER <user> +{} '~{}:*' (see the ACL recipe in docs/configuration.md).",
                        p.group,
                        what.split_whitespace()
                            .next()
                            .unwrap_or("")
                            .to_ascii_lowercase(),
                        keys.name
                    ));
                    f.key = what.split_once(" on ").map(|(_, k)| k.to_string());
                    f
                }
                (None, _, error) => Finding::new(
                    Area::Rights,
                    &check,
                    Severity::Warning,
                    format!("whether it can {} could not be told", p.group),
                )
                .explain(error.clone().unwrap_or_default())
                .fix("Check the rights with an admin user: ACL GETUSER <user>."),
            };
            f.allowed = p.allowed;
            f.node = Some(node.to_string());
            f.queue = Some(keys.name.clone());
            f
        })
        .collect()
}

/// What `qctl doctor` reports: the document of `doctor --json` (with `--fix`, what it did or
/// would do).
#[derive(Clone, Debug, Serialize)]
pub struct Document<'a> {
    /// The worst finding's severity.
    pub status: &'static str,
    /// The exit code of the convention.
    pub exit_code: u8,
    pub findings: &'a [Finding],
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<serde_json::Value>,
}

impl<'a> Document<'a> {
    pub fn of(findings: &'a [Finding], fix: Option<serde_json::Value>) -> Document<'a> {
        let worst = worst(findings);
        Document {
            status: worst.label(),
            exit_code: worst.exit_code() as u8,
            findings,
            fix,
        }
    }
}

/// Runs every check of `qctl doctor`, in order, adding what it finds to `findings` as it
/// goes: the servers (every master of a cluster), then each queue's rights and integrity,
/// whose reports (what `--fix` repairs) go to `reports`. An error is Redis that could not
/// be read (any more); what was found before it stays.
pub async fn examine(
    redis: &mut Redis,
    queues: &[QueueKeys],
    cluster: bool,
    findings: &mut Vec<Finding>,
    reports: &mut Vec<(QueueKeys, super::integrity::Report)>,
) -> Result<(), Error> {
    let nodes: Vec<(Node, String)> = if cluster {
        redis
            .masters()
            .await?
            .into_iter()
            .map(|n| {
                let name = match &n {
                    Node::At { host, port } => format!("{host}:{port}"),
                    _ => redis.server().to_string(),
                };
                (n, name)
            })
            .collect()
    } else {
        vec![(Node::This, redis.server().to_string())]
    };
    for (node, name) in &nodes {
        let (_, found) = check_server(redis, node, name, cluster).await?;
        findings.extend(found);
    }
    for keys in queues {
        // The node owning the queue: the first master's name stands for a single server.
        let node = if cluster {
            format!("the node of {}", keys.active)
        } else {
            redis.server().to_string()
        };
        // The rights hold for a queue still to come too: they are checked first.
        let permissions = rights(redis, keys).await?;
        findings.extend(rights_findings(keys, &node, &permissions));
        if !super::queues::known(redis, keys).await? {
            // A mistyped name: UNKNOWN, as for `check`, with the queues it may have meant.
            let mut f = Finding::new(
                Area::Queue,
                "exists",
                Severity::Unknown,
                super::queues::no_queue(redis, &keys.name).await,
            )
            .node(&node)
            .explain("No key of the queue is on this server: a mistyped name, or a queue that holds nothing and was never run by qctl. Its integrity was not checked.")
            .fix("Check the name: qctl stats lists the queues.");
            f.queue = Some(keys.name.clone());
            findings.push(f);
            continue;
        }
        match super::integrity::check(redis, keys, &node).await {
            Ok(report) => {
                findings.extend(report.findings.iter().cloned());
                reports.push((keys.clone(), report));
            }
            Err(e) if e.is_refusal() => {
                let mut f = Finding::new(
                    Area::Queue,
                    "integrity",
                    Severity::Warning,
                    format!("the integrity of the queue could not be checked: {e}"),
                )
                .node(&node)
                .explain("A command the check sends was refused; the other checks of the queue were not made.")
                .fix("Run doctor as a user that may read every key of the queue (see the ACL recipe in docs/configuration.md).");
                f.queue = Some(keys.name.clone());
                findings.push(f);
            }
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// The finding of a doctor that could not read Redis (any more): UNKNOWN, with the error
/// (its secrets hidden) and what to check.
pub fn unreadable(error: &Error, server: &str) -> Finding {
    let mut f = Finding::new(
        Area::Server,
        "connect",
        Severity::Unknown,
        format!("Redis could not be read: {error}"),
    )
    .node(server)
    .fix(if error.is_auth() {
        "Give the user with --user and its password with $QCTL_REDIS_PASSWORD or --password-file FILE."
    } else {
        "Check the URL, that the server runs and answers, and the user and password."
    });
    f.summary = super::error::redact(&f.summary);
    f
}
