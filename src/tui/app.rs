//! The model and `update`: every change of state happens here, driven by an [`Action`].

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use ratatui::layout::{Position, Rect};
use ratatui::widgets::ListState;

use schemalens::lint::report::{Form, ProfileLint, ToolForms};
use schemalens::lint::tool_set::ToolSet;
use schemalens::lint::{self, Group, Profile};
use schemalens::manifest::{self, Manifest, ManifestFormat, Tool};
use schemalens::watch::ProjectionCache;
use schemalens::{Mode, OpenBranches, Options, Projection};

use super::keys::{Action, Context, Pane};
use super::lint::PaneLint;
use super::live::{Live, PaneChanges, Stale};
use super::loading::Loading;
use super::overlay::{self, Overlay};
use super::payloads::{self, PayloadRow};
use super::projecting::{
    self, ChangesReport, Computed, DiffJob, Failure, PayloadJob, ReportJob, Request, ToolSetJob,
    ToolSets, Worker,
};
use super::render::{Areas, layout};
use super::saving::SaveReader;
use super::text::escape;
use super::theme::Theme;
use super::tree::{NodeId, SchemaTree, Side};
use super::tree_view::TreeView;
use schemalens::validate::PayloadFile;

/// One file named on the command line.
#[derive(Debug)]
pub struct Source {
    pub path: String,
    /// The load error as the user should read it (file:line:col or pointer).
    pub manifest: Result<Manifest, String>,
    /// Payload files beside the manifest (`<stem>.payloads/`), for every tool.
    pub payload_files: Vec<PayloadFile>,
    /// The file as named on the command line, which is how the watcher names it; `None` for
    /// standard input, which cannot be followed.
    pub file: Option<PathBuf>,
    /// [`schemalens::watch::content_hash`] of the newest version read, good or not.
    pub hash: Option<u64>,
    /// Why the newest version on disk is not the one shown (the last good one stays).
    pub stale: Option<Stale>,
    /// The payload folder when it is not the one beside `path` (a live server has no file;
    /// `schemalens mcp --payloads DIR` names it).
    pub payload_dir: Option<PathBuf>,
    /// What `D` compares with: the version opened, or OLD with `--diff OLD NEW`.
    pub baseline: Baseline,
}

/// What a source's changes are measured against.
#[derive(Debug)]
pub enum Baseline {
    /// The version in `manifest`: nothing was saved since the file was opened. No copy is
    /// kept until a save replaces it (a big manifest's copy is tens of MB).
    Current,
    /// The version opened, moved here by the first save that replaced it; or OLD.
    Kept(Manifest),
    /// The file did not load when it was opened.
    Missing,
}

impl Source {
    pub fn new(path: String, manifest: Result<Manifest, String>) -> Source {
        let payload_files = match &manifest {
            Ok(m) => payloads::discover_for(&path, m),
            Err(_) => Vec::new(),
        };
        Source {
            path,
            payload_files,
            file: None,
            hash: None,
            stale: None,
            payload_dir: None,
            baseline: match &manifest {
                Ok(_) => Baseline::Current,
                Err(_) => Baseline::Missing,
            },
            manifest,
        }
    }

    /// The version changes are measured against.
    pub fn baseline(&self) -> Option<&Manifest> {
        match &self.baseline {
            Baseline::Current => self.manifest.as_ref().ok(),
            Baseline::Kept(m) => Some(m),
            Baseline::Missing => None,
        }
    }

    /// `replaced`, the version a save just replaced, becomes the baseline if it was the one
    /// opened.
    pub(super) fn replaced(&mut self, replaced: Result<Manifest, String>) {
        if let (Baseline::Current, Ok(m)) = (&self.baseline, replaced) {
            self.baseline = Baseline::Kept(m);
        }
    }

    /// Where this manifest's payloads are: the named folder, else `<stem>.payloads/` beside
    /// the file; none for standard input.
    pub fn payload_folder(&self) -> Option<PathBuf> {
        if self.payload_dir.is_some() {
            return self.payload_dir.clone();
        }
        if self.path == manifest::STDIN_ORIGIN {
            return None;
        }
        schemalens::validate::discover::payload_dir(Path::new(&self.path))
    }
}

/// A row of the tool list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entry {
    Tool {
        source: usize,
        tool: usize,
    },
    /// A file that failed to load or holds no tools: listed so its error can be read.
    Problem {
        source: usize,
    },
}

/// One tree pane: the model and its view (folds, selection, scroll).
pub struct TreePane {
    /// Shared with the worker, which marks what a save changed against it.
    pub tree: Arc<SchemaTree>,
    /// Drawing keeps the scroll offset and the visible rows in here; a `RefCell` lets `render`
    /// take `&App` while only this view cache changes.
    pub state: RefCell<TreeView>,
    /// Nodes linked to the other tree's selection (all of them, for many-to-one links).
    pub linked: Vec<NodeId>,
    /// Nodes that reject the selected payload.
    pub rejecting: Vec<NodeId>,
    /// The chosen provider's findings on this tree.
    pub lint: PaneLint,
    /// What the last save changed in this tree, while it is shown.
    pub changes: PaneChanges,
    /// Changes since the baseline, by class.
    pub diff_marks: super::changes::ClassMarks,
}

impl TreePane {
    fn new(tree: SchemaTree, groups: Vec<Group>) -> TreePane {
        let lint = PaneLint::new(&tree, groups);
        TreePane {
            tree: Arc::new(tree),
            state: RefCell::new(TreeView::default()),
            linked: Vec::new(),
            rejecting: Vec::new(),
            lint,
            changes: PaneChanges::default(),
            diff_marks: Default::default(),
        }
    }

    /// Replaces the findings; folds and selection are kept, since node ids do not change.
    fn set_lint(&mut self, groups: Vec<Group>) {
        self.lint = PaneLint::new(&self.tree, groups);
    }

    pub fn selected(&self) -> Option<NodeId> {
        self.state.borrow().selected()
    }

    /// Unfolds the ancestors of `id` without selecting it.
    fn unfold_to(&self, id: NodeId) {
        let path = self.tree.path(id);
        let mut state = self.state.borrow_mut();
        for &ancestor in &path[..path.len() - 1] {
            state.open(ancestor);
        }
    }

    /// Selects `id` and unfolds its ancestors so it is visible.
    pub fn reveal(&self, id: NodeId) {
        self.unfold_to(id);
        self.state.borrow_mut().select(Some(id));
    }

    /// How many rows the tree shows when scrolled through: the unfolded part of it.
    pub fn visible_rows(&self) -> usize {
        self.state.borrow_mut().rows(&self.tree).len()
    }

    /// Moves the selection among visible rows; works before anything was rendered.
    fn step(&self, delta: isize) {
        let mut state = self.state.borrow_mut();
        let selected = state.selected();
        let rows = state.rows(&self.tree);
        if rows.is_empty() {
            return;
        }
        let current = selected.and_then(|s| rows.iter().position(|r| r.id == s));
        let last = rows.len() as isize - 1;
        let target = match current {
            Some(i) => (i as isize + delta).clamp(0, last),
            None if delta < 0 => last,
            None => 0,
        };
        let id = rows[target as usize].id;
        state.select(Some(id));
    }

    fn open_all(&self) {
        let mut state = self.state.borrow_mut();
        for (id, node) in self.tree.nodes.iter().enumerate() {
            if !node.children.is_empty() {
                state.open(id as NodeId);
            }
        }
    }

    /// Unfolds from the root, breadth first, while the visible rows fit a screen or so.
    fn open_initial(&self, budget: usize) {
        if self.tree.is_empty() {
            return;
        }
        let mut state = self.state.borrow_mut();
        let mut shown = 1;
        let mut frontier: Vec<NodeId> = vec![0];
        while !frontier.is_empty() {
            let mut next = Vec::new();
            for id in frontier {
                let node = self.tree.node(id);
                if node.children.is_empty() {
                    continue;
                }
                if shown + node.children.len() > budget && id != 0 {
                    return;
                }
                shown += node.children.len();
                state.open(id);
                next.extend(node.children.iter().copied());
            }
            frontier = next;
        }
    }

    pub(super) fn opened_pointers(&self) -> Vec<String> {
        let state = self.state.borrow();
        state
            .opened()
            .map(|id| self.tree.node(id).pointer.to_string())
            .collect()
    }
}

/// The selected tool, projected.
pub struct ToolView {
    pub entry: usize,
    /// Shared with the projection cache, which reuses it while the tool's schema is the same.
    pub projection: Option<Arc<Projection>>,
    /// Why projecting failed, with the pointer; the original tree stays browsable.
    pub error: Option<String>,
    pub panes: [TreePane; 2],
    pub payloads: Vec<PayloadRow>,
    /// Why the payloads could not be checked (the validator refused a schema).
    pub payload_error: Option<String>,
    /// The profile the panes' findings are for.
    pub profile: Option<Profile>,
    /// That profile's verdicts and findings on the original, the projection and the tailored
    /// schema (what `project --provider` sends), in the request of every tool of its file.
    pub report: Option<ProfileLint>,
    /// The tool-list facts of its file the report was made with: the request's plan, when the
    /// profile limits a whole request.
    pub tool_set: Option<Arc<ToolSet>>,
    /// What changed in this tool since its source's baseline; `None` when nothing did.
    pub diff: Option<schemalens::diff::ToolDiff>,
}

impl ToolView {
    pub fn pane(&self, side: Side) -> &TreePane {
        &self.panes[side.index()]
    }
}

/// What the detail pane shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DetailOf {
    Tree,
    Payload,
}

/// Something `update` asks the event loop to do, because it needs the terminal itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    /// Suspend the UI and open `path` in `$EDITOR`; write `create` there first when the file
    /// does not exist yet. The loop sends [`Action::PayloadsChanged`] afterwards.
    Edit {
        path: PathBuf,
        create: Option<String>,
    },
}

/// What the user is typing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Input {
    pub purpose: InputPurpose,
    pub text: String,
    /// The selection before a search started, restored on cancel.
    pub before: Option<(Side, NodeId)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputPurpose {
    Filter,
    Search(Side),
    /// A provider's error, pasted (`!`); Enter explains it.
    Why,
}

/// A confirmed search, kept for `n`/`N`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Search {
    pub side: Side,
    pub query: String,
}

pub struct App {
    pub sources: Vec<Source>,
    pub entries: Vec<Entry>,
    /// Entry indices that pass the filter, in list order.
    pub visible: Vec<usize>,
    pub filter: String,
    /// Position in `visible`.
    pub cursor: usize,
    pub list: RefCell<ListState>,
    pub view: Option<ToolView>,
    pub focus: Pane,
    /// The tree the detail pane describes when neither tree has focus.
    pub last_tree: Side,
    pub options: Options,
    /// The provider the trees are linted for; `None` shows no lint.
    pub profile: Option<Profile>,
    /// The payload panel reads each payload as the model's call for that provider (`c`).
    pub calls: bool,
    pub theme: Theme,
    pub mouse: bool,
    pub input: Option<Input>,
    pub search: Option<Search>,
    pub overlay: Option<Overlay>,
    /// The payload selected in the payload panel; `None` until the panel is used, so the
    /// trees carry no rejection marks before the user asks for them.
    pub payload: Option<usize>,
    pub payload_list: RefCell<ListState>,
    /// What the detail pane describes when it has focus itself.
    pub detail_of: DetailOf,
    /// Work for the event loop that needs the terminal (running an editor).
    pub effect: Option<Effect>,
    /// Text to put on the clipboard: an effect for the event loop to perform, so `update`
    /// itself never writes to the terminal.
    pub clipboard: Option<String>,
    pub detail_scroll: u16,
    /// The terminal's size, for layout-dependent actions (paging, mouse hits).
    pub size: Rect,
    pub message: Option<String>,
    pub quit: bool,
    /// Projections of the tools shown, reused across reloads for unchanged schemas.
    pub cache: RefCell<ProjectionCache>,
    /// The tool-list facts of the files shown, per version and profile (shared with the
    /// worker, which makes them).
    pub tool_sets: ToolSets,
    /// Following the files: the watcher's state, payload texts it read, the last save.
    pub live: Live,
    /// The live MCP server, when the inspector runs on one (`schemalens mcp`).
    pub server: Option<super::server::ServerView>,
    /// The last pasted provider error and where it led.
    pub why: Option<super::why::WhyView>,
    /// Changes since the baseline are marked in the trees: with `--diff`, or once `D` was
    /// pressed.
    pub show_changes: bool,
    /// Projects in the background when set (the event loop's app); `None` projects inline,
    /// as tests and benches that want the result at once do.
    pub worker: Option<Worker>,
    /// The generation of the newest projection asked for.
    pub generation: u64,
    /// The projection being computed, when the shown view is not the newest asked for.
    pub pending: Option<Pending>,
    /// The files named, while they are read and parsed in the background: there are no
    /// tools to list until they are in.
    pub loading: Option<Loading>,
    /// Parses saved versions off the loop; started with the first save when there is a
    /// worker thread (see `live::read_save`).
    pub saves: Option<SaveReader>,
}

/// A projection asked for and not arrived yet; what to do with it when it does.
pub struct Pending {
    pub generation: u64,
    pub entry: usize,
    pub tool: String,
    pub started: Instant,
    /// What the status bar says is being done.
    pub doing: &'static str,
    /// How long it has been running at the last tick: what the progress indicator shows
    /// (rendering reads no clock).
    pub elapsed: Duration,
    pub(super) keep: Option<Kept>,
    pub(super) then: After,
}

/// What follows a projection once its view is shown.
pub(super) enum After {
    /// A tool was opened; `select` is the node to go to then.
    Show { select: Option<(Side, String)> },
    /// The same tool under other options: the selection is linked from `link` again.
    Reproject { link: Side, message: String },
    /// A new version of the file: what changed is marked (see `live`).
    Reload(Box<super::live::Reloaded>),
    /// The same tool linted for another provider: its verdicts go to the status bar.
    Relinted { link: Side },
    /// A saved version of the shown tool's file, projected before it replaces the version
    /// shown: one whose shown tool no longer projects is not worth losing the view for.
    Save(Box<super::live::Staged>),
    /// The shown tool's payloads checked again (a payload file saved or edited), the view
    /// kept: `select` is the payload to select then, `scroll` the detail pane's scroll.
    Payloads {
        select: Option<PathBuf>,
        scroll: Option<u16>,
    },
    /// The changes screen's report, the view kept.
    Report,
}

impl After {
    /// Whether the view shown stays as it is (only checks are computed, see
    /// [`Request::checks_only`]).
    fn keeps_view(&self) -> bool {
        matches!(self, After::Payloads { .. } | After::Report)
    }
}

fn load(path: &Path) -> Source {
    if path.as_os_str() == "-" {
        let manifest = manifest::load_path(path, None).map_err(|e| e.to_string());
        let origin = match &manifest {
            Ok(m) => m.origin.clone(),
            Err(_) => manifest::STDIN_ORIGIN.to_owned(),
        };
        return Source::new(origin, manifest);
    }
    let origin = path.display().to_string();
    // Read here rather than by `load_path` to know the hash of what is shown: the watcher's
    // first report of the same bytes is then no reload.
    let (manifest, hash) = match std::fs::read(path) {
        Ok(bytes) => (
            manifest::load_reader(bytes.as_slice(), &origin, None).map_err(|e| e.to_string()),
            Some(schemalens::watch::content_hash(&bytes)),
        ),
        Err(e) => (Err(format!("{origin}: cannot read: {e}")), None),
    };
    let mut source = Source::new(origin, manifest);
    source.file = Some(path.to_path_buf());
    source.hash = hash;
    source
}

/// What stands for a file being loaded in the background: named and followed as the file
/// will be.
fn placeholder(path: &Path) -> Source {
    let mut source = Source::new(path.display().to_string(), Err(String::new()));
    source.file = Some(path.to_path_buf());
    source
}

/// The tool list's rows for `sources`: every tool, or one problem row for a file without.
pub(super) fn entries_of(sources: &[Source]) -> Vec<Entry> {
    let mut entries = Vec::new();
    for (i, source) in sources.iter().enumerate() {
        match &source.manifest {
            Ok(m) if !m.tools.is_empty() => {
                entries.extend((0..m.tools.len()).map(|t| Entry::Tool { source: i, tool: t }))
            }
            _ => entries.push(Entry::Problem { source: i }),
        }
    }
    entries
}

impl App {
    pub fn load(files: &[PathBuf], options: Options, theme: Theme, mouse: bool) -> App {
        App::load_with_worker(files, options, theme, mouse, None)
    }

    /// With a worker thread, `files` are loaded in the background too: the app starts with
    /// a placeholder for each (followed by the watcher from the start) and no tools yet.
    /// Standard input is read before the terminal is taken, as always (it may be the
    /// terminal itself).
    pub fn load_with_worker(
        files: &[PathBuf],
        options: Options,
        theme: Theme,
        mouse: bool,
        worker: Option<Worker>,
    ) -> App {
        let stdin = files.iter().any(|f| f.as_os_str() == "-");
        let loading = worker
            .as_ref()
            .filter(|_| !stdin)
            .and_then(Worker::notifier)
            .and_then(|notify| Loading::start(files, load, notify));
        let sources = match &loading {
            Some(_) => files.iter().map(|f| placeholder(f)).collect(),
            None => files.iter().map(|f| load(f)).collect(),
        };
        App::build(sources, options, theme, mouse, worker, loading)
    }

    pub fn new(sources: Vec<Source>, options: Options, theme: Theme, mouse: bool) -> App {
        App::with_worker(sources, options, theme, mouse, None)
    }

    /// An app that projects in the background with `worker` from its first tool on.
    pub fn with_worker(
        sources: Vec<Source>,
        options: Options,
        theme: Theme,
        mouse: bool,
        worker: Option<Worker>,
    ) -> App {
        App::build(sources, options, theme, mouse, worker, None)
    }

    fn build(
        sources: Vec<Source>,
        options: Options,
        theme: Theme,
        mouse: bool,
        worker: Option<Worker>,
        loading: Option<Loading>,
    ) -> App {
        // Placeholders list nothing: their tools are not known yet.
        let entries = match loading {
            Some(_) => Vec::new(),
            None => entries_of(&sources),
        };
        let mut app = App {
            sources,
            visible: (0..entries.len()).collect(),
            entries,
            filter: String::new(),
            cursor: 0,
            list: RefCell::new(ListState::default().with_selected(Some(0))),
            view: None,
            focus: Pane::Original,
            last_tree: Side::Original,
            options,
            profile: None,
            calls: false,
            theme,
            mouse,
            input: None,
            search: None,
            overlay: None,
            payload: None,
            payload_list: RefCell::new(ListState::default()),
            detail_of: DetailOf::Tree,
            effect: None,
            clipboard: None,
            detail_scroll: 0,
            size: Rect::new(0, 0, 80, 24),
            message: None,
            quit: false,
            cache: RefCell::new(ProjectionCache::new()),
            tool_sets: ToolSets::default(),
            live: Live::default(),
            server: None,
            why: None,
            show_changes: false,
            worker,
            generation: 0,
            pending: None,
            loading,
            saves: None,
        };
        app.show_cursor_entry();
        app
    }

    pub fn context(&self) -> Context {
        if self.overlay.is_some() {
            Context::Overlay
        } else if self.input.is_some() {
            Context::Input
        } else {
            Context::Pane(self.focus)
        }
    }

    pub fn tool(&self, entry: usize) -> Option<(&Source, &Tool)> {
        match self.entries.get(entry)? {
            Entry::Tool { source, tool } => {
                let s = &self.sources[*source];
                Some((s, &s.manifest.as_ref().ok()?.tools[*tool]))
            }
            Entry::Problem { .. } => None,
        }
    }

    pub fn source_of(&self, entry: usize) -> Option<&Source> {
        match self.entries.get(entry)? {
            Entry::Tool { source, .. } | Entry::Problem { source } => self.sources.get(*source),
        }
    }

    /// The text of a problem entry: the load error, or why the file has no tools.
    pub fn problem(&self, entry: usize) -> Option<String> {
        match self.entries.get(entry)? {
            Entry::Problem { source } => {
                let s = &self.sources[*source];
                Some(match &s.manifest {
                    Err(e) => e.clone(),
                    Ok(_) => format!("{}: no tools found in this file", s.path),
                })
            }
            Entry::Tool { .. } => None,
        }
    }

    pub fn current_entry(&self) -> Option<usize> {
        self.visible.get(self.cursor).copied()
    }

    /// The tree the detail pane and tree-wide keys act on.
    pub fn active_side(&self) -> Side {
        match self.focus {
            Pane::Original => Side::Original,
            Pane::Projection => Side::Projection,
            _ => self.last_tree,
        }
    }

    pub fn areas(&self) -> Areas {
        layout(self.size, self)
    }

    /// Shows the entry under the cursor, projecting it if it is not shown yet.
    pub(super) fn show_cursor_entry(&mut self) {
        self.list.borrow_mut().select(Some(self.cursor));
        let entry = self.current_entry();
        let asked = self.pending.as_ref().map(|p| p.entry);
        if asked.or(self.view.as_ref().map(|v| v.entry)) == entry {
            return;
        }
        self.show_entry(entry, None);
    }

    /// Shows `entry` from scratch (projecting it), then selects `select` there.
    pub(super) fn show_entry(&mut self, entry: Option<usize>, select: Option<(Side, String)>) {
        self.detail_scroll = 0;
        self.payload = None;
        *self.payload_list.borrow_mut() = ListState::default();
        match entry {
            Some(e) => self.request_view(e, None, After::Show { select }),
            None => {
                self.view = None;
                self.pending = None;
            }
        }
    }

    /// Asks for tool `entry`'s projection and trees: computed inline without a worker, else
    /// in the background (superseding any older request), the view of another tool leaving
    /// the screen at once. `then` runs when the view is shown.
    pub(super) fn request_view(&mut self, entry: usize, keep: Option<Kept>, then: After) {
        if self.tool(entry).is_none() {
            // A problem row: nothing to project.
            self.defer_superseded_save(&then);
            self.view = None;
            self.pending = None;
            self.after_view(then);
            self.resume_deferred_save();
            return;
        }
        let Some(&Entry::Tool { source, tool }) = self.entries.get(entry) else {
            return;
        };
        let Ok(manifest) = &self.sources[source].manifest else {
            return;
        };
        let mut request = self.request_for(
            source,
            manifest,
            tool,
            &self.sources[source].payload_files,
            true,
        );
        let mut then = then;
        if then.keeps_view() {
            match self.view.as_ref().filter(|v| v.entry == entry) {
                Some(view) => {
                    request.checks_only = true;
                    request.cached = view.projection.clone();
                    // The shown view's change marks stay true: only payloads or the whole
                    // file's report are asked for.
                    request.diff = None;
                    if matches!(then, After::Report) {
                        request.payloads = None;
                    }
                }
                None => then = After::Show { select: None },
            }
        }
        self.dispatch(request, entry, keep, then);
    }

    /// What the worker needs to show tool `index` of `manifest`, a version of source
    /// `source` whose payload files are `payload_files`, under the options, provider and
    /// change marks in force; its projection is looked for in the cache when `ask_cache`.
    pub(super) fn request_for(
        &self,
        source: usize,
        manifest: &Manifest,
        index: usize,
        payload_files: &[PayloadFile],
        ask_cache: bool,
    ) -> Request {
        let tool = &manifest.tools[index];
        let cached = ask_cache
            .then(|| {
                self.cache
                    .borrow_mut()
                    .get_or_project(tool, &self.options, |_, _| Err(()))
                    .ok()
            })
            .flatten();
        // A bare schema has no tool name of its own (the title stands in for one).
        let named = manifest.format != ManifestFormat::BareSchema;
        let files: Vec<PayloadFile> = payload_files
            .iter()
            .filter(|f| f.tool == index)
            .cloned()
            .collect();
        let payloads = (!files.is_empty()).then(|| PayloadJob {
            texts: files
                .iter()
                .filter_map(|f| {
                    Some((
                        f.path.clone(),
                        self.live.payload_texts.get(&f.path)?.clone(),
                    ))
                })
                .collect(),
            files,
            index,
            sent_to: self.profile,
            calls: self.calls,
        });
        let baseline = self.sources[source].baseline();
        let diff = baseline.filter(|_| self.show_changes).map(|baseline| {
            let options = schemalens::diff::DiffOptions {
                projection: self.options.clone(),
                profiles: Vec::new(),
            };
            DiffJob::of(baseline, manifest, tool, options)
        });
        Request {
            generation: 0,
            origin: self.sources[source].path.clone(),
            tool: tool.clone(),
            options: self.options.clone(),
            cached,
            lint: self.profile.map(|p| (p, named)),
            tool_set: self
                .profile
                .map(|p| ToolSetJob::of(&self.tool_sets, manifest, index, p, &self.options)),
            payloads,
            diff,
            checks_only: false,
            report: None,
            marks: None,
        }
    }

    /// Sends `request` under a new generation, superseding whatever was pending: to the
    /// worker, or computed here without one. The view of another tool leaves the screen at
    /// once; the same tool's stays until the new one arrives.
    pub(super) fn dispatch(
        &mut self,
        mut request: Request,
        entry: usize,
        keep: Option<Kept>,
        then: After,
    ) {
        self.defer_superseded_save(&then);
        self.generation += 1;
        request.generation = self.generation;
        // A save's version is not the one compared until it is applied; the report is asked
        // for after it (`receive`).
        if self.wants_report() && !matches!(then, After::Save(_)) {
            request.report = self.report_job(entry);
        }
        let doing = match (request.checks_only, request.report.is_some()) {
            (false, _) if matches!(then, After::Relinted { .. }) => "linting",
            (false, _) => "projecting",
            (true, true) => "diffing",
            (true, false) => "checking payloads",
        };
        self.pending = Some(Pending {
            generation: self.generation,
            entry,
            tool: request.tool.name.clone(),
            started: Instant::now(),
            doing,
            elapsed: Duration::ZERO,
            keep,
            then,
        });
        match self.worker.as_ref().filter(|w| w.running()) {
            Some(worker) => {
                worker.submit(request);
                if self.view.as_ref().is_some_and(|v| v.entry != entry) {
                    self.view = None;
                }
            }
            None => {
                if let Ok(done) = projecting::compute(request, |_| false) {
                    self.receive(done);
                }
            }
        }
    }

    /// A saved version still being checked when another request replaces it is kept, and
    /// checked again once that request is shown (unless a newer save replaces it first).
    fn defer_superseded_save(&mut self, then: &After) {
        if matches!(then, After::Save(_)) {
            self.live.deferred = None;
            return;
        }
        if let Some(Pending {
            then: After::Save(staged),
            ..
        }) = self.pending.take()
        {
            self.live.deferred = Some(staged);
        }
    }

    /// Takes a computed projection: shown if it is the newest asked for, dropped otherwise.
    pub fn receive(&mut self, mut done: Computed) {
        let Some(pending) = self.pending.take_if(|p| p.generation == done.generation) else {
            return;
        };
        let report = done.report.take();
        match pending.then {
            After::Save(staged) => self.saved_version_projected(*staged, done),
            After::Payloads { select, scroll } => self.payloads_checked(done, select, scroll),
            After::Report => {}
            then => {
                let (keep, then) = self.kept_as_now(pending.entry, pending.keep, then);
                self.show_computed(pending.entry, keep, then, done)
            }
        }
        if let Some(report) = report {
            self.show_report(report);
        }
        self.resume_deferred_save();
        // `D` pressed while something else was computed.
        if self.wants_report() && self.pending.is_none() {
            self.request_report();
        }
    }

    /// What the user has done in the view shown since `keep` was taken from it: moved, folded,
    /// changed panes. The result keeps that rather than where they were when they asked.
    fn kept_as_now(&self, entry: usize, keep: Option<Kept>, then: After) -> (Option<Kept>, After) {
        let now = match (&keep, &self.view) {
            (
                Some(Kept {
                    again: Some(how), ..
                }),
                Some(view),
            ) if view.entry == entry => Kept::keeping(view, self.active_side(), *how),
            _ => return (keep, then),
        };
        let then = match then {
            After::Relinted { .. } => After::Relinted { link: now.side },
            After::Reproject { message, .. } => After::Reproject {
                link: now.side,
                message,
            },
            other => other,
        };
        (Some(now), then)
    }

    /// Shows the payloads' verdicts checked again for the shown view.
    fn payloads_checked(&mut self, done: Computed, select: Option<PathBuf>, scroll: Option<u16>) {
        let (rows, error) = done.payloads;
        let at = select
            .and_then(|p| rows.iter().position(|r| r.path == p))
            .or(self.payload);
        if let Some(view) = &mut self.view {
            view.payloads = rows;
            view.payload_error = error;
        }
        if let Some(i) = at {
            self.select_payload(i);
        }
        if let Some(scroll) = scroll {
            self.detail_scroll = scroll;
        }
    }

    /// Checks a deferred save again, once nothing else is pending.
    fn resume_deferred_save(&mut self) {
        if self.pending.is_none()
            && let Some(staged) = self.live.deferred.take()
        {
            self.restage_save(*staged);
        }
    }

    /// Shows tool `entry` from what the worker computed for it, then does `then`.
    pub(super) fn show_computed(
        &mut self,
        entry: usize,
        keep: Option<Kept>,
        then: After,
        done: Computed,
    ) {
        self.view = self.finish_view(entry, keep, done);
        // The provider changed while projecting: lint for the one chosen now.
        self.relint();
        self.after_view(then);
    }

    /// Keeps a projection made in the background in the cache (a save of another tool, or
    /// going back to this one, reuses it). Known by the schema's address only: comparing a
    /// new version's schema with the old one by content would take the loop's time.
    fn remember(&self, entry: usize, projection: Arc<Projection>) -> Arc<Projection> {
        let Some((_, tool)) = self.tool(entry) else {
            return projection;
        };
        self.cache
            .borrow_mut()
            .insert(tool, &self.options, projection)
    }

    fn after_view(&mut self, then: After) {
        match then {
            After::Show { select } => {
                if self.focus == Pane::Payloads {
                    self.select_payload(0);
                }
                self.link_from(self.last_tree);
                if let Some((side, pointer)) = select {
                    self.select_pointer(side, &pointer);
                }
            }
            After::Reproject { link, message } => {
                self.link_from(link);
                if let Some(i) = self.payload {
                    self.select_payload(i);
                }
                self.message = Some(message);
            }
            After::Reload(reloaded) => self.finish_reload(*reloaded),
            // Taken by `receive` before a view is built.
            After::Save(staged) => self.restage_save(*staged),
            // Asked for a shown view; without one there is nothing to update.
            After::Payloads { .. } | After::Report => {}
            After::Relinted { link } => {
                self.link_from(link);
                // The payloads came checked for the chosen provider with the view.
                if let Some(i) = self.payload {
                    self.select_payload(i);
                }
                self.message = Some(self.profile_message());
            }
        }
    }

    /// Takes the background's results that arrived; whether the screen changed.
    pub fn poll_projection(&mut self) -> bool {
        let mut changed = self.wait_loading(Duration::ZERO);
        while let Some(read) = self.saves.as_ref().and_then(SaveReader::try_result) {
            self.receive_save(read);
            changed = true;
        }
        while let Some(done) = self.worker.as_ref().and_then(Worker::try_result) {
            self.receive(done);
            changed = true;
        }
        changed
    }

    /// Waits for the projection asked for, up to `limit` after it was asked: a small tool is
    /// then drawn at once, without a progress frame in between.
    pub fn wait_projection(&mut self, limit: Duration) {
        if let Some(loading) = &self.loading {
            let left = (loading.started + limit).saturating_duration_since(Instant::now());
            if !self.wait_loading(left) {
                return;
            }
        }
        loop {
            if let Some(reading) = self.live.reading.values().map(|r| r.started).min() {
                let left = (reading + limit).saturating_duration_since(Instant::now());
                let Some(read) = self.saves.as_ref().and_then(|s| s.wait_result(left)) else {
                    return;
                };
                self.receive_save(read);
            } else if let Some(pending) = &self.pending {
                let left = (pending.started + limit).saturating_duration_since(Instant::now());
                let Some(done) = self.worker.as_ref().and_then(|w| w.wait_result(left)) else {
                    return;
                };
                self.receive(done);
            } else {
                return;
            }
        }
    }

    /// Waits for the projection asked for, however long it takes: for actions that go on in
    /// the view they asked for (a pasted error leads to its node).
    pub fn settle(&mut self) {
        self.wait_projection(Duration::from_secs(24 * 3600));
    }

    /// Asks again for what is pending, under the options now in force.
    fn request_again(&mut self) {
        match self.pending.take() {
            Some(Pending {
                then: After::Save(staged),
                ..
            }) => self.restage_save(*staged),
            Some(p) => self.request_view(p.entry, p.keep, p.then),
            None => {}
        }
    }

    /// The files named, once loaded in the background (waiting up to `timeout`): the tools
    /// are listed and the first one asked for, then the saves reported meanwhile are
    /// applied. Whether they came.
    fn wait_loading(&mut self, timeout: Duration) -> bool {
        let Some(sources) = self.loading.as_ref().and_then(|l| l.wait(timeout)) else {
            return false;
        };
        let queued = self.loading.take().map(|l| l.queued).unwrap_or_default();
        self.sources = sources;
        self.entries = entries_of(&self.sources);
        self.apply_filter();
        let now = Instant::now();
        for event in queued {
            self.on_watch(event, now);
        }
        true
    }

    /// Waits until the files named are loaded: for flows that start on their tools
    /// (`--why`, `--diff`).
    pub fn finish_loading(&mut self) {
        self.wait_loading(Duration::from_secs(24 * 3600));
    }

    /// While loading, reading a save or projecting: when the progress indicator should move
    /// next.
    pub fn projection_deadline(&self) -> Option<Instant> {
        let (started, elapsed) = self.busy()?;
        Some(started + elapsed + Duration::from_millis(100))
    }

    /// What the status bar's progress indicator shows: what is being done, since when, and
    /// for how long at the last tick.
    pub fn busy_with(&self) -> Option<(&'static str, Duration)> {
        match (&self.loading, &self.pending) {
            (Some(l), _) => Some(("reading", l.elapsed)),
            (None, Some(p)) => Some((p.doing, p.elapsed)),
            (None, None) => self
                .oldest_reading()
                .map(|r| ("reading the save", r.elapsed)),
        }
    }

    fn busy(&self) -> Option<(Instant, Duration)> {
        match (&self.loading, &self.pending) {
            (Some(l), _) => Some((l.started, l.elapsed)),
            (None, Some(p)) => Some((p.started, p.elapsed)),
            (None, None) => self.oldest_reading().map(|r| (r.started, r.elapsed)),
        }
    }

    fn oldest_reading(&self) -> Option<&super::live::Reading> {
        self.live.reading.values().min_by_key(|r| r.started)
    }

    pub(super) fn tick_projection(&mut self, now: Instant) {
        if let Some(l) = &mut self.loading {
            l.elapsed = now.saturating_duration_since(l.started);
        }
        if let Some(p) = &mut self.pending {
            p.elapsed = now.saturating_duration_since(p.started);
        }
        for r in self.live.reading.values_mut() {
            r.elapsed = now.saturating_duration_since(r.started);
        }
    }

    pub fn payload_row(&self) -> Option<&PayloadRow> {
        self.view.as_ref()?.payloads.get(self.payload?)
    }

    /// Selects payload `index` (clamped) and marks the nodes that reject it in both trees,
    /// unfolding to them so they can be seen.
    pub(super) fn select_payload(&mut self, index: usize) {
        let Some(view) = &mut self.view else { return };
        if view.payloads.is_empty() {
            self.payload = None;
            return;
        }
        let index = index.min(view.payloads.len() - 1);
        self.payload = Some(index);
        self.payload_list.borrow_mut().select(Some(index));
        self.detail_scroll = 0;
        let row = &view.payloads[index];
        for (i, original) in [(0, true), (1, false)] {
            let pane = &mut view.panes[i];
            let nodes = match (&row.received, &row.verdict) {
                // A call's errors on the projection side are the tailored schema's, whose
                // pointers this tree does not show.
                (Some(call), _) if original => payloads::side_error_nodes(&call.received.original),
                (Some(_), _) => Vec::new(),
                (None, Ok(v)) => payloads::error_nodes(v, original),
                (None, Err(_)) => Vec::new(),
            };
            let mut ids: Vec<NodeId> = nodes.iter().filter_map(|p| pane.tree.nearest(p)).collect();
            ids.sort_unstable();
            ids.dedup();
            for &id in &ids {
                pane.unfold_to(id);
            }
            pane.rejecting = ids;
        }
    }

    fn move_payload(&mut self, delta: isize) {
        let n = self.view.as_ref().map_or(0, |v| v.payloads.len());
        if n == 0 {
            return;
        }
        let current = self.payload.unwrap_or(0) as isize;
        let target = (current + delta).clamp(0, n as isize - 1) as usize;
        self.select_payload(target);
    }

    /// Selects the first node that rejects the payload, original tree first.
    fn goto_rejecting(&mut self) {
        for side in [Side::Original, Side::Projection] {
            let first = self
                .pane_mut(side)
                .and_then(|p| p.rejecting.first().copied());
            if let Some(id) = first {
                self.focus_tree(side);
                if let Some(pane) = self.pane_mut(side) {
                    pane.reveal(id);
                }
                self.after_select(side);
                return;
            }
        }
        self.message = Some("no node rejects this payload".to_owned());
    }

    fn edit_payload(&mut self, new: bool) {
        let Some(view) = &self.view else { return };
        if !new {
            match self.payload_row() {
                Some(row) => {
                    self.effect = Some(Effect::Edit {
                        path: row.path.clone(),
                        create: None,
                    })
                }
                None => self.message = Some("no payload selected".to_owned()),
            }
            return;
        }
        let Some((source, tool)) = self.tool(view.entry) else {
            return;
        };
        let tools = source.manifest.as_ref().map_or(1, |m| m.tools.len());
        let (Some(path), Some(projection)) = (
            payloads::new_payload_path(source.payload_folder(), &tool.name, tools),
            &view.projection,
        ) else {
            self.message = Some(
                "no place for a new payload (tool name unusable as a folder, or projection failed)"
                    .to_owned(),
            );
            return;
        };
        let skeleton = payloads::skeleton(tool, projection).unwrap_or_else(|| "{}".to_owned());
        self.effect = Some(Effect::Edit {
            path,
            create: Some(skeleton),
        });
    }

    /// Re-reads every payload of the shown tool (after an edit) and checks them again in the
    /// background (a big projection's validators take seconds), keeping the view; then
    /// selects `path` when given and restores the detail pane's `scroll` when given.
    pub(super) fn reload_payloads(&mut self, path: Option<&Path>, scroll: Option<u16>) {
        let Some(entry) = self.view.as_ref().map(|v| v.entry) else {
            return;
        };
        if let Some(Entry::Tool { source, .. }) = self.entries.get(entry).copied() {
            let s = &mut self.sources[source];
            if let Ok(m) = &s.manifest {
                s.payload_files = payloads::discover_in(s.payload_folder(), m);
            }
        }
        if self.pending.as_ref().is_some_and(|p| !p.then.keeps_view()) {
            // What is being computed carries the payloads read when it was asked.
            self.request_again();
            return;
        }
        if self.view.as_ref().is_none_or(|v| v.projection.is_none()) {
            return;
        }
        let select = path.map(Path::to_path_buf);
        self.request_view(entry, None, After::Payloads { select, scroll });
    }

    /// The view of tool `entry` from its projection and trees. `keep` carries selection and
    /// unfolded pointers over from a previous view of the same tool (mode switch, reload).
    fn finish_view(&self, entry: usize, keep: Option<Kept>, done: Computed) -> Option<ToolView> {
        self.tool(entry)?;
        let Computed {
            projection,
            fresh,
            trees: [original, projected],
            lint,
            tool_set,
            payloads: (payloads, payload_error),
            diff,
            ..
        } = done;
        let projection = match projection {
            Ok(p) if fresh => Ok(self.remember(entry, p)),
            other => other,
        };
        let (projection, error, stopped_at) = match projection {
            Ok(p) => (Some(p), None, None),
            Err(Failure { message, pointer }) => (None, Some(message), Some(pointer)),
        };
        let (profile, report) = match lint {
            Some((profile, report)) => (Some(profile), report),
            None => (None, None),
        };
        let (original_groups, projected_groups) = pane_groups(report.as_ref());
        let mut panes = [
            TreePane::new(original, original_groups),
            TreePane::new(projected, projected_groups),
        ];
        if let Some(d) = &diff {
            for (pane, side) in panes.iter_mut().zip([Side::Original, Side::Projection]) {
                pane.diff_marks = super::changes::marks(d, &pane.tree, side);
            }
        }
        let view = ToolView {
            entry,
            panes,
            projection,
            error,
            payloads,
            payload_error,
            profile,
            report,
            tool_set,
            diff,
        };
        let reused = keep.as_ref().is_some_and(|k| k.states.is_some());
        for pane in &view.panes {
            if !reused {
                pane.open_initial(40);
            }
            if !pane.tree.is_empty() {
                pane.state.borrow_mut().select(Some(0));
            }
        }
        if let Some(kept) = keep {
            if let Some(states) = kept.states {
                // The old widget states keep the scroll offsets; their node ids mean nothing
                // in the new trees, so only what is re-opened below survives.
                for ((pane, mut state), opened) in view.panes.iter().zip(states).zip(&kept.opened) {
                    state.close_all();
                    state.select((!pane.tree.is_empty()).then_some(0));
                    *pane.state.borrow_mut() = state;
                    if opened.is_empty() {
                        // Nothing was open (the tree was empty: projection had failed).
                        pane.open_initial(40);
                    }
                }
            }
            for (pane, opened) in view.panes.iter().zip(&kept.opened) {
                for p in opened {
                    if let Some(id) = pane.tree.find(p) {
                        pane.state.borrow_mut().open(id);
                    }
                }
            }
            if let Some((side, pointer)) = &kept.other
                && let Some(id) = view.pane(*side).tree.nearest(pointer)
            {
                view.pane(*side).reveal(id);
            }
            let pane = view.pane(kept.side);
            if let Some(id) = pane.tree.nearest(&kept.selected) {
                pane.reveal(id);
            }
        } else if let Some(stopped_at) = stopped_at {
            // Show where projection stopped: that node is what the user has to fix.
            let pane = view.pane(Side::Original);
            if let Some(id) = pane.tree.nearest(&stopped_at) {
                pane.reveal(id);
            }
        }
        Some(view)
    }

    /// Compares the first file with `baseline` instead of the version it was opened with
    /// (`--diff OLD NEW`), and shows the changes screen.
    pub fn set_baseline(&mut self, baseline: Manifest) {
        if let Some(source) = self.sources.first_mut() {
            source.baseline = Baseline::Kept(baseline);
        }
        self.open_changes();
    }

    /// The source whose changes `D` shows: the shown tool's file, else the first.
    fn changes_source(&self) -> Option<&Source> {
        self.view
            .as_ref()
            .and_then(|v| self.source_of(v.entry))
            .or_else(|| self.sources.first())
    }

    /// The changes screen for the shown tool's file: every tool against its baseline. The
    /// diff projects every tool twice, so it is computed in the background: the screen says
    /// so until the report arrives.
    pub(super) fn open_changes(&mut self) {
        let Some(source) = self.changes_source() else {
            return;
        };
        let (Some(baseline), Ok(current)) = (source.baseline(), &source.manifest) else {
            self.message = Some("no baseline: the file did not load when it was opened".to_owned());
            return;
        };
        let lines = super::changes::diffing_lines(&baseline.origin, &current.origin, self.theme);
        let asked = self.wants_report() && self.pending.is_some();
        self.overlay = Some(Overlay::Changes {
            scroll: 0,
            lines,
            diffing: true,
        });
        if asked {
            return;
        }
        if !self.show_changes {
            // From now on the trees mark what changed, whatever tool is shown; the report
            // comes with the view.
            self.show_changes = true;
            let side = self.last_tree;
            let selected = self.selected_pointer(side).map(|p| (side, p.to_owned()));
            self.view = None;
            self.show_entry(self.current_entry(), selected);
        }
        if self.wants_report() && self.pending.is_none() {
            self.request_report();
        }
    }

    /// Whether the changes screen waits for its report.
    fn wants_report(&self) -> bool {
        matches!(self.overlay, Some(Overlay::Changes { diffing: true, .. }))
    }

    /// What computes the changes screen's report of tool `entry`'s file.
    fn report_job(&self, entry: usize) -> Option<ReportJob> {
        self.report_job_of(self.source_of(entry)?)
    }

    fn report_job_of(&self, source: &Source) -> Option<ReportJob> {
        let (baseline, current) = (source.baseline()?, source.manifest.as_ref().ok()?);
        let options = schemalens::diff::DiffOptions {
            projection: self.options.clone(),
            profiles: Vec::new(),
        };
        Some(ReportJob::of(baseline, current, options))
    }

    /// Asks for the changes screen's report: with the shown view kept, once nothing else is
    /// computed (`receive` asks then); inline when no tool is shown (a file without tools).
    fn request_report(&mut self) {
        if self.pending.is_some() {
            return;
        }
        if let Some(entry) = self.view.as_ref().map(|v| v.entry) {
            self.request_view(entry, None, After::Report);
            return;
        }
        let job = self.changes_source().and_then(|s| self.report_job_of(s));
        if let Some(job) = job {
            let known = projecting::Known::default();
            self.show_report(job.run(&schemalens::projection::Cancel::never(), &known));
        }
    }

    /// Fills the changes screen with `report`, if it still waits for one.
    fn show_report(&mut self, report: ChangesReport) {
        if let Some(Overlay::Changes { lines, diffing, .. }) = &mut self.overlay
            && *diffing
        {
            *lines = super::changes::report_lines(
                &report.report,
                &report.baseline,
                &report.current,
                self.theme,
            );
            *diffing = false;
        }
    }

    /// The chosen provider's verdicts on tool `entry` in its three forms (`projection`: the
    /// shown projection, or why there is none), in the request of every tool of its file (the
    /// file's tool-list facts made here when they were not), and those facts.
    fn lint_report(
        &self,
        entry: usize,
        projection: Result<&Projection, Option<&str>>,
    ) -> (Option<ProfileLint>, Option<Arc<ToolSet>>) {
        let (Some(profile), Some((source, tool))) = (self.profile, self.tool(entry)) else {
            return (None, None);
        };
        let (Ok(manifest), Some(Entry::Tool { tool: index, .. })) =
            (&source.manifest, self.entries.get(entry))
        else {
            return (None, None);
        };
        // A bare schema has no tool name of its own (the title stands in for one).
        let named = manifest.format != ManifestFormat::BareSchema;
        let forms = ToolForms {
            name: named.then_some(tool.name.as_str()),
            tool,
            options: &self.options,
            projection: projection.map_err(|e| e.unwrap_or("the projection failed")),
        };
        let job = ToolSetJob::of(&self.tool_sets, manifest, *index, profile, &self.options);
        // The app's own options are never cancelled: this runs to the end.
        projecting::lint_in_manifest(profile, &forms, Some(job), &self.options).unwrap_or_default()
    }

    /// Payloads read as the model's calls for the chosen provider, or as the tool's payloads
    /// again. Without a provider there is no tailored form for a call to be in.
    fn toggle_calls(&mut self) {
        let Some(profile) = self.profile else {
            self.message =
                Some("calls from the model are read for a provider: choose one with p".to_owned());
            return;
        };
        self.calls = !self.calls;
        self.reload_payloads(None, None);
        self.message = Some(if self.calls {
            format!(
                "payloads read as calls the model made for {}: what the tool gets back",
                profile.name()
            )
        } else {
            "payloads read as the tool's own again".to_owned()
        });
    }

    /// Next profile: none, then each in [`Profile::ALL`] order, then none again.
    fn cycle_profile(&mut self) {
        let all = Profile::ALL;
        self.profile = match self.profile {
            None => all.first().copied(),
            Some(p) => all
                .iter()
                .position(|&q| q == p)
                .and_then(|i| all.get(i + 1))
                .copied(),
        };
        // Calls are in a provider's form: with none chosen, payloads are the tool's again.
        self.calls &= self.profile.is_some();
        if self.relint_in_background() {
            if let Some(p) = self.profile {
                self.message = Some(format!("{}: linting…", p.name()));
            }
            return;
        }
        self.relint();
        // The payload panel shows each payload as the chosen provider is sent it.
        self.reload_payloads(None, None);
        self.message = Some(self.profile_message());
    }

    /// What the status bar says of the profile just chosen: its verdicts on the shown tool.
    fn profile_message(&self) -> String {
        match (self.profile, &self.view) {
            (None, _) => "provider lint off".to_owned(),
            (Some(p), Some(view)) => match &view.report {
                Some(report) => format!(
                    "{}: {} · L lists why",
                    p.name(),
                    super::lint::verdicts(report)
                ),
                None => format!("{}: {}", p.name(), p.label()),
            },
            (Some(p), None) => format!("{}: {}", p.name(), p.label()),
        }
    }

    /// With a worker, lints for the profile just chosen there, with the trees (a big tool's
    /// lint takes seconds): the shown view stays, folds, selection and scroll are kept.
    /// Whether it did.
    fn relint_in_background(&mut self) -> bool {
        if self.profile.is_none() || !self.worker.as_ref().is_some_and(|w| w.running()) {
            return false;
        }
        if self.pending.as_ref().is_some_and(|p| !p.then.keeps_view()) {
            // Asked again, so that the worker lints for this profile.
            self.request_again();
            return true;
        }
        let Some(view) = &self.view else {
            return false;
        };
        if view.profile == self.profile {
            return false;
        }
        let side = self.active_side();
        let kept = Kept::keeping(view, side, Keeping::Relint);
        let entry = view.entry;
        self.request_view(entry, Some(kept), After::Relinted { link: side });
        true
    }

    /// Lints the shown tool for the current profile, in its three forms.
    pub(super) fn relint(&mut self) {
        let Some(view) = &self.view else { return };
        if view.profile == self.profile {
            return;
        }
        let projection = view.projection.as_deref().ok_or(view.error.as_deref());
        let (report, tool_set) = self.lint_report(view.entry, projection);
        let (original, projected) = pane_groups(report.as_ref());
        let profile = self.profile;
        if let Some(view) = &mut self.view {
            view.panes[0].set_lint(original);
            view.panes[1].set_lint(projected);
            view.profile = profile;
            view.report = report;
            view.tool_set = tool_set;
        }
    }

    /// Links the other tree to `side`'s selection: selects and reveals the first counterpart
    /// and marks all of them.
    pub(super) fn link_from(&mut self, side: Side) {
        self.link(side, true);
    }

    /// Marks the other tree's counterparts of `side`'s selection, leaving that tree's own
    /// selection where it is: the user only moved into `side`'s pane. The detail pane reads
    /// its "from original" / "projected at" from these marks.
    fn mark_links_from(&mut self, side: Side) {
        self.link(side, false);
    }

    fn link(&mut self, side: Side, select: bool) {
        let Some(view) = &mut self.view else { return };
        let (Some(projection), Some(selected)) =
            (&view.projection, view.panes[side.index()].selected())
        else {
            return;
        };
        let from = &view.panes[side.index()].tree;
        let mut pointer = &*from.node(selected).pointer;
        // A node the projection dropped has no link of its own; its closest ancestor that has
        // one is where it went.
        let counterparts = loop {
            let found = match side {
                Side::Original => projection.links.projections(pointer),
                Side::Projection => projection.links.originals(pointer),
            };
            if !found.is_empty() {
                break found;
            }
            match schemalens::pointer::parent(pointer) {
                Some(p) => pointer = p,
                None => break &[][..],
            }
        };
        let other = &view.panes[side.other().index()];
        let mut linked: Vec<NodeId> = counterparts
            .iter()
            .filter_map(|p| other.tree.nearest(p))
            .collect();
        linked.dedup();
        // The node at the same pointer is the natural counterpart (a flattened union and the
        // union it came from), ahead of the definitions that were inlined into it.
        let same = other.tree.find(pointer);
        if let Some(i) = same.and_then(|s| linked.iter().position(|&l| l == s)) {
            let node = linked.remove(i);
            linked.insert(0, node);
        }
        if select && let Some(&first) = linked.first() {
            other.reveal(first);
        }
        view.panes[side.other().index()].linked = linked;
        view.panes[side.index()].linked.clear();
    }

    /// Most lines of JSON the JSON screen shows per side.
    const JSON_LINES: usize = 20_000;

    fn open_json(&mut self) {
        let Some(view) = &self.view else {
            self.message = Some("no tool to show".to_owned());
            return;
        };
        let Some((_, tool)) = self.tool(view.entry) else {
            return;
        };
        let original = overlay::json_lines(&tool.schema, self.theme, Self::JSON_LINES);
        let projection = match (&view.projection, &view.error) {
            (Some(p), _) => overlay::json_lines(&p.schema, self.theme, Self::JSON_LINES),
            (None, Some(e)) => super::render::error_text(self, "Projection failed", e),
            (None, None) => Vec::new(),
        };
        self.overlay = Some(Overlay::Json {
            scroll: 0,
            original,
            projection,
        });
    }

    /// Opens the lint list at the first finding on the selected node, if it has one.
    fn open_lint(&mut self) {
        let Some(view) = &self.view else {
            self.message = Some("no tool to lint".to_owned());
            return;
        };
        if self.profile.is_none() {
            self.message = Some("no provider chosen: p cycles through them".to_owned());
            return;
        }
        let side = self.active_side();
        let pane = view.pane(side);
        let on_node = pane.selected().and_then(|id| pane.lint.first_on(id));
        let form = match side {
            Side::Original => Form::Original,
            Side::Projection => Form::Projection,
        };
        let selected = on_node.map_or(0, |i| super::lint::index_of(view, form, i));
        let height = super::lint::list_height(self.size);
        let offset = super::lint::keep_visible(view, selected, 0, height);
        self.overlay = Some(Overlay::Lint { selected, offset });
    }

    /// Leaves the lint list for the node finding `n` is attached to. A finding on the tailored
    /// schema (which no tree shows) goes to the projection's node at the same place, else to
    /// the original node it comes from.
    fn jump_to_finding(&mut self, n: usize) {
        let Some(view) = &self.view else { return };
        let Some((form, _, g)) = super::lint::finding(view, n) else {
            return;
        };
        let at = g.finding.pointer.to_string();
        let (side, pointer) = match form {
            Form::Original => (Side::Original, at),
            Form::Projection => (Side::Projection, at),
            Form::Tailored if view.pane(Side::Projection).tree.find(&at).is_some() => {
                (Side::Projection, at)
            }
            Form::Tailored => match g.origins.first() {
                Some(origin) => (Side::Original, origin.clone()),
                None => (Side::Projection, at),
            },
        };
        self.overlay = None;
        if !self.select_pointer(side, &pointer) {
            self.message = Some(format!("#{} is not in the tree", escape(&pointer)));
        }
    }

    /// Leaves the lint list for payload `index` in the payload panel, which marks the nodes
    /// that reject it.
    fn show_payload(&mut self, index: usize) {
        self.overlay = None;
        self.focus = Pane::Payloads;
        self.detail_of = DetailOf::Payload;
        self.select_payload(index);
    }

    /// Lines per side in the model view, like the JSON screen.
    fn open_model_view(&mut self) {
        let Some(view) = &self.view else {
            self.message = Some("no tool to show".to_owned());
            return;
        };
        let Some((_, tool)) = self.tool(view.entry) else {
            return;
        };
        let theme = self.theme;
        let original =
            super::lint::model_lines(&lint::ollama_view(&tool.schema), theme, Self::JSON_LINES);
        let projection = match (&view.projection, &view.error) {
            (Some(p), _) => {
                super::lint::model_lines(&lint::ollama_view(&p.schema), theme, Self::JSON_LINES)
            }
            (None, Some(e)) => super::render::error_text(self, "Projection failed", e),
            (None, None) => Vec::new(),
        };
        self.overlay = Some(Overlay::Model {
            scroll: 0,
            original,
            projection,
        });
    }

    fn yank(&mut self, action: Action) {
        let Some(view) = &self.view else {
            self.message = Some("nothing to copy".to_owned());
            return;
        };
        let side = self.active_side();
        let pointer = self.selected_pointer(side).map(str::to_owned);
        let (what, text) = match action {
            Action::YankSchema => match &view.projection {
                Some(p) => (
                    "projected schema",
                    serde_json::to_string_pretty(&p.schema).ok(),
                ),
                None => ("projected schema", None),
            },
            Action::YankPointer => ("pointer", pointer.map(|p| format!("#{p}"))),
            _ => {
                let schema = match side {
                    Side::Original => self.tool(view.entry).map(|(_, t)| &*t.schema),
                    Side::Projection => view.projection.as_ref().map(|p| &p.schema),
                };
                let node = pointer
                    .as_deref()
                    .zip(schema)
                    .and_then(|(p, s)| s.pointer(p));
                (
                    "node JSON",
                    node.and_then(|v| serde_json::to_string_pretty(v).ok()),
                )
            }
        };
        match text {
            Some(text) => {
                self.message = Some(format!(
                    "copied the {what} ({} bytes) to the clipboard (OSC 52)",
                    text.len()
                ));
                self.clipboard = Some(text);
            }
            None => self.message = Some(format!("no {what} to copy")),
        }
    }

    /// Focuses `side`'s tree and selects the node at `pointer` (or its closest ancestor),
    /// linking the other tree, as if the user had navigated there.
    pub fn select_pointer(&mut self, side: Side, pointer: &str) -> bool {
        let Some(id) = self.pane_mut(side).and_then(|p| p.tree.nearest(pointer)) else {
            return false;
        };
        self.focus_tree(side);
        if let Some(pane) = self.pane_mut(side) {
            pane.reveal(id);
        }
        self.after_select(side);
        true
    }

    /// The pointer of the node selected in `side`'s tree.
    pub fn selected_pointer(&self, side: Side) -> Option<&str> {
        let pane = self.view.as_ref()?.pane(side);
        pane.selected().map(|id| &*pane.tree.node(id).pointer)
    }

    fn pane_mut(&self, side: Side) -> Option<&TreePane> {
        self.view.as_ref().map(|v| v.pane(side))
    }

    fn tree_rows(&self, side: Side) -> usize {
        let areas = self.areas();
        areas.trees[side.index()].map_or(10, |r| r.height.saturating_sub(2) as usize)
    }

    fn detail_rows(&self) -> u16 {
        self.areas()
            .detail
            .map_or(5, |r| r.height.saturating_sub(2))
    }

    fn move_cursor(&mut self, delta: isize) {
        if self.visible.is_empty() {
            return;
        }
        let last = self.visible.len() as isize - 1;
        self.cursor = (self.cursor as isize + delta).clamp(0, last) as usize;
        self.show_cursor_entry();
    }

    pub(super) fn apply_filter(&mut self) {
        let needle = self.filter.to_lowercase();
        let current = self.current_entry();
        self.visible = (0..self.entries.len())
            .filter(|&e| needle.is_empty() || self.entry_text(e).to_lowercase().contains(&needle))
            .collect();
        self.cursor = current
            .and_then(|c| self.visible.iter().position(|&v| v == c))
            .unwrap_or(0);
        *self.list.borrow_mut() = ListState::default();
        self.show_cursor_entry();
    }

    /// The text the filter matches: tool name and file.
    pub fn entry_text(&self, entry: usize) -> String {
        match (self.tool(entry), self.source_of(entry)) {
            (Some((source, tool)), _) => format!("{} {}", tool.name, source.path),
            (None, Some(source)) => source.path.clone(),
            _ => String::new(),
        }
    }

    fn tree_step(&mut self, side: Side, delta: isize) {
        if let Some(pane) = self.pane_mut(side) {
            pane.step(delta);
        }
        self.after_select(side);
    }

    fn after_select(&mut self, side: Side) {
        self.detail_scroll = 0;
        self.link_from(side);
    }

    pub(super) fn set_mode(&mut self, mode: Mode) {
        self.options.mode = mode;
        let Some(view) = &self.view else {
            self.request_again();
            return;
        };
        let kept = Kept::keeping(view, self.active_side(), Keeping::Mode);
        let then = After::Reproject {
            link: kept.side,
            message: format!("projected again in {mode} mode"),
        };
        let entry = view.entry;
        self.request_view(entry, Some(kept), then);
    }

    /// Projects again under the other open-branches policy. Both trees keep their shape
    /// (only joined properties change), so folds and the selection stay where they were.
    fn set_open_branches(&mut self, policy: OpenBranches) {
        self.options.open_branches = policy;
        let Some(view) = &self.view else {
            self.request_again();
            return;
        };
        let side = self.active_side();
        let kept = Kept::keeping(view, side, Keeping::Branches);
        let note = match (policy, self.options.mode) {
            (_, Mode::Inline) => " (it matters in flat mode only)",
            (OpenBranches::Declared, Mode::Flat) => {
                ": declared shapes kept, foreign values rejected"
            }
            (OpenBranches::Strict, Mode::Flat) => ": exactly sound, tolerated names unconstrained",
        };
        let then = After::Reproject {
            link: side,
            message: format!("open branches {policy}{note}"),
        };
        let entry = view.entry;
        self.request_view(entry, Some(kept), then);
    }

    fn search_step(&mut self, forward: bool) {
        let Some(search) = self.search.clone() else {
            self.message = Some("no search yet: press / in a tree".to_owned());
            return;
        };
        if self.find_match(search.side, &search.query, forward, false) {
            self.after_select(search.side);
        } else {
            self.message = Some(format!("no match for {:?}", search.query));
        }
    }

    /// Selects the next node (in document order, folded ones included) matching `query`.
    /// `inclusive` lets the current node match, for search-as-you-type.
    fn find_match(&mut self, side: Side, query: &str, forward: bool, inclusive: bool) -> bool {
        let Some(pane) = self.pane_mut(side) else {
            return false;
        };
        let needle = query.to_lowercase();
        let n = pane.tree.nodes.len();
        if n == 0 || needle.is_empty() {
            return false;
        }
        let start = pane.selected().map_or(0, |s| s as usize);
        let order: Vec<usize> = if forward {
            let first = if inclusive { 0 } else { 1 };
            (first..=n).map(|i| (start + i) % n).collect()
        } else {
            (1..=n).map(|i| (start + n - i) % n).collect()
        };
        let hit = order
            .into_iter()
            .find(|&i| pane.tree.nodes[i].matches(&needle));
        match hit {
            Some(i) => {
                pane.reveal(i as NodeId);
                let total = pane
                    .tree
                    .nodes
                    .iter()
                    .filter(|n| n.matches(&needle))
                    .count();
                let index = pane.tree.nodes[..=i]
                    .iter()
                    .filter(|n| n.matches(&needle))
                    .count();
                self.message = Some(format!("match {index}/{total} for {query:?}"));
                true
            }
            None => false,
        }
    }

    fn focus_tree(&mut self, side: Side) {
        self.focus = match side {
            Side::Original => Pane::Original,
            Side::Projection => Pane::Projection,
        };
        self.focus_changed();
    }

    /// Keeps what the detail pane describes in step with where the user is.
    fn focus_changed(&mut self) {
        match self.focus {
            Pane::Original | Pane::Projection => {
                self.last_tree = self.active_side();
                self.detail_of = DetailOf::Tree;
                self.mark_links_from(self.last_tree);
            }
            Pane::Payloads => {
                self.detail_of = DetailOf::Payload;
                if self.payload.is_none() {
                    self.select_payload(0);
                }
            }
            Pane::Tools | Pane::Detail => {}
        }
    }

    fn click(&mut self, column: u16, row: u16) {
        let areas = self.areas();
        let pos = Position::new(column, row);
        if let Some(tools) = areas.tools
            && tools.contains(pos)
        {
            self.focus = Pane::Tools;
            let offset = self.list.borrow().offset();
            let index = offset + row.saturating_sub(tools.y + 1) as usize;
            if row > tools.y && index < self.visible.len() {
                self.cursor = index;
                self.show_cursor_entry();
            }
            return;
        }
        if let Some(list) = areas.payloads
            && list.contains(pos)
        {
            self.focus = Pane::Payloads;
            self.focus_changed();
            let offset = self.payload_list.borrow().offset();
            if row > list.y {
                self.select_payload(offset + (row - list.y - 1) as usize);
            }
            return;
        }
        for side in [Side::Original, Side::Projection] {
            if let Some(area) = areas.trees[side.index()]
                && area.contains(pos)
            {
                self.focus_tree(side);
                let clicked = self
                    .pane_mut(side)
                    .is_some_and(|p| p.state.borrow_mut().click_at(pos));
                if clicked {
                    self.after_select(side);
                }
                return;
            }
        }
        if let Some(detail) = areas.detail
            && detail.contains(pos)
        {
            self.focus = Pane::Detail;
        }
    }

    fn scroll(&mut self, column: u16, row: u16, down: bool) {
        const LINES: usize = 3;
        let areas = self.areas();
        let pos = Position::new(column, row);
        if areas.tools.is_some_and(|r| r.contains(pos)) {
            self.move_cursor(if down { 1 } else { -1 });
            return;
        }
        if areas.payloads.is_some_and(|r| r.contains(pos)) {
            self.move_payload(if down { 1 } else { -1 });
            return;
        }
        for side in [Side::Original, Side::Projection] {
            if areas.trees[side.index()].is_some_and(|r| r.contains(pos)) {
                if let Some(pane) = self.pane_mut(side) {
                    let mut state = pane.state.borrow_mut();
                    if down {
                        state.scroll_down(LINES);
                    } else {
                        state.scroll_up(LINES);
                    }
                }
                return;
            }
        }
        if areas.detail.is_some_and(|r| r.contains(pos)) {
            self.scroll_detail(if down { LINES as i32 } else { -(LINES as i32) });
        }
    }

    fn scroll_detail(&mut self, delta: i32) {
        let max = self.detail_max_scroll() as i32;
        self.detail_scroll = (self.detail_scroll as i32 + delta).clamp(0, max) as u16;
    }

    /// How far the detail pane scrolls: until its last line is at the bottom.
    pub fn detail_max_scroll(&self) -> u16 {
        let Some(area) = self.areas().detail else {
            return 0;
        };
        let width = area.width.saturating_sub(2);
        let lines = super::detail::lines(self, width);
        let rows = super::render::wrap(&lines, width).len();
        rows.saturating_sub(area.height.saturating_sub(2) as usize)
            .min(u16::MAX as usize) as u16
    }

    fn end_input(&mut self, keep: bool) {
        let Some(input) = self.input.take() else {
            return;
        };
        match input.purpose {
            InputPurpose::Filter => {
                if !keep {
                    self.filter.clear();
                    self.apply_filter();
                }
            }
            InputPurpose::Search(side) => {
                if keep && !input.text.is_empty() {
                    self.search = Some(Search {
                        side,
                        query: input.text,
                    });
                } else if let Some((side, id)) = input.before {
                    if let Some(pane) = self.pane_mut(side) {
                        pane.reveal(id);
                    }
                    self.after_select(side);
                    self.message = None;
                }
            }
            InputPurpose::Why => {
                if keep {
                    self.explain_error(&input.text);
                }
            }
        }
    }

    fn input_changed(&mut self) {
        let Some(input) = &self.input else { return };
        match input.purpose {
            InputPurpose::Filter => {
                self.filter = input.text.clone();
                self.apply_filter();
            }
            InputPurpose::Search(side) => {
                let query = input.text.clone();
                if let Some((_, before)) = input.before
                    && let Some(pane) = self.pane_mut(side)
                {
                    // Search as you type starts from where the search began, so narrowing the
                    // query can move back to an earlier, better match.
                    pane.reveal(before);
                }
                if query.is_empty() {
                    self.message = None;
                } else if self.find_match(side, &query, true, true) {
                    self.after_select(side);
                } else {
                    self.message = Some(format!("no match for {query:?}"));
                }
            }
            // Nothing happens while pasting: Enter explains.
            InputPurpose::Why => {}
        }
    }
}

/// The lint list's keys: the selection moves over findings and the rows scroll with it.
fn lint_list(app: &mut App, action: Action) {
    let Some(Overlay::Lint { selected, offset }) = app.overlay.clone() else {
        return;
    };
    let height = super::lint::list_height(app.size);
    let page = height.saturating_sub(1).max(1);
    let selected = match action {
        Action::CloseOverlay => {
            app.overlay = None;
            return;
        }
        Action::Jump => {
            match app
                .view
                .as_ref()
                .and_then(|v| super::lint::payload_at(v, selected))
            {
                Some(payload) => app.show_payload(payload),
                None => app.jump_to_finding(selected),
            }
            return;
        }
        Action::ModelView => {
            app.open_model_view();
            return;
        }
        Action::CycleProfile => {
            app.cycle_profile();
            0
        }
        Action::Down => selected.saturating_add(1),
        Action::Up => selected.saturating_sub(1),
        Action::PageDown => selected.saturating_add(page),
        Action::PageUp => selected.saturating_sub(page),
        Action::Top => 0,
        Action::Bottom => usize::MAX,
        Action::Resize { width, height } => {
            app.size = Rect::new(0, 0, width, height);
            selected
        }
        _ => selected,
    };
    let Some(view) = &app.view else { return };
    let selected = selected.min(super::lint::selectable(view).saturating_sub(1));
    let offset = if action == Action::CycleProfile {
        0
    } else {
        super::lint::keep_visible(view, selected, offset, super::lint::list_height(app.size))
    };
    app.overlay = Some(Overlay::Lint { selected, offset });
}

/// What survives a re-projection of the same tool.
pub(super) struct Kept {
    pub side: Side,
    pub selected: String,
    pub opened: [Vec<String>; 2],
    /// The other tree's selection, for when the links do not lead back to it.
    pub other: Option<(Side, String)>,
    /// The widget states to reuse (a reload keeps the scroll position).
    pub states: Option<[TreeView; 2]>,
    /// Taken again from the view on screen when the result arrives: that view stays while
    /// the same tool is projected or linted, and keys keep moving in it meanwhile.
    pub again: Option<Keeping>,
}

/// What a request for the shown tool keeps of where the user is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Keeping {
    /// Another provider: the trees are the same, so everything stays, scrolling included.
    Relint,
    /// Another open-branches policy: both trees keep their shape.
    Branches,
    /// Another mode: projection pointers change meaning, so only the original's folds stay.
    Mode,
}

impl Kept {
    /// What `view` shows with `side` focused, as `how` keeps it.
    pub(super) fn keeping(view: &ToolView, side: Side, how: Keeping) -> Kept {
        let kept = match how {
            Keeping::Relint => Kept::of(view, side, true),
            Keeping::Branches => Kept::of(view, side, false),
            Keeping::Mode => Kept::across_modes(view, side),
        };
        Kept {
            again: Some(how),
            ..kept
        }
    }

    /// The original's folds and the selection of whichever tree the user was in; a
    /// projection node is kept as its original counterpart, since the same projection pointer
    /// may not exist in the other mode.
    fn across_modes(view: &ToolView, side: Side) -> Kept {
        let selected = view
            .pane(side)
            .selected()
            .map(|id| view.pane(side).tree.node(id).pointer.to_string())
            .unwrap_or_default();
        let kept = Kept {
            side,
            selected,
            opened: [view.panes[0].opened_pointers(), Vec::new()],
            other: None,
            states: None,
            again: None,
        };
        if side != Side::Projection {
            return kept;
        }
        let original = view
            .projection
            .as_ref()
            .and_then(|p| p.links.originals(&kept.selected).first().cloned());
        match original {
            Some(o) => Kept {
                side: Side::Original,
                selected: o,
                ..kept
            },
            None => kept,
        }
    }

    /// What `view` shows with `side` focused: both selections, the unfolded nodes, and the
    /// scroll positions when `with_states` (a relint keeps them; a new projection cannot).
    fn of(view: &ToolView, side: Side, with_states: bool) -> Kept {
        let selected_of = |s: Side| {
            view.pane(s)
                .selected()
                .map(|id| view.pane(s).tree.node(id).pointer.to_string())
        };
        let other = side.other();
        Kept {
            side,
            selected: selected_of(side).unwrap_or_default(),
            opened: [
                view.panes[0].opened_pointers(),
                view.panes[1].opened_pointers(),
            ],
            other: selected_of(other).map(|p| (other, p)),
            states: with_states.then(|| {
                [
                    view.panes[0].state.borrow().clone(),
                    view.panes[1].state.borrow().clone(),
                ]
            }),
            again: None,
        }
    }
}

/// Applies one action. The only function that changes the [`App`].
pub fn update(app: &mut App, action: Action) {
    if !matches!(action, Action::Resize { .. }) {
        app.message = None;
    }
    if matches!(app.overlay, Some(Overlay::Lint { .. })) {
        lint_list(app, action);
        return;
    }
    if app.overlay == Some(Overlay::ConfirmCall) {
        app.confirm_keys(action);
        return;
    }
    if action == Action::ModelView && app.overlay.is_some() {
        // `w` leads to the model view from any screen, and out of it again.
        if matches!(app.overlay, Some(Overlay::Model { .. })) {
            app.overlay = None;
        } else {
            app.open_model_view();
        }
        return;
    }
    if let Some(overlay) = &app.overlay {
        let scroll = overlay.scroll();
        let max = overlay::max_scroll(app, overlay, app.size);
        let page = app.size.height.saturating_sub(4).max(1);
        let to = match action {
            Action::CloseOverlay => {
                app.overlay = None;
                return;
            }
            Action::Down => scroll.saturating_add(1),
            Action::Up => scroll.saturating_sub(1),
            Action::PageDown => scroll.saturating_add(page),
            Action::PageUp => scroll.saturating_sub(page),
            Action::Top => 0,
            Action::Bottom => max,
            Action::Resize { width, height } => {
                app.size = Rect::new(0, 0, width, height);
                scroll
            }
            _ => scroll,
        };
        if let Some(overlay) = &mut app.overlay {
            overlay.set_scroll(to.min(max));
        }
        return;
    }
    if let Some(input) = &mut app.input {
        match action {
            Action::InputChar(c) => {
                // Only a pasted error keeps its lines; a search or filter is one line.
                let c = if c == '\n' && input.purpose != InputPurpose::Why {
                    ' '
                } else {
                    c
                };
                input.text.push(c);
                app.input_changed();
            }
            Action::InputBackspace => {
                input.text.pop();
                app.input_changed();
            }
            Action::InputConfirm => app.end_input(true),
            Action::InputCancel => app.end_input(false),
            Action::Down | Action::Up => {
                let forward = action == Action::Down;
                match input.purpose {
                    InputPurpose::Filter => app.move_cursor(if forward { 1 } else { -1 }),
                    InputPurpose::Search(side) => {
                        let query = input.text.clone();
                        if app.find_match(side, &query, forward, false) {
                            app.after_select(side);
                        }
                    }
                    InputPurpose::Why => {}
                }
            }
            Action::Resize { width, height } => app.size = Rect::new(0, 0, width, height),
            _ => {}
        }
        return;
    }
    let side = app.active_side();
    let in_tree = matches!(app.focus, Pane::Original | Pane::Projection);
    match action {
        Action::Quit => app.quit = true,
        Action::Help => app.overlay = Some(Overlay::Help { scroll: 0 }),
        Action::JsonView => app.open_json(),
        Action::Changes => app.open_changes(),
        Action::Rules => {
            app.overlay = Some(Overlay::Rules {
                scroll: 0,
                lines: overlay::rules_lines(app.theme),
            })
        }
        Action::CloseOverlay => {}
        Action::YankNode | Action::YankSchema | Action::YankPointer => app.yank(action),
        Action::FocusNext | Action::FocusPrev => {
            let cycle = Pane::CYCLE;
            let i = cycle.iter().position(|p| *p == app.focus).unwrap_or(0);
            let step = if action == Action::FocusNext {
                1
            } else {
                cycle.len() - 1
            };
            app.focus = cycle[(i + step) % cycle.len()];
            app.focus_changed();
        }
        Action::Up | Action::Down | Action::PageUp | Action::PageDown => {
            let sign: isize = if matches!(action, Action::Up | Action::PageUp) {
                -1
            } else {
                1
            };
            let page = matches!(action, Action::PageUp | Action::PageDown);
            match app.focus {
                Pane::Tools => {
                    let rows =
                        app.areas().tools.map_or(10, |r| r.height.saturating_sub(2)) as isize;
                    app.move_cursor(sign * if page { rows.max(1) } else { 1 });
                }
                Pane::Original | Pane::Projection => {
                    let rows = app.tree_rows(side) as isize;
                    app.tree_step(side, sign * if page { rows.max(1) } else { 1 });
                }
                Pane::Detail => {
                    let rows = if page { app.detail_rows() as i32 } else { 1 };
                    app.scroll_detail(sign as i32 * rows);
                }
                Pane::Payloads => {
                    let rows = app
                        .areas()
                        .payloads
                        .map_or(5, |r| r.height.saturating_sub(2))
                        as isize;
                    app.move_payload(sign * if page { rows.max(1) } else { 1 });
                }
            }
        }
        Action::Top | Action::Bottom => {
            let big = if action == Action::Top {
                isize::MIN / 2
            } else {
                isize::MAX / 2
            };
            match app.focus {
                Pane::Tools => app.move_cursor(big),
                Pane::Payloads => app.move_payload(big),
                Pane::Original | Pane::Projection => app.tree_step(side, big),
                Pane::Detail => {
                    app.detail_scroll = if action == Action::Top {
                        0
                    } else {
                        app.detail_max_scroll()
                    }
                }
            }
        }
        Action::Left | Action::Right | Action::Toggle | Action::Parent if in_tree => {
            let Some(pane) = app.pane_mut(side) else {
                return;
            };
            let Some(id) = pane.selected() else { return };
            let node = pane.tree.node(id);
            let is_open = pane.state.borrow().is_open(id);
            let has_children = !node.children.is_empty();
            let mut moved = false;
            {
                let mut state = pane.state.borrow_mut();
                match action {
                    Action::Left if is_open => {
                        state.close(id);
                    }
                    Action::Left | Action::Parent => {
                        if let Some(parent) = node.parent {
                            state.select(Some(parent));
                            moved = true;
                        }
                    }
                    Action::Right if has_children && !is_open => {
                        state.open(id);
                    }
                    Action::Right => {
                        if let Some(&first) = node.children.first() {
                            state.select(Some(first));
                            moved = true;
                        }
                    }
                    _ => {
                        if has_children {
                            state.toggle(id);
                        }
                    }
                }
            }
            if moved {
                app.after_select(side);
            }
        }
        Action::ExpandAll | Action::CollapseAll => {
            let Some(pane) = app.pane_mut(side) else {
                return;
            };
            if action == Action::ExpandAll {
                pane.open_all();
            } else {
                let mut state = pane.state.borrow_mut();
                state.close_all();
                // A folded root shows one row and nothing to read; keep it open.
                state.open(0);
                // The selection moves up to the row that stays visible: its ancestor below
                // the root.
                let path = state.selected().map(|id| pane.tree.path(id));
                if let Some(path) = path.filter(|p| p.len() > 2) {
                    state.select(Some(path[1]));
                }
            }
            app.after_select(side);
        }
        Action::ToggleMode => {
            let mode = match app.options.mode {
                Mode::Inline => Mode::Flat,
                Mode::Flat => Mode::Inline,
            };
            app.set_mode(mode);
        }
        Action::ToggleOpenBranches => {
            let policy = match app.options.open_branches {
                OpenBranches::Declared => OpenBranches::Strict,
                OpenBranches::Strict => OpenBranches::Declared,
            };
            app.set_open_branches(policy);
        }
        Action::Search => {
            if !in_tree {
                app.focus_tree(side);
            }
            let before = app
                .pane_mut(side)
                .and_then(|p| p.selected())
                .map(|id| (side, id));
            app.input = Some(Input {
                purpose: InputPurpose::Search(side),
                text: String::new(),
                before,
            });
        }
        Action::NextMatch => app.search_step(true),
        Action::PrevMatch => app.search_step(false),
        Action::Filter => {
            app.focus = Pane::Tools;
            app.input = Some(Input {
                purpose: InputPurpose::Filter,
                text: app.filter.clone(),
                before: None,
            });
        }
        Action::OpenTool => app.focus_tree(Side::Original),
        Action::Why => {
            app.input = Some(Input {
                purpose: InputPurpose::Why,
                text: String::new(),
                before: None,
            });
        }
        Action::EditPayload => app.edit_payload(false),
        Action::NewPayload => app.edit_payload(true),
        Action::GotoRejecting => app.goto_rejecting(),
        Action::CycleProfile => app.cycle_profile(),
        Action::ToggleCalls => app.toggle_calls(),
        Action::LintList => app.open_lint(),
        Action::ModelView => app.open_model_view(),
        // Only the lint list has something to go to.
        Action::Jump => {}
        Action::PayloadsChanged => {
            let path = app.effect.take().map(|Effect::Edit { path, .. }| path);
            if let Some(path) = &path {
                // The watcher's copy predates the edit; the file on disk is the news.
                app.live.payload_texts.remove(path);
            }
            app.reload_payloads(path.as_deref(), None);
        }
        Action::Reconnect => app.request_reconnect(),
        Action::CallPayload => app.ask_call(),
        // Only the call confirmation sends.
        Action::ConfirmCall => {}
        Action::NextTool => app.move_cursor(1),
        Action::PrevTool => app.move_cursor(-1),
        Action::Click { column, row } => app.click(column, row),
        Action::ScrollUp { column, row } => app.scroll(column, row, false),
        Action::ScrollDown { column, row } => app.scroll(column, row, true),
        Action::Resize { width, height } => app.size = Rect::new(0, 0, width, height),
        Action::Left | Action::Right | Action::Toggle | Action::Parent => {}
        Action::InputChar(_)
        | Action::InputBackspace
        | Action::InputConfirm
        | Action::InputCancel => {}
    }
}

/// The groups each tree shows: the original's and the projection's.
fn pane_groups(report: Option<&ProfileLint>) -> (Vec<Group>, Vec<Group>) {
    report.map_or_else(Default::default, |r| {
        (
            r.form(Form::Original).groups.clone(),
            r.form(Form::Projection).groups.clone(),
        )
    })
}
