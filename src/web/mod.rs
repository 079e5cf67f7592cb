//! `qctl web`, the browser view: like `top`, a view that renders what the engine read. One
//! task ([`feed`]) reads a snapshot of every queue each interval while requests come; every
//! request reads the latest one. [`guard`] checks each request (Host, password) and adds the
//! security headers; [`pages`] are the HTML, [`api`] their JSON twins, [`assets`] the style
//! sheet and script built into the binary. `commands/web.rs` reads the flags and starts it.
//!
//! Pages that read Redis when asked (a job, the health) do it through the engine on the
//! connection of [`link`]; the health is read at most once per its interval ([`health`]).
//!
//! Changes are forms posted by the pages themselves: [`change`] checks that a post comes
//! from one (its Origin, the session's token) and pauses and resumes; [`bulk`] reads a
//! change of jobs and makes it through the engine's bulk functions, as the CLI does.
//!
//! A new page is a function in `pages/` and a route in [`router`], with its JSON twin in
//! `api.rs` at `/api/...` and a link in [`pages::layout`]'s navigation. A page that shows
//! more than the shared reading (a page of jobs, a queue's consumers) reads it at the
//! request, on [`App::link`], through a function of the web module that calls the engine
//! functions the CLI's commands call ([`queue`] for a queue's pages); no page's code calls
//! Redis itself.

pub mod api;
pub mod assets;
pub mod bulk;
pub mod change;
pub mod feed;
pub mod guard;
pub mod health;
pub mod link;
pub mod orphans;
pub mod pages;
pub mod queue;

use std::future::Future;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use axum::routing::{get, post};
use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::{watch, Semaphore};
use tower_layer::Layer;

use crate::engine::{Error, QueueKeys};
use crate::output::Output;
use feed::{Demand, Latest};
use guard::Guard;

/// The default address: loopback, beside `qctl metrics`'s 9187.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:9188";

/// Connections served at once; more wait to be accepted.
const MAX_CONNECTIONS: usize = 512;

/// How long a client has to finish the TLS handshake.
const HANDSHAKE_LIMIT: Duration = Duration::from_secs(10);

/// What the pages and the API read.
#[derive(Debug)]
pub struct App {
    /// Redis as messages name it (`host:port`, never a password).
    pub server: String,
    /// How often the feed reads.
    pub interval: Duration,
    /// The latest reading, from the feed. A page that shows it takes it through
    /// [`feed::fresh`], which waits for a reading after a pause.
    pub latest: watch::Receiver<Arc<Latest>>,
    /// The connection of the pages that read when asked.
    pub link: link::Link,
    /// The queues named on the command line (none: every queue found).
    pub named: Vec<String>,
    /// The connection options qctl web was started with, as words of a `qctl` command line
    /// (`-u`, `--user`, `--cluster`, ...; never a password), for the commands pages show.
    pub connection: Vec<String>,
    /// The health, read when asked.
    pub health: health::Health,
    /// Heartbeat age past which a consumer counts as expired (`--orphan-after`).
    pub orphan_after: Duration,
    /// Who asked lately: the feed reads while requests come.
    pub demand: Arc<Demand>,
    /// Whether the page changes anything (`--read-only`), and its sessions.
    pub changes: change::Changes,
}

impl App {
    /// The keys of `queue`; in a cluster, only for a name with a hash tag.
    pub fn keys(&self, queue: &str) -> Result<QueueKeys, Error> {
        if self.link.is_cluster() {
            QueueKeys::for_cluster(queue)
        } else {
            Ok(QueueKeys::new(queue))
        }
    }
}

/// Every route, behind the guard.
pub fn router(app: Arc<App>, guard: Arc<Guard>) -> Router {
    Router::new()
        .route("/favicon.ico", get(assets::favicon))
        .route("/", get(pages::overview::page))
        .route("/api/overview", get(api::overview))
        .route("/queues/{queue}/jobs/{id}", get(pages::job::page))
        .route("/queues/{queue}/jobs/{id}/data", get(pages::job::data))
        .route("/api/queues/{queue}/jobs/{id}", get(api::job))
        .route("/health", get(pages::health::page))
        .route("/api/health", get(api::health))
        .route("/queues/{queue}", get(pages::queue::summary))
        .route("/queues/{queue}/find", get(pages::find::page_of))
        .route("/queues/{queue}/changes", get(pages::changes::page_of))
        .route("/api/queues/{queue}/changes", get(pages::changes::api))
        .route("/api/queues/{queue}/find", get(pages::find::api))
        .route("/queues/{queue}/{state}", get(pages::queue::list))
        .route("/queues/{queue}/{state}/groups", get(pages::queue::groups))
        .route("/api/queues/{queue}", get(api::queue))
        .route("/api/queues/{queue}/{state}", get(api::jobs))
        .route("/api/queues/{queue}/{state}/groups", get(api::groups))
        .route("/api/capabilities", get(change::capabilities))
        .route("/queues/{queue}/pause", post(change::pause))
        .route(
            "/queues/{queue}/orphans/preview",
            post(pages::orphans::preview),
        )
        .route("/queues/{queue}/orphans/apply", post(pages::orphans::apply))
        .route("/queues/{queue}/resume", post(change::resume))
        .route(
            "/queues/{queue}/cancel/preview",
            post(pages::steer::cancel_preview),
        )
        .route(
            "/queues/{queue}/cancel/apply",
            post(pages::steer::cancel_apply),
        )
        .route(
            "/queues/{queue}/consumers/{uuid}/preview",
            post(pages::steer::consumer_preview),
        )
        .route(
            "/queues/{queue}/consumers/{uuid}/apply",
            post(pages::steer::consumer_apply),
        )
        .route(
            "/queues/{queue}/{state}/preview",
            post(pages::bulk::preview),
        )
        .route("/queues/{queue}/{state}/apply", post(pages::bulk::apply))
        .route("/assets/{name}", get(assets::serve))
        .fallback(pages::not_found)
        .with_state(app.clone())
        .layer(axum::middleware::from_fn_with_state(
            app.clone(),
            change::session,
        ))
        .layer(axum::middleware::from_fn_with_state(
            app.demand.clone(),
            feed::notice,
        ))
        .layer(axum::middleware::from_fn_with_state(guard, guard::check))
}

/// The TLS settings of `--https-cert` and `--https-key` (PEM files).
pub fn tls_config(cert: &Path, key: &Path) -> Result<Arc<rustls::ServerConfig>, Error> {
    use rustls::pki_types::pem::PemObject;
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let unreadable = |what: &str, path: &Path, e: &dyn std::fmt::Display| {
        Error::BadInput(format!("cannot read the {what} {}: {e}", path.display()))
    };
    let certs = CertificateDer::pem_file_iter(cert)
        .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
        .map_err(|e| unreadable("certificate (--https-cert)", cert, &e))?;
    if certs.is_empty() {
        return Err(unreadable(
            "certificate (--https-cert)",
            cert,
            &"no PEM certificate in it",
        ));
    }
    let key_der = PrivateKeyDer::from_pem_file(key)
        .map_err(|e| unreadable("private key (--https-key)", key, &e))?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .and_then(|b| b.with_no_client_auth().with_single_cert(certs, key_der))
        .map_err(|e| {
            Error::BadInput(format!(
                "cannot serve HTTPS with {} and {}: {e}",
                cert.display(),
                key.display()
            ))
        })?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}

/// The URL of the page at `addr`.
pub fn url(addr: SocketAddr, https: bool) -> String {
    let scheme = if https { "https" } else { "http" };
    format!("{scheme}://{addr}/")
}

/// Serves `router` on `listener` (over TLS with `tls`) until `stop` ends; requests then in
/// progress are dropped with the process.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    tls: Option<Arc<rustls::ServerConfig>>,
    out: Output,
    stop: impl Future<Output = ()>,
) {
    let acceptor = tls.map(tokio_rustls::TlsAcceptor::from);
    let permits = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    tokio::pin!(stop);
    loop {
        let permit = tokio::select! {
            permit = permits.clone().acquire_owned() => match permit {
                Ok(permit) => permit,
                Err(_) => return,
            },
            _ = &mut stop => return,
        };
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, peer)) => (stream, peer),
                Err(e) => {
                    out.warn(format_args!("cannot accept a connection: {e}"));
                    // Out of file descriptors, say: give the others time to finish.
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            _ = &mut stop => return,
        };
        // A response written in parts (a page of jobs, as it is read) goes out part by part:
        // with Nagle's algorithm each part after the first waited for the client's delayed
        // acknowledgement, 40 ms a response on a connection kept open.
        if let Err(e) = stream.set_nodelay(true) {
            out.verbose(format_args!("cannot set TCP_NODELAY on a connection: {e}"));
        }
        // Each request knows its client's address (the record of a change holds it).
        let service = TowerToHyperService::new(
            axum::Extension(axum::extract::ConnectInfo(peer)).layer(router.clone()),
        );
        let acceptor = acceptor.clone();
        tokio::spawn(async move {
            let _permit = permit;
            let http = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(Duration::from_secs(30))
                .clone();
            // A client that goes away mid-request is no error of ours.
            match acceptor {
                None => {
                    let _ = http.serve_connection(TokioIo::new(stream), service).await;
                }
                Some(acceptor) => {
                    let handshake = tokio::time::timeout(HANDSHAKE_LIMIT, acceptor.accept(stream));
                    if let Ok(Ok(stream)) = handshake.await {
                        let _ = http.serve_connection(TokioIo::new(stream), service).await;
                    }
                }
            }
        });
    }
}
