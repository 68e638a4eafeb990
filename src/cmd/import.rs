//! `iozone import FILE...`: each file read, its format found, parsed, and recorded in
//! one transaction; a file that fails leaves nothing behind and the others go on.

use anyhow::Context as _;
use chrono::Utc;

use super::Context;
use crate::cli::{ImportArgs, ImportFormat};
use crate::import::{self, Format, Origin};
use crate::model::Run;
use crate::store::Store;

/// Some files could not be imported; each was reported on its own line.
#[derive(Debug, thiserror::Error)]
#[error("{failed} of {} could not be imported", crate::units::count(*.total, "file"))]
pub struct SomeFilesFailed {
    failed: usize,
    total: usize,
}

pub fn exec(args: ImportArgs, context: &Context) -> anyhow::Result<()> {
    let shell = &context.shell;
    let mut store = context.open_store()?;
    let mut failed = 0;
    for path in &args.files {
        match import_file(&mut *store, path, &args) {
            Ok((added, total)) => shell.status(
                "Imported",
                format!(
                    "{}: {added} run{} ({} already there)",
                    path.display(),
                    if added == 1 { "" } else { "s" },
                    total - added
                ),
            ),
            Err(e) if args.files.len() == 1 => return Err(e),
            Err(e) => {
                failed += 1;
                shell.error(super::error_message(&e));
            }
        }
    }
    if failed > 0 {
        return Err(SomeFilesFailed {
            failed,
            total: args.files.len(),
        }
        .into());
    }
    Ok(())
}

fn import_file(
    store: &mut dyn Store,
    path: &std::path::Path,
    args: &ImportArgs,
) -> anyhow::Result<(usize, usize)> {
    let name = path.display().to_string();
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {name}"))?;
    let text = std::str::from_utf8(&bytes).map_err(|_| {
        anyhow::anyhow!(
            "{name}: not a text file (iozone3 text, fio JSON, the classic table, an iozone export)"
        )
    })?;
    let format = match forced(args.format) {
        Some(format) => format,
        None => import::detect(text).ok_or_else(|| {
            anyhow::anyhow!(
                "{name}: not in a known format (iozone3 text, fio JSON, the classic IOzone table, \
                 an iozone JSON or CSV export); --format can force one"
            )
        })?,
    };
    let origin = Origin::new(&name, &bytes, Utc::now());
    let mut runs =
        import::parse(format, text, &origin).map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
    for run in &mut runs {
        decorate(run, args);
    }
    let added = store.save_runs(&runs)?;
    Ok((added, runs.len()))
}

/// The parser `--format` forces, or `None` for `auto`: look at the content.
fn forced(format: ImportFormat) -> Option<Format> {
    match format {
        ImportFormat::Auto => None,
        ImportFormat::Iozone3 => Some(Format::Iozone3),
        ImportFormat::Fio => Some(Format::Fio),
        ImportFormat::Classic => Some(Format::Classic),
        ImportFormat::Json => Some(Format::Json),
        ImportFormat::Csv => Some(Format::Csv),
    }
}

/// What the user states about the runs: labels, tags, and the host when the file
/// does not name one.
fn decorate(run: &mut Run, args: &ImportArgs) {
    for label in &args.labels {
        if !run.labels.contains(label) {
            run.labels.push(label.clone());
        }
    }
    for (k, v) in &args.tags {
        run.tags.insert(k.clone(), v.clone());
    }
    if run.host.hostname.is_none() {
        run.host.hostname = args.host.clone();
    }
}
