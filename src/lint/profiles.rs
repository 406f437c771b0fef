//! One table per provider profile. Facts and error strings come from
//! `shared/research/providers.md` (its sources are repeated in `source`); a rule the notes mark
//! unconfirmed or second-hand has `confirmed: false`.
//!
//! Order matters in two ways: findings about the same keyword at the same place are reported by
//! the first rule that finds them (so a specific rule, listed first, wins over a catch-all list
//! of allowed keywords), and rules of equal place are shown in table order.

use super::rule::{
    Check, Counted, DropClass, Limit, LintRule, NamePattern, RootTypeCase, Severity, Where,
};
use crate::schema::Kind;

use Severity::{Error, Info, Warn};

const fn rule(
    id: &'static str,
    severity: Severity,
    applies: Check,
    message: &'static str,
    provider_message: Option<&'static str>,
    confirmed: bool,
    source: &'static str,
) -> LintRule {
    LintRule {
        id,
        severity,
        applies,
        message,
        provider_message,
        confirmed,
        source,
    }
}

const fn keywords(names: &'static [&'static str], at: Where) -> Check {
    Check::Keywords { names, at }
}

// ---------------------------------------------------------------------------------------------
// Shared data
// ---------------------------------------------------------------------------------------------

const OPENAI_NAME: NamePattern = NamePattern {
    extra: "_-",
    letter_or_underscore_first: false,
    max: 64,
    shown: "^[a-zA-Z0-9_-]{1,64}$",
};

const ANTHROPIC_NAME: NamePattern = NamePattern {
    extra: "_-",
    letter_or_underscore_first: false,
    max: 128,
    shown: "^[a-zA-Z0-9_-]{1,128}$",
};

const GEMINI_NAME: NamePattern = NamePattern {
    extra: "_.:-",
    letter_or_underscore_first: true,
    max: 128,
    shown: "^[a-zA-Z_][a-zA-Z0-9_.:-]{0,127}$",
};

const GEMINI_PARAMETER_NAME: NamePattern = NamePattern {
    extra: "_",
    letter_or_underscore_first: true,
    max: 64,
    shown: "^[a-zA-Z_][a-zA-Z0-9_]{0,63}$",
};

const BEDROCK_NAME: NamePattern = NamePattern {
    extra: "_-",
    letter_or_underscore_first: false,
    max: 64,
    shown: "[a-zA-Z0-9_-]+, 1 to 64 characters",
};

const MCP_NAME: NamePattern = NamePattern {
    extra: "_-.",
    letter_or_underscore_first: false,
    max: 128,
    shown: "1 to 128 of A-Z a-z 0-9 _ - .",
};

/// OpenAI's documented strict-mode keywords, plus annotations it is known to accept.
const OPENAI_STRICT_KEYWORDS: &[&str] = &[
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
    "definitions",
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
    // At the root only (`root-only-keyword` reports them below it): OpenAI's Java SDK
    // allows them there before sending, and writes `$schema` itself.
    "$schema",
    "$id",
];

/// The keywords Anthropic's strict mode is reported to support (providers.md §1c, second-hand),
/// with the annotations: what tailoring keeps, and what `undocumented-keyword` does not report.
pub(crate) const ANTHROPIC_STRICT_KEYWORDS: &[&str] = &[
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
    "title",
    "description",
    "default",
    "examples",
    "$comment",
    "$schema",
];

const OPENAI_TYPES: &[&str] = &[
    "string", "number", "integer", "boolean", "object", "array", "null",
];

const OPENAI_FORMATS: &[&str] = &[
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

/// The fields of python-genai's `types.Schema`, as JSON keys.
const GEMINI_SCHEMA_FIELDS: &[&str] = &[
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
    "additionalProperties",
    "$ref",
    "$defs",
];

const GEMINI_TYPES: &[&str] = &[
    "string", "number", "integer", "boolean", "array", "object", "null", "STRING", "NUMBER",
    "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL",
];

/// Gemini's documented JSON Schema subset (for `responseJsonSchema`).
const GEMINI_JSON_SCHEMA_KEYWORDS: &[&str] = &[
    "$id",
    "$defs",
    "$ref",
    "$anchor",
    "type",
    "format",
    "title",
    "description",
    "enum",
    "items",
    "prefixItems",
    "minItems",
    "maxItems",
    "minimum",
    "maximum",
    "anyOf",
    "oneOf",
    "properties",
    "additionalProperties",
    "required",
    "propertyOrdering",
];

const ANTHROPIC_STRICT_FORMATS: &[&str] = &[
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

const PRIMITIVES: &[Kind] = &[Kind::String, Kind::Number, Kind::Boolean, Kind::Null];

// Sources, written once.
const SRC_OPENAI_DOC: &str = "OpenAI Structured Outputs, supported schemas (https://developers.openai.com/api/docs/guides/structured-outputs/#supported-schemas)";
const SRC_OPENAI_DEPTH: &str = "OpenAI Structured Outputs, supported schemas (10 levels of nesting); counting: openai/openai-java openai-java-core/src/main/kotlin/com/openai/core/JsonSchemaValidator.kt, https://github.com/openai/openai-java/issues/732";
const SRC_OPENAI_SDK_KEYWORDS: &str = "openai/openai-java openai-java-core/src/main/kotlin/com/openai/core/JsonSchemaValidator.kt (ALLOWED_KEYWORDS_ROOT_SCHEMA_ONLY: `$schema`, `$id`, `$defs`; every keyword outside its lists is refused)";
const SRC_OPENAI_NAME: &str =
    "openai/openai-python src/openai/types/shared_params/function_definition.py (function name)";
const SRC_PYDANTIC_AI_OPENAI: &str =
    "pydantic/pydantic-ai pydantic_ai_slim/pydantic_ai/profiles/openai.py@4fda3898";
const SRC_GEMINI_SCHEMA: &str =
    "googleapis/python-genai google/genai/types.py (Schema, FunctionDeclaration)@66806718";
const SRC_GEMINI_RESPONSE_JSON_SCHEMA: &str = "GenerationConfig.responseJsonSchema docstring (https://pub.dev/documentation/googleapis/15.0.0/aiplatform_v1/GoogleCloudAiplatformV1GenerationConfig/responseJsonSchema.html)";
const SRC_ANTHROPIC_STRICT_2ND: &str = "Anthropic structured-outputs JSON Schema limitations, via LangSchema.Converter.Anthropic docs (second-hand)";
const SRC_ANTHROPIC_SDK: &str =
    "anthropics/anthropic-sdk-python src/anthropic/lib/_parse/_transform.py@00f1c336";
const SRC_OLLAMA: &str = "ollama/ollama api/types.go@fb307609; https://github.com/ollama/ollama/issues/11444, https://github.com/ollama/ollama/issues/13472";
const SRC_BEDROCK_STRICT: &str =
    "pydantic/pydantic-ai pydantic_ai_slim/pydantic_ai/providers/bedrock.py (verified 2026-05-19)";

// ---------------------------------------------------------------------------------------------
// OpenAI
// ---------------------------------------------------------------------------------------------

const OPENAI_ROOT_TYPE: LintRule = rule(
    "root-type",
    Error,
    Check::RootType(RootTypeCase::Any),
    "The parameters must be an object schema (`type: \"object\"` at the root); here the root `type` is {detail}.",
    Some("schema must be a JSON Schema of 'type: \"object\"', got 'type: {detail}'."),
    true,
    "OpenAI Structured Outputs (root must be an object); https://github.com/chatanywhere/GPT_API_free/issues/403",
);

const OPENAI_ROOT_UNION: LintRule = rule(
    "root-union",
    Error,
    keywords(&["anyOf", "oneOf", "allOf", "enum", "not"], Where::Root),
    "`{keyword}` at the root: OpenAI wants one plain object at the top, not a union (flat mode merges a discriminated union into one object).",
    Some(
        "schema must have type 'object' and not have 'oneOf'/'anyOf'/'allOf'/'enum'/'not' at the top level.",
    ),
    true,
    "OpenAI Structured Outputs (root must not use anyOf); https://github.com/nspady/google-calendar-mcp/issues/39",
);

const OPENAI_TOOL_NAME: LintRule = rule(
    "tool-name",
    Error,
    Check::ToolName(OPENAI_NAME),
    "Function name `{item}` {detail}; OpenAI accepts letters, digits, `_` and `-`, 1 to 64 characters.",
    None,
    true,
    SRC_OPENAI_NAME,
);

static OPENAI_STRICT: &[LintRule] = &[
    OPENAI_ROOT_TYPE,
    OPENAI_ROOT_UNION,
    rule(
        "oneof",
        Error,
        keywords(&["oneOf"], Where::Anywhere),
        "`oneOf` is refused in strict mode at any depth; `anyOf` is accepted (every projection mode rewrites it).",
        Some("In context={context}, 'oneOf' is not permitted."),
        true,
        "https://github.com/livekit/agents/issues/5302, https://github.com/openai/openai-node/issues/1709",
    ),
    rule(
        "unsupported-keyword",
        Error,
        keywords(
            &[
                "allOf",
                "not",
                "dependentRequired",
                "dependentSchemas",
                "if",
                "then",
                "else",
            ],
            Where::Anywhere,
        ),
        "`{keyword}` is on OpenAI's list of keywords strict mode does not support.",
        Some("In context={context}, '{keyword}' is not permitted."),
        true,
        "OpenAI Structured Outputs (unsupported keywords); https://github.com/makenotion/notion-mcp-server/issues/117",
    ),
    rule(
        "default",
        Error,
        keywords(&["default"], Where::Anywhere),
        "`default` is refused in strict mode (openai-python's helper removes only `default: null`).",
        Some("In context={context}, 'default' is not permitted."),
        true,
        "https://github.com/567-labs/instructor/issues/961",
    ),
    rule(
        "property-names",
        Error,
        keywords(&["propertyNames"], Where::Anywhere),
        "`propertyNames` is refused in strict mode (Zod records and many MCP servers emit it).",
        Some("In context={context}, 'propertyNames' is not permitted."),
        true,
        "https://github.com/can1357/oh-my-pi/issues/209",
    ),
    rule(
        "ref-siblings",
        Error,
        Check::RefSiblings {
            allowed: &["$defs", "definitions"],
            dollar_prefixed: false,
        },
        "`$ref` has sibling keywords {detail}; strict mode accepts only a bare `$ref` (Pydantic 2.9+ and Zod `reused: \"ref\"` write siblings).",
        Some("$ref cannot have keywords {detail}"),
        true,
        "https://github.com/camel-ai/camel/issues/3001, https://github.com/virattt/dexter/pull/280",
    ),
    rule(
        "format",
        Error,
        Check::Values {
            keyword: "format",
            allowed: OPENAI_FORMATS,
        },
        "`format: \"{detail}\"` is not one of the nine formats strict mode knows (date-time, time, date, duration, email, hostname, ipv4, ipv6, uuid).",
        Some("In context={context}, '{detail}' is not a valid format."),
        true,
        "OpenAI Structured Outputs (supported formats); https://github.com/can1357/oh-my-pi/issues/206",
    ),
    rule(
        "pattern-lookaround",
        Error,
        Check::Lookaround,
        "`pattern` uses a lookahead or lookbehind, which strict mode's regex engine refuses: {detail}",
        Some(
            "Invalid JSON schema: regex lookaround is not supported. Found at {jsonpath}.pattern.",
        ),
        true,
        "https://github.com/anomalyco/opencode/issues/32073, https://github.com/vercel/ai/pull/21037",
    ),
    rule(
        "additional-properties",
        Error,
        Check::Closed,
        "Strict mode needs `additionalProperties: false` on every object schema; {detail}.",
        Some(
            "Invalid schema for function '{tool}': In context={context}, 'additionalProperties' is required to be supplied and to be false.",
        ),
        true,
        "OpenAI Structured Outputs; https://github.com/xemantic/xemantic-ai-tool-schema/issues/37",
    ),
    rule(
        "required-all",
        Error,
        Check::AllRequired,
        "`{detail}` is optional here; strict mode needs every property listed in `required` (strict schemas express optional as required-and-nullable).",
        Some(
            "Invalid schema for function '{tool}': In context={context}, 'required' is required to be supplied and to be an array including every key in properties. Missing '{detail}'.",
        ),
        true,
        "OpenAI Structured Outputs; https://github.com/langchain-ai/langmem/issues/113",
    ),
    rule(
        "required-missing",
        Error,
        Check::RequiredAbsent,
        "An object with no properties still needs `required` in strict mode: write `required: []` (a tool without arguments, `{\"type\": \"object\", \"properties\": {}}`, is the usual case).",
        Some(
            "Invalid schema for function '{tool}': In context={context}, 'required' is required to be supplied and to be an array including every key in properties.",
        ),
        true,
        // OpenAI's own Java SDK checks schemas before sending them, and says why: the API
        // "will report an error relating to a missing or empty `required` array". openai-python
        // writes `required` on every object with `properties`, an empty one included. The
        // message is the reported one up to where it would name a missing key.
        "openai/openai-java JsonSchemaValidator.kt (validateObjectSchema); openai/openai-python lib/_pydantic.py (_ensure_strict_json_schema); https://github.com/github/github-mcp-server/pull/39",
    ),
    rule(
        "required-undeclared",
        Error,
        Check::RequiredDeclared,
        "`required` lists `{detail}`, which is not one of the properties.",
        Some("Extra required key '{detail}' supplied."),
        false,
        "UnitVectorY-Labs/jsonschemaprofiles fixture required_extra_keys.json (wording unconfirmed)",
    ),
    rule(
        "type-required",
        Error,
        // `oneOf`, `allOf` and `not` count as stand-ins only because their own rules above
        // already report the node: one fix is not asked for twice.
        Check::NodeType {
            stand_ins: &["type", "anyOf", "$ref", "enum", "oneOf", "allOf", "not"],
        },
        "This schema has none of `type`, `anyOf`, `$ref`, `enum` (here {detail}); strict mode needs one on every subschema. `{}`, a description alone, `const` without `type`, a recursion cut, Pydantic `Any` and Zod `z.unknown()` look like this.",
        Some(
            "Invalid schema for function '{tool}': In context={context}, schema must have a 'type' key.",
        ),
        true,
        "https://github.com/can1357/oh-my-pi/issues/211; openai/openai-java JsonSchemaValidator.kt (\"Expected exactly one of 'type' or 'anyOf' or '$ref'\")",
    ),
    rule(
        "type-name",
        Error,
        Check::Values {
            keyword: "type",
            allowed: OPENAI_TYPES,
        },
        "`type: \"{detail}\"` is not one of the types strict mode supports (string, number, integer, boolean, object, array, null).",
        None,
        true,
        SRC_OPENAI_DOC,
    ),
    rule(
        "free-form-object",
        Error,
        Check::ObjectProperties,
        "An object schema without `properties` (a free-form map, Pydantic `dict`, Zod `z.record()`) cannot be expressed in strict mode: every key must be declared.",
        Some("In context={context}, object schema missing properties."),
        true,
        "https://github.com/spring-projects/spring-ai/issues/4776",
    ),
    rule(
        "array-items",
        Error,
        Check::ArrayItems,
        "An array schema needs `items` in strict mode; {detail}.",
        Some("In context={context}, array schema missing items."),
        true,
        "https://github.com/sigoden/aichat/pull/1049, https://github.com/LionSR/TeXRA/pull/2323",
    ),
    rule(
        "array-items-typed",
        Error,
        Check::ArrayItemsTyped,
        "`items` is {detail}, which says nothing about the elements; strict mode needs a typed item schema.",
        None,
        false,
        SRC_PYDANTIC_AI_OPENAI,
    ),
    rule(
        "discriminator",
        Warn,
        keywords(&["discriminator"], Where::Anywhere),
        "OpenAI does not document the OpenAPI `discriminator` keyword; pydantic-ai, mellea and livekit strip it before sending (every projection mode does too).",
        None,
        false,
        SRC_PYDANTIC_AI_OPENAI,
    ),
    // OpenAI's pages say nothing about these; its Java SDK, which checks a schema before
    // sending it, allows `$schema` and `$id` at the root only and `$comment` nowhere (every
    // keyword outside its lists is refused). No report says the API takes them where the SDK
    // refuses, so lint agrees with the SDK (and with the independent checker in `tests/`);
    // tailoring drops them.
    rule(
        "comment-keyword",
        Error,
        keywords(&["$comment"], Where::Anywhere),
        "`$comment` is on no list of OpenAI's, and OpenAI's own Java SDK refuses it before sending; drop it (`project --provider openai-strict` does).",
        None,
        false,
        SRC_OPENAI_SDK_KEYWORDS,
    ),
    rule(
        "root-only-keyword",
        Error,
        keywords(&["$schema", "$id"], Where::Nested),
        "`{keyword}` below the root: OpenAI's own Java SDK allows it at the root only and refuses it here before sending (a sub-schema copied from another document carries one); drop it (`project --provider openai-strict` does).",
        None,
        false,
        SRC_OPENAI_SDK_KEYWORDS,
    ),
    rule(
        "undocumented-keyword",
        Warn,
        Check::KeywordsOutside {
            allowed: OPENAI_STRICT_KEYWORDS,
            at: Where::Anywhere,
        },
        "`{keyword}` is not on OpenAI's list of supported keywords; it may be refused or ignored (fine-tuned models refuse length, range and size bounds).",
        None,
        false,
        SRC_OPENAI_DOC,
    ),
    rule(
        "limit-properties",
        Error,
        Check::Limit(Limit::Properties(5000)),
        "{detail} properties in this tool's schema (every `properties` entry, definitions included); the limit is 5,000.",
        None,
        true,
        SRC_OPENAI_DOC,
    ),
    rule(
        "limit-depth",
        Error,
        Check::Limit(Limit::Depth(10)),
        "{detail}; the limit is 10. OpenAI documents the limit, not what a level is; counted here as the most levels either known reading gives: every subschema (a property, `items`, an `anyOf` alternative, a definition, `additionalProperties: false`) one level below its parent, as OpenAI's Java SDK counts, and a `$ref`'s target read where it is used, a recursive `$ref` followed until it reaches a definition already entered on the path (recursion is allowed, but each pass through it nests).",
        None,
        false,
        SRC_OPENAI_DEPTH,
    ),
    rule(
        "limit-enum-values",
        Error,
        Check::Limit(Limit::EnumValues(1000)),
        "{detail} enum values in this tool's schema; the limit is 1,000.",
        None,
        true,
        SRC_OPENAI_DOC,
    ),
    rule(
        "limit-string-length",
        Error,
        Check::Limit(Limit::StringChars(120_000)),
        "{detail} characters of property names, definition names, enum and const values in this tool's schema; the limit is 120,000 (a value that is not a string counted as its JSON text).",
        None,
        true,
        SRC_OPENAI_DOC,
    ),
    rule(
        "limit-large-enum",
        Error,
        Check::Limit(Limit::LargeStringEnum {
            values: 250,
            chars: 15_000,
        }),
        "{detail}; a string enum with more than 250 values may hold at most 15,000 characters.",
        None,
        true,
        SRC_OPENAI_DOC,
    ),
    OPENAI_TOOL_NAME,
];

static OPENAI: &[LintRule] = &[
    OPENAI_ROOT_TYPE,
    OPENAI_ROOT_UNION,
    rule(
        "oneof-nested",
        Warn,
        keywords(&["oneOf"], Where::Nested),
        "A nested `oneOf` has been reported refused on the Responses API even without strict mode.",
        Some("In context={context}, 'oneOf' is not permitted."),
        false,
        "https://github.com/can1357/oh-my-pi/issues/920",
    ),
    rule(
        "array-items",
        Warn,
        Check::ArrayItems,
        "An array schema without `items` has been reported refused outside strict mode too; {detail}.",
        Some("In context={context}, array schema missing items."),
        false,
        "https://github.com/sigoden/aichat/pull/1049, https://github.com/mark3labs/mcphost/issues/35",
    ),
    OPENAI_TOOL_NAME,
];

// ---------------------------------------------------------------------------------------------
// Gemini
// ---------------------------------------------------------------------------------------------

const GEMINI_TOOL_NAME: LintRule = rule(
    "tool-name",
    Error,
    Check::ToolName(GEMINI_NAME),
    "Function name `{item}` {detail}; Gemini wants a letter or `_` first, then letters, digits, `_`, `.`, `:` or `-`, at most 128 characters (older API versions: 64).",
    None,
    true,
    SRC_GEMINI_SCHEMA,
);

const UNKNOWN_NAME: &str = "Invalid JSON payload received. Unknown name \"{keyword}\" at 'tools[0].function_declarations[{index}].{proto}': Cannot find field.";

static GEMINI: &[LintRule] = &[
    rule(
        "root-type",
        Error,
        Check::RootType(RootTypeCase::Any),
        "`parameters` must describe an object (`type: OBJECT`); here the root `type` is {detail}.",
        Some("functionDeclaration parameters schema should be of type OBJECT"),
        false,
        "https://github.com/BerriAI/litellm/pull/19103",
    ),
    rule(
        "const",
        Error,
        keywords(&["const"], Where::Anywhere),
        "`const` is not a field of Gemini's Schema; a one-value `enum` says the same thing.",
        Some(UNKNOWN_NAME),
        true,
        "https://github.com/zed-industries/zed/issues/44875",
    ),
    rule(
        "oneof",
        Error,
        keywords(&["oneOf"], Where::Anywhere),
        "Gemini's `parameters` refuse `oneOf`; `anyOf` is supported (every projection mode rewrites it).",
        None,
        true,
        "pydantic/pydantic-ai pydantic_ai_slim/pydantic_ai/profiles/google.py@4fda3898 (GoogleOpenAPISchemaTransformer)",
    ),
    rule(
        "type-array",
        Error,
        Check::TypeArray,
        "`type` is a list ({detail}); Gemini's Schema holds one type: use `nullable: true` for a null alternative, `anyOf` otherwise.",
        Some(
            "Invalid JSON payload received. Unknown name \"type\" at 'tools[0].function_declarations[{index}].{proto}': Proto field is not repeating, cannot start list.",
        ),
        true,
        "https://github.com/zed-industries/zed/issues/53919",
    ),
    rule(
        "additional-properties",
        Error,
        keywords(&["additionalProperties"], Where::Anywhere),
        "The Gemini Developer API refuses `additionalProperties` (only Vertex AI takes it; python-genai raises before sending). Leaving it out only makes the schema accept more.",
        Some(UNKNOWN_NAME),
        true,
        "googleapis/python-genai google/genai/_transformers.py (_raise_for_unsupported_mldev_properties); https://github.com/zed-industries/zed/issues/44875",
    ),
    rule(
        "ref-siblings",
        Error,
        Check::RefSiblings {
            allowed: &["description", "default"],
            dollar_prefixed: false,
        },
        "`$ref` has sibling keywords {detail}; Gemini allows only `description` and `default` beside it.",
        Some(
            "$ref '{item}' was set alongside unsupported fields. If a schema node has $ref set, then only description and default can be set alongside it",
        ),
        true,
        "https://github.com/anomalyco/opencode/issues/12295",
    ),
    rule(
        "refs",
        Warn,
        keywords(&["$ref", "$defs"], Where::Anywhere),
        "`{keyword}` in `parameters` has been reported to fail; inline the references (every projection mode does) or send `parametersJsonSchema`.",
        Some("referenced name does not match display_name"),
        false,
        "https://github.com/zendev-sh/goai/pull/39",
    ),
    rule(
        "enum-non-string",
        Error,
        Check::EnumValues {
            kinds: &[Kind::String],
        },
        "Enum value {detail} is not a string; Gemini enums hold strings only (integer tags from Pydantic `IntEnum` or `Literal[1, 2]` are refused).",
        Some(
            "Invalid value at 'tools[0].function_declarations[{index}].{proto}.enum[{item}]' (TYPE_STRING), {detail}",
        ),
        true,
        "https://github.com/microsoft/azure-devops-mcp/issues/139",
    ),
    rule(
        "enum-type",
        Error,
        Check::EnumOnNonString,
        "`enum` on a schema whose type is {detail}; Gemini refuses enums outside `type: STRING` (its SDK documents integer enums written as strings with `format: enum` on an integer or number).",
        Some("function declaration enum only allowed for STRING type"),
        true,
        "https://github.com/anomalyco/opencode/pull/12911, https://github.com/decolua/9router/pull/380",
    ),
    rule(
        "required-undeclared",
        Error,
        Check::RequiredDeclared,
        "`required` lists `{detail}`, which is not one of the properties.",
        Some(
            "* GenerateContentRequest.tools[0].function_declarations[{index}].{proto}.required[{item}]: property is not defined",
        ),
        true,
        "https://github.com/iBUHub/AIStudioToAPI/issues/154",
    ),
    rule(
        "items-tuple",
        Error,
        Check::TupleItems,
        "`items` is a list of {detail} (a draft-07 tuple); Gemini's Schema holds one `items` schema for every element.",
        Some(
            "Invalid JSON payload received. Unknown name \"items\" at 'tools[0].function_declarations[{index}].{proto}': Proto field is not repeating, cannot start list.",
        ),
        false,
        "googleapis/python-genai google/genai/types.py (Schema.items is one Schema)@66806718; wording: the proto decoder's, as observed for a list `type` (https://github.com/zed-industries/zed/issues/53919)",
    ),
    rule(
        "array-items",
        Error,
        Check::ArrayItems,
        "Gemini needs `items` on every array schema; {detail}.",
        Some("items: missing field"),
        true,
        "https://github.com/DEEIX-AI/DEEIX-Chat/issues/546",
    ),
    rule(
        "format",
        Error,
        Check::Values {
            keyword: "format",
            allowed: &["enum", "date-time"],
        },
        "`format: \"{detail}\"`: the Gemini Developer API accepts only `enum` and `date-time`.",
        None,
        true,
        "https://firebase.google.com/docs/reference/js/ai.schemashared",
    ),
    rule(
        "type-name",
        Error,
        Check::Values {
            keyword: "type",
            allowed: GEMINI_TYPES,
        },
        "`type: \"{detail}\"` is not a Gemini type.",
        Some(
            "Invalid value at 'tools[0].function_declarations[{index}].{proto}.type' (type.googleapis.com/google.ai.generativelanguage.v1beta.Type), \"{detail}\"",
        ),
        true,
        "https://github.com/google-gemini/deprecated-generative-ai-js/issues/320",
    ),
    rule(
        "unknown-field",
        Error,
        Check::KeywordsOutside {
            allowed: GEMINI_SCHEMA_FIELDS,
            at: Where::Anywhere,
        },
        "`{keyword}` is not a field of Gemini's Schema (a subset of OpenAPI 3.0), so the request is refused.",
        Some(UNKNOWN_NAME),
        true,
        "https://github.com/zed-industries/zed/issues/44875, https://github.com/openswarm-ai/openswarm/issues/24",
    ),
    // The `parameters` field is the same on the Developer API and on Vertex AI, and a user
    // cannot tell from the schema where it will be sent: what either refuses is an error.
    rule(
        "node-type",
        Error,
        Check::NodeType {
            stand_ins: &["type", "anyOf", "$ref"],
        },
        "This schema has no `type`; Vertex AI refuses such nodes (the same `parameters` field as the Developer API's).",
        Some(
            "Unable to submit request because '{tool}' functionDeclaration '{dotted}' schema didn't specify the schema type field.",
        ),
        true,
        "https://github.com/directus/mcp/issues/8",
    ),
    // Reported with the API's 400 for `gemini-2.0-flash` on v1beta (langchainjs#7935, 2025);
    // nothing says it changed, so it is an error. An empty root is the exception: clients send
    // a tool without parameters with no `parameters` at all (the fix in both reports).
    rule(
        "object-properties",
        Error,
        Check::PropertiesNonEmpty,
        "An object schema without properties (none declared, or `properties: {}` below the root); Gemini refuses it. A tool without parameters is sent with no `parameters` at all.",
        Some(
            "* GenerateContentRequest.tools[0].function_declarations[{index}].{proto}.properties: should be non-empty for OBJECT type",
        ),
        true,
        "https://github.com/langchain-ai/langchainjs/pull/7935, https://github.com/agno-agi/agno/issues/2112",
    ),
    rule(
        "property-name",
        Warn,
        Check::PropertyName(GEMINI_PARAMETER_NAME),
        "Property name `{item}` {detail}; Gemini documents parameter names as a letter or `_`, then letters, digits or `_`, at most 64 characters.",
        None,
        true,
        SRC_GEMINI_SCHEMA,
    ),
    GEMINI_TOOL_NAME,
];

static GEMINI_JSON_SCHEMA: &[LintRule] = &[
    rule(
        "root-type",
        Error,
        Check::RootType(RootTypeCase::Any),
        "`parametersJsonSchema` must describe an object; here the root `type` is {detail}.",
        None,
        true,
        SRC_GEMINI_SCHEMA,
    ),
    rule(
        "ref-siblings",
        Error,
        Check::RefSiblings {
            allowed: &[],
            dollar_prefixed: true,
        },
        "`$ref` has sibling keywords {detail}; Gemini allows only `$`-prefixed keywords beside `$ref` (documented for `responseJsonSchema`).",
        None,
        false,
        SRC_GEMINI_RESPONSE_JSON_SCHEMA,
    ),
    rule(
        "oneof",
        Info,
        keywords(&["oneOf"], Where::Anywhere),
        "`oneOf` is read as `anyOf` (documented for `responseJsonSchema`): exactly-one is not enforced.",
        None,
        false,
        SRC_GEMINI_RESPONSE_JSON_SCHEMA,
    ),
    rule(
        "recursive-ref",
        Warn,
        Check::RecursiveRef,
        "Recursive `$ref` to {detail}: Gemini unrolls cycles a few levels and accepts them only under properties that are not required.",
        None,
        false,
        SRC_GEMINI_RESPONSE_JSON_SCHEMA,
    ),
    rule(
        "enum-values",
        Warn,
        Check::EnumValues {
            kinds: &[Kind::String, Kind::Number],
        },
        "Enum value {detail}: Gemini documents enums of strings and numbers only.",
        None,
        false,
        SRC_GEMINI_RESPONSE_JSON_SCHEMA,
    ),
    rule(
        "undocumented-keyword",
        Warn,
        Check::KeywordsOutside {
            allowed: GEMINI_JSON_SCHEMA_KEYWORDS,
            at: Where::Anywhere,
        },
        "`{keyword}` is not in Gemini's documented JSON Schema subset; it may be ignored.",
        None,
        false,
        SRC_GEMINI_RESPONSE_JSON_SCHEMA,
    ),
    GEMINI_TOOL_NAME,
];

// ---------------------------------------------------------------------------------------------
// Anthropic
// ---------------------------------------------------------------------------------------------

const ANTHROPIC_ROOT_TYPE_MISSING: LintRule = rule(
    "root-type-missing",
    Error,
    Check::RootType(RootTypeCase::Missing),
    "The root has no `type`; `input_schema` must say `type: \"object\"`.",
    Some("tools.{index}.custom.input_schema.type: Field required"),
    true,
    "https://github.com/lidge-jun/opencodex/issues/75",
);

const ANTHROPIC_ROOT_TYPE: LintRule = rule(
    "root-type",
    Error,
    Check::RootType(RootTypeCase::NotObject),
    "`input_schema` must be `type: \"object\"`; here the root `type` is {detail}.",
    None,
    true,
    "schemalens research notes, provider matrix row 1",
);

const ANTHROPIC_ROOT_UNION: LintRule = rule(
    "root-union",
    Error,
    keywords(&["oneOf", "allOf", "anyOf"], Where::Root),
    "`{keyword}` at the top level of `input_schema` is refused (flat mode merges a discriminated union into one object).",
    Some(
        "tools.{index}.custom.input_schema: input_schema does not support oneOf, allOf, or anyOf at the top level",
    ),
    true,
    "https://github.com/anthropics/claude-code/issues/5319",
);

const ANTHROPIC_DRAFT: LintRule = rule(
    "draft-2020-12",
    Error,
    Check::Draft2020,
    "Not valid JSON Schema draft 2020-12: {detail}. Draft-04 boolean `exclusiveMinimum`/`exclusiveMaximum` and draft-07 tuple `items: [...]` are the usual causes.",
    Some(
        "tools.{index}.custom.input_schema: JSON schema is invalid. It must match JSON Schema draft 2020-12 (https://json-schema.org/draft/2020-12).",
    ),
    true,
    "https://github.com/Dokploy/mcp/issues/74, https://github.com/kintone/mcp-server/issues/553",
);

const ANTHROPIC_TOOL_NAME: LintRule = rule(
    "tool-name",
    Error,
    Check::ToolName(ANTHROPIC_NAME),
    "Tool name `{item}` {detail}; Anthropic accepts letters, digits, `_` and `-`, 1 to 128 characters (no dots).",
    Some("tools.{index}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'"),
    true,
    "https://github.com/home-assistant/core/issues/147760",
);

const ANTHROPIC_UNIQUE: LintRule = rule(
    "tool-name-unique",
    Error,
    Check::UniqueToolNames,
    "Tool name `{detail}` is already used by tool #{item} of this list.",
    Some("tools: Tool names must be unique."),
    true,
    "https://github.com/danny-avila/LibreChat/issues/13162",
);

static ANTHROPIC: &[LintRule] = &[
    ANTHROPIC_ROOT_TYPE_MISSING,
    ANTHROPIC_ROOT_TYPE,
    ANTHROPIC_ROOT_UNION,
    ANTHROPIC_DRAFT,
    ANTHROPIC_TOOL_NAME,
    ANTHROPIC_UNIQUE,
];

static ANTHROPIC_STRICT: &[LintRule] = &[
    ANTHROPIC_ROOT_TYPE_MISSING,
    ANTHROPIC_ROOT_TYPE,
    ANTHROPIC_ROOT_UNION,
    ANTHROPIC_DRAFT,
    rule(
        "additional-properties",
        Error,
        Check::Closed,
        "Strict tool use needs `additionalProperties: false` on every object; {detail} (the Anthropic SDK adds it, a raw request must).",
        None,
        false,
        SRC_ANTHROPIC_STRICT_2ND,
    ),
    rule(
        "unsupported-keyword",
        Error,
        keywords(
            &[
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
            ],
            Where::Anywhere,
        ),
        "`{keyword}` is listed as unsupported in strict mode (the Anthropic SDK moves it into the description).",
        None,
        false,
        SRC_ANTHROPIC_STRICT_2ND,
    ),
    rule(
        "min-items",
        Error,
        Check::AtMost {
            keyword: "minItems",
            max: 1,
        },
        "`minItems: {detail}`: strict mode supports only 0 or 1.",
        None,
        false,
        SRC_ANTHROPIC_STRICT_2ND,
    ),
    rule(
        "format",
        Error,
        Check::Values {
            keyword: "format",
            allowed: ANTHROPIC_STRICT_FORMATS,
        },
        "`format: \"{detail}\"` is not one of the formats strict mode supports (date-time, time, date, duration, email, hostname, uri, ipv4, ipv6, uuid).",
        None,
        false,
        SRC_ANTHROPIC_STRICT_2ND,
    ),
    rule(
        "pattern-lookaround",
        Error,
        Check::Lookaround,
        "`pattern` uses a lookahead or lookbehind, which strict mode does not support: {detail}",
        None,
        false,
        SRC_ANTHROPIC_STRICT_2ND,
    ),
    rule(
        "recursive-ref",
        Error,
        Check::RecursiveRef,
        "Recursive `$ref` to {detail}: strict mode does not support recursive schemas (unrolling them, the default projection, avoids this).",
        None,
        false,
        SRC_ANTHROPIC_STRICT_2ND,
    ),
    rule(
        "enum-values",
        Error,
        Check::EnumValues { kinds: PRIMITIVES },
        "Enum value {detail}: strict mode takes enums of primitive values only.",
        None,
        false,
        SRC_ANTHROPIC_STRICT_2ND,
    ),
    rule(
        "object-properties",
        Warn,
        Check::ObjectProperties,
        "Objects without `properties` (free-form JSON objects) are reported unsupported in strict mode.",
        None,
        false,
        "https://github.com/ax-llm/ax/pull/459",
    ),
    rule(
        "sdk-const",
        Info,
        keywords(&["const"], Where::Anywhere),
        "The Anthropic Python SDK's strict transform moves `const` into the description, so a tag written as `const` stops constraining the call (a one-value `enum` survives).",
        None,
        true,
        SRC_ANTHROPIC_SDK,
    ),
    rule(
        "sdk-ref-siblings",
        Info,
        Check::RefSiblings {
            allowed: &[],
            dollar_prefixed: false,
        },
        "The Anthropic SDK's strict transform drops the keywords beside `$ref`: {detail} would be lost.",
        None,
        true,
        SRC_ANTHROPIC_SDK,
    ),
    rule(
        "sdk-untyped",
        Warn,
        Check::NodeType {
            stand_ins: &["type", "enum", "anyOf", "oneOf", "allOf", "$ref"],
        },
        "The Anthropic SDK's strict transform refuses a schema that has none of `type`, `enum`, `anyOf`, `oneOf`, `allOf` (here {detail}); Pydantic `Any` fields and unconstrained flat-mode joins look like this.",
        Some("Schema must have a 'type', 'enum', 'anyOf', 'oneOf', or 'allOf' field."),
        true,
        SRC_ANTHROPIC_SDK,
    ),
    rule(
        "undocumented-keyword",
        Warn,
        Check::KeywordsOutside {
            allowed: ANTHROPIC_STRICT_KEYWORDS,
            at: Where::Anywhere,
        },
        "`{keyword}` is not among the keywords strict tool use is reported to support; it may be refused or ignored (`project --provider anthropic-strict` leaves it out).",
        None,
        false,
        SRC_ANTHROPIC_STRICT_2ND,
    ),
    ANTHROPIC_TOOL_NAME,
    ANTHROPIC_UNIQUE,
    rule(
        "limit-strict-tools",
        Warn,
        Check::ToolSet {
            counted: Counted::Tools,
            max: 20,
        },
        "{detail} strict tools in one request; strict tool use allows 20.",
        None,
        false,
        SRC_ANTHROPIC_STRICT_2ND,
    ),
    rule(
        "limit-optional",
        Warn,
        Check::ToolSet {
            counted: Counted::OptionalProperties,
            max: 24,
        },
        "{detail} optional properties across the strict tools so far; strict tool use allows 24.",
        None,
        false,
        SRC_ANTHROPIC_STRICT_2ND,
    ),
    rule(
        "limit-unions",
        Warn,
        Check::ToolSet {
            counted: Counted::UnionProperties,
            max: 16,
        },
        "{detail} properties use `anyOf` or a type list across the strict tools so far; strict tool use allows 16.",
        None,
        false,
        SRC_ANTHROPIC_STRICT_2ND,
    ),
];

// ---------------------------------------------------------------------------------------------
// Ollama, Bedrock, MCP
// ---------------------------------------------------------------------------------------------

static OLLAMA: &[LintRule] = &[
    rule(
        "go-decode",
        Error,
        Check::GoDecode,
        "Ollama cannot decode this into its Go structs, so the whole request fails.",
        Some("{detail}"),
        true,
        "https://github.com/ollama/ollama/issues/10328, https://github.com/ollama/ollama/issues/14256, https://github.com/leonardcser/smelt/issues/26",
    ),
    rule(
        "dropped-structure",
        Error,
        Check::GoDropped(DropClass::Structure),
        "Ollama silently drops `{keyword}` here (its Go structs have no field for it): the model never sees which shapes or values are valid and has to guess.",
        None,
        true,
        SRC_OLLAMA,
    ),
    rule(
        "dropped-constraint",
        Warn,
        Check::GoDropped(DropClass::Constraint),
        "Ollama silently drops `{keyword}` here: the model does not see this constraint.",
        None,
        true,
        SRC_OLLAMA,
    ),
    rule(
        "dropped-annotation",
        Info,
        Check::GoDropped(DropClass::Annotation),
        "Ollama silently drops `{keyword}` here; the model loses an annotation, though no valid call depends on it.",
        None,
        true,
        SRC_OLLAMA,
    ),
];

static BEDROCK: &[LintRule] = &[
    rule(
        "root-json-object",
        Error,
        Check::RootNotJsonObject,
        "`inputSchema.json` must be a JSON object; here it is {detail}.",
        Some(
            "The format of the value at toolConfig.tools.{index}.toolSpec.inputSchema.json is invalid. Provide a json object for the field and try again.",
        ),
        true,
        "https://github.com/aws/aws-sdk-net/issues/3377",
    ),
    rule(
        "root-type",
        Error,
        Check::RootType(RootTypeCase::Any),
        "Bedrock wants `type: \"object\"` at the root of `inputSchema.json` (a root union without `type` fails too); here the root `type` is {detail}.",
        Some(
            "The value at toolConfig.tools.{index}.toolSpec.inputSchema.json.type must be one of the following: object.",
        ),
        true,
        "https://github.com/earendil-works/pi/issues/8279, https://github.com/cognitect-labs/aws-api/issues/272",
    ),
    rule(
        "tool-name",
        Error,
        Check::ToolName(BEDROCK_NAME),
        "Tool name `{item}` {detail}; Bedrock accepts letters, digits, `_` and `-`, 1 to 64 characters.",
        None,
        true,
        "AWS Bedrock API reference, ToolSpecification (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ToolSpecification.html)",
    ),
    rule(
        "strict-number-bounds",
        Info,
        keywords(
            &[
                "minimum",
                "maximum",
                "exclusiveMinimum",
                "exclusiveMaximum",
                "multipleOf",
                "maxItems",
            ],
            Where::Anywhere,
        ),
        "With strict tool use on (Claude models), Bedrock refuses `{keyword}`.",
        None,
        false,
        SRC_BEDROCK_STRICT,
    ),
    rule(
        "strict-min-items",
        Info,
        Check::AtMost {
            keyword: "minItems",
            max: 1,
        },
        "With strict tool use on (Claude models), Bedrock refuses `minItems` above 1 (here {detail}).",
        None,
        false,
        SRC_BEDROCK_STRICT,
    ),
];

static MCP: &[LintRule] = &[
    rule(
        "root-type",
        Error,
        Check::RootType(RootTypeCase::Any),
        "MCP requires a tool's `inputSchema` to be `type: \"object\"`; here the root `type` is {detail}.",
        Some("Invalid input: expected \"object\""),
        true,
        "MCP specification (tools, inputSchema); https://github.com/mastra-ai/mastra/issues/18255",
    ),
    rule(
        "root-union",
        Warn,
        keywords(&["anyOf", "oneOf", "allOf"], Where::Root),
        "Some MCP clients (GitHub Copilot Chat) refuse `{keyword}` at the top level of `inputSchema`.",
        Some("object has unsupported top-level schema keyword '{keyword}'"),
        true,
        "https://github.com/PostHog/posthog/pull/71765",
    ),
    rule(
        "tool-name",
        Warn,
        Check::ToolName(MCP_NAME),
        "Tool name `{item}` {detail}; the MCP specification asks for 1 to 128 letters, digits, `_`, `-` or `.` (and model APIs behind clients are stricter: no dots for Anthropic, 64 characters for OpenAI).",
        None,
        false,
        "MCP specification 2025-11-25, tool names (via https://github.com/webmachinelearning/webmcp/issues/145)",
    ),
    rule(
        "tool-name-unique",
        Warn,
        Check::UniqueToolNames,
        "Tool name `{detail}` is already used by tool #{item}; clients that forward both to a model API will be refused.",
        None,
        false,
        "MCP specification (tool name is its unique identifier)",
    ),
];

pub(crate) fn table(profile: super::Profile) -> &'static [LintRule] {
    use super::Profile as P;
    match profile {
        P::OpenAiStrict => OPENAI_STRICT,
        P::OpenAi => OPENAI,
        P::Gemini => GEMINI,
        P::GeminiJsonSchema => GEMINI_JSON_SCHEMA,
        P::Anthropic => ANTHROPIC,
        P::AnthropicStrict => ANTHROPIC_STRICT,
        P::Ollama => OLLAMA,
        P::Bedrock => BEDROCK,
        P::Mcp => MCP,
    }
}
