//! Everything that talks to the terminal: results on stdout (text or JSON), messages,
//! progress bars and confirmations on stderr.

use std::io::{self, BufWriter, IsTerminal, Stdout, Write};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::cli::GlobalArgs;

/// How results and messages are shown, from the global flags.
pub struct Output {
    pub json: bool,
    pub quiet: bool,
    pub verbose: u8,
    pub color: bool,
    stdout: BufWriter<Stdout>,
}

impl Output {
    pub fn new(global: &GlobalArgs) -> Self {
        let no_color_env = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Output {
            json: global.json,
            quiet: global.quiet,
            verbose: global.verbose,
            color: !global.no_color && !no_color_env && io::stderr().is_terminal(),
            stdout: BufWriter::with_capacity(64 * 1024, io::stdout()),
        }
    }

    /// One line of result on stdout.
    pub fn line(&mut self, text: impl AsRef<[u8]>) -> io::Result<()> {
        self.stdout.write_all(text.as_ref())?;
        self.stdout.write_all(b"\n")
    }

    /// One JSON value on its own line on stdout.
    pub fn json_line(&mut self, value: &impl serde::Serialize) -> io::Result<()> {
        serde_json::to_writer(&mut self.stdout, value).map_err(io::Error::from)?;
        self.stdout.write_all(b"\n")
    }

    pub fn flush(&mut self) -> io::Result<()> {
        self.stdout.flush()
    }

    /// A message for people on stderr, unless --quiet.
    pub fn note(&self, msg: impl std::fmt::Display) {
        if !self.quiet {
            eprintln!("{msg}");
        }
    }

    /// A warning on stderr, unless --quiet.
    pub fn warn(&self, msg: impl std::fmt::Display) {
        if !self.quiet {
            eprintln!("{} {msg}", self.paint("warning:", "33"));
        }
    }

    /// Detail shown with -v.
    pub fn verbose(&self, msg: impl std::fmt::Display) {
        if self.verbose > 0 && !self.quiet {
            eprintln!("{msg}");
        }
    }

    /// `text` in an ANSI colour when colour is on.
    pub fn paint(&self, text: &str, ansi: &str) -> String {
        if self.color {
            format!("\x1b[{ansi}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }

    /// A counter with a rate on stderr; hidden when stderr is no terminal or with --quiet.
    pub fn counter(&self, what: &str) -> ProgressBar {
        if self.quiet || !io::stderr().is_terminal() {
            return ProgressBar::hidden();
        }
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        bar.set_style(
            ProgressStyle::with_template(&format!(
                "{{spinner}} {{human_pos}} {what} ({{per_sec}}, {{elapsed}})"
            ))
            .expect("valid progress template"),
        );
        bar.enable_steady_tick(Duration::from_millis(120));
        bar
    }
}

/// Prints an error for people: `qctl: <message>` with each cause on its own line.
pub fn print_error(err: &anyhow::Error) {
    let mut text = format!("qctl: {err}");
    for cause in err.chain().skip(1) {
        let cause = cause.to_string();
        // Typed errors often repeat their source; print each distinct part once.
        if !text.contains(&cause) {
            text.push_str(&format!("\n  caused by: {cause}"));
        }
    }
    eprintln!("{}", crate::engine::error::redact(&text));
}
