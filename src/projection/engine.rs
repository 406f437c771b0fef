//! The walk: one call per original schema node, bottom-up, sharing work for repeated `$ref`
//! targets and spending a node budget as it emits.

use std::collections::HashMap;

use serde_json::{Map, Value, json};

use super::budget::{Estimate, ProjectionError, default_node_budget};
use super::out::{NoteKind, Out};
use super::trace::{Detail, Links, Rule, TraceEntry};
use super::{Mode, Options, Projection, Recursion, allof, guards, unions};
use crate::pointer;
use crate::schema::keywords::{self, IDENTIFIERS, Keyword, Position, Slot};
use crate::schema::resolve::RefIndex;
use crate::schema::{Draft, count_nodes};

/// Stack growth for deep documents: recursion depth is bounded by `max_depth`, and this keeps
/// that bound safe on small thread stacks (test threads get 2 MiB).
const RED_ZONE: usize = 128 * 1024;
const STACK_CHUNK: usize = 4 * 1024 * 1024;

struct Frame {
    reference: String,
    target: String,
}

struct Memo {
    out: Out,
    size: usize,
    height: usize,
}

pub(crate) struct Engine<'a> {
    root: &'a Value,
    pub(crate) opts: &'a Options,
    pub(crate) draft: Draft,
    index: RefIndex,
    stack: Vec<Frame>,
    emitted: usize,
    budget: usize,
    deepest: usize,
    memo: HashMap<String, Memo>,
    /// Lowest stack index a cycle check looked at while expanding the current target; a result
    /// that looked below its own frame depends on the path and must not be shared.
    lowest_cycle_hit: usize,
    kept: Vec<(String, String)>,
}

impl<'a> Engine<'a> {
    pub(crate) fn new(root: &'a Value, opts: &'a Options) -> Engine<'a> {
        let draft = opts.draft.unwrap_or_else(|| Draft::detect(root));
        Engine {
            root,
            opts,
            draft,
            index: RefIndex::build(root, draft),
            stack: Vec::new(),
            emitted: 0,
            budget: opts
                .node_budget
                .unwrap_or_else(|| default_node_budget(count_nodes(root))),
            deepest: 0,
            memo: HashMap::new(),
            lowest_cycle_hit: usize::MAX,
            kept: Vec::new(),
        }
    }

    pub(crate) fn run(mut self) -> Result<Projection, ProjectionError> {
        self.refuse_bombs()?;
        let mut out = self.node(self.root, "", 0)?;
        self.emit_kept_definitions(&mut out)?;
        keep_root_dialect(self.root, &mut out.value);
        let (trace, links) = finish(&out);
        Ok(Projection {
            schema: out.value,
            mode: self.opts.mode,
            draft: self.draft,
            trace,
            links,
        })
    }

    /// Fails fast when inlining would clearly exceed the budget, before building anything.
    fn refuse_bombs(&self) -> Result<(), ProjectionError> {
        let unroll = match self.opts.recursion {
            Recursion::Unroll(levels) => Some(levels),
            Recursion::Keep => None,
        };
        let mut estimate = Estimate::new(self.root, &self.index, unroll, self.budget);
        if estimate.size(self.root, "", 0) <= self.budget as u64 {
            return Ok(());
        }
        Err(ProjectionError::Budget {
            limit: self.budget,
            at: String::new(),
            chain: estimate.heaviest_chain(),
        })
    }

    pub(crate) fn flat(&self) -> bool {
        self.opts.mode == Mode::Flat
    }

    pub(crate) fn node(
        &mut self,
        schema: &Value,
        orig: &str,
        depth: usize,
    ) -> Result<Out, ProjectionError> {
        stacker::maybe_grow(RED_ZONE, STACK_CHUNK, || {
            self.node_unguarded(schema, orig, depth)
        })
    }

    fn node_unguarded(
        &mut self,
        schema: &Value,
        orig: &str,
        depth: usize,
    ) -> Result<Out, ProjectionError> {
        if depth > self.opts.max_depth {
            return Err(ProjectionError::TooDeep {
                limit: self.opts.max_depth,
                at: orig.to_owned(),
                chain: self.chain(),
            });
        }
        self.deepest = self.deepest.max(depth);
        self.spend(1, orig)?;
        let mut out = match schema {
            Value::Object(map) if map.get("$ref").is_some_and(Value::is_string) => {
                self.reference(map, orig, depth)?
            }
            Value::Object(map) => self.object(map, orig, depth)?,
            other => Out::new(other.clone(), true),
        };
        out.link(vec![orig.to_owned()]);
        Ok(out)
    }

    fn spend(&mut self, nodes: usize, orig: &str) -> Result<(), ProjectionError> {
        self.emitted += nodes;
        if self.emitted > self.budget {
            return Err(ProjectionError::Budget {
                limit: self.budget,
                at: orig.to_owned(),
                chain: self.chain(),
            });
        }
        Ok(())
    }

    fn chain(&self) -> Vec<String> {
        self.stack.iter().map(|f| f.reference.clone()).collect()
    }

    /// A schema object without `$ref`: every keyword projected in the original's key order.
    pub(crate) fn object(
        &mut self,
        map: &Map<String, Value>,
        orig: &str,
        depth: usize,
    ) -> Result<Out, ProjectionError> {
        let mut node = guards::NodeBuilder::default();
        for (key, value) in map {
            match key.as_str() {
                // The dialect stays where the user wrote it, at the root only.
                "$schema" if orig.is_empty() => node.push_plain(key, value.clone()),
                "$schema" | "$ref" => continue,
                k if IDENTIFIERS.contains(&k) => continue,
                "discriminator" => {
                    let property_name = value
                        .get("propertyName")
                        .and_then(Value::as_str)
                        .map(str::to_owned);
                    node.trace(
                        Rule::DiscriminatorStrip,
                        pointer::push(orig, "discriminator"),
                        Detail::DiscriminatorStripped { property_name },
                    );
                }
                "$dynamicRef" | "$recursiveRef" => node.drop_dynamic_ref(key, orig),
                _ => match keywords::lookup(key) {
                    Some(kw) if kw.position == Position::Definitions => {}
                    Some(kw) => {
                        let child = self.keyword_value(kw, value, orig, depth)?;
                        node.push_subschemas(kw, child);
                    }
                    None => node.push_plain(key, value.clone()),
                },
            }
        }
        let mut out = node.finish(orig);
        if self.flat() {
            out = allof::merge_all_of(self, out, orig);
            out = unions::flatten(self, out, orig, map);
        }
        Ok(out)
    }

    /// The projected value of one subschema keyword, notes relative to that value.
    fn keyword_value(
        &mut self,
        kw: &'static Keyword,
        value: &Value,
        orig: &str,
        depth: usize,
    ) -> Result<Out, ProjectionError> {
        let here = pointer::push(orig, kw.name);
        let is_schema = |v: &Value| v.is_object() || v.is_boolean();
        match (kw.slot, value) {
            (Slot::Single | Slot::SingleOrArray, v) if is_schema(v) => {
                self.node(v, &here, depth + 1)
            }
            (Slot::Array | Slot::SingleOrArray, Value::Array(items)) => {
                let mut out = Out::new(Value::Null, true);
                let mut values = Vec::with_capacity(items.len());
                for (i, item) in items.iter().enumerate() {
                    if is_schema(item) {
                        let child =
                            self.node(item, &pointer::push(&here, &i.to_string()), depth + 1)?;
                        out.exact &= child.exact;
                        out.adopt(&[&i.to_string()], child.notes);
                        values.push(child.value);
                    } else {
                        values.push(item.clone());
                    }
                }
                out.value = Value::Array(values);
                Ok(out)
            }
            (Slot::Map | Slot::MapOfSchemaOrNames, Value::Object(entries)) => {
                let mut out = Out::new(Value::Null, true);
                let mut values = Map::new();
                for (k, v) in entries {
                    if is_schema(v) {
                        let child = self.node(v, &pointer::push(&here, k), depth + 1)?;
                        out.exact &= child.exact;
                        out.adopt(&[k], child.notes);
                        values.insert(k.clone(), child.value);
                    } else {
                        values.insert(k.clone(), v.clone());
                    }
                }
                out.value = Value::Object(values);
                Ok(out)
            }
            (_, other) => Ok(Out::new(other.clone(), true)),
        }
    }

    /// A schema object with `$ref` (rules 1–3).
    fn reference(
        &mut self,
        map: &Map<String, Value>,
        orig: &str,
        depth: usize,
    ) -> Result<Out, ProjectionError> {
        let reference = map["$ref"].as_str().unwrap_or_default().to_owned();
        let base = self.index.base_at(orig).to_owned();
        let target = match self.index.resolve(self.root, &base, &reference) {
            Ok(t) => t,
            Err(why) => {
                let mut out = Out::new(json!({}), false);
                out.trace(
                    Rule::Unresolvable,
                    vec![orig.to_owned()],
                    Detail::Unresolvable {
                        reference: reference.clone(),
                        reason: why.to_string(),
                    },
                );
                return self.with_siblings(out, map, orig, depth, None);
            }
        };
        let on_stack = self.stack.iter().position(|f| f.target == target);
        let target_out = match on_stack {
            Some(k) => {
                self.lowest_cycle_hit = self.lowest_cycle_hit.min(k);
                self.recursive_reference(&reference, &target, orig, depth)?
            }
            None => self.expand(&reference, &target, depth)?,
        };
        self.with_siblings(target_out, map, orig, depth, Some(&target))
    }

    fn recursive_reference(
        &mut self,
        reference: &str,
        target: &str,
        orig: &str,
        depth: usize,
    ) -> Result<Out, ProjectionError> {
        let from = vec![orig.to_owned(), target.to_owned()];
        match self.opts.recursion {
            Recursion::Keep => {
                let (ref_text, definition) = self.keep(target);
                let mut out = Out::new(json!({ "$ref": ref_text }), false);
                out.trace(
                    Rule::Recursion,
                    from,
                    Detail::RecursionKept {
                        reference: reference.to_owned(),
                        definition,
                    },
                );
                Ok(out)
            }
            Recursion::Unroll(levels) => {
                let expanded = self.stack.iter().filter(|f| f.target == target).count();
                if expanded < levels {
                    return self.expand(reference, target, depth);
                }
                let note = format!("Recursive {reference}: cut after {levels} level(s).");
                let mut out = Out::new(json!({ "description": note }), false);
                out.trace(
                    Rule::Recursion,
                    from,
                    Detail::RecursionCut {
                        reference: reference.to_owned(),
                        target: target.to_owned(),
                        depth: levels,
                    },
                );
                Ok(out)
            }
        }
    }

    /// Projects a `$ref` target, reusing an earlier projection of it when that did not depend
    /// on the refs being expanded around it.
    fn expand(
        &mut self,
        reference: &str,
        target: &str,
        depth: usize,
    ) -> Result<Out, ProjectionError> {
        if let Some(m) = self.memo.get(target) {
            let (size, height) = (m.size, m.height);
            if depth + height > self.opts.max_depth {
                return Err(ProjectionError::TooDeep {
                    limit: self.opts.max_depth,
                    at: target.to_owned(),
                    chain: self.chain(),
                });
            }
            self.spend(size, target)?;
            return Ok(self.memo[target].out.clone());
        }
        let schema = self
            .root
            .pointer(target)
            .expect("resolve returns existing pointers");
        let frame = self.stack.len();
        self.stack.push(Frame {
            reference: reference.to_owned(),
            target: target.to_owned(),
        });
        let saved_hit = std::mem::replace(&mut self.lowest_cycle_hit, usize::MAX);
        let saved_deepest = std::mem::replace(&mut self.deepest, depth);
        let before = self.emitted;
        let result = self.node(schema, target, depth + 1);
        self.stack.pop();
        let hit = self.lowest_cycle_hit;
        let height = self.deepest - depth;
        self.deepest = self.deepest.max(saved_deepest);
        self.lowest_cycle_hit = saved_hit.min(if hit < frame { hit } else { usize::MAX });
        let out = result?;
        if hit >= frame {
            self.memo.insert(
                target.to_owned(),
                Memo {
                    out: out.clone(),
                    size: self.emitted - before,
                    height,
                },
            );
        }
        Ok(out)
    }

    /// Applies the siblings of a `$ref` to its projected target (rule 1).
    fn with_siblings(
        &mut self,
        mut target: Out,
        map: &Map<String, Value>,
        orig: &str,
        depth: usize,
        resolved: Option<&str>,
    ) -> Result<Out, ProjectionError> {
        let siblings: Map<String, Value> = map
            .iter()
            .filter(|(k, _)| {
                !matches!(k.as_str(), "$ref" | "$schema" | "$defs" | "definitions")
                    && !IDENTIFIERS.contains(&k.as_str())
            })
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let (annotations, constraints): (Vec<_>, Vec<_>) = siblings
            .keys()
            .cloned()
            .partition(|k| keywords::is_annotation(k));
        let mut how = String::new();
        if !annotations.is_empty() {
            override_annotations(&mut target.value, &siblings, &annotations);
            how = format!("; its {} override the target's", annotations.join(", "));
        }
        if !constraints.is_empty() {
            if self.draft.ref_overrides_siblings() {
                how.push_str(&format!(
                    "; {} beside it ignored, as draft-07 says",
                    constraints.join(", ")
                ));
            } else {
                let only: Map<String, Value> = constraints
                    .iter()
                    .map(|k| (k.clone(), siblings[k].clone()))
                    .collect();
                let rest = self.object(&only, orig, depth)?;
                let (merged, wrapped) = allof::conjoin_or_wrap(target, rest);
                target = merged;
                how.push_str(if wrapped {
                    "; its other siblings clash with the target, so both are kept under allOf"
                } else {
                    "; its other siblings are merged into it"
                });
            }
        }
        if let Some(t) = resolved {
            target.trace(
                Rule::RefInline,
                vec![orig.to_owned(), t.to_owned()],
                Detail::RefInlined {
                    reference: map["$ref"].as_str().unwrap_or_default().to_owned(),
                    target: t.to_owned(),
                    siblings: how,
                },
            );
        }
        Ok(target)
    }

    /// Registers a recursive target for `$defs` (rule 2, keep); returns the `$ref` to use.
    fn keep(&mut self, target: &str) -> (String, String) {
        if target.is_empty() {
            return ("#".to_owned(), "#".to_owned());
        }
        if let Some((_, name)) = self.kept.iter().find(|(t, _)| t == target) {
            return (format!("#/$defs/{}", pointer::escape(name)), name.clone());
        }
        let stem = pointer::tokens(target)
            .and_then(|t| t.last().cloned())
            .unwrap_or_else(|| "def".to_owned());
        let mut name = stem.clone();
        let mut n = 2;
        while self.kept.iter().any(|(_, k)| *k == name) {
            name = format!("{stem}_{n}");
            n += 1;
        }
        self.kept.push((target.to_owned(), name.clone()));
        (format!("#/$defs/{}", pointer::escape(&name)), name)
    }

    fn emit_kept_definitions(&mut self, out: &mut Out) -> Result<(), ProjectionError> {
        let mut defs = Map::new();
        let mut i = 0;
        while i < self.kept.len() {
            let (target, name) = self.kept[i].clone();
            let schema = self
                .root
                .pointer(&target)
                .expect("kept targets were resolved");
            self.stack.push(Frame {
                reference: format!("#{target}"),
                target: target.clone(),
            });
            let def = self.node(schema, &target, 1);
            self.stack.pop();
            let def = def?;
            out.adopt(&["$defs", &name], def.notes);
            defs.insert(name, def.value);
            i += 1;
        }
        if !defs.is_empty()
            && let Value::Object(root) = &mut out.value
        {
            root.insert("$defs".to_owned(), Value::Object(defs));
        }
        Ok(())
    }
}

fn override_annotations(target: &mut Value, siblings: &Map<String, Value>, keys: &[String]) {
    if *target == Value::Bool(true) {
        *target = Value::Object(Map::new());
    }
    if let Value::Object(t) = target {
        for k in keys {
            t.insert(k.clone(), siblings[k].clone());
        }
    }
}

/// The original's `$schema` stays at the projection's root, first, as the user wrote it.
fn keep_root_dialect(root: &Value, out: &mut Value) {
    let (Some(dialect), Value::Object(map)) = (root.get("$schema"), &mut *out) else {
        return;
    };
    if map.contains_key("$schema") {
        return;
    }
    let mut with = Map::new();
    with.insert("$schema".to_owned(), dialect.clone());
    with.extend(std::mem::take(map));
    *map = with;
}

/// Turns relative notes into the public trace (document order) and links.
fn finish(out: &Out) -> (Vec<TraceEntry>, Links) {
    let mut links = Links::default();
    let mut trace = Vec::new();
    out.notes
        .walk(&mut String::new(), &mut |at, kind| match kind {
            NoteKind::Link(origs) => links.insert(at.to_owned(), origs.clone()),
            NoteKind::Trace { rule, from, detail } => trace.push(TraceEntry {
                rule: *rule,
                at: at.to_owned(),
                from: from.clone(),
                detail: detail.clone(),
            }),
        });
    links.seal();
    trace.sort_by_cached_key(|e| (document_position(&out.value, &e.at), e.rule));
    (trace, links)
}

/// The child indices leading to `pointer`; sorting by them is a pre-order walk of the document.
fn document_position(root: &Value, pointer: &str) -> Vec<usize> {
    let mut position = Vec::new();
    let mut node = root;
    for token in pointer::tokens(pointer).unwrap_or_default() {
        let next = match node {
            Value::Object(m) => m.iter().position(|(k, _)| *k == token).map(|i| {
                position.push(i);
                &m[token.as_str()]
            }),
            Value::Array(a) => token.parse::<usize>().ok().and_then(|i| {
                position.push(i);
                a.get(i)
            }),
            _ => None,
        };
        match next {
            Some(n) => node = n,
            None => break,
        }
    }
    position
}
