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

/// Schema nodes a full inlining would emit, computed per `$ref` target once (a DAG of refs
/// costs its size, not its expansion), so a ref bomb is refused before anything is built.
/// Recursive refs count once here; the walk itself still enforces the budget exactly.
pub(crate) struct Estimate<'a> {
    root: &'a Value,
    index: &'a RefIndex,
    sizes: HashMap<String, u64>,
    open: Vec<String>,
}

impl<'a> Estimate<'a> {
    pub(crate) fn new(root: &'a Value, index: &'a RefIndex) -> Estimate<'a> {
        Estimate {
            root,
            index,
            sizes: HashMap::new(),
            open: Vec::new(),
        }
    }

    /// The inlined size of the node at `ptr`, saturating; deep input is left to the walk's own
    /// depth limit (it counts as small here).
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
                let p = child.pointer_from(ptr);
                if child.keyword.position != crate::schema::Position::Definitions {
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

    fn target_size(&mut self, target: &str, depth: usize) -> u64 {
        if let Some(s) = self.sizes.get(target) {
            return *s;
        }
        if self.open.iter().any(|t| t == target) {
            return 1;
        }
        let Some(node) = self.root.pointer(target) else {
            return 1;
        };
        self.open.push(target.to_owned());
        let s = self.size(node, target, depth + 1);
        self.open.pop();
        self.sizes.insert(target.to_owned(), s);
        s
    }

    /// The refs along the heaviest path from `ptr`, for the error message.
    pub(crate) fn heaviest_chain(&mut self, mut node: &'a Value, mut ptr: String) -> Vec<String> {
        let mut chain = Vec::new();
        for _ in 0..64 {
            if let Some(target) = self.target_of(node, &ptr) {
                chain.push(node["$ref"].as_str().unwrap_or_default().to_owned());
                if chain
                    .iter()
                    .filter(|c| **c == chain[chain.len() - 1])
                    .count()
                    > 1
                {
                    break;
                }
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
                    let s = self.size(c.schema, &p, 0);
                    (s, c.schema, p)
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
