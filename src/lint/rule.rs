//! The vocabulary of the profile tables: a rule is data (what to look for, how bad it is, what the
//! provider says), and the handful of generic checks below are the only code that looks.

use serde::Serialize;

use crate::schema::Kind;

/// How much a finding matters to someone whose tool is being rejected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Severity {
    /// The provider rejects the request, or the model cannot tell what to send.
    Error,
    /// Accepted, but something is lost, ignored or risky.
    Warn,
    /// Worth knowing; nothing breaks.
    Info,
}

impl Severity {
    pub fn name(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warn => "warn",
            Severity::Info => "info",
        }
    }
}

impl std::fmt::Display for Severity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One row of a profile table.
///
/// `message` and `provider_message` are templates: `{detail}`, `{keyword}`, `{item}`,
/// `{context}` (OpenAI's Python tuple), `{jsonpath}`, `{proto}` (Gemini's proto path from
/// `parameters`), `{dotted}` (the property path Vertex prints), `{tool}` and `{index}` are filled
/// in per finding. A provider message is the provider's own wording as reported in the research
/// notes; only the locations in it are ours.
#[derive(Debug, Clone, Copy)]
pub struct LintRule {
    pub id: &'static str,
    pub severity: Severity,
    pub applies: Check,
    pub message: &'static str,
    pub provider_message: Option<&'static str>,
    /// False when the rule rests on second-hand reports or on an assumption (marked [U] or
    /// [2nd] in the research notes); findings repeat the flag so nobody mistakes a guess for a
    /// documented limit.
    pub confirmed: bool,
    pub source: &'static str,
}

impl LintRule {
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// Where in a schema a keyword check looks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Where {
    Root,
    /// Every schema except the root.
    Nested,
    Anywhere,
}

/// Which root `type` problems a [`Check::RootType`] reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RootTypeCase {
    /// No `type` at all (a bare union, `{}`).
    Missing,
    /// A `type` that is not the string `"object"`.
    NotObject,
    /// Either.
    Any,
}

/// A tool-name or property-name rule, written out instead of as a regex so that no regex engine
/// is needed and the message can name the exact offending character.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NamePattern {
    /// Characters allowed besides ASCII letters and digits.
    pub extra: &'static str,
    /// The first character must be a letter or `_`.
    pub letter_or_underscore_first: bool,
    pub max: usize,
    /// How the provider writes the rule, for messages.
    pub shown: &'static str,
}

/// Whole-schema limits (OpenAI strict publishes these).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// Property entries across the schema, definitions included.
    Properties(usize),
    /// Levels of subschema nesting below the root: every subschema (a property, `items`, an
    /// `anyOf` alternative, a definition) is one level below the schema holding it (how
    /// OpenAI's Java SDK counts before sending), and a non-recursive `$ref`'s target is read at
    /// the `$ref`'s level.
    Depth(usize),
    /// `enum` values across the schema.
    EnumValues(usize),
    /// Characters of property names, definition names, enum values and const values (a value
    /// that is not a string counts as its JSON text).
    StringChars(usize),
    /// One string `enum` with more than `values` entries may hold at most `chars` characters.
    LargeStringEnum { values: usize, chars: usize },
}

/// What a tool-set count adds up, across every tool sent in one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Counted {
    Tools,
    /// Properties not listed in their object's `required`.
    OptionalProperties,
    /// Properties whose schema is an `anyOf` or has a type array.
    UnionProperties,
}

/// How much dropping a keyword costs the model (Ollama keeps only what its Go structs hold).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum DropClass {
    /// The keyword decides which shapes or values are valid (`oneOf`, `$ref`, `const`, …): without
    /// it the model is guessing.
    Structure,
    /// A bound or format the model would have respected; the call may now be rejected later.
    Constraint,
    /// Titles, defaults, examples: nothing a valid call depends on.
    Annotation,
}

/// The generic checks. Each reads the schema (or the tool list) and yields the places it matches;
/// profiles differ only in which checks they list and with what data.
#[derive(Debug, Clone, Copy)]
pub enum Check {
    /// The parameter schema is not a JSON object at all (e.g. `true`).
    RootNotJsonObject,
    RootType(RootTypeCase),
    /// Any of these keywords is present.
    Keywords {
        names: &'static [&'static str],
        at: Where,
    },
    /// A keyword outside this list is present (the provider's schema type has no such field).
    KeywordsOutside {
        allowed: &'static [&'static str],
        at: Where,
    },
    /// A keyword whose value (each value, for a list such as `type: [...]`) is not one of these
    /// strings (e.g. `format`, `type`).
    Values {
        keyword: &'static str,
        allowed: &'static [&'static str],
    },
    /// A number-valued keyword is above `max` (e.g. `minItems` above 1).
    AtMost {
        keyword: &'static str,
        max: u64,
    },
    /// An object schema without `additionalProperties: false`.
    Closed,
    /// An object schema whose `required` does not list every property.
    AllRequired,
    /// A `required` entry that names no property.
    RequiredDeclared,
    /// An object schema without `properties`.
    ObjectProperties,
    /// An object schema whose `properties` is missing or holds none, except an empty root: a
    /// tool without parameters, which clients send without any schema.
    PropertiesNonEmpty,
    /// An object schema with an empty `properties` and no `required` array. (With properties,
    /// [`Check::AllRequired`] already names each one missing from `required`.)
    RequiredAbsent,
    /// `type` is an array.
    TypeArray,
    /// An `enum` value whose kind is not listed.
    EnumValues {
        kinds: &'static [Kind],
    },
    /// An `enum` on a schema whose `type` is not `"string"` (either case), other than an integer
    /// or number with `format: enum`.
    EnumOnNonString,
    /// `$ref` beside keywords other than these (and other than `$`-prefixed ones, when allowed).
    RefSiblings {
        allowed: &'static [&'static str],
        dollar_prefixed: bool,
    },
    /// An array schema (by `type`) without `items`.
    ArrayItems,
    /// `items` written as a list of schemas (draft-07 tuple form).
    TupleItems,
    /// An array schema whose `items` says nothing about the elements (`{}`, `true`, an
    /// annotation-only schema, a draft-07 tuple).
    ArrayItemsTyped,
    /// A schema with none of these keywords (each stands in for a `type`).
    NodeType {
        stand_ins: &'static [&'static str],
    },
    /// `pattern` with a lookahead or lookbehind.
    Lookaround,
    /// A `$ref` that leads back to a schema it sits in.
    RecursiveRef,
    Limit(Limit),
    /// Not a valid JSON Schema draft 2020-12 document (checked against the meta-schema).
    Draft2020,
    /// A property name outside the pattern.
    PropertyName(NamePattern),
    /// The tool's name outside the pattern.
    ToolName(NamePattern),
    /// Two tools share a name.
    UniqueToolNames,
    /// Across the tools of one request, more than `max`.
    ToolSet {
        counted: Counted,
        max: usize,
    },
    /// The Go decoder would fail on this (Ollama).
    GoDecode,
    /// The Go structs have no field for this keyword, so it vanishes (Ollama).
    GoDropped(DropClass),
}

/// What a finding is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Target {
    /// A place in the parameter schema (`pointer`).
    Schema,
    /// The tool entry itself: its name, or its place in the tool list.
    Tool,
}

impl Check {
    pub fn target(&self) -> Target {
        match self {
            Check::ToolName(_) | Check::UniqueToolNames | Check::ToolSet { .. } => Target::Tool,
            _ => Target::Schema,
        }
    }
}
