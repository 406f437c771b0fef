//! What the provider will still refuse in a tailored schema, read from the same lint whose
//! errors make `lint`'s tailored verdict "rejected": `project --provider` and `check
//! --provider` warn exactly where that verdict rejects. Tailoring's own list
//! ([`Tailored::unresolved`]) says why for what a step knew it left; the lint adds what no step
//! claimed (a rewrite that stopped short, such as an `allOf` whose parts cannot be merged left
//! under a provider without `allOf`), which would otherwise go unsaid.

use std::collections::{BTreeMap, HashSet};

use super::{Tailored, Unresolved};
use crate::lint::{self, Subject};

impl Tailored {
    /// Every rule the provider will still fire on the tailored schema sent as tool `name`
    /// (`None`: no name to check): [`Tailored::unresolved`], then each rule lint reports as an
    /// error that the list does not already name at that place, once per rule (its first place,
    /// with how many there are: a projection that inlined one bad definition a thousand times
    /// says so in one line). Empty exactly when lint accepts the tailored schema.
    pub fn still_failing(&self, name: Option<&str>) -> Vec<Unresolved> {
        self.still_failing_in(name, &[])
    }

    /// [`Tailored::still_failing`] for a tool sent with others: `tool_list` are the findings
    /// of the rules that read the whole tool list on this tailored schema (a name another tool
    /// has: see [`ToolSet`](crate::lint::tool_set::ToolSet)), which the tool linted alone never
    /// meets. Empty exactly when `lint` of the whole request accepts the tailored schema.
    pub fn still_failing_in(
        &self,
        name: Option<&str>,
        tool_list: &[lint::Finding],
    ) -> Vec<Unresolved> {
        let schema = &self.projection.schema;
        let alone = lint::lint_tools(self.profile, &[Subject { name, schema }])
            .pop()
            .unwrap_or_default();
        // Tool-level findings come first in lint order, the request's before the schema's.
        let findings = tool_list.iter().cloned().chain(alone);
        let named: HashSet<(&str, &str)> = self
            .unresolved
            .iter()
            .map(|u| (u.rule, u.pointer.as_str()))
            .collect();
        // Rule → its first unnamed finding and how many places it fires at, in lint order.
        let mut unnamed: BTreeMap<&'static str, (usize, lint::Finding, usize)> = BTreeMap::new();
        for (order, f) in findings.enumerate() {
            if !f.is_error() || named.contains(&(f.rule, f.pointer.as_str())) {
                continue;
            }
            unnamed.entry(f.rule).or_insert((order, f, 0)).2 += 1;
        }
        let mut added: Vec<(usize, Unresolved)> = unnamed
            .into_values()
            .map(|(order, f, places)| {
                let why = match places {
                    1 => f.message,
                    n => format!("{} ({n} places)", f.message),
                };
                let unresolved = Unresolved {
                    pointer: f.pointer,
                    rule: f.rule,
                    why,
                };
                (order, unresolved)
            })
            .collect();
        added.sort_by_key(|(order, _)| *order);
        let mut out = self.unresolved.clone();
        out.extend(added.into_iter().map(|(_, u)| u));
        out
    }
}
