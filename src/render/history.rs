//! `history`: one line per run that says which run it is at a glance, with its headline
//! figures: the median write and read at the run's largest file and record size.

use std::collections::HashMap;

use chrono::Local;
use serde::{Deserialize, Serialize};

use super::cells;
use super::listing::Listing;
use super::runs::{Places, RunColumn, numeric_indices};
use crate::facts::Fact;
use crate::model::{RowSummary, Run, TestKind, headline};
use crate::units::{ByteSize, RateUnit};

pub fn local_time(t: &chrono::DateTime<chrono::Utc>) -> String {
    t.with_timezone(&Local).format("%Y-%m-%d %H:%M").to_string()
}

/// The runs table of `history`, before its two headline rates.
const COLUMNS: [(&str, RunColumn); 9] = [
    ("ID", RunColumn::Id),
    ("When", RunColumn::When),
    ("Host", RunColumn::Host),
    ("Kernel", RunColumn::Kernel),
    ("FS", RunColumn::Filesystem),
    ("Labels", RunColumn::Labels),
    ("File", RunColumn::FileSize),
    ("Mode", RunColumn::Mode),
    ("Status", RunColumn::Status),
];

/// Where the place a run measured in goes, when one host's runs measured in several
/// (see [`Places`]): after the filesystem type.
const LOCATION_AT: usize = 5;

/// For the terminal and Markdown: readable values, one rate unit for the whole listing.
pub fn history_listing(
    runs: &[Run],
    summaries: &HashMap<i64, Vec<RowSummary>>,
    unit: RateUnit,
) -> (Listing, RateUnit) {
    let lines = HistoryLine::of_runs(runs, summaries);
    let unit = unit.resolve(lines.iter().flat_map(HistoryLine::figures));
    let places = Places::of(runs).differ();
    let mut listing = history_frame(unit, places);
    for line in lines {
        listing.push(line.into_row(unit, places));
    }
    (listing, unit)
}

/// The headers and columns of [`history_listing`] with rates in `unit`, no rows; with
/// a column for the directory of each run when `places` (see [`Places`]).
pub fn history_frame(unit: RateUnit, places: bool) -> Listing {
    let write_col = format!("write {}", unit.label());
    let read_col = format!("read {}", unit.label());
    let mut columns = COLUMNS.to_vec();
    if places {
        columns.insert(LOCATION_AT, ("Directory", RunColumn::Location));
    }
    let mut headers: Vec<&str> = columns.iter().map(|(header, _)| *header).collect();
    headers.extend([write_col.as_str(), read_col.as_str()]);
    let mut numeric = numeric_indices(&columns);
    numeric.extend([columns.len(), columns.len() + 1]);
    let at = |wanted: &str| columns.iter().position(|(header, _)| *header == wanted);
    let optional: Vec<usize> = LEFT_OUT_FIRST.iter().filter_map(|h| at(h)).collect();
    Listing::new(&headers).numeric(&numeric).optional(&optional)
}

/// The columns a terminal too narrow for the whole table leaves out, the first first:
/// what tells one run from another least, among runs of one place.
const LEFT_OUT_FIRST: [&str; 5] = ["Kernel", "FS", "Mode", "File", "Status"];

/// A run's row of [`history_listing`] before its rates have a unit, which waits for
/// every run's figures: what `history --all` keeps of a run between reading it from
/// the database and writing it out.
#[derive(Debug, Serialize, Deserialize)]
pub struct HistoryLine {
    cells: Vec<String>,
    /// Where the run measured, shown when one host's runs measured in several places.
    location: String,
    /// The headline write and read rates as `f64` bits: exact, infinities included,
    /// which a JSON number is not.
    figures: [Option<u64>; 2],
}

impl HistoryLine {
    pub fn of_runs(runs: &[Run], summaries: &HashMap<i64, Vec<RowSummary>>) -> Vec<HistoryLine> {
        let empty = Vec::new();
        let line = |run: &Run| {
            let of_run = summaries.get(&run.id.unwrap_or_default()).unwrap_or(&empty);
            let figure = |test| headline(&run.params, of_run, test).map(f64::to_bits);
            HistoryLine {
                cells: COLUMNS
                    .iter()
                    .map(|(_, column)| column.cell(run, local_time))
                    .collect(),
                location: RunColumn::Location.cell(run, local_time),
                figures: [figure(TestKind::Write), figure(TestKind::Read)],
            }
        };
        runs.iter().map(line).collect()
    }

    /// The headline rates there are, in bytes/s.
    pub fn figures(&self) -> impl Iterator<Item = f64> + use<> {
        self.figures.into_iter().flatten().map(f64::from_bits)
    }

    /// The row, its rates in `unit` (resolved), with where the run measured when
    /// `places` (see [`history_frame`]).
    pub fn into_row(self, unit: RateUnit, places: bool) -> Vec<String> {
        let rate = |f: Option<u64>| f.map_or("-".into(), |bits| unit.format(f64::from_bits(bits)));
        let mut row = self.cells;
        if places {
            row.insert(LOCATION_AT, self.location);
        }
        row.extend(self.figures.map(rate));
        row
    }
}

/// For CSV: raw values (RFC 3339 times, bytes, bytes per second) for other programs.
pub fn history_csv(runs: &[Run], summaries: &HashMap<i64, Vec<RowSummary>>) -> Listing {
    let mut listing = Listing::new(&[
        "id",
        "uuid",
        "started_at",
        "finished_at",
        "status",
        Fact::Hostname.column(),
        Fact::Kernel.column(),
        Fact::FsType.column(),
        "labels",
        "tags",
        "engine",
        "cache",
        "threads",
        "file_size",
        "record_sizes",
        "tests",
        "repeat",
        HEADLINES[0].0,
        HEADLINES[1].0,
        // added after the others, so no column a spreadsheet reads moves
        "iodepth",
        "dir",
        Fact::MountPoint.column(),
        "clients",
    ]);
    let empty = Vec::new();
    for run in runs {
        let res = summaries.get(&run.id.unwrap_or_default()).unwrap_or(&empty);
        let rate = |test| cells::raw_or_empty(headline(&run.params, res, test));
        let join = |v: Vec<String>| v.join(";");
        let fact = |f: Fact| {
            f.value(&run.host, &run.filesystem)
                .raw()
                .unwrap_or_default()
        };
        listing.push(vec![
            run.id.map_or(String::new(), |id| id.to_string()),
            run.uuid.to_string(),
            super::rfc3339(&run.started_at),
            run.finished_at
                .as_ref()
                .map_or(String::new(), super::rfc3339),
            cells::status(run.status),
            fact(Fact::Hostname),
            fact(Fact::Kernel),
            fact(Fact::FsType),
            join(run.labels.clone()),
            cells::tags(&run.tags, ";"),
            run.params.engine_names(),
            run.params.cache_names(),
            run.params.threads.to_string(),
            run.params.file_size().bytes().to_string(),
            join(
                run.params
                    .record_sizes
                    .iter()
                    .map(|r: &ByteSize| r.bytes().to_string())
                    .collect(),
            ),
            join(
                run.params
                    .tests
                    .iter()
                    .map(|t| t.name().to_string())
                    .collect(),
            ),
            run.params.repeat.to_string(),
            rate(TestKind::Write),
            rate(TestKind::Read),
            run.params.iodepth.to_string(),
            run.params.dir.clone().unwrap_or_default(),
            fact(Fact::MountPoint),
            run.params.clients.to_string(),
        ]);
    }
    listing
}

/// `history --format json`: the run objects of docs/formats.md's "JSON and CSV of every command" in their own key
/// order, without their results and warm-up rounds (not read for a listing), with the
/// headline figures the table shows under the CSV's names (bytes/s, null for none).
pub fn history_json(runs: &[Run], summaries: &HashMap<i64, Vec<RowSummary>>) -> String {
    let elements: Vec<HistoryElement> = runs
        .iter()
        .map(|run| {
            let of_run = summaries.get(&run.id.unwrap_or_default());
            HistoryElement::new(run, of_run.map_or(&[], Vec::as_slice))
        })
        .collect();
    super::json(&elements)
}

/// One run of `history --format json` with its summaries, as [`history_json`] prints
/// it (for [`super::JsonArray`] when streamed): the run's fields as its JSON names
/// them, bar the results and warm-up rounds, then the headline figures.
pub struct HistoryElement<'a> {
    run: &'a Run,
    headlines: [Option<f64>; 2],
}

impl<'a> HistoryElement<'a> {
    pub fn new(run: &'a Run, summaries: &[RowSummary]) -> HistoryElement<'a> {
        let headlines = HEADLINES.map(|(_, test)| headline(&run.params, summaries, test));
        HistoryElement { run, headlines }
    }
}

impl Serialize for HistoryElement<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        // every field named, in the run's own order: a field added to runs must be
        // placed here (or left out, as the results are) for this to compile
        let Run {
            id,
            uuid,
            started_at,
            finished_at,
            status,
            labels,
            tags,
            note,
            tool_version,
            params,
            host,
            filesystem,
            source,
            state_at_start,
            state_at_end,
            process,
            results: _,
            warmup: _,
            cluster,
        } = self.run;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("id", id)?;
        map.serialize_entry("uuid", uuid)?;
        map.serialize_entry("started_at", started_at)?;
        map.serialize_entry("finished_at", finished_at)?;
        map.serialize_entry("status", status)?;
        map.serialize_entry("labels", labels)?;
        map.serialize_entry("tags", tags)?;
        map.serialize_entry("note", note)?;
        map.serialize_entry("tool_version", tool_version)?;
        map.serialize_entry("params", params)?;
        map.serialize_entry("host", host)?;
        map.serialize_entry("filesystem", filesystem)?;
        map.serialize_entry("source", source)?;
        map.serialize_entry("state_at_start", state_at_start)?;
        map.serialize_entry("state_at_end", state_at_end)?;
        map.serialize_entry("process", process)?;
        // as the run serializes it: a run of one client has none
        if let Some(cluster) = cluster {
            map.serialize_entry("cluster", cluster)?;
        }
        for ((key, _), figure) in HEADLINES.iter().zip(&self.headlines) {
            map.serialize_entry(key, figure)?;
        }
        map.end()
    }
}

/// The headline figures' names in CSV and JSON, in their order.
const HEADLINES: [(&str, TestKind); 2] = [
    ("write_throughput", TestKind::Write),
    ("read_throughput", TestKind::Read),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::tests::sample_run;

    /// What an element of `history --format json` is: the run as our JSON has it, its
    /// results and warm-up rounds taken out, the headline figures added at the end.
    fn element_as_the_run_serializes(run: &Run, summaries: &[RowSummary]) -> serde_json::Value {
        let mut value = serde_json::to_value(run).unwrap();
        let object = value.as_object_mut().unwrap();
        object.shift_remove("results");
        object.shift_remove("warmup");
        for (key, test) in HEADLINES {
            object.insert(key.into(), headline(&run.params, summaries, test).into());
        }
        value
    }

    #[test]
    fn a_history_element_is_the_run_without_its_figures_and_with_its_headlines() {
        let mut imported = sample_run("h", 3);
        imported.source = Some(crate::model::Source {
            tool: "fio".into(),
            version: Some("3.33".into()),
            command: None,
            file: Some("x.json".into()),
            imported_at: chrono::Utc::now(),
            time_known: false,
        });
        imported.params.repeat_auto = None;
        let mut unmeasured = sample_run("h", 4);
        unmeasured.results.clear();
        let mut clients = sample_run("h", 5);
        clients.cluster = Some(crate::model::Cluster::default());
        for run in [sample_run("h", 0), imported, unmeasured, clients] {
            let summaries = crate::model::RowSummary::of(&run.results);
            let element = HistoryElement::new(&run, &summaries);
            assert_eq!(
                serde_json::to_string_pretty(&element).unwrap(),
                serde_json::to_string_pretty(&element_as_the_run_serializes(&run, &summaries))
                    .unwrap()
            );
        }
    }

    #[test]
    fn headline_is_the_median_at_the_largest_sizes() {
        let mut run = sample_run("h", 0);
        // a smaller record size must not count
        let mut small = run.results[0].clone();
        small.record_size = ByteSize(512);
        small.throughput = 1.0;
        run.results.push(small);
        // write repetitions at 4 KiB: 1e9/2, 1e9/3, 1e9/4 -> median 1e9/3
        let h = headline(
            &run.params,
            &crate::model::RowSummary::of(&run.results),
            TestKind::Write,
        )
        .unwrap();
        assert!((h - 1e9 / 3.0).abs() < 1e-3, "{h}");
        assert_eq!(
            headline(
                &run.params,
                &crate::model::RowSummary::of(&run.results),
                TestKind::Mix
            ),
            None
        );
        // a second engine's figures are not the run's headline
        let mut faster = run.results[0].clone();
        faster.engine = crate::model::EngineKind::Mmap;
        faster.throughput = 1e12;
        run.results.extend([faster.clone(), faster.clone(), faster]);
        run.params.engines = vec![run.params.engine(), crate::model::EngineKind::Mmap];
        let h = headline(
            &run.params,
            &crate::model::RowSummary::of(&run.results),
            TestKind::Write,
        )
        .unwrap();
        assert!((h - 1e9 / 3.0).abs() < 1e-3, "{h}");
    }

    #[test]
    fn a_host_measuring_in_several_places_names_each_runs_place() {
        let at = |host: &str, dir: &str| {
            let mut run = sample_run(host, 0);
            run.params.dir = Some(dir.into());
            run
        };
        let headers = |runs: &[Run]| {
            history_listing(runs, &HashMap::new(), RateUnit::MiB)
                .0
                .headers
        };
        let one_place = [at("a", "/mnt/a"), at("a", "/mnt/a"), at("b", "/mnt/b")];
        assert!(!headers(&one_place).contains(&"Directory".to_string()));
        let two_places = [at("a", "/mnt/a"), at("a", "/mnt/b")];
        let (listing, _) = history_listing(&two_places, &HashMap::new(), RateUnit::MiB);
        let column = listing
            .headers
            .iter()
            .position(|h| h == "Directory")
            .unwrap();
        assert_eq!(listing.headers[column - 1], "FS");
        let places: Vec<&str> = listing.rows.iter().map(|r| r[column].as_str()).collect();
        assert_eq!(places, ["/mnt/a", "/mnt/b"]);
        // a run that knows only its mount point is placed by it
        let mut imported = at("a", "/mnt/a");
        imported.params.dir = None;
        imported.filesystem.mount_point = Some("/srv".into());
        let (listing, _) = history_listing(
            &[at("a", "/mnt/a"), imported],
            &HashMap::new(),
            RateUnit::MiB,
        );
        assert_eq!(listing.rows[1][column], "/srv");
    }

    #[test]
    fn json_history_leaves_results_out() {
        let run = sample_run("h", 0);
        let summaries = HashMap::from([(
            run.id.unwrap_or_default(),
            crate::model::RowSummary::of(&run.results),
        )]);
        let text = history_json(std::slice::from_ref(&run), &summaries);
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert!(value[0].get("results").is_none());
        assert_eq!(value[0]["labels"], serde_json::json!(["DR9", "nightly"]));
        let write = value[0]["write_throughput"].as_f64().unwrap();
        assert!((write - 1e9 / 3.0).abs() < 1e-3, "{write}");
        assert!(value[0]["read_throughput"].is_f64(), "{value}");
        // a run without figures says so with null, as every JSON output does
        let none: serde_json::Value =
            serde_json::from_str(&history_json(std::slice::from_ref(&run), &HashMap::new()))
                .unwrap();
        assert!(none[0]["write_throughput"].is_null(), "{none}");
        // the struct's order, as show and export write it, never sorted
        let keys: Vec<&String> = value[0].as_object().unwrap().keys().collect();
        assert_eq!(keys[..3], ["id", "uuid", "started_at"]);
        assert_eq!(
            keys[keys.len() - 2..],
            ["write_throughput", "read_throughput"]
        );
    }
}
