//! What iozone3 was asked to do: its command line as getopt reads it, and the lines
//! iozone echoes about the options it took; either is enough, so the two are merged.

use crate::model::CacheMode;

/// What the command line and the lines iozone echoes about it say.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Options {
    pub(super) direct: bool,
    pub(super) sync: bool,
    pub(super) flush: bool,
    pub(super) mmap: bool,
    pub(super) auto: bool,
    pub(super) verify: bool,
    /// `-O` or `-N`: figures are operations/s or µs/operation, not kB/s.
    pub(super) not_rates: bool,
    /// The test file (`-f`, or the first of `-F`).
    pub(super) file: Option<String>,
    pub(super) stride: Option<u64>,
}

impl Options {
    /// Options from the command line, read the way iozone's getopt reads them
    /// (clustered flags such as `-aI`, arguments attached or separate).
    pub(super) fn from_command(command: &str) -> Options {
        // The options of iozone 3.4xx's getopt string that take an argument.
        const WITH_ARGUMENT: &str = "JjkVrtsfFdluUSLH+PibXYgnyq";
        let mut opts = Options::default();
        let mut words = command.split_whitespace().skip(1).peekable();
        while let Some(word) = words.next() {
            let Some(flags) = word.strip_prefix('-') else {
                continue;
            };
            for (i, flag) in flags.char_indices() {
                if !WITH_ARGUMENT.contains(flag) {
                    opts.flag(flag);
                    continue;
                }
                let attached = &flags[i + flag.len_utf8()..];
                let argument = if attached.is_empty() {
                    words.next_if(|w| !w.starts_with('-'))
                } else {
                    Some(attached)
                };
                opts.argument(flag, argument);
                break;
            }
        }
        opts
    }

    fn flag(&mut self, flag: char) {
        match flag {
            'I' => self.direct = true,
            'o' => self.sync = true,
            'e' => self.flush = true,
            // -D is mmap with msync(MS_ASYNC): still I/O through a mapping.
            'B' | 'D' => self.mmap = true,
            'a' | 'A' => self.auto = true,
            'O' | 'N' => self.not_rates = true,
            _ => {}
        }
    }

    fn argument(&mut self, flag: char, argument: Option<&str>) {
        match (flag, argument) {
            // -F's further file names follow as plain words; the first names the directory.
            ('f' | 'F', Some(file)) => self.file = Some(file.to_string()),
            ('j', Some(stride)) => self.stride = stride.parse().ok(),
            ('V', _) => self.verify = true,
            _ => {}
        }
    }

    /// Adds what an echoed line says. iozone echoes every option it understood, so
    /// these also cover a command line that is missing or quoted oddly.
    pub(super) fn echoed(&mut self, line: &str) {
        let line = line.trim();
        match line {
            "O_DIRECT feature enabled" => self.direct = true,
            "SYNC Mode." => self.sync = true,
            "Include fsync in write timing" => self.flush = true,
            "Using mmap files" | "Using msync(MS_ASYNC) on mmap files" => self.mmap = true,
            _ if line.starts_with("Auto Mode") => self.auto = true,
            _ if line.starts_with("Verify Mode") => self.verify = true,
            _ if line.starts_with("OPS Mode") || line.starts_with("Microseconds/op Mode") => {
                self.not_rates = true
            }
            _ if line.starts_with("Output is in") => {
                self.not_rates |= !line.to_ascii_lowercase().contains("bytes/sec")
            }
            _ => {}
        }
    }

    /// `-I` is O_DIRECT, `-o` O_SYNC, `-e` fsync in the write time (our flush mode
    /// without its cold reads: iozone3 never drops the cache); none of them, the page
    /// cache as is. When several are given the strongest bypass of the cache wins.
    pub(super) fn cache(&self) -> CacheMode {
        if self.direct {
            CacheMode::Direct
        } else if self.sync {
            CacheMode::Sync
        } else if self.flush {
            CacheMode::Flush
        } else {
            CacheMode::Buffered
        }
    }
}

/// Echoed lines and the command line each set options; either is enough.
pub(super) fn merge(echoed: Options, command: Options) -> Options {
    Options {
        direct: echoed.direct || command.direct,
        sync: echoed.sync || command.sync,
        flush: echoed.flush || command.flush,
        mmap: echoed.mmap || command.mmap,
        auto: echoed.auto || command.auto,
        verify: echoed.verify || command.verify,
        not_rates: echoed.not_rates || command.not_rates,
        file: command.file,
        stride: command.stride.or(echoed.stride),
    }
}
