//! The defaults, each written once. `--help` shows them (clap's `default_value_t`
//! reads these), `run` fills its plan with them, and importers record them for what a
//! source does not state, so an imported run's parameters read like a native one's.

use super::TestKind;

/// File size of `run` when none is given (`--help`: 32M).
pub const DEFAULT_FILE_SIZE: u64 = 32 << 20;
/// Record sizes of `run` when none is given: the sweep the classic README measured
/// (`--help`: 512,1k,4k,16k,64k).
pub const DEFAULT_RECORD_SIZES: [u64; 5] = [512, 1 << 10, 4 << 10, 16 << 10, 64 << 10];
/// Tests of `run` when none is given: the write and read groups (`--help`: write,read).
pub const DEFAULT_TESTS: [TestKind; 4] = [
    TestKind::Write,
    TestKind::Rewrite,
    TestKind::Read,
    TestKind::Reread,
];
/// Smallest file size of auto mode (`--help`: 64k).
pub const AUTO_MIN_FILE_SIZE: u64 = 64 << 10;
/// Largest file size of auto mode, as iozone3's `-g` default (`--help`: 512M).
pub const AUTO_MAX_FILE_SIZE: u64 = 512 << 20;
/// Record sizes auto mode sweeps, smallest and largest: iozone3's 4 KiB..16 MiB.
pub const AUTO_RECORD_SIZES: (u64, u64) = (4 << 10, 16 << 20);
pub const DEFAULT_THREADS: u32 = 1;
/// Metadata tests: files in each directory, per thread (`--help`: 1000).
pub const DEFAULT_META_FILES: u64 = 1000;
/// Metadata tests: directories, per thread (`--help`: 1).
pub const DEFAULT_META_DIRS: u64 = 1;
/// Metadata tests: bytes written to each file created (`--help`: 0, empty files).
pub const DEFAULT_META_FILE_BYTES: u64 = 0;
/// Operations each worker keeps in flight: one, the only depth a synchronous engine has.
pub const DEFAULT_IODEPTH: u32 = 1;
/// Measured rounds of every cell.
pub const DEFAULT_REPEAT: u32 = 5;
pub const DEFAULT_WARMUP: u32 = 1;
/// `--repeat auto`: the 95% interval of every median within ± this, in percent.
pub const DEFAULT_PRECISION_PCT: f64 = 2.0;
/// `--repeat auto`: seconds of measuring after which no round is added.
pub const DEFAULT_MAX_TIME_S: f64 = 120.0;
/// Share of reads in `mix`, in percent.
pub const DEFAULT_READ_PCT: u8 = 50;
/// Distance between records read by `stride`, in records: iozone3's `-j 17`.
pub const DEFAULT_STRIDE: u64 = 17;
/// Seeds stay below 2^53 so they survive JSON readers that use doubles, and SQLite.
pub const MAX_SEED: u64 = (1 << 53) - 1;

/// Smallest change a comparison counts, in percent.
pub const DEFAULT_THRESHOLD_PCT: f64 = 5.0;
/// Significance level of a comparison, after Benjamini–Hochberg correction across rows.
pub const DEFAULT_ALPHA: f64 = 0.05;
/// Smallest step in a series' level that `trend` counts, in percent.
pub const DEFAULT_MIN_STEP_PCT: f64 = 5.0;
/// Fewest runs on each side of a step `trend` reports.
pub const DEFAULT_MIN_RUNS: u32 = 3;
/// Runs `history` lists unless told otherwise (the newest).
pub const DEFAULT_HISTORY_LIMIT: usize = 50;
/// Runs `trend` and the history section of `report` look at unless told otherwise (the
/// newest matching): a year of a host's nightly runs, or a few weeks of a small
/// fleet's; enough for a step to stand out, few enough to read.
pub const DEFAULT_TREND_LIMIT: usize = 1000;
/// Runs `report` charts when no selector is given (the newest).
pub const DEFAULT_REPORT_LIMIT: usize = 10;
/// Runs `sync` sends per transaction.
pub const DEFAULT_SYNC_BATCH: u32 = 500;
