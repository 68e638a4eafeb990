//! `compare --by host|fs|kernel`: the fleet view after a rollout, each group compared
//! on its own, and per test and record size how many groups regressed.

use std::collections::BTreeMap;

use serde::Serialize;

use super::environment::environment_changes;
use super::{
    CompareError, EnvChange, Measured, Options, Row, RunsRead, Verdict, measure, regressions,
};
use crate::facts::Fact;
use crate::model::{Run, Summaries, TestKind};
use crate::units::ByteSize;

/// What `compare --by` groups runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GroupBy {
    Host,
    Fs,
    Kernel,
}

impl GroupBy {
    /// Every grouping, in the order `--help` lists them.
    pub const ALL: [GroupBy; 3] = [GroupBy::Host, GroupBy::Fs, GroupBy::Kernel];

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

    /// `runs` by their group, moved in, not copied: a side's runs may hold every
    /// repetition.
    fn split(self, runs: Vec<Run>) -> Grouped {
        let mut groups = Grouped::new();
        for run in runs {
            groups.entry(self.key(&run)).or_default().push(run);
        }
        groups
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
/// `summaries` are each side's (`RunsRead`), for its runs read without their results.
pub fn compare_by(
    baseline: Vec<Run>,
    candidate: Vec<Run>,
    summaries: [Option<&Summaries>; 2],
    options: &Options,
    by: GroupBy,
) -> Result<FleetComparison, CompareError> {
    options.validate()?;
    let [base_summaries, cand_summaries] = summaries;
    let environment_changes = environment_changes(
        &RunsRead {
            runs: &baseline,
            summaries: base_summaries,
        },
        &RunsRead {
            runs: &candidate,
            summaries: cand_summaries,
        },
    );
    let (base, cand) = (by.split(baseline), by.split(candidate));
    let (mut groups, nothing_in_common) = compare_groups(&base, &cand, summaries, options)?;
    if groups.is_empty() {
        return Err(CompareError::NothingInCommon);
    }
    worst_first(&mut groups);
    Ok(FleetComparison {
        by,
        summary: fleet_lines(&groups),
        groups_regressed: groups.iter().filter(|g| g.regressions > 0).count(),
        baseline_only: only_in(&base, &cand),
        candidate_only: only_in(&cand, &base),
        nothing_in_common,
        environment_changes,
        groups,
        threshold_pct: options.threshold * 100.0,
        alpha: options.alpha,
    })
}

/// A side's runs by group.
type Grouped = BTreeMap<String, Vec<Run>>;

/// Each group both sides have, compared in parallel; and the groups whose sides have
/// no row in common.
fn compare_groups(
    base: &Grouped,
    cand: &Grouped,
    [base_summaries, cand_summaries]: [Option<&Summaries>; 2],
    options: &Options,
) -> Result<(Vec<Group>, Vec<String>), CompareError> {
    let both: Vec<(&String, &Vec<Run>, &Vec<Run>)> = base
        .iter()
        .filter_map(|(k, b)| cand.get(k).map(|c| (k, b, c)))
        .collect();
    let outcomes = in_parallel(&both, |(key, b, c)| {
        let b = RunsRead {
            runs: b,
            summaries: base_summaries,
        };
        let c = RunsRead {
            runs: c,
            summaries: cand_summaries,
        };
        (
            (*key).clone(),
            measure(&b, &c, RunsRead::default(), options),
        )
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
    Ok((groups, nothing_in_common))
}

/// Regressed groups first, the most regressed first, then by their worst drop.
fn worst_first(groups: &mut [Group]) {
    groups.sort_by(|a, b| {
        let drop = |g: &Group| g.worst.as_ref().map_or(0.0, |r| r.change_pct);
        (a.verdict, std::cmp::Reverse(a.regressions))
            .cmp(&(b.verdict, std::cmp::Reverse(b.regressions)))
            .then(drop(a).total_cmp(&drop(b)))
    });
}

/// The groups of `one` side that `other` has not.
fn only_in(one: &Grouped, other: &Grouped) -> Vec<String> {
    let only = one.keys().filter(|k| !other.contains_key(*k));
    only.cloned().collect()
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
            let regressed = seen
                .entry((row.key.test(), row.key.record_size()))
                .or_default();
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
                ops: None,
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
        let fleet = compare_by(before, after, [None, None], &options, GroupBy::Host).unwrap();
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

    /// Runs of `hosts` hosts, several a host, varied in every way a run's level under a
    /// row can be: two engines, odd and even counts, a zero figure, an infinite one, a
    /// key without any positive figure, runs measured round by round.
    fn varied_side(hosts: usize, level: f64, first_id: i64, shift: usize) -> Vec<Run> {
        let mut runs = Vec::new();
        for h in 0..hosts {
            for r in 0..3 {
                let mut run = sample_run(&format!("host{h}"), r as i64);
                run.id = Some(first_id + runs.len() as i64);
                run.uuid = uuid::Uuid::new_v4();
                let seed = (h * 7 + r * 3) as f64;
                for (k, m) in run.results.iter_mut().enumerate() {
                    m.throughput = level * (1.0 + ((seed + k as f64 * 1.3).sin()) / 40.0);
                }
                match (h + r + shift) % 5 {
                    0 => {
                        let mut mmap = run.results.clone();
                        for m in &mut mmap {
                            // the sides' second engine differs: the environment says so
                            m.engine = match shift {
                                0 => crate::model::EngineKind::Mmap,
                                _ => crate::model::EngineKind::Posix,
                            };
                            m.throughput *= 1.1;
                        }
                        run.results.extend(mmap);
                    }
                    1 => {
                        let mut fourth = run.results[0].clone();
                        fourth.repetition = 9;
                        run.results.push(fourth);
                    }
                    2 => run.results[1].throughput = 0.0,
                    3 => run.results[0].throughput = f64::INFINITY,
                    _ => {
                        let key = (run.results[0].test, run.results[0].record_size);
                        for m in &mut run.results {
                            if (m.test, m.record_size) == key {
                                m.throughput = 0.0;
                            }
                        }
                    }
                }
                // as the store reads them back
                run.results.sort_by_key(Measurement::list_order);
                run.params.order = match r {
                    0 => crate::model::RoundOrder::Interleaved,
                    _ => crate::model::RoundOrder::Grouped,
                };
                runs.push(run);
            }
        }
        runs
    }

    /// Runs read as `store::select_summarized` reads them: without results and with
    /// their summaries, unless a summary lacks its level.
    fn summarized(runs: &[Run]) -> (Vec<Run>, Summaries) {
        let mut summaries = Summaries::new();
        let mut read = Vec::new();
        for run in runs {
            let rows = crate::model::RowSummary::of(&run.results);
            let mut run = run.clone();
            if rows.iter().all(|r| r.run_level().is_some()) {
                summaries.insert(run.id.unwrap(), rows);
                run.results.clear();
            }
            read.push(run);
        }
        (read, summaries)
    }

    #[test]
    fn a_fleet_compared_from_summaries_is_the_fleet_compared_from_results() {
        let before = varied_side(6, 100.0, 1, 0);
        let after = varied_side(6, 93.0, 100, 1);
        let (bare_before, before_summaries) = summarized(&before);
        let (bare_after, after_summaries) = summarized(&after);
        assert!(bare_before.iter().any(|r| r.results.is_empty()));
        assert!(bare_before.iter().any(|r| !r.results.is_empty()));
        for ignore in [
            Ignored::default(),
            Ignored {
                threads: true,
                ..Ignored::default()
            },
        ] {
            let options = Options {
                threshold: 0.02,
                alpha: 0.05,
                ignore,
            };
            let from_results = compare_by(
                before.clone(),
                after.clone(),
                [None, None],
                &options,
                GroupBy::Host,
            )
            .unwrap();
            let from_summaries = compare_by(
                bare_before.clone(),
                bare_after.clone(),
                [Some(&before_summaries), Some(&after_summaries)],
                &options,
                GroupBy::Host,
            )
            .unwrap();
            assert!(from_results.groups.iter().any(|g| g.regressions > 0));
            assert!(!from_results.environment_changes.is_empty());
            // every figure to the last bit: `{:?}` writes each float exactly
            assert_eq!(format!("{from_results:?}"), format!("{from_summaries:?}"));
        }
    }
}
