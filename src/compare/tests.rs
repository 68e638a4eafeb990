//! The rule on synthetic runs: clear drops and rises, noise from the runs or the
//! history, one measurement a side, environment differences, bad options.

use super::*;
use crate::model::Measurement;
use crate::store::tests::sample_run;

pub(super) fn run_of(values: &[f64], kernel: &str, minutes: i64) -> Run {
    let mut run = sample_run("h", minutes);
    run.host.kernel = Some(kernel.into());
    run.results = values
        .iter()
        .enumerate()
        .map(|(i, &v)| Measurement {
            test: TestKind::Write,
            file_size: ByteSize(1 << 20),
            record_size: ByteSize(4096),
            repetition: i as u32 + 1,
            bytes: 1 << 20,
            elapsed_ns: 1,
            throughput: v,
            latency_ns: None,
            engine: EngineKind::Posix,
            cache: CacheMode::Flush,
            ops: None,
        })
        .collect();
    run.stamp_combination();
    run
}

fn side(values: &[f64], kernel: &str) -> Vec<Run> {
    vec![run_of(values, kernel, 0)]
}

/// Runs whose repetitions sit tightly around each level.
pub(super) fn runs_at(levels: &[f64], first_minute: i64) -> Vec<Run> {
    levels
        .iter()
        .enumerate()
        .map(|(i, &l)| {
            run_of(
                &[l, l * 1.002, l * 0.998, l * 1.001, l * 0.999],
                "6.1",
                first_minute + i as i64,
            )
        })
        .collect()
}

pub(super) fn options() -> Options {
    Options {
        threshold: 0.05,
        alpha: 0.05,
        ignore: Ignored::default(),
    }
}

fn verdict(base: &[f64], cand: &[f64]) -> Row {
    let c = compare(
        &side(base, "6.1"),
        &side(cand, "6.1"),
        RunsRead::default(),
        &options(),
    )
    .unwrap();
    c.rows[0].clone()
}

#[test]
fn a_clear_drop_is_a_regression() {
    let row = verdict(
        &[100.0, 101.0, 99.0, 100.5, 99.5],
        &[80.0, 81.0, 79.0, 80.5, 79.5],
    );
    assert_eq!(row.verdict, Verdict::Regression);
    assert!((row.change_pct + 20.0).abs() < 1e-9);
    assert!(row.ci_high_pct.unwrap() < 0.0);
    assert!(row.p_value.unwrap() < 0.01);
    assert_eq!(row.noise_source.as_deref(), Some("default"));
    assert_eq!((row.runs_baseline, row.runs_candidate), (1, 1));
    assert_eq!((row.n_baseline, row.n_candidate), (5, 5));
}

#[test]
fn a_clear_rise_is_an_improvement() {
    let row = verdict(
        &[80.0, 81.0, 79.0, 80.5, 79.5],
        &[100.0, 101.0, 99.0, 100.5, 99.5],
    );
    assert_eq!(row.verdict, Verdict::Improvement);
    assert!(row.ci_low_pct.unwrap() > 0.0);
}

#[test]
fn a_run_to_run_offset_is_not_a_regression_without_evidence_of_the_noise() {
    // two runs 8% apart whose repetitions agree closely: the old pooled test called
    // this significant; one run a side says nothing about the next run's level
    let row = verdict(
        &[100.0, 100.2, 99.8, 100.1, 99.9],
        &[92.0, 92.2, 91.8, 92.1, 91.9],
    );
    assert_eq!(row.verdict, Verdict::Inconclusive, "{row:?}");
    assert!(row.runs_needed.unwrap() >= 2);
    assert!(row.note.as_deref().unwrap().contains("default"));
}

#[test]
fn a_quiet_history_makes_the_same_offset_a_regression() {
    let history = runs_at(&[100.0, 100.8, 99.5, 100.3, 99.7, 100.1], 10);
    let base = runs_at(&[100.0], 0);
    let cand = runs_at(&[92.0], 1);
    let c = compare(&base, &cand, RunsRead::with_results(&history), &options()).unwrap();
    let row = &c.rows[0];
    assert_eq!(row.verdict, Verdict::Regression, "{row:?}");
    assert_eq!(row.noise_source.as_deref(), Some("history: 6 runs"));
    assert!(row.noise_pct.unwrap() < 1.0);
    assert_eq!(c.history_runs, 6);
    // a noisy history, by contrast, explains it
    let noisy = runs_at(&[100.0, 109.0, 93.0, 104.0, 90.0, 106.0], 10);
    let c = compare(&base, &cand, RunsRead::with_results(&noisy), &options()).unwrap();
    assert_eq!(c.rows[0].verdict, Verdict::Inconclusive, "{:?}", c.rows[0]);
}

#[test]
fn history_read_from_summaries_measures_the_noise_its_results_do() {
    let base = runs_at(&[100.0], 0);
    let cand = runs_at(&[95.0], 1);
    let mut history = runs_at(&[100.0, 103.0, 98.5, 101.2], 10);
    history.extend(runs_at(&[97.0, 100.4, 99.1], 20));
    // one figure of nothing: the level is taken from the positive ones
    history[2].results[1].throughput = 0.0;
    for (i, run) in history.iter_mut().enumerate() {
        run.id = Some(100 + i as i64);
    }
    let summaries: crate::model::Summaries = history
        .iter()
        .map(|r| (r.id.unwrap(), crate::model::RowSummary::of(&r.results)))
        .collect();
    let bare: Vec<Run> = history
        .iter()
        .map(|r| Run {
            results: Vec::new(),
            ..r.clone()
        })
        .collect();
    let from_summaries = RunsRead {
        runs: &bare,
        summaries: Some(&summaries),
    };
    let a = compare(&base, &cand, RunsRead::with_results(&history), &options()).unwrap();
    let b = compare(&base, &cand, from_summaries, &options()).unwrap();
    assert_eq!(a.history_runs, 7);
    assert_eq!(format!("{:?}", a.rows), format!("{:?}", b.rows));
    assert_eq!(a.history_runs, b.history_runs);
}

#[test]
fn the_compared_runs_and_other_series_are_not_history() {
    let base = runs_at(&[100.0], 0);
    let cand = runs_at(&[92.0], 1);
    // the compared runs themselves, and a host far away at another level
    let mut elsewhere = runs_at(&[50.0, 55.0, 45.0], 10);
    for run in &mut elsewhere {
        run.host.hostname = Some("far".into());
    }
    let mut history: Vec<Run> = [base.clone(), cand.clone()].concat();
    history.extend(elsewhere);
    history.extend(runs_at(&[100.0, 100.5, 99.6], 20));
    let c = compare(&base, &cand, RunsRead::with_results(&history), &options()).unwrap();
    // the far host's runs are a series of their own that holds no compared run: another
    // segment, which counts only when nothing nearer measures the noise
    assert_eq!(c.rows[0].noise_source.as_deref(), Some("history: 3 runs"));
    assert_eq!(c.history_runs, 3);
}

#[test]
fn three_runs_a_side_measure_their_noise_with_the_history() {
    let base = runs_at(&[100.0, 101.0, 99.0], 0);
    let cand = runs_at(&[85.0, 86.0, 84.5], 5);
    let c = compare(&base, &cand, RunsRead::default(), &options()).unwrap();
    let row = &c.rows[0];
    assert_eq!(row.noise_source.as_deref(), Some("runs"));
    assert_eq!(row.verdict, Verdict::Regression, "{row:?}");
    assert_eq!((row.runs_baseline, row.n_baseline), (3, 15));
    // a history that wandered further (runs an hour apart) is the noise
    let wider = runs_at(&[100.0, 104.0, 96.5, 101.0], 20);
    let with = compare(&base, &cand, RunsRead::with_results(&wider), &options()).unwrap();
    assert_eq!(
        with.rows[0].noise_source.as_deref(),
        Some("history: 4 runs")
    );
    assert!(with.rows[0].noise_pct.unwrap() > row.noise_pct.unwrap());
    // a quieter one pools with the runs: more degrees of freedom, their spread kept
    let quiet = runs_at(&[100.0, 100.1, 99.9, 100.0], 20);
    let with = compare(&base, &cand, RunsRead::with_results(&quiet), &options()).unwrap();
    assert_eq!(
        with.rows[0].noise_source.as_deref(),
        Some("history: 4 runs")
    );
    assert!(with.rows[0].noise_pct.unwrap() < row.noise_pct.unwrap());
    assert!(with.rows[0].noise_pct.unwrap() > 0.5);
}

#[test]
fn small_changes_with_a_tight_interval_are_unchanged() {
    let base = runs_at(&[100.0, 100.1, 99.9], 0);
    let cand = runs_at(&[98.0, 98.1, 97.9], 5);
    let row = compare(&base, &cand, RunsRead::default(), &options())
        .unwrap()
        .rows[0]
        .clone();
    assert_eq!(row.verdict, Verdict::Unchanged, "{row:?}");
    assert!(row.ci_low_pct.unwrap() >= -5.0 && row.ci_high_pct.unwrap() <= 5.0);
}

#[test]
fn one_measurement_a_side_still_shows_the_change() {
    let row = verdict(&[100.0], &[90.0]);
    assert_eq!(row.verdict, Verdict::Inconclusive);
    assert!((row.change_pct + 10.0).abs() < 1e-9);
    assert!(row.p_value.is_none());
    assert!(row.note.as_deref().unwrap().contains("n = 1"));
}

#[test]
fn noise_beyond_the_threshold_is_inconclusive() {
    let row = verdict(
        &[100.0, 140.0, 70.0, 120.0, 90.0],
        &[95.0, 60.0, 130.0, 80.0, 110.0],
    );
    assert_eq!(row.verdict, Verdict::Inconclusive, "{row:?}");
}

proptest::proptest! {
    /// Whatever the figures: a regression's interval lies below zero, an
    /// improvement's above it, an unchanged row's within ± the threshold, and an
    /// inconclusive row's excludes zero only for a change within the threshold.
    #[test]
    fn a_verdict_never_contradicts_its_interval(
        base in proptest::collection::vec(proptest::collection::vec(50.0..150.0f64, 1..6), 1..5),
        cand in proptest::collection::vec(proptest::collection::vec(50.0..150.0f64, 1..6), 1..5),
        history in proptest::collection::vec(80.0..120.0f64, 0..8),
        threshold in 0.0..0.3f64,
        alpha in 0.01..0.2f64,
    ) {
        let runs = |sides: &[Vec<f64>], at: i64| -> Vec<Run> {
            sides.iter().enumerate().map(|(i, v)| run_of(v, "6.1", at + i as i64)).collect()
        };
        let options = Options { threshold, alpha, ignore: Ignored::default() };
        let c = compare(&runs(&base, 0), &runs(&cand, 10), RunsRead::with_results(&runs_at(&history, 20)), &options).unwrap();
        for row in &c.rows {
            let (lo, hi) = (row.ci_low_pct, row.ci_high_pct);
            match row.verdict {
                Verdict::Regression => proptest::prop_assert!(hi.unwrap() < 0.0 && row.change_pct < -threshold * 100.0),
                Verdict::Improvement => proptest::prop_assert!(lo.unwrap() > 0.0 && row.change_pct > threshold * 100.0),
                Verdict::Unchanged => proptest::prop_assert!(lo.unwrap() >= -threshold * 100.0 && hi.unwrap() <= threshold * 100.0),
                // a significant change within the threshold: neither beyond it nor
                // shown to stay within it
                Verdict::Inconclusive => proptest::prop_assert!(
                    !(lo.is_some_and(|lo| lo > 0.0) || hi.is_some_and(|hi| hi < 0.0))
                        || row.change_pct.abs() <= threshold * 100.0
                ),
            }
            if let (Some(lo), Some(hi)) = (lo, hi) {
                proptest::prop_assert!(lo <= row.change_pct + 1e-9 && row.change_pct <= hi + 1e-9);
            }
        }
    }
}

#[test]
fn environment_differences_are_listed() {
    let c = compare(
        &side(&[1.0, 2.0], "6.1"),
        &side(&[1.0, 2.0], "6.12"),
        RunsRead::default(),
        &options(),
    )
    .unwrap();
    assert_eq!(
        c.environment_changes,
        [EnvChange {
            field: "host.kernel".into(),
            baseline: vec![Some("6.1".into())],
            candidate: vec![Some("6.12".into())],
            summary: None,
        }]
    );
}

#[test]
fn a_busy_machine_is_an_environment_change() {
    let base = side(&[1.0, 2.0], "6.1");
    let mut cand = side(&[1.0, 2.0], "6.1");
    cand[0].state_at_start = Some(crate::model::MachineState {
        writeback_bytes: Some(200 << 20),
        dirty_bytes: Some(900 << 20),
        ..Default::default()
    });
    let c = compare(&base, &cand, RunsRead::default(), &options()).unwrap();
    let change = c
        .environment_changes
        .iter()
        .find(|e| e.field == "machine.at_start")
        .expect("listed");
    assert_eq!(change.baseline, [Some("quiet".into())]);
    assert!(
        change.candidate[0]
            .as_deref()
            .is_some_and(|v| v.starts_with("busy: writeback")),
        "{change:?}"
    );
}

/// The default options with the engine dropped from the match.
fn ignoring_engine() -> Options {
    Options {
        ignore: Ignored {
            engine: true,
            ..Ignored::default()
        },
        ..options()
    }
}

#[test]
fn rows_on_one_side_only_and_ignored_parameters() {
    let base = side(&[1.0, 2.0], "6.1");
    let mut cand = side(&[1.0, 2.0], "6.1");
    cand[0].params.engines = vec![EngineKind::Mmap];
    // its measurements went through it: the row key takes each measurement's engine
    cand[0].stamp_combination();
    assert_eq!(
        compare(&base, &cand, RunsRead::default(), &options()).unwrap_err(),
        CompareError::NothingInCommon
    );
    let c = compare(&base, &cand, RunsRead::default(), &ignoring_engine()).unwrap();
    assert_eq!(c.rows.len(), 1);
    assert_eq!(c.rows[0].key.engine(), None);
    assert!(
        c.environment_changes
            .iter()
            .any(|e| e.field == "params.engine")
    );
}

#[test]
fn depths_stay_apart_unless_ignored() {
    let mut base = side(&[1.0, 2.0], "6.1");
    base[0].params.iodepth = 1;
    let mut cand = side(&[1.0, 2.0], "6.1");
    cand[0].params.iodepth = 32;
    assert_eq!(
        compare(&base, &cand, RunsRead::default(), &options()).unwrap_err(),
        CompareError::NothingInCommon
    );
    // the same depth on both sides is matched on it
    let mut deep_base = base.clone();
    deep_base[0].params.iodepth = 32;
    let c = compare(&deep_base, &cand, RunsRead::default(), &options()).unwrap();
    assert_eq!(c.rows[0].key.iodepth(), Some(32));
    let mut ignore = options();
    ignore.ignore.iodepth = true;
    let c = compare(&base, &cand, RunsRead::default(), &ignore).unwrap();
    assert_eq!(c.rows.len(), 1);
    assert_eq!(c.rows[0].key.iodepth(), None);
    let depth = c
        .environment_changes
        .iter()
        .find(|e| e.field == "params.iodepth")
        .expect("the depths differ in the environment");
    assert_eq!(
        (&depth.baseline[..], &depth.candidate[..]),
        (&[Some("1".to_string())][..], &[Some("32".to_string())][..])
    );
}

#[test]
fn bad_options_are_refused() {
    let bad = Options {
        threshold: 1.5,
        ..options()
    };
    assert!(matches!(bad.validate(), Err(CompareError::Threshold(_))));
    let bad = Options {
        alpha: 0.0,
        ..options()
    };
    assert!(matches!(bad.validate(), Err(CompareError::Alpha(_))));
}

#[test]
fn two_engines_of_one_run_compare_as_two_sides() {
    let mut run = run_of(&[100.0, 101.0, 99.0], "6.1", 0);
    crate::store::tests::also_through(&mut run, EngineKind::Mmap, 2.0);
    let part = |engine| {
        let mut part = run.clone();
        part.narrow_to(Some(engine), None);
        vec![part]
    };
    let (base, cand) = (part(run.params.engine()), part(EngineKind::Mmap));
    assert_eq!((base[0].results.len(), cand[0].results.len()), (3, 3));
    let c = compare(&base, &cand, RunsRead::default(), &ignoring_engine()).unwrap();
    assert_eq!(c.rows.len(), 1);
    assert!(
        (c.rows[0].change_pct - 100.0).abs() < 1e-9,
        "{:?}",
        c.rows[0]
    );
    // the sides differ in what their measurements went through, which is listed
    let engine = c
        .environment_changes
        .iter()
        .find(|e| e.field == "params.engine")
        .expect("the engines differ");
    assert_eq!(engine.candidate, [Some("mmap".into())]);
    // without dropping the engine, the two parts share no row
    assert_eq!(
        compare(&base, &cand, RunsRead::default(), &options()).unwrap_err(),
        CompareError::NothingInCommon
    );
}

/// One run of two engines, each tight about its level, `pread` at `ratio` of `posix`:
/// the two parts of it, as `42,engine:posix 42,engine:pread` select.
fn engines_of_one_run(ratio: f64) -> (Run, Run) {
    let rounds = [100.0, 100.4, 99.7, 100.2, 99.9, 100.1];
    let jitter = [1.002, 0.997, 1.001, 0.998, 1.001, 0.999];
    let posix = run_of(&rounds, "6.1", 0);
    let mut pread = posix.clone();
    for (m, j) in pread.results.iter_mut().zip(jitter) {
        m.throughput *= ratio * j;
        m.engine = EngineKind::Pread;
    }
    pread.stamp_combination();
    (posix, pread)
}

#[test]
fn parts_of_one_run_carry_no_run_to_run_offset() {
    let (posix, pread) = engines_of_one_run(0.92);
    let c = compare(
        std::slice::from_ref(&posix),
        std::slice::from_ref(&pread),
        RunsRead::default(),
        &ignoring_engine(),
    )
    .unwrap();
    let row = &c.rows[0];
    assert_eq!(row.verdict, Verdict::Regression, "{row:?}");
    assert_eq!(row.noise_source.as_deref(), Some("paired: 6 rounds"));
    assert!(row.noise_pct.unwrap() < 1.0, "{row:?}");
    assert!((row.change_pct + 8.0).abs() < 0.5, "{row:?}");
    // the same figures from two separate runs: one run a side says nothing of the
    // offset between runs, so 8% is within the default noise
    let mut other = pread.clone();
    other.uuid = uuid::Uuid::new_v4();
    let c = compare(&[posix], &[other], RunsRead::default(), &ignoring_engine()).unwrap();
    assert_eq!(c.rows[0].verdict, Verdict::Inconclusive, "{:?}", c.rows[0]);
    assert_eq!(c.rows[0].noise_source.as_deref(), Some("default"));
}

#[test]
fn paired_rows_that_cannot_tell_say_how_many_rounds_would() {
    let (posix, mut pread) = engines_of_one_run(0.96);
    for (m, j) in pread
        .results
        .iter_mut()
        .zip([1.09, 0.90, 1.08, 0.91, 1.07, 0.93])
    {
        m.throughput *= j;
    }
    let c = compare(
        std::slice::from_ref(&posix),
        &[pread],
        RunsRead::default(),
        &ignoring_engine(),
    )
    .unwrap();
    let row = &c.rows[0];
    assert_eq!(row.verdict, Verdict::Inconclusive, "{row:?}");
    assert_eq!(row.runs_needed, None);
    assert!(row.rounds_needed.unwrap() > 6, "{row:?}");
    // identical parts are unchanged
    let c = compare(
        std::slice::from_ref(&posix),
        std::slice::from_ref(&posix),
        RunsRead::default(),
        &options(),
    )
    .unwrap();
    assert_eq!(c.rows[0].verdict, Verdict::Unchanged, "{:?}", c.rows[0]);
    assert_eq!(c.rows[0].rounds_needed, None);
}

#[test]
fn grouped_runs_are_not_paired() {
    let (mut posix, mut pread) = engines_of_one_run(0.90);
    posix.params.order = crate::model::RoundOrder::Grouped;
    pread.params.order = crate::model::RoundOrder::Grouped;
    let c = compare(&[posix], &[pread], RunsRead::default(), &ignoring_engine()).unwrap();
    assert_eq!(c.rows[0].noise_source.as_deref(), Some("default"));
}

#[test]
fn a_paired_rows_change_is_the_ratio_of_the_levels_it_shows() {
    let (posix, mut pread) = engines_of_one_run(0.90);
    // one wild round on one side moves a mean, not a median
    pread.results[2].throughput *= 3.0;
    let c = compare(&[posix], &[pread], RunsRead::default(), &ignoring_engine()).unwrap();
    let row = &c.rows[0];
    let ratio = (row.candidate_median / row.baseline_median - 1.0) * 100.0;
    assert!((ratio - row.change_pct).abs() < 1e-9, "{row:?}");
    assert!((row.change_pct + 10.0).abs() < 0.5, "{row:?}");
}
