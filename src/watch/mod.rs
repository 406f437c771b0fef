//! Following manifests and payload folders while editors and generators save them.
//!
//! A [`Watcher`] follows files (manifests) and folders (the files directly in them, such as
//! payloads) and hands each new version to a sink as a [`WatchEvent`]: the new bytes, a missing
//! file, or an error. It watches the *parent* folder of everything it follows, never the file
//! itself: vim, helix and JetBrains save by renaming a temporary file over the original, and a
//! watch on the file dies with the old inode. Events are debounced, and whatever event arrives,
//! the file is simply read again; a version with the same bytes as the last one reported is not
//! reported. The reader sees what an editor left on disk, which can be an empty or half-written
//! file for a moment (VS Code truncates, then writes): that version is reported like any other,
//! the consumer's parse error is a value it shows, and the next save replaces it.
//!
//! The sink is called from the watcher's thread. An interactive front end passes a closure that
//! sends into the channel its key events arrive on, so that one thread owns all state:
//!
//! ```no_run
//! use std::sync::mpsc;
//! use schemalens::watch::{Target, WatchConfig, WatchEvent, Watcher};
//!
//! enum AppEvent { Watch(WatchEvent) /* , Key(..), Tick, .. */ }
//!
//! let (tx, rx) = mpsc::channel();
//! let watch_tx = tx.clone();
//! let watcher = Watcher::start(
//!     [Target::file("tools.json"), Target::payloads("tools.payloads")],
//!     WatchConfig::default(),
//!     move |e| { let _ = watch_tx.send(AppEvent::Watch(e)); },
//! )?;
//! // The current state of every target is already in the channel.
//! while let Ok(AppEvent::Watch(event)) = rx.recv() {
//!     // reload, reproject, redraw
//! }
//! drop(watcher); // stops watching
//! # Ok::<(), schemalens::watch::WatchError>(())
//! ```

mod backend;
mod reproject;
mod state;

use std::collections::BTreeSet;
use std::hash::Hasher;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use notify::event::{AccessKind, AccessMode};
use notify::{ErrorKind as NotifyErrorKind, EventKind};
use notify_debouncer_full::DebounceEventResult;

use backend::Backend;
pub use reproject::ProjectionCache;
use state::{Child, DirTarget, FileTarget, Plan, Read, Seen, State};

/// Long enough to merge an editor's truncate and write, or a generator's burst, into one
/// reload; short enough to feel immediate.
pub const DEFAULT_DEBOUNCE: Duration = Duration::from_millis(200);
/// The `--poll` interval when none is given. Each poll lists and hashes the files of every
/// watched folder, so this is not made much shorter by default.
pub const DEFAULT_POLL_INTERVAL: Duration = Duration::from_millis(500);
/// Below this the debouncer would spin rather than wait.
pub const MIN_DEBOUNCE: Duration = Duration::from_millis(10);

/// How to watch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WatchConfig {
    /// How long after a filesystem event a file is read again. Events that keep arriving are
    /// merged; a version is read this long, plus up to an eighth of it, after its last write.
    pub debounce: Duration,
    /// Poll at this interval instead of using the platform's file events.
    pub poll: Option<Duration>,
}

impl Default for WatchConfig {
    fn default() -> Self {
        WatchConfig {
            debounce: DEFAULT_DEBOUNCE,
            poll: None,
        }
    }
}

/// Something to follow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// One file. Reported as `Changed` or `Missing` (or `Error`) under this path.
    File(PathBuf),
    /// The files directly in a folder whose extension is one of `extensions` (any file when
    /// empty), each reported under `path` joined with its name. The folder may be missing, and
    /// may be deleted and recreated; its files are then reported missing and back.
    Dir {
        path: PathBuf,
        extensions: Vec<String>,
    },
}

impl Target {
    pub fn file(path: impl Into<PathBuf>) -> Target {
        Target::File(path.into())
    }

    pub fn dir(path: impl Into<PathBuf>, extensions: &[&str]) -> Target {
        Target::Dir {
            path: path.into(),
            extensions: extensions.iter().map(|e| (*e).to_owned()).collect(),
        }
    }

    /// A payload folder: its `*.json` and `*.jsonl` files, as `schemalens check` reads them.
    pub fn payloads(path: impl Into<PathBuf>) -> Target {
        Target::dir(path, &["json", "jsonl"])
    }

    pub fn path(&self) -> &Path {
        match self {
            Target::File(path) | Target::Dir { path, .. } => path,
        }
    }
}

/// A new version of a followed file, as the sink receives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WatchEvent {
    /// The file exists with these bytes, different from the last version reported (or it is
    /// the first report). The bytes may be anything, including an empty or half-written file.
    Changed {
        path: PathBuf,
        content: Vec<u8>,
        /// [`content_hash`] of `content`.
        hash: u64,
    },
    /// The file does not exist (deleted, or not created yet). It is reported as `Changed` when
    /// it comes back, even with the same bytes as before.
    Missing { path: PathBuf },
    /// The file could not be read (permissions, a folder in its place), or the platform's
    /// watcher failed; `path` is `None` when the failure concerns no one file.
    Error {
        path: Option<PathBuf>,
        message: String,
    },
}

impl WatchEvent {
    pub fn path(&self) -> Option<&Path> {
        match self {
            WatchEvent::Changed { path, .. } | WatchEvent::Missing { path } => Some(path),
            WatchEvent::Error { path, .. } => path.as_deref(),
        }
    }
}

/// The hash in [`WatchEvent::Changed`]: lets a consumer that read a file itself recognise the
/// version it already has. Stable within one build of the program, not across builds.
pub fn content_hash(bytes: &[u8]) -> u64 {
    // SipHash with fixed keys: about a millisecond for a megabyte, and no dependency.
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    hasher.write(bytes);
    hasher.finish()
}

#[derive(Debug, thiserror::Error)]
pub enum WatchError {
    #[error("{}: {source}", path.display())]
    Path {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}: cannot watch: {source}", path.display())]
    Watch {
        path: PathBuf,
        source: notify::Error,
    },
    #[error("cannot start watching: {0}")]
    Start(notify::Error),
    #[error("{0}")]
    Config(String),
}

type Sink = Box<dyn FnMut(WatchEvent) + Send>;

struct Inner {
    state: State,
    sink: Sink,
}

struct Shared {
    /// Locked before `backend` whenever both are needed.
    inner: Mutex<Inner>,
    /// `None` once the watcher is being dropped.
    backend: Mutex<Option<Backend>>,
}

/// Follows files and folders until dropped. See the [module documentation](self).
pub struct Watcher {
    shared: Arc<Shared>,
    config: WatchConfig,
}

impl std::fmt::Debug for Watcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Watcher")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl Watcher {
    /// Starts following `targets`. Before this returns, the sink has received the current state
    /// of each: `Changed` for every file that exists (in a folder target: every matching file),
    /// `Missing` for a file target that does not. Changes made from the moment this is called
    /// are reported after those.
    ///
    /// The sink runs on the watcher's thread (and, for the initial state, on the caller's) with
    /// the watcher's state locked: it should not block, and must not call back into the
    /// `Watcher`. Sending into an unbounded channel is the intended use. Dropping the `Watcher`
    /// waits for a running sink call to return, then drops the sink.
    ///
    /// Fails when a target's parent folder does not exist or cannot be watched.
    pub fn start(
        targets: impl IntoIterator<Item = Target>,
        config: WatchConfig,
        sink: impl FnMut(WatchEvent) + Send + 'static,
    ) -> Result<Watcher, WatchError> {
        if config.debounce < MIN_DEBOUNCE {
            return Err(WatchError::Config(format!(
                "the debounce delay must be at least {} ms",
                MIN_DEBOUNCE.as_millis()
            )));
        }
        if config.poll.is_some_and(|p| p.is_zero()) {
            return Err(WatchError::Config(
                "the poll interval must be more than 0 ms".to_owned(),
            ));
        }
        let shared = Arc::new(Shared {
            inner: Mutex::new(Inner {
                state: State::default(),
                sink: Box::new(sink),
            }),
            backend: Mutex::new(None),
        });
        // The handler holds the shared state weakly: the backend lives inside it.
        let weak = Arc::downgrade(&shared);
        let handler = move |result: DebounceEventResult| {
            if let Some(shared) = weak.upgrade() {
                shared.handle(result);
            }
        };
        let backend =
            Backend::new(config.debounce, config.poll, handler).map_err(WatchError::Start)?;
        *lock(&shared.backend) = Some(backend);
        let watcher = Watcher { shared, config };
        for target in targets {
            watcher.add(target)?;
        }
        Ok(watcher)
    }

    /// Follows one more target (a manifest opened later, the payload folder of a tool that
    /// appeared). Its current state reaches the sink before this returns. Adding a path that
    /// is already followed replaces that target and reports its state again.
    pub fn add(&self, target: Target) -> Result<(), WatchError> {
        let mut inner = lock(&self.shared.inner);
        let given = target.path().to_path_buf();
        inner.state.files.remove(&given);
        inner.state.dirs.remove(&given);
        inner.state.children.retain(|_, c| c.dir != given);
        let mut plan = Plan::default();
        match target {
            Target::File(path) => {
                let keys = file_keys(&path)?;
                inner.state.files.insert(
                    path.clone(),
                    FileTarget {
                        given: path.clone(),
                        keys,
                        seen: Seen::Unknown,
                    },
                );
                plan.files.insert(path);
            }
            Target::Dir { path, extensions } => {
                let key = dir_key(&path)?;
                inner.state.dirs.insert(
                    path.clone(),
                    DirTarget {
                        given: path.clone(),
                        key,
                        extensions,
                    },
                );
                plan.dirs.insert(path);
            }
        }
        // Watch first, then read: a save in between is either read now or seen by the watch.
        let failed = self.shared.sync(&inner.state, &BTreeSet::new());
        if let Some((path, source)) = failed.into_iter().next() {
            inner.state.files.remove(&given);
            inner.state.dirs.remove(&given);
            return Err(WatchError::Watch { path, source });
        }
        refresh(&mut inner, plan);
        Ok(())
    }

    /// Stops following a target added under `path`; no events about it follow. Returns
    /// whether it was followed.
    pub fn remove(&self, path: &Path) -> bool {
        let mut inner = lock(&self.shared.inner);
        let was =
            inner.state.files.remove(path).is_some() | inner.state.dirs.remove(path).is_some();
        inner.state.children.retain(|_, c| c.dir != path);
        if was {
            // Nothing to report: a folder that cannot be unwatched only costs some events.
            let _ = self.shared.sync(&inner.state, &BTreeSet::new());
        }
        was
    }

    pub fn config(&self) -> WatchConfig {
        self.config
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        // Take the backend out before stopping it: the handler may be waiting for this lock,
        // and stopping waits for the handler.
        let backend = lock(&self.shared.backend).take();
        if let Some(backend) = backend {
            backend.stop();
        }
    }
}

impl Shared {
    fn handle(&self, result: DebounceEventResult) {
        let mut inner = lock(&self.inner);
        match result {
            Ok(events) => {
                let mut plan = Plan::default();
                for event in &events {
                    if event.need_rescan() {
                        plan = inner.state.plan_all();
                        break;
                    }
                    if is_relevant(&event.kind) {
                        inner.state.plan_paths(&event.paths, &mut plan);
                    }
                }
                if plan.is_empty() {
                    return;
                }
                let renew: BTreeSet<PathBuf> = plan
                    .dirs
                    .iter()
                    .filter_map(|given| inner.state.dirs.get(given))
                    .map(|d| d.key.clone())
                    .collect();
                for (path, e) in self.sync(&inner.state, &renew) {
                    let event = WatchEvent::Error {
                        path: Some(inner.state.report_as(&path).unwrap_or(path)),
                        message: format!("cannot watch: {e}"),
                    };
                    (inner.sink)(event);
                }
                refresh(&mut inner, plan);
            }
            Err(errors) => {
                for e in errors {
                    if let Some(event) = error_event(&inner.state, e) {
                        (inner.sink)(event);
                    }
                }
            }
        }
    }

    fn sync(&self, state: &State, renew: &BTreeSet<PathBuf>) -> Vec<(PathBuf, notify::Error)> {
        let wanted = state.watch_dirs(Path::is_dir);
        match lock(&self.backend).as_mut() {
            Some(backend) => backend.sync(&wanted, renew),
            None => Vec::new(),
        }
    }
}

/// Reads what `plan` names and reports what differs from the last report.
fn refresh(inner: &mut Inner, mut plan: Plan) {
    let Inner { state, sink } = inner;
    for given in &plan.dirs {
        let Some(dir) = state.dirs.get(given) else {
            continue;
        };
        // A folder that is gone lists as empty: the files known in it are then read, found
        // missing and reported so.
        if let Ok(entries) = std::fs::read_dir(&dir.key) {
            plan.children.extend(
                entries
                    .filter_map(|e| e.ok())
                    .map(|e| e.path())
                    .filter(|p| dir.wants(p) && p.is_file()),
            );
        }
        plan.children.extend(
            state
                .children
                .iter()
                .filter(|(_, c)| c.dir == *given)
                .map(|(k, _)| k.clone()),
        );
    }
    for given in &plan.files {
        if let Some(target) = state.files.get_mut(given)
            && let Some(event) = target
                .seen
                .observe(Read::file(&target.given), &target.given)
        {
            sink(event);
        }
    }
    for key in &plan.children {
        let Some(dir) = state.dirs.values().find(|d| d.wants(key)) else {
            continue;
        };
        let read = Read::file(key);
        let child = match state.children.get_mut(key) {
            Some(child) => child,
            // A file that was never seen and is already gone (an editor's temporary file)
            // is nobody's business.
            None if matches!(read, Read::NotFound) => continue,
            None => state.children.entry(key.clone()).or_insert(Child {
                dir: dir.given.clone(),
                report_as: dir.given.join(key.file_name().unwrap_or_default()),
                seen: Seen::Unknown,
            }),
        };
        if let Some(event) = child.seen.observe(read, &child.report_as) {
            if matches!(event, WatchEvent::Missing { .. }) {
                state.children.remove(key);
            }
            sink(event);
        }
    }
}

/// Opening and reading a file is reported by the native backend too, including our own reads
/// after each change: following those would re-read every file forever.
fn is_relevant(kind: &EventKind) -> bool {
    match kind {
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        EventKind::Access(_) => false,
        _ => true,
    }
}

fn error_event(state: &State, e: notify::Error) -> Option<WatchEvent> {
    match &e.kind {
        // The poller reports a watched folder that is gone on every poll; a missing file is
        // reported by reading it.
        NotifyErrorKind::PathNotFound | NotifyErrorKind::WatchNotFound => return None,
        NotifyErrorKind::Io(io) if io.kind() == std::io::ErrorKind::NotFound => return None,
        _ => {}
    }
    let path = e
        .paths
        .first()
        .map(|p| state.report_as(p).unwrap_or_else(|| p.clone()));
    let message = match &e.kind {
        NotifyErrorKind::Generic(m) => m.clone(),
        NotifyErrorKind::Io(io) => io.to_string(),
        NotifyErrorKind::MaxFilesWatch => {
            "the system limit on watched folders is reached (fs.inotify.max_user_watches); try --poll"
                .to_owned()
        }
        _ => e.to_string(),
    };
    Some(WatchEvent::Error { path, message })
}

/// How events name a file: its canonical parent joined with its name, and, for a symlink, the
/// file it resolves to (an editor that follows the link saves there).
fn file_keys(path: &Path) -> Result<Vec<PathBuf>, WatchError> {
    let (parent, name) = split(path)?;
    let mut keys = vec![parent.join(name)];
    if let Ok(real) = std::fs::canonicalize(path)
        && real != keys[0]
    {
        keys.push(real);
    }
    Ok(keys)
}

/// How events name a folder, whether or not it exists yet.
fn dir_key(path: &Path) -> Result<PathBuf, WatchError> {
    if let Ok(real) = std::fs::canonicalize(path) {
        return Ok(real);
    }
    let (parent, name) = split(path)?;
    Ok(parent.join(name))
}

/// The canonical parent folder and the last component.
fn split(path: &Path) -> Result<(PathBuf, &std::ffi::OsStr), WatchError> {
    let name = path.file_name().ok_or_else(|| {
        WatchError::Config(format!("{}: names no file or folder", path.display()))
    })?;
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let parent = std::fs::canonicalize(parent).map_err(|source| WatchError::Path {
        path: parent.to_path_buf(),
        source,
    })?;
    Ok((parent, name))
}

/// A panic in the sink must not silence the watcher for the rest of the session.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
