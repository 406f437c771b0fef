//! A projected subtree together with its trace entries and links, addressed relative to the
//! subtree's own root so that rules can move subtrees (flattening does) and keep the trace right.
//!
//! Notes live in a trie keyed by pointer tokens: placing a child under its parent is one push,
//! whatever the child's size, so deep inlining stays linear.

use std::rc::Rc;

use serde_json::Value;

use super::trace::{Detail, Rule};

/// Every emitted node carries a link note and few carry a trace entry: the entry is boxed so
/// that a link note stays two words (the notes of a large projection outweigh its schema). The
/// originals are shared: a `$ref` target inlined many times is a copy of one projection, and
/// its copies' link notes are one allocation, not one per copy.
#[derive(Debug, Clone)]
pub(crate) enum NoteKind {
    Link(Rc<[String]>),
    Trace(Box<TraceNote>),
}

#[derive(Debug, Clone)]
pub(crate) struct TraceNote {
    pub(crate) rule: Rule,
    pub(crate) from: Vec<String>,
    pub(crate) detail: Detail,
}

/// Notes at this node and, under pointer tokens, below it. A token may repeat among
/// `children`: merging two note sets never has to search.
#[derive(Debug, Clone, Default)]
pub(crate) struct Notes {
    here: Vec<NoteKind>,
    children: Vec<(String, Notes)>,
}

impl Notes {
    fn is_empty(&self) -> bool {
        self.here.is_empty() && self.children.is_empty()
    }

    /// Adds `other` as if it sat at `tokens` below this node.
    pub(crate) fn adopt(&mut self, tokens: &[&str], other: Notes) {
        if other.is_empty() {
            return;
        }
        match tokens.split_first() {
            None => {
                self.here.extend(other.here);
                self.children.extend(other.children);
            }
            Some((first, rest)) => {
                let mut wrapped = Notes::default();
                wrapped.adopt(rest, other);
                self.children.push(((*first).to_owned(), wrapped));
            }
        }
    }

    /// Removes and returns the notes at or below `tokens`, re-addressed relative to it.
    pub(crate) fn take_under(&mut self, tokens: &[&str]) -> Notes {
        let Some((first, rest)) = tokens.split_first() else {
            return std::mem::take(self);
        };
        let mut taken = Notes::default();
        for (key, child) in self.children.iter_mut().filter(|(k, _)| k == first) {
            let _ = key;
            taken.adopt(&[], child.take_under(rest));
        }
        self.children.retain(|(_, c)| !c.is_empty());
        taken
    }

    /// Removes and returns only the notes at this node itself.
    pub(crate) fn take_here(&mut self) -> Notes {
        Notes {
            here: std::mem::take(&mut self.here),
            children: Vec::new(),
        }
    }

    /// Removes the first trace entry of `rule` at this node and returns its original pointers
    /// (a later rule made its verdict moot).
    pub(crate) fn take_root_trace(&mut self, rule: Rule) -> Option<Vec<String>> {
        let i = self
            .here
            .iter()
            .position(|k| matches!(k, NoteKind::Trace(t) if t.rule == rule))?;
        match self.here.remove(i) {
            NoteKind::Trace(t) => Some(t.from),
            NoteKind::Link(_) => None,
        }
    }

    pub(crate) fn has_root_trace(&self, rule: Rule) -> bool {
        self.here
            .iter()
            .any(|k| matches!(k, NoteKind::Trace(t) if t.rule == rule))
    }

    /// Hands over every note with its JSON pointer, built incrementally from `pointer` (the
    /// pointer of this node).
    pub(crate) fn walk_into(self, pointer: &mut String, f: &mut dyn FnMut(&str, NoteKind)) {
        for kind in self.here {
            f(pointer, kind);
        }
        for (token, child) in self.children {
            let len = pointer.len();
            pointer.push('/');
            pointer.push_str(&crate::pointer::escape(&token));
            child.walk_into(pointer, f);
            pointer.truncate(len);
        }
    }
}

#[derive(Debug, Clone)]
pub(crate) struct Out {
    pub(crate) value: Value,
    /// True when the projection accepts exactly what the original accepts and collects the
    /// same annotations; `not`, `if` and `unevaluated*` may only keep exact subschemas.
    pub(crate) exact: bool,
    pub(crate) notes: Notes,
}

impl Out {
    pub(crate) fn new(value: Value, exact: bool) -> Out {
        Out {
            value,
            exact,
            notes: Notes::default(),
        }
    }

    pub(crate) fn link(&mut self, originals: Vec<String>) {
        self.notes.here.push(NoteKind::Link(originals.into()));
    }

    /// [`Out::link`] to one original, the link every emitted node gets.
    pub(crate) fn link_one(&mut self, original: &str) {
        self.notes
            .here
            .push(NoteKind::Link(Rc::from([original.to_owned()])));
    }

    pub(crate) fn trace(&mut self, rule: Rule, from: Vec<String>, detail: Detail) {
        self.notes
            .here
            .push(NoteKind::Trace(Box::new(TraceNote { rule, from, detail })));
    }

    pub(crate) fn adopt(&mut self, tokens: &[&str], notes: Notes) {
        self.notes.adopt(tokens, notes);
    }

    pub(crate) fn take_notes_under(&mut self, tokens: &[&str]) -> Notes {
        self.notes.take_under(tokens)
    }

    /// The original pointers linked to this subtree's root, in the order they were linked.
    pub(crate) fn root_originals(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for kind in &self.notes.here {
            if let NoteKind::Link(origs) = kind {
                for o in origs.iter() {
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
        drop(self.notes.take_under(tokens));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn paths(notes: &Notes) -> Vec<Vec<String>> {
        let mut out = Vec::new();
        notes.clone().walk_into(&mut String::new(), &mut |p, _| {
            out.push(crate::pointer::tokens(p).unwrap())
        });
        out
    }

    #[test]
    fn notes_move_with_their_subtree() {
        let mut child = Out::new(json!({}), true);
        child.link(vec!["/orig".into()]);
        let mut parent = Out::new(json!({}), true);
        parent.adopt(&["anyOf", "0"], child.notes);
        let moved = parent.take_notes_under(&["anyOf", "0"]);
        assert_eq!(paths(&moved), vec![Vec::<String>::new()]);
        assert!(paths(&parent.notes).is_empty());
        let mut again = Out::new(json!({}), true);
        again.adopt(&["properties", "x"], moved);
        assert_eq!(paths(&again.notes), vec![vec!["properties", "x"]]);
    }

    #[test]
    fn repeated_tokens_are_all_taken() {
        let mut a = Out::new(json!({}), true);
        a.link(vec!["/a".into()]);
        let mut b = Out::new(json!({}), true);
        b.link(vec!["/b".into()]);
        let mut parent = Out::new(json!({}), true);
        parent.adopt(&["properties", "x"], a.notes);
        parent.adopt(&["properties", "x"], b.notes);
        parent.adopt(&["properties", "y"], Notes::default());
        let taken = parent.take_notes_under(&["properties", "x"]);
        assert_eq!(paths(&taken).len(), 2);
        assert!(paths(&parent.notes).is_empty());
    }
}
