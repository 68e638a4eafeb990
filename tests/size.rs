//! Files stay small enough to read whole: no source file under `src/` holds more than
//! 500 lines of code (blank lines and comments not counted) unless its `//!` doc has a
//! line starting `Kept whole:` that says why it reads better as one file than split.

use std::path::Path;

use crate::common::rust_sources;

/// The most lines of code a file under `src/` holds without saying why.
const MOST_LINES: usize = 500;

/// Lines that are neither blank nor comments (`//` of any kind, and `/* … */` blocks
/// that start a line).
fn lines_of_code(text: &str) -> usize {
    let mut in_block = false;
    text.lines()
        .map(str::trim)
        .filter(|line| {
            if in_block {
                in_block = !line.contains("*/");
                return false;
            }
            if line.starts_with("/*") {
                in_block = !line.contains("*/");
                return false;
            }
            !line.is_empty() && !line.starts_with("//")
        })
        .count()
}

/// Whether the file's `//!` doc says why it is kept whole.
fn says_why_it_is_whole(text: &str) -> bool {
    text.lines()
        .map(str::trim)
        .take_while(|line| line.starts_with("//!") || line.is_empty())
        .any(|line| {
            line.trim_start_matches("//!")
                .trim_start()
                .starts_with("Kept whole:")
        })
}

#[test]
fn no_source_file_is_over_500_lines_of_code_without_saying_why() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let files = rust_sources(&src);
    assert!(files.len() > 20, "found only {} sources", files.len());
    let mut long = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let lines = lines_of_code(&text);
        if lines > MOST_LINES && !says_why_it_is_whole(&text) {
            let rel = file.strip_prefix(&src).unwrap().display();
            long.push(format!("src/{rel}: {lines} lines of code"));
        }
    }
    assert!(
        long.is_empty(),
        "files over {MOST_LINES} lines of code: split each where a reader gains a name, or \
         say why it reads better whole in a `//! Kept whole: …` line of its doc\n{}",
        long.join("\n")
    );
}

#[test]
fn the_count_leaves_out_blank_lines_and_comments() {
    let text = "//! A module.\n//! Kept whole: one table.\n\nuse std::fs;\n\n/// A function.\n\
                fn f() {\n    // a comment\n    let x = 1; // after code\n    /* a block\n\
                    over lines */\n}\n";
    assert_eq!(lines_of_code(text), 4);
    assert!(says_why_it_is_whole(text));
    assert!(!says_why_it_is_whole(
        "//! A module.\n\nfn f() {}\n//! Kept whole: late\n"
    ));
}
