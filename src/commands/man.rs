//! `qctl man`: the manual pages, generated from the CLI definition like the completions.
//! One page per command, as git does: qctl.1 names qctl-enqueue(1), qctl-dead-list(1), ...

use std::path::Path;

use anyhow::Context as _;

use super::Context;

use crate::engine::ExitCode;

pub fn run(mut ctx: Context, dir: Option<&Path>) -> anyhow::Result<ExitCode> {
    let pages = pages()?;
    match dir {
        None => {
            let (_, page) = &pages[0];
            ctx.out.line(page.strip_suffix(b"\n").unwrap_or(page))?;
        }
        Some(dir) => {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create the directory {}", dir.display()))?;
            for (name, page) in &pages {
                let path = dir.join(name);
                std::fs::write(&path, page)
                    .with_context(|| format!("cannot write {}", path.display()))?;
                ctx.out.line(path.as_os_str().as_encoded_bytes())?;
            }
        }
    }
    ctx.out.flush()?;
    Ok(ExitCode::Success)
}

/// Every manual page as (file name, roff): qctl.1 first, then one per subcommand, depth
/// first (`qctl dead list` is qctl-dead-list.1).
pub fn pages() -> std::io::Result<Vec<(String, Vec<u8>)>> {
    let mut cmd = crate::cli::command().disable_help_subcommand(true);
    cmd.build();
    let mut pages = Vec::new();
    add_pages(cmd, &mut pages)?;
    Ok(pages)
}

fn add_pages(cmd: clap::Command, pages: &mut Vec<(String, Vec<u8>)>) -> std::io::Result<()> {
    let subcommands: Vec<_> = cmd
        .get_subcommands()
        .filter(|s| !s.is_hide_set())
        .cloned()
        .collect();
    let man = clap_mangen::Man::new(cmd);
    let mut page = Vec::new();
    man.render(&mut page)?;
    pages.push((man.get_filename(), page));
    for sub in subcommands {
        add_pages(sub, pages)?;
    }
    Ok(())
}
