//! A projected subtree together with its trace entries and links, addressed relative to the
//! subtree's own root so that rules can move subtrees (flattening does) and keep the trace right.
//!
//! Notes live in a trie keyed by pointer tokens: placing a child under its parent is one push,
//! whatever the child's size, so deep inlining stays linear.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;

use super::cancel::Cancel;
use super::engine::KeyPlaces;
use super::trace::{Detail, Rule};

/// Every emitted node carries a link note and few carry a trace entry or a stand-in: those are
/// boxed so that a link note stays two words (the notes of a large projection outweigh its schema). The
/// originals are shared: a `$ref` target inlined many times is a copy of one projection, and
/// its copies' link notes are one allocation, not one per copy. (`Arc` rather than `Rc`: a
/// projection written with its shared parts left in place is sent to the writing thread.)
#[derive(Debug, Clone)]
pub(crate) enum NoteKind {
    Link(Arc<[String]>),
    Rare(Box<RareNote>),
}

// A third variant beside `Link` would make every note a word larger.
const _: () = assert!(std::mem::size_of::<NoteKind>() == 16);

#[derive(Debug, Clone)]
pub(crate) enum RareNote {
    Trace(TraceNote),
    /// The value here is a stand-in for this shared projection (its schema and its notes), one
    /// of the places a `$ref` target is inlined (see [`Out::shared`]).
    Shared(Arc<Shared>),
}

impl NoteKind {
    pub(crate) fn trace(&self) -> Option<&TraceNote> {
        match self {
            NoteKind::Rare(rare) => match &**rare {
                RareNote::Trace(t) => Some(t),
                RareNote::Shared(_) => None,
            },
            NoteKind::Link(_) => None,
        }
    }

    fn shared(&self) -> Option<&Arc<Shared>> {
        match self {
            NoteKind::Rare(rare) => match &**rare {
                RareNote::Shared(shared) => Some(shared),
                RareNote::Trace(_) => None,
            },
            NoteKind::Link(_) => None,
        }
    }

    fn into_shared(self) -> Result<Arc<Shared>, NoteKind> {
        match self {
            NoteKind::Rare(rare) => match *rare {
                RareNote::Shared(shared) => Ok(shared),
                trace => Err(NoteKind::Rare(Box::new(trace))),
            },
            link => Err(link),
        }
    }
}

/// A projected subtree inlined at several places and held once.
#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) value: Value,
    pub(crate) notes: Notes,
    /// The original pointer of the `$ref` target it projects.
    pub(crate) origin: String,
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

    /// Removes the notes below this node, grouped by their first token and re-addressed
    /// relative to it: what [`Notes::take_under`] gives for each token, in one pass where a
    /// call per token would scan every child each time (a merge of wide objects asks for one
    /// property at a time).
    pub(crate) fn take_children(&mut self) -> HashMap<String, Notes> {
        let mut taken: HashMap<String, Notes> = HashMap::new();
        for (key, child) in std::mem::take(&mut self.children) {
            taken.entry(key).or_default().adopt(&[], child);
        }
        taken
    }

    /// [`Notes::take_children`] of every child at `first`: what [`Notes::take_under`] gives
    /// for `[first, token]`, for every token at once. The notes at `first` itself stay.
    pub(crate) fn take_each_under(&mut self, first: &str) -> HashMap<String, Notes> {
        let mut taken: HashMap<String, Notes> = HashMap::new();
        for (_, child) in self.children.iter_mut().filter(|(k, _)| k == first) {
            for (token, notes) in child.take_children() {
                taken.entry(token).or_default().adopt(&[], notes);
            }
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
            .position(|k| k.trace().is_some_and(|t| t.rule == rule))?;
        match self.here.remove(i) {
            NoteKind::Rare(rare) => match *rare {
                RareNote::Trace(t) => Some(t.from),
                RareNote::Shared(_) => None,
            },
            NoteKind::Link(_) => None,
        }
    }

    pub(crate) fn has_root_trace(&self, rule: Rule) -> bool {
        self.here
            .iter()
            .any(|k| k.trace().is_some_and(|t| t.rule == rule))
    }

    /// Hands over every note with its JSON pointer, built incrementally from `pointer` (the
    /// pointer of this node).
    pub(crate) fn walk_into(self, pointer: &mut String, f: &mut dyn FnMut(&str, NoteKind)) {
        for kind in self.here {
            f(pointer, kind);
        }
        for (token, child) in self.children {
            let len = pointer.len();
            push_token(pointer, &token);
            child.walk_into(pointer, f);
            pointer.truncate(len);
        }
    }

    /// Hands over every trace note with its JSON pointer and its place in the materialized
    /// form of `value` (child indices, as the engine's `document_position` gives them; `value`
    /// is the subtree these notes describe, `None` below a token it does not have), at every
    /// place a shared projection stands, as its copies would have carried them.
    pub(crate) fn walk_traces<'a>(
        &'a self,
        value: Option<&'a Value>,
        pointer: &mut String,
        position: &mut Vec<usize>,
        places: &mut KeyPlaces<'a>,
        f: &mut dyn FnMut(&str, &[usize], &TraceNote),
    ) {
        for kind in &self.here {
            match (kind.shared(), kind.trace()) {
                (Some(shared), _) => {
                    let value = value.map(|_| &shared.value);
                    shared
                        .notes
                        .walk_traces(value, pointer, position, places, f);
                }
                (None, Some(trace)) => f(pointer, position, trace),
                (None, None) => {}
            }
        }
        for (token, child) in &self.children {
            let (len, depth) = (pointer.len(), position.len());
            push_token(pointer, token);
            let below = value.and_then(|v| places.step(v, token, position));
            child.walk_traces(below, pointer, position, places, f);
            pointer.truncate(len);
            position.truncate(depth);
        }
    }

    /// [`Out::root_originals`], read through a stand-in as its copy would carry them.
    fn root_originals_into(&self, out: &mut Vec<String>) {
        for kind in &self.here {
            match kind {
                NoteKind::Link(origs) => {
                    for o in origs.iter() {
                        if !out.contains(o) {
                            out.push(o.clone());
                        }
                    }
                }
                NoteKind::Rare(_) => {
                    if let Some(shared) = kind.shared() {
                        shared.notes.root_originals_into(out);
                    }
                }
            }
        }
    }

    /// The shared projection standing at this node, if any.
    pub(crate) fn shared_here(&self) -> Option<&Arc<Shared>> {
        self.here.iter().find_map(NoteKind::shared)
    }

    pub(crate) fn children(&self) -> &[(String, Notes)] {
        &self.children
    }

    /// Puts a copy of each shared projection in place of its stand-in in `value` (the subtree
    /// these notes describe), its notes in place of the shared note: the value and notes a
    /// walk that copied every reused expansion would have made. The last place a projection
    /// stands takes it instead of a copy.
    ///
    /// On a large projection this is where the time goes once the walk is done, so it stops
    /// when `cancel` is raised, with the original pointer of the projection it was copying.
    pub(crate) fn materialize(self, value: &mut Value, cancel: &Cancel) -> Result<Notes, String> {
        if let Some(shared) = self.shared_here()
            && cancel.is_cancelled()
        {
            return Err(shared.origin.clone());
        }
        let mut out = self.resolve_here(value);
        let mut children = Vec::with_capacity(out.children.len());
        for (token, child) in std::mem::take(&mut out.children) {
            let child = match child_mut(value, &token) {
                Some(slot) => child.materialize(slot, cancel)?,
                None => child,
            };
            children.push((token, child));
        }
        out.children = children;
        Ok(out)
    }

    /// The notes of the shared projections alone (all a writer needs).
    pub(crate) fn keep_shared(self) -> Notes {
        let here = self
            .here
            .into_iter()
            .filter(|k| k.shared().is_some())
            .collect();
        let children = self
            .children
            .into_iter()
            .map(|(token, child)| (token, child.keep_shared()))
            .filter(|(_, child)| !child.is_empty())
            .collect();
        Notes { here, children }
    }

    /// Puts copies of the shared projections in place of their stand-ins in `value` (the
    /// subtree these notes describe) where `scope` says, in place: notes without a stand-in
    /// are not rebuilt, so a rule that needs its subtree whole pays for the copies alone.
    fn resolve_in_place(&mut self, value: &mut Value, scope: Scope<'_>) {
        let below = match scope {
            Scope::Only([]) => None,
            Scope::Except([], keep) if self.shared_here().is_some_and(|s| keep(s)) => return,
            Scope::Except([], _) => Some(Scope::All),
            other => Some(other),
        };
        let here = !matches!(scope, Scope::Only([_, ..]));
        if here && self.shared_here().is_some() {
            let notes = std::mem::take(self);
            *self = notes.resolve_here(value);
        }
        let Some(below) = below else { return };
        for (token, child) in &mut self.children {
            if let Some(scope) = below.along(token)
                && let Some(slot) = child_mut(value, token)
            {
                child.resolve_in_place(slot, scope);
            }
        }
    }

    /// The notes a copy of the value standing here would carry, the value itself not made:
    /// for a place whose value is already a copy of a shared projection made elsewhere (a
    /// join keeps one of many equal contributions).
    pub(crate) fn into_copy_notes(self) -> Notes {
        let mut out = Notes::default();
        for kind in self.here {
            match kind.into_shared() {
                Ok(shared) => {
                    let notes = Arc::try_unwrap(shared)
                        .map_or_else(|s| s.notes.clone(), |s| s.notes)
                        .into_copy_notes();
                    out.here.extend(notes.here);
                    out.children.extend(notes.children);
                }
                Err(other) => out.here.push(other),
            }
        }
        out.children.extend(
            self.children
                .into_iter()
                .map(|(token, child)| (token, child.into_copy_notes())),
        );
        out
    }

    /// [`Notes::materialize`] of this node alone: stand-ins below it stay.
    fn resolve_here(self, value: &mut Value) -> Notes {
        let mut out = Notes::default();
        for kind in self.here {
            match kind.into_shared() {
                Ok(shared) => {
                    let Shared {
                        value: v, notes, ..
                    } = Arc::try_unwrap(shared).unwrap_or_else(|s| Shared {
                        value: s.value.clone(),
                        notes: s.notes.clone(),
                        origin: String::new(),
                    });
                    *value = v;
                    // The shared projection may itself be a stand-in (a `$ref` to a `$ref`).
                    let notes = notes.resolve_here(value);
                    out.here.extend(notes.here);
                    out.children.extend(notes.children);
                }
                Err(other) => out.here.push(other),
            }
        }
        out.children.extend(self.children);
        out
    }
}

/// Where stand-ins are replaced by copies (see [`Out::materialize`]).
#[derive(Clone, Copy)]
pub(crate) enum Scope<'p> {
    /// Everywhere in the subtree.
    All,
    /// Only at the places the pattern names (`*` is any token), nowhere else.
    Only(&'p [&'p str]),
    /// Everywhere, except a stand-in at a place the pattern names that the test keeps.
    Except(&'p [&'p str], &'p dyn Fn(&Shared) -> bool),
}

impl<'p> Scope<'p> {
    /// The scope below `token`, `None` where nothing below is resolved.
    fn along(self, token: &str) -> Option<Scope<'p>> {
        let step = |pattern: &'p [&'p str]| {
            pattern
                .split_first()
                .filter(|(first, _)| **first == "*" || **first == token)
                .map(|(_, rest)| rest)
        };
        match self {
            Scope::All => Some(Scope::All),
            Scope::Only(pattern) => step(pattern).map(Scope::Only),
            Scope::Except(pattern, keep) => Some(match step(pattern) {
                Some(rest) => Scope::Except(rest, keep),
                None => Scope::All,
            }),
        }
    }
}

impl Shared {
    /// The projection's value, through stand-ins for other shared projections at its root (a
    /// `$ref` to a `$ref`).
    pub(crate) fn value(&self) -> &Value {
        match self.notes.shared_here() {
            Some(inner) => inner.value(),
            None => &self.value,
        }
    }
}

fn push_token(pointer: &mut String, token: &str) {
    pointer.push('/');
    pointer.push_str(&crate::pointer::escape(token));
}

/// The child of `value` that a pointer token names.
fn child_mut<'v>(value: &'v mut Value, token: &str) -> Option<&'v mut Value> {
    match value {
        Value::Object(map) => map.get_mut(token),
        Value::Array(items) => token.parse::<usize>().ok().and_then(|i| items.get_mut(i)),
        _ => None,
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

    /// A stand-in for `shared` (see [`RareNote::Shared`]): its value is `null` until
    /// [`Out::materialize_root`] or [`Notes::materialize`] puts the shared one in its place.
    pub(crate) fn shared(shared: Arc<Shared>, exact: bool) -> Out {
        let mut out = Out::new(Value::Null, exact);
        out.notes
            .here
            .push(NoteKind::Rare(Box::new(RareNote::Shared(shared))));
        out
    }

    /// Makes the root of this subtree a value of its own when it is a stand-in, for a rule
    /// that reads or changes it.
    pub(crate) fn materialize_root(&mut self) {
        if self.notes.shared_here().is_some() {
            let notes = std::mem::take(&mut self.notes);
            self.notes = notes.resolve_here(&mut self.value);
        }
    }

    /// Makes the parts of this subtree that `scope` names values of their own, for a rule that
    /// reads or changes them (flat mode's merges read deep into what they merge).
    pub(crate) fn materialize(&mut self, scope: Scope<'_>) {
        self.notes.resolve_in_place(&mut self.value, scope);
    }

    /// The shared projection this subtree stands in for, if it is a stand-in.
    pub(crate) fn stand_in(&self) -> Option<&Arc<Shared>> {
        self.notes.shared_here()
    }

    pub(crate) fn link(&mut self, originals: Vec<String>) {
        self.notes.here.push(NoteKind::Link(originals.into()));
    }

    /// [`Out::link`] to one original, the link every emitted node gets.
    pub(crate) fn link_one(&mut self, original: &str) {
        self.notes
            .here
            .push(NoteKind::Link(Arc::from([original.to_owned()])));
    }

    pub(crate) fn trace(&mut self, rule: Rule, from: Vec<String>, detail: Detail) {
        self.notes
            .here
            .push(NoteKind::Rare(Box::new(RareNote::Trace(TraceNote {
                rule,
                from,
                detail,
            }))));
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
        self.notes.root_originals_into(&mut out);
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

    fn linked(original: &str) -> Notes {
        let mut o = Out::new(json!({}), true);
        o.link(vec![original.into()]);
        o.notes
    }

    /// Notes as a merge finds them: a `properties` child per adopted property (some named
    /// twice, some with notes deeper down), notes on `properties` itself, and other keys.
    fn merged_notes() -> Notes {
        let mut parent = Notes::default();
        parent.adopt(&["properties", "x"], linked("/a/x"));
        parent.adopt(&["properties", "y", "items"], linked("/a/y/items"));
        parent.adopt(&["items"], linked("/a/items"));
        parent.adopt(&["properties", "x", "anyOf", "0"], linked("/b/x/0"));
        parent.adopt(&["properties"], linked("/a/properties"));
        parent.adopt(&["properties", "x"], linked("/b/x"));
        parent.adopt(&["properties", "z"], Notes::default());
        parent.adopt(&["properties", "y"], linked("/b/y"));
        parent
    }

    #[test]
    fn taking_each_property_at_once_gives_what_taking_them_one_by_one_gives() {
        let mut one_by_one = merged_notes();
        let mut at_once = merged_notes();
        let mut each = at_once.take_each_under("properties");
        for name in ["x", "y", "z", "w"] {
            let taken = one_by_one.take_under(&["properties", name]);
            let got = each.remove(name).unwrap_or_default();
            assert_eq!(format!("{got:?}"), format!("{taken:?}"), "{name}");
        }
        assert!(each.values().all(Notes::is_empty), "{each:?}");
        assert_eq!(format!("{at_once:?}"), format!("{one_by_one:?}"));
        assert_eq!(paths(&at_once), vec![vec!["items"], vec!["properties"]]);
    }

    #[test]
    fn taking_the_children_at_once_gives_what_taking_them_one_by_one_gives() {
        let mut one_by_one = merged_notes().take_under(&["properties"]);
        let mut each = merged_notes().take_under(&["properties"]).take_children();
        for name in ["x", "y", "z"] {
            let taken = one_by_one.take_under(&[name]);
            assert_eq!(
                format!("{:?}", each.remove(name).unwrap_or_default()),
                format!("{taken:?}"),
                "{name}"
            );
            assert!(!paths(&taken).is_empty() || name == "z");
        }
        assert!(each.is_empty(), "{each:?}");
    }
}
