//! The shared catalogue's decisions without an engine: which keys are read,
//! which answer counts, which key holds and which is written.

use super::SharedCatalogue;
use crate::shared::launch::SharedLaunch;

fn launch(roots_bound: bool) -> SharedLaunch {
    SharedLaunch {
        key: "k".into(),
        roots_key: "r".into(),
        roots_bound,
        workspace_cwd: false,
        omit_env: vec![],
        holder: String::new(),
        idle_timeout_ms: 0,
        adaptive_idle: false,
        repeatable: Vec::new(),
    }
}

#[test]
fn a_definition_and_its_roots_are_looked_up_once() {
    let mut memory = SharedCatalogue::default();
    assert_eq!(
        memory.look_up("a", launch(false)),
        Some(vec!["k-r".to_string(), "k".to_string()])
    );
    assert_eq!(memory.look_up("a", launch(false)), None);
    // A project server's entry holds only for the same roots.
    assert_eq!(
        memory.look_up("b", launch(true)),
        Some(vec!["k-r".to_string()])
    );
    // Either key answers the last lookup; another does not.
    assert!(memory.answers_last_lookup("a", "k-r"));
    assert!(memory.answers_last_lookup("a", "k"));
    assert!(!memory.answers_last_lookup("a", "x"));
    assert!(!memory.answers_last_lookup("c", "k"));
    // Forgotten: the next need looks again.
    memory.forget_lookup("a");
    assert!(!memory.answers_last_lookup("a", "k"));
    assert!(memory.look_up("a", launch(false)).is_some());
}

#[test]
fn a_key_holds_only_for_its_definition_and_roots() {
    assert!(SharedCatalogue::key_holds(&launch(false), "k"));
    assert!(SharedCatalogue::key_holds(&launch(false), "k-r"));
    assert!(SharedCatalogue::key_holds(&launch(true), "k-r"));
    assert!(!SharedCatalogue::key_holds(&launch(true), "k"));
    assert!(!SharedCatalogue::key_holds(&launch(false), "k-other"));
}

#[test]
fn a_server_that_asks_for_roots_is_written_under_the_roots_key() {
    let mut memory = SharedCatalogue::default();
    memory.listed("a");
    assert_eq!(SharedCatalogue::write_key(&launch(false), false), "k");
    assert_eq!(SharedCatalogue::write_key(&launch(true), false), "k-r");
    assert_eq!(SharedCatalogue::write_key(&launch(false), true), "k-r");
    // Seen asking, or taken from the roots' key: known from then on.
    memory.listed("b");
    assert!(memory.asks_roots("b", false));
    assert!(!memory.asks_roots("b", false), "not news twice");
    assert!(memory.entry_taken("c", &launch(false), "k-r", None));
    assert!(memory.entry_taken("d", &launch(false), "k", Some(false)));
    assert!(memory.known_to_ask_roots("b"));
    assert!(memory.known_to_ask_roots("c"));
    assert!(!memory.known_to_ask_roots("d"));
    // The key alone's entry that says it asks is not used, and teaches it.
    assert!(!memory.entry_taken("e", &launch(false), "k", Some(true)));
    assert!(memory.known_to_ask_roots("e"));
    // Asked after an entry saying it never asks went out: that one is overwritten too.
    assert!(!memory.asked_late("b"));
    memory.asks_roots("f", true);
    assert!(memory.asked_late("f"));
    // Each listed server is written once per event.
    assert_eq!(
        memory.take_listed().iter().cloned().collect::<Vec<_>>(),
        ["a", "b"]
    );
    assert!(memory.take_listed().is_empty());
    assert!(!memory.any_listed());
}
