//! Bad input: one line naming the problem, exit status 2, no file left behind.

use crate::common::{Mount, expect_bad_input, require_root};

fn assert_says(line: &str, needle: &str) {
    assert!(
        line.to_lowercase().contains(&needle.to_lowercase()),
        "expected '{needle}' in: {line}"
    );
}

#[test]
fn unparseable_sizes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (args, needle) in [
        (&["run", "32X"][..], "invalid size '32X'"),
        (&["run", "0"], "greater than zero"),
        (&["run", "-5"], "invalid size '-5'"),
        (&["run", "-s", "32X"], "invalid size '32X'"),
        (&["run", "-s", "0"], "greater than zero"),
        (&["run", "-s", "-5"], "invalid size '-5'"),
        (&["run", "-r", "4k,zz"], "invalid size 'zz'"),
        (&["run", "1", "0"], "greater than zero"),
    ] {
        assert_says(&expect_bad_input(d, args), needle);
    }
}

#[test]
fn a_label_with_a_comma_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let message = expect_bad_input(
        dir.path(),
        &["run", "-s", "4k", "-r", "4k", "-l", "DR8,DR9"],
    );
    assert_says(&message, "invalid value 'DR8,DR9' for '--label");
    assert_says(&message, "a label cannot hold a comma");
}

#[test]
fn record_larger_than_file_or_not_dividing_it() {
    let dir = tempfile::tempdir().unwrap();
    let line = expect_bad_input(dir.path(), &["run", "1", "2M"]);
    assert_says(&line, "record size 2 MiB is larger than the file (1 MiB)");
    let line = expect_bad_input(dir.path(), &["run", "-s", "100k", "-r", "64k"]);
    assert_says(&line, "not a whole number of 65536-byte records");
}

#[test]
fn unknown_test_cache_mode_or_engine() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    assert_says(
        &expect_bad_input(d, &["run", "-i", "frob"]),
        "unknown test 'frob'",
    );
    assert_says(
        &expect_bad_input(d, &["run", "-i", "7"]),
        "unknown test '7'",
    );
    let line = expect_bad_input(d, &["run", "--cache", "fast"]);
    assert_says(&line, "'fast'");
    assert_says(&line, "possible values: flush, buffered, direct, sync");
    let line = expect_bad_input(d, &["run", "--engine", "aio"]);
    assert_says(&line, "possible values: posix, pread, mmap, stdio");
}

#[test]
fn zero_threads_or_repetitions() {
    let dir = tempfile::tempdir().unwrap();
    assert_says(
        &expect_bad_input(dir.path(), &["run", "-s", "64k", "-t", "0"]),
        "--threads must be at least 1",
    );
    assert_says(
        &expect_bad_input(dir.path(), &["run", "-s", "64k", "-n", "0"]),
        "--repeat must be at least 1",
    );
    assert_says(
        &expect_bad_input(dir.path(), &["run", "-s", "64k", "-t", "100000"]),
        "--threads must be at most 256",
    );
    assert_says(
        &expect_bad_input(dir.path(), &["run", "-s", "4G", "-r", "2G"]),
        "record size 2 GiB is too large",
    );
    assert_says(
        &expect_bad_input(dir.path(), &["run", "-s", "64k", "-t", "99999999999"]),
        "invalid value",
    );
}

#[test]
fn missing_directory_or_a_file_instead() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope");
    let out = crate::common::iozone()
        .args(["run", "-s", "64k", "-d"])
        .arg(&missing)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("does not exist"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");

    let file = dir.path().join("plain");
    std::fs::write(&file, b"x").unwrap();
    let out = crate::common::iozone()
        .args(["run", "-s", "64k", "-d"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not a directory"));
}

#[test]
fn not_enough_free_space_is_checked_before_starting() {
    let dir = tempfile::tempdir().unwrap();
    let line = expect_bad_input(dir.path(), &["run", "-s", "1E", "-r", "64k"]);
    assert_says(&line, "not enough free space");
    assert_says(&line, "needs 1 EiB");
    // the threads' files count together
    let line = expect_bad_input(dir.path(), &["run", "-s", "512P", "-r", "64k", "-t", "4"]);
    assert_says(&line, "not enough free space");
}

#[test]
fn direct_io_refusals() {
    let dir = tempfile::tempdir().unwrap();
    let line = expect_bad_input(
        dir.path(),
        &[
            "run", "-s", "64k", "-r", "4k", "--cache", "direct", "--engine", "mmap",
        ],
    );
    assert_says(&line, "--engine mmap goes through the page cache");
    let line = expect_bad_input(
        dir.path(),
        &[
            "run", "-s", "64k", "-r", "4k", "--cache", "direct", "--engine", "stdio",
        ],
    );
    assert_says(&line, "--engine stdio");
}

#[test]
fn read_only_filesystem() {
    if !require_root("mount a read-only tmpfs") {
        return;
    }
    let mount = Mount::tmpfs("1m", "ro");
    let line = expect_bad_input(mount.path(), &["run", "-s", "64k"]);
    assert_says(&line, "read-only filesystem");
}

#[test]
fn not_enough_free_space_on_a_small_filesystem() {
    if !require_root("mount a small tmpfs") {
        return;
    }
    let mount = Mount::tmpfs("1m", "");
    let line = expect_bad_input(mount.path(), &["run", "-s", "2M", "-r", "64k"]);
    assert_says(&line, "not enough free space");
}

#[test]
fn direct_io_unsupported_by_the_filesystem() {
    if !require_root("mount a ramfs") {
        return;
    }
    let mount = Mount::ramfs();
    let line = expect_bad_input(
        mount.path(),
        &["run", "-s", "64k", "-r", "4k", "--cache", "direct"],
    );
    assert_says(&line, "does not support O_DIRECT");
}

#[test]
fn direct_io_with_an_unaligned_record_size() {
    if !require_root("mount an ext4 loop filesystem") {
        return;
    }
    let mount = Mount::ext4(16, "");
    let line = expect_bad_input(
        mount.path(),
        &["run", "-s", "1000000", "-r", "1000", "--cache", "direct"],
    );
    assert_says(&line, "O_DIRECT");
    assert_says(&line, "multiples of");
    assert_says(&line, "1000 is not");
}

/// Built without MPI and started by a launcher (mpirun, an MPICH mpiexec, srun) as one
/// of several ranks, each process would be a run of its own racing the others on one
/// directory: refused, naming the feature; as one rank it is a run as any.
#[cfg(not(feature = "mpi"))]
#[test]
fn a_build_without_mpi_under_a_launcher_of_several_ranks_refuses() {
    let dir = tempfile::tempdir().unwrap();
    for variable in ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_STEP_NUM_TASKS"] {
        let out = crate::common::iozone()
            .env(variable, "4")
            .args(["run", "-s", "64k", "-r", "64k", "-n", "1", "--warmup", "0"])
            .arg("--no-record")
            .arg("-d")
            .arg(dir.path())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{variable}: {stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
        assert_says(&stderr, "4 ranks");
        assert_says(&stderr, "`mpi` feature");
        crate::common::assert_no_leftovers(dir.path());
    }
    let out = crate::common::iozone()
        .env("OMPI_COMM_WORLD_SIZE", "1")
        .args(["run", "-s", "64k", "-r", "64k", "-n", "1", "--warmup", "0"])
        .arg("--no-record")
        .arg("-d")
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
