//! How healthy something is, in the monitoring-plugins convention that Nagios, Icinga,
//! Sensu and Zabbix read from a check's exit code: `qctl check` and `qctl doctor` end with it.

use std::time::Duration;

use serde::Serialize;

use super::conn::Redis;
use super::error::Error;
use super::history::{self, Tally};
use super::keys::QueueKeys;
use super::queues::QueueStats;
use super::text::{printable, span_words, thousands};

/// A finding's weight; the worst one decides a run's exit code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Severity {
    /// Nothing to act on.
    Ok,
    /// Past a `--warn-*` threshold, or a risk worth fixing.
    Warning,
    /// Past a threshold, or a risk that loses jobs.
    Critical,
    /// It could not be told: Redis could not be read.
    Unknown,
}

impl Severity {
    /// The word monitoring systems print: OK, WARNING, CRITICAL, UNKNOWN.
    pub fn label(self) -> &'static str {
        match self {
            Severity::Ok => "OK",
            Severity::Warning => "WARNING",
            Severity::Critical => "CRITICAL",
            Severity::Unknown => "UNKNOWN",
        }
    }

    /// The exit code of the convention: 0, 1, 2, 3. It takes the place of qctl's own codes
    /// for the commands that report a severity.
    pub fn exit_code(self) -> super::ExitCode {
        match self {
            Severity::Ok => super::ExitCode::Success,
            Severity::Warning => super::ExitCode::Failure,
            Severity::Critical => super::ExitCode::Usage,
            Severity::Unknown => super::ExitCode::Unreachable,
        }
    }

    /// The worse of two: UNKNOWN over CRITICAL over WARNING over OK.
    pub fn worst(self, other: Severity) -> Severity {
        self.max(other)
    }
}

/// One measured value of a check against its thresholds.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Measure {
    /// What was measured: `dead`, `ready`, `overdue`, `consumers`, `failure_rate`, `stale`.
    pub name: &'static str,
    /// None when it could not be read (a key of the wrong type).
    pub value: Option<f64>,
    pub warn: Option<f64>,
    pub crit: Option<f64>,
    /// Whether too little is the problem (consumers) rather than too much.
    pub below: bool,
    /// The unit of the perfdata: "" (a count), "s" or "%".
    pub unit: &'static str,
    pub status: Severity,
}

impl Measure {
    /// Judges `value` against `warn` and `crit`: past `crit` is CRITICAL, past `warn`
    /// WARNING ("past" is above, or below with `below`); an unread value is UNKNOWN.
    pub fn judge(
        name: &'static str,
        value: Option<f64>,
        warn: Option<f64>,
        crit: Option<f64>,
        below: bool,
        unit: &'static str,
    ) -> Measure {
        let past =
            |limit: Option<f64>, v: f64| limit.is_some_and(|l| if below { v < l } else { v > l });
        let status = match value {
            None => Severity::Unknown,
            Some(v) if past(crit, v) => Severity::Critical,
            Some(v) if past(warn, v) => Severity::Warning,
            Some(_) => Severity::Ok,
        };
        Measure {
            name,
            value,
            warn,
            crit,
            below,
            unit,
            status,
        }
    }

    /// The threshold it passed, if it did.
    pub fn passed(&self) -> Option<f64> {
        match self.status {
            Severity::Critical => self.crit,
            Severity::Warning => self.warn,
            _ => None,
        }
    }
}

/// The thresholds of `qctl check`: each one None (or false) when not given.
#[derive(Clone, Debug)]
pub struct Thresholds {
    pub dead_max: Option<u64>,
    pub warn_dead: Option<u64>,
    pub ready_max: Option<u64>,
    pub warn_ready: Option<u64>,
    pub overdue_max: Option<Duration>,
    pub warn_overdue: Option<Duration>,
    pub min_consumers: Option<u64>,
    pub warn_min_consumers: Option<u64>,
    pub failure_rate_max: Option<f64>,
    pub warn_failure_rate: Option<f64>,
    /// The span of the failure rate.
    pub window: Duration,
    pub stale_consumers: bool,
    pub warn_stale_consumers: bool,
    /// Heartbeat age past which a consumer counts as expired.
    pub orphan_after: Duration,
    /// Discovery scans at most this many keys.
    pub max_keys: u64,
}

impl Thresholds {
    /// Whether any threshold is given: a check of none is refused.
    pub fn any(&self) -> bool {
        self.dead_max.is_some()
            || self.warn_dead.is_some()
            || self.ready_max.is_some()
            || self.warn_ready.is_some()
            || self.overdue_max.is_some()
            || self.warn_overdue.is_some()
            || self.min_consumers.is_some()
            || self.warn_min_consumers.is_some()
            || self.rate_asked()
            || self.stale_consumers
            || self.warn_stale_consumers
    }

    fn rate_asked(&self) -> bool {
        self.failure_rate_max.is_some() || self.warn_failure_rate.is_some()
    }

    /// The measures the thresholds ask for, from the counts.
    fn measures(&self, s: &QueueStats) -> Vec<Measure> {
        let n = |v: Option<u64>| v.map(|v| v as f64);
        let mut out = Vec::new();
        if self.dead_max.is_some() || self.warn_dead.is_some() {
            out.push(Measure::judge(
                "dead",
                n(s.dead),
                n(self.warn_dead),
                n(self.dead_max),
                false,
                "",
            ));
        }
        if self.ready_max.is_some() || self.warn_ready.is_some() {
            let ready = s.active.zip(s.scheduled_due).map(|(a, d)| a + d);
            out.push(Measure::judge(
                "ready",
                n(ready),
                n(self.warn_ready),
                n(self.ready_max),
                false,
                "",
            ));
        }
        if self.overdue_max.is_some() || self.warn_overdue.is_some() {
            let secs = |d: Option<Duration>| d.map(|d| d.as_secs_f64());
            out.push(Measure::judge(
                "overdue",
                s.overdue_secs,
                secs(self.warn_overdue),
                secs(self.overdue_max),
                false,
                "s",
            ));
        }
        if self.min_consumers.is_some() || self.warn_min_consumers.is_some() {
            out.push(Measure::judge(
                "consumers",
                n(s.consumers_alive),
                n(self.warn_min_consumers),
                n(self.min_consumers),
                true,
                "",
            ));
        }
        if self.stale_consumers || self.warn_stale_consumers {
            let (warn, crit) = if self.stale_consumers {
                (None, Some(0.0))
            } else {
                (Some(0.0), None)
            };
            out.push(Measure::judge(
                "stale_consumers",
                n(s.consumers_expired),
                warn,
                crit,
                false,
                "",
            ));
        }
        out
    }
}

/// One queue's verdict, as `check --json` writes it.
#[derive(Clone, Debug, Serialize)]
pub struct Verdict {
    pub queue: String,
    pub status: Severity,
    pub measures: Vec<Measure>,
    /// What the check could not know, or why it is UNKNOWN.
    pub notes: Vec<String>,
}

/// What `qctl check` reports: the document of `check --json`.
#[derive(Clone, Debug, Serialize)]
pub struct Checked {
    /// The worst queue's status.
    pub status: Severity,
    /// The exit code of the convention.
    pub code: u8,
    /// The first line: `QCTL STATUS - ...`.
    pub summary: String,
    pub queues: Vec<Verdict>,
}

impl Checked {
    /// The verdicts, their worst status and the summary line.
    pub fn of(queues: Vec<Verdict>) -> Checked {
        let status = queues.iter().fold(Severity::Ok, |s, v| s.worst(v.status));
        Checked {
            status,
            code: status.exit_code() as u8,
            summary: summary(&queues, status),
            queues,
        }
    }

    /// The check could not be made: UNKNOWN, with why on the first line.
    pub fn unknown(reason: &str) -> Checked {
        Checked {
            status: Severity::Unknown,
            code: Severity::Unknown.exit_code() as u8,
            summary: format!("QCTL UNKNOWN - {}", printable(&one_line(reason))),
            queues: Vec::new(),
        }
    }
}

/// Reads `queues` (none: every queue found) and judges each against the thresholds: what
/// `stats` reads, an EXISTS of each queue named, and for the failure rate the minutes of
/// the window and the queue's consumers. Queues the Redis user may not read are an error.
pub async fn check(
    redis: &mut Redis,
    queues: &[String],
    cluster: bool,
    t: &Thresholds,
) -> Result<Vec<Verdict>, Error> {
    let reading = super::queues::read(redis, queues, cluster, t.orphan_after, t.max_keys).await?;
    if let Some(note) = &reading.unreadable {
        return Err(Error::BadInput(note.clone()));
    }
    let now = redis.server_time().await?;
    let mut verdicts = Vec::with_capacity(reading.stats.len());
    for s in reading.stats {
        let keys = QueueKeys::new(&s.queue);
        let mut notes = Vec::new();
        if !queues.is_empty() && !super::queues::exists(redis, &keys).await? {
            verdicts.push(Verdict {
                queue: s.queue.clone(),
                status: Severity::Unknown,
                measures: Vec::new(),
                notes: vec![super::queues::no_queue(redis, &s.queue).await],
            });
            continue;
        }
        let mut measures = t.measures(&s);
        if t.rate_asked() {
            // What is not kept cannot be measured: a longer window is cut to the history.
            let span = history::kept(t.window);
            let window =
                history::minutes(redis, &keys, now - span.as_secs_f64() + 60.0, now).await?;
            let mut seen = Tally::default();
            for (_, minute) in &window {
                seen.add(minute);
            }
            let rate = seen.failure_rate();
            let mut m = Measure::judge(
                "failure_rate",
                rate,
                t.warn_failure_rate,
                t.failure_rate_max,
                false,
                "%",
            );
            if rate.is_none() {
                // Nothing ran: no rate, and nothing failed.
                m.status = Severity::Ok;
                notes.push(format!(
                    "no run settled by a qctl consumer in the last {}",
                    humantime::format_duration(span)
                ));
            }
            if span < t.window {
                notes.push(format!(
                    "--window {} is longer than the {} of history qctl consumers keep: measured over the last {}",
                    span_words(t.window),
                    span_words(history::KEPT),
                    span_words(span)
                ));
            }
            measures.push(m);
            if let Some(blind) = history::blind_spot(redis, &keys).await? {
                notes.push(blind);
            }
        }
        if !s.wrong_type.is_empty() {
            notes.push(format!("wrong type: {}", s.wrong_type.join(", ")));
        }
        let status = measures
            .iter()
            .fold(Severity::Ok, |st, m| st.worst(m.status));
        verdicts.push(Verdict {
            queue: s.queue.clone(),
            status,
            measures,
            notes,
        });
    }
    Ok(verdicts)
}

/// `QCTL STATUS - ...`: the queues past a threshold with what they passed, or how many
/// queues are fine.
fn summary(verdicts: &[Verdict], status: Severity) -> String {
    let problems: Vec<String> = verdicts
        .iter()
        .filter(|v| v.status != Severity::Ok)
        .map(|v| {
            let mut parts: Vec<String> = v
                .measures
                .iter()
                .filter(|m| m.status != Severity::Ok)
                .map(Measure::describe)
                .collect();
            if v.status == Severity::Unknown && parts.is_empty() {
                parts.extend(v.notes.iter().take(1).cloned());
            }
            format!("{}: {}", printable(&v.queue), parts.join(", "))
        })
        .collect();
    let text = if problems.is_empty() {
        match verdicts.len() {
            0 => "no queues found".to_string(),
            1 => format!("{} OK", printable(&verdicts[0].queue)),
            n => format!("{n} queues OK"),
        }
    } else {
        problems.join("; ")
    };
    format!("QCTL {} - {}", status.label(), printable(&one_line(&text)))
}

/// Text on one line: runs of white space (line breaks too) as one space.
pub fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

impl Measure {
    /// The measure in words: `dead 12 > 10`, `consumers 0 < 1`, `ready 3`.
    pub fn describe(&self) -> String {
        let value = match self.value {
            None if self.status == Severity::Ok => {
                return format!("{} none (nothing ran)", self.name)
            }
            None => return format!("{} unknown (its key holds the wrong type)", self.name),
            Some(v) => self.shown(v),
        };
        match self.passed() {
            Some(limit) => {
                let op = if self.below { "<" } else { ">" };
                format!("{} {value} {op} {}", self.name, self.shown(limit))
            }
            None => format!("{} {value}", self.name),
        }
    }

    /// A value in the measure's unit.
    pub fn shown(&self, v: f64) -> String {
        match self.unit {
            "s" => format!("{}s", (v * 10.0).round() / 10.0),
            "%" => format!("{}%", (v * 1000.0).round() / 10.0),
            _ => thousands(v as u64),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_measure_is_judged_by_the_threshold_it_passes() {
        let m = |v: f64| Measure::judge("dead", Some(v), Some(5.0), Some(10.0), false, "");
        assert_eq!(m(5.0).status, Severity::Ok);
        assert_eq!(m(6.0).status, Severity::Warning);
        assert_eq!(m(6.0).passed(), Some(5.0));
        assert_eq!(m(11.0).status, Severity::Critical);
        assert_eq!(m(11.0).passed(), Some(10.0));
        let low = |v: f64| Measure::judge("consumers", Some(v), Some(2.0), Some(1.0), true, "");
        assert_eq!(low(2.0).status, Severity::Ok);
        assert_eq!(low(1.0).status, Severity::Warning);
        assert_eq!(low(0.0).status, Severity::Critical);
        let unread = Measure::judge("dead", None, None, Some(1.0), false, "");
        assert_eq!(unread.status, Severity::Unknown);
    }

    #[test]
    fn codes_follow_the_monitoring_plugins_convention() {
        let all = [
            Severity::Ok,
            Severity::Warning,
            Severity::Critical,
            Severity::Unknown,
        ];
        for (code, s) in all.into_iter().enumerate() {
            assert_eq!(s.exit_code() as usize, code, "{}", s.label());
        }
        assert_eq!(
            Severity::Warning.worst(Severity::Critical),
            Severity::Critical
        );
        assert_eq!(
            Severity::Unknown.worst(Severity::Critical),
            Severity::Unknown
        );
        assert_eq!(Severity::Ok.worst(Severity::Ok), Severity::Ok);
    }
}
