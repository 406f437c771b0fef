//! The generic checks of [`super::rule::Check`]: each turns a schema (or a tool list) into the
//! places it matches. Nothing here knows about providers.

use std::cell::{OnceCell, RefCell};
use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use super::nodes::{self, Node};
use super::ollama::{self, OllamaView};
use super::rule::{Check, Counted, Limit, NamePattern, RootTypeCase, Where};
use super::shapes::{self, Class, FastHash};
use super::text::{self, py_set, short_json};
use crate::pointer;
use crate::schema::Kind;

/// One place a check matched.
#[derive(Debug, Clone, Default)]
pub(crate) struct Hit {
    /// The schema the finding is about.
    pub pointer: String,
    /// The keyword inside that schema, when the finding is about one.
    pub keyword: Option<String>,
    /// What exactly is wrong, for `{detail}`.
    pub detail: String,
    /// A second value for templates (`{item}`): a property name, an index, a `$ref` target.
    pub item: String,
}

impl Hit {
    fn at(pointer: &str, detail: impl Into<String>) -> Hit {
        Hit {
            pointer: pointer.to_owned(),
            detail: detail.into(),
            ..Hit::default()
        }
    }

    fn keyword(mut self, keyword: &str) -> Hit {
        self.keyword = Some(keyword.to_owned());
        self
    }

    fn item(mut self, item: impl Into<String>) -> Hit {
        self.item = item.into();
        self
    }
}

/// One parameter schema, prepared once for every rule of a profile.
pub(crate) struct SchemaCx<'a> {
    pub root: &'a Value,
    pub nodes: Vec<Node<'a>>,
    /// Node by the address of its schema value, for finding a pointer's node; made when a
    /// pointer is first looked up (most lints of a large projection look up none, or the
    /// root only).
    by_value: OnceCell<HashMap<*const Value, usize, FastHash>>,
    /// Each node's pointer, written when first asked for (with its ancestors'): the hits at
    /// the copies of a subtree ask for many, each from its parent's, and the nodes no finding
    /// names never get one.
    pointers: OnceCell<Vec<OnceCell<String>>>,
    ollama: OnceCell<OllamaView>,
    /// The nodes grouped by equal subtrees, made when a node-local rule first runs.
    classes: OnceCell<Vec<Class>>,
    /// Gemini proto paths by pointer: numbering a map entry scans the map, and a big
    /// `$defs` would otherwise be scanned once per finding.
    proto: RefCell<HashMap<String, String>>,
}

impl<'a> SchemaCx<'a> {
    pub fn new(root: &'a Value) -> SchemaCx<'a> {
        SchemaCx {
            root,
            nodes: nodes::collect(root),
            by_value: OnceCell::new(),
            pointers: OnceCell::new(),
            ollama: OnceCell::new(),
            classes: OnceCell::new(),
            proto: RefCell::new(HashMap::new()),
        }
    }

    /// The pointer of node `i`.
    pub fn pointer(&self, i: usize) -> &str {
        let cells = self
            .pointers
            .get_or_init(|| (0..self.nodes.len()).map(|_| OnceCell::new()).collect());
        if let Some(done) = cells[i].get() {
            return done;
        }
        // The ancestors without a pointer yet, nearest first; then each written from its
        // parent's, from the top down (no recursion: nodes can nest as deep as the input).
        let mut missing = vec![i];
        while let Some(p) = self.nodes[*missing.last().expect("starts with i")].parent {
            if cells[p].get().is_some() {
                break;
            }
            missing.push(p);
        }
        for &n in missing.iter().rev() {
            let node = &self.nodes[n];
            let parent = node
                .parent
                .and_then(|p| cells[p].get())
                .map_or("", String::as_str);
            let mut at = String::with_capacity(parent.len() + 24);
            at.push_str(parent);
            node.push_step(&mut at);
            let _ = cells[n].set(at);
        }
        cells[i].get().map_or("", String::as_str)
    }

    pub fn proto_path(&self, at: &str) -> String {
        self.proto
            .borrow_mut()
            .entry(at.to_owned())
            .or_insert_with(|| text::proto_path(self.root, at))
            .clone()
    }

    /// The nodes by equal subtree (see `shapes`), shared by every profile linting this schema.
    pub fn classes(&self) -> &[Class] {
        self.classes.get_or_init(|| shapes::classes(&self.nodes))
    }

    pub fn ollama(&self) -> &OllamaView {
        self.ollama.get_or_init(|| ollama::view(self.root))
    }

    /// The Ollama view, moved out (a projection's is as large as the projection).
    pub fn take_ollama(&mut self) -> OllamaView {
        self.ollama
            .take()
            .unwrap_or_else(|| ollama::view(self.root))
    }

    /// The node whose pointer is exactly `at` (written as the nodes' pointers are: a pointer
    /// that only resolves to a node, with an unneeded escape say, names none).
    pub fn find(&self, at: &str) -> Option<usize> {
        if at.is_empty() {
            return Some(0);
        }
        let value = resolve(self.root, at)?;
        let by_value = self.by_value.get_or_init(|| {
            self.nodes
                .iter()
                .enumerate()
                .map(|(i, n)| (n.schema as *const Value, i))
                .collect()
        });
        let i = *by_value.get(&(value as *const Value))?;
        (self.pointer(i) == at).then_some(i)
    }

    /// The schema holding `at` and the keyword `at` lies under, for locations inside a
    /// keyword's value (`/required`, `/properties/a/exclusiveMinimum`).
    pub fn locate(&self, at: &str) -> (String, Option<String>) {
        let mut current = at;
        let mut below: Option<&str> = None;
        loop {
            if self.find(current).is_some() {
                let keyword = below.map(|b| {
                    let rest = &b[current.len()..];
                    let token = rest.trim_start_matches('/').split('/').next();
                    pointer::unescape(token.unwrap_or_default()).into_owned()
                });
                return (current.to_owned(), keyword);
            }
            match pointer::parent(current) {
                Some(parent) => {
                    below = Some(current);
                    current = parent;
                }
                None => return (String::new(), None),
            }
        }
    }

    /// Document order of a schema pointer (unknown pointers sort last).
    pub fn order(&self, at: &str) -> usize {
        self.find(at).unwrap_or(usize::MAX)
    }
}

/// [`Value::pointer`], without copying the tokens that have no escape in them: the lint
/// looks up a pointer for each hit of a rule that reads the whole schema, at every copy of an
/// inlined definition, and copying each token of a deep pointer cost more than the lookup.
pub(super) fn resolve<'v>(root: &'v Value, at: &str) -> Option<&'v Value> {
    if at.is_empty() {
        return Some(root);
    }
    at.strip_prefix('/')?
        .split('/')
        .try_fold(root, |target, token| {
            let token = crate::pointer::unescape(token);
            match target {
                Value::Object(map) => map.get(token.as_ref()),
                Value::Array(list) => array_index(&token).and_then(|i| list.get(i)),
                _ => None,
            }
        })
}

/// An array index as [`Value::pointer`] reads one: digits, no sign, no leading zero.
fn array_index(token: &str) -> Option<usize> {
    if token.starts_with('+') || (token.starts_with('0') && token.len() != 1) {
        return None;
    }
    token.parse().ok()
}

/// `type` names `name` (alone or in a list). Called for every node by several rules, so it
/// allocates nothing.
fn has_type(schema: &Value, name: &str) -> bool {
    match schema.get("type") {
        Some(Value::String(t)) => t == name,
        Some(Value::Array(ts)) => ts.iter().any(|t| t.as_str() == Some(name)),
        _ => false,
    }
}

/// An object schema by `type`, or by `properties` when there is no `type` at all.
fn is_object(schema: &Value) -> bool {
    let Some(map) = schema.as_object() else {
        return false;
    };
    has_type(schema, "object") || (!map.contains_key("type") && map.contains_key("properties"))
}

/// Whether Gemini takes an `enum` on this schema: a string (its `Type` is written either case),
/// or an integer or number with `format: enum`, as its SDK documents integer enums.
fn enum_type_taken(map: &Map<String, Value>) -> bool {
    let kind = map.get("type").and_then(Value::as_str).unwrap_or_default();
    let as_enum = map.get("format").and_then(Value::as_str) == Some("enum");
    kind.eq_ignore_ascii_case("string")
        || (as_enum
            && (kind.eq_ignore_ascii_case("integer") || kind.eq_ignore_ascii_case("number")))
}

fn is_array(schema: &Value) -> bool {
    has_type(schema, "array")
}

/// Whether a schema names what kind of value it holds (OpenAI strict wants typed `items`);
/// tailoring asks the same question.
pub(crate) fn says_a_kind(schema: &Value) -> bool {
    const TYPING: &[&str] = &[
        "type",
        "enum",
        "const",
        "anyOf",
        "oneOf",
        "allOf",
        "$ref",
        "properties",
        "items",
    ];
    schema
        .as_object()
        .is_some_and(|m| TYPING.iter().any(|k| m.contains_key(*k)))
}

fn in_scope(node: &Node<'_>, at: Where) -> bool {
    match at {
        Where::Root => node.is_root(),
        Where::Nested => !node.is_root(),
        Where::Anywhere => true,
    }
}

/// The object schemas, by node index.
fn objects<'a>(cx: &SchemaCx<'a>) -> impl Iterator<Item = (usize, &'a Map<String, Value>)> {
    cx.nodes
        .iter()
        .enumerate()
        .filter_map(|(i, n)| n.schema.as_object().map(|m| (i, m)))
}

/// Names the first way `name` breaks `pattern`.
pub(crate) fn name_problem(name: &str, pattern: &NamePattern) -> Option<String> {
    let len = name.chars().count();
    if len == 0 {
        return Some("is empty".to_owned());
    }
    if len > pattern.max {
        return Some(format!(
            "is {len} characters long (at most {})",
            pattern.max
        ));
    }
    if pattern.letter_or_underscore_first {
        let first = name.chars().next().unwrap_or_default();
        if !(first.is_ascii_alphabetic() || first == '_') {
            return Some(format!(
                "starts with {first:?} (a letter or _ must come first)"
            ));
        }
    }
    name.chars()
        .find(|c| !(c.is_ascii_alphanumeric() || pattern.extra.contains(*c)))
        .map(|c| format!("contains {c:?}"))
}

/// True when `pattern` has a lookahead or lookbehind group, ignoring escaped characters and
/// parentheses inside character classes; `(?<name>` is a named group, not a lookbehind.
pub(crate) fn has_lookaround(pattern: &str) -> bool {
    let chars: Vec<char> = pattern.chars().collect();
    let mut in_class = false;
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 1,
            '[' if !in_class => in_class = true,
            ']' if in_class => in_class = false,
            '(' if !in_class => {
                let next: String = chars[i + 1..].iter().take(3).collect();
                if next.starts_with("?=")
                    || next.starts_with("?!")
                    || next.starts_with("?<=")
                    || next.starts_with("?<!")
                {
                    return true;
                }
            }
            _ => {}
        }
        i += 1;
    }
    false
}

/// Whether a check reads one node at a time (its keywords, their values, the names of its
/// properties, the keyword holding it, whether it is the root) and reports at that node or at
/// one of its properties: then equal subtrees get the same hits, at the same relative places.
pub(crate) fn is_local(check: &Check) -> bool {
    match check {
        Check::Keywords { .. }
        | Check::KeywordsOutside { .. }
        | Check::Values { .. }
        | Check::AtMost { .. }
        | Check::Closed
        | Check::AllRequired
        | Check::RequiredDeclared
        | Check::ObjectProperties
        | Check::PropertiesNonEmpty
        | Check::RequiredAbsent
        | Check::TypeArray
        | Check::EnumValues { .. }
        | Check::EnumOnNonString
        | Check::RefSiblings { .. }
        | Check::ArrayItems
        | Check::TupleItems
        | Check::ArrayItemsTyped
        | Check::NodeType { .. }
        | Check::Lookaround
        | Check::PropertyName(_) => true,
        Check::RootNotJsonObject
        | Check::RootType(_)
        | Check::RecursiveRef
        | Check::Limit(_)
        | Check::Draft2020
        | Check::GoDecode
        | Check::GoDropped(_)
        | Check::ToolName(_)
        | Check::UniqueToolNames
        | Check::ToolSet { .. } => false,
    }
}

pub(crate) fn schema_hits(check: &Check, cx: &SchemaCx<'_>) -> Vec<Hit> {
    let mut hits = Vec::new();
    if is_local(check) {
        for (node, at) in cx.nodes.iter().zip(nodes::pointers(&cx.nodes)) {
            local_hits(check, node, &at, &mut hits);
        }
        return hits;
    }
    match *check {
        Check::RootNotJsonObject if !cx.root.is_object() => {
            hits.push(Hit::at("", short_json(cx.root)));
        }
        Check::RootType(case) => match cx.root.get("type") {
            None if case != RootTypeCase::NotObject => {
                hits.push(Hit::at("", "null").keyword("type"));
            }
            Some(t) if t != "object" && case != RootTypeCase::Missing => {
                hits.push(Hit::at("", short_json(t)).keyword("type"));
            }
            _ => {}
        },
        Check::RecursiveRef => hits.extend(recursive_refs(cx)),
        Check::Limit(limit) => hits.extend(limit_hits(limit, cx)),
        Check::Draft2020 => {
            let validator = jsonschema::draft202012::meta::validator();
            // The meta-schema reaches one bad value along several paths; one finding each.
            let mut seen = HashSet::new();
            for error in validator.iter_errors(cx.root) {
                if !seen.insert(error.instance_path().as_str().to_owned()) {
                    continue;
                }
                let (at, keyword) = cx.locate(error.instance_path().as_str());
                let mut hit = Hit::at(&at, error.to_string());
                hit.keyword = keyword;
                hits.push(hit);
            }
        }
        Check::GoDecode => {
            for error in &cx.ollama().errors {
                let (at, keyword) = cx.locate(&error.pointer);
                let mut hit = Hit::at(&at, error.message.as_str());
                hit.keyword = keyword;
                hits.push(hit);
            }
        }
        Check::GoDropped(class) => {
            for d in cx.ollama().dropped.iter().filter(|d| d.class == class) {
                hits.push(Hit::at(&d.pointer, d.keyword.as_str()).keyword(&d.keyword));
            }
        }
        // Local checks were read above; tool checks are `tool_hits`'.
        _ => {}
    }
    hits
}

/// The hits of a [`is_local`] check at one node (its pointer `here`), in the order the node's
/// keys give.
pub(crate) fn local_hits(check: &Check, node: &Node<'_>, here: &str, hits: &mut Vec<Hit>) {
    if let Check::NodeType { stand_ins } = *check {
        // `additionalProperties: false` and its kin close a container; they do not
        // describe a value, so they need no type.
        const CLOSERS: &[&str] = &[
            "additionalProperties",
            "unevaluatedProperties",
            "additionalItems",
            "unevaluatedItems",
        ];
        let untyped = match node.schema {
            Value::Object(m) => !stand_ins.iter().any(|k| m.contains_key(*k)),
            Value::Bool(_) => !node.via.is_some_and(|k| CLOSERS.contains(&k)),
            _ => false,
        };
        if untyped {
            hits.push(Hit::at(here, short_json(node.schema)));
        }
        return;
    }
    let Some(map) = node.schema.as_object() else {
        return;
    };
    match *check {
        Check::Keywords { names, at } if in_scope(node, at) => {
            for key in map.keys().filter(|k| names.contains(&k.as_str())) {
                hits.push(Hit::at(here, key.as_str()).keyword(key));
            }
        }
        Check::KeywordsOutside { allowed, at } if in_scope(node, at) => {
            for key in map.keys().filter(|k| !allowed.contains(&k.as_str())) {
                hits.push(Hit::at(here, key.as_str()).keyword(key));
            }
        }
        Check::Values { keyword, allowed } => {
            // A list (`type: [...]`) is judged value by value.
            let values: &[Value] = match map.get(keyword) {
                Some(Value::Array(list)) => list,
                Some(v) => std::slice::from_ref(v),
                None => return,
            };
            for v in values {
                if !v.as_str().is_some_and(|v| allowed.contains(&v)) {
                    let shown = v.as_str().map_or_else(|| short_json(v), str::to_owned);
                    hits.push(Hit::at(here, shown).keyword(keyword));
                }
            }
        }
        Check::AtMost { keyword, max } => {
            if let Some(n) = map.get(keyword).and_then(Value::as_f64)
                && n > max as f64
            {
                hits.push(Hit::at(here, map[keyword].to_string()).keyword(keyword));
            }
        }
        Check::Closed if is_object(node.schema) => {
            let detail = match map.get("additionalProperties") {
                Some(Value::Bool(false)) => return,
                None => "it is not set",
                Some(Value::Bool(true)) => "it is true",
                Some(_) => "it is a schema",
            };
            hits.push(Hit::at(here, detail).keyword("additionalProperties"));
        }
        Check::AllRequired => {
            let Some(Value::Object(props)) = map.get("properties") else {
                return;
            };
            let required: HashSet<&str> = map
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            for key in props.keys().filter(|k| !required.contains(k.as_str())) {
                hits.push(
                    Hit::at(here, key.as_str())
                        .keyword("required")
                        .item(key.as_str()),
                );
            }
        }
        Check::RequiredDeclared => {
            let Some(Value::Array(required)) = map.get("required") else {
                return;
            };
            let props = map.get("properties").and_then(Value::as_object);
            for (i, name) in required.iter().enumerate() {
                let Some(name) = name.as_str() else { continue };
                if !props.is_some_and(|p| p.contains_key(name)) {
                    hits.push(Hit::at(here, name).keyword("required").item(i.to_string()));
                }
            }
        }
        Check::ObjectProperties if is_object(node.schema) && !map.contains_key("properties") => {
            hits.push(Hit::at(here, ""));
        }
        Check::PropertiesNonEmpty if is_object(node.schema) => {
            let holds_none = match map.get("properties") {
                Some(Value::Object(p)) => p.is_empty() && !node.is_root(),
                _ => true,
            };
            if holds_none {
                hits.push(Hit::at(here, ""));
            }
        }
        Check::RequiredAbsent => {
            let empty = matches!(map.get("properties"), Some(Value::Object(p)) if p.is_empty());
            if empty && !map.get("required").is_some_and(Value::is_array) {
                hits.push(Hit::at(here, "").keyword("required"));
            }
        }
        Check::TypeArray => {
            if let Some(t @ Value::Array(_)) = map.get("type") {
                hits.push(Hit::at(here, short_json(t)).keyword("type"));
            }
        }
        Check::EnumValues { kinds } => {
            let allowed = |k: Kind| {
                kinds.contains(&k) || (k == Kind::Integer && kinds.contains(&Kind::Number))
            };
            let Some(Value::Array(values)) = map.get("enum") else {
                return;
            };
            for (i, v) in values.iter().enumerate() {
                if !allowed(Kind::of(v)) {
                    hits.push(
                        Hit::at(here, short_json(v))
                            .keyword("enum")
                            .item(i.to_string()),
                    );
                }
            }
        }
        Check::EnumOnNonString if map.contains_key("enum") && !enum_type_taken(map) => {
            let detail = map
                .get("type")
                .map(short_json)
                .unwrap_or_else(|| "no type".to_owned());
            hits.push(Hit::at(here, detail).keyword("enum"));
        }
        Check::RefSiblings {
            allowed,
            dollar_prefixed,
        } => {
            let Some(reference) = map.get("$ref") else {
                return;
            };
            let siblings: Vec<&str> = map
                .keys()
                .map(String::as_str)
                .filter(|k| {
                    *k != "$ref" && !allowed.contains(k) && !(dollar_prefixed && k.starts_with('$'))
                })
                .collect();
            if !siblings.is_empty() {
                let target = reference.as_str().unwrap_or_default();
                let name = target.rsplit('/').next().unwrap_or(target);
                hits.push(
                    Hit::at(here, py_set(&siblings))
                        .keyword("$ref")
                        .item(pointer::unescape(name).into_owned()),
                );
            }
        }
        Check::ArrayItems if is_array(node.schema) && !map.contains_key("items") => {
            let detail = if map.contains_key("prefixItems") {
                "only `prefixItems` describes the elements"
            } else {
                "nothing describes the elements"
            };
            hits.push(Hit::at(here, detail));
        }
        Check::TupleItems => {
            if let Some(Value::Array(positions)) = map.get("items") {
                let n = positions.len();
                let detail = format!("{n} schema{}", if n == 1 { "" } else { "s" });
                hits.push(Hit::at(here, detail).keyword("items"));
            }
        }
        Check::ArrayItemsTyped => {
            if is_array(node.schema)
                && let Some(items) = map.get("items")
                && !says_a_kind(items)
            {
                hits.push(Hit::at(here, short_json(items)).keyword("items"));
            }
        }
        Check::Lookaround => {
            if let Some(Value::String(p)) = map.get("pattern")
                && has_lookaround(p)
            {
                hits.push(Hit::at(here, p.as_str()).keyword("pattern"));
            }
        }
        Check::PropertyName(pattern) => {
            let Some(Value::Object(props)) = map.get("properties") else {
                return;
            };
            for name in props.keys() {
                if let Some(problem) = name_problem(name, &pattern) {
                    let at = pointer::join(here, ["properties", name.as_str()]);
                    hits.push(Hit::at(&at, problem).item(name.as_str()));
                }
            }
        }
        _ => {}
    }
}

/// One local `$ref` of the schema.
struct RefSite {
    /// The node holding the `$ref`.
    site: usize,
    /// The target as a JSON pointer (percent-decoded fragment).
    target: String,
    /// The `$ref` leads back into a schema it sits in.
    recursive: bool,
    /// The strongly connected component of the target (targets of one component can reach
    /// each other through `$ref`s).
    component: usize,
}

/// `$ref`s that lead back into a schema they sit in.
fn recursive_refs(cx: &SchemaCx<'_>) -> Vec<Hit> {
    ref_sites(cx)
        .into_iter()
        .filter(|r| r.recursive)
        .map(|r| {
            let shown = format!("#{}", r.target);
            Hit::at(cx.pointer(r.site), shown.as_str())
                .keyword("$ref")
                .item(shown)
        })
        .collect()
}

/// Every local `$ref`, and whether it is recursive.
///
/// Targets form a graph: `u → t` when a `$ref` to `t` sits inside `u`. A `$ref` at `s` to `t`
/// closes a cycle exactly when some target containing `s` lies in the same strongly connected
/// component as `t` (that target has an edge to `t`, so reaching it from `t` is a cycle). One
/// pass over the refs and one SCC computation keep this linear in practice, however many
/// definitions a large document has.
fn ref_sites(cx: &SchemaCx<'_>) -> Vec<RefSite> {
    let mut ids: HashMap<String, usize> = HashMap::new();
    let mut refs: Vec<(usize, usize)> = Vec::new();
    for (i, node) in cx.nodes.iter().enumerate() {
        let Some(fragment) = node
            .schema
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.strip_prefix('#'))
        else {
            continue;
        };
        let next = ids.len();
        let id = *ids.entry(percent_decode(fragment)).or_insert(next);
        refs.push((i, id));
    }
    // Targets containing a site: the site itself and each enclosing pointer.
    let containing = |site: &str| -> Vec<usize> {
        let mut out = Vec::new();
        let mut at = Some(site);
        while let Some(p) = at {
            if let Some(id) = ids.get(p) {
                out.push(*id);
            }
            at = pointer::parent(p);
        }
        out
    };
    let mut edges = vec![Vec::new(); ids.len()];
    for (site, target) in &refs {
        for u in containing(cx.pointer(*site)) {
            edges[u].push(*target);
        }
    }
    let component = crate::schema::graph::strongly_connected(&edges);
    let names: HashMap<usize, &str> = ids.iter().map(|(k, v)| (*v, k.as_str())).collect();
    refs.iter()
        .map(|&(site, target)| RefSite {
            site,
            target: names[&target].to_owned(),
            recursive: containing(cx.pointer(site))
                .into_iter()
                .any(|u| component[u] == component[target]),
            component: component[target],
        })
        .collect()
}

/// The deepest place of the schema as the provider reads it: every subschema one level below
/// its parent (`additionalProperties: false` too: an object is a level to OpenAI's checker
/// and the one in tests/ even when it has no property, and its `false` is what makes lint
/// count it so), and a `$ref`'s target read at the `$ref`'s own level, a recursive `$ref`
/// followed until it reaches a definition already entered on the path (recursion is allowed,
/// but each pass through it nests).
fn deepest(cx: &SchemaCx<'_>, limit: usize) -> Deepest {
    let heights = Heights::of(cx);
    let (levels, at, through_ref) = heights.at(0);
    let plain = Deepest {
        levels,
        at,
        through_ref,
        at_least: false,
    };
    if levels > limit {
        return plain;
    }
    Reentering::over(cx, &heights, limit).unwrap_or(plain)
}

/// What [`deepest`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Deepest {
    pub levels: usize,
    /// The deepest node.
    pub at: usize,
    /// The deepest path goes through a `$ref`.
    pub through_ref: bool,
    /// The paths through recursive `$ref`s were followed only until one went past the limit
    /// (or, on a cycle with more paths than are followed, not to the end): `levels` is a
    /// level reached, not the deepest.
    pub at_least: bool,
}

/// Past this many node visits the paths through recursive `$ref`s are not followed further,
/// and the schema is taken to be over the limit: each definition entered at most once per
/// path is still a number of paths exponential in a large cycle's members (the unrolled form
/// tailoring makes of it has no cycle to follow).
const REENTRY_WORK: usize = 1_000_000;

/// Whether a path nests past the limit when recursive `$ref`s are followed until they reach
/// a definition already entered on the path, as OpenAI's checker (and the independent one in
/// tests/) reads them. A target's height depends on the targets of its component open on the
/// path, so the walk remembers heights per (target, open targets of its component), and it
/// stops at the first path found past the limit.
struct Reentering<'h> {
    heights: &'h Heights,
    /// The node each local `$ref` (recursive or not) reads, and its target's component.
    follows: Vec<Option<(usize, usize)>>,
    memo: HashMap<(usize, Vec<usize>), (usize, usize)>,
    open: Vec<(usize, usize)>,
    limit: usize,
    work: usize,
    /// The first node found past the limit, and its level.
    over: Option<(usize, usize)>,
}

impl Reentering<'_> {
    /// `None` when no recursive `$ref` takes a path past `limit`.
    fn over(cx: &SchemaCx<'_>, heights: &Heights, limit: usize) -> Option<Deepest> {
        let sites = ref_sites(cx);
        if !sites.iter().any(|r| r.recursive) {
            return None;
        }
        let mut follows = vec![None; cx.nodes.len()];
        for r in sites {
            follows[r.site] = cx.find(&r.target).map(|t| (t, r.component));
        }
        let mut walk = Reentering {
            heights,
            follows,
            memo: HashMap::new(),
            open: Vec::new(),
            limit,
            work: 0,
            over: None,
        };
        walk.height(0, 0);
        let (levels, at) = match walk.over {
            Some((at, level)) => (level, at),
            None if walk.work > REENTRY_WORK => (limit + 1, 0),
            None => return None,
        };
        Some(Deepest {
            levels,
            at,
            through_ref: true,
            at_least: true,
        })
    }

    /// The levels below node `i` (at `level`), and the deepest node; stops early once a path
    /// past the limit is found, or the work runs out.
    fn height(&mut self, i: usize, level: usize) -> (usize, usize) {
        stacker::maybe_grow(64 * 1024, 1024 * 1024, || self.height_unguarded(i, level))
    }

    fn height_unguarded(&mut self, i: usize, level: usize) -> (usize, usize) {
        self.work += 1;
        let mut best = (0, i);
        if self.over.is_some() || self.work > REENTRY_WORK {
            return best;
        }
        for &c in self.heights.children(i) {
            let (h, at) = self.height(c, level + 1);
            best = self.deeper(best, (h + 1, at), level);
        }
        if let Some((target, component)) = self.follows[i]
            && !self.open.iter().any(|(t, _)| *t == target)
        {
            let found = self.enter(target, component, level);
            best = self.deeper(best, found, level);
        }
        best
    }

    /// The deeper of two heights below a node at `level`, noting a path past the limit.
    fn deeper(
        &mut self,
        best: (usize, usize),
        found: (usize, usize),
        level: usize,
    ) -> (usize, usize) {
        if level + found.0 > self.limit && self.over.is_none() {
            self.over = Some((found.1, level + found.0));
        }
        if found.0 > best.0 { found } else { best }
    }

    fn enter(&mut self, target: usize, component: usize, level: usize) -> (usize, usize) {
        let mut open: Vec<usize> = self
            .open
            .iter()
            .filter(|(_, c)| *c == component)
            .map(|(t, _)| *t)
            .collect();
        open.sort_unstable();
        let key = (target, open);
        if let Some(known) = self.memo.get(&key) {
            return *known;
        }
        self.open.push((target, component));
        let found = self.height(target, level);
        self.open.pop();
        // A height cut short is not the target's: it is not remembered.
        if self.over.is_none() && self.work <= REENTRY_WORK {
            self.memo.insert(key, found);
        }
        found
    }
}

/// Each node's height as `limit-depth` counts it (see [`deepest`]), with the tree it was
/// counted on.
struct Heights {
    /// Children as one flat list (`first[i]..first[i + 1]` in `kids`): a projection can have a
    /// million nodes, and a list each would be a million allocations.
    first: Vec<usize>,
    kids: Vec<usize>,
    /// The node a (non-recursive) `$ref` at each node is read as.
    follows: Vec<Option<usize>>,
    /// (levels below the node, the deepest node, reached through a `$ref`).
    height: Vec<Option<(usize, usize, bool)>>,
}

impl Heights {
    fn of(cx: &SchemaCx<'_>) -> Heights {
        let n = cx.nodes.len();
        let mut first = vec![0usize; n + 1];
        for node in &cx.nodes {
            if let Some(p) = node.parent {
                first[p + 1] += 1;
            }
        }
        for i in 0..n {
            first[i + 1] += first[i];
        }
        let mut filled = first.clone();
        let mut kids = vec![0usize; n.saturating_sub(1)];
        for (i, node) in cx.nodes.iter().enumerate() {
            if let Some(p) = node.parent {
                kids[filled[p]] = i;
                filled[p] += 1;
            }
        }
        let mut follows: Vec<Option<usize>> = vec![None; n];
        for r in ref_sites(cx).into_iter().filter(|r| !r.recursive) {
            follows[r.site] = cx.find(&r.target);
        }
        let mut heights = Heights {
            first,
            kids,
            follows,
            height: vec![None; n],
        };
        heights.count(n);
        heights
    }

    fn children(&self, i: usize) -> &[usize] {
        &self.kids[self.first[i]..self.first[i + 1]]
    }

    /// Heights by an explicit post-order walk: inputs can nest as deep as the parser allows,
    /// and `$ref` chains deeper still. Without recursive refs the graph has no cycle; `open`
    /// guards against one anyway (a `$ref` into its own ancestor that the SCC pass missed).
    fn count(&mut self, n: usize) {
        let mut open = vec![false; n];
        let mut stack = vec![(0usize, false)];
        while let Some((i, expanded)) = stack.pop() {
            if n == 0 || self.height[i].is_some() {
                continue;
            }
            if !expanded {
                open[i] = true;
                stack.push((i, true));
                let next = self.children(i).iter().copied().chain(self.follows[i]);
                stack.extend(
                    next.filter(|c| self.height[*c].is_none() && !open[*c])
                        .map(|c| (c, false)),
                );
                continue;
            }
            let mut best = (0, i, false);
            for &c in self.children(i) {
                if let Some((h, at, via)) = self.height[c]
                    && h + 1 > best.0
                {
                    best = (h + 1, at, via);
                }
            }
            if let Some(t) = self.follows[i]
                && let Some((h, at, _)) = self.height[t]
                && h > best.0
            {
                best = (h, at, true);
            }
            open[i] = false;
            self.height[i] = Some(best);
        }
    }

    fn at(&self, i: usize) -> (usize, usize, bool) {
        self.height
            .get(i)
            .copied()
            .flatten()
            .unwrap_or((0, 0, false))
    }

    /// The levels a `$ref` at `i` adds where it is read, when it has one.
    fn through_own_ref(&self, i: usize) -> Option<usize> {
        self.follows[i].map(|t| self.at(t).0)
    }
}

/// The subschemas on paths `limit-depth` counts as longer than `limit`, down to level `limit`
/// (deeper ones cannot be cut within the limit), for tailoring to cut every such path at once.
pub(crate) struct OverDepth {
    /// The deepest path's levels.
    pub levels: usize,
    /// The deepest path is reached through a `$ref`.
    pub through_ref: bool,
    /// The root first, each node after its parent.
    pub nodes: Vec<OverNode>,
}

pub(crate) struct OverNode {
    pub pointer: String,
    /// The keyword holding the node in its parent; `None` for the root.
    pub via: Option<&'static str>,
    /// The parent's index in [`OverDepth::nodes`].
    pub parent: Option<usize>,
    pub level: usize,
    /// The levels of the deepest path through this node.
    pub levels: usize,
    /// The children (indices in [`OverDepth::nodes`]) on paths over the limit.
    pub children: Vec<usize>,
    /// A `$ref` held by this node reads a target that makes a path over the limit: cutting
    /// below the node cannot shorten it.
    pub over_by_ref: bool,
}

impl OverDepth {
    /// The subschemas from the root down to node `i`: each one's pointer and the keyword
    /// holding it.
    pub fn path(&self, i: usize) -> Vec<(String, Option<&'static str>)> {
        let mut path = Vec::new();
        let mut here = Some(i);
        while let Some(j) = here {
            path.push((self.nodes[j].pointer.clone(), self.nodes[j].via));
            here = self.nodes[j].parent;
        }
        path.reverse();
        path
    }
}

/// See [`OverDepth`]. Empty when no path is over the limit.
pub(crate) fn over_depth(schema: &Value, limit: usize) -> OverDepth {
    let cx = SchemaCx::new(schema);
    let heights = Heights::of(&cx);
    let (levels, _, through_ref) = heights.at(0);
    let mut nodes: Vec<OverNode> = Vec::new();
    if levels <= limit || cx.nodes.is_empty() {
        // Within the limit unless recursive `$ref`s are followed: no carrying shortens what
        // every use of a definition reads (tailoring unrolls such definitions first).
        let recursive = (levels <= limit)
            .then(|| Reentering::over(&cx, &heights, limit))
            .flatten()
            .map(|d| d.levels);
        return OverDepth {
            levels: recursive.unwrap_or(levels),
            through_ref: through_ref || recursive.is_some(),
            nodes,
        };
    }
    // (node in `cx`, its parent in `nodes`, its level), parents before children.
    let mut stack = vec![(0usize, None::<usize>, 0usize)];
    while let Some((i, parent, level)) = stack.pop() {
        let index = nodes.len();
        nodes.push(OverNode {
            pointer: cx.pointer(i).to_owned(),
            via: cx.nodes[i].via,
            parent,
            level,
            levels: level + heights.at(i).0,
            children: Vec::new(),
            over_by_ref: heights
                .through_own_ref(i)
                .is_some_and(|h| level + h > limit),
        });
        if let Some(p) = parent {
            nodes[p].children.push(index);
        }
        if level == limit {
            continue;
        }
        let over_children = heights
            .children(i)
            .iter()
            .filter(|&&c| level + 1 + heights.at(c).0 > limit);
        stack.extend(over_children.rev().map(|&c| (c, Some(index), level + 1)));
    }
    OverDepth {
        levels,
        through_ref,
        nodes,
    }
}

/// URI fragments may percent-encode pointer characters (`%24defs`).
fn percent_decode(s: &str) -> String {
    if !s.contains('%') {
        return s.to_owned();
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(b) = s
                .get(i + 1..i + 3)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        {
            out.push(b);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn limit_hits(limit: Limit, cx: &SchemaCx<'_>) -> Vec<Hit> {
    let maps = |key: &'static str| {
        objects(cx).filter_map(move |(_, m)| m.get(key).and_then(Value::as_object))
    };
    let enums = || objects(cx).filter_map(|(n, m)| Some((n, m.get("enum")?.as_array()?)));
    // One finding for the whole tool, at the root: no single place is the cause.
    let over = |total: usize, max: usize| {
        (total > max)
            .then(|| Hit::at("", text::thousands(total)))
            .into_iter()
            .collect::<Vec<_>>()
    };
    match limit {
        Limit::Properties(max) => over(maps("properties").map(Map::len).sum(), max),
        Limit::EnumValues(max) => over(enums().map(|(_, e)| e.len()).sum(), max),
        Limit::StringChars(max) => {
            let names: usize = ["properties", "$defs", "definitions"]
                .into_iter()
                .flat_map(maps)
                .flat_map(Map::keys)
                .map(|k| k.chars().count())
                .sum();
            let enum_chars: usize = enums().flat_map(|(_, e)| e.iter()).map(counted_chars).sum();
            let consts: usize = objects(cx)
                .filter_map(|(_, m)| m.get("const"))
                .map(counted_chars)
                .sum();
            over(names + enum_chars + consts, max)
        }
        Limit::Depth(max) => {
            let Deepest {
                levels,
                at,
                through_ref,
                at_least,
            } = deepest(cx, max);
            let through = match (through_ref, at_least) {
                (_, true) => ", reached through a recursive `$ref`",
                (true, false) => ", reached through `$ref`",
                (false, false) => "",
            };
            let over = levels > max;
            let levels = if at_least {
                format!("at least {levels}")
            } else {
                levels.to_string()
            };
            over.then(|| {
                let place = if at < cx.nodes.len() {
                    cx.pointer(at)
                } else {
                    ""
                };
                Hit::at(
                    "",
                    format!("{levels} levels of nesting (the deepest at #{place}{through})"),
                )
            })
            .into_iter()
            .collect()
        }
        Limit::LargeStringEnum { values, chars } => enums()
            .filter(|(_, e)| e.len() > values && e.iter().all(Value::is_string))
            .filter_map(|(n, e)| {
                let total: usize = e.iter().map(counted_chars).sum();
                (total > chars).then(|| {
                    Hit::at(
                        cx.pointer(n),
                        format!(
                            "{} values holding {} characters",
                            text::thousands(e.len()),
                            text::thousands(total)
                        ),
                    )
                    .keyword("enum")
                })
            })
            .collect(),
    }
}

/// Characters a value adds to OpenAI's string budget: a string's own, anything else's JSON
/// text (OpenAI does not say how it counts those; its Java SDK counts their text too).
fn counted_chars(value: &Value) -> usize {
    match value {
        Value::String(s) => s.chars().count(),
        other => other.to_string().chars().count(),
    }
}

/// A tool as the provider receives it.
pub(crate) struct ToolCx<'a> {
    pub name: Option<&'a str>,
    pub schema: &'a SchemaCx<'a>,
}

/// Tool-level hits, as (tool index, hit).
pub(crate) fn tool_hits(check: &Check, tools: &[ToolCx<'_>]) -> Vec<(usize, Hit)> {
    let mut hits = Vec::new();
    match *check {
        Check::ToolName(pattern) => {
            for (i, tool) in tools.iter().enumerate() {
                let Some(name) = tool.name else { continue };
                if let Some(problem) = name_problem(name, &pattern) {
                    hits.push((i, Hit::at("", problem).item(name)));
                }
            }
        }
        Check::UniqueToolNames => {
            let mut first: HashMap<&str, usize> = HashMap::new();
            for (i, tool) in tools.iter().enumerate() {
                let Some(name) = tool.name else { continue };
                match first.get(name) {
                    Some(j) => hits.push((i, Hit::at("", name).item(j.to_string()))),
                    None => {
                        first.insert(name, i);
                    }
                }
            }
        }
        Check::ToolSet { counted, max } => {
            hits = crossing(tools.iter().map(|t| count(counted, t.schema)), max);
        }
        _ => {}
    }
    hits
}

/// Where a running total over the tools of a request first goes over `max`: that tool, with
/// the total there (the request plan's tool-set facts count the same way, from counts made
/// one tool at a time).
pub(crate) fn crossing(counts: impl IntoIterator<Item = usize>, max: usize) -> Vec<(usize, Hit)> {
    let mut total = 0;
    let mut hits = Vec::new();
    for (i, n) in counts.into_iter().enumerate() {
        let before = total;
        total += n;
        if before <= max && total > max {
            hits.push((i, Hit::at("", total.to_string())));
        }
    }
    hits
}

/// What `schema` adds to each of the `counted` tool-set counts: the request plan reads the
/// counts the rules read.
pub(crate) fn tool_set_counts<const N: usize>(schema: &Value, counted: [Counted; N]) -> [usize; N] {
    let cx = SchemaCx::new(schema);
    counted.map(|c| count(c, &cx))
}

fn count(counted: Counted, cx: &SchemaCx<'_>) -> usize {
    match counted {
        Counted::Tools => 1,
        Counted::OptionalProperties => objects(cx)
            .filter_map(|(_, m)| {
                let props = m.get("properties")?.as_object()?;
                let required: HashSet<&str> = m
                    .get("required")
                    .and_then(Value::as_array)
                    .map(|r| r.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                Some(
                    props
                        .keys()
                        .filter(|k| !required.contains(k.as_str()))
                        .count(),
                )
            })
            .sum(),
        Counted::UnionProperties => objects(cx)
            .filter_map(|(_, m)| m.get("properties")?.as_object())
            .flat_map(Map::values)
            .filter(|p| p.get("anyOf").is_some() || p.get("type").is_some_and(Value::is_array))
            .count(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookaround_detection() {
        for yes in ["^(?=.*[a-z]).+$", "a(?!b)", "(?<=x)y", "(?<!x)y"] {
            assert!(has_lookaround(yes), "{yes}");
        }
        for no in [r"\(?=x", "[(?=]", "(?<name>x)", "(?:a)", "^[a-z]+$"] {
            assert!(!has_lookaround(no), "{no}");
        }
    }

    #[test]
    fn name_problems() {
        let p = NamePattern {
            extra: "_-",
            letter_or_underscore_first: true,
            max: 5,
            shown: "",
        };
        assert_eq!(name_problem("ab_c", &p), None);
        assert_eq!(name_problem("", &p).as_deref(), Some("is empty"));
        assert_eq!(
            name_problem("abcdef", &p).as_deref(),
            Some("is 6 characters long (at most 5)")
        );
        assert_eq!(
            name_problem("1a", &p).as_deref(),
            Some("starts with '1' (a letter or _ must come first)")
        );
        assert_eq!(name_problem("a.b", &p).as_deref(), Some("contains '.'"));
    }

    #[test]
    fn recursion_through_definitions_is_found_at_every_ref_on_the_cycle() {
        let s = serde_json::json!({
            "properties": {"root": {"$ref": "#/$defs/A"}},
            "$defs": {
                "A": {"properties": {"b": {"$ref": "#/$defs/B"}}},
                "B": {"items": {"$ref": "#/$defs/A"}},
                "C": {"properties": {"self": {"$ref": "#/$defs/C"}, "a": {"$ref": "#/$defs/A"}}}
            }
        });
        let cx = SchemaCx::new(&s);
        let got: Vec<String> = recursive_refs(&cx).into_iter().map(|h| h.pointer).collect();
        assert_eq!(
            got,
            vec![
                "/$defs/A/properties/b",
                "/$defs/B/items",
                "/$defs/C/properties/self"
            ]
        );
    }

    #[test]
    fn pointers_written_on_demand_are_each_nodes_own_and_find_it_back() {
        let s = serde_json::json!({
            "properties": {
                "a/b": {"anyOf": [{"items": {"type": "string"}}, {"properties": {"c~d": {}}}]},
                "e": {"$ref": "#/$defs/D"}
            },
            "$defs": {"D": {"properties": {"x": {"enum": [1]}}}}
        });
        let cx = SchemaCx::new(&s);
        let all = nodes::pointers(&cx.nodes);
        // Asked deepest first, then in order: ancestors written on the way are reused.
        for i in (0..cx.nodes.len()).rev().chain(0..cx.nodes.len()) {
            assert_eq!(cx.pointer(i), all[i]);
            assert_eq!(cx.find(&all[i]), Some(i), "{}", all[i]);
            assert_eq!(cx.order(&all[i]), i);
        }
        // Places that are not nodes: inside a keyword's value, a missing key, an escape
        // the nodes' pointers do not use.
        for not_a_node in [
            "/properties",
            "/properties/a~1b/anyOf",
            "/$defs/D/properties/x/enum/0",
            "/properties/zz",
            "/properties/a~1b/anyOf/01",
            "/properties/a~1b/anyOf/1/properties/c~d",
        ] {
            assert_eq!(cx.find(not_a_node), None, "{not_a_node}");
            assert_eq!(cx.order(not_a_node), usize::MAX);
        }
        assert_eq!(
            cx.locate("/$defs/D/properties/x/enum/0"),
            ("/$defs/D/properties/x".to_owned(), Some("enum".to_owned()))
        );
    }

    #[test]
    fn percent_decoding() {
        assert_eq!(percent_decode("/%24defs/A"), "/$defs/A");
        assert_eq!(percent_decode("/a%2"), "/a%2");
    }
}
