//! A run's measurements as serde_json's pretty printer writes them, without its work on
//! their keys. serde_json scans every key for characters to escape and writes it in
//! four pieces; an export writes fourteen keys for each of twenty million results, and
//! that was a third of what printing them cost. These keys are known, so each key's
//! line start (comma, newline, indent, the quoted key and `: `) is made once for the
//! depth the list is printed at; the values still go through serde_json. A test holds
//! the bytes to serde_json's.

use std::io;

use serde::Serialize;

use crate::model::{Latency, Measurement};

/// The text between a list of measurements' values, for one depth.
pub struct MeasurementLines {
    /// Before the first element: `[`, a newline and its indent.
    open: Vec<u8>,
    /// Between two elements: `,`, a newline and the indent.
    next: Vec<u8>,
    /// After the last: a newline and the indent of the list's key, `]`.
    close: Vec<u8>,
    /// Each key's line start, in the order serde_json writes the fields; the first
    /// opens the object.
    test: Vec<u8>,
    file_size: Vec<u8>,
    record_size: Vec<u8>,
    repetition: Vec<u8>,
    bytes: Vec<u8>,
    elapsed_ns: Vec<u8>,
    throughput: Vec<u8>,
    latency_ns: Vec<u8>,
    engine: Vec<u8>,
    cache: Vec<u8>,
    ops: Vec<u8>,
    /// An element's end: a newline, its indent and `}`.
    end: Vec<u8>,
    /// The latency's keys, a level deeper, and its end.
    p50: Vec<u8>,
    p99: Vec<u8>,
    p999: Vec<u8>,
    max: Vec<u8>,
    samples: Vec<u8>,
    latency_end: Vec<u8>,
}

impl MeasurementLines {
    /// For a list whose key is `depth` levels deep (its elements one deeper).
    pub fn at(depth: usize) -> MeasurementLines {
        let indent = |depth: usize| "  ".repeat(depth);
        let element = indent(depth + 1);
        let field = indent(depth + 2);
        let inner = indent(depth + 3);
        let key = |first: bool, indent: &str, key: &str| {
            let open = if first { "{" } else { "," };
            format!("{open}\n{indent}\"{key}\": ").into_bytes()
        };
        MeasurementLines {
            open: format!("[\n{element}").into_bytes(),
            next: format!(",\n{element}").into_bytes(),
            close: format!("\n{}]", indent(depth)).into_bytes(),
            test: key(true, &field, "test"),
            file_size: key(false, &field, "file_size"),
            record_size: key(false, &field, "record_size"),
            repetition: key(false, &field, "repetition"),
            bytes: key(false, &field, "bytes"),
            elapsed_ns: key(false, &field, "elapsed_ns"),
            throughput: key(false, &field, "throughput"),
            latency_ns: key(false, &field, "latency_ns"),
            engine: key(false, &field, "engine"),
            cache: key(false, &field, "cache"),
            ops: key(false, &field, "ops"),
            end: format!("\n{element}}}").into_bytes(),
            p50: key(true, &inner, "p50"),
            p99: key(false, &inner, "p99"),
            p999: key(false, &inner, "p999"),
            max: key(false, &inner, "max"),
            samples: key(false, &inner, "samples"),
            latency_end: format!("\n{field}}}").into_bytes(),
        }
    }

    /// Writes `list` as serde_json prints it in a document, the key's line begun.
    pub fn write(&self, list: &[Measurement], out: &mut impl io::Write) -> io::Result<()> {
        if list.is_empty() {
            return out.write_all(b"[]");
        }
        for (at, measurement) in list.iter().enumerate() {
            out.write_all(if at == 0 { &self.open } else { &self.next })?;
            self.element(measurement, out)?;
        }
        out.write_all(&self.close)
    }

    fn element(&self, measurement: &Measurement, out: &mut impl io::Write) -> io::Result<()> {
        // every field named, so that a field added to the model fails to build here
        // rather than goes missing from the export
        let Measurement {
            test,
            file_size,
            record_size,
            repetition,
            bytes,
            elapsed_ns,
            throughput,
            latency_ns,
            engine,
            cache,
            ops,
        } = measurement;
        field(out, &self.test, test)?;
        field(out, &self.file_size, file_size)?;
        field(out, &self.record_size, record_size)?;
        field(out, &self.repetition, repetition)?;
        field(out, &self.bytes, bytes)?;
        field(out, &self.elapsed_ns, elapsed_ns)?;
        field(out, &self.throughput, throughput)?;
        match latency_ns {
            Some(latency) => {
                out.write_all(&self.latency_ns)?;
                self.latency(latency, out)?;
            }
            None => field(out, &self.latency_ns, &())?,
        }
        field(out, &self.engine, engine)?;
        field(out, &self.cache, cache)?;
        // as the model's `skip_serializing_if` says
        if let Some(ops) = ops {
            field(out, &self.ops, ops)?;
        }
        out.write_all(&self.end)
    }

    fn latency(&self, latency: &Latency, out: &mut impl io::Write) -> io::Result<()> {
        let Latency {
            p50,
            p99,
            p999,
            max,
            samples,
        } = latency;
        field(out, &self.p50, p50)?;
        field(out, &self.p99, p99)?;
        field(out, &self.p999, p999)?;
        field(out, &self.max, max)?;
        field(out, &self.samples, samples)?;
        out.write_all(&self.latency_end)
    }
}

/// A key's line start, then `value` as serde_json writes it (a scalar: the same
/// compact or pretty).
fn field<T: Serialize + ?Sized>(out: &mut impl io::Write, key: &[u8], value: &T) -> io::Result<()> {
    out.write_all(key)?;
    serde_json::to_writer(&mut *out, value).map_err(io::Error::from)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{CacheMode, EngineKind, TestKind};
    use crate::units::ByteSize;

    fn measurement(n: u64) -> Measurement {
        let tests = [
            TestKind::Write,
            TestKind::Read,
            TestKind::Create,
            TestKind::StrideRead,
        ];
        let engines = [EngineKind::Posix, EngineKind::Mmap, EngineKind::Stdio];
        let caches = [CacheMode::Flush, CacheMode::Direct, CacheMode::Sync];
        let throughputs = [0.0, 5.0, 0.1, 671081768.122694, 1e300, 5e-324, f64::NAN];
        Measurement {
            test: tests[n as usize % tests.len()],
            file_size: ByteSize(n << 20),
            record_size: ByteSize(512 << (n % 8)),
            repetition: n as u32 + 1,
            bytes: n * 4096,
            elapsed_ns: u64::MAX - n,
            throughput: throughputs[n as usize % throughputs.len()],
            latency_ns: (!n.is_multiple_of(3)).then(|| {
                Box::new(Latency {
                    p50: n,
                    p99: 10 * n,
                    p999: 100 * n,
                    max: u64::MAX,
                    samples: 0,
                })
            }),
            engine: engines[n as usize % engines.len()],
            cache: caches[n as usize % caches.len()],
            ops: n.is_multiple_of(2).then_some(n * 7),
        }
    }

    #[derive(Serialize)]
    struct Listed<'a> {
        results: &'a [Measurement],
    }

    /// What serde_json's pretty printer writes for `list` under the key `results`,
    /// `depth` levels deep, from the key's value on.
    fn by_serde_json(depth: usize, list: &[Measurement]) -> String {
        let mut text = Vec::new();
        let listed = Listed { results: list };
        super::super::json_array::write_at(depth - 1, &listed, &mut text).unwrap();
        let text = String::from_utf8(text).unwrap();
        let start = text.find("\"results\": ").unwrap() + "\"results\": ".len();
        let end = text.rfind('\n').unwrap();
        text[start..end].to_string()
    }

    #[test]
    fn the_bytes_are_serde_jsons_at_every_depth() {
        let list: Vec<Measurement> = (0..42).map(measurement).collect();
        for depth in [1, 2, 3, 7] {
            for list in [&list[..], &list[..1], &[]] {
                let lines = MeasurementLines::at(depth);
                let mut text = Vec::new();
                lines.write(list, &mut text).unwrap();
                let text = String::from_utf8(text).unwrap();
                assert_eq!(text, by_serde_json(depth, list), "depth {depth}");
            }
        }
    }
}
