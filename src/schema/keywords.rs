//! The table of subschema-bearing keywords. Everything that walks a schema reads this table.

/// How a keyword holds its subschemas.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    /// `{"not": S}`
    Single,
    /// `{"properties": {"name": S}}`
    Map,
    /// `{"allOf": [S, S]}`
    Array,
    /// `items`: one schema (2020-12) or a tuple (draft-07).
    SingleOrArray,
    /// draft-07 `dependencies`: values are schemas or arrays of names.
    MapOfSchemaOrNames,
}

/// What changing a subschema does to the meaning of the whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Position {
    /// Accepting more here makes the parent accept more (or the same): loosening is sound.
    Positive,
    /// Accepting more here can make the parent accept less (`not`, `if`): only an exact
    /// projection may stay, anything else must drop the keyword.
    ExactOnly,
    /// A definition container: not applied by itself, only reached through `$ref`.
    Definitions,
}

#[derive(Debug, Clone, Copy)]
pub struct Keyword {
    pub name: &'static str,
    pub slot: Slot,
    pub position: Position,
    /// Applies to the instance itself rather than to a member of it; such keywords feed
    /// `unevaluated*`, so their exactness matters there.
    pub in_place: bool,
}

const fn kw(name: &'static str, slot: Slot, position: Position, in_place: bool) -> Keyword {
    Keyword {
        name,
        slot,
        position,
        in_place,
    }
}

use Position::*;
use Slot::*;

pub const KEYWORDS: &[Keyword] = &[
    kw("$defs", Map, Definitions, false),
    kw("definitions", Map, Definitions, false),
    kw("properties", Map, Positive, false),
    kw("patternProperties", Map, Positive, false),
    kw("additionalProperties", Single, Positive, false),
    kw("propertyNames", Single, Positive, false),
    kw("dependentSchemas", Map, Positive, true),
    kw("dependencies", MapOfSchemaOrNames, Positive, true),
    kw("unevaluatedProperties", Single, Positive, false),
    kw("prefixItems", Array, Positive, false),
    kw("items", SingleOrArray, Positive, false),
    kw("additionalItems", Single, Positive, false),
    kw("contains", Single, Positive, false),
    kw("unevaluatedItems", Single, Positive, false),
    kw("allOf", Array, Positive, true),
    kw("anyOf", Array, Positive, true),
    kw("oneOf", Array, Positive, true),
    kw("not", Single, ExactOnly, true),
    kw("if", Single, ExactOnly, true),
    kw("then", Single, Positive, true),
    kw("else", Single, Positive, true),
    kw("contentSchema", Single, Positive, false),
];

pub fn lookup(name: &str) -> Option<&'static Keyword> {
    KEYWORDS.iter().find(|k| k.name == name)
}

/// Keywords that never change what a schema accepts; they may be rewritten freely.
pub const ANNOTATIONS: &[&str] = &[
    "title",
    "description",
    "examples",
    "default",
    "$comment",
    "deprecated",
    "readOnly",
    "writeOnly",
    "contentMediaType",
    "contentEncoding",
];

pub fn is_annotation(name: &str) -> bool {
    ANNOTATIONS.contains(&name)
}

/// Identifier keywords: meaningful only for resolution, which projection performs, so they do
/// not survive into the output (copies of an inlined `$id` would clash).
pub const IDENTIFIERS: &[&str] = &[
    "$id",
    "$anchor",
    "$dynamicAnchor",
    "$recursiveAnchor",
    "$vocabulary",
];
