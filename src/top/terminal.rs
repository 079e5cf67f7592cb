//! The terminal of `qctl top`: raw mode and the alternate screen while it runs, restored when
//! it ends however it ends (q, Ctrl-C, SIGTERM, an error, a panic); and the keys, read on a
//! thread of their own so that a refresh never waits for them nor they for it.

use std::io::{self, Stdout};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crossterm::event::{self, Event};
use crossterm::{cursor, execute, terminal};
use ratatui::backend::CrosstermBackend;
use ratatui::Terminal;
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver};

/// The full screen; the terminal is restored when it is dropped.
pub struct Screen {
    pub terminal: Terminal<CrosstermBackend<Stdout>>,
    stop: Arc<AtomicBool>,
}

impl Screen {
    /// Switches to raw mode and the alternate screen, installs a panic hook that restores the
    /// terminal before the panic is reported, and starts reading keys.
    pub fn enter() -> io::Result<(Screen, UnboundedReceiver<Event>)> {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            restore();
            previous(info);
        }));
        terminal::enable_raw_mode()?;
        let mut stdout = io::stdout();
        if let Err(e) = execute!(stdout, terminal::EnterAlternateScreen, cursor::Hide) {
            restore();
            return Err(e);
        }
        let terminal = match Terminal::new(CrosstermBackend::new(stdout)) {
            Ok(t) => t,
            Err(e) => {
                restore();
                return Err(e);
            }
        };
        let stop = Arc::new(AtomicBool::new(false));
        let (tx, rx) = unbounded_channel();
        let stopped = stop.clone();
        std::thread::spawn(move || {
            while !stopped.load(Ordering::Relaxed) {
                // Polled with a timeout so the thread sees `stop` and ends before the
                // terminal is restored.
                match event::poll(Duration::from_millis(100)) {
                    Ok(false) => continue,
                    Ok(true) => match event::read() {
                        Ok(ev) => {
                            if tx.send(ev).is_err() {
                                return;
                            }
                        }
                        Err(_) => return,
                    },
                    Err(_) => return,
                }
            }
        });
        Ok((Screen { terminal, stop }, rx))
    }
}

impl Drop for Screen {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        restore();
    }
}

/// Leaves the alternate screen and raw mode and shows the cursor; harmless when they are
/// already off.
fn restore() {
    let _ = terminal::disable_raw_mode();
    let _ = execute!(io::stdout(), terminal::LeaveAlternateScreen, cursor::Show);
}
