//! `iozone import FILE...`: each file read, its format found, parsed, and recorded in
//! one transaction; a file that fails leaves nothing behind and the others go on.

use chrono::Utc;

use super::Context;
use crate::cli::{ImportArgs, ImportFormat};
use crate::import::{self, Format, Input, Origin};
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
    let read = if is_stdin(path) {
        import::read(std::io::stdin().lock(), forced(args.format))
    } else {
        std::fs::File::open(path)
            .map_err(import::InputError::from)
            .and_then(|file| import::read(file, forced(args.format)))
    };
    let Input { text, format } = read.map_err(|e| match e {
        import::InputError::Read(_) => anyhow::anyhow!("cannot read {name}: {e}"),
        import::InputError::UnknownFormat => {
            anyhow::anyhow!("{name}: {e}; --format can force one")
        }
        e => anyhow::anyhow!("{name}: {e}"),
    })?;
    let origin = Origin::new(&name, text.as_bytes(), Utc::now());
    let mut runs =
        import::parse(format, &text, &origin).map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
    // The text is no longer needed: its memory goes before the store's work begins.
    drop(text);
    for (index, run) in runs.iter_mut().enumerate() {
        decorate(run, args);
        import::check_storable(run, &name, index)?;
    }
    let added = store.save_runs(&runs)?;
    Ok((added, runs.len()))
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
