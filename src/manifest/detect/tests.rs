use super::detect;
use crate::manifest::error::ShapeError;
use crate::manifest::{ManifestFormat, load_str};
use serde_json::{Value, json};

fn detected(document: Value) -> ManifestFormat {
    detect(&document).unwrap_or_else(|err| panic!("{document}: {err:?}"))
}

fn rejected(document: Value) -> ShapeError {
    detect(&document).unwrap_err()
}

#[test]
fn property_named_tools_is_a_schema() {
    let schema = json!({
        "type": "object",
        "properties": {"tools": {"type": "array", "items": {"type": "string"}}},
        "required": ["tools"]
    });
    assert_eq!(detected(schema), ManifestFormat::BareSchema);
}

#[test]
fn schema_root_with_a_stray_tools_member_is_a_schema() {
    let schema = json!({"$schema": "https://json-schema.org/draft/2020-12/schema", "tools": []});
    assert_eq!(detected(schema), ManifestFormat::BareSchema);
    let schema = json!({"type": "object", "tools": [{"name": "x", "inputSchema": {}}]});
    assert_eq!(detected(schema), ManifestFormat::BareSchema);
}

#[test]
fn tools_that_is_not_a_list_is_an_error_at_tools() {
    let err = rejected(json!({"tools": {"a": {}}}));
    assert_eq!(err.pointer, "/tools");
    assert_eq!(
        err.message,
        "expected \"tools\" to be a list of tools, found an object with key \"a\""
    );
}

#[test]
fn chat_and_responses_forms_are_both_openai() {
    assert_eq!(
        detected(json!([{"type": "function", "function": {"name": "a"}}])),
        ManifestFormat::OpenAi
    );
    assert_eq!(
        detected(json!([{"type": "function", "name": "a"}])),
        ManifestFormat::OpenAi
    );
    assert_eq!(
        detected(json!({"tools": [
            {"type": "function", "name": "a"},
            {"type": "function", "function": {"name": "b"}}
        ]})),
        ManifestFormat::OpenAi
    );
}

#[test]
fn entry_shapes_pick_the_format() {
    assert_eq!(
        detected(json!([{"name": "a", "input_schema": {}}])),
        ManifestFormat::Anthropic
    );
    assert_eq!(
        detected(json!({"tools": [{"name": "a", "inputSchema": {}}]})),
        ManifestFormat::Mcp
    );
    assert_eq!(
        detected(json!([{"functionDeclarations": []}])),
        ManifestFormat::Gemini
    );
    assert_eq!(
        detected(json!({"tools": [{"functionDeclarations": []}]})),
        ManifestFormat::Gemini
    );
    assert_eq!(
        detected(json!({"functionDeclarations": []})),
        ManifestFormat::Gemini
    );
}

#[test]
fn builtin_tools_decide_only_when_nothing_else_does() {
    assert_eq!(
        detected(json!([{"type": "web_search"}])),
        ManifestFormat::OpenAi
    );
    assert_eq!(
        detected(json!([{"type": "bash_20250124", "name": "bash"}])),
        ManifestFormat::Anthropic
    );
    assert_eq!(
        detected(json!([{"googleSearch": {}}])),
        ManifestFormat::Gemini
    );
    assert_eq!(
        detected(json!([
            {"type": "web_search_20250305", "name": "web_search"},
            {"name": "a", "input_schema": {}}
        ])),
        ManifestFormat::Anthropic
    );
}

#[test]
fn empty_lists_are_empty_manifests() {
    assert_eq!(detected(json!([])), ManifestFormat::OpenAi);
    assert_eq!(detected(json!({"tools": []})), ManifestFormat::Mcp);
    let manifest = load_str("{\"tools\": []}", "t.json", None).unwrap();
    assert!(manifest.tools.is_empty());
}

#[test]
fn json_rpc_wrapper_is_mcp() {
    assert_eq!(
        detected(json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": []}})),
        ManifestFormat::Mcp
    );
    assert_eq!(
        detected(json!({"result": {"tools": []}})),
        ManifestFormat::Mcp
    );
    assert_eq!(
        detected(json!({"jsonrpc": "2.0", "id": 1, "error": {"code": 1, "message": "x"}})),
        ManifestFormat::Mcp
    );
}

#[test]
fn mixed_formats_point_at_the_first_disagreeing_entry() {
    let err = rejected(json!({"tools": [
        {"type": "function", "name": "a"},
        {"type": "web_search"},
        {"name": "b", "input_schema": {}}
    ]}));
    assert_eq!(err.pointer, "/tools/2");
    assert_eq!(
        err.message,
        "mixed tool formats: entry 0 is OpenAI, this entry is Anthropic (pass --input-format to \
         choose one)"
    );
}

#[test]
fn schema_lookalikes() {
    for schema in [
        json!({}),
        json!(true),
        json!(false),
        json!({"type": "OBJECT", "properties": {}}),
        json!({"type": ["object", "null"]}),
        json!({"$ref": "#/$defs/A", "$defs": {"A": {}}}),
        json!({"anyOf": [{"type": "string"}, {"type": "integer"}]}),
        json!({"oneOf": []}),
        json!({"allOf": []}),
        json!({"definitions": {}}),
        json!({"$schema": "http://json-schema.org/draft-07/schema#"}),
    ] {
        assert_eq!(detected(schema), ManifestFormat::BareSchema);
    }
}

#[test]
fn unknown_object_names_its_keys() {
    let err = rejected(json!({"hello": 1, "world": 2}));
    assert_eq!(err.pointer, "");
    assert_eq!(
        err.message,
        "unknown manifest shape: found an object with keys \"hello\", \"world\" (expected a JSON \
         Schema, a list of tools, an object with a \"tools\" list, or Gemini \
         \"functionDeclarations\")"
    );
}

#[test]
fn a_lone_tool_gets_a_hint() {
    for tool in [
        json!({"type": "function", "function": {"name": "a"}}),
        json!({"name": "a", "parameters": {}}),
        json!({"name": "a", "inputSchema": {}}),
    ] {
        let err = rejected(tool);
        assert!(
            err.message
                .ends_with("; this looks like a single tool: put it in a list, [ … ]"),
            "{}",
            err.message
        );
    }
}

#[test]
fn scalars_are_unknown_shapes() {
    let err = load_str("\"tools\"", "samples/x.json", None).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("samples/x.json: unknown manifest shape: found a string"),
        "{err}"
    );
    assert!(rejected(json!(null)).message.contains("found null"));
    assert!(rejected(json!(3)).message.contains("found a number"));
}

#[test]
fn lists_without_hints_fall_back_to_a_format_that_names_the_bad_entry() {
    let err = load_str(r#"[{"name": "a", "parameters": {}}]"#, "t.json", None).unwrap_err();
    assert_eq!(
        err.to_string(),
        "t.json at /0: missing \"type\" (expected \"function\")"
    );
    let err = load_str(r#"{"tools": [{"name": "a"}]}"#, "t.json", None).unwrap_err();
    assert_eq!(
        err.to_string(),
        "t.json at /tools/0: missing \"inputSchema\""
    );
    let err = load_str("[3]", "t.json", None).unwrap_err();
    assert_eq!(
        err.to_string(),
        "t.json at /0: expected a tool object, found a number"
    );
}

#[test]
fn a_list_of_schemas_is_not_a_list_of_builtin_tools() {
    let err = load_str(r#"[{"type": "object"}]"#, "t.json", None).unwrap_err();
    assert_eq!(
        err.to_string(),
        "t.json at /0/type: expected \"function\" or a built-in tool type, found the schema \
         type \"object\""
    );
}

#[test]
fn explicit_format_overrides_detection() {
    let mcp = json!({"tools": [{"name": "a", "inputSchema": {}}]}).to_string();
    let manifest = load_str(&mcp, "dir/tools.json", Some(ManifestFormat::BareSchema)).unwrap();
    assert_eq!(manifest.tools.len(), 1);
    assert_eq!(manifest.tools[0].name, "tools");
    assert_eq!(manifest.tools[0].schema_pointer.as_deref(), Some(""));

    let schema = json!({"type": "object", "properties": {"tools": {}}}).to_string();
    let err = load_str(&schema, "s.json", Some(ManifestFormat::Mcp)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "s.json: expected an MCP tools/list result (an object with a \"tools\" list), found an \
         object with keys \"type\", \"properties\""
    );
}
