//! Finding runs again, on both backends: filters narrow and order newest first,
//! references (ids, `latest~N`, UUID prefixes) resolve to one run or say why not, and
//! selectors name the runs they select that are not complete.

use super::*;

on_every_backend!(
    filters_narrow_and_order_newest_first,
    references_resolve_to_one_run,
    selectors_say_which_runs_are_not_complete,
);

/// Four runs an hour apart (hosts a, b, a, c): the second at queue depth 1, the fourth
/// labelled DR8, untagged, on xfs, aborted and with its reads alone. Their ids.
fn four_runs(store: &mut dyn Store) -> Vec<i64> {
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
    ids
}

/// What a filter on the run itself selects: its host, filesystem, labels, tags (and a
/// limit), time and status.
fn filters_on_the_run(list: &dyn Fn(RunFilter) -> Vec<i64>, ids: &[i64]) {
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
}

/// What a filter on the run's measurements selects: a test, a record size, a queue
/// depth, an engine with a cache mode.
fn filters_on_the_measurements(list: &dyn Fn(RunFilter) -> Vec<i64>, ids: &[i64]) {
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
}

fn filters_narrow_and_order_newest_first(backend: &Backend) {
    let mut store = backend.open();
    let ids = four_runs(&mut *store);
    let list = |f: RunFilter| -> Vec<i64> {
        store
            .list_runs(&f)
            .unwrap()
            .iter()
            .map(|r| r.id.unwrap())
            .collect()
    };
    assert_eq!(list(RunFilter::default()), [ids[3], ids[2], ids[1], ids[0]]);
    filters_on_the_run(&list, &ids);
    filters_on_the_measurements(&list, &ids);
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
