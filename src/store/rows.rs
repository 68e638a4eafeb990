//! Model values to rows and back. Instants are stored as fixed-width RFC 3339 UTC with
//! nanoseconds, so text order is time order; enums under their JSON names.

use chrono::{DateTime, SecondsFormat, Utc};
use rusqlite::types::Type;
use rusqlite::{Connection, Row, params};
use serde::de::DeserializeOwned;

use crate::model::{
    AutoRepeat, Filesystem, Host, Latency, Measurement, Params, Run, RunStatus, Source,
};
use crate::units::ByteSize;

/// The columns of `runs`, in the order [`run_from_row`] reads them.
pub const RUN_COLUMNS: &str = "id, uuid, started_at, finished_at, status, note, tool_version, \
    engine, cache, threads, file_size, file_sizes, record_sizes, tests, repeat, seed, auto, \
    verify, read_pct, stride_records, latency, dir, \
    hostname, os, os_version, kernel, kernel_cmdline, boot_id, arch, cpu_model, cpus, \
    cpu_governor, memory_bytes, page_size, dirty_ratio, dirty_background_ratio, dirty_bytes, \
    dirty_background_bytes, dirty_expire_centisecs, dirty_writeback_centisecs, virtualization, \
    container, mount_point, fs_type, fs_device, mount_options, block_size, total_bytes, \
    free_bytes, block_device, device_model, rotational, scheduler, device_size, \
    source_tool, source_version, source_command, source_file, imported_at, source_time_known, \
    warmup, round_order, precision_pct, max_time_s, state_at_start, state_at_end";

pub fn timestamp(t: &DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Nanos, true)
}

fn parse_time(idx: usize, text: String) -> rusqlite::Result<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(&text)
        .map(|t| t.with_timezone(&Utc))
        .map_err(|e| rusqlite::Error::FromSqlConversionFailure(idx, Type::Text, Box::new(e)))
}

/// An enum or list stored under its JSON form.
fn from_json<T: DeserializeOwned>(idx: usize, text: String, quoted: bool) -> rusqlite::Result<T> {
    let json = if quoted { format!("\"{text}\"") } else { text };
    serde_json::from_str(&json)
        .map_err(|e| rusqlite::Error::FromSqlConversionFailure(idx, Type::Text, Box::new(e)))
}

/// An enum under its JSON name: how every store keeps enums.
pub(super) fn name<T: serde::Serialize>(value: &T) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(s)) => s,
        other => panic!("enum serializes to a string, got {other:?}"),
    }
}

/// A list under its JSON form.
pub(super) fn json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).expect("model values serialize")
}

fn opt_i64(v: Option<u64>) -> Option<i64> {
    v.map(|v| v as i64)
}

/// Inserts the run row with its labels and tags; returns the new id.
pub fn insert_run(conn: &Connection, run: &Run, status: RunStatus) -> rusqlite::Result<i64> {
    let (p, h, f) = (&run.params, &run.host, &run.filesystem);
    let placeholders = vec!["?"; RUN_COLUMNS.split(',').count() - 1].join(", ");
    let sql = format!(
        "INSERT INTO runs ({}) VALUES ({placeholders})",
        RUN_COLUMNS.trim_start_matches("id, ")
    );
    conn.execute(
        &sql,
        params![
            run.uuid.to_string(),
            timestamp(&run.started_at),
            run.finished_at.as_ref().map(timestamp),
            name(&status),
            run.note,
            run.tool_version,
            name(&p.engine),
            name(&p.cache),
            p.threads,
            p.file_size.bytes() as i64,
            json(&p.file_sizes),
            json(&p.record_sizes),
            json(&p.tests),
            p.repeat,
            p.seed as i64,
            p.auto,
            p.verify,
            p.read_pct,
            p.stride_records as i64,
            p.latency,
            p.dir,
            h.hostname,
            h.os,
            h.os_version,
            h.kernel,
            h.kernel_cmdline,
            h.boot_id,
            h.arch,
            h.cpu_model,
            h.cpus,
            h.cpu_governor,
            opt_i64(h.memory_bytes),
            opt_i64(h.page_size),
            opt_i64(h.dirty_ratio),
            opt_i64(h.dirty_background_ratio),
            opt_i64(h.dirty_bytes),
            opt_i64(h.dirty_background_bytes),
            opt_i64(h.dirty_expire_centisecs),
            opt_i64(h.dirty_writeback_centisecs),
            h.virtualization,
            h.container,
            f.mount_point,
            f.fs_type,
            f.device,
            f.mount_options,
            opt_i64(f.block_size),
            opt_i64(f.total_bytes),
            opt_i64(f.free_bytes),
            f.block_device,
            f.device_model,
            f.rotational,
            f.scheduler,
            opt_i64(f.device_size),
            run.source.as_ref().map(|s| s.tool.clone()),
            run.source.as_ref().and_then(|s| s.version.clone()),
            run.source.as_ref().and_then(|s| s.command.clone()),
            run.source.as_ref().and_then(|s| s.file.clone()),
            run.source.as_ref().map(|s| timestamp(&s.imported_at)),
            run.source.as_ref().map(|s| s.time_known),
            p.warmup,
            name(&p.order),
            p.repeat_auto.map(|a| a.precision_pct),
            p.repeat_auto.map(|a| a.max_time_s),
            run.state_at_start.as_ref().map(json),
            run.state_at_end.as_ref().map(json),
        ],
    )?;
    let id = conn.last_insert_rowid();
    let mut label = conn.prepare_cached(
        "INSERT OR IGNORE INTO run_labels (run_id, label, position) VALUES (?, ?, ?)",
    )?;
    for (position, l) in run.labels.iter().enumerate() {
        label.execute(params![id, l, position as i64])?;
    }
    let mut tag =
        conn.prepare_cached("INSERT INTO run_tags (run_id, key, value) VALUES (?, ?, ?)")?;
    for (k, v) in &run.tags {
        tag.execute(params![id, k, v])?;
    }
    Ok(id)
}

/// Inserts a run's measured results and its warm-up rounds' (flagged).
pub fn insert_results(conn: &Connection, id: i64, run: &Run) -> rusqlite::Result<()> {
    let mut stmt = conn.prepare_cached(
        "INSERT INTO results (run_id, warmup, test, file_size, record_size, repetition, bytes, \
         elapsed_ns, throughput, lat_p50, lat_p99, lat_p999, lat_max, lat_samples) \
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    )?;
    let flagged = run
        .results
        .iter()
        .map(|m| (false, m))
        .chain(run.warmup.iter().map(|m| (true, m)));
    for (warmup, m) in flagged {
        let lat = m.latency_ns.as_ref();
        stmt.execute(params![
            id,
            warmup,
            m.test.name(),
            m.file_size.bytes() as i64,
            m.record_size.bytes() as i64,
            m.repetition,
            m.bytes as i64,
            m.elapsed_ns as i64,
            m.throughput,
            lat.map(|l| l.p50 as i64),
            lat.map(|l| l.p99 as i64),
            lat.map(|l| l.p999 as i64),
            lat.map(|l| l.max as i64),
            lat.map(|l| l.samples as i64),
        ])?;
    }
    Ok(())
}

fn u(row: &Row, idx: usize) -> rusqlite::Result<Option<u64>> {
    Ok(row.get::<_, Option<i64>>(idx)?.map(|v| v.max(0) as u64))
}

/// A run from a row of [`RUN_COLUMNS`]; labels, tags and results are filled elsewhere.
pub fn run_from_row(row: &Row) -> rusqlite::Result<Run> {
    let text = |idx: usize| row.get::<_, String>(idx);
    let params = Params {
        engine: from_json(7, text(7)?, true)?,
        cache: from_json(8, text(8)?, true)?,
        threads: row.get(9)?,
        file_size: ByteSize(row.get::<_, i64>(10)? as u64),
        file_sizes: from_json(11, text(11)?, false)?,
        record_sizes: from_json(12, text(12)?, false)?,
        tests: from_json(13, text(13)?, false)?,
        repeat: row.get(14)?,
        seed: row.get::<_, i64>(15)? as u64,
        auto: row.get(16)?,
        verify: row.get(17)?,
        read_pct: row.get(18)?,
        stride_records: row.get::<_, i64>(19)? as u64,
        latency: row.get(20)?,
        dir: text(21)?,
        warmup: row.get(60)?,
        order: from_json(61, text(61)?, true)?,
        repeat_auto: match (row.get(62)?, row.get(63)?) {
            (Some(precision_pct), Some(max_time_s)) => Some(AutoRepeat {
                precision_pct,
                max_time_s,
            }),
            _ => None,
        },
    };
    let host = Host {
        hostname: row.get(22)?,
        os: row.get(23)?,
        os_version: row.get(24)?,
        kernel: row.get(25)?,
        kernel_cmdline: row.get(26)?,
        boot_id: row.get(27)?,
        arch: row.get(28)?,
        cpu_model: row.get(29)?,
        cpus: row.get(30)?,
        cpu_governor: row.get(31)?,
        memory_bytes: u(row, 32)?,
        page_size: u(row, 33)?,
        dirty_ratio: u(row, 34)?,
        dirty_background_ratio: u(row, 35)?,
        dirty_bytes: u(row, 36)?,
        dirty_background_bytes: u(row, 37)?,
        dirty_expire_centisecs: u(row, 38)?,
        dirty_writeback_centisecs: u(row, 39)?,
        virtualization: row.get(40)?,
        container: row.get(41)?,
    };
    let filesystem = Filesystem {
        mount_point: row.get(42)?,
        fs_type: row.get(43)?,
        device: row.get(44)?,
        mount_options: row.get(45)?,
        block_size: u(row, 46)?,
        total_bytes: u(row, 47)?,
        free_bytes: u(row, 48)?,
        block_device: row.get(49)?,
        device_model: row.get(50)?,
        rotational: row.get(51)?,
        scheduler: row.get(52)?,
        device_size: u(row, 53)?,
    };
    let source = match row.get::<_, Option<String>>(54)? {
        None => None,
        Some(tool) => Some(Source {
            tool,
            version: row.get(55)?,
            command: row.get(56)?,
            file: row.get(57)?,
            imported_at: parse_time(58, text(58)?)?,
            time_known: row.get::<_, Option<bool>>(59)?.unwrap_or(true),
        }),
    };
    let state = |idx: usize| {
        row.get::<_, Option<String>>(idx)?
            .map(|t| from_json(idx, t, false))
            .transpose()
    };
    let uuid_text = text(1)?;
    Ok(Run {
        id: Some(row.get(0)?),
        uuid: uuid::Uuid::parse_str(&uuid_text)
            .map_err(|e| rusqlite::Error::FromSqlConversionFailure(1, Type::Text, Box::new(e)))?,
        started_at: parse_time(2, text(2)?)?,
        finished_at: row
            .get::<_, Option<String>>(3)?
            .map(|t| parse_time(3, t))
            .transpose()?,
        status: from_json(4, text(4)?, true)?,
        labels: Vec::new(),
        tags: Default::default(),
        note: row.get(5)?,
        tool_version: text(6)?,
        params,
        host,
        filesystem,
        source,
        state_at_start: state(64)?,
        state_at_end: state(65)?,
        results: Vec::new(),
        warmup: Vec::new(),
    })
}

/// The columns of `results`, in the order [`measurement_from_row`] reads them.
pub const RESULT_COLUMNS: &str = "run_id, test, file_size, record_size, repetition, bytes, \
    elapsed_ns, throughput, lat_p50, lat_p99, lat_p999, lat_max, lat_samples, warmup";

/// (run id, whether a warm-up round's, the measurement).
pub fn measurement_from_row(row: &Row) -> rusqlite::Result<(i64, bool, Measurement)> {
    let latency = match row.get::<_, Option<i64>>(8)? {
        Some(p50) => Some(Latency {
            p50: p50 as u64,
            p99: row.get::<_, i64>(9)? as u64,
            p999: row.get::<_, i64>(10)? as u64,
            max: row.get::<_, i64>(11)? as u64,
            samples: row.get::<_, i64>(12)? as u64,
        }),
        None => None,
    };
    let m = Measurement {
        test: from_json(1, row.get(1)?, true)?,
        file_size: ByteSize(row.get::<_, i64>(2)? as u64),
        record_size: ByteSize(row.get::<_, i64>(3)? as u64),
        repetition: row.get(4)?,
        bytes: row.get::<_, i64>(5)? as u64,
        elapsed_ns: row.get::<_, i64>(6)? as u64,
        throughput: row.get(7)?,
        latency_ns: latency,
    };
    Ok((row.get(0)?, row.get(13)?, m))
}
