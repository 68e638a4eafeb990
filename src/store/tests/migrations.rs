//! Migrations once released never change, and the two stores' steps are held together.
//! Every step's file matches the SHA-256 `migrations/CHECKSUMS` records for it (a
//! commit that edited a released migration would otherwise pass unseen: a database
//! already past that step never runs the new text); every file is a step, numbered in
//! order; and the table of changes (`migrate::CHANGES`) places every step of both
//! stores, in order, each change made by both stores or saying why one needs none.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::migrate::{CHANGES, POSTGRES, POSTGRES_FILES, SQLITE, SQLITE_FILES, Side};

fn migrations_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations")
}

/// Every step of both stores: its file under `migrations/`, and its SQL as compiled in.
fn steps() -> impl Iterator<Item = (&'static str, &'static str)> {
    let sqlite = SQLITE_FILES.iter().zip(SQLITE);
    let postgres = POSTGRES_FILES.iter().zip(POSTGRES);
    sqlite.chain(postgres).map(|(file, sql)| (*file, *sql))
}

fn sha256(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// `migrations/CHECKSUMS` (`sha256sum`'s lines, paths from the repository's root), as
/// each file under `migrations/` and the checksum recorded for it.
fn recorded() -> BTreeMap<String, String> {
    let path = migrations_dir().join("CHECKSUMS");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    text.lines()
        .map(|line| {
            let (sum, file) = line
                .split_once("  ")
                .unwrap_or_else(|| panic!("not a `sha256sum` line in {path:?}: {line:?}"));
            let file = file
                .strip_prefix("migrations/")
                .unwrap_or_else(|| panic!("{path:?} names a file outside migrations/: {line:?}"));
            (file.to_string(), sum.to_string())
        })
        .collect()
}

#[test]
fn released_migrations_keep_their_recorded_checksums() {
    let recorded = recorded();
    let mut failures = Vec::new();
    for (file, sql) in steps() {
        let now = sha256(sql);
        match recorded.get(file) {
            None => failures.push(format!(
                "migration {file} has no recorded checksum: add the line \
                 `{now}  migrations/{file}` to migrations/CHECKSUMS in the commit that adds \
                 the migration"
            )),
            Some(was) if *was != now => failures.push(format!(
                "migration {file} changed after release: add a new migration instead \
                 (migrations/CHECKSUMS records {was}, the file now hashes to {now}); a \
                 database already past this step never runs the new text"
            )),
            Some(_) => {}
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_migration_file_is_a_step_and_every_recorded_one_still_is() {
    let steps: BTreeSet<&str> = steps().map(|(file, _)| file).collect();
    let mut files = BTreeSet::new();
    for dir in ["", "postgres/"] {
        for entry in std::fs::read_dir(migrations_dir().join(dir)).unwrap() {
            let name = entry.unwrap().file_name().to_string_lossy().into_owned();
            if name.ends_with(".sql") {
                files.insert(format!("{dir}{name}"));
            }
        }
    }
    for file in &files {
        assert!(
            steps.contains(file.as_str()),
            "migrations/{file} is in neither list of steps in src/store/migrate.rs: no \
             database would ever apply it"
        );
    }
    for file in recorded().keys() {
        assert!(
            steps.contains(file.as_str()),
            "migrations/CHECKSUMS records {file}, which is no longer a step: a released \
             migration is never removed, renamed or renumbered"
        );
    }
}

#[test]
fn each_store_numbers_its_steps_one_by_one_from_0001() {
    for (store, files) in [("sqlite", SQLITE_FILES), ("postgres", POSTGRES_FILES)] {
        for (at, file) in files.iter().enumerate() {
            let name = file.rsplit('/').next().unwrap();
            let number = format!("{:04}_", at + 1);
            assert!(
                name.starts_with(&number),
                "{store}'s step {} is {file}: steps are numbered in the order they apply",
                at + 1
            );
        }
    }
}

/// Where each step of one store is placed in [`CHANGES`]: the rows that name it.
fn rows_of(files: &[&str], side: impl Fn(&super::migrate::Change) -> &Side) -> Vec<Vec<usize>> {
    files
        .iter()
        .map(|file| {
            CHANGES
                .iter()
                .enumerate()
                .filter(|(_, change)| matches!(side(change), Side::Step(f) if f == file))
                .map(|(row, _)| row)
                .collect()
        })
        .collect()
}

#[test]
fn every_step_of_both_stores_has_its_place_in_the_table_of_changes() {
    for change in CHANGES {
        for (store, side, files) in [
            ("SQLite", &change.sqlite, SQLITE_FILES),
            ("PostgreSQL", &change.postgres, POSTGRES_FILES),
        ] {
            match side {
                Side::Step(file) => assert!(
                    files.contains(file),
                    "the change '{}' names {file}, which is no step of {store}",
                    change.what
                ),
                Side::Without(why) => assert!(
                    !why.trim().is_empty(),
                    "the change '{}' is made without {store}: say why",
                    change.what
                ),
            }
        }
        assert!(
            matches!(change.sqlite, Side::Step(_)) || matches!(change.postgres, Side::Step(_)),
            "the change '{}' is made by neither store",
            change.what
        );
    }
    for (store, other, files, rows) in [
        (
            "SQLite",
            "PostgreSQL",
            SQLITE_FILES,
            rows_of(SQLITE_FILES, |c| &c.sqlite),
        ),
        (
            "PostgreSQL",
            "SQLite",
            POSTGRES_FILES,
            rows_of(POSTGRES_FILES, |c| &c.postgres),
        ),
    ] {
        let mut last = 0;
        for (file, rows) in files.iter().zip(&rows) {
            assert!(
                !rows.is_empty(),
                "{store}'s step {file} is in no row of migrate::CHANGES: say which step of \
                 {other} makes the same change, or why {other} needs none"
            );
            assert!(
                rows[0] >= last,
                "{store}'s step {file} is placed before the step it follows in \
                 migrate::CHANGES: the table lists changes in the order both stores make them"
            );
            last = *rows.last().unwrap();
        }
    }
}

/// The SQL of one step, found by its file.
fn sql_of(file: &str) -> &'static str {
    steps()
        .find(|(f, _)| *f == file)
        .map(|(_, sql)| sql)
        .unwrap_or_else(|| panic!("no step {file}"))
}

/// The identifiers of `sql` outside its comments, a schema's prefix taken off.
fn words(sql: &str) -> BTreeSet<String> {
    sql.lines()
        .map(|line| line.split("--").next().unwrap())
        .flat_map(|line| line.split(|c: char| !(c.is_alphanumeric() || c == '_')))
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// The names a step creates or adds (tables, views, indexes, columns), without the
/// tables it builds only to rename (SQLite's way to change a table's key) and without
/// the schema itself.
fn names_added(sql: &str) -> BTreeSet<String> {
    let tokens: Vec<String> = sql
        .lines()
        .map(|line| line.split("--").next().unwrap())
        .flat_map(|line| line.split(|c: char| c.is_whitespace() || "(),;".contains(c)))
        .filter(|token| !token.is_empty())
        .map(str::to_lowercase)
        .collect();
    let unqualified = |name: &str| name.rsplit('.').next().unwrap().to_string();
    let mut added = BTreeSet::new();
    let mut renamed = BTreeSet::new();
    for (at, window) in tokens.windows(2).enumerate() {
        let named_after = |skip: &[&str]| {
            tokens[at + 2..]
                .iter()
                .find(|t| !skip.contains(&t.as_str()))
                .map(|t| unqualified(t))
        };
        match (window[0].as_str(), window[1].as_str()) {
            ("create", "table" | "index" | "view") | ("add", "column") => {
                added.extend(named_after(&["if", "not", "exists", "unique"]));
            }
            ("rename", "to") => {
                renamed.insert(unqualified(&tokens[at - 1]));
            }
            _ => {}
        }
    }
    &added - &renamed
}

#[test]
fn a_change_made_by_both_stores_adds_the_same_names_in_each() {
    // the steps of the same change, from each side: PostgreSQL's first step made three
    // of SQLite's changes at once
    let mut together: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for change in CHANGES {
        if let (Side::Step(sqlite), Side::Step(postgres)) = (&change.sqlite, &change.postgres) {
            together.entry(sqlite).or_default().insert(postgres);
            together.entry(postgres).or_default().insert(sqlite);
        }
    }
    // PostgreSQL records the versions applied in a table; SQLite in `user_version`
    let bookkeeping = BTreeSet::from(["schema_version".to_string()]);
    for (step, others) in &together {
        let theirs: BTreeSet<String> = others.iter().flat_map(|o| words(sql_of(o))).collect();
        let missing: Vec<String> = names_added(sql_of(step))
            .into_iter()
            .filter(|name| !bookkeeping.contains(name) && !theirs.contains(name))
            .collect();
        assert!(
            missing.is_empty(),
            "{step} adds {missing:?}, which {others:?} (the same change in the other store, \
             by migrate::CHANGES) never names"
        );
    }
}
