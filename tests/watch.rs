//! Following files as editors and generators really save them: real files in a temporary
//! folder, the platform's file events (and the poller), and the `project --watch` binary.
//!
//! Every wait is on an event with a deadline. To show that something did *not* happen, a
//! sentinel file is saved afterwards and the events up to its report are inspected: the watcher
//! reports a batch in order, so anything owed for the earlier save arrives before the sentinel.

use std::cell::Cell;
use std::fs::{self, File, OpenOptions};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use schemalens::watch::{
    ProjectionCache, Target, WatchConfig, WatchError, WatchEvent, Watcher, content_hash,
};
use schemalens::{Options, manifest, project_tool};
use serde_json::{Value, json};
use tempfile::TempDir;

/// Generous: only there so that a lost event fails the test instead of hanging it.
const DEADLINE: Duration = Duration::from_secs(10);

struct Follow {
    dir: TempDir,
    rx: Receiver<WatchEvent>,
    watcher: Watcher,
    saves: Cell<u32>,
}

fn follow_with(config: WatchConfig, setup: impl FnOnce(&Path) -> Vec<Target>) -> Follow {
    let dir = tempfile::tempdir().expect("temporary folder");
    let targets = setup(dir.path());
    let (tx, rx) = mpsc::channel();
    let watcher = Watcher::start(targets, config, move |e| {
        let _ = tx.send(e);
    })
    .expect("watcher starts");
    Follow {
        dir,
        rx,
        watcher,
        saves: Cell::new(0),
    }
}

/// `m.json` holding `{"v": 0}`, and the sentinel `s.json`, both followed.
fn follow(config: WatchConfig) -> Follow {
    let f = follow_with(config, |dir| {
        fs::write(dir.join("m.json"), r#"{"v": 0}"#).unwrap();
        fs::write(dir.join("s.json"), "0").unwrap();
        vec![
            Target::file(dir.join("m.json")),
            Target::file(dir.join("s.json")),
        ]
    });
    let initial = [f.next(), f.next()];
    assert!(
        initial
            .iter()
            .any(|e| is_changed(e, &f.path("m.json"), r#"{"v": 0}"#)),
        "{initial:?}"
    );
    f
}

fn is_changed(event: &WatchEvent, path: &Path, text: &str) -> bool {
    matches!(event, WatchEvent::Changed { path: p, content, hash }
        if p == path && content == text.as_bytes() && *hash == content_hash(text.as_bytes()))
}

impl Follow {
    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn next(&self) -> WatchEvent {
        self.rx
            .recv_timeout(DEADLINE)
            .expect("an event within the deadline")
    }

    /// Events up to and including the first that `want` accepts.
    fn until(&self, what: &str, want: impl Fn(&WatchEvent) -> bool) -> Vec<WatchEvent> {
        let start = Instant::now();
        let mut seen = Vec::new();
        loop {
            let left = DEADLINE.saturating_sub(start.elapsed());
            match self.rx.recv_timeout(left) {
                Ok(e) => {
                    let done = want(&e);
                    seen.push(e);
                    if done {
                        return seen;
                    }
                }
                Err(_) => panic!("no {what} within {DEADLINE:?}; events: {seen:?}"),
            }
        }
    }

    fn until_content(&self, name: &str, text: &str) -> Vec<WatchEvent> {
        let path = self.path(name);
        self.until(&format!("{name} = {text:?}"), |e| {
            is_changed(e, &path, text)
        })
    }

    /// Saves the sentinel and returns what was reported before it.
    fn settle(&self) -> Vec<WatchEvent> {
        self.saves.set(self.saves.get() + 1);
        let text = format!("sentinel {}", self.saves.get());
        fs::write(self.path("s.json"), &text).unwrap();
        let mut seen = self.until_content("s.json", &text);
        seen.pop();
        seen
    }
}

fn about<'a>(events: &'a [WatchEvent], path: &Path) -> Vec<&'a WatchEvent> {
    events.iter().filter(|e| e.path() == Some(path)).collect()
}

fn changed_text(event: &WatchEvent) -> Option<String> {
    match event {
        WatchEvent::Changed { content, .. } => Some(String::from_utf8_lossy(content).into_owned()),
        _ => None,
    }
}

#[test]
fn initial_state_is_reported_before_start_returns() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("m.json"), "{}").unwrap();
    let payloads = dir.path().join("m.payloads");
    fs::create_dir(&payloads).unwrap();
    fs::write(payloads.join("a.json"), "1").unwrap();
    fs::write(payloads.join("notes.txt"), "not a payload").unwrap();
    let (tx, rx) = mpsc::channel();
    let _watcher = Watcher::start(
        [
            Target::file(dir.path().join("m.json")),
            Target::file(dir.path().join("gone.json")),
            Target::payloads(&payloads),
        ],
        WatchConfig::default(),
        move |e| tx.send(e).unwrap(),
    )
    .unwrap();
    let initial: Vec<WatchEvent> = rx.try_iter().collect();
    assert_eq!(initial.len(), 3, "{initial:?}");
    assert!(is_changed(&initial[0], &dir.path().join("m.json"), "{}"));
    assert_eq!(
        initial[1],
        WatchEvent::Missing {
            path: dir.path().join("gone.json")
        }
    );
    assert!(is_changed(&initial[2], &payloads.join("a.json"), "1"));
}

#[test]
fn a_target_in_a_missing_folder_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let err = Watcher::start(
        [Target::file(dir.path().join("nope/m.json"))],
        WatchConfig::default(),
        |_| {},
    )
    .unwrap_err();
    assert!(matches!(err, WatchError::Path { .. }), "{err:?}");
}

#[test]
fn in_place_write() {
    let f = follow(WatchConfig::default());
    // Overwrite from the start without truncating (the new text is longer): never empty.
    let mut file = OpenOptions::new()
        .write(true)
        .open(f.path("m.json"))
        .unwrap();
    file.write_all(br#"{"v": 1, "w": 2}"#).unwrap();
    file.sync_all().unwrap();
    drop(file);
    let seen = f.until_content("m.json", r#"{"v": 1, "w": 2}"#);
    assert_eq!(about(&seen, &f.path("m.json")).len(), 1, "{seen:?}");
}

#[test]
fn truncate_then_write_is_read_once_whole() {
    let f = follow(WatchConfig::default());
    // VS Code: truncate to zero, then write; here with a pause in between and a half-written
    // moment, both shorter than the debounce delay.
    let mut file = File::create(f.path("m.json")).unwrap();
    file.sync_all().unwrap();
    std::thread::sleep(Duration::from_millis(30));
    file.write_all(br#"{"v": "#).unwrap();
    file.sync_all().unwrap();
    std::thread::sleep(Duration::from_millis(30));
    file.write_all(br#"2}"#).unwrap();
    drop(file);
    let next = f.next();
    assert!(
        is_changed(&next, &f.path("m.json"), r#"{"v": 2}"#),
        "{next:?}"
    );
    let after = f.settle();
    assert!(about(&after, &f.path("m.json")).is_empty(), "{after:?}");
}

#[test]
fn temporary_file_renamed_over() {
    let f = follow(WatchConfig::default());
    // helix, JetBrains, most atomic-write libraries; several times, since a watch on the file
    // itself would die after the first.
    for v in 1..=3 {
        let tmp = f.path(&format!(".m.json.{v}.tmp"));
        fs::write(&tmp, format!(r#"{{"v": {v}}}"#)).unwrap();
        fs::rename(&tmp, f.path("m.json")).unwrap();
        let seen = f.until_content("m.json", &format!(r#"{{"v": {v}}}"#));
        assert_eq!(seen.len(), 1, "only the file itself is reported: {seen:?}");
    }
}

#[test]
fn vim_backup_then_write() {
    let f = follow(WatchConfig::default());
    for v in 1..=3 {
        // vim with `backupcopy=no`: probe file, rename the original away, write anew, drop the
        // backup.
        fs::write(f.path("4913"), "").unwrap();
        fs::remove_file(f.path("4913")).unwrap();
        fs::rename(f.path("m.json"), f.path("m.json~")).unwrap();
        fs::write(f.path("m.json"), format!(r#"{{"v": {v}}}"#)).unwrap();
        fs::remove_file(f.path("m.json~")).unwrap();
        let seen = f.until_content("m.json", &format!(r#"{{"v": {v}}}"#));
        assert!(
            seen.iter()
                .all(|e| e.path() == Some(f.path("m.json").as_path())),
            "{seen:?}"
        );
    }
}

#[test]
fn delete_then_recreate() {
    let f = follow(WatchConfig::default());
    fs::remove_file(f.path("m.json")).unwrap();
    let seen = f.until("the deletion", |e| matches!(e, WatchEvent::Missing { .. }));
    assert_eq!(
        seen,
        vec![WatchEvent::Missing {
            path: f.path("m.json")
        }]
    );
    // The same bytes as before it went missing: still a change for whoever shows it missing.
    fs::write(f.path("m.json"), r#"{"v": 0}"#).unwrap();
    assert!(is_changed(&f.next(), &f.path("m.json"), r#"{"v": 0}"#));
}

#[test]
fn delete_and_recreate_within_the_debounce_is_one_change() {
    let f = follow(WatchConfig::default());
    fs::remove_file(f.path("m.json")).unwrap();
    fs::write(f.path("m.json"), r#"{"v": 5}"#).unwrap();
    let seen = f.until_content("m.json", r#"{"v": 5}"#);
    assert_eq!(seen.len(), 1, "{seen:?}");
}

#[test]
fn a_burst_of_100_writes_ends_in_the_final_content() {
    let f = follow(WatchConfig::default());
    for i in 1..=100 {
        fs::write(f.path("m.json"), format!(r#"{{"v": {i}}}"#)).unwrap();
    }
    let seen = f.until_content("m.json", r#"{"v": 100}"#);
    let after = f.settle();
    assert!(
        about(&after, &f.path("m.json")).is_empty(),
        "nothing after the final content: {after:?}"
    );
    // Far fewer reports than writes: the burst was merged.
    assert!(seen.len() < 20, "{} reports for 100 writes", seen.len());
}

#[test]
fn identical_bytes_are_not_reported() {
    let f = follow(WatchConfig::default());
    fs::write(f.path("m.json"), r#"{"v": 0}"#).unwrap();
    let tmp = f.path("m.json.tmp");
    fs::write(&tmp, r#"{"v": 0}"#).unwrap();
    fs::rename(&tmp, f.path("m.json")).unwrap();
    let after = f.settle();
    assert!(about(&after, &f.path("m.json")).is_empty(), "{after:?}");
}

#[test]
fn invalid_then_valid_versions_both_reach_the_consumer() {
    let f = follow(WatchConfig::default());
    let half = r#"{"tools": [{"name": "a", "inputSch"#;
    fs::write(f.path("m.json"), half).unwrap();
    let bad = f.until_content("m.json", half);
    let bad = changed_text(bad.last().unwrap()).unwrap();
    let err = manifest::load_str(&bad, "m.json", None).unwrap_err();
    assert!(err.to_string().contains("m.json:1:"), "{err}");

    let good = r#"{"type": "object", "properties": {"a": {"type": "string"}}}"#;
    fs::write(f.path("m.json"), good).unwrap();
    let good = f.until_content("m.json", good);
    let loaded = manifest::load_str(&changed_text(good.last().unwrap()).unwrap(), "m.json", None)
        .expect("the good version loads");
    assert!(project_tool(&loaded.tools[0], &Options::default()).is_ok());
}

#[test]
fn payload_folder_files_come_and_go() {
    let f = follow_with(WatchConfig::default(), |dir| {
        fs::write(dir.join("s.json"), "0").unwrap();
        vec![
            Target::payloads(dir.join("m.payloads")),
            Target::file(dir.join("s.json")),
        ]
    });
    assert!(matches!(f.next(), WatchEvent::Changed { .. })); // the sentinel
    let dir = f.path("m.payloads");

    // The folder does not exist yet: a generator creates it and writes a burst of files.
    fs::create_dir(&dir).unwrap();
    for name in ["a.json", "b.jsonl", "notes.md"] {
        fs::write(dir.join(name), name).unwrap();
    }
    f.until_content("m.payloads/a.json", "a.json");
    f.until_content("m.payloads/b.jsonl", "b.jsonl");

    fs::write(dir.join("a.json"), "edited").unwrap();
    f.until_content("m.payloads/a.json", "edited");

    fs::remove_file(dir.join("b.jsonl")).unwrap();
    let gone = dir.join("b.jsonl");
    f.until("b.jsonl missing", |e| {
        *e == WatchEvent::Missing { path: gone.clone() }
    });

    // Regenerated wholesale: the folder is removed, then made again with other files.
    fs::remove_dir_all(&dir).unwrap();
    let gone = dir.join("a.json");
    f.until("a.json missing", |e| {
        *e == WatchEvent::Missing { path: gone.clone() }
    });
    fs::create_dir(&dir).unwrap();
    fs::write(dir.join("c.json"), "c").unwrap();
    f.until_content("m.payloads/c.json", "c");
    // And the new folder is followed too.
    fs::write(dir.join("c.json"), "c2").unwrap();
    let seen = f.until_content("m.payloads/c.json", "c2");
    assert!(
        seen.iter()
            .all(|e| !e.path().unwrap().ends_with("notes.md")),
        "{seen:?}"
    );
}

#[test]
fn a_folder_replaced_within_the_debounce_is_followed_anew() {
    let f = follow_with(WatchConfig::default(), |dir| {
        fs::create_dir(dir.join("p")).unwrap();
        fs::write(dir.join("p/a.json"), "1").unwrap();
        vec![Target::payloads(dir.join("p"))]
    });
    assert!(is_changed(&f.next(), &f.path("p/a.json"), "1"));
    fs::remove_dir_all(f.path("p")).unwrap();
    fs::create_dir(f.path("p")).unwrap();
    fs::write(f.path("p/a.json"), "2").unwrap();
    f.until_content("p/a.json", "2");
    // Only a live watch on the new folder sees this one.
    fs::write(f.path("p/a.json"), "3").unwrap();
    f.until_content("p/a.json", "3");
}

#[test]
fn a_symlinked_manifest_follows_its_target() {
    let f = follow_with(WatchConfig::default(), |dir| {
        fs::create_dir(dir.join("real")).unwrap();
        fs::write(dir.join("real/m.json"), "1").unwrap();
        std::os::unix::fs::symlink(dir.join("real/m.json"), dir.join("link.json")).unwrap();
        vec![Target::file(dir.join("link.json"))]
    });
    assert!(is_changed(&f.next(), &f.path("link.json"), "1"));
    // An editor that resolves the link saves next to the real file.
    let tmp = f.path("real/.m.json.tmp");
    fs::write(&tmp, "2").unwrap();
    fs::rename(&tmp, f.path("real/m.json")).unwrap();
    f.until_content("link.json", "2");
}

#[test]
fn targets_can_be_added_and_removed_while_running() {
    let f = follow(WatchConfig::default());
    fs::write(f.path("late.json"), "1").unwrap();
    f.watcher.add(Target::file(f.path("late.json"))).unwrap();
    assert!(is_changed(&f.next(), &f.path("late.json"), "1"));
    fs::write(f.path("late.json"), "2").unwrap();
    f.until_content("late.json", "2");

    assert!(f.watcher.remove(&f.path("m.json")));
    assert!(!f.watcher.remove(&f.path("m.json")));
    fs::write(f.path("m.json"), r#"{"v": 9}"#).unwrap();
    let after = f.settle();
    assert!(about(&after, &f.path("m.json")).is_empty(), "{after:?}");
}

#[test]
fn dropping_the_watcher_stops_it_and_releases_the_sink() {
    let f = follow(WatchConfig::default());
    let Follow {
        dir, rx, watcher, ..
    } = f;
    drop(watcher);
    fs::write(dir.path().join("m.json"), "after").unwrap();
    // The sink held the only sender: once it is dropped, the channel disconnects.
    match rx.recv_timeout(DEADLINE) {
        Ok(e) => panic!("event after drop: {e:?}"),
        Err(RecvTimeoutError::Disconnected) => {}
        Err(RecvTimeoutError::Timeout) => panic!("the sink was not released"),
    }
}

#[test]
fn polling_follows_saves_too() {
    let f = follow(WatchConfig {
        poll: Some(Duration::from_millis(50)),
        ..WatchConfig::default()
    });
    // Two saves within one second: the poller's mtimes are whole seconds.
    fs::write(f.path("m.json"), r#"{"v": 1}"#).unwrap();
    f.until_content("m.json", r#"{"v": 1}"#);
    let tmp = f.path(".m.json.tmp");
    fs::write(&tmp, r#"{"v": 2}"#).unwrap();
    fs::rename(&tmp, f.path("m.json")).unwrap();
    f.until_content("m.json", r#"{"v": 2}"#);
    fs::remove_file(f.path("m.json")).unwrap();
    let path = f.path("m.json");
    f.until("the deletion", |e| {
        *e == WatchEvent::Missing { path: path.clone() }
    });
    fs::write(f.path("m.json"), r#"{"v": 3}"#).unwrap();
    f.until_content("m.json", r#"{"v": 3}"#);
}

#[test]
fn a_debounce_too_short_is_refused() {
    let err = Watcher::start(
        [],
        WatchConfig {
            debounce: Duration::ZERO,
            poll: None,
        },
        |_| {},
    )
    .unwrap_err();
    assert!(matches!(err, WatchError::Config(_)), "{err:?}");
}

// ---------------------------------------------------------------------------------------------
// `schemalens project --watch`

/// The running binary, killed when the test ends however it ends.
struct Running {
    child: Child,
    docs: Receiver<(Instant, String)>,
    stderr: Receiver<String>,
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Running {
    fn spawn(args: &[&str]) -> Running {
        let mut child = Command::new(env!("CARGO_BIN_EXE_schemalens"))
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the binary starts");
        let stdout = child.stdout.take().unwrap();
        let stderr = child.stderr.take().unwrap();
        let (doc_tx, docs) = mpsc::channel();
        std::thread::spawn(move || {
            // Documents are pretty-printed objects: each ends with a `}` line at column 0.
            let mut doc = String::new();
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                let end = line == "}";
                doc.push_str(&line);
                doc.push('\n');
                if end
                    && doc_tx
                        .send((Instant::now(), std::mem::take(&mut doc)))
                        .is_err()
                {
                    return;
                }
            }
        });
        let (err_tx, stderr_rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { return };
                if err_tx.send(line).is_err() {
                    return;
                }
            }
        });
        Running {
            child,
            docs,
            stderr: stderr_rx,
        }
    }

    fn doc(&self) -> Value {
        let (_, text) = self.docs.recv_timeout(DEADLINE).unwrap_or_else(|_| {
            let err: Vec<String> = self.stderr.try_iter().collect();
            panic!("no document within {DEADLINE:?}; stderr: {err:?}")
        });
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
    }

    fn stderr_line(&self, want: &str) -> String {
        let start = Instant::now();
        loop {
            match self
                .stderr
                .recv_timeout(DEADLINE.saturating_sub(start.elapsed()))
            {
                Ok(line) if line.contains(want) => return line,
                Ok(_) => {}
                Err(_) => panic!("no stderr line with {want:?} within {DEADLINE:?}"),
            }
        }
    }
}

fn schema(props: Value) -> Value {
    json!({"type": "object", "properties": props})
}

fn check_project_watch(extra: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tool.json");
    let v1 = schema(json!({"a": {"oneOf": [{"type": "string"}, {"type": "integer"}]}}));
    fs::write(&file, v1.to_string()).unwrap();
    let mut args = vec!["project", "--watch"];
    args.extend_from_slice(extra);
    let file_arg = file.to_str().unwrap();
    args.push(file_arg);
    let run = Running::spawn(&args);

    let first = run.doc();
    assert_eq!(first["properties"]["a"]["anyOf"][1]["type"], "integer");

    // Half-saved: reported on stderr, nothing printed, still running.
    fs::write(&file, r#"{"type": "object", "prope"#).unwrap();
    let line = run.stderr_line("error:");
    assert!(line.contains("tool.json:1:"), "{line}");

    let v2 = schema(json!({"b": {"type": "boolean"}}));
    let tmp = dir.path().join(".tool.json.tmp");
    fs::write(&tmp, v2.to_string()).unwrap();
    fs::rename(&tmp, &file).unwrap();
    let second = run.doc();
    let once = Command::new(env!("CARGO_BIN_EXE_schemalens"))
        .args(["project", file_arg])
        .output()
        .unwrap();
    let once: Value = serde_json::from_slice(&once.stdout).unwrap();
    assert_eq!(
        second, once,
        "the second document is what `project` prints for the new version"
    );
    assert!(second["properties"]["b"].is_object(), "{second}");
}

#[test]
fn project_watch_reprints_on_each_good_save() {
    check_project_watch(&[]);
}

#[test]
fn project_watch_with_polling() {
    check_project_watch(&["--poll=50"]);
}

/// Exit code and stderr of a run that must end by itself.
fn run_to_end(args: &[&str]) -> (Option<i32>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_schemalens"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        let _ = tx.send(text);
    });
    match rx.recv_timeout(DEADLINE) {
        Ok(text) => (child.wait().unwrap().code(), text),
        Err(_) => {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{args:?} kept running");
        }
    }
}

#[test]
fn project_watch_refuses_stdin_and_missing_files() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("m.json");
    for (file, want) in [
        ("-", "standard input"),
        ("/nonexistent/m.json", "/nonexistent"),
        (missing.to_str().unwrap(), "no such file"),
    ] {
        let (code, stderr) = run_to_end(&["project", "--watch", file]);
        assert_eq!(code, Some(2), "{file}: {stderr}");
        assert!(stderr.contains(want), "{file}: {stderr}");
    }
}

// ---------------------------------------------------------------------------------------------
// Latency: save → reprojected result, for a 1 MB manifest.

/// Which tools an edit changes.
#[derive(Clone, Copy)]
enum Edit {
    /// One tool's schema, as a hand edit does.
    OneTool,
    /// Every tool's schema, as a regeneration from code can.
    EveryTool,
}

/// An MCP `tools/list` result of about 1 MB: tools with discriminated unions in `$defs`,
/// nullable optionals, enums and nested objects, so that projection does real work. `version`
/// is written into the schema description of the tools `edit` names.
fn big_manifest(version: usize, edit: Edit) -> String {
    let tools: Vec<Value> = (0..220)
        .map(|i| {
            let edited = matches!(edit, Edit::EveryTool) || i == 0;
            let v = if edited { version } else { 0 };
            json!({
                "name": format!("tool_{i:03}"),
                "description": format!("Tool {i}: manages records of kind {i} for the account."),
                "inputSchema": {
                    "type": "object",
                    "description": format!("Arguments of tool {i}, version {v}."),
                    "$defs": {
                        "Card": {
                            "type": "object",
                            "additionalProperties": false,
                            "properties": {
                                "kind": {"const": "card", "type": "string"},
                                "number": {"type": "string", "pattern": "^[0-9]{16}$"},
                                "expiry": {"type": "string", "description": "MM/YY"},
                                "holder": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": null}
                            },
                            "required": ["kind", "number", "expiry"]
                        },
                        "Transfer": {
                            "type": "object",
                            "additionalProperties": false,
                            "properties": {
                                "kind": {"const": "transfer", "type": "string"},
                                "iban": {"type": "string"},
                                "reference": {"anyOf": [{"type": "string", "maxLength": 140}, {"type": "null"}], "default": null}
                            },
                            "required": ["kind", "iban"]
                        },
                        "Address": {
                            "type": "object",
                            "properties": {
                                "street": {"type": "string"},
                                "city": {"type": "string"},
                                "postcode": {"type": "string"},
                                "country": {"enum": ["DE", "FR", "GB", "NL", "US", "JP"], "type": "string"}
                            },
                            "required": ["street", "city", "country"]
                        },
                        "Item": {
                            "type": "object",
                            "properties": {
                                "sku": {"type": "string"},
                                "quantity": {"type": "integer", "minimum": 1},
                                "price": {"type": "number", "exclusiveMinimum": 0},
                                "note": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": null}
                            },
                            "required": ["sku", "quantity"]
                        }
                    },
                    "properties": {
                        "customer": {"type": "string", "description": "Customer id."},
                        "payment": {
                            "oneOf": [{"$ref": "#/$defs/Card"}, {"$ref": "#/$defs/Transfer"}],
                            "discriminator": {"propertyName": "kind"}
                        },
                        "shipping": {"anyOf": [{"$ref": "#/$defs/Address"}, {"type": "null"}], "default": null},
                        "billing": {"$ref": "#/$defs/Address"},
                        "items": {"type": "array", "items": {"$ref": "#/$defs/Item"}, "minItems": 1},
                        "priority": {"enum": ["low", "normal", "high"], "default": "normal"},
                        "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true}
                    },
                    "required": ["customer", "payment", "items"]
                }
            })
        })
        .collect();
    serde_json::to_string_pretty(&json!({"tools": tools})).unwrap()
}

fn summary(label: &str, mut ms: Vec<f64>) {
    ms.sort_by(f64::total_cmp);
    let at = |q: f64| ms[((ms.len() - 1) as f64 * q).round() as usize];
    println!(
        "{label:<62} n={:2}  min {:6.1}  median {:6.1}  p90 {:6.1}  max {:6.1} ms",
        ms.len(),
        at(0.0),
        at(0.5),
        at(0.9),
        at(1.0)
    );
}

const SAVES: usize = 20;

/// What a front end does with a new version: load it and reproject it, reusing the projections
/// of unchanged tools. Returns the number of tools.
fn reproject(content: &[u8], cache: &mut ProjectionCache) -> usize {
    let manifest = manifest::load_reader(content, "big.json", None).unwrap();
    let options = Options::default();
    for tool in &manifest.tools {
        cache.project(tool, &options).unwrap();
    }
    cache.next_version();
    manifest.tools.len()
}

/// Where the time of one full reprojection goes (no cache: every tool projected).
fn breakdown() {
    let text = big_manifest(0, Edit::OneTool);
    let (mut read, mut load, mut project, mut write) = (vec![], vec![], vec![], vec![]);
    let ms = |since: Instant| since.elapsed().as_secs_f64() * 1e3;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("big.json");
    fs::write(&file, &text).unwrap();
    for _ in 0..SAVES {
        let t = Instant::now();
        let bytes = fs::read(&file).unwrap();
        let _ = content_hash(&bytes);
        read.push(ms(t));
        let t = Instant::now();
        let manifest = manifest::load_reader(bytes.as_slice(), "big.json", None).unwrap();
        load.push(ms(t));
        let t = Instant::now();
        let options = Options::default();
        let replacements: Vec<(usize, Value)> = manifest
            .tools
            .iter()
            .enumerate()
            .map(|(i, tool)| (i, project_tool(tool, &options).unwrap().schema))
            .collect();
        project.push(ms(t));
        let t = Instant::now();
        let out = serde_json::to_string_pretty(&manifest.with_schemas(&replacements)).unwrap();
        write.push(ms(t));
        assert!(!out.is_empty());
    }
    summary("  read + hash", read);
    summary("  load (parse, find tools)", load);
    summary("  project all 220 tools", project);
    summary("  write back + serialize (project --watch only)", write);
}

fn measure_library(config: WatchConfig, edit: Edit, label: &str) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("big.json");
    fs::write(&file, big_manifest(0, edit)).unwrap();
    let (tx, rx) = mpsc::channel();
    let _watcher = Watcher::start([Target::file(&file)], config, move |e| {
        let _ = tx.send((Instant::now(), e));
    })
    .unwrap();
    let mut cache = ProjectionCache::new();
    let (_, initial) = rx.recv_timeout(DEADLINE).unwrap();
    let WatchEvent::Changed { content, .. } = initial else {
        panic!("{initial:?}")
    };
    reproject(&content, &mut cache);
    let (mut delivered, mut reprojected) = (Vec::new(), Vec::new());
    let beyond = |d: Duration| (d.as_secs_f64() - config.debounce.as_secs_f64()) * 1e3;
    for v in 1..=SAVES {
        let text = big_manifest(v, edit);
        quiet(config);
        fs::write(&file, &text).unwrap();
        let saved = Instant::now();
        let (at, event) = rx.recv_timeout(DEADLINE).unwrap();
        let WatchEvent::Changed { content, .. } = event else {
            panic!("{event:?}")
        };
        assert_eq!(content, text.as_bytes());
        assert_eq!(reproject(&content, &mut cache), 220);
        delivered.push(beyond(at - saved));
        reprojected.push(beyond(saved.elapsed()));
    }
    summary(&format!("{label}: file read and delivered"), delivered);
    summary(&format!("{label}: reprojected"), reprojected);
}

fn measure_binary(extra: &[&str], edit: Edit, label: &str) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("big.json");
    fs::write(&file, big_manifest(0, edit)).unwrap();
    let mut args = vec!["project", "--watch"];
    args.extend_from_slice(extra);
    args.push(file.to_str().unwrap());
    let run = Running::spawn(&args);
    run.docs.recv_timeout(DEADLINE).expect("initial document");
    let mut printed = Vec::new();
    for v in 1..=SAVES {
        let text = big_manifest(v, edit);
        quiet(WatchConfig::default());
        fs::write(&file, text).unwrap();
        let saved = Instant::now();
        let (at, doc) = run
            .docs
            .recv_timeout(DEADLINE)
            .expect("a document per save");
        assert!(doc.contains(&format!("Arguments of tool 0, version {v}.")));
        printed.push((at - saved).as_secs_f64() * 1e3 - 200.0);
    }
    summary(&format!("{label}: document printed"), printed);
}

/// Lets the events of the previous save drain: a late one would otherwise read the next save
/// early and show a latency below the debounce delay. Not an assertion, only a measurement.
fn quiet(config: WatchConfig) {
    std::thread::sleep(config.debounce + config.poll.unwrap_or_default() * 2);
}

/// Milliseconds beyond the 200 ms debounce, from the end of the write to the result.
#[test]
#[ignore = "measurement: cargo test --release --test watch -- --ignored --nocapture"]
fn latency_of_a_1mb_manifest() {
    let text = big_manifest(0, Edit::OneTool);
    assert!(text.len() > 1_000_000, "{} bytes", text.len());
    println!(
        "manifest: {:.2} MB, 220 tools; figures in ms beyond the 200 ms debounce",
        text.len() as f64 / 1e6
    );
    println!("one full reprojection, without the cache:");
    breakdown();
    let native = WatchConfig::default();
    let poll = WatchConfig {
        poll: Some(Duration::from_millis(100)),
        ..WatchConfig::default()
    };
    for (edit, what) in [
        (Edit::OneTool, "one tool edited"),
        (Edit::EveryTool, "every tool edited"),
    ] {
        println!("{what}:");
        measure_library(native, edit, "  library, native events");
        measure_library(poll, edit, "  library, poll 100 ms");
        measure_binary(&[], edit, "  project --watch");
    }
}
