//! Files the user names for output (`export -o`, `report -o`, `man --dir`), written
//! whole or not at all, and never over what must not be written over.
//!
//! A regular file is written to a temporary file beside it and renamed into place once
//! complete, so a full disk, an error half-way or a command that fails leaves the old
//! file (or none) and no partial one. An existing file is replaced only when the
//! caller allows it; a symbolic link is never followed (one planted in /tmp would
//! send root's output anywhere); the files of the database and the spool are
//! recognised by device and inode, whatever the path that names them (another
//! spelling, a hard link). A character device or FIFO the user names (`/dev/null`,
//! `/dev/stdout`, a pipe) is written to as it is, never removed or replaced; `-` is
//! stdout.

use std::ffi::OsString;
use std::fs::{File, Metadata, Permissions};
use std::io::{self, BufWriter, Write};
use std::os::fd::AsFd;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use signal_hook::SigId;
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};

use tempfile::TempPath;

/// A file no output may be written over, and what it is, for the message ("the
/// database", "a run waiting in the spool").
#[derive(Clone, Debug)]
pub struct Protected {
    pub path: PathBuf,
    pub what: String,
}

/// What an output may do to the path it is given.
#[derive(Clone, Debug, Default)]
pub struct Policy {
    /// Whether an existing regular file may be replaced.
    pub replace: bool,
    /// Files never written, whether they exist yet or not.
    pub protected: Vec<Protected>,
}

#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// A regular file is there and the policy does not replace it.
    #[error("{} already exists", .0.display())]
    Exists(PathBuf),
    #[error("{} is {what}; writing it would destroy it: choose another file", path.display())]
    Protected { path: PathBuf, what: String },
    #[error(
        "{} is a symbolic link, which iozone does not write through: name the file it \
         points to, or remove the link",
        .0.display()
    )]
    Symlink(PathBuf),
    #[error(
        "{} is {kind}: name a file, a character device (/dev/null) or a FIFO",
        path.display()
    )]
    NotAFile { path: PathBuf, kind: &'static str },
    /// `path` is how the output is named in messages: a path, or "stdout".
    #[error("cannot write {path}: {source}{}", advice(source))]
    Io { path: String, source: io::Error },
    /// A signal (its number) came while a file was written aside: the aside copy is
    /// removed and the path left as it was.
    #[error("interrupted by signal {signal}; {path} was left as it was")]
    Interrupted { path: String, signal: i32 },
}

/// An output being written: call [`Output::finish`] when it is complete; dropped
/// unfinished, a file's temporary copy is removed and the path left as it was.
pub struct Output {
    sink: Sink,
    name: String,
}

enum Sink {
    Stdout(BufWriter<io::StdoutLock<'static>>),
    /// A device, a FIFO or an open descriptor: written as it is.
    Stream(BufWriter<File>),
    /// A regular file's temporary copy (removed when `temporary` is dropped), renamed
    /// over `path` (or to it only while nothing is there, when `replace` is false) by
    /// `finish`.
    Temporary {
        out: BufWriter<File>,
        temporary: TempPath,
        path: PathBuf,
        replace: bool,
        signals: Signals,
    },
}

/// SIGINT, SIGTERM and SIGHUP caught while a file is written aside, so that the next
/// write stops and the aside copy is removed on the way out, as an error would have it
/// (killed outright, the process would leave it behind); a second one ends the process
/// at once, for an output stuck on a slow store.
struct Signals {
    caught: Arc<AtomicUsize>,
    ids: Vec<SigId>,
}

impl Signals {
    fn install() -> Signals {
        let caught = Arc::new(AtomicUsize::new(0));
        let twice = Arc::new(AtomicBool::new(false));
        let mut ids = Vec::new();
        for signal in [SIGINT, SIGTERM, SIGHUP] {
            // registered in this order: the second signal finds the flag set
            let exit = 128 + signal;
            let registered = [
                signal_hook::flag::register_conditional_shutdown(signal, exit, Arc::clone(&twice)),
                signal_hook::flag::register(signal, Arc::clone(&twice)),
                signal_hook::flag::register_usize(signal, Arc::clone(&caught), signal as usize),
            ];
            // a handler that cannot be installed leaves the default: the output still works
            ids.extend(registered.into_iter().flatten());
        }
        Signals { caught, ids }
    }

    fn caught(&self) -> Option<i32> {
        match self.caught.load(Ordering::Relaxed) {
            0 => None,
            signal => Some(signal as i32),
        }
    }
}

impl Drop for Signals {
    fn drop(&mut self) {
        for id in self.ids.drain(..) {
            signal_hook::low_level::unregister(id);
        }
    }
}

impl Output {
    /// Opens the output `path` names (`-` is stdout), or says why it may not be
    /// written, before anything is.
    pub fn open(path: &Path, policy: &Policy) -> Result<Output, OutputError> {
        let name = path.display().to_string();
        if path.as_os_str() == "-" {
            return stdout(path, policy);
        }
        if let Some(descriptor) = descriptor_named(path) {
            return match descriptor {
                1 => stdout(path, policy),
                _ => {
                    let file = File::options()
                        .append(true)
                        .open(path)
                        .map_err(|e| io_error(&name, e))?;
                    refuse_protected(
                        path,
                        &file.metadata().map_err(|e| io_error(&name, e))?,
                        policy,
                    )?;
                    Ok(Output {
                        sink: Sink::Stream(BufWriter::new(file)),
                        name,
                    })
                }
            };
        }
        let meta = match std::fs::symlink_metadata(path) {
            Ok(meta) => Some(meta),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(io_error(&name, e)),
        };
        let Some(meta) = meta else {
            refuse_protected_entry(path, policy)?;
            return temporary(path, None);
        };
        let kind = meta.file_type();
        if kind.is_symlink() {
            return Err(OutputError::Symlink(path.to_path_buf()));
        }
        if kind.is_file() {
            refuse_protected(path, &meta, policy)?;
            refuse_protected_entry(path, policy)?;
            if !policy.replace {
                return Err(OutputError::Exists(path.to_path_buf()));
            }
            // as a plain create would, refuse a file we may not write (root may)
            rustix::fs::access(path, rustix::fs::Access::WRITE_OK)
                .map_err(|e| io_error(&name, e.into()))?;
            return temporary(path, Some(&meta));
        }
        if kind.is_char_device() || kind.is_fifo() {
            return stream(path, &meta);
        }
        let kind = match () {
            _ if kind.is_dir() => "a directory",
            _ if kind.is_block_device() => "a block device",
            _ if kind.is_socket() => "a socket",
            _ => "not a file",
        };
        Err(OutputError::NotAFile {
            path: path.to_path_buf(),
            kind,
        })
    }

    /// The error of text that could not be written to this output.
    pub fn error(&self, source: io::Error) -> OutputError {
        io_error(&self.name, source)
    }

    /// Whether the output is stdout (`-`), not a path.
    pub fn is_stdout(&self) -> bool {
        self.name == "-"
    }

    pub fn write(&mut self, text: &str) -> Result<(), OutputError> {
        self.write_bytes(text.as_bytes())
    }

    /// [`Output::write`] of text already printed as bytes (UTF-8).
    pub fn write_bytes(&mut self, text: &[u8]) -> Result<(), OutputError> {
        let written = match &mut self.sink {
            Sink::Stdout(out) => out.write_all(text),
            Sink::Stream(out) => out.write_all(text),
            Sink::Temporary { out, signals, .. } => match signals.caught() {
                Some(signal) => {
                    return Err(OutputError::Interrupted {
                        path: self.name.clone(),
                        signal,
                    });
                }
                None => out.write_all(text),
            },
        };
        written.map_err(|e| io_error(&self.name, e))
    }

    /// Flushes what is left and, for a regular file, syncs it and moves it into place.
    pub fn finish(self) -> Result<(), OutputError> {
        let name = self.name;
        let fail = |e| io_error(&name, e);
        match self.sink {
            Sink::Stdout(mut out) => out.flush().map_err(fail),
            Sink::Stream(mut out) => out.flush().map_err(fail),
            Sink::Temporary {
                out,
                temporary,
                path,
                replace,
                signals,
            } => {
                let file = out.into_inner().map_err(|e| fail(e.into_error()))?;
                // a filesystem may say it is full only now (NFS, quotas)
                file.sync_all().map_err(fail)?;
                // a signal during the sync (long on a slow disk) still means: not written
                if let Some(signal) = signals.caught() {
                    return Err(OutputError::Interrupted { path: name, signal });
                }
                let persisted = match replace {
                    true => temporary.persist(&path),
                    false => temporary.persist_noclobber(&path),
                };
                // caught until the file is in place: a signal now leaves it whole
                drop(signals);
                match persisted {
                    Ok(_) => Ok(()),
                    // created meanwhile: still not ours to replace
                    Err(e) if !replace && e.error.kind() == io::ErrorKind::AlreadyExists => {
                        Err(OutputError::Exists(path))
                    }
                    Err(e) => Err(fail(e.error)),
                }
            }
        }
    }
}

/// Writes `text` whole to the output `path` names.
pub fn write(path: &Path, policy: &Policy, text: &str) -> Result<(), OutputError> {
    let mut output = Output::open(path, policy)?;
    output.write(text)?;
    output.finish()
}

/// What to do about a write that failed.
fn advice(e: &io::Error) -> &'static str {
    match e.kind() {
        io::ErrorKind::StorageFull | io::ErrorKind::QuotaExceeded => {
            "; free some space, or choose another file"
        }
        io::ErrorKind::NotFound => "; the directory must exist",
        io::ErrorKind::PermissionDenied | io::ErrorKind::ReadOnlyFilesystem => {
            "; choose a file you may write"
        }
        _ => "",
    }
}

fn io_error(name: &str, source: io::Error) -> OutputError {
    let path = if name == "-" { "stdout" } else { name }.to_string();
    OutputError::Io { path, source }
}

/// Stdout, unless the shell pointed it at a protected file (`>> history.db`).
fn stdout(path: &Path, policy: &Policy) -> Result<Output, OutputError> {
    let name = path.display().to_string();
    let said = match name.as_str() {
        "-" => Path::new("stdout"),
        _ => path,
    };
    let out = io::stdout();
    // a closed stdout has no metadata to check, and nothing to protect
    if let Ok(meta) = out
        .as_fd()
        .try_clone_to_owned()
        .map(File::from)
        .and_then(|f| f.metadata())
    {
        refuse_protected(said, &meta, policy)?;
    }
    Ok(Output {
        sink: Sink::Stdout(BufWriter::new(out.lock())),
        name,
    })
}

/// A device or FIFO, opened as it is: not created, not truncated, and not through a
/// link put there since it was looked at.
fn stream(path: &Path, seen: &Metadata) -> Result<Output, OutputError> {
    let name = path.display().to_string();
    let file = File::options()
        .write(true)
        .custom_flags((rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::NOCTTY).bits() as i32)
        .open(path)
        .map_err(|e| io_error(&name, e))?;
    let meta = file.metadata().map_err(|e| io_error(&name, e))?;
    if (meta.dev(), meta.ino()) != (seen.dev(), seen.ino()) {
        return Err(io_error(
            &name,
            io::Error::other("it was replaced while being opened"),
        ));
    }
    Ok(Output {
        sink: Sink::Stream(BufWriter::new(file)),
        name,
    })
}

/// A temporary file beside `path`, with the permissions `path` has (`existing`) or
/// a plain create would give it under the umask; tempfile's own 0600 would hide a
/// report from the others a plain file is readable by.
fn temporary(path: &Path, existing: Option<&Metadata>) -> Result<Output, OutputError> {
    let name = path.display().to_string();
    let dir = directory_of(path);
    // the system's own words for a directory that is not there or not writable:
    // tempfile's errors name its temporary file, which the user never asked for
    rustix::fs::access(
        dir,
        rustix::fs::Access::WRITE_OK | rustix::fs::Access::EXEC_OK,
    )
    .map_err(|e| io_error(&name, e.into()))?;
    // before the copy exists: a signal from now on finds a handler that removes it
    let signals = Signals::install();
    let (file, temporary) = tempfile::Builder::new()
        .prefix(".iozone-")
        .suffix(".tmp")
        .permissions(Permissions::from_mode(0o666))
        .tempfile_in(dir)
        .map_err(|e| io_error(&name, io::Error::from(e.kind())))?
        .into_parts();
    if let Some(existing) = existing {
        // not set-user-ID and the like, which writing a file clears
        let mode = existing.permissions().mode() & 0o777;
        file.set_permissions(Permissions::from_mode(mode))
            .map_err(|e| io_error(&name, e))?;
        // as a truncating create keeps its owner; only root may give a file away,
        // and a file of our own is what anyone else gets
        let _ = std::os::unix::fs::fchown(&file, Some(existing.uid()), Some(existing.gid()));
    }
    Ok(Output {
        sink: Sink::Temporary {
            out: BufWriter::new(file),
            temporary,
            path: path.to_path_buf(),
            replace: existing.is_some(),
            signals,
        },
        name,
    })
}

fn directory_of(path: &Path) -> &Path {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    }
}

/// A file as the filesystem knows it: by device and inode when it exists, and by its
/// directory's device and inode and its name, which a file not created yet has too.
#[derive(Debug, PartialEq, Eq)]
enum Identity {
    Inode(u64, u64),
    Entry(u64, u64, OsString),
}

fn entry(path: &Path) -> Option<Identity> {
    let dir = std::fs::metadata(directory_of(path)).ok()?;
    Some(Identity::Entry(
        dir.dev(),
        dir.ino(),
        path.file_name()?.to_owned(),
    ))
}

/// The identities of a protected path: the file it leads to (through links: the
/// database may be reached through one) and the name itself.
fn identities(path: &Path) -> Vec<Identity> {
    let inode = std::fs::metadata(path)
        .ok()
        .map(|m| Identity::Inode(m.dev(), m.ino()));
    inode.into_iter().chain(entry(path)).collect()
}

/// Refuses an existing file (`meta`, of `path`) that is one of the protected ones.
fn refuse_protected(path: &Path, meta: &Metadata, policy: &Policy) -> Result<(), OutputError> {
    if !meta.is_file() {
        return Ok(());
    }
    refuse_if(path, &Identity::Inode(meta.dev(), meta.ino()), policy)
}

/// Refuses the name `path` when a protected file has it (created or not yet).
fn refuse_protected_entry(path: &Path, policy: &Policy) -> Result<(), OutputError> {
    match entry(path) {
        Some(identity) => refuse_if(path, &identity, policy),
        None => Ok(()),
    }
}

fn refuse_if(path: &Path, identity: &Identity, policy: &Policy) -> Result<(), OutputError> {
    match (policy.protected.iter()).find(|p| identities(&p.path).contains(identity)) {
        Some(protected) => Err(OutputError::Protected {
            path: path.to_path_buf(),
            what: protected.what.clone(),
        }),
        None => Ok(()),
    }
}

/// The descriptor of this process that `path` names (`/dev/stdout`, `/dev/fd/3`,
/// `/proc/self/fd/1`, the `/dev/fd/63` of a shell's `>(…)`): their links lead to
/// whatever the descriptor is open on, which is written through it as the user
/// asked, not refused as a planted link nor replaced.
fn descriptor_named(path: &Path) -> Option<i32> {
    let ours: Vec<PathBuf> = ["/proc/self/fd", "/proc/thread-self/fd"]
        .iter()
        .filter_map(|dir| std::fs::canonicalize(dir).ok())
        .collect();
    let mut path = path.to_path_buf();
    // as many links as the kernel follows
    for _ in 0..40 {
        let dir = directory_of(&path);
        if std::fs::canonicalize(dir).is_ok_and(|dir| ours.contains(&dir)) {
            return path.file_name()?.to_str()?.parse().ok();
        }
        let target = std::fs::read_link(&path).ok()?;
        path = dir.join(target);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(replace: bool, protected: &[&Path]) -> Policy {
        Policy {
            replace,
            protected: protected
                .iter()
                .map(|p| Protected {
                    path: p.to_path_buf(),
                    what: "the database".into(),
                })
                .collect(),
        }
    }

    fn leftovers(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn a_new_file_appears_whole_with_the_permissions_of_a_plain_create() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.json");
        let mut output = Output::open(&path, &Policy::default()).unwrap();
        output.write("{").unwrap();
        assert!(!path.exists(), "visible before it is complete");
        output.write("}").unwrap();
        output.finish().unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{}");
        assert_eq!(leftovers(dir.path()), ["out.json"]);
        let plain = dir.path().join("plain");
        File::create(&plain).unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode();
        assert_eq!(mode(&path), mode(&plain));
    }

    #[test]
    fn an_abandoned_output_leaves_the_old_file_and_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("backup.json");
        std::fs::write(&path, "old").unwrap();
        std::fs::set_permissions(&path, Permissions::from_mode(0o640)).unwrap();
        let mut output = Output::open(&path, &policy(true, &[])).unwrap();
        output.write("half").unwrap();
        drop(output);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old");
        assert_eq!(leftovers(dir.path()), ["backup.json"]);
        // finished, the file is replaced and keeps its permissions
        write(&path, &policy(true, &[]), "new").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o640);
    }

    #[test]
    fn an_existing_file_is_replaced_only_when_allowed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.html");
        std::fs::write(&path, "old").unwrap();
        let refused = write(&path, &Policy::default(), "new").unwrap_err();
        assert!(matches!(refused, OutputError::Exists(_)), "{refused}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old");
    }

    #[test]
    fn a_file_created_meanwhile_is_not_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.html");
        let mut output = Output::open(&path, &Policy::default()).unwrap();
        std::fs::write(&path, "theirs").unwrap();
        output.write("ours").unwrap();
        assert!(matches!(output.finish(), Err(OutputError::Exists(_))));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "theirs");
        assert_eq!(leftovers(dir.path()), ["r.html"]);
    }

    #[test]
    fn protected_files_are_known_by_inode_and_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("h.db");
        std::fs::write(&db, "database").unwrap();
        let link = dir.path().join("hard.db");
        std::fs::hard_link(&db, &link).unwrap();
        let wal = dir.path().join("h.db-wal");
        let guarded = policy(true, &[&db, &wal]);
        let other_spelling = dir.path().join(".").join("h.db");
        for path in [&db, &link, &other_spelling, &wal] {
            let refused = write(path, &guarded, "x").unwrap_err();
            assert!(
                matches!(refused, OutputError::Protected { .. }),
                "{path:?}: {refused}"
            );
        }
        assert_eq!(std::fs::read_to_string(&db).unwrap(), "database");
        assert!(!wal.exists());
    }

    #[test]
    fn a_symlink_is_refused_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("passwd");
        std::fs::write(&target, "root").unwrap();
        let link = dir.path().join("r.html");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let refused = write(&link, &policy(true, &[]), "x").unwrap_err();
        assert!(matches!(refused, OutputError::Symlink(_)), "{refused}");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "root");
        assert!(link.is_symlink());
    }

    #[test]
    fn a_character_device_is_written_as_it_is() {
        write(Path::new("/dev/null"), &Policy::default(), "x").unwrap();
        let full = write(Path::new("/dev/full"), &Policy::default(), "x").unwrap_err();
        assert!(matches!(full, OutputError::Io { .. }), "{full}");
        let meta = std::fs::symlink_metadata("/dev/full").unwrap();
        assert!(meta.file_type().is_char_device());
    }

    #[test]
    fn descriptors_are_recognised_through_their_links() {
        assert_eq!(descriptor_named(Path::new("/dev/stdout")), Some(1));
        assert_eq!(descriptor_named(Path::new("/dev/fd/2")), Some(2));
        assert_eq!(descriptor_named(Path::new("/proc/self/fd/1")), Some(1));
        assert_eq!(descriptor_named(Path::new("/dev/null")), None);
        assert_eq!(descriptor_named(Path::new("no/such/file")), None);
    }

    #[test]
    fn a_directory_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let refused = write(dir.path(), &policy(true, &[]), "x").unwrap_err();
        assert!(refused.to_string().contains("a directory"), "{refused}");
    }
}
