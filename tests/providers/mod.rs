//! An independent checker of what each provider refuses in a tool's parameter schema, for the
//! acceptance suites. It is written from `shared/research/providers.md` (documented limits and
//! the error strings people have reported), not from `src/lint`: the point is a second opinion
//! on whether a schema schemalens emits would be sent back with a 400.
//!
//! Each provider is a table of [`Rule`]s; each rule says where its fact comes from ([`Basis`])
//! and what the provider answers. Where the notes are silent about something a provider might
//! refuse, the rule errs on the side of refusing and says so (`Basis::Conservative`): a checker
//! that passes what the provider refuses would hide exactly the bug it is there to find.
#![allow(dead_code)]

pub mod anthropic_strict;
pub mod gemini;
pub mod openai_strict;

use std::fmt;

use serde_json::{Map, Value};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Provider {
    /// OpenAI function tools with `strict: true`.
    OpenAiStrict,
    /// Gemini `functionDeclarations[].parameters` (OpenAPI 3.0 subset), Developer API and
    /// Vertex AI both: what either refuses counts.
    Gemini,
    /// Anthropic tools with `strict: true`.
    AnthropicStrict,
}

impl Provider {
    pub const ALL: [Provider; 3] = [
        Provider::OpenAiStrict,
        Provider::Gemini,
        Provider::AnthropicStrict,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Provider::OpenAiStrict => "openai-strict",
            Provider::Gemini => "gemini",
            Provider::AnthropicStrict => "anthropic-strict",
        }
    }

    fn rules(self) -> &'static [Rule] {
        match self {
            Provider::OpenAiStrict => openai_strict::RULES,
            Provider::Gemini => gemini::RULES,
            Provider::AnthropicStrict => anthropic_strict::RULES,
        }
    }
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How sure we are that the provider refuses this.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Basis {
    /// The provider's own documentation says so.
    Documented,
    /// Reported by users with the provider's error message.
    Observed,
    /// From a third-party summary of the provider's documentation.
    SecondHand,
    /// The provider's SDK refuses it before sending.
    Sdk,
    /// Reported once or second-hand, without the provider's confirmation ([U] in the notes).
    Unconfirmed,
    /// Nothing says the provider accepts it; refusing is the safe verdict.
    Conservative,
}

/// One row of a provider's table.
pub struct Rule {
    pub id: &'static str,
    pub basis: Basis,
    pub source: &'static str,
    /// What the provider answers; `{at}` is the pointer, `{detail}` the rule's detail.
    pub says: &'static str,
    pub check: fn(&Doc<'_>) -> Vec<Hit>,
}

/// A place a rule matched.
pub struct Hit {
    pub at: String,
    pub detail: String,
}

impl Hit {
    pub fn new(at: &str, detail: impl Into<String>) -> Hit {
        Hit {
            at: at.to_owned(),
            detail: detail.into(),
        }
    }
}

/// A refusal, as the provider would phrase it.
#[derive(Debug, Clone)]
pub struct Rejection {
    pub rule: &'static str,
    pub basis: Basis,
    pub at: String,
    pub message: String,
    pub source: &'static str,
}

impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} at #{} ({:?}): {}",
            self.rule, self.at, self.basis, self.message
        )
    }
}

/// What `provider` refuses in a tool named `name` (`None`: no name to judge) whose parameter
/// schema is `schema`, exactly as it would be sent. Empty: accepted.
pub fn check(provider: Provider, name: Option<&str>, schema: &Value) -> Vec<Rejection> {
    let doc = Doc::new(schema, name);
    let mut out = Vec::new();
    for rule in provider.rules() {
        for hit in (rule.check)(&doc) {
            out.push(Rejection {
                rule: rule.id,
                basis: rule.basis,
                message: rule
                    .says
                    .replace("{at}", &hit.at)
                    .replace("{detail}", &hit.detail),
                at: hit.at,
                source: rule.source,
            });
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// The document as the rules see it: every subschema with its pointer and place.

/// Where a subschema sits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    Root,
    /// The value of a property (or of a `patternProperties` / `additionalProperties` entry).
    Property,
    /// An array element schema.
    Item,
    /// An alternative or part of `anyOf` / `oneOf` / `allOf`.
    Alternative,
    /// A `$defs` / `definitions` entry.
    Definition,
    /// Anything else (`not`, `if`, `propertyNames`, …).
    Other,
}

pub struct Node<'a> {
    pub at: String,
    pub schema: &'a Value,
    pub place: Place,
}

impl Node<'_> {
    pub fn map(&self) -> Option<&Map<String, Value>> {
        self.schema.as_object()
    }
}

pub struct Doc<'a> {
    pub root: &'a Value,
    pub name: Option<&'a str>,
    pub nodes: Vec<Node<'a>>,
}

/// Keywords whose value is one subschema.
const ONE: &[&str] = &[
    "additionalProperties",
    "additionalItems",
    "unevaluatedProperties",
    "unevaluatedItems",
    "contains",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
    "contentSchema",
    "items",
];
/// Single-schema keywords whose boolean form closes a container rather than describe a value.
const CLOSERS: &[&str] = &[
    "additionalProperties",
    "unevaluatedProperties",
    "additionalItems",
    "unevaluatedItems",
];
/// Keywords whose value is a list of subschemas.
const LIST: &[&str] = &["anyOf", "oneOf", "allOf", "prefixItems", "items"];
/// Keywords whose value maps names to subschemas.
const MAP: &[&str] = &[
    "properties",
    "patternProperties",
    "dependentSchemas",
    "$defs",
    "definitions",
];

impl<'a> Doc<'a> {
    pub fn new(root: &'a Value, name: Option<&'a str>) -> Doc<'a> {
        let mut nodes = Vec::new();
        collect(root, String::new(), Place::Root, &mut nodes, 0);
        Doc { root, name, nodes }
    }

    pub fn maps(&self) -> impl Iterator<Item = (&Node<'a>, &'a Map<String, Value>)> {
        self.nodes
            .iter()
            .filter_map(|n| n.schema.as_object().map(|m| (n, m)))
    }

    /// Follows a local `$ref` (`#`, `#/$defs/x`, any JSON pointer).
    pub fn resolve(&self, reference: &str) -> Option<&'a Value> {
        let fragment = reference.strip_prefix('#')?;
        if fragment.is_empty() {
            return Some(self.root);
        }
        self.root.pointer(fragment)
    }
}

/// Deep enough for any real schema; past it the document is refused by every provider anyway.
const MAX_WALK: usize = 512;

fn collect<'a>(v: &'a Value, at: String, place: Place, out: &mut Vec<Node<'a>>, depth: usize) {
    if depth > MAX_WALK {
        return;
    }
    out.push(Node {
        at: at.clone(),
        schema: v,
        place,
    });
    let Value::Object(m) = v else {
        return;
    };
    for (key, value) in m {
        let here = format!("{at}/{}", escape(key));
        let k = key.as_str();
        let child_place = match k {
            "items" | "prefixItems" | "additionalItems" | "contains" | "unevaluatedItems" => {
                Place::Item
            }
            "anyOf" | "oneOf" | "allOf" => Place::Alternative,
            "$defs" | "definitions" => Place::Definition,
            "properties"
            | "patternProperties"
            | "additionalProperties"
            | "unevaluatedProperties" => Place::Property,
            _ => Place::Other,
        };
        match value {
            Value::Array(list) if LIST.contains(&k) => {
                for (i, child) in list.iter().enumerate() {
                    collect(child, format!("{here}/{i}"), child_place, out, depth + 1);
                }
            }
            Value::Object(entries) if MAP.contains(&k) => {
                for (name, child) in entries {
                    let p = format!("{here}/{}", escape(name));
                    collect(child, p, child_place, out, depth + 1);
                }
            }
            // `additionalProperties: false` and its kin close a container; only where a
            // boolean stands for a value's schema is it a node.
            Value::Bool(_) if CLOSERS.contains(&k) => {}
            _ if ONE.contains(&k) && (value.is_object() || value.is_boolean()) => {
                collect(value, here, child_place, out, depth + 1);
            }
            _ => {}
        }
    }
}

pub fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

// ---------------------------------------------------------------------------------------------
// Small readers shared by the tables.

/// A hit (without detail) at every schema object `pred` holds for.
pub fn schemas_where(
    d: &Doc<'_>,
    pred: impl Fn(&Node<'_>, &Map<String, Value>) -> bool,
) -> Vec<Hit> {
    d.maps()
        .filter(|(n, m)| pred(n, m))
        .map(|(n, _)| Hit::new(&n.at, ""))
        .collect()
}

/// A hit per keyword of `names` present, anywhere.
pub fn present(d: &Doc<'_>, names: &[&str]) -> Vec<Hit> {
    let mut hits = Vec::new();
    for (n, m) in d.maps() {
        for k in names {
            if m.contains_key(*k) {
                hits.push(Hit::new(&n.at, *k));
            }
        }
    }
    hits
}

/// A hit per `format` outside `allowed`.
pub fn formats_outside(d: &Doc<'_>, allowed: &[&str]) -> Vec<Hit> {
    d.maps()
        .filter_map(|(n, m)| match m.get("format") {
            Some(Value::String(f)) if allowed.contains(&f.as_str()) => None,
            Some(f) => Some(Hit::new(&n.at, f.as_str().unwrap_or_default())),
            None => None,
        })
        .collect()
}

pub fn types(m: &Map<String, Value>) -> Vec<&str> {
    match m.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(list)) => list.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// An object schema: `type` says so, or no `type` and object keywords.
pub fn is_object(m: &Map<String, Value>) -> bool {
    let t = types(m);
    t.iter().any(|t| t.eq_ignore_ascii_case("object"))
        || (!m.contains_key("type")
            && ["properties", "additionalProperties", "required"]
                .iter()
                .any(|k| m.contains_key(*k)))
}

pub fn is_array(m: &Map<String, Value>) -> bool {
    types(m).iter().any(|t| t.eq_ignore_ascii_case("array"))
}

/// Keywords present in `m` that are outside `allowed`.
pub fn keywords_outside(m: &Map<String, Value>, allowed: &[&str]) -> Vec<String> {
    m.keys()
        .filter(|k| !allowed.contains(&k.as_str()))
        .cloned()
        .collect()
}

/// `pattern` uses lookahead or lookbehind (`(?=`, `(?!`, `(?<=`, `(?<!`), outside escapes and
/// character classes.
pub fn has_lookaround(pattern: &str) -> bool {
    let b = pattern.as_bytes();
    let mut i = 0;
    let mut in_class = false;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 1,
            b'[' if !in_class => in_class = true,
            b']' if in_class => in_class = false,
            b'(' if !in_class => {
                let rest = &pattern[i + 1..];
                if rest.starts_with("?=")
                    || rest.starts_with("?!")
                    || rest.starts_with("?<=")
                    || rest.starts_with("?<!")
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

/// A tool name outside `[extra + alphanumerics]{1,max}` (and, when asked, not starting with a
/// letter or `_`): the first problem found.
pub fn name_problem(name: &str, extra: &str, max: usize, letter_first: bool) -> Option<String> {
    let len = name.chars().count();
    if len == 0 || len > max {
        return Some(format!("{len} characters (1 to {max} allowed)"));
    }
    if letter_first && !name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        return Some("must start with a letter or `_`".into());
    }
    name.chars()
        .find(|c| !(c.is_ascii_alphanumeric() || extra.contains(*c)))
        .map(|c| format!("contains {c:?}"))
}

/// `$ref`s whose target is on a cycle of references (a recursive schema). Linear: a graph of
/// reference targets, never an expansion.
pub fn recursive_refs(doc: &Doc<'_>) -> Vec<Hit> {
    use std::collections::{BTreeMap, BTreeSet};
    // target fragment → the (absolute pointer, target) of every `$ref` inside it.
    let mut edges: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    let mut todo = vec![String::new()];
    while let Some(t) = todo.pop() {
        if edges.contains_key(&t) {
            continue;
        }
        let mut found = Vec::new();
        if let Some(v) = doc.resolve(&format!("#{t}")) {
            refs_in(v, &t, &mut found, 0);
        }
        for (_, target) in &found {
            todo.push(target.clone());
        }
        edges.insert(t, found);
    }
    let reaches = |from: &str, to: &str| {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from.to_owned()];
        while let Some(n) = stack.pop() {
            for (_, next) in edges.get(&n).into_iter().flatten() {
                if next == to {
                    return true;
                }
                if seen.insert(next.clone()) {
                    stack.push(next.clone());
                }
            }
        }
        false
    };
    let mut hits = Vec::new();
    for (at, target) in edges.values().flatten() {
        if reaches(target, target) && !hits.iter().any(|h: &Hit| h.at == *at) {
            hits.push(Hit::new(at, format!("#{target}")));
        }
    }
    hits
}

/// Every local `$ref` in `v` (not inside `$defs`, which are reached through the refs).
fn refs_in(v: &Value, at: &str, out: &mut Vec<(String, String)>, depth: usize) {
    if depth > MAX_WALK {
        return;
    }
    let Value::Object(m) = v else { return };
    if let Some(Value::String(r)) = m.get("$ref")
        && let Some(fragment) = r.strip_prefix('#')
    {
        out.push((at.to_owned(), fragment.to_owned()));
    }
    for (key, value) in m {
        let here = format!("{at}/{}", escape(key));
        let key = key.as_str();
        match value {
            Value::Array(list) if LIST.contains(&key) => {
                for (i, c) in list.iter().enumerate() {
                    refs_in(c, &format!("{here}/{i}"), out, depth + 1);
                }
            }
            Value::Object(entries)
                if MAP.contains(&key) && key != "$defs" && key != "definitions" =>
            {
                for (n, c) in entries {
                    refs_in(c, &format!("{here}/{}", escape(n)), out, depth + 1);
                }
            }
            _ if ONE.contains(&key) => refs_in(value, &here, out, depth + 1),
            _ => {}
        }
    }
}
