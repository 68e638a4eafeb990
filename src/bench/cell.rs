//! One round of one cell: a worker per thread, each on its own file (or its region of
//! the one shared file), in lockstep through every test; their phases folded into one
//! measurement per test. With other clients, each phase begins when all have met, and
//! rank 0 folds every rank's phases as a rank folds its workers'.

use std::path::Path;
use std::sync::Barrier;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use super::cache::CachePolicy;
use super::engine;
use super::file::{FileNames, TestFile};
use super::latency;
use super::peers::{Peers, RankPhase, Standing, Stonewall, shared_len, text_words, words_text};
use super::worker::{PhaseTiming, Worker};
use super::{BenchError, Cancel, Cell, Observer, Plan};
use crate::model::{CacheMode, Measurement, RankFigure, RankFigures};
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
    pub files: &'a FileNames,
    /// The other clients measuring with this one, in a run of many.
    pub peers: Option<&'a dyn Peers>,
    /// The file every worker shares this round (`--shared-file`), each its region.
    pub shared: Option<&'a Path>,
    /// The run's stonewall (`--stonewall`; never checked without it).
    pub wall: &'a Stonewall,
}

/// What one round of one cell measured: a measurement per test (none on a rank other
/// than 0, which keeps every rank's), and each one's figures per rank.
#[derive(Default)]
pub(crate) struct Measured {
    pub measurements: Vec<Measurement>,
    pub ranks: Vec<RankFigures>,
}

/// One round of one (file size, record size) cell: every test once, in order, by every
/// worker in lockstep, on fresh files; with other clients, in lockstep with theirs.
pub(crate) fn measure_cell(
    plan: &Plan,
    cell: &CellRound,
    observer: &dyn Observer,
    signal: &AtomicBool,
) -> Result<Measured, BenchError> {
    let cancel = Cancel {
        signal,
        failed: AtomicBool::new(false),
    };
    // rank 0's shared file lives until every client is done with the round
    let (shared, local) = match SharedFile::begin(plan, cell, &cancel) {
        Ok(file) => {
            let local = run_workers(
                plan,
                &CellRound {
                    shared: file.as_ref().map(TestFile::path),
                    ..*cell
                },
                observer,
                &cancel,
            );
            (file, local)
        }
        Err(e) => (None, Err(e)),
    };
    let measured = match cell.peers {
        None => local.map(|per_worker| Measured {
            measurements: combine(per_worker, cell).0,
            ranks: Vec::new(),
        }),
        Some(peers) => exchange(peers, local, cell),
    }?;
    drop(shared);
    for m in &measured.measurements {
        observer.measured(m, cell.warmup);
    }
    Ok(measured)
}

/// Every worker through every test of the round, on threads of their own.
fn run_workers(
    plan: &Plan,
    cell: &CellRound,
    observer: &dyn Observer,
    cancel: &Cancel,
) -> Result<Vec<Vec<PhaseTiming>>, BenchError> {
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
                    cancel,
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
    first_error(results, cancel)
}

/// The end of a round with other clients: all meet, and either learn that one failed
/// (every rank then returns the first failed rank's error, which rank 0 learns in
/// full) or was interrupted, or rank 0 gathers every rank's figures and folds them.
fn exchange(
    peers: &dyn Peers,
    local: Result<Vec<Vec<PhaseTiming>>, BenchError>,
    cell: &CellRound,
) -> Result<Measured, BenchError> {
    let mine = match &local {
        Ok(_) => Standing::Ready,
        Err(e) if e.is_interrupted() => Standing::Interrupted,
        Err(_) => Standing::Failed,
    };
    match peers.meet(mine) {
        Standing::Ready => {}
        Standing::Interrupted => return Err(BenchError::Interrupted),
        Standing::Failed => return Err(failed_rank(peers, mine, local.err())),
    }
    let (own, phases) = combine(local?, cell);
    let mut words = Vec::new();
    for phase in &phases {
        phase.words(&mut words);
    }
    let Some(all) = peers.gather(&words) else {
        return Ok(Measured::default());
    };
    let ranks = (all.iter())
        .map(|words| RankPhase::from_words(words, own.len()))
        .collect::<Option<Vec<_>>>()
        .ok_or(BenchError::Garbled)?;
    let (measurements, ranks) = super::peers::fold(ranks, &own, cell.warmup);
    Ok(Measured {
        measurements,
        ranks,
    })
}

/// The first rank that failed, and its error: rank 0 gathers every rank's, then says
/// which rank it was to all.
fn failed_rank(peers: &dyn Peers, mine: Standing, error: Option<BenchError>) -> BenchError {
    let text = match (mine, &error) {
        (Standing::Failed, Some(e)) => e.to_string(),
        _ => String::new(),
    };
    let mut words = vec![mine as u64];
    words.extend(text_words(&text));
    let first = peers.gather(&words).and_then(|all| {
        (all.iter().enumerate())
            .find(|(_, words)| words.first() == Some(&(Standing::Failed as u64)))
            .map(|(rank, words)| (rank as u32, words_text(&words[1..])))
    });
    let rank = peers.share(
        first
            .as_ref()
            .map_or(u64::from(peers.rank()), |f| u64::from(f.0)),
    );
    let rank = rank as u32;
    BenchError::Client {
        rank,
        error: match first {
            Some((_, text)) => text,
            None if rank == peers.rank() => text,
            None => String::new(),
        },
    }
}

/// The shared file of a round (`--shared-file`): rank 0 (or the one process) creates
/// it, sized for every worker's region, before anyone opens it; every client meets
/// then, so none opens it before it is there.
struct SharedFile;

impl SharedFile {
    fn begin(
        plan: &Plan,
        cell: &CellRound,
        cancel: &Cancel,
    ) -> Result<Option<TestFile>, BenchError> {
        if !plan.shared_file {
            return Ok(None);
        }
        let ranks = cell.peers.map_or(1, |p| p.size());
        let path = cell
            .files
            .shared(&plan.dir, cell.peers.map(|p| (p.pid(0), p.host(0))));
        let leads = cell.peers.is_none_or(|p| p.rank() == 0);
        let mut file = match leads {
            true => TestFile::at(path),
            false => TestFile::joined(path),
        };
        let made: Result<(), BenchError> = match leads {
            true => (file.create(CachePolicy::of(CacheMode::Buffered)))
                .and_then(|f| f.set_len(shared_len(cell.cell.file_size, plan.threads, ranks)))
                .map_err(|e| BenchError::io(format!("creating {}", file.path().display()), e)),
            false => Ok(()),
        };
        let mine = match (&made, cancel.by_signal()) {
            (Err(_), _) => Standing::Failed,
            (Ok(()), true) => Standing::Interrupted,
            (Ok(()), false) => Standing::Ready,
        };
        let all = cell.peers.map_or(mine, |p| p.meet(mine));
        match (made, all) {
            (Err(e), _) => Err(e),
            (Ok(()), Standing::Ready) => Ok(Some(file)),
            (Ok(()), _) => Err(BenchError::Interrupted),
        }
    }
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
/// the first worker's start to the last one's end, latency histograms merged; and, in
/// a run of many clients, this rank's share of each, timed from the meeting that
/// began the phase.
fn combine(
    per_worker: Vec<Vec<PhaseTiming>>,
    cell: &CellRound,
) -> (Vec<Measurement>, Vec<RankPhase>) {
    let mut workers = per_worker.into_iter();
    let Some(mut merged) = workers.next() else {
        return (Vec::new(), Vec::new());
    };
    for phases in workers {
        for (acc, p) in merged.iter_mut().zip(phases) {
            acc.bytes += p.bytes;
            acc.start = acc.start.min(p.start);
            acc.end = acc.end.max(p.end);
            acc.gated_at = acc.gated_at.or(p.gated_at);
            if let (Some(h), Some(other)) = (&mut acc.histogram, &p.histogram) {
                h.add(other)
                    .expect("histograms auto-resize, so adding cannot overflow");
            }
        }
    }
    let measurements = (merged.iter())
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
        .collect();
    let since = |gated_at: Option<Instant>, at: Instant| {
        gated_at.map_or(0, |g| at.saturating_duration_since(g).as_nanos() as u64)
    };
    let phases = (merged.into_iter())
        .map(|p| RankPhase {
            figure: RankFigure {
                bytes: p.bytes,
                start_ns: since(p.gated_at, p.start),
                end_ns: since(p.gated_at, p.end),
            },
            histogram: p.histogram,
        })
        .collect();
    (measurements, phases)
}
