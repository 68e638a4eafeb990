//! iozone3's flags as the `iozone run` that measures the same thing: sizes read as
//! iozone3 reads them, its test numbers as our tests and engines, its cache flags as
//! one cache mode, and the flags nothing here does named as typed.

use std::path::Path;

use super::{Flag, flags, skip_globals};
use crate::units::ByteSize;

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
    /// `-I`, `-o`/`-+r` and `-e`: one cache mode, decided once every flag is read.
    direct: bool,
    sync: bool,
    flush: bool,
}

/// `iozone run …` for `args`, and the flags that nothing here does; `None` when they
/// do not open with iozone3's flags.
pub fn translate(args: &[String]) -> Option<(String, Vec<String>)> {
    let flags = flags(skip_globals(args))?;
    let mut plan = Plan::default();
    let untranslated = (flags.iter())
        .filter(|flag| !plan.take(flag))
        .map(Flag::typed)
        .collect();
    // iozone3 times writes through the page cache unless told otherwise
    plan.cache = Some(match (plan.direct, plan.sync, plan.flush) {
        (true, _, _) => "direct",
        (_, true, _) => "sync",
        (_, _, true) => "flush",
        _ => "buffered",
    });
    Some((plan.command(), untranslated))
}

impl Plan {
    /// Takes `flag` into the plan; false when nothing here does what it asks.
    fn take(&mut self, flag: &Flag) -> bool {
        let value = flag.values.first().map(String::as_str);
        let size = || value.and_then(|v| ByteSize::parse_kibibytes(v).ok());
        match (flag.name.as_str(), value) {
            ("a" | "A", _) => {
                self.auto = true;
                true
            }
            // every record size for every file size: what our auto mode does anyway
            ("z", _) => true,
            ("s", Some(_)) => size().map(|s| self.file_size = Some(s)).is_some(),
            ("r", Some(_)) => size().map(|s| self.record = Some(s)).is_some(),
            ("n", Some(_)) => size().map(|s| self.min_file = Some(s)).is_some(),
            ("g", Some(_)) => size().map(|s| self.max_file = Some(s)).is_some(),
            ("y", Some(_)) => size().map(|s| self.min_record = Some(s)).is_some(),
            ("q", Some(_)) => size().map(|s| self.max_record = Some(s)).is_some(),
            ("i", Some(n)) => {
                self.tests_asked = true;
                self.add_test(n)
            }
            ("I", _) => {
                self.direct = true;
                true
            }
            ("o", _) | ("+r", _) => {
                self.sync = true;
                true
            }
            ("e", _) => {
                self.flush = true;
                true
            }
            ("B", _) => {
                self.engine = Some("mmap");
                true
            }
            ("k" | "H", Some(depth)) if depth.parse::<u32>().is_ok_and(|d| d >= 1) => {
                self.engine = Some("uring");
                self.iodepth = Some(depth.to_string());
                true
            }
            ("t", Some(n)) if n.parse::<u32>().is_ok_and(|n| n >= 1) => {
                self.threads = Some(n.to_string());
                true
            }
            ("f" | "F", Some(file)) => {
                let dir = Path::new(file)
                    .parent()
                    .filter(|d| !d.as_os_str().is_empty());
                self.dir = dir.map(|d| d.display().to_string());
                true
            }
            ("j", Some(n)) if n.parse::<u64>().is_ok_and(|n| n >= 1) => {
                self.stride = Some(n.to_string());
                true
            }
            ("+p", Some(n)) if n.parse::<u8>().is_ok_and(|n| n <= 100) => {
                self.read_pct = Some(n.to_string());
                true
            }
            ("V", _) => {
                self.verify = true;
                true
            }
            // threads rather than processes: ours are threads already
            ("T", _) => true,
            _ => false,
        }
    }

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
}
