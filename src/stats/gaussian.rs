//! Standard normal draws from a seeded generator, for the statistics' simulations
//! (tests only): Box–Muller (Box & Muller 1958) from a seeded xoshiro256++, so every
//! run of a test sees the same trials.

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// Standard normal draws from a seeded generator.
pub(crate) struct Gaussian {
    rng: Xoshiro256PlusPlus,
    spare: Option<f64>,
}

impl Gaussian {
    pub(crate) fn new(seed: u64) -> Gaussian {
        Gaussian {
            rng: Xoshiro256PlusPlus::seed_from_u64(seed),
            spare: None,
        }
    }

    /// One draw; Box–Muller makes two at a time and the second waits for the next call.
    pub(crate) fn sample(&mut self) -> f64 {
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

#[test]
fn gaussian_draws_have_unit_moments() {
    let mut z = Gaussian::new(9);
    let draws: Vec<f64> = (0..20_000).map(|_| z.sample()).collect();
    let mean = draws.iter().sum::<f64>() / draws.len() as f64;
    let variance = draws.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / draws.len() as f64;
    assert!(mean.abs() < 0.03, "mean {mean}");
    assert!((variance - 1.0).abs() < 0.05, "variance {variance}");
}
