//! The columns of `runs` and `results`, each declared once: its name, the kind of
//! value it holds, how that value is taken from a model value and how it is put back.
//! Both backends build their INSERT and SELECT lists from these tables and bind
//! [`Value`]s to their driver, so a new column is one entry here (and one migration per
//! backend), never a hand-numbered index in two files.
//!
//! What a value looks like on disk is the backend's business, decided once in its
//! binding: SQLite keeps instants as fixed-width RFC 3339 UTC text with nanoseconds (so
//! text order is time order), UUIDs as text and booleans as 0/1; PostgreSQL keeps
//! `timestamptz`, `uuid` and `boolean`. Enums are stored under their JSON names, lists
//! and machine states as JSON text, and every integer as a 64-bit one.
//!
//! Kept whole: it is the one table of every stored column; split, a column's entry and
//! the codec it names would live in two files, which is what this module exists to end.

use chrono::DateTime;

pub use super::value::{Kind, Value};
use super::value::{bits, json_of, name_of, opt_bits, set};

use crate::model::{
    AutoRepeat, CacheMode, EngineKind, Latency, Measurement, MetadataTree, RowSummary, Run,
    RunProcess, Source, TestKind,
};
use crate::units::ByteSize;

/// A column of the table whose rows are `T`s.
pub struct Column<T> {
    pub name: &'static str,
    pub kind: Kind,
    /// Written by the database (the run's id): read, never inserted.
    pub generated: bool,
    pub encode: fn(&T) -> Value<'static>,
    pub decode: fn(&mut T, Value<'_>) -> Result<(), String>,
}

const fn column<T>(
    name: &'static str,
    kind: Kind,
    encode: fn(&T) -> Value<'static>,
    decode: fn(&mut T, Value<'_>) -> Result<(), String>,
) -> Column<T> {
    Column {
        name,
        kind,
        generated: false,
        encode,
        decode,
    }
}

/// A value that cannot become the model value its column holds: the data is not what
/// iozone wrote.
#[derive(Debug, thiserror::Error)]
#[error("column {column} {problem}")]
pub struct DecodeError {
    pub column: &'static str,
    pub problem: String,
}

/// The names of the columns an INSERT writes, in table order.
pub fn inserted<T>(columns: &'static [Column<T>]) -> impl Iterator<Item = &'static Column<T>> {
    columns.iter().filter(|c| !c.generated)
}

/// The names of the columns a SELECT reads, in table order.
pub fn select_list<T>(columns: &[Column<T>]) -> String {
    let names: Vec<&str> = columns.iter().map(|c| c.name).collect();
    names.join(", ")
}

/// The values an INSERT of `row` binds, in the order of [`inserted`].
pub fn encode<'r, T>(
    columns: &'static [Column<T>],
    row: &'r T,
) -> impl Iterator<Item = Value<'static>> + 'r {
    inserted(columns).map(move |c| (c.encode)(row))
}

/// A model value from a row that selected every one of `columns`, in order: `read`
/// gives column `idx`'s value of its kind (its error, the driver's, ends the decoding),
/// `bad` makes the error of a value that cannot become the model's. Each value is read
/// as it is decoded, so a driver's text is borrowed, not copied.
pub fn decode<'c, 'v, T: 'c, E>(
    columns: impl IntoIterator<Item = &'c Column<T>>,
    mut blank: T,
    mut read: impl FnMut(usize, Kind) -> Result<Value<'v>, E>,
    bad: impl FnOnce(usize, DecodeError) -> E,
) -> Result<T, E> {
    for (idx, c) in columns.into_iter().enumerate() {
        let value = read(idx, c.kind)?;
        if let Err(problem) = (c.decode)(&mut blank, value) {
            let error = DecodeError {
                column: c.name,
                problem,
            };
            return Err(bad(idx, error));
        }
    }
    Ok(blank)
}

/// The column called `name`; the name is one of the table's, spelled in code.
pub fn named<T>(columns: &'static [Column<T>], name: &str) -> &'static Column<T> {
    columns
        .iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("no column {name}"))
}

// ---- runs ----

/// The parameters an imported file did not state, as a JSON list; null when all were.
fn unstated(run: &Run) -> Value<'static> {
    let p = &run.params;
    let missing: Vec<&str> = [
        ("seed", p.seed.is_none()),
        ("read_pct", p.read_pct.is_none()),
        ("stride_records", p.stride_records.is_none()),
        ("dir", p.dir.is_none()),
    ]
    .into_iter()
    .filter_map(|(name, missing)| missing.then_some(name))
    .collect();
    match missing.is_empty() {
        true => Value::Null,
        false => json_of(&missing),
    }
}

fn forget_unstated(run: &mut Run, value: Value) -> Result<(), String> {
    let names: Vec<String> = match value {
        Value::Null => return Ok(()),
        other => other.json()?,
    };
    let p = &mut run.params;
    for name in &names {
        match name.as_str() {
            "seed" => p.seed = None,
            "read_pct" => p.read_pct = None,
            "stride_records" => p.stride_records = None,
            "dir" => p.dir = None,
            other => return Err(format!("names an unknown parameter {other:?}")),
        }
    }
    Ok(())
}

/// Sets a run's engines or cache modes to the list a column states, when it states one:
/// `[]` for a run of one combination, whose engine and cache mode the columns before
/// state.
fn set_stated<T: serde::de::DeserializeOwned>(
    list: &mut Vec<T>,
    value: Value,
) -> Result<(), String> {
    let stated: Vec<T> = value.json()?;
    if !stated.is_empty() {
        *list = stated;
    }
    Ok(())
}

/// The columns of `runs`; labels, tags and results live in tables of their own.
// One column a line: a table reads best as a table.
#[rustfmt::skip]
pub static RUN_COLUMNS: &[Column<Run>] = &[
    Column {
        name: "id",
        kind: Kind::Integer,
        generated: true,
        encode: |r| r.id.into(),
        decode: |r, v| set(&mut r.id, v.int().map(Some)),
    },
    column("uuid", Kind::Uuid, |r| r.uuid.into(), |r, v| set(&mut r.uuid, v.uuid())),
    column("started_at", Kind::Time, |r| r.started_at.into(), |r, v| set(&mut r.started_at, v.time())),
    column("finished_at", Kind::Time, |r| r.finished_at.into(), |r, v| set(&mut r.finished_at, v.opt_time())),
    column("status", Kind::Text, |r| name_of(&r.status), |r, v| set(&mut r.status, v.name())),
    column("note", Kind::Text, |r| r.note.clone().into(), |r, v| set(&mut r.note, v.opt_text())),
    column("tool_version", Kind::Text, |r| r.tool_version.clone().into(), |r, v| set(&mut r.tool_version, v.text())),
    // parameters
    // the run's own engine and cache mode: the lists until `engines` and `caches` say more
    column("engine", Kind::Text, |r| name_of(&r.params.engine()), |r, v| set(&mut r.params.engines, v.name().map(|e| vec![e]))),
    column("cache", Kind::Text, |r| name_of(&r.params.cache()), |r, v| set(&mut r.params.caches, v.name().map(|c| vec![c]))),
    column("threads", Kind::Integer, |r| r.params.threads.into(), |r, v| set(&mut r.params.threads, v.narrow())),
    // the largest of `file_sizes`, which says it: read and left
    column("file_size", Kind::Integer, |r| bits(r.params.file_size().bytes()), |_, v| v.bits().map(drop)),
    column("file_sizes", Kind::Text, |r| json_of(&r.params.file_sizes), |r, v| set(&mut r.params.file_sizes, v.json())),
    column("record_sizes", Kind::Text, |r| json_of(&r.params.record_sizes), |r, v| set(&mut r.params.record_sizes, v.json())),
    column("tests", Kind::Text, |r| json_of(&r.params.tests), |r, v| set(&mut r.params.tests, v.json())),
    column("repeat", Kind::Integer, |r| r.params.repeat.into(), |r, v| set(&mut r.params.repeat, v.narrow())),
    // seed, read_pct, stride_records and dir: a placeholder when unstated (`unstated`)
    column("seed", Kind::Integer, |r| bits(r.params.seed.unwrap_or(0)), |r, v| set(&mut r.params.seed, v.bits().map(Some))),
    column("auto", Kind::Bool, |r| r.params.auto.into(), |r, v| set(&mut r.params.auto, v.bool())),
    column("verify", Kind::Bool, |r| r.params.verify.into(), |r, v| set(&mut r.params.verify, v.bool())),
    column("read_pct", Kind::Integer, |r| r.params.read_pct.unwrap_or(0).into(), |r, v| set(&mut r.params.read_pct, v.narrow().map(Some))),
    column("stride_records", Kind::Integer, |r| bits(r.params.stride_records.unwrap_or(0)), |r, v| set(&mut r.params.stride_records, v.bits().map(Some))),
    column("latency", Kind::Bool, |r| r.params.latency.into(), |r, v| set(&mut r.params.latency, v.bool())),
    column("dir", Kind::Text, |r| r.params.dir.clone().unwrap_or_default().into(), |r, v| set(&mut r.params.dir, v.text().map(Some))),
    column("warmup", Kind::Integer, |r| r.params.warmup.into(), |r, v| set(&mut r.params.warmup, v.narrow())),
    column("round_order", Kind::Text, |r| name_of(&r.params.order), |r, v| set(&mut r.params.order, v.name())),
    column("iodepth", Kind::Integer, |r| r.params.iodepth.into(), |r, v| set(&mut r.params.iodepth, v.narrow())),
    // every engine and cache mode of a run that measured several; `[]` otherwise
    column("engines", Kind::Text, |r| json_of(&r.params.stated_lists().0), |r, v| set_stated(&mut r.params.engines, v)),
    column("caches", Kind::Text, |r| json_of(&r.params.stated_lists().1), |r, v| set_stated(&mut r.params.caches, v)),
    // after the four columns it names, which it turns back into "not stated"
    column("unstated", Kind::Text, unstated, forget_unstated),
    // `repeat_auto` is two columns, set together or not at all
    column(
        "precision_pct",
        Kind::Real,
        |r| r.params.repeat_auto.map(|a| a.precision_pct).into(),
        |r, v| {
            let precision_pct = v.opt_real()?;
            r.params.repeat_auto = precision_pct.map(|precision_pct| AutoRepeat {
                precision_pct,
                max_time_s: 0.0,
            });
            Ok(())
        },
    ),
    column(
        "max_time_s",
        Kind::Real,
        |r| r.params.repeat_auto.map(|a| a.max_time_s).into(),
        |r, v| {
            match (&mut r.params.repeat_auto, v.opt_real()?) {
                (Some(auto), Some(max_time_s)) => auto.max_time_s = max_time_s,
                (auto, None) => *auto = None,
                (None, Some(_)) => {}
            }
            Ok(())
        },
    ),
    // the metadata tests' tree: six columns, null together for a run without them
    column(
        "meta_files",
        Kind::Integer,
        |r| opt_bits(r.params.metadata.map(|t| t.files)),
        |r, v| {
            r.params.metadata = v.unsigned()?.map(|files| MetadataTree { files, ..MetadataTree::default() });
            Ok(())
        },
    ),
    column("meta_dirs", Kind::Integer, |r| opt_bits(r.params.metadata.map(|t| t.dirs)), |r, v| in_tree(r, v, |t, v| set(&mut t.dirs, v.bits()))),
    column("meta_file_bytes", Kind::Integer, |r| opt_bits(r.params.metadata.map(|t| t.file_bytes)), |r, v| in_tree(r, v, |t, v| set(&mut t.file_bytes, v.bits()))),
    column("meta_shared_dir", Kind::Bool, |r| r.params.metadata.map(|t| t.shared_dir).into(), |r, v| in_tree(r, v, |t, v| set(&mut t.shared_dir, v.bool()))),
    column("meta_random_order", Kind::Bool, |r| r.params.metadata.map(|t| t.random_order).into(), |r, v| in_tree(r, v, |t, v| set(&mut t.random_order, v.bool()))),
    column("meta_warm", Kind::Bool, |r| r.params.metadata.map(|t| t.warm).into(), |r, v| in_tree(r, v, |t, v| set(&mut t.warm, v.bool()))),
    // the host
    column("hostname", Kind::Text, |r| r.host.hostname.clone().into(), |r, v| set(&mut r.host.hostname, v.opt_text())),
    column("os", Kind::Text, |r| r.host.os.clone().into(), |r, v| set(&mut r.host.os, v.opt_text())),
    column("os_version", Kind::Text, |r| r.host.os_version.clone().into(), |r, v| set(&mut r.host.os_version, v.opt_text())),
    column("kernel", Kind::Text, |r| r.host.kernel.clone().into(), |r, v| set(&mut r.host.kernel, v.opt_text())),
    column("kernel_cmdline", Kind::Text, |r| r.host.kernel_cmdline.clone().into(), |r, v| set(&mut r.host.kernel_cmdline, v.opt_text())),
    column("boot_id", Kind::Text, |r| r.host.boot_id.clone().into(), |r, v| set(&mut r.host.boot_id, v.opt_text())),
    column("arch", Kind::Text, |r| r.host.arch.clone().into(), |r, v| set(&mut r.host.arch, v.opt_text())),
    column("cpu_model", Kind::Text, |r| r.host.cpu_model.clone().into(), |r, v| set(&mut r.host.cpu_model, v.opt_text())),
    column("cpus", Kind::Integer, |r| r.host.cpus.into(), |r, v| set(&mut r.host.cpus, v.opt_narrow())),
    column("cpu_governor", Kind::Text, |r| r.host.cpu_governor.clone().into(), |r, v| set(&mut r.host.cpu_governor, v.opt_text())),
    column("memory_bytes", Kind::Integer, |r| opt_bits(r.host.memory_bytes), |r, v| set(&mut r.host.memory_bytes, v.unsigned())),
    column("page_size", Kind::Integer, |r| opt_bits(r.host.page_size), |r, v| set(&mut r.host.page_size, v.unsigned())),
    column("dirty_ratio", Kind::Integer, |r| opt_bits(r.host.dirty_ratio), |r, v| set(&mut r.host.dirty_ratio, v.unsigned())),
    column("dirty_background_ratio", Kind::Integer, |r| opt_bits(r.host.dirty_background_ratio), |r, v| set(&mut r.host.dirty_background_ratio, v.unsigned())),
    column("dirty_bytes", Kind::Integer, |r| opt_bits(r.host.dirty_bytes), |r, v| set(&mut r.host.dirty_bytes, v.unsigned())),
    column("dirty_background_bytes", Kind::Integer, |r| opt_bits(r.host.dirty_background_bytes), |r, v| set(&mut r.host.dirty_background_bytes, v.unsigned())),
    column("dirty_expire_centisecs", Kind::Integer, |r| opt_bits(r.host.dirty_expire_centisecs), |r, v| set(&mut r.host.dirty_expire_centisecs, v.unsigned())),
    column("dirty_writeback_centisecs", Kind::Integer, |r| opt_bits(r.host.dirty_writeback_centisecs), |r, v| set(&mut r.host.dirty_writeback_centisecs, v.unsigned())),
    column("virtualization", Kind::Text, |r| r.host.virtualization.clone().into(), |r, v| set(&mut r.host.virtualization, v.opt_text())),
    column("container", Kind::Text, |r| r.host.container.clone().into(), |r, v| set(&mut r.host.container, v.opt_text())),
    // the filesystem under `dir`
    column("mount_point", Kind::Text, |r| r.filesystem.mount_point.clone().into(), |r, v| set(&mut r.filesystem.mount_point, v.opt_text())),
    column("fs_type", Kind::Text, |r| r.filesystem.fs_type.clone().into(), |r, v| set(&mut r.filesystem.fs_type, v.opt_text())),
    column("fs_device", Kind::Text, |r| r.filesystem.device.clone().into(), |r, v| set(&mut r.filesystem.device, v.opt_text())),
    column("mount_options", Kind::Text, |r| r.filesystem.mount_options.clone().into(), |r, v| set(&mut r.filesystem.mount_options, v.opt_text())),
    column("block_size", Kind::Integer, |r| opt_bits(r.filesystem.block_size), |r, v| set(&mut r.filesystem.block_size, v.unsigned())),
    column("total_bytes", Kind::Integer, |r| opt_bits(r.filesystem.total_bytes), |r, v| set(&mut r.filesystem.total_bytes, v.unsigned())),
    column("free_bytes", Kind::Integer, |r| opt_bits(r.filesystem.free_bytes), |r, v| set(&mut r.filesystem.free_bytes, v.unsigned())),
    column("block_device", Kind::Text, |r| r.filesystem.block_device.clone().into(), |r, v| set(&mut r.filesystem.block_device, v.opt_text())),
    column("device_model", Kind::Text, |r| r.filesystem.device_model.clone().into(), |r, v| set(&mut r.filesystem.device_model, v.opt_text())),
    column("rotational", Kind::Bool, |r| r.filesystem.rotational.into(), |r, v| set(&mut r.filesystem.rotational, v.opt_bool())),
    column("scheduler", Kind::Text, |r| r.filesystem.scheduler.clone().into(), |r, v| set(&mut r.filesystem.scheduler, v.opt_text())),
    column("device_size", Kind::Integer, |r| opt_bits(r.filesystem.device_size), |r, v| set(&mut r.filesystem.device_size, v.unsigned())),
    // where an imported run came from: all null for a native run, which the tool says
    column(
        "source_tool",
        Kind::Text,
        |r| r.source.as_ref().map(|s| s.tool.clone()).into(),
        |r, v| {
            r.source = v.opt_text()?.map(|tool| Source {
                tool,
                version: None,
                command: None,
                file: None,
                imported_at: DateTime::UNIX_EPOCH,
                time_known: true,
            });
            Ok(())
        },
    ),
    column("source_version", Kind::Text, |r| source(r, |s| s.version.clone()), |r, v| in_source(r, v, |s, v| set(&mut s.version, v.opt_text()))),
    column("source_command", Kind::Text, |r| source(r, |s| s.command.clone()), |r, v| in_source(r, v, |s, v| set(&mut s.command, v.opt_text()))),
    column("source_file", Kind::Text, |r| source(r, |s| s.file.clone()), |r, v| in_source(r, v, |s, v| set(&mut s.file, v.opt_text()))),
    column("imported_at", Kind::Time, |r| source(r, |s| s.imported_at), |r, v| in_source(r, v, |s, v| set(&mut s.imported_at, v.time()))),
    // runs recorded before the flag had their source's time
    column("source_time_known", Kind::Bool, |r| source(r, |s| s.time_known), |r, v| in_source(r, v, |s, v| set(&mut s.time_known, v.opt_bool().map(|k| k.unwrap_or(true))))),
    // the machine's state around the run
    column("state_at_start", Kind::Text, |r| r.state_at_start.as_ref().map(json_of).into(), |r, v| set(&mut r.state_at_start, v.opt_json())),
    column("state_at_end", Kind::Text, |r| r.state_at_end.as_ref().map(json_of).into(), |r, v| set(&mut r.state_at_end, v.opt_json())),
    // the process that measured the run: both null, or both set
    column(
        "pid",
        Kind::Integer,
        |r| r.process.map(|p| i64::from(p.pid)).into(),
        |r, v| {
            r.process = v.opt_narrow()?.map(|pid| RunProcess { pid, start_ticks: 0 });
            Ok(())
        },
    ),
    column(
        "process_start",
        Kind::Integer,
        |r| opt_bits(r.process.map(|p| p.start_ticks)),
        |r, v| {
            if let (Some(process), Some(ticks)) = (&mut r.process, v.unsigned()?) {
                process.start_ticks = ticks;
            }
            Ok(())
        },
    ),
    // many clients: the count, each rank's host, their layout; what a run of many keeps
    column("clients", Kind::Integer, |r| r.params.clients.into(), |r, v| set(&mut r.params.clients, v.narrow())),
    column("client_hosts", Kind::Text, |r| json_of(&r.params.hosts), |r, v| set(&mut r.params.hosts, v.json())),
    column("shared_file", Kind::Bool, |r| r.params.shared_file.into(), |r, v| set(&mut r.params.shared_file, v.bool())),
    column("stonewall", Kind::Bool, |r| r.params.stonewall.into(), |r, v| set(&mut r.params.stonewall, v.bool())),
    column("cluster", Kind::Text, |r| r.cluster.as_ref().map(json_of).into(), |r, v| set(&mut r.cluster, v.opt_json())),
];

/// Columns of a run that [`Store::finish_run`](super::Store::finish_run) updates: what
/// is known only at the end, and the start, which is when the measuring began, not
/// when the run was begun in the store (which may have waited for a lock).
pub const FINISHED_COLUMNS: &[&str] = &[
    "status",
    "started_at",
    "finished_at",
    "repeat",
    "state_at_end",
    // each measurement's figures per rank, and the failed rank
    "cluster",
];

/// Sets a field of the run's metadata tree, which only a non-null `meta_files` makes.
fn in_tree(
    run: &mut Run,
    value: Value,
    put: impl Fn(&mut MetadataTree, Value) -> Result<(), String>,
) -> Result<(), String> {
    match &mut run.params.metadata {
        Some(tree) => put(tree, value),
        None => Ok(()),
    }
}

fn source<T: Into<Value<'static>>>(run: &Run, field: impl Fn(&Source) -> T) -> Value<'static> {
    run.source.as_ref().map(field).into()
}

/// Sets a field of the run's source, which only a non-null `source_tool` makes.
fn in_source(
    run: &mut Run,
    value: Value,
    put: impl Fn(&mut Source, Value) -> Result<(), String>,
) -> Result<(), String> {
    match &mut run.source {
        Some(source) => put(source, value),
        None => Ok(()),
    }
}

// ---- results ----

/// A row of `results`: a measurement with its run's id and its warm-up flag.
#[derive(Clone, Debug, PartialEq)]
pub struct ResultRow {
    pub run_id: i64,
    pub warmup: bool,
    pub measurement: Measurement,
}

impl ResultRow {
    /// A run's measured rounds, then its warm-up rounds, flagged, as rows under `run_id`.
    pub fn of_run(run_id: i64, run: &Run) -> impl Iterator<Item = ResultRow> + '_ {
        let row = move |warmup: bool| {
            move |m: &Measurement| ResultRow {
                run_id,
                warmup,
                measurement: m.clone(),
            }
        };
        let measured = run.results.iter().map(row(false));
        measured.chain(run.warmup.iter().map(row(true)))
    }

    /// What a result row decodes onto: every field a column sets is overwritten.
    pub fn blank() -> ResultRow {
        ResultRow {
            run_id: 0,
            warmup: false,
            measurement: Measurement {
                test: TestKind::Write,
                file_size: ByteSize(0),
                record_size: ByteSize(0),
                repetition: 0,
                bytes: 0,
                elapsed_ns: 0,
                throughput: 0.0,
                latency_ns: None,
                engine: EngineKind::Posix,
                cache: CacheMode::Flush,
                ops: None,
            },
        }
    }
}

/// How much of each result a read returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Detail {
    /// Every column.
    Full,
    /// What a comparison or a summary reads: the key and the throughput. Bytes,
    /// elapsed time and latency are left zero and unknown: a fleet comparison reads
    /// 200,000 results, and these were half of every row it decoded.
    Figures,
}

impl Detail {
    /// The columns of `results` read.
    pub fn columns(self) -> &'static [Column<ResultRow>] {
        match self {
            Detail::Full => RESULT_COLUMNS,
            Detail::Figures => &RESULT_COLUMNS[..FIGURE_COLUMNS],
        }
    }

    /// The columns of one run's results, read by its id: all but `run_id`, which the
    /// reader knows (a walk reads twenty million values, this a twentieth of them).
    pub fn of_one_run(self) -> &'static [Column<ResultRow>] {
        &self.columns()[1..]
    }
}

/// How many of the first [`RESULT_COLUMNS`] are [`Detail::Figures`]'.
const FIGURE_COLUMNS: usize = 9;

/// The columns of `results`, the figures' first.
#[rustfmt::skip]
pub static RESULT_COLUMNS: &[Column<ResultRow>] = &[
    column("run_id", Kind::Integer, |r| r.run_id.into(), |r, v| set(&mut r.run_id, v.int())),
    column("warmup", Kind::Bool, |r| r.warmup.into(), |r, v| set(&mut r.warmup, v.bool())),
    column("test", Kind::Text, |r| r.measurement.test.name().into(), |r, v| set(&mut r.measurement.test, v.name())),
    column("file_size", Kind::Integer, |r| bits(r.measurement.file_size.bytes()), |r, v| set(&mut r.measurement.file_size, v.bits().map(ByteSize))),
    column("record_size", Kind::Integer, |r| bits(r.measurement.record_size.bytes()), |r, v| set(&mut r.measurement.record_size, v.bits().map(ByteSize))),
    column("repetition", Kind::Integer, |r| r.measurement.repetition.into(), |r, v| set(&mut r.measurement.repetition, v.narrow())),
    column("engine", Kind::Text, |r| r.measurement.engine.name().into(), |r, v| set(&mut r.measurement.engine, v.name())),
    column("cache", Kind::Text, |r| r.measurement.cache.name().into(), |r, v| set(&mut r.measurement.cache, v.name())),
    column("throughput", Kind::Real, |r| r.measurement.throughput.into(), |r, v| set(&mut r.measurement.throughput, v.real())),
    column("bytes", Kind::Integer, |r| bits(r.measurement.bytes), |r, v| set(&mut r.measurement.bytes, v.bits())),
    column("elapsed_ns", Kind::Integer, |r| bits(r.measurement.elapsed_ns), |r, v| set(&mut r.measurement.elapsed_ns, v.bits())),
    // the latency is five columns, null together when it was not measured
    column(
        "lat_p50",
        Kind::Integer,
        |r| latency(r, |l| l.p50),
        |r, v| {
            r.measurement.latency_ns = v.opt_int()?.map(|p50| {
                Box::new(Latency {
                p50: p50 as u64,
                p99: 0,
                p999: 0,
                max: 0,
                samples: 0,
            })
            });
            Ok(())
        },
    ),
    column("lat_p99", Kind::Integer, |r| latency(r, |l| l.p99), |r, v| in_latency(r, v, |l, v| set(&mut l.p99, v.bits()))),
    column("lat_p999", Kind::Integer, |r| latency(r, |l| l.p999), |r, v| in_latency(r, v, |l, v| set(&mut l.p999, v.bits()))),
    column("lat_max", Kind::Integer, |r| latency(r, |l| l.max), |r, v| in_latency(r, v, |l, v| set(&mut l.max, v.bits()))),
    column("lat_samples", Kind::Integer, |r| latency(r, |l| l.samples), |r, v| in_latency(r, v, |l, v| set(&mut l.samples, v.bits()))),
    // a metadata test's operations; null for every other test
    column("ops", Kind::Integer, |r| opt_bits(r.measurement.ops), |r, v| set(&mut r.measurement.ops, v.unsigned())),
];

// ---- summaries ----

/// A row of `run_summaries`: a run's summary under one key, with the run's id.
#[derive(Clone, Debug, PartialEq)]
pub struct SummaryRow {
    pub run_id: i64,
    pub summary: RowSummary,
}

impl SummaryRow {
    /// What a summary row decodes onto.
    pub fn blank() -> SummaryRow {
        SummaryRow {
            run_id: 0,
            summary: RowSummary::blank(),
        }
    }
}

/// The columns of `run_summaries`.
#[rustfmt::skip]
pub static SUMMARY_COLUMNS: &[Column<SummaryRow>] = &[
    column("run_id", Kind::Integer, |r| r.run_id.into(), |r, v| set(&mut r.run_id, v.int())),
    column("test", Kind::Text, |r| r.summary.test.name().into(), |r, v| set(&mut r.summary.test, v.name())),
    column("file_size", Kind::Integer, |r| bits(r.summary.file_size.bytes()), |r, v| set(&mut r.summary.file_size, v.bits().map(ByteSize))),
    column("record_size", Kind::Integer, |r| bits(r.summary.record_size.bytes()), |r, v| set(&mut r.summary.record_size, v.bits().map(ByteSize))),
    column("engine", Kind::Text, |r| r.summary.engine.name().into(), |r, v| set(&mut r.summary.engine, v.name())),
    column("cache", Kind::Text, |r| r.summary.cache.name().into(), |r, v| set(&mut r.summary.cache, v.name())),
    column("repetitions", Kind::Integer, |r| r.summary.repetitions.into(), |r, v| set(&mut r.summary.repetitions, v.narrow())),
    column("median", Kind::Real, |r| r.summary.median.into(), |r, v| set(&mut r.summary.median, v.opt_real())),
    column("least", Kind::Real, |r| r.summary.least.into(), |r, v| set(&mut r.summary.least, v.opt_real())),
    column("greatest", Kind::Real, |r| r.summary.greatest.into(), |r, v| set(&mut r.summary.greatest, v.opt_real())),
    column("positive_median", Kind::Real, |r| r.summary.positive_median.into(), |r, v| set(&mut r.summary.positive_median, v.opt_real())),
    column("positives", Kind::Integer, |r| r.summary.positives.map(i64::from).into(), |r, v| set(&mut r.summary.positives, v.opt_narrow())),
    column("log_variance", Kind::Real, |r| r.summary.log_variance.into(), |r, v| set(&mut r.summary.log_variance, v.opt_real())),
];

fn latency(row: &ResultRow, field: fn(&Latency) -> u64) -> Value<'static> {
    opt_bits(row.measurement.latency_ns.as_deref().map(field))
}

/// Sets a field of the latency, which only a non-null `lat_p50` makes.
fn in_latency(
    row: &mut ResultRow,
    value: Value,
    put: impl Fn(&mut Latency, Value) -> Result<(), String>,
) -> Result<(), String> {
    match &mut row.measurement.latency_ns {
        Some(latency) => put(latency, value),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_runs_results_read_by_its_id_leave_the_id_out() {
        for detail in [Detail::Full, Detail::Figures] {
            let all = detail.columns();
            assert_eq!(all[0].name, "run_id");
            let names = |columns: &[Column<ResultRow>]| -> Vec<&str> {
                columns.iter().map(|c| c.name).collect()
            };
            assert_eq!(names(detail.of_one_run()), names(&all[1..]));
        }
    }

    #[test]
    fn every_column_is_named_once() {
        let mut names: Vec<&str> = RUN_COLUMNS.iter().map(|c| c.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), RUN_COLUMNS.len());
        for name in FINISHED_COLUMNS {
            named(RUN_COLUMNS, name);
        }
    }

    /// A reader of `row`'s values, as a driver's would read them back.
    fn encoded<T>(
        columns: &'static [Column<T>],
        row: &T,
    ) -> impl FnMut(usize, Kind) -> Result<Value<'static>, DecodeError> {
        let values: Vec<Value> = columns.iter().map(|c| (c.encode)(row)).collect();
        move |idx, _| Ok(values[idx].clone())
    }

    #[test]
    fn a_run_and_its_results_come_back_from_their_values() {
        let mut run = super::super::tests::sample_run("h", 0);
        run.id = Some(7);
        // a metadata test's figure: operations, and the run's tree (sample_run's)
        let mut create = run.results[0].clone();
        (create.test, create.file_size, create.record_size) =
            (TestKind::Create, ByteSize(0), ByteSize(0));
        create.ops = Some(21);
        run.results.push(create);
        assert!(run.params.metadata.is_some());
        let mut back = decode(
            RUN_COLUMNS,
            Run::default(),
            encoded(RUN_COLUMNS, &run),
            |_, e| e,
        )
        .unwrap();
        back.labels = run.labels.clone();
        back.tags = run.tags.clone();
        back.results = run.results.clone();
        back.warmup = run.warmup.clone();
        assert_eq!(back, run);
        for row in ResultRow::of_run(7, &run) {
            let values = encoded(RESULT_COLUMNS, &row);
            let back = decode(RESULT_COLUMNS, ResultRow::blank(), values, |_, e| e);
            assert_eq!(back.unwrap(), row);
        }
    }

    /// The columns of one run: (name, value as the driver gets it).
    fn run_values(run: &Run) -> Vec<(&'static str, Value<'static>)> {
        (RUN_COLUMNS.iter())
            .map(|c| (c.name, (c.encode)(run)))
            .collect()
    }

    #[test]
    fn a_run_of_one_combination_states_it_alone_and_reads_back_its_lists() {
        let mut run = super::super::tests::sample_run("h", 0);
        run.id = Some(7);
        run.params.file_sizes = vec![ByteSize(1 << 20), ByteSize(4 << 20)];
        let column = |run: &Run, name| {
            let values = run_values(run);
            values.into_iter().find(|(n, _)| *n == name).unwrap().1
        };
        // as every run of one engine and cache mode was always stored
        assert_eq!(column(&run, "engines"), Value::Text("[]".into()));
        assert_eq!(column(&run, "caches"), Value::Text("[]".into()));
        assert_eq!(column(&run, "engine"), Value::Text("pread".into()));
        assert_eq!(column(&run, "file_size"), Value::Integer(4 << 20));
        let back = decode(
            RUN_COLUMNS,
            Run::default(),
            encoded(RUN_COLUMNS, &run),
            |_, e| e,
        );
        let back = back.unwrap().params;
        assert_eq!(
            (back.engines, back.caches),
            (vec![EngineKind::Pread], vec![CacheMode::Direct])
        );
        // several: both lists, in their order
        run.params.engines = vec![EngineKind::Mmap, EngineKind::Posix];
        assert_eq!(
            column(&run, "engines"),
            Value::Text(r#"["mmap","posix"]"#.into())
        );
        assert_eq!(column(&run, "caches"), Value::Text(r#"["direct"]"#.into()));
        assert_eq!(column(&run, "engine"), Value::Text("mmap".into()));
        let back = decode(
            RUN_COLUMNS,
            Run::default(),
            encoded(RUN_COLUMNS, &run),
            |_, e| e,
        );
        assert_eq!(back.unwrap().params, run.params);
        // without metadata tests: no tree, all five columns null
        run.params.metadata = None;
        assert_eq!(column(&run, "meta_files"), Value::Null);
        assert_eq!(column(&run, "meta_random_order"), Value::Null);
        let back = decode(
            RUN_COLUMNS,
            Run::default(),
            encoded(RUN_COLUMNS, &run),
            |_, e| e,
        );
        assert_eq!(back.unwrap().params.metadata, None);
    }

    #[test]
    fn figures_are_the_key_and_the_throughput() {
        let names: Vec<&str> = Detail::Figures.columns().iter().map(|c| c.name).collect();
        let key = [
            "run_id",
            "warmup",
            "test",
            "file_size",
            "record_size",
            "repetition",
        ];
        assert_eq!(names[..6], key);
        assert_eq!(names[6..], ["engine", "cache", "throughput"]);
    }

    #[test]
    fn a_value_iozone_did_not_write_names_its_column() {
        let values = |idx: usize, _| {
            let c = &RESULT_COLUMNS[idx];
            Ok(match c.name {
                "test" => Value::Text("sideways".into()),
                _ => (c.encode)(&ResultRow::blank()),
            })
        };
        let err = decode(RESULT_COLUMNS, ResultRow::blank(), values, |_, e| e).unwrap_err();
        assert_eq!(
            err.to_string(),
            "column test holds 'sideways', which this iozone cannot read"
        );
    }
}
