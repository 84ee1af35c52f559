//! A client session's decisions, without an engine.

use super::ClientSession;
use crate::engine::clients::state::listen::Listen;
use crate::engine::events::Endpoint;
use crate::vec_map::VecSet;
use serde_json::json;

fn on_server(name: &str) -> Endpoint {
    Endpoint::Server { name: name.into() }
}

#[test]
fn a_session_sees_its_servers_endpoint_or_all_on_the_aggregate() {
    let mut session = ClientSession::began("s1", &on_server("git"));
    assert!(session.sees_server("git"));
    assert!(!session.sees_server("github"), "another server's endpoint");
    assert!(!session.is_aggregate());
    session.spoke_on(&Endpoint::Aggregate);
    assert!(session.sees_server("git") && session.sees_server("github"));
    assert!(session.is_aggregate());
}

#[test]
fn initialize_names_the_client_and_what_it_declares() {
    let mut session = ClientSession::began("s1", &Endpoint::Aggregate);
    assert_eq!(session.identity(), "s1", "its session id until it says");
    assert!(!session.declares("roots"));
    session.initialized(json!({ "roots": {} }), None);
    assert_eq!(
        session.identity(),
        "s1",
        "no clientInfo: still its session id"
    );
    assert!(session.declares("roots") && !session.declares("sampling"));
    session.initialized(json!({}), Some("VS Code".into()));
    assert_eq!(session.identity(), "VS Code");
    assert!(!session.declares("roots"), "the last initialize counts");
}

#[test]
fn a_session_with_an_open_listen_is_modern_until_it_closes() {
    let mut session = ClientSession::began("s1", &Endpoint::Aggregate);
    assert!(!session.is_modern());
    let listen = Listen::opened(json!(1), VecSet::new(), VecSet::new());
    assert!(session.listen_opened("1".into(), listen).is_none());
    assert!(session.is_modern());
    assert_eq!(session.listens().len(), 1);
    assert!(session.listen_closed("2").is_none(), "no such listen");
    assert!(session.listen_closed("1").is_some());
    assert!(
        !session.is_modern(),
        "no listen, never spoke the modern era"
    );
}
