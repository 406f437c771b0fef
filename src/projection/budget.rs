//! Limits that keep projection total (I-total): output size and nesting depth.

use thiserror::Error;

pub const DEFAULT_MAX_DEPTH: usize = 256;
const MIN_NODE_BUDGET: usize = 1_000_000;
const BUDGET_FACTOR: usize = 50;
const UNROLL_FACTOR: usize = 10;

/// The default node budget for an input of `input_nodes` JSON values: an honest inlining of a
/// large document fits, a ref bomb does not.
pub fn default_node_budget(input_nodes: usize) -> usize {
    input_nodes
        .saturating_mul(BUDGET_FACTOR)
        .max(MIN_NODE_BUDGET)
}

/// The default unrolling budget: how many nodes unrolling recursion may add, beyond cutting
/// at the first re-entry, for an input of `input_nodes` JSON values.
pub fn default_unroll_budget(input_nodes: usize) -> usize {
    input_nodes.saturating_mul(UNROLL_FACTOR)
}

#[derive(Debug, Clone, Error, PartialEq, Eq)]
pub enum ProjectionError {
    #[error(
        "projection stopped at #{at}: it would emit more than {limit} schema nodes (a $ref expansion that multiplies, such as a ref bomb); refs being expanded: {}",
        chain_text(.chain)
    )]
    Budget {
        limit: usize,
        at: String,
        chain: Vec<String>,
    },
    #[error(
        "projection stopped at #{at}: schemas nest deeper than {limit} levels; refs being expanded: {}",
        chain_text(.chain)
    )]
    TooDeep {
        limit: usize,
        at: String,
        chain: Vec<String>,
    },
    /// An exact unrolling depth was asked for and does not fit the node budget.
    #[error(
        "projection stopped at #{at}: unrolling recursion to depth {depth} would emit more than {limit} schema nodes ({}); refs along the heaviest path: {}",
        fitting_text(*.fits),
        chain_text(.chain)
    )]
    UnrollTooDeep {
        depth: usize,
        limit: usize,
        /// The deepest unrolling that fits.
        fits: usize,
        at: String,
        chain: Vec<String>,
    },
    /// The caller raised the options' [`Cancel`](super::Cancel) token: it no longer wants
    /// this projection.
    #[error("projection cancelled at #{at}")]
    Cancelled { at: String },
    /// A keyword's value has the wrong shape (`"oneOf": 5`): nothing can be said of what the
    /// schema accepts, and the walk would carry the value through unread.
    #[error("not a valid JSON Schema: {message}")]
    Malformed { at: String, message: String },
}

impl ProjectionError {
    /// The original pointer where projection stopped.
    pub fn pointer(&self) -> &str {
        match self {
            ProjectionError::Budget { at, .. }
            | ProjectionError::TooDeep { at, .. }
            | ProjectionError::UnrollTooDeep { at, .. }
            | ProjectionError::Cancelled { at }
            | ProjectionError::Malformed { at, .. } => at,
        }
    }
}

fn fitting_text(fits: usize) -> String {
    format!("depth {fits} fits, or keep recursion as $defs")
}

fn chain_text(chain: &[String]) -> String {
    if chain.is_empty() {
        return "none".to_owned();
    }
    const SHOWN: usize = 6;
    if chain.len() <= SHOWN {
        chain.join(" → ")
    } else {
        format!(
            "{} → … ({} more) → {}",
            chain[..3].join(" → "),
            chain.len() - 5,
            chain[chain.len() - 2..].join(" → ")
        )
    }
}

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use super::refgraph::{Body, FastHash, RefGraph, StateKey, TargetId, Union, Unrolling};

/// Schema nodes the walk would emit, computed from bodies and states before anything is
/// built, so that a ref bomb is refused at once and a recursion depth can be chosen.
///
/// It is exact: it follows the walk's own rules (the same bodies, the same `$ref`
/// resolution, the same unrolling decision per state), so where the walk succeeds it emits
/// exactly [`Estimate::total`] nodes. It is cheap: each distinct state is sized once, and
/// each stands for at least one expansion the walk would emit in full, so the work done
/// (`work`, body nodes sized) never exceeds the walk's output; past `limit` it stops and
/// answers `limit + 1`.
pub(crate) struct Estimate<'g> {
    graph: &'g RefGraph,
    unrolling: Unrolling,
    sizes: HashMap<StateKey, u64, FastHash>,
    /// Targets the walk would emit as `$defs` entries (`Unrolling::Keep`), in order.
    kept: Vec<TargetId>,
    kept_set: HashSet<TargetId>,
    work: u64,
    limit: u64,
}

impl<'g> Estimate<'g> {
    pub(crate) fn new(graph: &'g RefGraph, unrolling: Unrolling, limit: usize) -> Estimate<'g> {
        Estimate {
            graph,
            unrolling,
            sizes: HashMap::default(),
            kept: Vec::new(),
            kept_set: HashSet::new(),
            work: 0,
            // One below the top, so that "more than the limit" (`limit + 1`) can be said even
            // for a budget of `usize::MAX` ("no limit").
            limit: (limit as u64).min(u64::MAX - 1),
        }
    }

    /// Nodes of the whole projection, `$defs` of kept recursion included; any value above
    /// the limit only means "more than the limit".
    pub(crate) fn total(&mut self) -> u64 {
        let graph = self.graph;
        let root: Vec<TargetId> = graph.root_target().into_iter().collect();
        let mut total = self.body_size(&graph.root, &root, 0);
        let mut next = 0;
        while next < self.kept.len() && total <= self.limit {
            let key = graph.state_within(self.kept[next], &root, 0);
            total = total.saturating_add(self.state_size(key));
            next += 1;
        }
        total.min(self.limit + 1)
    }

    /// How many times the walk expands each state it expands through a `$ref`: once per
    /// visiting `$ref` site in the bodies it walks (the root, the kept definitions, and each
    /// expanded state once, since the walk reuses equal states). Call after [`Self::total`].
    ///
    /// The walk keeps a state's projection only until its last expansion, and not at all
    /// for a state expanded once. A count that came out low would only make the walk project
    /// a state again (to the same result), never change what it emits.
    pub(crate) fn expansions(&mut self) -> HashMap<StateKey, u32, FastHash> {
        let graph = self.graph;
        let root: Vec<TargetId> = graph.root_target().into_iter().collect();
        let mut bodies: Vec<(&Body, Box<[TargetId]>, usize)> =
            vec![(&graph.root, root.clone().into_boxed_slice(), 0)];
        for key in self.sizes.keys() {
            bodies.push((graph.body(key.target), key.open.clone(), key.depth));
        }
        for kept in &self.kept {
            let key = graph.state_within(*kept, &root, 0);
            bodies.push((graph.body(key.target), key.open, key.depth));
        }
        let mut uses: HashMap<StateKey, u32, FastHash> = HashMap::default();
        for (body, open, depth) in bodies {
            for site in self.visited(body, &open, depth).1.iter() {
                if let Some(key) = self.expansion(*site, &open, depth) {
                    *uses.entry(key).or_default() += 1;
                }
            }
        }
        uses
    }

    fn body_size(&mut self, body: &Body, open: &[TargetId], depth: usize) -> u64 {
        let (nodes, sites) = self.visited(body, open, depth);
        self.work = self.work.saturating_add(nodes);
        let mut total = nodes;
        for site in sites.iter() {
            if total > self.limit || self.work > self.limit {
                return self.limit + 1;
            }
            if let Some(key) = self.expansion(*site, open, depth) {
                total = total.saturating_add(self.state_size(key));
            }
        }
        total
    }

    /// The nodes and `$ref` sites of `body` the walk visits: all but those of cut unions.
    fn visited<'b>(
        &self,
        body: &'b Body,
        open: &[TargetId],
        depth: usize,
    ) -> (u64, Cow<'b, [usize]>) {
        let cut = self.cut_unions(body, open, depth);
        if cut.is_empty() {
            return (body.nodes, Cow::Borrowed(&body.sites));
        }
        let nodes = body.nodes - cut.iter().map(|u| u.nodes.end - u.nodes.start).sum::<u64>();
        let mut ranges = cut.iter().map(|u| u.sites.clone()).peekable();
        let mut sites = Vec::with_capacity(body.sites.len());
        for (i, site) in body.sites.iter().enumerate() {
            while ranges.peek().is_some_and(|r| r.end <= i) {
                ranges.next();
            }
            if !ranges.peek().is_some_and(|r| r.contains(&i)) {
                sites.push(*site);
            }
        }
        (nodes, Cow::Owned(sites))
    }

    /// The unions of `body` the walk cuts whole (an alternative is a `$ref` it would cut),
    /// outermost only, in visiting order.
    fn cut_unions<'b>(&self, body: &'b Body, open: &[TargetId], depth: usize) -> Vec<&'b Union> {
        if self.unrolling.keeps() || self.unrolling.expands_reentry(depth) {
            return Vec::new();
        }
        let mut cut: Vec<&Union> = body
            .unions
            .iter()
            .filter(|u| {
                u.alternatives.iter().any(|s| {
                    matches!(self.graph.sites[*s].target, Ok(t) if open.binary_search(&t).is_ok())
                })
            })
            .collect();
        cut.sort_by_key(|u| u.nodes.start);
        let mut outermost: Vec<&Union> = Vec::with_capacity(cut.len());
        for u in cut {
            if outermost
                .last()
                .is_none_or(|o| u.nodes.start >= o.nodes.end)
            {
                outermost.push(u);
            }
        }
        outermost
    }

    /// The state a `$ref` site expands to, or `None` when the walk emits nothing for it (it
    /// is unresolvable, cut, or kept as a reference).
    fn expansion(&mut self, site: usize, open: &[TargetId], depth: usize) -> Option<StateKey> {
        let target = *self.graph.sites[site].target.as_ref().ok()?;
        let shared = self.unrolling == Unrolling::Shared && self.graph.on_cycle(target);
        if open.binary_search(&target).is_err() && !shared {
            return Some(self.graph.state_within(target, open, depth));
        }
        // A kept cycle through the root is `#`: nothing more to emit.
        let root = self.graph.pointer(target).is_empty();
        if self.unrolling.keeps() && !root && self.kept_set.insert(target) {
            self.kept.push(target);
        }
        self.unrolling
            .expands_reentry(depth)
            .then(|| self.graph.state_within(target, open, depth + 1))
    }

    fn state_size(&mut self, key: StateKey) -> u64 {
        if let Some(size) = self.sizes.get(&key) {
            return *size;
        }
        if self.work > self.limit {
            return self.limit + 1;
        }
        let graph = self.graph;
        let size = stacker::maybe_grow(64 * 1024, 1024 * 1024, || {
            self.body_size(graph.body(key.target), &key.open, key.depth)
        });
        self.sizes.insert(key, size);
        size
    }

    /// The `$ref`s along the heaviest path from the root, for the error message.
    pub(crate) fn heaviest_chain(&mut self) -> Vec<String> {
        let graph = self.graph;
        let mut chain = Vec::new();
        let mut body = &graph.root;
        let mut open: Box<[TargetId]> = graph.root_target().into_iter().collect();
        let mut depth = 0;
        for _ in 0..64 {
            let mut heaviest: Option<(u64, usize, StateKey)> = None;
            for site in self.visited(body, &open, depth).1.iter() {
                let Some(key) = self.expansion(*site, &open, depth) else {
                    continue;
                };
                let size = self.state_size(key.clone());
                if heaviest.as_ref().is_none_or(|(s, _, _)| size > *s) {
                    heaviest = Some((size, *site, key));
                }
            }
            let Some((_, site, key)) = heaviest else {
                break;
            };
            chain.push(graph.sites[site].reference.clone());
            body = graph.body(key.target);
            depth = key.depth;
            open = key.open;
        }
        chain
    }
}

/// The unrolling the walk will use, decided from estimates before anything is built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Plan {
    pub(crate) unrolling: Unrolling,
    /// The nodes the walk will emit (the estimate, which is exact).
    pub(crate) nodes: u64,
    /// Set when the default depth was lowered to fit the unrolling budget.
    pub(crate) lowered: Option<Lowered>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Lowered {
    pub(crate) requested: usize,
    pub(crate) used: usize,
    /// Nodes unrolling could add beyond cutting at the first re-entry (the unrolling budget,
    /// or less where the node budget leaves less).
    pub(crate) budget: usize,
    /// JSON values of the input the budget was measured against.
    pub(crate) input: usize,
}

/// Budgets of one projection: all nodes, and the nodes unrolling may add.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Budgets {
    pub(crate) nodes: usize,
    pub(crate) unrolling: usize,
    /// JSON values of the input, for messages.
    pub(crate) input: usize,
}

/// Chooses how recursion unrolls (rule 2). Expansion that multiplies without recursion, and
/// an explicit depth that does not fit, are refused here, before the walk.
pub(crate) fn plan(
    graph: &RefGraph,
    recursion: super::Recursion,
    budgets: Budgets,
) -> Result<Plan, ProjectionError> {
    use super::Recursion;
    let fixed = |unrolling, nodes| Plan {
        unrolling,
        nodes,
        lowered: None,
    };
    match recursion {
        Recursion::Keep => {
            let (unrolling, nodes) = keep_form(graph, budgets)?;
            Ok(fixed(unrolling, nodes))
        }
        Recursion::Unroll(depth) => {
            let mut estimate = Estimate::new(graph, Unrolling::Depth(depth), budgets.nodes);
            let nodes = estimate.total();
            if nodes <= budgets.nodes as u64 {
                return Ok(fixed(Unrolling::Depth(depth), nodes));
            }
            let chain = estimate.heaviest_chain();
            refuse_over(graph, Unrolling::Depth(0), budgets.nodes)?;
            let fits = (0..depth)
                .rev()
                .find(|d| sized(graph, *d, budgets.nodes as u64).is_some())
                .unwrap_or(0);
            Err(ProjectionError::UnrollTooDeep {
                depth,
                limit: budgets.nodes,
                fits,
                at: String::new(),
                chain,
            })
        }
        Recursion::UpTo(requested) => {
            let uncut = refuse_over(graph, Unrolling::Depth(0), budgets.nodes)?;
            if requested == 0 || !graph.has_cycles() {
                return Ok(fixed(Unrolling::Depth(requested), uncut));
            }
            let limit = uncut
                .saturating_add(budgets.unrolling as u64)
                .min(budgets.nodes as u64);
            let (used, nodes) = (1..=requested)
                .rev()
                .find_map(|d| sized(graph, d, limit).map(|n| (d, n)))
                .unwrap_or((0, uncut));
            Ok(Plan {
                unrolling: Unrolling::Depth(used),
                nodes,
                lowered: (used < requested).then_some(Lowered {
                    requested,
                    used,
                    budget: usize::try_from(limit - uncut).unwrap_or(usize::MAX),
                    input: budgets.input,
                }),
            })
        }
    }
}

/// Kept recursion: each path through a cycle expanded until it re-enters (a small cycle reads
/// best so, and flat mode can merge a union of its members), unless that form is larger than
/// the one that refers into every cycle member by one shared `$defs` entry by more than the
/// unrolling budget: the expansion multiplies with the cycle's members and alternatives (a
/// formula language of twenty mutually recursive expressions), the shared form does not.
fn keep_form(graph: &RefGraph, budgets: Budgets) -> Result<(Unrolling, u64), ProjectionError> {
    let shared = refuse_over(graph, Unrolling::Shared, budgets.nodes)?;
    let limit = shared
        .saturating_add(budgets.unrolling as u64)
        .min(budgets.nodes as u64);
    let expanded = Estimate::new(graph, Unrolling::Keep, limit as usize).total();
    Ok(if expanded <= limit {
        (Unrolling::Keep, expanded)
    } else {
        (Unrolling::Shared, shared)
    })
}

/// The projection's size when unrolled to `depth`, if it is within `limit`.
fn sized(graph: &RefGraph, depth: usize, limit: u64) -> Option<u64> {
    let limit = usize::try_from(limit).unwrap_or(usize::MAX);
    let nodes = Estimate::new(graph, Unrolling::Depth(depth), limit).total();
    (nodes <= limit as u64).then_some(nodes)
}

/// The estimated size under `unrolling`, or the ref-bomb refusal when it is over `limit`.
fn refuse_over(
    graph: &RefGraph,
    unrolling: Unrolling,
    limit: usize,
) -> Result<u64, ProjectionError> {
    let mut estimate = Estimate::new(graph, unrolling, limit);
    let total = estimate.total();
    if total <= limit as u64 {
        return Ok(total);
    }
    Err(ProjectionError::Budget {
        limit,
        at: String::new(),
        chain: estimate.heaviest_chain(),
    })
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::ProjectionError;
    use crate::projection::engine::{Counted, Engine};
    use crate::projection::{Mode, Options, Recursion};

    fn counted(schema: &Value, options: &Options) -> Result<Counted, ProjectionError> {
        Engine::new(schema, options).run_counted().map(|(_, c)| c)
    }

    fn samples() -> Vec<(String, Value)> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("samples");
        let mut out = Vec::new();
        for entry in std::fs::read_dir(dir).expect("samples/") {
            let path = entry.expect("entry").path();
            if path.extension().is_none_or(|e| e != "json") {
                continue;
            }
            let manifest = crate::manifest::load_path(&path, None).expect("sample loads");
            for tool in manifest.tools {
                out.push((
                    format!("{} {}", path.display(), tool.name),
                    std::sync::Arc::unwrap_or_clone(tool.schema),
                ));
            }
        }
        out
    }

    /// Shapes where a walk and a separate estimate would most easily disagree.
    fn shapes() -> Vec<(&'static str, Value)> {
        let fan: serde_json::Map<String, Value> = (0..4)
            .map(|i| {
                let props: serde_json::Map<String, Value> = (0..4)
                    .map(|j| (format!("p{j}"), json!({"$ref": format!("#/$defs/d{j}")})))
                    .collect();
                (
                    format!("d{i}"),
                    json!({"type": "object", "properties": props}),
                )
            })
            .collect();
        vec![
            ("mutual objects", mutual()),
            (
                "root re-entered",
                json!({"type": "object", "properties": {
                    "a": {"$ref": "#"}, "b": {"type": "array", "items": {"$ref": "#/$defs/B"}}},
                    "$defs": {"B": {"type": "object", "properties": {"up": {"$ref": "#"}, "b": {"$ref": "#/$defs/B"}}}}}),
            ),
            (
                "draft-07 siblings ignored",
                json!({"$schema": "http://json-schema.org/draft-07/schema#",
                    "definitions": {"N": {"type": "object", "properties": {
                        "next": {"$ref": "#/definitions/N", "description": "x", "properties": {"y": {"$ref": "#/definitions/N"}}}}}},
                    "$ref": "#/definitions/N"}),
            ),
            (
                "2020-12 siblings merged",
                json!({"$defs": {"N": {"type": "object", "properties": {
                    "next": {"$ref": "#/$defs/N", "properties": {"y": {"$ref": "#/$defs/N"}}}}}},
                    "$ref": "#/$defs/N"}),
            ),
            (
                "unions inside cut unions",
                json!({"$defs": {"E": {"anyOf": [
                        {"type": "string"},
                        {"$ref": "#/$defs/E"},
                        {"type": "array", "items": {"oneOf": [{"$ref": "#/$defs/E"}, {"$ref": "#/$defs/F"}]}},
                    ], "oneOf": [{"$ref": "#/$defs/F"}, {"type": "null"}]},
                    "F": {"type": "object", "properties": {"e": {"$ref": "#/$defs/E"}, "x": {"oneOf": [{"$ref": "#/$defs/F"}, {"$ref": "#/nowhere"}]}}}},
                    "$ref": "#/$defs/E"}),
            ),
            (
                "target inside a target",
                json!({"$defs": {"A": {"type": "object", "properties": {
                    "x": {"type": "object", "properties": {"back": {"$ref": "#/$defs/A"}, "self": {"$ref": "#/$defs/A/properties/x"}}},
                    "y": {"$ref": "#/$defs/A/properties/x"}}}},
                    "properties": {"a": {"$ref": "#/$defs/A"}, "x": {"$ref": "#/$defs/A/properties/x"}}}),
            ),
            (
                "ids and anchors",
                json!({"$id": "https://example.com/root.json", "$defs": {
                    "L": {"$id": "list.json", "type": "object", "properties": {"next": {"$ref": "list.json"}, "item": {"$ref": "#item"}}},
                    "I": {"$anchor": "item", "type": "object", "properties": {"list": {"$ref": "list.json"}}}},
                    "properties": {"l": {"$ref": "list.json"}}}),
            ),
            ("fan of four", json!({"$defs": fan, "$ref": "#/$defs/d0"})),
        ]
    }

    fn mutual() -> Value {
        json!({
            "$defs": {
                "A": {"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}, "b": {"$ref": "#/$defs/B"}}},
                "B": {"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}, "b": {"$ref": "#/$defs/B"}}}
            },
            "$ref": "#/$defs/A"
        })
    }

    #[test]
    fn the_estimate_is_exactly_what_the_walk_emits() {
        let recursions = [
            Recursion::UpTo(3),
            Recursion::Unroll(0),
            Recursion::Unroll(1),
            Recursion::Unroll(2),
            Recursion::Keep,
        ];
        let mut inputs = samples();
        inputs.extend(shapes().into_iter().map(|(n, s)| (n.to_owned(), s)));
        let mut checked = 0;
        for (name, schema) in &inputs {
            for mode in [Mode::Inline, Mode::Flat] {
                for recursion in recursions {
                    let options = Options {
                        mode,
                        recursion,
                        ..Options::default()
                    };
                    match counted(schema, &options) {
                        Ok(c) => {
                            assert_eq!(c.emitted, c.estimated, "{name} {mode} {recursion:?}");
                            checked += 1;
                        }
                        Err(e) => panic!("{name} {mode} {recursion:?}: {e}"),
                    }
                }
            }
        }
        assert!(checked >= 200, "{checked} projections checked");
    }

    #[test]
    fn depth_counts_reentries_on_the_path_whichever_definition() {
        let options = Options {
            mode: Mode::Inline,
            recursion: Recursion::Unroll(1),
            ..Options::default()
        };
        let p = crate::project(&mutual(), &options).expect("projects");
        let cut = |r: &str| json!({"description": format!("Recursive #/$defs/{r}: cut after 1 level(s).")});
        let object = |a: Value, b: Value| json!({"type": "object", "properties": {"a": a, "b": b}});
        // A → a: A re-enters (depth 1), so below it every re-entry is cut, A's and B's alike;
        // A → b: B enters B for the first time, and B → a, B → b are each one re-entry.
        let expected = object(
            object(cut("A"), object(cut("A"), cut("B"))),
            object(object(cut("A"), cut("B")), object(cut("A"), cut("B"))),
        );
        assert_eq!(p.schema, expected);
    }

    #[test]
    fn a_union_with_an_alternative_to_cut_is_cut_whole() {
        // Pydantic's shape: every use of the union is a `oneOf` of `$ref`s, inline.
        let union = json!({"title": "Arg", "oneOf": [{"type": "number"}, {"$ref": "#/$defs/Neg"}]});
        let schema = json!({
            "$defs": {"Neg": {"type": "object", "properties": {"arg": union}}},
            "properties": {"e": union}
        });
        let options = Options {
            mode: Mode::Inline,
            recursion: Recursion::Unroll(0),
            ..Options::default()
        };
        let p = crate::project(&schema, &options).expect("projects");
        let arg = &p.schema["properties"]["e"]["anyOf"][1]["properties"]["arg"];
        assert_eq!(
            arg,
            &json!({"title": "Arg", "description": "Recursive #/$defs/Neg: cut after 0 level(s)."})
        );
        let cuts: Vec<_> = p
            .trace
            .iter()
            .filter(|e| e.rule == crate::projection::Rule::Recursion)
            .map(|e| (e.at.as_str(), e.from.clone()))
            .collect();
        assert_eq!(
            cuts,
            [(
                "/properties/e/anyOf/1/properties/arg",
                vec![
                    "/$defs/Neg/properties/arg/oneOf/1".to_owned(),
                    "/$defs/Neg".to_owned()
                ]
            )]
        );
    }

    /// Random `$ref` graphs: definitions referring to each other and to the root, through
    /// unions, `allOf`, properties, items and `$ref`s with siblings, in both drafts.
    fn reference_graph() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        (1..6usize)
            .prop_flat_map(|k| {
                let target = (0..=k).prop_map(move |i| {
                    if i == k {
                        "#".to_owned()
                    } else {
                        format!("#/$defs/d{i}")
                    }
                });
                let leaf = prop_oneof![
                    3 => target.clone().prop_map(|r| json!({"$ref": r})),
                    1 => Just(json!({"type": "string"})),
                    1 => Just(json!({})),
                ];
                let node = leaf.prop_recursive(4, 24, 4, move |inner| {
                    let name = prop::sample::select(&["a", "b", "c"][..]);
                    prop_oneof![
                        prop::collection::vec(inner.clone(), 1..4)
                            .prop_map(|v| json!({"anyOf": v})),
                        prop::collection::vec(inner.clone(), 1..4)
                            .prop_map(|v| json!({"oneOf": v})),
                        prop::collection::vec(inner.clone(), 1..3)
                            .prop_map(|v| json!({"allOf": v})),
                        prop::collection::vec((name, inner.clone()), 1..3).prop_map(|ps| {
                            let props: serde_json::Map<String, Value> =
                                ps.into_iter().map(|(n, s)| (n.to_owned(), s)).collect();
                            json!({"type": "object", "properties": props})
                        }),
                        inner
                            .clone()
                            .prop_map(|i| json!({"type": "array", "items": i})),
                        (target.clone(), inner).prop_map(|(r, i)| {
                            json!({"$ref": r, "description": "d", "properties": {"s": i}})
                        }),
                    ]
                });
                (prop::collection::vec(node.clone(), k), node, any::<bool>())
            })
            .prop_map(|(defs, root, draft07)| {
                let mut doc = match root {
                    Value::Object(m) => m,
                    other => serde_json::Map::from_iter([("allOf".to_owned(), json!([other]))]),
                };
                let defs: serde_json::Map<String, Value> = defs
                    .into_iter()
                    .enumerate()
                    .map(|(i, d)| (format!("d{i}"), d))
                    .collect();
                doc.insert("$defs".to_owned(), Value::Object(defs));
                if draft07 {
                    doc.insert(
                        "$schema".to_owned(),
                        json!("http://json-schema.org/draft-07/schema#"),
                    );
                }
                Value::Object(doc)
            })
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig {
            failure_persistence: None,
            ..proptest::prelude::ProptestConfig::default()
        })]

        /// Unit-level I-total as well: every random graph projects or is refused with a
        /// budget error, and where it projects the estimate was exact.
        #[test]
        fn the_estimate_is_exact_on_random_reference_graphs(doc in reference_graph()) {
            for mode in [Mode::Inline, Mode::Flat] {
                for recursion in [
                    Recursion::UpTo(3),
                    Recursion::Unroll(0),
                    Recursion::Unroll(2),
                    Recursion::Keep,
                ] {
                    let options = Options { mode, recursion, ..Options::default() };
                    match counted(&doc, &options) {
                        Ok(c) => proptest::prop_assert_eq!(
                            c.emitted, c.estimated, "{} {:?}: {}", mode, recursion, doc
                        ),
                        Err(ProjectionError::Budget { .. } | ProjectionError::UnrollTooDeep { .. }) => {}
                        Err(e) => proptest::prop_assert!(false, "{} {:?}: {}: {}", mode, recursion, e, doc),
                    }
                }
            }
        }
    }

    /// `n` definitions, each taking a union of all of them (Pydantic's way with Qdrant's
    /// formula expressions): expanding every path until it re-enters is `n!` paths.
    fn formula(n: usize) -> Value {
        let union = || {
            let mut alternatives = vec![json!({"type": "number"})];
            alternatives.extend((0..n).map(|i| json!({"$ref": format!("#/$defs/E{i}")})));
            json!({"anyOf": alternatives})
        };
        let defs: serde_json::Map<String, Value> = (0..n)
            .map(|i| {
                let op = format!("op{i}");
                (
                    format!("E{i}"),
                    json!({"type": "object", "properties": {op.clone(): union()}, "required": [op]}),
                )
            })
            .collect();
        json!({"type": "object", "properties": {"f": union()}, "$defs": defs})
    }

    /// A small cycle keeps its expanded form; a large one, whose expansion blew the node
    /// budget, refers into each member by one shared definition, and the estimate is exact
    /// for both.
    #[test]
    fn kept_recursion_shares_the_members_of_a_cycle_too_large_to_expand() {
        let defs = |schema: &Value, options: &Options| -> Vec<String> {
            let p = crate::project(schema, options).expect("projects");
            let mut names: Vec<String> = p.schema["$defs"]
                .as_object()
                .map(|d| d.keys().cloned().collect())
                .unwrap_or_default();
            names.sort();
            names
        };
        for mode in [Mode::Inline, Mode::Flat] {
            let options = Options {
                mode,
                recursion: Recursion::Keep,
                ..Options::default()
            };
            for n in [2, 8] {
                let c = counted(&formula(n), &options).expect("kept recursion projects");
                assert_eq!(c.emitted, c.estimated, "{mode} {n}");
            }
            // Two members: the first is expanded at the root, re-entered below.
            assert_eq!(defs(&formula(2), &options), ["E0", "E1"], "{mode}");
            let small = crate::project(&formula(2), &options).expect("projects");
            let f = small.schema["properties"]["f"].to_string();
            assert!(
                f.contains("\"op0\"") && f.contains("\"op1\""),
                "{mode}: {f}"
            );
            let large = crate::project(&formula(8), &options).expect("projects");
            let names: Vec<String> = (0..8).map(|i| format!("E{i}")).collect();
            assert_eq!(defs(&formula(8), &options), names, "{mode}");
            assert_eq!(
                large.schema["properties"]["f"]["anyOf"][1],
                json!({"$ref": "#/$defs/E0"}),
                "{mode}"
            );
        }
    }

    /// The largest budget means "no limit"; it must not overflow the estimate's "more than".
    #[test]
    fn the_largest_budget_projects_like_no_budget() {
        for (name, schema) in samples().into_iter().chain(
            shapes()
                .into_iter()
                .map(|(name, schema)| (name.to_string(), schema)),
        ) {
            for mode in [Mode::Inline, Mode::Flat] {
                let unbounded = Options {
                    mode,
                    node_budget: Some(usize::MAX),
                    ..Options::default()
                };
                let plain = Options {
                    mode,
                    ..Options::default()
                };
                let a = crate::project(&schema, &unbounded).map(|p| p.schema);
                let b = crate::project(&schema, &plain).map(|p| p.schema);
                assert_eq!(a.is_ok(), b.is_ok(), "{name} {mode}");
                if let (Ok(a), Ok(b)) = (a, b) {
                    assert_eq!(a, b, "{name} {mode}");
                }
            }
        }
    }

    /// Sixty recursive properties: each level multiplies by sixty. Its `$defs` form is small,
    /// so it must never be refused; the default lowers the depth, an explicit one is refused
    /// with the depth that fits.
    #[test]
    fn wide_recursion_is_lowered_by_default_and_refused_only_when_asked_for() {
        let props: serde_json::Map<String, Value> = (0..60)
            .map(|i| (format!("p{i}"), json!({"$ref": "#/$defs/N"})))
            .collect();
        let schema =
            json!({"$defs": {"N": {"type": "object", "properties": props}}, "$ref": "#/$defs/N"});
        for mode in [Mode::Inline, Mode::Flat] {
            let default = Options {
                mode,
                ..Options::default()
            };
            let p = crate::project(&schema, &default).expect("lowered, not refused");
            let lowered: Vec<_> = p
                .trace
                .iter()
                .filter_map(|e| match e.detail {
                    crate::projection::Detail::RecursionLowered {
                        requested, used, ..
                    } => Some((requested, used)),
                    _ => None,
                })
                .collect();
            assert_eq!(lowered, [(3, 0)], "{mode}");
            let keep = Options {
                mode,
                recursion: Recursion::Keep,
                ..Options::default()
            };
            crate::project(&schema, &keep).expect("the $defs form fits");
            let exact = Options {
                mode,
                recursion: Recursion::Unroll(3),
                ..Options::default()
            };
            match crate::project(&schema, &exact) {
                Err(ProjectionError::UnrollTooDeep { depth, fits, .. }) => {
                    assert_eq!((depth, fits), (3, 2), "{mode}");
                }
                other => panic!("{mode}: {other:?}"),
            }
        }
    }
}
