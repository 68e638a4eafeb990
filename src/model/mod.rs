//! The shared vocabulary: what a run is, what it measured, and the parameters it ran
//! with. These types are the JSON interface (docs/formats.md, "JSON and CSV of every command"), so fields are only ever added.

mod defaults;
mod process;
mod storable;
mod summary;
pub use defaults::*;
pub use process::RunProcess;
pub use storable::{EARLIEST, LATEST, MAX_COUNT, Unstorable, instant_in_range};
pub use summary::{RowSummary, Summaries};

use std::collections::BTreeMap;
use std::fmt;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::units::ByteSize;

/// One of iozone3's tests, under the name it has in JSON.
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
}

impl TestKind {
    /// Canonical order: the order iozone3 runs them in, which is also the order that
    /// makes each test's preconditions hold (write creates the file, reread follows read).
    pub const ALL: [TestKind; 10] = [
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
            "all" => TestKind::ALL.to_vec(),
            _ => {
                return Err(format!(
                    "unknown test '{text}': expected write (0), read (1), random (2), backward (3), \
                     record-rewrite (4), stride (5), mix (8), all, or one of rewrite, reread, \
                     random-read, random-write"
                ));
            }
        };
        Ok(tests)
    }
}

impl fmt::Display for TestKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
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

/// The system interface the I/O goes through.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, Default,
)]
#[serde(rename_all = "snake_case")]
pub enum EngineKind {
    /// read(2)/write(2), with lseek(2) only where the access is not sequential
    #[default]
    Posix,
    /// pread(2)/pwrite(2) at explicit offsets
    Pread,
    /// the file mapped into memory and copied to or from
    Mmap,
    /// a user-space buffered stream, like fread/fwrite
    Stdio,
    /// io_uring: up to `--iodepth` operations in flight, refilled as each completes
    Uring,
}

impl EngineKind {
    /// Every engine, in the order `--help` lists them.
    pub const ALL: [EngineKind; 5] = [
        EngineKind::Posix,
        EngineKind::Pread,
        EngineKind::Mmap,
        EngineKind::Stdio,
        EngineKind::Uring,
    ];

    pub fn name(self) -> &'static str {
        match self {
            EngineKind::Posix => "posix",
            EngineKind::Pread => "pread",
            EngineKind::Mmap => "mmap",
            EngineKind::Stdio => "stdio",
            EngineKind::Uring => "uring",
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

/// `--repeat auto`: rounds are added until every cell's 95% interval of the median is
/// within the precision, or the time is spent.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct AutoRepeat {
    /// Half-width of the interval relative to the median, in percent.
    pub precision_pct: f64,
    /// Seconds of measuring after which no round is added.
    pub max_time_s: f64,
}

/// Everything a run was asked to do. Serialized as the `params` object. `Default` is
/// a blank for a store to decode into, not a plan anyone would measure.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Params {
    /// The first of `engines`: what a reader that knows one engine per run sees.
    pub engine: EngineKind,
    /// The first of `caches`.
    pub cache: CacheMode,
    /// Every engine measured, in the order given, when there is more than one; empty
    /// when `engine` is the only one (so single-engine runs read as they always did).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub engines: Vec<EngineKind>,
    /// Every cache mode measured, when there is more than one; empty when `cache` is.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub caches: Vec<CacheMode>,
    /// Operations each worker keeps in flight (1 before queue depths existed).
    #[serde(default = "Params::legacy_iodepth")]
    pub iodepth: u32,
    pub threads: u32,
    /// The largest file size measured (the only one unless `auto`).
    pub file_size: ByteSize,
    /// Every file size measured, ascending.
    pub file_sizes: Vec<ByteSize>,
    pub record_sizes: Vec<ByteSize>,
    pub tests: Vec<TestKind>,
    /// Measured rounds: as asked, or as many as `--repeat auto` took.
    pub repeat: u32,
    /// Warm-up rounds measured first and left out of every statistic (0 before they existed).
    #[serde(default)]
    pub warmup: u32,
    #[serde(default = "RoundOrder::legacy")]
    pub order: RoundOrder,
    /// Set when the number of rounds was `auto`.
    #[serde(default)]
    pub repeat_auto: Option<AutoRepeat>,
    /// The seed of the data and of the orders. `None` (and so for the three below)
    /// for an imported run whose file does not state it: nothing is made up.
    pub seed: Option<u64>,
    pub auto: bool,
    pub verify: bool,
    /// Share of reads in `mix`, in percent.
    pub read_pct: Option<u8>,
    /// Stride of `stride_read`, in records.
    pub stride_records: Option<u64>,
    /// Whether per-operation latency was recorded.
    pub latency: bool,
    /// The directory measured in, as an absolute path.
    pub dir: Option<String>,
}

impl Params {
    /// The queue depth of a run that does not say: every run before depths existed
    /// kept one operation in flight per worker.
    pub fn legacy_iodepth() -> u32 {
        1
    }

    /// Every engine the run measured: `engines`, or `engine` alone.
    pub fn all_engines(&self) -> Vec<EngineKind> {
        if self.engines.is_empty() {
            vec![self.engine]
        } else {
            self.engines.clone()
        }
    }

    /// Every cache mode the run measured: `caches`, or `cache` alone.
    pub fn all_caches(&self) -> Vec<CacheMode> {
        if self.caches.is_empty() {
            vec![self.cache]
        } else {
            self.caches.clone()
        }
    }

    /// "posix,pread": every engine, joined as `--engine` takes them.
    pub fn engine_names(&self) -> String {
        let names: Vec<&str> = self
            .all_engines()
            .into_iter()
            .map(EngineKind::name)
            .collect();
        names.join(",")
    }

    /// "flush,buffered": every cache mode, joined as `--cache` takes them.
    pub fn cache_names(&self) -> String {
        let names: Vec<&str> = self.all_caches().into_iter().map(CacheMode::name).collect();
        names.join(",")
    }

    /// Whether the run measured more than one (engine, cache mode) combination.
    pub fn combined(&self) -> bool {
        self.engines.len() > 1 || self.caches.len() > 1
    }
}

/// Whether a figure measured through `engine` and `cache` is in the part of a run that
/// `engine:` and `cache:` select (`None`: any), as `Run::narrow_to` keeps it.
pub fn in_part(
    (want_engine, want_cache): (Option<EngineKind>, Option<CacheMode>),
    engine: EngineKind,
    cache: CacheMode,
) -> bool {
    want_engine.is_none_or(|e| engine == e) && want_cache.is_none_or(|c| cache == c)
}

/// The distinct values in the order they first appear: the engines or cache modes of a
/// run, as given.
pub fn first_seen<T: PartialEq>(values: impl Iterator<Item = T>) -> Vec<T> {
    let mut seen = Vec::new();
    for v in values {
        if !seen.contains(&v) {
            seen.push(v);
        }
    }
    seen
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
    /// Bytes moved by all workers together.
    pub bytes: u64,
    /// Wall time from the first worker's start to the last worker's end.
    pub elapsed_ns: u64,
    /// bytes / elapsed, in bytes per second.
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

/// Facts about the machine. Filled by host probing; unknown values stay `None`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Host {
    pub hostname: Option<String>,
    /// OS name, e.g. "Debian GNU/Linux" (os-release `NAME`).
    pub os: Option<String>,
    /// OS version, e.g. "12" (os-release `VERSION_ID`).
    pub os_version: Option<String>,
    /// Kernel release, e.g. "6.12.0-1-amd64".
    pub kernel: Option<String>,
    pub kernel_cmdline: Option<String>,
    /// Changes at every boot: tells runs on one boot from runs across a reboot.
    pub boot_id: Option<String>,
    pub arch: Option<String>,
    pub cpu_model: Option<String>,
    /// Logical CPUs online.
    pub cpus: Option<u32>,
    /// cpufreq scaling governor of CPU 0, e.g. "performance".
    pub cpu_governor: Option<String>,
    pub memory_bytes: Option<u64>,
    pub page_size: Option<u64>,
    /// Dirty-page writeback settings (/proc/sys/vm/dirty_*).
    pub dirty_ratio: Option<u64>,
    pub dirty_background_ratio: Option<u64>,
    pub dirty_bytes: Option<u64>,
    pub dirty_background_bytes: Option<u64>,
    pub dirty_expire_centisecs: Option<u64>,
    pub dirty_writeback_centisecs: Option<u64>,
    /// Hypervisor when detectable, e.g. "kvm".
    pub virtualization: Option<String>,
    /// Container runtime when detectable, e.g. "docker".
    pub container: Option<String>,
}

/// The machine's state at one instant: what shifts a whole run's level (other load,
/// writeback left over from earlier work, memory pressure). Unknown values are `None`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MachineState {
    /// Load averages over 1 and 5 minutes (/proc/loadavg).
    pub load_1m: Option<f64>,
    pub load_5m: Option<f64>,
    /// Page cache waiting to be written (/proc/meminfo `Dirty`), in bytes.
    pub dirty_bytes: Option<u64>,
    /// Being written back right now (/proc/meminfo `Writeback`), in bytes.
    pub writeback_bytes: Option<u64>,
    /// /proc/meminfo `MemFree` and `MemAvailable`, in bytes.
    pub mem_free_bytes: Option<u64>,
    pub mem_available_bytes: Option<u64>,
    /// Share of the last 10 s in which some task waited for I/O or for a CPU
    /// (/proc/pressure/io and /proc/pressure/cpu, `some avg10`), in percent.
    pub io_pressure_pct: Option<f64>,
    pub cpu_pressure_pct: Option<f64>,
}

/// Facts about the filesystem under the measured directory; unknown values are `None`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Filesystem {
    pub mount_point: Option<String>,
    #[serde(rename = "type")]
    pub fs_type: Option<String>,
    /// The mount source, e.g. "/dev/nvme0n1p2".
    pub device: Option<String>,
    /// Per-mount and superblock options, comma-separated, as the mount table says.
    pub mount_options: Option<String>,
    pub block_size: Option<u64>,
    pub total_bytes: Option<u64>,
    pub free_bytes: Option<u64>,
    /// The block device behind the filesystem, after following partitions,
    /// device-mapper and loop devices, e.g. "nvme0n1".
    pub block_device: Option<String>,
    pub device_model: Option<String>,
    pub rotational: Option<bool>,
    /// The active I/O scheduler, e.g. "mq-deadline" or "none".
    pub scheduler: Option<String>,
    pub device_size: Option<u64>,
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
        let (engine, cache) = (self.params.engine, self.params.cache);
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
        ];
        assert_eq!(names, documented);
        for t in TestKind::ALL {
            assert_eq!(serde_json::to_value(t).unwrap(), t.name());
        }
    }
}
