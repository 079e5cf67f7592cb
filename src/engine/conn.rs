//! Connections from a URL (`redis://`, `rediss://`, `redis+unix://`, `unix://`, `/db`) with
//! connect and response timeouts, an ACL user and password, TLS files, and Redis Cluster.
//! Every failure names the server as host:port, never with a password.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use redis::aio::{ConnectionLike, ConnectionManager, ConnectionManagerConfig};
use redis::cluster::{ClusterClient, ClusterClientBuilder};
use redis::cluster_async::ClusterConnection;
use redis::{
    ClientTlsConfig, ConnectionAddr, FromRedisValue, IntoConnectionInfo, RedisFuture,
    TlsCertificates, TlsMode,
};

use rustls::pki_types::pem::{Error as PemError, PemObject};
use rustls::pki_types::{CertificateDer, PrivateKeyDer};

use super::error::{is_transport, redact, Error};

/// How to authenticate and secure a connection, beside what the URL says.
#[derive(Clone, Debug, Default)]
pub struct Access {
    /// ACL user; overrides a user in the URL.
    pub user: Option<String>,
    /// Password; overrides a password in the URL. Never printed.
    pub password: Option<Secret>,
    /// Password for a URL without one (from the environment). Never printed.
    pub default_password: Option<Secret>,
    /// PEM file of the CA that signed the server's certificate (instead of the system store).
    pub tls_ca_cert: Option<PathBuf>,
    /// PEM files of a client certificate and its key, for `tls-auth-clients yes`.
    pub tls_cert: Option<PathBuf>,
    pub tls_key: Option<PathBuf>,
    /// Do not verify the server's certificate.
    pub tls_insecure: bool,
    /// The URL names one node of a Redis Cluster; keys are routed to the node owning them.
    pub cluster: bool,
    /// How a password is given, for the words of a refused login
    /// (`$QCTL_REDIS_PASSWORD or --password-file FILE`).
    pub password_from: Option<&'static str>,
}

/// A password: shown as `***` by `Debug`.
#[derive(Clone, Default)]
pub struct Secret(pub String);

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("***")
    }
}

#[derive(Clone)]
enum Client {
    Single(Box<redis::Client>),
    Cluster(Box<ClusterClient>),
}

/// Where and how to connect; parsed once from the URL.
#[derive(Clone)]
pub struct ServerSpec {
    client: Client,
    server: Arc<str>,
    pub connect_timeout: Duration,
    pub response_timeout: Duration,
    /// How many times a lost connection is re-established before a call fails.
    pub reconnect_retries: usize,
    /// rediss://: the connection is TLS.
    tls: bool,
    /// A client certificate is offered.
    client_cert: bool,
    /// The ACL user of the login, when one is named.
    user: Option<Arc<str>>,
    /// A password was given (in the URL, by --password-file or the environment).
    password: bool,
    /// How a password is given ([`Access::password_from`]).
    password_from: &'static str,
    /// The node of the URL as messages name it, without "(cluster)".
    node: Arc<str>,
    /// Where the slots of a cluster were served when last read, shared by every connection
    /// of this spec.
    layout: Arc<Layout>,
}

/// The masters of a cluster and the slots each served when last read. A call that fails on
/// the link names the master of its slot; after a failure the layout is read again once
/// calls succeed again (a failover has then moved the slots to a replica).
#[derive(Default)]
struct Layout {
    /// (first slot, last slot, host:port of the master).
    ranges: Mutex<Vec<(u16, u16, String)>>,
    /// `ranges` before their last change: a call sent before it names the master it went to.
    previous: Mutex<Vec<(u16, u16, String)>>,
    /// When a call last failed on the link.
    failed_at: Mutex<Option<Instant>>,
    /// A task waits to read the layout again.
    rereading: AtomicBool,
    /// A task follows a slot whose master stopped answering (see [`Redis::follow_slot`]).
    following: AtomicBool,
    /// How many times `ranges` changed, and how many calls failed on the link: each call
    /// notes both when sent, so that a timeout during which either moved is not taken for a
    /// reply too slow to travel.
    changes: AtomicU64,
    failures: AtomicU64,
}

impl Layout {
    fn master_of(&self, slot: u16) -> Option<String> {
        self.master_as_of(slot, None)
    }

    /// The master of `slot` when the layout had changed `changes` times (None: now): now, or
    /// before the last change (None when it changed more since).
    fn master_as_of(&self, slot: u16, changes: Option<u64>) -> Option<String> {
        let known = self.ranges.lock().unwrap_or_else(|e| e.into_inner());
        let since = changes.map_or(0, |c| self.changes.load(Ordering::SeqCst).saturating_sub(c));
        match since {
            0 => master_in(&known, slot).map(str::to_string),
            1 => {
                let previous = self.previous.lock().unwrap_or_else(|e| e.into_inner());
                master_in(&previous, slot).map(str::to_string)
            }
            _ => None,
        }
    }

    fn set(&self, ranges: Vec<(u16, u16, String)>) {
        let mut known = self.ranges.lock().unwrap_or_else(|e| e.into_inner());
        if *known != ranges {
            let before = std::mem::replace(&mut *known, ranges);
            *self.previous.lock().unwrap_or_else(|e| e.into_inner()) = before;
            self.changes.fetch_add(1, Ordering::SeqCst);
        }
    }

    /// The distinct masters, in slot order.
    fn masters(&self) -> Vec<String> {
        let ranges = self.ranges.lock().unwrap_or_else(|e| e.into_inner());
        distinct_masters(&ranges).map(str::to_string).collect()
    }
}

/// The masters of `ranges`, each once, in slot order.
fn distinct_masters(ranges: &[(u16, u16, String)]) -> impl Iterator<Item = &str> {
    ranges
        .iter()
        .enumerate()
        .filter(|(i, (_, _, master))| !ranges[..*i].iter().any(|(_, _, m)| m == master))
        .map(|(_, (_, _, master))| master.as_str())
}

/// The master serving `slot` in `ranges`.
fn master_in(ranges: &[(u16, u16, String)], slot: u16) -> Option<&str> {
    ranges
        .iter()
        .find(|(first, last, _)| (*first..=*last).contains(&slot))
        .map(|(_, _, master)| master.as_str())
}

/// The slot ranges of a `CLUSTER SLOTS` reply and the `host:port` of the master serving
/// each.
fn parse_slot_ranges(slots: redis::Value) -> Vec<(u16, u16, String)> {
    let redis::Value::Array(slots) = slots else {
        return Vec::new();
    };
    let mut ranges = Vec::new();
    for range in slots {
        let redis::Value::Array(parts) = range else {
            continue;
        };
        let number = |i: usize| -> Option<u16> {
            parts
                .get(i)
                .and_then(|v| redis::from_redis_value_ref(v).ok())
        };
        let Some(redis::Value::Array(master)) = parts.get(2) else {
            continue;
        };
        let host: Option<String> = master
            .first()
            .and_then(|v| redis::from_redis_value_ref(v).ok());
        let port: Option<u16> = master
            .get(1)
            .and_then(|v| redis::from_redis_value_ref(v).ok());
        if let (Some(first), Some(last), Some(host), Some(port)) =
            (number(0), number(1), host, port)
        {
            ranges.push((first, last, format!("{host}:{port}")));
        }
    }
    ranges
}

/// `host:port` as a cluster node to route to.
fn node_at(address: &str) -> Option<Node> {
    let (host, port) = address.rsplit_once(':')?;
    Some(Node::At {
        host: host.to_string(),
        port: port.parse().ok()?,
    })
}

impl std::fmt::Debug for ServerSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerSpec")
            .field("server", &self.server)
            .finish()
    }
}

impl ServerSpec {
    /// Parses a Redis URL. The error quotes the URL with its password replaced by `***`.
    pub fn parse(
        url: &str,
        connect_timeout: Duration,
        response_timeout: Duration,
    ) -> Result<Self, Error> {
        Self::open(url, &Access::default(), connect_timeout, response_timeout)
    }

    /// Parses a Redis URL and applies `access` to it.
    pub fn open(
        url: &str,
        access: &Access,
        connect_timeout: Duration,
        response_timeout: Duration,
    ) -> Result<Self, Error> {
        let shown = hide_secrets(url);
        let bad = |why: &str| {
            Error::Usage(format!(
                "invalid Redis URL {shown:?}: {}",
                conceal(&redact(why), url).replace(" - InvalidClientConfig", "")
            ))
        };
        if let Some(why) = super::redis_url::problem(url) {
            return Err(bad(&why));
        }
        let mut info = url
            .into_connection_info()
            .map_err(|e| bad(&redact(&e.to_string())))?;
        let mut settings = info.redis_settings().clone().set_skip_set_lib_name();
        if let Some(user) = &access.user {
            settings = settings.set_username(user);
        }
        let password = access.password.as_ref().or(match settings.password() {
            Some(_) => None,
            None => access.default_password.as_ref(),
        });
        if let Some(password) = password {
            settings = settings.set_password(&password.0);
        }
        let user = settings.username().map(Arc::from);
        let given_password = settings.password().is_some();
        info = info.set_redis_settings(settings);
        let tls = matches!(info.addr(), ConnectionAddr::TcpTls { .. });
        let wants_tls = access.tls_ca_cert.is_some()
            || access.tls_cert.is_some()
            || access.tls_key.is_some()
            || access.tls_insecure;
        if wants_tls && !tls {
            return Err(Error::Usage(format!(
                "the --tls-* options need a rediss:// URL, not {shown:?}"
            )));
        }
        if access.tls_cert.is_some() != access.tls_key.is_some() {
            return Err(Error::Usage(
                "--tls-cert and --tls-key go together: give both or neither".into(),
            ));
        }
        if access.tls_insecure {
            // A single-node client keeps this flag whatever certificates it is given; the
            // cluster client is told the mode below.
            let mut addr = info.addr().clone();
            if let ConnectionAddr::TcpTls { insecure, .. } = &mut addr {
                *insecure = true;
            }
            info = info.set_addr(addr);
        }
        let certificates = if tls && (access.tls_ca_cert.is_some() || access.tls_cert.is_some()) {
            Some(TlsCertificates {
                root_cert: access.tls_ca_cert.as_deref().map(ca_file).transpose()?,
                client_tls: match (&access.tls_cert, &access.tls_key) {
                    (Some(cert), Some(key)) => Some(client_files(cert, key)?),
                    _ => None,
                },
            })
        } else {
            None
        };
        let client_cert = certificates
            .as_ref()
            .is_some_and(|c| c.client_tls.is_some());
        let db = info.redis_settings().db();
        let server = describe(info.addr(), db);
        let client = if access.cluster {
            if db != 0 {
                return Err(Error::Usage(format!(
                    "Redis Cluster has only database 0, but {shown:?} names database {db}"
                )));
            }
            if matches!(info.addr(), ConnectionAddr::Unix(_)) {
                return Err(Error::Usage(format!(
                    "Redis Cluster is reached over TCP: {shown:?} is a Unix socket"
                )));
            }
            let mut builder = ClusterClientBuilder::new(vec![info])
                .connection_timeout(connect_timeout)
                .response_timeout(response_timeout);
            if tls {
                // The builder takes the mode from the URL's node only when it has none, and
                // `certs` sets Secure: without this, --tls-insecure with --tls-ca-cert or
                // --tls-cert would verify the certificates of the nodes all the same.
                builder = builder.tls(if access.tls_insecure {
                    TlsMode::Insecure
                } else {
                    TlsMode::Secure
                });
            }
            if let Some(certificates) = certificates {
                builder = builder.certs(certificates);
            }
            Client::Cluster(Box::new(builder.build().map_err(|e| bad(&e.to_string()))?))
        } else {
            let client = match certificates {
                Some(certificates) => {
                    redis::Client::build_with_tls(info, certificates).map_err(|e| {
                        Error::BadInput(format!(
                            "the --tls-* files cannot be used: {}",
                            e.to_string().replace(" - InvalidClientConfig", "")
                        ))
                    })?
                }
                None => redis::Client::open(info).map_err(|e| bad(&redact(&e.to_string())))?,
            };
            Client::Single(Box::new(client))
        };
        Ok(ServerSpec {
            client,
            server: if access.cluster {
                format!("{server} (cluster)").into()
            } else {
                server.clone().into()
            },
            connect_timeout,
            response_timeout,
            reconnect_retries: 1,
            tls,
            client_cert,
            user,
            password: given_password,
            password_from: access.password_from.unwrap_or("the URL"),
            node: server.into(),
            layout: Arc::default(),
        })
    }

    /// The server as shown in messages: `host:port`, `host:port/db` for db > 0.
    pub fn server(&self) -> &str {
        &self.server
    }

    /// Whether keys are routed across the nodes of a Redis Cluster.
    pub fn is_cluster(&self) -> bool {
        matches!(self.client, Client::Cluster(_))
    }

    /// Opens a connection that reconnects by itself after a failure (the failed call still
    /// returns its error).
    pub async fn connect(&self) -> Result<Redis, Error> {
        let conn = match &self.client {
            Client::Single(client) => {
                let config = ConnectionManagerConfig::new()
                    .set_connection_timeout(Some(self.connect_timeout))
                    .set_response_timeout(Some(self.response_timeout))
                    .set_number_of_retries(self.reconnect_retries)
                    .set_min_delay(Duration::from_millis(100))
                    .set_max_delay(Duration::from_secs(2));
                // The manager retries a failed first connection (`reconnect_retries`): the
                // whole of it, retries and the HELLO below included, stays within
                // --connect-timeout, so a port that never answers is given up on after that
                // time, not after a multiple or after --response-timeout more.
                let deadline = tokio::time::Instant::now() + self.connect_timeout;
                let timed_out =
                    || redis::RedisError::from(std::io::Error::from(std::io::ErrorKind::TimedOut));
                let first = ConnectionManager::new_with_config((**client).clone(), config);
                let mut manager = tokio::time::timeout_at(deadline, first)
                    .await
                    .unwrap_or_else(|_| Err(timed_out()))
                    .map_err(|e| self.connect_error(e))?;
                // Connecting sends nothing but AUTH (no CLIENT SETINFO), so one HELLO checks
                // that a Redis server is there: a server speaking another protocol, a silent
                // one, or (with TLS 1.3, whose handshake ends on the client's side before the
                // server has checked the client's certificate) a refused client certificate
                // shows here, as a failure to connect, not at the first command (often as a
                // bare "broken pipe"). HELLO without arguments changes nothing, and a
                // least-privilege user may run it (a PING would be refused and counted as an
                // error by the server); an error reply of any kind (NOAUTH) still means a
                // Redis server is there.
                let hello = redis::cmd("HELLO");
                let hello = hello.query_async::<redis::Value>(&mut manager);
                if let Err(e) = tokio::time::timeout_at(deadline, hello)
                    .await
                    .unwrap_or_else(|_| Err(timed_out()))
                {
                    if is_transport(&e) || e.kind() == redis::ErrorKind::Parse {
                        return Err(self.failed_connect(e, true));
                    }
                    // A server that wants a password and got none: every command but AUTH
                    // would be refused, so it is said once, here, for every command alike.
                    if e.code() == Some("NOAUTH") {
                        return Err(self.failed_connect(e, true));
                    }
                }
                Conn::Single(manager)
            }
            Client::Cluster(client) => {
                let config = redis::cluster::ClusterConfig::new()
                    .set_connection_timeout(self.connect_timeout)
                    .set_response_timeout(self.response_timeout);
                Conn::Cluster(Box::new(Routed {
                    conn: client
                        .get_async_connection_with_config(config)
                        .await
                        .map_err(|e| self.connect_error(e))?,
                    layout: self.layout.clone(),
                    sent: Sent::default(),
                }))
            }
        };
        let mut redis = Redis {
            conn,
            server: self.server.clone(),
            rights_checked: Arc::default(),
            spec: Arc::new(self.clone()),
        };
        if redis.is_cluster() && self.layout.ranges.lock().is_ok_and(|r| r.is_empty()) {
            // Only to name a master in messages: a user without CLUSTER SLOTS is refused
            // by the client library before this.
            if let Ok(ranges) = redis.slot_ranges().await {
                self.layout.set(ranges);
            }
        }
        Ok(redis)
    }
}

impl ServerSpec {
    /// A failure to connect, with a hint where TLS makes the cause likely: a plain port never
    /// answers a TLS handshake, and a server that wants a client certificate drops the
    /// connection of a client without one.
    fn connect_error(&self, err: redis::RedisError) -> Error {
        self.failed_connect(err, false)
    }

    /// As [`Self::connect_error`]; `shaken` when the TLS handshake had ended (the first
    /// command went unanswered), so that a timeout is not blamed on a port without TLS.
    fn failed_connect(&self, err: redis::RedisError, shaken: bool) -> Error {
        let told = super::error::is_tls_failure(&err);
        let timed_out = err.is_timeout() && !told;
        let dropped = err.is_connection_dropped() && !err.is_connection_refusal() && !told;
        let mut error = self.login_refused(Error::from_redis(&self.server, "connect", err));
        if let (true, Error::Unreachable { reason, .. }) = (self.tls, &mut error) {
            if timed_out && shaken && self.client_cert {
                reason.push_str(
                    " (no answer after the TLS handshake: the server may refuse the client \
                     certificate of --tls-cert)",
                );
            } else if timed_out && shaken {
                reason.push_str(
                    " (no answer after the TLS handshake: the server may require a client \
                     certificate, --tls-cert and --tls-key)",
                );
            } else if timed_out {
                reason.push_str(" (a port without TLS never answers the TLS handshake)");
            } else if dropped && self.client_cert {
                reason.push_str(
                    " (the server dropped the TLS connection: it may refuse the client \
                     certificate of --tls-cert)",
                );
            } else if dropped {
                reason.push_str(
                    " (the server dropped the TLS connection: it may require a client \
                     certificate, --tls-cert and --tls-key)",
                );
            }
        }
        error
    }

    /// A refused login in words ([`Error::is_auth`]): whether a password was given, and how
    /// to give one. Other errors pass unchanged.
    fn login_refused(&self, error: Error) -> Error {
        let Error::Redis {
            server, op, code, ..
        } = &error
        else {
            return error;
        };
        let whose = match &self.user {
            Some(user) => format!(" for the user {user:?}"),
            None => String::new(),
        };
        let reason = match code.as_deref() {
            Some("NOAUTH") if !self.password => format!(
                "it requires a password, and none was given{whose} (NOAUTH): give it with {}",
                self.password_from
            ),
            Some("NOAUTH") => format!(
                "it requires a password, and the connection has not logged in with the one \
                 given{whose} (NOAUTH)"
            ),
            Some("WRONGPASS") if self.password => format!(
                "authentication failed: the password given{whose} was refused (a wrong user \
                 name or password, a disabled user, or a server that has no password)"
            ),
            Some("WRONGPASS") => format!(
                "authentication failed{whose}, and no password was given: give it with {}",
                self.password_from
            ),
            _ => return error,
        };
        // The connection, not a command, was refused.
        let op = if op == "connect" {
            "the connection".to_string()
        } else {
            op.clone()
        };
        Error::Redis {
            server: server.clone(),
            op,
            code: code.clone(),
            reason,
        }
    }
}

/// Reads a PEM file named by a --tls-* option (`what` says which).
fn read_pem(path: &Path, what: &str) -> Result<Vec<u8>, Error> {
    std::fs::read(path).map_err(|e| {
        Error::BadInput(format!(
            "cannot read the {what} file {}: {e}",
            path.display()
        ))
    })
}

/// The certificates of a PEM file; an error names the file when there are none or the PEM
/// is damaged.
fn pem_certificates(
    pem: &[u8],
    path: &Path,
    what: &str,
) -> Result<Vec<CertificateDer<'static>>, Error> {
    let certs = CertificateDer::pem_slice_iter(pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| {
            Error::BadInput(format!(
                "the {what} file {} is not valid PEM: {}",
                path.display(),
                pem_problem(&e)
            ))
        })?;
    if certs.is_empty() {
        return Err(Error::BadInput(format!(
            "the {what} file {} holds no certificate (expected PEM: -----BEGIN CERTIFICATE-----)",
            path.display()
        )));
    }
    Ok(certs)
}

fn pem_problem(err: &PemError) -> String {
    match err {
        PemError::MissingSectionEnd { .. } => "a section has no -----END line".into(),
        PemError::IllegalSectionStart { .. } => "a -----BEGIN line is damaged".into(),
        PemError::Base64Decode(e) => format!("bad base64: {e}"),
        PemError::NoItemsFound => "nothing in PEM form".into(),
        other => other.to_string(),
    }
}

/// The CA file of --tls-ca-cert, checked: at least one certificate rustls can use as a
/// trust anchor.
fn ca_file(path: &Path) -> Result<Vec<u8>, Error> {
    const WHAT: &str = "CA certificate (--tls-ca-cert)";
    let pem = read_pem(path, WHAT)?;
    let mut store = rustls::RootCertStore::empty();
    for cert in pem_certificates(&pem, path, WHAT)? {
        store.add(cert).map_err(|e| {
            Error::BadInput(format!(
                "the {WHAT} file {} holds a certificate that cannot be used: {}",
                path.display(),
                problem(&e)
            ))
        })?;
    }
    Ok(pem)
}

/// The client certificate and key of --tls-cert and --tls-key, checked: a certificate, a
/// private key, and the key belongs to the certificate.
fn client_files(cert: &Path, key: &Path) -> Result<ClientTlsConfig, Error> {
    const CERT: &str = "client certificate (--tls-cert)";
    const KEY: &str = "client key (--tls-key)";
    let cert_pem = read_pem(cert, CERT)?;
    let key_pem = read_pem(key, KEY)?;
    let chain = pem_certificates(&cert_pem, cert, CERT)?;
    let private = PrivateKeyDer::from_pem_slice(&key_pem).map_err(|e| {
        Error::BadInput(match e {
            PemError::NoItemsFound => format!(
                "the {KEY} file {} holds no private key (expected PEM: -----BEGIN PRIVATE KEY-----)",
                key.display()
            ),
            e => format!(
                "the {KEY} file {} is not valid PEM: {}",
                key.display(),
                pem_problem(&e)
            ),
        })
    })?;
    rustls::ClientConfig::builder()
        .with_root_certificates(rustls::RootCertStore::empty())
        .with_client_auth_cert(chain, private)
        .map_err(|e| {
            Error::BadInput(match e {
                rustls::Error::InconsistentKeys(_) => format!(
                    "the {KEY} file {} does not belong to the certificate in {}",
                    key.display(),
                    cert.display()
                ),
                e => format!(
                    "the {CERT} file {} and key {} cannot be used: {}",
                    cert.display(),
                    key.display(),
                    problem(&e)
                ),
            })
        })?;
    Ok(ClientTlsConfig {
        client_cert: cert_pem,
        client_key: key_pem,
    })
}

/// A rustls error about a local certificate or key, in words.
fn problem(err: &rustls::Error) -> String {
    match err {
        rustls::Error::InvalidCertificate(rustls::CertificateError::Other(other)) => {
            other.to_string()
        }
        rustls::Error::InvalidCertificate(cert) => {
            let text = format!("{cert:?}");
            text.split(['(', '{', ' '])
                .next()
                .unwrap_or_default()
                .to_string()
        }
        rustls::Error::General(text) => text.clone(),
        other => other.to_string(),
    }
}

/// One connection to a server, or to every node of a cluster.
#[derive(Clone)]
pub enum Conn {
    Single(ConnectionManager),
    Cluster(Box<Routed>),
}

/// A connection to every node of a cluster, with what it noted of the last call it sent.
#[derive(Clone)]
pub struct Routed {
    conn: ClusterConnection,
    layout: Arc<Layout>,
    sent: Sent,
}

/// The last call a cluster connection sent: its key and slot (to name the slot's master
/// when it fails, and to follow the slot to a new master), and the counts of the layout's
/// changes and of the failures on the link at that moment.
#[derive(Clone, Default)]
struct Sent {
    key: Vec<u8>,
    slot: Option<u16>,
    changes: u64,
    failures: u64,
}

impl Routed {
    fn note(&mut self, key: Option<&[u8]>) {
        self.sent.key.clear();
        self.sent.key.extend_from_slice(key.unwrap_or_default());
        self.sent.slot = key.map(key_slot);
        self.sent.changes = self.layout.changes.load(Ordering::SeqCst);
        self.sent.failures = self.layout.failures.load(Ordering::SeqCst);
    }
}

impl ConnectionLike for Conn {
    fn req_packed_command<'a>(&'a mut self, cmd: &'a redis::Cmd) -> RedisFuture<'a, redis::Value> {
        match self {
            Conn::Single(c) => c.req_packed_command(cmd),
            Conn::Cluster(c) => {
                c.note(command_key(cmd));
                c.conn.req_packed_command(cmd)
            }
        }
    }

    fn req_packed_commands<'a>(
        &'a mut self,
        pipeline: &'a redis::Pipeline,
        offset: usize,
        count: usize,
    ) -> RedisFuture<'a, Vec<redis::Value>> {
        match self {
            Conn::Single(c) => c.req_packed_commands(pipeline, offset, count),
            Conn::Cluster(c) => {
                c.note(pipeline.cmd_iter().find_map(command_key));
                c.conn.req_packed_commands(pipeline, offset, count)
            }
        }
    }

    fn get_db(&self) -> i64 {
        match self {
            Conn::Single(c) => c.get_db(),
            Conn::Cluster(c) => c.conn.get_db(),
        }
    }
}

/// The key of a command qctl sends (the first key of a script), or None for a command
/// without a key.
fn command_key(cmd: &redis::Cmd) -> Option<&[u8]> {
    let mut args = cmd.args_iter().filter_map(|arg| match arg {
        redis::Arg::Simple(arg) => Some(arg),
        _ => None,
    });
    let name = args.next()?;
    let is = |names: &[&str]| {
        names
            .iter()
            .any(|n| name.eq_ignore_ascii_case(n.as_bytes()))
    };
    let key = if is(&[
        "EVAL",
        "EVALSHA",
        "EVAL_RO",
        "EVALSHA_RO",
        "FCALL",
        "FCALL_RO",
    ]) {
        let keys: usize = std::str::from_utf8(args.nth(1)?).ok()?.parse().ok()?;
        if keys == 0 {
            return None;
        }
        args.next()?
    } else if is(&[
        "CLUSTER", "CONFIG", "DISCARD", "EXEC", "MULTI", "HELLO", "INFO", "SCAN", "SCRIPT", "TIME",
        "PING", "AUTH", "CLIENT",
    ]) {
        return None;
    } else {
        args.next()?
    };
    Some(key)
}

/// The cluster slot of a key: CRC16 (XMODEM) of its hash tag, or of the whole key without
/// one, modulo 16384.
pub fn key_slot(key: &[u8]) -> u16 {
    let tagged = key.iter().position(|b| *b == b'{').and_then(|open| {
        let close = key[open + 1..].iter().position(|b| *b == b'}')?;
        Some(&key[open + 1..open + 1 + close]).filter(|tag| !tag.is_empty())
    });
    crc16::State::<crc16::XMODEM>::calculate(tagged.unwrap_or(key)) % 16384
}

/// The parts of a URL that may hold a secret, however malformed it is: everything before its
/// last `@` after the scheme (user and password), and the query (`?pass=...`).
fn secret_parts(url: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let body = url.split_once("://").map_or(url, |(_, rest)| rest);
    if let Some(at) = body.rfind('@') {
        parts.push(&body[..at]);
    }
    if let Some((_, query)) = url.split_once('?') {
        parts.push(query);
    }
    parts.retain(|p| !p.is_empty());
    parts
}

/// The command of `pipe` that the server refused with `err`, as `SCARD key` (its name and
/// first argument, control characters escaped): a refusal inside a pipeline (WRONGTYPE)
/// does not say which command it answers, and the pipeline's description names no key.
fn failed_command(pipe: &redis::Pipeline, err: &redis::RedisError) -> Option<String> {
    // Only an error of the pipeline's own replies carries the index of the command.
    if !err.to_string().starts_with("Pipeline failure") {
        return None;
    }
    let index = err.clone().into_server_errors()?.first()?.0;
    let cmd = pipe.cmd_iter().nth(index)?;
    let words: Vec<String> = cmd
        .args_iter()
        .take(2)
        .filter_map(|arg| match arg {
            redis::Arg::Simple(bytes) => Some(String::from_utf8_lossy(bytes).into_owned()),
            _ => None,
        })
        .map(|word| word.chars().flat_map(escaped).collect::<String>())
        .collect();
    let (name, rest) = words.split_first()?;
    Some(
        std::iter::once(name.to_uppercase())
            .chain(rest.iter().cloned())
            .collect::<Vec<_>>()
            .join(" "),
    )
}

/// `c`, or its escape when it is a control character.
fn escaped(c: char) -> Vec<char> {
    if crate::engine::text::hidden(c) {
        c.escape_default().collect()
    } else {
        vec![c]
    }
}

/// The URL with its user, password and query replaced by `***`, for messages about a URL
/// that may not even parse.
pub fn hide_secrets(url: &str) -> String {
    conceal(url, url)
}

/// The URL without its password (in the user part, or as `pass` or `password` in the
/// query of a socket's URL), for a command line to show: the rest as it was given. A URL
/// that does not parse is None.
pub fn without_password(url: &str) -> Option<String> {
    let mut parsed = url::Url::parse(url).ok()?;
    if parsed.password().is_some() {
        parsed.set_password(None).ok()?;
    }
    if parsed.query().is_some() {
        let kept: Vec<(String, String)> = parsed
            .query_pairs()
            .filter(|(k, _)| !matches!(k.as_ref(), "pass" | "password"))
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect();
        if kept.is_empty() {
            parsed.set_query(None);
        } else {
            parsed.query_pairs_mut().clear().extend_pairs(kept);
        }
    }
    Some(parsed.to_string())
}

/// `text` with every secret part of `url` replaced by `***`.
fn conceal(text: &str, url: &str) -> String {
    let mut out = text.to_string();
    for part in secret_parts(url) {
        out = out.replace(part, "***");
    }
    out
}

fn describe(addr: &ConnectionAddr, db: i64) -> String {
    let base = match addr {
        ConnectionAddr::Tcp(host, port) => format!("{host}:{port}"),
        ConnectionAddr::TcpTls { host, port, .. } => format!("{host}:{port} (TLS)"),
        ConnectionAddr::Unix(path) => format!("unix:{}", path.display()),
        other => other.to_string(),
    };
    if db == 0 {
        base
    } else {
        format!("{base}/{db}")
    }
}

/// Where a keyless command runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Node {
    /// The server of a single-node connection (in a cluster: any node).
    This,
    /// The cluster node at this address.
    At { host: String, port: u16 },
    /// The cluster master owning this key's slot.
    Owning(String),
}

impl std::fmt::Display for Node {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Node::This => Ok(()),
            Node::At { host, port } => write!(f, " on {host}:{port}"),
            Node::Owning(key) => write!(f, " on the node of {key}"),
        }
    }
}

/// A connection to one server; cheap to clone (clones share the connection).
#[derive(Clone)]
pub struct Redis {
    conn: Conn,
    server: Arc<str>,
    /// The scripts (with their keys) whose rights were checked on this connection before
    /// their first call (`scripts::Rights`), shared by the clones.
    pub(super) rights_checked: Arc<std::sync::Mutex<std::collections::HashSet<String>>>,
    /// How it was opened, to open another (see [`Redis::answers_elsewhere`]).
    spec: Arc<ServerSpec>,
}

/// The longest [`Redis::answers_elsewhere`] waits for a fresh connection's answer.
const PROBE_LIMIT: Duration = Duration::from_secs(2);

impl Redis {
    pub fn server(&self) -> &str {
        &self.server
    }

    /// How long a call may wait for its answer (`--response-timeout`).
    pub fn response_timeout(&self) -> Duration {
        self.spec.response_timeout
    }

    /// Whether the server answers a command on a fresh connection at once (within the
    /// connect timeout, at most 2 s): after a call timed out, it tells a server that is
    /// reachable and serving (the call's own reply was too slow) from one that is not. An
    /// error reply counts as an answer, except a busy or loading server's.
    ///
    /// In a cluster the question is put to the master that served the last call's slot
    /// when the call was sent, and only if the cluster stayed as it was while the call was
    /// out: when the slots moved meanwhile, or other calls failed on the link, a failover
    /// (or a node that stopped answering) is more likely than a reply too large, and the
    /// answer is no.
    pub async fn answers_elsewhere(&self) -> bool {
        let limit = self.spec.connect_timeout.min(PROBE_LIMIT);
        let mut spec = (*self.spec).clone();
        spec.connect_timeout = limit;
        spec.response_timeout = limit;
        spec.reconnect_retries = 0;
        let node = match &self.conn {
            Conn::Single(_) => None,
            Conn::Cluster(routed) => {
                let (sent, layout) = (&routed.sent, &routed.layout);
                // The call's own failure is one.
                let failures = layout.failures.load(Ordering::SeqCst);
                if layout.changes.load(Ordering::SeqCst) != sent.changes
                    || failures > sent.failures + 1
                {
                    return false;
                }
                let Some(served) = sent
                    .slot
                    .and_then(|slot| Some((slot, layout.master_of(slot)?)))
                else {
                    return false;
                };
                Some(served)
            }
        };
        let probe = async {
            let mut fresh = spec.connect().await?;
            // TIME is served only by a server that is free to serve (not during a busy
            // script, unlike HELLO), and every user of the ACL recipe may run it.
            let time = redis::cmd("TIME");
            let Some((slot, master)) = &node else {
                return fresh.query::<redis::Value>(&time, "TIME").await.map(drop);
            };
            let ranges = fresh.slot_ranges().await?;
            match (master_in(&ranges, *slot), node_at(master)) {
                (Some(now), Some(at)) if now == master => fresh
                    .query_at::<redis::Value>(&at, &time, "TIME")
                    .await
                    .map(drop),
                _ => Err(Error::TimedOut {
                    server: master.clone(),
                    op: "TIME".into(),
                    reason: "no longer the master of the slot".into(),
                }),
            }
        };
        match tokio::time::timeout(limit, probe).await {
            Ok(Ok(())) => true,
            Ok(Err(e)) => matches!(e, Error::Redis { .. }) && !e.is_transient(),
            Err(_) => false,
        }
    }

    /// The raw connection, for calls that build their own commands.
    pub fn conn(&mut self) -> &mut Conn {
        &mut self.conn
    }

    /// Turns a redis-rs error during `op` into an engine error naming the server; in a
    /// cluster, a failure of the link names the master of the call's slot, and a call left
    /// unanswered has the slot followed to a new master ([`Redis::follow_slot`]).
    pub fn error(&self, op: impl std::fmt::Display, err: redis::RedisError) -> Error {
        let mut error = self
            .spec
            .login_refused(Error::from_redis(&self.server, op, err));
        if let Conn::Cluster(routed) = &self.conn {
            let unanswered = matches!(error, Error::TimedOut { .. });
            if let Error::Unreachable { server, .. } | Error::TimedOut { server, .. } = &mut error {
                *server = self.failed_node(routed.sent.slot, Some(routed.sent.changes));
            }
            if let (true, Some(slot)) = (unanswered, routed.sent.slot) {
                self.follow_slot(slot, &routed.sent.key);
            }
        }
        error
    }

    /// The server that holds `key` as messages name it after a failure of the link: this
    /// server, or in a cluster the master of the key's slot.
    pub fn server_of(&self, key: &str) -> String {
        match self.conn {
            Conn::Single(_) => self.server.to_string(),
            Conn::Cluster(..) => self.failed_node(Some(key_slot(key.as_bytes())), None),
        }
    }

    /// The cluster node a call on `slot` failed on: the master that served the slot when
    /// the call was sent (`sent`: the layout's count of changes then; None: now) as far as
    /// the layout tells, or, unknown, the cluster as reached through the URL's node. Notes
    /// the failure, so that the layout is read again once calls succeed again.
    fn failed_node(&self, slot: Option<u16>, sent: Option<u64>) -> String {
        let layout = &self.spec.layout;
        *layout.failed_at.lock().unwrap_or_else(|e| e.into_inner()) = Some(Instant::now());
        layout.failures.fetch_add(1, Ordering::SeqCst);
        if !layout.rereading.swap(true, Ordering::SeqCst) {
            self.reread_layout();
        }
        let tls = if self.spec.tls { " (TLS)" } else { "" };
        match slot.and_then(|slot| Some((slot, layout.master_as_of(slot, sent)?))) {
            Some((slot, master)) => format!("{master}{tls} (cluster master of slot {slot})"),
            None => format!("a node of the cluster reached through {}", self.spec.node),
        }
    }

    /// Reads the cluster's layout again once no call has failed on the link for a while
    /// (checked every second, for up to 10 minutes): after a failover, the slots of the
    /// master that failed are served by a replica.
    fn reread_layout(&self) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            self.spec.layout.rereading.store(false, Ordering::SeqCst);
            return;
        };
        let mut redis = self.clone();
        runtime.spawn(async move {
            const QUIET: Duration = Duration::from_secs(2);
            for _ in 0..600 {
                tokio::time::sleep(Duration::from_secs(1)).await;
                let layout = redis.spec.layout.clone();
                let failed_at = *layout.failed_at.lock().unwrap_or_else(|e| e.into_inner());
                if failed_at.is_some_and(|at| at.elapsed() < QUIET) {
                    continue;
                }
                let read = tokio::time::timeout(QUIET, redis.slot_ranges()).await;
                if let Ok(Ok(ranges)) = read {
                    layout.set(ranges);
                    break;
                }
            }
            redis.spec.layout.rereading.store(false, Ordering::SeqCst);
        });
    }

    /// Follows `slot` (of `key`) to a new master after a call on it went unanswered: a
    /// master that stops answering without closing its connections (frozen, or cut off by
    /// the network) keeps the client library sending it the slot's calls, even once a
    /// replica has taken the slot over, because only a redirection makes the library read
    /// the slots again. Every second for up to a minute, while calls keep failing on the
    /// link, the other masters are asked who serves the slot; once another master does, a
    /// harmless `EXISTS` of `key` is sent to a third node, whose redirection has the library
    /// read the slots again and route the slot's calls, those in flight included, to the
    /// new master. One such task runs at a time.
    fn follow_slot(&self, slot: u16, key: &[u8]) {
        let layout = self.spec.layout.clone();
        let (Some(stalled), Ok(runtime)) = (
            layout.master_of(slot),
            tokio::runtime::Handle::try_current(),
        ) else {
            return;
        };
        if layout.following.swap(true, Ordering::SeqCst) {
            return;
        }
        const ASK_LIMIT: Duration = Duration::from_secs(2);
        const QUIET: Duration = Duration::from_secs(15);
        let mut redis = self.clone();
        let key = key.to_vec();
        runtime.spawn(async move {
            for _ in 0..60 {
                let mut others = layout.masters();
                others.retain(|m| *m != stalled);
                for other in others.iter().filter_map(|m| node_at(m)) {
                    let slots = redis::cmd("CLUSTER").arg("SLOTS").clone();
                    let asked = redis.query_at::<redis::Value>(&other, &slots, "CLUSTER SLOTS");
                    let Ok(Ok(reply)) = tokio::time::timeout(ASK_LIMIT, asked).await else {
                        continue;
                    };
                    let ranges = parse_slot_ranges(reply);
                    let Some(serving) = master_in(&ranges, slot).map(str::to_string) else {
                        break;
                    };
                    if serving == stalled {
                        break;
                    }
                    let third = ranges.iter().find_map(|(_, _, m)| {
                        (*m != stalled && *m != serving)
                            .then(|| node_at(m))
                            .flatten()
                    });
                    if let Some(third) = third {
                        let exists = redis::cmd("EXISTS").arg(&key).clone();
                        let redirected = redis.query_at::<redis::Value>(&third, &exists, "EXISTS");
                        let _ = tokio::time::timeout(ASK_LIMIT, redirected).await;
                    }
                    // Once the library was told, so that the calls it still sent to the
                    // stalled master name it when they fail.
                    layout.set(ranges);
                    layout.following.store(false, Ordering::SeqCst);
                    return;
                }
                let failed_at = *layout.failed_at.lock().unwrap_or_else(|e| e.into_inner());
                if failed_at.is_none_or(|at| at.elapsed() > QUIET) {
                    break;
                }
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
            layout.following.store(false, Ordering::SeqCst);
        });
    }

    /// Runs one command on a connection of its own that waits long (a BLPOP): as [`query`],
    /// but a call left unanswered does not have its slot followed to a new master, which
    /// only the connection that follows it would learn of (see [`Redis::follow_slot`]); the
    /// caller connects again instead, and the new connection reads the slots as they are.
    ///
    /// [`query`]: Redis::query
    pub async fn query_waiting<T: FromRedisValue>(
        &mut self,
        cmd: &redis::Cmd,
        op: impl std::fmt::Display,
    ) -> Result<T, Error> {
        let failed = |redis: &Redis, op: &dyn std::fmt::Display, err: redis::RedisError| {
            redis
                .spec
                .login_refused(Error::from_redis(&redis.server, op, err))
        };
        match cmd.query_async::<redis::Value>(&mut self.conn).await {
            Ok(redis::Value::ServerError(e)) => Err(failed(self, &op, e.into())),
            Ok(v) => redis::from_redis_value(v).map_err(|e| self.unreadable(op, e.into())),
            Err(e) => Err(failed(self, &op, e)),
        }
    }

    /// Runs one command; `op` names it in errors.
    pub async fn query<T: FromRedisValue>(
        &mut self,
        cmd: &redis::Cmd,
        op: impl std::fmt::Display,
    ) -> Result<T, Error> {
        match cmd.query_async::<redis::Value>(&mut self.conn).await {
            Ok(redis::Value::ServerError(e)) => Err(self.error(op, e.into())),
            Ok(v) => redis::from_redis_value(v).map_err(|e| self.unreadable(op, e.into())),
            Err(e) => Err(self.error(op, e)),
        }
    }

    /// A reply that arrived but is not what `op` expects (text that is not UTF-8, a value of
    /// another shape): the data, not the link, is at fault.
    fn unreadable(&self, op: impl std::fmt::Display, err: redis::RedisError) -> Error {
        Error::BadInput(format!(
            "the reply of Redis at {} to {op} cannot be read: {}",
            self.server,
            super::error::redact(&err.to_string())
        ))
    }

    /// Runs a pipeline of plain commands (no scripts; see `Scripts::run_pipeline`).
    pub async fn pipeline<T: FromRedisValue>(
        &mut self,
        pipe: &redis::Pipeline,
        op: impl std::fmt::Display,
    ) -> Result<T, Error> {
        match pipe.query_async(&mut self.conn).await {
            Ok(v) => Ok(v),
            Err(e) => match failed_command(pipe, &e) {
                Some(command) => Err(self.error(format!("{command} (in {op})"), e)),
                None => Err(self.error(op, e)),
            },
        }
    }

    /// Runs a pipeline whose commands may fail one by one (built with `ignore_errors`).
    /// Returns each command's reply or its error, named by `op(index)`; an error of the link
    /// fails the whole pipeline.
    pub async fn pipeline_each(
        &mut self,
        pipe: &redis::Pipeline,
        op: impl Fn(usize) -> String,
    ) -> Result<Vec<Result<redis::Value, Error>>, Error> {
        let replies: Vec<redis::RedisResult<redis::Value>> =
            match pipe.query_async(&mut self.conn).await {
                Ok(v) => v,
                Err(e) => return Err(self.error(op(0), e)),
            };
        Ok(replies
            .into_iter()
            .enumerate()
            .map(|(i, r)| r.map_err(|e| self.error(op(i), e)))
            .collect())
    }

    /// [`Redis::pipeline_each`] where any failed command fails the whole.
    pub async fn pipeline_all(
        &mut self,
        pipe: &redis::Pipeline,
        op: impl Fn(usize) -> String,
    ) -> Result<Vec<redis::Value>, Error> {
        self.pipeline_each(pipe, op).await?.into_iter().collect()
    }

    /// Whether this connection routes keys across the nodes of a Redis Cluster.
    pub fn is_cluster(&self) -> bool {
        matches!(self.conn, Conn::Cluster(..))
    }

    /// The nodes that hold keys: this server, or every master of a cluster (from
    /// `CLUSTER SLOTS`, which Redis 6.2 has too).
    pub async fn masters(&mut self) -> Result<Vec<Node>, Error> {
        if !self.is_cluster() {
            return Ok(vec![Node::This]);
        }
        let ranges = self.slot_ranges().await?;
        let masters: Vec<Node> = distinct_masters(&ranges).filter_map(node_at).collect();
        if !ranges.is_empty() {
            self.spec.layout.set(ranges);
        }
        if masters.is_empty() {
            return Err(Error::Redis {
                server: self.server.to_string(),
                op: "CLUSTER SLOTS".into(),
                code: None,
                reason: "the cluster has no master serving slots".into(),
            });
        }
        Ok(masters)
    }

    /// The slot ranges of a cluster and the `host:port` of the master serving each (from
    /// `CLUSTER SLOTS`, which Redis 6.2 has too).
    async fn slot_ranges(&mut self) -> Result<Vec<(u16, u16, String)>, Error> {
        let slots: redis::Value = self
            .query(redis::cmd("CLUSTER").arg("SLOTS"), "CLUSTER SLOTS")
            .await?;
        Ok(parse_slot_ranges(slots))
    }

    /// Runs one command on `node`: for keyless commands such as SCAN, which a cluster would
    /// otherwise send to any node.
    pub async fn query_at<T: FromRedisValue>(
        &mut self,
        node: &Node,
        cmd: &redis::Cmd,
        op: impl std::fmt::Display,
    ) -> Result<T, Error> {
        use redis::cluster_routing::{Route, RoutingInfo, SingleNodeRoutingInfo, SlotAddr};
        let routing = match (node, &mut self.conn) {
            (_, Conn::Single(_)) | (Node::This, _) => return self.query(cmd, op).await,
            (Node::At { host, port }, _) => SingleNodeRoutingInfo::ByAddress {
                host: host.clone(),
                port: *port,
            },
            (Node::Owning(key), _) => {
                SingleNodeRoutingInfo::SpecificNode(Route::with_key(key, SlotAddr::Master))
            }
        };
        let Conn::Cluster(routed) = &mut self.conn else {
            unreachable!("single connections returned above");
        };
        routed.note(match node {
            Node::Owning(key) => Some(key.as_bytes()),
            _ => None,
        });
        let reply = routed
            .conn
            .route_command(cmd.clone(), RoutingInfo::SingleNode(routing))
            .await;
        match reply.and_then(|v| T::from_redis_value(v).map_err(Into::into)) {
            Ok(v) => Ok(v),
            Err(e) => {
                let mut error = self.error(op, e);
                if let (
                    Node::At { host, port },
                    Error::Unreachable { server, .. } | Error::TimedOut { server, .. },
                ) = (node, &mut error)
                {
                    let tls = if self.spec.tls { " (TLS)" } else { "" };
                    *server = format!("{host}:{port}{tls} (cluster master)");
                }
                Err(error)
            }
        }
    }

    /// The server's clock (`TIME`) in unix seconds.
    pub async fn server_time(&mut self) -> Result<f64, Error> {
        let (secs, micros): (u64, u64) = self.query(&redis::cmd("TIME"), "TIME").await?;
        Ok(secs as f64 + micros as f64 / 1e6)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(url: &str) -> Result<ServerSpec, Error> {
        ServerSpec::parse(url, Duration::from_secs(1), Duration::from_secs(1))
    }

    #[test]
    fn reads_the_masters_of_a_cluster_slots_reply() {
        use redis::Value::{Array, BulkString, Int};
        let node = |host: &str, port: i64| {
            Array(vec![
                BulkString(host.into()),
                Int(port),
                BulkString(b"id".to_vec()),
            ])
        };
        let reply = Array(vec![
            Array(vec![
                Int(0),
                Int(8191),
                node("10.0.0.1", 7000),
                node("10.0.0.2", 7001),
            ]),
            Array(vec![Int(8192), Int(16383), node("10.0.0.3", 7002)]),
            Array(vec![Int(1)]),
        ]);
        let ranges = parse_slot_ranges(reply);
        assert_eq!(
            ranges,
            vec![
                (0, 8191, "10.0.0.1:7000".to_string()),
                (8192, 16383, "10.0.0.3:7002".to_string()),
            ]
        );
        assert_eq!(master_in(&ranges, 8191), Some("10.0.0.1:7000"));
        assert_eq!(master_in(&ranges, 8192), Some("10.0.0.3:7002"));
        assert_eq!(
            node_at("10.0.0.3:7002"),
            Some(Node::At {
                host: "10.0.0.3".into(),
                port: 7002
            })
        );
        assert_eq!(parse_slot_ranges(redis::Value::Nil), vec![]);
    }

    #[test]
    fn parses_the_url_forms() {
        assert_eq!(
            parse("redis://127.0.0.1:6390").unwrap().server(),
            "127.0.0.1:6390"
        );
        assert_eq!(
            parse("redis://u:pw@example:7000/3").unwrap().server(),
            "example:7000/3"
        );
        assert_eq!(parse("redis://h").unwrap().server(), "h:6379");
        assert_eq!(parse("rediss://h:6380").unwrap().server(), "h:6380 (TLS)");
    }

    #[test]
    fn a_bad_url_is_a_usage_error_without_the_password() {
        for url in [
            "nonsense",
            "http://u:hunter2@h",
            "redis://u:hunter2@h:notaport",
            "redis://u:hunter2@h/notadb",
        ] {
            let err = parse(url).expect_err(url);
            assert!(matches!(err, Error::Usage(_)), "{url}: {err}");
            assert!(!err.to_string().contains("hunter2"), "{err}");
        }
    }

    #[test]
    fn malformed_urls_never_show_their_secrets() {
        for url in [
            "u:hunter2@127.0.0.1:7000",
            "redis:/u:hunter2@127.0.0.1:7000",
            "redis://:hunter2/x@127.0.0.1:7000",
            "redis+unix:///tmp/none.sock?pass=hunter2&db=x",
        ] {
            let err = parse(url).expect_err(url);
            assert!(matches!(err, Error::Usage(_)), "{url}: {err}");
            assert!(!err.to_string().contains("hunter2"), "{err}");
        }
        assert_eq!(
            hide_secrets("redis://u:pw@h:1/0?x=1"),
            "redis://***@h:1/0?***"
        );
    }

    #[test]
    fn a_url_without_its_password_keeps_the_rest() {
        for (url, shown) in [
            ("redis://u:hunter2@h:1/2", "redis://u@h:1/2"),
            ("rediss://:hunter2@h:6380", "rediss://h:6380"),
            ("redis://h:1", "redis://h:1"),
            (
                "redis+unix:///tmp/r.sock?db=1&pass=hunter2",
                "redis+unix:///tmp/r.sock?db=1",
            ),
            ("unix:///tmp/r.sock?password=hunter2", "unix:///tmp/r.sock"),
        ] {
            assert_eq!(without_password(url).as_deref(), Some(shown), "{url}");
        }
        assert_eq!(without_password("not a url"), None);
    }
}
