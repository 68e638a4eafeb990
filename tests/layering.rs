//! Data flows one way (run → measure → record → query → compare → render), so the
//! modules below the command line must not reach up into it: a parser that imports a
//! clap type, or a store that calls into a command, ties the library to one front end
//! and brings back cycles between modules. This reads the crate's own sources and
//! fails on any `crate::…` path that crosses a layer the wrong way, on a command that
//! calls another's file, on clap named below the command line, and on the environment
//! read anywhere but where the command line reads it; and on any row key declared beside
//! the model's.

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
            "import", "export", "selector", "facts", "output", "process", "shell", "paged",
            "report", "killed",
        ],
        "pure statistics on numbers (units aside): the model's runs and summaries use \
         stats, never the reverse",
    ),
    (
        "model",
        &[
            "cli", "cmd", "store", "render", "bench", "host", "compare", "trend", "import",
            "export", "paged", "report", "killed",
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
        "report",
        &["cli", "cmd", "bench", "host"],
        "a report's runs and series are gathered, then drawn",
    ),
    (
        "paged",
        &["cli", "cmd", "bench", "host", "compare", "trend"],
        "listings are read from the store and written by the renderers",
    ),
    (
        "killed",
        &[
            "cli", "cmd", "render", "bench", "compare", "trend", "import", "export",
        ],
        "runs whose process is gone, found from the store and the machine",
    ),
    (
        "cluster",
        &[
            "cli", "cmd", "store", "render", "compare", "trend", "report", "paged", "import",
            "export",
        ],
        "the ranks measure together; the command records what rank 0 gathered",
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
    named_after(text, "crate::")
}

/// The names a file reaches through `prefix` (`crate::`, `super::`), comments left out:
/// `prefix name`, `prefix {a, b::c}` on one line, and a `use prefix {` group over lines.
fn named_after(text: &str, prefix: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for line in text.lines() {
        let code = code_of(line);
        for (at, _) in code.match_indices(prefix) {
            // `super::super::x` is not `super::x`, nor `foo_crate::x` `crate::x`
            let before = &code[..at];
            if before.ends_with("::") || before.ends_with(|c: char| c.is_alphanumeric() || c == '_')
            {
                continue;
            }
            let rest = &code[at + prefix.len()..];
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
    let opening = format!("use {prefix}{{");
    let mut in_group = false;
    for line in text.lines() {
        let code = line.trim();
        if code.starts_with(&opening) && !code.contains('}') {
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
    found.retain(|m| !m.is_empty() && m != "super");
    found
}

/// A line without its comment.
fn code_of(line: &str) -> &str {
    line.split("//").next().unwrap_or("")
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

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every source under `src/`, with its path from `src/` written with `/`.
fn all_sources() -> Vec<(String, String)> {
    let src = src_dir();
    let mut files = Vec::new();
    sources(&src, &mut files);
    files.sort();
    assert!(files.len() > 20, "found only {} sources", files.len());
    (files.into_iter())
        .map(|file| {
            let rel = file.strip_prefix(&src).unwrap().to_string_lossy();
            let text = std::fs::read_to_string(&file).unwrap();
            (rel.replace('\\', "/"), text)
        })
        .collect()
}

/// A file's code: its lines without their comments.
fn code(text: &str) -> String {
    text.lines()
        .map(|l| code_of(l).to_string() + "\n")
        .collect()
}

/// `cmd/` holds one file per subcommand, which parses, calls the library and prints:
/// logic two commands share belongs in the library (or, to say things on stderr, in
/// `cmd/mod.rs`), not in one command's file for the other to call sideways.
#[test]
fn no_command_names_another_command() {
    let cmd = src_dir().join("cmd");
    let commands: BTreeSet<String> = (std::fs::read_dir(&cmd).unwrap())
        .map(|e| e.unwrap().path())
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .filter(|name| name != "mod")
        .collect();
    assert!(
        commands.contains("run") && commands.contains("report"),
        "{commands:?}"
    );
    let mut sideways = Vec::new();
    for (rel, text) in all_sources() {
        let Some(inside) = rel.strip_prefix("cmd/") else {
            continue;
        };
        if inside == "mod.rs" {
            continue;
        }
        let parts: Vec<&str> = inside.split('/').collect();
        let own = parts[0].trim_end_matches(".rs");
        // `super::` from cmd/x.rs, `super::super::` from cmd/x/y.rs
        let up = "super::".repeat(parts.len());
        let named = named_after(&text, &up).into_iter();
        for name in named.chain(named_after(&text, "crate::cmd::")) {
            // the Context every command is given is named through `cmd/mod.rs`
            if name != own && name != "context" && commands.contains(&name) {
                sideways.push(format!("src/{rel} names cmd::{name}"));
            }
        }
    }
    assert!(
        sideways.is_empty(),
        "commands calling each other:\n{}",
        sideways.join("\n")
    );
}

/// Where clap may be named: the command line's description, the binary that parses
/// it, and the commands, which take its arguments (and `man` and `completions`, which
/// describe them). Below them, values are listed and parsed by plain code (each enum's
/// `ALL` and `name`), so the library does not depend on one front end.
const CLAP_USERS: &[&str] = &["cli/", "cmd/", "main.rs"];

#[test]
fn clap_is_named_by_the_command_line_alone() {
    let mut found = Vec::new();
    for (rel, text) in all_sources() {
        if CLAP_USERS.iter().any(|user| rel.starts_with(user)) {
            continue;
        }
        let code = code(&text);
        for (n, line) in code.lines().enumerate() {
            if ["clap::", "clap_complete", "clap_mangen", "use clap"]
                .iter()
                .any(|word| line.contains(word))
            {
                found.push(format!("src/{rel}:{}: {}", n + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "clap below the command line:\n{}",
        found.join("\n")
    );
}

/// Who may read the environment, and why. Anywhere else a variable would be a hidden
/// input: the command line reads each once, into the `Context`, and hands the library
/// what it says.
const ENVIRONMENT_READERS: &[(&str, &str)] = &[
    (
        "main.rs",
        "the binary, whose flags clap may take from the environment",
    ),
    (
        "cli/",
        "flags with an environment fallback; iozone3's PATH lookup",
    ),
    (
        "cmd/context.rs",
        "the settings every command is given, read once",
    ),
    (
        "shell.rs",
        "the terminal's convention NO_COLOR, read as main builds the shell",
    ),
    (
        "store/postgres/",
        "libpq's PGPASSWORD, for every connection however its URL was given, as libpq \
         itself reads it",
    ),
    ("store/tests/", "tests finding their PostgreSQL server"),
];

#[test]
fn the_environment_is_read_by_the_command_line_alone() {
    let mut found = Vec::new();
    for (rel, text) in all_sources() {
        if ENVIRONMENT_READERS
            .iter()
            .any(|(who, _)| rel.starts_with(who))
        {
            continue;
        }
        for (n, line) in code(&text).lines().enumerate() {
            if line.contains("env::var") {
                found.push(format!("src/{rel}:{}: {}", n + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "the environment read below the command line (read it into cmd::Context):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_checker_sees_names_through_super() {
    let text = "use super::Context;\nuse super::{compare, trend::series};\n\
                let x = super::super::record::finish(); // super::spool\n\
                use super::{\n    history,\n};\n";
    let found: Vec<String> = named_after(text, "super::").into_iter().collect();
    assert_eq!(found, ["Context", "compare", "history", "trend"]);
    let found: Vec<String> = named_after(text, "super::super::").into_iter().collect();
    assert_eq!(found, ["record"]);
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
