//! Projecting a tool and building its two trees off the event loop: a 100 k-node tool takes
//! seconds, and the inspector must draw and take keys meanwhile.
//!
//! Each request carries a generation; a newer request supersedes every older one. The worker
//! skips a superseded request it has not started, cancels one it is running (the projection
//! and the trees look at the request's cancel token as they go, so it ends within a node's
//! work), and the inspector drops any result whose generation is not the newest it asked for.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use schemalens::lint::Profile;
use schemalens::lint::report::{self, ProfileLint, ToolForms};
use schemalens::lint::tool_set::ToolSet;
use schemalens::manifest::{ManifestFormat, SchemaDialect, Tool};
use schemalens::projection::Cancel;
use schemalens::{Options, Projection, ProjectionError, project_tool};

use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;

use serde_json::Value;

use schemalens::diff::{DiffOptions, Report, ToolDiff};
use schemalens::manifest::Manifest;
use schemalens::validate::discover::PayloadFile;

use super::changes;
use super::live::{self, PaneChanges};
use super::payloads::{self, PayloadRow};
use super::text::escape;
use super::tree::{SchemaTree, Side};

/// What to project, taken out of the app so that the worker owns it.
pub struct Request {
    pub generation: u64,
    /// The file's name as errors show it.
    pub origin: String,
    pub tool: Tool,
    pub options: Options,
    /// The projection cache's answer, when it had one: only the trees are left to build.
    pub cached: Option<Arc<Projection>>,
    /// The provider to lint the tool's three forms for, and whether the tool has a name of its
    /// own to check (a bare schema has none): a lint of a big tool takes as long as projecting.
    pub lint: Option<(Profile, bool)>,
    /// The other tools of the tool's manifest, which the lint's tool-list rules read (see
    /// [`ToolSetJob`]).
    pub tool_set: Option<ToolSetJob>,
    /// The tool's payloads to check against both schemas (compiling validators for a big
    /// projection takes seconds).
    pub payloads: Option<PayloadJob>,
    /// The tool's changes since its file's baseline, when they are shown (the diff projects
    /// both versions again).
    pub diff: Option<DiffJob>,
    /// The view shown stays: only the payloads and the diffs are computed, with the shown
    /// projection in `cached` (a payload file saved, `D`); no trees, no lint.
    pub checks_only: bool,
    /// Every tool of the file against its baseline, for the changes screen (`D`): it
    /// projects every tool twice.
    pub report: Option<ReportJob>,
    /// The view a save replaces, to mark what the save changed in the new trees: comparing
    /// two 200 k-node trees takes seconds.
    pub marks: Option<MarksJob>,
}

/// The view a save replaces: its trees, and the schemas they show.
pub struct MarksJob {
    pub trees: [Arc<SchemaTree>; 2],
    pub schema: Arc<Value>,
    pub projection: Option<Arc<Projection>>,
}

/// The payload files of one tool, and what to read them from.
pub struct PayloadJob {
    pub files: Vec<PayloadFile>,
    /// The tool's index in its manifest.
    pub index: usize,
    /// Texts the watcher already read; the others are read from disk.
    pub texts: HashMap<PathBuf, Vec<u8>>,
    /// The provider each payload is also adapted and checked for.
    pub sent_to: Option<Profile>,
    /// Each payload is read as the model's call for that provider's tailored schema.
    pub calls: bool,
}

/// A tool and its baseline version, each in a manifest of its own (the diff reads a
/// manifest's format and tools, never its document; schemas and documents are shared, not
/// copied).
pub struct DiffJob {
    pub baseline: Manifest,
    pub current: Manifest,
    pub options: DiffOptions,
}

impl DiffJob {
    /// The job for `tool` of `current`, against `baseline`.
    pub fn of(
        baseline: &Manifest,
        current: &Manifest,
        tool: &Tool,
        options: DiffOptions,
    ) -> DiffJob {
        let only = |m: &Manifest, tool: Option<&Tool>| Manifest {
            origin: m.origin.clone(),
            format: m.format,
            document: Arc::clone(&m.document),
            tools: tool.into_iter().cloned().collect(),
        };
        DiffJob {
            baseline: only(baseline, changes::baseline_tool(baseline, current, tool)),
            current: only(current, Some(tool)),
            options,
        }
    }

    fn run(mut self, cancel: &Cancel, known: &Known) -> Option<ToolDiff> {
        self.options.projection.cancel = cancel.clone();
        let tool = self.current.tools.first()?;
        let project = |t: &Tool| known.project(t, &self.options.projection);
        changes::tool_diff(&self.baseline, &self.current, tool, &self.options, &project)
    }
}

/// A file and its baseline, for the changes screen: copies that share the app's documents
/// and schemas (see [`Manifest`]), so making the job copies none of them.
pub struct ReportJob {
    /// `None`: the baseline is `current` itself (nothing was saved since it was opened).
    pub baseline: Option<Manifest>,
    pub current: Manifest,
    pub options: DiffOptions,
}

impl ReportJob {
    pub fn of(baseline: &Manifest, current: &Manifest, options: DiffOptions) -> ReportJob {
        ReportJob {
            baseline: (!std::ptr::eq(baseline, current)).then(|| baseline.clone()),
            current: current.clone(),
            options,
        }
    }

    /// The report, each schema projected once through `known` (see [`Known`]).
    pub fn run(self, cancel: &Cancel, known: &Known) -> ChangesReport {
        let ReportJob {
            baseline,
            current,
            mut options,
        } = self;
        options.projection.cancel = cancel.clone();
        let baseline = baseline.as_ref().unwrap_or(&current);
        let project = |t: &Tool| known.project(t, &options.projection);
        ChangesReport {
            report: schemalens::diff::diff_with(baseline, &current, &[], &options, &project),
            baseline: baseline.origin.clone(),
            current: current.origin.clone(),
        }
    }
}

/// Projections made or used for a diff lately, by the schema they are of (its address, its
/// dialect, the options): the change marks and the changes screen's report project the shown
/// tool's new version (the view's projection) and its baseline, again at every save; each is
/// projected once. Few are kept, as each can be as large as its tool, and only for diffs: a
/// view without change marks keeps nothing here.
#[derive(Clone, Default)]
pub struct Known {
    entries: Arc<Mutex<VecDeque<KnownEntry>>>,
    /// How many projections were made here (the rest were found).
    projected: Arc<AtomicU64>,
}

struct KnownEntry {
    schema: Arc<Value>,
    dialect: SchemaDialect,
    options: String,
    projection: Arc<Projection>,
}

impl Known {
    /// The view's projection, the baseline's, and the view's that a save replaces (until the
    /// app lets go of its version).
    const KEEP: usize = 3;

    fn entries(&self) -> std::sync::MutexGuard<'_, VecDeque<KnownEntry>> {
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }

    #[cfg(test)]
    pub fn projected(&self) -> u64 {
        self.projected.load(Ordering::SeqCst)
    }

    fn get(&self, tool: &Tool, options: &str) -> Option<Arc<Projection>> {
        let mut entries = self.entries();
        let at = entries.iter().position(|e| {
            Arc::ptr_eq(&e.schema, &tool.schema)
                && e.dialect == tool.dialect
                && e.options == options
        })?;
        let entry = entries.remove(at)?;
        let projection = entry.projection.clone();
        entries.push_front(entry);
        Some(projection)
    }

    /// Keeps `projection` as `tool`'s under `options`, the least recently used one leaving.
    pub fn keep(&self, tool: &Tool, options: &Options, projection: Arc<Projection>) {
        let options = format!("{options:?}");
        if self.get(tool, &options).is_some() {
            return;
        }
        let mut entries = self.entries();
        // Found by address only: a schema nobody else holds any more is never asked again.
        entries.retain(|e| Arc::strong_count(&e.schema) > 1);
        entries.push_front(KnownEntry {
            schema: tool.schema.clone(),
            dialect: tool.dialect,
            options,
            projection,
        });
        entries.truncate(Self::KEEP);
    }

    /// `tool`'s projection under `options`: the one kept, else projected (outside the lock)
    /// and kept.
    pub fn project(
        &self,
        tool: &Tool,
        options: &Options,
    ) -> Result<Arc<Projection>, ProjectionError> {
        if let Some(p) = self.get(tool, &format!("{options:?}")) {
            return Ok(p);
        }
        let projection = Arc::new(project_tool(tool, options)?);
        self.projected.fetch_add(1, Ordering::SeqCst);
        self.keep(tool, options, projection.clone());
        Ok(projection)
    }
}

/// The tool-list facts of the manifests shown (see [`schemalens::lint::tool_set`]), by
/// manifest version (its document's address), profile and options: made once per version,
/// read by the lint of each of its tools. For Anthropic strict tool use they project and
/// tailor every tool of the manifest, which takes as long as `lint` of the whole file.
#[derive(Clone, Default)]
pub struct ToolSets {
    entries: Arc<Mutex<VecDeque<ToolSetEntry>>>,
}

struct ToolSetEntry {
    document: Arc<Value>,
    profile: Profile,
    options: String,
    set: Arc<ToolSet>,
}

impl ToolSets {
    /// A few versions and profiles; each is small (findings and a plan per tool).
    const KEEP: usize = 6;

    fn entries(&self) -> std::sync::MutexGuard<'_, VecDeque<ToolSetEntry>> {
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The facts of `manifest`'s tools for `profile` under `options`, when they were made.
    pub fn get(
        &self,
        manifest: &Manifest,
        profile: Profile,
        options: &Options,
    ) -> Option<Arc<ToolSet>> {
        let options = format!("{options:?}");
        self.entries()
            .iter()
            .find(|e| {
                Arc::ptr_eq(&e.document, &manifest.document)
                    && e.profile == profile
                    && e.options == options
            })
            .map(|e| e.set.clone())
    }

    fn keep(&self, manifest: &Manifest, profile: Profile, options: &Options, set: Arc<ToolSet>) {
        let mut entries = self.entries();
        // A version nobody else holds any more is never asked again.
        entries.retain(|e| Arc::strong_count(&e.document) > 1);
        entries.push_front(ToolSetEntry {
            document: manifest.document.clone(),
            profile,
            options: format!("{options:?}"),
            set,
        });
        entries.truncate(Self::KEEP);
    }

    /// The facts, made now (and kept) if they were not; `Err` when `options.cancel` stopped
    /// them.
    pub fn get_or_make(
        &self,
        manifest: &Manifest,
        profile: Profile,
        options: &Options,
    ) -> Result<Arc<ToolSet>, ProjectionError> {
        if let Some(set) = self.get(manifest, profile, options) {
            return Ok(set);
        }
        let named = manifest.format != ManifestFormat::BareSchema;
        let tools: Vec<&Tool> = manifest.tools.iter().collect();
        let set = Arc::new(report::tool_set_of(profile, &tools, named, options)?);
        self.keep(manifest, profile, options, set.clone());
        Ok(set)
    }
}

/// What the lint of tool `index` of a manifest needs of the others: their facts.
pub struct ToolSetJob {
    pub index: usize,
    pub facts: Facts,
}

pub enum Facts {
    Made(Arc<ToolSet>),
    /// To be made in the worker, from a copy of the manifest that shares its document and
    /// schemas, and kept in `sets`.
    Make {
        manifest: Manifest,
        sets: ToolSets,
    },
}

impl ToolSetJob {
    /// The job for tool `index` of `manifest`: its facts from `sets` when they are made, else
    /// what makes them.
    pub fn of(
        sets: &ToolSets,
        manifest: &Manifest,
        index: usize,
        profile: Profile,
        options: &Options,
    ) -> ToolSetJob {
        let facts = match sets.get(manifest, profile, options) {
            Some(set) => Facts::Made(set),
            None => Facts::Make {
                manifest: manifest.clone(),
                sets: sets.clone(),
            },
        };
        ToolSetJob { index, facts }
    }
}

/// The changes screen's report, and the names of the two versions compared.
pub struct ChangesReport {
    pub report: Report,
    pub baseline: String,
    pub current: String,
}

/// Why projecting failed, as the user reads it, and the pointer where it stopped.
#[derive(Debug, Clone)]
pub struct Failure {
    pub message: String,
    pub pointer: String,
}

/// A request's result.
pub struct Computed {
    pub generation: u64,
    pub projection: Result<Arc<Projection>, Failure>,
    /// Projected here rather than taken from the cache: the cache should keep it.
    pub fresh: bool,
    /// The original tree and the projection's (empty when projecting failed).
    pub trees: [SchemaTree; 2],
    /// The profile linted for, and its report.
    pub lint: Option<(Profile, Option<ProfileLint>)>,
    /// The tool-list facts of the tool's manifest the report was made with.
    pub tool_set: Option<Arc<ToolSet>>,
    /// The payloads' verdicts, and why they could not be checked (when asked for and the
    /// tool projected).
    pub payloads: (Vec<PayloadRow>, Option<String>),
    /// What changed since the baseline (when asked for).
    pub diff: Option<ToolDiff>,
    /// The changes screen's report (when asked for).
    pub report: Option<ChangesReport>,
    /// What the save changed in each tree (when asked for, and the trees were built).
    pub changes: Option<[PaneChanges; 2]>,
    pub took: Duration,
}

/// The error of projecting `tool` of `origin`, as the inspector shows it.
pub fn failure(origin: &str, tool: &Tool, e: &ProjectionError) -> Failure {
    let at = format!(
        "{}{}",
        tool.schema_pointer.as_deref().unwrap_or(""),
        e.pointer()
    );
    Failure {
        message: format!(
            "{} (tool \"{}\", at {}): {e}",
            origin,
            escape(&tool.name),
            if at.is_empty() { "/" } else { &at }
        ),
        pointer: e.pointer().to_owned(),
    }
}

/// The step a superseded request was stopped in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    Projection,
    Trees,
    Lint,
    /// Payload checks and the diff against the baseline.
    Checks,
}

/// Does the work of `request`, unless `superseded` says that it is no longer wanted (then the
/// step it stopped in). It is asked between steps and, through the request's cancel token
/// (raised by [`Worker::submit`]), inside the projection and the trees.
pub fn compute(request: Request, superseded: impl Fn(u64) -> bool) -> Result<Computed, Step> {
    compute_with(request, superseded, &Known::default())
}

/// [`compute`], the diff and the report projecting through `known`, which keeps projections
/// between requests.
pub fn compute_with(
    request: Request,
    superseded: impl Fn(u64) -> bool,
    known: &Known,
) -> Result<Computed, Step> {
    let start = Instant::now();
    let Request {
        generation,
        origin,
        tool,
        options,
        cached,
        lint,
        tool_set,
        payloads,
        diff,
        checks_only,
        report,
        marks,
    } = request;
    let stop = || options.cancel.is_cancelled() || superseded(generation);
    let fresh = cached.is_none();
    let projection = match cached {
        Some(p) => Ok(p),
        None => match project_tool(&tool, &options) {
            Ok(p) => Ok(Arc::new(p)),
            Err(ProjectionError::Cancelled { .. }) => return Err(Step::Projection),
            Err(e) => Err(failure(&origin, &tool, &e)),
        },
    };
    if stop() {
        return Err(Step::Projection);
    }
    let trees = if checks_only {
        Default::default()
    } else {
        build_trees(&tool, &projection, &stop)?
    };
    let changes = marks.filter(|_| !checks_only).map(|old| {
        let new_projection = projection.as_ref().ok().map(|p| &p.schema);
        let old_projection = old.projection.as_ref().map(|p| &p.schema);
        live::changes_between(
            [&old.trees[0], &old.trees[1]],
            [Some(&old.schema), old_projection],
            [&trees[0], &trees[1]],
            [Some(&tool.schema), new_projection],
        )
    });
    if stop() {
        return Err(Step::Trees);
    }
    let (lint, tool_set) = match lint.filter(|_| !checks_only) {
        Some((profile, named)) => {
            let forms = ToolForms {
                name: named.then_some(tool.name.as_str()),
                tool: &tool,
                options: &options,
                projection: match &projection {
                    Ok(p) => Ok(p.as_ref()),
                    Err(f) => Err(f.message.as_str()),
                },
            };
            let (report, set) =
                lint_in_manifest(profile, &forms, tool_set, &options).map_err(|_| Step::Lint)?;
            (Some((profile, report)), set)
        }
        None => (None, None),
    };
    // A lint cut short by a cancel (its tailored projection) is not the lint asked for.
    if stop() {
        return Err(Step::Lint);
    }
    let payloads = match (payloads, &projection) {
        (Some(job), Ok(p)) => payloads::check_all(
            &job.files,
            job.index,
            &tool,
            p,
            &options,
            &job.texts,
            job.sent_to.map(|profile| payloads::Provider {
                profile,
                options: &options,
                calls: job.calls,
            }),
        ),
        _ => (Vec::new(), None),
    };
    if let (Ok(p), true) = (&projection, diff.is_some() || report.is_some()) {
        // Both diff the shown tool's version projected just now (or shown already).
        known.keep(&tool, &options, p.clone());
    }
    let diff = diff.and_then(|job| job.run(&options.cancel, known));
    let report = report.map(|job| job.run(&options.cancel, known));
    if stop() {
        return Err(Step::Checks);
    }
    Ok(Computed {
        generation,
        projection,
        fresh,
        trees,
        lint,
        tool_set,
        payloads,
        diff,
        report,
        changes,
        took: start.elapsed(),
    })
}

/// The lint of one tool's three forms for `profile`, with what it owes to the other tools of
/// its manifest when `job` names them (their facts made first, or found made); `Err` when the
/// cancel stopped the facts.
pub fn lint_in_manifest(
    profile: Profile,
    forms: &ToolForms<'_>,
    job: Option<ToolSetJob>,
    options: &Options,
) -> Result<(Option<ProfileLint>, Option<Arc<ToolSet>>), ProjectionError> {
    let Some(job) = job else {
        return Ok((
            report::lint_forms(profile, std::slice::from_ref(forms)).pop(),
            None,
        ));
    };
    let set = match job.facts {
        Facts::Made(set) => set,
        Facts::Make { manifest, sets } => sets.get_or_make(&manifest, profile, options)?,
    };
    let report = report::lint_forms_in(profile, forms, job.index, &set);
    Ok((report, Some(set)))
}

/// The original tree and the projection's (empty when projecting failed), unless `stop`.
fn build_trees(
    tool: &Tool,
    projection: &Result<Arc<Projection>, Failure>,
    stop: &impl Fn() -> bool,
) -> Result<[SchemaTree; 2], Step> {
    let trace = projection.as_ref().map_or(&[][..], |p| &p.trace[..]);
    let original = SchemaTree::build_until(&tool.schema, Side::Original, trace, "root", stop)
        .ok_or(Step::Trees)?;
    let projected = match projection {
        Ok(p) => SchemaTree::build_until(&p.schema, Side::Projection, trace, "root", stop)
            .ok_or(Step::Trees)?,
        Err(_) => SchemaTree::default(),
    };
    if stop() {
        return Err(Step::Trees);
    }
    Ok([original, projected])
}

/// The newest request not yet taken, and whether the worker should stop.
#[derive(Default)]
struct Slot {
    request: Option<Request>,
    /// The request being computed: its generation, and the token that stops it.
    running: Option<(u64, Cancel)>,
    stop: bool,
}

struct Shared {
    slot: Mutex<Slot>,
    wake: Condvar,
    /// The newest generation asked for.
    newest: AtomicU64,
    /// Requests stopped before they were done, and the step each was in.
    stopped: Mutex<Vec<(u64, Step)>>,
    /// Projections kept for the diffs of later requests.
    known: Known,
}

/// One background thread that computes the newest request; results come back on a channel,
/// and `notify` is called after each so that the event loop wakes up.
pub struct Worker {
    shared: Arc<Shared>,
    results: Receiver<Computed>,
    thread: Option<JoinHandle<()>>,
    /// A worker without a thread, which tests drive one request at a time (`run_one`).
    by_hand: Option<Sender<Computed>>,
    /// What wakes the event loop (also when the files named are loaded, see `loading`).
    notify: Arc<dyn Fn() + Send + Sync>,
}

impl Worker {
    pub fn start(notify: impl Fn() + Send + Sync + 'static) -> Worker {
        let notify: Arc<dyn Fn() + Send + Sync> = Arc::new(notify);
        let shared = Arc::new(Shared {
            slot: Mutex::new(Slot::default()),
            wake: Condvar::new(),
            newest: AtomicU64::new(0),
            stopped: Mutex::default(),
            known: Known::default(),
        });
        let (tx, results) = mpsc::channel();
        let thread = {
            let (shared, notify) = (shared.clone(), notify.clone());
            std::thread::Builder::new()
                .name("schemalens-projection".to_owned())
                .spawn(move || work(&shared, &tx, || notify()))
                .ok()
        };
        Worker {
            shared,
            results,
            thread,
            by_hand: None,
            notify,
        }
    }

    /// What wakes the event loop, for other background work; `None` without a thread (tests
    /// driving the worker by hand do everything else inline too).
    pub fn notifier(&self) -> Option<Arc<dyn Fn() + Send + Sync>> {
        self.thread.is_some().then(|| self.notify.clone())
    }

    /// A worker whose requests wait until [`run_one`](Self::run_one) computes them.
    #[cfg(test)]
    pub fn by_hand() -> Worker {
        let (tx, results) = mpsc::channel();
        Worker {
            shared: Arc::new(Shared {
                slot: Mutex::new(Slot::default()),
                wake: Condvar::new(),
                newest: AtomicU64::new(0),
                stopped: Mutex::default(),
                known: Known::default(),
            }),
            results,
            thread: None,
            by_hand: Some(tx),
            notify: Arc::new(|| {}),
        }
    }

    /// Computes the request waiting, if there is one; its generation.
    #[cfg(test)]
    pub fn run_one(&self) -> Option<u64> {
        let request = lock(&self.shared.slot).request.take()?;
        let generation = request.generation;
        let done = compute_with(request, |_| false, &self.shared.known).ok()?;
        self.by_hand.as_ref()?.send(done).ok()?;
        Some(generation)
    }

    /// Asks for `request`, superseding whatever was asked before: one waiting is dropped,
    /// one running is cancelled (it ends within a schema node's work).
    pub fn submit(&self, request: Request) {
        self.shared
            .newest
            .store(request.generation, Ordering::SeqCst);
        let mut slot = lock(&self.shared.slot);
        if let Some((_, cancel)) = &slot.running {
            cancel.cancel();
        }
        slot.request = Some(request);
        self.shared.wake.notify_one();
    }

    /// Withdraws every request: the one waiting is dropped, the one running cancelled.
    pub fn cancel(&self) {
        let mut slot = lock(&self.shared.slot);
        slot.request = None;
        if let Some((_, cancel)) = &slot.running {
            cancel.cancel();
        }
    }

    /// The generation being computed now, if any.
    pub fn running_generation(&self) -> Option<u64> {
        lock(&self.shared.slot).running.as_ref().map(|(g, _)| *g)
    }

    /// The requests stopped before they were done (superseded while running), and where.
    pub fn stopped(&self) -> Vec<(u64, Step)> {
        self.shared
            .stopped
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// A result that arrived, if any.
    pub fn try_result(&self) -> Option<Computed> {
        self.results.try_recv().ok()
    }

    /// Waits up to `timeout` for a result.
    pub fn wait_result(&self, timeout: Duration) -> Option<Computed> {
        self.results.recv_timeout(timeout).ok()
    }

    /// Whether the worker thread runs (it could not be spawned: the app projects inline).
    pub fn running(&self) -> bool {
        self.thread.is_some() || self.by_hand.is_some()
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let mut slot = lock(&self.shared.slot);
        slot.stop = true;
        if let Some((_, cancel)) = &slot.running {
            cancel.cancel();
        }
        drop(slot);
        self.shared.wake.notify_one();
        // A projection in progress is not waited for: the process is usually quitting, and
        // the cancel ends the thread's work at once.
        self.thread.take();
    }
}

fn lock(slot: &Mutex<Slot>) -> std::sync::MutexGuard<'_, Slot> {
    slot.lock().unwrap_or_else(|e| e.into_inner())
}

fn work(shared: &Shared, results: &Sender<Computed>, notify: impl Fn()) {
    loop {
        let request = {
            let mut slot = lock(&shared.slot);
            loop {
                if slot.stop {
                    return;
                }
                if let Some(mut r) = slot.request.take() {
                    // Registered under the lock that `submit` takes: a newer request either
                    // finds this token to cancel or is seen as newer between steps.
                    r.options.cancel = Cancel::new();
                    slot.running = Some((r.generation, r.options.cancel.clone()));
                    break r;
                }
                slot = shared.wake.wait(slot).unwrap_or_else(|e| e.into_inner());
            }
        };
        let superseded = |generation: u64| {
            generation < shared.newest.load(Ordering::SeqCst) || lock(&shared.slot).stop
        };
        let generation = request.generation;
        let done = compute_with(request, superseded, &shared.known);
        lock(&shared.slot).running = None;
        match done {
            Ok(done) => {
                if results.send(done).is_err() {
                    return;
                }
                notify();
            }
            Err(step) => shared
                .stopped
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push((generation, step)),
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use schemalens::manifest;

    fn tool(schema: &str) -> Tool {
        let text = format!(r#"{{"tools": [{{"name": "t", "inputSchema": {schema}}}]}}"#);
        manifest::load_str(&text, "m.json", None)
            .unwrap()
            .tools
            .remove(0)
    }

    fn request(generation: u64, schema: &str) -> Request {
        Request {
            generation,
            origin: "m.json".to_owned(),
            tool: tool(schema),
            options: Options::flat(),
            cached: None,
            lint: None,
            tool_set: None,
            payloads: None,
            diff: None,
            checks_only: false,
            report: None,
            marks: None,
        }
    }

    const UNION: &str =
        r#"{"properties": {"x": {"oneOf": [{"type": "string"}, {"type": "integer"}]}}}"#;

    #[test]
    fn computes_the_projection_and_both_trees() {
        let done = compute(request(1, UNION), |_| false).unwrap();
        assert!(done.fresh);
        let projection = done.projection.unwrap();
        assert!(projection.schema.pointer("/properties/x/anyOf").is_some());
        assert_eq!(done.trees[0].find("/properties/x/oneOf/1"), Some(3));
        assert_eq!(done.trees[1].find("/properties/x/anyOf/1"), Some(3));
    }

    #[test]
    fn lints_the_three_forms_when_asked() {
        let profile = Profile::ALL[0];
        let mut asked = request(1, UNION);
        asked.lint = Some((profile, true));
        let done = compute(asked, |_| false).unwrap();
        let (linted, report) = done.lint.expect("linted");
        assert_eq!(linted, profile);
        let (tool, options) = (tool(UNION), Options::flat());
        let projection = project_tool(&tool, &options).unwrap();
        let forms = ToolForms {
            name: Some("t"),
            tool: &tool,
            options: &options,
            projection: Ok(&projection),
        };
        let expected = report::lint_forms(profile, &[forms]).pop();
        assert!(expected.is_some());
        assert_eq!(format!("{report:?}"), format!("{expected:?}"));
        assert!(
            compute(request(1, UNION), |_| false)
                .unwrap()
                .lint
                .is_none()
        );
    }

    #[test]
    fn the_change_marks_and_the_report_project_each_schema_once() {
        let version = |max: u32| {
            let text = format!(
                r#"{{"title": "t", "properties": {{"x": {{"oneOf": [{{"type": "string"}}, {{"type": "integer", "maximum": {max}}}]}}}}}}"#
            );
            manifest::load_str(&text, "t.json", None).unwrap()
        };
        let baseline = version(1);
        let options = || DiffOptions {
            projection: Options::flat(),
            profiles: Vec::new(),
        };
        let asked = |current: &Manifest| Request {
            tool: current.tools[0].clone(),
            diff: Some(DiffJob::of(
                &baseline,
                current,
                &current.tools[0],
                options(),
            )),
            report: Some(ReportJob::of(&baseline, current, options())),
            ..request(1, "{}")
        };
        let known = Known::default();
        // Two saves: each projects its own version for the view; the diff and the report
        // share it, and the baseline is projected once for both saves.
        for max in [2, 3] {
            let current = version(max);
            let done = compute_with(asked(&current), |_| false, &known).unwrap();
            assert_eq!(known.projected(), 1, "only the baseline, once");
            assert!(done.fresh, "the view's own projection is the request's");
            let alone = compute(asked(&current), |_| false).unwrap();
            let diff = done.diff.expect("the tool changed");
            assert_eq!(diff.status, schemalens::diff::Status::Changed);
            assert_eq!(Some(diff), alone.diff);
            let report = done.report.map(|r| r.report);
            assert_eq!(report, alone.report.map(|r| r.report));
        }
    }

    #[test]
    fn a_save_s_change_marks_are_computed_with_its_view() {
        let old = compute(request(1, UNION), |_| false).unwrap();
        let saved = r#"{"properties": {"x": {"oneOf": [{"type": "string"}, {"type": "number"}]}, "y": {}}}"#;
        let mut asked = request(2, saved);
        let [original, projected] = old.trees;
        let old_projection = old.projection.unwrap();
        asked.marks = Some(MarksJob {
            trees: [Arc::new(original), Arc::new(projected)],
            schema: tool(UNION).schema,
            projection: Some(old_projection.clone()),
        });
        let marks = asked.marks.as_ref().map(|m| m.trees.clone()).unwrap();
        let done = compute(asked, |_| false).unwrap();
        let changes = done.changes.expect("marked in the worker");
        let new_projection = done.projection.unwrap();
        let here = live::changes_between(
            [&marks[0], &marks[1]],
            [Some(&*tool(UNION).schema), Some(&old_projection.schema)],
            [&done.trees[0], &done.trees[1]],
            [Some(&*tool(saved).schema), Some(&new_projection.schema)],
        );
        assert_eq!(changes, here);
        assert_eq!(changes[0].count, 2, "{changes:?}");
        let y = done.trees[0].find("/properties/y").unwrap();
        assert_eq!(changes[0].marks.get(&y), Some(&live::Change::Added));
    }

    #[test]
    fn a_superseded_request_stops_between_steps() {
        assert!(matches!(
            compute(request(1, UNION), |g| g < 2),
            Err(Step::Projection)
        ));
    }

    /// A request whose projection runs for seconds (a million nodes) unless cancelled.
    pub(crate) fn long_request(generation: u64) -> Request {
        let mut long = request(generation, &crate::projection::doubling(18).to_string());
        long.options.node_budget = Some(1 << 40);
        long
    }

    /// Waits until the worker has started `generation`.
    pub(crate) fn until_running(worker: &Worker, generation: u64) {
        let deadline = Instant::now() + Duration::from_secs(120);
        while worker.running_generation() != Some(generation) {
            assert!(Instant::now() < deadline, "the worker never started it");
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    #[test]
    fn a_newer_request_cancels_the_running_one_inside_its_projection() {
        let worker = Worker::start(|| {});
        worker.submit(long_request(1));
        until_running(&worker, 1);
        worker.submit(request(2, UNION));
        let done = worker
            .wait_result(Duration::from_secs(120))
            .expect("the newer request's result");
        assert_eq!(done.generation, 2);
        assert!(done.projection.is_ok());
        assert_eq!(worker.stopped(), vec![(1, Step::Projection)]);
        assert!(worker.try_result().is_none(), "nothing of the first");
    }

    #[test]
    fn a_failure_names_the_file_the_tool_and_the_pointer() {
        let mut over_budget = request(1, UNION);
        over_budget.options.node_budget = Some(2);
        let done = compute(over_budget, |_| false).unwrap();
        let Err(failure) = done.projection else {
            panic!("over the node budget, projecting fails")
        };
        assert!(
            failure.message.starts_with(&format!(
                "m.json (tool \"t\", at /tools/0/inputSchema{}",
                failure.pointer
            )),
            "{}",
            failure.message
        );
        assert!(
            failure.message.contains("more than 2 schema nodes"),
            "{}",
            failure.message
        );
        assert!(done.trees[1].is_empty());
        assert!(!done.trees[0].is_empty());
    }

    #[test]
    fn the_worker_answers_the_newest_request() {
        let worker = Worker::start(|| {});
        worker.submit(request(1, UNION));
        worker.submit(request(2, r#"{"type": "object"}"#));
        let mut last = None;
        while let Some(done) = worker.wait_result(Duration::from_secs(10)) {
            let generation = done.generation;
            last = Some(done);
            if generation == 2 {
                break;
            }
        }
        let last = last.expect("a result");
        assert_eq!(last.generation, 2);
        assert_eq!(last.trees[0].nodes.len(), 1);
    }
}
