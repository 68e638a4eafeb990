//! iozone3's command line typed into ours. Debian's `iozone3` package installs
//! `/usr/bin/iozone` too, so `iozone -a -s 1g -r 4k -i 0 -i 1` is a habit, not a typo:
//! when clap refuses a command line that opens with iozone3's flags, the answer is one
//! line saying which program this is, the `iozone run` that measures the same thing
//! (sizes read as iozone3 reads them: a bare `-r 512` is 512 KiB), and where iozone3
//! itself is when it is installed.

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::path::{Path, PathBuf};

mod translate;

pub use translate::translate;

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

#[cfg(test)]
mod tests {
    use super::*;

    fn said(line: &str) -> Option<(String, Vec<String>)> {
        let args: Vec<String> = line.split_whitespace().map(String::from).collect();
        translate(&args)
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
