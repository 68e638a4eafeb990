//! What goes in comes back: saved and live runs, filters, references, batches,
//! instants and concurrent writers, on both backends.

use super::*;

on_every_backend!(
    a_saved_run_comes_back_unchanged,
    a_live_run_is_running_until_finished,
    a_spooled_run_replaces_the_empty_record_of_its_failed_write,
    filters_narrow_and_order_newest_first,
    references_resolve_to_one_run,
    selectors_say_which_runs_are_not_complete,
    many_runs_save_at_once_without_duplicates,
    instants_keep_the_backends_precision,
    sixteen_writers_lose_nothing,
    a_value_iozone_never_wrote_is_an_error_naming_its_column,
    another_tools_engine_comes_back_under_its_own_name,
    #[ignore = "a measurement: cargo test store:: -- --ignored --nocapture"]
    save_runs_throughput,
);

/// Text read is borrowed from the driver's row until decoded: what cannot be decoded
/// is still an error naming its column, whatever the detail read.
fn a_value_iozone_never_wrote_is_an_error_naming_its_column(backend: &Backend) {
    let mut store = backend.open();
    let id = store.save_run(&sample_run("bebox", 0)).unwrap().unwrap();
    drop(store);
    // any name is an engine (another tool's, imported), but not one with a space
    backend.execute(&format!(
        "UPDATE {}results SET engine = 'warp drive'",
        backend.schema()
    ));
    let store = backend.open();
    for detail in [Detail::Full, Detail::Figures] {
        let err = store.results_of(&[id], detail).unwrap_err().to_string();
        assert!(err.contains("column engine holds 'warp drive'"), "{err}");
    }
    if let Backend::Sqlite { .. } = backend {
        // SQLite keeps whatever it is given: bytes where a name belongs
        backend.execute("UPDATE results SET engine = x'00ff'");
        let err = store
            .results_of(&[id], Detail::Figures)
            .unwrap_err()
            .to_string();
        assert!(err.contains("column engine holds a Blob value"), "{err}");
        assert!(err.contains("db check --repair"), "{err}");
    }
}

fn a_saved_run_comes_back_unchanged(backend: &Backend) {
    let mut store = backend.open();
    let run = sample_run("bebox", 0);
    let id = store.save_run(&run).unwrap().unwrap();
    let back = store.load_run(id).unwrap().unwrap();
    assert_eq!(
        back,
        Run {
            id: Some(id),
            ..run.clone()
        }
    );
    // the same UUID again adds nothing
    assert_eq!(store.save_run(&run).unwrap(), None);
    let other = uuid::Uuid::new_v4();
    assert_eq!(
        store.known_uuids(&[run.uuid, other]).unwrap(),
        [run.uuid].into_iter().collect()
    );
    assert_eq!(store.check().unwrap().runs, 1);
    // a run with nothing optional known comes back as it went
    let mut bare = sample_run("bebox", 1);
    bare.labels.clear();
    bare.tags.clear();
    bare.note = None;
    bare.finished_at = None;
    bare.host = Host::default();
    bare.filesystem = Filesystem::default();
    bare.source = None;
    bare.state_at_start = None;
    bare.state_at_end = None;
    bare.params.repeat_auto = None;
    // what an imported file does not state stays unstated, not a placeholder
    bare.params.seed = None;
    bare.params.read_pct = None;
    bare.params.stride_records = None;
    bare.params.dir = None;
    bare.results.clear();
    bare.warmup.clear();
    let id = store.save_run(&bare).unwrap().unwrap();
    assert_eq!(
        store.load_run(id).unwrap().unwrap(),
        Run {
            id: Some(id),
            ..bare
        }
    );
    assert_eq!(store.load_run(id + 1000).unwrap(), None);
    // a run of two engines keeps both lists and each result's own engine
    let combined = two_engine_run(2);
    let id = store.save_run(&combined).unwrap().unwrap();
    assert_eq!(
        store.load_run(id).unwrap().unwrap(),
        Run {
            id: Some(id),
            ..combined
        }
    );
    // `engine:posix` finds it by its second engine, which only its results name
    let by_second = RunFilter {
        engine: Some(EngineKind::Posix),
        ..RunFilter::default()
    };
    let found: Vec<Option<i64>> = store
        .list_runs(&by_second)
        .unwrap()
        .iter()
        .map(|r| r.id)
        .collect();
    assert_eq!(found, [Some(id)]);
}

/// An imported run keeps the engine its tool named (fio's libaio), which is none of
/// ours: saved, read back and selected by that name, in params and in every result.
fn another_tools_engine_comes_back_under_its_own_name(backend: &Backend) {
    let mut store = backend.open();
    let libaio = EngineKind::named("libaio").unwrap();
    let mut run = sample_run("bebox", 0);
    run.params.engine = libaio;
    run.params.iodepth = 16;
    run.stamp_combination();
    let id = store.save_run(&run).unwrap().unwrap();
    store.save_run(&sample_run("bebox", 1)).unwrap();
    let back = store.load_run(id).unwrap().unwrap();
    assert_eq!(
        back,
        Run {
            id: Some(id),
            ..run
        }
    );
    assert!(back.results.iter().all(|m| m.engine.name() == "libaio"));
    let by_name = RunFilter {
        engine: Some(libaio),
        ..RunFilter::default()
    };
    let found: Vec<Option<i64>> = store
        .list_runs(&by_name)
        .unwrap()
        .iter()
        .map(|r| r.id)
        .collect();
    assert_eq!(found, [Some(id)]);
}

/// A run that measured pread (the sample's engine) and posix, the same cells through each.
fn two_engine_run(minutes: i64) -> Run {
    let mut run = sample_run("bebox", minutes);
    also_through(&mut run, EngineKind::Posix, 1.5);
    run
}

fn a_live_run_is_running_until_finished(backend: &Backend) {
    let mut store = backend.open();
    let mut run = sample_run("bebox", 0);
    let finished = run.clone();
    run.results.clear();
    run.warmup.clear();
    run.finished_at = None;
    run.state_at_end = None;
    run.status = RunStatus::Running;
    let id = store.begin_run(&run).unwrap();
    let during = store.load_run(id).unwrap().unwrap();
    assert_eq!(during.status, RunStatus::Running);
    assert!(during.results.is_empty());
    assert_eq!(store.check().unwrap().unfinished_runs, 1);
    let end = run.started_at + Duration::seconds(9);
    let finished = Run {
        finished_at: Some(end),
        params: Params {
            repeat: 7,
            ..finished.params
        },
        ..finished
    };
    store.finish_run(id, &finished).unwrap();
    let after = store.load_run(id).unwrap().unwrap();
    assert_eq!(
        after,
        Run {
            id: Some(id),
            ..finished.clone()
        }
    );
    assert_eq!(store.check().unwrap().unfinished_runs, 0);
    // a live run's UUID is taken: beginning it again is an error, not a second run
    assert!(store.begin_run(&run).is_err());
    assert_eq!(store.check().unwrap().runs, 1);
}

fn a_spooled_run_replaces_the_empty_record_of_its_failed_write(backend: &Backend) {
    let mut store = backend.open();
    let complete = sample_run("bebox", 0);
    let id = store.begin_run(&complete).unwrap();
    let failed = Run {
        status: RunStatus::Failed,
        results: Vec::new(),
        warmup: Vec::new(),
        ..complete.clone()
    };
    store.finish_run(id, &failed).unwrap();
    // the spooled run, imported: the same UUID, complete, with its results
    let new_id = store
        .save_run(&complete)
        .unwrap()
        .expect("replaces the record");
    let back = store.load_run(new_id).unwrap().unwrap();
    assert_eq!(back.status, RunStatus::Complete);
    assert_eq!(back.results, complete.results);
    // (SQLite may give the freed id again)
    assert_eq!(store.check().unwrap().runs, 1);
    // the same for a record found dead since and marked aborted
    let spooled = sample_run("bebox", 1);
    let id = store.begin_run(&spooled).unwrap();
    let aborted = Run {
        status: RunStatus::Aborted,
        results: Vec::new(),
        warmup: Vec::new(),
        ..spooled.clone()
    };
    store.finish_run(id, &aborted).unwrap();
    assert!(store.save_run(&spooled).unwrap().is_some());
    assert_eq!(store.check().unwrap().runs, 2);
    // a second import adds nothing, nor does a run that is not complete
    assert_eq!(store.save_run(&complete).unwrap(), None);
    assert_eq!(store.save_runs(std::slice::from_ref(&failed)).unwrap(), 0);
    assert_eq!(store.check().unwrap().runs, 2);
}

fn filters_narrow_and_order_newest_first(backend: &Backend) {
    let mut store = backend.open();
    let mut ids = Vec::new();
    for (i, host) in ["a", "b", "a", "c"].iter().enumerate() {
        let mut run = sample_run(host, i as i64 * 60);
        if i == 3 {
            run.labels = vec!["DR8".into()];
            run.tags.clear();
            run.filesystem.fs_type = Some("xfs".into());
            run.status = RunStatus::Aborted;
            run.results.retain(|m| m.test == TestKind::Read);
        }
        if i == 1 {
            run.params.iodepth = 1;
        }
        ids.push(store.save_run(&run).unwrap().unwrap());
    }
    let list = |f: RunFilter| -> Vec<i64> {
        store
            .list_runs(&f)
            .unwrap()
            .iter()
            .map(|r| r.id.unwrap())
            .collect()
    };
    assert_eq!(list(RunFilter::default()), [ids[3], ids[2], ids[1], ids[0]]);
    assert_eq!(
        list(RunFilter {
            host: Some("a".into()),
            ..Default::default()
        }),
        [ids[2], ids[0]]
    );
    assert_eq!(
        list(RunFilter {
            fs: Some("xfs".into()),
            ..Default::default()
        }),
        [ids[3]]
    );
    assert_eq!(
        list(RunFilter {
            labels: vec!["DR8".into()],
            ..Default::default()
        }),
        [ids[3]]
    );
    assert_eq!(
        list(RunFilter {
            labels: vec!["DR9".into(), "nightly".into()],
            ..Default::default()
        }),
        [ids[2], ids[1], ids[0]]
    );
    assert_eq!(
        list(RunFilter {
            tags: vec![("os".into(), "dr9".into())],
            limit: Some(2),
            ..Default::default()
        }),
        [ids[2], ids[1]]
    );
    assert_eq!(
        list(RunFilter {
            test: Some(TestKind::Write),
            ..Default::default()
        })
        .len(),
        3
    );
    assert_eq!(
        list(RunFilter {
            record: Some(4096),
            ..Default::default()
        })
        .len(),
        4
    );
    assert!(
        list(RunFilter {
            record: Some(512),
            ..Default::default()
        })
        .is_empty()
    );
    let t0 = Utc.with_ymd_and_hms(2026, 11, 1, 12, 0, 0).unwrap();
    assert_eq!(
        list(RunFilter {
            since: Some(t0 + Duration::minutes(60)),
            until: Some(t0 + Duration::minutes(180)),
            ..Default::default()
        }),
        [ids[2], ids[1]]
    );
    assert_eq!(
        list(RunFilter {
            status: Some(RunStatus::Aborted),
            ..Default::default()
        }),
        [ids[3]]
    );
    assert_eq!(
        list(RunFilter {
            iodepth: Some(1),
            ..Default::default()
        }),
        [ids[1]]
    );
    assert_eq!(
        list(RunFilter {
            engine: Some(EngineKind::Pread),
            cache: Some(CacheMode::Direct),
            host: Some("b".into()),
            ..Default::default()
        }),
        [ids[1]]
    );
    assert!(
        list(RunFilter {
            engine: Some(EngineKind::Mmap),
            ..Default::default()
        })
        .is_empty()
    );
    // listing leaves results out; labels and tags are there
    let first = &store.list_runs(&RunFilter::default()).unwrap()[3];
    assert!(first.results.is_empty());
    assert_eq!(first.labels, ["DR9", "nightly"]);
    assert_eq!(first.tags["os"], "dr9");
}

fn references_resolve_to_one_run(backend: &Backend) {
    let mut store = backend.open();
    let runs: Vec<Run> = (0..3).map(|i| sample_run("h", i)).collect();
    let ids: Vec<i64> = runs
        .iter()
        .map(|r| store.save_run(r).unwrap().unwrap())
        .collect();
    assert_eq!(store.resolve(&RunRef::Id(ids[1])).unwrap(), ids[1]);
    assert_eq!(store.resolve(&RunRef::Latest(0)).unwrap(), ids[2]);
    assert_eq!(store.resolve(&RunRef::Latest(2)).unwrap(), ids[0]);
    assert!(matches!(
        store.resolve(&RunRef::Latest(3)),
        Err(StoreError::NoSuchRun(_))
    ));
    assert!(matches!(
        store.resolve(&RunRef::Id(999)),
        Err(StoreError::NoSuchRun(_))
    ));
    // digits that are no run's id but a UUID's start name that run; an id wins
    let mut digits = sample_run("h", 3);
    digits.uuid = uuid::Uuid::parse_str("91015410-0000-4000-8000-000000000000").unwrap();
    let digits_id = store.save_run(&digits).unwrap().unwrap();
    assert_eq!(store.resolve(&RunRef::Id(91015410)).unwrap(), digits_id);
    assert_eq!(store.resolve(&RunRef::Id(9101)).unwrap(), digits_id);
    assert_eq!(store.resolve(&RunRef::Id(ids[0])).unwrap(), ids[0]);
    let uuid = runs[1].uuid.to_string();
    assert_eq!(
        store
            .resolve(&RunRef::UuidPrefix(uuid[..8].into()))
            .unwrap(),
        ids[1]
    );
    let no_hyphens: String = uuid.replace('-', "")[..12].to_string();
    assert_eq!(
        store.resolve(&RunRef::UuidPrefix(no_hyphens)).unwrap(),
        ids[1]
    );
    assert_eq!(
        store.resolve(&RunRef::UuidPrefix(uuid.clone())).unwrap(),
        ids[1]
    );
    // two runs whose UUIDs share a prefix: that prefix is ambiguous, a longer one is not
    let mut twins = [sample_run("h", 10), sample_run("h", 11)];
    twins[0].uuid = "abcd0000-0000-4000-8000-000000000001".parse().unwrap();
    twins[1].uuid = "abcd0000-0000-4000-8000-000000000002".parse().unwrap();
    store.save_runs(&twins).unwrap();
    assert!(matches!(
        store.resolve(&RunRef::UuidPrefix("abcd".into())),
        Err(StoreError::Ambiguous(_))
    ));
    assert!(matches!(
        store.resolve(&RunRef::UuidPrefix(
            "abcd-0000-0000-4000-8000-00000000000".into()
        )),
        Err(StoreError::Ambiguous(_))
    ));
    let second = store
        .resolve(&RunRef::UuidPrefix(
            "abcd00000000400080000000000000002".into(),
        ))
        .ok();
    assert_eq!(second, None, "33 hex digits match no UUID");
    let second = store
        .resolve(&RunRef::UuidPrefix(
            "abcd0000000040008000000000000002".into(),
        ))
        .unwrap();
    assert_eq!(store.load_run(second).unwrap().unwrap().uuid, twins[1].uuid);
    assert!(matches!(
        store.resolve(&RunRef::UuidPrefix("ffff".into())),
        Err(StoreError::NoSuchRun(_))
    ));
}

fn selectors_say_which_runs_are_not_complete(backend: &Backend) {
    let mut store = backend.open();
    let done = sample_run("h", 0);
    let mut aborted = sample_run("h", 1);
    aborted.status = RunStatus::Aborted;
    aborted.labels = vec!["ctrlc".into(), "nightly".into()];
    let done_id = store.save_run(&done).unwrap().unwrap();
    let aborted_id = store.save_run(&aborted).unwrap().unwrap();
    let select = |text: &str| select_runs(&*store, &text.parse().unwrap(), Detail::Full);
    let incomplete = |text: &str| match select(text) {
        Err(StoreError::NotComplete { selector, runs }) => {
            assert_eq!(selector, text);
            runs
        }
        other => panic!("{text}: expected NotComplete, got {other:?}"),
    };
    // by label, by id and as `latest`: named, so refused with its id and status
    assert_eq!(incomplete("ctrlc"), [(aborted_id, RunStatus::Aborted)]);
    assert_eq!(
        incomplete(&aborted_id.to_string()),
        [(aborted_id, RunStatus::Aborted)]
    );
    assert_eq!(incomplete("latest"), [(aborted_id, RunStatus::Aborted)]);
    let message = StoreError::NotComplete {
        selector: "ctrlc".into(),
        runs: vec![(aborted_id, RunStatus::Aborted), (9, RunStatus::Failed)],
    }
    .to_string();
    assert!(
        message.starts_with(&format!(
            "'ctrlc' selects runs that are not complete: {aborted_id} (aborted), 9 (failed);"
        )),
        "{message}"
    );
    // a filter that matches complete runs too keeps only those
    let nightly = select("nightly").unwrap();
    assert_eq!(
        nightly.iter().map(|r| r.id).collect::<Vec<_>>(),
        [Some(done_id)]
    );
    assert!(!nightly[0].results.is_empty());
}

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

fn instants_keep_the_backends_precision(backend: &Backend) {
    let mut store = backend.open();
    let mut run = sample_run("h", 0);
    run.started_at += Duration::nanoseconds(123_456_789);
    let id = store.save_run(&run).unwrap().unwrap();
    let back = store.load_run(id).unwrap().unwrap();
    let lost = (run.started_at - back.started_at)
        .num_nanoseconds()
        .unwrap();
    assert!(
        (0..backend.resolution_ns()).contains(&lost),
        "{} came back as {}",
        run.started_at,
        back.started_at
    );
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
