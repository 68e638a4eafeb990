//! Per-operation latency, sampled. Reading the clock twice around every 512-byte
//! operation costs about 13% of its throughput, so only every k-th operation is timed,
//! with k chosen so the clock is never a noticeable part of the loop (see README).

use std::time::Duration;

use hdrhistogram::Histogram;

use crate::model::Latency;

/// Operations of this many bytes or more are all timed; smaller records are sampled
/// so that roughly one operation per this many bytes is timed.
const TIMED_BYTES_PER_SAMPLE: u64 = 8192;

/// The sampling interval for a record size: 1 (every operation) from 8 KiB up.
pub fn interval(record: u64) -> u32 {
    (TIMED_BYTES_PER_SAMPLE / record.max(1)).clamp(1, 64) as u32
}

/// Decides which operations to time and collects their durations.
pub struct Sampler {
    every: u32,
    countdown: u32,
    histogram: Option<Histogram<u64>>,
}

impl Sampler {
    pub fn new(enabled: bool, record: u64) -> Self {
        let histogram = enabled.then(|| {
            // sized up front for 1 ns..60 s so no allocation happens in the timed loop
            let mut h = Histogram::new_with_bounds(1, 60_000_000_000, 3)
                .expect("static histogram bounds are valid");
            h.auto(true);
            h
        });
        let every = interval(record);
        Sampler {
            every,
            // the first operation is timed, so even a one-record file has a sample
            countdown: 1,
            histogram,
        }
    }

    /// Whether the next operation is to be timed.
    #[inline]
    pub fn due(&mut self) -> bool {
        if self.histogram.is_none() {
            return false;
        }
        self.countdown -= 1;
        if self.countdown == 0 {
            self.countdown = self.every;
            true
        } else {
            false
        }
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

/// The percentiles of DESIGN §3 from a (possibly merged) histogram.
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
        assert_eq!(interval(512), 16);
        assert_eq!(interval(4096), 2);
        assert_eq!(interval(8192), 1);
        assert_eq!(interval(65536), 1);
        assert_eq!(interval(1), 64);
    }

    #[test]
    fn sampler_times_every_kth_operation_starting_with_the_first() {
        let mut s = Sampler::new(true, 512);
        let due: Vec<usize> = (0..40).filter(|_| s.due()).collect();
        assert_eq!(due, [0, 16, 32]);
        let mut off = Sampler::new(false, 512);
        assert!((0..100).all(|_| !off.due()));
    }

    #[test]
    fn percentiles_come_from_the_samples() {
        let mut s = Sampler::new(true, 65536);
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
