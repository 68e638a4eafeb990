//! Which parser reads a file: sniffed from the content, or forced with `--format`.

use super::{Origin, ParseError, classic, fio, iozone3, own};
use crate::cli::ImportFormat;
use crate::model::Run;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Iozone3,
    Fio,
    Classic,
    Json,
    Csv,
}

impl From<ImportFormat> for Format {
    fn from(f: ImportFormat) -> Self {
        match f {
            ImportFormat::Iozone3 | ImportFormat::Auto => Format::Iozone3,
            ImportFormat::Fio => Format::Fio,
            ImportFormat::Classic => Format::Classic,
            ImportFormat::Json => Format::Json,
            ImportFormat::Csv => Format::Csv,
        }
    }
}

/// The format a file's content shows, most specific first.
pub fn detect(text: &str) -> Option<Format> {
    if fio::looks_like(text) {
        Some(Format::Fio)
    } else if own::looks_like_json(text) {
        Some(Format::Json)
    } else if iozone3::looks_like(text) {
        Some(Format::Iozone3)
    } else if classic::looks_like(text) {
        Some(Format::Classic)
    } else if own::looks_like_csv(text) {
        Some(Format::Csv)
    } else {
        None
    }
}

pub fn parse(format: Format, text: &str, origin: &Origin) -> Result<Vec<Run>, ParseError> {
    match format {
        Format::Iozone3 => iozone3::parse(text, origin),
        Format::Fio => fio::parse(text, origin),
        Format::Classic => classic::parse(text, origin),
        Format::Json => own::parse_json(text, origin),
        Format::Csv => own::parse_csv(text, origin),
    }
}
