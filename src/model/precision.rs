//! Whether a run's cells reached the precision asked of `--repeat auto`: what the
//! engine checks after each round to stop, and what the run table reports. Here, not
//! in `stats`, because it groups a run's measurements: `stats` knows numbers only
//! (`stats::median_half_width` is the statistic).

use std::collections::BTreeMap;

use super::{Measurement, TestKind};
use crate::units::ByteSize;

/// One cell and test whose median is not known to the precision asked.
#[derive(Clone, Debug, PartialEq)]
pub struct Imprecise {
    pub test: TestKind,
    pub file_size: ByteSize,
    pub record_size: ByteSize,
    /// The 95% interval's half-width relative to the median; `None` when too few
    /// rounds give no interval at all.
    pub half_width: Option<f64>,
}

/// The (cell, test) pairs whose 95% interval of the median is wider than ± `precision`.
pub fn imprecise_cells(results: &[Measurement], precision: f64) -> Vec<Imprecise> {
    let mut by_cell: BTreeMap<_, Vec<f64>> = Default::default();
    for m in results {
        by_cell
            .entry((m.file_size, m.record_size, m.test))
            .or_default()
            .push(m.throughput);
    }
    by_cell
        .into_iter()
        .filter_map(|((file_size, record_size, test), values)| {
            let half_width = crate::stats::median_half_width(&values);
            let precise = half_width.is_some_and(|h| h <= precision);
            (!precise).then_some(Imprecise {
                test,
                file_size,
                record_size,
                half_width,
            })
        })
        .collect()
}
