//! Per-run summaries: derived when results are written (whole runs, live runs,
//! batches), backfilled by the migration for runs recorded before it, gone with their
//! run and derived again when it is imported again; each checked against one
//! recomputed from the repetitions by `RowSummary::of`, on both backends.

use super::*;

on_every_backend!(
    summaries_match_the_repetitions_through_deletes_and_reimports,
    the_migration_backfills_the_summaries_of_earlier_runs,
    a_fleet_side_reads_summaries_that_hold_each_level_and_the_rest_whole,
);

/// Sorted as [`RowSummary::of`] returns them.
pub(super) fn sorted(mut rows: Vec<RowSummary>) -> Vec<RowSummary> {
    rows.sort_by_key(|r| r.key(&Params::default()));
    rows
}

/// Runs whose summaries differ in every way a summary can: odd and even counts, two
/// engines, a zero and an infinite figure, a single repetition, one figure per key (no
/// rows kept), no results at all.
pub(super) fn varied_runs() -> Vec<Run> {
    let mut runs = Vec::new();
    for i in 0..14 {
        let mut run = sample_run(&format!("host{}", i % 3), i);
        match i % 7 {
            0 => {}
            1 => also_through(&mut run, EngineKind::Mmap, 1.7),
            // four repetitions: the median is the mean of the middle two
            2 => {
                let mut fourth = run.results[0].clone();
                fourth.repetition = 4;
                fourth.throughput = 3.3e8;
                run.results.push(fourth);
            }
            3 => {
                run.results[0].throughput = 0.0;
                run.results[2].throughput = f64::INFINITY;
            }
            4 => run.results.truncate(2),
            // one figure per key: its own summary, no rows kept
            5 => run.results.retain(|m| m.repetition == 1),
            _ => {
                run.results.clear();
                run.warmup.clear();
            }
        }
        for (k, m) in run.results.iter_mut().enumerate() {
            if m.throughput.is_finite() && m.throughput > 0.0 {
                m.throughput *= 1.0 + (i as f64 * 7.0 + k as f64) / 1000.0;
            }
        }
        runs.push(run);
    }
    runs
}

/// Every recorded run's summaries, against those recomputed from its results.
fn assert_summaries_match(store: &dyn Store) -> usize {
    let ids: Vec<i64> = store
        .list_runs(&RunFilter::default())
        .unwrap()
        .iter()
        .filter_map(|r| r.id)
        .collect();
    let results = store.results_of(&ids, Detail::Full).unwrap();
    let summaries = store.summaries_of(&ids).unwrap();
    for id in &ids {
        assert_eq!(
            sorted(summaries[id].clone()),
            RowSummary::of(&results[id].results),
            "run {id}"
        );
    }
    ids.len()
}

fn summaries_match_the_repetitions_through_deletes_and_reimports(backend: &Backend) {
    let mut store = backend.open();
    let runs = varied_runs();
    store.save_run(&runs[0]).unwrap();
    store.save_runs(&runs[1..8]).unwrap();
    // a live run: begun without results, finished with them
    let id = store.begin_run(&runs[8]).unwrap();
    assert_eq!(store.summaries_of(&[id]).unwrap()[&id], []);
    store.finish_run(id, &runs[8]).unwrap();
    store.save_runs(&runs[9..]).unwrap();
    assert_eq!(assert_summaries_match(&*store), runs.len());
    assert!(!store.summaries_of(&[id]).unwrap()[&id].is_empty());

    // runs deleted take their summaries with them; imported again, they get new ones
    let deleted = [&runs[1], &runs[3], &runs[8]];
    backend.execute(&format!(
        "DELETE FROM {}runs WHERE uuid IN ({})",
        backend.schema(),
        deleted
            .iter()
            .map(|r| format!("'{}'", r.uuid))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    // runs without results, or with one figure per key, keep no summary rows
    let keeping = |runs: &[&Run]| {
        runs.iter()
            .filter(|r| RowSummary::kept_for(&r.results))
            .count()
    };
    let all: Vec<&Run> = runs.iter().collect();
    assert_eq!(backend.summary_runs(), keeping(&all) - keeping(&deleted));
    let again: Vec<Run> = deleted.iter().map(|r| (*r).clone()).collect();
    assert_eq!(store.save_runs(&again).unwrap(), deleted.len());
    assert_eq!(assert_summaries_match(&*store), runs.len());
    assert_eq!(backend.summary_runs(), keeping(&all));
}

fn the_migration_backfills_the_summaries_of_earlier_runs(backend: &Backend) {
    let mut store = backend.open();
    store.save_runs(&varied_runs()).unwrap();
    drop(store);
    // the database as it was before the summaries' steps: the first derives them in
    // SQL, without a run's whole level, which the program then derives again
    let schema = backend.schema();
    backend.execute(&format!("DROP TABLE {schema}run_summaries"));
    // the steps after them are replayed too: what they added goes first
    for (table, column) in [
        ("runs", "meta_files"),
        ("runs", "meta_dirs"),
        ("runs", "meta_file_bytes"),
        ("runs", "meta_shared_dir"),
        ("runs", "meta_random_order"),
        ("runs", "meta_warm"),
        ("results", "ops"),
        ("runs", "clients"),
        ("runs", "client_hosts"),
        ("runs", "shared_file"),
        ("runs", "stonewall"),
        ("runs", "cluster"),
    ] {
        backend.execute(&format!("ALTER TABLE {schema}{table} DROP COLUMN {column}"));
    }
    backend.set_version_back(backend.summaries_step() - 1);
    let store = backend.open();
    assert_eq!(store.check().unwrap().schema_version, backend.latest());
    assert_eq!(assert_summaries_match(&*store), varied_runs().len());
}

fn a_fleet_side_reads_summaries_that_hold_each_level_and_the_rest_whole(backend: &Backend) {
    let mut store = backend.open();
    let mut runs = varied_runs();
    // no positive figure under a key: its level there is no summary's
    let mut idle = sample_run("host9", 99);
    for m in idle.results.iter_mut().filter(|m| m.test == TestKind::Read) {
        m.throughput = 0.0;
    }
    runs.push(idle.clone());
    store.save_runs(&runs).unwrap();
    let selector: crate::selector::Selector = "label:DR9".parse().unwrap();
    let (read, summaries) = crate::store::select_summarized(&*store, &selector).unwrap();
    let whole = crate::store::select_runs(&*store, &selector, Detail::Figures).unwrap();
    let uuids = |runs: &[Run]| runs.iter().map(|r| r.uuid).collect::<Vec<_>>();
    assert_eq!(
        uuids(&read),
        uuids(&whole),
        "the same runs, in the same order"
    );
    let mut as_summaries = 0;
    for (run, whole) in read.iter().zip(&whole) {
        match summaries.get(&run.id.unwrap()) {
            Some(rows) => {
                assert!(run.results.is_empty());
                assert_eq!(sorted(rows.clone()), RowSummary::of(&whole.results));
                assert!(rows.iter().all(|r| r.run_level().is_some()));
                as_summaries += 1;
            }
            None => assert_eq!(run.results, whole.results),
        }
    }
    assert_eq!(as_summaries, runs.len() - 1);
    let idle_read = read.iter().find(|r| r.uuid == idle.uuid).unwrap();
    assert!(!idle_read.results.is_empty(), "read whole");
}
