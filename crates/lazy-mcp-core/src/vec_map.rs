//! `VecMap`/`VecSet`: ordered maps and sets as sorted vectors, for the core's
//! state. Same order, lookups and JSON form as `BTreeMap`/`BTreeSet`, much less
//! code: a `BTreeMap` brings 8–20 KB of node code into the `.wasm` for every
//! key/value pair of types (about 50 pairs, 386 KB; bench/README.md "WASM
//! size"). Here keys and values live in two vectors, so the search is compiled
//! once per key type and each value type adds only its vector moves.
//!
//! Inserting or removing one entry moves the entries after it: fine for the
//! core's maps (servers, connections, clients, requests in flight), whose keys
//! mostly arrive in order (ids count up). Big maps are built with `collect` or
//! `extend`, which sort once.

use crate::sorting::{sorted_positions, swaps_for};
use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, Serializer};
use std::borrow::Borrow;
use std::cmp::Ordering;
use std::fmt;
use std::marker::PhantomData;

/// An ordered map: keys sorted, each once.
#[derive(Clone, PartialEq, Eq)]
pub struct VecMap<K, V> {
    keys: Vec<K>,
    values: Vec<V>,
}

impl<K, V> Default for VecMap<K, V> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K, V> VecMap<K, V> {
    pub const fn new() -> Self {
        VecMap {
            keys: Vec::new(),
            values: Vec::new(),
        }
    }

    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    pub fn clear(&mut self) {
        self.keys.clear();
        self.values.clear();
    }

    /// Entries in key order.
    pub fn iter(&self) -> std::iter::Zip<std::slice::Iter<'_, K>, std::slice::Iter<'_, V>> {
        self.keys.iter().zip(self.values.iter())
    }

    pub fn iter_mut(
        &mut self,
    ) -> std::iter::Zip<std::slice::Iter<'_, K>, std::slice::IterMut<'_, V>> {
        self.keys.iter().zip(self.values.iter_mut())
    }

    pub fn keys(&self) -> std::slice::Iter<'_, K> {
        self.keys.iter()
    }

    pub fn values(&self) -> std::slice::Iter<'_, V> {
        self.values.iter()
    }

    pub fn values_mut(&mut self) -> std::slice::IterMut<'_, V> {
        self.values.iter_mut()
    }

    pub fn into_keys(self) -> std::vec::IntoIter<K> {
        self.keys.into_iter()
    }

    pub fn into_values(self) -> std::vec::IntoIter<V> {
        self.values.into_iter()
    }

    pub fn first_key_value(&self) -> Option<(&K, &V)> {
        self.keys.first().zip(self.values.first())
    }

    pub fn last_key_value(&self) -> Option<(&K, &V)> {
        self.keys.last().zip(self.values.last())
    }

    /// Keeps the entries `keep` says yes to, visiting them in key order.
    pub fn retain(&mut self, mut keep: impl FnMut(&K, &mut V) -> bool) {
        let verdicts: Vec<bool> = self
            .keys
            .iter()
            .zip(self.values.iter_mut())
            .map(|(key, value)| keep(key, value))
            .collect();
        let (swaps, kept) = keeping_swaps(&verdicts);
        apply_swaps(&mut self.keys, &swaps, kept);
        apply_swaps(&mut self.values, &swaps, kept);
    }
}

/// Where `key` is (`Ok`) or would go (`Err`): one search per key type, shared
/// by every map with that key type.
fn search<K: Borrow<Q>, Q: Ord + ?Sized>(keys: &[K], key: &Q) -> Result<usize, usize> {
    keys.binary_search_by(|probe| probe.borrow().cmp(key))
}

impl<K: Ord, V> VecMap<K, V> {
    pub fn get<Q: Ord + ?Sized>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
    {
        search(&self.keys, key)
            .ok()
            .and_then(|at| self.values.get(at))
    }

    pub fn get_mut<Q: Ord + ?Sized>(&mut self, key: &Q) -> Option<&mut V>
    where
        K: Borrow<Q>,
    {
        search(&self.keys, key)
            .ok()
            .and_then(|at| self.values.get_mut(at))
    }

    pub fn get_key_value<Q: Ord + ?Sized>(&self, key: &Q) -> Option<(&K, &V)>
    where
        K: Borrow<Q>,
    {
        let at = search(&self.keys, key).ok()?;
        self.keys.get(at).zip(self.values.get(at))
    }

    pub fn contains_key<Q: Ord + ?Sized>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
    {
        search(&self.keys, key).is_ok()
    }

    /// Sets `key`'s value; the value it had, if any.
    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        match search(&self.keys, &key) {
            Ok(at) => self
                .values
                .get_mut(at)
                .map(|slot| std::mem::replace(slot, value)),
            Err(at) => {
                self.keys.insert(at, key);
                self.values.insert(at, value);
                None
            }
        }
    }

    pub fn remove<Q: Ord + ?Sized>(&mut self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
    {
        self.remove_entry(key).map(|(_, value)| value)
    }

    pub fn remove_entry<Q: Ord + ?Sized>(&mut self, key: &Q) -> Option<(K, V)>
    where
        K: Borrow<Q>,
    {
        let at = search(&self.keys, key).ok()?;
        Some((self.keys.remove(at), self.values.remove(at)))
    }

    pub fn entry(&mut self, key: K) -> Entry<'_, K, V> {
        match search(&self.keys, &key) {
            Ok(at) => Entry::Occupied(OccupiedEntry { map: self, at }),
            Err(at) => Entry::Vacant(VacantEntry { map: self, key, at }),
        }
    }

    /// Moves every entry of `other` in (its values win), leaving it empty.
    pub fn append(&mut self, other: &mut Self) {
        let other = std::mem::take(other);
        self.extend(other);
    }
}

/// A key's place in a [`VecMap`], as `BTreeMap::entry`.
pub enum Entry<'a, K, V> {
    Occupied(OccupiedEntry<'a, K, V>),
    Vacant(VacantEntry<'a, K, V>),
}

pub struct OccupiedEntry<'a, K, V> {
    map: &'a mut VecMap<K, V>,
    at: usize,
}

pub struct VacantEntry<'a, K, V> {
    map: &'a mut VecMap<K, V>,
    key: K,
    at: usize,
}

impl<'a, K, V> OccupiedEntry<'a, K, V> {
    #[allow(clippy::indexing_slicing)]
    pub fn into_mut(self) -> &'a mut V {
        // In bounds: `at` is where the search found the key, and `keys` and
        // `values` always have the same length.
        &mut self.map.values[self.at]
    }
}

impl<'a, K, V> VacantEntry<'a, K, V> {
    pub fn insert(self, value: V) -> &'a mut V {
        self.map.keys.insert(self.at, self.key);
        self.map.values.insert_mut(self.at, value)
    }
}

impl<'a, K, V> Entry<'a, K, V> {
    pub fn or_insert_with(self, make: impl FnOnce() -> V) -> &'a mut V {
        match self {
            Entry::Occupied(entry) => entry.into_mut(),
            Entry::Vacant(entry) => entry.insert(make()),
        }
    }

    pub fn or_insert(self, value: V) -> &'a mut V {
        self.or_insert_with(|| value)
    }

    pub fn or_default(self) -> &'a mut V
    where
        V: Default,
    {
        self.or_insert_with(V::default)
    }
}

impl<K: Ord, V> Extend<(K, V)> for VecMap<K, V> {
    /// Adds every entry (a later one wins over an earlier or existing one, as
    /// `insert`): appended, then put in order once, so building a big map in
    /// any order costs one sort, not a move per entry.
    fn extend<I: IntoIterator<Item = (K, V)>>(&mut self, entries: I) {
        for (key, value) in entries {
            self.keys.push(key);
            self.values.push(value);
        }
        self.restore_order();
    }
}

impl<K: Ord, V> VecMap<K, V> {
    /// Sorts the keys again after an `extend`, a repeated key keeping its last value.
    #[inline(never)]
    fn restore_order(&mut self) {
        if self.keys.is_sorted_by(|a, b| a < b) {
            return;
        }
        let (swaps, keep) = ordering_swaps(&self.keys);
        apply_swaps(&mut self.keys, &swaps, keep);
        apply_swaps(&mut self.values, &swaps, keep);
    }
}

/// The swaps that put `keys` in order, each key once (its last position: the
/// latest value wins), and how many to keep: the repeats end up after the
/// kept ones. Per key type only a comparison closure is compiled.
fn ordering_swaps<K: Ord>(keys: &[K]) -> (Vec<(usize, usize)>, usize) {
    ordering_swaps_by(keys.len(), &|a, b| keys.get(a).cmp(&keys.get(b)))
}

fn ordering_swaps_by(
    len: usize,
    compare: &dyn Fn(usize, usize) -> Ordering,
) -> (Vec<(usize, usize)>, usize) {
    let order = sorted_positions(len, compare);
    // Stable: equal keys stay in arrival order, so keep the last of each run.
    let mut kept: Vec<usize> = Vec::with_capacity(order.len());
    for position in order {
        if kept
            .last()
            .is_some_and(|last| compare(*last, position) == Ordering::Equal)
        {
            kept.pop();
        }
        kept.push(position);
    }
    let keep = kept.len();
    let mut verdicts = vec![false; len];
    for at in &kept {
        if let Some(slot) = verdicts.get_mut(*at) {
            *slot = true;
        }
    }
    kept.extend((0..len).filter(|at| verdicts.get(*at) == Some(&false)));
    (swaps_for(&kept), keep)
}

/// The swaps that keep the items `verdicts` says yes to, in their order,
/// and how many they are.
fn keeping_swaps(verdicts: &[bool]) -> (Vec<(usize, usize)>, usize) {
    let mut positions: Vec<usize> = (0..verdicts.len())
        .filter(|at| verdicts.get(*at) == Some(&true))
        .collect();
    let keep = positions.len();
    positions.extend((0..verdicts.len()).filter(|at| verdicts.get(*at) == Some(&false)));
    (swaps_for(&positions), keep)
}

/// The only part compiled per item type: the swaps, then the repeats cut off.
fn apply_swaps<T>(items: &mut Vec<T>, swaps: &[(usize, usize)], keep: usize) {
    for (a, b) in swaps {
        items.swap(*a, *b);
    }
    items.truncate(keep);
}

impl<K: Ord, V> FromIterator<(K, V)> for VecMap<K, V> {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(entries: I) -> Self {
        let mut map = VecMap::new();
        map.extend(entries);
        map
    }
}

impl<K: Ord, V, const N: usize> From<[(K, V); N]> for VecMap<K, V> {
    fn from(entries: [(K, V); N]) -> Self {
        entries.into_iter().collect()
    }
}

impl<K, V> IntoIterator for VecMap<K, V> {
    type Item = (K, V);
    type IntoIter = std::iter::Zip<std::vec::IntoIter<K>, std::vec::IntoIter<V>>;
    fn into_iter(self) -> Self::IntoIter {
        self.keys.into_iter().zip(self.values)
    }
}

impl<'a, K, V> IntoIterator for &'a VecMap<K, V> {
    type Item = (&'a K, &'a V);
    type IntoIter = std::iter::Zip<std::slice::Iter<'a, K>, std::slice::Iter<'a, V>>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<'a, K, V> IntoIterator for &'a mut VecMap<K, V> {
    type Item = (&'a K, &'a mut V);
    type IntoIter = std::iter::Zip<std::slice::Iter<'a, K>, std::slice::IterMut<'a, V>>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter_mut()
    }
}

impl<K: Borrow<Q> + Ord, Q: Ord + ?Sized, V> std::ops::Index<&Q> for VecMap<K, V> {
    type Output = V;

    /// Panics when `key` is absent, as `BTreeMap`'s index does (tests use it;
    /// the core uses `get`).
    #[allow(clippy::indexing_slicing)]
    fn index(&self, key: &Q) -> &V {
        let at = search(&self.keys, key).unwrap_or(self.values.len());
        &self.values[at]
    }
}

impl<K: fmt::Debug, V: fmt::Debug> fmt::Debug for VecMap<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<K: Serialize, V: Serialize> Serialize for VecMap<K, V> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.len()))?;
        for (key, value) in self.iter() {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

impl<'de, K: Deserialize<'de> + Ord, V: Deserialize<'de>> Deserialize<'de> for VecMap<K, V> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct MapVisitor<K, V>(PhantomData<(K, V)>);
        impl<'de, K: Deserialize<'de> + Ord, V: Deserialize<'de>> Visitor<'de> for MapVisitor<K, V> {
            type Value = VecMap<K, V>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a map")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Self::Value, A::Error> {
                let mut map = VecMap::new();
                // A repeated key keeps its last value, as `BTreeMap`.
                while let Some((key, value)) = access.next_entry()? {
                    map.insert(key, value);
                }
                Ok(map)
            }
        }
        deserializer.deserialize_map(MapVisitor(PhantomData))
    }
}

/// An ordered set: a [`VecMap`] without values.
#[derive(Clone, PartialEq, Eq)]
pub struct VecSet<T> {
    items: Vec<T>,
}

impl<T> Default for VecSet<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> VecSet<T> {
    pub const fn new() -> Self {
        VecSet { items: Vec::new() }
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn clear(&mut self) {
        self.items.clear();
    }

    /// Items in order.
    pub fn iter(&self) -> std::slice::Iter<'_, T> {
        self.items.iter()
    }

    pub fn first(&self) -> Option<&T> {
        self.items.first()
    }

    pub fn last(&self) -> Option<&T> {
        self.items.last()
    }

    pub fn retain(&mut self, keep: impl FnMut(&T) -> bool) {
        let verdicts: Vec<bool> = self.items.iter().map(keep).collect();
        let (swaps, kept) = keeping_swaps(&verdicts);
        apply_swaps(&mut self.items, &swaps, kept);
    }
}

impl<T: Ord> VecSet<T> {
    pub fn contains<Q: Ord + ?Sized>(&self, item: &Q) -> bool
    where
        T: Borrow<Q>,
    {
        search(&self.items, item).is_ok()
    }

    pub fn get<Q: Ord + ?Sized>(&self, item: &Q) -> Option<&T>
    where
        T: Borrow<Q>,
    {
        search(&self.items, item)
            .ok()
            .and_then(|at| self.items.get(at))
    }

    /// Adds `item`; whether it was new.
    pub fn insert(&mut self, item: T) -> bool {
        match search(&self.items, &item) {
            Ok(_) => false,
            Err(at) => {
                self.items.insert(at, item);
                true
            }
        }
    }

    /// Removes `item`; whether it was there.
    pub fn remove<Q: Ord + ?Sized>(&mut self, item: &Q) -> bool
    where
        T: Borrow<Q>,
    {
        self.take(item).is_some()
    }

    pub fn take<Q: Ord + ?Sized>(&mut self, item: &Q) -> Option<T>
    where
        T: Borrow<Q>,
    {
        let at = search(&self.items, item).ok()?;
        Some(self.items.remove(at))
    }

    /// Items in `self` but not in `other`, in order.
    pub fn difference<'a>(&'a self, other: &'a VecSet<T>) -> impl Iterator<Item = &'a T> + 'a {
        self.items.iter().filter(move |item| !other.contains(*item))
    }

    /// Items in both, in order.
    pub fn intersection<'a>(&'a self, other: &'a VecSet<T>) -> impl Iterator<Item = &'a T> + 'a {
        self.items.iter().filter(move |item| other.contains(*item))
    }

    /// Items in either, in order, each once.
    pub fn union<'a>(&'a self, other: &'a VecSet<T>) -> impl Iterator<Item = &'a T> + 'a {
        let all: VecSet<&'a T> = self.items.iter().chain(other.items.iter()).collect();
        all.into_iter()
    }

    pub fn is_subset(&self, other: &VecSet<T>) -> bool {
        self.items.iter().all(|item| other.contains(item))
    }

    pub fn append(&mut self, other: &mut Self) {
        let other = std::mem::take(other);
        self.extend(other);
    }
}

impl<T: Ord> Extend<T> for VecSet<T> {
    /// As [`VecMap`]'s: appended, then put in order once.
    fn extend<I: IntoIterator<Item = T>>(&mut self, items: I) {
        self.items.extend(items);
        self.restore_order();
    }
}

impl<T: Ord> VecSet<T> {
    #[inline(never)]
    fn restore_order(&mut self) {
        if self.items.is_sorted_by(|a, b| a < b) {
            return;
        }
        let (swaps, keep) = ordering_swaps(&self.items);
        apply_swaps(&mut self.items, &swaps, keep);
    }
}

impl<'a, T: Ord + Copy + 'a> Extend<&'a T> for VecSet<T> {
    fn extend<I: IntoIterator<Item = &'a T>>(&mut self, items: I) {
        self.extend(items.into_iter().copied());
    }
}

impl<T: Ord> FromIterator<T> for VecSet<T> {
    fn from_iter<I: IntoIterator<Item = T>>(items: I) -> Self {
        let mut set = VecSet::new();
        set.extend(items);
        set
    }
}

impl<T: Ord, const N: usize> From<[T; N]> for VecSet<T> {
    fn from(items: [T; N]) -> Self {
        items.into_iter().collect()
    }
}

impl<T> IntoIterator for VecSet<T> {
    type Item = T;
    type IntoIter = std::vec::IntoIter<T>;
    fn into_iter(self) -> Self::IntoIter {
        self.items.into_iter()
    }
}

impl<'a, T> IntoIterator for &'a VecSet<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.items.iter()
    }
}

impl<T: fmt::Debug> fmt::Debug for VecSet<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.items.iter()).finish()
    }
}

impl<T: Serialize> Serialize for VecSet<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.items.iter())
    }
}

impl<'de, T: Deserialize<'de> + Ord> Deserialize<'de> for VecSet<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct SeqVisitor<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de> + Ord> Visitor<'de> for SeqVisitor<T> {
            type Value = VecSet<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a sequence")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut access: A) -> Result<Self::Value, A::Error> {
                let mut set = VecSet::new();
                while let Some(item) = access.next_element()? {
                    set.insert(item);
                }
                Ok(set)
            }
        }
        deserializer.deserialize_seq(SeqVisitor(PhantomData))
    }
}

/// The contract's TypeScript is the same as for `BTreeMap`/`BTreeSet`.
#[cfg(feature = "ts")]
mod ts {
    use super::{VecMap, VecSet};
    use std::collections::{BTreeMap, BTreeSet};
    use ts_rs::{Config, TypeVisitor, TS};

    macro_rules! ts_as {
        (as $s:ty: impl<$($g:ident),*> TS for $t:ty) => {
            impl<$($g: TS),*> TS for $t {
                type WithoutGenerics = <$s as TS>::WithoutGenerics;
                type OptionInnerType = <$s as TS>::OptionInnerType;
                fn ident(cfg: &Config) -> String { <$s as TS>::ident(cfg) }
                fn name(cfg: &Config) -> String { <$s as TS>::name(cfg) }
                fn inline(cfg: &Config) -> String { <$s as TS>::inline(cfg) }
                fn inline_flattened(cfg: &Config) -> String { <$s as TS>::inline_flattened(cfg) }
                fn visit_dependencies(v: &mut impl TypeVisitor) where Self: 'static {
                    <$s as TS>::visit_dependencies(v);
                }
                fn visit_generics(v: &mut impl TypeVisitor) where Self: 'static {
                    <$s as TS>::visit_generics(v);
                }
                fn decl(cfg: &Config) -> String { <$s as TS>::decl(cfg) }
                fn decl_concrete(cfg: &Config) -> String { <$s as TS>::decl_concrete(cfg) }
                fn output_path() -> Option<std::path::PathBuf> { <$s as TS>::output_path() }
            }
        };
    }

    ts_as!(as BTreeMap<K, V>: impl<K, V> TS for VecMap<K, V>);
    ts_as!(as BTreeSet<T>: impl<T> TS for VecSet<T>);
}
