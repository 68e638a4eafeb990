//! `iozone import FILE...`: each file read, its format found, parsed, and recorded in
//! one transaction, a batch of runs at a time as they are parsed; a file that fails
//! leaves nothing behind and the others go on.

use chrono::Utc;

use super::Context;
use crate::cli::{ImportArgs, ImportFormat};
use crate::import::{self, BatchError, Format, Next};
use crate::model::RunPart;
use crate::store::{Batch, Store};

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
                    display_name(path),
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
    let name = display_name(path);
    let opened = if is_stdin(path) {
        import::open(std::io::stdin(), forced(args.format))
    } else {
        std::fs::File::open(path)
            .map_err(import::InputError::from)
            .and_then(|file| import::open(file, forced(args.format)))
    };
    let input = opened.map_err(|e| match e {
        import::InputError::Read(_) => anyhow::anyhow!("cannot read {name}: {e}"),
        import::InputError::UnknownFormat => {
            anyhow::anyhow!("{name}: {e}; --format can force one")
        }
        e => anyhow::anyhow!("{name}: {e}"),
    })?;
    let mut runs = import::runs(input, &name, Utc::now());
    let stated = import::Stated {
        labels: args.labels.clone(),
        tags: args.tags.clone(),
        host: args.host.clone(),
    };
    let (mut total, mut failure) = (0, None);
    // One transaction for the file: a failure half-way (a run that does not parse, the
    // input cut short) leaves nothing of it stored.
    let added = store.save_batches(&mut || match import::next_batch(
        &mut runs, &stated, &name, total,
    ) {
        Ok(Some(Next::Runs(batch))) => {
            total += batch.len();
            Batch::Runs(batch)
        }
        Ok(Some(Next::Part(part))) => {
            total += matches!(part, RunPart::Close { .. }) as usize;
            Batch::Part(part)
        }
        Ok(None) => Batch::End,
        Err(e) => {
            failure = Some(e);
            Batch::Abandon
        }
    })?;
    match (added, failure) {
        // the check's message names the file itself
        (_, Some(BatchError::Unstorable(e))) => Err(e.into()),
        (_, Some(BatchError::Parse(e))) => Err(anyhow::anyhow!("{name}: {e}")),
        (Some(added), None) => Ok((added, total)),
        (None, None) => unreachable!("only a failure abandons a file"),
    }
}

/// `-` names standard input, as in most tools that read files.
fn is_stdin(path: &std::path::Path) -> bool {
    path.as_os_str() == "-"
}

/// The input as messages and `Source.file` name it.
fn display_name(path: &std::path::Path) -> String {
    if is_stdin(path) {
        "standard input".to_string()
    } else {
        path.display().to_string()
    }
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
        ImportFormat::Fileop => Some(Format::Fileop),
        ImportFormat::FsMark => Some(Format::FsMark),
        ImportFormat::Bonnie => Some(Format::Bonnie),
        ImportFormat::Mdtest => Some(Format::Mdtest),
    }
}
