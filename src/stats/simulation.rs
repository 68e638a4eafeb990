//! Seeded simulations of the comparison's decision rule, for tests only: does
//! "Mann–Whitney p, adjusted by Benjamini–Hochberg, below α, and medians apart by more
//! than a threshold" catch a real 15% regression from five repetitions, and stay
//! quiet when nothing changed? Noise is Gaussian by Box–Muller (Box & Muller 1958)
//! from a seeded xoshiro256++, so every run sees the same trials.

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use super::Summary;
use super::mannwhitney::mann_whitney_u;
use super::multiple::benjamini_hochberg;

/// Standard normal draws from a seeded generator.
pub(super) struct Gaussian {
    rng: Xoshiro256PlusPlus,
    spare: Option<f64>,
}

impl Gaussian {
    pub(super) fn new(seed: u64) -> Gaussian {
        Gaussian {
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
            spare: None,
        }
    }

    /// One draw; Box–Muller makes two at a time and the second waits for the next call.
    pub(super) fn sample(&mut self) -> f64 {
        if let Some(z) = self.spare.take() {
            return z;
        }
        let radius = (-2.0 * self.unit().ln()).sqrt();
        let angle = std::f64::consts::TAU * self.unit();
        self.spare = Some(radius * angle.sin());
        radius * angle.cos()
    }

    /// Uniform in (0, 1]: never 0, whose logarithm Box–Muller cannot take.
    fn unit(&mut self) -> f64 {
        ((self.rng.next_u64() >> 11) + 1) as f64 / (1u64 << 53) as f64
    }
}

const ALPHA: f64 = 0.05;
const THRESHOLD: f64 = 0.05;
const REPETITIONS: usize = 5;
const NOISE: f64 = 0.03;
const TRIALS: usize = 200;

/// The product's rule, restated here: the relative change of the medians when the
/// difference is significant after adjustment and beyond the threshold, else `None`.
fn verdict(baseline: &[f64], candidate: &[f64]) -> Option<f64> {
    let p = mann_whitney_u(baseline, candidate)?.p_value;
    // One row per trial: the adjustment is the identity, applied for the shape.
    let q = benjamini_hochberg(&[p])[0];
    let change = Summary::of(candidate)?.median / Summary::of(baseline)?.median - 1.0;
    (q < ALPHA && change.abs() > THRESHOLD).then_some(change)
}

fn repetitions(level: f64, z: &mut Gaussian) -> Vec<f64> {
    (0..REPETITIONS)
        .map(|_| level * (1.0 + NOISE * z.sample()))
        .collect()
}

/// The share of trials in which `flagged` holds for the verdict on a baseline at 100
/// against a candidate at `candidate_level`.
fn rate(candidate_level: f64, seed: u64, flagged: impl Fn(Option<f64>) -> bool) -> f64 {
    let mut z = Gaussian::new(seed);
    let hits = (0..TRIALS)
        .filter(|_| {
            let baseline = repetitions(100.0, &mut z);
            let candidate = repetitions(candidate_level, &mut z);
            flagged(verdict(&baseline, &candidate))
        })
        .count();
    hits as f64 / TRIALS as f64
}

#[test]
fn a_real_fifteen_percent_drop_is_flagged() {
    let power = rate(85.0, 2024, |v| v.is_some_and(|change| change < 0.0));
    println!(
        "15% drop flagged as a regression in {:.1}% of {TRIALS} trials",
        power * 100.0
    );
    assert!(power >= 0.90, "power {power}");
}

#[test]
fn no_change_is_rarely_flagged() {
    let false_alarms = rate(100.0, 2025, |v| v.is_some());
    println!(
        "no change flagged in {:.1}% of {TRIALS} trials",
        false_alarms * 100.0
    );
    assert!(false_alarms <= 0.05, "false alarm rate {false_alarms}");
}

#[test]
fn gaussian_draws_have_unit_moments() {
    let mut z = Gaussian::new(9);
    let draws: Vec<f64> = (0..20_000).map(|_| z.sample()).collect();
    let mean = draws.iter().sum::<f64>() / draws.len() as f64;
    let variance = draws.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / draws.len() as f64;
    assert!(mean.abs() < 0.03, "mean {mean}");
    assert!((variance - 1.0).abs() < 0.05, "variance {variance}");
}
