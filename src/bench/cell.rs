//! One round of one cell: a worker per thread, each on its own file, in lockstep
//! through every test; their phases folded into one measurement per test.

use std::sync::Barrier;
use std::sync::atomic::AtomicBool;

use super::cache::CachePolicy;
use super::engine;
use super::latency;
use super::worker::{PhaseTiming, Worker};
use super::{BenchError, Cancel, Cell, Observer, Plan};
use crate::model::Measurement;
use crate::units::ByteSize;

/// Which round of which cell to measure, and where it sits in the run's progress.
pub(crate) struct CellRound<'a> {
    pub cell: Cell,
    pub repetition: u32,
    pub warmup: bool,
    /// 1-based among all rounds, warm-up included: seeds the round's random orders.
    pub round: u32,
    pub first_step: u64,
    pub total: u64,
    pub repeat: u32,
    pub run_tag: &'a str,
}

/// One round of one (file size, record size) cell: every test once, in order, by every
/// worker in lockstep, on fresh files.
pub(crate) fn measure_cell(
    plan: &Plan,
    cell: &CellRound,
    observer: &dyn Observer,
    signal: &AtomicBool,
) -> Result<Vec<Measurement>, BenchError> {
    let cancel = Cancel {
        signal,
        failed: AtomicBool::new(false),
    };
    let barrier = Barrier::new(plan.threads as usize);
    let cache = CachePolicy::of(cell.cell.cache);
    let engine = engine::of(cell.cell.engine)?;
    let results: Vec<Result<Vec<PhaseTiming>, BenchError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..plan.threads)
            .map(|index| {
                let worker = Worker {
                    plan,
                    engine,
                    cache,
                    index,
                    cell,
                    cancel: &cancel,
                    barrier: &barrier,
                    observer: (index == 0).then_some(observer),
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
    let per_worker = first_error(results, &cancel)?;
    let measured = combine(per_worker, cell);
    for m in &measured {
        observer.measured(m, cell.warmup);
    }
    Ok(measured)
}

/// The error that caused the stop: a real fault beats the cancellations it triggered.
fn first_error(
    results: Vec<Result<Vec<PhaseTiming>, BenchError>>,
    cancel: &Cancel,
) -> Result<Vec<Vec<PhaseTiming>>, BenchError> {
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

/// Folds the workers' phases into one measurement per phase: bytes summed, time from
/// the first worker's start to the last one's end, latency histograms merged.
fn combine(per_worker: Vec<Vec<PhaseTiming>>, cell: &CellRound) -> Vec<Measurement> {
    let mut workers = per_worker.into_iter();
    let Some(mut merged) = workers.next() else {
        return Vec::new();
    };
    for phases in workers {
        for (acc, p) in merged.iter_mut().zip(phases) {
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
                file_size: ByteSize(cell.cell.file_size),
                record_size: ByteSize(cell.cell.record),
                repetition: cell.repetition,
                bytes: p.bytes,
                elapsed_ns,
                throughput: p.bytes as f64 * 1e9 / elapsed_ns as f64,
                latency_ns: p
                    .histogram
                    .as_ref()
                    .and_then(latency::summarize)
                    .map(Box::new),
                engine: cell.cell.engine,
                cache: cell.cell.cache,
                ops: None,
            }
        })
        .collect()
}
