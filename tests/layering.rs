//! Data flows one way (run → measure → record → query → compare → render), so the
//! modules below the command line must not reach up into it: a parser that imports a
//! clap type, or a store that calls into a command, ties the library to one front end
//! and brings back the cycles issue 10 took out. This reads the crate's own sources and
//! fails on any `crate::…` path that crosses a layer the wrong way.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Which top-level modules each module must not name, and why.
const FORBIDDEN: &[(&str, &[&str], &str)] = &[
    (
        "cli",
        &["cmd"],
        "the CLI describes flags; commands use it, not the reverse",
    ),
    (
        "import",
        &["cli", "cmd", "store", "render", "bench"],
        "parsers turn files into runs",
    ),
    (
        "store",
        &["cli", "cmd", "render", "compare", "trend"],
        "a store keeps runs",
    ),
    (
        "bench",
        &["cli", "cmd", "store", "render", "host", "compare"],
        "the engine measures",
    ),
    (
        "host",
        &["cli", "cmd", "store", "render", "bench"],
        "probing reads the machine",
    ),
    (
        "stats",
        &["cli", "cmd", "store", "render", "compare", "trend"],
        "pure statistics",
    ),
    (
        "model",
        &["cli", "cmd", "store", "render", "bench", "host", "compare"],
        "plain data",
    ),
    (
        "units",
        &["cli", "cmd", "store", "render", "bench", "host", "model"],
        "plain data",
    ),
    (
        "compare",
        &["cli", "cmd", "render", "bench"],
        "verdicts are computed, then rendered",
    ),
    (
        "trend",
        &["cli", "cmd", "render", "bench"],
        "steps are computed, then rendered",
    ),
    (
        "render",
        &["cli", "cmd", "bench", "host"],
        "renderers take domain values, not flags",
    ),
    (
        "selector",
        &["cli", "cmd", "store", "render", "bench", "host", "compare"],
        "the selector language is words about runs; the store turns it into SQL",
    ),
    (
        "facts",
        &["cli", "cmd", "store", "render", "bench", "compare"],
        "the names and values of host and filesystem facts",
    ),
    (
        "export",
        &["cli", "cmd", "bench"],
        "export writes documents from runs",
    ),
    (
        "report",
        &["cli", "cmd", "bench", "host"],
        "a report's runs and series are gathered, then drawn",
    ),
    (
        "killed",
        &[
            "cli", "cmd", "render", "bench", "compare", "trend", "import", "export",
        ],
        "runs whose process is gone, found from the store and the machine",
    ),
    (
        "output",
        &[
            "cli", "cmd", "store", "render", "bench", "host", "compare", "trend", "import",
            "export",
        ],
        "output files are written where told, whatever they hold",
    ),
];

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

/// The top-level module a source file belongs to (`src/store/sqlite.rs` → `store`).
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap();
    let first = rel
        .components()
        .next()
        .unwrap()
        .as_os_str()
        .to_string_lossy();
    first.trim_end_matches(".rs").to_string()
}

/// The top-level modules a file names through `crate::`, comments left out.
fn named_modules(text: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            rest = &rest[at + "crate::".len()..];
            if let Some(group) = rest.strip_prefix('{') {
                // `crate::{a, b::c}` on one line; rustfmt splits longer groups over
                // lines, each of which then starts with the module's name
                let end = group.find('}').unwrap_or(group.len());
                for item in group[..end].split(',') {
                    found.insert(leading_name(item.trim()));
                }
            } else {
                found.insert(leading_name(rest));
            }
        }
    }
    let mut in_group = false;
    for line in text.lines() {
        let code = line.trim();
        if code.starts_with("use crate::{") && !code.contains('}') {
            in_group = true;
            continue;
        }
        if in_group {
            if code.starts_with('}') {
                in_group = false;
            } else if !code.starts_with("//") {
                found.insert(leading_name(code));
            }
        }
    }
    found.retain(|m| !m.is_empty());
    found
}

fn leading_name(path: &str) -> String {
    path.chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect()
}

#[test]
fn no_module_reaches_up_into_the_layers_above_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    files.sort();
    assert!(
        files.len() > 20,
        "found only {} sources in {src:?}",
        files.len()
    );
    let mut crossings = Vec::new();
    for file in &files {
        let module = module_of(&src, file);
        let Some((_, forbidden, why)) = FORBIDDEN.iter().find(|(m, ..)| *m == module) else {
            continue;
        };
        let text = std::fs::read_to_string(file).unwrap();
        for named in named_modules(&text) {
            if forbidden.contains(&named.as_str()) {
                let rel = file.strip_prefix(&src).unwrap().display();
                crossings.push(format!("src/{rel} names crate::{named} ({module}: {why})"));
            }
        }
    }
    assert!(
        crossings.is_empty(),
        "imports against the flow:\n{}",
        crossings.join("\n")
    );
}

#[test]
fn the_checker_sees_every_way_of_naming_a_module() {
    let text = "use crate::store::Store;\nuse crate::{model::Run, units};\n\
                use crate::{\n    cli::Args,\n    // crate::render is a comment\n    cmd,\n};\n\
                let x = crate::bench::DEFAULT; // crate::trend in a comment\n";
    let found: Vec<String> = named_modules(text).into_iter().collect();
    assert_eq!(found, ["bench", "cli", "cmd", "model", "store", "units"]);
}
