//! Our JSON read as it comes: the export document, an array of runs or one run, each
//! run handed on as soon as its object is parsed, so an export of any size is read in
//! the memory of one run. serde_json parses from the reader; the visitors here take
//! the export's `runs` array (or a bare array) element by element instead of
//! collecting it, keep the header's other fields to check once the document ends, and
//! read a run's measurements straight into their model values (a run of millions of
//! figures as a generic JSON tree would take twenty times their size).

use std::io::Read;

use chrono::{DateTime, Utc};
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::error::Category;

use super::ParseError;
use super::own::sane;
use crate::export::FORMAT;
use crate::model::{CacheMode, EngineKind, Latency, Measurement, Run, TestKind};
use crate::units::ByteSize;

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
        reading: None,
        failure: None,
    };
    let read = de::Deserializer::deserialize_any(&mut de, Fields::document(&mut stream))
        .and_then(|()| de.end());
    match (read, stream.failure) {
        _ if stream.stopped => Ok(()),
        // what a visitor refused, said in its own words
        (Err(_), Some(failure)) => Err(failure),
        (Err(e), None) => Err(ParseError {
            line: Some(e.line()),
            message: match (e.classify(), stream.reading) {
                (Category::Data, Some(run)) => format!("{run}: not an iozone run: {e}"),
                (Category::Data, None) => {
                    format!("not an iozone export, run or array of runs: {e}")
                }
                (Category::Io, _) => format!("cannot read: {e}"),
                (Category::Syntax | Category::Eof, _) => format!("not valid JSON: {e}"),
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
    /// The run being read, as messages name it (`run 4 (UUID)`).
    reading: Option<String>,
    /// Why the document or a run is not ours, when a visitor refused it.
    failure: Option<ParseError>,
}

impl Stream<'_> {
    /// Keeps why the input is refused; serde only learns that it is.
    fn refuse<E: de::Error>(&mut self, message: String) -> E {
        self.failure = Some(error(message.clone()));
        E::custom(message)
    }

    /// Every element of an array, as a run.
    fn each_run<'de, A: SeqAccess<'de>>(&mut self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(Fields::run(self))?.is_some() {}
        Ok(())
    }

    /// Hands on a run read whole.
    fn hand_on<E: de::Error>(&mut self, run: Run) -> Result<(), E> {
        sane(&run).map_err(|e| self.refuse(e.message))?;
        self.runs += 1;
        self.reading = None;
        if !(self.emit)(run) {
            self.stopped = true;
            return Err(E::custom("stopped"));
        }
        Ok(())
    }
}

/// An object's fields as they come: a run's (its measurements read as such, the rest
/// kept as JSON), or at the top of the document an export's, whose `runs` are streamed.
struct Fields<'s, 'a> {
    stream: &'s mut Stream<'a>,
    top: bool,
}

impl<'s, 'a> Fields<'s, 'a> {
    fn document(stream: &'s mut Stream<'a>) -> Self {
        Fields { stream, top: true }
    }

    fn run(stream: &'s mut Stream<'a>) -> Self {
        Fields { stream, top: false }
    }
}

impl<'de> DeserializeSeed<'de> for Fields<'_, '_> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Fields<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self.top {
            true => f.write_str("an iozone export, an array of runs or a run"),
            false => f.write_str("a run"),
        }
    }

    /// A bare array of runs, at the top.
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
        match self.top {
            true => self.stream.each_run(seq),
            false => Err(de::Error::invalid_type(de::Unexpected::Seq, &self)),
        }
    }

    /// An export streams its `runs`; its other fields, the header, are kept and
    /// checked at the end. An object without `runs` is one run.
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let stream = self.stream;
        let name = format!("run {}", stream.runs + 1);
        stream.reading = Some(name.clone());
        let mut fields = serde_json::Map::new();
        let (mut results, mut warmup) = (None, None);
        let mut streamed = false;
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "runs" if self.top && !streamed => {
                    if let Some(format) =
                        fields.get("format").filter(|f| f.as_str() != Some(FORMAT))
                    {
                        return Err(stream.refuse(format!("not an iozone export: format {format}")));
                    }
                    stream.reading = None;
                    map.next_value_seed(RunsArray(&mut *stream))?;
                    streamed = true;
                }
                "results" => results = Some(map.next_value::<Vec<Stated>>()?),
                "warmup" => warmup = Some(map.next_value::<Vec<Stated>>()?),
                _ => {
                    let value = map.next_value::<serde_json::Value>()?;
                    if let (false, "uuid", Some(uuid)) = (streamed, key.as_str(), value.as_str()) {
                        stream.reading = Some(format!("{name} ({uuid})"));
                    }
                    fields.insert(key, value);
                }
            }
        }
        let is_export = fields.get("format").and_then(|f| f.as_str()) == Some(FORMAT);
        if streamed || (self.top && is_export) {
            return check_header(stream, fields, streamed);
        }
        let run = stream.reading.clone().unwrap_or(name);
        // the measurements, read already, go in once the rest is a run
        for (key, read) in [("results", &results), ("warmup", &warmup)] {
            if read.is_some() {
                fields.insert(key.into(), serde_json::Value::Array(Vec::new()));
            }
        }
        let mut whole: Run = serde_json::from_value(serde_json::Value::Object(fields))
            .map_err(|e| stream.refuse(format!("{run}: not an iozone run: {e}")))?;
        let (engine, cache) = (whole.params.engine(), whole.params.cache());
        let measured = |list: Option<Vec<Stated>>| -> Vec<Measurement> {
            let list = list.unwrap_or_default();
            list.into_iter()
                .map(|m| m.measurement(engine, cache))
                .collect()
        };
        whole.results = measured(results);
        whole.warmup = measured(warmup);
        stream.hand_on(whole)
    }
}

/// Checks the export's fields beside its runs.
fn check_header<E: de::Error>(
    stream: &mut Stream<'_>,
    fields: serde_json::Map<String, serde_json::Value>,
    streamed: bool,
) -> Result<(), E> {
    match serde_json::from_value::<Header>(serde_json::Value::Object(fields)) {
        Ok(header) if header.format != FORMAT => Err(stream.refuse(format!(
            "not an iozone export: format \"{}\"",
            header.format
        ))),
        Ok(_) if !streamed => Err(stream.refuse("not an iozone export: no runs".into())),
        Ok(_) => Ok(()),
        Err(e) => Err(stream.refuse(format!("not an iozone export: {e}"))),
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

/// A measurement as our JSON states it: JSON written before a run could measure
/// several engines or cache modes names neither, and the run's parameters do.
#[derive(serde::Deserialize)]
struct Stated {
    test: TestKind,
    file_size: ByteSize,
    record_size: ByteSize,
    repetition: u32,
    bytes: u64,
    elapsed_ns: u64,
    throughput: f64,
    latency_ns: Option<Box<Latency>>,
    engine: Option<EngineKind>,
    cache: Option<CacheMode>,
    #[serde(default)]
    ops: Option<u64>,
}

impl Stated {
    /// The measurement, through the run's engine and cache mode unless it names its own.
    fn measurement(self, engine: EngineKind, cache: CacheMode) -> Measurement {
        Measurement {
            test: self.test,
            file_size: self.file_size,
            record_size: self.record_size,
            repetition: self.repetition,
            bytes: self.bytes,
            elapsed_ns: self.elapsed_ns,
            throughput: self.throughput,
            latency_ns: self.latency_ns,
            engine: self.engine.unwrap_or(engine),
            cache: self.cache.unwrap_or(cache),
            ops: self.ops,
        }
    }
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
