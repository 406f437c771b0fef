use super::*;
use serde_json::json;
use std::io::Write;

fn manifest(text: &str) -> Manifest {
    load_str(text, "t.json", None).unwrap()
}

/// Every tool's schema replaced by itself.
fn identity(manifest: &Manifest) -> Vec<(usize, Value)> {
    manifest
        .tools
        .iter()
        .enumerate()
        .map(|(index, tool)| (index, Value::clone(&tool.schema)))
        .collect()
}

const FIXTURES: [&str; 7] = [
    r#"{"title":"T","type":"object","properties":{"z":{"type":"string"},"a":{"type":"integer"}},"required":["z"]}"#,
    r#"true"#,
    r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{"type":"object","properties":{"z":{},"a":{}}},"outputSchema":{"type":"object"}}],"nextCursor":"c"}}"#,
    r#"[{"type":"function","function":{"name":"a","parameters":{"type":"object","properties":{"z":{},"a":{}}},"strict":true}},{"type":"web_search"},{"type":"function","name":"b"}]"#,
    r#"{"tools":[{"type":"bash_20250124","name":"bash"},{"name":"a","input_schema":{"type":"object","properties":{"z":{},"a":{}}}}],"model":"m"}"#,
    r#"[{"functionDeclarations":[{"name":"a","parameters":{"type":"OBJECT"}},{"name":"n"}]},{"googleSearch":{}},{"functionDeclarations":[{"parametersJsonSchema":false,"name":"b"}]}]"#,
    r#"{"zeta":1,"tools":[],"alpha":2}"#,
];

#[test]
fn replacing_every_schema_with_itself_gives_the_same_document() {
    for text in FIXTURES {
        let manifest = manifest(text);
        let written = manifest.with_schemas(&identity(&manifest));
        assert_eq!(written, *manifest.document, "{text}");
        assert_eq!(serde_json::to_string(&written).unwrap(), text);
    }
}

#[test]
fn no_replacements_give_the_same_text() {
    for text in FIXTURES {
        let written = manifest(text).with_schemas(&[]);
        assert_eq!(serde_json::to_string(&written).unwrap(), text);
    }
}

#[test]
fn write_back_keeps_key_order_around_the_replaced_schema() {
    let text = r#"{"tools":[{"name":"a","inputSchema":{"oneOf":[]},"description":"d","annotations":{"z":1,"a":2}}],"nextCursor":"c"}"#;
    let manifest = manifest(text);
    let projected =
        json!({"type": "object", "properties": {"z": {}, "a": {}}, "additionalProperties": false});
    let written = manifest.with_schemas(&[(0, projected)]);
    assert_eq!(
        serde_json::to_string(&written).unwrap(),
        r#"{"tools":[{"name":"a","inputSchema":{"type":"object","properties":{"z":{},"a":{}},"additionalProperties":false},"description":"d","annotations":{"z":1,"a":2}}],"nextCursor":"c"}"#
    );
}

#[test]
fn write_back_replaces_only_the_listed_tools() {
    let text = r#"[{"name":"a","input_schema":{"type":"object"}},{"name":"b","input_schema":{"type":"object"}}]"#;
    let manifest = manifest(text);
    let written = manifest.with_schemas(&[(1, json!(true)), (9, json!(false))]);
    assert_eq!(
        serde_json::to_string(&written).unwrap(),
        r#"[{"name":"a","input_schema":{"type":"object"}},{"name":"b","input_schema":true}]"#
    );
}

#[test]
fn write_back_of_a_bare_schema_is_the_schema() {
    let manifest = manifest(r#"{"title":"T","oneOf":[{"type":"string"}]}"#);
    let projected = json!({"title": "T", "anyOf": [{"type": "string"}]});
    assert_eq!(manifest.with_schemas(&[(0, projected.clone())]), projected);
}

#[test]
fn write_back_adds_parameters_to_openai_tools_without_them() {
    let text = r#"[{"type":"function","function":{"name":"a","description":"d"}},{"type":"function","name":"b","parameters":null,"strict":true}]"#;
    let manifest = manifest(text);
    let strict = json!({"type": "object", "properties": {}, "additionalProperties": false});
    let written = manifest.with_schemas(&[(0, strict.clone()), (1, strict)]);
    assert_eq!(
        serde_json::to_string(&written).unwrap(),
        r#"[{"type":"function","function":{"name":"a","description":"d","parameters":{"type":"object","properties":{},"additionalProperties":false}}},{"type":"function","name":"b","parameters":{"type":"object","properties":{},"additionalProperties":false},"strict":true}]"#
    );
}

#[test]
fn write_back_adds_json_schema_to_gemini_declarations_without_parameters() {
    let camel = manifest(r#"{"functionDeclarations":[{"name":"a"}]}"#);
    let snake = manifest(r#"[{"function_declarations":[{"name":"a","parameters":null}]}]"#);
    let schema = json!({"type": "object", "properties": {"x": {}}});
    assert_eq!(
        serde_json::to_string(&camel.with_schemas(&[(0, schema.clone())])).unwrap(),
        r#"{"functionDeclarations":[{"name":"a","parametersJsonSchema":{"type":"object","properties":{"x":{}}}}]}"#
    );
    assert_eq!(
        serde_json::to_string(&snake.with_schemas(&[(0, schema)])).unwrap(),
        r#"[{"function_declarations":[{"name":"a","parameters":null,"parameters_json_schema":{"type":"object","properties":{"x":{}}}}]}]"#
    );
}

#[test]
fn written_documents_load_again_with_the_new_schemas() {
    let text = FIXTURES[3];
    let manifest = manifest(text);
    let replacements = [
        (0, json!({"type": "object"})),
        (1, json!({"type": "object", "x": 1})),
    ];
    let written = manifest.with_schemas(&replacements);
    let reloaded = load_value(written, "t.json", None).unwrap();
    assert_eq!(*reloaded.tools[0].schema, replacements[0].1);
    assert_eq!(*reloaded.tools[1].schema, replacements[1].1);
    assert_eq!(
        reloaded.tools[1].schema_pointer.as_deref(),
        Some("/2/parameters")
    );
}

#[test]
fn tool_lookup_by_name_returns_the_first() {
    let manifest = manifest(
        r#"[{"name":"a","input_schema":{}},{"name":"b","input_schema":true},{"name":"b","input_schema":false}]"#,
    );
    assert_eq!(*manifest.tool("b").unwrap().schema, json!(true));
    assert!(manifest.tool("c").is_none());
}

#[test]
fn trailing_comma_on_line_three_reports_line_three() {
    let text = "{\n  \"tools\": [\n    {\"name\": \"a\", \"inputSchema\": {}},\n  ]\n}\n";
    let err = load_str(text, "samples/x.json", None).unwrap_err();
    match &err {
        ManifestError::Json { line, column, .. } => assert_eq!((*line, *column), (4, 3)),
        other => panic!("expected a JSON error, got {other:?}"),
    }
    let text = "{\n  \"a\": 1,\n  \"b\": 2,\n}";
    let err = load_str(text, "samples/x.json", None).unwrap_err();
    assert_eq!(
        err.to_string(),
        "samples/x.json:4:1: invalid JSON: trailing comma"
    );
    let text = "[\n  {\"type\": \"function\", \"name\": \"a\"},\n  {\"type\": \"web_search\",},\n]";
    let err = load_str(text, "samples/x.json", None).unwrap_err();
    assert_eq!(
        err.to_string(),
        "samples/x.json:3:25: invalid JSON: trailing comma"
    );
}

#[test]
fn load_path_names_the_file() {
    let mut file = tempfile::Builder::new().suffix(".json").tempfile().unwrap();
    file.write_all(br#"{"type":"object","properties":{}}"#)
        .unwrap();
    let manifest = load_path(file.path(), None).unwrap();
    assert_eq!(manifest.origin, file.path().display().to_string());
    let stem = file.path().file_stem().unwrap().to_str().unwrap();
    assert_eq!(manifest.tools[0].name, stem);
}

#[test]
fn load_path_errors_carry_the_path() {
    let mut file = tempfile::Builder::new().suffix(".json").tempfile().unwrap();
    file.write_all(b"{\"tools\": [{\"name\": \"a\"}]}").unwrap();
    let err = load_path(file.path(), None).unwrap_err();
    assert_eq!(err.origin(), file.path().display().to_string());
    assert_eq!(
        err.to_string(),
        format!(
            "{} at /tools/0: missing \"inputSchema\"",
            file.path().display()
        )
    );
}

#[test]
fn load_reader_reads_everything() {
    let manifest = load_reader(&b"[]"[..], STDIN_ORIGIN, None).unwrap();
    assert_eq!(manifest.origin, "<stdin>");
    assert_eq!(manifest.format, ManifestFormat::OpenAi);
    assert!(manifest.tools.is_empty());
}

#[test]
fn explicit_format_is_used_as_given() {
    let manifest = load_str("[]", "t.json", Some(ManifestFormat::Anthropic)).unwrap();
    assert_eq!(manifest.format, ManifestFormat::Anthropic);
}

/// Every pointer the loader hands out must resolve in the document, on success and on error,
/// whatever format is forced onto whatever shape.
#[test]
fn pointers_always_resolve_in_the_document() {
    let extra = [
        r#"{"tools":[{"name":"a","inputSchema":"x"}]}"#,
        r#"{"jsonrpc":"2.0","error":{"code":1}}"#,
        r#"[{"functionDeclarations":[{"name":"a","parameters":{},"parametersJsonSchema":{}}]}]"#,
        r#"{"tools":{"a/b~c":1}}"#,
        r#"[{"type":"function","function":"x"}]"#,
        r#""text""#,
        r#"[1,{"type":1}]"#,
    ];
    let formats = std::iter::once(None).chain(ManifestFormat::ALL.map(Some));
    for format in formats {
        for text in FIXTURES.iter().chain(&extra) {
            let document: Value = serde_json::from_str(text).unwrap();
            match load_value(document.clone(), "t.json", format) {
                Ok(manifest) => assert_tool_pointers_resolve(&manifest),
                Err(ManifestError::Shape { pointer, .. }) => assert!(
                    document.pointer(&pointer).is_some(),
                    "{format:?} {text}: {pointer}"
                ),
                Err(other) => panic!("{format:?} {text}: unexpected {other}"),
            }
        }
    }
}

fn assert_tool_pointers_resolve(manifest: &Manifest) {
    for tool in &manifest.tools {
        let document = &manifest.document;
        assert!(document.pointer(&tool.tool_pointer).is_some());
        if let Some(pointer) = &tool.schema_pointer {
            assert_eq!(document.pointer(pointer), Some(&*tool.schema));
        }
        if let Some(pointer) = &tool.output_schema_pointer {
            assert!(document.pointer(pointer).is_some());
        }
    }
}

#[test]
fn a_bare_schema_is_held_once_and_copies_of_a_tool_share_its_schema() {
    let bare = manifest(FIXTURES[0]);
    assert!(Arc::ptr_eq(&bare.document, &bare.tools[0].schema));
    let copy = bare.clone();
    assert!(Arc::ptr_eq(&copy.tools[0].schema, &bare.tools[0].schema));
    // Any other format: each tool's schema is its own, equal to the document's.
    let mcp = manifest(r#"{"tools": [{"name": "a", "inputSchema": {"type": "object"}}]}"#);
    assert!(!Arc::ptr_eq(&mcp.document, &mcp.tools[0].schema));
    assert_eq!(
        mcp.document.pointer("/tools/0/inputSchema"),
        Some(&*mcp.tools[0].schema)
    );
}
