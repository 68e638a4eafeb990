//! Ranks that look like other hosts: each started in UTS and mount namespaces of its
//! own (`unshare`), with its host name and its own filesystem mounted on the measured
//! directory. Distinct hosts are recorded, warned about and listed; a rank on another
//! type of filesystem, or that does not see the file rank 0 shares, is refused.

use std::path::Path;
use std::process::Output;

use super::{TINY, binary, finished, mpirun, shown};
use crate::common::{Scene, assert_no_leftovers, compare_json, require_root};

/// Four ranks, rank r as host `client-r` with `mounts[r]` (`mount` arguments before
/// the directory) mounted on `dir` in its own namespace, each running `iozone run`
/// on `dir` with `extra` arguments.
fn as_hosts(db: &Path, dir: &Path, mounts: [&str; 4], extra: &[&str]) -> Output {
    let cases: String = (mounts.iter().enumerate())
        .map(|(rank, m)| format!("{rank}) m='{m}';; "))
        .collect();
    let script = format!(
        "case $OMPI_COMM_WORLD_RANK in {cases}esac; hostname client-$OMPI_COMM_WORLD_RANK \
         && mount $m '{}' && exec \"$@\"",
        dir.display()
    );
    let bin = binary();
    let mut program = vec!["unshare", "--uts", "--mount", "--propagation", "private"];
    program.extend(["sh", "-c", &script, "sh", &bin, "run"]);
    program.extend(TINY);
    program.extend(["-d", dir.to_str().unwrap()]);
    program.extend(extra);
    finished(mpirun(4, db, &program))
}

const TMPFS_8M: &str = "-t tmpfs -o size=8m tmpfs";
const TMPFS_16M: &str = "-t tmpfs -o size=16m tmpfs";

#[test]
fn ranks_on_distinct_hosts_are_recorded_warned_about_and_listed() {
    if !require_root("start ranks in namespaces of their own") {
        return;
    }
    // the database outside the directory each rank mounts over
    let (scene, dir) = (Scene::new(), tempfile::tempdir().unwrap());
    let out = as_hosts(
        &scene.db,
        dir.path(),
        [TMPFS_8M, TMPFS_8M, TMPFS_16M, TMPFS_8M],
        &[],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("warning: the hosts differ: client-2: mount options"),
        "{stderr}"
    );
    let run = shown(&scene.db, "latest");
    let hosts: Vec<&str> = (run["params"]["hosts"].as_array().unwrap().iter())
        .map(|h| h.as_str().unwrap())
        .collect();
    assert_eq!(hosts, ["client-0", "client-1", "client-2", "client-3"]);
    let facts = run["cluster"]["hosts"].as_array().unwrap();
    assert_eq!(facts.len(), 4);
    assert!(facts.iter().all(|h| h["filesystem"]["type"] == "tmpfs"));
    assert_eq!(run["host"]["hostname"], "client-0");
    let shown = scene.ok(&["show", "latest"]);
    assert!(
        shown.contains("differs from rank 0's host: client-2: mount options"),
        "{shown}"
    );
    // a second run whose hosts all mount alike: compare names the hosts' difference
    let out = as_hosts(&scene.db, dir.path(), [TMPFS_8M; 4], &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let c = compare_json(&scene.db, &["latest~1", "latest"]);
    let changes = c["environment_changes"].as_array().unwrap();
    let options = changes
        .iter()
        .find(|c| c["field"] == "filesystem.mount_options")
        .unwrap_or_else(|| panic!("{changes:?}"));
    assert_eq!(
        options["baseline"].as_array().unwrap().len(),
        1,
        "{options}"
    );
    assert!(
        options["baseline"][0].as_str().unwrap().contains(", "),
        "{options}"
    );
    assert_no_leftovers(dir.path());
}

#[test]
fn a_rank_on_another_type_of_filesystem_is_refused_naming_it() {
    if !require_root("start ranks in namespaces of their own") {
        return;
    }
    let (scene, dir) = (Scene::new(), tempfile::tempdir().unwrap());
    let out = as_hosts(
        &scene.db,
        dir.path(),
        [TMPFS_8M, TMPFS_8M, TMPFS_8M, "-t ramfs ramfs"],
        &[],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    let said: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error:")).collect();
    assert_eq!(said.len(), 1, "{stderr}");
    assert!(
        said[0].starts_with("error: rank 3 on client-3: ")
            && said[0].contains("is ramfs there but tmpfs on rank 0 (client-0)"),
        "{stderr}"
    );
    assert_no_leftovers(dir.path());
    assert!(
        !scene.db.exists() || scene.history(&[]).is_empty(),
        "nothing recorded"
    );
}

#[test]
fn a_shared_file_another_rank_cannot_see_is_refused_naming_the_rank() {
    if !require_root("start ranks in namespaces of their own") {
        return;
    }
    let (scene, dir) = (Scene::new(), tempfile::tempdir().unwrap());
    let out = as_hosts(&scene.db, dir.path(), [TMPFS_8M; 4], &["--shared-file"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr
            .contains("error: rank 1 on client-1: does not see the file rank 0 (client-0) created"),
        "{stderr}"
    );
    assert_no_leftovers(dir.path());
}
