//! The docs a person reads: every link of README.md and docs/ resolves, every `qctl` command
//! they show parses, and the README's tour and the operator's guide run as written, each recipe
//! against a real redis-server set up in the situation it describes.

mod support;

use std::collections::{BTreeMap, HashSet};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use std::os::unix::process::CommandExt as _;
use support::{figure, invariants, qctl, qctl_process, wait_until, Background, RedisServer};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// README.md and every page of docs/, as (path from the root, text).
fn pages() -> Vec<(String, String)> {
    let mut names = vec!["README.md".to_string()];
    let mut docs: Vec<String> = std::fs::read_dir(format!("{ROOT}/docs"))
        .expect("docs/")
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .map(|n| format!("docs/{n}"))
        .collect();
    docs.sort();
    names.extend(docs);
    names
        .into_iter()
        .map(|n| {
            let text = std::fs::read_to_string(format!("{ROOT}/{n}")).unwrap();
            (n, text)
        })
        .collect()
}

/// GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == '-' || *c == '_' || *c == ' ')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The lines of a page outside its code blocks, and its code blocks as (language, section
/// heading, text).
struct Page {
    prose: Vec<String>,
    blocks: Vec<(String, String, String)>,
}

fn parse(text: &str) -> Page {
    let mut page = Page {
        prose: Vec::new(),
        blocks: Vec::new(),
    };
    let mut block: Option<(String, String)> = None;
    let mut section = String::new();
    for line in text.lines() {
        if let Some(fence) = line.strip_prefix("```") {
            match block.take() {
                Some((lang, body)) => page.blocks.push((lang, section.clone(), body)),
                None => block = Some((fence.trim().to_string(), String::new())),
            }
            continue;
        }
        match &mut block {
            Some((_, body)) => {
                body.push_str(line);
                body.push('\n');
            }
            None => {
                if let Some(h) = line.strip_prefix("## ") {
                    section = h.to_string();
                }
                page.prose.push(line.to_string());
            }
        }
    }
    assert!(block.is_none(), "a code block is never closed");
    page
}

/// The anchors of a page's headings (a repeated heading gets `-1`, `-2`, as on GitHub).
fn anchors(page: &Page) -> HashSet<String> {
    let mut found = HashSet::new();
    for line in &page.prose {
        let hashes = line.chars().take_while(|c| *c == '#').count();
        if (1..=6).contains(&hashes) && line[hashes..].starts_with(' ') {
            let base = slug(&line[hashes + 1..]);
            let mut anchor = base.clone();
            let mut n = 0;
            while found.contains(&anchor) {
                n += 1;
                anchor = format!("{base}-{n}");
            }
            found.insert(anchor);
        }
    }
    found
}

/// The targets of the Markdown links `[text](target)` of a line.
fn link_targets(line: &str) -> Vec<String> {
    let mut targets = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("](") {
        rest = &rest[at + 2..];
        if let Some(end) = rest.find(')') {
            targets.push(rest[..end].to_string());
            rest = &rest[end..];
        }
    }
    targets
}

#[test]
fn every_link_in_the_readme_and_the_docs_resolves() {
    let pages = pages();
    let parsed: BTreeMap<&str, Page> = pages
        .iter()
        .map(|(name, text)| (name.as_str(), parse(text)))
        .collect();
    let anchors: BTreeMap<&str, HashSet<String>> =
        parsed.iter().map(|(n, p)| (*n, anchors(p))).collect();
    let mut broken = Vec::new();
    let mut reached: HashSet<String> = HashSet::new();
    let mut checked = 0;
    for (name, page) in &parsed {
        let dir = Path::new(name).parent().unwrap_or(Path::new(""));
        for line in &page.prose {
            for target in link_targets(line) {
                if target.contains("://") || target.starts_with("mailto:") {
                    continue;
                }
                checked += 1;
                let (path, fragment) = target.split_once('#').unwrap_or((&target, ""));
                let file = if path.is_empty() {
                    name.to_string()
                } else {
                    normalise(&dir.join(path))
                };
                if !Path::new(ROOT).join(&file).exists() {
                    broken.push(format!("{name}: {target}: no file {file}"));
                    continue;
                }
                reached.insert(file.clone());
                if !fragment.is_empty() {
                    match anchors.get(file.as_str()) {
                        Some(a) if a.contains(fragment) => {}
                        Some(_) => broken.push(format!("{name}: {target}: no heading #{fragment}")),
                        None => broken.push(format!(
                            "{name}: {target}: an anchor into a file that is not a page"
                        )),
                    }
                }
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
    let readme_links: HashSet<String> = parsed["README.md"]
        .prose
        .iter()
        .flat_map(|l| link_targets(l))
        .map(|t| t.split('#').next().unwrap().to_string())
        .collect();
    for (name, _) in &pages {
        if name != "README.md" {
            assert!(
                readme_links.contains(name),
                "README.md links to every page of docs/: {name} is missing"
            );
        }
    }
    assert!(checked > 50, "links were found: {checked}");
    figure(&format!(
        "D1 {checked} links in {} pages resolve (files and headings); README links to all {} pages of docs/",
        pages.len(),
        pages.len() - 1
    ));
}

fn normalise(path: &Path) -> String {
    let mut parts: Vec<String> = Vec::new();
    for c in path.components() {
        match c {
            std::path::Component::ParentDir => {
                parts.pop();
            }
            std::path::Component::CurDir => {}
            other => parts.push(other.as_os_str().to_string_lossy().into_owned()),
        }
    }
    parts.join("/")
}

/// The command lines of a shell block: comments dropped, `\` continuations joined. Each comes
/// with the exit code its comment names (`# exit 7`), else 0.
fn command_lines(block: &str) -> Vec<(String, i32)> {
    let mut lines = Vec::new();
    let mut pending = String::new();
    for raw in block.lines() {
        if let Some(head) = raw.strip_suffix('\\') {
            pending.push_str(head);
            continue;
        }
        let line = format!("{pending}{raw}");
        pending.clear();
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let (command, comment) = match trimmed.find("  #") {
            Some(at) => (trimmed[..at].trim_end(), &trimmed[at..]),
            None => (trimmed, ""),
        };
        let code = comment
            .split("exit ")
            .nth(1)
            .and_then(|rest| {
                let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
                digits.parse().ok()
            })
            .unwrap_or(0);
        lines.push((command.to_string(), code));
    }
    lines
}

/// The qctl invocations of a command line, as argv: split at `|`, `;` and `&&`, leading
/// `VAR=value` and redirections dropped.
fn qctl_invocations(line: &str) -> Vec<Vec<String>> {
    let words = shlex::split(line).unwrap_or_else(|| panic!("not shell words: {line}"));
    let mut found = Vec::new();
    for segment in words.split(|w| ["|", "&&", ";", "||"].contains(&w.as_str())) {
        let mut argv: Vec<String> = Vec::new();
        let mut words = segment
            .iter()
            .skip_while(|w| w.contains('=') && !w.starts_with('-'))
            .peekable();
        if words.peek().map(|w| w.as_str()) != Some("qctl") {
            continue;
        }
        while let Some(w) = words.next() {
            if [">", "<", ">>", "2>"].contains(&w.as_str()) {
                words.next();
            } else if w == "2>&1" || w.starts_with('>') || w.starts_with('<') {
            } else {
                argv.push(w.trim_end_matches(';').to_string());
            }
        }
        found.push(argv);
    }
    found
}

#[test]
fn every_qctl_command_in_the_docs_parses() {
    let mut parsed = 0;
    let mut wrong = Vec::new();
    for (name, text) in pages() {
        for (lang, section, block) in parse(&text).blocks {
            if lang != "sh" {
                continue;
            }
            for (line, _) in command_lines(&block) {
                // One block of the development page shows a ; inside a word list.
                let line = line.replace("; ", " ; ");
                for argv in qctl_invocations(&line) {
                    parsed += 1;
                    if let Err(e) = qctl::cli::command().try_get_matches_from(&argv) {
                        wrong.push(format!("{name} ({section}): {line}\n{e}"));
                    }
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
    assert!(parsed > 60, "commands were found: {parsed}");
    figure(&format!(
        "D2 {parsed} qctl commands shown in README.md and docs/ parse"
    ));
}

/// Where the docs' commands run: a directory with the scripts they name, qctl first on the
/// PATH, `QCTL_REDIS_URL` set.
struct Shell {
    dir: tempfile::TempDir,
    env: Vec<(String, String)>,
}

impl Shell {
    fn new(server: &RedisServer) -> Shell {
        let dir = tempfile::tempdir().expect("temp dir");
        let bin = Path::new(env!("CARGO_BIN_EXE_qctl")).parent().unwrap();
        let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
        Shell {
            dir,
            env: vec![
                ("PATH".into(), path),
                ("QCTL_REDIS_URL".into(), server.url()),
                ("COLUMNS".into(), "100".into()),
            ],
        }
    }

    fn script(&self, name: &str, body: &str) {
        let path = self.dir.path().join(name);
        std::fs::write(&path, body).unwrap();
        let mut perms = std::fs::metadata(&path).unwrap().permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
        std::fs::set_permissions(&path, perms).unwrap();
    }

    fn command(&self, line: &str) -> Command {
        let mut cmd = Command::new("bash");
        cmd.arg("-c")
            .arg(line)
            .current_dir(self.dir.path())
            .env_remove("REDIS_URL")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for var in support::TLS_ENV {
            cmd.env_remove(var);
        }
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        cmd
    }

    /// Runs one line of the docs as a person would and checks it ends as they say. A command
    /// that runs until stopped (a consumer, `--watch`, `tail` without `--no-follow`, `web`) is
    /// stopped with SIGTERM after two seconds, and ends with 0.
    fn run(&self, what: &str, line: &str, want: i32) -> String {
        // A line in braces (`{ qctl web; } 2>&1`) is the command in them.
        let until_stopped = qctl_invocations(line.trim_start_matches("{ "))
            .iter()
            .any(|argv| {
                let has = |flag: &str| argv.iter().any(|a| a == flag);
                (argv.get(1).map(String::as_str) == Some("consume")
                    && !has("--drain")
                    && !has("--max-jobs"))
                    || has("--watch")
                    || (argv.get(1).map(String::as_str) == Some("tail") && !has("--no-follow"))
                    || argv.get(1).map(String::as_str) == Some("web")
            });
        let started = Instant::now();
        let out = if until_stopped {
            // The command in place of bash; a line in braces (`{ qctl web; } 2>&1`) under a
            // bash that waits for it and ends with its status.
            let mut cmd = if line.starts_with('{') {
                self.command(&format!("trap : TERM; {line}"))
            } else {
                self.command(&format!("exec {line}"))
            };
            cmd.process_group(0);
            let mut child = Background::spawn(cmd);
            std::thread::sleep(Duration::from_secs(2));
            let _ = killpg(Pid::from_raw(child.pid()), Signal::SIGTERM);
            let status = child.wait_timeout(Duration::from_secs(60));
            let code = status.and_then(|s| s.code());
            assert_eq!(
                code,
                Some(want),
                "{what}: `{line}` stopped with SIGTERM\nstdout: {}\nstderr: {}",
                child.stdout(),
                child.stderr()
            );
            child.stdout()
        } else {
            let out = self.command(line).output().expect("run bash");
            let (stdout, stderr) = (
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr),
            );
            assert_eq!(
                out.status.code(),
                Some(want),
                "{what}: `{line}`\nstdout: {stdout}\nstderr: {stderr}"
            );
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "{what}: `{line}` took {:?}",
                started.elapsed()
            );
            stdout.into_owned()
        };
        out
    }
}

/// The shell blocks of one section of a page, in order.
fn section_lines(page: &str, section: &str) -> Vec<(String, i32)> {
    let text = std::fs::read_to_string(format!("{ROOT}/{page}")).unwrap();
    let lines: Vec<(String, i32)> = parse(&text)
        .blocks
        .into_iter()
        .filter(|(lang, s, _)| lang == "sh" && s == section)
        .flat_map(|(_, _, block)| command_lines(&block))
        .collect();
    assert!(
        !lines.is_empty(),
        "{page} has a section \"{section}\" with commands"
    );
    lines
}

/// Runs every command of a guide recipe in order; the queue is sound afterwards.
fn run_recipe(server: &RedisServer, shell: &Shell, section: &str, queue: &str) -> usize {
    let lines = section_lines("docs/guide.md", section);
    for (line, want) in &lines {
        shell.run(section, line, *want);
    }
    let broken = invariants(server, queue);
    assert!(broken.is_empty(), "{section}: {broken:?}");
    lines.len()
}

fn enqueue_lines(server: &RedisServer, queue: &str, lines: &str) {
    qctl(server)
        .args(["enqueue", queue, "--lines", "-q"])
        .write_stdin(lines.to_string())
        .assert()
        .success();
}

/// Jobs in the in-flight sets of `queue`'s consumers.
fn in_flight(server: &RedisServer, queue: &str) -> u64 {
    let members: Vec<String> = server.cmd(&[
        b"ZRANGE",
        format!("{queue}:consumers").as_bytes(),
        b"0",
        b"-1",
    ]);
    members.iter().map(|k| count(server, b"SCARD", k)).sum()
}

fn count(server: &RedisServer, command: &[u8], key: &str) -> u64 {
    server.cmd(&[command, key.as_bytes()])
}

/// Text as it is shown in the docs' output blocks, with what differs from one run to the
/// next put in words: ids (UUIDs), clock times, dates, and durations of a run or a wait.
fn shape(text: &str) -> String {
    let mut out = String::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    let hex = |c: char| c.is_ascii_hexdigit() && !c.is_ascii_uppercase();
    let fits = |at: usize, pattern: &str| {
        pattern.chars().enumerate().all(|(k, p)| {
            chars.get(at + k).is_some_and(|&c| match p {
                'h' => hex(c),
                'd' => c.is_ascii_digit(),
                _ => c == p,
            })
        })
    };
    while i < chars.len() {
        if fits(i, "hhhhhhhh-hhhh-hhhh-hhhh-hhhhhhhhhhhh") {
            out.push_str("<id>");
            i += 36;
        } else if fits(i, "dddd-dd-ddTdd:dd:ddZ") {
            out.push_str("<date>");
            i += 20;
        } else if fits(i, "dd:dd:dd") {
            out.push_str("<time>");
            i += 8;
        } else if chars[i].is_ascii_digit()
            && (i == 0 || !chars[i - 1].is_ascii_alphanumeric())
            && {
                let end = (i..chars.len())
                    .find(|&k| !(chars[k].is_ascii_digit() || chars[k] == '.'))
                    .unwrap_or(chars.len());
                let after: String = chars[end..].iter().take(5).collect();
                after.starts_with(" ms")
                    || (after.starts_with('s') && chars[i..end].contains(&'.'))
                    || (after.starts_with(['s', 'm', 'h', 'd']) && after[1..].starts_with(" ago"))
            }
        {
            // `after 2 ms`, `due in 0.6s`, `0s ago`: how long a run, a wait or an age is.
            while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '.') {
                i += 1;
            }
            out.push_str("<n>");
        } else {
            out.push(chars[i]);
            i += 1;
        }
    }
    // A table's columns are as wide as their widest cell, which such a part may change.
    out.lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_readme_tour_runs_as_shown() {
    let server = RedisServer::start();
    let shell = Shell::new(&server);
    let readme = std::fs::read_to_string(format!("{ROOT}/README.md")).unwrap();
    let blocks: Vec<(String, String)> = parse(&readme)
        .blocks
        .into_iter()
        .filter(|(lang, s, _)| s == "A five-minute tour" && (lang == "sh" || lang == "text"))
        .map(|(lang, _, body)| (lang, body))
        .collect();
    assert!(
        blocks.iter().any(|(l, _)| l == "sh"),
        "the tour has commands"
    );
    let mut ran = 0;
    let mut compared = 0;
    // What the commands of the last shell block printed, stdout and stderr as a terminal
    // shows them, in order.
    let mut printed: Vec<(String, String)> = Vec::new();
    for (lang, body) in &blocks {
        if lang == "sh" {
            printed.clear();
            for (line, want) in command_lines(body) {
                // The tour's own throwaway server is this test's.
                if line.starts_with("redis-server ") || line.starts_with("export QCTL_REDIS_URL=") {
                    continue;
                }
                // `qctl web` serves on any free port here, shown as the 9188 of the tour: its
                // port may be taken on a machine that runs other tests or a demo.
                let web = line == "qctl web";
                let run = if web {
                    format!("{{ {line} --listen 127.0.0.1:0; }} 2>&1")
                } else {
                    format!("{{ {line}; }} 2>&1")
                };
                let mut out = shell.run("the tour", &run, want);
                // What names the server names the tour's (`qctl web` says where it reads).
                out = out.replace(&format!("127.0.0.1:{}", server.port()), "127.0.0.1:6390");
                if web {
                    out = out
                        .split("http://127.0.0.1:")
                        .enumerate()
                        .map(|(i, part)| match i {
                            0 => part.to_string(),
                            _ => format!(
                                "http://127.0.0.1:9188{}",
                                part.trim_start_matches(|c: char| c.is_ascii_digit())
                            ),
                        })
                        .collect();
                }
                printed.push((line, out));
                ran += 1;
            }
            continue;
        }
        if body.lines().any(|l| l.starts_with("$ ")) {
            // A transcript: each command as typed, then what it printed, in shape.
            let mut shown: Vec<(String, String)> = Vec::new();
            for l in body.lines() {
                match l.strip_prefix("$ ") {
                    Some(command) => shown.push((command.to_string(), String::new())),
                    None => {
                        let last = shown
                            .last_mut()
                            .expect("a transcript starts with a command");
                        last.1.push_str(l);
                        last.1.push('\n');
                    }
                }
            }
            let typed: Vec<&String> = printed.iter().map(|(c, _)| c).collect();
            let transcript: Vec<&String> = shown.iter().map(|(c, _)| c).collect();
            assert_eq!(
                transcript, typed,
                "the transcript shows the commands of the block above"
            );
            for ((command, expected), (_, got)) in shown.iter().zip(&printed) {
                assert_eq!(
                    shape(got),
                    shape(expected),
                    "`{command}` prints what the tour shows"
                );
                compared += 1;
            }
        } else {
            // What the command above printed, some lines of which depend on timing (a wait
            // for a retry that is not due yet): every line it printed is shown.
            let [(command, got)] = printed.as_slice() else {
                panic!("an output block without a transcript follows one command");
            };
            let expected: Vec<String> = body.lines().map(shape).collect();
            for line in got.lines() {
                assert!(
                    expected.contains(&shape(line)),
                    "`{command}` printed a line the tour does not show:\n{line}\nshown:\n{body}"
                );
            }
            compared += 1;
        }
    }
    assert_eq!(
        count(&server, b"ZCARD", "mail:dead"),
        0,
        "requeued at the end"
    );
    assert_eq!(count(&server, b"LLEN", "mail:active"), 1, "job 13 is back");
    figure(&format!(
        "D3 the README's tour: {ran} commands ran as shown against a fresh redis-server, {compared} outputs as shown"
    ));
}

#[test]
fn a_queue_backs_up() {
    let server = RedisServer::start();
    let shell = Shell::new(&server);
    shell.script("send.sh", "#!/bin/sh\ncat > /dev/null\n");
    enqueue_lines(
        &server,
        "mail",
        &(1..=200).map(|i| format!("{i}\n")).collect::<String>(),
    );
    // A consumer busy with two long jobs, and the queue paused.
    let mut busy = Background::spawn({
        let mut cmd = qctl_process(&server);
        cmd.args([
            "consume",
            "mail",
            "-c",
            "2",
            "--shutdown-grace",
            "0s",
            "--",
            "sleep",
            "30",
        ]);
        cmd
    });
    assert!(wait_until(Duration::from_secs(15), || in_flight(
        &server, "mail"
    ) >= 2));
    qctl(&server).args(["pause", "mail"]).assert().success();
    let ran = run_recipe(&server, &shell, "A queue backs up", "mail");
    assert!(busy.stop(Duration::from_secs(30)).is_some());
    assert_eq!(count(&server, b"EXISTS", "mail:paused"), 0, "resumed");
    let left = count(&server, b"LLEN", "mail:active");
    assert!(left < 200, "the recipe's consumer ran jobs: {left} left");
    figure(&format!(
        "D4 guide, a queue backs up: {ran} commands ran as shown; {} of 200 jobs run by the recipe's consumer",
        200 - left
    ));
}

#[test]
fn jobs_fail_with_one_error() {
    let server = RedisServer::start();
    let shell = Shell::new(&server);
    // Big mails time out; three addresses are refused; the rest go.
    shell.script(
        "flaky.sh",
        "#!/bin/sh\ncase \"$1\" in\n  *big*) sleep 5 ;;\n  *bad*) echo \"550 invalid address: $1\" >&2; exit 3 ;;\nesac\n",
    );
    for i in 1040..1050 {
        support::enqueue(
            &server,
            "mail",
            &format!("order-{i}"),
            format!("big mail {i}").as_bytes(),
        );
    }
    for i in 1..=3 {
        support::enqueue(
            &server,
            "mail",
            &format!("bad-{i}"),
            format!("bad{i}@nowhere").as_bytes(),
        );
    }
    enqueue_lines(
        &server,
        "mail",
        &(1..=20).map(|i| format!("{i}\n")).collect::<String>(),
    );
    shell.run(
        "set up",
        "qctl consume mail --drain -c 8 --max-retries 0 --timeout 200ms --kill-after 100ms --replace {} -- ./flaky.sh {}",
        7,
    );
    assert_eq!(count(&server, b"ZCARD", "mail:dead"), 13);
    let ran = run_recipe(&server, &shell, "Jobs fail with one error", "mail");
    assert_eq!(
        count(&server, b"ZCARD", "mail:dead"),
        0,
        "requeued and deleted"
    );
    assert_eq!(
        count(&server, b"LLEN", "mail:active"),
        10,
        "the timeouts are back"
    );
    let export = std::fs::read_to_string(shell.dir.path().join("timeouts.jsonl")).unwrap();
    assert_eq!(export.lines().count(), 10, "the copy holds the ten");
    figure(&format!(
        "D5 guide, jobs fail with one error: {ran} commands ran as shown; 10 timeouts requeued, 3 refused addresses deleted"
    ));
}

#[test]
fn a_consumer_host_died() {
    let server = RedisServer::start();
    let shell = Shell::new(&server);
    enqueue_lines(&server, "mail", "1\n2\n3\n4\n5\n");
    // A consumer killed with SIGKILL while it held two jobs; ten minutes pass.
    let mut victim = Background::spawn({
        let mut cmd = qctl_process(&server);
        cmd.args(["consume", "mail", "-c", "2", "--", "sleep", "30"]);
        cmd
    });
    let held = || in_flight(&server, "mail");
    assert!(wait_until(Duration::from_secs(15), || held() >= 2));
    victim.signal(Signal::SIGKILL);
    assert!(victim.wait_timeout(Duration::from_secs(10)).is_some());
    let members: Vec<String> = server.cmd(&[b"ZRANGE", b"mail:consumers", b"0", b"-1"]);
    let old = (qctl::engine::now() - 600.0).to_string();
    for m in &members {
        let _: () = server.cmd(&[b"ZADD", b"mail:consumers", old.as_bytes(), m.as_bytes()]);
    }
    let ran = run_recipe(&server, &shell, "A consumer host died", "mail");
    assert_eq!(held(), 0, "nothing left in flight");
    assert_eq!(
        count(&server, b"LLEN", "mail:active"),
        5,
        "every job is ready again"
    );
    figure(&format!(
        "D6 guide, a consumer host died: {ran} commands ran as shown; the 2 jobs of a SIGKILLed consumer back in mail:active"
    ));
}

#[test]
fn move_a_queue() {
    let server = RedisServer::start();
    let to = RedisServer::start();
    let mut shell = Shell::new(&server);
    shell.env.push(("TO_URL".into(), to.url()));
    // Ready jobs, one for later, a retry with its failure and a dead job.
    enqueue_lines(&server, "mail", "1\n2\n3\nfail\n5\n");
    qctl(&server)
        .args(["enqueue", "mail", "--in", "1h", "--id", "later-1", "later"])
        .assert()
        .success();
    shell.run(
        "set up",
        "qctl consume mail --max-jobs 1 --max-retries 0 --drain -- sh -c 'test \"$(cat)\" != 1'",
        7,
    );
    let jobs = |dump: Vec<(String, String, String)>, name: &str| -> Vec<(String, String, String)> {
        dump.into_iter()
            .filter_map(|(k, t, v)| {
                let rest = k.strip_prefix(name)?.to_string();
                [":active", ":data", ":scheduled", ":dead", ":failures"]
                    .contains(&rest.as_str())
                    .then_some((rest, t, v))
            })
            .collect()
    };
    let before = jobs(server.dump_all(), "mail");
    assert_eq!(before.len(), 5, "every kind of key is there: {before:?}");
    let ran = run_recipe(&server, &shell, "Move a queue", "mail");
    assert_eq!(
        jobs(to.dump_all(), "{mail}"),
        before,
        "every job arrived byte for byte in its state"
    );
    let left: Vec<String> = server.cmd(&[b"KEYS", b"mail:*"]);
    assert_eq!(
        left,
        ["mail:changes"],
        "nothing but the record of its changes is left on the source"
    );
    assert!(invariants(&to, "{mail}").is_empty());
    figure(&format!(
        "D7 guide, move a queue: {ran} commands ran as shown; every job key arrived byte for byte under the new name, none left behind"
    ));
}

#[test]
fn ci_with_qctl() {
    let server = RedisServer::start();
    let shell = Shell::new(&server);
    std::fs::write(
        shell.dir.path().join("cases.txt"),
        "unit\nlint\nintegration\ndocs\n",
    )
    .unwrap();
    shell.script(
        "run-test.sh",
        "#!/bin/sh\n[ \"$1\" != integration ] || { echo \"integration: 2 of 40 failed\" >&2; exit 1; }\n",
    );
    let ran = run_recipe(&server, &shell, "CI with qctl", "tests");
    let dead: Vec<String> = server.cmd(&[b"ZRANGE", b"tests:dead", b"0", b"-1"]);
    assert_eq!(dead.len(), 1, "the failed case is in the dead set");
    figure(&format!(
        "D8 guide, CI with qctl: {ran} commands ran as shown; the drain exited 7 with the one failed case in tests:dead"
    ));
}

/// A directory of stand-ins for `scripts/test` to find on its PATH: the real programs it runs
/// (bash, env, dirname, id), and `apt-get`, `sudo`, `cargo` and each of `present` as scripts that
/// write their arguments (and, for cargo, the tests' switches) to `calls`.
fn stand_ins(dir: &Path, present: &[&str]) {
    for real in ["bash", "env", "dirname", "id"] {
        let found = ["/usr/bin", "/bin"]
            .iter()
            .map(|d| Path::new(d).join(real))
            .find(|p| p.is_file())
            .unwrap_or_else(|| panic!("{real} is not in /usr/bin or /bin"));
        std::os::unix::fs::symlink(found, dir.join(real)).unwrap();
    }
    let calls = dir.join("calls");
    let mut scripts = vec![
        (
            "apt-get".to_string(),
            format!("echo \"apt-get $*\" >> '{}'", calls.display()),
        ),
        ("sudo".to_string(), "exec \"$@\"".to_string()),
        (
            "cargo".to_string(),
            format!(
                "echo \"cargo $* tmux=${{QCTL_REQUIRE_TMUX:-}} faketime=${{QCTL_REQUIRE_FAKETIME:-}} browser=${{QCTL_REQUIRE_BROWSER:-}}\" >> '{}'",
                calls.display()
            ),
        ),
    ];
    scripts.extend(
        present
            .iter()
            .map(|p| (p.to_string(), "exit 0".to_string())),
    );
    for (name, body) in scripts {
        let path = dir.join(name);
        std::fs::write(&path, format!("#!{}/bash\n{body}\n", dir.display())).unwrap();
        let mut perms = std::fs::metadata(&path).unwrap().permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
        std::fs::set_permissions(&path, perms).unwrap();
    }
}

/// The README's test command, on a machine without the tools the tests use, installs them
/// and then runs `cargo test` with its arguments and with no test left to skip; on a machine
/// that has them, it installs nothing. CI (`.ci/run`) runs that same command.
#[test]
fn the_readmes_test_command_installs_what_the_tests_need_and_ci_runs_it() {
    let readme = std::fs::read_to_string(format!("{ROOT}/README.md")).unwrap();
    let first_block = parse(&readme)
        .blocks
        .into_iter()
        .next()
        .expect("a code block");
    let commands: Vec<&str> = first_block
        .2
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(
        commands,
        ["scripts/demo", "scripts/test"],
        "the README starts with the demo and the test command"
    );
    let ci = std::fs::read_to_string(format!("{ROOT}/.ci/run")).unwrap();
    assert!(
        ci.lines()
            .any(|l| l.trim_start().starts_with("scripts/test --locked")),
        ".ci/run runs the README's test command"
    );

    let run = |present: &[&str]| -> String {
        let dir = tempfile::tempdir().unwrap();
        stand_ins(dir.path(), present);
        let out = Command::new(dir.path().join("bash"))
            .arg(format!("{ROOT}/scripts/test"))
            .args(["--test", "consume"])
            .env_clear()
            .env("PATH", dir.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "scripts/test: {:?}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        std::fs::read_to_string(dir.path().join("calls")).unwrap_or_default()
    };
    let bare = run(&[]);
    assert_eq!(
        bare,
        "apt-get update -qq\n\
         apt-get install -y -qq redis-server groff-base tmux faketime jq python3 bsdutils chromium chromium-driver\n\
         cargo test --test consume tmux=1 faketime=1 browser=1\n",
        "on a bare machine"
    );
    let equipped = run(&[
        "redis-server",
        "groff",
        "tmux",
        "faketime",
        "jq",
        "python3",
        "script",
        "chromium",
        "chromedriver",
    ]);
    assert_eq!(
        equipped, "cargo test --test consume tmux=1 faketime=1 browser=1\n",
        "on a machine with every tool"
    );
}

/// `scripts/demo` shows each command as a reader would type it: `qctl` by its name, not the
/// path of the build, and an argument the shell would split or expand in single quotes.
#[test]
fn the_demo_shows_its_commands_as_they_would_be_typed() {
    let demo = std::fs::read_to_string(format!("{ROOT}/scripts/demo")).unwrap();
    let start = demo
        .find("\nshown() {")
        .expect("scripts/demo defines shown()")
        + 1;
    let end = start + demo[start..].find("\n}\n").expect("the end of shown()") + 3;
    let script = format!(
        "{}shown /tmp/target/release/qctl enqueue mail --id welcome-42 '{{\"to\":\"b@example.com\"}}' \"it's\" 'a b'",
        &demo[start..end]
    );
    let out = Command::new("bash").args(["-c", &script]).output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "qctl enqueue mail --id welcome-42 '{\"to\":\"b@example.com\"}' 'it'\\''s' 'a b'\n"
    );
}

/// The commands quoted in the prose of a page (`` `qctl ...` ``), outside code blocks.
fn inline_commands(page: &Page) -> Vec<String> {
    let mut found = Vec::new();
    for line in &page.prose {
        for (i, span) in line.split('`').enumerate() {
            if i % 2 == 1 && span.starts_with("qctl ") {
                found.push(span.to_string());
            }
        }
    }
    found
}

#[test]
fn every_qctl_command_quoted_in_the_prose_parses() {
    let mut parsed = 0;
    let mut wrong = Vec::new();
    for (name, text) in pages() {
        for line in inline_commands(&parse(&text)) {
            let Some(words) = shlex::split(&line) else {
                wrong.push(format!("{name}: `{line}` is not shell words"));
                continue;
            };
            let argv: Vec<&str> = words
                .iter()
                .map(String::as_str)
                .take_while(|w| !["|", "&&", ";", ">", "2>", "2>&1"].contains(w))
                .collect();
            // A command named without its arguments (`qctl pause`) is a name, not an
            // example; `...` stands for what is left out, and a synopsis has placeholders
            // (`qctl completions SHELL`) or choices (`[--dir DIR]`, `bash|zsh`).
            let placeholder = |w: &&str| w.len() > 1 && w.chars().all(|c| c.is_ascii_uppercase());
            if line.contains("...") || line.contains(['[', '|']) || argv.iter().any(placeholder) {
                continue;
            }
            parsed += 1;
            if let Err(e) = qctl::cli::command().try_get_matches_from(&argv) {
                use clap::error::ErrorKind;
                if !matches!(
                    e.kind(),
                    ErrorKind::DisplayHelp | ErrorKind::MissingRequiredArgument
                ) {
                    wrong.push(format!("{name}: `{line}`\n{e}"));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
    assert!(parsed > 40, "commands were found: {parsed}");
}

/// The drain of docs/consume.md, `qctl consume build --drain -- ./task.sh && echo all passed`,
/// run as written with a task that always fails: with a drain's own retry defaults it ends
/// with exit 7 after three runs, not after days of backoff.
#[test]
fn the_drain_example_with_a_failing_task_ends_soon_with_exit_7() {
    let server = RedisServer::start();
    let shell = Shell::new(&server);
    let lines = section_lines("docs/consume.md", "`qctl consume QUEUE -- CMD [ARGS...]`");
    let (line, _) = lines
        .iter()
        .find(|(l, _)| l.contains("--drain") && l.contains("./task.sh"))
        .expect("the drain example");
    shell.script(
        "task.sh",
        "#!/bin/sh\necho run >> runs.txt\necho 'task failed' >&2\nexit 1\n",
    );
    qctl(&server)
        .args(["enqueue", "build", "case-1"])
        .assert()
        .success();
    let mut cmd = shell.command(line);
    cmd.process_group(0);
    let mut drain = Background::spawn(cmd);
    // Generous: the three runs and their backoff take about 3 s.
    let status = drain.wait_timeout(Duration::from_secs(90));
    if status.is_none() {
        let _ = killpg(Pid::from_raw(drain.pid()), Signal::SIGKILL);
    }
    let code = status.and_then(|s| s.code());
    assert_eq!(
        code,
        Some(7),
        "`{line}` (None: still running after 90 s)\nstdout: {}\nstderr: {}",
        drain.stdout(),
        drain.stderr()
    );
    assert!(!drain.stdout().contains("all passed"), "{}", drain.stdout());
    let runs = std::fs::read_to_string(shell.dir.path().join("runs.txt")).unwrap();
    assert_eq!(runs.lines().count(), 3, "the task ran 3 times");
    assert!(
        drain
            .stderr()
            .contains("moved to the dead set after 3 failures"),
        "{}",
        drain.stderr()
    );
    let dead: Vec<String> = server.cmd(&[b"ZRANGE", b"build:dead", b"0", b"-1"]);
    assert_eq!(dead.len(), 1);
}

/// `scripts/demo --web` (the README's demo, with the page): after the round trip it serves
/// `qctl web` on the same Redis while consumers work through new jobs, some of which fail for
/// three causes (the dead groups the page shows), and Ctrl-C (SIGINT to its process group, as
/// a terminal sends it) ends it with every process it started stopped, its Redis with them,
/// and its temporary directory removed. A stand-in `cargo` gives it the debug build.
#[test]
fn the_demo_with_web_serves_the_page_while_jobs_fail_and_ctrl_c_leaves_nothing_behind() {
    let fake = tempfile::tempdir().unwrap();
    let cargo = fake.path().join("cargo");
    std::fs::write(
        &cargo,
        format!(
            "#!/bin/sh\necho '{{\"reason\":\"compiler-artifact\",\"executable\":\"{}\"}}'\n",
            env!("CARGO_BIN_EXE_qctl")
        ),
    )
    .unwrap();
    let mut perms = std::fs::metadata(&cargo).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&cargo, perms).unwrap();
    let mut cmd = Command::new("bash");
    cmd.arg(format!("{ROOT}/scripts/demo"))
        .arg("--web")
        .env(
            "PATH",
            format!(
                "{}:{}",
                fake.path().display(),
                std::env::var("PATH").unwrap_or_default()
            ),
        )
        .env_remove("QCTL_REDIS_URL")
        .env_remove("REDIS_URL")
        .env_remove("QCTL_WEB_PASSWORD")
        .env_remove("QCTL_WEB_PASSWORD_FILE")
        .process_group(0);
    let mut demo = Background::spawn(cmd);
    let pgid = Pid::from_raw(demo.pid());
    // A failing assertion stops the demo as SIGTERM does (its trap stops what it started),
    // before `demo` is dropped.
    struct Stopped(Pid);
    impl Drop for Stopped {
        fn drop(&mut self) {
            if support::group_running(self.0.as_raw()) {
                let _ = killpg(self.0, Signal::SIGTERM);
                wait_until(Duration::from_secs(60), || {
                    !support::group_running(self.0.as_raw())
                });
                let _ = killpg(self.0, Signal::SIGKILL);
            }
        }
    }
    let _stopped = Stopped(pgid);
    let said = |demo: &Background, what: &str| -> Option<String> {
        demo.stdout()
            .lines()
            .find_map(|l| l.trim().strip_prefix(what).map(str::to_string))
    };
    let mut url = None;
    wait_until(Duration::from_secs(300), || {
        url = said(&demo, "open ");
        url.is_some() || !support::running(demo.pid())
    });
    let Some(url) = url else {
        let _ = killpg(pgid, Signal::SIGKILL);
        panic!(
            "scripts/demo --web printed no URL\nstdout: {}\nstderr: {}",
            demo.stdout(),
            demo.stderr()
        );
    };
    let out = demo.stdout();
    let redis_port: u16 = said(&demo, "== throwaway redis-server on 127.0.0.1:")
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("the demo names its Redis: {out}"));
    let dir = out
        .lines()
        .find_map(|l| l.split("removes ").nth(1))
        .map(|d| d.trim_end_matches('.').to_string())
        .unwrap_or_else(|| panic!("the demo names its directory: {out}"));
    let redis_pid: i32 = std::fs::read_to_string(format!("{dir}/redis.pid"))
        .ok()
        .and_then(|p| p.trim().parse().ok())
        .unwrap_or_else(|| panic!("{dir}/redis.pid"));
    let web_port: u16 = url
        .trim_end_matches('/')
        .rsplit(':')
        .next()
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no port in {url:?}"));
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(60)))
        .build()
        .into();
    let get = |path: &str| -> (u16, String) {
        let mut reply = agent
            .get(format!("{url}{path}"))
            .call()
            .expect("an HTTP answer");
        let body = reply.body_mut().read_to_string().unwrap_or_default();
        (reply.status().as_u16(), body)
    };

    // The overview lists the demo's queues, and the page follows the consumers: mail's dead
    // jobs fall into the three causes of the handler (and the round trip's one).
    let (status, overview) = get("");
    assert_eq!(status, 200, "{overview}");
    for queue in ["mail", "sms", "reports", "invoices"] {
        assert!(
            overview.contains(&format!("/queues/{queue}\"")),
            "{queue} on the overview"
        );
    }
    let mut patterns = Vec::new();
    let grouped = wait_until(Duration::from_secs(240), || {
        let (_, body) = get("api/queues/mail/dead/groups");
        patterns = serde_json::from_str::<serde_json::Value>(&body)
            .ok()
            .and_then(|v| v["groups"].as_array().cloned())
            .unwrap_or_default()
            .iter()
            .filter_map(|g| g["pattern"].as_str().map(str::to_string))
            .collect();
        ["no such user", "template", "timeout"]
            .iter()
            .all(|cause| patterns.iter().any(|p| p.contains(cause)))
    });
    let done_before = get("api/overview").1;
    assert!(
        grouped,
        "three causes among mail's dead groups: {patterns:?}"
    );
    let (status, groups) = get("queues/mail/dead/groups");
    assert_eq!(status, 200, "{groups}");
    assert!(groups.contains("not found"), "{groups}");
    // Still moving: more jobs are done a while later.
    let done = |overview: &str| -> u64 {
        serde_json::from_str::<serde_json::Value>(overview)
            .ok()
            .and_then(|v| v["queues"].as_array().cloned())
            .unwrap_or_default()
            .iter()
            .filter_map(|q| q["done"].as_u64())
            .sum()
    };
    let before = done(&done_before);
    assert!(
        wait_until(Duration::from_secs(120), || done(&get("api/overview").1)
            > before),
        "jobs keep being done after {before}"
    );

    // Ctrl-C.
    killpg(pgid, Signal::SIGINT).unwrap();
    let status = demo.wait_timeout(Duration::from_secs(120));
    let leftover = support::group_running(demo.pid());
    if status.is_none() || leftover {
        let _ = killpg(pgid, Signal::SIGKILL);
    }
    assert_eq!(
        status.and_then(|s| s.code()),
        Some(130),
        "Ctrl-C ends the demo (None: still running after 120 s)\nstderr: {}",
        demo.stderr()
    );
    assert!(!leftover, "a process of the demo's group is still running");
    assert!(
        !support::running(redis_pid),
        "the demo's redis-server (pid {redis_pid}) is still running"
    );
    for port in [redis_port, web_port] {
        assert!(
            std::net::TcpStream::connect(("127.0.0.1", port)).is_err(),
            "something still listens on 127.0.0.1:{port}"
        );
    }
    assert!(!Path::new(&dir).exists(), "{dir} is removed");
}
