//! The catalogue of change kinds: what each means, and which way it moves the set of payloads
//! the node accepts. The class a reader sees is derived from this direction and from where the
//! node sits (see `classify`), never from the kind alone.

use serde::Serialize;

/// Which way a change moves the set of values the changed node accepts, on its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Direction {
    /// NEW accepts a subset: some payload may now be rejected (proven only by a witness).
    Narrows,
    /// NEW accepts a superset, by the nature of the change.
    Widens,
    /// Annotations only: nothing accepted changes.
    Neutral,
    /// Either way, or neither; only a witness can tell.
    Unknown,
}

impl Direction {
    /// The direction seen from above a `not`.
    pub fn flipped(self) -> Direction {
        match self {
            Direction::Narrows => Direction::Widens,
            Direction::Widens => Direction::Narrows,
            other => other,
        }
    }
}

/// One kind of change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Kind {
    pub id: &'static str,
    pub direction: Direction,
    /// What the kind means, for `--help` and the docs.
    pub meaning: &'static str,
}

const fn kind(id: &'static str, direction: Direction, meaning: &'static str) -> Kind {
    Kind {
        id,
        direction,
        meaning,
    }
}

use Direction::{Narrows, Neutral, Unknown, Widens};

pub const KINDS: &[Kind] = &[
    // Tools.
    kind(
        "tool-added",
        Widens,
        "a tool only NEW has: nothing that worked stops working",
    ),
    kind(
        "tool-removed",
        Narrows,
        "a tool only OLD has: every call to it now fails",
    ),
    kind(
        "tool-description-changed",
        Neutral,
        "the tool's description",
    ),
    // Annotations and vocabulary that validation ignores.
    kind(
        "annotation-changed",
        Neutral,
        "description, title, examples, default, deprecated, …",
    ),
    kind(
        "extension-changed",
        Neutral,
        "an `x-` extension keyword (validators ignore it)",
    ),
    kind(
        "discriminator-changed",
        Neutral,
        "the OpenAPI `discriminator` hint (validation is by the alternatives)",
    ),
    // Types.
    kind(
        "type-narrowed",
        Narrows,
        "`type` lists fewer kinds of value",
    ),
    kind(
        "type-widened",
        Widens,
        "`type` lists more kinds of value, or was removed",
    ),
    kind("type-changed", Unknown, "`type` lists other kinds of value"),
    // Literals (`const` is read as a one-value `enum`).
    kind(
        "enum-added",
        Narrows,
        "an `enum`/`const` where there was none",
    ),
    kind("enum-removed", Widens, "the `enum`/`const` was removed"),
    kind(
        "enum-values-removed",
        Narrows,
        "values removed from `enum`/`const`",
    ),
    kind(
        "enum-values-added",
        Widens,
        "values added to `enum`/`const`",
    ),
    // Bounds.
    kind(
        "bound-added",
        Narrows,
        "a new minimum/maximum, length, item or property count bound",
    ),
    kind("bound-removed", Widens, "a bound was removed"),
    kind("bound-tightened", Narrows, "a bound moved inwards"),
    kind("bound-loosened", Widens, "a bound moved outwards"),
    kind("multiple-of-added", Narrows, "a new `multipleOf`"),
    kind("multiple-of-removed", Widens, "`multipleOf` was removed"),
    kind(
        "multiple-of-coarser",
        Narrows,
        "`multipleOf` became a multiple of the old one",
    ),
    kind(
        "multiple-of-finer",
        Widens,
        "`multipleOf` became a divisor of the old one",
    ),
    kind(
        "multiple-of-changed",
        Unknown,
        "`multipleOf` changed otherwise",
    ),
    // Strings.
    kind("pattern-added", Narrows, "a new `pattern`"),
    kind("pattern-removed", Widens, "`pattern` was removed"),
    kind(
        "pattern-changed",
        Unknown,
        "`pattern` changed (regular expressions are not compared)",
    ),
    kind(
        "format-added",
        Unknown,
        "a new `format` (asserted only by validators that check formats)",
    ),
    kind("format-removed", Widens, "`format` was removed"),
    kind("format-changed", Unknown, "`format` changed"),
    // Arrays.
    kind("unique-items-added", Narrows, "`uniqueItems: true` added"),
    kind(
        "unique-items-removed",
        Widens,
        "`uniqueItems: true` removed",
    ),
    // Objects.
    kind("required-added", Narrows, "a property became required"),
    kind(
        "required-removed",
        Widens,
        "a property is no longer required",
    ),
    kind(
        "property-added-to-open-object",
        Narrows,
        "a typed property added where any value was allowed",
    ),
    kind(
        "property-added-to-closed-object",
        Widens,
        "a property added where none other was allowed",
    ),
    kind(
        "property-added",
        Unknown,
        "a property added where `additionalProperties` or `patternProperties` judged it",
    ),
    kind(
        "property-removed-from-open-object",
        Widens,
        "a property's schema removed: any value is now allowed",
    ),
    kind(
        "property-removed-from-closed-object",
        Narrows,
        "a property removed where no other is allowed",
    ),
    kind(
        "property-removed",
        Unknown,
        "a property removed where `additionalProperties` or `patternProperties` now judge it",
    ),
    // Subschemas.
    kind(
        "schema-became-false",
        Narrows,
        "a subschema became `false` (e.g. `additionalProperties: false`)",
    ),
    kind(
        "schema-no-longer-false",
        Widens,
        "a `false` subschema now accepts something",
    ),
    kind(
        "keyword-added",
        Narrows,
        "a constraint added beside the others (`not`, `contains`, `allOf`, …)",
    ),
    kind("keyword-removed", Widens, "a constraint removed"),
    kind(
        "keyword-changed",
        Unknown,
        "a keyword whose change schemalens cannot order",
    ),
    kind(
        "alternative-added",
        Widens,
        "an `anyOf` alternative added (or a value turned into a union)",
    ),
    kind(
        "alternative-removed",
        Narrows,
        "an `anyOf`/`oneOf` alternative removed",
    ),
    kind(
        "oneof-became-anyof",
        Widens,
        "`oneOf` became `anyOf` over alternatives that may overlap",
    ),
    kind(
        "anyof-became-oneof",
        Narrows,
        "`anyOf` became `oneOf`: a value matching several is rejected",
    ),
    kind(
        "oneof-alternative-added",
        Unknown,
        "a `oneOf` alternative added where alternatives may overlap",
    ),
    kind("allof-part-added", Narrows, "an `allOf` part added"),
    kind("allof-part-removed", Widens, "an `allOf` part removed"),
    kind(
        "ref-unresolvable",
        Unknown,
        "a `$ref` one side cannot resolve",
    ),
    kind("dialect-changed", Unknown, "`$schema` names another draft"),
    kind(
        "comparison-limit",
        Unknown,
        "the comparison stopped here (depth or size limit)",
    ),
    // Projection: rule applications.
    kind(
        "rule-applied",
        Neutral,
        "a projection rule now applies here (class: of the changes it explains)",
    ),
    kind(
        "rule-no-longer-applied",
        Neutral,
        "a projection rule no longer applies here",
    ),
    kind("projection-failed", Unknown, "one version does not project"),
];

/// The kind with this id; the ids are this module's own constants, so a miss is a bug.
pub fn kind_of(id: &str) -> &'static Kind {
    KINDS
        .iter()
        .find(|k| k.id == id)
        .unwrap_or_else(|| panic!("unknown change kind {id}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_kebab_case() {
        let mut seen = std::collections::HashSet::new();
        for k in KINDS {
            assert!(seen.insert(k.id), "{} twice", k.id);
            assert!(
                k.id.chars().all(|c| c.is_ascii_lowercase() || c == '-'),
                "{}",
                k.id
            );
        }
    }
}
