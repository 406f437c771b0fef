//! Anthropic tools with `strict: true`. The observed errors (providers.md §1c, §4) are firm; the
//! list of what strict mode supports is second-hand (§1c, [2nd]) and followed as written.

use serde_json::Value;

use super::{
    Basis, Doc, Hit, Place, Provider, Rejection, Rule, check, formats_outside, has_lookaround,
    is_object, keywords_outside, name_problem, present, recursive_refs, schemas_where, types,
};

const SECOND_HAND: &str = "providers.md §1c: strict-mode JSON Schema limitations [2nd]";

/// What the second-hand list says strict mode supports, plus annotations.
const SUPPORTED: &[&str] = &[
    "type",
    "enum",
    "const",
    "anyOf",
    "allOf",
    "$ref",
    "$defs",
    "definitions",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "format",
    "minItems",
    "pattern",
    "description",
    "title",
    "default",
    "examples",
    "$comment",
    "$schema",
];

/// Named as unsupported by the list; reported by their own rule.
const UNSUPPORTED: &[&str] = &[
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "maxItems",
    "uniqueItems",
    "contains",
    "minContains",
    "maxContains",
    "prefixItems",
];

const FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "uri",
    "ipv4",
    "ipv6",
    "uuid",
];

pub static RULES: &[Rule] = &[
    Rule {
        id: "root-type",
        basis: Basis::Observed,
        source: "providers.md §4: lidge-jun/opencodex#75",
        says: "tools.0.custom.input_schema.type: Field required ({detail})",
        check: |d| match d.root.get("type") {
            Some(Value::String(t)) if t == "object" => Vec::new(),
            Some(t) => vec![Hit::new("", t.to_string())],
            None => vec![Hit::new("", "missing")],
        },
    },
    Rule {
        id: "root-union",
        basis: Basis::Observed,
        source: "providers.md §4: anthropics/claude-code#5319",
        says: "tools.0.custom.input_schema: input_schema does not support oneOf, allOf, or anyOf at the top level",
        check: |d| {
            ["anyOf", "oneOf", "allOf"]
                .iter()
                .filter(|k| d.root.get(**k).is_some())
                .map(|k| Hit::new("", *k))
                .collect()
        },
    },
    Rule {
        id: "draft-2020-12",
        basis: Basis::Observed,
        source: "providers.md §1c, §4: anthropics/claude-code#63673, Dokploy/mcp#74, kintone/mcp-server#553",
        says: "tools.0.custom.input_schema: JSON schema is invalid. It must match JSON Schema draft 2020-12 ({detail})",
        check: |d| match jsonschema::draft202012::meta::validate(d.root) {
            Ok(()) => Vec::new(),
            Err(e) => vec![Hit::new(e.instance_path().as_str(), e.to_string())],
        },
    },
    Rule {
        id: "additional-properties",
        basis: Basis::SecondHand,
        source: SECOND_HAND,
        says: "{at}: additionalProperties must be false on every object",
        check: |d| {
            schemas_where(d, |_, m| {
                is_object(m) && m.get("additionalProperties") != Some(&Value::Bool(false))
            })
        },
    },
    Rule {
        id: "unsupported-keyword",
        basis: Basis::SecondHand,
        source: SECOND_HAND,
        says: "{at}: '{detail}' is not supported in strict mode",
        check: |d| present(d, UNSUPPORTED),
    },
    Rule {
        id: "unlisted-keyword",
        basis: Basis::Conservative,
        source: SECOND_HAND,
        says: "{at}: '{detail}' is not among the keywords strict mode supports",
        check: |d| {
            let mut hits = Vec::new();
            for (n, m) in d.maps() {
                for k in keywords_outside(m, SUPPORTED) {
                    if !UNSUPPORTED.contains(&k.as_str()) {
                        hits.push(Hit::new(&n.at, k));
                    }
                }
            }
            hits
        },
    },
    Rule {
        id: "min-items",
        basis: Basis::SecondHand,
        source: SECOND_HAND,
        says: "{at}: minItems {detail}: only 0 or 1 is supported",
        check: |d| {
            d.maps()
                .filter_map(|(n, m)| {
                    let v = m.get("minItems")?;
                    (v.as_u64().is_none_or(|x| x > 1)).then(|| Hit::new(&n.at, v.to_string()))
                })
                .collect()
        },
    },
    Rule {
        id: "format",
        basis: Basis::SecondHand,
        source: SECOND_HAND,
        says: "{at}: format \"{detail}\" is not supported",
        check: |d| formats_outside(d, FORMATS),
    },
    Rule {
        id: "pattern",
        basis: Basis::SecondHand,
        source: SECOND_HAND,
        says: "{at}: pattern uses {detail}, which strict mode does not support",
        check: |d| {
            d.maps()
                .filter_map(|(n, m)| {
                    let p = m.get("pattern")?.as_str()?;
                    complex_regex(p).map(|what| Hit::new(&n.at, what))
                })
                .collect()
        },
    },
    Rule {
        id: "recursion",
        basis: Basis::SecondHand,
        source: SECOND_HAND,
        says: "{at}: recursive schemas are not supported ($ref {detail})",
        check: recursive_refs,
    },
    Rule {
        id: "external-ref",
        basis: Basis::SecondHand,
        source: SECOND_HAND,
        says: "{at}: external $ref {detail} is not supported",
        check: |d| {
            d.maps()
                .filter_map(|(n, m)| {
                    let r = m.get("$ref")?.as_str()?;
                    (!r.starts_with('#')).then(|| Hit::new(&n.at, r))
                })
                .collect()
        },
    },
    Rule {
        id: "allof-ref",
        basis: Basis::SecondHand,
        source: SECOND_HAND,
        says: "{at}: allOf with $ref is not supported",
        check: |d| {
            schemas_where(d, |_, m| {
                m.get("allOf")
                    .and_then(Value::as_array)
                    .is_some_and(|parts| parts.iter().any(|p| p.get("$ref").is_some()))
            })
        },
    },
    Rule {
        id: "enum-primitive",
        basis: Basis::SecondHand,
        source: SECOND_HAND,
        says: "{at}: enum value {detail}: only primitive values are supported",
        check: |d| {
            let mut hits = Vec::new();
            for (n, m) in d.maps() {
                if let Some(Value::Array(values)) = m.get("enum") {
                    for v in values.iter().filter(|v| v.is_object() || v.is_array()) {
                        hits.push(Hit::new(&n.at, v.to_string()));
                    }
                }
            }
            hits
        },
    },
    Rule {
        id: "object-properties",
        basis: Basis::Unconfirmed,
        source: "providers.md §1c: ax-llm/ax#459 (arbitrary JSON objects)",
        says: "{at}: objects without properties are not supported",
        check: |d| {
            schemas_where(d, |_, m| {
                is_object(m) && !m.get("properties").is_some_and(Value::is_object)
            })
        },
    },
    Rule {
        id: "untyped",
        basis: Basis::Sdk,
        source: "providers.md §1c: anthropic-sdk-python transform_schema",
        says: "Schema must have a 'type', 'enum', 'anyOf', 'oneOf', or 'allOf' field. (at {at})",
        check: |d| {
            const STAND_INS: &[&str] = &["type", "enum", "anyOf", "oneOf", "allOf", "$ref"];
            d.nodes
                .iter()
                .filter(|n| n.place != Place::Other)
                .filter(|n| {
                    !n.map()
                        .is_some_and(|m| STAND_INS.iter().any(|k| m.contains_key(*k)))
                })
                .map(|n| Hit::new(&n.at, ""))
                .collect()
        },
    },
    Rule {
        id: "limit-optional",
        basis: Basis::SecondHand,
        source: SECOND_HAND,
        says: "{detail} optional parameters; at most 24 across the strict tools of a request",
        check: |d| {
            let count = optional_count(d);
            if count > MAX_OPTIONAL {
                vec![Hit::new("", count.to_string())]
            } else {
                Vec::new()
            }
        },
    },
    Rule {
        id: "limit-unions",
        basis: Basis::SecondHand,
        source: SECOND_HAND,
        says: "{detail} parameters use anyOf or type arrays; at most 16 across the strict tools of a request",
        check: |d| {
            let count = union_count(d);
            if count > MAX_UNIONS {
                vec![Hit::new("", count.to_string())]
            } else {
                Vec::new()
            }
        },
    },
    Rule {
        id: "tool-name",
        basis: Basis::Observed,
        source: "providers.md §4: home-assistant/core#147760",
        says: "tools.0.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$' ({detail})",
        check: |d| {
            d.name
                .and_then(|n| name_problem(n, "_-", 128, false))
                .map(|p| vec![Hit::new("", p)])
                .unwrap_or_default()
        },
    },
];

/// Strict tools one request may hold (§1c [2nd]; pydantic-ai's Bedrock provider says the same).
pub const MAX_STRICT_TOOLS: usize = 20;
/// Optional parameters across the strict tools of a request (§1c [2nd]).
pub const MAX_OPTIONAL: usize = 24;
/// Parameters using `anyOf` or a type array across the strict tools of a request (§1c [2nd]).
pub const MAX_UNIONS: usize = 16;

/// Optional parameters in a schema: properties their object's `required` does not list, in
/// every object.
pub fn optional_count(d: &Doc<'_>) -> usize {
    d.maps()
        .filter_map(|(_, m)| {
            let props = m.get("properties")?.as_object()?;
            let required = m.get("required").and_then(Value::as_array);
            Some(
                props
                    .keys()
                    .filter(|k| !required.is_some_and(|r| r.iter().any(|x| x.as_str() == Some(k))))
                    .count(),
            )
        })
        .sum()
}

/// Parameters whose schema is an `anyOf` or a list of types.
pub fn union_count(d: &Doc<'_>) -> usize {
    d.nodes
        .iter()
        .filter(|n| n.place == Place::Property)
        .filter_map(|n| n.map())
        .filter(|m| m.contains_key("anyOf") || types(m).len() > 1)
        .count()
}

/// One tool of a request as it is sent.
#[derive(Clone, Copy)]
pub struct SentTool<'a> {
    pub name: &'a str,
    pub input_schema: &'a Value,
    pub strict: bool,
}

/// What ordinary (non-strict) tool use refuses too: the observed errors of §1c.
const ORDINARY: &[&str] = &["root-type", "root-union", "draft-2020-12", "tool-name"];

/// What Anthropic refuses in a whole request: a strict tool's schema by [`RULES`], another
/// tool's by the rules ordinary tool use has too; names that repeat; and, across the strict
/// tools, more than 20 of them, 24 optional parameters or 16 union-typed ones (§1c [2nd]).
pub fn check_request(tools: &[SentTool<'_>]) -> Vec<Rejection> {
    let mut out = Vec::new();
    for (i, t) in tools.iter().enumerate() {
        let refused = check(Provider::AnthropicStrict, Some(t.name), t.input_schema)
            .into_iter()
            .filter(|r| t.strict || ORDINARY.contains(&r.rule));
        out.extend(refused.map(|mut r| {
            r.at = format!("tools.{i} ({}) #{}", t.name, r.at);
            r
        }));
        if tools[..i].iter().any(|earlier| earlier.name == t.name) {
            out.push(request_rejection(
                "unique-names",
                Basis::Observed,
                "providers.md §1c: danny-avila/LibreChat#13162",
                format!("tools: Tool names must be unique. ({})", t.name),
            ));
        }
    }
    let strict: Vec<Doc<'_>> = tools
        .iter()
        .filter(|t| t.strict)
        .map(|t| Doc::new(t.input_schema, Some(t.name)))
        .collect();
    let optional: usize = strict.iter().map(optional_count).sum();
    let unions: usize = strict.iter().map(union_count).sum();
    for (id, total, max, what) in [
        (
            "request-strict-tools",
            strict.len(),
            MAX_STRICT_TOOLS,
            "strict tools",
        ),
        (
            "request-optional",
            optional,
            MAX_OPTIONAL,
            "optional parameters across the strict tools",
        ),
        (
            "request-unions",
            unions,
            MAX_UNIONS,
            "parameters using anyOf or type arrays across the strict tools",
        ),
    ] {
        if total > max {
            out.push(request_rejection(
                id,
                Basis::SecondHand,
                SECOND_HAND,
                format!("{total} {what}; a request allows {max}"),
            ));
        }
    }
    out
}

fn request_rejection(
    rule: &'static str,
    basis: Basis,
    source: &'static str,
    message: String,
) -> Rejection {
    Rejection {
        rule,
        basis,
        at: "tools".to_owned(),
        message,
        source,
    }
}

/// Regex features the list calls complex: lookaround, backreferences, word boundaries.
fn complex_regex(p: &str) -> Option<&'static str> {
    if has_lookaround(p) {
        return Some("lookaround");
    }
    let b = p.as_bytes();
    let mut i = 0;
    while i + 1 < b.len() {
        if b[i] == b'\\' {
            match b[i + 1] {
                b'1'..=b'9' | b'k' => return Some("a backreference"),
                b'b' | b'B' => return Some("a word boundary"),
                _ => {}
            }
            i += 2;
        } else {
            i += 1;
        }
    }
    None
}
