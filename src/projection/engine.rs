//! The walk: one call per original schema node, bottom-up, sharing work for repeated `$ref`
//! targets and spending a node budget as it emits.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::budget::{self, Budgets, Plan, ProjectionError};
use super::out::{NoteKind, Notes, Out, RareNote, Scope, Shared};
use super::refgraph::{FastHash, RefGraph, StateKey, TargetId, Unrolling, is_union};
use super::trace::{Detail, Links, Rule, TraceEntry};
use super::written::{Written, WrittenSchema};
use super::{Linking, Mode, Options, Projection, allof, guards, unions};
use crate::pointer;
use crate::schema::keywords::{self, IDENTIFIERS, Keyword, Position, Slot};
use crate::schema::{Draft, count_nodes};

/// Stack growth for deep documents: recursion depth is bounded by `max_depth`, and this keeps
/// that bound safe on small thread stacks (test threads get 2 MiB).
const RED_ZONE: usize = 128 * 1024;
const STACK_CHUNK: usize = 4 * 1024 * 1024;

struct Frame {
    reference: String,
    target: TargetId,
    /// This expansion re-entered a target already open on the path.
    reentry: bool,
}

/// Schema nodes of one projection: emitted by the walk, and estimated before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Counted {
    pub(crate) emitted: u64,
    pub(crate) estimated: u64,
}

/// A union alternative the walk cuts, which cuts its union.
struct Cut {
    at: String,
    reference: String,
    target: TargetId,
}

/// A projection kept for the later expansions of its state, shared by all of them: each
/// place holds a stand-in. A rule that reads or changes an expansion makes the part it reads
/// a value of its own first ([`Out::materialize_root`], [`Out::materialize`]); flat mode's
/// merges read deep into what they merge, and its joins keep one copy of equal ones.
struct Memo {
    shared: Arc<Shared>,
    exact: bool,
    size: usize,
    height: usize,
    /// Expansions still to come.
    remaining: u32,
}

pub(crate) struct Engine<'a> {
    root: &'a Value,
    pub(crate) opts: &'a Options,
    pub(crate) draft: Draft,
    graph: RefGraph,
    stack: Vec<Frame>,
    /// Frames of `stack` that re-entered an open target: the path's recursion depth.
    reentries: usize,
    unrolling: Unrolling,
    emitted: usize,
    budgets: Budgets,
    deepest: usize,
    memo: HashMap<StateKey, Memo, FastHash>,
    /// How many times the walk will expand each state (see `Estimate::expansions`).
    expansions: HashMap<StateKey, u32, FastHash>,
    kept: Vec<(TargetId, String)>,
    kept_index: HashMap<TargetId, usize>,
    kept_names: HashSet<String>,
    linking: Linking,
    /// Each expansion gets a copy of its own instead of a stand-in (see `copying_reuses`).
    copies_reuses: bool,
    /// Why definitions referenced from several places are kept under `$defs` (see
    /// [`Engine::sharing`]); `None`: they are inlined.
    sharing: Option<String>,
    /// Flat mode: combinators open on the path whose members may be merged (see
    /// [`Engine::may_merge`]); no definition is kept beneath one.
    merging: usize,
    /// With sharing, how many `$ref`s of the document point at each target.
    references: HashMap<TargetId, usize>,
    /// The targets kept because they are shared (not for recursion).
    shared: HashSet<TargetId>,
}

impl<'a> Engine<'a> {
    pub(crate) fn new(root: &'a Value, opts: &'a Options) -> Engine<'a> {
        let draft = opts.draft.unwrap_or_else(|| Draft::detect(root));
        let input_nodes = count_nodes(root);
        Engine {
            root,
            opts,
            draft,
            graph: RefGraph::build(root, draft),
            stack: Vec::new(),
            reentries: 0,
            unrolling: Unrolling::Depth(0),
            emitted: 0,
            budgets: Budgets {
                nodes: opts
                    .node_budget
                    .unwrap_or_else(|| budget::default_node_budget(input_nodes)),
                unrolling: opts
                    .unroll_budget
                    .unwrap_or_else(|| budget::default_unroll_budget(input_nodes)),
                input: input_nodes,
            },
            deepest: 0,
            memo: HashMap::default(),
            expansions: HashMap::default(),
            kept: Vec::new(),
            kept_index: HashMap::new(),
            kept_names: HashSet::new(),
            linking: Linking::Build,
            copies_reuses: false,
            sharing: None,
            merging: 0,
            references: HashMap::new(),
            shared: HashSet::new(),
        }
    }

    /// Keeps every object definition that two or more `$ref`s of the document point at once
    /// under `$defs`, for a provider whose size limits the inlined copies cross (`over` says by
    /// how much, for the root's trace entry). A reference is kept only where its definition projects the same wherever it
    /// is met and inlining would read the same: not into recursion (a definition reaching a
    /// cycle projects by the path; kept recursion has its own `$defs`), not beneath what flat
    /// mode merges (see [`Self::may_merge`]) and not beside constraints (merged into the
    /// target).
    pub(crate) fn sharing(self, over: String) -> Engine<'a> {
        let mut references: HashMap<TargetId, usize> = HashMap::new();
        for site in &self.graph.sites {
            if let Ok(t) = site.target {
                *references.entry(t).or_default() += 1;
            }
        }
        Engine {
            sharing: Some(over),
            references,
            ..self
        }
    }

    /// Whether the `$ref` object `map`, into `target`, is kept (see [`Self::sharing`]).
    fn shares(&self, target: TargetId, map: &Map<String, Value>) -> bool {
        if self.sharing.is_none()
            || self.graph.pointer(target).is_empty()
            || self.graph.reaches_cycle(target)
            || !self.is_object_schema(target)
        {
            return false;
        }
        let referenced = self.references.get(&target).copied().unwrap_or(0);
        let constrained = map.keys().any(|k| {
            !matches!(k.as_str(), "$ref" | "$schema" | "$defs" | "definitions")
                && !IDENTIFIERS.contains(&k.as_str())
                && !keywords::is_annotation(k)
        });
        referenced >= 2 && self.merging == 0 && !constrained
    }

    /// Every expansion of a reused `$ref` target a copy of its own, as the walk made them
    /// before expansions were shared: what the shared walk is tested against.
    #[cfg(test)]
    pub(crate) fn copying_reuses(self) -> Engine<'a> {
        Engine {
            copies_reuses: true,
            ..self
        }
    }

    pub(crate) fn linking(self, linking: Linking) -> Engine<'a> {
        Engine { linking, ..self }
    }

    /// See [`super::reaches_recursion`].
    pub(crate) fn reaches_recursion(&self) -> bool {
        self.graph.has_cycles()
    }

    pub(crate) fn run(self) -> Result<Projection, ProjectionError> {
        self.run_counted().map(|(projection, _)| projection)
    }

    /// The projection, and the nodes the walk emitted and the estimate promised, which
    /// are equal (checked in debug builds and by the budget tests).
    pub(crate) fn run_counted(self) -> Result<(Projection, Counted), ProjectionError> {
        let linking = self.linking;
        let mode = self.opts.mode;
        let draft = self.draft;
        let cancel = self.opts.cancel.clone();
        let (mut out, counted) = self.walk()?;
        let notes = std::mem::take(&mut out.notes)
            .materialize(&mut out.value, &cancel)
            .map_err(|at| ProjectionError::Cancelled { at })?;
        let (trace, links) = finish(&out.value, notes, linking);
        let projection = Projection {
            schema: out.value,
            mode,
            draft,
            trace,
            links,
        };
        Ok((projection, counted))
    }

    /// The projection as `project` writes it, without links: each `$ref` target inlined at
    /// several places is held once, and written at each (see [`WrittenSchema`]).
    pub(crate) fn run_written(self) -> Result<Written, ProjectionError> {
        let (out, _) = self.linking(Linking::Skip).walk()?;
        let trace = trace_of_shared(&out.value, &out.notes);
        Ok(Written {
            schema: WrittenSchema::new(out.value, out.notes.keep_shared()),
            trace,
        })
    }

    /// The projected root, with its notes; in inline mode, reused expansions still stand in
    /// for their shared projections.
    fn walk(mut self) -> Result<(Out, Counted), ProjectionError> {
        if let Some(bad) = crate::schema::malformed::first_malformed(self.root) {
            return Err(ProjectionError::Malformed {
                at: bad.pointer.clone(),
                message: bad.to_string(),
            });
        }
        let plan = budget::plan(&self.graph, self.opts.recursion, self.budgets)?;
        self.unrolling = plan.unrolling;
        let mut estimate = budget::Estimate::new(&self.graph, plan.unrolling, self.budgets.nodes);
        estimate.total();
        self.expansions = estimate.expansions();
        self.open_root();
        let mut out = self.node(self.root, "", 0)?;
        // The root gains `$defs` and keeps its dialect in place.
        out.materialize_root();
        self.emit_kept_definitions(&mut out)?;
        let counted = Counted {
            emitted: self.emitted as u64,
            estimated: plan.nodes,
        };
        // Kept shared definitions are written once where the estimate counts every copy.
        debug_assert!(
            counted.emitted == counted.estimated
                || (self.sharing.is_some() && counted.emitted < counted.estimated),
            "the size estimate must agree with the walk"
        );
        // Turning the notes into the trace is the last long step: not begun for nobody.
        if self.opts.cancel.is_cancelled() {
            return Err(ProjectionError::Cancelled { at: String::new() });
        }
        note_lowered_depth(&plan, &mut out);
        if let Some(over) = self.sharing.take().filter(|_| !self.shared.is_empty()) {
            out.trace(
                Rule::RefInline,
                vec![String::new()],
                Detail::DefinitionsShared {
                    over,
                    definitions: self.shared.len(),
                },
            );
        }
        keep_root_dialect(self.root, &mut out.value);
        Ok((out, counted))
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
        if self.records_links() {
            out.link_one(orig);
        }
        Ok(out)
    }

    /// Whether emitted nodes get their link note. The links are made of them, and flat mode's
    /// merges read the originals linked at a subtree's root for their trace entries; inline
    /// mode without links reads them nowhere, and on a large tool they are most of the notes
    /// (a pointer per emitted node, copied with every reused `$ref` expansion).
    fn records_links(&self) -> bool {
        self.linking == Linking::Build || self.flat()
    }

    /// Spends `nodes` of the budget; also where the walk notices a cancel, since every
    /// emitted node and every reused expansion passes here.
    fn spend(&mut self, nodes: usize, orig: &str) -> Result<(), ProjectionError> {
        if self.opts.cancel.is_cancelled() {
            return Err(ProjectionError::Cancelled {
                at: orig.to_owned(),
            });
        }
        self.emitted += nodes;
        if self.emitted > self.budgets.nodes {
            return Err(ProjectionError::Budget {
                limit: self.budgets.nodes,
                at: orig.to_owned(),
                chain: self.chain(),
            });
        }
        Ok(())
    }

    fn chain(&self) -> Vec<String> {
        self.stack
            .iter()
            .filter(|f| !f.reference.is_empty())
            .map(|f| f.reference.clone())
            .collect()
    }

    /// The walk starts inside the root: a `$ref` back to it re-enters it. Its frame has no
    /// reference (none led there).
    fn open_root(&mut self) {
        if let Some(target) = self.graph.root_target() {
            self.stack.push(Frame {
                reference: String::new(),
                target,
                reentry: false,
            });
        }
    }

    /// A schema object without `$ref`: every keyword projected in the original's key order.
    pub(crate) fn object(
        &mut self,
        map: &Map<String, Value>,
        orig: &str,
        depth: usize,
    ) -> Result<Out, ProjectionError> {
        let mut node = guards::NodeBuilder::default();
        let mut cuts = Vec::new();
        for (key, value) in map {
            match key.as_str() {
                // The dialect stays where the user wrote it, at the root only (not in the
                // copies that `$ref: "#"` inlines).
                "$schema" if orig.is_empty() && depth == 0 => node.push_plain(key, value.clone()),
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
                    Some(kw) if is_union(kw.name) => {
                        match self.cut_alternative(kw.name, value, orig) {
                            Some(cut) => {
                                node.drop_vacuous(kw);
                                cuts.push(cut);
                            }
                            None => {
                                let child = self.members(kw, value, orig, depth)?;
                                node.push_subschemas(kw, child);
                            }
                        }
                    }
                    Some(kw) => {
                        let child = self.members(kw, value, orig, depth)?;
                        node.push_subschemas(kw, child);
                    }
                    None => node.push_plain(key, value.clone()),
                },
            }
        }
        let mut out = node.finish(orig);
        for cut in cuts {
            self.mark_cut(&mut out, cut);
        }
        if self.flat() {
            out = allof::merge_all_of(self, out, orig);
            out = unions::flatten(self, out, orig, map);
        }
        Ok(out)
    }

    /// An alternative of this union that is a `$ref` the walk would cut. With it the union
    /// accepts anything, so the whole union is cut instead: a half-unrolled union shows
    /// nothing the cut does not, and would only be flattened into an unconstrained property.
    fn cut_alternative(&self, keyword: &str, value: &Value, orig: &str) -> Option<Cut> {
        if self.unrolling.expands_reentry(self.reentries) || self.unrolling.keeps() {
            return None;
        }
        let here = pointer::push(orig, keyword);
        value.as_array()?.iter().enumerate().find_map(|(i, alt)| {
            let reference = alt.get("$ref")?.as_str()?;
            let at = pointer::push(&here, &i.to_string());
            let target = *self.graph.site_at(&at)?.target.as_ref().ok()?;
            self.stack.iter().any(|f| f.target == target).then(|| Cut {
                at,
                reference: reference.to_owned(),
                target,
            })
        })
    }

    /// The union's node says where and why it was cut, after its own description.
    fn mark_cut(&self, out: &mut Out, cut: Cut) {
        let Unrolling::Depth(limit) = self.unrolling else {
            return;
        };
        let target = self.graph.pointer(cut.target).to_owned();
        let note = format!("Recursive {}: cut after {limit} level(s).", cut.reference);
        append_description(&mut out.value, &note);
        out.trace(
            Rule::Recursion,
            vec![cut.at, target.clone()],
            Detail::RecursionCut {
                reference: cut.reference,
                target,
                depth: limit,
            },
        );
    }

    /// [`Self::keyword_value`], counting a combinator whose members flat mode may merge as
    /// open while its members are projected.
    fn members(
        &mut self,
        kw: &'static Keyword,
        value: &Value,
        orig: &str,
        depth: usize,
    ) -> Result<Out, ProjectionError> {
        let merging = usize::from(self.may_merge(kw.name, value));
        self.merging += merging;
        let child = self.keyword_value(kw, value, orig, depth);
        self.merging -= merging;
        child
    }

    /// Whether flat mode may read into the members of `keyword` to merge or join them (a
    /// union, an `allOf`): any with two members that are not `{"type": "null"}`. A member kept
    /// as a reference would hide its properties, tags and bounds from that.
    fn may_merge(&self, keyword: &str, value: &Value) -> bool {
        if self.sharing.is_none() || !self.flat() {
            return false;
        }
        let is_null = |m: &&Value| m.get("type").and_then(Value::as_str) == Some("null");
        matches!(keyword, "anyOf" | "oneOf" | "allOf")
            && value
                .as_array()
                .is_some_and(|members| members.iter().filter(|m| !is_null(m)).count() > 1)
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
        // The graph holds every `$ref` the walk can meet (it visits the same bodies).
        let site = self.graph.site_at(orig).map(|s| s.target.as_ref());
        debug_assert!(site.is_some(), "$ref at {orig} missing from the graph");
        let target = match site {
            Some(Ok(t)) => Ok(*t),
            Some(Err(why)) => Err(why.to_string()),
            None => Err("not reached by the reference graph".to_owned()),
        };
        let target = match target {
            Ok(t) => t,
            Err(why) => {
                let mut out = Out::new(json!({}), false);
                out.trace(
                    Rule::Unresolvable,
                    vec![orig.to_owned()],
                    Detail::Unresolvable {
                        reference: reference.clone(),
                        reason: why,
                    },
                );
                return self.with_siblings(out, map, orig, depth, None);
            }
        };
        if self.stack.iter().any(|f| f.target == target) || self.refers_into_cycle(target) {
            let target_out = self.recursive_reference(&reference, target, orig, depth)?;
            let target = self.graph.pointer(target).to_owned();
            return self.with_siblings(target_out, map, orig, depth, Some(&target));
        }
        if self.shares(target, map) {
            let kept = self.shared_reference(&reference, target, orig);
            return self.with_siblings(kept, map, orig, depth, None);
        }
        let target_out = self.expand(&reference, target, false, depth)?;
        let target = self.graph.pointer(target).to_owned();
        self.with_siblings(target_out, map, orig, depth, Some(&target))
    }

    /// Whether `target` is an object schema: the definitions that hold what the limits count.
    /// A scalar one stays inlined, because flat mode reads a union's tags and joins its
    /// scalar properties through their values, which a reference would hide.
    fn is_object_schema(&self, target: TargetId) -> bool {
        let schema = self.root.pointer(self.graph.pointer(target));
        schema.and_then(Value::as_object).is_some_and(|m| {
            m.contains_key("properties") || m.get("type").and_then(Value::as_str) == Some("object")
        })
    }

    /// A `$ref` kept as a reference to the one `$defs` entry of its shared target.
    fn shared_reference(&mut self, reference: &str, target: TargetId, orig: &str) -> Out {
        let from = vec![orig.to_owned(), self.graph.pointer(target).to_owned()];
        let (ref_text, definition) = self.keep(target);
        self.shared.insert(target);
        let mut out = Out::new(json!({ "$ref": ref_text }), false);
        out.trace(
            Rule::RefInline,
            from,
            Detail::RefShared {
                reference: reference.to_owned(),
                definition,
            },
        );
        out
    }

    /// With shared recursion, a `$ref` into a cycle member is kept as a reference wherever it
    /// is met, not only where it re-enters (see [`Unrolling::Shared`]).
    fn refers_into_cycle(&self, target: TargetId) -> bool {
        self.unrolling == Unrolling::Shared && self.graph.on_cycle(target)
    }

    /// A `$ref` back into a target open on the path: kept, expanded once more, or cut, by
    /// the path's recursion depth (rule 2).
    fn recursive_reference(
        &mut self,
        reference: &str,
        target: TargetId,
        orig: &str,
        depth: usize,
    ) -> Result<Out, ProjectionError> {
        let from = vec![orig.to_owned(), self.graph.pointer(target).to_owned()];
        match self.unrolling {
            Unrolling::Keep | Unrolling::Shared => {
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
            Unrolling::Depth(limit) => {
                if self.unrolling.expands_reentry(self.reentries) {
                    return self.expand(reference, target, true, depth);
                }
                let note = format!("Recursive {reference}: cut after {limit} level(s).");
                let mut out = Out::new(json!({ "description": note }), false);
                out.trace(
                    Rule::Recursion,
                    from,
                    Detail::RecursionCut {
                        reference: reference.to_owned(),
                        target: self.graph.pointer(target).to_owned(),
                        depth: limit,
                    },
                );
                Ok(out)
            }
        }
    }

    /// Projects a `$ref` target, reusing an earlier projection of the same state (see
    /// `refgraph`): equal states project to equal results wherever they occur.
    fn expand(
        &mut self,
        reference: &str,
        target: TargetId,
        reentry: bool,
        depth: usize,
    ) -> Result<Out, ProjectionError> {
        let key = self.graph.state(
            target,
            self.stack.iter().map(|f| f.target),
            self.reentries + usize::from(reentry),
        );
        let pointer = self.graph.pointer(target).to_owned();
        if let Some(m) = self.memo.get(&key) {
            let (size, height) = (m.size, m.height);
            if depth + height > self.opts.max_depth {
                return Err(ProjectionError::TooDeep {
                    limit: self.opts.max_depth,
                    at: pointer,
                    chain: self.chain(),
                });
            }
            self.spend(size, &pointer)?;
            return Ok(self.reuse(&key));
        }
        let schema = self
            .root
            .pointer(&pointer)
            .expect("resolution returns existing pointers");
        self.stack.push(Frame {
            reference: reference.to_owned(),
            target,
            reentry,
        });
        self.reentries += usize::from(reentry);
        let saved_deepest = std::mem::replace(&mut self.deepest, depth);
        let before = self.emitted;
        let result = self.node(schema, &pointer, depth + 1);
        if let Some(frame) = self.stack.pop() {
            self.reentries -= usize::from(frame.reentry);
        }
        let height = self.deepest - depth;
        self.deepest = self.deepest.max(saved_deepest);
        let mut out = result?;
        let remaining = self.expansions.get(&key).map_or(0, |n| n.saturating_sub(1));
        if remaining > 0 {
            let shared = Arc::new(Shared {
                value: std::mem::take(&mut out.value),
                notes: std::mem::take(&mut out.notes),
                origin: pointer,
            });
            out = self.stand_in(Arc::clone(&shared), out.exact);
            self.memo.insert(
                key,
                Memo {
                    shared,
                    exact: out.exact,
                    size: self.emitted - before,
                    height,
                    remaining,
                },
            );
        }
        Ok(out)
    }

    /// A stand-in for a kept projection (the memo lets go of it at its last expansion).
    fn reuse(&mut self, key: &StateKey) -> Out {
        let memo = self.memo.get_mut(key).expect("looked up by the caller");
        memo.remaining -= 1;
        if memo.remaining > 0 {
            let (shared, exact) = (Arc::clone(&memo.shared), memo.exact);
            return self.stand_in(shared, exact);
        }
        let memo = self.memo.remove(key).expect("present");
        self.stand_in(memo.shared, memo.exact)
    }

    fn stand_in(&self, shared: Arc<Shared>, exact: bool) -> Out {
        let mut out = Out::shared(shared, exact);
        if self.copies_reuses {
            out.materialize(Scope::All);
        }
        out
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
        if !siblings.is_empty() {
            target.materialize_root();
        }
        let (annotations, constraints): (Vec<_>, Vec<_>) = siblings
            .keys()
            .cloned()
            .partition(|k| keywords::is_annotation(k));
        let mut how = String::new();
        if !annotations.is_empty() {
            let cut_note = cut_note(&target);
            override_annotations(&mut target.value, &siblings, &annotations);
            if let Some(note) = cut_note {
                append_description(&mut target.value, &note);
            }
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
                let mut rest = self.object(&only, orig, depth)?;
                // The conjunction reads both sides through and through.
                target.materialize(Scope::All);
                rest.materialize(Scope::All);
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
    fn keep(&mut self, target: TargetId) -> (String, String) {
        let target_pointer = self.graph.pointer(target);
        if target_pointer.is_empty() {
            return ("#".to_owned(), "#".to_owned());
        }
        if let Some(i) = self.kept_index.get(&target) {
            let name = &self.kept[*i].1;
            return (format!("#/$defs/{}", pointer::escape(name)), name.clone());
        }
        let stem = pointer::tokens(target_pointer)
            .and_then(|t| t.last().cloned())
            .unwrap_or_else(|| "def".to_owned());
        let mut name = stem.clone();
        let mut n = 2;
        while self.kept_names.contains(&name) {
            name = format!("{stem}_{n}");
            n += 1;
        }
        self.kept_index.insert(target, self.kept.len());
        self.kept_names.insert(name.clone());
        self.kept.push((target, name.clone()));
        (format!("#/$defs/{}", pointer::escape(&name)), name)
    }

    fn emit_kept_definitions(&mut self, out: &mut Out) -> Result<(), ProjectionError> {
        let mut defs = Map::new();
        let mut i = 0;
        while i < self.kept.len() {
            let (target, name) = self.kept[i].clone();
            let target_pointer = self.graph.pointer(target).to_owned();
            let schema = self
                .root
                .pointer(&target_pointer)
                .expect("kept targets were resolved");
            self.stack.push(Frame {
                reference: format!("#{target_pointer}"),
                target,
                reentry: false,
            });
            let def = self.node(schema, &target_pointer, 1);
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

/// When the default depth was lowered to fit the unrolling budget, the root says so.
fn note_lowered_depth(plan: &Plan, out: &mut Out) {
    if let Some(lowered) = plan.lowered {
        out.trace(
            Rule::Recursion,
            vec![String::new()],
            Detail::RecursionLowered {
                requested: lowered.requested,
                used: lowered.used,
                budget: lowered.budget,
                input: lowered.input,
            },
        );
    }
}

/// The note a recursion cut carries, when `out` is one.
fn cut_note(out: &Out) -> Option<String> {
    if !out.notes.has_root_trace(Rule::Recursion) {
        return None;
    }
    out.value
        .get("description")
        .and_then(Value::as_str)
        .map(str::to_owned)
}

/// Adds `note` after the schema's own description, so that a cut stays visible to a model
/// where the user's description is kept.
fn append_description(schema: &mut Value, note: &str) {
    if let Value::Object(map) = schema {
        let text = match map.get("description").and_then(Value::as_str) {
            Some(own) if own.contains(note) => return,
            Some(own) if !own.is_empty() => format!("{own} {note}"),
            _ => note.to_owned(),
        };
        map.insert("description".to_owned(), Value::String(text));
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
fn finish(value: &Value, notes: Notes, linking: Linking) -> (Vec<TraceEntry>, Links) {
    let mut links = Links::default();
    let mut trace = Vec::new();
    notes.walk_into(&mut String::new(), &mut |at, kind| match kind {
        NoteKind::Link(origs) if linking == Linking::Build => {
            links.insert(at.to_owned(), origs.to_vec())
        }
        NoteKind::Link(_) => {}
        NoteKind::Rare(rare) => match *rare {
            RareNote::Trace(t) => trace.push(TraceEntry {
                rule: t.rule,
                at: at.to_owned(),
                from: t.from,
                detail: t.detail,
            }),
            RareNote::Shared(_) => debug_assert!(false, "finish takes materialized notes"),
        },
    });
    links.seal();
    let mut places = KeyPlaces::default();
    trace.sort_by_cached_key(|e| (document_position(value, &e.at, &mut places), e.rule));
    (trace, links)
}

/// The trace of a projection whose reused expansions stand in for their shared projections:
/// the entries [`finish`] makes of its materialized form, in the same order (each entry's
/// place in the document found as the walk reaches it, not from the root for each).
fn trace_of_shared(value: &Value, notes: &Notes) -> Vec<TraceEntry> {
    let mut placed: Vec<(Vec<usize>, TraceEntry)> = Vec::new();
    notes.walk_traces(
        Some(value),
        &mut String::new(),
        &mut Vec::new(),
        &mut KeyPlaces::default(),
        &mut |at, position, t| {
            let entry = TraceEntry {
                rule: t.rule,
                at: at.to_owned(),
                from: t.from.clone(),
                detail: t.detail.clone(),
            };
            placed.push((position.to_vec(), entry));
        },
    );
    // Stable, as `finish`'s sort is.
    placed.sort_by(|(a, x), (b, y)| (a, x.rule).cmp(&(b, y.rule)));
    placed.into_iter().map(|(_, entry)| entry).collect()
}

/// The child indices leading to `pointer`; sorting by them is a pre-order walk of the document.
fn document_position<'v>(root: &'v Value, pointer: &str, places: &mut KeyPlaces<'v>) -> Vec<usize> {
    let mut position = Vec::new();
    let mut node = root;
    for token in pointer::tokens(pointer).unwrap_or_default() {
        match places.step(node, &token, &mut position) {
            Some(n) => node = n,
            None => break,
        }
    }
    position
}

/// Past this many keys an object's key places are looked up in a map made once, not found by
/// scanning its keys: a trace entry per property of a wide object scanned them all each time.
const WIDE_OBJECT: usize = 32;

/// The places of the keys of the wide objects a walk steps through (`serde_json`'s map does
/// not give a key's index), each object's made when first stepped into.
#[derive(Default)]
pub(crate) struct KeyPlaces<'v> {
    wide: HashMap<*const Map<String, Value>, HashMap<&'v str, usize>>,
}

impl<'v> KeyPlaces<'v> {
    /// The child `token` names, its index recorded in `position`.
    pub(crate) fn step(
        &mut self,
        node: &'v Value,
        token: &str,
        position: &mut Vec<usize>,
    ) -> Option<&'v Value> {
        match node {
            Value::Object(m) if m.len() > WIDE_OBJECT => {
                let places = self.wide.entry(std::ptr::from_ref(m)).or_insert_with(|| {
                    m.keys().enumerate().map(|(i, k)| (k.as_str(), i)).collect()
                });
                let i = *places.get(token)?;
                position.push(i);
                m.get(token)
            }
            Value::Object(m) => m.iter().position(|(k, _)| k == token).map(|i| {
                position.push(i);
                &m[token]
            }),
            Value::Array(a) => token.parse::<usize>().ok().and_then(|i| {
                position.push(i);
                a.get(i)
            }),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::projection::OpenBranches;

    /// A wide object's keys are found at the places a scan of its keys finds them (the trace's
    /// document order), through the map made once; a key it lacks stops the walk.
    #[test]
    fn key_places_in_a_wide_object_are_its_keys_order() {
        let props: Map<String, Value> = (0..(WIDE_OBJECT * 3))
            .rev()
            .map(|i| (format!("p{i}"), json!({"type": "integer", "enum": [i]})))
            .collect();
        let root = json!({"type": "object", "properties": props});
        let mut places = KeyPlaces::default();
        for (i, name) in root["properties"].as_object().unwrap().keys().enumerate() {
            let at = format!("/properties/{name}/enum/0");
            assert_eq!(document_position(&root, &at, &mut places), vec![1, i, 1, 0]);
        }
        assert_eq!(
            document_position(&root, "/properties/absent/type", &mut places),
            vec![1]
        );
        assert_eq!(places.wide.len(), 1, "one map, for `properties`");
    }

    /// Discriminated unions whose alternatives reuse `$ref` targets the way generated API
    /// descriptions do: the same target in every alternative, through an alias, beside an
    /// equal inline schema with another description, a tag and a bare union behind a `$ref`,
    /// an `additionalProperties` behind one, nested unions and recursion inside the targets;
    /// an `allOf` of reused parts; a 2020-12 `$ref` with constraints beside it.
    fn schemas() -> Vec<Value> {
        let defs = json!({
            "User": {"type": "object", "description": "a user",
                     "properties": {"login": {"type": "string"}, "id": {"type": "integer"}}},
            "License": {"type": "object", "properties": {"key": {"type": "string"}}},
            "Repo": {"type": "object", "properties": {
                "owner": {"$ref": "#/$defs/User"},
                "license": {"anyOf": [{"$ref": "#/$defs/License"}, {"type": "null"}]},
                "parent": {"oneOf": [{"$ref": "#/$defs/Repo"}, {"type": "null"}]}
            }},
            "RepoAlias": {"$ref": "#/$defs/Repo"},
            "Opened": {"type": "string", "enum": ["opened"]},
            "Value": {"anyOf": [{"type": "string"}, {"type": "number"}]},
            "Created": {"type": "object", "required": ["action", "repo"],
                        "additionalProperties": {"$ref": "#/$defs/User"},
                        "properties": {
                "action": {"const": "created"},
                "repo": {"$ref": "#/$defs/Repo"},
                "sender": {"$ref": "#/$defs/User"},
                "value": {"$ref": "#/$defs/Value"}
            }},
            "OpenedEvent": {"type": "object", "required": ["action"], "properties": {
                "action": {"$ref": "#/$defs/Opened"},
                "repo": {"$ref": "#/$defs/RepoAlias"},
                "sender": {"$ref": "#/$defs/User"},
                "value": {"$ref": "#/$defs/Value"}
            }},
            "Closed": {"type": "object", "additionalProperties": false, "properties": {
                "action": {"enum": ["closed", "deleted"]},
                "repo": {"$ref": "#/$defs/Repo"},
                "sender": {"type": "object", "description": "who closed it",
                           "properties": {"login": {"type": "string"}, "id": {"type": "integer"}}},
                "closer": {"$ref": "#/$defs/User"}
            }},
            "Edited": {"anyOf": [
                {"type": "object", "properties": {"action": {"const": "edited"},
                                                  "repo": {"$ref": "#/$defs/Repo"}}},
                {"type": "object", "properties": {"action": {"const": "edited"},
                                                  "sender": {"$ref": "#/$defs/User"}}}
            ]},
            "Event": {"oneOf": [
                {"$ref": "#/$defs/Created"}, {"$ref": "#/$defs/OpenedEvent"},
                {"$ref": "#/$defs/Closed"}, {"$ref": "#/$defs/Edited"}, {"type": "null"}
            ]}
        });
        vec![
            json!({"type": "object", "properties": {
                "event": {"$ref": "#/$defs/Event"},
                "again": {"$ref": "#/$defs/Event"},
                "both": {"allOf": [{"$ref": "#/$defs/User"}, {"$ref": "#/$defs/Repo"}],
                         "properties": {"owner": {"$ref": "#/$defs/User"}}},
                "repos": {"items": {"$ref": "#/$defs/Repo"}},
                "state": {"$ref": "#/$defs/Opened"}
            }, "$defs": defs.clone()}),
            json!({"$schema": "https://json-schema.org/draft/2020-12/schema",
                   "type": "object", "properties": {
                "narrowed": {"$ref": "#/$defs/Repo",
                             "properties": {"owner": {"required": ["login"]}}},
                "plain": {"$ref": "#/$defs/Repo"},
                "event": {"$ref": "#/$defs/Event"}
            }, "$defs": defs}),
        ]
    }

    fn options() -> Vec<Options> {
        let no_hints = Options {
            hints: false,
            ..Options::flat()
        };
        vec![
            Options::flat(),
            Options::flat().with_open_branches(OpenBranches::Strict),
            no_hints,
            Options::inline(),
        ]
    }

    #[test]
    fn shared_expansions_project_as_copies_would() {
        for schema in schemas() {
            for options in options() {
                let copied = Engine::new(&schema, &options)
                    .copying_reuses()
                    .run()
                    .expect("projects");
                let shared = Engine::new(&schema, &options).run().expect("projects");
                let at = format!("{:?} {:?}", options.mode, options.open_branches);
                assert_eq!(shared.schema, copied.schema, "{at}");
                assert_eq!(
                    serde_json::to_value(&shared.trace).expect("serializes"),
                    serde_json::to_value(&copied.trace).expect("serializes"),
                    "{at}"
                );
                assert_eq!(shared.links, copied.links, "{at}");
                let written = Engine::new(&schema, &options)
                    .run_written()
                    .expect("projects");
                assert!(written.schema.equals(&copied.schema), "{at}");
                assert_eq!(
                    serde_json::to_value(&written.trace).expect("serializes"),
                    serde_json::to_value(&copied.trace).expect("serializes"),
                    "{at}"
                );
            }
        }
    }

    /// The projection with its shared definitions put back at each kept `$ref` (the
    /// reference's annotations over the definition's, as rule 1 inlines them).
    fn reinlined(shared: &Projection) -> Value {
        let kept: HashSet<String> = shared
            .trace
            .iter()
            .filter_map(|e| match &e.detail {
                Detail::RefShared { definition, .. } => Some(definition.clone()),
                _ => None,
            })
            .collect();
        let defs = shared.schema["$defs"].clone();
        fn put_back(v: &Value, defs: &Value, kept: &HashSet<String>) -> Value {
            match v {
                Value::Object(m) => {
                    let name = m
                        .get("$ref")
                        .and_then(Value::as_str)
                        .and_then(|r| r.strip_prefix("#/$defs/"))
                        .filter(|n| kept.contains(*n));
                    if let Some(name) = name {
                        let mut target = put_back(&defs[name], defs, kept);
                        if let Value::Object(t) = &mut target {
                            for (k, v) in m.iter().filter(|(k, _)| *k != "$ref") {
                                t.insert(k.clone(), v.clone());
                            }
                        }
                        return target;
                    }
                    Value::Object(
                        m.iter()
                            .map(|(k, v)| (k.clone(), put_back(v, defs, kept)))
                            .collect(),
                    )
                }
                Value::Array(items) => {
                    Value::Array(items.iter().map(|i| put_back(i, defs, kept)).collect())
                }
                other => other.clone(),
            }
        }
        let mut out = put_back(&shared.schema, &defs, &kept);
        if let Some(root) = out.as_object_mut() {
            let left: Map<String, Value> = root
                .get("$defs")
                .and_then(Value::as_object)
                .map(|d| {
                    d.iter()
                        .filter(|(k, _)| !kept.contains(*k))
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .collect()
                })
                .unwrap_or_default();
            if left.is_empty() {
                root.remove("$defs");
            } else {
                root.insert("$defs".to_owned(), Value::Object(left));
            }
        }
        out
    }

    /// Where two values first differ, with both sides there.
    fn first_difference(a: &Value, b: &Value, at: &str) -> String {
        match (a, b) {
            (Value::Object(x), Value::Object(y)) if x.keys().eq(y.keys()) => x
                .iter()
                .find(|(k, v)| *v != &y[*k])
                .map(|(k, v)| first_difference(v, &y[k], &format!("{at}/{k}")))
                .unwrap_or_default(),
            (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
                .iter()
                .zip(y)
                .enumerate()
                .find(|(_, (v, w))| v != w)
                .map(|(i, (v, w))| first_difference(v, w, &format!("{at}/{i}")))
                .unwrap_or_default(),
            _ => format!(
                "at {at}: {} against {}",
                a.to_string().chars().take(400).collect::<String>(),
                b.to_string().chars().take(400).collect::<String>()
            ),
        }
    }

    /// Definitions referenced from several places, each level referring to the next four
    /// times (one reference with constraints beside it, one beside `null`, one in a union).
    fn shared_levels() -> Value {
        json!({"type": "object", "properties": {
            "top": {"$ref": "#/$defs/A", "description": "The top."},
            "again": {"$ref": "#/$defs/A"}},
            "$defs": {
                "A": {"type": "object", "properties": {
                    "b1": {"$ref": "#/$defs/B", "title": "First"},
                    "b2": {"$ref": "#/$defs/B", "minProperties": 1},
                    "b3": {"anyOf": [{"$ref": "#/$defs/B"}, {"type": "null"}]},
                    "pair": {"anyOf": [{"$ref": "#/$defs/B"},
                                       {"type": "object", "properties": {"w": {"type": "integer"}}}]},
                    "tag": {"$ref": "#/$defs/Tag"}}},
                "B": {"type": "object", "properties": {
                    "v": {"type": "string", "enum": ["x", "y"]},
                    "kind": {"oneOf": [
                        {"type": "object", "properties": {"k": {"const": "p"}, "n": {"type": "integer"}}, "required": ["k"]},
                        {"type": "object", "properties": {"k": {"const": "q"}, "s": {"type": "string"}}, "required": ["k"]}
                    ]}}},
                "Tag": {"type": "string", "enum": ["t"]}}})
    }

    /// Keeping shared definitions changes where a schema is written, never what it says: put
    /// back, they give the inlined projection, on every case above in both modes. Recursion,
    /// what flat mode merges and references with constraints beside them are left inlined.
    #[test]
    fn kept_shared_definitions_put_back_are_the_inlined_projection() {
        let mut cases = schemas();
        cases.push(shared_levels());
        let mut kept = 0;
        for (i, schema) in cases.iter().enumerate() {
            for options in [Options::flat(), Options::inline()] {
                let at = format!("case {i} {:?}", options.mode);
                let inlined = Engine::new(schema, &options).run().expect("projects");
                let shared = Engine::new(schema, &options)
                    .sharing("over".to_owned())
                    .run()
                    .expect("projects");
                let back = reinlined(&shared);
                assert!(
                    back == inlined.schema,
                    "{at}: {}",
                    first_difference(&back, &inlined.schema, "")
                );
                kept += shared
                    .trace
                    .iter()
                    .filter(|e| matches!(e.detail, Detail::RefShared { .. }))
                    .count();
            }
        }
        assert!(kept > 0, "nothing was kept");
        let options = Options::flat();
        let shared = Engine::new(&shared_levels(), &options)
            .sharing("over".to_owned())
            .run()
            .expect("projects");
        let defs: Vec<&String> = shared.schema["$defs"].as_object().unwrap().keys().collect();
        // `Tag` is referenced once; `B` beside `minProperties` and in a union of two objects
        // is inlined there, beside `null` it is kept.
        assert_eq!(defs, ["A", "B"], "{:#}", shared.schema);
        let root: Vec<&Detail> = shared
            .trace
            .iter()
            .filter(|e| e.at.is_empty())
            .map(|e| &e.detail)
            .collect();
        assert!(
            root.contains(&&Detail::DefinitionsShared {
                over: "over".to_owned(),
                definitions: 2
            }),
            "{root:?}"
        );
        let a = &shared.schema["$defs"]["A"]["properties"];
        assert_eq!(a["b1"], json!({"$ref": "#/$defs/B", "title": "First"}));
        assert!(a["b2"].get("$ref").is_none(), "{a:#}");
        assert_eq!(
            a["b3"]["anyOf"],
            json!([{"$ref": "#/$defs/B"}, {"type": "null"}]),
            "{a:#}"
        );
        assert!(!a["pair"].to_string().contains("$ref"), "{a:#}");
    }

    /// The cases above reach the rules that read into shared expansions: were they not, the
    /// test would compare copies with copies.
    #[test]
    fn the_cases_merge_and_join_shared_expansions() {
        for options in [Options::flat(), Options::inline()] {
            let projected = Engine::new(&schemas()[0], &options)
                .run()
                .expect("projects");
            let rules: HashSet<Rule> = projected.trace.iter().map(|e| e.rule).collect();
            if options.mode == Mode::Flat {
                for rule in [Rule::DuObject, Rule::CollisionJoin, Rule::AllofMerge] {
                    assert!(rules.contains(&rule), "{rule:?}");
                }
            }
            let written = Engine::new(&schemas()[0], &options)
                .run_written()
                .expect("projects");
            assert!(written.schema.shares(), "{:?}", options.mode);
        }
    }
}
