//! `lazy_mcp_core::sorting` (one sort for the whole `.wasm`) orders lists as the
//! standard library's stable sorts do, equal items keeping their order.

use lazy_mcp_core::sorting::{sort, sort_by, sort_by_key};
use proptest::prelude::*;

proptest! {
    #[test]
    fn sorts_as_the_standard_stable_sort(items in prop::collection::vec((0u8..10, any::<u16>()), 0..200)) {
        let mut ours = items.clone();
        let mut std_sorted = items.clone();
        sort_by_key(&mut ours, |(key, _)| *key);
        std_sorted.sort_by_key(|(key, _)| *key);
        prop_assert_eq!(&ours, &std_sorted);

        let mut ours = items.clone();
        let mut std_sorted = items.clone();
        sort_by(&mut ours, |a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        std_sorted.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        prop_assert_eq!(&ours, &std_sorted);

        let mut ours = items.clone();
        let mut std_sorted = items;
        sort(&mut ours);
        std_sorted.sort();
        prop_assert_eq!(ours, std_sorted);
    }
}

#[test]
fn sorts_strings_and_empty_lists() {
    let mut names = vec![
        "b".to_string(),
        "a".to_string(),
        "c".to_string(),
        "a".to_string(),
    ];
    sort(&mut names);
    assert_eq!(names, ["a", "a", "b", "c"]);
    let mut empty: Vec<u8> = Vec::new();
    sort(&mut empty);
    assert!(empty.is_empty());
}
