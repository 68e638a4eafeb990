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
    let text = |s: &str| Param::Text(s.to_string());
    let mut out: Vec<(String, Vec<Param>)> = Vec::new();
    let mut add = |clause: String, params: Vec<Param>| out.push((clause, params));
    if !filter.ids.is_empty() {
        // through the primary key, a range at a time
        let any: Vec<&str> = filter.ids.iter().map(|_| "r.id BETWEEN ? AND ?").collect();
        let ends = filter
            .ids
            .iter()
            .flat_map(|r| [Param::Int(r.first), Param::Int(r.last.unwrap_or(i64::MAX))]);
        add(format!("({})", any.join(" OR ")), ends.collect());
    }
    if let Some(host) = &filter.host {
        add("r.hostname = ?".into(), vec![text(host)]);
    }
    if let Some(fs) = &filter.fs {
        add("r.fs_type = ?".into(), vec![text(fs)]);
    }
    for label in &filter.labels {
        add(
            format!("r.id IN (SELECT run_id FROM {schema}run_labels WHERE label = ?)"),
            vec![text(label)],
        );
    }
    for (k, v) in &filter.tags {
        add(
            format!("r.id IN (SELECT run_id FROM {schema}run_tags WHERE key = ? AND value = ?)"),
            vec![text(k), text(v)],
        );
    }
    if let Some(test) = filter.test {
        add(
            format!(
                "EXISTS (SELECT 1 FROM {schema}results x WHERE x.run_id = r.id AND x.warmup = false AND x.test = ?)"
            ),
            vec![text(test.name())],
        );
    }
    if let Some(record) = filter.record {
        add(
            format!(
                "EXISTS (SELECT 1 FROM {schema}results x WHERE x.run_id = r.id AND x.warmup = false AND x.record_size = ?)"
            ),
            vec![Param::Int(record as i64)],
        );
    }
    if let Some(since) = filter.since {
        add("r.started_at >= ?".into(), vec![Param::Time(since)]);
    }
    if let Some(until) = filter.until {
        add("r.started_at < ?".into(), vec![Param::Time(until)]);
    }
    if let Some(status) = filter.status {
        let name = serde_json::to_value(status).expect("status serializes");
        add(
            "r.status = ?".into(),
            vec![text(name.as_str().unwrap_or_default())],
        );
    }
    // a run of several engines or cache modes is selected by any of them: its results
    // say which (the run's own column holds the first only)
    let measured_with = |column: &str| {
        format!(
            "(r.{column} = ? OR EXISTS (SELECT 1 FROM {schema}results x WHERE x.run_id = r.id AND x.{column} = ?))"
        )
    };
    if let Some(engine) = filter.engine {
        add(
            measured_with("engine"),
            vec![text(engine.name()), text(engine.name())],
        );
    }
    if let Some(cache) = filter.cache {
        add(
            measured_with("cache"),
            vec![text(cache.name()), text(cache.name())],
        );
    }
    if let Some(depth) = filter.iodepth {
        add("r.iodepth = ?".into(), vec![Param::Int(i64::from(depth))]);
    }
    if let Some((started_at, id)) = filter.after {
        let beyond = if filter.oldest_first { ">" } else { "<" };
        // a row value, which both databases find through the (started_at, id) index;
        // the same condition spelled with OR makes PostgreSQL read every run past it
        add(
            format!("(r.started_at, r.id) {beyond} (?, ?)"),
            vec![Param::Time(started_at), Param::Int(id)],
        );
    }
    out
}

/// Newest first (or oldest first), then the limit: the end of every backend's
/// `history` query.
pub(super) fn order_and_limit(filter: &RunFilter) -> String {
    let mut sql = match filter.oldest_first {
        false => " ORDER BY r.started_at DESC, r.id DESC",
        true => " ORDER BY r.started_at, r.id",
    }
    .to_string();
    if let Some(limit) = filter.limit {
        sql.push_str(&format!(" LIMIT {limit}"));
    }
    sql
}
