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

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(Severity::Warning.worst(Severity::Critical), Severity::Critical);
        assert_eq!(Severity::Unknown.worst(Severity::Critical), Severity::Unknown);
        assert_eq!(Severity::Ok.worst(Severity::Ok), Severity::Ok);
    }
}
