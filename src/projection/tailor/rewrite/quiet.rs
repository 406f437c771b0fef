//! The lint's tailoring of a projection far over a provider's size limits: when the size-limit
//! fit will carry one property as JSON text and nothing inside it counts any more, what the walk
//! writes inside that property (a link per node, an adapter per object, what it leaves
//! unresolved) is purged again by the carrier. On a document whose definitions refer to each
//! other many times (issue 10's ref-fan: 4 KB, a million nodes inlined) those records were most
//! of the walk, for a result of a few hundred bytes.
//!
//! The property is expected from the projection's own counts ([`super::fit::expected_carrier`]);
//! the walk still builds every schema node (the fit counts them, and parents read what their
//! children became), but leaves out the records strictly inside it. Whether that changed
//! anything is known at the end, exactly: the records left out would all have been purged when
//! the property, or an enclosing value, was carried or dropped, before any value inside it was
//! carried (a carrier inside reads the adapters beside it). Otherwise the tailoring is made again
//! with every record ([`Walk::quiet_held`]), so the result is always the full walk's.

use serde_json::Value;

use super::Walk;
use crate::pointer;

/// The property whose inside is walked without records, and what was left out.
#[derive(Debug)]
pub(super) struct Quiet {
    /// Its projection pointer.
    from: String,
    /// Where the walk placed it (set when the walk reaches it).
    at: Option<String>,
    /// The first token after `at` of every record left out: the keys that a carrier at `at`
    /// must purge for the records to be as the full walk leaves them.
    tokens: Vec<String>,
    /// `Some(true)` once everything left out would have been purged; `Some(false)` once a value
    /// inside was carried first.
    verdict: Option<bool>,
}

impl Quiet {
    pub(super) fn expecting(from: &str) -> Quiet {
        Quiet {
            from: from.to_owned(),
            at: None,
            tokens: Vec::new(),
            verdict: None,
        }
    }
}

impl Walk<'_> {
    /// The walk places the projection node `from` at `out`: the expected carrier's records stop
    /// here (its own are written).
    pub(super) fn enter_quiet(&mut self, from: &str, out: &str) {
        if let Some(q) = &mut self.quiet
            && q.at.is_none()
            && q.from == from
        {
            q.at = Some(out.to_owned());
        }
    }

    /// Whether a record at `at` is written: everywhere but strictly inside the expected carrier
    /// while it still stands.
    pub(super) fn keeps(&mut self, at: &str) -> bool {
        let Some(q) = &mut self.quiet else {
            return true;
        };
        let (Some(root), None) = (&q.at, q.verdict) else {
            return true;
        };
        let Some(rest) = at
            .strip_prefix(root.as_str())
            .and_then(|r| r.strip_prefix('/'))
        else {
            return true;
        };
        let token = rest.split('/').next().unwrap_or(rest);
        if !q.tokens.iter().any(|t| t == token) {
            q.tokens.push(token.to_owned());
        }
        false
    }

    /// A value at `at` is about to be carried as JSON text, its schema `old` replaced: at the
    /// expected carrier, the records left out are what purging `old`'s keys removes; strictly
    /// inside it, the carrier would read adapters that were left out.
    pub(super) fn note_carry(&mut self, at: &str, old: &Value) {
        let Some(q) = &mut self.quiet else {
            return;
        };
        let (Some(root), None) = (&q.at, q.verdict) else {
            return;
        };
        if at == root.as_str() {
            let purged = |token: &String| {
                old.as_object()
                    .is_some_and(|m| m.keys().any(|k| pointer::escape(k) == token.as_str()))
            };
            q.verdict = Some(q.tokens.iter().all(purged));
        } else if pointer::is_within(at, root) {
            q.verdict = Some(false);
        }
    }

    /// Everything at or below `prefix` is forgotten: when that encloses the expected carrier,
    /// so would be what was left out.
    pub(super) fn note_purge(&mut self, prefix: &str) {
        if let Some(q) = &mut self.quiet
            && let (Some(root), None) = (&q.at, q.verdict)
            && pointer::is_within(root, prefix)
        {
            q.verdict = Some(true);
        }
    }

    /// The document is about to be unrolled (its definitions copied per level): the records
    /// left out would be missing from every copy, so the full walk is needed.
    pub(super) fn note_unroll(&mut self) {
        if let Some(q) = &mut self.quiet
            && q.verdict.is_none()
            && !q.tokens.is_empty()
        {
            q.verdict = Some(false);
        }
    }

    /// True when the records are exactly the full walk's: nothing was left out, or all of it
    /// was purged in time.
    pub(super) fn quiet_held(&self) -> bool {
        self.quiet
            .as_ref()
            .is_none_or(|q| q.tokens.is_empty() || q.verdict == Some(true))
    }
}
