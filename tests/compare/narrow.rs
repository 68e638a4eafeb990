//! What a person reads in a 100-column and an 80-column terminal (a real
//! pseudo-terminal, `script(1)`): `run`, `show`, `history`, `compare` of 20 rows with
//! three busy-ish runs a side, and `trend` print no line longer than the terminal and
//! break no word, and every row of the comparison takes at most two lines. The same
//! comparison in Markdown is one table row per row, as a Markdown parser reads it.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use iozone::model::{MachineState, TestKind};

use crate::common::{iozone, ok, on_terminal_of, planted_sweep};

/// The machine's state at a run's start: busy with `writeback` GiB being written back
/// (and a load above its 2 CPUs when `loaded`), or quiet with `None`.
fn state(writeback: Option<f64>, loaded: bool) -> MachineState {
    MachineState {
        load_1m: Some(if loaded { 3.4 } else { 0.2 }),
        load_5m: Some(0.5),
        dirty_bytes: Some(writeback.map_or(1 << 20, |_| 900 << 20)),
        writeback_bytes: Some(writeback.map_or(0, |gib| (gib * f64::from(1 << 30)) as u64)),
        mem_free_bytes: Some(1 << 30),
        mem_available_bytes: Some(2 << 30),
        io_pressure_pct: None,
        cpu_pressure_pct: None,
    }
}

/// A database of one host's runs in two places: 24 daily runs on xfs in
/// /srv/scratch/journal that step down by a fifth half-way (a step `trend` finds), and
/// on ext4 in /mnt/data three runs labelled `before-upgrade`, then three
/// `after-upgrade` on a newer kernel and other mount options, writing a fifth slower;
/// two of each side's three started on a busy machine. Compared, 20 rows: write and
/// read, two file sizes, five record sizes.
fn busy_history(dir: &Path) -> PathBuf {
    let db = dir.join("busy.db");
    let tests = [TestKind::Write, TestKind::Read];
    let records = [4096, 16384, 65536, 262144, 1 << 20];
    let sweep = (&tests[..], &[32 << 20, 64 << 20][..], &records[..]);
    let mut runs = Vec::new();
    for day in 0..24 {
        let level = if day < 12 { 500e6 } else { 400e6 };
        let quiet = Some(state(None, false));
        let mut run = planted_sweep("vm", day, level, "/srv/scratch/journal", sweep, quiet);
        run.filesystem.fs_type = Some("xfs".into());
        runs.push(run);
    }
    let sides = [
        (
            "before-upgrade",
            500e6,
            "6.1.0-18-amd64",
            "rw,relatime,nodelalloc,data=journal",
        ),
        (
            "after-upgrade",
            400e6,
            "6.12.9-amd64",
            "rw,relatime,errors=remount-ro",
        ),
    ];
    let states = [
        [
            state(Some(1.0), false),
            state(None, false),
            state(Some(1.8), true),
        ],
        [
            state(Some(1.2), true),
            state(Some(1.6), false),
            state(None, false),
        ],
    ];
    for (side, (label, level, kernel, options)) in sides.into_iter().enumerate() {
        for (i, machine) in states[side].iter().enumerate() {
            let day = 30 + 3 * side as i64 + i as i64;
            let busy = Some(machine.clone());
            let mut run = planted_sweep("vm", day, level, "/mnt/data", sweep, busy);
            run.labels = vec![label.into()];
            run.host.kernel = Some(kernel.into());
            run.filesystem.mount_options = Some(options.into());
            // reads did not move
            for m in run.results.iter_mut().filter(|m| m.test == TestKind::Read) {
                m.throughput *= 500e6 / level;
            }
            runs.push(run);
        }
    }
    iozone::store::open(&db).unwrap().save_runs(&runs).unwrap();
    db
}

/// Every line a terminal showed of `raw`, its colour and cursor codes taken out: a
/// progress bar redraws its line after a carriage return, and each drawing is a line.
fn shown_lines(raw: &str) -> Vec<String> {
    let mut plain = String::new();
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            // CSI: ESC [ parameters, then a final byte in @..~
            if chars.next_if_eq(&'[').is_some() {
                while chars.next().is_some_and(|c| !('@'..='~').contains(&c)) {}
            }
            continue;
        }
        plain.push(c);
    }
    plain
        .split('\n')
        .flat_map(|line| line.split('\r'))
        .map(str::to_string)
        .collect()
}

/// A drawing of the progress bar, whose message is cut to its room (`write 4 KiB…`).
fn is_progress(line: &str) -> bool {
    line.trim_start().starts_with("Measuring [")
}

/// The words of `text`: what lies between spaces and table borders.
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| c.is_whitespace() || "│┆╭╮╰╯─┬┴┼═╞╪╡".contains(c))
        .filter(|w| !w.is_empty())
}

/// Every word of `texts`, and every run of a word's comma-separated parts (`rw,`,
/// `relatime,nodelalloc,`): a list such as mount options may break after a comma.
fn dictionary(texts: &[&str]) -> BTreeSet<String> {
    let mut known = BTreeSet::new();
    for word in texts.iter().flat_map(|t| words(t)) {
        let parts: Vec<&str> = word.split_inclusive(',').collect();
        for from in 0..parts.len() {
            for to in from + 1..=parts.len() {
                let run = parts[from..to].concat();
                known.insert(bare(&run).to_string());
                known.insert(run);
            }
        }
    }
    known
}

/// A word without the punctuation a sentence or a list may put after it.
fn bare(word: &str) -> &str {
    word.trim_end_matches([';', ',', '.', ')', ':'])
}

/// What only a table fitted to a terminal says: the columns every row shares, and the
/// columns left out.
const FITTED: &str = "Every row: Left out at this width: (a wider terminal, or --format \
                      markdown, shows them) it)";

/// Asserts that no line of `shown` is wider than `columns`, and that every word of it
/// is a word of `whole` (the same output, not fitted) or of what a fitted table adds:
/// a word cut in two would leave pieces that are neither.
fn assert_fits_and_keeps_words(what: &str, columns: usize, shown: &str, whole: &[&str]) {
    let known = dictionary(&[whole, &[FITTED]].concat());
    let lines = shown_lines(shown);
    for line in &lines {
        let wide = line.chars().count();
        assert!(
            wide <= columns,
            "{what} at {columns}: a line of {wide} columns:\n{line}\n\n{shown}"
        );
        if is_progress(line) {
            continue;
        }
        for word in words(line) {
            // a run's figures, sizes and times differ from one run to the next
            let figure = word.chars().any(|c| c.is_ascii_digit());
            assert!(
                known.contains(word) || known.contains(bare(word)) || figure,
                "{what} at {columns}: {word:?} is no word of the output:\n{line}\n\n{shown}"
            );
        }
    }
}

/// The rows of the table headed by a line holding `header`, each as the number of
/// lines it takes: a row starts with its first cell, which every row fills.
fn row_heights(shown: &str, header: &str) -> Vec<usize> {
    let lines = shown_lines(shown);
    let top = (lines.iter())
        .position(|l| l.starts_with('│') && l.contains(header))
        .unwrap_or_else(|| panic!("no table headed {header}:\n{shown}"));
    let mut heights: Vec<usize> = Vec::new();
    let body = lines[top..]
        .iter()
        .skip_while(|l| !l.starts_with('╞'))
        .skip(1);
    for line in body.take_while(|l| l.starts_with('│')) {
        let first = line.trim_start_matches('│').split('┆').next().unwrap_or("");
        match first.trim().is_empty() {
            true => {
                *heights
                    .last_mut()
                    .expect("a row starts with its first cell") += 1
            }
            false => heights.push(1),
        }
    }
    heights
}

fn piped(db: &Path, args: &[&str]) -> String {
    ok(db, args)
}

#[test]
fn twenty_busy_rows_read_whole_at_100_and_80_columns() {
    let scratch = tempfile::tempdir().unwrap();
    let db = busy_history(scratch.path());
    let work = scratch.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let dir = work.to_str().unwrap();
    let run = [
        "run",
        "-s",
        "64k",
        "-r",
        "4k,16k",
        "-n",
        "2",
        "-l",
        "width-check",
        "--note",
        "a note of several words that is long enough to wrap on a narrow terminal",
        "-d",
        dir,
    ];
    // what a run says, whole: the same command with nothing on a terminal
    let out = iozone().env("IOZONE_DB", &db).args(run).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let run_whole =
        String::from_utf8(out.stderr).unwrap() + &String::from_utf8(out.stdout).unwrap();
    // the busy signals a run may name this time and not the other
    let busy_words = "warning: the machine is busy: writeback in progress pending being \
                      written dirty load average is above the CPUs CPU I/O pressure (some \
                      avg10). This run's figures may all be off together (the state is \
                      recorded, and compare lists it) B KiB MiB GiB TiB";

    for columns in [100, 80] {
        let shown = on_terminal_of(columns, &db, &run);
        assert!(shown.contains("Recorded run"), "{shown}");
        assert_fits_and_keeps_words("run", columns, &shown, &[&run_whole, busy_words]);

        for args in [
            &["show", "latest"][..],
            &["show", "25"],
            &["history"],
            &["compare", "before-upgrade", "after-upgrade"],
            &["trend"],
        ] {
            let shown = on_terminal_of(columns, &db, args);
            let whole = piped(&db, args);
            assert_fits_and_keeps_words(&args.join(" "), columns, &shown, &[&whole]);
            if args[0] == "compare" {
                let heights = row_heights(&shown, "Verdict");
                assert_eq!(heights.len(), 20, "{shown}");
                assert!(heights.iter().all(|&h| h <= 2), "{heights:?}\n{shown}");
                // the verdict column holds the verdict alone
                assert!(!shown.contains("(noise"), "{shown}");
            }
            if args[0] == "history" || args[0] == "trend" {
                // one host, two places: each row says which
                for place in ["/mnt/data", "/srv/scratch/journal"] {
                    assert!(shown.contains(place), "{args:?} at {columns}:\n{shown}");
                }
            }
        }
    }

    // a side's machine state in a few words, each run's in JSON
    let json = piped(
        &db,
        &[
            "compare",
            "before-upgrade",
            "after-upgrade",
            "--format",
            "json",
        ],
    );
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    let changes = json["environment_changes"].as_array().unwrap();
    let machine = (changes.iter())
        .find(|c| c["field"] == "machine.at_start")
        .expect("the machine's state changed");
    assert_eq!(
        machine["summary"]["baseline"],
        "busy in 2 of 3 runs: writeback 1–1.8 GiB, load 3.4"
    );
    let runs = machine["summary"]["baseline_runs"].as_array().unwrap();
    assert_eq!(runs.len(), 3, "{machine}");
    let busy = (runs.iter())
        .filter(|r| r["value"].as_str().unwrap().starts_with("busy: "))
        .count();
    assert_eq!(busy, 2, "{machine}");
}

/// The tables of a Markdown document as a renderer reads them: each a header and rows
/// of cells.
fn markdown_tables(text: &str) -> Vec<(Vec<String>, Vec<Vec<String>>)> {
    use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
    let mut tables = Vec::new();
    let mut header = Vec::new();
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut cells: Vec<String> = Vec::new();
    let mut cell = String::new();
    for event in Parser::new_ext(text, Options::ENABLE_TABLES) {
        match event {
            Event::Start(Tag::TableCell) => cell.clear(),
            Event::Text(t) | Event::Code(t) => cell.push_str(&t),
            Event::End(TagEnd::TableCell) => cells.push(cell.clone()),
            Event::End(TagEnd::TableHead) => header = std::mem::take(&mut cells),
            Event::End(TagEnd::TableRow) => rows.push(std::mem::take(&mut cells)),
            Event::End(TagEnd::Table) => {
                tables.push((std::mem::take(&mut header), std::mem::take(&mut rows)))
            }
            _ => {}
        }
    }
    tables
}

#[test]
fn markdown_keeps_a_row_on_one_table_row() {
    let scratch = tempfile::tempdir().unwrap();
    let db = busy_history(scratch.path());
    let text = piped(
        &db,
        &[
            "compare",
            "before-upgrade",
            "after-upgrade",
            "--format",
            "markdown",
        ],
    );
    let tables = markdown_tables(&text);
    let rows = (tables.iter())
        .find(|(header, _)| header.iter().any(|h| h == "Verdict"))
        .unwrap_or_else(|| panic!("no rows table in\n{text}"));
    assert_eq!(rows.1.len(), 20, "{text}");
    let verdicts = ["regression", "improvement", "unchanged", "inconclusive"];
    for row in &rows.1 {
        assert_eq!(row.len(), rows.0.len(), "{row:?}");
        assert!(!row[0].is_empty(), "a row split in two: {row:?}");
        assert!(verdicts.contains(&row.last().unwrap().as_str()), "{row:?}");
    }
    let changes = (tables.iter())
        .find(|(header, _)| header.first().is_some_and(|h| h == "What changed"))
        .unwrap_or_else(|| panic!("no environment table in\n{text}"));
    let fields: Vec<&str> = changes.1.iter().map(|r| r[0].as_str()).collect();
    assert_eq!(
        fields,
        [
            "host.kernel",
            "filesystem.mount_options",
            "machine.at_start"
        ],
        "{text}"
    );
    // every table of every Markdown output keeps its rows whole
    for args in [
        &["show", "25", "--format", "markdown"][..],
        &["history", "--format", "markdown"],
        &["trend", "--format", "markdown"],
    ] {
        let text = piped(&db, args);
        let tables = markdown_tables(&text);
        assert!(!tables.is_empty(), "{args:?}: {text}");
        for (header, rows) in tables {
            for row in rows {
                assert_eq!(row.len(), header.len(), "{args:?}: {row:?}");
                assert!(
                    !row[..row.len().min(2)].iter().all(String::is_empty),
                    "{args:?}: a row split in two: {row:?}\n{text}"
                );
            }
        }
    }
}
