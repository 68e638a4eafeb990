//! fio's JSON output (`--output-format=json` or `json+`, fio 3.x), possibly preceded by
//! warnings fio printed before it. Each job's read and write sides that moved data
//! become measurements: rw=read/write give read/write, randread/randwrite give
//! random_read/random_write, rw/randrw give one of each per side (our `mix` draws one
//! random order for both, fio's mixes do not). Jobs with the same parameters run one
//! after another (stonewalled, so in successive groups) over the same sizes form one
//! run, the way `iozone run -i write,read` does; other jobs are runs of their own.
//!
//! Not imported: trim and the rw modes we have no test for (their jobs are skipped),
//! the reads a write job does to verify, `json+` latency bins (the percentiles are
//! taken), fio 2.x JSON (no `bw_bytes`), the periodic objects of `--status-interval`
//! (the first object is read), and the host: fio states none.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

use super::text::{Draft, error, into_runs, measurement, parent_dir};
use super::{Origin, ParseError};
use crate::model::{CacheMode, EngineKind, Latency, Measurement, Run, TestKind};

/// Whether `text` holds fio's JSON: a line opening an object, and fio's version key.
pub fn looks_like(text: &str) -> bool {
    json_start(text).is_some_and(|at| text[at..].contains("\"fio version\""))
}

/// The runs of fio's JSON report in `text`.
pub fn parse(text: &str, origin: &Origin) -> Result<Vec<Run>, ParseError> {
    let root = document(text)?;
    let version = root
        .get("fio version")
        .and_then(Value::as_str)
        .ok_or_else(|| error(None, "not fio's JSON output: no \"fio version\""))?;
    let started_at = report_time(&root)?;
    let global = options(root.get("global options"));
    let jobs = root
        .get("jobs")
        .and_then(Value::as_array)
        .ok_or_else(|| error(None, "fio's JSON has no \"jobs\" array"))?;
    let mut drafts: Vec<(u64, Draft)> = Vec::new();
    for (index, value) in jobs.iter().enumerate() {
        let job = Job::new(value, &global, index).map_err(|m| error(None, m))?;
        let Some(mut draft) = job.draft().map_err(|m| error(None, m))? else {
            continue;
        };
        draft.version = Some(version.to_string());
        draft.started_at = started_at;
        merge_or_push(&mut drafts, job.group, draft);
    }
    let drafts = drafts.into_iter().map(|(_, d)| d).collect();
    into_runs(drafts, origin, "no job read or wrote in a way we measure")
}

/// Where the JSON object begins: the first line that starts with `{`. fio prints its
/// warnings ("fio: ...") on lines of their own before it.
fn json_start(text: &str) -> Option<usize> {
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        if line.trim_start().starts_with('{') {
            return Some(at + (line.len() - line.trim_start().len()));
        }
        at += line.len();
    }
    None
}

/// The JSON object, with errors at the line of the whole text. Whatever follows the
/// object (fio's trailing messages) is ignored.
fn document(text: &str) -> Result<Map<String, Value>, ParseError> {
    let at =
        json_start(text).ok_or_else(|| error(None, "no JSON object (a line starting with '{')"))?;
    let lines_before = text[..at].matches('\n').count();
    let mut stream = serde_json::Deserializer::from_str(&text[at..]).into_iter::<Value>();
    match stream.next() {
        Some(Ok(Value::Object(root))) => Ok(root),
        Some(Ok(_)) => Err(error(
            Some(lines_before + 1),
            "fio's JSON output is an object",
        )),
        Some(Err(e)) => Err(error(
            Some(lines_before + e.line()),
            format!("not valid JSON: {e}"),
        )),
        None => Err(error(None, "no JSON object")),
    }
}

/// When fio wrote its report. fio stamps the report when it prints it, after the last
/// job: this is the end of the run, late as a start by the run's duration, and the
/// only time fio states (the jobs' `elapsed` is whole seconds and not per start).
fn report_time(root: &Map<String, Value>) -> Result<Option<DateTime<Utc>>, ParseError> {
    let time = if let Some(ms) = root.get("timestamp_ms").and_then(Value::as_i64) {
        DateTime::from_timestamp_millis(ms)
    } else if let Some(s) = root.get("timestamp").and_then(Value::as_i64) {
        DateTime::from_timestamp(s, 0)
    } else {
        return Ok(None);
    };
    time.map(Some)
        .ok_or_else(|| error(None, "fio's \"timestamp\" is out of range"))
}

/// An options object as strings: fio prints every value as a string, flags as "".
fn options(value: Option<&Value>) -> BTreeMap<String, String> {
    let Some(Value::Object(map)) = value else {
        return BTreeMap::new();
    };
    map.iter()
        .map(|(k, v)| {
            let text = match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            (k.clone(), text)
        })
        .collect()
}

/// One job of the report with its options (the global ones overridden by its own).
struct Job<'a> {
    name: String,
    group: u64,
    options: BTreeMap<String, String>,
    value: &'a Map<String, Value>,
}

/// fio's two directions we measure, in the order their tests sort.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Side {
    Write,
    Read,
}

impl Side {
    fn key(self) -> &'static str {
        match self {
            Side::Write => "write",
            Side::Read => "read",
        }
    }
}

impl<'a> Job<'a> {
    fn new(
        value: &'a Value,
        global: &BTreeMap<String, String>,
        index: usize,
    ) -> Result<Job<'a>, String> {
        let value = value
            .as_object()
            .ok_or_else(|| format!("job {} is not an object", index + 1))?;
        let name = match value.get("jobname").and_then(Value::as_str) {
            Some(n) => format!("job {} ({n})", index + 1),
            None => format!("job {}", index + 1),
        };
        let mut options = global.clone();
        options.extend(self::options(value.get("job options")));
        let job = Job {
            group: value.get("groupid").and_then(Value::as_u64).unwrap_or(0),
            name,
            options,
            value,
        };
        match value.get("error").and_then(Value::as_i64) {
            Some(0) | None => Ok(job),
            Some(code) => Err(format!(
                "{}: fio reported error {code}; its figures cover only part of the job",
                job.name
            )),
        }
    }

    /// An option by any of its names.
    fn option(&self, names: &[&str]) -> Option<&str> {
        names
            .iter()
            .find_map(|n| self.options.get(*n))
            .map(String::as_str)
    }

    /// A boolean option: fio takes 1/0, true/false, yes/no, on/off, and a bare flag.
    fn flag(&self, names: &[&str]) -> Option<bool> {
        self.option(names)
            .map(|v| !matches!(v.trim(), "0" | "false" | "no" | "off"))
    }

    /// The job as a draft run, or `None` when it moved nothing we have a test for.
    fn draft(&self) -> Result<Option<Draft>, String> {
        let mut draft = Draft::new("fio");
        draft.engine = self.engine()?;
        draft.iodepth = self.iodepth()?;
        draft.threads = self.threads()?;
        draft.dir = Some(self.dir()).filter(|d| !d.is_empty());
        let mut moved = Vec::new();
        for side in [Side::Write, Side::Read] {
            if let Some(m) = self.measurement(side, draft.threads)? {
                moved.push(side);
                draft.add(m).map_err(|e| format!("{}: {e}", self.name))?;
            }
        }
        draft.cache = self.cache(&moved);
        Ok((!draft.results.is_empty()).then_some(draft))
    }

    /// fio's engine, `psync` unless the job names one.
    fn ioengine(&self) -> &str {
        self.option(&["ioengine"]).unwrap_or("psync").trim()
    }

    /// fio's engines that are ours under another name: psync/pvsync are positional
    /// reads and writes, sync/vsync use the file position, mmap maps,
    /// io_uring queues. Any other (libaio, posixaio, …) is recorded under its own name
    /// at the job's depth ([`Job::iodepth`]): none of ours measures what it measured,
    /// and pread at depth 16 is a run ours would refuse. fio's default is psync.
    fn engine(&self) -> Result<EngineKind, String> {
        Ok(match self.ioengine() {
            "psync" | "pvsync" => EngineKind::Pread,
            "sync" | "vsync" => EngineKind::Posix,
            "mmap" => EngineKind::Mmap,
            "io_uring" => EngineKind::Uring,
            other => {
                EngineKind::named(other).map_err(|e| format!("{}: ioengine {e}", self.name))?
            }
        })
    }

    /// The operations in flight per worker: `iodepth` (fio's default 1) for a queued
    /// engine. fio's synchronous engines ignore the option, one I/O at a time whatever
    /// it says, so their jobs are depth 1.
    fn iodepth(&self) -> Result<u32, String> {
        const SYNCHRONOUS: [&str; 6] = ["sync", "psync", "vsync", "pvsync", "pvsync2", "mmap"];
        if SYNCHRONOUS.contains(&self.ioengine()) {
            return Ok(1);
        }
        self.count_of("iodepth", "a queue depth")
    }

    /// numjobs workers, when the entry reports them together (group_reporting); without
    /// it fio prints one entry per worker, each with its own figures: one thread each.
    fn threads(&self) -> Result<u32, String> {
        if !self.flag(&["group_reporting"]).unwrap_or(false) {
            return Ok(1);
        }
        self.count_of("numjobs", "a count of workers")
    }

    /// An option that counts something, 1 or more; 1 when the job does not set it.
    fn count_of(&self, name: &str, what: &str) -> Result<u32, String> {
        match self.option(&[name]) {
            None => Ok(1),
            Some(n) => n
                .trim()
                .parse::<u32>()
                .ok()
                .filter(|&n| n > 0)
                .ok_or_else(|| format!("{}: {name} '{n}' is not {what}", self.name)),
        }
    }

    /// The directory of the file: the filename's when absolute, else `directory`.
    fn dir(&self) -> String {
        let first = |v: &str| v.split(':').next().unwrap_or("").to_string();
        let from_file = self.option(&["filename"]).map(|f| parent_dir(&first(f)));
        match from_file.filter(|d| !d.is_empty()) {
            Some(dir) => dir,
            None => self
                .option(&["directory"])
                .map(first)
                .filter(|d| d.starts_with('/'))
                .unwrap_or_default(),
        }
    }

    /// direct=1 (or buffered=0) is O_DIRECT and sync=1 O_SYNC. Flush is our pair of
    /// guarantees: writes timed with their sync (fsync/fdatasync every N writes, or
    /// end_fsync, which fio counts in the job's time) and reads that start cold
    /// (invalidate, fio's default, drops the file's pages before the job). A job is
    /// flush when every side it measured has its half. fsync_on_close does not count:
    /// fio stops the clock before that sync (axboe/fio#831).
    fn cache(&self, moved: &[Side]) -> CacheMode {
        let direct =
            self.flag(&["direct"]).unwrap_or(false) || self.flag(&["buffered"]) == Some(false);
        let sync = self
            .option(&["sync"])
            .is_some_and(|v| matches!(v.trim(), "1" | "true" | "sync" | "dsync"));
        let synced_writes = self.flag(&["end_fsync"]).unwrap_or(false)
            || self.count(&["fsync"]) > 0
            || self.count(&["fdatasync"]) > 0;
        let cold_reads = self.flag(&["invalidate"]).unwrap_or(true);
        let flushed = |side: &Side| match side {
            Side::Write => synced_writes,
            Side::Read => cold_reads,
        };
        if direct {
            CacheMode::Direct
        } else if sync {
            CacheMode::Sync
        } else if !moved.is_empty() && moved.iter().all(flushed) {
            CacheMode::Flush
        } else {
            CacheMode::Buffered
        }
    }

    fn count(&self, names: &[&str]) -> u64 {
        self.option(names)
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(0)
    }

    /// Our test for what the job's rw did on one side; `None` when it is not a test of
    /// ours (trim, offsets with holes such as `write:4k`, or a write job's verify reads).
    fn test(&self, side: Side) -> Option<TestKind> {
        // fio's default rw is read.
        let rw = self.option(&["rw", "readwrite"]).unwrap_or("read");
        match (side, rw) {
            (Side::Read, "read" | "rw" | "readwrite") => Some(TestKind::Read),
            (Side::Read, "randread" | "randrw") => Some(TestKind::RandomRead),
            (Side::Write, "write" | "rw" | "readwrite") => Some(TestKind::Write),
            (Side::Write, "randwrite" | "randrw") => Some(TestKind::RandomWrite),
            _ => None,
        }
    }

    /// One side's measurement, when it moved data and maps to a test of ours.
    fn measurement(&self, side: Side, threads: u32) -> Result<Option<Measurement>, String> {
        let Some(figures) = self.value.get(side.key()).and_then(Value::as_object) else {
            return Ok(None);
        };
        let field = |name: &str| {
            figures
                .get(name)
                .and_then(Value::as_u64)
                .ok_or_else(|| format!("{} {}: no whole number \"{name}\"", self.name, side.key()))
        };
        let bytes = field("io_bytes")?;
        let Some(test) = self.test(side).filter(|_| bytes > 0) else {
            return Ok(None);
        };
        let rate = field("bw_bytes")?;
        let runtime_ms = field("runtime")?;
        let elapsed_ns = runtime_ms.checked_mul(1_000_000).ok_or_else(|| {
            format!(
                "{} {}: runtime {runtime_ms} ms is too long",
                self.name,
                side.key()
            )
        })?;
        let record = self.block_size(side)?;
        let file_size = self.file_size(bytes, threads)?;
        let mut m = measurement(test, file_size, record, bytes, elapsed_ns, rate as f64)
            .map_err(|e| format!("{}: {e}", self.name))?;
        m.latency_ns = latency(figures.get("clat_ns")).map(Box::new);
        Ok(Some(m))
    }

    /// bs, which may give read, write and trim sizes apart (`bs=4k,16k`); a missing
    /// later size repeats the last one given, an empty one is fio's default, 4 KiB.
    fn block_size(&self, side: Side) -> Result<u64, String> {
        let Some(bs) = self.option(&["bs", "blocksize"]) else {
            return Ok(4096);
        };
        let parts: Vec<&str> = bs.split(',').collect();
        let index = match side {
            Side::Read => 0,
            Side::Write => 1,
        };
        let part = parts
            .get(index)
            .or(parts.last())
            .copied()
            .unwrap_or("")
            .trim();
        if part.is_empty() {
            return Ok(4096);
        }
        self.size(part).ok_or_else(|| {
            format!(
                "{}: bs '{bs}' is not one record size (ranges and splits are not imported)",
                self.name
            )
        })
    }

    /// The file size: `size` (per worker), or, when the job states none (a device, or
    /// a file fio found), the bytes each worker moved, the nearest figure fio states.
    fn file_size(&self, bytes: u64, threads: u32) -> Result<u64, String> {
        match self.option(&["size"]) {
            Some(size) => self
                .size(size)
                .ok_or_else(|| format!("{}: size '{size}' is not a byte count", self.name)),
            None => Ok(bytes / u64::from(threads.max(1))),
        }
    }

    /// A size with fio's units: binary (k = 1024) unless kb_base=1000 says decimal.
    fn size(&self, text: &str) -> Option<u64> {
        let config = if self.option(&["kb_base"]).map(str::trim) == Some("1000") {
            parse_size::Config::new()
        } else {
            parse_size::Config::new().with_binary()
        };
        config.parse_size(text.trim()).ok().filter(|&s| s > 0)
    }
}

/// Completion latency (submission to completion, what we time per operation) at our
/// percentiles; `None` when fio did not print them all.
fn latency(clat: Option<&Value>) -> Option<Latency> {
    let clat = clat?.as_object()?;
    let percentiles = clat.get("percentile")?.as_object()?;
    let at = |key: &str| percentiles.get(key)?.as_u64();
    let samples = clat.get("N")?.as_u64().filter(|&n| n > 0)?;
    Some(Latency {
        p50: at("50.000000")?,
        p99: at("99.000000")?,
        p999: at("99.900000")?,
        max: clat.get("max")?.as_u64()?,
        samples,
    })
}

/// Adds a job's draft to the previous run when they are one benchmark: the same
/// parameters and sizes, run one after the other (successive groups), different
/// tests. Otherwise the job is a run of its own.
fn merge_or_push(drafts: &mut Vec<(u64, Draft)>, group: u64, draft: Draft) {
    let Some((last_group, last)) = drafts.last_mut() else {
        drafts.push((group, draft));
        return;
    };
    if key(last) != key(&draft) || *last_group == group {
        drafts.push((group, draft));
        return;
    }
    match last.absorb(draft) {
        Ok(()) => *last_group = group,
        Err(draft) => drafts.push((group, *draft)),
    }
}

/// What must agree for two jobs to be one run: engine, cache mode, depth, threads,
/// directory and the (file, record) sizes.
type RunKey<'a> = (
    EngineKind,
    CacheMode,
    u32,
    u32,
    Option<&'a str>,
    Vec<(u64, u64)>,
);

fn key(d: &Draft) -> RunKey<'_> {
    let mut sizes: Vec<(u64, u64)> = d
        .results
        .iter()
        .map(|m| (m.file_size.0, m.record_size.0))
        .collect();
    sizes.sort();
    sizes.dedup();
    (
        d.engine,
        d.cache,
        d.iodepth,
        d.threads,
        d.dir.as_deref(),
        sizes,
    )
}

#[cfg(test)]
mod tests;
