//! The provider messages `why` knows: one row per message, as data.
//!
//! Wording and sources come from `shared/research/providers.md` §4 (and §1e for Bedrock and the
//! other providers). A pattern is the provider's text with `{placeholders}` (see
//! [`super::matcher`]); the placeholder's name says how it is read: `{context}` an OpenAI
//! Python tuple, `{jsonpath}` a `$.…` path, `{proto}` a Gemini proto path, `{dotted}` Vertex
//! property names, `{loc}` a dotted path below Anthropic's `input_schema`, `{gopath}` Go struct
//! fields; `{tool}` a function name, `{index}` a position in the request's tool list,
//! `{keyword}`, `{detail}`, `{name}`, `{set}`, `{kind}`, `{gotype}` what the message says about
//! the node. To teach `why` a new message, add a row; the tests check every row against its
//! example.

use serde::Serialize;

use crate::lint::Profile;

/// Who sends the message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Provider {
    OpenAi,
    Gemini,
    Anthropic,
    Ollama,
    Bedrock,
    Mcp,
    Mistral,
    Moonshot,
    Vllm,
}

impl Provider {
    pub fn label(self) -> &'static str {
        match self {
            Provider::OpenAi => "OpenAI",
            Provider::Gemini => "Gemini",
            Provider::Anthropic => "Anthropic",
            Provider::Ollama => "Ollama",
            Provider::Bedrock => "Amazon Bedrock",
            Provider::Mcp => "an MCP client",
            Provider::Mistral => "Mistral",
            Provider::Moonshot => "Moonshot / an OpenAI-compatible relay",
            Provider::Vllm => "vLLM (xgrammar)",
        }
    }

    /// The provider a lint profile is for.
    pub fn of(profile: Profile) -> Provider {
        match profile {
            Profile::OpenAiStrict | Profile::OpenAi => Provider::OpenAi,
            Profile::Gemini | Profile::GeminiJsonSchema => Provider::Gemini,
            Profile::Anthropic | Profile::AnthropicStrict => Provider::Anthropic,
            Profile::Ollama => Provider::Ollama,
            Profile::Bedrock => Provider::Bedrock,
            Profile::Mcp => Provider::Mcp,
        }
    }
}

/// Where the node is, for messages whose location is not (only) a captured path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum At {
    /// A placeholder holds the location.
    Captured,
    /// The whole parameter schema; the places the matched rules report below it are where the
    /// problem is (a draft 2020-12 violation is somewhere inside).
    Root,
    /// The tool entry (its name, its flags).
    Tool,
    /// The message names no place: every place the matched lint rules report is a candidate.
    Findings,
    /// Not about a tool's parameter schema (a response schema, the size of the whole request).
    Nowhere,
}

/// One provider message.
#[derive(Debug, Clone, Copy)]
pub struct Known {
    pub id: &'static str,
    pub provider: Provider,
    pub pattern: &'static str,
    pub at: At,
    /// The lint rules the message corresponds to, per profile; the first profile is assumed
    /// when `--provider` does not say.
    pub rules: &'static [(Profile, &'static [&'static str])],
    /// What to do when no lint rule covers the message (client-side checks, request limits).
    pub advice: Option<&'static str>,
    /// The message as a user meets it (from the research notes, with their locations).
    pub example: &'static str,
    pub source: &'static str,
}

use At::{Captured, Findings, Nowhere, Root, Tool};
use Profile as P;
use Provider as V;

const fn known(
    id: &'static str,
    provider: Provider,
    pattern: &'static str,
    at: At,
    rules: &'static [(Profile, &'static [&'static str])],
    example: &'static str,
    source: &'static str,
) -> Known {
    Known {
        id,
        provider,
        pattern,
        at,
        rules,
        advice: None,
        example,
        source,
    }
}

const fn advice(mut k: Known, text: &'static str) -> Known {
    k.advice = Some(text);
    k
}

const NOT_PERMITTED: &[(Profile, &[&str])] = &[
    (
        P::OpenAiStrict,
        &[
            "oneof",
            "unsupported-keyword",
            "default",
            "property-names",
            "undocumented-keyword",
        ],
    ),
    (P::OpenAi, &["oneof-nested"]),
];

/// Every known message. Order matters only for overlaps: when two rows match the same text,
/// the longer match wins, so a specific row beats a general one wherever it applies.
pub static MESSAGES: &[Known] = &[
    // ---- OpenAI ------------------------------------------------------------------------------
    known(
        "openai-not-permitted",
        V::OpenAi,
        "In context={context}, '{keyword}' is not permitted.",
        Captured,
        NOT_PERMITTED,
        "Invalid schema for function 'admin_op': In context=('properties', 'op'), 'oneOf' is not permitted.",
        "https://github.com/livekit/agents/issues/5302, https://github.com/makenotion/notion-mcp-server/issues/117, https://github.com/567-labs/instructor/issues/961",
    ),
    known(
        "openai-not-permitted-bare",
        V::OpenAi,
        "'{keyword}' is not permitted.",
        Findings,
        NOT_PERMITTED,
        "... 'propertyNames' is not permitted.",
        "https://github.com/can1357/oh-my-pi/issues/209",
    ),
    known(
        "openai-additional-properties",
        V::OpenAi,
        "In context={context}, 'additionalProperties' is required to be supplied and to be false.",
        Captured,
        &[(P::OpenAiStrict, &["additional-properties"])],
        "Invalid schema for function 'get_weather': In context=(), 'additionalProperties' is required to be supplied and to be false.",
        "https://github.com/xemantic/xemantic-ai-tool-schema/issues/37",
    ),
    known(
        "openai-required",
        V::OpenAi,
        "In context={context}, 'required' is required to be supplied and to be an array including every key in properties. Missing '{detail}'.",
        Captured,
        &[(P::OpenAiStrict, &["required-all"])],
        "Invalid schema for function 'search': In context=(), 'required' is required to be supplied and to be an array including every key in properties. Missing 'limit'.",
        "https://github.com/langchain-ai/langmem/issues/113",
    ),
    known(
        // The same message where no property is missing: an empty `properties` without
        // `required`. The row above, longer, wins wherever a key is named.
        "openai-required-absent",
        V::OpenAi,
        "In context={context}, 'required' is required to be supplied and to be an array including every key in properties.",
        Captured,
        &[(P::OpenAiStrict, &["required-missing"])],
        "Invalid schema for function 'read_graph': In context=(), 'required' is required to be supplied and to be an array including every key in properties.",
        "openai/openai-java JsonSchemaValidator.kt (validateObjectSchema)",
    ),
    known(
        "openai-extra-required",
        V::OpenAi,
        "Extra required key '{detail}' supplied.",
        Findings,
        &[(P::OpenAiStrict, &["required-undeclared"])],
        "Extra required key 'ghost' supplied.",
        "UnitVectorY-Labs/jsonschemaprofiles fixture required_extra_keys.json (wording unconfirmed)",
    ),
    known(
        "openai-format",
        V::OpenAi,
        "In context={context}, '{detail}' is not a valid format.",
        Captured,
        &[(P::OpenAiStrict, &["format"])],
        "In context=('properties', 'url'), 'uri' is not a valid format.",
        "https://github.com/can1357/oh-my-pi/issues/206",
    ),
    known(
        "openai-ref-siblings",
        V::OpenAi,
        "$ref cannot have keywords {set}",
        Findings,
        &[(P::OpenAiStrict, &["ref-siblings"])],
        "$ref cannot have keywords {'description'}",
        "https://github.com/camel-ai/camel/issues/3001, https://github.com/virattt/dexter/pull/280",
    ),
    known(
        "openai-lookaround",
        V::OpenAi,
        "regex lookaround is not supported. Found at {jsonpath}.",
        Captured,
        &[(P::OpenAiStrict, &["pattern-lookaround"])],
        "Invalid JSON schema: regex lookaround is not supported. Found at $.properties.fileKey.pattern.",
        "https://github.com/anomalyco/opencode/issues/32073",
    ),
    known(
        "openai-array-items",
        V::OpenAi,
        "In context={context}, array schema missing items.",
        Captured,
        &[
            (P::OpenAiStrict, &["array-items"]),
            (P::OpenAi, &["array-items"]),
        ],
        "In context=('properties', 'paths'), array schema missing items.",
        "https://github.com/sigoden/aichat/pull/1049",
    ),
    known(
        "openai-object-properties",
        V::OpenAi,
        "In context={context}, object schema missing properties.",
        Captured,
        &[(P::OpenAiStrict, &["free-form-object"])],
        "In context=(), object schema missing properties.",
        "https://github.com/spring-projects/spring-ai/issues/4776",
    ),
    known(
        "openai-type-required",
        V::OpenAi,
        "In context={context}, schema must have a 'type' key.",
        Captured,
        &[(P::OpenAiStrict, &["type-required"])],
        "Invalid schema for function 'run_query': In context=('properties', 'params'), schema must have a 'type' key.",
        "https://github.com/can1357/oh-my-pi/issues/211",
    ),
    known(
        "openai-root-type",
        V::OpenAi,
        "schema must be a JSON Schema of 'type: \"object\"', got 'type: {detail}'",
        Root,
        &[
            (P::OpenAiStrict, &["root-type"]),
            (P::OpenAi, &["root-type"]),
        ],
        "schema must be a JSON Schema of 'type: \"object\"', got 'type: null'.",
        "https://github.com/chatanywhere/GPT_API_free/issues/403",
    ),
    known(
        "openai-root-union",
        V::OpenAi,
        "schema must have type 'object' and not have 'oneOf'/'anyOf'/'allOf'/'enum'/'not' at the top level",
        Root,
        &[
            (P::OpenAiStrict, &["root-union"]),
            (P::OpenAi, &["root-union"]),
        ],
        "schema must have type 'object' and not have 'oneOf'/'anyOf'/'allOf'/'enum'/'not' at the top level.",
        "https://github.com/nspady/google-calendar-mcp/issues/39",
    ),
    advice(
        known(
            "openai-not-strict",
            V::OpenAi,
            "'{tool}' is not strict. Only strict function tools can be auto-parsed",
            Tool,
            &[(P::OpenAiStrict, &[])],
            "'get_weather' is not strict. Only strict function tools can be auto-parsed",
            "https://github.com/openai/openai-python/issues/1733",
        ),
        "openai-python's `.parse()` needs `strict: true` on the tool; set it, and send a schema strict mode accepts (`schemalens project FILE --provider openai-strict`).",
    ),
    // ---- Gemini ------------------------------------------------------------------------------
    known(
        "gemini-unknown-name",
        V::Gemini,
        "Unknown name \"{keyword}\" at '{proto}': Cannot find field.",
        Captured,
        &[(
            P::Gemini,
            &["const", "additional-properties", "unknown-field"],
        )],
        "Invalid JSON payload received. Unknown name \"const\" at 'tools[0].function_declarations[5].parameters.properties[8].value.any_of[0]': Cannot find field.",
        "https://github.com/zed-industries/zed/issues/44875",
    ),
    known(
        "gemini-not-repeating",
        V::Gemini,
        "Unknown name \"{keyword}\" at '{proto}': Proto field is not repeating, cannot start list.",
        Captured,
        &[(P::Gemini, &["type-array", "items-tuple"])],
        "Invalid JSON payload received. Unknown name \"type\" at 'tools[0].function_declarations[0].parameters.properties[4].value': Proto field is not repeating, cannot start list.",
        "https://github.com/zed-industries/zed/issues/53919",
    ),
    known(
        "gemini-enum-value",
        V::Gemini,
        "Invalid value at '{proto}' (TYPE_STRING), {detail}",
        Captured,
        &[(P::Gemini, &["enum-non-string"])],
        "Invalid value at 'tools[0].function_declarations[2].parameters.properties[1].value.enum[1]' (TYPE_STRING), 2",
        "https://github.com/microsoft/azure-devops-mcp/issues/139",
    ),
    known(
        "gemini-enum-type-at",
        V::Gemini,
        "{proto}: only allowed for STRING type",
        Captured,
        &[(P::Gemini, &["enum-type"])],
        "* GenerateContentRequest.tools[0].function_declarations[0].parameters.properties[0].value.any_of[0].enum: only allowed for STRING type",
        "https://github.com/anomalyco/opencode/pull/12911",
    ),
    known(
        "gemini-enum-type",
        V::Gemini,
        "function declaration enum only allowed for STRING type",
        Findings,
        &[(P::Gemini, &["enum-type"])],
        "function declaration enum only allowed for STRING type",
        "https://github.com/decolua/9router/pull/380",
    ),
    known(
        "gemini-type-value",
        V::Gemini,
        "Invalid value at '{proto}' (type.googleapis.com/{gotype}), {detail}",
        Captured,
        &[(P::Gemini, &["type-name"])],
        "Invalid value at 'tools[0].function_declarations[0].parameters.properties[2].value.type' (type.googleapis.com/google.ai.generativelanguage.v1beta.Type), \"enum\"",
        "https://github.com/google-gemini/deprecated-generative-ai-js/issues/320",
    ),
    known(
        "gemini-non-empty",
        V::Gemini,
        "{proto}: should be non-empty for OBJECT type",
        Captured,
        &[(P::Gemini, &["object-properties"])],
        "* GenerateContentRequest.tools[0].function_declarations[0].parameters.properties: should be non-empty for OBJECT type",
        "https://github.com/langchain-ai/langchainjs/pull/7935",
    ),
    known(
        "gemini-required-undefined",
        V::Gemini,
        "{proto}: property is not defined",
        Captured,
        &[(P::Gemini, &["required-undeclared"])],
        "* GenerateContentRequest.tools[0].function_declarations[1].parameters.required[0]: property is not defined",
        "https://github.com/iBUHub/AIStudioToAPI/issues/154",
    ),
    known(
        "gemini-items-missing",
        V::Gemini,
        "items: missing field",
        Findings,
        &[(P::Gemini, &["array-items"])],
        "items: missing field",
        "https://github.com/DEEIX-AI/DEEIX-Chat/issues/546",
    ),
    known(
        "gemini-ref-siblings",
        V::Gemini,
        "$ref '{name}' was set alongside unsupported fields",
        Findings,
        &[(P::Gemini, &["ref-siblings"])],
        "$ref 'QuestionOption' was set alongside unsupported fields. If a schema node has $ref set, then only description and default can be set alongside it",
        "https://github.com/anomalyco/opencode/issues/12295",
    ),
    known(
        "gemini-ref-display-name",
        V::Gemini,
        "referenced name does not match display_name",
        Findings,
        &[(P::Gemini, &["refs"])],
        "referenced name does not match display_name",
        "https://github.com/zendev-sh/goai/pull/39",
    ),
    known(
        "gemini-vertex-no-type",
        V::Gemini,
        "because '{tool}' functionDeclaration '{dotted}' schema didn't specify the schema type field",
        Captured,
        &[(P::Gemini, &["node-type"])],
        "Unable to submit request because 'create_item' functionDeclaration 'parameters.data.meta.width' schema didn't specify the schema type field.",
        "https://github.com/directus/mcp/issues/8",
    ),
    known(
        "gemini-root-type",
        V::Gemini,
        "functionDeclaration parameters schema should be of type OBJECT",
        Root,
        &[(P::Gemini, &["root-type"])],
        "functionDeclaration parameters schema should be of type OBJECT",
        "https://github.com/BerriAI/litellm/pull/19103",
    ),
    known(
        "gemini-sdk-additional-properties",
        V::Gemini,
        "additionalProperties is only supported in Gemini Enterprise Agent Platform mode",
        Findings,
        &[(P::Gemini, &["additional-properties"])],
        "additionalProperties is only supported in Gemini Enterprise Agent Platform mode, , not in Gemini Developer API mode.",
        "googleapis/python-genai google/genai/_transformers.py",
    ),
    advice(
        known(
            "gemini-nesting",
            V::Gemini,
            "exceeds the maximum allowed nesting depth",
            Nowhere,
            &[(P::Gemini, &[])],
            "A schema in GenerationConfig in the request exceeds the maximum allowed nesting depth.",
            "https://github.com/googleapis/js-genai/issues/882",
        ),
        "This is about the response schema (GenerationConfig), not a tool's parameters; the limit is undocumented. Flatten nested objects of the response schema.",
    ),
    // ---- Anthropic ---------------------------------------------------------------------------
    known(
        "anthropic-draft",
        V::Anthropic,
        "tools.{index}.custom.input_schema: JSON schema is invalid. It must match JSON Schema draft 2020-12",
        Root,
        &[
            (P::Anthropic, &["draft-2020-12"]),
            (P::AnthropicStrict, &["draft-2020-12"]),
        ],
        "tools.3.custom.input_schema: JSON schema is invalid. It must match JSON Schema draft 2020-12 (https://json-schema.org/draft/2020-12). Learn more about tool use at https://docs.claude.com/en/docs/tool-use.",
        "https://github.com/anthropics/claude-code/issues/63673",
    ),
    known(
        "anthropic-root-union",
        V::Anthropic,
        "tools.{index}.custom.input_schema: input_schema does not support oneOf, allOf, or anyOf at the top level",
        Root,
        &[
            (P::Anthropic, &["root-union"]),
            (P::AnthropicStrict, &["root-union"]),
        ],
        "tools.0.custom.input_schema: input_schema does not support oneOf, allOf, or anyOf at the top level",
        "https://github.com/anthropics/claude-code/issues/5319",
    ),
    known(
        "anthropic-root-type",
        V::Anthropic,
        "tools.{index}.custom.input_schema.type: Field required",
        Root,
        &[
            (P::Anthropic, &["root-type-missing"]),
            (P::AnthropicStrict, &["root-type-missing"]),
        ],
        "tools.2.custom.input_schema.type: Field required",
        "https://github.com/lidge-jun/opencodex/issues/75",
    ),
    known(
        "anthropic-name-pattern",
        V::Anthropic,
        "tools.{index}.custom.name: String should match pattern",
        Tool,
        &[
            (P::Anthropic, &["tool-name"]),
            (P::AnthropicStrict, &["tool-name"]),
        ],
        "tools.1.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'",
        "https://github.com/home-assistant/core/issues/147760",
    ),
    known(
        "anthropic-name-length",
        V::Anthropic,
        "tools.{index}.custom.name: String should have at most",
        Tool,
        &[
            (P::Anthropic, &["tool-name"]),
            (P::AnthropicStrict, &["tool-name"]),
        ],
        "tools.1.custom.name: String should have at most 128 characters",
        "https://github.com/anthropics/claude-code/issues/96152",
    ),
    known(
        "anthropic-unique",
        V::Anthropic,
        "tools: Tool names must be unique.",
        Findings,
        &[
            (P::Anthropic, &["tool-name-unique"]),
            (P::AnthropicStrict, &["tool-name-unique"]),
        ],
        "tools: Tool names must be unique.",
        "https://github.com/danny-avila/LibreChat/issues/13162",
    ),
    known(
        "anthropic-sdk-untyped",
        V::Anthropic,
        "Schema must have a 'type', 'enum', 'anyOf', 'oneOf', or 'allOf' field.",
        Findings,
        &[(P::AnthropicStrict, &["sdk-untyped"])],
        "Schema must have a 'type', 'enum', 'anyOf', 'oneOf', or 'allOf' field.",
        "anthropics/anthropic-sdk-python src/anthropic/lib/_parse/_transform.py",
    ),
    advice(
        known(
            "anthropic-grammar-too-large",
            V::Anthropic,
            "The compiled grammar is too large",
            Nowhere,
            &[(P::AnthropicStrict, &[])],
            "The compiled grammar is too large, which would cause performance issues. Simplify your tool schemas or reduce the number of strict tools.",
            "https://github.com/anthropics/anthropic-sdk-python/issues/1185",
        ),
        "Strict tool use compiles every strict tool into one grammar: send fewer strict tools, or smaller schemas (`schemalens lint FILE --provider anthropic-strict` lists the per-request limits).",
    ),
    advice(
        known(
            "anthropic-too-complex",
            V::Anthropic,
            "Schema is too complex for compilation",
            Nowhere,
            &[(P::AnthropicStrict, &[])],
            "Schema is too complex for compilation",
            "https://github.com/TanStack/ai/pull/686",
        ),
        "Strict tool use could not compile the schemas into a grammar: fewer unions and optional properties help (`schemalens lint FILE --provider anthropic-strict`).",
    ),
    // ---- Ollama ------------------------------------------------------------------------------
    known(
        "ollama-unmarshal-field",
        V::Ollama,
        "json: cannot unmarshal {kind} into Go struct field {gopath} of type {gotype}",
        Captured,
        &[(P::Ollama, &["go-decode"])],
        "json: cannot unmarshal string into Go struct field ToolFunctionParameters.tools.function.parameters.properties of type api.ToolProperty",
        "https://github.com/ollama/ollama/issues/14256, https://github.com/ollama/ollama/issues/10328",
    ),
    known(
        "ollama-unmarshal-value",
        V::Ollama,
        "json: cannot unmarshal {kind} into Go value of type {gotype}",
        Findings,
        &[(P::Ollama, &["go-decode"])],
        "json: cannot unmarshal number into Go value of type string",
        "ollama/ollama api/types.go (PropertyType.UnmarshalJSON)",
    ),
    // ---- Bedrock, MCP clients ------------------------------------------------------------------
    known(
        "bedrock-root-type",
        V::Bedrock,
        "The value at toolConfig.tools.{index}.toolSpec.inputSchema.json.type must be one of the following: object",
        Root,
        &[(P::Bedrock, &["root-type"])],
        "The value at toolConfig.tools.0.toolSpec.inputSchema.json.type must be one of the following: object.",
        "https://github.com/earendil-works/pi/issues/8279",
    ),
    known(
        "bedrock-json-object",
        V::Bedrock,
        "The format of the value at toolConfig.tools.{index}.toolSpec.inputSchema.json is invalid",
        Root,
        &[(P::Bedrock, &["root-json-object"])],
        "The format of the value at toolConfig.tools.0.toolSpec.inputSchema.json is invalid. Provide a json object for the field and try again.",
        "https://github.com/aws/aws-sdk-net/issues/3377",
    ),
    known(
        "mcp-expected-object",
        V::Mcp,
        "Invalid input: expected \"object\"",
        Root,
        &[(P::Mcp, &["root-type"])],
        "Invalid input: expected \"object\"",
        "https://github.com/mastra-ai/mastra/issues/18255",
    ),
    known(
        "mcp-top-level",
        V::Mcp,
        "object has unsupported top-level schema keyword '{keyword}'",
        Root,
        &[(P::Mcp, &["root-union"])],
        "object has unsupported top-level schema keyword 'anyOf'",
        "https://github.com/PostHog/posthog/pull/71765",
    ),
    // ---- Providers without a lint profile: recognised, explained, not located ----------------
    advice(
        known(
            "mistral-invalid-tool-schema",
            V::Mistral,
            "Invalid tool schema: {detail} is not valid under any of the given schemas",
            Nowhere,
            &[],
            "Invalid tool schema: {'type': 'object', 'properties': {'n': {'type': 'number', 'exclusiveMinimum': True}}} is not valid under any of the given schemas",
            "https://github.com/SylphxAI/pdf-reader-mcp/issues/63",
        ),
        "Mistral refused a draft-04 leftover such as a boolean `exclusiveMinimum` (zod-to-json-schema writes it); `schemalens lint FILE --provider anthropic` finds the same draft 2020-12 violations.",
    ),
    advice(
        known(
            "mistral-grammar",
            V::Mistral,
            "failed to compile JSON schema",
            Nowhere,
            &[],
            "Grammar error: at 3(11): failed to compile JSON schema",
            "https://github.com/BerriAI/litellm/pull/13389",
        ),
        "Mistral's grammar compiler refuses `$id` and `$schema`; remove them from the parameters.",
    ),
    advice(
        known(
            "moonshot-depth",
            V::Moonshot,
            "schema depth exceeds maximum limit of {detail}",
            Nowhere,
            &[],
            "tools.function.parameters is not a valid moonshot flavored json schema, details: schema depth exceeds maximum limit of 10",
            "https://github.com/anomalyco/opencode/issues/25495",
        ),
        "The schema nests deeper than the limit; `schemalens lint FILE --provider openai-strict` reports the places past 10 levels (limit-depth).",
    ),
    advice(
        known(
            "relay-depth",
            V::Moonshot,
            "JSON schema exceeds the maximum nesting depth of {detail} levels",
            Nowhere,
            &[],
            "JSON schema exceeds the maximum nesting depth of 10 levels",
            "https://github.com/Avick3110/houseCARL/issues/730",
        ),
        "The schema nests deeper than the limit; `schemalens lint FILE --provider openai-strict` reports the places past 10 levels (limit-depth).",
    ),
    advice(
        known(
            "xgrammar-unsupported",
            V::Vllm,
            "The provided JSON schema contains features not supported by xgrammar.",
            Nowhere,
            &[],
            "The provided JSON schema contains features not supported by xgrammar.",
            "vllm-project/vllm vllm/v1/structured_output/backend_xgrammar.py",
        ),
        "xgrammar refuses `multipleOf`, `uniqueItems`/`contains`, formats outside its list, `pattern` or `format` together with length bounds, and some `patternProperties` uses; remove those keywords.",
    ),
];

/// Location-only readers, for wording no row knows: they find a location in any message.
pub static SNIFFERS: &[Known] = &[
    sniff("openai-context", V::OpenAi, "context={context}"),
    sniff("json-path", V::OpenAi, "{jsonpath}"),
    sniff(
        "gemini-proto",
        V::Gemini,
        "function_declarations[{index}].{proto}",
    ),
    sniff(
        "anthropic-input-schema",
        V::Anthropic,
        "tools.{index}.custom.input_schema{loc}",
    ),
    sniff(
        "ollama-go-field",
        V::Ollama,
        "cannot unmarshal {kind} into Go struct field {gopath} of type {gotype}",
    ),
    sniff(
        "bedrock-input-schema",
        V::Bedrock,
        "toolConfig.tools.{index}.toolSpec.inputSchema.json{loc}",
    ),
];

const fn sniff(id: &'static str, provider: Provider, pattern: &'static str) -> Known {
    Known {
        id,
        provider,
        pattern,
        at: Captured,
        rules: &[],
        advice: None,
        example: "",
        source: "",
    }
}

/// Tool names and indexes the envelope around a message carries (OpenAI names the function
/// before the message and the request position in `param`).
pub static TOOL_HINTS: &[(&str, Provider)] = &[
    ("Invalid schema for function '{tool}'", V::OpenAi),
    ("tools[{index}].function", V::OpenAi),
];

impl Known {
    /// The lint rules for `profile`, if the row lists that profile.
    pub fn rules_for(&self, profile: Profile) -> Option<&'static [&'static str]> {
        self.rules
            .iter()
            .find(|(p, _)| *p == profile)
            .map(|(_, rules)| *rules)
    }

    /// The profile assumed when the user does not name one.
    pub fn default_profile(&self) -> Option<Profile> {
        self.rules.first().map(|(p, _)| *p)
    }
}
