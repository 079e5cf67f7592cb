fn main() -> std::process::ExitCode {
    // A consumer re-executes this binary as its reaper: that mode has no command line.
    if let Some(code) = qctl::reaper::init() {
        return code;
    }
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
