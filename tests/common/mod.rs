//! Helpers shared by the end-to-end tests: the binary, leftover-file checks, and
//! small throwaway mounts for the scenarios that need a filesystem of their own.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

use tempfile::TempDir;

/// A database shared by the tests that do not look at what was recorded, so that
/// nothing a test records lands in the user's own history.
fn scratch_db() -> &'static Path {
    static DIR: std::sync::OnceLock<TempDir> = std::sync::OnceLock::new();
    DIR.get_or_init(|| tempfile::tempdir().unwrap()).path()
}

/// The `iozone` binary, with colour and environment settled for stable output.
pub fn iozone() -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::cargo_bin("iozone").expect("binary is built");
    cmd.env("NO_COLOR", "1")
        .env("IOZONE_DB", scratch_db().join("scratch.db"));
    cmd
}

/// The same binary as a plain `std::process::Command`, for tests that signal it.
pub fn iozone_process() -> Command {
    let mut cmd = Command::new(assert_cmd::cargo::cargo_bin("iozone"));
    cmd.env("NO_COLOR", "1")
        .env("IOZONE_DB", scratch_db().join("scratch.db"));
    cmd
}

/// `iozone ARGS` on the database `db`, which must succeed; returns stdout.
pub fn db_stdout(db: &Path, args: &[&str]) -> String {
    let out = iozone().env("IOZONE_DB", db).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Runs `iozone ARGS -d DIR` to the end.
pub fn run_in(dir: &Path, args: &[&str]) -> std::process::Output {
    iozone().args(args).arg("-d").arg(dir).output().unwrap()
}

/// Runs `iozone ARGS --format json -q -d DIR`, which must succeed; returns the run.
pub fn run_json_in(dir: &Path, args: &[&str]) -> serde_json::Value {
    let out = run_in(dir, &[args, &["--format", "json", "-q"]].concat());
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    json(&out.stdout)
}

/// Asserts that a JSON object has every one of `keys` (null counts: it is documented).
pub fn assert_has_keys(object: &serde_json::Value, what: &str, keys: &[&str]) {
    for key in keys {
        assert!(
            object.get(key).is_some(),
            "missing {what}.{key} in {object}"
        );
    }
}

/// Test files a run left behind in `dir`.
pub fn leftovers(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| {
                    p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with("iozone-"))
                })
                .collect()
        })
        .unwrap_or_default()
}

pub fn assert_no_leftovers(dir: &Path) {
    let left = leftovers(dir);
    assert!(left.is_empty(), "test files left behind: {left:?}");
}

/// Runs `iozone` expecting exit status 2 and one line on stderr; returns that line.
/// A usage error clap caught is its whole message instead (the line, what it expected,
/// the usage, the pointer to `--help`), returned whole.
pub fn expect_bad_input(dir: &Path, args: &[&str]) -> String {
    let out = run_in(dir, args);
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(
        out.status.code(),
        Some(2),
        "{args:?} should exit 2; stderr: {stderr}"
    );
    assert!(!stderr.contains("panicked"), "{args:?} panicked: {stderr}");
    assert_no_leftovers(dir);
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    if is_usage_error(&stderr) {
        return stderr;
    }
    assert_eq!(
        lines.len(),
        1,
        "{args:?}: expected one line, got {stderr:?}"
    );
    lines[0].to_string()
}

/// Whether stderr is clap's message for a command line it refused: `error: …` first,
/// its pointer to `--help` last.
pub fn is_usage_error(stderr: &str) -> bool {
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    lines.first().is_some_and(|l| l.starts_with("error: "))
        && lines.last().is_some_and(|l| {
            l.starts_with("For more information, try '") && l.ends_with("--help'.")
        })
}

/// Whether this process may mount filesystems. Tests that need it call
/// [`require_root`], which fails loudly instead of passing when it cannot.
pub fn is_root() -> bool {
    rustix::process::geteuid().is_root()
}

/// Fails the test unless running as root, or returns false (with a loud line on
/// stderr) when `IOZONE_SKIP_ROOT_TESTS=1` explicitly allows skipping.
pub fn require_root(what: &str) -> bool {
    if is_root() {
        return true;
    }
    if std::env::var("IOZONE_SKIP_ROOT_TESTS").as_deref() == Ok("1") {
        eprintln!("SKIPPED (not root, IOZONE_SKIP_ROOT_TESTS=1): {what}");
        return false;
    }
    panic!(
        "this test needs root to {what}; run the tests as root (CI does), or set \
         IOZONE_SKIP_ROOT_TESTS=1 to skip the root-only tests knowingly"
    );
}

/// A filesystem mounted for one test, unmounted (and its backing file removed) on drop.
pub struct Mount {
    dir: TempDir,
    loop_image: Option<PathBuf>,
}

impl Mount {
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// A tmpfs of `size` (e.g. "8m") with extra mount options.
    pub fn tmpfs(size: &str, options: &str) -> Mount {
        let dir = tempfile::tempdir().unwrap();
        let mut opts = format!("size={size}");
        if !options.is_empty() {
            opts = format!("{opts},{options}");
        }
        run_ok(
            Command::new("mount")
                .args(["-t", "tmpfs", "-o", &opts, "tmpfs"])
                .arg(dir.path()),
        );
        Mount {
            dir,
            loop_image: None,
        }
    }

    /// A ramfs: page cache only, no O_DIRECT.
    pub fn ramfs() -> Mount {
        let dir = tempfile::tempdir().unwrap();
        run_ok(
            Command::new("mount")
                .args(["-t", "ramfs", "ramfs"])
                .arg(dir.path()),
        );
        Mount {
            dir,
            loop_image: None,
        }
    }

    /// An ext4 filesystem on a loop device backed by a sparse file of `mib` MiB.
    pub fn ext4(mib: u64, options: &str) -> Mount {
        let image = tempfile::Builder::new()
            .prefix("iozone-test-ext4-")
            .suffix(".img")
            .tempfile()
            .unwrap()
            .into_temp_path()
            .keep()
            .unwrap();
        std::fs::File::options()
            .write(true)
            .open(&image)
            .unwrap()
            .set_len(mib << 20)
            .unwrap();
        run_ok(Command::new("mkfs.ext4").args(["-q", "-F"]).arg(&image));
        let dir = tempfile::tempdir().unwrap();
        let mut opts = "loop".to_string();
        if !options.is_empty() {
            opts = format!("{opts},{options}");
        }
        run_ok(
            Command::new("mount")
                .args(["-o", &opts])
                .arg(&image)
                .arg(dir.path()),
        );
        Mount {
            dir,
            loop_image: Some(image),
        }
    }
}

impl Mount {
    /// Mounts a loop filesystem's image again with other `options` (ext4 changes no
    /// `data=` mode on a remount): the same files, a new loop device.
    pub fn remount(&self, options: &str) {
        let image = self.loop_image.as_ref().expect("a loop filesystem");
        run_ok(Command::new("umount").arg(self.dir.path()));
        run_ok(
            Command::new("mount")
                .args(["-o", &format!("loop,{options}")])
                .arg(image)
                .arg(self.dir.path()),
        );
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        // a filesystem just written (data=journal's commits, a run's process just gone)
        // can be busy for a moment: try again, then detach it lazily, so that no mount
        // outlives its test (the directory would be emptied and left mounted)
        let umount = |lazy: bool| {
            let mut cmd = Command::new("umount");
            if lazy {
                cmd.arg("-l");
            }
            cmd.arg(self.dir.path())
                .stderr(std::process::Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        };
        let unmounted = (0..20).any(|_| {
            umount(false) || {
                std::thread::sleep(std::time::Duration::from_millis(100));
                false
            }
        });
        if !unmounted {
            let _ = umount(true);
        }
        if let Some(image) = &self.loop_image {
            let _ = std::fs::remove_file(image);
        }
    }
}

fn run_ok(cmd: &mut Command) {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Parses `run --format json` output.
pub fn json(out: &[u8]) -> serde_json::Value {
    serde_json::from_slice(out)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(out)))
}

/// The test PostgreSQL server's URL: IOZONE_TEST_PG, else the server that
/// scripts/pg-test-server.sh starts (installing PostgreSQL as root if needed), so a
/// plain `cargo test` needs nothing else. Without either the test fails loudly,
/// unless IOZONE_SKIP_PG_TESTS=1 explicitly allows skipping.
pub fn pg_base_url(what: &str) -> Option<String> {
    if let Ok(url) = std::env::var("IOZONE_TEST_PG") {
        return Some(url);
    }
    if std::env::var("IOZONE_SKIP_PG_TESTS").as_deref() == Ok("1") {
        eprintln!("SKIPPED (no IOZONE_TEST_PG, IOZONE_SKIP_PG_TESTS=1): {what}");
        return None;
    }
    if let Some(url) = started_server() {
        return Some(url);
    }
    panic!(
        "this test needs a PostgreSQL server to {what}, and scripts/pg-test-server.sh could not \
         start one (it needs root): run `eval \"$(scripts/pg-test-server.sh)\"` first, or set \
         IOZONE_SKIP_PG_TESTS=1 to skip the PostgreSQL tests knowingly"
    );
}

/// Starts (or finds running) the project's throwaway server, once per test binary.
fn started_server() -> Option<String> {
    static URL: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    URL.get_or_init(|| {
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/pg-test-server.sh");
        let out = Command::new("bash").arg(script).output().ok()?;
        if !out.status.success() {
            return None;
        }
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .find_map(|l| l.strip_prefix("export IOZONE_TEST_PG="))
            .map(str::to_string)
    })
    .clone()
}

/// A database of its own on the test server, dropped when the test ends.
pub struct PgDb {
    pub url: String,
    base: String,
    name: String,
}

impl PgDb {
    pub fn new(what: &str) -> Option<PgDb> {
        let base = pg_base_url(what)?;
        let name = format!("iozone_e2e_{:016x}", rand::random::<u64>());
        let mut client = postgres::Client::connect(&base, postgres::NoTls).unwrap();
        client
            .batch_execute(&format!("CREATE DATABASE {name}"))
            .unwrap();
        let cut = base.rfind('/').expect("the test URL names a database");
        let url = format!("{}/{name}", &base[..cut]);
        Some(PgDb { url, base, name })
    }

    /// A client on this database, for planting and inspecting.
    pub fn client(&self) -> postgres::Client {
        postgres::Client::connect(&self.url, postgres::NoTls).unwrap()
    }
}

impl Drop for PgDb {
    fn drop(&mut self) {
        if let Ok(mut client) = postgres::Client::connect(&self.base, postgres::NoTls) {
            let _ = client.batch_execute(&format!(
                "DROP DATABASE IF EXISTS {} WITH (FORCE)",
                self.name
            ));
        }
    }
}

/// Spawns `cmd` (an `iozone run`) and returns once it says it is measuring, with the
/// rest of its stderr to read.
pub fn spawn_until_measuring(
    cmd: &mut Command,
) -> (
    std::process::Child,
    std::io::BufReader<std::process::ChildStderr>,
) {
    let (child, stderr, _) = spawn_until(cmd.stdout(std::process::Stdio::null()), "Measuring");
    (child, stderr)
}

/// Spawns `cmd` with its stderr piped and returns once a line of it holds `needle`:
/// the process, the rest of its stderr to read, and that line.
pub fn spawn_until(
    cmd: &mut Command,
    needle: &str,
) -> (
    std::process::Child,
    std::io::BufReader<std::process::ChildStderr>,
    String,
) {
    use std::io::BufRead;
    let mut child = cmd.stderr(std::process::Stdio::piped()).spawn().unwrap();
    let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    while !line.contains(needle) {
        line.clear();
        assert!(
            stderr.read_line(&mut line).unwrap() > 0,
            "the run ended before saying '{needle}'"
        );
    }
    (child, stderr, line)
}

/// Waits for `child` to exit, at most two minutes (then kills it and fails, saying
/// `what` did not happen): a bound against a hang, not a timing.
pub fn wait_bounded(child: &mut std::process::Child, what: &str) -> std::process::ExitStatus {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("{what}");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// A recorded run of one test at `level` bytes/s (± a small deterministic wobble).
pub fn planted(host: &str, day: i64, level: f64) -> iozone::model::Run {
    use chrono::{Duration, Utc};
    use iozone::model::*;
    use iozone::units::ByteSize;
    use std::collections::BTreeMap;

    let started_at = Utc::now() - Duration::days(100 - day);
    let wobble = [1.0, 0.985, 1.02, 0.99, 1.01, 0.98, 1.015][(day % 7) as usize];
    Run {
        id: None,
        uuid: uuid::Uuid::new_v4(),
        started_at,
        finished_at: Some(started_at + Duration::seconds(10)),
        status: RunStatus::Complete,
        labels: vec![],
        tags: BTreeMap::new(),
        note: None,
        tool_version: "0.1.0".into(),
        params: Params {
            engines: vec![EngineKind::Posix],
            caches: vec![CacheMode::Flush],
            iodepth: 1,
            threads: 1,
            file_sizes: vec![ByteSize(32 << 20)],
            record_sizes: vec![ByteSize(4096)],
            tests: vec![TestKind::Write],
            repeat: 3,
            warmup: 0,
            order: RoundOrder::Grouped,
            repeat_auto: None,
            seed: Some(1),
            auto: false,
            verify: false,
            read_pct: Some(50),
            stride_records: Some(17),
            latency: false,
            dir: Some("/srv".into()),
        },
        host: Host {
            hostname: Some(host.into()),
            ..Host::default()
        },
        filesystem: Filesystem {
            fs_type: Some("ext4".into()),
            mount_point: Some("/srv".into()),
            ..Filesystem::default()
        },
        source: None,
        state_at_start: None,
        state_at_end: None,
        process: None,
        warmup: Vec::new(),
        results: (1..=3)
            .map(|repetition| Measurement {
                test: TestKind::Write,
                file_size: ByteSize(32 << 20),
                record_size: ByteSize(4096),
                repetition,
                bytes: 32 << 20,
                elapsed_ns: 1,
                throughput: level * wobble * (1.0 + 0.002 * repetition as f64),
                latency_ns: None,
                engine: EngineKind::Posix,
                cache: CacheMode::Flush,
            })
            .collect(),
    }
}

/// A recorded run of `planted`'s kind measuring every one of `tests` at every one of
/// `file_sizes` × `record_sizes` (three repetitions each, at `level` bytes/s with the
/// row's own wobble), in `mount_point` (also its directory), with `state` as the machine's
/// at its start: a comparison of many rows, as a real sweep makes one.
pub fn planted_sweep(
    host: &str,
    day: i64,
    level: f64,
    mount_point: &str,
    sweep: (&[iozone::model::TestKind], &[u64], &[u64]),
    state: Option<iozone::model::MachineState>,
) -> iozone::model::Run {
    use iozone::model::Measurement;
    use iozone::units::ByteSize;

    let (tests, file_sizes, record_sizes) = sweep;
    let mut run = planted(host, day, level);
    let template = run.results[0].clone();
    run.results = Vec::new();
    for (f, &file_size) in file_sizes.iter().enumerate() {
        for (r, &record_size) in record_sizes.iter().enumerate() {
            // each row strays from run to run by its own amount: rows differ in noise
            let row = (f * record_sizes.len() + r) as f64;
            let wobble = 1.0
                + [0.0, -1.5, 2.0, -1.0, 1.0, -2.0, 1.5][(day % 7) as usize]
                    * (0.01 + 0.0013 * row);
            for repetition in 1..=3 {
                for &test in tests {
                    run.results.push(Measurement {
                        test,
                        file_size: ByteSize(file_size),
                        record_size: ByteSize(record_size),
                        repetition,
                        bytes: file_size,
                        throughput: level * wobble * (1.0 + 0.002 * f64::from(repetition)),
                        ..template.clone()
                    });
                }
            }
        }
    }
    run.params.tests = tests.to_vec();
    run.params.file_sizes = file_sizes.iter().copied().map(ByteSize).collect();
    run.params.record_sizes = record_sizes.iter().copied().map(ByteSize).collect();
    run.params.dir = Some(mount_point.into());
    run.filesystem.mount_point = Some(mount_point.into());
    run.host.cpus = Some(2);
    run.state_at_start = state;
    run
}
