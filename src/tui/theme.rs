//! Styles, and the highlight kinds read from the trace. Every kind has a glyph as well as a
//! style so that highlights survive `NO_COLOR`, monochrome terminals and screenshots in print.

use ratatui::style::{Color, Modifier, Style};
use schemalens::lint::Severity;
use schemalens::projection::{Detail, JoinOutcome};
use schemalens::validate::Class;

/// A lint finding's mark: one cell wide, and distinct from every [`Mark`] glyph and from the
/// payload panel's ✗, so a row can carry all three.
pub fn severity_glyph(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "●",
        Severity::Warn => "▲",
        Severity::Info => "◦",
    }
}

/// What a rule did to a node, as the trees highlight it. Declaration order is display priority:
/// the first mark of a node also styles its name, so the kinds a user must look at come first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Mark {
    UnionKept,
    Unresolvable,
    Widened,
    Unconstrained,
    OpenBranch,
    Alternatives,
    RequiredDropped,
    TagEnum,
    Flattened,
    AllOfMerged,
    AllOfKept,
    RecursionCut,
    RecursionKept,
    RefShared,
    Deduplicated,
    KeywordDropped,
    RefInlined,
    Rewritten,
}

impl Mark {
    pub const ALL: [Mark; 18] = [
        Mark::UnionKept,
        Mark::Unresolvable,
        Mark::Widened,
        Mark::Unconstrained,
        Mark::OpenBranch,
        Mark::Alternatives,
        Mark::RequiredDropped,
        Mark::TagEnum,
        Mark::Flattened,
        Mark::AllOfMerged,
        Mark::AllOfKept,
        Mark::RecursionCut,
        Mark::RecursionKept,
        Mark::RefShared,
        Mark::Deduplicated,
        Mark::KeywordDropped,
        Mark::RefInlined,
        Mark::Rewritten,
    ];

    /// The highlight for one trace entry; `None` for bookkeeping steps (the object built by a
    /// flattening, a kept null alternative) that the union's own mark covers.
    pub fn of(detail: &Detail) -> Option<Mark> {
        Some(match detail {
            Detail::RefInlined { .. } => Mark::RefInlined,
            // The root says the depth was lowered: a cut of every branch, in advance.
            Detail::RecursionCut { .. } | Detail::RecursionLowered { .. } => Mark::RecursionCut,
            Detail::RecursionKept { .. } => Mark::RecursionKept,
            Detail::RefShared { .. } | Detail::DefinitionsShared { .. } => Mark::RefShared,
            Detail::Unresolvable { .. } => Mark::Unresolvable,
            Detail::UnionFlattened { .. } | Detail::SameTagGroup { .. } => Mark::Flattened,
            Detail::UnionKept { .. } => Mark::UnionKept,
            Detail::TagEnum { .. } => Mark::TagEnum,
            Detail::RequiredDropped { .. } | Detail::ShapeRequiredDropped { .. } => {
                Mark::RequiredDropped
            }
            Detail::Joined { outcome, .. } => match outcome {
                JoinOutcome::Deduplicated => Mark::Deduplicated,
                JoinOutcome::Unconstrained => Mark::Unconstrained,
                JoinOutcome::Alternatives => Mark::Alternatives,
                JoinOutcome::Widened => Mark::Widened,
            },
            Detail::KeywordDropped { .. } => Mark::KeywordDropped,
            Detail::OpenBranchDeclared { .. } => Mark::OpenBranch,
            Detail::AllOfMerged { .. } => Mark::AllOfMerged,
            Detail::AllOfKept { .. } => Mark::AllOfKept,
            // In inline mode these are the only changes to a union; without a mark the tree
            // would not show where the projection differs.
            Detail::OneOfToAnyOf { .. } | Detail::DiscriminatorStripped { .. } => Mark::Rewritten,
            Detail::ObjectBuilt { .. } | Detail::NullKept { .. } => return None,
            // Provider tailoring (`project --provider`); added by the tailoring work so the
            // binary keeps compiling — the TUI may want a mark of its own.
            Detail::Tailored(_) => Mark::Rewritten,
        })
    }

    /// One terminal cell wide in every common font; no emoji-presentation characters.
    pub fn glyph(self) -> &'static str {
        match self {
            Mark::UnionKept => "!",
            Mark::Unresolvable => "×",
            Mark::Widened => "≈",
            Mark::Unconstrained => "◌",
            Mark::OpenBranch => "⊂",
            Mark::Alternatives => "∪",
            Mark::RequiredDropped => "?",
            Mark::TagEnum => "#",
            Mark::Flattened => "◆",
            Mark::AllOfMerged => "∧",
            Mark::AllOfKept => "&",
            Mark::RecursionCut => "↺",
            Mark::RecursionKept => "↻",
            Mark::RefShared => "→",
            Mark::Deduplicated => "=",
            Mark::KeywordDropped => "−",
            Mark::RefInlined => "↳",
            Mark::Rewritten => "~",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Mark::UnionKept => "union left as anyOf",
            Mark::Unresolvable => "unresolvable $ref",
            Mark::Widened => "widened scalar collision",
            Mark::Unconstrained => "unprovable → unconstrained",
            Mark::OpenBranch => "declared shape kept (open alternative)",
            Mark::Alternatives => "anyOf alternatives kept",
            Mark::RequiredDropped => "required dropped (hint)",
            Mark::TagEnum => "discriminator → enum",
            Mark::Flattened => "union flattened",
            Mark::AllOfMerged => "allOf merged",
            Mark::AllOfKept => "allOf kept",
            Mark::RecursionCut => "recursion cut",
            Mark::RecursionKept => "recursion kept",
            Mark::RefShared => "$ref kept (shared $defs)",
            Mark::Deduplicated => "deduplicated",
            Mark::KeywordDropped => "keyword dropped",
            Mark::RefInlined => "$ref inlined",
            Mark::Rewritten => "oneOf→anyOf / discriminator removed",
        }
    }

    /// Colour plus a modifier, so two kinds never differ by colour alone.
    fn style(self) -> Style {
        let s = Style::new();
        match self {
            Mark::UnionKept => s.fg(Color::LightRed).add_modifier(Modifier::BOLD),
            Mark::Unresolvable => s.fg(Color::Red).add_modifier(Modifier::CROSSED_OUT),
            Mark::Widened => s.fg(Color::Yellow).add_modifier(Modifier::BOLD),
            Mark::Unconstrained => s.fg(Color::Red).add_modifier(Modifier::ITALIC),
            Mark::OpenBranch => s.fg(Color::LightGreen).add_modifier(Modifier::ITALIC),
            Mark::Alternatives => s.fg(Color::LightBlue).add_modifier(Modifier::BOLD),
            Mark::RequiredDropped => s.fg(Color::LightYellow).add_modifier(Modifier::ITALIC),
            Mark::TagEnum => s.fg(Color::LightMagenta).add_modifier(Modifier::BOLD),
            Mark::Flattened => s.fg(Color::Magenta).add_modifier(Modifier::BOLD),
            Mark::AllOfMerged => s.fg(Color::LightGreen).add_modifier(Modifier::BOLD),
            Mark::AllOfKept => s.fg(Color::LightRed).add_modifier(Modifier::ITALIC),
            Mark::RecursionCut => s.fg(Color::LightCyan).add_modifier(Modifier::ITALIC),
            Mark::RecursionKept => s.fg(Color::Blue).add_modifier(Modifier::ITALIC),
            Mark::RefShared => s.fg(Color::Cyan).add_modifier(Modifier::ITALIC),
            Mark::Deduplicated => s.fg(Color::Green),
            Mark::KeywordDropped => s.fg(Color::Gray).add_modifier(Modifier::DIM),
            Mark::RefInlined => s.fg(Color::Cyan),
            Mark::Rewritten => s.fg(Color::LightBlue).add_modifier(Modifier::ITALIC),
        }
    }
}

/// The one place styles come from; with `color` off it keeps only modifiers, which is what
/// NO_COLOR asks for (bold, italic and reverse still carry meaning).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Theme {
    pub color: bool,
}

impl Theme {
    pub fn from_env() -> Theme {
        Theme {
            color: std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
        }
    }

    fn paint(self, style: Style) -> Style {
        if self.color {
            style
        } else {
            Style {
                fg: None,
                bg: None,
                underline_color: None,
                ..style
            }
        }
    }

    pub fn mark(self, mark: Mark) -> Style {
        self.paint(mark.style())
    }

    pub fn kind(self) -> Style {
        self.paint(Style::new().fg(Color::Cyan))
    }

    pub fn structural(self) -> Style {
        self.paint(Style::new().fg(Color::Gray).add_modifier(Modifier::DIM))
    }

    pub fn dim(self) -> Style {
        self.paint(Style::new().fg(Color::DarkGray))
    }

    pub fn required(self) -> Style {
        self.paint(
            Style::new()
                .fg(Color::LightRed)
                .add_modifier(Modifier::BOLD),
        )
    }

    pub fn error(self) -> Style {
        self.paint(Style::new().fg(Color::Red).add_modifier(Modifier::BOLD))
    }

    pub fn heading(self) -> Style {
        self.paint(Style::new().fg(Color::White).add_modifier(Modifier::BOLD))
    }

    pub fn key(self) -> Style {
        self.paint(Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD))
    }

    pub fn json_string(self) -> Style {
        self.paint(Style::new().fg(Color::Green))
    }

    pub fn json_number(self) -> Style {
        self.paint(Style::new().fg(Color::LightMagenta))
    }

    pub fn json_literal(self) -> Style {
        self.paint(Style::new().fg(Color::Yellow))
    }

    pub fn pointer(self) -> Style {
        self.paint(Style::new().fg(Color::Blue))
    }

    pub fn border(self, focused: bool) -> Style {
        if focused {
            self.paint(Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD))
        } else {
            self.paint(Style::new().fg(Color::DarkGray))
        }
    }

    /// The selected row of the focused tree.
    pub fn selected(self) -> Style {
        Style::new().add_modifier(Modifier::REVERSED)
    }

    /// The counterpart selected in the other tree: visible, but clearly not where keys go.
    pub fn counterpart(self) -> Style {
        self.paint(
            Style::new()
                .bg(Color::DarkGray)
                .add_modifier(Modifier::UNDERLINED | Modifier::BOLD),
        )
    }

    /// Every other node linked to the selection.
    pub fn linked(self) -> Style {
        Style::new().add_modifier(Modifier::UNDERLINED)
    }

    /// A payload's class: each its own colour and modifier.
    pub fn class(self, class: Class) -> Style {
        let s = Style::new();
        self.paint(match class {
            Class::BothAccept => s.fg(Color::Green),
            Class::BothReject => s.fg(Color::Yellow),
            Class::ProjectionLooser => s.fg(Color::Magenta).add_modifier(Modifier::ITALIC),
            Class::ForeignKey => s.fg(Color::LightGreen).add_modifier(Modifier::ITALIC),
            Class::Unsound => s
                .fg(Color::Red)
                .add_modifier(Modifier::BOLD | Modifier::REVERSED),
        })
    }

    /// Rows that reject the selected payload.
    pub fn rejecting(self) -> Style {
        self.paint(
            Style::new()
                .fg(Color::LightRed)
                .add_modifier(Modifier::BOLD),
        )
    }

    /// A lint finding's glyph and severity word.
    pub fn severity(self, severity: Severity) -> Style {
        let s = Style::new();
        self.paint(match severity {
            Severity::Error => s.fg(Color::LightRed).add_modifier(Modifier::BOLD),
            Severity::Warn => s.fg(Color::Yellow),
            Severity::Info => s.fg(Color::Blue).add_modifier(Modifier::ITALIC),
        })
    }

    /// What the last save added, changed or removed.
    pub fn changed(self) -> Style {
        self.paint(
            Style::new()
                .fg(Color::LightGreen)
                .add_modifier(Modifier::BOLD | Modifier::ITALIC),
        )
    }

    /// A change's class (the diff against the baseline).
    pub fn diff_class(self, class: schemalens::diff::Class) -> Style {
        use schemalens::diff::Class as D;
        let s = Style::new();
        self.paint(match class {
            D::Breaking => s.fg(Color::LightRed).add_modifier(Modifier::BOLD),
            D::Unknown => s.fg(Color::Yellow),
            D::Widening => s.fg(Color::LightGreen),
            D::Neutral => s.fg(Color::DarkGray),
        })
    }

    pub fn status(self) -> Style {
        self.paint(Style::new().bg(Color::DarkGray).fg(Color::White))
    }
}
