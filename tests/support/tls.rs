//! TLS for the test servers: a CA, server and client certificates made with rcgen (ECDSA
//! P-256, no external binary) in a temp dir of their own, and a redis-server that listens
//! only on a TLS port (`--port 0 --tls-port ...`).

use std::path::{Path, PathBuf};

use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
    KeyUsagePurpose,
};

use super::RedisServer;

/// The certificates of one test, as PEM files.
pub struct Pki {
    dir: tempfile::TempDir,
    /// The CA that signed the server's and the client's certificates.
    pub ca: PathBuf,
    /// The server's certificate, for `localhost` and `127.0.0.1`, and its key.
    pub server_cert: PathBuf,
    pub server_key: PathBuf,
    /// A client certificate signed by `ca`, and its key.
    pub client_cert: PathBuf,
    pub client_key: PathBuf,
    /// A second CA, unknown to the server: trusting it alone does not trust the server.
    pub other_ca: PathBuf,
    /// A client certificate signed by `other_ca`: the server refuses it.
    pub stranger_cert: PathBuf,
    pub stranger_key: PathBuf,
    /// A server certificate signed by `ca` for `redis.example` only.
    pub misnamed_cert: PathBuf,
    pub misnamed_key: PathBuf,
}

fn ca(name: &str) -> (String, Issuer<'static, KeyPair>) {
    let mut params = CertificateParams::new(Vec::<String>::new()).expect("CA params");
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.distinguished_name.push(DnType::CommonName, name);
    params.key_usages = vec![
        KeyUsagePurpose::KeyCertSign,
        KeyUsagePurpose::CrlSign,
        KeyUsagePurpose::DigitalSignature,
    ];
    let key = KeyPair::generate().expect("CA key");
    let cert = params.self_signed(&key).expect("self-signed CA");
    (cert.pem(), Issuer::new(params, key))
}

/// A leaf certificate and its key (PEM) for `names`, signed by `issuer`.
fn leaf(issuer: &Issuer<'static, KeyPair>, names: &[&str], client: bool) -> (String, String) {
    let names: Vec<String> = names.iter().map(|s| s.to_string()).collect();
    let mut params = CertificateParams::new(names.clone()).expect("leaf params");
    params.distinguished_name.push(
        DnType::CommonName,
        names.first().map_or("client", String::as_str),
    );
    params.key_usages = vec![
        KeyUsagePurpose::DigitalSignature,
        KeyUsagePurpose::KeyEncipherment,
    ];
    params.extended_key_usages = vec![if client {
        ExtendedKeyUsagePurpose::ClientAuth
    } else {
        ExtendedKeyUsagePurpose::ServerAuth
    }];
    let key = KeyPair::generate().expect("leaf key");
    let cert = params.signed_by(&key, issuer).expect("sign the leaf");
    (cert.pem(), key.serialize_pem())
}

impl Pki {
    /// Fresh certificates in a temp dir of their own.
    pub fn generate() -> Pki {
        let dir = tempfile::tempdir().expect("temp dir");
        let write = |name: &str, pem: &str| {
            let path = dir.path().join(name);
            std::fs::write(&path, pem).expect("write a PEM file");
            path
        };
        let (ca_pem, issuer) = ca("qctl test CA");
        let (other_pem, other_issuer) = ca("qctl other CA");
        let (server_cert, server_key) = leaf(&issuer, &["localhost", "127.0.0.1"], false);
        let (client_cert, client_key) = leaf(&issuer, &["qctl client"], true);
        let (stranger_cert, stranger_key) = leaf(&other_issuer, &["stranger"], true);
        let (misnamed_cert, misnamed_key) = leaf(&issuer, &["redis.example"], false);
        Pki {
            ca: write("ca.pem", &ca_pem),
            server_cert: write("server.pem", &server_cert),
            server_key: write("server.key", &server_key),
            client_cert: write("client.pem", &client_cert),
            client_key: write("client.key", &client_key),
            other_ca: write("other-ca.pem", &other_pem),
            stranger_cert: write("stranger.pem", &stranger_cert),
            stranger_key: write("stranger.key", &stranger_key),
            misnamed_cert: write("misnamed.pem", &misnamed_cert),
            misnamed_key: write("misnamed.key", &misnamed_key),
            dir,
        }
    }

    /// The temp dir holding the files.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// A server with the regular server certificate.
    pub fn server(&self, auth_clients: bool) -> TlsConfig {
        TlsConfig {
            ca: self.ca.clone(),
            cert: self.server_cert.clone(),
            key: self.server_key.clone(),
            auth_clients,
            client: auth_clients.then(|| (self.client_cert.clone(), self.client_key.clone())),
        }
    }
}

/// How a test server speaks TLS, and how the test itself reaches it.
#[derive(Clone, Debug)]
pub struct TlsConfig {
    /// `--tls-ca-cert-file`: the CA the server trusts for client certificates, and the one
    /// the test's own client trusts.
    pub ca: PathBuf,
    /// `--tls-cert-file` and `--tls-key-file`.
    pub cert: PathBuf,
    pub key: PathBuf,
    /// `--tls-auth-clients yes|no`.
    pub auth_clients: bool,
    /// The client certificate and key the test's own connections present.
    pub client: Option<(PathBuf, PathBuf)>,
}

impl TlsConfig {
    pub(super) fn server_args(&self, port: u16) -> Vec<String> {
        let path = |p: &Path| p.display().to_string();
        vec![
            "--port".into(),
            "0".into(),
            "--tls-port".into(),
            port.to_string(),
            "--tls-cert-file".into(),
            path(&self.cert),
            "--tls-key-file".into(),
            path(&self.key),
            "--tls-ca-cert-file".into(),
            path(&self.ca),
            "--tls-auth-clients".into(),
            if self.auth_clients { "yes" } else { "no" }.into(),
        ]
    }

    /// A redis-rs client for the test's own checks, trusting `ca`.
    pub(super) fn client(&self, url: &str) -> redis::RedisResult<redis::Client> {
        let read = |p: &Path| std::fs::read(p).expect("read a PEM file");
        redis::Client::build_with_tls(
            url,
            redis::TlsCertificates {
                root_cert: Some(read(&self.ca)),
                client_tls: self
                    .client
                    .as_ref()
                    .map(|(cert, key)| redis::ClientTlsConfig {
                        client_cert: read(cert),
                        client_key: read(key),
                    }),
            },
        )
    }
}

/// A redis-server on a TLS port only. None, after a printed note, when the binary chosen
/// by `$QCTL_TEST_REDIS_SERVER` cannot do TLS; with the default redis-server a failure to
/// start panics.
pub fn tls_server(config: TlsConfig, extra: &[&str]) -> Option<RedisServer> {
    match RedisServer::try_start(extra, Some(config)) {
        Ok(server) => Some(server),
        Err(log) => {
            // Redis built without TLS refuses the tls-* directives; Valkey without its TLS
            // module says it has no TLS support.
            let without_tls = (log.contains("Bad directive") && log.contains("tls"))
                || log.contains("Failed finding TLS support");
            if without_tls && std::env::var_os("QCTL_TEST_REDIS_SERVER").is_some() {
                println!(
                    "note: skipped, the redis-server of $QCTL_TEST_REDIS_SERVER was built without TLS"
                );
                return None;
            }
            panic!("could not start redis-server with TLS:\n{log}");
        }
    }
}

/// qctl pointed at a TLS test server with its CA (and the client certificate when the
/// server asks for one), nothing TLS-related taken from the environment.
pub fn qctl_tls(server: &RedisServer) -> assert_cmd::Command {
    let config = server.tls().expect("a TLS server");
    let mut cmd = super::qctl(server);
    cmd.arg("--tls-ca-cert").arg(&config.ca);
    if let Some((cert, key)) = &config.client {
        cmd.arg("--tls-cert").arg(cert).arg("--tls-key").arg(key);
    }
    cmd
}
