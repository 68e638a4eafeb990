//! Data flows one way (run → measure → record → query → compare → render), so the
//! modules below the command line must not reach up into it: a parser that imports a
//! clap type, or a store that calls into a command, ties the library to one front end
//! and brings cycles between modules back. This reads the crate's own sources and
//! fails on any `crate::…` path that crosses a layer the wrong way; and on any row key
//! declared beside the model's.

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
        &[
            "cli", "cmd", "store", "render", "compare", "trend", "model", "bench", "host",
            "import", "export", "selector", "facts", "output", "process", "shell",
        ],
        "pure statistics on numbers (units aside): the model's runs and summaries use \
         stats, never the reverse",
    ),
    (
        "model",
        &[
            "cli", "cmd", "store", "render", "bench", "host", "compare", "trend", "import",
            "export",
        ],
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

/// The declarations in `text` of a type that would be a row key of its own: a struct,
/// enum or alias named `…RowKey` or `LineKey`, or an alias named `Row`.
fn row_key_declarations(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("");
        let words: Vec<&str> = code
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .filter(|w| !w.is_empty())
            .collect();
        for pair in words.windows(2) {
            let (kind, name) = (pair[0], pair[1]);
            let key_type = name.ends_with("RowKey") || name == "LineKey";
            let row_alias = kind == "type" && name == "Row";
            if ["struct", "enum", "type"].contains(&kind) && (key_type || row_alias) {
                found.push(format!("{kind} {name}"));
            }
        }
    }
    found
}

#[test]
fn the_row_key_is_declared_once_in_the_model() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let mut found = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let rel = file.strip_prefix(&src).unwrap().display().to_string();
        for declaration in row_key_declarations(&text) {
            found.push(format!("src/{rel}: {declaration}"));
        }
    }
    assert_eq!(
        found,
        ["src/model/row.rs: struct RowKey"],
        "a row key of its own: rows are keyed by model::RowKey (pooled where a reader \
         pools rows: RowKey::pooled), grouped by model::by_row"
    );
}

#[test]
fn the_row_key_check_sees_each_kind_of_declaration() {
    let text = "pub struct RowKey {\ntype Row = (u64, u64);\npub(super) type LineKey = u8;\n\
                enum SeriesRowKey {}\npub struct Row {\n// type Row = in a comment\n";
    assert_eq!(
        row_key_declarations(text),
        [
            "struct RowKey",
            "type Row",
            "type LineKey",
            "enum SeriesRowKey"
        ]
    );
}
