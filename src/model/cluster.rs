//! Runs of many clients: MPI ranks that measured one plan together, every phase begun
//! on a barrier of all of them. What such a run keeps beyond a run of one client: each
//! rank's bytes and times in every measurement, every distinct host's facts, and the
//! rank whose failure stopped it. The measurement itself holds the headline aggregate
//! ("all done"); the other figures are derived here from the ranks' own ([`Aggregates`]).

use serde::{Deserialize, Serialize};

use super::{CacheMode, EngineKind, Filesystem, Host, Measurement, TestKind};
use crate::units::ByteSize;

/// What one rank did in one timed phase: the bytes it moved, and when it started and
/// ended, in nanoseconds of its own clock after it left the barrier that began the
/// phase. The barrier is the one instant all ranks share, so times of ranks on hosts
/// whose clocks differ are comparable from it ("aligned at the barrier").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RankFigure {
    pub bytes: u64,
    pub start_ns: u64,
    pub end_ns: u64,
}

impl RankFigure {
    /// The rank's own rate, in bytes per second.
    pub fn rate(&self) -> f64 {
        self.bytes as f64 * 1e9 / self.end_ns.saturating_sub(self.start_ns).max(1) as f64
    }
}

/// Every rank's share of one measurement, in rank order, with what names the
/// measurement: its test, sizes, repetition, engine and cache mode, and whether it was
/// a warm-up round.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RankFigures {
    pub test: TestKind,
    pub file_size: ByteSize,
    pub record_size: ByteSize,
    pub repetition: u32,
    pub engine: EngineKind,
    pub cache: CacheMode,
    #[serde(default)]
    pub warmup: bool,
    pub ranks: Vec<RankFigure>,
}

impl RankFigures {
    /// Whether these are `m`'s, a measurement of the warm-up rounds or not as `warmup` says.
    pub fn of(&self, m: &Measurement, warmup: bool) -> bool {
        (self.test, self.file_size, self.record_size, self.repetition)
            == (m.test, m.file_size, m.record_size, m.repetition)
            && (self.engine, self.cache, self.warmup) == (m.engine, m.cache, warmup)
    }
}

/// A host that took part: its facts and those of the filesystem it measured, as a run
/// of one client keeps its own.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ClientHost {
    pub host: Host,
    pub filesystem: Filesystem,
}

/// The rank whose failure stopped a run, its host, and what went wrong there. The rank
/// and host are unknown when the launcher ended the job and no rank here was found dead.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RankFailure {
    pub rank: Option<u32>,
    pub host: Option<String>,
    pub error: String,
}

/// What a run of many clients keeps beyond a run of one.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Cluster {
    /// Every distinct host's facts, in the order of their first rank: rank 0's first,
    /// which are also the run's own `host` and `filesystem`.
    pub hosts: Vec<ClientHost>,
    /// Each measurement's figures per rank, measured and warm-up rounds.
    #[serde(default)]
    pub figures: Vec<RankFigures>,
    /// The rank whose failure stopped the run, when one did.
    #[serde(default)]
    pub failure: Option<RankFailure>,
}

impl Cluster {
    /// The ranks' figures of `m`, one of the measured rounds' measurements.
    pub fn figures_of(&self, m: &Measurement) -> Option<&[RankFigure]> {
        let found = self.figures.iter().find(|f| f.of(m, false))?;
        Some(&found.ranks)
    }

    /// The facts of the host called `name`.
    pub fn host(&self, name: &str) -> Option<&ClientHost> {
        (self.hosts.iter()).find(|h| h.host.hostname.as_deref() == Some(name))
    }
}

/// The figures of one measurement of many ranks, as the tools of the field define them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Aggregates {
    /// "All done" (IOR's bandwidth): all bytes ÷ (latest end − earliest start), in
    /// bytes per second. The headline, and the measurement's own throughput.
    pub all_done: f64,
    /// "First done" (elbencho's, iozone3's stonewall): the bytes all ranks had moved
    /// when the fastest finished ÷ (its end − earliest start), the fastest being the
    /// first to end among the ranks that moved the most. Known only when the ranks
    /// stopped as the first finished (`--stonewall`): then what each moved is what it
    /// had moved by then.
    pub first_done: Option<f64>,
    /// The sum of the ranks' own rates (iozone3's "Children see").
    pub rank_sum: f64,
}

impl Aggregates {
    /// The aggregates of `ranks`' figures; `stonewalled` when the ranks stopped as the
    /// first one finished. `None` for no ranks.
    pub fn of(ranks: &[RankFigure], stonewalled: bool) -> Option<Aggregates> {
        let start = ranks.iter().map(|r| r.start_ns).min()?;
        let last = ranks.iter().map(|r| r.end_ns).max()?;
        // the first to finish is among those that moved the most: the others stopped at
        // the wall (one that began after it fell stopped at once, and moved nothing)
        let most = ranks.iter().map(|r| r.bytes).max()?;
        let finished = ranks.iter().filter(|r| r.bytes == most);
        let first = finished.map(|r| r.end_ns).min()?;
        let bytes: u64 = ranks.iter().map(|r| r.bytes).sum();
        let rate = |end: u64| bytes as f64 * 1e9 / end.saturating_sub(start).max(1) as f64;
        Some(Aggregates {
            all_done: rate(last),
            first_done: stonewalled.then(|| rate(first)),
            rank_sum: ranks.iter().map(RankFigure::rate).sum(),
        })
    }
}

/// The elapsed nanoseconds and bytes a measurement of `ranks` states: from the
/// earliest start to the latest end, all bytes.
pub fn span(ranks: &[RankFigure]) -> (u64, u64) {
    let start = ranks.iter().map(|r| r.start_ns).min().unwrap_or(0);
    let end = ranks.iter().map(|r| r.end_ns).max().unwrap_or(0);
    (
        end.saturating_sub(start).max(1),
        ranks.iter().map(|r| r.bytes).sum(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rank(bytes: u64, start_ns: u64, end_ns: u64) -> RankFigure {
        RankFigure {
            bytes,
            start_ns,
            end_ns,
        }
    }

    #[test]
    fn all_done_spans_the_earliest_start_to_the_latest_end() {
        // 100 MB each; one rank twice as slow as the other
        let ranks = [
            rank(100_000_000, 0, 1_000_000_000),
            rank(100_000_000, 10, 2_000_000_000),
        ];
        let a = Aggregates::of(&ranks, false).unwrap();
        assert_eq!(a.all_done, 200_000_000.0 * 1e9 / 2_000_000_000.0);
        assert_eq!(
            a.rank_sum,
            100_000_000.0 + 100_000_000.0 * 1e9 / 1_999_999_990.0
        );
        assert_eq!(a.first_done, None);
        assert_eq!(span(&ranks), (2_000_000_000, 200_000_000));
    }

    #[test]
    fn first_done_is_known_when_the_ranks_stopped_with_the_first() {
        // stonewalled: the slow rank stopped at about the first one's end, half done;
        // one began after the wall fell and stopped at once, having moved nothing
        let ranks = [rank(100, 0, 1_000), rank(50, 0, 1_010), rank(0, 20, 21)];
        let a = Aggregates::of(&ranks, true).unwrap();
        assert_eq!(a.first_done, Some(150.0 * 1e9 / 1_000.0));
        assert_eq!(a.all_done, 150.0 * 1e9 / 1_010.0);
        assert!(Aggregates::of(&[], true).is_none());
    }
}
