//! What a run must hold for every store to keep it and every command to read it back:
//! instants within the years 1970 to 9999, numbers that are finite and not negative
//! (a measured rate may be infinite: see `Checker::figure`), counts and sizes within
//! a signed 64-bit integer, text without NUL characters.
//!
//! Why these bounds: SQLite keeps an instant as fixed-width RFC 3339 text, which
//! cannot be read back (nor sorted as text) outside the years 0 to 9999; PostgreSQL
//! refuses a NUL character in text; both keep integers as 64 signed bits, and a store's
//! readers take a negative count for an unknown one. Nothing iozone measures, nor any
//! file fio or iozone3 wrote, lies before the Unix epoch (fio's `timestamp` counts from
//! it: 0 is its first second, and kept). Every importer's runs are checked here before
//! they are stored, and the stores check every whole run they are given again.

use std::fmt;

use chrono::{DateTime, Utc};

use super::{Filesystem, Host, Latency, MachineState, Measurement, Params, Run};

/// The first instant a run may state: the Unix epoch.
pub const EARLIEST: DateTime<Utc> = DateTime::UNIX_EPOCH;

/// The last instant a run may state: the end of the year 9999.
pub const LATEST: DateTime<Utc> = match DateTime::from_timestamp(253_402_300_799, 999_999_999) {
    Some(at) => at,
    None => panic!("the end of 9999 is an instant"),
};

/// The largest count or size a store keeps: 64 signed bits.
pub const MAX_COUNT: u64 = i64::MAX as u64;

/// A field of a run that no store can keep as it is: which field (as JSON names it,
/// e.g. `results[3].throughput`), and what is wrong with its value.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{field} {problem}")]
pub struct Unstorable {
    pub field: String,
    pub problem: String,
}

impl Run {
    /// Whether every store can keep this run and read it back as it is: the first
    /// field that cannot, if any (see the module documentation for the bounds).
    pub fn check_storable(&self) -> Result<(), Unstorable> {
        self.check_record()?;
        for (list, measurements) in [("results", &self.results), ("warmup", &self.warmup)] {
            for (i, m) in measurements.iter().enumerate() {
                m.check_storable()
                    .map_err(|e| e.within(&format!("{list}[{i}]")))?;
            }
        }
        Ok(())
    }

    /// [`Run::check_storable`] without the measurements: the run's own record, its
    /// labels and its tags.
    pub fn check_record(&self) -> Result<(), Unstorable> {
        let mut c = Checker::default();
        c.instant("started_at", Some(self.started_at));
        c.instant("finished_at", self.finished_at);
        for (i, label) in self.labels.iter().enumerate() {
            c.text(Field::At("labels", i), Some(label));
        }
        for (key, value) in &self.tags {
            c.text(Field::TagKey(key), Some(key));
            c.text(Field::In("tags", key), Some(value));
        }
        c.text("note", self.note.as_deref());
        c.text("tool_version", Some(&self.tool_version));
        c.params(&self.params);
        c.host(&self.host);
        c.filesystem(&self.filesystem);
        if let Some(s) = &self.source {
            c.text("source.tool", Some(&s.tool));
            c.text("source.version", s.version.as_deref());
            c.text("source.command", s.command.as_deref());
            c.text("source.file", s.file.as_deref());
            c.instant("source.imported_at", Some(s.imported_at));
        }
        for (name, state) in [
            ("state_at_start", &self.state_at_start),
            ("state_at_end", &self.state_at_end),
        ] {
            if let Some(state) = state {
                c.state(name, state);
            }
        }
        if let Some(process) = &self.process {
            c.count("process.start_ticks", Some(process.start_ticks));
        }
        c.done()
    }
}

/// The parts of a run's record, each checked by its own method.
impl Checker {
    fn params(&mut self, p: &Params) {
        self.count("params.file_size", Some(p.file_size().bytes()));
        for (list, sizes) in [
            ("params.file_sizes", &p.file_sizes),
            ("params.record_sizes", &p.record_sizes),
        ] {
            for (i, size) in sizes.iter().enumerate() {
                self.count(Field::At(list, i), Some(size.bytes()));
            }
        }
        // the seed is the one integer kept with all 64 bits (as the same signed bits)
        self.count("params.stride_records", p.stride_records);
        self.text("params.dir", p.dir.as_deref());
        if let Some(auto) = &p.repeat_auto {
            self.number("params.repeat_auto.precision_pct", Some(auto.precision_pct));
            self.number("params.repeat_auto.max_time_s", Some(auto.max_time_s));
        }
        if let Some(tree) = &p.metadata {
            for (name, count) in [
                ("files", tree.files),
                ("dirs", tree.dirs),
                ("file_bytes", tree.file_bytes),
            ] {
                self.count(Field::In("params.metadata", name), Some(count));
            }
        }
    }

    fn host(&mut self, h: &Host) {
        for (name, text) in [
            ("hostname", &h.hostname),
            ("os", &h.os),
            ("os_version", &h.os_version),
            ("kernel", &h.kernel),
            ("kernel_cmdline", &h.kernel_cmdline),
            ("boot_id", &h.boot_id),
            ("arch", &h.arch),
            ("cpu_model", &h.cpu_model),
            ("cpu_governor", &h.cpu_governor),
            ("virtualization", &h.virtualization),
            ("container", &h.container),
        ] {
            self.text(Field::In("host", name), text.as_deref());
        }
        for (name, count) in [
            ("memory_bytes", h.memory_bytes),
            ("page_size", h.page_size),
            ("dirty_ratio", h.dirty_ratio),
            ("dirty_background_ratio", h.dirty_background_ratio),
            ("dirty_bytes", h.dirty_bytes),
            ("dirty_background_bytes", h.dirty_background_bytes),
            ("dirty_expire_centisecs", h.dirty_expire_centisecs),
            ("dirty_writeback_centisecs", h.dirty_writeback_centisecs),
        ] {
            self.count(Field::In("host", name), count);
        }
    }

    fn filesystem(&mut self, f: &Filesystem) {
        for (name, text) in [
            ("mount_point", &f.mount_point),
            ("type", &f.fs_type),
            ("device", &f.device),
            ("mount_options", &f.mount_options),
            ("block_device", &f.block_device),
            ("device_model", &f.device_model),
            ("scheduler", &f.scheduler),
        ] {
            self.text(Field::In("filesystem", name), text.as_deref());
        }
        for (name, count) in [
            ("block_size", f.block_size),
            ("total_bytes", f.total_bytes),
            ("free_bytes", f.free_bytes),
            ("device_size", f.device_size),
        ] {
            self.count(Field::In("filesystem", name), count);
        }
    }
}

impl Measurement {
    /// Whether every store can keep this measurement as it is (see [`Run::check_storable`]).
    pub fn check_storable(&self) -> Result<(), Unstorable> {
        let mut c = Checker::default();
        c.count("file_size", Some(self.file_size.bytes()));
        c.count("record_size", Some(self.record_size.bytes()));
        c.count("bytes", Some(self.bytes));
        c.count("elapsed_ns", Some(self.elapsed_ns));
        c.figure("throughput", self.throughput);
        c.count("ops", self.ops);
        if let Some(latency) = self.latency_ns.as_deref() {
            let Latency {
                p50,
                p99,
                p999,
                max,
                samples,
            } = *latency;
            for (name, value) in [
                ("p50", p50),
                ("p99", p99),
                ("p999", p999),
                ("max", max),
                ("samples", samples),
            ] {
                c.count(Field::In("latency_ns", name), Some(value));
            }
        }
        c.done()
    }
}

impl Unstorable {
    /// The same problem, its field named within `outer` (`results[3]`).
    pub fn within(self, outer: &str) -> Unstorable {
        Unstorable {
            field: format!("{outer}.{}", self.field),
            problem: self.problem,
        }
    }
}

/// Whether `at` is an instant a run may state: within [`EARLIEST`] and [`LATEST`].
pub fn instant_in_range(at: DateTime<Utc>) -> bool {
    (EARLIEST..=LATEST).contains(&at)
}

/// A field's name as JSON spells its path, made only for a field that fails.
#[derive(Clone, Copy)]
enum Field<'a> {
    Name(&'a str),
    /// `host.kernel`
    In(&'a str, &'a str),
    /// `labels[2]`
    At(&'a str, usize),
    /// A tag's key itself.
    TagKey(&'a str),
}

impl<'a> From<&'a str> for Field<'a> {
    fn from(name: &'a str) -> Field<'a> {
        Field::Name(name)
    }
}

impl fmt::Display for Field<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Field::Name(name) => f.write_str(name),
            Field::In(outer, name) => write!(f, "{outer}.{name}"),
            Field::At(list, i) => write!(f, "{list}[{i}]"),
            Field::TagKey(key) => write!(f, "tags key {key:?}"),
        }
    }
}

/// Checks fields one by one, keeping the first that fails.
#[derive(Default)]
struct Checker {
    first: Option<Unstorable>,
}

impl Checker {
    fn fail(&mut self, field: Field, problem: impl fmt::Display) {
        if self.first.is_none() {
            self.first = Some(Unstorable {
                field: field.to_string(),
                problem: problem.to_string(),
            });
        }
    }

    fn instant<'f>(&mut self, field: impl Into<Field<'f>>, at: Option<DateTime<Utc>>) {
        if let Some(at) = at.filter(|&at| !instant_in_range(at)) {
            self.fail(
                field.into(),
                format_args!(
                    "{} is outside the years 1970 to 9999 that iozone keeps",
                    at.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)
                ),
            );
        }
    }

    fn text<'f>(&mut self, field: impl Into<Field<'f>>, text: Option<&str>) {
        if text.is_some_and(|t| t.contains('\0')) {
            self.fail(
                field.into(),
                "holds a NUL character (\\0), which a database does not keep in text",
            );
        }
    }

    fn count<'f>(&mut self, field: impl Into<Field<'f>>, count: Option<u64>) {
        if let Some(n) = count.filter(|&n| n > MAX_COUNT) {
            self.fail(
                field.into(),
                format_args!("{n} is larger than the largest count iozone keeps ({MAX_COUNT})"),
            );
        }
    }

    /// A measured or stated quantity: finite, and not negative.
    fn number<'f>(&mut self, field: impl Into<Field<'f>>, value: Option<f64>) {
        match value {
            Some(v) if !v.is_finite() => {
                self.fail(field.into(), format_args!("{v} is not a finite number"))
            }
            Some(v) if v < 0.0 => self.fail(field.into(), format_args!("{v} is negative")),
            _ => {}
        }
    }

    /// A measured rate: a number, not negative. An infinite one (bytes in no time) is
    /// kept: both stores hold it, every command reads it (summaries and levels leave
    /// it out, tables show `-`), and no importer lets one through (each parser wants a
    /// finite rate), so only a store's own callers can record one.
    fn figure<'f>(&mut self, field: impl Into<Field<'f>>, value: f64) {
        match value {
            v if v.is_nan() => self.fail(field.into(), "NaN is not a number"),
            v if v < 0.0 => self.fail(field.into(), format_args!("{v} is negative")),
            _ => {}
        }
    }

    fn state(&mut self, name: &str, state: &MachineState) {
        let MachineState {
            load_1m,
            load_5m,
            dirty_bytes,
            writeback_bytes,
            mem_free_bytes,
            mem_available_bytes,
            io_pressure_pct,
            cpu_pressure_pct,
        } = *state;
        for (field, value) in [
            ("load_1m", load_1m),
            ("load_5m", load_5m),
            ("io_pressure_pct", io_pressure_pct),
            ("cpu_pressure_pct", cpu_pressure_pct),
        ] {
            self.number(Field::In(name, field), value);
        }
        for (field, count) in [
            ("dirty_bytes", dirty_bytes),
            ("writeback_bytes", writeback_bytes),
            ("mem_free_bytes", mem_free_bytes),
            ("mem_available_bytes", mem_available_bytes),
        ] {
            self.count(Field::In(name, field), count);
        }
    }

    fn done(self) -> Result<(), Unstorable> {
        self.first.map_or(Ok(()), Err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Source, TestKind};
    use crate::units::ByteSize;

    fn run() -> Run {
        Run {
            started_at: "2026-11-30T05:41:48Z".parse().unwrap(),
            results: vec![Measurement {
                test: TestKind::Write,
                file_size: ByteSize(1 << 20),
                record_size: ByteSize(4096),
                repetition: 1,
                bytes: 1 << 20,
                elapsed_ns: 1_000_000,
                throughput: 1e9,
                latency_ns: None,
                engine: Default::default(),
                cache: Default::default(),
                ops: None,
            }],
            ..Run::default()
        }
    }

    fn at(text: &str) -> DateTime<Utc> {
        text.parse().unwrap()
    }

    #[test]
    fn instants_are_kept_from_the_epoch_to_the_end_of_9999() {
        assert_eq!(LATEST, at("9999-12-31T23:59:59.999999999Z"));
        for ok in ["1970-01-01T00:00:00Z", "9999-12-31T23:59:59.999999999Z"] {
            let r = Run {
                started_at: at(ok),
                ..run()
            };
            assert_eq!(r.check_storable(), Ok(()), "{ok}");
        }
        for bad in [
            "1969-12-31T23:59:59.999999999Z",
            "+10000-01-01T00:00:00Z",
            "-0001-12-31T00:00:00Z",
            "0000-01-01T00:00:00Z",
        ] {
            let r = Run {
                finished_at: Some(at(bad)),
                ..run()
            };
            let e = r.check_storable().unwrap_err();
            assert_eq!(e.field, "finished_at", "{bad}");
            assert!(e.problem.contains("1970 to 9999"), "{e}");
        }
        let mut r = run();
        r.source = Some(Source {
            tool: "fio".into(),
            version: None,
            command: None,
            file: None,
            imported_at: at("+10000-01-01T00:00:00Z"),
            time_known: true,
        });
        assert_eq!(r.check_storable().unwrap_err().field, "source.imported_at");
    }

    #[test]
    fn each_problem_names_its_field() {
        let mut r = run();
        r.labels = vec!["ok".into(), "a\0b".into()];
        assert_eq!(r.check_storable().unwrap_err().field, "labels[1]");

        let mut r = run();
        r.tags.insert("k".into(), "v\0".into());
        assert_eq!(r.check_storable().unwrap_err().field, "tags.k");

        let mut r = run();
        r.host.memory_bytes = Some(u64::MAX);
        let e = r.check_storable().unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "host.memory_bytes {} is larger than the largest count iozone keeps ({MAX_COUNT})",
                u64::MAX
            )
        );

        let mut r = run();
        r.params.metadata = Some(crate::model::MetadataTree {
            files: u64::MAX,
            ..Default::default()
        });
        assert_eq!(
            r.check_storable().unwrap_err().field,
            "params.metadata.files"
        );
        let mut r = run();
        r.results[0].ops = Some(u64::MAX);
        assert_eq!(r.check_storable().unwrap_err().field, "results[0].ops");

        let mut r = run();
        r.results[0].throughput = f64::NAN;
        assert_eq!(
            r.check_storable().unwrap_err().to_string(),
            "results[0].throughput NaN is not a number"
        );
        r.results[0].throughput = -1.0;
        assert_eq!(r.check_storable().unwrap_err().problem, "-1 is negative");
        r.results[0].throughput = f64::INFINITY;
        assert_eq!(r.check_storable(), Ok(()));
        r.state_at_end = Some(MachineState {
            load_1m: Some(f64::INFINITY),
            ..MachineState::default()
        });
        assert_eq!(
            r.check_storable().unwrap_err().to_string(),
            "state_at_end.load_1m inf is not a finite number"
        );

        let mut r = run();
        r.warmup = r.results.clone();
        r.warmup[0].latency_ns = Some(Box::new(Latency {
            p50: 1,
            p99: 2,
            p999: 3,
            max: u64::MAX,
            samples: 4,
        }));
        assert_eq!(
            r.check_storable().unwrap_err().field,
            "warmup[0].latency_ns.max"
        );

        // the first problem in field order is the one named
        let mut r = run();
        r.note = Some("\0".into());
        r.started_at = at("+10000-01-01T00:00:00Z");
        assert_eq!(r.check_storable().unwrap_err().field, "started_at");
    }

    #[test]
    fn a_seed_keeps_all_64_bits() {
        let mut r = run();
        r.params.seed = Some(u64::MAX);
        assert_eq!(r.check_storable(), Ok(()));
    }
}
