//! `compare --by host|fs|kernel`: the fleet view after a rollout, each group compared
//! on its own, and per test and record size how many groups regressed.

use std::collections::BTreeMap;

use serde::Serialize;

use super::environment::environment_changes;
use super::{
    CompareError, EnvChange, Measured, Options, PastRuns, Row, Verdict, measure, regressions,
};
use crate::facts::Fact;
use crate::model::{Run, TestKind};
use crate::units::ByteSize;

/// What `compare --by` groups runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum GroupBy {
    Host,
    Fs,
    Kernel,
}

impl GroupBy {
    pub fn name(self) -> &'static str {
        match self {
            GroupBy::Host => "host",
            GroupBy::Fs => "fs",
            GroupBy::Kernel => "kernel",
        }
    }

    /// The recorded fact a group shares.
    fn fact(self) -> Fact {
        match self {
            GroupBy::Host => Fact::Hostname,
            GroupBy::Fs => Fact::FsType,
            GroupBy::Kernel => Fact::Kernel,
        }
    }

    fn key(self, run: &Run) -> String {
        self.fact()
            .value(&run.host, &run.filesystem)
            .raw()
            .unwrap_or_else(|| "unknown".into())
    }
}

/// One group's comparison (one host, filesystem type or kernel).
#[derive(Clone, Debug, Serialize)]
pub struct Group {
    pub key: String,
    /// The worst row's verdict.
    pub verdict: Verdict,
    pub regressions: usize,
    /// The worst row: the largest drop among the regressions, else the largest drop.
    pub worst: Option<Row>,
    pub rows: Vec<Row>,
}

/// "12 of 200 hosts regressed in write at 4 KiB".
#[derive(Clone, Debug, Serialize)]
pub struct FleetLine {
    pub test: TestKind,
    pub record_size: ByteSize,
    pub regressed: usize,
    pub of: usize,
}

#[derive(Clone, Debug, Serialize)]
pub struct FleetComparison {
    pub by: GroupBy,
    /// Sorted by severity: regressed groups first, the most regressed rows first.
    pub groups: Vec<Group>,
    pub summary: Vec<FleetLine>,
    pub groups_regressed: usize,
    /// Groups present on one side only, or with no row in common.
    pub baseline_only: Vec<String>,
    pub candidate_only: Vec<String>,
    pub nothing_in_common: Vec<String>,
    pub environment_changes: Vec<EnvChange>,
    pub threshold_pct: f64,
    pub alpha: f64,
}

/// Compares each group (host, filesystem type, kernel) on its own: the fleet view
/// after a rollout. Groups are compared in parallel, each by an ordinary comparison's
/// rows; what differs in the environment is said once, for the whole fleet.
pub fn compare_by(
    baseline: Vec<Run>,
    candidate: Vec<Run>,
    options: &Options,
    by: GroupBy,
) -> Result<FleetComparison, CompareError> {
    options.validate()?;
    let environment_changes = environment_changes(&baseline, &candidate);
    // moved into their groups, not copied: each side is every repetition of its runs
    let split = |runs: Vec<Run>| {
        let mut groups: BTreeMap<String, Vec<Run>> = BTreeMap::new();
        for run in runs {
            groups.entry(by.key(&run)).or_default().push(run);
        }
        groups
    };
    let (base, cand) = (split(baseline), split(candidate));
    let both: Vec<(&String, &Vec<Run>, &Vec<Run>)> = base
        .iter()
        .filter_map(|(k, b)| cand.get(k).map(|c| (k, b, c)))
        .collect();
    let outcomes = in_parallel(&both, |(key, b, c)| {
        ((*key).clone(), measure(b, c, PastRuns::default(), options))
    });
    let mut groups = Vec::new();
    let mut nothing_in_common = Vec::new();
    for (key, outcome) in outcomes {
        match outcome {
            Ok(c) => groups.push(group(key, c)),
            Err(CompareError::NothingInCommon) => nothing_in_common.push(key),
            Err(e) => return Err(e),
        }
    }
    if groups.is_empty() {
        return Err(CompareError::NothingInCommon);
    }
    groups.sort_by(|a, b| {
        let drop = |g: &Group| g.worst.as_ref().map_or(0.0, |r| r.change_pct);
        (a.verdict, std::cmp::Reverse(a.regressions))
            .cmp(&(b.verdict, std::cmp::Reverse(b.regressions)))
            .then(drop(a).total_cmp(&drop(b)))
    });
    Ok(FleetComparison {
        by,
        summary: fleet_lines(&groups),
        groups_regressed: groups.iter().filter(|g| g.regressions > 0).count(),
        baseline_only: base
            .keys()
            .filter(|k| !cand.contains_key(*k))
            .cloned()
            .collect(),
        candidate_only: cand
            .keys()
            .filter(|k| !base.contains_key(*k))
            .cloned()
            .collect(),
        nothing_in_common,
        environment_changes,
        groups,
        threshold_pct: options.threshold * 100.0,
        alpha: options.alpha,
    })
}

fn group(key: String, c: Measured) -> Group {
    let regressions = regressions(&c.rows);
    // rows are sorted worst first
    let worst = c.rows.first().cloned();
    Group {
        key,
        verdict: worst.as_ref().map_or(Verdict::Unchanged, |r| r.verdict),
        regressions,
        worst,
        rows: c.rows,
    }
}

/// For each test and record size: in how many groups it regressed, out of how many.
fn fleet_lines(groups: &[Group]) -> Vec<FleetLine> {
    let mut counts: BTreeMap<(TestKind, ByteSize), (usize, usize)> = BTreeMap::new();
    for g in groups {
        let mut seen: BTreeMap<(TestKind, ByteSize), bool> = BTreeMap::new();
        for row in &g.rows {
            let regressed = seen.entry((row.key.test, row.key.record_size)).or_default();
            *regressed |= row.verdict == Verdict::Regression;
        }
        for (key, regressed) in seen {
            let entry = counts.entry(key).or_default();
            entry.0 += regressed as usize;
            entry.1 += 1;
        }
    }
    let mut lines: Vec<FleetLine> = counts
        .into_iter()
        .map(|((test, record_size), (regressed, of))| FleetLine {
            test,
            record_size,
            regressed,
            of,
        })
        .collect();
    lines.sort_by_key(|l| (std::cmp::Reverse(l.regressed), l.test, l.record_size));
    lines
}

/// Maps `work` over `items` on every core; results keep the items' order.
fn in_parallel<T: Sync, R: Send>(items: &[T], work: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let chunk = items.len().div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        let handles: Vec<_> = items
            .chunks(chunk)
            .map(|part| scope.spawn(|| part.iter().map(&work).collect::<Vec<R>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::Ignored;
    use crate::model::Measurement;
    use crate::store::tests::sample_run;

    fn host_run(host: &str, level: f64) -> Run {
        let mut run = sample_run(host, 0);
        run.results = (1..=5)
            .map(|rep| Measurement {
                test: TestKind::Write,
                file_size: ByteSize(1 << 20),
                record_size: ByteSize(4096),
                repetition: rep,
                bytes: 1 << 20,
                elapsed_ns: 1,
                throughput: level * (1.0 + 0.005 * rep as f64),
                latency_ns: None,
                engine: crate::model::EngineKind::Posix,
                cache: crate::model::CacheMode::Flush,
            })
            .collect();
        run.stamp_combination();
        run
    }

    #[test]
    fn one_host_of_three_regressed() {
        let before: Vec<Run> = ["a", "b", "c"].iter().map(|h| host_run(h, 100.0)).collect();
        let mut after: Vec<Run> = ["a", "b"].iter().map(|h| host_run(h, 100.0)).collect();
        after.push(host_run("c", 70.0));
        after.push(host_run("d", 100.0));
        let options = Options {
            threshold: 0.05,
            alpha: 0.05,
            ignore: Ignored::default(),
        };
        let fleet = compare_by(before, after, &options, GroupBy::Host).unwrap();
        assert_eq!(fleet.groups.len(), 3);
        assert_eq!(fleet.groups[0].key, "c");
        assert_eq!(fleet.groups[0].verdict, Verdict::Regression);
        assert_eq!(fleet.groups[0].regressions, 1);
        assert!(fleet.groups[1..].iter().all(|g| g.regressions == 0));
        assert_eq!(fleet.groups_regressed, 1);
        assert_eq!(fleet.candidate_only, ["d"]);
        assert_eq!(
            (
                fleet.summary[0].test,
                fleet.summary[0].regressed,
                fleet.summary[0].of
            ),
            (TestKind::Write, 1, 3)
        );
    }
}
