//! Failures grouped by cause: each job's recorded failure (reason and first stderr line) is
//! reduced to a pattern with the varying parts (numbers, ids, addresses, paths, quoted text)
//! replaced by placeholders, and jobs whose patterns are equal form one group, named by a
//! short stable fingerprint of the pattern. The walk reads scores and failures only, in
//! bounded chunks, and holds nothing but the groups.

use std::collections::HashMap;

use super::conn::Redis;
use super::error::Error;
use super::failure::{Failure, STDERR_TAIL};
use super::jobs::describe_time;
use super::keys::QueueKeys;
use super::listing::{lengths, split, CALL_BYTES, CHUNK};

/// The fingerprint of the jobs without a failure record.
pub const NONE: &str = "none";
/// The pattern of the dead jobs without a failure record.
pub const NONE_PATTERN: &str = "no failure recorded (moved by Go CurlyQ or another tool)";
/// The pattern of the scheduled jobs without a failure record.
pub const NONE_SCHEDULED: &str = "no failure recorded (delayed jobs; Go CurlyQ retries)";
/// The most distinct groups a walk counts; jobs of further groups are counted apart.
pub const MAX_GROUPS: usize = 10_000;
/// The most characters of a pattern or an example kept per group (the fingerprint is of
/// the whole pattern).
pub const PATTERN_CHARS: usize = 240;

/// The words after which a number is kept as it is: exit codes, signals, status codes.
const KEEP_AFTER: [&str; 5] = ["exit", "exited", "signal", "status", "code"];
/// Units that may follow a number directly (`35ms`, `12MB`); the number is replaced, the
/// unit kept.
const UNITS: [&str; 16] = [
    "ns", "us", "ms", "s", "m", "h", "d", "b", "k", "kb", "mb", "gb", "tb", "kib", "mib", "gib",
];

/// The pattern of a failure: its reason and the first non-empty line of its stderr
/// (`exit 3: <n> from gateway <n>`), each [`normalise`]d. When the stderr kept is a cut tail
/// ([`STDERR_TAIL`] bytes or more), its first line may be a fragment and the first whole
/// line after it counts instead.
pub fn pattern(f: &Failure) -> String {
    let reason = normalise(&f.reason);
    match first_line(&f.stderr) {
        Some(line) => format!("{reason}: {}", normalise(line)),
        None => reason,
    }
}

/// The first non-empty line of a recorded stderr (see [`pattern`]).
pub fn first_line(stderr: &str) -> Option<&str> {
    let mut lines = stderr.lines().peekable();
    if stderr.len() >= STDERR_TAIL {
        let cut = lines.next();
        if lines.peek().is_none() {
            return cut.filter(|l| !l.trim().is_empty());
        }
    }
    lines.find(|l| !l.trim().is_empty())
}

/// The fingerprint of a failure's group: the first 12 hex digits of the 64-bit FNV-1a hash
/// of its [`pattern`], or [`NONE`] without a failure record. The same pattern has the same
/// fingerprint on every machine and in every version.
pub fn fingerprint(failure: Option<&Failure>) -> String {
    match failure {
        Some(f) => hex(fnv1a(pattern(f).as_bytes())),
        None => NONE.to_string(),
    }
}

/// The 64-bit FNV-1a hash of `bytes`.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The first 12 hex digits of a hash.
fn hex(h: u64) -> String {
    format!("{:012x}", h >> 16)
}

/// A message with its varying parts replaced, on one line:
///
/// - UUIDs `<uuid>`; `0x...` and words of 8 or more hex digits with a digit `<hex>`;
///   IPv4 addresses `<ip>`;
/// - text in `"double"`, `'single'` or `` `back` `` quotes `<str>`;
/// - absolute and relative paths (`/tmp/x/y.txt`, `./a`, `../a`, `~/a`) `<path>`;
/// - numbers `<n>`, as whole tokens (`job-17`, `17.5`, `35ms` with a unit kept);
/// - ids `<id>`: a token with a word that mixes letters and digits (`g22357`, `bob192`,
///   `A7871-X`, `user_42`), save names such as `sha256`, `utf8`, `x86_64` and `v2`;
/// - except that a number or id right after `exit`, `exited`, `signal`, `status` or `code`
///   (`exit 3`, `status=502`) is kept, so that different exit codes, signals and status
///   codes stay different groups;
/// - runs of whitespace and control characters one space.
pub fn normalise(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len().min(PATTERN_CHARS * 4));
    let mut i = 0;
    let mut space = false;
    let mut plain_until = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() || c.is_ascii_control() {
            space = true;
            i += 1;
            continue;
        }
        if space && !out.is_empty() {
            out.push(' ');
        }
        space = false;
        let boundary = i == 0 || !is_word(b[i - 1]);
        if boundary {
            let token = quoted(b, i)
                .map(|n| (n, "<str>"))
                .or_else(|| uuid(b, i).map(|n| (n, "<uuid>")))
                .or_else(|| ipv4(b, i).map(|n| (n, "<ip>")))
                .or_else(|| hex_word(b, i).map(|n| (n, "<hex>")))
                .or_else(|| path(b, i).map(|n| (n, "<path>")));
            if let Some((n, placeholder)) = token {
                out.push_str(placeholder);
                i += n;
                continue;
            }
            if let Some((digits, unit)) = number(b, i) {
                if keeps_number(&text[..i]) {
                    out.push_str(&text[i..i + digits + unit]);
                } else {
                    out.push_str("<n>");
                    out.push_str(&text[i + digits..i + digits + unit]);
                }
                i += digits + unit;
                continue;
            }
            if i >= plain_until {
                match id_token(b, i) {
                    (n, true) => {
                        if keeps_number(&text[..i]) {
                            out.push_str(&text[i..i + n]);
                        } else {
                            out.push_str("<id>");
                        }
                        i += n;
                        continue;
                    }
                    // Its words are looked at one by one (`job-17`), not as an id again.
                    (n, false) => plain_until = i + n,
                }
            }
        }
        // One whole character (all tokens above end on ASCII bytes).
        let ch = text[i..]
            .chars()
            .next()
            .expect("i is on a character boundary");
        out.push(ch);
        i += ch.len_utf8();
    }
    out
}

/// A letter, digit or `_` (any byte of a non-ASCII character counts as a letter).
fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80
}

/// Whether the token ending at `at` ends at a word's end (not followed by a word character).
fn ends_word(b: &[u8], at: usize) -> bool {
    at >= b.len() || !is_word(b[at])
}

/// The length of a quoted text starting at `i`, quotes included; the closing quote is the
/// first one not followed by a word character (so `can't` does not close `'x`).
fn quoted(b: &[u8], i: usize) -> Option<usize> {
    let q = b[i];
    if !matches!(q, b'"' | b'\'' | b'`') {
        return None;
    }
    (i + 1..b.len())
        .find(|&j| b[j] == q && ends_word(b, j + 1))
        .map(|j| j + 1 - i)
}

/// The length of a UUID (8-4-4-4-12 hex digits) starting at `i`.
fn uuid(b: &[u8], i: usize) -> Option<usize> {
    let mut at = i;
    for (n, group) in [8, 4, 4, 4, 12].into_iter().enumerate() {
        if n > 0 {
            (b.get(at) == Some(&b'-')).then_some(())?;
            at += 1;
        }
        let digits = b.get(at..at + group)?;
        digits.iter().all(u8::is_ascii_hexdigit).then_some(())?;
        at += group;
    }
    ends_word(b, at).then_some(at - i)
}

/// The length of an IPv4 address starting at `i`.
fn ipv4(b: &[u8], i: usize) -> Option<usize> {
    let mut at = i;
    for part in 0..4 {
        if part > 0 {
            (b.get(at) == Some(&b'.')).then_some(())?;
            at += 1;
        }
        let n = b[at.min(b.len())..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
        (1..=3).contains(&n).then_some(())?;
        at += n;
    }
    let more = b.get(at) == Some(&b'.') && b.get(at + 1).is_some_and(u8::is_ascii_digit);
    (ends_word(b, at) && !more).then_some(at - i)
}

/// The length of `0x` and hex digits, or of a word of 8 or more hex digits holding a digit
/// and a letter, starting at `i`.
fn hex_word(b: &[u8], i: usize) -> Option<usize> {
    if b[i] == b'0' && matches!(b.get(i + 1), Some(b'x' | b'X')) {
        let n = b[i + 2..]
            .iter()
            .take_while(|c| c.is_ascii_hexdigit())
            .count();
        return (n > 0 && ends_word(b, i + 2 + n)).then_some(n + 2);
    }
    let n = b[i..].iter().take_while(|c| c.is_ascii_hexdigit()).count();
    let word = &b[i..i + n];
    (n >= 8
        && ends_word(b, i + n)
        && word.iter().any(u8::is_ascii_digit)
        && word.iter().any(u8::is_ascii_alphabetic))
    .then_some(n)
}

/// The length of a path starting at `i`: `/`, `./`, `../` or `~/` and at least one more
/// path character, up to the first character that is not one (a trailing `.` ends a
/// sentence, not the path). A `/` right after `:` or `.` or another `/` starts none (`://`
/// in a URL).
fn path(b: &[u8], i: usize) -> Option<usize> {
    let prefix = [&b"/"[..], b"./", b"../", b"~/"]
        .into_iter()
        .find(|p| b[i..].starts_with(p))?;
    if i > 0 && matches!(b[i - 1], b':' | b'.' | b'/') {
        return None;
    }
    let body = b[i + prefix.len()..]
        .iter()
        .take_while(|&&c| c.is_ascii_alphanumeric() || b"._-/+@%~#".contains(&c))
        .count();
    let mut n = prefix.len() + body;
    while n > prefix.len() && b[i + n - 1] == b'.' {
        n -= 1;
    }
    (n > prefix.len()).then_some(n)
}

/// A number starting at `i` as a whole token: digits, with `.digits` parts, then the end of
/// the word or one of [`UNITS`]. Returns the length of the number and of its unit.
fn number(b: &[u8], i: usize) -> Option<(usize, usize)> {
    let digits = |from: usize| b[from..].iter().take_while(|c| c.is_ascii_digit()).count();
    let mut n = digits(i);
    if n == 0 {
        return None;
    }
    while b.get(i + n) == Some(&b'.') && b.get(i + n + 1).is_some_and(u8::is_ascii_digit) {
        n += 1 + digits(i + n + 1);
    }
    if ends_word(b, i + n) {
        return Some((n, 0));
    }
    let letters = b[i + n..]
        .iter()
        .take_while(|c| c.is_ascii_alphabetic())
        .count();
    let unit = &b[i + n..i + n + letters];
    (ends_word(b, i + n + letters)
        && UNITS
            .iter()
            .any(|u| unit.eq_ignore_ascii_case(u.as_bytes())))
    .then_some((n, letters))
}

/// The length of the words joined by `-` starting at `i` (`A7871-X`, `req-g22357`,
/// `job-17`), and whether they are an id: whether one of them mixes letters and digits
/// (`g22357`, `bob192`, `user_42`, `3rd`) and is not one of the [`NAMES_WITH_DIGITS`] nor `v`
/// and a number (`v2`).
fn id_token(b: &[u8], i: usize) -> (usize, bool) {
    let mut at = i;
    let mut id = false;
    loop {
        let n = b[at..].iter().take_while(|&&c| is_word(c)).count();
        if n == 0 {
            break;
        }
        let word = &b[at..at + n];
        id |= word.iter().any(u8::is_ascii_digit)
            && word.iter().any(|&c| !c.is_ascii_digit())
            && !well_known(word);
        at += n;
        if b.get(at) == Some(&b'-') && b.get(at + 1).is_some_and(|&c| is_word(c)) {
            at += 1;
        } else {
            break;
        }
    }
    (at - i, id)
}

/// Names that hold a digit but name one thing, not a varying id: digests, encodings,
/// protocols, architectures, types.
const NAMES_WITH_DIGITS: [&str; 62] = [
    "md5", "sha1", "sha224", "sha256", "sha384", "sha512", "sha3", "crc32", "base32", "base64",
    "utf8", "utf16", "utf32", "latin1", "ipv4", "ipv6", "http2", "http3", "h2", "h3", "x509",
    "pkcs1", "pkcs7", "pkcs8", "pkcs12", "oauth2", "s3", "ec2", "k8s", "i18n", "l10n", "x86",
    "x64", "x86_64", "amd64", "arm64", "aarch64", "i386", "i686", "int8", "int16", "int32",
    "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64", "f32", "f64", "i8",
    "i16", "i32", "i64", "i128", "u8", "u16", "u32", "u64", "u128", "2fa",
];

/// Whether a word with a digit is one of [`NAMES_WITH_DIGITS`] or `v` and a number.
fn well_known(word: &[u8]) -> bool {
    let version = word.len() > 1
        && matches!(word[0], b'v' | b'V')
        && word[1..].iter().all(u8::is_ascii_digit);
    version
        || NAMES_WITH_DIGITS
            .iter()
            .any(|n| word.eq_ignore_ascii_case(n.as_bytes()))
}

/// Whether a number after `before` is kept: `before` ends with one of [`KEEP_AFTER`] and
/// spaces, `:`, `=` or `#`.
fn keeps_number(before: &str) -> bool {
    let word_end = before.trim_end_matches([' ', ':', '=', '#']);
    if word_end.len() == before.len() {
        return false;
    }
    let word = word_end
        .rsplit(|c: char| !c.is_ascii_alphabetic())
        .next()
        .unwrap_or_default();
    KEEP_AFTER.iter().any(|k| word.eq_ignore_ascii_case(k))
}

/// One group of failures.
#[derive(Clone, Debug, PartialEq)]
pub struct Group {
    /// 12 hex digits, or [`NONE`].
    pub fingerprint: String,
    /// The normalised pattern (at most [`PATTERN_CHARS`] characters), or for [`NONE`]
    /// [`NONE_PATTERN`] or [`NONE_SCHEDULED`].
    pub pattern: String,
    /// Jobs in the group.
    pub count: u64,
    /// The lowest score of its jobs: time of death (dead set) or due time (scheduled set),
    /// unix seconds.
    pub first: f64,
    /// The highest score of its jobs.
    pub last: f64,
    /// The lowest and highest Attempt of its jobs as the failure records tell it (the
    /// record's `attempt` is the Attempt when the failed run started; the job's is one
    /// more); None when no record tells it (no failure recorded, damaged records).
    pub attempts: Option<(i64, i64)>,
    /// The job with the highest score.
    pub sample: String,
    /// The sample's failure as recorded (reason and first stderr line, not normalised, at
    /// most [`PATTERN_CHARS`] characters); empty without a failure record.
    pub example: String,
}

/// Failures grouped, largest group first.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Groups {
    /// Jobs walked.
    pub jobs: u64,
    /// Every group counted (at most [`MAX_GROUPS`]), by count, largest first, then by
    /// fingerprint.
    pub groups: Vec<Group>,
    /// Jobs of groups beyond [`MAX_GROUPS`], counted in none.
    pub ungrouped: u64,
}

impl Group {
    /// The stable JSON form of a group: `fingerprint`, `pattern`, `count`, `first` and
    /// `last` (unix seconds) with `first_at` and `last_at` (RFC 3339), `attempts_min` and
    /// `attempts_max` (null when no failure record tells them), `sample` (an id) and
    /// `example` (its failure as recorded, or null).
    pub fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "fingerprint": self.fingerprint,
            "pattern": self.pattern,
            "count": self.count,
            "first": self.first,
            "first_at": describe_time(self.first),
            "last": self.last,
            "last_at": describe_time(self.last),
            "attempts_min": self.attempts.map(|a| a.0),
            "attempts_max": self.attempts.map(|a| a.1),
            "sample": self.sample,
            "example": (!self.example.is_empty()).then_some(&self.example),
        })
    }
}

impl Groups {
    /// The groups of `set` (a key of queue `queue`) as `dead groups --json` writes them, the
    /// first `shown` of them.
    pub fn json(&self, queue: &str, set: &str, shown: usize) -> serde_json::Value {
        let shown = &self.groups[..shown.min(self.groups.len())];
        serde_json::json!({
            "queue": queue,
            "set": set,
            "jobs": self.jobs,
            "groups_found": self.groups.len(),
            "more_groups": self.groups.len() - shown.len(),
            "ungrouped": self.ungrouped,
            "groups": shown.iter().map(Group::json).collect::<Vec<_>>(),
        })
    }
}

/// Counts jobs into groups, holding one entry per group (at most [`MAX_GROUPS`]).
pub struct Grouper {
    groups: HashMap<String, Group>,
    jobs: u64,
    ungrouped: u64,
    /// The pattern of the group [`NONE`].
    none: &'static str,
}

impl Grouper {
    /// Groups with `none` as the pattern of the jobs without a failure record
    /// ([`NONE_PATTERN`], [`NONE_SCHEDULED`]).
    pub fn new(none: &'static str) -> Grouper {
        Grouper {
            groups: HashMap::new(),
            jobs: 0,
            ungrouped: 0,
            none,
        }
    }

    /// Counts one job with its score and its recorded failure, if any.
    pub fn add(&mut self, id: &str, score: f64, failure: Option<&Failure>) {
        self.jobs += 1;
        let (fingerprint, pattern) = match failure {
            Some(f) => {
                let pattern = pattern(f);
                (hex(fnv1a(pattern.as_bytes())), pattern)
            }
            None => (NONE.to_string(), self.none.to_string()),
        };
        let attempt = failure
            .filter(|f| !f.reason.starts_with("damaged"))
            .map(|f| f.attempt.saturating_add(1));
        if !self.groups.contains_key(&fingerprint) && self.groups.len() >= MAX_GROUPS {
            self.ungrouped += 1;
            return;
        }
        let group = self
            .groups
            .entry(fingerprint)
            .or_insert_with_key(|fingerprint| Group {
                fingerprint: fingerprint.clone(),
                pattern: cut(&pattern),
                count: 0,
                first: score,
                last: score,
                attempts: None,
                sample: String::new(),
                example: String::new(),
            });
        group.count += 1;
        group.first = group.first.min(score);
        if score >= group.last || group.sample.is_empty() {
            group.last = group.last.max(score);
            group.sample.clear();
            group.sample.push_str(id);
            group.example = failure.map(example).unwrap_or_default();
        }
        if let Some(a) = attempt {
            group.attempts = Some(match group.attempts {
                Some((lo, hi)) => (lo.min(a), hi.max(a)),
                None => (a, a),
            });
        }
    }

    /// The groups, largest first.
    pub fn finish(self) -> Groups {
        let mut groups: Vec<Group> = self.groups.into_values().collect();
        groups.sort_by(|a, b| {
            b.count
                .cmp(&a.count)
                .then_with(|| a.fingerprint.cmp(&b.fingerprint))
        });
        Groups {
            jobs: self.jobs,
            groups,
            ungrouped: self.ungrouped,
        }
    }
}

/// A failure as recorded, on one line: its reason and the first line of its stderr.
fn example(f: &Failure) -> String {
    let text = match first_line(&f.stderr) {
        Some(line) => format!("{}: {}", f.reason, line.trim()),
        None => f.reason.clone(),
    };
    let one_line: String = text
        .chars()
        .map(|c| {
            if crate::engine::text::hidden(c) {
                ' '
            } else {
                c
            }
        })
        .collect();
    cut(&one_line)
}

/// At most [`PATTERN_CHARS`] characters of `text`, with `…` when it was longer.
fn cut(text: &str) -> String {
    match text.char_indices().nth(PATTERN_CHARS) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

/// Groups the failures of the jobs of the sorted set `zset` (`NAME:dead` or
/// `NAME:scheduled`) with scores from `since` to `until`. It walks the set by rank in chunks
/// of [`CHUNK`] ids, and reads only the ids, their scores and their failures (sizes first,
/// then in calls of at most [`CALL_BYTES`]), never the job records; `progress` gets the
/// number of jobs walked after each chunk. Jobs that enter or leave the set while it walks
/// may or may not be counted.
pub async fn walk(
    redis: &mut Redis,
    keys: &QueueKeys,
    zset: &str,
    since: Option<f64>,
    until: Option<f64>,
    mut progress: impl FnMut(u64),
) -> Result<Groups, Error> {
    let min = since.map_or("-inf".to_string(), |s| s.to_string());
    let max = until.map_or("+inf".to_string(), |s| s.to_string());
    let mut pipe = redis::pipe();
    pipe.zcount(zset, "-inf", format!("({min}"))
        .zcount(zset, &min, &max);
    let (below, total): (u64, u64) = redis.pipeline(&pipe, format!("ZCOUNT {zset}")).await?;
    let none = if zset == keys.scheduled {
        NONE_SCHEDULED
    } else {
        NONE_PATTERN
    };
    let mut grouper = Grouper::new(none);
    let mut pos = 0u64;
    while pos < total {
        let n = (CHUNK as u64).min(total - pos);
        let ids: Vec<(String, f64)> = redis
            .query(
                redis::cmd("ZRANGE")
                    .arg(zset)
                    .arg(below + pos)
                    .arg(below + pos + n - 1)
                    .arg("WITHSCORES"),
                format!("ZRANGE {zset}"),
            )
            .await?;
        if ids.is_empty() {
            // The set shrank while it was walked.
            break;
        }
        let names: Vec<&str> = ids.iter().map(|(id, _)| id.as_str()).collect();
        let sizes = lengths(redis, &[&keys.failures], &names).await?;
        for range in split(&sizes, names.len(), CALL_BYTES) {
            let failures: Vec<Option<Vec<u8>>> = match redis
                .query(
                    redis::cmd("HMGET")
                        .arg(&keys.failures)
                        .arg(&names[range.clone()]),
                    format!("HMGET {}", keys.failures),
                )
                .await
            {
                Ok(failures) => failures,
                Err(e) => return Err(e.confirm(redis).await),
            };
            for ((id, score), failure) in ids[range].iter().zip(failures) {
                let failure = failure.as_deref().and_then(Failure::from_json);
                grouper.add(id, *score, failure.as_ref());
            }
        }
        pos += ids.len() as u64;
        progress(grouper.jobs);
    }
    Ok(grouper.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failed(reason: &str, stderr: &str) -> Failure {
        Failure {
            reason: reason.into(),
            stderr: stderr.into(),
            ..Failure::default()
        }
    }

    #[test]
    fn fnv1a_matches_the_published_test_vectors() {
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn a_fingerprint_is_the_same_in_every_run_and_version() {
        let f = failed("exit 3", "502 from gateway 17\n");
        assert_eq!(pattern(&f), "exit 3: <n> from gateway <n>");
        assert_eq!(
            fingerprint(Some(&f)),
            hex(fnv1a(b"exit 3: <n> from gateway <n>"))
        );
        assert_eq!(fingerprint(Some(&f)), "efeb35aea48a");
        assert_eq!(fingerprint(None), "none");
    }

    #[test]
    fn numbers_in_the_message_are_one_group() {
        let a = failed("exit 3", "502 from gateway 17\n");
        let b = failed("exit 3", "\n  \n502 from gateway 9\nmore");
        assert_eq!(fingerprint(Some(&a)), fingerprint(Some(&b)));
        assert_eq!(normalise("took 35ms, then 1.5s"), "took <n>ms, then <n>s");
        assert_eq!(
            normalise("job-17 failed 3 times"),
            "job-<n> failed <n> times"
        );
        assert_eq!(normalise("retry #12 of 20"), "retry #<n> of <n>");
    }

    #[test]
    fn names_with_digits_stay() {
        assert_eq!(
            normalise("sha256 of v2 x86_64 UTF8 base64 in s3"),
            "sha256 of v2 x86_64 UTF8 base64 in s3"
        );
        assert_eq!(normalise("HTTP/1.1"), "HTTP/<n>");
    }

    #[test]
    fn words_that_mix_letters_and_digits_are_ids() {
        assert_eq!(
            normalise("req=g22357 user=bob192 order A7871-X"),
            "req=<id> user=<id> order <id>"
        );
        assert_eq!(
            normalise("req=g9 user=al7 order B12-QQ"),
            "req=<id> user=<id> order <id>"
        );
        assert_eq!(
            normalise("user_42 failed on the 3rd try"),
            "<id> failed on the <id> try"
        );
        assert_eq!(normalise("job-17 of batch-x"), "job-<n> of batch-x");
        assert_eq!(normalise("exit code E42"), "exit code E42");
        assert_ne!(
            normalise("sha256 mismatch for f1"),
            normalise("md5 mismatch for f1")
        );
        let long = "a-".repeat(5000);
        assert_eq!(
            normalise(&long),
            long.trim_end_matches('-').to_string() + "-"
        );
    }

    #[test]
    fn exit_codes_signals_and_status_codes_stay_distinct() {
        let three = failed("exit 3", "boom 1");
        let four = failed("exit 4", "boom 2");
        let kill = failed("exit 137", "boom 3");
        assert_ne!(fingerprint(Some(&three)), fingerprint(Some(&four)));
        assert_ne!(fingerprint(Some(&three)), fingerprint(Some(&kill)));
        assert_eq!(pattern(&kill), "exit 137: boom <n>");
        assert_eq!(normalise("signal 9"), "signal 9");
        assert_eq!(normalise("handler exited 3"), "handler exited 3");
        assert_eq!(
            normalise("handler killed by signal 15"),
            "handler killed by signal 15"
        );
        assert_eq!(normalise("exit status 2"), "exit status 2");
        assert_eq!(
            normalise("HTTP status=502 after 3 tries"),
            "HTTP status=502 after <n> tries"
        );
        assert_eq!(normalise("exit code: 1"), "exit code: 1");
    }

    #[test]
    fn addresses_hex_and_uuids_become_placeholders() {
        assert_eq!(
            normalise("connect to 10.0.0.7:5432 failed"),
            normalise("connect to 10.0.0.8:5432 failed")
        );
        assert_eq!(
            normalise("connect to 10.0.0.7:5432 failed"),
            "connect to <ip>:<n> failed"
        );
        assert_eq!(
            normalise("job 4f1c2a3b-9d8e-4c7b-a6f5-0123456789ab not found"),
            "job <uuid> not found"
        );
        assert_eq!(
            normalise("JOB 4F1C2A3B-9D8E-4C7B-A6F5-0123456789AB"),
            "JOB <uuid>"
        );
        assert_eq!(normalise("at 0x7ffd1234 and 0XFF"), "at <hex> and <hex>");
        assert_eq!(normalise("commit a3f9c2e1b4d5 broke"), "commit <hex> broke");
        assert_eq!(normalise("deadbeef accessed"), "deadbeef accessed");
    }

    #[test]
    fn paths_become_placeholders() {
        assert_eq!(
            normalise("open /tmp/x/y.txt: no such file"),
            "open <path>: no such file"
        );
        assert_eq!(normalise("cannot read ./a/b.json."), "cannot read <path>.");
        assert_eq!(normalise("see ~/logs and ../up"), "see <path> and <path>");
        assert_eq!(normalise("path=/var/run/x.sock"), "path=<path>");
        assert_eq!(
            normalise("GET https://api.example.com/v1/users/123 failed"),
            "GET https://api.example.com/v1/users/<n> failed"
        );
        assert_eq!(normalise("read / write and/or"), "read / write and/or");
    }

    #[test]
    fn quoted_strings_become_placeholders() {
        assert_eq!(
            normalise(r#"no user "alice" in 'db-1' (`main`)"#),
            "no user <str> in <str> (<str>)"
        );
        assert_eq!(normalise("can't open 'x y'"), "can't open <str>");
        assert_eq!(normalise(r#"unclosed "quote"#), r#"unclosed "quote"#);
    }

    #[test]
    fn whitespace_and_control_characters_collapse() {
        assert_eq!(normalise("  a \t\x1b b\r\n"), "a b");
        assert_eq!(normalise("é 12 ü"), "é <n> ü");
    }

    #[test]
    fn a_cut_stderr_tail_skips_its_first_fragment() {
        let long = format!("{}\nreal error 5\n", "x".repeat(STDERR_TAIL));
        assert_eq!(first_line(&long), Some("real error 5"));
        assert_eq!(first_line("\n\nfirst\nsecond"), Some("first"));
        assert_eq!(first_line(" \n"), None);
    }

    #[test]
    fn grouping_counts_times_attempts_and_samples() {
        let mut g = Grouper::new(NONE_PATTERN);
        let a = Failure {
            attempt: 2,
            ..failed("exit 3", "502 from gateway 17")
        };
        let b = Failure {
            attempt: 20,
            ..failed("exit 3", "502 from gateway 9")
        };
        g.add("j1", 10.0, Some(&a));
        g.add("j2", 30.0, Some(&b));
        g.add("j3", 20.0, None);
        g.add("j4", 5.0, Some(&failed("damaged: bad record", "")));
        let groups = g.finish();
        assert_eq!(groups.jobs, 4);
        let first = &groups.groups[0];
        assert_eq!(first.count, 2);
        assert_eq!((first.first, first.last), (10.0, 30.0));
        assert_eq!(first.attempts, Some((3, 21)));
        assert_eq!(first.sample, "j2");
        assert_eq!(first.example, "exit 3: 502 from gateway 9");
        let none = groups
            .groups
            .iter()
            .find(|g| g.fingerprint == NONE)
            .unwrap();
        assert_eq!((none.count, none.attempts), (1, None));
        assert_eq!(none.pattern, NONE_PATTERN);
        let damaged = groups.groups.iter().find(|g| g.sample == "j4").unwrap();
        assert_eq!(damaged.attempts, None);
    }

    /// `i` in letters only, which no placeholder replaces.
    fn letters(i: usize) -> String {
        let mut s = String::from("z");
        let mut i = i;
        while i > 0 {
            s.push(char::from(b'a' + (i % 26) as u8));
            i /= 26;
        }
        s
    }

    #[test]
    fn groups_beyond_the_cap_are_counted_apart() {
        let mut g = Grouper::new(NONE_PATTERN);
        for i in 0..MAX_GROUPS + 5 {
            g.add(
                &format!("j{i}"),
                1.0,
                Some(&failed(
                    &format!("reason {}", "x".repeat(i % 50)),
                    &letters(i),
                )),
            );
        }
        g.add("again", 2.0, Some(&failed("reason ", &letters(0))));
        let groups = g.finish();
        assert_eq!(groups.groups.len(), MAX_GROUPS);
        assert_eq!(groups.ungrouped, 5);
        assert_eq!(groups.jobs, MAX_GROUPS as u64 + 6);
    }
}
