//! The schemas' history and the one way both backends apply it: numbered SQL files
//! (`migrations/` for SQLite, `migrations/postgres/` for PostgreSQL), applied in order,
//! each in a transaction of its own that holds the backend's migration lock, re-reads
//! the version recorded (another process may have applied steps meanwhile, or the
//! database may be someone else's or a newer iozone's) and records the new version.
//! Append only: a released migration is never edited, renamed or renumbered; a change
//! is a new step. `migrations/CHECKSUMS` records every step's SHA-256 (a new step's line
//! goes in with it, in the same commit; `sha256sum -c migrations/CHECKSUMS` checks them
//! by hand) and a test fails when a file no longer matches.

/// Both lists of steps from one list of file names: the SQL compiled in, and the names
/// the checksum test and [`CHANGES`] know the steps by.
macro_rules! steps {
    ($(#[$doc:meta])* $sql:ident, $files:ident = $dir:literal [$($file:literal),* $(,)?]) => {
        $(#[$doc])*
        pub(super) const $sql: &[&str] =
            &[$(include_str!(concat!("../../migrations/", $dir, $file))),*];

        /// The files of the steps, in the same order, under `migrations/`.
        #[cfg_attr(not(test), allow(dead_code))]
        pub(super) const $files: &[&str] = &[$(concat!($dir, $file)),*];
    };
}

steps!(
    /// SQLite's steps; the version is kept in `PRAGMA user_version`.
    SQLITE, SQLITE_FILES = "" [
        "0001_init.sql",
        "0002_history_indexes.sql",
        "0003_run_source.sql",
        "0004_rounds_and_machine_state.sql",
        "0005_iodepth.sql",
        "0006_combinations.sql",
        "0007_run_process.sql",
        "0008_unstated_params.sql",
        "0009_run_summaries.sql",
        "0010_summary_levels.sql",
        "0011_metadata_tests.sql",
    ]
);

steps!(
    /// PostgreSQL's steps; the versions applied are rows of `iozone.schema_version`.
    POSTGRES, POSTGRES_FILES = "postgres/" [
        "0001_init.sql",
        "0002_rounds_and_machine_state.sql",
        "0003_iodepth.sql",
        "0004_combinations.sql",
        "0005_run_process.sql",
        "0006_unstated_params.sql",
        "0007_run_summaries.sql",
        "0008_summary_levels.sql",
        "0009_results_checked_per_statement.sql",
        "0010_metadata_tests.sql",
    ]
);

/// Which steps of the two stores make the same change. Their numbers differ
/// (PostgreSQL's first step made SQLite's first three at once, and it has a step of its
/// own), so this table, not the numbers, says that SQLite's 0009 is PostgreSQL's 0007.
/// Every step of both stores is in it, in order; a change one store makes without the
/// other says why (tests in `store::tests::migrations` hold the table to the steps).
/// A new migration gets its row here in the commit that adds it.
#[cfg_attr(not(test), allow(dead_code))]
pub(super) const CHANGES: &[Change] = &[
    Change {
        what: "runs, their labels and tags, and their results",
        sqlite: Side::Step("0001_init.sql"),
        postgres: Side::Step("postgres/0001_init.sql"),
    },
    Change {
        what: "indexes for history's filters",
        sqlite: Side::Step("0002_history_indexes.sql"),
        postgres: Side::Step("postgres/0001_init.sql"),
    },
    Change {
        what: "runs keep their source",
        sqlite: Side::Step("0003_run_source.sql"),
        postgres: Side::Step("postgres/0001_init.sql"),
    },
    Change {
        what: "rounds, warm-up results and the machine's state",
        sqlite: Side::Step("0004_rounds_and_machine_state.sql"),
        postgres: Side::Step("postgres/0002_rounds_and_machine_state.sql"),
    },
    Change {
        what: "queue depth",
        sqlite: Side::Step("0005_iodepth.sql"),
        postgres: Side::Step("postgres/0003_iodepth.sql"),
    },
    Change {
        what: "each result's engine and cache mode",
        sqlite: Side::Step("0006_combinations.sql"),
        postgres: Side::Step("postgres/0004_combinations.sql"),
    },
    Change {
        what: "the process that measured a run",
        sqlite: Side::Step("0007_run_process.sql"),
        postgres: Side::Step("postgres/0005_run_process.sql"),
    },
    Change {
        what: "parameters an imported file does not state",
        sqlite: Side::Step("0008_unstated_params.sql"),
        postgres: Side::Step("postgres/0006_unstated_params.sql"),
    },
    Change {
        what: "per-run summaries",
        sqlite: Side::Step("0009_run_summaries.sql"),
        postgres: Side::Step("postgres/0007_run_summaries.sql"),
    },
    Change {
        what: "summaries keep a run's whole level",
        sqlite: Side::Step("0010_summary_levels.sql"),
        postgres: Side::Step("postgres/0008_summary_levels.sql"),
    },
    Change {
        what: "results checked against their runs once a statement",
        sqlite: Side::Without(
            "SQLite keeps its foreign key: it checks a row against an index in the same \
             process, where a server spent half its time inserting results on the key",
        ),
        postgres: Side::Step("postgres/0009_results_checked_per_statement.sql"),
    },
    Change {
        what: "metadata tests: a run's tree and a result's operations",
        sqlite: Side::Step("0011_metadata_tests.sql"),
        postgres: Side::Step("postgres/0010_metadata_tests.sql"),
    },
];

/// One logical change to the schema, and how each store makes it.
#[cfg_attr(not(test), allow(dead_code))]
pub(super) struct Change {
    /// What the change does, in a few words.
    pub what: &'static str,
    pub sqlite: Side,
    pub postgres: Side,
}

/// How one store makes a change.
#[cfg_attr(not(test), allow(dead_code))]
pub(super) enum Side {
    /// By the step of this file (as named in the store's list of files).
    Step(&'static str),
    /// Not at all, for this reason.
    Without(&'static str),
}

/// A database whose schema can be brought up to date.
pub(super) trait Migrate {
    type Error;
    type Step<'a>: Step<Error = Self::Error>
    where
        Self: 'a;

    /// A transaction that holds the migration lock: other migrators wait for it.
    fn begin(&mut self) -> Result<Self::Step<'_>, Self::Error>;
}

/// One migration's transaction.
pub(super) trait Step {
    type Error;

    /// The schema version recorded; an error for a database that is not iozone's or
    /// that a newer iozone (knowing more than `known` steps) wrote.
    fn version(&mut self, known: usize) -> Result<usize, Self::Error>;

    /// Runs one step's SQL and records `version` as the schema's.
    fn apply(&mut self, sql: &str, version: usize) -> Result<(), Self::Error>;

    fn commit(self) -> Result<(), Self::Error>;
}

/// Applies the steps not yet applied, one transaction each.
pub(super) fn to_latest<M: Migrate>(db: &mut M, steps: &[&str]) -> Result<(), M::Error> {
    loop {
        let mut step = db.begin()?;
        let version = step.version(steps.len())?;
        if version == steps.len() {
            return Ok(());
        }
        step.apply(steps[version], version + 1)?;
        step.commit()?;
    }
}
