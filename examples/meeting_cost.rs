//! What the ranks' collectives cost a cell, for `scripts/bench-clients.sh`: the meeting
//! that begins each phase and ends each cell ([`Peers::meet`], a non-blocking
//! reduction waited for gently) and the gather of the ranks' figures after it, timed
//! through the same `MpiPeers` a run uses, with every rank arriving at once, so that
//! only the collective's own cost is timed, not a wait for a slower rank.
//!
//!     mpirun -np N target/release/examples/meeting_cost [TIMES]
//!
//! Rank 0 prints the mean of TIMES (default 2000) of each, in microseconds:
//! `meet_us gather_us`.

use std::time::Instant;

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
    let mean_us = |f: &dyn Fn()| {
        peers.meet(Standing::Ready);
        let began = Instant::now();
        for _ in 0..times {
            f();
        }
        began.elapsed().as_secs_f64() * 1e6 / f64::from(times)
    };
    let meet = mean_us(&|| {
        peers.meet(Standing::Ready);
    });
    let gather = mean_us(&|| {
        peers.gather(&words);
        peers.meet(Standing::Ready);
    }) - meet;
    if peers.rank() == 0 {
        println!("{meet:.3} {gather:.3}");
    }
}
