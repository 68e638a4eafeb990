//! The run's schedule: warm-up rounds, then measured rounds, each visiting every
//! (engine, cache mode, file size, record size) cell. Interleaved, a round visits the
//! cells in a seeded random order, so a slow minute of the machine spreads over all
//! cells instead of landing on one cell's repetitions (Google Benchmark's random
//! interleaving does the same); grouped, a cell's rounds run back to back.
//! `--repeat auto` adds rounds until every cell's median is known to the precision
//! asked, or the time is spent.

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_xoshiro::Xoshiro256PlusPlus;

use super::{BenchError, Cell, CellRound, Observer, Plan, measure_cell, measure_tree};
use crate::model::{Measurement, RoundOrder, imprecise_cells};

/// Fewer rounds than this give no 95% interval of a median (from order statistics,
/// 1 − 2·0.5⁶ ≈ 96.9% is the first coverage above 95%), so `auto` starts with them.
pub const AUTO_MIN_ROUNDS: u32 = 6;
/// `auto` stops here whatever the precision: a cell this noisy will not settle.
pub const AUTO_MAX_ROUNDS: u32 = 1000;

/// How many measured rounds a run has.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Rounds {
    Fixed(u32),
    /// Until every cell's 95% interval of the median is within ± `precision` (a
    /// fraction of the median), or `max_time` of measuring is spent.
    Auto {
        precision: f64,
        max_time: Duration,
    },
}

impl Rounds {
    pub fn fixed(self) -> Option<u32> {
        match self {
            Rounds::Fixed(n) => Some(n),
            Rounds::Auto { .. } => None,
        }
    }

    /// The rounds planned before any is measured.
    pub fn planned(self) -> u32 {
        self.fixed().unwrap_or(AUTO_MIN_ROUNDS)
    }
}

/// What a run measured.
#[derive(Debug, Default)]
pub struct Outcome {
    pub results: Vec<Measurement>,
    pub warmup: Vec<Measurement>,
    /// Measured rounds done (for `auto`, as many as it took).
    pub rounds: u32,
}

/// Where the run is: the next phase's number and the phases planned so far.
struct Schedule<'a> {
    plan: &'a Plan,
    observer: &'a dyn Observer,
    signal: &'a AtomicBool,
    run_tag: String,
    cells: Vec<Cell>,
    next_step: u64,
    round: u32,
    repeat: u32,
    started: Instant,
}

/// Runs the plan; `signal` is set from outside (Ctrl-C, SIGTERM) to stop early.
pub fn execute(
    plan: &Plan,
    observer: &dyn Observer,
    signal: &AtomicBool,
) -> Result<Outcome, BenchError> {
    let mut schedule = Schedule {
        plan,
        observer,
        signal,
        run_tag: format!("{:08x}", rand::random::<u32>()),
        cells: plan.cells(),
        next_step: 1,
        round: 0,
        repeat: plan.rounds.planned(),
        started: Instant::now(),
    };
    let mut outcome = match plan.order {
        RoundOrder::Interleaved => schedule.interleaved(),
        RoundOrder::Grouped => schedule.grouped(),
    }?;
    // one order whatever the schedule: as the stores give results back
    outcome.results.sort_by_key(Measurement::list_order);
    outcome.warmup.sort_by_key(Measurement::list_order);
    Ok(outcome)
}

impl Schedule<'_> {
    fn interleaved(&mut self) -> Result<Outcome, BenchError> {
        let mut out = Outcome::default();
        for w in 1..=self.plan.warmup {
            out.warmup.extend(self.round_of(&self.shuffled(), w, true)?);
        }
        while out.rounds < self.repeat || self.add_round(&out.results, out.rounds, None) {
            out.rounds += 1;
            let cells = self.shuffled();
            out.results
                .extend(self.round_of(&cells, out.rounds, false)?);
        }
        Ok(out)
    }

    fn grouped(&mut self) -> Result<Outcome, BenchError> {
        let mut out = Outcome::default();
        let cells = self.cells.clone();
        for (i, &cell) in cells.iter().enumerate() {
            for w in 1..=self.plan.warmup {
                out.warmup.extend(self.round_of(&[cell], w, true)?);
            }
            // each cell gets an equal share of what is left of the time
            let deadline = self.deadline(cells.len() - i);
            let mut results = Vec::new();
            let mut done = 0;
            while done < self.repeat || self.add_round(&results, done, Some(deadline)) {
                done += 1;
                results.extend(self.round_of(&[cell], done, false)?);
            }
            out.rounds = out.rounds.max(done);
            out.results.extend(results);
        }
        Ok(out)
    }

    /// One round over `cells`, in that order.
    fn round_of(
        &mut self,
        cells: &[Cell],
        repetition: u32,
        warmup: bool,
    ) -> Result<Vec<Measurement>, BenchError> {
        self.round += 1;
        let mut measured = Vec::new();
        for &cell in cells {
            let cell = CellRound {
                cell,
                repetition,
                warmup,
                round: self.round,
                first_step: self.next_step,
                total: self.plan.phases_with(self.repeat),
                repeat: self.repeat,
                run_tag: &self.run_tag,
            };
            let tests = self.plan.tests_of(&cell.cell).count() as u64;
            measured.extend(match cell.cell.metadata {
                true => measure_tree(self.plan, &cell, self.observer, self.signal)?,
                false => measure_cell(self.plan, &cell, self.observer, self.signal)?,
            });
            self.next_step += tests;
        }
        Ok(measured)
    }

    /// The cells in this round's seeded random order.
    fn shuffled(&self) -> Vec<Cell> {
        let mut cells = self.cells.clone();
        let seed = self.plan.seed ^ u64::from(self.round + 1).rotate_left(48);
        cells.shuffle(&mut Xoshiro256PlusPlus::seed_from_u64(seed));
        cells
    }

    /// When a cell measured from now, with `cells_left` cells to go, must stop.
    fn deadline(&self, cells_left: usize) -> Instant {
        let Rounds::Auto { max_time, .. } = self.plan.rounds else {
            return self.started;
        };
        let left = max_time.saturating_sub(self.started.elapsed());
        Instant::now() + left / cells_left.max(1) as u32
    }

    /// Under `auto`: whether another round is worth measuring after `done` rounds:
    /// some cell is not yet precise, and the round fits in the time left.
    fn add_round(&mut self, results: &[Measurement], done: u32, deadline: Option<Instant>) -> bool {
        let Rounds::Auto {
            precision,
            max_time,
        } = self.plan.rounds
        else {
            return false;
        };
        if done >= AUTO_MAX_ROUNDS || imprecise_cells(results, precision).is_empty() {
            return false;
        }
        let deadline = deadline.unwrap_or(self.started + max_time);
        let per_round = self.started.elapsed() / (self.plan.warmup + done).max(1);
        if Instant::now() + per_round > deadline {
            return false;
        }
        self.repeat = self.repeat.max(done + 1);
        true
    }
}
