//! What `import` is given, before any parser sees it: standard input, empty files,
//! inputs in no format, and inputs larger than any result file.

use std::io::Write as _;

use super::runs;
use crate::common::{fixture, iozone, on};

/// The one line an input that cannot be imported gets, with exit status 2.
fn refused(db: &std::path::Path, path: &std::path::Path) -> String {
    let (code, _, err) = on(db, &["import", path.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{path:?}: {err}");
    assert_eq!(err.lines().count(), 1, "{path:?}: {err}");
    assert!(!err.contains("panicked"), "{err}");
    err
}

#[test]
fn a_dash_reads_standard_input() {
    let scratch = tempfile::tempdir().unwrap();
    let db = scratch.path().join("h.db");
    let table = std::fs::read(fixture("classic/bebox-beos-dr8.txt")).unwrap();
    let out = iozone()
        .env("IOZONE_DB", &db)
        .args(["import", "-", "--label", "piped"])
        .write_stdin(table)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("standard input: 1 run"), "{err}");
    let runs = runs(&db);
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0]["labels"], serde_json::json!(["piped"]));
    assert_eq!(runs[0]["source"]["tool"], "classic");
}

#[test]
fn an_empty_file_is_called_empty() {
    let scratch = tempfile::tempdir().unwrap();
    let db = scratch.path().join("h.db");
    let empty = scratch.path().join("empty.txt");
    std::fs::write(&empty, "").unwrap();
    let err = refused(&db, &empty);
    assert!(err.contains("empty.txt: empty"), "{err}");
    assert!(!err.contains("known format"), "{err}");
}

/// `/dev/zero` never ends: it must be refused from its first bytes, not read until
/// memory runs out.
#[test]
fn an_endless_binary_input_is_refused_from_its_first_bytes() {
    let scratch = tempfile::tempdir().unwrap();
    let db = scratch.path().join("h.db");
    let err = refused(&db, std::path::Path::new("/dev/zero"));
    assert!(err.contains("/dev/zero: not a text file"), "{err}");
    assert!(runs(&db).is_empty());
}

/// A classic table's header, then more bytes than any such table has: refused at the
/// limit with the limit named. iozone3 output, read a line at a time whatever its
/// size, is refused at a line longer than any of iozone's. The files are sparse: they
/// cost no disk.
#[test]
fn an_input_past_the_size_limit_is_refused_naming_the_limit() {
    let scratch = tempfile::tempdir().unwrap();
    let db = scratch.path().join("h.db");
    let huge = |name: &str, head: &[u8]| {
        let path = scratch.path().join(name);
        let mut file = std::fs::File::create(&path).unwrap();
        file.write_all(head).unwrap();
        // text past the part the format is told from; NULs (the sparse rest) after it
        file.write_all(&[b' '; 128 << 10]).unwrap();
        file.set_len((64 << 20) + 1).unwrap();
        path
    };
    let classic = huge(
        "huge.txt",
        b"Command  Read (bytes/sec)  Write (bytes/sec)\n",
    );
    let err = refused(&db, &classic);
    assert!(
        err.contains("huge.txt: larger than 64 MiB") && err.contains("classic IOzone table"),
        "{err}"
    );
    let iozone3 = huge("long.txt", b"\tIozone: Performance Test of File I/O\n");
    let err = refused(&db, &iozone3);
    assert!(
        err.contains("long.txt: line 2: longer than 65536 bytes: not iozone3 output"),
        "{err}"
    );
    assert!(runs(&db).is_empty());
}
