//! The ref-fan reproducer of issue 10: a Pydantic-style document whose definitions refer to the
//! next one `fan` times each, `levels` deep, so that inlining copies the last definition
//! `fan^(levels-1)` times. Each leaf has what generators emit by default and OpenAI strict
//! refuses: `Any` (`{}`), a `uri` format, a `default`, an integer enum, and optional
//! properties of open objects. Shared by the lint suites and `benches/lint_fan.rs`.

use serde_json::{Map, Value, json};

/// With `fan_out` false, only `part0` of each definition refers on and the other parts are
/// plain strings: a document of about the same size whose projection does not multiply.
pub fn document(fan: usize, levels: usize, fan_out: bool) -> Value {
    let mut defs = Map::new();
    for level in 0..levels {
        let mut props = Map::new();
        if level + 1 < levels {
            for k in 0..fan {
                let next = format!("#/$defs/Level{}", level + 1);
                let part = if fan_out || k == 0 {
                    json!({"$ref": next, "description": format!("Part {k}.")})
                } else {
                    json!({"type": "string", "description": format!("Part {k}.")})
                };
                props.insert(format!("part{k}"), part);
            }
        } else {
            props.insert(
                "code".into(),
                json!({"type": "string", "format": "uri", "default": "x"}),
            );
            props.insert("kind".into(), json!({"enum": [1, 2, 3]}));
            props.insert("extra".into(), json!({}));
        }
        defs.insert(
            format!("Level{level}"),
            json!({"type": "object", "title": format!("Level{level}"), "properties": props}),
        );
    }
    json!({
        "type": "object", "title": "Doc",
        "properties": {"root": {"$ref": "#/$defs/Level0"}}, "required": ["root"],
        "$defs": defs
    })
}
