//! The results table of the original IOzone (1990s README): a header line
//! `Command  Read (bytes/sec)  Write (bytes/sec)`, a line of dashes, then one line per
//! measurement, `iozone <MB> <record bytes>  <read bytes/s>  <write bytes/s>`.
//!
//! Each table becomes one run (tests write and read, one figure each per record size);
//! several tables in one file become several runs. The table states no time, host,
//! directory or cache mode: those stay unknown (the old iozone wrote through the page
//! cache and did not sync, so the cache mode is `buffered`). Prose around a table is
//! skipped; a line that starts with `iozone` inside a table must be a whole row.

use super::text::{Draft, error, from_throughput, into_runs, scaled};
use super::{Origin, ParseError};
use crate::model::{Run, TestKind};

const MIB: u64 = 1 << 20;

/// Whether `text` has the classic table's header line.
pub fn looks_like(text: &str) -> bool {
    text.lines().any(|l| header_columns(l).is_some())
}

/// The runs of every table in `text`.
pub fn parse(text: &str, origin: &Origin) -> Result<Vec<Run>, ParseError> {
    let mut drafts = Vec::new();
    let mut table: Option<(Columns, Draft)> = None;
    for (i, line) in text.lines().enumerate() {
        let number = i + 1;
        if let Some(columns) = header_columns(line) {
            drafts.extend(table.take().map(|(_, d)| d));
            table = Some((columns, Draft::new("classic")));
            continue;
        }
        let Some((columns, draft)) = table.as_mut() else {
            continue;
        };
        let trimmed = line.trim();
        if trimmed.is_empty()
            || trimmed
                .bytes()
                .all(|b| b == b'-' || b.is_ascii_whitespace())
        {
            continue;
        }
        if trimmed.split_whitespace().next() != Some("iozone") {
            // The table has ended; prose follows.
            drafts.extend(table.take().map(|(_, d)| d));
            continue;
        }
        let at = |m| error(Some(number), m);
        for m in parse_row(trimmed, *columns).map_err(at)? {
            draft.add(m).map_err(at)?;
        }
    }
    drafts.extend(table.map(|(_, d)| d));
    into_runs(
        drafts,
        origin,
        "no `iozone <MB> <record> <read> <write>` rows under the header",
    )
}

/// Which of the two figures comes first on a row.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Columns {
    ReadWrite,
    WriteRead,
}

/// The column order of a header line, or `None` when the line is not the header.
fn header_columns(line: &str) -> Option<Columns> {
    if !line.trim_start().starts_with("Command") {
        return None;
    }
    let read = line.find("Read (bytes/sec)")?;
    let write = line.find("Write (bytes/sec)")?;
    Some(if read < write {
        Columns::ReadWrite
    } else {
        Columns::WriteRead
    })
}

/// A row's write and read measurements, in canonical test order.
fn parse_row(row: &str, columns: Columns) -> Result<Vec<crate::model::Measurement>, String> {
    let fields: Vec<&str> = row.split_whitespace().collect();
    let [_, mb, record, first, second] = fields[..] else {
        return Err(format!(
            "expected `iozone <MB> <record bytes> <read> <write>`, found {} fields",
            fields.len()
        ));
    };
    let file_size = scaled(number(mb, "file size (MB)")?, MIB, "file size")?;
    let record = number(record, "record size (bytes)")?;
    if record == 0 || record > file_size {
        return Err(format!(
            "record size {record} does not fit the {mb} MB file"
        ));
    }
    let (read, write) = match columns {
        Columns::ReadWrite => (first, second),
        Columns::WriteRead => (second, first),
    };
    // The old iozone ran one process over one file: the file's bytes were moved.
    let write = from_throughput(
        TestKind::Write,
        file_size,
        record,
        file_size,
        number(write, "write rate")? as f64,
    )?;
    let read = from_throughput(
        TestKind::Read,
        file_size,
        record,
        file_size,
        number(read, "read rate")? as f64,
    )?;
    Ok(vec![write, read])
}

fn number(field: &str, what: &str) -> Result<u64, String> {
    field
        .parse()
        .map_err(|_| format!("{what} '{field}' is not a whole number"))
}

#[cfg(test)]
mod tests {
    use super::super::text::testing::{never_panics, origin};
    use super::*;
    use crate::model::{CacheMode, EngineKind};
    use crate::units::ByteSize;

    const BEBOX: &str = include_str!("../../tests/fixtures/classic/bebox-beos-dr8.txt");
    const FREEBSD: &str = include_str!("../../tests/fixtures/classic/486dx4-freebsd.txt");

    fn rate(run: &Run, test: TestKind, record: u64) -> f64 {
        run.results
            .iter()
            .find(|m| m.test == test && m.record_size == ByteSize(record))
            .map(|m| m.throughput)
            .unwrap()
    }

    #[test]
    fn bebox_table_is_one_run_of_five_record_sizes() {
        let runs = parse(BEBOX, &origin(BEBOX)).unwrap();
        assert_eq!(runs.len(), 1);
        let run = &runs[0];
        let p = &run.params;
        assert_eq!(p.file_size(), ByteSize(32 * MIB));
        assert_eq!(p.file_sizes, vec![ByteSize(32 * MIB)]);
        let records: Vec<u64> = p.record_sizes.iter().map(|r| r.0).collect();
        assert_eq!(records, [512, 1024, 4096, 16384, 65536]);
        assert_eq!(p.tests, [TestKind::Write, TestKind::Read]);
        assert_eq!(
            (p.cache(), p.engine(), p.threads),
            (CacheMode::Buffered, EngineKind::Posix, 1)
        );
        assert_eq!(run.results.len(), 10);
        assert_eq!(rate(run, TestKind::Read, 512), 773910.0);
        assert_eq!(rate(run, TestKind::Write, 512), 909728.0);
        assert_eq!(rate(run, TestKind::Write, 65536), 3446428.0);
        assert_eq!(rate(run, TestKind::Read, 65536), 3215874.0);
        let m = &run.results[0];
        assert_eq!(m.bytes, 32 * MIB);
        // 32 MiB at 909728 bytes/s: 36.884026874 s
        assert_eq!(m.elapsed_ns, 36_884_026_874);
        let source = run.source.as_ref().unwrap();
        assert_eq!(source.tool, "classic");
        assert!(!source.time_known);
        assert_eq!(run.started_at, origin(BEBOX).imported_at);
    }

    #[test]
    fn freebsd_table_has_its_own_figures() {
        let run = &parse(FREEBSD, &origin(FREEBSD)).unwrap()[0];
        assert_eq!(rate(run, TestKind::Read, 4096), 4157761.0);
        assert_eq!(rate(run, TestKind::Write, 16384), 4414149.0);
    }

    #[test]
    fn two_tables_are_two_runs_and_uuids_are_stable() {
        let both = format!("{BEBOX}\nSome prose between the tables.\n\n{FREEBSD}");
        let runs = parse(&both, &origin(&both)).unwrap();
        assert_eq!(runs.len(), 2);
        assert_ne!(runs[0].uuid, runs[1].uuid);
        let again = parse(&both, &origin(&both)).unwrap();
        assert_eq!(runs[0].uuid, again[0].uuid);
        assert_eq!(runs[1].uuid, again[1].uuid);
    }

    #[test]
    fn swapped_columns_follow_the_header() {
        let text = "Command\t\tWrite (bytes/sec)  Read (bytes/sec)\niozone 1 512 100 200\n";
        let run = &parse(text, &origin(text)).unwrap()[0];
        assert_eq!(rate(run, TestKind::Write, 512), 100.0);
        assert_eq!(rate(run, TestKind::Read, 512), 200.0);
    }

    #[test]
    fn bad_rows_name_their_line() {
        let truncated = &BEBOX[..BEBOX.find("\t  1102494").unwrap()];
        let e = parse(truncated, &origin(truncated)).unwrap_err();
        assert_eq!(e.line, Some(4));
        let bad = BEBOX.replace("950281", "95O281");
        let e = parse(&bad, &origin(&bad)).unwrap_err();
        assert_eq!(e.line, Some(4));
        assert!(
            e.to_string().starts_with("line 4: read rate '95O281'"),
            "{e}"
        );
        let header_only = &BEBOX[..BEBOX.find("iozone").unwrap()];
        assert_eq!(
            parse(header_only, &origin(header_only)).unwrap_err().line,
            None
        );
    }

    #[test]
    fn detection() {
        assert!(looks_like(BEBOX));
        assert!(!looks_like("iozone 32 512 1 2\n"));
    }

    #[test]
    fn never_panics_on_damaged_tables() {
        never_panics(parse, &[BEBOX, FREEBSD], 3000);
    }
}
