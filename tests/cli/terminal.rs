//! Text a run stores — a label, a note, a tag, a host name, mount options, typed on the
//! command line or imported — cannot drive the terminal it is shown on: every human
//! format (tables, Markdown, the HTML report, lines on stderr) shows its controls
//! escaped (`\e[31m`, `\x07`, `\u{202e}`), while JSON and CSV give it back exactly. And
//! a text of megabytes cannot stall a table: the cell is cut with an ellipsis, and the
//! commands finish (no time is asserted; a hang would be the failure).

use std::path::{Path, PathBuf};

use iozone::model::Run;
use iozone::store;

use crate::common::{iozone, ok, planted};

const LABEL: &str = "\x1b[31mRED";
const NOTE: &str = "ding\x07dong";
const TAG_VALUE: &str = "\x1b[1mbold";
/// Sets the window's title, then writes right to left.
const HOST: &str = "evil\x1b]0;owned\x07\u{202e}host";
/// Clears the screen; a C1 CSI (U+009B) that some terminals obey as ESC [.
const MOUNT_OPTIONS: &str = "rw,\x1b[2Jcleared,\u{9b}31m";

/// `iozone --color never ARGS` on `db`, which must succeed; its stdout and stderr, each
/// checked to hold nothing a terminal would act on.
fn shown(db: &Path, args: &[&str]) -> (String, String) {
    let out = iozone()
        .env("IOZONE_DB", db)
        .args(["--color", "never"])
        .args(args)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{args:?}: {stderr}");
    let stdout = String::from_utf8(out.stdout).expect("stdout is UTF-8");
    assert_inert(&format!("{args:?} stdout"), &stdout);
    assert_inert(&format!("{args:?} stderr"), &stderr);
    (stdout, stderr)
}

/// Fails on a byte or character a terminal would act on rather than print: a C0
/// control but the newline, DEL, a C1 control, a bidirectional override or isolate.
fn assert_inert(what: &str, text: &str) {
    for (at, c) in text.char_indices() {
        let acts = (c < ' ' && c != '\n')
            || c == '\x7f'
            || ('\u{80}'..='\u{9f}').contains(&c)
            || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
        if acts {
            let before: String = text[..at].chars().rev().take(60).collect();
            let after: String = text[at..].chars().take(60).collect();
            let before: String = before.chars().rev().collect();
            panic!("{what}: {c:?} at byte {at}, in {before:?} + {after:?}");
        }
    }
}

/// A run planted by the store, for `host`, on `day`, at `level` bytes/s, labelled
/// `label`, with `mount_options`.
fn hostile(day: i64, level: f64, label: &str, mount_options: &str) -> Run {
    let mut run = planted(HOST, day, level);
    run.labels = vec![label.into()];
    run.note = Some(NOTE.into());
    run.tags.insert("color".into(), TAG_VALUE.into());
    run.filesystem.mount_options = Some(mount_options.into());
    run
}

/// A database of: run 1, recorded by `iozone run` in `dir` with the hostile label,
/// note and tag; runs 2–25 planted on the hostile host, 12 labelled `before` (with
/// the hostile mount options, at 500 MB/s) then 12 `after` (at 400 MB/s): a step
/// `trend` finds, a comparison with a changed environment, a fleet of one host.
fn hostile_history(dir: &Path) -> PathBuf {
    let db = dir.join("h.db");
    let work = dir.join("work");
    std::fs::create_dir(&work).unwrap();
    let (_, stderr) = shown(
        &db,
        &[
            "run",
            "-s",
            "64k",
            "-r",
            "4k",
            "-n",
            "1",
            "--warmup",
            "0",
            "-i",
            "write",
            "-l",
            LABEL,
            "--note",
            NOTE,
            "--tag",
            &format!("color={TAG_VALUE}"),
            "-d",
            work.to_str().unwrap(),
        ],
    );
    assert!(
        stderr.contains("Recorded run 1 (label \\e[31mRED)"),
        "{stderr}"
    );
    let mut store = store::open(&db).unwrap();
    let mut runs: Vec<Run> = (0..12)
        .map(|day| hostile(day, 500e6, "before", MOUNT_OPTIONS))
        .collect();
    runs.extend((12..24).map(|day| hostile(day, 400e6, "after", "rw")));
    store.save_runs(&runs).unwrap();
    db
}

/// The hostile host and mount options as a human format shows them.
const ESCAPED_HOST: &str = "evil\\e]0;owned\\x07\\u{202e}host";
const ESCAPED_OPTIONS: &str = "rw,\\e[2Jcleared,\\u{9b}31m";

/// Every listing, run, comparison and trend in `format` (`table`, `markdown`) shows
/// the stored controls escaped.
fn assert_shown_escaped_in(db: &Path, format: &str) {
    let f = ["--format", format];
    let (history, _) = shown(db, &[&["history", "--limit", "30"][..], &f].concat());
    for needle in ["\\e[31mRED", ESCAPED_HOST] {
        assert!(history.contains(needle), "{format}: {needle} in\n{history}");
    }
    let (all, _) = shown(db, &[&["history", "--all"][..], &f].concat());
    assert!(all.contains("\\e[31mRED"), "{format}:\n{all}");

    let (recorded, _) = shown(db, &[&["show", "1"][..], &f].concat());
    for needle in ["\\e[31mRED", "ding\\x07dong", "color=\\e[1mbold"] {
        assert!(
            recorded.contains(needle),
            "{format}: {needle} in\n{recorded}"
        );
    }
    let (planted, _) = shown(db, &[&["show", "2"][..], &f].concat());
    for needle in [ESCAPED_HOST, ESCAPED_OPTIONS] {
        assert!(planted.contains(needle), "{format}: {needle} in\n{planted}");
    }

    let (compared, _) = shown(db, &[&["compare", "before", "after"][..], &f].concat());
    assert!(compared.contains(ESCAPED_OPTIONS), "{format}:\n{compared}");
    // a selector naming the label as typed is said back escaped
    let (named, _) = shown(
        db,
        &[&["compare", "1", &format!("label:{LABEL}")][..], &f].concat(),
    );
    assert!(named.contains("label:\\e[31mRED"), "{format}:\n{named}");
    let by = ["compare", "--by", "host", "before", "after"];
    let (fleet, _) = shown(db, &[&by[..], &f].concat());
    assert!(fleet.contains(ESCAPED_HOST), "{format}:\n{fleet}");

    let (trend, _) = shown(db, &[&["trend"][..], &f].concat());
    assert!(trend.contains(ESCAPED_HOST), "{format}:\n{trend}");
}

/// An error quoting the text, a Markdown table's cells and the HTML report show the
/// controls escaped too.
fn assert_errors_markdown_and_html_escape(db: &Path) {
    // an error quoting the text says it escaped too
    let out = (iozone().env("IOZONE_DB", db))
        .args([
            "--color",
            "never",
            "compare",
            "1",
            &format!("label:{LABEL}x"),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let error = String::from_utf8(out.stderr).unwrap();
    assert_inert("an error", &error);
    assert!(error.contains("label:\\e[31mREDx"), "{error}");

    // Markdown: a cell's `|` and newline cannot break its table
    let (md, _) = shown(db, &["show", "1", "--format", "markdown"]);
    let bars = |line: &str| line.replace("\\|", "").matches('|').count();
    let first_table: Vec<&str> = md.lines().take_while(|l| l.starts_with('|')).collect();
    assert!(first_table.len() > 10, "{md}");
    for line in &first_table {
        assert_eq!(bars(line), bars(first_table[0]), "{line}\n{md}");
    }

    let (html, _) = shown(db, &["report", "before", "after", "-o", "-"]);
    for needle in [ESCAPED_HOST, "ding\\x07dong"] {
        assert!(html.contains(needle), "{needle} in the report");
    }
}

/// Machines (JSON, CSV) get the stored text back exactly.
fn assert_machines_get_it_exact(db: &Path) {
    let run: serde_json::Value =
        serde_json::from_str(&ok(db, &["show", "1", "--format", "json"])).unwrap();
    assert_eq!(run["labels"][0], LABEL);
    assert_eq!(run["note"], NOTE);
    assert_eq!(run["tags"]["color"], TAG_VALUE);
    let run: serde_json::Value =
        serde_json::from_str(&ok(db, &["show", "2", "--format", "json"])).unwrap();
    assert_eq!(run["host"]["hostname"], HOST);
    assert_eq!(run["filesystem"]["mount_options"], MOUNT_OPTIONS);
    let listed: serde_json::Value =
        serde_json::from_str(&ok(db, &["history", "--limit", "30", "--format", "json"])).unwrap();
    let labels: Vec<&str> = (listed.as_array().unwrap().iter())
        .filter_map(|r| r["labels"][0].as_str())
        .collect();
    assert!(labels.contains(&LABEL), "{labels:?}");
    for (args, needle) in [
        (&["history", "--limit", "30", "--format", "csv"][..], LABEL),
        (&["history", "--all", "--format", "csv"], HOST),
        // `show --format csv` is the results alone
        (&["export", "--format", "csv"], NOTE),
        (&["export", "--format", "csv"], MOUNT_OPTIONS),
        (&["trend", "--format", "csv"], HOST),
    ] {
        let csv = ok(db, args);
        let mut reader = csv::Reader::from_reader(csv.as_bytes());
        let found = (reader.records())
            .any(|record| record.unwrap().iter().any(|field| field.contains(needle)));
        assert!(found, "{args:?}: {needle:?} in\n{csv}");
    }
}

#[test]
fn controls_in_stored_text_are_shown_escaped_and_kept_exact_by_machines() {
    let scratch = tempfile::tempdir().unwrap();
    let db = hostile_history(scratch.path());
    for format in ["table", "markdown"] {
        assert_shown_escaped_in(&db, format);
    }
    assert_errors_markdown_and_html_escape(&db);
    assert_machines_get_it_exact(&db);
}

/// Our own CSV export carries the controls into another database: they arrive exact
/// and are shown escaped there too.
#[test]
fn controls_imported_from_a_csv_are_kept_and_shown_escaped() {
    let scratch = tempfile::tempdir().unwrap();
    let db = hostile_history(scratch.path());
    let csv = scratch.path().join("runs.csv");
    std::fs::write(&csv, ok(&db, &["export", "--format", "csv"])).unwrap();
    let other = scratch.path().join("other.db");
    let (_, stderr) = shown(&other, &["import", csv.to_str().unwrap()]);
    assert!(stderr.contains("Imported"), "{stderr}");

    let (history, _) = shown(&other, &["history", "--limit", "30"]);
    assert!(history.contains("\\e[31mRED"), "{history}");
    assert!(
        history.contains("evil\\e]0;owned\\x07\\u{202e}host"),
        "{history}"
    );
    let listed: serde_json::Value = serde_json::from_str(&ok(
        &other,
        &["history", "--limit", "30", "--format", "json"],
    ))
    .unwrap();
    let runs = listed.as_array().unwrap();
    assert!(runs.iter().any(|r| r["labels"][0] == LABEL), "{listed}");
    assert!(
        runs.iter().any(|r| r["host"]["hostname"] == HOST),
        "{listed}"
    );
}

/// A label and a note of megabytes (imported, or planted as an import would store
/// them): `show`, `history` and `report` finish, their cells cut with an ellipsis, while
/// JSON keeps every byte.
#[test]
fn a_label_of_megabytes_is_cut_in_tables_and_whole_in_json() {
    let scratch = tempfile::tempdir().unwrap();
    let db = scratch.path().join("h.db");
    let label: String = "label-without-a-space-".repeat(200_000);
    let note: String = "a long note, with spaces. ".repeat(200_000);
    let mut run = planted("big", 0, 500e6);
    run.labels = vec![label.clone()];
    run.note = Some(note.clone());
    store::open(&db).unwrap().save_runs(&[run]).unwrap();

    for args in [
        &["show", "1"][..],
        &["show", "1", "--format", "markdown"],
        &["history"],
        &["history", "--format", "markdown"],
        &["history", "--all"],
    ] {
        let (text, _) = shown(&db, args);
        // the cell holds its first characters and the ellipsis, not megabytes
        assert!(
            text.contains("label-without-a-space-label"),
            "{args:?}:\n{text}"
        );
        assert!(text.contains('…'), "{args:?}:\n{text}");
        assert!(text.len() < 64 << 10, "{args:?}: {} bytes", text.len());
    }
    let (shown_run, _) = shown(&db, &["show", "1"]);
    let label_cell: Vec<&str> = (shown_run.lines())
        .skip_while(|l| !l.contains("labels"))
        .take_while(|l| !l.contains(" tags "))
        .collect();
    assert!(
        label_cell.last().is_some_and(|l| l.contains('…')),
        "{label_cell:#?}"
    );

    let (html, _) = shown(&db, &["report", "-o", "-"]);
    assert!(html.contains("label-without-a-space-label"));
    assert!(html.len() < 1 << 20, "{} bytes of HTML", html.len());

    let whole: serde_json::Value =
        serde_json::from_str(&ok(&db, &["show", "1", "--format", "json"])).unwrap();
    assert_eq!(whole["labels"][0].as_str().unwrap().len(), label.len());
    assert_eq!(whole["note"].as_str().unwrap(), note);
}
