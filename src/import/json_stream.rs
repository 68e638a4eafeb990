//! Our JSON read as it comes: the export document, an array of runs or one run, each
//! run handed on as soon as its object is parsed, so an export of any size is read in
//! the memory of one run. serde_json parses from the reader; the visitors here take
//! the export's `runs` array (or a bare array) element by element instead of
//! collecting it, and keep the header's other fields to check once the document ends.

use std::io::Read;

use chrono::{DateTime, Utc};
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};

use serde_json::error::Category;

use super::ParseError;
use super::own::{fill_combinations, sane};
use crate::export::FORMAT;
use crate::model::Run;

/// Reads runs from our JSON on `reader`, handing each to `emit` as soon as it is
/// parsed; `emit` returns false to stop reading (its consumer is gone). Fails on the
/// first run that cannot be read, or on a document that is not ours, after handing
/// on the runs before it: the caller decides what becomes of those.
pub fn read_json(reader: impl Read, emit: &mut dyn FnMut(Run) -> bool) -> Result<(), ParseError> {
    let mut de = serde_json::Deserializer::from_reader(reader);
    let mut stream = Stream {
        emit,
        runs: 0,
        stopped: false,
        failure: None,
    };
    let read = de::Deserializer::deserialize_any(&mut de, &mut stream).and_then(|()| de.end());
    match (read, stream.failure) {
        _ if stream.stopped => Ok(()),
        // what a visitor refused, said in its own words
        (Err(_), Some(failure)) => Err(failure),
        (Err(e), None) => Err(ParseError {
            line: Some(e.line()),
            message: match e.classify() {
                Category::Data => format!("not an iozone export, run or array of runs: {e}"),
                Category::Io => format!("cannot read: {e}"),
                Category::Syntax | Category::Eof => format!("not valid JSON: {e}"),
            },
        }),
        (Ok(()), _) if stream.runs == 0 => Err(error("no runs in the file")),
        (Ok(()), _) => Ok(()),
    }
}

fn error(message: impl Into<String>) -> ParseError {
    ParseError {
        line: None,
        message: message.into(),
    }
}

/// Where the runs go, and how reading them went.
struct Stream<'a> {
    emit: &'a mut dyn FnMut(Run) -> bool,
    /// Runs handed on so far.
    runs: usize,
    /// The consumer said to stop.
    stopped: bool,
    /// Why the document or a run is not ours, when a visitor refused it.
    failure: Option<ParseError>,
}

impl Stream<'_> {
    /// The `index`-th run (1-based) from its JSON, handed on.
    fn run<E: de::Error>(&mut self, mut value: serde_json::Value) -> Result<(), E> {
        let index = self.runs + 1;
        fill_combinations(&mut value);
        let uuid = match value.get("uuid").and_then(|u| u.as_str()) {
            Some(uuid) => format!(" ({uuid})"),
            None => String::new(),
        };
        let run: Run = serde_json::from_value(value)
            .map_err(|e| self.refuse(format!("run {index}{uuid}: not an iozone run: {e}")))?;
        sane(&run).map_err(|e| self.refuse(e.message))?;
        self.runs += 1;
        if !(self.emit)(run) {
            self.stopped = true;
            return Err(E::custom("stopped"));
        }
        Ok(())
    }

    /// Keeps why the input is refused; serde only learns that it is.
    fn refuse<E: de::Error>(&mut self, message: String) -> E {
        self.failure = Some(error(message.clone()));
        E::custom(message)
    }

    /// Every element of an array, as a run.
    fn each_run<'de, A: SeqAccess<'de>>(&mut self, mut seq: A) -> Result<(), A::Error> {
        while let Some(value) = seq.next_element::<serde_json::Value>()? {
            self.run(value)?;
        }
        Ok(())
    }
}

/// The whole document: an export, an array of runs, or one run.
impl<'de> Visitor<'de> for &mut Stream<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an iozone export, an array of runs or a run")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
        self.each_run(seq)
    }

    /// An export streams its `runs`; its other fields, the header, are kept and
    /// checked at the end. An object without `runs` is one run, read whole.
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut fields = serde_json::Map::new();
        let mut streamed = false;
        while let Some(key) = map.next_key::<String>()? {
            if key == "runs" && !streamed {
                if let Some(format) = fields.get("format").filter(|f| f.as_str() != Some(FORMAT)) {
                    return Err(self.refuse(format!("not an iozone export: format {format}")));
                }
                map.next_value_seed(RunsArray(&mut *self))?;
                streamed = true;
            } else {
                let value = map.next_value::<serde_json::Value>()?;
                fields.insert(key, value);
            }
        }
        let object = serde_json::Value::Object(fields);
        let is_export = object.get("format").and_then(|f| f.as_str()) == Some(FORMAT);
        if streamed || is_export {
            return match serde_json::from_value::<Header>(object) {
                Ok(header) if header.format != FORMAT => Err(self.refuse(format!(
                    "not an iozone export: format \"{}\"",
                    header.format
                ))),
                Ok(_) if !streamed => Err(self.refuse("not an iozone export: no runs".into())),
                Ok(_) => Ok(()),
                Err(e) => Err(self.refuse(format!("not an iozone export: {e}"))),
            };
        }
        self.run(object)
    }
}

/// The export's fields beside its runs, as [`crate::export::Export`] has them: checked,
/// not kept.
#[derive(serde::Deserialize)]
#[allow(dead_code)]
struct Header {
    format: String,
    version: u32,
    exported_at: DateTime<Utc>,
    tool_version: String,
}

/// The value of an export's `runs`: an array read element by element.
struct RunsArray<'s, 'a>(&'s mut Stream<'a>);

impl<'de> DeserializeSeed<'de> for RunsArray<'_, '_> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for RunsArray<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an array of runs")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
        self.0.each_run(seq)
    }
}
