//! The raw JSON of the server's answers. rmcp parses every message into its own types, which
//! drop fields they do not know (a tool's `execution`, vendor extensions) and write the known
//! ones in their own order; `schemalens mcp list` promises the tools exactly as sent. So each
//! transport shows the tap every message as parsed JSON before rmcp sees it, and the session
//! takes the raw `result` of its own requests back by id.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::{NumberOrString, RequestId};
use serde_json::Value;

/// Answers nobody took (the handshake's, a ping's) are dropped oldest first past this.
const KEPT: usize = 64;

#[derive(Debug, Clone, Default)]
pub(crate) struct Tap {
    results: Arc<Mutex<VecDeque<(String, Value)>>>,
}

/// Ids as both sides may write them: a number and the same number in a string are the same
/// request (rmcp matches them too).
fn key_of_json(id: &Value) -> Option<String> {
    match id {
        Value::Number(n) => Some(n.to_string()),
        Value::String(s) => Some(s.clone()),
        _ => None,
    }
}

fn key_of(id: &RequestId) -> String {
    match id {
        NumberOrString::Number(n) => n.to_string(),
        NumberOrString::String(s) => s.to_string(),
    }
}

impl Tap {
    /// Keeps the `result` of `message` if it is a response (batches are looked into).
    pub fn observe(&self, message: &Value) {
        match message {
            Value::Array(batch) => batch.iter().for_each(|m| self.observe(m)),
            Value::Object(map) => {
                let (Some(id), Some(result)) =
                    (map.get("id").and_then(key_of_json), map.get("result"))
                else {
                    return;
                };
                let mut results = self.results.lock().unwrap_or_else(PoisonError::into_inner);
                results.retain(|(k, _)| *k != id);
                if results.len() == KEPT {
                    results.pop_front();
                }
                results.push_back((id, result.clone()));
            }
            _ => {}
        }
    }

    /// The raw result of request `id`, once.
    pub fn take(&self, id: &RequestId) -> Option<Value> {
        let key = key_of(id);
        let mut results = self.results.lock().unwrap_or_else(PoisonError::into_inner);
        let at = results.iter().position(|(k, _)| *k == key)?;
        results.remove(at).map(|(_, v)| v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn results_are_taken_back_by_id_in_either_spelling() {
        let tap = Tap::default();
        tap.observe(&json!({"jsonrpc": "2.0", "id": 3, "result": {"tools": [], "z": 1, "a": 2}}));
        tap.observe(&json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}));
        tap.observe(&json!({"jsonrpc": "2.0", "id": "7", "error": {"code": 1, "message": "x"}}));
        assert_eq!(tap.take(&NumberOrString::Number(7)), None);
        let raw = tap.take(&NumberOrString::String("3".into())).unwrap();
        let keys: Vec<&String> = raw.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["tools", "z", "a"], "key order kept");
        assert_eq!(tap.take(&NumberOrString::Number(3)), None, "taken once");
    }

    #[test]
    fn unclaimed_results_do_not_pile_up() {
        let tap = Tap::default();
        for i in 0..(KEPT as i64 + 10) {
            tap.observe(&json!({"id": i, "result": {}}));
        }
        assert_eq!(tap.take(&NumberOrString::Number(0)), None);
        assert!(tap.take(&NumberOrString::Number(KEPT as i64 + 9)).is_some());
    }
}
