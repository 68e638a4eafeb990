//! What the foreign-format parsers (iozone3, fio, classic) share: turning the figures
//! a source states into [`Measurement`]s without inventing any, and a [`Draft`] that
//! becomes a complete [`Run`] once its measurements are in. It parses no format itself.

use std::collections::{BTreeMap, BTreeSet};
use std::hash::BuildHasher;

use chrono::{DateTime, Utc};

use super::{Origin, ParseError};
use crate::model::{
    CacheMode, EngineKind, Filesystem, Host, Measurement, Params, RoundOrder, Run, RunStatus,
    Source, TestKind,
};
use crate::units::ByteSize;

/// The largest count the store keeps: it writes integers as SQLite's signed 64 bits.
const MAX_STORED: u64 = i64::MAX as u64;

/// The most figures a draft holds: its index keeps their places in 32 bits. No input
/// under the import size limit comes near it.
const MAX_FIGURES: usize = u32::MAX as usize;

/// A parse error at `line` (1-based), or for the whole file when `None`.
pub fn error(line: Option<usize>, message: impl Into<String>) -> ParseError {
    ParseError {
        line,
        message: message.into(),
    }
}

/// A run under construction: what the source said about how it ran, and its figures.
#[derive(Clone, Debug)]
pub struct Draft {
    pub tool: &'static str,
    pub version: Option<String>,
    pub command: Option<String>,
    /// When the source says the run began; `None` makes the import time stand in.
    pub started_at: Option<DateTime<Utc>>,
    pub engine: EngineKind,
    pub cache: CacheMode,
    /// Operations the source kept in flight per worker.
    pub iodepth: u32,
    pub threads: u32,
    pub auto: bool,
    pub verify: bool,
    /// The stride the source's tool used, when it states one (or its default).
    pub stride_records: Option<u64>,
    pub dir: Option<String>,
    /// The figures, in the order the source gives them; added with [`Draft::add`] or
    /// [`Draft::absorb`], which keep `keys` in step.
    pub results: Vec<Measurement>,
    /// Where in `results` each figure is, with 32 bits of the hash of its (test, file
    /// size, record size): a second figure for one is found in constant time, so a file
    /// of n figures parses in linear time. An index rather than the key, and the hash
    /// kept so that growing the table needs no look at the figures, hold it to 8 bytes a
    /// figure.
    index: hashbrown::HashTable<Slot>,
    hasher: hashbrown::DefaultHashBuilder,
}

/// A figure's place in `results`, and its key's hash.
#[derive(Clone, Copy, Debug)]
struct Slot {
    at: u32,
    hash: u32,
}

impl Slot {
    /// The 32 bits kept, spread over the 64 the table takes: it picks a bucket with the
    /// low bits and tells entries apart with the top seven.
    fn table_hash(self) -> u64 {
        spread(self.hash)
    }
}

fn spread(hash: u32) -> u64 {
    u64::from(hash) << 32 | u64::from(hash)
}

/// What a source gives one figure for.
type FigureKey = (TestKind, ByteSize, ByteSize);

fn figure_key(m: &Measurement) -> FigureKey {
    (m.test, m.file_size, m.record_size)
}

impl Draft {
    /// A draft with nothing stated yet: one thread, buffered, posix at depth 1, no
    /// directory.
    pub fn new(tool: &'static str) -> Draft {
        Draft {
            tool,
            version: None,
            command: None,
            started_at: None,
            engine: EngineKind::Posix,
            cache: CacheMode::Buffered,
            iodepth: 1,
            threads: 1,
            auto: false,
            verify: false,
            stride_records: None,
            dir: None,
            results: Vec::new(),
            index: hashbrown::HashTable::new(),
            hasher: hashbrown::DefaultHashBuilder::default(),
        }
    }

    /// Adds a figure; a second figure for the same (test, file size, record size) is
    /// an error, since a run holds one per repetition and these sources have one.
    pub fn add(&mut self, m: Measurement) -> Result<(), String> {
        if self.has(&m) {
            return Err(format!(
                "a second {} figure for a {} file in {} records",
                m.test, m.file_size, m.record_size
            ));
        }
        if self.results.len() >= MAX_FIGURES {
            return Err("more figures than one run can hold".to_string());
        }
        self.insert(m);
        Ok(())
    }

    /// Takes `other`'s figures when none of them is one this draft already has;
    /// otherwise gives `other` back untouched.
    pub fn absorb(&mut self, other: Draft) -> Result<(), Box<Draft>> {
        let too_many = self.results.len() + other.results.len() > MAX_FIGURES;
        if too_many || other.results.iter().any(|m| self.has(m)) {
            return Err(Box::new(other));
        }
        // `other` held each key once, and none is this draft's
        other.results.into_iter().for_each(|m| self.insert(m));
        Ok(())
    }

    /// Whether the draft has a figure for `m`'s test, file size and record size.
    fn has(&self, m: &Measurement) -> bool {
        let key = figure_key(m);
        let results = &self.results;
        self.index
            .find(spread(self.hash(&key)), |slot| {
                figure_key(&results[slot.at as usize]) == key
            })
            .is_some()
    }

    /// Adds a figure known to be the only one for its key, to a draft of fewer than
    /// [`MAX_FIGURES`].
    fn insert(&mut self, m: Measurement) {
        let slot = Slot {
            at: self.results.len() as u32,
            hash: self.hash(&figure_key(&m)),
        };
        self.results.push(m);
        self.index
            .insert_unique(slot.table_hash(), slot, |s| s.table_hash());
    }

    fn hash(&self, key: &FigureKey) -> u32 {
        // the low half: the table sees it twice over (`spread`)
        self.hasher.hash_one(key) as u32
    }

    /// The complete run, the `index`-th of its file. The sizes and tests are those the
    /// measurements have, so they can never disagree with the figures.
    pub fn into_run(self, origin: &Origin, index: usize) -> Run {
        let mut figured = Figured::default();
        self.results.iter().for_each(|m| figured.add(m));
        self.into_run_figured(origin, index, figured)
    }

    /// [`Draft::into_run`] with the sizes and tests of figures `figured` gathered as
    /// they passed (a run passed on in parts holds none of them).
    pub fn into_run_figured(self, origin: &Origin, index: usize, figured: Figured) -> Run {
        let Figured {
            file_sizes,
            record_sizes,
            tests,
            latency,
            last_sizes: _,
        } = figured;
        let (file_sizes, record_sizes) = (Vec::from_iter(file_sizes), Vec::from_iter(record_sizes));
        // TestKind's order is the canonical one (TestKind::ALL).
        let tests = Vec::from_iter(tests);
        let params = Params {
            // a source measures one engine and cache mode, and states it for the job
            engines: vec![self.engine],
            caches: vec![self.cache],
            iodepth: self.iodepth,
            threads: self.threads,
            file_sizes,
            record_sizes,
            tests,
            // Each source gives one figure per (test, size, record): one repetition.
            repeat: 1,
            // other tools measure once, with no warm-up and no rounds of ours
            warmup: 0,
            order: RoundOrder::legacy(),
            repeat_auto: None,
            // the sources' data and orders are not seeded by us, nor is a mix stated
            seed: None,
            auto: self.auto,
            verify: self.verify,
            read_pct: None,
            stride_records: self.stride_records,
            latency,
            dir: self.dir,
            // the sources measure on one host (iozone3's cluster mode is not read)
            clients: Params::one_client(),
            hosts: Vec::new(),
            shared_file: false,
            stonewall: false,
            metadata: None,
        };
        let mut run = Run {
            id: None,
            uuid: origin.run_uuid(index),
            started_at: self.started_at.unwrap_or(origin.imported_at),
            finished_at: None,
            status: RunStatus::Complete,
            labels: Vec::new(),
            tags: BTreeMap::new(),
            note: None,
            tool_version: env!("CARGO_PKG_VERSION").to_string(),
            params,
            // No source we read states the host or the filesystem: unknown, never guessed.
            host: Host::default(),
            filesystem: Filesystem::default(),
            source: Some(Source {
                tool: self.tool.to_string(),
                version: self.version,
                command: self.command,
                file: Some(origin.file.clone()),
                imported_at: origin.imported_at,
                time_known: self.started_at.is_some(),
            }),
            state_at_start: None,
            state_at_end: None,
            process: None,
            results: self.results,
            warmup: Vec::new(),
            cluster: None,
        };
        // a source measures one engine and cache mode, and states it for the job
        run.stamp_combination();
        run
    }
}

/// Turns finished drafts into runs numbered in file order, dropping drafts without
/// figures; a file that yields none at all is an error, not an empty import.
pub fn into_runs(drafts: Vec<Draft>, origin: &Origin, what: &str) -> Result<Vec<Run>, ParseError> {
    let runs: Vec<Run> = drafts
        .into_iter()
        .filter(|d| !d.results.is_empty())
        .enumerate()
        .map(|(i, d)| d.into_run(origin, i))
        .collect();
    if runs.is_empty() {
        return Err(error(None, format!("no measurements found: {what}")));
    }
    Ok(runs)
}

/// What a run's figures decide of its parameters: the distinct sizes and tests,
/// ascending, and whether any has latency. Sets rather than a sorted copy of all of
/// them, which for a run of millions of figures would be as large as the figures.
#[derive(Clone, Debug, Default)]
pub struct Figured {
    file_sizes: BTreeSet<ByteSize>,
    record_sizes: BTreeSet<ByteSize>,
    tests: BTreeSet<TestKind>,
    latency: bool,
    /// The sizes of the figure added last: a table row's figures share them, so the
    /// sets are looked up once a row rather than once a figure.
    last_sizes: Option<(ByteSize, ByteSize)>,
}

impl Figured {
    pub fn add(&mut self, m: &Measurement) {
        let sizes = Some((m.file_size, m.record_size));
        if self.last_sizes != sizes {
            self.file_sizes.insert(m.file_size);
            self.record_sizes.insert(m.record_size);
            self.last_sizes = sizes;
        }
        self.tests.insert(m.test);
        self.latency |= m.latency_ns.is_some();
    }
}

/// A measurement from a throughput the source states (bytes/s) and the bytes it moved.
/// The elapsed time is derived from the two (the sources that state no time imply it),
/// so bytes / elapsed gives the stated throughput back.
pub fn from_throughput(
    test: TestKind,
    file_size: u64,
    record_size: u64,
    bytes: u64,
    throughput: f64,
) -> Result<Measurement, String> {
    if !throughput.is_finite() || throughput <= 0.0 {
        return Err(format!(
            "{test}: throughput {throughput} is not a positive rate"
        ));
    }
    let elapsed = (bytes as f64 / throughput * 1e9).round();
    if !(1.0..=MAX_STORED as f64).contains(&elapsed) {
        return Err(format!(
            "{test}: {throughput} bytes/s for {bytes} bytes is not a plausible time"
        ));
    }
    measurement(
        test,
        file_size,
        record_size,
        bytes,
        elapsed as u64,
        throughput,
    )
}

/// A measurement from figures the source states outright, checked to be storable.
pub fn measurement(
    test: TestKind,
    file_size: u64,
    record_size: u64,
    bytes: u64,
    elapsed_ns: u64,
    throughput: f64,
) -> Result<Measurement, String> {
    let sizes_ok = (1..=MAX_STORED).contains(&file_size) && (1..=MAX_STORED).contains(&record_size);
    if !sizes_ok {
        return Err(format!(
            "{test}: file size {file_size} or record size {record_size} is out of range"
        ));
    }
    if bytes > MAX_STORED || elapsed_ns == 0 || elapsed_ns > MAX_STORED {
        return Err(format!(
            "{test}: {bytes} bytes in {elapsed_ns} ns is out of range"
        ));
    }
    if !throughput.is_finite() || throughput <= 0.0 {
        return Err(format!(
            "{test}: throughput {throughput} is not a positive rate"
        ));
    }
    Ok(Measurement {
        test,
        file_size: ByteSize(file_size),
        record_size: ByteSize(record_size),
        repetition: 1,
        bytes,
        elapsed_ns,
        throughput,
        latency_ns: None,
        engine: EngineKind::default(),
        cache: CacheMode::default(),
        ops: None,
    })
}

/// `count` units of `unit` bytes, or an error naming `what` when it overflows.
pub fn scaled(count: u64, unit: u64, what: &str) -> Result<u64, String> {
    count
        .checked_mul(unit)
        .filter(|&b| b <= MAX_STORED)
        .ok_or_else(|| format!("{what} {count} × {unit} bytes is too large"))
}

/// The directory of an absolute file path, e.g. `/data` for `/data/ioz.tmp`; empty for a
/// relative path, whose directory the source does not state.
pub fn parent_dir(path: &str) -> String {
    if !path.starts_with('/') {
        return String::new();
    }
    match path.rfind('/') {
        Some(0) => "/".to_string(),
        Some(i) => path[..i].to_string(),
        None => String::new(),
    }
}

#[cfg(test)]
pub mod testing {
    //! Fixtures and the never-panic check every parser's tests use.

    use chrono::TimeZone;
    use rand::{RngExt, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;

    use super::super::{Origin, ParseError};
    use super::*;

    pub type Parser = fn(&str, &Origin) -> Result<Vec<Run>, ParseError>;

    /// An origin at a fixed import time, keyed by the text.
    pub fn origin(text: &str) -> Origin {
        let at = Utc.with_ymd_and_hms(2026, 12, 1, 9, 0, 0).unwrap();
        Origin::new("fixture.txt", text.as_bytes(), at)
    }

    /// Feeds `parse` every 7th truncation of each fixture and `mutations` seeded random
    /// byte-level mutations (flip, insert, delete; lossily back to UTF-8): it must return
    /// Ok or Err, never panic. Every truncation that errs must say what went wrong.
    pub fn never_panics(parse: Parser, fixtures: &[&str], mutations: usize) {
        for text in fixtures {
            let origin = origin(text);
            for cut in (0..text.len()).step_by(7) {
                let head = String::from_utf8_lossy(&text.as_bytes()[..cut]);
                if let Err(e) = parse(&head, &origin) {
                    assert!(!e.message.is_empty());
                }
            }
        }
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(0x10_20_3e);
        for i in 0..mutations {
            let text = fixtures[i % fixtures.len()];
            let mutated = mutate(text.as_bytes(), &mut rng);
            let mutated = String::from_utf8_lossy(&mutated);
            let _ = parse(&mutated, &origin(&mutated));
        }
    }

    /// One to eight random edits, biased towards digits and the characters the formats
    /// are made of, so that mutations reach past the first check.
    fn mutate(bytes: &[u8], rng: &mut Xoshiro256PlusPlus) -> Vec<u8> {
        const ALPHABET: &[u8] = b"0123456789 \t\n-.:={}[]\",kKmMgGe+x";
        let mut out = bytes.to_vec();
        for _ in 0..=rng.random_range(0..8) {
            let at = rng.random_range(0..=out.len());
            let byte = if rng.random_bool(0.7) {
                ALPHABET[rng.random_range(0..ALPHABET.len())]
            } else {
                rng.random()
            };
            match rng.random_range(0..3) {
                0 if at < out.len() => out[at] = byte,
                1 => out.insert(at, byte),
                _ if at < out.len() => {
                    out.remove(at);
                }
                _ => out.push(byte),
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elapsed_is_derived_so_the_stated_rate_comes_back() {
        let m = from_throughput(
            TestKind::Write,
            1 << 25,
            1 << 16,
            1 << 25,
            2728381.0 * 1024.0,
        )
        .unwrap();
        assert_eq!(m.elapsed_ns, 12_010_053);
        assert_eq!(m.throughput, 2728381.0 * 1024.0);
        let back = m.bytes as f64 / (m.elapsed_ns as f64 / 1e9);
        assert!((back / m.throughput - 1.0).abs() < 1e-6);
    }

    #[test]
    fn impossible_figures_are_errors() {
        assert!(from_throughput(TestKind::Read, 1, 1, 1, 0.0).is_err());
        assert!(from_throughput(TestKind::Read, 1, 1, 1, f64::NAN).is_err());
        assert!(from_throughput(TestKind::Read, 1, 1, 1, 1e300).is_err());
        assert!(measurement(TestKind::Read, 0, 1, 1, 1, 1.0).is_err());
        assert!(scaled(u64::MAX / 2, 1024, "file size").is_err());
    }

    fn figure(test: TestKind, file_size: u64) -> Measurement {
        measurement(test, file_size, 4096, file_size, 1_000, 1e9).unwrap()
    }

    #[test]
    fn a_second_figure_for_a_key_is_refused_and_absorbing_one_gives_the_draft_back() {
        let mut draft = Draft::new("test");
        draft.add(figure(TestKind::Write, 1 << 20)).unwrap();
        draft.add(figure(TestKind::Read, 1 << 20)).unwrap();
        let e = draft.add(figure(TestKind::Write, 1 << 20)).unwrap_err();
        assert!(e.contains("a second write figure"), "{e}");

        let mut overlapping = Draft::new("test");
        overlapping.add(figure(TestKind::Write, 2 << 20)).unwrap();
        overlapping.add(figure(TestKind::Read, 1 << 20)).unwrap();
        let back = draft.absorb(overlapping).unwrap_err();
        assert_eq!((back.results.len(), draft.results.len()), (2, 2));

        draft.absorb(back_without_read(*back)).unwrap();
        assert_eq!(draft.results.len(), 3);
        // the absorbed figure is known to the index too
        assert!(draft.add(figure(TestKind::Write, 2 << 20)).is_err());
        assert!(draft.add(figure(TestKind::Write, 4 << 20)).is_ok());
    }

    fn back_without_read(draft: Draft) -> Draft {
        let mut kept = Draft::new("test");
        for m in draft
            .results
            .into_iter()
            .filter(|m| m.test != TestKind::Read)
        {
            kept.add(m).unwrap();
        }
        kept
    }

    #[test]
    fn directories_only_from_absolute_paths() {
        assert_eq!(parent_dir("/data/ioz.tmp"), "/data");
        assert_eq!(parent_dir("/ioz.tmp"), "/");
        assert_eq!(parent_dir("ioz.tmp"), "");
        assert_eq!(parent_dir("./x/ioz.tmp"), "");
    }
}
