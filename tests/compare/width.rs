//! Tables fit the terminal they are printed on: `history` of ten runs, a comparison of
//! two labels and the classic comparison, in a real 100-column pseudo-terminal
//! (`script(1)`), never wider; the same commands piped keep whole lines.

use std::path::Path;
use std::process::Command;

use crate::common::iozone;

const COLUMNS: usize = 100;

/// `iozone ARGS` with stdout on a pseudo-terminal `COLUMNS` wide, as a person sees it.
fn on_terminal(db: &Path, args: &[&str]) -> String {
    on_terminal_of(COLUMNS, db, args)
}

/// `iozone ARGS` with stdin, stdout and stderr on a pseudo-terminal `columns` wide,
/// as a person sees it (carriage returns and all).
pub(super) fn on_terminal_of(columns: usize, db: &Path, args: &[&str]) -> String {
    let binary = assert_cmd::cargo::cargo_bin("iozone");
    // each word quoted for the shell, as typed
    let quoted = |word: &str| format!("'{}'", word.replace('\'', r"'\''"));
    let words: Vec<String> = args.iter().map(|a| quoted(a)).collect();
    let command = format!(
        "stty cols {columns} rows 50; exec {} --db {} {}",
        quoted(&binary.display().to_string()),
        quoted(&db.display().to_string()),
        words.join(" ")
    );
    let out = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .env("NO_COLOR", "1")
        .output()
        .expect("script(1) from util-linux runs");
    assert!(out.status.success(), "{args:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap().replace("\r\n", "\n")
}

fn assert_fits(what: &str, text: &str) {
    for line in text.lines() {
        assert!(
            line.chars().count() <= COLUMNS,
            "{what}: a line of {} columns:\n{line}\n\n{text}",
            line.chars().count()
        );
    }
}

fn ok(db: &Path, args: &[&str]) {
    let out = iozone().env("IOZONE_DB", db).args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}: {out:?}");
}

#[test]
fn history_and_comparisons_fit_a_100_column_terminal() {
    let scratch = tempfile::tempdir().unwrap();
    let db = scratch.path().join("w.db");
    let work = scratch.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let dir = work.to_str().unwrap();
    for i in 0..10 {
        let label = if i % 2 == 0 {
            "before-upgrade"
        } else {
            "after-upgrade"
        };
        ok(
            &db,
            &[
                "run", "-s", "64k", "-r", "4k,16k", "-n", "2", "-l", label, "-d", dir, "-q",
            ],
        );
    }
    let history = on_terminal(&db, &["history"]);
    assert!(history.contains("before-upgrade"), "{history}");
    assert_fits("history", &history);
    let compared = on_terminal(&db, &["compare", "before-upgrade", "after-upgrade"]);
    assert!(compared.contains("Verdict"), "{compared}");
    assert_fits("compare", &compared);
    // piped, the same table is whole: one line per row, wider than the terminal
    let piped = iozone()
        .env("IOZONE_DB", &db)
        .args(["history"])
        .output()
        .unwrap();
    let piped = String::from_utf8(piped.stdout).unwrap();
    assert!(
        piped.lines().any(|l| l.chars().count() > COLUMNS),
        "{piped}"
    );

    let classic = scratch.path().join("classic.db");
    for (file, label) in [
        ("classic/bebox-beos-dr8.txt", "DR8"),
        ("classic/486dx4-freebsd.txt", "FreeBSD"),
    ] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(file);
        ok(&classic, &["import", path.to_str().unwrap(), "-l", label]);
    }
    let compared = on_terminal(&classic, &["compare", "DR8", "FreeBSD"]);
    assert!(compared.contains("inconclusive"), "{compared}");
    assert_fits("the classic comparison", &compared);
}

#[test]
fn markdown_is_markdown_everywhere_with_pipes_escaped() {
    let scratch = tempfile::tempdir().unwrap();
    let db = scratch.path().join("m.db");
    let work = scratch.path().join("work");
    std::fs::create_dir(&work).unwrap();
    let dir = work.to_str().unwrap();
    ok(
        &db,
        &[
            "run", "-s", "64k", "-r", "4k", "-n", "2", "-l", "a|b", "-d", dir, "-q",
        ],
    );
    for args in [
        &["show", "latest", "--format", "markdown"][..],
        &["history", "--format", "markdown"],
    ] {
        let out = iozone().env("IOZONE_DB", &db).args(args).output().unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(out.status.success(), "{args:?}: {text}");
        assert!(
            !text.contains('│') && !text.contains('╭'),
            "{args:?}: a box-drawn table in Markdown:\n{text}"
        );
        assert!(
            text.contains("| File") || text.contains("| ID"),
            "{args:?}: {text}"
        );
        if args[0] == "history" {
            assert!(text.contains("a\\|b"), "the label's pipe escaped: {text}");
        }
    }
}
