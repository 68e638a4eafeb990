//! A JSON array written an element at a time, with the bytes [`super::json`] gives
//! the whole array: a listing of any length is streamed out in pages, never held.
//!
//! serde_json's pretty printer puts each element of an array on its own lines, indented
//! one level (two spaces) deeper than the array, separated by `,` and a newline, with
//! the closing bracket on a line of its own; an empty array is `[]`. An element
//! printed on its own and indented as deep as its place reads the same, since a JSON
//! string never holds a raw newline.

use serde::Serialize;

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
        let pretty = serde_json::to_string_pretty(value).expect("model types always serialize");
        let indent = "  ".repeat(self.depth + 1);
        let mut text = String::with_capacity(pretty.len() * 5 / 4 + 8);
        text.push_str(if self.elements == 0 { "[\n" } else { ",\n" });
        for (i, line) in pretty.lines().enumerate() {
            if i > 0 {
                text.push('\n');
            }
            text.push_str(&indent);
            text.push_str(line);
        }
        self.elements += 1;
        text
    }

    /// The text that closes the array (the whole of an empty one).
    pub fn end(self) -> String {
        match self.elements {
            0 => "[]".into(),
            _ => format!("\n{}]", "  ".repeat(self.depth)),
        }
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
}
