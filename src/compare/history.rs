//! The history of each row, cut into segments of one level, so that `compare` and
//! `trend` never disagree about the same runs. A series (host, filesystem,
//! mount point, row key) holds the history runs and the compared runs, in time order;
//! it is cut at the change points `trend` finds (the same search, `stats::changepoint`,
//! with `trend`'s defaults) and between runs that differ in anything the environment
//! diff compares (kernel, mount options, device, parameters outside the row key, the
//! iozone version) or in a label that several runs carry (a label of one run alone,
//! such as a date, cuts nothing). The run-to-run variance is then pooled within the
//! segments, about each one's own mean: a step is never counted as noise, and runs
//! recorded after the compared ones measure it as well as earlier ones.
//!
//! The compared runs are never part of the history's spread (their own spread within
//! each side is the rule's to count, `stats::runlevel`), but they are points of the
//! series: they decide which segments are theirs, and a step that lies between the
//! baseline's runs and the candidate's is said in the row's note.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::environment::segment_key;
use super::verdict::medians;
use super::{Ignored, RowMatch, RunsRead};
use crate::model::{DEFAULT_MIN_RUNS, DEFAULT_MIN_STEP_PCT, Run};
use crate::stats::runlevel::SeriesHistory;

/// What a row's history says.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct RowHistory {
    /// The history runs' spread, pooled within segments.
    pub series: SeriesHistory,
    /// The first run (by id) of each of the compared runs' segments whose history
    /// measured noise: "since run 7".
    pub since: BTreeSet<i64>,
    /// The steps that lie between the baseline's runs and the candidate's.
    pub steps: Vec<StepBetween>,
    /// The two segments the sides lie in, when a step parts them.
    across: Option<Across>,
    /// How many series hold compared runs: the sides are widened to their segments
    /// only when one series holds them all.
    compared_series: usize,
}

/// Two segments of one series, one holding every baseline run, the other every
/// candidate run, apart by what their runs ran on (or the labels they share), or by a
/// step `trend` reports between them: the evidence there is for the sides' two levels,
/// which the row is tested on (`stats::runlevel::step_effect`).
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Across {
    /// The run levels (ln of each run's median) of the baseline's segment, compared
    /// runs included.
    pub baseline: Vec<f64>,
    pub candidate: Vec<f64>,
    /// The first run (by id) of each segment.
    pub baseline_since: Option<i64>,
    pub candidate_since: Option<i64>,
    /// Among how many places the search could have put a step in the series; 1 when
    /// the segments are apart by what their runs ran on or their labels.
    pub places: usize,
}

/// A change point of a series with compared runs on both sides of it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct StepBetween {
    /// The first run at the new level.
    pub run_id: Option<i64>,
    /// The step as `trend` reports it, in time order: after / before − 1, percent.
    pub change_pct: f64,
}

/// What a run is to a comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Role {
    History,
    Baseline,
    Candidate,
    /// On both sides (`compare 1 1`, or two parts of a run under `--ignore-param`).
    Both,
}

impl Role {
    fn baseline(self) -> bool {
        matches!(self, Role::Baseline | Role::Both)
    }

    fn candidate(self) -> bool {
        matches!(self, Role::Candidate | Role::Both)
    }

    /// The role of a run met again on the other side.
    fn and(self, other: Role) -> Role {
        if self == other { self } else { Role::Both }
    }
}

/// A run's figure in one series.
pub(super) struct Point {
    pub started_at: DateTime<Utc>,
    pub id: Option<i64>,
    /// The median of the run's positive figures in the row, bytes/s.
    pub median: f64,
    pub role: Role,
    pub stratum: usize,
}

/// What a series is: runs of one host, filesystem and mount point (the row key holds
/// the rest), as `trend` has it.
type SeriesId = (Option<String>, Option<String>, Option<String>);

/// Each row's history, from the compared runs and the history runs of their series
/// (runs of either side in `past` are left out of it).
pub(super) fn history_by_row(
    baseline: &RunsRead,
    candidate: &RunsRead,
    past: &RunsRead,
    ignore: Ignored,
) -> BTreeMap<RowMatch, RowHistory> {
    let compared: HashSet<Uuid> = (baseline.runs.iter().chain(candidate.runs))
        .map(|r| r.uuid)
        .collect();
    let mut runs: Vec<(&Run, &RunsRead, Role)> = Vec::new();
    runs.extend(baseline.runs.iter().map(|r| (r, baseline, Role::Baseline)));
    runs.extend(
        candidate
            .runs
            .iter()
            .map(|r| (r, candidate, Role::Candidate)),
    );
    runs.extend(
        (past.runs.iter())
            .filter(|r| !compared.contains(&r.uuid))
            .map(|r| (r, past, Role::History)),
    );
    let strata = strata(&runs, ignore);
    // a run's point in a series, by its uuid: a run on both sides is one point
    let mut by_series: BTreeMap<(RowMatch, SeriesId), HashMap<Uuid, Point>> = BTreeMap::new();
    for (&(run, read, role), stratum) in runs.iter().zip(strata) {
        let series: SeriesId = (
            run.host.hostname.clone(),
            run.filesystem.fs_type.clone(),
            run.filesystem.mount_point.clone(),
        );
        for (key, median) in medians(run, read, ignore) {
            let points = by_series.entry((key, series.clone())).or_default();
            match points.get_mut(&run.uuid) {
                Some(point) => point.role = point.role.and(role),
                None => {
                    let point = Point {
                        started_at: run.started_at,
                        id: run.id,
                        median,
                        role,
                        stratum,
                    };
                    points.insert(run.uuid, point);
                }
            }
        }
    }
    let mut by_row: BTreeMap<RowMatch, RowHistory> = BTreeMap::new();
    for ((key, _), points) in by_series {
        let mut points: Vec<Point> = points.into_values().collect();
        points.sort_by_key(|p| (p.started_at, p.id));
        by_row.entry(key).or_default().add_series(&points);
    }
    by_row
}

/// Each run's stratum: runs share one when everything the environment diff compares
/// (but the machine's state) is equal, and so are the labels they carry that at least
/// one other run carries too.
fn strata(runs: &[(&Run, &RunsRead, Role)], ignore: Ignored) -> Vec<usize> {
    let mut carriers: HashMap<&str, HashSet<Uuid>> = HashMap::new();
    for (run, _, _) in runs {
        for label in &run.labels {
            carriers.entry(label).or_default().insert(run.uuid);
        }
    }
    let mut numbers: HashMap<(Vec<Option<String>>, BTreeSet<&str>), usize> = HashMap::new();
    runs.iter()
        .map(|&(run, read, _)| {
            let shared: BTreeSet<&str> = (run.labels.iter())
                .map(String::as_str)
                .filter(|l| carriers[l].len() >= 2)
                .collect();
            let next = numbers.len();
            *numbers
                .entry((segment_key(run, read, ignore), shared))
                .or_insert(next)
        })
        .collect()
}

impl RowHistory {
    /// Adds one series, its points in time order.
    pub(super) fn add_series(&mut self, points: &[Point]) {
        let values: Vec<f64> = points.iter().map(|p| p.median).collect();
        let strata: Vec<usize> = points.iter().map(|p| p.stratum).collect();
        let cut = crate::stats::segments(
            &values,
            &strata,
            DEFAULT_MIN_STEP_PCT / 100.0,
            DEFAULT_MIN_RUNS as usize,
        );
        let mut segments: Vec<Vec<&Point>> = Vec::new();
        for (point, &of) in points.iter().zip(&cut.of) {
            if of == segments.len() {
                segments.push(Vec::new());
            }
            segments[of].push(point);
        }
        for members in segments {
            let levels: Vec<f64> = (members.iter())
                .filter(|p| p.role == Role::History)
                .map(|p| p.median.ln())
                .collect();
            if members.iter().any(|p| p.role != Role::History) {
                self.series.same_segments.add_series(&levels);
                if levels.len() >= 2 {
                    self.since.extend(members.iter().find_map(|p| p.id));
                }
            } else {
                self.series.other_segments.add_series(&levels);
            }
        }
        if points.iter().any(|p| p.role != Role::History) {
            self.compared_series += 1;
            self.across = across(points, &cut);
        }
        for step in &cut.steps {
            let (before, after) = points.split_at(step.index);
            let has = |side: &[Point], f: fn(Role) -> bool| side.iter().any(|p| f(p.role));
            let between = (has(before, Role::baseline) && has(after, Role::candidate))
                || (has(before, Role::candidate) && has(after, Role::baseline));
            if between {
                self.steps.push(StepBetween {
                    run_id: points[step.index].id,
                    change_pct: step.change_pct,
                });
            }
        }
    }

    /// The sides' two segments, when one series holds every compared run and a step
    /// `trend` reports parts them.
    pub(super) fn across(&self) -> Option<&Across> {
        self.across.as_ref().filter(|_| self.compared_series == 1)
    }

    /// Where the history's segments start, for the noise's source: "since run 7",
    /// "since runs 1 and 7"; nothing when no run of them has an id, or when there are
    /// more segments than a note should list.
    pub(super) fn since_text(&self) -> String {
        let ids: Vec<String> = self.since.iter().map(i64::to_string).collect();
        match ids.as_slice() {
            [] => String::new(),
            [one] => format!(" since run {one}"),
            [first, second] => format!(" since runs {first} and {second}"),
            [first, second, third] => format!(" since runs {first}, {second} and {third}"),
            more => format!(" in {} segments", more.len()),
        }
    }

    /// The steps between the sides, for the row's note: "; a step of −55.8% at run 7
    /// between the sides".
    pub(super) fn steps_text(&self) -> String {
        self.steps
            .iter()
            .map(|s| {
                let at = s.run_id.map_or(String::new(), |id| format!(" at run {id}"));
                format!(
                    "; a step of {:+.1}%{at} between the sides (as trend finds it)",
                    s.change_pct
                )
            })
            .collect()
    }
}

/// The segments of `points` that hold the baseline's runs and the candidate's, when each
/// side lies wholly in one, the two differ — in what their runs ran on or the labels
/// they share, or by a change point between them — and they hold runs beyond the
/// compared ones.
fn across(points: &[Point], cut: &crate::stats::Segments) -> Option<Across> {
    let segment_of = |f: fn(Role) -> bool| -> Option<usize> {
        let mut of = (points.iter().zip(&cut.of))
            .filter(|(p, _)| f(p.role))
            .map(|(_, &s)| s);
        let first = of.next()?;
        of.all(|s| s == first).then_some(first)
    };
    if points.iter().any(|p| p.role == Role::Both) {
        return None;
    }
    let (b, c) = (segment_of(Role::baseline)?, segment_of(Role::candidate)?);
    let span = |s: usize| {
        let at = || (cut.of.iter().enumerate()).filter(move |&(_, &o)| o == s);
        (at().map(|(i, _)| i).min(), at().map(|(i, _)| i).max())
    };
    let ((Some(b_first), Some(b_last)), (Some(c_first), Some(c_last))) = (span(b), span(c)) else {
        return None;
    };
    let parts = |before: usize, after: usize, step: usize| before < step && after >= step;
    let stepped = cut
        .steps
        .iter()
        .any(|step| parts(b_last, c_first, step.index) || parts(c_last, b_first, step.index));
    // segments of different strata are apart by what the runs ran on or the labels they
    // share, known before any figure is read; of one stratum, only by a step found
    let known = points[b_first].stratum != points[c_first].stratum;
    if b == c || !(known || stepped) {
        return None;
    }
    let members = |s: usize| -> Vec<&Point> {
        (points.iter().zip(&cut.of))
            .filter(|&(_, &o)| o == s)
            .map(|(p, _)| p)
            .collect()
    };
    let (base, cand) = (members(b), members(c));
    let compared = points.iter().filter(|p| p.role != Role::History).count();
    if base.len() + cand.len() == compared {
        // the sides are the segments: the comparison is the step's test already
        return None;
    }
    // where a step may fall: every split leaving trend's shortest segment on each side;
    // a known split was no search
    let places = match known {
        true => 1,
        false => (points.len() + 1).saturating_sub(2 * DEFAULT_MIN_RUNS as usize),
    };
    Some(Across {
        baseline: base.iter().map(|p| p.median.ln()).collect(),
        candidate: cand.iter().map(|p| p.median.ln()).collect(),
        baseline_since: base.iter().find_map(|p| p.id),
        candidate_since: cand.iter().find_map(|p| p.id),
        places: places.max(1),
    })
}

impl Across {
    /// Where the two segments start: " since runs 1 and 7".
    pub(super) fn since_text(&self) -> String {
        match (self.baseline_since, self.candidate_since) {
            (Some(b), Some(c)) => format!(" since runs {b} and {c}"),
            _ => String::new(),
        }
    }
}
