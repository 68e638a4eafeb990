//! The command line, as clap derive types. Nothing here reaches the engine: each
//! subcommand turns its args into model values first (see `cmd/`). The parsers of
//! flag values live beside it, in `values.rs`: the command line imports nothing from `cmd`.

mod values;

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

pub use values::Repeat;
use values::{parse_one_test, parse_repeat, parse_since, parse_tag, parse_until};

use crate::model::{self, CacheMode, EngineKind, RoundOrder, TestKind};
use crate::selector::{RunRef, Selector};
use crate::shell::{ColorChoice, Verbosity};
use crate::units::{ByteSize, RateUnit};

#[derive(Debug, Parser)]
#[command(
    name = "iozone",
    version,
    about = "Measure file I/O throughput honestly, record every run, and tell what got slower.",
    propagate_version = true,
    max_term_width = 100
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Args)]
pub struct GlobalArgs {
    /// When to colour output (NO_COLOR is honoured in auto)
    #[arg(long, global = true, value_enum, default_value_t)]
    pub color: ColorChoice,
    /// Print only data and errors
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Say more about what is happening
    #[arg(short, long, global = true)]
    pub verbose: bool,
    /// The database: a SQLite file, or postgres://user:password@host:port/dbname for a fleet
    /// [default: the platform data directory, e.g. ~/.local/share/iozone/history.db]
    #[arg(
        long,
        global = true,
        env = "IOZONE_DB",
        value_name = "PATH|URL",
        hide_env_values = true
    )]
    pub db: Option<String>,
}

impl GlobalArgs {
    /// `--quiet` or `--verbose` (clap lets only one through), else normal.
    pub fn verbosity(&self) -> Verbosity {
        match (self.quiet, self.verbose) {
            (true, _) => Verbosity::Quiet,
            (_, true) => Verbosity::Verbose,
            _ => Verbosity::Normal,
        }
    }
}

// parsed once per process: the variants' sizes do not matter
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Measure file I/O throughput in a directory, and record the run
    Run(RunArgs),
    /// List recorded runs, newest first
    History(HistoryArgs),
    /// One recorded run in full: environment and results
    Show(ShowArgs),
    /// What would be recorded about this host and the filesystem under DIR
    Info(InfoArgs),
    /// Compare two runs or groups of runs and say what regressed
    Compare(CompareArgs),
    /// Find where performance stepped up or down along each series of runs
    Trend(TrendArgs),
    /// Bring in results of iozone3, fio, the classic IOzone table, or an iozone export
    Import(ImportArgs),
    /// Write recorded runs out, complete, as JSON (re-importable) or CSV
    Export(ExportArgs),
    /// A self-contained HTML report with charts
    Report(ReportArgs),
    /// Copy runs to or from another database (a fleet's PostgreSQL server), by UUID
    Sync(SyncArgs),
    /// The database itself
    Db(DbArgs),
    /// Shell completions, printed to stdout
    Completions(CompletionsArgs),
    /// The manual page (roff), printed to stdout
    Man,
}

/// Formats `import` reads; `auto` looks at the content.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Default)]
pub enum ImportFormat {
    #[default]
    Auto,
    Iozone3,
    Fio,
    Classic,
    Json,
    Csv,
}

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// Files to import; each is one transaction: all of it or nothing
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// The format, when detection from the content is not wanted
    #[arg(long, value_enum, default_value_t)]
    pub format: ImportFormat,
    /// Label every imported run; repeatable
    #[arg(short = 'l', long = "label")]
    pub labels: Vec<String>,
    /// Tag every imported run (key=value); repeatable
    #[arg(long = "tag", value_parser = parse_tag)]
    pub tags: Vec<(String, String)>,
    /// The host the results were measured on, when the file does not say
    #[arg(long)]
    pub host: Option<String>,
}

/// Formats of `export`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    Json,
    Csv,
}

#[derive(Debug, Args)]
pub struct ExportArgs {
    #[command(flatten)]
    pub filter: FilterArgs,
    /// Output format
    #[arg(long, value_enum)]
    pub format: ExportFormat,
    /// Write to this file instead of stdout
    #[arg(short = 'o', long)]
    pub output: Option<PathBuf>,
}

#[derive(Debug, Args)]
#[command(
    after_help = "With no selector: the newest runs matching the filters. With one: its runs. \
With two: both, and a comparison of the second against the first."
)]
pub struct ReportArgs {
    /// Runs to chart (a selector, as in compare); with a second one, the baseline
    #[arg(value_parser = |s: &str| s.parse::<Selector>())]
    pub baseline: Option<Selector>,
    /// The candidate compared against the baseline
    #[arg(value_parser = |s: &str| s.parse::<Selector>())]
    pub candidate: Option<Selector>,
    #[command(flatten)]
    pub filter: FilterArgs,
    /// Runs charted when no selector is given (the newest)
    #[arg(long, default_value_t = model::DEFAULT_REPORT_LIMIT)]
    pub limit: usize,
    /// Where to write the HTML
    #[arg(short = 'o', long, value_name = "FILE")]
    pub output: PathBuf,
    /// The report's title
    #[arg(long)]
    pub title: Option<String>,
    /// Drop a parameter from the comparison's row match (as in compare); repeatable
    #[arg(long = "ignore-param", value_enum)]
    pub ignore: Vec<IgnoreParam>,
}

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("direction").required(true).args(["to", "from"])))]
pub struct SyncArgs {
    /// Send this database's runs to that one
    #[arg(long, value_name = "PATH|URL")]
    pub to: Option<String>,
    /// Fetch that database's runs into this one
    #[arg(long, value_name = "PATH|URL")]
    pub from: Option<String>,
    #[command(flatten)]
    pub filter: FilterArgs,
    /// Runs per transaction: an interrupted sync keeps every whole batch it sent
    #[arg(long, default_value_t = model::DEFAULT_SYNC_BATCH, value_parser = clap::value_parser!(u32).range(1..))]
    pub batch: u32,
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// Parameters `compare --ignore-param` can drop from the row match.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum IgnoreParam {
    Engine,
    Cache,
    Threads,
    #[value(name = "file_size", alias = "file-size")]
    FileSize,
}

#[derive(Debug, Args)]
#[command(
    after_help = "Selectors: a run id (42), latest, latest~N, a UUID prefix (uuid:4f0c), a label \
(DR8 or label:DR8), tag:k=v, host:NAME, fs:TYPE, engine:NAME, cache:MODE; combine with commas \
(label:DR9,host:bebox). A selector matching several runs pools their repetitions."
)]
pub struct CompareArgs {
    /// The runs to compare against
    #[arg(value_parser = |s: &str| s.parse::<Selector>())]
    pub baseline: Selector,
    /// The runs under judgement
    #[arg(value_parser = |s: &str| s.parse::<Selector>())]
    pub candidate: Selector,
    /// Smallest change that counts, in percent
    #[arg(long, default_value_t = model::DEFAULT_THRESHOLD_PCT)]
    pub threshold: f64,
    /// Significance level, after Benjamini–Hochberg correction across rows
    #[arg(long, default_value_t = model::DEFAULT_ALPHA)]
    pub alpha: f64,
    /// Drop a parameter from the row match, to compare across it; repeatable
    #[arg(long = "ignore-param", value_enum)]
    pub ignore: Vec<IgnoreParam>,
    /// Exit with status 1 when any row regressed (for CI)
    #[arg(long)]
    pub fail_on_regression: bool,
    /// Compare each host, filesystem type or kernel on its own: the fleet view
    #[arg(long, value_enum)]
    pub by: Option<crate::compare::GroupBy>,
    /// Output format
    #[arg(long, value_enum, default_value_t)]
    pub format: ListFormat,
    /// Unit of the rates shown
    #[arg(long, value_enum, default_value_t = RateUnit::Auto)]
    pub units: RateUnit,
}

#[derive(Debug, Args)]
pub struct TrendArgs {
    #[command(flatten)]
    pub filter: FilterArgs,
    /// Smallest step in the level that counts, in percent
    #[arg(long, default_value_t = model::DEFAULT_MIN_STEP_PCT)]
    pub min_step: f64,
    /// Fewest runs on each side of a step
    #[arg(long, default_value_t = model::DEFAULT_MIN_RUNS, value_parser = clap::value_parser!(u32).range(2..))]
    pub min_runs: u32,
    /// Output format
    #[arg(long, value_enum, default_value_t)]
    pub format: ListFormat,
    /// Unit of the rates shown
    #[arg(long, value_enum, default_value_t = RateUnit::Auto)]
    pub units: RateUnit,
}

/// Output formats of listings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Default)]
pub enum ListFormat {
    #[default]
    Table,
    Json,
    Csv,
    Markdown,
}

/// Filters that select recorded runs.
#[derive(Debug, Args, Default)]
pub struct FilterArgs {
    /// Runs on this host (hostname)
    #[arg(long)]
    pub host: Option<String>,
    /// Runs on this filesystem type, e.g. ext4
    #[arg(long)]
    pub fs: Option<String>,
    /// Runs with this label; repeat to require several
    #[arg(short = 'l', long = "label")]
    pub labels: Vec<String>,
    /// Runs with this tag (key=value); repeatable
    #[arg(long = "tag", value_parser = parse_tag)]
    pub tags: Vec<(String, String)>,
    /// Runs that measured this test
    #[arg(long, value_parser = parse_one_test)]
    pub test: Option<TestKind>,
    /// Runs that measured this record size
    #[arg(long, value_parser = ByteSize::parse_bytes)]
    pub record: Option<ByteSize>,
    /// Runs started at or after this: a date (2026-11-01), a time (RFC 3339) or an age (7d, 12h, 2w)
    #[arg(long, value_parser = parse_since)]
    pub since: Option<chrono::DateTime<chrono::Utc>>,
    /// Runs started before this: a date (the whole day counts), a time, or an age
    #[arg(long, value_parser = parse_until)]
    pub until: Option<chrono::DateTime<chrono::Utc>>,
    /// Runs with this status
    #[arg(long, value_enum)]
    pub status: Option<StatusArg>,
}

/// Run statuses, as filters take them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum StatusArg {
    Running,
    Complete,
    Aborted,
    Failed,
}

#[derive(Debug, Args)]
pub struct HistoryArgs {
    #[command(flatten)]
    pub filter: FilterArgs,
    /// At most this many runs (the newest)
    #[arg(long, default_value_t = model::DEFAULT_HISTORY_LIMIT, conflicts_with = "all")]
    pub limit: usize,
    /// Every matching run
    #[arg(long)]
    pub all: bool,
    /// Output format
    #[arg(long, value_enum, default_value_t)]
    pub format: ListFormat,
    /// Unit of the rates shown
    #[arg(long, value_enum, default_value_t = RateUnit::Auto)]
    pub units: RateUnit,
}

#[derive(Debug, Args)]
pub struct ShowArgs {
    /// The run: an id (42), latest, latest~N, or a UUID prefix
    #[arg(value_parser = |s: &str| s.parse::<RunRef>())]
    pub run: RunRef,
    /// Output format
    #[arg(long, value_enum, default_value_t)]
    pub format: ListFormat,
    /// Unit of the rates shown
    #[arg(long, value_enum, default_value_t = RateUnit::Auto)]
    pub units: RateUnit,
}

#[derive(Debug, Args)]
pub struct InfoArgs {
    /// The directory whose filesystem to describe
    #[arg(default_value = ".")]
    pub dir: PathBuf,
    /// Output format
    #[arg(long, value_enum, default_value_t)]
    pub format: RunFormat,
}

#[derive(Debug, Args)]
pub struct DbArgs {
    #[command(subcommand)]
    pub action: DbAction,
}

#[derive(Debug, Subcommand)]
pub enum DbAction {
    /// Print where the database is
    Path,
    /// Check the database's integrity and schema version
    Check,
    /// Bring the database's schema up to date
    Migrate,
}

/// Output formats of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum, Default)]
pub enum RunFormat {
    #[default]
    Table,
    Json,
}

#[derive(Debug, Args)]
#[command(
    allow_negative_numbers = true,
    after_help = "Sizes take units: 512, 4k, 64KiB, 32M, 1G (k = 1024). In flags a bare number is \
bytes; only the classic positional form `iozone run 32 512` means MB and bytes. Beware: in iozone3 \
`-r 512` means 512 KiB, here it means 512 bytes."
)]
pub struct RunArgs {
    /// File size; a bare number is MB, as in the classic `iozone run 32 512`
    #[arg(value_name = "SIZE_MB", value_parser = ByteSize::parse_megabytes)]
    pub size_mb: Option<ByteSize>,

    /// Record size; a bare number is bytes
    #[arg(value_name = "RECORD_BYTES", value_parser = ByteSize::parse_bytes)]
    pub record_bytes: Option<ByteSize>,

    /// File size [default: 32M]
    #[arg(short = 's', long = "size", value_parser = ByteSize::parse_bytes,
          conflicts_with_all = ["size_mb", "auto"])]
    pub size: Option<ByteSize>,

    /// Record size(s), a list or repeated [default: 512,1k,4k,16k,64k]
    #[arg(short = 'r', long = "record", value_delimiter = ',',
          value_parser = ByteSize::parse_bytes, conflicts_with = "record_bytes")]
    pub records: Vec<ByteSize>,

    /// Tests by name or iozone3 number: write (0), read (1), random (2), backward (3),
    /// record-rewrite (4), stride (5), mix (8), all [default: write,read]
    #[arg(short = 'i', long = "test", value_delimiter = ',', value_parser = TestKind::parse_group)]
    pub tests: Vec<Vec<TestKind>>,

    /// Directory to measure in
    #[arg(short = 'd', long, default_value = ".")]
    pub dir: PathBuf,

    /// How the page cache takes part
    #[arg(long, value_enum, default_value_t)]
    pub cache: CacheMode,

    /// The system interface the I/O goes through
    #[arg(long, value_enum, default_value_t)]
    pub engine: EngineKind,

    /// Workers, one file each; throughput is their aggregate
    #[arg(short = 't', long, default_value_t = model::DEFAULT_THREADS)]
    pub threads: u32,

    /// Rounds of every measurement, or `auto`: rounds until every cell's median is
    /// known to ±--precision, within --max-time
    #[arg(short = 'n', long, default_value_t = Repeat::Rounds(model::DEFAULT_REPEAT),
          value_parser = parse_repeat)]
    pub repeat: Repeat,

    /// With --repeat auto: the 95% interval of every cell's median within ± this, in percent
    #[arg(long, default_value_t = model::DEFAULT_PRECISION_PCT)]
    pub precision: f64,

    /// With --repeat auto: seconds of measuring after which no round is added
    #[arg(long, value_name = "SECONDS", default_value_t = model::DEFAULT_MAX_TIME_S)]
    pub max_time: f64,

    /// Warm-up rounds measured first and left out of every statistic
    #[arg(long, default_value_t = model::DEFAULT_WARMUP)]
    pub warmup: u32,

    /// interleaved: each round visits every cell once in a seeded random order, on a
    /// fresh file; grouped: a cell's rounds back to back
    #[arg(long, value_enum, default_value_t)]
    pub order: RoundOrder,

    /// Check every byte read against what was written
    #[arg(long)]
    pub verify: bool,

    /// Free-form label, e.g. DR9 or kernel-6.12; repeatable
    #[arg(short = 'l', long = "label")]
    pub labels: Vec<String>,

    /// key=value, e.g. os=dr9; repeatable
    #[arg(long = "tag", value_parser = parse_tag)]
    pub tags: Vec<(String, String)>,

    /// Free text kept with the run
    #[arg(long)]
    pub note: Option<String>,

    /// Measure and print, store nothing
    #[arg(long)]
    pub no_record: bool,

    /// iozone3 auto mode: sweep file sizes (--min-size..--max-size) × record sizes
    #[arg(short = 'a', long)]
    pub auto: bool,

    /// Smallest file size in auto mode
    #[arg(long, value_parser = ByteSize::parse_bytes, default_value = "64k", requires = "auto")]
    pub min_size: ByteSize,

    /// Largest file size in auto mode (iozone3 -g)
    #[arg(short = 'g', long, value_parser = ByteSize::parse_bytes, default_value = "512M",
          requires = "auto")]
    pub max_size: ByteSize,

    /// Unit of the rates shown
    #[arg(long, value_enum, default_value_t = RateUnit::Auto)]
    pub units: RateUnit,

    /// Share of reads in `mix`, in percent
    #[arg(long, default_value_t = model::DEFAULT_READ_PCT, value_parser = clap::value_parser!(u8).range(0..=100))]
    pub read_pct: u8,

    /// Distance between records read by `stride`, in records (iozone3 -j)
    #[arg(long, default_value_t = model::DEFAULT_STRIDE,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub stride: u64,

    /// Do not time single operations (no latency percentiles)
    #[arg(long)]
    pub no_latency: bool,

    /// Seed for the data and the random orders [default: random, and recorded]
    #[arg(long, value_parser = clap::value_parser!(u64).range(..=model::MAX_SEED))]
    pub seed: Option<u64>,

    /// Output format
    #[arg(long, value_enum, default_value_t)]
    pub format: RunFormat,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_is_well_formed() {
        Cli::command().debug_assert();
    }

    /// Defaults `--help` states in words (a doc comment) or as a string clap parses are
    /// the model's: the constants cannot reach those texts, so this holds them together.
    #[test]
    fn stated_defaults_are_the_models() {
        let command = Cli::command();
        let run = command.find_subcommand("run").expect("run exists");
        let stated = |id: &str| -> String {
            let arg = run.get_arguments().find(|a| a.get_id() == id).expect(id);
            match arg.get_default_values() {
                [value] => value.to_string_lossy().into_owned(),
                _ => {
                    let help = arg.get_help().expect("documented").to_string();
                    let (_, rest) = help.split_once("[default: ").expect("a stated default");
                    rest[..rest.find(']').expect("closed")].to_string()
                }
            }
        };
        let bytes = |text: &str| -> Vec<u64> {
            text.split(',')
                .map(|t| ByteSize::parse_bytes(t).unwrap().bytes())
                .collect()
        };
        assert_eq!(bytes(&stated("size")), [model::DEFAULT_FILE_SIZE]);
        assert_eq!(bytes(&stated("records")), model::DEFAULT_RECORD_SIZES);
        assert_eq!(bytes(&stated("min_size")), [model::AUTO_MIN_FILE_SIZE]);
        assert_eq!(bytes(&stated("max_size")), [model::AUTO_MAX_FILE_SIZE]);
        let tests: Vec<TestKind> = stated("tests")
            .split(',')
            .flat_map(|t| TestKind::parse_group(t).unwrap())
            .collect();
        assert_eq!(tests, model::DEFAULT_TESTS);
    }

    #[test]
    fn classic_positional_form_means_megabytes_and_bytes() {
        let cli = Cli::try_parse_from(["iozone", "run", "32", "512"]).unwrap();
        let Command::Run(run) = cli.command else {
            panic!("parsed as another command");
        };
        assert_eq!(run.size_mb, Some(ByteSize(32 << 20)));
        assert_eq!(run.record_bytes, Some(ByteSize(512)));
    }
}
