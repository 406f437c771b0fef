//! Pairing the nodes of two versions of one schema and recording what differs.
//!
//! The walk starts at both roots and follows `$ref`s on each side, so a definition that was
//! moved or renamed but means the same is no change: what is compared is the inlined meaning.
//! Each pair of nodes is compared once per polarity (a definition reached twice, or a recursive
//! one, costs its size once). Every difference becomes a [`RawChange`] with its kind (and so
//! its local [`Direction`]), the polarity of the place it sits in (`not` flips it; `if`,
//! overlapping `oneOf` alternatives and `unevaluated*` make it unknowable), the route the walk
//! took (what a witness payload must go through) and the candidate values a witness can put
//! there.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use super::generate::Injection;
use super::kinds::{Direction, kind_of};
use crate::pointer;
use crate::schema::keywords::{IDENTIFIERS, is_annotation};
use crate::schema::resolve::RefIndex;
use crate::schema::{Draft, Kind, KindSet};

/// Schema levels followed before giving up (counted through `$ref`s).
const MAX_DEPTH: usize = 256;
/// Node pairs compared before giving up on a tool.
const MAX_PAIRS: usize = 2_000_000;
/// Candidate values tried per change, at most; each costs two validations.
pub const MAX_CANDIDATES: usize = 24;

static TRUE: Value = Value::Bool(true);

/// One schema document: a tool's original parameter schema, or a projection.
pub struct Doc<'a> {
    pub root: &'a Value,
    pub draft: Draft,
    index: RefIndex,
}

impl<'a> Doc<'a> {
    pub fn new(root: &'a Value, draft: Draft) -> Doc<'a> {
        Doc {
            root,
            draft,
            index: RefIndex::build(root, draft),
        }
    }

    /// Follows `$ref`s that stand alone (only annotations beside them, or any siblings before
    /// 2019-09, which that draft ignores): the node they mean, where it is, and the ref site's
    /// annotations. A `$ref` that leads nowhere is reported by the text it has.
    fn deref(&self, at: &str, value: &'a Value) -> Deref<'a> {
        let mut out = Deref {
            at: at.to_owned(),
            value,
            site: None,
            unresolved: None,
        };
        for _ in 0..64 {
            let Some(map) = out.value.as_object() else {
                return out;
            };
            let Some(reference) = map.get("$ref").and_then(Value::as_str) else {
                return out;
            };
            let alone = self.draft == Draft::Draft7 || map.keys().all(|k| ignorable_beside_ref(k));
            if !alone {
                return out;
            }
            if out.site.is_none() && map.keys().any(|k| is_annotation(k)) {
                out.site = Some((out.at.clone(), map));
            }
            match self
                .index
                .resolve(self.root, self.index.base_at(&out.at), reference)
            {
                Ok(target) => match self.root.pointer(&target) {
                    Some(v) => {
                        out.at = target;
                        out.value = v;
                    }
                    None => {
                        out.unresolved = Some(reference.to_owned());
                        return out;
                    }
                },
                Err(_) => {
                    out.unresolved = Some(reference.to_owned());
                    out.value = &TRUE;
                    return out;
                }
            }
        }
        // A cycle of bare references means nothing: it constrains nothing either.
        out.value = &TRUE;
        out
    }
}

fn ignorable_beside_ref(key: &str) -> bool {
    key == "$ref"
        || is_annotation(key)
        || IDENTIFIERS.contains(&key)
        || matches!(key, "$defs" | "definitions" | "$schema")
}

struct Deref<'a> {
    at: String,
    value: &'a Value,
    /// The outermost ref site, when it carries annotations of its own.
    site: Option<(String, &'a Map<String, Value>)>,
    unresolved: Option<String>,
}

/// How the acceptance of the whole follows the acceptance of a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Polarity {
    /// The whole accepts more when the node accepts more.
    Positive,
    /// Under an odd number of `not`s: the whole accepts less.
    Negative,
    /// Under `if`, overlapping `oneOf` alternatives, …: no telling.
    Unknown,
}

#[derive(Debug, Clone)]
struct Ctx {
    polarity: Polarity,
    /// Why the polarity is unknown, or why a widening cannot be claimed.
    caveat: Option<&'static str>,
    /// An `unevaluated*` keyword sees this instance level: removing what evaluates a property
    /// can make it reject more, so widenings are not claimed here.
    uneval: bool,
    /// OLD pointers of the nodes on the way here.
    route: Vec<String>,
    depth: usize,
}

impl Ctx {
    fn unknown(&self, caveat: &'static str) -> Ctx {
        Ctx {
            polarity: Polarity::Unknown,
            caveat: Some(self.caveat.unwrap_or(caveat)),
            ..self.clone()
        }
    }

    fn flipped(&self) -> Ctx {
        Ctx {
            polarity: match self.polarity {
                Polarity::Positive => Polarity::Negative,
                Polarity::Negative => Polarity::Positive,
                Polarity::Unknown => Polarity::Unknown,
            },
            ..self.clone()
        }
    }
}

/// A difference found by the walk, before any witness is looked for.
#[derive(Debug, Clone)]
pub struct RawChange {
    pub kind: &'static str,
    pub old_pointer: Option<String>,
    pub new_pointer: Option<String>,
    pub message: String,
    /// The direction for the whole schema: the kind's, through the polarity of its place.
    pub direction: Direction,
    /// Why the direction could not be carried up, when it could not.
    pub caveat: Option<&'static str>,
    /// OLD pointers a witness goes through.
    pub route: Vec<String>,
    /// The OLD pointer where the candidate goes.
    pub target: String,
    /// Candidates, best first.
    pub candidates: Vec<Injection>,
}

/// Everything the walk found, and which OLD node it paired with which NEW node.
#[derive(Debug, Default)]
pub struct Comparison {
    pub changes: Vec<RawChange>,
    pub pairs: HashMap<String, String>,
}

/// Compares two documents from their roots.
pub fn compare(old: &Doc<'_>, new: &Doc<'_>) -> Comparison {
    let mut walker = Walker {
        old,
        new,
        visited: HashSet::new(),
        out: Comparison::default(),
        limited: false,
    };
    let ctx = Ctx {
        polarity: Polarity::Positive,
        caveat: None,
        uneval: false,
        route: Vec::new(),
        depth: 0,
    };
    crate::validate::with_stack(|| {
        walker.node(Slot::at("", old.root), Slot::at("", new.root), &ctx)
    });
    walker.out
}

/// A node to compare: where it is, and what is shown as its pointer (its parent's, when the
/// keyword is absent and read as its default).
#[derive(Debug, Clone, Copy)]
struct Slot<'s, 'a> {
    at: &'s str,
    value: &'a Value,
    absent: bool,
}

impl<'s, 'a> Slot<'s, 'a> {
    fn at(at: &'s str, value: &'a Value) -> Self {
        Slot {
            at,
            value,
            absent: false,
        }
    }

    /// The keyword's value, or its default when it is absent.
    fn or(at: &'s str, value: Option<&'a Value>, default: &'a Value) -> Self {
        Slot {
            at,
            value: value.unwrap_or(default),
            absent: value.is_none(),
        }
    }
}

/// What one comparison found at a node, before the walk places it.
struct Found {
    kind: &'static str,
    message: String,
    /// Values the OLD node accepts and the NEW node rejects.
    forward: Vec<Injection>,
    /// Values the NEW node accepts and the OLD node rejects (used under `not`).
    backward: Vec<Injection>,
    /// Pointers and target when they are not the node's own.
    place: Option<Place>,
}

struct Place {
    old: Option<String>,
    new: Option<String>,
    target: String,
    through: Vec<String>,
}

impl Place {
    fn new(old: Option<String>, new: Option<String>, target: String) -> Place {
        Place {
            old,
            new,
            target,
            through: Vec::new(),
        }
    }
}

impl Found {
    fn new(kind: &'static str, message: String) -> Found {
        Found {
            kind,
            message,
            forward: Vec::new(),
            backward: Vec::new(),
            place: None,
        }
    }

    fn forward(mut self, candidates: Vec<Injection>) -> Found {
        self.forward = candidates;
        self
    }

    fn backward(mut self, candidates: Vec<Injection>) -> Found {
        self.backward = candidates;
        self
    }

    fn placed(mut self, place: Place) -> Found {
        self.place = Some(place);
        self
    }
}

struct Walker<'d, 'a> {
    old: &'d Doc<'a>,
    new: &'d Doc<'a>,
    visited: HashSet<(String, String, Polarity)>,
    out: Comparison,
    limited: bool,
}

type Obj = Map<String, Value>;

static EMPTY: std::sync::LazyLock<Obj> = std::sync::LazyLock::new(Map::new);

fn as_obj(v: &Value) -> Option<&Obj> {
    match v {
        Value::Object(m) => Some(m),
        Value::Bool(true) => Some(&EMPTY),
        _ => None,
    }
}

impl<'d, 'a> Walker<'d, 'a> {
    fn node(&mut self, old: Slot<'_, 'a>, new: Slot<'_, 'a>, ctx: &Ctx) {
        if ctx.depth > MAX_DEPTH || self.visited.len() > MAX_PAIRS {
            if !self.limited {
                self.limited = true;
                let found = Found::new(
                    "comparison-limit",
                    format!(
                        "comparison stopped here: more than {} levels or {} node pairs",
                        MAX_DEPTH, MAX_PAIRS
                    ),
                );
                self.emit(&old, &new, ctx, found);
            }
            return;
        }
        let od = self.old.deref(old.at, old.value);
        let nd = self.new.deref(new.at, new.value);
        self.compare_sites(&old, &od, &new, &nd, ctx);
        if od.unresolved.is_some() || nd.unresolved.is_some() {
            if od.unresolved != nd.unresolved {
                let text = |u: &Option<String>| u.clone().unwrap_or_else(|| "-".to_owned());
                let found = Found::new(
                    "ref-unresolvable",
                    format!(
                        "`$ref` cannot be followed (OLD: {}, NEW: {}): nothing is fetched",
                        text(&od.unresolved),
                        text(&nd.unresolved)
                    ),
                )
                .forward(vec![Injection::Generate]);
                self.emit(&old, &new, ctx, found);
            }
            return;
        }
        if !self
            .visited
            .insert((od.at.clone(), nd.at.clone(), ctx.polarity))
        {
            return;
        }
        self.out
            .pairs
            .entry(od.at.clone())
            .or_insert_with(|| nd.at.clone());
        let mut ctx = ctx.clone();
        ctx.depth += 1;
        for at in [old.at, od.at.as_str()] {
            if ctx.route.last().map(String::as_str) != Some(at) {
                ctx.route.push(at.to_owned());
            }
        }
        let old = Slot {
            at: &od.at,
            value: od.value,
            absent: old.absent && od.at == old.at,
        };
        let new = Slot {
            at: &nd.at,
            value: nd.value,
            absent: new.absent && nd.at == new.at,
        };
        match (as_obj(old.value), as_obj(new.value)) {
            (Some(o), Some(n)) => self.objects(&old, o, &new, n, &ctx),
            (None, None) => {}
            (Some(_), None) => {
                let found = Found::new(
                    "schema-became-false",
                    format!("{} now rejects every value", describe_slot(new.at)),
                )
                .forward(vec![Injection::Generate]);
                self.emit(&old, &new, &ctx, found);
            }
            (None, Some(_)) => {
                let found = Found::new(
                    "schema-no-longer-false",
                    format!(
                        "{} accepted nothing and now accepts values",
                        describe_slot(new.at)
                    ),
                );
                self.emit(&old, &new, &ctx, found);
            }
        }
    }

    /// Annotations written beside a `$ref` belong to the place that uses the definition.
    fn compare_sites(
        &mut self,
        old: &Slot<'_, 'a>,
        od: &Deref<'a>,
        new: &Slot<'_, 'a>,
        nd: &Deref<'a>,
        ctx: &Ctx,
    ) {
        if od.site.is_none() && nd.site.is_none() {
            return;
        }
        let pick =
            |site: &Option<(String, &'a Obj)>| site.as_ref().map(|(_, m)| *m).unwrap_or(&EMPTY);
        let changed = annotation_changes(pick(&od.site), pick(&nd.site));
        if !changed.is_empty() {
            let found = Found::new("annotation-changed", annotation_message(&changed));
            self.emit(old, new, ctx, found);
        }
    }

    fn emit(&mut self, old: &Slot<'_, 'a>, new: &Slot<'_, 'a>, ctx: &Ctx, found: Found) {
        let kind = kind_of(found.kind);
        let shown = |s: &Slot<'_, 'a>| {
            if s.absent {
                pointer::parent(s.at).unwrap_or("").to_owned()
            } else {
                s.at.to_owned()
            }
        };
        let place = found
            .place
            .unwrap_or_else(|| Place::new(Some(shown(old)), Some(shown(new)), old.at.to_owned()));
        let mut direction = match ctx.polarity {
            _ if kind.direction == Direction::Neutral => Direction::Neutral,
            Polarity::Positive => kind.direction,
            Polarity::Negative => kind.direction.flipped(),
            Polarity::Unknown => Direction::Unknown,
        };
        let mut caveat = (direction == Direction::Unknown && kind.direction != Direction::Unknown)
            .then_some(ctx.caveat)
            .flatten();
        if direction == Direction::Widens && ctx.uneval {
            direction = Direction::Unknown;
            caveat = Some(
                "an `unevaluatedProperties`/`unevaluatedItems` above depends on what is evaluated here",
            );
        }
        let candidates = match ctx.polarity {
            Polarity::Positive => found.forward,
            Polarity::Negative => found.backward,
            Polarity::Unknown => found.forward.into_iter().chain(found.backward).collect(),
        };
        let mut route = ctx.route.clone();
        route.extend(place.through);
        route.push(place.target.clone());
        self.out.changes.push(RawChange {
            kind: kind.id,
            old_pointer: place.old,
            new_pointer: place.new,
            message: found.message,
            direction,
            caveat,
            route,
            target: place.target,
            candidates,
        });
    }

    fn objects(
        &mut self,
        old: &Slot<'_, 'a>,
        o: &'a Obj,
        new: &Slot<'_, 'a>,
        n: &'a Obj,
        ctx: &Ctx,
    ) {
        let mut ctx = ctx.clone();
        if ["unevaluatedProperties", "unevaluatedItems"]
            .iter()
            .any(|k| o.contains_key(*k) || n.contains_key(*k))
        {
            ctx.uneval = true;
        }
        let mut found = Vec::new();
        let changed = annotation_changes(o, n);
        if !changed.is_empty() {
            found.push(Found::new(
                "annotation-changed",
                annotation_message(&changed),
            ));
        }
        found.extend(self.types(o, n));
        found.extend(literals(o, n));
        found.extend(number_bounds(o, n, self.old.draft, self.new.draft));
        found.extend(count_bounds(o, n));
        found.extend(multiple_of(o, n));
        found.extend(strings(o, n));
        found.extend(unique_items(o, n));
        found.extend(required(o, n));
        found.extend(others(o, n));
        for f in found {
            self.emit(old, new, &ctx, f);
        }
        self.properties(old, o, new, n, &ctx);
        self.dependencies(old, o, new, n, &ctx);
        self.arrays(old, o, new, n, &ctx);
        self.applicators(old, o, new, n, &ctx);
    }

    fn types(&self, o: &Obj, n: &Obj) -> Option<Found> {
        let ot = effective_types(o, self.old.draft);
        let nt = effective_types(n, self.new.draft);
        let all = || {
            let mut s = KindSet::default();
            for k in [
                Kind::Null,
                Kind::Boolean,
                Kind::Object,
                Kind::Array,
                Kind::Number,
                Kind::String,
            ] {
                s.insert(k);
            }
            s
        };
        let (os, ns) = (
            ot.clone().unwrap_or_else(all),
            nt.clone().unwrap_or_else(all),
        );
        let removed: Vec<Kind> = os.iter().filter(|k| !covers(&ns, *k)).collect();
        let added: Vec<Kind> = ns.iter().filter(|k| !covers(&os, *k)).collect();
        if removed.is_empty() && added.is_empty() {
            return None;
        }
        let show = |t: &Option<KindSet>| {
            t.as_ref()
                .map_or_else(|| "any".to_owned(), |s| s.to_type_value().to_string())
        };
        let (kind, what) = match (removed.is_empty(), added.is_empty()) {
            (false, true) => ("type-narrowed", "narrowed"),
            (true, false) => ("type-widened", "widened"),
            _ => ("type-changed", "changed"),
        };
        let names = |ks: &[Kind]| ks.iter().map(|k| k.name()).collect::<Vec<_>>().join(", ");
        let mut message = format!("type {what} from {} to {}", show(&ot), show(&nt));
        if !removed.is_empty() {
            message.push_str(&format!(": {} no longer accepted", names(&removed)));
        }
        let forward = type_candidates(o, &removed);
        let backward = type_candidates(n, &added);
        Some(
            Found::new(kind, message)
                .forward(forward)
                .backward(backward),
        )
    }

    fn properties(
        &mut self,
        old: &Slot<'_, 'a>,
        o: &'a Obj,
        new: &Slot<'_, 'a>,
        n: &'a Obj,
        ctx: &Ctx,
    ) {
        let op = o.get("properties").and_then(Value::as_object);
        let np = n.get("properties").and_then(Value::as_object);
        let names = union_keys(op, np);
        let props = |at: &str| pointer::push(at, "properties");
        for name in names {
            let oa = pointer::push(&props(old.at), name);
            let na = pointer::push(&props(new.at), name);
            match (op.and_then(|m| m.get(name)), np.and_then(|m| m.get(name))) {
                (Some(ov), Some(nv)) => {
                    let mut c = ctx.clone();
                    c.uneval = false;
                    self.node(Slot::at(&oa, ov), Slot::at(&na, nv), &c);
                }
                (Some(ov), None) => {
                    let found = property_removed(name, ov, &oa, old.at, new.at, n);
                    self.emit(old, new, ctx, found);
                }
                (None, Some(nv)) => {
                    let found = property_added(name, nv, old.at, &na, o);
                    self.emit(old, new, ctx, found);
                }
                (None, None) => {}
            }
        }
        self.map_children(old, o, new, n, ctx, ("patternProperties", None));
        for keyword in [
            "additionalProperties",
            "propertyNames",
            "unevaluatedProperties",
        ] {
            self.single_child(old, o, new, n, ctx, (keyword, Some(&TRUE)));
        }
    }

    fn dependencies(
        &mut self,
        old: &Slot<'_, 'a>,
        o: &'a Obj,
        new: &Slot<'_, 'a>,
        n: &'a Obj,
        ctx: &Ctx,
    ) {
        self.map_children(old, o, new, n, ctx, ("dependentSchemas", Some(&TRUE)));
        for keyword in ["dependentRequired", "dependencies"] {
            let om = o.get(keyword).and_then(Value::as_object);
            let nm = n.get(keyword).and_then(Value::as_object);
            if om.is_none() && nm.is_none() {
                continue;
            }
            for key in union_keys(om, nm) {
                let ov = om.and_then(|m| m.get(key));
                let nv = nm.and_then(|m| m.get(key));
                let oa = pointer::push(&pointer::push(old.at, keyword), key);
                let na = pointer::push(&pointer::push(new.at, keyword), key);
                let is_names = |v: Option<&Value>| v.is_none_or(Value::is_array);
                if is_names(ov) && is_names(nv) {
                    let names = |v: Option<&Value>| -> Vec<String> {
                        v.and_then(Value::as_array)
                            .map(|a| {
                                a.iter()
                                    .filter_map(|s| s.as_str().map(str::to_owned))
                                    .collect()
                            })
                            .unwrap_or_default()
                    };
                    let (on, nn) = (names(ov), names(nv));
                    for added in nn.iter().filter(|x| !on.contains(x)) {
                        // The key the dependency hangs on, with a value OLD takes for it.
                        let own = o
                            .get("properties")
                            .and_then(|p| p.get(key))
                            .cloned()
                            .unwrap_or(Value::Bool(true));
                        let found = Found::new(
                            "required-added",
                            format!("`{added}` now required when `{key}` is present"),
                        )
                        .forward(vec![Injection::Key(
                            key.clone(),
                            Box::new(Injection::Schema(own)),
                        )]);
                        self.emit(old, new, ctx, found);
                    }
                    for removed in on.iter().filter(|x| !nn.contains(x)) {
                        let found = Found::new(
                            "required-removed",
                            format!("`{removed}` no longer required when `{key}` is present"),
                        );
                        self.emit(old, new, ctx, found);
                    }
                } else {
                    let ov = ov.filter(|v| !v.is_array()).unwrap_or(&TRUE);
                    let nv = nv.filter(|v| !v.is_array()).unwrap_or(&TRUE);
                    self.node(Slot::at(&oa, ov), Slot::at(&na, nv), ctx);
                }
            }
        }
    }

    fn arrays(
        &mut self,
        old: &Slot<'_, 'a>,
        o: &'a Obj,
        new: &Slot<'_, 'a>,
        n: &'a Obj,
        ctx: &Ctx,
    ) {
        let tuple = |m: &'a Obj| -> Option<(&'static str, &'a Vec<Value>)> {
            match (m.get("prefixItems"), m.get("items")) {
                (Some(Value::Array(p)), _) => Some(("prefixItems", p)),
                (_, Some(Value::Array(p))) => Some(("items", p)),
                _ => None,
            }
        };
        match (tuple(o), tuple(n)) {
            (Some((ok, ot)), Some((nk, nt))) => {
                for i in 0..ot.len().min(nt.len()) {
                    let oa = pointer::push_index(&pointer::push(old.at, ok), i);
                    let na = pointer::push_index(&pointer::push(new.at, nk), i);
                    let mut c = ctx.clone();
                    c.uneval = false;
                    self.node(Slot::at(&oa, &ot[i]), Slot::at(&na, &nt[i]), &c);
                }
                if ot.len() != nt.len() {
                    // Items at every position either side describes: the position that changed
                    // hands is then judged by both.
                    let mut longer = o.clone();
                    longer.insert("minItems".into(), serde_json::json!(ot.len().max(nt.len())));
                    let mut candidates = vec![Injection::Schema(Value::Object(longer))];
                    candidates.extend(pool_at_node());
                    let found = Found::new(
                        "keyword-changed",
                        format!(
                            "tuple length changed from {} to {} positions",
                            ot.len(),
                            nt.len()
                        ),
                    )
                    .forward(candidates);
                    self.emit(old, new, ctx, found);
                }
            }
            (None, None) => {}
            (ot, _) => {
                let found = Found::new(
                    "keyword-changed",
                    format!(
                        "tuple positions {} (`prefixItems`)",
                        if ot.is_some() { "removed" } else { "added" }
                    ),
                )
                .forward(pool_at_node());
                self.emit(old, new, ctx, found);
            }
        }
        let single = |m: &Obj| m.get("items").is_some_and(|i| !i.is_array());
        if single(o) || single(n) || (tuple(o).is_none() && tuple(n).is_none()) {
            self.single_child(old, o, new, n, ctx, ("items", Some(&TRUE)));
        }
        for keyword in ["additionalItems", "unevaluatedItems"] {
            self.single_child(old, o, new, n, ctx, (keyword, Some(&TRUE)));
        }
        let counted = ["minContains", "maxContains"]
            .iter()
            .any(|k| o.contains_key(*k) || n.contains_key(*k));
        let c = if counted {
            ctx.unknown("`maxContains` counts the items `contains` matches")
        } else {
            ctx.clone()
        };
        self.single_child(old, o, new, n, &c, ("contains", None));
    }

    fn applicators(
        &mut self,
        old: &Slot<'_, 'a>,
        o: &'a Obj,
        new: &Slot<'_, 'a>,
        n: &'a Obj,
        ctx: &Ctx,
    ) {
        // `not`: what the subschema gains, the whole loses; a `not` added beside the other
        // keywords is one more constraint.
        match (o.get("not"), n.get("not")) {
            (Some(_), Some(_)) => self.single_child(old, o, new, n, &ctx.flipped(), ("not", None)),
            (None, None) => {}
            (ov, _) => {
                let found = keyword_presence("not", ov.is_some());
                self.emit(old, new, ctx, found);
            }
        }
        if o.contains_key("if") && n.contains_key("if") {
            let c = ctx.unknown("inside `if`, accepting more can reject more");
            self.single_child(old, o, new, n, &c, ("if", None));
            for keyword in ["then", "else"] {
                self.single_child(old, o, new, n, ctx, (keyword, Some(&TRUE)));
            }
        } else if o.contains_key("if") != n.contains_key("if") {
            let found = Found::new(
                "keyword-changed",
                format!(
                    "`if`/`then`/`else` {}",
                    if o.contains_key("if") {
                        "removed"
                    } else {
                        "added"
                    }
                ),
            )
            .forward(pool_at_node());
            self.emit(old, new, ctx, found);
        }
        if let (Some(_), Some(_)) = (o.get("$ref"), n.get("$ref")) {
            self.conjunct(old, o, new, n, ctx);
        } else if o.contains_key("$ref") != n.contains_key("$ref") {
            let found = keyword_presence("$ref", o.contains_key("$ref"));
            self.emit(old, new, ctx, found);
        }
        self.all_of(old, o, new, n, ctx);
        self.unions(old, o, new, n, ctx);
    }

    /// `$ref` beside other keywords (2019-09 and later): its target applies too.
    fn conjunct(
        &mut self,
        old: &Slot<'_, 'a>,
        o: &'a Obj,
        new: &Slot<'_, 'a>,
        n: &'a Obj,
        ctx: &Ctx,
    ) {
        let resolve = |doc: &Doc<'a>, at: &str, m: &'a Obj| -> Option<(String, &'a Value)> {
            let r = m.get("$ref")?.as_str()?;
            let target = doc.index.resolve(doc.root, doc.index.base_at(at), r).ok()?;
            let v = doc.root.pointer(&target)?;
            Some((target, v))
        };
        match (resolve(self.old, old.at, o), resolve(self.new, new.at, n)) {
            (Some((oa, ov)), Some((na, nv))) => {
                self.node(Slot::at(&oa, ov), Slot::at(&na, nv), ctx);
            }
            (ot, nt) if ot.is_some() != nt.is_some() => {
                let found = Found::new(
                    "ref-unresolvable",
                    "`$ref` beside other keywords can be followed on one side only".to_owned(),
                )
                .forward(vec![Injection::Generate]);
                self.emit(old, new, ctx, found);
            }
            _ => {}
        }
    }

    fn all_of(
        &mut self,
        old: &Slot<'_, 'a>,
        o: &'a Obj,
        new: &Slot<'_, 'a>,
        n: &'a Obj,
        ctx: &Ctx,
    ) {
        let op = o.get("allOf").and_then(Value::as_array);
        let np = n.get("allOf").and_then(Value::as_array);
        if op.is_none() && np.is_none() {
            return;
        }
        let (op, np) = (
            op.map_or(&[][..], Vec::as_slice),
            np.map_or(&[][..], Vec::as_slice),
        );
        let oa = pointer::push(old.at, "allOf");
        let na = pointer::push(new.at, "allOf");
        let pairs = self.pair(&oa, op, &na, np);
        for (i, j) in &pairs.matched {
            let (ci, cj) = (pointer::push_index(&oa, *i), pointer::push_index(&na, *j));
            self.node(Slot::at(&ci, &op[*i]), Slot::at(&cj, &np[*j]), ctx);
        }
        for j in &pairs.new_only {
            let found = Found::new(
                "allof-part-added",
                format!("`allOf` part {j} added: values must also satisfy it"),
            )
            .forward(pool_at_node())
            .placed(Place {
                old: Some(old.at.to_owned()),
                new: Some(pointer::push_index(&na, *j)),
                target: old.at.to_owned(),
                through: Vec::new(),
            });
            self.emit(old, new, ctx, found);
        }
        for i in &pairs.old_only {
            let found = Found::new("allof-part-removed", format!("`allOf` part {i} removed"))
                .placed(Place {
                    old: Some(pointer::push_index(&oa, *i)),
                    new: Some(new.at.to_owned()),
                    target: old.at.to_owned(),
                    through: Vec::new(),
                });
            self.emit(old, new, ctx, found);
        }
    }

    fn unions(
        &mut self,
        old: &Slot<'_, 'a>,
        o: &'a Obj,
        new: &Slot<'_, 'a>,
        n: &'a Obj,
        ctx: &Ctx,
    ) {
        let union = |m: &'a Obj| -> Option<(&'static str, &'a [Value])> {
            ["anyOf", "oneOf"]
                .into_iter()
                .find_map(|k| Some((k, m.get(k)?.as_array()?.as_slice())))
        };
        let only_union = |m: &Obj| {
            m.keys().all(|k| {
                matches!(k.as_str(), "anyOf" | "oneOf" | "discriminator")
                    || is_annotation(k)
                    || IDENTIFIERS.contains(&k.as_str())
                    || matches!(k.as_str(), "$defs" | "definitions" | "$schema")
                    || k.starts_with("x-")
            })
        };
        match (union(o), union(n)) {
            (None, None) => {}
            (Some((ok, ob)), Some((nk, nb))) => {
                self.alternatives(old, (ok, ob), new, (nk, nb), ctx);
            }
            (None, Some((nk, nb))) if only_union(n) && !old.absent => {
                // A value turned into a union (`str` → `Optional[str]`): the old node is
                // compared with the alternative most like it.
                let na = pointer::push(new.at, nk);
                let best = best_match(self.old, old.at, old.value, self.new, &na, nb);
                self.wrap(old, new, &na, nb, best, ctx, true);
            }
            (Some((ok, ob)), None) if only_union(o) && !new.absent => {
                let oa = pointer::push(old.at, ok);
                let best = best_match(self.new, new.at, new.value, self.old, &oa, ob);
                self.wrap(old, new, &oa, ob, best, ctx, false);
            }
            (ou, _) => {
                let keyword = ou.map_or_else(|| union(n).map_or("anyOf", |(k, _)| k), |(k, _)| k);
                let found = keyword_presence(keyword, ou.is_some());
                self.emit(old, new, ctx, found);
            }
        }
    }

    /// One side is a union whose alternative `best` stands for the other side's plain node.
    #[allow(clippy::too_many_arguments)]
    fn wrap(
        &mut self,
        old: &Slot<'_, 'a>,
        new: &Slot<'_, 'a>,
        union_at: &str,
        branches: &'a [Value],
        best: Option<usize>,
        ctx: &Ctx,
        new_is_union: bool,
    ) {
        for (i, b) in branches.iter().enumerate() {
            let at = pointer::push_index(union_at, i);
            if Some(i) == best {
                if new_is_union {
                    self.node(Slot::at(old.at, old.value), Slot::at(&at, b), ctx);
                } else {
                    self.node(Slot::at(&at, b), Slot::at(new.at, new.value), ctx);
                }
                continue;
            }
            let what = summary(if new_is_union { self.new } else { self.old }, &at, b);
            let found = if new_is_union {
                Found::new(
                    "alternative-added",
                    format!("now also accepts {what} (alternative added)"),
                )
                .placed(Place::new(
                    Some(old.at.to_owned()),
                    Some(at.clone()),
                    old.at.to_owned(),
                ))
            } else {
                alternative_removed(
                    format!("no longer accepts {what} (alternative removed)"),
                    &at,
                    new.at,
                )
            };
            self.emit(old, new, ctx, found);
        }
    }

    fn alternatives(
        &mut self,
        old: &Slot<'_, 'a>,
        (ok, ob): (&'static str, &'a [Value]),
        new: &Slot<'_, 'a>,
        (nk, nb): (&'static str, &'a [Value]),
        ctx: &Ctx,
    ) {
        let oa = pointer::push(old.at, ok);
        let na = pointer::push(new.at, nk);
        let old_disjoint = ok == "anyOf" || tags_disjoint(self.old, &oa, ob);
        let new_disjoint = nk == "anyOf" || tags_disjoint(self.new, &na, nb);
        let exclusive = ok == "oneOf" || nk == "oneOf";
        let overlapping = exclusive && !(old_disjoint && new_disjoint);
        let inner = if overlapping {
            ctx.unknown(
                "in a `oneOf` whose alternatives may overlap, accepting more can reject more",
            )
        } else {
            ctx.clone()
        };
        if ok != nk && overlapping {
            let (kind, text) = if ok == "oneOf" {
                (
                    "oneof-became-anyof",
                    "`oneOf` became `anyOf`: a value may now match several alternatives",
                )
            } else {
                (
                    "anyof-became-oneof",
                    "`anyOf` became `oneOf`: a value that matches several alternatives is now rejected",
                )
            };
            let forward = (0..ob.len())
                .map(|i| {
                    Injection::Through(pointer::push_index(&oa, i), Box::new(Injection::Generate))
                })
                .collect::<Vec<_>>();
            let mut found = Found::new(kind, text.to_owned());
            if kind == "anyof-became-oneof" {
                found = found.forward(forward);
            }
            self.emit(old, new, ctx, found);
        }
        let pairs = self.pair(&oa, ob, &na, nb);
        for (i, j) in &pairs.matched {
            let (ci, cj) = (pointer::push_index(&oa, *i), pointer::push_index(&na, *j));
            self.node(Slot::at(&ci, &ob[*i]), Slot::at(&cj, &nb[*j]), &inner);
        }
        for j in &pairs.new_only {
            let at = pointer::push_index(&na, *j);
            let what = summary(self.new, &at, &nb[*j]);
            let place = Place::new(Some(old.at.to_owned()), Some(at.clone()), old.at.to_owned());
            let found = if overlapping {
                // A value of an old alternative that the new one also matches is now matched
                // twice: each old alternative is a route for the witness.
                let forward = (0..ob.len())
                    .map(|i| {
                        Injection::Through(
                            pointer::push_index(&oa, i),
                            Box::new(Injection::Generate),
                        )
                    })
                    .collect();
                Found::new(
                    "oneof-alternative-added",
                    format!("alternative added: {what}; a value it shares with another alternative is now rejected by `oneOf`"),
                )
                .forward(forward)
                .placed(place)
            } else {
                Found::new("alternative-added", format!("alternative added: {what}")).placed(place)
            };
            self.emit(old, new, ctx, found);
        }
        for i in &pairs.old_only {
            let at = pointer::push_index(&oa, *i);
            let what = summary(self.old, &at, &ob[*i]);
            let found = alternative_removed(format!("alternative removed: {what}"), &at, new.at);
            self.emit(old, new, ctx, found);
        }
    }

    fn single_child(
        &mut self,
        old: &Slot<'_, 'a>,
        o: &'a Obj,
        new: &Slot<'_, 'a>,
        n: &'a Obj,
        ctx: &Ctx,
        (keyword, default): (&'static str, Option<&'static Value>),
    ) {
        let ov = o.get(keyword);
        let nv = n.get(keyword);
        if ov.is_none() && nv.is_none() {
            return;
        }
        let oa = pointer::push(old.at, keyword);
        let na = pointer::push(new.at, keyword);
        let instance_level = !matches!(keyword, "not" | "if" | "then" | "else");
        let mut c = ctx.clone();
        if instance_level {
            c.uneval = false;
        }
        match (ov, nv, default) {
            (Some(ov), Some(nv), _) => self.node(Slot::at(&oa, ov), Slot::at(&na, nv), &c),
            (ov, nv, Some(d)) => self.node(Slot::or(&oa, ov, d), Slot::or(&na, nv, d), &c),
            (ov, _, None) => {
                let found = keyword_presence(keyword, ov.is_some());
                self.emit(old, new, ctx, found);
            }
        }
    }

    fn map_children(
        &mut self,
        old: &Slot<'_, 'a>,
        o: &'a Obj,
        new: &Slot<'_, 'a>,
        n: &'a Obj,
        ctx: &Ctx,
        (keyword, default): (&'static str, Option<&'static Value>),
    ) {
        let om = o.get(keyword).and_then(Value::as_object);
        let nm = n.get(keyword).and_then(Value::as_object);
        if om.is_none() && nm.is_none() {
            return;
        }
        let keys = union_keys(om, nm);
        let mut c = ctx.clone();
        c.uneval = false;
        for key in keys {
            let oa = pointer::push(&pointer::push(old.at, keyword), key);
            let na = pointer::push(&pointer::push(new.at, keyword), key);
            let ov = om.and_then(|m| m.get(key));
            let nv = nm.and_then(|m| m.get(key));
            match (ov, nv, default) {
                (Some(ov), Some(nv), _) => self.node(Slot::at(&oa, ov), Slot::at(&na, nv), &c),
                (ov, nv, Some(d)) => {
                    let os = Slot {
                        at: &oa,
                        value: ov.unwrap_or(d),
                        absent: ov.is_none(),
                    };
                    let ns = Slot {
                        at: &na,
                        value: nv.unwrap_or(d),
                        absent: nv.is_none(),
                    };
                    self.node(os, ns, &c);
                }
                (ov, _, None) => {
                    let found = Found::new(
                        "keyword-changed",
                        format!(
                            "`{keyword}` entry {key:?} {}",
                            if ov.is_some() { "removed" } else { "added" }
                        ),
                    )
                    .forward(
                        pool()
                            .into_iter()
                            .map(|v| {
                                Injection::Key(pattern_key(key), Box::new(Injection::Value(v)))
                            })
                            .collect(),
                    );
                    self.emit(old, new, ctx, found);
                }
            }
        }
    }

    /// Pairs alternatives (or `allOf` parts): same content, then same tag, same title, same
    /// definition name, same shape; what is left pairs by position when both sides have as
    /// many left.
    fn pair(&self, oa: &str, ob: &'a [Value], na: &str, nb: &'a [Value]) -> Pairs {
        let okeys: Vec<Keys> = ob
            .iter()
            .enumerate()
            .map(|(i, v)| keys(self.old, &pointer::push_index(oa, i), v))
            .collect();
        let nkeys: Vec<Keys> = nb
            .iter()
            .enumerate()
            .map(|(j, v)| keys(self.new, &pointer::push_index(na, j), v))
            .collect();
        let mut matched = Vec::new();
        let mut used_old = vec![false; ob.len()];
        let mut used_new = vec![false; nb.len()];
        for level in 0..Keys::LEVELS {
            for i in 0..ob.len() {
                if used_old[i] {
                    continue;
                }
                let Some(key) = okeys[i].get(level) else {
                    continue;
                };
                let candidates: Vec<usize> = (0..nb.len())
                    .filter(|j| !used_new[*j] && nkeys[*j].get(level) == Some(key))
                    .collect();
                if let Some(&j) = candidates.first() {
                    used_old[i] = true;
                    used_new[j] = true;
                    matched.push((i, j));
                }
            }
        }
        let old_left: Vec<usize> = (0..ob.len()).filter(|i| !used_old[*i]).collect();
        let new_left: Vec<usize> = (0..nb.len()).filter(|j| !used_new[*j]).collect();
        // Alternatives tagged differently are different alternatives, wherever they stand.
        let retagged = old_left
            .iter()
            .zip(&new_left)
            .any(|(i, j)| okeys[*i].tag.is_some() && nkeys[*j].tag.is_some());
        if old_left.len() == new_left.len() && !retagged {
            matched.extend(old_left.into_iter().zip(new_left));
            matched.sort_unstable();
            return Pairs {
                matched,
                old_only: Vec::new(),
                new_only: Vec::new(),
            };
        }
        matched.sort_unstable();
        Pairs {
            matched,
            old_only: old_left,
            new_only: new_left,
        }
    }
}

/// The alternative of a union most like a plain node of the other version.
fn best_match<'a>(
    plain_doc: &Doc<'a>,
    plain_at: &str,
    plain: &'a Value,
    union_doc: &Doc<'a>,
    union_at: &str,
    branches: &'a [Value],
) -> Option<usize> {
    let pk = keys(plain_doc, plain_at, plain);
    let bk: Vec<Keys> = branches
        .iter()
        .enumerate()
        .map(|(i, b)| keys(union_doc, &pointer::push_index(union_at, i), b))
        .collect();
    for level in 0..Keys::LEVELS {
        if let Some(key) = pk.get(level)
            && let Some(i) = bk.iter().position(|k| k.get(level) == Some(key))
        {
            return Some(i);
        }
    }
    // Same kinds of value, else the first alternative that is not `null`.
    bk.iter()
        .position(|k| k.kinds.is_some() && k.kinds == pk.kinds)
        .or_else(|| bk.iter().position(|k| k.kinds.as_deref() != Some("null")))
}

struct Pairs {
    matched: Vec<(usize, usize)>,
    old_only: Vec<usize>,
    new_only: Vec<usize>,
}

/// Keys an alternative is recognised by across versions, strongest first.
#[derive(Debug, Clone, Default)]
struct Keys {
    content: Option<String>,
    tag: Option<String>,
    title: Option<String>,
    definition: Option<String>,
    shape: Option<String>,
    kinds: Option<String>,
}

impl Keys {
    const LEVELS: usize = 5;

    fn get(&self, level: usize) -> Option<&String> {
        match level {
            0 => self.content.as_ref(),
            1 => self.tag.as_ref(),
            2 => self.title.as_ref(),
            3 => self.definition.as_ref(),
            _ => self.shape.as_ref(),
        }
    }
}

fn keys<'a>(doc: &Doc<'a>, at: &str, v: &'a Value) -> Keys {
    let definition = v
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.rsplit('/').next())
        .map(str::to_owned);
    let d = doc.deref(at, v);
    let Some(map) = d.value.as_object() else {
        return Keys {
            content: Some(d.value.to_string()),
            ..Keys::default()
        };
    };
    let stripped: Map<String, Value> = map
        .iter()
        .filter(|(k, _)| !is_annotation(k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let content = (map.len() < 64).then(|| Value::Object(stripped).to_string());
    let props = map.get("properties").and_then(Value::as_object);
    let tag = props.and_then(|p| {
        p.iter().find_map(|(name, s)| {
            let s = doc.deref(&d.at, s).value;
            let lit = s.get("const").cloned().or_else(|| {
                s.get("enum")
                    .and_then(Value::as_array)
                    .filter(|e| e.len() == 1)
                    .map(|e| e[0].clone())
            })?;
            Some(format!("{name}={lit}"))
        })
    });
    let kinds =
        type_set(map, doc.draft).map(|k| k.iter().map(Kind::name).collect::<Vec<_>>().join(","));
    let shape = Some(format!(
        "{}|{}",
        kinds.clone().unwrap_or_default(),
        props
            .map(|p| p.keys().cloned().collect::<Vec<_>>().join(","))
            .unwrap_or_default()
    ));
    Keys {
        content,
        tag,
        title: map.get("title").and_then(Value::as_str).map(str::to_owned),
        definition,
        shape,
        kinds,
    }
}

/// An alternative only OLD has: a witness takes it.
fn alternative_removed(message: String, at: &str, new_at: &str) -> Found {
    Found::new("alternative-removed", message)
        .forward(vec![Injection::Generate])
        .placed(Place::new(
            Some(at.to_owned()),
            Some(new_at.to_owned()),
            at.to_owned(),
        ))
}

/// Whether a `oneOf`'s alternatives can never both match: every one is an object that
/// requires one property with its own literal tags. Then `oneOf` means `anyOf`.
fn tags_disjoint<'a>(doc: &Doc<'a>, at: &str, branches: &'a [Value]) -> bool {
    if branches.len() < 2 {
        return true;
    }
    let maps: Vec<(String, &Obj)> = branches
        .iter()
        .enumerate()
        .filter_map(|(i, b)| {
            let d = doc.deref(&pointer::push_index(at, i), b);
            Some((d.at, d.value.as_object()?))
        })
        .collect();
    if maps.len() != branches.len()
        || !maps
            .iter()
            .all(|(_, m)| m.get("type") == Some(&Value::String("object".into())))
    {
        return false;
    }
    let Some(props) = maps[0].1.get("properties").and_then(Value::as_object) else {
        return false;
    };
    props.keys().any(|d| {
        let mut seen: Vec<Value> = Vec::new();
        maps.iter().all(|(at, m)| {
            let required = m
                .get("required")
                .and_then(Value::as_array)
                .is_some_and(|r| r.iter().any(|x| x.as_str() == Some(d)));
            let Some(s) = m.get("properties").and_then(|p| p.get(d)) else {
                return false;
            };
            let s = doc.deref(at, s).value;
            let tags: Vec<Value> = match (s.get("const"), s.get("enum").and_then(Value::as_array)) {
                (Some(c), _) => vec![c.clone()],
                (None, Some(e)) => e.clone(),
                _ => return false,
            };
            let fresh = tags.iter().all(|t| !seen.contains(t));
            seen.extend(tags);
            required && fresh
        })
    })
}

fn describe_slot(at: &str) -> String {
    match pointer::tokens(at).and_then(|t| t.last().cloned()) {
        Some(last) if last == "additionalProperties" => "`additionalProperties`".to_owned(),
        Some(last) => format!("`{last}`"),
        None => "the schema".to_owned(),
    }
}

/// A short description of an alternative, for messages.
fn summary<'a>(doc: &Doc<'a>, at: &str, v: &'a Value) -> String {
    let k = keys(doc, at, v);
    if let Some(tag) = k.tag {
        return format!("the one with {tag}");
    }
    if let Some(title) = k.title.or(k.definition) {
        return format!("`{title}`");
    }
    let d = doc.deref(at, v);
    let text = d.value.to_string();
    if text.chars().count() > 60 {
        format!("{}…", text.chars().take(60).collect::<String>())
    } else {
        text
    }
}

/// The keys of both maps, in order of first appearance (OLD's first).
fn union_keys<'m>(a: Option<&'m Obj>, b: Option<&'m Obj>) -> Vec<&'m String> {
    let mut keys: Vec<&String> = a.map(|m| m.keys().collect()).unwrap_or_default();
    for k in b.into_iter().flat_map(|m| m.keys()) {
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    keys
}

fn annotation_changes(o: &Obj, n: &Obj) -> Vec<String> {
    union_keys(Some(o), Some(n))
        .into_iter()
        .filter(|k| is_annotation(k))
        .filter(|k| o.get(*k) != n.get(*k))
        .map(|k| k.to_string())
        .collect()
}

fn annotation_message(changed: &[String]) -> String {
    format!(
        "{} changed",
        changed
            .iter()
            .map(|k| format!("`{k}`"))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// The kinds `type` allows (OpenAPI `nullable` adds null); `None` when `type` says nothing.
fn type_set(m: &Obj, draft: Draft) -> Option<KindSet> {
    let mut set = KindSet::from_type_value(m.get("type")?)?;
    if draft.has_nullable() && m.get("nullable") == Some(&Value::Bool(true)) {
        set.insert(Kind::Null);
    }
    Some(set)
}

/// The kinds a node accepts as far as `type` and its literals say: a `const` or `enum` without
/// `type` allows only its values' kinds, so adding the matching `type` changes nothing.
fn effective_types(m: &Obj, draft: Draft) -> Option<KindSet> {
    if let Some(set) = type_set(m, draft) {
        return Some(set);
    }
    let values = literal_values(m)?;
    let mut set = KindSet::default();
    for v in &values {
        set.insert(Kind::of(v));
    }
    Some(set)
}

fn covers(set: &KindSet, k: Kind) -> bool {
    set.contains(k) || (k == Kind::Integer && set.contains(Kind::Number))
}

/// Values of the kinds `kinds`, shaped by the node's other keywords.
fn type_candidates(m: &Obj, kinds: &[Kind]) -> Vec<Injection> {
    let mut out = Vec::new();
    for k in kinds {
        if *k == Kind::Number {
            out.extend([0.5, 1.5, -0.5].map(|f| Injection::Value(serde_json::json!(f))));
        }
        let mut copy = m.clone();
        copy.remove("nullable");
        copy.remove("enum");
        copy.remove("const");
        copy.insert("type".into(), Value::String(k.name().into()));
        out.push(Injection::Schema(Value::Object(copy)));
    }
    out
}

/// `const` is a one-value `enum`.
fn literal_values(m: &Obj) -> Option<Vec<Value>> {
    if let Some(c) = m.get("const") {
        return Some(vec![c.clone()]);
    }
    m.get("enum").and_then(Value::as_array).cloned()
}

fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}

fn literals(o: &Obj, n: &Obj) -> Vec<Found> {
    let (ov, nv) = (literal_values(o), literal_values(n));
    let word = |m: &Obj| {
        if m.contains_key("const") {
            "const"
        } else {
            "enum"
        }
    };
    let list = |vs: &[Value]| {
        let shown: Vec<String> = vs.iter().take(8).map(Value::to_string).collect();
        let more = vs.len().saturating_sub(8);
        if more > 0 {
            format!("{} and {more} more", shown.join(", "))
        } else {
            shown.join(", ")
        }
    };
    match (ov, nv) {
        (None, None) => Vec::new(),
        (None, Some(nv)) => {
            let forward = pool_at_node()
                .into_iter()
                .filter(|c| !matches!(c, Injection::Value(v) if nv.iter().any(|x| same(x, v))))
                .collect();
            vec![
                Found::new(
                    "enum-added",
                    format!("`{}` added: only {} accepted", word(n), list(&nv)),
                )
                .forward(forward)
                .backward(nv.iter().cloned().map(Injection::Value).collect()),
            ]
        }
        (Some(ov), None) => vec![
            Found::new(
                "enum-removed",
                format!(
                    "`{}` removed: values other than {} accepted",
                    word(o),
                    list(&ov)
                ),
            )
            .backward(
                pool_at_node()
                    .into_iter()
                    .filter(|c| !matches!(c, Injection::Value(v) if ov.iter().any(|x| same(x, v))))
                    .collect(),
            ),
        ],
        (Some(ov), Some(nv)) => {
            let removed: Vec<Value> = ov
                .iter()
                .filter(|v| !nv.iter().any(|x| same(x, v)))
                .cloned()
                .collect();
            let added: Vec<Value> = nv
                .iter()
                .filter(|v| !ov.iter().any(|x| same(x, v)))
                .cloned()
                .collect();
            let mut out = Vec::new();
            if !removed.is_empty() {
                let message = if ov.len() == 1 && nv.len() == 1 {
                    format!("`{}` changed from {} to {}", word(n), ov[0], nv[0])
                } else {
                    format!(
                        "{} no longer accepted ({} values removed)",
                        list(&removed),
                        word(o)
                    )
                };
                out.push(
                    Found::new("enum-values-removed", message)
                        .forward(removed.iter().cloned().map(Injection::Value).collect()),
                );
            }
            if !added.is_empty() {
                out.push(
                    Found::new(
                        "enum-values-added",
                        format!("{} now accepted ({} values added)", list(&added), word(n)),
                    )
                    .backward(added.iter().cloned().map(Injection::Value).collect()),
                );
            }
            out
        }
    }
}

/// A numeric bound: the value, and whether it is exclusive.
type Bound = (f64, bool);

fn lower(m: &Obj, draft: Draft) -> Option<Bound> {
    let min = m.get("minimum").and_then(Value::as_f64);
    let flag =
        draft == Draft::OpenApi30 || m.get("exclusiveMinimum").is_some_and(Value::is_boolean);
    let ex = if flag {
        None
    } else {
        m.get("exclusiveMinimum").and_then(Value::as_f64)
    };
    let flagged = m.get("exclusiveMinimum") == Some(&Value::Bool(true));
    match (min, ex) {
        (Some(a), Some(b)) if b >= a => Some((b, true)),
        (Some(a), _) => Some((a, flagged)),
        (None, Some(b)) => Some((b, true)),
        (None, None) => None,
    }
}

fn upper(m: &Obj, draft: Draft) -> Option<Bound> {
    let max = m.get("maximum").and_then(Value::as_f64);
    let flag =
        draft == Draft::OpenApi30 || m.get("exclusiveMaximum").is_some_and(Value::is_boolean);
    let ex = if flag {
        None
    } else {
        m.get("exclusiveMaximum").and_then(Value::as_f64)
    };
    let flagged = m.get("exclusiveMaximum") == Some(&Value::Bool(true));
    match (max, ex) {
        (Some(a), Some(b)) if b <= a => Some((b, true)),
        (Some(a), _) => Some((a, flagged)),
        (None, Some(b)) => Some((b, true)),
        (None, None) => None,
    }
}

fn show_number(f: f64) -> String {
    serde_json::Number::from_f64(f).map_or_else(
        || f.to_string(),
        |n| {
            if f.fract() == 0.0 && f.abs() < 9.0e15 {
                (f as i64).to_string()
            } else {
                n.to_string()
            }
        },
    )
}

fn show_bound(b: Option<Bound>, lower: bool) -> String {
    match b {
        None => "none".to_owned(),
        Some((v, ex)) => {
            let op = match (lower, ex) {
                (true, false) => ">=",
                (true, true) => ">",
                (false, false) => "<=",
                (false, true) => "<",
            };
            format!("{op} {}", show_number(v))
        }
    }
}

/// A copy of `m` whose numeric range also excludes everything on the near side of `b`: the
/// skeleton's number generator then picks a value the other bound rejects.
fn beyond(m: &Obj, b: Bound, lower_side: bool, draft: Draft) -> Injection {
    let mut copy = m.clone();
    for k in ["minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"] {
        copy.remove(k);
    }
    let (lo, hi) = (lower(m, draft), upper(m, draft));
    let put = |copy: &mut Obj, key: &str, v: f64| {
        copy.insert(key.into(), serde_json::json!(v));
    };
    if lower_side {
        // The other side's lower bound is b: stay below it.
        if let Some((v, ex)) = lo {
            put(
                &mut copy,
                if ex { "exclusiveMinimum" } else { "minimum" },
                v,
            );
        }
        put(
            &mut copy,
            if b.1 { "maximum" } else { "exclusiveMaximum" },
            b.0,
        );
    } else {
        if let Some((v, ex)) = hi {
            put(
                &mut copy,
                if ex { "exclusiveMaximum" } else { "maximum" },
                v,
            );
        }
        put(
            &mut copy,
            if b.1 { "minimum" } else { "exclusiveMinimum" },
            b.0,
        );
    }
    Injection::Schema(Value::Object(copy))
}

fn number_bounds(o: &Obj, n: &Obj, od: Draft, nd: Draft) -> Vec<Found> {
    let mut out = Vec::new();
    for lower_side in [true, false] {
        let get = |m: &Obj, d| if lower_side { lower(m, d) } else { upper(m, d) };
        let (a, b) = (get(o, od), get(n, nd));
        if a == b {
            continue;
        }
        // Tighter: a larger lower bound (exclusive beats inclusive at the same value).
        let tighter = |x: Bound, y: Bound| {
            let (xv, yv) = if lower_side { (x.0, y.0) } else { (-x.0, -y.0) };
            xv > yv || (xv == yv && x.1 && !y.1)
        };
        let kind = match (a, b) {
            (None, Some(_)) => "bound-added",
            (Some(_), None) => "bound-removed",
            (Some(x), Some(y)) if tighter(y, x) => "bound-tightened",
            _ => "bound-loosened",
        };
        let name = if lower_side { "minimum" } else { "maximum" };
        let message = format!(
            "{name} changed from {} to {}",
            show_bound(a, lower_side),
            show_bound(b, lower_side)
        );
        let forward = b
            .map(|b| vec![beyond(o, b, lower_side, od)])
            .unwrap_or_default();
        let backward = a
            .map(|a| vec![beyond(n, a, lower_side, nd)])
            .unwrap_or_default();
        out.push(
            Found::new(kind, message)
                .forward(forward)
                .backward(backward),
        );
    }
    out
}

/// Count bounds and the keyword of the other side of each.
const COUNTS: [(&str, &str, bool); 8] = [
    ("minLength", "maxLength", true),
    ("maxLength", "minLength", false),
    ("minItems", "maxItems", true),
    ("maxItems", "minItems", false),
    ("minProperties", "maxProperties", true),
    ("maxProperties", "minProperties", false),
    ("minContains", "maxContains", true),
    ("maxContains", "minContains", false),
];

fn count_bounds(o: &Obj, n: &Obj) -> Vec<Found> {
    let mut out = Vec::new();
    for (keyword, other, is_lower) in COUNTS {
        let (a, b) = (
            o.get(keyword).and_then(Value::as_u64),
            n.get(keyword).and_then(Value::as_u64),
        );
        if a == b {
            continue;
        }
        let kind = match (a, b) {
            (None, Some(_)) => "bound-added",
            (Some(_), None) => "bound-removed",
            (Some(x), Some(y)) if (y > x) == is_lower => "bound-tightened",
            _ => "bound-loosened",
        };
        let show = |v: Option<u64>| v.map_or_else(|| "none".to_owned(), |v| v.to_string());
        let message = format!("`{keyword}` changed from {} to {}", show(a), show(b));
        // A count the other side's bound excludes, within this side's own.
        let beyond = |m: &Obj, bound: u64| -> Option<Injection> {
            let count = if is_lower {
                bound.checked_sub(1)?
            } else {
                bound + 1
            };
            let mut copy = m.clone();
            copy.insert(other.into(), serde_json::json!(count));
            if !is_lower {
                // The generator reads the lower bound; the upper one stays as it was.
                copy.insert(
                    keyword.into(),
                    m.get(keyword).cloned().unwrap_or(Value::Null),
                );
                if copy.get(keyword) == Some(&Value::Null) {
                    copy.remove(keyword);
                }
            }
            Some(Injection::Schema(Value::Object(copy)))
        };
        let forward = b.and_then(|b| beyond(o, b)).into_iter().collect();
        let backward = a.and_then(|a| beyond(n, a)).into_iter().collect();
        out.push(
            Found::new(kind, message)
                .forward(forward)
                .backward(backward),
        );
    }
    out
}

fn multiple_of(o: &Obj, n: &Obj) -> Option<Found> {
    let a = o
        .get("multipleOf")
        .and_then(Value::as_f64)
        .filter(|v| *v > 0.0);
    let b = n
        .get("multipleOf")
        .and_then(Value::as_f64)
        .filter(|v| *v > 0.0);
    if a == b {
        return None;
    }
    let whole = |x: f64| (x - x.round()).abs() < 1e-9;
    let show = |v: Option<f64>| v.map_or_else(|| "none".to_owned(), show_number);
    let message = format!("`multipleOf` changed from {} to {}", show(a), show(b));
    let not_multiple = |m: &Obj, step: f64, of: f64| -> Vec<Injection> {
        let mut out = vec![Injection::Value(serde_json::json!(step))];
        let mut positive = m.clone();
        positive.insert("exclusiveMinimum".into(), serde_json::json!(0));
        positive.insert("multipleOf".into(), serde_json::json!(step));
        out.push(Injection::Schema(Value::Object(positive)));
        out.extend(
            [1.0, 0.5, 3.0, 7.0, 0.1]
                .into_iter()
                .filter(|x| !whole(x / of))
                .map(|x| Injection::Value(serde_json::json!(x))),
        );
        out
    };
    let kind = match (a, b) {
        (None, Some(_)) => "multiple-of-added",
        (Some(_), None) => "multiple-of-removed",
        (Some(x), Some(y)) if whole(y / x) => "multiple-of-coarser",
        (Some(x), Some(y)) if whole(x / y) => "multiple-of-finer",
        _ => "multiple-of-changed",
    };
    let forward = match (a, b) {
        (Some(x), Some(y)) => not_multiple(o, x, y),
        (None, Some(y)) => not_multiple(o, 1.0, y),
        _ => Vec::new(),
    };
    let backward = match (a, b) {
        (Some(x), Some(y)) => not_multiple(n, y, x),
        (Some(x), None) => not_multiple(n, 1.0, x),
        _ => Vec::new(),
    };
    Some(
        Found::new(kind, message)
            .forward(forward)
            .backward(backward),
    )
}

fn string_pool() -> Vec<Value> {
    [
        "",
        "x",
        "0",
        "A",
        "a b",
        "-",
        "not-a-match",
        &"x".repeat(80),
    ]
    .iter()
    .map(|s| Value::String((*s).to_owned()))
    .collect()
}

fn strings(o: &Obj, n: &Obj) -> Vec<Found> {
    let mut out = Vec::new();
    for keyword in ["pattern", "format"] {
        let (a, b) = (o.get(keyword), n.get(keyword));
        if a == b {
            continue;
        }
        let show = |v: Option<&Value>| v.map_or_else(|| "none".to_owned(), Value::to_string);
        let message = format!("`{keyword}` changed from {} to {}", show(a), show(b));
        let kind = match (keyword, a.is_some(), b.is_some()) {
            ("pattern", false, true) => "pattern-added",
            ("pattern", true, false) => "pattern-removed",
            ("pattern", _, _) => "pattern-changed",
            (_, false, true) => "format-added",
            (_, true, false) => "format-removed",
            _ => "format-changed",
        };
        let candidates = |m: &Obj| -> Vec<Injection> {
            let mut v = vec![Injection::Schema(Value::Object(m.clone()))];
            if let Some(example) = m
                .get("pattern")
                .and_then(Value::as_str)
                .and_then(crate::validate::skeleton::pattern_example)
            {
                v.push(Injection::Value(Value::String(example)));
            }
            v.extend(string_pool().into_iter().map(Injection::Value));
            v
        };
        let forward = if b.is_some() {
            candidates(o)
        } else {
            Vec::new()
        };
        let backward = if a.is_some() {
            candidates(n)
        } else {
            Vec::new()
        };
        out.push(
            Found::new(kind, message)
                .forward(forward)
                .backward(backward),
        );
    }
    out
}

fn unique_items(o: &Obj, n: &Obj) -> Option<Found> {
    let on = |m: &Obj| m.get("uniqueItems") == Some(&Value::Bool(true));
    let (a, b) = (on(o), on(n));
    if a == b {
        return None;
    }
    let twins = |m: &Obj| {
        let mut copy = m.clone();
        let min = m
            .get("minItems")
            .and_then(Value::as_u64)
            .unwrap_or(0)
            .max(2);
        copy.insert("minItems".into(), serde_json::json!(min));
        copy.remove("uniqueItems");
        vec![Injection::Schema(Value::Object(copy))]
    };
    Some(if b {
        Found::new(
            "unique-items-added",
            "`uniqueItems: true` added: repeated items rejected".into(),
        )
        .forward(twins(o))
    } else {
        Found::new(
            "unique-items-removed",
            "`uniqueItems: true` removed: repeated items accepted".into(),
        )
        .backward(twins(n))
    })
}

fn names(m: &Obj, keyword: &str) -> Vec<String> {
    m.get(keyword)
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

fn required(o: &Obj, n: &Obj) -> Vec<Found> {
    let (a, b) = (names(o, "required"), names(n, "required"));
    let mut out = Vec::new();
    for name in b.iter().filter(|x| !a.contains(x)) {
        out.push(
            Found::new("required-added", format!("`{name}` is now required"))
                .forward(vec![Injection::Generate]),
        );
    }
    for name in a.iter().filter(|x| !b.contains(x)) {
        out.push(
            Found::new(
                "required-removed",
                format!("`{name}` is no longer required"),
            )
            .backward(vec![Injection::Generate]),
        );
    }
    out
}

/// Keywords that no family above handles: compared by value.
fn others(o: &Obj, n: &Obj) -> Vec<Found> {
    const HANDLED: &[&str] = &[
        "type",
        "nullable",
        "enum",
        "const",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "minLength",
        "maxLength",
        "pattern",
        "format",
        "minItems",
        "maxItems",
        "uniqueItems",
        "minContains",
        "maxContains",
        "contains",
        "items",
        "prefixItems",
        "additionalItems",
        "unevaluatedItems",
        "required",
        "properties",
        "patternProperties",
        "additionalProperties",
        "unevaluatedProperties",
        "propertyNames",
        "minProperties",
        "maxProperties",
        "dependentRequired",
        "dependentSchemas",
        "dependencies",
        "allOf",
        "anyOf",
        "oneOf",
        "not",
        "if",
        "then",
        "else",
        "$ref",
        "$defs",
        "definitions",
    ];
    let keys = union_keys(Some(o), Some(n));
    let mut out = Vec::new();
    for k in keys {
        if HANDLED.contains(&k.as_str()) || is_annotation(k) || IDENTIFIERS.contains(&k.as_str()) {
            continue;
        }
        if o.get(k) == n.get(k) {
            continue;
        }
        let show = |v: Option<&Value>| v.map_or_else(|| "none".to_owned(), short);
        let what = format!(
            "`{k}` changed from {} to {}",
            show(o.get(k)),
            show(n.get(k))
        );
        let found = if k.starts_with("x-") {
            Found::new("extension-changed", what)
        } else if k == "contentSchema" {
            // An annotation since 2019-09: it describes decoded content, validation ignores it.
            Found::new("annotation-changed", what)
        } else if k == "discriminator" {
            Found::new(
                "discriminator-changed",
                format!("{what} (a hint; the alternatives decide)"),
            )
        } else if k == "$schema" {
            Found::new("dialect-changed", what).forward(pool_at_node())
        } else {
            Found::new(
                "keyword-changed",
                format!(
                    "{what}; validators ignore keywords they do not know, its consumer may not"
                ),
            )
            .forward(pool_at_node())
        };
        out.push(found);
    }
    out
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 40 {
        format!("{}…", s.chars().take(40).collect::<String>())
    } else {
        s
    }
}

/// A keyword with no default that one side has and the other does not: as a constraint
/// beside the others, adding it narrows and removing it widens.
fn keyword_presence(keyword: &str, removed: bool) -> Found {
    if removed {
        Found::new("keyword-removed", format!("`{keyword}` removed")).backward(pool_at_node())
    } else {
        Found::new(
            "keyword-added",
            format!("`{keyword}` added: values must also satisfy it"),
        )
        .forward(pool_at_node())
    }
}

/// Plain values of every kind: candidates where nothing more specific is known.
pub fn pool() -> Vec<Value> {
    use serde_json::json;
    vec![
        json!(null),
        json!(""),
        json!("x"),
        json!(0),
        json!(1),
        json!(-1),
        json!(0.5),
        json!(1_000_000),
        json!("x".repeat(40)),
        json!(true),
        json!(false),
        json!([]),
        json!([null]),
        json!({}),
    ]
}

fn pool_at_node() -> Vec<Injection> {
    std::iter::once(Injection::Generate)
        .chain(pool().into_iter().map(Injection::Value))
        .collect()
}

fn pattern_key(pattern: &str) -> String {
    crate::validate::skeleton::pattern_example(pattern).unwrap_or_else(|| "a".to_owned())
}

fn only_annotations(v: &Value) -> bool {
    match v {
        Value::Bool(true) => true,
        Value::Object(m) => m.keys().all(|k| is_annotation(k) || k.starts_with("x-")),
        _ => false,
    }
}

/// What judges an undeclared property: `Some(true)` anything goes, `Some(false)` nothing
/// does, `None` a schema or patterns do.
fn open_for(m: &Obj) -> Option<bool> {
    if m.get("patternProperties")
        .and_then(Value::as_object)
        .is_some_and(|p| !p.is_empty())
        || m.contains_key("unevaluatedProperties")
    {
        return None;
    }
    match m.get("additionalProperties") {
        None | Some(Value::Bool(true)) => Some(true),
        Some(Value::Bool(false)) => Some(false),
        Some(v) if only_annotations(v) => Some(true),
        Some(Value::Object(m))
            if m.get("not")
                .is_some_and(|x| x.as_object().is_some_and(Map::is_empty)) =>
        {
            Some(false)
        }
        Some(_) => None,
    }
}

fn property_removed(
    name: &str,
    schema: &Value,
    old_prop: &str,
    old_at: &str,
    new_at: &str,
    n: &Obj,
) -> Found {
    let place = Place::new(
        Some(old_prop.to_owned()),
        Some(new_at.to_owned()),
        old_at.to_owned(),
    );
    let key = |inj: Injection| Injection::Key(name.to_owned(), Box::new(inj));
    let own = key(Injection::Schema(schema.clone()));
    match open_for(n) {
        Some(true) => Found::new(
            "property-removed-from-open-object",
            format!("property `{name}` no longer described: any value is accepted under that name"),
        ),
        Some(false) => Found::new(
            "property-removed-from-closed-object",
            format!("property `{name}` removed, and no other property is allowed"),
        )
        .forward(vec![own]),
        None => Found::new(
            "property-removed",
            format!(
                "property `{name}` removed: `additionalProperties`/`patternProperties` now judge it"
            ),
        )
        .forward(
            std::iter::once(own)
                .chain(pool().into_iter().map(|v| key(Injection::Value(v))))
                .collect(),
        ),
    }
    .placed(place)
}

fn property_added(name: &str, schema: &Value, old_at: &str, new_prop: &str, o: &Obj) -> Found {
    let place = Place::new(
        Some(old_at.to_owned()),
        Some(new_prop.to_owned()),
        old_at.to_owned(),
    );
    let key = |inj: Injection| Injection::Key(name.to_owned(), Box::new(inj));
    let values: Vec<Injection> = pool()
        .into_iter()
        .map(|v| key(Injection::Value(v)))
        .collect();
    match open_for(o) {
        Some(true) if only_annotations(schema) => Found::new(
            "annotation-changed",
            format!("property `{name}` now described (annotations only)"),
        ),
        Some(true) => Found::new(
            "property-added-to-open-object",
            format!("property `{name}` added to an open object: values it does not allow are now rejected"),
        )
        .forward(values),
        Some(false) => Found::new(
            "property-added-to-closed-object",
            format!("property `{name}` added where no other property was allowed"),
        ),
        None => Found::new(
            "property-added",
            format!("property `{name}` added: before, `additionalProperties`/`patternProperties` judged it"),
        )
        .forward(values),
    }
    .placed(place)
}
