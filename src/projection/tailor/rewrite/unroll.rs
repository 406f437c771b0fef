//! Recursion deeper than the provider's depth limit (OpenAI strict: 10 levels). Kept recursion
//! (`$defs` + `$ref`) is allowed, but the provider reads a `$ref` where it is used and follows
//! it until it reaches a definition already entered on the path, so one pass through a cycle
//! of definitions can nest past the limit; and a definition is read at every place it is
//! used, so carrying one of its values as JSON text would cut it everywhere.
//!
//! Tailoring unrolls such a document into one copy of each definition per level it is used
//! at (a `$ref` at level `k` reads the copy made for level `k`), which has no cycle, and in
//! each copy carries as JSON text the values whose schema would nest past the limit (the
//! existing JSON-text adapter: `unadapt(adapt(p)) == p`). At most `definitions × (limit + 1)`
//! copies are made, however large the cycle. When the root itself cannot be brought within
//! the limit, the `$defs` form is left as it was and the limit step reports it.
//!
//! Unrolling comes before the depth carriers when the deepest path goes through a `$ref`.
//! When the deepest stays in the root's own tree (a tool with one deep property beside a
//! recursive model), the carriers cut it first, and unrolling is tried after them if a path
//! through a `$ref` is still over the limit; the sound form then carries the same values
//! before it follows the unrolling, so both unroll the same tree.
//!
//! Levels are counted as the profile's `limit-depth` lint rule counts them: every subschema
//! one level below the schema holding it, a `$ref`'s target at the `$ref`'s own level.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use super::deep::{Carried, IN_PLACE};
use super::{ANNOTATIONS, Walk, nearest_originals};
use crate::pointer;
use crate::projection::tailor::Tailoring;
use crate::projection::{Detail, Rule, TraceEntry};
use crate::schema::keywords::{self, Position, Slot};

/// What a value cut at a recursion's depth says after its own description.
const CUT_NOTE: &str =
    "Sent as JSON text (a string): the recursion nests deeper here than the provider allows.";

impl Walk<'_> {
    /// Unrolls the `$defs` form when a path through its `$ref`s nests past the profile's
    /// depth limit (see the module's notes); what is still too deep after it is left to
    /// [`Walk::carry_deep`] and the limit step.
    ///
    /// `carried_first`: the depth carriers this walk made before, when it unrolls after them
    /// (see the module's notes).
    ///
    /// The unrolling by projection pointer when it unrolled (what the sound form follows).
    pub(in crate::projection::tailor) fn unroll_recursion(
        &mut self,
        schema: &mut Value,
        projection: &crate::projection::Projection,
        carried_first: Option<&[Carried]>,
    ) -> Option<Mirror> {
        let (plan, levels, limit) = self.unroll_plan(schema, None)?;
        // Text the provider sends in a carrier un-adapts to a value only a carrier at the same
        // place in the sound form accepts: where the sound form cannot follow this unrolling,
        // the `$defs` form is sent as it is and the limit step reports it. A walk that kept
        // every rename is the lossy walk the sound form follows, and need not be made again.
        let mirror = if self.keeps_renames && self.quiet.is_none() {
            self.mirror_of(&plan)
        } else {
            lossy_unrolling(projection, self.profile, carried_first.is_some())?
        };
        if !sound_form_follows(projection, self.profile, &mirror, carried_first) {
            return None;
        }
        self.note_unroll();
        self.apply_unrolled(schema, plan, levels, limit);
        Some(mirror)
    }

    /// Before the depth carriers, whether unrolling may be wanted after them: the schema nests
    /// past the limit and has definitions, but the deepest path stays in the root's own tree
    /// (through a `$ref`, unrolling was tried first).
    pub(in crate::projection::tailor) fn may_unroll_after_carrying(&self, schema: &Value) -> bool {
        let Some(limit) = self.depth_limit() else {
            return false;
        };
        if !has_definitions(schema) {
            return false;
        }
        let over = crate::lint::over_depth(schema, limit);
        over.levels > limit && !over.through_ref
    }

    /// The sound form's unrolling: the copies and carriers of the lossy form's, found by
    /// projection pointer. The lossy form is deeper (null alternatives, markers), so on its own
    /// the sound form would carry other values; but a string the provider sends in the lossy
    /// form's carrier un-adapts to a value that only a carrier at the same place accepts.
    pub(in crate::projection::tailor) fn unroll_as(&mut self, schema: &mut Value, lossy: &Mirror) {
        let Some((plan, levels, limit)) = self.unroll_plan(schema, Some(lossy)) else {
            return;
        };
        self.note_unroll();
        self.apply_unrolled(schema, plan, levels, limit);
    }

    /// The plan, the levels before and the limit, when the schema nests past the limit
    /// through its `$ref`s and can be unrolled.
    fn unroll_plan(
        &self,
        schema: &Value,
        mirror: Option<&Mirror>,
    ) -> Option<(Unrolled, usize, usize)> {
        let limit = self.depth_limit()?;
        // Only the root's definitions are unrolled: without them there is nothing to count.
        if !has_definitions(schema) {
            return None;
        }
        let over = crate::lint::over_depth(schema, limit);
        // The sound form follows the lossy form wherever that unrolled, however deep it is.
        if mirror.is_none() && (over.levels <= limit || !over.through_ref) {
            return None;
        }
        let projected = mirror.map(|_| self.projection_pointers());
        let mirror = mirror.zip(projected.as_ref());
        Unroller::plan(schema, limit, mirror).map(|plan| (plan, over.levels, limit))
    }

    /// By tailored pointer, the projection node that went there.
    pub(super) fn projection_pointers(&self) -> Projected {
        Projected(
            self.renames
                .iter()
                .map(|(from, to)| (to.clone(), from.clone()))
                .collect(),
        )
    }

    fn apply_unrolled(&mut self, schema: &mut Value, plan: Unrolled, levels: usize, limit: usize) {
        let key = plan.defs_key;
        let mut defs = Map::new();
        let mut carriers = plan.carriers;
        let mut moved: HashSet<String> = HashSet::new();
        for copy in plan.copies {
            let from = format!("/{key}/{}", pointer::escape(&copy.definition));
            let to = format!("/{key}/{}", pointer::escape(&copy.name));
            self.copy_records(&from, &to, moved.insert(from.clone()));
            let entry = TraceEntry {
                rule: Rule::Recursion,
                at: to.clone(),
                from: nearest_originals(&self.links, &to),
                detail: Detail::Tailored(Tailoring::RecursionUnrolled {
                    profile: self.profile,
                    definition: copy.definition.clone(),
                    level: copy.level,
                    levels_left: limit - copy.level,
                    limit,
                }),
            };
            if self.traced {
                self.trace.push(entry);
            }
            carriers.extend(copy.carriers.iter().map(|(c, l)| (format!("{to}{c}"), *l)));
            defs.insert(copy.name, copy.value);
        }
        for from in &moved {
            self.forget_records(from);
        }
        let mut root = plan.root;
        if !defs.is_empty() {
            root.insert(key.to_owned(), Value::Object(defs));
        }
        *schema = Value::Object(root);
        self.deferring_purges(|walk| {
            for (at, level) in carriers {
                let detail = Tailoring::RecursionCutDeep {
                    profile: walk.profile,
                    levels,
                    limit,
                    level,
                };
                walk.carry_value_as_text(schema, &at, CUT_NOTE, detail);
            }
        });
    }

    /// Gives the copy at `to` the records (adapters, markers, links, trace, unresolved places,
    /// conjoined parts) of the definition at `from`; the first copy also takes the
    /// definition's place for the projection pointers that led there.
    fn copy_records(&mut self, from: &str, to: &str, first: bool) {
        let moved = |at: &str| format!("{to}{}", &at[from.len()..]);
        self.adapters.copy_within(from, &moved);
        let markers: Vec<_> = pointer::entries_within(&self.markers, from)
            .map(|(at, v)| (moved(at), v.clone()))
            .collect();
        self.markers.extend(markers);
        self.links.copy_within(from, to);
        self.trace.copy_within(from, &moved);
        self.unresolved.copy_within(from, &moved);
        let conjoined: Vec<_> = self
            .conjoined
            .iter()
            .filter(|at| pointer::is_within(at, from))
            .map(|at| moved(at))
            .collect();
        self.conjoined.extend(conjoined);
        if first {
            self.renames.move_within(from, moved);
        }
    }

    /// Drops the records of a definition every use of which now reads one of its copies.
    fn forget_records(&mut self, at: &str) {
        self.forget_within(at);
        self.markers.retain(|p, _| !pointer::is_within(p, at));
        self.links.remove_within(at);
        self.conjoined.retain(|p| !pointer::is_within(p, at));
    }
}

/// Whether the root holds definitions (what unrolling copies).
pub(super) fn has_definitions(schema: &Value) -> bool {
    ["$defs", "definitions"]
        .iter()
        .any(|k| schema.get(*k).is_some_and(Value::is_object))
}

/// By tailored pointer, the projection node that went there.
pub(in crate::projection::tailor) struct Projected(HashMap<String, String>);

impl Projected {
    pub(super) fn exact(&self, at: &str) -> Option<String> {
        self.0.get(at).cloned()
    }

    /// [`Projected::exact`], or for a property made nullable by wrapping, which sits one
    /// `anyOf` down, its node there.
    pub(super) fn exact_or_wrapped(&self, at: &str) -> Option<String> {
        self.exact(at)
            .or_else(|| self.exact(&pointer::push_index(&pointer::push(at, "anyOf"), 0)))
    }

    /// The projection node at `at`; for a node a step wrote without recording where it came
    /// from (the entries of a map written as a list), the nearest recorded ancestor's node with
    /// the rest of the path, the same in both forms.
    fn of(&self, at: &str) -> Option<String> {
        if let Some(p) = self.exact(at) {
            return Some(p);
        }
        let mut end = at.len();
        while let Some(slash) = at[..end].rfind('/') {
            end = slash;
            if let Some(p) = self.0.get(&at[..end]) {
                return Some(format!("{p}{}", &at[end..]));
            }
        }
        None
    }
}

/// A copy's identity: the definition and the level it is read at; `None` for the root.
type Context = Option<(String, usize)>;

/// The lossy form's unrolling by projection pointer (see [`Walk::unroll_as`]): which copy each
/// `$ref` in each copy reads, and which values each copy carries as text.
pub(in crate::projection::tailor) struct Mirror {
    refs: HashMap<(Context, String), (String, usize)>,
    carriers: HashSet<(Context, String)>,
}

/// The unrolling the lossy tailoring of `projection` for `profile` makes, by projection
/// pointer (after its depth carriers when `after_carrying`); `None` when it makes none.
pub(in crate::projection::tailor) fn lossy_unrolling(
    projection: &crate::projection::Projection,
    profile: crate::lint::Profile,
    after_carrying: bool,
) -> Option<Mirror> {
    if !has_definitions(&projection.schema) {
        return None;
    }
    let lossy = crate::projection::tailor::TailorOptions { lossy: true };
    let (mut t, mut schema) = super::walk(projection, profile, lossy);
    if after_carrying {
        t.carry_deep(&mut schema);
    }
    let (plan, _, _) = t.unroll_plan(&schema, None)?;
    Some(t.mirror_of(&plan))
}

impl Walk<'_> {
    /// `plan`, made on this lossy walk, by projection pointer.
    fn mirror_of(&self, plan: &Unrolled) -> Mirror {
        let projected = self.projection_pointers();
        let found = |at: &str| projected.exact_or_wrapped(at).or_else(|| projected.of(at));
        let refs = plan
            .seen_refs
            .iter()
            .filter_map(|((cx, at), target)| Some(((cx.clone(), found(at)?), target.clone())))
            .collect();
        let carriers = plan
            .seen_carriers
            .iter()
            .filter_map(|(cx, at)| Some((cx.clone(), found(at)?)))
            .collect();
        Mirror { refs, carriers }
    }
}

/// Whether the sound tailoring of `projection` can make the copies and carriers of its lossy
/// tailoring's unrolling (`mirror`), found by projection pointer; made after the sound form's
/// depth carriers (`carried_first`, the lossy form's) when the lossy form unrolled after its.
fn sound_form_follows(
    projection: &crate::projection::Projection,
    profile: crate::lint::Profile,
    mirror: &Mirror,
    carried_first: Option<&[Carried]>,
) -> bool {
    let sound = crate::projection::tailor::TailorOptions { lossy: false };
    let (mut t, mut schema) = super::walk(projection, profile, sound);
    if let Some(carried) = carried_first {
        t.carry_same(&mut schema, carried);
        t.carry_deep(&mut schema);
    }
    t.unroll_plan(&schema, Some(mirror)).is_some()
}

/// The unrolled document: the root without its definitions, the copies, and the values to
/// carry as text (pointers in the root, with the level each is read at).
struct Unrolled {
    defs_key: &'static str,
    root: Map<String, Value>,
    copies: Vec<Copy>,
    carriers: Vec<(String, usize)>,
    /// By copy and pointer before unrolling: the copy each `$ref` reads, and the values
    /// carried (what [`Mirror`] is made of).
    seen_refs: HashMap<(Context, String), (String, usize)>,
    seen_carriers: HashSet<(Context, String)>,
}

/// One definition as read at one level.
struct Copy {
    definition: String,
    level: usize,
    name: String,
    value: Value,
    /// Values to carry as text, by pointer below the copy, with the level each is read at.
    carriers: Vec<(String, usize)>,
}

/// A schema that cannot be brought within the limit where it stands.
struct TooDeep;

struct Unroller<'s> {
    /// The lossy form's unrolling to follow, and this form's projection pointers by tailored
    /// pointer; `None`: decided by levels.
    mirror: Option<(&'s Mirror, &'s Projected)>,
    /// The copy being made, and its definition's pointer before unrolling.
    context: Context,
    base: String,
    seen_refs: HashMap<(Context, String), (String, usize)>,
    seen_carriers: HashSet<(Context, String)>,
    defs_key: &'static str,
    defs: &'s Map<String, Value>,
    limit: usize,
    copies: Vec<Copy>,
    /// By (definition, level): the copy, or `None` while it is made or when it cannot fit.
    made: HashMap<(String, usize), Option<usize>>,
    /// By (definition, copy's JSON text, its carriers): the copy, to share equal ones.
    same: HashMap<(String, String, Vec<String>), usize>,
    names: HashSet<String>,
}

impl<'s> Unroller<'s> {
    /// `None` when the root has no definitions or cannot be brought within the limit.
    fn plan(
        schema: &'s Value,
        limit: usize,
        mirror: Option<(&'s Mirror, &'s Projected)>,
    ) -> Option<Unrolled> {
        let root = schema.as_object()?;
        let defs_key = ["$defs", "definitions"]
            .into_iter()
            .find(|k| root.get(*k).is_some_and(Value::is_object))?;
        let defs = root.get(defs_key)?.as_object()?;
        let mut unroller = Unroller {
            mirror,
            context: None,
            base: String::new(),
            seen_refs: HashMap::new(),
            seen_carriers: HashSet::new(),
            defs_key,
            defs,
            limit,
            copies: Vec::new(),
            made: HashMap::new(),
            same: HashMap::new(),
            // A copy never takes a definition's name: its records move from that name.
            names: defs.keys().cloned().collect(),
        };
        let mut body = root.clone();
        body.remove(defs_key);
        let mut carriers = Vec::new();
        let Value::Object(root) = unroller
            .instance(&Value::Object(body), 0, true, "", &mut carriers)
            .ok()?
        else {
            return None;
        };
        Some(Unrolled {
            defs_key,
            root,
            copies: unroller.copies,
            carriers,
            seen_refs: unroller.seen_refs,
            seen_carriers: unroller.seen_carriers,
        })
    }

    /// The copy of `definition` read at `level`, made on first use; its name.
    fn copy(&mut self, definition: &str, level: usize) -> Result<String, TooDeep> {
        // A definition sits one level below the root where it is written: read at level 0 it
        // would nest one level more there than where it is used.
        let level = if self.mirror.is_some() {
            level
        } else {
            level.max(1)
        };
        let key = (definition.to_owned(), level);
        if let Some(made) = self.made.get(&key) {
            return made.map(|i| self.copies[i].name.clone()).ok_or(TooDeep);
        }
        self.made.insert(key.clone(), None);
        let body = self.defs.get(definition).ok_or(TooDeep)?;
        let mut carriers = Vec::new();
        let outer = (
            self.context.replace(key.clone()),
            std::mem::replace(
                &mut self.base,
                format!("/{}/{}", self.defs_key, pointer::escape(definition)),
            ),
        );
        let value = self.instance(body, level, true, "", &mut carriers);
        (self.context, self.base) = outer;
        let value = value?;
        // A definition whose paths stop short of the limit reads the same at several levels:
        // one copy serves them all.
        let places = carriers.iter().map(|(c, _)| c.clone()).collect();
        let same = (definition.to_owned(), value.to_string(), places);
        if let Some(&i) = self.same.get(&same) {
            self.made.insert(key, Some(i));
            return Ok(self.copies[i].name.clone());
        }
        let name = self.fresh_name(definition, self.limit - level);
        self.same.insert(same, self.copies.len());
        self.copies.push(Copy {
            definition: definition.to_owned(),
            level,
            name: name.clone(),
            value,
            carriers,
        });
        self.made.insert(key, Some(self.copies.len() - 1));
        Ok(name)
    }

    fn fresh_name(&mut self, definition: &str, left: usize) -> String {
        let stem = format!("{definition}_{left}");
        let mut name = stem.clone();
        let mut n = 2;
        while !self.names.insert(name.clone()) {
            name = format!("{stem}_{n}");
            n += 1;
        }
        name
    }

    /// The definition a local `$ref` names, when it names one of the root's.
    fn definition_of<'r>(&self, reference: &'r str) -> Option<std::borrow::Cow<'r, str>> {
        let token = reference
            .strip_prefix('#')?
            .strip_prefix('/')?
            .strip_prefix(self.defs_key)?
            .strip_prefix('/')?;
        (!token.contains('/')).then(|| pointer::unescape(token))
    }

    /// `node` as read at `level`: its `$ref`s to the copies for their level, and in
    /// `carriers` (pointers below `at`) the values to carry as text because their schema
    /// nests past the limit. `alone`: the node is judged by nothing but itself (a value's
    /// schema, or an alternative of bare unions up to one), so its values may be carried.
    fn instance(
        &mut self,
        node: &Value,
        level: usize,
        alone: bool,
        at: &str,
        carriers: &mut Vec<(String, usize)>,
    ) -> Result<Value, TooDeep> {
        stacker::maybe_grow(64 * 1024, 1024 * 1024, || {
            self.instance_unguarded(node, level, alone, at, carriers)
        })
    }

    fn instance_unguarded(
        &mut self,
        node: &Value,
        level: usize,
        alone: bool,
        at: &str,
        carriers: &mut Vec<(String, usize)>,
    ) -> Result<Value, TooDeep> {
        // A boolean schema is a level too (see the lint's `limit-depth`).
        if level > self.limit && self.mirror.is_none() {
            return Err(TooDeep);
        }
        let Value::Object(m) = node else {
            return Ok(node.clone());
        };
        let holds_values = alone && !IN_PLACE.iter().any(|k| m.contains_key(*k));
        let bare = m
            .keys()
            .all(|k| k == "anyOf" || k == "oneOf" || ANNOTATIONS.contains(&k.as_str()));
        let mut out = Map::new();
        for (key, value) in m {
            if key == "$ref"
                && let Some(reference) = value.as_str()
                && let Some(definition) = self.definition_of(reference)
            {
                let (definition, read_at) = self.read_at(definition.into_owned(), level, at)?;
                let name = self.copy(&definition, read_at)?;
                let target = format!("#/{}/{}", self.defs_key, pointer::escape(&name));
                out.insert(key.clone(), Value::String(target));
                continue;
            }
            let Some(kw) = keywords::lookup(key).filter(|kw| kw.position != Position::Definitions)
            else {
                out.insert(key.clone(), value.clone());
                continue;
            };
            let here = pointer::push(at, key);
            let child_alone = match kw.name {
                "anyOf" | "oneOf" => alone && bare,
                _ => false,
            };
            let placed = match (kw.slot, value) {
                (Slot::Map | Slot::MapOfSchemaOrNames, Value::Object(entries)) => {
                    let values = kw.name == "properties";
                    let mut children = Map::new();
                    for (k, v) in entries {
                        let child_at = pointer::push(&here, k);
                        let alone = if values { true } else { child_alone };
                        let carriable = values && holds_values;
                        let child = self.child(v, level, alone, carriable, &child_at, carriers)?;
                        children.insert(k.clone(), child);
                    }
                    Value::Object(children)
                }
                (Slot::Array | Slot::SingleOrArray, Value::Array(items)) => {
                    let mut children = Vec::with_capacity(items.len());
                    for (i, v) in items.iter().enumerate() {
                        let child_at = pointer::push(&here, &i.to_string());
                        children.push(self.child(
                            v,
                            level,
                            child_alone,
                            false,
                            &child_at,
                            carriers,
                        )?);
                    }
                    Value::Array(children)
                }
                (Slot::Single | Slot::SingleOrArray, v) if v.is_object() || v.is_boolean() => {
                    let values = matches!(kw.name, "items" | "additionalProperties");
                    let alone = if values { true } else { child_alone };
                    let carriable = values && holds_values;
                    self.child(v, level, alone, carriable, &here, carriers)?
                }
                (_, other) => other.clone(),
            };
            out.insert(key.clone(), placed);
        }
        Ok(Value::Object(out))
    }

    /// A subschema one level below its holder at `level`; carried as text (its place noted
    /// in `carriers`) when it cannot fit and it is a value of its own (`carriable`).
    fn child(
        &mut self,
        node: &Value,
        level: usize,
        alone: bool,
        carriable: bool,
        at: &str,
        carriers: &mut Vec<(String, usize)>,
    ) -> Result<Value, TooDeep> {
        if let Some((mirror, projected)) = self.mirror {
            let here = format!("{}{at}", self.base);
            if projected
                .of(&here)
                .is_some_and(|p| mirror.carriers.contains(&(self.context.clone(), p)))
            {
                carriers.push((at.to_owned(), level + 1));
                return Ok(node.clone());
            }
        }
        let mut below = Vec::new();
        match self.instance(node, level + 1, alone, at, &mut below) {
            Ok(v) => {
                carriers.extend(below);
                Ok(v)
            }
            // The text is one more level: it must fit too.
            Err(TooDeep) if carriable && level < self.limit && self.mirror.is_none() => {
                let here = format!("{}{at}", self.base);
                self.seen_carriers.insert((self.context.clone(), here));
                carriers.push((at.to_owned(), level + 1));
                Ok(node.clone())
            }
            Err(TooDeep) => Err(TooDeep),
        }
    }

    /// The copy a `$ref` at `at` (in the copy being made) to `definition` reads, at `level`:
    /// by level, or the one the lossy form's `$ref` at the same projection node reads.
    fn read_at(
        &mut self,
        definition: String,
        level: usize,
        at: &str,
    ) -> Result<(String, usize), TooDeep> {
        let here = format!("{}{at}", self.base);
        match self.mirror {
            None => {
                let read = (definition, level.max(1));
                self.seen_refs
                    .insert((self.context.clone(), here), read.clone());
                Ok(read)
            }
            Some((mirror, projected)) => {
                let p = projected.of(&here).ok_or(TooDeep)?;
                mirror
                    .refs
                    .get(&(self.context.clone(), p))
                    .filter(|(d, _)| *d == definition)
                    .cloned()
                    .ok_or(TooDeep)
            }
        }
    }
}
