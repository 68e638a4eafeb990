//! The order a run's results are inserted in. The results table is keyed (WITHOUT
//! ROWID) by (run_id, warmup, test, file_size, record_size, repetition, engine, cache);
//! rows inserted in that order append to its B-tree instead of splitting pages all over
//! it, which makes an import of millions of figures several times faster. Text keys
//! (test, engine, cache) sort as SQLite's BINARY collation sorts their names.

use crate::model::{CacheMode, EngineKind, Measurement, Run, TestKind};

/// A result to insert: whether it is a warm-up round's, and the figure.
pub type Insert<'a> = (bool, &'a Measurement);

/// A group of results to insert: one (warmup, test) each, its figures in key order.
pub struct Group<'a> {
    /// Where the group's rows fall among every group's, whatever the run: groups of
    /// several runs' figures are inserted in the order of their ranks.
    pub rank: usize,
    pub rows: Vec<Insert<'a>>,
}

/// The first rank of the warm-up rounds' groups: the measured figures' tests come first.
const WARMUP_RANKS: usize = TestKind::ALL.len();

/// Whether the group of `rank` holds warm-up rounds' figures.
pub fn is_warmup(rank: usize) -> bool {
    rank >= WARMUP_RANKS
}

/// The run's results and warm-up results in the table's key order, as groups of one
/// (warmup, test) each, in key order. Every source lists a test's figures by file size,
/// record size, repetition, engine and cache already (ours in `list_order`, iozone3 row
/// by row), so each group is only checked in one pass and sorted when it is not: a
/// run's order costs linear time, with no comparison of figures scattered in memory.
pub fn in_key_order(run: &Run) -> Vec<Group<'_>> {
    let tests = text_order(&TestKind::ALL, TestKind::name);
    let engines = engines_by_name(run);
    let caches = text_order(&CacheMode::ALL, CacheMode::name);
    let mut groups: Vec<Vec<Insert>> = vec![Vec::new(); 2 * WARMUP_RANKS];
    let measured = run.results.iter().map(|m| (false, m));
    for (warmup, m) in measured.chain(run.warmup.iter().map(|m| (true, m))) {
        let group = usize::from(warmup) * WARMUP_RANKS + tests[m.test as usize];
        groups[group].push((warmup, m));
    }
    let rest = |&(_, m): &Insert| {
        let engine = engines.iter().position(|&e| e == m.engine);
        let cache = caches[m.cache as usize];
        (m.file_size, m.record_size, m.repetition, engine, cache)
    };
    for group in &mut groups {
        if !group.is_sorted_by_key(rest) {
            group.sort_unstable_by_key(rest);
        }
    }
    let groups = groups.into_iter().enumerate();
    let groups = groups.filter(|(_, rows)| !rows.is_empty());
    groups.map(|(rank, rows)| Group { rank, rows }).collect()
}

/// The run's engines as their names sort as text. An engine is a name, ours or
/// another tool's, so the ranks are the run's own: a handful, found in one pass.
fn engines_by_name(run: &Run) -> Vec<EngineKind> {
    let all = run.results.iter().chain(&run.warmup).map(|m| m.engine);
    let mut engines = crate::model::first_seen(all);
    engines.sort_unstable_by_key(|e| e.name());
    engines
}

/// Where each of `all` (indexed by its discriminant) falls when their names are sorted
/// as text: the order SQLite keeps a text key in, without comparing text in a sort.
fn text_order<T: Copy>(all: &[T], name: fn(T) -> &'static str) -> Vec<usize> {
    let mut by_name: Vec<(usize, &str)> =
        all.iter().enumerate().map(|(i, &v)| (i, name(v))).collect();
    by_name.sort_by_key(|&(_, name)| name);
    let mut ranks = vec![0; all.len()];
    for (rank, (i, _)) in by_name.into_iter().enumerate() {
        ranks[i] = rank;
    }
    ranks
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::ByteSize;

    /// The ranks are looked up by discriminant: they must order the values as their
    /// names order as text, or inserts would go back to splitting pages.
    #[test]
    fn text_order_ranks_each_value_by_its_name() {
        fn check<T: Copy>(all: &[T], name: fn(T) -> &'static str, index: fn(T) -> usize) {
            let ranks = text_order(all, name);
            for &a in all {
                for &b in all {
                    let by_rank = ranks[index(a)].cmp(&ranks[index(b)]);
                    assert_eq!(by_rank, name(a).cmp(name(b)), "{} {}", name(a), name(b));
                }
            }
        }
        check(&TestKind::ALL, TestKind::name, |t| t as usize);
        check(&CacheMode::ALL, CacheMode::name, |c| c as usize);
    }

    fn figure(test: TestKind, file_size: u64, engine: EngineKind) -> Measurement {
        Measurement {
            test,
            file_size: ByteSize(file_size),
            record_size: ByteSize(4096),
            repetition: 1,
            bytes: file_size,
            elapsed_ns: 1,
            throughput: 1.0,
            latency_ns: None,
            engine,
            cache: CacheMode::Flush,
            ops: None,
        }
    }

    /// In order or not, the rows come out as SQLite orders the key: warm-up last,
    /// tests by name, then sizes, then engines by name, another tool's among ours.
    #[test]
    fn rows_come_out_in_the_tables_key_order() {
        let run = Run {
            results: vec![
                figure(TestKind::Write, 2, EngineKind::Posix),
                figure(TestKind::Read, 2, EngineKind::Posix),
                figure(TestKind::Write, 1, EngineKind::Pread),
                figure(TestKind::Write, 1, EngineKind::Mmap),
                figure(TestKind::Write, 1, EngineKind::named("libaio").unwrap()),
            ],
            warmup: vec![figure(TestKind::Read, 1, EngineKind::Posix)],
            ..Run::default()
        };
        let flat: Vec<(bool, &str, u64, &str)> = in_key_order(&run)
            .into_iter()
            .flat_map(|g| g.rows)
            .map(|(w, m)| (w, m.test.name(), m.file_size.0, m.engine.name()))
            .collect();
        assert_eq!(
            flat,
            [
                (false, "read", 2, "posix"),
                (false, "write", 1, "libaio"),
                (false, "write", 1, "mmap"),
                (false, "write", 1, "pread"),
                (false, "write", 2, "posix"),
                (true, "read", 1, "posix"),
            ]
        );
    }
}
