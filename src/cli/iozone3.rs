//! iozone3's command line typed into ours. Debian's `iozone3` package installs
//! `/usr/bin/iozone` too, so `iozone -a -s 1g -r 4k -i 0 -i 1` is a habit, not a typo:
//! when clap refuses a command line that opens with iozone3's flags, the answer is one
//! line saying which program this is, the `iozone run` that measures the same thing
//! (sizes read as iozone3 reads them: a bare `-r 512` is 512 KiB), and where iozone3
//! itself is when it is installed.

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::path::{Path, PathBuf};

use crate::units::ByteSize;

/// Where Debian's `iozone3` puts its program, looked at when `PATH` does not lead to
/// it (sudo's `secure_path`, a cron job's short `PATH`).
pub const DEBIAN_IOZONE3: &str = "/usr/bin/iozone";

/// iozone3's flags that take a value (the next argument, or the rest of this one).
const WITH_VALUE: &str = "bdfFgHijJklLnPqrsStuUVXyY";
/// iozone3's flags that take none.
const WITHOUT_VALUE: &str = "aABcCDeEGhIKmMNoOpQRTvwWxzZ";
/// `-+x` flags that take a value; every other `-+x` takes none.
const PLUS_WITH_VALUE: &str = "AbCHmPpqSWwxy";

/// What to say to iozone3's command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Iozone3Habit {
    /// `iozone run …`, measuring what the flags asked of iozone3.
    pub command: String,
    /// The flags (with their values) that nothing here does.
    pub untranslated: Vec<String>,
    /// iozone3's own program, when it is installed.
    pub iozone3: Option<PathBuf>,
}

impl fmt::Display for Iozone3Habit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "these are iozone3's flags, and this is iozone, the file I/O history tracker: \
             the same measurement here is `{}`",
            self.command
        )?;
        if !self.untranslated.is_empty() {
            write!(f, " (nothing here for {})", self.untranslated.join(", "))?;
        }
        match &self.iozone3 {
            Some(path) => write!(f, "; iozone3 itself is {}", path.display()),
            None => write!(f, "; iozone3 itself is not installed"),
        }
    }
}

/// The answer to `args` (without the program's name) when they open with iozone3's
/// flags, after any of our global flags; `None` for a command line of ours. For a line
/// clap refused: a valid one of ours is never taken for iozone3's.
pub fn recognise(args: impl IntoIterator<Item = OsString>) -> Option<Iozone3Habit> {
    let args: Vec<String> = args
        .into_iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let (command, untranslated) = translate(&args)?;
    let own = std::env::current_exe().ok();
    Some(Iozone3Habit {
        command,
        untranslated,
        iozone3: installed(
            std::env::var_os("PATH").as_deref(),
            own.as_deref(),
            Path::new(DEBIAN_IOZONE3),
        ),
    })
}

/// The first program named `iozone` on `path`, then `debian`, that is not this one
/// (`own`): iozone3, unless another copy of ours was installed beside it.
pub fn installed(path: Option<&OsStr>, own: Option<&Path>, debian: &Path) -> Option<PathBuf> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let identity = |p: &Path| std::fs::metadata(p).ok().map(|m| (m.dev(), m.ino()));
    let ours = own.and_then(identity);
    let on_path = path
        .map(|p| std::env::split_paths(p).collect::<Vec<_>>())
        .unwrap_or_default();
    (on_path.into_iter().map(|dir| dir.join("iozone")))
        .chain([debian.to_path_buf()])
        .find(|candidate| {
            let program = std::fs::metadata(candidate)
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0);
            program && identity(candidate) != ours
        })
}

/// One flag of iozone3's, with its value if it takes one.
#[derive(Debug)]
struct Flag {
    /// `a`, `s`, `+m`.
    name: String,
    values: Vec<String>,
}

impl Flag {
    /// As typed: `-s 1g`, `-+m cluster.txt`, or a stray word alone.
    fn typed(&self) -> String {
        (!self.name.is_empty())
            .then(|| format!("-{}", self.name))
            .into_iter()
            .chain(self.values.iter().cloned())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Our global flags, which may come before anything else (`iozone -q --db x.db …`).
fn skip_globals(args: &[String]) -> &[String] {
    let mut rest = args;
    while let Some(first) = rest.first() {
        let skip = match first.as_str() {
            "-q" | "--quiet" | "-v" | "--verbose" => 1,
            "--color" | "--db" | "--db-file" => 2,
            long if ["--color=", "--db=", "--db-file="]
                .iter()
                .any(|p| long.starts_with(p)) =>
            {
                1
            }
            _ => break,
        };
        rest = rest.get(skip..).unwrap_or_default();
    }
    rest
}

/// iozone3's flags in `args`, as getopt reads them: bundled (`-aI`), with a value
/// joined (`-s1g`) or next; `-F` takes every name up to the next flag. `None` when
/// the first argument is not one of iozone3's flags.
fn flags(args: &[String]) -> Option<Vec<Flag>> {
    let mut out = Vec::new();
    let mut rest = args.iter().peekable();
    let opens = args.first()?;
    let letter = opens.strip_prefix('-')?.chars().next()?;
    if !(letter == '+' || WITH_VALUE.contains(letter) || WITHOUT_VALUE.contains(letter)) {
        return None;
    }
    while let Some(arg) = rest.next() {
        let Some(body) = arg.strip_prefix('-').filter(|b| !b.is_empty()) else {
            // a stray word: kept, so that it is not lost silently
            out.push(Flag {
                name: String::new(),
                values: vec![arg.clone()],
            });
            continue;
        };
        let mut chars = body.char_indices();
        while let Some((at, c)) = chars.next() {
            let (name, takes_value, after) = match c {
                '+' => {
                    let Some((at, p)) = chars.next() else {
                        break;
                    };
                    (
                        format!("+{p}"),
                        PLUS_WITH_VALUE.contains(p),
                        at + p.len_utf8(),
                    )
                }
                c => (c.to_string(), WITH_VALUE.contains(c), at + c.len_utf8()),
            };
            let mut flag = Flag {
                name,
                values: Vec::new(),
            };
            if takes_value {
                let joined = &body[after..];
                match joined.is_empty() {
                    false => flag.values.push(joined.to_string()),
                    true => flag.values.extend(rest.next().cloned()),
                }
                if flag.name == "F" {
                    while let Some(name) = rest.next_if(|a| !a.starts_with('-')) {
                        flag.values.push(name.clone());
                    }
                }
                out.push(flag);
                break;
            }
            out.push(flag);
        }
    }
    Some(out)
}

/// What iozone3 would measure, as we name it.
#[derive(Default)]
struct Plan {
    auto: bool,
    file_size: Option<ByteSize>,
    record: Option<ByteSize>,
    min_file: Option<ByteSize>,
    max_file: Option<ByteSize>,
    min_record: Option<ByteSize>,
    max_record: Option<ByteSize>,
    /// Our test names, in the order given.
    tests: Vec<&'static str>,
    /// Whether a test through plain read/write calls was asked for.
    plain_io: bool,
    /// Whether `-i` was given at all: without it, iozone3 runs every test.
    tests_asked: bool,
    /// The engines iozone3's own test numbers name (fwrite, pread…).
    test_engines: Vec<&'static str>,
    /// `-B`, `-k`/`-H`: the engine of the plain tests.
    engine: Option<&'static str>,
    iodepth: Option<String>,
    cache: Option<&'static str>,
    threads: Option<String>,
    dir: Option<String>,
    stride: Option<String>,
    read_pct: Option<String>,
    verify: bool,
}

/// `iozone run …` for `args`, and the flags that nothing here does; `None` when they
/// do not open with iozone3's flags.
pub fn translate(args: &[String]) -> Option<(String, Vec<String>)> {
    let flags = flags(skip_globals(args))?;
    let mut plan = Plan::default();
    let mut untranslated = Vec::new();
    let mut direct = false;
    let mut sync = false;
    let mut flush = false;
    for flag in &flags {
        let value = flag.values.first().map(String::as_str);
        let size = || value.and_then(|v| ByteSize::parse_kibibytes(v).ok());
        let understood = match (flag.name.as_str(), value) {
            ("a" | "A", _) => {
                plan.auto = true;
                true
            }
            // every record size for every file size: what our auto mode does anyway
            ("z", _) => true,
            ("s", Some(_)) => size().map(|s| plan.file_size = Some(s)).is_some(),
            ("r", Some(_)) => size().map(|s| plan.record = Some(s)).is_some(),
            ("n", Some(_)) => size().map(|s| plan.min_file = Some(s)).is_some(),
            ("g", Some(_)) => size().map(|s| plan.max_file = Some(s)).is_some(),
            ("y", Some(_)) => size().map(|s| plan.min_record = Some(s)).is_some(),
            ("q", Some(_)) => size().map(|s| plan.max_record = Some(s)).is_some(),
            ("i", Some(n)) => {
                plan.tests_asked = true;
                plan.add_test(n)
            }
            ("I", _) => {
                direct = true;
                true
            }
            ("o", _) | ("+r", _) => {
                sync = true;
                true
            }
            ("e", _) => {
                flush = true;
                true
            }
            ("B", _) => {
                plan.engine = Some("mmap");
                true
            }
            ("k" | "H", Some(depth)) if depth.parse::<u32>().is_ok_and(|d| d >= 1) => {
                plan.engine = Some("uring");
                plan.iodepth = Some(depth.to_string());
                true
            }
            ("t", Some(n)) if n.parse::<u32>().is_ok_and(|n| n >= 1) => {
                plan.threads = Some(n.to_string());
                true
            }
            ("f" | "F", Some(file)) => {
                let dir = Path::new(file)
                    .parent()
                    .filter(|d| !d.as_os_str().is_empty());
                plan.dir = dir.map(|d| d.display().to_string());
                true
            }
            ("j", Some(n)) if n.parse::<u64>().is_ok_and(|n| n >= 1) => {
                plan.stride = Some(n.to_string());
                true
            }
            ("+p", Some(n)) if n.parse::<u8>().is_ok_and(|n| n <= 100) => {
                plan.read_pct = Some(n.to_string());
                true
            }
            ("V", _) => {
                plan.verify = true;
                true
            }
            // threads rather than processes: ours are threads already
            ("T", _) => true,
            _ => false,
        };
        if !understood {
            untranslated.push(flag.typed());
        }
    }
    // iozone3 times writes through the page cache unless told otherwise
    plan.cache = Some(match (direct, sync, flush) {
        (true, _, _) => "direct",
        (_, true, _) => "sync",
        (_, _, true) => "flush",
        _ => "buffered",
    });
    Some((plan.command(), untranslated))
}

impl Plan {
    /// `-i N`: iozone3's test numbers, each ours by name; its stdio and pread tests are
    /// write and read through our engines of those names.
    fn add_test(&mut self, number: &str) -> bool {
        let (test, engine) = match number {
            "0" => ("write", None),
            "1" => ("read", None),
            "2" => ("random", None),
            "3" => ("backward", None),
            "4" => ("record-rewrite", None),
            "5" => ("stride", None),
            "6" => ("write", Some("stdio")),
            "7" => ("read", Some("stdio")),
            "8" => ("mix", None),
            "9" => ("write", Some("pread")),
            "10" => ("read", Some("pread")),
            _ => return false,
        };
        match engine {
            Some(engine) if !self.test_engines.contains(&engine) => self.test_engines.push(engine),
            Some(_) => {}
            None => self.plain_io = true,
        }
        if !self.tests.contains(&test) {
            self.tests.push(test);
        }
        true
    }

    fn command(&self) -> String {
        let mut words: Vec<String> = vec!["iozone".into(), "run".into()];
        let mut add = |flag: &str, value: String| {
            words.push(flag.to_string());
            if !value.is_empty() {
                words.push(value);
            }
        };
        let sizes = |first: ByteSize, last: ByteSize| -> String {
            let mut out = Vec::new();
            let mut size = first.bytes();
            while size <= last.bytes() && out.len() < 64 {
                out.push(ByteSize(size).flag_text());
                size *= 2;
            }
            out.join(",")
        };
        // iozone3's defaults: a 512 KiB file, 4 KiB records, the auto mode's ranges
        let kib = |n: u64| ByteSize(n << 10);
        let records = match (self.record, self.min_record, self.max_record) {
            (Some(r), _, _) => Some(r.flag_text()),
            (None, None, None) => None,
            (None, low, high) => Some(sizes(low.unwrap_or(kib(4)), high.unwrap_or(kib(16 << 10)))),
        };
        match (self.auto, self.file_size) {
            // a file size fixed in auto mode sweeps record sizes alone
            (true, Some(size)) if self.record.is_some() => {
                add("-s", size.flag_text());
                add("-r", records.unwrap_or_default());
            }
            (true, size) => {
                add("-a", String::new());
                if let Some(low) = size.or(self.min_file) {
                    add("--min-size", low.flag_text());
                }
                if let Some(high) = size.or(self.max_file) {
                    add("--max-size", high.flag_text());
                }
                if let Some(records) = records {
                    add("-r", records);
                }
            }
            (false, size) => {
                add("-s", size.unwrap_or(kib(512)).flag_text());
                add("-r", self.record.unwrap_or(kib(4)).flag_text());
            }
        }
        // no -i is every test; tests of which none is ours leave ours to the default
        match (self.tests_asked, self.tests.is_empty()) {
            (false, _) => add("-i", "all".into()),
            (true, false) => add("-i", self.tests.join(",")),
            (true, true) => {}
        }
        let mut engines: Vec<&str> = Vec::new();
        if self.plain_io || self.tests.is_empty() {
            engines.push(self.engine.unwrap_or("posix"));
        }
        engines.extend(&self.test_engines);
        if engines != ["posix"] {
            add("--engine", engines.join(","));
        }
        if let Some(depth) = &self.iodepth {
            add("--iodepth", depth.clone());
        }
        if let Some(cache) = self.cache.filter(|c| *c != "flush") {
            add("--cache", cache.into());
        }
        if let Some(threads) = &self.threads {
            add("-t", threads.clone());
        }
        if let Some(stride) = &self.stride {
            add("--stride", stride.clone());
        }
        if let Some(pct) = &self.read_pct {
            add("--read-pct", pct.clone());
        }
        if self.verify {
            add("--verify", String::new());
        }
        if let Some(dir) = &self.dir {
            add("-d", quoted(dir));
        }
        words.join(" ")
    }
}

/// A word as a shell reads it back: as it is when it holds nothing a shell treats
/// specially, else in single quotes.
fn quoted(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "/._-+,:=@%".contains(c);
    match !word.is_empty() && word.chars().all(plain) {
        true => word.to_string(),
        false => format!("'{}'", word.replace('\'', r"'\''")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn said(line: &str) -> Option<(String, Vec<String>)> {
        let args: Vec<String> = line.split_whitespace().map(String::from).collect();
        translate(&args)
    }

    fn command(line: &str) -> String {
        said(line)
            .unwrap_or_else(|| panic!("not iozone3's: {line}"))
            .0
    }

    #[test]
    fn iozone3_lines_become_runs_with_sizes_in_kib() {
        for (line, run) in [
            (
                "-a -s 1g -r 4k -i 0 -i 1",
                "iozone run -s 1g -r 4k -i write,read --cache buffered",
            ),
            // a bare record size is KiB, as iozone3 means it
            (
                "-s 1024 -r 512 -i 0",
                "iozone run -s 1m -r 512k -i write --cache buffered",
            ),
            ("-a", "iozone run -a -i all --cache buffered"),
            (
                "-a -n 1m -g 64m -y 64 -q 256 -i 0 -I",
                "iozone run -a --min-size 1m --max-size 64m -r 64k,128k,256k -i write --cache direct",
            ),
            (
                "-a -s 1g -i 2",
                "iozone run -a --min-size 1g --max-size 1g -i random --cache buffered",
            ),
            (
                "-i 0 -i 6 -i 10 -e -t 4 -f /mnt/data/iozone.tmp",
                "iozone run -s 512k -r 4k -i write,read --engine posix,stdio,pread -t 4 -d /mnt/data",
            ),
            (
                "-s1g -r64k -i0 -B -o",
                "iozone run -s 1g -r 64k -i write --engine mmap --cache sync",
            ),
            (
                "-aI -k 16 -i 8 -+p 30 -j 4",
                "iozone run -a -i mix --engine uring --iodepth 16 --cache direct --stride 4 --read-pct 30",
            ),
        ] {
            assert_eq!(command(line), run, "{line}");
        }
    }

    #[test]
    fn what_nothing_here_does_is_named_as_typed() {
        let (run, left) = said("-a -R -b out.xls -+m cluster.txt -i 11 -U /mnt").unwrap();
        assert_eq!(run, "iozone run -a --cache buffered");
        assert_eq!(
            left,
            ["-R", "-b out.xls", "-+m cluster.txt", "-i 11", "-U /mnt"]
        );
        // -F takes a name per thread
        let (run, left) = said("-t 2 -F /a/f1 /a/f2 -w").unwrap();
        assert!(run.ends_with("-t 2 -d /a"), "{run}");
        assert_eq!(left, ["-w"]);
        let args = ["-s", "1g", "stray", "-f", "/my data/f"].map(String::from);
        let (run, left) = translate(&args).unwrap();
        assert!(run.ends_with("-d '/my data'"), "{run}");
        assert_eq!(left, ["stray"]);
    }

    #[test]
    fn our_own_lines_are_not_iozone3s() {
        for line in [
            "run -s 1g",
            "history",
            "-q history",
            "--db x.db compare 1 2",
            "--bogus",
            "",
            "-v",
        ] {
            assert!(said(line).is_none(), "{line}");
        }
        // our global flags first, then iozone3's
        assert!(said("-q --db x.db -a").is_some());
        assert!(said("--color=never -s 1g").is_some());
    }

    #[test]
    fn iozone3_is_found_on_path_or_where_debian_puts_it_but_never_ourselves() {
        use std::os::unix::fs::PermissionsExt;
        let scratch = tempfile::tempdir().unwrap();
        let (theirs, ours, debian) = (
            scratch.path().join("theirs"),
            scratch.path().join("ours"),
            scratch.path().join("debian/iozone"),
        );
        for dir in [&theirs, &ours, &debian.parent().unwrap().to_path_buf()] {
            std::fs::create_dir_all(dir).unwrap();
        }
        let program = |path: &Path| {
            std::fs::write(path, "#!/bin/sh\n").unwrap();
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
        };
        program(&ours.join("iozone"));
        let own = ours.join("iozone");
        let path = std::env::join_paths([&ours, &theirs]).unwrap();
        // only ourselves: none
        assert_eq!(installed(Some(&path), Some(&own), &debian), None);
        // ourselves through a link is still ourselves
        std::os::unix::fs::symlink(&own, theirs.join("iozone")).unwrap();
        assert_eq!(installed(Some(&path), Some(&own), &debian), None);
        program(&debian);
        assert_eq!(
            installed(Some(&path), Some(&own), &debian),
            Some(debian.clone())
        );
        assert_eq!(installed(None, Some(&own), &debian), Some(debian.clone()));
        std::fs::remove_file(theirs.join("iozone")).unwrap();
        program(&theirs.join("iozone"));
        assert_eq!(
            installed(Some(&path), Some(&own), &debian),
            Some(theirs.join("iozone"))
        );
        let line = Iozone3Habit {
            command: "iozone run -a".into(),
            untranslated: vec!["-R".into()],
            iozone3: Some(debian.clone()),
        }
        .to_string();
        assert!(
            line.ends_with(&format!(
                "(nothing here for -R); iozone3 itself is {}",
                debian.display()
            )),
            "{line}"
        );
    }
}
