//! What the projection did and why: one entry per rule application, plus the links between
//! projection nodes and the original nodes they came from. The TUI and `explain` read only this.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::Serialize;
use serde_json::Value;

/// The rules of SPEC.md, plus the soundness guards this engine adds where the spec is silent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, PartialOrd, Ord)]
#[serde(rename_all = "kebab-case")]
pub enum Rule {
    RefInline,
    Recursion,
    Unresolvable,
    OneofToAnyof,
    DiscriminatorStrip,
    DuDetect,
    DuObject,
    DuEnum,
    RequiredIntersection,
    CollisionJoin,
    ObjectPolicy,
    NullableOptional,
    AllofMerge,
    SoundnessGuard,
    /// Rule 10's *open alternatives* policy under `--open-branches declared`.
    OpenBranchDeclared,
    // Provider tailoring (`tailor`): a post-pass for one provider, with no SPEC number.
    TailorCloseObject,
    TailorRequiredNullable,
    TailorConstEnum,
    TailorTypeNullable,
    TailorTypeSplit,
    TailorDropKeyword,
    TailorRefSiblings,
    TailorRequiredDeclared,
    TailorTypeAdded,
    TailorTupleItems,
    TailorMapEntries,
    TailorJsonText,
    TailorEnumText,
    TailorWrapRoot,
    TailorRenameProperties,
    TailorDistributeProperties,
}

impl Rule {
    pub const ALL: [Rule; 31] = [
        Rule::RefInline,
        Rule::Recursion,
        Rule::Unresolvable,
        Rule::OneofToAnyof,
        Rule::DiscriminatorStrip,
        Rule::DuDetect,
        Rule::DuObject,
        Rule::DuEnum,
        Rule::RequiredIntersection,
        Rule::CollisionJoin,
        Rule::ObjectPolicy,
        Rule::NullableOptional,
        Rule::AllofMerge,
        Rule::SoundnessGuard,
        Rule::OpenBranchDeclared,
        Rule::TailorCloseObject,
        Rule::TailorRequiredNullable,
        Rule::TailorConstEnum,
        Rule::TailorTypeNullable,
        Rule::TailorTypeSplit,
        Rule::TailorDropKeyword,
        Rule::TailorRefSiblings,
        Rule::TailorRequiredDeclared,
        Rule::TailorTypeAdded,
        Rule::TailorTupleItems,
        Rule::TailorMapEntries,
        Rule::TailorJsonText,
        Rule::TailorEnumText,
        Rule::TailorWrapRoot,
        Rule::TailorRenameProperties,
        Rule::TailorDistributeProperties,
    ];

    pub fn id(self) -> &'static str {
        match self {
            Rule::RefInline => "ref-inline",
            Rule::Recursion => "recursion",
            Rule::Unresolvable => "unresolvable",
            Rule::OneofToAnyof => "oneof-to-anyof",
            Rule::DiscriminatorStrip => "discriminator-strip",
            Rule::DuDetect => "du-detect",
            Rule::DuObject => "du-object",
            Rule::DuEnum => "du-enum",
            Rule::RequiredIntersection => "required-intersection",
            Rule::CollisionJoin => "collision-join",
            Rule::ObjectPolicy => "object-policy",
            Rule::NullableOptional => "nullable-optional",
            Rule::AllofMerge => "allof-merge",
            Rule::SoundnessGuard => "soundness-guard",
            Rule::OpenBranchDeclared => "open-branch-declared",
            Rule::TailorCloseObject => "tailor-close-object",
            Rule::TailorRequiredNullable => "tailor-required-nullable",
            Rule::TailorConstEnum => "tailor-const-enum",
            Rule::TailorTypeNullable => "tailor-type-nullable",
            Rule::TailorTypeSplit => "tailor-type-split",
            Rule::TailorDropKeyword => "tailor-drop-keyword",
            Rule::TailorRefSiblings => "tailor-ref-siblings",
            Rule::TailorRequiredDeclared => "tailor-required-declared",
            Rule::TailorTypeAdded => "tailor-type-added",
            Rule::TailorTupleItems => "tailor-tuple-items",
            Rule::TailorMapEntries => "tailor-map-entries",
            Rule::TailorJsonText => "tailor-json-text",
            Rule::TailorEnumText => "tailor-enum-text",
            Rule::TailorWrapRoot => "tailor-wrap-root",
            Rule::TailorRenameProperties => "tailor-rename-properties",
            Rule::TailorDistributeProperties => "tailor-distribute-properties",
        }
    }

    /// The rule's number in SPEC.md; the guards and the tailoring steps are this project's own
    /// addition.
    pub fn number(self) -> Option<u8> {
        if self == Rule::OpenBranchDeclared {
            // A policy of rule 10 (collision join), with an id of its own so that it can be
            // highlighted and switched.
            return Some(10);
        }
        let n = Rule::ALL.iter().position(|r| *r == self)? as u8 + 1;
        (n <= 13).then_some(n)
    }

    pub fn from_id(id: &str) -> Option<Rule> {
        Rule::ALL.into_iter().find(|r| r.id() == id)
    }
}

impl std::fmt::Display for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.id())
    }
}

/// The tags one union alternative carries (several when it is itself a flattened union).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BranchTags {
    pub from: String,
    pub tags: Vec<Value>,
}

/// An open alternative that does not declare a property another alternative declares: it
/// tolerates any value there (or what its `additionalProperties` allows).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Tolerating {
    /// The alternative's original node.
    pub from: String,
    pub tags: Vec<Value>,
    /// What the alternative accepts under the name: `{}`, or its `additionalProperties`.
    pub allows: Value,
}

/// How rule 10 joined one property.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum JoinOutcome {
    /// All alternatives were the same schema.
    Deduplicated,
    /// Some alternative proves no kind: the property accepts anything.
    Unconstrained,
    /// Objects or arrays involved: alternatives kept side by side in `anyOf`.
    Alternatives,
    /// Scalars only: one schema with the union of the types and the loosest bounds.
    Widened,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Detail {
    RefInlined {
        reference: String,
        target: String,
        siblings: String,
    },
    RecursionCut {
        reference: String,
        target: String,
        depth: usize,
    },
    RecursionKept {
        reference: String,
        definition: String,
    },
    /// Rule 1 for a provider whose size limits the inlined copies cross: the reference is
    /// kept, its target written once under `$defs` (the root's [`Detail::DefinitionsShared`]
    /// says why).
    RefShared {
        reference: String,
        definition: String,
    },
    /// At the root: the schema, inlined, is over the provider's counts, so definitions
    /// referenced from several places are written once.
    DefinitionsShared {
        /// What inlining would have made the schema hold, against the provider's limits.
        over: String,
        /// How many definitions are written once.
        definitions: usize,
    },
    /// The default unrolling depth did not fit the unrolling budget; fewer levels were used.
    RecursionLowered {
        requested: usize,
        used: usize,
        /// Schema nodes unrolling may add beyond cutting at the first re-entry.
        budget: usize,
        /// JSON values in the input (the budget scales with it).
        input: usize,
    },
    Unresolvable {
        reference: String,
        reason: String,
    },
    OneOfToAnyOf {
        alternatives: usize,
        combined_with_any_of: bool,
    },
    DiscriminatorStripped {
        property_name: Option<String>,
    },
    UnionFlattened {
        property: String,
        alternatives: Vec<BranchTags>,
    },
    UnionKept {
        reason: String,
    },
    /// Rule 6: an alternative that is itself a union of objects all carrying the same tags was
    /// joined into one object first (rules 9–11 among its members).
    SameTagGroup {
        property: String,
        tags: Vec<Value>,
        /// The members' original nodes.
        members: Vec<String>,
    },
    /// Rule 9 among the members of a same-tag group: they share the tag, so what is lost is
    /// counted in shapes.
    ShapeRequiredDropped {
        property: String,
        discriminator: String,
        tags: Vec<Value>,
        shapes: usize,
        present_in: usize,
        required_in: usize,
        hint: Option<String>,
    },
    ObjectBuilt {
        properties: Vec<String>,
    },
    TagEnum {
        property: String,
        tags: Vec<Value>,
    },
    RequiredDropped {
        property: String,
        discriminator: String,
        required_when: Vec<Value>,
        present_when: Option<Vec<Value>>,
        hint: Option<String>,
    },
    Joined {
        property: String,
        outcome: JoinOutcome,
        alternatives: Vec<BranchTags>,
        dropped: Vec<String>,
        reason: Option<String>,
    },
    KeywordDropped {
        keyword: String,
        reason: String,
    },
    /// `--open-branches declared`: the property keeps the shape of the alternatives that
    /// declare it; the tolerating ones contribute nothing, so a foreign value under that name
    /// is no longer accepted.
    OpenBranchDeclared {
        property: String,
        discriminator: String,
        /// The alternatives that declare the property (`from`: the declaring property).
        declaring: Vec<BranchTags>,
        tolerating: Vec<Tolerating>,
    },
    NullKept {
        alternatives: usize,
    },
    AllOfMerged {
        parts: usize,
        dropped: Vec<String>,
    },
    AllOfKept {
        reason: String,
    },
    /// A provider-tailoring step (one variant for all of them, so that a new step does not
    /// change every exhaustive match over `Detail`).
    Tailored(super::tailor::Tailoring),
}

/// One rule application.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TraceEntry {
    pub rule: Rule,
    /// Where in the projection the result sits.
    pub at: String,
    /// The original node(s) it came from.
    pub from: Vec<String>,
    pub detail: Detail,
}

fn tag_list(tags: &[Value]) -> String {
    let rendered: Vec<String> = tags.iter().map(Value::to_string).collect();
    match rendered.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {}", init.join(", "), last),
    }
}

/// "`action` is "create" or "update"" — the wording shared by hints and explanations.
pub fn condition(discriminator: &str, tags: &[Value]) -> String {
    format!("{discriminator} is {}", tag_list(tags))
}

impl TraceEntry {
    /// One plain sentence saying what happened and why; the UI and `explain` show it as is.
    pub fn message(&self) -> String {
        match &self.detail {
            Detail::RefInlined {
                reference,
                siblings,
                ..
            } => format!("`$ref` {reference} replaced by its target{siblings}."),
            Detail::RecursionCut {
                reference,
                target,
                depth,
            } => format!(
                "Recursive `$ref` {reference} would re-enter #{target} on a path that already re-enters open definitions {depth} time(s), the unrolling depth, so it is replaced by {{}} (accepts anything, so nothing valid is lost)."
            ),
            Detail::RecursionKept {
                reference,
                definition,
            } => format!(
                "Recursive `$ref` {reference} kept as a reference to #/$defs/{definition} (recursion kept)."
            ),
            Detail::RefShared {
                reference,
                definition,
            } => format!(
                "`$ref` {reference} kept as a reference to #/$defs/{definition}, written once for every place that refers to it (the root's entry says why); the same values are accepted."
            ),
            Detail::DefinitionsShared { over, definitions } => format!(
                "Inlined at each reference, the schema would hold {over}: {definitions} object definition(s) referenced from two or more places are written once under `$defs` instead. The provider takes `$defs` and counts its limits as written; the same values are accepted."
            ),
            Detail::RecursionLowered {
                requested,
                used,
                budget,
                input,
            } => format!(
                "Recursion unrolled to depth {used} instead of {requested}: depth {requested} would add more than {budget} schema nodes, the unrolling budget for an input of {input} JSON values; below the cuts anything is accepted (`--recursion unroll={requested}` asks for that depth exactly)."
            ),
            Detail::Unresolvable { reference, reason } => format!(
                "`$ref` {reference} cannot be resolved ({reason}); replaced by {{}}, which accepts anything."
            ),
            Detail::OneOfToAnyOf {
                alternatives,
                combined_with_any_of,
            } => {
                let base = format!(
                    "`oneOf` with {alternatives} alternative(s) became `anyOf`: anyOf accepts every instance oneOf accepts (it only stops requiring exactly one match)"
                );
                if *combined_with_any_of {
                    format!("{base}; the node already had `anyOf`, so both are kept under `allOf`.")
                } else {
                    format!("{base}.")
                }
            }
            Detail::DiscriminatorStripped { property_name } => match property_name {
                Some(p) => format!(
                    "OpenAPI `discriminator` (propertyName `{p}`) removed: it is not JSON Schema and providers reject it; it was used to identify the union first."
                ),
                None => "OpenAPI `discriminator` removed: it is not JSON Schema.".to_owned(),
            },
            Detail::UnionFlattened {
                property,
                alternatives,
            } => format!(
                "Discriminated union on `{property}` with {} alternatives ({}) merged into one object.",
                alternatives.len(),
                alternatives
                    .iter()
                    .map(|b| tag_list(&b.tags))
                    .collect::<Vec<_>>()
                    .join("; ")
            ),
            Detail::UnionKept { reason } => {
                format!("Union left as `anyOf`: not a discriminated union because {reason}.")
            }
            Detail::SameTagGroup {
                property,
                tags,
                members,
            } => format!(
                "{} alternatives share their tag ({}): joined into one object first (rules 9–11 among them), which then takes part in the union under that tag.",
                members.len(),
                condition(property, tags)
            ),
            Detail::ShapeRequiredDropped {
                property,
                discriminator,
                tags,
                shapes,
                present_in,
                required_in,
                ..
            } => {
                let mut s = format!(
                    "`{property}` is no longer required: of the {shapes} shapes when {}, {present_in} have it",
                    condition(discriminator, tags)
                );
                if *required_in > 0 {
                    s.push_str(&format!(" and {required_in} require it"));
                }
                s.push_str(". Only properties every shape requires stay required.");
                s
            }
            Detail::ObjectBuilt { properties } => format!(
                "One object with the properties of every alternative: {}.",
                properties.join(", ")
            ),
            Detail::TagEnum { property, tags } => format!(
                "`{property}` lists every alternative's tag: {}.",
                tag_list(tags)
            ),
            Detail::RequiredDropped {
                property,
                discriminator,
                required_when,
                present_when,
                ..
            } => {
                let mut s = format!("`{property}` is no longer required: ");
                if let Some(present) = present_when {
                    s.push_str(&format!(
                        "it exists only when {}",
                        condition(discriminator, present)
                    ));
                    if required_when == present {
                        s.push_str(" (and is required there)");
                    } else if !required_when.is_empty() {
                        s.push_str(&format!(
                            " and is required when {}",
                            condition(discriminator, required_when)
                        ));
                    }
                } else {
                    s.push_str(&format!(
                        "it is required only when {}",
                        condition(discriminator, required_when)
                    ));
                }
                s.push_str(". Only properties every alternative requires stay required.");
                s
            }
            Detail::Joined {
                property,
                outcome,
                alternatives,
                dropped,
                reason,
            } => {
                let n = alternatives.len();
                let mut s = match outcome {
                    JoinOutcome::Deduplicated => format!(
                        "`{property}` has the same schema in every alternative that defines it: kept once"
                    ),
                    JoinOutcome::Unconstrained => format!(
                        "`{property}` accepts anything: one of its {n} alternatives proves no type"
                    ),
                    JoinOutcome::Alternatives => format!(
                        "`{property}` differs between alternatives and involves objects or arrays: its {n} shapes are kept as `anyOf`"
                    ),
                    JoinOutcome::Widened => format!(
                        "`{property}` has different scalar schemas in {n} alternatives: widened to one schema accepting each"
                    ),
                };
                if let Some(r) = reason {
                    s.push_str(&format!(" ({r})"));
                }
                if !dropped.is_empty() {
                    s.push_str(&format!("; dropped {}", dropped.join(", ")));
                }
                s.push('.');
                s
            }
            Detail::KeywordDropped { keyword, reason } => {
                format!("`{keyword}` dropped: {reason}.")
            }
            Detail::OpenBranchDeclared {
                property,
                discriminator,
                declaring,
                tolerating,
            } => open_branch_message(property, discriminator, declaring, tolerating),
            Detail::NullKept { alternatives } => format!(
                "Optional union: {alternatives} null alternative(s) kept beside the merged object."
            ),
            Detail::AllOfMerged { parts, dropped } => {
                let mut s = format!("`allOf` of {parts} part(s) merged into one schema");
                if !dropped.is_empty() {
                    s.push_str(&format!(
                        "; conflicting {} dropped (dropping a constraint only accepts more)",
                        dropped.join(", ")
                    ));
                }
                s.push('.');
                s
            }
            Detail::AllOfKept { reason } => format!("`allOf` kept: {reason}."),
            Detail::Tailored(t) => t.message(),
        }
    }
}

fn tags_of<'a>(branches: impl Iterator<Item = &'a Vec<Value>>) -> Vec<Value> {
    let mut tags: Vec<Value> = Vec::new();
    for t in branches.flatten() {
        if !tags.contains(t) {
            tags.push(t.clone());
        }
    }
    tags
}

fn open_branch_message(
    property: &str,
    discriminator: &str,
    declaring: &[BranchTags],
    tolerating: &[Tolerating],
) -> String {
    let declared_tags = tags_of(declaring.iter().map(|b| &b.tags));
    let open_tags = tags_of(tolerating.iter().map(|t| &t.tags));
    let declared = condition(discriminator, &declared_tags);
    let open = condition(discriminator, &open_tags);
    let any_value = tolerating
        .iter()
        .all(|t| t.allows == Value::Object(Default::default()));
    let what = if any_value {
        "any value".to_owned()
    } else {
        "whatever its additionalProperties allows".to_owned()
    };
    let whose = if declared_tags == open_tags {
        // A same-tag group: its members share the tag, so only their shapes differ.
        format!(
            "Among the shapes when {declared}, `{property}` keeps the shape of those that declare it; the others do not declare `{property}` but are open"
        )
    } else {
        format!(
            "`{property}` keeps the shape declared when {declared}. When {open} the object does not declare `{property}` but is open"
        )
    };
    format!(
        "{whose}, so the original accepts {what} there; the projection no longer accepts such a foreign `{property}` outside the declared shape (--open-branches strict accepts it, and leaves `{property}` unconstrained)."
    )
}

/// Projection pointer ↔ original pointers, for every node the projection emitted.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Links {
    forward: BTreeMap<String, Vec<String>>,
    #[serde(skip)]
    backward: BTreeMap<String, Vec<String>>,
    /// Made by [`Links::forward_only`]: `backward` stays empty.
    #[serde(skip)]
    forward_only: bool,
    /// Backward entries removed and not yet filtered out of their lists: by original, the
    /// projection pointers gone (see [`Links::remove_within_all`]).
    #[serde(skip)]
    gone: HashMap<String, HashSet<String>>,
}

impl Links {
    /// Links that answer [`Links::originals`] only ([`Links::projections`] finds nothing): for
    /// a caller that only goes from the projection back to the original (the lint's
    /// tailoring), the backward side is a second pointer per node of a large projection.
    pub(crate) fn forward_only() -> Links {
        Links {
            forward_only: true,
            ..Links::default()
        }
    }

    /// Duplicates in the backward lists are removed by [`Links::seal`]; checking here would
    /// make a target inlined many times quadratic.
    pub(crate) fn insert(&mut self, projection: String, originals: Vec<String>) {
        let backward = if self.forward_only {
            &[][..]
        } else {
            &originals[..]
        };
        for o in backward {
            if !self.gone.is_empty() {
                self.filter_gone_if_back(o, &projection);
            }
            // Most originals are already listed: look up before copying the key.
            match self.backward.get_mut(o) {
                Some(list) => list.push(projection.clone()),
                None => {
                    self.backward.insert(o.clone(), vec![projection.clone()]);
                }
            }
        }
        let fwd = self.forward.entry(projection).or_default();
        for o in originals {
            if !fwd.contains(&o) {
                fwd.push(o);
            }
        }
    }

    pub(crate) fn seal(&mut self) {
        self.filter_all_gone();
        for list in self.backward.values_mut() {
            // Marked first, then kept: a set of borrowed pointers cannot live through the
            // `retain` that drops them, and copying every pointer of a large projection into a
            // set cost more than the rest of sealing.
            let mut seen: std::collections::HashSet<&str, super::refgraph::FastHash> =
                std::collections::HashSet::with_capacity_and_hasher(list.len(), Default::default());
            let keep: Vec<bool> = list.iter().map(|p| seen.insert(p.as_str())).collect();
            drop(seen);
            let mut keep = keep.into_iter();
            list.retain(|_| keep.next().unwrap_or(true));
        }
    }

    /// Forgets the projection nodes at or below `prefix` (a tailoring step dropped them).
    ///
    /// Visits only the pointers under `prefix` (contiguous in the ordered map); their
    /// originals' backward lists are filtered later (see [`Links::remove_within_all`]): a
    /// tailoring that carries many subtrees as JSON text removes once per carrier, and a pass
    /// over every link each time made it quadratic.
    pub(crate) fn remove_within(&mut self, prefix: &str) {
        self.remove_within_all(&[prefix]);
    }

    /// [`Links::remove_within`] of every prefix at once.
    ///
    /// The backward lists are filtered when they are next read or written, not here: a
    /// definition inlined K times and carried as text at every copy would otherwise filter its
    /// K-long list K times. Filtering later gives the same lists, because a pointer is only
    /// listed with the originals its forward entry names, and one that comes back filters its
    /// originals' lists first ([`Links::insert`]).
    pub(crate) fn remove_within_all(&mut self, prefixes: &[&str]) {
        for prefix in prefixes {
            for p in self.forward_within(prefix) {
                let Some(originals) = self.forward.remove(&p) else {
                    continue;
                };
                if self.forward_only {
                    continue;
                }
                for o in originals {
                    self.gone.entry(o).or_default().insert(p.clone());
                }
            }
        }
    }

    /// Before `projection` is listed again under `original`: filters that list when the
    /// pointer was removed from it, so the new entry is not filtered with the old.
    fn filter_gone_if_back(&mut self, original: &str, projection: &str) {
        let back = self
            .gone
            .get(original)
            .is_some_and(|g| g.contains(projection));
        if back && let Some(gone) = self.gone.remove(original) {
            self.filter_list(original, &gone);
        }
    }

    fn filter_all_gone(&mut self) {
        for (original, gone) in std::mem::take(&mut self.gone) {
            self.filter_list(&original, &gone);
        }
    }

    fn filter_list(&mut self, original: &str, gone: &HashSet<String>) {
        if let Some(list) = self.backward.get_mut(original) {
            list.retain(|p| !gone.contains(p));
        }
    }

    /// The projection pointers at or below `prefix`.
    fn forward_within(&self, prefix: &str) -> Vec<String> {
        crate::pointer::entries_within(&self.forward, prefix)
            .map(|(p, _)| p.clone())
            .collect()
    }

    /// Gives the projection nodes at or below `to` the originals of those at or below `from`
    /// (a tailoring step copied that subtree there).
    pub(crate) fn copy_within(&mut self, from: &str, to: &str) {
        let copied: Vec<(String, Vec<String>)> =
            crate::pointer::entries_within(&self.forward, from)
                .map(|(p, o)| (format!("{to}{}", &p[from.len()..]), o.clone()))
                .collect();
        for (p, originals) in copied {
            self.insert(p, originals);
        }
    }

    /// The original nodes a projection node came from.
    pub fn originals(&self, projection: &str) -> &[String] {
        self.forward.get(projection).map_or(&[], Vec::as_slice)
    }

    /// The projection nodes an original node contributed to (several when inlined twice).
    pub fn projections(&self, original: &str) -> &[String] {
        debug_assert!(self.gone.is_empty(), "backward lists are read once sealed");
        self.backward.get(original).map_or(&[], Vec::as_slice)
    }

    pub fn len(&self) -> usize {
        self.forward.len()
    }

    pub fn is_empty(&self) -> bool {
        self.forward.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = (&String, &Vec<String>)> {
        self.forward.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn rule_numbers_follow_the_spec() {
        assert_eq!(Rule::RefInline.number(), Some(1));
        assert_eq!(Rule::NullableOptional.number(), Some(12));
        assert_eq!(Rule::AllofMerge.number(), Some(13));
        assert_eq!(Rule::SoundnessGuard.number(), None);
        assert_eq!(Rule::TailorCloseObject.number(), None);
        assert_eq!(Rule::TailorRequiredDeclared.number(), None);
        assert_eq!(
            Rule::from_id("tailor-required-nullable"),
            Some(Rule::TailorRequiredNullable)
        );
        for rule in Rule::ALL {
            assert_eq!(Rule::from_id(rule.id()), Some(rule));
        }
        assert_eq!(Rule::from_id("du-enum"), Some(Rule::DuEnum));
    }

    #[test]
    fn conditions_read_naturally() {
        assert_eq!(
            condition("action", &[json!("create")]),
            "action is \"create\""
        );
        assert_eq!(
            condition("k", &[json!("a"), json!("b"), json!(3)]),
            "k is \"a\", \"b\" or 3"
        );
    }

    #[test]
    fn links_work_both_ways() {
        let mut l = Links::default();
        l.insert("/properties/a".into(), vec!["/$defs/A".into(), "/x".into()]);
        l.insert("/properties/b".into(), vec!["/$defs/A".into()]);
        l.insert("/properties/b".into(), vec!["/$defs/A".into()]);
        l.seal();
        assert_eq!(l.originals("/properties/a"), ["/$defs/A", "/x"]);
        assert_eq!(
            l.projections("/$defs/A"),
            ["/properties/a", "/properties/b"]
        );
        assert!(l.originals("/nope").is_empty());
    }

    #[test]
    fn a_pointer_removed_and_linked_again_is_listed_once_after_the_others() {
        let mut l = Links::default();
        for p in ["/a", "/b", "/c"] {
            l.insert(p.into(), vec!["/O".into()]);
        }
        l.remove_within("/a");
        l.insert("/a".into(), vec!["/O".into()]);
        l.remove_within("/b");
        l.seal();
        // As if each removal had filtered the list at once: the new `/a` comes last.
        assert_eq!(l.projections("/O"), ["/c", "/a"]);
        assert_eq!(l.originals("/a"), ["/O"]);
        assert!(l.originals("/b").is_empty());
    }

    #[test]
    fn removing_a_subtree_leaves_its_siblings_with_a_longer_name() {
        let mut l = Links::default();
        for (p, o) in [
            ("/properties/a", "/A"),
            ("/properties/a/items", "/A/items"),
            ("/properties/ab", "/A"),
            ("/properties/a~1b", "/A/items"),
            ("/properties", "/P"),
        ] {
            l.insert(p.into(), vec![o.into()]);
        }
        l.seal();
        l.remove_within("/properties/a");
        l.seal();
        let left: Vec<&String> = l.iter().map(|(p, _)| p).collect();
        assert_eq!(left, ["/properties", "/properties/ab", "/properties/a~1b"]);
        assert_eq!(l.projections("/A"), ["/properties/ab"]);
        assert_eq!(l.projections("/A/items"), ["/properties/a~1b"]);
        assert_eq!(l.projections("/P"), ["/properties"]);
    }
}
