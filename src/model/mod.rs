//! The shared vocabulary: what a run is, what it measured, and the parameters it ran
//! with. These types are the JSON interface (docs/formats.md, "JSON and CSV of every command"), so fields are only ever added.

mod cluster;
mod defaults;
mod engine;
mod machine;
mod params;
mod part;
mod precision;
mod process;
mod row;
mod storable;
mod summary;
pub use cluster::{Aggregates, ClientHost, Cluster, RankFailure, RankFigure, RankFigures, span};
pub use defaults::*;
pub use engine::EngineKind;
pub use machine::{Filesystem, Host, MachineState};
pub use params::{AutoRepeat, MetadataTree, Params, first_seen, in_part};
pub use part::RunPart;
pub use precision::{Imprecise, cell_of, imprecise_cells};
pub use process::RunProcess;
pub use row::{KeyParts, RowKey, by_row, throughputs};

pub use storable::{EARLIEST, LATEST, MAX_COUNT, Unstorable, instant_in_range};
pub use summary::{HEADLINE_TESTS, RowSummary, Summaries, headline};

use std::collections::BTreeMap;
use std::fmt;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::units::ByteSize;

/// One of iozone3's tests, or one of the metadata tests (a phase over a tree of small
/// files, measured in operations per second), under the name it has in JSON.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TestKind {
    Write,
    Rewrite,
    Read,
    Reread,
    RandomRead,
    RandomWrite,
    BackwardRead,
    RecordRewrite,
    StrideRead,
    Mix,
    // the metadata family, in the order its phases run
    Mkdir,
    Create,
    Stat,
    Open,
    Readfile,
    Readdir,
    Rename,
    Unlink,
    Rmdir,
}

impl TestKind {
    /// Canonical order: the order iozone3 runs them in, which is also the order that
    /// makes each test's preconditions hold (write creates the file, reread follows read),
    /// then the metadata tests in the order their phases run (mkdir before create, unlink
    /// before rmdir).
    pub const ALL: [TestKind; 19] = [
        TestKind::Write,
        TestKind::Rewrite,
        TestKind::Read,
        TestKind::Reread,
        TestKind::RandomRead,
        TestKind::RandomWrite,
        TestKind::BackwardRead,
        TestKind::RecordRewrite,
        TestKind::StrideRead,
        TestKind::Mix,
        TestKind::Mkdir,
        TestKind::Create,
        TestKind::Stat,
        TestKind::Open,
        TestKind::Readfile,
        TestKind::Readdir,
        TestKind::Rename,
        TestKind::Unlink,
        TestKind::Rmdir,
    ];

    /// The metadata tests, in the order their phases run: what `-i metadata` means.
    pub const METADATA: [TestKind; 9] = [
        TestKind::Mkdir,
        TestKind::Create,
        TestKind::Stat,
        TestKind::Open,
        TestKind::Readfile,
        TestKind::Readdir,
        TestKind::Rename,
        TestKind::Unlink,
        TestKind::Rmdir,
    ];

    pub fn name(self) -> &'static str {
        match self {
            TestKind::Write => "write",
            TestKind::Rewrite => "rewrite",
            TestKind::Read => "read",
            TestKind::Reread => "reread",
            TestKind::RandomRead => "random_read",
            TestKind::RandomWrite => "random_write",
            TestKind::BackwardRead => "backward_read",
            TestKind::RecordRewrite => "record_rewrite",
            TestKind::StrideRead => "stride_read",
            TestKind::Mix => "mix",
            TestKind::Mkdir => "mkdir",
            TestKind::Create => "create",
            TestKind::Stat => "stat",
            TestKind::Open => "open",
            TestKind::Readfile => "readfile",
            TestKind::Readdir => "readdir",
            TestKind::Rename => "rename",
            TestKind::Unlink => "unlink",
            TestKind::Rmdir => "rmdir",
        }
    }

    /// Whether the test is one of the metadata family: a phase over a tree of small
    /// files, counted in operations (its rows' unit is [`RateKind::Ops`]).
    /// The one place that says which tests are.
    pub fn is_metadata(self) -> bool {
        self >= TestKind::Mkdir
    }

    /// What the test's figures count per second.
    pub fn rate_kind(self) -> RateKind {
        match self.is_metadata() {
            true => RateKind::Ops,
            false => RateKind::Bytes,
        }
    }

    /// Whether the test only reads the file (`starts_cold` says whether it starts cold).
    pub fn is_read(self) -> bool {
        matches!(
            self,
            TestKind::Read
                | TestKind::Reread
                | TestKind::RandomRead
                | TestKind::BackwardRead
                | TestKind::StrideRead
        )
    }

    /// Whether the test starts with the file's pages evicted when the cache mode allows.
    /// Reread is the warm read by definition; mix reads too, so it starts cold.
    pub fn starts_cold(self) -> bool {
        (self.is_read() && self != TestKind::Reread) || self == TestKind::Mix
    }

    /// Parses a test or test group, by name or iozone3 number, into the tests it means.
    pub fn parse_group(text: &str) -> Result<Vec<TestKind>, String> {
        let key = text.trim().to_ascii_lowercase().replace('-', "_");
        let tests = match key.as_str() {
            "0" | "write" => vec![TestKind::Write, TestKind::Rewrite],
            "1" | "read" => vec![TestKind::Read, TestKind::Reread],
            "2" | "random" => vec![TestKind::RandomRead, TestKind::RandomWrite],
            "3" | "backward" | "backward_read" => vec![TestKind::BackwardRead],
            "4" | "record_rewrite" => vec![TestKind::RecordRewrite],
            "5" | "stride" | "stride_read" => vec![TestKind::StrideRead],
            "8" | "mix" => vec![TestKind::Mix],
            "rewrite" => vec![TestKind::Rewrite],
            "reread" => vec![TestKind::Reread],
            "random_read" => vec![TestKind::RandomRead],
            "random_write" => vec![TestKind::RandomWrite],
            // iozone3's tests: the metadata family is asked for by name
            "all" => TestKind::ALL
                .into_iter()
                .filter(|t| !t.is_metadata())
                .collect(),
            "metadata" => TestKind::METADATA.to_vec(),
            _ => match TestKind::METADATA.into_iter().find(|t| t.name() == key) {
                Some(test) => vec![test],
                None => {
                    return Err(format!(
                        "unknown test '{text}': expected write (0), read (1), random (2), backward (3), \
                         record-rewrite (4), stride (5), mix (8), all, one of rewrite, reread, \
                         random-read, random-write, or a metadata test: metadata (all of them), \
                         mkdir, create, stat, open, readfile, readdir, rename, unlink, rmdir"
                    ));
                }
            },
        };
        Ok(tests)
    }
}

impl fmt::Display for TestKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a row's figures count per second: bytes for iozone3's tests, operations for the
/// metadata family. Renderers ask a row ([`RowKey::rate_kind`]) rather than its test.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RateKind {
    /// bytes per second, shown in `--units`
    Bytes,
    /// operations per second, "ops/s", which `--units` never applies to
    Ops,
}

/// How the page cache takes part in a measurement.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, Default,
)]
#[serde(rename_all = "snake_case")]
pub enum CacheMode {
    /// writes include fdatasync in their time; cold reads start with the file evicted
    #[default]
    Flush,
    /// through the page cache, nothing forced (iozone3's default)
    Buffered,
    /// O_DIRECT: around the page cache
    Direct,
    /// O_SYNC: every write durable before it returns
    Sync,
}

impl CacheMode {
    /// Every mode, in the order `--help` lists them.
    pub const ALL: [CacheMode; 4] = [
        CacheMode::Flush,
        CacheMode::Buffered,
        CacheMode::Direct,
        CacheMode::Sync,
    ];

    pub fn name(self) -> &'static str {
        match self {
            CacheMode::Flush => "flush",
            CacheMode::Buffered => "buffered",
            CacheMode::Direct => "direct",
            CacheMode::Sync => "sync",
        }
    }
}

/// How a run lays its repetitions out in time.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, Default,
)]
#[serde(rename_all = "snake_case")]
pub enum RoundOrder {
    /// each round visits every (file size, record size) cell once, in a seeded random
    /// order, so a slow minute of the machine spreads over all cells
    #[default]
    Interleaved,
    /// a cell's repetitions back to back (runs recorded before rounds existed)
    Grouped,
}

impl RoundOrder {
    /// Every order, in the order `--help` lists them.
    pub const ALL: [RoundOrder; 2] = [RoundOrder::Interleaved, RoundOrder::Grouped];

    pub fn name(self) -> &'static str {
        match self {
            RoundOrder::Interleaved => "interleaved",
            RoundOrder::Grouped => "grouped",
        }
    }

    /// What a run that does not say measured in: every run before rounds existed.
    pub fn legacy() -> RoundOrder {
        RoundOrder::Grouped
    }
}

/// Per-operation latency percentiles, in nanoseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Latency {
    pub p50: u64,
    pub p99: u64,
    pub p999: u64,
    pub max: u64,
    /// How many operations were timed individually (see docs/methodology.md: latency).
    pub samples: u64,
}

/// One measurement: one test at one file size and record size, in one repetition.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Measurement {
    pub test: TestKind,
    pub file_size: ByteSize,
    pub record_size: ByteSize,
    /// 1-based.
    pub repetition: u32,
    /// Bytes moved by all workers together (for a metadata test: the bytes its files
    /// were written or read with, 0 for the tests that move none).
    pub bytes: u64,
    /// Wall time from the first worker's start to the last worker's end.
    pub elapsed_ns: u64,
    /// bytes / elapsed, in bytes per second; for a metadata test, `ops` / elapsed, in
    /// operations per second (the row's [`RateKind`]).
    pub throughput: f64,
    /// Boxed: most figures (every imported one) have none, and a measurement of a
    /// million-figure import then takes 56 bytes instead of 96.
    pub latency_ns: Option<Box<Latency>>,
    /// The engine and cache mode it went through: a run may measure several
    /// (`--engine posix,pread`). JSON written before they existed lacks them; `import`
    /// fills them from the run's parameters, and the stores' migrations did the same.
    #[serde(default)]
    pub engine: EngineKind,
    #[serde(default)]
    pub cache: CacheMode,
    /// Operations done by all workers together: set for a metadata test (whose file and
    /// record sizes are 0: its tree is the run's `params.metadata`), absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ops: Option<u64>,
}

/// A figure for the model's tests: `test` on a file of 1 MiB in records of `record`
/// bytes, through posix with the cache flushed.
#[cfg(test)]
pub(crate) fn test_figure(
    test: TestKind,
    record: u64,
    repetition: u32,
    throughput: f64,
) -> Measurement {
    Measurement {
        test,
        file_size: ByteSize(1 << 20),
        record_size: ByteSize(record),
        repetition,
        bytes: 1 << 20,
        elapsed_ns: 1,
        throughput,
        latency_ns: None,
        engine: EngineKind::Posix,
        cache: CacheMode::Flush,
        ops: None,
    }
}

impl Measurement {
    /// The one order a run's measurements are listed in, whatever order they were
    /// measured in: by file size, record size, repetition, engine, cache mode, then test.
    #[allow(clippy::type_complexity)]
    pub fn list_order(&self) -> (ByteSize, ByteSize, u32, EngineKind, CacheMode, TestKind) {
        (
            self.file_size,
            self.record_size,
            self.repetition,
            self.engine,
            self.cache,
            self.test,
        )
    }
}

/// Where an imported run came from. Native runs have none.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Source {
    /// `iozone3`, `fio`, `classic` (the 1990s IOzone table) or `iozone` (our own export).
    pub tool: String,
    pub version: Option<String>,
    /// The command line the source records, e.g. `iozone -s 32m -r 64k -i 0 -i 1`.
    pub command: Option<String>,
    /// The file the run was imported from, as given to `import`.
    pub file: Option<String>,
    pub imported_at: DateTime<Utc>,
    /// False when the source states no time: `started_at` is then the import's time.
    pub time_known: bool,
}

/// How a run ended.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    #[default]
    Running,
    Complete,
    Aborted,
    Failed,
}

/// As docs/formats.md's JSON spells it: `complete`, `aborted`, ….
impl fmt::Display for RunStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = serde_json::to_value(self).ok();
        f.write_str(name.as_ref().and_then(|v| v.as_str()).unwrap_or_default())
    }
}

/// A run: what was asked, where, and every figure it measured. `Default` is a blank
/// (nil UUID, started at the epoch) for a store to decode into.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Run {
    /// The store's id; `None` until the run is recorded.
    pub id: Option<i64>,
    pub uuid: uuid::Uuid,
    pub started_at: DateTime<Utc>,
    pub finished_at: Option<DateTime<Utc>>,
    pub status: RunStatus,
    pub labels: Vec<String>,
    pub tags: BTreeMap<String, String>,
    pub note: Option<String>,
    pub tool_version: String,
    pub params: Params,
    pub host: Host,
    pub filesystem: Filesystem,
    /// Where an imported run came from; `null` for runs measured here.
    #[serde(default)]
    pub source: Option<Source>,
    /// The machine's load, writeback and pressure when the run started and ended.
    #[serde(default)]
    pub state_at_start: Option<MachineState>,
    #[serde(default)]
    pub state_at_end: Option<MachineState>,
    /// The process that measured the run, for telling a killed run from a live one;
    /// `null` for imported runs and runs recorded before it was kept.
    #[serde(default)]
    pub process: Option<RunProcess>,
    pub results: Vec<Measurement>,
    /// Warm-up rounds' measurements: kept, never part of a statistic.
    #[serde(default)]
    pub warmup: Vec<Measurement>,
    /// What a run of many clients keeps beyond a run of one: absent for one client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster: Option<Cluster>,
}

impl Run {
    /// Keeps only the measurements through `engine` and `cache` (`None`: any): one part
    /// of a run of several, as `compare 42,engine:posix 42,engine:pread` takes it.
    pub fn narrow_to(&mut self, engine: Option<EngineKind>, cache: Option<CacheMode>) {
        let wanted = |m: &Measurement| in_part((engine, cache), m.engine, m.cache);
        self.results.retain(wanted);
        self.warmup.retain(wanted);
    }

    /// When the run began, if known: an imported file that states no time leaves it
    /// unknown (`started_at` then holds the import's time, for ordering only).
    pub fn stated_start(&self) -> Option<DateTime<Utc>> {
        match &self.source {
            Some(source) if !source.time_known => None,
            _ => Some(self.started_at),
        }
    }

    /// Gives every measurement the run's engine and cache mode: for a source that
    /// measured one combination and does not say so per measurement.
    pub fn stamp_combination(&mut self) {
        let (engine, cache) = (self.params.engine(), self.params.cache());
        for m in self.results.iter_mut().chain(self.warmup.iter_mut()) {
            m.engine = engine;
            m.cache = cache;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_expand_as_iozone3_numbers_do() {
        assert_eq!(
            TestKind::parse_group("0").unwrap(),
            vec![TestKind::Write, TestKind::Rewrite]
        );
        assert_eq!(
            TestKind::parse_group("read").unwrap(),
            vec![TestKind::Read, TestKind::Reread]
        );
        assert_eq!(
            TestKind::parse_group("record-rewrite").unwrap(),
            vec![TestKind::RecordRewrite]
        );
        assert_eq!(
            TestKind::parse_group("random-write").unwrap(),
            vec![TestKind::RandomWrite]
        );
        assert!(TestKind::parse_group("7").is_err());
        assert!(TestKind::parse_group("frobnicate").is_err());
    }

    #[test]
    fn the_metadata_family_is_asked_for_by_name_and_all_stays_iozone3s() {
        assert_eq!(
            TestKind::parse_group("metadata").unwrap(),
            TestKind::METADATA
        );
        assert_eq!(
            TestKind::parse_group("readfile").unwrap(),
            [TestKind::Readfile]
        );
        let all = TestKind::parse_group("all").unwrap();
        assert_eq!(all.len(), 10);
        assert!(all.iter().all(|t| !t.is_metadata()));
        let family: Vec<TestKind> = TestKind::ALL
            .into_iter()
            .filter(|t| t.is_metadata())
            .collect();
        assert_eq!(family, TestKind::METADATA);
        assert_eq!(TestKind::Rmdir.rate_kind(), RateKind::Ops);
        assert_eq!(TestKind::Mix.rate_kind(), RateKind::Bytes);
    }

    #[test]
    fn a_measurement_states_operations_only_when_it_counted_them() {
        let mut m = Measurement {
            test: TestKind::Write,
            file_size: ByteSize(4096),
            record_size: ByteSize(4096),
            repetition: 1,
            bytes: 4096,
            elapsed_ns: 1000,
            throughput: 4096e6,
            latency_ns: None,
            engine: EngineKind::Posix,
            cache: CacheMode::Flush,
            ops: None,
        };
        let json = serde_json::to_value(&m).unwrap();
        assert!(json.get("ops").is_none(), "{json}");
        m.test = TestKind::Create;
        m.ops = Some(40);
        let json = serde_json::to_value(&m).unwrap();
        assert_eq!(json["ops"], 40);
        assert_eq!(serde_json::from_value::<Measurement>(json).unwrap(), m);
    }

    #[test]
    fn json_names_are_the_documented_ones() {
        let names: Vec<String> = TestKind::ALL
            .iter()
            .map(|t| {
                serde_json::to_value(t)
                    .unwrap()
                    .as_str()
                    .unwrap()
                    .to_string()
            })
            .collect();
        let documented = [
            "write",
            "rewrite",
            "read",
            "reread",
            "random_read",
            "random_write",
            "backward_read",
            "record_rewrite",
            "stride_read",
            "mix",
            "mkdir",
            "create",
            "stat",
            "open",
            "readfile",
            "readdir",
            "rename",
            "unlink",
            "rmdir",
        ];
        assert_eq!(names, documented);
        for t in TestKind::ALL {
            assert_eq!(serde_json::to_value(t).unwrap(), t.name());
        }
    }
}
