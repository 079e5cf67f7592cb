//! The record of the changes made to a queue (`NAME:changes`, a stream): what each change
//! did and to how many jobs, with a sample of their ids, from where and by which command
//! line, for `qctl changes` and `qctl tail`. [`record`] is the one place that writes it.

use std::collections::HashMap;
use std::time::Duration;

use super::conn::Redis;
use super::error::Error;
use super::keys::QueueKeys;

/// About how many entries `NAME:changes` keeps (trimmed with `MAXLEN ~` at each write).
pub const KEPT: u64 = 10_000;

/// How long an entry is kept: older ones go at the next write (`XTRIM MINID ~`).
pub const KEPT_FOR: Duration = Duration::from_secs(90 * 24 * 3600);

/// How many ids of the jobs a change touched its entry keeps: the first ones.
pub const IDS_KEPT: usize = 1_000;

/// How many distinct reasons for skipping jobs an entry keeps, each with its count.
pub const REASONS_KEPT: usize = 20;

/// How many ids `qctl changes` and `tail` show of an entry.
pub const SAMPLE: usize = 5;

/// A change to a queue, as its command tells it once it has made it.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct Change {
    /// The command that made it: `dead requeue`, `scheduled run-now`, `pause`, `move out`...
    pub action: String,
    /// Jobs changed (for `purge`, the job records deleted; for `pause`, `resume` and `limit`,
    /// 0).
    pub done: u64,
    /// Ids asked for that were not there.
    pub not_found: u64,
    /// Jobs left alone, and why.
    pub skipped: u64,
    pub reasons: Vec<Reason>,
    /// The ids of the jobs changed: the first [`IDS_KEPT`].
    pub ids: Vec<String>,
    /// How many ids the change touched, kept or not.
    pub ids_total: u64,
    /// What else says what it did: `rate 100/s, burst 5`, `to "b" at host:6379`...
    pub detail: String,
    /// What stopped it before it was done (`interrupt`, `terminate`...): what it did is
    /// what the counts say.
    pub interrupted: Option<String>,
    /// The error that ended it before it was done.
    pub error: Option<String>,
    /// Jobs of the last step whose fate is not known: it was sent, and its reply was lost
    /// (or a second signal did not wait for it).
    pub unconfirmed: u64,
    /// A change to the queue rather than to its jobs (`pause`, `resume`, `limit`, and
    /// `purge` when it deleted keys): recorded though it counts no job.
    pub of_queue: bool,
}

/// Why some jobs were skipped, and how many.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Reason {
    pub reason: String,
    pub count: u64,
}

impl Change {
    pub fn new(action: &str) -> Change {
        Change {
            action: action.to_string(),
            ..Change::default()
        }
    }

    /// Whether it is worth an entry: it changed jobs, or may have, or changed the queue
    /// itself. One that changed nothing (every id gone or skipped, or a stop or an error
    /// before its first change) is not recorded.
    pub fn is_recorded(&self) -> bool {
        self.done > 0 || self.unconfirmed > 0 || self.of_queue
    }

    /// Notes a job changed: counted, and its id kept while there is room.
    pub fn did(&mut self, id: &str) {
        self.done += 1;
        self.touched(id);
    }

    /// Notes an id the change touched without counting it as done (a move's counts come
    /// by state).
    pub fn touched(&mut self, id: &str) {
        self.ids_total += 1;
        if self.ids.len() < IDS_KEPT {
            self.ids.push(id.to_string());
        }
    }

    /// Notes a job skipped, and why.
    pub fn skip(&mut self, why: &str) {
        self.skipped += 1;
        if let Some(r) = self.reasons.iter_mut().find(|r| r.reason == why) {
            r.count += 1;
        } else if self.reasons.len() < REASONS_KEPT {
            self.reasons.push(Reason {
                reason: why.to_string(),
                count: 1,
            });
        }
    }
}

/// Where a change came from: `cli` (the OS user and host running qctl), or `web` (the
/// user who signed in and the client's address).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct Origin {
    pub source: String,
    pub user: String,
    pub host: String,
    /// The client's address, for a change made through the web.
    pub address: Option<String>,
    /// The command line, every URL's password left out (`argv[0]` is `qctl`).
    pub argv: Vec<String>,
}

impl Origin {
    /// This process: its OS user, this host, its command line without passwords.
    pub fn cli() -> Origin {
        let mut argv: Vec<String> = std::env::args_os()
            .map(|a| super::text::without_password(&a.to_string_lossy()))
            .collect();
        if let Some(first) = argv.first_mut() {
            *first = "qctl".into();
        }
        Origin {
            source: "cli".into(),
            user: os_user(),
            host: super::consumers::host(),
            address: None,
            argv,
        }
    }

    /// A change asked for through `qctl web`: the user who signed in, the client's address
    /// and what it asked (`POST /queues/mail/dead/requeue`), on this host.
    pub fn web(user: &str, address: &str, request: &str) -> Origin {
        Origin {
            source: "web".into(),
            user: user.to_string(),
            host: super::consumers::host(),
            address: Some(address.to_string()),
            argv: vec![super::text::without_password(request)],
        }
    }
}

/// The name of the OS user running qctl: from the password database, else `$USER`, else
/// the uid.
pub fn os_user() -> String {
    // SAFETY: getuid cannot fail.
    let uid = unsafe { libc::getuid() };
    let mut pwd: libc::passwd = unsafe { std::mem::zeroed() };
    let mut buf = vec![0u8; 4096];
    let mut found: *mut libc::passwd = std::ptr::null_mut();
    // SAFETY: the buffers outlive the call, and getpwuid_r writes within buf.len().
    let rc = unsafe {
        libc::getpwuid_r(
            uid,
            &mut pwd,
            buf.as_mut_ptr().cast(),
            buf.len(),
            &mut found,
        )
    };
    if rc == 0 && !found.is_null() && !pwd.pw_name.is_null() {
        // SAFETY: pw_name points into buf, NUL-terminated.
        let name = unsafe { std::ffi::CStr::from_ptr(pwd.pw_name) };
        let name = name.to_string_lossy();
        if !name.is_empty() {
            return name.into_owned();
        }
    }
    std::env::var("USER")
        .ok()
        .filter(|u| !u.is_empty())
        .unwrap_or_else(|| format!("uid {uid}"))
}

/// Checks, before a change's first write, that the user may write the record (XADD and XTRIM
/// on `NAME:changes`; `lua/rights.lua`, which changes nothing): a user who may not is refused
/// the change (exit 4, naming the command and the key) rather than make one the record would
/// not hold.
pub async fn check_rights(redis: &mut Redis, keys: &QueueKeys) -> Result<(), Error> {
    let mut rights =
        super::scripts::Rights::new(format!("recording the change in {}", keys.changes));
    rights
        .command("XADD", Some(&keys.changes))
        .command("XTRIM", Some(&keys.changes));
    rights.check(redis).await
}

/// Appends `change` made from `origin` to the queue's record, and trims the record to about
/// [`KEPT`] entries and [`KEPT_FOR`]; returns the entry's id. Its time is the server's
/// clock. It holds no job data and no password.
pub async fn record(
    redis: &mut Redis,
    keys: &QueueKeys,
    change: &Change,
    origin: &Origin,
) -> Result<String, Error> {
    let mut fields: Vec<(&str, String)> = vec![
        ("action", change.action.clone()),
        ("done", change.done.to_string()),
        ("not_found", change.not_found.to_string()),
        ("skipped", change.skipped.to_string()),
    ];
    if !change.reasons.is_empty() {
        fields.push(("reasons", json(&change.reasons)));
    }
    if change.ids_total > 0 {
        fields.push(("ids", json(&change.ids)));
        fields.push(("ids_total", change.ids_total.to_string()));
    }
    if !change.detail.is_empty() {
        fields.push(("detail", change.detail.clone()));
    }
    if let Some(cause) = &change.interrupted {
        fields.push(("interrupted", cause.clone()));
    }
    if let Some(error) = &change.error {
        fields.push(("error", super::error::redact(error)));
    }
    if change.unconfirmed > 0 {
        fields.push(("unconfirmed", change.unconfirmed.to_string()));
    }
    fields.push(("source", origin.source.clone()));
    fields.push(("user", origin.user.clone()));
    fields.push(("host", origin.host.clone()));
    if let Some(address) = &origin.address {
        fields.push(("address", address.clone()));
    }
    fields.push(("argv", json(&origin.argv)));
    let mut add = redis::cmd("XADD");
    add.arg(&keys.changes)
        .arg("MAXLEN")
        .arg("~")
        .arg(KEPT)
        .arg("*");
    for (field, value) in &fields {
        add.arg(*field).arg(value);
    }
    let id: String = redis.query(&add, format!("XADD {}", keys.changes)).await?;
    let ms = entry_ms(&id).unwrap_or(0);
    let oldest = ms.saturating_sub(KEPT_FOR.as_millis() as u64);
    let _: u64 = redis
        .query(
            redis::cmd("XTRIM")
                .arg(&keys.changes)
                .arg("MINID")
                .arg("~")
                .arg(oldest),
            format!("XTRIM {}", keys.changes),
        )
        .await?;
    Ok(id)
}

/// A value as JSON text, for a field of an entry.
fn json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// An entry of the record, as read back.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct Entry {
    /// Its id in the stream: what `qctl changes --ids` takes.
    pub entry: String,
    /// When (unix seconds, the server's clock).
    pub time: f64,
    pub action: String,
    pub done: u64,
    pub not_found: u64,
    pub skipped: u64,
    pub reasons: Vec<Reason>,
    /// How many ids the change touched, and how many of them the entry keeps.
    pub ids_total: u64,
    pub ids_kept: u64,
    /// The first ids.
    pub sample: Vec<String>,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub detail: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interrupted: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Jobs of its last step whose fate is not known.
    #[serde(skip_serializing_if = "is_zero")]
    pub unconfirmed: u64,
    pub source: String,
    pub user: String,
    pub host: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub address: Option<String>,
    pub argv: Vec<String>,
    /// Every id kept.
    #[serde(skip)]
    pub ids: Vec<String>,
}

impl Entry {
    /// The entry `id` of the stream with its fields.
    pub fn from_fields(id: &str, fields: &HashMap<String, String>) -> Entry {
        let text = |f: &str| fields.get(f).cloned().unwrap_or_default();
        let count = |f: &str| fields.get(f).and_then(|v| v.parse().ok()).unwrap_or(0);
        let ids: Vec<String> = fields
            .get("ids")
            .and_then(|v| serde_json::from_str(v).ok())
            .unwrap_or_default();
        Entry {
            entry: id.to_string(),
            time: entry_ms(id).map_or(0.0, |ms| ms as f64 / 1000.0),
            action: text("action"),
            done: count("done"),
            not_found: count("not_found"),
            skipped: count("skipped"),
            reasons: fields
                .get("reasons")
                .and_then(|v| serde_json::from_str(v).ok())
                .unwrap_or_default(),
            ids_total: count("ids_total").max(ids.len() as u64),
            ids_kept: ids.len() as u64,
            sample: ids.iter().take(SAMPLE).cloned().collect(),
            detail: text("detail"),
            interrupted: fields.get("interrupted").cloned(),
            error: fields.get("error").cloned(),
            unconfirmed: count("unconfirmed"),
            source: text("source"),
            user: text("user"),
            host: text("host"),
            address: fields.get("address").cloned(),
            argv: fields
                .get("argv")
                .and_then(|v| serde_json::from_str(v).ok())
                .unwrap_or_default(),
            ids,
        }
    }

    /// `user@host` for a change from the command line, `user@address (web)` for one from
    /// the web.
    pub fn by(&self) -> String {
        match (&self.address, self.source.as_str()) {
            (Some(a), "web") => format!("{}@{a} (web)", self.user),
            _ => format!("{}@{}", self.user, self.host),
        }
    }

    /// What it did to jobs, in words: `1,000 done, 2 not found, 3 skipped`, and
    /// `stopped (interrupt)` when a stop ended it; empty for a change that touches no job
    /// (pause, resume, limit).
    pub fn counts(&self) -> String {
        let mut parts = Vec::new();
        if self.done > 0 || self.not_found + self.skipped == 0 && self.ids_total > 0 {
            parts.push(format!("{} done", super::text::thousands(self.done)));
        } else if self.not_found + self.skipped > 0 {
            parts.push("0 done".into());
        }
        if self.not_found > 0 {
            parts.push(format!(
                "{} not found",
                super::text::thousands(self.not_found)
            ));
        }
        if self.skipped > 0 {
            parts.push(format!("{} skipped", super::text::thousands(self.skipped)));
        }
        if self.unconfirmed > 0 {
            parts.push(format!(
                "{} not known",
                super::text::thousands(self.unconfirmed)
            ));
        }
        if let Some(cause) = &self.interrupted {
            parts.push(format!("stopped ({cause})"));
        }
        if self.error.is_some() {
            parts.push("failed".into());
        }
        parts.join(", ")
    }
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// The milliseconds part of a stream id (`1700000000123-0`).
pub fn entry_ms(id: &str) -> Option<u64> {
    id.split('-').next()?.parse().ok()
}

/// Whether `id` is shaped like a stream id: `MS-SEQ` or `MS`.
pub fn is_entry_id(id: &str) -> bool {
    let mut parts = id.splitn(2, '-');
    let ms = parts.next().unwrap_or("");
    let seq = parts.next();
    let digits = |s: &str| !s.is_empty() && s.len() <= 20 && s.bytes().all(|b| b.is_ascii_digit());
    digits(ms) && seq.is_none_or(digits)
}

/// The entries made from `since` to `until` (unix seconds, the server's clock; None: no
/// bound), newest first, at most `limit` (0: every one).
pub async fn list(
    redis: &mut Redis,
    keys: &QueueKeys,
    since: Option<f64>,
    until: Option<f64>,
    limit: usize,
) -> Result<Vec<Entry>, Error> {
    let end = until.map_or("+".to_string(), |t| {
        ((t.max(0.0) * 1000.0).floor() as u64).to_string()
    });
    let start = since.map_or("-".to_string(), |t| {
        ((t.max(0.0) * 1000.0).ceil() as u64).to_string()
    });
    let mut cmd = redis::cmd("XREVRANGE");
    cmd.arg(&keys.changes).arg(&end).arg(&start);
    if limit > 0 {
        cmd.arg("COUNT").arg(limit);
    }
    let read: Vec<(String, HashMap<String, String>)> = redis
        .query(&cmd, format!("XREVRANGE {}", keys.changes))
        .await?;
    Ok(read
        .iter()
        .map(|(id, fields)| Entry::from_fields(id, fields))
        .collect())
}

/// The error for an ENTRY that is no stream id.
pub fn get_usage(keys: &QueueKeys, id: &str) -> Error {
    Error::Usage(format!(
        "{id:?} is not an entry of {}: give the ENTRY column of `qctl changes` (as in \
         1700000000123-0)",
        super::text::printable(&keys.changes)
    ))
}

/// The entry `id`, when the record still holds it.
pub async fn get(redis: &mut Redis, keys: &QueueKeys, id: &str) -> Result<Option<Entry>, Error> {
    if !is_entry_id(id) {
        return Err(get_usage(keys, id));
    }
    let read: Vec<(String, HashMap<String, String>)> = redis
        .query(
            redis::cmd("XRANGE").arg(&keys.changes).arg(id).arg(id),
            format!("XRANGE {}", keys.changes),
        )
        .await?;
    Ok(read
        .first()
        .map(|(id, fields)| Entry::from_fields(id, fields)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_keeps_the_first_ids_and_counts_the_reasons() {
        let mut c = Change::new("dead requeue");
        for i in 0..IDS_KEPT + 5 {
            c.did(&format!("j{i}"));
        }
        c.skip("a");
        c.skip("a");
        c.skip("b");
        assert_eq!(c.done, IDS_KEPT as u64 + 5);
        assert_eq!(c.ids.len(), IDS_KEPT);
        assert_eq!(c.ids_total, IDS_KEPT as u64 + 5);
        assert_eq!(c.reasons[0].count, 2);
        assert_eq!(c.skipped, 3);
    }

    #[test]
    fn entry_ids_are_checked() {
        assert!(is_entry_id("1700000000123-0"));
        assert!(is_entry_id("1700000000123"));
        assert!(!is_entry_id("abc"));
        assert!(!is_entry_id("1-"));
        assert!(!is_entry_id(""));
    }
}
