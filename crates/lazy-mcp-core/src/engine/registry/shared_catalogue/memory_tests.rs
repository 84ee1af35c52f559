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
    memory.listed("a", false);
    assert_eq!(memory.write_key("a", &launch(false)), "k");
    assert_eq!(memory.write_key("a", &launch(true)), "k-r");
    // Listed where it asked for roots, or taken from the roots' key: from then on.
    memory.listed("b", true);
    memory.entry_taken("c", &launch(false), "k-r");
    memory.entry_taken("d", &launch(false), "k");
    assert_eq!(memory.write_key("b", &launch(false)), "k-r");
    assert_eq!(memory.write_key("c", &launch(false)), "k-r");
    assert_eq!(memory.write_key("d", &launch(false)), "k");
    // Each listed server is written once per event.
    assert_eq!(
        memory.take_listed().iter().cloned().collect::<Vec<_>>(),
        ["a", "b"]
    );
    assert!(memory.take_listed().is_empty());
    assert!(!memory.any_listed());
}
