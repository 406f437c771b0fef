//! A projection as `project` writes it. A `$ref` target inlined at many places is projected
//! once and, in inline mode, held once: each place holds a stand-in, and the writer serializes
//! the shared projection there. Copying it to each place was the largest part of projecting a
//! large schema (the GitHub components schema inlines its common definitions thousands of
//! times), and the copies made most of the memory.

use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};
use serde_json::Value;

use super::cancel::Cancel;
use super::out::Notes;
use super::trace::TraceEntry;
use super::{Projection, ProjectionError};

/// A projected schema and its trace, without links.
#[derive(Debug)]
pub struct Written {
    pub schema: WrittenSchema,
    pub trace: Vec<TraceEntry>,
}

impl From<Projection> for Written {
    fn from(projection: Projection) -> Written {
        Written {
            schema: WrittenSchema::from(projection.schema),
            trace: projection.trace,
        }
    }
}

/// A projected schema that serializes exactly as its materialized `serde_json::Value` does.
#[derive(Debug)]
pub struct WrittenSchema {
    value: Value,
    /// Where stand-ins are, and what stands there (only shared notes).
    shared: Notes,
}

impl WrittenSchema {
    pub(crate) fn new(value: Value, shared: Notes) -> WrittenSchema {
        WrittenSchema { value, shared }
    }

    /// The schema as one value, every shared part copied into its places.
    pub fn into_value(self) -> Value {
        let mut value = self.value;
        // Never cancelled, so always whole.
        let _ = self.shared.materialize(&mut value, &Cancel::never());
        value
    }

    /// Whether some part is shared (written at several places).
    pub(crate) fn shares(&self) -> bool {
        !self.shared.children().is_empty() || self.shared.shared_here().is_some()
    }

    /// Whether the materialized schema equals `other` (copies only when parts are shared).
    pub fn equals(&self, other: &Value) -> bool {
        if !self.shares() {
            return self.value == *other;
        }
        let copy = WrittenSchema {
            value: self.value.clone(),
            shared: self.shared.clone(),
        };
        copy.into_value() == *other
    }
}

impl From<Value> for WrittenSchema {
    fn from(value: Value) -> WrittenSchema {
        WrittenSchema {
            value,
            shared: Notes::default(),
        }
    }
}

impl Serialize for WrittenSchema {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        Node {
            value: &self.value,
            notes: vec![&self.shared],
        }
        .serialize(serializer)
    }
}

/// A node of the materialized schema: `value`, or the shared projection standing in its place,
/// with the notes that say where further stand-ins are below it (a token may repeat among a
/// node's children, so there may be several).
struct Node<'a> {
    value: &'a Value,
    notes: Vec<&'a Notes>,
}

/// Above this many children a node's notes are looked up by token through a map, so that a
/// wide object whose properties are mostly stand-ins is not searched once per property.
const SCAN_LIMIT: usize = 16;

impl Node<'_> {
    fn child<'b>(&'b self, value: &'b Value, notes: Vec<&'b Notes>) -> Node<'b> {
        Node { value, notes }
    }
}

/// The notes under each token of `notes`' children.
fn children_by_token<'a>(notes: &[&'a Notes]) -> ChildNotes<'a> {
    let count: usize = notes.iter().map(|n| n.children().len()).sum();
    let all = notes.iter().flat_map(|n| n.children().iter());
    if count <= SCAN_LIMIT {
        return ChildNotes::Few(all.map(|(t, c)| (t.as_str(), c)).collect());
    }
    let mut map: std::collections::HashMap<&'a str, Vec<&'a Notes>> = Default::default();
    for (token, child) in all {
        map.entry(token.as_str()).or_default().push(child);
    }
    ChildNotes::Many(map)
}

enum ChildNotes<'a> {
    Few(Vec<(&'a str, &'a Notes)>),
    Many(std::collections::HashMap<&'a str, Vec<&'a Notes>>),
}

impl<'a> ChildNotes<'a> {
    fn get(&self, token: &str) -> Vec<&'a Notes> {
        match self {
            ChildNotes::Few(all) => all
                .iter()
                .filter(|(t, _)| *t == token)
                .map(|(_, c)| *c)
                .collect(),
            ChildNotes::Many(map) => map.get(token).cloned().unwrap_or_default(),
        }
    }
}

impl Serialize for Node<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut value = self.value;
        let mut notes = self.notes.clone();
        while let Some(shared) = notes.iter().find_map(|n| n.shared_here()) {
            value = &shared.value;
            notes = vec![&shared.notes];
        }
        if notes.iter().all(|n| n.children().is_empty()) {
            return value.serialize(serializer);
        }
        let below = children_by_token(&notes);
        // The same calls as `Value`'s own `Serialize`, so the same bytes.
        match value {
            Value::Object(entries) => {
                let mut map = serializer.serialize_map(Some(entries.len()))?;
                for (key, child) in entries {
                    map.serialize_entry(key, &self.child(child, below.get(key)))?;
                }
                map.end()
            }
            Value::Array(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for (i, item) in items.iter().enumerate() {
                    seq.serialize_element(&self.child(item, below.get(&i.to_string())))?;
                }
                seq.end()
            }
            other => other.serialize(serializer),
        }
    }
}

/// [`super::project_linking`] without links, for a caller that writes the schema out.
pub fn project_written(
    schema: &Value,
    options: &super::Options,
) -> Result<Written, ProjectionError> {
    super::engine::Engine::new(schema, options).run_written()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::projection::{Options, project};

    /// Definitions reused at several places, through an alias, under an array, beside
    /// annotations that override the target's, and at the root.
    fn schemas() -> Vec<Value> {
        let defs = json!({
            "A": {
                "type": "object",
                "properties": {
                    "b": {"$ref": "#/$defs/B"},
                    "c": {"oneOf": [{"$ref": "#/$defs/B"}, {"type": "null"}]}
                }
            },
            "B": {"type": "string", "description": "b"},
            "Alias": {"$ref": "#/$defs/A"},
            "Tree": {"type": "object", "properties": {"kids": {"items": {"$ref": "#/$defs/Tree"}}}}
        });
        vec![
            json!({
                "type": "object",
                "properties": {
                    "x": {"$ref": "#/$defs/A"},
                    "y": {"$ref": "#/$defs/A", "description": "own"},
                    "z": {"$ref": "#/$defs/Alias"},
                    "w": {"items": {"$ref": "#/$defs/Alias"}},
                    "t": {"$ref": "#/$defs/Tree"},
                    "u": {"anyOf": [{"$ref": "#/$defs/Tree"}, {"$ref": "#/$defs/A"}]}
                },
                "$defs": defs.clone()
            }),
            json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "$ref": "#/$defs/Alias", "$defs": defs}),
        ]
    }

    #[test]
    fn a_written_projection_prints_and_traces_as_the_projection() {
        for schema in schemas() {
            for options in [Options::inline(), Options::flat()] {
                let projected = project(&schema, &options).expect("projects");
                let written = project_written(&schema, &options).expect("projects");
                assert_eq!(
                    serde_json::to_string_pretty(&written.schema).expect("serializes"),
                    serde_json::to_string_pretty(&projected.schema).expect("serializes"),
                );
                assert_eq!(
                    serde_json::to_value(&written.trace).expect("serializes"),
                    serde_json::to_value(&projected.trace).expect("serializes"),
                );
                assert!(written.schema.equals(&projected.schema));
                assert_eq!(written.schema.into_value(), projected.schema);
            }
        }
    }

    #[test]
    fn both_modes_share_reused_expansions() {
        for options in [Options::inline(), Options::flat()] {
            let written = project_written(&schemas()[0], &options).expect("projects");
            assert!(written.schema.shares(), "{:?}", options.mode);
        }
    }
}
