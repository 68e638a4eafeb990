//! Four ranks measuring together, each its own files or regions of one shared file:
//! one run recorded, whose figures are its ranks' own, every phase begun at once.

use serde_json::Value;

use super::{TINY, binary, finished, mpirun, recorded_run, recorded_run_of, shown, with_ranks};
use crate::common::{Scene, ok};

/// Every measurement's bytes are its ranks' bytes, its time from their earliest start
/// to their latest end, its throughput the one from the other two ("all done").
fn assert_aggregates_are_the_ranks(run: &Value, bytes_per_rank: u64) {
    let measurements = with_ranks(run);
    assert!(!measurements.is_empty());
    for (m, ranks) in measurements {
        assert_eq!(ranks.len(), 4, "{m}");
        let field = |r: &Value, k: &str| r[k].as_u64().unwrap();
        let bytes: u64 = ranks.iter().map(|r| field(r, "bytes")).sum();
        let start = ranks.iter().map(|r| field(r, "start_ns")).min().unwrap();
        let end = ranks.iter().map(|r| field(r, "end_ns")).max().unwrap();
        assert!(
            ranks.iter().all(|r| field(r, "bytes") == bytes_per_rank),
            "{m}"
        );
        assert_eq!(m["bytes"].as_u64(), Some(bytes), "{m}");
        assert_eq!(m["elapsed_ns"].as_u64(), Some(end - start), "{m}");
        let throughput = bytes as f64 * 1e9 / (end - start) as f64;
        assert_eq!(m["throughput"].as_f64(), Some(throughput), "{m}");
    }
}

/// The phases began on all ranks within a millisecond of the barrier that began them,
/// as the ranks' stored times say: in the median phase. Four ranks on a machine of two
/// cores (CI's) wait their turn now and then, and a rank the scheduler left waiting
/// after the barrier once began its phase 1.67 ms late; anything the tool did between
/// the barrier and the phase's first operation would make every phase late.
fn assert_phases_began_together(run: &Value) {
    let mut spreads: Vec<(u64, &Value)> = (with_ranks(run).into_iter())
        .map(|(m, ranks)| {
            let starts = ranks.iter().map(|r| r["start_ns"].as_u64().unwrap());
            let (first, last) = (starts.clone().min().unwrap(), starts.max().unwrap());
            (last - first, m)
        })
        .collect();
    assert!(spreads.len() >= 3, "{run}");
    spreads.sort_by_key(|(spread, _)| *spread);
    let (median, m) = &spreads[spreads.len() / 2];
    assert!(
        *median < 1_000_000,
        "{median} ns apart in the median phase: {m}"
    );
}

#[test]
fn four_ranks_each_on_its_own_files_record_one_run_of_their_figures() {
    let scene = Scene::new();
    let run = recorded_run(&scene.db, scene.dir.path(), &["-l", "four"]);
    let p = &run["params"];
    assert_eq!(p["clients"], 4);
    assert_eq!(p["hosts"].as_array().unwrap().len(), 4);
    assert!(p.get("shared_file").is_none(), "{p}");
    assert_eq!(run["status"], "complete");
    assert_eq!(run["cluster"]["hosts"].as_array().unwrap().len(), 1);
    assert_aggregates_are_the_ranks(&run, 256 << 10);
    assert_phases_began_together(&run);
    // one run in the history, which every reader takes
    assert_eq!(scene.history(&[]).len(), 1);
    let shown = scene.ok(&["show", "latest"]);
    for said in [
        "4 (MPI ranks) on 1 host",
        "all done",
        "rank sum",
        "slowest rank",
    ] {
        assert!(shown.contains(said), "{said}: {shown}");
    }
}

#[test]
fn four_ranks_sharing_one_file_each_write_their_region() {
    let scene = Scene::new();
    let run = recorded_run(
        &scene.db,
        scene.dir.path(),
        &["--shared-file", "--verify", "-i", "0,1,2"],
    );
    assert_eq!(run["params"]["shared_file"], true);
    assert_eq!(run["status"], "complete");
    assert_aggregates_are_the_ranks(&run, 256 << 10);
    assert_phases_began_together(&run);
}

#[test]
fn one_rank_records_what_a_run_without_mpirun_records() {
    let scene = Scene::new();
    let dir = scene.dir.path().to_str().unwrap();
    let args = [
        "run", "-s", "256k", "-r", "64k", "-n", "1", "--warmup", "0", "--seed", "42",
    ];
    let bin = binary();
    let mut program = vec![bin.as_str()];
    program.extend(args);
    program.extend(["-d", dir]);
    let out = finished(mpirun(1, &scene.db, &program));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let under_mpirun = shown(&scene.db, "latest");
    ok(&scene.db, &[&args[..], &["-d", dir]].concat());
    let alone = shown(&scene.db, "latest");
    assert_ne!(under_mpirun["uuid"], alone["uuid"]);
    // what differs between any two runs: their identity, times, machine and figures
    let kept = |run: &Value| {
        let mut run = run.clone();
        let o = run.as_object_mut().unwrap();
        for volatile in ["id", "uuid", "started_at", "finished_at", "state_at_start"] {
            o.remove(volatile);
        }
        for volatile in ["state_at_end", "process", "results", "warmup"] {
            o.remove(volatile);
        }
        o["filesystem"]
            .as_object_mut()
            .unwrap()
            .remove("free_bytes");
        run
    };
    assert_eq!(kept(&under_mpirun), kept(&alone));
    assert_eq!(under_mpirun["params"]["clients"], 1);
    assert!(under_mpirun.get("cluster").is_none());
    let figures = |run: &Value| {
        (run["results"].as_array().unwrap().iter())
            .map(|m| (m["test"].clone(), m["bytes"].clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(figures(&under_mpirun), figures(&alone));
}

/// Slurm's launcher, not only mpirun: four tasks of `srun --mpi=pmix` are four clients
/// of one run (its variables name the ranks; without them each task measured alone).
#[test]
fn four_tasks_of_srun_record_one_run_of_four_clients() {
    let scene = Scene::new();
    let bin = binary();
    let mut program = vec![bin.as_str(), "run"];
    program.extend(TINY);
    program.extend(["-d", scene.dir.path().to_str().unwrap()]);
    let Some(cmd) = super::srun(4, &scene.db, &program) else {
        return;
    };
    let out = finished(cmd);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(scene.history(&[]).len(), 1, "one run, not one per task");
    let run = shown(&scene.db, "latest");
    assert_eq!(run["params"]["clients"], 4, "{run}");
    assert_aggregates_are_the_ranks(&run, 256 * 1024);
    crate::common::assert_no_leftovers(scene.dir.path());
}

/// Processes a launcher started as four ranks that MPI does not join (srun without the
/// MPI library's plugin: each process a world of one) would each measure alone, racing
/// the others: refused, naming the way out. Here the launcher is srun's variables, set
/// by hand, and MPI a world of one.
#[test]
fn ranks_the_launcher_started_but_mpi_did_not_join_are_refused() {
    let scene = Scene::new();
    let out = scene
        .iozone()
        .env("SLURM_STEP_NUM_TASKS", "4")
        .env("SLURM_PROCID", "0")
        .args(["run", "-s", "64k", "-r", "64k", "-n", "1", "-d"])
        .arg(scene.dir.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    let said: Vec<&str> = stderr.lines().collect();
    assert_eq!(said.len(), 1, "{stderr}");
    assert!(
        said[0].contains("started 4 ranks but MPI sees 1") && said[0].contains("--mpi=pmix"),
        "{stderr}"
    );
    crate::common::assert_no_leftovers(scene.dir.path());
    assert!(!scene.db.exists(), "nothing recorded, no database made");
}

#[test]
fn stonewalled_ranks_stop_when_the_first_finishes_and_first_done_is_shown() {
    let scene = Scene::new();
    let sizes = ["-s", "4M", "-r", "4k", "-n", "2", "--warmup", "0"];
    let extra = ["--cache", "buffered", "--stonewall", "--verify"];
    let run = recorded_run_of(&scene.db, scene.dir.path(), &sizes, &extra);
    assert_eq!(run["params"]["stonewall"], true);
    for (m, ranks) in with_ranks(&run) {
        let bytes: Vec<u64> = ranks.iter().map(|r| r["bytes"].as_u64().unwrap()).collect();
        // one rank moved its whole file; no rank more
        assert!(bytes.iter().all(|&b| b <= 4 << 20), "{m}");
        assert!(bytes.contains(&(4 << 20)), "{bytes:?}: {m}");
        assert_eq!(m["bytes"].as_u64(), Some(bytes.iter().sum()), "{m}");
    }
    let shown = scene.ok(&["show", "latest"]);
    assert!(shown.contains("first done"), "{shown}");
}

#[test]
fn a_table_under_mpirun_has_no_colour_unless_asked() {
    // Open MPI gives ranks a pseudo-terminal for stdout, even when mpirun's stdout is a
    // pipe as here; tiny files measured three times make noisy cells, which colour marks
    let scene = Scene::new();
    let bin = binary();
    let dir = scene.dir.path().to_str().unwrap();
    let table = |color: &[&str]| {
        let mut cmd = mpirun(2, &scene.db, &[&bin, "run"]);
        cmd.args(["-s", "64k", "-r", "4k", "-n", "3", "--warmup", "0"])
            .args(["--no-record", "-d", dir])
            .args(color)
            .env_remove("NO_COLOR");
        let out = finished(cmd);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let plain = table(&[]);
    assert!(
        plain.contains("64 KiB") && !plain.contains('\x1b'),
        "{plain:?}"
    );
    let asked = table(&["--color", "always"]);
    assert!(asked.contains('\x1b'), "{asked:?}");
}

#[test]
fn metadata_tests_are_refused_for_many_ranks_and_measured_for_one() {
    let scene = Scene::new();
    let bin = binary();
    let dir = scene.dir.path().to_str().unwrap();
    let program = |np| {
        let args = ["run", "-i", "create,stat", "--files", "10", "-n", "1"];
        let mut program = vec![bin.as_str()];
        program.extend(args);
        program.extend(["--warmup", "0", "-d", dir]);
        finished(mpirun(np, &scene.db, &program))
    };
    let out = program(2);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    let said: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error:")).collect();
    assert_eq!(
        said,
        [
            "error: the metadata tests (create, stat) measure one client: run them without the \
          launcher, or with one rank"
        ],
        "{stderr}"
    );
    assert!(!scene.db.exists() || scene.history(&[]).is_empty());
    crate::common::assert_no_leftovers(scene.dir.path());
    let out = program(1);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(shown(&scene.db, "latest")["params"]["clients"], 1);
}
