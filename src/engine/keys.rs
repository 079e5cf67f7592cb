//! The Redis keys of a queue. Names are used verbatim, as CurlyQ does; qctl's own keys
//! (`NAME:failures`, `NAME:paused`, ...) start with `NAME:` and never match `NAME:inflight:*`.

/// Every key of the queue `name`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueueKeys {
    pub name: String,
    /// list: ids ready to run, oldest at the head.
    pub active: String,
    /// hash: id -> job record.
    pub data: String,
    /// zset: id -> due time (unix seconds).
    pub scheduled: String,
    /// zset: id -> time of death (unix seconds).
    pub dead: String,
    /// zset: in-flight key of each consumer -> last heartbeat (unix seconds).
    pub consumers: String,
    /// list: the wake-up flag.
    pub signal: String,
    /// hash (qctl's own): id -> JSON of the job's last failure.
    pub failures: String,
    /// string (qctl's own): while it exists, qctl consumers reserve nothing.
    pub paused: String,
    /// hash (qctl's own): what qctl consumers did since the queue began: the counters
    /// `completed`, `failed`, `retried`, `killed`, `run_ms` and the run-time histogram of
    /// [`super::history`].
    pub stats: String,
    /// stream (qctl's own): what qctl consumers did that no other key keeps in order of
    /// time (retries scheduled), for `qctl tail`; trimmed to about [`EVENTS_KEPT`] entries.
    pub events: String,
    /// hash (qctl's own): the jobs of a chunk that `qctl move` took out of this queue and has
    /// not yet seen arrive where they go: id -> where to, state, score, record and failure.
    pub move_out: String,
    /// hash (qctl's own): the jobs of a chunk that arrived here by `qctl move`, until the
    /// source forgot them: id -> the source.
    pub move_in: String,
    /// hash (qctl's own): the limits every qctl consumer of the queue obeys (`qctl limit`):
    /// `max_running`, `rate` (jobs per second), `burst`, and `rate_text` as it was given.
    pub limits: String,
    /// hash (qctl's own): the token bucket of the shared rate: `tokens`, `at`.
    pub bucket: String,
    /// list (qctl's own): the ids qctl consumers acked, newest at the head, the newest
    /// [`ACKED_KEPT`] of them: what tells a job that succeeded from one that was deleted.
    pub acked: String,
    /// hash (qctl's own): field `ids`, the ids of the jobs of the enqueue transaction that
    /// is running, for lua/push_new.lua to undo it with; written and removed within the
    /// transaction, so no other client sees it.
    pub push: String,
    /// stream (qctl's own): the record of the changes qctl made to the queue (requeue,
    /// delete, pause, purge, move...), for `qctl changes`: see [`super::changes`]. Not among
    /// [`QueueKeys::fixed`]: a purge keeps it, and alone it makes no queue.
    pub changes: String,
}

/// About how many entries `NAME:events` keeps (trimmed with `MAXLEN ~`).
pub const EVENTS_KEPT: u64 = 10_000;

/// How many ids `NAME:acked` keeps: the newest.
pub const ACKED_KEPT: u64 = 10_000;

/// The part of `name` that Redis Cluster hashes for every key starting with it: the text
/// between the first `{` and the next `}`, when that is not empty.
pub fn hash_tag(name: &str) -> Option<&str> {
    let open = name.find('{')?;
    let len = name[open + 1..].find('}')?;
    (len > 0).then(|| &name[open + 1..open + 1 + len])
}

/// `s` with the characters a SCAN MATCH pattern gives a meaning (`*?[]\`) escaped.
pub fn glob_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(c, '*' | '?' | '[' | ']' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The prefix of every consumer's in-flight set key.
const INFLIGHT: &str = ":inflight:";
/// The prefix of the keys that describe a qctl consumer.
const CONSUMER: &str = ":consumer:";

impl QueueKeys {
    pub fn new(name: &str) -> Self {
        QueueKeys {
            name: name.to_string(),
            active: format!("{name}:active"),
            data: format!("{name}:data"),
            scheduled: format!("{name}:scheduled"),
            dead: format!("{name}:dead"),
            consumers: format!("{name}:consumers"),
            signal: format!("{name}:signal"),
            failures: format!("{name}:failures"),
            paused: format!("{name}:paused"),
            stats: format!("{name}:stats"),
            events: format!("{name}:events"),
            move_out: format!("{name}:move-out"),
            move_in: format!("{name}:move-in"),
            limits: format!("{name}:limits"),
            bucket: format!("{name}:bucket"),
            acked: format!("{name}:acked"),
            push: format!("{name}:push"),
            changes: format!("{name}:changes"),
        }
    }

    /// The keys of `name` for a Redis Cluster, where every key of a queue must hash to one
    /// slot (the scripts touch several at once): the name needs a hash tag, as in `{mail}`.
    pub fn for_cluster(name: &str) -> Result<Self, super::Error> {
        if hash_tag(name).is_none() {
            let plain: String = name.chars().filter(|c| *c != '{' && *c != '}').collect();
            return Err(super::Error::Usage(format!(
                "queue {name:?} has no hash tag, so in Redis Cluster its keys would land on \
                 different nodes; name it with one, as in {{{plain}}} (Go CurlyQ services \
                 must use the same name)"
            )));
        }
        Ok(Self::new(name))
    }

    /// The in-flight set key of the consumer with this UUID.
    pub fn inflight(&self, uuid: &str) -> String {
        format!("{}{INFLIGHT}{uuid}", self.name)
    }

    /// The hash (qctl's own) that describes the consumer with this UUID: where it runs,
    /// what it runs and its counters. It expires a day after the consumer's lease (so that an
    /// expired consumer can still be named), and orphan recovery deletes it.
    pub fn consumer_info(&self, uuid: &str) -> String {
        format!("{}{CONSUMER}{uuid}", self.name)
    }

    /// The hash (qctl's own) of the jobs the consumer with this UUID runs: id -> start
    /// (unix seconds). It expires with the consumer's lease.
    pub fn consumer_running(&self, uuid: &str) -> String {
        format!("{}{CONSUMER}{uuid}:running", self.name)
    }

    /// The list (qctl's own) of orders to the consumer with this UUID (cancel a job, quiet,
    /// stop, resize: see [`super::orders`]); it expires with the last order's deadline.
    pub fn consumer_orders(&self, uuid: &str) -> String {
        format!("{}{CONSUMER}{uuid}:orders", self.name)
    }

    /// The list (qctl's own) where the consumer with this UUID answers the order `order`
    /// (a UUID); it expires a minute after the last answer.
    pub fn consumer_answers(&self, uuid: &str, order: &str) -> String {
        format!("{}{CONSUMER}{uuid}:answers:{order}", self.name)
    }

    /// The hash (qctl's own) of what qctl consumers did in the minute starting at `minute`
    /// (unix seconds): see [`super::history`].
    pub fn history(&self, minute: i64) -> String {
        format!("{}:history:{minute}", self.name)
    }

    /// The in-flight sets of this queue found by SCAN on the node owning it (`count` keys a
    /// call), sorted: the keys `NAME:inflight:<uuid>`. The pattern `NAME:inflight:*` also
    /// matches keys of other queues (those of a queue named `NAME:inflight:abc`), which are
    /// left out.
    pub async fn inflight_sets(
        &self,
        redis: &mut super::conn::Redis,
        count: u64,
    ) -> Result<Vec<String>, super::Error> {
        self.scan(redis, "inflight:*", count, |k| self.is_inflight_key(k))
            .await
    }

    /// This queue's keys that are not fixed, found by SCAN on the node owning it, sorted:
    /// in-flight sets (also of consumers no longer registered), the descriptions of qctl
    /// consumers and the minutes of the queue's history. Keys of other queues whose names
    /// start with `NAME:` (a queue named `NAME:x`) are left out.
    pub async fn scan_variable(
        &self,
        redis: &mut super::conn::Redis,
        count: u64,
    ) -> Result<Vec<String>, super::Error> {
        self.scan(redis, "*", count, |k| {
            self.is_inflight_key(k) || self.is_consumer_key(k) || self.is_history_key(k)
        })
        .await
    }

    /// The keys named `NAME:` then what the MATCH pattern `rest` matches that `keep` says
    /// are this queue's, on the node owning the queue, found by SCAN (`count` keys a call),
    /// sorted. A pattern matches keys of other queues too (`NAME:inflight:*` those of the
    /// queue `NAME:inflight:abc`): `keep` must check the whole shape of the key.
    async fn scan(
        &self,
        redis: &mut super::conn::Redis,
        rest: &str,
        count: u64,
        keep: impl Fn(&str) -> bool,
    ) -> Result<Vec<String>, super::Error> {
        let pattern = format!("{}:{rest}", glob_escape(&self.name));
        let owner = super::conn::Node::Owning(self.active.clone());
        let mut found = Vec::new();
        let mut cursor = 0u64;
        loop {
            // Read as bytes: a key of another queue may have a name that is not UTF-8.
            let (next, page): (u64, Vec<Vec<u8>>) = redis
                .query_at(
                    &owner,
                    redis::cmd("SCAN")
                        .arg(cursor)
                        .arg("MATCH")
                        .arg(&pattern)
                        .arg("COUNT")
                        .arg(count),
                    format!("SCAN MATCH {pattern}"),
                )
                .await?;
            found.extend(
                page.into_iter()
                    .filter_map(|k| String::from_utf8(k).ok())
                    .filter(|k| keep(k)),
            );
            cursor = next;
            if cursor == 0 {
                break;
            }
        }
        found.sort();
        found.dedup();
        Ok(found)
    }

    /// The UUID of a well-formed in-flight key of this queue.
    pub fn consumer_uuid<'a>(&self, inflight_key: &'a str) -> Option<&'a str> {
        inflight_key
            .strip_prefix(self.name.as_str())
            .and_then(|rest| rest.strip_prefix(INFLIGHT))
            .filter(|uuid| is_canonical_uuid(uuid))
    }

    /// Whether `key` is the description of a qctl consumer of this queue, its list of
    /// running jobs, its orders or its answers to one.
    pub fn is_consumer_key(&self, key: &str) -> bool {
        let Some(rest) = key
            .strip_prefix(self.name.as_str())
            .and_then(|rest| rest.strip_prefix(CONSUMER))
        else {
            return false;
        };
        let uuid = match rest.split_once(":answers:") {
            Some((uuid, order)) if is_canonical_uuid(order) => uuid,
            Some(_) => return false,
            None => rest
                .strip_suffix(":running")
                .or_else(|| rest.strip_suffix(":orders"))
                .unwrap_or(rest),
        };
        is_canonical_uuid(uuid)
    }

    /// Whether `key` is a minute of this queue's history: `NAME:history:<unix seconds>`.
    pub fn is_history_key(&self, key: &str) -> bool {
        key.strip_prefix(self.name.as_str())
            .and_then(|rest| rest.strip_prefix(":history:"))
            .is_some_and(|t| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()))
    }

    /// Whether `key` is a well-formed in-flight key of this queue: `NAME:inflight:<uuid>`,
    /// the uuid in its canonical hyphenated form.
    pub fn is_inflight_key(&self, key: &str) -> bool {
        key.strip_prefix(&self.name)
            .and_then(|rest| rest.strip_prefix(INFLIGHT))
            .is_some_and(is_canonical_uuid)
    }

    /// Every fixed key, for commands that read or remove the whole queue.
    pub fn fixed(&self) -> [&str; 16] {
        [
            &self.active,
            &self.data,
            &self.scheduled,
            &self.dead,
            &self.consumers,
            &self.signal,
            &self.failures,
            &self.paused,
            &self.stats,
            &self.events,
            &self.move_out,
            &self.move_in,
            &self.limits,
            &self.bucket,
            &self.acked,
            &self.push,
        ]
    }
}

/// Checks in one round trip that every key of the queue is missing or of its type, so that
/// a consumer refuses to start (naming the key) rather than fail on its first job.
pub async fn check_types(
    redis: &mut super::conn::Redis,
    keys: &QueueKeys,
) -> Result<(), super::error::Error> {
    let expected = [
        (&keys.active, "list"),
        (&keys.data, "hash"),
        (&keys.scheduled, "zset"),
        (&keys.dead, "zset"),
        (&keys.consumers, "zset"),
        (&keys.failures, "hash"),
        (&keys.stats, "hash"),
        (&keys.events, "stream"),
        (&keys.move_out, "hash"),
        (&keys.move_in, "hash"),
        (&keys.limits, "hash"),
        (&keys.bucket, "hash"),
        (&keys.acked, "list"),
    ];
    let mut pipe = redis::pipe();
    for (key, _) in &expected {
        pipe.cmd("TYPE").arg(key.as_str());
    }
    let types: Vec<String> = redis
        .pipeline(
            &pipe,
            format!("TYPE {}", expected.map(|(k, _)| k.as_str()).join(", ")),
        )
        .await?;
    for ((key, want), got) in expected.iter().zip(types) {
        if got != "none" && got != *want {
            return Err(super::error::Error::Redis {
                server: redis.server().to_string(),
                op: format!("TYPE {key}"),
                reason: format!("WRONGTYPE {key} holds a {got}, expected a {want}"),
                code: Some("WRONGTYPE".into()),
            });
        }
    }
    Ok(())
}

fn is_canonical_uuid(s: &str) -> bool {
    s.len() == 36
        && s.bytes().enumerate().all(|(i, b)| match i {
            8 | 13 | 18 | 23 => b == b'-',
            _ => b.is_ascii_hexdigit(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cluster_names_need_a_hash_tag() {
        assert_eq!(hash_tag("{mail}"), Some("mail"));
        assert_eq!(hash_tag("app:{mail}:v2"), Some("mail"));
        assert_eq!(hash_tag("mail"), None);
        assert_eq!(hash_tag("{}mail{x}"), None);
        assert_eq!(hash_tag("{mail"), None);
        assert!(QueueKeys::for_cluster("{mail}").is_ok());
        let err = QueueKeys::for_cluster("mail").unwrap_err().to_string();
        assert!(err.contains("{mail}"), "{err}");
    }

    #[test]
    fn keys_follow_the_curlyq_names() {
        let k = QueueKeys::new("{mail}");
        assert_eq!(k.active, "{mail}:active");
        assert_eq!(k.data, "{mail}:data");
        assert_eq!(k.scheduled, "{mail}:scheduled");
        assert_eq!(k.dead, "{mail}:dead");
        assert_eq!(k.consumers, "{mail}:consumers");
        assert_eq!(k.signal, "{mail}:signal");
        assert_eq!(
            k.inflight("0b7d3e2a-1c4f-4d5e-9f00-aabbccddeeff"),
            "{mail}:inflight:0b7d3e2a-1c4f-4d5e-9f00-aabbccddeeff"
        );
    }

    #[test]
    fn only_well_formed_inflight_keys_of_this_queue_are_accepted() {
        let k = QueueKeys::new("q");
        assert!(k.is_inflight_key("q:inflight:0b7d3e2a-1c4f-4d5e-9f00-aabbccddeeff"));
        assert!(!k.is_inflight_key("other:inflight:0b7d3e2a-1c4f-4d5e-9f00-aabbccddeeff"));
        assert!(!k.is_inflight_key("q:inflight:not-a-uuid"));
        assert!(!k.is_inflight_key("q:data"));
        assert!(!k.is_inflight_key("q:inflight:0b7d3e2a-1c4f-4d5e-9f00-aabbccddeeff:x"));
    }

    #[test]
    fn own_keys_never_look_like_inflight_keys() {
        let k = QueueKeys::new("q");
        for key in k.fixed() {
            assert!(key.starts_with("q:"));
            assert!(!key.starts_with("q:inflight:"));
        }
    }
}
