//! Faults of many clients: a rank that fails (no space left) or is killed stops the
//! job, rank 0 records the run failed naming the rank, its host and the error, and no
//! test file is left; Ctrl-C on the launcher records it aborted.

use std::process::{Command, Stdio};

use super::{binary, finished, mpirun, shown};
use crate::common::{Mount, Scene, assert_no_leftovers, require_root, spawn_until, wait_bounded};

/// A long run of four ranks on `dir`, which a test stops.
fn long_run(db: &std::path::Path, dir: &std::path::Path) -> Command {
    let bin = binary();
    let d = dir.to_str().unwrap();
    let program = [
        bin.as_str(),
        "run",
        "-v",
        "-s",
        "8M",
        "-r",
        "64k",
        "-n",
        "200",
        "-d",
        d,
    ];
    mpirun(4, db, &program)
}

/// The pid of rank `rank` of the job `mpirun` started.
fn rank_pid(mpirun: u32, rank: u32) -> u32 {
    let children = std::fs::read_to_string(format!("/proc/{mpirun}/task/{mpirun}/children"))
        .unwrap_or_default();
    let wanted = format!("OMPI_COMM_WORLD_RANK={rank}");
    (children.split_whitespace())
        .filter_map(|pid| pid.parse::<u32>().ok())
        .find(|pid| {
            let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
            environ.split(|&b| b == 0).any(|v| v == wanted.as_bytes())
        })
        .unwrap_or_else(|| panic!("no rank {rank} among {children:?}"))
}

#[test]
fn a_rank_killed_stops_the_job_and_the_run_is_recorded_failed_naming_it() {
    let scene = Scene::new();
    let mut cmd = long_run(&scene.db, scene.dir.path());
    // the ranks measure once rank 0 has a first figure of theirs
    let (mut job, _stderr, _) = spawn_until(cmd.stdout(Stdio::null()), "Measured");
    let victim = rank_pid(job.id(), 2);
    rustix::process::kill_process(
        rustix::process::Pid::from_raw(victim as i32).unwrap(),
        rustix::process::Signal::KILL,
    )
    .unwrap();
    let status = wait_bounded(&mut job, "the job stopped after a rank was killed");
    assert!(!status.success());
    let run = shown(&scene.db, "latest");
    assert_eq!(run["status"], "failed", "{run}");
    let failure = &run["cluster"]["failure"];
    assert_eq!(failure["rank"], 2, "{failure}");
    assert!(
        failure["error"].as_str().unwrap().contains("died"),
        "{failure}"
    );
    assert_no_leftovers(scene.dir.path());
}

#[test]
fn rank_0_killed_leaves_the_run_to_the_next_run_which_marks_it_aborted() {
    let scene = Scene::new();
    let _one = super::ONE_JOB.lock().unwrap_or_else(|p| p.into_inner());
    let mut cmd = long_run(&scene.db, scene.dir.path());
    let (mut job, _stderr, _) = spawn_until(cmd.stdout(Stdio::null()), "Measured");
    let ranks: Vec<u32> = (0..4).map(|rank| rank_pid(job.id(), rank)).collect();
    rustix::process::kill_process(
        rustix::process::Pid::from_raw(ranks[0] as i32).unwrap(),
        rustix::process::Signal::KILL,
    )
    .unwrap();
    let status = wait_bounded(&mut job, "the job stopped after rank 0 was killed");
    assert!(!status.success());
    // the launcher may leave before the other ranks have (and leave them zombies for
    // init to reap): the next run comes after they ended
    let gone = std::time::Instant::now();
    while ranks.iter().any(|&pid| iozone::process::is_running(pid)) {
        assert!(gone.elapsed().as_secs() < 30, "ranks {ranks:?} still alive");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // no one was left to mark it: shown aborted, as any run whose process is gone
    let run = shown(&scene.db, "1");
    assert_eq!(run["status"], "aborted", "{run}");
    // the next run (one process, no launcher) in the directory marks it for good and
    // removes what the dead rank 0 could not
    let next = scene
        .iozone()
        .args(["run", "-s", "64k", "-r", "4k", "-n", "1", "-d"])
        .arg(scene.dir.path())
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&next.stderr);
    assert!(next.status.success(), "{said}");
    assert!(said.contains("Marked run 1 aborted"), "{said}");
    let aborted = scene.history(&["--status", "aborted"]);
    assert_eq!(aborted.len(), 1, "{aborted:?}");
    assert_eq!(aborted[0]["id"], 1, "{aborted:?}");
    assert_no_leftovers(scene.dir.path());
}

#[test]
fn a_rank_out_of_space_stops_every_rank_and_is_named_with_its_error() {
    if !require_root("mount a tmpfs too small for four ranks' files") {
        return;
    }
    // room for each rank's file alone (its checks pass), not for all four
    let small = Mount::tmpfs("3m", "");
    let scene = Scene::new();
    let bin = binary();
    let d = small.path().to_str().unwrap();
    let program = [
        bin.as_str(),
        "run",
        "-s",
        "1M",
        "-r",
        "64k",
        "-n",
        "2",
        "-d",
        d,
    ];
    let out = finished(mpirun(4, &scene.db, &program));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    let said: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error:")).collect();
    assert_eq!(said.len(), 1, "{stderr}");
    assert!(
        said[0].contains(" on ") && said[0].contains("no space left on device"),
        "{stderr}"
    );
    let run = shown(&scene.db, "latest");
    assert_eq!(run["status"], "failed");
    let failure = &run["cluster"]["failure"];
    assert!(
        failure["error"].as_str().unwrap().contains("no space left"),
        "{failure}"
    );
    assert!(
        failure["host"].is_string() && failure["rank"].is_u64(),
        "{failure}"
    );
    assert!(
        run["results"].as_array().unwrap().is_empty(),
        "no partial figures"
    );
    assert_no_leftovers(small.path());
}

#[test]
fn ctrl_c_on_the_launcher_records_the_run_aborted_and_leaves_nothing() {
    let scene = Scene::new();
    let mut cmd = long_run(&scene.db, scene.dir.path());
    let (mut job, _stderr, _) = spawn_until(cmd.stdout(Stdio::null()), "Measured");
    rustix::process::kill_process(
        rustix::process::Pid::from_raw(job.id() as i32).unwrap(),
        rustix::process::Signal::INT,
    )
    .unwrap();
    let status = wait_bounded(&mut job, "the job stopped on Ctrl-C");
    assert!(!status.success());
    let run = shown(&scene.db, "latest");
    assert_eq!(run["status"], "aborted", "{run}");
    assert_no_leftovers(scene.dir.path());
}
