//! The other processes measuring the same plan at the same time: one per MPI rank,
//! started together by a launcher. The engine knows them only through [`Peers`] (the
//! MPI side is `cluster`'s): they meet before every timed phase, so that every phase
//! begins on all ranks at once, and after every cell, where rank 0 gathers each rank's
//! figures and folds them into the run's measurements, as a cell folds its workers'.
//!
//! Every rank calls every meeting of a cell, failed or not (as every worker reaches
//! every barrier), so none waits for one that will never come; a failure is said at
//! the next meeting, and sooner by [`Peers::alarm`].

use std::sync::atomic::{AtomicU64, Ordering};

use hdrhistogram::Histogram;

use super::latency;
use crate::model::{self, Measurement, RankFigure, RankFigures};

/// How a process stands when all meet; each learns the worst of all.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Standing {
    Ready = 0,
    /// Stopped by a signal, or because another rank asked it to stop.
    Interrupted = 1,
    Failed = 2,
}

impl Standing {
    /// The standing a number from [`Peers::meet`]'s reduction stands for.
    pub fn of(value: u8) -> Standing {
        match value {
            0 => Standing::Ready,
            1 => Standing::Interrupted,
            _ => Standing::Failed,
        }
    }
}

/// The processes measuring together, as the engine needs them.
pub trait Peers: Sync {
    /// This process's rank: 0 leads (it decides, gathers and records).
    fn rank(&self) -> u32;
    /// How many processes measure together.
    fn size(&self) -> u32;
    /// The name of the host rank `rank` runs on, as its files are named.
    fn host(&self, rank: u32) -> &str;
    /// The process id of rank `rank`, on its host.
    fn pid(&self, rank: u32) -> u32;
    /// Returns once every process has called it, with the worst standing of all: the
    /// barrier that begins each phase, and that ends each cell.
    fn meet(&self, mine: Standing) -> Standing;
    /// Every process's words, in rank order, on rank 0; `None` on the others.
    fn gather(&self, mine: &[u64]) -> Option<Vec<Vec<u64>>>;
    /// Rank 0's value, on every process.
    fn share(&self, value: u64) -> u64;
    /// Tells the others that this process failed, so that they stop the phase they are
    /// timing now rather than at its end.
    fn alarm(&self);
    /// This process's stonewall, which the others' [`Peers::wall`] make fall.
    fn stonewall(&self) -> &Stonewall;
    /// Tells the others that a worker here finished phase `step` first (`--stonewall`):
    /// theirs stop.
    fn wall(&self, step: u64);
}

/// `--stonewall`: the latest phase (by its step, 1-based in the run) in which a worker,
/// here or of another rank, has finished; every worker of that phase stops at its next
/// operation. Only ever raised, so a wall from a phase that others have not yet begun
/// still stops them when they do.
#[derive(Debug, Default)]
pub struct Stonewall(AtomicU64);

impl Stonewall {
    /// A wall that never falls: what a run without `--stonewall` checks against, with
    /// phases of step [`u64::MAX`].
    pub const NEVER: u64 = u64::MAX;

    /// Whether the wall has fallen in phase `step`.
    #[inline]
    pub fn fell_in(&self, step: u64) -> bool {
        self.0.load(Ordering::Relaxed) >= step
    }

    /// Says that a worker finished phase `step`: true for the first to say so here.
    pub fn fall(&self, step: u64) -> bool {
        self.0.fetch_max(step, Ordering::Relaxed) < step
    }
}

/// One rank's share of one phase: what its workers moved, from the first one's start
/// to the last one's end, in nanoseconds after it left the barrier, and the latency
/// its workers sampled.
pub(crate) struct RankPhase {
    pub figure: RankFigure,
    pub histogram: Option<Histogram<u64>>,
}

impl RankPhase {
    /// As words to gather: bytes, start, end, then the histogram's (value, count)
    /// pairs, counted.
    pub fn words(&self, out: &mut Vec<u64>) {
        let f = &self.figure;
        out.extend([f.bytes, f.start_ns, f.end_ns]);
        let pairs: Vec<(u64, u64)> = match &self.histogram {
            Some(h) => (h.iter_recorded())
                .map(|v| (v.value_iterated_to(), v.count_at_value()))
                .collect(),
            None => Vec::new(),
        };
        out.push(pairs.len() as u64);
        for (value, count) in pairs {
            out.extend([value, count]);
        }
    }

    /// The phases `words` holds, one per test; `None` when they are not whole.
    pub fn from_words(mut words: &[u64], tests: usize) -> Option<Vec<RankPhase>> {
        let mut phases = Vec::with_capacity(tests);
        for _ in 0..tests {
            let (&[bytes, start_ns, end_ns, pairs], rest) = words.split_first_chunk::<4>()?;
            let (samples, rest) = rest.split_at_checked(2 * usize::try_from(pairs).ok()?)?;
            let histogram = (!samples.is_empty()).then(|| {
                let mut h = Histogram::new_with_bounds(1, 60_000_000_000, 3)
                    .expect("static histogram bounds are valid");
                h.auto(true);
                for pair in samples.chunks_exact(2) {
                    let _ = h.record_n(pair[0].max(1), pair[1]);
                }
                h
            });
            let figure = RankFigure {
                bytes,
                start_ns,
                end_ns,
            };
            phases.push(RankPhase { figure, histogram });
            words = rest;
        }
        words.is_empty().then_some(phases)
    }
}

/// Rank 0's fold of every rank's phases of one cell (`ranks[r][t]`: rank r, test t)
/// into one measurement per test, as [`super::cell`] folds workers: bytes summed, from
/// the earliest start to the latest end ("all done"), latency merged; and each
/// measurement's figures per rank.
pub(crate) fn fold(
    ranks: Vec<Vec<RankPhase>>,
    template: &[Measurement],
    warmup: bool,
) -> (Vec<Measurement>, Vec<RankFigures>) {
    let mut measured = Vec::with_capacity(template.len());
    let mut figures = Vec::with_capacity(template.len());
    for (t, m) in template.iter().enumerate() {
        let per_rank: Vec<RankFigure> = ranks.iter().map(|phases| phases[t].figure).collect();
        let mut merged: Option<Histogram<u64>> = None;
        for h in ranks
            .iter()
            .filter_map(|phases| phases[t].histogram.as_ref())
        {
            match &mut merged {
                Some(all) => all
                    .add(h)
                    .expect("histograms auto-resize, so adding cannot overflow"),
                None => merged = Some(h.clone()),
            }
        }
        let (elapsed_ns, bytes) = model::span(&per_rank);
        measured.push(Measurement {
            bytes,
            elapsed_ns,
            throughput: bytes as f64 * 1e9 / elapsed_ns as f64,
            latency_ns: merged.as_ref().and_then(latency::summarize).map(Box::new),
            ..m.clone()
        });
        figures.push(RankFigures {
            test: m.test,
            file_size: m.file_size,
            record_size: m.record_size,
            repetition: m.repetition,
            engine: m.engine,
            cache: m.cache,
            warmup,
            ranks: per_rank,
        });
    }
    (measured, figures)
}

/// Text as words to gather: its length, then its bytes eight to a word.
pub(crate) fn text_words(text: &str) -> Vec<u64> {
    let bytes = text.as_bytes();
    let mut words = vec![bytes.len() as u64];
    words.extend(bytes.chunks(8).map(|chunk| {
        let mut word = [0u8; 8];
        word[..chunk.len()].copy_from_slice(chunk);
        u64::from_le_bytes(word)
    }));
    words
}

/// The text [`text_words`] made.
pub(crate) fn words_text(words: &[u64]) -> String {
    let Some((&len, rest)) = words.split_first() else {
        return String::new();
    };
    let bytes: Vec<u8> = rest.iter().flat_map(|w| w.to_le_bytes()).collect();
    String::from_utf8_lossy(&bytes[..(len as usize).min(bytes.len())]).into_owned()
}

/// The size of the shared file of `plan` with `ranks` ranks: each worker of each rank
/// its own region of the largest file size.
pub(crate) fn shared_len(file_size: u64, threads: u32, ranks: u32) -> u64 {
    file_size * u64::from(threads) * u64::from(ranks)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_survives_the_words() {
        for text in [
            "",
            "x",
            "eight ch",
            "no space left on device while writing é",
        ] {
            assert_eq!(words_text(&text_words(text)), text);
        }
    }

    #[test]
    fn a_ranks_phases_survive_the_words() {
        let mut h = Histogram::new_with_bounds(1, 60_000_000_000, 3).unwrap();
        h.auto(true);
        for ns in [1_000, 2_000, 2_000, 90_000] {
            h.record(ns).unwrap();
        }
        let phases = [
            RankPhase {
                figure: RankFigure {
                    bytes: 4096,
                    start_ns: 12,
                    end_ns: 5_000,
                },
                histogram: Some(h.clone()),
            },
            RankPhase {
                figure: RankFigure {
                    bytes: 8192,
                    start_ns: 3,
                    end_ns: 9_000,
                },
                histogram: None,
            },
        ];
        let mut words = Vec::new();
        for p in &phases {
            p.words(&mut words);
        }
        let back = RankPhase::from_words(&words, 2).unwrap();
        assert_eq!(back[0].figure, phases[0].figure);
        assert_eq!(back[1].figure, phases[1].figure);
        assert_eq!(back[0].histogram.as_ref().unwrap().len(), 4);
        assert_eq!(back[0].histogram.as_ref().unwrap().max(), h.max());
        assert!(back[1].histogram.is_none());
        assert!(RankPhase::from_words(&words[..words.len() - 1], 2).is_none());
        assert!(RankPhase::from_words(&words, 3).is_none());
    }
}
