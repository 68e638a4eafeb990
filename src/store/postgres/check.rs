//! `db check` on PostgreSQL, and `db check --repair`. The server keeps the types and
//! constraints itself: no text holds a NUL, no instant is unreadable. What can still be
//! wrong is an index left invalid (an interrupted CREATE INDEX CONCURRENTLY, a failed
//! REINDEX), which queries then ignore, and runs recorded before runs were checked
//! (`Run::check_storable`) that hold what no run may, such as a start in the year
//! 10000, which `sync` to a SQLite file and `export | import` refuse. Results are not
//! read for it: a check of every figure would read the whole fleet's, and no importer
//! ever let a figure through that was negative or not finite.

use postgres::{Client, GenericClient, Transaction};

use super::errors::Fail;
use super::read;
use crate::store::{BadRun, CheckReport, Repaired, statements};

/// The iozone indexes the server left invalid, by name.
pub(super) fn invalid_indexes(client: &mut impl GenericClient) -> Result<Vec<String>, Fail> {
    Ok(client
        .query(
            "SELECT c.relname FROM pg_index i \
             JOIN pg_class c ON c.oid = i.indexrelid \
             JOIN pg_namespace n ON n.oid = c.relnamespace \
             WHERE n.nspname = 'iozone' AND NOT (i.indisvalid AND i.indisready) \
             ORDER BY c.relname",
            &[],
        )?
        .iter()
        .map(|r| r.get(0))
        .collect())
}

/// The runs that cannot be read back, and those that hold what no run may (each read
/// whole, to name the field): the rows `statements::runs_outside` finds.
pub(super) fn bad_runs(client: &mut Client) -> Result<(Vec<BadRun>, Vec<BadRun>), Fail> {
    let (mut unreadable, mut unstorable) = (Vec::new(), Vec::new());
    for id in read::ids(client, &statements::runs_outside("iozone."))? {
        let bad = |problem: String, uuid: String| BadRun { id, uuid, problem };
        match read::load_run(client, id) {
            Ok(Some(run)) => {
                if let Err(problem) = run.check_storable() {
                    unstorable.push(bad(problem.to_string(), run.uuid.to_string()));
                }
            }
            Ok(None) => {}
            Err(Fail::Bad(reason)) => {
                let uuid: String = client
                    .query_one("SELECT uuid::text FROM iozone.runs WHERE id = $1", &[&id])?
                    .get(0);
                unreadable.push(bad(reason, uuid));
            }
            Err(other) => return Err(other),
        }
    }
    Ok((unreadable, unstorable))
}

/// Rebuilds the invalid indexes and removes the runs `report` found.
pub(super) fn repair(
    tx: &mut Transaction<'_>,
    report: &CheckReport,
) -> Result<Vec<Repaired>, Fail> {
    let mut done = Vec::new();
    for name in invalid_indexes(tx)? {
        tx.batch_execute(&format!("REINDEX INDEX iozone.\"{name}\""))?;
        done.push(Repaired {
            verb: "Rebuilt",
            what: format!("index iozone.{name}"),
        });
    }
    let delete = statements::delete_runs("iozone.", "id = $1");
    for run in report.unreadable.iter().chain(&report.unstorable) {
        if tx.execute(&delete, &[&run.id])? > 0 {
            done.push(Repaired {
                verb: "Removed",
                what: run.to_string(),
            });
        }
    }
    Ok(done)
}
