//! The counts and candidates of one scan, kept as a full scan would find them through the moves
//! whose effect stays where they are made. A wide object (a Pydantic model of a thousand
//! optional fields) needs a move per property; counting the whole schema again after each one
//! made its fit quadratic, and cut it off before it fitted.
//!
//! A move changes the schema at one place: the moved property (its value carried as text, or
//! taken into its object's bundle, which may add the bundle's property), or the schema whose
//! enum is dropped. The totals, and the inner counts of the properties around that place,
//! change by what the place counted before and after; the candidates inside it are gone. Two
//! moves can change more, and are followed by a full scan instead: a value holding a `$ref`
//! (another place may no longer be a target, so may move now), and an enum dropped beside
//! subschemas (what judges them changed).

use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap};
use std::rc::Rc;

use serde_json::Value;

use super::{
    Bound, Bundle, Candidate, Counts, DATA, Move, Scan, bundled, has_bundle, live,
    movable_per_object, only_enums, property_counts, property_score, ref_targets, score,
};
use crate::pointer;

/// One scan's counts and candidates, as moves left them.
#[derive(Debug)]
pub(super) struct Tally {
    pub(super) total: Counts,
    pub(super) candidates: Vec<Candidate>,
    /// Each property candidate's place, by the property's pointer: the properties around a
    /// change are those at the prefixes of its pointer.
    properties: HashMap<String, usize>,
    /// The places of enums over the profile's one-enum limit.
    large: Vec<usize>,
    /// Per object, how many of its properties still may move into its bundle.
    movable: HashMap<*const str, usize>,
    /// The candidates by score as last ranked; `None` when a move may have raised a score.
    ranking: Option<Ranking>,
}

/// The candidates as a max-heap of (score, depth, place): the greedy fit's order, ranked once.
/// A move only lowers what is over, so a ranked score is at least the candidate's score now;
/// the top is taken when its score holds, or ranked again by its score now. Where a move can
/// raise scores (a bundle opens: its object's properties gain the bundle's own count; a count
/// rises), everything is ranked again.
#[derive(Debug, Default)]
struct Ranking {
    properties: BinaryHeap<(usize, usize, usize)>,
    enums: BinaryHeap<(usize, usize, usize)>,
}

/// What a move is about to change, counted before it is made.
#[derive(Debug)]
pub(super) struct Change {
    /// The moved property, or the schema whose enum is dropped.
    at: String,
    /// Whether that place is a property of its object, and an optional one.
    optional: Option<bool>,
    before: Counts,
    /// The candidates the move takes out: inside the place, and the place itself.
    gone: Vec<usize>,
}

impl Tally {
    pub(super) fn scan(scan: &Scan, schema: &Value) -> Tally {
        let mut candidates = Vec::new();
        let total = scan.node(schema, "", true, 0, &mut candidates);
        let properties = candidates
            .iter()
            .enumerate()
            .filter(|(_, c)| !c.is_enum)
            .map(|(i, c)| (property_pointer(c), i))
            .collect();
        let large = live(&candidates)
            .filter(|(_, c)| c.large)
            .map(|(i, _)| i)
            .collect();
        let movable = movable_per_object(&candidates);
        Tally {
            total,
            candidates,
            properties,
            large,
            movable,
            ranking: None,
        }
    }

    /// The last enum over the one-enum limit still there.
    pub(super) fn last_large(&self) -> Option<usize> {
        self.large
            .iter()
            .rev()
            .find(|i| !self.candidates[**i].gone)
            .copied()
    }

    /// The move [`super::best`] chooses, from the ranking (each look at a candidate counted in
    /// `looks`).
    pub(super) fn best(
        &mut self,
        over: &[(Bound, usize)],
        bundles: &BTreeMap<String, Bundle>,
        looks: &mut usize,
    ) -> Option<(usize, Move)> {
        let ranking = self.ranking.get_or_insert_with(|| {
            *looks += self.candidates.len();
            Ranking::of(&self.candidates, &self.movable, over, bundles)
        });
        let (candidates, movable) = (&self.candidates, &self.movable);
        // In `best`'s order: enums first when only the enum measures are over.
        let enums_first = only_enums(over);
        let mut chosen = None;
        for enums in [enums_first, !enums_first] {
            chosen = if enums {
                ranking.top_enum(candidates, over, looks)
            } else {
                ranking.top_property(candidates, movable, over, bundles, looks)
            };
            if chosen.is_some() {
                break;
            }
        }
        #[cfg(debug_assertions)]
        assert_eq!(
            chosen,
            super::best(&self.candidates, over, bundles),
            "the ranking chose another move than a look at every candidate"
        );
        chosen
    }

    pub(super) fn live(&self) -> impl DoubleEndedIterator<Item = (usize, &Candidate)> {
        live(&self.candidates)
    }

    /// What moving the candidate at `index` changes, or `None` where the move may change what
    /// else can move (the schema must be counted again).
    pub(super) fn change(&self, schema: &Value, index: usize) -> Option<Change> {
        let c = &self.candidates[index];
        if c.is_enum {
            let node = schema.pointer(&c.object)?;
            if holds_subschemas_beside_enum(node) {
                return None;
            }
            // An enum's schema that is a property stops being one that may move.
            let property = self.properties.get(&*c.object).copied();
            let optional = property.map(|p| self.candidates[p].optional);
            return Some(Change {
                at: c.object.to_string(),
                optional,
                before: entry_counts(schema, &c.object, optional),
                gone: std::iter::once(index).chain(property).collect(),
            });
        }
        let at = property_pointer(c);
        // Its `$ref`s leave with it: what they pointed at may move now.
        if !ref_targets(schema.pointer(&at)?).is_empty() {
            return None;
        }
        Some(Change {
            before: entry_counts(schema, &at, Some(c.optional)),
            at,
            optional: Some(c.optional),
            gone: (c.first_inner..=index).collect(),
        })
    }

    /// Takes a made move into the counts. `opened`: the bundle property the move added to its
    /// object (the object had no bundle before).
    /// `new_bundle`: the move gave its object a bundle (its other properties' scores rise).
    pub(super) fn apply(
        &mut self,
        schema: &Value,
        change: Change,
        opened: Option<&str>,
        new_bundle: bool,
    ) {
        let mut after = entry_counts(schema, &change.at, change.optional);
        if let Some(property) = opened
            && let Some((object, _)) = property_and_object(&change.at)
        {
            let at = pointer::push(&pointer::push(object, "properties"), property);
            let required = schema
                .pointer(object)
                .and_then(Value::as_object)
                .is_some_and(|m| super::required_names(m).iter().any(|r| r == property));
            after = after.plus(entry_counts(schema, &at, Some(!required)));
        }
        for i in change.gone {
            let c = &mut self.candidates[i];
            c.gone = true;
            if bundled(c) {
                let object = Rc::as_ptr(&c.object);
                if let Some(n) = self.movable.get_mut(&object) {
                    *n -= 1;
                    if *n == 0 {
                        self.movable.remove(&object);
                    }
                }
            }
        }
        let rises = (0..after.0.len()).any(|m| after.0[m] > change.before.0[m]);
        if new_bundle || rises {
            self.ranking = None;
        }
        self.total = self.total.replaced(change.before, after);
        for around in strict_prefixes(&change.at) {
            if let Some(&i) = self.properties.get(around) {
                let c = &mut self.candidates[i];
                c.inner = c.inner.replaced(change.before, after);
            }
        }
    }

    /// Checks the kept counts against a full scan of the same schema (debug builds run it
    /// after every move, so every test that fits a tool checks them).
    #[cfg(debug_assertions)]
    pub(super) fn assert_as_counted(&self, counted: &Tally) {
        assert_eq!(self.total, counted.total, "kept totals differ from a scan");
        let key = |c: &Candidate| {
            (
                c.object.to_string(),
                c.name.clone(),
                c.is_enum,
                c.large,
                c.depth,
                c.own,
                c.inner,
                c.optional,
                c.bundles,
            )
        };
        let kept: Vec<_> = self.live().map(|(_, c)| key(c)).collect();
        let fresh: Vec<_> = counted.live().map(|(_, c)| key(c)).collect();
        assert_eq!(kept, fresh, "kept candidates differ from a scan");
        assert_eq!(self.movable, movable_per_object(&self.candidates));
    }
}

impl Ranking {
    fn of(
        candidates: &[Candidate],
        movable: &HashMap<*const str, usize>,
        over: &[(Bound, usize)],
        bundles: &BTreeMap<String, Bundle>,
    ) -> Ranking {
        let mut ranking = Ranking::default();
        for (i, c) in live(candidates) {
            if c.is_enum {
                ranking.enums.push((score(&c.own, over), c.depth, i));
            } else {
                let (score, _) = property_score(c, over, has_bundle(c, movable, bundles));
                ranking.properties.push((score, c.depth, i));
            }
        }
        ranking
    }

    fn top_property(
        &mut self,
        candidates: &[Candidate],
        movable: &HashMap<*const str, usize>,
        over: &[(Bound, usize)],
        bundles: &BTreeMap<String, Bundle>,
        looks: &mut usize,
    ) -> Option<(usize, Move)> {
        top(&mut self.properties, candidates, looks, |c| {
            property_score(c, over, has_bundle(c, movable, bundles))
        })
    }

    fn top_enum(
        &mut self,
        candidates: &[Candidate],
        over: &[(Bound, usize)],
        looks: &mut usize,
    ) -> Option<(usize, Move)> {
        top(&mut self.enums, candidates, looks, |c| {
            (score(&c.own, over), Move::DropEnum)
        })
    }
}

/// The highest-ranked candidate whose score now is its ranked one; none when that score is 0
/// (no move helps).
fn top(
    heap: &mut BinaryHeap<(usize, usize, usize)>,
    candidates: &[Candidate],
    looks: &mut usize,
    score_now: impl Fn(&Candidate) -> (usize, Move),
) -> Option<(usize, Move)> {
    loop {
        let &(ranked, depth, i) = heap.peek()?;
        *looks += 1;
        let c = &candidates[i];
        if c.gone {
            heap.pop();
            continue;
        }
        let (now, how) = score_now(c);
        if now == ranked {
            return (now > 0).then_some((i, how));
        }
        debug_assert!(now < ranked, "a ranked score rose without ranking again");
        heap.pop();
        heap.push((now, depth, i));
    }
}

/// What the place counts: its subtree, and its entry in its object when it is a property.
/// Nothing when it is gone (a property moved into its bundle).
fn entry_counts(schema: &Value, at: &str, optional: Option<bool>) -> Counts {
    let Some(node) = schema.pointer(at) else {
        return Counts::default();
    };
    let nothing = BTreeSet::new();
    let counting = Scan {
        targets: &nothing,
        carriers: &nothing,
        bundling: false,
        large_enum: None,
    };
    // Not clear: only counted, no candidate listed.
    let inside = counting.node(node, at, false, 0, &mut Vec::new());
    match (optional, property_and_object(at)) {
        (Some(optional), Some((_, name))) => inside.plus(property_counts(&name, node, optional)),
        _ => inside,
    }
}

fn property_pointer(c: &Candidate) -> String {
    pointer::push(&pointer::push(&c.object, "properties"), &c.name)
}

/// The object and the (unescaped) name of the property at `at`, which is known to be one.
fn property_and_object(at: &str) -> Option<(&str, String)> {
    let (properties, name) = at.rsplit_once('/')?;
    let object = properties.strip_suffix("/properties")?;
    Some((object, pointer::unescape(name).into_owned()))
}

/// The pointers above `at`, from the root's first child down.
fn strict_prefixes(at: &str) -> impl Iterator<Item = &str> {
    at.match_indices('/')
        .filter(|(i, _)| *i > 0)
        .map(|(i, _)| &at[..i])
}

/// Dropping the enum changes the node's keywords, and so whether its subschemas are judged by
/// themselves alone: a full scan says what may move inside it then.
fn holds_subschemas_beside_enum(node: &Value) -> bool {
    node.as_object().is_some_and(|m| {
        m.iter().any(|(k, v)| {
            k != "enum"
                && !DATA.contains(&k.as_str())
                && match v {
                    Value::Object(_) => true,
                    Value::Array(items) => items.iter().any(|i| i.is_object() || i.is_array()),
                    _ => false,
                }
        })
    })
}
