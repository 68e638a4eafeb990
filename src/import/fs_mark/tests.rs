//! fs_mark outputs from real runs: loops as repetitions of `create`, the sync method as
//! the cache mode, threads and directories as the tree, damaged output by its line.

use super::super::text::testing::never_panics;
use super::*;

const S0: &str = include_str!("../../../tests/fixtures/metadata/fs_mark-n2000-s0-S0-L3.txt");
const S1_VERBOSE: &str =
    include_str!("../../../tests/fixtures/metadata/fs_mark-n500-s4096-S1-t2-v.txt");
const ROUND_ROBIN: &str = include_str!("../../../tests/fixtures/metadata/fs_mark-n400-D4-N100.txt");
const TWO_DIRS: &str =
    include_str!("../../../tests/fixtures/metadata/fs_mark-two-dirs-n200-s1024.txt");

fn rates(run: &OpsRun) -> Vec<(u32, f64)> {
    run.figures
        .iter()
        .map(|f| match f.rate {
            Rate::PerSecond(r) => (f.repetition, r),
            Rate::TooFast => panic!("too fast"),
        })
        .collect()
}

#[test]
fn three_loops_are_three_repetitions_of_create() {
    let runs = parse(S0).unwrap();
    assert_eq!(runs.len(), 1);
    let run = &runs[0];
    assert_eq!(run.tool, "fs_mark");
    assert_eq!(run.version.as_deref(), Some("3.3"));
    assert_eq!(
        run.command.as_deref(),
        Some("fs_mark -d /data/fsm -n 2000 -s 0 -S 0 -L 3")
    );
    assert_eq!(
        run.started_at.unwrap().to_rfc3339(),
        "2026-12-01T22:49:34+00:00"
    );
    assert_eq!(run.dir.as_deref(), Some("/data/fsm"));
    assert_eq!((run.cache, run.threads), (CacheMode::Buffered, 1));
    assert_eq!(
        run.tree,
        MetadataTree {
            files: 2000,
            dirs: 1,
            file_bytes: 0,
            shared_dir: false,
            random_order: false,
            warm: false,
        }
    );
    assert_eq!(rates(run), [(1, 28607.0), (2, 18159.5), (3, 28743.1)]);
    assert!(run.figures.iter().all(|f| f.test == TestKind::Create));
    assert!(run.figures.iter().all(|f| (f.ops, f.bytes) == (2000, 0)));
}

#[test]
fn fsync_per_file_is_sync_and_two_threads_share_the_directory() {
    let run = &parse(S1_VERBOSE).unwrap()[0];
    assert_eq!((run.cache, run.threads), (CacheMode::Sync, 2));
    assert_eq!(
        run.tree,
        MetadataTree {
            files: 500,
            dirs: 1,
            file_bytes: 4096,
            shared_dir: true,
            random_order: false,
            warm: false,
        }
    );
    // the per-call columns of -v are read past, not imported
    assert_eq!(rates(run), [(1, 2835.2), (2, 1338.3)]);
    assert_eq!(
        (run.figures[0].ops, run.figures[0].bytes),
        (1000, 1000 * 4096)
    );
}

#[test]
fn round_robin_subdirectories_are_the_tree_and_own_directories_are_not_shared() {
    let run = &parse(ROUND_ROBIN).unwrap()[0];
    assert_eq!((run.tree.dirs, run.tree.files), (4, 100));
    let run = &parse(TWO_DIRS).unwrap()[0];
    assert_eq!(run.threads, 2);
    assert!(!run.tree.shared_dir);
    assert_eq!((run.tree.files, run.tree.file_bytes), (200, 1024));
    assert_eq!(run.dir.as_deref(), Some("/data/fsm/b"));
}

#[test]
fn outputs_one_after_another_are_runs_in_file_order() {
    let both = format!("{S0}{S1_VERBOSE}");
    let runs = parse(&both).unwrap();
    assert_eq!(runs.len(), 2);
    assert_eq!((runs[0].threads, runs[1].threads), (1, 2));
}

#[test]
fn the_newer_trailer_is_read_past() {
    let text = format!("{S0}Average Files/sec:      25170.0\np50 Files/sec: 28607\n");
    assert_eq!(rates(&parse(&text).unwrap()[0]).len(), 3);
}

#[test]
fn sync_methods_and_spreads_without_a_counterpart_are_refused_in_one_line() {
    let post = S0.replace(
        "NO SYNC: Test does not issue sync() or fsync() calls.",
        "POST: Reopen and fsync() each file in order after main write loop.",
    );
    let e = parse(&post).unwrap_err();
    assert_eq!(e.line, Some(4));
    assert!(e.message.contains("sync method 'POST'"), "{e}");
    let hashed = ROUND_ROBIN.replace(
        "Round Robin between directories across 4 subdirectories with 100 files per subdirectory.",
        "Time based hash between directories across 4 subdirectories with 180 seconds per subdirectory.",
    );
    assert!(parse(&hashed).unwrap_err().message.contains("by the clock"));
    let uneven = ROUND_ROBIN.replace("with 100 files", "with 90 files");
    assert!(
        parse(&uneven)
            .unwrap_err()
            .message
            .contains("not the same number")
    );
}

#[test]
fn damaged_rows_name_their_line() {
    let bad = S0.replace("18159.5", "18159,5");
    let e = parse(&bad).unwrap_err();
    assert_eq!(e.line, Some(12));
    assert!(e.message.contains("'18159,5'"), "{e}");
    let backwards = S0.replace("    69         6000", "    69         3000");
    assert_eq!(parse(&backwards).unwrap_err().line, Some(13));
    let short = S1_VERBOSE.replace("  12385 ", " ");
    assert_eq!(parse(&short).unwrap_err().line, Some(12));
    let no_sync_line = S0.replace("#\tSync method:", "#\tSink method:");
    assert!(
        parse(&no_sync_line)
            .unwrap_err()
            .message
            .contains("Sync method")
    );
    let header_only = &S0[..S0.find("    69").unwrap()];
    assert_eq!(parse(header_only).unwrap_err().line, None);
}

#[test]
fn detection() {
    for text in [S0, S1_VERBOSE, ROUND_ROBIN, TWO_DIRS] {
        assert!(looks_like(text));
    }
    assert!(!looks_like("# a comment\nFSUse% of the disk\n"));
}

#[test]
fn never_panics_on_damaged_outputs() {
    never_panics(
        |text, _| parse(text).map(|_| Vec::new()),
        &[S0, S1_VERBOSE, ROUND_ROBIN],
        3000,
    );
}
