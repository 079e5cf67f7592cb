//! Tables for people at 80 and 200 columns (`$COLUMNS`) and off a terminal, and what a
//! listing says when it shows nothing, against real redis-servers.

mod support;

use support::{qctl, RedisServer};

const LONG_QUEUE: &str = "notifications-email-transactional-eu-west";

/// A queue with a long name: 3 dead jobs with long data and a long reason, 2 scheduled, 4
/// ready; and a short one.
fn fill(server: &RedisServer) -> Vec<String> {
    let data = format!(
        "{{\"to\":\"someone@example.com\",\"body\":\"{}\"}}",
        "x".repeat(150)
    );
    let out = qctl(server)
        .args(["enqueue", LONG_QUEUE, "--lines"])
        .write_stdin(format!("{data}\n").repeat(3))
        .output()
        .unwrap();
    let ids: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect();
    qctl(server)
        .args(["consume", LONG_QUEUE, "--drain", "--max-retries", "0", "-q"])
        .args(["--", "sh", "-c", "echo 'the SMTP relay refused the message: 554 5.7.1 relay access denied for this sender' >&2; exit 3"])
        .assert()
        .code(7);
    for args in [
        &[LONG_QUEUE, "--in", "1h", "later"][..],
        &[LONG_QUEUE, "--in", "2h", "later"],
    ] {
        qctl(server).arg("enqueue").args(args).assert().success();
    }
    qctl(server)
        .args(["enqueue", LONG_QUEUE, "--lines"])
        .write_stdin(format!("{data}\n").repeat(4))
        .assert()
        .success();
    qctl(server)
        .args(["enqueue", "sms", "x"])
        .assert()
        .success();
    ids
}

/// Runs `qctl ARGS` with `$COLUMNS` set (or unset) and returns stdout and stderr.
fn run(server: &RedisServer, columns: Option<usize>, args: &[&str]) -> (String, String) {
    let mut cmd = qctl(server);
    match columns {
        Some(n) => cmd.env("COLUMNS", n.to_string()),
        None => cmd.env_remove("COLUMNS"),
    };
    let out = cmd.args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}: {out:?}");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The commands whose tables are checked.
fn commands() -> Vec<Vec<&'static str>> {
    vec![
        vec!["stats"],
        vec!["dead", "list", LONG_QUEUE],
        vec!["scheduled", "list", LONG_QUEUE],
        vec!["active", "list", LONG_QUEUE],
        vec!["stats", LONG_QUEUE, "--history", "10m"],
    ]
}

#[test]
fn at_80_columns_tables_fit_with_ids_whole_and_numbers_right_aligned() {
    let server = RedisServer::start();
    let ids = fill(&server);
    for args in commands() {
        let (stdout, stderr) = run(&server, Some(80), &args);
        for line in stdout.lines() {
            assert!(
                line.chars().count() <= 80,
                "{args:?}: a line of {} columns:\n{stdout}",
                line.chars().count()
            );
        }
        // Headers are whole words, never split.
        let header = stdout.lines().find(|l| !l.contains(':')).unwrap_or("");
        for word in header.split_whitespace() {
            assert!(
                word.chars()
                    .all(|c| c.is_ascii_uppercase() || "/#".contains(c))
                    || ["FLIGHT", "P50", "P95", "P99"].contains(&word),
                "{args:?}: header {header:?}"
            );
        }
        if args.starts_with(&["dead", "list"]) {
            // Every id is whole; the long data and reason are cut or left out, with a note.
            for id in &ids {
                assert!(stdout.contains(id.as_str()), "{id} cut:\n{stdout}");
            }
            assert!(
                stdout.contains('…') || stderr.contains("left out to fit 80 columns"),
                "{stdout}{stderr}"
            );
        }
        if args == ["stats"] {
            // The long name is cut in its middle (its start and its end stay, so names
            // alike but for their ends stay apart), and counts end under the end of their
            // header.
            let name = stdout
                .split_whitespace()
                .find(|w| w.starts_with("notifica"));
            let end = &LONG_QUEUE[LONG_QUEUE.len() - 5..];
            assert!(
                name.is_some_and(|n| n.contains('…') && n.ends_with(end)),
                "{stdout}"
            );
            let lines: Vec<&str> = stdout.lines().collect();
            let end = |line: &str, word: &str| line.find(word).map(|i| i + word.len());
            let header_end = end(lines[0], "ACTIVE").unwrap();
            let row = lines.iter().find(|l| l.contains("notifica")).unwrap();
            let row: Vec<char> = row.chars().collect();
            assert_eq!(row[header_end - 1], '4', "{stdout}");
        }
    }
    // The preview of a bulk change breaks its sample between ids, never inside one.
    let (_, stderr) = run(
        &server,
        Some(80),
        &["dead", "requeue", LONG_QUEUE, "--all", "--dry-run"],
    );
    assert!(stderr.lines().count() > 1, "{stderr}");
    assert!(stderr.lines().all(|l| l.chars().count() <= 80), "{stderr}");
    for id in &ids {
        assert!(stderr.contains(id.as_str()), "{id} cut:\n{stderr}");
    }
}

#[test]
fn at_200_columns_and_off_a_terminal_more_is_shown() {
    let server = RedisServer::start();
    let ids = fill(&server);
    for columns in [Some(200), None] {
        let (stdout, stderr) = run(&server, columns, &["dead", "list", LONG_QUEUE]);
        assert!(!stderr.contains("left out"), "{columns:?}: {stderr}");
        // The whole first line of stderr fits, as does every id.
        assert!(stdout.contains("554 5.7.1 relay access"), "{stdout}");
        for id in &ids {
            assert!(stdout.contains(id.as_str()), "{stdout}");
        }
        let widest = stdout.lines().map(|l| l.chars().count()).max().unwrap_or(0);
        match columns {
            Some(n) => assert!(widest <= n && widest > 150, "{widest}:\n{stdout}"),
            // Off a terminal the data keeps the whole of its preview.
            None => assert!(stdout.contains(&format!("{}…", "x".repeat(20))), "{stdout}"),
        }
        let (stdout, _) = run(&server, columns, &["stats"]);
        assert!(stdout.contains(LONG_QUEUE), "{columns:?}:\n{stdout}");
    }
}

#[test]
fn a_listing_that_shows_nothing_says_why_with_the_total() {
    let server = RedisServer::start();
    fill(&server);
    let note = |args: &[&str]| run(&server, None, args).1;
    assert!(
        note(&["dead", "list", LONG_QUEUE, "--grep", "nomatch"])
            .contains(&format!("no dead jobs match (3 in {LONG_QUEUE}:dead)")),
        "{}",
        note(&["dead", "list", LONG_QUEUE, "--grep", "nomatch"])
    );
    assert!(note(&["dead", "list", LONG_QUEUE, "--min-attempts", "2"])
        .contains("no dead jobs match (3 in"));
    // --limit 0 is no limit: every job is shown.
    assert!(note(&["dead", "list", LONG_QUEUE, "--limit", "0"])
        .contains(&format!("3 shown of 3 in {LONG_QUEUE}:dead")));
    assert!(note(&["dead", "list", LONG_QUEUE, "--offset", "10"])
        .contains("no dead jobs at --offset 10 (3 in"));
    assert!(note(&[
        "scheduled",
        "list",
        LONG_QUEUE,
        "--until",
        "1970-01-02T00:00:00Z"
    ])
    .contains(&format!(
        "no scheduled jobs match (2 in {LONG_QUEUE}:scheduled)"
    )));
    assert!(note(&["active", "list", "sms", "--grep", "nomatch"])
        .contains("no ready jobs match (1 in sms:active)"));
    assert!(note(&["dead", "list", "sms"]).contains("no jobs in sms:dead"));
}

#[test]
fn stats_watch_at_80_columns_keeps_the_rates_and_says_what_it_left_out() {
    let server = RedisServer::start();
    fill(&server);
    let Some(tmux) =
        support::tmux::Tmux::start(&server.url(), "stats --watch 500ms", (80, 24), None)
    else {
        return;
    };
    // A redraw after the first has rates; the note stays above the table it is about.
    let screen = tmux.wait("a redraw with rates and the note", |s| {
        s.contains("0.0") && s.contains("left out to fit 80 columns")
    });
    let lines: Vec<&str> = screen.lines().collect();
    let header = lines
        .iter()
        .position(|l| l.contains("QUEUE"))
        .unwrap_or_else(|| panic!("no header:\n{screen}"));
    assert!(
        lines[header].contains("DONE/S") && lines[header].contains("FAILED/S"),
        "{screen}"
    );
    // The totals went first, and the note says so, above the table.
    let note = lines
        .iter()
        .position(|l| l.contains("DONE, FAILED left out to fit 80 columns"))
        .unwrap_or_else(|| panic!("no note:\n{screen}"));
    assert!(note < header, "{screen}");
    assert!(lines.iter().all(|l| l.chars().count() <= 80), "{screen}");
    let row = lines
        .iter()
        .find(|l| l.trim_start().starts_with("sms"))
        .unwrap_or_else(|| panic!("no row of sms:\n{screen}"));
    assert!(row.trim_end().ends_with("0.0"), "{screen}");
    tmux.keys(&["C-c"]);
    assert_eq!(tmux.exit_status(), 0);
}

/// `find` writes each row as its job is found, so its widths are set by the first row: at 80
/// columns every row fits with its id whole (UUIDs here) and DATA cut with `…`; at 200
/// columns and off a terminal DATA shows what the listings show (60 characters).
#[test]
fn find_rows_fit_80_columns_with_ids_whole() {
    let server = RedisServer::start();
    let ids = fill(&server);
    for columns in [Some(80), Some(200), None] {
        let (stdout, _) = run(
            &server,
            columns,
            &["find", LONG_QUEUE, "someone@example.com"],
        );
        let lines: Vec<&str> = stdout.lines().collect();
        assert_eq!(lines.len(), 1 + 7, "{columns:?}:\n{stdout}");
        let header: Vec<&str> = lines[0].split_whitespace().collect();
        assert_eq!(header, ["WHERE", "ID", "MATCHED", "FAILURES", "DATA"]);
        for line in &lines[1..] {
            if let Some(n) = columns {
                assert!(line.chars().count() <= n, "{n}: {line}");
            }
            let data = line.split("  ").last().unwrap_or_default().trim();
            assert!(data.ends_with('…'), "{columns:?}: {line}");
            let shown = data.chars().count();
            match columns {
                Some(80) => assert!(shown < 20, "{line}"),
                _ => assert_eq!(shown, 61, "{line}"),
            }
        }
        // The dead ones first, with their ids whole, aligned under ID.
        let at = lines[0].find("ID").unwrap();
        for (line, id) in lines[1..4].iter().zip(&ids) {
            assert!(line.starts_with("dead"), "{line}");
            assert!(
                lines[1..4].iter().any(|l| l[at..].starts_with(id.as_str())),
                "{id}:\n{stdout}"
            );
            assert_eq!(line[at..].split_whitespace().nth(2), Some("1"), "{line}");
        }
    }
}

#[test]
fn changes_at_80_columns_keep_the_entry_time_and_action_whole() {
    let server = RedisServer::start();
    fill(&server);
    run(
        &server,
        None,
        &["dead", "requeue", LONG_QUEUE, "--all", "--yes"],
    );
    run(
        &server,
        None,
        &["scheduled", "run-now", LONG_QUEUE, "--all", "--yes"],
    );
    let (stdout, stderr) = run(&server, Some(80), &["changes", LONG_QUEUE]);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{stdout}");
    for line in &lines {
        assert!(
            line.chars().count() <= 80,
            "a line of {} columns:\n{stdout}",
            line.chars().count()
        );
    }
    assert!(
        lines[0].contains("ENTRY") && lines[0].contains("ACTION"),
        "{stdout}"
    );
    assert!(lines[1].contains("dead requeue"), "{stdout}");
    assert!(lines[2].contains("scheduled run-now"), "{stdout}");
    // The entry id (what --ids takes) and the time are whole; the command line is cut or
    // left out, with a note.
    let entry = lines[1].split_whitespace().next().unwrap();
    assert!(
        entry.len() >= 15 && entry.contains('-') && !entry.contains('…'),
        "{stdout}"
    );
    assert!(
        stdout.contains('…') || stderr.contains("left out to fit 80 columns"),
        "{stdout}{stderr}"
    );
    // At 200 columns the whole command line is shown.
    let (wide, _) = run(&server, Some(200), &["changes", LONG_QUEUE]);
    assert!(
        wide.contains(&format!(
            "qctl -u redis://127.0.0.1:{} dead requeue {LONG_QUEUE} --all --yes",
            server.port()
        )),
        "{wide}"
    );
}

/// find writes each row as it finds it, before the longest id is known: a UUID after a
/// short id keeps the columns in line (the ID column is at least as wide as a UUID).
#[test]
fn find_keeps_its_columns_in_line_when_a_uuid_follows_a_short_id() {
    let server = RedisServer::start();
    let mut cmd = qctl(&server);
    cmd.args(["enqueue", "q", "--id", "x1", "needle one"])
        .assert()
        .success();
    let mut cmd = qctl(&server);
    cmd.args([
        "enqueue",
        "q",
        "--id",
        "0b7d3e2a-1c4f-4d5e-9f00-aabbccddeeff",
        "needle two",
    ])
    .assert()
    .success();
    let out = qctl(&server)
        .env("COLUMNS", "80")
        .args(["find", "q", "needle"])
        .output()
        .expect("find");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    let column = |line: &str, word: &str| line.find(word);
    let matched = column(lines[0], "MATCHED");
    assert!(matched.is_some(), "{text}");
    for line in &lines[1..] {
        assert_eq!(column(line, "data"), matched, "{text}");
    }
}
