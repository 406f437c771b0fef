//! Provider tailoring: a traced post-pass over a finished [`Projection`] for one lint
//! [`Profile`], so that what is advertised to that provider passes its checks.
//!
//! Each profile is a table of [`Step`]s (data, see [`steps`]); the keyword lists the drop steps
//! use are read from the profile's own lint rules, so lint and tailoring cannot drift apart.
//! Every step keeps I-sound — whatever the projection accepts, the tailored schema accepts —
//! except the two a provider makes impossible: closing an object the projection leaves open, and
//! making an optional property required (OpenAI strict mode). Those are *lossy*; each comes with
//! a payload [`Adapter`] that maps payloads the projection accepts to payloads the tailored
//! schema accepts (unknown keys dropped, absent properties sent as `null`), and back
//! (`null` → absent for exactly those properties; see [`PayloadAdapter`]). What cannot be
//! tailored soundly is listed in [`Tailored::unresolved`] and left as it was.

mod adapt;
mod rewrite;
#[cfg(test)]
mod tests;

use serde::Serialize;
use serde_json::Value;

pub use adapt::{Adaptation, PayloadAdapter};

use super::Projection;
use crate::lint::{Check, Profile};

/// A projection tailored for one provider.
#[derive(Debug, Clone, Serialize)]
pub struct Tailored {
    /// The tailored schema, its trace (the projection's entries, moved to where their nodes now
    /// sit, then the tailoring entries) and links to the original.
    pub projection: Projection,
    pub profile: Profile,
    /// What a payload needs before the tailored schema sees it; empty unless a lossy step ran.
    pub adapters: Vec<Adapter>,
    /// Where the provider still rejects the schema because no sound rewrite exists.
    pub unresolved: Vec<Unresolved>,
}

impl Tailored {
    /// True when some step was lossy: payloads must go through [`Tailored::payload_adapter`].
    pub fn is_lossy(&self) -> bool {
        !self.adapters.is_empty()
    }

    /// Applies (and reverses) the adapters on payloads. `validator_draft` is the dialect the
    /// caller judges payloads in; the adapter uses it to tell which `anyOf` alternative a payload
    /// belongs to.
    pub fn payload_adapter(&self, validator_draft: jsonschema::Draft) -> PayloadAdapter {
        PayloadAdapter::new(self, validator_draft)
    }

    /// The tailored schema as a JSON Schema validator must read it: Gemini's `nullable: true`
    /// (OpenAPI 3.0) written as a `null` type.
    pub fn validation_schema(&self) -> Value {
        if self.projection.draft.has_nullable() {
            crate::validate::openapi30_for_validation(&self.projection.schema)
        } else {
            self.projection.schema.clone()
        }
    }
}

/// A payload rewrite that a lossy step needs. `at` is a pointer into the tailored schema: the
/// object schema whose instances are rewritten, wherever in a payload they occur.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Adapter {
    /// These properties were optional and are now required (and nullable): an absent one is
    /// sent as `null`; un-adapting removes a `null` one again.
    NullForAbsent { at: String, properties: Vec<String> },
    /// The object was open and is now closed: keys outside `known` are dropped (not reversible).
    DropUnknownKeys { at: String, known: Vec<String> },
}

impl Adapter {
    pub fn at(&self) -> &str {
        match self {
            Adapter::NullForAbsent { at, .. } | Adapter::DropUnknownKeys { at, .. } => at,
        }
    }
}

/// A place the provider still rejects after tailoring.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Unresolved {
    /// Where, in the tailored schema.
    pub pointer: String,
    /// The profile's lint rule that will still report it.
    pub rule: &'static str,
    pub why: String,
}

/// How tailoring may rewrite.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TailorOptions {
    /// Run the lossy steps (the default). Without them the result is the sound part only, and
    /// each skipped step is listed as unresolved; that schema is what un-adapted payloads are
    /// promised to pass.
    pub lossy: bool,
}

impl Default for TailorOptions {
    fn default() -> TailorOptions {
        TailorOptions { lossy: true }
    }
}

/// Tailors `projection` for `profile` (lossy steps included, with their adapters).
pub fn tailor(projection: Projection, profile: Profile) -> Tailored {
    tailor_with(projection, profile, TailorOptions::default())
}

pub fn tailor_with(projection: Projection, profile: Profile, options: TailorOptions) -> Tailored {
    rewrite::run(projection, profile, options)
}

// ---------------------------------------------------------------------------------------------
// The tables

/// One tailoring step. Steps run in table order at each schema node, parents before children
/// (except the object steps, which need the finished properties).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// OpenAPI 3.0 `nullable: true` beside `type` → `null` added to `type` (for providers that
    /// read JSON Schema, when the projection is OpenAPI 3.0).
    NullableToType,
    /// `const: v` → `enum: [v]`.
    ConstToEnum,
    /// `type: [T, "null"]` → `type: T, nullable: true`; `[T]` → `T`; several non-null types →
    /// `anyOf` of one schema per type (OpenAPI 3.0 providers).
    TypeArrayToNullable,
    /// Drops the keywords that these lint rules of the profile report (a `Keywords` rule: the
    /// names it lists; a `KeywordsOutside` rule: everything it does not allow), together with
    /// the keywords whose meaning depends on them.
    DropKeywords { rules: &'static [&'static str] },
    /// Drops `format` values outside the list of this lint rule (a `Values` check).
    DropFormats { rule: &'static str },
    /// `$ref` with siblings: keep only `keep` beside it; when `wrap`, move the `$ref` into a
    /// one-alternative `anyOf` instead, so that the siblings stay (exact).
    RefSiblings {
        keep: &'static [&'static str],
        wrap: bool,
    },
    /// `required` names without a property: add the property as `{}` (`add`), else drop the
    /// name from `required`.
    RequiredDeclared { add: bool },
    /// Lossy: `additionalProperties: false` on every object schema with properties.
    CloseObjects,
    /// Lossy: every property required, the optional ones made nullable.
    RequireAll,
    /// Reports only: the root must be one plain object schema.
    RootObject,
    /// Reports only: arrays need `items` (`typed`: items that say what the elements are).
    ArrayItems { typed: bool },
    /// Reports only: every schema must name its type (the profile's `NodeType` lint rule says
    /// what stands in for one). A schema that may be anything has no type to give it.
    Typed,
    /// Reports only: enum values must be strings.
    StringEnums,
}

/// Each profile's steps; see docs/rules.md ("Provider tailoring") for why each is sound.
pub fn steps(profile: Profile) -> &'static [Step] {
    use Step::*;
    match profile {
        Profile::OpenAiStrict => &[
            NullableToType,
            DropKeywords {
                rules: &[
                    "oneof",
                    "unsupported-keyword",
                    "default",
                    "property-names",
                    "discriminator",
                    "undocumented-keyword",
                ],
            },
            DropFormats { rule: "format" },
            RefSiblings {
                keep: &["$defs", "definitions"],
                wrap: true,
            },
            RequiredDeclared { add: true },
            CloseObjects,
            RequireAll,
            RootObject,
            ArrayItems { typed: true },
            Typed,
        ],
        Profile::Gemini => &[
            ConstToEnum,
            TypeArrayToNullable,
            DropKeywords {
                rules: &["unknown-field", "additional-properties"],
            },
            DropFormats { rule: "format" },
            RefSiblings {
                keep: &["description", "default"],
                wrap: false,
            },
            RequiredDeclared { add: false },
            RootObject,
            ArrayItems { typed: false },
            StringEnums,
        ],
        Profile::AnthropicStrict => &[
            DropKeywords {
                rules: &["unsupported-keyword"],
            },
            DropFormats { rule: "format" },
            CloseObjects,
            RootObject,
        ],
        // Ollama keeps `enum` but not `const`; everything else it drops silently, and a schema
        // cannot make it keep more.
        Profile::Ollama => &[ConstToEnum],
        Profile::OpenAi
        | Profile::GeminiJsonSchema
        | Profile::Anthropic
        | Profile::Bedrock
        | Profile::Mcp => &[RootObject],
    }
}

/// Which keywords a lint rule of `profile` reports, as the drop steps read it.
#[derive(Debug, Clone, Copy)]
enum KeywordSet {
    Named(&'static [&'static str]),
    Outside(&'static [&'static str]),
}

fn keyword_set(profile: Profile, rule: &str) -> Option<KeywordSet> {
    match profile.rule(rule)?.applies {
        Check::Keywords { names, .. } => Some(KeywordSet::Named(names)),
        Check::KeywordsOutside { allowed, .. } => Some(KeywordSet::Outside(allowed)),
        _ => None,
    }
}

fn allowed_values(profile: Profile, rule: &str) -> Option<&'static [&'static str]> {
    match profile.rule(rule)?.applies {
        Check::Values { allowed, .. } => Some(allowed),
        _ => None,
    }
}

// ---------------------------------------------------------------------------------------------
// Trace details

/// How an optional property was made to accept `null`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum NullForm {
    /// It already accepted `null`: required as it was (absent and `null` now look the same).
    Already,
    /// `"null"` added to its `type` (and to its `enum`).
    TypeList,
    /// `{type: null}` added to its `anyOf`.
    Alternative,
    /// Wrapped: `anyOf: [it, {type: null}]`.
    Wrapped,
}

/// What one tailoring step did; the trace's [`Detail::Tailored`](super::Detail::Tailored).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "step", rename_all = "kebab-case")]
pub enum Tailoring {
    CloseObject {
        profile: Profile,
        /// `additionalProperties` before: "not set", "true", or why patternProperties were open.
        was: String,
        known: Vec<String>,
    },
    RequiredNullable {
        profile: Profile,
        property: String,
        form: NullForm,
    },
    ConstEnum {
        profile: Profile,
        value: Value,
    },
    TypeNullable {
        profile: Profile,
        /// The type list as it was.
        was: Value,
        /// True: `nullable: true` written; false: OpenAPI `nullable` turned into a `null` type.
        to_nullable: bool,
    },
    TypeSplit {
        profile: Profile,
        types: Vec<String>,
    },
    KeywordsDropped {
        profile: Profile,
        keywords: Vec<String>,
        /// Keywords dropped only because they mean nothing (or something stricter) without a
        /// dropped one.
        dependent: Vec<String>,
    },
    RefSiblings {
        profile: Profile,
        reference: String,
        /// Siblings moved beside a one-alternative `anyOf` (wrap) …
        kept: Vec<String>,
        /// … or dropped.
        dropped: Vec<String>,
    },
    RequiredDeclared {
        profile: Profile,
        names: Vec<String>,
        added: bool,
    },
}

fn ticks(names: &[String]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

impl Tailoring {
    /// True for the steps that give up I-sound and need a payload adapter.
    pub fn is_lossy(&self) -> bool {
        matches!(
            self,
            Tailoring::CloseObject { .. } | Tailoring::RequiredNullable { .. }
        )
    }

    pub fn profile(&self) -> Profile {
        match self {
            Tailoring::CloseObject { profile, .. }
            | Tailoring::RequiredNullable { profile, .. }
            | Tailoring::ConstEnum { profile, .. }
            | Tailoring::TypeNullable { profile, .. }
            | Tailoring::TypeSplit { profile, .. }
            | Tailoring::KeywordsDropped { profile, .. }
            | Tailoring::RefSiblings { profile, .. }
            | Tailoring::RequiredDeclared { profile, .. } => *profile,
        }
    }

    pub fn message(&self) -> String {
        match self {
            Tailoring::CloseObject {
                profile,
                was,
                known,
            } => format!(
                "{profile}: object closed (`additionalProperties: false`; it was {was}) because the provider requires it. LOSSY: the original accepts other keys here; the payload adapter drops every key but {}.",
                if known.is_empty() {
                    "none".to_owned()
                } else {
                    ticks(known)
                }
            ),
            Tailoring::RequiredNullable {
                profile,
                property,
                form,
            } => {
                let how = match form {
                    NullForm::Already => "it already accepts null",
                    NullForm::TypeList => "\"null\" added to its type",
                    NullForm::Alternative => "a null alternative added to its anyOf",
                    NullForm::Wrapped => "wrapped as anyOf [it, null]",
                };
                format!(
                    "{profile}: optional `{property}` made required and nullable ({how}), as the provider wants every property required. LOSSY: the original lets it be absent; the payload adapter sends absent as null, and un-adapting turns null back into absent."
                )
            }
            Tailoring::ConstEnum { profile, value } => format!(
                "{profile}: `const: {value}` written as `enum: [{value}]` (the same values; the provider has no `const`)."
            ),
            Tailoring::TypeNullable {
                profile,
                was,
                to_nullable: true,
            } => format!(
                "{profile}: `type: {was}` written as one type with `nullable: true` (the same values; the provider's `type` holds one name)."
            ),
            Tailoring::TypeNullable {
                profile,
                to_nullable: false,
                ..
            } => format!(
                "{profile}: OpenAPI `nullable: true` written as a \"null\" type (the same values; the provider reads JSON Schema)."
            ),
            Tailoring::TypeSplit { profile, types } => format!(
                "{profile}: `type` list [{}] written as `anyOf` with one schema per type, each with the keywords that apply to it (the same values).",
                types.join(", ")
            ),
            Tailoring::KeywordsDropped {
                profile,
                keywords,
                dependent,
            } if keywords.is_empty() => format!(
                "{profile}: {} dropped: a subschema below was rewritten, and {} would then reject more (a negated or conditional subschema, or what `unevaluated*` and `maxContains` count). Dropping a constraint only accepts more.",
                ticks(dependent),
                if dependent.len() == 1 { "it" } else { "they" }
            ),
            Tailoring::KeywordsDropped {
                profile,
                keywords,
                dependent,
            } => {
                let mut s = format!(
                    "{profile}: {} dropped: the provider rejects or ignores {}",
                    ticks(keywords),
                    if keywords.len() == 1 { "it" } else { "them" }
                );
                if !dependent.is_empty() {
                    s.push_str(&format!(
                        "; {} dropped with {} (without it they would reject more)",
                        ticks(dependent),
                        if keywords.len() == 1 { "it" } else { "them" }
                    ));
                }
                s.push_str(". Dropping a constraint only accepts more.");
                s
            }
            Tailoring::RefSiblings {
                profile,
                reference,
                kept,
                dropped,
            } => {
                let mut s = format!("{profile}: `$ref` {reference} had siblings");
                if !kept.is_empty() {
                    s.push_str(&format!(
                        "; it moved into a one-alternative `anyOf` so that {} stay beside it (the same values)",
                        ticks(kept)
                    ));
                }
                if !dropped.is_empty() {
                    s.push_str(&format!(
                        "; {} dropped (the provider allows no such sibling, and dropping only accepts more)",
                        ticks(dropped)
                    ));
                }
                s.push('.');
                s
            }
            Tailoring::RequiredDeclared {
                profile,
                names,
                added: true,
            } => format!(
                "{profile}: `required` names {} without a property; added as `{{}}` so the object can be closed without losing them (the same values).",
                ticks(names)
            ),
            Tailoring::RequiredDeclared {
                profile,
                names,
                added: false,
            } => format!(
                "{profile}: {} removed from `required`: the provider wants `required` within `properties` (accepts more).",
                ticks(names)
            ),
        }
    }
}
