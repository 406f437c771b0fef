//! What each side said about a payload, in terms of the documents the user is looking at.

use jsonschema::ValidationError;
use jsonschema::error::ValidationErrorKind;
use serde::Serialize;
use serde_json::Value;

use crate::pointer;
use crate::projection::{BranchTags, Links, Rule, Tolerating};
use crate::schema::resolve::RefIndex;

use super::locate::{Refs, locate};

/// The four outcomes of checking one payload against both schemas.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Class {
    BothAccept,
    BothReject,
    /// The original rejects, the projection accepts: a correlation the projection does not
    /// carry (flat mode drops tag-to-field correlations on purpose).
    ProjectionLooser,
    /// The original accepts, the projection rejects: never allowed (I-sound), an engine bug.
    Unsound,
    /// The original accepts, the projection rejects only because the payload puts a value
    /// under a property its own (open) alternative does not declare, outside the shape the
    /// declaring alternatives give it: the stated exception of `--open-branches declared`
    /// (SPEC I-sound, rule 10). The `strict` projection accepts it.
    ForeignKey,
}

impl Class {
    /// The class from the two verdicts alone; [`Class::ForeignKey`] needs the trace, so only
    /// [`super::Checker`] gives it.
    pub fn of(original_valid: bool, projection_valid: bool) -> Class {
        match (original_valid, projection_valid) {
            (true, true) => Class::BothAccept,
            (false, false) => Class::BothReject,
            (false, true) => Class::ProjectionLooser,
            (true, false) => Class::Unsound,
        }
    }

    pub fn id(self) -> &'static str {
        match self {
            Class::BothAccept => "both-accept",
            Class::BothReject => "both-reject",
            Class::ProjectionLooser => "projection-looser",
            Class::Unsound => "unsound",
            Class::ForeignKey => "foreign-key",
        }
    }
}

impl std::fmt::Display for Class {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.id())
    }
}

/// Which schema a statement is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Side {
    Original,
    Projection,
}

impl std::fmt::Display for Side {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Side::Original => "original",
            Side::Projection => "projection",
        })
    }
}

/// One validation error, placed on the schema tree of its side.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SchemaError {
    pub message: String,
    /// The failing keyword (`type`, `required`, `oneOf`, `falseSchema` for a `false` schema).
    pub keyword: String,
    /// RFC 6901 pointer into the payload.
    pub instance_path: String,
    /// The keyword location as the validator walked it, through `$ref`s (JSON Schema's
    /// `keywordLocation`).
    pub schema_path: String,
    /// The schema object holding the keyword, as a pointer into this side's document: where a
    /// tree view puts its mark.
    pub node: String,
    /// The keyword itself, as a pointer into this side's document.
    pub keyword_pointer: String,
    /// Projection side: the original nodes `node` came from (the projection's links; the
    /// nearest linked ancestor when the node itself has none). Empty on the original side.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub originals: Vec<String>,
    /// The properties the error is about: the missing one (`required`), the unexpected ones
    /// (`additionalProperties`, `unevaluatedProperties`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub properties: Vec<String>,
    /// `anyOf`/`oneOf`: the errors of each alternative, in order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub branches: Vec<Vec<SchemaError>>,
    /// The alternative the payload most plausibly meant (see [`choose_branch`]); `None` when no
    /// alternative stands out, and the union error itself is then the most useful one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub best_branch: Option<usize>,
    /// A literal (`const`, one-value `enum`) did not match: the usual sign of a tag that names a
    /// different alternative.
    #[serde(skip)]
    pub(crate) literal_mismatch: bool,
}

impl SchemaError {
    /// The errors this one comes down to: itself, or for a union the leaves of the alternative
    /// the payload most plausibly meant.
    pub fn leaves(&self) -> Vec<&SchemaError> {
        let mut out = Vec::new();
        self.collect_leaves(&mut out);
        out
    }

    fn collect_leaves<'a>(&'a self, out: &mut Vec<&'a SchemaError>) {
        match self.best_branch.and_then(|i| self.branches.get(i)) {
            Some(branch) if !branch.is_empty() => {
                for e in branch {
                    e.collect_leaves(out);
                }
            }
            _ => out.push(self),
        }
    }

    /// The enclosing union errors and chosen alternatives on the way down to `leaf`, outermost
    /// first (empty when `leaf` is this error).
    pub fn path_to(&self, leaf: &SchemaError) -> Vec<(&SchemaError, usize)> {
        let mut path = Vec::new();
        self.find(leaf, &mut path);
        path
    }

    fn find<'a>(&'a self, leaf: &SchemaError, path: &mut Vec<(&'a SchemaError, usize)>) -> bool {
        if std::ptr::eq(self, leaf) {
            return true;
        }
        if let Some(i) = self.best_branch
            && let Some(branch) = self.branches.get(i)
        {
            path.push((self, i));
            if branch.iter().any(|e| e.find(leaf, path)) {
                return true;
            }
            path.pop();
        }
        false
    }
}

/// One side's verdict.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SideVerdict {
    pub valid: bool,
    /// Top-level errors, unions with their alternatives inside.
    pub errors: Vec<SchemaError>,
}

impl SideVerdict {
    /// The errors worth showing first: unions resolved to their most plausible alternative.
    pub fn leaf_errors(&self) -> Vec<&SchemaError> {
        self.errors.iter().flat_map(SchemaError::leaves).collect()
    }
}

/// A correlation the projection does not carry, read from its trace, that explains why it
/// accepts a payload the original rejects.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Correlation {
    pub message: String,
    /// The rule that gave the correlation up.
    pub rule: Rule,
    /// The trace entry's projection pointer.
    pub at: String,
    /// The trace entry's original pointers.
    pub from: Vec<String>,
    /// Where in the payload it shows.
    pub instance_path: String,
}

/// For [`Class::Unsound`]: one place where the projection rejects what the original accepts,
/// with a pointer on each side.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Unsoundness {
    pub instance_path: String,
    /// The projection's complaint.
    pub message: String,
    /// The projection node that rejects, and its keyword.
    pub projection_node: String,
    pub projection_keyword: String,
    /// The original node that accepted the same part of the payload (from the original's own
    /// evaluation, so it is there even when the projection carries no links); for a part the
    /// original never looked at, the nearest enclosing part it did.
    pub original_node: Option<String>,
    /// The original nodes the projection's links say the rejecting node came from.
    pub linked_originals: Vec<String>,
}

/// For [`Class::ForeignKey`]: a key the payload's alternative does not declare, with a value
/// the declaring alternatives' shape rejects. Every name comes from the trace's
/// `open-branch-declared` entry.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ForeignKey {
    /// The foreign key's value in the payload.
    pub instance_path: String,
    pub property: String,
    pub discriminator: String,
    /// The tag the payload's object carries; `None` when it has none.
    pub tag: Option<Value>,
    /// The alternative the payload belongs to (by its tag), which does not declare the key but
    /// is open; every open one when the payload has no tag.
    pub tolerating: Vec<Tolerating>,
    /// The alternatives that declare it, whose shape the projection keeps.
    pub declaring: Vec<BranchTags>,
    /// The trace entry's projection pointer (the property) and original pointers.
    pub at: String,
    pub from: Vec<String>,
    pub message: String,
}

/// The verdict on one payload.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Verdict {
    pub class: Class,
    pub original: SideVerdict,
    pub projection: SideVerdict,
    /// For [`Class::ProjectionLooser`]: what the projection lost that the original checks.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub lost: Vec<Correlation>,
    /// For [`Class::Unsound`]: where, on both sides.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unsound: Vec<Unsoundness>,
    /// For [`Class::ForeignKey`]: each foreign key, named from the trace.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub foreign: Vec<ForeignKey>,
}

/// A compiled schema and what is needed to place its errors on its document.
pub(crate) struct Compiled {
    pub doc: Value,
    refs: Refs,
    validator: jsonschema::Validator,
}

/// Validation and error conversion recurse with the schema; a document deep enough to exhaust
/// a test thread's stack must not crash the checker (I-total).
pub(crate) fn with_stack<R>(f: impl FnOnce() -> R) -> R {
    const RED_ZONE: usize = 128 * 1024;
    const CHUNK: usize = 8 * 1024 * 1024;
    stacker::maybe_grow(RED_ZONE, CHUNK, f)
}

impl Compiled {
    /// `doc` is the copy to validate with (already rewritten for its dialect); `draft` is the
    /// engine's reading of it, which decides how `$id`s and `$ref` siblings resolve.
    pub fn new(
        doc: Value,
        draft: crate::schema::Draft,
        validator_draft: jsonschema::Draft,
    ) -> Result<Compiled, (String, String)> {
        let validator = with_stack(|| {
            jsonschema::options()
                .with_draft(validator_draft)
                .build(&doc)
        })
        .map_err(|e| (e.to_string(), e.instance_path().as_str().to_owned()))?;
        let refs = Refs::build(&doc, &RefIndex::build(&doc, draft));
        Ok(Compiled {
            doc,
            refs,
            validator,
        })
    }

    pub fn is_valid(&self, payload: &Value) -> bool {
        with_stack(|| self.validator.is_valid(payload))
    }

    /// Validates, placing every error on the document; `links` maps projection nodes to
    /// originals (projection side only).
    pub fn verdict(&self, payload: &Value, links: Option<&Links>) -> SideVerdict {
        with_stack(|| {
            // Most payloads are valid: the error iterator (and everything that follows) only
            // runs for the ones that are not.
            if self.validator.is_valid(payload) {
                return SideVerdict {
                    valid: true,
                    errors: Vec::new(),
                };
            }
            let errors: Vec<SchemaError> = self
                .validator
                .iter_errors(payload)
                .map(|e| self.convert(&e, links))
                .collect();
            SideVerdict {
                valid: false,
                errors,
            }
        })
    }

    /// The schema node that accepted the payload at `instance` (or the nearest enclosing part
    /// that was evaluated), read from the validator's evaluation of a payload it accepts.
    pub fn accepting_node(&self, payload: &Value, instance: &str) -> Option<String> {
        with_stack(|| {
            let evaluation = self.validator.evaluate(payload);
            let mut target = instance;
            loop {
                if let Some(path) = first_valid_unit(evaluation.root(), target) {
                    return locate(&self.doc, &self.refs, &path, true).map(|l| l.node);
                }
                target = pointer::parent(target)?;
            }
        })
    }

    fn convert(&self, e: &ValidationError<'_>, links: Option<&Links>) -> SchemaError {
        let kind = e.kind();
        let schema_path = e.evaluation_path().as_str().to_owned();
        let false_schema = matches!(kind, ValidationErrorKind::FalseSchema);
        let (node, keyword_pointer) =
            match locate(&self.doc, &self.refs, &schema_path, false_schema) {
                Some(l) => (l.node, l.keyword),
                None => {
                    // Only a path that does not fit the document gets here; the validator's own
                    // canonical path is the best remaining guess.
                    let canonical = e.schema_path().as_str().to_owned();
                    let node = if false_schema {
                        canonical.clone()
                    } else {
                        pointer::parent(&canonical).unwrap_or("").to_owned()
                    };
                    (node, canonical)
                }
            };
        let mut properties = Vec::new();
        let mut branches = Vec::new();
        let mut literal_mismatch = false;
        let mut union = false;
        match kind {
            ValidationErrorKind::AnyOf { context }
            | ValidationErrorKind::OneOfNotValid { context } => {
                union = true;
                branches = self.convert_branches(context, links);
            }
            ValidationErrorKind::OneOfMultipleValid { context } => {
                branches = self.convert_branches(context, links);
            }
            ValidationErrorKind::Required { property } => {
                properties.push(match property {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                });
            }
            ValidationErrorKind::AdditionalProperties { unexpected }
            | ValidationErrorKind::UnevaluatedProperties { unexpected } => {
                properties.clone_from(unexpected);
            }
            ValidationErrorKind::Constant { .. } => literal_mismatch = true,
            ValidationErrorKind::Enum { options } => {
                literal_mismatch = options.as_array().is_some_and(|o| o.len() == 1);
            }
            _ => {}
        }
        let instance_path = e.instance_path().as_str().to_owned();
        let best_branch = if union {
            choose_branch(&instance_path, &branches)
        } else {
            None
        };
        let originals = links.map_or_else(Vec::new, |l| nearest_originals(l, &node));
        SchemaError {
            message: e.to_string(),
            keyword: kind.keyword().to_owned(),
            instance_path,
            schema_path,
            node,
            keyword_pointer,
            originals,
            properties,
            branches,
            best_branch,
            literal_mismatch,
        }
    }

    fn convert_branches(
        &self,
        context: &[Vec<ValidationError<'static>>],
        links: Option<&Links>,
    ) -> Vec<Vec<SchemaError>> {
        context
            .iter()
            .map(|b| b.iter().map(|e| self.convert(e, links)).collect())
            .collect()
    }
}

/// The evaluation path of the first unit, in pre-order through units that passed, that looked
/// at `instance`: the subschema that accepted it. Failed units are skipped, so a `oneOf`
/// alternative that did not match cannot be named.
fn first_valid_unit(unit: jsonschema::OutputUnit<'_>, instance: &str) -> Option<String> {
    let mut stack = vec![unit];
    while let Some(u) = stack.pop() {
        if !u.valid() {
            continue;
        }
        if u.instance_location().as_str() == instance {
            return Some(u.evaluation_path().as_str().to_owned());
        }
        let children: Vec<_> = u.children().collect();
        stack.extend(children.into_iter().rev());
    }
    None
}

/// The projection node's originals, or those of its nearest linked ancestor: a node the engine
/// synthesised (a widened `type`, a joined `anyOf`) still came from somewhere.
fn nearest_originals(links: &Links, node: &str) -> Vec<String> {
    let mut cur = node;
    loop {
        let found = links.originals(cur);
        if !found.is_empty() {
            return found.to_vec();
        }
        match pointer::parent(cur) {
            Some(p) => cur = p,
            None => return Vec::new(),
        }
    }
}

/// Which alternative of a failed union at `instance` the payload most plausibly meant.
///
/// An alternative is *ruled out* when the payload contradicts its identity rather than its
/// details: a literal (`const`, one-value `enum`) on a direct property failed — the tag of a
/// tagged union names another alternative — or the instance is of another type altogether (the
/// `null` of an optional). Among the rest, the one with the fewest leaf errors wins, then the
/// one whose errors reach deepest into the payload. When every alternative is ruled out, none is
/// chosen: "matches no alternative" is then the honest message.
pub(crate) fn choose_branch(instance: &str, branches: &[Vec<SchemaError>]) -> Option<usize> {
    let ruled_out = |b: &[SchemaError]| {
        b.iter().any(|e| {
            (e.literal_mismatch && pointer::parent(&e.instance_path) == Some(instance))
                || (e.keyword == "type" && e.instance_path == instance)
        })
    };
    branches
        .iter()
        .enumerate()
        .filter(|(_, b)| !b.is_empty() && !ruled_out(b))
        .map(|(i, b)| {
            let leaves: Vec<&SchemaError> = b.iter().flat_map(SchemaError::leaves).collect();
            let depth = leaves
                .iter()
                .map(|l| l.instance_path.matches('/').count())
                .max()
                .unwrap_or(0);
            (i, leaves.len(), depth)
        })
        .min_by(|a, b| a.1.cmp(&b.1).then(b.2.cmp(&a.2)).then(a.0.cmp(&b.0)))
        .map(|(i, _, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(keyword: &str, instance: &str, literal: bool) -> SchemaError {
        SchemaError {
            message: String::new(),
            keyword: keyword.to_owned(),
            instance_path: instance.to_owned(),
            schema_path: String::new(),
            node: String::new(),
            keyword_pointer: String::new(),
            originals: Vec::new(),
            properties: Vec::new(),
            branches: Vec::new(),
            best_branch: None,
            literal_mismatch: literal,
        }
    }

    #[test]
    fn a_failed_tag_rules_an_alternative_out() {
        let branches = vec![
            vec![err("const", "/op/action", true)],
            vec![err("required", "/op", false), err("type", "/op/x", false)],
        ];
        // Alternative 0 has fewer errors, but its tag says the payload meant the other one.
        assert_eq!(choose_branch("/op", &branches), Some(1));
    }

    #[test]
    fn a_type_mismatch_at_the_union_rules_out_too() {
        let branches = vec![
            vec![err("type", "/t", false)],
            vec![err("required", "/t", false), err("minimum", "/t/n", false)],
        ];
        assert_eq!(choose_branch("/t", &branches), Some(1));
    }

    #[test]
    fn fewest_then_deepest() {
        let branches = vec![
            vec![err("minimum", "/a", false)],
            vec![err("minimum", "/a/b/c", false)],
            vec![err("minimum", "/a/b", false), err("maximum", "/a/c", false)],
        ];
        assert_eq!(choose_branch("", &branches), Some(1));
    }

    #[test]
    fn nothing_stands_out_when_all_are_ruled_out() {
        let branches = vec![
            vec![err("type", "/v", false)],
            vec![err("type", "/v", false)],
        ];
        assert_eq!(choose_branch("/v", &branches), None);
        let mut union = err("anyOf", "/v", false);
        union.branches = branches;
        assert_eq!(union.leaves().len(), 1);
        assert!(std::ptr::eq(union.leaves()[0], &union));
    }
}
