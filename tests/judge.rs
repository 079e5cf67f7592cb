//! The history judge of the fault suite (tests/support/judge.rs) against hand-built
//! histories: each class, and each way a duplicate is or is not explained. No Redis: the
//! end state of a run is built by hand too.

mod support;

use std::collections::HashSet;
use std::time::{Duration, SystemTime};

use support::judge::{Class, End, Enqueue, History, Hit};
use support::ledger::Run;

/// `secs` seconds into the run.
fn at(secs: u64) -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000 + secs)
}

/// A run of `id` by a handler of consumer `consumer`, started `secs` seconds in.
fn run(id: &str, consumer: i32, secs: u64) -> Run {
    Run {
        id: id.to_string(),
        pid: consumer * 10 + secs as i32,
        started: at(secs),
        consumer,
    }
}

fn set(ids: &[&str]) -> HashSet<String> {
    ids.iter().map(|id| id.to_string()).collect()
}

/// Every id acked.
fn acked(ids: &[&str]) -> End {
    End {
        acked: set(ids),
        ..End::default()
    }
}

fn ids(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

#[test]
fn jobs_enqueued_run_once_and_acked_are_ok() {
    let mut h = History::new();
    h.enqueued(&["a", "b"], Enqueue::Acknowledged)
        .ran([run("a", 1, 1), run("b", 2, 2)]);
    let v = h.judge(&acked(&["a", "b"]));
    assert_eq!(ids(v.ids(Class::Ok)), ["a", "b"]);
    assert!(v.failures().is_empty(), "{}", v.table());
    assert_eq!(
        v.line(),
        "ok=2 lost=0 recovered=0 unexpected=0 duplicated=0"
    );
    // Dead is settled too.
    let end = End {
        acked: set(&["a"]),
        dead: set(&["b"]),
        ..End::default()
    };
    assert_eq!(h.judge(&end).count(Class::Ok), 2);
}

#[test]
fn an_acknowledged_job_that_never_ran_and_is_nowhere_is_lost_and_fails_the_run() {
    let mut h = History::new();
    h.enqueued(&["a", "b"], Enqueue::Acknowledged)
        .ran([run("a", 1, 1)]);
    let v = h.judge(&acked(&["a"]));
    assert_eq!(ids(v.ids(Class::Lost)), ["b"]);
    assert_eq!(v.count(Class::Ok), 1);
    assert_eq!(v.failures(), ["1 lost: [\"b\"]"]);
    let failed = std::panic::catch_unwind(|| v.check("a lost job"));
    assert!(failed.is_err(), "check passed a lost job");
}

#[test]
fn a_job_that_ran_and_vanished_without_an_ack_is_lost() {
    let mut h = History::new();
    h.enqueued(&["a"], Enqueue::Acknowledged)
        .ran([run("a", 1, 1)]);
    let v = h.judge(&End::default());
    assert_eq!(ids(v.ids(Class::Lost)), ["a"]);
}

#[test]
fn a_job_still_waiting_to_run_is_not_lost() {
    let mut h = History::new();
    h.enqueued(&["a", "b", "c"], Enqueue::Acknowledged)
        .ran([run("c", 1, 1)]);
    let mut end = End {
        ready: set(&["a"]),
        scheduled: set(&["b"]),
        ..End::default()
    };
    // c ran and went back to its consumer's in-flight set: not settled yet either.
    end.in_flight
        .insert("q:inflight:x".to_string(), set(&["c"]));
    let v = h.judge(&end);
    assert_eq!(v.count(Class::Lost), 0, "{}", v.table());
    assert_eq!(v.waiting, ["a", "b", "c"]);
    assert!(v.failures().is_empty());
    assert!(v.line().ends_with(" waiting=3"), "{}", v.line());
}

#[test]
fn a_job_never_enqueued_that_ran_or_is_in_the_queue_is_unexpected_and_fails_the_run() {
    let mut h = History::new();
    h.enqueued(&["a"], Enqueue::Acknowledged)
        .ran([run("a", 1, 1), run("ghost", 1, 2)]);
    let end = End {
        acked: set(&["a", "ghost"]),
        ready: set(&["stray"]),
        ..End::default()
    };
    let v = h.judge(&end);
    assert_eq!(ids(v.ids(Class::Unexpected)), ["ghost", "stray"]);
    assert_eq!(v.count(Class::Ok), 1);
    assert_eq!(v.failures(), ["2 unexpected: [\"ghost\", \"stray\"]"]);
}

#[test]
fn an_indeterminate_enqueue_that_arrived_is_recovered_and_one_that_did_not_is_no_failure() {
    let mut h = History::new();
    h.enqueued(&["a"], Enqueue::Acknowledged)
        .enqueued(&["made-it", "missed"], Enqueue::Indeterminate)
        .ran([run("a", 1, 1), run("made-it", 1, 2)]);
    let v = h.judge(&acked(&["a", "made-it"]));
    assert_eq!(ids(v.ids(Class::Recovered)), ["made-it"]);
    assert_eq!(v.count(Class::Lost), 0);
    assert_eq!(v.never_arrived, ["missed"]);
    assert!(v.failures().is_empty(), "{}", v.table());
    assert!(v.line().ends_with(" never_arrived=1"), "{}", v.line());
    // One that arrived and waits is not recovered yet, nor lost.
    let mut h = History::new();
    h.enqueued(&["late"], Enqueue::Indeterminate);
    let v = h.judge(&End {
        ready: set(&["late"]),
        ..End::default()
    });
    assert_eq!(v.waiting, ["late"]);
    assert_eq!(v.count(Class::Recovered), 0);
}

#[test]
fn a_job_a_fault_stranded_that_recovery_ran_is_recovered() {
    // Consumer 1 held s (reserved, not started) and r (started) when it was killed.
    let mut h = History::new();
    h.enqueued(&["s", "r", "o"], Enqueue::Acknowledged)
        .ran([
            run("o", 1, 1),
            run("r", 1, 4),
            run("s", 2, 9),
            run("r", 2, 9),
        ])
        .fault(
            "SIGKILL of consumer 1",
            at(5),
            Hit::Consumer {
                pid: 1,
                held: Some(vec!["s".to_string(), "r".to_string()]),
            },
        );
    let v = h.judge(&acked(&["s", "r", "o"]));
    assert_eq!(ids(v.ids(Class::Recovered)), ["s"]);
    assert_eq!(ids(v.ids(Class::Ok)), ["o"]);
    assert_eq!(ids(v.ids(Class::Duplicated)), ["r"]);
    assert!(v.failures().is_empty(), "{}", v.table());
}

#[test]
fn a_duplicate_running_on_the_consumer_a_fault_hit_is_explained_by_it() {
    let mut h = History::new();
    h.enqueued(&["a", "b"], Enqueue::Acknowledged)
        .ran([run("a", 1, 1), run("b", 1, 2), run("a", 2, 8)])
        .fault(
            "SIGKILL of consumer 1",
            at(5),
            Hit::Consumer {
                pid: 1,
                held: Some(vec!["a".to_string()]),
            },
        );
    let v = h.judge(&acked(&["a", "b"]));
    assert_eq!(ids(v.ids(Class::Duplicated)), ["a"]);
    assert_eq!(v.duplicates.len(), 1);
    assert_eq!(
        v.duplicates[0].faults,
        [Some("SIGKILL of consumer 1".to_string())]
    );
    assert!(v.failures().is_empty(), "{}", v.table());
    assert_eq!(
        v.line(),
        "ok=1 lost=0 recovered=0 unexpected=0 duplicated=1 (a by SIGKILL of consumer 1)"
    );
    // A network fault between that consumer and Redis explains it as well.
    let mut h = History::new();
    h.enqueued(&["a"], Enqueue::Acknowledged)
        .ran([run("a", 1, 1), run("a", 2, 8)])
        .fault(
            "connection reset",
            at(5),
            Hit::Network {
                consumers: vec![1, 2],
            },
        );
    assert!(h.judge(&acked(&["a"])).failures().is_empty());
    // And Redis losing acknowledged writes, whoever ran it.
    let mut h = History::new();
    h.enqueued(&["a"], Enqueue::Acknowledged)
        .ran([run("a", 1, 1), run("a", 1, 8)])
        .fault(
            "failover to a lagging replica",
            at(5),
            Hit::Redis { lost_writes: true },
        );
    assert!(h.judge(&acked(&["a"])).failures().is_empty());
}

#[test]
fn a_duplicate_no_fault_explains_fails_the_run() {
    let lone = |faults: &[(u64, Hit)]| {
        let mut h = History::new();
        h.enqueued(&["a"], Enqueue::Acknowledged)
            .ran([run("a", 1, 3), run("a", 2, 8)]);
        for (secs, hit) in faults {
            h.fault("the fault", at(*secs), hit.clone());
        }
        h.judge(&acked(&["a"]))
    };
    let kill = |pid: i32, held: Option<&[&str]>| Hit::Consumer {
        pid,
        held: held.map(|h| h.iter().map(|s| s.to_string()).collect()),
    };
    for (why, faults) in [
        ("no fault at all", vec![]),
        ("a fault on another consumer", vec![(5, kill(2, None))]),
        (
            "a fault well before the first run",
            vec![(1, kill(1, None))],
        ),
        ("a fault after the repeat", vec![(9, kill(1, None))]),
        (
            "a fault on the consumer while it did not hold the job",
            vec![(5, kill(1, Some(&["b"])))],
        ),
        (
            "a network fault on other consumers",
            vec![(5, Hit::Network { consumers: vec![2] })],
        ),
        (
            "a Redis restart that lost no write",
            vec![(5, Hit::Redis { lost_writes: false })],
        ),
        ("a producer killed", vec![(5, Hit::Producer { pid: 1 })]),
    ] {
        let v = lone(&faults);
        assert_eq!(ids(v.ids(Class::Duplicated)), ["a"], "{why}");
        assert_eq!(
            v.failures(),
            ["a ran 2 times and no fault explains it"],
            "{why}: {}",
            v.table()
        );
        assert!(v.table().contains("NO FAULT EXPLAINS IT"), "{why}");
        assert!(v.line().contains("(a by no fault)"), "{why}: {}", v.line());
    }
}

#[test]
fn runs_a_test_made_fail_are_no_duplicates_but_one_more_is() {
    let mut h = History::new();
    h.enqueued(&["f"], Enqueue::Acknowledged)
        .ran([run("f", 1, 1), run("f", 1, 4)])
        .may_repeat("f", 1);
    let v = h.judge(&acked(&["f"]));
    assert_eq!(ids(v.ids(Class::Ok)), ["f"]);
    h.ran([run("f", 2, 7)]);
    let v = h.judge(&acked(&["f"]));
    assert_eq!(ids(v.ids(Class::Duplicated)), ["f"]);
    assert_eq!(v.unexplained().len(), 1);
    // With a fault that explains one of the three runs, the other repeat is the allowed one.
    h.fault(
        "SIGKILL of consumer 1",
        at(5),
        Hit::Consumer { pid: 1, held: None },
    );
    let v = h.judge(&acked(&["f"]));
    assert!(v.failures().is_empty(), "{}", v.table());
}

/// A handler its consumer started in the instant before a SIGKILL may note its start just
/// after it: that run is still the killed consumer's, and its repeat is explained; a run noted
/// seconds after the kill was not started by that consumer before it, and is not.
#[test]
fn a_run_noted_just_after_the_kill_of_its_consumer_was_started_before_it() {
    let judged = |first_ms: u64| {
        let mut first = run("a", 1, 5);
        first.started = at(5) + Duration::from_millis(first_ms);
        let mut h = History::new();
        h.enqueued(&["a"], Enqueue::Acknowledged)
            .ran([first, run("a", 2, 9)])
            .fault(
                "SIGKILL of consumer 1",
                at(5),
                Hit::Consumer {
                    pid: 1,
                    held: Some(vec!["a".to_string()]),
                },
            );
        h.judge(&acked(&["a"]))
    };
    let v = judged(200);
    assert!(v.failures().is_empty(), "{}", v.table());
    let v = judged(3000);
    assert!(!v.failures().is_empty(), "{}", v.table());
}
