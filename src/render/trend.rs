//! `trend`: the steps found, biggest drop first.

use comfy_table::Color;

use super::cells;
use super::history::local_time;
use super::listing::{Listing, TextStyle};
use crate::facts::Fact;
use crate::trend::{Step, TrendReport};
use crate::units::{RateUnit, count};

fn listing(report: &TrendReport, unit: RateUnit, raw: bool) -> Listing {
    let levels =
        (report.steps.iter()).flat_map(|s| [(&s.series.row, s.before), (&s.series.row, s.after)]);
    let scale = cells::column_scale(levels, unit);
    let mut listing = match raw {
        true => Listing::new(CSV_HEADERS),
        false => {
            let before = format!("Before {}", scale.label());
            let after = format!("After {}", scale.label());
            let listing = Listing::new(&[
                "Host",
                "FS",
                "Mount point",
                "Test",
                "File",
                "Record",
                "Mode",
                "From run",
                "When",
                &before,
                &after,
                "Change",
                "Runs",
            ]);
            // left out first on a narrow terminal: when (the run's id says which), the
            // runs on each side, the filesystem type (the mount point says where), the
            // levels
            (listing.numeric(&[4, 5, 7, 9, 10, 11])).optional(&[8, 12, 1, 9, 10])
        }
    };
    for step in &report.steps {
        let color = match step.change_pct < 0.0 {
            true => Color::Red,
            false => Color::Green,
        };
        match raw {
            true => listing.push_colored(raw_row(step), None),
            false => listing.push_colored(shown_row(step, scale), Some((CHANGE, color))),
        }
    }
    match raw || report.mounts_differ {
        true => listing,
        false => listing.without_column(MOUNT_POINT),
    }
}

/// The CSV's columns: the series key, the step, its levels in bytes/s.
const CSV_HEADERS: &[&str] = &[
    Fact::Hostname.column(),
    Fact::FsType.column(),
    Fact::MountPoint.column(),
    "test",
    "file_size",
    "record_size",
    "cache",
    "engine",
    "threads",
    "id",
    "started_at",
    "before",
    "after",
    "change_pct",
    "runs_before",
    "runs_after",
    // added after the others, so no column a spreadsheet reads moves
    "iodepth",
    "files",
    "dirs",
    "file_bytes",
    "rate_unit",
];

/// A step as the CSV gives it: raw figures, empty cells for what is unknown.
fn raw_row(s: &Step) -> Vec<String> {
    let k = &s.series;
    // a metadata test's tree; empty for the other tests
    let tree = |part: u64| match k.row.test.is_metadata() {
        true => part.to_string(),
        false => String::new(),
    };
    vec![
        k.hostname.clone().unwrap_or_default(),
        k.fs_type.clone().unwrap_or_default(),
        k.mount_point.clone().unwrap_or_default(),
        k.row.test.name().into(),
        k.row.file_size.bytes().to_string(),
        k.row.record_size.bytes().to_string(),
        k.row.cache.name().into(),
        k.row.engine.name().into(),
        k.row.threads.to_string(),
        s.run_id.map_or(String::new(), |id| id.to_string()),
        super::rfc3339(&s.started_at),
        cells::raw(s.before),
        cells::raw(s.after),
        cells::raw(s.change_pct),
        s.runs_before.to_string(),
        s.runs_after.to_string(),
        k.row.iodepth.to_string(),
        tree(k.row.files),
        tree(k.row.dirs),
        tree(k.row.file_bytes),
        cells::Scale::of(&k.row, RateUnit::Bytes).label().into(),
    ]
}

/// A step as the table for people shows it, levels under a column in `scale`.
fn shown_row(s: &Step, scale: cells::Scale) -> Vec<String> {
    let k = &s.series;
    let text = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".into());
    vec![
        text(&k.hostname),
        text(&k.fs_type),
        text(&k.mount_point),
        k.row.test.name().into(),
        cells::row_file(&k.row),
        cells::row_record(&k.row),
        cells::mode(
            Some(k.row.cache.name()),
            Some(k.row.engine.name()),
            Some(k.row.iodepth),
            Some(k.row.threads),
        ),
        s.run_id.map_or("-".into(), |id| id.to_string()),
        local_time(&s.started_at),
        cells::rate_under(scale, &k.row, s.before),
        cells::rate_under(scale, &k.row, s.after),
        cells::change(s.change_pct),
        format!("{} → {}", s.runs_before, s.runs_after),
    ]
}

/// The columns of the table for people: where the mount point is (shown only when
/// some host's series lie on several), and the change, which is coloured.
const MOUNT_POINT: usize = 2;
const CHANGE: usize = 11;

pub fn trend_text(report: &TrendReport, unit: RateUnit, style: TextStyle) -> String {
    let mut out = String::new();
    if !report.steps.is_empty() {
        out.push_str(&listing(report, unit, false).render(style));
    }
    out.push_str(&format!(
        "{} in {} series examined ({} series too short to judge)\n",
        count(report.steps.len(), "step"),
        report.series_examined,
        report.series_too_short
    ));
    out
}

pub fn trend_csv(report: &TrendReport) -> String {
    listing(report, RateUnit::Bytes, true).to_csv()
}
