//! mdtest's summaries from real runs of 4.0.0 and 4.1.0+dev, and 3.x's form: each rate
//! table a run of means, the tree from the command line, time tables read past.

use super::super::text::testing::never_panics;
use super::*;

const N1000_I3: &str = include_str!("../../../tests/fixtures/metadata/mdtest-n1000-i3.txt");
const FILES_U_NP2: &str =
    include_str!("../../../tests/fixtures/metadata/mdtest-F-u-np2-n500-w4k-e4k-i2.txt");
const TWO_COUNTS: &str = include_str!("../../../tests/fixtures/metadata/mdtest-F-np1-2-n200.txt");
const TREE_P: &str = include_str!("../../../tests/fixtures/metadata/mdtest-n300-z2-b3-P.txt");
const DEV: &str = include_str!("../../../tests/fixtures/metadata/mdtest-dev-n1000.txt");

fn means(run: &OpsRun) -> Vec<(TestKind, f64)> {
    run.figures
        .iter()
        .map(|f| match f.rate {
            Rate::PerSecond(r) => (f.test, r),
            Rate::TooFast => panic!("too fast"),
        })
        .collect()
}

#[test]
fn a_summary_of_three_iterations_is_a_run_of_their_means() {
    let runs = parse(N1000_I3).unwrap();
    assert_eq!(runs.len(), 1);
    let run = &runs[0];
    assert_eq!(run.tool, "mdtest");
    assert_eq!(run.version.as_deref(), Some("4.0.0"));
    assert_eq!(
        run.command.as_deref(),
        Some("mdtest '-n' '1000' '-i' '3' '-d' '/data/t'")
    );
    assert_eq!(
        run.started_at.unwrap().to_rfc3339(),
        "2026-12-02T05:49:20+00:00"
    );
    assert_eq!(run.dir.as_deref(), Some("/data/t"));
    assert_eq!((run.threads, run.cache), (1, CacheMode::Buffered));
    assert_eq!(
        run.tree,
        MetadataTree {
            files: 1000,
            dirs: 1,
            file_bytes: 0,
            shared_dir: false,
            random_order: false,
            warm: false,
        }
    );
    assert_eq!(
        means(run),
        [
            (TestKind::Mkdir, 1107.118),
            (TestKind::Rmdir, 257.421),
            (TestKind::Create, 674.295),
            (TestKind::Stat, 339643.766),
            // -e 0: mdtest's read only opens and closes
            (TestKind::Open, 72781.551),
            (TestKind::Unlink, 43048.633),
        ]
    );
    assert!(run.figures.iter().all(|f| (f.ops, f.bytes) == (1000, 0)));
    assert_eq!(
        run.remarks,
        ["mdtest summarised 3 iterations: each figure is their mean"]
    );
}

#[test]
fn tasks_with_their_own_directories_and_bytes_read_are_readfile() {
    let run = &parse(FILES_U_NP2).unwrap()[0];
    assert_eq!(run.threads, 2);
    assert_eq!(
        run.tree,
        MetadataTree {
            files: 500,
            dirs: 1,
            file_bytes: 4096,
            shared_dir: false,
            random_order: false,
            warm: false,
        }
    );
    let read = run
        .figures
        .iter()
        .find(|f| f.test == TestKind::Readfile)
        .unwrap();
    assert_eq!((read.ops, read.bytes), (1000, 1000 * 4096));
    assert_eq!(read.rate, Rate::PerSecond(181424.427));
}

#[test]
fn each_task_count_is_a_run_and_tasks_without_u_share_the_tree() {
    let runs = parse(TWO_COUNTS).unwrap();
    assert_eq!(runs.len(), 2);
    assert_eq!((runs[0].threads, runs[0].tree.shared_dir), (1, false));
    assert_eq!((runs[1].threads, runs[1].tree.shared_dir), (2, true));
    assert_eq!(runs[1].tree.files, 200);
    assert_eq!(runs[1].figures[0].ops, 400);
    assert_eq!(means(&runs[1])[0], (TestKind::Create, 190.154));
    assert!(runs[0].remarks.is_empty());
}

#[test]
fn a_tree_of_levels_and_branches_and_the_time_table_read_past() {
    let runs = parse(TREE_P).unwrap();
    assert_eq!(runs.len(), 1, "the time table is no run");
    // 1 + 3 + 9 directories of 23 items: 299 of the 300 asked for
    assert_eq!((runs[0].tree.dirs, runs[0].tree.files), (13, 23));
    assert_eq!(means(&runs[0])[0], (TestKind::Mkdir, 192.724));
}

#[test]
fn the_newer_title_and_the_older_colons_are_read() {
    let run = &parse(DEV).unwrap()[0];
    assert_eq!(run.version.as_deref(), Some("4.1.0+dev"));
    assert_eq!(means(run)[2], (TestKind::Create, 2879.007));
    let old = "mdtest-3.2.0 was launched with 1 total task(s) on 1 node(s)\n\
               Command line used: ./mdtest -n 10 -F -R\n\
               1 tasks, 10 files\n\n\
               SUMMARY rate: (of 1 iterations)\n   \
               Operation                      Max            Min           Mean        Std Dev\n   \
               ---------                      ---            ---           ----        -------\n   \
               File creation     :        100.000        100.000        100.000          0.000\n   \
               File stat         :       1000.000       1000.000       1000.000          0.000\n";
    let runs = parse(old).unwrap();
    assert_eq!(means(&runs[0]), [(TestKind::Create, 100.0)]);
    // -R: the shuffled stat is a run of its own
    assert_eq!(means(&runs[1]), [(TestKind::Stat, 1000.0)]);
    assert!(runs[1].tree.random_order && !runs[0].tree.random_order);
}

#[test]
fn outputs_one_after_another_keep_their_own_command_lines() {
    let both = format!("{N1000_I3}{FILES_U_NP2}");
    let runs = parse(&both).unwrap();
    assert_eq!(runs.len(), 2);
    assert_eq!(runs[1].tree.file_bytes, 4096);
    assert_eq!(runs[0].tree.file_bytes, 0);
}

#[test]
fn what_cannot_be_imported_says_why_in_one_line() {
    let times = TREE_P.replace("SUMMARY rate:", "SUMMARY time:");
    assert!(parse(&times).unwrap_err().message.contains("-Z"));
    let whole_sync = N1000_I3.replace("'-i' '3'", "'-i' '3' '-Y'");
    let e = parse(&whole_sync).unwrap_err();
    assert_eq!(e.line, Some(9));
    assert!(e.message.contains("-Y"), "{e}");
    let synced = N1000_I3.replace("'-i' '3'", "'-i' '3' '-y'");
    assert_eq!(parse(&synced).unwrap()[0].cache, CacheMode::Sync);
}

#[test]
fn damaged_rows_name_their_line() {
    let bad = N1000_I3.replace("674.295", "674.2x5");
    let e = parse(&bad).unwrap_err();
    assert_eq!(e.line, Some(18));
    assert!(e.message.contains("'674.2x5'"), "{e}");
    let short = N1000_I3.replace("1107.118        547.466", "547.466");
    assert_eq!(parse(&short).unwrap_err().line, Some(14));
    let no_tasks = N1000_I3.replace("1 tasks, 1000 files/directories", "");
    assert_eq!(parse(&no_tasks).unwrap_err().line, Some(11));
    let header_only = &N1000_I3[..N1000_I3.find("SUMMARY").unwrap()];
    assert_eq!(parse(header_only).unwrap_err().line, None);
}

#[test]
fn detection() {
    for text in [N1000_I3, FILES_U_NP2, TWO_COUNTS, TREE_P, DEV] {
        assert!(looks_like(text));
    }
    assert!(!looks_like("SUMMARY rate of nothing\n"));
}

#[test]
fn never_panics_on_damaged_summaries() {
    never_panics(
        |text, _| parse(text).map(|_| Vec::new()),
        &[N1000_I3, TWO_COUNTS, TREE_P],
        3000,
    );
}
