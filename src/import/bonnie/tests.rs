//! bonnie++'s CSV lines from real runs: a sequential and a random run per line,
//! `+++++` as too fast (never zero), `-x` lines as repetitions, what has no
//! counterpart refused in one line.

use super::super::text::testing::never_panics;
use super::*;

const N4: &str = include_str!("../../../tests/fixtures/metadata/bonnie-n4.csv");
const N4_TABLE: &str = include_str!("../../../tests/fixtures/metadata/bonnie-n4.txt");
const X2: &str = include_str!("../../../tests/fixtures/metadata/bonnie-n1-x2.csv");
const SIZED: &str = include_str!("../../../tests/fixtures/metadata/bonnie-n1-4096.csv");
const RANDOM_SIZES: &str =
    include_str!("../../../tests/fixtures/metadata/bonnie-n1-1024-4096-d4.csv");

fn rates(run: &OpsRun) -> Vec<(TestKind, u32, Rate)> {
    run.figures
        .iter()
        .map(|f| (f.test, f.repetition, f.rate))
        .collect()
}

#[test]
fn a_line_is_a_sequential_and_a_random_run_and_plus_signs_are_too_fast() {
    let runs = parse(N4).unwrap();
    assert_eq!(runs.len(), 2);
    let (seq, ran) = (&runs[0], &runs[1]);
    assert_eq!(seq.tool, "bonnie++");
    assert_eq!(seq.version.as_deref(), Some("2.00a"));
    assert_eq!(seq.hostname.as_deref(), Some("vm"));
    assert_eq!(seq.threads, 1);
    let tree = MetadataTree {
        files: 4096,
        dirs: 1,
        file_bytes: 0,
        shared_dir: false,
        random_order: false,
        warm: false,
    };
    assert_eq!(seq.tree, tree);
    assert_eq!(
        ran.tree,
        MetadataTree {
            random_order: true,
            ..tree
        }
    );
    assert_eq!(
        rates(seq),
        [
            (TestKind::Create, 1, Rate::PerSecond(2947.0)),
            (TestKind::Stat, 1, Rate::TooFast),
            (TestKind::Unlink, 1, Rate::TooFast),
        ]
    );
    assert!(rates(ran).iter().all(|(_, _, r)| *r == Rate::TooFast));
    assert!(seq.figures.iter().all(|f| f.ops == 4096));
    assert!(seq.remarks[0].contains("-b"), "{:?}", seq.remarks);
}

#[test]
fn lines_of_one_seed_are_repetitions_and_the_short_header_is_read_past() {
    let runs = parse(X2).unwrap();
    assert_eq!(runs.len(), 2);
    let creates: Vec<(u32, Rate)> = runs[0]
        .figures
        .iter()
        .filter(|f| f.test == TestKind::Create)
        .map(|f| (f.repetition, f.rate))
        .collect();
    assert_eq!(
        creates,
        [(1, Rate::PerSecond(442.0)), (2, Rate::PerSecond(331.0))]
    );
    assert_eq!(runs[1].figures.len(), 6);
    // two separate invocations differ in their seed: two pairs of runs
    let both = format!("{N4}{X2}");
    assert_eq!(parse(&both).unwrap().len(), 4);
}

#[test]
fn sized_files_are_read_by_the_stat_phase() {
    let runs = parse(SIZED).unwrap();
    assert_eq!(runs[0].tree.file_bytes, 4096);
    let tests: Vec<TestKind> = runs[0].figures.iter().map(|f| f.test).collect();
    assert_eq!(
        tests,
        [TestKind::Create, TestKind::Readfile, TestKind::Unlink]
    );
    assert_eq!(runs[0].figures[0].bytes, 1024 * 4096);
    assert_eq!(runs[1].figures[2].rate, Rate::PerSecond(1768.0));
}

#[test]
fn the_older_layout_without_seek_columns_is_read() {
    let line = "1.96,1.96,perfkit-7b22f510-0,1,1421800799,7423M,,,,72853,15,47358,5,,,\
                156821,7,537.7,10,100,,,,,49223,58,+++++,+++,54405,53,2898,97,+++++,+++,\
                59089,60,,512ms,670ms,,44660us,200ms,3747us,1759us,1643us,33518us,192us,839us\n";
    let runs = parse(line).unwrap();
    assert_eq!(runs[0].tree.files, 100 * 1024);
    assert_eq!(
        rates(&runs[0]),
        [
            (TestKind::Create, 1, Rate::PerSecond(49223.0)),
            (TestKind::Stat, 1, Rate::TooFast),
            (TestKind::Unlink, 1, Rate::PerSecond(54405.0)),
        ]
    );
    assert_eq!(runs[1].figures[0].rate, Rate::PerSecond(2898.0));
}

#[test]
fn what_has_no_counterpart_is_refused_in_one_line() {
    let e = parse(RANDOM_SIZES).unwrap_err();
    assert_eq!(e.line, Some(1));
    assert!(e.message.contains("random sizes from 1024 to 4096"), "{e}");
    let links = N4.replace(",4,,,,,2947", ",4,link,,,,2947");
    assert!(parse(&links).unwrap_err().message.contains("links"));
    let uneven = N4.replace(",4,,,,,2947", ",4,,,3,,2947");
    assert!(
        parse(&uneven)
            .unwrap_err()
            .message
            .contains("over 3 directories")
    );
}

#[test]
fn the_human_table_is_pointed_to_the_csv_line() {
    assert!(looks_like(N4_TABLE));
    let e = parse(N4_TABLE).unwrap_err();
    assert_eq!(e.line, None);
    assert!(e.message.contains("import its CSV line"), "{e}");
    // beside the CSV line (stdout and stderr in one file), the table is read past
    let both = format!("{N4_TABLE}{N4}");
    assert_eq!(parse(&both).unwrap().len(), 2);
}

#[test]
fn damaged_lines_name_their_line() {
    let bad = N4.replace("2947", "29x7");
    let e = parse(&bad).unwrap_err();
    assert_eq!(e.line, Some(1));
    assert!(e.message.contains("'29x7'"), "{e}");
    let short = &N4[..N4.find(",+++++,+++,+++++,+++,+++++,+++,+++++").unwrap()];
    assert!(parse(short).unwrap_err().message.contains("too few"));
    let io_only =
        "1.98,2.00a,vm,1,1,2G,,,,100,1,200,2,,,300,3,10.0,1,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,\n";
    assert_eq!(parse(io_only).unwrap_err().line, None);
}

#[test]
fn detection() {
    for text in [N4, X2, SIZED, RANDOM_SIZES] {
        assert!(looks_like(text));
    }
    assert!(!looks_like("1.5,2,3\n"));
}

#[test]
fn never_panics_on_damaged_lines() {
    never_panics(
        |text, _| parse(text).map(|_| Vec::new()),
        &[N4, X2, SIZED],
        3000,
    );
}
