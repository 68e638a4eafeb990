//! A listing laid out from facts gathered one row at a time, then written a chunk of
//! rows at a time in that layout: how `history --all` writes a table of any number of
//! runs in the memory of a page, and how a listing held whole is fitted to the
//! terminal, with the same code.

use comfy_table::{ColumnConstraint, Table, TableStyle, Width, presets};
use unicode_width::UnicodeWidthStr;

use super::{Listing, TextStyle, shown};
use crate::render::wrap;

/// What a listing's rows say about its columns, learned one row at a time: all that
/// laying the listing out needs, whatever its length.
#[derive(Clone, Debug)]
pub struct Layout {
    style: TextStyle,
    /// The listing's headers as shown (see [`shown`]) and its numeric columns, no rows.
    frame: Listing,
    columns: Vec<ColumnFacts>,
    /// A column whose every cell is the same is said once under a fitted table, with
    /// the first row's cell.
    first: Option<Vec<String>>,
    rows: usize,
    /// The most characters a line of the whole table has beyond its terminal columns:
    /// a character of no width (a combining accent) counts in the line, not on screen.
    excess: usize,
}

/// One column's share of [`Layout`].
#[derive(Clone, Debug)]
struct ColumnFacts {
    /// The widest line in characters, header included: where fitting starts.
    chars: usize,
    /// The widest line in terminal columns as comfy-table measures it, header
    /// included: the column's width in a whole table.
    width: usize,
    /// The widest word in characters, header included: wrapping never cuts one.
    word: usize,
    /// The widest cell in characters, header left out: a number stays whole (only a
    /// number's header wraps) while it can.
    cell: usize,
    /// The narrowest the column may be for every cell to take at most the listing's
    /// `max_lines` lines (its widest word when there is no such bound), header left out.
    lines: usize,
    /// Whether every cell so far is the first row's.
    same: bool,
}

impl ColumnFacts {
    fn of_header(header: &str) -> ColumnFacts {
        let mut facts = ColumnFacts {
            chars: 0,
            width: 0,
            // a column of blanks still keeps one character
            word: 1,
            cell: 0,
            lines: 0,
            same: true,
        };
        facts.measure(header);
        facts
    }

    fn add(&mut self, cell: &str, max_lines: Option<usize>) {
        self.measure(cell);
        self.cell = self.cell.max(text_width(cell));
        if let Some(most) = max_lines {
            self.lines = self.lines.max(wrap::narrowest(cell, most));
        }
    }

    fn measure(&mut self, text: &str) {
        self.chars = self.chars.max(text_width(text));
        let columns = text.split('\n').map(UnicodeWidthStr::width).max();
        self.width = self.width.max(columns.unwrap_or(0));
        self.word = self.word.max(wrap::widest_word_chars(text));
    }

    /// The width wrapping may not go below at each `Shrink`, for text and for numbers.
    fn least(&self, numeric: bool, shrink: Shrink) -> usize {
        let word = self.word.min(usize::from(u16::MAX));
        let lines = self.lines.max(word);
        match (shrink, numeric) {
            (Shrink::NumbersWhole, true) => lines.max(self.cell),
            (Shrink::NumbersWhole | Shrink::RowsBounded, _) => lines,
            (Shrink::Words, _) => word,
        }
    }
}

/// How far fitting may narrow the columns, in the order it tries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shrink {
    /// Text wraps within the rows' bound on lines; numbers stay whole.
    NumbersWhole,
    /// Numbers wrap at their spaces too, within the bound.
    RowsBounded,
    /// Every cell wraps down to its longest word, rows as tall as it takes.
    Words,
}

/// The most characters of `text`'s lines.
fn text_width(text: &str) -> usize {
    text.lines().map(|l| l.chars().count()).max().unwrap_or(0)
}

/// How many more characters than terminal columns the row's worst line has (never
/// less than none: the table's borders are lines too).
fn excess(row: &[String]) -> usize {
    let cells: Vec<Vec<&str>> = row.iter().map(|c| c.split('\n').collect()).collect();
    let height = cells.iter().map(Vec::len).max().unwrap_or(0);
    let line_excess = |at: usize| -> isize {
        let lines = cells.iter().filter_map(|lines| lines.get(at));
        lines
            .map(|l| l.chars().count() as isize - l.width() as isize)
            .sum()
    };
    (0..height).map(line_excess).max().unwrap_or(0).max(0) as usize
}

impl Layout {
    /// The layout of `frame`'s headers (its rows are not read), to be learned row by row.
    pub(super) fn new(frame: &Listing, style: TextStyle) -> Layout {
        let mut frame = frame.without_rows();
        frame.headers = shown(&frame.headers, style);
        Layout {
            style,
            columns: frame
                .headers
                .iter()
                .map(|h| ColumnFacts::of_header(h))
                .collect(),
            excess: excess(&frame.headers),
            frame,
            first: None,
            rows: 0,
        }
    }

    /// Learns one more row.
    pub fn add(&mut self, row: &[String]) {
        debug_assert_eq!(row.len(), self.columns.len());
        let row = &shown(row, self.style)[..];
        match &self.first {
            None => self.first = Some(row.to_vec()),
            Some(first) => {
                for (facts, (cell, first)) in self.columns.iter_mut().zip(row.iter().zip(first)) {
                    facts.same &= cell == first;
                }
            }
        }
        let max_lines = self.frame.max_lines;
        for (facts, cell) in self.columns.iter_mut().zip(row) {
            facts.add(cell, max_lines);
        }
        self.excess = self.excess.max(excess(row));
        self.rows += 1;
    }

    /// The writer of the rows learned: the table whole, unless it is a table wider than
    /// the terminal, which is fitted to it as [`Listing::render`] fits one held whole.
    pub fn writer(self) -> Chunks {
        match self.frame.limit(self.style) {
            Some(width) if self.widest_line() > usize::from(width) => self.fitted(width),
            _ => self.whole(),
        }
    }

    /// Characters in the widest line of the whole table, uncoloured: the borders' and
    /// padding's, the columns' widths, and what a line has beyond its width.
    pub(super) fn widest_line(&self) -> usize {
        let columns: usize = self.columns.iter().map(|c| c.width.max(1)).sum();
        // "│ " before each cell, " ┆ " between, " │" after
        3 * self.columns.len() + 1 + columns + self.excess
    }

    /// Every column as wide as its widest line.
    fn whole(self) -> Chunks {
        let widths = self
            .columns
            .iter()
            .map(|c| as_u16(c.width.max(1)))
            .collect();
        let every = (0..self.columns.len()).collect();
        Chunks::new(&self.frame, every, widths, self.style, String::new())
    }

    /// Too wide for the terminal: columns whose every cell is the same are said once
    /// under the table, and the rest wrap at spaces, never inside a word or a number.
    /// Rows stay within the listing's `max_lines` while they can, leaving out its
    /// optional columns if that is what it takes (the table says so).
    pub(super) fn fitted(self, width: u16) -> Chunks {
        // the first column names the row: kept even when it repeats
        let (constant, mut kept): (Vec<usize>, Vec<usize>) =
            (0..self.columns.len()).partition(|&c| c > 0 && self.rows > 1 && self.columns[c].same);
        let mut left_out = Vec::new();
        let widths = loop {
            let bounded = [Shrink::NumbersWhole, Shrink::RowsBounded];
            let (widths, fits) = self.column_widths(&kept, usize::from(width), &bounded);
            if fits {
                break widths;
            }
            let optional = self.frame.optional.iter();
            match optional.copied().find(|c| kept.contains(c)) {
                Some(column) => {
                    kept.retain(|&c| c != column);
                    left_out.push(column);
                }
                None => {
                    let all = [Shrink::NumbersWhole, Shrink::RowsBounded, Shrink::Words];
                    break self.column_widths(&kept, usize::from(width), &all).0;
                }
            }
        };
        let note = self.every_row(&constant, width) + &self.left_out(&left_out, width);
        Chunks::new(&self.frame, kept, as_u16s(&widths), self.style, note)
    }

    /// The line under a fitted table that says the constant columns' one value.
    fn every_row(&self, constant: &[usize], width: u16) -> String {
        let Some(first) = self.first.as_ref().filter(|_| !constant.is_empty()) else {
            return String::new();
        };
        let said: Vec<String> = constant
            .iter()
            .map(|&c| format!("{} {}", self.frame.headers[c], first[c]))
            .collect();
        let line = format!("Every row: {}", said.join("; "));
        wrap::fill(&line, usize::from(width)) + "\n"
    }

    /// The line under a fitted table that names the columns it left out.
    fn left_out(&self, columns: &[usize], width: u16) -> String {
        if columns.is_empty() {
            return String::new();
        }
        let names: Vec<String> = (columns.iter())
            .map(|&c| self.frame.headers[c].replace('\n', " "))
            .collect();
        let line = format!(
            "Left out at this width: {} (a wider terminal, or --format markdown, shows {})",
            names.join(", "),
            if columns.len() == 1 { "it" } else { "them" }
        );
        wrap::fill(&line, usize::from(width)) + "\n"
    }

    /// Widths of the `kept` columns that fit `width` terminal columns if they can: the
    /// widest column with room to give gives one character at a time, down to what
    /// each of `shrinks` allows in turn (first numbers stay whole, only a number's header
    /// wrapping); and whether they fit.
    fn column_widths(
        &self,
        kept: &[usize],
        width: usize,
        shrinks: &[Shrink],
    ) -> (Vec<usize>, bool) {
        let columns = kept.len();
        let mut widths: Vec<usize> = kept.iter().map(|&c| self.columns[c].chars).collect();
        // "│ " before each cell, " ┆ " between, " │" after
        let budget = width.saturating_sub(3 * columns + 1);
        for &shrink in shrinks {
            let least: Vec<usize> = (kept.iter())
                .map(|&c| self.columns[c].least(self.frame.numeric[c], shrink))
                .collect();
            while widths.iter().sum::<usize>() > budget {
                let roomiest = (0..columns)
                    .filter(|&c| widths[c] > least[c])
                    .max_by_key(|&c| (widths[c] - least[c], widths[c]));
                match roomiest {
                    Some(c) => widths[c] -= 1,
                    None => break,
                }
            }
        }
        let fits = widths.iter().sum::<usize>() <= budget;
        (widths, fits)
    }
}

fn as_u16(width: usize) -> u16 {
    u16::try_from(width).unwrap_or(u16::MAX)
}

fn as_u16s(widths: &[usize]) -> Vec<u16> {
    widths.iter().map(|&w| as_u16(w)).collect()
}

/// A listing written a chunk of rows at a time, every chunk in the one layout fixed
/// before the first: the head (top border, header) with the first chunk, the tail
/// (bottom border, the fitted table's note) at the end.
#[derive(Debug)]
pub struct Chunks {
    /// The kept columns' headers, without rows.
    frame: Listing,
    kept: Vec<usize>,
    /// The kept columns' content widths.
    widths: Vec<u16>,
    style: TextStyle,
    /// The head's text until it is written, and its number of lines.
    head: Option<String>,
    head_lines: usize,
    tail: String,
    tail_lines: usize,
}

impl Chunks {
    fn new(
        frame: &Listing,
        kept: Vec<usize>,
        widths: Vec<u16>,
        style: TextStyle,
        note: String,
    ) -> Chunks {
        let mut picked = frame.pick(&kept);
        picked.headers = wrapped(&picked.headers, &widths);
        let mut chunks = Chunks {
            frame: picked,
            kept,
            widths,
            style,
            head: None,
            head_lines: 0,
            tail: String::new(),
            tail_lines: usize::from(has_bottom_border(&preset(style))),
        };
        // a table of no rows is the head and the tail alone
        let lines: Vec<String> = chunks.table(&chunks.frame).lines().collect();
        let (head, tail) = lines.split_at(lines.len() - chunks.tail_lines);
        chunks.head_lines = head.len();
        chunks.head = Some(as_text(head));
        chunks.tail = as_text(tail) + &note;
        if style == TextStyle::Markdown {
            // as `Listing::to_markdown` ends a table
            chunks.tail.push('\n');
        }
        chunks
    }

    /// `rows`' lines of the table (a listing with the layout's headers), after the head
    /// if this is the first chunk.
    pub fn chunk(&mut self, rows: &Listing) -> String {
        let mut rows = rows.shown(self.style).pick(&self.kept);
        for row in &mut rows.rows {
            *row = wrapped(row, &self.widths);
        }
        let lines: Vec<String> = self.table(&rows).lines().collect();
        let body = &lines[self.head_lines..lines.len() - self.tail_lines];
        self.head.take().unwrap_or_default() + &as_text(body)
    }

    /// What is left to write: the tail, after the head if no chunk was written.
    pub fn end(mut self) -> String {
        self.head.take().unwrap_or_default() + &self.tail
    }

    /// `rows` as a table of the layout's column widths.
    fn table(&self, rows: &Listing) -> Table {
        let mut table = rows.table(preset(self.style), self.style.colored());
        for (column, width) in table.column_iter_mut().zip(&self.widths) {
            // comfy-table counts a column's padding (one space a side) in its width
            let padded = width.saturating_add(2);
            column.set_constraint(ColumnConstraint::Absolute(Width::Fixed(padded)));
        }
        table
    }
}

/// `cells` wrapped at their spaces to the columns' `widths`, so that comfy-table, which
/// would cut a word that does not fit the rest of a line, has nothing left to wrap.
fn wrapped(cells: &[String], widths: &[u16]) -> Vec<String> {
    (cells.iter().zip(widths))
        .map(|(cell, &width)| wrap::fill(cell, usize::from(width)))
        .collect()
}

fn preset(style: TextStyle) -> TableStyle {
    match style {
        TextStyle::Markdown => presets::ASCII_MARKDOWN,
        TextStyle::Table { .. } => super::TABLE,
    }
}

fn has_bottom_border(preset: &TableStyle) -> bool {
    let border = preset.bottom_border;
    [border.left, border.fill, border.junction, border.right]
        .iter()
        .any(Option::is_some)
}

/// Lines as text, each ended by a newline.
fn as_text(lines: &[String]) -> String {
    lines.iter().flat_map(|l| [l.as_str(), "\n"]).collect()
}
