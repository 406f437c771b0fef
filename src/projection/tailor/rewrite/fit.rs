//! Size limits: a provider that counts what a tool's schema holds (Anthropic strict: optional
//! properties and properties using `anyOf` or a type list; OpenAI strict: properties, enum
//! values, characters of names and values) refuses a schema over the count, however well
//! formed. No rewrite of one node fixes that; what fits is decided for the whole tool:
//!
//! - a property is carried as its JSON text (a string): nothing inside it counts any more, and
//!   a union-typed property sent as a plain string is no longer a union;
//! - optional properties of an object (where the provider counts optional ones) are sent
//!   together as one optional property holding the JSON text of an object of them: the count
//!   drops by all but one.
//!
//! Both are exact with the adapter (`unadapt(adapt(p)) == p`). Before either, where enum values
//! are over (OpenAI: 1,000 values, 120,000 characters, 15,000 characters in one string enum of
//! more than 250 values), an `enum` is dropped and its schema keeps its `type`: that only
//! accepts more, needs no adapter, and the model still reads a plain value of that type, where
//! JSON text would hide the whole value's schema. What to move is chosen greedily and
//! deterministically: an enum drop when one helps, else the property that removes the most of
//! what is over the limits; the deepest and then the last in document order among equals (the
//! first parameters are usually the ones a tool author put first on purpose), until every count
//! fits. Counts are the profile's own lint rules (`limit-*`), so what tailoring leaves is what
//! lint accepts.

mod tally;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::rc::Rc;

use serde_json::{Map, Value, json};

use super::encode::{free_name, kind_of};
use super::{ANNOTATIONS, Walk, nearest_originals, required_names, required_set};
use crate::lint::{Check, Counted, Limit, Profile};
use crate::pointer;
use crate::projection::tailor::{Adapter, LimitCount, Tailoring};
use crate::projection::{Detail, Rule, TraceEntry};
use tally::Tally;

/// Past this many full counts of the schema the rest is left to the limit report. A move
/// whose effect stays inside the moved property needs none (see [`Tally`]); one that can change
/// what else may move (its value held a `$ref`) needs a count over the whole schema.
const MAX_SCANS: usize = 512;

/// Past this many looks at a candidate (ranking them all again, or taking one off the ranking)
/// the rest is left to the limit report.
const MAX_LOOKS: usize = 1 << 26;

/// The property that carries an object's bundled optional properties (`more_2`, … when the
/// object declares it).
pub(super) const BUNDLE_KEY: &str = "more";

/// What a carrier's description says after the value's own.
const LIMIT_NOTE: &str =
    "Sent as JSON text (a string): the tool's schema is over the provider's size limits.";

/// What a schema whose `enum` was dropped says after its own description.
const ENUM_NOTE: &str = "Its list of allowed values is left out: the tool's schema is over the provider's size limits, and the tool checks the value.";

/// Keywords beside `properties` that leave each property's value to its own schema alone, and
/// leave the keys of the object to `properties`/`required` alone (so that some of them can move
/// into a bundle). Anything else (an `anyOf` beside the properties, `patternProperties`, key
/// counts) judges the same value or keys too.
const PLAIN_OBJECT: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "$defs",
    "definitions",
    // The dialect's name (Anthropic strict keeps it at the root).
    "$schema",
];

/// Keywords whose values are data, not subschemas (an `enum` of objects has no properties).
const DATA: &[&str] = &[
    "enum",
    "const",
    "default",
    "examples",
    "example",
    "required",
    "discriminator",
];

/// What a provider's size limits count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Measure {
    Optional,
    Unions,
    Properties,
    EnumValues,
    Chars,
}

impl Measure {
    /// How the limit reads in a sentence ("31 optional properties").
    fn what(self) -> &'static str {
        match self {
            Measure::Optional => "optional properties",
            Measure::Unions => "properties using `anyOf` or a type list",
            Measure::Properties => "properties",
            Measure::EnumValues => "enum values",
            Measure::Chars => "characters of property names, enum and const values",
        }
    }
}

/// The counts of one subtree.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Counts([usize; 5]);

impl Counts {
    fn get(&self, m: Measure) -> usize {
        self.0[m as usize]
    }

    fn add(&mut self, m: Measure, n: usize) {
        self.0[m as usize] += n;
    }

    fn plus(mut self, other: Counts) -> Counts {
        for (a, b) in self.0.iter_mut().zip(other.0) {
            *a += b;
        }
        self
    }

    /// These counts with a part that counted `before` now counting `after`.
    fn replaced(mut self, before: Counts, after: Counts) -> Counts {
        for ((a, b), c) in self.0.iter_mut().zip(before.0).zip(after.0) {
            debug_assert!(*a >= b, "a part counts more than its whole");
            *a = (*a + c).saturating_sub(b);
        }
        self
    }
}

/// One limit of the profile.
#[derive(Debug, Clone, Copy)]
struct Bound {
    measure: Measure,
    max: usize,
}

/// OpenAI's limit on one string enum: more than `values` entries may hold at most `chars`
/// characters.
#[derive(Debug, Clone, Copy)]
struct LargeEnum {
    values: usize,
    chars: usize,
}

/// One property carried to fit the limits, found again in another tailoring of the same
/// projection (the sound form follows the lossy form's choices) by its object's projection
/// pointer; `object_out` where the object is tailoring's own (the root wrapper). For
/// [`Move::DropEnum`] the "object" is the schema holding the `enum`, and `name` is empty.
#[derive(Debug, Clone)]
pub(in crate::projection::tailor) struct Planned {
    object_from: Option<String>,
    object_out: String,
    name: String,
    how: Move,
    limits: Vec<LimitCount>,
}

/// The moves made so far.
#[derive(Debug, Default)]
struct Fitting {
    /// The counts over the limits before the first move.
    before: Option<Vec<LimitCount>>,
    bundles: BTreeMap<String, Bundle>,
    carriers: BTreeSet<String>,
    /// The enums dropped, as they were (see [`Walk::restore_enums`]).
    dropped: Vec<DroppedEnum>,
    /// The properties sent as JSON text: an enum inside one is gone with it.
    texts: BTreeSet<String>,
}

/// An `enum` taken out of the schema at `at`, with what putting it back needs: where it was
/// among the schema's keys, and what the drop added or changed beside it.
#[derive(Debug)]
struct DroppedEnum {
    at: String,
    index: usize,
    values: Vec<Value>,
    type_added: bool,
    description: Option<Value>,
}

impl DroppedEnum {
    /// Fewest values, then fewest characters, first: the limits count values and characters,
    /// so these give the most lists back within what is left; a union's tag (`action`: a
    /// handful of names that say which form the value takes) is one of them.
    fn cost(&self) -> (usize, usize) {
        (
            self.values.len(),
            self.values.iter().map(counted_chars).sum(),
        )
    }
}

/// How a property is taken out of the counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Move {
    /// Its value sent as JSON text, in its place.
    Text,
    /// Moved into its object's bundle of optional properties.
    Bundle,
    /// The schema's `enum` dropped (it keeps, or is given, the type of its values).
    DropEnum,
}

/// A property that could be carried: its value is judged by its own schema alone, nothing on
/// the way to it is a union or a conjunction (an adapted value could then be read back through
/// another alternative), and no `$ref` points into it.
#[derive(Debug, Clone)]
struct Candidate {
    /// The property's object; for an enum, the schema holding it. Shared by the properties of
    /// one object: a large projection has a hundred thousand candidates per pass.
    object: Rc<str>,
    /// Where the candidates inside this one start in the scan's list (they end just before it:
    /// a property is listed after everything inside it); an enum's own place.
    first_inner: usize,
    /// Taken out of the counts by a move since the scan.
    gone: bool,
    /// The property's name; empty for an enum.
    name: String,
    /// An `enum` that may be dropped, rather than a property that may be carried.
    is_enum: bool,
    /// An enum over the profile's one-enum limit: dropped whatever the totals.
    large: bool,
    /// Levels of properties above it; the deeper loses less schema.
    depth: usize,
    /// Its entry in the object: itself as a property (1, its name, optional, union).
    own: Counts,
    /// Everything inside its schema.
    inner: Counts,
    optional: bool,
    /// Its object takes a bundle (optional properties can move there).
    bundles: bool,
}

/// An object's bundle as it grows.
#[derive(Debug, Clone)]
struct Bundle {
    property: String,
    /// The property already carries a closed object's other keys (its adapter grows).
    joins: bool,
    /// The object's properties as they were, so that the bundled ones are listed in that order.
    order: Vec<String>,
    names: Vec<String>,
    /// Each bundled property's description, for the bundle's own.
    notes: Vec<String>,
    originals: Vec<String>,
}

/// The profile's size limits that a carried property lowers, from its lint rules.
fn size_bounds(profile: Profile) -> Vec<Bound> {
    profile
        .rules()
        .iter()
        .filter_map(|r| {
            let (measure, max) = match r.applies {
                Check::ToolSet {
                    counted: Counted::OptionalProperties,
                    max,
                } => (Measure::Optional, max),
                Check::ToolSet {
                    counted: Counted::UnionProperties,
                    max,
                } => (Measure::Unions, max),
                Check::Limit(Limit::Properties(max)) => (Measure::Properties, max),
                Check::Limit(Limit::EnumValues(max)) => (Measure::EnumValues, max),
                Check::Limit(Limit::StringChars(max)) => (Measure::Chars, max),
                _ => return None,
            };
            Some(Bound { measure, max })
        })
        .collect()
}

/// The profile's limit on one large string enum, from its lint rules.
fn large_enum(profile: Profile) -> Option<LargeEnum> {
    profile.rules().iter().find_map(|r| match r.applies {
        Check::Limit(Limit::LargeStringEnum { values, chars }) => Some(LargeEnum { values, chars }),
        _ => None,
    })
}

/// The property (projection pointer) that the fit is expected to carry as JSON text, read on
/// the projection in one pass that writes nothing: the deepest, then last, property (where the
/// fit may carry one) that alone holds what is over every limit, when some limit other than the
/// enum measures is over (else enums go first) and it holds at least [`QUIET_PROPERTIES`]
/// properties. The tailored schema counts a little otherwise (nulls, carriers), and `$ref`
/// targets are not carried, so this is only an expectation; [`super::quiet`] checks it.
pub(in crate::projection::tailor) fn expected_carrier(
    profile: Profile,
    schema: &Value,
) -> Option<String> {
    let bounds = size_bounds(profile);
    let mut estimate = Estimate::default();
    let total = estimate.node(schema, true, 0);
    let over = |b: &Bound| total.get(b.measure) > b.max;
    let enums = |b: &Bound| matches!(b.measure, Measure::EnumValues | Measure::Chars);
    if estimate.refs || !bounds.iter().any(|b| over(b) && !enums(b)) {
        return None;
    }
    let covers = |p: &Sizable| {
        let mut gain = p.inner;
        gain.add(Measure::Unions, p.unions);
        bounds
            .iter()
            .all(|b| total.get(b.measure).saturating_sub(gain.get(b.measure)) <= b.max)
    };
    // Found in post-order: among properties of equal depth, the later is the last in document
    // order.
    let found = estimate.large.iter().filter(|&p| covers(p));
    found.max_by_key(|p| p.depth).map(|p| p.pointer.clone())
}

/// What the projection holds over `profile`'s count limits, as a sentence ("135,753
/// properties (at most 5,000)"), counted as the fit and the lint count them; `None` when every
/// count fits. Only the limits that writing a definition once instead of at each reference
/// lowers: the depth and the one-enum limit are the same either way.
pub(in crate::projection) fn over_count_limits(profile: Profile, schema: &Value) -> Option<String> {
    let total = Estimate::default().node(schema, false, 0);
    let over: Vec<String> = size_bounds(profile)
        .into_iter()
        .filter(|b| total.get(b.measure) > b.max)
        .map(|b| {
            format!(
                "{} {} (at most {})",
                crate::lint::text::thousands(total.get(b.measure)),
                b.measure.what(),
                crate::lint::text::thousands(b.max)
            )
        })
        .collect();
    (!over.is_empty()).then(|| over.join(", "))
}

/// One pass of [`expected_carrier`]: the counts of each subtree as the fit's [`Scan`] counts
/// them, remembering only the properties it could carry that hold many.
#[derive(Default)]
struct Estimate<'a> {
    /// The way down, as pointer tokens.
    path: Vec<std::borrow::Cow<'a, str>>,
    large: Vec<Sizable>,
    /// Some `$ref` is in the schema (its targets are not carried).
    refs: bool,
}

/// A property that could be carried, with many properties inside.
struct Sizable {
    pointer: String,
    depth: usize,
    inner: Counts,
    /// 1 when the property itself is a union (carried, it no longer is).
    unions: usize,
}

impl<'a> Estimate<'a> {
    fn node(&mut self, v: &'a Value, clear: bool, depth: usize) -> Counts {
        let Value::Object(m) = v else {
            return Counts::default();
        };
        self.refs |= m.contains_key("$ref");
        let mut total = own_counts(m);
        let plain = m
            .keys()
            .all(|k| PLAIN_OBJECT.contains(&k.as_str()) || ANNOTATIONS.contains(&k.as_str()));
        for (key, child) in m {
            if DATA.contains(&key.as_str()) {
                continue;
            }
            self.path.push(pointer::escape(key));
            match (key.as_str(), child) {
                ("properties", Value::Object(props)) => {
                    for (name, schema) in props {
                        self.path.push(pointer::escape(name));
                        let inner = self.node(schema, clear && plain, depth + 1);
                        total = total.plus(inner);
                        if clear && plain && inner.get(Measure::Properties) >= QUIET_PROPERTIES {
                            let own = property_counts(name, schema, false);
                            self.large.push(Sizable {
                                pointer: self.path.iter().fold(String::new(), |mut p, t| {
                                    p.push('/');
                                    p.push_str(t);
                                    p
                                }),
                                depth,
                                inner,
                                unions: own.get(Measure::Unions),
                            });
                        }
                        self.path.pop();
                    }
                }
                ("items", Value::Object(_)) => {
                    total = total.plus(self.node(child, clear && plain_array(m), depth));
                }
                (_, Value::Object(sub)) if is_schema_map(key) => {
                    for schema in sub.values() {
                        total = total.plus(self.node(schema, false, depth));
                    }
                }
                (_, Value::Object(_)) => total = total.plus(self.node(child, false, depth)),
                (_, Value::Array(list)) => {
                    for item in list {
                        total = total.plus(self.node(item, false, depth));
                    }
                }
                _ => {}
            }
            self.path.pop();
        }
        total
    }
}

/// Whether [`expected_carrier`] is worth its pass: a projection with fewer linked nodes than
/// [`QUIET_PROPERTIES`] (most tools) has no property holding that many.
pub(super) fn may_expect_carrier(projection: &crate::projection::Projection) -> bool {
    projection.links.len() >= QUIET_PROPERTIES
}

/// Below this many properties inside it, a property is walked with its records as any other:
/// leaving them out saves little, and an expectation the walk then contradicts costs a
/// second walk.
const QUIET_PROPERTIES: usize = 1_000;

impl Walk<'_> {
    /// Carries properties as JSON text (and bundles optional ones) until the schema is within
    /// the profile's size limits, or nothing left can be carried (then the limit step reports
    /// what is still over).
    pub(in crate::projection::tailor) fn fit_limits(&mut self, schema: &mut Value) {
        let bounds = size_bounds(self.profile);
        let large_enum = large_enum(self.profile);
        if bounds.is_empty() && large_enum.is_none() {
            return;
        }
        let bundling = bounds.iter().any(|b| b.measure == Measure::Optional);
        let mut fitting = self.fitting_around_closed_objects();
        let scan = |schema: &Value, carriers: &BTreeSet<String>| {
            let targets = ref_targets(schema);
            Tally::scan(
                &Scan {
                    targets: &targets,
                    carriers,
                    bundling,
                    large_enum,
                },
                schema,
            )
        };
        let (mut scans, mut looks) = (0, 0);
        let mut kept: Option<Tally> = None;
        loop {
            let tally = match &mut kept {
                Some(tally) => tally,
                None if scans == MAX_SCANS => break,
                None => {
                    scans += 1;
                    kept.insert(scan(schema, &fitting.carriers))
                }
            };
            if looks > MAX_LOOKS {
                break;
            }
            let total = tally.total;
            let over: Vec<(Bound, usize)> = bounds
                .iter()
                .filter(|b| total.get(b.measure) > b.max)
                .map(|b| (*b, total.get(b.measure) - b.max))
                .collect();
            let large = tally.last_large();
            if over.is_empty() && large.is_none() {
                break;
            }
            let limits = fitting
                .before
                .get_or_insert_with(|| over_limits(&over, total, &tally.candidates, large_enum))
                .clone();
            let Some((index, how)) = large
                .map(|i| (i, Move::DropEnum))
                .or_else(|| tally.best(&over, &fitting.bundles, &mut looks))
            else {
                break;
            };
            let c = tally.candidates[index].clone();
            let object_from = self.renames.placed_at(&c.object).next().cloned();
            self.fitted.push(Planned {
                object_from,
                object_out: c.object.to_string(),
                name: c.name.clone(),
                how,
                limits: limits.clone(),
            });
            let new_bundle = how == Move::Bundle && !fitting.bundles.contains_key(&*c.object);
            let opens_bundle = new_bundle && self.text_carrier_of(&c.object).is_none();
            let change = tally.change(schema, index);
            self.make_move(schema, &mut fitting, &c.object, &c.name, how, limits);
            match change {
                Some(change) => {
                    let opened = fitting.bundles.get(&*c.object).filter(|_| opens_bundle);
                    tally.apply(
                        schema,
                        change,
                        opened.map(|b| b.property.as_str()),
                        new_bundle,
                    );
                    #[cfg(debug_assertions)]
                    tally.assert_as_counted(&scan(schema, &fitting.carriers));
                }
                None => kept = None,
            }
        }
        let fits = |schema: &Value, carriers: &BTreeSet<String>| {
            let tally = scan(schema, carriers);
            bounds.iter().all(|b| tally.total.get(b.measure) <= b.max)
                && !tally.live().any(|(_, c)| c.large)
        };
        self.restore_enums(schema, &mut fitting, fits);
        self.close_bundles(schema, fitting);
    }

    /// Gives back the enums a later move made needless. The greedy fit never undoes a move: an
    /// enum dropped while enum values or characters were over stays dropped after a property
    /// carried as JSON text (for what the enums alone could not fix) took far more off the
    /// counts (GitHub's `issues` webhook lost its `action` tag that way). Each dropped enum is
    /// put back, cheapest first ([`DroppedEnum::cost`]), and kept when the tool still `fits`
    /// every limit; otherwise dropped again. A kept one leaves the plan, so the sound form
    /// (which follows the plan) keeps it too, and its trace entry goes.
    fn restore_enums(
        &mut self,
        schema: &mut Value,
        fitting: &mut Fitting,
        fits: impl Fn(&Value, &BTreeSet<String>) -> bool,
    ) {
        let mut dropped = std::mem::take(&mut fitting.dropped);
        dropped.sort_by_key(DroppedEnum::cost);
        for d in dropped {
            let carried = fitting.texts.iter().any(|t| pointer::is_within(&d.at, t));
            let Some(Value::Object(node)) = schema.pointer_mut(&d.at).filter(|_| !carried) else {
                continue;
            };
            put_back(node, &d);
            fitting.carriers.remove(&d.at);
            if !fits(schema, &fitting.carriers) {
                if let Some(Value::Object(node)) = schema.pointer_mut(&d.at) {
                    take_enum(node);
                }
                fitting.carriers.insert(d.at.clone());
                fitting.dropped.push(d);
                continue;
            }
            self.fitted
                .retain(|p| !(p.how == Move::DropEnum && p.object_out == d.at));
            self.trace.remove_first_at(&d.at, |e| {
                matches!(
                    e.detail,
                    Detail::Tailored(Tailoring::LimitEnumDropped { .. })
                )
            });
        }
    }

    /// Makes the moves another tailoring of the same projection chose (see [`Planned`]).
    pub(in crate::projection::tailor) fn follow_fit_plan(
        &mut self,
        schema: &mut Value,
        plan: Vec<Planned>,
    ) {
        let mut fitting = self.fitting_around_closed_objects();
        for p in plan {
            let object = p
                .object_from
                .and_then(|from| self.renames.get(&from).cloned())
                .unwrap_or(p.object_out);
            fitting.before.get_or_insert_with(|| p.limits.clone());
            self.make_move(schema, &mut fitting, &object, &p.name, p.how, p.limits);
        }
        self.close_bundles(schema, fitting);
    }

    /// A fit that leaves the carriers of closed objects' other keys where they are: their
    /// adapters read them in their own form.
    fn fitting_around_closed_objects(&self) -> Fitting {
        let mut fitting = Fitting::default();
        for a in self.adapters.iter() {
            if let Some(property) = other_keys_carrier(a) {
                let at = pointer::push(&pointer::push(a.at(), "properties"), property);
                fitting.carriers.insert(at);
            }
        }
        fitting
    }

    /// The carrier of the object's other keys as JSON text, which its bundle of optional
    /// properties joins.
    fn text_carrier_of(&self, object: &str) -> Option<String> {
        self.adapters.at(object).find_map(|a| match a {
            Adapter::Bundle {
                property, names, ..
            } if names.is_empty() => Some(property.clone()),
            _ => None,
        })
    }

    fn make_move(
        &mut self,
        schema: &mut Value,
        fitting: &mut Fitting,
        object: &str,
        name: &str,
        how: Move,
        limits: Vec<LimitCount>,
    ) {
        if how == Move::DropEnum {
            fitting
                .dropped
                .extend(self.drop_enum(schema, object, limits));
            fitting.carriers.insert(object.to_owned());
            return;
        }
        let at = pointer::push(&pointer::push(object, "properties"), name);
        if schema.pointer(&at).is_none() {
            return;
        }
        match how {
            Move::Text => {
                let detail = Tailoring::LimitJsonText {
                    profile: self.profile,
                    limits,
                };
                self.carry_value_as_text(schema, &at, LIMIT_NOTE, detail);
                fitting.texts.insert(at.clone());
                fitting.carriers.insert(at);
            }
            Move::Bundle => {
                let joined = self.text_carrier_of(object);
                let bundle = fitting
                    .bundles
                    .entry(object.to_owned())
                    .or_insert_with(|| open_bundle(schema, object, joined));
                fitting.carriers.insert(pointer::push(
                    &pointer::push(object, "properties"),
                    &bundle.property,
                ));
                self.move_into_bundle(schema, object, name, bundle);
            }
            Move::DropEnum => {}
        }
    }

    /// Drops the `enum` of the schema at `at`, which keeps its `type` (or gets its values'
    /// kinds as one), with a note for the model and a trace entry.
    fn drop_enum(
        &mut self,
        schema: &mut Value,
        at: &str,
        limits: Vec<LimitCount>,
    ) -> Option<DroppedEnum> {
        let Some(Value::Object(node)) = schema.pointer_mut(at) else {
            return None;
        };
        let mut dropped = take_enum(node)?;
        dropped.at = at.to_owned();
        self.trace.push(TraceEntry {
            rule: Rule::TailorDropKeyword,
            at: at.to_owned(),
            from: nearest_originals(&self.links, at),
            detail: Detail::Tailored(Tailoring::LimitEnumDropped {
                profile: self.profile,
                values: dropped.values.len(),
                chars: dropped.values.iter().map(counted_chars).sum(),
                limits,
            }),
        });
        Some(dropped)
    }

    fn close_bundles(&mut self, schema: &mut Value, fitting: Fitting) {
        let limits = fitting.before.unwrap_or_default();
        for (object, bundle) in fitting.bundles {
            self.close_bundle(schema, &object, bundle, &limits);
        }
    }

    /// Takes the property out of its object and into the object's bundle; what was done inside
    /// it is forgotten (its value now travels as the projection has it).
    fn move_into_bundle(
        &mut self,
        schema: &mut Value,
        object: &str,
        name: &str,
        bundle: &mut Bundle,
    ) {
        let Some(Value::Object(props)) = schema
            .pointer_mut(object)
            .and_then(|o| o.get_mut("properties"))
        else {
            return;
        };
        let Some(old) = props.shift_remove(name) else {
            return;
        };
        let at = pointer::push(&pointer::push(object, "properties"), name);
        let bundle_at = pointer::push(&pointer::push(object, "properties"), &bundle.property);
        bundle.originals.extend(nearest_originals(&self.links, &at));
        bundle.names.push(name.to_owned());
        bundle
            .notes
            .push(match old.get("description").and_then(Value::as_str) {
                Some(d) if !d.trim().is_empty() => format!("`{name}`: {}", d.trim()),
                _ => format!("`{name}`"),
            });
        // The projection's nodes below the property now live in the bundle.
        let froms: Vec<String> = self.renames.placed_at(&at).cloned().collect();
        self.markers.remove(&at);
        self.purge(&at);
        for from in froms {
            self.renames.insert(from, bundle_at.clone());
        }
    }

    /// Writes the bundle's description, adapter and trace once every property is in it.
    fn close_bundle(
        &mut self,
        schema: &mut Value,
        object: &str,
        mut bundle: Bundle,
        limits: &[LimitCount],
    ) {
        bundle.sort();
        let at = pointer::push(&pointer::push(object, "properties"), &bundle.property);
        let Some(Value::Object(carrier)) = schema.pointer_mut(&at) else {
            return;
        };
        let also = if bundle.joins {
            "any other keys of this object, and "
        } else {
            ""
        };
        carrier.insert(
            "description".into(),
            json!(format!(
                "Sent as JSON text (a string): an object with {also}any of these optional properties, which the provider's size limits leave no room for as parameters of their own. {}",
                bundle.notes.join("; ")
            )),
        );
        let kept = schema
            .pointer(object)
            .and_then(Value::as_object)
            .map(kept_keys)
            .unwrap_or_default();
        let kept: Vec<String> = kept.into_iter().filter(|k| *k != bundle.property).collect();
        self.links.insert(at.clone(), bundle.originals.clone());
        let made = Adapter::Bundle {
            at: object.to_owned(),
            property: bundle.property.clone(),
            names: bundle.names.clone(),
            kept,
        };
        // The carrier of the other keys takes the optional properties too: one adapter, so
        // that each key is moved once and put back once.
        let closed = |a: &Adapter| {
            bundle.joins
                && matches!(a, Adapter::Bundle { property, .. } if *property == bundle.property)
        };
        if let Err(made) = self.adapters.replace_first_at(object, closed, made) {
            self.adapters.push(made);
        }
        self.trace.push(TraceEntry {
            rule: Rule::TailorJsonText,
            at,
            from: bundle.originals,
            detail: Detail::Tailored(Tailoring::Bundled {
                profile: self.profile,
                property: bundle.property,
                names: bundle.names,
                limits: limits.to_vec(),
            }),
        });
    }
}

impl Bundle {
    /// The bundled properties (and their notes) in the object's order.
    fn sort(&mut self) {
        let places: HashMap<&str, usize> = self
            .order
            .iter()
            .enumerate()
            .map(|(i, n)| (n.as_str(), i))
            .collect();
        let position = |name: &String| places.get(name.as_str()).copied();
        let mut pairs: Vec<(String, String)> = std::mem::take(&mut self.names)
            .into_iter()
            .zip(std::mem::take(&mut self.notes))
            .collect();
        pairs.sort_by_key(|(name, _)| position(name));
        (self.names, self.notes) = pairs.into_iter().unzip();
    }
}

/// The keys an object keeps at its top level: its properties and whatever `required` names.
pub(super) fn kept_keys(m: &Map<String, Value>) -> Vec<String> {
    let mut kept: Vec<String> = m
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default();
    let mut seen: HashSet<String> = kept.iter().cloned().collect();
    for r in required_names(m) {
        if seen.insert(r.clone()) {
            kept.push(r);
        }
    }
    kept
}

/// Adds the (still empty) bundle property to the object, under a name it does not declare;
/// or takes `joined`, the carrier of a closed object's other keys, which is one already.
fn open_bundle(schema: &mut Value, object: &str, joined: Option<String>) -> Bundle {
    let props = schema
        .pointer_mut(object)
        .and_then(|o| o.get_mut("properties"))
        .and_then(Value::as_object_mut);
    let order = props
        .as_ref()
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default();
    let joins = joined.is_some();
    let property = match joined {
        Some(property) => property,
        None => {
            let property = free_name(BUNDLE_KEY, |k| {
                props.as_ref().is_some_and(|p| p.contains_key(k))
            });
            if let Some(props) = props {
                props.insert(property.clone(), json!({"type": "string"}));
            }
            property
        }
    };
    Bundle {
        joins,
        property,
        order,
        names: Vec::new(),
        notes: Vec::new(),
        originals: Vec::new(),
    }
}

/// The property that carries the other keys of an object closed by tailoring.
fn other_keys_carrier(a: &Adapter) -> Option<&str> {
    match a {
        Adapter::Bundle {
            property, names, ..
        } if names.is_empty() => Some(property),
        Adapter::KeyEntries { property, .. } => Some(property),
        _ => None,
    }
}

/// Whether the properties still to move are enums only ([`best`]'s order).
fn only_enums(over: &[(Bound, usize)]) -> bool {
    over.iter()
        .all(|(b, _)| matches!(b.measure, Measure::EnumValues | Measure::Chars))
}

/// The move that removes the most of what is over (each limit's gain counted up to its
/// excess), then the deepest, then the last. An enum drop loses only a list of values and needs
/// no adapter, so it goes first when only the enum measures are over; when another limit is
/// over too, a property has to be carried as text anyway and may take the enums with it, so
/// properties go first and enums are dropped for what is left. The move's candidate is given
/// by its place in `candidates`; those gone since the scan are passed over. This looks at every
/// candidate; the fit asks [`Tally::best`], which chooses the same without (debug builds check
/// that it does).
#[cfg(debug_assertions)]
fn best(
    candidates: &[Candidate],
    over: &[(Bound, usize)],
    bundles: &BTreeMap<String, Bundle>,
) -> Option<(usize, Move)> {
    if only_enums(over) {
        best_enum(candidates, over).or_else(|| best_property(candidates, over, bundles))
    } else {
        best_property(candidates, over, bundles).or_else(|| best_enum(candidates, over))
    }
}

/// The candidates not gone since the scan, with their places in the scan's list (a later
/// place is later in document order, which breaks ties).
fn live(candidates: &[Candidate]) -> impl DoubleEndedIterator<Item = (usize, &Candidate)> {
    candidates.iter().enumerate().filter(|(_, c)| !c.gone)
}

/// The enum whose drop removes the most of what is over.
#[cfg(debug_assertions)]
fn best_enum(candidates: &[Candidate], over: &[(Bound, usize)]) -> Option<(usize, Move)> {
    live(candidates)
        .filter(|(_, c)| c.is_enum)
        .filter_map(|(order, c)| {
            let score = score(&c.own, over);
            (score > 0).then_some((score, c.depth, order))
        })
        .max_by_key(|key| *key)
        .map(|(_, _, order)| (order, Move::DropEnum))
}

/// The property whose move (JSON text, or into its object's bundle) removes the most of what
/// is over.
#[cfg(debug_assertions)]
fn best_property(
    candidates: &[Candidate],
    over: &[(Bound, usize)],
    bundles: &BTreeMap<String, Bundle>,
) -> Option<(usize, Move)> {
    let movable = movable_per_object(candidates);
    live(candidates)
        .filter(|(_, c)| !c.is_enum)
        .filter_map(|(order, c)| {
            let has_bundle = has_bundle(c, &movable, bundles);
            let (score, how) = property_score(c, over, has_bundle);
            (score > 0).then_some((score, c.depth, order, how))
        })
        .max_by_key(|(score, depth, order, _)| (*score, *depth, *order))
        .map(|(_, _, order, how)| (order, how))
}

/// A property that would move into its object's bundle rather than be carried in its place.
fn bundled(c: &Candidate) -> bool {
    c.optional && c.bundles
}

/// Per object, by its shared pointer (one per object in a scan), not its text: how many of its
/// properties still may move into its bundle.
fn movable_per_object(candidates: &[Candidate]) -> HashMap<*const str, usize> {
    let mut movable: HashMap<*const str, usize> = HashMap::new();
    for (_, c) in live(candidates).filter(|(_, c)| bundled(c)) {
        *movable.entry(Rc::as_ptr(&c.object)).or_default() += 1;
    }
    movable
}

/// The bundle itself is one more optional property: the first property moved into it gains
/// nothing on its own, the second and later one each. An object with two or more to move is
/// scored as if its bundle were there.
fn has_bundle(
    c: &Candidate,
    movable: &HashMap<*const str, usize>,
    bundles: &BTreeMap<String, Bundle>,
) -> bool {
    bundled(c)
        && (movable.get(&Rc::as_ptr(&c.object)) >= Some(&2) || bundles.contains_key(&*c.object))
}

/// What moving the property removes of what is over, and how it moves.
fn property_score(c: &Candidate, over: &[(Bound, usize)], has_bundle: bool) -> (usize, Move) {
    let how = if bundled(c) { Move::Bundle } else { Move::Text };
    (score(&gain(c, how, has_bundle), over), how)
}

/// How much of what is over a move's gain removes (each limit's gain counted up to its excess).
fn score(gain: &Counts, over: &[(Bound, usize)]) -> usize {
    over.iter()
        .map(|(b, excess)| gain.get(b.measure).min(*excess))
        .sum()
}

/// The counts over the limits before the first move, as the trace reports them; an enum over
/// the one-enum limit is reported with its own count.
fn over_limits(
    over: &[(Bound, usize)],
    total: Counts,
    candidates: &[Candidate],
    large_enum: Option<LargeEnum>,
) -> Vec<LimitCount> {
    let mut limits: Vec<LimitCount> = over
        .iter()
        .map(|(b, _)| LimitCount {
            what: b.measure.what().to_owned(),
            count: total.get(b.measure),
            max: b.max,
        })
        .collect();
    if let (Some(limit), Some((_, c))) = (large_enum, live(candidates).find(|(_, c)| c.large)) {
        limits.push(LimitCount {
            what: format!(
                "characters in one string enum of {} values (over {})",
                c.own.get(Measure::EnumValues),
                limit.values
            ),
            count: c.own.get(Measure::Chars),
            max: limit.chars,
        });
    }
    limits
}

/// Takes the `enum` out of `node`: the schema keeps its `type` (or gets its values' kinds as
/// one), and its description says the list is left out. `at` is left for the caller.
fn take_enum(node: &mut Map<String, Value>) -> Option<DroppedEnum> {
    let index = node.keys().position(|k| k == "enum")?;
    let Some(Value::Array(values)) = node.shift_remove("enum") else {
        return None;
    };
    let type_added = !node.contains_key("type");
    if type_added {
        node.insert("type".into(), kinds_of(&values));
    }
    let description = node.get("description").cloned();
    let note = match description.as_ref().and_then(Value::as_str) {
        Some(d) if !d.trim().is_empty() => format!("{} {ENUM_NOTE}", d.trim_end()),
        _ => ENUM_NOTE.to_owned(),
    };
    node.insert("description".into(), json!(note));
    Some(DroppedEnum {
        at: String::new(),
        index,
        values,
        type_added,
        description,
    })
}

/// Undoes [`take_enum`]: the node's keys as they were, in their order.
fn put_back(node: &mut Map<String, Value>, d: &DroppedEnum) {
    match &d.description {
        Some(text) => {
            node.insert("description".into(), text.clone());
        }
        None => {
            node.shift_remove("description");
        }
    }
    if d.type_added {
        node.shift_remove("type");
    }
    node.shift_insert(d.index, "enum".into(), Value::Array(d.values.clone()));
}

/// The JSON Schema type of enum values: one name, or the list of their kinds (integers are
/// `integer`, unless some number is not).
fn kinds_of(values: &[Value]) -> Value {
    let mut kinds: Vec<&str> = Vec::new();
    for kind in values.iter().map(kind_of) {
        if !kinds.contains(&kind) {
            kinds.push(kind);
        }
    }
    if kinds.contains(&"number") {
        kinds.retain(|k| *k != "integer");
    }
    match kinds.as_slice() {
        [one] => json!(one),
        many => json!(many),
    }
}

/// What a move takes off the counts.
fn gain(c: &Candidate, how: Move, has_bundle: bool) -> Counts {
    let mut gain = Counts::default();
    match how {
        // The property stays (a string): only what was inside it, and its being a union, go.
        Move::Text => {
            gain = gain.plus(c.inner);
            gain.add(Measure::Unions, c.own.get(Measure::Unions));
        }
        Move::DropEnum => gain = c.own,
        Move::Bundle => {
            gain = gain.plus(c.inner).plus(c.own);
            if !has_bundle {
                // The bundle itself is one more optional property.
                gain.0[Measure::Optional as usize] = gain.get(Measure::Optional).saturating_sub(1);
                gain.0[Measure::Properties as usize] =
                    gain.get(Measure::Properties).saturating_sub(1);
            }
        }
    }
    gain
}

/// One counting pass that also lists the candidates.
struct Scan<'a> {
    targets: &'a BTreeSet<String>,
    carriers: &'a BTreeSet<String>,
    bundling: bool,
    large_enum: Option<LargeEnum>,
}

impl Scan<'_> {
    /// The counts of the subtree at `at`. `clear`: nothing on the way here judges the value
    /// besides the schemas on the path (no union, conjunction or definition above).
    fn node(
        &self,
        v: &Value,
        at: &str,
        clear: bool,
        depth: usize,
        out: &mut Vec<Candidate>,
    ) -> Counts {
        let Value::Object(m) = v else {
            return Counts::default();
        };
        let mut total = own_counts(m);
        if clear && let Some(c) = self.enum_candidate(m, at, depth, out.len()) {
            out.push(c);
        }
        let plain = m
            .keys()
            .all(|k| PLAIN_OBJECT.contains(&k.as_str()) || ANNOTATIONS.contains(&k.as_str()));
        let required = required_set(m);
        for (key, child) in m {
            // Keywords with a plain value hold no subschema (and need no pointer).
            if DATA.contains(&key.as_str()) || !(child.is_object() || child.is_array()) {
                continue;
            }
            let child_at = pointer::push(at, key);
            match (key.as_str(), child) {
                ("properties", Value::Object(props)) => {
                    let mut object: Option<Rc<str>> = None;
                    for (name, schema) in props {
                        let prop_at = pointer::push(&child_at, name);
                        let first_inner = out.len();
                        let inner = self.node(schema, &prop_at, clear && plain, depth + 1, out);
                        total = total.plus(inner);
                        if clear && plain && self.carryable(&prop_at, schema) {
                            let optional = !required.contains(name.as_str());
                            out.push(Candidate {
                                object: Rc::clone(object.get_or_insert_with(|| Rc::from(at))),
                                first_inner,
                                gone: false,
                                name: name.clone(),
                                is_enum: false,
                                large: false,
                                depth,
                                own: property_counts(name, schema, optional),
                                inner,
                                optional,
                                bundles: self.bundling,
                            });
                        }
                    }
                }
                ("items", Value::Object(_)) => {
                    total = total.plus(self.node(
                        child,
                        &child_at,
                        clear && plain_array(m),
                        depth,
                        out,
                    ));
                }
                (_, Value::Object(sub)) if is_schema_map(key) => {
                    for (name, schema) in sub {
                        total = total.plus(self.node(
                            schema,
                            &pointer::push(&child_at, name),
                            false,
                            depth,
                            out,
                        ));
                    }
                }
                (_, Value::Object(_)) => {
                    total = total.plus(self.node(child, &child_at, false, depth, out));
                }
                (_, Value::Array(list)) => {
                    for (i, item) in list.iter().enumerate() {
                        total = total.plus(self.node(
                            item,
                            &pointer::push_index(&child_at, i),
                            false,
                            depth,
                            out,
                        ));
                    }
                }
                _ => {}
            }
        }
        total
    }

    /// The schema's `enum`, if dropping it is sound and changes nothing else: its values are
    /// plain (an object or array value would leave a `type: object` without properties), no
    /// union or other applicator beside it judges the same value (each would still see every
    /// value it saw), and no `$ref` points into it.
    fn enum_candidate(
        &self,
        m: &Map<String, Value>,
        at: &str,
        depth: usize,
        place: usize,
    ) -> Option<Candidate> {
        let Some(Value::Array(values)) = m.get("enum") else {
            return None;
        };
        let plain_values = values.iter().all(|v| !v.is_object() && !v.is_array());
        let alone = m.keys().all(|k| {
            !matches!(
                k.as_str(),
                "anyOf" | "oneOf" | "allOf" | "not" | "if" | "then" | "else" | "$ref" | "const"
            )
        });
        if values.is_empty() || !plain_values || !alone || !self.carryable(at, &json!({})) {
            return None;
        }
        let mut own = Counts::default();
        own.add(Measure::EnumValues, values.len());
        let chars: usize = values.iter().map(counted_chars).sum();
        own.add(Measure::Chars, chars);
        // A string enum with `null` added (an optional property made required) is read as a
        // string enum still: OpenAI does not say how it counts a mixed one.
        let large = self.large_enum.is_some_and(|l| {
            values.len() > l.values
                && values.iter().all(|v| v.is_string() || v.is_null())
                && chars > l.chars
        });
        Some(Candidate {
            object: Rc::from(at),
            first_inner: place,
            gone: false,
            name: String::new(),
            is_enum: true,
            large,
            depth,
            own,
            inner: Counts::default(),
            optional: false,
            bundles: false,
        })
    }

    /// A property whose schema can be replaced: not already a carrier, and no `$ref` elsewhere
    /// points into it.
    fn carryable(&self, at: &str, schema: &Value) -> bool {
        schema.is_object()
            && !self.carriers.contains(at)
            && !self.targets.iter().any(|t| pointer::is_within(t, at))
    }
}

/// Keywords that map names to subschemas, other than `properties`.
fn is_schema_map(key: &str) -> bool {
    matches!(
        key,
        "patternProperties" | "$defs" | "definitions" | "dependentSchemas"
    )
}

/// An array whose items are judged by `items` alone.
fn plain_array(m: &Map<String, Value>) -> bool {
    m.keys().all(|k| {
        matches!(k.as_str(), "type" | "items" | "minItems" | "maxItems")
            || ANNOTATIONS.contains(&k.as_str())
    })
}

/// What one object schema's own keywords add: its properties (names, optional ones, union
/// ones), definition names, enum and const values; counted as the profile's lint counts them.
fn own_counts(m: &Map<String, Value>) -> Counts {
    let mut c = Counts::default();
    if let Some(Value::Object(props)) = m.get("properties") {
        let required = required_set(m);
        for (name, schema) in props {
            c = c.plus(property_counts(
                name,
                schema,
                !required.contains(name.as_str()),
            ));
        }
    }
    for defs in ["$defs", "definitions"] {
        if let Some(Value::Object(d)) = m.get(defs) {
            c.add(Measure::Chars, d.keys().map(|k| k.chars().count()).sum());
        }
    }
    if let Some(Value::Array(values)) = m.get("enum") {
        c.add(Measure::EnumValues, values.len());
        c.add(Measure::Chars, values.iter().map(counted_chars).sum());
    }
    if let Some(value) = m.get("const") {
        c.add(Measure::Chars, counted_chars(value));
    }
    c
}

/// One property's entry in its object.
fn property_counts(name: &str, schema: &Value, optional: bool) -> Counts {
    let mut c = Counts::default();
    c.add(Measure::Properties, 1);
    c.add(Measure::Chars, name.chars().count());
    c.add(Measure::Optional, usize::from(optional));
    let union = schema.get("anyOf").is_some() || schema.get("type").is_some_and(Value::is_array);
    c.add(Measure::Unions, usize::from(union));
    c
}

/// As the lint counts a value against the character limit: a string's own characters, anything
/// else's JSON text.
fn counted_chars(value: &Value) -> usize {
    match value {
        Value::String(s) => s.chars().count(),
        other => other.to_string().chars().count(),
    }
}

/// Every local `$ref` target, as a pointer.
pub(super) fn ref_targets(schema: &Value) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    collect_targets(schema, &mut out, 0);
    out
}

fn collect_targets(v: &Value, out: &mut BTreeSet<String>, depth: usize) {
    if depth > 512 {
        return;
    }
    match v {
        Value::Object(m) => {
            if let Some(Value::String(r)) = m.get("$ref")
                && let Some(fragment) = r.strip_prefix('#')
            {
                out.insert(fragment.to_owned());
            }
            m.values().for_each(|c| collect_targets(c, out, depth + 1));
        }
        Value::Array(items) => items
            .iter()
            .for_each(|c| collect_targets(c, out, depth + 1)),
        _ => {}
    }
}
