//! Gemini `functionDeclarations[].parameters`: the OpenAPI 3.0 subset of the `Schema` proto.
//! What the Developer API or Vertex AI refuses counts. Sources: providers.md §1b and §4.

use serde_json::Value;

use super::{
    Basis, Hit, Place, Rule, formats_outside, is_array, is_object, keywords_outside, name_problem,
    present, schemas_where,
};

/// The fields of python-genai's `types.Schema` that both APIs take (`additionalProperties` and
/// `ref`/`defs` have their own rules below).
const FIELDS: &[&str] = &[
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "default",
    "example",
    "enum",
    "items",
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "propertyOrdering",
    "anyOf",
];

/// The `Type` enum; the REST API is also sent the lower-case JSON Schema names.
const TYPES: &[&str] = &[
    "STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL",
];

const UNKNOWN: &str =
    "Invalid JSON payload received. Unknown name \"{detail}\" at '{at}': Cannot find field.";

pub static RULES: &[Rule] = &[
    Rule {
        id: "root-type",
        basis: Basis::Unconfirmed,
        source: "providers.md §4: BerriAI/litellm#19103",
        says: "functionDeclaration parameters schema should be of type OBJECT",
        check: |d| match d.root.get("type").and_then(Value::as_str) {
            Some(t) if t.eq_ignore_ascii_case("object") => Vec::new(),
            _ => vec![Hit::new("", "")],
        },
    },
    Rule {
        id: "unknown-field",
        basis: Basis::Observed,
        source: "providers.md §1b (Schema fields), §4: zed-industries/zed#44875, openswarm-ai/openswarm#24",
        says: UNKNOWN,
        check: |d| {
            let mut hits = Vec::new();
            for (n, m) in d.maps() {
                for k in keywords_outside(m, FIELDS) {
                    if !["additionalProperties", "$ref", "$defs"].contains(&k.as_str()) {
                        hits.push(Hit::new(&n.at, k));
                    }
                }
            }
            hits
        },
    },
    Rule {
        id: "additional-properties",
        basis: Basis::Observed,
        source: "providers.md §1b: python-genai _raise_for_unsupported_mldev_properties; §4 zed-industries/zed#44875",
        says: "additionalProperties is only supported in Gemini Enterprise Agent Platform mode, not in Gemini Developer API mode. (at {at})",
        check: |d| present(d, &["additionalProperties"]),
    },
    Rule {
        id: "refs",
        basis: Basis::Unconfirmed,
        source: "providers.md §4: zendev-sh/goai#39 (`$ref`/`$defs` in `parameters`)",
        says: "referenced name does not match display_name (at {at})",
        check: |d| present(d, &["$ref", "$defs"]),
    },
    Rule {
        id: "type-list",
        basis: Basis::Observed,
        source: "providers.md §4: zed-industries/zed#53919",
        says: "Invalid JSON payload received. Unknown name \"type\" at '{at}': Proto field is not repeating, cannot start list.",
        check: |d| schemas_where(d, |_, m| m.get("type").is_some_and(Value::is_array)),
    },
    Rule {
        id: "type-name",
        basis: Basis::Observed,
        source: "providers.md §4: google-gemini/deprecated-generative-ai-js#320, zereight/gitlab-mcp#166",
        says: "Invalid value at '{at}.type' (type.googleapis.com/google.ai.generativelanguage.v1beta.Type), \"{detail}\"",
        check: |d| {
            d.maps()
                .filter_map(|(n, m)| match m.get("type") {
                    Some(Value::String(t)) if TYPES.iter().any(|x| x.eq_ignore_ascii_case(t)) => {
                        None
                    }
                    Some(Value::Array(_)) | None => None,
                    Some(t) => Some(Hit::new(&n.at, t.as_str().unwrap_or(&t.to_string()))),
                })
                .collect()
        },
    },
    Rule {
        id: "enum-string",
        basis: Basis::Observed,
        source: "providers.md §4: microsoft/azure-devops-mcp#139",
        says: "Invalid value at '{at}' (TYPE_STRING), {detail}",
        check: |d| {
            let mut hits = Vec::new();
            for (n, m) in d.maps() {
                if let Some(Value::Array(values)) = m.get("enum") {
                    for (i, v) in values.iter().enumerate() {
                        if !v.is_string() {
                            hits.push(Hit::new(&format!("{}/enum/{i}", n.at), v.to_string()));
                        }
                    }
                }
            }
            hits
        },
    },
    Rule {
        id: "enum-type",
        basis: Basis::Observed,
        source: "providers.md §4: anomalyco/opencode#12911, decolua/9router#380; the SDK documents INTEGER/NUMBER with `format: enum` (§1b)",
        says: "{at}.enum: only allowed for STRING type",
        check: |d| {
            d.maps()
                .filter(|(_, m)| m.contains_key("enum"))
                .filter(|(_, m)| {
                    let t = m.get("type").and_then(Value::as_str).unwrap_or_default();
                    let as_enum = m.get("format").and_then(Value::as_str) == Some("enum");
                    !(t.eq_ignore_ascii_case("string")
                        || (as_enum
                            && (t.eq_ignore_ascii_case("integer")
                                || t.eq_ignore_ascii_case("number"))))
                })
                .map(|(n, _)| Hit::new(&n.at, ""))
                .collect()
        },
    },
    Rule {
        id: "required-undeclared",
        basis: Basis::Observed,
        source: "providers.md §4: iBUHub/AIStudioToAPI#154",
        says: "{at}.required: property is not defined ({detail})",
        check: |d| {
            let mut hits = Vec::new();
            for (n, m) in d.maps() {
                let Some(Value::Array(required)) = m.get("required") else {
                    continue;
                };
                let props = m.get("properties").and_then(Value::as_object);
                for r in required {
                    let declared = r
                        .as_str()
                        .is_some_and(|r| props.is_some_and(|p| p.contains_key(r)));
                    if !declared {
                        hits.push(Hit::new(&n.at, r.to_string()));
                    }
                }
            }
            hits
        },
    },
    Rule {
        id: "array-items",
        basis: Basis::Observed,
        source: "providers.md §4: DEEIX-AI/DEEIX-Chat#546",
        says: "items: missing field (at {at})",
        check: |d| {
            schemas_where(d, |_, m| {
                is_array(m) && !m.get("items").is_some_and(Value::is_object)
            })
        },
    },
    Rule {
        id: "items-list",
        basis: Basis::Conservative,
        source: "providers.md §1b: `items` is one Schema; a list where the proto holds one message (as with `type`, §4 zed-industries/zed#53919)",
        says: "Invalid JSON payload received. Unknown name \"items\" at '{at}': Proto field is not repeating, cannot start list.",
        check: |d| schemas_where(d, |_, m| m.get("items").is_some_and(Value::is_array)),
    },
    Rule {
        id: "format",
        basis: Basis::Documented,
        source: "providers.md §1b: Firebase Schema reference (Developer API: only `enum` and `date-time`)",
        says: "format \"{detail}\" at {at}: only 'enum' and 'date-time' are supported",
        check: |d| formats_outside(d, &["enum", "date-time"]),
    },
    Rule {
        id: "node-type",
        basis: Basis::Observed,
        source: "providers.md §4: directus/mcp#8 (Vertex AI)",
        says: "functionDeclaration '{at}' schema didn't specify the schema type field.",
        check: |d| {
            d.nodes
                .iter()
                .filter(|n| n.place != Place::Other)
                .filter(|n| {
                    !n.map()
                        .is_some_and(|m| m.contains_key("type") || m.contains_key("anyOf"))
                })
                .map(|n| Hit::new(&n.at, ""))
                .collect()
        },
    },
    Rule {
        id: "object-properties",
        basis: Basis::Observed,
        source: "providers.md §4: langchain-ai/langchainjs#7935, agno-agi/agno#2112 (a tool without parameters is sent without `parameters`, so an empty root is not judged)",
        says: "{at}.properties: should be non-empty for OBJECT type",
        check: |d| {
            schemas_where(d, |n, m| {
                is_object(m)
                    && match m.get("properties") {
                        Some(Value::Object(p)) => p.is_empty() && !n.at.is_empty(),
                        _ => true,
                    }
            })
        },
    },
    Rule {
        id: "property-name",
        basis: Basis::Documented,
        source: "providers.md §1b (parameter names: a letter or `_` first, then a-z, A-Z, 0-9, `_`, at most 64)",
        says: "parameter name {detail}",
        check: |d| {
            let mut hits = Vec::new();
            for (n, m) in d.maps() {
                if let Some(Value::Object(props)) = m.get("properties") {
                    for k in props.keys() {
                        if let Some(p) = name_problem(k, "_", 64, true) {
                            hits.push(Hit::new(&n.at, format!("{k:?} {p}")));
                        }
                    }
                }
            }
            hits
        },
    },
    Rule {
        id: "tool-name",
        basis: Basis::Documented,
        source: "providers.md §1b (function name; 64 in the REST docs, 128 in the newest SDK)",
        says: "function name {detail}",
        check: |d| {
            d.name
                .and_then(|n| name_problem(n, "_.:-", 64, true))
                .map(|p| vec![Hit::new("", p)])
                .unwrap_or_default()
        },
    },
];
