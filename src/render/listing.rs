//! A listing is headers and rows of text; one listing renders as a terminal table, a
//! Markdown table ready to paste into a ticket, or CSV. Renderers build listings and
//! never format tables themselves.

use comfy_table::{
    Cell, CellAlignment, Color, ColumnConstraint, ContentArrangement, Table, Width, presets,
};

/// How text meant for a person is laid out: a terminal table, in colour or not and
/// fitted to the terminal's width when it has one, or Markdown to paste into a ticket
/// (never coloured, never fitted).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextStyle {
    Table {
        color: bool,
        /// The terminal's width: tables wider than this wrap their cells to fit. `None`
        /// when piped, so files and scripts get every table whole.
        width: Option<u16>,
    },
    Markdown,
}

impl TextStyle {
    /// A terminal table, coloured when the terminal takes colour, never fitted.
    pub fn table(color: bool) -> Self {
        TextStyle::Table { color, width: None }
    }

    /// Whether verdicts and changes are painted.
    pub fn colored(self) -> bool {
        matches!(self, TextStyle::Table { color: true, .. })
    }

    /// `text` (lines of prose) wrapped at the terminal's width when fitted, else as is.
    pub fn paragraph(self, text: &str) -> String {
        match self {
            TextStyle::Table {
                width: Some(width), ..
            } => {
                let lines = text
                    .lines()
                    .map(|line| textwrap::fill(line, usize::from(width)));
                let mut out: String = lines.collect::<Vec<_>>().join("\n");
                if text.ends_with('\n') {
                    out.push('\n');
                }
                out
            }
            _ => text.to_string(),
        }
    }

    /// The same layout without colour.
    pub fn plain(self) -> Self {
        match self {
            TextStyle::Table { width, .. } => TextStyle::Table {
                color: false,
                width,
            },
            markdown => markdown,
        }
    }
}

/// A table as rows of text.
#[derive(Clone, Debug)]
pub struct Listing {
    pub headers: Vec<String>,
    pub rows: Vec<Vec<String>>,
    /// Columns holding numbers, right-aligned in tables.
    pub numeric: Vec<bool>,
    /// Wrap long cells to keep tables within this many columns.
    pub max_width: Option<u16>,
    /// Per row, the cells to colour in terminal tables (a verdict, say).
    colors: Vec<Vec<(usize, Color)>>,
}

impl Listing {
    pub fn new(headers: &[&str]) -> Self {
        Listing {
            headers: headers.iter().map(|h| h.to_string()).collect(),
            rows: Vec::new(),
            numeric: vec![false; headers.len()],
            max_width: None,
            colors: Vec::new(),
        }
    }

    pub fn numeric(mut self, columns: &[usize]) -> Self {
        for &c in columns {
            self.numeric[c] = true;
        }
        self
    }

    pub fn wrapped(mut self, width: u16) -> Self {
        self.max_width = Some(width);
        self
    }

    pub fn push(&mut self, row: Vec<String>) {
        self.push_colored(row, None);
    }

    /// A row with cell `column` coloured when the table is rendered with colour.
    pub fn push_colored(&mut self, row: Vec<String>, color: Option<(usize, Color)>) {
        self.push_painted(row, color.into_iter().collect());
    }

    /// A row with each of `colors`' cells coloured when rendered with colour.
    pub fn push_painted(&mut self, row: Vec<String>, colors: Vec<(usize, Color)>) {
        debug_assert_eq!(row.len(), self.headers.len());
        self.rows.push(row);
        self.colors.push(colors);
    }

    fn table(&self, style: comfy_table::TableStyle, color: bool, width: Option<u16>) -> Table {
        let mut table = Table::new();
        table
            .load_style(style)
            .set_content_arrangement(ContentArrangement::Disabled)
            .set_header(self.headers.iter().map(Cell::new));
        let width = match (self.max_width, width) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        if let Some(width) = width {
            table
                .set_content_arrangement(ContentArrangement::Dynamic)
                .set_width(width);
        }
        if color {
            table.enforce_styling();
        }
        for (row, paint) in self.rows.iter().zip(&self.colors) {
            table.add_row(row.iter().zip(&self.numeric).enumerate().map(
                |(column, (text, &numeric))| {
                    let mut cell = Cell::new(text);
                    if numeric {
                        cell = cell.set_alignment(CellAlignment::Right);
                    }
                    match paint.iter().find(|(c, _)| *c == column) {
                        Some((_, fg)) if color => cell.fg(*fg),
                        _ => cell,
                    }
                },
            ));
        }
        table
    }

    pub fn to_table(&self) -> String {
        self.render(TextStyle::table(false))
    }

    /// A Markdown pipe table; a `|` inside a cell is escaped so it stays in its cell.
    pub fn to_markdown(&self) -> String {
        let escape = |cells: &[String]| -> Vec<String> {
            cells.iter().map(|c| c.replace('|', "\\|")).collect()
        };
        let escaped = Listing {
            headers: escape(&self.headers),
            rows: self.rows.iter().map(|r| escape(r)).collect(),
            ..self.clone()
        };
        let mut out = escaped
            .table(presets::ASCII_MARKDOWN, false, None)
            .to_string();
        out.push('\n');
        out
    }

    /// The listing as a terminal table (coloured or not, fitted or not) or Markdown.
    pub fn render(&self, style: TextStyle) -> String {
        let preset = presets::UTF8_FULL_CONDENSED.with_rounded_corners();
        match style {
            TextStyle::Markdown => self.to_markdown(),
            TextStyle::Table {
                width: Some(width), ..
            } if self.widest_line(preset) > usize::from(width) => {
                self.fitted(preset, style.colored(), width)
            }
            style => {
                let mut out = self.table(preset, style.colored(), None).to_string();
                out.push('\n');
                out
            }
        }
    }

    fn widest_line(&self, preset: comfy_table::TableStyle) -> usize {
        let text = self.table(preset, false, None).to_string();
        text.lines().map(|l| l.chars().count()).max().unwrap_or(0)
    }

    /// Too wide for the terminal: columns whose every cell is the same are said once
    /// under the table, and the rest wrap at spaces, never inside a word or a number.
    fn fitted(&self, preset: comfy_table::TableStyle, color: bool, width: u16) -> String {
        let same =
            |c: usize| self.rows.len() > 1 && self.rows.iter().all(|r| r[c] == self.rows[0][c]);
        // the first column names the row: kept even when it repeats
        let (constant, kept): (Vec<usize>, Vec<usize>) =
            (0..self.headers.len()).partition(|&c| c > 0 && same(c));
        let pick = |cells: &[String]| kept.iter().map(|&c| cells[c].clone()).collect();
        let narrower = Listing {
            headers: pick(&self.headers),
            rows: self.rows.iter().map(|r| pick(r)).collect(),
            numeric: kept.iter().map(|&c| self.numeric[c]).collect(),
            max_width: self.max_width,
            colors: self
                .colors
                .iter()
                .map(|paint| {
                    let moved = |&(c, fg): &(usize, Color)| {
                        kept.iter().position(|&k| k == c).map(|at| (at, fg))
                    };
                    paint.iter().filter_map(moved).collect()
                })
                .collect(),
        };
        let mut table = narrower.table(preset, color, None);
        let widths = narrower.column_widths(usize::from(width));
        for (column, width) in table.column_iter_mut().zip(widths) {
            // comfy-table counts a column's padding (one space a side) in its width
            let padded = width.saturating_add(2);
            column.set_constraint(ColumnConstraint::Absolute(Width::Fixed(padded)));
        }
        let mut out = table.to_string();
        out.push('\n');
        if !constant.is_empty() && !self.rows.is_empty() {
            let said: Vec<String> = constant
                .iter()
                .map(|&c| format!("{} {}", self.headers[c], self.rows[0][c]))
                .collect();
            let line = format!("Every row: {}", said.join("; "));
            out.push_str(&textwrap::fill(&line, usize::from(width)));
            out.push('\n');
        }
        out
    }

    /// Column widths that fit `width` terminal columns if they can: the widest column
    /// with room to give gives one character at a time, down to its longest word (for
    /// numbers, their whole cell: only a number's header wraps).
    fn column_widths(&self, width: usize) -> Vec<u16> {
        let columns = self.headers.len();
        let text_width = |s: &String| s.lines().map(|l| l.chars().count()).max().unwrap_or(0);
        let mut widths: Vec<usize> = (0..columns)
            .map(|c| {
                let cells =
                    std::iter::once(&self.headers[c]).chain(self.rows.iter().map(|r| &r[c]));
                cells.map(text_width).max().unwrap_or(1)
            })
            .collect();
        let words: Vec<usize> = (0..columns)
            .map(|c| usize::from(self.longest_word(c)))
            .collect();
        let whole: Vec<usize> = (0..columns)
            .map(|c| match self.numeric[c] {
                true => (self.rows.iter().map(|r| text_width(&r[c]))).fold(words[c], usize::max),
                false => words[c],
            })
            .collect();
        // "│ " before each cell, " ┆ " between, " │" after
        let budget = width.saturating_sub(3 * columns + 1);
        // numbers stay whole while they can, then wrap at their spaces too
        for least in [whole, words] {
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
        widths
            .into_iter()
            .map(|w| u16::try_from(w).unwrap_or(u16::MAX))
            .collect()
    }

    /// The widest word of column `c` (header and cells), which wrapping must not cut.
    fn longest_word(&self, c: usize) -> u16 {
        let cells = std::iter::once(&self.headers[c]).chain(self.rows.iter().map(|r| &r[c]));
        let widest = cells
            .flat_map(|cell| cell.split_whitespace())
            .map(|word| word.chars().count())
            .max()
            .unwrap_or(1);
        u16::try_from(widest).unwrap_or(u16::MAX)
    }

    pub fn to_csv(&self) -> String {
        self.csv(true)
    }

    /// The CSV of the rows alone, to follow an earlier page's (streamed listings).
    pub fn to_csv_rows(&self) -> String {
        self.csv(false)
    }

    fn csv(&self, header: bool) -> String {
        let mut writer = csv::Writer::from_writer(Vec::new());
        let mut write = |record: &[String]| {
            writer
                .write_record(record)
                .expect("writing CSV to memory cannot fail")
        };
        if header {
            write(&self.headers);
        }
        for row in &self.rows {
            write(row);
        }
        String::from_utf8(writer.into_inner().expect("in-memory CSV flushes"))
            .expect("CSV of UTF-8 text is UTF-8")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Listing {
        let mut l = Listing::new(&["name", "rate"]).numeric(&[1]);
        l.push(vec!["a, b".into(), "12.5".into()]);
        l.push(vec!["c|d".into(), "3".into()]);
        l
    }

    #[test]
    fn csv_quotes_what_needs_quoting() {
        assert_eq!(sample().to_csv(), "name,rate\n\"a, b\",12.5\nc|d,3\n");
    }

    #[test]
    fn markdown_is_a_pipe_table() {
        let md = sample().to_markdown();
        let lines: Vec<&str> = md.lines().collect();
        assert!(lines[0].starts_with("| name"), "{md}");
        assert!(lines[1].starts_with("|-"), "{md}");
        assert_eq!(lines.len(), 4, "{md}");
    }

    #[test]
    fn table_has_every_row() {
        let t = sample().to_table();
        assert!(
            t.contains("a, b") && t.contains("12.5") && t.contains("rate"),
            "{t}"
        );
    }
}
