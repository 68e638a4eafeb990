//! Many runs at once, on both backends: a batch saved once each whatever it repeats,
//! read back whole and by figures; sixteen writers at once losing nothing; and the
//! throughput of `save_runs` (a measurement, ignored by default).

use super::*;

on_every_backend!(
    many_runs_save_at_once_without_duplicates,
    sixteen_writers_lose_nothing,
    #[ignore = "a measurement: cargo test store:: -- --ignored --nocapture"]
    save_runs_throughput,
);

fn many_runs_save_at_once_without_duplicates(backend: &Backend) {
    let mut store = backend.open();
    let runs: Vec<Run> = (0..1200).map(run_with_20_results).collect();
    // one already there, and one given twice: each is added once
    assert!(store.save_run(&runs[7]).unwrap().is_some());
    let mut batch = runs.clone();
    batch.push(runs[3].clone());
    assert_eq!(store.save_runs(&batch).unwrap(), runs.len() - 1);
    assert_eq!(store.save_runs(&batch).unwrap(), 0);
    let report = store.check().unwrap();
    assert_eq!(report.runs, runs.len() as u64);
    assert_eq!(report.results, 20 * runs.len() as u64);
    assert!(report.problems.is_empty(), "{:?}", report.problems);

    let listed = store.list_runs(&RunFilter::default()).unwrap();
    assert_eq!(listed.len(), runs.len());
    assert_eq!(listed[0].uuid, runs[runs.len() - 1].uuid);
    let by_uuid: HashMap<uuid::Uuid, &Run> = runs.iter().map(|r| (r.uuid, r)).collect();
    for run in &listed {
        let original = by_uuid[&run.uuid];
        assert_eq!(run.labels, original.labels);
        assert_eq!(run.tags, original.tags);
    }
    // the results of many runs at once, each in measured order; an unknown id has none
    let ids: Vec<i64> = listed.iter().map(|r| r.id.unwrap()).chain([-1]).collect();
    let results = store.results_of(&ids, Detail::Full).unwrap();
    assert_eq!(results.len(), ids.len());
    assert_eq!(results[&-1], RunResults::default());
    for run in &listed {
        let mut want = by_uuid[&run.uuid].results.clone();
        want.sort_by_key(|m| (m.file_size, m.record_size, m.repetition, m.test));
        assert_eq!(results[&run.id.unwrap()].results, want);
        assert_eq!(
            results[&run.id.unwrap()].warmup.len(),
            by_uuid[&run.uuid].warmup.len()
        );
    }
    assert!(store.results_of(&[], Detail::Full).unwrap().is_empty());
    // figures alone: the same results, with bytes, time and latency unknown
    let figures = store.results_of(&ids, Detail::Figures).unwrap();
    for (id, full) in &results {
        let figures_only = |m: &Measurement| Measurement {
            bytes: 0,
            elapsed_ns: 0,
            latency_ns: None,
            ..m.clone()
        };
        let want: Vec<Measurement> = full.results.iter().map(figures_only).collect();
        assert_eq!(figures[id].results, want);
        assert_eq!(figures[id].warmup.len(), full.warmup.len());
    }
    let labelled = store
        .list_runs(&RunFilter {
            labels: vec!["batch7".into()],
            limit: Some(5),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(labelled.len(), 5);
    assert!(
        labelled
            .windows(2)
            .all(|w| w[0].started_at > w[1].started_at)
    );
    assert!(store.known_uuids(&[]).unwrap().is_empty());
    let uuids: Vec<uuid::Uuid> = runs.iter().map(|r| r.uuid).collect();
    assert_eq!(store.known_uuids(&uuids).unwrap().len(), runs.len());
}

fn sixteen_writers_lose_nothing(backend: &Backend) {
    const RUNS: usize = 4;
    backend.open();
    std::thread::scope(|scope| {
        for writer in 0..16 {
            scope.spawn(move || {
                let mut store = backend.open();
                for i in 0..RUNS {
                    let run = sample_run(&format!("w{writer}"), i as i64);
                    let id = store.begin_run(&run).unwrap();
                    store.finish_run(id, &run).unwrap();
                }
            });
        }
    });
    let store = backend.open();
    let report = store.check().unwrap();
    assert_eq!(report.runs, 16 * RUNS as u64);
    // 6 measured and 2 warm-up results a run
    assert_eq!(report.results, 16 * RUNS as u64 * 8);
    assert_eq!(report.unfinished_runs, 0);
    let all = store.list_runs(&RunFilter::default()).unwrap();
    let results = store
        .results_of(
            &all.iter().map(|r| r.id.unwrap()).collect::<Vec<_>>(),
            Detail::Full,
        )
        .unwrap();
    assert!(
        results
            .values()
            .all(|r| r.results.len() == 6 && r.warmup.len() == 2)
    );
}

/// `save_runs` of 10,000 runs × 20 results, then `list_runs` with limit 50: the
/// figures go to stderr (run with `--ignored --nocapture`).
fn save_runs_throughput(backend: &Backend) {
    const RUNS: usize = 10_000;
    let mut store = backend.open();
    let runs: Vec<Run> = (0..RUNS).map(run_with_20_results).collect();
    let start = Instant::now();
    assert_eq!(store.save_runs(&runs).unwrap(), RUNS);
    let saved = start.elapsed();
    let rate = RUNS as f64 / saved.as_secs_f64();
    eprintln!(
        "{}: save_runs of {RUNS} runs x 20 results: {:.2} s, {rate:.0} runs/s",
        store.location(),
        saved.as_secs_f64()
    );
    let filters = [
        ("newest 50", RunFilter::default()),
        (
            "host 50",
            RunFilter {
                host: Some("host3".into()),
                ..Default::default()
            },
        ),
        (
            "label 50",
            RunFilter {
                labels: vec!["batch42".into()],
                ..Default::default()
            },
        ),
    ];
    for (what, filter) in filters {
        let filter = RunFilter {
            limit: Some(50),
            ..filter
        };
        let start = Instant::now();
        let listed = store.list_runs(&filter).unwrap();
        let took = start.elapsed();
        assert_eq!(listed.len(), 50);
        eprintln!(
            "{}: list_runs {what}: {:.1} ms",
            store.location(),
            took.as_secs_f64() * 1e3
        );
    }
    let ids: Vec<i64> = store
        .list_runs(&RunFilter {
            limit: Some(1000),
            ..Default::default()
        })
        .unwrap()
        .iter()
        .map(|r| r.id.unwrap())
        .collect();
    let start = Instant::now();
    let results = store.results_of(&ids, Detail::Full).unwrap();
    eprintln!(
        "{}: results_of 1000 runs: {:.1} ms",
        store.location(),
        start.elapsed().as_secs_f64() * 1e3
    );
    assert_eq!(
        results.values().map(|r| r.results.len()).sum::<usize>(),
        20_000
    );
    assert!(
        rate >= 2_000.0,
        "{rate:.0} runs/s is below the 2,000 runs/s target"
    );
}
