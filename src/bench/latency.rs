//! Per-operation latency, sampled. Reading the clock twice around every 512-byte
//! operation costs about 13% of its throughput, so only every k-th operation is timed,
//! with k chosen so the clock is never a noticeable part of the loop (see docs/methodology.md, "Latency").
//! The gaps between timed operations are random with mean k, not exactly k: a fixed
//! gap of 32 × 512 B would time only the first write into each new 16 KiB, the one
//! that allocates a page, and every percentile would describe page allocation.

use std::time::Duration;

use hdrhistogram::Histogram;

use crate::model::Latency;

/// Operations of this many bytes or more are all timed; smaller records are sampled
/// so that one operation per this many bytes is timed. At 512 B that is one in 32:
/// 2,048 samples from a 32 MiB file, enough for a p99.9, at under 2% of throughput.
const TIMED_BYTES_PER_SAMPLE: u64 = 16384;

/// The sampling interval for a record size: 1 (every operation) from 16 KiB up.
pub fn interval(record: u64) -> u32 {
    (TIMED_BYTES_PER_SAMPLE / record.max(1)).clamp(1, 64) as u32
}

/// Decides which operations to time and collects their durations.
pub struct Sampler {
    every: u64,
    /// xorshift state for the gaps: cheap, and seeded so a run's samples repeat.
    rng: u64,
    /// Operations until the next timed one; never reaches zero when disabled, so the
    /// per-operation check is one decrement and one compare.
    countdown: u64,
    histogram: Option<Histogram<u64>>,
}

impl Sampler {
    pub fn new(enabled: bool, record: u64, seed: u64) -> Self {
        let histogram = enabled.then(|| {
            // sized up front for 1 ns..60 s so no allocation happens in the timed loop
            let mut h = Histogram::new_with_bounds(1, 60_000_000_000, 3)
                .expect("static histogram bounds are valid");
            h.auto(true);
            h
        });
        let mut sampler = Sampler {
            every: u64::from(interval(record)),
            rng: seed | 1,
            countdown: u64::MAX,
            histogram,
        };
        if sampler.histogram.is_some() {
            // the first sample falls within the first k operations
            sampler.countdown = 1 + sampler.next_gap() % sampler.every;
        }
        sampler
    }

    /// A sampler that times one operation in `every` on average, whatever their size:
    /// for operations that move no records (the metadata tests').
    pub fn every(enabled: bool, every: u32, seed: u64) -> Self {
        let mut sampler = Sampler::new(enabled, TIMED_BYTES_PER_SAMPLE, seed);
        sampler.every = u64::from(every.max(1));
        if sampler.histogram.is_some() {
            sampler.countdown = 1 + sampler.next_gap() % sampler.every;
        }
        sampler
    }

    /// Whether the next operation is to be timed.
    #[inline]
    pub fn due(&mut self) -> bool {
        self.countdown -= 1;
        if self.countdown == 0 {
            self.countdown = self.next_gap();
            true
        } else {
            false
        }
    }

    /// A gap uniform in 1..=2k−1, so its mean is k.
    fn next_gap(&mut self) -> u64 {
        if self.every == 1 {
            return 1;
        }
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        1 + self.rng % (2 * self.every - 1)
    }

    #[inline]
    pub fn record(&mut self, elapsed: Duration) {
        if let Some(h) = &mut self.histogram {
            let ns = elapsed.as_nanos().clamp(1, u64::MAX as u128) as u64;
            h.saturating_record(ns);
        }
    }

    pub fn into_histogram(self) -> Option<Histogram<u64>> {
        self.histogram
    }
}

/// The percentiles a measurement records (p50, p99, p99.9, max) from a (possibly merged) histogram.
pub fn summarize(h: &Histogram<u64>) -> Option<Latency> {
    if h.is_empty() {
        return None;
    }
    Some(Latency {
        p50: h.value_at_quantile(0.50),
        p99: h.value_at_quantile(0.99),
        p999: h.value_at_quantile(0.999),
        max: h.max(),
        samples: h.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_records_are_sampled_large_ones_all_timed() {
        assert_eq!(interval(512), 32);
        assert_eq!(interval(4096), 4);
        assert_eq!(interval(8192), 2);
        assert_eq!(interval(16384), 1);
        assert_eq!(interval(65536), 1);
        assert_eq!(interval(1), 64);
    }

    #[test]
    fn sampler_times_one_in_k_at_every_alignment() {
        let mut s = Sampler::new(true, 512, 7);
        let due: Vec<usize> = (0..320_000).filter(|_| s.due()).collect();
        // one in 32 on average
        assert!((9_500..10_500).contains(&due.len()), "{}", due.len());
        assert!(due[0] < 32);
        // every position within a 16 KiB stretch of 512 B records gets sampled alike
        let mut by_alignment = [0u32; 32];
        for i in &due {
            by_alignment[i % 32] += 1;
        }
        let (lo, hi) = (
            by_alignment.iter().min().unwrap(),
            by_alignment.iter().max().unwrap(),
        );
        assert!(*lo > 200 && *hi < 450, "{by_alignment:?}");
        let mut off = Sampler::new(false, 512, 7);
        assert!((0..100).all(|_| !off.due()));
        let mut all = Sampler::new(true, 65536, 7);
        assert!((0..100).all(|_| all.due()));
    }

    #[test]
    fn percentiles_come_from_the_samples() {
        let mut s = Sampler::new(true, 65536, 1);
        for ns in 1..=1000u64 {
            s.record(Duration::from_nanos(ns * 1000));
        }
        let lat = summarize(&s.into_histogram().unwrap()).unwrap();
        assert_eq!(lat.samples, 1000);
        let close = |v: u64, want: u64| (v as f64 - want as f64).abs() / (want as f64) < 0.002;
        assert!(close(lat.p50, 500_000), "{lat:?}");
        assert!(close(lat.p99, 990_000), "{lat:?}");
        assert!(close(lat.p999, 999_000), "{lat:?}");
        assert!(close(lat.max, 1_000_000), "{lat:?}");
    }
}
