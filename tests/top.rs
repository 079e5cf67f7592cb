//! `qctl top` on a real terminal: tmux runs it at a fixed size against a redis-server the
//! test fills, the test types keys and reads the screen. Skipped with a note when tmux is
//! missing, unless QCTL_REQUIRE_TMUX is set (CI sets nothing but installs tmux).

mod support;

use std::path::Path;
use std::time::Duration;

use predicates::str::contains;
use support::tmux::{Tmux, LIMIT};
use support::{enqueue, qctl, spawn_consumer_at, RedisServer};

/// `qctl top ARGS` in a 160x40 terminal; with `raw`, everything written to it is recorded
/// there.
fn top(server: &RedisServer, args: &str, raw: Option<&Path>) -> Option<Tmux> {
    Tmux::start(&server.url(), &format!("top {args}"), (160, 40), raw)
}

/// Types q and checks that top exited 0 and gave the terminal back.
fn quit(tmux: &Tmux) {
    tmux.keys(&["q"]);
    assert_restored(tmux, 0);
}

/// Checks that top ended with `code`, its screen gone and the terminal given back.
fn assert_restored(tmux: &Tmux, code: i32) {
    assert_eq!(tmux.exit_status(), code, "{}", tmux.screen());
    let screen = tmux.screen();
    assert!(
        !screen.contains("qctl top:"),
        "the screen of top is still shown:\n{screen}"
    );
}

/// The cells of a queue's row in the list (the selection mark dropped): name, active, due,
/// later, in flight, dead, consumers, paused, done/s, failed/s, done per minute over the
/// last 10 minutes, the 95th percentile of run time over them.
fn row(screen: &str, queue: &str) -> Option<Vec<String>> {
    screen.lines().find_map(|line| {
        let mut cells: Vec<&str> = line.split_whitespace().collect();
        if cells.first() == Some(&">") {
            cells.remove(0);
        }
        (cells.first() == Some(&queue) && cells.len() == 12)
            .then(|| cells.iter().map(|c| c.to_string()).collect())
    })
}

/// The ACTIVE cell of a queue's row.
fn active(screen: &str, queue: &str) -> Option<String> {
    row(screen, queue).map(|r| r[1].clone())
}

/// Enqueues `n` jobs.
fn fill(server: &RedisServer, queue: &str, n: usize) {
    qctl(server)
        .args(["enqueue", queue, "--lines"])
        .write_stdin("{}\n".repeat(n))
        .assert()
        .success();
}

#[test]
fn top_shows_every_queue_and_follows_the_counts_as_jobs_are_consumed() {
    let server = RedisServer::start();
    fill(&server, "mail", 6);
    fill(&server, "sms", 2);
    let Some(tmux) = top(&server, "--interval 300ms", None) else {
        return;
    };
    let screen = tmux.wait("both queues", |s| {
        active(s, "mail").as_deref() == Some("6") && active(s, "sms").as_deref() == Some("2")
    });
    assert!(screen.contains("2 queues"), "{screen}");
    let mail = row(&screen, "mail").unwrap();
    assert_eq!(mail[6..8], ["0", "no"], "{screen}");
    assert_eq!(mail[10..12], ["··········", "-"], "{screen}");

    qctl(&server)
        .args(["consume", "mail", "--drain", "--", "true"])
        .assert()
        .success();
    fill(&server, "sms", 3);
    tmux.wait("mail drained and sms grown", |s| {
        active(s, "mail").as_deref() == Some("0") && active(s, "sms").as_deref() == Some("5")
    });
    // The done/s sparkline of the queue under the cursor (mail, the first by name) saw the
    // six jobs go.
    let screen = tmux.wait("done/s of mail above 0", |s| {
        s.lines()
            .find_map(|l| {
                l.split_once("done/s of mail: ")?
                    .1
                    .split_once(" max ")?
                    .1
                    .split(' ')
                    .next()?
                    .parse::<f64>()
                    .ok()
            })
            .is_some_and(|max| max > 0.0)
    });
    assert!(screen.contains("backlog of mail: 0 now, max 6"), "{screen}");
    // The history of the last ten minutes: this minute's bar is the tallest, and the run
    // times have a 95th percentile.
    let screen = tmux.wait("mail's history", |s| {
        row(s, "mail").is_some_and(|r| r[10].ends_with('█') && r[11] != "-")
    });
    let mail = row(&screen, "mail").unwrap();
    assert!(
        mail[11].ends_with("ms") || mail[11].ends_with("us"),
        "{screen}"
    );
    quit(&tmux);
}

#[test]
fn at_80_columns_the_list_keeps_names_apart_and_the_counts() {
    let server = RedisServer::start();
    // Two long names alike but for their ends, and a short one.
    let long = [
        "notifications-email-transactional",
        "notifications-email-marketing",
    ];
    for name in long {
        fill(&server, name, 3);
    }
    fill(&server, "sms", 2);
    qctl(&server).args(["pause", "sms"]).assert().success();
    // A long name cut in its middle: its start, `…`, its end.
    let cut_from = |cell: &str, name: &str| {
        name.len() > 14
            && cell.contains('…')
            && cell.starts_with(&name[..8])
            && cell.ends_with(&name[name.len() - 6..])
    };
    let cells_of = |screen: &str, name: &str| -> Vec<String> {
        screen
            .lines()
            .map(|l| l.split_whitespace().filter(|c| *c != ">").map(String::from))
            .map(Vec::from_iter)
            .find(|cells| {
                cells
                    .first()
                    .is_some_and(|c| c == name || cut_from(c, name))
            })
            .unwrap_or_else(|| panic!("no row of {name}:\n{screen}"))
    };
    for (width, columns) in [
        (
            80,
            &[
                "QUEUE",
                "ACTIVE",
                "DUE",
                "IN FLIGHT",
                "DEAD",
                "CONSUMERS",
                "PAUSED",
                "DONE 10M",
            ][..],
        ),
        (60, &["QUEUE", "ACTIVE", "DUE", "IN FLIGHT", "DEAD"][..]),
    ] {
        let Some(tmux) = Tmux::start(&server.url(), "top --interval 300ms", (width, 24), None)
        else {
            return;
        };
        let screen = tmux.wait("the three queues", |s| {
            s.contains("sms") && long.iter().all(|n| s.contains(&n[..8]))
        });
        let header = screen
            .lines()
            .find(|l| l.contains("QUEUE"))
            .expect("a header");
        assert_eq!(
            header
                .split("  ")
                .map(str::trim)
                .filter(|h| !h.is_empty())
                .collect::<Vec<_>>()
                .join(" "),
            columns.join(" "),
            "{screen}"
        );
        // Each long name whole or cut in its middle: the two rows stay apart.
        let rows: Vec<Vec<String>> = long.iter().map(|n| cells_of(&screen, n)).collect();
        assert_ne!(rows[0][0], rows[1][0], "{screen}");
        for row in &rows {
            assert_eq!(row[1..5], ["3", "0", "0", "0"], "{screen}");
        }
        // The paused queue says so: in PAUSED, or after its name without it.
        let sms = screen.lines().find(|l| l.contains("sms")).unwrap();
        if columns.contains(&"PAUSED") {
            assert!(
                cells_of(&screen, "sms").contains(&"yes".to_string()),
                "{screen}"
            );
        } else {
            assert!(sms.contains("sms (paused)"), "{screen}");
        }
        assert!(
            screen.lines().all(|l| l.chars().count() <= width as usize),
            "{screen}"
        );
        // At 80 columns the line of keys is whole.
        if width >= 80 {
            assert!(screen.contains("p pause/resume"), "{screen}");
        }
        quit(&tmux);
    }
}

#[test]
fn slash_filters_the_list_and_s_sorts_it() {
    let server = RedisServer::start();
    fill(&server, "mail", 1);
    fill(&server, "mail-eu", 3);
    fill(&server, "sms", 2);
    let Some(tmux) = top(&server, "--interval 300ms", None) else {
        return;
    };
    tmux.wait("three queues", |s| row(s, "sms").is_some());
    tmux.keys(&["/", "mail"]);
    let screen = tmux.wait("the filter applied", |s| {
        s.contains("filter: /mail_")
            && row(s, "sms").is_none()
            && row(s, "mail").is_some()
            && row(s, "mail-eu").is_some()
    });
    assert!(screen.contains("2 matching /mail"), "{screen}");
    tmux.keys(&["Enter", "s"]);
    // Sorted by ACTIVE, the larger queue first.
    let screen = tmux.wait_for("sorted by active");
    let order: Vec<&str> = screen
        .lines()
        .filter_map(|l| l.split_whitespace().find(|w| w.starts_with("mail")))
        .filter(|w| *w == "mail" || *w == "mail-eu")
        .collect();
    assert_eq!(order, ["mail-eu", "mail"], "{screen}");
    quit(&tmux);
}

#[test]
fn enter_shows_consumers_and_dead_reasons_and_p_pauses_after_confirmation() {
    let server = RedisServer::start();
    enqueue(&server, "mail", "broken-1", b"boom");
    let mut consumer = spawn_consumer_at(
        &server.url(),
        &[
            "mail",
            "--max-retries",
            "0",
            "--poll-interval",
            "200ms",
            "--",
            "sh",
            "-c",
            "echo 'disk full on /var/spool' >&2; exit 3",
        ],
    );
    assert!(
        support::wait_until(LIMIT, || server.cmd::<i64>(&[b"ZCARD", b"mail:dead"]) == 1),
        "the job did not die: {}",
        consumer.stderr()
    );
    let Some(tmux) = top(&server, "--interval 300ms", None) else {
        return;
    };
    tmux.wait("mail", |s| row(s, "mail").is_some());
    tmux.keys(&["Enter"]);
    let screen = tmux.wait("the consumer and the dead job", |s| {
        s.contains("HOST:PID") && s.contains("broken-1")
    });
    assert!(screen.contains("consumers: 1"), "{screen}");
    assert!(screen.contains("alive"), "{screen}");
    assert!(screen.contains("dead jobs 1-1 of 1"), "{screen}");
    assert!(
        screen.contains("exit 3: disk full on /var/spool"),
        "the reason is not shown:\n{screen}"
    );

    // p asks first; a word and Enter answer it: no leaves the queue running.
    tmux.keys(&["p"]);
    tmux.wait_for("Pause queue mail? [y/N]");
    tmux.keys(&["no", "Enter"]);
    tmux.wait_for("left as it was");
    assert_eq!(server.cmd::<i64>(&[b"EXISTS", b"mail:paused"]), 0);
    tmux.keys(&["p"]);
    tmux.wait_for("Pause queue mail? [y/N]");
    tmux.keys(&["yes"]);
    tmux.wait_for("[y/N] yes_");
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("queue \"mail\" is paused");
    assert_eq!(server.cmd::<i64>(&[b"EXISTS", b"mail:paused"]), 1);
    // The Enter that answered did not also leave the queue's view.
    assert!(screen.contains("dead jobs 1-1 of 1"), "{screen}");
    // Back in the list, the queue shows as paused.
    tmux.keys(&["Left"]);
    tmux.wait("PAUSED yes", |s| {
        row(s, "mail").is_some_and(|r| r[7] == "yes")
    });
    consumer.stop(Duration::from_secs(10));
    quit(&tmux);
}

#[test]
fn top_off_a_terminal_exits_2_and_points_to_stats_watch_json() {
    let server = RedisServer::start();
    qctl(&server)
        .arg("top")
        .assert()
        .code(2)
        .stderr(contains("qctl stats --watch --json"));
}

#[test]
fn a_server_that_wants_a_password_ends_top_with_exit_4_before_the_screen() {
    let server = RedisServer::start_with(&["--requirepass", "sekret"]);
    let dir = tempfile::tempdir().expect("temp dir");
    let raw = dir.path().join("raw");
    let Some(tmux) = top(&server, "", Some(&raw)) else {
        return;
    };
    assert_restored(&tmux, 4);
    let screen = tmux.screen();
    assert!(screen.contains("NOAUTH"), "Redis's words:\n{screen}");
    let written = std::fs::read(&raw).expect("the recorded terminal output");
    let alternate = b"\x1b[?1049h";
    assert!(
        !written.windows(alternate.len()).any(|w| w == alternate),
        "top took the screen:\n{}",
        String::from_utf8_lossy(&written)
    );
    assert!(
        String::from_utf8_lossy(&written).contains("NOAUTH"),
        "the recording holds what top wrote"
    );
}

#[test]
fn a_lost_server_is_shown_in_the_status_line_and_top_recovers() {
    let mut server = RedisServer::start();
    fill(&server, "mail", 2);
    let Some(tmux) = top(&server, "--interval 300ms", None) else {
        return;
    };
    tmux.wait("mail", |s| active(s, "mail").as_deref() == Some("2"));
    server.stop();
    let screen = tmux.wait_for("error: ");
    assert!(screen.contains("retrying every 300ms"), "{screen}");
    assert!(
        screen.contains(&format!("127.0.0.1:{}", server.port())),
        "the error names the server:\n{screen}"
    );
    // Still running, and the last counts stay on screen.
    assert_eq!(active(&screen, "mail").as_deref(), Some("2"), "{screen}");
    server.restart();
    fill(&server, "sms", 4);
    let screen = tmux.wait("recovery", |s| {
        !s.contains("error: ") && active(s, "sms").as_deref() == Some("4")
    });
    assert!(screen.contains("updated "), "{screen}");
    quit(&tmux);
}

#[test]
fn ctrl_c_and_sigterm_end_top_and_restore_the_terminal() {
    let server = RedisServer::start();
    fill(&server, "mail", 1);
    let Some(tmux) = top(&server, "", None) else {
        return;
    };
    tmux.wait("mail", |s| row(s, "mail").is_some());
    tmux.keys(&["C-c"]);
    assert_restored(&tmux, 0);

    let Some(tmux) = top(&server, "", None) else {
        return;
    };
    tmux.wait("mail", |s| row(s, "mail").is_some());
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(tmux.qctl_pid()),
        nix::sys::signal::Signal::SIGTERM,
    )
    .expect("SIGTERM");
    assert_restored(&tmux, 0);
}

/// The box titles of a screen's line: the text between each `┌` and the border after it.
fn titles(line: &str) -> Vec<String> {
    line.split('┌')
        .skip(1)
        .map(|b| b.split(['─', '┐']).next().unwrap_or("").to_string())
        .collect()
}

#[test]
fn at_80x24_an_open_queue_names_where_consumers_run_and_scrolls_its_dead_jobs() {
    let server = RedisServer::start();
    let reason = "SMTP 550 mailbox unavailable for recipient address, try again later";
    fill(&server, "mail", 12);
    qctl(&server)
        .args(["consume", "mail", "--drain", "--max-retries", "0", "--"])
        .args(["sh", "-c", &format!("echo '{reason}' >&2; exit 3")])
        .assert()
        .code(7);
    // The dead jobs, newest first, as top lists them.
    let listed = qctl(&server)
        .args(["dead", "list", "mail", "--jsonl", "--limit", "20"])
        .output()
        .unwrap();
    let ids: Vec<String> = String::from_utf8_lossy(&listed.stdout)
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["id"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(ids.len(), 12);
    fill(&server, "mail", 3);
    qctl(&server).args(["pause", "mail"]).assert().success();
    let mut consumer = spawn_consumer_at(
        &server.url(),
        &["mail", "--poll-interval", "200ms", "--", "true"],
    );
    // A Go CurlyQ consumer: its heartbeat and nothing else.
    let go = "mail:inflight:0b7d3e2a-1c4f-4d5e-9f00-aabbccddeeff";
    let now: Vec<String> = server.cmd(&[b"TIME"]);
    server.cmd::<i64>(&[b"ZADD", b"mail:consumers", now[0].as_bytes(), go.as_bytes()]);
    let described = || {
        let out = qctl(&server)
            .args(["consumers", "mail", "--json"])
            .output()
            .unwrap();
        let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap_or_default();
        rows.iter()
            .find_map(|r| Some(format!("{}:{}", r["host"].as_str()?, r["pid"].as_u64()?)))
    };
    assert!(
        support::wait_until(LIMIT, || described().is_some()),
        "{}",
        consumer.stderr()
    );
    let host_pid = described().unwrap();

    let Some(tmux) = Tmux::start(&server.url(), "top --interval 300ms", (80, 24), None) else {
        return;
    };
    // In the list, counts are right-aligned under their headers, as `stats` shows them.
    let screen = tmux.wait("mail", |s| s.lines().any(|l| l.contains("> mail")));
    let header = screen.lines().find(|l| l.contains("ACTIVE")).unwrap();
    let row = screen.lines().find(|l| l.contains("> mail")).unwrap();
    for (name, value) in [("ACTIVE", "3"), ("DEAD", "12")] {
        let end = header.find(name).unwrap() + name.len();
        assert_eq!(&row[end - value.len()..end], value, "{name}:\n{screen}");
    }
    tmux.keys(&["Enter"]);
    let screen = tmux.wait("the consumers and the dead jobs", |s| {
        s.contains("CurlyQ") && s.contains(&ids[0][..8])
    });
    // Each consumer by the start of its UUID, who runs it and where: host:pid for qctl's, -
    // for Go CurlyQ's, which writes neither.
    let mine = screen
        .lines()
        .find(|l| l.contains(&host_pid))
        .unwrap_or_else(|| panic!("no {host_pid}:\n{screen}"));
    assert!(mine.contains("qctl ") && mine.contains("alive"), "{screen}");
    let theirs = screen
        .lines()
        .find(|l| l.contains("0b7d3e2a"))
        .expect("the Go consumer");
    assert!(
        theirs.contains("CurlyQ") && theirs.contains(" - "),
        "{screen}"
    );
    assert!(!screen.contains("mail:inflight:"), "{screen}");
    // The reason has the room the others leave: 40 cells at least at 80 columns.
    assert!(
        screen.contains(&format!("exit 3: {}", &reason[..32])),
        "{screen}"
    );
    // The dead jobs scroll: a row, a page, to the end and back.
    let shown = |s: &str, i: usize| s.contains(&ids[i][..8]);
    assert!(screen.contains("dead jobs 1-"), "{screen}");
    assert!(
        screen.contains("↑↓"),
        "the keys say how to scroll:\n{screen}"
    );
    tmux.keys(&["Down"]);
    let screen = tmux.wait("one row down", |s| !shown(s, 0) && shown(s, 1));
    assert!(screen.contains("dead jobs 2-"), "{screen}");
    tmux.keys(&["End"]);
    let screen = tmux.wait("the oldest dead job", |s| shown(s, 11) && !shown(s, 0));
    assert!(screen.contains("-12 of 12"), "{screen}");
    tmux.keys(&["Home"]);
    tmux.wait("the newest dead job again", |s| shown(s, 0));
    tmux.keys(&["PageDown"]);
    tmux.wait("a page down", |s| !shown(s, 0) && !shown(s, 1));
    // The sparklines' titles fit their boxes whole: never cut inside a word.
    let screen = tmux.screen();
    let charts = screen
        .lines()
        .find(|l| l.contains("backlog"))
        .expect("the charts");
    let found = titles(charts);
    assert_eq!(found.len(), 2, "{screen}");
    for title in found {
        assert!(
            title.ends_with(' ') && title.len() > 8,
            "{title:?} cut:\n{screen}"
        );
    }
    assert!(screen.lines().all(|l| l.chars().count() <= 80), "{screen}");
    consumer.stop(Duration::from_secs(10));
    quit(&tmux);
}

/// A consumer killed on this host is `gone` in the open queue at once, as `qctl consumers`
/// says, not `alive` for the rest of its lease.
#[test]
fn a_consumer_killed_on_this_host_is_gone_in_the_open_queue() {
    let server = RedisServer::start();
    fill(&server, "mail", 1);
    qctl(&server).args(["pause", "mail"]).assert().success();
    let mut consumer = spawn_consumer_at(&server.url(), &["mail", "--", "true"]);
    let pid = || {
        let out = qctl(&server)
            .args(["consumers", "mail", "--json"])
            .output()
            .unwrap();
        let rows: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap_or_default();
        rows.iter().find_map(|r| r["pid"].as_u64())
    };
    assert!(
        support::wait_until(LIMIT, || pid().is_some()),
        "{}",
        consumer.stderr()
    );
    let pid = pid().unwrap();
    consumer.signal(nix::sys::signal::Signal::SIGKILL);
    consumer.wait_timeout(LIMIT);
    let Some(tmux) = Tmux::start(&server.url(), "top --interval 300ms", (80, 24), None) else {
        return;
    };
    tmux.wait("mail", |s| s.lines().any(|l| l.contains("> mail")));
    tmux.keys(&["Enter"]);
    let screen = tmux.wait("the consumer's state", |s| s.contains("HOST:PID"));
    assert!(
        screen.contains(&format!("gone (pid {pid}")),
        "the killed consumer is not shown gone:\n{screen}"
    );
    assert!(!screen.contains("alive"), "{screen}");
    quit(&tmux);
}

#[test]
fn p_in_top_is_recorded_in_the_record_of_changes() {
    let server = RedisServer::start();
    enqueue(&server, "mail", "j1", b"x");
    let Some(tmux) = top(&server, "--interval 300ms", None) else {
        return;
    };
    tmux.wait("mail", |s| row(s, "mail").is_some());
    tmux.keys(&["p"]);
    tmux.wait_for("Pause queue mail? [y/N]");
    tmux.keys(&["yes"]);
    tmux.wait_for("[y/N] yes_");
    tmux.keys(&["Enter"]);
    tmux.wait_for("queue \"mail\" is paused");
    quit(&tmux);
    let out = qctl(&server)
        .args(["--json", "changes", "mail"])
        .output()
        .unwrap();
    let entries: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(entries[0]["action"], "pause", "{entries}");
    assert_eq!(entries[0]["detail"], "from qctl top", "{entries}");
    assert_eq!(entries[0]["argv"][1], "-u", "{entries}");
    assert!(
        entries[0]["argv"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w == "top"),
        "{entries}"
    );
}
