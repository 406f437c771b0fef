//! Filling message templates, and writing a schema location the way each provider prints it, so
//! that a finding's provider message can be matched against the error a user actually got.

use serde_json::Value;

use crate::pointer;

/// The values a template may mention.
#[derive(Debug, Default)]
pub(crate) struct Vars<'a> {
    pub detail: &'a str,
    pub keyword: &'a str,
    pub item: &'a str,
    pub context: String,
    pub jsonpath: String,
    pub proto: String,
    pub dotted: String,
    pub tool: &'a str,
    pub index: String,
}

impl Vars<'_> {
    fn get(&self, name: &str) -> Option<&str> {
        Some(match name {
            "detail" => self.detail,
            "keyword" => self.keyword,
            "item" => self.item,
            "context" => &self.context,
            "jsonpath" => &self.jsonpath,
            "proto" => &self.proto,
            "dotted" => &self.dotted,
            "tool" => self.tool,
            "index" => &self.index,
            _ => return None,
        })
    }
}

/// Replaces `{name}` placeholders in one left-to-right pass: text that came from the schema is
/// never read as a placeholder, and braces that name nothing are kept.
pub(crate) fn fill(template: &str, vars: &Vars<'_>) -> String {
    let mut out = String::with_capacity(template.len() + 32);
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match after
            .find('}')
            .and_then(|close| vars.get(&after[..close]).map(|v| (close, v)))
        {
            Some((close, value)) => {
                out.push_str(value);
                rest = &after[close + 1..];
            }
            None => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// A Python string literal as `repr` writes it (OpenAI's messages come from Python).
pub(crate) fn py_str(s: &str) -> String {
    if s.contains('\'') && !s.contains('"') {
        format!("\"{s}\"")
    } else {
        format!("'{}'", s.replace('\\', "\\\\").replace('\'', "\\'"))
    }
}

/// OpenAI's `context=(...)`: the pointer's tokens as a Python tuple.
pub(crate) fn py_tuple(at: &str) -> String {
    let tokens = pointer::tokens(at).unwrap_or_default();
    match tokens.as_slice() {
        [] => "()".to_owned(),
        [one] => format!("({},)", py_str(one)),
        many => {
            let parts: Vec<String> = many.iter().map(|t| py_str(t)).collect();
            format!("({})", parts.join(", "))
        }
    }
}

/// A Python set of names, sorted as OpenAI's examples show them.
pub(crate) fn py_set(names: &[&str]) -> String {
    let mut names: Vec<&str> = names.to_vec();
    names.sort_unstable();
    let parts: Vec<String> = names.iter().map(|n| py_str(n)).collect();
    format!("{{{}}}", parts.join(", "))
}

/// `$.properties.fileKey` style.
pub(crate) fn json_path(at: &str) -> String {
    let mut out = String::from("$");
    for token in pointer::tokens(at).unwrap_or_default() {
        if !token.is_empty() && token.bytes().all(|b| b.is_ascii_digit()) {
            out.push_str(&format!("[{token}]"));
        } else if is_identifier(&token) {
            out.push('.');
            out.push_str(&token);
        } else {
            out.push_str(&format!("[{}]", py_str(&token)));
        }
    }
    out
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

/// Gemini's proto path below `parameters`: map entries are numbered (`properties[3].value`),
/// field names are snake_case (`any_of[0]`).
pub(crate) fn proto_path(root: &Value, at: &str) -> String {
    let mut out = String::from("parameters");
    let mut node = root;
    let tokens = pointer::tokens(at).unwrap_or_default();
    let mut i = 0;
    while i < tokens.len() {
        let keyword = &tokens[i];
        let field = snake_case(keyword.trim_start_matches('$'));
        let value = node.get(keyword.as_str());
        match (value, tokens.get(i + 1)) {
            (Some(Value::Object(map)), Some(key))
                if matches!(
                    keyword.as_str(),
                    "properties" | "$defs" | "definitions" | "patternProperties"
                ) =>
            {
                let n = map.keys().position(|k| k == key).unwrap_or(0);
                out.push_str(&format!(".{field}[{n}].value"));
                node = map.get(key.as_str()).unwrap_or(&Value::Null);
                i += 2;
            }
            (Some(Value::Array(items)), Some(index)) => {
                out.push_str(&format!(".{field}[{index}]"));
                node = index
                    .parse::<usize>()
                    .ok()
                    .and_then(|n| items.get(n))
                    .unwrap_or(&Value::Null);
                i += 2;
            }
            (value, _) => {
                out.push('.');
                out.push_str(&field);
                node = value.unwrap_or(&Value::Null);
                i += 1;
            }
        }
    }
    out
}

fn snake_case(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 4);
    for c in s.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// The property path Vertex prints (`parameters.data.meta.width`): property names only.
pub(crate) fn dotted(at: &str) -> String {
    let tokens = pointer::tokens(at).unwrap_or_default();
    let mut out = String::from("parameters");
    let mut i = 0;
    while i < tokens.len() {
        if tokens[i] == "properties" && i + 1 < tokens.len() {
            out.push('.');
            out.push_str(&tokens[i + 1]);
            i += 2;
        } else {
            out.push('.');
            out.push_str(&tokens[i]);
            i += 1;
        }
    }
    out
}

/// `5312` → `5,312`: limits are quoted with the provider's own digit grouping.
pub(crate) fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A JSON value in a message, shortened: enum values and `const`s can be whole documents.
pub(crate) fn short_json(value: &Value) -> String {
    const MAX: usize = 60;
    let text = value.to_string();
    if text.chars().count() <= MAX {
        text
    } else {
        let cut: String = text.chars().take(MAX).collect();
        format!("{cut}…")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn fills_known_placeholders_once() {
        let vars = Vars {
            detail: "{keyword}",
            keyword: "oneOf",
            ..Vars::default()
        };
        assert_eq!(
            fill("'{keyword}' {detail} {unknown} {", &vars),
            "'oneOf' {keyword} {unknown} {"
        );
    }

    #[test]
    fn python_shapes() {
        assert_eq!(py_tuple(""), "()");
        assert_eq!(py_tuple("/properties/op"), "('properties', 'op')");
        assert_eq!(py_tuple("/items"), "('items',)");
        assert_eq!(
            py_set(&["title", "description"]),
            "{'description', 'title'}"
        );
        assert_eq!(py_str("it's"), "\"it's\"");
    }

    #[test]
    fn digit_grouping() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(5312), "5,312");
        assert_eq!(thousands(120_000), "120,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }

    #[test]
    fn json_paths() {
        assert_eq!(json_path(""), "$");
        assert_eq!(
            json_path("/properties/fileKey/anyOf/0"),
            "$.properties.fileKey.anyOf[0]"
        );
        assert_eq!(json_path("/properties/a b"), "$.properties['a b']");
    }

    #[test]
    fn proto_paths_number_map_entries() {
        let root = json!({"properties": {"a": {}, "b": {"anyOf": [{"type": "string"}]}}});
        assert_eq!(
            proto_path(&root, "/properties/b/anyOf/0"),
            "parameters.properties[1].value.any_of[0]"
        );
        assert_eq!(proto_path(&root, ""), "parameters");
        assert_eq!(
            dotted("/properties/data/properties/meta"),
            "parameters.data.meta"
        );
    }
}
