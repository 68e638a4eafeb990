//! The binary, commands on a database, and what their output must be: JSON, one line
//! of a refusal, clap's message for a usage error, no test file left behind; and the
//! fixtures.

use std::ffi::OsStr;
use std::fmt::Debug;
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

/// `iozone ARGS` on the database `db` (a SQLite file, or a PostgreSQL URL, as
/// `IOZONE_DB` and `--db` take it): its exit status, stdout and stderr. The one way a
/// test runs a command on a database of its own.
pub fn on<A: AsRef<OsStr> + Debug>(
    db: impl AsRef<OsStr>,
    args: &[A],
) -> (Option<i32>, String, String) {
    let out = iozone().env("IOZONE_DB", db).args(args).output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `iozone ARGS` on the database `db`, which must succeed; its stdout, which must be
/// UTF-8.
pub fn ok<A: AsRef<OsStr> + Debug>(db: impl AsRef<OsStr>, args: &[A]) -> String {
    let out = iozone().env("IOZONE_DB", db).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("stdout is UTF-8")
}

/// `iozone compare --format json ARGS` on `db`, which must succeed: the comparison.
pub fn compare_json(db: impl AsRef<OsStr>, args: &[&str]) -> serde_json::Value {
    json(ok(db, &[&["compare", "--format", "json"], args].concat()).as_bytes())
}

/// A file under `tests/fixtures/`.
pub fn fixture(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(path)
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

/// Parses `run --format json` output.
pub fn json(out: &[u8]) -> serde_json::Value {
    serde_json::from_slice(out)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(out)))
}
