//! Stopping a projection from another thread: the inspector asks for a new one (another mode,
//! another tool) while a big one is still running, and the old one's seconds of work are
//! wasted unless it ends at once.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// A flag shared between a projection and whoever may stop it. The walk looks at it once per
/// emitted schema node and ends with [`ProjectionError::Cancelled`](super::ProjectionError)
/// when it is raised. The default (`Cancel::never()`) cannot be raised and costs one branch.
#[derive(Clone, Default)]
pub struct Cancel(Option<Arc<AtomicBool>>);

impl Cancel {
    /// A token that [`cancel`](Self::cancel) can raise, for this token and all its clones.
    pub fn new() -> Cancel {
        Cancel(Some(Arc::new(AtomicBool::new(false))))
    }

    /// A token that is never raised: what every caller without a reason to stop uses.
    pub fn never() -> Cancel {
        Cancel(None)
    }

    /// Asks the projections holding this token (or a clone) to stop.
    pub fn cancel(&self) {
        if let Some(flag) = &self.0 {
            flag.store(true, Ordering::Relaxed);
        }
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.as_ref().is_some_and(|f| f.load(Ordering::Relaxed))
    }
}

/// Always the same text: the projection cache keys on `Options`' `Debug` form, and a token
/// changes whether a projection finishes, never what it produces.
impl std::fmt::Debug for Cancel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Cancel")
    }
}

/// A document whose projection doubles at each of `levels` definitions (each refers to the
/// next twice): `2^levels` leaves, from a few hundred bytes. Long projections for tests.
#[cfg(test)]
pub(crate) fn doubling(levels: usize) -> serde_json::Value {
    use serde_json::json;
    let mut defs = serde_json::Map::new();
    for i in 0..levels {
        let next = format!("#/$defs/d{}", i + 1);
        defs.insert(
            format!("d{i}"),
            json!({"type": "object", "properties": {"a": {"$ref": next}, "b": {"$ref": next}}}),
        );
    }
    defs.insert(format!("d{levels}"), json!({"type": ["string", "null"]}));
    json!({"$defs": defs, "$ref": "#/$defs/d0"})
}

#[cfg(test)]
mod tests {
    use super::{Cancel, doubling};
    use crate::projection::{Options, ProjectionError, project};

    #[test]
    fn a_clone_sees_the_cancel_and_never_is_never_raised() {
        let token = Cancel::new();
        let held = token.clone();
        assert!(!held.is_cancelled());
        token.cancel();
        assert!(held.is_cancelled());
        let never = Cancel::never();
        never.cancel();
        assert!(!never.is_cancelled());
        assert_eq!(format!("{token:?}"), format!("{never:?}"));
    }

    fn unbounded(cancel: &Cancel) -> Options {
        Options {
            node_budget: Some(1 << 40),
            cancel: cancel.clone(),
            ..Options::inline()
        }
    }

    #[test]
    fn a_raised_token_stops_at_the_first_node_and_an_unraised_one_changes_nothing() {
        let schema = doubling(6);
        let raised = Cancel::new();
        raised.cancel();
        assert_eq!(
            project(&schema, &unbounded(&raised)).unwrap_err(),
            ProjectionError::Cancelled { at: String::new() }
        );
        let held = project(&schema, &unbounded(&Cancel::new())).unwrap();
        let plain = project(&schema, &unbounded(&Cancel::never())).unwrap();
        assert_eq!(held.schema, plain.schema);
        assert_eq!(held.trace, plain.trace);
    }

    #[test]
    fn a_long_projection_cancelled_from_another_thread_ends_cancelled() {
        // 2^20 leaves: seconds of work and hundreds of MB if the cancel were not seen.
        let schema = doubling(20);
        let cancel = Cancel::new();
        let options = unbounded(&cancel);
        let running = std::thread::spawn(move || project(&schema, &options).map(|p| p.trace.len()));
        // Long enough to be inside the walk (setting up this small document takes a moment),
        // far shorter than the walk (tens of seconds in a debug build).
        std::thread::sleep(std::time::Duration::from_millis(300));
        cancel.cancel();
        let result = running.join().expect("no panic");
        // Stopped at a node inside the walk: a projection that only noticed the cancel
        // after walking everything would say the root ("").
        assert!(
            matches!(&result, Err(ProjectionError::Cancelled { at }) if at.starts_with("/$defs/d")),
            "{result:?}"
        );
    }
}
