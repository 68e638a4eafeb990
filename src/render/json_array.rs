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
/// its methods as serde_json writes them, but for the level they start from.
struct Indented {
    current_indent: usize,
    has_value: bool,
}

impl Indented {
    fn at(depth: usize) -> Indented {
        Indented {
            current_indent: depth,
            has_value: false,
        }
    }
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
            out.write_all(b"\n")?;
            indent(out, self.current_indent)?;
        }
        out.write_all(bracket)
    }

    /// An element or key begun on a line of its own, after a comma but for the first.
    fn next_line<W: ?Sized + io::Write>(&self, out: &mut W, first: bool) -> io::Result<()> {
        out.write_all(if first { b"\n" } else { b",\n" })?;
        indent(out, self.current_indent)
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
        self.next_line(out, first)
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
        self.next_line(out, first)
    }

    fn begin_object_value<W: ?Sized + io::Write>(&mut self, out: &mut W) -> io::Result<()> {
        out.write_all(b": ")
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
