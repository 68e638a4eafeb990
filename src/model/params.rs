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
