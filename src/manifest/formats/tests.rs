use crate::manifest::{
    ManifestError, ManifestFormat, SchemaDialect, Tool, empty_parameters, load_str,
};
use serde_json::{Value, json};

fn load_as(document: &Value, format: Option<ManifestFormat>) -> Vec<Tool> {
    let manifest = load_str(&document.to_string(), "t.json", format).unwrap();
    if let Some(format) = format {
        assert_eq!(manifest.format, format);
    }
    manifest.tools
}

fn load(document: &Value, expected: ManifestFormat) -> Vec<Tool> {
    let manifest = load_str(&document.to_string(), "t.json", None).unwrap();
    assert_eq!(manifest.format, expected, "detected format");
    // Detection and the explicit format must agree on the tools.
    assert_eq!(load_as(document, Some(expected)), manifest.tools);
    manifest.tools
}

/// The pointer and message of a shape error.
fn shape_error(document: &Value, format: Option<ManifestFormat>) -> (String, String) {
    match load_str(&document.to_string(), "t.json", format).unwrap_err() {
        ManifestError::Shape {
            pointer, message, ..
        } => (pointer, message),
        other => panic!("expected a shape error, got {other}"),
    }
}

fn summary(tool: &Tool) -> (&str, Option<&str>, Option<&str>, &str) {
    (
        tool.name.as_str(),
        tool.description.as_deref(),
        tool.schema_pointer.as_deref(),
        tool.tool_pointer.as_str(),
    )
}

fn object_schema(property: &str) -> Value {
    json!({"type": "object", "properties": {property: {"type": "string"}}, "required": [property]})
}

// ---- bare JSON Schema ----

#[test]
fn bare_pydantic_schema_is_named_from_title() {
    let schema = json!({
        "description": "A user.",
        "properties": {"name": {"title": "Name", "type": "string"}},
        "required": ["name"],
        "title": "User",
        "type": "object"
    });
    let tools = load(&schema, ManifestFormat::BareSchema);
    assert_eq!(tools.len(), 1);
    assert_eq!(summary(&tools[0]), ("User", Some("A user."), Some(""), ""));
    assert_eq!(*tools[0].schema, schema);
    assert_eq!(tools[0].dialect, SchemaDialect::JsonSchema);
}

#[test]
fn bare_zod_schema_is_named_from_file_stem() {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {"q": {"type": "string"}},
        "required": ["q"],
        "additionalProperties": false
    });
    let manifest = load_str(&schema.to_string(), "schemas/search.args.json", None).unwrap();
    assert_eq!(manifest.tools[0].name, "search.args");
    let manifest = load_str(&schema.to_string(), "<stdin>", None).unwrap();
    assert_eq!(manifest.tools[0].name, "schema");
    let manifest = load_str(&schema.to_string(), "", None).unwrap();
    assert_eq!(manifest.tools[0].name, "schema");
}

#[test]
fn bare_empty_title_falls_back_to_stem() {
    let manifest = load_str(r#"{"title": "", "type": "object"}"#, "dir/args.json", None).unwrap();
    assert_eq!(manifest.tools[0].name, "args");
}

#[test]
fn bare_boolean_schemas_load() {
    for schema in [json!(true), json!(false)] {
        let tools = load(&schema, ManifestFormat::BareSchema);
        assert_eq!(*tools[0].schema, schema);
        assert_eq!(tools[0].schema_pointer.as_deref(), Some(""));
    }
}

#[test]
fn bare_draft07_definitions_schema_loads() {
    let schema = json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "definitions": {"Id": {"type": "integer"}},
        "$ref": "#/definitions/Id"
    });
    assert_eq!(*load(&schema, ManifestFormat::BareSchema)[0].schema, schema);
}

#[test]
fn explicit_bare_schema_rejects_an_array() {
    let (pointer, message) = shape_error(&json!([]), Some(ManifestFormat::BareSchema));
    assert_eq!(pointer, "");
    assert_eq!(
        message,
        "expected an object or boolean schema, found an array"
    );
}

// ---- MCP ----

fn mcp_result() -> Value {
    json!({
        "tools": [
            {
                "name": "get_weather",
                "title": "Weather",
                "description": "Current weather.",
                "inputSchema": object_schema("city"),
                "outputSchema": {"type": "object", "properties": {"temp": {"type": "number"}}}
            },
            {"name": "ping", "inputSchema": {"type": "object"}}
        ],
        "nextCursor": "abc"
    })
}

#[test]
fn mcp_tools_list_result() {
    let tools = load(&mcp_result(), ManifestFormat::Mcp);
    assert_eq!(tools.len(), 2);
    assert_eq!(
        summary(&tools[0]),
        (
            "get_weather",
            Some("Current weather."),
            Some("/tools/0/inputSchema"),
            "/tools/0"
        )
    );
    assert_eq!(*tools[0].schema, object_schema("city"));
    assert_eq!(
        tools[0].output_schema_pointer.as_deref(),
        Some("/tools/0/outputSchema")
    );
    assert_eq!(
        summary(&tools[1]),
        ("ping", None, Some("/tools/1/inputSchema"), "/tools/1")
    );
    assert_eq!(tools[1].output_schema_pointer, None);
    assert_eq!(tools[1].strict, None);
}

#[test]
fn mcp_inside_json_rpc_response() {
    let response = json!({"jsonrpc": "2.0", "id": 7, "result": mcp_result()});
    let tools = load(&response, ManifestFormat::Mcp);
    assert_eq!(
        tools[1].schema_pointer.as_deref(),
        Some("/result/tools/1/inputSchema")
    );
    assert_eq!(tools[0].tool_pointer, "/result/tools/0");
}

#[test]
fn mcp_bare_tool_array_loads() {
    let tools = load(&mcp_result()["tools"], ManifestFormat::Mcp);
    assert_eq!(tools[0].schema_pointer.as_deref(), Some("/0/inputSchema"));
}

#[test]
fn mcp_json_rpc_error_is_reported() {
    let response = json!({
        "jsonrpc": "2.0", "id": 1,
        "error": {"code": -32601, "message": "Method not found"}
    });
    let (pointer, message) = shape_error(&response, None);
    assert_eq!(pointer, "/error");
    assert_eq!(
        message,
        "the JSON-RPC response is an error, not a tools/list result: \"Method not found\" (code -32601)"
    );
}

#[test]
fn mcp_missing_input_schema_points_at_the_tool() {
    let mut document = mcp_result();
    document["tools"][1] = json!({"name": "ping"});
    let err = load_str(&document.to_string(), "samples/x.json", None).unwrap_err();
    assert_eq!(
        err.to_string(),
        "samples/x.json at /tools/1: missing \"inputSchema\""
    );
}

#[test]
fn mcp_string_schema_is_a_shape_error() {
    let document = json!({"tools": [{"name": "a", "inputSchema": "object"}]});
    let (pointer, message) = shape_error(&document, None);
    assert_eq!(pointer, "/tools/0/inputSchema");
    assert_eq!(
        message,
        "expected an object or boolean schema, found a string"
    );
}

#[test]
fn mcp_bad_output_schema_is_a_shape_error() {
    let document = json!({"tools": [{"name": "a", "inputSchema": {}, "outputSchema": [1]}]});
    let (pointer, _) = shape_error(&document, None);
    assert_eq!(pointer, "/tools/0/outputSchema");
}

#[test]
fn mcp_non_string_name_is_a_shape_error() {
    let document = json!({"tools": [{"name": 3, "inputSchema": {}}]});
    assert_eq!(
        shape_error(&document, None),
        (
            "/tools/0/name".to_owned(),
            "expected a string, found a number".to_owned()
        )
    );
}

// ---- OpenAI ----

#[test]
fn openai_chat_completions_form() {
    let document = json!([{
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Weather.",
            "parameters": object_schema("city"),
            "strict": true
        }
    }]);
    let tools = load(&document, ManifestFormat::OpenAi);
    assert_eq!(
        summary(&tools[0]),
        (
            "get_weather",
            Some("Weather."),
            Some("/0/function/parameters"),
            "/0"
        )
    );
    assert_eq!(tools[0].strict, Some(true));
}

#[test]
fn openai_responses_flat_form() {
    let document = json!([{
        "type": "function",
        "name": "get_weather",
        "description": "Weather.",
        "parameters": object_schema("city"),
        "strict": false
    }]);
    let tools = load(&document, ManifestFormat::OpenAi);
    assert_eq!(
        summary(&tools[0]),
        ("get_weather", Some("Weather."), Some("/0/parameters"), "/0")
    );
    assert_eq!(tools[0].strict, Some(false));
}

#[test]
fn openai_request_body_with_tools() {
    let document = json!({
        "model": "gpt-5",
        "input": "hi",
        "tools": [
            {"type": "function", "name": "a", "parameters": object_schema("x")},
            {"type": "function", "function": {"name": "b", "parameters": object_schema("y")}}
        ],
        "tool_choice": "auto"
    });
    let tools = load(&document, ManifestFormat::OpenAi);
    assert_eq!(
        tools[0].schema_pointer.as_deref(),
        Some("/tools/0/parameters")
    );
    assert_eq!(
        tools[1].schema_pointer.as_deref(),
        Some("/tools/1/function/parameters")
    );
}

#[test]
fn openai_without_parameters_has_an_empty_parameter_list() {
    let document = json!([
        {"type": "function", "function": {"name": "now"}},
        {"type": "function", "name": "later", "parameters": null}
    ]);
    for tool in load(&document, ManifestFormat::OpenAi) {
        assert_eq!(*tool.schema, empty_parameters());
        assert_eq!(tool.schema_pointer, None);
        assert_eq!(tool.dialect, SchemaDialect::JsonSchema);
    }
}

#[test]
fn openai_builtin_tools_are_skipped() {
    let document = json!({"tools": [
        {"type": "web_search"},
        {"type": "function", "name": "a", "parameters": {"type": "object"}},
        {"type": "file_search", "vector_store_ids": ["vs_1"]},
        {"type": "custom", "name": "grammar_tool", "format": {"type": "text"}}
    ]});
    let tools = load(&document, ManifestFormat::OpenAi);
    assert_eq!(tools.len(), 1);
    assert_eq!(tools[0].tool_pointer, "/tools/1");
}

#[test]
fn openai_chat_form_missing_name_points_into_function() {
    let document = json!([{"type": "function", "function": {"parameters": {}}}]);
    assert_eq!(
        shape_error(&document, None),
        ("/0/function".to_owned(), "missing \"name\"".to_owned())
    );
}

#[test]
fn openai_explicit_format_requires_type() {
    let document = json!([{"name": "a", "input_schema": {}}]);
    assert_eq!(
        shape_error(&document, Some(ManifestFormat::OpenAi)),
        (
            "/0".to_owned(),
            "missing \"type\" (expected \"function\")".to_owned()
        )
    );
}

#[test]
fn openai_bad_strict_is_a_shape_error() {
    let document = json!([{"type": "function", "name": "a", "strict": "yes"}]);
    assert_eq!(
        shape_error(&document, None),
        (
            "/0/strict".to_owned(),
            "expected a boolean, found a string".to_owned()
        )
    );
}

#[test]
fn openai_explicit_format_on_a_schema_says_what_was_expected() {
    let (pointer, message) = shape_error(&object_schema("a"), Some(ManifestFormat::OpenAi));
    assert_eq!(pointer, "");
    assert_eq!(
        message,
        "expected OpenAI tools (a list of tools, or an object with a \"tools\" list), found an \
         object with keys \"type\", \"properties\", \"required\""
    );
}

// ---- Anthropic ----

#[test]
fn anthropic_tools_list_and_wrapper() {
    let list = json!([
        {"name": "get_weather", "description": "Weather.", "input_schema": object_schema("city")},
        {"type": "custom", "name": "b", "input_schema": {"type": "object"}, "strict": true}
    ]);
    let tools = load(&list, ManifestFormat::Anthropic);
    assert_eq!(
        summary(&tools[0]),
        (
            "get_weather",
            Some("Weather."),
            Some("/0/input_schema"),
            "/0"
        )
    );
    assert_eq!(tools[1].strict, Some(true));
    let wrapped = json!({"model": "claude", "max_tokens": 10, "tools": list});
    let tools = load(&wrapped, ManifestFormat::Anthropic);
    assert_eq!(
        tools[1].schema_pointer.as_deref(),
        Some("/tools/1/input_schema")
    );
}

#[test]
fn anthropic_server_tools_are_skipped() {
    let document = json!({"tools": [
        {"type": "bash_20250124", "name": "bash"},
        {"name": "a", "input_schema": {"type": "object"}},
        {"type": "web_search_20250305", "name": "web_search", "max_uses": 5},
        {"type": "text_editor_20250728", "name": "str_replace_based_edit_tool"}
    ]});
    let tools = load(&document, ManifestFormat::Anthropic);
    assert_eq!(tools.len(), 1);
    assert_eq!(tools[0].tool_pointer, "/tools/1");
}

#[test]
fn anthropic_explicit_format_on_openai_tools_fails_loudly() {
    let document = json!([{"type": "function", "function": {"name": "a"}}]);
    assert_eq!(
        shape_error(&document, Some(ManifestFormat::Anthropic)),
        ("/0".to_owned(), "missing \"input_schema\"".to_owned())
    );
}

#[test]
fn anthropic_null_input_schema_is_missing() {
    let document = json!([{"name": "a", "input_schema": {}}, {"name": "b", "input_schema": null}]);
    assert_eq!(
        shape_error(&document, None),
        ("/1".to_owned(), "missing \"input_schema\"".to_owned())
    );
}

// ---- Gemini ----

#[test]
fn gemini_single_tool_object_records_dialect() {
    let document = json!({"functionDeclarations": [
        {"name": "a", "description": "A.", "parameters": {"type": "OBJECT", "properties": {}}},
        {"name": "b", "parametersJsonSchema": object_schema("x")},
        {"name": "c"}
    ]});
    let tools = load(&document, ManifestFormat::Gemini);
    assert_eq!(
        summary(&tools[0]),
        (
            "a",
            Some("A."),
            Some("/functionDeclarations/0/parameters"),
            "/functionDeclarations/0"
        )
    );
    assert_eq!(tools[0].dialect, SchemaDialect::OpenApi30);
    assert_eq!(
        tools[1].schema_pointer.as_deref(),
        Some("/functionDeclarations/1/parametersJsonSchema")
    );
    assert_eq!(tools[1].dialect, SchemaDialect::JsonSchema);
    assert_eq!(tools[2].schema_pointer, None);
    assert_eq!(*tools[2].schema, empty_parameters());
}

#[test]
fn gemini_several_tool_objects_are_concatenated() {
    let document = json!([
        {"functionDeclarations": [{"name": "a", "parameters": {"type": "OBJECT"}}]},
        {"googleSearch": {}},
        {"functionDeclarations": [
            {"name": "b", "parameters": {"type": "OBJECT"}},
            {"name": "c", "parameters": {"type": "OBJECT"}}
        ]}
    ]);
    let tools = load(&document, ManifestFormat::Gemini);
    let names: Vec<_> = tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["a", "b", "c"]);
    assert_eq!(tools[2].tool_pointer, "/2/functionDeclarations/1");
}

#[test]
fn gemini_request_body_tools() {
    let document = json!({
        "contents": [{"role": "user", "parts": [{"text": "hi"}]}],
        "tools": [{"codeExecution": {}}, {"functionDeclarations": [{"name": "a", "parametersJsonSchema": true}]}]
    });
    let tools = load(&document, ManifestFormat::Gemini);
    assert_eq!(
        tools[0].schema_pointer.as_deref(),
        Some("/tools/1/functionDeclarations/0/parametersJsonSchema")
    );
    assert_eq!(*tools[0].schema, json!(true));
}

#[test]
fn gemini_python_sdk_snake_case_dump() {
    let document = json!([{
        "function_declarations": [{
            "name": "a",
            "description": null,
            "parameters": null,
            "parameters_json_schema": object_schema("x"),
            "response": null
        }],
        "google_search": null
    }]);
    let tools = load(&document, ManifestFormat::Gemini);
    assert_eq!(
        summary(&tools[0]),
        (
            "a",
            None,
            Some("/0/function_declarations/0/parameters_json_schema"),
            "/0/function_declarations/0"
        )
    );
    assert_eq!(tools[0].dialect, SchemaDialect::JsonSchema);
}

#[test]
fn gemini_both_parameter_keys_is_a_shape_error() {
    let document = json!({"functionDeclarations": [
        {"name": "a", "parameters": {"type": "OBJECT"}, "parametersJsonSchema": {"type": "object"}}
    ]});
    assert_eq!(
        shape_error(&document, None),
        (
            "/functionDeclarations/0".to_owned(),
            "both \"parameters\" and \"parametersJsonSchema\" are set; Gemini accepts only one of them"
                .to_owned()
        )
    );
}

#[test]
fn gemini_openapi_parameters_cannot_be_boolean() {
    let document = json!({"functionDeclarations": [{"name": "a", "parameters": true}]});
    assert_eq!(
        shape_error(&document, None),
        (
            "/functionDeclarations/0/parameters".to_owned(),
            "expected an object schema (OpenAPI 3.0 has no boolean schemas), found a boolean"
                .to_owned()
        )
    );
}

#[test]
fn gemini_explicit_format_rejects_foreign_tool_objects() {
    let document = json!([{"type": "function", "function": {"name": "a"}}]);
    assert_eq!(
        shape_error(&document, Some(ManifestFormat::Gemini)),
        (
            "/0".to_owned(),
            "expected a Gemini tool object with \"functionDeclarations\", found an object with \
             keys \"type\", \"function\""
                .to_owned()
        )
    );
}

#[test]
fn gemini_declarations_must_be_a_list() {
    let document = json!({"functionDeclarations": {"name": "a"}});
    assert_eq!(
        shape_error(&document, None),
        (
            "/functionDeclarations".to_owned(),
            "expected a list of function declarations, found an object with key \"name\""
                .to_owned()
        )
    );
}

// ---- untrusted text ----

#[test]
fn names_and_descriptions_are_kept_verbatim() {
    let name = "evil\u{1b}[2J<script>";
    let description = "line1\nline2\u{0}";
    let document =
        json!({"tools": [{"name": name, "description": description, "inputSchema": {}}]});
    let tools = load(&document, ManifestFormat::Mcp);
    assert_eq!(tools[0].name, name);
    assert_eq!(tools[0].description.as_deref(), Some(description));
}

#[test]
fn duplicate_names_are_allowed() {
    let document = json!([
        {"name": "a", "input_schema": {"type": "object"}},
        {"name": "a", "input_schema": {"type": "object", "properties": {}}}
    ]);
    assert_eq!(load(&document, ManifestFormat::Anthropic).len(), 2);
}
