//! Limits that keep projection total (I-total): output size and nesting depth.

use thiserror::Error;

pub const DEFAULT_MAX_DEPTH: usize = 256;
const MIN_NODE_BUDGET: usize = 1_000_000;
const BUDGET_FACTOR: usize = 50;

/// The default node budget for an input of `input_nodes` JSON values: an honest inlining of a
/// large document fits, a ref bomb does not.
pub fn default_node_budget(input_nodes: usize) -> usize {
    input_nodes
        .saturating_mul(BUDGET_FACTOR)
        .max(MIN_NODE_BUDGET)
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
}

impl ProjectionError {
    /// The original pointer where projection stopped.
    pub fn pointer(&self) -> &str {
        match self {
            ProjectionError::Budget { at, .. } | ProjectionError::TooDeep { at, .. } => at,
        }
    }
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

use std::collections::HashMap;

use serde_json::Value;

use crate::schema::resolve::RefIndex;
use crate::schema::walk::children;

/// Schema nodes a full inlining would emit, so a ref bomb is refused before anything is built.
/// It follows the walk's own rules: a `$ref` target is expanded again while it is on the path
/// fewer than `unroll` times, and a result is shared per (target, path counts) state, so a DAG
/// of refs costs its size once. Every distinct state stands for at least one emitted node, so
/// counting states past the budget is itself proof that the budget would be exceeded.
pub(crate) struct Estimate<'a> {
    root: &'a Value,
    index: &'a RefIndex,
    unroll: Option<usize>,
    sizes: HashMap<String, u64>,
    path: Vec<String>,
    limit: u64,
}

impl<'a> Estimate<'a> {
    pub(crate) fn new(
        root: &'a Value,
        index: &'a RefIndex,
        unroll: Option<usize>,
        limit: usize,
    ) -> Estimate<'a> {
        Estimate {
            root,
            index,
            unroll,
            sizes: HashMap::new(),
            path: Vec::new(),
            limit: limit as u64,
        }
    }

    /// The inlined size of the node at `ptr`, saturating at just past the limit; deep input is
    /// left to the walk's own depth limit (it counts as small here).
    pub(crate) fn size(&mut self, node: &Value, ptr: &str, depth: usize) -> u64 {
        if depth > DEFAULT_MAX_DEPTH * 2 {
            return 1;
        }
        stacker::maybe_grow(64 * 1024, 1024 * 1024, || {
            let mut total: u64 = 1;
            if let Some(target) = self.target_of(node, ptr) {
                total = total.saturating_add(self.target_size(&target, depth));
            }
            for child in children(node) {
                if total > self.limit {
                    break;
                }
                if child.keyword.position != crate::schema::Position::Definitions {
                    let p = child.pointer_from(ptr);
                    total = total.saturating_add(self.size(child.schema, &p, depth + 1));
                }
            }
            total
        })
    }

    fn target_of(&self, node: &Value, ptr: &str) -> Option<String> {
        let r = node.get("$ref")?.as_str()?;
        self.index
            .resolve(self.root, self.index.base_at(ptr), r)
            .ok()
    }

    /// The state that decides how a target expands: the target and how often each target is
    /// already on the path.
    fn state(&self, target: &str) -> String {
        let mut counts: Vec<(&str, usize)> = Vec::new();
        for t in &self.path {
            match counts.iter_mut().find(|(k, _)| *k == t.as_str()) {
                Some((_, n)) => *n += 1,
                None => counts.push((t, 1)),
            }
        }
        counts.sort_unstable();
        let mut key = target.to_owned();
        for (t, n) in counts {
            key.push_str(&format!("\u{0}{t}\u{0}{n}"));
        }
        key
    }

    fn target_size(&mut self, target: &str, depth: usize) -> u64 {
        let on_path = self.path.iter().filter(|t| *t == target).count();
        let expands = match self.unroll {
            Some(levels) => on_path == 0 || on_path < levels,
            None => on_path == 0,
        };
        if !expands {
            return 1;
        }
        let key = self.state(target);
        if let Some(s) = self.sizes.get(&key) {
            return *s;
        }
        if self.sizes.len() as u64 > self.limit {
            return self.limit + 1;
        }
        let Some(node) = self.root.pointer(target) else {
            return 1;
        };
        self.path.push(target.to_owned());
        let s = self.size(node, target, depth + 1);
        self.path.pop();
        self.sizes.insert(key, s);
        s
    }

    /// The refs along the heaviest path from the root, for the error message.
    pub(crate) fn heaviest_chain(&mut self) -> Vec<String> {
        let mut chain = Vec::new();
        let mut node = self.root;
        let mut ptr = String::new();
        for _ in 0..64 {
            if let Some(target) = self.target_of(node, &ptr) {
                let reference = node["$ref"].as_str().unwrap_or_default().to_owned();
                if chain.contains(&reference) {
                    break;
                }
                chain.push(reference);
                let Some(next) = self.root.pointer(&target) else {
                    break;
                };
                node = next;
                ptr = target;
                continue;
            }
            let heaviest = children(node)
                .into_iter()
                .filter(|c| c.keyword.position != crate::schema::Position::Definitions)
                .map(|c| {
                    let p = c.pointer_from(&ptr);
                    (self.size(c.schema, &p, 0), c.schema, p)
                })
                .max_by_key(|(s, _, _)| *s);
            match heaviest {
                Some((_, n, p)) => {
                    node = n;
                    ptr = p;
                }
                None => break,
            }
        }
        chain
    }
}
