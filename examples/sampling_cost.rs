//! What timing one operation adds to it, for `scripts/metadata-overhead.sh`: the work a
//! sampled operation does and an unsampled one does not (two clock reads and a record
//! into the latency histogram, as `bench::latency::Sampler` makes them), timed in a
//! tight loop, the least of several trials (the cost itself, not the machine's load).
//!
//!     cargo run --release --example sampling_cost -- [TRIALS] [ITERATIONS]
//!
//! Prints the nanoseconds one sampled operation adds.

use std::hint::black_box;
use std::time::Instant;

use hdrhistogram::Histogram;

fn main() {
    let mut args = std::env::args().skip(1);
    let trials: u32 = args.next().map_or(20, |a| a.parse().expect("TRIALS"));
    let iterations: u64 = args
        .next()
        .map_or(1_000_000, |a| a.parse().expect("ITERATIONS"));
    // as the sampler makes it: 1 ns..60 s, 3 digits, sized up front
    let mut histogram = Histogram::<u64>::new_with_bounds(1, 60_000_000_000, 3).unwrap();
    histogram.auto(true);
    let least = (0..trials)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..iterations {
                let timer = black_box(Instant::now());
                let ns = timer.elapsed().as_nanos().clamp(1, u64::MAX as u128) as u64;
                histogram.saturating_record(black_box(ns));
            }
            start.elapsed().as_nanos() as f64 / iterations as f64
        })
        .fold(f64::INFINITY, f64::min);
    println!("{least:.1}");
}
