//! `qctl top`: a live full-screen view of every queue. Refreshes run on a task of their own,
//! so keys are answered while Redis is slow or gone; the terminal is restored on every exit.

use std::io::IsTerminal;
use std::time::Duration;

use crossterm::event::{Event, KeyEventKind};
use tokio::signal::unix::{signal, SignalKind};
use tokio::sync::mpsc::unbounded_channel;

use super::Context;
use crate::cli::TopArgs;
use crate::engine::{Error, ExitCode};
use crate::top::fetch::{self, Request, Settings};
use crate::top::model::{Action, Model};
use crate::top::terminal::Screen;
use crate::top::view;

pub async fn run(ctx: Context, args: TopArgs) -> anyhow::Result<ExitCode> {
    if !std::io::stdout().is_terminal() {
        return Err(Error::Usage(
            "qctl top needs a terminal on stdout; for scripts and pipes use `qctl stats --watch --json`"
                .into(),
        )
        .into());
    }
    // A wrong URL, password or server, and a server that refuses the reads of a refresh
    // (NOAUTH, NOPERM), are reported as by every command, before the screen is taken; a
    // connection lost later is shown on the screen and retried.
    let spec = ctx.server()?;
    let mut redis = spec.connect().await?;
    let (requests, requests_rx) = unbounded_channel();
    let (updates_tx, mut updates) = unbounded_channel();
    let settings = Settings {
        interval: args.interval,
        orphan_after: args.orphan_after,
        max_keys: args.max_keys,
    };
    let seen = fetch::first(&mut redis, &settings, &updates_tx).await?;
    let refresher = tokio::spawn(fetch::run(redis, settings, seen, requests_rx, updates_tx));
    let mut model = Model::new(spec.server(), args.interval, args.orphan_after);
    let mut sigterm = signal(SignalKind::terminate())?;
    let mut sigint = signal(SignalKind::interrupt())?;
    let (mut screen, mut keys) = Screen::enter()?;
    // Redrawn every second too, so ages and "updated Ns ago" stay true.
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    let result = loop {
        if let Err(e) = screen.terminal.draw(|f| view::draw(f, &model)) {
            break Err(e.into());
        }
        // What to read besides the counts follows the view: the open queue and the dead jobs
        // its drawing had room for.
        if let Some(wanted) = model.next_request() {
            let _ = requests.send(Request::Detail(wanted));
        }
        tokio::select! {
            event = keys.recv() => match event {
                Some(Event::Key(key)) if key.kind != KeyEventKind::Release => {
                    match model.on_key(key) {
                        Some(Action::Quit) => break Ok(ExitCode::Success),
                        Some(Action::Pause { queue, pause }) => {
                            let _ = requests.send(Request::Pause { queue, pause });
                        }
                        None => {}
                    }
                }
                Some(_) => {}
                None => break Ok(ExitCode::Success),
            },
            Some(update) = updates.recv() => model.apply(update),
            _ = tick.tick() => {}
            _ = sigterm.recv() => break Ok(ExitCode::Success),
            _ = sigint.recv() => break Ok(ExitCode::Success),
        }
    };
    refresher.abort();
    drop(screen);
    result
}
