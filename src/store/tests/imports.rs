//! Every importer's files at and beyond the edges of what a run may hold, as a property
//! over both stores: instants around the epoch, the end of the year 9999, the year 0
//! and the year 10000 (in fio's `timestamp` and `timestamp_ms`, iozone3's "Run began",
//! our JSON's `started_at`, `finished_at` and `imported_at`, our CSV's times), counts
//! around 64 signed bits and text with a NUL. A file either imports runs that every
//! read gives back as they were, or is refused whole — by its parser, or by
//! `import::check_storable`, and by the store itself when given the runs anyway — and
//! the store reads as before. `db check` finds nothing wrong after any of them.

use chrono::DateTime;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};

use super::*;
use crate::import::{self, Format, Origin};
use crate::selector::RunRef;

on_every_backend!(no_import_at_the_edges_poisons_the_store);

const FIO: &str = include_str!("../../../tests/fixtures/fio/buffered-write-4k.json");
const IOZONE3: &str = include_str!("../../../tests/fixtures/iozone3/single-32m-r64k.txt");
const CLASSIC: &str = include_str!("../../../tests/fixtures/classic/bebox-beos-dr8.txt");

/// The first second of the year 10000, one past the last a run may state.
const YEAR_10000: i64 = 253_402_300_800;
/// The first second of the year 0.
const YEAR_0: i64 = -62_167_219_200;

/// An instant at one of the edges (a few seconds either side, any nanosecond), or
/// anywhere from the year -1200 to the year 14000.
fn instant() -> impl Strategy<Value = DateTime<Utc>> {
    let near = (
        prop::sample::select(vec![0, YEAR_10000, YEAR_0]),
        -2i64..=2,
        prop_oneof![Just(0u32), Just(999_999_999), 0u32..1_000_000_000],
    )
        .prop_map(|(edge, seconds, nanos)| (edge + seconds, nanos));
    let anywhere = (-100_000_000_000i64..380_000_000_000, 0u32..1_000_000_000);
    prop_oneof![3 => near, 1 => anywhere].prop_filter_map("an instant chrono holds", |(s, n)| {
        DateTime::from_timestamp(s, n)
    })
}

/// A count at or beyond what 64 signed bits hold, or an ordinary one.
fn count() -> impl Strategy<Value = u64> {
    prop_oneof![
        Just(i64::MAX as u64),
        Just(1 << 63),
        Just(u64::MAX),
        1u64..1 << 40
    ]
}

/// A file of one of the formats `import` reads, made around the generated values.
#[derive(Clone, Debug)]
enum File {
    Fio { key: &'static str, stamp: i64 },
    Iozone3 { began: DateTime<Utc> },
    Classic,
    Json(Edges),
    Csv(Edges),
}

/// What our own formats state at the edges.
#[derive(Clone, Debug)]
struct Edges {
    started_at: DateTime<Utc>,
    finished_at: Option<DateTime<Utc>>,
    imported_at: DateTime<Utc>,
    bytes: u64,
    latency_max: Option<u64>,
    throughput: f64,
    note: Option<String>,
}

fn edges() -> impl Strategy<Value = Edges> {
    (
        instant(),
        prop::option::of(instant()),
        instant(),
        count(),
        prop::option::of(count()),
        prop_oneof![
            Just(f64::INFINITY),
            Just(f64::NAN),
            Just(-1.0),
            Just(0.0),
            Just(f64::MAX),
            1.0..1e12
        ],
        prop::option::of(prop_oneof![Just("a\0b".to_string()), "[a-z]{0,8}"]),
    )
        .prop_map(
            |(started_at, finished_at, imported_at, bytes, latency_max, throughput, note)| Edges {
                started_at,
                finished_at,
                imported_at,
                bytes,
                latency_max,
                throughput,
                note,
            },
        )
}

fn file() -> impl Strategy<Value = File> {
    prop_oneof![
        instant().prop_map(|t| File::Fio {
            key: "timestamp",
            stamp: t.timestamp()
        }),
        instant().prop_map(|t| File::Fio {
            key: "timestamp_ms",
            stamp: t.timestamp_millis()
        }),
        prop::sample::select(vec![i64::MIN, i64::MAX, -1]).prop_map(|stamp| File::Fio {
            key: "timestamp",
            stamp
        }),
        instant().prop_map(|began| File::Iozone3 { began }),
        Just(File::Classic),
        edges().prop_map(File::Json),
        edges().prop_map(File::Csv),
    ]
}

/// The file's format and text.
fn text(file: &File) -> (Format, String) {
    match file {
        File::Fio { key, stamp } => {
            let mut doc: serde_json::Value = serde_json::from_str(FIO).unwrap();
            let root = doc.as_object_mut().unwrap();
            root.remove("timestamp");
            root.remove("timestamp_ms");
            root.insert(key.to_string(), (*stamp).into());
            (Format::Fio, doc.to_string())
        }
        File::Iozone3 { began } => {
            let line = format!("Run began: {}", began.format("%a %b %e %H:%M:%S %Y"));
            let text = IOZONE3.replace("Run began: Mon Nov 30 05:41:47 2026", &line);
            (Format::Iozone3, text)
        }
        File::Classic => (Format::Classic, CLASSIC.to_string()),
        File::Json(edges) => (
            Format::Json,
            crate::export::to_json(vec![edged(edges)], Utc::now()),
        ),
        File::Csv(edges) => (Format::Csv, crate::export::to_csv(&[edged(edges)])),
    }
}

/// A run as our exports write it, with the edges' values and a UUID of its own.
fn edged(edges: &Edges) -> Run {
    let origin = Origin::new("base", IOZONE3.as_bytes(), Utc::now());
    let mut run = import::parse(Format::Iozone3, IOZONE3, &origin)
        .unwrap()
        .remove(0);
    run.uuid = uuid::Uuid::new_v4();
    run.started_at = edges.started_at;
    run.finished_at = edges.finished_at;
    run.note = edges.note.clone();
    if let Some(source) = &mut run.source {
        source.imported_at = edges.imported_at;
    }
    let first = &mut run.results[0];
    first.bytes = edges.bytes;
    first.throughput = edges.throughput;
    first.latency_ns = edges.latency_max.map(|max| {
        Box::new(Latency {
            p50: 1,
            p99: 2,
            p999: 3,
            max,
            samples: 4,
        })
    });
    run
}

/// Imports `file` as `import` does, into `store`; checks what came of it.
fn import_into(store: &mut dyn Store, file: &File, resolution: i64) -> Result<(), TestCaseError> {
    let (format, text) = text(file);
    let origin = Origin::new("edge", text.as_bytes(), Utc::now());
    let before = store.list_runs(&RunFilter::default()).unwrap().len();
    let Ok(runs) = import::parse(format, &text, &origin) else {
        return Ok(());
    };
    let checked =
        (runs.iter().enumerate()).try_for_each(|(i, r)| import::check_storable(r, "edge", i));
    match checked {
        Ok(()) => {
            let known = store
                .known_uuids(&runs.iter().map(|r| r.uuid).collect::<Vec<_>>())
                .unwrap();
            let added = store.save_runs(&runs).unwrap();
            prop_assert_eq!(added, runs.len() - known.len());
            for run in runs.iter().filter(|r| !known.contains(&r.uuid)) {
                let prefix = RunRef::UuidPrefix(run.uuid.to_string());
                let id = store.resolve(&prefix).unwrap();
                let back = store.load_run(id).unwrap().unwrap();
                let apart = |a: DateTime<Utc>, b: DateTime<Utc>| {
                    (a - b).num_nanoseconds().unwrap().abs() < resolution
                };
                prop_assert!(
                    apart(back.started_at, run.started_at),
                    "{} != {}",
                    back.started_at,
                    run.started_at
                );
                prop_assert_eq!(back.finished_at.is_some(), run.finished_at.is_some());
                prop_assert_eq!(back.results.len(), run.results.len());
            }
        }
        Err(refused) => {
            prop_assert!(
                refused
                    .to_string()
                    .contains("nothing was imported from edge")
            );
            // and the store refuses them itself, leaving nothing
            let err = store.save_runs(&runs).unwrap_err();
            prop_assert!(matches!(err, StoreError::Unstorable { .. }), "{}", err);
            prop_assert_eq!(
                store.list_runs(&RunFilter::default()).unwrap().len(),
                before
            );
        }
    }
    Ok(())
}

/// Every read a command makes, on every run: each must succeed, and the check must
/// find nothing wrong.
fn every_read(store: &dyn Store) -> Result<(), TestCaseError> {
    let runs = store.list_runs(&RunFilter::default()).unwrap();
    let ids: Vec<i64> = runs.iter().filter_map(|r| r.id).collect();
    store.results_of(&ids, Detail::Full).unwrap();
    store.summaries_of(&ids).unwrap();
    let mut seen = 0;
    for_each_page(
        store,
        &RunFilter::default(),
        |page| -> Result<(), StoreError> {
            seen += page.len();
            Ok(())
        },
    )
    .unwrap();
    prop_assert_eq!(seen, runs.len());
    for read in [Walk::Results(Detail::Full), Walk::Headlines] {
        let mut walked = 0;
        walk(store, &RunFilter::default(), read, |_| {
            walked += 1;
            Ok::<_, StoreError>(())
        })
        .unwrap();
        prop_assert_eq!(walked, runs.len());
    }
    let report = store.check().unwrap();
    prop_assert!(report.problems.is_empty(), "{:?}", report.problems);
    prop_assert!(report.unreadable.is_empty(), "{:?}", report.unreadable);
    prop_assert!(report.unstorable.is_empty(), "{:?}", report.unstorable);
    Ok(())
}

fn no_import_at_the_edges_poisons_the_store(backend: &Backend) {
    let store = std::cell::RefCell::new(backend.open());
    let resolution = backend.resolution_ns();
    let mut runner = TestRunner::new(Config {
        cases: 48,
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&file(), |file| {
            let mut store = store.borrow_mut();
            import_into(store.as_mut(), &file, resolution)?;
            every_read(store.as_ref())
        })
        .unwrap();
}
