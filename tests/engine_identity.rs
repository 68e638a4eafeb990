//! What an engine can do is asked of the engine (`src/bench/engine/`, one file each,
//! as fio's `ioengine_ops`): whether it queues, goes through the page cache, checks
//! something before a run. Code elsewhere that decides by which engine it holds
//! (`engine == EngineKind::Uring`, `matches!(engine, EngineKind::Mmap | …)`) repeats
//! a capability the next engine will not know to update. This reads the crate's own
//! sources and fails on any such check outside the engines' module. Tests are left
//! out: picking a figure by its engine is what they assert, not what they decide.

use std::path::{Path, PathBuf};

/// The one place that may compare engines by name: each engine's own file.
const ENGINES: &str = "bench/engine/";

/// Our engines' names, as a string comparison would spell them.
const NAMES: [&str; 5] = ["posix", "pread", "mmap", "stdio", "uring"];

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Whether a file only holds tests: `tests.rs`, `…_tests.rs`, or under `tests/`.
fn test_only(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    name == "tests.rs" || name.ends_with("_tests.rs") || rel.contains("tests/")
}

/// The code of a file as one line: comments and the test module (which closes each
/// file, after `#[cfg(test)]`) left out, runs of whitespace made one space, so that
/// a check rustfmt spread over lines reads as written.
fn code_of(text: &str) -> String {
    let mut code = Vec::new();
    for line in text.lines() {
        if line.trim() == "#[cfg(test)]" {
            break;
        }
        code.push(line.split("//").next().unwrap_or(""));
    }
    code.join(" ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Every check of an engine's identity in `code`, as a few words around it.
fn identity_checks(code: &str) -> Vec<String> {
    const KIND: &str = "EngineKind::";
    let mut found = Vec::new();
    let mut at = 0;
    while let Some(i) = code[at..].find(KIND).map(|i| i + at) {
        at = i + KIND.len();
        let name_len = code[at..]
            .find(|c: char| !c.is_ascii_alphanumeric() && c != '_')
            .unwrap_or(code.len() - at);
        let name = &code[at..at + name_len];
        // a constant naming one of ours (`EngineKind::Uring`), not a function
        if !name.starts_with(|c: char| c.is_ascii_uppercase()) {
            continue;
        }
        let before = code[..i].trim_end();
        let after = code[at + name_len..].trim_start();
        let compared = ["==", "!=", "contains(&", "let"]
            .iter()
            .any(|op| before.ends_with(op))
            || ["==", "!=", "=>"].iter().any(|op| after.starts_with(op))
            || (after.starts_with('|') && !after.starts_with("||"));
        if compared {
            found.push(excerpt(code, i));
        }
    }
    // `matches!(engine, EngineKind::Mmap)`: whatever the pattern's shape
    let mut at = 0;
    while let Some(i) = code[at..].find("matches!(").map(|i| i + at) {
        at = i + "matches!(".len();
        let end = closing_paren(&code[at..]).map_or(code.len(), |e| at + e);
        if code[at..end].contains(KIND) {
            found.push(excerpt(code, i));
        }
    }
    // `engine.name() == "uring"`: the same check, by the name
    for name in NAMES {
        for op in ["==", "!="] {
            let spelled = format!("{op} \"{name}\"");
            if let Some(i) = code.find(&spelled) {
                found.push(excerpt(code, i));
            }
        }
    }
    found
}

/// Where the parenthesis opened just before `text` closes.
fn closing_paren(text: &str) -> Option<usize> {
    let mut depth = 1;
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ => {}
        }
        if depth == 0 {
            return Some(i);
        }
    }
    None
}

fn excerpt(code: &str, at: usize) -> String {
    let start = code[..at]
        .char_indices()
        .rev()
        .nth(40)
        .map_or(0, |(i, _)| i);
    let end = code[at..]
        .char_indices()
        .nth(60)
        .map_or(code.len(), |(i, _)| at + i);
    format!("…{}…", &code[start..end])
}

#[test]
fn no_code_outside_the_engines_decides_by_which_engine_it_holds() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    files.sort();
    assert!(files.len() > 20, "found only {} sources", files.len());
    let mut checks = Vec::new();
    for file in &files {
        let rel = file
            .strip_prefix(&src)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        if rel.starts_with(ENGINES) || test_only(&rel) {
            continue;
        }
        let code = code_of(&std::fs::read_to_string(file).unwrap());
        for check in identity_checks(&code) {
            checks.push(format!("src/{rel}: {check}"));
        }
    }
    assert!(
        checks.is_empty(),
        "engines told apart by name outside src/{ENGINES}; ask the engine \
         (bench::engine::of(kind)) what it can do instead:\n{}",
        checks.join("\n")
    );
}

#[test]
fn the_checker_sees_every_way_of_telling_engines_apart() {
    let text = "\
        if engine != EngineKind::Uring { }\n\
        let deep = engines.contains(&EngineKind::Uring);\n\
        let page = matches!(\n    engine,\n    EngineKind::Mmap | EngineKind::Stdio\n);\n\
        match kind { EngineKind::Posix => 1, _ => 2 }\n\
        if let EngineKind::Pread = kind { }\n\
        if EngineKind::Mmap == kind { }\n\
        if engine.name() == \"uring\" { }\n";
    let found = identity_checks(&code_of(text));
    assert_eq!(found.len(), 8, "{found:#?}");
    // naming an engine as a value is not telling engines apart
    let values = "\
        \"sync\" | \"vsync\" => EngineKind::Posix,\n\
        let e = EngineKind::named(name)?; // EngineKind::Uring == e in a comment\n\
        Measurement { engine: EngineKind::Mmap, ..m }\n\
        #[cfg(test)]\n\
        mod tests { assert!(e == EngineKind::Uring); }\n";
    assert_eq!(identity_checks(&code_of(values)), Vec::<String>::new());
}
