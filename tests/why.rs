//! `why` on the provider messages of `shared/research/providers.md` §4 (and §1e): each message
//! that names a schema location, pasted against a manifest where that location exists, must
//! lead to the node the provider meant. Messages without a location must lead to the place
//! lint reports for that rule. The manifests are shaped like the reports' own inputs.

use schemalens::Options;
use schemalens::lint::Profile;
use schemalens::manifest::{self, Manifest};
use schemalens::why::{Diagnosis, Outcome, Report, Session, Variant};
use serde_json::{Value, json};

fn load(doc: Value) -> Manifest {
    manifest::load_value(doc, "tools.json", None).expect("the test manifest loads")
}

fn ask(m: &Manifest, text: &str, provider: Option<Profile>) -> Report {
    Session::new(m, Options::default(), "tools.json").report(text, None, provider)
}

/// What a case expects of the first diagnosis.
struct Expect<'a> {
    tool: &'a str,
    pointer: &'a str,
    keyword: Option<&'a str>,
    schema: Variant,
    rule: Option<&'a str>,
}

fn at<'a>(tool: &'a str, pointer: &'a str, keyword: Option<&'a str>) -> Expect<'a> {
    Expect {
        tool,
        pointer,
        keyword,
        schema: Variant::Original,
        rule: None,
    }
}

impl<'a> Expect<'a> {
    fn rule(mut self, rule: &'a str) -> Self {
        self.rule = Some(rule);
        self
    }
}

fn check(m: &Manifest, text: &str, provider: Option<Profile>, want: Expect<'_>) -> Diagnosis {
    let report = ask(m, text, provider);
    assert_eq!(
        report.outcome,
        Outcome::Located,
        "{text}\n{}",
        serde_json::to_string_pretty(&report).unwrap()
    );
    let d = report.diagnoses.into_iter().next().expect("one diagnosis");
    let node = d.node.as_ref().expect("a node");
    let tool = d.tool.as_ref().expect("a tool");
    let dump = || serde_json::to_string_pretty(&d).unwrap();
    assert_eq!(tool.name, want.tool, "{text}\n{}", dump());
    assert_eq!(node.pointer, want.pointer, "{text}\n{}", dump());
    assert_eq!(node.keyword.as_deref(), want.keyword, "{text}\n{}", dump());
    assert_eq!(node.schema, want.schema, "{text}\n{}", dump());
    if let Some(rule) = want.rule {
        let got = d.rule.as_ref().map(|r| r.id);
        assert_eq!(got, Some(rule), "{text}\n{}", dump());
    }
    d
}

// ---------------------------------------------------------------------------------------------
// OpenAI

fn openai() -> Manifest {
    let admin = json!({
        "type": "object",
        "properties": {
            "op": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
            "status": {"type": "string", "default": "open"},
            "url": {"type": "string", "format": "uri"},
            "paths": {"type": "array"},
            "rich_text": {"type": "array", "items": {"allOf": [
                {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"], "additionalProperties": false}
            ]}},
            "fileKey": {"type": "string", "pattern": "^(?!tmp/).+$"},
            "tags": {"type": "object", "propertyNames": {"pattern": "^[a-z]+$"}, "additionalProperties": {"type": "string"}},
            "permissions": {"type": "object", "properties": {"read": {"type": "boolean"}}, "required": ["read"]},
            "thing": {"$ref": "#/$defs/Thing", "description": "The thing."},
            "limit": {"type": "integer"}
        },
        "required": ["op", "status", "url", "paths", "rich_text", "fileKey", "tags", "permissions", "thing", "ghost"],
        "additionalProperties": false,
        "$defs": {"Thing": {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"], "additionalProperties": false}}
    });
    load(json!([
        {"type": "function", "function": {"name": "admin_op", "strict": true, "parameters": admin}},
        {"type": "function", "function": {"name": "get_weather", "parameters": {
            "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}},
        {"type": "function", "function": {"name": "root_union", "parameters": {"anyOf": [
            {"type": "object", "properties": {"kind": {"const": "a"}, "a": {"type": "string"}}, "required": ["kind", "a"], "additionalProperties": false},
            {"type": "object", "properties": {"kind": {"const": "b"}, "b": {"type": "string"}}, "required": ["kind", "b"], "additionalProperties": false}
        ]}}},
        {"type": "function", "function": {"name": "no_params", "parameters": {"type": "object"}}}
    ]))
}

#[test]
fn openai_context_tuples() {
    let m = openai();
    let d = check(
        &m,
        "Invalid schema for function 'admin_op': In context=('properties', 'op'), 'oneOf' is not permitted.",
        None,
        at("admin_op", "/properties/op", Some("oneOf")).rule("oneof"),
    );
    let fix = d.fix.expect("a fix");
    assert_eq!(
        fix.schema,
        Variant::Projection {
            mode: schemalens::Mode::Inline
        }
    );
    assert!(fix.steps.iter().any(|s| s.rule == "oneof-to-anyof"));
    assert_eq!(
        fix.command,
        "schemalens project tools.json --tool admin_op --mode inline"
    );
    check(
        &m,
        "In context=('properties', 'rich_text', 'items'), 'allOf' is not permitted.",
        None,
        at("admin_op", "/properties/rich_text/items", Some("allOf")).rule("unsupported-keyword"),
    );
    check(
        &m,
        "In context=('properties', 'status'), 'default' is not permitted.",
        None,
        at("admin_op", "/properties/status", Some("default")).rule("default"),
    );
    check(
        &m,
        "In context=('properties', 'url'), 'uri' is not a valid format.",
        None,
        at("admin_op", "/properties/url", Some("format")).rule("format"),
    );
    check(
        &m,
        "In context=('properties', 'paths'), array schema missing items.",
        None,
        at("admin_op", "/properties/paths", None).rule("array-items"),
    );
    check(
        &m,
        "Invalid schema for function 'admin_op': In context=('properties', 'permissions'), 'additionalProperties' is required to be supplied and to be false.",
        None,
        at(
            "admin_op",
            "/properties/permissions",
            Some("additionalProperties"),
        )
        .rule("additional-properties"),
    );
    let d = check(
        &m,
        "Invalid schema for function 'get_weather': In context=(), 'additionalProperties' is required to be supplied and to be false.",
        None,
        at("get_weather", "", Some("additionalProperties")).rule("additional-properties"),
    );
    // No projection closes an object; tailoring for strict mode does, lossily.
    let fix = d.fix.expect("a fix");
    assert_eq!(
        fix.schema,
        Variant::Tailored {
            provider: Profile::OpenAiStrict,
            mode: schemalens::Mode::Flat
        }
    );
    assert!(fix.lossy, "closing an object is lossy");
    assert!(
        fix.command.ends_with("--provider openai-strict"),
        "{}",
        fix.command
    );
    check(
        &m,
        "Invalid schema for function 'admin_op': In context=(), 'required' is required to be supplied and to be an array including every key in properties. Missing 'limit'.",
        None,
        at("admin_op", "", Some("required")).rule("required-all"),
    );
    check(
        &m,
        "In context=(), object schema missing properties.",
        None,
        at("no_params", "", None).rule("free-form-object"),
    );
}

#[test]
fn openai_messages_without_a_context_are_placed_by_lint() {
    let m = openai();
    check(
        &m,
        "Extra required key 'ghost' supplied.",
        None,
        at("admin_op", "", Some("required")).rule("required-undeclared"),
    );
    check(
        &m,
        "... 'propertyNames' is not permitted.",
        None,
        at("admin_op", "/properties/tags", Some("propertyNames")).rule("property-names"),
    );
    check(
        &m,
        "$ref cannot have keywords {'description'}",
        None,
        at("admin_op", "/properties/thing", Some("$ref")).rule("ref-siblings"),
    );
    check(
        &m,
        "Invalid JSON schema: regex lookaround is not supported. Found at $.properties.fileKey.pattern.",
        None,
        at("admin_op", "/properties/fileKey", Some("pattern")).rule("pattern-lookaround"),
    );
    check(
        &m,
        "schema must be a JSON Schema of 'type: \"object\"', got 'type: null'.",
        None,
        at("root_union", "", Some("type")).rule("root-type"),
    );
    let d = check(
        &m,
        "schema must have type 'object' and not have 'oneOf'/'anyOf'/'allOf'/'enum'/'not' at the top level.",
        None,
        at("root_union", "", Some("anyOf")).rule("root-union"),
    );
    assert!(d.fix.is_some(), "flat mode merges the root union");
    let d = check(
        &m,
        "'get_weather' is not strict. Only strict function tools can be auto-parsed",
        None,
        at("get_weather", "", None),
    );
    assert!(d.node.unwrap().tool_entry);
    assert!(d.advice.is_some());
}

// ---------------------------------------------------------------------------------------------
// Gemini

fn gemini() -> Manifest {
    let mut create = serde_json::Map::new();
    for i in 0..7 {
        create.insert(format!("a{i}"), json!({"type": "string"}));
    }
    create.insert(
        "data".into(),
        json!({"type": "object", "properties": {"meta": {"type": "object", "properties": {"width": {"description": "pixels"}}}}}),
    );
    create.insert(
        "choice".into(),
        json!({"anyOf": [{"type": "string", "const": "x"}, {"type": "integer"}]}),
    );
    load(json!({"functionDeclarations": [
        {"name": "list_items", "parameters": {"type": "object", "properties": {
            "a": {"type": "string"}, "b": {"type": "string"},
            "c": {"type": "integer", "exclusiveMinimum": 0},
            "d": {"type": "string"}, "e": {"type": ["string", "null"]}}}},
        {"name": "set_level", "parameters": {"type": "object", "properties": {
            "mode": {"type": "string"}, "level": {"type": "integer", "enum": [1, 2, 3]}},
            "required": ["ghost"]}},
        {"name": "pick", "parameters": {"type": "object", "properties": {
            "x": {"anyOf": [{"type": "integer", "enum": [1, 2]}]},
            "kind": {"type": "enum"}}}},
        {"name": "empty", "parameters": {"type": "object"}},
        {"name": "arr", "parameters": {"type": "object", "properties": {
            "paths": {"type": "array"},
            "q": {"$ref": "#/$defs/QuestionOption", "title": "Question"}},
            "additionalProperties": false,
            "$defs": {"QuestionOption": {"type": "string"}}}},
        {"name": "create_item", "parameters": {"type": "object", "properties": create}},
        {"name": "untyped_root", "parameters": {"properties": {"a": {"type": "string"}}}}
    ]}))
}

#[test]
fn gemini_proto_paths_count_properties_in_the_order_sent() {
    let m = gemini();
    let d = check(
        &m,
        "Invalid JSON payload received. Unknown name \"const\" at 'tools[0].function_declarations[5].parameters.properties[8].value.any_of[0]': Cannot find field.",
        None,
        at("create_item", "/properties/choice/anyOf/0", Some("const")).rule("const"),
    );
    assert_eq!(d.tool.unwrap().by, "declaration");
    let fix = d.fix.expect("tailoring writes const as enum");
    assert!(
        fix.steps.iter().any(|s| s.rule == "tailor-const-enum"),
        "{fix:?}"
    );
    check(
        &m,
        "Invalid JSON payload received. Unknown name \"exclusiveMinimum\" at 'tools[0].function_declarations[0].parameters.properties[2].value': Cannot find field.",
        None,
        at("list_items", "/properties/c", Some("exclusiveMinimum")).rule("unknown-field"),
    );
    check(
        &m,
        "Invalid JSON payload received. Unknown name \"type\" at 'tools[0].function_declarations[0].parameters.properties[4].value': Proto field is not repeating, cannot start list.",
        None,
        at("list_items", "/properties/e", Some("type")).rule("type-array"),
    );
    check(
        &m,
        "Invalid value at 'tools[0].function_declarations[1].parameters.properties[1].value.enum[1]' (TYPE_STRING), 2",
        None,
        at("set_level", "/properties/level", Some("enum")).rule("enum-non-string"),
    );
    check(
        &m,
        "* GenerateContentRequest.tools[0].function_declarations[2].parameters.properties[0].value.any_of[0].enum: only allowed for STRING type",
        None,
        at("pick", "/properties/x/anyOf/0", Some("enum")).rule("enum-type"),
    );
    check(
        &m,
        "Invalid value at 'tools[0].function_declarations[2].parameters.properties[1].value.type' (type.googleapis.com/google.ai.generativelanguage.v1beta.Type), \"enum\"",
        None,
        at("pick", "/properties/kind", Some("type")).rule("type-name"),
    );
    check(
        &m,
        "* GenerateContentRequest.tools[0].function_declarations[3].parameters.properties: should be non-empty for OBJECT type",
        None,
        at("empty", "", None).rule("object-properties"),
    );
    check(
        &m,
        "* GenerateContentRequest.tools[0].function_declarations[1].parameters.required[0]: property is not defined",
        None,
        at("set_level", "", Some("required")).rule("required-undeclared"),
    );
    check(
        &m,
        "Unable to submit request because 'create_item' functionDeclaration 'parameters.data.meta.width' schema didn't specify the schema type field.",
        None,
        at(
            "create_item",
            "/properties/data/properties/meta/properties/width",
            None,
        )
        .rule("node-type"),
    );
}

#[test]
fn gemini_messages_without_a_path() {
    let m = gemini();
    check(
        &m,
        "items: missing field",
        None,
        at("arr", "/properties/paths", None).rule("array-items"),
    );
    check(
        &m,
        "$ref 'QuestionOption' was set alongside unsupported fields. If a schema node has $ref set, then only description and default can be set alongside it",
        None,
        at("arr", "/properties/q", Some("$ref")).rule("ref-siblings"),
    );
    check(
        &m,
        "functionDeclaration parameters schema should be of type OBJECT",
        None,
        at("untyped_root", "", Some("type")).rule("root-type"),
    );
    check(
        &m,
        "additionalProperties is only supported in Gemini Enterprise Agent Platform mode, , not in Gemini Developer API mode.",
        None,
        at("arr", "", Some("additionalProperties")).rule("additional-properties"),
    );
    // The `$ref` below has its own, more specific finding (ref-siblings); `$defs` at the root
    // is what this rule is left with.
    let d = check(
        &m,
        "referenced name does not match display_name",
        None,
        at("arr", "", Some("$defs")).rule("refs"),
    );
    assert!(d.candidates.is_empty(), "{:?}", d.candidates);
    let d = check(
        &m,
        "function declaration enum only allowed for STRING type",
        None,
        at("set_level", "/properties/level", Some("enum")).rule("enum-type"),
    );
    assert!(d.candidates.len() >= 2, "pick's integer enum fits too");
}

// ---------------------------------------------------------------------------------------------
// Anthropic

fn anthropic() -> Manifest {
    load(json!([
        {"name": "ok_tool", "input_schema": {"type": "object", "properties": {"a": {"type": "string"}}}},
        {"name": "bad.name", "input_schema": {"type": "object", "properties": {}}},
        {"name": "no_type", "input_schema": {"properties": {"a": {"type": "string"}}}},
        {"name": "draft4", "input_schema": {"type": "object", "properties": {
            "n": {"type": "number", "minimum": 0, "exclusiveMinimum": true}}}},
        {"name": "union_root", "input_schema": {"type": "object", "oneOf": [
            {"type": "object", "properties": {"kind": {"const": "a"}, "x": {"type": "string"}}, "required": ["kind"]},
            {"type": "object", "properties": {"kind": {"const": "b"}, "y": {"type": "integer"}}, "required": ["kind"]}
        ]}},
        {"name": "ok_tool", "input_schema": {"type": "object", "properties": {"payload": {"description": "anything"}}}}
    ]))
}

#[test]
fn anthropic_dotted_tool_positions() {
    let m = anthropic();
    let d = check(
        &m,
        "tools.3.custom.input_schema: JSON schema is invalid. It must match JSON Schema draft 2020-12 (https://json-schema.org/draft/2020-12). Learn more about tool use at https://docs.claude.com/en/docs/tool-use.",
        None,
        at("draft4", "/properties/n", Some("exclusiveMinimum")).rule("draft-2020-12"),
    );
    assert_eq!(d.tool.unwrap().by, "index");
    let d = check(
        &m,
        "tools.4.custom.input_schema: input_schema does not support oneOf, allOf, or anyOf at the top level",
        None,
        at("union_root", "", Some("oneOf")).rule("root-union"),
    );
    assert_eq!(
        d.fix.expect("flat mode merges it").schema,
        Variant::Projection {
            mode: schemalens::Mode::Flat
        }
    );
    check(
        &m,
        "tools.2.custom.input_schema.type: Field required",
        None,
        at("no_type", "", Some("type")).rule("root-type-missing"),
    );
    let d = check(
        &m,
        "tools.1.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'",
        None,
        at("bad.name", "", None).rule("tool-name"),
    );
    assert!(d.node.unwrap().tool_entry);
    let d = check(
        &m,
        "tools: Tool names must be unique.",
        None,
        at("ok_tool", "", None).rule("tool-name-unique"),
    );
    assert_eq!(d.tool.unwrap().index, 5, "the second use of the name");
    let d = check(
        &m,
        "Schema must have a 'type', 'enum', 'anyOf', 'oneOf', or 'allOf' field.",
        None,
        at("no_type", "", None).rule("sdk-untyped"),
    );
    assert!(
        d.candidates
            .iter()
            .any(|c| c.tool == "ok_tool" && c.pointer == "/properties/payload"),
        "{:?}",
        d.candidates
    );
}

// ---------------------------------------------------------------------------------------------
// Ollama, Bedrock, MCP

fn ollama() -> Manifest {
    load(json!([
        {"type": "function", "function": {"name": "typed", "parameters": {"type": "object", "properties": {
            "a": {"type": ["string", "null"]}, "b": {"type": "string"}}}}},
        {"type": "function", "function": {"name": "php", "parameters": {"type": "object", "properties": []}}},
        {"type": "function", "function": {"name": "stringprop", "parameters": {"type": "object", "properties": {"a": "string"}}}},
        {"type": "function", "function": {"name": "reqobj", "parameters": {"type": "object",
            "properties": {"a": {"type": "string"}}, "required": {"a": true}}}}
    ]))
}

#[test]
fn ollama_go_field_paths() {
    let m = ollama();
    // Ollama before type lists were supported (2025-04): lint models today's Ollama, so only
    // the path finds the node.
    let d = check(
        &m,
        "json: cannot unmarshal array into Go struct field .tools.function.parameters.properties.type of type string",
        None,
        at("typed", "/properties/a", Some("type")),
    );
    assert!(!d.rule.unwrap().lint_agrees);
    check(
        &m,
        "json: cannot unmarshal array into Go struct field .tools.function.parameters.properties of type map[string]api.ToolProperty",
        None,
        at("php", "", Some("properties")).rule("go-decode"),
    );
    check(
        &m,
        "{\"error\":\"json: cannot unmarshal string into Go struct field ToolFunctionParameters.tools.function.parameters.properties of type api.ToolProperty\"}",
        None,
        // `"a": "string"` is not a schema: the node is the `properties` map that holds it.
        at("stringprop", "", Some("properties")).rule("go-decode"),
    );
    check(
        &m,
        "json: cannot unmarshal object into Go struct field ToolFunctionParameters.tools.function.parameters.required of type []string",
        None,
        at("reqobj", "", Some("required")).rule("go-decode"),
    );
}

#[test]
fn bedrock_and_mcp_root_messages() {
    let m = load(json!([
        {"type": "function", "function": {"name": "fine", "parameters": {"type": "object", "properties": {}}}},
        {"type": "function", "function": {"name": "union", "parameters": {"anyOf": [{"type": "object"}, {"type": "string"}]}}}
    ]));
    check(
        &m,
        "The value at toolConfig.tools.1.toolSpec.inputSchema.json.type must be one of the following: object.",
        None,
        at("union", "", Some("type")).rule("root-type"),
    );
    let mcp = load(json!({"tools": [
        {"name": "fine", "inputSchema": {"type": "object", "properties": {}}},
        {"name": "listy", "inputSchema": {"type": "object", "anyOf": [{"required": ["a"]}, {"required": ["b"]}], "properties": {"a": {}, "b": {}}}},
        {"name": "stringy", "inputSchema": {"type": "string"}}
    ]}));
    check(
        &mcp,
        "object has unsupported top-level schema keyword 'anyOf'",
        None,
        at("listy", "", Some("anyOf")).rule("root-union"),
    );
    check(
        &mcp,
        "Invalid input: expected \"object\"",
        None,
        at("stringy", "", Some("type")).rule("root-type"),
    );
}

// ---------------------------------------------------------------------------------------------
// Noise, several messages, unknown wording

#[test]
fn noise_around_the_message_does_not_matter() {
    let m = gemini();
    let body = r#"google.genai.errors.ClientError: 400 INVALID_ARGUMENT. {'error': {'code': 400, 'message': 'x'}}
HTTP/1.1 400 Bad Request
content-type: application/json; charset=UTF-8

{
  "error": {
    "code": 400,
    "message": "Invalid JSON payload received. Unknown name \"const\" at 'tools[0].function_declarations[5].parameters.properties[8].value.any_of[0]': Cannot find field.\nInvalid JSON payload received. Unknown name \"exclusiveMinimum\" at 'tools[0].function_declarations[0].parameters.properties[2].value': Cannot find field.",
    "status": "INVALID_ARGUMENT",
    "details": [
      {
        "@type": "type.googleapis.com/google.rpc.BadRequest",
        "fieldViolations": [
          {
            "field": "tools[0].function_declarations[5].parameters.properties[8].value.any_of[0]",
            "description": "Invalid JSON payload received. Unknown name \"const\" at 'tools[0].function_declarations[5].parameters.properties[8].value.any_of[0]': Cannot find field."
          }
        ]
      }
    ]
  }
}"#;
    let report = ask(&m, body, None);
    assert_eq!(report.outcome, Outcome::Located);
    let places: Vec<(String, String)> = report
        .diagnoses
        .iter()
        .map(|d| {
            (
                d.tool.as_ref().unwrap().name.clone(),
                d.node.as_ref().unwrap().pointer.clone(),
            )
        })
        .collect();
    assert_eq!(
        places,
        vec![
            (
                "create_item".to_owned(),
                "/properties/choice/anyOf/0".to_owned()
            ),
            ("list_items".to_owned(), "/properties/c".to_owned()),
        ],
        "each message once, in order"
    );

    let m = openai();
    let traceback = r#"Traceback (most recent call last):
  File "agent.py", line 42, in <module>
    response = client.chat.completions.create(model="gpt-4o", messages=messages, tools=tools)
  File "/usr/lib/python3.12/site-packages/openai/_base_client.py", line 1047, in request
    raise self._make_status_error_from_response(err.response) from None
openai.BadRequestError: Error code: 400 - {'error': {'message': "Invalid schema for function 'admin_op': In context=('properties', 'status'), 'default' is not permitted.", 'type': 'invalid_request_error', 'param': 'tools[0].function.parameters', 'code': 'invalid_function_parameters'}}"#;
    let d = check(
        &m,
        traceback,
        None,
        at("admin_op", "/properties/status", Some("default")),
    );
    assert_eq!(d.tool.unwrap().by, "name");
}

#[test]
fn the_param_field_names_the_tool_when_the_message_does_not() {
    let m = openai();
    // get_weather and no_params both lack additionalProperties at the root; `param` says which.
    let body = r#"{"error": {"message": "In context=(), 'additionalProperties' is required to be supplied and to be false.", "type": "invalid_request_error", "param": "tools[3].function.parameters", "code": "invalid_function_parameters"}}"#;
    let d = check(
        &m,
        body,
        None,
        at("no_params", "", Some("additionalProperties")),
    );
    assert_eq!(d.tool.unwrap().by, "index");
}

#[test]
fn unknown_wording_still_yields_its_location_and_the_closest_messages() {
    let m = openai();
    let report = ask(
        &m,
        "Bad request: In context=('properties', 'op'), 'oneOf' is forbidden here.",
        None,
    );
    assert_eq!(report.outcome, Outcome::Unrecognised);
    assert_eq!(report.outcome.code(), 2);
    let d = &report.diagnoses[0];
    assert_eq!(d.node.as_ref().unwrap().pointer, "/properties/op");
    assert!(d.recognised.id.is_none());
    assert_eq!(report.closest[0].id, "openai-not-permitted");

    let report = ask(&m, "something else went wrong entirely", None);
    assert_eq!(report.outcome, Outcome::Unrecognised);
    assert!(report.diagnoses.is_empty());
}

#[test]
fn recognised_but_not_located_is_outcome_one() {
    let m = openai();
    // A location that exists nowhere in the manifest.
    let report = ask(
        &m,
        "In context=('properties', 'nowhere'), 'oneOf' is not permitted.",
        None,
    );
    assert_eq!(report.outcome, Outcome::Recognised);
    assert_eq!(report.outcome.code(), 1);
    assert!(report.diagnoses[0].node.is_none());
    // About the request, not a node.
    let report = ask(
        &m,
        "A schema in GenerationConfig in the request exceeds the maximum allowed nesting depth.",
        None,
    );
    assert_eq!(report.outcome, Outcome::Recognised);
    assert!(report.diagnoses[0].advice.is_some());
}

#[test]
fn every_catalogue_example_is_recognised_by_its_own_row() {
    for known in schemalens::why::MESSAGES {
        let hays = schemalens::why::matcher::haystacks(known.example);
        let matched = hays
            .iter()
            .any(|h| !schemalens::why::matcher::find_all(known.pattern, &h.text).is_empty());
        assert!(
            matched,
            "{}: its example does not match its pattern",
            known.id
        );
        for (profile, rules) in known.rules {
            for rule in *rules {
                assert!(
                    profile.rule(rule).is_some(),
                    "{}: {profile} has no rule {rule}",
                    known.id
                );
            }
        }
        assert!(
            !known.pattern.starts_with('{')
                || schemalens::why::matcher::placeholders(known.pattern)[0] == "proto",
            "{}: a pattern starts with fixed text, or with a path read backwards",
            known.id
        );
    }
}
