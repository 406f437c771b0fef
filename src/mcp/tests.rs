use super::*;

#[test]
fn headers_never_show_their_value() {
    let h = Header::parse("Authorization:  Bearer s3cret-token ").unwrap();
    assert_eq!(h.name(), "Authorization");
    assert_eq!(h.value(), "Bearer s3cret-token");
    assert!(!format!("{h:?}").contains("s3cret"));
    let spec = ServerSpec::http("https://example.test/mcp", vec![h]);
    assert!(!format!("{spec:?}").contains("s3cret"));
    assert!(!spec.label().contains("s3cret"));

    let missing = Header::parse("Bearer s3cret-token").unwrap_err();
    assert!(!missing.contains("s3cret"), "{missing}");
    let bad = Header::parse("X-Key: s3cret\u{7f}").unwrap_err();
    assert!(!bad.contains("s3cret"), "{bad}");
}

#[test]
fn labels_hide_passwords_and_query_values() {
    let spec = ServerSpec::http("https://me:pw123@example.test/mcp?api_key=k123&x=1", vec![]);
    let label = spec.label();
    assert!(
        !label.contains("pw123") && !label.contains("k123"),
        "{label}"
    );
    assert_eq!(label, "https://me:***@example.test/mcp?api_key=***&x=***");
    let stdio = ServerSpec::stdio("npx", ["-y", "@scope/server", "a b", "it's"]);
    assert_eq!(stdio.label(), r"npx -y @scope/server 'a b' 'it'\''s'");
}

#[test]
fn the_document_is_a_tools_list_result() {
    let list = ToolList {
        tools: vec![serde_json::json!({"name": "a", "inputSchema": {}})],
        pages: 1,
    };
    assert_eq!(
        list.document().to_string(),
        r#"{"tools":[{"name":"a","inputSchema":{}}]}"#
    );
}

#[test]
fn failures_end_with_the_servers_last_words() {
    let f = Failure::new(
        McpError::Exited {
            status: Some("exit status: 3".into()),
        },
        vec!["Error: cannot find module".into()],
    );
    assert_eq!(
        f.to_string(),
        "the server exited (exit status: 3)\nthe server's last lines on stderr:\n  | Error: cannot find module"
    );
}
