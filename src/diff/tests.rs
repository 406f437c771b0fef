use super::*;
use serde_json::json;

fn tool_diff(old: Value, new: Value) -> ToolDiff {
    let o = crate::manifest::load_value(old, "old.json", None).unwrap();
    let n = crate::manifest::load_value(new, "new.json", None).unwrap();
    let mut r = diff(&o, &n, &[], &DiffOptions::default());
    r.tools.remove(0)
}

#[test]
fn a_removed_enum_value_is_breaking_with_its_value_as_witness() {
    let t = tool_diff(
        json!({"type": "object", "properties": {"a": {"enum": ["x", "y"]}}, "required": ["a"]}),
        json!({"type": "object", "properties": {"a": {"enum": ["x"]}}, "required": ["a"]}),
    );
    let c = &t.changes[0];
    assert_eq!(
        (c.kind, c.class),
        ("enum-values-removed", Class::Breaking),
        "{t:#?}"
    );
    assert_eq!(c.witness, Some(json!({"a": "y"})));
}
