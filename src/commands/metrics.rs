//! `qctl metrics`: serves the queues' counts to Prometheus at `GET /metrics`, reading Redis
//! at most once per --min-interval; a failed reading is served as `qctl_up 0`.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::header::{HeaderValue, ALLOW, CONTENT_TYPE};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::signal::unix::{signal, SignalKind};

use super::{stats, Context};
use crate::cli::MetricsArgs;
use crate::engine::{ExitCode, QueueKeys, Redis, ServerSpec};
use crate::output::Output;
use crate::prometheus;

pub async fn run(ctx: Context, args: MetricsArgs) -> anyhow::Result<ExitCode> {
    let mut keys = Vec::new();
    for queue in &args.queues {
        keys.push(ctx.keys(queue)?);
    }
    let spec = ctx.server()?;
    // Redis is read once before serving, to refuse what cannot be meant: a refused login
    // (exit 4) and a queue named that has no key (exit 5, unless --allow-missing). A server
    // that cannot be reached now is served as qctl_up 0, and the names are checked at the
    // first reading that succeeds.
    let (redis, unchecked) = match spec.connect().await {
        Ok(mut redis) => {
            super::check_names(&ctx, &mut redis, &keys, args.allow_missing).await?;
            (Some(redis), Vec::new())
        }
        Err(e) if e.is_auth() => return Err(e.into()),
        Err(e) => {
            ctx.out.warn(format_args!(
                "serving qctl_up 0 until Redis can be read: {e}"
            ));
            (None, keys)
        }
    };
    let failing = redis.is_none();
    let mut sigint = signal(SignalKind::interrupt())?;
    let mut sigterm = signal(SignalKind::terminate())?;
    let listener = tokio::net::TcpListener::bind(args.listen)
        .await
        .with_context(|| format!("cannot listen on {}", args.listen))?;
    let addr = listener.local_addr()?;
    ctx.out.note(format_args!(
        "serving the metrics of Redis at {} on http://{addr}/metrics",
        spec.server()
    ));
    let scraper = Arc::new(Scraper {
        spec,
        cluster: ctx.global.cluster,
        args,
        state: tokio::sync::Mutex::new(State {
            redis,
            last: None,
            out: ctx.out,
            warnings: Vec::new(),
            failing,
            unchecked,
        }),
    });
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => serve(stream, scraper.clone()),
                Err(e) => {
                    scraper.state.lock().await.out.warn(format_args!("cannot accept a connection on {addr}: {e}"));
                    // Out of file descriptors, say: give the others time to finish.
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            },
            _ = sigint.recv() => break,
            _ = sigterm.recv() => break,
        }
    }
    Ok(ExitCode::Success)
}

/// Serves one HTTP/1 connection.
fn serve(stream: tokio::net::TcpStream, scraper: Arc<Scraper>) {
    tokio::spawn(async move {
        let service = hyper::service::service_fn(move |req| respond(scraper.clone(), req));
        // A client that goes away mid-request is no error of ours.
        let _ = hyper::server::conn::http1::Builder::new()
            .timer(TokioTimer::new())
            .serve_connection(TokioIo::new(stream), service)
            .await;
    });
}

/// `/metrics` for GET (and HEAD); 405 for other methods there, 404 for any other path.
async fn respond(
    scraper: Arc<Scraper>,
    req: Request<Incoming>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let (status, body) = match (req.method(), req.uri().path()) {
        (&Method::GET | &Method::HEAD, "/metrics") => {
            // In its own task, so that a client giving up does not cut a reading short.
            let body = tokio::spawn(async move { scraper.exposition().await })
                .await
                .unwrap_or_default();
            let mut response = Response::new(Full::new(body));
            response.headers_mut().insert(
                CONTENT_TYPE,
                HeaderValue::from_static(prometheus::CONTENT_TYPE),
            );
            return Ok(response);
        }
        (_, "/metrics") => (StatusCode::METHOD_NOT_ALLOWED, "only GET and HEAD\n"),
        _ => (
            StatusCode::NOT_FOUND,
            "not found: the metrics are at /metrics\n",
        ),
    };
    let mut response = Response::new(Full::new(Bytes::from_static(body.as_bytes())));
    *response.status_mut() = status;
    if status == StatusCode::METHOD_NOT_ALLOWED {
        response
            .headers_mut()
            .insert(ALLOW, HeaderValue::from_static("GET, HEAD"));
    }
    Ok(response)
}

/// Reads Redis for the scrapes and keeps the last reading.
struct Scraper {
    spec: ServerSpec,
    cluster: bool,
    args: MetricsArgs,
    /// Held for a whole reading: concurrent scrapes wait for it and share it.
    state: tokio::sync::Mutex<State>,
}

struct State {
    /// None until connected, and again after a failed reading.
    redis: Option<Redis>,
    /// When the last reading started, and its exposition.
    last: Option<(Instant, Bytes)>,
    out: Output,
    /// The last reading's warnings, said again only when they change.
    warnings: Vec<String>,
    /// Whether the last reading failed (its error is said once).
    failing: bool,
    /// The queues named whose keys are still to be looked for (Redis could not be read at
    /// start).
    unchecked: Vec<QueueKeys>,
}

impl Scraper {
    /// The exposition of the last reading if it started less than --min-interval ago, else
    /// of a new one.
    async fn exposition(&self) -> Bytes {
        let mut state = self.state.lock().await;
        if let Some((at, body)) = &state.last {
            if at.elapsed() < self.args.min_interval {
                return body.clone();
            }
        }
        let started = Instant::now();
        let reading = self.read(&mut state.redis).await;
        let duration = started.elapsed();
        let text = match reading {
            Ok(reading) => {
                if !state.unchecked.is_empty() {
                    let keys = std::mem::take(&mut state.unchecked);
                    let State { redis, out, .. } = &mut *state;
                    if let Some(redis) = redis {
                        // Already serving: a name with no key is said, not refused.
                        let _ = super::check_names_while_serving(
                            out,
                            redis,
                            &keys,
                            self.args.allow_missing,
                            "metrics",
                        )
                        .await;
                    }
                }
                if state.failing {
                    state.failing = false;
                    state
                        .out
                        .note(format_args!("read Redis at {} again", self.spec.server()));
                }
                if reading.warnings != state.warnings {
                    for warning in &reading.warnings {
                        state.out.warn(warning);
                    }
                    state.warnings = reading.warnings;
                }
                if let Some(note) = &reading.unreadable {
                    state.out.verbose(note);
                }
                prometheus::render(&prometheus::Reading {
                    stats: Some(&reading.stats),
                    duration,
                })
            }
            Err(e) => {
                // A fresh connection next time: the reading may have failed while connecting.
                state.redis = None;
                if !state.failing {
                    state.failing = true;
                    state.out.warn(format_args!(
                        "serving qctl_up 0 until Redis can be read: {e:#}"
                    ));
                } else {
                    state.out.verbose(format_args!("still failing: {e:#}"));
                }
                prometheus::render(&prometheus::Reading {
                    stats: None,
                    duration,
                })
            }
        };
        let body = Bytes::from(text);
        state.last = Some((started, body.clone()));
        body
    }

    async fn read(&self, redis: &mut Option<Redis>) -> anyhow::Result<stats::Reading> {
        let redis = match redis {
            Some(redis) => redis,
            None => redis.insert(self.spec.connect().await?),
        };
        stats::read(
            redis,
            &self.args.queues,
            self.cluster,
            self.args.orphan_after,
            self.args.max_keys,
        )
        .await
    }
}
