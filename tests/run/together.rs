//! Workers of one process as iozone3's throughput mode has them: sharing one file, each
//! its region (`--shared-file`), and stopping as the first one finishes
//! (`--stonewall`), after which the tests that follow still find the whole file.

use crate::common::{Measure, Scene, assert_no_leftovers};

#[test]
fn threads_sharing_one_file_each_write_and_read_back_their_region() {
    let scene = Scene::new();
    let run = Measure::new(&scene.db, scene.dir.path())
        .size("256k")
        .records("64k")
        .repeat(1)
        .warmup(0)
        .tests("0,1,2")
        .args(&["-t", "3", "--shared-file", "--verify"])
        .json();
    assert_eq!(run["params"]["shared_file"], true);
    for m in run["results"].as_array().unwrap() {
        assert_eq!(m["bytes"], 3 * (256 << 10), "{m}");
    }
    assert_no_leftovers(scene.dir.path());
}

#[test]
fn a_stonewalled_phase_counts_what_was_moved_and_the_next_finds_the_whole_file() {
    let scene = Scene::new();
    let full = 3 * (4u64 << 20);
    let run = Measure::new(&scene.db, scene.dir.path())
        .size("4M")
        .records("4k")
        .repeat(2)
        .warmup(0)
        .cache("buffered")
        .tests("0,1")
        .args(&["-t", "3", "--stonewall", "--verify"])
        .json();
    assert_eq!(run["params"]["stonewall"], true);
    for m in run["results"].as_array().unwrap() {
        let bytes = m["bytes"].as_u64().unwrap();
        // the first worker moved its whole file; the others what they had by then
        assert!((4 << 20..=full).contains(&bytes), "{m}");
        assert_eq!(bytes % 4096, 0, "{m}");
    }
    // --verify read every record back: the writes the wall cut short were finished
    assert_no_leftovers(scene.dir.path());
    let shown = scene.ok(&["show", "latest"]);
    assert!(
        shown.contains("3 threads, seed") && shown.contains(", stonewall"),
        "{shown}"
    );
}
