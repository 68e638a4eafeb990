//! Our own formats coming back: the JSON export (lossless: every run exactly as it
//! was recorded, UUID included, so importing twice adds nothing), a single run object
//! or an array of them (`run`/`show --format json`), and the CSV export (one line per
//! result; it carries fewer facts than JSON, so what it lacks stays unknown).

use std::collections::HashSet;

use chrono::{DateTime, Utc};

use super::{Origin, ParseError};
use crate::export::{CSV_COLUMNS, CsvColumn};
use crate::model::{
    CacheMode, EngineKind, Filesystem, Host, Latency, Measurement, Params, RoundOrder, Run,
    RunStatus, Source, TestKind,
};
use crate::units::ByteSize;

pub fn looks_like_json(text: &str) -> bool {
    let t = text.trim_start();
    (t.starts_with('{') && t.contains("\"uuid\"") && !t.contains("\"fio version\""))
        || t.starts_with('[')
}

pub fn looks_like_csv(text: &str) -> bool {
    text.lines().next().is_some_and(|header| {
        // the export's first two columns, and one no other CSV we read starts with
        header.starts_with(&format!("{},{},", CSV_COLUMNS[0], CSV_COLUMNS[1]))
            && header.contains(&format!(",{}", CsvColumn::Throughput.name()))
    })
}

fn error(line: Option<usize>, message: impl Into<String>) -> ParseError {
    ParseError {
        line,
        message: message.into(),
    }
}

/// Runs from our JSON: the export document, one run, or an array of runs (the
/// whole-text form of [`read_json`](super::json_stream::read_json)).
pub fn parse_json(text: &str, _origin: &Origin) -> Result<Vec<Run>, ParseError> {
    let mut runs = Vec::new();
    super::json_stream::read_json(text.as_bytes(), &mut |run| {
        runs.push(run);
        true
    })?;
    Ok(runs)
}

/// What our own formats can hold but no run can have.
pub(super) fn sane(run: &Run) -> Result<(), ParseError> {
    let p = &run.params;
    let problem = match (p.iodepth, p.clients) {
        (0, _) => "iodepth 0 is not a queue depth (1 or more)",
        (_, 0) => "clients 0 is not a count of clients (1 or more)",
        _ => return Ok(()),
    };
    Err(error(None, format!("run {}: {problem}", run.uuid)))
}

/// Runs from our CSV export (the whole-text form of [`read_csv`]).
pub fn parse_csv(text: &str, origin: &Origin) -> Result<Vec<Run>, ParseError> {
    let mut runs = Vec::new();
    read_csv(
        text.as_bytes(),
        &origin.file,
        origin.imported_at,
        &mut |run| {
            runs.push(run);
            true
        },
    )?;
    Ok(runs)
}

/// Reads runs from our CSV export on `reader`, handing each to `emit` once its last
/// line is read; `emit` returns false to stop reading. A run's lines come together, as
/// the export writes them: a UUID met again after other runs' lines is an error, not a
/// second run (the first was handed on already). `file` and `imported_at` are the
/// runs' source: the CSV does not say where its runs came from.
pub fn read_csv(
    reader: impl std::io::Read,
    file: &str,
    imported_at: DateTime<Utc>,
    emit: &mut dyn FnMut(Run) -> bool,
) -> Result<(), ParseError> {
    let mut reader = csv::Reader::from_reader(reader);
    let headers = reader
        .headers()
        .map_err(|e| error(Some(1), format!("unreadable header: {e}")))?
        .clone();
    let column = |name: &str| headers.iter().position(|h| h == name);
    // the run being read, by its UUID's text, and the UUIDs of those handed on
    let mut current: Option<(String, Run)> = None;
    let mut done: HashSet<uuid::Uuid> = HashSet::new();
    let mut record = csv::StringRecord::new();
    let mut read = 0;
    loop {
        let line = reader.position().line() as usize;
        let more = reader
            .read_record(&mut record)
            .map_err(|e| error(Some(line), format!("unreadable line: {e}")))?;
        if !more {
            break;
        }
        read += 1;
        let line = record.position().map_or(line, |p| p.line() as usize);
        let field = |name: &str| -> Option<&str> {
            column(name)
                .and_then(|c| record.get(c))
                .filter(|v| !v.is_empty())
        };
        let row = CsvRow {
            field: &field,
            line,
        };
        let uuid = row.text(CsvColumn::Uuid)?;
        match &mut current {
            Some((text, run)) if *text == uuid => run.results.push(row.measurement()?),
            _ => {
                if let Some((_, run)) = current.take() {
                    done.insert(run.uuid);
                    if !finish(run, emit)? {
                        return Ok(());
                    }
                }
                let mut run = row.run(file, imported_at)?;
                if done.contains(&run.uuid) {
                    return Err(error(
                        Some(line),
                        format!(
                            "run {uuid} has lines apart from its others: a run's lines must come together, as the export writes them"
                        ),
                    ));
                }
                run.results.push(row.measurement()?);
                current = Some((uuid, run));
            }
        }
    }
    match current {
        Some((_, run)) => finish(run, emit).map(|_| ()),
        None if read == 0 => Err(error(None, "no results in the file")),
        None => Ok(()),
    }
}

/// A run whose lines are all read, completed and handed on; false when the consumer
/// is gone.
fn finish(mut run: Run, emit: &mut dyn FnMut(Run) -> bool) -> Result<bool, ParseError> {
    derive_lists(&mut run);
    sane(&run)?;
    Ok(emit(run))
}

/// One CSV line, read by column name.
struct CsvRow<'a> {
    field: &'a dyn Fn(&str) -> Option<&'a str>,
    line: usize,
}

impl CsvRow<'_> {
    fn text(&self, column: CsvColumn) -> Result<String, ParseError> {
        let name = column.name();
        (self.field)(name)
            .map(str::to_string)
            .ok_or_else(|| error(Some(self.line), format!("missing {name}")))
    }

    fn opt(&self, column: CsvColumn) -> Option<String> {
        (self.field)(column.name()).map(str::to_string)
    }

    fn number<T: std::str::FromStr>(&self, column: CsvColumn) -> Result<T, ParseError> {
        let text = self.text(column)?;
        text.parse().map_err(|_| {
            error(
                Some(self.line),
                format!("{} '{text}' is not a number", column.name()),
            )
        })
    }

    fn opt_number<T: std::str::FromStr>(&self, column: CsvColumn) -> Result<Option<T>, ParseError> {
        match (self.field)(column.name()) {
            None => Ok(None),
            Some(_) => self.number(column).map(Some),
        }
    }

    fn time(&self, column: CsvColumn) -> Result<Option<DateTime<Utc>>, ParseError> {
        let name = column.name();
        self.opt(column)
            .map(|t| {
                DateTime::parse_from_rfc3339(&t)
                    .map(|t| t.with_timezone(&Utc))
                    .map_err(|_| {
                        error(
                            Some(self.line),
                            format!("{name} '{t}' is not an RFC 3339 time"),
                        )
                    })
            })
            .transpose()
    }

    fn named<T: serde::de::DeserializeOwned>(&self, column: CsvColumn) -> Result<T, ParseError> {
        let text = self.text(column)?;
        serde_json::from_value(serde_json::Value::String(text.clone())).map_err(|_| {
            error(
                Some(self.line),
                format!("unknown {} '{text}'", column.name()),
            )
        })
    }

    fn run(&self, file: &str, imported_at: DateTime<Utc>) -> Result<Run, ParseError> {
        let started_at = self
            .time(CsvColumn::StartedAt)?
            .ok_or_else(|| error(Some(self.line), "missing started_at"))?;
        let list = |column: CsvColumn| -> Vec<String> {
            self.opt(column)
                .map(|v| v.split(';').map(str::to_string).collect())
                .unwrap_or_default()
        };
        let uuid_text = self.text(CsvColumn::Uuid)?;
        Ok(Run {
            id: None,
            uuid: uuid::Uuid::parse_str(&uuid_text)
                .map_err(|_| error(Some(self.line), format!("uuid '{uuid_text}' is not a UUID")))?,
            started_at,
            finished_at: self.time(CsvColumn::FinishedAt)?,
            status: self.named::<RunStatus>(CsvColumn::Status)?,
            labels: list(CsvColumn::Labels),
            tags: list(CsvColumn::Tags)
                .into_iter()
                .filter_map(|t| {
                    t.split_once('=')
                        .map(|(k, v)| (k.to_string(), v.to_string()))
                })
                .collect(),
            note: self.opt(CsvColumn::Note),
            tool_version: env!("CARGO_PKG_VERSION").into(),
            params: self.params()?,
            host: Host {
                hostname: self.opt(CsvColumn::Hostname),
                os: self.opt(CsvColumn::Os),
                os_version: self.opt(CsvColumn::OsVersion),
                kernel: self.opt(CsvColumn::Kernel),
                arch: self.opt(CsvColumn::Arch),
                ..Host::default()
            },
            filesystem: Filesystem {
                fs_type: self.opt(CsvColumn::FsType),
                mount_point: self.opt(CsvColumn::MountPoint),
                mount_options: self.opt(CsvColumn::MountOptions),
                ..Filesystem::default()
            },
            source: Some(Source {
                tool: "iozone".into(),
                version: None,
                command: None,
                file: Some(file.to_string()),
                imported_at,
                time_known: true,
            }),
            state_at_start: None,
            state_at_end: None,
            process: None,
            results: Vec::new(),
            warmup: Vec::new(),
            cluster: None,
        })
    }

    /// The run's parameters, as far as the CSV tells them: the rest is filled in from
    /// its lines once all are read (`derive_lists`), or left unknown.
    fn params(&self) -> Result<Params, ParseError> {
        Ok(Params {
            // the first line's, until all are read (`from_results`)
            engines: vec![self.named::<EngineKind>(CsvColumn::Engine)?],
            caches: vec![self.named::<CacheMode>(CsvColumn::Cache)?],
            // exports from before depths existed have no such column
            iodepth: self
                .opt_number(CsvColumn::Iodepth)?
                .unwrap_or_else(Params::legacy_iodepth),
            threads: self.number(CsvColumn::Threads)?,
            file_sizes: Vec::new(),
            record_sizes: Vec::new(),
            tests: Vec::new(),
            repeat: self.number(CsvColumn::Repeat)?,
            // not in the CSV export: as runs were before rounds existed
            warmup: 0,
            order: RoundOrder::legacy(),
            repeat_auto: None,
            seed: self.opt_number(CsvColumn::Seed)?,
            // not in the CSV export: unknown, not made up
            auto: false,
            verify: false,
            read_pct: None,
            stride_records: None,
            latency: false,
            dir: None,
            // exports from before many clients have no such column
            clients: self
                .opt_number(CsvColumn::Clients)?
                .unwrap_or_else(Params::one_client),
            hosts: Vec::new(),
            shared_file: false,
            stonewall: false,
        })
    }

    fn measurement(&self) -> Result<Measurement, ParseError> {
        let latency = match (
            self.opt_number::<u64>(CsvColumn::LatP50Ns)?,
            self.opt_number::<u64>(CsvColumn::LatP99Ns)?,
            self.opt_number::<u64>(CsvColumn::LatP999Ns)?,
            self.opt_number::<u64>(CsvColumn::LatMaxNs)?,
            self.opt_number::<u64>(CsvColumn::LatSamples)?,
        ) {
            (Some(p50), Some(p99), Some(p999), Some(max), Some(samples)) => Some(Latency {
                p50,
                p99,
                p999,
                max,
                samples,
            }),
            _ => None,
        };
        let throughput: f64 = self.number(CsvColumn::Throughput)?;
        if !throughput.is_finite() || throughput < 0.0 {
            return Err(error(
                Some(self.line),
                "throughput must be a positive number",
            ));
        }
        Ok(Measurement {
            test: self.named::<TestKind>(CsvColumn::Test)?,
            file_size: ByteSize(self.number(CsvColumn::FileSize)?),
            record_size: ByteSize(self.number(CsvColumn::RecordSize)?),
            repetition: self.number(CsvColumn::Repetition)?,
            bytes: self.number(CsvColumn::Bytes)?,
            elapsed_ns: self.number(CsvColumn::ElapsedNs)?,
            throughput,
            latency_ns: latency.map(Box::new),
            engine: self.named::<EngineKind>(CsvColumn::Engine)?,
            cache: self.named::<CacheMode>(CsvColumn::Cache)?,
        })
    }
}

/// File sizes, record sizes and tests of a run, from its results.
fn derive_lists(run: &mut Run) {
    let mut files: Vec<ByteSize> = run.results.iter().map(|m| m.file_size).collect();
    let mut records: Vec<ByteSize> = run.results.iter().map(|m| m.record_size).collect();
    let mut tests: Vec<TestKind> = run.results.iter().map(|m| m.test).collect();
    for v in [&mut files, &mut records] {
        v.sort_unstable();
        v.dedup();
    }
    tests.sort_unstable();
    tests.dedup();
    run.params.file_sizes = files;
    run.params.record_sizes = records;
    run.params.tests = tests;
    run.params.latency = run.results.iter().any(|m| m.latency_ns.is_some());
    // each line names its engine and cache mode: the run's lists are those, in the
    // order they first appear, and the first of each is the run's own
    run.params.engines = crate::model::first_seen(run.results.iter().map(|m| m.engine));
    run.params.caches = crate::model::first_seen(run.results.iter().map(|m| m.cache));
}

#[cfg(test)]
mod tests {
    use super::super::text::testing::origin;
    use super::*;

    /// A run at queue depth 32: the fio fixture's.
    fn sample_run() -> Run {
        let text = include_str!("../../tests/fixtures/fio/uring-qd32-write-4k-edited.json");
        super::super::fio::parse(text, &origin(text))
            .unwrap()
            .remove(0)
    }

    #[test]
    fn json_keeps_the_depth_and_a_run_without_one_reads_as_depth_one() {
        let run = sample_run();
        assert_eq!(run.params.iodepth, 32);
        let text = serde_json::to_string(&run).unwrap();
        assert_eq!(parse_json(&text, &origin(&text)).unwrap()[0], run);
        // a run written before depths existed
        let mut value = serde_json::to_value(&run).unwrap();
        value["params"].as_object_mut().unwrap().remove("iodepth");
        let old = value.to_string();
        let back = &parse_json(&old, &origin(&old)).unwrap()[0];
        assert_eq!(back.params.iodepth, 1);
    }

    /// The fio run measured through both posix and mmap, and buffered too.
    fn combined_run() -> Run {
        let mut run = sample_run();
        run.params.engines = vec![EngineKind::Posix, EngineKind::Mmap];
        run.params.caches = vec![CacheMode::Flush, CacheMode::Buffered];
        let first = run.results.clone();
        run.results = [EngineKind::Posix, EngineKind::Mmap]
            .into_iter()
            .flat_map(|engine| [CacheMode::Flush, CacheMode::Buffered].map(|c| (engine, c)))
            .flat_map(|(engine, cache)| {
                first.iter().map(move |m| Measurement {
                    engine,
                    cache,
                    ..m.clone()
                })
            })
            .collect();
        run.results.sort_by_key(Measurement::list_order);
        run
    }

    #[test]
    fn json_keeps_each_measurements_engine_and_old_json_takes_the_runs() {
        let run = combined_run();
        let text = serde_json::to_string(&run).unwrap();
        assert_eq!(parse_json(&text, &origin(&text)).unwrap()[0], run);
        // a run written before measurements named theirs: the run's, as its params say
        let mut old = sample_run();
        old.params.engines = vec![EngineKind::Mmap];
        old.params.caches = vec![CacheMode::Buffered];
        let mut value = serde_json::to_value(&old).unwrap();
        for m in value["results"].as_array_mut().unwrap() {
            let m = m.as_object_mut().unwrap();
            assert!(m.remove("engine").is_some() && m.remove("cache").is_some());
        }
        assert!(value["params"].get("engines").is_none());
        let text = serde_json::json!([value]).to_string();
        let back = &parse_json(&text, &origin(&text)).unwrap()[0];
        assert!(!back.results.is_empty());
        for m in &back.results {
            assert_eq!((m.engine, m.cache), (EngineKind::Mmap, CacheMode::Buffered));
        }
    }

    #[test]
    fn csv_keeps_each_lines_engine_and_the_runs_lists() {
        let run = combined_run();
        let text = crate::export::to_csv(std::slice::from_ref(&run));
        let back = &parse_csv(&text, &origin(&text)).unwrap()[0];
        assert_eq!(back.results, run.results);
        assert_eq!(
            (&back.params.engines, &back.params.caches),
            (&run.params.engines, &run.params.caches)
        );
        // one combination: the lists hold it alone
        let single = sample_run();
        let text = crate::export::to_csv(std::slice::from_ref(&single));
        let back = &parse_csv(&text, &origin(&text)).unwrap()[0];
        assert_eq!(
            (&back.params.engines, &back.params.caches),
            (&vec![single.params.engine()], &vec![single.params.cache()])
        );
    }

    #[test]
    fn csv_keeps_the_depth_and_an_export_without_the_column_reads_as_depth_one() {
        let run = sample_run();
        let text = crate::export::to_csv(std::slice::from_ref(&run));
        let header = text.lines().next().unwrap();
        assert!(header.ends_with(",iodepth,clients"), "{header}");
        assert_eq!(
            parse_csv(&text, &origin(&text)).unwrap()[0].params.iodepth,
            32
        );
        // an export from before the columns: every line without its last two fields
        let old: String = text
            .lines()
            .map(|line| {
                let line = line.rsplit_once(',').unwrap().0;
                format!("{}\n", line.rsplit_once(',').unwrap().0)
            })
            .collect();
        let back = &parse_csv(&old, &origin(&old)).unwrap()[0];
        assert_eq!((back.params.iodepth, back.params.clients), (1, 1));
        let mut many = run.clone();
        many.params.clients = 4;
        let text = crate::export::to_csv(std::slice::from_ref(&many));
        assert_eq!(
            parse_csv(&text, &origin(&text)).unwrap()[0].params.clients,
            4
        );
        let bad = text.replacen(",32,4\n", ",deep,4\n", 1);
        let err = parse_csv(&bad, &origin(&bad)).unwrap_err();
        assert_eq!(err.message, "iodepth 'deep' is not a number");
    }

    #[test]
    fn a_depth_of_zero_is_refused_in_either_format() {
        let mut run = sample_run();
        run.params.iodepth = 0;
        let json = serde_json::to_string(&run).unwrap();
        let e = parse_json(&json, &origin(&json)).unwrap_err();
        assert!(
            e.message.contains("iodepth 0 is not a queue depth"),
            "{e:?}"
        );
        let csv = crate::export::to_csv(std::slice::from_ref(&run));
        assert!(csv.lines().nth(1).unwrap().ends_with(",0,1"), "{csv}");
        let e = parse_csv(&csv, &origin(&csv)).unwrap_err();
        assert!(
            e.message.contains("iodepth 0 is not a queue depth"),
            "{e:?}"
        );
    }
}
