//! A listing is headers and rows of text; one listing renders as a terminal table, a
//! Markdown table ready to paste into a ticket, or CSV. Renderers build listings and
//! never format tables themselves.

use comfy_table::{Cell, CellAlignment, Color, ContentArrangement, Table, presets};

/// How text meant for a person is laid out: a terminal table, in colour or not, or
/// Markdown to paste into a ticket (never coloured).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextStyle {
    Table,
    ColoredTable,
    Markdown,
}

impl TextStyle {
    /// A terminal table, coloured when the terminal takes colour.
    pub fn table(color: bool) -> Self {
        match color {
            true => TextStyle::ColoredTable,
            false => TextStyle::Table,
        }
    }

    /// Whether verdicts and changes are painted.
    pub fn colored(self) -> bool {
        self == TextStyle::ColoredTable
    }
}

pub struct Listing {
    pub headers: Vec<String>,
    pub rows: Vec<Vec<String>>,
    /// Columns holding numbers, right-aligned in tables.
    pub numeric: Vec<bool>,
    /// Wrap long cells to keep tables within this many columns.
    pub max_width: Option<u16>,
    /// Per row, one cell to colour in terminal tables (a verdict, say).
    colors: Vec<Option<(usize, Color)>>,
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
        debug_assert_eq!(row.len(), self.headers.len());
        self.rows.push(row);
        self.colors.push(color);
    }

    fn table(&self, style: comfy_table::TableStyle, color: bool) -> Table {
        let mut table = Table::new();
        table
            .load_style(style)
            .set_content_arrangement(ContentArrangement::Disabled)
            .set_header(self.headers.iter().map(Cell::new));
        if let Some(width) = self.max_width {
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
                    match paint {
                        Some((c, fg)) if color && *c == column => cell.fg(*fg),
                        _ => cell,
                    }
                },
            ));
        }
        table
    }

    pub fn to_table(&self) -> String {
        self.to_table_colored(false)
    }

    pub fn to_table_colored(&self, color: bool) -> String {
        let mut out = self
            .table(presets::UTF8_FULL_CONDENSED.with_rounded_corners(), color)
            .to_string();
        out.push('\n');
        out
    }

    pub fn to_markdown(&self) -> String {
        let mut out = self.table(presets::ASCII_MARKDOWN, false).to_string();
        out.push('\n');
        out
    }

    /// The listing as a terminal table (coloured or not) or Markdown.
    pub fn render(&self, style: TextStyle) -> String {
        match style {
            TextStyle::Markdown => self.to_markdown(),
            style => self.to_table_colored(style.colored()),
        }
    }

    pub fn to_csv(&self) -> String {
        let mut writer = csv::Writer::from_writer(Vec::new());
        let mut write = |record: &[String]| {
            writer
                .write_record(record)
                .expect("writing CSV to memory cannot fail")
        };
        write(&self.headers);
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
