//! Reading what `import` is given, a file or standard input, without trusting its size:
//! the format is sniffed from the first [`SNIFF_BYTES`], so input in no known format
//! (a binary file, `/dev/zero`) stops there, and the rest is read only up to the
//! format's [`Format::max_bytes`], so an endless or runaway input stops at a bound
//! instead of filling memory.

use std::io::Read;

use super::Format;
use super::formats::detect;
use crate::units::ByteSize;

/// How much of the input the format is told from. Every format we read says what it is
/// in its first lines (iozone3's banner, fio's `"fio version"`, the classic header, our
/// export's first keys or CSV header); 64 KiB leaves room for prose or shell noise above.
pub const SNIFF_BYTES: usize = 64 << 10;

/// The size limits, and why they are where they are.
impl Format {
    /// The largest input of this format `import` reads. Outputs of other tools are
    /// small: iozone3's largest, an auto-mode sweep of every file and record size with
    /// the stdio columns, is under 100 KB; fio's JSON is a few KB a job (tens of KB
    /// with latency bins), and the classic table is a page. 64 MiB is hundreds of times
    /// any of them, so only a file that is not such an output reaches it. Our own
    /// exports grow with the database (about 10 KB a run of 20 results): 1 GiB holds
    /// some 100,000 runs; a larger database is exported in parts (by date or selector).
    pub fn max_bytes(self) -> u64 {
        match self {
            Format::Iozone3 | Format::Fio | Format::Classic => 64 << 20,
            Format::Json | Format::Csv => 1 << 30,
        }
    }
}

/// Why an input could not be read as text of a known format.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    #[error("{0}")]
    Read(#[from] std::io::Error),
    #[error("empty, nothing to import")]
    Empty,
    #[error(
        "not a text file (iozone3 text, fio JSON, the classic IOzone table, an iozone JSON or CSV export)"
    )]
    NotText,
    #[error(
        "not in a known format (iozone3 text, fio JSON, the classic IOzone table, an iozone JSON or CSV export)"
    )]
    UnknownFormat,
    #[error(
        "larger than {limit}, more than any {what} reaches: not imported",
        limit = ByteSize(format.max_bytes()),
        what = format.describe()
    )]
    TooLarge { format: Format },
}

/// An input read whole: its text and the format it is in.
#[derive(Debug)]
pub struct Input {
    pub text: String,
    pub format: Format,
}

/// Reads `reader` as text in `forced`, or in the format its first bytes show.
pub fn read(mut reader: impl Read, forced: Option<Format>) -> Result<Input, InputError> {
    let mut bytes = Vec::with_capacity(SNIFF_BYTES);
    (&mut reader)
        .take(SNIFF_BYTES as u64)
        .read_to_end(&mut bytes)?;
    if bytes.is_empty() {
        return Err(InputError::Empty);
    }
    let head = text_head(&bytes).ok_or(InputError::NotText)?;
    let format = match forced {
        Some(format) => format,
        None => detect(head).ok_or(InputError::UnknownFormat)?,
    };
    // One byte past the limit tells a file of exactly the limit from a larger one.
    let rest = format.max_bytes() + 1 - bytes.len() as u64;
    reader.take(rest).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > format.max_bytes() {
        return Err(InputError::TooLarge { format });
    }
    let text = String::from_utf8(bytes).map_err(|_| InputError::NotText)?;
    Ok(Input { text, format })
}

/// The first bytes as text, leaving out a character the cut split; `None` when they
/// are not UTF-8 or hold a NUL (no text format has one; binary files and `/dev/zero` do).
fn text_head(bytes: &[u8]) -> Option<&str> {
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => text,
        // `error_len` is `None` when the bytes end inside a character: the cut's doing.
        Err(e) if e.error_len().is_none() => std::str::from_utf8(&bytes[..e.valid_up_to()]).ok()?,
        Err(_) => return None,
    };
    (!text.contains('\0')).then_some(text)
}

impl Format {
    /// What the format holds, for messages.
    pub fn describe(self) -> &'static str {
        match self {
            Format::Iozone3 => "iozone3 output",
            Format::Fio => "fio JSON output",
            Format::Classic => "classic IOzone table",
            Format::Json => "iozone JSON export",
            Format::Csv => "iozone CSV export",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BANNER: &str = "\tIozone: Performance Test of File I/O\n";

    #[test]
    fn empty_input_is_empty_not_unknown() {
        assert!(matches!(read(&b""[..], None), Err(InputError::Empty)));
        assert!(matches!(
            read(&b""[..], Some(Format::Iozone3)),
            Err(InputError::Empty)
        ));
    }

    #[test]
    fn endless_zeros_stop_after_the_sniffed_bytes() {
        let mut zeros = std::io::repeat(0);
        assert!(matches!(read(&mut zeros, None), Err(InputError::NotText)));
    }

    #[test]
    fn an_endless_known_format_stops_at_its_limit() {
        let endless = BANNER.as_bytes().chain(std::io::repeat(b' '));
        match read(endless, None) {
            Err(InputError::TooLarge { format }) => assert_eq!(format, Format::Iozone3),
            other => panic!("expected TooLarge, got {other:?}"),
        }
    }

    #[test]
    fn a_file_of_exactly_the_limit_is_read() {
        let limit = Format::Classic.max_bytes() as usize;
        let mut text = String::from("Command  Read (bytes/sec)  Write (bytes/sec)\n");
        text.push_str(&" ".repeat(limit - text.len()));
        let input = read(text.as_bytes(), None).unwrap();
        assert_eq!((input.format, input.text.len()), (Format::Classic, limit));
        text.push(' ');
        assert!(matches!(
            read(text.as_bytes(), None),
            Err(InputError::TooLarge { .. })
        ));
    }

    #[test]
    fn a_character_cut_by_the_sniffing_is_no_reason_to_refuse() {
        let mut text = BANNER.to_string();
        text.push_str(&"x".repeat(SNIFF_BYTES - text.len() - 1));
        text.push('é'); // two bytes, straddling the end of the sniffed part
        let input = read(text.as_bytes(), None).unwrap();
        assert_eq!(input.format, Format::Iozone3);
        assert_eq!(input.text, text);
    }

    #[test]
    fn text_in_no_known_format_is_said_so() {
        assert!(matches!(
            read(&b"hello\n"[..], None),
            Err(InputError::UnknownFormat)
        ));
        let forced = read(&b"hello\n"[..], Some(Format::Csv)).unwrap();
        assert_eq!(forced.format, Format::Csv);
    }
}
