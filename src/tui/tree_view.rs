//! A tree pane's view: which nodes are unfolded, the selection, the scroll offset, and the
//! rows that unfolding makes visible, kept until a fold changes.
//!
//! Drawing touches only the rows on screen, so a frame costs the same with 40 rows unfolded as
//! with 100 k. (The `tui-tree-widget` crate this replaces flattened every unfolded row, with a
//! path allocated per row, on every frame: 34–41 ms at 100 k rows.) Rows are drawn the way
//! that widget drew them, so screens did not change.

use std::collections::HashSet;

use ratatui::buffer::Buffer;
use ratatui::layout::{Position, Rect};
use ratatui::style::Style;
use ratatui::text::Line;
use ratatui::widgets::Widget;

use super::tree::{NodeId, SchemaTree};

/// A visible row: a node, and how deep it sits (the root is 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Row {
    pub id: NodeId,
    pub depth: u16,
}

#[derive(Debug, Clone, Default)]
pub struct TreeView {
    opened: HashSet<NodeId>,
    selected: Option<NodeId>,
    /// The first row on screen.
    offset: usize,
    /// Scroll the selection into view at the next draw (it was just chosen).
    reveal_selected: bool,
    /// The unfolded rows in display order; `None` after a fold changed.
    rows: Option<Vec<Row>>,
    /// Where the rows were last drawn, and which node each screen row showed.
    last_area: Rect,
    drawn: Vec<NodeId>,
}

/// How a tree's rows look: the glyphs before each row, and the selection's style.
pub struct Look {
    pub open: &'static str,
    pub closed: &'static str,
    pub leaf: &'static str,
    pub highlight: Style,
}

impl TreeView {
    pub fn selected(&self) -> Option<NodeId> {
        self.selected
    }

    /// Selects `id` (`None`: nothing) and scrolls it into view at the next draw.
    pub fn select(&mut self, id: Option<NodeId>) {
        self.reveal_selected = true;
        self.selected = id;
    }

    pub fn is_open(&self, id: NodeId) -> bool {
        self.opened.contains(&id)
    }

    /// The unfolded nodes, in no particular order (some may be hidden by a folded ancestor).
    pub fn opened(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.opened.iter().copied()
    }

    pub fn open(&mut self, id: NodeId) {
        if self.opened.insert(id) {
            self.rows = None;
        }
    }

    pub fn close(&mut self, id: NodeId) {
        if self.opened.remove(&id) {
            self.rows = None;
        }
    }

    pub fn toggle(&mut self, id: NodeId) {
        if self.is_open(id) {
            self.close(id);
        } else {
            self.open(id);
        }
    }

    pub fn close_all(&mut self) {
        if !self.opened.is_empty() {
            self.opened.clear();
            self.rows = None;
        }
    }

    /// The visible rows of `tree` (whose folds this view holds), computed once per fold change.
    pub fn rows(&mut self, tree: &SchemaTree) -> &[Row] {
        self.rows.get_or_insert_with(|| flatten(tree, &self.opened))
    }

    /// The node drawn on screen row `y` at the last draw.
    pub fn drawn_at(&self, y: u16) -> Option<NodeId> {
        let i = y.checked_sub(self.last_area.y)? as usize;
        self.drawn.get(i).copied()
    }

    /// Selects what was drawn at `position` (below the last row: the last row); toggles it
    /// when it was selected already. Whether anything was there.
    pub fn click_at(&mut self, position: Position) -> bool {
        if !self.last_area.contains(position) || self.drawn.is_empty() {
            return false;
        }
        let i = ((position.y - self.last_area.y) as usize).min(self.drawn.len() - 1);
        let id = self.drawn[i];
        if self.selected == Some(id) {
            self.reveal_selected = true;
            self.toggle(id);
        } else {
            self.select(Some(id));
        }
        true
    }

    pub fn scroll_up(&mut self, lines: usize) {
        self.offset = self.offset.saturating_sub(lines);
    }

    pub fn scroll_down(&mut self, lines: usize) {
        let last = self.rows.as_ref().map_or(0, |r| r.len().saturating_sub(1));
        self.offset = self.offset.saturating_add(lines).min(last);
    }

    /// Draws the rows that fit `area`, each as `line(id)` after its indent and fold glyph.
    pub fn draw(
        &mut self,
        tree: &SchemaTree,
        area: Rect,
        buf: &mut Buffer,
        look: &Look,
        line: impl Fn(NodeId) -> Line<'static>,
    ) {
        self.last_area = area;
        self.drawn.clear();
        if area.width < 1 || area.height < 1 {
            return;
        }
        let (reveal, selected, offset) = (self.reveal_selected, self.selected, self.offset);
        let rows = self.rows(tree);
        if rows.is_empty() {
            return;
        }
        let (start, end) = window(rows, offset, area.height as usize, reveal, selected);
        let shown: Vec<Row> = rows[start..end].to_vec();
        self.offset = start;
        self.reveal_selected = false;
        for (i, row) in shown.iter().enumerate() {
            let y = area.y + i as u16;
            let node = tree.node(row.id);
            let indent = row.depth as usize * 2;
            let (x, _) = buf.set_stringn(area.x, y, " ".repeat(indent), indent, Style::new());
            let glyph = if node.children.is_empty() {
                look.leaf
            } else if self.opened.contains(&row.id) {
                look.open
            } else {
                look.closed
            };
            let room = area.width.saturating_sub(x - area.x);
            let (x, _) = buf.set_stringn(x, y, glyph, room as usize, Style::new());
            let text = Rect::new(x, y, area.width.saturating_sub(x - area.x), 1);
            line(row.id).render(text, buf);
            if selected == Some(row.id) {
                buf.set_style(Rect::new(area.x, y, area.width, 1), look.highlight);
            }
            self.drawn.push(row.id);
        }
    }
}

/// The rows from `offset` that fit `height`, moved just enough to show the selection when
/// `reveal` asks for it.
fn window(
    rows: &[Row],
    offset: usize,
    height: usize,
    reveal: bool,
    selected: Option<NodeId>,
) -> (usize, usize) {
    let mut start = offset.min(rows.len() - 1);
    let target = selected
        .filter(|_| reveal)
        .and_then(|s| rows.iter().position(|r| r.id == s));
    if let Some(t) = target {
        start = start.min(t);
    }
    let mut end = (start + height).min(rows.len());
    if let Some(t) = target
        && t >= end
    {
        end = t + 1;
        start = end.saturating_sub(height);
    }
    (start, end)
}

/// The root and every node whose ancestors are all unfolded, in document order.
fn flatten(tree: &SchemaTree, opened: &HashSet<NodeId>) -> Vec<Row> {
    let mut rows = Vec::new();
    if tree.is_empty() {
        return rows;
    }
    let mut stack = vec![Row { id: 0, depth: 0 }];
    while let Some(row) = stack.pop() {
        rows.push(row);
        if opened.contains(&row.id) {
            let children = &tree.node(row.id).children;
            stack.extend(children.iter().rev().map(|&id| Row {
                id,
                depth: row.depth + 1,
            }));
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::tree::Side;
    use serde_json::json;

    fn tree() -> SchemaTree {
        let schema = json!({"properties": {
            "a": {"properties": {"a1": {}, "a2": {}}},
            "b": {"items": {}}
        }});
        SchemaTree::build(&schema, Side::Original, &[], "root")
    }

    fn ids(view: &mut TreeView, tree: &SchemaTree) -> Vec<NodeId> {
        view.rows(tree).iter().map(|r| r.id).collect()
    }

    #[test]
    fn only_unfolded_nodes_become_rows_and_folds_refresh_them() {
        let tree = tree();
        let mut view = TreeView::default();
        assert_eq!(ids(&mut view, &tree), vec![0]);
        view.open(0);
        assert_eq!(ids(&mut view, &tree), vec![0, 1, 4]);
        view.open(1);
        assert_eq!(ids(&mut view, &tree), vec![0, 1, 2, 3, 4]);
        assert_eq!(view.rows(&tree)[2].depth, 2);
        view.close(0);
        assert_eq!(ids(&mut view, &tree), vec![0]);
        // Unfolded below a folded ancestor: shown again when the ancestor unfolds.
        view.open(0);
        assert_eq!(ids(&mut view, &tree), vec![0, 1, 2, 3, 4]);
    }

    #[test]
    fn the_window_follows_a_new_selection_and_keeps_the_scroll_otherwise() {
        let rows: Vec<Row> = (0..100).map(|id| Row { id, depth: 0 }).collect();
        assert_eq!(window(&rows, 0, 10, true, Some(50)), (41, 51));
        assert_eq!(window(&rows, 60, 10, true, Some(50)), (50, 60));
        assert_eq!(window(&rows, 30, 10, false, Some(50)), (30, 40));
        assert_eq!(window(&rows, 95, 10, false, None), (95, 100));
        assert_eq!(window(&rows, 500, 10, false, None), (99, 100));
    }
}
