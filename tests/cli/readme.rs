//! README's examples are what the binary prints (issue 13.19). The classic comparison
//! measures nothing, so its block is checked byte for byte; the blocks of measured
//! runs differ in their figures and are checked by `scripts/check-readme.sh`.

use std::path::Path;

use crate::common::iozone;

/// The README's ```console blocks, each a list of (command, what it printed).
fn console_blocks(readme: &str) -> Vec<Vec<(String, String)>> {
    let mut blocks = Vec::new();
    let mut lines = readme.lines();
    while lines.any(|l| l == "```console") {
        let mut block: Vec<(String, String)> = Vec::new();
        for line in lines.by_ref().take_while(|l| *l != "```") {
            match (line.strip_prefix("$ "), block.last_mut()) {
                (Some(command), _) => block.push((command.to_string(), String::new())),
                (None, Some((_, printed))) => {
                    printed.push_str(line);
                    printed.push('\n');
                }
                (None, None) => panic!("a console block starts with output: {line}"),
            }
        }
        blocks.push(block);
    }
    blocks
}

#[test]
fn the_classic_comparison_in_readme_is_what_iozone_prints() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let blocks = console_blocks(&readme);
    let classic = blocks
        .iter()
        .find(|b| {
            b.iter()
                .any(|(c, _)| c.contains("fixtures/classic/bebox-beos-dr8.txt"))
        })
        .expect("README shows the classic example");
    let scratch = tempfile::tempdir().unwrap();
    for (command, expected) in classic {
        let args: Vec<&str> = command
            .strip_prefix("iozone ")
            .unwrap_or_else(|| panic!("not an iozone command: {command}"))
            .split_whitespace()
            .collect();
        let out = iozone()
            .current_dir(root)
            .env("IOZONE_DB", scratch.path().join("h.db"))
            .args(&args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{command}");
        // status lines on stderr come before the data on stdout, as a terminal shows them
        let printed = String::from_utf8_lossy(&out.stderr).into_owned()
            + &String::from_utf8_lossy(&out.stdout);
        assert_eq!(printed, *expected, "README's output of `{command}` differs");
    }
}
