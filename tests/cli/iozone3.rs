//! iozone3's command line typed into ours: one line naming this program, the
//! `iozone run` that measures the same, and iozone3's own program when installed.

use std::os::unix::fs::PermissionsExt;

use crate::common::iozone;

/// `iozone ARGS` with `PATH` set to `path`: (status, stderr); stdout must stay empty.
fn habit(args: &[&str], path: &std::ffi::OsStr) -> (Option<i32>, String) {
    let out = iozone().env("PATH", path).args(args).output().unwrap();
    assert!(out.stdout.is_empty(), "{args:?}");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn iozone3_s_flags_get_the_translated_run_and_status_2() {
    let scratch = tempfile::tempdir().unwrap();
    let bin = scratch.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let (code, err) = habit(
        &["-a", "-s", "1g", "-r", "4k", "-i", "0", "-i", "1"],
        bin.as_os_str(),
    );
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert!(err.starts_with("error: "), "{err}");
    assert!(
        err.contains("this is iozone, the file I/O history tracker"),
        "{err}"
    );
    assert!(
        err.contains("`iozone run -s 1g -r 4k -i write,read --cache buffered`"),
        "{err}"
    );
    // iozone3 nowhere on PATH: where Debian puts it, if there
    let debian = std::path::Path::new("/usr/bin/iozone");
    match debian.exists() {
        true => assert!(err.contains("iozone3 itself is /usr/bin/iozone"), "{err}"),
        false => assert!(err.contains("iozone3 itself is not installed"), "{err}"),
    }
    // iozone3 on PATH: named, with what has no equivalent here
    let iozone3 = bin.join("iozone");
    std::fs::write(&iozone3, "#!/bin/sh\necho iozone3\n").unwrap();
    std::fs::set_permissions(&iozone3, std::fs::Permissions::from_mode(0o755)).unwrap();
    let (code, err) = habit(
        &["-q", "-r", "512", "-i", "0", "-R", "-b", "out.xls"],
        bin.as_os_str(),
    );
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("`iozone run -s 512k -r 512k -i write --cache buffered`"),
        "{err}"
    );
    assert!(err.contains("(nothing here for -R, -b out.xls)"), "{err}");
    assert!(
        err.trim_end()
            .ends_with(&format!("iozone3 itself is {}", iozone3.display())),
        "{err}"
    );
}

#[test]
fn our_own_mistakes_keep_clap_s_message() {
    let path = std::env::var_os("PATH").unwrap_or_default();
    for args in [&["--bogus"][..], &["run", "-+m", "x"], &["history", "-a"]] {
        let (code, err) = habit(args, &path);
        assert_eq!(code, Some(2), "{err}");
        assert!(err.contains("Usage: iozone"), "{args:?}: {err}");
        assert!(!err.contains("iozone3"), "{args:?}: {err}");
    }
}
