//! Findings grouped by the original node they come from.
//!
//! Inlining copies a definition to every place that refers to it, so one problem in a 4 KB
//! document can show up at hundreds of thousands of places of its projection. What the user
//! has to fix is the definition: the places are one [`Group`], reported once, with its copies
//! counted. Output and work then follow the original's size, not the projection's.

use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::BuildHasher;
use std::rc::Rc;

use serde::Serialize;
use serde_json::Value;

use super::checks::Hit;
use super::shapes::FastHash;
use super::{Finding, LintRule, SortKey};
use crate::pointer;
use crate::projection::Links;

/// One fact about one original node: the same rule, keyword and detail at every copy of that
/// node (one copy when the linted schema is the original).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Group {
    /// The finding at the first copy, in document order (its pointer and provider message are
    /// that copy's).
    #[serde(flatten)]
    pub finding: Finding,
    /// The original nodes the copies come from (several for a node merged from several, none
    /// when nothing links back); for the original itself, the finding's own pointer.
    pub origins: Vec<String>,
    /// Every copy's pointer, in document order; the first is `finding.pointer`.
    #[serde(skip)]
    pub pointers: Vec<String>,
}

impl Group {
    /// How many places of the linted schema the finding is at.
    pub fn copies(&self) -> usize {
        self.pointers.len()
    }
}

/// The original nodes a node of a projection comes from: its own links, or those of the
/// nearest enclosing node that has some (a node the engine built, such as a wrapper, has none).
///
/// An inlined definition links both to the definition and to the `$ref` that brought it in.
/// The definition is what every copy shares (each copy came through its own `$ref`), so the
/// `$ref` sites are left out when something else remains.
pub fn origins_of(links: &Links, original: &Value, at: &str) -> Vec<String> {
    Origins::new(links, original).of(at).to_vec()
}

/// [`origins_of`] for many places of one projection. Whether an original node is a `$ref`
/// site is looked up once per node: there are as many of those as the original has nodes,
/// while a projection can have a million places linking to them.
struct Origins<'a> {
    links: &'a Links,
    original: &'a Value,
    is_ref: RefCell<HashMap<String, bool>>,
    /// The last place asked and its answer: hits come in document order, several rules at
    /// one node, so the same place is often asked again at once.
    last: RefCell<Option<(String, Rc<[String]>)>>,
}

impl<'a> Origins<'a> {
    fn new(links: &'a Links, original: &'a Value) -> Origins<'a> {
        Origins {
            links,
            original,
            is_ref: RefCell::new(HashMap::new()),
            last: RefCell::new(None),
        }
    }

    fn of(&self, at: &str) -> Rc<[String]> {
        if let Some((place, origins)) = &*self.last.borrow()
            && place == at
        {
            return Rc::clone(origins);
        }
        let origins: Rc<[String]> = self.looked_up(at).into();
        let mut last = self.last.borrow_mut();
        match &mut *last {
            // The place's buffer is reused: most places are asked once or twice.
            Some((place, known)) => {
                place.clear();
                place.push_str(at);
                *known = Rc::clone(&origins);
            }
            None => *last = Some((at.to_owned(), Rc::clone(&origins))),
        }
        origins
    }

    fn looked_up(&self, at: &str) -> Vec<String> {
        let mut current = Some(at);
        while let Some(p) = current {
            let found = self.links.originals(p);
            if !found.is_empty() {
                let mut out: Vec<String> =
                    found.iter().filter(|o| !self.is_ref(o)).cloned().collect();
                if out.is_empty() {
                    out = found.to_vec();
                }
                out.sort();
                return out;
            }
            current = pointer::parent(p);
        }
        Vec::new()
    }

    fn is_ref(&self, origin: &str) -> bool {
        if let Some(&known) = self.is_ref.borrow().get(origin) {
            return known;
        }
        let answer = self
            .original
            .pointer(origin)
            .is_some_and(|v| v.get("$ref").is_some());
        self.is_ref.borrow_mut().insert(origin.to_owned(), answer);
        answer
    }
}

/// Things found at places of a projection (payload adapters, what tailoring left unresolved),
/// grouped like findings: one entry per original node and kind, with every place counted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Placed<T> {
    /// The first one, in the order given.
    #[serde(flatten)]
    pub item: T,
    pub origins: Vec<String>,
    #[serde(skip)]
    pub pointers: Vec<String>,
}

impl<T> Placed<T> {
    pub fn copies(&self) -> usize {
        self.pointers.len()
    }
}

/// Groups `items` by what they say (`identity`, everything but the place) and by the original
/// node their place (`at`) comes from.
pub fn place_by_origin<T>(
    items: Vec<T>,
    at: impl Fn(&T) -> &str,
    identity: impl Fn(&T) -> String,
    links: &Links,
    original: &Value,
) -> Vec<Placed<T>> {
    let origins_of = Origins::new(links, original);
    let mut index: HashMap<(String, Vec<String>), usize, FastHash> = HashMap::default();
    let mut out: Vec<Placed<T>> = Vec::new();
    for item in items {
        let place = at(&item).to_owned();
        let origins = origins_of.of(&place).to_vec();
        let key = (identity(&item), origins);
        match index.get(&key) {
            Some(&i) => out[i].pointers.push(place),
            None => {
                index.insert(key.clone(), out.len());
                out.push(Placed {
                    item,
                    origins: key.1,
                    pointers: vec![place],
                });
            }
        }
    }
    out
}

/// A group being gathered: its first hit, its origins and every copy's pointer.
struct Gathering {
    rank: usize,
    rule: &'static LintRule,
    hit: Hit,
    origins: Vec<String>,
    pointers: Vec<String>,
}

impl Gathering {
    /// What makes two hits one group: the rule (by its place in the table), the keyword, what
    /// the check found, and where it comes from in the original.
    fn key(&self) -> Key<'_> {
        (
            self.rank,
            &self.hit.keyword,
            &self.hit.detail,
            &self.hit.item,
            &self.origins,
        )
    }
}

type Key<'k> = (
    usize,
    &'k Option<String>,
    &'k String,
    &'k String,
    &'k [String],
);

/// Groups one tool's sorted hits; `finding` turns the first hit of a group into its finding.
/// A hit is looked up by its own fields: a copy that joins a group (most of them, on a large
/// inlined projection) costs its pointer and no copy of its key.
pub(crate) fn group(
    hits: Vec<(SortKey, &'static LintRule, Hit)>,
    links: Option<(&Links, &Value)>,
    finding: impl Fn(&LintRule, &Hit) -> Finding,
) -> Vec<Group> {
    let origins_of = links.map(|(links, original)| Origins::new(links, original));
    let state = FastHash::default();
    let mut index: hashbrown::HashTable<usize> = hashbrown::HashTable::new();
    let mut groups: Vec<Gathering> = Vec::new();
    for ((_, _, rank), rule, hit) in hits {
        let origins: Rc<[String]> = match &origins_of {
            Some(origins) => origins.of(&hit.pointer),
            None => Rc::from([hit.pointer.clone()]),
        };
        let key: Key<'_> = (rank, &hit.keyword, &hit.detail, &hit.item, &origins[..]);
        let hash = state.hash_one(key);
        match index.find(hash, |&g| groups[g].key() == key) {
            Some(&g) => groups[g].pointers.push(hit.pointer),
            None => {
                index.insert_unique(hash, groups.len(), |&g| state.hash_one(groups[g].key()));
                groups.push(Gathering {
                    rank,
                    rule,
                    origins: origins.to_vec(),
                    pointers: vec![hit.pointer.clone()],
                    hit,
                });
            }
        }
    }
    groups
        .into_iter()
        .map(|g| Group {
            finding: finding(g.rule, &g.hit),
            origins: g.origins,
            pointers: g.pointers,
        })
        .collect()
}
