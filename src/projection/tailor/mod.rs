//! Provider tailoring: a traced post-pass over a finished [`Projection`] for one lint
//! [`Profile`], so that what is advertised to that provider passes its checks.
//!
//! Each profile is a table of [`Step`]s (data, see [`steps`]); the keyword lists the drop steps
//! use are read from the profile's own lint rules, so lint and tailoring cannot drift apart.
//! Every step keeps I-sound — whatever the projection accepts, the tailored schema accepts —
//! except the two a provider makes impossible: closing an object the projection leaves open, and
//! making an optional property required (OpenAI strict mode). Those are *lossy*; each comes with
//! a payload [`Adapter`] that maps payloads the projection accepts to payloads the tailored
//! schema accepts (undeclared keys carried in one more property, absent properties sent as
//! `null`), and back (the carried keys put back, `null` → absent for exactly those properties;
//! see [`PayloadAdapter`]). What cannot be tailored soundly is listed in
//! [`Tailored::unresolved`] and left as it was.

mod adapt;
mod rewrite;
mod still;
#[cfg(test)]
mod tests;

use serde::Serialize;
use serde_json::Value;

pub use adapt::{Adaptation, ENTRY_KEY, ENTRY_VALUE, PayloadAdapter, ReadBack};

use super::Projection;
use crate::lint::{ANTHROPIC_STRICT_KEYWORDS, Check, Profile};

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
    /// True when some step was lossy: the tailored schema rejects payloads the projection
    /// accepts unless they go through [`Tailored::payload_adapter`].
    pub fn is_lossy(&self) -> bool {
        self.adapters.iter().any(Adapter::is_lossy)
    }

    /// True when payloads must go through [`Tailored::payload_adapter`] (a lossy step or an
    /// encoding).
    pub fn needs_adapter(&self) -> bool {
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

/// A payload rewrite that a tailoring step needs. `at` is a pointer into the tailored schema:
/// the schema whose instances are rewritten, wherever in a payload they occur.
///
/// Two kinds: the *lossy* steps (an optional property made required, an open object closed)
/// give up part of I-sound and the adapter bridges what it can; the *encodings* say a value the
/// provider cannot describe in another form (JSON text, a list of entries, a string for a
/// non-string enum value, a wrapper object at the root) and are exact: `unadapt(adapt(p)) == p`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Adapter {
    /// These properties were optional and are now required (and nullable): an absent one is
    /// sent as `null`; un-adapting removes a `null` one again.
    NullForAbsent { at: String, properties: Vec<String> },
    /// These optional properties accept `null` themselves, and `null` now also stands for
    /// "absent": an explicit `null` is sent as `marker` instead, and comes back as `null`.
    NullMarker {
        at: String,
        properties: Vec<String>,
        marker: Value,
    },
    /// A value the provider cannot describe (anything at all) is sent as its JSON text: a
    /// string, or `{<key>: text}` when a sibling alternative takes strings (so that a plain
    /// string is never read as JSON).
    JsonText {
        at: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        key: Option<String>,
    },
    /// A map (an object with arbitrary keys) is sent as a list of `{key, value}` entries.
    Entries { at: String },
    /// The object was open with a schema for its other keys, and is now closed: its keys other
    /// than `kept` are sent as a list of `{key, value}` entries in `property` (each value in
    /// the form the tailored schema for the other keys gives it); un-adapting puts them back,
    /// except an entry whose key the object declares (no entry this adapter made).
    KeyEntries {
        at: String,
        property: String,
        kept: Vec<String>,
    },
    /// Enum values that are not strings are sent as these strings.
    EnumText { at: String, values: Vec<EnumText> },
    /// The root value is sent as the one property of an object.
    Wrap { at: String, property: String },
    /// Property names the provider refuses are sent under these names.
    Rename { at: String, names: Vec<Renamed> },
    /// The object's keys other than `kept` (the optional properties `names`, and any key the
    /// object does not declare) are sent together as the JSON text of an object, in
    /// `property`; un-adapting puts them back.
    Bundle {
        at: String,
        property: String,
        names: Vec<String>,
        kept: Vec<String>,
    },
}

/// A property name and the name it is sent under.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Renamed {
    pub name: String,
    pub sent_as: String,
}

/// One non-string enum value and the string it is sent as.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EnumText {
    pub value: Value,
    pub text: String,
}

impl Adapter {
    pub fn at(&self) -> &str {
        match self {
            Adapter::NullForAbsent { at, .. }
            | Adapter::NullMarker { at, .. }
            | Adapter::JsonText { at, .. }
            | Adapter::Entries { at }
            | Adapter::KeyEntries { at, .. }
            | Adapter::EnumText { at, .. }
            | Adapter::Wrap { at, .. }
            | Adapter::Rename { at, .. }
            | Adapter::Bundle { at, .. } => at,
        }
    }

    /// [`Adapter::at`], to move or clear it.
    pub(crate) fn at_mut(&mut self) -> &mut String {
        match self {
            Adapter::NullForAbsent { at, .. }
            | Adapter::NullMarker { at, .. }
            | Adapter::JsonText { at, .. }
            | Adapter::Entries { at }
            | Adapter::KeyEntries { at, .. }
            | Adapter::EnumText { at, .. }
            | Adapter::Wrap { at, .. }
            | Adapter::Rename { at, .. }
            | Adapter::Bundle { at, .. } => at,
        }
    }

    /// True for the adapters of lossy steps (the others are exact encodings).
    pub fn is_lossy(&self) -> bool {
        matches!(
            self,
            Adapter::NullForAbsent { .. } | Adapter::NullMarker { .. }
        )
    }

    /// What the adapter does to a payload, in a sentence fragment (for `explain` and the TUI).
    pub fn describe(&self) -> String {
        match self {
            Adapter::NullForAbsent { properties, .. } => {
                format!("absent {} sent as null", ticks(properties))
            }
            Adapter::NullMarker {
                properties, marker, ..
            } => format!(
                "an explicit null in {} sent as {marker} (null stands for absent)",
                ticks(properties)
            ),
            Adapter::JsonText { key: None, .. } => "the value sent as its JSON text".into(),
            Adapter::JsonText { key: Some(k), .. } => {
                format!("the value sent as its JSON text in `{{\"{k}\": …}}`")
            }
            Adapter::Entries { .. } => format!(
                "the object sent as a list of `{{\"{ENTRY_KEY}\": …, \"{ENTRY_VALUE}\": …}}` entries"
            ),
            Adapter::KeyEntries { property, kept, .. } => format!(
                "keys other than {} sent as a list of `{{\"{ENTRY_KEY}\": …, \"{ENTRY_VALUE}\": …}}` entries in `{property}`",
                if kept.is_empty() {
                    "none".to_owned()
                } else {
                    ticks(kept)
                }
            ),
            Adapter::EnumText { values, .. } => format!(
                "enum values sent as strings: {}",
                values
                    .iter()
                    .map(|e| format!("{} → \"{}\"", e.value, e.text))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Adapter::Wrap { property, .. } => {
                format!("the arguments sent as `{{\"{property}\": …}}`")
            }
            // Made by closing an open object, before any optional property joined it.
            Adapter::Bundle {
                property,
                names,
                kept,
                ..
            } if names.is_empty() => format!(
                "keys other than {} sent together as JSON text in `{property}`",
                if kept.is_empty() {
                    "none".to_owned()
                } else {
                    ticks(kept)
                }
            ),
            Adapter::Bundle {
                property, names, ..
            } => format!(
                "{} sent together as JSON text in `{property}`",
                ticks(names)
            ),
            Adapter::Rename { names, .. } => format!(
                "properties sent under other names: {}",
                names
                    .iter()
                    .map(|r| format!("`{}` as `{}`", r.name, r.sent_as))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }

    /// Changes the shape of the value at `at` (rather than the keys of an object there).
    fn reshapes(&self) -> bool {
        matches!(
            self,
            Adapter::JsonText { .. }
                | Adapter::Entries { .. }
                | Adapter::EnumText { .. }
                | Adapter::Wrap { .. }
        )
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

/// How recursion is best projected for `profile`: kept as `$defs` + `$ref` where the provider
/// takes recursive references (OpenAI strict documents them), so that nothing is cut to a
/// typeless `{}`; unrolled elsewhere (Gemini `parameters` has no references; Anthropic's strict
/// mode is reported to refuse recursive schemas, so there the cuts are carried as JSON text).
pub fn preferred_recursion(profile: Profile) -> Option<crate::projection::Recursion> {
    match profile {
        Profile::OpenAiStrict => Some(crate::projection::Recursion::Keep),
        _ => None,
    }
}

/// Whether `profile` takes definitions written once and referenced from several places
/// (`$defs` + `$ref`) and counts its size limits as written: OpenAI strict documents both
/// definitions and recursion, and a recursive schema can only be counted as written. Where
/// inlining would cross those limits, such a profile gets its shared definitions kept (see
/// [`crate::Options::share_over`]) instead of values carried as JSON text.
pub fn shares_definitions(profile: Profile) -> bool {
    profile == Profile::OpenAiStrict
}

/// `options` with the recursion `profile` prefers, and its count limits for keeping shared
/// definitions.
pub fn options_for(profile: Profile, options: &crate::Options) -> crate::Options {
    let mut options = options.clone();
    if let Some(r) = preferred_recursion(profile) {
        options.recursion = r;
    }
    options.share_over = shares_definitions(profile).then_some(profile);
    options
}

/// What `projection` holds over `profile`'s count limits (properties, enum values,
/// characters), as a sentence; `None` when it fits.
pub(crate) fn over_count_limits(profile: Profile, projection: &Projection) -> Option<String> {
    rewrite::over_count_limits(profile, &projection.schema)
}

/// Tailors `projection` for `profile` (lossy steps included, with their adapters).
pub fn tailor(projection: Projection, profile: Profile) -> Tailored {
    tailor_with(projection, profile, TailorOptions::default())
}

pub fn tailor_with(projection: Projection, profile: Profile, options: TailorOptions) -> Tailored {
    rewrite::run(
        std::borrow::Cow::Owned(projection),
        profile,
        options,
        Trace::Kept,
    )
}

/// [`tailor`] on a projection the caller keeps: the same result, without copying the
/// projection first (only its trace is copied into the result).
pub fn tailor_borrowed(projection: &Projection, profile: Profile) -> Tailored {
    tailor_traced(std::borrow::Cow::Borrowed(projection), profile, Trace::Kept)
}

/// Whether a tailoring writes its trace (what each step did, and where).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trace {
    /// The projection's trace, moved to the tailored places, then one entry per step.
    Kept,
    /// None at all: the result's trace is empty. For a caller that reads only the tailored
    /// schema, its links, adapters and unresolved list (the lint): where a definition is
    /// inlined many times the walk writes an entry per copy of each object it closes and each
    /// property it makes required, which held a fifth of `lint`'s peak memory on such a
    /// document. Its links go from the tailored schema back to the original only
    /// ([`crate::projection::Links::originals`]; `projections` finds nothing), and the walk
    /// keeps no table of where each projection node went: each was a pointer per node.
    Skipped,
}

/// [`tailor`] on a projection that may be borrowed, writing its trace or not.
pub fn tailor_traced(
    projection: std::borrow::Cow<'_, Projection>,
    profile: Profile,
    trace: Trace,
) -> Tailored {
    rewrite::run(projection, profile, TailorOptions::default(), trace)
}

/// When tailoring for `profile` would return `projection` as it is (the profile only checks
/// the root), what it would leave unresolved; `None` when it rewrites. Lets a caller that keeps
/// the projection skip copying it.
pub fn unchanged_by(profile: Profile, projection: &Projection) -> Option<Vec<Unresolved>> {
    rewrite::unchanged_by(profile, projection)
}

/// When tailoring for `profile` would give `projection`'s schema as it is, with no adapter,
/// what it would leave unresolved; `None` when it may rewrite. Covers more than
/// [`unchanged_by`] (Ollama's `const` step on a projection without `const`), but reads the
/// whole projection, and the links of what [`tailor`] returns then have an entry for every
/// node where the projection's may leave one to its parent: for a caller that looks originals
/// up through a parent (the lint's grouping), not one that needs [`tailor`]'s exact result.
pub fn unchanged_schema_by(profile: Profile, projection: &Projection) -> Option<Vec<Unresolved>> {
    rewrite::unchanged_schema_by(profile, projection)
}

/// [`unchanged_schema_by`] for a caller that has the projection's Ollama view and the errors
/// of its Ollama lint (in lint order) at hand or can make them more cheaply; each is asked for
/// only when needed.
pub fn unchanged_schema_seen<V: std::borrow::Borrow<crate::lint::OllamaView>>(
    profile: Profile,
    projection: &Projection,
    view: impl FnOnce() -> V,
    errors: impl FnOnce() -> Vec<crate::lint::Finding>,
) -> Option<Vec<Unresolved>> {
    rewrite::unchanged_schema_seen(profile, projection, view, errors)
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
    /// `const` without `type`: the type of its value.
    ConstType,
    /// A tuple (`prefixItems`, draft-07 `items: [...]`): one `items` schema for every position.
    TupleItems,
    /// Drops keywords this step names (where the profile's lint rules have no list for them).
    DropListed { set: KeywordSet },
    /// Drops `pattern`s with lookaround (and, with `all`, backreferences and `\\b`).
    DropComplexPatterns { all: bool },
    /// Drops `minItems` above `max`.
    MinItemsAtMost { max: u64 },
    /// Maps (objects with arbitrary keys) carried as lists of `{key, value}` entries.
    EncodeMaps,
    /// An object whose `allOf` parts are plain objects written as one object with all their
    /// properties and required names (the same values).
    MergeAllOf,
    /// Only the maps below the root whose value schema the provider drops (its lint's Go
    /// struct view, Ollama) carried as entries: the array's `items` reach the model as written.
    EncodeDroppedMaps,
    /// An object that can only be `{}` carried as the JSON text `"{}"`.
    EncodeEmptyObjects,
    /// Non-string enum values carried as strings; a string enum gets `type: string`.
    EncodeEnums,
    /// A value's schema with none of `stand_ins` (the keywords the provider takes in place of
    /// `type`) is carried as JSON text.
    EncodeAny { stand_ins: &'static [&'static str] },
    /// A root that still cannot be one object is wrapped in one.
    WrapRoot,
    /// Property names outside `[A-Za-z_][A-Za-z0-9_]{0,max-1}` are sent under names inside it.
    RenameProperties { max: usize },
    /// An object whose `anyOf`/`oneOf` alternatives only add to its own fields ("one of
    /// these fields") written as one plain object per alternative, its keywords merged into
    /// each (the same values).
    DistributeProperties,
    /// Kept recursion (`$defs` + `$ref`) whose paths nest past the profile's depth limit (its
    /// `limit-depth` lint rule, which follows a recursive `$ref` until it reaches a definition
    /// already entered) unrolled into one copy of each definition per level it is read at,
    /// the values past the limit carried as JSON text.
    UnrollRecursion,
    /// A subtree nested past the profile's depth limit (its `limit-depth` lint rule, counted
    /// the same way) carried as JSON text, from the deepest value on the way down whose text
    /// keeps the path within the limit.
    CarryDeep,
    /// Properties carried as JSON text, and optional ones bundled into one JSON-text property,
    /// until the schema is within the profile's size limits (its `limit-*` lint rules, counted
    /// the same way).
    FitLimits,
    /// Reports only: the profile's size limits (its `limit-*` lint rules) on the result.
    Limits,
}

/// Each profile's steps; see docs/rules.md ("Provider tailoring") for why each is sound.
pub fn steps(profile: Profile) -> &'static [Step] {
    use Step::*;
    match profile {
        Profile::OpenAiStrict => &[
            NullableToType,
            TupleItems,
            MergeAllOf,
            EncodeMaps,
            DistributeProperties,
            ConstType,
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
            // OpenAI's Java SDK refuses `$comment` anywhere and `$schema`/`$id` below the root
            // (lint: `comment-keyword`, `root-only-keyword`). At the root it allows them, but they
            // name the original's dialect and identity, and the tailored schema is neither: they
            // go too.
            DropListed {
                set: KeywordSet::Named(&["$schema", "$id", "$comment"]),
            },
            DropFormats { rule: "format" },
            DropComplexPatterns { all: false },
            RefSiblings {
                keep: &["$defs", "definitions"],
                wrap: true,
            },
            RequiredDeclared { add: true },
            CloseObjects,
            RequireAll,
            EncodeAny {
                stand_ins: &["type", "anyOf", "$ref", "enum"],
            },
            WrapRoot,
            RootObject,
            ArrayItems { typed: true },
            Typed,
            UnrollRecursion,
            CarryDeep,
            FitLimits,
            Limits,
        ],
        Profile::Gemini => &[
            TupleItems,
            MergeAllOf,
            EncodeMaps,
            EncodeEmptyObjects,
            DistributeProperties,
            RenameProperties { max: 64 },
            ConstType,
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
            EncodeEnums,
            EncodeAny {
                stand_ins: &["type", "anyOf"],
            },
            WrapRoot,
            RootObject,
            ArrayItems { typed: false },
            StringEnums,
        ],
        Profile::AnthropicStrict => &[
            TupleItems,
            MergeAllOf,
            EncodeMaps,
            DistributeProperties,
            ConstType,
            DropKeywords {
                rules: &["unsupported-keyword"],
            },
            // What the (second-hand) list of strict-mode features leaves out.
            DropListed {
                set: KeywordSet::Outside(ANTHROPIC_STRICT_KEYWORDS),
            },
            DropFormats { rule: "format" },
            DropComplexPatterns { all: true },
            MinItemsAtMost { max: 1 },
            CloseObjects,
            EncodeAny {
                stand_ins: &["type", "enum", "anyOf", "oneOf", "allOf", "$ref"],
            },
            WrapRoot,
            RootObject,
            FitLimits,
            Limits,
        ],
        // Ollama keeps `enum` but not `const`, and `items` as written but no map's value
        // schema; everything else it drops silently, and a schema cannot make it keep more.
        Profile::Ollama => &[ConstToEnum, EncodeDroppedMaps],
        // Each refuses a root that is not one object: a union flat mode could not merge (and
        // inline mode keeps every union) is sent wrapped in one, as for the strict profiles.
        Profile::OpenAi
        | Profile::GeminiJsonSchema
        | Profile::Anthropic
        | Profile::Bedrock
        | Profile::Mcp => &[WrapRoot, RootObject],
    }
}

/// A set of keywords: these, or all but these.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeywordSet {
    Named(&'static [&'static str]),
    Outside(&'static [&'static str]),
}

impl KeywordSet {
    /// Whether keyword `k` is one the set says to drop.
    fn drops(&self, k: &str) -> bool {
        match self {
            KeywordSet::Named(names) => names.contains(&k),
            KeywordSet::Outside(allowed) => !allowed.contains(&k),
        }
    }
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
    /// It accepts `null` itself: wrapped as `anyOf: [it, marker]`, an explicit `null` sent as
    /// the marker.
    Marked,
    /// It accepts `null` itself: the marker added to its `anyOf`.
    MarkedAlternative,
}

/// One size limit a tool's schema was over before tailoring: `count` of `what` where the
/// provider allows `max`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LimitCount {
    pub what: String,
    pub count: usize,
    pub max: usize,
}

fn limit_counts(limits: &[LimitCount]) -> String {
    limits
        .iter()
        .map(|l| format!("{} {} where it allows {}", l.count, l.what, l.max))
        .collect::<Vec<_>>()
        .join(", and ")
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
        /// The property that carries the other keys.
        carrier: String,
        /// The other keys go as a list of `{key, value}` entries (their values have a schema),
        /// rather than as the JSON text of an object (any value).
        entries: bool,
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
    /// `properties: {}` written on an object closed with no property declared.
    NoPropertiesDeclared {
        profile: Profile,
    },
    TypeFromValue {
        profile: Profile,
        /// `const` or `enum`.
        keyword: String,
        ty: String,
    },
    /// The parent's `type` copied into the alternatives that had none (the parent's type
    /// applies to the same value: `A and (B or C)` is `(A and B) or (A and C)`).
    TypeDistributed {
        profile: Profile,
        ty: Value,
        alternatives: Vec<usize>,
    },
    /// Alternatives whose types reach outside the parent's `type` narrowed to the types both
    /// allow.
    TypeNarrowed {
        profile: Profile,
        ty: Value,
        alternatives: Vec<usize>,
    },
    /// The parent's `type` dropped beside a union whose alternatives all name types within it.
    TypeImplied {
        profile: Profile,
        ty: Value,
    },
    TupleItems {
        profile: Profile,
        positions: usize,
        /// Nothing may follow the positions (`maxItems` set to their count).
        closed: bool,
    },
    MapEntries {
        profile: Profile,
        /// The keys were constrained by `patternProperties` (now folded into the value).
        patterns: bool,
    },
    JsonText {
        profile: Profile,
        /// Carried in `{key: text}` beside an alternative that takes strings.
        key: Option<String>,
        /// The keywords the value had (bounds without a kind, …), now checked only by the tool.
        constraints: Vec<String>,
    },
    EnumText {
        profile: Profile,
        values: Vec<EnumText>,
        /// `null` was one of the values: now a null alternative.
        null: bool,
    },
    WrapRoot {
        profile: Profile,
        property: String,
        why: String,
    },
    /// The object's keywords merged into each alternative of its union (`keyword`), which
    /// only added to its fields; `narrowed`: properties whose values an alternative limited.
    PropertiesDistributed {
        profile: Profile,
        keyword: String,
        alternatives: usize,
        narrowed: Vec<String>,
    },
    /// A value nested past the provider's depth limit, sent as its JSON text.
    DeepJsonText {
        profile: Profile,
        /// The levels of nesting before, and the provider's limit.
        levels: usize,
        limit: usize,
        /// The level of the value now carried as text.
        level: usize,
    },
    /// A definition copied for the level it is read at, so that the recursion through it
    /// can stop within the provider's depth limit (see [`Step::UnrollRecursion`]).
    RecursionUnrolled {
        profile: Profile,
        definition: String,
        /// The level the copy is read at, the levels it has left, and the provider's limit.
        level: usize,
        levels_left: usize,
        limit: usize,
    },
    /// A value of an unrolled recursion that would nest past the provider's depth limit, sent
    /// as its JSON text.
    RecursionCutDeep {
        profile: Profile,
        /// The levels of nesting before (through the recursion), and the provider's limit.
        levels: usize,
        limit: usize,
        /// The level of the value now carried as text.
        level: usize,
    },
    Renamed {
        profile: Profile,
        names: Vec<Renamed>,
    },
    /// A property sent as its JSON text so that the schema fits the provider's size limits.
    LimitJsonText {
        profile: Profile,
        /// The limits the tool was over before.
        limits: Vec<LimitCount>,
    },
    /// An object's `allOf` of plain object parts written as one object.
    AllOfMerged {
        profile: Profile,
        parts: usize,
        /// A part was closed: so is the merged object.
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        closed: bool,
        /// Names only open parts declared, which the closed parts refuse: left out.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        never_present: Vec<String>,
    },
    /// An `enum` dropped so that the schema fits the provider's size limits.
    LimitEnumDropped {
        profile: Profile,
        /// The enum's values and their characters, as the limits count them.
        values: usize,
        chars: usize,
        /// The limits the tool was over before.
        limits: Vec<LimitCount>,
    },
    /// Optional properties sent together as the JSON text of an object, in `property`.
    Bundled {
        profile: Profile,
        property: String,
        names: Vec<String>,
        limits: Vec<LimitCount>,
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
            | Tailoring::RequiredDeclared { profile, .. }
            | Tailoring::NoPropertiesDeclared { profile }
            | Tailoring::TypeFromValue { profile, .. }
            | Tailoring::TypeDistributed { profile, .. }
            | Tailoring::TypeImplied { profile, .. }
            | Tailoring::TypeNarrowed { profile, .. }
            | Tailoring::TupleItems { profile, .. }
            | Tailoring::MapEntries { profile, .. }
            | Tailoring::JsonText { profile, .. }
            | Tailoring::EnumText { profile, .. }
            | Tailoring::WrapRoot { profile, .. }
            | Tailoring::DeepJsonText { profile, .. }
            | Tailoring::RecursionUnrolled { profile, .. }
            | Tailoring::RecursionCutDeep { profile, .. }
            | Tailoring::PropertiesDistributed { profile, .. }
            | Tailoring::Renamed { profile, .. }
            | Tailoring::LimitJsonText { profile, .. }
            | Tailoring::LimitEnumDropped { profile, .. }
            | Tailoring::AllOfMerged { profile, .. }
            | Tailoring::Bundled { profile, .. } => *profile,
        }
    }

    pub fn message(&self) -> String {
        match self {
            Tailoring::CloseObject {
                profile,
                was,
                known,
                carrier,
                entries,
            } => format!(
                "{profile}: object closed (`additionalProperties: false`; it was {was}) because the provider requires it. LOSSY: the original accepts keys other than {} here; the payload adapter sends them in one more property, `{carrier}`, as {}, and puts them back on the way out.",
                if known.is_empty() {
                    "none".to_owned()
                } else {
                    ticks(known)
                },
                if *entries {
                    format!("a list of `{{\"{ENTRY_KEY}\": …, \"{ENTRY_VALUE}\": …}}` entries")
                } else {
                    "the JSON text of an object".to_owned()
                }
            ),
            Tailoring::RequiredNullable {
                profile,
                property,
                form,
            } => {
                let how = match form {
                    NullForm::Already => {
                        "it already accepts null, so absent and null now look the same"
                    }
                    NullForm::TypeList => "\"null\" added to its type",
                    NullForm::Alternative => "a null alternative added to its anyOf",
                    NullForm::Wrapped => "wrapped as anyOf [it, null]",
                    NullForm::Marked | NullForm::MarkedAlternative => {
                        "it accepts null itself, so an explicit null is sent as a marker value it cannot take, listed as one more alternative"
                    }
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
            Tailoring::NoPropertiesDeclared { profile } => format!(
                "{profile}: `properties: {{}}` written on an object closed with none declared: it takes `{{}}` alone either way (the same values), and the provider wants `properties` on every object."
            ),
            Tailoring::TypeFromValue {
                profile,
                keyword,
                ty,
            } => format!(
                "{profile}: `type: \"{ty}\"` added beside `{keyword}`, the type of its value(s) (the same values; the provider wants a type)."
            ),
            Tailoring::TypeDistributed {
                profile,
                ty,
                alternatives,
            } => format!(
                "{profile}: `type: {ty}` copied into the alternative(s) {} of the `anyOf`, which had none: the parent's type applies to the same value, so this says the same thing in the form the provider wants (a type on every subschema).",
                numbered(alternatives)
            ),
            Tailoring::TypeNarrowed {
                profile,
                ty,
                alternatives,
            } => format!(
                "{profile}: the alternative(s) {} of the `anyOf` narrowed to the types they share with the parent's `type: {ty}`: the parent's type applies to the same value, so this says the same thing (the same values), and the parent's type is then implied by the union.",
                numbered(alternatives)
            ),
            Tailoring::TypeImplied { profile, ty } => format!(
                "{profile}: `type: {ty}` dropped beside the `anyOf`: every alternative names its own type within it, so it said nothing the union does not (the same values). The alternatives are now the value's own forms, each tailored as one."
            ),
            Tailoring::TupleItems {
                profile,
                positions: 0,
                ..
            } => format!(
                "{profile}: the array said nothing about its items; `items: {{}}` written (the same values), since the provider needs an item schema."
            ),
            Tailoring::TupleItems {
                profile,
                positions,
                closed,
            } => format!(
                "{profile}: the tuple's {positions} position schema(s) became one `items` schema that accepts each of them{} (accepts more: which position takes which schema is no longer said; the provider takes one item schema).",
                if *closed {
                    ", with `maxItems` at the tuple's length"
                } else {
                    ""
                }
            ),
            Tailoring::MapEntries { profile, patterns } => format!(
                "{profile}: a map (an object whose keys are not listed{}) is sent as a list of `{{\"{ENTRY_KEY}\", \"{ENTRY_VALUE}\"}}` entries, {}. EXACT with the adapter: it turns the object into entries on the way in and back on the way out.",
                if *patterns {
                    "; the key patterns now only choose among the value schemas"
                } else {
                    ""
                },
                if *profile == Profile::Ollama {
                    "whose item schema Ollama shows the model as written (its Go structs have no field for a map's value schema, so the model would not see what the values may be)"
                } else {
                    "which the provider can describe"
                }
            ),
            Tailoring::JsonText {
                profile,
                key,
                constraints,
            } => {
                let form = match key {
                    None => "a string".to_owned(),
                    Some(k) => format!(
                        "`{{\"{k}\": text}}` (a sibling alternative takes strings, so a plain string is never read as JSON)"
                    ),
                };
                let mut s = format!(
                    "{profile}: this value may be anything, which the provider cannot describe; it is sent as its JSON text, in {form}. EXACT with the adapter: it encodes on the way in and decodes on the way out."
                );
                if !constraints.is_empty() {
                    s.push_str(&format!(
                        " What it said besides ({}) is left to the tool.",
                        ticks(constraints)
                    ));
                }
                s
            }
            Tailoring::EnumText {
                profile,
                values,
                null,
            } => format!(
                "{profile}: enum values that are not strings are sent as strings ({}){}; the provider's enums hold strings only. EXACT with the adapter.",
                values
                    .iter()
                    .map(|e| format!("{} → \"{}\"", e.value, e.text))
                    .collect::<Vec<_>>()
                    .join(", "),
                if *null {
                    "; `null` became a null alternative"
                } else {
                    ""
                }
            ),
            Tailoring::PropertiesDistributed {
                profile,
                keyword,
                alternatives,
                narrowed,
            } => format!(
                "{profile}: the `{keyword}` beside the object's properties only adds to its fields (\"one of these fields\": which are required{}); the object's keywords are written into each of its {alternatives} alternatives, so that each is one plain object the provider takes. The same values: an object matches an alternative now exactly when it matched the object and that alternative before.",
                if narrowed.is_empty() {
                    String::new()
                } else {
                    format!(", which values {} take", ticks(narrowed))
                }
            ),
            Tailoring::DeepJsonText {
                profile,
                levels,
                limit,
                level,
            } => format!(
                "{profile}: the schema nested {levels} levels deep where the provider allows {limit}; this value, at level {level}, is sent as its JSON text (a string), so nothing below it counts. EXACT with the adapter: it encodes on the way in and decodes on the way out; what the schema said below this value is left to the tool."
            ),
            Tailoring::RecursionUnrolled {
                profile,
                definition,
                level,
                levels_left,
                limit,
            } => format!(
                "{profile}: `{definition}` is recursive, and the provider follows a `$ref` until it reaches a definition already entered, counting every level it nests, up to {limit}. This is its copy for the `$ref`s read at level {level}: its own `$ref`s lead to the copies for their levels, so no path through the recursion nests past the limit ({levels_left} level(s) left here). The same values down to where a copy runs out of levels; there the value is sent as JSON text."
            ),
            Tailoring::RecursionCutDeep {
                profile,
                levels,
                limit,
                level,
            } => format!(
                "{profile}: the recursion nested {levels} levels deep where the provider allows {limit}; this value, at level {level}, is where its copy of the definition runs out of levels, so it is sent as its JSON text (a string). EXACT with the adapter: it encodes on the way in and decodes on the way out; what the schema said below this value (the rest of the recursion) is left to the tool."
            ),
            Tailoring::Renamed { profile, names } => format!(
                "{profile}: property names the provider refuses (a letter or `_` first, then letters, digits and `_`) are sent as {}. EXACT with the adapter: it renames on the way in and back on the way out.",
                names
                    .iter()
                    .map(|r| format!("`{}` → `{}`", r.name, r.sent_as))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Tailoring::LimitJsonText { profile, limits } => format!(
                "{profile}: this tool's schema has {}; this value is sent as its JSON text (a string), so nothing inside it counts, and a string is no union. EXACT with the adapter: it encodes on the way in and decodes on the way out; what the schema said inside this value is left to the tool.",
                limit_counts(limits)
            ),
            Tailoring::AllOfMerged {
                profile,
                parts,
                closed,
                never_present,
            } => {
                let mut s = format!(
                    "{profile}: the `allOf` of {parts} object part(s) merged into one object with all their properties and required names (the same values: each part only declared properties"
                );
                if *closed {
                    s.push_str(", and a closed part admits no other name, so the object is closed to the names every closed part declares");
                    if !never_present.is_empty() {
                        s.push_str(&format!(
                            "; {} cannot be present and are left out",
                            ticks(never_present)
                        ));
                    }
                }
                s.push_str("). The provider has no `allOf`, or closes every object, which no part can be alone.");
                s
            }
            Tailoring::LimitEnumDropped {
                profile,
                values,
                chars,
                limits,
            } => format!(
                "{profile}: this tool's schema has {}; this `enum` ({values} values, {chars} characters) is dropped and the value keeps its type, so its values no longer count. Accepts more, with no adapter: any value of that type passes the schema, and the tool is left to check it (its description says so). Sending it as JSON text instead would hide the value's type from the model too.",
                limit_counts(limits)
            ),
            Tailoring::Bundled {
                profile,
                property,
                names,
                limits,
            } => format!(
                "{profile}: this tool's schema has {}; the optional {} {} sent together as JSON text in `{property}` (an optional string holding an object of them), so they count as one optional property. EXACT with the adapter: it moves them into `{property}` on the way in and back out on the way out; what their schemas said is left to the tool.",
                limit_counts(limits),
                ticks(names),
                if names.len() == 1 { "is" } else { "are" }
            ),
            Tailoring::WrapRoot {
                profile,
                property,
                why,
            } => format!(
                "{profile}: the parameters are not one object ({why}), which the provider requires at the top; they are sent as the one property `{property}` of an object. EXACT with the adapter: it wraps on the way in and unwraps on the way out."
            ),
        }
    }
}

/// Alternatives' indices as the messages show them: `#0, #2`.
fn numbered(alternatives: &[usize]) -> String {
    alternatives
        .iter()
        .map(|i| format!("#{i}"))
        .collect::<Vec<_>>()
        .join(", ")
}
