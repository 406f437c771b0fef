//! The walk's records (adapters, trace entries, unresolved places) in the order they were made,
//! with an index by place. A carrier forgets what was recorded below the value it replaces, and
//! a large projection makes tens of thousands of carriers: reading every record for each one
//! made tailoring quadratic (a 3 KB document whose definitions fan out spent 82 % of its lint
//! there). With the index, a carrier with nothing below it costs one lookup.

use std::collections::BTreeMap;

use crate::pointer;
use crate::projection::tailor::{Adapter, Unresolved};
use crate::projection::trace::TraceEntry;

/// A record that sits at one place of the tailored schema.
pub(in crate::projection::tailor) trait Place {
    fn place(&self) -> &str;
    fn place_mut(&mut self) -> &mut String;
}

impl Place for Adapter {
    fn place(&self) -> &str {
        self.at()
    }
    fn place_mut(&mut self) -> &mut String {
        self.at_mut()
    }
}

impl Place for TraceEntry {
    fn place(&self) -> &str {
        &self.at
    }
    fn place_mut(&mut self) -> &mut String {
        &mut self.at
    }
}

impl Place for Unresolved {
    fn place(&self) -> &str {
        &self.pointer
    }
    fn place_mut(&mut self) -> &mut String {
        &mut self.pointer
    }
}

/// Records in the order they were made; a removed one leaves a hole, so that the order of the
/// others (which the output follows) never changes.
pub(in crate::projection::tailor) struct Placed<T> {
    items: Vec<Option<T>>,
    /// By place, the positions of the live records there, in the order they were made.
    by_place: BTreeMap<String, Vec<usize>>,
}

impl<T> Default for Placed<T> {
    fn default() -> Self {
        Placed {
            items: Vec::new(),
            by_place: BTreeMap::new(),
        }
    }
}

impl<T: Place> Placed<T> {
    pub(in crate::projection::tailor) fn push(&mut self, record: T) {
        let i = self.items.len();
        match self.by_place.get_mut(record.place()) {
            Some(positions) => positions.push(i),
            None => {
                self.by_place.insert(record.place().to_owned(), vec![i]);
            }
        }
        self.items.push(Some(record));
    }

    pub(in crate::projection::tailor) fn extend(&mut self, records: impl IntoIterator<Item = T>) {
        for r in records {
            self.push(r);
        }
    }

    pub(in crate::projection::tailor) fn iter(&self) -> impl Iterator<Item = &T> {
        self.items.iter().flatten()
    }

    /// The records at exactly `place`, in the order they were made.
    pub(in crate::projection::tailor) fn at(&self, place: &str) -> impl Iterator<Item = &T> {
        self.by_place
            .get(place)
            .into_iter()
            .flatten()
            .filter_map(|&i| self.items[i].as_ref())
    }

    /// Changes the records at `place` that `pick` says, in place; `change` must leave each one
    /// at `place` (the index is not told otherwise).
    pub(in crate::projection::tailor) fn update_at(
        &mut self,
        place: &str,
        pick: impl Fn(&T) -> bool,
        mut change: impl FnMut(&mut T),
    ) {
        for &i in self.by_place.get(place).into_iter().flatten() {
            if let Some(r) = self.items[i].as_mut().filter(|r| pick(r)) {
                change(r);
                debug_assert_eq!(r.place(), place, "a record moved without its index");
            }
        }
    }

    /// Puts `with` in place of the first record at `place` that `pick` says (`with` must sit
    /// at `place` too); gives `with` back when there is none.
    pub(in crate::projection::tailor) fn replace_first_at(
        &mut self,
        place: &str,
        pick: impl Fn(&T) -> bool,
        with: T,
    ) -> Result<(), T> {
        debug_assert_eq!(with.place(), place);
        let found = self
            .by_place
            .get(place)
            .into_iter()
            .flatten()
            .copied()
            .find(|&i| self.items[i].as_ref().is_some_and(&pick));
        match found {
            Some(i) => {
                self.items[i] = Some(with);
                Ok(())
            }
            None => Err(with),
        }
    }

    /// Removes the records at exactly `place` that `gone` says.
    pub(in crate::projection::tailor) fn remove_at(
        &mut self,
        place: &str,
        gone: impl Fn(&T) -> bool,
    ) {
        self.remove_some_at(place, usize::MAX, gone);
    }

    /// Removes the first record at `place` that `gone` says.
    pub(in crate::projection::tailor) fn remove_first_at(
        &mut self,
        place: &str,
        gone: impl Fn(&T) -> bool,
    ) {
        self.remove_some_at(place, 1, gone);
    }

    /// Removes the first `most` records at `place` that `gone` says.
    fn remove_some_at(&mut self, place: &str, mut most: usize, gone: impl Fn(&T) -> bool) {
        let Some(positions) = self.by_place.get_mut(place) else {
            return;
        };
        let items = &mut self.items;
        positions.retain(|&i| {
            let remove = most > 0 && items[i].as_ref().is_some_and(&gone);
            if remove {
                items[i] = None;
                most -= 1;
            }
            !remove
        });
        if positions.is_empty() {
            self.by_place.remove(place);
        }
    }

    /// Removes every record at or below `prefix`.
    pub(in crate::projection::tailor) fn remove_within(&mut self, prefix: &str) {
        for place in self.places_within(prefix) {
            for i in self.by_place.remove(&place).unwrap_or_default() {
                self.items[i] = None;
            }
        }
    }

    /// Appends a copy of each record at or below `from`, placed where `moved` says, in the
    /// order the originals were made.
    pub(in crate::projection::tailor) fn copy_within(
        &mut self,
        from: &str,
        moved: &dyn Fn(&str) -> String,
    ) where
        T: Clone,
    {
        let mut positions: Vec<usize> = self
            .places_within(from)
            .iter()
            .flat_map(|place| self.by_place[place].iter().copied())
            .collect();
        positions.sort_unstable();
        for i in positions {
            if let Some(r) = &self.items[i] {
                let mut copy = r.clone();
                *copy.place_mut() = moved(r.place());
                self.push(copy);
            }
        }
    }

    pub(in crate::projection::tailor) fn into_vec(self) -> Vec<T> {
        self.items.into_iter().flatten().collect()
    }

    /// The places holding records at or below `prefix`.
    fn places_within(&self, prefix: &str) -> Vec<String> {
        pointer::entries_within(&self.by_place, prefix)
            .map(|(p, _)| p.clone())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unresolved(at: &str) -> Unresolved {
        Unresolved {
            pointer: at.to_owned(),
            rule: "r",
            why: String::new(),
        }
    }

    fn places(p: &Placed<Unresolved>) -> Vec<&str> {
        p.iter().map(|u| u.pointer.as_str()).collect()
    }

    fn placed(at: &[&str]) -> Placed<Unresolved> {
        let mut p = Placed::default();
        p.extend(at.iter().map(|a| unresolved(a)));
        p
    }

    #[test]
    fn removing_within_a_place_spares_its_siblings_that_share_a_prefix() {
        let mut p = placed(&["/a", "/a-x", "/a/b", "/a~1b", "/ab", "/a/b/c", "", "/a"]);
        p.remove_within("/a");
        assert_eq!(places(&p), ["/a-x", "/a~1b", "/ab", ""]);
        p.remove_within("");
        assert!(places(&p).is_empty());
    }

    #[test]
    fn copies_keep_the_order_the_originals_were_made_in() {
        let mut p = placed(&["/d/b", "/x", "/d/a", "/d"]);
        p.copy_within("/d", &|at| format!("/e{}", &at[2..]));
        assert_eq!(
            places(&p),
            ["/d/b", "/x", "/d/a", "/d", "/e/b", "/e/a", "/e"]
        );
        // The copies are indexed like any record.
        p.remove_within("/e");
        assert_eq!(places(&p), ["/d/b", "/x", "/d/a", "/d"]);
    }

    #[test]
    fn removals_at_one_place_leave_the_rest_in_order() {
        let mut p = placed(&["/a", "/b", "/a", "/a"]);
        p.update_at("/a", |_| true, |u| u.why.push('!'));
        p.remove_first_at("/a", |u| u.why == "!");
        assert_eq!(places(&p), ["/b", "/a", "/a"]);
        assert!(p.replace_first_at("/a", |_| true, unresolved("/a")).is_ok());
        assert!(
            p.replace_first_at("/c", |_| true, unresolved("/c"))
                .is_err()
        );
        assert_eq!(p.iter().filter(|u| u.why.is_empty()).count(), 2);
        p.remove_at("/a", |_| true);
        assert_eq!(places(&p), ["/b"]);
        assert_eq!(p.at("/a").count(), 0);
        p.push(unresolved("/a"));
        assert_eq!(places(&p), ["/b", "/a"]);
        assert_eq!(p.into_vec().len(), 2);
    }
}
