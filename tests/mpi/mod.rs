//! Many clients under `mpirun` (built with the feature `mpi`), and once under Slurm's
//! `srun` (scripts/slurm-test-cluster.sh): four ranks on this machine measure together
//! and rank 0 records one run. One job at a time (the machine's cores are the ranks'),
//! each bounded against a hang. Ranks that must look like other hosts run in UTS and
//! mount namespaces of their own (`unshare`), each with its host name and its own
//! filesystem mounted on the measured directory.

mod faults;
mod hosts;
mod together;

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::Mutex;

use serde_json::Value;

/// One `mpirun` at a time: four ranks each already share two cores.
static ONE_JOB: Mutex<()> = Mutex::new(());

/// `mpirun` of `np` ranks, each running `program` (the rest of the command line, the
/// binary's path first), on the database `db`: as root, oversubscribed, without colour.
pub fn mpirun(np: u32, db: &Path, program: &[&str]) -> Command {
    let mut cmd = Command::new("mpirun");
    cmd.args([
        "--allow-run-as-root",
        "--oversubscribe",
        "-np",
        &np.to_string(),
    ])
    .args(["-x", "IOZONE_DB", "-x", "NO_COLOR"])
    .args(program)
    .env("IOZONE_DB", db)
    .env("NO_COLOR", "1")
    .stdin(Stdio::null());
    cmd
}

/// `srun` of `np` tasks on the test Slurm cluster (PMIx, as Open MPI needs), each
/// running `program`, on the database `db`; `None` (said loudly) where the cluster
/// cannot be had and IOZONE_SKIP_SLURM_TESTS=1 allows it.
pub fn srun(np: u32, db: &Path, program: &[&str]) -> Option<Command> {
    let conf = slurm_conf()?;
    let mut cmd = Command::new("srun");
    cmd.args(["--mpi=pmix", "--overcommit", "-n", &np.to_string()])
        .args(program)
        .env("SLURM_CONF", conf)
        .env("IOZONE_DB", db)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null());
    Some(cmd)
}

/// The test Slurm cluster's configuration: SLURM_CONF, else the one
/// scripts/slurm-test-cluster.sh starts (as root, installing Slurm if needed).
fn slurm_conf() -> Option<String> {
    if let Ok(conf) = std::env::var("SLURM_CONF") {
        return Some(conf);
    }
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/slurm-test-cluster.sh");
    let out = Command::new("bash").arg(script).output().ok();
    let started = out.as_ref().filter(|o| o.status.success()).and_then(|o| {
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .find_map(|l| l.strip_prefix("export SLURM_CONF="))
            .map(str::to_string)
    });
    if started.is_some() {
        return started;
    }
    if std::env::var("IOZONE_SKIP_SLURM_TESTS").as_deref() == Ok("1") {
        eprintln!("SKIPPED (no Slurm cluster, IOZONE_SKIP_SLURM_TESTS=1): launch with srun");
        return None;
    }
    panic!(
        "this test launches with srun and scripts/slurm-test-cluster.sh could not start a \
         cluster (it needs root): {}; set IOZONE_SKIP_SLURM_TESTS=1 to skip it knowingly",
        out.map_or_else(
            || "bash did not start".into(),
            |o| { String::from_utf8_lossy(&o.stderr).trim().to_string() }
        )
    );
}

/// The binary's path, as `mpirun` starts it.
pub fn binary() -> String {
    assert_cmd::cargo::cargo_bin("iozone").display().to_string()
}

/// A job run to its end (at most two minutes): its output, one job at a time.
pub fn finished(mut cmd: Command) -> Output {
    let _one = ONE_JOB.lock().unwrap_or_else(|p| p.into_inner());
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let drain = |mut pipe: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut all = Vec::new();
            pipe.read_to_end(&mut all).unwrap();
            all
        })
    };
    let stdout = drain(Box::new(child.stdout.take().unwrap()));
    let stderr = drain(Box::new(child.stderr.take().unwrap()));
    let status = crate::common::wait_bounded(&mut child, "the MPI job ended");
    Output {
        status,
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
    }
}

/// `iozone run` of four ranks on `dir` with `extra` arguments after [`TINY`] ones,
/// which must succeed; the run rank 0 recorded, as `show --format json` gives it.
pub fn recorded_run(db: &Path, dir: &Path, extra: &[&str]) -> Value {
    recorded_run_of(db, dir, &TINY, extra)
}

/// [`recorded_run`] with `sizes` instead of [`TINY`]'s.
pub fn recorded_run_of(db: &Path, dir: &Path, sizes: &[&str], extra: &[&str]) -> Value {
    let bin = binary();
    let mut program = vec![bin.as_str(), "run"];
    program.extend(sizes);
    program.extend(["-d", dir.to_str().unwrap()]);
    program.extend(extra);
    let out = finished(mpirun(4, db, &program));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    crate::common::assert_no_leftovers(dir);
    shown(db, "latest")
}

/// Small sizes, two rounds after a warm-up: every figure there is, quickly.
pub const TINY: [&str; 8] = ["-s", "256k", "-r", "64k", "-n", "2", "--warmup", "1"];

/// `show RUN --format json` on `db`.
pub fn shown(db: &Path, run: &str) -> Value {
    crate::common::json(crate::common::ok(db, &["show", run, "--format", "json"]).as_bytes())
}

/// Each measurement of `run` (measured and warm-up rounds) with its ranks' figures.
pub fn with_ranks(run: &Value) -> Vec<(&Value, &Vec<Value>)> {
    let figures = run["cluster"]["figures"]
        .as_array()
        .expect("figures per rank");
    let of = |m: &Value, warmup: bool| {
        let same = |f: &&Value| {
            [
                "test",
                "file_size",
                "record_size",
                "repetition",
                "engine",
                "cache",
            ]
            .iter()
            .all(|k| f[k] == m[k])
                && f["warmup"] == warmup
        };
        let found = figures
            .iter()
            .find(same)
            .unwrap_or_else(|| panic!("no ranks for {m}"));
        found["ranks"].as_array().unwrap()
    };
    let measured = run["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m, of(m, false)));
    let warmup = run["warmup"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m, of(m, true)));
    measured.chain(warmup).collect()
}
