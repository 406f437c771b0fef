//! The interactive inspector: the original schema beside its projection, with the trace's
//! highlights, linked selection and an explanation of every rule that touched a node.
//!
//! Elm-style: [`keys`] turns terminal events into [`keys::Action`]s through one key table,
//! [`app::update`] applies them to the [`App`], and [`render::render`] draws the `App`.

pub mod app;
mod changes;
mod detail;
pub mod keys;
mod lint;
pub mod live;
pub mod loading;
mod overlay;
mod payloads;
pub mod projecting;
pub mod render;
pub mod saving;
pub mod server;
#[cfg(test)]
mod svg;
pub mod text;
pub mod theme;
pub mod tree;
pub mod tree_view;
mod why;

#[cfg(test)]
mod diff_tests;
#[cfg(test)]
mod live_tests;
#[cfg(test)]
mod server_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod why_tests;

use std::collections::BTreeMap;
use std::io::{self, IsTerminal, Stdout};
use std::panic;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use color_eyre::eyre::{WrapErr, bail};
use crossterm::event::{
    self, DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture,
    Event,
};
use crossterm::execute;
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;

pub use app::App;
use keys::Action;
use live::{Msg, WatchMode};
use projecting::Worker;
use schemalens::mcp::{McpEvent, ServerSpec, Session};
use schemalens::watch::{Target, WatchConfig, WatchEvent, Watcher};
use server::ServerRequest;
use theme::Theme;

/// How the inspector starts.
#[derive(Debug, Clone)]
pub struct TuiOptions {
    /// Projection options; the mode can be switched in the UI with `m`.
    pub projection: schemalens::Options,
    /// Capture the mouse (click, wheel). Off leaves the terminal's own text selection working.
    pub mouse: bool,
    /// Colours; off keeps glyphs and modifiers. Default: off when `NO_COLOR` is set.
    pub color: bool,
    /// Follow the manifests and payload folders as they are saved; `None` is `--no-watch`.
    pub watch: Option<WatchConfig>,
    /// A provider's error to start from (`--why`): the inspector opens on its node.
    pub why: Option<String>,
    /// `--diff OLD NEW`: OLD, what the first file's changes are measured against (else the
    /// version it was opened with).
    pub baseline: Option<schemalens::manifest::Manifest>,
}

impl Default for TuiOptions {
    fn default() -> TuiOptions {
        TuiOptions {
            projection: schemalens::Options::flat(),
            mouse: true,
            color: Theme::from_env().color,
            watch: Some(WatchConfig::default()),
            why: None,
            baseline: None,
        }
    }
}

/// Runs the inspector on `files` until the user quits. The terminal is restored on return, on
/// error and on panic (raw mode, alternate screen and mouse capture).
pub fn run(files: Vec<PathBuf>, opts: TuiOptions) -> color_eyre::Result<()> {
    needs_terminal()?;
    let theme = Theme { color: opts.color };
    let (tx, rx) = mpsc::channel();
    let worker = background_worker(&tx);
    let mut app = App::load_with_worker(
        &files,
        opts.projection.clone(),
        theme,
        opts.mouse,
        Some(worker),
    );
    if opts.baseline.is_some() || opts.why.is_some() {
        // Both start on the file's tools.
        app.finish_loading();
    }
    if let Some(baseline) = opts.baseline.clone() {
        app.set_baseline(baseline);
    }
    if let Some(text) = &opts.why {
        app.explain_error(text);
    }
    run_app(app, opts, None, (tx, rx))
}

/// Projects in the background and wakes the event loop with each result.
fn background_worker(tx: &Sender<AppEvent>) -> Worker {
    let tx = tx.clone();
    Worker::start(move || {
        let _ = tx.send(AppEvent::Projected);
    })
}

/// A live MCP server to inspect, and where its payloads are kept.
#[derive(Debug, Clone)]
pub struct LiveServer {
    pub spec: ServerSpec,
    pub config: schemalens::mcp::Config,
    pub payloads: PathBuf,
}

/// Runs the inspector on a live server until the user quits; the server is stopped then.
pub fn run_server(server: LiveServer, opts: TuiOptions) -> color_eyre::Result<()> {
    needs_terminal()?;
    let theme = Theme { color: opts.color };
    let (tx, rx) = mpsc::channel();
    let mut app = App::live(
        &server.spec,
        server.payloads.clone(),
        opts.projection.clone(),
        theme,
        opts.mouse,
    );
    app.worker = Some(background_worker(&tx));
    run_app(app, opts, Some(server), (tx, rx))
}

fn needs_terminal() -> color_eyre::Result<()> {
    if !io::stdout().is_terminal() {
        bail!(
            "the inspector needs a terminal; for scripts use a subcommand such as `schemalens project FILE` or `schemalens explain FILE`"
        );
    }
    Ok(())
}
fn run_app(
    mut app: App,
    opts: TuiOptions,
    server: Option<LiveServer>,
    (tx, rx): (Sender<AppEvent>, Receiver<AppEvent>),
) -> color_eyre::Result<()> {
    let mut watch = Watch::start(&mut app, opts.watch, &tx);
    let mut link = ServerLink::new(server, tx.clone());
    link.connect(&mut app);
    let hook = install_panic_hook(opts.mouse);
    let result = (|| {
        let _guard = TerminalGuard::enter(opts.mouse)?;
        let mut terminal = Terminal::new(CrosstermBackend::new(io::stdout()))?;
        terminal.clear()?;
        let input = Input::spawn(tx);
        let result = event_loop(&mut terminal, &mut app, &rx, &input, &mut watch, &mut link);
        input.stop();
        result
    })();
    drop(watch);
    restore_panic_hook(hook);
    // After the terminal is back: stopping a server can take a moment.
    drop(link);
    result
}

/// The session with the live server, owned by the event loop; `update` asks for calls and
/// reconnects through [`App::server_requests`].
struct ServerLink {
    server: Option<LiveServer>,
    session: Option<Session>,
    generation: u64,
    tx: Sender<AppEvent>,
}

impl ServerLink {
    fn new(server: Option<LiveServer>, tx: Sender<AppEvent>) -> ServerLink {
        ServerLink {
            server,
            session: None,
            generation: 0,
            tx,
        }
    }

    /// Starts a new session; the old one is closed on a thread of its own (stopping a server
    /// can take a second) and its late events are ignored by generation.
    fn connect(&mut self, app: &mut App) {
        let Some(server) = &self.server else { return };
        self.generation += 1;
        let (tx, generation) = (self.tx.clone(), self.generation);
        let session = Session::start(server.spec.clone(), server.config, move |event| {
            let _ = tx.send(AppEvent::Mcp(generation, event));
        });
        if let Some(old) = self.session.replace(session) {
            std::thread::spawn(move || drop(old));
        }
        if let Some(view) = &mut app.server {
            view.connecting(generation);
        }
    }

    fn serve(&mut self, app: &mut App) {
        for request in app.server_requests() {
            match request {
                ServerRequest::Reconnect => self.connect(app),
                ServerRequest::Call(call) => {
                    let Some(session) = &mut self.session else {
                        continue;
                    };
                    let id = session.call(&call.key.tool, call.arguments.clone());
                    if let Some(view) = &mut app.server {
                        view.sent(id, call.key, call.arguments);
                    }
                }
            }
        }
    }
}

/// What reaches the event loop, on one channel, so that one thread owns the [`App`].
#[derive(Debug)]
pub enum AppEvent {
    Terminal(Event),
    Watch(WatchEvent),
    /// From the live server's session of this generation.
    Mcp(u64, McpEvent),
    /// Reading the terminal failed; the loop ends with this error.
    InputFailed(io::Error),
    /// A background projection is done (see [`App::poll_projection`]).
    Projected,
}

/// Reads terminal events on its own thread into the loop's channel. It can be paused while an
/// editor owns the terminal, so that it does not take the editor's keys.
struct Input {
    paused: Arc<AtomicBool>,
    stop: Arc<AtomicBool>,
    /// Held by the reader while it waits for a key; taking it means the reader is not reading.
    gate: Arc<Mutex<()>>,
    thread: JoinHandle<()>,
}

impl Input {
    /// How often the reader looks up from the terminal to see whether it should pause or stop.
    const POLL: Duration = Duration::from_millis(50);

    fn spawn(tx: Sender<AppEvent>) -> Input {
        let paused = Arc::new(AtomicBool::new(false));
        let stop = Arc::new(AtomicBool::new(false));
        let gate = Arc::new(Mutex::new(()));
        let (p, s, g) = (paused.clone(), stop.clone(), gate.clone());
        let thread = std::thread::spawn(move || {
            while !s.load(Ordering::SeqCst) {
                // Checked before the lock: a reader that took the lock straight back after
                // each poll could keep the loop from ever pausing it.
                if p.load(Ordering::SeqCst) {
                    std::thread::sleep(Self::POLL / 5);
                    continue;
                }
                let _reading = g.lock().unwrap_or_else(|e| e.into_inner());
                if p.load(Ordering::SeqCst) {
                    continue;
                }
                let event = match event::poll(Self::POLL) {
                    Ok(false) => continue,
                    Ok(true) => event::read().map(AppEvent::Terminal),
                    Err(e) => Err(e),
                };
                let event = event.unwrap_or_else(AppEvent::InputFailed);
                let failed = matches!(event, AppEvent::InputFailed(_));
                if tx.send(event).is_err() || failed {
                    return;
                }
            }
        });
        Input {
            paused,
            stop,
            gate,
            thread,
        }
    }

    /// Runs `f` while the reader is stopped (it finishes the poll it is in first).
    fn paused<T>(&self, f: impl FnOnce() -> T) -> T {
        self.paused.store(true, Ordering::SeqCst);
        let result = {
            let _gate = self.gate.lock().unwrap_or_else(|e| e.into_inner());
            f()
        };
        self.paused.store(false, Ordering::SeqCst);
        result
    }

    fn stop(self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = self.thread.join();
    }
}

/// The watcher and the targets it follows, kept in step with the open manifests' tools.
struct Watch {
    watcher: Option<Watcher>,
    /// Followed targets, and those whose folder's parent did not exist yet (retried).
    added: BTreeMap<PathBuf, Target>,
    failed: BTreeMap<PathBuf, Target>,
    retried: Instant,
}

impl Watch {
    /// How often targets that could not be followed are tried again (a payload folder that
    /// does not exist yet: its tools' subfolders cannot be watched until it does).
    const RETRY: Duration = Duration::from_secs(1);

    fn start(app: &mut App, config: Option<WatchConfig>, tx: &Sender<AppEvent>) -> Watch {
        let mut watch = Watch {
            watcher: None,
            added: BTreeMap::new(),
            failed: BTreeMap::new(),
            retried: Instant::now(),
        };
        let followed = app
            .sources
            .iter()
            .any(|s| s.file.is_some() || s.payload_dir.is_some());
        let Some(config) = config.filter(|_| followed) else {
            app.live.mode = WatchMode::Off;
            return watch;
        };
        app.live.mode = WatchMode::of(Some(config));
        let tx = tx.clone();
        match Watcher::start([], config, move |e| {
            let _ = tx.send(AppEvent::Watch(e));
        }) {
            Ok(w) => watch.watcher = Some(w),
            Err(e) => app.live.error = Some(e.to_string()),
        }
        watch.sync(app);
        watch
    }

    /// Follows what the app needs now and nothing else.
    fn sync(&mut self, app: &mut App) {
        let Some(watcher) = &self.watcher else { return };
        let wanted: BTreeMap<PathBuf, Target> = app
            .watch_targets()
            .into_iter()
            .map(|t| (t.path().to_path_buf(), t))
            .collect();
        self.added.retain(|path, _| {
            let keep = wanted.contains_key(path);
            if !keep {
                watcher.remove(path);
            }
            keep
        });
        self.failed.retain(|path, _| wanted.contains_key(path));
        for (path, target) in wanted {
            if self.added.contains_key(&path) || self.failed.contains_key(&path) {
                continue;
            }
            match watcher.add(target.clone()) {
                Ok(()) => {
                    self.added.insert(path, target);
                }
                Err(_) => {
                    self.failed.insert(path, target);
                }
            }
        }
    }

    fn retry(&mut self) {
        let Some(watcher) = &self.watcher else { return };
        if self.failed.is_empty() || self.retried.elapsed() < Self::RETRY {
            return;
        }
        self.retried = Instant::now();
        let failed = std::mem::take(&mut self.failed);
        for (path, target) in failed {
            match watcher.add(target.clone()) {
                Ok(()) => self.added.insert(path, target),
                Err(_) => self.failed.insert(path, target),
            };
        }
    }

    /// When the loop should wake up to retry, if something is waiting for it.
    fn deadline(&self) -> Option<Instant> {
        (!self.failed.is_empty()).then(|| self.retried + Self::RETRY)
    }
}

/// How long the loop waits for a projection it just asked for before drawing its progress.
const SETTLE: Duration = Duration::from_millis(50);

fn event_loop(
    terminal: &mut Terminal<CrosstermBackend<Stdout>>,
    app: &mut App,
    rx: &Receiver<AppEvent>,
    input: &Input,
    watch: &mut Watch,
    link: &mut ServerLink,
) -> color_eyre::Result<()> {
    let size = terminal.size()?;
    app::update(
        app,
        Action::Resize {
            width: size.width,
            height: size.height,
        },
    );
    loop {
        // A tool that projects quickly is drawn once, finished; a big one shows its progress.
        app.wait_projection(SETTLE);
        terminal.draw(|frame| render::render(app, frame))?;
        if app.quit {
            return Ok(());
        }
        // The frame that shows a `list_changed` is on screen: its delay is shown at once.
        if app.server.as_mut().is_some_and(|s| s.drawn(Instant::now())) {
            continue;
        }
        let deadline = [
            app.deadline(),
            watch.deadline(),
            app.server_deadline(),
            app.projection_deadline(),
        ]
        .into_iter()
        .flatten()
        .min();
        let first = match deadline {
            Some(d) => match rx.recv_timeout(d.saturating_duration_since(Instant::now())) {
                Ok(ev) => Some(ev),
                Err(RecvTimeoutError::Timeout) => None,
                Err(RecvTimeoutError::Disconnected) => bail!("the terminal reader stopped"),
            },
            None => Some(rx.recv().wrap_err("the terminal reader stopped")?),
        };
        // Everything already waiting is applied before the next frame: a burst of saves or
        // the watcher's first report of every payload is drawn once.
        let mut next = first;
        loop {
            match next {
                Some(AppEvent::Terminal(Event::Paste(text))) => {
                    for action in keys::actions_for_paste(app.context(), &text) {
                        live::handle(app, Msg::Action(action));
                    }
                }
                Some(AppEvent::Terminal(ev)) => {
                    if let Some(action) = keys::action_for_event(app.context(), &ev, app.mouse) {
                        live::handle(app, Msg::Action(action));
                    }
                }
                Some(AppEvent::Watch(ev)) => live::handle(app, Msg::Watch(ev)),
                Some(AppEvent::Mcp(generation, ev)) => {
                    live::handle(app, Msg::Mcp(generation, ev));
                }
                Some(AppEvent::InputFailed(e)) => {
                    return Err(e).wrap_err("reading a terminal event");
                }
                Some(AppEvent::Projected) => {
                    app.poll_projection();
                }
                None => {}
            }
            if let Some(text) = app.clipboard.take() {
                copy_osc52(&text)?;
            }
            if let Some(app::Effect::Edit { path, create }) = app.effect.clone() {
                let result = input.paused(|| edit(terminal, &path, create.as_deref(), app.mouse));
                app::update(app, Action::PayloadsChanged);
                if let Err(e) = result {
                    app.message = Some(format!("editor: {e}"));
                }
            }
            link.serve(app);
            if app.quit {
                break;
            }
            next = match rx.try_recv() {
                Ok(ev) => Some(ev),
                Err(_) => break,
            };
        }
        live::handle(app, Msg::Tick(Instant::now()));
        watch.sync(app);
        watch.retry();
    }
}

/// Enters raw mode, the alternate screen and (optionally) mouse capture; undoes all three when
/// dropped, so an early `?` return restores the terminal too.
struct TerminalGuard {
    mouse: bool,
}

impl TerminalGuard {
    fn enter(mouse: bool) -> color_eyre::Result<TerminalGuard> {
        enable_raw_mode()?;
        ACTIVE.store(true, Ordering::SeqCst);
        // From here on, Drop restores whatever part succeeded.
        let guard = TerminalGuard { mouse };
        execute!(io::stdout(), EnterAlternateScreen, EnableBracketedPaste)?;
        if mouse {
            execute!(io::stdout(), EnableMouseCapture)?;
        }
        Ok(guard)
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore_terminal(self.mouse);
    }
}

/// Whether the terminal is in the inspector's modes. Restoring twice (panic hook, then the
/// guard while unwinding) would leave the alternate screen twice, and the second time moves the
/// cursor back over the panic message.
static ACTIVE: AtomicBool = AtomicBool::new(false);

/// Best effort: every step runs even if an earlier one fails.
fn restore_terminal(mouse: bool) {
    if !ACTIVE.swap(false, Ordering::SeqCst) {
        return;
    }
    if mouse {
        let _ = execute!(io::stdout(), DisableMouseCapture);
    }
    let _ = execute!(
        io::stdout(),
        DisableBracketedPaste,
        LeaveAlternateScreen,
        crossterm::cursor::Show
    );
    let _ = disable_raw_mode();
}

type PanicHook = Arc<dyn Fn(&panic::PanicHookInfo<'_>) + Sync + Send + 'static>;

/// Restores the terminal before the panic message is printed; otherwise the message would go
/// to the alternate screen and vanish, and the shell would be left in raw mode.
fn install_panic_hook(mouse: bool) -> PanicHook {
    let previous: PanicHook = Arc::from(panic::take_hook());
    let chained = Arc::clone(&previous);
    panic::set_hook(Box::new(move |info| {
        restore_terminal(mouse);
        chained(info);
    }));
    previous
}

fn restore_panic_hook(previous: PanicHook) {
    let _ = panic::take_hook();
    panic::set_hook(Box::new(move |info| previous(info)));
}

/// Suspends the UI, runs `$VISUAL`/`$EDITOR` (default `vi`) on `path`, and takes the terminal
/// back whatever the editor did. `create` is written first when the file does not exist.
fn edit(
    terminal: &mut Terminal<CrosstermBackend<Stdout>>,
    path: &std::path::Path,
    create: Option<&str>,
    mouse: bool,
) -> color_eyre::Result<()> {
    if let Some(text) = create
        && !path.exists()
    {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        std::fs::write(path, format!("{text}\n"))?;
    }
    let editor = std::env::var("VISUAL")
        .or_else(|_| std::env::var("EDITOR"))
        .unwrap_or_else(|_| "vi".to_owned());
    restore_terminal(mouse);
    // Through the shell, so an editor with arguments (`code -w`) works; the path goes in as an
    // argument, never spliced into the command line.
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("{editor} \"$1\""))
        .arg("sh")
        .arg(path)
        .status();
    enable_raw_mode()?;
    ACTIVE.store(true, Ordering::SeqCst);
    execute!(io::stdout(), EnterAlternateScreen, EnableBracketedPaste)?;
    if mouse {
        execute!(io::stdout(), EnableMouseCapture)?;
    }
    terminal.clear()?;
    let status = status?;
    if !status.success() {
        bail!("{editor} exited with {status}");
    }
    Ok(())
}

/// Puts `text` on the clipboard with OSC 52: the terminal does the copying, so it works over
/// SSH and needs no clipboard daemon. Terminals that do not support it ignore the sequence.
fn copy_osc52(text: &str) -> io::Result<()> {
    use std::io::Write;
    let mut out = io::stdout();
    write!(out, "\x1b]52;c;{}\x07", base64(text.as_bytes()))?;
    out.flush()
}

/// Standard base64 with padding; the only encoding OSC 52 needs, not worth a dependency.
fn base64(data: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for (i, shift) in [18, 12, 6, 0].into_iter().enumerate() {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> shift & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod clipboard_tests {
    #[test]
    fn base64_matches_the_rfc_examples() {
        let cases = [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foobar", "Zm9vYmFy"),
        ];
        for (plain, encoded) in cases {
            assert_eq!(super::base64(plain.as_bytes()), encoded);
        }
    }
}
