//! The interactive inspector: the original schema beside its projection, with the trace's
//! highlights, linked selection and an explanation of every rule that touched a node.
//!
//! Elm-style: [`keys`] turns terminal events into [`keys::Action`]s through one key table,
//! [`app::update`] applies them to the [`App`], and [`render::render`] draws the `App`.

pub mod app;
mod detail;
pub mod keys;
mod overlay;
mod payloads;
pub mod render;
mod text;
pub mod theme;
pub mod tree;

#[cfg(test)]
mod tests;

use std::io::{self, IsTerminal, Stdout};
use std::panic;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use color_eyre::eyre::{WrapErr, bail};
use crossterm::event::{self, DisableMouseCapture, EnableMouseCapture};
use crossterm::execute;
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;

pub use app::App;
use keys::Action;
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
}

impl Default for TuiOptions {
    fn default() -> TuiOptions {
        TuiOptions {
            projection: schemalens::Options::flat(),
            mouse: true,
            color: Theme::from_env().color,
        }
    }
}

/// Runs the inspector on `files` until the user quits. The terminal is restored on return, on
/// error and on panic (raw mode, alternate screen and mouse capture).
pub fn run(files: Vec<PathBuf>, opts: TuiOptions) -> color_eyre::Result<()> {
    if !io::stdout().is_terminal() {
        bail!(
            "the inspector needs a terminal; for scripts use a subcommand such as `schemalens project FILE` or `schemalens explain FILE`"
        );
    }
    let theme = Theme { color: opts.color };
    let mut app = App::load(&files, opts.projection, theme, opts.mouse);

    let hook = install_panic_hook(opts.mouse);
    let result = (|| {
        let _guard = TerminalGuard::enter(opts.mouse)?;
        let mut terminal = Terminal::new(CrosstermBackend::new(io::stdout()))?;
        terminal.clear()?;
        event_loop(&mut terminal, &mut app)
    })();
    restore_panic_hook(hook);
    result
}

fn event_loop(
    terminal: &mut Terminal<CrosstermBackend<Stdout>>,
    app: &mut App,
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
        terminal.draw(|frame| render::render(app, frame))?;
        if app.quit {
            return Ok(());
        }
        let ev = event::read().wrap_err("reading a terminal event")?;
        if let Some(action) = keys::action_for_event(app.context(), &ev, app.mouse) {
            app::update(app, action);
        }
        if let Some(text) = app.clipboard.take() {
            copy_osc52(&text)?;
        }
        if let Some(app::Effect::Edit { path, create }) = app.effect.clone() {
            let result = edit(terminal, &path, create.as_deref(), app.mouse);
            app::update(app, Action::PayloadsChanged);
            if let Err(e) = result {
                app.message = Some(format!("editor: {e}"));
            }
        }
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
        execute!(io::stdout(), EnterAlternateScreen)?;
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
    let _ = execute!(io::stdout(), LeaveAlternateScreen, crossterm::cursor::Show);
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
    execute!(io::stdout(), EnterAlternateScreen)?;
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
