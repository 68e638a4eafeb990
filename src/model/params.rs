//! Everything a run was asked to do: its parameters, as the `params` object of the JSON
//! and the parameter columns of the stores have them.

use serde::{Deserialize, Serialize};

use super::{CacheMode, EngineKind, RoundOrder, TestKind};
use crate::units::ByteSize;

/// `--repeat auto`: rounds are added until every cell's 95% interval of the median is
/// within the precision, or the time is spent.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct AutoRepeat {
    /// Half-width of the interval relative to the median, in percent.
    pub precision_pct: f64,
    /// Seconds of measuring after which no round is added.
    pub max_time_s: f64,
}

/// The tree the metadata tests of a run measure over (`--files`, `--dirs`,
/// `--file-bytes`, `--shared-dir`, `--random-order`): what their rows are keyed by,
/// beside the test and the threads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct MetadataTree {
    /// Entries per directory, per thread.
    pub files: u64,
    /// Directories, per thread (in all, with `shared_dir`).
    pub dirs: u64,
    /// Bytes each created file holds (0: empty files).
    pub file_bytes: u64,
    /// Whether the threads share one set of directories (contending for each
    /// directory's lock) rather than each having its own subtree.
    pub shared_dir: bool,
    /// Whether each phase visits the entries in an order shuffled with the run's seed,
    /// rather than in creation order.
    pub random_order: bool,
    /// What the run found, not what it was asked: `--cache flush` could not drop the
    /// dentry and inode caches (not root, or the kernel refused), so its phases
    /// started warm.
    #[serde(default)]
    pub warm: bool,
}

impl MetadataTree {
    /// Entries each thread visits in a phase over files: its files in every directory.
    pub fn files_per_thread(&self) -> u64 {
        self.files.saturating_mul(self.dirs)
    }
}

/// Everything a run was asked to do. `Default` is a blank for a store to decode into,
/// not a plan anyone would measure.
///
/// The lists hold what was measured, always. The `params` object of our JSON and the
/// stores' columns state a run's engine, cache mode and largest file size on their own
/// too, and the lists of engines and cache modes only for a run of several
/// combinations, as they always did ([`StatedParams`]); they are read and written
/// unchanged.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(into = "StatedParams", from = "StatedParams")]
pub struct Params {
    /// Every engine measured, in the order given; the first is the run's own, what a
    /// reader that knows one engine per run sees ([`Params::engine`]).
    pub engines: Vec<EngineKind>,
    /// Every cache mode measured, in the order given; the first is the run's own.
    pub caches: Vec<CacheMode>,
    /// Operations each worker keeps in flight (1 before queue depths existed).
    pub iodepth: u32,
    pub threads: u32,
    /// Every file size measured, ascending (one unless `auto`).
    pub file_sizes: Vec<ByteSize>,
    pub record_sizes: Vec<ByteSize>,
    pub tests: Vec<TestKind>,
    /// Measured rounds: as asked, or as many as `--repeat auto` took.
    pub repeat: u32,
    /// Warm-up rounds measured first and left out of every statistic (0 before they existed).
    pub warmup: u32,
    pub order: RoundOrder,
    /// Set when the number of rounds was `auto`.
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
    /// The tree of a run with metadata tests; `None` for a run without (and every run
    /// recorded before they existed).
    pub metadata: Option<MetadataTree>,
}

impl Params {
    /// The queue depth of a run that does not say: every run before depths existed
    /// kept one operation in flight per worker.
    pub fn legacy_iodepth() -> u32 {
        1
    }

    /// The run's own engine: the first of `engines`.
    pub fn engine(&self) -> EngineKind {
        self.engines.first().copied().unwrap_or_default()
    }

    /// The run's own cache mode: the first of `caches`.
    pub fn cache(&self) -> CacheMode {
        self.caches.first().copied().unwrap_or_default()
    }

    /// The largest file size measured.
    pub fn file_size(&self) -> ByteSize {
        self.file_sizes.iter().copied().max().unwrap_or(ByteSize(0))
    }

    /// "posix,pread": every engine, joined as `--engine` takes them.
    pub fn engine_names(&self) -> String {
        let names: Vec<&str> = self.engines.iter().map(|e| e.name()).collect();
        names.join(",")
    }

    /// "flush,buffered": every cache mode, joined as `--cache` takes them.
    pub fn cache_names(&self) -> String {
        let names: Vec<&str> = self.caches.iter().map(|c| c.name()).collect();
        names.join(",")
    }

    /// Whether the run measured more than one combination (engine, cache mode).
    pub fn combined(&self) -> bool {
        self.engines.len() > 1 || self.caches.len() > 1
    }

    /// The lists of engines and cache modes as JSON and the stores state them: a run
    /// of one combination states none (its engine and cache mode are stated alone).
    pub fn stated_lists(&self) -> (&[EngineKind], &[CacheMode]) {
        match self.combined() {
            true => (&self.engines, &self.caches),
            false => (&[], &[]),
        }
    }
}

/// The `params` object of our JSON, as every version wrote it (docs/formats.md):
/// `engine`, `cache` and `file_size` beside the lists, `engines` and `caches` only for a
/// run of several combinations, and defaults for what older versions did not write.
/// Its fields are [`Params`]' in the order the JSON has them.
#[derive(Serialize, Deserialize)]
struct StatedParams {
    engine: EngineKind,
    cache: CacheMode,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    engines: Vec<EngineKind>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    caches: Vec<CacheMode>,
    #[serde(default = "Params::legacy_iodepth")]
    iodepth: u32,
    threads: u32,
    /// The largest of `file_sizes`: read and left, as the lists say it.
    file_size: ByteSize,
    file_sizes: Vec<ByteSize>,
    record_sizes: Vec<ByteSize>,
    tests: Vec<TestKind>,
    repeat: u32,
    #[serde(default)]
    warmup: u32,
    #[serde(default = "RoundOrder::legacy")]
    order: RoundOrder,
    #[serde(default)]
    repeat_auto: Option<AutoRepeat>,
    seed: Option<u64>,
    auto: bool,
    verify: bool,
    read_pct: Option<u8>,
    stride_records: Option<u64>,
    latency: bool,
    dir: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    metadata: Option<MetadataTree>,
}

impl From<StatedParams> for Params {
    fn from(p: StatedParams) -> Params {
        // a run of one combination states it alone
        fn or_alone<T>(list: Vec<T>, alone: T) -> Vec<T> {
            match list.is_empty() {
                true => vec![alone],
                false => list,
            }
        }
        Params {
            engines: or_alone(p.engines, p.engine),
            caches: or_alone(p.caches, p.cache),
            iodepth: p.iodepth,
            threads: p.threads,
            file_sizes: p.file_sizes,
            record_sizes: p.record_sizes,
            tests: p.tests,
            repeat: p.repeat,
            warmup: p.warmup,
            order: p.order,
            repeat_auto: p.repeat_auto,
            seed: p.seed,
            auto: p.auto,
            verify: p.verify,
            read_pct: p.read_pct,
            stride_records: p.stride_records,
            latency: p.latency,
            dir: p.dir,
            metadata: p.metadata,
        }
    }
}

impl From<Params> for StatedParams {
    fn from(p: Params) -> StatedParams {
        let (engines, caches) = p.stated_lists();
        StatedParams {
            engine: p.engine(),
            cache: p.cache(),
            engines: engines.to_vec(),
            caches: caches.to_vec(),
            iodepth: p.iodepth,
            threads: p.threads,
            file_size: p.file_size(),
            file_sizes: p.file_sizes,
            record_sizes: p.record_sizes,
            tests: p.tests,
            repeat: p.repeat,
            warmup: p.warmup,
            order: p.order,
            repeat_auto: p.repeat_auto,
            seed: p.seed,
            auto: p.auto,
            verify: p.verify,
            read_pct: p.read_pct,
            stride_records: p.stride_records,
            latency: p.latency,
            dir: p.dir,
            metadata: p.metadata,
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn params(engines: &[EngineKind], caches: &[CacheMode]) -> Params {
        Params {
            engines: engines.to_vec(),
            caches: caches.to_vec(),
            iodepth: 1,
            threads: 1,
            file_sizes: vec![ByteSize(1 << 20), ByteSize(8 << 20)],
            record_sizes: vec![ByteSize(4096)],
            tests: vec![TestKind::Write],
            repeat: 1,
            ..Params::default()
        }
    }

    #[test]
    fn one_combination_is_stated_alone_as_it_always_was() {
        let one = params(&[EngineKind::Pread], &[CacheMode::Direct]);
        let json = serde_json::to_value(&one).unwrap();
        assert_eq!(json["engine"], "pread");
        assert_eq!(json["cache"], "direct");
        assert_eq!(json["file_size"], 8 << 20);
        assert!(json.get("engines").is_none() && json.get("caches").is_none());
        let keys: Vec<&str> = json
            .as_object()
            .unwrap()
            .keys()
            .map(|k| k.as_str())
            .collect();
        assert_eq!(
            keys[..5],
            ["engine", "cache", "iodepth", "threads", "file_size"]
        );
        assert_eq!(serde_json::from_value::<Params>(json).unwrap(), one);
    }

    #[test]
    fn several_combinations_state_both_lists() {
        let several = params(&[EngineKind::Posix, EngineKind::Mmap], &[CacheMode::Flush]);
        let json = serde_json::to_value(&several).unwrap();
        assert_eq!(json["engine"], "posix");
        assert_eq!(json["engines"], serde_json::json!(["posix", "mmap"]));
        assert_eq!(json["caches"], serde_json::json!(["flush"]));
        assert_eq!(serde_json::from_value::<Params>(json).unwrap(), several);
    }

    #[test]
    fn json_of_older_versions_reads_with_the_lists_full() {
        // before depths, warm-ups, rounds and several combinations
        let old = serde_json::json!({
            "engine": "mmap", "cache": "buffered", "threads": 2, "file_size": 1048576,
            "file_sizes": [1048576], "record_sizes": [4096], "tests": ["write"],
            "repeat": 3, "seed": 1, "auto": false, "verify": false, "read_pct": 50,
            "stride_records": 17, "latency": true, "dir": "/data",
        });
        let p: Params = serde_json::from_value(old).unwrap();
        assert_eq!(
            (p.engines, p.caches),
            (vec![EngineKind::Mmap], vec![CacheMode::Buffered])
        );
        assert_eq!((p.iodepth, p.warmup, p.order), (1, 0, RoundOrder::Grouped));
        assert_eq!(p.file_sizes, [ByteSize(1 << 20)]);
        assert_eq!(p.metadata, None);
    }

    #[test]
    fn a_metadata_tree_is_stated_only_by_runs_that_have_one() {
        let plain = params(&[EngineKind::Posix], &[CacheMode::Flush]);
        let json = serde_json::to_value(&plain).unwrap();
        assert!(json.get("metadata").is_none(), "{json}");
        let tree = MetadataTree {
            files: 10_000,
            dirs: 4,
            file_bytes: 0,
            shared_dir: true,
            random_order: true,
            warm: false,
        };
        let with_tree = Params {
            tests: vec![TestKind::Create, TestKind::Unlink],
            metadata: Some(tree),
            ..plain
        };
        let json = serde_json::to_value(&with_tree).unwrap();
        assert_eq!(
            json["metadata"],
            serde_json::json!({"files": 10000, "dirs": 4, "file_bytes": 0,
                "shared_dir": true, "random_order": true, "warm": false})
        );
        assert_eq!(serde_json::from_value::<Params>(json).unwrap(), with_tree);
        assert_eq!(tree.files_per_thread(), 40_000);
    }
}
