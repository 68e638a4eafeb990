//! A listing is headers and rows of text; one listing renders as a terminal table, a
//! Markdown table ready to paste into a ticket, or CSV. Renderers build listings and
//! never format tables themselves.

mod layout;

use comfy_table::{Cell, CellAlignment, Color, ContentArrangement, Table, presets};

use super::printable;

pub use layout::{Chunks, Layout};

/// The terminal tables' borders.
const TABLE: comfy_table::TableStyle = presets::UTF8_FULL_CONDENSED.with_rounded_corners();

/// `cells` as `style` shows them: their controls escaped and each cut at
/// [`printable::CELL_CHARS`], before anything measures or lays them out (a cell of
/// megabytes would cost the layout its square); in Markdown each on one line with its
/// `|` escaped, so it stays in its cell.
fn shown(cells: &[String], style: TextStyle) -> Vec<String> {
    let show = match style {
        TextStyle::Markdown => printable::markdown_cell,
        TextStyle::Table { .. } => printable::cell,
    };
    cells.iter().map(|c| show(c).into_owned()).collect()
}

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

    /// `text` (lines of prose) wrapped at its spaces to the terminal's width when
    /// fitted, else as is.
    pub fn paragraph(self, text: &str) -> String {
        match self {
            TextStyle::Table {
                width: Some(width), ..
            } => {
                let body = text.strip_suffix('\n').unwrap_or(text);
                let mut out = super::wrap::fill(body, usize::from(width));
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
    /// Wrap long cells to keep tables within this many columns, on a terminal or not
    /// (never in Markdown, whose rows are lines).
    pub max_width: Option<u16>,
    /// Per row, the cells to colour in terminal tables (a verdict, say).
    colors: Vec<Vec<(usize, Color)>>,
    /// When fitted to a terminal, the most lines a row may take: columns are kept wide
    /// enough for it while they can be, leaving out the `optional` ones if need be.
    max_lines: Option<usize>,
    /// Columns a fitted table may leave out, the first left out first, rather than be
    /// wider than the terminal or let a row grow past `max_lines`; the table says which
    /// it left out.
    optional: Vec<usize>,
}

impl Listing {
    pub fn new(headers: &[&str]) -> Self {
        Listing {
            headers: headers.iter().map(|h| h.to_string()).collect(),
            rows: Vec::new(),
            numeric: vec![false; headers.len()],
            max_width: None,
            colors: Vec::new(),
            max_lines: None,
            optional: Vec::new(),
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

    /// Fitted to a terminal, rows of at most `lines` lines, leaving out the
    /// [`Listing::optional`] columns while a row would need more.
    pub fn at_most_lines(mut self, lines: usize) -> Self {
        self.max_lines = Some(lines.max(1));
        self
    }

    /// Columns a table fitted to a terminal may leave out, the first first, rather
    /// than be wider than the terminal (or its rows taller than
    /// [`Listing::at_most_lines`]).
    pub fn optional(mut self, columns: &[usize]) -> Self {
        self.optional = columns.to_vec();
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

    /// The rows as a comfy-table, every cell as it is: whatever wraps was wrapped before.
    fn table(&self, style: comfy_table::TableStyle, color: bool) -> Table {
        let mut table = Table::new();
        table
            .load_style(style)
            .set_content_arrangement(ContentArrangement::Disabled)
            .set_header(self.headers.iter().map(Cell::new));
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

    /// A Markdown pipe table, a line per row whatever its length (a renderer wraps it,
    /// a second line would be a second row), then a blank line (a line of text right
    /// under a table is read as one more row); a `|` inside a cell is escaped so it
    /// stays in its cell.
    pub fn to_markdown(&self) -> String {
        let mut out = (self.shown(TextStyle::Markdown))
            .table(presets::ASCII_MARKDOWN, false)
            .to_string();
        out.push_str("\n\n");
        out
    }

    /// The listing as `style` shows its text (see [`shown`]), to lay out.
    fn shown(&self, style: TextStyle) -> Listing {
        Listing {
            headers: shown(&self.headers, style),
            rows: self.rows.iter().map(|r| shown(r, style)).collect(),
            colors: self.colors.clone(),
            ..self.without_rows()
        }
    }

    /// The listing as a terminal table (coloured or not, fitted or not) or Markdown.
    pub fn render(&self, style: TextStyle) -> String {
        match style {
            TextStyle::Markdown => self.to_markdown(),
            TextStyle::Table { .. } => match self.limit(style) {
                Some(width) if self.widest_line() > usize::from(width) => self.fitted(style, width),
                _ => {
                    let shown = self.shown(style);
                    let mut out = shown.table(TABLE, style.colored()).to_string();
                    out.push('\n');
                    out
                }
            },
        }
    }

    /// The most columns a terminal table of this listing may take in `style`: the
    /// terminal's width, or the listing's own limit if narrower; none in Markdown.
    fn limit(&self, style: TextStyle) -> Option<u16> {
        match style {
            TextStyle::Markdown => None,
            TextStyle::Table { width, .. } => match (width, self.max_width) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            },
        }
    }

    /// Characters in the widest line of the whole terminal table, uncoloured.
    fn widest_line(&self) -> usize {
        let plain = TextStyle::table(false);
        let text = self.shown(plain).table(TABLE, false).to_string();
        text.lines().map(|l| l.chars().count()).max().unwrap_or(0)
    }

    /// Too wide for the terminal: laid out and written as one chunk, the way a listing
    /// too long to hold is written in many.
    fn fitted(&self, style: TextStyle, width: u16) -> String {
        let mut chunks = self.layout(style).fitted(width);
        chunks.chunk(self) + &chunks.end()
    }

    /// The layout of this listing's rows, which learns more rows before it writes
    /// whichever rows it is given a chunk at a time (see [`Layout`]).
    pub fn layout(&self, style: TextStyle) -> Layout {
        let mut layout = Layout::new(self, style);
        for row in &self.rows {
            layout.add(row);
        }
        layout
    }

    /// The same headers and columns, no rows.
    pub fn without_rows(&self) -> Listing {
        Listing {
            headers: self.headers.clone(),
            rows: Vec::new(),
            numeric: self.numeric.clone(),
            max_width: self.max_width,
            colors: Vec::new(),
            max_lines: self.max_lines,
            optional: self.optional.clone(),
        }
    }

    /// The listing without its column `column`.
    pub fn without_column(&self, column: usize) -> Listing {
        let kept: Vec<usize> = (0..self.headers.len()).filter(|&c| c != column).collect();
        self.pick(&kept)
    }

    /// The `kept` columns only, in that order, colours moving with their cells.
    fn pick(&self, kept: &[usize]) -> Listing {
        let pick = |cells: &[String]| kept.iter().map(|&c| cells[c].clone()).collect();
        let at = |c: usize| kept.iter().position(|&k| k == c);
        Listing {
            headers: pick(&self.headers),
            rows: self.rows.iter().map(|r| pick(r)).collect(),
            numeric: kept.iter().map(|&c| self.numeric[c]).collect(),
            max_width: self.max_width,
            max_lines: self.max_lines,
            optional: self.optional.iter().filter_map(|&c| at(c)).collect(),
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
        }
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
        assert_eq!(lines.len(), 5, "{md}");
        assert_eq!(lines[4], "", "a blank line ends the table: {md}");
    }

    #[test]
    fn markdown_is_never_wrapped() {
        let mut l = Listing::new(&["fact", "value"]).wrapped(30);
        l.push(vec![
            "mount options".into(),
            "rw,relatime,nodelalloc,data=journal and more words than fit".into(),
        ]);
        let md = l.render(TextStyle::Markdown);
        assert_eq!(md.lines().filter(|l| l.starts_with('|')).count(), 3, "{md}");
        // the same listing on a terminal wraps between words, after a list's commas
        let table = l.render(TextStyle::Table {
            color: false,
            width: Some(40),
        });
        assert!(table.lines().all(|l| l.chars().count() <= 30), "{table}");
        assert!(table.contains("rw,relatime,"), "{table}");
        assert!(table.contains("nodelalloc,"), "{table}");
    }

    #[test]
    fn a_bounded_row_leaves_out_optional_columns_rather_than_grow() {
        let mut l = Listing::new(&["Test", "Interval", "p", "Verdict"])
            .numeric(&[1, 2])
            .at_most_lines(2)
            .optional(&[2, 1]);
        for (interval, p, verdict) in [
            ("[-27.5, -14.8]", "0.001 (0.002)", "regression"),
            ("[-9.4, +6.5]", "0.568 (0.601)", "inconclusive"),
        ] {
            l.push(vec![
                "write".into(),
                interval.into(),
                p.into(),
                verdict.into(),
            ]);
        }
        let fitted = |width: u16| {
            l.render(TextStyle::Table {
                color: false,
                width: Some(width),
            })
        };
        // whole: every column on one line
        assert!(fitted(60).contains("[-27.5, -14.8]"));
        // narrower: the figures wrap onto two lines, every column kept
        let two_lines = fitted(45);
        assert!(
            two_lines.contains("(0.002)") && !two_lines.contains("Left out"),
            "{two_lines}"
        );
        // narrower still: p is left out, and said to be
        let without_p = fitted(36);
        assert!(!without_p.contains("(0.002)"), "{without_p}");
        assert!(
            without_p.contains("Left out at this width: p"),
            "{without_p}"
        );
        for text in [two_lines, without_p] {
            let body: Vec<&str> = (text.lines())
                .skip_while(|l| !l.starts_with('╞'))
                .skip(1)
                .take_while(|l| l.starts_with('│'))
                .collect();
            assert_eq!(body.len(), 4, "two rows of two lines each:\n{text}");
        }
    }

    #[test]
    fn table_has_every_row() {
        let t = sample().to_table();
        assert!(
            t.contains("a, b") && t.contains("12.5") && t.contains("rate"),
            "{t}"
        );
    }

    /// Cells of every kind a table meets: words and numbers, a long word, spaces, a
    /// `|`, a second line, wide and zero-width characters, nothing at all, controls
    /// that are shown escaped, and text longer than a cell shows.
    const CELLS: [&str; 17] = [
        "posix",
        "12.5",
        "1024.00",
        "a, b",
        "host-0001 (rack 4)",
        "extraordinarilylongword",
        "several words that wrap somewhere",
        "c|d",
        "two\nlines",
        "日本語",
        "e\u{301}te\u{301}",
        "",
        "-",
        "DR9; nightly; smoke test",
        "\x1b[31mred\x1b[0m\tbell\x07",
        "right\u{202e}left",
        LONG,
    ];

    /// Longer than a cell shows, words and all.
    const LONG: &str = concat!(
        "0123456789 abcdefghijklmnopqrstuvwxyz 0123456789 abcdefghijklmnopqrstuvwxyz 0123456789 ",
        "abcdefghijklmnopqrstuvwxyz 0123456789 abcdefghijklmnopqrstuvwxyz 0123456789 abcdefghij ",
        "klmnopqrstuvwxyz 0123456789 abcdefghijklmnopqrstuvwxyz 0123456789 abcdefghijklmnopqrst ",
        "uvwxyz 0123456789 abcdefghijklmnopqrstuvwxyz 0123456789 abcdefghijklmnopqrstuvwxyz 0123 ",
        "456789 abcdefghijklmnopqrstuvwxyz 0123456789 abcdefghijklmnopqrstuvwxyz 0123456789 abcd ",
        "efghijklmnopqrstuvwxyz 0123456789 abcdefghijklmnopqrstuvwxyz 0123456789 abcdefghijklmno ",
        "pqrstuvwxyz 0123456789 abcdefghijklmnopqrstuvwxyz 0123456789 abcdefghijklmnopqrstuvwxyz ",
        "0123456789 abcdefghijklmnopqrstuvwxyz 0123456789 abcdefghijklmnopqrstuvwxyz 0123456789 ",
        "abcdefghijklmnopqrstuvwxyz 0123456789 abcdefghijklmnopqrstuvwxyz 0123456789 abcdefghij ",
        "klmnopqrstuvwxyz 0123456789 abcdefghijklmnopqrstuvwxyz 0123456789 abcdefghijklmnopqrst ",
        "uvwxyz 0123456789 abcdefghijklmnopqrstuvwxyz 0123456789 abcdefghijklmnopqrstuvwxyz 0123 ",
        "456789 abcdefghijklmnopqrstuvwxyz 0123456789 abcdefghijklmnopqrstuvwxyz 0123456789 abcd ",
        "efghijklmnopqrstuvwxyz 0123456789 abcdefghijklmnopqrstuvwxyz 0123456789 abcdefghijklmno ",
        "pqrstuvwxyz 0123456789 abcdefghijklmnopqrstuvwxyz 0123456789 abcdefghijklmnopqrstuvwxyz ",
    );

    /// A listing of `rows` rows picked by `seed`: some columns numeric, some the same in
    /// every row, some cells coloured.
    fn varied(seed: u64, rows: usize) -> Listing {
        let mut state = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let mut next = move |below: usize| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) as usize % below
        };
        let columns = 2 + next(6);
        let headers: Vec<&str> = (0..columns)
            .map(|c| ["ID", "write MiB/s", "Labels", "a long header name", "FS"][c % 5])
            .collect();
        let numeric: Vec<usize> = (0..columns).filter(|_| next(3) == 0).collect();
        let constant: Vec<Option<&str>> = (0..columns)
            .map(|_| (next(3) == 0).then(|| CELLS[next(CELLS.len())]))
            .collect();
        let mut listing = Listing::new(&headers).numeric(&numeric);
        for row in 0..rows {
            let cells: Vec<String> = (0..columns)
                .map(|c| match (c, constant[c]) {
                    (0, _) => (row * 37 % 1000).to_string(),
                    (_, Some(same)) => same.to_string(),
                    _ => CELLS[next(CELLS.len())].to_string(),
                })
                .collect();
            let paint = match next(2) {
                0 => vec![(next(columns), Color::Green)],
                _ => Vec::new(),
            };
            listing.push_painted(cells, paint);
        }
        listing
    }

    /// `listing` learned row by row and written `per` rows at a time, as `history
    /// --all` writes a table too long to hold.
    fn in_chunks(listing: &Listing, style: TextStyle, per: usize) -> String {
        let mut layout = listing.without_rows().layout(style);
        for row in &listing.rows {
            layout.add(row);
        }
        let mut chunks = layout.writer();
        let mut out = String::new();
        for (rows, colors) in listing.rows.chunks(per).zip(listing.colors.chunks(per)) {
            let mut chunk = listing.without_rows();
            for (row, paint) in rows.iter().zip(colors) {
                chunk.push_painted(row.clone(), paint.clone());
            }
            out += &chunks.chunk(&chunk);
        }
        out + &chunks.end()
    }

    /// Every style a listing is rendered in, with terminal widths on both sides of the
    /// table's own, so that some tables fit and others are fitted.
    fn styles(listing: &Listing) -> Vec<TextStyle> {
        let own = listing.widest_line();
        let mut styles = vec![TextStyle::Markdown];
        for color in [false, true] {
            styles.push(TextStyle::table(color));
            for width in [own - 1, own, own + 1, own / 2, 30, 12] {
                let width = Some(u16::try_from(width).unwrap());
                styles.push(TextStyle::Table { color, width });
            }
        }
        styles
    }

    #[test]
    fn written_in_chunks_a_listing_renders_as_it_does_whole() {
        let mut fitted = 0;
        for seed in 0..25 {
            for rows in [0, 1, 2, 3, 7, 20] {
                let listing = varied(seed, rows);
                for style in styles(&listing) {
                    let whole = listing.render(style);
                    fitted += usize::from(whole.contains("Every row: "));
                    for per in [1, 2, 3, 1000] {
                        assert_eq!(
                            in_chunks(&listing, style, per),
                            whole,
                            "seed {seed}, {rows} rows, {style:?}, {per} a chunk"
                        );
                    }
                }
            }
        }
        // the fitted tables' own line was met too
        assert!(fitted > 100, "{fitted}");
    }

    #[test]
    fn people_read_controls_escaped_and_long_cells_cut_while_csv_keeps_them() {
        let mut long = 0;
        for seed in 0..25 {
            let listing = varied(seed, 7);
            let cells = listing.rows.concat();
            long += usize::from(cells.iter().any(|c| c == LONG));
            for style in styles(&listing).into_iter().filter(|s| !s.colored()) {
                let text = listing.render(style);
                let control = text.chars().find(|&c| c != '\n' && printable::is_unsafe(c));
                assert_eq!(control, None, "seed {seed}, {style:?}:\n{text}");
                if cells.iter().any(|c| c == LONG) {
                    assert!(text.contains('…'), "seed {seed}, {style:?}:\n{text}");
                    assert!(!text.contains(&LONG[..super::printable::CELL_CHARS]));
                }
            }
            let csv = listing.to_csv();
            for cell in cells
                .iter()
                .filter(|c| c.contains('\x1b') || c.as_str() == LONG)
            {
                assert!(
                    csv.contains(cell.as_str()),
                    "seed {seed}: {cell:?} in\n{csv}"
                );
            }
        }
        assert!(long > 5, "{long}");
    }

    #[test]
    fn the_layout_knows_the_widest_line_without_drawing_the_table() {
        for seed in 0..200 {
            let listing = varied(seed, 1 + seed as usize % 9);
            assert_eq!(
                listing.layout(TextStyle::table(false)).widest_line(),
                listing.widest_line(),
                "seed {seed}: {listing:?}"
            );
        }
    }
}
