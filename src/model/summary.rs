//! A run's summary per row key: what the commands that walk many runs read instead of
//! every repetition. Derived from the results by the store (one SQL definition, the
//! view of migration 0009), never the only copy of anything.

use super::{CacheMode, EngineKind, TestKind};
use crate::units::ByteSize;

/// The measured repetitions of one run under one key (test, file size, record size,
/// engine, cache): warm-up rounds never count.
#[derive(Clone, Debug, PartialEq)]
pub struct RowSummary {
    pub test: TestKind,
    pub file_size: ByteSize,
    pub record_size: ByteSize,
    pub engine: EngineKind,
    pub cache: CacheMode,
    /// Every repetition, finite or not.
    pub repetitions: u32,
    /// The median of the finite figures (`stats::Summary`'s); `None` when none is.
    pub median: Option<f64>,
    /// The least and greatest finite figure: the repetitions' spread.
    pub least: Option<f64>,
    pub greatest: Option<f64>,
    /// The median of the finite, positive figures, whose logarithm is the run's level
    /// (`stats::runlevel::RunLevel`); `None` when no figure is positive.
    pub positive_median: Option<f64>,
}

impl RowSummary {
    /// What a summary row decodes onto: every field a column sets is overwritten.
    pub fn blank() -> RowSummary {
        RowSummary {
            test: TestKind::Write,
            file_size: ByteSize(0),
            record_size: ByteSize(0),
            engine: EngineKind::Posix,
            cache: CacheMode::Flush,
            repetitions: 0,
            median: None,
            least: None,
            greatest: None,
            positive_median: None,
        }
    }
}
