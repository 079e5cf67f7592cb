fn main() -> std::process::ExitCode {
    // A consumer re-executes this binary as its reaper: that mode has no command line.
    if let Some(code) = qctl::reaper::init() {
        return code;
    }
    let cli = qctl::cli::parse();
    match qctl::commands::run(cli) {
        Ok(code) => code.into(),
        Err(err) if is_broken_pipe(&err) => std::process::ExitCode::SUCCESS,
        Err(err) => {
            qctl::output::print_error(&err);
            qctl::engine::error::exit_code_of(&err).into()
        }
    }
}

/// A closed stdout (`qctl ... | head`) ends the command quietly.
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
