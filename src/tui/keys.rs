//! The key table: one list of bindings drives event handling, the help overlay and the hints in
//! the status bar, so the three can never disagree.

use crossterm::event::{
    Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEventKind,
};

/// Everything the user can ask for. Mouse and terminal events become actions too, so `update`
/// is the only place state changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Quit,
    Help,
    JsonView,
    /// The changes screen: what changed since the file was opened (or since OLD, `--diff`).
    Changes,
    Rules,
    CloseOverlay,
    /// Copy (OSC 52) the selected node's JSON.
    YankNode,
    /// Copy the tool's whole projected schema.
    YankSchema,
    /// Copy the selected node's pointer.
    YankPointer,
    EditPayload,
    NewPayload,
    GotoRejecting,
    /// Next provider lint profile (none → each profile → none).
    CycleProfile,
    /// Payload panel: read each payload as the model's call for the chosen provider.
    ToggleCalls,
    LintList,
    /// Ollama's "what the model sees" view.
    ModelView,
    /// In the lint list: go to the selected finding's node.
    Jump,
    /// Open the prompt for a provider's error message (`why`).
    Why,
    /// The event loop ran the editor: payload files may have changed.
    PayloadsChanged,
    /// Live server: connect again (a stdio server is restarted).
    Reconnect,
    /// Live server: ask to send the selected payload with `tools/call`.
    CallPayload,
    /// In the call confirmation: send it.
    ConfirmCall,
    FocusNext,
    FocusPrev,
    Up,
    Down,
    PageUp,
    PageDown,
    Top,
    Bottom,
    /// Fold the node, or go to its parent when it is folded.
    Left,
    /// Unfold the node, or go to its first child when it is unfolded.
    Right,
    Parent,
    Toggle,
    ExpandAll,
    CollapseAll,
    ToggleMode,
    /// Switch `--open-branches` declared / strict.
    ToggleOpenBranches,
    Search,
    NextMatch,
    PrevMatch,
    Filter,
    OpenTool,
    NextTool,
    PrevTool,
    InputChar(char),
    InputBackspace,
    InputConfirm,
    InputCancel,
    Click {
        column: u16,
        row: u16,
    },
    ScrollUp {
        column: u16,
        row: u16,
    },
    ScrollDown {
        column: u16,
        row: u16,
    },
    Resize {
        width: u16,
        height: u16,
    },
}

/// Where a binding applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Global,
    Trees,
    Tools,
    Payloads,
    /// While typing a search or a filter.
    Input,
    /// Help, JSON, rules, lint and model screens.
    Overlay,
}

impl Scope {
    pub const ORDER: [Scope; 6] = [
        Scope::Global,
        Scope::Trees,
        Scope::Tools,
        Scope::Payloads,
        Scope::Input,
        Scope::Overlay,
    ];

    pub fn title(self) -> &'static str {
        match self {
            Scope::Global => "Everywhere",
            Scope::Trees => "Original and projection trees",
            Scope::Tools => "Tool list",
            Scope::Payloads => "Payload panel (verdicts of the original and the projection)",
            Scope::Input => "While typing a search or filter",
            Scope::Overlay => "Help, JSON, rules, lint and model-view screens",
        }
    }
}

/// Which pane has the keyboard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pane {
    Tools,
    Payloads,
    Original,
    Projection,
    Detail,
}

impl Pane {
    pub const CYCLE: [Pane; 5] = [
        Pane::Tools,
        Pane::Payloads,
        Pane::Original,
        Pane::Projection,
        Pane::Detail,
    ];
}

/// What decides which bindings are live.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Context {
    Overlay,
    Input,
    Pane(Pane),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key {
    pub code: KeyCode,
    pub ctrl: bool,
}

const fn k(c: char) -> Key {
    Key {
        code: KeyCode::Char(c),
        ctrl: false,
    }
}

const fn code(code: KeyCode) -> Key {
    Key { code, ctrl: false }
}

pub struct Binding {
    pub keys: &'static [Key],
    pub action: Action,
    pub scope: Scope,
    /// The help overlay's text.
    pub help: &'static str,
    /// The status bar's short form; `None` keeps the binding out of the bar.
    pub hint: Option<&'static str>,
}

const fn b(
    scope: Scope,
    keys: &'static [Key],
    action: Action,
    help: &'static str,
    hint: Option<&'static str>,
) -> Binding {
    Binding {
        keys,
        action,
        scope,
        help,
        hint,
    }
}

use Action as A;
use KeyCode as C;
use Scope as S;

/// First match wins, so pane-specific bindings come before global ones sharing a key.
#[rustfmt::skip]
pub const BINDINGS: &[Binding] = &[
    // Full-screen views: they swallow every other key.
    b(S::Overlay, &[code(C::Esc), k('q'), k('?'), k('v'), k('R'), k('L'), k('D')], A::CloseOverlay, "close the screen", None),
    b(S::Overlay, &[k('w')], A::ModelView, "Ollama's model view: open it, or close it", None),
    b(S::Overlay, &[code(C::Enter)], A::Jump, "lint list: go to the selected finding's node", None),
    b(S::Overlay, &[k('p')], A::CycleProfile, "lint list: show the next provider", None),
    b(S::Overlay, &[k('y')], A::ConfirmCall, "call confirmation: send the call to the server", None),
    b(S::Overlay, &[k('n')], A::CloseOverlay, "call confirmation: do not send it", None),
    b(S::Overlay, &[k('j'), code(C::Down)], A::Down, "scroll down (lint list: next finding)", None),
    b(S::Overlay, &[k('k'), code(C::Up)], A::Up, "scroll up (lint list: previous finding)", None),
    b(S::Overlay, &[code(C::PageDown), k(' '), Key { code: C::Char('d'), ctrl: true }], A::PageDown, "scroll a page down", None),
    b(S::Overlay, &[code(C::PageUp), Key { code: C::Char('u'), ctrl: true }], A::PageUp, "scroll a page up", None),
    b(S::Overlay, &[k('g'), code(C::Home)], A::Top, "scroll to the top", None),
    b(S::Overlay, &[k('G'), code(C::End)], A::Bottom, "scroll to the bottom", None),
    // Text input: printable keys are typed; these edit or end it.
    b(S::Input, &[code(C::Enter)], A::InputConfirm, "keep the search or filter and go back to the pane", Some("keep")),
    b(S::Input, &[code(C::Esc)], A::InputCancel, "cancel: clear the search or filter", Some("cancel")),
    b(S::Input, &[code(C::Backspace)], A::InputBackspace, "delete the last character", None),
    b(S::Input, &[code(C::Down)], A::Down, "next tool while filtering / next match while searching", None),
    b(S::Input, &[code(C::Up)], A::Up, "previous tool while filtering / previous match while searching", None),
    // Tool list.
    b(S::Tools, &[k('/')], A::Filter, "filter tools as you type (name or file)", Some("filter")),
    b(S::Tools, &[code(C::Enter), k('l'), code(C::Right)], A::OpenTool, "go to the tool's original tree", Some("open")),
    // Payload panel.
    b(S::Payloads, &[code(C::Enter), k('l'), code(C::Right)], A::GotoRejecting, "go to the first node that rejects the payload", Some("to error")),
    b(S::Payloads, &[k('e')], A::EditPayload, "edit the payload in $EDITOR, then check it again", Some("edit")),
    b(S::Payloads, &[k('n')], A::NewPayload, "new payload from the generated skeleton, opened in $EDITOR", Some("new")),
    b(S::Payloads, &[k('c')], A::ToggleCalls, "read payloads as the model's calls for the provider (p)", Some("calls")),
    b(S::Payloads, &[k('x')], A::CallPayload, "live server: send this payload with tools/call, after asking", None),
    // Trees.
    b(S::Trees, &[k('h'), code(C::Left)], A::Left, "fold the node, or go to its parent", Some("fold")),
    b(S::Trees, &[k('l'), code(C::Right)], A::Right, "unfold the node, or go to its first child", Some("unfold")),
    b(S::Trees, &[code(C::Enter), k(' ')], A::Toggle, "fold or unfold the node", None),
    b(S::Trees, &[k('H')], A::Parent, "go to the parent node", None),
    b(S::Trees, &[k('E')], A::ExpandAll, "expand every node of this tree", Some("expand all")),
    b(S::Trees, &[k('C')], A::CollapseAll, "collapse every node of this tree", None),
    b(S::Trees, &[k('/')], A::Search, "search names, types, descriptions and pointers", Some("search")),
    b(S::Trees, &[k('n')], A::NextMatch, "next search match (unfolds to it)", None),
    b(S::Trees, &[k('N')], A::PrevMatch, "previous search match", None),
    // Everywhere.
    b(S::Global, &[k('j'), code(C::Down)], A::Down, "move down (detail pane: scroll)", Some("move")),
    b(S::Global, &[k('k'), code(C::Up)], A::Up, "move up (detail pane: scroll)", None),
    b(S::Global, &[code(C::PageDown), Key { code: C::Char('d'), ctrl: true }], A::PageDown, "a page down", None),
    b(S::Global, &[code(C::PageUp), Key { code: C::Char('u'), ctrl: true }], A::PageUp, "a page up", None),
    b(S::Global, &[k('g'), code(C::Home)], A::Top, "go to the top", None),
    b(S::Global, &[k('G'), code(C::End)], A::Bottom, "go to the bottom", None),
    b(S::Global, &[code(C::Tab)], A::FocusNext, "focus the next pane", Some("pane")),
    b(S::Global, &[code(C::BackTab)], A::FocusPrev, "focus the previous pane", None),
    b(S::Global, &[k(']')], A::NextTool, "show the next tool", None),
    b(S::Global, &[k('[')], A::PrevTool, "show the previous tool", None),
    b(S::Global, &[k('m')], A::ToggleMode, "switch inline / flat mode and project again", Some("mode")),
    b(S::Global, &[k('o')], A::ToggleOpenBranches, "switch open branches declared / strict (flat mode) and project again", Some("branches")),
    b(S::Global, &[k('p')], A::CycleProfile, "cycle the provider lint: none → each profile → none", Some("provider")),
    b(S::Global, &[k('L')], A::LintList, "lint list: verdicts, findings, payloads as sent; Enter: node or payload", Some("lint")),
    b(S::Global, &[k('D')], A::Changes, "changes since the file was opened (--diff: since OLD), with witnesses", Some("changes")),
    b(S::Global, &[k('v')], A::JsonView, "view the tool's whole JSON, original beside projection", Some("json")),
    b(S::Global, &[k('R')], A::Rules, "the rules screen: every rule with a before/after example", None),
    b(S::Global, &[k('y')], A::YankNode, "copy the selected node's JSON (OSC 52 clipboard, works over SSH)", Some("copy")),
    b(S::Global, &[k('Y')], A::YankSchema, "copy the tool's whole projected schema", None),
    b(S::Global, &[k('#')], A::YankPointer, "copy the selected node's pointer", None),
    b(S::Global, &[k('!')], A::Why, "paste a provider's error (or just paste): go to its node, rule and fix", Some("why")),
    b(S::Global, &[k('w')], A::ModelView, "what an Ollama model sees: the keys its Go structs drop, then the rest", None),
    b(S::Global, &[k('r')], A::Reconnect, "live server: reconnect (a stdio server is started again)", None),
    b(S::Global, &[k('?')], A::Help, "show this help", Some("help")),
    b(S::Global, &[k('q'), code(C::Esc), Key { code: C::Char('c'), ctrl: true }], A::Quit, "quit", Some("quit")),
];

impl Scope {
    fn live_in(self, context: Context) -> bool {
        match (self, context) {
            (Scope::Overlay, Context::Overlay) | (Scope::Input, Context::Input) => true,
            (_, Context::Overlay | Context::Input) => false,
            (Scope::Global, _) => true,
            (Scope::Trees, Context::Pane(Pane::Original | Pane::Projection)) => true,
            (Scope::Tools, Context::Pane(Pane::Tools)) => true,
            (Scope::Payloads, Context::Pane(Pane::Payloads)) => true,
            _ => false,
        }
    }
}

fn matches(key: &Key, event: &KeyEvent) -> bool {
    let ctrl = event.modifiers.contains(KeyModifiers::CONTROL);
    if key.ctrl != ctrl || event.modifiers.contains(KeyModifiers::ALT) {
        return false;
    }
    // Shift is part of the character already ('E', '?'); BackTab reports it too.
    key.code == event.code
}

/// The action for a key press in `context`.
pub fn action_for_key(context: Context, event: &KeyEvent) -> Option<Action> {
    if let Some(binding) = BINDINGS
        .iter()
        .filter(|b| b.scope.live_in(context))
        .find(|b| b.keys.iter().any(|k| matches(k, event)))
    {
        return Some(binding.action);
    }
    match (context, event.code) {
        (Context::Input, KeyCode::Char(c))
            if !event
                .modifiers
                .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT) =>
        {
            Some(Action::InputChar(c))
        }
        _ => None,
    }
}

/// The action for any terminal event; `mouse` off ignores mouse events entirely.
pub fn action_for_event(context: Context, event: &Event, mouse: bool) -> Option<Action> {
    match event {
        // Release and repeat events (kitty protocol, Windows) would double every key.
        Event::Key(key) if key.kind == KeyEventKind::Press => action_for_key(context, key),
        Event::Mouse(m) if mouse => {
            let (column, row) = (m.column, m.row);
            match m.kind {
                MouseEventKind::Down(MouseButton::Left) => Some(Action::Click { column, row }),
                MouseEventKind::ScrollUp => Some(Action::ScrollUp { column, row }),
                MouseEventKind::ScrollDown => Some(Action::ScrollDown { column, row }),
                _ => None,
            }
        }
        Event::Resize(width, height) => Some(Action::Resize {
            width: *width,
            height: *height,
        }),
        _ => None,
    }
}

/// The actions for pasted text (bracketed paste): typed into the open prompt as it is, lines
/// included; from a pane, the why prompt opened with it — what people paste into this
/// inspector is a provider's error.
pub fn actions_for_paste(context: Context, text: &str) -> Vec<Action> {
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    let typed = text
        .chars()
        .map(|c| if c == '\t' { ' ' } else { c })
        .map(Action::InputChar);
    match context {
        Context::Overlay => Vec::new(),
        Context::Input => typed.collect(),
        Context::Pane(_) => std::iter::once(Action::Why).chain(typed).collect(),
    }
}

/// How a key is written in help and hints.
pub fn key_name(key: &Key) -> String {
    let base = match key.code {
        KeyCode::Char(' ') => "Space".to_owned(),
        KeyCode::Char(c) => c.to_string(),
        KeyCode::Up => "↑".to_owned(),
        KeyCode::Down => "↓".to_owned(),
        KeyCode::Left => "←".to_owned(),
        KeyCode::Right => "→".to_owned(),
        KeyCode::Enter => "Enter".to_owned(),
        KeyCode::Esc => "Esc".to_owned(),
        KeyCode::Tab => "Tab".to_owned(),
        KeyCode::BackTab => "Shift-Tab".to_owned(),
        KeyCode::Backspace => "Backspace".to_owned(),
        KeyCode::PageUp => "PgUp".to_owned(),
        KeyCode::PageDown => "PgDn".to_owned(),
        KeyCode::Home => "Home".to_owned(),
        KeyCode::End => "End".to_owned(),
        other => format!("{other:?}"),
    };
    if key.ctrl {
        format!("Ctrl-{base}")
    } else {
        base
    }
}

pub fn keys_label(keys: &[Key]) -> String {
    keys.iter().map(key_name).collect::<Vec<_>>().join(" ")
}

/// The status bar's hints for `context`: pane-specific first, then global.
pub fn hints(context: Context) -> Vec<(String, &'static str)> {
    let mut out: Vec<(String, &'static str)> = Vec::new();
    // Help first: on a narrow terminal the bar is cut, and `?` leads to everything else.
    let help_first = BINDINGS
        .iter()
        .filter(|b| b.action == Action::Help)
        .chain(BINDINGS.iter().filter(|b| b.action != Action::Help));
    for binding in help_first.filter(|b| b.scope.live_in(context)) {
        if let Some(hint) = binding.hint
            && !out.iter().any(|(_, h)| *h == hint)
        {
            let first = binding.keys.first().map(key_name).unwrap_or_default();
            out.push((first, hint));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn press(code: KeyCode, modifiers: KeyModifiers) -> KeyEvent {
        KeyEvent::new(code, modifiers)
    }

    #[test]
    fn pane_bindings_win_over_global_ones() {
        let enter = press(KeyCode::Enter, KeyModifiers::NONE);
        assert_eq!(
            action_for_key(Context::Pane(Pane::Tools), &enter),
            Some(Action::OpenTool)
        );
        assert_eq!(
            action_for_key(Context::Pane(Pane::Original), &enter),
            Some(Action::Toggle)
        );
        assert_eq!(action_for_key(Context::Pane(Pane::Detail), &enter), None);
    }

    #[test]
    fn shifted_letters_and_backtab_match() {
        let e = press(KeyCode::Char('E'), KeyModifiers::SHIFT);
        assert_eq!(
            action_for_key(Context::Pane(Pane::Projection), &e),
            Some(Action::ExpandAll)
        );
        let bt = press(KeyCode::BackTab, KeyModifiers::SHIFT);
        assert_eq!(
            action_for_key(Context::Pane(Pane::Detail), &bt),
            Some(Action::FocusPrev)
        );
        let ctrl_c = press(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(
            action_for_key(Context::Pane(Pane::Detail), &ctrl_c),
            Some(Action::Quit)
        );
    }

    #[test]
    fn typing_takes_every_printable_key() {
        let q = press(KeyCode::Char('q'), KeyModifiers::NONE);
        assert_eq!(
            action_for_key(Context::Input, &q),
            Some(Action::InputChar('q'))
        );
        let esc = press(KeyCode::Esc, KeyModifiers::NONE);
        assert_eq!(
            action_for_key(Context::Input, &esc),
            Some(Action::InputCancel)
        );
        assert_eq!(
            action_for_key(Context::Overlay, &q),
            Some(Action::CloseOverlay)
        );
    }

    #[test]
    fn no_key_is_bound_twice_in_one_context() {
        for context in [
            Context::Overlay,
            Context::Input,
            Context::Pane(Pane::Tools),
            Context::Pane(Pane::Original),
            Context::Pane(Pane::Detail),
        ] {
            let mut seen: Vec<(Key, Scope)> = Vec::new();
            for binding in BINDINGS.iter().filter(|b| b.scope.live_in(context)) {
                for key in binding.keys {
                    // A pane binding may shadow a global one on purpose; within one scope a
                    // duplicate is a mistake.
                    assert!(
                        !seen.contains(&(*key, binding.scope)),
                        "{key:?} bound twice in {context:?}"
                    );
                    seen.push((*key, binding.scope));
                }
            }
        }
    }
}
