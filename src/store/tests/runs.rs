//! What goes in comes back: saved, live and spooled runs, instants at the backend's
//! precision, and a value iozone never wrote named as an error, on both backends.
//! Finding runs again is [`super::finding`]; many runs and writers at once,
//! [`super::writers`].

use super::*;

on_every_backend!(
    a_saved_run_comes_back_unchanged,
    a_live_run_is_running_until_finished,
    a_spooled_run_replaces_the_empty_record_of_its_failed_write,
    instants_keep_the_backends_precision,
    a_value_iozone_never_wrote_is_an_error_naming_its_column,
    another_tools_engine_comes_back_under_its_own_name,
    a_run_of_many_clients_comes_back_with_every_rank_and_host,
);

/// A run of many clients: its count, hosts and layout among the parameters, every
/// host's facts, each measurement's figures per rank, and the rank that failed, begun
/// and then finished as `run` records it.
fn a_run_of_many_clients_comes_back_with_every_rank_and_host(backend: &Backend) {
    use crate::model::{ClientHost, Cluster, RankFailure, RankFigure, RankFigures};
    let mut store = backend.open();
    let mut run = sample_run("vm-a", 0);
    run.params.clients = 3;
    run.params.hosts = vec!["vm-a".into(), "vm-b".into(), "vm-a".into()];
    run.params.shared_file = true;
    run.params.stonewall = true;
    let other = ClientHost {
        host: Host {
            hostname: Some("vm-b".into()),
            kernel: Some("6.1.0".into()),
            ..Host::default()
        },
        ..ClientHost::default()
    };
    let own = ClientHost {
        host: run.host.clone(),
        filesystem: run.filesystem.clone(),
    };
    run.cluster = Some(Cluster {
        hosts: vec![own, other],
        ..Cluster::default()
    });
    let begun = Run {
        status: RunStatus::Running,
        results: Vec::new(),
        warmup: Vec::new(),
        ..run.clone()
    };
    let id = store.begin_run(&begun).unwrap();
    let m = &run.results[0];
    let figures = RankFigures {
        test: m.test,
        file_size: m.file_size,
        record_size: m.record_size,
        repetition: m.repetition,
        engine: m.engine,
        cache: m.cache,
        warmup: false,
        ranks: (0..3)
            .map(|r| RankFigure {
                bytes: 1 << 20,
                start_ns: r,
                end_ns: 1_000_000 + r,
            })
            .collect(),
    };
    let cluster = run.cluster.as_mut().unwrap();
    cluster.figures = vec![figures];
    cluster.failure = Some(RankFailure {
        rank: Some(1),
        host: Some("vm-b".into()),
        error: "no space left on device while writing".into(),
    });
    run.id = Some(id);
    store.finish_run(id, &run).unwrap();
    let back = store.load_run(id).unwrap().unwrap();
    assert_eq!(back.params, run.params);
    assert_eq!(back.cluster, run.cluster);
    assert_eq!(back, run);
    // a run of one client states one, and nothing of many
    let one = sample_run("bebox", 1);
    let id = store.save_run(&one).unwrap().unwrap();
    let back = store.load_run(id).unwrap().unwrap();
    assert_eq!((back.params.clients, back.cluster), (1, None));
}

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
    run.params.engines = vec![libaio];
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
    // imported in a batch, as `import` stores a file: the record goes with its labels
    // and tags
    let mut batches = [Batch::Runs(vec![spooled.clone()]), Batch::End].into_iter();
    let added = store.save_batches(&mut || batches.next().unwrap());
    assert_eq!(added.unwrap(), Some(1));
    let report = store.check().unwrap();
    assert_eq!(report.runs, 2);
    assert!(report.problems.is_empty(), "{:?}", report.problems);
    // a second import adds nothing, nor does a run that is not complete
    assert_eq!(store.save_run(&complete).unwrap(), None);
    assert_eq!(store.save_runs(std::slice::from_ref(&failed)).unwrap(), 0);
    assert_eq!(store.check().unwrap().runs, 2);
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
