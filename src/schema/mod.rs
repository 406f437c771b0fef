//! Facts about JSON Schema itself, independent of any projection rule: which keywords hold
//! subschemas (one table, so no rule re-implements traversal), which draft a document speaks,
//! and what kinds of instance a schema can be proven to accept.

pub mod draft;
pub mod graph;
pub mod keywords;
pub mod kinds;
pub mod malformed;
pub mod resolve;
pub mod walk;

pub use draft::Draft;
pub use keywords::{Keyword, Position, Slot};
pub use kinds::{Kind, KindSet};
pub use walk::{Child, Location, children, count_nodes};
