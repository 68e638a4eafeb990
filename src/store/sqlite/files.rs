//! What a SQLite database's files say before SQLite opens them: whether the path can be
//! a database file at all, which file a write would fail on and why, and whether the
//! `-wal` file beside it holds frames — pages SQLite lays over the database when it
//! opens it, and copies into it at the next checkpoint, whatever database wrote them —
//! and whether those frames hold anything the database lacks.

use std::io::Read as _;
use std::path::{Path, PathBuf};

use rustix::fs::Access;

use crate::store::StoreError;

/// The file beside the database that SQLite names with `suffix` (`-wal`, `-shm`).
pub(super) fn beside(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// Whether the database file exists; refuses a path that cannot be one (a directory,
/// a device such as /dev/null, a FIFO), whose errors from SQLite would say nothing
/// useful ("disk I/O error").
pub(super) fn exists(path: &Path) -> Result<bool, StoreError> {
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(e) => {
            return Err(StoreError::Open {
                path: path.to_path_buf(),
                reason: e.to_string(),
            });
        }
    };
    let kind = meta.file_type();
    let what = if kind.is_dir() {
        "a directory"
    } else if kind.is_file() {
        return Ok(true);
    } else {
        "a device or special file"
    };
    Err(StoreError::NotAFile {
        path: path.to_path_buf(),
        what,
    })
}

/// Why a write to the database would fail, naming the file: the database itself, its
/// `-wal` or `-shm` file, or the directory SQLite must create them in. `None` when all
/// that a write needs is writable. (Root passes permission bits; a read-only mount
/// stops root too.)
pub(super) fn unwritable(path: &Path) -> Option<String> {
    let denied = |file: &Path| {
        rustix::fs::access(file, Access::WRITE_OK)
            .err()
            .map(|e| std::io::Error::from(e).to_string())
    };
    let exists = |file: &Path| std::fs::symlink_metadata(file).is_ok();
    if exists(path)
        && let Some(why) = denied(path)
    {
        return Some(format!("{} is not writable: {why}", path.display()));
    }
    let mut sidecars_missing = !exists(path);
    for suffix in ["-wal", "-shm"] {
        let file = beside(path, suffix);
        if !exists(&file) {
            sidecars_missing = true;
        } else if let Some(why) = denied(&file) {
            return Some(format!(
                "{} is not writable: {why}; another user's iozone or sqlite3 left it",
                file.display()
            ));
        }
    }
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    if !dir.is_dir() {
        return Some(format!("its directory {} does not exist", dir.display()));
    }
    if sidecars_missing && let Some(why) = denied(dir) {
        return Some(format!(
            "its directory {} is not writable: {why}; SQLite writes its -wal and -shm files \
             there",
            dir.display()
        ));
    }
    None
}

/// Whether the database can be read without creating anything beside it: it is not
/// writable here (a read-only mount, someone else's file) or not meant to be written
/// by anyone (no write permission bit, which root passes but should not undo by
/// leaving a `-shm` of that mode behind), so no writer can be changing it, and its
/// `-wal` holds nothing to apply.
pub(super) fn read_as_is(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let no_write_bits = std::fs::metadata(path).is_ok_and(|m| m.permissions().mode() & 0o222 == 0);
    (no_write_bits || unwritable(path).is_some())
        && wal(path).is_none_or(|wal| wal_applied(path, wal))
        && !journal(path)
}

/// Whether a rollback journal with anything in it lies beside the database: a bulk
/// write going on, or the pages one a killed process left must put back (`journal.rs`).
/// Read as it is, such a database would show that write's half-done pages.
pub(super) fn journal(path: &Path) -> bool {
    std::fs::metadata(beside(path, "-journal")).is_ok_and(|m| m.len() > 0)
}

/// Why the database file cannot be read, when it cannot.
/// (The message names the path already: "cannot open the database PATH: …".)
pub(super) fn unreadable(path: &Path) -> Option<String> {
    rustix::fs::access(path, Access::READ_OK)
        .err()
        .map(|e| format!("the file is not readable: {}", std::io::Error::from(e)))
}

/// A `-wal` file's header, when the file holds at least one frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Wal {
    pub page_size: u32,
}

/// The header of the database's `-wal` file (a 32-byte header, then frames of a
/// 24-byte header and a page each; wal.c), when it holds at least one whole frame.
/// A file with another magic number is not a WAL SQLite would apply.
pub(super) fn wal(path: &Path) -> Option<Wal> {
    let file = beside(path, "-wal");
    let len = std::fs::metadata(&file).ok()?.len();
    let header = read_start::<32>(&file)?;
    let word = |at: usize| u32::from_be_bytes(header[at..at + 4].try_into().expect("4 bytes"));
    // the low bit says the checksums' byte order
    if word(0) & !1 != 0x377f_0682 {
        return None;
    }
    let page_size = word(8);
    (len >= 32 + 24 + u64::from(page_size)).then_some(Wal { page_size })
}

/// Whether the `-wal` file was written for this database, as far as the files can
/// tell: SQLite lays any WAL's pages over the database, since nothing in the database
/// file names its WAL. What does is the `-shm` index beside them, rebuilt from the WAL
/// by whoever opens it and kept while it is in use: its header holds the WAL's salts
/// (random numbers drawn each time the WAL restarts) and page size. A WAL copied
/// beside a restored backup has no index, or one that names another WAL. (A WAL and
/// index copied together pass: then the database's page size must still match.)
/// A WAL whose committed pages are all in the database already passes too, with or
/// without an index: SQLite rebuilds the index from the WAL alone and applies nothing
/// new (see [`wal_applied`]); a transaction killed before its commit leaves one.
/// `Err` says why the WAL cannot be taken for the database's.
pub(super) fn wal_belongs(path: &Path, wal: Wal) -> Result<(), String> {
    if let Some(size) = page_size(path).filter(|&size| size != wal.page_size) {
        return Err(format!(
            "its pages are {} bytes, the database's {size}",
            wal.page_size
        ));
    }
    // A writer restarting the WAL updates the index and the WAL header one after
    // the other: a mismatch is believed only when it lasts.
    let mut attempt = 0;
    loop {
        match indexed_salts(path) {
            Some(salts) if Some(salts) == wal_salts(path) => return Ok(()),
            // nothing committed in it that the database lacks: its own WAL of a
            // transaction killed before its commit (restarted with new salts, which
            // the index learns only at a commit), or a stray one SQLite would apply
            // nothing of; either way opening it changes nothing
            _ if wal_applied(path, wal) => return Ok(()),
            _ if attempt < 5 => {
                attempt += 1;
                std::thread::sleep(std::time::Duration::from_millis(10 * attempt));
            }
            None => {
                return Err(
                    "no -shm index beside it says it does, and it holds pages the database \
                     lacks"
                        .into(),
                );
            }
            Some(_) => return Err("the -shm index beside it names another WAL".into()),
        }
    }
}

/// Whether the WAL holds nothing the database lacks: every page its committed frames
/// hold (the frames SQLite's recovery would apply: wal.c's `walIndexRecover`) is the
/// database's page already, and the database has the size the last commit states.
/// That is what a checkpoint leaves, and what a process killed while SQLite closed
/// the database leaves: the last connection checkpoints, deletes the `-shm`, then the
/// `-wal`, so a kill between the two leaves this WAL without its index, which no
/// later open would otherwise accept. Opening it changes nothing, whoever wrote it.
pub(super) fn wal_applied(path: &Path, wal: Wal) -> bool {
    let Some(log) = committed_frames(&beside(path, "-wal")) else {
        // a header SQLite would not recover from: it starts the WAL afresh
        return true;
    };
    if log.pages.is_empty() {
        return true;
    }
    let page = u64::from(wal.page_size);
    let (Ok(mut db), Ok(mut wal_file)) = (
        std::fs::File::open(path),
        std::fs::File::open(beside(path, "-wal")),
    ) else {
        return false;
    };
    if db.metadata().map(|m| m.len()).ok() != Some(u64::from(log.database_pages) * page) {
        return false;
    }
    let mut in_wal = vec![0u8; page as usize];
    let mut in_db = vec![0u8; page as usize];
    log.pages
        .iter()
        .filter(|&(&number, _)| number <= log.database_pages)
        .all(|(&number, &offset)| {
            read_at(&mut wal_file, offset, &mut in_wal)
                && read_at(&mut db, u64::from(number - 1) * page, &mut in_db)
                && in_wal == in_db
        })
}

/// What SQLite's recovery takes from a WAL: for each page, where its last committed
/// image starts in the file, and the database's size in pages after the last commit.
struct CommittedFrames {
    pages: std::collections::HashMap<u32, u64>,
    database_pages: u32,
}

/// The committed frames of a WAL file, read as SQLite's recovery reads them: a header
/// whose checksum holds, then frames whose salts are the header's and whose running
/// checksums hold, up to the first that does not; only frames up to the last commit
/// frame (one stating the database's size) count. `None` when the header is not one
/// SQLite recovers from.
fn committed_frames(wal: &Path) -> Option<CommittedFrames> {
    use std::io::BufReader;
    let mut file = BufReader::new(std::fs::File::open(wal).ok()?);
    let mut header = [0u8; 32];
    file.read_exact(&mut header).ok()?;
    let word = |bytes: &[u8], at: usize| {
        u32::from_be_bytes(bytes[at..at + 4].try_into().expect("4 bytes"))
    };
    let magic = word(&header, 0);
    let page_size = word(&header, 8);
    if magic & !1 != 0x377f_0682
        || word(&header, 4) != 3_007_000
        || !page_size.is_power_of_two()
        || !(512..=65536).contains(&page_size)
    {
        return None;
    }
    let big_endian = magic & 1 == 1;
    let mut sum = wal_checksum(big_endian, &header[..24], (0, 0));
    if sum != (word(&header, 24), word(&header, 28)) {
        return None;
    }
    let mut frames = Vec::new();
    let mut committed = (0, 0);
    let mut frame = vec![0u8; 24 + page_size as usize];
    let mut offset = 32u64;
    while file.read_exact(&mut frame).is_ok() {
        let number = word(&frame, 0);
        if number == 0 || frame[8..16] != header[16..24] {
            break;
        }
        sum = wal_checksum(big_endian, &frame[..8], sum);
        sum = wal_checksum(big_endian, &frame[24..], sum);
        if sum != (word(&frame, 16), word(&frame, 20)) {
            break;
        }
        frames.push((number, offset + 24));
        let database_pages = word(&frame, 4);
        if database_pages != 0 {
            committed = (frames.len(), database_pages);
        }
        offset += frame.len() as u64;
    }
    let pages = frames[..committed.0].iter().copied().collect();
    Some(CommittedFrames {
        pages,
        database_pages: committed.1,
    })
}

/// SQLite's WAL checksum (wal.c `walChecksumBytes`) of `data` from `sum`: pairs of
/// 32-bit words, big- or little-endian as the WAL's magic number says.
fn wal_checksum(big_endian: bool, data: &[u8], sum: (u32, u32)) -> (u32, u32) {
    data.chunks_exact(8).fold(sum, |(s1, s2), pair| {
        let word = |bytes: &[u8]| {
            let bytes = bytes.try_into().expect("4 bytes");
            match big_endian {
                true => u32::from_be_bytes(bytes),
                false => u32::from_le_bytes(bytes),
            }
        };
        let s1 = s1.wrapping_add(word(&pair[..4])).wrapping_add(s2);
        let s2 = s2.wrapping_add(word(&pair[4..])).wrapping_add(s1);
        (s1, s2)
    })
}

/// Fills `buf` from `offset` of `file`; false when the file ends first.
fn read_at(file: &mut std::fs::File, offset: u64, buf: &mut [u8]) -> bool {
    use std::io::{Seek, SeekFrom};
    file.seek(SeekFrom::Start(offset)).is_ok() && file.read_exact(buf).is_ok()
}

/// The salts in the WAL header (bytes 16..24).
fn wal_salts(path: &Path) -> Option<[u8; 8]> {
    let header = read_start::<32>(&beside(path, "-wal"))?;
    Some(header[16..24].try_into().expect("8 bytes"))
}

/// The salts the `-shm` index holds for its WAL: its header (wal.c's `WalIndexHdr`,
/// 48 bytes, written twice so a torn one shows) stores them at bytes 32..40, as they
/// are in the WAL header. `None` when there is no index or its two copies differ or
/// it was never filled in.
fn indexed_salts(path: &Path) -> Option<[u8; 8]> {
    let header = read_start::<96>(&beside(path, "-shm"))?;
    let (first, second) = header.split_at(48);
    // byte 12 is `isInit`
    (first == second && first[12] != 0).then(|| first[32..40].try_into().expect("8 bytes"))
}

/// The first `N` bytes of a file, when it has them.
fn read_start<const N: usize>(path: &Path) -> Option<[u8; N]> {
    let mut bytes = [0u8; N];
    std::fs::File::open(path)
        .ok()?
        .read_exact(&mut bytes)
        .ok()?;
    Some(bytes)
}

/// The page size a database file's header states (offset 16, big-endian; 1 means
/// 65536), when the file has a header.
pub(super) fn page_size(path: &Path) -> Option<u32> {
    let header = read_start::<18>(path)?;
    match u16::from_be_bytes([header[16], header[17]]) {
        1 => Some(65536),
        n => Some(u32::from(n)),
    }
}

/// `path` as an SQLite URI (`file:` with `?`, `#` and `%` and anything outside plain
/// ASCII percent-encoded), with `query` appended.
pub(super) fn uri(path: &Path, query: &str) -> String {
    use std::os::unix::ffi::OsStrExt;
    let mut out = String::from("file:");
    for &byte in path.as_os_str().as_bytes() {
        match byte {
            b'?' | b'#' | b'%' | 0..=b' ' | 0x7f.. => out.push_str(&format!("%{byte:02X}")),
            _ => out.push(byte as char),
        }
    }
    out.push('?');
    out.push_str(query);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_that_cannot_be_databases_are_named() {
        let dir = tempfile::tempdir().unwrap();
        assert!(matches!(
            exists(dir.path()),
            Err(StoreError::NotAFile {
                what: "a directory",
                ..
            })
        ));
        assert!(matches!(
            exists(Path::new("/dev/null")),
            Err(StoreError::NotAFile { .. })
        ));
        assert!(!exists(&dir.path().join("new.db")).unwrap());
        std::fs::write(dir.path().join("x.db"), b"").unwrap();
        assert!(exists(&dir.path().join("x.db")).unwrap());
    }

    #[test]
    fn uris_keep_odd_paths_intact() {
        assert_eq!(
            uri(Path::new("/a b/x?y#z%.db"), "mode=ro"),
            "file:/a%20b/x%3Fy%23z%25.db?mode=ro"
        );
    }

    /// A database in WAL mode with two commits in its WAL, written by SQLite with a
    /// second connection holding it open so that closing checkpoints nothing; returns
    /// that connection and the files as they are before any checkpoint.
    fn database_with_frames(db: &Path) -> (rusqlite::Connection, Vec<u8>, Vec<u8>) {
        let holder = rusqlite::Connection::open(db).unwrap();
        holder
            .query_row("PRAGMA journal_mode = WAL", [], |_| Ok(()))
            .unwrap();
        holder
            .execute_batch("CREATE TABLE t (x TEXT); INSERT INTO t VALUES ('before')")
            .unwrap();
        holder.pragma_update(None, "wal_autocheckpoint", 0).unwrap();
        holder
            .execute_batch("PRAGMA wal_checkpoint(TRUNCATE)")
            .unwrap();
        let writer = rusqlite::Connection::open(db).unwrap();
        writer.pragma_update(None, "wal_autocheckpoint", 0).unwrap();
        writer
            .execute_batch("INSERT INTO t VALUES ('one'); INSERT INTO t VALUES ('two')")
            .unwrap();
        drop(writer);
        let wal_file = std::fs::read(beside(db, "-wal")).unwrap();
        (holder, std::fs::read(db).unwrap(), wal_file)
    }

    #[test]
    fn a_wal_whose_pages_are_all_in_the_database_is_harmless() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("x.db");
        let (holder, before, frames) = database_with_frames(&db);
        let found = wal(&db).expect("frames in the WAL");
        assert!(
            !wal_applied(&db, found),
            "its pages are not in the database yet"
        );
        holder.execute_batch("PRAGMA wal_checkpoint").unwrap();
        assert!(wal_applied(&db, found), "checkpointed");
        let checkpointed_wal = std::fs::read(beside(&db, "-wal")).unwrap();
        drop(holder);
        // the last close removed both; a kill between the two unlinks leaves the WAL
        assert!(!beside(&db, "-wal").exists() && !beside(&db, "-shm").exists());
        std::fs::write(beside(&db, "-wal"), &checkpointed_wal).unwrap();
        assert_eq!(wal_belongs(&db, found), Ok(()));
        // the same WAL beside the database as it was before the checkpoint: foreign
        let checkpointed_db = std::fs::read(&db).unwrap();
        std::fs::write(&db, &before).unwrap();
        assert!(!wal_applied(&db, found));
        assert!(wal_belongs(&db, found).is_err());
        std::fs::write(&db, &checkpointed_db).unwrap();
        // a frame whose checksum fails ends the log: SQLite applies none after it
        assert_eq!(frames.len(), checkpointed_wal.len());
        let mut torn = checkpointed_wal.clone();
        let page = found.page_size as usize;
        torn[32 + 24 + 100] ^= 1;
        std::fs::write(beside(&db, "-wal"), &torn).unwrap();
        assert!(
            wal_applied(&db, found),
            "no frame is valid: nothing to apply"
        );
        // a database one page longer than the last commit states is not the checkpoint's
        std::fs::write(beside(&db, "-wal"), &checkpointed_wal).unwrap();
        let mut longer = checkpointed_db.clone();
        longer.extend(vec![0u8; page]);
        std::fs::write(&db, &longer).unwrap();
        assert!(!wal_applied(&db, found));
    }

    #[test]
    fn a_wal_counts_only_with_a_whole_frame() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("x.db");
        assert_eq!(wal(&db), None);
        let mut header = vec![0u8; 32];
        header[..4].copy_from_slice(&0x377f_0683u32.to_be_bytes());
        header[8..12].copy_from_slice(&4096u32.to_be_bytes());
        std::fs::write(beside(&db, "-wal"), &header).unwrap();
        assert_eq!(wal(&db), None, "a header alone holds no frame");
        header.resize(32 + 24 + 4096, 0);
        std::fs::write(beside(&db, "-wal"), &header).unwrap();
        assert_eq!(wal(&db), Some(Wal { page_size: 4096 }));
        header[0] = 0;
        std::fs::write(beside(&db, "-wal"), &header).unwrap();
        assert_eq!(wal(&db), None, "not SQLite's magic number");
    }
}
