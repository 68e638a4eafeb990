//! The examples of README.md and of the guide (docs/*.md) are what the binary prints.
//! The classic comparison measures nothing, so its block is checked byte for byte; the
//! blocks of measured runs differ in their figures and are checked by
//! `scripts/check-readme.sh`.

use std::path::Path;

use crate::common::iozone;

/// A page's ```console blocks, each a list of (command, what it printed).
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

/// README.md and every page of the guide, with their paths.
fn pages(root: &Path) -> Vec<(String, String)> {
    let mut paths = vec![root.join("README.md")];
    let mut guide: Vec<_> = std::fs::read_dir(root.join("docs"))
        .expect("the guide is in docs/")
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "md"))
        .collect();
    guide.sort();
    paths.extend(guide);
    paths
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).unwrap();
            (path.display().to_string(), text)
        })
        .collect()
}

#[test]
fn the_documentation_has_examples_and_its_links_resolve() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let pages = pages(root);
    let blocks: usize = pages.iter().map(|(_, t)| console_blocks(t).len()).sum();
    assert!(blocks >= 4, "README and the guide show what iozone prints");
    for (path, text) in &pages {
        let dir = Path::new(path).parent().unwrap();
        for target in link_targets(text) {
            if target.contains("://") {
                continue;
            }
            let (file, anchor) = target.split_once('#').unwrap_or((&target, ""));
            let linked = if file.is_empty() {
                text.clone()
            } else {
                let linked = dir.join(file);
                assert!(
                    linked.exists(),
                    "{path} links to {target}, which is not there"
                );
                if linked.is_dir() || !file.ends_with(".md") {
                    continue;
                }
                std::fs::read_to_string(linked).unwrap()
            };
            if !anchor.is_empty() {
                assert!(
                    anchors(&linked).iter().any(|a| a == anchor),
                    "{path} links to {target}, a heading that is not there"
                );
            }
        }
    }
}

/// The targets of a page's Markdown links, `[text](target)`, outside code.
fn link_targets(text: &str) -> Vec<String> {
    let mut targets = Vec::new();
    for line in prose(text) {
        let mut rest = line;
        while let Some(at) = rest.find("](") {
            rest = &rest[at + 2..];
            if let Some(end) = rest.find(')') {
                targets.push(rest[..end].to_string());
            }
        }
    }
    targets
}

/// The anchors GitHub gives a page's headings: lower case, spaces as hyphens, other
/// punctuation dropped.
fn anchors(text: &str) -> Vec<String> {
    prose(text)
        .filter_map(|line| line.strip_prefix('#'))
        .map(|heading| {
            heading
                .trim_start_matches('#')
                .trim()
                .to_lowercase()
                .chars()
                .filter_map(|c| match c {
                    ' ' => Some('-'),
                    c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
                    _ => None,
                })
                .collect()
        })
        .collect()
}

/// A page's lines outside fenced code blocks.
fn prose(text: &str) -> impl Iterator<Item = &str> {
    let mut fenced = false;
    text.lines().filter(move |line| {
        if line.starts_with("```") {
            fenced = !fenced;
            return false;
        }
        !fenced
    })
}

#[test]
fn the_classic_comparison_in_the_guide_is_what_iozone_prints() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let blocks: Vec<_> = pages(root)
        .iter()
        .flat_map(|(_, text)| console_blocks(text))
        .collect();
    let classic = blocks
        .iter()
        .find(|b| {
            b.iter()
                .any(|(c, _)| c.contains("fixtures/classic/bebox-beos-dr8.txt"))
        })
        .expect("the guide shows the classic example");
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
        assert_eq!(
            printed, *expected,
            "the guide's output of `{command}` differs"
        );
    }
}
