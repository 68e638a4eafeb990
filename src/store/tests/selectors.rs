//! Selectors as the store reads them: ids and ranges any of, conditions all of, and
//! a selector of both the runs it names that meet every condition, on both backends.

use super::*;

on_every_backend!(
    ids_and_ranges_select_any_of_them,
    conditions_narrow_the_runs_named,
    a_range_leaves_out_runs_that_are_not_complete,
);

/// Five runs, `h` and `vm` in turn, those on `vm` labelled journal; returns their ids.
fn five_runs(store: &mut dyn Store) -> Vec<i64> {
    (0..5)
        .map(|i| {
            let mut run = sample_run(if i % 2 == 0 { "h" } else { "vm" }, i);
            if i % 2 == 1 {
                run.labels = vec!["journal".into()];
            }
            store.save_run(&run).unwrap().unwrap()
        })
        .collect()
}

/// The ids a selector picks, oldest first.
fn picked(store: &dyn Store, text: &str) -> Result<Vec<i64>, StoreError> {
    let runs = select_runs(store, &text.parse().unwrap(), Detail::Figures)?;
    assert!(runs.iter().all(|r| !r.results.is_empty()), "{text}");
    let mut ids: Vec<i64> = runs.iter().filter_map(|r| r.id).collect();
    ids.sort_unstable();
    Ok(ids)
}

fn ids_and_ranges_select_any_of_them(backend: &Backend) {
    let mut store = backend.open();
    let ids = five_runs(&mut *store);
    let store = &*store;
    let text = |i: usize| ids[i].to_string();
    let list = format!("{},{},{}", text(0), text(2), text(4));
    assert_eq!(picked(store, &list).unwrap(), [ids[0], ids[2], ids[4]]);
    let range = format!("{}..{}", text(1), text(3));
    assert_eq!(picked(store, &range).unwrap(), ids[1..=3]);
    let open = format!("{}..", text(3));
    assert_eq!(picked(store, &open).unwrap(), ids[3..]);
    let both = format!("{},{}..{},latest", text(0), text(1), text(2));
    assert_eq!(
        picked(store, &both).unwrap(),
        [ids[0], ids[1], ids[2], ids[4]]
    );
    // a range may hold ids no run has; one that holds none matches nothing
    let wide = format!("{}..{}", ids[4] + 1, ids[4] + 100);
    assert!(matches!(
        picked(store, &wide),
        Err(StoreError::NoSuchRun(text)) if text == wide
    ));
}

fn conditions_narrow_the_runs_named(backend: &Backend) {
    let mut store = backend.open();
    let ids = five_runs(&mut *store);
    let store = &*store;
    let all = format!("{}..{}", ids[0], ids[4]);
    // conditions: all of them
    assert_eq!(picked(store, "label:journal").unwrap(), [ids[1], ids[3]]);
    assert_eq!(
        picked(store, "label:journal,host:vm").unwrap(),
        [ids[1], ids[3]]
    );
    assert!(matches!(
        picked(store, "label:journal,host:h"),
        Err(StoreError::NoSuchRun(_))
    ));
    // both: the runs named that meet every condition, a bare word as a label
    assert_eq!(
        picked(store, &format!("{all},journal")).unwrap(),
        [ids[1], ids[3]]
    );
    let three = format!("{},{},{},label:journal", ids[0], ids[1], ids[2]);
    assert_eq!(picked(store, &three).unwrap(), [ids[1]]);
    // none of the runs named meets them: said with the reading
    let none = format!("{},journal", ids[2]);
    match picked(store, &none) {
        Err(e @ StoreError::NoneMeet { .. }) => {
            let message = e.to_string();
            assert!(
                message.contains(&format!(
                    "'{none}', read as run {} with label journal",
                    ids[2]
                )),
                "{message}"
            );
        }
        other => panic!("{none}: expected NoneMeet, got {other:?}"),
    }
    let read = read_selector(store, &none.parse().unwrap()).unwrap();
    assert_eq!(read.filter.labels, ["journal"]);
    assert!(read.bare.is_empty() && read.mixes());
}

fn a_range_leaves_out_runs_that_are_not_complete(backend: &Backend) {
    let mut store = backend.open();
    let done = store.save_run(&sample_run("h", 0)).unwrap().unwrap();
    let mut aborted = sample_run("h", 1);
    aborted.status = RunStatus::Aborted;
    let aborted = store.save_run(&aborted).unwrap().unwrap();
    let store = &*store;
    let range = format!("{done}..{aborted}");
    assert_eq!(picked(store, &range).unwrap(), [done]);
    // named one by one, it is refused with its status
    let named = format!("{done},{aborted}");
    assert!(matches!(
        picked(store, &named),
        Err(StoreError::NotComplete { runs, .. }) if runs == [(aborted, RunStatus::Aborted)]
    ));
}
