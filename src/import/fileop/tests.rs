//! fileop's tables from real outputs, with and without `-e`: each `A` row a run, the
//! columns as our tests, damaged rows named by their line.

use super::super::text::testing::never_panics;
use super::*;

const F10: &str = include_str!("../../../tests/fixtures/metadata/fileop-f10.txt");
const L4_U6: &str = include_str!("../../../tests/fixtures/metadata/fileop-l4-u6.txt");
const E_F4: &str = include_str!("../../../tests/fixtures/metadata/fileop-e-f4.txt");
const E_BEST_WORST: &str = include_str!("../../../tests/fixtures/metadata/fileop-e-l2-u3-b-w.txt");
const S4K: &str = include_str!("../../../tests/fixtures/metadata/fileop-s4k-f3.txt");

fn figure(run: &OpsRun, test: TestKind) -> &OpFigure {
    run.figures
        .iter()
        .find(|f| f.test == test)
        .unwrap_or_else(|| panic!("no {test} in {run:?}"))
}

fn per_second(run: &OpsRun, test: TestKind) -> f64 {
    match figure(run, test).rate {
        Rate::PerSecond(r) => r,
        Rate::TooFast => panic!("{test} too fast"),
    }
}

#[test]
fn force_10_is_a_thousand_files_in_a_hundred_directories() {
    let runs = parse(F10).unwrap();
    assert_eq!(runs.len(), 1);
    let run = &runs[0];
    assert_eq!(run.tool, "fileop");
    assert_eq!(
        run.tree,
        MetadataTree {
            files: 10,
            dirs: 100,
            file_bytes: 1,
            shared_dir: false,
            random_order: false,
            warm: false,
        }
    );
    assert_eq!(run.dir.as_deref(), Some("/data/f"));
    assert_eq!((run.threads, run.version.as_ref()), (1, None));
    assert!(run.remarks.is_empty(), "{:?}", run.remarks);
    assert_eq!(
        run.tests(),
        [
            TestKind::Mkdir,
            TestKind::Create,
            TestKind::Stat,
            TestKind::Open,
            TestKind::Readfile,
            TestKind::Unlink,
            TestKind::Rmdir
        ]
    );
    assert_eq!(per_second(run, TestKind::Mkdir), 49583.0);
    assert_eq!(figure(run, TestKind::Mkdir).ops, 1110);
    assert_eq!(per_second(run, TestKind::Rmdir), 11958.0);
    assert_eq!(per_second(run, TestKind::Stat), 798003.0);
    assert_eq!(per_second(run, TestKind::Open), 671518.0);
    // delete is the unlink of each file; fileop's `unlink` (513253) removes hard links
    assert_eq!(per_second(run, TestKind::Unlink), 4215.0);
    assert_eq!(figure(run, TestKind::Unlink).ops, 1000);
    // create, write and close of each file, their times added
    let create = 1.0 / (1.0 / 80225.0 + 1.0 / 101816.0 + 1.0 / 502914.0);
    assert!((per_second(run, TestKind::Create) / create - 1.0).abs() < 1e-12);
    assert_eq!(figure(run, TestKind::Create).bytes, 1000);
    let readfile = 1.0 / (1.0 / 671518.0 + 1.0 / 572914.0);
    assert!((per_second(run, TestKind::Readfile) / readfile - 1.0).abs() < 1e-12);
}

#[test]
fn a_range_of_force_factors_is_a_run_each() {
    let runs = parse(L4_U6).unwrap();
    let shapes: Vec<(u64, u64)> = runs.iter().map(|r| (r.tree.files, r.tree.dirs)).collect();
    assert_eq!(shapes, [(4, 16), (5, 25), (6, 36)]);
    assert_eq!(per_second(&runs[2], TestKind::Unlink), 10566.0);
    assert_eq!(figure(&runs[1], TestKind::Stat).ops, 125);
}

#[test]
fn the_excel_form_states_no_size_and_says_the_default_was_taken() {
    let run = &parse(E_F4).unwrap()[0];
    assert_eq!((run.tree.files, run.tree.file_bytes), (4, 1));
    assert_eq!(run.dir, None);
    assert_eq!(run.remarks.len(), 1);
    assert!(run.remarks[0].contains("-e does not state the file size"));
    assert_eq!(per_second(run, TestKind::Mkdir), 1241.0);
}

#[test]
fn best_and_worst_rows_are_skipped_and_their_inf_with_them() {
    let runs = parse(E_BEST_WORST).unwrap();
    assert_eq!(runs.len(), 2, "one run per A row");
    assert_eq!(per_second(&runs[0], TestKind::Stat), 356962.0);
    assert_eq!(per_second(&runs[1], TestKind::Stat), 549739.0);
}

#[test]
fn the_stated_file_size_sizes_create_and_readfile() {
    let run = &parse(S4K).unwrap()[0];
    assert_eq!(run.tree.file_bytes, 4096);
    assert_eq!(figure(run, TestKind::Create).bytes, 27 * 4096);
    assert_eq!(figure(run, TestKind::Readfile).bytes, 27 * 4096);
    assert_eq!(figure(run, TestKind::Stat).bytes, 0);
}

#[test]
fn an_average_of_inf_is_too_fast_not_zero() {
    let text = F10.replace(" 798003 ", "    inf ");
    let run = &parse(&text).unwrap()[0];
    assert_eq!(figure(run, TestKind::Stat).rate, Rate::TooFast);
}

#[test]
fn damaged_rows_name_their_line() {
    let wrong_count = F10.replace("1000 \n", "999 \n");
    let e = parse(&wrong_count).unwrap_err();
    assert_eq!(e.line, Some(4));
    assert!(e.message.contains("makes 1000 files, not 999"), "{e}");
    let bad_rate = F10.replace("49583", "495x3");
    let e = parse(&bad_rate).unwrap_err();
    assert!(e.to_string().starts_with("line 4: '495x3'"), "{e}");
    let short = F10.replace("  4215 ", " ");
    assert_eq!(parse(&short).unwrap_err().line, Some(4));
    let header_only = &F10[..F10.find("A   10").unwrap()];
    assert_eq!(parse(header_only).unwrap_err().line, None);
    let bad_banner = F10.replace("File size is 1,", "File size is one,");
    assert_eq!(parse(&bad_banner).unwrap_err().line, Some(2));
}

#[test]
fn verbose_output_is_pointed_to_the_table() {
    let verbose = "\nFileop:  Working in /data/f, File size is 1,  Output is in Ops/sec. \
                   (A=Avg, B=Best, W=Worst)\n\
                   mkdir:   Dirs =        14 Total Time =  0.017869711 seconds\n\
                   \x20        Avg mkdir(s)/sec     =       783.45 ( 0.001276408 seconds/op)\n";
    assert!(looks_like(verbose));
    let e = parse(verbose).unwrap_err();
    assert!(e.message.contains("without -t"), "{e}");
}

#[test]
fn detection() {
    for text in [F10, L4_U6, E_F4, E_BEST_WORST, S4K] {
        assert!(looks_like(text));
    }
    assert!(!looks_like("Fileop:  Working in /x\n"));
}

#[test]
fn never_panics_on_damaged_tables() {
    never_panics(
        |text, _| parse(text).map(|_| Vec::new()),
        &[F10, L4_U6, E_BEST_WORST],
        3000,
    );
}
