//! Walks: every run a filter selects, read in one pass, must be what the listing and
//! the reads by id give for the same runs (records, labels, tags, results, summaries),
//! in the same order and up to the same limit; a walk host by host brings each host's
//! runs together; and a walk stops when told, with the error that stopped it, leaving
//! nothing on the connection that the next statement meets.

use std::ops::ControlFlow;

use super::summaries::{sorted, varied_runs};
use super::*;
use crate::model::{HEADLINE_TESTS, headline};

on_every_backend!(
    a_walk_reads_what_the_listing_and_the_reads_by_id_read,
    a_walk_of_series_reads_their_columns_and_summaries,
    a_walk_of_headlines_reads_the_figures_they_are_made_of,
    a_walk_host_by_host_brings_each_hosts_runs_together,
    a_walk_stops_at_the_first_error,
    the_statement_after_a_walk_stopped_at_its_first_run_runs_whole,
);

/// Runs of every kind a walk meets (summaries kept or not, no results, two engines),
/// on three hosts and none, labelled and tagged in several ways, one still running.
fn planted(store: &mut dyn Store) -> usize {
    let mut runs = varied_runs();
    for (i, run) in runs.iter_mut().enumerate() {
        run.labels = (0..i % 4).map(|k| format!("l{}", (i + k) % 5)).collect();
        run.tags = (0..i % 3)
            .map(|k| (format!("k{k}"), format!("v{i}")))
            .collect();
    }
    runs[4].host.hostname = None;
    runs[9].host.hostname = None;
    // two runs at the same start: the id tells them apart
    runs[11].started_at = runs[10].started_at;
    store.save_runs(&runs).unwrap();
    let mut running = sample_run("host1", 100);
    running.status = RunStatus::Running;
    running.results.clear();
    running.warmup.clear();
    store.begin_run(&running).unwrap();
    runs.len() + 1
}

/// Filters of every kind a walk is given.
fn filters() -> Vec<RunFilter> {
    let all = RunFilter::default();
    vec![
        all.clone(),
        RunFilter {
            limit: Some(5),
            ..all.clone()
        },
        RunFilter {
            oldest_first: true,
            limit: Some(7),
            ..all.clone()
        },
        RunFilter {
            host: Some("host1".into()),
            ..all.clone()
        },
        RunFilter {
            labels: vec!["l2".into()],
            status: Some(RunStatus::Complete),
            ..all.clone()
        },
        RunFilter {
            tags: vec![("k0".into(), "v4".into())],
            ..all.clone()
        },
        RunFilter {
            labels: vec!["nothing-has-this".into()],
            ..all
        },
    ]
}

/// Every run `walk` hands on (summaries in key order).
fn walked(store: &dyn Store, filter: &RunFilter, read: Walk) -> Vec<Walked> {
    let mut runs = Vec::new();
    walk(store, filter, read, |run| {
        assert!(run.pending.is_none());
        runs.push(run);
        Ok::<_, StoreError>(())
    })
    .unwrap();
    runs
}

fn a_walk_reads_what_the_listing_and_the_reads_by_id_read(backend: &Backend) {
    let mut store = backend.open();
    planted(store.as_mut());
    for filter in filters() {
        let listed = store.list_runs(&filter).unwrap();
        let ids: Vec<i64> = listed.iter().filter_map(|r| r.id).collect();
        for detail in [Detail::Full, Detail::Figures] {
            let whole = with_results(store.as_ref(), listed.clone(), detail).unwrap();
            let walked = walked(store.as_ref(), &filter, Walk::Results(detail));
            let runs: Vec<Run> = walked.iter().map(|w| w.run.clone()).collect();
            assert_eq!(runs, whole, "{filter:?}, {detail:?}");
            assert!(walked.iter().all(|w| w.summaries.is_empty()));
        }
        let summaries = store.summaries_of(&ids).unwrap();
        let walked = walked(store.as_ref(), &filter, Walk::Headlines);
        let runs: Vec<Run> = walked.iter().map(|w| w.run.clone()).collect();
        assert_eq!(runs, listed, "{filter:?}");
        for w in &walked {
            assert_same_headlines(&w.run, &w.summaries, &summaries[&w.run.id.unwrap()]);
        }
    }
}

/// `walked`, the summaries a walk of headlines read for `run`, head it as `all` (every
/// one of its summaries) do, and are among them: every one when the run keeps some.
fn assert_same_headlines(run: &Run, walked: &[RowSummary], all: &[RowSummary]) {
    for test in HEADLINE_TESTS {
        let bits = |summaries| headline(&run.params, summaries, test).map(f64::to_bits);
        assert_eq!(bits(walked), bits(all), "{test:?} of run {:?}", run.id);
    }
    assert!(walked.iter().all(|w| all.contains(w)), "{walked:?}");
    if RowSummary::kept_for(&run.results) {
        assert_eq!(walked, sorted(all.to_vec()));
    }
}

/// A walk of headlines reads, of a run that keeps no summaries, the figures its
/// headlines are made of and no others: those at the largest sizes through its first
/// engine and cache, not another engine's or mode's larger sizes, nor a warm-up
/// round's, even when the largest is not finite or the first combination never read.
fn a_walk_of_headlines_reads_the_figures_they_are_made_of(backend: &Backend) {
    let mut store = backend.open();
    let figure = |test, mb: u64, kb: u64, engine, cache, throughput| Measurement {
        test,
        file_size: ByteSize(mb << 20),
        record_size: ByteSize(kb << 10),
        repetition: 1,
        engine,
        cache,
        throughput,
        ..sample_run("h", 0).results[0].clone()
    };
    let (mmap, posix, flush, direct) = (
        EngineKind::Mmap,
        EngineKind::Posix,
        CacheMode::Flush,
        CacheMode::Direct,
    );
    let mut runs = Vec::new();
    for (i, largest) in [1.5e9, f64::INFINITY, 0.0].into_iter().enumerate() {
        let mut run = sample_run("host1", i as i64);
        run.params.engines = vec![mmap, posix];
        run.params.caches = vec![flush, direct];
        run.results.clear();
        run.warmup.clear();
        let mut speed = 1.0e8;
        for test in [TestKind::Write, TestKind::Rewrite, TestKind::Read] {
            for (mb, kb) in [(1, 4), (1, 64), (4, 4), (4, 64)] {
                for (engine, cache) in [(mmap, flush), (posix, flush), (mmap, direct)] {
                    speed += 1.0e7;
                    run.results.push(figure(test, mb, kb, engine, cache, speed));
                }
            }
            // larger, but not the run's first engine or mode, or a warm-up round
            run.results.push(figure(test, 16, 64, posix, flush, 9e9));
            run.results.push(figure(test, 16, 64, mmap, direct, 9e9));
            run.warmup.push(figure(test, 64, 64, mmap, flush, 9e9));
        }
        run.results
            .push(figure(TestKind::Write, 8, 4, mmap, flush, largest));
        if i == 2 {
            // reads through the first combination never made
            run.results
                .retain(|m| m.test != TestKind::Read || (m.engine, m.cache) != (mmap, flush));
        }
        runs.push(run);
    }
    assert!(runs.iter().all(|r| !RowSummary::kept_for(&r.results)));
    store.save_runs(&runs).unwrap();
    let walked = walked(store.as_ref(), &RunFilter::default(), Walk::Headlines);
    assert_eq!(walked.len(), runs.len());
    for w in &walked {
        let run = runs.iter().find(|r| r.uuid == w.run.uuid).unwrap();
        assert_same_headlines(run, &w.summaries, &RowSummary::of(&run.results));
        // a row a headline test, no more
        assert!(
            w.summaries.len() <= HEADLINE_TESTS.len(),
            "{:?}",
            w.summaries
        );
    }
    let write = |w: &Walked| headline(&w.run.params, &w.summaries, TestKind::Write);
    let heads: Vec<_> = walked.iter().rev().map(write).collect();
    assert_eq!(heads, [Some(1.5e9), None, Some(0.0)]);
}

fn a_walk_of_series_reads_their_columns_and_summaries(backend: &Backend) {
    let mut store = backend.open();
    planted(store.as_mut());
    for filter in filters() {
        let listed = store.list_runs(&filter).unwrap();
        let ids: Vec<i64> = listed.iter().filter_map(|r| r.id).collect();
        let summaries = store.summaries_of(&ids).unwrap();
        let walked = walked(store.as_ref(), &filter, Walk::Series { by_host: false });
        assert_eq!(walked.len(), listed.len(), "{filter:?}");
        for (w, run) in walked.iter().zip(&listed) {
            // what a series is made of, and nothing else
            let expected = Run {
                id: run.id,
                started_at: run.started_at,
                host: Host {
                    hostname: run.host.hostname.clone(),
                    ..Host::default()
                },
                filesystem: Filesystem {
                    fs_type: run.filesystem.fs_type.clone(),
                    mount_point: run.filesystem.mount_point.clone(),
                    ..Filesystem::default()
                },
                params: Params {
                    iodepth: run.params.iodepth,
                    threads: run.params.threads,
                    ..Run::default().params
                },
                ..Run::default()
            };
            assert_eq!(w.run, expected, "{filter:?}");
            let of_run = sorted(summaries[&run.id.unwrap()].clone());
            assert_eq!(w.summaries, of_run, "{filter:?}");
        }
    }
}

fn a_walk_host_by_host_brings_each_hosts_runs_together(backend: &Backend) {
    let mut store = backend.open();
    let planted = planted(store.as_mut());
    let mut unfiltered = filters();
    unfiltered.retain(|f| f.limit.is_none());
    for filter in unfiltered {
        let listed = store.list_runs(&filter).unwrap();
        let walked = walked(store.as_ref(), &filter, Walk::Series { by_host: true });
        let hosts: Vec<Option<String>> =
            walked.iter().map(|w| w.run.host.hostname.clone()).collect();
        let mut seen = Vec::new();
        for (i, host) in hosts.iter().enumerate() {
            if i == 0 || hosts[i - 1] != *host {
                assert!(!seen.contains(host), "{host:?} comes twice: {hosts:?}");
                seen.push(host.clone());
            }
        }
        let mut ids: Vec<i64> = walked.iter().filter_map(|w| w.run.id).collect();
        let mut listed_ids: Vec<i64> = listed.iter().filter_map(|r| r.id).collect();
        ids.sort_unstable();
        listed_ids.sort_unstable();
        assert_eq!(ids, listed_ids, "{filter:?}");
    }
    assert_eq!(
        walked(
            store.as_ref(),
            &RunFilter::default(),
            Walk::Series { by_host: true }
        )
        .len(),
        planted
    );
}

fn a_walk_stops_at_the_first_error(backend: &Backend) {
    let mut store = backend.open();
    planted(store.as_mut());
    for read in [
        Walk::Results(Detail::Full),
        Walk::Headlines,
        Walk::Series { by_host: true },
    ] {
        let mut seen = 0;
        let stopped = walk(store.as_ref(), &RunFilter::default(), read, |_| {
            seen += 1;
            match seen {
                3 => Err(StoreError::NoSuchRun("stop".into())),
                _ => Ok(()),
            }
        });
        assert!(
            matches!(stopped, Err(StoreError::NoSuchRun(_))),
            "{stopped:?}"
        );
        assert_eq!(seen, 3);
        // and the store reads on after a walk that stopped half-way
        let mut more = 0;
        let each = &mut |_| {
            more += 1;
            ControlFlow::Continue(())
        };
        store.walk(&RunFilter::default(), read, each).unwrap();
        assert!(more > 3);
    }
}

/// What a stopped walk leaves unread never reaches the statement after it, started at
/// once, forty times in a row. (PostgreSQL's walk once cancelled its query's rest, and
/// the server, acting on the cancel late under CI's load, failed the next statement
/// with it; a test cannot make the server late, but anything a stopped walk leaves on
/// the connection fails this one.)
fn the_statement_after_a_walk_stopped_at_its_first_run_runs_whole(backend: &Backend) {
    let mut store = backend.open();
    let planted = planted(store.as_mut());
    for read in [Walk::Results(Detail::Full), Walk::Headlines] {
        for _ in 0..20 {
            let mut seen = 0;
            let each = &mut |_| {
                seen += 1;
                ControlFlow::Break(())
            };
            store.walk(&RunFilter::default(), read, each).unwrap();
            assert_eq!(seen, 1);
            let whole = walked(store.as_ref(), &RunFilter::default(), read);
            assert_eq!(whole.len(), planted);
        }
    }
}
