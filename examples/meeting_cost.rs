//! What the ranks' collectives cost a cell, for `scripts/bench-clients.sh`: the meeting
//! that begins each phase and ends each cell ([`Peers::meet`], a non-blocking
//! reduction waited for gently) and the gather of the ranks' figures after it, timed
//! through the same `MpiPeers` a run uses, with every rank arriving at once, so that
//! only the collective's own cost is timed, not a wait for a slower rank.
//!
//!     mpirun -np N target/release/examples/meeting_cost [TIMES]
//!
//! Rank 0 prints the mean of TIMES (default 2000) of each, in microseconds (each timed
//! alone, right after a meeting), then how far apart the ranks left a meeting (the
//! spread of their monotonic clocks as each left, which all ranks on one host share),
//! its median and its maximum:
//! `meet_us gather_us spread_median_us spread_max_us`.

use std::time::{Duration, Instant};

use iozone::bench::{Peers, Standing};
use iozone::cluster::Session;

/// About what a rank gathers after a cell of four phases: bytes, start, end and a
/// latency histogram's pairs, for each.
const CELL_WORDS: usize = 4 * (4 + 2 * 40);

fn main() {
    let times: u32 =
        (std::env::args().nth(1)).map_or(2000, |t| t.parse().expect("TIMES is a number"));
    let session = Session::start().expect("MPI starts");
    let peers = session.peers();
    let words = vec![7u64; CELL_WORDS];
    for _ in 0..200 {
        peers.meet(Standing::Ready);
        peers.gather(&words);
    }
    // each timed on its own right after a meeting, which every rank leaves at about
    // once: a gather's cost as the difference of two means came out negative when the
    // meetings' mean was the noisier one
    let mean_us = |f: &dyn Fn()| {
        let mut spent = Duration::ZERO;
        for _ in 0..times {
            peers.meet(Standing::Ready);
            let began = Instant::now();
            f();
            spent += began.elapsed();
        }
        spent.as_secs_f64() * 1e6 / f64::from(times)
    };
    let meet = mean_us(&|| {
        peers.meet(Standing::Ready);
    });
    let gather = mean_us(&|| {
        peers.gather(&words);
    });
    let mut left = Vec::with_capacity(times as usize);
    for _ in 0..times {
        peers.meet(Standing::Ready);
        left.push(monotonic_ns());
    }
    let Some(all) = peers.gather(&left) else {
        return;
    };
    let mut spreads: Vec<u64> = (0..left.len())
        .map(|i| {
            let at = all.iter().map(|rank| rank[i]);
            at.clone().max().unwrap_or(0) - at.min().unwrap_or(0)
        })
        .collect();
    spreads.sort_unstable();
    let us = |ns: u64| ns as f64 / 1e3;
    let (median, max) = (spreads[spreads.len() / 2], spreads[spreads.len() - 1]);
    println!("{meet:.3} {gather:.3} {:.3} {:.3}", us(median), us(max));
}

/// This host's monotonic clock, the one [`Instant`] reads, in nanoseconds.
fn monotonic_ns() -> u64 {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `now` is a valid timespec to write to, and the clock exists everywhere.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut now) };
    now.tv_sec as u64 * 1_000_000_000 + now.tv_nsec as u64
}
