//! A JSON array written an element at a time, with the bytes [`super::json`] gives
//! the whole array: a listing of any length is streamed out in pages, never held.
//!
//! serde_json's pretty printer puts each element of an array on its own lines, indented
//! one level (two spaces) deeper than the array, separated by `,` and a newline, with
//! the closing bracket on a line of its own; an empty array is `[]`. An element
//! printed on its own by the same printer started as deep as its place ([`Indented`])
//! reads the same, since a JSON string never holds a raw newline.

use std::io;

use serde::Serialize;
use serde_json::ser::Formatter;

/// The pieces of one array, at `depth` levels of nesting (0 for a whole document).
pub struct JsonArray {
    depth: usize,
    elements: usize,
}

impl JsonArray {
    pub fn new(depth: usize) -> JsonArray {
        JsonArray { depth, elements: 0 }
    }

    /// The text of the next element, with the opening bracket or the comma before it.
    pub fn element<T: Serialize>(&mut self, value: &T) -> String {
        let mut text = Vec::new();
        self.write_element(value, &mut text)
            .expect("model types always serialize");
        String::from_utf8(text).expect("JSON is UTF-8")
    }

    /// [`JsonArray::element`], written to `out` as it is printed.
    pub fn write_element<T: Serialize>(
        &mut self,
        value: &T,
        out: &mut impl io::Write,
    ) -> io::Result<()> {
        out.write_all(if self.elements == 0 { b"[\n" } else { b",\n" })?;
        self.elements += 1;
        write_at(self.depth + 1, value, out)
    }

    /// The text that closes the array (the whole of an empty one).
    pub fn end(self) -> String {
        match self.elements {
            0 => "[]".into(),
            _ => format!("\n{}]", "  ".repeat(self.depth)),
        }
    }
}

/// Writes `value` as serde_json's pretty printer writes it `depth` levels deep in a
/// document: its first line indented (two spaces a level), every line after it as deep
/// as its place. The errors are `out`'s.
pub fn write_at<T: Serialize>(depth: usize, value: &T, out: &mut impl io::Write) -> io::Result<()> {
    indent(out, depth)?;
    let mut printer = serde_json::Serializer::with_formatter(out, Indented::at(depth));
    value.serialize(&mut printer).map_err(io::Error::from)
}

/// serde_json's `PrettyFormatter` (two spaces a level), started `depth` levels deep:
/// the bytes serde_json writes, but for the level they start from, and written in fewer
/// pieces. An export writes some twenty keys a result, and each key was six writes
/// (the comma, the newline, the indent, both quotes and the `: `), each checking the
/// room left: a line's start, indent and a key's opening quote are now one write of
/// [`LINES`], and the key's closing quote with the `: ` another.
struct Indented {
    current_indent: usize,
    has_value: bool,
    /// Whether an object key is being written, its opening quote already: serde_json
    /// writes every key as a string (`begin_string`, its text, `end_string`) between
    /// `begin_object_key` and `begin_object_value`, and any other key is an error.
    in_key: bool,
}

impl Indented {
    fn at(depth: usize) -> Indented {
        Indented {
            current_indent: depth,
            has_value: false,
            in_key: false,
        }
    }
}

/// The deepest level whose line start is written in one piece; deeper lines (no
/// document of ours has them: an export's deepest is 5) are written in parts.
const DEEPEST: usize = 15;

/// For each level up to [`DEEPEST`]: a comma, a newline, that level's indent and a
/// key's opening quote; a line starts with a slice of its level's.
static LINES: [[u8; 3 + 2 * DEEPEST]; DEEPEST + 1] = lines();

const fn lines() -> [[u8; 3 + 2 * DEEPEST]; DEEPEST + 1] {
    let mut all = [[b' '; 3 + 2 * DEEPEST]; DEEPEST + 1];
    let mut depth = 0;
    while depth <= DEEPEST {
        all[depth][0] = b',';
        all[depth][1] = b'\n';
        all[depth][2 + 2 * depth] = b'"';
        depth += 1;
    }
    all
}

fn indent<W: ?Sized + io::Write>(out: &mut W, depth: usize) -> io::Result<()> {
    const SPACES: &[u8] = &[b' '; 64];
    let mut left = depth * 2;
    while left > 0 {
        let now = left.min(SPACES.len());
        out.write_all(&SPACES[..now])?;
        left -= now;
    }
    Ok(())
}

impl Indented {
    /// An array or object begun with `bracket`, one level deeper.
    fn open<W: ?Sized + io::Write>(&mut self, out: &mut W, bracket: &[u8]) -> io::Result<()> {
        self.current_indent += 1;
        self.has_value = false;
        out.write_all(bracket)
    }

    /// An array or object ended with `bracket`, on a line of its own when it held any.
    fn close<W: ?Sized + io::Write>(&mut self, out: &mut W, bracket: &[u8]) -> io::Result<()> {
        self.current_indent -= 1;
        if self.has_value {
            self.line(out, true, false)?;
        }
        out.write_all(bracket)
    }

    /// A new line at the current level, after a comma unless `first`, and with a key's
    /// opening quote when `key`.
    fn line<W: ?Sized + io::Write>(&self, out: &mut W, first: bool, key: bool) -> io::Result<()> {
        let depth = self.current_indent;
        if depth <= DEEPEST {
            let line = &LINES[depth][usize::from(first)..2 + 2 * depth + usize::from(key)];
            return out.write_all(line);
        }
        out.write_all(if first { b"\n" } else { b",\n" })?;
        indent(out, depth)?;
        match key {
            true => out.write_all(b"\""),
            false => Ok(()),
        }
    }
}

impl Formatter for Indented {
    fn begin_array<W: ?Sized + io::Write>(&mut self, out: &mut W) -> io::Result<()> {
        self.open(out, b"[")
    }

    fn end_array<W: ?Sized + io::Write>(&mut self, out: &mut W) -> io::Result<()> {
        self.close(out, b"]")
    }

    fn begin_array_value<W: ?Sized + io::Write>(
        &mut self,
        out: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.line(out, first, false)
    }

    fn end_array_value<W: ?Sized + io::Write>(&mut self, _out: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    fn begin_object<W: ?Sized + io::Write>(&mut self, out: &mut W) -> io::Result<()> {
        self.open(out, b"{")
    }

    fn end_object<W: ?Sized + io::Write>(&mut self, out: &mut W) -> io::Result<()> {
        self.close(out, b"}")
    }

    fn begin_object_key<W: ?Sized + io::Write>(
        &mut self,
        out: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.in_key = true;
        self.line(out, first, true)
    }

    /// A string's opening quote, but a key's, written with its line.
    #[inline]
    fn begin_string<W: ?Sized + io::Write>(&mut self, out: &mut W) -> io::Result<()> {
        match self.in_key {
            true => Ok(()),
            false => out.write_all(b"\""),
        }
    }

    /// A string's closing quote; a key's with the `: ` before its value.
    #[inline]
    fn end_string<W: ?Sized + io::Write>(&mut self, out: &mut W) -> io::Result<()> {
        match std::mem::take(&mut self.in_key) {
            true => out.write_all(b"\": "),
            false => out.write_all(b"\""),
        }
    }

    /// Nothing: the key's `end_string` wrote the `: `.
    fn begin_object_value<W: ?Sized + io::Write>(&mut self, _out: &mut W) -> io::Result<()> {
        Ok(())
    }

    fn end_object_value<W: ?Sized + io::Write>(&mut self, _out: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The array written piece by piece, at the top or inside an object.
    fn pieces(values: &[serde_json::Value], depth: usize) -> String {
        let mut array = JsonArray::new(depth);
        let mut text: String = values.iter().map(|v| array.element(v)).collect();
        text.push_str(&array.end());
        text
    }

    #[test]
    fn pieces_are_the_bytes_of_the_whole() {
        let values = [
            serde_json::json!({"a": [1, 2, {"b": "x\ny"}], "c": {}, "d": []}),
            serde_json::json!("plain"),
            serde_json::json!([[], [1]]),
        ];
        for n in 0..=values.len() {
            let part = &values[..n];
            assert_eq!(
                pieces(part, 0),
                serde_json::to_string_pretty(&part).unwrap(),
                "{n} elements"
            );
            let whole =
                serde_json::to_string_pretty(&serde_json::json!({"k": 1, "runs": part})).unwrap();
            assert_eq!(
                format!("{{\n  \"k\": 1,\n  \"runs\": {}\n}}", pieces(part, 1)),
                whole,
                "{n} elements, nested"
            );
        }
    }

    /// Written at `depth`, as `write_at` writes it, without the first line's indent.
    fn at(depth: usize, value: &impl Serialize) -> String {
        let mut text = Vec::new();
        write_at(depth, value, &mut text).unwrap();
        String::from_utf8(text).unwrap()[2 * depth..].to_string()
    }

    #[test]
    fn keys_of_any_kind_and_lines_of_any_depth_read_as_the_pretty_printer_writes_them() {
        // keys that are numbers, or escaped; an element of an array after a key's value
        let numbered: std::collections::BTreeMap<i64, Vec<&str>> =
            [(-1, vec!["a\"b"]), (7, vec![])].into_iter().collect();
        let value = serde_json::json!({"k\"\n\u{1}é": {"": [1, {"x": null}]}, "n": numbered});
        assert_eq!(at(0, &value), serde_json::to_string_pretty(&value).unwrap());
        assert_eq!(
            at(0, &numbered),
            serde_json::to_string_pretty(&numbered).unwrap()
        );
        // past the levels whose lines are written in one piece, and back
        let mut deep = serde_json::json!({"last": [true]});
        for level in 0..2 * DEEPEST {
            deep = serde_json::json!({ "level": level, "inner": deep, "after": [level] });
        }
        assert_eq!(at(0, &deep), serde_json::to_string_pretty(&deep).unwrap());
    }

    #[test]
    fn a_value_written_deep_reads_as_the_pretty_printer_nests_it() {
        let value = serde_json::json!({"a": [1.5, {"b": "x\ny", "c": []}], "d": {}, "e": null});
        let whole = serde_json::to_string_pretty(&serde_json::json!([[value]])).unwrap();
        let mut deep = b"[\n  [\n".to_vec();
        write_at(2, &value, &mut deep).unwrap();
        deep.extend_from_slice(b"\n  ]\n]");
        assert_eq!(String::from_utf8(deep).unwrap(), whole);
    }
}
