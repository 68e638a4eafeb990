//! Where output goes and in which unit: `-o -`, filters that match nothing, `--units`.

use crate::common::Scene;

#[test]
fn report_and_export_write_to_stdout_with_dash() {
    let scene = Scene::new();
    scene.run(&["-l", "A"]);
    let html = scene.ok(&["report", "A", "-o", "-"]);
    assert!(
        html.starts_with("<!DOCTYPE html>"),
        "{}",
        &html[..html.len().min(200)]
    );
    assert!(
        !scene.dir.path().join("-").exists(),
        "a file named '-' was written"
    );
    let exported = scene.ok(&["export", "--format", "json", "-o", "-"]);
    assert_eq!(
        crate::common::json(exported.as_bytes())["runs"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    // to a file, the status line counts in words
    let file = scene.dir.path().join("runs.csv");
    let out = scene
        .iozone()
        .args(["export", "--format", "csv", "-o", file.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("Exported 1 run to"), "{err}");
}

#[test]
fn a_report_of_filters_that_match_nothing_is_an_error() {
    let scene = Scene::new();
    scene.run(&[]);
    let file = scene.dir.path().join("r.html");
    let out = scene
        .iozone()
        .args(["report", "--host", "nosuch", "-o", file.to_str().unwrap()])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("no complete run in"), "{err}");
    assert!(!file.exists(), "an empty report was written");
}

#[test]
fn units_apply_wherever_a_rate_is_printed() {
    let scene = Scene::new();
    // run -v: each measurement's line in the unit asked
    let out = scene
        .iozone()
        .args([
            "run", "-s", "64k", "-r", "4k", "-n", "1", "-v", "--units", "kB", "-l", "A", "-d",
        ])
        .arg(scene.dir.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let measured: Vec<&str> = err.lines().filter(|l| l.contains("Measured")).collect();
    assert!(!measured.is_empty(), "{err}");
    for line in measured {
        assert!(line.contains(" KiB/s"), "{line}");
        assert!(!line.contains("MiB/s"), "{line}");
    }
    // report: the charts' axes, notes and tips, and the comparison's table
    scene.run(&["-l", "B"]);
    let html = scene.ok(&["report", "A", "B", "--units", "kB", "-o", "-"]);
    assert!(html.contains("KiB/s"), "no KiB/s in the report");
    assert!(!html.contains("MiB/s"), "MiB/s left in a --units kB report");
    // by default the charts stay in MiB/s
    let html = scene.ok(&["report", "A", "B", "-o", "-"]);
    assert!(
        html.contains("in MiB/s"),
        "the default charts are not in MiB/s"
    );
}
