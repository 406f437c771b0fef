//! The tailoring walk: one pass over the projection that builds the tailored schema node by
//! node, knowing for each node where it came from (the projection pointer) and where it goes
//! (the tailored pointer), so that links, adapters and trace entries point at the right place
//! even where a step wraps a node or moves it into an `anyOf`.

mod deep;
mod distribute;
mod encode;
mod fit;
mod merge;
mod placed;
mod quiet;
mod renames;
mod rest;
mod unroll;

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap, HashSet};

use serde_json::{Map, Value, json};

pub(super) use encode::WRAP_PROPERTY;
use encode::{Position, carrier_keys};
#[cfg(test)]
pub(super) use fit::expected_carrier;
pub(super) use fit::over_count_limits;
use placed::Placed;

use super::{
    Adapter, KeywordSet, NullForm, Step, TailorOptions, Tailored, Tailoring, Trace, Unresolved,
    allowed_values, keyword_set, steps,
};
use crate::lint::{Check, Finding, OllamaView, Profile};
use crate::pointer;
use crate::projection::{Detail, Links, Projection, Rule, TraceEntry};
use crate::schema::Draft;
use crate::schema::keywords::{self, Slot};

const ANNOTATIONS: &[&str] = &[
    "title",
    "description",
    "default",
    "examples",
    "example",
    "$comment",
    "deprecated",
    "readOnly",
    "writeOnly",
];

/// Keywords that constrain one kind of value only (ignored for the others), by kind.
const STRING_KEYWORDS: &[&str] = &[
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
];
const NUMBER_KEYWORDS: &[&str] = &[
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
];
const ARRAY_KEYWORDS: &[&str] = &[
    "items",
    "prefixItems",
    "additionalItems",
    "minItems",
    "maxItems",
    "uniqueItems",
    "contains",
    "minContains",
    "maxContains",
    "unevaluatedItems",
];
const OBJECT_KEYWORDS: &[&str] = &[
    "properties",
    "required",
    "additionalProperties",
    "patternProperties",
    "minProperties",
    "maxProperties",
    "propertyNames",
    "dependentRequired",
    "dependentSchemas",
    "dependencies",
    "unevaluatedProperties",
    "propertyOrdering",
];

/// Keywords that evaluate properties or items, which `unevaluated*` beside them depend on.
const EVALUATING: &[&str] = &[
    "properties",
    "patternProperties",
    "additionalProperties",
    "items",
    "prefixItems",
    "additionalItems",
    "contains",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
    "dependentSchemas",
    "$ref",
    "$dynamicRef",
    "$recursiveRef",
];

/// Tailors `projection`; a borrowed one is read where it lies and only its trace copied (the
/// lint tailors the projection it keeps for nine profiles, and copying a large projection,
/// links and all, to read it cost as much as a fifth of the walk).
pub(super) fn run(
    projection: Cow<'_, Projection>,
    profile: Profile,
    options: TailorOptions,
    trace: Trace,
) -> Tailored {
    // The lint's tailoring (untraced, lossy) of a projection far over the size limits: the
    // property the fit is expected to carry is walked without records (see `quiet`).
    let lint_walk =
        trace == Trace::Skipped && options.lossy && steps(profile).contains(&Step::FitLimits);
    let expected = (lint_walk && fit::may_expect_carrier(&projection))
        .then(|| fit::expected_carrier(profile, &projection.schema))
        .flatten();
    match run_expecting(projection, profile, options, trace, expected.as_deref()) {
        Ok(tailored) => tailored,
        Err(projection) => match run_expecting(*projection, profile, options, trace, None) {
            Ok(tailored) => tailored,
            Err(_) => unreachable!("a walk that leaves nothing out holds"),
        },
    }
}

/// [`run`], the walk leaving out the records inside the property at projection pointer
/// `expected`; the projection back when that changed the result (see [`Walk::quiet_held`]).
pub(super) fn run_expecting<'p>(
    projection: Cow<'p, Projection>,
    profile: Profile,
    options: TailorOptions,
    trace: Trace,
    expected: Option<&str>,
) -> Result<Tailored, Box<Cow<'p, Projection>>> {
    let table = steps(profile);
    // A table that only looks at the root rewrites nothing: walking a large projection to copy
    // it node by node would only cost time.
    if let Some(unresolved) = unchanged_by(profile, &projection) {
        let mut projection = projection.into_owned();
        if trace == Trace::Skipped {
            projection.trace.clear();
        }
        return Ok(Tailored {
            projection,
            profile,
            adapters: Vec::new(),
            unresolved,
        });
    }
    // The sound form follows what the lossy form decided (see `LossyPlan`).
    let lossy_plan = (!options.lossy).then(|| LossyPlan::of(&projection, profile));
    let (mut t, mut schema) = walk_traced(&projection, profile, options, trace, expected);
    match &lossy_plan {
        None => drop(lossy_depth(
            &mut t,
            &mut schema,
            &projection,
            profile,
            false,
        )),
        Some(plan) => follow_lossy_depth(&mut t, &mut schema, &plan.depth, profile),
    }
    if table.contains(&Step::FitLimits) {
        match lossy_plan {
            None => t.fit_limits(&mut schema),
            Some(plan) => t.follow_fit_plan(&mut schema, plan.fitted),
        }
    }
    if table.contains(&Step::RootObject) {
        t.root_checks(&schema);
    }
    if table.contains(&Step::Limits) {
        t.limits(&schema);
    }
    if !t.quiet_held() {
        drop((t, schema));
        return Err(Box::new(projection));
    }
    let trace_kept = trace;
    let Walk {
        links,
        renames,
        trace,
        adapters,
        unresolved,
        ..
    } = t;
    let (trace, adapters, mut unresolved) =
        (trace.into_vec(), adapters.into_vec(), unresolved.into_vec());
    if profile == Profile::Ollama {
        unresolved.extend(beyond_any_rewrite(&schema));
    }
    let mut links = links;
    links.seal();
    let (mode, draft) = (projection.mode, projection.draft);
    let moved = match trace_kept {
        Trace::Kept => moved_trace(projection, &renames.into_map(), &schema, trace),
        Trace::Skipped => Vec::new(),
    };
    let draft = if profile == Profile::Gemini {
        // `nullable` means something only in OpenAPI 3.0, which is what Gemini reads.
        Draft::OpenApi30
    } else {
        draft
    };
    Ok(Tailored {
        projection: Projection {
            schema,
            mode,
            draft,
            trace: moved,
            links,
        },
        profile,
        adapters,
        unresolved,
    })
}

/// The projection's trace with each entry at its node's tailored place, then the walk's own.
fn moved_trace(
    projection: Cow<'_, Projection>,
    renames: &BTreeMap<String, String>,
    schema: &Value,
    walked: Vec<TraceEntry>,
) -> Vec<TraceEntry> {
    let trace_in = match projection {
        Cow::Owned(p) => p.trace,
        Cow::Borrowed(p) => p.trace.clone(),
    };
    let mut moved: Vec<TraceEntry> = trace_in
        .into_iter()
        .map(|mut e| {
            e.at = renamed(renames, schema, &e.at);
            e
        })
        .collect();
    moved.extend(walked);
    moved
}

/// The node-by-node walk (and the root wrapper), before the steps that look at the whole
/// result.
fn walk(projection: &Projection, profile: Profile, options: TailorOptions) -> (Walk<'_>, Value) {
    walk_traced(projection, profile, options, Trace::Kept, None)
}

/// [`walk`], writing the trace of each step or not, and the records inside the property at
/// projection pointer `expected` or not.
fn walk_traced<'a>(
    projection: &'a Projection,
    profile: Profile,
    options: TailorOptions,
    trace: Trace,
    expected: Option<&str>,
) -> (Walk<'a>, Value) {
    let new = || Walk {
        traced: trace == Trace::Kept,
        // Read where each projection node went: the trace's move to the tailored places, the
        // sound form's replay of the lossy form's carriers and fit, and the unrolling's check
        // that the sound form can follow it (only a `$defs` form is unrolled).
        keeps_renames: trace == Trace::Kept
            || !options.lossy
            || (steps(profile).contains(&Step::UnrollRecursion)
                && unroll::has_definitions(&projection.schema)),
        links: match trace {
            Trace::Kept => Links::default(),
            Trace::Skipped => Links::forward_only(),
        },
        quiet: expected.map(quiet::Quiet::expecting),
        ..Walk::new(projection, profile, options)
    };
    let mut t = new();
    let schema = t.node(&projection.schema, "", "");
    if steps(profile).contains(&Step::WrapRoot) && encode::root_needs_wrap(&schema) {
        // Again, with the root one level down: every pointer the walk records is then right.
        t = new();
        let schema = t.wrapped_root(&projection.schema);
        return (t, schema);
    }
    (t, schema)
}

/// What the lossy tailoring of `projection` decided, for the sound form to do the same: the
/// lossy form is deeper (null alternatives, markers) and counted on its own the sound form
/// would unroll, carry and fit other values; but a string the provider sends in the lossy
/// form's carrier un-adapts to a value that only a carrier at the same place accepts. Made by
/// one lossy walk.
struct LossyPlan {
    depth: LossyDepth,
    /// The size-limit moves (after the depth carriers).
    fitted: Vec<fit::Planned>,
}

impl LossyPlan {
    fn of(projection: &Projection, profile: Profile) -> LossyPlan {
        let (mut t, mut schema) = walk(projection, profile, TailorOptions { lossy: true });
        let depth = lossy_depth(&mut t, &mut schema, projection, profile, true);
        if steps(profile).contains(&Step::FitLimits) {
            t.fit_limits(&mut schema);
        }
        LossyPlan {
            depth,
            fitted: t.fitted,
        }
    }
}

/// How the lossy form brought its depth within the limit.
struct LossyDepth {
    /// The unrolling, by projection pointer, when the lossy form unrolled.
    unrolled: Option<unroll::Mirror>,
    /// The unrolling came after the depth carriers (see the unroll module's notes).
    after_carrying: bool,
    /// The values carried as text for depth (when asked for, or unrolled after them).
    carried: Vec<deep::Carried>,
}

/// The lossy form's unrolling and depth carriers, in the order the unroll module's notes give;
/// `keep_carried`: list the carried values for a sound form to follow.
fn lossy_depth(
    t: &mut Walk<'_>,
    schema: &mut Value,
    projection: &Projection,
    profile: Profile,
    keep_carried: bool,
) -> LossyDepth {
    let table = steps(profile);
    let unrolls = table.contains(&Step::UnrollRecursion);
    let mut depth = LossyDepth {
        unrolled: None,
        after_carrying: false,
        carried: Vec::new(),
    };
    if unrolls {
        depth.unrolled = t.unroll_recursion(schema, projection, None);
    }
    if !table.contains(&Step::CarryDeep) {
        return depth;
    }
    let late = unrolls && depth.unrolled.is_none() && t.may_unroll_after_carrying(schema);
    let came_from = (keep_carried || late).then(|| t.projection_pointers());
    t.carry_deep(schema);
    if let Some(came_from) = came_from {
        depth.carried = t.carried(&came_from);
    }
    if late {
        depth.unrolled = t.unroll_recursion(schema, projection, Some(&depth.carried));
        depth.after_carrying = depth.unrolled.is_some();
    }
    depth
}

/// The sound form's unrolling and depth carriers: the lossy form's, in its order.
fn follow_lossy_depth(t: &mut Walk<'_>, schema: &mut Value, lossy: &LossyDepth, profile: Profile) {
    let table = steps(profile);
    let unrolling = lossy.unrolled.as_ref();
    if let Some(mirror) = unrolling.filter(|_| !lossy.after_carrying) {
        t.unroll_as(schema, mirror);
    }
    if table.contains(&Step::CarryDeep) {
        t.carry_same(schema, &lossy.carried);
        t.carry_deep(schema);
    }
    if let Some(mirror) = unrolling.filter(|_| lossy.after_carrying) {
        t.unroll_as(schema, mirror);
    }
}

/// What tailoring for `profile` leaves unresolved in `projection`, when it would leave the
/// projection itself as it is (the profile's steps only look at the root); `None` when it
/// rewrites. Costs nothing near the projection's size.
pub(super) fn unchanged_by(profile: Profile, projection: &Projection) -> Option<Vec<Unresolved>> {
    let table = steps(profile);
    let root_only = table
        .iter()
        .all(|s| matches!(s, Step::RootObject | Step::WrapRoot));
    let wraps = table.contains(&Step::WrapRoot) && encode::root_needs_wrap(&projection.schema);
    (profile != Profile::Gemini && root_only && !wraps).then(|| root_problems(&projection.schema))
}

/// What tailoring for `profile` leaves unresolved in `projection`, when its schema, adapters
/// and unresolved list would be the projection's own: besides [`unchanged_by`], a table whose
/// steps rewrite `const` and maps whose value schema it drops (Ollama's) on a projection where
/// no object has a `const` key and no such map is.
/// `None` otherwise. Its links would differ only in form (the walk gives every node its
/// nearest originals, which a lookup finds by walking up anyway). Reads each node once without
/// building anything: the walk it spares copies a large projection node by node.
pub(super) fn unchanged_schema_by(
    profile: Profile,
    projection: &Projection,
) -> Option<Vec<Unresolved>> {
    unchanged_schema_seen(
        profile,
        projection,
        || crate::lint::ollama::view(&projection.schema),
        || ollama_errors(&projection.schema),
    )
}

/// [`unchanged_schema_by`] with the projection's Ollama view and its Ollama lint errors (in
/// lint order) given by a caller that has them at hand, asked only when needed: the lint makes
/// both for its own report of the projection.
pub(super) fn unchanged_schema_seen<V: std::borrow::Borrow<OllamaView>>(
    profile: Profile,
    projection: &Projection,
    view: impl FnOnce() -> V,
    errors: impl FnOnce() -> Vec<Finding>,
) -> Option<Vec<Unresolved>> {
    if let Some(unresolved) = unchanged_by(profile, projection) {
        return Some(unresolved);
    }
    let ollama = profile == Profile::Ollama
        && steps(profile) == [Step::ConstToEnum, Step::EncodeDroppedMaps];
    (ollama
        && !has_key_anywhere(&projection.schema, "const")
        && maps_dropped_in(view().borrow()).is_empty())
    .then(|| beyond_rewrite(errors()))
}

/// Whether some object in `v`, at any depth, has the key `key` (a keyword or a property name
/// alike: a caller that only needs "certainly not" may read it so).
fn has_key_anywhere(v: &Value, key: &str) -> bool {
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(m) => {
                if m.contains_key(key) {
                    return true;
                }
                stack.extend(m.values());
            }
            Value::Array(list) => stack.extend(list),
            _ => {}
        }
    }
    false
}

/// Where Ollama drops a map's value schema (`additionalProperties` or `patternProperties` that
/// limit the values), as its lint's Go struct view reads `schema`. Not below `items` or root
/// `$defs`: Ollama keeps those as written.
fn maps_losing_their_values(schema: &Value) -> std::collections::HashSet<String> {
    maps_dropped_in(&crate::lint::ollama::view(schema))
}

/// [`maps_losing_their_values`], read from Ollama's view of the schema.
fn maps_dropped_in(view: &OllamaView) -> std::collections::HashSet<String> {
    view.dropped
        .iter()
        .filter(|d| {
            d.class == crate::lint::DropClass::Structure
                && matches!(
                    d.keyword.as_str(),
                    "additionalProperties" | "patternProperties"
                )
        })
        .map(|d| d.pointer.clone())
        .collect()
}

/// Ollama drops what its Go structs have no field for (a `oneOf`, a `$ref`) whatever the
/// schema says, so every error its lint still finds is beyond tailoring: listed, not hidden.
fn beyond_any_rewrite(schema: &Value) -> Vec<Unresolved> {
    beyond_rewrite(ollama_errors(schema))
}

/// The errors of Ollama's lint of `schema`, in lint order.
fn ollama_errors(schema: &Value) -> Vec<Finding> {
    crate::lint::lint_schema_where(Profile::Ollama, schema, crate::lint::LintRule::is_error)
}

/// [`beyond_any_rewrite`] from the errors of Ollama's lint.
fn beyond_rewrite(errors: Vec<Finding>) -> Vec<Unresolved> {
    errors
        .into_iter()
        .map(|f| Unresolved {
            pointer: f.pointer,
            rule: f.rule,
            why: format!(
                "{} No rewrite of the schema changes what Ollama reads.",
                f.message
            ),
        })
        .collect()
}

/// Where a projection pointer's node sits now: its own new place, else its nearest ancestor's
/// (with the rest of the path when that still exists).
fn renamed(renames: &BTreeMap<String, String>, schema: &Value, at: &str) -> String {
    if let Some(p) = renames.get(at) {
        return p.clone();
    }
    let mut here = at;
    while let Some(parent) = pointer::parent(here) {
        if let Some(p) = renames.get(parent) {
            let candidate = format!("{p}{}", &at[parent.len()..]);
            return if schema.pointer(&candidate).is_some() {
                candidate
            } else {
                p.clone()
            };
        }
        here = parent;
    }
    at.to_owned()
}

/// What the alternatives beside a node (in the unions around it) may take, which decides the
/// forms its encodings may use.
struct Beside {
    /// The key a JSON-text carrier needs: some alternative may take strings.
    carrier_key: Option<String>,
    /// Some alternative may take arrays.
    arrays: bool,
}

struct Walk<'a> {
    profile: Profile,
    table: &'static [Step],
    options: TailorOptions,
    draft: Draft,
    old_links: &'a Links,
    links: Links,
    /// By projection pointer, where the node went: read by the trace's move to the tailored
    /// places and by the sound form following the lossy form's carriers and fit plan; written
    /// only when [`Walk::keeps_renames`] (a million entries on a large inlined projection).
    renames: renames::Renames,
    /// Whether [`Walk::rename`] writes to `renames`: the lint's lossy, untraced tailoring
    /// never reads them.
    keeps_renames: bool,
    trace: Placed<TraceEntry>,
    /// Whether [`Walk::record`] writes to `trace` (see [`Trace`]).
    traced: bool,
    adapters: Placed<Adapter>,
    unresolved: Placed<Unresolved>,
    /// Tailored pointers of schemas that apply together with their parent's keywords to the
    /// same object (an `allOf` part, …): closing one would reject the keys the other allows.
    conjoined: std::collections::HashSet<String>,
    /// Projection pointers of `$ref` targets that are used beside other keywords: they apply
    /// together with those to one value, like `allOf` parts.
    shared_targets: std::collections::HashSet<String>,
    /// The node being tailored applies together with other schemas to its value (it is, or is
    /// inside, a conjoined part): its objects are neither closed nor made all-required, since
    /// each schema would add or drop keys the others do not know.
    shared: bool,
    /// Where the next node to tailor sits (set by its parent, read once).
    position: Position,
    /// The key its JSON-text carrier needs, when it becomes one beside a string alternative.
    carrier_key: Option<String>,
    /// The next node is an alternative beside one that may hold arrays (set by its parent,
    /// read once): a map's entries, an array, could be read back as that alternative's value.
    beside_arrays: bool,
    /// The node being tailored is, or is inside, such an alternative: the map below it may sit
    /// where a sibling alternative has an array.
    among_arrays: bool,
    /// Likewise for strings: the next node is an alternative beside one that may hold strings
    /// anywhere (set by its parent, read once), and the node being tailored is, or is inside,
    /// one. An enum value sent as text could be read back as that string.
    beside_strings: bool,
    among_strings: bool,
    /// By tailored property pointer: the value an explicit `null` is sent as, for optional
    /// properties that accept `null` themselves (where `null` now stands for absent).
    markers: BTreeMap<String, Value>,
    /// By tailored object pointer: the sent name → the projection's name, for renamed
    /// properties (so that each one's projection pointer is still found).
    renamed: BTreeMap<String, BTreeMap<String, String>>,
    /// The properties carried to fit the size limits, in projection terms (see
    /// [`fit::Planned`]).
    fitted: Vec<fit::Planned>,
    /// Projection pointers of the maps whose value schema the provider drops
    /// ([`Step::EncodeDroppedMaps`]).
    dropped_maps: std::collections::HashSet<String>,
    /// The objects whose `allOf` parts were merged ([`Step::MergeAllOf`]).
    merges: merge::Merges,
    /// The projection, for what a step must know of the whole (read on demand).
    projection_schema: &'a Value,
    /// The property expected to be carried as JSON text, whose inside is walked without
    /// records (lint only; see [`quiet`]).
    quiet: Option<quiet::Quiet>,
    /// Objects replaced inside [`Walk::deferring_purges`] whose records below are still to be
    /// forgotten: by object pointer, their escaped keys.
    deferred: Option<HashMap<String, HashSet<String>>>,
}

impl<'a> Walk<'a> {
    fn new(projection: &'a Projection, profile: Profile, options: TailorOptions) -> Walk<'a> {
        let mut shared_targets = std::collections::HashSet::new();
        shared_ref_targets(&projection.schema, &mut shared_targets);
        Walk {
            profile,
            table: steps(profile),
            options,
            draft: projection.draft,
            old_links: &projection.links,
            links: Links::default(),
            renames: renames::Renames::default(),
            keeps_renames: true,
            trace: Placed::default(),
            traced: true,
            adapters: Placed::default(),
            unresolved: Placed::default(),
            conjoined: std::collections::HashSet::new(),
            shared_targets,
            shared: false,
            position: Position::Other,
            carrier_key: None,
            beside_arrays: false,
            among_arrays: false,
            beside_strings: false,
            among_strings: false,
            markers: BTreeMap::new(),
            renamed: BTreeMap::new(),
            fitted: Vec::new(),
            merges: merge::Merges::default(),
            projection_schema: &projection.schema,
            quiet: None,
            deferred: None,
            dropped_maps: if steps(profile).contains(&Step::EncodeDroppedMaps) {
                maps_losing_their_values(&projection.schema)
            } else {
                Default::default()
            },
        }
    }

    /// The root as the one property of an object: `{type: object, properties: {arguments:
    /// root}, required: [arguments]}` (closed where the provider wants it), with the adapter
    /// that wraps and unwraps payloads. Recursive definitions stay at the top, where their
    /// `$ref`s point; a `$ref` to the root itself follows it down.
    fn wrapped_root(&mut self, root: &Value) -> Value {
        let inner_at = pointer::push("/properties", WRAP_PROPERTY);
        let mut body = root.clone();
        let defs = body.as_object_mut().and_then(|m| m.shift_remove("$defs"));
        let mut inner = self.child(&body, "", &inner_at, None);
        retarget_root_refs(&mut inner, &format!("#{inner_at}"));
        let mut wrapper = Map::new();
        wrapper.insert("type".into(), json!("object"));
        wrapper.insert("properties".into(), json!({ WRAP_PROPERTY: inner }));
        wrapper.insert("required".into(), json!([WRAP_PROPERTY]));
        if self.has(Step::CloseObjects) {
            wrapper.insert("additionalProperties".into(), json!(false));
        }
        if let Some(Value::Object(defs)) = defs {
            let mut done = Map::new();
            for (name, def) in defs {
                let at = pointer::push(&pointer::push("", "$defs"), &name);
                let mut d = self.child(&def, &at, &at, None);
                retarget_root_refs(&mut d, &format!("#{inner_at}"));
                done.insert(name, d);
            }
            wrapper.insert("$defs".into(), Value::Object(done));
        }
        for p in ["", "/properties"] {
            self.links.insert(p.to_owned(), self.originals(""));
        }
        self.adapters.push(Adapter::Wrap {
            at: String::new(),
            property: WRAP_PROPERTY.to_owned(),
        });
        let why = match root.get("type") {
            _ if root.get("anyOf").is_some() || root.get("oneOf").is_some() => {
                "a union that does not merge into one object".to_owned()
            }
            Some(t) if t != &json!("object") => format!("`type: {t}`"),
            None => "no `type`".to_owned(),
            _ => "not one plain object".to_owned(),
        };
        self.record(
            Rule::TailorWrapRoot,
            "",
            "",
            Tailoring::WrapRoot {
                profile: self.profile,
                property: WRAP_PROPERTY.to_owned(),
                why,
            },
        );
        Value::Object(wrapper)
    }
}

/// Why the provider still refuses the root as a tool's parameters: not one plain object.
fn root_problems(root: &Value) -> Vec<Unresolved> {
    let problem = |rule: &'static str, why: String| Unresolved {
        pointer: String::new(),
        rule,
        why,
    };
    let Some(m) = root.as_object() else {
        return vec![problem(
            "root-type",
            format!("the root is {root}, not an object schema"),
        )];
    };
    let mut out = Vec::new();
    for k in ["anyOf", "oneOf", "allOf", "enum", "not"] {
        if m.contains_key(k) {
            out.push(problem(
                "root-union",
                format!("`{k}` at the root: the provider wants one object; a union flat mode could not merge stays a union"),
            ));
        }
    }
    if m.get("type") != Some(&json!("object")) {
        out.push(problem(
            "root-type",
            format!(
                "the root `type` is {}, not \"object\"; adding it would reject what the original accepts",
                m.get("type").map_or("missing".to_owned(), Value::to_string)
            ),
        ));
    }
    out
}

/// `$ref: "#"` (the root) → `target`, for a root that moved down.
fn retarget_root_refs(v: &mut Value, target: &str) {
    match v {
        Value::Object(m) => {
            if m.get("$ref") == Some(&json!("#")) {
                m.insert("$ref".into(), json!(target));
            }
            m.values_mut().for_each(|c| retarget_root_refs(c, target));
        }
        Value::Array(items) => items.iter_mut().for_each(|c| retarget_root_refs(c, target)),
        _ => {}
    }
}

/// In-place applicators (from the keyword table, plus the references): beside them, an
/// object's own `properties` are not all the keys it allows.
fn in_place_keys() -> impl Iterator<Item = &'static str> {
    keywords::KEYWORDS
        .iter()
        .filter(|k| k.in_place)
        .map(|k| k.name)
        .chain(["$ref", "$dynamicRef"])
}

/// The keywords [`Walk::guards`] compares before and after the steps, as they were before: a
/// copy of these, not of the node's whole subtree. The in-place applicators only matter to
/// `unevaluated*` beside them (here, or brought in by merging an `allOf`); copying every union
/// at every node cost the projection's size times the depth of its nested unions.
fn guarded(m: &Map<String, Value>) -> Map<String, Value> {
    let evaluated = ["unevaluatedProperties", "unevaluatedItems", "allOf"]
        .iter()
        .any(|k| m.contains_key(*k));
    m.iter()
        .filter(|(k, _)| {
            matches!(k.as_str(), "not" | "if" | "contains")
                || (evaluated && in_place_keys().any(|i| i == *k))
        })
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// Object keywords that make a parent constrain the same object as its union alternatives.
const OBJECT_SHAPE: &[&str] = &[
    "properties",
    "required",
    "patternProperties",
    "additionalProperties",
];

fn kind_keywords(kind: &str) -> &'static [&'static str] {
    match kind {
        "string" => STRING_KEYWORDS,
        "number" | "integer" => NUMBER_KEYWORDS,
        "array" => ARRAY_KEYWORDS,
        "object" => OBJECT_KEYWORDS,
        _ => &[],
    }
}

fn is_kind_specific(key: &str) -> bool {
    [
        STRING_KEYWORDS,
        NUMBER_KEYWORDS,
        ARRAY_KEYWORDS,
        OBJECT_KEYWORDS,
    ]
    .iter()
    .any(|list| list.contains(&key))
}

fn type_names(m: &Map<String, Value>) -> Vec<&str> {
    match m.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// The lint's notion of an object schema: `type` says object, or no `type` and `properties`.
fn is_object(m: &Map<String, Value>) -> bool {
    type_names(m).contains(&"object") || (!m.contains_key("type") && m.contains_key("properties"))
}

fn is_null_schema(v: &Value) -> bool {
    v.as_object().is_some_and(|m| {
        m.get("type") == Some(&json!("null"))
            && m.keys()
                .all(|k| k == "type" || ANNOTATIONS.contains(&k.as_str()))
    })
}

impl Walk<'_> {
    /// Whether the profile's table has a step of this kind. Asked with steps without fields,
    /// where the kind is the step: comparing kinds costs less than comparing steps, and the
    /// walk asks a dozen times at every node.
    fn has(&self, step: Step) -> bool {
        let kind = std::mem::discriminant(&step);
        self.table.iter().any(|s| std::mem::discriminant(s) == kind)
    }

    fn originals(&self, at: &str) -> Vec<String> {
        nearest_originals(self.old_links, at)
    }

    /// The projection node at `from` now sits at `out`.
    fn rename(&mut self, from: &str, out: &str) {
        if self.keeps_renames {
            self.renames.insert(from.to_owned(), out.to_owned());
        }
    }

    fn record(&mut self, rule: Rule, out: &str, from: &str, detail: Tailoring) {
        if !self.traced {
            return;
        }
        self.trace.push(TraceEntry {
            rule,
            at: out.to_owned(),
            from: self.originals(from),
            detail: Detail::Tailored(detail),
        });
    }

    /// The id of the profile's lint rule that runs this kind of check: the rule a report
    /// names is the one lint will show.
    fn rule_id(&self, check: impl Fn(&Check) -> bool) -> Option<&'static str> {
        self.profile
            .rules()
            .iter()
            .find(|r| check(&r.applies))
            .map(|r| r.id)
    }

    fn unresolved(&mut self, pointer: &str, rule: &'static str, why: String) {
        if !self.keeps(pointer) {
            return;
        }
        self.unresolved.push(Unresolved {
            pointer: pointer.to_owned(),
            rule,
            why,
        });
    }

    /// Tailors the node found at `from` in the projection, to be placed at `out`.
    fn node(&mut self, schema: &Value, from: &str, out: &str) -> Value {
        self.node_owned(schema.clone(), from, out)
    }

    /// [`Walk::node`] on a copy the caller hands over: its subtrees are moved, not copied.
    fn node_owned(&mut self, schema: Value, from: &str, out: &str) -> Value {
        let position = std::mem::replace(&mut self.position, Position::Other);
        let beside_arrays = std::mem::take(&mut self.beside_arrays) || self.among_arrays;
        let beside_strings = std::mem::take(&mut self.beside_strings) || self.among_strings;
        // JSON text where a sibling alternative may hold a string at any depth needs its key,
        // as beside a string alternative.
        let carrier_key = self
            .carrier_key
            .take()
            .or_else(|| beside_strings.then(|| encode::JSON_KEY.to_owned()));
        self.rename(from, out);
        if self.keeps(out) {
            self.links.insert(out.to_owned(), self.originals(from));
        }
        self.enter_quiet(from, out);
        // `true` accepts anything, like `{}`: carried the same way where the provider needs it.
        let schema = if schema == Value::Bool(true)
            && position == Position::Value
            && self.stand_ins().is_some()
        {
            Value::Object(Map::new())
        } else {
            schema
        };
        let Value::Object(m) = schema else {
            return schema;
        };
        let input = guarded(&m);
        let input = &input;
        let was_shared = self.shared;
        let was_among_arrays = std::mem::replace(&mut self.among_arrays, beside_arrays);
        let was_among_strings = std::mem::replace(&mut self.among_strings, beside_strings);
        let beside = Beside {
            carrier_key,
            arrays: beside_arrays,
        };
        let done = self.node_steps(input, m, from, out, position, beside);
        self.shared = was_shared;
        self.among_arrays = was_among_arrays;
        self.among_strings = was_among_strings;
        done
    }

    fn node_steps(
        &mut self,
        input: &Map<String, Value>,
        mut m: Map<String, Value>,
        from: &str,
        out: &str,
        position: Position,
        beside: Beside,
    ) -> Value {
        let Beside {
            carrier_key,
            arrays: beside_arrays,
        } = beside;
        // Before the drops: they would take the tuple's positions and the map's value schema.
        // A bare array beside a union waits until the union has the parent's type: `items` there
        // would keep a type list the union makes needless (GitHub's `default_value`: `type:
        // [null, string, array]` beside `string | array of strings`).
        let union_beside = m.contains_key("anyOf") || m.contains_key("oneOf");
        if self.has(Step::TupleItems) {
            self.tuple_items(&mut m, from, out, !union_beside);
        }
        if self.has(Step::MergeAllOf) {
            self.merge_all_of(&mut m, from, out);
        }
        if (self.has(Step::EncodeMaps)
            || (position == Position::Value && self.dropped_maps.contains(from)))
            && self.sent_as_entries(&m, out, position)
        {
            if beside_arrays {
                // Entries where a sibling alternative may hold an array are ambiguous (`{}` and
                // `[]` are both `[]`): the map goes as JSON text instead, a string.
                self.purge(out);
                self.rename(from, out);
                self.links.insert(out.to_owned(), self.originals(from));
                return self.json_text(&m, from, out, carrier_key);
            }
            return self.map_entries(m, from, out);
        }
        if self.has(Step::EncodeEmptyObjects)
            && let Some(text) = self.empty_object(&m, from, out, position, carrier_key.clone())
        {
            return text;
        }
        if self.has(Step::DistributeProperties)
            && let Some(union) = self.distribute_properties(&m, from, out)
        {
            return union;
        }
        if self.stand_ins().is_some() {
            self.distribute_type(&mut m, from, out);
        }
        if self.has(Step::TupleItems) && union_beside {
            self.tuple_items(&mut m, from, out, true);
        }
        for step in self.table {
            match *step {
                Step::ConstType => self.const_type(&mut m, from, out),
                Step::DropListed { set } => self.drop_listed(&mut m, set, from, out),
                Step::DropComplexPatterns { all } => self.drop_pattern(&mut m, all, from, out),
                Step::MinItemsAtMost { max } => self.min_items_at_most(&mut m, max, from, out),
                Step::NullableToType => self.nullable_to_type(&mut m, from, out),
                Step::ConstToEnum => self.const_to_enum(&mut m, from, out),
                Step::DropKeywords { rules } => self.drop_keywords(&mut m, rules, from, out),
                Step::DropFormats { rule } => self.drop_formats(&mut m, rule, from, out),
                Step::RefSiblings { keep, wrap } => {
                    self.ref_siblings(&mut m, keep, wrap, from, out)
                }
                Step::RequiredDeclared { add } => self.required_declared(&mut m, add, from, out),
                Step::TypeArrayToNullable => {
                    if let Some(split) = self.type_array(&mut m, from, out) {
                        return split;
                    }
                }
                _ => {}
            }
        }
        // Decided after the drops: an `allOf` the provider does not take no longer constrains
        // the object, so it no longer stops closing it.
        self.shared = self.shared
            || self.conjoined.contains(out)
            || self.shared_targets.contains(from)
            || (in_place_keys().any(|k| m.contains_key(k))
                && OBJECT_SHAPE.iter().any(|k| m.contains_key(*k)));
        if self.has(Step::EncodeEnums)
            && let Some(split) = self.enum_text(
                &mut m,
                from,
                out,
                carrier_key.is_some() || self.among_strings,
            )
        {
            return split;
        }
        if let Some(max) = self.table.iter().find_map(|s| match s {
            Step::RenameProperties { max } => Some(*max),
            _ => None,
        }) {
            self.rename_properties(&mut m, max, from, out);
        }
        // A schema that applies together with others to one value (an `anyOf` alternative
        // beside its parent's properties, …) only adds constraints: it is no value's form.
        if position == Position::Value && !self.shared && self.kindless(&m) {
            return match encode::kind_family(&m) {
                Some(kind) => self.kind_split(&m, kind, from, out, carrier_key),
                None => self.json_text(&m, from, out, carrier_key),
            };
        }
        let plans = self.null_plans(&m, out);
        // Closing moves the schema for the other keys under a carrier, tailored there afresh.
        let rest = self
            .has(Step::CloseObjects)
            .then(|| {
                m.get("additionalProperties")
                    .filter(|v| v.is_object())
                    .cloned()
            })
            .flatten();
        self.children(&mut m, from, out, &plans, carrier_key, beside_arrays);
        self.guards(input, &mut m, from, out);
        self.object_steps(&mut m, from, out, &plans, rest);
        for step in self.table {
            match *step {
                Step::ArrayItems { typed } => self.array_items(&m, typed, out),
                Step::StringEnums => self.string_enums(&m, out),
                Step::Typed => self.typed(&m, out),
                _ => {}
            }
        }
        Value::Object(m)
    }

    /// `inherited`: this node is an alternative beside one that takes strings, so JSON text in
    /// its own alternatives needs the key as well; `arrays_inherited`: likewise beside one that
    /// may take arrays.
    fn children(
        &mut self,
        m: &mut Map<String, Value>,
        from: &str,
        out: &str,
        plans: &BTreeMap<String, NullForm>,
        inherited: Option<String>,
        arrays_inherited: bool,
    ) {
        let keys: Vec<String> = m.keys().cloned().collect();
        let shaped = OBJECT_SHAPE.iter().any(|k| m.contains_key(*k));
        let alone = m
            .keys()
            .all(|k| matches!(k.as_str(), "anyOf" | "oneOf") || ANNOTATIONS.contains(&k.as_str()));
        for key in keys {
            let conjoined = match key.as_str() {
                "allOf" | "then" | "else" | "dependentSchemas" => true,
                "anyOf" | "oneOf" => shaped,
                _ => false,
            };
            // Which positions hold subschemas comes from the one keyword table.
            let Some(slot) = keywords::lookup(&key).map(|k| k.slot) else {
                continue;
            };
            let from_k = pointer::push(from, &key);
            let out_k = pointer::push(out, &key);
            let value = m.get_mut(&key).expect("key listed above");
            match slot {
                Slot::Map | Slot::MapOfSchemaOrNames => {
                    let Value::Object(members) = value else {
                        continue;
                    };
                    let names: Vec<String> = members.keys().cloned().collect();
                    for name in names {
                        if key == "dependencies" && !members[&name].is_object() {
                            continue;
                        }
                        // Moved out and back in tailored: copying every subtree at every level
                        // would cost the projection's size times its depth.
                        let child = std::mem::take(&mut members[&name]);
                        let source = match (key.as_str(), self.renamed.get(out)) {
                            ("properties", Some(names)) => names.get(&name).unwrap_or(&name),
                            _ => &name,
                        };
                        let child_from = match self.merges.source(&key, out, source) {
                            Some(in_part) => in_part.to_owned(),
                            None => pointer::push(&from_k, source),
                        };
                        let child_out = pointer::push(&out_k, &name);
                        if conjoined {
                            self.conjoined.insert(child_out.clone());
                        }
                        let plan = (key == "properties")
                            .then(|| plans.get(&name).cloned())
                            .flatten();
                        let done = match plan {
                            Some(plan @ (NullForm::Wrapped | NullForm::Marked)) => {
                                let any_of = pointer::push(&child_out, "anyOf");
                                self.position = Position::under(&key);
                                let inner = self.node_owned(
                                    child,
                                    &child_from,
                                    &pointer::push_index(&any_of, 0),
                                );
                                self.links.insert(
                                    pointer::push_index(&any_of, 1),
                                    self.originals(&child_from),
                                );
                                self.links
                                    .insert(child_out.clone(), self.originals(&child_from));
                                let second = match plan {
                                    NullForm::Marked => self
                                        .markers
                                        .get(&child_out)
                                        .map_or(json!({"type": "null"}), marker_schema),
                                    _ => json!({"type": "null"}),
                                };
                                json!({"anyOf": [inner, second]})
                            }
                            _ => {
                                self.position = Position::under(&key);
                                self.node_owned(child, &child_from, &child_out)
                            }
                        };
                        members.insert(name, done);
                    }
                }
                Slot::Single | Slot::SingleOrArray => {
                    if let Value::Array(list) = value {
                        for (i, child) in list.iter_mut().enumerate() {
                            self.position = Position::under(&key);
                            *child = self.node_owned(
                                std::mem::take(child),
                                &pointer::push_index(&from_k, i),
                                &pointer::push_index(&out_k, i),
                            );
                        }
                    } else {
                        if conjoined {
                            self.conjoined.insert(out_k.clone());
                        }
                        self.position = Position::under(&key);
                        *value = self.node_owned(std::mem::take(value), &from_k, &out_k);
                    }
                }
                Slot::Array => {
                    if let Value::Array(list) = value {
                        let union = key == "anyOf" || key == "oneOf";
                        let keys = if union {
                            carrier_keys(list)
                                .into_iter()
                                .map(|k| k.or_else(|| inherited.clone()))
                                .collect()
                        } else {
                            vec![None; list.len()]
                        };
                        let beside_arrays: Vec<bool> = (0..list.len())
                            .map(|i| {
                                union
                                    && (arrays_inherited
                                        || list.iter().enumerate().any(|(j, a)| {
                                            j != i && encode::may_hold_kind(a, "array", 0)
                                        }))
                            })
                            .collect();
                        let beside_strings: Vec<bool> = (0..list.len())
                            .map(|i| {
                                union
                                    && list.iter().enumerate().any(|(j, a)| {
                                        j != i && encode::may_hold_kind(a, "string", 0)
                                    })
                            })
                            .collect();
                        // An alternative is a form of the value only when nothing beside the
                        // union judges the value too; otherwise it adds constraints to them.
                        let position = if alone {
                            Position::under(&key)
                        } else {
                            Position::Other
                        };
                        for ((i, child), carrier) in list.iter_mut().enumerate().zip(keys) {
                            let child_out = pointer::push_index(&out_k, i);
                            if conjoined {
                                self.conjoined.insert(child_out.clone());
                            }
                            self.position = position;
                            self.carrier_key = carrier;
                            self.beside_arrays = beside_arrays[i];
                            self.beside_strings = beside_strings[i];
                            *child = self.node_owned(
                                std::mem::take(child),
                                &pointer::push_index(&from_k, i),
                                &child_out,
                            );
                        }
                    }
                }
            }
        }
    }

    // -----------------------------------------------------------------------------------------
    // Node steps

    fn nullable_to_type(&mut self, m: &mut Map<String, Value>, from: &str, out: &str) {
        if !self.draft.has_nullable() || m.get("nullable") != Some(&Value::Bool(true)) {
            return;
        }
        let Some(ty) = m.get("type").cloned() else {
            // Without `type`, OpenAPI 3.0.3's `nullable` adds nothing: dropping it is exact.
            m.shift_remove("nullable");
            return;
        };
        let mut names: Vec<Value> = match &ty {
            Value::String(_) => vec![ty.clone()],
            Value::Array(list) => list.clone(),
            _ => return,
        };
        if !names.contains(&json!("null")) {
            names.push(json!("null"));
        }
        m.insert("type".into(), Value::Array(names));
        m.shift_remove("nullable");
        self.record(
            Rule::TailorTypeNullable,
            out,
            from,
            Tailoring::TypeNullable {
                profile: self.profile,
                was: ty,
                to_nullable: false,
            },
        );
    }

    fn const_to_enum(&mut self, m: &mut Map<String, Value>, from: &str, out: &str) {
        // The root of an Ollama tool has no `enum` field; a constant root is not a tool anyway.
        if out.is_empty() && self.profile == Profile::Ollama {
            return;
        }
        let Some(value) = m.get("const").cloned() else {
            return;
        };
        let values = match m.get("enum") {
            None => vec![value.clone()],
            Some(Value::Array(list)) if list.contains(&value) => vec![value.clone()],
            Some(_) => {
                self.unresolved(
                    &pointer::push(out, "const"),
                    "const",
                    "`const` beside an `enum` that does not list it accepts nothing; left as it is"
                        .into(),
                );
                return;
            }
        };
        // In place of `const`, so that the key order stays the original's.
        let rebuilt: Map<String, Value> = std::mem::take(m)
            .into_iter()
            .filter(|(k, _)| k != "enum")
            .map(|(k, v)| {
                if k == "const" {
                    ("enum".to_owned(), Value::Array(values.clone()))
                } else {
                    (k, v)
                }
            })
            .collect();
        *m = rebuilt;
        self.record(
            Rule::TailorConstEnum,
            out,
            from,
            Tailoring::ConstEnum {
                profile: self.profile,
                value,
            },
        );
    }

    /// Gemini's `type` holds one name. `Some` when the node was split into an `anyOf` (already
    /// tailored, children included).
    fn type_array(&mut self, m: &mut Map<String, Value>, from: &str, out: &str) -> Option<Value> {
        let Some(Value::Array(list)) = m.get("type").cloned() else {
            return None;
        };
        let names: Vec<String> = list
            .iter()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect();
        if names.len() != list.len() || names.is_empty() {
            self.unresolved(
                &pointer::push(out, "type"),
                "type-array",
                format!("`type` is {}, not a list of type names", Value::Array(list)),
            );
            return None;
        }
        let non_null: Vec<&String> = names.iter().filter(|n| *n != "null").collect();
        let nullable = non_null.len() < names.len();
        match non_null.as_slice() {
            [] => {
                m.insert("type".into(), json!("null"));
                None
            }
            [one] => {
                m.insert("type".into(), json!(one));
                if nullable {
                    insert_after(m, "type", "nullable", Value::Bool(true));
                }
                self.record(
                    Rule::TailorTypeNullable,
                    out,
                    from,
                    Tailoring::TypeNullable {
                        profile: self.profile,
                        was: Value::Array(list),
                        to_nullable: nullable,
                    },
                );
                None
            }
            _ => {
                if m.contains_key("anyOf") {
                    self.unresolved(
                        &pointer::push(out, "type"),
                        "type-array",
                        "`type` list beside an `anyOf`: splitting it would need `allOf`, which the provider lacks".into(),
                    );
                    return None;
                }
                // type [A, B] is anyOf [{type: A}, {type: B}]; each kind's own keywords go to
                // its alternative, where they mean the same (they ignore the other kinds).
                let mut top = Map::new();
                let mut branches: Vec<Map<String, Value>> = names
                    .iter()
                    .map(|n| {
                        let mut b = Map::new();
                        b.insert("type".into(), json!(n));
                        b
                    })
                    .collect();
                for (k, v) in m.iter() {
                    if k == "type" {
                        continue;
                    }
                    if is_kind_specific(k) {
                        for (b, n) in branches.iter_mut().zip(&names) {
                            if kind_keywords(n).contains(&k.as_str()) {
                                b.insert(k.clone(), v.clone());
                            }
                        }
                    } else {
                        top.insert(k.clone(), v.clone());
                    }
                }
                self.record(
                    Rule::TailorTypeSplit,
                    out,
                    from,
                    Tailoring::TypeSplit {
                        profile: self.profile,
                        types: names.clone(),
                    },
                );
                self.rename(from, out);
                let any_of = pointer::push(out, "anyOf");
                let mut done = Vec::new();
                for (i, b) in branches.into_iter().enumerate() {
                    // Each alternative stands for the same projection node; its children keep
                    // their projection pointers, so they are found and linked as usual.
                    done.push(self.node_owned(
                        Value::Object(b),
                        from,
                        &pointer::push_index(&any_of, i),
                    ));
                }
                self.rename(from, out);
                let mut top_value = Value::Object(top);
                if let Value::Object(t) = &mut top_value {
                    // Annotations and type-independent keywords stay on the node itself.
                    let tailored = self.node_owned(Value::Object(std::mem::take(t)), from, out);
                    if let Value::Object(tm) = tailored {
                        *t = tm;
                    }
                    t.insert("anyOf".into(), Value::Array(done));
                }
                Some(top_value)
            }
        }
    }

    fn drop_keywords(&mut self, m: &mut Map<String, Value>, rules: &[&str], from: &str, out: &str) {
        let sets: Vec<KeywordSet> = rules
            .iter()
            .filter_map(|r| keyword_set(self.profile, r))
            .collect();
        self.drop_where(m, |k| sets.iter().any(|s| s.drops(k)), from, out);
    }

    /// Drops keywords named by the step itself (for what the profile's lint rules do not list).
    fn drop_listed(&mut self, m: &mut Map<String, Value>, set: KeywordSet, from: &str, out: &str) {
        self.drop_where(m, |k| set.drops(k), from, out);
    }

    /// Drops the keywords `unwanted` names, and what depended on them, as one traced step.
    fn drop_where(
        &mut self,
        m: &mut Map<String, Value>,
        unwanted: impl Fn(&str) -> bool,
        from: &str,
        out: &str,
    ) {
        let keywords: Vec<String> = m.keys().filter(|k| unwanted(k)).cloned().collect();
        if keywords.is_empty() {
            return;
        }
        for k in &keywords {
            m.shift_remove(k);
        }
        let dependent = drop_dependents(m, &keywords);
        self.record(
            Rule::TailorDropKeyword,
            out,
            from,
            Tailoring::KeywordsDropped {
                profile: self.profile,
                keywords,
                dependent,
            },
        );
    }

    /// Drops a `pattern` the provider's regex engine refuses: lookaround, and with `all` also
    /// backreferences and word boundaries.
    fn drop_pattern(&mut self, m: &mut Map<String, Value>, all: bool, from: &str, out: &str) {
        let Some(Value::String(p)) = m.get("pattern") else {
            return;
        };
        if !(crate::lint::has_lookaround(p) || all && has_backreference_or_boundary(p)) {
            return;
        }
        let p = p.clone();
        m.shift_remove("pattern");
        self.record(
            Rule::TailorDropKeyword,
            out,
            from,
            Tailoring::KeywordsDropped {
                profile: self.profile,
                keywords: vec![format!("pattern: {p}")],
                dependent: Vec::new(),
            },
        );
    }

    /// Drops `minItems` above what the provider supports (dropping a bound accepts more).
    fn min_items_at_most(&mut self, m: &mut Map<String, Value>, max: u64, from: &str, out: &str) {
        let Some(n) = m.get("minItems").cloned() else {
            return;
        };
        if n.as_u64().is_some_and(|n| n <= max) {
            return;
        }
        m.shift_remove("minItems");
        self.record(
            Rule::TailorDropKeyword,
            out,
            from,
            Tailoring::KeywordsDropped {
                profile: self.profile,
                keywords: vec![format!("minItems: {n}")],
                dependent: Vec::new(),
            },
        );
    }

    fn drop_formats(&mut self, m: &mut Map<String, Value>, rule: &str, from: &str, out: &str) {
        let Some(allowed) = allowed_values(self.profile, rule) else {
            return;
        };
        let Some(Value::String(f)) = m.get("format") else {
            return;
        };
        if allowed.contains(&f.as_str()) {
            return;
        }
        let f = f.clone();
        m.shift_remove("format");
        self.record(
            Rule::TailorDropKeyword,
            out,
            from,
            Tailoring::KeywordsDropped {
                profile: self.profile,
                keywords: vec![format!("format: {f}")],
                dependent: Vec::new(),
            },
        );
    }

    fn ref_siblings(
        &mut self,
        m: &mut Map<String, Value>,
        keep: &[&str],
        wrap: bool,
        from: &str,
        out: &str,
    ) {
        let Some(reference) = m.get("$ref").cloned() else {
            return;
        };
        let siblings: Vec<String> = m
            .keys()
            .filter(|k| *k != "$ref" && !keep.contains(&k.as_str()))
            .cloned()
            .collect();
        if siblings.is_empty() {
            return;
        }
        let mut dropped = Vec::new();
        if !wrap || self.draft.ref_overrides_siblings() || self.draft.has_nullable() {
            // Before 2019-09 a validator ignores `$ref`'s siblings, so dropping the ones that
            // are not annotations changes nothing; wrapping them would start applying them.
            for k in &siblings {
                if !wrap || !ANNOTATIONS.contains(&k.as_str()) {
                    m.shift_remove(k);
                    dropped.push(k.clone());
                }
            }
        }
        let mut kept = Vec::new();
        if wrap {
            let rest: Vec<String> = m
                .keys()
                .filter(|k| *k != "$ref" && !keep.contains(&k.as_str()))
                .cloned()
                .collect();
            if !rest.is_empty() {
                if m.contains_key("anyOf") {
                    self.unresolved(
                        out,
                        "ref-siblings",
                        "`$ref` beside an `anyOf`: moving it into the `anyOf` would change what it accepts".into(),
                    );
                } else {
                    m.shift_remove("$ref");
                    m.insert("anyOf".into(), json!([{"$ref": reference.clone()}]));
                    self.links.insert(
                        pointer::push_index(&pointer::push(out, "anyOf"), 0),
                        self.originals(from),
                    );
                    kept = rest;
                }
            }
        }
        if kept.is_empty() && dropped.is_empty() {
            return;
        }
        self.record(
            Rule::TailorRefSiblings,
            out,
            from,
            Tailoring::RefSiblings {
                profile: self.profile,
                reference: reference.as_str().unwrap_or_default().to_owned(),
                kept,
                dropped,
            },
        );
    }

    fn required_declared(&mut self, m: &mut Map<String, Value>, add: bool, from: &str, out: &str) {
        let Some(Value::Array(required)) = m.get("required") else {
            return;
        };
        let props = m.get("properties").and_then(Value::as_object);
        let missing: Vec<String> = required
            .iter()
            .filter_map(Value::as_str)
            .filter(|n| !props.is_some_and(|p| p.contains_key(*n)))
            .map(str::to_owned)
            .collect();
        if missing.is_empty() {
            return;
        }
        if add {
            // `required` already makes them present; `{}` says nothing more about them, and
            // once the object is closed it is what keeps them allowed.
            let props = m
                .entry("properties")
                .or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(p) = props {
                for n in &missing {
                    p.insert(n.clone(), json!({}));
                }
            }
        } else if let Some(Value::Array(required)) = m.get_mut("required") {
            required.retain(|v| !v.as_str().is_some_and(|n| missing.iter().any(|x| x == n)));
            if required.is_empty() {
                m.shift_remove("required");
            }
        }
        self.record(
            Rule::TailorRequiredDeclared,
            out,
            from,
            Tailoring::RequiredDeclared {
                profile: self.profile,
                names: missing,
                added: add,
            },
        );
    }

    // -----------------------------------------------------------------------------------------
    // Soundness guards: rewrites below a keyword that reads its subschema negatively, or counts
    // what it evaluated, would make it reject more.

    fn guards(
        &mut self,
        input: &Map<String, Value>,
        m: &mut Map<String, Value>,
        from: &str,
        out: &str,
    ) {
        // A changed subschema is treated as loosened; a `$ref` may lead to one.
        let loosens = self.table.iter().any(|s| {
            matches!(
                s,
                Step::DropKeywords { .. }
                    | Step::DropFormats { .. }
                    | Step::RefSiblings { .. }
                    | Step::RequiredDeclared { .. }
                    | Step::CloseObjects
                    | Step::RequireAll
            )
        });
        let changed = |k: &str, m: &Map<String, Value>| {
            m.get(k) != input.get(k) || (loosens && m.get(k).is_some_and(has_ref))
        };
        let mut dropped = Vec::new();
        if m.contains_key("not") && changed("not", m) {
            m.shift_remove("not");
            self.purge(&pointer::push(out, "not"));
            dropped.push("not".to_owned());
        }
        if m.contains_key("if") && changed("if", m) {
            for k in ["if", "then", "else"] {
                if m.shift_remove(k).is_some() {
                    self.purge(&pointer::push(out, k));
                    dropped.push(k.to_owned());
                }
            }
        }
        if m.contains_key("maxContains") && changed("contains", m) {
            m.shift_remove("maxContains");
            dropped.push("maxContains".to_owned());
        }
        let evaluation_changed = (loosens
            && (m.contains_key("$ref") || m.contains_key("$dynamicRef")))
            || in_place_keys().any(|k| input.contains_key(k) && changed(k, m));
        if evaluation_changed {
            for k in ["unevaluatedProperties", "unevaluatedItems"] {
                if m.shift_remove(k).is_some() {
                    dropped.push(k.to_owned());
                }
            }
        }
        if dropped.is_empty() {
            return;
        }
        self.record(
            Rule::TailorDropKeyword,
            out,
            from,
            Tailoring::KeywordsDropped {
                profile: self.profile,
                keywords: Vec::new(),
                dependent: dropped,
            },
        );
    }

    /// Forgets what was done inside a subschema that was then dropped.
    fn purge(&mut self, prefix: &str) {
        self.note_purge(prefix);
        self.forget_within(prefix);
        self.renames.remove_within(prefix);
        self.links.remove_within(prefix);
    }

    /// [`Walk::purge`] of `at/k` for every key `k` of `m`, the object replaced at `at`. One
    /// pass over the records, not one per key; inside [`Walk::deferring_purges`], one pass for
    /// all the objects replaced there.
    pub(super) fn purge_keys(&mut self, at: &str, m: &Map<String, Value>) {
        let tokens: HashSet<String> = m.keys().map(|k| pointer::escape(k).into_owned()).collect();
        for token in &tokens {
            self.note_purge(&format!("{at}/{token}"));
        }
        match &mut self.deferred {
            Some(replaced) => replaced.entry(at.to_owned()).or_default().extend(tokens),
            None => self.forget_below(&HashMap::from([(at.to_owned(), tokens)])),
        }
    }

    /// Runs `carry`, whose purges of replaced objects' keys are applied together at the end.
    /// A walk that carries a thousand values deep in a large schema would otherwise pass over
    /// every record made so far once per carrier. Only for steps that replace values and read
    /// no record below what they replaced: a later carrier inside an earlier one finds no
    /// value there, and one around it reads the records at and above itself.
    pub(super) fn deferring_purges<R>(&mut self, carry: impl FnOnce(&mut Self) -> R) -> R {
        if self.deferred.is_some() {
            return carry(self);
        }
        self.deferred = Some(HashMap::new());
        let result = carry(self);
        if let Some(replaced) = self.deferred.take()
            && !replaced.is_empty()
        {
            self.forget_below(&replaced);
        }
        result
    }

    /// Forgets the records under the replaced objects: by object pointer, the (escaped) keys
    /// it had.
    fn forget_below(&mut self, replaced: &HashMap<String, HashSet<String>>) {
        let prefixes: Vec<String> = replaced
            .iter()
            .flat_map(|(at, tokens)| tokens.iter().map(move |t| format!("{at}/{t}")))
            .collect();
        for prefix in &prefixes {
            self.renames.remove_within(prefix);
            self.forget_within(prefix);
        }
        let prefixes: Vec<&str> = prefixes.iter().map(String::as_str).collect();
        self.links.remove_within_all(&prefixes);
    }

    /// Drops the records (adapters, trace entries, unresolved places) made at or below
    /// `prefix`.
    fn forget_within(&mut self, prefix: &str) {
        self.adapters.remove_within(prefix);
        self.trace.remove_within(prefix);
        self.unresolved.remove_within(prefix);
    }

    // -----------------------------------------------------------------------------------------
    // Object steps (lossy)

    /// For `RequireAll`: how each optional property will be made nullable. Decided before the
    /// properties are tailored, because wrapping moves the property's schema (and everything
    /// under it) one level down.
    fn null_plans(&mut self, m: &Map<String, Value>, out: &str) -> BTreeMap<String, NullForm> {
        let mut plans = BTreeMap::new();
        if !self.has(Step::RequireAll) || !self.options.lossy {
            return plans;
        }
        let Some(Value::Object(props)) = m.get("properties") else {
            return plans;
        };
        let required = required_set(m);
        if self.shared && props.keys().any(|k| !required.contains(k.as_str())) {
            self.unresolved(
                &pointer::push(out, "required"),
                "required-all",
                "applies together with other schemas to one object: sending null for its absent properties could break theirs".into(),
            );
            return plans;
        }
        if m.contains_key("enum") || m.contains_key("const") {
            // Filling in nulls would change the object's value, which the enum pins down.
            self.unresolved(
                &pointer::push(out, "required"),
                "required-all",
                "an object with `enum`/`const`: making its properties required would change the values it lists".into(),
            );
            return plans;
        }
        let encodes = self.stand_ins();
        for (name, schema) in props {
            if required.contains(name.as_str()) {
                continue;
            }
            let mut form = null_form(schema, encodes);
            // A `$ref` with annotations beside it moves into a one-alternative `anyOf` (see
            // `ref_siblings`), which a null alternative can then join.
            let wraps_refs = self
                .table
                .iter()
                .any(|s| matches!(s, Step::RefSiblings { wrap: true, .. }));
            if form == NullForm::Wrapped
                && wraps_refs
                && schema.as_object().is_some_and(|c| {
                    c.contains_key("$ref")
                        && c.len() > 1
                        && c.keys()
                            .all(|k| k == "$ref" || ANNOTATIONS.contains(&k.as_str()))
                })
            {
                form = NullForm::Alternative;
            }
            // `null` now stands for "absent"; where the property takes `null` itself, an
            // explicit `null` needs a form of its own — even with `default: null`, which says
            // what the tool assumes when it is absent, not that the tool cannot tell the two
            // apart.
            if form == NullForm::Already
                && let Some(marker) = choose_marker(self.projection_schema, schema)
            {
                let at = pointer::push(&pointer::push(out, "properties"), name);
                self.markers.insert(at, marker);
                form = if is_bare_any_of(schema) {
                    NullForm::MarkedAlternative
                } else {
                    NullForm::Marked
                };
            }
            plans.insert(name.clone(), form);
        }
        plans
    }

    fn object_steps(
        &mut self,
        m: &mut Map<String, Value>,
        from: &str,
        out: &str,
        plans: &BTreeMap<String, NullForm>,
        rest: Option<Value>,
    ) {
        if self.has(Step::CloseObjects) && is_object(m) {
            self.close(m, from, out, rest);
        }
        if self.has(Step::RequireAll)
            && m.get("properties").is_some_and(Value::is_object)
            && !m.contains_key("required")
        {
            // The provider wants `required` on every object, even when it lists nothing.
            m.insert("required".into(), json!([]));
        }
        if self.has(Step::RequireAll) && m.contains_key("properties") {
            if self.options.lossy {
                self.require_all(m, from, out, plans);
            } else {
                let required = required_set(m);
                let optional = m["properties"]
                    .as_object()
                    .is_some_and(|p| p.keys().any(|k| !required.contains(k.as_str())));
                if optional {
                    self.unresolved(
                        &pointer::push(out, "required"),
                        "required-all",
                        "lossy step skipped: optional properties stay optional".into(),
                    );
                }
            }
        }
    }

    /// `rest`: the schema for the other keys as the projection has it (before its tailoring).
    fn close(&mut self, m: &mut Map<String, Value>, from: &str, out: &str, rest: Option<Value>) {
        let was = match m.get("additionalProperties") {
            Some(Value::Bool(false)) if !m.contains_key("patternProperties") => {
                self.declare_no_properties(m, from, out);
                return;
            }
            Some(Value::Bool(false)) => {
                self.unresolved(
                    out,
                    "additional-properties",
                    "closed, but `patternProperties` admit more keys; closing them off would need a pattern per key".into(),
                );
                return;
            }
            Some(Value::Bool(true)) => "true",
            Some(Value::Object(o)) if o.is_empty() => "{}",
            None => "not set",
            // Declared properties and typed other keys (GitHub's `permissions`: five named,
            // any other a string): closed like an open object — the declared ones stay, the
            // others travel as entries whose values keep their schema.
            Some(Value::Object(_))
                if m.get("properties")
                    .and_then(Value::as_object)
                    .is_some_and(|p| !p.is_empty()) =>
            {
                "a schema for the other keys"
            }
            Some(_) => {
                self.unresolved(
                    &pointer::push(out, "additionalProperties"),
                    "additional-properties",
                    "a map with typed values (`additionalProperties` is a schema): closing it would drop every entry".into(),
                );
                // A pure map (`dict[str, T]`, a JSON value's object case) also has no
                // properties, which strict mode reports on its own.
                if !m.contains_key("properties")
                    && let Some(rule) = self.rule_id(|c| matches!(c, Check::ObjectProperties))
                {
                    self.unresolved(
                        out,
                        rule,
                        "a map (no properties): its keys cannot be listed, and closing it would drop every entry".into(),
                    );
                }
                return;
            }
        };
        if let Some(k) = in_place_keys().find(|k| m.contains_key(*k)) {
            self.unresolved(
                out,
                "additional-properties",
                format!("`{k}` beside the properties may allow other keys; closing this object alone would reject them"),
            );
            return;
        }
        // The carrier of the other keys counts as one key, and holds keys these keywords would
        // judge one by one.
        if let Some(k) = [
            "minProperties",
            "maxProperties",
            "propertyNames",
            "dependentRequired",
            "dependencies",
        ]
        .iter()
        .find(|k| m.contains_key(**k))
        {
            self.unresolved(
                out,
                "additional-properties",
                format!("`{k}` counts or names keys that the carrier of the other keys would hide"),
            );
            return;
        }
        if self.shared {
            self.unresolved(
                out,
                "additional-properties",
                "applies together with its parent (or the other `allOf` parts) to one object; closing it alone would reject the keys they allow".into(),
            );
            return;
        }
        if m.contains_key("patternProperties") {
            self.unresolved(
                out,
                "additional-properties",
                "keys allowed by `patternProperties`: closing would drop them".into(),
            );
            return;
        }
        // `properties: {}` is how a tool says it takes no arguments: closing it says the same.
        let known: Vec<String> = match m.get("properties") {
            Some(Value::Object(p)) => p.keys().cloned().collect(),
            _ => {
                let rule = self.rule_id(|c| matches!(c, Check::ObjectProperties));
                self.unresolved(
                    out,
                    rule.unwrap_or("free-form-object"),
                    "a free-form object (no properties): closing it would drop every key".into(),
                );
                return;
            }
        };
        if !self.options.lossy {
            self.unresolved(
                out,
                "additional-properties",
                "lossy step skipped: the object stays open".into(),
            );
            return;
        }
        self.carry_other_keys(m, from, out, was, known, rest);
    }

    /// A closed object that declares no property takes `{}` alone (Firecrawl's MCP server
    /// writes its records so: `propertyNames` and `additionalProperties: false`); `properties:
    /// {}`, the form of a tool without arguments, says the same, where strict modes refuse an
    /// object schema without `properties`.
    fn declare_no_properties(&mut self, m: &mut Map<String, Value>, from: &str, out: &str) {
        if m.contains_key("properties") {
            return;
        }
        m.insert("properties".into(), json!({}));
        self.record(
            Rule::TailorRequiredDeclared,
            out,
            from,
            Tailoring::NoPropertiesDeclared {
                profile: self.profile,
            },
        );
    }

    fn require_all(
        &mut self,
        m: &mut Map<String, Value>,
        from: &str,
        out: &str,
        plans: &BTreeMap<String, NullForm>,
    ) {
        if plans.is_empty() {
            return;
        }
        let Some(Value::Object(props)) = m.get_mut("properties") else {
            return;
        };
        let mut made = Vec::new();
        for (name, schema) in props.iter_mut() {
            let Some(&planned) = plans.get(name) else {
                continue;
            };
            // Planned on the projection's schema; a step below may have changed its shape since
            // (a dropped keyword, an encoding), so a null type or alternative goes where the
            // tailored schema now takes it.
            let form = match planned {
                NullForm::TypeList | NullForm::Alternative => {
                    if is_bare_any_of(schema) {
                        NullForm::Alternative
                    } else {
                        NullForm::TypeList
                    }
                }
                other => other,
            };
            match form {
                NullForm::TypeList => add_null_type(schema),
                NullForm::Alternative => {
                    if let Some(Value::Array(alts)) = schema.get_mut("anyOf") {
                        alts.push(json!({"type": "null"}));
                    }
                }
                NullForm::MarkedAlternative => {
                    let at = pointer::push(&pointer::push(out, "properties"), name);
                    if let (Some(Value::Array(alts)), Some(marker)) =
                        (schema.get_mut("anyOf"), self.markers.get(&at))
                    {
                        alts.push(marker_schema(marker));
                    }
                }
                // Wrapped while the children were tailored; Already needs nothing.
                NullForm::Wrapped | NullForm::Marked | NullForm::Already => {}
            }
            made.push((name.clone(), form));
        }
        let mut required: Vec<Value> = match m.get("required") {
            Some(Value::Array(r)) => r.clone(),
            _ => Vec::new(),
        };
        for (name, _) in &made {
            required.push(Value::String(name.clone()));
        }
        m.insert("required".into(), Value::Array(required));
        // Inside the expected carrier (lint only, untraced) nothing below is written.
        if !self.keeps(out) {
            return;
        }
        let names: Vec<String> = made.iter().map(|(n, _)| n.clone()).collect();
        for (name, form) in made {
            let alternative = matches!(form, NullForm::Alternative | NullForm::MarkedAlternative);
            if !alternative && !self.traced {
                continue;
            }
            let at = pointer::push(&pointer::push(out, "properties"), &name);
            let prop_from = pointer::push(&pointer::push(from, "properties"), &name);
            if alternative && let Some(Value::Array(alts)) = m["properties"][&name].get("anyOf") {
                let last = pointer::push_index(&pointer::push(&at, "anyOf"), alts.len() - 1);
                self.links.insert(last, self.originals(&prop_from));
            }
            self.record(
                Rule::TailorRequiredNullable,
                &at,
                &prop_from,
                Tailoring::RequiredNullable {
                    profile: self.profile,
                    property: name,
                    form,
                },
            );
        }
        for name in &names {
            let at = pointer::push(&pointer::push(out, "properties"), name);
            if let Some(marker) = self.markers.get(&at) {
                self.adapters.push(Adapter::NullMarker {
                    at: out.to_owned(),
                    properties: vec![name.clone()],
                    marker: marker.clone(),
                });
            }
        }
        self.adapters.push(Adapter::NullForAbsent {
            at: out.to_owned(),
            properties: names,
        });
    }

    // -----------------------------------------------------------------------------------------
    // Reports

    fn root_checks(&mut self, root: &Value) {
        self.unresolved.extend(root_problems(root));
    }

    /// Size limits no rewrite here brings down (a schema this large needs splitting, or
    /// subtrees sent as JSON text by hand): reported with the lint's own count.
    fn limits(&mut self, schema: &Value) {
        let is_limit = |r: &crate::lint::LintRule| r.id.starts_with("limit-");
        for f in crate::lint::lint_schema_where(self.profile, schema, is_limit) {
            self.unresolved(&f.pointer, f.rule, f.message);
        }
    }

    fn array_items(&mut self, m: &Map<String, Value>, typed: bool, out: &str) {
        if !type_names(m).contains(&"array") {
            return;
        }
        match m.get("items") {
            None => self.unresolved(
                out,
                "array-items",
                "an array without `items` (or whose tuple form could not be kept): the provider needs one item schema".into(),
            ),
            Some(items) if typed && !crate::lint::says_a_kind(items) => self.unresolved(
                &pointer::push(out, "items"),
                "array-items-typed",
                format!("`items` is {items}, which names no type; any type chosen here would be a guess"),
            ),
            _ => {}
        }
    }

    fn typed(&mut self, m: &Map<String, Value>, out: &str) {
        let Some(rule) = self
            .profile
            .rules()
            .iter()
            .find(|r| matches!(r.applies, Check::NodeType { .. }))
        else {
            return;
        };
        let Check::NodeType { stand_ins } = rule.applies else {
            return;
        };
        if !stand_ins.iter().any(|k| m.contains_key(*k)) {
            let why = if m.contains_key("const") {
                "`const` without `type`: the provider wants the type written out"
            } else {
                "a schema with no type accepts any value; any one type would reject the others"
            };
            self.unresolved(out, rule.id, why.into());
        }
    }

    fn string_enums(&mut self, m: &Map<String, Value>, out: &str) {
        let Some(Value::Array(values)) = m.get("enum") else {
            return;
        };
        if let Some(bad) = values.iter().find(|v| !v.is_string()) {
            let rule = self.rule_id(|c| matches!(c, Check::EnumValues { .. }));
            self.unresolved(
                &pointer::push(out, "enum"),
                rule.unwrap_or("enum-non-string"),
                format!(
                    "enum value {bad} is not a string; writing it as one would change the value"
                ),
            );
        }
    }
}

/// The original nodes behind `at` in `links`, or behind its nearest ancestor that has some.
fn nearest_originals(links: &Links, at: &str) -> Vec<String> {
    let mut here = at;
    loop {
        let found = links.originals(here);
        if !found.is_empty() {
            return found.to_vec();
        }
        match pointer::parent(here) {
            Some(p) => here = p,
            None => return Vec::new(),
        }
    }
}

fn has_ref(v: &Value) -> bool {
    match v {
        Value::Object(m) => m.contains_key("$ref") || m.values().any(has_ref),
        Value::Array(items) => items.iter().any(has_ref),
        _ => false,
    }
}

/// Targets of local `$ref`s that sit beside keywords other than annotations.
fn shared_ref_targets(v: &Value, out: &mut std::collections::HashSet<String>) {
    match v {
        Value::Object(m) => {
            if let Some(Value::String(r)) = m.get("$ref")
                && let Some(target) = r.strip_prefix('#')
                && m.keys().any(|k| {
                    k != "$ref"
                        && !ANNOTATIONS.contains(&k.as_str())
                        && k != "$defs"
                        && k != "definitions"
                })
            {
                out.insert(target.to_owned());
            }
            m.values().for_each(|c| shared_ref_targets(c, out));
        }
        Value::Array(items) => items.iter().for_each(|c| shared_ref_targets(c, out)),
        _ => {}
    }
}

/// The names `required` lists, for telling a property's place in it: an object can have
/// thousands of properties, and a scan of the list per property made it quadratic.
fn required_set(m: &Map<String, Value>) -> HashSet<&str> {
    match m.get("required") {
        Some(Value::Array(r)) => r.iter().filter_map(Value::as_str).collect(),
        _ => HashSet::new(),
    }
}

fn required_names(m: &Map<String, Value>) -> Vec<String> {
    match m.get("required") {
        Some(Value::Array(r)) => r
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    }
}

/// How to make `schema` accept `null` as well, and nothing else new. `encodes`: the stand-ins
/// for `type` of a profile that carries kindless values as JSON text (a string, to which
/// `"null"` is added).
fn null_form(schema: &Value, encodes: Option<&[&str]>) -> NullForm {
    let Some(m) = schema.as_object() else {
        // `true` accepts null already (unless it becomes JSON text); `false` wrapped accepts
        // null only.
        return match (schema == &Value::Bool(true), encodes) {
            (true, Some(_)) => NullForm::TypeList,
            (true, None) => NullForm::Already,
            (false, _) => NullForm::Wrapped,
        };
    };
    if let Some(stand_ins) = encodes
        && !stand_ins.iter().any(|k| m.contains_key(*k))
        && !m.contains_key("const")
    {
        // JSON text in a string, or beside the one kind its keywords constrain in an `anyOf`.
        return match encode::kind_family(m) {
            Some(_) => NullForm::Alternative,
            None => NullForm::TypeList,
        };
    }
    // Keywords that would still judge a null after "null" joins the type list.
    const JUDGE_NULL: &[&str] = &[
        "const",
        "anyOf",
        "oneOf",
        "allOf",
        "not",
        "if",
        "$ref",
        "$dynamicRef",
    ];
    let types = type_names(m);
    let enum_has_null = match m.get("enum") {
        Some(Value::Array(v)) => v.contains(&Value::Null),
        Some(_) => false,
        None => true,
    };
    if !types.is_empty() && !JUDGE_NULL.iter().any(|k| m.contains_key(*k)) {
        if types.contains(&"null") && enum_has_null {
            return NullForm::Already;
        }
        return NullForm::TypeList;
    }
    if let Some(Value::Array(alts)) = m.get("anyOf")
        && m.keys()
            .all(|k| k == "anyOf" || ANNOTATIONS.contains(&k.as_str()))
    {
        return if alts.iter().any(is_null_schema) {
            NullForm::Already
        } else {
            NullForm::Alternative
        };
    }
    if m.keys().all(|k| ANNOTATIONS.contains(&k.as_str())) {
        return NullForm::Already;
    }
    NullForm::Wrapped
}

/// `anyOf` with annotations only beside it: another alternative can join it in place.
fn is_bare_any_of(schema: &Value) -> bool {
    schema.as_object().is_some_and(|m| {
        m.get("anyOf").is_some_and(Value::is_array)
            && m.keys()
                .all(|k| k == "anyOf" || ANNOTATIONS.contains(&k.as_str()))
    })
}

/// Whether `schema` may accept a value of `kind` (`string`, `object`, `boolean`); true when
/// unsure.
pub(super) fn may_accept(schema: &Value, kind: &str) -> bool {
    may_accept_in(None, schema, kind, 0)
}

/// [`may_accept`], following local `$ref`s into `root` (a `$ref` it cannot follow may take
/// anything).
fn may_accept_in(root: Option<&Value>, schema: &Value, kind: &str, hops: usize) -> bool {
    let Some(m) = schema.as_object() else {
        return schema != &Value::Bool(false);
    };
    let of_kind = |v: &Value| match kind {
        "string" => v.is_string(),
        "object" => v.is_object(),
        "boolean" => v.is_boolean(),
        "null" => v.is_null(),
        _ => true,
    };
    if let Some(Value::Array(values)) = m.get("enum") {
        return values.iter().any(of_kind);
    }
    if let Some(c) = m.get("const") {
        return of_kind(c);
    }
    if let Some(Value::Array(alts)) = m.get("anyOf").or_else(|| m.get("oneOf")) {
        return alts.iter().any(|a| may_accept_in(root, a, kind, hops));
    }
    if let Some(Value::Array(parts)) = m.get("allOf") {
        return parts.iter().all(|p| may_accept_in(root, p, kind, hops));
    }
    if let Some(r) = m.get("$ref") {
        // Pydantic writes a nested model or an enum as a `$ref` into `$defs`: what it
        // takes decides the marker as much as an inline schema would.
        let target = r
            .as_str()
            .and_then(|r| r.strip_prefix('#'))
            .filter(|_| hops < 32)
            .and_then(|p| root?.pointer(p));
        return target.is_none_or(|t| {
            may_accept_in(root, t, kind, hops + 1) && {
                // Keywords beside the `$ref` narrow it further; one that rules the kind out
                // is read like any schema's.
                let mut beside = m.clone();
                beside.shift_remove("$ref");
                may_accept_in(root, &Value::Object(beside), kind, hops + 1)
            }
        });
    }
    let types = type_names(m);
    types.is_empty() || types.contains(&kind)
}

/// The value an explicit `null` is sent as: one the property's own schema cannot take, so that
/// it never stands for a real value.
/// `root`: the document its local `$ref`s point into. A plain value before an object (the
/// model reads `false` more easily than a one-key object).
fn choose_marker(root: &Value, schema: &Value) -> Option<Value> {
    [
        ("string", json!("<null>")),
        ("boolean", json!(false)),
        ("object", json!({"null": true})),
    ]
    .into_iter()
    .find(|(kind, _)| !may_accept_in(Some(root), schema, kind, 0))
    .map(|(_, marker)| marker)
}

/// The alternative that takes the marker.
fn marker_schema(marker: &Value) -> Value {
    let note = "Send this for an explicit null; null itself means the property is not given.";
    match marker {
        Value::Object(m) => {
            let (key, value) = m.iter().next().expect("the object marker has one key");
            let mut properties = Map::new();
            properties.insert(key.clone(), json!({"type": "boolean", "const": value}));
            json!({
                "type": "object",
                "properties": properties,
                "required": [key],
                "additionalProperties": false,
                "description": note
            })
        }
        // `const`, not `enum`: OpenAI counts enum values against a limit (1,000 per tool),
        // which a marker on each of a large tool's properties would pass.
        other => json!({
            "type": if other.is_string() { "string" } else { "boolean" },
            "const": other,
            "description": note
        }),
    }
}

/// Backreferences and word boundaries, which some providers' regex engines lack.
fn has_backreference_or_boundary(pattern: &str) -> bool {
    let b = pattern.as_bytes();
    let mut i = 0;
    while i + 1 < b.len() {
        if b[i] == b'\\' {
            if matches!(b[i + 1], b'1'..=b'9' | b'k' | b'b' | b'B') {
                return true;
            }
            i += 2;
        } else {
            i += 1;
        }
    }
    false
}

fn add_null_type(schema: &mut Value) {
    let Some(m) = schema.as_object_mut() else {
        return;
    };
    let mut names: Vec<Value> = match m.get("type") {
        Some(Value::String(t)) => vec![json!(t)],
        Some(Value::Array(list)) => list.clone(),
        _ => return,
    };
    if !names.contains(&json!("null")) {
        names.push(json!("null"));
    }
    m.insert("type".into(), Value::Array(names));
    if let Some(Value::Array(values)) = m.get_mut("enum")
        && !values.contains(&Value::Null)
    {
        values.push(Value::Null);
    }
}

/// Drops what loses its meaning, or gets stricter, once `dropped` are gone; returns those.
fn drop_dependents(m: &mut Map<String, Value>, dropped: &[String]) -> Vec<String> {
    let gone = |k: &str| dropped.iter().any(|d| d == k);
    let mut more = Vec::new();
    let take = |m: &mut Map<String, Value>, k: &str, more: &mut Vec<String>| {
        if m.shift_remove(k).is_some() {
            more.push(k.to_owned());
        }
    };
    if gone("if") {
        take(m, "then", &mut more);
        take(m, "else", &mut more);
    }
    if gone("contains") {
        take(m, "minContains", &mut more);
        take(m, "maxContains", &mut more);
    }
    // `items` after `prefixItems` constrains only the later elements; alone it would
    // constrain all of them.
    if gone("prefixItems") && !m.get("items").is_some_and(Value::is_array) {
        take(m, "items", &mut more);
    }
    // Keys that matched a pattern would fall to `additionalProperties`.
    if gone("patternProperties") {
        take(m, "additionalProperties", &mut more);
    }
    let evaluating_gone = dropped
        .iter()
        .chain(more.iter())
        .any(|k| EVALUATING.contains(&k.as_str()));
    if evaluating_gone {
        take(m, "unevaluatedProperties", &mut more);
        take(m, "unevaluatedItems", &mut more);
    }
    more
}

/// `key: value` just before `before` (at the end when it is missing).
fn insert_before(m: &mut Map<String, Value>, before: &str, key: &str, value: Value) {
    let mut out = Map::new();
    let mut value = Some(value);
    for (k, v) in std::mem::take(m) {
        if k == before
            && let Some(v) = value.take()
        {
            out.insert(key.to_owned(), v);
        }
        out.insert(k, v);
    }
    if let Some(v) = value {
        out.insert(key.to_owned(), v);
    }
    *m = out;
}

fn insert_after(m: &mut Map<String, Value>, after: &str, key: &str, value: Value) {
    let mut out = Map::new();
    let mut value = Some(value);
    for (k, v) in std::mem::take(m) {
        let here = k == after;
        out.insert(k, v);
        if here && let Some(v) = value.take() {
            out.insert(key.to_owned(), v);
        }
    }
    if let Some(v) = value {
        out.insert(key.to_owned(), v);
    }
    *m = out;
}
