//! OpenAI function tools with `strict: true` (Structured Outputs). Sources: providers.md §1a and
//! §4 (the "Supported schemas" page, and the error strings users reported).

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::{
    Basis, Doc, Hit, Place, Rule, formats_outside, has_lookaround, is_array, is_object,
    keywords_outside, name_problem, present, schemas_where, types,
};

const DOC: &str = "OpenAI Structured Outputs, supported schemas (providers.md §1a)";

/// The keywords the supported-schemas page lists, plus `description` and `title`, which the
/// page's own examples and openai-python's Pydantic helper send.
const SUPPORTED: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "anyOf",
    "enum",
    "const",
    "$ref",
    "$defs",
    "description",
    "title",
    "pattern",
    "format",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "minItems",
    "maxItems",
];

/// Allowed at the root only: OpenAI's Java SDK, which checks a schema before sending it "so that
/// it can be determined to be likely to be accepted", allows `$schema` and `$id` there (and its
/// generator writes `$schema` into every schema it sends). Before this source was found the
/// checker refused them conservatively; 191 corpus tools carry `$schema`. Below the root the
/// same SDK refuses them, and `$comment` anywhere (it is on none of its lists); no report says
/// the API itself takes them, so the SDK's verdict is the checker's (rule `sdk-keyword`).
const ROOT_ONLY: &[&str] = &["$schema", "$id"];
const NOWHERE: &[&str] = &["$comment"];

/// Documented as unsupported.
const UNSUPPORTED: &[&str] = &[
    "allOf",
    "not",
    "dependentRequired",
    "dependentSchemas",
    "if",
    "then",
    "else",
];

/// Refused in practice, each reported by its own rule.
const REFUSED: &[&str] = &["oneOf", "default", "propertyNames"];

const FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

const TYPES: &[&str] = &[
    "string", "number", "boolean", "integer", "object", "array", "null",
];

pub static RULES: &[Rule] = &[
    Rule {
        id: "root-type",
        basis: Basis::Documented,
        source: "providers.md §1a (root must be an object); §4 chatanywhere/GPT_API_free#403",
        says: "schema must be a JSON Schema of 'type: \"object\"', got 'type: {detail}'.",
        check: root_type,
    },
    Rule {
        id: "root-union",
        basis: Basis::Documented,
        source: "providers.md §1a (root must not use anyOf); §4 nspady/google-calendar-mcp#39",
        says: "schema must have type 'object' and not have 'oneOf'/'anyOf'/'allOf'/'enum'/'not' at the top level.",
        check: root_union,
    },
    Rule {
        id: "oneof",
        basis: Basis::Observed,
        source: "providers.md §4: livekit/agents#5302, openai/openai-node#1709",
        says: "In context={at}, 'oneOf' is not permitted.",
        check: |d| present(d, &["oneOf"]),
    },
    Rule {
        id: "unsupported-keyword",
        basis: Basis::Documented,
        source: "providers.md §1a (unsupported: allOf, not, dependentRequired, dependentSchemas, if, then, else)",
        says: "In context={at}, '{detail}' is not permitted.",
        check: |d| present(d, UNSUPPORTED),
    },
    Rule {
        id: "default",
        basis: Basis::Observed,
        source: "providers.md §4: 567-labs/instructor#961",
        says: "In context={at}, 'default' is not permitted.",
        check: |d| present(d, &["default"]),
    },
    Rule {
        id: "property-names",
        basis: Basis::Observed,
        source: "providers.md §4: can1357/oh-my-pi#209",
        says: "In context={at}, 'propertyNames' is not permitted.",
        check: |d| present(d, &["propertyNames"]),
    },
    Rule {
        id: "sdk-keyword",
        basis: Basis::Sdk,
        source: "openai/openai-java JsonSchemaValidator.kt (ALLOWED_KEYWORDS_ROOT_SCHEMA_ONLY = $schema, $id, $defs; keywords outside its lists refused)",
        says: "In context={at}, '{detail}' is not permitted.",
        check: sdk_keywords,
    },
    Rule {
        id: "undocumented-keyword",
        basis: Basis::Conservative,
        source: "providers.md §1a (supported schemas); `$schema`/`$id` at the root: openai/openai-java JsonSchemaValidator.kt",
        says: "In context={at}, '{detail}' is not on the supported-schemas list.",
        check: undocumented,
    },
    Rule {
        id: "ref-siblings",
        basis: Basis::Observed,
        source: "providers.md §4: camel-ai/camel#3001, virattt/dexter#280",
        says: "$ref cannot have keywords {detail}",
        check: ref_siblings,
    },
    Rule {
        id: "type-required",
        basis: Basis::Observed,
        source: "issue 10 (`In context=('properties', 'ok'), schema must have a 'type' key.`: {}, description-only, const without type, Pydantic Any, Zod unknown)",
        says: "In context={at}, schema must have a 'type' key.",
        check: type_required,
    },
    Rule {
        id: "type-name",
        basis: Basis::Documented,
        source: "providers.md §1a (supported types)",
        says: "In context={at}, '{detail}' is not a supported type.",
        check: type_name,
    },
    Rule {
        id: "additional-properties",
        basis: Basis::Documented,
        source: "providers.md §1a; §4 xemantic/xemantic-ai-tool-schema#37",
        says: "In context={at}, 'additionalProperties' is required to be supplied and to be false.",
        check: closed,
    },
    // `required` missing beside an empty `properties` counts too: OpenAI's Java SDK refuses
    // it before sending, saying the API reports "a missing or empty `required` array".
    Rule {
        id: "required-all",
        basis: Basis::Documented,
        source: "providers.md §1a (all fields must be required); §4 langchain-ai/langmem#113; empty properties: openai/openai-java JsonSchemaValidator.kt",
        says: "In context={at}, 'required' is required to be supplied and to be an array including every key in properties. Missing '{detail}'.",
        check: required_all,
    },
    Rule {
        id: "required-extra",
        basis: Basis::SecondHand,
        source: "providers.md §4 (jsonschemaprofiles fixture required_extra_keys.json)",
        says: "Extra required key '{detail}' supplied.",
        check: required_extra,
    },
    Rule {
        id: "object-properties",
        basis: Basis::Observed,
        source: "providers.md §4: spring-projects/spring-ai#4776",
        says: "In context={at}, object schema missing properties.",
        check: object_properties,
    },
    Rule {
        id: "array-items",
        basis: Basis::Observed,
        source: "providers.md §4: sigoden/aichat#1049, LionSR/TeXRA#2323",
        says: "In context={at}, array schema missing items.",
        check: array_items,
    },
    Rule {
        id: "format",
        basis: Basis::Documented,
        source: "providers.md §1a (nine formats); §4 can1357/oh-my-pi#206",
        says: "In context={at}, '{detail}' is not a valid format.",
        check: format,
    },
    Rule {
        id: "pattern-lookaround",
        basis: Basis::Observed,
        source: "providers.md §4: anomalyco/opencode#32073, vercel/ai#21037",
        says: "Invalid JSON schema: regex lookaround is not supported. Found at {at}.",
        check: lookaround,
    },
    Rule {
        id: "limit-properties",
        basis: Basis::Documented,
        source: DOC,
        says: "{detail} object properties in total; at most 5000.",
        check: limit_properties,
    },
    Rule {
        id: "limit-depth",
        basis: Basis::Documented,
        source: "providers.md §1a (up to 10 levels of nesting), read as nested object levels (jsonschemaprofiles' OpenAI profile)",
        says: "{detail} nested object levels; at most 10.",
        check: limit_depth,
    },
    Rule {
        id: "limit-enum-values",
        basis: Basis::Documented,
        source: DOC,
        says: "{detail} enum values in total; at most 1000.",
        check: limit_enum_values,
    },
    Rule {
        id: "limit-string-length",
        basis: Basis::Documented,
        source: DOC,
        says: "property names, definition names, enum and const values add up to {detail} characters; at most 120,000.",
        check: limit_chars,
    },
    Rule {
        id: "limit-large-enum",
        basis: Basis::Documented,
        source: DOC,
        says: "a string enum with more than 250 values holds {detail} characters; at most 15,000.",
        check: limit_large_enum,
    },
    Rule {
        id: "tool-name",
        basis: Basis::Documented,
        source: "openai-python function_definition.py (providers.md §1a)",
        says: "function name {detail}: a-z, A-Z, 0-9, underscores and dashes, at most 64.",
        check: |d| {
            d.name
                .and_then(|n| name_problem(n, "_-", 64, false))
                .map(|p| vec![Hit::new("", p)])
                .unwrap_or_default()
        },
    },
];

fn root_type(d: &Doc<'_>) -> Vec<Hit> {
    match d.root.get("type") {
        Some(Value::String(t)) if t == "object" => Vec::new(),
        Some(t) => vec![Hit::new("", t.to_string())],
        None => vec![Hit::new("", "null")],
    }
}

fn root_union(d: &Doc<'_>) -> Vec<Hit> {
    ["anyOf", "oneOf", "allOf", "enum", "not"]
        .iter()
        .filter(|k| d.root.get(**k).is_some())
        .map(|k| Hit::new("", *k))
        .collect()
}

fn sdk_keywords(d: &Doc<'_>) -> Vec<Hit> {
    let mut hits = Vec::new();
    for (n, m) in d.maps() {
        let root = n.at.is_empty();
        for k in m.keys() {
            if NOWHERE.contains(&k.as_str()) || !root && ROOT_ONLY.contains(&k.as_str()) {
                hits.push(Hit::new(&n.at, k.clone()));
            }
        }
    }
    hits
}

/// Keywords the other rules name are left to them.
fn undocumented(d: &Doc<'_>) -> Vec<Hit> {
    let mut hits = Vec::new();
    for (n, m) in d.maps() {
        for k in keywords_outside(m, SUPPORTED) {
            let named = [ROOT_ONLY, NOWHERE, UNSUPPORTED, REFUSED]
                .iter()
                .any(|list| list.contains(&k.as_str()));
            if !named {
                hits.push(Hit::new(&n.at, k));
            }
        }
    }
    hits
}

fn ref_siblings(d: &Doc<'_>) -> Vec<Hit> {
    d.maps()
        .filter(|(_, m)| m.contains_key("$ref"))
        .filter_map(|(n, m)| {
            let others: Vec<String> = m
                .keys()
                .filter(|k| *k != "$ref")
                .map(|k| format!("'{k}'"))
                .collect();
            (!others.is_empty()).then(|| Hit::new(&n.at, format!("{{{}}}", others.join(", "))))
        })
        .collect()
}

fn type_required(d: &Doc<'_>) -> Vec<Hit> {
    const STAND_INS: &[&str] = &["type", "anyOf", "$ref", "enum"];
    d.nodes
        .iter()
        .filter(|n| n.place != Place::Other)
        .filter(|n| match n.schema {
            Value::Object(m) => !STAND_INS.iter().any(|k| m.contains_key(*k)),
            // `true` / `false` carry no type either.
            _ => true,
        })
        .map(|n| Hit::new(&n.at, ""))
        .collect()
}

fn type_name(d: &Doc<'_>) -> Vec<Hit> {
    let mut hits = Vec::new();
    for (n, m) in d.maps() {
        match m.get("type") {
            None => {}
            Some(Value::String(_) | Value::Array(_)) => {
                let listed = match &m["type"] {
                    Value::Array(l) => l.iter().all(Value::is_string) && !l.is_empty(),
                    _ => true,
                };
                if !listed {
                    hits.push(Hit::new(&n.at, m["type"].to_string()));
                }
                for t in types(m) {
                    if !TYPES.contains(&t) {
                        hits.push(Hit::new(&n.at, t));
                    }
                }
            }
            Some(other) => hits.push(Hit::new(&n.at, other.to_string())),
        }
    }
    hits
}

fn closed(d: &Doc<'_>) -> Vec<Hit> {
    schemas_where(d, |_, m| {
        is_object(m) && m.get("additionalProperties") != Some(&Value::Bool(false))
    })
}

fn required_all(d: &Doc<'_>) -> Vec<Hit> {
    let mut hits = Vec::new();
    for (n, m) in d.maps() {
        let Some(Value::Object(props)) = m.get("properties") else {
            continue;
        };
        let Some(Value::Array(required)) = m.get("required") else {
            hits.push(Hit::new(&n.at, "required"));
            continue;
        };
        for k in props.keys() {
            if !required.iter().any(|r| r.as_str() == Some(k)) {
                hits.push(Hit::new(&n.at, k.clone()));
            }
        }
    }
    hits
}

fn required_extra(d: &Doc<'_>) -> Vec<Hit> {
    let mut hits = Vec::new();
    for (n, m) in d.maps() {
        let Some(Value::Array(required)) = m.get("required") else {
            continue;
        };
        let props = m.get("properties").and_then(Value::as_object);
        for r in required.iter().filter_map(Value::as_str) {
            if !props.is_some_and(|p| p.contains_key(r)) {
                hits.push(Hit::new(&n.at, r));
            }
        }
    }
    hits
}

fn object_properties(d: &Doc<'_>) -> Vec<Hit> {
    schemas_where(d, |_, m| {
        is_object(m) && !m.get("properties").is_some_and(Value::is_object)
    })
}

fn array_items(d: &Doc<'_>) -> Vec<Hit> {
    schemas_where(d, |_, m| {
        is_array(m) && !m.get("items").is_some_and(Value::is_object)
    })
}

fn format(d: &Doc<'_>) -> Vec<Hit> {
    formats_outside(d, FORMATS)
}

fn lookaround(d: &Doc<'_>) -> Vec<Hit> {
    schemas_where(d, |_, m| {
        m.get("pattern")
            .and_then(Value::as_str)
            .is_some_and(has_lookaround)
    })
}

fn over(count: usize, max: usize) -> Vec<Hit> {
    if count > max {
        vec![Hit::new("", count.to_string())]
    } else {
        Vec::new()
    }
}

fn limit_properties(d: &Doc<'_>) -> Vec<Hit> {
    let count = d
        .maps()
        .filter_map(|(_, m)| m.get("properties").and_then(Value::as_object))
        .map(Map::len)
        .sum();
    over(count, 5000)
}

fn limit_enum_values(d: &Doc<'_>) -> Vec<Hit> {
    let count = d
        .maps()
        .filter_map(|(_, m)| m.get("enum").and_then(Value::as_array))
        .map(Vec::len)
        .sum();
    over(count, 1000)
}

/// A value's length as the limit counts it: a string's characters, anything else its JSON text
/// (the page speaks of strings; counting other values too can only over-count).
fn chars(v: &Value) -> usize {
    match v {
        Value::String(s) => s.chars().count(),
        other => other.to_string().chars().count(),
    }
}

fn limit_chars(d: &Doc<'_>) -> Vec<Hit> {
    let mut total = 0;
    for (_, m) in d.maps() {
        for key in ["properties", "$defs"] {
            if let Some(Value::Object(entries)) = m.get(key) {
                total += entries.keys().map(|k| k.chars().count()).sum::<usize>();
            }
        }
        if let Some(Value::Array(values)) = m.get("enum") {
            total += values.iter().map(chars).sum::<usize>();
        }
        if let Some(c) = m.get("const") {
            total += chars(c);
        }
    }
    over(total, 120_000)
}

fn limit_large_enum(d: &Doc<'_>) -> Vec<Hit> {
    d.maps()
        .filter_map(|(n, m)| {
            let values = m.get("enum")?.as_array()?;
            if values.len() <= 250 || !values.iter().all(Value::is_string) {
                return None;
            }
            let total: usize = values.iter().map(chars).sum();
            (total > 15_000).then(|| Hit::new(&n.at, total.to_string()))
        })
        .collect()
}

/// The deepest chain of nested object schemas, following `$ref`s except into a definition
/// already on the path (recursion, which the page allows).
fn limit_depth(d: &Doc<'_>) -> Vec<Hit> {
    let mut memo = HashMap::new();
    let mut path = Vec::new();
    let depth = object_depth(d, d.root, &mut path, &mut memo, 0);
    if depth > 10 {
        vec![Hit::new("", depth.to_string())]
    } else {
        Vec::new()
    }
}

fn object_depth(
    d: &Doc<'_>,
    v: &Value,
    path: &mut Vec<String>,
    memo: &mut HashMap<String, usize>,
    guard: usize,
) -> usize {
    let Value::Object(m) = v else { return 0 };
    if guard > 256 {
        return 0;
    }
    let mut deepest = 0;
    if let Some(Value::String(r)) = m.get("$ref")
        && !path.contains(r)
    {
        if let Some(&known) = memo.get(r) {
            deepest = known;
        } else if let Some(target) = d.resolve(r) {
            path.push(r.clone());
            let found = object_depth(d, target, path, memo, guard + 1);
            path.pop();
            memo.insert(r.clone(), found);
            deepest = found;
        }
    }
    // A `$ref` target and the alternatives of a union sit at this node's level; the values of
    // properties and items sit one object level deeper when this node is an object.
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(list)) = m.get(key) {
            for alt in list {
                deepest = deepest.max(object_depth(d, alt, path, memo, guard + 1));
            }
        }
    }
    let mut children: Vec<&Value> = Vec::new();
    for key in ["properties", "patternProperties"] {
        if let Some(Value::Object(entries)) = m.get(key) {
            children.extend(entries.values());
        }
    }
    for key in ["items", "additionalProperties", "prefixItems"] {
        match m.get(key) {
            Some(Value::Array(list)) => children.extend(list.iter()),
            Some(v @ Value::Object(_)) => children.push(v),
            _ => {}
        }
    }
    let below = children
        .into_iter()
        .map(|c| object_depth(d, c, path, memo, guard + 1))
        .max()
        .unwrap_or(0);
    deepest.max(below + usize::from(is_object(m)))
}
