//! Sorting with one sort in the whole `.wasm`. Each `sort_by` call site of a
//! new item type or comparator compiles its own copy of the standard library's
//! sort (3–6 KB each, about 25 of them; bench/README.md "WASM size"). Here
//! the sort runs once over positions with a `dyn` comparator, and only the
//! swaps that apply the order are compiled per item type. Stable, like
//! `slice::sort_by`. For lists off the hot path: each comparison is a dynamic
//! call.

use std::cmp::Ordering;

/// Sorts `items` by `compare`, stably (as `slice::sort_by`).
pub fn sort_by<T>(items: &mut [T], compare: impl Fn(&T, &T) -> Ordering) {
    sort_by_dyn(items, &compare);
}

/// [`sort_by`]'s body, compiled once per item type rather than once per
/// comparison closure (bench/README.md "WASM size").
fn sort_by_dyn<T>(items: &mut [T], compare: &dyn Fn(&T, &T) -> Ordering) {
    let swaps = ordering_swaps(items.len(), &|a, b| match (items.get(a), items.get(b)) {
        (Some(x), Some(y)) => compare(x, y),
        _ => Ordering::Equal,
    });
    for (a, b) in swaps {
        items.swap(a, b);
    }
}

/// The swaps that sort `0..len` by `compare`: the part of [`sort_by`] that
/// knows no item type, compiled once.
#[inline(never)]
fn ordering_swaps(len: usize, compare: &dyn Fn(usize, usize) -> Ordering) -> Vec<(usize, usize)> {
    swaps_for(&sorted_positions(len, compare))
}

/// Sorts `items` in their order, stably (as `slice::sort`).
pub fn sort<T: Ord>(items: &mut [T]) {
    sort_by(items, T::cmp);
}

/// Sorts `items` by `key`, stably (as `slice::sort_by_key`).
pub fn sort_by_key<T, K: Ord>(items: &mut [T], key: impl Fn(&T) -> K) {
    sort_by(items, |a, b| key(a).cmp(&key(b)));
}

/// `0..len` stably sorted by `compare`: one sort in the whole `.wasm`.
pub(crate) fn sorted_positions(
    len: usize,
    compare: &dyn Fn(usize, usize) -> Ordering,
) -> Vec<usize> {
    let mut order: Vec<usize> = (0..len).collect();
    order.sort_by(|a, b| compare(*a, *b));
    order
}

/// Swaps that move the item at `positions[i]` to `i`, for every `i`.
pub(crate) fn swaps_for(positions: &[usize]) -> Vec<(usize, usize)> {
    // item_at[place] = the original index of the item now at `place`;
    // place_of[original] = where that item is now.
    let mut item_at: Vec<usize> = (0..positions.len()).collect();
    let mut place_of = item_at.clone();
    let mut swaps = Vec::new();
    for (place, wanted) in positions.iter().enumerate() {
        let (Some(from), Some(current)) =
            (place_of.get(*wanted).copied(), item_at.get(place).copied())
        else {
            continue;
        };
        if from == place {
            continue;
        }
        swaps.push((place, from));
        if let (Some(a), Some(b)) = (item_at.get_mut(place), place_of.get_mut(*wanted)) {
            *a = *wanted;
            *b = place;
        }
        if let (Some(a), Some(b)) = (item_at.get_mut(from), place_of.get_mut(current)) {
            *a = current;
            *b = from;
        }
    }
    swaps
}
