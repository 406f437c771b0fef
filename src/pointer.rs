//! RFC 6901 JSON pointers, the one address format shared by the engine, the trace and the UI.

use std::borrow::Cow;

/// Escapes one reference token (`~` → `~0`, `/` → `~1`).
pub fn escape(token: &str) -> Cow<'_, str> {
    if token.contains(['~', '/']) {
        Cow::Owned(token.replace('~', "~0").replace('/', "~1"))
    } else {
        Cow::Borrowed(token)
    }
}

/// Undoes [`escape`]; order matters so that `~01` decodes to `~1`, not `/`.
pub fn unescape(token: &str) -> Cow<'_, str> {
    if token.contains('~') {
        Cow::Owned(token.replace("~1", "/").replace("~0", "~"))
    } else {
        Cow::Borrowed(token)
    }
}

/// `base` followed by one more token.
pub fn push(base: &str, token: &str) -> String {
    let token = escape(token);
    let mut out = String::with_capacity(base.len() + token.len() + 1);
    out.push_str(base);
    out.push('/');
    out.push_str(&token);
    out
}

/// `base` followed by an array index.
pub fn push_index(base: &str, index: usize) -> String {
    format!("{base}/{index}")
}

/// `base` followed by several tokens.
pub fn join<'a>(base: &str, tokens: impl IntoIterator<Item = &'a str>) -> String {
    tokens
        .into_iter()
        .fold(base.to_owned(), |acc, t| push(&acc, t))
}

/// The decoded tokens of a pointer; `None` when it does not start with `/` (and is not empty).
pub fn tokens(pointer: &str) -> Option<Vec<String>> {
    if pointer.is_empty() {
        return Some(Vec::new());
    }
    let rest = pointer.strip_prefix('/')?;
    Some(rest.split('/').map(|t| unescape(t).into_owned()).collect())
}

/// The pointer of the enclosing value, `None` for the root.
pub fn parent(pointer: &str) -> Option<&str> {
    pointer.rfind('/').map(|i| &pointer[..i])
}

/// The first token of `pointer` below `ancestor`, still escaped; `None` when `pointer` is not
/// strictly below `ancestor`.
pub fn child_token<'p>(pointer: &'p str, ancestor: &str) -> Option<&'p str> {
    let rest = pointer.strip_prefix(ancestor)?.strip_prefix('/')?;
    Some(rest.split_once('/').map_or(rest, |(token, _)| token))
}

/// The entries of a map keyed by pointer whose key is `prefix` or lies below it, in key order:
/// they are contiguous from `prefix` on, apart from siblings such as `prefix-x` that sort
/// between.
pub fn entries_within<'m, V>(
    map: &'m std::collections::BTreeMap<String, V>,
    prefix: &str,
) -> impl Iterator<Item = (&'m String, &'m V)> {
    map.range::<str, _>((
        std::ops::Bound::Included(prefix),
        std::ops::Bound::Unbounded,
    ))
    .take_while(move |(p, _)| p.starts_with(prefix))
    .filter(move |(p, _)| is_within(p, prefix))
}

/// True when `pointer` is `ancestor` or lies below it.
pub fn is_within(pointer: &str, ancestor: &str) -> bool {
    pointer == ancestor
        || (pointer.starts_with(ancestor) && pointer.as_bytes().get(ancestor.len()) == Some(&b'/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_within_a_pointer_skip_siblings_sorted_between() {
        let map: std::collections::BTreeMap<String, ()> =
            ["/a", "/a-x", "/a/b", "/a~1b", "/ab", "/a/b/c", "", "/b"]
                .into_iter()
                .map(|p| (p.to_owned(), ()))
                .collect();
        let within = |prefix| {
            entries_within(&map, prefix)
                .map(|(p, _)| p.as_str())
                .collect::<Vec<_>>()
        };
        assert_eq!(within("/a"), ["/a", "/a/b", "/a/b/c"]);
        assert_eq!(within("/a/b/c"), ["/a/b/c"]);
        assert_eq!(within("").len(), map.len());
        assert!(within("/c").is_empty());
    }

    #[test]
    fn child_tokens_are_read_only_strictly_below() {
        assert_eq!(child_token("/a/b~1c/d", "/a"), Some("b~1c"));
        assert_eq!(child_token("/a/b", "/a"), Some("b"));
        assert_eq!(child_token("/b", ""), Some("b"));
        assert_eq!(child_token("/a", "/a"), None);
        assert_eq!(child_token("/ab/c", "/a"), None);
        assert_eq!(child_token("/x/a/b", "/a"), None);
    }

    #[test]
    fn escaping_round_trips() {
        for raw in ["a", "a/b", "m~n", "~1", "", "a~/b"] {
            assert_eq!(unescape(&escape(raw)), raw);
        }
        assert_eq!(escape("a/b~c"), "a~1b~0c");
        assert_eq!(unescape("~01"), "~1");
    }

    #[test]
    fn push_and_tokens_agree() {
        let p = join("", ["properties", "a/b", "items"]);
        assert_eq!(p, "/properties/a~1b/items");
        assert_eq!(tokens(&p).unwrap(), vec!["properties", "a/b", "items"]);
        assert_eq!(tokens("").unwrap(), Vec::<String>::new());
        assert!(tokens("nope").is_none());
    }

    #[test]
    fn parent_and_within() {
        assert_eq!(parent("/a/b"), Some("/a"));
        assert_eq!(parent("/a"), Some(""));
        assert_eq!(parent(""), None);
        assert!(is_within("/a/b", "/a"));
        assert!(is_within("/a", "/a"));
        assert!(!is_within("/ab", "/a"));
        assert!(is_within("/a", ""));
    }
}
