//! `VecMap`/`VecSet` (the core's ordered maps, sorted vectors for a smaller
//! `.wasm`) behave as `BTreeMap`/`BTreeSet`: random histories of the same
//! operations give the same answers, order and JSON.

use lazy_mcp_core::vec_map::{VecMap, VecSet};
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};

#[derive(Debug, Clone)]
enum Op {
    Insert(u8, u16),
    Remove(u8),
    EntryAdd(u8, u16),
    Retain(u8),
    Extend(Vec<(u8, u16)>),
    Append(Vec<(u8, u16)>),
}

fn op() -> impl Strategy<Value = Op> {
    let pairs = prop::collection::vec((0u8..40, any::<u16>()), 0..30);
    prop_oneof![
        (0u8..40, any::<u16>()).prop_map(|(k, v)| Op::Insert(k, v)),
        (0u8..40).prop_map(Op::Remove),
        (0u8..40, any::<u16>()).prop_map(|(k, v)| Op::EntryAdd(k, v)),
        (1u8..5).prop_map(Op::Retain),
        pairs.clone().prop_map(Op::Extend),
        pairs.prop_map(Op::Append),
    ]
}

fn same(vec: &VecMap<u8, u16>, tree: &BTreeMap<u8, u16>) {
    let a: Vec<(u8, u16)> = vec.iter().map(|(k, v)| (*k, *v)).collect();
    let b: Vec<(u8, u16)> = tree.iter().map(|(k, v)| (*k, *v)).collect();
    assert_eq!(a, b);
    assert_eq!(vec.len(), tree.len());
    assert_eq!(
        serde_json::to_string(vec).ok(),
        serde_json::to_string(tree).ok()
    );
}

proptest! {
    #[test]
    fn a_vec_map_answers_as_a_btree_map(ops in prop::collection::vec(op(), 0..60)) {
        let mut vec: VecMap<u8, u16> = VecMap::new();
        let mut tree: BTreeMap<u8, u16> = BTreeMap::new();
        for op in ops {
            match op {
                Op::Insert(k, v) => assert_eq!(vec.insert(k, v), tree.insert(k, v)),
                Op::Remove(k) => assert_eq!(vec.remove(&k), tree.remove(&k)),
                Op::EntryAdd(k, v) => {
                    let a = vec.entry(k).or_insert(v);
                    *a = a.wrapping_add(1);
                    let b = tree.entry(k).or_insert(v);
                    *b = b.wrapping_add(1);
                }
                Op::Retain(m) => {
                    vec.retain(|k, v| (*k as u16).wrapping_add(*v) % m as u16 != 0);
                    tree.retain(|k, v| (*k as u16).wrapping_add(*v) % m as u16 != 0);
                }
                Op::Extend(pairs) => {
                    vec.extend(pairs.clone());
                    tree.extend(pairs);
                }
                Op::Append(pairs) => {
                    let mut a: VecMap<u8, u16> = pairs.iter().copied().collect();
                    let mut b: BTreeMap<u8, u16> = pairs.iter().copied().collect();
                    vec.append(&mut a);
                    tree.append(&mut b);
                    assert!(a.is_empty() && b.is_empty());
                }
            }
            same(&vec, &tree);
            for k in 0u8..40 {
                assert_eq!(vec.get(&k), tree.get(&k));
                assert_eq!(vec.contains_key(&k), tree.contains_key(&k));
            }
        }
        let text = serde_json::to_string(&tree).unwrap();
        let read: VecMap<u8, u16> = serde_json::from_str(&text).unwrap();
        same(&read, &tree);
    }

    #[test]
    fn a_vec_set_answers_as_a_btree_set(
        ops in prop::collection::vec((any::<bool>(), 0u8..40), 0..80),
        more in prop::collection::vec(0u8..40, 0..40),
    ) {
        let mut vec: VecSet<u8> = VecSet::new();
        let mut tree: BTreeSet<u8> = BTreeSet::new();
        for (add, item) in ops {
            if add {
                assert_eq!(vec.insert(item), tree.insert(item));
            } else {
                assert_eq!(vec.remove(&item), tree.remove(&item));
            }
            assert_eq!(vec.iter().collect::<Vec<_>>(), tree.iter().collect::<Vec<_>>());
        }
        let other_vec: VecSet<u8> = more.iter().copied().collect();
        let other_tree: BTreeSet<u8> = more.iter().copied().collect();
        assert_eq!(other_vec.iter().collect::<Vec<_>>(), other_tree.iter().collect::<Vec<_>>());
        assert_eq!(
            vec.difference(&other_vec).collect::<Vec<_>>(),
            tree.difference(&other_tree).collect::<Vec<_>>()
        );
        assert_eq!(
            vec.intersection(&other_vec).collect::<Vec<_>>(),
            tree.intersection(&other_tree).collect::<Vec<_>>()
        );
        assert_eq!(
            vec.union(&other_vec).collect::<Vec<_>>(),
            tree.union(&other_tree).collect::<Vec<_>>()
        );
        assert_eq!(vec.first(), tree.first());
        assert_eq!(vec.last(), tree.last());
        assert_eq!(serde_json::to_string(&vec).unwrap(), serde_json::to_string(&tree).unwrap());
    }
}

#[test]
fn a_repeated_key_keeps_its_last_value_as_in_a_btree_map() {
    let read: VecMap<String, u32> = serde_json::from_str(r#"{"b": 1, "a": 2, "b": 3}"#).unwrap();
    let tree: BTreeMap<String, u32> = serde_json::from_str(r#"{"b": 1, "a": 2, "b": 3}"#).unwrap();
    assert_eq!(
        read.iter().collect::<Vec<_>>(),
        tree.iter().collect::<Vec<_>>()
    );
    let collected: VecMap<&str, u32> = [("x", 1), ("a", 0), ("x", 2)].into_iter().collect();
    assert_eq!(collected.get("x"), Some(&2));
    assert_eq!(
        collected.keys().copied().collect::<Vec<_>>(),
        vec!["a", "x"]
    );
}

#[test]
fn building_a_big_map_in_random_order_is_one_sort_not_a_move_per_entry() {
    // 200,000 keys in scrambled order: inserted one by one into a sorted vector
    // this moves ~10^10 entries (minutes); collected, it is one sort.
    let keys: Vec<u64> = (0..200_000u64)
        .map(|i| i.wrapping_mul(2_654_435_761) % 1_000_003)
        .collect();
    let started = std::time::Instant::now();
    let map: VecMap<u64, u64> = keys.iter().map(|k| (*k, *k)).collect();
    let tree: BTreeMap<u64, u64> = keys.iter().map(|k| (*k, *k)).collect();
    assert!(map.iter().eq(tree.iter()));
    assert!(
        started.elapsed() < std::time::Duration::from_secs(10),
        "took {:?}",
        started.elapsed()
    );
}
