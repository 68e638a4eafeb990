//! Opening what `import` is given, a file or standard input, without trusting its size:
//! the format is sniffed from the first [`SNIFF_BYTES`], so input in no known format
//! (a binary file, `/dev/zero`) stops there. Other tools' outputs are then read whole,
//! up to the format's [`Format::max_bytes`], so an endless or runaway input stops at a
//! bound instead of filling memory; our own exports, which grow with the database they
//! come from, are handed on as a stream for their parser to read a run at a time.

use std::io::{BufRead, BufReader, Cursor, Read};

use super::Format;
use super::formats::detect;
use crate::units::ByteSize;

/// How much of the input the format is told from. Every format we read says what it is
/// in its first lines (iozone3's banner, fio's `"fio version"`, the classic header, our
/// export's first keys or CSV header); 64 KiB leaves room for prose or shell noise above.
pub const SNIFF_BYTES: usize = 64 << 10;

/// The size limits, and why they are where they are.
impl Format {
    /// The largest input of this format `import` reads whole, or `None` for a format
    /// read as a stream, whatever its size. fio's JSON is a few KB a job (tens of KB
    /// with latency bins), the classic table is a page, and the metadata tools print a
    /// table or a line per run (fileop, fs_mark, bonnie++, mdtest): 64 MiB is hundreds
    /// of times any of them, so only a file that is not such an output reaches it. Our own exports
    /// grow with the database (about 10 KB a run of 20 results, 1.2 GB for 100,000
    /// runs): they are parsed as they are read, a run at a time, and stored in batches,
    /// so memory holds a batch of runs whatever the file's size. iozone3's auto mode
    /// sweeps as many sizes as it is told to (a table of millions of rows, hundreds of
    /// megabytes): its table is read a line at a time and its runs stored in parts.
    pub fn max_bytes(self) -> Option<u64> {
        match self {
            Format::Fio
            | Format::Classic
            | Format::Fileop
            | Format::FsMark
            | Format::Bonnie
            | Format::Mdtest => Some(64 << 20),
            Format::Iozone3 | Format::Json | Format::Csv => None,
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
        "not a text file (iozone3 text, fio JSON, the classic IOzone table, fileop, fs_mark, bonnie++ CSV, mdtest, an iozone JSON or CSV export)"
    )]
    NotText,
    #[error(
        "not in a known format (iozone3 text, fio JSON, the classic IOzone table, fileop, fs_mark, bonnie++ CSV, mdtest, an iozone JSON or CSV export)"
    )]
    UnknownFormat,
    #[error("larger than {}, more than any {} reaches: not imported", ByteSize(*.limit), format.describe())]
    TooLarge { format: Format, limit: u64 },
}

/// An input opened, in the format it is in: read whole, or to be read as it comes.
pub enum Input {
    /// Another tool's output: its whole text.
    Whole { text: String, format: Format },
    /// Our own export: the sniffed bytes and then the rest, as the parser reads them.
    Stream {
        reader: Box<dyn BufRead + Send>,
        format: Format,
    },
}

impl Input {
    pub fn format(&self) -> Format {
        match self {
            Input::Whole { format, .. } | Input::Stream { format, .. } => *format,
        }
    }
}

impl std::fmt::Debug for Input {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Input::Whole { text, format } => write!(f, "Whole({format:?}, {} bytes)", text.len()),
            Input::Stream { format, .. } => write!(f, "Stream({format:?})"),
        }
    }
}

/// Opens `reader` as text in `forced`, or in the format its first bytes show: read
/// whole when the format has a size limit, handed on as a stream when it has none.
pub fn open(
    mut reader: impl Read + Send + 'static,
    forced: Option<Format>,
) -> Result<Input, InputError> {
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
    let Some(limit) = format.max_bytes() else {
        // the parser sees the bytes the format was told from again, then the rest
        let reader = BufReader::with_capacity(STREAM_BUFFER, Cursor::new(bytes).chain(reader));
        return Ok(Input::Stream {
            reader: Box::new(reader),
            format,
        });
    };
    // One byte past the limit tells a file of exactly the limit from a larger one.
    let rest = limit + 1 - bytes.len() as u64;
    reader.take(rest).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(InputError::TooLarge { format, limit });
    }
    let text = String::from_utf8(bytes).map_err(|_| InputError::NotText)?;
    Ok(Input::Whole { text, format })
}

/// The read buffer of a streamed input: large enough that reading costs a system call
/// per 256 KiB, small beside a batch of runs.
const STREAM_BUFFER: usize = 256 << 10;

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
            Format::Fileop => "fileop table",
            Format::FsMark => "fs_mark output",
            Format::Bonnie => "bonnie++ CSV line",
            Format::Mdtest => "mdtest summary",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BANNER: &str = "\tIozone: Performance Test of File I/O\n";

    fn bytes(text: &str) -> Cursor<Vec<u8>> {
        Cursor::new(text.as_bytes().to_vec())
    }

    /// The text of an input read whole.
    fn whole(input: Input) -> (Format, String) {
        match input {
            Input::Whole { text, format } => (format, text),
            other => panic!("expected a whole text, got {other:?}"),
        }
    }

    #[test]
    fn empty_input_is_empty_not_unknown() {
        assert!(matches!(open(&b""[..], None), Err(InputError::Empty)));
        assert!(matches!(
            open(&b""[..], Some(Format::Iozone3)),
            Err(InputError::Empty)
        ));
    }

    #[test]
    fn endless_zeros_stop_after_the_sniffed_bytes() {
        assert!(matches!(
            open(std::io::repeat(0), None),
            Err(InputError::NotText)
        ));
    }

    #[test]
    fn an_endless_known_format_stops_at_its_limit() {
        let endless = CLASSIC.as_bytes().chain(std::io::repeat(b' '));
        match open(endless, None) {
            Err(InputError::TooLarge { format, limit }) => {
                assert_eq!((format, limit), (Format::Classic, 64 << 20))
            }
            other => panic!("expected TooLarge, got {other:?}"),
        }
    }

    /// iozone3's output is read a line at a time, whatever its size: a line without
    /// end stops at the longest a line may be.
    #[test]
    fn an_endless_iozone3_line_stops_at_its_limit() {
        let endless = BANNER.as_bytes().chain(std::io::repeat(b' '));
        let input = open(endless, None).unwrap();
        assert_eq!(input.format(), Format::Iozone3);
        let first = crate::import::runs(input, "endless", chrono::Utc::now()).next();
        let e = first.unwrap().unwrap_err();
        assert_eq!(e.line, Some(2));
        assert!(e.message.contains("longer than"), "{e}");
    }

    /// The classic table's header.
    const CLASSIC: &str = "Command  Read (bytes/sec)  Write (bytes/sec)\n";

    #[test]
    fn a_file_of_exactly_the_limit_is_read() {
        let limit = Format::Classic.max_bytes().unwrap() as usize;
        let mut text = String::from(CLASSIC);
        text.push_str(&" ".repeat(limit - text.len()));
        let (format, read) = whole(open(bytes(&text), None).unwrap());
        assert_eq!((format, read.len()), (Format::Classic, limit));
        text.push(' ');
        assert!(matches!(
            open(bytes(&text), None),
            Err(InputError::TooLarge { .. })
        ));
    }

    /// Our exports have no size limit: they are handed on unread past the sniffed
    /// bytes, however much follows (here, without end), for the parser to stream.
    #[test]
    fn our_exports_have_no_limit_and_are_not_read_ahead() {
        for format in [Format::Iozone3, Format::Json, Format::Csv] {
            assert_eq!(format.max_bytes(), None, "{format:?}");
        }
        let header = "{\n  \"format\": \"iozone-export\",\n  \"runs\": [\n    {\"uuid\": 1}";
        let endless = header.as_bytes().chain(std::io::repeat(b' '));
        let Input::Stream { mut reader, format } = open(endless, None).unwrap() else {
            panic!("an export is not streamed");
        };
        assert_eq!(format, Format::Json);
        // the sniffed bytes come first, then the rest as it is read
        let mut start = vec![0; SNIFF_BYTES + 10];
        reader.read_exact(&mut start).unwrap();
        assert!(start.starts_with(header.as_bytes()));
        assert!(start[header.len()..].iter().all(|&b| b == b' '));
        let csv = "uuid,started_at,x,throughput\n";
        let endless = csv.as_bytes().chain(std::io::repeat(b'a'));
        assert!(matches!(
            open(endless, None),
            Ok(Input::Stream {
                format: Format::Csv,
                ..
            })
        ));
    }

    #[test]
    fn a_character_cut_by_the_sniffing_is_no_reason_to_refuse() {
        let mut text = CLASSIC.to_string();
        text.push_str(&"x".repeat(SNIFF_BYTES - text.len() - 1));
        text.push('é'); // two bytes, straddling the end of the sniffed part
        let (format, read) = whole(open(bytes(&text), None).unwrap());
        assert_eq!(format, Format::Classic);
        assert_eq!(read, text);
    }

    #[test]
    fn text_in_no_known_format_is_said_so() {
        assert!(matches!(
            open(&b"hello\n"[..], None),
            Err(InputError::UnknownFormat)
        ));
        let forced = open(&b"hello\n"[..], Some(Format::Csv)).unwrap();
        assert_eq!(forced.format(), Format::Csv);
    }
}
