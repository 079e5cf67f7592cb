//! The engine's error type. Each error knows the exit code it maps to, and every Redis error
//! names the server (host:port, never a password) and the operation that failed.

use std::fmt;

/// Process exit codes, one table for every command (documented in docs/exit-codes.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum ExitCode {
    /// Everything asked for was done.
    Success = 0,
    /// An error not covered below (a local file could not be written, ...).
    Failure = 1,
    /// The command line was wrong: unknown flag, bad value, bad URL.
    Usage = 2,
    /// Redis could not be reached: refused, timed out, TLS or DNS failure; or it did not
    /// answer a call within the response timeout although it is reachable.
    Unreachable = 3,
    /// Redis answered with an error: wrong key type, NOPERM, authentication, OOM, ...
    Redis = 4,
    /// Nothing was done: the id is taken, or nothing matched.
    NothingDone = 5,
    /// Input could not be used: unreadable file, invalid JSON line, damaged record.
    BadInput = 6,
    /// Part of the work failed: a job failed, or some of the ids asked for were not found.
    Partial = 7,
    /// `consume --drain`: the queue is paused (or a limit of 0 holds it) with jobs ready, so
    /// they were not run.
    Paused = 8,
    /// `consume --drain`: it stopped with jobs of the queue left to run (--max-jobs).
    Unfinished = 9,
    /// A question before a change was answered no (or with Enter alone): nothing changed.
    Declined = 10,
    /// `wait --timeout`: the time ran out first (124, as timeout(1)).
    TimedOut = 124,
    /// Stopped by SIGHUP before it was done (128 + 1).
    Hangup = 129,
    /// Stopped by SIGINT (Ctrl-C) before it was done (128 + 2).
    Interrupted = 130,
    /// Stopped because its output was closed (a pipe whose reader is gone; 128 + SIGPIPE).
    OutputClosed = 141,
    /// Stopped by SIGTERM before it was done (128 + 15).
    Terminated = 143,
}

impl From<ExitCode> for std::process::ExitCode {
    fn from(code: ExitCode) -> Self {
        std::process::ExitCode::from(code as u8)
    }
}

/// A typed engine error; `anyhow` context can be layered on top of it.
#[derive(Clone, Debug, thiserror::Error)]
pub enum Error {
    #[error("cannot reach Redis at {server} ({op}): {reason}")]
    Unreachable {
        server: String,
        op: String,
        reason: String,
    },
    /// A call got no answer within `--response-timeout`: the server or the link failed, or
    /// (see [`Error::confirm`]) the reply was too large to arrive in time.
    #[error("cannot reach Redis at {server} ({op}): {reason}")]
    TimedOut {
        server: String,
        op: String,
        reason: String,
    },
    /// A call got no answer within `--response-timeout` while a fresh connection was
    /// answered at once: its reply (or its request) could not travel in that time.
    #[error(
        "Redis at {server} did not answer {op} within --response-timeout ({}), although it is reachable and answered another connection at once: the reply (or the request) was too large to travel in that time; give more time with --response-timeout",
        humantime::format_duration(*timeout)
    )]
    Slow {
        server: String,
        op: String,
        timeout: std::time::Duration,
    },
    #[error("Redis at {server} refused {op}: {reason}")]
    Redis {
        server: String,
        op: String,
        reason: String,
        /// The server's error code (WRONGTYPE, NOPERM, NOSCRIPT, ...) when there is one.
        code: Option<String>,
    },
    /// The consumer could not renew its heartbeat in time: other consumers may recover its
    /// jobs, so it stopped running them.
    #[error("lost the lease on its jobs at {server}: {reason}")]
    LeaseLost { server: String, reason: String },
    #[error("{0}")]
    Usage(String),
    #[error("{0}")]
    BadInput(String),
    #[error("{0}")]
    NothingDone(String),
}

/// Error codes after which trying again cannot help: the key has the wrong type or holds a
/// value a script cannot use (BADVALUE, from qctl's scripts), the user lacks the right or is
/// not authenticated, a script is still missing after loading it, or the key lives on another
/// node.
const PERMANENT: [&str; 10] = [
    "WRONGTYPE",
    "BADVALUE",
    "NOPERM",
    "NOAUTH",
    "WRONGPASS",
    "NOSCRIPT",
    "MOVED",
    "ASK",
    "CROSSSLOT",
    "EXECABORT",
];

/// Error codes of a server that is starting, failing over or busy: worth retrying soon.
const TRANSIENT: [&str; 6] = [
    "LOADING",
    "TRYAGAIN",
    "MASTERDOWN",
    "CLUSTERDOWN",
    "BUSY",
    "READONLY",
];

impl Error {
    pub fn exit_code(&self) -> ExitCode {
        match self {
            Error::Unreachable { .. }
            | Error::TimedOut { .. }
            | Error::Slow { .. }
            | Error::LeaseLost { .. } => ExitCode::Unreachable,
            Error::Redis { .. } => ExitCode::Redis,
            Error::Usage(_) => ExitCode::Usage,
            Error::BadInput(_) => ExitCode::BadInput,
            Error::NothingDone(_) => ExitCode::NothingDone,
        }
    }

    /// Classifies a redis-rs error raised while doing `op` against `server`. A server error
    /// is shown in Redis's own words (`WRONGTYPE Operation against ...`), also when it came
    /// from inside a pipeline.
    pub fn from_redis(server: &str, op: impl fmt::Display, err: redis::RedisError) -> Error {
        if let Some(error) = tls_error(server, &op, &err) {
            return error;
        }
        // Connecting has its own timeout: only a call's goes unanswered.
        if err.is_timeout() && op.to_string() != "connect" {
            return Error::TimedOut {
                server: server.to_string(),
                op: op.to_string(),
                reason: redact(&err.to_string()),
            };
        }
        if is_transport(&err) {
            return Error::Unreachable {
                server: server.to_string(),
                op: op.to_string(),
                reason: redact(&err.to_string()),
            };
        }
        if err.kind() == redis::ErrorKind::Parse {
            return Error::Unreachable {
                server: server.to_string(),
                op: op.to_string(),
                reason: "not a Redis server (its answer is not in the Redis protocol)".into(),
            };
        }
        if err.kind() == redis::ErrorKind::InvalidClientConfig {
            // The client library refused its own settings (the TLS files are checked before
            // this, so this is a last resort): in words, without the library's kind name.
            let reason = err.to_string().replace(" - InvalidClientConfig", "");
            return Error::BadInput(format!(
                "cannot connect to {server}: the connection settings cannot be used: {}",
                redact(&reason)
            ));
        }
        if err.kind() == redis::ErrorKind::AuthenticationFailed {
            return Error::Redis {
                server: server.to_string(),
                op: op.to_string(),
                code: Some("WRONGPASS".into()),
                reason:
                    "authentication failed: wrong user name or password, or the user is disabled"
                        .into(),
            };
        }
        let (code, reason) = match err.clone().into_server_errors() {
            Some(errors) if !errors.is_empty() => {
                let first = &errors[0].1;
                let code = first.code().to_string();
                let reason = match first.details() {
                    Some(details) => format!("{code} {details}"),
                    None => code.clone(),
                };
                (Some(code), reason)
            }
            _ => (err.code().map(str::to_string), err.to_string()),
        };
        let mut reason = redact(&reason);
        // A server that wants a password answers a long command sent before one (more than
        // 10 arguments, or one over 16 KiB) with this, and closes the connection: the same
        // refusal as NOAUTH.
        let code = match code {
            Some(c) if c == "ERR" && reason.contains("Protocol error: unauthenticated") => {
                Some("NOAUTH".to_string())
            }
            code => code,
        };
        if matches!(code.as_deref(), Some("MOVED" | "ASK")) {
            reason.push_str(" (this server is a Redis Cluster node: add --cluster)");
        }
        Error::Redis {
            server: server.to_string(),
            op: op.to_string(),
            code,
            reason,
        }
    }

    /// The server's error code (WRONGTYPE, NOPERM, ...), when Redis answered with an error.
    pub fn code(&self) -> Option<&str> {
        match self {
            Error::Redis { code, .. } => code.as_deref(),
            _ => None,
        }
    }

    /// Whether Redis refused the login: no password was given to a server that wants one
    /// (NOAUTH), or the user name or password was refused (WRONGPASS). Nothing can be done
    /// on that connection; a command that reports refusals one by one stops at this one.
    pub fn is_auth(&self) -> bool {
        matches!(self.code(), Some("NOAUTH" | "WRONGPASS"))
    }

    /// Whether Redis refused this one command (an error reply) while the connection stays
    /// usable: not a failure of the link, and not a refused login ([`Error::is_auth`]).
    pub fn is_refusal(&self) -> bool {
        matches!(self, Error::Redis { .. }) && !self.is_auth()
    }

    /// Whether Redis refused because the ACL user may not access a key (rather than run the
    /// command): `NOPERM this user has no permissions to access one of the keys ...` (7.0),
    /// `NOPERM No permissions to access a key` (7.2+, Valkey).
    pub fn is_key_denied(&self) -> bool {
        match self {
            Error::Redis { code, reason, .. } => {
                code.as_deref() == Some("NOPERM")
                    && reason.contains("access")
                    && reason.contains("key")
            }
            _ => false,
        }
    }

    /// Whether a retry after reconnecting might succeed (the server or the link failed,
    /// rather than the server refusing the operation).
    pub fn is_transient(&self) -> bool {
        match self {
            Error::Unreachable { .. } | Error::TimedOut { .. } => true,
            Error::Redis { code, .. } => code.as_deref().is_some_and(|c| TRANSIENT.contains(&c)),
            _ => false,
        }
    }

    /// Whether trying again cannot help: a wrong key type, a missing right or password, a
    /// script Redis will not keep, a reply qctl cannot read, or bad input. Loops stop at once
    /// on these instead of retrying.
    pub fn is_permanent(&self) -> bool {
        match self {
            // A slow reply is neither: the same call times out again, but other calls work.
            Error::Unreachable { .. } | Error::TimedOut { .. } | Error::Slow { .. } => false,
            Error::LeaseLost { .. } => true,
            Error::Redis { code, reason, .. } => match code.as_deref() {
                Some(c) if PERMANENT.contains(&c) => true,
                Some("ERR") => {
                    reason.contains("unknown command") || reason.contains("unknown subcommand")
                }
                Some(_) => false,
                // Not an error reply: a reply of a shape qctl cannot use.
                None => true,
            },
            Error::Usage(_) | Error::BadInput(_) | Error::NothingDone(_) => true,
        }
    }

    /// Whether a call that failed so may have been carried out all the same: the link failed
    /// or no reply came within `--response-timeout` (the call may have reached Redis and run,
    /// its reply lost), or the reply could not be read. A change that failed so may or may
    /// not have been made.
    pub fn outcome_unknown(&self) -> bool {
        match self {
            Error::Unreachable { .. } | Error::TimedOut { .. } | Error::Slow { .. } => true,
            Error::Redis { code, .. } => code.is_none(),
            _ => false,
        }
    }

    /// Whether Redis did not answer a call within `--response-timeout` although it is
    /// reachable: its reply (or request) could not travel in that time. Such a call is not
    /// worth repeating as it is.
    pub fn is_slow(&self) -> bool {
        matches!(self, Error::Slow { .. })
    }

    /// Tells what a call that timed out on `redis` met: when a fresh connection is answered
    /// at once, the server is reachable and serving, and the call's own reply was too slow
    /// ([`Error::Slow`]); otherwise the error stays as it is. Other errors pass unchanged.
    /// Used where one call moves many bytes (records, reservations).
    pub async fn confirm(self, redis: &super::conn::Redis) -> Error {
        let Error::TimedOut { server, op, reason } = self else {
            return self;
        };
        if redis.answers_elsewhere().await {
            Error::Slow {
                server,
                op,
                timeout: redis.response_timeout(),
            }
        } else {
            Error::TimedOut { server, op, reason }
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

/// The error a redis-rs error wraps (an I/O error, a TLS error, ...), when it wraps one.
fn wrapped(err: &redis::RedisError) -> Option<&(dyn std::error::Error + Send + Sync + 'static)> {
    use std::error::Error as _;
    // redis-rs keeps the error it wraps in an `Arc` and hands the `Arc` out as the source.
    let inner = err
        .source()?
        .downcast_ref::<std::sync::Arc<dyn std::error::Error + Send + Sync>>()?;
    Some(&**inner)
}

/// The TLS error behind a redis-rs error: straight, or inside the I/O error of the
/// connection.
fn rustls_error(err: &redis::RedisError) -> Option<&rustls::Error> {
    let inner = wrapped(err)?;
    if let Some(tls) = inner.downcast_ref::<rustls::Error>() {
        return Some(tls);
    }
    inner
        .downcast_ref::<std::io::Error>()?
        .get_ref()?
        .downcast_ref::<rustls::Error>()
}

/// A TLS failure in words: an untrusted, mismatched or expired server certificate, a client
/// certificate the server wants or refuses, a failed handshake (exit 3), or a system trust
/// store that cannot be loaded (exit 6). None when `err` is no TLS failure.
fn tls_error(server: &str, op: &dyn fmt::Display, err: &redis::RedisError) -> Option<Error> {
    if let Some(store) = wrapped(err).and_then(|e| e.downcast_ref::<rustls_native_certs::Error>()) {
        return Some(Error::BadInput(format!(
            "cannot load the system's trust store for {server} (SSL_CERT_FILE, SSL_CERT_DIR): {store}"
        )));
    }
    let reason = match rustls_error(err) {
        Some(tls) => tls_reason(tls),
        None if is_transport(err) => tls_reason(&rustls_error_in_text(&err.to_string())?),
        None => return None,
    };
    Some(Error::Unreachable {
        server: server.to_string(),
        op: op.to_string(),
        reason,
    })
}

/// Whether a redis-rs error is a TLS failure that [`Error::from_redis`] tells in words.
pub fn is_tls_failure(err: &redis::RedisError) -> bool {
    rustls_error(err).is_some()
        || (is_transport(err) && rustls_error_in_text(&err.to_string()).is_some())
}

/// The TLS failure that a message of the client library tells in words only, read back
/// from rustls's own wording: the cluster client keeps the text of the error it wraps
/// (`Failed to create initial connections - Io: received fatal alert: CertificateRequired`),
/// not the error.
fn rustls_error_in_text(text: &str) -> Option<rustls::Error> {
    use rustls::{AlertDescription as Alert, CertificateError as Cert};
    let after = |marker: &str| text.find(marker).map(|at| &text[at + marker.len()..]);
    let word = |rest: &str| -> String {
        rest.chars()
            .take_while(char::is_ascii_alphanumeric)
            .collect()
    };
    if let Some(rest) = after("received fatal alert: ") {
        let name = word(rest);
        return (0..=u8::MAX)
            .map(Alert::from)
            .find(|alert| format!("{alert:?}") == name)
            .map(rustls::Error::AlertReceived);
    }
    if after("received corrupt message").is_some() {
        return Some(rustls::Error::InvalidMessage(
            rustls::InvalidMessage::InvalidContentType,
        ));
    }
    if after("received unexpected message").is_some()
        || after("received unexpected handshake message").is_some()
    {
        return Some(rustls::Error::InappropriateMessage {
            expect_types: Vec::new(),
            got_type: rustls::ContentType::Unknown(0),
        });
    }
    let rest = after("invalid peer certificate: ")?;
    let number_after = |marker: &str| -> Option<u64> {
        let at = rest.find(marker)? + marker.len();
        rest[at..]
            .chars()
            .take_while(char::is_ascii_digit)
            .collect::<String>()
            .parse()
            .ok()
    };
    let unix =
        |secs| rustls::pki_types::UnixTime::since_unix_epoch(std::time::Duration::from_secs(secs));
    let cert = if let Some(names) = rest.strip_prefix("certificate not valid for name \"") {
        let (expected, presented) = names.split_once("\"; certificate ")?;
        let presented = match presented.strip_prefix("is only valid for ") {
            Some(list) => list
                .split(", ")
                .flat_map(|name| name.split(" or "))
                .map(str::to_string)
                .collect(),
            None => Vec::new(),
        };
        Cert::NotValidForNameContext {
            expected: rustls::pki_types::ServerName::try_from(expected.to_string()).ok()?,
            presented,
        }
    } else if rest.starts_with("certificate expired: ") {
        Cert::ExpiredContext {
            time: unix(number_after("verification time ")?),
            not_after: unix(number_after("is not valid after ")?),
        }
    } else if rest.starts_with("certificate not valid yet: ") {
        Cert::NotValidYetContext {
            time: unix(number_after("verification time ")?),
            not_before: unix(number_after("is not valid before ")?),
        }
    } else {
        let name = word(rest);
        [
            Cert::BadEncoding,
            Cert::Expired,
            Cert::NotValidYet,
            Cert::Revoked,
            Cert::UnhandledCriticalExtension,
            Cert::UnknownIssuer,
            Cert::UnknownRevocationStatus,
            Cert::ExpiredRevocationList,
            Cert::BadSignature,
            Cert::NotValidForName,
            Cert::InvalidPurpose,
            Cert::ApplicationVerificationFailure,
        ]
        .into_iter()
        .find(|cert| format!("{cert:?}") == name)
        .unwrap_or_else(|| {
            Cert::Other(rustls::OtherError(std::sync::Arc::new(
                std::io::Error::other(rest.trim().to_string()),
            )))
        })
    };
    Some(rustls::Error::InvalidCertificate(cert))
}

fn tls_reason(err: &rustls::Error) -> String {
    use rustls::{AlertDescription as Alert, CertificateError as Cert};
    match err {
        rustls::Error::InvalidCertificate(cert) => match cert {
            Cert::UnknownIssuer | Cert::BadSignature => format!(
                "certificate not trusted ({}): the server's certificate is not signed by a CA \
                 of --tls-ca-cert or of the system's trust store",
                variant(cert)
            ),
            Cert::NotValidForName => {
                "certificate not valid for this host name (NotValidForName)".to_string()
            }
            Cert::NotValidForNameContext {
                expected,
                presented,
            } => {
                let names: Vec<String> = presented.iter().map(|n| plain_name(n)).collect();
                format!(
                    "certificate not valid for the host name {} (NotValidForName): it is for {}",
                    expected.to_str(),
                    if names.is_empty() {
                        "no name".to_string()
                    } else {
                        names.join(", ")
                    }
                )
            }
            Cert::Expired | Cert::ExpiredContext { .. } => {
                format!("certificate expired (Expired): {cert}")
            }
            Cert::NotValidYet | Cert::NotValidYetContext { .. } => {
                format!("certificate not valid yet (NotValidYet): {cert}")
            }
            Cert::Other(other) => format!("certificate not accepted ({other})"),
            _ => format!("certificate not accepted ({})", variant(cert)),
        },
        rustls::Error::AlertReceived(Alert::CertificateRequired) => {
            "the server requires a client certificate (CertificateRequired): give --tls-cert \
             and --tls-key"
                .to_string()
        }
        rustls::Error::AlertReceived(
            alert @ (Alert::BadCertificate
            | Alert::UnknownCA
            | Alert::CertificateUnknown
            | Alert::UnsupportedCertificate
            | Alert::CertificateExpired
            | Alert::CertificateRevoked
            | Alert::AccessDenied),
        ) => format!("the server refused the client certificate ({alert:?})"),
        rustls::Error::AlertReceived(Alert::HandshakeFailure) => {
            "the server ended the TLS handshake (HandshakeFailure): it may require a client \
             certificate (--tls-cert and --tls-key)"
                .to_string()
        }
        rustls::Error::AlertReceived(alert) => {
            format!("the server ended the TLS handshake ({})", variant(alert))
        }
        rustls::Error::InvalidMessage(_)
        | rustls::Error::InappropriateMessage { .. }
        | rustls::Error::InappropriateHandshakeMessage { .. } => format!(
            "TLS handshake failed ({}): is this port a TLS port?",
            variant(err)
        ),
        other => format!("TLS failed ({})", variant(other)),
    }
}

/// The name of an enum's variant from its `Debug` form, without the fields.
fn variant(value: &impl fmt::Debug) -> String {
    let text = format!("{value:?}");
    text.split(['(', '{', ' '])
        .next()
        .unwrap_or_default()
        .to_string()
}

/// `DnsName("redis.example")` -> `redis.example`, `IpAddress(10.0.0.1)` -> `10.0.0.1`.
fn plain_name(name: &str) -> String {
    match name.split_once('(') {
        Some((_, rest)) => rest.trim_end_matches(')').trim_matches('"').to_string(),
        None => name.to_string(),
    }
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
            return Error::from_redis("", "", e.clone()).exit_code();
        }
    }
    ExitCode::Failure
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tls_failures_are_told_in_words() {
        use rustls::{AlertDescription, CertificateError, OtherError};
        let reason = |e| tls_reason(&e);
        assert!(reason(rustls::Error::InvalidCertificate(
            CertificateError::UnknownIssuer
        ))
        .starts_with("certificate not trusted (UnknownIssuer)"));
        let other = rustls::Error::InvalidCertificate(CertificateError::Other(OtherError(
            std::sync::Arc::new(std::io::Error::other("UnsupportedCertVersion")),
        )));
        assert_eq!(
            reason(other),
            "certificate not accepted (UnsupportedCertVersion)"
        );
        assert!(reason(rustls::Error::AlertReceived(
            AlertDescription::CertificateRequired
        ))
        .contains("--tls-cert and --tls-key"));
        assert_eq!(
            reason(rustls::Error::AlertReceived(AlertDescription::UnknownCA)),
            "the server refused the client certificate (UnknownCA)"
        );
        assert_eq!(plain_name("DnsName(\"redis.example\")"), "redis.example");
        assert_eq!(plain_name("IpAddress(10.0.0.1)"), "10.0.0.1");
        assert_eq!(
            variant(&CertificateError::NotValidForName),
            "NotValidForName"
        );
    }

    #[test]
    fn tls_failures_told_in_text_only_read_as_the_failures_themselves() {
        use rustls::pki_types::{ServerName, UnixTime};
        use rustls::{AlertDescription, CertificateError};
        let at = |secs| UnixTime::since_unix_epoch(std::time::Duration::from_secs(secs));
        let failures = [
            rustls::Error::AlertReceived(AlertDescription::CertificateRequired),
            rustls::Error::AlertReceived(AlertDescription::UnknownCA),
            rustls::Error::AlertReceived(AlertDescription::HandshakeFailure),
            rustls::Error::InvalidCertificate(CertificateError::UnknownIssuer),
            rustls::Error::InvalidCertificate(CertificateError::BadSignature),
            rustls::Error::InvalidCertificate(CertificateError::NotValidForNameContext {
                expected: ServerName::try_from("127.0.0.1").unwrap(),
                presented: vec![
                    "DnsName(\"redis.example\")".into(),
                    "DnsName(\"other.example\")".into(),
                    "IpAddress(10.0.0.1)".into(),
                ],
            }),
            rustls::Error::InvalidCertificate(CertificateError::ExpiredContext {
                time: at(2_000_000_000),
                not_after: at(1_900_000_000),
            }),
            rustls::Error::InvalidCertificate(CertificateError::NotValidYetContext {
                time: at(1_900_000_000),
                not_before: at(2_000_000_000),
            }),
            rustls::Error::InvalidMessage(rustls::InvalidMessage::InvalidContentType),
        ];
        for failure in failures {
            let text = format!("Failed to create initial connections - Io: {failure}");
            let read = rustls_error_in_text(&text).unwrap_or_else(|| panic!("{text}"));
            assert_eq!(tls_reason(&read), tls_reason(&failure), "{text}");
            let err = redis::RedisError::from((
                redis::ErrorKind::Io,
                "Failed to create initial connections",
                failure.to_string(),
            ));
            let error = Error::from_redis("127.0.0.1:7000 (TLS)", "connect", err);
            assert_eq!(error.exit_code(), ExitCode::Unreachable, "{error}");
            assert!(error.to_string().contains(&tls_reason(&failure)), "{error}");
        }
        assert!(rustls_error_in_text("Connection refused (os error 111)").is_none());
    }

    #[test]
    fn the_protocol_error_of_a_long_command_before_a_login_is_a_refused_login() {
        for reply in [
            &b"-ERR Protocol error: unauthenticated multibulk length\r\n"[..],
            b"-ERR Protocol error: unauthenticated bulk length\r\n",
            b"-NOAUTH Authentication required.\r\n",
        ] {
            let redis::Value::ServerError(e) = redis::parse_redis_value(reply).unwrap() else {
                panic!("not an error reply");
            };
            let error = Error::from_redis("h:1", "RPUSH q:active", e.into());
            assert_eq!(error.code(), Some("NOAUTH"), "{error}");
            assert!(error.is_auth() && error.is_permanent() && !error.is_transient());
            assert!(!error.is_refusal(), "{error}");
            assert_eq!(error.exit_code(), ExitCode::Redis);
        }
    }

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
