//! `Clients`' own answers, without an engine.

use super::Clients;
use crate::engine::events::Endpoint;
use crate::protocol::methods;
use serde_json::json;

#[test]
fn a_server_request_goes_to_the_first_client_that_sees_the_server_and_declared_the_capability() {
    let mut clients = Clients::default();
    let own = Endpoint::Server { name: "a".into() };
    clients.message_from("c1", &own);
    clients.initialized("c1", json!({}), None);
    clients.message_from("c2", &Endpoint::Server { name: "b".into() });
    clients.initialized("c2", json!({"sampling": {}}), None);
    assert_eq!(clients.attached_declaring("a", "sampling"), None);
    clients.message_from("c3", &Endpoint::Aggregate);
    clients.initialized("c3", json!({"sampling": {}}), None);
    clients.message_from("c4", &own);
    clients.initialized("c4", json!({"sampling": {}}), None);
    assert_eq!(
        clients.attached_declaring("a", "sampling").as_deref(),
        Some("c3")
    );
    assert_eq!(
        clients.attached_declaring("b", "sampling").as_deref(),
        Some("c2")
    );
    assert_eq!(clients.attached_declaring("a", "elicitation"), None);
    // A legacy client's call: nothing is missing for it to be asked.
    let requests = json!({"q": {"method": methods::SAMPLING_CREATE_MESSAGE, "params": {}}});
    let requests = requests.as_object().cloned().unwrap_or_default();
    assert_eq!(
        clients.missing_input_capabilities("c1", &json!(1), &requests),
        None
    );
    // Nor is it passed the requests: it cannot answer them.
    assert!(!clients.can_answer_input("c4", &json!(1), &requests));
    assert!(!clients.can_answer_input("c4", &json!(1), &Default::default()));
}
