//! The protocol's model check: every reachable state of the model of a queue's state changes
//! (tests/model/queue.rs) at small bounds, checked against the invariants
//! (tests/model/invariants.rs); the broken configurations that must keep producing their
//! counterexample (tests/model/witnesses.rs); MAPPING.md against lua/; and random sequences
//! of the same actions run against a real redis-server through qctl's scripts and engine
//! calls, compared with the model after every step (tests/model/redis.rs).
//! docs/reliability.md describes it. Larger bounds: QCTL_MODEL_JOBS, QCTL_MODEL_CONSUMERS,
//! QCTL_MODEL_ATTEMPTS (see `larger_bounds_from_the_environment`).

mod support;

#[path = "model/invariants.rs"]
mod invariants;
#[path = "model/queue.rs"]
mod queue;
#[path = "model/redis.rs"]
mod redis_check;
#[path = "model/witnesses.rs"]
mod witnesses;

use std::time::Instant;

use stateright::{Checker, Model};

use queue::{Kind, Queues};

/// Checks every reachable state of `model`, asserts every property, and prints the figures.
fn check_all(what: &str, model: Queues) -> usize {
    let started = Instant::now();
    let checker = model.checker().threads(2).spawn_bfs().join();
    let states = checker.unique_state_count();
    support::figure(&format!(
        "model {what}: {states} states, depth {}, {:.1} s",
        checker.max_depth(),
        started.elapsed().as_secs_f64()
    ));
    for p in checker.model().properties() {
        if let Some(path) = checker.discovery(p.name) {
            let actions: Vec<String> = path
                .into_actions()
                .iter()
                .map(|a| format!("{a:?}"))
                .collect();
            panic!(
                "model {what}: \"{}\" does not hold after {} actions:\n  {}",
                p.name,
                actions.len(),
                actions.join("\n  ")
            );
        }
    }
    states
}

/// The CI bounds of the consumers: 2 jobs, 2 consumers (one of each kind), 2 attempts.
fn ci() -> Queues {
    Queues::new(2, vec![Kind::Qctl, Kind::Go], 2)
}

#[test]
fn consumers_of_both_kinds_keep_every_invariant() {
    check_all("consumers (2 jobs, qctl + Go, 2 attempts)", ci());
}

#[test]
fn every_way_to_enqueue_and_the_commands_on_dead_scheduled_and_ready_jobs_keep_every_invariant() {
    let mut m = Queues::new(2, vec![Kind::Qctl], 2);
    m.producers = true;
    m.admin = true;
    check_all("commands (2 jobs, qctl, 2 attempts)", m);
}

#[test]
fn a_move_between_two_queues_keeps_every_invariant() {
    let mut m = Queues::new(2, vec![Kind::Qctl], 2);
    m.moving = true;
    check_all("move (2 jobs, qctl, 2 attempts)", m);
}

#[test]
fn a_damaged_record_goes_to_the_dead_set_and_every_invariant_holds() {
    let mut m = Queues::new(2, vec![Kind::Qctl, Kind::Qctl], 2);
    m.damaged = true;
    check_all("damaged record (2 jobs, 2 qctl, 2 attempts)", m);
}

#[test]
fn every_job_is_eventually_settled_while_a_consumer_lives() {
    let mut m = Queues::new(3, vec![Kind::Qctl, Kind::Go], 2);
    m.liveness = true;
    check_all("liveness (3 jobs, qctl + Go, 2 attempts)", m);
    let mut m = Queues::new(2, vec![Kind::Go, Kind::Qctl], 2);
    m.liveness = true;
    check_all("liveness (2 jobs, Go + qctl, 2 attempts)", m);
    let mut m = Queues::new(2, vec![Kind::Qctl, Kind::Qctl], 2);
    m.liveness = true;
    m.damaged = true;
    check_all(
        "liveness with a damaged record (2 jobs, 2 qctl, 2 attempts)",
        m,
    );
}

/// The checks above at the bounds of QCTL_MODEL_JOBS, QCTL_MODEL_CONSUMERS (alternately qctl
/// and Go; the commands and the move with qctl consumers only) and QCTL_MODEL_ATTEMPTS; runs
/// only when one of them is set.
#[test]
fn larger_bounds_from_the_environment() {
    let get = |name: &str| std::env::var(name).ok().and_then(|v| v.parse::<u8>().ok());
    let (jobs, consumers, attempts) = (
        get("QCTL_MODEL_JOBS"),
        get("QCTL_MODEL_CONSUMERS"),
        get("QCTL_MODEL_ATTEMPTS"),
    );
    if jobs.is_none() && consumers.is_none() && attempts.is_none() {
        return;
    }
    let (jobs, consumers, attempts) = (
        jobs.unwrap_or(3),
        consumers.unwrap_or(2),
        attempts.unwrap_or(2),
    );
    let mixed: Vec<Kind> = (0..consumers)
        .map(|i| if i % 2 == 0 { Kind::Qctl } else { Kind::Go })
        .collect();
    let qctl = vec![Kind::Qctl; consumers as usize];
    let what = format!("{jobs} jobs, {consumers} consumers, {attempts} attempts");
    check_all(
        &format!("consumers ({what})"),
        Queues::new(jobs, mixed.clone(), attempts),
    );
    let mut m = Queues::new(jobs, qctl.clone(), attempts);
    m.producers = true;
    m.admin = true;
    check_all(&format!("commands ({what}, qctl)"), m);
    let mut m = Queues::new(jobs, qctl.clone(), attempts);
    m.moving = true;
    check_all(&format!("move ({what}, qctl)"), m);
    let mut m = Queues::new(jobs, qctl, attempts);
    m.damaged = true;
    check_all(&format!("damaged record ({what}, qctl)"), m);
    let mut m = Queues::new(jobs, mixed, attempts);
    m.liveness = true;
    check_all(&format!("liveness ({what})"), m);
}

/// An engine file and the functions MAPPING.md names in it.
type Engine = Option<(String, Vec<String>)>;

/// MAPPING.md's rows: action, scripts, engine file and functions.
fn mapping() -> Vec<(String, Vec<String>, Engine)> {
    let text = std::fs::read_to_string("tests/model/MAPPING.md").expect("tests/model/MAPPING.md");
    text.lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| Action") && !l.starts_with("|---"))
        .map(|l| {
            let cells: Vec<&str> = l.trim_matches('|').split('|').map(str::trim).collect();
            assert_eq!(cells.len(), 3, "MAPPING.md row {l:?} has not 3 cells");
            let scripts = cells[1]
                .split(", ")
                .filter(|s| s.ends_with(".lua"))
                .map(String::from)
                .collect();
            let engine = cells[2].split_once(' ').map(|(file, fns)| {
                let names = fns
                    .split(", ")
                    .map(|f| f.trim_matches('`').to_string())
                    .collect();
                (file.to_string(), names)
            });
            (cells[0].to_string(), scripts, engine)
        })
        .collect()
}

#[test]
fn every_script_has_a_model_action_and_every_action_a_row() {
    let rows = mapping();
    let mut named = std::collections::BTreeSet::new();
    for (action, scripts, engine) in &rows {
        assert!(
            action == "every action" || queue::ACTIONS.contains(&action.as_str()),
            "MAPPING.md names {action:?}, which is no action of the model"
        );
        for script in scripts {
            assert!(
                std::path::Path::new("lua").join(script).is_file(),
                "MAPPING.md names lua/{script} for {action}, which does not exist"
            );
            named.insert(script.clone());
        }
        if let Some((file, fns)) = engine {
            let source = std::fs::read_to_string(file)
                .unwrap_or_else(|e| panic!("MAPPING.md names {file} for {action}: {e}"));
            for f in fns {
                assert!(
                    source.contains(&format!("fn {f}(")),
                    "MAPPING.md names {f} in {file} for {action}, which has no such function"
                );
            }
        }
    }
    for entry in std::fs::read_dir("lua").expect("lua/") {
        let name = entry
            .expect("an entry")
            .file_name()
            .to_string_lossy()
            .into_owned();
        if name.ends_with(".lua") {
            assert!(
                named.contains(&name),
                "lua/{name} is named by no model action in tests/model/MAPPING.md"
            );
        }
    }
    for action in queue::ACTIONS {
        assert!(
            rows.iter().any(|(a, _, _)| a == action),
            "the model's action {action} has no row in tests/model/MAPPING.md"
        );
    }
    // Every action the model takes has its name among ACTIONS.
    let mut m = Queues::new(2, vec![Kind::Qctl, Kind::Go], 2);
    m.producers = true;
    m.admin = true;
    m.moving = true;
    m.broken = Some(queue::Broken::NegativeScore);
    let mut actions = Vec::new();
    m.all_actions(&m.initial(), &mut actions);
    for a in actions {
        assert!(
            queue::ACTIONS.contains(&a.name()),
            "{a:?} is not in ACTIONS"
        );
    }
}

/// Random sequences of every action of the model at CI bounds, on the real scripts.
#[test]
fn the_real_scripts_do_what_the_model_does() {
    let server = support::RedisServer::start();
    let started = Instant::now();
    // Consumers of both kinds racing, then every action, then a damaged record.
    redis_check::check(
        &server,
        &Queues::new(3, vec![Kind::Qctl, Kind::Go], 2),
        60,
        40,
    );
    let mut m = Queues::new(3, vec![Kind::Qctl, Kind::Go], 2);
    m.producers = true;
    m.admin = true;
    m.moving = true;
    redis_check::check(&server, &m, 60, 40);
    let mut m = Queues::new(2, vec![Kind::Qctl, Kind::Qctl], 2);
    m.damaged = true;
    m.admin = true;
    redis_check::check(&server, &m, 20, 30);
    // Go consumers whose heartbeats lapse and come back: what recover.lua's re-check is for.
    let mut m = Queues::new(2, vec![Kind::Go, Kind::Go], 2);
    m.go_lapses = true;
    redis_check::check(&server, &m, 40, 30);
    support::figure(&format!(
        "model against Redis: 180 sequences of up to 40 actions, {:.1} s",
        started.elapsed().as_secs_f64()
    ));
}

mod broken {
    use super::invariants::*;
    use super::queue::{Broken, Kind, Queues};
    use super::witnesses::{finds, mixed};

    #[test]
    fn a_settle_without_the_in_flight_check_changes_the_queue() {
        finds(
            mixed(2),
            Broken::SettleWithoutInFlightCheck,
            LATE_SETTLE_NOTHING,
        );
        finds(mixed(2), Broken::SettleWithoutInFlightCheck, ONE_PLACE);
    }

    #[test]
    fn orphan_recovery_without_the_heartbeat_recheck_takes_a_fresh_consumers_jobs() {
        // Only a Go consumer comes back once expired: a qctl consumer's lease is lost by then.
        let mut m = mixed(1);
        m.go_lapses = true;
        finds(m, Broken::RecoverWithoutRecheck, FRESH_HOLDER);
    }

    #[test]
    fn a_qctl_consumer_without_its_lease_timer_runs_a_job_twice() {
        finds(mixed(1), Broken::NoLeaseTimer, ONE_HANDLER);
    }

    /// Reference defect 1.
    #[test]
    fn an_undecodable_record_stays_in_flight_at_a_go_consumer() {
        let mut m = Queues::new(1, vec![Kind::Go, Kind::Qctl], 2);
        m.liveness = true;
        m.damaged = true;
        finds(m, Broken::UndecodableStaysInFlight, SETTLED);
    }

    /// Reference defect 2.
    #[test]
    fn the_go_custodian_past_the_unpack_limit_loses_jobs() {
        finds(mixed(2), Broken::UnpackLimit, ONE_PLACE);
    }

    /// Reference defect 3.
    #[test]
    fn a_negative_score_and_promotion_by_rank_drop_one_job_and_double_another() {
        finds(mixed(2), Broken::NegativeScore, NO_NEGATIVE_SCORE);
        finds(mixed(2), Broken::NegativeScore, ONE_PLACE);
    }

    /// Reference defect 4.
    #[test]
    fn a_go_consumer_whose_heartbeat_lapsed_runs_a_recovered_job_twice() {
        finds(mixed(1), Broken::LapsedGoConsumer, ONE_HANDLER);
    }

    /// Reference defect 7.
    #[test]
    fn a_shutdown_that_counts_interrupted_jobs_as_failures_raises_their_attempt() {
        finds(
            mixed(1),
            Broken::ShutdownCountsFailures,
            ATTEMPT_COUNTS_FAILURES,
        );
    }

    /// Reference defect 8.
    #[test]
    fn dead_jobs_trimmed_without_their_records_strand_the_records() {
        finds(mixed(1), Broken::DeadTrimmedWithoutRecords, RECORDS);
    }
}
