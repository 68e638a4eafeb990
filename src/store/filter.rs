//! How a [`RunFilter`] becomes SQL: the WHERE conditions and the ordering of the
//! `history` query, written once for both backends.

use chrono::{DateTime, Utc};

use super::RunFilter;

/// A value bound to one of [`conditions`]' `?`s; each backend binds it its own way.
pub(super) enum Param {
    Text(String),
    Int(i64),
    Time(DateTime<Utc>),
}

/// The WHERE conditions of the `history` query, one per filter field, each with a `?`
/// per value and table names under `schema` (`""` for SQLite, `"iozone."` for
/// PostgreSQL). Labels and tags select through their indexes (`IN`), so a rare label
/// does not scan every run.
pub(super) fn conditions(filter: &RunFilter, schema: &str) -> Vec<(String, Vec<Param>)> {
    let mut out = Conditions::default();
    which_runs(filter, schema, &mut out);
    what_they_measured(filter, schema, &mut out);
    if let Some(since) = filter.since {
        out.add("r.started_at >= ?".into(), vec![Param::Time(since)]);
    }
    if let Some(until) = filter.until {
        out.add("r.started_at < ?".into(), vec![Param::Time(until)]);
    }
    if let Some(status) = filter.status {
        let name = serde_json::to_value(status).expect("status serializes");
        out.add(
            "r.status = ?".into(),
            vec![text(name.as_str().unwrap_or_default())],
        );
    }
    how_they_measured(filter, schema, &mut out);
    if let Some((started_at, id)) = filter.after {
        let beyond = if filter.oldest_first { ">" } else { "<" };
        // a row value, which both databases find through the (started_at, id) index;
        // the same condition spelled with OR makes PostgreSQL read every run past it
        out.add(
            format!("(r.started_at, r.id) {beyond} (?, ?)"),
            vec![Param::Time(started_at), Param::Int(id)],
        );
    }
    out.0
}

/// The conditions so far, in the order their `?`s are bound.
#[derive(Default)]
struct Conditions(Vec<(String, Vec<Param>)>);

impl Conditions {
    fn add(&mut self, clause: String, params: Vec<Param>) {
        self.0.push((clause, params));
    }
}

fn text(s: &str) -> Param {
    Param::Text(s.to_string())
}

/// The runs by what their record says: ids, host, filesystem, labels and tags.
fn which_runs(filter: &RunFilter, schema: &str, out: &mut Conditions) {
    if !filter.ids.is_empty() {
        // through the primary key, a range at a time
        let any: Vec<&str> = filter.ids.iter().map(|_| "r.id BETWEEN ? AND ?").collect();
        let ends = filter
            .ids
            .iter()
            .flat_map(|r| [Param::Int(r.first), Param::Int(r.last.unwrap_or(i64::MAX))]);
        out.add(format!("({})", any.join(" OR ")), ends.collect());
    }
    if let Some(host) = &filter.host {
        out.add("r.hostname = ?".into(), vec![text(host)]);
    }
    if let Some(fs) = &filter.fs {
        out.add("r.fs_type = ?".into(), vec![text(fs)]);
    }
    for label in &filter.labels {
        out.add(
            format!("r.id IN (SELECT run_id FROM {schema}run_labels WHERE label = ?)"),
            vec![text(label)],
        );
    }
    for (k, v) in &filter.tags {
        out.add(
            format!("r.id IN (SELECT run_id FROM {schema}run_tags WHERE key = ? AND value = ?)"),
            vec![text(k), text(v)],
        );
    }
}

/// The runs by their measured results: a test, a record size.
fn what_they_measured(filter: &RunFilter, schema: &str, out: &mut Conditions) {
    if let Some(test) = filter.test {
        out.add(
            format!(
                "EXISTS (SELECT 1 FROM {schema}results x WHERE x.run_id = r.id AND x.warmup = false AND x.test = ?)"
            ),
            vec![text(test.name())],
        );
    }
    if let Some(record) = filter.record {
        out.add(
            format!(
                "EXISTS (SELECT 1 FROM {schema}results x WHERE x.run_id = r.id AND x.warmup = false AND x.record_size = ?)"
            ),
            vec![Param::Int(record as i64)],
        );
    }
}

/// The runs by the engine, cache mode and queue depth they measured with.
fn how_they_measured(filter: &RunFilter, schema: &str, out: &mut Conditions) {
    // a run of several engines or cache modes is selected by any of them: its results
    // say which (the run's own column holds the first only)
    let measured_with = |column: &str| {
        format!(
            "(r.{column} = ? OR EXISTS (SELECT 1 FROM {schema}results x WHERE x.run_id = r.id AND x.{column} = ?))"
        )
    };
    if let Some(engine) = filter.engine {
        out.add(
            measured_with("engine"),
            vec![text(engine.name()), text(engine.name())],
        );
    }
    if let Some(cache) = filter.cache {
        out.add(
            measured_with("cache"),
            vec![text(cache.name()), text(cache.name())],
        );
    }
    if let Some(depth) = filter.iodepth {
        out.add("r.iodepth = ?".into(), vec![Param::Int(i64::from(depth))]);
    }
}

/// Newest first (or oldest first), or host by host (each host's runs together, newest
/// first, hosts in reverse order: what both databases read backwards through the
/// host's index): the order of every backend's `history` query and walks.
pub(super) fn order(filter: &RunFilter, by_host: bool) -> &'static str {
    match (by_host, filter.oldest_first) {
        (true, _) => " ORDER BY r.hostname DESC, r.started_at DESC, r.id DESC",
        (false, false) => " ORDER BY r.started_at DESC, r.id DESC",
        (false, true) => " ORDER BY r.started_at, r.id",
    }
}

/// The limit, if any: the end of every backend's `history` query.
pub(super) fn limit(filter: &RunFilter) -> String {
    filter
        .limit
        .map_or(String::new(), |limit| format!(" LIMIT {limit}"))
}
