//! The schemas' history and the one way both backends apply it: numbered SQL files
//! (`migrations/` for SQLite, `migrations/postgres/` for PostgreSQL), applied in order,
//! each in a transaction of its own that holds the backend's migration lock, re-reads
//! the version recorded (another process may have applied steps meanwhile, or the
//! database may be someone else's or a newer iozone's) and records the new version.
//! Append only: a released migration is never edited.

/// SQLite's steps; the version is kept in `PRAGMA user_version`.
pub(super) const SQLITE: &[&str] = &[
    include_str!("../../migrations/0001_init.sql"),
    include_str!("../../migrations/0002_history_indexes.sql"),
    include_str!("../../migrations/0003_run_source.sql"),
    include_str!("../../migrations/0004_rounds_and_machine_state.sql"),
    include_str!("../../migrations/0005_iodepth.sql"),
    include_str!("../../migrations/0006_combinations.sql"),
    include_str!("../../migrations/0007_run_process.sql"),
    include_str!("../../migrations/0008_unstated_params.sql"),
    include_str!("../../migrations/0009_run_summaries.sql"),
    include_str!("../../migrations/0010_summary_levels.sql"),
];

/// PostgreSQL's steps; the versions applied are rows of `iozone.schema_version`.
pub(super) const POSTGRES: &[&str] = &[
    include_str!("../../migrations/postgres/0001_init.sql"),
    include_str!("../../migrations/postgres/0002_rounds_and_machine_state.sql"),
    include_str!("../../migrations/postgres/0003_iodepth.sql"),
    include_str!("../../migrations/postgres/0004_combinations.sql"),
    include_str!("../../migrations/postgres/0005_run_process.sql"),
    include_str!("../../migrations/postgres/0006_unstated_params.sql"),
    include_str!("../../migrations/postgres/0007_run_summaries.sql"),
    include_str!("../../migrations/postgres/0008_summary_levels.sql"),
    include_str!("../../migrations/postgres/0009_results_checked_per_statement.sql"),
];

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
