//! The metadata tests: mkdir, create, stat, open, readfile, readdir, rename, unlink
//! and rmdir, each a timed phase over a tree of small files (`--files` in each of
//! `--dirs` directories, per thread), counted in operations per second. One round of
//! the metadata cell makes a fresh tree, runs every metadata test of the run over it
//! in canonical order with a thread per `--threads`, and removes it.
//!
//! They go through plain system calls whatever the engines of the run (they move no
//! records): their figures are recorded under the posix engine, which the plan
//! requires among the engines.

mod caches;
mod ops;
mod tree;
mod worker;

use std::sync::Barrier;
use std::sync::atomic::AtomicBool;

pub(crate) use caches::{allow_open_directories, can_drop_caches};
pub(crate) use tree::TREE_SUFFIX;

use self::ops::Timed;
use self::tree::{Share, TreeRoot};
use self::worker::MetaWorker;
use super::cache::CachePolicy;
use super::latency;
use super::{BenchError, Cancel, CellRound, Observer, Plan};
use crate::model::Measurement;
use crate::units::ByteSize;

/// One round of the metadata cell: every metadata test once, in order, by every thread
/// in lockstep, over a fresh tree removed at the end whatever happens.
pub(crate) fn measure_tree(
    plan: &Plan,
    cell: &CellRound,
    observer: &dyn Observer,
    signal: &AtomicBool,
) -> Result<Vec<Measurement>, BenchError> {
    let tree = plan.tree().expect("a metadata cell has a tree");
    let cancel = Cancel {
        signal,
        failed: AtomicBool::new(false),
    };
    let root = TreeRoot::create(&plan.dir, cell.run_tag)
        .map_err(|e| BenchError::io(format!("making the tree in {}", plan.dir.display()), e))?;
    let barrier = Barrier::new(plan.threads as usize);
    let cache = CachePolicy::of(cell.cell.cache);
    let drops_caches = !tree.warm;
    let results: Vec<Result<Vec<Timed>, BenchError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..plan.threads)
            .map(|worker| {
                let worker = MetaWorker {
                    plan,
                    share: Share {
                        tree,
                        threads: plan.threads,
                        worker,
                    },
                    cache,
                    drops_caches,
                    root: &root,
                    cell,
                    cancel: &cancel,
                    barrier: &barrier,
                    observer: (worker == 0).then_some(observer),
                    tally: observer.tally(),
                };
                scope.spawn(move || worker.run())
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    drop(root);
    let per_worker = first_error(results, &cancel)?;
    let measured = combine(per_worker, cell);
    for m in &measured {
        observer.measured(m, cell.warmup);
    }
    Ok(measured)
}

/// The error that caused the stop: a real fault beats the cancellations it triggered.
fn first_error(
    results: Vec<Result<Vec<Timed>, BenchError>>,
    cancel: &Cancel,
) -> Result<Vec<Vec<Timed>>, BenchError> {
    let mut ok = Vec::new();
    let mut interrupted = false;
    for r in results {
        match r {
            Ok(t) => ok.push(t),
            Err(BenchError::Interrupted) => interrupted = true,
            Err(e) => return Err(e),
        }
    }
    if interrupted || cancel.by_signal() {
        return Err(BenchError::Interrupted);
    }
    Ok(ok)
}

/// Folds the threads' phases into one measurement per test: operations and bytes
/// summed, time from the first thread's start to the last one's end, latency
/// histograms merged; the rate is operations per second.
fn combine(per_worker: Vec<Vec<Timed>>, cell: &CellRound) -> Vec<Measurement> {
    let mut workers = per_worker.into_iter();
    let Some(mut merged) = workers.next() else {
        return Vec::new();
    };
    for phases in workers {
        for (acc, p) in merged.iter_mut().zip(phases) {
            acc.ops += p.ops;
            acc.bytes += p.bytes;
            acc.start = acc.start.min(p.start);
            acc.end = acc.end.max(p.end);
            if let (Some(h), Some(other)) = (&mut acc.histogram, &p.histogram) {
                h.add(other)
                    .expect("histograms auto-resize, so adding cannot overflow");
            }
        }
    }
    merged
        .into_iter()
        .map(|p| {
            let elapsed_ns = p.end.duration_since(p.start).as_nanos().max(1) as u64;
            Measurement {
                test: p.test,
                file_size: ByteSize(0),
                record_size: ByteSize(0),
                repetition: cell.repetition,
                bytes: p.bytes,
                elapsed_ns,
                throughput: p.ops as f64 * 1e9 / elapsed_ns as f64,
                latency_ns: p
                    .histogram
                    .as_ref()
                    .and_then(latency::summarize)
                    .map(Box::new),
                engine: cell.cell.engine,
                cache: cell.cell.cache,
                ops: Some(p.ops),
            }
        })
        .collect()
}
