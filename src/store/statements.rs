//! What both backends ask of their database and what the answers mean, written once:
//! the statements (with `?` placeholders and the tables' schema prefix, `""` for SQLite
//! and `"iozone."` for PostgreSQL), the rows of labels and tags, the grouping of
//! results by run and the resolution of a reference to one run. The backends only
//! run the statements with their driver.

use std::collections::HashMap;

use uuid::Uuid;

use super::columns::{
    self, Column, Detail, FINISHED_COLUMNS, Kind, RESULT_COLUMNS, RUN_COLUMNS, ResultRow,
    SUMMARY_COLUMNS, SummaryRow, Value,
};
use super::filter::{self, Param};
use super::{RunFilter, RunRef, RunResults, StoreError};
use crate::model::{RowSummary, Run, RunStatus};

/// A statement and its parameters, each with the kind of value its placeholder takes.
pub struct Statement {
    pub sql: String,
    pub params: Vec<(Kind, Value<'static>)>,
}

/// The `history` query: the runs `filter` selects, newest first.
pub fn list_runs(schema: &str, filter: &RunFilter) -> Statement {
    selected(schema, filter, &columns::select_list(RUN_COLUMNS), false)
}

/// A walk's runs: `columns` of the runs `filter` selects, in its order (or host by host,
/// `by_host`), up to its limit.
pub fn walk_runs(
    schema: &str,
    filter: &RunFilter,
    columns: &[&columns::Column<Run>],
    by_host: bool,
) -> Statement {
    let names: Vec<&str> = columns.iter().map(|c| c.name).collect();
    selected(schema, filter, &names.join(", "), by_host)
}

/// `select` (a list of `r.` columns) of the runs `filter` selects, in its order (or
/// host by host), up to its limit.
fn selected(schema: &str, filter: &RunFilter, select: &str, by_host: bool) -> Statement {
    let mut sql = format!("SELECT {select} FROM {schema}runs r WHERE 1 = 1");
    let mut params = Vec::new();
    for (clause, values) in filter::conditions(filter, schema) {
        sql.push_str(" AND ");
        sql.push_str(&clause);
        params.extend(values.into_iter().map(|value| match value {
            Param::Text(t) => (Kind::Text, Value::Text(t.into())),
            Param::Int(i) => (Kind::Integer, Value::Integer(i)),
            Param::Time(t) => (Kind::Time, Value::Time(t)),
        }));
    }
    sql.push_str(filter::order(filter, by_host));
    sql.push_str(&filter::limit(filter));
    Statement { sql, params }
}

/// `SELECT` of every run column from `runs`, ready for a `WHERE`.
pub fn select_runs(schema: &str) -> String {
    format!(
        "SELECT {} FROM {schema}runs r",
        columns::select_list(RUN_COLUMNS)
    )
}

/// The `columns` of the results of the runs `which_runs` picks (a condition on
/// `run_id`).
pub fn select_results(schema: &str, which_runs: &str, columns: &[Column<ResultRow>]) -> String {
    format!(
        "SELECT {} FROM {schema}results WHERE {which_runs}",
        columns::select_list(columns)
    )
}

/// The results `which` picks (a condition on `run_id` and `test`), largest file and
/// record size first, through the table's key.
pub fn select_largest_first(schema: &str, which: &str, columns: &[Column<ResultRow>]) -> String {
    format!(
        "SELECT {} FROM {schema}results WHERE {which} ORDER BY file_size DESC, record_size DESC",
        columns::select_list(columns)
    )
}

/// The summaries of the runs `which_runs` picks (a condition on `run_id`).
pub fn select_summaries(schema: &str, which_runs: &str) -> String {
    format!(
        "SELECT {} FROM {schema}run_summaries WHERE {which_runs}",
        columns::select_list(SUMMARY_COLUMNS)
    )
}

/// Removes the summaries of the runs `which_runs` picks (a condition on `run_id`), before
/// those derived again from their results (`RowSummary::of`) are written.
pub fn delete_summaries(schema: &str, which_runs: &str) -> String {
    format!("DELETE FROM {schema}run_summaries WHERE {which_runs}")
}

/// Removes the runs `which_runs` picks (a condition on `id`); their labels, tags,
/// results and summaries go with them.
pub fn delete_runs(schema: &str, which_runs: &str) -> String {
    format!("DELETE FROM {schema}runs WHERE {which_runs}")
}

/// The runs whose row holds a value no run may (`Run::check_storable`), as far as a
/// column's kind tells: an instant outside the years 1970 to 9999, a count beyond 64
/// signed bits (kept as a negative one), a number that is negative or not finite. What
/// `db check` reads whole to say which field; text is left to the backends (SQLite
/// holds a NUL in text, PostgreSQL does not).
pub fn runs_outside(schema: &str) -> Statement {
    outside(&format!("SELECT id FROM {schema}runs"), RUN_COLUMNS)
}

/// The runs with a figure that holds a value no measurement may, as
/// [`runs_outside`] tells it.
pub fn results_outside(schema: &str) -> Statement {
    outside(
        &format!("SELECT DISTINCT run_id FROM {schema}results"),
        RESULT_COLUMNS,
    )
}

/// `select` where any of `columns` holds a value outside what its kind may, by id.
fn outside<T>(select: &str, columns: &[columns::Column<T>]) -> Statement {
    let mut conditions = Vec::new();
    let mut params = Vec::new();
    for column in columns.iter().filter(|c| !c.generated) {
        let name = column.name;
        match column.kind {
            Kind::Time => {
                conditions.push(format!("{name} < ? OR {name} > ?"));
                params.push((Kind::Time, Value::Time(crate::model::EARLIEST)));
                params.push((Kind::Time, Value::Time(crate::model::LATEST)));
            }
            // the seed is kept with all 64 bits, as the same signed bits; a run's id is
            // the key of its rows
            Kind::Integer if !["seed", "run_id"].contains(&name) => {
                conditions.push(format!("{name} < 0"))
            }
            // a measured rate may be infinite; NaN is not at least 0 on SQLite, which
            // keeps none, and PostgreSQL sorts it above infinity
            Kind::Real if name == "throughput" => {
                conditions.push(format!("NOT ({name} >= 0 AND {name} <= ?)"));
                params.push((Kind::Real, Value::Real(f64::INFINITY)));
            }
            Kind::Real => {
                conditions.push(format!("NOT ({name} >= 0 AND {name} < ?)"));
                params.push((Kind::Real, Value::Real(f64::INFINITY)));
            }
            _ => {}
        }
    }
    Statement {
        sql: format!("{select} WHERE {} ORDER BY 1", conditions.join(" OR ")),
        params,
    }
}

/// Runs, at most `limit`, with summaries derived before they kept a run's whole level
/// (schema 10 on SQLite, 8 on PostgreSQL), which the store derives again; found
/// through the partial index of that migration, which is empty once none is left.
pub fn underived_summaries(schema: &str, limit: usize) -> String {
    format!(
        "SELECT DISTINCT run_id FROM {schema}run_summaries WHERE positives IS NULL LIMIT {limit}"
    )
}

/// The labels of the runs `which_runs` picks, each run's in the order they were given.
pub fn select_labels(schema: &str, which_runs: &str) -> String {
    format!(
        "SELECT run_id, label FROM {schema}run_labels WHERE {which_runs} \
         ORDER BY run_id, position"
    )
}

/// The tags of the runs `which_runs` picks.
pub fn select_tags(schema: &str, which_runs: &str) -> String {
    format!("SELECT run_id, key, value FROM {schema}run_tags WHERE {which_runs}")
}

/// A table of a run's plain rows (labels, tags): its name and its columns.
pub struct Table {
    pub name: &'static str,
    pub columns: &'static [(&'static str, Kind)],
}

impl Table {
    /// `INSERT INTO` the table (under `schema`) with a `?` per column.
    pub fn insert(&self, schema: &str) -> String {
        let names: Vec<&str> = self.columns.iter().map(|(name, _)| *name).collect();
        let placeholders = vec!["?"; names.len()].join(", ");
        format!(
            "INSERT INTO {schema}{} ({}) VALUES ({placeholders})",
            self.name,
            names.join(", ")
        )
    }
}

pub const LABELS: Table = Table {
    name: "run_labels",
    columns: &[
        ("run_id", Kind::Integer),
        ("label", Kind::Text),
        ("position", Kind::Integer),
    ],
};

pub const TAGS: Table = Table {
    name: "run_tags",
    columns: &[
        ("run_id", Kind::Integer),
        ("key", Kind::Text),
        ("value", Kind::Text),
    ],
};

/// The rows of [`LABELS`] and of [`TAGS`] for a run recorded as `id`: labels keep the
/// order they were given in, and a label given twice keeps its first position.
pub fn labels_and_tags_rows(id: i64, run: &Run) -> [(&'static Table, Vec<Vec<Value<'static>>>); 2] {
    let mut seen = std::collections::HashSet::new();
    let labels = run
        .labels
        .iter()
        .enumerate()
        .filter(|(_, label)| seen.insert(label.as_str()))
        .map(|(position, label)| vec![id.into(), label.clone().into(), (position as i64).into()])
        .collect();
    let tags = run
        .tags
        .iter()
        .map(|(k, v)| vec![id.into(), k.clone().into(), v.clone().into()])
        .collect();
    [(&LABELS, labels), (&TAGS, tags)]
}

/// Gives listed runs the labels and tags read for them (labels in position order).
pub fn attach_labels_and_tags(
    runs: &mut [Run],
    labels: impl IntoIterator<Item = (i64, String)>,
    tags: impl IntoIterator<Item = (i64, String, String)>,
) {
    let index: HashMap<i64, usize> = runs
        .iter()
        .enumerate()
        .filter_map(|(i, r)| Some((r.id?, i)))
        .collect();
    for (id, label) in labels {
        if let Some(&i) = index.get(&id) {
            runs[i].labels.push(label);
        }
    }
    for (id, key, value) in tags {
        if let Some(&i) = index.get(&id) {
            runs[i].tags.insert(key, value);
        }
    }
}

/// The result rows `read` hands on, grouped by run as they come (never all held as
/// rows first: a run of millions of figures would be in memory twice), each run's in
/// the listing order; every id asked for has an entry, empty when it has no results.
pub fn group_results<E>(
    ids: &[i64],
    read: impl FnOnce(&mut dyn FnMut(ResultRow)) -> Result<(), E>,
) -> Result<HashMap<i64, RunResults>, E> {
    let mut by_run: HashMap<i64, RunResults> =
        ids.iter().map(|&id| (id, RunResults::default())).collect();
    read(&mut |row| by_run.entry(row.run_id).or_default().add(row))?;
    for results in by_run.values_mut() {
        results.sort();
    }
    Ok(by_run)
}

/// Summary rows grouped by run; every id asked for has an entry, empty when the run
/// has no results.
pub fn group_summaries(
    ids: &[i64],
    rows: impl IntoIterator<Item = SummaryRow>,
) -> HashMap<i64, Vec<RowSummary>> {
    let mut by_run: HashMap<i64, Vec<RowSummary>> =
        ids.iter().map(|&id| (id, Vec::new())).collect();
    for row in rows {
        by_run.entry(row.run_id).or_default().push(row.summary);
    }
    by_run
}

/// Fills in the summaries of the runs that keep no summary rows (without results, or
/// with one figure per key: `RowSummary::kept_for`) from their results, which
/// `results_of` reads (their figures are enough).
pub fn summarize_unkept<E>(
    summaries: &mut HashMap<i64, Vec<RowSummary>>,
    results_of: impl FnOnce(&[i64], Detail) -> Result<HashMap<i64, RunResults>, E>,
) -> Result<(), E> {
    let mut unkept: Vec<i64> = summaries
        .iter()
        .filter(|(_, rows)| rows.is_empty())
        .map(|(&id, _)| id)
        .collect();
    unkept.sort_unstable();
    for (id, r) in results_of(&unkept, Detail::Figures)? {
        summaries.insert(id, RowSummary::of(&r.results));
    }
    Ok(())
}

/// Removes the record a spooled run stands in for: a run recorded under this UUID
/// without results, as `running` or `failed` (left when the final write of a measured
/// run failed) or `aborted` (found dead since). Only a complete run replaces it; `None`
/// for any other.
pub fn drop_placeholder(schema: &str, run: &Run) -> Option<Statement> {
    placeholder_where(schema, run, &format!("DELETE FROM {schema}runs"))
}

/// The ids of the record [`drop_placeholder`] removes, for a backend that removes what
/// goes with it itself.
pub fn placeholder_ids(schema: &str, run: &Run) -> Option<Statement> {
    placeholder_where(schema, run, &format!("SELECT id FROM {schema}runs"))
}

/// `statement` (on `runs`) restricted to the placeholder of `run`, when it is complete.
fn placeholder_where(schema: &str, run: &Run, statement: &str) -> Option<Statement> {
    (run.status == RunStatus::Complete).then(|| Statement {
        sql: format!(
            "{statement} WHERE uuid = ? AND status IN ('running', 'failed', 'aborted') \
             AND NOT EXISTS (SELECT 1 FROM {schema}results r WHERE r.run_id = {schema}runs.id)"
        ),
        params: vec![(Kind::Uuid, Value::Uuid(run.uuid))],
    })
}

/// The end of a run begun earlier: what [`FINISHED_COLUMNS`] hold, for the run `id`.
pub fn finish_run(schema: &str, id: i64, run: &Run) -> Statement {
    let mut params = Vec::new();
    let mut sets = Vec::new();
    for name in FINISHED_COLUMNS {
        let column = columns::named(RUN_COLUMNS, name);
        sets.push(format!("{name} = ?"));
        params.push((column.kind, (column.encode)(run)));
    }
    params.push((Kind::Integer, Value::Integer(id)));
    Statement {
        // only a run still running: another process may have found this one dead from a
        // snapshot taken just before it finished, and must not overwrite its ending
        sql: format!(
            "UPDATE {schema}runs SET {} WHERE id = ? AND status = 'running'",
            sets.join(", ")
        ),
        params,
    }
}

/// Sets every written column of run `id` to `run`'s: a run passed in parts
/// (`RunPart`) gets its UUID and the parameters its figures decide when it closes.
pub fn update_run(schema: &str, id: i64, run: &Run) -> Statement {
    let mut params = Vec::new();
    let mut sets = Vec::new();
    for column in columns::inserted(RUN_COLUMNS) {
        sets.push(format!("{} = ?", column.name));
        params.push((column.kind, (column.encode)(run)));
    }
    params.push((Kind::Integer, Value::Integer(id)));
    Statement {
        sql: format!("UPDATE {schema}runs SET {} WHERE id = ?", sets.join(", ")),
        params,
    }
}

/// The ids a reference may point to (at most two are looked for: one is the answer,
/// two make it ambiguous); `None` when nothing can match.
pub fn resolve(schema: &str, reference: &RunRef) -> Option<Statement> {
    Some(match reference {
        RunRef::Id(id) => id_or_uuid(schema, *id),
        RunRef::Latest(n) => Statement {
            sql: format!(
                "SELECT id FROM {schema}runs ORDER BY started_at DESC, id DESC LIMIT 1 OFFSET ?"
            ),
            params: vec![(Kind::Integer, Value::Integer(i64::from(*n)))],
        },
        // a prefix is a range of UUIDs, which the unique index finds at once
        RunRef::UuidPrefix(prefix) => {
            let (low, high) = uuid_range(prefix)?;
            Statement {
                sql: format!(
                    "SELECT id FROM {schema}runs WHERE uuid BETWEEN ? AND ? ORDER BY uuid LIMIT 2"
                ),
                params: vec![(Kind::Uuid, low.into()), (Kind::Uuid, high.into())],
            }
        }
    })
}

/// The run with id `id`; failing that, when its digits are long enough to be the
/// start of a UUID (`show 91015410`, a prefix copied from `history`), the run whose UUID
/// starts with them: a UUID prefix is all digits for one run in forty at 8 characters.
fn id_or_uuid(schema: &str, id: i64) -> Statement {
    let by_id = Statement {
        sql: format!("SELECT id FROM {schema}runs WHERE id = ?"),
        params: vec![(Kind::Integer, Value::Integer(id))],
    };
    let digits = id.to_string();
    let Some((low, high)) = uuid_range(&digits).filter(|_| digits.len() >= 4) else {
        return by_id;
    };
    Statement {
        sql: format!(
            "{} UNION ALL SELECT p.id FROM (SELECT id FROM {schema}runs \
             WHERE uuid BETWEEN ? AND ? ORDER BY uuid LIMIT 2) AS p \
             WHERE NOT EXISTS (SELECT 1 FROM {schema}runs WHERE id = ?)",
            by_id.sql
        ),
        params: vec![
            (Kind::Integer, Value::Integer(id)),
            (Kind::Uuid, low.into()),
            (Kind::Uuid, high.into()),
            (Kind::Integer, Value::Integer(id)),
        ],
    }
}

/// The one run `found` holds for `reference`, or why there is none.
pub fn one_run(reference: &RunRef, found: &[i64]) -> Result<i64, StoreError> {
    match found {
        [id] => Ok(*id),
        [] => Err(StoreError::NoSuchRun(reference.to_string())),
        _ => Err(StoreError::Ambiguous(reference.to_string())),
    }
}

/// The UUIDs that start with `prefix` (hyphens ignored) as an inclusive range, or
/// `None` when no UUID can start with it. Stored UUIDs are lowercase and hyphenated
/// alike, so the range holds for SQLite's text as for PostgreSQL's `uuid`.
fn uuid_range(prefix: &str) -> Option<(Uuid, Uuid)> {
    let hex = prefix.replace('-', "").to_ascii_lowercase();
    if hex.len() > 32 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let low = Uuid::parse_str(&format!("{hex:0<32}")).ok()?;
    let high = Uuid::parse_str(&format!("{hex:f<32}")).ok()?;
    Some((low, high))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuid_prefixes_are_ranges() {
        let (low, high) = uuid_range("4F0C-1a").unwrap();
        assert_eq!(low.to_string(), "4f0c1a00-0000-0000-0000-000000000000");
        assert_eq!(high.to_string(), "4f0c1aff-ffff-ffff-ffff-ffffffffffff");
        assert!(uuid_range("xyz0").is_none());
        assert!(uuid_range(&"a".repeat(33)).is_none());
    }

    #[test]
    fn a_label_given_twice_keeps_its_first_position() {
        let mut run = super::super::tests::sample_run("h", 0);
        run.labels = vec!["a".into(), "b".into(), "a".into()];
        let [(_, labels), _] = labels_and_tags_rows(3, &run);
        let row =
            |label: &'static str, position: i64| vec![3i64.into(), label.into(), position.into()];
        assert_eq!(labels, [row("a", 0), row("b", 1)]);
    }
}
