//! The document's `$ref` structure exactly as the walk meets it, built once per projection.
//!
//! A *body* is what the walk visits when it projects the root or a `$ref` target without
//! following any `$ref`: how many schema nodes that is, and which `$ref` sites it holds. The
//! size estimate (`budget`) runs on bodies alone, and the walk resolves its `$ref`s here too,
//! so the two cannot disagree about which schema a `$ref` reaches or which nodes are visited.
//!
//! A target's expansion depends only on its *state*: the target, the targets of its strongly
//! connected component already open on the path (an open target outside the component cannot
//! be reached again from it), and, when a cycle is reachable from it, the path's recursion
//! depth. The walk shares projected results per state, the estimate sizes them per state.

use std::cell::OnceCell;
use std::collections::HashMap;
use std::ops::Range;

use serde_json::Value;

use crate::schema::graph::strongly_connected;
use crate::schema::resolve::{RefIndex, Unresolved};
use crate::schema::walk::{Child, children_into};
use crate::schema::{Draft, Position};

pub(crate) type TargetId = u32;

/// States are hashed millions of times when sizing a ref bomb; SipHash dominated that.
/// foldhash is seeded per process, so a crafted document cannot aim at collisions.
pub(crate) type FastHash = foldhash::fast::RandomState;

/// One `$ref` object of the document.
#[derive(Debug)]
pub(crate) struct Site {
    pub(crate) reference: String,
    pub(crate) target: Result<TargetId, Unresolved>,
}

/// What the walk visits for one schema without following `$ref`s.
#[derive(Debug, Default)]
pub(crate) struct Body {
    /// Schema nodes visited (each is one node the walk emits).
    pub(crate) nodes: u64,
    /// The `$ref` sites among them, as indices into [`RefGraph::sites`], in visiting order.
    pub(crate) sites: Vec<usize>,
    /// Every `anyOf`/`oneOf` among them, an enclosing one before those inside it.
    pub(crate) unions: Vec<Union>,
}

/// One `anyOf` or `oneOf` keyword. When one of its alternatives is a `$ref` the walk cuts,
/// the union accepts anything, and the walk cuts the whole keyword instead (rule 2): none of
/// its alternatives is visited.
#[derive(Debug)]
pub(crate) struct Union {
    /// Sites of the alternatives that are themselves `$ref`s.
    pub(crate) alternatives: Vec<usize>,
    /// The alternatives' nodes, a contiguous range of the body's visiting order.
    pub(crate) nodes: Range<u64>,
    /// The alternatives' sites, a range of [`Body::sites`].
    pub(crate) sites: Range<usize>,
}

/// How a walk treats a `$ref` back into an open target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unrolling {
    /// Keep it as a reference to a `$defs` entry.
    Keep,
    /// Keep every `$ref` into a definition on a cycle (a re-entry or not) as a reference to
    /// one `$defs` entry per cycle member: expanding each path through a large cycle until
    /// it re-enters multiplies with every member, the `$defs` form does not.
    Shared,
    /// Expand it while the path's recursion depth (its re-entries) stays within this; cut
    /// the next one. 0 cuts at the first re-entry.
    Depth(usize),
}

impl Unrolling {
    /// Whether a re-entry on a path that already re-entered `depth` times is expanded.
    pub(crate) fn expands_reentry(self, depth: usize) -> bool {
        match self {
            Unrolling::Keep | Unrolling::Shared => false,
            Unrolling::Depth(limit) => depth < limit,
        }
    }

    /// Whether recursion is kept as `$defs` (nothing is cut).
    pub(crate) fn keeps(self) -> bool {
        matches!(self, Unrolling::Keep | Unrolling::Shared)
    }
}

/// The identity of one target expansion: equal states project to equal results.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct StateKey {
    pub(crate) target: TargetId,
    /// Open targets of the same component, the target itself included, sorted.
    pub(crate) open: Box<[TargetId]>,
    /// The path's recursion depth; 0 when no cycle is reachable from the target.
    pub(crate) depth: usize,
}

#[derive(Debug)]
pub(crate) struct RefGraph {
    pointers: Vec<String>,
    ids: HashMap<String, TargetId>,
    pub(crate) sites: Vec<Site>,
    site_at: HashMap<String, usize>,
    bodies: Vec<Body>,
    pub(crate) root: Body,
    component: Vec<usize>,
    reaches_cycle: Vec<bool>,
    /// The target lies on a cycle: its component has several members, or a `$ref` to itself.
    on_cycle: Vec<bool>,
}

impl RefGraph {
    pub(crate) fn build(root: &Value, draft: Draft) -> RefGraph {
        let mut graph = RefGraph {
            pointers: Vec::new(),
            ids: HashMap::new(),
            sites: Vec::new(),
            site_at: HashMap::new(),
            bodies: Vec::new(),
            root: Body::default(),
            component: Vec::new(),
            reaches_cycle: Vec::new(),
            on_cycle: Vec::new(),
        };
        let mut builder = Builder {
            root,
            draft,
            index: OnceCell::new(),
        };
        graph.root = builder.body(&mut graph, root, "");
        let mut next = 0;
        while next < graph.pointers.len() {
            let ptr = graph.pointers[next].clone();
            let schema = root
                .pointer(&ptr)
                .expect("resolution returns pointers that exist");
            let body = builder.body(&mut graph, schema, &ptr);
            graph.bodies.push(body);
            next += 1;
        }
        graph.analyse_cycles();
        graph
    }

    fn analyse_cycles(&mut self) {
        let edges: Vec<Vec<usize>> = self
            .bodies
            .iter()
            .map(|b| {
                b.sites
                    .iter()
                    .filter_map(|s| self.sites[*s].target.as_ref().ok().map(|t| *t as usize))
                    .collect()
            })
            .collect();
        self.component = strongly_connected(&edges);
        let components = self.component.iter().max().map_or(0, |c| c + 1);
        let mut members = vec![0usize; components];
        let mut self_loop = vec![false; components];
        for (v, out) in edges.iter().enumerate() {
            members[self.component[v]] += 1;
            self_loop[self.component[v]] |= out.contains(&v);
        }
        // Components are numbered sinks first, so every successor is decided before its
        // predecessors.
        let mut by_component: Vec<Vec<usize>> = vec![Vec::new(); components];
        for (v, c) in self.component.iter().enumerate() {
            by_component[*c].push(v);
        }
        let mut reaches = vec![false; components];
        for c in 0..components {
            reaches[c] = members[c] > 1
                || self_loop[c]
                || by_component[c]
                    .iter()
                    .flat_map(|v| &edges[*v])
                    .any(|w| self.component[*w] != c && reaches[self.component[*w]]);
        }
        self.reaches_cycle = self.component.iter().map(|c| reaches[*c]).collect();
        self.on_cycle = self
            .component
            .iter()
            .map(|c| members[*c] > 1 || self_loop[*c])
            .collect();
    }

    /// Whether `target` lies on a cycle of `$ref`s (see [`Unrolling::Shared`]).
    pub(crate) fn on_cycle(&self, target: TargetId) -> bool {
        self.on_cycle[target as usize]
    }

    /// Whether some `$ref` cycle is reachable from `target` (itself on one, or further on).
    pub(crate) fn reaches_cycle(&self, target: TargetId) -> bool {
        self.reaches_cycle[target as usize]
    }

    pub(crate) fn pointer(&self, target: TargetId) -> &str {
        &self.pointers[target as usize]
    }

    /// The document root as a target (some `$ref` leads back to it). The walk starts inside
    /// the root, so it is open on every path: `$ref: "#"` always re-enters it.
    pub(crate) fn root_target(&self) -> Option<TargetId> {
        self.ids.get("").copied()
    }

    pub(crate) fn body(&self, target: TargetId) -> &Body {
        &self.bodies[target as usize]
    }

    /// The `$ref` object at original pointer `at`, as the walk must treat it.
    pub(crate) fn site_at(&self, at: &str) -> Option<&Site> {
        self.site_at.get(at).map(|i| &self.sites[*i])
    }

    /// Whether any recursion is reachable at all (else unrolling changes nothing).
    pub(crate) fn has_cycles(&self) -> bool {
        self.reaches_cycle.iter().any(|r| *r)
    }

    /// The state of expanding `target` from inside a state whose open targets are `open`
    /// (sorted, all of one component), at recursion depth `depth`.
    pub(crate) fn state_within(
        &self,
        target: TargetId,
        open: &[TargetId],
        depth: usize,
    ) -> StateKey {
        let component = self.component[target as usize];
        let same = open
            .first()
            .is_some_and(|t| self.component[*t as usize] == component);
        let open: Box<[TargetId]> = match (same, open.binary_search(&target)) {
            (false, _) => Box::new([target]),
            (true, Ok(_)) => open.into(),
            (true, Err(i)) => {
                let mut with = Vec::with_capacity(open.len() + 1);
                with.extend_from_slice(&open[..i]);
                with.push(target);
                with.extend_from_slice(&open[i..]);
                with.into_boxed_slice()
            }
        };
        StateKey {
            target,
            open,
            depth: self.depth_of(target, depth),
        }
    }

    /// Only a target that reaches a cycle can meet a re-entry, so only its depth matters.
    fn depth_of(&self, target: TargetId, depth: usize) -> usize {
        if self.reaches_cycle[target as usize] {
            depth
        } else {
            0
        }
    }

    /// The state of expanding `target` with `open` (the targets open on the path, in any
    /// order) at recursion depth `depth`.
    pub(crate) fn state(
        &self,
        target: TargetId,
        open: impl Iterator<Item = TargetId>,
        depth: usize,
    ) -> StateKey {
        let component = self.component[target as usize];
        let mut open: Vec<TargetId> = open
            .filter(|t| self.component[*t as usize] == component)
            .chain(std::iter::once(target))
            .collect();
        open.sort_unstable();
        open.dedup();
        StateKey {
            target,
            open: open.into_boxed_slice(),
            depth: self.depth_of(target, depth),
        }
    }
}

struct Builder<'a> {
    root: &'a Value,
    draft: Draft,
    /// Built at the first `$ref`: most tools of a large manifest have none, and indexing a
    /// document walks all of it.
    index: OnceCell<RefIndex>,
}

impl Builder<'_> {
    /// The body of the schema at `ptr`, iteratively (the document may be deep). Nodes are
    /// visited depth first, so each union's alternatives form one run of the visiting order,
    /// bracketed by its `Enter` and `Leave` marks.
    ///
    /// One pointer buffer serves the whole walk: a node's pointer is its parent's (still at
    /// the front of the buffer, as nodes are visited depth first) plus its own tokens.
    fn body(&mut self, graph: &mut RefGraph, schema: &Value, ptr: &str) -> Body {
        enum Step<'v> {
            /// A node, the length of its parent's pointer, and how it sits in its parent.
            Node(&'v Value, usize, Option<Child<'v>>),
            Enter(usize),
            Leave(usize),
        }
        let mut body = Body::default();
        let mut at = ptr.to_owned();
        let mut stack = vec![Step::Node(schema, at.len(), None)];
        let mut kids = Vec::new();
        while let Some(step) = stack.pop() {
            let node = match step {
                Step::Node(node, parent, child) => {
                    at.truncate(parent);
                    if let Some(child) = child {
                        child.push_tokens(&mut at);
                    }
                    node
                }
                Step::Enter(u) => {
                    body.unions[u].nodes = body.nodes..body.nodes;
                    body.unions[u].sites = body.sites.len()..body.sites.len();
                    continue;
                }
                Step::Leave(u) => {
                    body.unions[u].nodes.end = body.nodes;
                    body.unions[u].sites.end = body.sites.len();
                    continue;
                }
            };
            body.nodes += 1;
            let reference = node.get("$ref").and_then(Value::as_str);
            if let Some(reference) = reference {
                body.sites.push(self.site(graph, &at, reference));
                // Before 2019-09 a `$ref` hides its siblings; the walk ignores them.
                if self.draft.ref_overrides_siblings() {
                    continue;
                }
            }
            kids.clear();
            children_into(node, &mut kids);
            kids.retain(|c| c.keyword.position != Position::Definitions);
            for group in kids.chunk_by(|a, b| a.keyword.name == b.keyword.name) {
                let union = is_union(group[0].keyword.name).then(|| {
                    let alternatives = group
                        .iter()
                        .filter_map(|c| {
                            let r = c.schema.get("$ref")?.as_str()?;
                            Some(self.site(graph, &c.pointer_from(&at), r))
                        })
                        .collect();
                    body.unions.push(Union {
                        alternatives,
                        nodes: 0..0,
                        sites: 0..0,
                    });
                    body.unions.len() - 1
                });
                if let Some(u) = union {
                    stack.push(Step::Leave(u));
                }
                for child in group {
                    stack.push(Step::Node(child.schema, at.len(), Some(*child)));
                }
                if let Some(u) = union {
                    stack.push(Step::Enter(u));
                }
            }
        }
        body
    }

    fn site(&mut self, graph: &mut RefGraph, at: &str, reference: &str) -> usize {
        if let Some(i) = graph.site_at.get(at) {
            return *i;
        }
        let index = self
            .index
            .get_or_init(|| RefIndex::build(self.root, self.draft));
        let target = index
            .resolve(self.root, index.base_at(at), reference)
            .map(|ptr| match graph.ids.get(&ptr) {
                Some(id) => *id,
                None => {
                    let id = graph.pointers.len() as TargetId;
                    graph.ids.insert(ptr.clone(), id);
                    graph.pointers.push(ptr);
                    id
                }
            });
        graph.sites.push(Site {
            reference: reference.to_owned(),
            target,
        });
        graph.site_at.insert(at.to_owned(), graph.sites.len() - 1);
        graph.sites.len() - 1
    }
}

/// The keywords whose alternatives a cut `$ref` among them makes vacuous.
pub(crate) fn is_union(keyword: &str) -> bool {
    matches!(keyword, "anyOf" | "oneOf")
}
