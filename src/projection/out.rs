//! A projected subtree together with its trace entries and links, addressed relative to the
//! subtree's own root so that rules can move subtrees (flattening does) and keep the trace right.

use serde_json::Value;

use super::trace::{Detail, Rule};

#[derive(Debug, Clone)]
pub(crate) enum NoteKind {
    Link(Vec<String>),
    Trace {
        rule: Rule,
        from: Vec<String>,
        detail: Detail,
    },
}

#[derive(Debug, Clone)]
pub(crate) struct Note {
    /// Pointer tokens from the subtree root, stored last-first so that moving a subtree under
    /// a parent is a push.
    rev_path: Vec<String>,
    pub(crate) kind: NoteKind,
}

impl Note {
    pub(crate) fn path(&self) -> impl Iterator<Item = &str> {
        self.rev_path.iter().rev().map(String::as_str)
    }
}

#[derive(Debug, Clone)]
pub(crate) struct Out {
    pub(crate) value: Value,
    /// True when the projection accepts exactly what the original accepts and collects the
    /// same annotations; `not`, `if` and `unevaluated*` may only keep exact subschemas.
    pub(crate) exact: bool,
    pub(crate) notes: Vec<Note>,
}

impl Out {
    pub(crate) fn new(value: Value, exact: bool) -> Out {
        Out {
            value,
            exact,
            notes: Vec::new(),
        }
    }

    pub(crate) fn link(&mut self, originals: Vec<String>) {
        self.notes.push(Note {
            rev_path: Vec::new(),
            kind: NoteKind::Link(originals),
        });
    }

    pub(crate) fn trace(&mut self, rule: Rule, from: Vec<String>, detail: Detail) {
        self.notes.push(Note {
            rev_path: Vec::new(),
            kind: NoteKind::Trace { rule, from, detail },
        });
    }

    /// Adds `notes` as if their subtree sat at `tokens` below this one.
    pub(crate) fn adopt(&mut self, tokens: &[&str], notes: Vec<Note>) {
        for mut n in notes {
            n.rev_path
                .extend(tokens.iter().rev().map(|t| (*t).to_owned()));
            self.notes.push(n);
        }
    }

    /// Removes and returns the notes at or below `tokens`, re-addressed relative to it.
    pub(crate) fn take_notes_under(&mut self, tokens: &[&str]) -> Vec<Note> {
        let (under, rest): (Vec<Note>, Vec<Note>) = std::mem::take(&mut self.notes)
            .into_iter()
            .partition(|n| starts_with(n, tokens));
        self.notes = rest;
        under
            .into_iter()
            .map(|mut n| {
                let keep = n.rev_path.len() - tokens.len();
                n.rev_path.truncate(keep);
                n
            })
            .collect()
    }

    /// The original pointers linked to this subtree's root.
    pub(crate) fn root_originals(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for n in self.notes.iter().filter(|n| n.rev_path.is_empty()) {
            if let NoteKind::Link(origs) = &n.kind {
                for o in origs {
                    if !out.contains(o) {
                        out.push(o.clone());
                    }
                }
            }
        }
        out
    }

    /// Drops the notes below `tokens` (the subtree they describe is gone).
    pub(crate) fn forget_under(&mut self, tokens: &[&str]) {
        self.notes.retain(|n| !starts_with(n, tokens));
    }
}

fn starts_with(note: &Note, tokens: &[&str]) -> bool {
    note.rev_path.len() >= tokens.len()
        && note.rev_path.iter().rev().zip(tokens).all(|(a, b)| a == b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn notes_move_with_their_subtree() {
        let mut child = Out::new(json!({}), true);
        child.link(vec!["/orig".into()]);
        let mut parent = Out::new(json!({}), true);
        parent.adopt(&["anyOf", "0"], child.notes);
        let moved = parent.take_notes_under(&["anyOf", "0"]);
        assert_eq!(moved.len(), 1);
        assert_eq!(moved[0].path().count(), 0);
        let mut again = Out::new(json!({}), true);
        again.adopt(&["properties", "x"], moved);
        let paths: Vec<Vec<&str>> = again.notes.iter().map(|n| n.path().collect()).collect();
        assert_eq!(paths, vec![vec!["properties", "x"]]);
    }
}
