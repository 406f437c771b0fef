//! Assembly of one projected schema object, with the soundness guards: keywords whose meaning
//! would flip if a subschema under them were loosened are dropped instead (dropping a keyword
//! only ever accepts more).

use serde_json::{Map, Value};

use super::out::Out;
use super::trace::{Detail, Rule};
use crate::pointer;
use crate::schema::Keyword;

#[derive(Default)]
pub(crate) struct NodeBuilder {
    entries: Vec<(String, Out)>,
    traces: Vec<(Rule, String, Detail)>,
    /// Every in-place applicator (allOf, anyOf, not, if, $ref …) kept its exact meaning.
    in_place_exact: bool,
    inexact: bool,
    started: bool,
}

impl NodeBuilder {
    fn start(&mut self) {
        if !self.started {
            self.started = true;
            self.in_place_exact = true;
        }
    }

    pub(crate) fn trace(&mut self, rule: Rule, from: String, detail: Detail) {
        self.start();
        self.traces.push((rule, from, detail));
    }

    pub(crate) fn push_plain(&mut self, key: &str, value: Value) {
        self.start();
        self.entries.push((key.to_owned(), Out::new(value, true)));
    }

    pub(crate) fn push_subschemas(&mut self, kw: &Keyword, child: Out) {
        self.start();
        if !child.exact {
            self.inexact = true;
            if kw.in_place {
                self.in_place_exact = false;
            }
        }
        self.entries.push((kw.name.to_owned(), child));
    }

    /// A union keyword left out because an alternative accepts anything (a recursion cut):
    /// without it the node accepts the same, but the projection is no longer exact.
    pub(crate) fn drop_vacuous(&mut self, kw: &Keyword) {
        self.start();
        self.inexact = true;
        if kw.in_place {
            self.in_place_exact = false;
        }
    }

    /// `$dynamicRef` resolves through the dynamic scope, which inlining changes; dropping it
    /// accepts more, so it is sound (and reported).
    pub(crate) fn drop_dynamic_ref(&mut self, key: &str, orig: &str) {
        self.start();
        self.inexact = true;
        self.in_place_exact = false;
        self.traces.push((
            Rule::SoundnessGuard,
            pointer::push(orig, key),
            Detail::KeywordDropped {
                keyword: key.to_owned(),
                reason: "its target depends on the dynamic scope, which inlining changes".into(),
            },
        ));
    }

    fn position(&self, key: &str) -> Option<usize> {
        self.entries.iter().position(|(k, _)| k == key)
    }

    fn remove(&mut self, key: &str) -> Option<Out> {
        self.position(key).map(|i| self.entries.remove(i).1)
    }

    fn guard_drop(&mut self, orig: &str, key: &str, reason: &str) {
        if self.remove(key).is_some() {
            self.inexact = true;
            self.traces.push((
                Rule::SoundnessGuard,
                pointer::push(orig, key),
                Detail::KeywordDropped {
                    keyword: key.to_owned(),
                    reason: reason.to_owned(),
                },
            ));
        }
    }

    /// Rule 4: `oneOf` becomes `anyOf`; beside an existing `anyOf` it goes under `allOf`.
    fn one_of_to_any_of(&mut self, orig: &str) {
        let Some(i) = self.position("oneOf") else {
            return;
        };
        let alternatives = self.entries[i].1.value.as_array().map_or(0, Vec::len);
        let combined = self.position("anyOf").is_some();
        self.in_place_exact = false;
        self.inexact = true;
        if combined {
            let (_, one_of) = self.entries.remove(i);
            let mut wrapped = Out::new(Value::Null, false);
            wrapped.adopt(&["anyOf"], one_of.notes);
            let mut m = Map::new();
            m.insert("anyOf".to_owned(), one_of.value);
            wrapped.value = Value::Object(m);
            self.append_all_of(wrapped);
        } else {
            self.entries[i].0 = "anyOf".to_owned();
        }
        self.traces.push((
            Rule::OneofToAnyof,
            pointer::push(orig, "oneOf"),
            Detail::OneOfToAnyOf {
                alternatives,
                combined_with_any_of: combined,
            },
        ));
    }

    fn append_all_of(&mut self, part: Out) {
        let i = match self.position("allOf") {
            Some(i) => i,
            None => {
                self.entries
                    .push(("allOf".to_owned(), Out::new(Value::Array(Vec::new()), true)));
                self.entries.len() - 1
            }
        };
        let all_of = &mut self.entries[i].1;
        let Value::Array(items) = &mut all_of.value else {
            return;
        };
        let idx = items.len().to_string();
        items.push(part.value);
        all_of.adopt(&[&idx], part.notes);
    }

    fn exact_of(&self, key: &str) -> Option<bool> {
        self.position(key).map(|i| self.entries[i].1.exact)
    }

    fn apply_guards(&mut self, orig: &str) {
        if self.exact_of("not") == Some(false) {
            self.guard_drop(
                orig,
                "not",
                "its subschema was loosened, and a looser `not` would reject more",
            );
        }
        if self.exact_of("if") == Some(false) {
            let why = "the `if` subschema was loosened, which would change which branch applies";
            for k in ["if", "then", "else"] {
                self.guard_drop(orig, k, why);
            }
        }
        if self.exact_of("contains") == Some(false) {
            self.guard_drop(
                orig,
                "maxContains",
                "`contains` was loosened, so more items may match it than the maximum allows",
            );
        }
        if !self.in_place_exact {
            let why =
                "a subschema beside it was loosened and may now evaluate fewer properties or items";
            for k in ["unevaluatedProperties", "unevaluatedItems"] {
                self.guard_drop(orig, k, why);
            }
        }
    }

    pub(crate) fn finish(mut self, orig: &str) -> Out {
        self.start();
        self.one_of_to_any_of(orig);
        self.apply_guards(orig);
        let mut out = Out::new(Value::Null, !self.inexact);
        let mut map = Map::new();
        for (key, child) in self.entries {
            out.adopt(&[&key], child.notes);
            map.insert(key, child.value);
        }
        out.value = Value::Object(map);
        for (rule, from, detail) in self.traces {
            out.trace(rule, vec![from], detail);
        }
        out
    }
}
