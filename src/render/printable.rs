//! Text from a run (a label, a note, a host name, an imported file's name) made fit to
//! show a person: what a terminal would obey instead of print is shown escaped, and a
//! table's cell is cut where it stops being readable. Every human rendering — tables,
//! Markdown, the HTML report, lines on stderr — goes through here; JSON and CSV keep
//! the text exactly as stored.
//!
//! The escapes, one convention everywhere: `\e` for ESC (what starts a colour or a
//! cursor move), `\t`, `\r` and `\n` (where a line must stay one), `\x07` for the other
//! C0 controls and DEL, `\u{9b}` for the C1 controls (U+0080–U+009F, which a terminal may
//! take as ESC sequences too) and for the code points that reorder or break text on
//! screen: the bidirectional overrides, embeddings, isolates and marks ("Trojan
//! Source"), and the line and paragraph separators. A backslash stays itself: the
//! escapes are for reading, not for reading back (JSON and CSV are).

use std::borrow::Cow;

/// The most characters a cell of a table, Markdown or the HTML report shows, its
/// escapes counted; longer text ends in `…` there. Beyond every fact a host records in
/// practice (a kernel command line, an overlay's mount options) and every note meant
/// to be read on a screen, and small enough that a cell holding megabytes (an imported
/// label) costs no more to lay out than one holding this much.
pub const CELL_CHARS: usize = 1000;

/// Where text goes, which decides what more than the controls is escaped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Place {
    /// A terminal table's cell, a line on stderr, prose, HTML: a newline is a newline.
    Lines,
    /// A Markdown table's cell, which must stay on its line and in its column: `\n`
    /// and `\|` as well.
    MarkdownCell,
}

/// `text` whole, every control escaped; newlines kept.
pub fn text(text: &str) -> Cow<'_, str> {
    shown(text, usize::MAX, Place::Lines)
}

/// `text` as a table cell shows it: escaped, at most [`CELL_CHARS`] characters.
pub fn cell(text: &str) -> Cow<'_, str> {
    shown(text, CELL_CHARS, Place::Lines)
}

/// `text` as a Markdown table's cell shows it: escaped, at most [`CELL_CHARS`]
/// characters, on one line, with every `|` escaped so the cell stays in its column.
pub fn markdown_cell(text: &str) -> Cow<'_, str> {
    shown(text, CELL_CHARS, Place::MarkdownCell)
}

/// Whether a terminal would act on `c` rather than print it, or print it somewhere
/// else than where it stands.
pub fn is_unsafe(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            // marks and embeddings, overrides, isolates; line and paragraph separators
            '\u{061c}'
                | '\u{200e}'
                | '\u{200f}'
                | '\u{202a}'..='\u{202e}'
                | '\u{2066}'..='\u{2069}'
                | '\u{2028}'
                | '\u{2029}'
        )
}

/// `c`'s escape in `place`, or `None` when it shows as itself.
fn escape(c: char, place: Place) -> Option<Cow<'static, str>> {
    let markdown = place == Place::MarkdownCell;
    Some(match c {
        '\n' if !markdown => return None,
        '|' if markdown => "\\|".into(),
        '\x1b' => "\\e".into(),
        '\t' => "\\t".into(),
        '\r' => "\\r".into(),
        '\n' => "\\n".into(),
        c if !is_unsafe(c) => return None,
        c if u32::from(c) < 0x80 => format!("\\x{:02x}", u32::from(c)).into(),
        c => format!("\\u{{{:x}}}", u32::from(c)).into(),
    })
}

/// `text` escaped for `place` and cut to `limit` characters (the last one `…` when
/// cut). The work is bounded by the characters kept, not by `text`'s length: a cut
/// cell of ten megabytes costs what one of `limit` characters costs.
fn shown(text: &str, limit: usize, place: Place) -> Cow<'_, str> {
    let plain = |c: char| escape(c, place).is_none();
    // the common case, borrowed: nothing to escape, and short enough (a byte is at
    // most a character)
    if text.len() <= limit && text.chars().all(plain) {
        return Cow::Borrowed(text);
    }
    let mut out = String::new();
    let mut count = 0;
    // where `out` ends when the ellipsis still fits after it
    let mut room_for_ellipsis = 0;
    for c in text.chars() {
        let added = match escape(c, place) {
            Some(escaped) => {
                out.push_str(&escaped);
                escaped.chars().count()
            }
            None => {
                out.push(c);
                1
            }
        };
        count += added;
        if count > limit {
            out.truncate(room_for_ellipsis);
            out.push('…');
            return Cow::Owned(out);
        }
        if count < limit {
            room_for_ellipsis = out.len();
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_escaped_in_one_convention() {
        assert_eq!(text("\x1b[31mRED\x1b[0m"), "\\e[31mRED\\e[0m");
        assert_eq!(
            text("bell\x07 del\x7f nul\0"),
            "bell\\x07 del\\x7f nul\\x00"
        );
        assert_eq!(text("a\tb\rc\nd"), "a\\tb\\rc\nd");
        assert_eq!(text("csi\u{9b}31m"), "csi\\u{9b}31m");
        assert_eq!(text("abc\u{202e}fed"), "abc\\u{202e}fed");
        assert_eq!(
            text("\u{2066}x\u{2069}\u{2028}"),
            "\\u{2066}x\\u{2069}\\u{2028}"
        );
        // what a terminal prints as itself stays itself, borrowed
        for fine in [
            "plain",
            "日本語",
            "e\u{301}te\u{301}",
            "a\\e[31m",
            "🙂‍↕️",
            "c|d",
        ] {
            assert!(matches!(text(fine), Cow::Borrowed(_)), "{fine}");
        }
    }

    #[test]
    fn markdown_cells_stay_on_their_line_and_in_their_column() {
        assert_eq!(markdown_cell("a|b\nc\x1b"), "a\\|b\\nc\\e");
        assert_eq!(cell("a|b\nc"), "a|b\nc");
    }

    #[test]
    fn long_cells_are_cut_with_an_ellipsis_within_the_limit() {
        let long = "x".repeat(10 * CELL_CHARS);
        let shown = cell(&long);
        assert_eq!(shown.chars().count(), CELL_CHARS);
        assert!(shown.ends_with("x…"), "{shown}");
        // exactly the limit is whole; one more is cut
        let full = "y".repeat(CELL_CHARS);
        assert_eq!(cell(&full), full);
        let over = "y".repeat(CELL_CHARS + 1);
        assert_eq!(cell(&over).chars().count(), CELL_CHARS);
        assert!(cell(&over).ends_with('…'));
        // an escape is never cut in half: the ellipsis replaces it whole
        for at in CELL_CHARS - 8..CELL_CHARS + 2 {
            let text = "z".repeat(at) + "\u{202e}" + &"z".repeat(10);
            let shown = cell(&text);
            assert!(shown.chars().count() <= CELL_CHARS, "{at}");
            let before = shown.trim_end_matches('…').trim_end_matches('z');
            assert!(
                before.is_empty() || before.ends_with("\\u{202e}"),
                "{at}: {shown}"
            );
        }
        // wide characters count as characters; multi-byte text is cut on a boundary
        let wide = "日".repeat(2 * CELL_CHARS);
        assert_eq!(cell(&wide).chars().count(), CELL_CHARS);
        // whole text is never cut
        assert_eq!(text(&long).len(), long.len());
    }

    #[test]
    fn a_text_at_the_limit_with_an_escape_last_is_whole() {
        let text = "a".repeat(CELL_CHARS - 2) + "\x1b";
        assert_eq!(cell(&text), "a".repeat(CELL_CHARS - 2) + "\\e");
        let text = "a".repeat(CELL_CHARS - 1) + "\x1b";
        let shown = cell(&text);
        assert_eq!(shown, "a".repeat(CELL_CHARS - 1) + "…");
    }
}
