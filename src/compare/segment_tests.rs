//! The history cut into segments: a step or an environment change is never noise, runs
//! after the compared ones measure it too, a verdict about given runs stays when runs
//! at another level arrive, a busy side, and intervals corrected as the verdicts are.

use super::tests::{options, run_of, runs_at};
use super::*;
use crate::model::{MachineState, Measurement};
use crate::stats::gaussian::Gaussian;

/// A ±2% wobble, the same for every series, so that levels are not exact.
const WOBBLE: [f64; 6] = [1.0, 0.98, 1.015, 0.99, 1.02, 0.985];

/// Runs at `levels` (each wobbled), with ids and minutes from `first`.
fn numbered(levels: &[f64], first: i64) -> Vec<Run> {
    let wobbled: Vec<f64> = (levels.iter().enumerate())
        .map(|(i, l)| l * WOBBLE[(first as usize + i) % WOBBLE.len()])
        .collect();
    let mut runs = runs_at(&wobbled, first);
    for (i, run) in runs.iter_mut().enumerate() {
        run.id = Some(first + i as i64);
    }
    runs
}

fn with_id(runs: &[Run], id: i64) -> Vec<Run> {
    runs.iter().filter(|r| r.id == Some(id)).cloned().collect()
}

fn row(base: &[Run], cand: &[Run], history: &[Run]) -> Row {
    let c = compare(base, cand, RunsRead::with_results(history), &options()).unwrap();
    c.rows[0].clone()
}

#[test]
fn a_step_in_the_history_is_not_noise() {
    // six runs, then six at half the level: the last before against the last after
    let mut series = numbered(&[100.0; 6], 1);
    series.extend(numbered(&[50.0; 6], 7));
    let row = row(&with_id(&series, 6), &with_id(&series, 12), &series);
    assert_eq!(row.verdict, Verdict::Regression, "{row:?}");
    // tested as trend tests the step: the two segments' runs, six against six
    assert_eq!(
        row.noise_source.as_deref(),
        Some("the sides' segments: 6 and 6 runs since runs 1 and 7")
    );
    assert_eq!((row.runs_baseline, row.runs_candidate), (6, 6));
    assert!(row.noise_pct.unwrap() < 3.0, "{row:?}");
    let note = row.note.unwrap();
    assert!(note.contains("a step of -50."), "{note}");
    assert!(note.contains("at run 7 between the sides"), "{note}");
    assert!(note.contains("the best of 7 places"), "{note}");
    // pooled whole, the step would have been a noise of ±27%: nothing but inconclusive
    let mut whole = crate::stats::runlevel::History::default();
    let levels: Vec<f64> = (series.iter())
        .filter(|r| !matches!(r.id, Some(6 | 12)))
        .map(|r| r.results[0].throughput.ln())
        .collect();
    whole.add_series(&levels);
    assert!((whole.sum_sq / whole.df as f64).sqrt() > 0.25);
    // the first after against the last before, the same
    let row = self::row(&with_id(&series, 6), &with_id(&series, 7), &series);
    assert_eq!(row.verdict, Verdict::Regression, "{row:?}");
    assert_eq!(
        row.noise_source.as_deref(),
        Some("the sides' segments: 6 and 6 runs since runs 1 and 7")
    );
}

#[test]
fn runs_after_the_compared_ones_measure_the_noise() {
    let series = numbered(&[100.0; 8], 1);
    let cand = runs_at(&[90.0], 0);
    let row = row(&with_id(&series, 1), &cand, &series);
    assert_eq!(
        row.noise_source.as_deref(),
        Some("history: 7 runs since run 1")
    );
    assert_eq!(row.verdict, Verdict::Regression, "{row:?}");
}

#[test]
fn an_environment_change_cuts_the_history() {
    // kernel 6.1 at 100, then 6.12 at 100 but three times as noisy: the 6.1 runs
    // compared measure their noise among the 6.1 runs alone
    let mut series = numbered(&[100.0; 6], 1);
    let noisy = [100.0, 112.0, 89.0, 108.0, 93.0, 110.0];
    for (i, run) in numbered(&noisy, 7).into_iter().enumerate() {
        let mut run = run;
        run.host.kernel = Some("6.12".into());
        for m in &mut run.results {
            m.throughput *= [1.0, 1.1, 0.92][i % 3];
        }
        series.push(run);
    }
    let row = row(&with_id(&series, 5), &with_id(&series, 6), &series);
    assert_eq!(
        row.noise_source.as_deref(),
        Some("history: 4 runs since run 1")
    );
    assert!(row.noise_pct.unwrap() < 3.0, "{row:?}");
    // a run of each kernel: tested on both kernels' segments, every run of them (the
    // kernel sets them apart, no search did), no step between the sides (none was found)
    let row = self::row(&with_id(&series, 6), &with_id(&series, 7), &series);
    assert_eq!(
        row.noise_source.as_deref(),
        Some("the sides' segments: 6 and 6 runs since runs 1 and 7")
    );
    assert_eq!((row.runs_baseline, row.runs_candidate), (6, 6));
    let note = row.note.unwrap();
    assert!(note.contains("tested on the sides' segments"), "{note}");
    assert!(!note.contains("step"), "{note}");
}

/// Twelve runs alternating two labels, `pre` at 100 and `post` at `post`.
fn alternated(post: f64) -> Vec<Run> {
    let mut runs = Vec::new();
    for i in 0..12 {
        let level = if i % 2 == 0 { 100.0 } else { post };
        let mut run = numbered(&[level], i + 1).remove(0);
        run.labels = vec![if i % 2 == 0 { "pre" } else { "post" }.into()];
        runs.push(run);
    }
    runs
}

#[test]
fn labels_several_runs_share_cut_the_history() {
    let series = alternated(80.0);
    let ids = |ids: &[i64]| -> Vec<Run> { ids.iter().flat_map(|&i| with_id(&series, i)).collect() };
    let row = row(&ids(&[1, 3, 5]), &ids(&[2, 4, 6]), &series);
    assert_eq!(row.verdict, Verdict::Regression, "{row:?}");
    // every run of either label: the labels set the segments apart
    assert_eq!(
        row.noise_source.as_deref(),
        Some("the sides' segments: 6 and 6 runs since runs 1 and 2")
    );
    assert!(row.noise_pct.unwrap() < 3.0, "{row:?}");
    // labels that name each run alone (a date) cut nothing: one segment of both levels
    let mut dated = alternated(80.0);
    for run in &mut dated {
        run.labels = vec![format!("day-{}", run.id.unwrap())];
    }
    let row = self::row(&with_id(&dated, 1), &with_id(&dated, 2), &dated);
    assert_eq!(
        row.noise_source.as_deref(),
        Some("history: 10 runs since run 1")
    );
    assert!(row.noise_pct.unwrap() > 8.0, "{row:?}");
}

#[test]
fn runs_at_another_level_recorded_later_change_no_verdict() {
    // three runs a side on two filesystems, then three more on the first filesystem
    // remounted otherwise, at another level and noisier: the same six runs compared
    let on = |mount: &str, options: &str, levels: &[f64], first: i64, label: &str| {
        let mut runs = numbered(levels, first);
        for run in &mut runs {
            run.filesystem.mount_point = Some(mount.into());
            run.filesystem.mount_options = Some(options.into());
            run.labels = vec![label.into()];
        }
        runs
    };
    let default = on("/a", "rw", &[100.0, 103.0, 98.0], 1, "default");
    let journal = on("/b", "rw,data=journal", &[70.0, 74.0, 68.0], 4, "journal");
    let before = [default.clone(), journal.clone()].concat();
    let later = on("/a", "rw,data=journal", &[60.0, 75.0, 52.0], 7, "later");
    let after = [before.clone(), later].concat();
    let first = compare(
        &default,
        &journal,
        RunsRead::with_results(&before),
        &options(),
    )
    .unwrap();
    let again = compare(
        &default,
        &journal,
        RunsRead::with_results(&after),
        &options(),
    )
    .unwrap();
    assert_eq!(
        first.rows[0].verdict,
        Verdict::Regression,
        "{:?}",
        first.rows
    );
    assert_eq!(first.rows[0].noise_source.as_deref(), Some("runs"));
    assert_eq!(format!("{:?}", first.rows), format!("{:?}", again.rows));
}

/// A machine state that `host::busy_reasons` calls busy: 900 MiB dirty.
fn writeback() -> Option<MachineState> {
    Some(MachineState {
        writeback_bytes: Some(200 << 20),
        dirty_bytes: Some(900 << 20),
        ..Default::default()
    })
}

#[test]
fn a_busy_side_found_slower_without_history_is_inconclusive() {
    let base = runs_at(&[100.0, 101.0], 0);
    let mut cand = runs_at(&[85.0, 85.5], 5);
    let quiet = compare(&base, &cand, RunsRead::default(), &options()).unwrap();
    assert_eq!(
        quiet.rows[0].verdict,
        Verdict::Regression,
        "{:?}",
        quiet.rows
    );
    // busy only at the ends of its runs (its own writes, a slow filesystem's pressure):
    // the machine was quiet when they measured, the verdict stands
    for run in &mut cand {
        run.state_at_end = writeback();
    }
    let own = compare(&base, &cand, RunsRead::default(), &options()).unwrap();
    assert_eq!(own.rows[0].verdict, Verdict::Regression, "{:?}", own.rows);
    // one run of two busy: the side's spread holds what that did, the verdict stands
    cand[1].state_at_start = writeback();
    let mixed = compare(&base, &cand, RunsRead::default(), &options()).unwrap();
    assert_eq!(
        mixed.rows[0].verdict,
        Verdict::Regression,
        "{:?}",
        mixed.rows
    );
    // every run of the candidate busy, none of the baseline
    cand[0].state_at_start = writeback();
    let busy = compare(&base, &cand, RunsRead::default(), &options()).unwrap();
    let row = &busy.rows[0];
    assert_eq!(row.verdict, Verdict::Inconclusive, "{row:?}");
    let note = row.note.as_deref().unwrap();
    assert!(
        note.contains("the candidate ran on a busy machine (writeback")
            && note.contains("not called a regression"),
        "{note}"
    );
    // the busy side found faster keeps its verdict
    let mut busy_base = base.clone();
    for run in &mut busy_base {
        run.state_at_start = writeback();
    }
    let quiet_cand = runs_at(&[85.0, 85.5], 5);
    let busy_faster = compare(&busy_base, &quiet_cand, RunsRead::default(), &options());
    assert_eq!(busy_faster.unwrap().rows[0].verdict, Verdict::Regression);
    // a busy baseline cannot make the candidate an improvement
    let mut slow_base = runs_at(&[85.0, 85.5], 0);
    for run in &mut slow_base {
        run.state_at_start = writeback();
    }
    let c = compare(
        &slow_base,
        &runs_at(&[100.0, 101.0], 5),
        RunsRead::default(),
        &options(),
    );
    let row = &c.unwrap().rows[0];
    assert_eq!(row.verdict, Verdict::Inconclusive, "{row:?}");
    assert!(
        row.note
            .as_deref()
            .unwrap()
            .contains("not called an improvement")
    );
    // a history measures the noise: the verdict stands
    let history = runs_at(&[100.0, 100.5, 99.5, 100.2], 10);
    let c = compare(&base, &cand, RunsRead::with_results(&history), &options()).unwrap();
    assert_eq!(c.rows[0].verdict, Verdict::Regression, "{:?}", c.rows);
}

/// A run of one write row per record size, each at `levels[i]` times its random
/// offset, with five repetitions scattered by 3%.
fn rows_run(levels: &[f64], offset: f64, minutes: i64, z: &mut Gaussian) -> Run {
    let mut run = run_of(&[1.0], "6.1", minutes);
    run.results = (levels.iter().enumerate())
        .flat_map(|(i, &level)| {
            let run_level = level * (1.0 + offset * z.sample());
            (1..=5)
                .map(|rep| Measurement {
                    test: TestKind::Write,
                    file_size: ByteSize(1 << 20),
                    record_size: ByteSize(4096 << i),
                    repetition: rep,
                    bytes: 1 << 20,
                    elapsed_ns: 1,
                    throughput: run_level * (1.0 + 0.03 * z.sample()),
                    latency_ns: None,
                    engine: EngineKind::Posix,
                    cache: CacheMode::Flush,
                    ops: None,
                })
                .collect::<Vec<_>>()
        })
        .collect();
    run.stamp_combination();
    run
}

#[test]
fn corrected_intervals_exclude_zero_exactly_for_the_rows_selected() {
    // ten rows, drops from none to 12%, two or three runs a side: rows whose raw p
    // is below alpha but not after correction, and rows that are selected
    let drops = [0.0, 0.0, 0.01, 0.02, 0.03, 0.04, 0.06, 0.08, 0.10, 0.12];
    let (mut selected, mut unselected_below_alpha) = (0, 0);
    for seed in 0..40 {
        let mut z = Gaussian::new(seed);
        let runs = 2 + seed as usize % 2;
        let base: Vec<Run> = (0..runs)
            .map(|i| rows_run(&[100.0; 10], 0.03, i as i64, &mut z))
            .collect();
        let levels: Vec<f64> = drops.iter().map(|d| 100.0 * (1.0 - d)).collect();
        let cand: Vec<Run> = (0..runs)
            .map(|i| rows_run(&levels, 0.03, 10 + i as i64, &mut z))
            .collect();
        let c = compare(&base, &cand, RunsRead::default(), &options()).unwrap();
        let p: Vec<f64> = c.rows.iter().filter_map(|r| r.p_value).collect();
        let level = crate::stats::fcr_confidence(&p, 0.05) * 100.0;
        assert!((c.ci_level_pct - level).abs() < 1e-9);
        for row in &c.rows {
            let (lo, hi, q) = (
                row.ci_low_pct.unwrap(),
                row.ci_high_pct.unwrap(),
                row.p_adjusted.unwrap(),
            );
            assert_eq!(row.ci_level_pct, Some(c.ci_level_pct));
            assert_eq!(lo > 0.0 || hi < 0.0, q < 0.05, "seed {seed}: {row:?}");
            if row.verdict == Verdict::Inconclusive && (lo > 0.0 || hi < 0.0) {
                assert!(row.change_pct.abs() <= 5.0, "seed {seed}: {row:?}");
            }
            selected += (q < 0.05) as usize;
            unselected_below_alpha += (q >= 0.05 && row.p_value.unwrap() < 0.05) as usize;
        }
    }
    // both kinds of row were met, or the test checked nothing the correction changes
    assert!(selected > 0 && unselected_below_alpha > 0);
}
