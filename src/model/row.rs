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
use serde::ser::SerializeStruct;

use super::{CacheMode, EngineKind, Measurement, Params, RateKind, TestKind};
use crate::units::ByteSize;

/// What a figure is a row of: its test, file and record size, the way its I/O went
/// (cache mode, engine, queue depth), its workers, its clients, and for a metadata test
/// the tree it went over (files per directory, directories, bytes per file; 0 for
/// every other test, whose file and record sizes a metadata test has as 0, so the two
/// families' rows never mix). Ordered (and serialized) in that order, as a comparison's
/// rows and a trend's series are; a run lists its own rows in [`RowKey::list_order`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
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
    /// A metadata test's entries per directory: the whole run's (0 for other tests).
    pub files: u64,
    /// A metadata test's directories: the whole run's (0 for other tests).
    pub dirs: u64,
    /// A metadata test's bytes per file: the whole run's (0 for other tests).
    pub file_bytes: u64,
}

/// Its fields in order; a metadata test's tree and its unit (`"rate_unit": "ops/s"`)
/// only in a metadata test's row, so every other row reads as it always did.
impl Serialize for RowKey {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("RowKey", 12)?;
        s.serialize_field("test", &self.test)?;
        s.serialize_field("file_size", &self.file_size)?;
        s.serialize_field("record_size", &self.record_size)?;
        s.serialize_field("cache", &self.cache)?;
        s.serialize_field("engine", &self.engine)?;
        s.serialize_field("iodepth", &self.iodepth)?;
        s.serialize_field("threads", &self.threads)?;
        s.serialize_field("clients", &self.clients)?;
        if self.test.is_metadata() {
            s.serialize_field("files", &self.files)?;
            s.serialize_field("dirs", &self.dirs)?;
            s.serialize_field("file_bytes", &self.file_bytes)?;
            s.serialize_field("rate_unit", "ops/s")?;
        }
        s.end()
    }
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
    /// A metadata test's tree: its files, directories and bytes per file together.
    pub tree: bool,
}

impl RowKey {
    /// The row of `m`, a figure of a run with `params`.
    pub fn of(params: &Params, m: &Measurement) -> RowKey {
        RowKey::in_run(
            params,
            (m.test, m.file_size, m.record_size, m.engine, m.cache),
        )
    }

    /// The row of a figure stating `(test, file_size, record_size, engine, cache)`, of
    /// a run with `params`: what the figure states, and the rest from the run.
    pub fn in_run(
        params: &Params,
        (test, file_size, record_size, engine, cache): (
            TestKind,
            ByteSize,
            ByteSize,
            EngineKind,
            CacheMode,
        ),
    ) -> RowKey {
        let tree = match test.is_metadata() {
            true => params.metadata.unwrap_or_default(),
            false => Default::default(),
        };
        RowKey {
            test,
            file_size,
            record_size,
            cache,
            engine,
            iodepth: params.iodepth,
            threads: params.threads,
            clients: params.clients,
            files: tree.files,
            dirs: tree.dirs,
            file_bytes: tree.file_bytes,
        }
    }

    /// What the row's figures count per second: the one question a renderer asks
    /// before it formats a rate (`--units` applies to bytes only).
    pub fn rate_kind(&self) -> RateKind {
        self.test.rate_kind()
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
            files: pool(parts.tree, self.files, 0),
            dirs: pool(parts.tree, self.dirs, 0),
            file_bytes: pool(parts.tree, self.file_bytes, 0),
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
    use crate::model::MetadataTree;

    fn figure(test: TestKind, record: u64, engine: EngineKind, repetition: u32) -> Measurement {
        let throughput = f64::from(repetition);
        Measurement {
            engine,
            ..crate::model::test_figure(test, record, repetition, throughput)
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
    fn metadata_rows_are_keyed_by_their_tree_and_never_mix_with_throughput_rows() {
        let tree = |files| MetadataTree {
            files,
            dirs: 4,
            file_bytes: 0,
            shared_dir: false,
            random_order: false,
            warm: false,
        };
        let params = Params {
            threads: 2,
            metadata: Some(tree(100)),
            ..Params::default()
        };
        let mut create = figure(TestKind::Create, 0, EngineKind::Posix, 1);
        create.file_size = ByteSize(0);
        let write = figure(TestKind::Write, 4096, EngineKind::Posix, 1);
        let (create_key, write_key) = (RowKey::of(&params, &create), RowKey::of(&params, &write));
        assert_eq!(
            (create_key.files, create_key.dirs, create_key.threads),
            (100, 4, 2)
        );
        // a throughput row of the same run carries no tree
        assert_eq!((write_key.files, write_key.dirs), (0, 0));
        assert_eq!(create_key.rate_kind(), RateKind::Ops);
        assert_eq!(write_key.rate_kind(), RateKind::Bytes);
        // another tree is another row, unless the tree is pooled
        let bigger = Params {
            metadata: Some(tree(1000)),
            ..params.clone()
        };
        let other = RowKey::of(&bigger, &create);
        assert_ne!(other, create_key);
        let across = KeyParts {
            tree: true,
            ..KeyParts::default()
        };
        assert_eq!(other.pooled(across), create_key.pooled(across));
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
