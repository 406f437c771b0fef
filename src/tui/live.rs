//! Live reprojection: the watcher's reports applied to the [`App`]. A new version of a
//! manifest is loaded, the shown tool reprojected (through the projection cache) and its trees
//! rebuilt where the user left them; what changed is marked for a while. A version that cannot
//! be used leaves the last good one on screen, with the reason beside it.

use std::collections::{HashMap, HashSet};
use std::hash::{DefaultHasher, Hasher};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::Value;
use std::sync::Arc;

use schemalens::manifest::Manifest;
use schemalens::mcp::McpEvent;
use schemalens::validate::discover::tool_subdir;
use schemalens::watch::{Target, WatchConfig, WatchEvent};

use super::app::{After, App, Entry, Kept, ToolView, entries_of, update};
use super::keys::Action;
use super::payloads;
use super::projecting::{Computed, MarksJob};
use super::saving::{self, Parsed, ReadSave, SaveJob, SaveReader};
use super::tree::{Node, NodeId, SchemaTree, Side};

/// How long the marks of a save stay when no other save replaces them: long enough to look
/// from the editor to the inspector, short enough that old marks do not read as news.
pub const CHANGE_MARKS_FOR: Duration = Duration::from_secs(30);

/// Everything that reaches `update`: the user's actions, the watcher's reports, and the clock
/// (for marks that expire).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Msg {
    Action(Action),
    Watch(WatchEvent),
    Tick(Instant),
    /// An event of the live server's session with this generation (see `server`).
    Mcp(u64, McpEvent),
}

/// Applies one message: the entry point of the event loop.
pub fn handle(app: &mut App, msg: Msg) {
    match msg {
        Msg::Action(action) => update(app, action),
        Msg::Watch(event) => app.on_watch(event, Instant::now()),
        Msg::Tick(now) => app.tick(now),
        Msg::Mcp(generation, event) => app.on_mcp(generation, event, Instant::now()),
    }
}

/// How the files are followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WatchMode {
    /// `--no-watch`, or standard input only.
    #[default]
    Off,
    Events,
    Polling(Duration),
}

impl WatchMode {
    pub fn of(config: Option<WatchConfig>) -> WatchMode {
        match config {
            None => WatchMode::Off,
            Some(WatchConfig { poll: Some(p), .. }) => WatchMode::Polling(p),
            Some(_) => WatchMode::Events,
        }
    }
}

/// Why the newest version of a manifest is not the one shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stale {
    /// Unreadable, invalid JSON (with file:line:col), an unknown shape, or the shown tool
    /// no longer projects.
    Invalid(String),
    /// Deleted, or renamed away; it comes back when the file does.
    Missing,
}

impl Stale {
    pub fn describe(&self, path: &str) -> String {
        match self {
            Stale::Invalid(message) => message.clone(),
            Stale::Missing => format!("{path}: missing (deleted or renamed)"),
        }
    }
}

/// The watcher's side of the app.
#[derive(Debug, Default)]
pub struct Live {
    pub mode: WatchMode,
    /// The watcher failed as a whole (could not start, platform error); files still load.
    pub error: Option<String>,
    /// Payload texts as the watcher read them, so that re-checking reads nothing itself.
    pub payload_texts: HashMap<PathBuf, Vec<u8>>,
    /// When the last save was applied; its marks expire [`CHANGE_MARKS_FOR`] later.
    pub marked_at: Option<Instant>,
    /// Tools (source, name) that the last save changed, added or whose schema differs.
    pub changed_tools: HashSet<(usize, String)>,
    /// A save whose check was superseded by another request: checked again after it.
    pub(super) deferred: Option<Box<Staged>>,
    /// Saves being parsed and compared off the loop, by source: only the newest is wanted.
    pub reading: HashMap<usize, Reading>,
    /// The generation of the newest save read.
    read_generation: u64,
}

/// A save handed to the [`SaveReader`], not back yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reading {
    generation: u64,
    hash: u64,
    pub started: Instant,
    /// How long it has been read at the last tick: what the status bar shows.
    pub elapsed: Duration,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    Added,
    Changed,
    /// Something below this node was removed.
    Removed,
}

impl Change {
    pub fn glyph(self) -> &'static str {
        match self {
            Change::Added => "+",
            Change::Changed => "Δ",
            Change::Removed => "-",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Change::Added => "added in the last save",
            Change::Changed => "changed in the last save",
            Change::Removed => "lost children in the last save",
        }
    }
}

/// What one save changed in one tree.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PaneChanges {
    pub marks: HashMap<NodeId, Change>,
    /// Removed pointers, under the surviving node they were removed from.
    pub removed: HashMap<NodeId, Vec<String>>,
    /// Added and removed subtrees count once each, changed nodes each.
    pub count: usize,
}

/// A node's own content: its row and its keywords, without its subschemas (their changes
/// are their own), so that an edit marks the node it was made in.
fn signature(node: &Node, schema: Option<&Value>) -> u64 {
    let mut h = DefaultHasher::new();
    for part in [&node.name, &node.kind, &node.constraints] {
        h.write(part.as_bytes());
        h.write_u8(0);
    }
    h.write_u8(node.required as u8);
    match schema {
        Some(object @ Value::Object(map)) => {
            // The node itself, not a copy: a copy per node is the whole subtree each time.
            let kids: HashSet<&str> = schemalens::schema::children(object)
                .iter()
                .map(|c| c.keyword.name)
                .collect();
            for (key, value) in map {
                if !kids.contains(key.as_str()) {
                    h.write(key.as_bytes());
                    h.write(value.to_string().as_bytes());
                }
            }
        }
        Some(other) => h.write(other.to_string().as_bytes()),
        None => {}
    }
    h.finish()
}

/// Marks the nodes of `new` that differ from `old`, by pointer.
pub fn diff(
    old: &SchemaTree,
    old_schema: &Value,
    new: &SchemaTree,
    new_schema: &Value,
) -> PaneChanges {
    let before: HashMap<&str, u64> = old
        .nodes
        .iter()
        .map(|n| (&*n.pointer, signature(n, old_schema.pointer(&n.pointer))))
        .collect();
    let mut out = PaneChanges::default();
    for (id, node) in new.nodes.iter().enumerate() {
        let id = id as NodeId;
        match before.get(&*node.pointer) {
            None => {
                out.marks.insert(id, Change::Added);
                let parent_added = node
                    .parent
                    .is_some_and(|p| out.marks.get(&p) == Some(&Change::Added));
                if !parent_added {
                    out.count += 1;
                }
            }
            Some(&sig) if sig != signature(node, new_schema.pointer(&node.pointer)) => {
                out.marks.insert(id, Change::Changed);
                out.count += 1;
            }
            Some(_) => {}
        }
    }
    for node in &old.nodes {
        if new.find(&node.pointer).is_some() {
            continue;
        }
        // Only the top of a removed subtree: its parent is still there.
        let Some(anchor) = node.parent.and_then(|p| new.find(&old.node(p).pointer)) else {
            continue;
        };
        out.removed
            .entry(anchor)
            .or_default()
            .push(node.pointer.to_string());
        out.marks.entry(anchor).or_insert(Change::Removed);
        out.count += 1;
    }
    out
}

/// What a save changed in each tree: the trees `old` of schemas `old_schemas` (the tool's,
/// and the projection's if it projected) against the new ones. Computed by the worker for a
/// save of the shown tool; here when its view was not projected beforehand.
pub fn changes_between(
    old: [&SchemaTree; 2],
    old_schemas: [Option<&Value>; 2],
    new: [&SchemaTree; 2],
    new_schemas: [Option<&Value>; 2],
) -> [PaneChanges; 2] {
    let pane = |i: usize| match (old_schemas[i], new_schemas[i]) {
        (Some(a), Some(b)) => diff(old[i], a, new[i], b),
        _ => PaneChanges::default(),
    };
    [pane(0), pane(1)]
}

/// A tool list row, recognisable across versions of its file.
#[derive(Debug, Clone, PartialEq, Eq)]
enum EntryKey {
    Tool {
        source: usize,
        index: usize,
        name: String,
    },
    Problem {
        source: usize,
    },
}

fn find_tool(m: &Manifest, name: &str, index: usize) -> Option<usize> {
    if m.tools.get(index).is_some_and(|t| t.name == name) {
        return Some(index);
    }
    m.tools.iter().position(|t| t.name == name)
}

impl App {
    fn entry_key(&self, entry: usize) -> Option<EntryKey> {
        Some(match *self.entries.get(entry)? {
            Entry::Tool { source, tool } => EntryKey::Tool {
                source,
                index: tool,
                name: self.tool(entry)?.1.name.clone(),
            },
            Entry::Problem { source } => EntryKey::Problem { source },
        })
    }

    /// The row `key` names now: the same tool by name, else the one at its place (a rename),
    /// else the file's first row.
    fn find_entry(&self, key: &EntryKey) -> Option<usize> {
        let (source, tool) = match key {
            EntryKey::Tool {
                source,
                index,
                name,
            } => {
                let m = self.sources.get(*source)?.manifest.as_ref().ok();
                let count = m.map_or(0, |m| m.tools.len());
                let tool = m
                    .and_then(|m| find_tool(m, name, *index))
                    .or_else(|| (count > 0).then(|| (*index).min(count - 1)));
                (*source, tool)
            }
            EntryKey::Problem { source } => (*source, None),
        };
        self.entries.iter().position(|e| match (*e, tool) {
            (Entry::Tool { source: s, tool: t }, Some(want)) => s == source && t == want,
            (Entry::Tool { source: s, .. }, None) | (Entry::Problem { source: s }, _) => {
                s == source
            }
        })
    }

    fn source_of_file(&self, path: &Path) -> Option<usize> {
        self.sources
            .iter()
            .position(|s| s.file.as_deref() == Some(path))
    }

    /// The source whose payload folder (or one of its tool subfolders) holds `path`.
    fn source_of_payload(&self, path: &Path) -> Option<usize> {
        let parent = path.parent()?;
        self.sources.iter().position(|s| {
            let Some(dir) = s.payload_folder() else {
                return false;
            };
            parent == dir || parent.parent() == Some(dir.as_path())
        })
    }

    /// Everything to follow: each manifest, its payload folder and the tools' subfolders.
    pub fn watch_targets(&self) -> Vec<Target> {
        let mut out = Vec::new();
        for source in &self.sources {
            if let Some(file) = &source.file {
                out.push(Target::file(file));
            } else if source.payload_dir.is_none() {
                continue;
            }
            let Some(dir) = source.payload_folder() else {
                continue;
            };
            if let Ok(m) = &source.manifest {
                out.extend(
                    m.tools
                        .iter()
                        .filter_map(|t| tool_subdir(&dir, &t.name))
                        .map(Target::payloads),
                );
            }
            out.push(Target::payloads(dir));
        }
        out
    }

    /// When the marks of the last save expire, for the event loop's timer.
    pub fn deadline(&self) -> Option<Instant> {
        self.live.marked_at.map(|at| at + CHANGE_MARKS_FOR)
    }

    pub(super) fn tick(&mut self, now: Instant) {
        self.tick_projection(now);
        if self.deadline().is_some_and(|d| now >= d) {
            self.clear_marks();
        }
    }

    pub(super) fn clear_marks(&mut self) {
        self.live.marked_at = None;
        self.live.changed_tools.clear();
        if let Some(view) = &mut self.view {
            for pane in &mut view.panes {
                pane.changes = PaneChanges::default();
            }
        }
    }

    /// The count of changes the status bar shows: the shown tool's, in the original.
    pub fn change_count(&self) -> Option<usize> {
        self.live.marked_at?;
        Some(self.view.as_ref().map_or(0, |v| v.panes[0].changes.count))
    }

    pub(super) fn on_watch(&mut self, event: WatchEvent, now: Instant) {
        let Some(path) = event.path().map(Path::to_path_buf) else {
            if let WatchEvent::Error { message, .. } = event {
                self.live.error = Some(message);
            }
            return;
        };
        if let Some(loading) = self.source_of_file(&path).and(self.loading.as_mut()) {
            // Compared with the version being read once it is in (the watcher's first report
            // is that same version).
            loading.queued.push(event);
        } else if let Some(i) = self.source_of_file(&path) {
            self.manifest_event(i, event, now);
        } else if let Some(i) = self.source_of_payload(&path) {
            self.payload_event(i, event);
        } else if let WatchEvent::Error { message, .. } = event {
            self.live.error = Some(format!("{}: {message}", path.display()));
        }
    }

    fn manifest_event(&mut self, i: usize, event: WatchEvent, now: Instant) {
        if let WatchEvent::Changed { hash, .. } = &event
            && (self.staged_hash(i) == Some(*hash) || self.reading_hash(i) == Some(*hash))
        {
            // The version being read or checked, reported again.
            return;
        }
        // A newer version supersedes one still being read or checked.
        self.drop_staged_save(i);
        self.drop_reading(i);
        match event {
            WatchEvent::Changed { content, hash, .. } => {
                let source = &self.sources[i];
                if source.hash == Some(hash) && source.stale.is_none() {
                    return;
                }
                self.read_save(i, content, hash, now);
            }
            WatchEvent::Missing { .. } => self.keep_last_good(i, None, Stale::Missing),
            WatchEvent::Error { path, message } => {
                let path = path.map_or_else(String::new, |p| format!("{}: ", p.display()));
                self.keep_last_good(i, None, Stale::Invalid(format!("{path}{message}")))
            }
        }
    }

    /// Hands a saved version of source `i` to the save reader (read here when there is no
    /// reader thread: tests, a worker driven by hand).
    fn read_save(&mut self, i: usize, bytes: Vec<u8>, hash: u64, now: Instant) {
        self.live.read_generation += 1;
        let generation = self.live.read_generation;
        let source = &self.sources[i];
        let job = SaveJob {
            source: i,
            generation,
            origin: source.path.clone(),
            bytes,
            hash,
            at: now,
            shown: source.manifest.as_ref().ok().cloned(),
            payload_folder: source.payload_folder(),
        };
        let reading = Reading {
            generation,
            hash,
            started: Instant::now(),
            elapsed: Duration::ZERO,
        };
        self.live.reading.insert(i, reading);
        match self.save_reader() {
            Some(reader) => reader.submit(job),
            None => self.receive_save(saving::read(job)),
        }
    }

    /// The save reader, started with the first save when the worker has a thread to wake the
    /// event loop with.
    fn save_reader(&mut self) -> Option<&SaveReader> {
        if self.saves.is_none() {
            let notify = self.worker.as_ref().and_then(|w| w.notifier())?;
            self.saves = SaveReader::start(notify);
        }
        self.saves.as_ref()
    }

    fn reading_hash(&self, i: usize) -> Option<u64> {
        self.live.reading.get(&i).map(|r| r.hash)
    }

    /// Forgets the save of source `i` being read: a newer event of the same file replaces it.
    fn drop_reading(&mut self, i: usize) {
        if self.live.reading.remove(&i).is_some()
            && let Some(reader) = &self.saves
        {
            reader.withdraw(i);
        }
    }

    /// A save read off the loop: dropped if a newer event of its file came since, else the
    /// error kept beside the last good view, or the version staged.
    pub(super) fn receive_save(&mut self, read: ReadSave) {
        let i = read.source;
        if self.live.reading.get(&i).map(|r| r.generation) != Some(read.generation) {
            return;
        }
        self.live.reading.remove(&i);
        let parsed = match read.outcome {
            Ok(parsed) => parsed,
            Err(message) => {
                return self.keep_last_good(i, Some(read.hash), Stale::Invalid(message));
            }
        };
        let shown = self.sources[i].manifest.as_ref().ok().map(|m| &m.document);
        let still = match (shown, &read.compared_with) {
            (Some(now), Some(then)) => Arc::ptr_eq(now, then),
            (None, None) => true,
            _ => false,
        };
        let parsed = if still {
            parsed
        } else {
            // The version shown changed while it was read: compared again, here.
            self.compared(i, parsed.manifest)
        };
        self.stage_parsed(i, parsed, read.hash, read.at);
    }

    /// `m`, a new version of source `i`, compared with the version shown, with its payload
    /// files.
    fn compared(&self, i: usize, m: Manifest) -> Parsed {
        let source = &self.sources[i];
        let mut parsed = saving::compare(source.manifest.as_ref().ok(), m);
        if !parsed.same {
            parsed.payload_files = payloads::discover_in(source.payload_folder(), &parsed.manifest);
        }
        parsed
    }

    fn stage_parsed(&mut self, i: usize, parsed: Parsed, hash: u64, at: Instant) {
        let Parsed {
            manifest,
            same,
            changed_tools,
            payload_files,
        } = parsed;
        if same {
            // Back to what is shown (a bad save undone, a file recreated as it was): the
            // marks of the last real change stay.
            let source = &mut self.sources[i];
            source.hash = Some(hash);
            source.stale = None;
            return;
        }
        self.stage_save(Staged {
            source: i,
            manifest,
            hash,
            at,
            changed_tools,
            payload_files,
        });
    }

    /// The newest version cannot be used: what is shown stays, and says why.
    pub(super) fn keep_last_good(&mut self, i: usize, hash: Option<u64>, stale: Stale) {
        let source = &mut self.sources[i];
        if hash.is_some() {
            source.hash = hash;
        }
        if source.manifest.is_err() {
            // Nothing good was ever shown: the newest problem is the file's problem row.
            source.manifest = Err(stale.describe(&source.path));
        }
        source.stale = Some(stale);
    }

    /// A new version already parsed (a live server's tool list): compared here, then staged.
    pub(super) fn apply_manifest(&mut self, i: usize, m: Manifest, hash: u64, now: Instant) {
        let parsed = self.compared(i, m);
        self.stage_parsed(i, parsed, hash, now);
    }

    /// The tool of source `i` the view shows, by its place and name.
    fn shown_tool_of(&self, i: usize) -> Option<(usize, String)> {
        match self.view.as_ref().and_then(|v| self.entry_key(v.entry))? {
            EntryKey::Tool {
                source,
                index,
                name,
            } if source == i => Some((index, name)),
            _ => None,
        }
    }

    /// A new version of a file: applied at once, unless the view shows one of its tools
    /// projected. That tool is then projected first (in the background, with its trees): a
    /// version in which it no longer projects is not worth losing the view for, and until
    /// the new view is ready the old one stays on screen.
    pub(super) fn stage_save(&mut self, staged: Staged) {
        let i = staged.source;
        let checked = self
            .shown_tool_of(i)
            .filter(|_| self.view.as_ref().is_some_and(|v| v.projection.is_some()))
            .and_then(|(index, name)| find_tool(&staged.manifest, &name, index));
        let (Some(t), Some(entry)) = (checked, self.view.as_ref().map(|v| v.entry)) else {
            self.commit_save(staged, None);
            return;
        };
        // A changed tool's schema is new: the cache, keyed by schema, cannot have it, and
        // looking would compare it with the old one on the loop.
        let unchanged = !staged
            .changed_tools
            .contains(&staged.manifest.tools[t].name);
        let mut request =
            self.request_for(i, &staged.manifest, t, &staged.payload_files, unchanged);
        request.marks = self.marks_job(i);
        self.dispatch(request, entry, None, After::Save(Box::new(staged)));
    }

    /// A staged save checked again after another request (its payload files looked up
    /// again: one may have been saved meanwhile, which is why it is checked again).
    pub(super) fn restage_save(&mut self, mut staged: Staged) {
        let folder = self.sources[staged.source].payload_folder();
        staged.payload_files = payloads::discover_in(folder, &staged.manifest);
        self.stage_save(staged);
    }

    /// The view of source `i`'s shown tool, for the worker to mark what a save of it changed.
    fn marks_job(&self, i: usize) -> Option<MarksJob> {
        let (index, _) = self.shown_tool_of(i)?;
        let view = self.view.as_ref()?;
        let tool = self.sources[i].manifest.as_ref().ok()?.tools.get(index)?;
        Some(MarksJob {
            trees: [view.panes[0].tree.clone(), view.panes[1].tree.clone()],
            schema: tool.schema.clone(),
            projection: view.projection.clone(),
        })
    }

    /// The shown tool of a staged save, projected: the save is applied with that view, or
    /// kept out if the tool no longer projects.
    pub(super) fn saved_version_projected(&mut self, staged: Staged, done: Computed) {
        match &done.projection {
            Err(failure) => {
                self.keep_last_good(
                    staged.source,
                    Some(staged.hash),
                    Stale::Invalid(failure.message.clone()),
                );
                // The cursor may have moved on while the save was checked.
                self.show_cursor_entry();
            }
            Ok(_) => self.commit_save(staged, Some(done)),
        }
    }

    /// The content hash of source `i`'s save waiting to be applied, if there is one.
    fn staged_hash(&self, i: usize) -> Option<u64> {
        let pending = self.pending.as_ref().and_then(|p| match &p.then {
            After::Save(s) => Some(s),
            _ => None,
        });
        pending
            .or(self.live.deferred.as_ref())
            .filter(|s| s.source == i)
            .map(|s| s.hash)
    }

    /// Drops a save of source `i` not yet applied: a newer event of the same file replaces it.
    pub(super) fn drop_staged_save(&mut self, i: usize) {
        if self.live.deferred.as_ref().is_some_and(|s| s.source == i) {
            self.live.deferred = None;
        }
        if self
            .pending
            .as_ref()
            .is_some_and(|p| matches!(&p.then, After::Save(s) if s.source == i))
        {
            self.pending = None;
            if let Some(worker) = &self.worker {
                worker.cancel();
            }
        }
    }

    /// Replaces source `staged.source`'s version with the staged one; `computed` is the shown
    /// tool's new view when it was projected beforehand.
    fn commit_save(&mut self, staged: Staged, computed: Option<Computed>) {
        let Staged {
            source: i,
            manifest: m,
            hash,
            at: now,
            changed_tools,
            payload_files,
        } = staged;
        let view_key = self.view.as_ref().and_then(|v| self.entry_key(v.entry));
        let shown = self.shown_tool_of(i);
        let cursor_key = self.current_entry().and_then(|e| self.entry_key(e));
        let old_view = self.view.take();
        // What was being projected belongs to the old version: asked again below.
        self.pending = None;
        let source = &mut self.sources[i];
        let old_manifest = std::mem::replace(&mut source.manifest, Ok(m));
        // The shown tool's old schema, for the change marks.
        let old_schema = match (&view_key, &old_manifest) {
            (Some(EntryKey::Tool { index, .. }), Ok(m)) if shown.is_some() => {
                m.tools.get(*index).map(|t| t.schema.clone())
            }
            _ => None,
        };
        source.replaced(old_manifest);
        source.hash = Some(hash);
        source.stale = None;
        source.payload_files = payload_files;

        self.entries = entries_of(&self.sources);
        let needle = self.filter.to_lowercase();
        self.visible = (0..self.entries.len())
            .filter(|&e| needle.is_empty() || self.entry_text(e).to_lowercase().contains(&needle))
            .collect();
        let current = cursor_key.and_then(|k| self.find_entry(&k));
        self.cursor = current
            .and_then(|c| self.visible.iter().position(|&v| v == c))
            .unwrap_or(0);
        self.list.borrow_mut().select(Some(self.cursor));

        self.live.changed_tools.retain(|(s, _)| *s != i);
        self.live
            .changed_tools
            .extend(changed_tools.into_iter().map(|name| (i, name)));
        self.live.marked_at = Some(now);

        match (old_view, view_key) {
            (Some(old), Some(key)) if shown.is_some() => {
                let new_entry = self.find_entry(&key);
                if new_entry.is_some() && new_entry == self.current_entry() {
                    self.reload_view(old, old_schema, computed);
                } else {
                    self.show_cursor_entry();
                }
            }
            (Some(mut old), Some(key)) => {
                // Another file's tool: only its row number may have moved.
                if let Some(e) = self.find_entry(&key) {
                    old.entry = e;
                    self.view = Some(old);
                }
                self.show_cursor_entry();
            }
            _ => self.show_cursor_entry(),
        }
        self.cache.borrow_mut().next_version();
    }

    /// Rebuilds the shown tool's view from the new version, where the user left the old one,
    /// and marks what changed (once the new version is projected: [`Self::finish_reload`]).
    fn reload_view(
        &mut self,
        old: ToolView,
        old_schema: Option<Arc<Value>>,
        computed: Option<Computed>,
    ) {
        let Some(entry) = self.current_entry() else {
            return;
        };
        let side = self.active_side();
        let pointer = |s: Side| {
            let pane = old.pane(s);
            pane.selected()
                .map(|id| pane.tree.node(id).pointer.to_string())
        };
        let kept = Kept {
            side,
            selected: pointer(side).unwrap_or_default(),
            opened: [
                old.panes[0].opened_pointers(),
                old.panes[1].opened_pointers(),
            ],
            other: pointer(side.other()).map(|p| (side.other(), p)),
            states: Some([old.panes[0].state.take(), old.panes[1].state.take()]),
            again: None,
        };
        let payload = self
            .payload
            .and_then(|i| old.payloads.get(i))
            .map(|r| (r.path.clone(), r.line));
        let scroll = self.detail_scroll;
        // Marked by the worker against the old trees, when it projected the save.
        let mut computed = computed;
        let changes = computed.as_mut().and_then(|done| done.changes.take());
        let reloaded = Reloaded {
            old,
            old_schema,
            changes,
            entry,
            side,
            payload,
            scroll,
        };
        let then = After::Reload(Box::new(reloaded));
        match computed {
            Some(done) => self.show_computed(entry, Some(kept), then, done),
            None => self.request_view(entry, Some(kept), then),
        }
    }

    /// The rest of [`reload_view`](Self::reload_view), once the new version's view is shown.
    pub(super) fn finish_reload(&mut self, reloaded: Reloaded) {
        let Reloaded {
            old,
            old_schema,
            changes,
            entry,
            side,
            payload,
            scroll,
        } = reloaded;
        let changes = match (&self.view, self.tool(entry), &old_schema) {
            (Some(_), Some(_), Some(_)) if changes.is_some() => changes,
            (Some(view), Some((_, tool)), Some(old_schema)) => Some(changes_between(
                [&old.panes[0].tree, &old.panes[1].tree],
                [Some(old_schema), old.projection.as_ref().map(|p| &p.schema)],
                [&view.panes[0].tree, &view.panes[1].tree],
                [
                    Some(&tool.schema),
                    view.projection.as_ref().map(|p| &p.schema),
                ],
            )),
            _ => None,
        };
        if let (Some(view), Some([original, projected])) = (&mut self.view, changes) {
            view.panes[0].changes = original;
            view.panes[1].changes = projected;
        }
        self.link_from(side);
        // The same payload row, by file and line; else the same place in the list.
        let index = payload.and_then(|(path, line)| {
            self.view
                .as_ref()?
                .payloads
                .iter()
                .position(|r| r.path == path && r.line == line)
        });
        match (index, self.payload) {
            (Some(i), _) | (None, Some(i)) => self.select_payload(i),
            (None, None) => {}
        }
        self.detail_scroll = scroll;
    }

    fn payload_event(&mut self, i: usize, event: WatchEvent) {
        match event {
            WatchEvent::Changed { path, content, .. } => {
                if self.live.payload_texts.get(&path) == Some(&content) {
                    return;
                }
                self.live.payload_texts.insert(path, content);
            }
            WatchEvent::Missing { path } => {
                self.live.payload_texts.remove(&path);
            }
            WatchEvent::Error { path, message } => {
                if let Some(path) = &path {
                    self.live.payload_texts.remove(path);
                }
                self.message = Some(message);
            }
        }
        let shown = self
            .view
            .as_ref()
            .and_then(|v| self.entries.get(v.entry))
            .is_some_and(|e| matches!(e, Entry::Tool { source, .. } if *source == i));
        if shown {
            let selected = self.payload_row().map(|r| r.path.clone());
            let scroll = self.detail_scroll;
            self.reload_payloads(selected.as_deref(), Some(scroll));
            self.detail_scroll = scroll;
        } else {
            let source = &mut self.sources[i];
            if let Ok(m) = &source.manifest {
                source.payload_files = payloads::discover_in(source.payload_folder(), m);
            }
        }
    }
}

/// A saved version of a file, not applied yet (see [`App::stage_save`]).
#[derive(Debug)]
pub struct Staged {
    source: usize,
    manifest: Manifest,
    hash: u64,
    /// When it was saved: its change marks expire from then.
    at: Instant,
    /// Its tools that the version shown lacks with the same schema (see [`saving::compare`]).
    changed_tools: Vec<String>,
    payload_files: Vec<schemalens::validate::PayloadFile>,
}

/// A reload waiting for its projection: the view it replaces and where the user was in it.
pub struct Reloaded {
    old: ToolView,
    old_schema: Option<Arc<Value>>,
    /// What the save changed, when the worker marked it.
    changes: Option<[PaneChanges; 2]>,
    entry: usize,
    side: Side,
    payload: Option<(PathBuf, Option<usize>)>,
    scroll: u16,
}
