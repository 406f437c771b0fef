//! A schema as a tree of rows: built once per (re)projection from the engine's own subschema
//! walker, with each node's highlights and trace entries attached, so that rendering and
//! navigation never look at the trace again.

use std::hash::BuildHasher;

use hashbrown::HashTable;
use ratatui::text::{Line, Span};
use serde_json::Value;

use schemalens::lint::Severity;
use schemalens::pointer;
use schemalens::projection::{Detail, TraceEntry};
use schemalens::schema::{Child, Location, Position, children};

use super::text::{clip, escape, json_inline};
use super::theme::{Mark, Theme, severity_glyph};

pub type NodeId = u32;

/// Deeper nesting is not shown: the tree widget flattens recursively, and no one reads a
/// schema 100 levels down in a tree anyway (the JSON in the detail pane still has it).
const MAX_DEPTH: usize = 100;
/// Keeps a pathological document from turning into millions of rows.
const MAX_NODES: usize = 200_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Original,
    Projection,
}

impl Side {
    pub fn index(self) -> usize {
        match self {
            Side::Original => 0,
            Side::Projection => 1,
        }
    }

    pub fn other(self) -> Side {
        match self {
            Side::Original => Side::Projection,
            Side::Projection => Side::Original,
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            Side::Original => "Original",
            Side::Projection => "Projection",
        }
    }
}

/// A tree row's data. Its text is held as boxed strings, built once and never grown: a
/// `String` carries a capacity word, and 225 k nodes (GitHub's components schema, both
/// trees) hold five of them each.
#[derive(Debug, Clone)]
pub struct Node {
    /// RFC 6901, within the tool's parameter schema.
    pub pointer: Box<str>,
    pub parent: Option<NodeId>,
    pub children: Vec<NodeId>,
    /// Property name, or the keyword position (`anyOf[0]`, `items`, `$defs/User`); escaped.
    pub name: Box<str>,
    /// True for a property name, false for a structural position.
    pub is_property: bool,
    pub required: bool,
    /// The type column: `string`, `string|null`, `→ #/$defs/User`, `oneOf×2 by kind`.
    pub kind: Box<str>,
    pub constraints: Box<str>,
    pub description: Option<Box<str>>,
    /// Sorted by [`Mark`] priority, without repeats.
    pub marks: Vec<Mark>,
    /// Indices into the projection's trace: entries produced at this node (projection side) or
    /// that came from it (original side).
    pub entries: Vec<usize>,
}

impl Node {
    /// Whether `needle` (lower-cased) is in the node's name, type, constraints, description
    /// or pointer, ignoring case: what `/` searches. Lower-cased on the fly rather than kept:
    /// a lower-cased copy of every node's text doubled the text a big tree holds.
    pub fn matches(&self, needle: &str) -> bool {
        let fields = [
            &*self.name,
            &*self.kind,
            &*self.constraints,
            self.description.as_deref().unwrap_or(""),
            &*self.pointer,
        ];
        fields.iter().any(|f| contains_lowercased(f, needle))
    }
}

/// Whether `text`, lower-cased, contains `needle`; without allocating for ASCII text, where
/// lower-casing is byte by byte.
fn contains_lowercased(text: &str, needle: &str) -> bool {
    if needle.is_empty() {
        return true;
    }
    if text.is_ascii() {
        return text
            .as_bytes()
            .windows(needle.len())
            .any(|w| w.eq_ignore_ascii_case(needle.as_bytes()));
    }
    text.to_lowercase().contains(needle)
}

#[derive(Debug, Clone, Default)]
pub struct SchemaTree {
    pub nodes: Vec<Node>,
    /// Node ids by pointer, hashed from each node's own pointer: a map keyed by pointer kept a
    /// second copy of every one (225 k of them for GitHub's components schema).
    index: HashTable<NodeId>,
    /// Seeded per process, so a crafted document cannot aim at collisions.
    hasher: foldhash::fast::RandomState,
    /// Every mark some node carries, in priority order: the legend reads it at every frame,
    /// and collecting it from 200 k nodes took most of a frame's time.
    present: Vec<Mark>,
    /// Nodes were left out (too many or too deep).
    pub truncated: bool,
}

struct Pending<'a> {
    schema: &'a Value,
    pointer: String,
    parent: Option<NodeId>,
    name: String,
    is_property: bool,
    required: bool,
    depth: usize,
}

/// Boolean `additionalProperties: false` and friends read better as a constraint of the
/// parent ("closed") than as a row of their own.
fn shown_as_constraint(child: &Child<'_>) -> bool {
    child.schema.is_boolean()
        && matches!(
            child.keyword.name,
            "additionalProperties"
                | "unevaluatedProperties"
                | "unevaluatedItems"
                | "additionalItems"
        )
}

fn child_name(child: &Child<'_>) -> (String, bool) {
    let kw = child.keyword.name;
    match child.location {
        Location::Key(k) if kw == "properties" => (escape(k).into_owned(), true),
        Location::Key(k) => (format!("{kw}/{}", escape(k)), false),
        Location::Index(i) if kw == "items" || kw == "prefixItems" => (format!("[{i}]"), false),
        Location::Index(i) => (format!("{kw}[{i}]"), false),
        Location::Direct => (kw.to_owned(), false),
    }
}

impl SchemaTree {
    /// Builds the tree of `schema`; `trace` (empty for a failed projection) supplies marks.
    pub fn build(schema: &Value, side: Side, trace: &[TraceEntry], root_name: &str) -> SchemaTree {
        Self::build_until(schema, side, trace, root_name, &|| false)
            .unwrap_or_else(|| unreachable!("never stopped"))
    }

    /// [`build`](Self::build), given up (`None`) as soon as `stop` says so: a 200 k-node tree
    /// takes half a second, which a superseded request should not spend.
    pub fn build_until(
        schema: &Value,
        side: Side,
        trace: &[TraceEntry],
        root_name: &str,
        stop: &dyn Fn() -> bool,
    ) -> Option<SchemaTree> {
        /// Nodes built between two looks at `stop`: a look costs an atomic load or two.
        const LOOK_EVERY: usize = 1024;
        let mut tree = SchemaTree::default();
        let mut schemas: Vec<&Value> = Vec::new();
        // Explicit stack: documents can nest deeper than the thread's stack would allow.
        let mut stack = vec![Pending {
            schema,
            pointer: String::new(),
            parent: None,
            name: escape(root_name).into_owned(),
            is_property: false,
            required: false,
            depth: 0,
        }];
        while let Some(p) = stack.pop() {
            if tree.nodes.len() >= MAX_NODES {
                tree.truncated = true;
                break;
            }
            if tree.nodes.len() % LOOK_EVERY == LOOK_EVERY - 1 && stop() {
                return None;
            }
            let id = tree.nodes.len() as NodeId;
            if let Some(parent) = p.parent {
                tree.nodes[parent as usize].children.push(id);
            }
            let required: Vec<&str> = p
                .schema
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let kids = children(p.schema);
            if p.depth >= MAX_DEPTH && !kids.is_empty() {
                tree.truncated = true;
            } else {
                let mut pending = Vec::new();
                // Definitions apply only through `$ref`; what the schema itself says comes
                // first, so a small terminal shows properties rather than `$defs`.
                let (defs, applied): (Vec<&Child<'_>>, Vec<&Child<'_>>) = kids
                    .iter()
                    .filter(|c| !shown_as_constraint(c))
                    .partition(|c| c.keyword.position == Position::Definitions);
                for child in applied.into_iter().chain(defs) {
                    let (name, is_property) = child_name(child);
                    let required = match child.location {
                        Location::Key(k) if is_property => required.contains(&k),
                        _ => false,
                    };
                    pending.push(Pending {
                        schema: child.schema,
                        pointer: child.pointer_from(&p.pointer),
                        parent: Some(id),
                        name,
                        is_property,
                        required,
                        depth: p.depth + 1,
                    });
                }
                stack.extend(pending.into_iter().rev());
            }
            tree.nodes.push(Node {
                pointer: p.pointer.into_boxed_str(),
                parent: p.parent,
                children: Vec::new(),
                name: p.name.into_boxed_str(),
                is_property: p.is_property,
                required: p.required,
                kind: Box::default(),
                constraints: constraints(p.schema).into_boxed_str(),
                description: p
                    .schema
                    .get("description")
                    .and_then(Value::as_str)
                    .map(|d| escape(d).into()),
                marks: Vec::new(),
                entries: Vec::new(),
            });
            tree.index_last();
            schemas.push(p.schema);
        }
        if stop() {
            return None;
        }
        tree.attach_trace(side, trace);
        for (node, schema) in tree.nodes.iter_mut().zip(schemas) {
            let by = node.entries.iter().find_map(|&i| match &trace[i].detail {
                Detail::UnionFlattened { property, .. } => Some(property.as_str()),
                _ => None,
            });
            node.kind = kind(schema, by).into_boxed_str();
            // Grown by pushes during the walk; kept as long as the view.
            node.children.shrink_to_fit();
        }
        // Grown by doubling: up to half of it would be kept unused as long as the view.
        tree.nodes.shrink_to_fit();
        Some(tree)
    }

    fn attach_trace(&mut self, side: Side, trace: &[TraceEntry]) {
        for (i, entry) in trace.iter().enumerate() {
            let mut targets: Vec<NodeId> = match side {
                Side::Projection => self.nearest(&entry.at).into_iter().collect(),
                Side::Original => entry.from.iter().filter_map(|f| self.nearest(f)).collect(),
            };
            targets.sort_unstable();
            targets.dedup();
            for t in targets {
                let node = &mut self.nodes[t as usize];
                node.entries.push(i);
                if let Some(mark) = Mark::of(&entry.detail)
                    && !node.marks.contains(&mark)
                {
                    node.marks.push(mark);
                }
            }
        }
        for node in &mut self.nodes {
            // A flattened union has no oneOf or discriminator left to speak of.
            if node.marks.contains(&Mark::Flattened) {
                node.marks.retain(|m| *m != Mark::Rewritten);
            }
            node.marks.sort_unstable();
            for &mark in &node.marks {
                if !self.present.contains(&mark) {
                    self.present.push(mark);
                }
            }
        }
        self.present.sort_unstable();
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id as usize]
    }

    pub fn find(&self, pointer: &str) -> Option<NodeId> {
        let nodes = &self.nodes;
        self.index
            .find(self.hasher.hash_one(pointer), |&id| {
                *nodes[id as usize].pointer == *pointer
            })
            .copied()
    }

    /// Indexes the node just added under its pointer (a later node with the same pointer
    /// takes its place, as a map's insert would).
    fn index_last(&mut self) {
        let SchemaTree {
            nodes,
            index,
            hasher,
            ..
        } = self;
        let Some(last) = nodes.len().checked_sub(1) else {
            return;
        };
        let pointer = &*nodes[last].pointer;
        let pointer_of = |&id: &NodeId| &*nodes[id as usize].pointer;
        match index.entry(
            hasher.hash_one(pointer),
            |id| pointer_of(id) == pointer,
            |id| hasher.hash_one(pointer_of(id)),
        ) {
            hashbrown::hash_table::Entry::Occupied(mut found) => *found.get_mut() = last as NodeId,
            hashbrown::hash_table::Entry::Vacant(slot) => {
                slot.insert(last as NodeId);
            }
        }
    }

    /// The node at `pointer`, or its closest ancestor that is a node (trace pointers may name a
    /// keyword such as `/oneOf` or `/discriminator` rather than a subschema).
    pub fn nearest(&self, pointer: &str) -> Option<NodeId> {
        let mut p = pointer;
        loop {
            if let Some(id) = self.find(p) {
                return Some(id);
            }
            p = pointer::parent(p)?;
        }
    }

    /// Identifiers from the root down to `id`: the tree widget's address of the node.
    pub fn path(&self, id: NodeId) -> Vec<NodeId> {
        let mut path = vec![id];
        let mut cur = id;
        while let Some(parent) = self.nodes[cur as usize].parent {
            path.push(parent);
            cur = parent;
        }
        path.reverse();
        path
    }

    /// Every mark that occurs in the tree, in priority order.
    pub fn marks(&self) -> &[Mark] {
        &self.present
    }

    /// Row `id` as the tree pane shows it, led by the worst lint finding on the node; made
    /// for the rows on screen only, at each frame.
    pub fn row(&self, id: NodeId, lint: Option<Severity>, theme: Theme) -> Line<'static> {
        row(self.node(id), lint, theme)
    }
}

/// One row: `lint marks name* type (children) constraints`.
fn row(node: &Node, lint: Option<Severity>, theme: Theme) -> Line<'static> {
    let mut spans = Vec::new();
    if let Some(severity) = lint {
        spans.push(Span::styled(
            severity_glyph(severity),
            theme.severity(severity),
        ));
        spans.push(Span::raw(" "));
    }
    for &mark in &node.marks {
        spans.push(Span::styled(mark.glyph(), theme.mark(mark)));
    }
    if !node.marks.is_empty() {
        spans.push(Span::raw(" "));
    }
    let name_style = match node.marks.first() {
        Some(&m) => theme.mark(m),
        None if node.is_property => ratatui::style::Style::new(),
        None => theme.structural(),
    };
    spans.push(Span::styled(node.name.to_string(), name_style));
    if node.required {
        spans.push(Span::styled("*", theme.required()));
    }
    spans.push(Span::raw("  "));
    spans.push(Span::styled(node.kind.to_string(), theme.kind()));
    if !node.children.is_empty() {
        spans.push(Span::styled(
            format!(" ({})", node.children.len()),
            theme.dim(),
        ));
    }
    if !node.constraints.is_empty() {
        spans.push(Span::raw("  "));
        spans.push(Span::styled(node.constraints.to_string(), theme.dim()));
    }
    Line::from(spans)
}

/// The type column of a schema, as a reader of the schema would name it.
pub fn kind(schema: &Value, union_property: Option<&str>) -> String {
    let map = match schema {
        Value::Bool(true) => return "any (true)".to_owned(),
        Value::Bool(false) => return "nothing (false)".to_owned(),
        Value::Object(map) => map,
        _ => return "not a schema".to_owned(),
    };
    let mut parts: Vec<String> = Vec::new();
    if let Some(r) = map.get("$ref").and_then(Value::as_str) {
        parts.push(format!("→ {}", clip(r, 60)));
    }
    match map.get("type") {
        Some(Value::String(t)) => parts.push(clip(t, 20)),
        Some(Value::Array(ts)) => parts.push(
            ts.iter()
                .map(|t| t.as_str().map_or_else(|| t.to_string(), |s| clip(s, 20)))
                .collect::<Vec<_>>()
                .join("|"),
        ),
        _ => {
            let inferred = if map.contains_key("const") {
                Some("const")
            } else if map.contains_key("enum") {
                Some("enum")
            } else if map.contains_key("properties") || map.contains_key("patternProperties") {
                Some("object")
            } else if map.contains_key("items") || map.contains_key("prefixItems") {
                Some("array")
            } else {
                None
            };
            parts.extend(inferred.map(str::to_owned));
        }
    }
    for kw in ["oneOf", "anyOf", "allOf"] {
        if let Some(Value::Array(branches)) = map.get(kw) {
            let mut s = format!("{kw}×{}", branches.len());
            let declared = map
                .get("discriminator")
                .and_then(|d| d.get("propertyName"))
                .and_then(Value::as_str);
            if kw != "allOf"
                && let Some(d) = declared.or(union_property)
            {
                s.push_str(&format!(" by {}", clip(d, 30)));
            }
            parts.push(s);
        }
    }
    if parts.is_empty() {
        let constrains = map
            .keys()
            .any(|k| !schemalens::schema::keywords::is_annotation(k) && !k.starts_with('$'));
        parts.push(if constrains { "schema" } else { "any" }.to_owned());
    }
    parts.join(" ")
}

fn num(map: &serde_json::Map<String, Value>, key: &str) -> Option<String> {
    map.get(key).filter(|v| v.is_number()).map(Value::to_string)
}

/// The constraints worth reading in a row; the rest is in the detail pane's JSON.
pub fn constraints(schema: &Value) -> String {
    let Some(map) = schema.as_object() else {
        return String::new();
    };
    let mut out: Vec<String> = Vec::new();
    if let Some(c) = map.get("const") {
        out.push(format!("= {}", json_inline(c, 30)));
    }
    if let Some(Value::Array(values)) = map.get("enum") {
        let shown: Vec<String> = values.iter().take(6).map(|v| json_inline(v, 20)).collect();
        let more = if values.len() > 6 { ", …" } else { "" };
        out.push(format!("∈ [{}{more}]", shown.join(", ")));
    }
    if let Some(f) = map.get("format").and_then(Value::as_str) {
        out.push(format!("format:{}", clip(f, 20)));
    }
    if let Some(p) = map.get("pattern").and_then(Value::as_str) {
        out.push(format!("/{}/", clip(p, 30)));
    }
    let ranges = [
        ("minLength", "len≥"),
        ("maxLength", "len≤"),
        ("minimum", "≥"),
        ("exclusiveMinimum", ">"),
        ("maximum", "≤"),
        ("exclusiveMaximum", "<"),
        ("multipleOf", "×"),
        ("minItems", "items≥"),
        ("maxItems", "items≤"),
        ("minProperties", "props≥"),
        ("maxProperties", "props≤"),
    ];
    for (key, prefix) in ranges {
        if let Some(n) = num(map, key) {
            out.push(format!("{prefix}{n}"));
        }
    }
    if map.get("uniqueItems") == Some(&Value::Bool(true)) {
        out.push("unique".to_owned());
    }
    if map.get("additionalProperties") == Some(&Value::Bool(false))
        || map.get("unevaluatedProperties") == Some(&Value::Bool(false))
    {
        out.push("closed".to_owned());
    }
    if map.get("nullable") == Some(&Value::Bool(true)) {
        out.push("nullable".to_owned());
    }
    if let Some(d) = map.get("default") {
        out.push(format!("default={}", json_inline(d, 20)));
    }
    if map.get("deprecated") == Some(&Value::Bool(true)) {
        out.push("deprecated".to_owned());
    }
    out.join("  ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_marks_present_are_every_node_s_marks_in_priority_order() {
        let schema: Value = serde_json::from_str(
            &std::fs::read_to_string(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/samples/scalar-collisions.json"
            ))
            .unwrap(),
        )
        .unwrap();
        let projection = schemalens::project(&schema, &schemalens::Options::flat()).unwrap();
        for (side, tree_of) in [
            (Side::Original, &schema),
            (Side::Projection, &projection.schema),
        ] {
            let tree = SchemaTree::build(tree_of, side, &projection.trace, "root");
            let mut every: Vec<Mark> = tree
                .nodes
                .iter()
                .flat_map(|n| n.marks.iter().copied())
                .collect();
            every.sort_unstable();
            every.dedup();
            assert!(every.len() > 1, "{side:?}: {every:?}");
            assert_eq!(tree.marks(), every, "{side:?}");
        }
    }

    #[test]
    fn every_node_is_found_by_its_pointer_and_nothing_else_is() {
        let schema = json!({
            "type": "object",
            "properties": {
                "a/b": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                "c~d": {"type": "array", "items": {"$ref": "#/$defs/E"}},
                "": {"type": "integer"}
            },
            "$defs": {"E": {"properties": {"f": {"type": "boolean"}}}}
        });
        let tree = SchemaTree::build(&schema, Side::Original, &[], "root");
        assert!(tree.nodes.len() > 8);
        for (id, node) in tree.nodes.iter().enumerate() {
            assert_eq!(
                tree.find(&node.pointer),
                Some(id as NodeId),
                "{}",
                node.pointer
            );
        }
        assert_eq!(tree.find("/properties/a~1b/anyOf/0"), Some(2));
        assert_eq!(tree.find("/properties/a/b"), None);
        assert_eq!(tree.find("/properties/nope"), None);
        assert_eq!(tree.nearest("/properties/nope"), Some(0));
    }

    #[test]
    fn search_ignores_case_in_every_field_ascii_or_not() {
        let schema = json!({"properties": {"Größe": {"type": "integer", "minimum": 3,
            "description": "Height in CM"}}});
        let tree = SchemaTree::build(&schema, Side::Original, &[], "root");
        let node = tree.node(tree.find("/properties/Größe").unwrap());
        for needle in [
            "grö",
            "GRÖ",
            "größe",
            "integer",
            "≥",
            "height in cm",
            "/properties/gr",
        ] {
            let needle = needle.to_lowercase();
            assert!(node.matches(&needle), "{needle}");
        }
        assert!(!node.matches("cm height"));
        assert!(!tree.node(0).matches("grö"), "the root's own text only");
    }

    #[test]
    fn kinds_read_like_a_schema() {
        assert_eq!(
            kind(&json!({"type": ["string", "null"]}), None),
            "string|null"
        );
        assert_eq!(kind(&json!({"$ref": "#/$defs/A"}), None), "→ #/$defs/A");
        assert_eq!(
            kind(
                &json!({"oneOf": [{}, {}], "discriminator": {"propertyName": "kind"}}),
                None
            ),
            "oneOf×2 by kind"
        );
        assert_eq!(
            kind(&json!({"anyOf": [{}, {}, {}]}), Some("op")),
            "anyOf×3 by op"
        );
        assert_eq!(kind(&json!({}), None), "any");
        assert_eq!(kind(&json!({"const": "x"}), None), "const");
    }

    #[test]
    fn tree_is_built_in_document_order_with_required_marks() {
        let schema = json!({
            "type": "object",
            "required": ["b"],
            "additionalProperties": false,
            "properties": {"a": {"type": "string"}, "b": {"items": {"type": "integer"}}}
        });
        let tree = SchemaTree::build(&schema, Side::Original, &[], "root");
        let rows: Vec<(&str, &str, bool)> = tree
            .nodes
            .iter()
            .map(|n| (&*n.pointer, &*n.name, n.required))
            .collect();
        assert_eq!(
            rows,
            vec![
                ("", "root", false),
                ("/properties/a", "a", false),
                ("/properties/b", "b", true),
                ("/properties/b/items", "items", false),
            ]
        );
        assert_eq!(&*tree.nodes[0].constraints, "closed");
        assert_eq!(tree.path(3), vec![0, 2, 3]);
        assert_eq!(tree.nearest("/properties/b/items/oneOf"), Some(3));
    }

    #[test]
    fn deep_documents_do_not_overflow() {
        let mut schema = json!({"type": "string"});
        for _ in 0..5000 {
            // Not `json!`: it would serialize (recursively) the value it nests.
            let mut map = serde_json::Map::new();
            map.insert("items".to_owned(), schema);
            schema = Value::Object(map);
        }
        let tree = SchemaTree::build(&schema, Side::Original, &[], "root");
        assert!(tree.truncated);
        assert_eq!(tree.nodes.len(), MAX_DEPTH + 1);
        // serde_json drops deep values recursively; leak to keep the test about our code.
        std::mem::forget(schema);
    }
}
