//! A stream of runs stored a batch at a time in one transaction (`save_batches`): all
//! of it once the source ends, none of it when the source gives up half-way, and
//! nothing visible to others before the end.

use super::*;

on_every_backend!(
    batches_commit_together_and_skip_known_runs,
    an_abandoned_stream_leaves_nothing,
);

/// The runs in batches of `size`, then the end; `each` is called before each batch.
fn batches(runs: &[Run], size: usize, mut each: impl FnMut(usize)) -> impl FnMut() -> Batch {
    let mut chunks: Vec<Vec<Run>> = runs.chunks(size).map(<[Run]>::to_vec).collect();
    chunks.reverse();
    let mut given = 0;
    move || match chunks.pop() {
        Some(chunk) => {
            each(given);
            given += 1;
            Batch::Runs(chunk)
        }
        None => Batch::End,
    }
}

fn batches_commit_together_and_skip_known_runs(backend: &Backend) {
    let mut store = backend.open();
    let runs: Vec<Run> = (0..1200).map(run_with_20_results).collect();
    assert!(store.save_run(&runs[7]).unwrap().is_some());
    // one already there, one given again in a later batch: each is added once
    let mut stream = runs.clone();
    stream.push(runs[3].clone());
    let mut seen_outside = Vec::new();
    let added = store
        .save_batches(&mut batches(&stream, 500, |given| {
            seen_outside.push((given, backend.committed_runs()))
        }))
        .unwrap();
    assert_eq!(added, Some(runs.len() - 1));
    // until the end, others saw only the run saved before
    assert_eq!(seen_outside, [(0, 1), (1, 1), (2, 1)]);
    assert_eq!(backend.committed_runs(), runs.len());
    let report = store.check().unwrap();
    assert_eq!(report.results, 20 * runs.len() as u64);
    assert!(report.problems.is_empty(), "{:?}", report.problems);
    // the same stream again adds nothing; an empty one neither
    let added = store.save_batches(&mut batches(&stream, 500, |_| {}));
    assert_eq!(added.unwrap(), Some(0));
    assert_eq!(store.save_batches(&mut || Batch::End).unwrap(), Some(0));
    let listed = store.list_runs(&RunFilter::default()).unwrap();
    assert_eq!(listed.len(), runs.len());
    let back = store.load_run(listed[0].id.unwrap()).unwrap().unwrap();
    assert_eq!(back.uuid, runs[runs.len() - 1].uuid);
    assert_eq!(back.results.len(), 20);
}

fn an_abandoned_stream_leaves_nothing(backend: &Backend) {
    let mut store = backend.open();
    let runs: Vec<Run> = (0..1100).map(run_with_20_results).collect();
    let mut good = batches(&runs, 500, |_| {});
    let mut given = 0;
    let mut failing = || {
        given += 1;
        match given {
            // two batches stored, then the source fails
            1 | 2 => good(),
            _ => Batch::Abandon,
        }
    };
    assert_eq!(store.save_batches(&mut failing).unwrap(), None);
    assert_eq!(backend.committed_runs(), 0);
    assert_eq!(store.check().unwrap().results, 0);
    // a source that fails before its first batch opens nothing
    assert_eq!(store.save_batches(&mut || Batch::Abandon).unwrap(), None);
    // the store goes on: the whole stream again is stored whole
    let added = store.save_batches(&mut batches(&runs, 500, |_| {}));
    assert_eq!(added.unwrap(), Some(runs.len()));
    assert_eq!(backend.committed_runs(), runs.len());
}
