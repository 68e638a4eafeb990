//! Whether a run's cells reached the precision asked of `--repeat auto`: what the
//! engine checks after each round to stop, and what the run table reports. Here, not
//! in `stats`, because it groups a run's measurements: `stats` knows numbers only
//! (`stats::median_half_width` is the statistic).

use std::collections::BTreeMap;

use super::{CacheMode, EngineKind, Measurement, TestKind};
use crate::units::ByteSize;

/// One cell and test whose median is not known to the precision asked.
#[derive(Clone, Debug, PartialEq)]
pub struct Imprecise {
    pub test: TestKind,
    pub file_size: ByteSize,
    pub record_size: ByteSize,
    pub engine: EngineKind,
    pub cache: CacheMode,
    /// The 95% interval's half-width relative to the median; `None` when too few
    /// rounds give no interval at all.
    pub half_width: Option<f64>,
}

/// A run's cell: what one of its rows holds the figures of (the run's depth, workers
/// and tree are the same for all its figures). Figures of two engines or cache modes
/// are two cells: their medians differ by design, so together they would never look
/// precise.
pub fn cell_of(m: &Measurement) -> (ByteSize, ByteSize, EngineKind, CacheMode, TestKind) {
    (m.file_size, m.record_size, m.engine, m.cache, m.test)
}

/// The cells whose 95% interval of the median is wider than ± `precision`.
pub fn imprecise_cells(results: &[Measurement], precision: f64) -> Vec<Imprecise> {
    let mut by_cell: BTreeMap<_, Vec<f64>> = Default::default();
    for m in results {
        by_cell.entry(cell_of(m)).or_default().push(m.throughput);
    }
    by_cell
        .into_iter()
        .filter_map(|((file_size, record_size, engine, cache, test), values)| {
            let half_width = crate::stats::median_half_width(&values);
            let precise = half_width.is_some_and(|h| h <= precision);
            (!precise).then_some(Imprecise {
                test,
                file_size,
                record_size,
                engine,
                cache,
                half_width,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn figure(cache: CacheMode, repetition: u32, throughput: f64) -> Measurement {
        Measurement {
            cache,
            ..crate::model::test_figure(TestKind::Read, 4096, repetition, throughput)
        }
    }

    #[test]
    fn two_cache_modes_of_one_cell_are_judged_apart() {
        // each mode steady at its own level: precise apart, never together
        let results: Vec<Measurement> = (1..=7)
            .flat_map(|r| {
                [
                    figure(CacheMode::Flush, r, 100.0),
                    figure(CacheMode::Buffered, r, 1000.0 + f64::from(r)),
                ]
            })
            .collect();
        assert_eq!(imprecise_cells(&results, 0.01), vec![]);
        let mut noisy = results.clone();
        noisy.push(figure(CacheMode::Flush, 8, 1.0));
        noisy.push(figure(CacheMode::Flush, 9, 1.0));
        noisy.push(figure(CacheMode::Flush, 10, 1.0));
        noisy.push(figure(CacheMode::Flush, 11, 1.0));
        let missed = imprecise_cells(&noisy, 0.01);
        assert_eq!(missed.len(), 1, "{missed:?}");
        assert_eq!(missed[0].cache, CacheMode::Flush);
    }
}
