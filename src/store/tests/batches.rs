//! A stream of runs stored a batch at a time in one transaction (`save_batches`): all
//! of it once the source ends, none of it when the source gives up half-way, and
//! nothing visible to others before the end; runs too large to hold passed in parts
//! among them.

use super::*;

on_every_backend!(
    batches_commit_together_and_skip_known_runs,
    an_abandoned_stream_leaves_nothing,
    runs_in_parts_are_stored_as_whole_runs_are,
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

/// Runs of one figure per key, each opened, given its figures in parts (the two runs'
/// parts interleaved, as iozone3's table gives them) and closed, then the end.
fn in_parts(runs: &[Run]) -> impl FnMut() -> Batch {
    let bare = |run: &Run| {
        Box::new(Run {
            results: Vec::new(),
            ..run.clone()
        })
    };
    let mut all = Vec::new();
    for (slot, run) in runs.iter().enumerate() {
        let run = bare(run);
        all.push(Batch::Part(RunPart::Open { slot, run }));
    }
    for half in 0..2 {
        for (slot, run) in runs.iter().enumerate() {
            let size = run.results.len().div_ceil(2);
            let results = run.results.chunks(size).nth(half).unwrap_or(&[]).to_vec();
            all.push(Batch::Part(RunPart::Figures { slot, results }));
        }
    }
    for (slot, run) in runs.iter().enumerate() {
        let run = bare(run);
        all.push(Batch::Part(RunPart::Close { slot, run }));
    }
    all.push(Batch::End);
    all.reverse();
    move || all.pop().expect("nothing asked after the end")
}

fn runs_in_parts_are_stored_as_whole_runs_are(backend: &Backend) {
    let mut store = backend.open();
    let runs: Vec<Run> = (0..2)
        .map(|i| {
            let mut run = run_with_20_results(i);
            run.results.retain(|m| m.repetition == 1);
            run
        })
        .collect();
    let before = run_with_20_results(7);
    let mut batches = [Batch::Runs(vec![before.clone()])].into_iter();
    let mut parts = in_parts(&runs);
    let added = store.save_batches(&mut || batches.next().unwrap_or_else(&mut parts));
    assert_eq!(added.unwrap(), Some(3));
    // the same runs saved whole, under other UUIDs, read back the same
    let twins: Vec<Run> = (runs.iter())
        .map(|run| Run {
            uuid: uuid::Uuid::new_v4(),
            ..run.clone()
        })
        .collect();
    assert_eq!(store.save_runs(&twins).unwrap(), 2);
    let listed = store.list_runs(&RunFilter::default()).unwrap();
    let read = |uuid: uuid::Uuid| {
        let id = listed.iter().find(|r| r.uuid == uuid).unwrap().id.unwrap();
        store.load_run(id).unwrap().unwrap()
    };
    for (run, twin) in runs.iter().zip(&twins) {
        let (back, twin_back) = (read(run.uuid), read(twin.uuid));
        assert_eq!(back.results.len(), 10);
        assert_eq!(
            back,
            Run {
                id: back.id,
                uuid: back.uuid,
                ..twin_back
            }
        );
    }
    // passed again, each closes under a UUID already there: nothing of them stays
    let added = store.save_batches(&mut in_parts(&runs));
    assert_eq!(added.unwrap(), Some(0));
    assert_eq!(backend.committed_runs(), 5);
    let report = store.check().unwrap();
    assert_eq!(report.results, 20 + 4 * 10);
    // nor any label or tag of theirs
    assert!(report.problems.is_empty(), "{:?}", report.problems);
}
