//! Text wrapped between its words, one rule for prose, status lines and table cells: a
//! line breaks where a space is, or after a comma that a word follows (mount options,
//! `rw,relatime,data=journal`, are a list), never inside a word (a hyphenated name such
//! as `6.1.0-18-amd64` or `before-upgrade` is one word, `1,024` is one number), and a
//! word longer than the line stays whole on a line of its own rather than being cut.

use textwrap::core::Word;
use textwrap::{Options, WordSeparator, WordSplitter};

/// The wrapping options every caller shares, for lines of `width` terminal columns.
fn options(width: usize) -> Options<'static> {
    Options::new(width.max(1))
        .break_words(false)
        .word_separator(WordSeparator::Custom(words))
        .word_splitter(WordSplitter::NoHyphenation)
}

/// `line`'s words, each with the spaces after it: a line may break after any of them.
fn words(line: &str) -> Box<dyn Iterator<Item = Word<'_>> + '_> {
    Box::new(pieces(line).into_iter().map(Word::from))
}

/// `line` cut where it may break: after a stretch of spaces, and after a comma
/// followed by a letter.
fn pieces(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = line.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        let next = chars.peek().map(|&(_, n)| n);
        let ends = match c {
            ' ' => next.is_some_and(|n| n != ' '),
            ',' => next.is_some_and(char::is_alphabetic),
            _ => false,
        };
        if ends {
            out.push(&line[start..at + c.len_utf8()]);
            start = at + c.len_utf8();
        }
    }
    if start < line.len() {
        out.push(&line[start..]);
    }
    out
}

/// `text`'s lines, each wrapped to `width` columns (a line that fits is kept as it is,
/// spaces and all).
pub fn lines(text: &str, width: usize) -> Vec<String> {
    text.split('\n')
        .flat_map(|line| match textwrap::core::display_width(line) <= width {
            true => vec![line.to_string()],
            false => textwrap::wrap(line, options(width))
                .into_iter()
                .map(|l| l.into_owned())
                .collect(),
        })
        .collect()
}

/// `text` wrapped to `width` columns, its lines joined by newlines.
pub fn fill(text: &str, width: usize) -> String {
    lines(text, width).join("\n")
}

/// A message after a `prefix` (a status verb, `warning:`) on a terminal `width`
/// columns wide: wrapped to the columns left after the prefix, each further line
/// indented under the message's start.
pub fn hanging(prefix: &str, prefix_width: usize, message: &str, width: usize) -> String {
    let indent = " ".repeat(prefix_width);
    let lines = lines(message, width.saturating_sub(prefix_width).max(20));
    let mut out = String::from(prefix);
    for (at, line) in lines.iter().enumerate() {
        if at > 0 {
            out.push('\n');
            out.push_str(&indent);
        }
        out.push_str(line);
    }
    out
}

/// The widest word of `text` (see [`pieces`]), in terminal columns: no wrapping goes
/// below it.
pub fn widest_word(text: &str) -> usize {
    text.split('\n')
        .flat_map(pieces)
        .map(|piece| textwrap::core::display_width(piece.trim_end_matches(' ')))
        .max()
        .unwrap_or(0)
}

/// The widest word of `text` in characters, as a table measures its columns.
pub fn widest_word_chars(text: &str) -> usize {
    text.split('\n')
        .flat_map(pieces)
        .map(|piece| piece.trim_end_matches(' ').chars().count())
        .max()
        .unwrap_or(0)
}

/// The widest line of `text`, in terminal columns.
pub fn widest_line(text: &str) -> usize {
    text.split('\n')
        .map(textwrap::core::display_width)
        .max()
        .unwrap_or(0)
}

/// The fewest columns in which `text` wraps into at most `most` lines (without cutting
/// a word); its widest line when even that takes more (the text has more lines of its
/// own). Wrapping at the first fit never takes more lines in a wider column, so the
/// search may halve.
pub fn narrowest(text: &str, most: usize) -> usize {
    let (mut fits, mut over) = (widest_line(text), widest_word(text).max(1) - 1);
    if lines(text, fits).len() > most {
        return fits;
    }
    while fits - over > 1 {
        let mid = over + (fits - over) / 2;
        match lines(text, mid).len() <= most {
            true => fits = mid,
            false => over = mid,
        }
    }
    fits
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_break_at_spaces_only() {
        assert_eq!(
            lines("host.kernel 6.1.0-18-amd64 before-upgrade", 12),
            ["host.kernel", "6.1.0-18-amd64", "before-upgrade"]
        );
        assert_eq!(lines("a b\nc", 10), ["a b", "c"]);
        // a list of mount options breaks after its commas; a number does not
        assert_eq!(
            lines("rw,relatime,nodelalloc,data=journal", 24),
            ["rw,relatime,nodelalloc,", "data=journal"]
        );
        assert_eq!(lines("1,024 runs", 3), ["1,024", "runs"]);
        assert_eq!(widest_word("rw,relatime,nodelalloc,data=journal"), 12);
        assert_eq!(lines("  kept as it is  ", 20), ["  kept as it is  "]);
        assert_eq!(fill("one two three", 7), "one two\nthree");
    }

    #[test]
    fn a_hanging_message_is_indented_under_its_start() {
        let text = hanging(
            "warning: ",
            9,
            "the machine is busy: writeback in progress",
            30,
        );
        assert_eq!(
            text,
            "warning: the machine is busy:\n         writeback in progress"
        );
        for line in text.lines() {
            assert!(line.chars().count() <= 30, "{line}");
        }
    }

    #[test]
    fn the_narrowest_width_for_so_many_lines() {
        assert_eq!(narrowest("[-27.5, -14.8]", 2), 7);
        assert_eq!(narrowest("[-27.5, -14.8]", 1), 14);
        assert_eq!(narrowest("inconclusive", 2), 12);
        assert_eq!(narrowest("a b c d e f", 2), 5);
        assert_eq!(narrowest("a b c d e f", 3), 3);
        // lines of its own that already number more than allowed
        assert_eq!(narrowest("ab\ncd\nef", 2), 2);
        assert_eq!(narrowest("", 2), 0);
        for (text, most) in [("history: 20 runs", 2), ("busy in 2 of 3 runs", 2)] {
            let width = narrowest(text, most);
            assert!(lines(text, width).len() <= most);
            assert!(width == widest_word(text) || lines(text, width - 1).len() > most);
        }
    }
}
