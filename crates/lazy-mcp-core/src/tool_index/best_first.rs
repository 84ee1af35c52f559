//! Scored tools in rank order, through the core's one sort
//! ([`crate::sorting`]). A `sort_by` per ranking site compiled the standard
//! sort once per item type and comparator: about 20 KB of the `.wasm` for
//! tool search's five sorts (bench/README.md "WASM size").

use crate::sorting::{sort_by, sorted_positions};
use std::cmp::Ordering;

/// Higher score first, then lower index: a total order over distinct
/// indices, so every sort gives the same result.
pub(super) fn best_first(a: &(usize, f32), b: &(usize, f32)) -> Ordering {
    b.1.total_cmp(&a.1).then(a.0.cmp(&b.0))
}

/// The positions of `scores` best first ([`best_first`]).
pub(super) fn positions_best_first(scores: &[f32]) -> Vec<usize> {
    let score = |i: usize| scores.get(i).copied().unwrap_or(0.0);
    sorted_positions(scores.len(), &|a, b| {
        best_first(&(a, score(a)), &(b, score(b)))
    })
}

/// The `limit` best of `scored` (all of them when `limit` is 0 or not below
/// their number), best first. A search asks for a few of up to thousands of
/// scored tools: one pass keeps the best few in order, each other tool costs
/// one comparison with the last kept; the full sort is only for "all".
pub(super) fn best(mut scored: Vec<(usize, f32)>, limit: usize) -> Vec<(usize, f32)> {
    if limit == 0 || limit >= scored.len() {
        sort_by(&mut scored, best_first);
        return scored;
    }
    let mut kept: Vec<(usize, f32)> = Vec::with_capacity(limit + 1);
    for item in scored {
        let full = kept.len() == limit;
        if full
            && kept
                .last()
                .is_some_and(|last| best_first(&item, last).is_gt())
        {
            continue;
        }
        let at = kept.partition_point(|k| best_first(k, &item).is_lt());
        kept.insert(at, item);
        kept.truncate(limit);
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The slice API's sort, as the ranking sites used before.
    fn std_sorted(mut scored: Vec<(usize, f32)>) -> Vec<(usize, f32)> {
        scored.sort_by(best_first);
        scored
    }

    #[test]
    fn best_is_the_sorted_prefix_for_every_limit() {
        // Ties, zeros, negatives and a NaN (total_cmp puts it above every number).
        let scores = [
            0.5,
            0.0,
            0.9,
            0.5,
            -1.0,
            0.9,
            f32::NAN,
            0.1,
            0.5,
            0.0,
            2.0,
            0.9,
        ];
        let scored: Vec<(usize, f32)> = scores.iter().copied().enumerate().collect();
        let sorted = std_sorted(scored.clone());
        let bits =
            |v: &[(usize, f32)]| v.iter().map(|(i, s)| (*i, s.to_bits())).collect::<Vec<_>>();
        for limit in 0..=scored.len() + 2 {
            let want = if limit == 0 {
                &sorted[..]
            } else {
                &sorted[..limit.min(sorted.len())]
            };
            assert_eq!(
                bits(&best(scored.clone(), limit)),
                bits(want),
                "limit {limit}"
            );
            // The input's order does not matter.
            let mut reversed = scored.clone();
            reversed.reverse();
            assert_eq!(
                bits(&best(reversed, limit)),
                bits(want),
                "reversed, limit {limit}"
            );
        }
        assert_eq!(best(Vec::new(), 3), Vec::new());
    }

    #[test]
    fn positions_follow_the_same_order() {
        let scores = [0.5, 0.0, 0.9, 0.5, -1.0, 0.9, 0.1];
        let scored: Vec<(usize, f32)> = scores.iter().copied().enumerate().collect();
        let want: Vec<usize> = std_sorted(scored).into_iter().map(|(i, _)| i).collect();
        assert_eq!(positions_best_first(&scores), want);
        assert_eq!(want, vec![2, 5, 0, 3, 6, 1, 4]);
    }
}
