fn main() -> std::process::ExitCode {
    // A consumer re-executes this binary as its reaper: that mode has no command line.
    if let Some(code) = qctl::reaper::init() {
        return code;
    }
    std::panic::set_hook(Box::new(|info| {
        qctl::output::stderr_line(&format!(
            "qctl: internal error (a bug in qctl; please report it): {info}"
        ));
    }));
    // Blocks of 1 MiB and more (job records, replies) get memory of their own, given back
    // when freed: glibc's default threshold follows the largest block freed, after which
    // big records are carved from the heaps of its arenas and their memory stays in the
    // process (tens of MiB per job of 16 MiB).
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes an allocator setting; called before any thread starts.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 20);
    }
    let cli = qctl::cli::parse();
    let read_only = cli.command.is_read_only();
    match std::panic::catch_unwind(|| qctl::commands::run(cli)) {
        Ok(Ok(code)) => code.into(),
        // A closed stdout (`qctl dead list q | head`): a read command ends quietly, one that
        // changes queues was stopped before it was done.
        Ok(Err(err)) if is_broken_pipe(&err) => {
            if read_only {
                std::process::ExitCode::SUCCESS
            } else {
                qctl::engine::ExitCode::OutputClosed.into()
            }
        }
        Ok(Err(err)) => {
            qctl::output::print_error(&err);
            qctl::engine::error::exit_code_of(&err).into()
        }
        // The hook has said what went wrong.
        Err(_) => qctl::engine::ExitCode::Failure.into(),
    }
}

/// Whether the error is a write to a closed pipe.
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
