//! The row key: what a figure is a row of, wherever figures are shown or matched in
//! rows (a run's table and latency table, a report's chart lines, a comparison's rows,
//! a trend's series), and the one grouping of a run's figures by it.
//!
//! Rows that come to differ in something new (a metadata test's files and directories,
//! a count of clients) add a field here: [`RowKey::of`] is the one place that says
//! where each field comes from (the figure, or its run's parameters), and
//! [`RowKey::pooled`] the one that lets a reader pool rows across it. Readers name the
//! fields they show, so a new field changes none that does not show it.

use std::collections::BTreeMap;

use serde::Serialize;

use super::{CacheMode, EngineKind, Measurement, Params, TestKind};
use crate::units::ByteSize;

/// What a figure is a row of: its test, file and record size, the way its I/O went
/// (cache mode, engine, queue depth), its workers and its clients. Ordered (and serialized) in that
/// order, as a comparison's rows and a trend's series are; a run lists its own rows in
/// [`RowKey::list_order`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct RowKey {
    pub test: TestKind,
    pub file_size: ByteSize,
    pub record_size: ByteSize,
    pub cache: CacheMode,
    pub engine: EngineKind,
    /// Operations each worker kept in flight: the whole run's.
    pub iodepth: u32,
    /// Workers: the whole run's.
    pub threads: u32,
    /// Clients that measured together (MPI ranks): the whole run's, 1 for most.
    pub clients: u32,
}

/// Parts of a row key to pool rows across: a comparison's `--ignore-param`, a chart's
/// line, which runs along the record sizes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct KeyParts {
    pub test: bool,
    pub file_size: bool,
    pub record_size: bool,
    pub cache: bool,
    pub engine: bool,
    pub iodepth: bool,
    pub threads: bool,
    pub clients: bool,
}

impl RowKey {
    /// The row of `m`, a figure of a run with `params`.
    pub fn of(params: &Params, m: &Measurement) -> RowKey {
        RowKey {
            test: m.test,
            file_size: m.file_size,
            record_size: m.record_size,
            cache: m.cache,
            engine: m.engine,
            iodepth: params.iodepth,
            threads: params.threads,
            clients: params.clients,
        }
    }

    /// The order a run lists its rows in, whatever order they were measured in (as
    /// [`Measurement::list_order`]): by file size, record size, engine, cache mode,
    /// then test. A sort key, not a key.
    pub fn list_order(&self) -> (ByteSize, ByteSize, EngineKind, CacheMode, TestKind) {
        (
            self.file_size,
            self.record_size,
            self.engine,
            self.cache,
            self.test,
        )
    }

    /// The key with `parts` set to one value each, so that rows that differ only there
    /// fall together. What a pooled part held is gone: show it from elsewhere, or not.
    pub fn pooled(self, parts: KeyParts) -> RowKey {
        fn pool<T>(pooled: bool, value: T, one: T) -> T {
            if pooled { one } else { value }
        }
        RowKey {
            test: pool(parts.test, self.test, TestKind::ALL[0]),
            file_size: pool(parts.file_size, self.file_size, ByteSize(0)),
            record_size: pool(parts.record_size, self.record_size, ByteSize(0)),
            cache: pool(parts.cache, self.cache, CacheMode::default()),
            engine: pool(parts.engine, self.engine, EngineKind::default()),
            iodepth: pool(parts.iodepth, self.iodepth, 0),
            threads: pool(parts.threads, self.threads, 0),
            clients: pool(parts.clients, self.clients, 0),
        }
    }
}

/// The measured figures of a run with `params` by row, each row's in the order
/// `results` gives them: the one grouping every reader of a run's rows starts from.
pub fn by_row<'a>(
    params: &Params,
    results: &'a [Measurement],
) -> BTreeMap<RowKey, Vec<&'a Measurement>> {
    let mut rows: BTreeMap<RowKey, Vec<&Measurement>> = BTreeMap::new();
    for m in results {
        rows.entry(RowKey::of(params, m)).or_default().push(m);
    }
    rows
}

/// The throughputs of a row's figures, in their order.
pub fn throughputs(figures: &[&Measurement]) -> Vec<f64> {
    figures.iter().map(|m| m.throughput).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn figure(test: TestKind, record: u64, engine: EngineKind, repetition: u32) -> Measurement {
        Measurement {
            test,
            file_size: ByteSize(1 << 20),
            record_size: ByteSize(record),
            repetition,
            bytes: 1 << 20,
            elapsed_ns: 1,
            throughput: f64::from(repetition),
            latency_ns: None,
            engine,
            cache: CacheMode::Flush,
        }
    }

    #[test]
    fn a_runs_rows_hold_its_figures_in_their_order_with_its_depth_and_workers() {
        let params = Params {
            iodepth: 4,
            threads: 2,
            ..Params::default()
        };
        let results = [
            figure(TestKind::Read, 4096, EngineKind::Pread, 1),
            figure(TestKind::Write, 4096, EngineKind::Posix, 2),
            figure(TestKind::Read, 4096, EngineKind::Pread, 3),
            figure(TestKind::Write, 4096, EngineKind::Posix, 1),
        ];
        let rows = by_row(&params, &results);
        let keys: Vec<(TestKind, EngineKind, u32, u32)> = rows
            .keys()
            .map(|k| (k.test, k.engine, k.iodepth, k.threads))
            .collect();
        assert_eq!(
            keys,
            [
                (TestKind::Write, EngineKind::Posix, 4, 2),
                (TestKind::Read, EngineKind::Pread, 4, 2)
            ]
        );
        let reps = |k: &RowKey| throughputs(&rows[k]);
        assert_eq!(
            rows.keys().map(reps).collect::<Vec<_>>(),
            [[2.0, 1.0], [1.0, 3.0]]
        );
    }

    #[test]
    fn pooled_keys_fall_together_and_keep_the_rest() {
        let params = Params::default();
        let posix = RowKey::of(
            &params,
            &figure(TestKind::Write, 4096, EngineKind::Posix, 1),
        );
        let mmap = RowKey::of(&params, &figure(TestKind::Read, 8192, EngineKind::Mmap, 1));
        let line = KeyParts {
            test: true,
            record_size: true,
            ..KeyParts::default()
        };
        assert_ne!(posix.pooled(line), mmap.pooled(line));
        let across = KeyParts {
            engine: true,
            ..line
        };
        assert_eq!(posix.pooled(across), mmap.pooled(across));
        assert_eq!(posix.pooled(across).file_size, posix.file_size);
        assert_eq!(posix.pooled(KeyParts::default()), posix);
    }

    #[test]
    fn a_run_lists_its_rows_by_size_then_engine_then_cache_then_test() {
        let params = Params::default();
        let mut keys = [
            RowKey::of(
                &params,
                &figure(TestKind::Write, 8192, EngineKind::Posix, 1),
            ),
            RowKey::of(&params, &figure(TestKind::Read, 4096, EngineKind::Pread, 1)),
            RowKey::of(
                &params,
                &figure(TestKind::Write, 4096, EngineKind::Pread, 1),
            ),
            RowKey::of(&params, &figure(TestKind::Read, 4096, EngineKind::Posix, 1)),
        ];
        keys.sort_by_key(RowKey::list_order);
        let listed: Vec<(u64, EngineKind, TestKind)> = keys
            .iter()
            .map(|k| (k.record_size.bytes(), k.engine, k.test))
            .collect();
        assert_eq!(
            listed,
            [
                (4096, EngineKind::Posix, TestKind::Read),
                (4096, EngineKind::Pread, TestKind::Write),
                (4096, EngineKind::Pread, TestKind::Read),
                (8192, EngineKind::Posix, TestKind::Write),
            ]
        );
    }
}
