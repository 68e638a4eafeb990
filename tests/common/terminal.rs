//! Commands on a pseudo-terminal of a chosen width, from `script(1)`, as a person sees
//! them.

use std::path::Path;
use std::process::Command;

/// `iozone ARGS` with stdin, stdout and stderr on a pseudo-terminal `columns` wide,
/// as a person sees it (carriage returns and all).
pub fn on_terminal_of(columns: usize, db: &Path, args: &[&str]) -> String {
    let binary = assert_cmd::cargo::cargo_bin("iozone");
    // each word quoted for the shell, as typed
    let quoted = |word: &str| format!("'{}'", word.replace('\'', r"'\''"));
    let words: Vec<String> = args.iter().map(|a| quoted(a)).collect();
    let command = format!(
        "stty cols {columns} rows 50; exec {} --db {} {}",
        quoted(&binary.display().to_string()),
        quoted(&db.display().to_string()),
        words.join(" ")
    );
    let out = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .env("NO_COLOR", "1")
        .output()
        .expect("script(1) from util-linux runs");
    assert!(out.status.success(), "{args:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap().replace("\r\n", "\n")
}
