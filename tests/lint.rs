//! Provider lint: every rule of every profile against a small hand-made schema (with the
//! provider's own error text where the research notes quote one), the samples, and the CLI.

mod support;

use std::collections::BTreeSet;
use std::path::PathBuf;

use assert_cmd::Command;
use schemalens::lint::{self, Finding, Profile, Severity, Subject, Target};
use schemalens::manifest::load_path;
use schemalens::{Options, project_tool};
use serde_json::{Value, json};

fn sample(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("samples")
        .join(name)
}

/// A valid OpenAI-strict object around `properties` (all required, closed), so a case's
/// finding is the only one its rule reports.
fn strict(properties: Value) -> Value {
    let required: Vec<&String> = properties.as_object().unwrap().keys().collect();
    json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false
    })
}

/// An object for the non-strict profiles.
fn object(properties: Value) -> Value {
    json!({"type": "object", "properties": properties})
}

/// One rule firing on one schema.
struct Case {
    profile: Profile,
    rule: &'static str,
    /// Tool names; a tool-list rule reports on the last one.
    names: Vec<&'static str>,
    schema: Value,
    /// The schema the finding is about.
    at: &'static str,
    /// The provider's error text as it should come out, when the notes quote one.
    says: Option<&'static str>,
}

fn case(profile: Profile, rule: &'static str, schema: Value, at: &'static str) -> Case {
    Case {
        profile,
        rule,
        names: vec!["get_data"],
        schema,
        at,
        says: None,
    }
}

impl Case {
    fn says(mut self, text: &'static str) -> Case {
        self.says = Some(text);
        self
    }

    fn named(mut self, names: &[&'static str]) -> Case {
        self.names = names.to_vec();
        self
    }
}

fn many_properties(n: usize) -> Value {
    let props: serde_json::Map<String, Value> = (0..n)
        .map(|i| (format!("p{i}"), json!({"type": "string"})))
        .collect();
    strict(Value::Object(props))
}

/// An object nested `levels` deep under properties named `l1`, `l2`, …
fn nested(levels: usize) -> Value {
    let mut inner = json!({"type": "string"});
    for level in (1..=levels).rev() {
        inner = strict(json!({ format!("l{level}"): inner }));
    }
    inner
}

fn cases() -> Vec<Case> {
    use Profile::*;
    let mut out = vec![
        // ---- openai-strict
        case(
            OpenAiStrict,
            "root-type",
            json!({"oneOf": [strict(json!({}))]}),
            "",
        )
        .says("schema must be a JSON Schema of 'type: \"object\"', got 'type: null'."),
        case(
            OpenAiStrict,
            "root-union",
            json!({"type": "object", "properties": {}, "additionalProperties": false,
                   "anyOf": [{"required": []}]}),
            "",
        )
        .says("schema must have type 'object' and not have 'oneOf'/'anyOf'/'allOf'/'enum'/'not' at the top level."),
        case(
            OpenAiStrict,
            "oneof",
            strict(json!({"pet": {"oneOf": [{"type": "string"}, {"type": "integer"}]}})),
            "/properties/pet",
        )
        .says("In context=('properties', 'pet'), 'oneOf' is not permitted."),
        case(
            OpenAiStrict,
            "unsupported-keyword",
            strict(json!({"rich_text": {"type": "array", "items": {"allOf": [{"type": "string"}]}}})),
            "/properties/rich_text/items",
        )
        .says("In context=('properties', 'rich_text', 'items'), 'allOf' is not permitted."),
        case(
            OpenAiStrict,
            "default",
            strict(json!({"status": {"type": "string", "default": "open"}})),
            "/properties/status",
        )
        .says("In context=('properties', 'status'), 'default' is not permitted."),
        case(
            OpenAiStrict,
            "property-names",
            strict(json!({"tags": {"type": "object", "properties": {}, "additionalProperties": false,
                                   "propertyNames": {"pattern": "^x"}}})),
            "/properties/tags",
        )
        .says("In context=('properties', 'tags'), 'propertyNames' is not permitted."),
        case(
            OpenAiStrict,
            "ref-siblings",
            {
                let mut s = strict(json!({"a": {"$ref": "#/$defs/A", "description": "d", "title": "T"}}));
                s["$defs"] = json!({"A": {"type": "string"}});
                s
            },
            "/properties/a",
        )
        .says("$ref cannot have keywords {'description', 'title'}"),
        case(
            OpenAiStrict,
            "format",
            strict(json!({"url": {"type": "string", "format": "uri"}})),
            "/properties/url",
        )
        .says("In context=('properties', 'url'), 'uri' is not a valid format."),
        case(
            OpenAiStrict,
            "pattern-lookaround",
            strict(json!({"fileKey": {"type": "string", "pattern": "^(?!-)[a-z-]+$"}})),
            "/properties/fileKey",
        )
        .says("Invalid JSON schema: regex lookaround is not supported. Found at $.properties.fileKey.pattern."),
        case(
            OpenAiStrict,
            "additional-properties",
            strict(json!({"permissions": {"type": "object",
                "properties": {"read": {"type": "boolean"}}, "required": ["read"]}})),
            "/properties/permissions",
        )
        .says("Invalid schema for function 'get_data': In context=('properties', 'permissions'), 'additionalProperties' is required to be supplied and to be false."),
        case(
            OpenAiStrict,
            "required-all",
            json!({"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": false}),
            "",
        )
        .says("Invalid schema for function 'get_data': In context=(), 'required' is required to be supplied and to be an array including every key in properties. Missing 'a'."),
        // A tool without arguments still needs `required: []` (the corpus has 9 such tools).
        case(
            OpenAiStrict,
            "required-missing",
            json!({"type": "object", "properties": {}, "additionalProperties": false}),
            "",
        )
        .says("Invalid schema for function 'get_data': In context=(), 'required' is required to be supplied and to be an array including every key in properties."),
        case(
            OpenAiStrict,
            "required-undeclared",
            json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a", "b"],
                   "additionalProperties": false}),
            "",
        )
        .says("Extra required key 'b' supplied."),
        case(
            OpenAiStrict,
            "type-name",
            strict(json!({"blob": {"type": ["file", "null"]}})),
            "/properties/blob",
        ),
        case(
            OpenAiStrict,
            "free-form-object",
            json!({"type": "object", "additionalProperties": false}),
            "",
        )
        .says("In context=(), object schema missing properties."),
        case(
            OpenAiStrict,
            "type-required",
            strict(json!({"ok": {"description": "Anything the caller likes."}})),
            "/properties/ok",
        )
        .says("Invalid schema for function 'get_data': In context=('properties', 'ok'), schema must have a 'type' key."),
        case(
            OpenAiStrict,
            "array-items",
            strict(json!({"paths": {"type": "array"}})),
            "/properties/paths",
        )
        .says("In context=('properties', 'paths'), array schema missing items."),
        case(
            OpenAiStrict,
            "array-items-typed",
            strict(json!({"paths": {"type": "array", "items": {"description": "a path"}}})),
            "/properties/paths",
        ),
        case(
            OpenAiStrict,
            "discriminator",
            strict(json!({"pet": {"anyOf": [{"type": "string"}], "discriminator": {"propertyName": "k"}}})),
            "/properties/pet",
        ),
        case(
            OpenAiStrict,
            "comment-keyword",
            strict(json!({"name": {"type": "string", "$comment": "trimmed"}})),
            "/properties/name",
        ),
        case(
            OpenAiStrict,
            "root-only-keyword",
            strict(
                json!({"name": {"$schema": "http://json-schema.org/draft-07/schema#", "type": "string"}}),
            ),
            "/properties/name",
        ),
        case(
            OpenAiStrict,
            "undocumented-keyword",
            strict(json!({"name": {"type": "string", "minLength": 1}})),
            "/properties/name",
        ),
        case(OpenAiStrict, "limit-properties", many_properties(5001), ""),
        case(
            OpenAiStrict,
            "limit-depth",
            nested(11),
            "",
        ),
        case(
            OpenAiStrict,
            "limit-enum-values",
            strict(json!({"n": {"type": "integer", "enum": (0..1001).collect::<Vec<_>>()}})),
            "",
        ),
        case(
            OpenAiStrict,
            "limit-string-length",
            strict(json!({"s": {"type": "string",
                "enum": (0..200).map(|i| format!("{i:0>601}")).collect::<Vec<_>>()}})),
            "",
        ),
        case(
            OpenAiStrict,
            "limit-large-enum",
            strict(json!({"s": {"type": "string",
                "enum": (0..251).map(|i| format!("{i:0>60}")).collect::<Vec<_>>()}})),
            "/properties/s",
        ),
        case(OpenAiStrict, "tool-name", strict(json!({})), "").named(&["do.it"]),
        // ---- openai
        case(OpenAi, "root-type", json!({"anyOf": [object(json!({}))]}), "")
            .says("schema must be a JSON Schema of 'type: \"object\"', got 'type: null'."),
        case(
            OpenAi,
            "root-union",
            json!({"type": "object", "properties": {}, "not": {"required": ["x"]}}),
            "",
        )
        .says("schema must have type 'object' and not have 'oneOf'/'anyOf'/'allOf'/'enum'/'not' at the top level."),
        case(
            OpenAi,
            "oneof-nested",
            object(json!({"pet": {"oneOf": [{"type": "string"}]}})),
            "/properties/pet",
        )
        .says("In context=('properties', 'pet'), 'oneOf' is not permitted."),
        case(
            OpenAi,
            "array-items",
            object(json!({"paths": {"type": "array"}})),
            "/properties/paths",
        )
        .says("In context=('properties', 'paths'), array schema missing items."),
        case(OpenAi, "tool-name", object(json!({})), "").named(&["a tool"]),
        // ---- gemini (parameters)
        case(Gemini, "root-type", json!({"properties": {}}), "")
            .says("functionDeclaration parameters schema should be of type OBJECT"),
        case(
            Gemini,
            "const",
            object(json!({"a": {"type": "string"},
                "b": {"anyOf": [{"type": "string", "const": "x"}, {"type": "integer"}]}})),
            "/properties/b/anyOf/0",
        )
        .says("Invalid JSON payload received. Unknown name \"const\" at 'tools[0].function_declarations[0].parameters.properties[1].value.any_of[0]': Cannot find field."),
        case(
            Gemini,
            "oneof",
            object(json!({"a": {"oneOf": [{"type": "string"}]}})),
            "/properties/a",
        ),
        case(
            Gemini,
            "type-array",
            object(json!({"x": {"type": ["string", "null"]}})),
            "/properties/x",
        )
        .says("Invalid JSON payload received. Unknown name \"type\" at 'tools[0].function_declarations[0].parameters.properties[0].value': Proto field is not repeating, cannot start list."),
        case(
            Gemini,
            "additional-properties",
            json!({"type": "object", "properties": {}, "additionalProperties": false}),
            "",
        )
        .says("Invalid JSON payload received. Unknown name \"additionalProperties\" at 'tools[0].function_declarations[0].parameters': Cannot find field."),
        case(
            Gemini,
            "ref-siblings",
            json!({"type": "object", "properties": {"q": {"$ref": "#/$defs/QuestionOption", "title": "Q"}},
                   "$defs": {"QuestionOption": {"type": "string"}}}),
            "/properties/q",
        )
        .says("$ref 'QuestionOption' was set alongside unsupported fields. If a schema node has $ref set, then only description and default can be set alongside it"),
        case(
            Gemini,
            "refs",
            json!({"type": "object", "properties": {"q": {"$ref": "#/$defs/Q"}},
                   "$defs": {"Q": {"type": "string"}}}),
            "/properties/q",
        )
        .says("referenced name does not match display_name"),
        case(
            Gemini,
            "items-tuple",
            object(json!({"pair": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}]}})),
            "/properties/pair",
        )
        .says("Invalid JSON payload received. Unknown name \"items\" at 'tools[0].function_declarations[0].parameters.properties[0].value': Proto field is not repeating, cannot start list."),
        case(
            Gemini,
            "enum-non-string",
            object(json!({"level": {"type": "string", "enum": ["1", 2]}})),
            "/properties/level",
        )
        .says("Invalid value at 'tools[0].function_declarations[0].parameters.properties[0].value.enum[1]' (TYPE_STRING), 2"),
        case(
            Gemini,
            "enum-type",
            object(json!({"level": {"type": "integer", "enum": [1, 2]}})),
            "/properties/level",
        )
        .says("function declaration enum only allowed for STRING type"),
        case(
            Gemini,
            "required-undeclared",
            json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["b"]}),
            "",
        )
        .says("* GenerateContentRequest.tools[0].function_declarations[0].parameters.required[0]: property is not defined"),
        case(
            Gemini,
            "array-items",
            object(json!({"xs": {"type": "array"}})),
            "/properties/xs",
        )
        .says("items: missing field"),
        case(
            Gemini,
            "format",
            object(json!({"mail": {"type": "string", "format": "email"}})),
            "/properties/mail",
        ),
        case(
            Gemini,
            "type-name",
            object(json!({"mode": {"type": "enum"}})),
            "/properties/mode",
        )
        .says("Invalid value at 'tools[0].function_declarations[0].parameters.properties[0].value.type' (type.googleapis.com/google.ai.generativelanguage.v1beta.Type), \"enum\""),
        case(
            Gemini,
            "unknown-field",
            object(json!({"n": {"type": "number", "exclusiveMinimum": 0}})),
            "/properties/n",
        )
        .says("Invalid JSON payload received. Unknown name \"exclusiveMinimum\" at 'tools[0].function_declarations[0].parameters.properties[0].value': Cannot find field."),
        case(
            Gemini,
            "node-type",
            object(json!({"data": {"type": "object", "properties": {
                "meta": {"type": "object", "properties": {"width": {"description": "px"}}}}}})),
            "/properties/data/properties/meta/properties/width",
        )
        .says("Unable to submit request because 'get_data' functionDeclaration 'parameters.data.meta.width' schema didn't specify the schema type field."),
        case(Gemini, "object-properties", json!({"type": "object"}), "")
            .says("* GenerateContentRequest.tools[0].function_declarations[0].parameters.properties: should be non-empty for OBJECT type"),
        case(
            Gemini,
            "object-properties",
            object(json!({"o": {"type": "object", "properties": {}}})),
            "/properties/o",
        )
        .says("* GenerateContentRequest.tools[0].function_declarations[0].parameters.properties[0].value.properties: should be non-empty for OBJECT type"),
        case(
            Gemini,
            "property-name",
            object(json!({"user-id": {"type": "string"}})),
            "/properties/user-id",
        ),
        case(Gemini, "tool-name", object(json!({})), "").named(&["1st_tool"]),
        // ---- gemini-jsonschema
        case(GeminiJsonSchema, "root-type", json!({"type": "string"}), ""),
        case(
            GeminiJsonSchema,
            "ref-siblings",
            json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/A", "description": "d"}},
                   "$defs": {"A": {"type": "string"}}}),
            "/properties/a",
        ),
        case(
            GeminiJsonSchema,
            "oneof",
            object(json!({"a": {"oneOf": [{"type": "string"}]}})),
            "/properties/a",
        ),
        case(
            GeminiJsonSchema,
            "recursive-ref",
            object(json!({"child": {"$ref": "#"}})),
            "/properties/child",
        ),
        case(
            GeminiJsonSchema,
            "enum-values",
            object(json!({"flag": {"enum": [true, false]}})),
            "/properties/flag",
        ),
        case(
            GeminiJsonSchema,
            "undocumented-keyword",
            object(json!({"kind": {"type": "string", "const": "a"}})),
            "/properties/kind",
        ),
        case(GeminiJsonSchema, "tool-name", object(json!({})), "").named(&["-x"]),
    ];
    out.extend(anthropic_cases(Anthropic));
    out.extend(anthropic_cases(AnthropicStrict));
    out.extend([
        // ---- anthropic-strict only
        case(
            AnthropicStrict,
            "additional-properties",
            object(json!({"a": {"type": "string"}})),
            "",
        ),
        case(
            AnthropicStrict,
            "unsupported-keyword",
            strict(json!({"n": {"type": "integer", "minimum": 0}})),
            "/properties/n",
        ),
        case(
            AnthropicStrict,
            "min-items",
            strict(json!({"xs": {"type": "array", "items": {"type": "string"}, "minItems": 2}})),
            "/properties/xs",
        ),
        case(
            AnthropicStrict,
            "format",
            strict(json!({"ip": {"type": "string", "format": "ipv4-cidr"}})),
            "/properties/ip",
        ),
        case(
            AnthropicStrict,
            "pattern-lookaround",
            strict(json!({"w": {"type": "string", "pattern": "(?<=a)b"}})),
            "/properties/w",
        ),
        case(
            AnthropicStrict,
            "recursive-ref",
            {
                let mut s = strict(json!({"root": {"$ref": "#/$defs/Node"}}));
                s["$defs"] = json!({"Node": strict(json!({"next": {"anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}]}}))});
                s
            },
            "/$defs/Node/properties/next/anyOf/0",
        ),
        case(
            AnthropicStrict,
            "enum-values",
            strict(json!({"point": {"enum": [[0, 0]]}})),
            "/properties/point",
        ),
        case(
            AnthropicStrict,
            "object-properties",
            strict(json!({"meta": {"type": "object", "additionalProperties": false}})),
            "/properties/meta",
        ),
        case(
            AnthropicStrict,
            "sdk-const",
            strict(json!({"kind": {"type": "string", "const": "a"}})),
            "/properties/kind",
        ),
        case(
            AnthropicStrict,
            "sdk-ref-siblings",
            {
                let mut s = strict(json!({"a": {"$ref": "#/$defs/A", "description": "d"}}));
                s["$defs"] = json!({"A": {"type": "string"}});
                s
            },
            "/properties/a",
        ),
        case(
            AnthropicStrict,
            "sdk-untyped",
            strict(json!({"anything": {"description": "any JSON"}})),
            "/properties/anything",
        )
        .says("Schema must have a 'type', 'enum', 'anyOf', 'oneOf', or 'allOf' field."),
        // Zod records and MCP servers write `propertyNames`; the second-hand list of what
        // strict tool use supports leaves it out, and tailoring drops it.
        case(
            AnthropicStrict,
            "undocumented-keyword",
            strict(json!({"tags": {"type": "object", "properties": {}, "additionalProperties": false,
                                   "propertyNames": {"type": "string"}}})),
            "/properties/tags",
        ),
        case(AnthropicStrict, "limit-strict-tools", strict(json!({})), "").named(&[
            "t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8", "t9", "t10", "t11", "t12", "t13", "t14",
            "t15", "t16", "t17", "t18", "t19", "t20", "t21",
        ]),
        case(
            AnthropicStrict,
            "limit-optional",
            json!({"type": "object", "additionalProperties": false,
                   "properties": (0..25).map(|i| (format!("o{i}"), json!({"type": "string"})))
                       .collect::<serde_json::Map<_, _>>()}),
            "",
        ),
        case(
            AnthropicStrict,
            "limit-unions",
            strict(Value::Object(
                (0..17)
                    .map(|i| (format!("u{i}"), json!({"type": ["string", "null"]})))
                    .collect(),
            )),
            "",
        ),
        // ---- ollama
        case(
            Ollama,
            "go-decode",
            json!({"type": "object", "properties": []}),
            "",
        )
        .says("json: cannot unmarshal array into Go struct field ToolFunctionParameters.tools.function.parameters.properties of type map[string]api.ToolProperty"),
        case(
            Ollama,
            "go-decode",
            json!({"type": "object", "properties": {"a": "string"}}),
            "",
        )
        .says("json: cannot unmarshal string into Go struct field ToolFunctionParameters.tools.function.parameters.properties of type api.ToolProperty"),
        case(
            Ollama,
            "go-decode",
            json!({"type": "object", "properties": {}, "required": {"a": true}}),
            "",
        )
        .says("json: cannot unmarshal object into Go struct field ToolFunctionParameters.tools.function.parameters.required of type []string"),
        case(
            Ollama,
            "go-decode",
            json!({"type": ["object", "null"], "properties": {}}),
            "",
        )
        .says("json: cannot unmarshal array into Go struct field ToolFunctionParameters.tools.function.parameters.type of type string"),
        case(
            Ollama,
            "dropped-structure",
            object(json!({"pet": {"oneOf": [{"type": "string"}]}})),
            "/properties/pet",
        ),
        case(
            Ollama,
            "dropped-constraint",
            object(json!({"n": {"type": "integer", "minimum": 1}})),
            "/properties/n",
        ),
        case(
            Ollama,
            "dropped-annotation",
            object(json!({"n": {"type": "integer", "title": "N"}})),
            "/properties/n",
        ),
        // ---- bedrock
        case(Bedrock, "root-json-object", json!(true), "")
            .says("The format of the value at toolConfig.tools.0.toolSpec.inputSchema.json is invalid. Provide a json object for the field and try again."),
        case(Bedrock, "root-type", json!({"anyOf": [object(json!({}))]}), "")
            .says("The value at toolConfig.tools.0.toolSpec.inputSchema.json.type must be one of the following: object."),
        case(Bedrock, "tool-name", object(json!({})), "").named(&["get:data"]),
        case(
            Bedrock,
            "strict-number-bounds",
            object(json!({"n": {"type": "number", "multipleOf": 0.5}})),
            "/properties/n",
        ),
        case(
            Bedrock,
            "strict-min-items",
            object(json!({"xs": {"type": "array", "items": {}, "minItems": 3}})),
            "/properties/xs",
        ),
        // ---- mcp
        case(Mcp, "root-type", json!({"type": "array", "items": {}}), "")
            .says("Invalid input: expected \"object\""),
        case(Mcp, "root-union", json!({"anyOf": [object(json!({}))]}), "")
            .says("object has unsupported top-level schema keyword 'anyOf'"),
        case(Mcp, "tool-name", object(json!({})), "").named(&["files/read"]),
        case(Mcp, "tool-name-unique", object(json!({})), "").named(&["read", "read"]),
    ]);
    out
}

/// The rules Anthropic's two profiles share.
fn anthropic_cases(profile: Profile) -> Vec<Case> {
    vec![
        case(profile, "root-type-missing", json!({"anyOf": [object(json!({}))]}), "")
            .says("tools.0.custom.input_schema.type: Field required"),
        case(profile, "root-type", json!({"type": "array", "items": {}}), ""),
        case(
            profile,
            "root-union",
            json!({"type": "object", "properties": {}, "additionalProperties": false,
                   "oneOf": [{"required": []}]}),
            "",
        )
        .says("tools.0.custom.input_schema: input_schema does not support oneOf, allOf, or anyOf at the top level"),
        case(
            profile,
            "draft-2020-12",
            strict(json!({"n": {"type": "number", "minimum": 0, "exclusiveMinimum": true}})),
            "/properties/n",
        )
        .says("tools.0.custom.input_schema: JSON schema is invalid. It must match JSON Schema draft 2020-12 (https://json-schema.org/draft/2020-12)."),
        case(profile, "tool-name", strict(json!({})), "")
            .named(&["home.assistant"])
            .says("tools.0.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'"),
        case(profile, "tool-name-unique", strict(json!({})), "")
            .named(&["search", "search"])
            .says("tools: Tool names must be unique."),
    ]
}

fn run(case: &Case) -> Vec<Finding> {
    let subjects: Vec<Subject<'_>> = case
        .names
        .iter()
        .map(|n| Subject {
            name: Some(n),
            schema: &case.schema,
        })
        .collect();
    lint::lint_tools(case.profile, &subjects)
        .into_iter()
        .flatten()
        .collect()
}

#[test]
fn every_rule_of_every_profile_fires_on_its_case() {
    let mut failures = Vec::new();
    for case in cases() {
        let findings = run(&case);
        let hit = findings
            .iter()
            .filter(|f| f.rule == case.rule && f.pointer == case.at)
            .find(|f| case.says.is_none() || f.provider_message.as_deref() == case.says);
        if hit.is_none() {
            let got: Vec<String> = findings
                .iter()
                .map(|f| format!("{} #{} {:?}", f.rule, f.pointer, f.provider_message))
                .collect();
            failures.push(format!(
                "{}/{} at #{}: expected {:?}\n    got: {got:#?}",
                case.profile, case.rule, case.at, case.says
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_rule_has_a_case() {
    let covered: BTreeSet<(Profile, &str)> = cases().iter().map(|c| (c.profile, c.rule)).collect();
    let missing: Vec<String> = Profile::ALL
        .iter()
        .flat_map(|p| p.rules().iter().map(move |r| (*p, r.id)))
        .filter(|key| !covered.contains(key))
        .map(|(p, r)| format!("{p}/{r}"))
        .collect();
    assert!(missing.is_empty(), "rules without a case: {missing:?}");
}

#[test]
fn rules_with_a_provider_message_are_checked_against_it() {
    // A case that names the rule must quote the provider's text when the table has one, so
    // the templates cannot drift from the research notes unnoticed.
    for case in cases() {
        let rule = case.profile.rule(case.rule).unwrap();
        if rule.provider_message.is_some() && case.says.is_none() {
            let findings = run(&case);
            let f = findings.iter().find(|f| f.rule == case.rule).unwrap();
            panic!(
                "{}/{}: add .says({:?})",
                case.profile,
                case.rule,
                f.provider_message.as_deref().unwrap_or_default()
            );
        }
    }
}

#[test]
fn draft07_tuple_items_break_anthropic_draft_2020_12() {
    let schema = json!({"type": "object", "properties": {"pair": {
        "type": "array", "items": [{"type": "string"}, {"type": "integer"}], "additionalItems": false}}});
    let findings = lint::lint_schema(Profile::Anthropic, &schema);
    let f: Vec<(&str, &str, Option<&str>)> = findings
        .iter()
        .map(|f| (f.rule, f.pointer.as_str(), f.keyword.as_deref()))
        .collect();
    assert_eq!(
        f,
        vec![("draft-2020-12", "/properties/pair", Some("items"))]
    );
}

/// Schemas each profile accepts without an error (warnings may remain).
#[test]
fn clean_schemas_pass_each_profile() {
    let strict_ok = json!({
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "City name."},
            "unit": {"type": ["string", "null"], "enum": ["c", "f", null]},
            "days": {"type": "integer", "minimum": 1, "maximum": 14},
            "tags": {"type": "array", "items": {"type": "string"}}
        },
        "required": ["city", "unit", "days", "tags"],
        "additionalProperties": false
    });
    let gemini_ok = json!({
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "City name."},
            "unit": {"type": "string", "enum": ["c", "f"], "nullable": true},
            "tags": {"type": "array", "items": {"type": "string"}}
        },
        "required": ["city"]
    });
    for (profile, schema) in [
        (Profile::OpenAiStrict, &strict_ok),
        (Profile::OpenAi, &strict_ok),
        (Profile::GeminiJsonSchema, &strict_ok),
        (Profile::Anthropic, &strict_ok),
        (Profile::Bedrock, &strict_ok),
        (Profile::Mcp, &strict_ok),
        (Profile::Ollama, &gemini_ok),
        (Profile::Gemini, &gemini_ok),
        (Profile::AnthropicStrict, &gemini_ok_closed()),
    ] {
        let findings = lint::lint_schema(profile, schema);
        assert!(!lint::has_errors(&findings), "{profile}: {findings:#?}");
    }
    assert!(lint::lint_schema(Profile::OpenAiStrict, &strict_ok).is_empty());
}

/// What OpenAI strict refuses for want of a `type`: every shape generators emit for "any
/// value", each reported at its own node with OpenAI's words.
#[test]
fn openai_strict_sees_every_untyped_subschema() {
    let schema = strict(json!({
        "any": {},
        "described": {"description": "Pydantic `Any`"},
        "tag": {"const": "x"},
        "cut": {"description": "Recursive #/$defs/Node: cut after 3 level(s)."},
        "anything": true,
        "list": {"type": "array", "items": {}},
        "maybe": {"anyOf": [{}, {"type": "null"}]},
        "typed": {"type": "string"},
        "choice": {"enum": ["a", 1]},
        "union": {"anyOf": [{"type": "string"}, {"type": "null"}]},
        "node": {"$ref": "#/$defs/Node"}
    }));
    let mut schema = schema;
    schema["$defs"] = json!({"Node": strict(json!({"v": {"type": "integer"}}))});
    let findings = lint::lint_schema(Profile::OpenAiStrict, &schema);
    let untyped: Vec<(&str, Option<&str>)> = findings
        .iter()
        .filter(|f| f.rule == "type-required")
        .map(|f| (f.pointer.as_str(), f.provider_message.as_deref()))
        .collect();
    let context = |p: &str| {
        let tokens: Vec<String> = p[1..].split('/').map(|t| format!("'{t}'")).collect();
        format!(
            "In context=({}), schema must have a 'type' key.",
            tokens.join(", ")
        )
    };
    let expected = [
        "/properties/any",
        "/properties/described",
        "/properties/tag",
        "/properties/cut",
        "/properties/anything",
        "/properties/list/items",
        "/properties/maybe/anyOf/0",
    ];
    assert_eq!(
        untyped.iter().map(|u| u.0).collect::<Vec<_>>(),
        expected,
        "{findings:#?}"
    );
    for (at, said) in untyped {
        assert!(said.unwrap().ends_with(&context(at)), "{at}: {said:?}");
    }
}

/// The published limits are counted over one tool's whole schema as sent (definitions
/// included), and the finding gives the count beside the limit.
#[test]
fn openai_strict_limits_give_the_numbers() {
    let message = |schema: &Value, rule: &str| {
        let findings = lint::lint_schema(Profile::OpenAiStrict, schema);
        let hits: Vec<&Finding> = findings.iter().filter(|f| f.rule == rule).collect();
        assert_eq!(hits.len(), 1, "{rule}: {findings:#?}");
        (hits[0].pointer.clone(), hits[0].message.clone())
    };
    // 5,312 properties: 2,656 at the top and as many again in a definition.
    let mut wide = many_properties(2656);
    wide["$defs"] = json!({"Copy": many_properties(2656)});
    let (at, said) = message(&wide, "limit-properties");
    assert_eq!(at, "");
    assert!(
        said.starts_with("5,312 properties in this tool's schema"),
        "{said}"
    );
    assert!(said.contains("the limit is 5,000"), "{said}");
    assert!(
        !lint::lint_schema(Profile::OpenAiStrict, &many_properties(5000))
            .iter()
            .any(|f| f.rule == "limit-properties")
    );

    // `anyOf` alternatives and definitions are levels too; `$ref` is not followed.
    let deep = {
        let mut inner = strict(json!({"leaf": {"type": "string"}}));
        for level in (1..=5).rev() {
            inner = strict(json!({ format!("l{level}"): {"anyOf": [inner, {"type": "null"}]} }));
        }
        inner
    };
    let (at, said) = message(&deep, "limit-depth");
    assert_eq!(at, "");
    assert!(
        said.starts_with("11 levels of nesting (the deepest at #/properties/l1/anyOf/0/properties/l2/anyOf/0/properties/l3/anyOf/0/properties/l4/anyOf/0/properties/l5/anyOf/0/properties/leaf); the limit is 10."),
        "{said}"
    );
    // A definition is read where it is used: one level for `a`, nine inside.
    let by_ref = |levels: usize| {
        json!({
            "type": "object", "properties": {"a": {"$ref": "#/$defs/Deep"}}, "required": ["a"],
            "additionalProperties": false, "$defs": {"Deep": nested(levels)}
        })
    };
    assert!(
        !lint::lint_schema(Profile::OpenAiStrict, &by_ref(9))
            .iter()
            .any(|f| f.rule == "limit-depth")
    );
    let (_, said) = message(&by_ref(10), "limit-depth");
    assert!(
        said.starts_with("11 levels of nesting (the deepest at #/$defs/Deep/properties/l1/properties/l2/properties/l3/properties/l4/properties/l5/properties/l6/properties/l7/properties/l8/properties/l9/properties/l10, reached through `$ref`)"),
        "{said}"
    );
    // Recursion is allowed, so a recursive `$ref` adds nothing.
    let tree = json!({
        "type": "object", "properties": {"root": {"$ref": "#/$defs/Node"}}, "required": ["root"],
        "additionalProperties": false,
        "$defs": {"Node": strict(json!({"children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}))}
    });
    assert!(
        !lint::lint_schema(Profile::OpenAiStrict, &tree)
            .iter()
            .any(|f| f.rule == "limit-depth")
    );

    let enums = strict(json!({
        "a": {"type": "integer", "enum": (0..600).collect::<Vec<_>>()},
        "b": {"type": "integer", "enum": (0..600).collect::<Vec<_>>()}
    }));
    let (_, said) = message(&enums, "limit-enum-values");
    assert!(
        said.starts_with("1,200 enum values") && said.contains("1,000"),
        "{said}"
    );

    // Non-string enum values and consts count as their JSON text: 200 × 600 digits + names.
    let chars = strict(json!({
        "n": {"type": "number", "enum": (0..200).map(|_| json!(1e300)).collect::<Vec<_>>()},
        "s": {"type": "string", "enum": (0..200).map(|i| format!("{i:0>600}")).collect::<Vec<_>>()}
    }));
    let (_, said) = message(&chars, "limit-string-length");
    assert!(said.starts_with("121,202 characters"), "{said}");

    let large = strict(json!({"s": {"type": "string",
        "enum": (0..251).map(|i| format!("{i:0>60}")).collect::<Vec<_>>()}}));
    let (at, said) = message(&large, "limit-large-enum");
    assert_eq!(at, "/properties/s");
    assert!(
        said.starts_with("251 values holding 15,060 characters"),
        "{said}"
    );
}

/// Gemini's `parameters`: one `items` schema, string enums only.
#[test]
fn gemini_sees_tuples_and_integer_tags() {
    let schema = object(json!({
        "pair": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}]},
        "level": {"type": "integer", "enum": [1, 2, 3]},
        "list": {"type": "array", "items": {"type": "string"}}
    }));
    let findings = lint::lint_schema(Profile::Gemini, &schema);
    let errors: Vec<(&str, &str, &str)> = findings
        .iter()
        .filter(|f| f.is_error())
        .map(|f| (f.rule, f.pointer.as_str(), f.message.as_str()))
        .collect();
    assert_eq!(errors.len(), 5, "{errors:#?}");
    assert_eq!(
        (errors[0].0, errors[0].1),
        ("items-tuple", "/properties/pair")
    );
    // An enum on an integer is refused whatever its values say.
    assert_eq!(
        (errors[4].0, errors[4].1),
        ("enum-type", "/properties/level")
    );
    assert!(
        errors[0].2.contains("a list of 2 schemas"),
        "{}",
        errors[0].2
    );
    for (i, value) in ["1", "2", "3"].iter().enumerate() {
        assert_eq!(
            (errors[i + 1].0, errors[i + 1].1),
            ("enum-non-string", "/properties/level")
        );
        assert!(errors[i + 1].2.starts_with(&format!("Enum value {value} ")));
    }
}

/// Gemini takes an enum on a string, whichever case its type is written in, and on an integer
/// or number written with `format: enum` (as its SDK documents); an untyped enum, as tailoring a
/// `const` leaves it, is refused.
#[test]
fn gemini_enum_type_follows_the_documented_forms() {
    let enum_type = |property: Value| {
        lint::lint_schema(Profile::Gemini, &object(json!({"x": property})))
            .into_iter()
            .filter(|f| f.rule == "enum-type")
            .map(|f| f.severity)
            .collect::<Vec<_>>()
    };
    assert_eq!(enum_type(json!({"type": "string", "enum": ["a"]})), []);
    assert_eq!(enum_type(json!({"type": "STRING", "enum": ["a"]})), []);
    assert_eq!(
        enum_type(json!({"type": "integer", "format": "enum", "enum": ["1", "2"]})),
        []
    );
    assert_eq!(
        enum_type(json!({"type": "NUMBER", "format": "enum", "enum": ["1.5"]})),
        []
    );
    assert_eq!(enum_type(json!({"enum": ["workspace"]})), [Severity::Error]);
    assert_eq!(
        enum_type(json!({"type": "integer", "enum": [1]})),
        [Severity::Error]
    );
    assert_eq!(
        enum_type(json!({"type": "boolean", "format": "enum", "enum": [true]})),
        [Severity::Error]
    );
}

fn gemini_ok_closed() -> Value {
    json!({
        "type": "object",
        "properties": {"city": {"type": "string"}, "unit": {"type": ["string", "null"]}},
        "required": ["city"],
        "additionalProperties": false
    })
}

#[test]
fn ollama_view_lists_what_the_model_sees() {
    let schema = json!({
        "type": "object",
        "description": "not shown",
        "properties": {
            "op": {"oneOf": [{"$ref": "#/$defs/A"}], "title": "Op"},
            "xs": {"type": "array", "items": {"$ref": "#/$defs/A"}}
        },
        "$defs": {"A": {"type": "object", "properties": {"k": {"const": "a"}}}}
    });
    let view = lint::ollama_view(&schema);
    assert_eq!(
        view.sees,
        json!({
            "type": "object",
            "$defs": {"A": {"type": "object", "properties": {"k": {"const": "a"}}}},
            "properties": {
                "op": {},
                "xs": {"type": "array", "items": {"$ref": "#/$defs/A"}}
            }
        })
    );
    let dropped: Vec<(&str, &str)> = view
        .dropped
        .iter()
        .map(|d| (d.pointer.as_str(), d.keyword.as_str()))
        .collect();
    assert_eq!(
        dropped,
        vec![
            ("", "description"),
            ("/properties/op", "oneOf"),
            ("/properties/op", "title")
        ]
    );
    assert!(!view.rejected);
}

// ---------------------------------------------------------------------------------------------
// The nested-union reproducer
// ---------------------------------------------------------------------------------------------

fn reproducer(options: &Options) -> (Value, Value) {
    let manifest = load_path(&sample("nested-union-pydantic.json"), None).unwrap();
    let tool = &manifest.tools[0];
    let projection = project_tool(tool, options).unwrap();
    (Value::clone(&tool.schema), projection.schema)
}

/// (severity, rule, pointer, keyword) of a profile's findings, errors and warnings only.
fn shape(
    profile: Profile,
    schema: &Value,
) -> Vec<(Severity, &'static str, String, Option<String>)> {
    lint::lint_schema(profile, schema)
        .into_iter()
        .filter(|f| f.severity != Severity::Info)
        .map(|f| (f.severity, f.rule, f.pointer, f.keyword))
        .collect()
}

fn row(
    severity: Severity,
    rule: &'static str,
    at: &str,
    keyword: &str,
) -> (Severity, &'static str, String, Option<String>) {
    (severity, rule, at.to_owned(), Some(keyword.to_owned()))
}

#[test]
fn reproducer_original_fails_openai_strict_gemini_and_ollama() {
    let (original, _) = reproducer(&Options::flat());
    for profile in [Profile::OpenAiStrict, Profile::Gemini, Profile::Ollama] {
        assert!(
            lint::has_errors(&lint::lint_schema(profile, &original)),
            "{profile} should reject the original"
        );
    }
    use Severity::*;
    assert_eq!(
        shape(Profile::OpenAiStrict, &original),
        vec![
            row(
                Error,
                "oneof",
                "/$defs/CreateUser/properties/payload",
                "oneOf"
            ),
            row(
                Warn,
                "discriminator",
                "/$defs/CreateUser/properties/payload",
                "discriminator"
            ),
            row(Error, "oneof", "/properties/op", "oneOf"),
            row(Warn, "discriminator", "/properties/op", "discriminator"),
        ]
    );
    assert_eq!(
        shape(Profile::Ollama, &original),
        vec![
            row(Warn, "dropped-constraint", "", "additionalProperties"),
            row(Error, "dropped-structure", "/properties/op", "oneOf"),
        ]
    );
    let gemini_rules: BTreeSet<&str> = shape(Profile::Gemini, &original)
        .into_iter()
        .filter(|r| r.0 == Error)
        .map(|r| r.1)
        .collect();
    // `node-type`: the tags' `const` has no `type`, which Vertex AI refuses.
    assert_eq!(
        gemini_rules,
        BTreeSet::from([
            "additional-properties",
            "const",
            "node-type",
            "oneof",
            "unknown-field"
        ])
    );
}

/// What the flat projection still trips over, and why: OpenAI strict wants every property
/// required (the merged union made `payload`, `user_id` and `email` optional), and the Gemini
/// Developer API has no `additionalProperties` field. Both are what provider tailoring is for.
/// Ollama only loses the closing `additionalProperties`, and the model sees the whole shape.
#[test]
fn reproducer_flat_projection_findings() {
    let (_, flat) = reproducer(&Options::flat());
    use Severity::*;
    assert_eq!(
        shape(Profile::OpenAiStrict, &flat),
        vec![
            row(Error, "required-all", "/properties/op", "required"),
            row(Error, "required-all", "/properties/op", "required"),
            row(
                Error,
                "required-all",
                "/properties/op/properties/payload",
                "required"
            ),
        ]
    );
    let missing: Vec<String> = lint::lint_schema(Profile::OpenAiStrict, &flat)
        .iter()
        .filter(|f| f.rule == "required-all")
        .map(|f| f.message.split('`').nth(1).unwrap_or_default().to_owned())
        .collect();
    assert_eq!(missing, vec!["payload", "user_id", "email"]);
    assert_eq!(
        shape(Profile::Gemini, &flat),
        vec![
            row(Error, "additional-properties", "", "additionalProperties"),
            row(
                Error,
                "additional-properties",
                "/properties/op",
                "additionalProperties"
            ),
            row(
                Error,
                "additional-properties",
                "/properties/op/properties/payload",
                "additionalProperties"
            ),
        ]
    );
    assert_eq!(
        shape(Profile::Ollama, &flat),
        vec![
            row(Warn, "dropped-constraint", "", "additionalProperties"),
            row(
                Warn,
                "dropped-constraint",
                "/properties/op",
                "additionalProperties"
            ),
            row(
                Warn,
                "dropped-constraint",
                "/properties/op/properties/payload",
                "additionalProperties"
            ),
        ]
    );
    for profile in [Profile::Anthropic, Profile::Bedrock, Profile::Mcp] {
        assert!(shape(profile, &flat).is_empty(), "{profile}");
    }
}

/// Inline mode keeps the unions as `anyOf`, which Ollama keeps too, but the `const` tags in
/// the branches are dropped: the model cannot tell `create` from `delete`. Flat mode is what
/// makes the tool usable there.
#[test]
fn reproducer_inline_projection_still_fails_ollama() {
    let (_, inline) = reproducer(&Options::inline());
    let structural: BTreeSet<String> = lint::lint_schema(Profile::Ollama, &inline)
        .into_iter()
        .filter(|f| f.rule == "dropped-structure")
        .filter_map(|f| f.keyword)
        .collect();
    assert_eq!(structural, BTreeSet::from(["const".to_owned()]));
}

/// Whatever the sample, a projection never shows the keywords its rules remove, under any
/// profile; and linting never fails on a real manifest.
#[test]
fn samples_lint_under_every_profile() {
    let mut seen = 0;
    for entry in std::fs::read_dir(sample("")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let manifest = load_path(&path, None).unwrap();
        for options in [Options::inline(), Options::flat()] {
            let projected: Vec<Value> = manifest
                .tools
                .iter()
                .map(|t| project_tool(t, &options).unwrap().schema)
                .collect();
            for profile in Profile::ALL {
                let subjects: Vec<Subject<'_>> = manifest
                    .tools
                    .iter()
                    .zip(&projected)
                    .map(|(t, s)| Subject {
                        name: Some(&t.name),
                        schema: s,
                    })
                    .collect();
                for f in lint::lint_tools(profile, &subjects).into_iter().flatten() {
                    let removed = ["oneOf", "discriminator", "$ref", "$defs"];
                    assert!(
                        !f.keyword.as_deref().is_some_and(|k| removed.contains(&k)),
                        "{}: {profile}: {f:?}",
                        path.display()
                    );
                    if f.target == Target::Tool {
                        assert!(f.pointer.is_empty(), "{f:?}");
                    }
                }
            }
        }
        seen += 1;
    }
    assert!(seen >= 9, "expected the samples, saw {seen}");
}

// ---------------------------------------------------------------------------------------------
// Grouping by original node, and the three forms
// ---------------------------------------------------------------------------------------------

/// The ref-fan reproducer (`tests/support/ref_fan.rs`): the last definition inlined
/// `fan^(levels-1)` times.
fn ref_fan(fan: usize, levels: usize) -> Value {
    support::ref_fan::document(fan, levels, true)
}

/// The one tool of a bare schema.
fn tool_of(schema: &Value) -> schemalens::manifest::Tool {
    schemalens::manifest::load_str(&schema.to_string(), "schema.json", None)
        .unwrap()
        .tools
        .remove(0)
}

/// Definitions `L0`…`L12`, each referring to the next ten times: 10^12 copies inlined, which
/// the projection refuses before building.
fn ref_bomb() -> serde_json::Map<String, Value> {
    let mut bomb = serde_json::Map::new();
    for level in 0..12 {
        let next = format!("#/$defs/L{}", level + 1);
        let props: serde_json::Map<String, Value> = (0..10)
            .map(|k| (format!("p{k}"), json!({"$ref": next})))
            .collect();
        bomb.insert(
            format!("L{level}"),
            json!({"type": "object", "properties": props}),
        );
    }
    bomb.insert("L12".into(), json!({"type": "string"}));
    bomb
}

#[test]
fn projection_findings_are_grouped_by_the_original_node() {
    let tool = tool_of(&ref_fan(3, 4));
    let options = Options::flat();
    let projection = project_tool(&tool, &options).unwrap();
    let forms = [lint::report::ToolForms {
        name: Some("fan"),
        tool: &tool,
        options: &options,
        projection: Ok(&projection),
    }];
    let linted = lint::report::lint_forms(Profile::OpenAiStrict, &forms).remove(0);
    let projected = linted.form(lint::report::Form::Projection);
    // `extra: {}` sits once in the original and 27 times in the projection: one group.
    let untyped: Vec<&lint::Group> = projected
        .groups
        .iter()
        .filter(|g| g.finding.rule == "type-required")
        .collect();
    assert_eq!(untyped.len(), 1, "{untyped:#?}");
    assert_eq!(untyped[0].origins, ["/$defs/Level3/properties/extra"]);
    assert_eq!(untyped[0].copies(), 27);
    assert_eq!(untyped[0].pointers[0], untyped[0].finding.pointer);
    assert_eq!(
        untyped[0].finding.pointer,
        "/properties/root/properties/part0/properties/part0/properties/part0/properties/extra"
    );
    // Every copy is one projection node linked to that original node.
    for p in &untyped[0].pointers {
        assert_eq!(
            projection.links.originals(p),
            ["/$defs/Level3/properties/extra"]
        );
    }
    // The projection has no more groups than the original has findings to fix, give or take
    // the root: copies are counted, not repeated.
    let original = linted.form(lint::report::Form::Original);
    assert!(
        projected.groups.len() <= original.groups.len() + 2,
        "{} groups vs {} in the original",
        projected.groups.len(),
        original.groups.len()
    );
    assert_eq!(
        projected.copies(),
        lint::lint_schema(Profile::OpenAiStrict, &projection.schema).len()
    );
    // The three verdicts: tailoring sends the `{}` as JSON text, and the integer enum is fine
    // for OpenAI, so only the tailored schema is accepted.
    use lint::report::{Form, Verdict};
    assert_eq!(linted.verdict(Form::Original), Verdict::Rejected);
    assert_eq!(linted.verdict(Form::Projection), Verdict::Rejected);
    assert_eq!(linted.verdict(Form::Tailored), Verdict::Accepted);
    assert!(
        linted
            .form(Form::Tailored)
            .groups
            .iter()
            .all(|g| !g.finding.is_error()),
        "{:#?}",
        linted.form(Form::Tailored).groups
    );
    assert!(linted.unresolved.is_empty(), "{:#?}", linted.unresolved);
}

/// An accepted tailored schema says what it still asks of the user: its warnings.
#[test]
fn an_accepted_verdict_counts_the_warnings_left() {
    use lint::report::{Form, FormLint, ProfileLint};
    let schema = object(json!({"user-id": {"type": "string"}}));
    let subject = Subject {
        name: Some("t"),
        schema: &schema,
    };
    let groups = lint::lint_grouped(Profile::Gemini, &[subject], &[None]).remove(0);
    assert!(
        groups.iter().any(|g| g.finding.rule == "property-name"),
        "{groups:#?}"
    );
    let form = |form| FormLint {
        form,
        failed: None,
        groups: groups.clone(),
    };
    let linted = ProfileLint {
        profile: Profile::Gemini,
        forms: [
            form(Form::Original),
            form(Form::Projection),
            form(Form::Tailored),
        ],
        adapters: Vec::new(),
        unresolved: Vec::new(),
        ollama: None,
        sent: None,
    };
    assert_eq!(linted.verdict_label(Form::Tailored), "accepted (1 warning)");
    // The other forms answer the question alone: they are not what gets sent.
    assert_eq!(linted.verdict_label(Form::Original), "accepted");
}

#[test]
fn a_tool_that_cannot_be_projected_is_reported_failed() {
    let tool = tool_of(&json!({
        "type": "object", "properties": {"x": {"$ref": "#/$defs/L0"}}, "$defs": ref_bomb()
    }));
    let options = Options::flat();
    let why = project_tool(&tool, &options).unwrap_err().to_string();
    let forms = [lint::report::ToolForms {
        name: Some("broken"),
        tool: &tool,
        options: &options,
        projection: Err(&why),
    }];
    let linted = lint::report::lint_forms(Profile::Gemini, &forms).remove(0);
    use lint::report::{Form, Verdict};
    assert_eq!(linted.verdict(Form::Original), Verdict::Accepted);
    assert_eq!(linted.verdict(Form::Projection), Verdict::Failed);
    assert_eq!(linted.verdict(Form::Tailored), Verdict::Failed);
    assert_eq!(
        linted.form(Form::Projection).failed.as_deref(),
        Some(why.as_str())
    );
    assert!(linted.form(Form::Tailored).failed.is_some());
}

/// The tailored verdict is about exactly what `project --provider` sends (`tailor_tool`),
/// for every profile and sample, recursive ones included, in both modes.
#[test]
fn the_tailored_form_is_what_project_provider_sends() {
    let mut seen = 0;
    for entry in std::fs::read_dir(sample("")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        let manifest = load_path(&path, None).unwrap();
        for options in [Options::inline(), Options::flat()] {
            let projections: Vec<Result<schemalens::Projection, String>> = manifest
                .tools
                .iter()
                .map(|t| project_tool(t, &options).map_err(|e| e.to_string()))
                .collect();
            let forms: Vec<lint::report::ToolForms<'_>> = manifest
                .tools
                .iter()
                .zip(&projections)
                .map(|(t, p)| lint::report::ToolForms {
                    name: Some(&t.name),
                    tool: t,
                    options: &options,
                    projection: p.as_ref().map_err(String::as_str),
                })
                .collect();
            for profile in Profile::ALL {
                let linted = lint::report::lint_forms(profile, &forms);
                let sent: Vec<_> = manifest
                    .tools
                    .iter()
                    .map(|t| schemalens::tailor_tool(t, &options, profile).ok())
                    .collect();
                let subjects: Vec<Subject<'_>> = manifest
                    .tools
                    .iter()
                    .zip(&sent)
                    .filter_map(|(t, x)| {
                        x.as_ref().map(|x| Subject {
                            name: Some(&t.name),
                            schema: &x.projection.schema,
                        })
                    })
                    .collect();
                let mut expected = lint::lint_tools(profile, &subjects).into_iter();
                for ((t, x), report) in manifest.tools.iter().zip(&sent).zip(&linted) {
                    let form = report.form(lint::report::Form::Tailored);
                    let context = format!("{} {} {profile}", path.display(), t.name);
                    match x {
                        Some(_) => {
                            // The request-wide rules count the tools the plan sends strict,
                            // which fit together (lint::strict_plan).
                            let mut want: Vec<(String, &str)> = expected
                                .next()
                                .unwrap()
                                .into_iter()
                                .filter(|f| !lint::strict_plan::is_request_rule(profile, f.rule))
                                .map(|f| (f.pointer, f.rule))
                                .collect();
                            let mut got: Vec<(String, &str)> = form
                                .groups
                                .iter()
                                .flat_map(|g| {
                                    g.pointers.iter().map(|p| (p.clone(), g.finding.rule))
                                })
                                .collect();
                            want.sort();
                            got.sort();
                            assert_eq!(got, want, "{context}");
                        }
                        None => assert!(form.failed.is_some(), "{context}"),
                    }
                }
            }
        }
        seen += 1;
    }
    assert!(seen >= 9, "expected the samples, saw {seen}");
}

// ---------------------------------------------------------------------------------------------
// CLI
// ---------------------------------------------------------------------------------------------

fn schemalens() -> Command {
    Command::cargo_bin("schemalens").unwrap()
}

fn temp_schema(value: &Value) -> tempfile::NamedTempFile {
    let file = tempfile::Builder::new().suffix(".json").tempfile().unwrap();
    std::fs::write(file.path(), value.to_string()).unwrap();
    file
}

/// The answer comes first: one line per tool and provider with the three verdicts, before any
/// finding; the exit code follows the tailored schema unless --fail-on says otherwise.
#[test]
fn cli_answers_first_and_exits_on_the_tailored_verdict() {
    let out = schemalens()
        .args(["lint", "--provider", "openai-strict,gemini"])
        .arg(sample("nested-union-pydantic.json"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].ends_with("samples/nested-union-pydantic.json: flat mode"),
        "{text}"
    );
    assert_eq!(
        lines[2].split_whitespace().collect::<Vec<_>>(),
        ["tool", "provider", "original", "projection", "tailored"]
    );
    assert_eq!(
        lines[3].split_whitespace().collect::<Vec<_>>(),
        [
            "UserOp",
            "openai-strict",
            "rejected",
            "rejected",
            "accepted",
            "(adapter)"
        ]
    );
    assert_eq!(
        lines[4].split_whitespace().collect::<Vec<_>>(),
        ["gemini", "rejected", "rejected", "accepted"]
    );
    assert!(
        lines[6].starts_with("Every tool's tailored schema passes"),
        "{text}"
    );
    // Then why: the provider's own words, each rule once with its places.
    let details = text
        .find("== UserOp · openai-strict")
        .expect("details follow");
    assert!(details > text.find("Every tool's").unwrap());
    assert!(text.contains("    error oneof  2 places\n"), "{text}");
    assert!(text.contains("          #/properties/op/oneOf\n"), "{text}");
    assert!(
        text.contains("provider: In context=('$defs', 'CreateUser', 'properties', 'payload'), 'oneOf' is not permitted."),
        "{text}"
    );
    assert!(
        text.contains("payload adapter: null-for-absent at #/properties/op"),
        "{text}"
    );
    // What tailoring fixes in the projection is named, not listed again (the tailored schema
    // is accepted); --all lists it.
    assert!(
        text.contains("  projection  rejected: 3 errors, 0 warnings\n    required-all ×3 (tailoring fixes them)\n"),
        "{text}"
    );

    for (form, code) in [("original", 1), ("projection", 1), ("tailored", 0)] {
        schemalens()
            .args([
                "lint",
                "--provider",
                "openai-strict,gemini",
                "--fail-on",
                form,
            ])
            .arg(sample("nested-union-pydantic.json"))
            .assert()
            .code(code);
    }
}

#[test]
fn cli_exits_1_when_the_tailored_schema_is_still_rejected() {
    // An object that lists its values (`enum`): OpenAI strict wants every property required,
    // and sending null for an absent one would make a value the enum does not list.
    let file = temp_schema(&json!({
        "type": "object",
        "properties": {"choice": {
            "type": "object",
            "properties": {"a": {"type": "string"}},
            "enum": [{"a": "x"}, {}]
        }},
        "required": ["choice"]
    }));
    let out = schemalens()
        .args(["lint", "--provider", "openai-strict"])
        .arg(file.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("rejected    rejected    rejected"), "{text}");
    assert!(
        text.contains("1 of 1 tool/provider pairs are still rejected after tailoring"),
        "{text}"
    );
    assert!(
        text.contains("not tailored: #/properties/choice/required"),
        "{text}"
    );
    assert!(text.contains("error required-all"), "{text}");
}

#[test]
fn cli_exits_0_when_every_provider_takes_the_tailored_schema() {
    schemalens()
        .args(["lint", "--provider", "ollama,anthropic,bedrock,mcp"])
        .arg(sample("nested-union-pydantic.json"))
        .assert()
        .code(0);
}

#[test]
fn cli_json_has_the_summary_three_forms_and_the_ollama_view() {
    let out = schemalens()
        .args([
            "lint",
            "--format",
            "json",
            "--provider",
            "ollama",
            "--provider",
            "gemini",
        ])
        .arg(sample("nested-union-pydantic.json"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["providers"], json!(["ollama", "gemini"]));
    assert_eq!(doc["mode"], "flat");
    assert_eq!(doc["fail_on"], "tailored");
    assert_eq!(
        doc["summary"],
        json!([
            {"tool": "UserOp", "provider": "ollama", "original": "rejected",
             "projection": "accepted", "tailored": "accepted", "adapter": false},
            {"tool": "UserOp", "provider": "gemini", "original": "rejected",
             "projection": "rejected", "tailored": "accepted", "adapter": false}
        ])
    );
    assert_eq!(
        doc["accepted"],
        json!({"original": false, "projection": false, "tailored": true})
    );
    assert_eq!(doc["projection_has_errors"], true);
    let profiles = &doc["tools"][0]["profiles"];
    assert_eq!(profiles[0]["profile"], "ollama");
    assert_eq!(profiles[0]["original"]["verdict"], "rejected");
    assert_eq!(profiles[0]["original"]["errors"], 1);
    assert_eq!(profiles[0]["projection"]["errors"], 0);
    assert_eq!(
        profiles[0]["ollama"]["original"]["sees"]["properties"]["op"],
        json!({})
    );
    assert_eq!(profiles[0]["ollama"]["projection"]["rejected"], false);
    let first = &profiles[1]["original"]["groups"][0];
    for key in [
        "profile",
        "severity",
        "rule",
        "pointer",
        "message",
        "provider_message",
        "confirmed",
        "origins",
        "copies",
        "pointers",
    ] {
        assert!(first.get(key).is_some(), "missing {key} in {first}");
    }
    assert_eq!(first["origins"], json!([first["pointer"]]));
    // Gemini's projection: the merged union's `additionalProperties` comes from the union and
    // its alternatives' definitions (the `$ref`s that brought them in are left out).
    let merged = &profiles[1]["projection"]["groups"][1];
    assert_eq!(merged["pointer"], "/properties/op");
    assert_eq!(
        merged["origins"],
        json!(["/$defs/CreateUser", "/$defs/DeleteUser", "/properties/op"])
    );
    assert_eq!(profiles[1]["tailored"]["verdict"], "accepted");
    assert_eq!(profiles[1]["tailored"]["unresolved"], json!([]));
}

/// A 4 KB document whose `$ref`s inline into a projection with thousands of copies: the
/// output follows the original's size, with the copies counted (and listed with --all).
#[test]
fn cli_output_follows_the_original_not_its_inlined_copies() {
    let json_len = |schema: &Value, all: bool| {
        let file = temp_schema(schema);
        let mut cmd = schemalens();
        // The projection's findings decide: tailoring makes this document acceptable.
        cmd.args([
            "lint",
            "--provider",
            "all",
            "--format",
            "json",
            "--fail-on",
            "projection",
        ]);
        if all {
            cmd.arg("--all");
        }
        let out = cmd.arg(file.path()).output().unwrap();
        assert_eq!(out.status.code(), Some(1));
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        (out.stdout.len(), doc)
    };
    // One more level: four times the copies, a sixth more definitions.
    let (small, _) = json_len(&ref_fan(4, 5), false);
    let (large, doc) = json_len(&ref_fan(4, 6), false);
    assert!(
        large < small * 2,
        "{large} bytes for 6 levels vs {small} for 5: the output grows with the copies"
    );
    let strict = &doc["tools"][0]["profiles"][0];
    assert_eq!(strict["profile"], "openai-strict");
    let extra = strict["projection"]["groups"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["rule"] == "type-required")
        .unwrap();
    assert_eq!(extra["copies"], 1024);
    assert_eq!(extra["origins"], json!(["/$defs/Level5/properties/extra"]));
    assert_eq!(extra["pointers"].as_array().unwrap().len(), 20);
    assert_eq!(extra["pointers_omitted"], 1004);
    let (_, all) = json_len(&ref_fan(4, 6), true);
    let listed = all["tools"][0]["profiles"][0]["projection"]["groups"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["rule"] == "type-required")
        .unwrap()["pointers"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(listed, 1024);
}

#[test]
fn cli_text_folds_long_lists() {
    let file = temp_schema(&ref_fan(4, 4));
    let text = |all: bool| {
        let mut cmd = schemalens();
        cmd.args(["lint", "--provider", "openai-strict"]);
        if all {
            cmd.arg("--all");
        }
        String::from_utf8(cmd.arg(file.path()).output().unwrap().stdout).unwrap()
    };
    let folded = text(false);
    assert!(
        folded.contains("× 64 inlined copies  (from #/$defs/Level3/properties/extra)"),
        "{folded}"
    );
    assert!(folded.contains("more (--all lists them)"), "{folded}");
    let all = text(true);
    assert!(!all.contains("more (--all lists them)"), "{all}");
    assert!(all.lines().count() > folded.lines().count());
}

/// Servers generated from one OpenAPI document give every tool the same `$defs`: what is wrong
/// in a definition is listed for the first tool that has it, and counted for the others.
#[test]
fn cli_lists_findings_in_shared_definitions_once() {
    let tool = |name: &str, shared: Value| {
        json!({"name": name, "inputSchema": {
            "type": "object",
            "properties": {"v": {"$ref": "#/$defs/Shared"}},
            "required": ["v"], "additionalProperties": false,
            "$defs": {"Shared": shared}
        }})
    };
    let union = json!({"oneOf": [{"type": "string"}, {"type": "integer"}]});
    let other = json!({"oneOf": [{"type": "string"}, {"type": "boolean"}]});
    let file = temp_schema(&json!({"tools": [
        tool("first", union.clone()),
        tool("second", union),
        tool("third", other),
    ]}));
    let run = |all: bool| {
        let mut cmd = schemalens();
        cmd.args(["lint", "--provider", "openai-strict"]);
        if all {
            cmd.arg("--all");
        }
        String::from_utf8(cmd.arg(file.path()).output().unwrap().stdout).unwrap()
    };
    let section = |text: &str, name: &str| -> String {
        let start = text
            .find(&format!("== {name} · "))
            .unwrap_or_else(|| panic!("no section for {name}: {text}"));
        let rest = &text[start + 3..];
        rest[..rest.find("\n== ").unwrap_or(rest.len())].to_owned()
    };
    let text = run(false);
    assert!(
        section(&text, "first").contains("#/$defs/Shared/oneOf"),
        "{text}"
    );
    let second = section(&text, "second");
    assert!(!second.contains("#/$defs/Shared/oneOf"), "{second}");
    assert!(
        second.contains("and 1 finding in 1 definition identical to first's, listed there (#/$defs/Shared; --all repeats them)"),
        "{second}"
    );
    // A definition of the same name that says something else is listed.
    assert!(
        section(&text, "third").contains("#/$defs/Shared/oneOf"),
        "{text}"
    );
    let all = run(true);
    assert!(
        section(&all, "second").contains("#/$defs/Shared/oneOf"),
        "{all}"
    );
}

/// A tool that cannot be projected does not hide the others.
#[test]
fn cli_reports_a_tool_that_cannot_be_projected_and_exits_2() {
    let bomb = ref_bomb();
    let manifest = json!({"tools": [
        {"name": "bomb", "inputSchema": {"type": "object", "properties": {"x": {"$ref": "#/$defs/L0"}}, "$defs": bomb}},
        {"name": "fine", "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"], "additionalProperties": false}}
    ]});
    let file = temp_schema(&manifest);
    let out = schemalens()
        .args(["lint", "--provider", "openai-strict"])
        .arg(file.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let text = String::from_utf8(out.stdout).unwrap();
    let row = |name: &str| {
        text.lines()
            .find(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("no row for {name}: {text}"))
            .split_whitespace()
            .collect::<Vec<_>>()
    };
    assert_eq!(row("bomb")[2..], ["rejected", "failed", "failed"]);
    assert_eq!(row("fine")[2..], ["accepted", "accepted", "accepted"]);
    assert!(text.contains("projection failed:"), "{text}");
}

#[test]
fn cli_inline_mode_is_linted_as_asked() {
    let out = schemalens()
        .args([
            "lint",
            "--mode",
            "inline",
            "--provider",
            "ollama",
            "--format",
            "json",
        ])
        .arg(sample("nested-union-pydantic.json"))
        .output()
        .unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["mode"], "inline");
    // Inline mode keeps the `const` tags Ollama drops; its tailoring turns them into `enum`s.
    assert_eq!(doc["summary"][0]["projection"], "rejected");
    assert_eq!(doc["summary"][0]["tailored"], "accepted");
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn cli_defaults_follow_the_input() {
    let providers = |file: &str| -> Value {
        let out = schemalens()
            .args(["lint", "--format", "json"])
            .arg(sample(file))
            .output()
            .unwrap();
        serde_json::from_slice::<Value>(&out.stdout).unwrap()["providers"].clone()
    };
    assert_eq!(
        providers("nested-union-pydantic.json"),
        json!(["openai-strict", "gemini", "anthropic", "ollama"])
    );
    assert_eq!(providers("openai-tools.json"), json!(["openai-strict"]));
    assert_eq!(providers("anthropic-tools.json"), json!(["anthropic"]));
    assert_eq!(
        providers("mcp-tools-list.json"),
        json!(["mcp", "openai-strict", "gemini", "anthropic", "ollama"])
    );
}

#[test]
fn cli_all_and_tool_selection() {
    let out = schemalens()
        .args([
            "lint",
            "--provider",
            "all",
            "--tool",
            "search",
            "--format",
            "json",
        ])
        .arg(sample("mcp-tools-list.json"))
        .output()
        .unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        doc["providers"].as_array().unwrap().len(),
        Profile::ALL.len()
    );
    let tools = doc["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 1);
    assert_eq!(tools[0]["tool"], "search");
}

#[test]
fn cli_passes_a_clean_schema() {
    let file = temp_schema(&json!({
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
        "additionalProperties": false
    }));
    schemalens()
        .args(["lint", "--provider", "openai-strict,anthropic,ollama"])
        .arg(file.path())
        .assert()
        .code(0);
}

#[test]
fn cli_bad_input_exits_2() {
    schemalens()
        .args(["lint", "--provider", "openai-strcit"])
        .arg(sample("nested-union-pydantic.json"))
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "unknown provider \"openai-strcit\"",
        ));
    schemalens()
        .args(["lint", "does/not/exist.json"])
        .assert()
        .code(2);
    let file = tempfile::Builder::new().suffix(".json").tempfile().unwrap();
    std::fs::write(file.path(), "{not json").unwrap();
    schemalens().arg("lint").arg(file.path()).assert().code(2);
    schemalens()
        .args(["lint", "--tool", "nope"])
        .arg(sample("mcp-tools-list.json"))
        .assert()
        .code(2);
}

#[test]
fn cli_help_documents_defaults_and_exit_codes() {
    let out = schemalens().args(["lint", "--help"]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    for needle in [
        "Default providers",
        "Exit codes",
        "gemini-jsonschema",
        "[unconfirmed]",
        "--fail-on",
        "tailored",
        "×N copies",
    ] {
        assert!(text.contains(needle), "{needle} missing from:\n{text}");
    }
}

/// `$schema` and `$id` are taken at the root only, `$comment` nowhere (OpenAI's Java SDK): an
/// error below the root, nothing at the root; `project --provider openai-strict` drops them all.
#[test]
fn openai_strict_takes_schema_and_id_at_the_root_only() {
    let mut root = strict(json!({"name": {"type": "string"}}));
    root["$schema"] = json!("https://json-schema.org/draft/2020-12/schema");
    root["$id"] = json!("urn:example:tool");
    assert_eq!(shape(Profile::OpenAiStrict, &root), []);
    let mut nested = root.clone();
    nested["properties"]["name"]["$id"] = json!("urn:example:name");
    nested["properties"]["name"]["$comment"] = json!("from a shared file");
    assert_eq!(
        shape(Profile::OpenAiStrict, &nested),
        [
            row(
                Severity::Error,
                "comment-keyword",
                "/properties/name",
                "$comment"
            ),
            row(
                Severity::Error,
                "root-only-keyword",
                "/properties/name",
                "$id"
            ),
        ]
    );
    let tailored =
        schemalens::tailor_tool(&tool_of(&nested), &Options::flat(), Profile::OpenAiStrict)
            .unwrap();
    assert_eq!(
        tailored.projection.schema,
        strict(json!({"name": {"type": "string"}}))
    );
    assert!(tailored.unresolved.is_empty());
}

/// A tool without arguments (`properties: {}`): Gemini clients send it with no `parameters`,
/// so the empty root is not refused (nested, it is); OpenAI strict wants `required: []` on it.
#[test]
fn a_tool_without_arguments_is_judged_as_providers_receive_it() {
    let no_arguments = object(json!({}));
    let rules = |profile, schema: &Value| -> Vec<&'static str> {
        shape(profile, schema).into_iter().map(|r| r.1).collect()
    };
    assert!(
        !rules(Profile::Gemini, &no_arguments).contains(&"object-properties"),
        "{:?}",
        rules(Profile::Gemini, &no_arguments)
    );
    let with_required = strict(json!({}));
    assert!(!rules(Profile::OpenAiStrict, &with_required).contains(&"required-missing"));
    let mut without = with_required;
    without.as_object_mut().unwrap().remove("required");
    assert_eq!(rules(Profile::OpenAiStrict, &without), ["required-missing"]);
}
