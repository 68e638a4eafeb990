//! Runs measured for a test: quick, quiet (`-q`) and recorded into the test's own
//! database, built up from the size the test needs of them, then recorded:
//!
//! ```ignore
//! Measure::small(&db, dir).label("a").tests("write").record();
//! let run = Measure::tiny(&db, dir).warmup(0).json();
//! ```

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{json, on};

/// `iozone run -q` into a database, measuring in a directory.
#[must_use = "a run is measured by record(), json() or outcome()"]
pub struct Measure {
    db: OsString,
    dir: PathBuf,
    /// The options a setter replaces, in the order they were first set.
    options: Vec<(&'static str, String)>,
    /// Arguments after them, as given.
    args: Vec<String>,
}

impl Measure {
    /// A run with iozone's defaults, sized only by what the test adds.
    pub fn new(db: impl AsRef<OsStr>, dir: &Path) -> Measure {
        Measure {
            db: db.as_ref().to_owned(),
            dir: dir.to_path_buf(),
            options: Vec::new(),
            args: Vec::new(),
        }
    }

    /// A run `compare` can judge: 256 KiB files in 64 KiB records, five repetitions,
    /// through the page cache (quick, and steady enough for a verdict).
    pub fn small(db: impl AsRef<OsStr>, dir: &Path) -> Measure {
        Measure::new(db, dir)
            .size("256k")
            .records("64k")
            .repeat(5)
            .cache("buffered")
    }

    /// A run recorded only to be there: 64 KiB files in 4 KiB records, one repetition.
    pub fn tiny(db: impl AsRef<OsStr>, dir: &Path) -> Measure {
        Measure::new(db, dir).size("64k").records("4k").repeat(1)
    }

    fn set(mut self, flag: &'static str, value: impl ToString) -> Measure {
        let value = value.to_string();
        match self.options.iter_mut().find(|(f, _)| *f == flag) {
            Some(option) => option.1 = value,
            None => self.options.push((flag, value)),
        }
        self
    }

    /// `-s`: the file size (or sizes).
    pub fn size(self, size: &str) -> Measure {
        self.set("-s", size)
    }

    /// `-r`: the record size (or sizes).
    pub fn records(self, records: &str) -> Measure {
        self.set("-r", records)
    }

    /// `-n`: the repetitions.
    pub fn repeat(self, repeat: u32) -> Measure {
        self.set("-n", repeat)
    }

    /// `--warmup`: the warm-up rounds.
    pub fn warmup(self, rounds: u32) -> Measure {
        self.set("--warmup", rounds)
    }

    /// `--cache`: the cache mode (or modes).
    pub fn cache(self, cache: &str) -> Measure {
        self.set("--cache", cache)
    }

    /// `-i`: the tests.
    pub fn tests(self, tests: &str) -> Measure {
        self.set("-i", tests)
    }

    /// `-l`: a label more.
    pub fn label(self, label: &str) -> Measure {
        self.args(&["-l", label])
    }

    /// Any other arguments, after the options above.
    pub fn args(mut self, args: &[&str]) -> Measure {
        self.args.extend(args.iter().map(|a| a.to_string()));
        self
    }

    /// The whole command line, `run -q … -d DIR`.
    pub fn command_line(&self) -> Vec<String> {
        let mut line = vec!["run".to_string(), "-q".to_string()];
        for (flag, value) in &self.options {
            line.extend([flag.to_string(), value.clone()]);
        }
        line.extend(self.args.iter().cloned());
        line.extend(["-d".to_string(), self.dir.display().to_string()]);
        line
    }

    /// Runs it: exit status, stdout, stderr.
    pub fn outcome(&self) -> (Option<i32>, String, String) {
        on(&self.db, &self.command_line())
    }

    /// Runs it, which must succeed.
    pub fn record(&self) {
        self.recorded();
    }

    /// Runs it with `--format json`, which must succeed: the run as it printed it.
    pub fn json(self) -> Value {
        json(self.args(&["--format", "json"]).recorded().as_bytes())
    }

    fn recorded(&self) -> String {
        let (code, stdout, stderr) = self.outcome();
        assert_eq!(code, Some(0), "{:?}: {stderr}", self.command_line());
        stdout
    }
}
