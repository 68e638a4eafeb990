//! The command line, as clap derive types. Nothing here reaches the engine: each
//! subcommand turns its args into model values first (see `cmd/`). `run`'s many flags
//! have their own file, `run.rs`; the parsers of flag values live in `values.rs`, so the
//! command line imports nothing from `cmd`, and the library's enums become flags' values
//! in `value_enums.rs`, so the library imports nothing from clap.

pub mod iozone3;
mod run;
mod value_enums;
mod values;

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

pub use run::{RunArgs, RunFormat};
pub use values::Repeat;
use values::{
    one_test, parse_label, parse_min_runs, parse_min_step, parse_since, parse_tag, parse_until,
};

use crate::model::{self, TestKind};
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
    /// The database is this SQLite file, even one --db would refuse as looking like a
    /// server (SCHEME:…, USER:PASSWORD@HOST, password=…); instead of --db, before IOZONE_DB
    #[arg(long, global = true, value_name = "PATH")]
    pub db_file: Option<PathBuf>,
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
    /// Manual pages (roff): the top page, one subcommand's, or all of them into a directory
    Man(ManArgs),
}

#[derive(Debug, Args)]
#[command(
    after_help = "Read one with `iozone man run | man -l -`; install them with \
`iozone man --dir /usr/local/share/man/man1`."
)]
pub struct ManArgs {
    /// The subcommand whose page to print, e.g. run, or db check [default: the top page]
    #[arg(value_name = "COMMAND")]
    pub command: Vec<String>,
    /// Write every page (iozone.1, iozone-run.1, iozone-db-check.1, …) into this directory
    #[arg(long, value_name = "DIR", conflicts_with = "command")]
    pub dir: Option<PathBuf>,
    /// Replace pages already in DIR
    #[arg(long, requires = "dir")]
    pub force: bool,
}

impl Command {
    /// The run filters the command takes, if it takes them.
    pub fn filter(&self) -> Option<&FilterArgs> {
        match self {
            Command::History(args) => Some(&args.filter),
            Command::Trend(args) => Some(&args.filter),
            Command::Export(args) => Some(&args.filter),
            Command::Report(args) => Some(&args.filter),
            Command::Sync(args) => Some(&args.filter),
            _ => None,
        }
    }
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
    Fileop,
    #[value(name = "fs_mark")]
    FsMark,
    Bonnie,
    Mdtest,
}

#[derive(Debug, Args)]
pub struct ImportArgs {
    /// Files to import (`-`: standard input); each is one transaction: all of it or nothing
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// The format, when detection from the content is not wanted
    #[arg(long, value_enum, default_value_t)]
    pub format: ImportFormat,
    /// Label every imported run (no commas: selectors join terms with them); repeatable
    #[arg(short = 'l', long = "label", value_parser = parse_label)]
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
    /// Write to this file instead of stdout (- is stdout too)
    #[arg(short = 'o', long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Replace FILE if it exists (never the database, a symbolic link or a spooled run)
    #[arg(long)]
    pub force: bool,
}

#[derive(Debug, Args)]
#[command(after_help = concat!(
    "With no selector: the newest runs matching the filters. With one: its runs. With two: both, \
and a comparison of the second against the first.\n\n",
    "Selectors: terms joined by commas, as in compare (see `iozone compare --help`): ids and ranges \
(42, 3..7, 40..) any of, conditions (label:DR9, host:NAME, …) all of."
))]
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
    /// History charts from every matching run, not the newest 1000
    #[arg(long)]
    pub all: bool,
    /// Where to write the HTML; - for stdout
    #[arg(short = 'o', long, value_name = "FILE")]
    pub output: PathBuf,
    /// Replace FILE if it exists (never the database, a symbolic link or a spooled run)
    #[arg(long)]
    pub force: bool,
    /// The report's title
    #[arg(long)]
    pub title: Option<String>,
    /// Drop a parameter from the comparison's row match (as in compare); repeatable
    #[arg(long = "ignore-param", value_enum)]
    pub ignore: Vec<IgnoreParam>,
    /// Unit of the rates charted and tabled (auto: charts in MiB/s)
    #[arg(long, value_enum, default_value_t = RateUnit::Auto)]
    pub units: RateUnit,
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
    Iodepth,
    Threads,
    #[value(name = "file_size", alias = "file-size")]
    FileSize,
}

#[derive(Debug, Args)]
#[command(after_help = SELECTORS_HELP)]
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
    /// Say how each selector was read and list the runs each side selected, on stderr
    /// (as -v does)
    #[arg(long)]
    pub explain: bool,
}

/// The selector grammar, as `compare --help` and `report --help` end.
const SELECTORS_HELP: &str = "\
Selectors: terms joined by commas. Terms that name runs select any of them: an id (42), a range \
of ids (3..7, both ends in; 40.. for 40 and every later run), latest, latest~N, a UUID prefix \
(uuid:4f0c). Conditions must all hold: a label (DR8 or label:DR8), tag:k=v, host:NAME, fs:TYPE, \
engine:NAME, cache:MODE, iodepth:N. With both, the runs named that meet every condition: \
3..7,label:journal is the runs 3 to 7 labelled journal (and the command says how it read it). \
A selector matching several runs pools them, each run counting once.";

#[derive(Debug, Args)]
pub struct TrendArgs {
    #[command(flatten)]
    pub filter: FilterArgs,
    /// Smallest step in the level that counts, in percent (more than 0, less than 100)
    #[arg(long, default_value_t = model::DEFAULT_MIN_STEP_PCT, value_parser = parse_min_step)]
    pub min_step: f64,
    /// Fewest runs on each side of a step (2 or more)
    #[arg(long, default_value_t = model::DEFAULT_MIN_RUNS, value_parser = parse_min_runs)]
    pub min_runs: u32,
    /// At most this many runs (the newest)
    #[arg(long, default_value_t = model::DEFAULT_TREND_LIMIT, conflicts_with = "all")]
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
    #[arg(long, value_parser = one_test(), hide_possible_values = true)]
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
    Check {
        /// Mark runs whose process was killed (the machine booted since, or the
        /// process is gone) as aborted, for good
        #[arg(long)]
        repair: bool,
    },
    /// Bring the database's schema up to date
    Migrate,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_is_well_formed() {
        Cli::command().debug_assert();
    }
}
