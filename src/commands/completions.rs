//! `qctl completions SHELL`: the completion script, generated from the CLI definition.

use clap_complete::Shell as Target;

use super::Context;
use crate::cli::Shell;
use crate::engine::ExitCode;

pub fn run(mut ctx: Context, shell: Shell) -> anyhow::Result<ExitCode> {
    let mut buf = Vec::new();
    generate(shell, &mut buf);
    ctx.out.line(buf.strip_suffix(b"\n").unwrap_or(&buf))?;
    ctx.out.flush()?;
    Ok(ExitCode::Success)
}

/// Writes the completion script for `shell`.
pub fn generate(shell: Shell, buf: &mut Vec<u8>) {
    let target = match shell {
        Shell::Bash => Target::Bash,
        Shell::Zsh => Target::Zsh,
        Shell::Fish => Target::Fish,
        Shell::Elvish => Target::Elvish,
        Shell::Powershell => Target::PowerShell,
    };
    clap_complete::generate(target, &mut crate::cli::command(), "qctl", buf);
}
