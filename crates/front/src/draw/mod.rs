//! Pictures of layouts: a small picture model (grids of cells, the buffer
//! strip) built from a shape or a strided view, and its rendering as SVG.
//!
//! Building ([`shape::picture`], [`view::picture`]) decides what is shown;
//! rendering ([`render`]) is a pure function from the model to SVG 1.1
//! text: same model, same bytes. The memory timeline of a dumped buffer
//! assignment ([`timeline::render`]) is drawn straight from hlo-util's
//! report and timeline with the same helpers, and so is the flame graph of
//! the peak's bytes by Python stack ([`flame::render`]).

mod blocks;
mod colour;
pub mod flame;
mod flame_tree;
mod grid;
mod scales;
pub mod shape;
pub mod sharding;
mod strip;
mod svg;
mod tiles;
pub mod timeline;
pub mod view;
mod window;

/// A whole picture: a title, notes, the logical array as 2-D panels, and the
/// buffer as a strip in memory order.
#[derive(Debug, Clone, PartialEq)]
pub struct Picture {
    /// The first line, e.g. the shape string.
    pub title: String,
    /// Lines said under the title: windows, summarized ranks, strides.
    pub notes: Vec<String>,
    /// What the gradient's colours stand for (`memory position`, `tile`).
    pub legend: &'static str,
    /// The buffer positions the gradient spans (its last colour is
    /// position `positions - 1`).
    pub positions: i64,
    /// The 2-D slices of the logical array (one for ranks 0 to 2).
    pub panels: Vec<Panel>,
    /// The buffer in memory order.
    pub strip: Strip,
}

/// One 2-D slice of the array.
#[derive(Debug, Clone, PartialEq)]
pub struct Panel {
    /// Above the panel, e.g. `[1,:,:]`; empty for ranks 0 to 2.
    pub caption: String,
    /// What runs down the rows (none for ranks 0 and 1).
    pub row_axis: Option<Axis>,
    /// What runs along the columns (none for rank 0).
    pub col_axis: Option<Axis>,
    /// The indices of the rows shown (`[0]` for ranks 0 and 1).
    pub rows: Vec<i64>,
    /// The indices of the columns shown (`[0]` for rank 0).
    pub cols: Vec<i64>,
    /// `rows.len() * cols.len()` cells, row by row.
    pub cells: Vec<Cell>,
    /// Tile outlines, in cell coordinates of this panel.
    pub outlines: Vec<Outline>,
}

/// An axis of a panel: its words (`dim 1 · size 3 · stride 2`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Axis {
    /// The words written along the axis.
    pub label: String,
}

/// How a cell or strip entry is filled.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Fill {
    /// The gradient's colour for this buffer position.
    Position(i64),
    /// Padding: hatched.
    Padding,
    /// Not part of the picture's subject (a buffer position outside a
    /// view): pale.
    Faded,
}

/// One cell of a grid or entry of the strip.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    /// The element (`a`, `b`, ... or a number), or the padding value.
    pub label: String,
    /// The small second line: the memory position (`@3`), if any.
    pub note: String,
    /// The fill.
    pub fill: Fill,
    /// Drawn with a heavy border (a view's element in the strip).
    pub emphasis: bool,
}

/// A tile's outline: rows `row..row + rows`, columns `col..col + cols` of a
/// panel (window coordinates), at nesting `level` (0 the outermost).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Outline {
    /// The first row covered.
    pub row: usize,
    /// The first column covered.
    pub col: usize,
    /// The number of rows covered.
    pub rows: usize,
    /// The number of columns covered.
    pub cols: usize,
    /// The tiling level, 0 the outermost.
    pub level: usize,
}

/// The outermost outline of every pair of a run of rows and a run of
/// columns, each `(first, count)`, rows major.
fn outline_grid(row_runs: &[(usize, usize)], col_runs: &[(usize, usize)]) -> Vec<Outline> {
    row_runs
        .iter()
        .flat_map(|&(row, rows)| {
            col_runs.iter().map(move |&(col, cols)| Outline {
                row,
                col,
                rows,
                cols,
                level: 0,
            })
        })
        .collect()
}

/// The buffer in memory order.
#[derive(Debug, Clone, PartialEq)]
pub struct Strip {
    /// The words above the strip.
    pub caption: String,
    /// The entries shown: positions `0..entries.len()`.
    pub entries: Vec<Cell>,
    /// The byte offset written under every `tick`-th entry (a positive
    /// step), with the bits of one element.
    pub tick: usize,
    /// The bits of one element in the buffer.
    pub element_bits: i64,
}

/// The picture as SVG 1.1 text.
pub fn render(picture: &Picture) -> String {
    let mut out = svg::Svg::default();
    let mut y = svg::MARGIN;
    let header = svg::header(&mut out, picture, y);
    y += header.height;
    let panels = grid::panels(&mut out, &picture.panels, picture.positions, y);
    y += panels.height;
    let strip = strip::strip(&mut out, &picture.strip, picture.positions, y);
    y += strip.height;
    let width = header.width.max(panels.width).max(strip.width) + 2 * svg::MARGIN;
    out.finish(&picture.title, width, y + svg::MARGIN)
}

/// The extent of something drawn.
#[derive(Debug, Clone, Copy, Default)]
struct Extent {
    width: i64,
    height: i64,
}
