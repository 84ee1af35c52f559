//! The cataloguing queue alone: each server once, in the order wanted, and
//! one that needs no cataloguing any more leaves it.

use super::CatalogueQueue;

fn drain(queue: &mut CatalogueQueue) -> Vec<String> {
    std::iter::from_fn(|| queue.poll_next()).collect()
}

#[test]
fn a_server_wanted_twice_is_catalogued_once_in_its_first_place() {
    let mut queue = CatalogueQueue::default();
    assert!(queue.is_empty());
    queue.handle_wanted("a");
    queue.handle_wanted("b");
    queue.handle_wanted("a");
    assert!(!queue.is_empty());
    assert_eq!(drain(&mut queue), ["a", "b"]);
    assert!(queue.is_empty());
}

#[test]
fn a_server_gone_leaves_the_queue_and_the_others_keep_their_order() {
    let mut queue = CatalogueQueue::default();
    for name in ["a", "b", "c"] {
        queue.handle_wanted(name);
    }
    queue.handle_gone("b");
    queue.handle_gone("not queued");
    assert_eq!(drain(&mut queue), ["a", "c"]);
}
