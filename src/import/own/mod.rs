//! Our own formats coming back: the JSON export (lossless: every run exactly as it
//! was recorded, UUID included, so importing twice adds nothing), a single run object
//! or an array of them (`run`/`show --format json`), and the CSV export (one line per
//! result; it carries fewer facts than JSON, so what it lacks stays unknown).

use std::collections::HashSet;

use chrono::{DateTime, Utc};

use super::{Origin, ParseError};
use crate::export::{CSV_COLUMNS, CsvColumn};
use crate::model::{
    CacheMode, EngineKind, Filesystem, Host, Latency, Measurement, MetadataTree, Params,
    RoundOrder, Run, RunStatus, Source, TestKind,
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
    match run.params.iodepth {
        0 => Err(error(
            None,
            format!(
                "run {}: iodepth 0 is not a queue depth (1 or more)",
                run.uuid
            ),
        )),
        _ => Ok(()),
    }
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
            Some((text, run)) if *text == uuid => row.add_to(run)?,
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
                row.add_to(&mut run)?;
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
            // the lines of metadata tests state it (`derive_lists`)
            metadata: None,
        })
    }

    /// The line's result added to `run`, and its tree the run's when it states one.
    fn add_to(&self, run: &mut Run) -> Result<(), ParseError> {
        if let Some(tree) = self.tree()? {
            run.params.metadata = Some(tree);
        }
        run.results.push(self.measurement()?);
        Ok(())
    }

    /// The metadata tree a line of a metadata test states; `None` on other lines (and
    /// in exports from before metadata tests existed, which have no such columns).
    fn tree(&self) -> Result<Option<MetadataTree>, ParseError> {
        let Some(files) = self.opt_number(CsvColumn::MetaFiles)? else {
            return Ok(None);
        };
        Ok(Some(MetadataTree {
            files,
            dirs: self.number(CsvColumn::MetaDirs)?,
            file_bytes: self.number(CsvColumn::MetaFileBytes)?,
            shared_dir: self.number(CsvColumn::MetaSharedDir)?,
            random_order: self.number(CsvColumn::MetaRandomOrder)?,
            // exports of the first metadata runs did not state it
            warm: self.opt_number(CsvColumn::MetaWarm)?.unwrap_or(false),
        }))
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
            ops: self.opt_number(CsvColumn::Ops)?,
        })
    }
}

/// File sizes, record sizes and tests of a run, from its results.
fn derive_lists(run: &mut Run) {
    // a metadata test's sizes are 0: its tree is the run's, not a size
    let sized = || run.results.iter().filter(|m| !m.test.is_metadata());
    let mut files: Vec<ByteSize> = sized().map(|m| m.file_size).collect();
    let mut records: Vec<ByteSize> = sized().map(|m| m.record_size).collect();
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
mod tests;
