//! Tables fit the terminal they are printed on: `history` of ten runs, a comparison of
//! two labels and the classic comparison, in a real 100-column pseudo-terminal
//! (`script(1)`), never wider; the same commands piped keep whole lines.

use std::path::Path;

use crate::common::{Measure, fixture, ok, on_terminal_of};

const COLUMNS: usize = 100;

/// `iozone ARGS` with stdout on a pseudo-terminal `COLUMNS` wide, as a person sees it.
fn on_terminal(db: &Path, args: &[&str]) -> String {
    on_terminal_of(COLUMNS, db, args)
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

#[test]
fn history_and_comparisons_fit_a_100_column_terminal() {
    let scratch = tempfile::tempdir().unwrap();
    let db = scratch.path().join("w.db");
    let work = scratch.path().join("work");
    std::fs::create_dir(&work).unwrap();
    for i in 0..10 {
        let label = if i % 2 == 0 {
            "before-upgrade"
        } else {
            "after-upgrade"
        };
        Measure::tiny(&db, &work)
            .records("4k,16k")
            .repeat(2)
            .label(label)
            .record();
    }
    let history = on_terminal(&db, &["history"]);
    assert!(history.contains("before-upgrade"), "{history}");
    assert_fits("history", &history);
    let compared = on_terminal(&db, &["compare", "before-upgrade", "after-upgrade"]);
    assert!(compared.contains("Verdict"), "{compared}");
    assert_fits("compare", &compared);
    // piped, the same table is whole: one line per row, wider than the terminal
    let piped = ok(&db, &["history"]);
    assert!(
        piped.lines().any(|l| l.chars().count() > COLUMNS),
        "{piped}"
    );

    let classic = scratch.path().join("classic.db");
    for (file, label) in [
        ("classic/bebox-beos-dr8.txt", "DR8"),
        ("classic/486dx4-freebsd.txt", "FreeBSD"),
    ] {
        let path = fixture(file);
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
    Measure::tiny(&db, &work).repeat(2).label("a|b").record();
    for args in [
        &["show", "latest", "--format", "markdown"][..],
        &["history", "--format", "markdown"],
    ] {
        let text = ok(&db, args);
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
