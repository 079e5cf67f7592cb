//! Reading the values qctl is given, on the command line (clap's value parsers in cli.rs)
//! and in the query of a `qctl web` page alike: counts, durations, times and ages, failure
//! groups. Each error says what is wrong in the words a flag's error gives.

use std::time::Duration;

/// A count that cannot be negative (retries, failures): 0 or more.
pub fn parse_count(s: &str) -> Result<i64, String> {
    match s.trim().parse::<i64>() {
        Ok(n) if n >= 0 => Ok(n),
        Ok(_) => Err("must be 0 or more".into()),
        Err(e) => Err(e.to_string()),
    }
}

/// A failure group's fingerprint: 12 hex digits (as `dead groups` prints them, any case), or
/// `none`.
pub fn parse_group(s: &str) -> Result<String, String> {
    let fp = s.trim().to_ascii_lowercase();
    if fp == super::groups::NONE || (fp.len() == 12 && fp.bytes().all(|b| b.is_ascii_hexdigit())) {
        Ok(fp)
    } else {
        Err("expected a fingerprint of 12 hex digits as `dead groups` prints it, or none".into())
    }
}

/// The longest duration qctl accepts: 10,000 years. Anything longer means "never" to every
/// flag that takes a duration, and would overflow the clocks and counters it is added to.
pub const LONGEST: Duration = Duration::from_secs(10_000 * 31_557_600);

/// Parses a duration such as `90s`, `10m`, `2h`, `3d`, `1h30m` or `500ms`, up to
/// [`LONGEST`].
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let d = humantime::parse_duration(s.trim())
        .map_err(|e| format!("{e} (expected a duration such as 90s, 10m, 2h or 3d)"))?;
    if d > LONGEST {
        return Err("longer than 10000 years, the longest duration qctl accepts".into());
    }
    Ok(d)
}

/// The latest time qctl accepts: the end of year 9999, in unix seconds.
pub const LATEST_TIME: f64 = 253_402_300_799.0;

/// Parses a point in time: RFC 3339 or unix seconds (fractions allowed), from 1970 to the
/// end of year 9999. Returns unix seconds.
pub fn parse_time(s: &str) -> Result<f64, String> {
    let s = s.trim();
    let t = match s.parse::<f64>() {
        Ok(secs) => secs,
        Err(_) => chrono::DateTime::parse_from_rfc3339(s)
            .map(|t| t.timestamp() as f64 + f64::from(t.timestamp_subsec_millis()) / 1e3)
            .map_err(|e| {
                format!("{e} (expected RFC 3339 such as 2026-01-02T15:04:05Z, or unix seconds)")
            })?,
    };
    check_time(t)
}

/// Accepts a time (unix seconds) from 1970 to the end of year 9999.
pub fn check_time(t: f64) -> Result<f64, String> {
    if (0.0..=LATEST_TIME).contains(&t) {
        Ok(t)
    } else {
        Err(format!(
            "{t} is out of range: times go from 0 (1970) to {LATEST_TIME} (the end of year 9999)"
        ))
    }
}

/// A point in time, or an age (`2h`: two hours ago). Returns unix seconds; an age reaching
/// before 1970 is 1970, a time from now past the end of year 9999 is that end.
pub fn parse_time_or_age(s: &str) -> Result<f64, String> {
    let s = s.trim();
    let within = |t: f64| t.clamp(0.0, LATEST_TIME);
    if let Some(ahead) = s.strip_prefix('+') {
        return parse_duration(ahead)
            .map(|d| within(super::now() + d.as_secs_f64()))
            .map_err(|e| format!("{e} (expected +DURATION such as +2h: that long from now)"));
    }
    if humantime::parse_duration(s).is_ok() {
        return parse_duration(s).map(|age| within(super::now() - age.as_secs_f64()));
    }
    parse_time(s)
}
