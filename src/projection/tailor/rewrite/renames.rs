//! Where each projection node went in the tailored schema. Read by projection pointer; a purge
//! or a copy asks the other way round (which nodes went at or below a tailored place), so the
//! reverse is indexed too: walking every entry for each JSON-text carrier made tailoring a
//! large schema quadratic in its size.

use std::collections::BTreeMap;

use crate::pointer;

#[derive(Debug, Default)]
pub(in crate::projection::tailor) struct Renames {
    /// Projection pointer → tailored pointer.
    places: BTreeMap<String, String>,
    /// Tailored pointer → the projection pointers placed there (several, once a bundle took
    /// their properties), sorted.
    placed: BTreeMap<String, Froms>,
}

/// The projection pointers placed at one tailored pointer, sorted and without repeats. Nearly
/// every place holds one: a sorted `Vec` is one small allocation where a set's node was ten
/// times larger, once per node of the schema.
#[derive(Debug, Default)]
struct Froms(Vec<String>);

impl Froms {
    fn insert(&mut self, from: String) {
        if let Err(i) = self.0.binary_search(&from) {
            self.0.insert(i, from);
        }
    }

    fn remove(&mut self, from: &str) {
        if let Ok(i) = self.0.binary_search_by(|f| f.as_str().cmp(from)) {
            self.0.remove(i);
        }
    }
}

impl Renames {
    pub(super) fn get(&self, from: &str) -> Option<&String> {
        self.places.get(from)
    }

    pub(super) fn insert(&mut self, from: String, to: String) {
        if let Some(old) = self.places.insert(from.clone(), to.clone()) {
            self.unplace(&old, &from);
        }
        self.placed.entry(to).or_default().insert(from);
    }

    /// (projection pointer, tailored pointer), by projection pointer.
    pub(super) fn iter(&self) -> impl Iterator<Item = (&String, &String)> {
        self.places.iter()
    }

    /// The projection pointers placed exactly at `to`.
    pub(super) fn placed_at(&self, to: &str) -> impl Iterator<Item = &String> {
        self.placed.get(to).into_iter().flat_map(|f| &f.0)
    }

    /// Forgets the nodes placed at or below `prefix`.
    pub(super) fn remove_within(&mut self, prefix: &str) {
        for to in self.tailored_within(prefix) {
            for from in self.placed.remove(&to).into_iter().flat_map(|f| f.0) {
                self.places.remove(&from);
            }
        }
    }

    /// Moves the nodes placed at or below `prefix` to where `moved` says.
    pub(super) fn move_within(&mut self, prefix: &str, moved: impl Fn(&str) -> String) {
        for to in self.tailored_within(prefix) {
            let target = moved(&to);
            for from in self.placed.remove(&to).into_iter().flat_map(|f| f.0) {
                self.places.insert(from.clone(), target.clone());
                self.placed.entry(target.clone()).or_default().insert(from);
            }
        }
    }

    pub(super) fn into_map(self) -> BTreeMap<String, String> {
        self.places
    }

    fn unplace(&mut self, to: &str, from: &str) {
        if let Some(froms) = self.placed.get_mut(to) {
            froms.remove(from);
            if froms.0.is_empty() {
                self.placed.remove(to);
            }
        }
    }

    /// The tailored pointers at or below `prefix` (contiguous in the ordered index).
    fn tailored_within(&self, prefix: &str) -> Vec<String> {
        pointer::entries_within(&self.placed, prefix)
            .map(|(to, _)| to.clone())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn renames(pairs: &[(&str, &str)]) -> Renames {
        let mut r = Renames::default();
        for (from, to) in pairs {
            r.insert((*from).into(), (*to).into());
        }
        r
    }

    fn pairs(r: &Renames) -> Vec<(String, String)> {
        r.iter().map(|(f, t)| (f.clone(), t.clone())).collect()
    }

    #[test]
    fn removing_a_place_forgets_what_went_there_and_below_only() {
        let mut r = renames(&[
            ("/p/a", "/t/a"),
            ("/p/a/x", "/t/a/x"),
            ("/p/ab", "/t/ab"),
            ("/p/b", "/t/b"),
        ]);
        r.remove_within("/t/a");
        assert_eq!(
            pairs(&r),
            vec![
                ("/p/ab".to_owned(), "/t/ab".to_owned()),
                ("/p/b".to_owned(), "/t/b".to_owned())
            ]
        );
        assert_eq!(r.placed_at("/t/a").count(), 0);
    }

    #[test]
    fn a_node_placed_again_is_found_only_at_its_new_place() {
        let mut r = renames(&[("/p/a", "/t/a"), ("/p/b", "/t/b")]);
        r.insert("/p/a".into(), "/t/bundle".into());
        r.insert("/p/b".into(), "/t/bundle".into());
        assert_eq!(r.placed_at("/t/bundle").count(), 2);
        r.remove_within("/t/a");
        assert_eq!(r.get("/p/a").map(String::as_str), Some("/t/bundle"));
    }

    #[test]
    fn the_nodes_at_one_place_are_listed_in_order_once() {
        let mut r = renames(&[("/p/c", "/t/x"), ("/p/a", "/t/x"), ("/p/b", "/t/x")]);
        r.insert("/p/a".into(), "/t/x".into());
        let at: Vec<&String> = r.placed_at("/t/x").collect();
        assert_eq!(at, ["/p/a", "/p/b", "/p/c"]);
        r.insert("/p/b".into(), "/t/y".into());
        let at: Vec<&String> = r.placed_at("/t/x").collect();
        assert_eq!(at, ["/p/a", "/p/c"]);
    }

    #[test]
    fn moving_a_place_moves_what_went_below_it() {
        let mut r = renames(&[("/p/a", "/d/A"), ("/p/a/x", "/d/A/x"), ("/p/c", "/d/AB")]);
        r.move_within("/d/A", |at| format!("/d/A_1{}", &at["/d/A".len()..]));
        assert_eq!(r.get("/p/a").map(String::as_str), Some("/d/A_1"));
        assert_eq!(r.get("/p/a/x").map(String::as_str), Some("/d/A_1/x"));
        assert_eq!(r.get("/p/c").map(String::as_str), Some("/d/AB"));
        assert_eq!(r.placed_at("/d/A_1/x").count(), 1);
        assert_eq!(r.placed_at("/d/A/x").count(), 0);
    }
}
