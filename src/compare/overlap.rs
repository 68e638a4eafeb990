//! A run on both sides is compared with itself: nothing in the comparison would show
//! it (`compare 1 1`, `compare DR9 latest`), so it is said once, as a warning. Two
//! parts of one run (`compare 42,engine:posix 42,engine:pread`) are not the run twice.

use std::collections::BTreeSet;

use super::{RunsRead, combinations};
use crate::model::{CacheMode, EngineKind, Run};

/// The runs on both sides, by id, ascending; what [`Overlap`]'s text says of them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Overlap {
    pub runs: Vec<i64>,
    /// Whether the two sides are the same runs, every one of them on both.
    pub same: bool,
}

/// The runs both sides select in a part they share, if any.
pub fn overlap(base_read: &RunsRead, cand_read: &RunsRead) -> Option<Overlap> {
    type Parts = BTreeSet<(EngineKind, CacheMode)>;
    let (base, cand) = (base_read.runs, cand_read.runs);
    let parts = |run: &Run, read| -> Parts { combinations(run, read).into_iter().collect() };
    let ids = |runs: &[Run]| -> Vec<i64> {
        let mut ids: Vec<i64> = runs.iter().filter_map(|r| r.id).collect();
        ids.sort_unstable();
        ids
    };
    let shares_a_part = |run: &Run| {
        cand.iter()
            .filter(|c| c.id.is_some() && c.id == run.id)
            .any(|c| {
                let mine = parts(run, base_read);
                mine.is_empty() || !mine.is_disjoint(&parts(c, cand_read))
            })
    };
    let mut both: Vec<i64> = base
        .iter()
        .filter(|r| shares_a_part(r))
        .filter_map(|r| r.id)
        .collect();
    both.sort_unstable();
    if both.is_empty() {
        return None;
    }
    let same = ids(base) == ids(cand) && ids(base) == both;
    Some(Overlap { runs: both, same })
}

impl std::fmt::Display for Overlap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let which = self
            .runs
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", ");
        match (self.same, self.runs.len()) {
            (true, _) => write!(
                f,
                "both sides select the same runs ({which}): each is compared with itself"
            ),
            (false, 1) => write!(
                f,
                "run {which} is on both sides: it is compared with itself"
            ),
            (false, _) => write!(
                f,
                "runs {which} are on both sides: each is compared with itself"
            ),
        }
    }
}
