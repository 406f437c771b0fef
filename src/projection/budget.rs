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
        "projection stopped at {at}: it would emit more than {limit} schema nodes (a $ref expansion that multiplies, such as a ref bomb); refs being expanded: {}",
        chain_text(.chain)
    )]
    Budget {
        limit: usize,
        at: String,
        chain: Vec<String>,
    },
    #[error(
        "projection stopped at {at}: schemas nest deeper than {limit} levels; refs being expanded: {}",
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
