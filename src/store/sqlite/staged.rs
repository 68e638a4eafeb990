//! The figures of runs passed in parts (a large iozone3 output's), set aside until their
//! run closes, then inserted a (warmup, test) group at a time in the results table's key
//! order. A text lists its figures a row of its table at a time, every test of a file
//! and record size together, while the table is keyed by test first: inserted as they
//! come, each figure lands inside the table's B-tree and SQLite descends to it from the
//! root, some fifteen key comparisons a figure and a third of an import's time. Inserted
//! group by group once their run closes, every figure appends to the table's end, where
//! SQLite compares it with the last key alone. The figures wait in a temporary file
//! beside the database, so that an import of any size holds one part in memory.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use crate::model::{CacheMode, EngineKind, Latency, Measurement, Run, TestKind};
use crate::units::ByteSize;

use super::key_order;

/// Figures of runs passed in parts, by their run's number, until each closes.
pub(super) struct Staged {
    /// Where the temporary file goes: the database's directory.
    dir: PathBuf,
    /// Created with the first figures; deleted when dropped.
    file: Option<File>,
    /// Bytes written to the file so far: where the next part goes.
    end: u64,
    /// Each open run's parts, by its number.
    runs: HashMap<usize, Vec<Part>>,
    /// The engines named in the file, by their number there.
    engines: Vec<EngineKind>,
    /// The text of the part being written, kept for the next one.
    text: Vec<u8>,
}

/// One part's figures in the file: its groups one after the other, each in key order.
struct Part {
    offset: u64,
    /// Each group's rank ([`key_order::Group`]), figures and bytes, in order.
    groups: Vec<(usize, usize, usize)>,
}

/// The figures of a closed run's group: each rank in turn, the figures of that group of
/// each of its parts in the order they came.
pub(super) struct Figures {
    rank: usize,
    figures: Vec<Measurement>,
}

impl Figures {
    /// Whether these are warm-up rounds' figures.
    pub(super) fn warmup(&self) -> bool {
        key_order::is_warmup(self.rank)
    }

    pub(super) fn figures(&self) -> &[Measurement] {
        &self.figures
    }
}

/// What setting figures aside failed at: the temporary file, or its text.
#[derive(Debug, thiserror::Error)]
pub enum StageError {
    #[error("cannot set an import's figures aside in {dir}: {source}")]
    File { dir: PathBuf, source: io::Error },
    /// A figure's engine is a byte in the file: 256 engines in one import at most (a
    /// text names one or a handful).
    #[error("an import naming more than 256 engines cannot be set aside")]
    Engines,
}

impl StageError {
    fn file(dir: &Path, source: io::Error) -> StageError {
        StageError::File {
            dir: dir.to_path_buf(),
            source,
        }
    }
}

impl Staged {
    /// Nothing set aside yet; figures will wait in a temporary file in the directory of
    /// the database `db`.
    pub(super) fn beside(db: &Path) -> Staged {
        let dir = match db.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
            _ => PathBuf::from("."),
        };
        Staged {
            dir,
            file: None,
            end: 0,
            runs: HashMap::new(),
            engines: Vec::new(),
            text: Vec::new(),
        }
    }

    /// Sets `results`, figures of open run `slot`, aside.
    pub(super) fn add(&mut self, slot: usize, results: Vec<Measurement>) -> Result<(), StageError> {
        let run = Run {
            results,
            ..Run::default()
        };
        self.text.clear();
        let mut groups = Vec::new();
        for group in key_order::in_key_order(&run) {
            let start = self.text.len();
            // whether they are warm-up rounds' figures is the group's rank's to say
            for &(_, m) in &group.rows {
                let engine = self.engine_number(m.engine)?;
                put(m, engine, &mut self.text);
            }
            groups.push((group.rank, group.rows.len(), self.text.len() - start));
        }
        let offset = self.end;
        self.open_file()?;
        let file = self.file.as_mut().expect("just opened");
        let written = file.write_all(&self.text);
        written.map_err(|source| StageError::file(&self.dir, source))?;
        self.end += self.text.len() as u64;
        self.runs
            .entry(slot)
            .or_default()
            .push(Part { offset, groups });
        Ok(())
    }

    /// Run `slot`'s figures set aside, group by group in key order: each group read
    /// back and made ready by `prepare` on a thread of its own, then handed to `insert`
    /// on this one. The run's parts are forgotten whatever `insert` returns.
    pub(super) fn take<T: Send, E: From<StageError>>(
        &mut self,
        slot: usize,
        prepare: impl Fn(&Figures) -> T + Sync,
        insert: &mut dyn FnMut(T) -> Result<(), E>,
    ) -> Result<(), E> {
        let parts = self.runs.remove(&slot).unwrap_or_default();
        let Some(file) = &self.file else {
            return Ok(()); // no figures set aside at all
        };
        let mut ranks: Vec<usize> = parts
            .iter()
            .flat_map(|p| p.groups.iter().map(|g| g.0))
            .collect();
        ranks.sort_unstable();
        ranks.dedup();
        let reading = Reading {
            file,
            engines: &self.engines,
            dir: &self.dir,
        };
        std::thread::scope(|scope| {
            // a few groups ahead of the inserts, no more: memory holds a few parts' worth
            let (ready, groups) = std::sync::mpsc::sync_channel(2);
            let prepare = &prepare;
            scope.spawn(move || {
                let mut text = Vec::new();
                for rank in ranks {
                    for part in &parts {
                        let group = match reading.group(part, rank, &mut text) {
                            Ok(Some(figures)) => Ok(prepare(&figures)),
                            Ok(None) => continue,
                            Err(e) => Err(e),
                        };
                        let failed = group.is_err();
                        // sent nowhere: the inserts stopped, at an error of theirs
                        if ready.send(group).is_err() || failed {
                            return;
                        }
                    }
                }
            });
            for group in groups {
                insert(group?)?;
            }
            Ok(())
        })
    }

    /// Forgets run `slot`'s figures: its run was recorded before.
    pub(super) fn drop_run(&mut self, slot: usize) {
        self.runs.remove(&slot);
    }

    /// Makes the temporary file, unless it is made already.
    fn open_file(&mut self) -> Result<(), StageError> {
        if self.file.is_none() {
            let made = tempfile::tempfile_in(&self.dir);
            self.file = Some(made.map_err(|source| StageError::file(&self.dir, source))?);
        }
        Ok(())
    }

    /// `engine`'s number in the file.
    fn engine_number(&mut self, engine: EngineKind) -> Result<u8, StageError> {
        let number = match self.engines.iter().position(|&e| e == engine) {
            Some(number) => number,
            None => {
                self.engines.push(engine);
                self.engines.len() - 1
            }
        };
        u8::try_from(number).map_err(|_| StageError::Engines)
    }
}

/// What reading figures back needs: the file, the engines it numbers, and its place.
#[derive(Clone, Copy)]
struct Reading<'s> {
    file: &'s File,
    engines: &'s [EngineKind],
    dir: &'s Path,
}

impl Reading<'_> {
    /// The figures of `part`'s group of `rank`, if it has one, read through `text`.
    fn group(
        &self,
        part: &Part,
        rank: usize,
        text: &mut Vec<u8>,
    ) -> Result<Option<Figures>, StageError> {
        let mut offset = part.offset;
        for &(r, count, bytes) in &part.groups {
            if r == rank {
                text.resize(bytes, 0);
                let read = self.file.read_exact_at(text, offset);
                read.map_err(|source| StageError::file(self.dir, source))?;
                let mut rest = &text[..];
                let figures = (0..count).map(|_| take(&mut rest, self.engines));
                let figures = figures.collect();
                return Ok(Some(Figures { rank, figures }));
            }
            offset += bytes as u64;
        }
        Ok(None)
    }
}

/// Writes `m` (its engine numbered `engine`) to `text`: what it holds at fixed widths,
/// its latency and operations when it has them.
fn put(m: &Measurement, engine: u8, text: &mut Vec<u8>) {
    let flags = u8::from(m.latency_ns.is_some()) | u8::from(m.ops.is_some()) << 1;
    text.extend_from_slice(&[flags, m.test as u8, engine, m.cache as u8]);
    text.extend_from_slice(&m.repetition.to_le_bytes());
    let fixed = [
        m.file_size.bytes(),
        m.record_size.bytes(),
        m.bytes,
        m.elapsed_ns,
        m.throughput.to_bits(),
    ];
    for value in fixed {
        text.extend_from_slice(&value.to_le_bytes());
    }
    if let Some(l) = &m.latency_ns {
        for value in [l.p50, l.p99, l.p999, l.max, l.samples] {
            text.extend_from_slice(&value.to_le_bytes());
        }
    }
    if let Some(ops) = m.ops {
        text.extend_from_slice(&ops.to_le_bytes());
    }
}

/// The figure [`put`] wrote at the start of `text`, which is left after it.
fn take(text: &mut &[u8], engines: &[EngineKind]) -> Measurement {
    let [flags, test, engine, cache] = bytes(text);
    let repetition = u32::from_le_bytes(bytes(text));
    let mut number = || u64::from_le_bytes(bytes(text));
    let (file_size, record_size, bytes_moved) = (number(), number(), number());
    let (elapsed_ns, throughput) = (number(), f64::from_bits(number()));
    let latency_ns = (flags & 1 != 0).then(|| {
        Box::new(Latency {
            p50: number(),
            p99: number(),
            p999: number(),
            max: number(),
            samples: number(),
        })
    });
    let ops = (flags & 2 != 0).then(&mut number);
    Measurement {
        test: TestKind::ALL[usize::from(test)],
        file_size: ByteSize(file_size),
        record_size: ByteSize(record_size),
        repetition,
        bytes: bytes_moved,
        elapsed_ns,
        throughput,
        latency_ns,
        engine: engines[usize::from(engine)],
        cache: CacheMode::ALL[usize::from(cache)],
        ops,
    }
}

/// The first `N` bytes of `text`, which is left after them.
fn bytes<const N: usize>(text: &mut &[u8]) -> [u8; N] {
    let (head, rest) = text.split_first_chunk().expect("a whole figure");
    *text = rest;
    *head
}

#[cfg(test)]
mod tests {
    use super::*;

    fn figure(test: TestKind, file_size: u64, engine: EngineKind) -> Measurement {
        Measurement {
            test,
            file_size: ByteSize(file_size),
            record_size: ByteSize(4096),
            repetition: 3,
            bytes: file_size.wrapping_mul(2),
            elapsed_ns: 17,
            throughput: -0.0,
            latency_ns: None,
            engine,
            cache: CacheMode::Direct,
            ops: None,
        }
    }

    /// Every field comes back as it went, with latency and operations or without,
    /// another tool's engine among ours, and numbers at their extremes.
    #[test]
    fn a_figure_comes_back_as_it_was_set_aside() {
        let mut with_all = figure(TestKind::Rmdir, u64::MAX, EngineKind::Uring);
        with_all.latency_ns = Some(Box::new(Latency {
            p50: 1,
            p99: 2,
            p999: 3,
            max: u64::MAX,
            samples: 5,
        }));
        with_all.ops = Some(0);
        with_all.throughput = f64::NAN;
        let mut with_ops = figure(TestKind::Create, 0, EngineKind::Posix);
        with_ops.ops = Some(u64::MAX);
        with_ops.cache = CacheMode::Sync;
        let other = figure(TestKind::Write, 1, EngineKind::named("libaio").unwrap());
        let engines = [EngineKind::Uring, EngineKind::Posix, other.engine];
        for (number, m) in [with_all, with_ops, other].iter().enumerate() {
            let mut text = Vec::new();
            put(m, number as u8, &mut text);
            let mut rest = &text[..];
            let back = take(&mut rest, &engines);
            assert!(rest.is_empty());
            assert_eq!(format!("{back:?}"), format!("{m:?}"));
            assert_eq!(back.throughput.to_bits(), m.throughput.to_bits());
        }
    }

    /// Parts of two runs, each listing its figures row by row (every test of a size
    /// together), come back a group at a time in key order, each group's figures in
    /// the order they came, and a run's figures once only.
    #[test]
    fn runs_come_back_group_by_group_in_key_order() {
        let dir = tempfile::tempdir().unwrap();
        let mut staged = Staged::beside(&dir.path().join("h.db"));
        let row = |size| {
            vec![
                figure(TestKind::Write, size, EngineKind::Posix),
                figure(TestKind::Read, size, EngineKind::Posix),
            ]
        };
        staged.add(0, row(1)).unwrap();
        staged
            .add(1, vec![figure(TestKind::Write, 9, EngineKind::Stdio)])
            .unwrap();
        staged.add(0, row(2)).unwrap();
        staged.add(0, row(3)).unwrap();
        assert_eq!(
            taken(&mut staged, 0),
            [
                ("read", 1),
                ("read", 2),
                ("read", 3),
                ("write", 1),
                ("write", 2),
                ("write", 3)
            ]
        );
        assert_eq!(taken(&mut staged, 0), [], "taken once");
        staged.drop_run(1);
        assert_eq!(taken(&mut staged, 1), [], "dropped");
    }

    /// 256 engines fit a figure's byte; the 257th is refused, not wrapped round.
    #[test]
    fn an_import_of_more_engines_than_a_byte_numbers_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let mut staged = Staged::beside(&dir.path().join("h.db"));
        let engine = |i: usize| EngineKind::named(&format!("e{i}")).unwrap();
        for i in 0..256 {
            staged
                .add(0, vec![figure(TestKind::Write, 1, engine(i))])
                .unwrap();
        }
        let refused = staged.add(0, vec![figure(TestKind::Write, 1, engine(256))]);
        assert!(matches!(refused, Err(StageError::Engines)), "{refused:?}");
        let again = staged.add(0, vec![figure(TestKind::Write, 1, engine(255))]);
        assert!(again.is_ok());
    }

    /// Run `slot`'s figures, (test, file size) each, as `take` hands them over.
    fn taken(staged: &mut Staged, slot: usize) -> Vec<(&'static str, u64)> {
        let prepare = |f: &Figures| {
            assert!(!f.warmup());
            let each = f.figures().iter().map(|m| (m.test.name(), m.file_size.0));
            each.collect::<Vec<_>>()
        };
        let mut seen = Vec::new();
        let mut insert = |group: Vec<_>| -> Result<(), StageError> {
            seen.extend(group);
            Ok(())
        };
        staged.take(slot, prepare, &mut insert).unwrap();
        seen
    }
}
