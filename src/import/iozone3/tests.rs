//! The four forms from fixtures and hand-made texts: every stated fact kept, tables
//! read once, blanks as tests not run, damaged output named by its line.

use chrono::TimeZone;

use super::super::text::testing::{never_panics, origin};
use super::table::is_table_header;
use super::*;
use crate::model::{CacheMode, Measurement};
use crate::units::ByteSize;

const SINGLE: &str = include_str!("../../../tests/fixtures/iozone3/single-32m-r64k.txt");
const SINGLE_R: &str = include_str!("../../../tests/fixtures/iozone3/single-32m-r64k-R.txt");
const AUTO: &str = include_str!("../../../tests/fixtures/iozone3/auto-n64k-g4m.txt");
const THROUGHPUT: &str = include_str!("../../../tests/fixtures/iozone3/throughput-t2.txt");

fn runs(text: &str) -> Vec<Run> {
    parse(text, &origin(text)).unwrap()
}

fn cell(run: &Run, test: TestKind, file_kb: u64, record_kb: u64) -> &Measurement {
    run.results
        .iter()
        .find(|m| {
            (m.test, m.file_size, m.record_size)
                == (test, ByteSize(file_kb * KB), ByteSize(record_kb * KB))
        })
        .unwrap()
}

#[test]
fn single_run_keeps_every_stated_fact() {
    let runs = runs(SINGLE);
    assert_eq!(runs.len(), 1);
    let run = &runs[0];
    let p = &run.params;
    assert_eq!(p.file_size(), ByteSize(33_554_432));
    assert_eq!(p.record_sizes, vec![ByteSize(65_536)]);
    assert_eq!(
        p.tests,
        [
            TestKind::Write,
            TestKind::Rewrite,
            TestKind::Read,
            TestKind::Reread
        ]
    );
    assert_eq!(
        (p.engine(), p.cache(), p.threads),
        (EngineKind::Posix, CacheMode::Buffered, 1)
    );
    assert_eq!((p.auto, p.repeat, p.stride_records), (false, 1, Some(17)));
    assert_eq!(p.dir.as_deref(), Some("/data"));
    for (test, kb_per_s) in [
        (TestKind::Write, 2728381.0),
        (TestKind::Rewrite, 7796271.0),
        (TestKind::Read, 10670058.0),
        (TestKind::Reread, 8773181.0),
    ] {
        let m = cell(run, test, 32768, 64);
        assert_eq!(m.throughput, kb_per_s * 1024.0, "{test}");
        assert_eq!(m.bytes, 33_554_432);
        assert_eq!(m.latency_ns, None);
    }
    assert_eq!(cell(run, TestKind::Write, 32768, 64).elapsed_ns, 12_010_053);
    let source = run.source.as_ref().unwrap();
    assert_eq!(source.tool, "iozone3");
    assert_eq!(source.version.as_deref(), Some("3.489"));
    assert_eq!(
        source.command.as_deref(),
        Some("/usr/bin/iozone -s 32m -r 64k -i 0 -i 1 -f /data/ioz.tmp")
    );
    assert!(source.time_known);
    assert_eq!(
        run.started_at,
        Utc.with_ymd_and_hms(2026, 11, 30, 5, 41, 47).unwrap()
    );
    assert_eq!(run.host, Default::default());
}

#[test]
fn the_table_is_taken_once_when_a_report_follows() {
    let run = &runs(SINGLE_R)[0];
    assert_eq!(run.results.len(), 4);
    assert_eq!(
        cell(run, TestKind::Write, 32768, 64).throughput,
        2051333.0 * 1024.0
    );
    assert_eq!(
        cell(run, TestKind::Reread, 32768, 64).throughput,
        10211065.0 * 1024.0
    );
}

#[test]
fn a_report_alone_gives_the_tables_numbers() {
    let report_only: String = SINGLE_R
        .lines()
        .filter(|l| {
            !is_table_header(l)
                && !l.contains("random")
                && !l.trim_start().starts_with("32768      64")
        })
        .map(|l| format!("{l}\n"))
        .collect();
    assert!(!report_only.contains("reclen"));
    let from_report = &runs(&report_only)[0];
    let from_table = &runs(SINGLE_R)[0];
    assert_eq!(from_report.results, from_table.results);
    assert_eq!(from_report.params, from_table.params);
    // A report cut inside its last figure is refused.
    let cut = report_only.trim_end().trim_end_matches('5');
    let e = parse(cut, &origin(cut)).unwrap_err();
    assert_eq!(e.line, Some(cut.lines().count()));
}

#[test]
fn auto_mode_is_a_run_and_its_stdio_columns_another() {
    let runs = runs(AUTO);
    assert_eq!(runs.len(), 2);
    let (main, stdio) = (&runs[0], &runs[1]);
    let kib = |sizes: &[ByteSize]| sizes.iter().map(|s| s.0 / KB).collect::<Vec<_>>();
    assert_eq!(
        kib(&main.params.file_sizes),
        [64, 128, 256, 512, 1024, 2048, 4096]
    );
    assert_eq!(
        kib(&main.params.record_sizes),
        [4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096]
    );
    assert_eq!(main.params.file_size(), ByteSize(4 << 20));
    assert!(main.params.auto);
    // 5 + 6 + ... + 11 (file size, record size) pairs, nine tests each.
    assert_eq!(main.results.len(), 56 * 9);
    assert_eq!(main.params.tests, TestKind::ALL[..9]);
    assert_eq!(
        cell(main, TestKind::Write, 64, 4).throughput,
        983980.0 * 1024.0
    );
    assert_eq!(
        cell(main, TestKind::RandomWrite, 2048, 1024).throughput,
        21980064.0 * 1024.0
    );
    assert_eq!(
        cell(main, TestKind::StrideRead, 4096, 4096).throughput,
        11768599.0 * 1024.0
    );
    assert_eq!(cell(main, TestKind::Read, 4096, 4).bytes, 4 << 20);
    assert_eq!(main.params.engine(), EngineKind::Posix);
    assert_eq!(stdio.params.engine(), EngineKind::Stdio);
    assert_eq!(stdio.results.len(), 56 * 4);
    assert_eq!(
        cell(stdio, TestKind::Write, 64, 4).throughput,
        2278628.0 * 1024.0
    );
    assert_eq!(
        cell(stdio, TestKind::Reread, 4096, 4096).throughput,
        14271297.0 * 1024.0
    );
    assert_ne!(main.uuid, stdio.uuid);
    assert_eq!(
        main.started_at,
        Utc.with_ymd_and_hms(2026, 11, 30, 5, 41, 48).unwrap()
    );
}

/// A table row repeated, next to itself or rows later, is a second figure for each of
/// its tests: refused at the repeat's line, the figures never held to find it.
#[test]
fn a_row_twice_is_a_second_figure_at_its_line() {
    let row_of = |text: &str, kb: &str, rec: &str| {
        let at = text.lines().position(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            words.len() > 2 && words[0] == kb && words[1] == rec
        });
        at.unwrap()
    };
    let lines: Vec<&str> = AUTO.lines().collect();
    for (repeated, after) in [(("64", "4"), ("64", "4")), (("128", "8"), ("1024", "64"))] {
        let (from, to) = (
            row_of(AUTO, repeated.0, repeated.1),
            row_of(AUTO, after.0, after.1),
        );
        let mut edited = lines.clone();
        edited.insert(to + 1, lines[from]);
        let text = edited.join("\n") + "\n";
        let e = parse(&text, &origin(&text)).unwrap_err();
        assert_eq!(e.line, Some(to + 2), "{e}");
        let second = format!(
            "a second write figure for a {} file in {} records",
            ByteSize(repeated.0.parse::<u64>().unwrap() * KB),
            ByteSize(repeated.1.parse::<u64>().unwrap() * KB)
        );
        assert!(e.message.contains(&second), "{e}");
    }
}

#[test]
fn blank_cells_are_tests_not_run() {
    // An -i 0 -i 2 row: read and reread blank, random read and write present.
    let row = "              64       4   983980  2772930  6271021  6421025  4564786  1017549";
    let blanked = row.replace("  6271021  6421025", &" ".repeat(18));
    let text = AUTO.replace(
        AUTO.lines().find(|l| l.starts_with(&row[..30])).unwrap(),
        &blanked,
    );
    let main = &runs(&text)[0];
    assert!(main.results.iter().all(|m| m.file_size != ByteSize(64 * KB)
        || m.record_size != ByteSize(4 * KB)
        || !matches!(m.test, TestKind::Read | TestKind::Reread)));
    assert_eq!(
        cell(main, TestKind::RandomRead, 64, 4).throughput,
        4564786.0 * 1024.0
    );
    assert_eq!(
        cell(main, TestKind::RandomWrite, 64, 4).throughput,
        1017549.0 * 1024.0
    );
}

#[test]
fn throughput_mode_takes_what_the_parent_sees() {
    let runs = runs(THROUGHPUT);
    assert_eq!(runs.len(), 1);
    let run = &runs[0];
    assert_eq!(run.params.threads, 2);
    assert_eq!(run.params.file_size(), ByteSize(16 << 20));
    assert_eq!(run.params.dir.as_deref(), Some("/data"));
    assert_eq!(run.results.len(), 4);
    for (test, parent) in [
        (TestKind::Write, 380070.80),
        (TestKind::Rewrite, 1850087.97),
        (TestKind::Read, 11172468.43),
        (TestKind::Reread, 11316013.59),
    ] {
        let m = cell(run, test, 16384, 64);
        assert_eq!(m.throughput, parent * 1024.0, "{test}");
        assert_eq!(m.bytes, 2 * (16 << 20));
    }
    // Without the parent's line, the children's figure stands in.
    let children_only: String = THROUGHPUT
        .lines()
        .filter(|l| !l.contains("Parent sees"))
        .map(|l| format!("{l}\n"))
        .collect();
    let run = &parse(&children_only, &origin(&children_only)).unwrap()[0];
    assert_eq!(
        cell(run, TestKind::Write, 16384, 64).throughput,
        506699.80 * 1024.0
    );
}

#[test]
fn the_same_text_gives_the_same_uuids() {
    let first: Vec<_> = runs(AUTO).iter().map(|r| r.uuid).collect();
    let again: Vec<_> = runs(AUTO).iter().map(|r| r.uuid).collect();
    assert_eq!(first, again);
    assert_ne!(runs(SINGLE)[0].uuid, runs(SINGLE_R)[0].uuid);
}

#[test]
fn outputs_pasted_together_are_runs_in_order() {
    let both = format!("{SINGLE}{THROUGHPUT}");
    let runs = runs(&both);
    assert_eq!(runs.len(), 2);
    assert_eq!(runs[0].params.threads, 1);
    assert_eq!(runs[1].params.threads, 2);
    assert_eq!(
        runs[1].started_at,
        Utc.with_ymd_and_hms(2026, 11, 30, 5, 42, 13).unwrap()
    );
}

#[test]
fn a_cut_short_output_is_an_error_at_its_last_line() {
    let cut = &SINGLE[..SINGLE.find("10670058").unwrap()];
    let e = parse(cut, &origin(cut)).unwrap_err();
    assert_eq!(e.line, Some(28));
    assert!(
        e.to_string()
            .starts_with("line 28: the output stops before"),
        "{e}"
    );
    let header_only = &SINGLE[..SINGLE.find("Run began").unwrap()];
    assert_eq!(
        parse(header_only, &origin(header_only)).unwrap_err().line,
        None
    );
}

#[test]
fn malformed_figures_name_their_line() {
    let bad = SINGLE.replace("7796271", "77962x1");
    let e = parse(&bad, &origin(&bad)).unwrap_err();
    assert_eq!(e.line, Some(28));
    let bad = SINGLE.replace("Mon Nov 30 05:41:47 2026", "Mon Nov 31 05:41:47 2026");
    assert_eq!(parse(&bad, &origin(&bad)).unwrap_err().line, Some(16));
    let ops = SINGLE.replace(
        "Output is in kBytes/sec",
        "Output is in operations per second",
    );
    assert!(
        parse(&ops, &origin(&ops))
            .unwrap_err()
            .message
            .contains("-O")
    );
}

#[test]
fn options_come_from_the_command_line_as_getopt_reads_it() {
    let o = Options::from_command("iozone -aIe -B -t 2 -s 1g -r512 -F /mnt/a /mnt/b -j 5");
    assert!(o.auto && o.direct && o.flush && o.mmap && !o.sync);
    assert_eq!(o.file.as_deref(), Some("/mnt/a"));
    assert_eq!(o.stride, Some(5));
    assert_eq!(o.cache(), CacheMode::Direct);
    let o = Options::from_command("iozone -o -s 32m -f ioz.tmp");
    assert_eq!(o.cache(), CacheMode::Sync);
    assert_eq!(parent_dir(o.file.as_deref().unwrap()), "");
    assert!(Options::from_command("iozone -O -a").not_rates);
    let text = SINGLE.replace("-s 32m", "-e -B -s 32m");
    let run = &runs(&text)[0];
    assert_eq!(
        (run.params.cache(), run.params.engine()),
        (CacheMode::Flush, EngineKind::Mmap)
    );
}

#[test]
fn detection() {
    assert!(
        [SINGLE, SINGLE_R, AUTO, THROUGHPUT]
            .iter()
            .all(|t| looks_like(t))
    );
    assert!(!looks_like(
        "Command\tRead (bytes/sec)  Write (bytes/sec)\n"
    ));
}

#[test]
fn never_panics_on_damaged_output() {
    never_panics(parse, &[SINGLE, SINGLE_R, AUTO, THROUGHPUT], 3000);
}

/// Read as a stream, as `import` reads it: the runs come in parts, and closed they
/// name the file and carry the UUIDs the whole text gives.
#[test]
fn a_stream_gives_the_runs_of_the_whole_text() {
    let whole = parse(AUTO, &origin(AUTO)).unwrap();
    let mut closed = Vec::new();
    let mut figures = vec![0; whole.len()];
    read(
        AUTO.as_bytes(),
        "fixture.txt",
        origin(AUTO).imported_at,
        &mut |piece| {
            match piece {
                Piece::Part(RunPart::Figures { slot, results }) => figures[slot] += results.len(),
                Piece::Part(RunPart::Close { run, .. }) => closed.push(*run),
                _ => {}
            }
            true
        },
    )
    .unwrap();
    for ((run, whole), figures) in closed.iter().zip(&whole).zip(figures) {
        assert_eq!(run.uuid, whole.uuid);
        assert_eq!(
            run.source.as_ref().unwrap().file.as_deref(),
            Some("fixture.txt")
        );
        assert_eq!(run.params, whole.params);
        assert_eq!(figures, whole.results.len());
    }
    assert_eq!(closed.len(), 2);
}
