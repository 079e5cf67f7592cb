//! `qctl web [QUEUE...]`: serves a live view of the queues to browsers (see `crate::web`).
//! This file reads the flags, refuses an address that would serve the queues to anyone
//! without saying so, reads Redis once, then serves until Ctrl-C, SIGTERM or SIGHUP.

use std::sync::Arc;

use anyhow::Context as _;
use tokio::sync::watch;

use super::Context;
use crate::cli::WebArgs;
use crate::engine::snapshot::{self, Reader};
use crate::engine::{Error, ExitCode};
use crate::output::Output;
use crate::web::feed::{Demand, Feed, Latest};
use crate::web::guard::{Guard, Password};
use crate::web::{self, App};

/// Minutes of history the charts show.
const HISTORY_MINUTES: usize = 60;

pub async fn run(ctx: Context, args: WebArgs) -> anyhow::Result<ExitCode> {
    let mut keys = Vec::new();
    for queue in &args.queues {
        keys.push(ctx.keys(queue)?);
    }
    let password = password(&args)?;
    let loopback = args.listen.ip().is_loopback();
    if password.is_some() && args.no_auth {
        return Err(Error::Usage(
            "--no-auth and a password ($QCTL_WEB_PASSWORD or --web-password-file) cannot be used together".into(),
        )
        .into());
    }
    if !loopback && password.is_none() && !args.no_auth {
        return Err(Error::Usage(format!(
            "--listen {} is not a loopback address: anyone who can reach it would see the queues; set a password ($QCTL_WEB_PASSWORD or --web-password-file FILE) or give --no-auth",
            args.listen
        ))
        .into());
    }
    let mut allowed_hosts = Vec::new();
    for name in &args.allowed_host {
        let name = name.trim().to_ascii_lowercase();
        if name.is_empty() || name.contains(['/', ' ', '@']) {
            return Err(Error::Usage(format!(
                "--allowed-host {name:?}: expected a host name, or NAME:PORT"
            ))
            .into());
        }
        allowed_hosts.push(name);
    }
    let tls = match (&args.https_cert, &args.https_key) {
        (Some(cert), Some(key)) => Some(web::tls_config(cert, key)?),
        _ => None,
    };
    let spec = ctx.server()?;
    let connection = connection_words(&ctx.global);
    let stop = crate::signals::install()?;
    let demand = Arc::new(Demand::new(args.interval));
    let mut feed = Feed {
        spec: spec.clone(),
        redis: None,
        reader: Reader::new(snapshot::Settings {
            queues: args.queues.clone(),
            orphan_after: args.orphan_after,
            max_keys: args.max_keys,
            minutes: HISTORY_MINUTES,
        }),
        interval: args.interval,
        out: Output::new(&ctx.global),
        on_first_read: None,
        demand: demand.clone(),
        first_page: web::pages::overview::DEFAULT_LIMIT,
    };
    // Redis is read once before serving, to refuse what cannot be meant: a refused login or
    // reading (exit 4) and a queue named that has no key (exit 5, unless --allow-missing).
    // A server that cannot be reached now is shown as such, and the names are checked at the
    // first reading that succeeds.
    let Some(connected) = stop.unless_signalled(spec.connect()).await else {
        return Ok(ExitCode::Success);
    };
    let first = match connected {
        Ok(mut redis) => {
            super::check_names(&ctx, &mut redis, &keys, args.allow_missing).await?;
            feed.redis = Some(redis);
            match stop.unless_signalled(feed.first()).await {
                None => return Ok(ExitCode::Success),
                Some(first) => first?,
            }
        }
        Err(e) if e.is_auth() => return Err(e.into()),
        Err(e) => {
            if !keys.is_empty() {
                let out = Output::new(&ctx.global);
                let allow_missing = args.allow_missing;
                feed.on_first_read = Some(Box::new(move |mut redis| {
                    Box::pin(async move {
                        let _ = super::check_names_while_serving(
                            &out,
                            &mut redis,
                            &keys,
                            allow_missing,
                            "web",
                        )
                        .await;
                    })
                }));
            }
            Latest::failed(&e)
        }
    };
    if let Some(failure) = &first.failure {
        ctx.out.warn(format_args!(
            "showing that Redis cannot be read until it can: {}",
            failure.message
        ));
    }
    let listener = tokio::net::TcpListener::bind(args.listen)
        .await
        .with_context(|| format!("cannot listen on {}", args.listen))?;
    let addr = listener.local_addr()?;
    let url = web::url(addr, tls.is_some());
    let mut out = ctx.out;
    // The URL is the result: on stdout, alone, for a script to read.
    let written = out.line(&url).and_then(|_| out.flush());
    out.after_done(written)?;
    out.note(format_args!(
        "serving the queues of Redis at {} on {url}{}, read every {}; Ctrl-C stops it",
        spec.server(),
        if addr.ip().is_unspecified() {
            " (every address of this host)"
        } else {
            ""
        },
        humantime::format_duration(args.interval)
    ));
    // Said at every start, whatever --quiet says: who may see the queues.
    if !loopback {
        if args.no_auth {
            warn_always(
                &out,
                &format!(
                    "--no-auth: anyone who can reach {addr} sees the queues, without a password"
                ),
            );
        } else if tls.is_none() {
            warn_always(
                &out,
                &format!("the password travels unencrypted over plain HTTP on {addr}: serve HTTPS (--https-cert, --https-key) or behind a reverse proxy that does"),
            );
        }
    }
    let (latest_tx, latest) = watch::channel(Arc::new(first));
    let reading = tokio::spawn(feed.run(latest_tx));
    let app = Arc::new(App {
        server: spec.server().to_string(),
        interval: args.interval,
        latest,
        link: web::link::Link::new(spec.clone()),
        named: args.queues.clone(),
        connection,
        health: web::health::Health::new(
            args.interval,
            args.queues.clone(),
            args.orphan_after,
            args.max_keys,
        ),
        orphan_after: args.orphan_after,
        demand,
        changes: web::change::Changes::new(args.read_only, tls.is_some())?,
    });
    let guard = Arc::new(Guard {
        listen: addr,
        allowed_hosts,
        password,
    });
    web::serve(listener, web::router(app, guard), tls, out, async {
        stop.signalled().await;
    })
    .await;
    reading.abort();
    Ok(ExitCode::Success)
}

/// The page's password: the first line of --web-password-file, else $QCTL_WEB_PASSWORD
/// (unless empty).
fn password(args: &WebArgs) -> Result<Option<Password>, Error> {
    if let Some(secret) = super::password_file(args.web_password_file.as_deref())? {
        return Ok(Some(Password::new(&secret.0)));
    }
    Ok(std::env::var("QCTL_WEB_PASSWORD")
        .ok()
        .filter(|p| !p.is_empty())
        .map(|p| Password::new(&p)))
}

/// The connection options of the command line as words of a `qctl` command line, for the
/// commands the pages show: the URL (when not the default; without its password), the user,
/// the password file (its path: the password is never shown), TLS, `--cluster`, and the
/// timeouts when not the defaults.
fn connection_words(g: &crate::cli::GlobalArgs) -> Vec<String> {
    let mut words = Vec::new();
    let url = g
        .redis
        .clone()
        .or_else(|| std::env::var("REDIS_URL").ok().filter(|u| !u.is_empty()));
    if let Some(url) = url.filter(|u| u != super::DEFAULT_URL) {
        if let Some(url) = crate::engine::conn::without_password(&url) {
            words.extend(["-u".to_string(), url]);
        }
    }
    let mut option = |name: &str, value: Option<&std::path::Path>| {
        if let Some(value) = value {
            words.extend([name.to_string(), value.display().to_string()]);
        }
    };
    option("--password-file", g.password_file.as_deref());
    option("--tls-ca-cert", g.tls_ca_cert.as_deref());
    option("--tls-cert", g.tls_cert.as_deref());
    option("--tls-key", g.tls_key.as_deref());
    if let Some(user) = &g.user {
        words.extend(["--user".to_string(), user.clone()]);
    }
    if g.tls_insecure {
        words.push("--tls-insecure".into());
    }
    if g.cluster {
        words.push("--cluster".into());
    }
    let mut timeout = |name: &str, value: std::time::Duration, default: u64| {
        if value != std::time::Duration::from_secs(default) {
            words.extend([
                name.to_string(),
                humantime::format_duration(value).to_string(),
            ]);
        }
    };
    timeout("--connect-timeout", g.connect_timeout, 5);
    timeout("--response-timeout", g.response_timeout, 10);
    words
}

/// A warning that --quiet does not silence.
fn warn_always(out: &Output, text: &str) {
    crate::output::stderr_line(&format!("{} {text}", out.paint("warning:", "33")));
}
