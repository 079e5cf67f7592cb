//! The engine's error type. Each error knows the exit code it maps to, and every Redis error
//! names the server (host:port, never a password) and the operation that failed.

use std::fmt;

/// Process exit codes, one table for every command (documented in the README).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum ExitCode {
    /// Everything asked for was done.
    Success = 0,
    /// An error not covered below (a local file could not be written, ...).
    Failure = 1,
    /// The command line was wrong: unknown flag, bad value, bad URL.
    Usage = 2,
    /// Redis could not be reached: refused, timed out, TLS or DNS failure.
    Unreachable = 3,
    /// Redis answered with an error: wrong key type, NOPERM, authentication, OOM, ...
    Redis = 4,
    /// Nothing was done: the id is taken, or nothing matched.
    NothingDone = 5,
    /// Input could not be used: unreadable file, invalid JSON line, damaged record.
    BadInput = 6,
    /// Part of the work failed: a job failed, or some of the ids asked for were not found.
    Partial = 7,
}

impl From<ExitCode> for std::process::ExitCode {
    fn from(code: ExitCode) -> Self {
        std::process::ExitCode::from(code as u8)
    }
}

/// A typed engine error; `anyhow` context can be layered on top of it.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("cannot reach Redis at {server} ({op}): {reason}")]
    Unreachable {
        server: String,
        op: String,
        reason: String,
    },
    #[error("Redis at {server} refused {op}: {reason}")]
    Redis {
        server: String,
        op: String,
        reason: String,
        /// The server's error code (WRONGTYPE, NOPERM, NOSCRIPT, ...) when there is one.
        code: Option<String>,
    },
    #[error("{0}")]
    Usage(String),
    #[error("{0}")]
    BadInput(String),
    #[error("{0}")]
    NothingDone(String),
}

impl Error {
    pub fn exit_code(&self) -> ExitCode {
        match self {
            Error::Unreachable { .. } => ExitCode::Unreachable,
            Error::Redis { .. } => ExitCode::Redis,
            Error::Usage(_) => ExitCode::Usage,
            Error::BadInput(_) => ExitCode::BadInput,
            Error::NothingDone(_) => ExitCode::NothingDone,
        }
    }

    /// Classifies a redis-rs error raised while doing `op` against `server`.
    pub fn from_redis(server: &str, op: impl fmt::Display, err: redis::RedisError) -> Error {
        let reason = redact(&err.to_string());
        if is_transport(&err) {
            Error::Unreachable {
                server: server.to_string(),
                op: op.to_string(),
                reason,
            }
        } else {
            Error::Redis {
                server: server.to_string(),
                op: op.to_string(),
                code: err.code().map(str::to_string),
                reason,
            }
        }
    }

    /// Whether a retry after reconnecting might succeed (the server or the link failed,
    /// rather than the server refusing the operation).
    pub fn is_transient(&self) -> bool {
        match self {
            Error::Unreachable { .. } => true,
            Error::Redis { code, .. } => matches!(
                code.as_deref(),
                Some("LOADING" | "TRYAGAIN" | "MASTERDOWN" | "CLUSTERDOWN" | "BUSY" | "READONLY")
            ),
            _ => false,
        }
    }
}

/// Whether a redis-rs error is a failure of the link rather than an answer from the server.
pub fn is_transport(err: &redis::RedisError) -> bool {
    err.is_io_error()
        || err.is_connection_refusal()
        || err.is_timeout()
        || err.is_connection_dropped()
        || err.kind() == redis::ErrorKind::Io
}

/// Replaces the password of anything shaped like a URL (`scheme://user:password@host`)
/// with `***`, so no message ever carries one.
pub fn redact(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(pos) = rest.find("://") {
        let (head, tail) = rest.split_at(pos + 3);
        out.push_str(head);
        let end = tail
            .find(|c: char| c.is_whitespace() || c == '/' || c == '"' || c == '\'')
            .unwrap_or(tail.len());
        let authority = &tail[..end];
        match authority.rfind('@') {
            Some(at) => {
                let userinfo = &authority[..at];
                match userinfo.find(':') {
                    Some(colon) => {
                        out.push_str(&userinfo[..colon]);
                        out.push_str(":***");
                    }
                    None if userinfo.is_empty() => {}
                    // `redis://secret@host` carries the password alone.
                    None => out.push_str("***"),
                }
                out.push_str(&authority[at..]);
            }
            None => out.push_str(authority),
        }
        rest = &tail[end..];
    }
    out.push_str(rest);
    out
}

/// The exit code for an error chain: the first typed error in it decides.
pub fn exit_code_of(err: &anyhow::Error) -> ExitCode {
    for cause in err.chain() {
        if let Some(e) = cause.downcast_ref::<Error>() {
            return e.exit_code();
        }
        if let Some(e) = cause.downcast_ref::<redis::RedisError>() {
            return if is_transport(e) {
                ExitCode::Unreachable
            } else {
                ExitCode::Redis
            };
        }
    }
    ExitCode::Failure
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redact_hides_passwords_in_urls() {
        assert_eq!(
            redact("redis://user:s3cret@host:6379/2"),
            "redis://user:***@host:6379/2"
        );
        assert_eq!(redact("rediss://:s3cret@h"), "rediss://:***@h");
        assert_eq!(redact("redis://s3cret@h:1"), "redis://***@h:1");
        assert_eq!(redact("no url here"), "no url here");
        assert_eq!(
            redact("a redis://h:1 and redis://u:p@x:2/0 b"),
            "a redis://h:1 and redis://u:***@x:2/0 b"
        );
        assert!(!redact("redis://u:p@ss@host").contains("p@ss"));
    }
}
