//! How healthy something is, in the monitoring-plugins convention that Nagios, Icinga,
//! Sensu and Zabbix read from a check's exit code: `qctl check` and `qctl doctor` end with it.

use serde::Serialize;

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
