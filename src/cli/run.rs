//! The flags of `iozone run`, the largest command: what to measure, how, and how to
//! record it. Every default is the model's (`model::DEFAULT_…`).

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::values::{Repeat, engines, parse_label, parse_repeat, parse_tag, test_groups};
use crate::model::{self, CacheMode, EngineKind, RoundOrder, TestKind};
use crate::units::{ByteSize, RateUnit};

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
    /// File size; a bare number is MB, as in the classic `iozone run 32 512` (1.5 is 1.5 MB)
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
    /// record-rewrite (4), stride (5), mix (8), all; or metadata tests in operations per
    /// second: mkdir, create, stat, open, readfile, readdir, rename, unlink, rmdir,
    /// metadata (all of them) [default: write,read]
    #[arg(short = 'i', long = "test", value_delimiter = ',', value_parser = test_groups(),
          hide_possible_values = true)]
    pub tests: Vec<Vec<TestKind>>,

    /// Directory to measure in
    #[arg(short = 'd', long, default_value = ".")]
    pub dir: PathBuf,

    /// Metadata tests: files in each directory, per thread [default: 1000]
    #[arg(long, value_name = "N")]
    pub files: Option<u64>,

    /// Metadata tests: directories, per thread (shared by all with --shared-dir)
    /// [default: 1]
    #[arg(long, value_name = "N")]
    pub dirs: Option<u64>,

    /// Metadata tests: bytes written to each file created, read back by readfile
    /// [default: 0]
    #[arg(long, value_name = "SIZE", value_parser = ByteSize::parse_bytes_or_none)]
    pub file_bytes: Option<ByteSize>,

    /// Metadata tests: every thread works in the same directories, contending for
    /// their locks, rather than in a subtree of its own
    #[arg(long)]
    pub shared_dir: bool,

    /// Metadata tests: each phase visits the entries in an order shuffled with the
    /// run's seed, rather than in creation order
    #[arg(long)]
    pub random_order: bool,

    /// How the page cache takes part; several, comma-separated, are each measured
    /// in every round
    #[arg(long, value_enum, value_delimiter = ',', default_values_t = [CacheMode::default()])]
    pub cache: Vec<CacheMode>,

    /// The system interface the I/O goes through; several, comma-separated, are each
    /// measured in every round
    #[arg(long, value_parser = engines(), value_delimiter = ',',
          default_values_t = [EngineKind::default()])]
    pub engine: Vec<EngineKind>,

    /// Operations each worker keeps in flight: 1..=1024 with --engine uring, 1 with
    /// every other engine
    #[arg(long, value_name = "N", default_value_t = model::DEFAULT_IODEPTH)]
    pub iodepth: u32,

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

    /// Free-form label, e.g. DR9 or kernel-6.12 (no commas: selectors join terms with
    /// them); repeatable
    #[arg(short = 'l', long = "label", value_parser = parse_label)]
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
    use clap::{CommandFactory, Parser};

    use super::*;
    use crate::cli::{Cli, Command};

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
        let count = |id| stated(id).parse::<u64>().unwrap();
        assert_eq!(count("files"), model::DEFAULT_META_FILES);
        assert_eq!(count("dirs"), model::DEFAULT_META_DIRS);
        let file_bytes = ByteSize::parse_bytes_or_none(&stated("file_bytes")).unwrap();
        assert_eq!(file_bytes.bytes(), model::DEFAULT_META_FILE_BYTES);
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
