//! Saved versions of the files, parsed and compared with the version shown off the event loop:
//! a save of a manifest of a few MB takes longer to parse and compare than a frame may take,
//! and keys must keep answering meanwhile.
//!
//! The watcher's thread has already read the bytes and hashed them; a [`SaveReader`] thread
//! parses them, compares the new version with the one shown (the whole document, then tool by
//! tool) and lists the payload files beside it. The event loop only receives the result.
//! A newer save of the same file replaces one still waiting; one being parsed runs to its end
//! and its result is dropped by the app (see `Reading::generation`).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::Value;

use schemalens::manifest::{self, Manifest};
use schemalens::validate::PayloadFile;

use super::payloads;

/// A saved version to read: its bytes and what it is compared with.
pub struct SaveJob {
    pub source: usize,
    /// The newest asked for this source wins (see `App::receive_save`).
    pub generation: u64,
    /// The file's name as errors show it.
    pub origin: String,
    pub bytes: Vec<u8>,
    pub hash: u64,
    /// When the watcher reported it: its change marks expire from then.
    pub at: Instant,
    /// The version shown, sharing the app's document and schemas; `None` when the file never
    /// loaded (every tool of the save is then new).
    pub shown: Option<Manifest>,
    /// Where the file's payloads are, listed for the new version's tools.
    pub payload_folder: Option<PathBuf>,
}

/// A saved version, read.
pub struct ReadSave {
    pub source: usize,
    pub generation: u64,
    pub hash: u64,
    pub at: Instant,
    /// The document it was compared with, to know the comparison still holds when it arrives.
    pub compared_with: Option<Arc<Value>>,
    pub outcome: Result<Parsed, String>,
    pub took: Duration,
}

/// A saved version that parsed.
pub struct Parsed {
    /// The tools whose schema equals the shown version's share its `Arc`, so that everything
    /// keyed by a schema's address (the projection cache) knows them without comparing.
    pub manifest: Manifest,
    /// The same document as the one shown: nothing to apply.
    pub same: bool,
    /// Tools that the shown version lacks with the same name, schema and dialect.
    pub changed_tools: Vec<String>,
    pub payload_files: Vec<PayloadFile>,
}

/// Parses `job`'s bytes and compares them with the version shown: the work a save costs
/// before anything is projected.
pub fn read(job: SaveJob) -> ReadSave {
    let start = Instant::now();
    let SaveJob {
        source,
        generation,
        origin,
        bytes,
        hash,
        at,
        shown,
        payload_folder,
    } = job;
    let outcome = manifest::load_reader(bytes.as_slice(), &origin, None)
        .map(|m| {
            let mut parsed = compare(shown.as_ref(), m);
            if !parsed.same {
                parsed.payload_files = payloads::discover_in(payload_folder, &parsed.manifest);
            }
            parsed
        })
        .map_err(|e| e.to_string());
    ReadSave {
        source,
        generation,
        hash,
        at,
        compared_with: shown.map(|m| m.document),
        outcome,
        took: start.elapsed(),
    }
}

/// `new` compared with `shown`: whether it is the same document, which tools changed, and
/// `new` with every unchanged tool's schema replaced by the shown one's (held once).
pub fn compare(shown: Option<&Manifest>, mut new: Manifest) -> Parsed {
    let Some(old) = shown else {
        return Parsed {
            changed_tools: new.tools.iter().map(|t| t.name.clone()).collect(),
            manifest: new,
            same: false,
            payload_files: Vec::new(),
        };
    };
    if old.document == new.document {
        return Parsed {
            manifest: new,
            same: true,
            changed_tools: Vec::new(),
            payload_files: Vec::new(),
        };
    }
    let mut by_name: HashMap<&str, Vec<&manifest::Tool>> = HashMap::new();
    for tool in &old.tools {
        by_name.entry(tool.name.as_str()).or_default().push(tool);
    }
    let mut changed_tools = Vec::new();
    for tool in &mut new.tools {
        // A bare schema's tool is the document, which was just found to differ.
        let is_document = Arc::ptr_eq(&tool.schema, &new.document);
        let same = by_name.get(tool.name.as_str()).and_then(|olds| {
            olds.iter()
                .find(|o| !is_document && o.dialect == tool.dialect && *o.schema == *tool.schema)
        });
        match same {
            Some(old_tool) => tool.schema = Arc::clone(&old_tool.schema),
            None => changed_tools.push(tool.name.clone()),
        }
    }
    Parsed {
        manifest: new,
        same: false,
        changed_tools,
        payload_files: Vec::new(),
    }
}

#[derive(Default)]
struct Queue {
    /// At most one job per source: a newer save replaces one still waiting.
    jobs: Vec<SaveJob>,
    stop: bool,
}

struct Shared {
    queue: Mutex<Queue>,
    wake: Condvar,
}

/// One thread that reads the saves submitted, oldest source first; results come back on a
/// channel and `notify` wakes the event loop after each.
pub struct SaveReader {
    shared: Arc<Shared>,
    results: Receiver<ReadSave>,
    thread: Option<JoinHandle<()>>,
    /// A reader without a thread, which tests drive one job at a time (`run_one`).
    #[cfg_attr(not(test), allow(dead_code))]
    by_hand: Option<Sender<ReadSave>>,
}

impl SaveReader {
    /// `None` when no thread could be started (the app then reads saves itself).
    pub fn start(notify: Arc<dyn Fn() + Send + Sync>) -> Option<SaveReader> {
        let shared = Arc::new(Shared {
            queue: Mutex::default(),
            wake: Condvar::new(),
        });
        let (tx, results) = mpsc::channel();
        let thread = {
            let shared = shared.clone();
            std::thread::Builder::new()
                .name("schemalens-save".to_owned())
                .spawn(move || work(&shared, &tx, &*notify))
                .ok()?
        };
        Some(SaveReader {
            shared,
            results,
            thread: Some(thread),
            by_hand: None,
        })
    }

    /// A reader whose jobs wait until [`run_one`](Self::run_one) reads them.
    #[cfg(test)]
    pub fn by_hand() -> SaveReader {
        let (tx, results) = mpsc::channel();
        SaveReader {
            shared: Arc::new(Shared {
                queue: Mutex::default(),
                wake: Condvar::new(),
            }),
            results,
            thread: None,
            by_hand: Some(tx),
        }
    }

    /// Reads the oldest job waiting, if there is one; its generation.
    #[cfg(test)]
    pub fn run_one(&self) -> Option<u64> {
        let job = {
            let mut queue = lock(&self.shared.queue);
            (!queue.jobs.is_empty()).then(|| queue.jobs.remove(0))?
        };
        let generation = job.generation;
        self.by_hand.as_ref()?.send(read(job)).ok()?;
        Some(generation)
    }

    /// Asks for `job` to be read, replacing a job of the same source still waiting.
    pub fn submit(&self, job: SaveJob) {
        let mut queue = lock(&self.shared.queue);
        queue.jobs.retain(|j| j.source != job.source);
        queue.jobs.push(job);
        self.shared.wake.notify_one();
    }

    /// Drops the job of `source` still waiting, if any.
    pub fn withdraw(&self, source: usize) {
        lock(&self.shared.queue).jobs.retain(|j| j.source != source);
    }

    pub fn try_result(&self) -> Option<ReadSave> {
        self.results.try_recv().ok()
    }

    pub fn wait_result(&self, timeout: Duration) -> Option<ReadSave> {
        self.results.recv_timeout(timeout).ok()
    }
}

impl Drop for SaveReader {
    fn drop(&mut self) {
        lock(&self.shared.queue).stop = true;
        self.shared.wake.notify_one();
        // Not joined: a parse in progress ends on its own, and the process is usually quitting.
        self.thread.take();
    }
}

fn lock(queue: &Mutex<Queue>) -> MutexGuard<'_, Queue> {
    queue.lock().unwrap_or_else(|e| e.into_inner())
}

fn work(shared: &Shared, results: &Sender<ReadSave>, notify: &(dyn Fn() + Send + Sync)) {
    loop {
        let job = {
            let mut queue = lock(&shared.queue);
            loop {
                if queue.stop {
                    return;
                }
                if !queue.jobs.is_empty() {
                    break queue.jobs.remove(0);
                }
                queue = shared.wake.wait(queue).unwrap_or_else(|e| e.into_inner());
            }
        };
        if results.send(read(job)).is_err() {
            return;
        }
        notify();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest(text: &str) -> Manifest {
        manifest::load_str(text, "m.json", None).unwrap()
    }

    const V1: &str = r#"{"tools": [
        {"name": "a", "inputSchema": {"type": "object", "properties": {"x": {"type": "string"}}}},
        {"name": "b", "inputSchema": {"type": "object"}}
    ]}"#;

    #[test]
    fn an_unchanged_tool_shares_the_shown_schema_and_a_changed_one_is_listed() {
        let shown = manifest(V1);
        let saved = V1.replace(r#""type": "string""#, r#""type": "integer""#);
        let parsed = compare(Some(&shown), manifest(&saved));
        assert!(!parsed.same);
        assert_eq!(parsed.changed_tools, ["a"]);
        let [a, b] = [&parsed.manifest.tools[0], &parsed.manifest.tools[1]];
        assert!(!Arc::ptr_eq(&a.schema, &shown.tools[0].schema));
        assert_eq!(
            a.schema.pointer("/properties/x/type"),
            Some(&"integer".into())
        );
        assert!(Arc::ptr_eq(&b.schema, &shown.tools[1].schema));
    }

    #[test]
    fn the_same_document_is_same_and_a_file_never_shown_has_every_tool_new() {
        let shown = manifest(V1);
        assert!(compare(Some(&shown), manifest(V1)).same);
        let fresh = compare(None, manifest(V1));
        assert!(!fresh.same);
        assert_eq!(fresh.changed_tools, ["a", "b"]);
    }

    #[test]
    fn a_bare_schema_changed_anywhere_is_its_tool_changed() {
        let shown = manifest(r#"{"title": "t", "type": "object"}"#);
        let parsed = compare(
            Some(&shown),
            manifest(r#"{"title": "t", "type": "object", "description": "d"}"#),
        );
        assert_eq!(parsed.changed_tools, ["t"]);
        let tool = &parsed.manifest.tools[0];
        assert!(Arc::ptr_eq(&tool.schema, &parsed.manifest.document));
    }

    #[test]
    fn invalid_json_says_where() {
        let job = SaveJob {
            source: 0,
            generation: 1,
            origin: "m.json".to_owned(),
            bytes: b"{\n  \"tools\": [,\n".to_vec(),
            hash: 7,
            at: Instant::now(),
            shown: Some(manifest(V1)),
            payload_folder: None,
        };
        let read = read(job);
        let Err(message) = read.outcome else {
            panic!("invalid JSON parsed")
        };
        assert!(message.starts_with("m.json:2:"), "{message}");
        assert!(read.compared_with.is_some());
    }

    #[test]
    fn a_newer_save_of_the_same_file_replaces_the_one_waiting() {
        let reader = SaveReader::by_hand();
        let job = |source, generation| SaveJob {
            source,
            generation,
            origin: "m.json".to_owned(),
            bytes: V1.as_bytes().to_vec(),
            hash: generation,
            at: Instant::now(),
            shown: None,
            payload_folder: None,
        };
        reader.submit(job(0, 1));
        reader.submit(job(1, 2));
        reader.submit(job(0, 3));
        assert_eq!(reader.run_one(), Some(2));
        assert_eq!(reader.run_one(), Some(3));
        assert_eq!(reader.run_one(), None);
        let read: Vec<u64> = std::iter::from_fn(|| reader.try_result())
            .map(|r| r.generation)
            .collect();
        assert_eq!(read, [2, 3]);
    }
}
