//! Does the provider accept what `project --provider` sends? Every tool of the real-manifest
//! corpus is tailored for `openai-strict`, `gemini` and `anthropic-strict` and judged by an
//! independent checker of each provider's rules (`tests/providers`, written from the research
//! notes, not from `src/lint`). Every valid payload of the corpus, adapted, must be accepted by
//! the tailored schema and un-adapt to itself.
//!
//! The checker itself is pinned first on examples whose verdict the notes give.

mod providers;
mod support;

use std::collections::BTreeMap;
use std::path::Path;

use providers::anthropic_strict::{SentTool, check_request, optional_count, union_count};
use providers::{Doc, Provider, Rejection, check};
use schemalens::lint::Profile;
use schemalens::lint::report::{Form, ToolForms, Verdict, lint_forms_for};
use schemalens::manifest::{self, Tool};
use schemalens::projection::Mode;
use schemalens::projection::Tailored;
use schemalens::schema::Draft;
use schemalens::{Options, tailor_tool};
use serde_json::{Map, Value, json};

// ---------------------------------------------------------------------------------------------
// The checker on known verdicts.

fn rules(provider: Provider, schema: Value) -> Vec<&'static str> {
    let mut ids: Vec<&str> = check(provider, Some("tool"), &schema)
        .iter()
        .map(|r| r.rule)
        .collect();
    ids.dedup();
    ids
}

#[test]
fn openai_strict_checker_matches_documented_verdicts() {
    // The supported-schemas page's own example (providers.md §1a, community thread 918388).
    let weather = json!({
        "type": "object",
        "properties": {
            "location": {"type": "string", "description": "The location"},
            "unit": {"type": ["string", "null"], "enum": ["F", "C"]}
        },
        "additionalProperties": false,
        "required": ["location", "unit"]
    });
    assert_eq!(rules(Provider::OpenAiStrict, weather), Vec::<&str>::new());
    // Recursion through `$defs` is documented as supported.
    let tree = json!({
        "type": "object",
        "properties": {"root": {"$ref": "#/$defs/node"}},
        "required": ["root"],
        "additionalProperties": false,
        "$defs": {"node": {
            "type": "object",
            "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/node"}}},
            "required": ["children"],
            "additionalProperties": false
        }}
    });
    assert_eq!(rules(Provider::OpenAiStrict, tree), Vec::<&str>::new());
    assert_eq!(
        rules(Provider::OpenAiStrict, json!({"type": "object"})),
        ["additional-properties", "object-properties"]
    );
    assert_eq!(
        rules(
            Provider::OpenAiStrict,
            json!({"type": "object", "properties": {"ok": {}}, "required": ["ok"], "additionalProperties": false})
        ),
        ["type-required"]
    );
    assert_eq!(
        rules(
            Provider::OpenAiStrict,
            json!({"type": "object", "properties": {"a": {"type": "string", "default": "x"}}, "required": [], "additionalProperties": false})
        ),
        ["default", "required-all"]
    );
    assert_eq!(
        rules(
            Provider::OpenAiStrict,
            json!({"anyOf": [{"type": "object", "properties": {}, "required": [], "additionalProperties": false}]})
        ),
        ["root-type", "root-union"]
    );
    // A tool without arguments, as OpenAI's SDKs send it: `$schema` at the root (openai-java
    // writes it), an empty `required` (openai-python writes it); without `required` it is
    // refused.
    let no_arguments = json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {},
        "required": [],
        "additionalProperties": false
    });
    assert_eq!(
        rules(Provider::OpenAiStrict, no_arguments.clone()),
        Vec::<&str>::new()
    );
    let mut without_required = no_arguments;
    without_required.as_object_mut().unwrap().remove("required");
    assert_eq!(
        rules(Provider::OpenAiStrict, without_required),
        ["required-all"]
    );
    // Below the root the same SDK refuses `$schema` and `$id`, and `$comment` anywhere.
    assert_eq!(
        rules(
            Provider::OpenAiStrict,
            json!({"type": "object", "$comment": "c", "properties": {"a": {"$schema": "x", "$id": "y", "type": "string"}}, "required": ["a"], "additionalProperties": false})
        ),
        ["sdk-keyword"]
    );
    // Eleven nested objects: one more than the page allows.
    let mut deep = json!({"type": "string"});
    for _ in 0..11 {
        deep = json!({"type": "object", "properties": {"x": deep}, "required": ["x"], "additionalProperties": false});
    }
    assert_eq!(rules(Provider::OpenAiStrict, deep), ["limit-depth"]);
    let many: Vec<String> = (0..1001).map(|i| format!("v{i}")).collect();
    assert_eq!(
        rules(
            Provider::OpenAiStrict,
            json!({"type": "object", "properties": {"e": {"type": "string", "enum": many}}, "required": ["e"], "additionalProperties": false})
        ),
        ["limit-enum-values"]
    );
}

#[test]
fn gemini_checker_matches_reported_errors() {
    let ok = json!({
        "type": "object",
        "properties": {
            "n": {"type": "integer", "nullable": true},
            "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}}
        },
        "required": ["tags"]
    });
    assert_eq!(rules(Provider::Gemini, ok), Vec::<&str>::new());
    assert_eq!(
        rules(
            Provider::Gemini,
            json!({"type": "object", "properties": {"v": {"type": ["string", "null"]}}})
        ),
        ["type-list"]
    );
    assert_eq!(
        rules(
            Provider::Gemini,
            json!({"type": "object", "properties": {"v": {"type": "integer", "enum": [1, 2]}}})
        ),
        ["enum-string", "enum-type"]
    );
    assert_eq!(
        rules(
            Provider::Gemini,
            json!({"type": "object", "properties": {"v": {"const": "x"}}, "additionalProperties": false})
        ),
        ["unknown-field", "additional-properties", "node-type"]
    );
    assert_eq!(
        rules(
            Provider::Gemini,
            json!({"type": "object", "properties": {"p": {"type": "array"}}, "required": ["q"]})
        ),
        ["required-undeclared", "array-items"]
    );
}

#[test]
fn anthropic_strict_checker_matches_reported_errors() {
    let ok = json!({
        "type": "object",
        "properties": {"a": {"type": "string", "format": "uri"}, "b": {"anyOf": [{"type": "integer"}, {"type": "null"}]}},
        "required": ["a"],
        "additionalProperties": false
    });
    assert_eq!(rules(Provider::AnthropicStrict, ok), Vec::<&str>::new());
    // Draft-07 tuple items (kintone/mcp-server#553).
    assert_eq!(
        rules(
            Provider::AnthropicStrict,
            json!({"type": "object", "properties": {"t": {"type": "array", "items": [{"type": "string"}]}}, "additionalProperties": false})
        ),
        ["draft-2020-12"]
    );
    assert_eq!(
        rules(
            Provider::AnthropicStrict,
            json!({"anyOf": [{"type": "object"}]})
        ),
        [
            "root-type",
            "root-union",
            "additional-properties",
            "object-properties"
        ]
    );
    let recursive = json!({
        "type": "object",
        "properties": {"n": {"$ref": "#"}},
        "additionalProperties": false
    });
    assert_eq!(rules(Provider::AnthropicStrict, recursive), ["recursion"]);
}

/// Tailoring's own carriers add levels (`{"json": text}` beside a marker alternative): a value
/// nested ten levels down, which may be any object or `null` (as notion's `link`), crossed
/// OpenAI's limit of 10 once tailored. The subtree that crosses it is sent as JSON text instead,
/// traced, and every payload still comes back as it was.
#[test]
fn a_value_nested_past_the_depth_limit_is_sent_as_json_text() {
    let mut schema = json!({
        "type": "object",
        "properties": {
            "content": {"type": "string"},
            "link": {"type": ["object", "null"], "description": "Where the text points."}
        },
        "required": ["content"]
    });
    for _ in 0..9 {
        schema = json!({"type": "object", "properties": {"next": schema}, "required": ["next"]});
    }
    let tool = bare_tool(&schema, "deep");
    let t = tailor_tool(&tool, &Options::flat(), Profile::OpenAiStrict).expect("tailored");
    assert!(t.unresolved.is_empty(), "{:?}", t.unresolved);
    let sent = check(Provider::OpenAiStrict, Some("deep"), &t.projection.schema);
    assert!(sent.is_empty(), "{sent:?}");
    let link = format!("{}/properties/link", "/properties/next".repeat(9));
    assert_eq!(
        t.projection.schema.pointer(&link),
        Some(&json!({
            "type": ["string", "null"],
            "description": "Where the text points. Sent as JSON text (a string): the value's schema nests deeper than the provider allows."
        }))
    );
    let traced = t
        .projection
        .trace
        .iter()
        .find(|e| e.at == link && e.rule.id() == "tailor-json-text")
        .expect("the carrier is traced");
    assert!(
        traced
            .message()
            .contains("nested 13 levels deep where the provider allows 10"),
        "{}",
        traced.message()
    );
    let at_depth = |text: Value| {
        let mut p = text;
        for _ in 0..9 {
            p = json!({"next": p});
        }
        p
    };
    sent_and_back(
        &tool,
        &t,
        &[
            at_depth(json!({"content": "a"})),
            at_depth(json!({"content": "a", "link": null})),
            at_depth(json!({"content": "a", "link": {}})),
            at_depth(
                json!({"content": "a", "link": {"url": "https://example.com", "depth": [1, {"x": null}]}}),
            ),
        ],
    );
}

/// OpenAI's Response model nests past the limit on some hundred paths (an output item's tools
/// hold tools). Tailoring carried one path per lint pass and stopped after 64, so the tool
/// was still refused; now every path over the limit is cut in one pass. Here 80 properties
/// each nest 12 levels of objects: each is carried at the deepest level within the limit.
#[test]
fn every_path_nested_past_the_depth_limit_is_carried() {
    const WIDTH: usize = 80;
    let mut leaf =
        json!({"type": "object", "properties": {"v": {"type": "integer"}}, "required": ["v"]});
    for _ in 0..11 {
        leaf = json!({"type": "object", "properties": {"next": leaf}, "required": ["next"]});
    }
    let properties: Map<String, Value> = (0..WIDTH)
        .map(|i| (format!("p{i}"), leaf.clone()))
        .collect();
    let names: Vec<String> = properties.keys().cloned().collect();
    let schema = json!({"type": "object", "properties": properties, "required": names});
    let tool = wide_tool(&schema);
    assert!(
        !check(Provider::OpenAiStrict, Some("wide"), &schema).is_empty(),
        "the checker refuses the original"
    );
    let (t, _) = fits(&tool, Provider::OpenAiStrict, Profile::OpenAiStrict);
    let carried = t
        .projection
        .trace
        .iter()
        .filter(|e| e.rule.id() == "tailor-json-text")
        .count();
    assert_eq!(carried, WIDTH);
    let mut deep = json!({"v": 1});
    for _ in 0..11 {
        deep = json!({"next": deep});
    }
    let payload: Map<String, Value> = (0..WIDTH)
        .map(|i| (format!("p{i}"), deep.clone()))
        .collect();
    sent_and_back(&tool, &t, &[Value::Object(payload)]);
}

/// A bare schema as a tool named `wide`.
fn wide_tool(schema: &Value) -> Tool {
    bare_tool(schema, "wide")
}

/// A bare schema as a tool named `name` (its file's stem).
fn bare_tool(schema: &Value, name: &str) -> Tool {
    manifest::load_str(&schema.to_string(), &format!("{name}.json"), None)
        .expect("a bare schema")
        .tools
        .remove(0)
}

/// Tailors `tool` (flat) for `profile` and checks what both judges say: `provider`'s checker
/// accepts it, and lint's tailored column says accepted. Returns it with the size-limit rules
/// lint still counts on the tailored form.
fn fits(tool: &Tool, provider: Provider, profile: Profile) -> (Tailored, Vec<&'static str>) {
    let options = Options::flat();
    let t = tailor_tool(tool, &options, profile).expect("tailored");
    assert!(t.unresolved.is_empty(), "{:?}", t.unresolved);
    let sent = check(provider, Some("wide"), &t.projection.schema);
    assert!(sent.is_empty(), "{sent:?}\n{:#}", t.projection.schema);
    let projection = schemalens::project_tool(tool, &options).expect("projected");
    let forms = [ToolForms {
        name: Some("wide"),
        tool,
        options: &options,
        projection: Ok(&projection),
    }];
    let lint = &lint_forms_for(&[profile], &forms)[0][0];
    assert_eq!(lint.verdict(Form::Tailored), Verdict::Accepted);
    let limits = lint
        .form(Form::Tailored)
        .groups
        .iter()
        .map(|g| g.finding.rule)
        .filter(|r| r.starts_with("limit-"))
        .collect();
    (t, limits)
}

/// [`fits`] for Anthropic strict, with no size limit left (per tool).
fn anthropic_fits(tool: &Tool) -> Tailored {
    let (t, limits) = fits(tool, Provider::AnthropicStrict, Profile::AnthropicStrict);
    assert!(limits.is_empty(), "{limits:?}");
    t
}

/// 30 optional parameters where Anthropic strict allows 24: the last seven go together, as
/// JSON text, into one optional `more` (30 - 7 + 1 = 24), traced with the counts; payloads with
/// any of them come back as they were, and text the model makes up is left as text.
#[test]
fn optional_parameters_over_anthropics_limit_are_sent_together_as_json_text() {
    let mut properties = serde_json::Map::new();
    for i in 0..30 {
        properties.insert(
            format!("p{i:02}"),
            json!({"type": "string", "description": format!("Field {i}.")}),
        );
    }
    properties.insert("id".into(), json!({"type": "integer"}));
    // As Zod and Pydantic emit it: the dialect named at the root. Closed (a Zod object): an
    // open one would count one more optional property, the carrier of its other keys, which
    // the bundle then joins.
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": properties,
        "required": ["id"],
        "additionalProperties": false
    });
    let tool = wide_tool(&schema);
    let t = anthropic_fits(&tool);
    let sent = &t.projection.schema;
    let bundled: Vec<String> = (23..30).map(|i| format!("p{i:02}")).collect();
    for name in &bundled {
        assert!(
            sent["properties"].get(name).is_none(),
            "{name} still a parameter"
        );
    }
    assert_eq!(sent["properties"]["more"]["type"], json!("string"));
    let description = sent["properties"]["more"]["description"].as_str().unwrap();
    assert!(description.contains("`p29`: Field 29."), "{description}");
    assert!(sent["properties"].get("p22").is_some());
    let traced = t
        .projection
        .trace
        .iter()
        .find(|e| e.at == "/properties/more")
        .expect("the bundle is traced");
    assert_eq!(traced.rule.id(), "tailor-json-text");
    let message = traced.message();
    assert!(
        message.contains("30 optional properties where it allows 24")
            && message.contains("`p23`, `p24`, `p25`, `p26`, `p27`, `p28`, `p29` are sent together as JSON text in `more`"),
        "{message}"
    );
    sent_and_back(
        &tool,
        &t,
        &[
            json!({"id": 1}),
            json!({"id": 1, "p00": "a", "p22": "b"}),
            json!({"id": 1, "p23": "c"}),
            json!({"id": 2, "p29": "z", "p00": "a", "p25": "\"quoted\" {}"}),
        ],
    );
    let (_, draft) = validator(&tool, &t);
    let adapter = t.payload_adapter(draft);
    let sent_payload = adapter.adapt(&json!({"id": 1, "p24": "x"})).payload;
    assert_eq!(sent_payload, json!({"id": 1, "more": "{\"p24\":\"x\"}"}));
    for made_up in [
        json!({"id": 1, "more": "not json"}),
        json!({"id": 1, "more": "{\"id\": 2}"}),
    ] {
        assert_eq!(adapter.unadapt(&made_up), made_up, "left as text");
    }
}

/// A Pydantic model of 840 fields as it emits them by default, two in three
/// `Optional[str] = None` (560 optional, each an `anyOf` with `null`): Anthropic strict allows
/// 24 optional properties and 16 using `anyOf`, so all but 16 of them move into the bundle, one
/// move each. Before the fit kept its counts through the moves it stopped at 512 and sent a
/// schema over both limits.
#[test]
fn a_pydantic_model_of_hundreds_of_optional_fields_fits_anthropic_strict() {
    let mut properties = serde_json::Map::new();
    let mut required = Vec::new();
    for i in 0..840 {
        let name = format!("field_{i}");
        if i % 3 == 0 {
            properties.insert(name.clone(), json!({"type": "integer", "title": name}));
            required.push(json!(name));
        } else {
            properties.insert(
                name.clone(),
                json!({"anyOf": [{"type": "string"}, {"type": "null"}], "default": null, "title": name}),
            );
        }
    }
    let schema =
        json!({"type": "object", "title": "Wide", "properties": properties, "required": &required});
    let tool = wide_tool(&schema);
    let t = anthropic_fits(&tool);
    let sent = t.projection.schema["properties"].as_object().unwrap();
    // The 280 required fields, the 16 optional ones that union limit leaves room for, and
    // the bundle.
    assert_eq!(
        sent.len(),
        280 + 16 + 1,
        "{:?}",
        sent.keys().collect::<Vec<_>>()
    );
    assert_eq!(sent["more"]["type"], json!("string"));
    let only_required: serde_json::Map<String, Value> = required
        .iter()
        .filter_map(Value::as_str)
        .map(|name| (name.to_owned(), json!(7)))
        .collect();
    let mut some_optional = only_required.clone();
    some_optional.insert("field_1".into(), json!("first, kept"));
    some_optional.insert("field_839".into(), Value::Null);
    some_optional.insert("field_838".into(), json!("last, bundled"));
    sent_and_back(
        &tool,
        &t,
        &[Value::Object(only_required), Value::Object(some_optional)],
    );
}

/// 20 parameters typed `string | integer` (required) and 6 optional `Optional[str]` where
/// Anthropic strict allows 16 union-typed ones: enough of them are sent as JSON text (required
/// ones each in its place, optional ones together) that 16 remain; every value comes back.
#[test]
fn union_parameters_over_anthropics_limit_are_sent_as_json_text() {
    let mut properties = serde_json::Map::new();
    let mut required = Vec::new();
    for i in 0..20 {
        properties.insert(format!("u{i:02}"), json!({"type": ["string", "integer"]}));
        required.push(json!(format!("u{i:02}")));
    }
    for i in 0..6 {
        properties.insert(
            format!("o{i}"),
            json!({"anyOf": [{"type": "string"}, {"type": "null"}], "default": null}),
        );
    }
    let schema = json!({"type": "object", "properties": properties, "required": required});
    let tool = wide_tool(&schema);
    let t = anthropic_fits(&tool);
    let sent = &t.projection.schema;
    let unions = sent["properties"]
        .as_object()
        .unwrap()
        .values()
        .filter(|p| p.get("anyOf").is_some() || p["type"].is_array())
        .count();
    assert_eq!(unions, 16, "{sent:#}");
    let carried = sent["properties"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(_, p)| p["type"] == json!("string"))
        .count();
    assert!(carried >= 1, "{sent:#}");
    let mut payload = serde_json::Map::new();
    for i in 0..20 {
        payload.insert(
            format!("u{i:02}"),
            if i % 2 == 0 {
                json!(i)
            } else {
                json!(format!("{i}"))
            },
        );
    }
    let all = Value::Object(payload.clone());
    payload.insert("o0".into(), json!(null));
    payload.insert("o5".into(), json!("five"));
    sent_and_back(&tool, &t, &[all, Value::Object(payload)]);
}

/// The counts are the whole tool's: optional union-typed properties deep inside objects count
/// too, and are brought under the limits where they are.
#[test]
fn nested_properties_count_towards_anthropics_limits_and_are_carried() {
    let mut inner = serde_json::Map::new();
    for i in 0..12 {
        inner.insert(format!("n{i:02}"), json!({"type": ["string", "null"]}));
    }
    let object = json!({"type": "object", "properties": inner});
    let schema = json!({
        "type": "object",
        "properties": {"a": object.clone(), "b": object.clone(), "c": object, "name": {"type": "string"}},
        "required": ["name", "a"]
    });
    let tool = wide_tool(&schema);
    let t = anthropic_fits(&tool);
    sent_and_back(
        &tool,
        &t,
        &[
            json!({"name": "x", "a": {}}),
            json!({"name": "x", "a": {"n00": null, "n11": "y"}, "b": {"n05": "z"}, "c": {"n01": null}}),
        ],
    );
}

/// [`fits`] for OpenAI strict.
fn openai_fits(tool: &Tool) -> Tailored {
    fits(tool, Provider::OpenAiStrict, Profile::OpenAiStrict).0
}

/// Five enums of 300 values where OpenAI strict allows 1,000 across the schema: the last two
/// enums are dropped (900 values left) and their properties stay plain strings, with a note in
/// their description and a trace entry with the count. No adapter: a payload is sent as it is.
/// (Until the enum drop, `d` and `e` were sent as JSON text, `"d3"` as `"\"d3\""`.)
#[test]
fn enum_values_over_openais_limit_are_dropped() {
    let values = |p: &str| -> Vec<Value> { (0..300).map(|i| json!(format!("{p}{i}"))).collect() };
    let mut properties = serde_json::Map::new();
    for p in ["a", "b", "c", "d", "e"] {
        properties.insert(p.into(), json!({"type": "string", "enum": values(p)}));
    }
    let schema = json!({"type": "object", "properties": properties,
        "required": ["a", "b", "c", "d", "e"], "additionalProperties": false});
    let tool = wide_tool(&schema);
    let t = openai_fits(&tool);
    let sent = &t.projection.schema;
    for p in ["a", "b", "c"] {
        assert_eq!(
            sent["properties"][p]["enum"].as_array().map(Vec::len),
            Some(300)
        );
    }
    for p in ["d", "e"] {
        assert_eq!(sent["properties"][p]["type"], json!("string"));
        assert!(sent["properties"][p].get("enum").is_none());
        let note = sent["properties"][p]["description"].as_str().unwrap_or("");
        assert!(
            note.contains("list of allowed values is left out"),
            "{note}"
        );
    }
    assert!(t.adapters.is_empty(), "{:?}", t.adapters);
    let traced = t
        .projection
        .trace
        .iter()
        .find(|e| e.at == "/properties/e" && e.rule.id() == "tailor-drop-keyword")
        .expect("the drop is traced");
    assert!(
        traced
            .message()
            .contains("1500 enum values where it allows 1000"),
        "{}",
        traced.message()
    );
    let payload = json!({"a": "a0", "b": "b1", "c": "c2", "d": "d3", "e": "e299"});
    sent_and_back(&tool, &t, std::slice::from_ref(&payload));
    assert_eq!(
        t.payload_adapter(jsonschema::Draft::Draft202012)
            .adapt(&payload)
            .payload,
        payload
    );
}

/// One string enum of 300 values holding 18,000 characters, where OpenAI strict allows 15,000
/// in a string enum of more than 250 values (under the 1,000-value and 120,000-character
/// totals): dropped, the other enum kept.
#[test]
fn a_string_enum_over_openais_one_enum_limit_is_dropped() {
    let long: Vec<Value> = (0..300).map(|i| json!(format!("{i:060}"))).collect();
    let schema = json!({
        "type": "object",
        "properties": {
            "code": {"type": "string", "enum": long, "description": "A code."},
            "kind": {"type": "string", "enum": ["x", "y"]}
        },
        "required": ["code", "kind"]
    });
    let tool = wide_tool(&schema);
    let original = schemalens::lint::lint_schema(Profile::OpenAiStrict, &schema);
    assert!(
        original.iter().any(|f| f.rule == "limit-large-enum"),
        "{original:?}"
    );
    let t = openai_fits(&tool);
    let code = &t.projection.schema["properties"]["code"];
    assert!(code.get("enum").is_none(), "{code}");
    assert_eq!(code["type"], json!("string"), "{code}");
    assert!(
        code["description"]
            .as_str()
            .is_some_and(|d| d.starts_with("A code. Its list of allowed values is left out")),
        "{code}"
    );
    assert_eq!(
        t.projection.schema["properties"]["kind"]["enum"],
        json!(["x", "y"])
    );
    let traced = t
        .projection
        .trace
        .iter()
        .find(|e| e.at == "/properties/code" && e.rule.id() == "tailor-drop-keyword")
        .expect("the drop is traced");
    assert!(
        traced.message().contains("18000 characters"),
        "{}",
        traced.message()
    );
    sent_and_back(
        &tool,
        &t,
        &[
            json!({"kind": "x", "code": format!("{:060}", 7)}),
            json!({"kind": "y", "code": format!("{:060}", 299)}),
        ],
    );
}

/// Six objects of 900 properties (over OpenAI's 5,000) and 1,100 enum values (over 1,000): 900
/// in a top-level `e`, 200 inside `o5` under a union (no enum there can be dropped). One object
/// has to be carried as JSON text for the properties anyway, and `o5` takes its 200 values with
/// it: `e` keeps its enum. (Dropping enums first dropped `e`'s for nothing.)
#[test]
fn a_property_carried_for_another_limit_takes_its_enums_along() {
    let mut properties = serde_json::Map::new();
    for o in 0..6 {
        let mut inner: serde_json::Map<String, Value> = (0..900)
            .map(|i| (format!("f{i}"), json!({"type": "integer"})))
            .collect();
        if o == 5 {
            let values: Vec<Value> = (0..200).map(|i| json!(format!("k{i}"))).collect();
            inner.insert(
                "k".into(),
                json!({"anyOf": [{"type": "string", "enum": values}, {"type": "integer"}]}),
            );
        }
        properties.insert(
            format!("o{o}"),
            json!({"type": "object", "properties": inner}),
        );
    }
    let values: Vec<Value> = (0..900).map(|i| json!(format!("e{i}"))).collect();
    properties.insert("e".into(), json!({"type": "string", "enum": values}));
    // Closed at the top, so that only the carried properties lose their `properties` there
    // (an open object gets one more property, the carrier of its other keys).
    let schema = json!({"type": "object", "properties": properties, "additionalProperties": false});
    let tool = wide_tool(&schema);
    let t = openai_fits(&tool);
    let sent = &t.projection.schema["properties"];
    // Optional under strict mode: its 900 values and the `null` that stands for "absent".
    let kept = sent["e"]["enum"].as_array().expect("e keeps its enum");
    assert_eq!(kept.len(), 901, "{}", sent["e"]);
    assert!(kept.contains(&json!("e899")) && kept.contains(&Value::Null));
    assert_eq!(
        sent["o5"]["type"],
        json!(["string", "null"]),
        "{}",
        sent["o5"]
    );
    assert!(
        !t.projection.trace.iter().any(|e| e
            .message()
            .contains("is dropped and the value keeps its type")),
        "no enum dropped"
    );
}

/// OpenAI strict's 120,000 characters: 108 parameters with 1,000-character names (which no move
/// can shorten), `big` (30 properties with 1,000-character names), `e` (200 values of 60
/// characters) and `action` (a five-value tag). Only characters are over, so the greedy fit
/// drops `e`'s and `action`'s enums first, then carries `big` as JSON text, which alone was
/// enough for `action`: the restore pass gives `action` its values back, and keeps `e`'s out
/// (108,060 characters with it back; 120,060 with `e` too). Without the pass both stay dropped.
#[test]
fn an_enum_a_later_carrier_made_needless_is_given_back() {
    let long = |p: &str, i: usize| format!("{p}{i:0>999}");
    let mut properties: serde_json::Map<String, Value> = (0..108)
        .map(|i| (long("p", i)[..1000].to_owned(), json!({"type": "string"})))
        .collect();
    let big: serde_json::Map<String, Value> = (0..30)
        .map(|i| (long("b", i)[..1000].to_owned(), json!({"type": "integer"})))
        .collect();
    properties.insert("big".into(), json!({"type": "object", "properties": big}));
    let e: Vec<Value> = (0..200).map(|i| json!(format!("{i:0>60}"))).collect();
    properties.insert("e".into(), json!({"type": "string", "enum": e}));
    let action = ["opened", "edited", "closed", "deleted", "pinned"];
    properties.insert(
        "action".into(),
        json!({"type": "string", "description": "What happened.", "enum": action}),
    );
    let required: Vec<&String> = properties.keys().collect();
    let schema = json!({"type": "object", "properties": properties, "required": required});
    let tool = wide_tool(&schema);
    let t = openai_fits(&tool);
    let sent = &t.projection.schema["properties"];
    assert_eq!(sent["big"]["type"], json!("string"), "big is carried");
    assert_eq!(
        sent["action"],
        json!({"type": "string", "description": "What happened.", "enum": action}),
        "action is given back as it was"
    );
    assert!(
        sent["e"].get("enum").is_none(),
        "e stays dropped: {}",
        sent["e"]
    );
    let dropped: Vec<&str> = t
        .projection
        .trace
        .iter()
        .filter(|e| {
            e.message()
                .contains("is dropped and the value keeps its type")
        })
        .map(|e| e.at.as_str())
        .collect();
    assert_eq!(dropped, ["/properties/e"], "one drop traced");
    let mut payload = serde_json::Map::new();
    for name in schema["properties"].as_object().expect("properties").keys() {
        payload.insert(name.clone(), json!("x"));
    }
    payload.insert("big".into(), json!({}));
    payload.insert("e".into(), json!(format!("{:0>60}", 7)));
    payload.insert("action".into(), json!("pinned"));
    sent_and_back(&tool, &t, &[Value::Object(payload.clone())]);
    // The sound form follows the lossy form's plan: the same enum dropped, `action` kept.
    use schemalens::projection::tailor::{TailorOptions, tailor_with};
    let projection = schemalens::project_tool(&tool, &Options::flat()).expect("projected");
    let sound = tailor_with(
        projection,
        Profile::OpenAiStrict,
        TailorOptions { lossy: false },
    );
    let sound = &sound.projection.schema["properties"];
    assert_eq!(sound["action"]["enum"], json!(action));
    assert!(sound["e"].get("enum").is_none(), "{}", sound["e"]);
}

/// Six objects of 900 properties where OpenAI strict allows 5,000 properties: one object is sent
/// as JSON text (4,506 left).
#[test]
fn properties_over_openais_limit_are_sent_as_json_text() {
    let mut properties = serde_json::Map::new();
    for o in 0..6 {
        let inner: serde_json::Map<String, Value> = (0..900)
            .map(|i| (format!("f{i}"), json!({"type": "integer"})))
            .collect();
        properties.insert(
            format!("o{o}"),
            json!({"type": "object", "properties": inner}),
        );
    }
    // Closed at the top, so that only the carried properties lose their `properties` there
    // (an open object gets one more property, the carrier of its other keys).
    let schema = json!({"type": "object", "properties": properties, "additionalProperties": false});
    let tool = wide_tool(&schema);
    let t = openai_fits(&tool);
    let carried: Vec<&String> = t.projection.schema["properties"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(_, p)| p.get("properties").is_none())
        .map(|(k, _)| k)
        .collect();
    assert_eq!(carried, ["o5"]);
    sent_and_back(
        &tool,
        &t,
        &[
            json!({}),
            json!({"o0": {"f1": 1}, "o5": {"f2": 2, "f899": 3}}),
        ],
    );
}

/// The ref fan of issue 10 as Pydantic emits it (each definition refers to the next eight
/// times, five levels: the last inlined 4,096 times, open objects, `Any`, a `uri` format, a
/// default, an integer enum). Inlined it holds 16,969 properties where OpenAI strict takes
/// 5,000, and tailoring had to send the whole root as one JSON string. Each shared definition
/// is now written once under `$defs`: the schema keeps its structure, both judges accept it,
/// and payloads go and come back.
#[test]
fn definitions_shared_past_openais_counts_are_written_once() {
    use schemalens::projection::{Adapter, Detail};
    let tool = wide_tool(&support::ref_fan::document(8, 5, true));
    let projection = schemalens::project_tool(&tool, &Options::flat()).expect("projects");
    let inlined = schemalens::projection::tailor(projection, Profile::OpenAiStrict);
    let carried = |t: &Tailored| {
        t.adapters
            .iter()
            .any(|a| matches!(a, Adapter::JsonText { at, .. } if at == "/properties/root"))
    };
    assert!(carried(&inlined), "{:?}", inlined.adapters);

    let t = openai_fits(&tool);
    assert!(!carried(&t), "{:?}", t.adapters);
    let sent = &t.projection.schema;
    let defs: Vec<&String> = sent["$defs"].as_object().expect("$defs").keys().collect();
    assert_eq!(defs.len(), 4, "{defs:?}");
    let kept = |shared: fn(&Detail) -> bool| -> Vec<&schemalens::projection::TraceEntry> {
        t.projection
            .trace
            .iter()
            .filter(|e| shared(&e.detail))
            .collect()
    };
    // Eight references to each of Level1 … Level4, and one entry at the root with the counts.
    assert_eq!(kept(|d| matches!(d, Detail::RefShared { .. })).len(), 32);
    let root = kept(|d| matches!(d, Detail::DefinitionsShared { .. }));
    assert_eq!(root.len(), 1);
    assert_eq!(root[0].at, "");
    let said = root[0].message();
    assert!(
        said.contains("16,969 properties (at most 5,000)") && said.contains("4 object definition"),
        "{said}"
    );
    let leaf = json!({"code": "https://example.org/x", "kind": 2, "extra": {"any": [1, null]}});
    sent_and_back(
        &tool,
        &t,
        &[
            json!({"root": {}}),
            json!({"root": {"part0": {"part3": {"part1": {"part7": leaf}}}, "part5": {"x": 1}}}),
        ],
    );
}

/// Every payload, adapted, is accepted by the tailored schema and comes back as it was.
fn sent_and_back(tool: &Tool, t: &Tailored, payloads: &[Value]) {
    let (validator, draft) = validator(tool, t);
    let adapter = t.payload_adapter(draft);
    for payload in payloads {
        let a = adapter.adapt(payload);
        assert!(
            validator.is_valid(&a.payload),
            "{payload} sent as {}",
            a.payload
        );
        assert_eq!(
            &adapter.unadapt(&a.payload),
            payload,
            "sent as {}",
            a.payload
        );
    }
}

/// GitHub's `deployment_review.workflow_run.head_commit`: an optional free-form object that
/// takes `null`, under a union kept in inline mode. Absent is sent as `null`, an explicit `null`
/// as a marker string, so the object is carried as JSON text under a key; the carrier has to
/// keep taking the `null` that stands for "absent" (it took none, and the tool's valid payloads
/// without the property were refused).
#[test]
fn an_optional_nullable_map_carried_as_json_text_still_takes_null_for_absent() {
    let variant = |tag: &str| {
        json!({
            "type": "object",
            "properties": {
                "head_commit": {"type": ["object", "null"]},
                "status": {"type": "string", "enum": [tag]}
            },
            "required": ["status"]
        })
    };
    let schema = json!({
        "type": "object",
        "properties": {"run": {"anyOf": [variant("a"), variant("b")]}},
        "required": ["run"]
    });
    let tool = bare_tool(&schema, "review");
    for provider in Provider::ALL {
        let t = tailor_tool(&tool, &Options::inline(), profile(provider)).expect("tailored");
        let refused = check(provider, Some("review"), &t.projection.schema);
        assert!(refused.is_empty(), "{provider}: {refused:?}");
        sent_and_back(
            &tool,
            &t,
            &[
                json!({"run": {"status": "a"}}),
                json!({"run": {"status": "b", "head_commit": {"id": "c0ffee", "n": [1]}}}),
                json!({"run": {"status": "b", "head_commit": {}}}),
                json!({"run": {"status": "b", "head_commit": null}}),
            ],
        );
    }
}

/// GitHub's deployment `payload`: `type: [null, string, object]` beside `anyOf: [string,
/// object]`. The type list says nothing the union does not; once it goes, the free-form object
/// alternative is a value of its own and can be carried, for each provider.
#[test]
fn a_type_list_beside_typed_alternatives_leaves_them_free_to_be_carried() {
    let schema = json!({
        "type": "object",
        "properties": {
            "payload": {"anyOf": [{"type": "string"}, {"type": "object"}], "type": ["null", "string", "object"]}
        },
        "required": ["payload"]
    });
    let tool = bare_tool(&schema, "deployment");
    for provider in Provider::ALL {
        let t = tailor_tool(&tool, &Options::flat(), profile(provider)).expect("tailored");
        assert!(t.unresolved.is_empty(), "{provider}: {:?}", t.unresolved);
        let refused = check(provider, Some("deployment"), &t.projection.schema);
        assert!(refused.is_empty(), "{provider}: {refused:?}");
        assert!(
            t.projection
                .trace
                .iter()
                .any(|e| e.message().contains("said nothing the union does not")),
            "{provider}: the dropped type is traced"
        );
        sent_and_back(
            &tool,
            &t,
            &[
                json!({"payload": "text"}),
                json!({"payload": {}}),
                json!({"payload": {"task": "deploy", "n": [1, 2]}}),
            ],
        );
    }
}

/// GitHub's custom property `default_value`: `type: [null, string, array]` beside `string |
/// array of strings`, and a union whose alternatives reach outside the type list (a `number`
/// under `integer`, a `boolean` beside `string`). The array needs no `items` of its own (its
/// alternative has them); the alternatives are narrowed to the types they share with the
/// list; then the list is implied by the union and goes (Gemini refused a type list beside a
/// union: `Proto field is not repeating`).
#[test]
fn a_type_list_beside_a_union_goes_into_its_alternatives() {
    let schema = json!({
        "type": "object",
        "properties": {
            "default_value": {"oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}],
                              "type": ["null", "string", "array"]},
            "v": {"type": ["null", "string", "integer"],
                  "anyOf": [{"type": "number", "minimum": 1}, {"type": ["string", "boolean"]}]}
        },
        "required": ["default_value", "v"]
    });
    let tool = bare_tool(&schema, "custom_property");
    for provider in Provider::ALL {
        for options in [Options::flat(), Options::inline()] {
            let t = tailor_tool(&tool, &options, profile(provider)).expect("tailored");
            assert!(t.unresolved.is_empty(), "{provider}: {:?}", t.unresolved);
            let refused = check(provider, Some("custom_property"), &t.projection.schema);
            assert!(
                refused.is_empty(),
                "{provider}: {refused:?}\n{:#}",
                t.projection.schema
            );
            let sent = &t.projection.schema["properties"];
            assert!(
                sent["default_value"].get("items").is_none(),
                "{provider}: {sent}"
            );
            assert!(sent["v"].get("type").is_none(), "{provider}: {sent}");
            assert!(
                t.projection
                    .trace
                    .iter()
                    .any(|e| e.message().contains("narrowed to the types they share")),
                "{provider}: the narrowing is traced"
            );
            sent_and_back(
                &tool,
                &t,
                &[
                    json!({"default_value": "x", "v": 3}),
                    json!({"default_value": ["a", "b"], "v": "s"}),
                    json!({"default_value": [], "v": 1}),
                ],
            );
            // Neither form takes what the original refuses.
            let (validator, draft) = validator(&tool, &t);
            for refused in [
                json!({"default_value": null, "v": 3}),
                json!({"default_value": "x", "v": 1.5}),
                json!({"default_value": "x", "v": true}),
                json!({"default_value": "x", "v": null}),
            ] {
                let adapted = t.payload_adapter(draft).adapt(&refused).payload;
                assert!(
                    !validator.is_valid(&adapted),
                    "{provider}: {refused} accepted"
                );
            }
        }
    }
}

/// GitHub's org ruleset `conditions` in inline mode: an `anyOf` of objects, each an `allOf` of
/// two plain objects (ref names, and repository names or ids). Providers without `allOf`
/// dropped the parts and kept a free-form object (OpenAI strict, Gemini); Anthropic strict could
/// close no part alone. Each alternative is now one object with the parts' properties, closed
/// like any other; the merged properties link to the parts they came from.
#[test]
fn an_all_of_of_plain_objects_is_one_object() {
    let ref_name = json!({"type": "object", "description": "Ref names.", "properties": {
        "ref_name": {"type": "object", "properties": {
            "include": {"type": "array", "items": {"type": "string"}},
            "exclude": {"type": "array", "items": {"type": "string"}}}}}});
    let schema = json!({
        "type": "object",
        "properties": {"conditions": {
            "type": "object",
            "description": "Conditions for an organization ruleset.",
            "anyOf": [
                {"type": "object", "title": "repository_name_and_ref_name", "allOf": [
                    ref_name,
                    {"type": "object", "properties": {"repository_name": {"type": "object", "properties": {
                        "include": {"type": "array", "items": {"type": "string"}},
                        "protected": {"type": "boolean"}}}},
                     "required": ["repository_name"]}]},
                {"type": "object", "title": "repository_id_and_ref_name", "allOf": [
                    ref_name,
                    {"type": "object", "properties": {"repository_id": {"type": "object", "properties": {
                        "repository_ids": {"type": "array", "items": {"type": "integer"}}}}},
                     "required": ["repository_id"]}]}
            ]
        }},
        "required": ["conditions"]
    });
    let tool = bare_tool(&schema, "org_ruleset");
    for provider in Provider::ALL {
        let t = tailor_tool(&tool, &Options::inline(), profile(provider)).expect("tailored");
        assert!(t.unresolved.is_empty(), "{provider}: {:?}", t.unresolved);
        let refused = check(provider, Some("org_ruleset"), &t.projection.schema);
        assert!(
            refused.is_empty(),
            "{provider}: {refused:?}\n{:#}",
            t.projection.schema
        );
        let alternative = &t.projection.schema["properties"]["conditions"]["anyOf"][0];
        assert!(
            alternative.get("allOf").is_none(),
            "{provider}: {alternative}"
        );
        assert!(
            alternative["properties"]["repository_name"].is_object()
                && alternative["properties"]["ref_name"].is_object(),
            "{provider}: {alternative}"
        );
        let at = "/properties/conditions/anyOf/0/properties/repository_name";
        assert_eq!(
            t.projection.links.originals(at),
            ["/properties/conditions/anyOf/0/allOf/1/properties/repository_name"],
            "{provider}"
        );
        assert!(
            t.projection
                .trace
                .iter()
                .any(|e| e.message().contains("merged into one object")),
            "{provider}: the merge is traced"
        );
        sent_and_back(
            &tool,
            &t,
            &[
                json!({"conditions": {"repository_name": {"include": ["a"]}}}),
                json!({"conditions": {"ref_name": {"include": ["~ALL"]}, "repository_id": {"repository_ids": [1]}}}),
            ],
        );
        let (validator, draft) = validator(&tool, &t);
        let adapted = t
            .payload_adapter(draft)
            .adapt(&json!({"conditions": {"ref_name": {}}}))
            .payload;
        assert!(
            !validator.is_valid(&adapted),
            "{provider}: neither alternative's required name, accepted"
        );
    }
}

/// Zod writes `caps.and(z.record(z.string(), z.unknown()))` (the MCP SDK's `ClientCapabilities`)
/// as an `allOf` of a closed object and a record whose `propertyNames` every key passes. The
/// record part says nothing the closed part does not, so the two are one object closed to the
/// closed part's names; before, the parts were left open and Anthropic strict refused the
/// tool. Nested as the SDK nests it (a capability that is itself such an intersection).
#[test]
fn an_all_of_with_a_closed_part_and_an_open_record_is_one_closed_object() {
    let record =
        json!({"type": "object", "propertyNames": {"type": "string"}, "additionalProperties": {}});
    let intersection = |properties: Value| {
        json!({"allOf": [
            {"type": "object", "properties": properties, "additionalProperties": false},
            record.clone()
        ]})
    };
    let elicitation = intersection(json!({"form": {"type": "object", "properties": {
        "applyDefaults": {"type": "boolean"}}, "additionalProperties": false}}));
    let schema = json!({
        "type": "object",
        "properties": {"capabilities": intersection(json!({
            "roots": {"type": "object", "properties": {"listChanged": {"type": "boolean"}}, "additionalProperties": false},
            "elicitation": elicitation
        }))},
        "required": ["capabilities"],
        "additionalProperties": false
    });
    let tool = bare_tool(&schema, "initialize");
    let original = jsonschema::validator_for(&schema).unwrap();
    let unknown = json!({"capabilities": {"sampling": {}}});
    assert!(!original.is_valid(&unknown), "the closed part refuses it");
    for mode in [Mode::Inline, Mode::Flat] {
        for provider in Provider::ALL {
            let t = tailor_tool(&tool, &options(mode), profile(provider)).expect("tailored");
            assert!(
                t.unresolved.is_empty(),
                "{provider} {mode:?}: {:?}",
                t.unresolved
            );
            let refused = check(provider, Some("initialize"), &t.projection.schema);
            assert!(
                refused.is_empty(),
                "{provider} {mode:?}: {refused:?}\n{:#}",
                t.projection.schema
            );
            let text = t.projection.schema.to_string();
            assert!(
                !text.contains("allOf") && !text.contains("propertyNames"),
                "{provider} {mode:?}: {text}"
            );
            sent_and_back(
                &tool,
                &t,
                &[
                    json!({"capabilities": {}}),
                    json!({"capabilities": {"roots": {"listChanged": true}}}),
                    json!({"capabilities": {"elicitation": {"form": {"applyDefaults": false}}}}),
                ],
            );
            // Gemini has no `additionalProperties`: its schema cannot refuse other names.
            if provider != Provider::Gemini {
                let (validator, draft) = validator(&tool, &t);
                let adapted = t.payload_adapter(draft).adapt(&unknown).payload;
                assert!(
                    !validator.is_valid(&adapted),
                    "{provider} {mode:?}: a name the closed part refuses, accepted as {adapted}"
                );
            }
        }
    }
}

/// A name only an open part declares is one the closed part refuses: the merged object leaves
/// it out and says so. When such a name is required, no value satisfies the parts: the merge
/// would hide that, so the parts are left and reported.
#[test]
fn a_name_only_an_open_part_declares_is_left_out_of_the_closed_merge() {
    let parts = |required: Value| {
        json!({"type": "object", "properties": {"p": {"allOf": [
            {"type": "object", "properties": {"a": {"type": "integer"}}, "additionalProperties": false},
            {"type": "object", "properties": {"b": {"type": "string"}}, "required": required}
        ]}}, "required": ["p"], "additionalProperties": false})
    };
    let tool = bare_tool(&parts(json!([])), "merge");
    let t = tailor_tool(&tool, &Options::inline(), Profile::AnthropicStrict).expect("tailored");
    assert!(t.unresolved.is_empty(), "{:?}", t.unresolved);
    assert_eq!(
        t.projection.schema["properties"]["p"],
        json!({"type": "object", "properties": {"a": {"type": "integer"}}, "additionalProperties": false}),
    );
    assert!(
        t.projection
            .trace
            .iter()
            .any(|e| e.message().contains("`b` cannot be present")),
        "the left-out name is traced"
    );
    sent_and_back(&tool, &t, &[json!({"p": {}}), json!({"p": {"a": 1}})]);

    let impossible = bare_tool(&parts(json!(["b"])), "merge");
    let t =
        tailor_tool(&impossible, &Options::inline(), Profile::AnthropicStrict).expect("tailored");
    assert!(
        t.projection.schema["properties"]["p"]
            .get("allOf")
            .is_some(),
        "not merged: {}",
        t.projection.schema
    );
    assert!(!t.unresolved.is_empty(), "the refusal is reported");
}

/// Two parts declaring one property with different schemas: their conjunction is no one plain
/// object (it would need the two schemas conjoined), so the parts are left as they are, and
/// what the provider will refuse is said, by lint's tailored verdict and by the checker alike:
/// never a merge that accepts more or less than the original.
#[test]
fn an_all_of_whose_parts_declare_one_name_differently_is_left_and_reported() {
    let schema = support::all_of_clash();
    let tool = bare_tool(&schema, "clash");
    let options = Options::inline();
    let projection = schemalens::project_tool(&tool, &options).expect("projected");
    for provider in Provider::ALL {
        let t = tailor_tool(&tool, &options, profile(provider)).expect("tailored");
        assert!(
            !t.projection
                .trace
                .iter()
                .any(|e| e.message().contains("merged into one object")),
            "{provider}: merged"
        );
        assert!(
            !check(provider, Some("clash"), &t.projection.schema).is_empty(),
            "{provider}: the checker accepts\n{:#}",
            t.projection.schema
        );
        let forms = [ToolForms {
            name: Some("clash"),
            tool: &tool,
            options: &options,
            projection: Ok(&projection),
        }];
        let lint = &lint_forms_for(&[profile(provider)], &forms)[0][0];
        assert_eq!(
            lint.verdict(Form::Tailored),
            Verdict::Rejected,
            "{provider}: lint's tailored verdict"
        );
        // What `project --provider` warns of: the rule lint rejects with, not silence.
        let rejected_by: Vec<&str> = lint
            .form(Form::Tailored)
            .groups
            .iter()
            .filter(|g| g.finding.is_error())
            .map(|g| g.finding.rule)
            .collect();
        let warned: Vec<&str> = t
            .still_failing(Some("clash"))
            .iter()
            .map(|u| u.rule)
            .collect();
        assert!(
            rejected_by.iter().all(|r| warned.contains(r)),
            "{provider}: lint rejects with {rejected_by:?}, project warns of {warned:?}"
        );
    }
}

/// Firecrawl's MCP server writes its records (`metadata`, `webhookHeaders`, a JSON `schema`) as
/// `propertyNames` with `additionalProperties: false`: an object that takes `{}` alone. Strict
/// modes refuse an object schema without `properties`; `properties: {}` says the same and is
/// accepted, by both judges, for every provider, and the payloads come back.
#[test]
fn a_closed_object_without_properties_is_sent_with_empty_properties() {
    let schema = json!({
        "type": "object",
        "properties": {"metadata": {
            "type": "object",
            "propertyNames": {"type": "string"},
            "additionalProperties": false
        }},
        "required": []
    });
    let tool = bare_tool(&schema, "wide");
    for provider in Provider::ALL {
        let (t, _) = fits(&tool, provider, profile(provider));
        sent_and_back(&tool, &t, &[json!({}), json!({"metadata": {}})]);
    }
}

// ---------------------------------------------------------------------------------------------
// The corpus.

fn profile(provider: Provider) -> Profile {
    match provider {
        Provider::OpenAiStrict => Profile::OpenAiStrict,
        Provider::Gemini => Profile::Gemini,
        Provider::AnthropicStrict => Profile::AnthropicStrict,
    }
}

/// Accepted tools per 1000, never to fall below: the level measured when it was last raised.
fn floor(provider: Provider, _mode: Mode) -> usize {
    match provider {
        Provider::OpenAiStrict => 1000,
        Provider::Gemini => 1000,
        Provider::AnthropicStrict => 1000,
    }
}

/// The two projection modes, as `project --mode` names them.
const MODES: [(Mode, &str); 2] = [(Mode::Flat, "flat"), (Mode::Inline, "inline")];

fn options(mode: Mode) -> Options {
    match mode {
        Mode::Flat => Options::flat(),
        Mode::Inline => Options::inline(),
    }
}

#[derive(Default)]
struct Tally {
    tools: usize,
    accepted: usize,
    /// `server/tool` → what the provider would answer.
    rejected: BTreeMap<String, Vec<Rejection>>,
    no_output: Vec<String>,
    /// `server/tool: rule at pointer`: what tailoring reports the provider still refuses (lint's
    /// verdict on the tailored schema, which counts some limits more strictly than the checker).
    unresolved: Vec<String>,
    payloads: usize,
    adapted_changed: usize,
    lost: Vec<String>,
    /// `server/tool: rules`: rejected by the checker while `project --provider` warns of
    /// nothing ([`Tailored::still_failing`] empty): a rejection the user is not told of.
    silent: Vec<String>,
}

/// The validator for the tailored schema, configured as the original's (the dialect its
/// `$schema` names, else the one its manifest implies), with Gemini's OpenAPI 3.0 `nullable`
/// read as a null type.
fn validator(tool: &Tool, t: &Tailored) -> (jsonschema::Validator, jsonschema::Draft) {
    let doc = t.validation_schema();
    let by_schema = tool
        .schema
        .get("$schema")
        .and_then(Value::as_str)
        .and_then(|s| {
            [
                ("draft-04", jsonschema::Draft::Draft4),
                ("draft-06", jsonschema::Draft::Draft6),
                ("draft-07", jsonschema::Draft::Draft7),
                ("2019-09", jsonschema::Draft::Draft201909),
                ("2020-12", jsonschema::Draft::Draft202012),
            ]
            .into_iter()
            .find(|(m, _)| s.contains(m))
            .map(|(_, d)| d)
        });
    let draft = by_schema.unwrap_or(match tool.dialect {
        manifest::SchemaDialect::OpenApi30 => jsonschema::Draft::Draft4,
        manifest::SchemaDialect::JsonSchema => match Draft::detect(&tool.schema) {
            Draft::Draft7 => jsonschema::Draft::Draft7,
            Draft::Draft2019 => jsonschema::Draft::Draft201909,
            _ => jsonschema::Draft::Draft202012,
        },
    });
    let v = jsonschema::options()
        .with_draft(draft)
        .build(&doc)
        .unwrap_or_else(|e| {
            panic!(
                "{}: tailored schema does not compile: {e}\n{doc}",
                tool.name
            )
        });
    (v, draft)
}

fn valid_payloads(cases: &Value, tool: &str) -> Vec<Value> {
    cases["tool_cases"][tool]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| c["valid"] == json!(true))
        .map(|c| c["payload"].clone())
        .collect()
}

fn servers(corpus: &Path) -> Vec<(String, manifest::Manifest, Value)> {
    let dir = corpus.join("mcp");
    support::corpus_manifests(&dir)
        .into_iter()
        .map(|path| {
            let server = support::stem(&path);
            let manifest = support::load(&path);
            let cases_path = dir.join(format!("{server}.cases.json"));
            let cases = std::fs::read_to_string(&cases_path)
                .map(|t| serde_json::from_str(&t).expect("cases are JSON"))
                .unwrap_or(Value::Null);
            (server, manifest, cases)
        })
        .collect()
}

/// Tailors `tool` as `project --provider` does in `options`' mode, checks the result and every
/// payload (adapted, accepted, back exactly).
fn judge(
    provider: Provider,
    options: &Options,
    server: &str,
    tool: &Tool,
    payloads: &[Value],
    tally: &mut Tally,
) {
    let key = format!("{server}/{}", tool.name);
    tally.tools += 1;
    let t = match tailor_tool(tool, options, profile(provider)) {
        Ok(t) => t,
        Err(e) => {
            tally.no_output.push(format!("{key}: {e}"));
            return;
        }
    };
    for u in &t.unresolved {
        tally
            .unresolved
            .push(format!("{key}: {} at #{}", u.rule, u.pointer));
    }
    let rejections = check(provider, Some(&tool.name), &t.projection.schema);
    if rejections.is_empty() {
        tally.accepted += 1;
    } else {
        if t.still_failing(Some(&tool.name)).is_empty() {
            let mut rules: Vec<&str> = rejections.iter().map(|r| r.rule).collect();
            rules.sort();
            rules.dedup();
            tally.silent.push(format!(
                "{key}: [{}] e.g. {}",
                rules.join(", "),
                rejections[0]
            ));
        }
        tally.rejected.insert(key.clone(), rejections);
    }
    if payloads.is_empty() {
        return;
    }
    let (tailored, draft) = validator(tool, &t);
    let adapter = t.payload_adapter(draft);
    for (i, p) in payloads.iter().enumerate() {
        tally.payloads += 1;
        let a = adapter.adapt(p);
        if a.payload != *p {
            tally.adapted_changed += 1;
        }
        if !tailored.is_valid(&a.payload) {
            let errors: Vec<String> = tailored
                .iter_errors(&a.payload)
                .take(3)
                .map(|e| format!("{} at {}", e, e.instance_path()))
                .collect();
            tally.lost.push(format!(
                "{key} payload #{i} {}: adapted {} rejected: {}",
                clip(p),
                clip(&a.payload),
                errors.join("; ")
            ));
            continue;
        }
        let back = adapter.unadapt(&a.payload);
        if back != *p {
            tally.lost.push(format!(
                "{key} payload #{i} does not come back: {}",
                first_difference(p, &back, "")
            ));
        }
    }
}

/// [`judge`] on every (server, tool, valid payloads) for one provider and mode.
fn measure<'a>(
    provider: Provider,
    mode: Mode,
    tools: impl Iterator<Item = (&'a str, &'a Tool, Vec<Value>)>,
) -> Tally {
    let mut tally = Tally::default();
    for (server, tool, payloads) in tools {
        judge(
            provider,
            &options(mode),
            server,
            tool,
            &payloads,
            &mut tally,
        );
    }
    tally
}

/// A payload in a report line: real ones run to kilobytes.
fn clip(v: &Value) -> String {
    let text = v.to_string();
    match text.char_indices().nth(160) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text,
    }
}

/// Where `back` first differs from `sent` (a payload pointer), with both values there.
fn first_difference(sent: &Value, back: &Value, at: &str) -> String {
    match (sent, back) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in a {
                match b.get(k) {
                    Some(w) if w == v => {}
                    Some(w) => return first_difference(v, w, &format!("{at}/{k}")),
                    None => return format!("{at}/{k}: {} → absent", clip(v)),
                }
            }
            match b.iter().find(|(k, _)| !a.contains_key(*k)) {
                Some((k, w)) => format!("{at}/{k}: absent → {}", clip(w)),
                None => format!("{at}: key order"),
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => a
            .iter()
            .zip(b)
            .enumerate()
            .find(|(_, (v, w))| v != w)
            .map(|(i, (v, w))| first_difference(v, w, &format!("{at}/{i}")))
            .unwrap_or_default(),
        _ => format!("{at}: {} → {}", clip(sent), clip(back)),
    }
}

fn report(provider: Provider, mode: &str, tally: &Tally) {
    eprintln!(
        "\n{provider} ({mode}): {}/{} tools accepted ({:.1} %), {} without output, {} rejected without a warning; {} valid payloads ({} changed by the adapter), {} lost",
        tally.accepted,
        tally.tools,
        100.0 * tally.accepted as f64 / tally.tools.max(1) as f64,
        tally.no_output.len(),
        tally.silent.len(),
        tally.payloads,
        tally.adapted_changed,
        tally.lost.len()
    );
    let mut by_rule: BTreeMap<&str, usize> = BTreeMap::new();
    for (tool, rejections) in &tally.rejected {
        let mut rules: Vec<&str> = rejections.iter().map(|r| r.rule).collect();
        rules.sort();
        rules.dedup();
        for r in &rules {
            *by_rule.entry(r).or_default() += 1;
        }
        let first = &rejections[0];
        eprintln!(
            "  rejected {tool}: [{}] e.g. {first}{}",
            rules.join(", "),
            if rejections.len() > 1 {
                format!(" (+{} more)", rejections.len() - 1)
            } else {
                String::new()
            }
        );
    }
    eprintln!("  tools rejected per rule: {by_rule:?}");
    for n in &tally.no_output {
        eprintln!("  no output: {n}");
    }
    for u in &tally.unresolved {
        eprintln!("  unresolved (lint): {u}");
    }
    for u in &tally.silent {
        eprintln!("  rejected without a warning: {u}");
    }
    for l in tally.lost.iter().take(40) {
        eprintln!("  lost: {l}");
    }
}

#[test]
fn corpus_tools_tailored_for_each_provider_are_accepted() {
    let Some(corpus) = support::corpus_dir() else {
        eprintln!("skipped: SCHEMALENS_CORPUS is not set");
        return;
    };
    let servers = servers(&corpus);
    let mut failures = Vec::new();
    for (mode, mode_name) in MODES {
        for provider in Provider::ALL {
            let tally = measure(
                provider,
                mode,
                servers.iter().flat_map(|(server, m, cases)| {
                    m.tools
                        .iter()
                        .map(move |tool| (server.as_str(), tool, valid_payloads(cases, &tool.name)))
                }),
            );
            report(provider, mode_name, &tally);
            assert_eq!(tally.tools, 258, "the corpus has 258 tools");
            let what = format!("{provider} ({mode_name})");
            if !tally.no_output.is_empty() {
                failures.push(format!("{what}: tools without output"));
            }
            if !tally.unresolved.is_empty() {
                failures.push(format!("{what}: {:?} left unresolved", tally.unresolved));
            }
            if !tally.lost.is_empty() {
                failures.push(format!("{what}: {} valid payloads lost", tally.lost.len()));
            }
            if !tally.silent.is_empty() {
                failures.push(format!(
                    "{what}: {:?} rejected without a warning",
                    tally.silent
                ));
            }
            let per_mille = 1000 * tally.accepted / tally.tools;
            if per_mille < floor(provider, mode) {
                failures.push(format!(
                    "{what}: {per_mille}‰ accepted, below the floor of {}‰",
                    floor(provider, mode)
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// The same measurement, both modes, on real inputs that are not the corpus:
/// `SCHEMALENS_REALSET` lists manifests and folders of manifests (`*.json`), separated like
/// `PATH`. A manifest's payloads come from beside it, as `check` finds them: a corpus-style
/// `<name>.cases.json` (its valid cases), else a folder `<name>.payloads/<tool>/*.json` (real
/// examples; those the original schema accepts), else the tool's generated skeleton when the
/// original accepts it. Prints accepted / total per provider and mode with the reason for every
/// rejected tool; fails when a tool has no output, a valid payload is lost or a rejected tool
/// gets no warning from `project --provider`. For example:
///
/// ```text
/// SCHEMALENS_REALSET=../tailor-realset/out:../inputs/out/github-webhooks-mcp.json \
///   cargo test --release --test provider_acceptance real_inputs -- --nocapture
/// ```
#[test]
fn real_inputs_outside_the_corpus_tailored_for_each_provider() {
    let Some(list) = std::env::var_os("SCHEMALENS_REALSET") else {
        eprintln!("skipped: SCHEMALENS_REALSET is not set");
        return;
    };
    let manifests: Vec<(String, manifest::Manifest, Vec<Vec<Value>>)> =
        std::env::split_paths(&list)
            .flat_map(|p| manifest_files(&p))
            .map(|p| {
                let manifest = support::load(&p);
                let payloads = payloads_beside(&p, &manifest);
                (support::stem(&p), manifest, payloads)
            })
            .collect();
    let mut failures = Vec::new();
    for (mode, mode_name) in MODES {
        for provider in Provider::ALL {
            let tally = measure(
                provider,
                mode,
                manifests.iter().flat_map(|(server, m, p)| {
                    // By position: tool names can repeat (Pydantic models of two modules).
                    m.tools
                        .iter()
                        .zip(p)
                        .map(move |(tool, payloads)| (server.as_str(), tool, payloads.clone()))
                }),
            );
            report(provider, mode_name, &tally);
            if !tally.no_output.is_empty() || !tally.lost.is_empty() || !tally.silent.is_empty() {
                failures.push(format!(
                    "{provider} ({mode_name}): {} without output, {} valid payloads lost, {} rejected without a warning",
                    tally.no_output.len(),
                    tally.lost.len(),
                    tally.silent.len()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// `path` itself, or the `*.json` manifests in it (not the corpus' `*.cases.json`).
fn manifest_files(path: &Path) -> Vec<std::path::PathBuf> {
    if !path.is_dir() {
        return vec![path.to_path_buf()];
    }
    json_files(path)
        .into_iter()
        .filter(|p| !p.to_string_lossy().ends_with(".cases.json"))
        .collect()
}

/// The `*.json` files in `dir`, sorted.
fn json_files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
}

/// Valid payloads of each tool, in the manifest's order, for a manifest outside the corpus (see
/// the test above).
fn payloads_beside(path: &Path, manifest: &manifest::Manifest) -> Vec<Vec<Value>> {
    let stem = support::stem(path);
    let cases = path.with_file_name(format!("{stem}.cases.json"));
    let examples = path.with_file_name(format!("{stem}.payloads"));
    let cases: Option<Value> = cases.is_file().then(|| {
        serde_json::from_str(&std::fs::read_to_string(&cases).unwrap()).expect("cases are JSON")
    });
    let mut out = Vec::new();
    for tool in &manifest.tools {
        let found = if let Some(cases) = &cases {
            valid_payloads(cases, &tool.name)
        } else if examples.join(&tool.name).is_dir() {
            examples_of(&examples.join(&tool.name))
        } else {
            schemalens::validate::Checker::for_tool(tool, &Options::flat())
                .ok()
                .map(|c| c.skeleton())
                .into_iter()
                .collect()
        };
        let original = jsonschema::validator_for(&tool.schema).ok();
        let valid: Vec<Value> = found
            .into_iter()
            .filter(|p| original.as_ref().is_some_and(|v| v.is_valid(p)))
            .collect();
        out.push(valid);
    }
    out
}

fn examples_of(dir: &Path) -> Vec<Value> {
    json_files(dir)
        .iter()
        .map(|p| {
            serde_json::from_str(&std::fs::read_to_string(p).unwrap())
                .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Lint against the checker: the worst bug is `lint` saying "accepted" where the provider answers
// 400. For every corpus tool, provider and form (original, projection, tailored), lint's verdict
// (`schemalens lint`, the same library call) is compared with the checker's on the same schema.

/// Accepted counts of one form, by lint and by the checker.
#[derive(Default)]
struct Agreement {
    lint_accepted: usize,
    checker_accepted: usize,
    /// Lint accepts, the checker rejects: `form server/tool: the checker's rules`.
    lint_too_lenient: Vec<String>,
    /// Lint rejects, the checker accepts (lint errs on the safe side; printed, not failed).
    lint_stricter: Vec<String>,
    /// Of `lint_too_lenient`, those where some place the checker rejects has no lint finding
    /// at all (no warning at it or below it): lint is silent there.
    lint_silent: Vec<String>,
    /// Tailored form only: lint's verdict and `project --provider`'s warnings disagree.
    warnings_disagree: Vec<String>,
}

/// The three schemas of one tool as `lint` judges them, with lint's verdicts for `profile`,
/// and the rules `project --provider` warns still fail in the tailored one.
fn forms_and_verdicts(
    provider: Provider,
    tool: &Tool,
    projection: &schemalens::Projection,
    lint: &schemalens::lint::report::ProfileLint,
) -> (Vec<(Form, Value, Verdict)>, Vec<&'static str>) {
    let tailored = tailor_tool(tool, &Options::flat(), profile(provider))
        .unwrap_or_else(|e| panic!("{}: not tailored for {provider}: {e}", tool.name));
    let warned = tailored
        .still_failing(Some(&tool.name))
        .iter()
        .map(|u| u.rule)
        .collect();
    let forms = vec![
        (
            Form::Original,
            Value::clone(&tool.schema),
            lint.verdict(Form::Original),
        ),
        (
            Form::Projection,
            projection.schema.clone(),
            lint.verdict(Form::Projection),
        ),
        (
            Form::Tailored,
            tailored.projection.schema,
            lint.verdict(Form::Tailored),
        ),
    ];
    (forms, warned)
}

fn compare_with_lint(
    servers: &[(String, manifest::Manifest, Value)],
) -> BTreeMap<(Provider, Form), Agreement> {
    let mut out: BTreeMap<(Provider, Form), Agreement> = BTreeMap::new();
    let options = Options::flat();
    let profiles: Vec<Profile> = Provider::ALL.into_iter().map(profile).collect();
    for (server, manifest, _) in servers {
        // One manifest is one request, as `schemalens lint FILE` sends it.
        let projections: Vec<schemalens::Projection> = manifest
            .tools
            .iter()
            .map(|t| {
                schemalens::project_tool(t, &options)
                    .unwrap_or_else(|e| panic!("{server}/{}: {e}", t.name))
            })
            .collect();
        let forms: Vec<ToolForms<'_>> = manifest
            .tools
            .iter()
            .zip(&projections)
            .map(|(tool, p)| ToolForms {
                name: Some(&tool.name),
                tool,
                options: &options,
                projection: Ok(p),
            })
            .collect();
        let reports = lint_forms_for(&profiles, &forms);
        for (provider, per_tool) in Provider::ALL.into_iter().zip(&reports) {
            for ((tool, projection), lint) in manifest.tools.iter().zip(&projections).zip(per_tool)
            {
                let (forms, warned) = forms_and_verdicts(provider, tool, projection, lint);
                // `project --provider` warns exactly when lint's tailored verdict rejects.
                if warned.is_empty() != (lint.verdict(Form::Tailored) == Verdict::Accepted) {
                    out.entry((provider, Form::Tailored))
                        .or_default()
                        .warnings_disagree
                        .push(format!(
                            "{server}/{}: lint {}, project warns {warned:?}",
                            tool.name,
                            lint.verdict(Form::Tailored).name()
                        ));
                }
                for (form, schema, verdict) in forms {
                    let rejections = check(provider, Some(&tool.name), &schema);
                    let tally = out.entry((provider, form)).or_default();
                    let lint_accepts = verdict == Verdict::Accepted;
                    tally.lint_accepted += usize::from(lint_accepts);
                    tally.checker_accepted += usize::from(rejections.is_empty());
                    let key = format!("{form} {server}/{}", tool.name);
                    if lint_accepts && !rejections.is_empty() {
                        let mut rules: Vec<String> = rejections
                            .iter()
                            .map(|r| format!("{} at #{}", r.rule, r.at))
                            .collect();
                        rules.dedup();
                        let line = format!("{key}: {}", rules.join(", "));
                        let flagged = |at: &str| {
                            lint.form(form)
                                .groups
                                .iter()
                                .flat_map(|g| &g.pointers)
                                .any(|p| within(p, at))
                        };
                        if !rejections.iter().all(|r| flagged(&r.at)) {
                            tally.lint_silent.push(line.clone());
                        }
                        tally.lint_too_lenient.push(line);
                    } else if !lint_accepts && rejections.is_empty() {
                        let rules: Vec<&str> = lint
                            .form(form)
                            .groups
                            .iter()
                            .filter(|g| g.finding.is_error())
                            .map(|g| g.finding.rule)
                            .collect();
                        tally
                            .lint_stricter
                            .push(format!("{key}: {}", rules.join(", ")));
                    }
                }
            }
        }
    }
    out
}

/// `inner` is `outer` or below it (every place is below the root, where the checker reports
/// what is about the whole tool).
fn within(inner: &str, outer: &str) -> bool {
    inner
        .strip_prefix(outer)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// The corpus has no `$comment` and no `$schema`/`$id` below the root, so the corpus comparison
/// cannot see those keywords: the same comparison on schemas that carry them, original and
/// tailored, for OpenAI strict (where lint and checker were decided on the same source); the
/// tailored form must pass the checker for every provider. (Anthropic strict's checker refuses
/// every keyword outside the second-hand list, `$id` included, where lint has no such rule.)
#[test]
fn lint_and_checker_agree_on_schema_comment_and_id_keywords() {
    let name = json!({"type": "string", "description": "a name"});
    let with = |at_root: &[(&str, &str)], nested: &[(&str, &str)]| {
        let mut inner = name.clone();
        for (k, v) in nested {
            inner[*k] = json!(v);
        }
        let mut schema = json!({"type": "object", "properties": {"name": inner}, "required": ["name"], "additionalProperties": false});
        for (k, v) in at_root {
            schema[*k] = json!(v);
        }
        schema
    };
    let draft = "https://json-schema.org/draft/2020-12/schema";
    let schemas = [
        with(&[("$schema", draft), ("$id", "urn:tool")], &[]),
        with(&[("$comment", "generated")], &[]),
        with(&[], &[("$schema", draft)]),
        with(&[], &[("$id", "urn:name")]),
        with(&[], &[("$comment", "trimmed")]),
    ];
    let mut disagreements = Vec::new();
    for schema in &schemas {
        let tool = bare_tool(schema, "schema");
        for provider in Provider::ALL {
            let tailored = tailor_tool(&tool, &Options::flat(), profile(provider))
                .expect("tailored")
                .projection
                .schema;
            for (form, s) in [("original", schema), ("tailored", &tailored)] {
                let lint_accepts = !schemalens::lint::has_errors(&schemalens::lint::lint_schema(
                    profile(provider),
                    s,
                ));
                let checker = check(provider, Some("tool"), s);
                if provider == Provider::OpenAiStrict && lint_accepts != checker.is_empty() {
                    disagreements.push(format!(
                        "{provider} {form} {s}: lint accepts: {lint_accepts}, checker: {:?}",
                        checker.iter().map(|r| r.rule).collect::<Vec<_>>()
                    ));
                }
                if form == "tailored" {
                    assert!(
                        checker.is_empty(),
                        "{provider}: tailored {s} refused: {checker:?}"
                    );
                }
            }
        }
    }
    assert!(disagreements.is_empty(), "{disagreements:#?}");
}

#[test]
fn lint_never_accepts_what_the_checker_rejects() {
    let Some(corpus) = support::corpus_dir() else {
        eprintln!("skipped: SCHEMALENS_CORPUS is not set");
        return;
    };
    assert_lint_never_lenient(&servers(&corpus), Strictness::NeverLenient);
}

/// What the comparison fails on, besides lint's tailored verdict and `project`'s warnings
/// disagreeing.
#[derive(Clone, Copy, PartialEq)]
enum Strictness {
    /// Any form lint accepts and the checker rejects.
    NeverLenient,
    /// A form lint accepts where the checker rejects a place lint has no finding about. The
    /// checker refuses what rests on second-hand, unconfirmed or no evidence; lint warns there
    /// (`[unconfirmed]`) and keeps its verdict, which the real set shows on Pydantic `$defs`
    /// for Gemini, `minLength` for OpenAI strict and untyped `Any` for Anthropic's SDK.
    NeverSilent,
}

/// The same comparison on the real set (`SCHEMALENS_REALSET`, see the acceptance test above):
/// Pydantic and Zod models as their generators emit them, where the corpus has few recursive
/// models, `Any` fields or huge enums.
#[test]
fn lint_never_accepts_what_the_checker_rejects_on_real_inputs() {
    let Some(list) = std::env::var_os("SCHEMALENS_REALSET") else {
        eprintln!("skipped: SCHEMALENS_REALSET is not set");
        return;
    };
    let manifests: Vec<(String, manifest::Manifest, Value)> = std::env::split_paths(&list)
        .flat_map(|p| manifest_files(&p))
        .map(|p| (support::stem(&p), support::load(&p), Value::Null))
        .collect();
    assert_lint_never_lenient(&manifests, Strictness::NeverSilent);
}

/// Prints lint's and the checker's accepted counts per provider and form, and fails where lint
/// accepts what the checker rejects, or lint's tailored verdict and `project`'s warnings differ.
fn assert_lint_never_lenient(
    servers: &[(String, manifest::Manifest, Value)],
    strictness: Strictness,
) {
    let tools: usize = servers.iter().map(|(_, m, _)| m.tools.len()).sum();
    let agreement = compare_with_lint(servers);
    eprintln!("\naccepted / {tools} (lint | checker), flat mode:");
    let mut lenient = Vec::new();
    let mut disagree = Vec::new();
    for ((provider, form), a) in &agreement {
        eprintln!(
            "  {provider:<16} {form:<10} lint {:>3} | checker {:>3}; lint accepts what the checker rejects: {} ({} without a finding there); lint rejects what the checker accepts: {}",
            a.lint_accepted,
            a.checker_accepted,
            a.lint_too_lenient.len(),
            a.lint_silent.len(),
            a.lint_stricter.len()
        );
        for l in &a.lint_too_lenient {
            eprintln!("    lint accepts, checker rejects: {provider} {l}");
        }
        for l in &a.lint_stricter {
            eprintln!("    lint rejects, checker accepts: {provider} {l}");
        }
        let failing = match strictness {
            Strictness::NeverLenient => &a.lint_too_lenient,
            Strictness::NeverSilent => &a.lint_silent,
        };
        lenient.extend(failing.iter().map(|l| format!("{provider} {l}")));
        disagree.extend(
            a.warnings_disagree
                .iter()
                .map(|l| format!("{provider} {l}")),
        );
    }
    assert!(
        disagree.is_empty(),
        "project's warnings and lint's tailored verdict disagree:\n{}",
        disagree.join("\n")
    );
    assert!(
        lenient.is_empty(),
        "lint says accepted where the independent checker rejects ({}, {}):\n{}",
        lenient.len(),
        match strictness {
            Strictness::NeverLenient => "at all",
            Strictness::NeverSilent => "with no finding at the place",
        },
        lenient.join("\n")
    );
}

// ---------------------------------------------------------------------------------------------
// The whole request: Anthropic strict tool use limits the strict tools of one request together
// (at most 20 of them, 24 optional and 16 union-typed parameters across them). What `project
// --provider anthropic-strict` writes for a tool list is judged as one request by the checker.

/// The tools of an Anthropic tool list as a request sends them.
fn sent_tools(list: &Value) -> Vec<SentTool<'_>> {
    list.as_array()
        .expect("a tool list")
        .iter()
        .map(|t| SentTool {
            name: t["name"].as_str().expect("a name"),
            input_schema: &t["input_schema"],
            strict: t.get("strict") == Some(&json!(true)),
        })
        .collect()
}

/// `tools` (name, schema) as an Anthropic tool list, every tool asking for strict mode.
fn strict_tool_list(tools: &[(String, Value)]) -> Value {
    tools
        .iter()
        .map(|(name, schema)| json!({"name": name, "input_schema": schema, "strict": true}))
        .collect()
}

/// `project --provider anthropic-strict` of `list`: the tool list it writes, and its stderr.
/// Also checks that `lint --provider anthropic-strict` says the same of every tool.
fn project_request(list: &Value) -> (Value, String) {
    let (_dir, path) = in_a_file(list);
    let path = path.as_str();
    let args = [
        "--provider",
        "anthropic-strict",
        "--input-format",
        "anthropic",
    ];
    let projected = support::cli::run(&[&["project", path][..], &args[..]].concat());
    projected.expect_code(0, "project");
    let written = projected.json();
    let linted = support::cli::run(&[&["lint", path, "--format", "json"][..], &args[..]].concat());
    let lint = linted.json();
    let said: Vec<(String, bool)> = lint["summary"]
        .as_array()
        .expect("a summary")
        .iter()
        .map(|row| {
            (
                row["tool"].as_str().unwrap().to_owned(),
                row["sent"] == "strict",
            )
        })
        .collect();
    let wrote: Vec<(String, bool)> = sent_tools(&written)
        .iter()
        .map(|t| (t.name.to_owned(), t.strict))
        .collect();
    assert_eq!(said, wrote, "lint's plan is what project writes");
    (written, projected.stderr)
}

/// `document` written to a file of its own (kept while the folder is): the folder and the path.
fn in_a_file(document: &Value) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let file = dir.path().join("tools.json");
    std::fs::write(&file, document.to_string()).expect("written");
    let path = file.to_str().expect("a UTF-8 path").to_owned();
    (dir, path)
}

/// `lint --provider anthropic-strict` of `list`, as text.
fn lint_text(list: &Value) -> String {
    let (_dir, path) = in_a_file(list);
    let path = path.as_str();
    support::cli::run(&["lint", path, "--provider", "anthropic-strict"]).stdout
}

fn strict_names(list: &Value) -> Vec<&str> {
    sent_tools(list)
        .into_iter()
        .filter(|t| t.strict)
        .map(|t| t.name)
        .collect()
}

fn rejection_rules(rejections: &[Rejection]) -> Vec<&'static str> {
    let mut rules: Vec<&str> = rejections.iter().map(|r| r.rule).collect();
    rules.sort();
    rules.dedup();
    rules
}

#[test]
fn the_request_checker_counts_across_the_strict_tools() {
    let small = json!({"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"], "additionalProperties": false});
    let open = json!({"type": "object", "properties": {"n": {"type": "integer", "minimum": 0}}});
    let names: Vec<String> = (0..21).map(|i| format!("t{i}")).collect();
    let mut tools: Vec<SentTool<'_>> = names
        .iter()
        .map(|name| SentTool {
            name,
            input_schema: &small,
            strict: true,
        })
        .collect();
    assert_eq!(
        rejection_rules(&check_request(&tools)),
        ["request-strict-tools"]
    );
    tools[20].strict = false;
    assert!(check_request(&tools).is_empty());
    // A non-strict tool is held to ordinary tool use only: strict mode's rules do not apply.
    tools[20].input_schema = &open;
    assert!(check_request(&tools).is_empty());
    tools[20].strict = true;
    tools[19].strict = false;
    assert_eq!(
        rejection_rules(&check_request(&tools)),
        ["additional-properties", "unsupported-keyword"]
    );
}

/// 25 tools that each ask for strict mode: the first 20 are written `strict: true`, the last
/// five `strict: false`, each named on stderr with the limit it would cross; the request passes.
#[test]
fn a_request_of_twenty_five_tools_sends_twenty_strict() {
    let schema =
        json!({"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]});
    let tools: Vec<(String, Value)> = (1..=25)
        .map(|i| (format!("t{i:02}"), schema.clone()))
        .collect();
    let list = strict_tool_list(&tools);
    assert_eq!(
        rejection_rules(&check_request(&sent_tools(&list))),
        ["additional-properties", "request-strict-tools"],
        "as written, every tool strict"
    );
    let (written, stderr) = project_request(&list);
    let expected: Vec<String> = (1..=20).map(|i| format!("t{i:02}")).collect();
    assert_eq!(strict_names(&written), expected);
    for t in &written.as_array().unwrap()[20..] {
        assert_eq!(t["strict"], json!(false), "{t}");
    }
    let refused = check_request(&sent_tools(&written));
    assert!(refused.is_empty(), "{refused:#?}");
    assert!(
        stderr.contains("one request takes 20 of the 25 tools strict"),
        "{stderr}"
    );
    let text = lint_text(&list);
    assert!(
        text.contains("anthropic-strict: one request takes 20 of the 25 tools strict"),
        "{text}"
    );
    assert!(
        text.contains("  t21: non-strict: the request has room for no more: with it, 21 strict tools (at most 20)"),
        "{text}"
    );
    let t21 = text
        .lines()
        .find(|l| l.starts_with("t21 "))
        .expect("t21's summary line");
    assert!(t21.ends_with(" · non-strict"), "{t21}");
    let t20 = text
        .lines()
        .find(|l| l.starts_with("t20 "))
        .expect("t20's summary line");
    assert!(t20.ends_with(" · strict"), "{t20}");
    assert!(
        stderr.contains(
            "tool \"t21\": anthropic-strict: sent non-strict: the request has room for no more: with it, 21 strict tools (at most 20)"
        ),
        "{stderr}"
    );
}

/// Three tools with 10 optional parameters each (30 where a request takes 24) and three with
/// 6 union-typed ones each (18 where it takes 16): two of each kind go strict, and the request
/// passes.
#[test]
fn optional_and_union_parameters_across_tools_stay_within_the_request() {
    let optional: serde_json::Map<String, Value> = (0..10)
        .map(|i| (format!("o{i}"), json!({"type": "string"})))
        .collect();
    let unions: serde_json::Map<String, Value> = (0..6)
        .map(|i| (format!("u{i}"), json!({"type": ["string", "integer"]})))
        .collect();
    let union_names: Vec<String> = unions.keys().cloned().collect();
    // Closed, as Zod servers write them: an open object gets one more optional property (the
    // carrier of its other keys), which would shift the counts this test is about.
    let with_optional =
        json!({"type": "object", "properties": optional, "additionalProperties": false});
    let with_unions = json!({"type": "object", "properties": unions, "required": union_names,
        "additionalProperties": false});
    let tools: Vec<(String, Value)> = ["a", "b", "c"]
        .iter()
        .map(|n| (n.to_string(), with_optional.clone()))
        .chain(
            ["d", "e", "f"]
                .iter()
                .map(|n| (n.to_string(), with_unions.clone())),
        )
        .collect();
    let (written, stderr) = project_request(&strict_tool_list(&tools));
    let refused = check_request(&sent_tools(&written));
    assert!(refused.is_empty(), "{refused:#?}");
    assert_eq!(strict_names(&written), ["a", "b", "d", "e"]);
    assert!(
        stderr.contains("tool \"c\": anthropic-strict: sent non-strict: the request has room for no more: with it, 30 optional properties (at most 24)"),
        "{stderr}"
    );
    assert!(
        stderr.contains("with it, 18 properties typed by `anyOf` or a type list (at most 16)"),
        "{stderr}"
    );
}

/// Every corpus server's tools as one Anthropic request asking for strict mode: what `project`
/// writes passes the request checker, and lint says the same of each tool. Prints how many
/// tools go strict per server.
#[test]
fn corpus_servers_as_strict_requests_are_accepted_whole() {
    let Some(corpus) = support::corpus_dir() else {
        eprintln!("skipped: SCHEMALENS_CORPUS is not set");
        return;
    };
    let mut failures = Vec::new();
    for (server, manifest, _) in servers(&corpus) {
        let tools: Vec<(String, Value)> = manifest
            .tools
            .iter()
            .map(|t| (t.name.clone(), (*t.schema).clone()))
            .collect();
        let (written, _) = project_request(&strict_tool_list(&tools));
        let sent = sent_tools(&written);
        // The same schemas with every tool strict, as the request was before the plan.
        let all_strict: Vec<SentTool<'_>> = sent
            .iter()
            .map(|t| SentTool { strict: true, ..*t })
            .collect();
        let strict: Vec<Doc<'_>> = sent
            .iter()
            .filter(|t| t.strict)
            .map(|t| Doc::new(t.input_schema, Some(t.name)))
            .collect();
        eprintln!(
            "{server}: {} of {} tools strict ({} optional, {} union-typed parameters across them); every tool strict: {:?}",
            strict.len(),
            sent.len(),
            strict.iter().map(optional_count).sum::<usize>(),
            strict.iter().map(union_count).sum::<usize>(),
            rejection_rules(&check_request(&all_strict)),
        );
        let refused = check_request(&sent);
        if !refused.is_empty() {
            failures.push(format!("{server}: {refused:#?}"));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// An MCP tools/list has no `strict` flag: the document is written as it was (schemas
/// tailored), and stderr tells which tools to send strict.
#[test]
fn a_document_without_strict_flags_gets_the_plan_on_stderr() {
    let schema =
        json!({"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]});
    let tools: Vec<Value> = (1..=22)
        .map(|i| json!({"name": format!("t{i:02}"), "inputSchema": schema}))
        .collect();
    let (_dir, path) = in_a_file(&json!({"tools": tools}));
    let r = support::cli::run(&["project", &path, "--provider", "anthropic-strict"]);
    r.expect_code(0, "project");
    let written = r.json();
    assert!(
        written["tools"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t.get("strict").is_none()),
        "{written:#}"
    );
    assert!(
        r.stderr
            .contains("one request takes 20 of the 22 tools strict")
            && r.stderr
                .contains("an MCP tools/list result has no `strict` flag"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr
            .contains("tool \"t22\": anthropic-strict: sent non-strict"),
        "{}",
        r.stderr
    );
    // One tool alone is no request: nothing is said.
    let r = support::cli::run(&[
        "project",
        &path,
        "--provider",
        "anthropic-strict",
        "--tool",
        "t22",
    ]);
    r.expect_code(0, "project --tool");
    assert!(!r.stderr.contains("non-strict"), "{}", r.stderr);
}

// ---------------------------------------------------------------------------------------------
// Kept recursion and OpenAI strict's depth limit (issue 10): the provider follows a recursive
// `$ref` until it reaches a definition already entered, counting each level it nests.

/// A ring of `n` object definitions, each holding the next in an optional property, the last
/// holding the first; the root holds the first.
fn ring(n: usize) -> Value {
    let defs: Map<String, Value> = (0..n)
        .map(|i| {
            let next = format!("#/$defs/R{}", (i + 1) % n);
            (
                format!("R{i}"),
                json!({"type": "object", "properties": {
                    "label": {"type": "string"},
                    "next": {"$ref": next}
                }, "required": ["label"]}),
            )
        })
        .collect();
    json!({"type": "object", "properties": {"ring": {"$ref": "#/$defs/R0"}}, "required": ["ring"], "$defs": defs})
}

/// A payload of `ring(n)` that goes `depth` definitions down the ring.
fn ring_payload(depth: usize) -> Value {
    let mut value = json!({"label": format!("d{depth}")});
    for i in (0..depth).rev() {
        value = json!({"label": format!("d{i}"), "next": value});
    }
    json!({"ring": value})
}

fn definition_names(schema: &Value) -> Vec<String> {
    schema["$defs"]
        .as_object()
        .map(|d| d.keys().cloned().collect())
        .unwrap_or_default()
}

fn tailoring_steps(t: &Tailored) -> Vec<String> {
    t.projection
        .trace
        .iter()
        .filter_map(|e| match &e.detail {
            schemalens::projection::Detail::Tailored(step) => {
                let text = serde_json::to_value(step).ok()?;
                text["step"].as_str().map(str::to_owned)
            }
            _ => None,
        })
        .collect()
}

fn lint_errors(schema: &Value) -> Vec<String> {
    schemalens::lint::lint_schema(Profile::OpenAiStrict, schema)
        .into_iter()
        .filter(|f| f.severity == schemalens::lint::Severity::Error)
        .map(|f| f.rule.to_owned())
        .collect()
}

#[test]
fn a_ring_of_definitions_within_the_depth_limit_keeps_its_defs_form() {
    let tool = bare_tool(&ring(2), "ring");
    for options in [Options::inline(), Options::flat()] {
        let t = tailor_tool(&tool, &options, Profile::OpenAiStrict).expect("tailored");
        assert!(t.unresolved.is_empty(), "{:?}", t.unresolved);
        assert_eq!(definition_names(&t.projection.schema), ["R0"]);
        let steps = tailoring_steps(&t);
        assert!(
            !steps.iter().any(|s| s.starts_with("recursion")),
            "{steps:?}"
        );
        let sent = check(Provider::OpenAiStrict, Some("ring"), &t.projection.schema);
        assert!(sent.is_empty(), "{sent:?}");
        assert!(!lint_errors(&t.projection.schema).contains(&"limit-depth".to_owned()));
        let payloads: Vec<Value> = (0..6).map(ring_payload).collect();
        sent_and_back(&tool, &t, &payloads);
    }
}

/// Twelve definitions in a ring: one pass through it nests past 10 levels. The kept form is
/// refused by the checker and, now that it follows recursive `$ref`s, by lint; tailoring
/// unrolls it (one copy per definition and level, no cycle left) and carries what lies deeper
/// as JSON text, and every payload, however deep, goes there and back.
#[test]
fn a_ring_of_definitions_past_the_depth_limit_is_unrolled_and_carried_as_text() {
    let tool = bare_tool(&ring(12), "ring");
    let kept = schemalens::project_tool(
        &tool,
        &schemalens::projection::tailor::options_for(Profile::OpenAiStrict, &Options::inline()),
    )
    .expect("projected");
    let refused = check(Provider::OpenAiStrict, Some("ring"), &ring(12));
    assert!(
        refused.iter().any(|r| r.rule == "limit-depth"),
        "{refused:?}"
    );
    assert!(
        schemalens::lint::lint_schema(Profile::OpenAiStrict, &kept.schema)
            .iter()
            .any(|f| f.rule == "limit-depth"),
        "lint follows the recursive $ref as the checker does"
    );
    for options in [Options::inline(), Options::flat()] {
        let t = tailor_tool(&tool, &options, Profile::OpenAiStrict).expect("tailored");
        assert!(t.unresolved.is_empty(), "{:?}", t.unresolved);
        let sent = check(Provider::OpenAiStrict, Some("ring"), &t.projection.schema);
        assert!(sent.is_empty(), "{sent:?}");
        assert!(lint_errors(&t.projection.schema).is_empty());
        // The kept form expands the ring once and refers back to its first definition only
        // where it re-enters, past the limit: no copy of it fits, so it is cut there.
        assert_eq!(definition_names(&t.projection.schema), Vec::<String>::new());
        let steps = tailoring_steps(&t);
        assert!(
            steps.contains(&"recursion-cut-deep".to_owned()),
            "{steps:?}"
        );
        let cut = t
            .projection
            .trace
            .iter()
            .find(|e| e.message().contains("runs out of levels"))
            .expect("the cut is explained");
        assert!(cut.message().contains("allows 10"), "{}", cut.message());
        let payloads: Vec<Value> = (0..17).map(ring_payload).collect();
        sent_and_back(&tool, &t, &payloads);
        // Deep enough that part of it must travel as text.
        let adapter = t.payload_adapter(validator(&tool, &t).1);
        assert!(!adapter.adapt(&ring_payload(16)).encoded.is_empty());
    }
}

/// Qdrant's formula language: every expression's operands are a union of all the
/// expressions, as Pydantic writes them (no definition for the union). Kept recursion that
/// expands each path until it re-enters multiplies with the members (8! paths here) and blew
/// the node budget: the tool had no output. Now each member is one shared definition, and
/// OpenAI strict gets the unrolled form.
fn formula(members: usize) -> Value {
    let union = || {
        let mut alternatives = vec![json!({"type": "number"})];
        alternatives.extend((0..members).map(|i| json!({"$ref": format!("#/$defs/E{i}")})));
        json!({"anyOf": alternatives})
    };
    let defs: Map<String, Value> = (0..members)
        .map(|i| {
            let operand = if i % 2 == 0 {
                union()
            } else {
                json!({"type": "array", "items": union()})
            };
            (
                format!("E{i}"),
                json!({"type": "object", "properties": {format!("op{i}"): operand}, "required": [format!("op{i}")]}),
            )
        })
        .collect();
    json!({"type": "object", "properties": {"formula": union()}, "required": ["formula"], "$defs": defs})
}

#[test]
fn mutual_recursion_through_a_union_gets_output_and_fits_openai_strict() {
    let schema = formula(8);
    let tool = bare_tool(&schema, "formula");
    for options in [Options::inline(), Options::flat()] {
        let keep = Options {
            recursion: schemalens::Recursion::Keep,
            ..options.clone()
        };
        let p = schemalens::project_tool(&tool, &keep).expect("kept recursion has output");
        let mut names = definition_names(&p.schema);
        names.sort();
        assert_eq!(names, (0..8).map(|i| format!("E{i}")).collect::<Vec<_>>());
        let t = tailor_tool(&tool, &options, Profile::OpenAiStrict).expect("tailored");
        assert!(t.unresolved.is_empty(), "{:?}", t.unresolved);
        let sent = check(
            Provider::OpenAiStrict,
            Some("formula"),
            &t.projection.schema,
        );
        assert!(sent.is_empty(), "{sent:?}");
        let steps = tailoring_steps(&t);
        assert!(
            steps.contains(&"recursion-unrolled".to_owned()),
            "{steps:?}"
        );
        assert!(
            steps.contains(&"recursion-cut-deep".to_owned()),
            "{steps:?}"
        );
        assert!(lint_errors(&t.projection.schema).is_empty());
        let deep = (0..8).rev().fold(json!(1.5), |inner, i| {
            let operand = if i % 2 == 0 { inner } else { json!([inner, 2]) };
            json!({format!("op{i}"): operand})
        });
        let payloads = [
            json!({"formula": 3}),
            json!({"formula": {"op0": {"op1": [1, {"op2": 4}]}}}),
            json!({"formula": {"op3": [{"op3": [{"op3": []}]}]}}),
            json!({"formula": deep}),
        ];
        let original = jsonschema::validator_for(&schema).unwrap();
        assert!(payloads.iter().all(|p| original.is_valid(p)));
        sent_and_back(&tool, &t, &payloads);
    }
}

/// The checker counts every object as a level, one with no property too; lint counts every
/// subschema one level below its parent, and the `additionalProperties: false` of a closed
/// object is what makes it count that object: both refuse eleven nested closed objects and
/// accept ten.
#[test]
fn lint_and_the_checker_count_an_empty_closed_object_as_a_level() {
    let nested = |n: usize| {
        let mut deep = json!({"type": "object", "properties": {}, "required": [], "additionalProperties": false});
        for _ in 1..n {
            deep = json!({"type": "object", "properties": {"x": deep}, "required": ["x"], "additionalProperties": false});
        }
        deep
    };
    assert_eq!(
        rules(Provider::OpenAiStrict, nested(10)),
        Vec::<&str>::new()
    );
    assert!(!lint_errors(&nested(10)).contains(&"limit-depth".to_owned()));
    assert_eq!(rules(Provider::OpenAiStrict, nested(11)), ["limit-depth"]);
    assert!(lint_errors(&nested(11)).contains(&"limit-depth".to_owned()));
}

/// Without its lossy steps the unrolled ring is shallower (no null alternatives), but it must
/// carry the values the lossy form carries: a string the provider sends in a carrier of the
/// lossy form (here one that is no JSON text) un-adapts to a value that only a carrier at the
/// same place accepts.
#[test]
fn the_sound_form_carries_the_recursion_where_the_lossy_form_does() {
    let tried = assert_sound_form_follows_every_carrier(&ring(12), &ring_payload(16));
    assert!(!tried.is_empty());
}

/// The lossy form nests deeper (nullable objects) than the sound form, so it carries a map of a
/// nested object as text where the sound form alone would still write it as key/value entries;
/// text the provider sends there must un-adapt to something the sound form takes.
#[test]
fn the_sound_form_follows_carriers_beside_a_map_written_as_entries() {
    let mut schema = ring(12);
    for (_, definition) in schema["$defs"].as_object_mut().expect("defs") {
        definition["properties"]["meta"] = json!({"type": "object", "properties": {
            "tags": {"type": "object", "properties": {}},
            "note": {"type": "string"}
        }});
    }
    let mut payload = ring_payload(16);
    let mut at = &mut payload["ring"];
    while at.is_object() {
        at["meta"] = json!({"tags": {"k": [1, 2]}, "note": "n"});
        at = &mut at["next"];
    }
    let tried = assert_sound_form_follows_every_carrier(&schema, &payload);
    assert!(tried.iter().any(|at| at.ends_with("/tags")), "{tried:?}");
}

/// For every value the lossy OpenAI strict tailoring of `schema` (inline, recursion kept) sends
/// as JSON text in `payload`: whatever string the provider sends there un-adapts to a payload
/// the sound tailoring accepts once adapted to it.
/// Returns the places tried: those of the payload as sent (a place inside a value sent as text,
/// or a map entry's value, is covered by the place that holds it).
fn assert_sound_form_follows_every_carrier(schema: &Value, payload: &Value) -> Vec<String> {
    use schemalens::projection::tailor::options_for;
    let tool = bare_tool(schema, "ring");
    let projection = schemalens::project_tool(
        &tool,
        &options_for(Profile::OpenAiStrict, &Options::inline()),
    )
    .expect("projected");
    let both = LossyAndSound::of(&tool, projection);
    let (lossy, sound, draft) = (&both.lossy, &both.sound, both.draft);
    let (lossy_valid, sound_valid) = (&both.lossy_valid, &both.sound_valid);
    let sent = lossy.payload_adapter(draft).adapt(payload);
    assert!(lossy_valid.is_valid(&sent.payload), "{}", sent.payload);
    assert!(!sent.encoded.is_empty(), "{}", sent.payload);
    let mut tried = Vec::new();
    for at in &sent.encoded {
        let mut provider_sent = sent.payload.clone();
        let Some(place) = provider_sent.pointer_mut(at) else {
            continue;
        };
        *place = json!("not JSON");
        // Text where the entries of a map are sent one by one is not what the provider sends.
        if !lossy_valid.is_valid(&provider_sent) {
            continue;
        }
        tried.push(at.clone());
        let back = lossy.payload_adapter(draft).unadapt(&provider_sent);
        let in_sound = sound.payload_adapter(draft).adapt(&back).payload;
        assert!(
            sound_valid.is_valid(&in_sound),
            "at {at}: {back} as {in_sound} in {}",
            sound.projection.schema
        );
    }
    tried
}

/// Found by the soundness property test (flat, recursion kept, at the CI seed): in an unrolled
/// copy the lossy form carried a map (an object of anything, written as entries) as text, and
/// the sound form's copy, which finds the lossy form's carriers by projection pointer, kept the
/// entries: the map's pointer had been taken over by its values' schema.
#[test]
fn an_unrolled_copy_carries_a_map_in_both_forms() {
    let schema: Value = serde_json::from_str(
        r##"{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"op":{"anyOf":[{"allOf":[{"$ref":"#/$defs/Base2"},{"type":"object","properties":{"type":{"const":"create"}}}]},{"type":"object","properties":{"type":{"const":"delete"}}}]},"also":{"$ref":"#/$defs/Shared0"}},"required":["op"],"$defs":{"Base1":{"type":"object","properties":{"type":{"type":"string"},"value":{"type":"string"},"name":{"anyOf":[{"type":"object","properties":{"type":{"const":"create"},"value":{"$ref":"#/$defs/Shared0"}}},{"type":"object","properties":{"type":{"const":"delete"},"name":{"type":"string"}}}]}},"required":["type"]},"Shared0":{"type":"object","properties":{"value":{"anyOf":[{"type":"object","properties":{"type":{"const":"create"},"value":{"type":"string"},"name":{"type":"object","properties":{}}}},{"type":"object","properties":{"type":{"const":"delete"}}}]},"name":{"anyOf":[{"allOf":[{"$ref":"#/$defs/Base1"},{"type":"object","properties":{"type":{"const":"create"},"meta":{"type":"integer"}}}]},{"type":"object","properties":{"type":{"const":"delete"},"meta":{"const":0}}}]}},"required":["name"]},"Base2":{"type":"object","properties":{"type":{"type":"string"},"value":{"type":"array","items":{"anyOf":[{"type":"object","properties":{"type":{"const":"create"},"count":{"type":"string"}}},{"type":"object","properties":{"type":{"const":"delete"},"value":{"$ref":"#/$defs/Shared0"}}}]}},"name":{"type":"string"}},"required":["type"]}}}"##,
    )
    .expect("schema");
    let sent: Value = serde_json::from_str(
        r##"{"op":{"type":"delete","value":[{"type":"delete","count":"","value":{"value":null,"name":{"type":null,"value":"px","name":{"type":"create","value":{"value":{"type":"delete","value":null,"name":"zgh","more":"unjfnf"},"name":{"type":"create","value":"","name":"kevbmtr","meta":null,"more":null},"more":null},"name":"powkhxt","more":"yekuc"},"meta":null,"more":null},"more":"x"},"more":"gadg"},{"type":"delete","count":null,"value":null,"more":"hvsow"}],"name":"mma","more":null},"also":{"value":null,"name":{"type":null,"value":null,"name":{"type":"delete","value":{"value":{"type":"delete","value":null,"name":[],"more":null},"name":{"type":"delete","value":"is","name":null,"meta":null,"more":"pccnmcvi"},"more":null},"name":null,"more":null},"meta":null,"more":"dmvxxfr"},"more":""},"more":null}"##,
    )
    .expect("payload");
    let tool = bare_tool(&schema, "shared");
    let options = Options {
        recursion: schemalens::Recursion::Keep,
        ..Options::default()
    };
    let projection = schemalens::project_tool(&tool, &options).expect("projected");
    let both = LossyAndSound::of(&tool, projection);
    let (lossy, sound, draft) = (&both.lossy, &both.sound, both.draft);
    let (lossy_valid, sound_valid) = (&both.lossy_valid, &both.sound_valid);
    assert!(lossy_valid.is_valid(&sent), "{}", lossy.projection.schema);
    let back = lossy.payload_adapter(draft).unadapt(&sent);
    let in_sound = sound.payload_adapter(draft).adapt(&back).payload;
    assert!(
        sound_valid.is_valid(&in_sound),
        "{back} as {in_sound} in {}",
        sound.projection.schema
    );
}

/// OpenAI strict's two tailorings of one projection: what is sent (lossy), and the sound form
/// a payload the provider sends must be accepted by once un-adapted.
struct LossyAndSound {
    lossy: Tailored,
    sound: Tailored,
    lossy_valid: jsonschema::Validator,
    sound_valid: jsonschema::Validator,
    draft: jsonschema::Draft,
}

impl LossyAndSound {
    fn of(tool: &Tool, projection: schemalens::projection::Projection) -> LossyAndSound {
        use schemalens::projection::tailor::{TailorOptions, tailor_with};
        let tailored = |lossy| {
            tailor_with(
                projection.clone(),
                Profile::OpenAiStrict,
                TailorOptions { lossy },
            )
        };
        let (lossy, sound) = (tailored(true), tailored(false));
        let (lossy_valid, draft) = validator(tool, &lossy);
        let (sound_valid, _) = validator(tool, &sound);
        LossyAndSound {
            lossy,
            sound,
            lossy_valid,
            sound_valid,
            draft,
        }
    }
}
