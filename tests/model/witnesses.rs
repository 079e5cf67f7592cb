//! Broken witnesses: the model with one rule broken, each of which must keep producing a
//! counterexample of the named property, so that the checker is known to see what it claims.
//! Reference defects 5, 6 and 9 cannot be shown by a state change (docs/reliability.md says
//! why).

use stateright::{Checker, HasDiscoveries, Model};

use super::queue::{Broken, Kind, Queues};

/// The model with `broken`, checked on one thread (breadth first, so the counterexample is
/// one of the shortest); asserts that the checker finds a counterexample of
/// `property` and returns its actions.
pub fn finds(mut model: Queues, broken: Broken, property: &'static str) -> Vec<String> {
    model.broken = Some(broken);
    let checker = model
        .checker()
        .finish_when(HasDiscoveries::AnyOf([property].into_iter().collect()))
        .spawn_bfs()
        .join();
    let path = checker.discovery(property).unwrap_or_else(|| {
        panic!(
            "{broken:?}: no counterexample of \"{property}\" in {} states: the checker no longer sees it",
            checker.unique_state_count()
        )
    });
    let actions: Vec<String> = path
        .into_actions()
        .iter()
        .map(|a| format!("{a:?}"))
        .collect();
    assert!(
        !actions.is_empty(),
        "{broken:?}: the initial state breaks \"{property}\""
    );
    super::support::figure(&format!(
        "model witness {broken:?}: \"{property}\" broken after {} actions: {}",
        actions.len(),
        actions.join(", ")
    ));
    actions
}

pub fn mixed(jobs: u8) -> Queues {
    Queues::new(jobs, vec![Kind::Qctl, Kind::Go], 2)
}
